/* Specialisation at launch (runtime/api/spec.c, compiler/sema/sema_spec.c): the choice of variant by
 * the arguments' facts, the variants kept in memory and in the compile cache (whose key holds the
 * facts), @no_specialize, facts given ahead of time (rk_compile_options.assume) refused at launch when
 * the arguments break them, the autotuner compiling for the call's facts, bundles with several
 * specialisations, and the facts parser. */
#include <stdlib.h>
#include <unistd.h>

#include "runtime/api/api_internal.h"
#include "support/facts.h"
#include "tests/unit/test_api_util.h"

static const char SRC[] = "@grid(cdiv(n, 64))\n"
                          "kernel add(x: *f32, out: *f32, n: i32, s: i32, f: f32)\n"
                          "{\n"
                          "    let offs = program_id(0) * 64 + arange(64);\n"
                          "    let m = offs < n;\n"
                          "    store(out + offs * s, load(x + offs * s, mask = m) + f, mask = m);\n"
                          "}\n"
                          "@no_specialize(n)\n"
                          "@grid(cdiv(n, 64))\n"
                          "kernel add_ns(x: *f32, out: *f32, n: i32, s: i32, f: f32)\n"
                          "{\n"
                          "    let offs = program_id(0) * 64 + arange(64);\n"
                          "    let m = offs < n;\n"
                          "    store(out + offs * s, load(x + offs * s, mask = m) + f, mask = m);\n"
                          "}\n"
                          "@autotune(key = [n], configs = [{num_warps: 1}, {num_warps: 2}])\n"
                          "@grid(cdiv(n, 64))\n"
                          "kernel tuned(x: *f32, out: *f32, n: i32, s: i32, f: f32)\n"
                          "{\n"
                          "    let offs = program_id(0) * 64 + arange(64);\n"
                          "    let m = offs < n;\n"
                          "    store(out + offs * s, load(x + offs * s, mask = m) + f, mask = m);\n"
                          "}\n";

static char cache_dir[] = "/tmp/rk_test_spec_XXXXXX";

static rk_ctx *emu_ctx(void)
{
    rk_ctx_options o = {.device = "emu", .cache_dir = cache_dir, .tune_runs = 1, .tune_ms = -1, .no_specialize = -1};
    rk_ctx *ctx = NULL;
    if (rk_ctx_create(&o, &ctx) != RK_OK) {
        fprintf(stderr, "no emu context: %s\n", rk_error(ctx));
        exit(77);
    }
    return ctx;
}

typedef struct Bufs {
    float *x, *out;
} Bufs;

/* Launches k over n elements with stride s, and checks out = x + 1 where it wrote. */
static rk_status run(rk_ctx *ctx, rk_kernel *k, Bufs *b, int n, int s)
{
    rk_arg args[] = {rk_arg_ptr(b->x), rk_arg_ptr(b->out), rk_arg_i32(n), rk_arg_i32(s), rk_arg_f32(1.0f)};
    rk_status st = rk_launch(k, NULL, args, 5, NULL);
    if (st)
        return st;
    static float host[4096];
    CHECK_OK(ctx, rk_memcpy_dtoh(ctx, host, b->out, sizeof host));
    for (int i = 0; i < n; i++)
        if (host[i * s] != (float)(i * s) + 1.0f) {
            fprintf(stderr, "n=%d s=%d: out[%d] = %g\n", n, s, i * s, host[i * s]);
            api_fails++;
            break;
        }
    return RK_OK;
}

static void setup(rk_ctx *ctx, Bufs *b)
{
    static float host[4096];
    for (int i = 0; i < 4096; i++)
        host[i] = (float)i;
    CHECK_OK(ctx, rk_malloc(ctx, sizeof host, (void **)&b->x));
    CHECK_OK(ctx, rk_malloc(ctx, sizeof host, (void **)&b->out));
    CHECK_OK(ctx, rk_memcpy_htod(ctx, b->x, host, sizeof host));
}

