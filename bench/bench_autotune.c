/* bench_autotune: the compile phase of autotuning a 32-config matmul space.
 *
 * The kernel is examples/matmul.tile with its @autotune replaced by a 32-config space:
 *     BLOCK_M, BLOCK_N in {64, 128}, BLOCK_K in {32, 64}, num_warps in {4, 8}, num_stages in {1, 2}.
 * For the emu target the whole of rk_autotune runs on the emu device (caches off, one timed run per
 * config on a 64 × 64 × 64 problem) and the compile phase is rk_stats.last_tune_compile_ms: from the
 * first config entering the front end to the last code object linked, on all cores. For a gfx target
 * (no GPU here) the same compile phase runs alone (variants_build, as rk_autotune calls it).
 * CPU time is this process's (threads included) plus its children's (ld.lld).
 *
 * Usage: bench_autotune [target] [threads]   (defaults: emu, one per core). Run from the source tree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "compiler/api/variants.h"
#include "compiler/target/target.h"

static const char SPACE[] = "@autotune(key = [M, N, K],\n"
                            "          space = {BLOCK_M: [64, 128], BLOCK_N: [64, 128], BLOCK_K: [32, 64],\n"
                            "                   num_warps: [4, 8], num_stages: [1, 2]})\n";

static double cpu_ms(void)
{
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    double ms = 0;
    const struct rusage *r[2] = {&self, &kids};
    for (int i = 0; i < 2; i++)
        ms += (double)r[i]->ru_utime.tv_sec * 1e3 + (double)r[i]->ru_utime.tv_usec / 1e3 +
              (double)r[i]->ru_stime.tv_sec * 1e3 + (double)r[i]->ru_stime.tv_usec / 1e3;
    return ms;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* examples/matmul.tile with SPACE in place of its @autotune attribute. */
static char *make_source(size_t *len)
{
    FILE *f = fopen("examples/matmul.tile", "rb");
    if (!f)
        return NULL;
    static char in[1 << 16];
    size_t n = fread(in, 1, sizeof in - 1, f);
    fclose(f);
    in[n] = 0;
    char *at = strstr(in, "@autotune(");
    char *grid = at ? strstr(at, "\n@grid") : NULL;
    if (!grid)
        return NULL;
    char *out = malloc(n + sizeof SPACE + 1);
    size_t head = (size_t)(at - in);
    memcpy(out, in, head);
    memcpy(out + head, SPACE, sizeof SPACE - 1);
    strcpy(out + head + sizeof SPACE - 1, grid + 1);
    *len = strlen(out);
    return out;
}

static void log_line(void *ud, rk_log_kind kind, const char *line)
{
    (void)ud;
    if (kind == RK_LOG_NOTE)
        fprintf(stderr, "note: %s\n", line);
}

