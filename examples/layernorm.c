/* layernorm: forward and backward layer normalisation of x[M, N] with layernorm.tile.
 *
 *     ex_layernorm [M=..] [N=..] [dtype=f32|f16|bf16] [tune=0] [reps=N] [full=1]
 *
 * Forward: y, and the mean and 1/std of each row (kept for the backward). Backward, for an upstream
 * gradient dy: dx (layernorm_bwd_dx, which also adds each row's dw and db terms into GROUP partial
 * rows with atomics) and dw, db (layernorm_bwd_dwdb sums the partial rows). Every output is checked
 * against a double-precision reference; one result line for each direction. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

enum { GROUP = 64 }; /* partial rows of dw and db: the kernel's default */

int main(int argc, char **argv)
{
    ex e;
    ex_init(&e, "layernorm", "ex_layernorm [M=..] [N=..] [dtype=f32|f16|bf16]", argc, argv);
    bool host = ex_on_host(&e); /* sizes: small on the host devices, real on a GPU */
    long M = ex_int(&e, "M", host ? 100 : 4096, host ? 1024 : 16384);
    long N = ex_int(&e, "N", host ? 1000 : 8192, host ? 4096 : 8192);
    rk_dtype t = ex_dtype(&e, ex_str(&e, "dtype", "f32"));
    ex_args_done(&e);
    if (M <= 0 || N <= 0 || M * N > 0x7fffffffL || GROUP * N > 0x7fffffffL)
        ex_die(&e, "M=%ld N=%ld: out of range", M, N);
    const float eps = 1e-5f;

    size_t n = (size_t)(M * N);
    double *x = ex_random(&e, n, t, -2, 2), *w = ex_random(&e, (size_t)N, t, 0.5, 1.5),
           *b = ex_random(&e, (size_t)N, t, -0.5, 0.5), *dy = ex_random(&e, n, t, -1, 1);
    void *dx_in = ex_upload(&e, x, n, t), *dw_in = ex_upload(&e, w, (size_t)N, t),
         *db_in = ex_upload(&e, b, (size_t)N, t), *ddy = ex_upload(&e, dy, n, t);
    void *dy_out = ex_alloc_zero(&e, n, t), *dmean = ex_alloc_zero(&e, (size_t)M, RK_F32),
         *drstd = ex_alloc_zero(&e, (size_t)M, RK_F32), *ddx = ex_alloc_zero(&e, n, t),
         *dwp = ex_alloc_zero(&e, (size_t)(GROUP * N), RK_F32), *dbp = ex_alloc_zero(&e, (size_t)(GROUP * N), RK_F32),
         *ddw = ex_alloc_zero(&e, (size_t)N, t), *ddb = ex_alloc_zero(&e, (size_t)N, t);

    ex_config base = {.n = 0}, chosen;
    ex_def_str(&base, "T", rk_dtype_name(t));
    int align = 1;
    while (align < 16 && N % (2 * align) == 0)
        align *= 2;
    ex_def_int(&base, "ALIGN", align);

    rk_arg fargs[] = {rk_arg_ptr(dx_in), rk_arg_ptr(dy_out), rk_arg_ptr(dw_in), rk_arg_ptr(db_in),
                      rk_arg_ptr(dmean), rk_arg_ptr(drstd), rk_arg_i32((int32_t)M), rk_arg_i32((int32_t)N),
                      rk_arg_i32((int32_t)N), rk_arg_f32(eps)};
    ex_launch fwd = {.args = fargs, .nargs = 10};
    ex_tune(&e, "layernorm.tile", "layernorm_fwd", &base, &fwd, &chosen);

    /* The backward kernels take the forward's BLOCK and num_warps (its space has no BLOCK below 512,
     * the lanes of 8 waves: a smaller tile would leave lanes idle). */
    rk_arg dxargs[] = {rk_arg_ptr(dx_in), rk_arg_ptr(ddy), rk_arg_ptr(dw_in), rk_arg_ptr(dmean), rk_arg_ptr(drstd),
                       rk_arg_ptr(ddx), rk_arg_ptr(dwp), rk_arg_ptr(dbp), rk_arg_i32((int32_t)M),
                       rk_arg_i32((int32_t)N), rk_arg_i32((int32_t)N)};
    ex_launch bwd_dx = {.kernel = ex_compile(&e, "layernorm.tile", "layernorm_bwd_dx", &chosen), .args = dxargs,
                        .nargs = 11, .resets = {{dwp, (size_t)(GROUP * N) * 4}, {dbp, (size_t)(GROUP * N) * 4}},
                        .nresets = 2};
    ex_config dwdb_cfg = base;
    ex_def_int(&dwdb_cfg, "num_warps", 4);
    rk_arg dwargs[] = {rk_arg_ptr(dwp), rk_arg_ptr(dbp), rk_arg_ptr(ddw), rk_arg_ptr(ddb),
                       rk_arg_i32(M < GROUP ? (int32_t)M : GROUP), rk_arg_i32((int32_t)N)};
    ex_launch bwd_dwdb = {.kernel = ex_compile(&e, "layernorm.tile", "layernorm_bwd_dwdb", &dwdb_cfg),
                          .args = dwargs, .nargs = 6};

    ex_run(&e, &fwd, "layernorm_fwd");
    ex_run(&e, &bwd_dx, "layernorm_bwd_dx");
    ex_run(&e, &bwd_dwdb, "layernorm_bwd_dwdb");
    double *y = ex_download(&e, dy_out, n, t), *mean = ex_download(&e, dmean, (size_t)M, RK_F32),
           *rstd = ex_download(&e, drstd, (size_t)M, RK_F32), *dx = ex_download(&e, ddx, n, t),
           *dw = ex_download(&e, ddw, (size_t)N, t), *db = ex_download(&e, ddb, (size_t)N, t);

    /* The reference, in double. */
    double *ry = ex_zeros(n), *rmean = ex_zeros((size_t)M), *rrstd = ex_zeros((size_t)M), *rdx = ex_zeros(n),
           *rdw = ex_zeros((size_t)N), *rdb = ex_zeros((size_t)N);
    for (long r = 0; r < M; r++) {
        const double *xr = x + r * N, *gr = dy + r * N;
        double s = 0, ss = 0, c1 = 0, c2 = 0;
        for (long c = 0; c < N; c++)
            s += xr[c];
        double mu = s / (double)N;
        for (long c = 0; c < N; c++)
            ss += (xr[c] - mu) * (xr[c] - mu);
        double rs = 1 / sqrt(ss / (double)N + eps);
        rmean[r] = mu, rrstd[r] = rs;
        for (long c = 0; c < N; c++) {
            double xhat = (xr[c] - mu) * rs;
            ry[r * N + c] = xhat * w[c] + b[c];
            c1 += xhat * w[c] * gr[c];
            c2 += w[c] * gr[c];
            rdw[c] += gr[c] * xhat;
            rdb[c] += gr[c];
        }
        for (long c = 0; c < N; c++) {
            double xhat = (xr[c] - mu) * rs;
            rdx[r * N + c] = rs * (w[c] * gr[c] - c2 / (double)N - xhat * c1 / (double)N);
        }
    }
    /* The statistics are f32 and checked as such; y, dx, dw, db as T. */
    double err_f = fmax(ex_max_rel_err(y, ry, n) / ex_tol(t),
                        fmax(ex_max_rel_err(mean, rmean, (size_t)M), ex_max_rel_err(rstd, rrstd, (size_t)M)) /
                            ex_tol(RK_F32)) * ex_tol(t);
    double err_b = fmax(ex_max_rel_err(dx, rdx, n), fmax(ex_max_rel_err(dw, rdw, (size_t)N),
                                                         ex_max_rel_err(db, rdb, (size_t)N)));
    double ms_f = ex_time(&e, &fwd), ms_dx = ex_time(&e, &bwd_dx), ms_dwdb = ex_time(&e, &bwd_dwdb);

    char what[160];
    double es = (double)rk_dtype_size(t);
    snprintf(what, sizeof what, "layernorm_fwd %s M=%ld N=%ld (ALIGN=%d BLOCK=%s num_warps=%s)", rk_dtype_name(t), M, N,
             align, ex_config_get(&chosen, "BLOCK"), ex_config_get(&chosen, "num_warps"));
    bool ok = ex_report(&e, what, ms_f, 0, 2.0 * (double)n * es + 2.0 * N * es + 8.0 * M, err_f, ex_tol(t));
    snprintf(what, sizeof what, "layernorm_bwd %s M=%ld N=%ld (dx %.4g ms + dw,db %.4g ms)", rk_dtype_name(t), M, N,
             ms_dx, ms_dwdb);
    ok &= ex_report(&e, what, ms_dx + ms_dwdb, 0, 3.0 * (double)n * es + 2.0 * N * es + 8.0 * M, err_b, ex_tol(t));
    free(x), free(w), free(b), free(dy), free(y), free(mean), free(rstd), free(dx), free(dw), free(db);
    free(ry), free(rmean), free(rrstd), free(rdx), free(rdw), free(rdb);
    return ex_finish(&e, ok);
}
