/* split_k: C = A × B for skinny shapes (small M·N, long K) with split_k.tile, A and B in bf16 or f16,
 * C in f32 summed with atomics.
 *
 *     ex_split_k [M=..] [N=..] [K=..] [dtype=bf16|f16] [split=S] [tune=0] [reps=N] [full=1]
 *
 * Tunes the tile sizes and SPLIT_K (split=S fixes it, with BLOCK_M fitted to M; split=1 is
 * the plain one-tile-per-program matmul, for comparison) and prints the workgroup count of the
 * winner: a 16 × 4096 output in 16 × 64 tiles is 64 workgroups on a 304-CU MI300X; SPLIT_K = 16
 * makes it 1024. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

int main(int argc, char **argv)
{
    ex e;
    ex_init(&e, "split_k", "ex_split_k [M=..] [N=..] [K=..] [dtype=bf16|f16] [split=S]", argc, argv);
    bool host = ex_on_host(&e); /* sizes: small on the host devices, real on a GPU */
    long M = ex_int(&e, "M", host ? 24 : 16, 16), N = ex_int(&e, "N", host ? 256 : 4096, host ? 2048 : 8192);
    long K = ex_int(&e, "K", host ? 1024 : 8192, host ? 2048 : 16384);
    rk_dtype t = ex_dtype(&e, ex_str(&e, "dtype", "bf16"));
    long split = ex_int(&e, "split", 0, 0);
    ex_args_done(&e);
    if (t == RK_F32)
        ex_die(&e, "dtype=f32: the split-K example takes bf16 or f16");
    if (M <= 0 || N <= 0 || K <= 0 || N % 8 || K % 8 || split < 0)
        ex_die(&e, "M=%ld N=%ld K=%ld: sizes must be positive, N and K multiples of 8", M, N, K);

    double *a = ex_random(&e, (size_t)(M * K), t, -1, 1), *b = ex_random(&e, (size_t)(K * N), t, -1, 1);
    void *da = ex_upload(&e, a, (size_t)(M * K), t), *db = ex_upload(&e, b, (size_t)(K * N), t);
    void *dc = ex_alloc_zero(&e, (size_t)(M * N), RK_F32);
    rk_arg args[] = {rk_arg_ptr(da), rk_arg_ptr(db), rk_arg_ptr(dc), rk_arg_i32((int32_t)M), rk_arg_i32((int32_t)N),
                     rk_arg_i32((int32_t)K), rk_arg_i32((int32_t)K), rk_arg_i32((int32_t)N), rk_arg_i32((int32_t)N)};
    ex_launch l = {.args = args, .nargs = 9, .resets = {{dc, (size_t)(M * N) * 4}}, .nresets = 1};

    ex_config base = {.n = 0}, chosen;
    ex_def_str(&base, "T", rk_dtype_name(t));
    if (split) {
        /* A fixed split: no tuning (a config would override the defines); BLOCK_M fits M. */
        ex_def_int(&base, "SPLIT_K", split);
        ex_def_int(&base, "BLOCK_M", M <= 16 ? 16 : M <= 32 ? 32 : 64);
        ex_def_int(&base, "BLOCK_N", 64);
        e.tune = false;
    }
    ex_tune(&e, "split_k.tile", "matmul_split_k", &base, &l, &chosen);

    ex_run(&e, &l, "matmul_split_k");
    double *c = ex_download(&e, dc, (size_t)(M * N), RK_F32);
    double ms = ex_time(&e, &l);
    uint32_t grid[3];
    ex_check(&e, rk_kernel_grid(l.kernel, args, 9, grid), "rk_kernel_grid");

    double *ref = ex_zeros((size_t)(M * N));
    for (long i = 0; i < M; i++)
        for (long k = 0; k < K; k++) {
            double aik = a[i * K + k];
            for (long j = 0; j < N; j++)
                ref[i * N + j] += aik * b[k * N + j];
        }
    double err = ex_max_rel_err(c, ref, (size_t)(M * N));

    char what[192];
    snprintf(what, sizeof what, "split_k %s M=%ld N=%ld K=%ld (BLOCK_M=%s BLOCK_N=%s SPLIT_K=%s: %u workgroups)",
             rk_dtype_name(t), M, N, K, ex_config_get(&chosen, "BLOCK_M"), ex_config_get(&chosen, "BLOCK_N"),
             ex_config_get(&chosen, "SPLIT_K"), grid[0] * grid[1] * grid[2]);
    bool ok = ex_report(&e, what, ms, 2.0 * M * N * K, 0, err, ex_tol(RK_F32));
    free(a), free(b), free(c), free(ref);
    return ex_finish(&e, ok);
}
