/* Work counts, device peaks and the roofline (issue 22): rk_kernel_work against hand counts on kernels
 * whose work is known exactly (a masked tail, a 2-D masked store, a loop, a grid-dependent trip count),
 * the bytes_min bound from buffer sizes, rk_peaks_find, rk_roofline_of's arithmetic, and
 * rk_kernel_advise's ranking on a small grid. Compiles for gfx942 on a context without a device, and
 * allocates its buffers on interp (nothing runs). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rk.h"

static int failures;
#define CHECK(c) ((c) ? (void)0 : (void)(failures++, fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c)))
#define NEAR(a, b) CHECK(fabs((double)(a) - (double)(b)) <= 1e-9 * fabs((double)(b)) + 1e-9)

static const char *src =
    "@grid(cdiv(n, BLOCK))\n"
    "kernel tail(x: *f32, y: *f32, n: i32, const BLOCK: i32 = 256) {\n"
    "    let o = program_id(0) * BLOCK + arange(BLOCK);\n"
    "    store(y + o, exp(load(x + o, mask = o < n)), mask = o < n);\n"
    "}\n"
    "@grid(cdiv(M, 32), cdiv(N, 32))\n"
    "kernel mm(a: *f16, b: *f16, c: *f32, M: i32, N: i32, K: i32) {\n"
    "    let rm = program_id(0) * 32 + arange(32);\n"
    "    let rn = program_id(1) * 32 + arange(32);\n"
    "    let rk = arange(16);\n"
    "    var acc = zeros([32, 32], f32);\n"
    "    for k in 0 .. cdiv(K, 16) {\n"
    "        acc = dot(load(a + rm[:, None] * K + k * 16 + rk[None, :]), load(b + (k * 16 + rk[:, None]) * N + rn[None, :]), acc);\n"
    "    }\n"
    "    store(c + rm[:, None] * N + rn[None, :], acc, mask = (rm[:, None] < M) & (rn[None, :] < N));\n"
    "}\n";

int main(void)
{
    rk_ctx *ctx;
    rk_ctx_options o = {0};
    o.device = "interp";
    if (rk_ctx_create(&o, &ctx) != RK_OK) {
        fprintf(stderr, "no interp device: %s\n", rk_error(ctx));
        rk_ctx_destroy(ctx);
        return 77;
    }
    rk_compile_options co = {0};
    co.target = "gfx942";
    rk_program *p;
    if (rk_compile(ctx, src, strlen(src), &co, &p) != RK_OK) {
        fprintf(stderr, "compile: %s\n", rk_error(ctx));
        return 1;
    }
    rk_kernel *tail = NULL, *mm = NULL;
    CHECK(rk_program_kernel(p, "tail", &tail) == RK_OK && rk_program_kernel(p, "mm", &mm) == RK_OK);

    /* the tail: 1000 elements in 4 programs of 256, 24 masked off: each element read and written once,
     * exp counted on the whole tiles (1024 lanes) */
    rk_arg a1[] = {rk_arg_ptr(NULL), rk_arg_ptr(NULL), rk_arg_i32(1000)};
    rk_work w;
    CHECK(rk_kernel_work(tail, NULL, a1, 3, &w) == RK_OK);
    NEAR(w.bytes_read, 4000);
    NEAR(w.bytes_written, 4000);
    NEAR(w.flops_elem, 1024);
    NEAR(w.flops_dot, 0);
    CHECK(!w.estimate && strcmp(w.why, "") == 0);
    /* an explicit grid of 8 programs: the last 4 are masked off entirely */
    uint32_t g8[3] = {8, 1, 1};
    CHECK(rk_kernel_work(tail, g8, a1, 3, &w) == RK_OK);
    NEAR(w.bytes_read, 4000);

    /* the matmul: M=100 N=64 K=48 -> grid 4 x 2, 3 trips of 2*32*32*16 FLOPs per program; A and B loads
     * unmasked (32x16 and 16x32 halves), C's store masked to 100 x 64 */
    void *A = NULL, *B = NULL, *C = NULL;
    CHECK(rk_malloc(ctx, 128 * 48 * 2, &A) == RK_OK && rk_malloc(ctx, 48 * 64 * 2, &B) == RK_OK &&
          rk_malloc(ctx, 100 * 64 * 4, &C) == RK_OK);
    rk_arg a2[] = {rk_arg_ptr(A), rk_arg_ptr(B), rk_arg_ptr(C), rk_arg_i32(100), rk_arg_i32(64), rk_arg_i32(48)};
    CHECK(rk_kernel_work(mm, NULL, a2, 6, &w) == RK_OK);
    NEAR(w.flops_dot, 8.0 * 3 * 2 * 32 * 32 * 16);
    NEAR(w.bytes_read, 8.0 * 3 * (32 * 16 * 2 + 16 * 32 * 2));
    NEAR(w.bytes_written, 100.0 * 64 * 4);
    CHECK(w.dot_dtype == RK_F16);
    /* the least traffic: each buffer at most once */
    NEAR(w.bytes_min, 128.0 * 48 * 2 + 48 * 64 * 2 + 100 * 64 * 4);
    /* without buffers, the bytes moved */
    rk_arg a3[] = {rk_arg_ptr(NULL), rk_arg_ptr(NULL), rk_arg_ptr(NULL), rk_arg_i32(100), rk_arg_i32(64),
                   rk_arg_i32(48)};
    CHECK(rk_kernel_work(mm, NULL, a3, 6, &w) == RK_OK);
    NEAR(w.bytes_min, w.bytes);
    /* arguments are checked as for a launch */
    CHECK(rk_kernel_work(mm, NULL, a3, 5, &w) == RK_ELAUNCH);

    /* the peaks table */
    const rk_peaks *pk = rk_peaks_find("mi300x"), *h200 = rk_peaks_find("H200");
    CHECK(pk && strcmp(pk->arch, "gfx942") == 0 && pk->compute_units == 304 && pk->bytes_per_s == 5.3e12);
    CHECK(h200 && strcmp(h200->name, "H200 SXM") == 0 && h200->bytes_per_s == 4.8e12 && h200->compute_units == 132);
    CHECK(rk_peaks_find("gfx950") == rk_peaks_find("MI355X") && rk_peaks_find("sm_90") == rk_peaks_find("H100"));
    CHECK(rk_peaks_find("gfx90a")->fp8_matrix == 0 && rk_peaks_find("nonesuch") == NULL);
    for (int i = 0; i < rk_peaks_count(); i++)
        CHECK(rk_peaks_get(i)->source && *rk_peaks_get(i)->source && rk_peaks_get(i)->f32 > 0);
    bool est = false;
    CHECK(rk_device_peaks(ctx, "emu", &pk, &est) == RK_OK && strcmp(pk->name, "MI300X") == 0 && est);
    CHECK(rk_device_peaks(ctx, "emu_sm90", &pk, &est) == RK_OK && strcmp(pk->arch, "sm_90") == 0 && est);

    /* the roofline: 1 GB in 1 ms on MI300X is 1000 GB/s of a 5300 GB/s roof */
    rk_work mw = {0};
    mw.bytes = 1e9;
    mw.flops = mw.flops_elem = 1e9;
    rk_roofline r;
    CHECK(rk_roofline_of(rk_peaks_find("MI300X"), &mw, 1.0, &r) == RK_OK);
    NEAR(r.bytes_per_s, 1e12);
    NEAR(r.bound_ms, 1e9 / 5.3e12 * 1e3);
    NEAR(r.fraction, r.bound_ms / 1.0);
    CHECK(strcmp(r.limit, "memory") == 0);
    NEAR(r.ridge, 163.4e12 / 5.3e12);
    mw.flops = mw.flops_dot = 1e15, mw.flops_elem = 0, mw.dot_dtype = RK_BF16;
    CHECK(rk_roofline_of(rk_peaks_find("MI300X"), &mw, 1.0, &r) == RK_OK && strcmp(r.limit, "compute") == 0);
    NEAR(r.bound_ms, 1e15 / 1307.4e12 * 1e3);

    /* advice: 8 workgroups of the matmul are too few for 304 CUs */
    char buf[16384];
    size_t need = 0;
    CHECK(rk_kernel_advise(ctx, mm, NULL, a2, 6, NULL, 0, NULL, 1, buf, sizeof buf, &need) == RK_OK && need < sizeof buf);
    CHECK(strstr(buf, "\"rank\": 1, \"name\": \"workgroups\"") != NULL);
    /* a buffer too small: truncated, NUL-terminated, the full length reported */
    char small[16];
    size_t need2 = 0;
    CHECK(rk_kernel_advise(ctx, mm, NULL, a2, 6, src, strlen(src), &co, 0, small, sizeof small, &need2) == RK_OK && need2 > 15 &&
          strlen(small) == 15);

    rk_program_destroy(p);
    rk_ctx_destroy(ctx);
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    else
        printf("test_perf: ok\n");
    return failures != 0;
}
