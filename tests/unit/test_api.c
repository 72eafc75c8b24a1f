/* Tests of the C API (include/rk.h) on the host devices: compiling and the diagnostics, programs and
 * their kernels' signatures, every launch argument check with its message, @grid evaluation, the
 * interpreter end to end (a vector add with 1-D @grid, a 2-D tiled kernel on a 2-D grid, a zero grid,
 * out-of-bounds and device_assert failures, print), memory and events, the emu device with a shared
 * object built at test time from C written against the emu ABI, the cuda probe, the AMDGPU code object
 * check, IR dumps and the "none" device.
 *
 * The HIP no-device path is test_api_hip.c (skipped without libamdhip64), allocator failure injection
 * test_api_oom.c, contexts on several threads test_api_threads.c. */
#include <math.h>
#include <stdint.h>
#include <unistd.h>

#include "runtime/api/api_internal.h"
#include "tests/unit/test_api_util.h"

static rk_ctx *interp_ctx(void)
{
    rk_ctx_options o = {.device = "interp"};
    rk_ctx *ctx = NULL;
    rk_status st = rk_ctx_create(&o, &ctx);
    if (st != RK_OK) {
        fprintf(stderr, "cannot create an interp context: %s\n", rk_error(ctx));
        exit(1);
    }
    return ctx;
}

static rk_program *compile(rk_ctx *ctx, const char *src, const char *file)
{
    rk_compile_options co = {.filename = file};
    rk_program *p = NULL;
    rk_status st = rk_compile(ctx, src, strlen(src), &co, &p);
    if (st != RK_OK) {
        fprintf(stderr, "compile of %s failed: %s\n", file, rk_error(ctx));
        exit(1);
    }
    return p;
}

/* ---- compiling, diagnostics, kernels ---- */

static void test_compile(void)
{
    rk_ctx *ctx = interp_ctx();
    rk_device_info di;
    CHECK_OK(ctx, rk_device_get_info(ctx, &di));
    CHECK(strcmp(di.kind, "interp") == 0 && strcmp(di.target, "interp") == 0 && di.wave_size == 64);
    rk_program *p = compile(ctx, VADD_SRC, "vadd.tile");
    CHECK(strcmp(rk_program_target(p), "interp") == 0);
    const void *bin;
    size_t size;
    CHECK_OK(ctx, rk_program_binary(p, &bin, &size));
    CHECK(size > 0 && strstr(bin, "kernel @vadd") && strstr(bin, "grid @vadd"));
    CHECK(rk_program_kernel_count(p) == 2);
    rk_kernel *k;
    CHECK_OK(ctx, rk_program_kernel(p, "vadd", &k));
    rk_kernel_info info;
    CHECK_OK(ctx, rk_kernel_get_info(k, &info));
    CHECK(strcmp(info.name, "vadd") == 0 && info.num_params == 4 && info.num_warps == 4 && info.block_size == 256 &&
          info.has_grid);
    static const char *const names[] = {"x", "y", "out", "n"};
    for (int i = 0; i < 4; i++) {
        rk_param prm;
        CHECK_OK(ctx, rk_kernel_get_param(k, i, &prm));
        CHECK(strcmp(prm.name, names[i]) == 0);
        CHECK(prm.kind == (i < 3 ? RK_PARAM_POINTER : RK_PARAM_SCALAR));
        CHECK(prm.dtype == (i < 3 ? RK_F32 : RK_I32));
    }
    rk_param prm;
    CHECK(rk_kernel_get_param(k, 4, &prm) == RK_EINVAL);
    rk_kernel *f;
    CHECK_OK(ctx, rk_program_kernel_at(p, 1, &f));
    CHECK_OK(ctx, rk_kernel_get_info(f, &info));
    CHECK(strcmp(info.name, "fill") == 0 && info.num_params == 5 && !info.has_grid);
    CHECK_ST(ctx, rk_program_kernel(p, "nope", &k), RK_ENOTFOUND,
             "no kernel named 'nope' in the program (kernels: vadd, fill)");
    CHECK_ST(ctx, rk_program_kernel_at(p, 2, &k), RK_EINVAL, "no kernel 2 (the program has 2)");
    rk_program_destroy(p);

    /* -D and the kernel filter. */
    rk_define defs[] = {{"BLOCK", "128"}};
    rk_compile_options co = {.filename = "vadd.tile", .defines = defs, .ndefines = 1, .kernel = "vadd"};
    CHECK_OK(ctx, rk_compile(ctx, VADD_SRC, strlen(VADD_SRC), &co, &p));
    CHECK(rk_program_kernel_count(p) == 1);
    rk_program_binary(p, &bin, &size);
    CHECK(strstr(bin, "end = 128") != NULL);
    rk_program_destroy(p);

    /* Bad options. */
    co = (rk_compile_options){.target = "gfx000"};
    CHECK_ST(ctx, rk_compile(ctx, "", 0, &co, &p), RK_EINVAL, "unknown target 'gfx000'; known targets:");
    co = (rk_compile_options){.target = "sm_90"};
    CHECK_OK(ctx, rk_compile(ctx, "", 0, &co, &p));
    rk_program_destroy(p);
    co = (rk_compile_options){.opt_level = 7};
    CHECK_ST(ctx, rk_compile(ctx, "", 0, &co, &p), RK_EINVAL, "opt_level 7");
    CHECK(rk_compile(ctx, "", 0, NULL, NULL) == RK_EINVAL);
    CHECK(rk_compile(NULL, "", 0, NULL, &p) == RK_EINVAL);
    rk_ctx_destroy(ctx);
}

