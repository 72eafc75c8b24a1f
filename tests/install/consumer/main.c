/* A program using an installed rk, as a user would: embeds rk_compile(), autotunes a kernel over its
 * @autotune space with rk_run, and launches on emu; the kernel imports the stdlib (std/math), which
 * librk finds in the installed share/rk/stdlib. Prints "consumer: ok" and exits 0 when the results
 * are right. Built by tests/install/run_install_test.sh with CMake (find_package(rk)) and pkg-config. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rk.h>

static const char source[] =
    "import \"std/math\";\n"
    "@autotune(key = [n], space = {BLOCK: [64, 128, 256]})\n"
    "@grid(cdiv(n, BLOCK))\n"
    "kernel act(x: *f32, out: *f32, n: i32, const BLOCK: i32 = 64)\n"
    "{\n"
    "    let offs = program_id(0) * BLOCK + arange(BLOCK);\n"
    "    let m = offs < n;\n"
    "    store(out + offs, sigmoid(load(x + offs, mask = m)), mask = m);\n"
    "}\n";

static int fail(rk_ctx *ctx, const char *what)
{
    fprintf(stderr, "consumer: %s: %s\n", what, rk_error(ctx));
    for (int i = 0; i < rk_diag_count(ctx); i++) {
        rk_diag d;
        rk_diag_get(ctx, i, &d);
        fputs(d.text, stderr);
    }
    return 1;
}

int main(void)
{
    rk_ctx_options o = {.device = "emu", .tune_runs = 2, .tune_ms = -1};
    rk_ctx *ctx = NULL;
    if (rk_ctx_create(&o, &ctx) != RK_OK)
        return fail(ctx, "context");
    rk_compile_options co = {.filename = "act.tile"};
    rk_program *prog = NULL;
    if (rk_compile(ctx, source, strlen(source), &co, &prog) != RK_OK)
        return fail(ctx, "compile");
    enum { N = 3000 };
    static float x[N], out[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)(i % 17) * 0.25f - 2.0f;
    void *dx, *dout;
    if (rk_malloc(ctx, sizeof x, &dx) || rk_malloc(ctx, sizeof out, &dout) || rk_memcpy_htod(ctx, dx, x, sizeof x))
        return fail(ctx, "memory");
    rk_arg args[] = {rk_arg_ptr(dx), rk_arg_ptr(dout), rk_arg_i32(N)};
    if (rk_run(ctx, source, strlen(source), "act", NULL, args, 3, &co, NULL) != RK_OK)
        return fail(ctx, "autotune and run");
    if (rk_memcpy_dtoh(ctx, out, dout, sizeof out) != RK_OK)
        return fail(ctx, "copy back");
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += fabs(out[i] - 1.0 / (1.0 + exp(-(double)x[i]))) > 1e-5;
    rk_kernel *best;
    if (rk_autotune(ctx, source, strlen(source), "act", args, 3, &co, &best) != RK_OK)
        return fail(ctx, "autotune");
    printf("consumer: %s, best config %s, %d of %d wrong\n", rk_version(), rk_kernel_config(best), wrong, N);
    rk_program_destroy(prog);
    rk_ctx_destroy(ctx);
    if (wrong)
        return 1;
    printf("consumer: ok\n");
    return 0;
}
