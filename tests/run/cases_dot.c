/* dot: f16, bf16, f32 (ieee and tf32) and i8, through a tiled matmul whose M, N and K are not
 * multiples of the blocks, with 1 to 8 warps, 1 to 3 pipeline stages, 16x16 and 32x32 MFMA
 * instructions and shapes that fall back to FMAs (M = 16 with 8 warps, ...); with and without an
 * initial accumulator; a chain of two dots; a dot of a transposed operand.
 *
 * f64 dots are v_mfma_f64_16x16x4_f64 (matrix_instr_nonkdim 32 too; 128x64x64's operands, 96 KiB, do
 * not wait in LDS together: A moves into registers); i8 dots with K = 16 (below the 32 of
 * v_mfma_i32_16x16x32_i8) are FMAs. References in double. Floats are checked within sum|a*b| * max(8, K / 4) * 2^-24 (f32 accumulation
 * in any order), tf32 within sum|a*b| * 2^-9 (each operand loses up to 2^-11 relative, however the
 * device rounds it); i8 exactly (i32 accumulation). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/run/cases.h"

enum { D_MATMUL, D_CHAIN, D_BT, D_EPI, D_ATTN, D_MULTI };

static rk_dtype acc_type(rk_dtype t)
{
    return t == RK_I8 ? RK_I32 : t == RK_F64 ? RK_F64 : RK_F32;
}

static Gen dot_gen(rk_dtype t)
{
    return t == RK_I8 ? UNI(-128, 127) : UNI(-1, 1);
}

/* p: [0] kind, [1] BM, [2] BN, [3] BK, [4] TF32, [5] ACC; for chain and bt: [1..4] M N K P */
static void setup_dot(Run *r)
{
    const Case *c = r->c;
    rk_dtype t = c->dt[0], u = acc_type(t);
    Rng *R = &r->rng;
    if (c->p[0] == D_MATMUL) {
        int bm = c->p[1], bn = c->p[2], bk = c->p[3];
        int M = (int)rng_range(R, 1, 2 * bm + bm / 2), N = (int)rng_range(R, 1, 2 * bn + bn / 2);
        int K = (int)rng_range(R, 1, 3 * bk);
        if (rng_range(R, 0, 2) == 0) { /* whole blocks sometimes */
            M = bm * (int)rng_range(R, 1, 2);
            N = bn * (int)rng_range(R, 1, 2);
            K = bk * (int)rng_range(R, 1, 3);
        }
        if (c->p[6]) { /* matmul_aligned: N and K multiples of 8 */
            N = (N + 7) / 8 * 8;
            K = (K + 7) / 8 * 8;
        }
        in_buf(r, "a", t, (size_t)(M * K), dot_gen(t));
        in_buf(r, "b", t, (size_t)(K * N), dot_gen(t));
        HBuf *o = c->p[5] ? in_buf(r, "c", u, (size_t)(M * N), t == RK_I8 ? UNI(-1000, 1000) : UNI(-4, 4))
                          : out_buf(r, "c", u, (size_t)(M * N));
        o->cols = N;
        arg(r, rk_arg_i32(M));
        arg(r, rk_arg_i32(N));
        arg(r, rk_arg_i32(K));
        int v[3] = {M, N, K};
        memcpy(r->scratch, v, sizeof v);
        return;
    }
    if (c->p[0] == D_EPI) {
        int M = c->p[1], N = c->p[2], K = c->p[3];
        in_buf(r, "a", t, (size_t)(M * K), dot_gen(t));
        in_buf(r, "b", t, (size_t)(K * N), t == RK_I8 ? UNI(-8, 8) : dot_gen(t));
        in_buf(r, "bias", RK_F32, (size_t)N, UNI(-2, 2));
        in_buf(r, "scale", RK_F32, (size_t)M, UNI(-2, 2));
        out_buf(r, "out", RK_F32, (size_t)(M * N))->cols = N;
        out_buf(r, "outt", t, (size_t)(M * N))->cols = N;
        out_buf(r, "rsum", RK_F32, (size_t)M);
        out_buf(r, "cmax", RK_F32, (size_t)N);
        out_buf(r, "amax", RK_I32, (size_t)M);
        out_buf(r, "csum", RK_F32, (size_t)(M * N))->cols = N;
        set_grid(r, 1, 1, 1);
        return;
    }
    if (c->p[0] == D_MULTI) {
        int M = c->p[1], K = c->p[2], iters = (int)rng_range(R, 1, 3);
        in_buf(r, "a", t, (size_t)(iters * M * K), UNI(-1, 1));
        out_buf(r, "out", RK_F32, (size_t)(M * M))->cols = M;
        arg(r, rk_arg_i32(iters));
        set_grid(r, 1, 1, 1);
        return;
    }
    if (c->p[0] == D_ATTN) {
        int BM = c->p[1], BN = c->p[2], D = c->p[3], L = (int)rng_range(R, 1, 3 * BN);
        in_buf(r, "q", t, (size_t)(BM * D), UNI(-1, 1));
        in_buf(r, "k", t, (size_t)(L * D), UNI(-1, 1));
        in_buf(r, "v", t, (size_t)(L * D), UNI(-1, 1));
        out_buf(r, "out", RK_F32, (size_t)(BM * D))->cols = D;
        arg(r, rk_arg_i32(L));
        arg(r, rk_arg_f32(0.125f));
        set_grid(r, 1, 1, 1);
        return;
    }
    int M = c->p[1], N = c->p[2], K = c->p[3], P = c->p[4];
    in_buf(r, "a", t, (size_t)(M * K), dot_gen(t));
    if (c->p[0] == D_CHAIN) {
        in_buf(r, "b", t, (size_t)(K * N), t == RK_I8 ? UNI(-2, 2) : dot_gen(t));
        in_buf(r, "d", t, (size_t)(N * P), dot_gen(t));
        out_buf(r, "out", u, (size_t)(M * P))->cols = P;
    } else {
        in_buf(r, "bt", t, (size_t)(N * K), dot_gen(t));
        out_buf(r, "out", u, (size_t)(M * N))->cols = N;
        out_buf(r, "outt", u, (size_t)(M * N))->cols = M;
    }
    set_grid(r, 1, 1, 1);
}

