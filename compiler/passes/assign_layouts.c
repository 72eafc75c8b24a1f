/* assign_layouts: layout-free TIR to LIR, where every tile value carries a layout.
 *
 * Anchors decide layouts: a load, store or atomic takes the coalesced layout its pointers allow (axis
 * analysis), a dot the accumulator layout of its matrix instruction (or a blocked one for the FMA
 * fallback) with operands in dot_op layouts, a reduction the slice of its operand's layout, a loop
 * carries each tile in the layout its yielded value prefers. Everything else is cheap to recompute —
 * constants, splats, aranges, elementwise chains, broadcasts, expand_dims — and is materialised on
 * demand, once per layout a consumer needs (memoised), so a pointer computation used by a load and a
 * store in different layouts is simply computed twice instead of being converted. A demanded value is
 * placed at the consumer, or hoisted just before the outermost loop between the consumer and the
 * value's definition, so loop-invariant work stays out of loops. Only anchor results can need moving
 * between layouts: that is where convert_layout ops appear. */
#include <string.h>

#include "compiler/passes/assign_layouts.h"

static void fail(Ctx *c, SrcPos pos, const char *msg)
{
    if (c->failed)
        return;
    c->failed = true;
    if (!pos.line) { /* IR text without loc(...) */
        diag_plain(c->diags, DIAG_ERROR, "@%s: %s", c->src->name, msg);
        return;
    }
    diag_plain(c->diags, DIAG_ERROR, "%s:%u:%u: %s", c->src->module->nfiles > (int)pos.file
                                                          ? c->src->module->files[pos.file]
                                                          : "?",
               pos.line, pos.col, msg);
}

/* ---- blocks and insertion points ---- */

static void map_block(Ctx *c, Block *tir, Block *lir)
{
    if (c->nblocks == c->capblocks) {
        int cap = c->capblocks ? c->capblocks * 2 : 16;
        c->blocks = arena_realloc(c->a, c->blocks, sizeof(BlockPair) * (size_t)c->capblocks, sizeof(BlockPair) * (size_t)cap);
        c->capblocks = cap;
    }
    c->blocks[c->nblocks++] = (BlockPair){tir, lir};
}

static Block *lir_block_of(Ctx *c, Block *tir)
{
    for (int i = 0; i < c->nblocks; i++)
        if (c->blocks[i].tir == tir)
            return c->blocks[i].lir;
    return NULL;
}

static Block *def_block(const Value *v)
{
    return v->def ? v->def->parent : v->owner;
}

bool al_encloses(Block *outer, Block *inner)
{
    for (Block *b = inner; b; b = b->parent ? b->parent->parent : NULL)
        if (b == outer)
            return true;
    return false;
}

/* The demand point, or just before the outermost loop between it and the definition's block. */
IP al_hoist(Ctx *c, IP ip, const Value *tirv)
{
    Block *ldef = lir_block_of(c, def_block(tirv));
    IP best = ip;
    Block *blk = ip.blk;
    while (blk && blk != ldef && blk->parent) {
        Op *owner = blk->parent;
        if (owner->code == OP_FOR || owner->code == OP_WHILE)
            best = (IP){owner->parent, owner};
        blk = owner->parent;
    }
    return best;
}

Op *al_emit_at(Ctx *c, IP ip, OpCode code, const Type *rt, Value **ops, int nops)
{
    Op *op = tir_op_new(c->dst, code, rt ? &rt : NULL, rt ? 1 : 0, ops, nops);
    op->pos = c->b.pos;
    if (ip.before)
        tir_insert_before(ip.before, op);
    else
        tir_insert_end(ip.blk, op);
    return op;
}

static IP here(Ctx *c)
{
    return (IP){c->b.block, NULL};
}

/* ---- ops in program order ---- */

static void emit_block_ops(Ctx *c, Block *tir, Block *lir);