static void test_choice(void)
{
    rk_ctx *ctx = emu_ctx();
    Bufs b;
    setup(ctx, &b);
    rk_compile_options co = {.filename = "spec.tile", .kernel = "add"};
    rk_program *p = NULL;
    CHECK_OK(ctx, rk_compile(ctx, SRC, strlen(SRC), &co, &p));
    rk_kernel *k;
    CHECK_OK(ctx, rk_program_kernel(p, "add", &k));
    CHECK(strcmp(rk_kernel_facts(k), "") == 0 && rk_kernel_last_run(k) == k);
    rk_stats s0, s1;
    rk_get_stats(ctx, &s0);
    /* n = 1024, s = 1: a variant for both facts, compiled now */
    CHECK_OK(ctx, run(ctx, k, &b, 1024, 1));
    rk_kernel *v1 = rk_kernel_last_run(k);
    CHECK(v1 != k && strcmp(rk_kernel_facts(v1), "x<2G out<2G n%16==0 s==1") == 0);
    /* n = 1000: only s == 1 */
    CHECK_OK(ctx, run(ctx, k, &b, 1000, 1));
    rk_kernel *v2 = rk_kernel_last_run(k);
    CHECK(v2 != k && v2 != v1 && strcmp(rk_kernel_facts(v2), "x<2G out<2G s==1") == 0);
    /* n = 1000, s = 3: only the pointers' facts (emu addresses them as gfx942 buffers) */
    CHECK_OK(ctx, run(ctx, k, &b, 1000, 3));
    CHECK(strcmp(rk_kernel_facts(rk_kernel_last_run(k)), "x<2G out<2G") == 0);
    /* back to the first signature: the same variant, from memory */
    rk_get_stats(ctx, &s1);
    CHECK_OK(ctx, run(ctx, k, &b, 2048, 1));
    CHECK(rk_kernel_last_run(k) == v1);
    rk_stats s2;
    rk_get_stats(ctx, &s2);
    CHECK(s2.compiles == s1.compiles && s1.compiles >= s0.compiles);
    /* specialising is refused per context */
    rk_program_destroy(p);
    rk_ctx_destroy(ctx);

    /* Another context on the same cache folder: the variants come from the disk, nothing compiles. */
    ctx = emu_ctx();
    setup(ctx, &b);
    CHECK_OK(ctx, rk_compile(ctx, SRC, strlen(SRC), &co, &p));
    CHECK_OK(ctx, rk_program_kernel(p, "add", &k));
    CHECK_OK(ctx, run(ctx, k, &b, 1024, 1));
    CHECK_OK(ctx, run(ctx, k, &b, 1000, 1));
    rk_get_stats(ctx, &s2);
    CHECK(s2.compiles == 0 && s2.cache_hits == 3);
    CHECK(strcmp(rk_kernel_facts(rk_kernel_last_run(k)), "x<2G out<2G s==1") == 0);
    rk_program_destroy(p);
    rk_ctx_destroy(ctx);

    /* RK_NO_SPECIALIZE / no_specialize = 1: the generic kernel always. */
    rk_ctx_options o = {.device = "emu", .cache_dir = cache_dir, .no_specialize = 1};
    CHECK(rk_ctx_create(&o, &ctx) == RK_OK);
    setup(ctx, &b);
    CHECK_OK(ctx, rk_compile(ctx, SRC, strlen(SRC), &co, &p));
    CHECK_OK(ctx, rk_program_kernel(p, "add", &k));
    CHECK_OK(ctx, run(ctx, k, &b, 1024, 1));
    CHECK(rk_kernel_last_run(k) == k);
    rk_ctx_destroy(ctx); /* frees the program */
}

static void test_no_specialize(void)
{
    rk_ctx *ctx = emu_ctx();
    Bufs b;
    setup(ctx, &b);
    rk_compile_options co = {.filename = "spec.tile", .kernel = "add_ns"};
    rk_program *p = NULL;
    CHECK_OK(ctx, rk_compile(ctx, SRC, strlen(SRC), &co, &p));
    rk_kernel *k;
    CHECK_OK(ctx, rk_program_kernel(p, "add_ns", &k));
    CHECK_OK(ctx, run(ctx, k, &b, 1024, 3));
    /* n is not specialised, s = 3 has no fact: the pointers' only */
    CHECK(strcmp(rk_kernel_facts(rk_kernel_last_run(k)), "x<2G out<2G") == 0);
    CHECK_OK(ctx, run(ctx, k, &b, 1024, 1));
    CHECK(strcmp(rk_kernel_facts(rk_kernel_last_run(k)), "x<2G out<2G s==1") == 0);
    rk_ctx_destroy(ctx);
}

