/* Layout interning, constructors, and the linear form of each distributed layout (see layout.h). */
#include "compiler/layout/layout.h"

#include <stdio.h>
#include <string.h>

/* ---- interning ---- */

void laytab_init(LayoutTab *t, Arena *a)
{
    memset(t, 0, sizeof *t);
    t->arena = a;
}

static bool lay_eq(const Layout *a, const Layout *b)
{
    return a->kind == b->kind && a->rank == b->rank && !memcmp(a->spt, b->spt, sizeof a->spt) &&
           !memcmp(a->tpw, b->tpw, sizeof a->tpw) && !memcmp(a->wpc, b->wpc, sizeof a->wpc) &&
           !memcmp(a->order, b->order, sizeof a->order) && a->parent == b->parent && a->dim == b->dim &&
           a->instr == b->instr && a->im == b->im && a->in == b->in && a->ik == b->ik &&
           a->transposed == b->transposed && a->op_idx == b->op_idx && a->k_width == b->k_width && a->vec == b->vec &&
           a->per_phase == b->per_phase && a->max_phase == b->max_phase && a->pad == b->pad;
}

static uint32_t lay_hash(const Layout *l)
{
    uint64_t h = 1469598103934665603ull;
    const int32_t *fields[] = {l->spt, l->tpw, l->wpc, l->order};
    h = (h ^ (uint64_t)l->kind) * 1099511628211ull;
    h = (h ^ (uint64_t)l->rank) * 1099511628211ull;
    for (int f = 0; f < 4; f++)
        for (int i = 0; i < LAY_MAX_RANK; i++)
            h = (h ^ (uint64_t)(uint32_t)fields[f][i]) * 1099511628211ull;
    h = (h ^ (uint64_t)(uintptr_t)l->parent) * 1099511628211ull;
    int32_t more[] = {l->dim, l->instr, l->im, l->in, l->ik, l->transposed, l->op_idx, l->k_width,
                      l->vec, l->per_phase, l->max_phase, l->pad};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        h = (h ^ (uint64_t)(uint32_t)more[i]) * 1099511628211ull;
    return (uint32_t)(h ^ (h >> 32));
}

static const Layout *intern(LayoutTab *t, const Layout *key)
{
    if (2 * (t->n + 1) > t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 64;
        Layout **slots = ARENA_ARRAY(t->arena, Layout *, cap);
        for (uint32_t i = 0; i < t->cap; i++)
            if (t->slots[i]) {
                uint32_t j = lay_hash(t->slots[i]) & (cap - 1);
                while (slots[j])
                    j = (j + 1) & (cap - 1);
                slots[j] = t->slots[i];
            }
        t->slots = slots;
        t->cap = cap;
    }
    uint32_t j = lay_hash(key) & (t->cap - 1);
    while (t->slots[j]) {
        if (lay_eq(t->slots[j], key))
            return t->slots[j];
        j = (j + 1) & (t->cap - 1);
    }
    Layout *l = ARENA_NEW(t->arena, Layout);
    *l = *key;
    l->id = t->n;
    t->slots[j] = l;
    t->n++;
    return l;
}

void lay_attach_printer(TypeTab *tt)
{
    tt->print_layout = lay_str;
}

/* ---- constructors ---- */

const Layout *lay_blocked(LayoutTab *t, int rank, const int *spt, const int *tpw, const int *wpc, const int *order)
{
    Layout k;
    memset(&k, 0, sizeof k);
    k.kind = LAY_BLOCKED;
    k.rank = rank;
    for (int i = 0; i < rank; i++) {
        k.spt[i] = spt[i];
        k.tpw[i] = tpw[i];
        k.wpc[i] = wpc[i];
        k.order[i] = order[i];
    }
    return intern(t, &k);
}

const Layout *lay_slice(LayoutTab *t, const Layout *parent, int dim)
{
    Layout k;
    memset(&k, 0, sizeof k);
    k.kind = LAY_SLICE;
    k.rank = parent->rank - 1;
    k.parent = parent;
    k.dim = dim;
    return intern(t, &k);
}

const Layout *lay_mfma(LayoutTab *t, int instr, int im, int in, int ik, const int *wpc, bool transposed)
{
    Layout k;
    memset(&k, 0, sizeof k);
    k.kind = LAY_MFMA;
    k.rank = 2;
    k.instr = instr;
    k.im = im;
    k.in = in;
    k.ik = ik;
    k.wpc[0] = wpc[0];
    k.wpc[1] = wpc[1];
    k.transposed = transposed;
    return intern(t, &k);
}

const Layout *lay_mma(LayoutTab *t, int instr, const int *wpc)
{
    Layout k;
    memset(&k, 0, sizeof k);
    k.kind = LAY_MMA;
    k.rank = 2;
    k.instr = instr;
    k.im = 16;
    k.in = 8;
    k.ik = 16;
    k.wpc[0] = wpc[0];
    k.wpc[1] = wpc[1];
    return intern(t, &k);
}

