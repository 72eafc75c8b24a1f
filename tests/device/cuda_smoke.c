/* cuda_smoke: kernels of the examples on the `cuda` device, each checked against the host.
 *
 *     cuda_smoke [--root DIR]              compile for the device's target (sm_90) and run
 *     cuda_smoke --save DIR [--root DIR]   compile for sm_90 without a device, write DIR/<case>.ptx/.meta
 *                                          (and read each back: its kernels' TMA specs must survive)
 *     cuda_smoke --load DIR                run the prebuilt cases of DIR (a runtime-only build: no LLVM)
 *
 * The cases: vector add (f32, 128-bit accesses and a masked tail), a row softmax and a layer norm
 * (reductions across a workgroup), and bf16 matmuls 200 x 248 x 200 (partial tiles everywhere) with
 * examples/matmul.tile's default tiles, with tiles whose shared memory is above the 48 KiB a launch
 * gets by default, and with tiles that give wgmma every shared-memory line (32, 64, 128 and 256 bytes)
 * and a 256-wide instruction, and a persistent one (tests/device/kernels: 3 programs for 4 tiles, its
 * TMA loop nested in the loop over tiles); flash attention (f16, 200 keys: partial blocks), whose K and V tiles
 * TMA copies through 3-D maps, plain and causal. Each result is compared with a float64 host
 * reference (vector add: bit-exact with the host's f32 sum).
 * Then a module that does not compile must fail with the driver's JIT log in rk_error.
 *
 * Exit status: 0 all passed, 1 a failure, 77 (CTest's skip) when there is no CUDA device or it is not
 * an sm_90 GPU. Its runtime-only build, cuda_smoke_rt (bench/h200/CMakeLists.txt, which
 * bench/h200/run.sh builds on the GPU machine), defines RK_SMOKE_NO_COMPILER: --load only. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk.h"
#include "runtime/api/api_internal.h"
#include "tests/device/prebuilt.h"

#define MAX_DEFS 8

typedef struct Case {
    const char *name, *file, *kernel;
    rk_define defs[MAX_DEFS];
} Case;

/* Every define is given, the defaults included, so that the prebuilt path knows each kernel's grid. */
static const Case cases[] = {
    {"vecadd_a16", "examples/vecadd.tile", "vecadd",
     {{"T", "f32"}, {"BLOCK", "1024"}, {"ALIGN", "16"}, {"num_warps", "4"}}},
    {"vecadd_a1", "examples/vecadd.tile", "vecadd",
     {{"T", "f32"}, {"BLOCK", "1024"}, {"ALIGN", "1"}, {"num_warps", "4"}}},
    {"softmax", "bench/kernels/softmax.tile", "softmax_rows", {{"BLOCK", "1024"}, {"num_warps", "4"}}},
    {"layernorm", "bench/kernels/layernorm.tile", "layernorm", {{"BLOCK", "1024"}, {"num_warps", "4"}}},
    {"matmul", "examples/matmul.tile", "matmul",
     {{"T", "bf16"}, {"BLOCK_M", "128"}, {"BLOCK_N", "128"}, {"BLOCK_K", "64"}, {"num_warps", "4"}}},
    {"matmul_big", "examples/matmul.tile", "matmul",
     {{"T", "bf16"}, {"BLOCK_M", "128"}, {"BLOCK_N", "128"}, {"BLOCK_K", "128"}, {"num_warps", "8"}}},
    /* wgmma's other shared-memory lines (64 and 32 bytes, both operands) and a 256-wide instruction */
    {"matmul_k32", "examples/matmul.tile", "matmul",
     {{"T", "bf16"}, {"BLOCK_M", "64"}, {"BLOCK_N", "32"}, {"BLOCK_K", "32"}, {"num_warps", "4"}, {"num_stages", "3"}}},
    {"matmul_k16", "examples/matmul.tile", "matmul",
     {{"T", "bf16"}, {"BLOCK_M", "128"}, {"BLOCK_N", "16"}, {"BLOCK_K", "16"}, {"num_warps", "8"}, {"num_stages", "2"}}},
    {"matmul_n256", "examples/matmul.tile", "matmul",
     {{"T", "bf16"}, {"BLOCK_M", "128"}, {"BLOCK_N", "256"}, {"BLOCK_K", "64"}, {"num_warps", "8"}, {"num_stages", "3"}}},
    /* persistent: 3 programs for 4 tiles, the K loop (TMA) nested in the tile loop and run twice by one */
    {"matmul_persist", "tests/device/kernels/matmul_persistent.tile", "matmul",
     {{"NUM_PROGRAMS", "3"}, {"BLOCK_M", "128"}, {"BLOCK_N", "128"}, {"BLOCK_K", "64"}, {"num_warps", "8"},
      {"num_stages", "3"}}},
    /* flash attention: K and V through 3-D TMA maps (a batch of heads, the heads' rows bounded) */
    {"attention", "examples/attention.tile", "attention",
     {{"T", "f16"}, {"HEAD_DIM", "64"}, {"CAUSAL", "false"}, {"BLOCK_M", "128"}, {"BLOCK_N", "64"},
      {"num_warps", "4"}, {"num_stages", "3"}}},
    /* causal: two loops, two rings each, the second starting at the diagonal (not on the fake driver,
     * whose model is not causal) */
    {"attn_causal", "examples/attention.tile", "attention",
     {{"T", "f16"}, {"HEAD_DIM", "64"}, {"CAUSAL", "true"}, {"BLOCK_M", "128"}, {"BLOCK_N", "32"},
      {"num_warps", "8"}, {"num_stages", "2"}}},
};