static Op *clone_here(Ctx *c, const Op *op, Value **ops, int nops, const Type **rtypes)
{
    Op *n = b_op(&c->b, op->code, rtypes, op->nres, ops, nops);
    n->at = op->at;
    n->pos = op->pos;
    for (int i = 0; i < op->nres; i++) {
        n->results[i].name = op->results[i].name;
        c->fixed[vid(&op->results[i])] = op_result(n, i);
    }
    return n;
}

static Value *need(Ctx *c, Value *v, const Layout *L)
{
    Value *r = al_get(c, v, L, here(c));
    if (!r)
        fail(c, c->b.pos, "internal error: a value is used before its layout is known");
    return r;
}

/* The carried layouts of a loop or if: one per result, NULL for scalars. */
static const Layout **carried_layouts(Ctx *c, const Op *op)
{
    const Layout **ls = ARENA_ARRAY(c->a, const Layout *, op->nres + 1);
    for (int i = 0; i < op->nres; i++)
        ls[i] = op->results[i].type->kind == TY_TILE ? al_pref(c, &op->results[i]) : NULL;
    return ls;
}

static void emit_region(Ctx *c, Block *tir, Block *lir, const Layout **arg_layouts)
{
    for (int i = 0; i < tir->nargs; i++) {
        const Type *t = tir->args[i].type;
        tir_block_add_arg(lir, arg_layouts && arg_layouts[i] ? with_layout(c, t, arg_layouts[i]) : t,
                          tir->args[i].name);
    }
    for (int i = 0; i < tir->nargs; i++)
        c->fixed[vid(&tir->args[i])] = &lir->args[i];
    map_block(c, tir, lir);
    Builder saved = c->b;
    tir_builder_at_end(&c->b, lir);
    /* A loop-carried tile that the body's first dot uses as an operand (a pipelined load) is converted
     * first thing: its registers die before the loads issued later in the body need theirs. A later
     * dot's operand (attention's V) is converted where that dot needs it: converted early it would
     * wait in registers (the first dot frees the LDS of the operands it read), converted late it
     * goes to LDS just before its dot and is read from there. */
    const Op *first_dot = NULL;
    for (const Op *o = tir->first; o && !first_dot; o = o->next)
        if (o->code == OP_DOT)
            first_dot = o;
    for (int i = 0; i < tir->nargs; i++) {
        Value *v = &tir->args[i];
        if (v->type->kind != TY_TILE)
            continue;
        for (Use *u = c->uses[vid(v)]; u; u = u->next)
            if (u->op == first_dot && u->idx < 2) {
                const Layout *acc, *la, *lb;
                al_dot_layouts(c, u->op, &acc, &la, &lb);
                need(c, v, u->idx == 0 ? la : lb);
                break;
            }
    }
    emit_block_ops(c, tir, lir);
    c->b = saved;
}

/* A terminator of a region: its operands in the given layouts. */
static void emit_terminator(Ctx *c, const Op *t, Block *lir, const Layout **ls, int first)
{
    Builder saved = c->b;
    tir_builder_at_end(&c->b, lir);
    c->b.pos = t->pos;
    Value **ops = ARENA_ARRAY(c->a, Value *, t->nopnds + 1);
    for (int i = 0; i < t->nopnds; i++)
        ops[i] = need(c, t->operands[i], i >= first && ls ? ls[i - first] : NULL);
    Op *n = b_op(&c->b, t->code, NULL, 0, ops, t->nopnds);
    n->at = t->at;
    c->b = saved;
}

