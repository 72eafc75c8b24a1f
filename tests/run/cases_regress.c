/* Regressions: each bug the run tests found, as a case with fixed inputs that failed before its fix
 * (the random families find them too, but only with some probability per run). */
#include <math.h>
#include <string.h>

#include "tests/run/cases.h"

/* abs on unsigned integers was lowered with llvm.abs, which reads them as signed (lower_elem.c). */
static void setup_abs_u32(Run *r)
{
    static const uint32_t x[] = {0, 1, 0x7FFFFFFFu, 0x80000000u, 0x80000001u, 0xFFFFFFFFu, 12345u, 0xDEADBEEFu};
    HBuf *b = in_buf(r, "x", RK_U32, 8, (Gen){G_NONE, 0, 0});
    memcpy(b->host, x, sizeof x);
    out_buf(r, "out", RK_U32, 8);
    arg(r, rk_arg_i32(8));
}

static void check_same(Run *r)
{
    HBuf *x = &r->bufs[0], *o = &r->bufs[1];
    for (size_t i = 0; i < o->n; i++)
        ref_bits(o, i, (uint8_t *)x->host + i * x->esize);
    expect_buf(r, o, EXACT);
}

/* argmax/argmin took -0 and +0 for a tie (the first index) where max/min order -0 < +0
 * (lower_reduce.c). One 1 x 64 row per program: zeros of both signs, -0 first or +0 first. */
static void setup_argzero(Run *r)
{
    HBuf *x = in_buf(r, "x", RK_F32, 2 * 64, (Gen){G_NONE, 0, 0});
    for (size_t i = 0; i < x->n; i++)
        fset(RK_F32, x->host, i, r->c->p[0] == 3 ? -1.0 : 1.0); /* argmax: all -1 but the zeros */
    fset(RK_F32, x->host, 5, 0.0);
    fset(RK_F32, x->host, 40, -0.0);
    fset(RK_F32, x->host, 64 + 7, -0.0);
    fset(RK_F32, x->host, 64 + 50, 0.0);
    out_buf(r, "out", RK_I32, 2);
    set_grid(r, 2, 1, 1);
}

static void check_argzero(Run *r)
{
    HBuf *o = &r->bufs[1];
    bool mx = r->c->p[0] == 3;
    ref_i(o, 0, mx ? 5 : 40);  /* +0 at 5, -0 at 40 */
    ref_i(o, 1, mx ? 50 : 7);  /* -0 at 7, +0 at 50 */
    expect_buf(r, o, EXACT);
}

/* A scalar atomic ran once per lane, and a replicated tile's once per copy (lower_mem.c); the old
 * values of a replicated atomic must reach every copy. One program of 4 warps (each element of a
 * 64-element tile held by 4 lanes): p[i % 16] += 1 for the tile's 64 elements, p[16] += 1 once. */
static void setup_atomic_once(Run *r)
{
    in_buf(r, "p", RK_I32, 17, UNI(10, 10));
    out_buf(r, "old", RK_I32, 64 + 1);
    set_grid(r, 1, 1, 1);
}

static void check_atomic_once(Run *r)
{
    HBuf *p = &r->bufs[0], *old = &r->bufs[1];
    for (int i = 0; i < 16; i++)
        ref_i(p, (size_t)i, 10 + 4); /* four elements of the tile hit each of the 16 locations */
    ref_i(p, 16, 11);
    expect_buf(r, p, EXACT);
    /* the tile's old values: each location saw 10, 11, 12, 13 in some order; the scalar's saw 10 */
    if (launched_ok(r))
        for (int d = 0; d < NDEV; d++) {
            const char *dn = d ? "emu" : "interp";
            for (int l = 0; l < 16; l++) {
                int seen = 0;
                for (int k = 0; k < 4; k++) {
                    int64_t v = iget(RK_I32, old->got[d], (size_t)(l + 16 * k));
                    if (v >= 10 && v <= 13)
                        seen |= 1 << (v - 10);
                }
                if (seen != 15)
                    failf(r, "  %s: the old values of location %d are not 10, 11, 12, 13", dn, l);
            }
            if (iget(RK_I32, old->got[d], 64) != 10)
                failf(r, "  %s: the scalar atomic's old value is %lld, not 10", dn,
                      (long long)iget(RK_I32, old->got[d], 64));
        }
}