typedef struct Smoke {
    rk_ctx *ctx;
    bool check_grid; /* compiled here: the @grid is known, so compare each grid with it */
    int failures;
} Smoke;

static int ndefs(const Case *c)
{
    int n = 0;
    while (n < MAX_DEFS && c->defs[n].name)
        n++;
    return n;
}

static bool has_def(const Case *c, const char *name)
{
    for (int i = 0; i < ndefs(c); i++)
        if (strcmp(c->defs[i].name, name) == 0)
            return true;
    return false;
}

static long def_int(const Case *c, const char *name)
{
    for (int i = 0; i < ndefs(c); i++)
        if (strcmp(c->defs[i].name, name) == 0)
            return strtol(c->defs[i].value, NULL, 10);
    fprintf(stderr, "cuda_smoke: case %s has no define %s\n", c->name, name);
    exit(1);
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;

/* Uniform in [lo, hi), on a grid of 2^-20: exactly representable in f32. */
static double uniform(double lo, double hi)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return lo + (hi - lo) * (double)(rng >> 44) / (double)(1 << 20);
}

/* max |out - ref| / max(|ref|, rms(ref)), as the examples measure it (examples/common.h). */
static double max_rel_err(const double *out, const double *ref, size_t n)
{
    double ss = 0, worst = 0;
    for (size_t i = 0; i < n; i++)
        ss += ref[i] * ref[i];
    double rms = sqrt(ss / (double)(n ? n : 1));
    for (size_t i = 0; i < n; i++) {
        double e = fabs(out[i] - ref[i]) / fmax(fabs(ref[i]), rms);
        if (isnan(e))
            return NAN;
        worst = fmax(worst, e);
    }
    return worst;
}

static bool ok(Smoke *s, rk_status st, const char *what)
{
    if (st == RK_OK)
        return true;
    fprintf(stderr, "cuda_smoke: %s: %s: %s\n", what, rk_status_name(st), rk_error(s->ctx));
    s->failures++;
    return false;
}

