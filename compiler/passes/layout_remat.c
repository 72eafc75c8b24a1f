/* Preferences and rematerialisation: the layouts of everything that is not an anchor.
 *
 * A value's preferred layout is its anchor's, or the one layout the anchors it is computed from agree
 * on, or that of the anchors among its users (pref_of: memoised, strong when it comes from an anchor
 * upstream); loops carry each tile in the layout its yielded value prefers. Cheap values (constants,
 * splats, aranges, elementwise chains, broadcasts, expand_dims, permutes, hints) are never converted:
 * they are recomputed in whatever layout a consumer needs (al_get), once per layout and block
 * (memoised), at the consumer or hoisted before the outermost loop between it and the definition. An
 * elementwise op over anchors in another layout is computed in theirs and only its narrower result is
 * converted (compute_layout), so a cast or an epilogue stays in the accumulator's registers. */
#include "compiler/passes/assign_layouts.h"

/* ---- preferences ---- */

const Layout *al_default_layout(Ctx *c, const Type *t)
{
    return lay_default(c->lt, t->rank, t->shape, c->nw, c->o->wave);
}


/* The layout users of v would like when v itself has no opinion: the anchors among its direct users. */
static const Layout *pref_from_uses(Ctx *c, const Value *v)
{
    for (Use *u = c->uses[vid(v)]; u; u = u->next) {
        Op *op = u->op;
        switch (op->code) {
        case OP_LOAD:
        case OP_STORE:
        case OP_ATOMIC_RMW:
        case OP_ATOMIC_CAS:
            return al_mem_layout(c, op);
        case OP_DOT: {
            const Layout *acc, *la, *lb;
            al_dot_layouts(c, op, &acc, &la, &lb);
            return u->idx == 0 ? la : u->idx == 1 ? lb : acc;
        }
        default:
            break;
        }
    }
    return NULL;
}