static void test_diagnostics(void)
{
    rk_ctx *ctx = interp_ctx();
    static const char src[] = "kernel k(x: *f32)\n"
                              "{\n"
                              "    store(x + arange(64), undefined_name);\n"
                              "}\n";
    rk_compile_options co = {.filename = "bad.tile"};
    rk_program *p = (rk_program *)1;
    CHECK_ST(ctx, rk_compile(ctx, src, strlen(src), &co, &p), RK_ECOMPILE, "bad.tile:3:27: error: ");
    CHECK(p == NULL);
    CHECK(rk_diag_count(ctx) >= 1);
    rk_diag d;
    CHECK_OK(ctx, rk_diag_get(ctx, 0, &d));
    CHECK(d.severity == RK_SEVERITY_ERROR);
    CHECK(d.file && strcmp(d.file, "bad.tile") == 0 && d.line == 3 && d.column == 27);
    CHECK(d.message && strstr(d.message, "undefined_name"));
    CHECK(d.source_line && strcmp(d.source_line, "    store(x + arange(64), undefined_name);") == 0);
    CHECK(d.caret == 26);
    CHECK(d.text && strncmp(d.text, "bad.tile:3:27: error: ", 22) == 0 &&
          strstr(d.text, "\n    store(x + arange(64), undefined_name);\n                          ^\n"));
    CHECK(rk_diag_get(ctx, rk_diag_count(ctx), &d) == RK_EINVAL);
    /* A syntax error; then a good compile clears the diagnostics. */
    CHECK_ST(ctx, rk_compile(ctx, "kernel k( {", 11, NULL, &p), RK_ECOMPILE, "<source>:1:11: error: unexpected '{'");
    CHECK(rk_diag_count(ctx) == 1);
    p = compile(ctx, VADD_SRC, "vadd.tile");
    CHECK(rk_diag_count(ctx) == 0);
    CHECK(strcmp(rk_error(ctx), "") == 0);
    rk_program_destroy(p);
    rk_ctx_destroy(ctx);
}

/* ---- launch argument checks ---- */

