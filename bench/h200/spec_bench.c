/* spec_bench: issue 21's last check on the H200: Triton's tutorial matmul ported word for word (no
 * hints: tests/golden/run/spec_matmul.tile), launched through the runtime alone from an AOT bundle that
 * carries a specialisation for the call's facts, against the hand-hinted examples/matmul.tile, with the
 * same tile configs. bench/h200/spec_prepare.sh makes the bundles on the build machine; `bash
 * bench/h200/run.sh spec` builds this program against the runtime (no LLVM) on the GPU machine.
 *
 *     spec_bench --bundles DIR [--sizes 4096,8192] [--runs N] [--rounds R] [--small]
 *
 * DIR holds unhinted, generic and hinted (each NAME.ptx, or NAME.so for an emu build, with NAME.*.json):
 *   unhinted  the port, every config plain and again for the facts of a row-major call with sizes and
 *             row strides multiples of 16 (rkc --all-configs --specialize FACTS)
 *   generic   the port, plain configs only: what a call without facts runs
 *   hinted    examples/matmul.tile (multiple_of hints, unit strides written in), plain configs
 *   hinted_notma (optional) the same compiled with RK_NO_TMA=1: its operands through cp.async, as the
 *             port's are (the port's wrapping `% M` rows keep TMA out), to tell the two effects apart
 * For each size (C = A B in bf16, f32 accumulation, all row-major) and each bundle: rk_bundle_run with
 * the call's arguments (the runtime picks the variants of the most specialised set of facts the
 * arguments satisfy, tunes among their configs, launches the winner), the output compared with a
 * float64 host reference of sampled rows and with the other bundles' outputs; then rk_bundle_autotune
 * (remembered: no second tuning) names the kernel rk_bundle_run launches, with its config and facts,
 * and that launch is timed: CUDA events through rk_event_*, 3 warm-ups, the median of --runs (default
 * 20) runs, the L2 flushed before each by a 256 MiB memset outside the timed interval (as rk_bench and
 * triton.testing.do_bench do), once as rk_launch of that kernel and once as rk_bundle_run itself (the
 * runtime's choice on every call). The bundles take turns, --rounds times (default 2). Every variant
 * of the set the runtime chose is also screened (5 runs each, flushed) to show whether its tuner, which
 * times without flushing, picked the fastest under this timing.
 *
 * Exit status 0 when every output passed its check (tolerance 1e-2, max |out - ref| / max(|ref|,
 * rms(ref))), 1 otherwise, 77 without a device. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rk.h"

enum { MAX_RUNS = 1000, NB = 4, MAX_SIZES = 4 };

static const char *const names[NB] = {"unhinted", "hinted", "generic", "hinted_notma"};
static const char *const labels[NB] = {"unhinted port, specialised by the runtime", "hinted examples/matmul.tile",
                                       "unhinted port, generic (no facts)", "hinted, cp.async (RK_NO_TMA=1)"};
static rk_ctx *ctx;
static rk_bundle *bundles[NB];
static int runs = 20, rounds = 2, failures;
static bool small;
static void *flush_buf;
static size_t flush_bytes;
static rk_event *ev0, *ev1;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static double uniform(double lo, double hi)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return lo + (hi - lo) * (double)(rng >> 48) / 65536.0;
}

static bool ok(rk_status st, const char *what)
{
    if (st == RK_OK)
        return true;
    fprintf(stderr, "spec_bench: %s: %s: %s\n", what, rk_status_name(st), rk_error(ctx));
    return false;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "spec_bench: out of host memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
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

static void log_line(void *ud, rk_log_kind kind, const char *line)
{
    (void)ud;
    if (kind != RK_LOG_PROGRESS)
        printf("    [rk] %s\n", line);
}

/* ---- one size ---- */

typedef struct Call {
    int n;
    void *a, *b, *c;
    rk_arg args[12];
    int nargs;
} Call;

/* The arguments of bundle i's kernel: the port takes every stride, the hinted kernel the leading
 * dimensions (its unit strides are written in). */