static void verdict(Smoke *s, bool pass, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void verdict(Smoke *s, bool pass, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf(" | %s\n", pass ? "ok" : "FAILED");
    fflush(stdout);
    s->failures += !pass;
}

/* Launches with `grid`, after checking it against the kernel's @grid when that is known. */
static bool launch(Smoke *s, rk_kernel *k, const uint32_t grid[3], const rk_arg *args, int nargs, const char *what)
{
    if (s->check_grid) {
        uint32_t g[3];
        if (!ok(s, rk_kernel_grid(k, args, nargs, g), what))
            return false;
        if (memcmp(g, grid, sizeof g) != 0) {
            fprintf(stderr, "cuda_smoke: %s: the test's grid %u,%u,%u is not the kernel's @grid %u,%u,%u\n", what,
                    grid[0], grid[1], grid[2], g[0], g[1], g[2]);
            s->failures++;
            return false;
        }
    }
    return ok(s, rk_launch(k, grid, args, nargs, NULL), what) && ok(s, rk_synchronize(s->ctx), what);
}

static void *upload(Smoke *s, const void *host, size_t bytes)
{
    void *d = NULL;
    if (!ok(s, rk_malloc(s->ctx, bytes, &d), "rk_malloc") || !ok(s, rk_memcpy_htod(s->ctx, d, host, bytes), "htod"))
        return NULL;
    return d;
}

static void *device_buffer(Smoke *s, size_t bytes)
{
    void *d = NULL;
    /* 0xFF bytes: NaN in every float type, so an element the kernel leaves unwritten shows. */
    if (!ok(s, rk_malloc(s->ctx, bytes, &d), "rk_malloc") || !ok(s, rk_memset(s->ctx, d, 0xFF, bytes), "memset"))
        return NULL;
    return d;
}

/* Frees a case's device buffers (rk_free) and host arrays. */
static void release(Smoke *s, void *const *dev, int ndev, void *const *host, int nhost)
{
    for (int i = 0; i < ndev; i++)
        rk_free(s->ctx, dev[i]);
    for (int i = 0; i < nhost; i++)
        free(host[i]);
}

/* ---- the cases ---- */

static void run_vecadd(Smoke *s, const Case *c, rk_kernel *k)
{
    int n = def_int(c, "ALIGN") == 16 ? 1000000 : 100003; /* a multiple of 16, or a ragged tail */
    long block = def_int(c, "BLOCK");
    size_t bytes = (size_t)n * 4;
    float *x = malloc(bytes), *y = malloc(bytes), *out = malloc(bytes);
    for (int i = 0; i < n; i++) {
        x[i] = (float)uniform(-1, 1);
        y[i] = (float)uniform(-1, 1);
    }
    void *dx = upload(s, x, bytes), *dy = upload(s, y, bytes), *dout = device_buffer(s, bytes);
    rk_arg args[] = {rk_arg_ptr(dx), rk_arg_ptr(dy), rk_arg_ptr(dout), rk_arg_i32(n)};
    uint32_t grid[3] = {(uint32_t)((n + block - 1) / block), 1, 1};
    if (dx && dy && dout && launch(s, k, grid, args, 4, c->name) &&
        ok(s, rk_memcpy_dtoh(s->ctx, out, dout, bytes), "dtoh")) {
        int wrong = 0;
        for (int i = 0; i < n; i++)
            wrong += memcmp(&out[i], &(float){x[i] + y[i]}, 4) != 0;
        verdict(s, wrong == 0, "%-10s | vecadd f32 n=%d ALIGN=%ld | %d of %d elements differ from the host's sum",
                c->name, n, def_int(c, "ALIGN"), wrong, n);
    }
    release(s, (void *[]){dx, dy, dout}, 3, (void *[]){x, y, out}, 3);
}

/* softmax_rows(x, y, rows, cols) and layernorm(x, w, b, y, rows, cols, eps): one row per program. */
static void run_rows(Smoke *s, const Case *c, rk_kernel *k, bool layernorm)
{
    int rows = 300, cols = 1000; /* cols < BLOCK: the mask matters */
    size_t n = (size_t)rows * (size_t)cols;
    float *x = malloc(n * 4), *y = malloc(n * 4), *w = malloc((size_t)cols * 4), *b = malloc((size_t)cols * 4);
    double *ref = malloc(n * sizeof *ref), *got = malloc(n * sizeof *got);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)uniform(-4, 4);
    for (int j = 0; j < cols; j++) {
        w[j] = (float)uniform(0.5, 1.5);
        b[j] = (float)uniform(-1, 1);
    }
    const float eps = 1e-5f;
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        double *o = ref + (size_t)r * cols;
        if (layernorm) {
            double mean = 0, var = 0;
            for (int j = 0; j < cols; j++)
                mean += xr[j];
            mean /= cols;
            for (int j = 0; j < cols; j++)
                var += (xr[j] - mean) * (xr[j] - mean);
            double rstd = 1 / sqrt(var / cols + eps);
            for (int j = 0; j < cols; j++)
                o[j] = (xr[j] - mean) * rstd * w[j] + b[j];
        } else {
            double m = -INFINITY, sum = 0;
            for (int j = 0; j < cols; j++)
                m = fmax(m, xr[j]);
            for (int j = 0; j < cols; j++)
                sum += (o[j] = exp(xr[j] - m));
            for (int j = 0; j < cols; j++)
                o[j] /= sum;
        }
    }
    void *dx = upload(s, x, n * 4), *dy = device_buffer(s, n * 4);
    void *dw = layernorm ? upload(s, w, (size_t)cols * 4) : NULL, *db = layernorm ? upload(s, b, (size_t)cols * 4) : NULL;
    rk_arg sargs[] = {rk_arg_ptr(dx), rk_arg_ptr(dy), rk_arg_i32(rows), rk_arg_i32(cols)};
    rk_arg largs[] = {rk_arg_ptr(dx), rk_arg_ptr(dw),     rk_arg_ptr(db),    rk_arg_ptr(dy),
                      rk_arg_i32(rows), rk_arg_i32(cols), rk_arg_f32(eps)};
    uint32_t grid[3] = {(uint32_t)rows, 1, 1};
    bool launched = dx && dy && (!layernorm || (dw && db)) &&
                    launch(s, k, grid, layernorm ? largs : sargs, layernorm ? 7 : 4, c->name);
    if (launched && ok(s, rk_memcpy_dtoh(s->ctx, y, dy, n * 4), "dtoh")) {
        for (size_t i = 0; i < n; i++)
            got[i] = y[i];
        double err = max_rel_err(got, ref, n), tol = 1e-4;
        verdict(s, err <= tol, "%-10s | %s f32 %dx%d | max rel err %.1e (tol %.0e)", c->name,
                layernorm ? "layernorm" : "softmax", rows, cols, err, tol);
    }
    release(s, (void *[]){dx, dy, dw, db}, 4, (void *[]){x, y, w, b, ref, got}, 6);
}

