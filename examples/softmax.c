/* softmax: y = softmax(x) along rows of x[rows, cols], with softmax.tile, in f32, f16 or bf16.
 *
 *     ex_softmax [rows=..] [cols=..] [dtype=f32|f16|bf16] [online=0|1] [tune=0] [reps=N] [full=1]
 *
 * A row of up to 8192 elements fits one tile: the kernel `softmax` with BLOCK the next power of two
 * (and more warps for longer rows, as Triton's tutorial does). Longer rows, or online=1, take
 * `softmax_online`, the running max-and-sum version, tuned over BLOCK and num_warps (its @autotune). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

enum { MAX_TILE = 8192 }; /* the longest row `softmax` holds in one tile */

int main(int argc, char **argv)
{
    ex e;
    ex_init(&e, "softmax", "ex_softmax [rows=..] [cols=..] [dtype=f32|f16|bf16] [online=0|1]", argc, argv);
    bool host = ex_on_host(&e); /* sizes: small on the host devices, real on a GPU */
    long rows = ex_int(&e, "rows", host ? 64 : 4096, host ? 1024 : 16384);
    long cols = ex_int(&e, "cols", host ? 1000 : 4096, host ? 4096 : 8192);
    rk_dtype t = ex_dtype(&e, ex_str(&e, "dtype", "f32"));
    bool online = ex_int(&e, "online", cols > MAX_TILE, cols > MAX_TILE) != 0;
    ex_args_done(&e);
    if (rows <= 0 || cols <= 0 || rows * cols > 0x7fffffffL)
        ex_die(&e, "rows=%ld cols=%ld: out of range", rows, cols);
    if (!online && cols > MAX_TILE)
        ex_die(&e, "cols=%ld: rows longer than %d need online=1", cols, MAX_TILE);

    size_t n = (size_t)(rows * cols);
    double *x = ex_random(&e, n, t, -4, 4);
    void *dx = ex_upload(&e, x, n, t), *dy = ex_alloc_zero(&e, n, t);
    rk_arg args[] = {rk_arg_ptr(dx), rk_arg_ptr(dy), rk_arg_i32((int32_t)rows), rk_arg_i32((int32_t)cols),
                     rk_arg_i32((int32_t)cols), rk_arg_i32((int32_t)cols)};
    ex_launch l = {.args = args, .nargs = 6};

    ex_config base = {.n = 0}, chosen;
    ex_def_str(&base, "T", rk_dtype_name(t));
    int align = 1;
    while (align < 16 && cols % (2 * align) == 0)
        align *= 2;
    ex_def_int(&base, "ALIGN", align);
    const char *kernel = online ? "softmax_online" : "softmax";
    if (!online) {
        /* One tile holds the row: BLOCK is its next power of two, and longer rows get more waves. */
        long block = 64;
        while (block < cols)
            block *= 2;
        ex_def_int(&base, "BLOCK", block);
        ex_def_int(&base, "num_warps", block >= 8192 ? 16 : block >= 2048 ? 8 : 4);
    }
    ex_tune(&e, "softmax.tile", kernel, &base, &l, &chosen);

    ex_run(&e, &l, kernel);
    double *y = ex_download(&e, dy, n, t), *ref = ex_zeros(n);
    for (long r = 0; r < rows; r++) {
        const double *xr = x + r * cols;
        double m = -INFINITY, s = 0;
        for (long c = 0; c < cols; c++)
            m = fmax(m, xr[c]);
        for (long c = 0; c < cols; c++)
            s += exp(xr[c] - m);
        for (long c = 0; c < cols; c++)
            ref[r * cols + c] = exp(xr[c] - m) / s;
    }
    double err = ex_max_rel_err(y, ref, n);
    double ms = ex_time(&e, &l);

    char what[128];
    snprintf(what, sizeof what, "%s %s rows=%ld cols=%ld (ALIGN=%d BLOCK=%s num_warps=%s)", kernel, rk_dtype_name(t),
             rows, cols, align, ex_config_get(&chosen, "BLOCK"), ex_config_get(&chosen, "num_warps"));
    double bytes = (online ? 3.0 : 2.0) * (double)n * (double)rk_dtype_size(t);
    bool ok = ex_report(&e, what, ms, 0, bytes, err, ex_tol(t));
    free(x), free(y), free(ref);
    return ex_finish(&e, ok);
}