static void set_args(Call *c, int i)
{
    int n = c->n;
    if (i == 1 || i == 3) {
        rk_arg a[] = {rk_arg_ptr(c->a), rk_arg_ptr(c->b), rk_arg_ptr(c->c), rk_arg_i32(n), rk_arg_i32(n),
                      rk_arg_i32(n),    rk_arg_i32(n),    rk_arg_i32(n),    rk_arg_i32(n)};
        memcpy(c->args, a, sizeof a);
        c->nargs = 9;
    } else {
        rk_arg a[] = {rk_arg_ptr(c->a), rk_arg_ptr(c->b), rk_arg_ptr(c->c), rk_arg_i32(n), rk_arg_i32(n),
                      rk_arg_i32(n),    rk_arg_i32(n),    rk_arg_i32(1),    rk_arg_i32(n), rk_arg_i32(1),
                      rk_arg_i32(n),    rk_arg_i32(1)};
        memcpy(c->args, a, sizeof a);
        c->nargs = 12;
    }
}

/* Median milliseconds of n runs after 3 warm-ups, each alone between events, the L2 flushed before
 * each: rk_launch of k, or (k NULL) rk_bundle_run of bundle b. Negative on a failure. */
static double time_runs(rk_bundle *b, rk_kernel *k, const Call *c, int n)
{
    double t[MAX_RUNS];
    for (int i = 0; i < 3; i++)
        if (!ok(k ? rk_launch(k, NULL, c->args, c->nargs, NULL) : rk_bundle_run(b, "matmul", NULL, c->args, c->nargs, NULL),
                "warm-up"))
            return -1;
    for (int i = 0; i < n && i < MAX_RUNS; i++) {
        float ms = 0;
        if (!ok(rk_memset(ctx, flush_buf, i & 0xFF, flush_bytes), "flush") || !ok(rk_event_record(ev0, NULL), "event") ||
            !ok(k ? rk_launch(k, NULL, c->args, c->nargs, NULL) : rk_bundle_run(b, "matmul", NULL, c->args, c->nargs, NULL),
                "launch") ||
            !ok(rk_event_record(ev1, NULL), "event") || !ok(rk_event_elapsed(ev0, ev1, &ms), "rk_event_elapsed"))
            return -1;
        t[i] = ms;
    }
    return median(t, n < MAX_RUNS ? n : MAX_RUNS);
}

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