static void test_assume(void)
{
    rk_ctx *ctx = emu_ctx();
    Bufs b;
    setup(ctx, &b);
    rk_compile_options co = {.filename = "spec.tile", .kernel = "add", .assume = "n%16==0, s==1"};
    rk_program *p = NULL;
    CHECK_OK(ctx, rk_compile(ctx, SRC, strlen(SRC), &co, &p));
    rk_kernel *k;
    CHECK_OK(ctx, rk_program_kernel(p, "add", &k));
    CHECK(strcmp(rk_kernel_facts(k), "n%16==0 s==1") == 0);
    CHECK_OK(ctx, run(ctx, k, &b, 1024, 1));
    CHECK(rk_kernel_last_run(k) == k);
    CHECK_ST(ctx, run(ctx, k, &b, 1000, 1), RK_EINVAL,
             "kernel add was compiled assuming n%16==0, but argument 3 'n' is 1000: the launch is refused");
    CHECK_ST(ctx, run(ctx, k, &b, 1024, 2), RK_EINVAL, "assuming s==1, but argument 4 's' is 2");
    /* The cache key holds the facts: the same source without them is another entry. */
    rk_stats s0, s1;
    rk_get_stats(ctx, &s0);
    rk_compile_options plain = {.filename = "spec.tile", .kernel = "add", .assume = "n%16==0"};
    rk_program *q = NULL;
    CHECK_OK(ctx, rk_compile(ctx, SRC, strlen(SRC), &plain, &q));
    rk_get_stats(ctx, &s1);
    CHECK(s1.cache_misses == s0.cache_misses + 1);
    CHECK_OK(ctx, rk_compile(ctx, SRC, strlen(SRC), &co, &q)); /* leaks q's first program to the ctx */
    rk_get_stats(ctx, &s0);
    CHECK(s0.cache_hits == s1.cache_hits + 1);
    /* Bad facts are compile errors. */
    rk_compile_options bad = {.filename = "spec.tile", .kernel = "add", .assume = "q%16==0"};
    CHECK_ST(ctx, rk_compile(ctx, SRC, strlen(SRC), &bad, &q), RK_ECOMPILE,
             "error: --assume: no kernel in spec.tile has a run-time parameter named 'q'");
    bad.assume = "f%16==0";
    CHECK_ST(ctx, rk_compile(ctx, SRC, strlen(SRC), &bad, &q), RK_ECOMPILE,
             "--assume f%16==0: parameter 'f' of kernel 'add' is f32; facts apply to integers and pointers");
    bad.assume = "x==1";
    CHECK_ST(ctx, rk_compile(ctx, SRC, strlen(SRC), &bad, &q), RK_ECOMPILE, "a pointer takes only an alignment");
    bad.assume = "n%0==0";
    CHECK_ST(ctx, rk_compile(ctx, SRC, strlen(SRC), &bad, &q), RK_ECOMPILE,
             "--assume: fact 'n': expected a positive divisor after '%'");
    rk_ctx_destroy(ctx);
}

static void test_autotune(void)
{
    rk_ctx *ctx = emu_ctx();
    Bufs b;
    setup(ctx, &b);
    rk_arg args[] = {rk_arg_ptr(b.x), rk_arg_ptr(b.out), rk_arg_i32(1024), rk_arg_i32(1), rk_arg_f32(1.0f)};
    rk_kernel *best = NULL;
    CHECK_OK(ctx, rk_autotune(ctx, SRC, strlen(SRC), "tuned", args, 5, NULL, &best));
    CHECK(best && strcmp(rk_kernel_facts(best), "x<2G out<2G n%16==0 s==1") == 0);
    CHECK_OK(ctx, run(ctx, best, &b, 1024, 1));
    CHECK(rk_kernel_last_run(best) == best);
    /* other facts: a variant of the winner's config */
    CHECK_OK(ctx, run(ctx, best, &b, 1000, 1));
    rk_kernel *v = rk_kernel_last_run(best);
    CHECK(v != best && strcmp(rk_kernel_facts(v), "x<2G out<2G s==1") == 0 &&
          strcmp(rk_kernel_config(v), rk_kernel_config(best)) == 0);
    CHECK_OK(ctx, run(ctx, best, &b, 1000, 2));
    CHECK(rk_kernel_last_run(best) != best && strcmp(rk_kernel_facts(rk_kernel_last_run(best)), "x<2G out<2G") == 0);
    /* rk_run with other facts tunes again for them */
    rk_arg a2[] = {rk_arg_ptr(b.x), rk_arg_ptr(b.out), rk_arg_i32(1024), rk_arg_i32(2), rk_arg_f32(1.0f)};
    rk_kernel *best2 = NULL;
    CHECK_OK(ctx, rk_autotune(ctx, SRC, strlen(SRC), "tuned", a2, 5, NULL, &best2));
    CHECK(best2 != best && strcmp(rk_kernel_facts(best2), "x<2G out<2G n%16==0") == 0);
    rk_ctx_destroy(ctx);
}

