/* Episodes of overlapping accesses (gen_tile.h): a straight run of statements that store to one output
 * of its own several times, each store writing all or part of the program's region of it (E elements
 * at pid * E) in another arrangement, so that the final contents depend on program order:
 *
 *  - tile stores over the whole region: the region's shape or another factorisation of E, index tiles
 *    row- or column-major, reversed, permuted, rotated (`(ix + k) & (E - 1)`), or shifted past the end
 *    and masked back to it (`ix + k` under `ix + k < E`);
 *  - stores of a subset: a smaller tile at `ix * stride + offset`; scalar stores at a constant index;
 *  - masks on any of them, so that masked-off elements keep the earlier value: `idx < a` (a run-time
 *    tail), the index against a constant (`idx < c`, `(idx & 3) == 1`, `idx % 3 != 0`: partial
 *    vectors), an arange along one axis against a constant (whole rows or columns), or from data;
 *  - loads of the region back, rearranged the same ways (`let y = load(...)`, masked, with `other`),
 *    then often a store of y or of something computed from it to another arrangement of the region;
 *    y stays in scope for the rest of the program.
 *
 * gen_tile.c draws episodes in 40% of programs: at least one, and each statement of a block there is
 * one with a chance of 7%. An episode has 2 to 5 accesses: a store of the whole region first (85%),
 * then tile stores (30%), subsets (25%), scalars (15%) and loads back (30%); half the stores after the
 * first are masked.
 *
 * Race freedom (docs/language.md, "Memory order"). Which lane and wave holds an element of a tile is
 * the compiler's choice (layouts), so the generator assumes nothing about it. Within one store no two
 * elements share an address (the index tiles are injective: the result would be unspecified). Two
 * accesses of the region by different operations, at least one a store, are ordered by a wave's
 * program order only: in a program of one wave (num_warps = 1) any sequence is valid; in a program of
 * several waves a barrier() separates every such pair, and an episode inside a loop starts with one
 * (the previous iteration's last accesses precede it). Two loads need none. Conditions are uniform
 * over a program instance, so every wave reaches the same barriers; programs never share a region.
 * Barriers that nothing needs are added at random too (10%: one wave, or two loads).
 *
 * The abstract value of a load of the region is the join of every value stored to the output so far
 * (Buf.cont, gen_tile_ab.c), with the output's poison (any bits, the same on both devices) unless an
 * earlier unmasked store of this episode covered the whole region. */
#include <string.h>

#include "tests/fuzz/gen_tile_internal.h"

enum Kind { K_TILE, K_SUBSET, K_SCALAR, K_READ, NK };

typedef struct Ep {
    int buf, off; /* the output, the run-time offset argument (-1: none) */
    Ty t;         /* the region's shape */
    int e;        /* its elements (a power of two, at least 2) */
    bool sync;    /* several waves: barrier() between conflicting accesses */
    bool dirty_w; /* a store since the last barrier */
    bool dirty_r; /* a load since the last barrier */
    bool covered; /* an unmasked store of this episode wrote every element of the region */
} Ep;

static int log2i(int e)
{
    int b = 0;
    while ((1 << b) < e)
        b++;
    return b;
}

/* A shape of e elements (a power of two): rank 1 to 3, the factors at random. */
static Ty shape_of(G *g, int dt, int e)
{
    Ty o = gt_scalar(dt);
    o.rank = gt_ri(g, 1, e > MAXELEMS / 2 ? 2 : 3);
    for (int i = 0; i < o.rank; i++)
        o.d[i] = 1;
    for (int b = log2i(e); b > 0; b--)
        o.d[gt_ri(g, 0, o.rank - 1)] *= 2;
    return o;
}

static Ty region_shape(G *g, int dt)
{
    for (int i = 0; i < 8; i++) {
        Ty t = gt_pick_shape(g, dt);
        if (t.rank > 0 && gt_elems(t) >= 2)
            return t;
    }
    return shape_of(g, dt, 1 << gt_ri(g, 1, 7));
}

static int ilit(G *g, int v)
{
    return gt_lit(g, RK_I32, v, false);
}

/* a op b, of type t (the result's: bool for comparisons) */
static int bin(G *g, int op, Ty t, int a, int b)
{
    return a < 0 || b < 0 ? -1 : gt_done(g, gt_node(g, O_BIN, op, t, a, b, -1));
}

