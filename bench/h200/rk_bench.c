/* rk_bench: rk's kernels on an NVIDIA H200 through the `cuda` device, from the PTX that
 * bench/h200/prepare.sh compiled on another machine (prebuilt programs, tests/device/prebuilt.h).
 * bench/h200/run.sh builds it on the GPU machine from the runtime's sources alone: no LLVM there.
 *
 *     rk_bench --ptx DIR [--tsv FILE] [--runs N] [--small] [--only NAME,...]
 *
 * --small runs tiny sizes and 3 timed runs (for the fake driver of tests/device, which computes on the
 * host); --only picks benchmarks (matmul, softmax, layernorm, vecadd, attention, launch).
 *
 * DIR/index.tsv lists the variants, one per line: `bench <TAB> base <TAB> config`, the config being the
 * -D defines the variant was compiled with (its tile sizes decide its grid). For each benchmark, every
 * variant runs once and its output is compared with a float64 host reference (the relative error is
 * printed, and a variant above the tolerance is dropped); the others are screened with 3 timed runs
 * and the fastest is timed for good. Timing: CUDA events around each launch (rk_event_*), 3 warm-up
 * launches, the median of --runs (default and minimum 20) runs, the L2 cache flushed before each run
 * by a 256 MiB memset outside the timed interval (as triton.testing.do_bench does).
 *
 * Benchmarks:
 *   matmul      bf16 C = A B, M = N = K = 4096 and 8192 (rows of C sampled for the check)  TFLOP/s
 *   softmax     f32 rows, 16384 x 8192                                                       GB/s
 *   layernorm   f32 rows, 16384 x 8192, with weight and bias                                 GB/s
 *   vecadd      f32 out = x + y, 2^28 elements; and cuMemcpyDtoD of 1 GiB for comparison   GB/s
 *   attention   flash attention forward, f16, Z=4 H=16 N_CTX=4096 D=64, not causal          TFLOP/s
 *   noop        launch overhead: host microseconds per rk_launch, and per raw cuLaunchKernel
 *               of the same function, 20000 back-to-back launches of an empty kernel
 * GB/s counts the bytes each kernel must move (read once, written once); TFLOP/s counts 2 M N K,
 * and 4 Z H N_CTX^2 D for attention (as Triton's tutorials do). After each best time a `runtime:` line
 * gives what the runtime reports for the same launch and time (rk_kernel_work, rk_roofline_of: issue
 * 22) beside that figure, and the last lines the largest difference between the two.
 *
 * Results go to stdout and, one line each, to the TSV file that bench/h200/table.py reads:
 *     bench impl size config ms value unit err tol status
 * Exit status 1 when any output failed its check. */
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rk.h"
#include "tests/device/prebuilt.h"
#include "support/files.h"

enum { MAX_VARIANTS = 32, MAX_GROUPS = 16, MAX_RUNS = 1000, MAX_ARGS = 12 };

typedef struct Variant {
    char base[512], config[512];
    rk_program *prog;
    rk_kernel *k;
} Variant;

typedef struct Group {
    char bench[32];
    Variant v[MAX_VARIANTS];
    int n;
} Group;

typedef struct Launch {
    rk_kernel *k;
    uint32_t grid[3];
    rk_arg args[MAX_ARGS];
    int nargs;
} Launch;

static const char *ptx_dir;
static rk_ctx *ctx;
static FILE *tsv;
static int runs = 20, failures;
static bool small;
static void *flush_buf;
static size_t flush_bytes;
static rk_event *ev0, *ev1;
static Group groups[MAX_GROUPS];
static int ngroups;

/* ---- the raw driver, for the reference points (copy bandwidth, launch overhead) ---- */

typedef int CUresult;
static struct {
    CUresult (*ModuleLoadData)(void **m, const void *image);
    CUresult (*ModuleGetFunction)(void **f, void *m, const char *name);
    CUresult (*ModuleUnload)(void *m);
    CUresult (*LaunchKernel)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                             unsigned shared, void *stream, void **params, void **extra);
    CUresult (*CtxSynchronize)(void);
    CUresult (*MemcpyDtoD)(unsigned long long dst, unsigned long long src, size_t n);
} cu;

/* The driver the cuda device loaded (the same library: dlopen hands out the same handle). */
static bool load_raw_driver(void)
{
    const char *env = getenv("RK_CUDA_LIB");
    void *lib = dlopen(env && *env ? env : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    struct {
        void *slot;
        const char *name;
    } syms[] = {{&cu.ModuleLoadData, "cuModuleLoadData"},   {&cu.ModuleGetFunction, "cuModuleGetFunction"},
                {&cu.ModuleUnload, "cuModuleUnload"},       {&cu.LaunchKernel, "cuLaunchKernel"},
                {&cu.CtxSynchronize, "cuCtxSynchronize"},   {&cu.MemcpyDtoD, "cuMemcpyDtoD_v2"}};
    for (size_t i = 0; lib && i < sizeof syms / sizeof syms[0]; i++) {
        void *p = dlsym(lib, syms[i].name);
        if (!p) {
            fprintf(stderr, "rk_bench: the CUDA driver lacks %s\n", syms[i].name);
            return false;
        }
        memcpy(syms[i].slot, &p, sizeof p);
    }
    return lib != NULL;
}

/* ---- helpers ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;

/* Uniform in [lo, hi) on a grid of 2^-16 of the range: exact in f32, rounded by the caller for 16-bit. */
static double uniform(double lo, double hi)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return lo + (hi - lo) * (double)(rng >> 48) / 65536.0;
}

