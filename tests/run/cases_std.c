/* The standard library: std/math (sigmoid, tanh, erf, gelu, silu, softplus, pow) on f32, f16 and bf16
 * against libm (the library computes in the argument's type, and erf is a 1.5e-7 approximation, so
 * the tolerances are those of the type: see math_tol); std/reduce softmax and logsumexp along each axis
 * (16-bit inputs give f32); the 64 x 4096 softmax of the emulator's speed target; std/pid grouped_pid
 * and xcd_remap (which must also be a permutation of the program ids); a layer normalisation (f32
 * inside, rows of random length in f32, f16 or bf16). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/run/cases.h"

enum { S_MATH, S_REDUCE, S_SOFTMAX_ROW, S_PIDS, S_LAYERNORM };
static const char *const FNAME[] = {"sigmoid", "tanh", "erf", "gelu", "silu", "softplus", "pow"};

static double ref_fn(int f, double x, double y)
{
    switch (f) {
    case 0: return 1 / (1 + exp(-x));
    case 1: return tanh(x);
    case 2: return erf(x);
    case 3: return 0.5 * x * (1 + erf(x / sqrt(2)));
    case 4: return x / (1 + exp(-x));
    case 5: return fmax(x, 0) + log1p(exp(-fabs(x)));
    default: return pow(fabs(x) + 0.125, y);
    }
}

/* Every op of the library's formula rounds to the type: a few ulps of it, relative and absolute. */
static Tol math_tol(rk_dtype t, int f)
{
    double e = t == RK_F32 ? 0x1p-23 : t == RK_F16 ? 0x1p-10 : 0x1p-7;
    double k = f == 6 ? 16 : 8; /* pow: exp2 of y log2 x magnifies the error of the log */
    return ABSREL(e * (f == 2 || f == 3 ? 8 : 1) + (t == RK_F32 ? 3e-7 : 0), k * e);
}

static void setup_std(Run *r)
{
    const Case *c = r->c;
    rk_dtype t = c->dt[0];
    Rng *R = &r->rng;
    switch (c->p[0]) {
    case S_MATH: {
        int n = pick_n(r, c->p[2]);
        in_buf(r, "x", t, (size_t)n, UNI(-6, 6));
        in_buf(r, "y", t, (size_t)n, UNI(-3, 3));
        out_buf(r, "out", t, (size_t)n);
        arg(r, rk_arg_i32(n));
        break;
    }
    case S_REDUCE: {
        int P = (int)rng_range(R, 1, 2), RR = c->p[2], C = c->p[3];
        in_buf(r, "x", t, (size_t)(P * RR * C), UNI(-8, 8));
        size_t n = c->p[1] == 0 ? (size_t)(P * RR * C) : (size_t)(P * (c->p[4] == 0 ? C : RR));
        out_buf(r, "out", c->dt[1], n);
        set_grid(r, (uint32_t)P, 1, 1);
        break;
    }
    case S_SOFTMAX_ROW: {
        int rows = c->p[1], N = c->p[2];
        in_buf(r, "x", RK_F32, (size_t)(rows * N), UNI(-8, 8));
        out_buf(r, "out", RK_F32, (size_t)(rows * N))->cols = N;
        arg(r, rk_arg_i32(rows));
        break;
    }
    case S_LAYERNORM: {
        int rows = (int)rng_range(R, 1, 6), n = (int)rng_range(R, c->p[1] / 4, c->p[1]);
        in_buf(r, "x", t, (size_t)(rows * n), UNI(-2, 6));
        in_buf(r, "w", RK_F32, (size_t)n, UNI(-2, 2));
        in_buf(r, "b", RK_F32, (size_t)n, UNI(-1, 1));
        out_buf(r, "out", t, (size_t)(rows * n))->cols = n;
        arg(r, rk_arg_i32(rows));
        arg(r, rk_arg_i32(n));
        arg(r, rk_arg_f32(1e-5f));
        break;
    }
    default: {
        int m = (int)rng_range(R, 1, 12), n = (int)rng_range(R, 1, 12), g = (int)rng_range(R, 1, 9);
        out_buf(r, "out", RK_I32, (size_t)(m * n * 4));
        arg(r, rk_arg_i32(m));
        arg(r, rk_arg_i32(n));
        arg(r, rk_arg_i32(g));
        set_grid(r, (uint32_t)(m * n), 1, 1);
        break;
    }
    }
}