static void run_matmul(Smoke *s, const Case *c, rk_kernel *k)
{
    const int M = 200, N = 248, K = 200; /* partial tiles along M, N and K (N, K multiples of 8) */
    long bm = def_int(c, "BLOCK_M"), bn = def_int(c, "BLOCK_N");
    uint16_t *a = malloc((size_t)M * K * 2), *b = malloc((size_t)K * N * 2), *cm = malloc((size_t)M * N * 2);
    double *da = malloc((size_t)M * K * sizeof(double)), *db = malloc((size_t)K * N * sizeof(double));
    double *ref = calloc((size_t)M * N, sizeof(double)), *got = malloc((size_t)M * N * sizeof(double));
    for (int i = 0; i < M * K; i++)
        da[i] = rk_bf16_to_double(a[i] = rk_bf16_from_double(uniform(-1, 1)));
    for (int i = 0; i < K * N; i++)
        db[i] = rk_bf16_to_double(b[i] = rk_bf16_from_double(uniform(-1, 1)));
    for (int i = 0; i < M; i++)
        for (int kk = 0; kk < K; kk++)
            for (int j = 0; j < N; j++)
                ref[i * N + j] += da[i * K + kk] * db[kk * N + j];
    void *dA = upload(s, a, (size_t)M * K * 2), *dB = upload(s, b, (size_t)K * N * 2);
    void *dC = device_buffer(s, (size_t)M * N * 2);
    rk_arg args[] = {rk_arg_ptr(dA), rk_arg_ptr(dB), rk_arg_ptr(dC), rk_arg_i32(M), rk_arg_i32(N),
                     rk_arg_i32(K),  rk_arg_i32(K),  rk_arg_i32(N),  rk_arg_i32(N)};
    uint32_t grid[3] = {(uint32_t)(((M + bm - 1) / bm) * ((N + bn - 1) / bn)), 1, 1};
    if (has_def(c, "NUM_PROGRAMS")) /* persistent: fewer programs than tiles */
        grid[0] = (uint32_t)def_int(c, "NUM_PROGRAMS");
    rk_kernel_info ki;
    rk_kernel_get_info(k, &ki);
    if (dA && dB && dC && launch(s, k, grid, args, 9, c->name) &&
        ok(s, rk_memcpy_dtoh(s->ctx, cm, dC, (size_t)M * N * 2), "dtoh")) {
        for (int i = 0; i < M * N; i++)
            got[i] = rk_bf16_to_double(cm[i]);
        /* Events, once: ten launches. */
        rk_event *e0 = NULL, *e1 = NULL;
        float ms = -1;
        if (ok(s, rk_event_create(s->ctx, &e0), "event") && ok(s, rk_event_create(s->ctx, &e1), "event") &&
            ok(s, rk_event_record(e0, NULL), "record")) {
            for (int r = 0; r < 10; r++)
                rk_launch(k, grid, args, 9, NULL);
            if (ok(s, rk_event_record(e1, NULL), "record"))
                ok(s, rk_event_elapsed(e0, e1, &ms), "elapsed");
        }
        rk_event_destroy(e0);
        rk_event_destroy(e1);
        double err = max_rel_err(got, ref, (size_t)M * N), tol = 1e-2;
        verdict(s, err <= tol && ms >= 0,
                "%-10s | matmul bf16 %dx%dx%d, %ldx%ldx%ld tiles, %d warps, %d B shared | %.3f ms per launch | max "
                "rel err %.1e (tol %.0e)",
                c->name, M, N, K, bm, bn, def_int(c, "BLOCK_K"), ki.num_warps, ki.lds_bytes, ms / 10, err, tol);
    }
    release(s, (void *[]){dA, dB, dC}, 3, (void *[]){a, b, cm, da, db, ref, got}, 7);
}

