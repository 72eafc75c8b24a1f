/* attention: flash-attention forward with attention.tile, O = softmax(Q Kᵀ / sqrt(D)) V.
 *
 *     ex_attention [Z=..] [H=..] [N_CTX=..] [D=64|128] [dtype=f16|bf16] [causal=0|1] [tune=0] [reps=N]
 *
 * Q, K, V, O are [Z, H, N_CTX, D] contiguous; the kernel accumulates in f32. The reference is the
 * attention of the same (rounded) inputs in double precision; for long contexts only some query rows
 * of each head are checked. FLOPs are counted as Triton's tutorial does: 4·Z·H·N_CTX²·D, halved when
 * causal. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

int main(int argc, char **argv)
{
    ex e;
    ex_init(&e, "attention",
            "ex_attention [Z=..] [H=..] [N_CTX=..] [D=64|128] [dtype=f16|bf16] [causal=0|1]", argc, argv);
    /* Sizes: small on the host devices (full=1: a minute or so on the emulator), real on a GPU. */
    bool host = ex_on_host(&e);
    long Z = ex_int(&e, "Z", host ? 1 : 4, host ? 1 : 8), H = ex_int(&e, "H", host ? 2 : 16, host ? 4 : 16);
    long N = ex_int(&e, "N_CTX", host ? 200 : 4096, host ? 512 : 8192);
    long D = ex_int(&e, "D", 64, 64);
    rk_dtype t = ex_dtype(&e, ex_str(&e, "dtype", "f16"));
    bool causal = ex_int(&e, "causal", 0, 0) != 0;
    ex_args_done(&e);
    if (t == RK_F32)
        ex_die(&e, "dtype=f32: the attention example takes f16 or bf16");
    if (D != 64 && D != 128)
        ex_die(&e, "D=%ld: head dims 64 and 128 only", D);
    if (Z <= 0 || H <= 0 || N <= 0 || Z * H * N * D > 0x7fffffffL)
        ex_die(&e, "Z=%ld H=%ld N_CTX=%ld: out of range", Z, H, N);

    size_t n = (size_t)(Z * H * N * D);
    double *q = ex_random(&e, n, t, -1, 1), *k = ex_random(&e, n, t, -1, 1), *v = ex_random(&e, n, t, -1, 1);
    void *dq = ex_upload(&e, q, n, t), *dk = ex_upload(&e, k, n, t), *dv = ex_upload(&e, v, n, t);
    void *dout = ex_alloc_zero(&e, n, t);
    float sm_scale = (float)(1.0 / sqrt((double)D));
    rk_arg args[] = {rk_arg_ptr(dq),      rk_arg_ptr(dk),          rk_arg_ptr(dv),          rk_arg_ptr(dout),
                     rk_arg_f32(sm_scale), rk_arg_i32((int32_t)Z), rk_arg_i32((int32_t)H), rk_arg_i32((int32_t)N)};
    ex_launch l = {.args = args, .nargs = 8};

    ex_config base = {.n = 0}, chosen;
    ex_def_str(&base, "T", rk_dtype_name(t));
    ex_def_int(&base, "HEAD_DIM", D);
    ex_def_str(&base, "CAUSAL", causal ? "true" : "false");
    ex_tune(&e, "attention.tile", "attention", &base, &l, &chosen);

    ex_run(&e, &l, "attention");
    double *out = ex_download(&e, dout, n, t);
    double ms = ex_time(&e, &l);

    /* The reference: every query row of short contexts, every 16th (and the last) of long ones. */
    long step = N * N * D * Z * H > (1L << 28) ? 16 : 1, nrows = 0;
    double *s = ex_zeros((size_t)N), *ref = ex_zeros(n), *got = ex_zeros(n);
    for (long zh = 0; zh < Z * H; zh++) {
        const double *qh = q + zh * N * D, *kh = k + zh * N * D, *vh = v + zh * N * D;
        for (long i = 0; i < N; i++) {
            if (i % step != 0 && i != N - 1)
                continue;
            long hi = causal ? i + 1 : N;
            double m = -INFINITY, sum = 0;
            for (long j = 0; j < hi; j++) {
                double dotp = 0;
                for (long d = 0; d < D; d++)
                    dotp += qh[i * D + d] * kh[j * D + d];
                s[j] = dotp * sm_scale;
                m = fmax(m, s[j]);
            }
            for (long j = 0; j < hi; j++)
                sum += (s[j] = exp(s[j] - m));
            double *r = ref + nrows * D;
            for (long j = 0; j < hi; j++)
                for (long d = 0; d < D; d++)
                    r[d] += s[j] / sum * vh[j * D + d];
            memcpy(got + nrows * D, out + (zh * N + i) * D, (size_t)D * sizeof *got);
            nrows++;
        }
    }
    double err = ex_max_rel_err(got, ref, (size_t)(nrows * D));

    char what[160];
    snprintf(what, sizeof what, "attention %s Z=%ld H=%ld N_CTX=%ld D=%ld %s (BLOCK_M=%s BLOCK_N=%s num_warps=%s)",
             rk_dtype_name(t), Z, H, N, D, causal ? "causal" : "non-causal", ex_config_get(&chosen, "BLOCK_M"),
             ex_config_get(&chosen, "BLOCK_N"), ex_config_get(&chosen, "num_warps"));
    double flops = 4.0 * (double)(Z * H) * (double)N * (double)N * (double)D * (causal ? 0.5 : 1.0);
    /* Twice the dtype's tolerance: P is rounded to T before the second dot (as in Triton's kernel),
     * a second rounding besides the output's; bf16's 8-bit mantissa shows it (f16's error is 8 times
     * smaller, as its 3 more bits predict). */
    bool ok = ex_report(&e, what, ms, flops, 0, err, 2 * ex_tol(t));
    free(q), free(k), free(v), free(out), free(s), free(ref), free(got);
    return ex_finish(&e, ok);
}