static void test_launch_checks(void)
{
    rk_ctx *ctx = interp_ctx();
    rk_program *p = compile(ctx, VADD_SRC, "vadd.tile");
    rk_kernel *k, *f;
    rk_program_kernel(p, "vadd", &k);
    rk_program_kernel(p, "fill", &f);
    void *x, *y, *out;
    CHECK_OK(ctx, rk_malloc(ctx, 1024, &x));
    CHECK_OK(ctx, rk_malloc(ctx, 1024, &y));
    CHECK_OK(ctx, rk_malloc(ctx, 1024, &out));
    CHECK(((uintptr_t)x % 256) == 0);
    rk_arg a[5] = {rk_arg_ptr(x), rk_arg_ptr(y), rk_arg_ptr(out), rk_arg_i32(256)};

    CHECK_ST(ctx, rk_launch(k, NULL, a, 3, NULL), RK_ELAUNCH,
             "kernel vadd takes 4 arguments (x: *f32, y: *f32, out: *f32, n: i32), got 3");
    CHECK_ST(ctx, rk_launch(k, NULL, a, 5, NULL), RK_ELAUNCH, "takes 4 arguments");
    rk_arg b[4] = {rk_arg_i32(1), a[1], a[2], a[3]};
    CHECK_ST(ctx, rk_launch(k, NULL, b, 4, NULL), RK_ELAUNCH,
             "kernel vadd, argument 1 'x' (*f32): expected a pointer (rk_arg_ptr), got i32 1");
    b[0] = a[0];
    b[3] = rk_arg_ptr(x);
    CHECK_ST(ctx, rk_launch(k, NULL, b, 4, NULL), RK_ELAUNCH,
             "kernel vadd, argument 4 'n' (i32): expected a scalar, got a pointer");
    b[3] = rk_arg_i32(1);
    b[3].dtype = (rk_dtype)77;
    CHECK_ST(ctx, rk_launch(k, NULL, b, 4, NULL), RK_ELAUNCH, "argument 4 'n' (i32): got an argument of invalid dtype 77");
    CHECK_ST(ctx, rk_launch(k, NULL, NULL, 4, NULL), RK_EINVAL, "kernel vadd: args is NULL but nargs is 4");
    b[3] = a[3];
    b[1] = rk_arg_ptr((char *)y + 4);
    CHECK_ST(ctx, rk_launch(k, NULL, b, 4, NULL), RK_ELAUNCH, "argument 2 'y' (*f32): pointer 0x");
    CHECK_ST(ctx, rk_launch(k, NULL, b, 4, NULL), RK_ELAUNCH, "is not 16-byte aligned");
    float host[64];
    b[1] = rk_arg_ptr(host);
    CHECK_ST(ctx, rk_launch(k, NULL, b, 4, NULL), RK_ELAUNCH,
             "is not inside memory from rk_malloc on this context (a host pointer?)");
    b[1] = a[1];
    rk_stream *s = (rk_stream *)&host;
    CHECK_ST(ctx, rk_launch(k, NULL, a, 4, s), RK_EUNSUPPORTED, "streams are not implemented yet");

    /* Scalars: lossless conversions only. */
    rk_arg c[5] = {rk_arg_ptr(out), rk_arg_i64(5), rk_arg_f64(0.5), rk_arg_bool(true), rk_arg_u8(7)};
    uint32_t one[3] = {1, 1, 1};
    CHECK_OK(ctx, rk_launch(f, one, c, 5, NULL));
    int32_t v = 0;
    CHECK_OK(ctx, rk_memcpy_dtoh(ctx, &v, out, 4));
    CHECK(v == 5);
    c[1] = rk_arg_i64(INT64_C(1) << 31);
    CHECK_ST(ctx, rk_launch(f, one, c, 5, NULL), RK_ELAUNCH,
             "kernel fill, argument 2 'v' (i32): got i64 2147483648, which does not fit in i32");
    c[1] = rk_arg_u32(0x7fffffff);
    CHECK_OK(ctx, rk_launch(f, one, c, 5, NULL));
    c[1] = rk_arg_f32(1.0f);
    CHECK_ST(ctx, rk_launch(f, one, c, 5, NULL), RK_ELAUNCH, "a float does not convert to an integer parameter");
    c[1] = rk_arg_bool(true);
    CHECK_ST(ctx, rk_launch(f, one, c, 5, NULL), RK_ELAUNCH, "a bool does not convert to a number");
    c[1] = rk_arg_i32(-7);
    c[2] = rk_arg_f64(0.1);
    CHECK_ST(ctx, rk_launch(f, one, c, 5, NULL), RK_ELAUNCH,
             "argument 3 'scale' (f32): got f64 0.10000000000000001, which is not exactly representable as f32 (pass "
             "rk_arg_f32)");
    c[2] = rk_arg_i64(16777217); /* 2^24 + 1 */
    CHECK_ST(ctx, rk_launch(f, one, c, 5, NULL), RK_ELAUNCH, "not exactly representable as f32");
    c[2] = rk_arg_i64(16777216);
    CHECK_OK(ctx, rk_launch(f, one, c, 5, NULL));
    c[2] = rk_arg_f16(0x3c00); /* 1.0 */
    CHECK_OK(ctx, rk_launch(f, one, c, 5, NULL));
    c[2] = rk_arg_f64(NAN);
    CHECK_OK(ctx, rk_launch(f, one, c, 5, NULL));
    c[2] = rk_arg_f32(2.0f);
    c[3] = rk_arg_i32(1);
    CHECK_ST(ctx, rk_launch(f, one, c, 5, NULL), RK_ELAUNCH,
             "argument 4 'flag' (bool): got i32 1; a bool takes rk_arg_bool");
    c[3] = rk_arg_bool(false);
    c[4] = rk_arg_i32(-1);
    CHECK_ST(ctx, rk_launch(f, one, c, 5, NULL), RK_ELAUNCH,
             "argument 5 'big' (u32): got i32 -1, which does not fit in u32");
    c[4] = rk_arg_u64(UINT64_C(1) << 32);
    CHECK_ST(ctx, rk_launch(f, one, c, 5, NULL), RK_ELAUNCH, "does not fit in u32");
    c[4] = rk_arg_u64(UINT32_MAX);
    CHECK_OK(ctx, rk_launch(f, one, c, 5, NULL));

    /* No grid and no @grid. */
    CHECK_ST(ctx, rk_launch(f, NULL, c, 5, NULL), RK_ELAUNCH, "kernel fill has no @grid: give the launch a grid");
    uint32_t g[3];
    CHECK_ST(ctx, rk_kernel_grid(f, c, 5, g), RK_ELAUNCH, "has no @grid");
    /* @grid: cdiv(n, 64). */
    a[3] = rk_arg_i32(1000);
    CHECK_OK(ctx, rk_kernel_grid(k, a, 4, g));
    CHECK(g[0] == 16 && g[1] == 1 && g[2] == 1);
    a[3] = rk_arg_i32(0);
    CHECK_OK(ctx, rk_kernel_grid(k, a, 4, g));
    CHECK(g[0] == 0);
    a[3] = rk_arg_i32(-1000);
    CHECK_ST(ctx, rk_kernel_grid(k, a, 4, g), RK_ELAUNCH, "the @grid of kernel vadd: grid function vadd returned size");

    /* A grid with a zero dimension runs nothing. */
    CHECK_OK(ctx, rk_memset(ctx, out, 0x11, 1024));
    uint32_t zero[3] = {4, 0, 1};
    a[3] = rk_arg_i32(256);
    CHECK_OK(ctx, rk_launch(k, zero, a, 4, NULL));
    unsigned char bytes[1024];
    CHECK_OK(ctx, rk_memcpy_dtoh(ctx, bytes, out, 1024));
    CHECK(bytes[0] == 0x11 && bytes[1023] == 0x11);

    rk_program_destroy(p);
    rk_ctx_destroy(ctx); /* frees x, y and out */
}

/* ---- the interpreter end to end ---- */