/* out[m][n] = init + sum_k a[m*sa_m + k*sa_k] * b[k*sb_k + n*sb_n]; its tolerance into tol. */
static void dot_elem(rk_dtype t, const void *a, size_t am, size_t ak, const void *b, size_t bk, size_t bn, int K,
                     double init, bool tf32, double *val, double *tol, int64_t *ival)
{
    double s = init, mag = 0;
    int64_t is = 0;
    for (int k = 0; k < K; k++) {
        if (t == RK_I8) {
            is += iget(t, a, am + (size_t)k * ak) * iget(t, b, (size_t)k * bk + bn);
            continue;
        }
        double p = fget(t, a, am + (size_t)k * ak) * fget(t, b, (size_t)k * bk + bn);
        s += p;
        mag += fabs(p);
    }
    *val = s;
    *ival = is;
    *tol = mag * (tf32 ? 0x1p-9 : fmax(8, K / 4.0) * 0x1p-24) + fabs(init) * 0x1p-23 + fabs(s) * 0x1p-23;
}

/* The epilogue: w = keep ? (dot + bias[n]) * scale[m] : 0, and what is computed from it. Each value
 * carries a tolerance from the product's; an argmax may pick any element within twice its tolerance
 * of the maximum. */
static void check_epilogue(Run *r)
{
    const Case *c = r->c;
    rk_dtype t = c->dt[0];
    int M = c->p[1], N = c->p[2], K = c->p[3];
    HBuf *a = &r->bufs[0], *b = &r->bufs[1], *bias = &r->bufs[2], *scale = &r->bufs[3];
    HBuf *out = &r->bufs[4], *outt = &r->bufs[5], *rsum = &r->bufs[6], *cmax = &r->bufs[7], *amax = &r->bufs[8],
         *csum = &r->bufs[9];
    size_t MN = (size_t)(M * N);
    double *w = run_alloc(r, MN * sizeof *w), *tw = run_alloc(r, MN * sizeof *tw);
    double *t_out = run_alloc(r, MN * sizeof(double)), *t_outt = run_alloc(r, MN * sizeof(double));
    double *t_rsum = run_alloc(r, (size_t)M * sizeof(double)), *t_cmax = run_alloc(r, (size_t)N * sizeof(double));
    double *t_csum = run_alloc(r, MN * sizeof(double));
    int p = t == RK_F16 ? 11 : t == RK_BF16 ? 8 : 24;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double val, tl;
            int64_t ival;
            dot_elem(t, a->host, (size_t)(m * K), 1, b->host, (size_t)N, (size_t)n, K, 0, false, &val, &tl, &ival);
            if (t == RK_I8) {
                val = (double)ival;
                tl = 0;
            }
            double bs = val + fget(RK_F32, bias->host, (size_t)n), sc = fget(RK_F32, scale->host, (size_t)m);
            double e = bs * sc, te = (tl + fabs(bs) * 0x1p-24) * fabs(sc) + fabs(e) * 0x1p-24;
            bool keep = (m + n) % 3 != 0;
            size_t i = (size_t)(m * N + n);
            w[i] = keep ? e : 0;
            tw[i] = keep ? te : 0;
            ref_f(out, i, w[i]);
            t_out[i] = tw[i];
            if (t == RK_I8) /* as i8: truncated and saturated */
                ref_i(outt, i, (int64_t)fmax(-128, fmin(127, trunc(w[i]))));
            else
                ref_f(outt, i, w[i]);
            t_outt[i] = tw[i] + fabs(w[i]) * ldexp(1, 1 - p) + (t == RK_I8 ? 1 : 0);
        }
    for (int m = 0; m < M; m++) {
        double s = 0, sa = 0, st = 0, best = -INFINITY;
        int bi = 0;
        for (int n = 0; n < N; n++) {
            size_t i = (size_t)(m * N + n);
            s += w[i];
            sa += fabs(w[i]);
            st += tw[i];
            ref_f(csum, i, s);
            t_csum[i] = st + sa * fmax(8, n / 4.0) * 0x1p-24;
            if (w[i] > best)
                best = w[i], bi = n;
        }
        ref_f(rsum, (size_t)m, s);
        t_rsum[m] = st + sa * fmax(8, N / 4.0) * 0x1p-24;
        /* argmax: any index within twice the tolerances of the best */
        if (launched_ok(r))
            for (int d = 0; d < NDEV; d++) {
                int64_t j = iget(RK_I32, amax->got[d], (size_t)m);
                size_t i = (size_t)(m * N) + (size_t)j;
                if (j < 0 || j >= N || w[i] < best - 2 * (tw[i] + tw[(size_t)(m * N + bi)]) - 1e-30)
                    failf(r, "  %s: argmax of row %d is %lld (%g), the maximum is %g at %d", d ? "emu" : "interp", m,
                          (long long)j, j >= 0 && j < N ? w[i] : NAN, best, bi);
            }
    }
    for (int n = 0; n < N; n++) {
        double best = -INFINITY, tb = 0;
        for (int m = 0; m < M; m++) {
            size_t i = (size_t)(m * N + n);
            if (w[i] > best)
                best = w[i];
            tb = fmax(tb, tw[i]);
        }
        ref_f(cmax, (size_t)n, best);
        t_cmax[n] = tb;
    }
    Tol tl = ABSREL(0, 0);
    tl.per = t_out;
    expect_buf(r, out, tl);
    tl.per = t_outt;
    expect_buf(r, outt, t == RK_I8 ? ABSREL(1, 0) : tl);
    tl.per = t_rsum;
    expect_buf(r, rsum, tl);
    tl.per = t_cmax;
    expect_buf(r, cmax, tl);
    tl.per = t_csum;
    expect_buf(r, csum, tl);
}