/* A bundle with several specialisations: the runtime alone picks the most specialised set whose facts
 * the arguments satisfy, and tunes among its configs. */
static void test_bundle(void)
{
    rk_ctx *ctx = emu_ctx();
    Bufs b;
    setup(ctx, &b);
    char path[256];
    snprintf(path, sizeof path, "%s/spec_bundle.so", cache_dir);
    const char *sets[] = {"n%16==0", "n%16==0 s==1", "q==1"};
    rk_compile_options co = {.filename = "spec.tile", .kernel = "tuned", .specialize = sets, .nspecialize = 2};
    CHECK_OK(ctx, rk_compile_bundle(ctx, SRC, strlen(SRC), &co, path));
    co.nspecialize = 3; /* a set naming no parameter of the kernel adds nothing */
    CHECK_OK(ctx, rk_compile_bundle(ctx, SRC, strlen(SRC), &co, path));
    const char *bad[] = {"n%16"};
    co.specialize = bad;
    co.nspecialize = 1;
    CHECK_ST(ctx, rk_compile_bundle(ctx, SRC, strlen(SRC), &co, path), RK_EINVAL,
             "specialisation 'n%16': fact 'n%16': expected '==0' after the divisor");
    rk_bundle *bu = NULL;
    CHECK_OK(ctx, rk_bundle_load(ctx, path, &bu));
    CHECK(rk_bundle_variant_count(bu, "tuned") == 6);
    struct {
        int n, s;
        const char *facts;
    } cases[] = {{1024, 1, "n%16==0 s==1"}, {1024, 2, "n%16==0"}, {1000, 1, ""}, {1000, 3, ""}};
    for (int i = 0; i < 4; i++) {
        rk_arg args[] = {rk_arg_ptr(b.x), rk_arg_ptr(b.out), rk_arg_i32(cases[i].n), rk_arg_i32(cases[i].s),
                         rk_arg_f32(1.0f)};
        rk_kernel *best = NULL;
        CHECK_OK(ctx, rk_bundle_autotune(bu, "tuned", args, 5, &best));
        CHECK(best && strcmp(rk_kernel_facts(best), cases[i].facts) == 0);
        CHECK_OK(ctx, rk_bundle_run(bu, "tuned", NULL, args, 5, NULL));
        CHECK_OK(ctx, run(ctx, best, &b, cases[i].n, cases[i].s));
    }
    /* a specialised variant launched with arguments that break its facts: refused, naming them */
    rk_kernel *v = NULL;
    CHECK_OK(ctx, rk_bundle_variant(bu, "tuned", 5, &v));
    CHECK(strcmp(rk_kernel_facts(v), "n%16==0 s==1") == 0);
    CHECK_ST(ctx, run(ctx, v, &b, 1000, 1), RK_EINVAL, "argument 3 'n' is 1000: the launch is refused");
    rk_ctx_destroy(ctx);
}
/* The pointer fact x<2G: a launch derives it from the allocation table only for a pointer that is its
 * allocation's base, the allocation at most 2^31 bytes; a kernel compiled with it refuses a launch
 * that breaks it, naming why. */