static const Layout *pref_compute(Ctx *c, const Value *v, bool *strong)
{
    const Type *t = v->type;
    *strong = true;
    Op *op = v->def;
    if (!op) {
        /* a block argument */
        Block *blk = v->owner;
        Op *owner = blk->parent;
        if (owner && (owner->code == OP_FOR || owner->code == OP_WHILE)) {
            int carried = owner->code == OP_FOR ? v->index - 1 : v->index;
            Op *y = owner->code == OP_FOR ? blk->last : op_block(owner, 1)->last;
            if (carried >= 0 && y && y->code == OP_YIELD && carried < y->nopnds) {
                int yi = owner->code == OP_FOR ? carried : carried;
                const Layout *l = al_pref_of(c, y->operands[yi], strong);
                if (l && *strong)
                    return l;
            }
            const Layout *u = pref_from_uses(c, v);
            if (u)
                return u;
            int init = owner->code == OP_FOR ? 3 + carried : carried;
            if (carried >= 0 && init < owner->nopnds) {
                const Layout *l = al_pref_of(c, owner->operands[init], strong);
                if (l)
                    return l;
            }
        }
        *strong = false;
        return al_default_layout(c, t);
    }
    switch (op->code) {
    case OP_LOAD:
    case OP_ATOMIC_RMW:
    case OP_ATOMIC_CAS:
        if (al_async_load(c, op))
            return al_async_shared_layout(c, op);
        return al_mem_layout(c, op);
    case OP_DOT: {
        const Layout *acc, *la, *lb;
        al_dot_layouts(c, op, &acc, &la, &lb);
        return acc;
    }
    case OP_REDUCE:
    case OP_ARGREDUCE: {
        const Layout *in = al_pref_of(c, op->operands[0], strong);
        if (!in) { /* no opinion yet (a cycle through loop-carried values): the default's slice, weakly */
            *strong = false;
            return lay_slice(c->lt, al_default_layout(c, op->operands[0]->type), (int)op->at.axis);
        }
        *strong = true;
        return lay_slice(c->lt, in, (int)op->at.axis);
    }
    case OP_SCAN:
    case OP_RESHAPE:
        if (op->code == OP_SCAN) {
            const Layout *in = al_pref_of(c, op->operands[0], strong);
            *strong = true;
            return in;
        }
        return al_default_layout(c, t);
    case OP_FOR:
    case OP_WHILE: {
        Block *body = op_block(op, op->code == OP_FOR ? 0 : 1);
        int argi = op->code == OP_FOR ? v->index + 1 : v->index;
        return al_pref_of(c, &body->args[argi], strong);
    }
    case OP_IF: {
        for (int r = 0; r < 2; r++) {
            Op *y = op_block(op, r)->last;
            if (y && y->code == OP_YIELD) {
                const Layout *l = al_pref_of(c, y->operands[v->index], strong);
                if (l && *strong)
                    return l;
            }
        }
        *strong = false;
        return al_default_layout(c, t);
    }
    case OP_EXPAND_DIMS: {
        const Layout *in = al_pref_of(c, op->operands[0], strong);
        if (*strong && in && in->kind == LAY_SLICE && in->dim == op->at.axis)
            return in->parent;
        if (*strong && in && in->kind == LAY_BLOCKED && in->rank + 1 == t->rank) {
            /* the same distribution with a unit dimension inserted (slowest in the order): the
             * operand's slice of it is the operand's own layout, so nothing moves */
            int ax = (int)op->at.axis, spt[LAY_MAX_RANK], tpw[LAY_MAX_RANK], wpc[LAY_MAX_RANK], ord[LAY_MAX_RANK];
            for (int d = 0, k = 0; d < t->rank; d++) {
                bool unit = d == ax;
                spt[d] = unit ? 1 : in->spt[k];
                tpw[d] = unit ? 1 : in->tpw[k];
                wpc[d] = unit ? 1 : in->wpc[k];
                k += !unit;
            }
            for (int i = 0; i < in->rank; i++)
                ord[i] = in->order[i] >= ax ? in->order[i] + 1 : in->order[i];
            ord[in->rank] = ax;
            return lay_blocked(c->lt, t->rank, spt, tpw, wpc, ord);
        }
        break;
    }
    case OP_BROADCAST:
    case OP_HINT:
        return al_pref_of(c, op->operands[0], strong);
    case OP_PERMUTE: {
        const Layout *in = al_pref_of(c, op->operands[0], strong);
        const Layout *p = in ? lay_permuted(c->lt, in, op->at.dims) : NULL;
        if (p)
            return p;
        break;
    }
    default:
        if (tir_op_info[op->code].flags & F_ELEM) {
            const Layout *weak = NULL;
            for (int i = 0; i < op->nopnds; i++) {
                if (op->operands[i]->type->kind != TY_TILE)
                    continue;
                bool s;
                const Layout *l = al_pref_of(c, op->operands[i], &s);
                if (l && s) {
                    *strong = true;
                    return l;
                }
                if (!weak)
                    weak = l;
            }
            (void)weak;
        }
        break;
    }
    const Layout *u = pref_from_uses(c, v);
    if (u) {
        *strong = false;
        return u;
    }
    *strong = false;
    return al_default_layout(c, t);
}

const Layout *al_pref_of(Ctx *c, const Value *v, bool *strong)
{
    if (v->type->kind != TY_TILE) {
        *strong = false;
        return NULL;
    }
    int id = vid(v);
    if (c->fixed[id]) {
        *strong = true;
        return c->fixed[id]->type->layout;
    }
    if (c->pref_state[id] >= 2) {
        *strong = c->pref_state[id] == 2;
        return c->pref[id];
    }
    if (c->pref_state[id] == 1) { /* a cycle through loop-carried values: no opinion */
        *strong = false;
        return NULL;
    }
    /* A chain of thousands of elementwise ops would recurse as deep: past PREF_MAX_DEPTH a value has no
     * opinion (not remembered, so a shallower call still computes it), and the stack stays small
     * whatever the program's length and the thread's stack. */
    enum { PREF_MAX_DEPTH = 2000 };
    if (c->pref_depth >= PREF_MAX_DEPTH) {
        *strong = false;
        return NULL;
    }
    c->pref_state[id] = 1;
    c->pref_depth++;
    const Layout *l = pref_compute(c, v, strong);
    c->pref_depth--;
    c->pref[id] = l;
    c->pref_state[id] = *strong ? 2 : 3;
    return l;
}

