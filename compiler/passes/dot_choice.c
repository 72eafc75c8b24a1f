/* choose_dots: which matrix instruction each dot gets, and how the waves split its tile, as plan
 * attributes on the dot of TIR (`layout = #mfma<...>`: its accumulator's layout; `k_width`: its
 * operands' dot_op layouts), which assign_layouts reads (dot_layout_of). choose_dot is the choice for
 * one dot, exposed for tests and the report.
 *
 * AMD: the MFMA of the element type by matrix_instr_nonkdim (16 or 32), its k_width with kpack, the
 * waves split for the least operand traffic. NVIDIA sm_90: wgmma (m64nNk16, 64 rows per warpgroup,
 * warps stacked along M) where B comes through a cp.async stage buffer and the shape fits its
 * descriptors, else mma.sync m16n8k16 (everywhere with RK_NO_WGMMA=1: A/B comparisons on the GPU).
 * Chained dots (attention) stack their waves along M on both. */
#include <stdlib.h>
#include <string.h>

#include "compiler/passes/passes.h"
#include "isa/mfma.h"

/* The MFMA for a dot's element type on this target, by matrix_instr_nonkdim. */
static bool pick_mfma(const LirOptions *o, ScalarKind ek, OpKind prec, int nonkdim, int *instr)
{
    if (!o->use_mfma)
        return false;
    const Target *t = o->target;
    bool big = nonkdim == 32;
    switch (ek) {
    case SK_F16:
        *instr = big ? MFMA_F32_32X32X8_F16 : MFMA_F32_16X16X16_F16;
        return true;
    case SK_BF16:
        *instr = big ? MFMA_F32_32X32X8_BF16 : MFMA_F32_16X16X16_BF16;
        return true;
    case SK_F32:
        if (prec == KIND_TF32 && target_has_mfma(t, big ? MFMA_F32_32X32X4_XF32 : MFMA_F32_16X16X8_XF32))
            *instr = big ? MFMA_F32_32X32X4_XF32 : MFMA_F32_16X16X8_XF32;
        else
            *instr = big ? MFMA_F32_32X32X2_F32 : MFMA_F32_16X16X4_F32;
        return true;
    case SK_I8:
        if (target_has_mfma(t, big ? MFMA_I32_32X32X16_I8 : MFMA_I32_16X16X32_I8))
            *instr = big ? MFMA_I32_32X32X16_I8 : MFMA_I32_16X16X32_I8;
        else /* CDNA2's */
            *instr = big ? MFMA_I32_32X32X8_I8 : MFMA_I32_16X16X16_I8;
        return true;
    case SK_F64: /* one shape: 16x16x4 (nonkdim 32 too) */
        *instr = MFMA_F64_16X16X4_F64;
        return target_has_mfma(t, *instr);
    default:
        return false;
    }
}

/* Waves over the tile: each wave reads M/wm rows of A and N/wn columns of B per k step; the split with
 * the least of that traffic that still gives every wave whole instruction tiles (im x in). */
static void split_waves(int nw, int64_t M, int64_t N, int im, int in, int *wpc)
{
    int best = -1;
    int64_t best_cost = 0;
    for (int wm = 1; wm <= nw; wm *= 2) {
        int wn = nw / wm;
        if (M / wm < im || N / wn < in)
            continue;
        int64_t cost = M / wm + N / wn;
        if (best < 0 || cost < best_cost)
            best = wm, best_cost = cost;
    }
    if (best < 0) { /* more waves than tiles: replicate along N */
        int wm = (int)(M / im < nw ? M / im : nw);
        best = wm > 0 ? wm : 1;
    }
    wpc[0] = best;
    wpc[1] = nw / best;
}

static bool chained_dot(const Op *dot);

/* A line of a 16-bit tile in shared memory that wgmma reads through a descriptor: 32 or 64 bytes (the
 * 32- and 64-byte swizzles), or 128-byte columns (the 128-byte swizzle). */
static bool wgmma_line(int64_t elems)
{
    int64_t bytes = elems * 2;
    return bytes == 32 || bytes == 64 || (bytes >= 128 && bytes % 128 == 0);
}

/* Is v a tile loaded from global memory in this iteration or carried to it by software pipelining (the
 * loads the cp.async rings hold in shared memory)? */