static void emit_for(Ctx *c, Op *op)
{
    const Layout **ls = carried_layouts(c, op);
    Value **ops = ARENA_ARRAY(c->a, Value *, op->nopnds + 1);
    for (int i = 0; i < op->nopnds; i++)
        ops[i] = need(c, op->operands[i], i >= 3 ? ls[i - 3] : NULL);
    const Type **rt = ARENA_ARRAY(c->a, const Type *, op->nres + 1);
    for (int i = 0; i < op->nres; i++)
        rt[i] = ls[i] ? with_layout(c, op->results[i].type, ls[i]) : op->results[i].type;
    Op *n = clone_here(c, op, ops, op->nopnds, rt);
    Block *tb = op_block(op, 0);
    const Layout **al = ARENA_ARRAY(c->a, const Layout *, tb->nargs + 1);
    for (int i = 1; i < tb->nargs; i++)
        al[i] = ls[i - 1];
    /* the body (terminators are skipped), then the yield in the carried layouts */
    emit_region(c, tb, op_block(n, 0), al);
    emit_terminator(c, tb->last, op_block(n, 0), ls, 0);
}

static void emit_if(Ctx *c, Op *op)
{
    const Layout **ls = carried_layouts(c, op);
    Value *cond = need(c, op->operands[0], NULL);
    const Type **rt = ARENA_ARRAY(c->a, const Type *, op->nres + 1);
    for (int i = 0; i < op->nres; i++)
        rt[i] = ls[i] ? with_layout(c, op->results[i].type, ls[i]) : op->results[i].type;
    Op *n = clone_here(c, op, &cond, 1, rt);
    for (int r = 0; r < 2; r++) {
        Block *tb = op_block(op, r);
        emit_region(c, tb, op_block(n, r), NULL);
        emit_terminator(c, tb->last, op_block(n, r), ls, 0);
    }
}

static void emit_while(Ctx *c, Op *op)
{
    const Layout **ls = carried_layouts(c, op);
    Value **ops = ARENA_ARRAY(c->a, Value *, op->nopnds + 1);
    for (int i = 0; i < op->nopnds; i++)
        ops[i] = need(c, op->operands[i], ls[i]);
    const Type **rt = ARENA_ARRAY(c->a, const Type *, op->nres + 1);
    for (int i = 0; i < op->nres; i++)
        rt[i] = ls[i] ? with_layout(c, op->results[i].type, ls[i]) : op->results[i].type;
    Op *n = clone_here(c, op, ops, op->nopnds, rt);
    for (int r = 0; r < 2; r++) {
        Block *tb = op_block(op, r);
        emit_region(c, tb, op_block(n, r), ls);
        emit_terminator(c, tb->last, op_block(n, r), ls, r == 0 ? 1 : 0);
    }
}

static void emit_anchor(Ctx *c, Op *op)
{
    int nops = op->nopnds;
    Value **ops = ARENA_ARRAY(c->a, Value *, op->nopnds + 1);
    const Type **rt = ARENA_ARRAY(c->a, const Type *, op->nres + 1);
    switch (op->code) {
    case OP_LOAD:
    case OP_STORE:
    case OP_ATOMIC_RMW:
    case OP_ATOMIC_CAS: {
        const Layout *L = op->operands[0]->type->kind == TY_TILE ? al_mem_layout(c, op) : NULL;
        if (L && op->code == OP_STORE) {
            const Layout *v = al_store_in_place(c, op);
            if (v)
                L = v;
        }
        for (int i = 0; i < op->nopnds; i++)
            ops[i] = need(c, op->operands[i], L);
        for (int i = 0; i < op->nres; i++)
            rt[i] = L ? with_layout(c, op->results[i].type, L) : op->results[i].type;
        if (L && al_async_load(c, op)) {
            /* into shared memory; `other` (zero) is what cp.async fills masked-off elements with */
            rt[0] = with_layout(c, op->results[0].type, al_async_shared_layout(c, op));
            nops = op->nopnds == 3 ? 2 : op->nopnds;
        }
        break;
    }
    case OP_DOT: {
        const Layout *acc, *la, *lb;
        al_dot_layouts(c, op, &acc, &la, &lb);
        ops[0] = need(c, op->operands[0], la);
        ops[1] = need(c, op->operands[1], lb);
        ops[2] = need(c, op->operands[2], acc);
        rt[0] = with_layout(c, op->results[0].type, acc);
        break;
    }
    case OP_REDUCE:
    case OP_ARGREDUCE:
    case OP_SCAN: {
        const Layout *in = al_pref(c, op->operands[0]);
        ops[0] = need(c, op->operands[0], in);
        const Type *t = op->results[0].type;
        rt[0] = t->kind != TY_TILE ? t
                : op->code == OP_SCAN ? with_layout(c, t, in)
                                      : with_layout(c, t, lay_slice(c->lt, in, (int)op->at.axis));
        break;
    }
    case OP_RESHAPE:
    case OP_PERMUTE: {
        /* moves data: the operand in its own layout, the result in the default one */
        ops[0] = need(c, op->operands[0], NULL);
        rt[0] = with_layout(c, op->results[0].type, al_default_layout(c, op->results[0].type));
        break;
    }
    default:
        /* assert, print and anything with tile operands: operands in their preferred layouts */
        for (int i = 0; i < op->nopnds; i++)
            ops[i] = need(c, op->operands[i], NULL);
        for (int i = 0; i < op->nres; i++)
            rt[i] = op->results[i].type->kind == TY_TILE
                        ? with_layout(c, op->results[i].type, al_pref(c, &op->results[i]))
                        : op->results[i].type;
        break;
    }
    for (int i = 0; i < op->nopnds; i++)
        if (!ops[i])
            return;
    clone_here(c, op, ops, nops, rt);
}