/* attention(q, k, v, o, sm_scale, Z, H, N_CTX) on f16 [Z, H, N, D] tensors; N leaves partial blocks. */
static void run_attention(Smoke *s, const Case *c, rk_kernel *k)
{
    const int Z = 2, H = 3, N = 200, D = (int)def_int(c, "HEAD_DIM");
    const bool causal = strcmp(c->defs[2].value, "true") == 0;
    const double scale = 0.125;
    if (causal && getenv("RK_CUDA_LIB")) {
        printf("%-10s | skipped: the fake driver's attention model is not causal\n", c->name);
        return;
    }
    size_t n = (size_t)Z * H * N * D, bytes = n * 2;
    uint16_t *hq = malloc(bytes), *hk = malloc(bytes), *hv = malloc(bytes), *ho = malloc(bytes);
    double *q = malloc(n * sizeof(double)), *kk = malloc(n * sizeof(double)), *v = malloc(n * sizeof(double));
    double *ref = malloc(n * sizeof(double)), *got = malloc(n * sizeof(double)), *p = malloc(N * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        q[i] = rk_f16_to_double(hq[i] = rk_f16_from_double(uniform(-1, 1)));
        kk[i] = rk_f16_to_double(hk[i] = rk_f16_from_double(uniform(-1, 1)));
        v[i] = rk_f16_to_double(hv[i] = rk_f16_from_double(uniform(-1, 1)));
    }
    for (int zh = 0; zh < Z * H; zh++)
        for (int i = 0; i < N; i++) {
            const double *qi = q + ((size_t)zh * N + i) * D;
            double mx = -INFINITY, sum = 0;
            int last = causal ? i : N - 1;
            for (int j = 0; j <= last; j++) {
                double d = 0;
                for (int e = 0; e < D; e++)
                    d += qi[e] * kk[((size_t)zh * N + j) * D + e];
                p[j] = d * scale;
                mx = fmax(mx, p[j]);
            }
            for (int j = 0; j <= last; j++)
                sum += (p[j] = exp(p[j] - mx));
            for (int e = 0; e < D; e++) {
                double acc = 0;
                for (int j = 0; j <= last; j++)
                    acc += p[j] * v[((size_t)zh * N + j) * D + e];
                ref[((size_t)zh * N + i) * D + e] = acc / sum;
            }
        }
    void *dq = upload(s, hq, bytes), *dk = upload(s, hk, bytes), *dv = upload(s, hv, bytes);
    void *dout = device_buffer(s, bytes);
    rk_arg args[] = {rk_arg_ptr(dq), rk_arg_ptr(dk), rk_arg_ptr(dv), rk_arg_ptr(dout),
                     rk_arg_f32((float)scale), rk_arg_i32(Z), rk_arg_i32(H), rk_arg_i32(N)};
    long bm = def_int(c, "BLOCK_M");
    uint32_t grid[3] = {(uint32_t)((N + bm - 1) / bm), (uint32_t)(Z * H), 1};
    rk_kernel_info ki;
    rk_kernel_get_info(k, &ki);
    if (dq && dk && dv && dout && launch(s, k, grid, args, 8, c->name) &&
        ok(s, rk_memcpy_dtoh(s->ctx, ho, dout, bytes), "dtoh")) {
        for (size_t i = 0; i < n; i++)
            got[i] = rk_f16_to_double(ho[i]);
        double err = max_rel_err(got, ref, n), tol = 5e-3;
        verdict(s, err <= tol,
                "%-10s | attention f16 Z=%d H=%d N=%d D=%d%s, %ldx%ld blocks, %d warps, %d B shared | max rel err "
                "%.1e (tol %.0e)",
                c->name, Z, H, N, D, causal ? " causal" : "", bm, def_int(c, "BLOCK_N"), ki.num_warps,
                ki.lds_bytes, err, tol);
    }
    release(s, (void *[]){dq, dk, dv, dout}, 4, (void *[]){hq, hk, hv, ho, q, kk, v, ref, got, p}, 10);
}

