/* Casts: `as` between every pair of f32 f16 bf16 i8 i32 u32 i64 (same type included), from and to
 * bool, bitcast between types of one width, and a chain of casts in one kernel. The reference follows
 * docs/language.md: one rounding to nearest even into a float type (computed exactly here, also for
 * 64-bit integers), float to integer truncates toward zero and saturates (NaN gives 0), integers wrap,
 * to bool is x != 0 (NaN is true). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/run/cases.h"

static int precision(rk_dtype t)
{
    return t == RK_F16 ? 11 : t == RK_BF16 ? 8 : t == RK_F32 ? 24 : 53;
}

/* A 64-bit magnitude rounded to p significant bits, to nearest even: exactly representable. */
static double round_u64(uint64_t m, int p)
{
    if (m == 0)
        return 0;
    int top = 63 - __builtin_clzll(m);
    if (top < p)
        return (double)m;
    int s = top + 1 - p;
    uint64_t keep = m >> s, rem = m & ((1ull << s) - 1), half = 1ull << (s - 1);
    if (rem > half || (rem == half && (keep & 1)))
        keep++;
    return ldexp((double)keep, s);
}

static double int_to_float(rk_dtype from, int64_t v, rk_dtype to)
{
    int p = precision(to);
    if (!dt_signed(from)) /* zero-extended, or u64 bits */
        return round_u64((uint64_t)v, p);
    double m = round_u64(v < 0 ? 0 - (uint64_t)v : (uint64_t)v, p);
    return v < 0 ? -m : m;
}

static int64_t float_to_int(double x, rk_dtype to)
{
    if (isnan(x))
        return 0;
    double t = trunc(x);
    int bits = dt_bits(to);
    if (dt_signed(to)) {
        double hi = ldexp(1.0, bits - 1);
        if (t >= hi)
            return (int64_t)((1ull << (bits - 1)) - 1);
        if (t < -hi)
            return bits == 64 ? INT64_MIN : -(int64_t)(1ull << (bits - 1));
        return (int64_t)t;
    }
    if (t <= 0)
        return 0;
    if (t >= ldexp(1.0, bits))
        return bits == 64 ? -1 : (int64_t)((1ull << bits) - 1);
    return (int64_t)(uint64_t)t;
}

void ref_cast(HBuf *out, size_t i, rk_dtype from, const void *src, size_t j)
{
    rk_dtype to = out->dt;
    if (from == RK_BOOL) {
        int64_t b = ibits(RK_I8, src, j) != 0;
        if (dt_float(to))
            ref_f(out, i, (double)b);
        else
            ref_i(out, i, b);
        return;
    }
    if (dt_float(from)) {
        double x = fget(from, src, j);
        if (dt_float(to))
            ref_f(out, i, x);
        else
            ref_i(out, i, float_to_int(x, to));
        return;
    }
    int64_t v = iget(from, src, j);
    if (dt_float(to))
        ref_f(out, i, int_to_float(from, v, to));
    else
        ref_i(out, i, iwrap(to, v));
}

/* Float sources: small values with fractions, values around the integer types' ranges, specials. */
static void fill_cast_source(Run *r, HBuf *x, bool nan_ok)
{
    rk_dtype t = x->dt;
    for (size_t i = 0; i < x->n; i++) {
        if (!dt_float(t)) {
            if (rng_range(&r->rng, 0, 5) == 0) {
                /* just at or above a float's tie: a run of zeros below a half, then maybe a last 1 */
                static const int prec[] = {8, 11, 24};
                int top = (int)rng_range(&r->rng, 2, dt_bits(t) - 1), half = (int)rng_range(&r->rng, 1, top - 1);
                if (rng_range(&r->rng, 0, 1) && top - prec[top % 3] >= 1) /* the tie of bf16, f16 or f32 */
                    half = top - prec[top % 3];
                uint64_t v = (rng_u64(&r->rng) | (1ull << 63)) >> (63 - top);
                v = (v >> (half + 1) << (half + 1)) | (1ull << half) | (uint64_t)rng_range(&r->rng, 0, 1);
                iset(t, x->host, i, rng_range(&r->rng, 0, 1) && dt_signed(t) ? -(int64_t)v : (int64_t)v);
            } else {
                fill_one(r, x, i, MIX(0, 0));
            }
            continue;
        }
        double v;
        switch (rng_range(&r->rng, 0, 4)) {
        case 0: v = -4 + 8 * rng_unit(&r->rng); break;
        case 1: v = -300 + 600 * rng_unit(&r->rng); break;
        case 2: v = ldexp(-1 + 2 * rng_unit(&r->rng), (int)rng_range(&r->rng, 8, 66)); break;
        case 3: {
            static const double edge[] = {127.5, 128, -128.5, -129, 255.9, 256, 2147483520.0, 2147483648.0,
                                          -2147483904.0, 4294967040.0, 4294967296.0, 0x1p63, -0x1p63, -0.75, 0.999};
            v = edge[rng_range(&r->rng, 0, 14)];
            break;
        }
        default: {
            static const double sp[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 65504, 65520, 0x1p-24, 0x1p-140};
            v = sp[rng_range(&r->rng, 0, 8)];
            if (isnan(v) && !nan_ok)
                v = 1.0;
            break;
        }
        }
        fset(t, x->host, i, v);
    }
}