static void test_vadd(void)
{
    rk_ctx *ctx = interp_ctx();
    rk_program *p = compile(ctx, VADD_SRC, "vadd.tile");
    rk_kernel *k;
    CHECK_OK(ctx, rk_program_kernel(p, "vadd", &k));
    enum { N = 1000 };
    float *hx = malloc(N * 4), *hy = malloc(N * 4), *ho = malloc(N * 4);
    for (int i = 0; i < N; i++) {
        hx[i] = (float)i * 0.25f;
        hy[i] = 1000.0f - (float)i;
    }
    void *x, *y, *out;
    CHECK_OK(ctx, rk_malloc(ctx, N * 4, &x));
    CHECK_OK(ctx, rk_malloc(ctx, N * 4, &y));
    CHECK_OK(ctx, rk_malloc(ctx, N * 4, &out));
    /* Fresh memory on host devices is 0xFF bytes. */
    CHECK_OK(ctx, rk_memcpy_dtoh(ctx, ho, out, N * 4));
    uint32_t bits;
    memcpy(&bits, &ho[N - 1], 4);
    CHECK(bits == 0xFFFFFFFFu);
    CHECK_OK(ctx, rk_memcpy_htod(ctx, x, hx, N * 4));
    CHECK_OK(ctx, rk_memcpy_htod(ctx, y, hy, N * 4));
    rk_arg args[] = {rk_arg_ptr(x), rk_arg_ptr(y), rk_arg_ptr(out), rk_arg_i32(N)};
    CHECK_OK(ctx, rk_launch(k, NULL, args, 4, NULL));
    CHECK_OK(ctx, rk_synchronize(ctx));
    CHECK_OK(ctx, rk_memcpy_dtoh(ctx, ho, out, N * 4));
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += ho[i] != hx[i] + hy[i];
    CHECK(bad == 0);
    /* Device to device, and the range checks of copies. */
    CHECK_OK(ctx, rk_memcpy_dtod(ctx, y, out, N * 4));
    CHECK_ST(ctx, rk_memcpy_htod(ctx, (char *)x + 4, hx, N * 4), RK_EINVAL,
             "rk_memcpy_htod: [0x");
    CHECK_ST(ctx, rk_memcpy_dtoh(ctx, ho, hx, 4), RK_EINVAL, "is not inside memory from rk_malloc on this context");
    CHECK_ST(ctx, rk_memset(ctx, hx, 0, 4), RK_EINVAL, "rk_memset:");
    CHECK_ST(ctx, rk_free(ctx, (char *)x + 16), RK_EINVAL, "is not a pointer rk_malloc returned on this context");
    void *z = (void *)1;
    CHECK_OK(ctx, rk_malloc(ctx, 0, &z));
    CHECK(z == NULL);
    CHECK_OK(ctx, rk_free(ctx, NULL));
    /* Out of bounds: n larger than the buffers. */
    args[3] = rk_arg_i32(N + 1);
    CHECK_ST(ctx, rk_launch(k, NULL, args, 4, NULL), RK_EKERNEL, "out-of-bounds load of 4 bytes at 0x");
    CHECK_ST(ctx, rk_launch(k, NULL, args, 4, NULL), RK_EKERNEL, "kernel vadd, workgroup (15, 0, 0): out-of-bounds load of 4 bytes at 0x");
    /* A freed buffer is no longer an argument. */
    CHECK_OK(ctx, rk_free(ctx, x));
    CHECK_ST(ctx, rk_launch(k, NULL, args, 4, NULL), RK_ELAUNCH, "argument 1 'x' (*f32)");
    /* Events. */
    rk_event *e0, *e1;
    CHECK_OK(ctx, rk_event_create(ctx, &e0));
    CHECK_OK(ctx, rk_event_create(ctx, &e1));
    float ms = -1;
    CHECK_ST(ctx, rk_event_elapsed(e0, e1, &ms), RK_EINVAL, "event not recorded");
    CHECK_OK(ctx, rk_event_record(e0, NULL));
    CHECK_OK(ctx, rk_event_record(e1, NULL));
    CHECK_OK(ctx, rk_event_elapsed(e0, e1, &ms));
    CHECK(ms >= 0 && ms < 1000);
    rk_event_destroy(e0); /* e1 goes with the context */
    free(hx);
    free(hy);
    free(ho);
    rk_program_destroy(p);
    rk_ctx_destroy(ctx);
}

/* A 2-D tiled kernel over a 2-D @grid: out[i, j] = a[i, j] * 2 + i, M x N row-major, tiles of 16 x 32. */
static const char MAT_SRC[] =
    "@grid(cdiv(M, BM), cdiv(N, BN))\n"
    "kernel mat(a: *f32, out: *f32, M: i32, N: i32, const BM: i32 = 16, const BN: i32 = 32)\n"
    "{\n"
    "    let rm = program_id(0) * BM + arange(BM);\n"
    "    let rn = program_id(1) * BN + arange(BN);\n"
    "    let offs = rm[:, None] * N + rn[None, :];\n"
    "    let m = (rm[:, None] < M) & (rn[None, :] < N);\n"
    "    let v = load(a + offs, mask = m);\n"
    "    store(out + offs, v * 2.0 + rm[:, None] as f32, mask = m);\n"
    "}\n"
    "\n"
    "kernel ids(out: *i32)\n"
    "{\n"
    "    let w = num_programs(0);\n"
    "    store(out + program_id(1) * w + program_id(0), program_id(0) + 100 * program_id(1));\n"
    "}\n";

static void test_2d(void)
{
    rk_ctx *ctx = interp_ctx();
    rk_program *p = compile(ctx, MAT_SRC, "mat.tile");
    rk_kernel *k, *ids;
    CHECK_OK(ctx, rk_program_kernel(p, "mat", &k));
    CHECK_OK(ctx, rk_program_kernel(p, "ids", &ids));
    enum { M = 37, N = 70 };
    float *ha = malloc(M * N * 4), *ho = malloc(M * N * 4);
    for (int i = 0; i < M * N; i++)
        ha[i] = (float)(i % 97) - 40.0f;
    void *a, *out;
    CHECK_OK(ctx, rk_malloc(ctx, M * N * 4, &a));
    CHECK_OK(ctx, rk_malloc(ctx, M * N * 4, &out));
    CHECK_OK(ctx, rk_memcpy_htod(ctx, a, ha, M * N * 4));
    rk_arg args[] = {rk_arg_ptr(a), rk_arg_ptr(out), rk_arg_i32(M), rk_arg_i32(N)};
    uint32_t g[3];
    CHECK_OK(ctx, rk_kernel_grid(k, args, 4, g));
    CHECK(g[0] == 3 && g[1] == 3 && g[2] == 1);
    CHECK_OK(ctx, rk_launch(k, NULL, args, 4, NULL));
    CHECK_OK(ctx, rk_memcpy_dtoh(ctx, ho, out, M * N * 4));
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            bad += ho[i * N + j] != ha[i * N + j] * 2.0f + (float)i;
    CHECK(bad == 0);
    /* An explicit 3-D grid. */
    int32_t hid[5 * 3 * 2];
    void *o2;
    CHECK_OK(ctx, rk_malloc(ctx, sizeof hid, &o2));
    uint32_t grid[3] = {5, 3, 1};
    rk_arg a2[] = {rk_arg_ptr(o2)};
    CHECK_OK(ctx, rk_launch(ids, grid, a2, 1, NULL));
    CHECK_OK(ctx, rk_memcpy_dtoh(ctx, hid, o2, 5 * 3 * 4));
    bad = 0;
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 5; x++)
            bad += hid[y * 5 + x] != x + 100 * y;
    CHECK(bad == 0);
    free(ha);
    free(ho);
    rk_program_destroy(p);
    rk_ctx_destroy(ctx);
}