/* A module the JIT refuses: the launch fails with RK_EDEVICE and the driver's log. */
static void run_bad_ptx(Smoke *s)
{
    static const char ptx[] = ".version 8.0\n.target sm_90a\n.address_size 64\n\n"
                              ".visible .entry broken()\n{\n\tnot_an_instruction;\n\tret;\n}\n";
    RtKernelDesc d = {.name = "broken", .symbol = "broken", .num_warps = 1, .block = 32};
    rk_program *p = NULL;
    rk_kernel *k = NULL;
    if (!ok(s, rt_program_new(s->ctx, "sm_90", ptx, strlen(ptx), &d, 1, &p), "program") ||
        !ok(s, rk_program_kernel(p, "broken", &k), "kernel"))
        return;
    uint32_t grid[3] = {1, 1, 1};
    rk_status st = rk_launch(k, grid, NULL, 0, NULL);
    const char *msg = rk_error(s->ctx);
    verdict(s, st == RK_EDEVICE && strstr(msg, "cuModuleLoadDataEx failed"), "%-10s | %s: %s", "bad_ptx",
            rk_status_name(st), msg);
    rk_program_destroy(p);
}

/* The prebuilt files just written, read back: each kernel's tensor map spec (the matmuls' TMA
 * operands) must be the compiled one exactly, or the loaded kernel would take other maps. */
static void check_saved(Smoke *s, rk_program *prog, const char *base)
{
    rk_program *back = NULL;
    char err[1024];
    if (pb_load(s->ctx, base, &back, err, sizeof err) != RK_OK) {
        fprintf(stderr, "cuda_smoke: reading back: %s\n", err);
        s->failures++;
        return;
    }
    for (int i = 0; i < prog->nkernels; i++) {
        const char *want = prog->kernels[i].tma_spec, *got = i < back->nkernels ? back->kernels[i].tma_spec : NULL;
        if (want != got && (!want || !got || strcmp(want, got) != 0)) {
            fprintf(stderr, "cuda_smoke: %s.meta: kernel %s: tma spec '%s', compiled '%s'\n", base,
                    prog->kernels[i].name, got ? got : "(none)", want ? want : "(none)");
            s->failures++;
        }
    }
    rk_program_destroy(back);
}

static void run_case(Smoke *s, const Case *c, rk_program *prog)
{
    rk_kernel *k;
    if (!ok(s, rk_program_kernel(prog, c->kernel, &k), c->name))
        return;
    if (strcmp(c->kernel, "vecadd") == 0)
        run_vecadd(s, c, k);
    else if (strcmp(c->kernel, "matmul") == 0)
        run_matmul(s, c, k);
    else if (strcmp(c->kernel, "attention") == 0)
        run_attention(s, c, k);
    else
        run_rows(s, c, k, strcmp(c->kernel, "layernorm") == 0);
}

#ifndef RK_SMOKE_NO_COMPILER
static char *read_source(const char *root, const char *file, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, file);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cuda_smoke: cannot read %s (give the source tree with --root)\n", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf)
        buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

/* Compiles a case for `target` (NULL: the device's). Diagnostics go to stderr. */
static rk_program *compile_case(Smoke *s, const char *root, const Case *c, const char *target)
{
    size_t len;
    char *src = read_source(root, c->file, &len);
    if (!src) {
        s->failures++;
        return NULL;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, c->file);
    rk_compile_options co = {.filename = path, .target = target, .defines = c->defs, .ndefines = ndefs(c),
                             .kernel = c->kernel};
    rk_program *prog = NULL;
    rk_status st = rk_compile(s->ctx, src, len, &co, &prog);
    for (int i = 0; i < rk_diag_count(s->ctx); i++) {
        rk_diag d;
        rk_diag_get(s->ctx, i, &d);
        fputs(d.text, stderr);
    }
    free(src);
    return ok(s, st, c->name) ? prog : NULL;
}
#endif

