/* Tests of the autotuner on emu (rk_autotune, rk_run, compiler/api/autotune.c and variants.c): the
 * winner is chosen among the @autotune space, its results are right, it is remembered in the context
 * (rk_run compiles and tunes nothing more) and on disk (a second context compiles nothing at all,
 * counted by rk_stats.compiles), other key values tune again, `reset` buffers are zeroed before every
 * timed run and before the final launch, RK_PRINT_AUTOTUNING's lines reach the log, configs over the
 * LDS limit are pruned before code generation, a kernel without @autotune runs its defaults, errors
 * (no such kernel, bad arguments, a program with errors) come back as statuses. Then the bundle
 * writer: rk_compile_bundle for emu and for gfx942, whose code object must hold one kernel per
 * variant of the manifest (read back with the ISA report).
 *
 * Timing is shortened (tune_runs 2, no time floor): these tests check the machinery, not the choice. */
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compiler/target/amdgpu/report.h"
#include "runtime/bundle/json.h"
#include "tests/unit/test_api_util.h"

static char root[512];
static char *src;
static size_t srclen;

typedef struct Log {
    int autotune, progress, notes;
    char best[512];
} Log;

static void on_log(void *ud, rk_log_kind kind, const char *line)
{
    Log *l = ud;
    if (kind == RK_LOG_AUTOTUNE) {
        l->autotune++;
        if (strstr(line, ": best "))
            snprintf(l->best, sizeof l->best, "%s", line);
    } else if (kind == RK_LOG_PROGRESS) {
        l->progress++;
    } else {
        l->notes++;
    }
}

static rk_ctx *ctx_in(const char *dir, Log *log, int print)
{
    rk_ctx_options o = {.device = "emu", .cache_dir = dir, .log = on_log, .log_ud = log, .print_autotuning = print,
                        .tune_runs = 2, .tune_ms = -1, .host_threads = 2};
    rk_ctx *ctx = NULL;
    if (rk_ctx_create(&o, &ctx) != RK_OK) {
        fprintf(stderr, "cannot create an emu context: %s\n", rk_error(ctx));
        exit(1);
    }
    return ctx;
}

static rk_stats stats(rk_ctx *ctx)
{
    rk_stats s;
    rk_get_stats(ctx, &s);
    return s;
}

static const rk_compile_options opts = {.filename = "tests/data/autotune_small.tile"};

/* vadd through rk_run with n elements; true when the result is right. */
static rk_status run_vadd(rk_ctx *ctx, int n)
{
    float *hx = malloc(sizeof(float) * (size_t)n), *ho = malloc(sizeof(float) * (size_t)n);
    for (int i = 0; i < n; i++)
        hx[i] = (float)i;
    void *x = NULL, *out = NULL;
    rk_status st;
    if (!(st = rk_malloc(ctx, sizeof(float) * (size_t)n, &x)) && !(st = rk_malloc(ctx, sizeof(float) * (size_t)n, &out)) &&
        !(st = rk_memcpy_htod(ctx, x, hx, sizeof(float) * (size_t)n))) {
        rk_arg args[] = {rk_arg_ptr(x), rk_arg_ptr(x), rk_arg_ptr(out), rk_arg_i32(n)};
        if (!(st = rk_run(ctx, src, srclen, "vadd", NULL, args, 4, &opts, NULL)) &&
            !(st = rk_memcpy_dtoh(ctx, ho, out, sizeof(float) * (size_t)n)))
            for (int i = 0; i < n; i++)
                if (ho[i] != 2.0f * hx[i])
                    st = RK_EINTERNAL;
    }
    rk_free(ctx, x);
    rk_free(ctx, out);
    free(hx);
    free(ho);
    return st;
}

