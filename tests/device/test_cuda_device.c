/* The `cuda` device without an NVIDIA GPU: every way of not having one, and the device itself against
 * the fake driver (tests/device/fake_cuda.c), which checks the driver's rules and runs C models of a
 * few kernels. The driver is loaded once per process, so each scenario is its own CTest entry:
 *
 *     test_cuda_device nolib       RK_CUDA_LIB names no library: RK_ENODEVICE with the dlopen error
 *     test_cuda_device stub        the CUDA toolkit's stub libcuda: cuInit fails (skipped without it)
 *     test_cuda_device noinit      the fake with FAKE_CUDA_INIT_ERROR=100: CUDA_ERROR_NO_DEVICE, by name
 *     test_cuda_device nogpu       the fake with FAKE_CUDA_DEVICES=0
 *     test_cuda_device cc80        the fake as an sm_80 GPU: RK_EUNSUPPORTED, default order falls through
 *     test_cuda_device fake        the device on the fake: properties, memory, modules, launches, events
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rk.h"
#include "runtime/api/api_internal.h"

static int failures;

#define CHECK(c)                                                                                                   \
    do {                                                                                                           \
        if (!(c)) {                                                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);                                  \
            failures++;                                                                                            \
        }                                                                                                          \
    } while (0)

#define CHECK_MSG(ctx, st, want_st, want_msg)                                                                      \
    do {                                                                                                           \
        rk_status st_ = (st);                                                                                      \
        if (st_ != (want_st) || !strstr(rk_error(ctx), (want_msg))) {                                              \
            fprintf(stderr, "%s:%d: got %s \"%s\", expected %s with \"%s\"\n", __FILE__, __LINE__,                \
                    rk_status_name(st_), rk_error(ctx), rk_status_name(want_st), (want_msg));                     \
            failures++;                                                                                            \
        }                                                                                                          \
    } while (0)

typedef struct FakeCudaCounters {
    int live_allocs, live_modules, live_events;
    int launches, set_attribute_calls, primary_retains;
    unsigned last_shared, last_block, last_grid[3];
    int last_used_extra;
} FakeCudaCounters;

/* The context on `cuda` must fail with st and msg, stay usable as a compiler, and refuse device calls. */
static void expect_no_device(rk_status want, const char *msg)
{
    rk_ctx_options o = {.device = "cuda"};
    rk_ctx *ctx = NULL;
    CHECK_MSG(ctx, rk_ctx_create(&o, &ctx), want, msg);
    CHECK(ctx != NULL);
    printf("  cuda: %s: %s\n", rk_status_name(want), rk_error(ctx));
    void *p = (void *)1;
    CHECK_MSG(ctx, rk_malloc(ctx, 64, &p), want, msg);
    CHECK(p == NULL);
    rk_ctx_destroy(ctx);
    /* The same answer the second time (the driver is loaded once). */
    CHECK(rk_ctx_create(&o, &ctx) == want && strstr(rk_error(ctx), msg));
    rk_ctx_destroy(ctx);
    /* The default order skips it. */
    unsetenv("RK_DEVICE");
    CHECK(rk_ctx_create(NULL, &ctx) == RK_OK);
    rk_device_info di;
    rk_device_get_info(ctx, &di);
    CHECK(strcmp(di.kind, "emu") == 0 || strcmp(di.kind, "interp") == 0 || strcmp(di.kind, "hip") == 0);
    rk_ctx_destroy(ctx);
}

static const char vadd_src[] = "@grid(cdiv(n, BLOCK))\n"
                               "kernel vadd(x: *f32, y: *f32, out: *f32, n: i32, const BLOCK: i32 = 256)\n"
                               "{\n"
                               "    let offs = program_id(0) * BLOCK + arange(BLOCK);\n"
                               "    let m = offs < n;\n"
                               "    store(out + offs, load(x + offs, mask = m) + load(y + offs, mask = m), mask = m);\n"
                               "}\n";

/* A hand-written module for the fake: vecadd(x, y, out, n) with a .maxntid of 128 (the fake runs it as
 * its vecadd model), and an entry without parameters. */
static const char fake_ptx[] = ".version 8.0\n.target sm_90a\n.address_size 64\n"
                               ".extern .shared .align 16 .b8 rk_smem[];\n"
                               ".visible .entry vecadd(\n"
                               "\t.param .u64 .ptr .global .align 16 vecadd_param_0,\n"
                               "\t.param .u64 .ptr .global .align 16 vecadd_param_1,\n"
                               "\t.param .u64 .ptr .global .align 16 vecadd_param_2,\n"
                               "\t.param .u32 vecadd_param_3\n)\n.maxntid 128\n{\n\tret;\n}\n"
                               ".visible .entry empty()\n{\n\tret;\n}\n";