int main(int argc, char **argv)
{
    const char *root = ".", *save = NULL, *load = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--root") == 0 && i + 1 < argc)
            root = argv[++i];
        else if (strcmp(argv[i], "--save") == 0 && i + 1 < argc)
            save = argv[++i];
        else if (strcmp(argv[i], "--load") == 0 && i + 1 < argc)
            load = argv[++i];
        else {
            fprintf(stderr, "usage: cuda_smoke [--root DIR] | --save DIR [--root DIR] | --load DIR\n");
            return 2;
        }
    }
#ifdef RK_SMOKE_NO_COMPILER
    (void)root;
    if (!load) {
        fprintf(stderr, "cuda_smoke: this build has no compiler: run the prebuilt cases with --load DIR\n");
        return 2;
    }
#endif
    Smoke s = {NULL, false, 0};
    rk_ctx_options o = {.device = save ? "none" : "cuda"};
    rk_status st = rk_ctx_create(&o, &s.ctx);
    if (st == RK_ENODEVICE || st == RK_EUNSUPPORTED) {
        printf("cuda_smoke: skipped: %s\n", rk_error(s.ctx));
        rk_ctx_destroy(s.ctx);
        return 77;
    }
    if (st != RK_OK) {
        fprintf(stderr, "cuda_smoke: %s: %s\n", rk_status_name(st), rk_error(s.ctx));
        rk_ctx_destroy(s.ctx);
        return 1;
    }
    if (!save) {
        rk_device_info di;
        rk_device_get_info(s.ctx, &di);
        printf("cuda_smoke: %s (%s, target %s), %d SMs, %d B shared memory per block, warp %d, %.1f GiB\n", di.name,
               di.arch, di.target, di.compute_units, di.lds_bytes, di.wave_size,
               (double)di.global_memory / (1 << 30));
        verdict(&s, strcmp(di.kind, "cuda") == 0 && strcmp(di.target, "sm_90") == 0 && di.wave_size == 32 &&
                        di.compute_units > 0 && di.lds_bytes >= 48 * 1024,
                "%-10s | kind %s, target %s, warp %d", "device", di.kind, di.target, di.wave_size);
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const Case *c = &cases[i];
        rk_program *prog = NULL;
        char base[4096], err[1024];
        if (load) {
            snprintf(base, sizeof base, "%s/%s", load, c->name);
            if (pb_load(s.ctx, base, &prog, err, sizeof err) != RK_OK) {
                fprintf(stderr, "cuda_smoke: %s\n", err);
                s.failures++;
                continue;
            }
        } else {
#ifndef RK_SMOKE_NO_COMPILER
            prog = compile_case(&s, root, c, save ? "sm_90" : NULL);
            if (!prog)
                continue;
            if (!save && strcmp(rk_program_target(prog), "sm_90") != 0) {
                fprintf(stderr, "cuda_smoke: %s was compiled for %s, not sm_90\n", c->name, rk_program_target(prog));
                s.failures++;
            }
            s.check_grid = true;
#endif
        }
        if (save) {
            snprintf(base, sizeof base, "%s/%s", save, c->name);
            if (pb_save(prog, "", base, err, sizeof err) != 0) {
                fprintf(stderr, "cuda_smoke: %s\n", err);
                s.failures++;
            } else {
                rk_kernel *k;
                rk_kernel_info ki;
                rk_program_kernel(prog, c->kernel, &k);
                rk_kernel_get_info(k, &ki);
                printf("cuda_smoke: wrote %s.ptx (%d warps, %d B shared)\n", base, ki.num_warps, ki.lds_bytes);
                check_saved(&s, prog, base);
            }
        } else {
            run_case(&s, c, prog);
        }
        rk_program_destroy(prog);
    }
    if (!save)
        run_bad_ptx(&s);
    rk_ctx_destroy(s.ctx);
    if (s.failures)
        printf("cuda_smoke: %d failure%s\n", s.failures, s.failures == 1 ? "" : "s");
    else if (!save)
        printf("cuda_smoke: all passed\n");
    return s.failures ? 1 : 0;
}