static bool has_tiles(const Op *op)
{
    for (int i = 0; i < op->nopnds; i++)
        if (op->operands[i]->type->kind == TY_TILE)
            return true;
    for (int i = 0; i < op->nres; i++)
        if (op->results[i].type->kind == TY_TILE)
            return true;
    return false;
}

static void emit_block_ops(Ctx *c, Block *tir, Block *lir)
{
    (void)lir;
    for (Op *op = tir->first; op && !c->failed; op = op->next) {
        c->b.pos = op->pos;
        switch (op->code) {
        case OP_FOR:
            emit_for(c, op);
            continue;
        case OP_IF:
            emit_if(c, op);
            continue;
        case OP_WHILE:
            emit_while(c, op);
            continue;
        case OP_YIELD:
        case OP_CONDITION:
            continue; /* emitted by the region's owner, in the carried layouts */
        default:
            break;
        }
        if (al_is_free(op) && op->nres == 1 && op->results[0].type->kind == TY_TILE)
            continue; /* materialised where it is needed */
        if (!has_tiles(op)) {
            /* scalars: the same op, operands mapped */
            Value **ops = ARENA_ARRAY(c->a, Value *, op->nopnds + 1);
            for (int i = 0; i < op->nopnds; i++)
                ops[i] = c->fixed[vid(op->operands[i])];
            const Type **rt = ARENA_ARRAY(c->a, const Type *, op->nres + 1);
            for (int i = 0; i < op->nres; i++)
                rt[i] = op->results[i].type;
            clone_here(c, op, ops, op->nopnds, rt);
            continue;
        }
        emit_anchor(c, op);
    }
}

static void collect_uses(Ctx *c, Block *b)
{
    for (Op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nopnds; i++) {
            Use *u = ARENA_NEW(c->a, Use);
            u->op = op;
            u->idx = i;
            int id = vid(op->operands[i]);
            u->next = c->uses[id];
            c->uses[id] = u;
        }
        for (int r = 0; r < op->nregions; r++)
            collect_uses(c, op->regions[r]);
    }
}

/* Are a layout's waves (and for blocked, its lanes) the kernel's? */
static bool fits_kernel(const Ctx *c, const Layout *l)
{
    int64_t waves = 1, lanes = 1;
    int n = l->kind == LAY_BLOCKED ? l->rank : 2;
    for (int d = 0; d < n; d++) {
        waves *= l->wpc[d];
        lanes *= l->tpw[d];
    }
    return waves == c->nw && (l->kind != LAY_BLOCKED || lanes == c->o->wave);
}