typedef struct Lines {
    char text[8][128];
    int n;
} Lines;

static void collect(void *ud, const char *line)
{
    Lines *l = ud;
    if (l->n < 8)
        snprintf(l->text[l->n], sizeof l->text[0], "%s", line);
    l->n++;
}

static void test_assert_and_print(void)
{
    static const char src[] = "kernel check(x: *i32, n: i32)\n"
                              "{\n"
                              "    let v = load(x + arange(16));\n"
                              "    print(\"first\", v);\n"
                              "    device_assert(v < n, \"value out of range\");\n"
                              "}\n";
    Lines lines = {0};
    rk_ctx_options o = {.device = "interp", .print = collect, .print_ud = &lines};
    rk_ctx *ctx;
    CHECK(rk_ctx_create(&o, &ctx) == RK_OK);
    rk_program *p = compile(ctx, src, "check.tile");
    rk_kernel *k;
    rk_program_kernel(p, "check", &k);
    int32_t h[16];
    for (int i = 0; i < 16; i++)
        h[i] = i;
    void *x;
    CHECK_OK(ctx, rk_malloc(ctx, sizeof h, &x));
    CHECK_OK(ctx, rk_memcpy_htod(ctx, x, h, sizeof h));
    uint32_t one[3] = {1, 1, 1};
    rk_arg args[] = {rk_arg_ptr(x), rk_arg_i32(16)};
    CHECK_OK(ctx, rk_launch(k, one, args, 2, NULL));
    CHECK(lines.n == 16 && strstr(lines.text[0], "first") != NULL);
    args[1] = rk_arg_i32(10);
    CHECK_ST(ctx, rk_launch(k, one, args, 2, NULL), RK_EKERNEL,
             "kernel check, workgroup (0, 0, 0): assertion failed: value out of range (check.tile:5:5)");
    rk_program_destroy(p);
    rk_ctx_destroy(ctx);
}

/* ---- the emu device ---- */

static const char EMU_C[] =
    "#include <stdint.h>\n"
    "#include \"isa/emu_abi.h\"\n"
    "typedef struct { const float *x, *y; float *out; int32_t n; } Args;\n"
    "void vadd(const void *ka, EmuLane *l)\n"
    "{\n"
    "    const Args *a = ka;\n"
    "    uint32_t i = l->wg[0] * l->block + l->lane;\n"
    "    if (i >= (uint32_t)a->n)\n"
    "        return;\n"
    "    l->fns->check(l, &a->x[i], 4, EMU_ACCESS_LOAD, \"vadd.tile:6:30\");\n"
    "    l->fns->check(l, &a->y[i], 4, EMU_ACCESS_LOAD, \"vadd.tile:6:50\");\n"
    "    l->fns->check(l, &a->out[i], 4, EMU_ACCESS_STORE, \"vadd.tile:6:5\");\n"
    "    a->out[i] = a->x[i] + a->y[i];\n"
    "}\n";