/* softmax or logsumexp of x[base + k * stride], k < len; the 16-bit steps rounded as the library does */
static void red_fn(int red, rk_dtype t, const HBuf *x, size_t base, size_t stride, size_t len, HBuf *o, size_t obase,
                   size_t ostride, double *tol)
{
    double m = -INFINITY, s = 0;
    for (size_t k = 0; k < len; k++)
        m = fmax(m, fget(t, x->host, base + k * stride));
    for (size_t k = 0; k < len; k++)
        s += exp(fget(t, x->host, base + k * stride) - m);
    /* relative: x - m and exp rounded in the type, the sum's f32 additions in any order; absolute: the
     * spacing of f16's subnormals, where exp of a very negative argument lands */
    double e16 = t == RK_F32 ? 0x1p-22 : t == RK_F16 ? 0x1p-9 : 0x1p-6;
    double rel = e16 * 8 + fmax(8, (double)len / 4) * 0x1p-24, ab = t == RK_F16 ? 0x1p-24 : 1e-30;
    if (red == 0) {
        for (size_t k = 0; k < len; k++) {
            double v = exp(fget(t, x->host, base + k * stride) - m) / s;
            ref_f(o, obase + k * ostride, v);
            tol[obase + k * ostride] = v * rel + ab;
        }
    } else {
        double v = log(s) + m;
        ref_f(o, obase, v);
        tol[obase] = fabs(v) * 0x1p-22 + rel + 1e-6;
    }
}

static void check_std(Run *r)
{
    const Case *c = r->c;
    rk_dtype t = c->dt[0];
    switch (c->p[0]) {
    case S_MATH: {
        HBuf *x = &r->bufs[0], *y = &r->bufs[1], *o = &r->bufs[2];
        for (size_t i = 0; i < o->n; i++)
            ref_f(o, i, ref_fn(c->p[1], fget(t, x->host, i), fget(t, y->host, i)));
        expect_buf(r, o, math_tol(t, c->p[1]));
        break;
    }
    case S_REDUCE: {
        HBuf *x = &r->bufs[0], *o = &r->bufs[1];
        size_t RR = (size_t)c->p[2], C = (size_t)c->p[3], P = x->n / (RR * C);
        int red = c->p[1], axis = c->p[4];
        double *tol = run_alloc(r, o->n * sizeof *tol);
        for (size_t p = 0; p < P; p++) {
            size_t b = p * RR * C;
            if (axis == 0)
                for (size_t j = 0; j < C; j++)
                    red_fn(red, t, x, b + j, C, RR, o, red ? p * C + j : b + j, C, tol);
            else
                for (size_t i = 0; i < RR; i++)
                    red_fn(red, t, x, b + i * C, 1, C, o, red ? p * RR + i : b + i * C, 1, tol);
        }
        Tol tl = ABSREL(0, 0);
        tl.per = tol;
        expect_buf(r, o, tl);
        break;
    }
    case S_SOFTMAX_ROW: {
        HBuf *x = &r->bufs[0], *o = &r->bufs[1];
        size_t N = (size_t)c->p[2];
        double *tol = run_alloc(r, o->n * sizeof *tol);
        for (size_t row = 0; row < o->n / N; row++)
            red_fn(0, RK_F32, x, row * N, 1, N, o, row * N, 1, tol);
        Tol tl = ABSREL(0, 0);
        tl.per = tol;
        expect_buf(r, o, tl);
        break;
    }
    case S_LAYERNORM: {
        HBuf *x = &r->bufs[0], *w = &r->bufs[1], *b = &r->bufs[2], *o = &r->bufs[3];
        size_t n = (size_t)r->args[5].v.i, rows = o->n / n;
        for (size_t row = 0; row < rows; row++) {
            double mean = 0, var = 0;
            for (size_t k = 0; k < n; k++)
                mean += fget(t, x->host, row * n + k);
            mean /= (double)n;
            for (size_t k = 0; k < n; k++) {
                double d = fget(t, x->host, row * n + k) - mean;
                var += d * d;
            }
            double rstd = 1 / sqrt(var / (double)n + 1e-5);
            for (size_t k = 0; k < n; k++) {
                double d = fget(t, x->host, row * n + k) - mean;
                ref_f(o, row * n + k, d * rstd * fget(RK_F32, w->host, k) + fget(RK_F32, b->host, k));
            }
        }
        /* f32 sums of up to 2048 terms (in any order) and rsqrt, then one rounding to T */
        double e = t == RK_F32 ? 0x1p-24 : t == RK_F16 ? 0x1p-11 : 0x1p-8;
        expect_buf(r, o, ABSREL(2e-4 + 4 * e, 2 * e));
        break;
    }
    default: {
        HBuf *o = &r->bufs[0];
        int M = (int)r->args[1].v.i, N = (int)r->args[2].v.i, G = (int)r->args[3].v.i, P = M * N;
        char *seen8 = calloc((size_t)P, 1), *seen4 = calloc((size_t)P, 1);
        for (int pid = 0; pid < P; pid++) {
            int in_group = G * N, group = pid / in_group, first = group * G;
            int size = M - first < G ? M - first : G;
            int pm = first + (pid % in_group) % size, pn = (pid % in_group) / size;
            int v[4] = {pm, pn, 0, 0};
            for (int k = 0; k < 2; k++) {
                int nx = k ? 4 : 8;
                int per = (P + nx - 1) / nx, rem = P % nx, tall = rem == 0 ? nx : rem;
                int xcd = pid % nx, local = pid / nx;
                v[2 + k] = xcd < tall ? xcd * per + local : tall * per + (xcd - tall) * (per - 1) + local;
                char *seen = k ? seen4 : seen8;
                if (v[2 + k] < 0 || v[2 + k] >= P || seen[v[2 + k]]++)
                    failf(r, "  xcd_remap over %d XCDs is not a permutation: program %d maps to %d", nx, pid, v[2 + k]);
            }
            for (int k = 0; k < 4; k++)
                ref_i(o, (size_t)(pid * 4 + k), v[k]);
        }
        free(seen8);
        free(seen4);
        expect_buf(r, o, EXACT);
        break;
    }
    }
}

