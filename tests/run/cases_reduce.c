/* Reductions (sum, max, min, argmax, argmin) along each axis of 2-D and 3-D tiles, over every element,
 * with keepdims, and over masked vectors of up to 4096 elements; cumsum along each axis. These cross
 * lanes (butterflies) and waves (LDS), so the warp counts and shapes vary widely.
 *
 * References: sums in double, checked within sum|x| * max(8, len / 4) * 2^-24 (the devices add in f32
 * in different orders: the interpreter in index order, the emulator as a tree); integer sums wrap in
 * the result type; max and min propagate NaN and order -0 < +0 (with propagate_nan = false they
 * ignore NaN: NaN only where every element is); argmax and argmin give the first index of the
 * extreme, the first NaN if any. Inputs for the comparisons have many ties. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/run/cases.h"

enum { R_SUM, R_MAX, R_MIN, R_ARGMAX, R_ARGMIN, R_MAXNUM, R_MINNUM };
static const char *const RNAME[] = {"sum", "max", "min", "argmax", "argmin", "max-num", "min-num"};

rk_dtype sum_type(rk_dtype t)
{
    if (t == RK_F16 || t == RK_BF16)
        return RK_F32;
    if (t == RK_I8 || t == RK_I16 || t == RK_BOOL)
        return RK_I32;
    if (t == RK_U8 || t == RK_U16)
        return RK_U32;
    return t;
}

static rk_dtype result_type(int kind, rk_dtype t)
{
    return kind == R_SUM ? sum_type(t) : kind == R_ARGMAX || kind == R_ARGMIN ? RK_I32 : t;
}

/* Inputs: wide values for sums, values with many ties (and -0, and NaN when asked: nan 1 a few, 2
 * most, so that short lines are sometimes all NaN) otherwise. */
static void red_fill(Run *r, HBuf *x, int kind, int nan)
{
    rk_dtype t = x->dt;
    for (size_t i = 0; i < x->n; i++) {
        if (kind == R_SUM) {
            fill_one(r, x, i, dt_float(t) ? UNI(-1, 1) : MIX(0, 0));
            continue;
        }
        if (dt_float(t)) {
            double v = (double)rng_range(&r->rng, -6, 6) / 2;
            if (v == 0 && rng_range(&r->rng, 0, 1))
                v = -0.0;
            if (rng_range(&r->rng, 0, 7) == 0)
                v = (rng_unit(&r->rng) - 0.5) * 100;
            if ((nan == 1 && rng_range(&r->rng, 0, 200) == 0) || (nan == 2 && rng_range(&r->rng, 0, 7) != 0))
                v = NAN;
            fset(t, x->host, i, v);
        } else if (rng_range(&r->rng, 0, 7) == 0) {
            fill_one(r, x, i, MIX(0, 0));
        } else {
            iset(t, x->host, i, rng_range(&r->rng, dt_signed(t) ? -3 : 0, dt_signed(t) ? 3 : 6));
        }
    }
}

/* Is x[k] a strictly better pick than x[best]? (The interpreter's rule: NaN first, -0 below +0.) */
static bool better(rk_dtype t, const void *p, size_t k, size_t best, bool max)
{
    if (dt_float(t)) {
        double x = fget(t, p, k), b = fget(t, p, best);
        if (isnan(b))
            return false;
        if (isnan(x))
            return true;
        if (x == b)
            return x == 0 && signbit(x) != signbit(b) && (max ? signbit(b) : signbit(x));
        return max ? x > b : x < b;
    }
    if (dt_signed(t))
        return max ? iget(t, p, k) > iget(t, p, best) : iget(t, p, k) < iget(t, p, best);
    uint64_t x = (uint64_t)iget(t, p, k), b = (uint64_t)iget(t, p, best);
    return max ? x > b : x < b;
}

/* Reduces x[base + k * stride], k < len, into o[oi]; tol[oi] gets the sum's tolerance. */
static void red_ref(int kind, const HBuf *x, size_t base, size_t stride, size_t len, HBuf *o, size_t oi, double *tol)
{
    rk_dtype t = x->dt;
    if (kind == R_SUM) {
        if (dt_float(t)) {
            double s = 0, a = 0;
            for (size_t k = 0; k < len; k++) {
                double v = fget(t, x->host, base + k * stride);
                s += v;
                a += fabs(v);
            }
            ref_f(o, oi, s);
            tol[oi] = a * fmax(8, (double)len / 4) * 0x1p-24 + fabs(s) * 0x1p-23;
        } else {
            uint64_t s = 0;
            for (size_t k = 0; k < len; k++)
                s += (uint64_t)iget(t, x->host, base + k * stride);
            ref_i(o, oi, iwrap(o->dt, (int64_t)s));
        }
        return;
    }
    size_t best = 0;
    bool max = kind == R_MAX || kind == R_ARGMAX || kind == R_MAXNUM;
    bool skip_nan = (kind == R_MAXNUM || kind == R_MINNUM) && dt_float(t); /* NaN ignored */
    for (size_t k = 1; k < len; k++) {
        if (skip_nan && isnan(fget(t, x->host, base + k * stride)))
            continue;
        if ((skip_nan && isnan(fget(t, x->host, base + best * stride))) ||
            better(t, x->host, base + k * stride, base + best * stride, max))
            best = k;
    }
    if (kind == R_ARGMAX || kind == R_ARGMIN)
        ref_i(o, oi, (int64_t)best);
    else
        ref_bits(o, oi, (const uint8_t *)x->host + (base + best * stride) * x->esize);
}

