#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <pthread.h>
#include "rk.h"
/* Copied from the issue 23 reproducers (tests/reliability/api.cases runs it); kept as found but for the
 * cache folder (RK_CACHE_DIR) and the bundle written to REL_FULL_NODE rather than /dev/full. */

static const char src[] =
    "@grid(cdiv(n, 64))\n"
    "kernel vadd(x: *f32, y: *f32, out: *f32, n: i32)\n"
    "{\n"
    "    let offs = program_id(0) * 64 + arange(64);\n"
    "    let m = offs < n;\n"
    "    store(out + offs, load(x + offs, mask = m) + load(y + offs, mask = m), mask = m);\n"
    "}\n"
    "kernel nomask(x: *f32, out: *f32)\n"
    "{\n"
    "    let offs = program_id(0) * 64 + arange(64);\n"
    "    store(out + offs, load(x + offs));\n"
    "}\n";

#define CHECK(expr) do { rk_status _s = (expr); printf("%-70s -> %s  %s\n", #expr, rk_status_name(_s), _s ? rk_error(ctx) : ""); fflush(stdout);} while (0)

int main(int argc, char **argv)
{
    const char *dev = argc > 1 ? argv[1] : "interp";
    rk_ctx *ctx = NULL;
    printf("status_name(99)=%s dtype_name(99)=%s dtype_size(-1)=%zu rk_error(NULL)=%s\n", rk_status_name((rk_status)99),
           rk_dtype_name((rk_dtype)99) ? rk_dtype_name((rk_dtype)99) : "(null)", rk_dtype_size((rk_dtype)-1), rk_error(NULL));
    printf("rk_status_name(-1)=%s\n", rk_status_name((rk_status)-1));
    CHECK(rk_ctx_create(NULL, NULL));
    rk_ctx_options bad = {0}; bad.device = "quantum";
    CHECK(rk_ctx_create(&bad, &ctx)); printf("   ctx=%p err=%s\n", (void*)ctx, rk_error(ctx)); rk_ctx_destroy(ctx); ctx = NULL;
    bad.device = dev; bad.host_threads = -5; bad.tune_runs = -3; bad.compile_threads = -1; bad.device_index = 99;
    CHECK(rk_ctx_create(&bad, &ctx)); rk_ctx_destroy(ctx); ctx = NULL;
    rk_ctx_options o = {0}; o.device = dev; o.cache_dir = NULL; /* RK_CACHE_DIR */
    CHECK(rk_ctx_create(&o, &ctx));
    rk_program *p = NULL;
    CHECK(rk_compile(NULL, src, sizeof src - 1, NULL, &p));
    CHECK(rk_compile(ctx, NULL, 10, NULL, &p));
    CHECK(rk_compile(ctx, NULL, 0, NULL, &p)); rk_program_destroy(p); p = NULL;
    CHECK(rk_compile(ctx, src, sizeof src - 1, NULL, NULL));
    CHECK(rk_compile(ctx, src, 0, NULL, &p)); printf("   kernels=%d\n", p ? rk_program_kernel_count(p) : -1); rk_program_destroy(p); p = NULL;
    CHECK(rk_compile(ctx, src, 5, NULL, &p));
    printf("   diag_count=%d\n", rk_diag_count(ctx));
    rk_diag d; CHECK(rk_diag_get(ctx, -1, &d)); CHECK(rk_diag_get(ctx, 1000, &d)); CHECK(rk_diag_get(ctx, 0, NULL)); CHECK(rk_diag_get(NULL, 0, &d));
    printf("   rk_diag_count(NULL)=%d\n", rk_diag_count(NULL));
    rk_compile_options co = {0};
    co.target = "nope"; CHECK(rk_compile(ctx, src, sizeof src - 1, &co, &p));
    co.target = ""; CHECK(rk_compile(ctx, src, sizeof src - 1, &co, &p));
    co.target = NULL; co.opt_level = 99; CHECK(rk_compile(ctx, src, sizeof src - 1, &co, &p)); rk_program_destroy(p); p = NULL;
    co.opt_level = -7; CHECK(rk_compile(ctx, src, sizeof src - 1, &co, &p)); rk_program_destroy(p); p = NULL;
    co.opt_level = 0; co.ndefines = 3; co.defines = NULL; CHECK(rk_compile(ctx, src, sizeof src - 1, &co, &p)); rk_program_destroy(p); p = NULL;
    rk_define defs[2] = {{NULL, "1"}, {"num_warps", NULL}}; co.defines = defs; co.ndefines = 2; CHECK(rk_compile(ctx, src, sizeof src - 1, &co, &p)); rk_program_destroy(p); p = NULL;
    co.ndefines = -1; CHECK(rk_compile(ctx, src, sizeof src - 1, &co, &p)); rk_program_destroy(p); p = NULL;
    co.ndefines = 0; co.defines = NULL; co.ninclude_dirs = 2; co.include_dirs = NULL; CHECK(rk_compile(ctx, src, sizeof src - 1, &co, &p)); rk_program_destroy(p); p = NULL;
    const char *incs[1] = {NULL}; co.include_dirs = incs; co.ninclude_dirs = 1; CHECK(rk_compile(ctx, src, sizeof src - 1, &co, &p)); rk_program_destroy(p); p = NULL;
    co.ninclude_dirs = 0; co.include_dirs = NULL; co.kernel = "nope"; CHECK(rk_compile(ctx, src, sizeof src - 1, &co, &p)); rk_program_destroy(p); p = NULL;
    co.kernel = ""; CHECK(rk_compile(ctx, src, sizeof src - 1, &co, &p)); rk_program_destroy(p); p = NULL;
    co.kernel = NULL; co.filename = ""; CHECK(rk_compile(ctx, src, sizeof src - 1, &co, &p)); rk_program_destroy(p); p = NULL;
    /* source with embedded NUL and not NUL terminated */
    char *nsrc = malloc(sizeof src - 1); memcpy(nsrc, src, sizeof src - 1);
    co.filename = NULL; CHECK(rk_compile(ctx, nsrc, sizeof src - 1, &co, &p)); free(nsrc);
    rk_kernel *k = NULL, *k2 = NULL;
    CHECK(rk_program_kernel(p, NULL, &k)); CHECK(rk_program_kernel(NULL, "vadd", &k)); CHECK(rk_program_kernel(p, "vadd", NULL));
    CHECK(rk_program_kernel_at(p, -1, &k)); CHECK(rk_program_kernel_at(p, 2, &k)); printf("   kernel_count(NULL)=%d\n", rk_program_kernel_count(NULL));
    CHECK(rk_program_kernel(p, "nomask", &k2));
    CHECK(rk_program_kernel(p, "vadd", &k));
    rk_param prm; CHECK(rk_kernel_get_param(k, -1, &prm)); CHECK(rk_kernel_get_param(k, 4, &prm)); CHECK(rk_kernel_get_param(k, 0, NULL)); CHECK(rk_kernel_get_param(NULL, 0, &prm));
    rk_kernel_info ki; CHECK(rk_kernel_get_info(NULL, &ki)); CHECK(rk_kernel_get_info(k, NULL));
    const void *bin; size_t bsz; CHECK(rk_program_binary(NULL, &bin, &bsz)); CHECK(rk_program_binary(p, NULL, NULL));
    printf("   target(NULL)=%s config(NULL)=%s\n", rk_program_target(NULL) ? rk_program_target(NULL) : "(null)", rk_kernel_config(NULL) ? rk_kernel_config(NULL) : "(null)");
    /* memory */
    void *x = NULL, *y = NULL, *out = NULL, *q = NULL;
    CHECK(rk_malloc(ctx, SIZE_MAX, &q)); CHECK(rk_malloc(ctx, SIZE_MAX / 2, &q)); CHECK(rk_malloc(ctx, (size_t)1 << 44, &q));
    CHECK(rk_malloc(ctx, 0, &q)); printf("   q=%p\n", q);
    CHECK(rk_malloc(ctx, 16, NULL)); CHECK(rk_malloc(NULL, 16, &q));
    CHECK(rk_malloc(ctx, 256 * 4, &x)); CHECK(rk_malloc(ctx, 256 * 4, &y)); CHECK(rk_malloc(ctx, 256 * 4, &out));
    float h[512]; for (int i = 0; i < 512; i++) h[i] = (float)i;
    CHECK(rk_memcpy_htod(ctx, x, h, 256 * 4 + 4));
    CHECK(rk_memcpy_htod(ctx, (char *)x + 1020, h, 8));
    CHECK(rk_memcpy_htod(ctx, (char *)x - 4, h, 4));
    CHECK(rk_memcpy_htod(ctx, (char *)x + 8, h, SIZE_MAX - 4));
    CHECK(rk_memcpy_htod(ctx, x, NULL, 16));
    CHECK(rk_memcpy_htod(ctx, h, h, 16));
    CHECK(rk_memcpy_htod(ctx, x, h, 0));
    CHECK(rk_memcpy_dtoh(ctx, h, (char *)x + 512, 1024));
    CHECK(rk_memcpy_dtoh(ctx, NULL, x, 16));
    CHECK(rk_memcpy_dtod(ctx, y, x, 1024)); CHECK(rk_memcpy_dtod(ctx, (char *)x + 4, x, 1024)); CHECK(rk_memcpy_dtod(ctx, (char *)x + 4, x, 1000));
    CHECK(rk_memset(ctx, x, 0x1234, 1024)); CHECK(rk_memset(ctx, x, 0, 1025)); CHECK(rk_memset(ctx, (char*)x + 1024, 0, 0));
    CHECK(rk_memcpy_htod(ctx, x, h, 1024)); CHECK(rk_memcpy_htod(ctx, y, h, 1024));
    CHECK(rk_free(ctx, (char *)x + 16)); CHECK(rk_free(ctx, h)); CHECK(rk_free(ctx, (void *)0x1000));
    /* launches */
    rk_arg args[4] = {rk_arg_ptr(x), rk_arg_ptr(y), rk_arg_ptr(out), rk_arg_i32(256)};
    uint32_t g1[3] = {4, 1, 1};
    CHECK(rk_launch(k, NULL, args, 4, NULL));
    CHECK(rk_launch(NULL, NULL, args, 4, NULL));
    CHECK(rk_launch(k, NULL, NULL, 4, NULL));
    CHECK(rk_launch(k, NULL, args, 3, NULL));
    CHECK(rk_launch(k, NULL, args, -1, NULL));
    CHECK(rk_launch(k, NULL, args, 5, NULL));
    CHECK(rk_launch(k, g1, args, 4, (rk_stream *)0x1));
    rk_arg a2[4]; memcpy(a2, args, sizeof a2);
    a2[3] = rk_arg_f32(256.0f); CHECK(rk_launch(k, NULL, a2, 4, NULL));
    a2[3] = rk_arg_i64(1LL << 40); CHECK(rk_launch(k, NULL, a2, 4, NULL));
    a2[3] = rk_arg_u64(UINT64_MAX); CHECK(rk_launch(k, NULL, a2, 4, NULL));
    a2[3] = rk_arg_ptr(x); CHECK(rk_launch(k, NULL, a2, 4, NULL));
    a2[3].kind = (rk_param_kind)7; CHECK(rk_launch(k, NULL, a2, 4, NULL));
    a2[3] = rk_arg_i32(256); a2[3].dtype = (rk_dtype)55; CHECK(rk_launch(k, NULL, a2, 4, NULL));
    a2[3] = rk_arg_i32(256); a2[0] = rk_arg_ptr(h); CHECK(rk_launch(k, NULL, a2, 4, NULL));
    a2[0] = rk_arg_ptr((char *)x + 4); CHECK(rk_launch(k, NULL, a2, 4, NULL));
    a2[0] = rk_arg_ptr((char *)x + 1024); CHECK(rk_launch(k, NULL, a2, 4, NULL));
    a2[0] = rk_arg_ptr((char *)x + 512); CHECK(rk_launch(k, NULL, a2, 4, NULL)); /* reads 256 floats from mid-buffer: OOB at end */
    a2[0] = rk_arg_ptr(NULL); CHECK(rk_launch(k, NULL, a2, 4, NULL)); /* NULL pointer: loads from 0 */
    a2[0] = rk_arg_ptr(x); a2[3] = rk_arg_i32(-5); CHECK(rk_launch(k, NULL, a2, 4, NULL)); /* negative n: grid cdiv(-5,64) */
    a2[3] = rk_arg_i32(INT32_MAX); CHECK(rk_kernel_grid(k, a2, 4, g1)); printf("   grid=%u %u %u\n", g1[0], g1[1], g1[2]);
    a2[3] = rk_arg_i32(INT32_MIN); CHECK(rk_kernel_grid(k, a2, 4, g1)); printf("   grid=%u %u %u\n", g1[0], g1[1], g1[2]);
    a2[3] = rk_arg_i32(1 << 20); CHECK(rk_launch(k, NULL, a2, 4, NULL)); /* n bigger than the buffer: OOB */
    uint32_t g0[3] = {0, 1, 1}; CHECK(rk_launch(k, g0, args, 4, NULL));
    uint32_t gbig[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX}; CHECK(rk_launch(k, gbig, args, 4, NULL));
    uint32_t gbig2[3] = {1, 4096, 4096}; CHECK(rk_launch(k, gbig2, args, 4, NULL));
    CHECK(rk_kernel_grid(k, args, 4, NULL));
    rk_arg nm[2] = {rk_arg_ptr(x), rk_arg_ptr(out)};
    uint32_t g5[3] = {5, 1, 1}; CHECK(rk_launch(k2, g5, nm, 2, NULL)); /* 5*64 > 256: OOB */
    CHECK(rk_launch(k2, NULL, nm, 2, NULL)); /* no @grid */
    /* kernel from a program launched on ... after free of its buffer */
    void *tmp = NULL; CHECK(rk_malloc(ctx, 1024, &tmp)); CHECK(rk_free(ctx, tmp)); CHECK(rk_free(ctx, tmp));
    nm[0] = rk_arg_ptr(tmp); uint32_t g4[3] = {4, 1, 1}; CHECK(rk_launch(k2, g4, nm, 2, NULL)); /* dangling pointer */
    CHECK(rk_memcpy_htod(ctx, tmp, h, 16));
    /* events */
    rk_event *e1 = NULL, *e2 = NULL; float ms = -1;
    CHECK(rk_event_create(ctx, &e1)); CHECK(rk_event_create(ctx, &e2)); CHECK(rk_event_create(ctx, NULL)); CHECK(rk_event_create(NULL, &e1));
    CHECK(rk_event_elapsed(e1, e2, &ms)); /* never recorded */
    CHECK(rk_event_record(e1, NULL)); CHECK(rk_event_elapsed(e1, e2, &ms)); CHECK(rk_event_record(e2, NULL)); CHECK(rk_event_elapsed(e2, e1, &ms)); printf("   ms=%g\n", ms);
    CHECK(rk_event_elapsed(e1, e2, NULL)); CHECK(rk_event_elapsed(NULL, e2, &ms)); CHECK(rk_event_record(NULL, NULL)); CHECK(rk_event_record(e1, (rk_stream*)0x10));
    rk_event_destroy(e1); rk_event_destroy(NULL);
    /* bundles */
    rk_bundle *b = NULL;
    CHECK(rk_bundle_load(ctx, NULL, &b)); CHECK(rk_bundle_load(ctx, "/nonexistent", &b)); CHECK(rk_bundle_load(ctx, "/etc/passwd", &b)); CHECK(rk_bundle_load(ctx, "/tmp", &b)); CHECK(rk_bundle_load(NULL, "/etc/passwd", &b));
    CHECK(rk_compile_bundle(ctx, src, sizeof src - 1, NULL, NULL)); CHECK(rk_compile_bundle(ctx, src, sizeof src - 1, NULL, "/nonexistent/dir/b"));
    /* tests/reliability: a private node (mknod c 1 7) stands for /dev/full, which a regression would destroy */
    if (getenv("REL_FULL_NODE")) CHECK(rk_compile_bundle(ctx, src, sizeof src - 1, NULL, getenv("REL_FULL_NODE")));
    printf("   bundle kernel_count(NULL)=%d name(NULL,0)=%p variant_count(NULL)=%d target(NULL)=%p\n", rk_bundle_kernel_count(NULL), (void*)rk_bundle_kernel_name(NULL, 0), rk_bundle_variant_count(NULL, "x"), (void*)rk_bundle_target(NULL));
    CHECK(rk_bundle_autotune(NULL, "x", args, 4, &k)); CHECK(rk_bundle_run(NULL, "x", NULL, args, 4, NULL)); rk_bundle_destroy(NULL);
    /* autotune */
    rk_kernel *best = NULL;
    CHECK(rk_autotune(ctx, src, sizeof src - 1, NULL, args, 4, NULL, &best));
    CHECK(rk_autotune(ctx, src, sizeof src - 1, "nope", args, 4, NULL, &best));
    CHECK(rk_autotune(ctx, src, sizeof src - 1, "vadd", args, 2, NULL, &best));
    CHECK(rk_autotune(ctx, src, sizeof src - 1, "vadd", args, 4, NULL, NULL));
    CHECK(rk_run(ctx, src, sizeof src - 1, "vadd", NULL, NULL, 4, NULL, NULL));
    CHECK(rk_run(ctx, src, sizeof src - 1, "vadd", NULL, args, 4, NULL, NULL));
    rk_stats st; CHECK(rk_get_stats(NULL, &st)); CHECK(rk_get_stats(ctx, NULL));
    rk_device_info di; CHECK(rk_device_get_info(NULL, &di)); CHECK(rk_device_get_info(ctx, NULL));
    /* program destroyed, then its kernel used (UAF: does the library notice?) */
    if (argc > 2 && strcmp(argv[2], "uaf") == 0) {
        rk_program_destroy(p);
        CHECK(rk_launch(k, NULL, args, 4, NULL));
    }
    if (argc > 2 && strcmp(argv[2], "ctxfirst") == 0) {
        rk_ctx_destroy(ctx);
        printf("ctx destroyed; now destroying program\n"); fflush(stdout);
        rk_program_destroy(p);
        printf("survived\n");
        return 0;
    }
    if (argc > 2 && strcmp(argv[2], "double") == 0) {
        rk_program_destroy(p);
        rk_program_destroy(p);
        printf("survived double program destroy\n");
    }
    rk_ctx_destroy(ctx);
    if (argc > 2 && strcmp(argv[2], "ctxdouble") == 0) { rk_ctx_destroy(ctx); printf("survived double ctx destroy\n"); }
    printf("done\n");
    return 0;
}
