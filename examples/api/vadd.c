/* A complete host program on rk's C API: compile a vector add from source, run it on the default
 * device (RK_DEVICE, else the first GPU, else the host emulator), check the result, and time it.
 *
 *     cc vadd.c -I<rk>/include -L<build> -lrk -Wl,-rpath,<build> -o vadd && ./vadd
 *
 * Every rk call returns an rk_status; rk_error(ctx) says what went wrong in one line, and compile
 * errors come as diagnostics with file, line, column and the source line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk.h"

static const char source[] =
    "@grid(cdiv(n, BLOCK))\n"
    "kernel vadd(x: *f32, y: *f32, out: *f32, n: i32, const BLOCK: i32 = 256)\n"
    "{\n"
    "    let offs = program_id(0) * BLOCK + arange(BLOCK);\n"
    "    let m = offs < n;\n"
    "    store(out + offs, load(x + offs, mask = m) + load(y + offs, mask = m), mask = m);\n"
    "}\n";

/* Prints the context's error and returns 1: the one error path of this program. */
static int fail(rk_ctx *ctx, const char *what)
{
    fprintf(stderr, "vadd: %s: %s\n", what, rk_error(ctx));
    return 1;
}

static int run(rk_ctx *ctx)
{
    rk_device_info dev;
    rk_device_get_info(ctx, &dev);
    printf("device: %s (%s)\n", dev.kind, dev.name);

    /* Compile for the context's device. A program with errors gives RK_ECOMPILE and diagnostics. */
    rk_compile_options co = {.filename = "vadd.tile"};
    rk_program *prog = NULL;
    rk_status st = rk_compile(ctx, source, strlen(source), &co, &prog);
    for (int i = 0; i < rk_diag_count(ctx); i++) {
        rk_diag d;
        rk_diag_get(ctx, i, &d);
        fputs(d.text, stderr); /* "vadd.tile:3:5: error: ...", the line, a caret */
    }
    if (st != RK_OK)
        return fail(ctx, "compile");
    rk_kernel *k;
    if (rk_program_kernel(prog, "vadd", &k) != RK_OK)
        return fail(ctx, "kernel");

    /* Device memory, inputs copied in. */
    enum { N = 100000 };
    size_t bytes = N * sizeof(float);
    float *x = malloc(bytes), *y = malloc(bytes), *out = malloc(bytes);
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 2.0f * (float)i;
    }
    void *dx, *dy, *dout;
    if (rk_malloc(ctx, bytes, &dx) || rk_malloc(ctx, bytes, &dy) || rk_malloc(ctx, bytes, &dout) ||
        rk_memcpy_htod(ctx, dx, x, bytes) || rk_memcpy_htod(ctx, dy, y, bytes))
        return fail(ctx, "memory");

    /* Launch: arguments are checked against the kernel's signature; a NULL grid means its @grid. */
    rk_arg args[] = {rk_arg_ptr(dx), rk_arg_ptr(dy), rk_arg_ptr(dout), rk_arg_i32(N)};
    if (rk_launch(k, NULL, args, 4, NULL) != RK_OK || rk_synchronize(ctx) != RK_OK)
        return fail(ctx, "launch");
    if (rk_memcpy_dtoh(ctx, out, dout, bytes) != RK_OK)
        return fail(ctx, "copy back");
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += out[i] != 3.0f * (float)i;
    printf("vadd: %d of %d elements wrong\n", wrong, N);

    /* Timing with events (device events on a GPU, the host clock on emu and interp). */
    rk_event *start, *stop;
    float ms = 0;
    if (rk_event_create(ctx, &start) || rk_event_create(ctx, &stop) || rk_event_record(start, NULL) ||
        rk_launch(k, NULL, args, 4, NULL) || rk_event_record(stop, NULL) || rk_event_elapsed(start, stop, &ms))
        return fail(ctx, "timing");
    printf("vadd: one launch took %s\n", ms >= 0 ? "a measurable time" : "no time");

    rk_event_destroy(start);
    rk_event_destroy(stop);
    rk_free(ctx, dx);
    rk_free(ctx, dy);
    rk_free(ctx, dout);
    rk_program_destroy(prog);
    free(x);
    free(y);
    free(out);
    return wrong != 0;
}

int main(void)
{
    rk_ctx *ctx = NULL;
    /* NULL options: the default device, malloc, no dumps. On failure ctx is still set (unless out of
     * memory) so that rk_error can say why. */
    if (rk_ctx_create(NULL, &ctx) != RK_OK) {
        fprintf(stderr, "vadd: no device: %s\n", rk_error(ctx));
        rk_ctx_destroy(ctx);
        return 1;
    }
    int rc = run(ctx);
    rk_ctx_destroy(ctx); /* also frees whatever run() left behind on an error path */
    return rc;
}