static Tol red_tol(int kind, double *tol)
{
    if (kind != R_SUM)
        return EXACT;
    Tol t = ABSREL(0, 0);
    t.per = tol;
    return t;
}

/* ---- reduce2d: p[0] kind, p[1] R, p[2] C, p[3] axis (-1: all), p[4] keepdims, p[5] NaN inputs ---- */

static void setup_reduce2d(Run *r)
{
    const Case *c = r->c;
    rk_dtype t = c->dt[0];
    int R = c->p[1], C = c->p[2], axis = c->p[3], P = (int)rng_range(&r->rng, 1, 3);
    HBuf *x = in_buf(r, "x", t, (size_t)(P * R * C), (Gen){G_NONE, 0, 0});
    red_fill(r, x, c->p[0], c->p[5]);
    size_t per = axis == 0 ? (size_t)C : axis == 1 ? (size_t)R : 1;
    out_buf(r, "out", result_type(c->p[0], t), (size_t)P * per);
    set_grid(r, (uint32_t)P, 1, 1);
}

static void check_reduce2d(Run *r)
{
    const Case *c = r->c;
    int R = c->p[1], C = c->p[2], axis = c->p[3], kind = c->p[0];
    HBuf *x = &r->bufs[0], *o = &r->bufs[1];
    double *tol = run_alloc(r, o->n * sizeof *tol);
    size_t P = x->n / (size_t)(R * C);
    for (size_t p = 0; p < P; p++) {
        size_t b = p * (size_t)(R * C);
        if (axis == 0)
            for (int j = 0; j < C; j++)
                red_ref(kind, x, b + (size_t)j, (size_t)C, (size_t)R, o, p * (size_t)C + (size_t)j, tol);
        else if (axis == 1)
            for (int i = 0; i < R; i++)
                red_ref(kind, x, b + (size_t)(i * C), 1, (size_t)C, o, p * (size_t)R + (size_t)i, tol);
        else
            red_ref(kind, x, b, 1, (size_t)(R * C), o, p, tol);
    }
    expect_buf(r, o, red_tol(kind, tol));
}

/* ---- reduce1d: p[0] kind, p[1] BLOCK ---- */

static void setup_reduce1d(Run *r)
{
    const Case *c = r->c;
    rk_dtype t = c->dt[0];
    int block = c->p[1], P = (int)rng_range(&r->rng, 1, 3);
    int n = (int)rng_range(&r->rng, block / 2 + 1, block);
    HBuf *x = in_buf(r, "x", t, (size_t)(P * n), (Gen){G_NONE, 0, 0});
    red_fill(r, x, c->p[0], c->p[5]);
    out_buf(r, "out", result_type(c->p[0], t), (size_t)P);
    arg(r, rk_arg_i32(n));
    set_grid(r, (uint32_t)P, 1, 1);
}

static void check_reduce1d(Run *r)
{
    HBuf *x = &r->bufs[0], *o = &r->bufs[1];
    int kind = r->c->p[0];
    double *tol = run_alloc(r, o->n * sizeof *tol);
    size_t n = x->n / o->n;
    for (size_t p = 0; p < o->n; p++)
        red_ref(kind, x, p * n, 1, n, o, p, tol);
    expect_buf(r, o, red_tol(kind, tol));
}

/* ---- reduce3d: p[0] kind, p[1..3] A B C, p[4] axis ---- */

static void setup_reduce3d(Run *r)
{
    const Case *c = r->c;
    int A = c->p[1], B = c->p[2], C = c->p[3], axis = c->p[4];
    HBuf *x = in_buf(r, "x", c->dt[0], (size_t)(A * B * C), (Gen){G_NONE, 0, 0});
    red_fill(r, x, c->p[0], false);
    int n = axis == 0 ? B * C : axis == 1 ? A * C : A * B;
    out_buf(r, "out", result_type(c->p[0], c->dt[0]), (size_t)n);
    set_grid(r, 1, 1, 1);
}