static void test_range32(void)
{
    uint64_t g2 = (uint64_t)1 << 31;
    CHECK(fact_range32_holds(4096, 4096, g2) && !fact_range32_holds(4096, 4096, g2 + 1) &&
          !fact_range32_holds(4096 + 16, 4096, 256) && fact_range32_holds(4096, 4096, 256));
    rk_ctx *ctx = emu_ctx();
    Bufs b;
    setup(ctx, &b);
    rk_compile_options co = {.filename = "spec.tile", .kernel = "add"};
    rk_program *p = NULL;
    CHECK_OK(ctx, rk_compile(ctx, SRC, strlen(SRC), &co, &p));
    rk_kernel *k;
    CHECK_OK(ctx, rk_program_kernel(p, "add", &k));
    /* x 16 bytes into its allocation: no fact on x (an in-bounds access may lie below it) */
    rk_arg args[] = {rk_arg_ptr(b.x + 4), rk_arg_ptr(b.out), rk_arg_i32(1000), rk_arg_i32(1), rk_arg_f32(1.0f)};
    CHECK_OK(ctx, rk_launch(k, NULL, args, 5, NULL));
    CHECK(strcmp(rk_kernel_facts(rk_kernel_last_run(k)), "out<2G s==1") == 0);
    args[0] = rk_arg_ptr(b.x);
    CHECK_OK(ctx, rk_launch(k, NULL, args, 5, NULL));
    CHECK(strcmp(rk_kernel_facts(rk_kernel_last_run(k)), "x<2G out<2G s==1") == 0);
    rk_program_destroy(p);
    /* compiled with the fact: a launch that breaks it is refused */
    co.assume = "x<2G";
    CHECK_OK(ctx, rk_compile(ctx, SRC, strlen(SRC), &co, &p));
    CHECK_OK(ctx, rk_program_kernel(p, "add", &k));
    CHECK(strcmp(rk_kernel_facts(k), "x<2G") == 0);
    CHECK_OK(ctx, rk_launch(k, NULL, args, 5, NULL));
    args[0] = rk_arg_ptr(b.x + 4);
    CHECK(rk_launch(k, NULL, args, 5, NULL) == RK_EINVAL);
    CHECK(strstr(rk_error(ctx), "kernel add was compiled assuming x<2G, but argument 1 'x' is pointer") &&
          strstr(rk_error(ctx), "16 bytes into its allocation (it must be the allocation's base)"));
    rk_program_destroy(p);
    rk_ctx_destroy(ctx);
}

static void test_parse(void)
{
    Fact f[4];
    char why[128];
    CHECK(facts_parse("K%16==0 stride_n==1, a%16==0 b==-3", f, 4, why, sizeof why) == 4);
    CHECK(facts_is(&f[0], "K") && f[0].kind == FACT_DIV && f[0].n == 16);
    CHECK(facts_is(&f[1], "stride_n") && f[1].kind == FACT_EQ && f[1].n == 1);
    CHECK(facts_is(&f[3], "b") && f[3].n == -3 && !facts_is(&f[3], "bb"));
    CHECK(facts_parse("", f, 4, why, sizeof why) == 0 && facts_parse(NULL, f, 4, why, sizeof why) == 0);
    CHECK(facts_parse("K%16", f, 4, why, sizeof why) == -1 && strstr(why, "expected '==0'"));
    CHECK(facts_parse("K=1", f, 4, why, sizeof why) == -1);
    CHECK(facts_parse("1==K", f, 4, why, sizeof why) == -1 && strstr(why, "expected a parameter name"));
    CHECK(fact_holds(FACT_DIV, 16, 32) && !fact_holds(FACT_DIV, 16, 24) && fact_holds(FACT_DIV, 16, -16) &&
          fact_holds(FACT_EQ, 1, 1) && !fact_holds(FACT_EQ, 1, 2));
    CHECK(facts_parse("x<2G, K%16==0", f, 4, why, sizeof why) == 2 && facts_is(&f[0], "x") && f[0].kind == FACT_RANGE32);
    CHECK(facts_parse("x<3G", f, 4, why, sizeof why) == -1 && strstr(why, "expected '2G'"));
    CHECK(facts_parse("x<2GB", f, 4, why, sizeof why) == -1);
}

int main(void)
{
    if (!mkdtemp(cache_dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_parse();
    test_choice();
    test_range32();
    test_no_specialize();
    test_assume();
    test_autotune();
    test_bundle();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", cache_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", cache_dir);
    return api_finish("test_spec");
}