/* gfx: the compile phase alone. */
static int compile_only(const char *target, int threads, const char *src, size_t len)
{
    rk_ctx_options o = {.device = "none", .stdlib_dir = "stdlib", .compile_threads = threads, .log = log_line};
    rk_ctx *ctx;
    if (rk_ctx_create(&o, &ctx) != RK_OK)
        return 1;
    rk_compile_options co = {.filename = "examples/matmul.tile", .target = target, .kernel = "matmul"};
    CompileSetup cs;
    if (compile_setup(ctx, src, len, &co, &cs) != RK_OK)
        return 1;
    Arena a;
    arena_init(&a, arena_default_allocator);
    static const int bm[] = {64, 128}, bn[] = {64, 128}, bk[] = {32, 64}, nw[] = {4, 8}, ns[] = {1, 2};
    VariantSet vs = {0};
    vs.cs = &cs;
    vs.v = ARENA_ARRAY(&a, Variant, 32);
    for (int i = 0; i < 32; i++) {
        Define *d = ARENA_ARRAY(&a, Define, 5);
        const char *names[] = {"BLOCK_M", "BLOCK_N", "BLOCK_K", "num_warps", "num_stages"};
        int vals[] = {bm[i & 1], bn[(i >> 1) & 1], bk[(i >> 2) & 1], nw[(i >> 3) & 1], ns[(i >> 4) & 1]};
        for (int k = 0; k < 5; k++)
            d[k] = (Define){names[k], arena_printf(&a, "%d", vals[k])};
        vs.v[i] = (Variant){.kernel = "matmul", .index = i, .defs = d, .ndefs = 5, .label = ""};
    }
    vs.n = 32;
    vs.threads = threads > 0 ? threads : variants_cores();
    /* as rk_autotune: two groups per worker (GROUP_MAX=n overrides, for experiments) */
    vs.group_max = getenv("GROUP_MAX") ? atoi(getenv("GROUP_MAX")) : (32 + 2 * vs.threads - 1) / (2 * vs.threads);
    vs.lds_limit = target_find(target)->lds_bytes;
    vs.out = &a;
    double c0 = cpu_ms(), t0 = now_ms();
    rk_status st = variants_build(ctx, &vs);
    double wall = now_ms() - t0, cpu = cpu_ms() - c0;
    int ok = 0, spills = 0;
    for (int i = 0; i < 32; i++) {
        ok += vs.v[i].state == VAR_OK;
        spills += vs.v[i].state == VAR_OK && (vs.v[i].vgpr_spills || vs.v[i].sgpr_spills);
    }
    printf("autotune: %s, 32 configs on %d threads: compile phase %.0f ms (CPU %.0f ms, %.1f ms per config); "
           "%d compiled, %d with spills, %d code objects; %s\n",
           target, vs.threads, wall, cpu, cpu / 32, ok, spills, vs.nbins, rk_status_name(st));
    variants_free(&vs);
    arena_free(&a);
    rk_ctx_destroy(ctx);
    return st != RK_OK;
}

int main(int argc, char **argv)
{
    const char *target = argc > 1 ? argv[1] : "emu";
    int threads = argc > 2 ? atoi(argv[2]) : 0;
    size_t len;
    char *src = make_source(&len);
    if (!src) {
        fprintf(stderr, "run from the source tree: examples/matmul.tile has no @autotune ... @grid\n");
        return 1;
    }
    if (strcmp(target, "emu") != 0)
        return compile_only(target, threads, src, len);
    rk_ctx_options o = {.device = "emu", .stdlib_dir = "stdlib", .always_compile = 1, .tune_runs = 1, .tune_ms = -1,
                        .compile_threads = threads, .log = log_line};
    rk_ctx *ctx;
    if (rk_ctx_create(&o, &ctx) != RK_OK) {
        fprintf(stderr, "%s\n", rk_error(ctx));
        return 1;
    }
    enum { M = 64, N = 64, K = 64 };
    void *a, *b, *c;
    if (rk_malloc(ctx, M * K * 2, &a) || rk_malloc(ctx, K * N * 2, &b) || rk_malloc(ctx, M * N * 2, &c) ||
        rk_memset(ctx, a, 0, M * K * 2) || rk_memset(ctx, b, 0, K * N * 2))
        return 1;
    rk_arg args[] = {rk_arg_ptr(a), rk_arg_ptr(b), rk_arg_ptr(c), rk_arg_i32(M), rk_arg_i32(N),
                     rk_arg_i32(K), rk_arg_i32(K), rk_arg_i32(N), rk_arg_i32(N)};
    rk_compile_options co = {.filename = "examples/matmul.tile"};
    rk_kernel *best;
    double c0 = cpu_ms(), t0 = now_ms();
    rk_status st = rk_autotune(ctx, src, len, "matmul", args, 9, &co, &best);
    double wall = now_ms() - t0, cpu = cpu_ms() - c0;
    if (st != RK_OK) {
        fprintf(stderr, "%s\n", rk_error(ctx));
        return 1;
    }
    rk_stats s;
    rk_get_stats(ctx, &s);
    printf("autotune: emu, %d configs (%d pruned), %llu compiles: compile phase %.0f ms, timing %.0f ms, whole "
           "rk_autotune %.0f ms (CPU %.0f ms); best %s\n",
           s.last_tune_configs, s.last_tune_pruned, (unsigned long long)s.compiles, s.last_tune_compile_ms,
           s.last_tune_bench_ms, wall, cpu, rk_kernel_config(best));
    rk_ctx_destroy(ctx);
    free(src);
    return 0;
}