const Layout *al_pref(Ctx *c, const Value *v)
{
    bool s;
    const Layout *l = al_pref_of(c, v, &s);
    return l ? l : al_default_layout(c, v->type);
}

/* ---- materialising values in layouts ---- */


static Value *memo_find(Ctx *c, const Value *v, const Layout *L, IP ip)
{
    for (Memo *m = c->memo[vid(v)]; m; m = m->next)
        if (m->lay == L && al_encloses(m->blk, ip.blk))
            return m->v;
    return NULL;
}

static void memo_add(Ctx *c, const Value *v, const Layout *L, Value *r, Block *blk)
{
    Memo *m = ARENA_NEW(c->a, Memo);
    m->lay = L;
    m->v = r;
    m->blk = blk;
    m->next = c->memo[vid(v)];
    c->memo[vid(v)] = m;
}

/* The operand layout a free op needs for its result to be in L; NULL when there is none (then the op
 * is computed in its own preferred layout and converted). */
static const Layout *operand_layout(Ctx *c, const Op *op, int i, const Layout *L)
{
    switch (op->code) {
    case OP_EXPAND_DIMS:
        if (L->rank < 2)
            return NULL;
        return lay_slice(c->lt, L, (int)op->at.axis);
    case OP_PERMUTE: {
        int64_t inv[TIR_MAX_RANK];
        for (int k = 0; k < op->at.ndims; k++)
            inv[op->at.dims[k]] = k;
        return lay_permuted(c->lt, L, inv);
    }
    default:
        (void)i;
        return L;
    }
}

bool al_is_free(const Op *op)
{
    if (!op)
        return false;
    switch (op->code) {
    case OP_CONST:
    case OP_ARANGE:
    case OP_SPLAT:
    case OP_BROADCAST:
    case OP_EXPAND_DIMS:
    case OP_PERMUTE:
    case OP_HINT:
        return true;
    default:
        return (tir_op_info[op->code].flags & F_ELEM) != 0;
    }
}

static Value *convert(Ctx *c, Value *tirv, Value *src, const Layout *L, IP ip)
{
    Value *m = memo_find(c, tirv, L, ip);
    if (m)
        return m;
    IP at = al_hoist(c, ip, tirv);
    Op *op = al_emit_at(c, at, OP_CONVERT_LAYOUT, with_layout(c, src->type, L), &src, 1);
    memo_add(c, tirv, L, op_result(op, 0), at.blk);
    return op_result(op, 0);
}

/* The layout of the anchors a free value is computed from: an anchor's own layout; through an
 * elementwise op, broadcast, hint or expand_dims (whose operand is the slice of the layout it makes),
 * the one layout all its anchored operands share. NULL when it has no anchor (constants, aranges,
 * splats); *mixed when anchors disagree or cannot be followed. The walk is bounded by *budget. */
static const Layout *root_layout(Ctx *c, const Value *v, bool *mixed, int *budget)
{
    const Value *f = c->fixed[vid(v)];
    if (f)
        return f->type->layout;
    const Op *op = v->def;
    if (!op || !al_is_free(op) || --*budget < 0) {
        *mixed = true;
        return NULL;
    }
    if (op->code == OP_PERMUTE) {
        *mixed = true;
        return NULL;
    }
    const Layout *l0 = NULL;
    for (int i = 0; i < op->nopnds && !*mixed; i++) {
        const Value *o = op->operands[i];
        if (o->type->kind != TY_TILE)
            continue;
        const Layout *l = root_layout(c, o, mixed, budget);
        if (l && op->code == OP_EXPAND_DIMS) {
            if (l->kind != LAY_SLICE || l->dim != op->at.axis) {
                *mixed = true;
                return NULL;
            }
            l = l->parent;
        }
        if (l && l0 && l != l0)
            *mixed = true;
        if (l)
            l0 = l;
    }
    return *mixed ? NULL : l0;
}