static bool check_rk(rk_status st, const char *what)
{
    if (st == RK_OK)
        return true;
    fprintf(stderr, "rk_bench: %s: %s: %s\n", what, rk_status_name(st), rk_error(ctx));
    return false;
}

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    if (!check_rk(rk_malloc(ctx, bytes, &p), "rk_malloc"))
        return NULL;
    return p;
}

static void *dev_upload(const void *host, size_t bytes)
{
    void *p = dev_alloc(bytes);
    if (p && !check_rk(rk_memcpy_htod(ctx, p, host, bytes), "rk_memcpy_htod")) {
        rk_free(ctx, p);
        return NULL;
    }
    return p;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "rk_bench: out of host memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

/* The value of NAME in a config "A=1 NAME=2 ...", or def. */
static long cfg_int(const char *config, const char *name, long def)
{
    size_t n = strlen(name);
    for (const char *p = config; (p = strstr(p, name)) != NULL; p += n)
        if ((p == config || p[-1] == ' ') && p[n] == '=')
            return strtol(p + n + 1, NULL, 10);
    return def;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* max |out - ref| / max(|ref|, rms(ref)) over n values, as examples/common.h measures it. NaN anywhere
 * gives NaN. */
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

static void result(const char *bench, const char *impl, const char *size, const char *config, double ms,
                   double value, const char *unit, double err, double tol, const char *status)
{
    if (tsv) {
        fprintf(tsv, "%s\t%s\t%s\t%s\t%.6g\t%.6g\t%s\t%.3g\t%.3g\t%s\n", bench, impl, size, config, ms, value, unit,
                err, tol, status);
        fflush(tsv);
    }
}

/* ---- timing ---- */

static bool launch_sync(const Launch *l)
{
    return check_rk(rk_launch(l->k, l->grid, l->args, l->nargs, NULL), "rk_launch") &&
           check_rk(rk_synchronize(ctx), "rk_synchronize");
}

/* Median milliseconds of n runs of l (after 3 warm-up launches), each timed alone with events, the L2
 * flushed before each. A negative result on a failure. */
static double time_launch(const Launch *l, int n)
{
    double t[MAX_RUNS];
    for (int i = 0; i < 3; i++)
        if (!check_rk(rk_launch(l->k, l->grid, l->args, l->nargs, NULL), "rk_launch"))
            return -1;
    for (int i = 0; i < n && i < MAX_RUNS; i++) {
        float ms = 0;
        if (!check_rk(rk_memset(ctx, flush_buf, i & 0xFF, flush_bytes), "flush") ||
            !check_rk(rk_event_record(ev0, NULL), "rk_event_record") ||
            !check_rk(rk_launch(l->k, l->grid, l->args, l->nargs, NULL), "rk_launch") ||
            !check_rk(rk_event_record(ev1, NULL), "rk_event_record") ||
            !check_rk(rk_event_elapsed(ev0, ev1, &ms), "rk_event_elapsed"))
            return -1;
        t[i] = ms;
    }
    return median(t, n < MAX_RUNS ? n : MAX_RUNS);
}

/* ---- one benchmark over its variants ---- */

typedef struct Bench {
    const char *key, *label, *size, *unit;
    double work;   /* FLOPs or bytes of one run */
    bool flops;
    double tol;
    void *st;
    /* Sets l for variant v and clears the output (0xFF bytes: NaN in every float type). */
    bool (*setup)(void *st, const Variant *v, Launch *l);
    /* The relative error of the output against the reference. */
    double (*check)(void *st);
} Bench;

static Group *group(const char *bench)
{
    for (int i = 0; i < ngroups; i++)
        if (strcmp(groups[i].bench, bench) == 0)
            return &groups[i];
    return NULL;
}

/* What the runtime itself reports for the same launch and time (issue 22: rk_kernel_work, rk_device_peaks,
 * rk_roofline_of), beside this benchmark's own figure: dot FLOP/s for a TFLOP/s benchmark, the least
 * bytes to memory per second (each buffer at most once) for a GB/s one, and how far apart they are. */
static double worst_gap;
static void runtime_figures(const Bench *b, const Launch *l, double ms, double value)
{
    rk_work w;
    const rk_peaks *p;
    rk_roofline r;
    if (rk_kernel_work(l->k, l->grid, l->args, l->nargs, &w) != RK_OK || rk_device_peaks(ctx, NULL, &p, NULL) != RK_OK ||
        rk_roofline_of(p, &w, ms, &r) != RK_OK) {
        printf("  runtime: no figures: %s\n", rk_error(ctx));
        return;
    }
    double rt = b->flops ? w.flops_dot / ms / 1e9 : w.bytes_min / ms / 1e6;
    double gap = value > 0 ? fabs(rt - value) / value : INFINITY;
    worst_gap = gap > worst_gap ? gap : worst_gap;
    printf("  runtime: %.1f %s (%s) vs bench/h200 %.1f %s: %+.2f%%%s; %.4g TFLOP/s all FLOPs, %.1f GB/s moved; %.1f%% "
           "of the %s roofline bound (%s-bound)%s%s\n",
           rt, b->unit, b->flops ? "dot FLOPs" : "least bytes", value, b->unit, 100 * (rt - value) / value,
           gap <= 0.05 ? " (within 5%)" : " (MORE THAN 5% APART)", r.flops_per_s / 1e12, r.bytes_per_s / 1e9,
           100 * r.fraction, p->name, r.limit, w.estimate ? "; work estimated: " : "", w.estimate ? w.why : "");
}

static void run_bench(const char *group_name, const Bench *b)
{
    Group *g = group(group_name);
    printf("\n== rk %s %s\n", b->label, b->size);
    fflush(stdout);
    int best = -1;
    double best_ms = INFINITY, best_err = NAN;
    Launch best_l;
    memset(&best_l, 0, sizeof best_l);
    for (int i = 0; g && i < g->n; i++) {
        const Variant *v = &g->v[i];
        Launch l;
        memset(&l, 0, sizeof l);
        if (!v->k || !b->setup(b->st, v, &l) || !launch_sync(&l)) {
            printf("  [%s] did not run\n", v->config);
            failures++;
            continue;
        }
        double err = b->check(b->st);
        bool pass = err <= b->tol;
        printf("  [%s] max rel err %.1e (tol %.0e) %s", v->config, err, b->tol, pass ? "ok" : "FAILED");
        fflush(stdout);
        if (!pass) {
            printf("\n");
            failures++;
            continue;
        }
        double ms = time_launch(&l, 3);
        printf(" | screen %.4f ms\n", ms);
        if (ms > 0 && ms < best_ms) {
            best = i;
            best_ms = ms;
            best_err = err;
            best_l = l;
        }
    }
    if (best < 0) {
        printf("  no variant ran and passed\n");
        result(b->key, "rk", b->size, "", 0, 0, b->unit, NAN, b->tol, g ? "failed" : "missing");
        return;
    }
    /* The winner's launch again, then its timing. */
    const Variant *v = &g->v[best];
    if (!b->setup(b->st, v, &best_l) || !launch_sync(&best_l)) {
        failures++;
        return;
    }
    double ms = time_launch(&best_l, runs);
    double value = b->flops ? b->work / ms / 1e9 : b->work / ms / 1e6;
    printf("  best [%s]: median %.4f ms of %d runs = %.1f %s (max rel err %.1e)\n", v->config, ms, runs, value,
           b->unit, best_err);
    runtime_figures(b, &best_l, ms, value);
    result(b->key, "rk", b->size, v->config, ms, value, b->unit, best_err, b->tol, ms > 0 ? "ok" : "failed");
}

/* ---- matmul ---- */

typedef struct Matmul {
    int n, nrows;
    int *rows;
    double *ref;
    uint16_t *hc;
    void *a, *b, *c;
} Matmul;

static bool matmul_setup(void *st, const Variant *v, Launch *l)
{
    Matmul *m = st;
    long bm = cfg_int(v->config, "BLOCK_M", 0), bn = cfg_int(v->config, "BLOCK_N", 0);
    if (bm <= 0 || bn <= 0) {
        fprintf(stderr, "rk_bench: matmul variant without BLOCK_M and BLOCK_N: %s\n", v->config);
        return false;
    }
    int n = m->n;
    *l = (Launch){v->k, {(uint32_t)(((n + bm - 1) / bm) * ((n + bn - 1) / bn)), 1, 1},
                  {rk_arg_ptr(m->a), rk_arg_ptr(m->b), rk_arg_ptr(m->c), rk_arg_i32(n), rk_arg_i32(n), rk_arg_i32(n),
                   rk_arg_i32(n), rk_arg_i32(n), rk_arg_i32(n)},
                  9};
    return check_rk(rk_memset(ctx, m->c, 0xFF, (size_t)n * n * 2), "rk_memset");
}

static double matmul_check(void *st)
{
    Matmul *m = st;
    size_t n = (size_t)m->n;
    if (!check_rk(rk_memcpy_dtoh(ctx, m->hc, m->c, n * n * 2), "rk_memcpy_dtoh"))
        return NAN;
    double *got = xmalloc((size_t)m->nrows * n * sizeof *got);
    for (int r = 0; r < m->nrows; r++)
        for (size_t j = 0; j < n; j++)
            got[(size_t)r * n + j] = rk_bf16_to_double(m->hc[(size_t)m->rows[r] * n + j]);
    double err = max_rel_err(got, m->ref, (size_t)m->nrows * n);
    free(got);
    return err;
}

static void bench_matmul(int n)
{
    size_t nn = (size_t)n * n;
    Matmul m = {.n = n, .nrows = n >= 8192 ? 16 : 32};
    uint16_t *ha = xmalloc(nn * 2), *hb = xmalloc(nn * 2);
    float *fb = xmalloc(nn * sizeof(float));
    m.hc = xmalloc(nn * 2);
    for (size_t i = 0; i < nn; i++)
        ha[i] = rk_bf16_from_double(uniform(-1, 1));
    for (size_t i = 0; i < nn; i++)
        fb[i] = (float)rk_bf16_to_double(hb[i] = rk_bf16_from_double(uniform(-1, 1)));
    /* Rows spread over the matrix (the first and the last included), so every tile row is seen. */
    m.rows = xmalloc((size_t)m.nrows * sizeof *m.rows);
    m.ref = calloc((size_t)m.nrows * n, sizeof *m.ref);
    for (int r = 0; r < m.nrows; r++)
        m.rows[r] = r == m.nrows - 1 ? n - 1 : (int)((long)r * n / m.nrows + (r * 37) % (n / m.nrows));
    double t0 = now_s();
    for (int r = 0; r < m.nrows; r++) {
        double *out = m.ref + (size_t)r * n;
        for (int k = 0; k < n; k++) {
            double a = rk_bf16_to_double(ha[(size_t)m.rows[r] * n + k]);
            const float *brow = fb + (size_t)k * n;
            for (int j = 0; j < n; j++)
                out[j] += a * brow[j];
        }
    }
    printf("\n(matmul %d: host reference of %d rows in %.1f s)\n", n, m.nrows, now_s() - t0);
    m.a = dev_upload(ha, nn * 2);
    m.b = dev_upload(hb, nn * 2);
    m.c = dev_alloc(nn * 2);
    char label[64], size[64], key[32];
    snprintf(key, sizeof key, "matmul_%d", n);
    snprintf(label, sizeof label, "matmul bf16");
    snprintf(size, sizeof size, "%dx%dx%d", n, n, n);
    Bench b = {key, label, size, "TFLOP/s", 2.0 * n * (double)n * n, true, 1e-2, &m, matmul_setup, matmul_check};
    if (m.a && m.b && m.c)
        run_bench("matmul", &b);
    rk_free(ctx, m.a);
    rk_free(ctx, m.b);
    rk_free(ctx, m.c);
    free(ha);
    free(hb);
    free(fb);
    free(m.hc);
    free(m.rows);
    free(m.ref);
}

/* ---- softmax and layernorm: one row per program ---- */

typedef struct Rows {
    bool layernorm;
    int rows, cols, nsample;
    int *sample;
    float eps;
    double *ref;
    float *hy;
    void *x, *w, *b, *y;
} Rows;

static bool rows_setup(void *st, const Variant *v, Launch *l)
{
    Rows *r = st;
    if (cfg_int(v->config, "BLOCK", 0) < r->cols) {
        fprintf(stderr, "rk_bench: variant [%s] has BLOCK below %d columns\n", v->config, r->cols);
        return false;
    }
    if (r->layernorm)
        *l = (Launch){v->k, {(uint32_t)r->rows, 1, 1},
                      {rk_arg_ptr(r->x), rk_arg_ptr(r->w), rk_arg_ptr(r->b), rk_arg_ptr(r->y), rk_arg_i32(r->rows),
                       rk_arg_i32(r->cols), rk_arg_f32(r->eps)},
                      7};
    else
        *l = (Launch){v->k, {(uint32_t)r->rows, 1, 1},
                      {rk_arg_ptr(r->x), rk_arg_ptr(r->y), rk_arg_i32(r->rows), rk_arg_i32(r->cols)},
                      4};
    return check_rk(rk_memset(ctx, r->y, 0xFF, (size_t)r->rows * r->cols * 4), "rk_memset");
}

static double rows_check(void *st)
{
    Rows *r = st;
    size_t n = (size_t)r->rows * r->cols;
    if (!check_rk(rk_memcpy_dtoh(ctx, r->hy, r->y, n * 4), "rk_memcpy_dtoh"))
        return NAN;
    double *got = xmalloc((size_t)r->nsample * r->cols * sizeof *got);
    for (int s = 0; s < r->nsample; s++)
        for (int j = 0; j < r->cols; j++)
            got[(size_t)s * r->cols + j] = r->hy[(size_t)r->sample[s] * r->cols + j];
    double err = max_rel_err(got, r->ref, (size_t)r->nsample * r->cols);
    free(got);
    return err;
}

static void bench_rows(bool layernorm)
{
    Rows r = {.layernorm = layernorm, .rows = small ? 64 : 16384, .cols = 8192, .eps = 1e-5f};
    size_t n = (size_t)r.rows * r.cols;
    float *hx = xmalloc(n * 4), *hw = xmalloc((size_t)r.cols * 4), *hb = xmalloc((size_t)r.cols * 4);
    r.hy = xmalloc(n * 4);
    for (size_t i = 0; i < n; i++)
        hx[i] = (float)uniform(-4, 4);
    for (int j = 0; j < r.cols; j++) {
        hw[j] = (float)uniform(0.5, 1.5);
        hb[j] = (float)uniform(-1, 1);
    }
    r.nsample = r.rows < 256 ? r.rows : 256;
    r.sample = xmalloc((size_t)r.nsample * sizeof *r.sample);
    r.ref = xmalloc((size_t)r.nsample * r.cols * sizeof *r.ref);
    for (int s = 0; s < r.nsample; s++) {
        int row = s == r.nsample - 1 ? r.rows - 1 : (int)((long)s * r.rows / r.nsample);
        const float *xr = hx + (size_t)row * r.cols;
        double *o = r.ref + (size_t)s * r.cols;
        r.sample[s] = row;
        double a = 0, q = 0;
        if (layernorm) {
            for (int j = 0; j < r.cols; j++)
                a += xr[j];
            a /= r.cols;
            for (int j = 0; j < r.cols; j++)
                q += (xr[j] - a) * (xr[j] - a);
            double rstd = 1 / sqrt(q / r.cols + r.eps);
            for (int j = 0; j < r.cols; j++)
                o[j] = (xr[j] - a) * rstd * hw[j] + hb[j];
        } else {
            a = -INFINITY;
            for (int j = 0; j < r.cols; j++)
                a = fmax(a, xr[j]);
            for (int j = 0; j < r.cols; j++)
                q += (o[j] = exp(xr[j] - a));
            for (int j = 0; j < r.cols; j++)
                o[j] /= q;
        }
    }
    r.x = dev_upload(hx, n * 4);
    r.y = dev_alloc(n * 4);
    if (layernorm) {
        r.w = dev_upload(hw, (size_t)r.cols * 4);
        r.b = dev_upload(hb, (size_t)r.cols * 4);
    }
    char size[64];
    snprintf(size, sizeof size, "%dx%d", r.rows, r.cols);
    double bytes = 2.0 * (double)n * 4 + (layernorm ? 2.0 * r.cols * 4 : 0);
    Bench b = {layernorm ? "layernorm" : "softmax", layernorm ? "layernorm f32" : "softmax f32", size, "GB/s", bytes,
               false, 1e-4, &r, rows_setup, rows_check};
    if (r.x && r.y && (!layernorm || (r.w && r.b)))
        run_bench(layernorm ? "layernorm" : "softmax", &b);
    rk_free(ctx, r.x);
    rk_free(ctx, r.y);
    rk_free(ctx, r.w);
    rk_free(ctx, r.b);
    free(hx);
    free(hw);
    free(hb);
    free(r.hy);
    free(r.sample);
    free(r.ref);
}

/* ---- vecadd, and the device-to-device copy it is compared with ---- */

typedef struct Vec {
    int n;
    float *hx, *hy, *hout;
    void *x, *y, *out;
} Vec;

static bool vec_setup(void *st, const Variant *v, Launch *l)
{
    Vec *s = st;
    long block = cfg_int(v->config, "BLOCK", 0);
    if (block <= 0 || cfg_int(v->config, "ALIGN", 1) > 16 || s->n % cfg_int(v->config, "ALIGN", 1)) {
        fprintf(stderr, "rk_bench: vecadd variant without BLOCK, or n not a multiple of ALIGN: %s\n", v->config);
        return false;
    }
    *l = (Launch){v->k, {(uint32_t)((s->n + block - 1) / block), 1, 1},
                  {rk_arg_ptr(s->x), rk_arg_ptr(s->y), rk_arg_ptr(s->out), rk_arg_i32(s->n)},
                  4};
    return check_rk(rk_memset(ctx, s->out, 0xFF, (size_t)s->n * 4), "rk_memset");
}

static double vec_check(void *st)
{
    Vec *s = st;
    if (!check_rk(rk_memcpy_dtoh(ctx, s->hout, s->out, (size_t)s->n * 4), "rk_memcpy_dtoh"))
        return NAN;
    /* Against the exact sum, chunk by chunk (the reference array would be 2 GiB). */
    double worst = 0;
    enum { CHUNK = 1 << 20 };
    double *got = xmalloc(CHUNK * sizeof *got), *ref = xmalloc(CHUNK * sizeof *ref);
    for (int i = 0; i < s->n; i += CHUNK) {
        int m = s->n - i < CHUNK ? s->n - i : CHUNK;
        for (int j = 0; j < m; j++) {
            got[j] = s->hout[i + j];
            ref[j] = (double)s->hx[i + j] + (double)s->hy[i + j];
        }
        double e = max_rel_err(got, ref, (size_t)m);
        worst = isnan(e) || isnan(worst) ? NAN : fmax(worst, e);
    }
    free(got);
    free(ref);
    return worst;
}

static void bench_vecadd(void)
{
    Vec s = {.n = small ? 1 << 20 : 1 << 28};
    size_t bytes = (size_t)s.n * 4;
    s.hx = xmalloc(bytes);
    s.hy = xmalloc(bytes);
    s.hout = xmalloc(bytes);
    for (int i = 0; i < s.n; i++) {
        s.hx[i] = (float)uniform(-1, 1);
        s.hy[i] = (float)uniform(-1, 1);
    }
    s.x = dev_upload(s.hx, bytes);
    s.y = dev_upload(s.hy, bytes);
    s.out = dev_alloc(bytes);
    char size[64];
    snprintf(size, sizeof size, "2^%d", small ? 20 : 28);
    Bench b = {"vecadd", "vecadd f32", size, "GB/s", 3.0 * (double)bytes, false, 1e-6, &s, vec_setup, vec_check};
    if (s.x && s.y && s.out)
        run_bench("vecadd", &b);

    /* The same bytes copied by the driver: out = x, bandwidth counted as read + write. */
    if (s.x && s.out && cu.MemcpyDtoD) {
        printf("\n== cuMemcpyDtoD %zu bytes\n", bytes);
        double t[MAX_RUNS];
        bool okay = cu.MemcpyDtoD((uintptr_t)s.out, (uintptr_t)s.x, bytes) == 0 && rk_synchronize(ctx) == RK_OK &&
                    rk_memcpy_dtoh(ctx, s.hout, s.out, bytes) == RK_OK && memcmp(s.hout, s.hx, bytes) == 0;
        printf("  copy %s\n", okay ? "equal to its source" : "FAILED");
        int i = 0;
        for (; okay && i < runs; i++) {
            float ms = 0;
            if (rk_memset(ctx, flush_buf, i & 0xFF, flush_bytes) || rk_event_record(ev0, NULL) ||
                cu.MemcpyDtoD((uintptr_t)s.out, (uintptr_t)s.x, bytes) != 0 || rk_event_record(ev1, NULL) ||
                rk_event_elapsed(ev0, ev1, &ms))
                okay = false;
            t[i] = ms;
        }
        if (okay) {
            double ms = median(t, runs);
            printf("  median %.4f ms of %d runs = %.1f GB/s\n", ms, runs, 2.0 * (double)bytes / ms / 1e6);
            result("copy", "cuda", size, "cuMemcpyDtoD", ms, 2.0 * (double)bytes / ms / 1e6, "GB/s", 0, 0, "ok");
        } else {
            failures++;
        }
    }
    rk_free(ctx, s.x);
    rk_free(ctx, s.y);
    rk_free(ctx, s.out);
    free(s.hx);
    free(s.hy);
    free(s.hout);
}

/* ---- attention ---- */

typedef struct Attn {
    int Z, H, N, D, nheads, nrows;
    int heads[2], rows[16];
    uint16_t *ho;
    double *ref;
    void *q, *k, *v, *o;
} Attn;

static bool attn_setup(void *st, const Variant *v, Launch *l)
{
    Attn *a = st;
    long bm = cfg_int(v->config, "BLOCK_M", 0);
    if (bm <= 0 || cfg_int(v->config, "HEAD_DIM", 64) != a->D) {
        fprintf(stderr, "rk_bench: attention variant without BLOCK_M or with another HEAD_DIM: %s\n", v->config);
        return false;
    }
    *l = (Launch){v->k, {(uint32_t)((a->N + bm - 1) / bm), (uint32_t)(a->Z * a->H), 1},
                  {rk_arg_ptr(a->q), rk_arg_ptr(a->k), rk_arg_ptr(a->v), rk_arg_ptr(a->o),
                   rk_arg_f32((float)(1.0 / sqrt((double)a->D))), rk_arg_i32(a->Z), rk_arg_i32(a->H), rk_arg_i32(a->N)},
                  8};
    return check_rk(rk_memset(ctx, a->o, 0xFF, (size_t)a->Z * a->H * a->N * a->D * 2), "rk_memset");
}

static double attn_check(void *st)
{
    Attn *a = st;
    size_t n = (size_t)a->Z * a->H * a->N * a->D;
    if (!check_rk(rk_memcpy_dtoh(ctx, a->ho, a->o, n * 2), "rk_memcpy_dtoh"))
        return NAN;
    size_t m = (size_t)a->nheads * a->nrows * a->D;
    double *got = xmalloc(m * sizeof *got);
    for (int h = 0; h < a->nheads; h++)
        for (int r = 0; r < a->nrows; r++)
            for (int d = 0; d < a->D; d++)
                got[((size_t)h * a->nrows + r) * a->D + d] =
                    rk_f16_to_double(a->ho[(((size_t)a->heads[h] * a->N) + a->rows[r]) * a->D + d]);
    double err = max_rel_err(got, a->ref, m);
    free(got);
    return err;
}

static void bench_attention(void)
{
    Attn a = {.Z = small ? 1 : 4, .H = small ? 2 : 16, .N = small ? 128 : 4096, .D = 64, .nheads = 2, .nrows = 16};
    size_t n = (size_t)a.Z * a.H * a.N * a.D;
    uint16_t *hq = xmalloc(n * 2), *hk = xmalloc(n * 2), *hv = xmalloc(n * 2);
    a.ho = xmalloc(n * 2);
    for (size_t i = 0; i < n; i++) {
        hq[i] = rk_f16_from_double(uniform(-1, 1));
        hk[i] = rk_f16_from_double(uniform(-1, 1));
        hv[i] = rk_f16_from_double(uniform(-1, 1));
    }
    a.heads[0] = 0;
    a.heads[1] = a.Z * a.H - 1;
    for (int r = 0; r < a.nrows; r++)
        a.rows[r] = r == a.nrows - 1 ? a.N - 1 : r * (a.N / a.nrows) + r % 5;
    a.ref = calloc((size_t)a.nheads * a.nrows * a.D, sizeof *a.ref);
    double *s = xmalloc((size_t)a.N * sizeof *s), scale = 1.0 / sqrt((double)a.D);
    for (int h = 0; h < a.nheads; h++) {
        size_t base = (size_t)a.heads[h] * a.N * a.D;
        for (int r = 0; r < a.nrows; r++) {
            double mx = -INFINITY, sum = 0, *out = a.ref + ((size_t)h * a.nrows + r) * a.D;
            for (int j = 0; j < a.N; j++) {
                double dot = 0;
                for (int d = 0; d < a.D; d++)
                    dot += rk_f16_to_double(hq[base + (size_t)a.rows[r] * a.D + d]) *
                           rk_f16_to_double(hk[base + (size_t)j * a.D + d]);
                s[j] = dot * scale;
                mx = fmax(mx, s[j]);
            }
            for (int j = 0; j < a.N; j++)
                sum += (s[j] = exp(s[j] - mx));
            for (int j = 0; j < a.N; j++)
                for (int d = 0; d < a.D; d++)
                    out[d] += s[j] / sum * rk_f16_to_double(hv[base + (size_t)j * a.D + d]);
        }
    }
    free(s);
    a.q = dev_upload(hq, n * 2);
    a.k = dev_upload(hk, n * 2);
    a.v = dev_upload(hv, n * 2);
    a.o = dev_alloc(n * 2);
    char size[64];
    snprintf(size, sizeof size, "Z=%d H=%d N=%d D=%d", a.Z, a.H, a.N, a.D);
    Bench b = {"attention", "attention fwd f16", size, "TFLOP/s", 4.0 * a.Z * a.H * (double)a.N * a.N * a.D, true, 5e-3,
               &a, attn_setup, attn_check};
    if (a.q && a.k && a.v && a.o)
        run_bench("attention", &b);
    rk_free(ctx, a.q);
    rk_free(ctx, a.k);
    rk_free(ctx, a.v);
    rk_free(ctx, a.o);
    free(hq);
    free(hk);
    free(hv);
    free(a.ho);
    free(a.ref);
}

/* ---- launch overhead ---- */

static char *read_text(const char *path)
{
    size_t len;
    int err;
    return rt_read_file(path, (size_t)1 << 30, &len, &err);
}

static void bench_launch(void)
{
    Group *g = group("noop");
    if (!g || !g->n || !g->v[0].k) {
        printf("\n(no noop kernel: launch overhead not measured)\n");
        return;
    }
    Variant *v = &g->v[0];
    rk_kernel_info ki;
    rk_kernel_get_info(v->k, &ki);
    const int reps = small ? 2000 : 20000, rounds = 5;
    printf("\n== launch overhead: %d back-to-back launches of an empty kernel (grid 1, block %d), %d rounds\n", reps,
           ki.block_size, rounds);
    /* The same function through the raw driver. */
    char path[4096];
    snprintf(path, sizeof path, "%s.ptx", v->base);
    char *ptx = read_text(path);
    void *mod = NULL, *fn = NULL;
    if (!ptx || !cu.ModuleLoadData || cu.ModuleLoadData(&mod, ptx) != 0 || cu.ModuleGetFunction(&fn, mod, "noop") != 0) {
        printf("  cannot load %s through the raw driver\n", path);
        fn = NULL;
    }
    int32_t zero = 0;
    void *x = flush_buf;
    void *params[] = {&x, &zero};
    rk_arg args[] = {rk_arg_ptr(flush_buf), rk_arg_i32(0)};
    uint32_t grid[3] = {1, 1, 1};
    for (int raw = 0; raw < 2; raw++) {
        if (raw && !fn)
            break;
        double host[8], gpu[8];
        bool okay = true;
        for (int r = 0; r < rounds && okay; r++) {
            float ms = 0;
            okay = rk_synchronize(ctx) == RK_OK && rk_event_record(ev0, NULL) == RK_OK;
            double t0 = now_s();
            for (int i = 0; i < reps && okay; i++)
                okay = raw ? cu.LaunchKernel(fn, 1, 1, 1, (unsigned)ki.block_size, 1, 1, 0, NULL, params, NULL) == 0
                           : rk_launch(v->k, grid, args, 2, NULL) == RK_OK;
            double t1 = now_s();
            okay = okay && rk_event_record(ev1, NULL) == RK_OK && rk_event_elapsed(ev0, ev1, &ms) == RK_OK;
            host[r] = (t1 - t0) * 1e6 / reps;
            gpu[r] = ms * 1e3 / reps;
        }
        const char *impl = raw ? "cuda" : "rk", *what = raw ? "cuLaunchKernel" : "rk_launch";
        if (!okay) {
            printf("  %s failed: %s\n", what, raw ? "driver error" : rk_error(ctx));
            failures++;
            continue;
        }
        double h = median(host, rounds), gp = median(gpu, rounds);
        printf("  %-14s %.2f us per call on the host, %.2f us per launch on the GPU\n", what, h, gp);
        result("launch_host", impl, "empty kernel", what, h * 1e-3, h, "us", 0, 0, "ok");
        result("launch_gpu", impl, "empty kernel", what, gp * 1e-3, gp, "us", 0, 0, "ok");
    }
    if (mod)
        cu.ModuleUnload(mod);
    free(ptx);
}

/* ---- the variants ---- */

static void load_index(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/index.tsv", ptx_dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "rk_bench: cannot read %s: run bench/h200/prepare.sh first\n", path);
        exit(1);
    }
    char line[2048];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        char *bench = strtok(line, "\t"), *base = strtok(NULL, "\t"), *config = strtok(NULL, "\t");
        if (!bench || !base || bench[0] == '#')
            continue;
        Group *g = group(bench);
        if (!g && ngroups < MAX_GROUPS) {
            g = &groups[ngroups++];
            snprintf(g->bench, sizeof g->bench, "%s", bench);
        }
        if (!g || g->n == MAX_VARIANTS)
            continue;
        Variant *v = &g->v[g->n++];
        snprintf(v->base, sizeof v->base, "%s/%s", ptx_dir, base);
        snprintf(v->config, sizeof v->config, "%s", config ? config : "");
        char err[1024];
        rk_status st = pb_load(ctx, v->base, &v->prog, err, sizeof err);
        if (st != RK_OK) {
            fprintf(stderr, "rk_bench: %s\n", err);
            failures++;
            continue;
        }
        if (rk_program_kernel_at(v->prog, 0, &v->k) != RK_OK)
            v->k = NULL;
    }
    fclose(f);
}

