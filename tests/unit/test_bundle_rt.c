/* The bundle path with the runtime library alone: this test links rk_runtime and rk_support, not the
 * compiler (no LLVM; tests/CMakeLists.txt links every test_*_rt.c so), and loads a bundle that
 * `rkc --all-configs --target=emu` made at build time from tests/data/autotune_small.tile
 * (RK_TEST_BUNDLE). It checks the kernels and variants, tunes over the variants on emu and launches the
 * winner with correct results, finds the winner again on disk from a second context without timing,
 * zeroes `reset` buffers, and refuses what is not a bundle: a missing file, a manifest that does not
 * parse or is not one, a code object that does not match its manifest. A variant's "tma" (its tensor
 * maps, many lines) reaches its kernel exactly; without one the kernel has none. Also the JSON reader
 * alone. */
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/api/api_internal.h"
#include "runtime/bundle/json.h"
#include "runtime/bundle/variant_id.h"
#include "tests/unit/test_api_util.h"

#ifndef RK_TEST_BUNDLE
#error "RK_TEST_BUNDLE: the path of the bundle made at build time"
#endif

static char root[512];

static void test_json(void)
{
    Arena a;
    arena_init(&a, arena_default_allocator);
    char err[256];
    const char *good = " {\"a\": [1, -2.5e3, true, false, null], \"s\": \"x\\n\\u00e9\\ud83d\\ude00\\\"\", \"o\": {}} ";
    Json *j = json_parse(&a, good, strlen(good), err, sizeof err);
    CHECK(j && j->kind == JSON_OBJECT && j->n == 3);
    const Json *arr = json_get(j, "a");
    CHECK(arr && arr->n == 5 && arr->items[1]->num == -2500 && arr->items[2]->b && !arr->items[3]->b &&
          arr->items[4]->kind == JSON_NULL);
    CHECK(strcmp(json_str(j, "s", ""), "x\n\xc3\xa9\xf0\x9f\x98\x80\"") == 0);
    CHECK(json_get(j, "o")->kind == JSON_OBJECT && !json_get(j, "nope"));
    static const char *bad[] = {"", "{", "[1,]", "{\"a\" 1}", "\"\\x\"", "\"\\ud800\"", "[1] 2", "01x", "\"a\nb\"",
                                "{\"a\": tru}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(json_parse(&a, bad[i], strlen(bad[i]), err, sizeof err) == NULL && strstr(err, "at byte"));
    char deep[300];
    memset(deep, '[', sizeof deep);
    CHECK(json_parse(&a, deep, sizeof deep, err, sizeof err) == NULL && strstr(err, "nesting too deep"));
    arena_free(&a);
}

static rk_ctx *ctx_in(const char *dir)
{
    rk_ctx_options o = {.device = "emu", .cache_dir = dir, .tune_runs = 2, .tune_ms = -1, .host_threads = 2};
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

static rk_status run_vadd(rk_bundle *b, rk_ctx *ctx, int n)
{
    float *h = malloc(sizeof(float) * (size_t)n), *o = malloc(sizeof(float) * (size_t)n);
    for (int i = 0; i < n; i++)
        h[i] = (float)i;
    void *x = NULL, *out = NULL;
    rk_status st;
    if (!(st = rk_malloc(ctx, sizeof(float) * (size_t)n, &x)) && !(st = rk_malloc(ctx, sizeof(float) * (size_t)n, &out)) &&
        !(st = rk_memcpy_htod(ctx, x, h, sizeof(float) * (size_t)n))) {
        rk_arg args[] = {rk_arg_ptr(x), rk_arg_ptr(x), rk_arg_ptr(out), rk_arg_i32(n)};
        if (!(st = rk_bundle_run(b, "vadd", NULL, args, 4, NULL)) &&
            !(st = rk_memcpy_dtoh(ctx, o, out, sizeof(float) * (size_t)n)))
            for (int i = 0; i < n; i++)
                if (o[i] != 2.0f * h[i])
                    st = RK_EINTERNAL;
    }
    rk_free(ctx, x);
    rk_free(ctx, out);
    free(h);
    free(o);
    return st;
}

static void test_bundle(void)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/cache", root);
    rk_ctx *ctx = ctx_in(dir);
    rk_bundle *b = NULL;
    CHECK_OK(ctx, rk_bundle_load(ctx, RK_TEST_BUNDLE, &b));
    if (!b)
        return;
    CHECK(strcmp(rk_bundle_target(b), "emu") == 0);
    CHECK(rk_bundle_kernel_count(b) == 3);
    CHECK(strcmp(rk_bundle_kernel_name(b, 0), "vadd") == 0 && rk_bundle_kernel_name(b, 3) == NULL);
    CHECK(rk_bundle_variant_count(b, "vadd") == 5 && rk_bundle_variant_count(b, "total_sum") == 2 &&
          rk_bundle_variant_count(b, "scale") == 1 && rk_bundle_variant_count(b, "nope") == 0);
    rk_kernel *v;
    CHECK_OK(ctx, rk_bundle_variant(b, "vadd", 4, &v));
    rk_kernel_info info;
    CHECK_OK(ctx, rk_kernel_get_info(v, &info));
    /* a bundle's symbols carry the id of what their code was compiled for (variant_id.h) */
    CHECK(strncmp(info.name, "vadd__c4_", 9) == 0 && strlen(info.name) == 9 + VARIANT_ID_LEN && info.num_params == 4 &&
          info.has_grid);
    CHECK(strlen(rk_kernel_config(v)) > 0);
    CHECK_ST(ctx, rk_bundle_variant(b, "vadd", 5, &v), RK_EINVAL, "has 5 variants");
    CHECK_ST(ctx, rk_bundle_variant(b, "nope", 0, &v), RK_ENOTFOUND, "kernels: vadd, total_sum, scale");
    /* tune and run; again from memory */
    CHECK_OK(ctx, run_vadd(b, ctx, 2000));
    rk_stats s = stats(ctx);
    CHECK(s.tunings == 1 && s.compiles == 0 && s.last_tune_configs == 5);
    CHECK_OK(ctx, run_vadd(b, ctx, 2000));
    CHECK(stats(ctx).tunings == 1);
    rk_kernel *best;
    rk_arg args[] = {rk_arg_ptr(NULL), rk_arg_ptr(NULL), rk_arg_ptr(NULL), rk_arg_i32(2000)};
    CHECK_OK(ctx, rk_bundle_autotune(b, "vadd", args, 4, &best));
    char cfg[256];
    snprintf(cfg, sizeof cfg, "%s", rk_kernel_config(best));
    /* reset: the atomic sum is right after tuning */
    enum { N = 700 };
    int32_t hx[N], want = 0, got = 0;
    for (int i = 0; i < N; i++)
        want += hx[i] = i % 5 - 2 + (i == 3) * 100;
    void *x, *total;
    CHECK_OK(ctx, rk_malloc(ctx, sizeof hx, &x));
    CHECK_OK(ctx, rk_malloc(ctx, 16, &total));
    CHECK_OK(ctx, rk_memcpy_htod(ctx, x, hx, sizeof hx));
    rk_arg sargs[] = {rk_arg_ptr(x), rk_arg_ptr(total), rk_arg_i32(N)};
    CHECK_OK(ctx, rk_bundle_run(b, "total_sum", NULL, sargs, 3, NULL));
    CHECK_OK(ctx, rk_memcpy_dtoh(ctx, &got, total, 4));
    CHECK(got == want && stats(ctx).tunings == 2);
    /* a kernel with one variant runs without tuning */
    void *y;
    CHECK_OK(ctx, rk_malloc(ctx, sizeof hx, &y));
    rk_arg cargs[] = {rk_arg_ptr(x), rk_arg_ptr(y), rk_arg_f32(1.0f), rk_arg_i32(10)};
    CHECK_OK(ctx, rk_bundle_run(b, "scale", NULL, cargs, 4, NULL));
    CHECK(stats(ctx).tunings == 2);
    CHECK_ST(ctx, rk_bundle_run(b, "vadd", NULL, sargs, 3, NULL), RK_ELAUNCH, "takes 4 arguments, got 3");
    rk_bundle_destroy(b);
    rk_ctx_destroy(ctx);

    /* a second context finds the winner on disk: no timing */
    ctx = ctx_in(dir);
    CHECK_OK(ctx, rk_bundle_load(ctx, RK_TEST_BUNDLE, &b));
    CHECK_OK(ctx, rk_bundle_autotune(b, "vadd", args, 4, &best));
    CHECK(strcmp(rk_kernel_config(best), cfg) == 0);
    CHECK(stats(ctx).tunings == 0 && stats(ctx).cache_hits == 1);
    CHECK_OK(ctx, run_vadd(b, ctx, 2000));
    rk_ctx_destroy(ctx); /* destroys the bundle too */
}

static void copy_file(const char *from, const char *to, long truncate_to, const char *append)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    CHECK(in && out);
    if (!in || !out)
        return;
    int c;
    long n = 0;
    while ((c = fgetc(in)) != EOF && (truncate_to < 0 || n < truncate_to)) {
        fputc(c, out);
        n++;
    }
    if (append)
        fputs(append, out);
    fclose(in);
    fclose(out);
}