static bool loaded_tile(const Value *v)
{
    for (int depth = 0; depth < 16; depth++) {
        if (v->def)
            return v->def->code == OP_LOAD;
        const Block *b = v->owner;
        const Op *loop = b ? b->parent : NULL;
        if (!loop || loop->code != OP_FOR || v->index < 1 || !b->last || b->last->code != OP_YIELD ||
            v->index - 1 >= b->last->nopnds)
            return false;
        const Value *next = b->last->operands[v->index - 1];
        if (!next->def && next->owner != b)
            return false;
        v = next;
    }
    return false;
}

/* sm_90a's wgmma: 64 rows per warpgroup of four warps (warps stacked along M), B read from the
 * shared-memory stage buffers of software pipelining (num_stages >= 2), A from them too or from
 * registers (attention's P: chained dots stack their warps along M anyway), lines the descriptors'
 * swizzles describe. */
static bool wgmma_fits(const Func *f, const Op *dot, int64_t M, int64_t N, int64_t K)
{
    int nw = f->opts.num_warps;
    if (nw % 4 || M % (16 * nw) || K % 16 || N % 16 || f->opts.num_stages < 2)
        return false;
    if (!wgmma_line(K) || !wgmma_line(N) || (N > 256 && N % 256))
        return false;
    return loaded_tile(dot->operands[1]);
}

/* sm_90: wgmma where it fits, else mma.sync m16n8k16, for 16-bit floats with f32 accumulators. */
static DotChoice choose_mma(const Func *f, const Op *dot)
{
    DotChoice d;
    memset(&d, 0, sizeof d);
    const Type *ta = dot->operands[0]->type, *tb = dot->operands[1]->type, *tc = dot->operands[2]->type;
    int64_t M = ta->shape[0], K = ta->shape[1], N = tb->shape[1];
    ScalarKind ek = ta->elem->sk;
    if ((ek != SK_F16 && ek != SK_BF16) || ty_elem(tc)->sk != SK_F32 || M < 16 || N < 8 || K < 16)
        return d;
    d.mfma = true;
    d.nv = true;
    d.instr = ek == SK_F16 ? NV_MMA_F16 : NV_MMA_BF16;
    d.im = 16, d.in = 8, d.ik = 16;
    d.k_width = 2;
    int nw = f->opts.num_warps;
    if (!getenv("RK_NO_WGMMA") && wgmma_fits(f, dot, M, N, K)) {
        d.instr = ek == SK_F16 ? NV_WGMMA_F16 : NV_WGMMA_BF16;
        d.wpc[0] = nw;
        d.wpc[1] = 1;
        return d;
    }
    if (M / 16 >= nw && chained_dot(dot)) { /* the head's C fragments are the tail's A fragments */
        d.wpc[0] = nw;
        d.wpc[1] = 1;
    } else {
        split_waves(nw, M, N, 16, 8, d.wpc);
    }
    return d;
}

/* Does v depend on the result of `dot` (any dot when NULL) through ops of block blk? A bounded walk:
 * `budget` caps the ops visited, so a large DAG answers "no" instead of taking exponential time. */
static bool depends_on_dot(const Value *v, const Op *dot, const Block *blk, int *budget)
{
    const Op *d = v->def;
    if (!d || d->parent != blk || --*budget < 0)
        return false;
    if (d->code == OP_DOT && (!dot || d == dot))
        return true;
    for (int i = 0; i < d->nopnds; i++)
        if (d->operands[i]->type->kind == TY_TILE && depends_on_dot(d->operands[i], dot, blk, budget))
            return true;
    return false;
}

/* Chained dots (attention: the result of one dot, through elementwise ops, is the A operand of the
 * next): the head's rows are reduced (softmax) and become the tail's A operand, so both stack their
 * waves along M. Then a row never crosses waves (no LDS in the reductions) and the head's accumulator
 * holds exactly the tail's A fragments (mfma transposed vs dot_op k_width 4: the same lanes, waves and
 * elements), so the conversion between them renames registers (an f64 accumulator's elements lie 4
 * apart: it moves through LDS). Triton's AMD backend does the same (warpsPerTile, isChainDotHead /
 * isChainDotTail). */
