/* The linear form of each distributed layout on a given shape (see layout.h).
 *
 * Each construction lists bases dimension by dimension, keeping a running coverage per dimension: a
 * basis whose value along its dimension reaches the shape's extent is zero — replication for lanes
 * and waves, and simply dropped for registers (a register holding a duplicate is useless). Because
 * every construction treats dimensions independently, a layout on a shape with a dimension of 1 is
 * exactly the layout with that dimension removed, which is what slice, expand_dims and broadcast rely
 * on. */
#include <string.h>

#include "compiler/layout/layout.h"
#include "isa/mfma.h"

typedef struct Builder {
    LinLayout *ll;
    int64_t cov[LAY_MAX_RANK];
    bool ok;
} Builder;

static int ilog2i(int64_t v)
{
    int r = 0;
    while ((1ll << r) < v)
        r++;
    return r;
}

static bool pow2(int64_t v) { return v > 0 && !(v & (v - 1)); }

/* A basis of value v along d (v = 0 or d < 0: the zero basis). */
static void put(int32_t *basis, int rank, int d, int64_t v)
{
    for (int i = 0; i < rank; i++)
        basis[i] = 0;
    if (d >= 0)
        basis[d] = (int32_t)v;
}

static void add_reg(Builder *b, int d, int64_t v)
{
    LinLayout *ll = b->ll;
    if (d < 0 || v >= ll->shape[d])
        return; /* a duplicate register: dropped */
    if (ll->nreg == LAY_MAX_REG_BITS) {
        b->ok = false;
        return;
    }
    put(ll->reg[ll->nreg++], ll->rank, d, v);
}

static void add_lane(Builder *b, int d, int64_t v)
{
    LinLayout *ll = b->ll;
    if (ll->nlane == LAY_MAX_LANE_BITS) {
        b->ok = false;
        return;
    }
    put(ll->lane[ll->nlane++], ll->rank, d >= 0 && v < ll->shape[d] ? d : -1, v);
}

static void add_warp(Builder *b, int d, int64_t v)
{
    LinLayout *ll = b->ll;
    if (ll->nwarp == LAY_MAX_WARP_BITS) {
        b->ok = false;
        return;
    }
    put(ll->warp[ll->nwarp++], ll->rank, d >= 0 && v < ll->shape[d] ? d : -1, v);
}

/* Registers covering what lanes and waves left, dims in the given order. */
static void add_repeats(Builder *b, const int *order, int n)
{
    for (int i = 0; i < n; i++) {
        int d = order[i];
        while (b->cov[d] < b->ll->shape[d] && b->ok) {
            add_reg(b, d, b->cov[d]);
            b->cov[d] *= 2;
        }
    }
}

static bool blocked_linear(const Layout *l, Builder *b, int wave, int num_warps)
{
    int rank = l->rank;
    int64_t tp = 1, wp = 1;
    for (int i = 0; i < rank; i++) {
        if (!pow2(l->spt[i]) || !pow2(l->tpw[i]) || !pow2(l->wpc[i]))
            return false;
        tp *= l->tpw[i];
        wp *= l->wpc[i];
    }
    if (tp != wave || wp != num_warps)
        return false;
    for (int i = 0; i < rank; i++) {
        int d = l->order[i];
        for (int k = 0; k < ilog2i(l->spt[d]); k++, b->cov[d] *= 2)
            add_reg(b, d, b->cov[d]);
    }
    for (int i = 0; i < rank; i++) {
        int d = l->order[i];
        for (int k = 0; k < ilog2i(l->tpw[d]); k++, b->cov[d] *= 2)
            add_lane(b, d, b->cov[d]);
    }
    for (int i = 0; i < rank; i++) {
        int d = l->order[i];
        for (int k = 0; k < ilog2i(l->wpc[d]); k++, b->cov[d] *= 2)
            add_warp(b, d, b->cov[d]);
    }
    add_repeats(b, l->order, rank);
    return b->ok;
}

/* An accumulator's waves: first along N, then along M, each stepping by what is covered so far. */
static void acc_waves(Builder *b, const Layout *l)
{
    for (int d = 1; d >= 0; d--)
        for (int k = 0; k < ilog2i(l->wpc[d]); k++, b->cov[d] *= 2)
            add_warp(b, d, b->cov[d]);
}

