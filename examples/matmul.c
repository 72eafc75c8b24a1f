/* matmul: C = A × B for A[M, K], B[K, N], C[M, N] row-major in bf16 or f16, with matmul.tile.
 *
 *     ex_matmul [M=..] [N=..] [K=..] [dtype=bf16|f16] [tune=0] [reps=N] [full=1]
 *
 * Tunes the tile sizes, warps, pipeline stages, MFMA shape and waves_per_eu over the kernel's
 * @autotune space with rk_autotune, times the winner, and checks C against a double-precision product
 * of the same (rounded) inputs. Without sizes, M = N = K = 4096 on a GPU and 256 on the emulator. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

int main(int argc, char **argv)
{
    ex e;
    ex_init(&e, "matmul", "ex_matmul [M=..] [N=..] [K=..] [dtype=bf16|f16]", argc, argv);
    /* Default sizes by device: seconds on the emulator (about 10^4 times slower than a GPU). */
    long def = ex_on_host(&e) ? 256 : 4096, full = ex_on_host(&e) ? 512 : 8192;
    long M = ex_int(&e, "M", def, full), N = ex_int(&e, "N", def, full), K = ex_int(&e, "K", def, full);
    rk_dtype t = ex_dtype(&e, ex_str(&e, "dtype", "bf16"));
    ex_args_done(&e);
    if (t == RK_F32)
        ex_die(&e, "dtype=f32: the matmul example takes bf16 or f16");
    if (M <= 0 || N <= 0 || K <= 0 || N % 8 || K % 8)
        ex_die(&e, "M=%ld N=%ld K=%ld: sizes must be positive, N and K multiples of 8 (the kernel's 128-bit "
                   "loads rely on it)", M, N, K);

    double *a = ex_random(&e, (size_t)(M * K), t, -1, 1), *b = ex_random(&e, (size_t)(K * N), t, -1, 1);
    void *da = ex_upload(&e, a, (size_t)(M * K), t), *db = ex_upload(&e, b, (size_t)(K * N), t);
    void *dc = ex_alloc_zero(&e, (size_t)(M * N), t);
    rk_arg args[] = {rk_arg_ptr(da), rk_arg_ptr(db), rk_arg_ptr(dc), rk_arg_i32((int32_t)M), rk_arg_i32((int32_t)N),
                     rk_arg_i32((int32_t)K), rk_arg_i32((int32_t)K), rk_arg_i32((int32_t)N), rk_arg_i32((int32_t)N)};
    ex_launch l = {.args = args, .nargs = 9};

    ex_config base = {.n = 0}, chosen;
    ex_def_str(&base, "T", rk_dtype_name(t));
    ex_tune(&e, "matmul.tile", "matmul", &base, &l, &chosen);

    ex_run(&e, &l, "matmul");
    double *c = ex_download(&e, dc, (size_t)(M * N), t);
    double ms = ex_time(&e, &l);

    /* The reference: every row of small products; of large ones, rows evenly spread (and the last)
     * adding up to about 1e8 multiply-adds, a fraction of a second. */
    long step = (long)ceil((double)M * N * K / 1e8), nrows = 0;
    double *ref = ex_zeros((size_t)N), *out = ex_zeros((size_t)((M / step + 2) * N)),
           *refs = ex_zeros((size_t)((M / step + 2) * N));
    for (long i = 0; i < M; i++) {
        if (i % step != 0 && i != M - 1)
            continue;
        memset(ref, 0, (size_t)N * sizeof *ref);
        for (long k = 0; k < K; k++) {
            double aik = a[i * K + k];
            const double *brow = b + k * N;
            for (long j = 0; j < N; j++)
                ref[j] += aik * brow[j];
        }
        memcpy(refs + nrows * N, ref, (size_t)N * sizeof *ref);
        memcpy(out + nrows * N, c + i * N, (size_t)N * sizeof *ref);
        nrows++;
    }
    double err = ex_max_rel_err(out, refs, (size_t)(nrows * N));

    char what[192];
    snprintf(what, sizeof what, "matmul %s M=%ld N=%ld K=%ld (BLOCK_M=%s BLOCK_N=%s BLOCK_K=%s)", rk_dtype_name(t), M,
             N, K, ex_config_get(&chosen, "BLOCK_M"), ex_config_get(&chosen, "BLOCK_N"),
             ex_config_get(&chosen, "BLOCK_K"));
    bool ok = ex_report(&e, what, ms, 2.0 * M * N * K, 0, err, ex_tol(t));
    free(a), free(b), free(c), free(ref), free(out), free(refs);
    return ex_finish(&e, ok);
}