static bool chained_dot(const Op *dot)
{
    int budget = 256;
    if (depends_on_dot(dot->operands[0], NULL, dot->parent, &budget))
        return true; /* a tail */
    for (const Op *o = dot->next; o; o = o->next) {
        budget = 256;
        if (o->code == OP_DOT && depends_on_dot(o->operands[0], dot, dot->parent, &budget))
            return true; /* a head */
    }
    return false;
}

DotChoice choose_dot(const LirOptions *o, const Func *f, const Op *dot)
{
    if (o->wave == 32 && o->use_mfma)
        return choose_mma(f, dot);
    DotChoice d;
    memset(&d, 0, sizeof d);
    const Type *ta = dot->operands[0]->type, *tb = dot->operands[1]->type;
    int64_t M = ta->shape[0], K = ta->shape[1], N = tb->shape[1];
    int nonkdim = f->opts.matrix_instr_nonkdim;
    int instr;
    if (!pick_mfma(o, ta->elem->sk, (OpKind)dot->at.kind, nonkdim, &instr))
        return d;
    const MfmaInfo *info = isa_mfma_info((MfmaOp)instr);
    if (M < info->m || N < info->n || K < info->k) {
        if (nonkdim == 32 && pick_mfma(o, ta->elem->sk, (OpKind)dot->at.kind, 16, &instr))
            info = isa_mfma_info((MfmaOp)instr);
        if (M < info->m || N < info->n || K < info->k)
            return d;
    }
    d.mfma = true;
    d.instr = instr;
    d.im = info->m, d.in = info->n, d.ik = info->k;
    int kpl = info->k * info->m / 64;
    d.k_width = kpl * (f->opts.kpack > 1 ? f->opts.kpack : 1);
    if (d.k_width > K / (64 / info->m))
        d.k_width = kpl;
    int nw = f->opts.num_warps;
    if (M / info->m >= nw && chained_dot(dot)) {
        d.wpc[0] = nw;
        d.wpc[1] = 1;
    } else {
        split_waves(nw, M, N, info->m, info->n, d.wpc);
    }
    return d;
}


/* ---- the pass ---- */

/* The accumulator layout choose_dot's choice gives a dot, and its operands' k_width (1 with the FMA
 * fallback's blocked accumulator). */
static const Layout *chosen_layout(LayoutTab *lt, const LirOptions *o, const Func *f, const Op *dot, int *k_width)
{
    DotChoice d = choose_dot(o, f, dot);
    *k_width = d.mfma ? d.k_width : 1;
    if (d.mfma && d.nv)
        return lay_mma(lt, d.instr, d.wpc);
    if (d.mfma) /* transposed: a lane holds consecutive columns of the accumulator (of 32-bit
                 * results; f64's lie 4 apart), so epilogues store (or move through LDS) several
                 * elements at once */
        return lay_mfma(lt, d.instr, d.im, d.in, d.ik, d.wpc, true);
    const Type *t = dot->results[0].type;
    return lay_default(lt, 2, t->shape, f->opts.num_warps, o->wave);
}

const Layout *dot_layout_of(LayoutTab *lt, const LirOptions *o, const Func *f, const Op *dot, int *k_width)
{
    const OpPlan *pl = dot->plan;
    if (pl && (pl->set & (1u << PK_LAYOUT)) && (pl->set & (1u << PK_K_WIDTH))) {
        *k_width = (int)pl->v[PK_K_WIDTH];
        return pl->layout;
    }
    return chosen_layout(lt, o, f, dot, k_width);
}

static void choose_block(Arena *a, LayoutTab *lt, const LirOptions *o, const Func *f, Block *b)
{
    for (Op *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++)
            choose_block(a, lt, o, f, op->regions[r]);
        if (op->code != OP_DOT)
            continue;
        int kw;
        const Layout *l = chosen_layout(lt, o, f, op, &kw);
        if (!op->plan)
            op->plan = ARENA_NEW(a, OpPlan);
        op->plan->set |= 1u << PK_LAYOUT | 1u << PK_K_WIDTH;
        op->plan->v[PK_K_WIDTH] = kw;
        op->plan->layout = l;
    }
}

void choose_dots(Arena *a, Func *f, LayoutTab *lt, const LirOptions *o)
{
    lay_attach_printer(f->module->types);
    choose_block(a, lt, o, f, f->body);
}
