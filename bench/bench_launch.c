/* bench_launch: the host overhead of rk_launch above the device's own launch call, on emu.
 *
 * The kernel does nothing (one workgroup of one wave), so a launch is the emulator's fixed cost plus
 * rk_launch's: checking the arguments against the signature, laying out the kernarg block and, with a
 * NULL grid, evaluating @grid. Three loops, each timed in batches of 1000 calls (median over batches
 * of the time per call):
 *   direct   the device vtable's launch (RtDeviceOps.launch: what rk_launch ends in), with an RtLaunch
 *            built once, as rk_launch builds it;
 *   grid     rk_launch with an explicit grid;
 *   @grid    rk_launch with NULL: the @grid function evaluated by the interpreter each time.
 * The overhead is rk_launch's time minus direct's. A fourth loop times rk_run on the same kernel with
 * @autotune (one config), answered from the context's memory: a hash of the source and the key, then
 * rk_launch.
 *
 * The emulator's own launch varies by microseconds from call to call (it wakes its fiber machinery),
 * more than the overhead measured, so the same loops run a second time against a device whose launch
 * does nothing (the emu vtable with a no-op launch): what remains is rk_launch's own host work.
 * Usage: bench_launch [batches]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/api/api_internal.h"

enum { BATCH = 1000 };

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static rk_status noop_launch(RtDevice *d, const RtLaunch *l)
{
    (void)d, (void)l;
    return RK_OK;
}

static const char SRC[] = "@options(num_warps = 1)\n"
                          "@grid(cdiv(n, 64))\n"
                          "kernel empty(x: *f32, n: i32, s: f32)\n"
                          "{\n"
                          "}\n"
                          "@autotune(key = [n], configs = [{num_warps: 1}])\n"
                          "@grid(cdiv(n, 64))\n"
                          "kernel tuned(x: *f32, n: i32, s: f32)\n"
                          "{\n"
                          "}\n";

int main(int argc, char **argv)
{
    int batches = argc > 1 ? atoi(argv[1]) : 31;
    rk_ctx_options o = {.device = "emu", .host_threads = 1, .always_compile = 1};
    rk_ctx *ctx;
    if (rk_ctx_create(&o, &ctx) != RK_OK) {
        fprintf(stderr, "%s\n", rk_error(ctx));
        return 1;
    }
    rk_program *p;
    rk_kernel *k;
    rk_compile_options co = {.filename = "empty.tile"};
    void *x;
    if (rk_compile(ctx, SRC, strlen(SRC), &co, &p) || rk_program_kernel(p, "empty", &k) || rk_malloc(ctx, 256, &x)) {
        fprintf(stderr, "%s\n", rk_error(ctx));
        return 1;
    }
    rk_arg args[] = {rk_arg_ptr(x), rk_arg_i32(64), rk_arg_f32(1.0f)};
    uint32_t grid[3] = {1, 1, 1};
    if (rk_launch(k, grid, args, 3, NULL) != RK_OK) { /* loads the module, resolves the kernel */
        fprintf(stderr, "%s\n", rk_error(ctx));
        return 1;
    }
    /* the RtLaunch rk_launch hands the device, built once, for the kernel it runs: n = 64 is a
     * multiple of 16, so that is the variant specialised on it (rk_launch's lookup is in its time) */
    rk_kernel *ran = rk_kernel_last_run(k);
    RtLaunch l = {.fn = ran->fn,
                  .name = ran->name,
                  .grid = {1, 1, 1},
                  .block = (uint32_t)ran->block,
                  .lds_bytes = (uint32_t)ran->lds_bytes,
                  .kernarg = ran->kernarg,
                  .kernarg_size = ran->kernarg_size,
                  .args = ran->argptrs,
                  .nargs = ran->nparams,
                  .threads = 1};
    if (rk_run(ctx, SRC, strlen(SRC), "tuned", grid, args, 3, &co, NULL) != RK_OK) { /* tunes once */
        fprintf(stderr, "%s\n", rk_error(ctx));
        return 1;
    }
    double *direct = malloc(sizeof(double) * (size_t)batches), *explicit_grid = malloc(sizeof(double) * (size_t)batches),
           *at_grid = malloc(sizeof(double) * (size_t)batches), *run = malloc(sizeof(double) * (size_t)batches);
    static RtDeviceOps noop_ops;
    const RtDeviceOps *emu_ops = ctx->dev->ops;
    noop_ops = *emu_ops;
    noop_ops.launch = noop_launch;
    int bad = 0;
    for (int pass = 0; pass < 2; pass++) {
    ctx->dev->ops = pass ? &noop_ops : emu_ops;
    for (int b = 0; b < batches; b++) {
        double t0 = now_ns();
        for (int i = 0; i < BATCH; i++)
            bad |= ctx->dev->ops->launch(ctx->dev, &l);
        double t1 = now_ns();
        for (int i = 0; i < BATCH; i++)
            bad |= rk_launch(k, grid, args, 3, NULL);
        double t2 = now_ns();
        for (int i = 0; i < BATCH; i++)
            bad |= rk_launch(k, NULL, args, 3, NULL);
        double t3 = now_ns();
        for (int i = 0; i < BATCH; i++)
            bad |= rk_run(ctx, SRC, strlen(SRC), "tuned", grid, args, 3, &co, NULL);
        double t4 = now_ns();
        run[b] = (t4 - t3) / BATCH;
        direct[b] = (t1 - t0) / BATCH;
        explicit_grid[b] = (t2 - t1) / BATCH;
        at_grid[b] = (t3 - t2) / BATCH;
    }
    if (bad) {
        fprintf(stderr, "a launch failed: %s\n", rk_error(ctx));
        return 1;
    }
    double d = median(direct, batches), g = median(explicit_grid, batches), a = median(at_grid, batches),
           r = median(run, batches);
    if (!pass)
        printf("launch: emu, empty kernel, 1 workgroup of 64 lanes; medians of %d batches of %d launches\n", batches,
               BATCH);
    printf("launch: %s: device call %.0f ns; rk_launch with a grid %.0f ns (+%.0f ns); with @grid %.0f ns (+%.0f ns)\n",
           pass ? "no-op device" : "emu", d, g, g - d, a, a - d);
    printf("launch: %s: rk_run of a tuned kernel (source %zu bytes) %.0f ns (+%.0f ns over rk_launch with a grid)\n",
           pass ? "no-op device" : "emu", strlen(SRC), r, r - g);
    }
    ctx->dev->ops = emu_ops;
    rk_program_destroy(p);
    rk_ctx_destroy(ctx);
    free(direct);
    free(explicit_grid);
    free(at_grid);
    free(run);
    return 0;
}