/* atomic_add on f16 and bf16 produced `atomicrmw fadd` on i16 for the emulator: invalid IR. */
static void setup_atomic16(Run *r)
{
    rk_dtype t = r->c->dt[0];
    in_buf(r, "p", t, 1, UNI(1, 1));
    in_buf(r, "v", t, 3, UNI(2, 2));
    out_buf(r, "old", t, 3);
    set_grid(r, 3, 1, 1);
}

static void check_atomic16(Run *r)
{
    HBuf *p = &r->bufs[0], *old = &r->bufs[2];
    ref_f(p, 0, 7);
    if (launched_ok(r))
        for (int d = 0; d < NDEV; d++) {
            int seen = 0;
            for (int k = 0; k < 3; k++)
                seen |= 1 << (int)fget(old->dt, old->got[d], (size_t)k);
            if (seen != (1 << 1 | 1 << 3 | 1 << 5))
                failf(r, "  %s: old values are not 1, 3, 5", d ? "emu" : "interp");
        }
    expect_buf(r, p, EXACT);
}

/* 64-bit integers to f16/bf16 went through sitofp to f64 (round to nearest) and then to 16 bits: a
 * value just above a bf16 tie became the tie and rounded to even (lower_elem.c). */
static void setup_i64_bf16(Run *r)
{
    static const int64_t v[] = {(1ll << 62) + (1ll << 54) + 1, -((1ll << 62) + (1ll << 54) + 1),
                                (1ll << 60) + (1ll << 52) + 1, (1ll << 53) + (1ll << 45) + 1,
                                (1ll << 62) + (1ll << 54),      INT64_MIN,
                                INT64_MAX,                      (1ll << 55) + (1ll << 47) - 1};
    rk_dtype s = r->c->dt[0];
    HBuf *x = in_buf(r, "x", s, 8, (Gen){G_NONE, 0, 0});
    memcpy(x->host, v, sizeof v);
    out_buf(r, "out", r->c->dt[1], 8);
    arg(r, rk_arg_i32(8));
}

static void check_cast_ref(Run *r)
{
    HBuf *x = &r->bufs[0], *o = &r->bufs[1];
    for (size_t i = 0; i < o->n; i++)
        ref_cast(o, i, x->dt, x->host, i);
    expect_buf(r, o, EXACT);
}

void gen_regress(void)
{
    Case *c = add_case("elem.tile", "unary", setup_abs_u32, check_same, "regress/abs-u32");
    case_define(c, "T=u32 OP=2 BLOCK=128 num_warps=1");
    for (int kind = 3; kind <= 4; kind++) {
        c = add_case("reduce.tile", "reduce2d", setup_argzero, check_argzero, "regress/%s-signed-zeros",
                     kind == 3 ? "argmax" : "argmin");
        c->p[0] = kind;
        case_define(c, "T=f32 U=i32 KIND=%d AXIS=-1 R=1 C=64 num_warps=2", kind);
    }
    c = add_case("regress.tile", "atomic_once", setup_atomic_once, check_atomic_once, "regress/atomic-replicated");
    case_define(c, "num_warps=4");
    static const rk_dtype I64[] = {RK_I64, RK_U64};
    for (int i = 0; i < 2; i++) {
        c = add_case("cast.tile", "cast", setup_i64_bf16, check_cast_ref, "regress/cast-%s-bf16-ties", tname(I64[i]));
        c->dt[0] = I64[i];
        c->dt[1] = RK_BF16;
        case_define(c, "S=%s D=bf16 BLOCK=128 num_warps=1", tname(I64[i]));
    }
    static const rk_dtype T16[] = {RK_F16, RK_BF16};
    for (int i = 0; i < 2; i++) {
        c = add_case("atomic.tile", "rmw_scalar", setup_atomic16, check_atomic16, "regress/atomic-add-%s",
                     tname(T16[i]));
        c->dt[0] = T16[i];
        case_define(c, "T=%s OP=0 NLOC=1 num_warps=2", tname(T16[i]));
    }
}