/* Builds the emu shared object with the system's C compiler; NULL (and a note) when there is none. */
static void *build_emu_so(size_t *size, char *dir)
{
    char path[256], cmd[1024];
    snprintf(path, sizeof path, "%s/vadd.c", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fputs(EMU_C, f);
    fclose(f);
    char cwd[512];
    if (!getcwd(cwd, sizeof cwd))
        return NULL;
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -O1 -I'%s' -o '%s/vadd.so' '%s' 2>&1", cwd, dir, path);
    if (system(cmd) != 0) {
        printf("note: no C compiler to build the emu test object: emu device test skipped\n");
        return NULL;
    }
    snprintf(path, sizeof path, "%s/vadd.so", dir);
    f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *buf = malloc((size_t)n);
    *size = fread(buf, 1, (size_t)n, f);
    fclose(f);
    return buf;
}

static void test_emu(void)
{
    char dir[] = "/tmp/rk-test-api-XXXXXX";
    if (!mkdtemp(dir))
        return;
    size_t size = 0;
    void *so = build_emu_so(&size, dir);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "note: could not remove %s\n", dir);
    if (!so)
        return;
    rk_ctx_options o = {.device = "emu", .host_threads = 2};
    rk_ctx *ctx;
    CHECK(rk_ctx_create(&o, &ctx) == RK_OK);
    rk_device_info di;
    rk_device_get_info(ctx, &di);
    CHECK(strcmp(di.kind, "emu") == 0 && strcmp(di.target, "emu") == 0);
    /* The program as the compiler will describe it: one warp of 64 lanes. */
    rk_param params[] = {{"x", RK_PARAM_POINTER, RK_F32}, {"y", RK_PARAM_POINTER, RK_F32},
                         {"out", RK_PARAM_POINTER, RK_F32}, {"n", RK_PARAM_SCALAR, RK_I32}};
    RtKernelDesc kd = {"vadd", "vadd", params, 4, 1, 64, 0, NULL, NULL, NULL, NULL, NULL, NULL};
    rk_program *p;
    CHECK_OK(ctx, rt_program_new(ctx, "emu", so, size, &kd, 1, &p));
    rk_kernel *k;
    CHECK_OK(ctx, rk_program_kernel(p, "vadd", &k));
    enum { N = 1000 };
    float hx[N], hy[N], ho[N];
    for (int i = 0; i < N; i++) {
        hx[i] = (float)i;
        hy[i] = 0.5f * (float)i;
    }
    void *x, *y, *out;
    CHECK_OK(ctx, rk_malloc(ctx, sizeof hx, &x));
    CHECK_OK(ctx, rk_malloc(ctx, sizeof hy, &y));
    CHECK_OK(ctx, rk_malloc(ctx, sizeof ho, &out));
    rk_memcpy_htod(ctx, x, hx, sizeof hx);
    rk_memcpy_htod(ctx, y, hy, sizeof hy);
    rk_arg args[] = {rk_arg_ptr(x), rk_arg_ptr(y), rk_arg_ptr(out), rk_arg_i32(N)};
    uint32_t grid[3] = {(N + 63) / 64, 1, 1};
    CHECK_OK(ctx, rk_launch(k, grid, args, 4, NULL));
    CHECK_OK(ctx, rk_memcpy_dtoh(ctx, ho, out, sizeof ho));
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += ho[i] != 1.5f * (float)i;
    CHECK(bad == 0);
    args[3] = rk_arg_i32(N + 5);
    CHECK_ST(ctx, rk_launch(k, grid, args, 4, NULL), RK_EKERNEL, "vadd.tile:6:30");
    /* A second program from the same bytes loads beside the first. */
    rk_program *p2;
    CHECK_OK(ctx, rt_program_new(ctx, "emu", so, size, &kd, 1, &p2));
    rk_kernel *k2;
    rk_program_kernel(p2, "vadd", &k2);
    args[3] = rk_arg_i32(N);
    CHECK_OK(ctx, rk_launch(k2, grid, args, 4, NULL));
    rk_program_destroy(p2);
    /* A symbol that is not there, bytes that are not a shared object, a program for another target. */
    RtKernelDesc missing = {"nope", "nope", params, 4, 1, 64, 0, NULL, NULL, NULL, NULL, NULL, NULL};
    CHECK_OK(ctx, rt_program_new(ctx, "emu", so, size, &missing, 1, &p2));
    rk_program_kernel(p2, "nope", &k2);
    CHECK_ST(ctx, rk_launch(k2, grid, args, 4, NULL), RK_ENOTFOUND, "no kernel 'nope' in the emu code object");
    rk_program_destroy(p2);
    CHECK_OK(ctx, rt_program_new(ctx, "emu", "\x7f" "ELFjunk", 8, &kd, 1, &p2));
    rk_program_kernel(p2, "vadd", &k2);
    CHECK_ST(ctx, rk_launch(k2, grid, args, 4, NULL), RK_EDEVICE, "cannot load the emu code object:");
    rk_program_destroy(p2);
    /* The real shared object cut short anywhere past its ELF header (dlopen died with SIGBUS on these
     * before runtime/device/elf_check.c), and with its section header table pointing past the end. */
    for (int cut = 1; cut < 16; cut++) {
        size_t n = size * (size_t)cut / 16;
        if (n < 64)
            continue;
        CHECK_OK(ctx, rt_program_new(ctx, "emu", so, n, &kd, 1, &p2));
        rk_program_kernel(p2, "vadd", &k2);
        CHECK_ST(ctx, rk_launch(k2, grid, args, 4, NULL), RK_EDEVICE, "truncated or corrupt code object");
        rk_program_destroy(p2);
    }
    CHECK_OK(ctx, rt_program_new(ctx, "emu", so, size - 1, &kd, 1, &p2));
    rk_program_kernel(p2, "vadd", &k2);
    CHECK_ST(ctx, rk_launch(k2, grid, args, 4, NULL), RK_EDEVICE, "truncated or corrupt code object");
    rk_program_destroy(p2);
    CHECK_OK(ctx, rt_program_new(ctx, "interp", "", 0, &kd, 1, &p2));
    rk_program_kernel(p2, "vadd", &k2);
    CHECK_ST(ctx, rk_launch(k2, grid, args, 4, NULL), RK_EUNSUPPORTED,
             "the program was compiled for target interp, but device emu (emu) runs emu");
    /* A pointer from another context is not this context's memory. */
    rk_ctx *other = interp_ctx();
    void *foreign;
    CHECK_OK(other, rk_malloc(other, 256, &foreign));
    args[0] = rk_arg_ptr(foreign);
    CHECK_ST(ctx, rk_launch(k, grid, args, 4, NULL), RK_ELAUNCH, "is not inside memory from rk_malloc on this context");
    rk_ctx_destroy(other);
    /* On emu_sm90 (warps of 32) an object that exports no <kernel>.rk_wave = 32 is refused. */
    rk_ctx *sm;
    rk_ctx_options so90 = {.device = "emu_sm90"};
    CHECK(rk_ctx_create(&so90, &sm) == RK_OK);
    rk_device_get_info(sm, &di);
    CHECK(strcmp(di.kind, "emu_sm90") == 0 && strcmp(di.target, "emu_sm90") == 0 && di.wave_size == 32);
    CHECK_OK(sm, rt_program_new(sm, "emu_sm90", so, size, &kd, 1, &p2));
    rk_program_kernel(p2, "vadd", &k2);
    void *sbuf;
    CHECK_OK(sm, rk_malloc(sm, sizeof hx, &sbuf));
    rk_arg sargs[] = {rk_arg_ptr(sbuf), rk_arg_ptr(sbuf), rk_arg_ptr(sbuf), rk_arg_i32(N)};
    CHECK_ST(sm, rk_launch(k2, grid, sargs, 4, NULL), RK_EUNSUPPORTED,
             "kernel 'vadd' was compiled for waves of 64 lanes; device emu_sm90 runs 32");
    rk_ctx_destroy(sm);
    free(so);
    rk_ctx_destroy(ctx); /* p and p2 go with it */
}