/* The accumulator of one MFMA (AMD CDNA3 ISA, matrix instruction register layouts; the tables in
 * tests/data/mfma). Lane l holds column l % N; its 64/N lane groups split the rows, G consecutive rows
 * per group of G elements: element e of lane l is row (e/G)*G*(64/N) + G*(l/N) + e%G. 32-bit results
 * have G = 4 (v_mfma_f32_16x16x16_bf16: register r of lane l is row 4*(l/16) + r); the f64 result has
 * G = 1, an element in two registers (v_mfma_f64_16x16x4_f64: C[i][j] in registers 2*(i/4), 2*(i/4)+1
 * of lane 16*(i%4) + j, so element e is row 4e + l/16). Transposed swaps rows and columns. */
static bool mfma_linear(const Layout *l, Builder *b, int wave, int num_warps)
{
    const MfmaInfo *info = isa_mfma_info((MfmaOp)l->instr);
    if (!info || wave != 64 || l->wpc[0] * l->wpc[1] != num_warps)
        return false;
    int elems = isa_mfma_acc_elems(info), group = info->acc == ISA_F64 ? 1 : 4;
    if (elems != l->im * l->in / wave || elems < group)
        return false;
    int row = l->transposed ? 1 : 0, col = 1 - row;
    int nbits = ilog2i(l->in); /* lanes along the columns */
    for (int k = 0; k < ilog2i(group); k++)
        add_reg(b, row, (int64_t)1 << k);
    for (int k = 0; k < ilog2i(elems / group); k++)
        add_reg(b, row, (int64_t)group * (64 / l->in) << k);
    for (int k = 0; k < nbits; k++)
        add_lane(b, col, (int64_t)1 << k);
    for (int k = 0; k < 6 - nbits; k++)
        add_lane(b, row, (int64_t)group << k);
    b->cov[0] = l->im;
    b->cov[1] = l->in;
    acc_waves(b, l);
    int order[2] = {1, 0};
    add_repeats(b, order, 2);
    return b->ok;
}

/* A dot operand's share of its parent's waves, first along N, then along M: a wave bit along the
 * operand's own dimension (mn: 0 for A's M, 1 for B's N) steps it; one along the other dimension
 * replicates it (a wave basis of 0). */
static void operand_waves(Builder *b, const Layout *p, int mn)
{
    for (int d = 1; d >= 0; d--)
        for (int k = 0; k < ilog2i(p->wpc[d]); k++) {
            if (mn == d) {
                add_warp(b, d, b->cov[d]);
                b->cov[d] *= 2;
            } else {
                add_warp(b, -1, 0);
            }
        }
}

/* A dot operand for an MFMA parent: a lane holds k_width consecutive k of one row of A (column of B);
 * the lane groups above the M (N) lanes step along k by k_width. With k_width = kpl (the k elements per
 * lane of one instruction) this is exactly the instruction's operand layout; larger k_width packs the
 * k slices of k_width/kpl consecutive instructions together, which changes which k each instruction
 * sums but not the total. Waves along the other dimension replicate the operand. */
static bool dot_mfma_linear(const Layout *l, Builder *b, int wave, int num_warps)
{
    const Layout *p = l->parent;
    if (wave != 64 || p->wpc[0] * p->wpc[1] != num_warps)
        return false;
    int mn = l->op_idx == 0 ? 0 : 1, kd = 1 - mn;
    int inst_mn = l->op_idx == 0 ? p->im : p->in;
    int kpl = p->ik * inst_mn / 64;
    if (kpl < 1 || l->k_width < kpl || l->k_width % kpl)
        return false;
    int mbits = ilog2i(inst_mn);
    for (int k = 0; k < ilog2i(l->k_width); k++)
        add_reg(b, kd, (int64_t)1 << k);
    for (int k = 0; k < mbits; k++)
        add_lane(b, mn, (int64_t)1 << k);
    for (int k = 0; k < 6 - mbits; k++)
        add_lane(b, kd, (int64_t)l->k_width << k);
    b->cov[mn] = inst_mn;
    b->cov[kd] = (int64_t)l->k_width << (6 - mbits);
    operand_waves(b, p, mn);
    int order[2] = {mn, kd};
    add_repeats(b, order, 2);
    return b->ok;
}

/* The accumulator of mma.sync m16n8k16 (PTX ISA, "Matrix Fragments for mma.m16n8k16"): register r of
 * lane l holds row l/4 + 8*(r/2) and column 2*(l%4) + r%2 of the 16x8 tile. Waves step along N first,
 * then M; further tiles are registers, N first. */