static void check_reduce3d(Run *r)
{
    const Case *c = r->c;
    int A = c->p[1], B = c->p[2], C = c->p[3], axis = c->p[4], kind = c->p[0];
    HBuf *x = &r->bufs[0], *o = &r->bufs[1];
    double *tol = run_alloc(r, o->n * sizeof *tol);
    if (axis == 0)
        for (int b = 0; b < B; b++)
            for (int e = 0; e < C; e++)
                red_ref(kind, x, (size_t)(b * C + e), (size_t)(B * C), (size_t)A, o, (size_t)(b * C + e), tol);
    else if (axis == 1)
        for (int a = 0; a < A; a++)
            for (int e = 0; e < C; e++)
                red_ref(kind, x, (size_t)(a * B * C + e), (size_t)C, (size_t)B, o, (size_t)(a * C + e), tol);
    else
        for (int a = 0; a < A; a++)
            for (int b = 0; b < B; b++)
                red_ref(kind, x, (size_t)((a * B + b) * C), 1, (size_t)C, o, (size_t)(a * B + b), tol);
    expect_buf(r, o, red_tol(kind, tol));
}

/* ---- scans: p[1] R (or BLOCK), p[2] C, p[3] axis; p[0] 1 for scan1d, 2 for scan2d_mask ---- */

enum { S_SUM, S_MAX, S_MIN, S_PROD };
static const char *const SNAME[] = {"cumsum", "cummax", "cummin", "cumprod"};

/* max and min in order, -0 below +0 (as max and min order them); no NaN among the inputs */
static bool scan_better(double v, double acc, bool max)
{
    if (v == acc)
        return v == 0 && signbit(v) != signbit(acc) && (max ? signbit(acc) : signbit(v));
    return max ? v > acc : v < acc;
}

/* one line of a scan in the reference: len elements of x from base by stride, in a tile line of full
 * elements whose masked tail the kernel loads as 0 (1 for cumprod), taken in index order or from the
 * last back (p[6], reverse), written with or without the element itself (p[7], exclusive: the first
 * written is the identity). Sums accumulate in double (the devices' orders differ: tol), products in
 * the result type rounded at each step as interp does (a few ulps of the result per step), max and
 * min exact, ints wrap. */
static void scan_ref(const Case *c, const HBuf *x, size_t base, size_t stride, size_t len, size_t full, HBuf *o,
                     double *tol)
{
    int kind = c->p[5];
    bool rev = c->p[6], excl = c->p[7];
    rk_dtype t = x->dt;
    bool fl = dt_float(t);
    int bits = dt_bits(o->dt);
    uint64_t top = bits >= 64 ? 1ull << 63 : 1ull << (bits - 1);
    double f = kind == S_PROD ? 1 : kind == S_MAX ? -INFINITY : kind == S_MIN ? INFINITY : 0, a = 0;
    int64_t n = kind == S_PROD ? 1 : kind == S_MAX ? (dt_signed(o->dt) ? (int64_t)(0 - top) : 0)
                : kind == S_MIN ? (int64_t)(dt_signed(o->dt) ? top - 1 : ~0ull) : 0;
    double ftol = 0;
    for (size_t s = 0; s < full; s++) {
        size_t k = rev ? full - 1 - s : s, i = base + k * stride;
        bool in = k < len;
        if (excl && in) {
            if (fl) {
                ref_f(o, i, f);
                tol[i] = ftol;
            } else
                ref_i(o, i, iwrap(o->dt, n));
        }
        if (fl) {
            double v = in ? fget(t, x->host, i) : kind == S_PROD ? 1 : 0;
            if (kind == S_SUM) {
                f = s ? f + v : v;
                a += fabs(v);
                ftol = a * fmax(8, (double)(s + 1) / 4) * 0x1p-24 + fabs(f) * 0x1p-23;
            } else if (kind == S_PROD) {
                f = s ? (double)(float)(f * v) : v;
                ftol = fabs(f) * (double)(s + 2) * 0x1p-22;
            } else if (s == 0 || scan_better(v, f, kind == S_MAX))
                f = v;
        } else {
            int64_t v = in ? iget(t, x->host, i) : kind == S_PROD ? 1 : 0;
            if (kind == S_SUM)
                n = (int64_t)((uint64_t)(s ? n : 0) + (uint64_t)v);
            else if (kind == S_PROD)
                n = (int64_t)((uint64_t)(s ? n : 1) * (uint64_t)v);
            else if (s == 0 || (kind == S_MAX ? v > n : v < n))
                n = v;
        }
        if (!excl && in) {
            if (fl) {
                ref_f(o, i, f);
                tol[i] = ftol;
            } else
                ref_i(o, i, iwrap(o->dt, n));
        }
    }
}