/* The compiler's own emu code on the emu device: the vector add and the 2-D kernel. */
static void test_emu_compiled(void)
{
    rk_ctx_options o = {.device = "emu"};
    rk_ctx *ctx;
    CHECK(rk_ctx_create(&o, &ctx) == RK_OK);
    rk_compile_options co = {.filename = "mat.tile"};
    rk_program *p;
    rk_status st = rk_compile(ctx, MAT_SRC, strlen(MAT_SRC), &co, &p);
    if (st == RK_EUNSUPPORTED) { /* a build whose compiler cannot generate emu code yet */
        printf("note: %s: compiled emu test skipped\n", rk_error(ctx));
        rk_ctx_destroy(ctx);
        return;
    }
    CHECK_OK(ctx, st);
    if (st != RK_OK) {
        rk_ctx_destroy(ctx);
        return;
    }
    const void *bin;
    size_t size;
    rk_program_binary(p, &bin, &size);
    CHECK(size > 4 && memcmp(bin, "\x7f" "ELF", 4) == 0);
    rk_kernel *k;
    CHECK_OK(ctx, rk_program_kernel(p, "mat", &k));
    enum { M = 37, N = 70 };
    float *ha = malloc(M * N * 4), *ho = malloc(M * N * 4);
    for (int i = 0; i < M * N; i++)
        ha[i] = (float)(i % 89) - 30.0f;
    void *a, *out;
    CHECK_OK(ctx, rk_malloc(ctx, M * N * 4, &a));
    CHECK_OK(ctx, rk_malloc(ctx, M * N * 4, &out));
    CHECK_OK(ctx, rk_memcpy_htod(ctx, a, ha, M * N * 4));
    rk_arg args[] = {rk_arg_ptr(a), rk_arg_ptr(out), rk_arg_i32(M), rk_arg_i32(N)};
    CHECK_OK(ctx, rk_launch(k, NULL, args, 4, NULL));
    CHECK_OK(ctx, rk_memcpy_dtoh(ctx, ho, out, M * N * 4));
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            bad += ho[i * N + j] != ha[i * N + j] * 2.0f + (float)i;
    CHECK(bad == 0);
    /* Too large an M reads past the buffer: the emulator names the lane and the source position. */
    args[2] = rk_arg_i32(M + 1);
    CHECK_ST(ctx, rk_launch(k, NULL, args, 4, NULL), RK_EKERNEL, "out-of-bounds load of 4 bytes at 0x");
    CHECK_ST(ctx, rk_launch(k, NULL, args, 4, NULL), RK_EKERNEL, "(mat.tile:8:");
    free(ha);
    free(ho);
    rk_ctx_destroy(ctx);
}

/* ---- other devices, code objects, dumps ---- */

