/* Tests of the profiler (RK_PROFILE, runtime/profile): a context with a trace file compiles (a miss and
 * then a hit), launches and autotunes; once destroyed, the file must be a JSON array of complete events
 * ("ph": "X") each with a string name and cat, numeric ts, dur, pid and tid, and an args object, with
 * compile stages, a cache hit, tuning runs and launches among them. A second context naming the same
 * file adds to it (the first context's events stay), RK_PROFILE works as the option does, and a file
 * that cannot be written is a note, not a failure. */
#include <unistd.h>

#include "runtime/bundle/json.h"
#include "tests/unit/test_api_util.h"

static char root[512];

typedef struct Counts {
    int events, compile, cache, tune, launch, stages;
    bool valid;
} Counts;

/* Parses the trace and checks each event's fields. */
static Counts check_trace(const char *path)
{
    Counts c = {0};
    size_t len;
    char *text = read_all(path, &len);
    CHECK(text != NULL);
    if (!text)
        return c;
    Arena a;
    arena_init(&a, arena_default_allocator);
    char err[256];
    Json *j = json_parse(&a, text, len, err, sizeof err);
    if (!j)
        fprintf(stderr, "the trace does not parse: %s\n", err);
    c.valid = j && j->kind == JSON_ARRAY;
    for (int i = 0; c.valid && i < j->n; i++) {
        const Json *e = j->items[i];
        const Json *name = json_get(e, "name"), *cat = json_get(e, "cat"), *args = json_get(e, "args");
        bool ok = e->kind == JSON_OBJECT && name && name->kind == JSON_STRING && cat && cat->kind == JSON_STRING &&
                  strcmp(json_str(e, "ph", ""), "X") == 0 && json_num(e, "ts", -1) > 0 && json_num(e, "dur", -1) >= 0 &&
                  json_num(e, "pid", -1) == (double)getpid() && json_num(e, "tid", -1) > 0 && args &&
                  args->kind == JSON_OBJECT;
        if (!ok)
            fprintf(stderr, "event %d lacks a field\n", i);
        c.valid &= ok;
        c.events++;
        c.compile += strcmp(cat->str, "compile") == 0;
        c.cache += strcmp(cat->str, "cache") == 0;
        c.tune += strcmp(cat->str, "tune") == 0;
        c.launch += strcmp(cat->str, "launch") == 0;
        c.stages += strcmp(name->str, "code generation") == 0;
    }
    arena_free(&a);
    free(text);
    return c;
}

static const char SRC[] = "@autotune(key = [n], space = {BLOCK: [64, 128]})\n"
                          "@grid(cdiv(n, BLOCK))\n"
                          "kernel twice(x: *f32, y: *f32, n: i32, const BLOCK: i32 = 64)\n"
                          "{\n"
                          "    let offs = program_id(0) * BLOCK + arange(BLOCK);\n"
                          "    store(y + offs, load(x + offs, mask = offs < n) * 2, mask = offs < n);\n"
                          "}\n";

static void session(const char *trace, const char *cache, bool via_env)
{
    rk_ctx_options o = {.device = "emu", .cache_dir = cache, .tune_runs = 2, .tune_ms = -1,
                        .profile = via_env ? NULL : trace};
    if (via_env)
        setenv("RK_PROFILE", trace, 1);
    rk_ctx *ctx;
    CHECK(rk_ctx_create(&o, &ctx) == RK_OK);
    unsetenv("RK_PROFILE");
    rk_compile_options co = {.filename = "twice.tile"};
    rk_program *p;
    CHECK_OK(ctx, rk_compile(ctx, SRC, strlen(SRC), &co, &p));
    rk_program_destroy(p);
    CHECK_OK(ctx, rk_compile(ctx, SRC, strlen(SRC), &co, &p));
    rk_kernel *k;
    CHECK_OK(ctx, rk_program_kernel(p, "twice", &k));
    void *x, *y;
    CHECK_OK(ctx, rk_malloc(ctx, 400, &x));
    CHECK_OK(ctx, rk_malloc(ctx, 400, &y));
    CHECK_OK(ctx, rk_memset(ctx, x, 0, 400));
    rk_arg args[] = {rk_arg_ptr(x), rk_arg_ptr(y), rk_arg_i32(100)};
    CHECK_OK(ctx, rk_launch(k, NULL, args, 3, NULL));
    CHECK_OK(ctx, rk_run(ctx, SRC, strlen(SRC), "twice", NULL, args, 3, &co, NULL));
    rk_ctx_destroy(ctx);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/rk-test-profile-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    char trace[600], cache[600], cache2[600];
    snprintf(trace, sizeof trace, "%s/trace.json", root);
    snprintf(cache, sizeof cache, "%s/cache", root);
    snprintf(cache2, sizeof cache2, "%s/cache2", root);
    session(trace, cache, false);
    Counts c = check_trace(trace);
    CHECK(c.valid);
    printf("test_profile: %d events: %d compile, %d cache, %d tune, %d launch\n", c.events, c.compile, c.cache,
           c.tune, c.launch);
    /* compiles by stage (the miss, the kernel description, two configs), the hit, tuning, launches */
    CHECK(c.compile >= 6 && c.stages >= 2 && c.cache == 1 && c.tune >= 2 + 2 && c.launch >= 1 + 2 * 3 + 1);
    /* a second context adds to the file; RK_PROFILE as the option */
    session(trace, cache2, true);
    Counts c2 = check_trace(trace);
    CHECK(c2.valid && c2.events > c.events && c2.launch >= 2 * c.launch);
    /* a file that cannot be written: a note */
    rk_ctx_options o = {.device = "interp", .profile = "/dev/null/trace.json"};
    rk_ctx *ctx;
    CHECK(rk_ctx_create(&o, &ctx) == RK_OK);
    rk_ctx_destroy(ctx);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", root);
    return api_finish("test_profile");
}