/* A planned layout (choose_dots, coalesce, or IR text) is one this pass can follow: a dot's is an
 * accumulator's (a matrix instruction's of this target's kind, or blocked with k_width 1: FMAs), a
 * memory op's blocked; their waves and lanes are the kernel's. */
static void check_plans(Ctx *c, const Block *b)
{
    for (const Op *op = b->first; op && !c->failed; op = op->next) {
        for (int r = 0; r < op->nregions; r++)
            check_plans(c, op->regions[r]);
        const OpPlan *pl = op->plan;
        if (!pl || !(pl->set & (1u << PK_LAYOUT)))
            continue;
        const Layout *l = pl->layout;
        LayoutKind mine = c->o->wave == 32 ? LAY_MMA : LAY_MFMA;
        if (op->code == OP_DOT && l->kind != mine && !(l->kind == LAY_BLOCKED && pl->v[PK_K_WIDTH] == 1))
            fail(c, op->pos, "a dot's plan layout is this target's matrix-instruction layout, or blocked with k_width 1");
        else if (op->code != OP_DOT && l->kind != LAY_BLOCKED)
            fail(c, op->pos, "a memory access's plan layout is blocked");
        else if (!fits_kernel(c, l))
            fail(c, op->pos, arena_printf(c->a, "a plan layout for another number of waves or lanes than the kernel's %d of %d",
                                          c->nw, c->o->wave));
    }
}

static void count_values(Block *b, int *n)
{
    *n += b->nargs;
    for (Op *op = b->first; op; op = op->next) {
        *n += op->nres;
        for (int r = 0; r < op->nregions; r++)
            count_values(op->regions[r], n);
    }
}

void al_ctx_init(Ctx *c, Arena *a, Func *tir, AxisTab *ax, LayoutTab *lt, const LirOptions *o, Diags *diags)
{
    memset(c, 0, sizeof *c);
    c->a = a;
    c->tt = tir->module->types;
    c->lt = lt;
    c->o = o;
    c->diags = diags;
    c->src = tir;
    c->nw = tir->opts.num_warps;
    c->ax = ax ? ax : compute_axis_info(a, tir); /* numbers the values (Value.scratch) */
    count_values(tir->body, &c->nvals);
    c->fixed = ARENA_ARRAY(a, Value *, c->nvals + 1);
    c->memo = ARENA_ARRAY(a, Memo *, c->nvals + 1);
    c->uses = ARENA_ARRAY(a, Use *, c->nvals + 1);
    c->pref = ARENA_ARRAY(a, const Layout *, c->nvals + 1);
    c->pref_state = ARENA_ARRAY(a, char, c->nvals + 1);
    collect_uses(c, tir->body);
}

Func *assign_layouts(Arena *a, Func *tir, AxisTab *ax, Module *dst, LayoutTab *lt, const LirOptions *o,
                     Diags *diags)
{
    Ctx c;
    al_ctx_init(&c, a, tir, ax, lt, o, diags);
    check_plans(&c, tir->body);
    if (c.failed)
        return NULL;
    lay_attach_printer(c.tt);
    Func *f = tir_func_new(dst, FUNC_KERNEL, tir->name);
    f->opts = tir->opts;
    f->range32 = tir->range32;
    f->pos = tir->pos;
    c.dst = f;
    for (int i = 0; i < tir->body->nargs; i++)
        tir_block_add_arg(f->body, tir->body->args[i].type, tir->body->args[i].name);
    for (int i = 0; i < tir->body->nargs; i++)
        c.fixed[vid(&tir->body->args[i])] = &f->body->args[i];
    map_block(&c, tir->body, f->body);
    tir_builder_at_end(&c.b, f->body);
    emit_block_ops(&c, tir->body, f->body);
    if (c.failed)
        return NULL;
    return f;
}