/* the input of a scan: sums wide, products near 1 (f32 holds 256 of them), max and min with ties */
static void scan_fill(Run *r, HBuf *x, int kind)
{
    if (kind == S_MAX || kind == S_MIN)
        red_fill(r, x, R_MAX, false);
    else
        for (size_t i = 0; i < x->n; i++)
            fill_one(r, x, i, !dt_float(x->dt) ? MIX(0, 0) : kind == S_PROD ? UNI(0.8, 1.2) : UNI(-1, 1));
}

static rk_dtype scan_type(int kind, rk_dtype t)
{
    return kind == S_MAX || kind == S_MIN ? t : sum_type(t);
}

static void setup_scan(Run *r)
{
    const Case *c = r->c;
    rk_dtype t = c->dt[0];
    int kind = c->p[5];
    if (c->p[0] == 1) {
        int block = c->p[1], P = (int)rng_range(&r->rng, 1, 3);
        int n = (int)rng_range(&r->rng, block / 2 + 1, block);
        scan_fill(r, in_buf(r, "x", t, (size_t)(P * n), MIX(0, 0)), kind);
        out_buf(r, "out", scan_type(kind, t), (size_t)(P * n));
        arg(r, rk_arg_i32(n));
        arg(r, rk_arg_i32(P));
        return;
    }
    if (c->p[0] == 2) { /* an nr x nc matrix in the R x C tile: each extent from half the tile's + 1 */
        int R = c->p[1], C = c->p[2], P = (int)rng_range(&r->rng, 1, 2);
        int nr = (int)rng_range(&r->rng, R / 2 + 1, R), nc = (int)rng_range(&r->rng, C / 2 + 1, C);
        scan_fill(r, in_buf(r, "x", t, (size_t)(P * nr * nc), MIX(0, 0)), kind);
        out_buf(r, "out", scan_type(kind, t), (size_t)(P * nr * nc))->cols = nc;
        arg(r, rk_arg_i32(nr));
        arg(r, rk_arg_i32(nc));
        arg(r, rk_arg_i32(P));
        return;
    }
    int R = c->p[1], C = c->p[2], P = (int)rng_range(&r->rng, 1, 2);
    scan_fill(r, in_buf(r, "x", t, (size_t)(P * R * C), MIX(0, 0)), kind);
    out_buf(r, "out", scan_type(kind, t), (size_t)(P * R * C))->cols = C;
    set_grid(r, (uint32_t)P, 1, 1);
}

static void check_scan(Run *r)
{
    const Case *c = r->c;
    HBuf *x = &r->bufs[0], *o = &r->bufs[1];
    double *tol = run_alloc(r, o->n * sizeof *tol);
    if (c->p[0] == 1) {
        int P = (int)r->args[3].v.i;
        size_t n = x->n / (size_t)P;
        for (size_t p = 0; p < (size_t)P; p++)
            scan_ref(c, x, p * n, 1, n, (size_t)c->p[1], o, tol);
    } else if (c->p[0] == 2) {
        size_t nr = (size_t)r->args[2].v.i, nc = (size_t)r->args[3].v.i, P = x->n / (nr * nc);
        for (size_t p = 0; p < P; p++) {
            if (c->p[3] == 0)
                for (size_t j = 0; j < nc; j++)
                    scan_ref(c, x, p * nr * nc + j, nc, nr, (size_t)c->p[1], o, tol);
            else
                for (size_t i = 0; i < nr; i++)
                    scan_ref(c, x, p * nr * nc + i * nc, 1, nc, (size_t)c->p[2], o, tol);
        }
    } else {
        size_t R = (size_t)c->p[1], C = (size_t)c->p[2], P = x->n / (R * C);
        for (size_t p = 0; p < P; p++) {
            if (c->p[3] == 0)
                for (size_t j = 0; j < C; j++)
                    scan_ref(c, x, p * R * C + j, C, R, R, o, tol);
            else
                for (size_t i = 0; i < R; i++)
                    scan_ref(c, x, p * R * C + i * C, 1, C, C, o, tol);
        }
    }
    if (c->p[5] == S_MAX || c->p[5] == S_MIN)
        expect_buf(r, o, EXACT);
    else
        expect_buf(r, o, red_tol(R_SUM, tol));
}

/* ---- bool: p[1] R, p[2] C ---- */

