/* reg_pressure.c: an estimate, from the tile IR, of the vector registers one lane holds through the
 * innermost loop around an op: the float tiles live across the loop (compiler/tir/loop_live.c: those
 * it carries and those it reads from outside it, held the whole loop; constants, such as a masked
 * load's `other`, are immediates and count nothing), and the operands of its dots (each held while
 * the dot's MFMAs run). lower_convert.c's LDS maps trade address registers for bank conflicts and ask
 * it where registers are short, as lower_dot.c's k-step pairs do. LLVM's allocation adds the LDS
 * addresses, the fragments read ahead and its own temporaries, and the estimate can be wrong either
 * way: where the code spills or loses waves to its VGPRs, the driver lowers the kernel again
 * frugally (compiler/driver/driver_frugal.c). bench/vs_triton's 64x64x256 w8 k32 (gfx942): 72
 * estimated (104 while the two masked loads' zero tiles counted), 152 allocated. */
#include "compiler/lower/lower_internal.h"

static int64_t tile_bytes(const Type *t)
{
    return t && t->kind == TY_TILE ? ty_numel(t) * ((ty_bits(ty_elem(t)) + 7) / 8) : 0;
}

static bool in_lds(const Value *v)
{
    const OpPlan *pl = v->def ? v->def->plan : NULL;
    return pl && (pl->set & (1u << PK_DEFER)) && pl->v[PK_DEFER];
}

/* A lane's 32-bit registers of a float tile spread over the workgroup. Scalars are SGPRs; integer,
 * bool and pointer tiles are mostly indices, offsets and masks that the axis analysis proves affine
 * or constant along an axis and the lowering keeps as few registers (lower_elem.c). */
static int tile_regs(const Lower *L, const Type *t)
{
    if (!t || t->kind != TY_TILE || !ty_is_float(t))
        return 0;
    int64_t lanes = (int64_t)L->nw * L->t->wave_size;
    int64_t bytes = tile_bytes(t);
    return lanes > 0 ? (int)((bytes + 4 * lanes - 1) / (4 * lanes)) : 0;
}

/* A value's registers through the loop: a constant is one value splat over the tile, an immediate or
 * a scalar register wherever it is used (a masked load's `other`), not a tile of VGPRs. */
static int live_regs(const Lower *L, const Value *v)
{
    return v->def && v->def->code == OP_CONST ? 0 : tile_regs(L, v->type);
}

enum { MAX_LIVE = 256 };

typedef struct Pressure {
    const Lower *L;
    int regs;
    int64_t lds;
} Pressure;

/* A dot's operands: held while its MFMAs run; those read from LDS (allocate_lds's defer) counted
 * apart. */
static bool count_dot(Op *op, void *ud)
{
    Pressure *p = ud;
    if (op->code != OP_DOT)
        return true;
    for (int i = 0; i < 2; i++) {
        p->regs += tile_regs(p->L, op->operands[i]->type);
        if (in_lds(op->operands[i]))
            p->lds += tile_bytes(op->operands[i]->type);
    }
    return true;
}

int lower_loop_pressure(const Lower *L, const Op *op, int64_t *lds)
{
    const Op *loop = op && op->parent ? op->parent->parent : NULL;
    while (loop && loop->code != OP_FOR && loop->code != OP_WHILE)
        loop = loop->parent ? loop->parent->parent : NULL;
    if (lds)
        *lds = 0;
    if (!loop)
        return 0;
    Pressure p = {L, 0, 0};
    const Value *live[MAX_LIVE];
    int n = tir_loop_live(loop, live, MAX_LIVE);
    for (int i = 0; i < n; i++)
        p.regs += live_regs(L, live[i]);
    for (int r = 0; r < loop->nregions; r++)
        tir_walk_block(loop->regions[r], count_dot, &p);
    if (lds)
        *lds = p.lds;
    return p.regs;
}
