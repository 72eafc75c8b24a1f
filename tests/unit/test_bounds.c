/* Bounds checks by provenance (issue 23 item 4), through the C API on emu, emu_sm90 and interp: an
 * access whose pointer derives from a kernel argument must lie in the allocation that argument points
 * into. Two buffers a and b are allocated, and a kernel given a reads and writes a + (b - a): before,
 * both host devices accepted it (it lies in *some* allocation) and the writes landed in b. Also: the
 * same offset through a pointer chosen at run time between two arguments (provenance unknown) is
 * still allowed, as before, and an in-bounds launch runs.
 *
 * Seen failing when: emu's check knew only "inside some allocation" (the lowering did not say which
 * argument a pointer came from), interp's likewise. */
#include <stdint.h>

#include "tests/unit/test_api_util.h"

static const char src[] =
    "kernel rd(x: *f32, out: *f32, off: i64)\n"
    "{\n"
    "    let o = arange(64);\n"
    "    store(out + o, load(x + off + o));\n"
    "}\n"
    "kernel wr(x: *f32, off: i64)\n"
    "{\n"
    "    let o = arange(64);\n"
    "    store(x + off + o, full([64], 7.0, f32));\n"
    "}\n"
    "kernel walk(x: *f32, out: *f32, off: i64, n: i32)\n"
    "{\n"
    "    var p = x;\n"
    "    for i in 0 .. n {\n"
    "        p = p + off;\n"
    "    }\n"
    "    let o = arange(64);\n"
    "    store(out + o, load(p + o));\n"
    "}\n"
    "kernel either(x: *f32, y: *f32, out: *f32, off: i64, pick: i32)\n"
    "{\n"
    "    let o = arange(64);\n"
    "    let p = where(o == o + pick, x, y);\n"
    "    store(out + o, load(p + off + o));\n"
    "}\n";

static void run(const char *device)
{
    rk_ctx *ctx = NULL;
    rk_ctx_options o = {0};
    o.device = device;
    o.always_compile = 1;
    o.cache_dir = "";
    if (rk_ctx_create(&o, &ctx) != RK_OK) {
        fprintf(stderr, "skipping %s: %s\n", device, rk_error(ctx));
        rk_ctx_destroy(ctx);
        return;
    }
    rk_program *p = NULL;
    CHECK_OK(ctx, rk_compile(ctx, src, sizeof src - 1, NULL, &p));
    if (!p) {
        rk_ctx_destroy(ctx);
        return;
    }
    rk_kernel *rd, *wr, *walk, *either;
    CHECK_OK(ctx, rk_program_kernel(p, "rd", &rd));
    CHECK_OK(ctx, rk_program_kernel(p, "wr", &wr));
    CHECK_OK(ctx, rk_program_kernel(p, "walk", &walk));
    CHECK_OK(ctx, rk_program_kernel(p, "either", &either));
    void *a = NULL, *b = NULL, *out = NULL;
    CHECK_OK(ctx, rk_malloc(ctx, 4096, &a));
    CHECK_OK(ctx, rk_malloc(ctx, 4096, &b));
    CHECK_OK(ctx, rk_malloc(ctx, 4096, &out));
    float zero[1024] = {0};
    CHECK_OK(ctx, rk_memcpy_htod(ctx, b, zero, 4096));
    int64_t d = ((char *)b - (char *)a) / 4;
    uint32_t g[3] = {1, 1, 1};
    /* inside a: fine */
    CHECK_OK(ctx, rk_launch(rd, g, (rk_arg[]){rk_arg_ptr(a), rk_arg_ptr(out), rk_arg_i64(960)}, 3, NULL));
    /* a + (b - a) is b: an overrun of a, refused by reads and writes */
    CHECK_ST(ctx, rk_launch(rd, g, (rk_arg[]){rk_arg_ptr(a), rk_arg_ptr(out), rk_arg_i64(d)}, 3, NULL), RK_EKERNEL,
             "allocation");
    CHECK(strstr(rk_error(ctx), "inside another"));
    CHECK_ST(ctx, rk_launch(wr, g, (rk_arg[]){rk_arg_ptr(a), rk_arg_i64(d)}, 2, NULL), RK_EKERNEL, "inside another");
    float hb[1024];
    CHECK_OK(ctx, rk_memcpy_dtoh(ctx, hb, b, 4096));
    int sevens = 0;
    for (int i = 0; i < 1024; i++)
        sevens += hb[i] == 7.0f;
    CHECK(sevens == 0);
    /* through a loop-carried pointer: 0 steps of d is a, 1 step is b */
    CHECK_OK(ctx, rk_launch(walk, g, (rk_arg[]){rk_arg_ptr(a), rk_arg_ptr(out), rk_arg_i64(d), rk_arg_i32(0)}, 4,
                            NULL));
    CHECK_ST(ctx, rk_launch(walk, g, (rk_arg[]){rk_arg_ptr(a), rk_arg_ptr(out), rk_arg_i64(d), rk_arg_i32(1)}, 4, NULL),
             RK_EKERNEL, "inside another");
    /* a pointer chosen between two arguments has no single provenance: the check is "some allocation" */
    CHECK_OK(ctx, rk_launch(either, g,
                            (rk_arg[]){rk_arg_ptr(a), rk_arg_ptr(b), rk_arg_ptr(out), rk_arg_i64(d), rk_arg_i32(0)}, 5,
                            NULL));
    rk_free(ctx, a);
    rk_free(ctx, b);
    rk_free(ctx, out);
    rk_program_destroy(p);
    rk_ctx_destroy(ctx);
}

int main(void)
{
    run("interp");
    run("emu");
    run("emu_sm90");
    return api_finish("test_bounds");
}