static void setup_cast(Run *r)
{
    const Case *c = r->c;
    rk_dtype s = c->dt[0], d = c->dt[1];
    int n = pick_n(r, c->p[1]);
    HBuf *x = in_buf(r, "x", s == RK_BOOL ? RK_I8 : s, (size_t)n, (Gen){G_NONE, 0, 0});
    if (s == RK_BOOL)
        fill(r, x, BITS);
    else
        fill_cast_source(r, x, c->p[2] == 0);
    out_buf(r, "out", d == RK_BOOL ? RK_I8 : d, (size_t)n);
    arg(r, rk_arg_i32(n));
}

static void check_cast(Run *r)
{
    HBuf *x = &r->bufs[0], *o = &r->bufs[1];
    rk_dtype s = r->c->dt[0], d = r->c->dt[1];
    for (size_t i = 0; i < o->n; i++) {
        if (d == RK_BOOL)
            ref_i(o, i, dt_float(s) ? fget(s, x->host, i) != 0 || isnan(fget(s, x->host, i)) : ibits(x->dt, x->host, i) != 0);
        else
            ref_cast(o, i, s, x->host, i);
    }
    expect_buf(r, o, EXACT);
}

static void check_bitcast(Run *r)
{
    HBuf *x = &r->bufs[0], *o = &r->bufs[1];
    for (size_t i = 0; i < o->n; i++)
        ref_bits(o, i, (uint8_t *)x->host + i * x->esize);
    expect_buf(r, o, EXACT);
}

static void check_chain(Run *r)
{
    HBuf *x = &r->bufs[0], *o = &r->bufs[1];
    for (size_t i = 0; i < o->n; i++) {
        double v = fget(RK_F32, x->host, i);
        double a = rnd(RK_BF16, rnd(RK_F16, v));
        double b = (double)float_to_int(rnd(RK_F32, v * 100.0), RK_I8);
        double c = (double)float_to_int(v, RK_U32);
        ref_f(o, i, rnd(RK_F32, rnd(RK_F32, a + b) + rnd(RK_F32, c)));
    }
    expect_buf(r, o, EXACT);
}

/* Every 16-bit pattern as the source (p[3] = 1), or for an f32 or f64 source every value of the
 * 16-bit destination, the midpoints between neighbours (ties: round to even) and the source values
 * next to them (p[3] = 2). */
static void setup_cast_exhaustive(Run *r)
{
    const Case *c = r->c;
    rk_dtype s = c->dt[0], d = c->dt[1];
    if (c->p[3] == 1) {
        HBuf *x = in_buf(r, "x", s, 65536, (Gen){G_NONE, 0, 0});
        for (size_t i = 0; i < 65536; i++) {
            uint16_t b = (uint16_t)i;
            memcpy((uint8_t *)x->host + 2 * i, &b, 2);
        }
        out_buf(r, "out", d, 65536);
        arg(r, rk_arg_i32(65536));
        return;
    }
    rk_dtype h = d, src = s;
    HBuf *x = in_buf(r, "x", src, 65536 * 4, (Gen){G_NONE, 0, 0});
    for (size_t i = 0; i < 65536; i++) {
        uint16_t b = (uint16_t)i, b1 = (uint16_t)(i + 1);
        uint8_t v0[2], v1[2];
        memcpy(v0, &b, 2);
        memcpy(v1, &b1, 2);
        double lo = fget(h, v0, 0), hi = fget(h, v1, 0);
        double mid = isfinite(lo) && isfinite(hi) && (b & 0x7FFF) != 0x7FFF ? (lo + hi) / 2 : lo;
        /* the midpoint is exact in f32 and f64; its neighbours are those of the source type */
        double below = src == RK_F32 ? nextafterf((float)mid, -INFINITY) : nextafter(mid, -INFINITY);
        double above = src == RK_F32 ? nextafterf((float)mid, INFINITY) : nextafter(mid, INFINITY);
        fset(src, x->host, 4 * i, lo);
        fset(src, x->host, 4 * i + 1, mid);
        fset(src, x->host, 4 * i + 2, below);
        fset(src, x->host, 4 * i + 3, above);
    }
    out_buf(r, "out", d, 65536 * 4);
    arg(r, rk_arg_i32(65536 * 4));
}