static void test_tune_and_cache(void)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/tune", root);
    Log log = {0};
    rk_ctx *ctx = ctx_in(dir, &log, 1);
    CHECK_OK(ctx, run_vadd(ctx, 1000));
    rk_stats s = stats(ctx);
    /* the space: BLOCK 64, 128, 256 x num_warps 1, 2 where BLOCK >= 64 * num_warps: 5 configs */
    CHECK(s.tunings == 1 && s.last_tune_configs == 5 && s.last_tune_pruned == 0);
    CHECK(s.compiles == 1 + 5); /* the kernel's description, then each config */
    CHECK(s.tune_runs >= 5 * 3);
    CHECK(log.autotune == 6 && strstr(log.best, "autotune vadd [n=1000]: best BLOCK="));
    CHECK(log.progress > 0 && log.notes == 0);
    printf("test_autotune: %s\n", log.best);
    rk_kernel *k1;
    CHECK_OK(ctx, rk_autotune(ctx, src, srclen, "vadd", (rk_arg[]){rk_arg_ptr(NULL), rk_arg_ptr(NULL),
                                                                  rk_arg_ptr(NULL), rk_arg_i32(1000)},
                              4, &opts, &k1));
    char cfg[256];
    snprintf(cfg, sizeof cfg, "%s", rk_kernel_config(k1));
    CHECK(strncmp(cfg, "BLOCK=", 6) == 0 && strstr(cfg, "num_warps="));
    rk_kernel_info info;
    CHECK_OK(ctx, rk_kernel_get_info(k1, &info));
    CHECK(strcmp(info.name, "vadd") == 0 && info.num_params == 4 && info.has_grid);
    /* again in this context: nothing compiled, nothing tuned */
    uint64_t launches = s.launches;
    CHECK_OK(ctx, run_vadd(ctx, 1000));
    s = stats(ctx);
    CHECK(s.compiles == 6 && s.tunings == 1 && s.launches == launches + 1);
    /* other key values tune again */
    CHECK_OK(ctx, run_vadd(ctx, 3000));
    CHECK(stats(ctx).tunings == 2 && stats(ctx).compiles == 6 + 5); /* the description is remembered */
    rk_ctx_destroy(ctx);

    /* a second context (as a second process would): the cache answers, zero compiles */
    log = (Log){0};
    ctx = ctx_in(dir, &log, 1);
    CHECK_OK(ctx, run_vadd(ctx, 1000));
    s = stats(ctx);
    CHECK(s.compiles == 0 && s.tunings == 0 && s.cache_hits == 2 && log.autotune == 0);
    rk_kernel *k2;
    CHECK_OK(ctx, rk_autotune(ctx, src, srclen, "vadd", (rk_arg[]){rk_arg_ptr(NULL), rk_arg_ptr(NULL),
                                                                  rk_arg_ptr(NULL), rk_arg_i32(1000)},
                              4, &opts, &k2));
    CHECK(strcmp(rk_kernel_config(k2), cfg) == 0);
    CHECK_OK(ctx, run_vadd(ctx, 3000));
    CHECK(stats(ctx).compiles == 0 && stats(ctx).tunings == 0);
    rk_ctx_destroy(ctx);

    /* RK_ALWAYS_COMPILE tunes again */
    log = (Log){0};
    rk_ctx_options o = {.device = "emu", .cache_dir = dir, .always_compile = 1, .tune_runs = 1, .tune_ms = -1};
    CHECK(rk_ctx_create(&o, &ctx) == RK_OK);
    CHECK_OK(ctx, run_vadd(ctx, 1000));
    CHECK(stats(ctx).tunings == 1 && stats(ctx).compiles == 6);
    rk_ctx_destroy(ctx);
}

/* total_sum adds with atomics: the reset buffer must be zeroed before each run and the final launch. */
static void test_reset(void)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/reset", root);
    Log log = {0};
    rk_ctx *ctx = ctx_in(dir, &log, 0);
    enum { N = 1000 };
    int32_t hx[N], want = 0, got = -1;
    for (int i = 0; i < N; i++)
        want += hx[i] = (i * 7) % 13 - 6;
    void *x, *total;
    CHECK_OK(ctx, rk_malloc(ctx, sizeof hx, &x));
    CHECK_OK(ctx, rk_malloc(ctx, 16, &total));
    CHECK_OK(ctx, rk_memcpy_htod(ctx, x, hx, sizeof hx));
    CHECK_OK(ctx, rk_memset(ctx, total, 0, 16));
    rk_arg args[] = {rk_arg_ptr(x), rk_arg_ptr(total), rk_arg_i32(N)};
    CHECK_OK(ctx, rk_run(ctx, src, srclen, "total_sum", NULL, args, 3, &opts, NULL));
    CHECK(stats(ctx).tunings == 1 && stats(ctx).tune_runs >= 2 * 3);
    CHECK_OK(ctx, rk_memcpy_dtoh(ctx, &got, total, 4));
    CHECK(got == want);
    /* without tuning now, rk_run launches once and adds once more */
    CHECK_OK(ctx, rk_run(ctx, src, srclen, "total_sum", NULL, args, 3, &opts, NULL));
    CHECK_OK(ctx, rk_memcpy_dtoh(ctx, &got, total, 4));
    CHECK(got == 2 * want);
    rk_ctx_destroy(ctx);
}

/* A scan whose big config needs 256 KiB of LDS at once: pruned before code generation. (A layout
 * conversion that large is no longer refused: it moves in pieces, lower_convert.c.) The scan runs down
 * the columns, across the waves, whose exchange goes through LDS (lower_scan.c); along the rows it
 * would stay in registers and lanes. */
