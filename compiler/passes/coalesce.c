/* coalesce: the layout of each tile load, store and atomic, as the plan attribute `layout` on the op of
 * TIR (`%x = load %p, %m {layout = #blocked<...>} : f32[1024]`), which assign_layouts follows
 * (al_mem_layout): the widest access the axis facts allow, at most 16 bytes a lane, contiguous,
 * aligned and with the mask constant over it, fewer elements when the tile would leave lanes idle;
 * atomics one element; a tile that becomes a matrix instruction's B operand (directly or through
 * software pipelining's loop-carried values) k_width rows a lane, so it is written k-major to LDS in
 * runs, and one that becomes an MFMA dot's A operand through those values k_width consecutive k of a
 * row a lane where its accesses are narrower (layout_anchors.c, al_coalesced_layout). After
 * choose_dots, whose k_width it reads. */
#include "compiler/passes/assign_layouts.h"

static void plan_block(Ctx *c, Block *b)
{
    for (Op *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++)
            plan_block(c, op->regions[r]);
        bool mem = op->code == OP_LOAD || op->code == OP_STORE || op->code == OP_ATOMIC_RMW || op->code == OP_ATOMIC_CAS;
        if (!mem || op->operands[0]->type->kind != TY_TILE)
            continue;
        const Layout *l = al_coalesced_layout(c, op);
        if (!op->plan)
            op->plan = ARENA_NEW(c->a, OpPlan);
        op->plan->set |= 1u << PK_LAYOUT;
        op->plan->layout = l;
    }
}

void coalesce(Arena *a, Func *f, AxisTab *ax, LayoutTab *lt, const LirOptions *o)
{
    Ctx c;
    al_ctx_init(&c, a, f, ax, lt, o, NULL);
    lay_attach_printer(f->module->types);
    plan_block(&c, f->body);
}