static bool mma_linear(const Layout *l, Builder *b, int wave, int num_warps)
{
    if (wave != 32 || l->wpc[0] * l->wpc[1] != num_warps)
        return false;
    add_reg(b, 1, 1);
    add_reg(b, 0, 8);
    add_lane(b, 1, 2);
    add_lane(b, 1, 4);
    add_lane(b, 0, 1);
    add_lane(b, 0, 2);
    add_lane(b, 0, 4);
    b->cov[0] = 16;
    b->cov[1] = 8;
    acc_waves(b, l);
    int order[2] = {1, 0};
    add_repeats(b, order, 2);
    return b->ok;
}

/* A dot operand of mma.sync m16n8k16 (16-bit elements, k_width 2: two k per 32-bit register).
 * A (16x16): register r of lane l holds row l/4 + 8*(r/2 % 2), k 2*(l%4) + r%2 + 8*(r/4).
 * B (16x8):  register r of lane l holds column l/4, k 2*(l%4) + r%2 + 8*(r/2).
 * The instruction's registers are the lowest register bits, in the instruction's operand order; the
 * parent's waves along the other dimension replicate the operand; further tiles are registers, k
 * first (the order the dot consumes them in). */
static bool dot_mma_linear(const Layout *l, Builder *b, int wave, int num_warps)
{
    const Layout *p = l->parent;
    if (wave != 32 || p->wpc[0] * p->wpc[1] != num_warps || l->k_width != 2)
        return false;
    int mn = l->op_idx == 0 ? 0 : 1, kd = 1 - mn;
    add_reg(b, kd, 1);
    if (mn == 0)
        add_reg(b, 0, 8);
    add_reg(b, kd, 8);
    add_lane(b, kd, 2);
    add_lane(b, kd, 4);
    add_lane(b, mn, 1);
    add_lane(b, mn, 2);
    add_lane(b, mn, 4);
    b->cov[kd] = 16;
    b->cov[mn] = mn == 0 ? 16 : 8;
    operand_waves(b, p, mn);
    int order[2] = {kd, mn};
    add_repeats(b, order, 2);
    return b->ok;
}

/* A dot operand for the FMA fallback: the parent's rows (A) or columns (B), with all of K in
 * registers, so that each lane computes its accumulator elements alone. */
static bool dot_blocked_linear(const Layout *l, Builder *b, int wave, int num_warps)
{
    LinLayout pl;
    int mn = l->op_idx == 0 ? 0 : 1, kd = 1 - mn;
    int64_t pshape[2];
    pshape[mn] = b->ll->shape[mn];
    pshape[kd] = 1;
    if (!lay_linear(l->parent, 2, pshape, wave, num_warps, &pl))
        return false;
    LinLayout *ll = b->ll;
    for (int k = 0; (1ll << k) < ll->shape[kd]; k++)
        add_reg(b, kd, (int64_t)1 << k);
    for (int i = 0; i < pl.nreg && b->ok; i++)
        add_reg(b, mn, pl.reg[i][mn]);
    for (int i = 0; i < pl.nlane; i++)
        add_lane(b, pl.lane[i][mn] ? mn : -1, pl.lane[i][mn]);
    for (int i = 0; i < pl.nwarp; i++)
        add_warp(b, pl.warp[i][mn] ? mn : -1, pl.warp[i][mn]);
    return b->ok;
}

static bool slice_linear(const Layout *l, Builder *b, int wave, int num_warps)
{
    LinLayout *ll = b->ll;
    int64_t pshape[LAY_MAX_RANK];
    for (int i = 0, k = 0; i <= ll->rank; i++)
        pshape[i] = i == l->dim ? 1 : ll->shape[k++];
    LinLayout pl;
    if (!lay_linear(l->parent, ll->rank + 1, pshape, wave, num_warps, &pl))
        return false;
    int32_t tmp[LAY_MAX_RANK];
#define DROP(src)                                                                                                  \
    do {                                                                                                           \
        for (int i = 0, k = 0; i <= ll->rank; i++)                                                                 \
            if (i != l->dim)                                                                                       \
                tmp[k++] = (src)[i];                                                                               \
    } while (0)
    for (int r = 0; r < pl.nreg; r++) {
        DROP(pl.reg[r]);
        bool zero = true;
        for (int i = 0; i < ll->rank; i++)
            zero &= tmp[i] == 0;
        if (!zero)
            memcpy(ll->reg[ll->nreg++], tmp, sizeof tmp);
    }
    for (int r = 0; r < pl.nlane; r++) {
        DROP(pl.lane[r]);
        memcpy(ll->lane[ll->nlane++], tmp, sizeof tmp);
    }
    for (int r = 0; r < pl.nwarp; r++) {
        DROP(pl.warp[r]);
        memcpy(ll->warp[ll->nwarp++], tmp, sizeof tmp);
    }
#undef DROP
    return true;
}

