/* vecadd: out = x + y with vecadd.tile, in f32, f16 or bf16 (the kernel's `const T: type`).
 *
 *     ex_vecadd [n=..] [dtype=f32|f16|bf16] [tune=0] [reps=N] [full=1]
 *
 * The host passes ALIGN, the largest power of two up to 16 that divides n, as the kernel's
 * divisibility hint: n = 1 << 20 gets 128-bit loads, an odd n gets one element per access. */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

int main(int argc, char **argv)
{
    ex e;
    ex_init(&e, "vecadd", "ex_vecadd [n=..] [dtype=f32|f16|bf16]", argc, argv);
    long n = ex_int(&e, "n", ex_on_host(&e) ? 100003 : 1L << 26, 1L << 24 << (ex_on_host(&e) ? 0 : 4));
    rk_dtype t = ex_dtype(&e, ex_str(&e, "dtype", "f32"));
    ex_args_done(&e);
    if (n <= 0 || n > 0x7fffffffL)
        ex_die(&e, "n=%ld: out of range", n);

    double *x = ex_random(&e, (size_t)n, t, -1, 1), *y = ex_random(&e, (size_t)n, t, -1, 1);
    void *dx = ex_upload(&e, x, (size_t)n, t), *dy = ex_upload(&e, y, (size_t)n, t);
    void *dout = ex_alloc_zero(&e, (size_t)n, t);
    rk_arg args[] = {rk_arg_ptr(dx), rk_arg_ptr(dy), rk_arg_ptr(dout), rk_arg_i32((int32_t)n)};
    ex_launch l = {.args = args, .nargs = 4};

    ex_config base = {.n = 0}, chosen;
    ex_def_str(&base, "T", rk_dtype_name(t));
    int align = 1;
    while (align < 16 && n % (2 * align) == 0)
        align *= 2;
    ex_def_int(&base, "ALIGN", align);
    ex_tune(&e, "vecadd.tile", "vecadd", &base, &l, &chosen);

    ex_run(&e, &l, "vecadd");
    double *out = ex_download(&e, dout, (size_t)n, t), *ref = ex_zeros((size_t)n);
    for (long i = 0; i < n; i++)
        ref[i] = ex_round(t, x[i] + y[i]);
    double err = ex_max_rel_err(out, ref, (size_t)n);
    double ms = ex_time(&e, &l);

    char what[160];
    snprintf(what, sizeof what, "vecadd %s n=%ld (ALIGN=%d BLOCK=%s num_warps=%s)", rk_dtype_name(t), n, align,
             ex_config_get(&chosen, "BLOCK"), ex_config_get(&chosen, "num_warps"));
    bool ok = ex_report(&e, what, ms, 0, 3.0 * (double)n * (double)rk_dtype_size(t), err, ex_tol(t));
    free(x), free(y), free(out), free(ref);
    return ex_finish(&e, ok);
}
