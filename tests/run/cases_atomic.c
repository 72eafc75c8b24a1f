/* Atomics: add, max, min, and, or, xor, xchg from many programs and lanes on a few locations (tile
 * and scalar forms, masked tails, every memory order and scope), a compare-and-swap counter, and a
 * compare-and-swap tile on distinct locations. The order of the updates is the devices' own, so the
 * check is what holds for every serial order: for each location, the old values together with the
 * final value are, as a multiset, the initial value together with op(old, v) of every update; the
 * final value is the fold of all updates (for xchg: the multiset check alone); and for add with
 * positive values, sorting the updates by their old value gives the chain init, init + v0, ...
 * Float adds use small integers, so every order gives exact sums. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/run/cases.h"

enum { A_ADD, A_MAX, A_MIN, A_AND, A_OR, A_XOR, A_XCHG };
static const char *const ANAME[] = {"add", "max", "min", "and", "or", "xor", "xchg"};

/* op(old, v) in the type t, as raw bits. */
static uint64_t apply(int op, rk_dtype t, uint64_t old, uint64_t v)
{
    uint8_t a[8], b[8], o[8];
    memcpy(a, &old, 8);
    memcpy(b, &v, 8);
    if (dt_float(t)) {
        double x = fget(t, a, 0), y = fget(t, b, 0), z;
        switch (op) {
        case A_ADD: z = x + y; break;
        case A_MAX: z = ref_fmax(x, y); break;
        case A_MIN: z = ref_fmin(x, y); break;
        default: z = y; break;
        }
        fset(t, o, 0, z);
        return ibits(t, o, 0);
    }
    int64_t x = iget(t, a, 0), y = iget(t, b, 0), z;
    switch (op) {
    case A_ADD: z = ref_int_binop(0, t, x, y); break;
    case A_MAX: z = ref_int_binop(11, t, x, y); break;
    case A_MIN: z = ref_int_binop(10, t, x, y); break;
    case A_AND: z = x & y; break;
    case A_OR: z = x | y; break;
    case A_XOR: z = x ^ y; break;
    default: z = y; break;
    }
    iset(t, o, 0, z);
    return ibits(t, o, 0);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct Upd {
    double old, v;
} Upd;

static int cmp_upd(const void *a, const void *b)
{
    double x = ((const Upd *)a)->old, y = ((const Upd *)b)->old;
    return x < y ? -1 : x > y;
}

/* Checks one device's result for every location. */
static void check_locations(Run *r, int d, int op, const HBuf *p, const HBuf *v, const HBuf *old, size_t n, int nloc)
{
    rk_dtype t = p->dt;
    size_t cnt = n / (size_t)nloc + 2;
    uint64_t *A = malloc(cnt * sizeof *A), *B = malloc(cnt * sizeof *B);
    Upd *U = malloc(cnt * sizeof *U);
    for (int l = 0; l < nloc; l++) {
        uint64_t init = ibits(t, p->host, (size_t)l), fin = ibits(t, p->got[d], (size_t)l), fold = init;
        size_t k = 0;
        A[0] = fin;
        B[0] = init;
        for (size_t i = (size_t)l; i < n; i += (size_t)nloc) {
            uint64_t o = ibits(t, old->got[d], i), x = ibits(t, v->host, i);
            k++;
            A[k] = o;
            B[k] = apply(op, t, o, x);
            fold = apply(op, t, fold, x);
            if (op == A_ADD) {
                U[k - 1].old = dt_float(t) ? fget(t, old->got[d], i) : (double)iget(t, old->got[d], i);
                U[k - 1].v = dt_float(t) ? fget(t, v->host, i) : (double)iget(t, v->host, i);
            }
        }
        const char *dn = d ? "emu" : "interp";
        if (op != A_XCHG && fin != fold)
            failf(r, "  %s: location %d: final 0x%llx, expected 0x%llx (the fold of %zu updates)", dn, l,
                  (unsigned long long)fin, (unsigned long long)fold, k);
        qsort(A, k + 1, sizeof *A, cmp_u64);
        qsort(B, k + 1, sizeof *B, cmp_u64);
        if (memcmp(A, B, (k + 1) * sizeof *A) != 0)
            failf(r, "  %s: location %d: the old values are not those of any order of the %zu updates", dn, l, k);
        if (op == A_ADD && k) {
            qsort(U, k, sizeof *U, cmp_upd);
            double want = dt_float(t) ? fget(t, p->host, (size_t)l) : (double)iget(t, p->host, (size_t)l);
            for (size_t j = 0; j < k; j++) {
                if (U[j].old != want) {
                    failf(r, "  %s: location %d: update %zu (by old value) saw %g, expected %g", dn, l, j, U[j].old,
                          want);
                    break;
                }
                want += U[j].v;
            }
        }
    }
    free(A);
    free(B);
    free(U);
}

/* p: [0] op, [1] BLOCK, [2] NLOC, [3] 1 for the scalar kernel */
static void setup_rmw(Run *r)
{
    const Case *c = r->c;
    rk_dtype t = c->dt[0];
    int op = c->p[0], nloc = c->p[2];
    int n = c->p[3] ? (int)rng_range(&r->rng, 1, 600) : pick_n(r, c->p[1]);
    if (t == RK_BF16 && n > 1000)
        n = 1000;
    Gen g = MIX(-100, 100);
    if (op == A_ADD)
        g = t == RK_BF16 ? UNI(1, 2) : t == RK_F16 ? UNI(1, 4) : dt_float(t) ? UNI(1, 16) : UNI(1, 100);
    else if (dt_float(t))
        g = UNI(-100, 100);
    HBuf *p = in_buf(r, "p", t, (size_t)nloc, op == A_ADD ? UNI(0, 8) : g);
    HBuf *v = in_buf(r, "v", t, (size_t)n, g);
    if (op == A_ADD && dt_float(t)) /* integers, so that every order of the adds is exact */
        for (size_t i = 0; i < v->n; i++)
            fset(t, v->host, i, floor(fget(t, v->host, i)));
    if (op == A_ADD && dt_float(t))
        for (size_t i = 0; i < p->n; i++)
            fset(t, p->host, i, floor(fget(t, p->host, i)));
    out_buf(r, "old", t, (size_t)n);
    if (c->p[3])
        set_grid(r, (uint32_t)n, 1, 1);
    else
        arg(r, rk_arg_i32(n));
}

static void check_rmw(Run *r)
{
    if (!launched_ok(r))
        return;
    HBuf *p = &r->bufs[0], *v = &r->bufs[1], *old = &r->bufs[2];
    for (int d = 0; d < NDEV; d++)
        check_locations(r, d, r->c->p[0], p, v, old, v->n, r->c->p[2]);
}

/* ---- compare and swap ---- */

static void setup_cas_counter(Run *r)
{
    rk_dtype t = r->c->dt[0];
    int progs = (int)rng_range(&r->rng, 1, 400);
    HBuf *cnt = in_buf(r, "cnt", t, 1, UNI(0, 0));
    (void)cnt;
    out_buf(r, "out", t, (size_t)progs);
    set_grid(r, (uint32_t)progs, 1, 1);
}

static void check_cas_counter(Run *r)
{
    if (!launched_ok(r))
        return;
    HBuf *cnt = &r->bufs[0], *o = &r->bufs[1];
    size_t P = o->n;
    char *seen = malloc(P);
    for (int d = 0; d < NDEV; d++) {
        memset(seen, 0, P);
        if ((size_t)iget(cnt->dt, cnt->got[d], 0) != P)
            failf(r, "  %s: counter %lld after %zu programs", d ? "emu" : "interp", (long long)iget(cnt->dt, cnt->got[d], 0), P);
        for (size_t i = 0; i < P; i++) {
            int64_t x = iget(o->dt, o->got[d], i);
            if (x < 0 || (size_t)x >= P || seen[x]++) {
                failf(r, "  %s: program %zu replaced %lld: not a permutation of 0..%zu", d ? "emu" : "interp", i,
                      (long long)x, P - 1);
                break;
            }
        }
    }
    free(seen);
}

static void setup_cas_tile(Run *r)
{
    rk_dtype t = r->c->dt[0];
    int n = pick_n(r, r->c->p[1]);
    HBuf *p = in_buf(r, "p", t, (size_t)n, MIX(0, 0));
    HBuf *cmp = in_buf(r, "cmp", t, (size_t)n, MIX(0, 0));
    for (size_t i = 0; i < p->n; i++)
        if (rng_range(&r->rng, 0, 1))
            memcpy((uint8_t *)cmp->host + i * cmp->esize, (uint8_t *)p->host + i * p->esize, p->esize);
    in_buf(r, "v", t, (size_t)n, MIX(0, 0));
    out_buf(r, "old", t, (size_t)n);
    arg(r, rk_arg_i32(n));
}

static void check_cas_tile(Run *r)
{
    HBuf *p = &r->bufs[0], *cmp = &r->bufs[1], *v = &r->bufs[2], *old = &r->bufs[3];
    for (size_t i = 0; i < p->n; i++) {
        const uint8_t *pi = (uint8_t *)p->host + i * p->esize;
        ref_bits(old, i, pi);
        bool eq = memcmp(pi, (uint8_t *)cmp->host + i * p->esize, p->esize) == 0;
        ref_bits(p, i, eq ? (uint8_t *)v->host + i * p->esize : pi);
    }
    expect_buf(r, p, EXACT);
    expect_buf(r, old, EXACT);
}

/* ---- registration ---- */

void gen_atomic(void)
{
    static const rk_dtype IT[] = {RK_I32, RK_U32, RK_I64, RK_U64};
    static const rk_dtype FT[] = {RK_F32, RK_F64};
    int k = 0;
    for (int op = A_ADD; op <= A_XCHG; op++) {
        for (int ti = 0; ti < 8; ti++) {
            rk_dtype t;
            if (ti < 4)
                t = IT[ti];
            else if (ti < 6 && (op <= A_MIN || op == A_XCHG))
                t = FT[ti - 4];
            else if (ti >= 6 && op == A_ADD)
                t = ti == 6 ? RK_F16 : RK_BF16;
            else
                continue;
            for (int scalar = 0; scalar < 2; scalar++) {
                int block, warps;
                pick_shape(k++, &block, &warps);
                int nloc = t == RK_BF16 ? 16 : 1 << (k % 4); /* 1, 2, 4 or 8 locations */
                Case *c;
                if (scalar) {
                    c = add_case("atomic.tile", "rmw_scalar", setup_rmw, check_rmw, "atomic/%s/scalar/%s/loc%d/w%d",
                                 ANAME[op], tname(t), nloc, warps);
                    case_define(c, "T=%s OP=%d NLOC=%d num_warps=%d", tname(t), op, nloc, warps);
                } else {
                    c = add_case("atomic.tile", "rmw", setup_rmw, check_rmw, "atomic/%s/tile/%s/loc%d/b%d/w%d",
                                 ANAME[op], tname(t), nloc, block, warps);
                    case_define(c, "T=%s OP=%d NLOC=%d BLOCK=%d num_warps=%d", tname(t), op, nloc, block, warps);
                }
                c->p[0] = op;
                c->p[1] = block;
                c->p[2] = nloc;
                c->p[3] = scalar;
                c->dt[0] = t;
            }
        }
    }
    static const char *const SEMS[] = {"relaxed-gpu", "acquire-cta", "release-sys", "acq_rel-gpu"};
    for (int s = 0; s < 4; s++) {
        int block, warps;
        pick_shape(k++, &block, &warps);
        rk_dtype t = s % 2 ? RK_F32 : RK_I32;
        Case *c = add_case("atomic.tile", "rmw_sem", setup_rmw, check_rmw, "atomic/add/%s/%s/b%d/w%d", SEMS[s], tname(t),
                           block, warps);
        c->p[0] = A_ADD;
        c->p[1] = block;
        c->p[2] = 4;
        c->dt[0] = t;
        case_define(c, "T=%s SEM=%d NLOC=4 BLOCK=%d num_warps=%d", tname(t), s, block, warps);
    }
    for (int ti = 0; ti < 4; ti++) {
        rk_dtype t = IT[ti];
        Case *c = add_case("atomic.tile", "cas_counter", setup_cas_counter, check_cas_counter, "atomic/cas/counter/%s/w%d",
                           tname(t), 1 << ti);
        c->dt[0] = t;
        case_define(c, "T=%s num_warps=%d", tname(t), 1 << ti);
        int block, warps;
        pick_shape(k++, &block, &warps);
        c = add_case("atomic.tile", "cas_tile", setup_cas_tile, check_cas_tile, "atomic/cas/tile/%s/b%d/w%d", tname(t),
                     block, warps);
        c->dt[0] = t;
        c->p[1] = block;
        case_define(c, "T=%s BLOCK=%d num_warps=%d", tname(t), block, warps);
    }
}