static const char SCAN_SRC[] =
    "@autotune(key = [n], configs = [{B: 16}, {B: 256}])\n"
    "@grid(1)\n"
    "kernel cs(a: *f32, c: *f32, n: i32, const B: i32 = 16)\n"
    "{\n"
    "    let r = arange(B);\n"
    "    let x = load(a + r[:, None] * B + r[None, :]);\n"
    "    store(c + r[:, None] * B + r[None, :], cumsum(x, 0));\n"
    "}\n";

static void test_prune_lds(void)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/lds", root);
    Log log = {0};
    rk_ctx *ctx = ctx_in(dir, &log, 1);
    enum { B = 16 };
    float ha[B * B];
    for (int i = 0; i < B * B; i++)
        ha[i] = (float)(i % 3);
    void *a, *c;
    CHECK_OK(ctx, rk_malloc(ctx, sizeof ha, &a));
    CHECK_OK(ctx, rk_malloc(ctx, sizeof ha, &c));
    CHECK_OK(ctx, rk_memcpy_htod(ctx, a, ha, sizeof ha));
    rk_arg args[] = {rk_arg_ptr(a), rk_arg_ptr(c), rk_arg_i32(B)};
    rk_kernel *k = NULL;
    rk_compile_options o = {.filename = "cs.tile"};
    CHECK_OK(ctx, rk_autotune(ctx, SCAN_SRC, strlen(SCAN_SRC), "cs", args, 3, &o, &k));
    rk_stats s = stats(ctx);
    CHECK(s.last_tune_configs == 2 && s.last_tune_pruned == 1);
    CHECK(k && strcmp(rk_kernel_config(k), "B=16") == 0);
    CHECK(strstr(log.best, "1 pruned") != NULL);
    rk_ctx_destroy(ctx);
}

static void test_defaults_and_errors(void)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/errors", root);
    Log log = {0};
    rk_ctx *ctx = ctx_in(dir, &log, 1);
    /* a kernel without @autotune: its defaults */
    float h[100];
    for (int i = 0; i < 100; i++)
        h[i] = (float)i;
    void *x, *y;
    CHECK_OK(ctx, rk_malloc(ctx, sizeof h, &x));
    CHECK_OK(ctx, rk_malloc(ctx, sizeof h, &y));
    CHECK_OK(ctx, rk_memcpy_htod(ctx, x, h, sizeof h));
    rk_arg args[] = {rk_arg_ptr(x), rk_arg_ptr(y), rk_arg_f32(2.0f), rk_arg_i32(100)};
    CHECK_OK(ctx, rk_run(ctx, src, srclen, "scale", NULL, args, 4, &opts, NULL));
    CHECK_OK(ctx, rk_memcpy_dtoh(ctx, h, y, sizeof h));
    CHECK(h[99] == 198.0f && h[1] == 2.0f);
    rk_kernel *k;
    CHECK_OK(ctx, rk_autotune(ctx, src, srclen, "scale", args, 4, &opts, &k));
    CHECK(strcmp(rk_kernel_config(k), "") == 0 && stats(ctx).tunings == 0);
    /* errors */
    CHECK_ST(ctx, rk_autotune(ctx, src, srclen, "nope", args, 4, &opts, &k), RK_ENOTFOUND, "no kernel named 'nope'");
    CHECK(k == NULL);
    CHECK_ST(ctx, rk_autotune(ctx, src, srclen, "vadd", args, 3, &opts, &k), RK_ELAUNCH, "takes 4 arguments, got 3");
    CHECK_ST(ctx, rk_autotune(ctx, src, srclen, NULL, args, 4, &opts, &k), RK_EINVAL, "kernel_name is NULL");
    CHECK_ST(ctx, rk_autotune(ctx, src, srclen, "vadd", args, 4, &opts, NULL), RK_EINVAL, "best is NULL");
    const char bad[] = "@autotune(space = {B: [1, 2]})\nkernel k(x: *f32, const B: i32) { let y = nope; }\n";
    CHECK_ST(ctx, rk_autotune(ctx, bad, strlen(bad), "k", args, 1, &(rk_compile_options){.filename = "bad.tile"}, &k),
             RK_ECOMPILE, "bad.tile:2:");
    CHECK(rk_diag_count(ctx) >= 1);
    /* every config fails (the defaults compile): the first failing config's diagnostics */
    const char *none = "@autotune(configs = [{B: 3}, {B: 5}])\n@grid(1)\n"
                       "kernel k(x: *f32, const B: i32 = 4) { store(x + arange(B), 1.0); }\n";
    rk_arg one[] = {rk_arg_ptr(x)};
    CHECK_ST(ctx, rk_autotune(ctx, none, strlen(none), "k", one, 1, &(rk_compile_options){.filename = "none.tile"}, &k),
             RK_ECOMPILE, "autotuning k: no config compiles; config B=3: none.tile:3:");
    CHECK(rk_diag_count(ctx) >= 1 && log.notes >= 2);
    rk_compile_options gfx = {.filename = "x.tile", .target = "gfx942"};
    CHECK_ST(ctx, rk_autotune(ctx, src, srclen, "vadd", args, 4, &gfx, &k), RK_EINVAL, "does not run on emu");
    rk_ctx_destroy(ctx);
    /* a context without a device cannot tune */
    rk_ctx_options o = {.device = "none", .cache_dir = dir};
    CHECK(rk_ctx_create(&o, &ctx) == RK_OK);
    CHECK_ST(ctx, rk_autotune(ctx, src, srclen, "vadd", args, 4, &opts, &k), RK_ENODEVICE, "no device");
    rk_ctx_destroy(ctx);
}