/* Attention in double from the rounded inputs; p is rounded to T before its dot with v, so the
 * tolerance is that rounding's (relative to the largest |v|) and f32's in the rest. */
static void check_attention(Run *r)
{
    const Case *c = r->c;
    rk_dtype t = c->dt[0];
    int BM = c->p[1], D = c->p[3], L = (int)r->args[4].v.i;
    double scale = r->args[5].v.f;
    HBuf *q = &r->bufs[0], *k = &r->bufs[1], *v = &r->bufs[2], *o = &r->bufs[3];
    double *s = run_alloc(r, (size_t)L * sizeof *s), *tol = run_alloc(r, o->n * sizeof *tol);
    double vmax = 0;
    for (size_t i = 0; i < v->n; i++)
        vmax = fmax(vmax, fabs(fget(t, v->host, i)));
    double e = t == RK_F16 ? 0x1p-9 : t == RK_BF16 ? 0x1p-6 : 0x1p-18;
    for (int m = 0; m < BM; m++) {
        double mx = -INFINITY, l = 0;
        for (int j = 0; j < L; j++) {
            double x = 0;
            for (int d = 0; d < D; d++)
                x += fget(t, q->host, (size_t)(m * D + d)) * fget(t, k->host, (size_t)(j * D + d));
            s[j] = x * scale;
            mx = fmax(mx, s[j]);
        }
        for (int j = 0; j < L; j++)
            l += exp(s[j] - mx);
        for (int d = 0; d < D; d++) {
            double acc = 0;
            for (int j = 0; j < L; j++)
                acc += exp(s[j] - mx) * fget(t, v->host, (size_t)(j * D + d));
            size_t i = (size_t)(m * D + d);
            ref_f(o, i, acc / l);
            tol[i] = vmax * e + 1e-5;
        }
    }
    Tol tl = ABSREL(0, 0);
    tl.per = tol;
    expect_buf(r, o, tl);
}