/* An index into the region for an access of shape s (at most E elements), injective: a tile of E
 * elements covers the region (*full) unless shifted past its end, when *xmask (else -1) is the mask
 * that keeps it inside; a smaller one is a strided subset; a scalar a constant. */
static int ep_index(G *g, const Ep *ep, Ty s, bool *full, int *xmask)
{
    *xmask = -1;
    *full = false;
    if (s.rank == 0) {
        *full = ep->e == 1;
        return ilit(g, gt_ri(g, 0, ep->e - 1));
    }
    Ty it = gt_with_dt(s, RK_I32);
    int es = gt_elems(s);
    int ix = gt_index_tile(g, s, true); /* a bijection onto 0 .. es - 1 */
    if (ix < 0)
        return -1;
    if (es < ep->e) {
        int smax = es > 1 ? (ep->e - 1) / (es - 1) : 1;
        int stride = smax >= 2 && gt_chance(g, 50) ? gt_ri(g, 2, smax) : 1;
        int off = gt_ri(g, 0, ep->e - 1 - (es - 1) * stride);
        int id = stride == 1 ? ix : bin(g, B_MUL, it, ix, ilit(g, stride));
        return off == 0 ? id : bin(g, B_ADD, it, id, ilit(g, off));
    }
    int r = gt_ri(g, 0, 99);
    if (r < 65) {
        *full = true;
        return ix;
    }
    int k = gt_ri(g, 1, ep->e - 1);
    int sh = bin(g, B_ADD, it, ix, ilit(g, k));
    if (r < 85) { /* rotated */
        *full = true;
        return bin(g, B_AND, it, sh, ilit(g, ep->e - 1));
    }
    *xmask = bin(g, B_LT, gt_with_dt(s, RK_BOOL), sh, ilit(g, ep->e)); /* shifted, the part past E masked */
    return *xmask >= 0 ? sh : -1;
}

/* A mask for an access of shape s at index idx (deterministic, broadcasting to s). */
static int ep_mask(G *g, const Ep *ep, Ty s, int idx)
{
    if (s.rank == 0)
        return gt_gx(g, gt_scalar(RK_BOOL), 2, true);
    static const int CMP[] = {B_EQ, B_NE, B_LT, B_LE, B_GT, B_GE};
    Ty it = gt_with_dt(s, RK_I32), bt = gt_with_dt(s, RK_BOOL);
    int r = gt_ri(g, 0, 99);
    if (r < 20) { /* a run-time tail */
        int a;
        return gt_tail_mask(g, idx, ep->e, &a);
    }
    if (r < 50) { /* the index against a constant: vectors cut anywhere */
        int x = idx, k = gt_ri(g, 0, 2), c;
        if (k == 0) {
            c = gt_ri(g, 0, ep->e);
        } else if (k == 1) {
            int m = (1 << gt_ri(g, 1, 3)) - 1;
            x = bin(g, B_AND, it, idx, ilit(g, m));
            c = gt_ri(g, 0, m);
        } else {
            x = bin(g, B_REM, it, idx, ilit(g, 3));
            c = gt_ri(g, 0, 2);
        }
        return bin(g, CMP[gt_ri(g, 0, 5)], bt, x, ilit(g, c));
    }
    if (r < 65) { /* an arange along one axis: whole rows or columns */
        int axis = gt_ri(g, 0, s.rank - 1);
        int ar = gt_node(g, O_ARANGE, 0, it, -1, -1, -1);
        if (ar < 0)
            return -1;
        g->nodes[ar].a[0] = 0;
        g->nodes[ar].a[1] = axis;
        return bin(g, CMP[gt_ri(g, 0, 5)], bt, gt_done(g, ar), ilit(g, gt_ri(g, 0, s.d[axis])));
    }
    return gt_gx(g, gt_sub_shape(g, bt), 2, true); /* from data */
}

/* m1 && m2 where both may be missing (-1). */
static int and_mask(G *g, Ty s, int m1, int m2)
{
    if (m1 < 0 || m2 < 0)
        return m1 < 0 ? m2 : m1;
    int m = bin(g, B_AND, gt_with_dt(s, RK_BOOL), m1, m2);
    return m < 0 ? m1 : m;
}