/* rk_compile_bundle: the manifest lists every config; for gfx942 the code object holds them all. */
static void test_bundle_write(const char *target, int want_variants)
{
    char path[700];
    snprintf(path, sizeof path, "%s/small.%s", root, target);
    rk_ctx_options o = {.device = "none"};
    rk_ctx *ctx;
    CHECK(rk_ctx_create(&o, &ctx) == RK_OK);
    rk_compile_options co = {.filename = "tests/data/autotune_small.tile", .target = target};
    CHECK_OK(ctx, rk_compile_bundle(ctx, src, srclen, &co, path));
    rk_stats s = stats(ctx);
    CHECK(s.compiles == 1 + (uint64_t)want_variants);
    rk_ctx_destroy(ctx);
    char mpath[800];
    snprintf(mpath, sizeof mpath, "%s.json", path);
    size_t mlen = 0, blen = 0;
    char *m = read_all(mpath, &mlen), *bin = read_all(path, &blen);
    CHECK(m && bin);
    if (!m || !bin)
        return;
    Arena a;
    arena_init(&a, arena_default_allocator);
    char err[256];
    Json *j = json_parse(&a, m, mlen, err, sizeof err);
    CHECK(j != NULL);
    const Json *ks = json_get(j, "kernels");
    int variants = 0;
    for (int i = 0; ks && i < ks->n; i++) {
        const Json *vs = json_get(ks->items[i], "variants");
        variants += vs ? vs->n : 0;
        for (int v = 0; vs && v < vs->n; v++) {
            char want[64];
            /* kernel__c<v>_<id>: the id of what the code was compiled for (runtime/bundle/variant_id.h) */
            snprintf(want, sizeof want, "%s__c%d_", json_str(ks->items[i], "name", "?"), v);
            const char *sym = json_str(vs->items[v], "symbol", "");
            CHECK(strncmp(sym, want, strlen(want)) == 0 && strlen(sym) == strlen(want) + 16);
            CHECK(json_get(vs->items[v], "params") && json_get(vs->items[v], "config") &&
                  json_num(vs->items[v], "block", 0) > 0 && json_get(vs->items[v], "lds_bytes"));
        }
    }
    CHECK(ks && ks->n == 3 && variants == want_variants);
    CHECK(strcmp(json_str(j, "target", ""), target) == 0 && json_num(j, "binary_size", 0) == (double)blen);
    if (strncmp(target, "gfx", 3) == 0) {
        CodeReport rep;
        const char *e = NULL;
        CHECK(report_code_object(&a, bin, blen, &rep, &e) == 0 && rep.nkernels == want_variants);
        /* the manifest's symbols are the code object's kernels */
        for (int i = 0; ks && i < ks->n; i++) {
            const Json *vs = json_get(ks->items[i], "variants");
            for (int v = 0; vs && v < vs->n; v++) {
                bool found = false;
                for (int k = 0; k < rep.nkernels; k++)
                    found |= rep.kernels[k].name && strcmp(rep.kernels[k].name, json_str(vs->items[v], "symbol", "")) == 0;
                CHECK(found);
            }
        }
    }
    arena_free(&a);
    free(m);
    free(bin);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/rk-test-autotune-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    src = read_all("tests/data/autotune_small.tile", &srclen);
    if (!src) {
        fprintf(stderr, "run from the source tree: tests/data/autotune_small.tile not found\n");
        return 1;
    }
    test_tune_and_cache();
    test_reset();
    test_prune_lds();
    test_defaults_and_errors();
    test_bundle_write("emu", 5 + 2 + 1);
    test_bundle_write("gfx942", 5 + 2 + 1);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", root);
    free(src);
    return api_finish("test_autotune");
}