static Case *cast_case(const char *kernel, rk_dtype s, rk_dtype d, int k, CheckFn ck)
{
    int block, warps;
    pick_shape(k, &block, &warps);
    Case *c = add_case("cast.tile", kernel, setup_cast, ck, "cast/%s/%s-%s/b%d/w%d", kernel, tname(s), tname(d), block,
                       warps);
    c->dt[0] = s;
    c->dt[1] = d;
    c->p[1] = block;
    if (s != RK_BOOL)
        case_define(c, "S=%s", tname(s));
    if (d != RK_BOOL)
        case_define(c, "D=%s", tname(d));
    case_define(c, "BLOCK=%d num_warps=%d", block, warps);
    return c;
}

void gen_cast(void)
{
    int k = 0;
    for (int a = 0; a < NALL_TYPES; a++)
        for (int b = 0; b < NALL_TYPES; b++)
            cast_case("cast", ALL_TYPES[a], ALL_TYPES[b], k++, check_cast);
    for (int a = 0; a < NALL_TYPES; a++) {
        cast_case("cast_from_bool", RK_BOOL, ALL_TYPES[a], k++, check_cast);
        cast_case("cast_to_bool", ALL_TYPES[a], RK_BOOL, k++, check_cast);
    }
    static const rk_dtype BC[][2] = {{RK_F32, RK_I32}, {RK_I32, RK_F32}, {RK_F32, RK_U32}, {RK_U32, RK_F32},
                                     {RK_F16, RK_I16}, {RK_I16, RK_F16}, {RK_BF16, RK_U16}, {RK_U16, RK_BF16},
                                     {RK_F16, RK_BF16}, {RK_BF16, RK_F16}, {RK_I64, RK_U64}, {RK_I8, RK_U8}};
    for (int i = 0; i < (int)(sizeof BC / sizeof BC[0]); i++) {
        Case *c = cast_case("bitcast_k", BC[i][0], BC[i][1], k++, check_bitcast);
        c->p[2] = 1; /* no NaN in float sources: the interpreter holds floats as values, not bits */
    }
    /* exhaustive 16-bit conversions */
    static const rk_dtype EX[][2] = {{RK_F16, RK_F32}, {RK_BF16, RK_F32}, {RK_F16, RK_BF16}, {RK_BF16, RK_F16},
                                     {RK_F16, RK_I32}, {RK_BF16, RK_I8}, {RK_F16, RK_U32}, {RK_BF16, RK_I64}};
    for (int i = 0; i < 8; i++) {
        Case *c = cast_case("cast", EX[i][0], EX[i][1], k++, check_cast);
        c->setup = setup_cast_exhaustive;
        c->p[3] = 1;
        size_t len = strlen(c->name);
        snprintf(c->name + len, sizeof c->name - len, "/all-bits");
    }
    for (int i = 0; i < 4; i++) {
        Case *c = cast_case("cast", i < 2 ? RK_F32 : RK_F64, i % 2 ? RK_BF16 : RK_F16, k++, check_cast);
        c->setup = setup_cast_exhaustive;
        c->p[3] = 2;
        size_t len = strlen(c->name);
        snprintf(c->name + len, sizeof c->name - len, "/ties");
    }
    int block, warps;
    pick_shape(k++, &block, &warps);
    Case *c = add_case("cast.tile", "cast_chain", setup_cast, check_chain, "cast/cast_chain/f32/b%d/w%d", block, warps);
    c->dt[0] = RK_F32;
    c->dt[1] = RK_F32;
    c->p[1] = block;
    case_define(c, "BLOCK=%d num_warps=%d", block, warps);
}