/* A value to store through a pointer of shape s: of the output's type mostly, any other whose
 * conversion to it is deterministic, sometimes of a shape that broadcasts to s. */
static int store_value(G *g, const Ep *ep, Ty s)
{
    int bdt = g->buf[ep->buf].dt;
    for (int i = 0; i < 4 && !g->bad; i++) {
        int vdt = gt_chance(g, 70) ? bdt : (bdt == RK_I8 || bdt == RK_U8) && gt_chance(g, 40) ? RK_BOOL : gt_pick_dt(g);
        Ty vs = gt_chance(g, 15) ? gt_sub_shape(g, s) : s;
        int v = gt_gx(g, gt_with_dt(vs, vdt), gt_ri(g, 1, 3), false);
        if (v < 0 || (gt_float(vdt) && !gt_float(bdt) && g->nodes[v].ab.err > 0))
            continue; /* a float that may differ, converted to an integer, may differ by a whole step */
        return v;
    }
    if (s.rank == 0)
        return gt_lit(g, bdt, gt_lit_value(g, bdt), true);
    int id = gt_node(g, O_FULL, 0, gt_with_dt(s, bdt), -1, -1, -1);
    if (id >= 0)
        g->nodes[id].lit = gt_lit_value(g, bdt);
    return gt_done(g, id);
}

/* A barrier where this access could conflict with an earlier one of another wave, and now and then
 * where nothing needs one. */
static void sync_before(G *g, Ep *ep, bool is_store)
{
    bool need = ep->sync && (ep->dirty_w || (is_store && ep->dirty_r));
    if (!need && !gt_chance(g, 10))
        return;
    if (g->opt->no_barrier) {
        if (need)
            g->bad = true; /* cannot happen: such programs have one wave */
        return;
    }
    gt_append(g, g->cur, gt_stmt(g, S_BARRIER));
    ep->dirty_w = ep->dirty_r = false;
}

static void ep_store(G *g, Ep *ep, int idx, int mask, int val, bool full)
{
    if (idx < 0 || val < 0 || g->bad)
        return;
    sync_before(g, ep, true);
    int s = gt_stmt(g, S_STORE);
    Stmt *st = &g->st[s];
    st->node = val;
    st->out = ep->buf;
    st->idx = idx;
    st->mask = mask;
    st->off = ep->off;
    gt_append(g, g->cur, s);
    if (!ab_stmt(g, s)) {
        g->blk[g->cur].n--;
        return;
    }
    ep->dirty_w = true;
    if (full && mask < 0)
        ep->covered = true;
}

/* A shape for an access: E elements (the region's shape or another), a subset, or a scalar. */
static Ty access_shape(G *g, const Ep *ep, int kind)
{
    int dt = g->buf[ep->buf].dt;
    if (kind == K_SCALAR)
        return gt_scalar(dt);
    if (kind == K_SUBSET)
        return shape_of(g, dt, ep->e >> gt_ri(g, 1, log2i(ep->e)));
    return gt_chance(g, 50) ? ep->t : shape_of(g, dt, ep->e);
}

/* A store of shape s to the region, masked or not. */
static void ep_write(G *g, Ep *ep, Ty s, int mask_pct)
{
    bool full;
    int xm;
    int idx = ep_index(g, ep, s, &full, &xm);
    if (idx < 0)
        return;
    int mask = gt_chance(g, mask_pct) ? and_mask(g, s, xm, ep_mask(g, ep, s, idx)) : xm;
    ep_store(g, ep, idx, mask, store_value(g, ep, s), full);
}

/* Something computed from y (of shape s, the output's type): y itself, y with another value, a where,
 * a conversion. */
