/* rk_autotune and rk_run: declared in rk.h for the autotuner task, which replaces this file. Until then
 * they say so, through the context's error, rather than being missing at link time. */
#include "runtime/api/api_internal.h"

rk_status rk_autotune(rk_ctx *ctx, const char *source, size_t length, const char *kernel_name, const rk_arg *args,
                      int nargs, const rk_compile_options *options, rk_kernel **best)
{
    (void)source, (void)length, (void)kernel_name, (void)args, (void)nargs, (void)options;
    if (!ctx)
        return RK_EINVAL;
    if (best)
        *best = NULL;
    return rt_fail(ctx, RK_EUNSUPPORTED, "rk_autotune is not implemented yet");
}

rk_status rk_run(rk_ctx *ctx, const char *source, size_t length, const char *kernel_name, const uint32_t *grid,
                 const rk_arg *args, int nargs, const rk_compile_options *options, rk_stream *stream)
{
    (void)source, (void)length, (void)kernel_name, (void)grid, (void)args, (void)nargs, (void)options, (void)stream;
    if (!ctx)
        return RK_EINVAL;
    return rt_fail(ctx, RK_EUNSUPPORTED, "rk_run is not implemented yet");
}