static void test_bad_bundles(void)
{
    char dir[600], path[700], mpath[800], src_m[800];
    snprintf(dir, sizeof dir, "%s/cache", root);
    snprintf(path, sizeof path, "%s/bad.so", root);
    snprintf(mpath, sizeof mpath, "%s/bad.so.json", root);
    snprintf(src_m, sizeof src_m, "%s.json", RK_TEST_BUNDLE);
    rk_ctx *ctx = ctx_in(dir);
    rk_bundle *b = (rk_bundle *)1;
    CHECK_ST(ctx, rk_bundle_load(ctx, path, &b), RK_EIO, "cannot read");
    CHECK(b == NULL);
    /* a binary that is not the manifest's */
    copy_file(RK_TEST_BUNDLE, path, 1000, NULL);
    copy_file(src_m, mpath, -1, NULL);
    CHECK_ST(ctx, rk_bundle_load(ctx, path, &b), RK_EINVAL, "does not match its manifest");
    /* a manifest cut short, and one of something else */
    copy_file(RK_TEST_BUNDLE, path, -1, NULL);
    copy_file(src_m, mpath, 200, NULL);
    CHECK_ST(ctx, rk_bundle_load(ctx, path, &b), RK_EINVAL, "bad.so.json: ");
    FILE *f = fopen(mpath, "w");
    fputs("{\"format\": \"other\"}", f);
    fclose(f);
    CHECK_ST(ctx, rk_bundle_load(ctx, path, &b), RK_EINVAL, "is not an rk bundle manifest");
    CHECK_ST(ctx, rk_bundle_load(ctx, NULL, &b), RK_EINVAL, "path is NULL");
    /* hand-edited fields (issue 23): each refused, naming it, never run (block 64 for total_sum's 256
     * lanes ran with RK_OK and 960 of 1024 elements wrong; "4096" read as 0; 1e32 overflowed an int; a
     * grid that does not parse was RK_EINTERNAL) */
    static const struct {
        const char *from, *to, *why;
    } edits[] = {
        {"\"num_warps\": 4, \"block\": 256", "\"num_warps\": 4, \"block\": 64",
         "kernel total_sum: variant 0: field block is 64, but num_warps 4 of 64 lanes are 256"},
        {"\"lds_bytes\": 8", "\"lds_bytes\": \"4096\"", "field lds_bytes is not a number"},
        {"\"lds_bytes\": 8", "\"lds_bytes\": 4096.5", "field lds_bytes is 4096.5, not an integer"},
        {"\"vgpr_spills\": 0", "\"vgpr_spills\": 1e32", "field vgpr_spills is 1e+32, not an integer in 0 .. 1048576"},
        {"\"num_warps\": 1, \"block\": 64", "\"num_warps\": -1, \"block\": 64", "field num_warps is -1"},
        {"\"block\": 128", "\"block\": 1099511627776", "field block is 1.09951e+12"},
        {"grid @vadd(", "grid @vadd((", "does not describe its code object: the @grid function of vadd__c0_"},
        /* fields the code object's symbol carries (variant_id.h) */
        {"\"lds_bytes\": 8", "\"lds_bytes\": 16", "fields num_warps 4, block 256, lds_bytes 16, params and grid are not the launch shape"},
        {"\"config_text\": \"", "\"config_text\": \"X=1 ", "field config_text \"X=1 "},
    };
    copy_file(RK_TEST_BUNDLE, path, -1, NULL);
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        FILE *in = fopen(src_m, "rb");
        static char text[1 << 20];
        size_t n = in ? fread(text, 1, sizeof text - 1, in) : 0;
        if (in)
            fclose(in);
        text[n] = 0;
        char *at = strstr(text, edits[i].from);
        CHECK(at != NULL);
        if (!at)
            continue;
        FILE *out = fopen(mpath, "wb");
        fwrite(text, 1, (size_t)(at - text), out);
        fputs(edits[i].to, out);
        fputs(at + strlen(edits[i].from), out);
        fclose(out);
        b = (rk_bundle *)1;
        CHECK_ST(ctx, rk_bundle_load(ctx, path, &b), RK_EINVAL, edits[i].why);
        CHECK(b == NULL);
    }
    rk_ctx_destroy(ctx);
}

