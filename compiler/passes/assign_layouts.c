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

#include "compiler/passes/axis_info.h"
#include "compiler/passes/passes.h"
#include "runtime/emu/mfma_ref.h"

typedef struct Memo Memo;
struct Memo {
    const Layout *lay;
    Value *v;
    Block *blk;
    Memo *next;
};

typedef struct Use {
    Op *op;
    int idx;
    struct Use *next;
} Use;

typedef struct BlockPair {
    Block *tir, *lir;
} BlockPair;

typedef struct Ctx {
    Arena *a;
    TypeTab *tt;
    LayoutTab *lt;
    const LirOptions *o;
    Diags *diags;
    AxisTab *ax;
    Func *src, *dst;
    int nw;
    int nvals;
    Value **fixed;
    Memo **memo;
    Use **uses;
    const Layout **pref;
    char *pref_state; /* 0 unknown, 1 busy, 2 done (strong), 3 done (weak) */
    int pref_depth;   /* pref_of calls on the stack */
    BlockPair *blocks;
    int nblocks, capblocks;
    Builder b;
    bool failed;
} Ctx;

typedef struct IP {
    Block *blk;
    Op *before; /* NULL: the end of blk */
} IP;

static int vid(const Value *v) { return (int)v->scratch; }

static void fail(Ctx *c, SrcPos pos, const char *msg)
{
    if (c->failed)
        return;
    c->failed = true;
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

static bool encloses(Block *outer, Block *inner)
{
    for (Block *b = inner; b; b = b->parent ? b->parent->parent : NULL)
        if (b == outer)
            return true;
    return false;
}

/* The demand point, or just before the outermost loop between it and the definition's block. */
static IP hoist(Ctx *c, IP ip, const Value *tirv)
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

static Op *emit_at(Ctx *c, IP ip, OpCode code, const Type *rt, Value **ops, int nops)
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

/* ---- layouts of anchors ---- */

static const Type *with_layout(Ctx *c, const Type *t, const Layout *l)
{
    if (t->kind != TY_TILE)
        return t;
    return ty_tile(c->tt, t->elem, t->rank, t->shape, l);
}

static void dot_layouts(Ctx *c, const Op *dot, const Layout **acc, const Layout **la, const Layout **lb);

/* A load whose tile becomes the B operand of a matrix-instruction dot (directly): it is stored to LDS
 * with k fastest, so each lane should hold k_width consecutive rows of its columns; then it writes a
 * run of k per column instead of single elements. Returns that k_width, or 1. */
static int b_operand_rows_of(Ctx *c, const Value *v, int depth)
{
    if (depth > 3)
        return 1;
    for (Use *u = c->uses[vid(v)]; u; u = u->next) {
        Op *op = u->op;
        if (op->code == OP_DOT && u->idx == 1) {
            const Layout *acc, *la, *lb;
            dot_layouts(c, op, &acc, &la, &lb);
            return acc->kind == LAY_MFMA ? lb->k_width : 1; /* sm_90 keeps B as loaded (ldmatrix .trans) */
        }
        /* through loop-carried values (a pipelined load reaches its dot in the next iteration) */
        const Value *next = NULL;
        if (op->code == OP_FOR && u->idx >= 3)
            next = &op_block(op, 0)->args[u->idx - 2];
        else if (op->code == OP_YIELD && op->parent->parent && op->parent->parent->code == OP_FOR)
            next = &op->parent->args[u->idx + 1];
        if (next) {
            int r = b_operand_rows_of(c, next, depth + 1);
            if (r > 1)
                return r;
        }
    }
    return 1;
}

static int b_operand_rows(Ctx *c, const Op *ld)
{
    return b_operand_rows_of(c, &ld->results[0], 0);
}

static const Layout *mem_layout(Ctx *c, const Op *op);

/* sm_90: a load whose tile only feeds a dot operand through the loop-carried values of software
 * pipelining is copied straight into shared memory (cp.async): its result, the values carrying it
 * and the loop's ring of stage buffers get a shared layout, and the dot reads it with ldmatrix. True
 * when every use of v leads, through yields and loop inputs whose loop results are unused, to an
 * operand (A or B; only B when only_b) of an mma.sync dot. */
static bool flows_to_mma_operand(Ctx *c, const Value *v, int depth, bool only_b)
{
    if (depth > 8 || !c->uses[vid(v)])
        return false;
    for (Use *u = c->uses[vid(v)]; u; u = u->next) {
        Op *op = u->op;
        const Value *next = NULL;
        if (op->code == OP_DOT && u->idx < 2) {
            if (!choose_dot(c->o, c->src, op).nv || (only_b && u->idx != 1))
                return false;
            continue;
        }
        if (op->code == OP_FOR && u->idx >= 3) {
            if (c->uses[vid(&op->results[u->idx - 3])])
                return false;
            next = &op_block(op, 0)->args[u->idx - 2];
        } else if (op->code == OP_YIELD && op->parent->parent && op->parent->parent->code == OP_FOR) {
            Op *f = op->parent->parent;
            if (c->uses[vid(&f->results[u->idx])])
                return false;
            next = &op->parent->args[u->idx + 1];
        } else {
            return false;
        }
        if (!flows_to_mma_operand(c, next, depth + 1, only_b))
            return false;
    }
    return true;
}

/* The shared layout of an asynchronously copied tile: its global order (row-major, or column-major
 * for a B operand loaded transposed, Kᵀ in attention), 16-byte chunks of the fastest dimension
 * XOR-swizzled by the slow index (lines narrower than 128 bytes sharing a phase), as lower_convert.c
 * reads it with ldmatrix. */
static const Layout *async_shared_layout(Ctx *c, const Op *op)
{
    const Type *t = op->results[0].type;
    int fast = mem_layout(c, op)->order[0];
    int64_t pitch = t->shape[fast] * 2, chunks = pitch / 16;
    int nch = (int)(chunks < 8 ? chunks : 8), pp = pitch >= 128 ? 1 : (int)(128 / pitch);
    return lay_shared(c->lt, 2, 8, pp, nch, 0, fast == 1 ? (int[]){1, 0} : (int[]){0, 1});
}

static bool async_load(Ctx *c, const Op *op)
{
    if (op->code != OP_LOAD || c->o->wave != 32 || !c->o->use_mfma || c->src->opts.num_stages < 2)
        return false;
    const Type *t = op->results[0].type;
    if (t->kind != TY_TILE || t->rank != 2 || (t->elem->sk != SK_F16 && t->elem->sk != SK_BF16))
        return false;
    if (op->nopnds == 3) { /* cp.async fills masked-off elements with zeros: `other` must be zero */
        const Op *o = op->operands[2]->def;
        if (!o || o->code != OP_CONST || o->at.value.f != 0.0)
            return false;
    }
    const Layout *l = mem_layout(c, op);
    if (l->kind != LAY_BLOCKED)
        return false;
    int fast = l->order[0];
    if (l->spt[fast] < 2 || t->shape[fast] * 2 < 32)
        return false; /* cp.async moves 4, 8 or 16 bytes along the fastest dimension */
    /* column-major tiles only as B: stored k-fastest, ldmatrix reads them untransposed */
    return flows_to_mma_operand(c, &op->results[0], 0, fast == 0);
}

static const Layout *mem_layout(Ctx *c, const Op *op)
{
    const Value *ptr = op->operands[0];
    const Type *t = ptr->type;
    const Value *mask = NULL;
    if (op->code == OP_LOAD && op->nopnds == 3)
        mask = op->operands[1];
    else if (op->code == OP_STORE && op->nopnds == 3)
        mask = op->operands[2];
    else if (op->code == OP_ATOMIC_RMW && op->nopnds == 3)
        mask = op->operands[2];
    else if (op->code == OP_ATOMIC_CAS && op->nopnds == 4)
        mask = op->operands[3];
    int dim;
    int vec = axis_vector_width(c->ax, ptr, mask, 128, &dim);
    if (op->code == OP_ATOMIC_RMW || op->code == OP_ATOMIC_CAS)
        vec = 1;
    /* each lane should get work: fewer elements per lane when the tile is small */
    int64_t numel = ty_numel(t), lanes = (int64_t)c->nw * c->o->wave;
    while (vec > 1 && numel / vec < lanes)
        vec /= 2;
    const Layout *l = lay_coalesced(c->lt, t->rank, t->shape, dim, vec, c->nw, c->o->wave);
    int rows = op->code == OP_LOAD && t->rank == 2 && dim == 1 ? b_operand_rows(c, op) : 1;
    /* as many of those rows as the tile gives every lane (a 64x64 f16 tile on 256 lanes: 2 rows of 8) */
    while (rows > 1 && ((int64_t)rows * l->tpw[0] * l->wpc[0] > t->shape[0] || numel / ((int64_t)rows * vec) < lanes))
        rows /= 2;
    if (rows > 1) {
        int spt[2] = {rows, l->spt[1]};
        l = lay_blocked(c->lt, 2, spt, l->tpw, l->wpc, l->order);
    }
    return l;
}

static void dot_layouts(Ctx *c, const Op *dot, const Layout **acc, const Layout **la, const Layout **lb)
{
    DotChoice d = choose_dot(c->o, c->src, dot);
    if (d.mfma && d.nv) {
        *acc = lay_mma(c->lt, d.instr, d.wpc);
        *la = lay_dot_op(c->lt, 0, *acc, d.k_width);
        *lb = lay_dot_op(c->lt, 1, *acc, d.k_width);
        return;
    }
    if (d.mfma) {
        /* transposed: a lane holds consecutive columns of the accumulator, so epilogues store (or
         * move through LDS) several elements at once */
        *acc = lay_mfma(c->lt, d.instr, d.im, d.in, d.ik, d.wpc, true);
        *la = lay_dot_op(c->lt, 0, *acc, d.k_width);
        *lb = lay_dot_op(c->lt, 1, *acc, d.k_width);
        return;
    }
    const Type *t = op_result((Op *)dot, 0)->type;
    *acc = lay_default(c->lt, 2, t->shape, c->nw, c->o->wave);
    *la = lay_dot_op(c->lt, 0, *acc, 1);
    *lb = lay_dot_op(c->lt, 1, *acc, 1);
}

/* ---- preferences ---- */

static const Layout *default_layout(Ctx *c, const Type *t)
{
    return lay_default(c->lt, t->rank, t->shape, c->nw, c->o->wave);
}

static const Layout *pref_of(Ctx *c, const Value *v, bool *strong);

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
            return mem_layout(c, op);
        case OP_DOT: {
            const Layout *acc, *la, *lb;
            dot_layouts(c, op, &acc, &la, &lb);
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
                const Layout *l = pref_of(c, y->operands[yi], strong);
                if (l && *strong)
                    return l;
            }
            const Layout *u = pref_from_uses(c, v);
            if (u)
                return u;
            int init = owner->code == OP_FOR ? 3 + carried : carried;
            if (carried >= 0 && init < owner->nopnds) {
                const Layout *l = pref_of(c, owner->operands[init], strong);
                if (l)
                    return l;
            }
        }
        *strong = false;
        return default_layout(c, t);
    }
    switch (op->code) {
    case OP_LOAD:
    case OP_ATOMIC_RMW:
    case OP_ATOMIC_CAS:
        if (async_load(c, op))
            return async_shared_layout(c, op);
        return mem_layout(c, op);
    case OP_DOT: {
        const Layout *acc, *la, *lb;
        dot_layouts(c, op, &acc, &la, &lb);
        return acc;
    }
    case OP_REDUCE:
    case OP_ARGREDUCE: {
        const Layout *in = pref_of(c, op->operands[0], strong);
        if (!in) { /* no opinion yet (a cycle through loop-carried values): the default's slice, weakly */
            *strong = false;
            return lay_slice(c->lt, default_layout(c, op->operands[0]->type), (int)op->at.axis);
        }
        *strong = true;
        return lay_slice(c->lt, in, (int)op->at.axis);
    }
    case OP_SCAN:
    case OP_RESHAPE:
        if (op->code == OP_SCAN) {
            const Layout *in = pref_of(c, op->operands[0], strong);
            *strong = true;
            return in;
        }
        return default_layout(c, t);
    case OP_FOR:
    case OP_WHILE: {
        Block *body = op_block(op, op->code == OP_FOR ? 0 : 1);
        int argi = op->code == OP_FOR ? v->index + 1 : v->index;
        return pref_of(c, &body->args[argi], strong);
    }
    case OP_IF: {
        for (int r = 0; r < 2; r++) {
            Op *y = op_block(op, r)->last;
            if (y && y->code == OP_YIELD) {
                const Layout *l = pref_of(c, y->operands[v->index], strong);
                if (l && *strong)
                    return l;
            }
        }
        *strong = false;
        return default_layout(c, t);
    }
    case OP_EXPAND_DIMS: {
        const Layout *in = pref_of(c, op->operands[0], strong);
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
        return pref_of(c, op->operands[0], strong);
    case OP_PERMUTE: {
        const Layout *in = pref_of(c, op->operands[0], strong);
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
                const Layout *l = pref_of(c, op->operands[i], &s);
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
    return default_layout(c, t);
}

static const Layout *pref_of(Ctx *c, const Value *v, bool *strong)
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

static const Layout *pref(Ctx *c, const Value *v)
{
    bool s;
    const Layout *l = pref_of(c, v, &s);
    return l ? l : default_layout(c, v->type);
}

/* ---- materialising values in layouts ---- */

static Value *get(Ctx *c, Value *v, const Layout *L, IP ip);

static Value *memo_find(Ctx *c, const Value *v, const Layout *L, IP ip)
{
    for (Memo *m = c->memo[vid(v)]; m; m = m->next)
        if (m->lay == L && encloses(m->blk, ip.blk))
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

static bool is_free(const Op *op)
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
    IP at = hoist(c, ip, tirv);
    Op *op = emit_at(c, at, OP_CONVERT_LAYOUT, with_layout(c, src->type, L), &src, 1);
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
    if (!op || !is_free(op) || --*budget < 0) {
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
        Value *x = get(c, v, l0, ip);
        return x ? convert(c, v, x, L, ip) : NULL;
    }
    IP at = hoist(c, ip, v);
    /* a permute whose layout cannot be permuted is computed in its operand's layout and converted */
    for (int i = 0; i < op->nopnds; i++)
        if (op->operands[i]->type->kind == TY_TILE && !operand_layout(c, op, i, L)) {
            const Layout *own = pref(c, v);
            if (own == L || !operand_layout(c, op, i, own))
                own = default_layout(c, v->type);
            Value *x = get(c, v, own, ip);
            return convert(c, v, x, L, ip);
        }
    Value **ops = ARENA_ARRAY(c->a, Value *, op->nopnds + 1);
    for (int i = 0; i < op->nopnds; i++) {
        Value *o = op->operands[i];
        ops[i] = o->type->kind == TY_TILE ? get(c, o, operand_layout(c, op, i, L), at) : c->fixed[vid(o)];
        if (!ops[i])
            return NULL;
    }
    Op *n = emit_at(c, at, op->code, with_layout(c, v->type, L), ops, op->nopnds);
    n->at = op->at;
    n->pos = op->pos;
    n->results[0].name = v->name;
    memo_add(c, v, L, op_result(n, 0), at.blk);
    return op_result(n, 0);
}

static Value *get(Ctx *c, Value *v, const Layout *L, IP ip)
{
    if (v->type->kind != TY_TILE)
        return c->fixed[vid(v)];
    if (!L)
        L = pref(c, v);
    Value *f = c->fixed[vid(v)];
    if (f)
        return f->type->layout == L ? f : convert(c, v, f, L, ip);
    Value *m = memo_find(c, v, L, ip);
    if (m)
        return m;
    if (is_free(v->def))
        return materialize_free(c, v, L, ip);
    return NULL; /* an anchor not processed yet: cannot happen in program order */
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
    Value *r = get(c, v, L, here(c));
    if (!r)
        fail(c, c->b.pos, "internal error: a value is used before its layout is known");
    return r;
}

/* The carried layouts of a loop or if: one per result, NULL for scalars. */
static const Layout **carried_layouts(Ctx *c, const Op *op)
{
    const Layout **ls = ARENA_ARRAY(c->a, const Layout *, op->nres + 1);
    for (int i = 0; i < op->nres; i++)
        ls[i] = op->results[i].type->kind == TY_TILE ? pref(c, &op->results[i]) : NULL;
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
                dot_layouts(c, u->op, &acc, &la, &lb);
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

/* Elements a lane holds consecutively along the last dimension in layout l (a run of register bits). */
static int lane_run(Ctx *c, const Layout *l, const Type *t)
{
    LinLayout ll;
    if (!lay_linear(l, t->rank, t->shape, c->o->wave, c->nw, &ll))
        return 0;
    int k = 0, last = t->rank - 1;
    while (k < ll.nreg && ll.reg[k][last] == (1 << k)) {
        bool only = true;
        for (int d = 0; d < last; d++)
            only &= ll.reg[k][d] == 0;
        if (!only)
            break;
        k++;
    }
    return 1 << k;
}

static bool block_has_async_load(Ctx *c, const Block *b);

/* Is op an asynchronous load, or one nested in its regions? */
static bool op_has_async_load(Ctx *c, const Op *op)
{
    if (async_load(c, op))
        return true;
    for (int r = 0; r < op->nregions; r++)
        if (block_has_async_load(c, op->regions[r]))
            return true;
    return false;
}

static bool block_has_async_load(Ctx *c, const Block *b)
{
    for (const Op *op = b->first; op; op = op->next)
        if (op_has_async_load(c, op))
            return true;
    return false;
}

/* Is a stage buffer (an asynchronously loaded tile) in use at op: loaded after it, or in a loop
 * around it? */
static bool async_live_at(Ctx *c, const Op *op)
{
    for (const Op *o = op; o;) {
        for (const Op *n = o->next; n; n = n->next)
            if (op_has_async_load(c, n))
                return true;
        const Op *owner = o->parent ? o->parent->parent : NULL;
        if (owner && (owner->code == OP_FOR || owner->code == OP_WHILE) && block_has_async_load(c, o->parent))
            return true;
        o = owner;
    }
    return false;
}

/* A store of a value computed in an accumulator layout (directly or through elementwise ops) writes
 * from that layout when the pointers allow a lane's run of consecutive columns as one access:
 * no trip through LDS, no LDS to reserve. */
static const Layout *store_in_place(Ctx *c, const Op *st)
{
    bool strong;
    const Layout *v = pref_of(c, st->operands[1], &strong);
    if (!v || !strong || (v->kind != LAY_MFMA && v->kind != LAY_MMA))
        return NULL;
    const Type *pt = st->operands[0]->type;
    int dim;
    int vec = axis_vector_width(c->ax, st->operands[0], st->nopnds == 3 ? st->operands[2] : NULL, 128, &dim);
    int run = lane_run(c, v, pt);
    int bytes = ty_bits(ty_elem(pt)->pointee) / 8;
    if (dim != pt->rank - 1 || run < 2 || vec < run || run * bytes > 16)
        return NULL;
    /* NVIDIA's accumulator gives a lane 2 consecutive columns (4 or 8 bytes) per row: for a wgmma
     * tile (64 to 128 accumulators a thread), when the pointers allow 16 bytes, the tile goes through
     * shared memory to 16-byte stores instead (a quarter of the store instructions, whole 32-byte
     * sectors: +8% for a 4096^3 bf16 matmul on the H200), if it fits there alone and no stage buffer
     * is live (the lowering reuses their region once the last is dead). mma.sync tiles (attention's)
     * store in place: there the transfer's registers made ptxas spill. */
    if (v->kind == LAY_MMA && nv_is_wgmma(v->instr) && run * bytes < 16 && vec * bytes >= 16 &&
        ty_numel(pt) * bytes <= 64 * 1024 && !async_live_at(c, st))
        return NULL;
    return v;
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
        const Layout *L = op->operands[0]->type->kind == TY_TILE ? mem_layout(c, op) : NULL;
        if (L && op->code == OP_STORE) {
            const Layout *v = store_in_place(c, op);
            if (v)
                L = v;
        }
        for (int i = 0; i < op->nopnds; i++)
            ops[i] = need(c, op->operands[i], L);
        for (int i = 0; i < op->nres; i++)
            rt[i] = L ? with_layout(c, op->results[i].type, L) : op->results[i].type;
        if (L && async_load(c, op)) {
            /* into shared memory; `other` (zero) is what cp.async fills masked-off elements with */
            rt[0] = with_layout(c, op->results[0].type, async_shared_layout(c, op));
            nops = op->nopnds == 3 ? 2 : op->nopnds;
        }
        break;
    }
    case OP_DOT: {
        const Layout *acc, *la, *lb;
        dot_layouts(c, op, &acc, &la, &lb);
        ops[0] = need(c, op->operands[0], la);
        ops[1] = need(c, op->operands[1], lb);
        ops[2] = need(c, op->operands[2], acc);
        rt[0] = with_layout(c, op->results[0].type, acc);
        break;
    }
    case OP_REDUCE:
    case OP_ARGREDUCE:
    case OP_SCAN: {
        const Layout *in = pref(c, op->operands[0]);
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
        rt[0] = with_layout(c, op->results[0].type, default_layout(c, op->results[0].type));
        break;
    }
    default:
        /* assert, print and anything with tile operands: operands in their preferred layouts */
        for (int i = 0; i < op->nopnds; i++)
            ops[i] = need(c, op->operands[i], NULL);
        for (int i = 0; i < op->nres; i++)
            rt[i] = op->results[i].type->kind == TY_TILE
                        ? with_layout(c, op->results[i].type, pref(c, &op->results[i]))
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
        if (is_free(op) && op->nres == 1 && op->results[0].type->kind == TY_TILE)
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

static void count_values(Block *b, int *n)
{
    *n += b->nargs;
    for (Op *op = b->first; op; op = op->next) {
        *n += op->nres;
        for (int r = 0; r < op->nregions; r++)
            count_values(op->regions[r], n);
    }
}

Func *assign_layouts(Arena *a, Func *tir, Module *dst, LayoutTab *lt, const LirOptions *o, Diags *diags)
{
    Ctx c;
    memset(&c, 0, sizeof c);
    c.a = a;
    c.tt = tir->module->types;
    c.lt = lt;
    c.o = o;
    c.diags = diags;
    c.src = tir;
    c.nw = tir->opts.num_warps;
    c.ax = compute_axis_info(a, tir); /* numbers the values (Value.scratch) */
    count_values(tir->body, &c.nvals);
    c.fixed = ARENA_ARRAY(a, Value *, c.nvals + 1);
    c.memo = ARENA_ARRAY(a, Memo *, c.nvals + 1);
    c.uses = ARENA_ARRAY(a, Use *, c.nvals + 1);
    c.pref = ARENA_ARRAY(a, const Layout *, c.nvals + 1);
    c.pref_state = ARENA_ARRAY(a, char, c.nvals + 1);
    collect_uses(&c, tir->body);
    lay_attach_printer(c.tt);
    Func *f = tir_func_new(dst, FUNC_KERNEL, tir->name);
    f->opts = tir->opts;
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