void gen_std(void)
{
    static const rk_dtype FT[] = {RK_F32, RK_F16, RK_BF16};
    int k = 0;
    for (int ti = 0; ti < 3; ti++)
        for (int f = 0; f < 7; f++) {
            int block, warps;
            pick_shape(k++, &block, &warps);
            Case *c = add_case("std.tile", "math_fn", setup_std, check_std, "std/math/%s/%s/b%d/w%d", FNAME[f],
                               tname(FT[ti]), block, warps);
            c->p[0] = S_MATH;
            c->p[1] = f;
            c->p[2] = block;
            c->dt[0] = FT[ti];
            case_define(c, "T=%s FN=%d BLOCK=%d num_warps=%d", tname(FT[ti]), f, block, warps);
        }
    static const int shapes[][3] = {{16, 64, 4}, {32, 32, 2}, {8, 256, 8}, {64, 16, 1}};
    for (int ti = 0; ti < 3; ti++)
        for (int red = 0; red < 2; red++)
            for (int axis = 0; axis < 2; axis++) {
                const int *s = shapes[(k++) % 4];
                Case *c = add_case("std.tile", "reduce_fn", setup_std, check_std, "std/%s/%s/axis%d/%dx%d/w%d",
                                   red ? "logsumexp" : "softmax", tname(FT[ti]), axis, s[0], s[1], s[2]);
                c->p[0] = S_REDUCE;
                c->p[1] = red;
                c->p[2] = s[0];
                c->p[3] = s[1];
                c->p[4] = axis;
                c->dt[0] = FT[ti];
                c->dt[1] = RK_F32;
                case_define(c, "T=%s U=f32 RED=%d AXIS=%d R=%d C=%d num_warps=%d", tname(FT[ti]), red, axis, s[0], s[1],
                            s[2]);
            }
    /* rows x N, warps: the last is the emulator's speed target */
    static const int rows[][3] = {{4, 1024, 1}, {8, 2048, 8}, {64, 4096, 4}};
    for (int i = 0; i < 3; i++) {
        Case *c = add_case("std.tile", "softmax_row", setup_std, check_std, "std/softmax_row/%dx%d/w%d", rows[i][0],
                           rows[i][1], rows[i][2]);
        c->p[0] = S_SOFTMAX_ROW;
        c->p[1] = rows[i][0];
        c->p[2] = rows[i][1];
        case_define(c, "N=%d num_warps=%d", rows[i][1], rows[i][2]);
    }
    /* BLOCK (the longest row), warps */
    static const int ln[][2] = {{512, 4}, {1024, 8}, {128, 1}, {2048, 4}};
    for (int ti = 0; ti < 3; ti++)
        for (int i = 0; i < 4; i++) {
            if ((i + ti) % 2) /* half of them: each type, each shape */
                continue;
            Case *c = add_case("std.tile", "layernorm", setup_std, check_std, "std/layernorm/%s/b%d/w%d",
                               tname(FT[ti]), ln[i][0], ln[i][1]);
            c->p[0] = S_LAYERNORM;
            c->p[1] = ln[i][0];
            c->dt[0] = FT[ti];
            case_define(c, "T=%s BLOCK=%d num_warps=%d", tname(FT[ti]), ln[i][0], ln[i][1]);
        }
    for (int w = 1; w <= 8; w *= 2) {
        Case *c = add_case("std.tile", "pids", setup_std, check_std, "std/pid/w%d", w);
        c->p[0] = S_PIDS;
        case_define(c, "num_warps=%d", w);
    }
}