static void test_devices(void)
{
    rk_ctx *ctx = NULL;
    rk_ctx_options o = {.device = "bogus"};
    CHECK(rk_ctx_create(&o, &ctx) == RK_ENODEVICE && ctx);
    CHECK(strstr(rk_error(ctx), "unknown device 'bogus'; known devices: hip, cuda, emu, emu_sm90, interp, none"));
    rk_ctx_destroy(ctx);
    o.device = "cuda";
    rk_status st = rk_ctx_create(&o, &ctx);
    CHECK((st == RK_ENODEVICE || st == RK_EUNSUPPORTED) && ctx && strstr(rk_error(ctx), "CUDA"));
    void *p = (void *)1;
    CHECK_ST(ctx, rk_malloc(ctx, 16, &p), st, "CUDA");
    rk_ctx_destroy(ctx);
    o.device = "interp";
    o.device_index = 1;
    CHECK(rk_ctx_create(&o, &ctx) == RK_ENODEVICE);
    rk_ctx_destroy(ctx);
    CHECK(rk_ctx_create(NULL, NULL) == RK_EINVAL);
    CHECK(strstr(rk_error(NULL), "no context"));

    /* "none": compiling works with a target, device calls do not. */
    o = (rk_ctx_options){.device = "none"};
    CHECK(rk_ctx_create(&o, &ctx) == RK_OK);
    rk_device_info di;
    rk_device_get_info(ctx, &di);
    CHECK(strcmp(di.kind, "none") == 0 && di.target == NULL);
    rk_compile_options co = {.target = "interp"};
    rk_program *prog;
    CHECK_OK(ctx, rk_compile(ctx, VADD_SRC, strlen(VADD_SRC), &co, &prog));
    CHECK(strcmp(rk_program_target(prog), "interp") == 0);
    co.target = "sm_90"; /* PTX, compiled without any device */
    CHECK_OK(ctx, rk_compile(ctx, VADD_SRC, strlen(VADD_SRC), &co, &prog));
    const char *ptx;
    size_t ptx_size;
    rk_program_binary(prog, (const void **)&ptx, &ptx_size);
    CHECK(ptx_size > 0 && strstr(ptx, ".target sm_90a") && strstr(ptx, ".entry"));
    rk_program_destroy(prog);
    /* A real gfx942 code object passes the check before hipModuleLoadData (which takes no size), and
     * no prefix of it does. */
    co.target = "gfx942";
    CHECK_OK(ctx, rk_compile(ctx, VADD_SRC, strlen(VADD_SRC), &co, &prog));
    const unsigned char *hsaco;
    size_t hsaco_size;
    rk_program_binary(prog, (const void **)&hsaco, &hsaco_size);
    char why[256];
    const char *harch = rt_amdgpu_elf_arch(hsaco, hsaco_size, why, sizeof why);
    CHECK(harch && strcmp(harch, "gfx942") == 0);
    for (size_t n = 64; n < hsaco_size; n += hsaco_size / 13 + 1)
        CHECK(!rt_amdgpu_elf_arch(hsaco, n, why, sizeof why) && strstr(why, "truncated or corrupt code object"));
    CHECK(!rt_amdgpu_elf_arch(hsaco, hsaco_size - 1, why, sizeof why));
    rk_program_destroy(prog);
    CHECK_ST(ctx, rk_malloc(ctx, 16, &p), RK_ENODEVICE, "the context has no device");
    CHECK_ST(ctx, rk_synchronize(ctx), RK_ENODEVICE, "no device");
    rk_event *ev;
    CHECK_ST(ctx, rk_event_create(ctx, &ev), RK_ENODEVICE, "no device");
    rk_ctx_destroy(ctx);

    /* The AMDGPU code object check. */
    unsigned char elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    elf[18] = 224;
    elf[48] = 0x4c;
    char msg[256];
    const char *arch = rt_amdgpu_elf_arch(elf, sizeof elf, msg, sizeof msg);
    CHECK(arch && strcmp(arch, "gfx942") == 0);
    CHECK(rt_amdgpu_arch_matches("gfx942", "gfx942:sramecc+:xnack-"));
    CHECK(!rt_amdgpu_arch_matches("gfx90a", "gfx942:sramecc+:xnack-"));
    CHECK(!rt_amdgpu_arch_matches("gfx94", "gfx942"));
    elf[48] = 0x3f;
    arch = rt_amdgpu_elf_arch(elf, sizeof elf, msg, sizeof msg);
    CHECK(arch && strcmp(arch, "gfx90a") == 0);
    elf[48] = 0x01;
    CHECK(!rt_amdgpu_elf_arch(elf, sizeof elf, msg, sizeof msg) &&
          strstr(msg, "unknown processor (EF_AMDGPU_MACH 0x01)"));
    elf[18] = 62;
    CHECK(!rt_amdgpu_elf_arch(elf, sizeof elf, msg, sizeof msg) && strstr(msg, "ELF machine 62"));
    CHECK(!rt_amdgpu_elf_arch("kernel", 6, msg, sizeof msg) && strstr(msg, "not an ELF file"));
}

typedef struct DumpSeen {
    int n;
    char stage[32], kernel[32];
} DumpSeen;

static void on_dump(void *ud, const char *stage, const char *kernel, const char *text)
{
    DumpSeen *d = ud;
    if (d->n++ == 0) {
        snprintf(d->stage, sizeof d->stage, "%s", stage);
        snprintf(d->kernel, sizeof d->kernel, "%s", kernel);
    }
    (void)text;
}

static void test_misc(void)
{
    DumpSeen seen = {0};
    rk_ctx_options o = {.device = "interp", .dump_ir = "tir", .dump = on_dump, .dump_ud = &seen};
    rk_ctx *ctx;
    CHECK(rk_ctx_create(&o, &ctx) == RK_OK);
    rk_program *p = compile(ctx, VADD_SRC, "vadd.tile");
    CHECK(seen.n == 2 && strcmp(seen.stage, "tir") == 0 && strcmp(seen.kernel, "vadd") == 0);
    rk_ctx_destroy(ctx); /* p with it */
    (void)p;
    CHECK(strcmp(rk_status_name(RK_ELAUNCH), "RK_ELAUNCH") == 0);
    CHECK(strcmp(rk_status_name((rk_status)99), "RK_UNKNOWN_STATUS") == 0);
    CHECK(strcmp(rk_dtype_name(RK_BF16), "bf16") == 0 && rk_dtype_size(RK_BF16) == 2);
    CHECK(rk_dtype_size(RK_BOOL) == 1 && rk_dtype_size((rk_dtype)42) == 0 && !rk_dtype_name((rk_dtype)-1));
    CHECK(rk_f16_from_double(1.0) == 0x3c00 && rk_bf16_from_double(1.0) == 0x3f80);
    CHECK(rk_f16_to_double(0xc000) == -2.0 && rk_bf16_to_double(0x4040) == 3.0);
    CHECK(rk_f16_from_double(65520.0) == 0x7c00); /* rounds to infinity */
    CHECK(strcmp(rk_version(), "0.1.0") == 0);
    rk_kernel *best = (rk_kernel *)1;
    ctx = interp_ctx();
    /* (the autotuner's own tests are test_autotune.c) */
    CHECK_ST(ctx, rk_autotune(ctx, "", 0, "k", NULL, 0, NULL, &best), RK_ENOTFOUND, "no kernel named 'k'");
    CHECK(best == NULL);
    CHECK_ST(ctx, rk_run(ctx, "", 0, "k", NULL, NULL, 0, NULL, NULL), RK_ENOTFOUND, "no kernel named 'k'");
    rk_ctx_destroy(ctx);
    rk_ctx_destroy(NULL);
    rk_program_destroy(NULL);
    rk_event_destroy(NULL);
}

int main(void)
{
    test_compile();
    test_diagnostics();
    test_launch_checks();
    test_vadd();
    test_2d();
    test_assert_and_print();
    test_emu();
    test_emu_compiled();
    test_devices();
    test_misc();
    return api_finish("test_api");
}