/* The test bundle with a "tma" given to vadd's first variant, the way bundle_write.c writes it: refused
 * as it is (the symbol's id says the code takes no tensor maps), loaded once the symbol carries the id
 * of the launch shape with them (as the compiler names a TMA kernel's symbol). */
static void test_tma(void)
{
    char dir[600], path[700], mpath[800], src_m[800];
    snprintf(dir, sizeof dir, "%s/cache", root);
    snprintf(path, sizeof path, "%s/tma.so", root);
    snprintf(mpath, sizeof mpath, "%s/tma.so.json", root);
    snprintf(src_m, sizeof src_m, "%s.json", RK_TEST_BUNDLE);
    copy_file(RK_TEST_BUNDLE, path, -1, NULL);
    FILE *in = fopen(src_m, "rb");
    CHECK(in != NULL);
    if (!in)
        return;
    static char m[1 << 20];
    size_t n = fread(m, 1, sizeof m - 1, in);
    m[n] = 0;
    fclose(in);
    const char *spec = "tma 0 4 64 1 0 0+1*3 1 0+1*3\ntma 1 4 64 1 0 0+1*3 1 0+1*3\n";
    /* variant 0 of vadd (the first symbol), and the id its fields give with the tensor maps */
    Arena a;
    arena_init(&a, arena_default_allocator);
    char err[256];
    Json *j = json_parse(&a, m, n, err, sizeof err);
    const Json *ks = j ? json_get(j, "kernels") : NULL;
    const Json *vs = ks && ks->n ? json_get(ks->items[0], "variants") : NULL;
    const Json *v = vs && vs->n ? vs->items[0] : NULL;
    CHECK(v != NULL);
    if (!v) {
        arena_free(&a);
        return;
    }
    RtKernelDesc d = {0};
    d.config = json_str(v, "config_text", "");
    d.facts = json_str(v, "facts", NULL);
    d.num_warps = (int)json_num(v, "num_warps", 0);
    d.block = (int)json_num(v, "block", 0);
    d.lds_bytes = (int)json_num(v, "lds_bytes", 0);
    d.tma = spec;
    d.grid_tir = json_str(v, "grid", NULL);
    const Json *ps = json_get(v, "params"); /* the calling convention is in the id too */
    rk_param params[16];
    for (int i = 0; ps && i < ps->n && i < 16; i++) {
        params[i].name = json_str(ps->items[i], "name", "");
        params[i].kind = strcmp(json_str(ps->items[i], "kind", ""), "pointer") == 0 ? RK_PARAM_POINTER : RK_PARAM_SCALAR;
        params[i].dtype = RK_F32;
        for (int t = RK_BOOL; t <= RK_F64; t++)
            if (strcmp(rk_dtype_name((rk_dtype)t), json_str(ps->items[i], "dtype", "")) == 0)
                params[i].dtype = (rk_dtype)t;
        d.nparams = i + 1;
    }
    d.params = params;
    const char *sym = json_str(v, "symbol", "");
    char id[VARIANT_ID_LEN + 1], newsym[256];
    variant_id(&d, id);
    snprintf(newsym, sizeof newsym, "%.*s%s", (int)(strlen(sym) - VARIANT_ID_LEN), sym, id);
    char *at = strstr(m, "{\"symbol\": ");
    CHECK(at != NULL && strlen(sym) > VARIANT_ID_LEN && strncmp(at + 12, sym, strlen(sym)) == 0);
    rk_ctx *ctx = ctx_in(dir);
    for (int renamed = 0; at && renamed < 2; renamed++) {
        FILE *out = fopen(mpath, "wb");
        CHECK(out != NULL);
        if (!out)
            break;
        fwrite(m, 1, (size_t)(at + 1 - m), out);
        fputs("\"tma\": \"tma 0 4 64 1 0 0+1*3 1 0+1*3\\ntma 1 4 64 1 0 0+1*3 1 0+1*3\\n\", ", out);
        fprintf(out, "\"symbol\": \"%s\"", renamed ? newsym : sym);
        fputs(at + 12 + strlen(sym) + 1, out);
        fclose(out);
        rk_bundle *b = NULL;
        rk_kernel *v0 = NULL, *v1 = NULL;
        if (!renamed) {
            CHECK_ST(ctx, rk_bundle_load(ctx, path, &b), RK_EINVAL, "and tma, params and grid are not the launch shape and parameters the code of symbol");
            continue;
        }
        CHECK_OK(ctx, rk_bundle_load(ctx, path, &b));
        CHECK_OK(ctx, rk_bundle_variant(b, "vadd", 0, &v0));
        CHECK_OK(ctx, rk_bundle_variant(b, "vadd", 1, &v1));
        CHECK(v0 && v0->tma_spec && strcmp(v0->tma_spec, spec) == 0 && v0->ntma == 2);
        CHECK(v1 && !v1->tma_spec);
    }
    rk_ctx_destroy(ctx);
    arena_free(&a);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/rk-test-bundle-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    test_json();
    test_bundle();
    test_bad_bundles();
    test_tma();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", root);
    return api_finish("test_bundle_rt");
}