static void check_dot(Run *r)
{
    const Case *c = r->c;
    rk_dtype t = c->dt[0];
    if (c->p[0] == D_MATMUL) {
        int v[3];
        memcpy(v, r->scratch, sizeof v);
        int M = v[0], N = v[1], K = v[2];
        HBuf *a = &r->bufs[0], *b = &r->bufs[1], *o = &r->bufs[2];
        double *tol = run_alloc(r, o->n * sizeof *tol);
        for (int m = 0; m < M; m++)
            for (int n = 0; n < N; n++) {
                size_t i = (size_t)(m * N + n);
                double init = 0, val, tl;
                int64_t ival, iinit = 0;
                if (c->p[5]) {
                    init = fget(o->dt, o->host, i);
                    iinit = iget(o->dt, o->host, i);
                }
                dot_elem(t, a->host, (size_t)(m * K), 1, b->host, (size_t)N, (size_t)n, K, init, c->p[4], &val, &tl,
                         &ival);
                tol[i] = tl;
                if (t == RK_I8)
                    ref_i(o, i, iwrap(RK_I32, ival + iinit));
                else
                    ref_f(o, i, val);
            }
        Tol tt = t == RK_I8 ? EXACT : ABSREL(0, 0);
        tt.per = tol;
        expect_buf(r, o, tt);
        return;
    }
    if (c->p[0] == D_EPI) {
        check_epilogue(r);
        return;
    }
    if (c->p[0] == D_ATTN) {
        check_attention(r);
        return;
    }
    if (c->p[0] == D_MULTI) {
        int M = c->p[1], K = c->p[2], iters = (int)r->args[2].v.i;
        HBuf *a = &r->bufs[0], *o = &r->bufs[1];
        double *tol = run_alloc(r, o->n * sizeof *tol);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < M; j++) {
                double acc = 0, mag = 0, rows = 0, rmag = 0, cols = -INFINITY;
                for (int k = 0; k < iters; k++) {
                    size_t b = (size_t)(k * M * K);
                    double rmax = -INFINITY;
                    for (int q = 0; q < K; q++) {
                        double x = fget(t, a->host, b + (size_t)(i * K + q)), y = fget(t, a->host, b + (size_t)(j * K + q));
                        acc += x * y;
                        mag += fabs(x * y);
                        rows += x;
                        rmag += fabs(x);
                        rmax = fmax(rmax, y);
                    }
                    cols = fmax(cols, rmax);
                }
                double v = acc + rows + cols;
                size_t e = (size_t)(i * M + j);
                ref_f(o, e, v);
                tol[e] = (mag + rmag) * fmax(8, K * iters / 4.0) * 0x1p-24 + fabs(v) * 0x1p-22;
            }
        Tol tl = ABSREL(0, 0);
        tl.per = tol;
        expect_buf(r, o, tl);
        return;
    }
    int M = c->p[1], N = c->p[2], K = c->p[3], P = c->p[4];
    HBuf *a = &r->bufs[0], *b = &r->bufs[1];
    if (c->p[0] == D_CHAIN) {
        HBuf *d = &r->bufs[2], *o = &r->bufs[3];
        double *tol = run_alloc(r, o->n * sizeof *tol);
        double *tv = run_alloc(r, (size_t)(M * N) * sizeof *tv), *tt = run_alloc(r, (size_t)(M * N) * sizeof *tt);
        /* t = dot(a, b) as T: the rounding to T may go either way on each device, by its own error */
        for (int m = 0; m < M; m++)
            for (int n = 0; n < N; n++) {
                double val, tl;
                int64_t ival;
                dot_elem(t, a->host, (size_t)(m * K), 1, b->host, (size_t)N, (size_t)n, K, 0, false, &val, &tl, &ival);
                tv[m * N + n] = t == RK_I8 ? (double)iwrap(RK_I8, ival) : rnd(t, val);
                int p = t == RK_F16 ? 11 : t == RK_BF16 ? 8 : 24;
                tt[m * N + n] = t == RK_I8 ? 0 : tl + fabs(val) * ldexp(1, 1 - p);
            }
        for (int m = 0; m < M; m++)
            for (int q = 0; q < P; q++) {
                double s = 0, mag = 0, err = 0;
                int64_t is = 0;
                for (int n = 0; n < N; n++) {
                    double z = t == RK_I8 ? (double)iget(t, d->host, (size_t)(n * P + q)) : fget(t, d->host, (size_t)(n * P + q));
                    s += tv[m * N + n] * z;
                    mag += fabs(tv[m * N + n] * z);
                    err += tt[m * N + n] * fabs(z);
                    is += (int64_t)tv[m * N + n] * (int64_t)z;
                }
                size_t i = (size_t)(m * P + q);
                tol[i] = err + mag * fmax(8, N / 4.0) * 0x1p-24;
                if (t == RK_I8)
                    ref_i(o, i, iwrap(RK_I32, is));
                else
                    ref_f(o, i, s);
            }
        Tol tl = t == RK_I8 ? EXACT : ABSREL(0, 0);
        tl.per = tol;
        expect_buf(r, o, tl);
        return;
    }
    HBuf *o = &r->bufs[2], *ot = &r->bufs[3];
    double *tol = run_alloc(r, o->n * sizeof *tol), *tolt = run_alloc(r, o->n * sizeof *tolt);
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double val, tl;
            int64_t ival;
            dot_elem(t, a->host, (size_t)(m * K), 1, b->host, 1, (size_t)(n * K), K, 0, false, &val, &tl, &ival);
            size_t i = (size_t)(m * N + n), j = (size_t)(n * M + m);
            tol[i] = tolt[j] = tl;
            if (t == RK_I8) {
                ref_i(o, i, iwrap(RK_I32, ival));
                ref_i(ot, j, iwrap(RK_I32, ival));
            } else {
                ref_f(o, i, val);
                ref_f(ot, j, val);
            }
        }
    Tol t1 = t == RK_I8 ? EXACT : ABSREL(0, 0), t2 = t1;
    t1.per = tol;
    t2.per = tolt;
    expect_buf(r, o, t1);
    expect_buf(r, ot, t2);
}