const Layout *lay_dot_op(LayoutTab *t, int op_idx, const Layout *parent, int k_width)
{
    Layout k;
    memset(&k, 0, sizeof k);
    k.kind = LAY_DOT_OP;
    k.rank = 2;
    k.op_idx = op_idx;
    k.parent = parent;
    k.k_width = k_width;
    return intern(t, &k);
}

const Layout *lay_shared(LayoutTab *t, int rank, int vec, int per_phase, int max_phase, int pad, const int *order)
{
    Layout k;
    memset(&k, 0, sizeof k);
    k.kind = LAY_SHARED;
    k.rank = rank;
    k.vec = vec;
    k.per_phase = per_phase;
    k.max_phase = max_phase;
    k.pad = pad;
    for (int i = 0; i < rank; i++)
        k.order[i] = order[i];
    return intern(t, &k);
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Fills threads (or waves) over dims in `order`, each dim taking what its remaining extent allows;
 * what is left over replicates along the first dim of the order. */
static void fill_dims(int rank, const int *order, const int64_t *extent, int total, int *out)
{
    int left = total;
    for (int i = 0; i < rank; i++) {
        int d = order[i];
        int take = (int)min64(extent[d] > 0 ? extent[d] : 1, left);
        out[d] = take;
        left /= take;
    }
    out[order[0]] *= left;
}

const Layout *lay_default(LayoutTab *t, int rank, const int64_t *shape, int num_warps, int wave)
{
    int spt[LAY_MAX_RANK] = {0}, tpw[LAY_MAX_RANK] = {0}, wpc[LAY_MAX_RANK] = {0}, order[LAY_MAX_RANK] = {0};
    int64_t ext[LAY_MAX_RANK] = {0};
    for (int i = 0; i < rank; i++) {
        spt[i] = 1;
        order[i] = rank - 1 - i;
        ext[i] = shape[i];
    }
    fill_dims(rank, order, ext, wave, tpw);
    /* waves take the slowest dims first, over what the lanes leave uncovered */
    int rorder[LAY_MAX_RANK] = {0};
    for (int i = 0; i < rank; i++) {
        rorder[i] = i;
        ext[i] = shape[i] / tpw[i] > 0 ? shape[i] / tpw[i] : 1;
    }
    fill_dims(rank, rorder, ext, num_warps, wpc);
    return lay_blocked(t, rank, spt, tpw, wpc, order);
}

const Layout *lay_coalesced(LayoutTab *t, int rank, const int64_t *shape, int dim, int vec, int num_warps, int wave)
{
    int spt[LAY_MAX_RANK] = {0}, tpw[LAY_MAX_RANK] = {0}, wpc[LAY_MAX_RANK] = {0}, order[LAY_MAX_RANK] = {0};
    int64_t ext[LAY_MAX_RANK] = {0};
    int k = 0;
    order[k++] = dim;
    for (int i = rank - 1; i >= 0; i--)
        if (i != dim)
            order[k++] = i;
    for (int i = 0; i < rank; i++) {
        spt[i] = 1;
        ext[i] = shape[i];
    }
    spt[dim] = (int)min64(vec, shape[dim]);
    ext[dim] = shape[dim] / spt[dim];
    fill_dims(rank, order, ext, wave, tpw);
    for (int i = 0; i < rank; i++)
        ext[i] = shape[i] / ((int64_t)spt[i] * tpw[i]) > 0 ? shape[i] / ((int64_t)spt[i] * tpw[i]) : 1;
    /* waves: the slowest dims first, keeping each wave's accesses contiguous rows */
    int rorder[LAY_MAX_RANK] = {0};
    for (int i = 0; i < rank; i++)
        rorder[i] = order[rank - 1 - i];
    fill_dims(rank, rorder, ext, num_warps, wpc);
    return lay_blocked(t, rank, spt, tpw, wpc, order);
}

const Layout *lay_permuted(LayoutTab *t, const Layout *l, const int64_t *dims)
{
    if (l->kind != LAY_BLOCKED)
        return NULL;
    int spt[LAY_MAX_RANK], tpw[LAY_MAX_RANK], wpc[LAY_MAX_RANK], order[LAY_MAX_RANK], inv[LAY_MAX_RANK];
    for (int i = 0; i < l->rank; i++) {
        spt[i] = l->spt[dims[i]];
        tpw[i] = l->tpw[dims[i]];
        wpc[i] = l->wpc[dims[i]];
        inv[dims[i]] = i;
    }
    for (int i = 0; i < l->rank; i++)
        order[i] = inv[l->order[i]];
    return lay_blocked(t, l->rank, spt, tpw, wpc, order);
}

bool lay_is_distributed(const Layout *l)
{
    return l && l->kind != LAY_SHARED;
}