bool lay_linear(const Layout *l, int rank, const int64_t *shape, int wave, int num_warps, LinLayout *out)
{
    memset(out, 0, sizeof *out);
    if (!l || l->kind == LAY_SHARED || rank != l->rank || rank < 1 || rank > LAY_MAX_RANK)
        return false;
    out->rank = rank;
    for (int i = 0; i < rank; i++) {
        if (!pow2(shape[i]))
            return false;
        out->shape[i] = shape[i];
    }
    Builder b = {out, {1, 1, 1, 1}, true};
    bool ok;
    switch (l->kind) {
    case LAY_BLOCKED:
        ok = blocked_linear(l, &b, wave, num_warps);
        break;
    case LAY_MFMA:
        ok = rank == 2 && mfma_linear(l, &b, wave, num_warps);
        break;
    case LAY_MMA:
        ok = rank == 2 && mma_linear(l, &b, wave, num_warps);
        break;
    case LAY_DOT_OP:
        ok = rank == 2 && (l->parent->kind == LAY_MFMA  ? dot_mfma_linear(l, &b, wave, num_warps)
                           : l->parent->kind == LAY_MMA ? dot_mma_linear(l, &b, wave, num_warps)
                                                        : dot_blocked_linear(l, &b, wave, num_warps));
        break;
    case LAY_SLICE:
        ok = slice_linear(l, &b, wave, num_warps);
        break;
    default:
        ok = false;
        break;
    }
    /* Lanes and waves must be fully described, even when they replicate. */
    if (ok && (out->nlane != ilog2i(wave) || out->nwarp != ilog2i(num_warps)))
        ok = false;
    return ok;
}

void lin_reg_coords(const LinLayout *ll, int r, int64_t *coords)
{
    for (int i = 0; i < ll->rank; i++)
        coords[i] = 0;
    for (int b = 0; b < ll->nreg; b++)
        if (r >> b & 1)
            for (int i = 0; i < ll->rank; i++)
                coords[i] ^= ll->reg[b][i];
}

int lin_reg_of(const LinLayout *ll, const int64_t *c)
{
    int r = 0;
    for (int b = 0; b < ll->nreg; b++)
        for (int d = 0; d < ll->rank; d++)
            if (ll->reg[b][d] && (c[d] & ll->reg[b][d]))
                r |= 1 << b;
    int64_t back[LAY_MAX_RANK];
    lin_reg_coords(ll, r, back);
    for (int d = 0; d < ll->rank; d++)
        if (back[d] != c[d])
            return -1;
    return r;
}

bool lin_renames(const LinLayout *src, const LinLayout *dst)
{
    if (src->rank != dst->rank || src->nlane != dst->nlane || src->nwarp != dst->nwarp)
        return false;
    for (int b = 0; b < src->nlane; b++)
        if (memcmp(src->lane[b], dst->lane[b], sizeof(int32_t) * (size_t)dst->rank))
            return false;
    for (int b = 0; b < src->nwarp; b++)
        if (memcmp(src->warp[b], dst->warp[b], sizeof(int32_t) * (size_t)dst->rank))
            return false;
    for (int r = 0; r < lin_nregs(dst); r++) {
        int64_t c[LAY_MAX_RANK];
        lin_reg_coords(dst, r, c);
        if (lin_reg_of(src, c) < 0)
            return false;
    }
    return true;
}

bool lin_equal(const LinLayout *a, const LinLayout *b)
{
    if (a->rank != b->rank || a->nreg != b->nreg || a->nlane != b->nlane || a->nwarp != b->nwarp)
        return false;
    if (memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->rank))
        return false;
    for (int i = 0; i < a->nreg; i++)
        if (memcmp(a->reg[i], b->reg[i], sizeof(int32_t) * (size_t)a->rank))
            return false;
    for (int i = 0; i < a->nlane; i++)
        if (memcmp(a->lane[i], b->lane[i], sizeof(int32_t) * (size_t)a->rank))
            return false;
    for (int i = 0; i < a->nwarp; i++)
        if (memcmp(a->warp[i], b->warp[i], sizeof(int32_t) * (size_t)a->rank))
            return false;
    return true;
}