void gen_dot(void)
{
    /* BM BN BK warps stages nonkdim */
    static const int mm[][6] = {
        {64, 64, 32, 4, 2, 16}, {128, 128, 32, 8, 2, 16}, {32, 32, 16, 1, 1, 16}, {16, 16, 16, 1, 1, 16},
        {64, 32, 64, 2, 3, 16}, {16, 64, 32, 8, 2, 16},   {128, 64, 64, 4, 3, 16}, {64, 64, 16, 4, 2, 32},
        {32, 32, 32, 1, 2, 32}, {32, 64, 32, 8, 1, 16},   {16, 32, 16, 8, 2, 16},  {64, 16, 32, 2, 1, 16},
        {128, 128, 32, 16, 2, 16}, {64, 64, 64, 16, 3, 32},
        {32, 64, 256, 8, 2, 32}, /* k steps 8 apart read in pairs (lower_dot.c, k_pair_distance) */
        {64, 32, 64, 4, 2, 32},  /* B's LDS rows spread over every other chunk (operand_map's xl = 1) */
    };
    enum { NMM = sizeof mm / sizeof mm[0] };
    static const rk_dtype DT[] = {RK_F16, RK_BF16, RK_F32, RK_I8, RK_F64};
    for (int ti = 0; ti < 5; ti++) {
        rk_dtype t = DT[ti];
        for (int tf = 0; tf < (t == RK_F32 ? 2 : 1); tf++)
            for (int s = 0; s < NMM; s++) {
                const int *q = mm[s];
                if (t == RK_F32 && (s + tf) % 2) /* f32: half the shapes for ieee, the other half for tf32 */
                    continue;
                if (t == RK_F64 && s % 3 == 2) /* f64: two thirds of them */
                    continue;
                bool acc = (s + ti) % 3 == 0;
                Case *c = add_case("dot.tile", "matmul", setup_dot, check_dot, "dot/matmul/%s%s/%dx%dx%d/w%d/s%d/i%d%s",
                                   tname(t), tf ? "-tf32" : "", q[0], q[1], q[2], q[3], q[4], q[5], acc ? "/acc" : "");
                c->p[0] = D_MATMUL;
                c->p[1] = q[0];
                c->p[2] = q[1];
                c->p[3] = q[2];
                c->p[4] = tf;
                c->p[5] = acc;
                c->dt[0] = t;
                case_define(c, "T=%s R=%s BM=%d BN=%d BK=%d TF32=%s ACC=%s num_warps=%d num_stages=%d "
                               "matrix_instr_nonkdim=%d",
                            tname(t), tname(acc_type(t)), q[0], q[1], q[2], tf ? "true" : "false", acc ? "true" : "false",
                            q[3], q[4], q[5]);
            }
        /* every num_stages with 4 and 8 warps (the cp.async rings of sm_90: 1, 2 and 3 buffers) */
        static const int st[][4] = {{64, 64, 32, 4}, {128, 64, 32, 8}};
        for (int s = 0; s < 6 && (t == RK_F16 || t == RK_BF16); s++) {
            const int *q = st[s / 3];
            int stages = s % 3 + 1;
            Case *c = add_case("dot.tile", "matmul", setup_dot, check_dot, "dot/matmul/%s/%dx%dx%d/w%d/s%d/stages",
                               tname(t), q[0], q[1], q[2], q[3], stages);
            c->p[0] = D_MATMUL;
            c->p[1] = q[0];
            c->p[2] = q[1];
            c->p[3] = q[2];
            c->p[5] = s % 2;
            c->dt[0] = t;
            case_define(c, "T=%s R=f32 BM=%d BN=%d BK=%d ACC=%s num_warps=%d num_stages=%d", tname(t), q[0], q[1], q[2],
                        s % 2 ? "true" : "false", q[3], stages);
        }
        /* matmul_aligned: N and K multiples of 8, so the pipelined loads go through cp.async and, on
         * sm_90, the dot is a wgmma reading shared memory: every swizzle (lines of 32, 64, 128 and
         * 256 bytes), 1 and 2 warpgroups, 1 to 4 instruction tiles, N up to 256 */
        static const int wg[][5] = {{64, 64, 32, 4, 2},   {128, 128, 64, 4, 3}, {64, 32, 16, 4, 2},
                                    {128, 16, 64, 8, 3},  {128, 256, 32, 8, 2}, {128, 64, 128, 4, 2},
                                    {64, 128, 32, 4, 1}};
        for (int s = 0; s < 7 && (t == RK_F16 || t == RK_BF16); s++) {
            const int *q = wg[s];
            bool acc = s % 2 == 1;
            Case *c = add_case("dot.tile", "matmul_aligned", setup_dot, check_dot,
                               "dot/matmul/%s/aligned/%dx%dx%d/w%d/s%d%s", tname(t), q[0], q[1], q[2], q[3], q[4],
                               acc ? "/acc" : "");
            c->p[0] = D_MATMUL;
            c->p[1] = q[0];
            c->p[2] = q[1];
            c->p[3] = q[2];
            c->p[5] = acc;
            c->p[6] = 1;
            c->dt[0] = t;
            case_define(c, "T=%s R=f32 BM=%d BN=%d BK=%d ACC=%s num_warps=%d num_stages=%d", tname(t), q[0], q[1], q[2],
                        acc ? "true" : "false", q[3], q[4]);
        }
        static const int mu[][3] = {{32, 32, 4}, {64, 16, 8}, {16, 64, 1}};
        for (int s = 0; s < 3 && t != RK_F64 && t != RK_I8; s++) {
            Case *c = add_case("dot.tile", "multi_use", setup_dot, check_dot, "dot/multi_use/%s/%dx%d/w%d", tname(t),
                               mu[s][0], mu[s][1], mu[s][2]);
            c->p[0] = D_MULTI;
            c->p[1] = mu[s][0];
            c->p[2] = mu[s][1];
            c->dt[0] = t;
            case_define(c, "T=%s M=%d K=%d num_warps=%d", tname(t), mu[s][0], mu[s][1], mu[s][2]);
        }
        /* kpack = 2: operands read 2 k-steps per lane */
        for (int s = 0; s < 2 && t != RK_F64; s++) {
            const int *q = mm[s == 0 ? 0 : 6];
            Case *c = add_case("dot.tile", "matmul", setup_dot, check_dot, "dot/matmul/%s/%dx%dx%d/w%d/s%d/kpack2", tname(t),
                               q[0], q[1], q[2], q[3], q[4]);
            c->p[0] = D_MATMUL;
            c->p[1] = q[0];
            c->p[2] = q[1];
            c->p[3] = q[2];
            c->dt[0] = t;
            case_define(c, "T=%s R=%s BM=%d BN=%d BK=%d num_warps=%d num_stages=%d kpack=2", tname(t),
                        tname(acc_type(t)), q[0], q[1], q[2], q[3], q[4]);
        }
        /* M N K P warps */
        static const int ch[][5] = {{64, 32, 32, 64, 4}, {32, 32, 16, 32, 1}, {16, 64, 32, 16, 8}, {128, 64, 32, 32, 8}};
        for (int s = 0; s < 4; s++) {
            const int *q = ch[s];
            Case *c = add_case("dot.tile", "dot_chain", setup_dot, check_dot, "dot/chain/%s/%dx%dx%dx%d/w%d", tname(t),
                               q[0], q[1], q[2], q[3], q[4]);
            c->p[0] = D_CHAIN;
            for (int i = 0; i < 4; i++)
                c->p[1 + i] = q[i];
            c->dt[0] = t;
            case_define(c, "T=%s R=%s M=%d N=%d K=%d P=%d num_warps=%d", tname(t), tname(acc_type(t)), q[0], q[1], q[2],
                        q[3], q[4]);
        }
        static const int ep[][4] = {{64, 64, 32, 4}, {32, 64, 16, 2}, {16, 16, 32, 1}, {128, 32, 32, 8}, {16, 128, 16, 8}};
        for (int s = 0; s < 5; s++) {
            const int *q = ep[s];
            if (t == RK_F64)
                break;
            Case *c = add_case("dot.tile", "dot_epilogue", setup_dot, check_dot, "dot/epilogue/%s/%dx%dx%d/w%d",
                               tname(t), q[0], q[1], q[2], q[3]);
            c->p[0] = D_EPI;
            for (int i = 0; i < 3; i++)
                c->p[1 + i] = q[i];
            c->dt[0] = t;
            case_define(c, "T=%s M=%d N=%d K=%d num_warps=%d", tname(t), q[0], q[1], q[2], q[3]);
        }
        /* BM BN D warps */
        static const int at[][4] = {{64, 32, 64, 4}, {32, 16, 32, 1}, {16, 64, 64, 8}, {128, 64, 32, 8}};
        for (int s = 0; s < 4 && (t == RK_F16 || t == RK_BF16); s++) {
            const int *q = at[s];
            Case *c = add_case("dot.tile", "attention", setup_dot, check_dot, "dot/attention/%s/%dx%dx%d/w%d", tname(t),
                               q[0], q[1], q[2], q[3]);
            c->p[0] = D_ATTN;
            for (int i = 0; i < 3; i++)
                c->p[1 + i] = q[i];
            c->dt[0] = t;
            case_define(c, "T=%s BM=%d BN=%d D=%d num_warps=%d", tname(t), q[0], q[1], q[2], q[3]);
        }
        static const int bt[][4] = {{64, 64, 32, 4}, {32, 16, 64, 2}, {16, 16, 16, 1}, {128, 32, 32, 8}};
        for (int s = 0; s < 4; s++) {
            const int *q = bt[s];
            Case *c = add_case("dot.tile", "dot_bt", setup_dot, check_dot, "dot/bt/%s/%dx%dx%d/w%d", tname(t), q[0], q[1],
                               q[2], q[3]);
            c->p[0] = D_BT;
            for (int i = 0; i < 3; i++)
                c->p[1 + i] = q[i];
            c->dt[0] = t;
            case_define(c, "T=%s R=%s M=%d N=%d K=%d num_warps=%d", tname(t), tname(acc_type(t)), q[0], q[1], q[2], q[3]);
        }
    }
}