static void fake_device(void)
{
    rk_ctx_options o = {.device = "cuda"};
    rk_ctx *ctx = NULL;
    CHECK_MSG(ctx, rk_ctx_create(&o, &ctx), RK_OK, "");
    /* The library the device loaded: the same handle. */
    void *lib = dlopen(getenv("RK_CUDA_LIB"), RTLD_NOW | RTLD_LOCAL);
    FakeCudaCounters *fc = lib ? dlsym(lib, "fake_cuda_counters") : NULL;
    CHECK(fc != NULL);
    if (!fc || !ctx->dev) {
        rk_ctx_destroy(ctx);
        return;
    }
    rk_device_info di;
    rk_device_get_info(ctx, &di);
    printf("  cuda: %s, %s, target %s, %d SMs, %d B shared, warp %d, %llu B\n", di.name, di.arch, di.target,
           di.compute_units, di.lds_bytes, di.wave_size, (unsigned long long)di.global_memory);
    CHECK(strcmp(di.kind, "cuda") == 0 && strcmp(di.name, "Fake NVIDIA H200 0") == 0);
    CHECK(strcmp(di.arch, "sm_90") == 0 && strcmp(di.target, "sm_90") == 0);
    CHECK(di.compute_units == 132 && di.lds_bytes == 232448 && di.wave_size == 32 && di.global_memory == 1u << 30);

    /* Memory. */
    void *a = NULL, *b = NULL, *c = NULL, *big = (void *)1;
    enum { N = 1000 };
    float ha[N], hb[N], hc[N];
    for (int i = 0; i < N; i++) {
        ha[i] = (float)i;
        hb[i] = 0.5f * (float)i;
    }
    CHECK(rk_malloc(ctx, N * 4, &a) == RK_OK && rk_malloc(ctx, N * 4, &b) == RK_OK && rk_malloc(ctx, N * 4, &c) == 0);
    CHECK((uintptr_t)a % 256 == 0 && fc->live_allocs == 3);
    CHECK_MSG(ctx, rk_malloc(ctx, (size_t)2 << 30, &big), RK_ENOMEM, "cuMemAlloc of 2147483648 bytes: out of device memory");
    CHECK(big == NULL);
    CHECK(rk_memcpy_htod(ctx, a, ha, sizeof ha) == RK_OK && rk_memcpy_dtod(ctx, b, a, sizeof ha) == RK_OK);
    CHECK(rk_memcpy_dtoh(ctx, hc, b, sizeof hc) == RK_OK && memcmp(hc, ha, sizeof ha) == 0);
    CHECK(rk_memset(ctx, c, 0xFF, sizeof hc) == RK_OK && rk_memcpy_dtoh(ctx, hc, c, sizeof hc) == RK_OK);
    CHECK(hc[7] != hc[7]); /* NaN */
    CHECK(rk_memcpy_htod(ctx, b, hb, sizeof hb) == RK_OK);

    /* A compiled kernel: the context's target is the device's, sm_90; parameters go as kernelParams. */
    rk_compile_options co = {.filename = "vadd.tile"};
    rk_program *prog = NULL;
    rk_kernel *k = NULL;
    CHECK_MSG(ctx, rk_compile(ctx, vadd_src, strlen(vadd_src), &co, &prog), RK_OK, "");
    if (prog) {
        CHECK(strcmp(rk_program_target(prog), "sm_90") == 0);
        CHECK(rk_program_kernel(prog, "vadd", &k) == RK_OK);
        /* The fake runs entries named vecadd only: this one launches and checks, and computes nothing. */
        rk_arg args[] = {rk_arg_ptr(a), rk_arg_ptr(b), rk_arg_ptr(c), rk_arg_i32(N)};
        CHECK_MSG(ctx, rk_launch(k, NULL, args, 4, NULL), RK_OK, "");
        CHECK(fc->last_grid[0] == (N + 255) / 256 && fc->last_grid[1] == 1 && fc->last_block == 128);
        CHECK(fc->last_used_extra == 0 && fc->last_shared == 0);
        CHECK_MSG(ctx, rk_synchronize(ctx), RK_OK, "");
        rk_program_destroy(prog);
        CHECK(fc->live_modules == 0);
    }

    /* A hand-written module run by the fake's vecadd model, with each LDS size. */
    RtKernelDesc d[2] = {{.name = "vecadd", .symbol = "vecadd", .num_warps = 4, .block = 128},
                         {.name = "empty", .symbol = "empty", .num_warps = 1, .block = 32}};
    rk_param ps[4] = {{"x", RK_PARAM_POINTER, RK_F32}, {"y", RK_PARAM_POINTER, RK_F32},
                      {"out", RK_PARAM_POINTER, RK_F32}, {"n", RK_PARAM_SCALAR, RK_I32}};
    d[0].params = ps;
    d[0].nparams = 4;
    uint32_t grid[3] = {8, 1, 1};
    rk_arg args[] = {rk_arg_ptr(a), rk_arg_ptr(b), rk_arg_ptr(c), rk_arg_i32(N)};
    for (int lds = 0; lds <= 3; lds++) {
        static const int sizes[] = {0, 48 * 1024, 100 * 1024, 227 * 1024};
        d[0].lds_bytes = sizes[lds];
        CHECK(rt_program_new(ctx, "sm_90", fake_ptx, strlen(fake_ptx), d, 2, &prog) == RK_OK);
        int calls = fc->set_attribute_calls;
        CHECK(rk_program_kernel(prog, "vecadd", &k) == RK_OK);
        CHECK_MSG(ctx, rk_launch(k, grid, args, 4, NULL), RK_OK, "");
        CHECK_MSG(ctx, rk_launch(k, grid, args, 4, NULL), RK_OK, ""); /* the attribute is set once */
        CHECK(fc->set_attribute_calls == calls + (sizes[lds] > 48 * 1024) && fc->last_shared == (unsigned)sizes[lds]);
        CHECK(rk_memcpy_dtoh(ctx, hc, c, sizeof hc) == RK_OK);
        int wrong = 0;
        for (int i = 0; i < N; i++)
            wrong += hc[i] != 1.5f * (float)i;
        CHECK(wrong == 0);
        CHECK(rk_memset(ctx, c, 0, sizeof hc) == RK_OK);
        /* An entry without parameters. */
        CHECK(rk_program_kernel(prog, "empty", &k) == RK_OK);
        CHECK_MSG(ctx, rk_launch(k, grid, NULL, 0, NULL), RK_OK, "");
        rk_program_destroy(prog);
    }
    /* More shared memory than the GPU has; a grid past CUDA's limits; a block past .maxntid. */
    d[0].lds_bytes = 300 * 1024;
    CHECK(rt_program_new(ctx, "sm_90", fake_ptx, strlen(fake_ptx), d, 2, &prog) == RK_OK);
    CHECK(rk_program_kernel(prog, "vecadd", &k) == RK_OK);
    CHECK_MSG(ctx, rk_launch(k, grid, args, 4, NULL), RK_EDEVICE,
              "kernel vecadd needs 307200 bytes of shared memory; Fake NVIDIA H200 0 allows 232448 per block");
    rk_program_destroy(prog);
    d[0].lds_bytes = 0;
    d[0].block = 256;
    CHECK(rt_program_new(ctx, "sm_90", fake_ptx, strlen(fake_ptx), d, 2, &prog) == RK_OK);
    CHECK(rk_program_kernel(prog, "vecadd", &k) == RK_OK);
    CHECK_MSG(ctx, rk_launch(k, grid, args, 4, NULL), RK_EDEVICE,
              "launch of vecadd (grid 8 x 1 x 1, block 256, 0 bytes of shared memory) failed: "
              "CUDA_ERROR_INVALID_VALUE: invalid argument (error 1)");
    uint32_t tall[3] = {1, 70000, 1};
    CHECK_MSG(ctx, rk_launch(k, tall, args, 4, NULL), RK_EDEVICE, "grid 1 x 70000 x 1 exceeds CUDA's limits");
    rk_program_destroy(prog);
    d[0].block = 128;

    /* A kernel the module lacks; a module the JIT refuses (its log on one line); a program for sm_80. */
    RtKernelDesc nosuch = {.name = "nosuch", .symbol = "nosuch", .num_warps = 1, .block = 32};
    CHECK(rt_program_new(ctx, "sm_90", fake_ptx, strlen(fake_ptx), &nosuch, 1, &prog) == RK_OK);
    CHECK(rk_program_kernel(prog, "nosuch", &k) == RK_OK);
    CHECK_MSG(ctx, rk_launch(k, grid, NULL, 0, NULL), RK_ENOTFOUND,
              "no kernel 'nosuch' in the module: CUDA_ERROR_NOT_FOUND: named symbol not found (error 500)");
    rk_program_destroy(prog);
    static const char bad[] = ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry empty()\n{\n"
                              "\tnot_an_instruction;\n}\n";
    CHECK(rt_program_new(ctx, "sm_90", bad, strlen(bad), &d[1], 1, &prog) == RK_OK);
    CHECK(rk_program_kernel(prog, "empty", &k) == RK_OK);
    CHECK_MSG(ctx, rk_launch(k, grid, NULL, 0, NULL), RK_EDEVICE,
              "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed (error 218): ptxas "
              "application ptx input, line 9; error   : Not a name of any known instruction: 'not_an_instruction'; "
              "ptxas fatal   : Ptx assembly aborted due to errors");
    CHECK(!strchr(rk_error(ctx), '\n'));
    rk_program_destroy(prog);
    CHECK(rt_program_new(ctx, "sm_80", fake_ptx, strlen(fake_ptx), &d[1], 1, &prog) == RK_OK);
    CHECK(rk_program_kernel(prog, "empty", &k) == RK_OK);
    CHECK_MSG(ctx, rk_launch(k, grid, NULL, 0, NULL), RK_EUNSUPPORTED,
              "the program was compiled for target sm_80, but device cuda (sm_90) runs sm_90");
    rk_program_destroy(prog);

    /* Events. */
    rk_event *e0 = NULL, *e1 = NULL;
    float ms = -1;
    CHECK(rk_event_create(ctx, &e0) == RK_OK && rk_event_create(ctx, &e1) == RK_OK && fc->live_events == 2);
    CHECK(rk_event_record(e0, NULL) == RK_OK && rk_event_record(e1, NULL) == RK_OK);
    CHECK(rk_event_elapsed(e0, e1, &ms) == RK_OK && ms >= 0);
    rk_event_destroy(e0);
    CHECK(fc->live_events == 1);

    /* The device's own calls: a PTX image without a NUL, ending at a page that cannot be read, loads
     * (the device copies it); an empty one is refused. */
    RtDevice *dev = ctx->dev;
    long page = sysconf(_SC_PAGESIZE);
    size_t len = strlen(fake_ptx);
    char *pages = mmap(NULL, (size_t)page * 3, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(pages != MAP_FAILED && len < (size_t)page * 2);
    if (pages != MAP_FAILED) {
        CHECK(mprotect(pages + page * 2, (size_t)page, PROT_NONE) == 0);
        char *img = pages + page * 2 - len;
        memcpy(img, fake_ptx, len);
        RtModule *m = NULL;
        RtFunc *fn = NULL;
        CHECK(dev->ops->load(dev, img, len, &m) == RK_OK && m);
        if (m) {
            CHECK(dev->ops->function(dev, m, "empty", &fn) == RK_OK && fn);
            CHECK(dev->ops->function(dev, m, "vecadd", &fn) == RK_OK && fn);
            dev->ops->unload(dev, m);
        }
        CHECK(dev->ops->load(dev, img, 0, &m) == RK_EDEVICE && strstr(dev->msg, "empty code object"));
        munmap(pages, (size_t)page * 3);
    }

    /* Another context on the same GPU shares the primary context, retained once. */
    rk_ctx *ctx2 = NULL;
    CHECK(rk_ctx_create(&o, &ctx2) == RK_OK);
    CHECK(fc->primary_retains == 1);
    o.device_index = 1;
    rk_ctx *ctx3 = NULL;
    CHECK_MSG(ctx3, rk_ctx_create(&o, &ctx3), RK_ENODEVICE, "no CUDA device 1 (found 1)");
    rk_ctx_destroy(ctx3);
    rk_ctx_destroy(ctx2);
    CHECK(fc->live_allocs == 3);
    /* The context frees what it made. */
    rk_ctx_destroy(ctx);
    CHECK(fc->live_allocs == 0 && fc->live_modules == 0 && fc->live_events == 0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    printf("test_cuda_device %s\n", mode);
    if (strcmp(mode, "nolib") == 0) {
        expect_no_device(RK_ENODEVICE, "no CUDA device: cannot load the CUDA driver RK_CUDA_LIB=");
    } else if (strcmp(mode, "stub") == 0) {
        const char *lib = getenv("RK_CUDA_LIB");
        if (!lib || access(lib, R_OK) != 0) {
            printf("test_cuda_device: no CUDA toolkit stub library: skipped\n");
            return 77;
        }
        expect_no_device(RK_ENODEVICE, "no CUDA device: cuInit failed with ");
    } else if (strcmp(mode, "noinit") == 0) {
        expect_no_device(RK_ENODEVICE, "no CUDA device: cuInit failed with CUDA_ERROR_NO_DEVICE: no CUDA-capable "
                                       "device is detected (error 100)");
    } else if (strcmp(mode, "nogpu") == 0) {
        expect_no_device(RK_ENODEVICE, "no CUDA device (cuDeviceGetCount found none)");
    } else if (strcmp(mode, "cc80") == 0) {
        expect_no_device(RK_EUNSUPPORTED, "CUDA device 0 (Fake NVIDIA H200 0) has compute capability 8.0, but rk "
                                          "generates code for sm_90 only");
    } else if (strcmp(mode, "fake") == 0) {
        fake_device();
    } else {
        fprintf(stderr, "usage: test_cuda_device nolib|stub|noinit|nogpu|cc80|fake\n");
        return 2;
    }
    printf("test_cuda_device %s: %s\n", mode, failures ? "FAILED" : "ok");
    return failures != 0;
}