static bool wanted(const char *only, const char *name)
{
    if (!only)
        return true;
    size_t n = strlen(name);
    for (const char *p = only; (p = strstr(p, name)) != NULL; p += n)
        if ((p == only || p[-1] == ',') && (p[n] == ',' || p[n] == 0))
            return true;
    return false;
}

int main(int argc, char **argv)
{
    const char *tsv_path = NULL, *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--ptx") == 0 && i + 1 < argc)
            ptx_dir = argv[++i];
        else if (strcmp(argv[i], "--tsv") == 0 && i + 1 < argc)
            tsv_path = argv[++i];
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--small") == 0)
            small = true;
        else {
            fprintf(stderr, "usage: rk_bench --ptx DIR [--tsv FILE] [--runs N] [--small] "
                            "[--only matmul,softmax,layernorm,vecadd,attention,launch]\n");
            return 2;
        }
    }
    if (!ptx_dir) {
        fprintf(stderr, "rk_bench: --ptx DIR is required\n");
        return 2;
    }
    if (runs < 20 && !small)
        runs = 20;
    if (small && runs == 20)
        runs = 3; /* the fake driver computes on the host: the timings mean nothing there */
    if (runs < 1)
        runs = 1;
    if (runs > MAX_RUNS)
        runs = MAX_RUNS;
    rk_ctx_options o = {.device = "cuda"};
    rk_status st = rk_ctx_create(&o, &ctx);
    if (st != RK_OK) {
        fprintf(stderr, "rk_bench: no cuda device: %s: %s\n", rk_status_name(st), rk_error(ctx));
        rk_ctx_destroy(ctx);
        return st == RK_ENODEVICE || st == RK_EUNSUPPORTED ? 77 : 1;
    }
    rk_device_info di;
    rk_device_get_info(ctx, &di);
    printf("rk_bench: %s (%s), %d SMs, %.0f GiB; %d runs per timing, L2 flushed before each\n", di.name, di.arch,
           di.compute_units, (double)di.global_memory / (1 << 30), runs);
    if (tsv_path && !(tsv = fopen(tsv_path, "w"))) {
        fprintf(stderr, "rk_bench: cannot write %s\n", tsv_path);
        return 1;
    }
    if (tsv)
        fprintf(tsv, "# device\t%s\t%s\t%d SMs\n", di.name, di.arch, di.compute_units);
    flush_bytes = small ? (size_t)1 << 20 : (size_t)256 << 20;
    if (!load_raw_driver() || !(flush_buf = dev_alloc(flush_bytes)) ||
        !check_rk(rk_event_create(ctx, &ev0), "rk_event_create") ||
        !check_rk(rk_event_create(ctx, &ev1), "rk_event_create")) {
        rk_ctx_destroy(ctx);
        return 1;
    }
    double t0 = now_s();
    load_index();
    printf("rk_bench: %d benchmark groups loaded from %s in %.1f s\n", ngroups, ptx_dir, now_s() - t0);
    if (wanted(only, "launch"))
        bench_launch();
    if (wanted(only, "vecadd"))
        bench_vecadd();
    if (wanted(only, "softmax"))
        bench_rows(false);
    if (wanted(only, "layernorm"))
        bench_rows(true);
    if (wanted(only, "matmul")) {
        bench_matmul(small ? 128 : 4096);
        bench_matmul(small ? 256 : 8192);
    }
    if (wanted(only, "attention"))
        bench_attention();
    printf("\nrk_bench: the runtime's figures and bench/h200's differ by at most %.2f%% (issue 22 asks 5%%)\n",
           100 * worst_gap);
    printf("\nrk_bench: done in %.1f s, %d failure%s\n", now_s() - t0, failures, failures == 1 ? "" : "s");
    if (tsv)
        fclose(tsv);
    rk_ctx_destroy(ctx);
    return failures ? 1 : 0;
}