static void setup_reduce_bool(Run *r)
{
    int R = r->c->p[1], C = r->c->p[2];
    HBuf *x = in_buf(r, "x", RK_I8, (size_t)(R * C), BOOLS);
    for (size_t i = 0; i < x->n; i += 5)
        fill_one(r, x, i, BITS); /* any non-zero byte is true */
    out_buf(r, "rows", RK_I32, (size_t)R);
    out_buf(r, "cols", RK_I32, (size_t)C);
    out_buf(r, "total", RK_I32, 1);
    out_buf(r, "scan", RK_I32, (size_t)(R * C))->cols = C;
    set_grid(r, 1, 1, 1);
}

static void check_reduce_bool(Run *r)
{
    int R = r->c->p[1], C = r->c->p[2];
    HBuf *x = &r->bufs[0], *rows = &r->bufs[1], *cols = &r->bufs[2], *total = &r->bufs[3], *scan = &r->bufs[4];
    int t = 0;
    for (int j = 0; j < C; j++) {
        int s = 0;
        for (int i = 0; i < R; i++)
            s += ibits(RK_I8, x->host, (size_t)(i * C + j)) != 0;
        ref_i(cols, (size_t)j, s);
    }
    for (int i = 0; i < R; i++) {
        int s = 0;
        for (int j = 0; j < C; j++) {
            s += ibits(RK_I8, x->host, (size_t)(i * C + j)) != 0;
            ref_i(scan, (size_t)(i * C + j), s);
        }
        ref_i(rows, (size_t)i, s);
        t += s;
    }
    ref_i(total, 0, t);
    expect_buf(r, rows, EXACT);
    expect_buf(r, cols, EXACT);
    expect_buf(r, total, EXACT);
    expect_buf(r, scan, EXACT);
}

/* ---- registration ---- */

