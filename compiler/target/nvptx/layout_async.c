/* NVIDIA's asynchronous copies (sm_90): which loads go straight into shared memory.
 *
 * With num_stages >= 2 and mma.sync or wgmma, a 16-bit 2-D load whose tile only reaches a dot operand
 * (through the loop-carried values of software pipelining) becomes a cp.async copy into a stage
 * buffer: its result gets a swizzled shared layout that ldmatrix and the wgmma descriptors read, and
 * `other` must be zero (what cp.async writes for masked-off elements). Whether a stage buffer is live
 * at a store decides whether the store may borrow shared memory (layout_anchors.c). */
#include "compiler/passes/assign_layouts.h"

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
            int kw;
            if (dot_layout_of(c->lt, c->o, c->src, op, &kw)->kind != LAY_MMA || (only_b && u->idx != 1))
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
const Layout *al_async_shared_layout(Ctx *c, const Op *op)
{
    const Type *t = op->results[0].type;
    int fast = al_mem_layout(c, op)->order[0];
    int64_t pitch = t->shape[fast] * 2, chunks = pitch / 16;
    int nch = (int)(chunks < 8 ? chunks : 8), pp = pitch >= 128 ? 1 : (int)(128 / pitch);
    return lay_shared(c->lt, 2, 8, pp, nch, 0, fast == 1 ? (int[]){1, 0} : (int[]){0, 1});
}

bool al_async_load(Ctx *c, const Op *op)
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
    const Layout *l = al_mem_layout(c, op);
    if (l->kind != LAY_BLOCKED)
        return false;
    int fast = l->order[0];
    if (l->spt[fast] < 2 || t->shape[fast] * 2 < 32)
        return false; /* cp.async moves 4, 8 or 16 bytes along the fastest dimension */
    /* column-major tiles only as B: stored k-fastest, ldmatrix reads them untransposed */
    return flows_to_mma_operand(c, &op->results[0], 0, fast == 0);
}

static bool block_has_async_load(Ctx *c, const Block *b);

/* Is op an asynchronous load, or one nested in its regions? */
static bool op_has_async_load(Ctx *c, const Op *op)
{
    if (al_async_load(c, op))
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
bool al_async_live_at(Ctx *c, const Op *op)
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