static int from_loaded(G *g, int y, Ty s)
{
    Ty yt = g->nodes[y].ty;
    bool fl = gt_float(yt.dt);
    int r = gt_ri(g, 0, 99), v = -1;
    if (r < 40)
        return y;
    if (r < 75) {
        static const int FOPS[] = {B_ADD, B_SUB, B_MUL, B_MAX, B_MIN};
        static const int IOPS[] = {B_ADD, B_SUB, B_XOR, B_AND, B_OR, B_MAX, B_MIN};
        int op = fl ? FOPS[gt_ri(g, 0, 4)] : IOPS[gt_ri(g, 0, 6)];
        int z = gt_gx(g, gt_sub_shape(g, yt), gt_ri(g, 0, 2), false);
        v = gt_chance(g, 50) ? bin(g, op, yt, y, z) : bin(g, op, yt, z, y);
    } else if (r < 90) {
        int c = gt_gx(g, gt_sub_shape(g, gt_with_dt(s, RK_BOOL)), 1, true);
        int z = gt_gx(g, gt_sub_shape(g, yt), gt_ri(g, 0, 2), false);
        if (c >= 0 && z >= 0)
            v = gt_done(g, gt_node(g, O_WHERE, 0, yt, c, y, z));
    } else {
        int u = gt_pick_dt(g);
        if (u != yt.dt && !(fl && !gt_float(u) && g->nodes[y].ab.err > 0))
            v = gt_done(g, gt_node(g, O_CAST, 0, gt_with_dt(yt, u), y, -1, -1));
    }
    return v >= 0 ? v : y;
}

/* A load of (part of) the region, rearranged, bound by `let`; then often a store of it. */
static void ep_read(G *g, Ep *ep)
{
    static const int W[] = {60, 25, 15}, KIND[] = {K_TILE, K_SUBSET, K_SCALAR};
    Ty s = access_shape(g, ep, KIND[gt_pick_w(g, W, 3)]);
    int bdt = g->buf[ep->buf].dt;
    bool full;
    int xm;
    int idx = ep_index(g, ep, s, &full, &xm);
    if (idx < 0)
        return;
    int mask = gt_chance(g, 30) ? and_mask(g, s, xm, ep_mask(g, ep, s, idx)) : xm;
    int other = -1;
    if (mask >= 0 && gt_chance(g, 50))
        other = gt_chance(g, 50) ? gt_lit(g, bdt, gt_lit_value(g, bdt), false)
                                 : gt_gx(g, gt_sub_shape(g, gt_with_dt(s, bdt)), 1, false);
    if (g->bad)
        return;
    sync_before(g, ep, false);
    int ld = gt_node(g, O_LOAD, !ep->covered, gt_with_dt(s, bdt), idx, mask, other);
    if (ld < 0)
        return;
    g->nodes[ld].a[0] = ep->buf;
    g->nodes[ld].a[1] = -1;
    g->nodes[ld].a[2] = ep->off;
    g->nodes[ld].a[3] = gt_chance(g, 25);
    int y = gt_let(g, gt_done(g, ld));
    if (y < 0)
        return;
    g->buf[ep->buf].readback = true;
    ep->dirty_r = true;
    if (!gt_chance(g, 65))
        return;
    g->nodes[y].uses++;
    int idx2 = ep_index(g, ep, s, &full, &xm);
    if (idx2 < 0)
        return;
    int mask2 = gt_chance(g, 35) ? and_mask(g, s, xm, ep_mask(g, ep, s, idx2)) : xm;
    ep_store(g, ep, idx2, mask2, from_loaded(g, y, s), full);
}

void gt_gen_overlap(G *g)
{
    Ep ep;
    memset(&ep, 0, sizeof ep);
    int bdt = gt_pick_dt(g);
    ep.t = region_shape(g, bdt);
    ep.e = gt_elems(ep.t);
    ep.buf = gt_new_out(g, bdt, ep.e);
    if (ep.buf < 0)
        return;
    g->episodes++;
    ep.off = -1;
    if (gt_chance(g, 10) && (ep.off = gt_new_arg(g, RK_I32, gt_ri(g, 0, 7))) >= 0)
        g->buf[ep.buf].padded = true;
    ep.sync = g->warps > 1;
    ep.dirty_w = ep.dirty_r = g->nloops > 0; /* the previous iteration's accesses */
    int nops = gt_ri(g, 2, 5);
    for (int i = 0; i < nops && !g->bad; i++) {
        static const int W[NK] = {30, 25, 15, 30};
        int kind = i == 0 && gt_chance(g, 85) ? K_TILE : gt_pick_w(g, W, NK);
        if (kind == K_READ)
            ep_read(g, &ep);
        else
            ep_write(g, &ep, access_shape(g, &ep, kind), i == 0 ? 20 : kind == K_SCALAR ? 30 : 50);
    }
}