void gen_reduce(void)
{
    static const int shapes[][3] = {{32, 64, 4}, {64, 64, 8}, {16, 32, 1}, {64, 16, 2}, {128, 8, 4},
                                    {8, 256, 8}, {1, 64, 2}, {256, 32, 8}};
    enum { NS = 8 };
    static const rk_dtype RT[] = {RK_F32, RK_F16, RK_BF16, RK_I8, RK_I32, RK_U32, RK_I64};
    int k = 0;
    for (int ti = 0; ti < 7; ti++) {
        rk_dtype t = RT[ti];
        for (int kind = R_SUM; kind <= R_ARGMIN; kind++)
            for (int axis = -1; axis <= 1; axis++)
                for (int keep = 0; keep < 2; keep++) {
                    const int *s = shapes[(k++) % NS];
                    rk_dtype u = result_type(kind, t);
                    Case *c = add_case("reduce.tile", "reduce2d", setup_reduce2d, check_reduce2d,
                                       "reduce/reduce2d/%s/%s/axis%s/%s%dx%d/w%d", RNAME[kind], tname(t),
                                       axis < 0 ? "-all" : axis ? "1" : "0", keep ? "keep/" : "", s[0], s[1], s[2]);
                    c->p[0] = kind;
                    c->p[1] = s[0];
                    c->p[2] = s[1];
                    c->p[3] = axis;
                    c->p[4] = keep;
                    c->dt[0] = t;
                    case_define(c, "T=%s U=%s KIND=%d AXIS=%d KEEP=%s R=%d C=%d num_warps=%d", tname(t), tname(u), kind,
                                axis, keep ? "true" : "false", s[0], s[1], s[2]);
                }
        static const int blocks[][2] = {{128, 1}, {256, 2}, {512, 4}, {1024, 8}, {4096, 8}, {2048, 4}, {64, 1}};
        for (int kind = R_SUM; kind <= R_ARGMIN; kind++) {
            const int *b = blocks[(k++) % 7];
            Case *c = add_case("reduce.tile", "reduce1d", setup_reduce1d, check_reduce1d, "reduce/reduce1d/%s/%s/b%d/w%d",
                               RNAME[kind], tname(t), b[0], b[1]);
            c->p[0] = kind;
            c->p[1] = b[0];
            c->dt[0] = t;
            case_define(c, "T=%s U=%s KIND=%d BLOCK=%d num_warps=%d", tname(t), tname(result_type(kind, t)), kind, b[0],
                        b[1]);
        }
        static const int d3[][4] = {{4, 8, 16, 2}, {2, 32, 16, 4}, {8, 8, 8, 1}, {16, 4, 32, 8}};
        for (int kind = R_SUM; kind <= R_ARGMIN; kind++)
            for (int axis = 0; axis < 3; axis++) {
                if ((kind + axis + ti) % 2)
                    continue;
                const int *d = d3[(k++) % 4];
                Case *c = add_case("reduce.tile", "reduce3d", setup_reduce3d, check_reduce3d,
                                   "reduce/reduce3d/%s/%s/axis%d/%dx%dx%d/w%d", RNAME[kind], tname(t), axis, d[0], d[1],
                                   d[2], d[3]);
                c->p[0] = kind;
                c->p[1] = d[0];
                c->p[2] = d[1];
                c->p[3] = d[2];
                c->p[4] = axis;
                c->dt[0] = t;
                case_define(c, "T=%s U=%s KIND=%d AXIS=%d A=%d B=%d C=%d num_warps=%d", tname(t),
                            tname(result_type(kind, t)), kind, axis, d[0], d[1], d[2], d[3]);
            }
        /* cumsum */
        for (int v = 0; v < 3; v++) {
            const int *b = blocks[(k++) % 7];
            Case *c = add_case("reduce.tile", "scan1d", setup_scan, check_scan, "reduce/cumsum1d/%s/b%d/w%d", tname(t),
                               b[0], b[1]);
            c->p[0] = 1;
            c->p[1] = b[0];
            c->dt[0] = t;
            case_define(c, "T=%s U=%s BLOCK=%d num_warps=%d", tname(t), tname(sum_type(t)), b[0], b[1]);
        }
        for (int axis = 0; axis < 2; axis++)
            for (int v = 0; v < 2; v++) {
                const int *s = shapes[(k++) % NS];
                Case *c = add_case("reduce.tile", "scan2d", setup_scan, check_scan, "reduce/cumsum2d/%s/axis%d/%dx%d/w%d",
                                   tname(t), axis, s[0], s[1], s[2]);
                c->p[1] = s[0];
                c->p[2] = s[1];
                c->p[3] = axis;
                c->dt[0] = t;
                case_define(c, "T=%s U=%s AXIS=%d R=%d C=%d num_warps=%d", tname(t), tname(sum_type(t)), axis, s[0],
                            s[1], s[2]);
            }
    }
    /* odd shapes: dimensions of 1 and 2, tiles smaller than a wave, with many warps, 16 warps */
    static const int odd[][3] = {{1, 1, 2}, {2, 16, 8}, {64, 1, 4}, {1, 128, 8}, {4, 4, 1}, {2, 2, 4}, {64, 64, 16}, {16, 256, 16}};
    static const int oddkinds[] = {R_SUM, R_MIN, R_ARGMAX};
    for (int s = 0; s < 8; s++)
        for (int ki = 0; ki < 3; ki++)
            for (int axis = -1; axis <= 1; axis++) {
                int kind = oddkinds[(ki + s) % 3];
                rk_dtype t = RT[(s + kind + axis + 1) % 7];
                const int *q = odd[s];
                Case *c = add_case("reduce.tile", "reduce2d", setup_reduce2d, check_reduce2d,
                                   "reduce/odd/reduce2d/%s/%s/axis%s/%dx%d/w%d", RNAME[kind], tname(t),
                                   axis < 0 ? "-all" : axis ? "1" : "0", q[0], q[1], q[2]);
                c->p[0] = kind;
                c->p[1] = q[0];
                c->p[2] = q[1];
                c->p[3] = axis;
                c->p[4] = s % 2;
                c->dt[0] = t;
                case_define(c, "T=%s U=%s KIND=%d AXIS=%d KEEP=%s R=%d C=%d num_warps=%d", tname(t),
                            tname(result_type(kind, t)), kind, axis, s % 2 ? "true" : "false", q[0], q[1], q[2]);
            }
    for (int s = 0; s < 8; s++)
        for (int axis = 0; axis < 2; axis++) {
            rk_dtype t = RT[(s + axis) % 7];
            const int *q = odd[s];
            Case *c = add_case("reduce.tile", "scan2d", setup_scan, check_scan, "reduce/odd/cumsum2d/%s/axis%d/%dx%d/w%d",
                               tname(t), axis, q[0], q[1], q[2]);
            c->p[1] = q[0];
            c->p[2] = q[1];
            c->p[3] = axis;
            c->dt[0] = t;
            case_define(c, "T=%s U=%s AXIS=%d R=%d C=%d num_warps=%d", tname(t), tname(sum_type(t)), axis, q[0], q[1],
                        q[2]);
        }
    for (int s = 0; s < NS; s++) {
        Case *c = add_case("reduce.tile", "reduce_bool", setup_reduce_bool, check_reduce_bool,
                           "reduce/bool/sum-cumsum/%dx%d/w%d", shapes[s][0], shapes[s][1], shapes[s][2]);
        c->p[1] = shapes[s][0];
        c->p[2] = shapes[s][1];
        case_define(c, "R=%d C=%d num_warps=%d", shapes[s][0], shapes[s][1], shapes[s][2]);
    }
    /* cumsum over extents that are not powers of two (masks), along either axis: tiles whose axis is in
     * a lane's registers, in the lanes of one row of 16, across rows, across waves */
    static const int mshapes[][3] = {{8, 64, 4}, {64, 8, 4}, {32, 32, 2}, {16, 128, 8}, {128, 16, 8}, {4, 256, 1}};
    for (int s = 0; s < 6; s++)
        for (int axis = 0; axis < 2; axis++) {
            rk_dtype t = RT[(2 * s + axis) % 7];
            const int *q = mshapes[s];
            Case *c = add_case("reduce.tile", "scan2d_mask", setup_scan, check_scan, "reduce/cumsum2d_mask/%s/axis%d/%dx%d/w%d",
                               tname(t), axis, q[0], q[1], q[2]);
            c->p[0] = 2;
            c->p[1] = q[0];
            c->p[2] = q[1];
            c->p[3] = axis;
            c->dt[0] = t;
            case_define(c, "T=%s U=%s AXIS=%d R=%d C=%d num_warps=%d", tname(t), tname(sum_type(t)), axis, q[0], q[1],
                        q[2]);
        }
    /* cummax, cummin, cumprod: 1-D masked, 2-D along either axis, 2-D masked */
    static const rk_dtype ST[] = {RK_F32, RK_F16, RK_I32, RK_BF16, RK_I8, RK_U32, RK_I64};
    static const int sblocks[][2] = {{128, 1}, {256, 2}, {512, 4}, {1024, 8}, {4096, 8}, {2048, 4}, {64, 1}};
    for (int kind = S_MAX; kind <= S_PROD; kind++) {
        for (int v = 0; v < 2; v++) {
            rk_dtype t = ST[(k++) % 7];
            const int *b = sblocks[(k++) % 7];
            Case *c = add_case("reduce.tile", "scan1d", setup_scan, check_scan, "reduce/%s1d/%s/b%d/w%d", SNAME[kind],
                               tname(t), b[0], b[1]);
            c->p[0] = 1;
            c->p[1] = b[0];
            c->p[5] = kind;
            c->dt[0] = t;
            case_define(c, "T=%s U=%s BLOCK=%d num_warps=%d SKIND=%d", tname(t), tname(scan_type(kind, t)), b[0], b[1],
                        kind);
        }
        for (int axis = 0; axis < 2; axis++)
            for (int m = 0; m < 3; m++) {
                rk_dtype t = ST[(k++) % 7];
                const int *q = m < 2 ? shapes[(k++) % NS] : mshapes[(k++) % 6];
                Case *c = add_case("reduce.tile", m < 2 ? "scan2d" : "scan2d_mask", setup_scan, check_scan,
                                   "reduce/%s2d%s/%s/axis%d/%dx%d/w%d", SNAME[kind], m < 2 ? "" : "_mask", tname(t), axis,
                                   q[0], q[1], q[2]);
                c->p[0] = m < 2 ? 0 : 2;
                c->p[1] = q[0];
                c->p[2] = q[1];
                c->p[3] = axis;
                c->p[5] = kind;
                c->dt[0] = t;
                case_define(c, "T=%s U=%s AXIS=%d R=%d C=%d num_warps=%d SKIND=%d", tname(t), tname(scan_type(kind, t)),
                            axis, q[0], q[1], q[2], kind);
            }
    }
    /* reverse (p[6]) and exclusive (p[7]) scans of every kind: 1-D masked, 2-D along either axis, 2-D
     * masked along either axis (a reverse scan meets the masked tail first), with the axis over
     * registers, lanes and waves (their own counter: the cases above keep their shapes) */
    static const int rshapes[][3] = {{32, 64, 4}, {256, 32, 8}, {8, 64, 4}, {64, 8, 4}, {16, 128, 8}, {4, 256, 1}};
    static const int rblocks[][2] = {{4096, 8}, {256, 2}, {1024, 4}, {64, 1}, {512, 8}};
    int q = 0;
    for (int mode = 1; mode <= 3; mode++)
        for (int kind = S_SUM; kind <= S_PROD; kind++)
            for (int v = 0; v < 5; v++) {
                rk_dtype t = ST[(q + kind) % 7];
                bool rev = mode & 1, excl = mode & 2;
                const char *mname = mode == 1 ? "rev" : mode == 2 ? "excl" : "rev-excl";
                Case *c;
                if (v == 0) {
                    const int *b = rblocks[(q++) % 5];
                    c = add_case("reduce.tile", "scan1d", setup_scan, check_scan, "reduce/%s-%s/1d/%s/b%d/w%d",
                                 SNAME[kind], mname, tname(t), b[0], b[1]);
                    c->p[0] = 1;
                    c->p[1] = b[0];
                    case_define(c, "T=%s U=%s BLOCK=%d num_warps=%d SKIND=%d REV=%s EXCL=%s", tname(t),
                                tname(scan_type(kind, t)), b[0], b[1], kind, rev ? "true" : "false",
                                excl ? "true" : "false");
                } else {
                    int axis = v % 2, m = v >= 3;
                    const int *sh = rshapes[(q++) % 6];
                    c = add_case("reduce.tile", m ? "scan2d_mask" : "scan2d", setup_scan, check_scan,
                                 "reduce/%s-%s/2d%s/%s/axis%d/%dx%d/w%d", SNAME[kind], mname, m ? "_mask" : "", tname(t),
                                 axis, sh[0], sh[1], sh[2]);
                    c->p[0] = m ? 2 : 0;
                    c->p[1] = sh[0];
                    c->p[2] = sh[1];
                    c->p[3] = axis;
                    case_define(c, "T=%s U=%s AXIS=%d R=%d C=%d num_warps=%d SKIND=%d REV=%s EXCL=%s", tname(t),
                                tname(scan_type(kind, t)), axis, sh[0], sh[1], sh[2], kind, rev ? "true" : "false",
                                excl ? "true" : "false");
                }
                c->p[5] = kind;
                c->p[6] = rev;
                c->p[7] = excl;
                c->dt[0] = t;
            }
    /* NaN among the inputs of max, min, argmax, argmin */
    static const rk_dtype NT[] = {RK_F32, RK_F16, RK_BF16};
    for (int ti = 0; ti < 3; ti++)
        for (int kind = R_MAX; kind <= R_ARGMIN; kind++) {
            const int *s = shapes[(k++) % NS];
            int axis = kind % 2;
            Case *c = add_case("reduce.tile", "reduce2d", setup_reduce2d, check_reduce2d,
                               "reduce/reduce2d/%s/%s/nan/axis%d/%dx%d/w%d", RNAME[kind], tname(NT[ti]), axis, s[0],
                               s[1], s[2]);
            c->p[0] = kind;
            c->p[1] = s[0];
            c->p[2] = s[1];
            c->p[3] = axis;
            c->p[5] = 1;
            c->dt[0] = NT[ti];
            case_define(c, "T=%s U=%s KIND=%d AXIS=%d R=%d C=%d num_warps=%d", tname(NT[ti]),
                        tname(result_type(kind, NT[ti])), kind, axis, s[0], s[1], s[2]);
        }
    /* max and min with propagate_nan = false (NaN ignored), inputs mostly NaN: 2-D along either axis
     * and over every element (lanes, waves, registers), 1-D masked, 3-D; floats, and one integer type
     * (where the flag changes nothing) */
    static const rk_dtype QT[] = {RK_F32, RK_F16, RK_BF16, RK_F32, RK_I32};
    static const int qshapes[][3] = {{8, 64, 4}, {64, 8, 4}, {32, 64, 8}, {4, 256, 1}, {128, 16, 2}, {16, 128, 8}};
    static const int qblocks[][2] = {{4096, 8}, {256, 2}, {64, 1}, {1024, 4}};
    int n = 0;
    for (int ti = 0; ti < 5; ti++)
        for (int kind = R_MAXNUM; kind <= R_MINNUM; kind++) {
            rk_dtype t = QT[ti];
            for (int axis = -1; axis < 2; axis++) {
                const int *s = qshapes[(n++) % 6];
                Case *c = add_case("reduce.tile", "reduce2d", setup_reduce2d, check_reduce2d,
                                   "reduce/reduce2d/%s/%s/nan/axis%d/%dx%d/w%d", RNAME[kind], tname(t), axis, s[0], s[1],
                                   s[2]);
                c->p[0] = kind;
                c->p[1] = s[0];
                c->p[2] = s[1];
                c->p[3] = axis;
                c->p[5] = 2;
                c->dt[0] = t;
                case_define(c, "T=%s U=%s KIND=%d AXIS=%d R=%d C=%d num_warps=%d", tname(t), tname(t), kind, axis, s[0],
                            s[1], s[2]);
            }
            const int *b = qblocks[(n++) % 4];
            Case *c = add_case("reduce.tile", "reduce1d", setup_reduce1d, check_reduce1d, "reduce/reduce1d/%s/%s/nan/b%d/w%d",
                               RNAME[kind], tname(t), b[0], b[1]);
            c->p[0] = kind;
            c->p[1] = b[0];
            c->p[5] = 2;
            c->dt[0] = t;
            case_define(c, "T=%s U=%s KIND=%d BLOCK=%d num_warps=%d", tname(t), tname(t), kind, b[0], b[1]);
        }
}