static void bench_size(int n)
{
    size_t nn = (size_t)n * n;
    int nrows = small ? 8 : n >= 8192 ? 8 : 16;
    uint16_t *ha = xmalloc(nn * 2), *hb = xmalloc(nn * 2), *hc[NB];
    float *fb = xmalloc(nn * sizeof(float));
    for (size_t i = 0; i < nn; i++)
        ha[i] = rk_bf16_from_double(uniform(-1, 1));
    for (size_t i = 0; i < nn; i++)
        fb[i] = (float)rk_bf16_to_double(hb[i] = rk_bf16_from_double(uniform(-1, 1)));
    /* rows spread over the matrix, the first and the last among them */
    int *rows = xmalloc((size_t)nrows * sizeof *rows);
    double *ref = calloc((size_t)nrows * n, sizeof *ref), *got = xmalloc((size_t)nrows * n * sizeof *got);
    for (int r = 0; r < nrows; r++)
        rows[r] = r == nrows - 1 ? n - 1 : (int)((long)r * n / nrows + (r * 37) % (n / nrows));
    double t0 = now_s();
    for (int r = 0; r < nrows; r++) {
        double *out = ref + (size_t)r * n;
        for (int k = 0; k < n; k++) {
            double a = rk_bf16_to_double(ha[(size_t)rows[r] * n + k]);
            const float *brow = fb + (size_t)k * n;
            for (int j = 0; j < n; j++)
                out[j] += a * brow[j];
        }
    }
    printf("\n== matmul bf16 %dx%dx%d (host reference of %d rows in %.1f s)\n", n, n, n, nrows, now_s() - t0);
    Call c = {.n = n};
    if (!ok(rk_malloc(ctx, nn * 2, &c.a), "rk_malloc") || !ok(rk_malloc(ctx, nn * 2, &c.b), "rk_malloc") ||
        !ok(rk_malloc(ctx, nn * 2, &c.c), "rk_malloc") || !ok(rk_memcpy_htod(ctx, c.a, ha, nn * 2), "upload") ||
        !ok(rk_memcpy_htod(ctx, c.b, hb, nn * 2), "upload")) {
        failures++;
        return;
    }
    rk_kernel *best[NB] = {0};
    double err[NB];
    /* Run, check and name what the runtime picks. */
    for (int i = 0; i < NB; i++) {
        hc[i] = NULL;
        if (!bundles[i])
            continue;
        set_args(&c, i);
        printf("  %s (%s.*)\n", labels[i], names[i]);
        fflush(stdout);
        double t1 = now_s();
        if (!ok(rk_memset(ctx, c.c, 0xFF, nn * 2), "rk_memset") ||
            !ok(rk_bundle_run(bundles[i], "matmul", NULL, c.args, c.nargs, NULL), "rk_bundle_run") ||
            !ok(rk_synchronize(ctx), "rk_synchronize") ||
            !ok(rk_bundle_autotune(bundles[i], "matmul", c.args, c.nargs, &best[i]), "rk_bundle_autotune")) {
            failures++;
            best[i] = NULL;
            continue;
        }
        hc[i] = xmalloc(nn * 2);
        if (!ok(rk_memcpy_dtoh(ctx, hc[i], c.c, nn * 2), "download")) {
            failures++;
            best[i] = NULL;
            continue;
        }
        for (int r = 0; r < nrows; r++)
            for (int j = 0; j < n; j++)
                got[(size_t)r * n + j] = rk_bf16_to_double(hc[i][(size_t)rows[r] * n + j]);
        err[i] = max_rel_err(got, ref, (size_t)nrows * n);
        bool pass = err[i] <= 1e-2;
        failures += !pass;
        const char *facts = rk_kernel_facts(best[i]);
        printf("    tuned and run in %.2f s; runs [%s], facts: %s; max rel err %.1e (tol 1e-02) %s\n", now_s() - t1,
               rk_kernel_config(best[i]), *facts ? facts : "none (the generic kernel)", err[i], pass ? "ok" : "FAILED");
        if (!pass)
            best[i] = NULL;
    }
    /* The outputs against each other, every element. */
    for (int i = 0; i < NB; i++)
        for (int j = i + 1; j < NB; j++) {
            if (!hc[i] || !hc[j])
                continue;
            size_t diff = 0;
            double worst = 0;
            for (size_t e = 0; e < nn; e++)
                if (hc[i][e] != hc[j][e]) {
                    diff++;
                    worst = fmax(worst, fabs(rk_bf16_to_double(hc[i][e]) - rk_bf16_to_double(hc[j][e])));
                }
            printf("  %s vs %s: %zu of %zu elements differ (max |diff| %.3g)\n", names[i], names[j], diff, nn, worst);
        }
    /* Every variant of the chosen set, screened under the same timing. */
    for (int i = 0; i < NB && !small; i++) {
        if (!best[i])
            continue;
        set_args(&c, i);
        printf("  screen, %s: every variant with the runtime's chosen facts, 5 runs each, L2 flushed\n", names[i]);
        int nv = rk_bundle_variant_count(bundles[i], "matmul");
        for (int v = 0; v < nv; v++) {
            rk_kernel *k;
            if (!ok(rk_bundle_variant(bundles[i], "matmul", v, &k), "rk_bundle_variant") ||
                strcmp(rk_kernel_facts(k), rk_kernel_facts(best[i])) != 0)
                continue;
            double ms = time_runs(NULL, k, &c, 5);
            printf("    [%s] %.4f ms = %.1f TFLOP/s%s\n", rk_kernel_config(k), ms, 2.0 * n * (double)n * n / ms / 1e9,
                   k == best[i] ? "   <- the runtime's pick" : "");
        }
    }
    /* The timings, the bundles taking turns. */
    double ms_launch[NB][8], ms_run[NB][8];
    int nr = rounds < 8 ? rounds : 8;
    for (int r = 0; r < nr; r++)
        for (int s = 0; s < NB; s++) {
            int i = (s + r) % NB;
            if (!best[i])
                continue;
            set_args(&c, i);
            ms_launch[i][r] = time_runs(NULL, best[i], &c, runs);
            ms_run[i][r] = time_runs(bundles[i], NULL, &c, runs);
        }
    printf("\n  matmul bf16 %d^3, median of %d runs, L2 flushed; TFLOP/s per round (rk_launch of the runtime's "
           "pick / rk_bundle_run)\n",
           n, runs);
    double flop = 2.0 * n * (double)n * n;
    for (int i = 0; i < NB; i++) {
        if (!best[i])
            continue;
        printf("  %-44s", labels[i]);
        for (int r = 0; r < nr; r++)
            printf(" | %.4f ms %.1f / %.4f ms %.1f", ms_launch[i][r], flop / ms_launch[i][r] / 1e9, ms_run[i][r],
                   flop / ms_run[i][r] / 1e9);
        printf(" | [%s]\n", rk_kernel_config(best[i]));
    }
    for (int h = 1; h < NB; h += 2)
        if (best[0] && best[h]) {
            printf("  unhinted / %s (TFLOP/s ratio, rk_launch, per round):", names[h]);
            for (int r = 0; r < nr; r++)
                printf(" %.3f", ms_launch[h][r] / ms_launch[0][r]);
            printf("\n");
        }
    for (int i = 0; i < NB; i++)
        free(hc[i]);
    rk_free(ctx, c.a);
    rk_free(ctx, c.b);
    rk_free(ctx, c.c);
    free(ha), free(hb), free(fb), free(rows), free(ref), free(got);
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *sizes = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--bundles") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc)
            sizes = argv[++i];
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--small") == 0)
            small = true;
        else {
            fprintf(stderr, "usage: spec_bench --bundles DIR [--sizes 4096,8192] [--runs N] [--rounds R] [--small]\n");
            return 2;
        }
    }
    if (!dir) {
        fprintf(stderr, "spec_bench: --bundles DIR is required\n");
        return 2;
    }
    if (runs < 1 || runs > MAX_RUNS)
        runs = 20;
    if (rounds < 1)
        rounds = 1;
    rk_ctx_options o = {.log = log_line, .print_autotuning = 1};
    if (small) /* the emulator: one run per config when tuning */
        o.tune_runs = 1, o.tune_ms = -1;
    rk_status st = rk_ctx_create(&o, &ctx);
    if (st != RK_OK) {
        fprintf(stderr, "spec_bench: no device: %s: %s\n", rk_status_name(st), rk_error(ctx));
        rk_ctx_destroy(ctx);
        return st == RK_ENODEVICE || st == RK_EUNSUPPORTED ? 77 : 1;
    }
    rk_device_info di;
    rk_device_get_info(ctx, &di);
    printf("spec_bench: %s (%s), %d SMs; %d runs per timing, L2 flushed before each\n", di.name, di.arch,
           di.compute_units, runs);
    for (int i = 0; i < NB; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.ptx", dir, names[i]);
        FILE *f = fopen(path, "rb");
        if (!f) {
            snprintf(path, sizeof path, "%s/%s.so", dir, names[i]);
            f = fopen(path, "rb");
        }
        if (f)
            fclose(f);
        else if (i == 3)
            continue; /* optional */
        if (!ok(rk_bundle_load(ctx, path, &bundles[i]), path)) {
            failures++;
            continue;
        }
        printf("  %s: target %s, %d variants of matmul\n", path, rk_bundle_target(bundles[i]),
               rk_bundle_variant_count(bundles[i], "matmul"));
    }
    flush_bytes = small ? (size_t)1 << 20 : (size_t)256 << 20;
    if (!ok(rk_malloc(ctx, flush_bytes, &flush_buf), "rk_malloc") || !ok(rk_event_create(ctx, &ev0), "event") ||
        !ok(rk_event_create(ctx, &ev1), "event")) {
        rk_ctx_destroy(ctx);
        return 1;
    }
    int ns = 0, size[MAX_SIZES];
    for (const char *p = sizes ? sizes : small ? "128" : "4096,8192"; *p && ns < MAX_SIZES;) {
        size[ns++] = atoi(p);
        p = strchr(p, ',');
        if (!p)
            break;
        p++;
    }
    double t0 = now_s();
    for (int s = 0; s < ns; s++)
        if (size[s] >= 16)
            bench_size(size[s]);
    printf("\nspec_bench: done in %.1f s, %d failure%s\n", now_s() - t0, failures, failures == 1 ? "" : "s");
    rk_ctx_destroy(ctx);
    return failures ? 1 : 0;
}