static int regs_per_lane(Ctx *c, const Layout *l, const Type *t)
{
    LinLayout ll;
    return lay_linear(l, t->rank, t->shape, c->o->wave, c->nw, &ll) ? lin_nregs(&ll) : 1 << 30;
}

/* An elementwise op computed from anchors in another layout L0 (directly, or through other free ops) is
 * best computed in L0 and its result converted, when the result is no wider than its operands and L0
 * gives a lane no more registers than L: a cast to bf16 before a store moves half the bytes, a chain
 * of epilogue ops stays in the accumulator's registers, and attention's probabilities are computed
 * once, in the accumulator's layout where the row sums need them, and only their f16 cast is moved to
 * the next dot's operand layout. Returns L0, or NULL when the op should be computed in L directly. */
static const Layout *compute_layout(Ctx *c, const Op *op, const Layout *L)
{
    if (!(tir_op_info[op->code].flags & F_ELEM) || op->nres != 1)
        return NULL;
    const Layout *l0 = NULL;
    int in_bits = 0;
    int budget = 64;
    for (int i = 0; i < op->nopnds; i++) {
        const Value *o = op->operands[i];
        if (o->type->kind != TY_TILE)
            continue;
        bool mixed = false;
        const Layout *l = root_layout(c, o, &mixed, &budget);
        if (mixed)
            return NULL;
        if (!l)
            continue; /* recomputed wherever needed */
        if (l0 && l != l0)
            return NULL;
        l0 = l;
        in_bits += ty_bits(o->type);
    }
    if (!l0 || l0 == L)
        return NULL;
    const Type *t = op->results[0].type;
    if (ty_bits(t) > in_bits || regs_per_lane(c, l0, t) > regs_per_lane(c, L, t))
        return NULL;
    return l0;
}

static Value *materialize_free(Ctx *c, Value *v, const Layout *L, IP ip)
{
    Op *op = v->def;
    const Layout *l0 = compute_layout(c, op, L);
    if (l0) {
        Value *x = al_get(c, v, l0, ip);
        return x ? convert(c, v, x, L, ip) : NULL;
    }
    IP at = al_hoist(c, ip, v);
    /* a permute whose layout cannot be permuted is computed in its operand's layout and converted */
    for (int i = 0; i < op->nopnds; i++)
        if (op->operands[i]->type->kind == TY_TILE && !operand_layout(c, op, i, L)) {
            const Layout *own = al_pref(c, v);
            if (own == L || !operand_layout(c, op, i, own))
                own = al_default_layout(c, v->type);
            Value *x = al_get(c, v, own, ip);
            return convert(c, v, x, L, ip);
        }
    Value **ops = ARENA_ARRAY(c->a, Value *, op->nopnds + 1);
    for (int i = 0; i < op->nopnds; i++) {
        Value *o = op->operands[i];
        ops[i] = o->type->kind == TY_TILE ? al_get(c, o, operand_layout(c, op, i, L), at) : c->fixed[vid(o)];
        if (!ops[i])
            return NULL;
    }
    Op *n = al_emit_at(c, at, op->code, with_layout(c, v->type, L), ops, op->nopnds);
    n->at = op->at;
    n->pos = op->pos;
    n->results[0].name = v->name;
    memo_add(c, v, L, op_result(n, 0), at.blk);
    return op_result(n, 0);
}

Value *al_get(Ctx *c, Value *v, const Layout *L, IP ip)
{
    if (v->type->kind != TY_TILE)
        return c->fixed[vid(v)];
    if (!L)
        L = al_pref(c, v);
    Value *f = c->fixed[vid(v)];
    if (f)
        return f->type->layout == L ? f : convert(c, v, f, L, ip);
    Value *m = memo_find(c, v, L, ip);
    if (m)
        return m;
    if (al_is_free(v->def))
        return materialize_free(c, v, L, ip);
    return NULL; /* an anchor not processed yet: cannot happen in program order */
}
