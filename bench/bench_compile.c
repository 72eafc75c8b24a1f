/* bench_compile: what rk_compile costs with and without the compile cache.
 *
 *   cache hit   rk_compile of a file whose entry is in the cache (a warm disk cache, as the second run
 *               of a program sees it): median of N calls, each building the program from the entry
 *               (read, checksum, imports re-hashed, @grid parsed); the code object is not loaded;
 *   cold        rk_compile with the cache off (always_compile) of each config of the file's @autotune
 *               space, given as -D defines: one compile each (the first compile of a process pays
 *               LLVM's initialisation and is not counted), then the median and mean over configs.
 * CPU times include ld.lld's (a child process); on a machine shared with other work they are steadier
 * than the wall times.
 *
 * Usage: bench_compile [FILE.tile] [target] [hit runs]   (defaults: examples/matmul.tile emu 200)
 * Run from the source tree. Figures go to docs/performance.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "compiler/api/compile_internal.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* CPU time of this process and of its children (ld.lld). */
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

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The @autotune configs of the file's first kernel, as -D pairs, through the driver. */
static int configs_of(const char *path, const char *src, size_t len, const char ***labels)
{
    Arena a;
    arena_init(&a, arena_default_allocator);
    SrcMgr sm;
    src_init(&sm, &a);
    Diags d;
    diags_init(&d, &a, &sm);
    StrTab st;
    strtab_init(&st, &a);
    DriverOptions o = {.filename = path, .source = src, .len = len, .target = "emu", .stdlib_dir = "stdlib"};
    DriverResult r;
    if (!driver_compile(&a, &st, &sm, &d, &o, STAGE_TIR, &r) || r.sema.nkernels == 0)
        return 0;
    const KernelMeta *m = &r.sema.kernels[0];
    int n = m->ntune;
    *labels = calloc((size_t)n + 1, sizeof **labels);
    for (int i = 0; i < n; i++)
        (*labels)[i] = strdup(compile_config_text(&a, &m->tune_configs[i]));
    arena_free(&a);
    return n;
}

/* "A=1 B=2" into defines (the strings are modified and kept). */
static int split_defines(char *s, rk_define *defs, int max)
{
    int n = 0;
    for (char *tok = strtok(s, " "); tok && n < max; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = 0;
        defs[n++] = (rk_define){tok, eq + 1};
    }
    return n;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "examples/matmul.tile";
    const char *target = argc > 2 ? argv[2] : "emu";
    int runs = argc > 3 ? atoi(argv[3]) : 200;
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    static char src[1 << 20];
    size_t len = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    char dir[] = "/tmp/rk-bench-compile-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    rk_ctx_options o = {.device = "none", .cache_dir = dir, .stdlib_dir = "stdlib"};
    rk_ctx *ctx;
    if (rk_ctx_create(&o, &ctx) != RK_OK) {
        fprintf(stderr, "%s\n", rk_error(ctx));
        return 1;
    }
    rk_compile_options co = {.filename = path, .target = target};
    rk_program *p;
    double t0 = now_ms();
    if (rk_compile(ctx, src, len, &co, &p) != RK_OK) {
        fprintf(stderr, "%s\n", rk_error(ctx));
        return 1;
    }
    double first = now_ms() - t0;
    rk_program_destroy(p);
    /* cache hits */
    double *hit = malloc(sizeof(double) * (size_t)runs);
    double c0 = cpu_ms();
    for (int i = 0; i < runs; i++) {
        t0 = now_ms();
        if (rk_compile(ctx, src, len, &co, &p) != RK_OK)
            return 1;
        hit[i] = now_ms() - t0;
        rk_program_destroy(p);
    }
    double hit_cpu = (cpu_ms() - c0) / runs;
    rk_stats s;
    rk_get_stats(ctx, &s);
    printf("compile: %s (%s), first compile into the cache %.1f ms\n", path, target, first);
    printf("compile: cache hit %.3f ms median of %d (CPU %.3f ms each); %llu hits, %llu compiles\n",
           median(hit, runs), runs, hit_cpu, (unsigned long long)s.cache_hits, (unsigned long long)s.compiles);
    rk_ctx_destroy(ctx);
    /* cold compiles, config by config */
    const char **labels = NULL;
    int n = configs_of(path, src, len, &labels);
    o.always_compile = 1;
    if (rk_ctx_create(&o, &ctx) != RK_OK)
        return 1;
    double *cold = malloc(sizeof(double) * (size_t)(n + 1)), sum = 0, cpu_sum = 0;
    for (int i = 0; i < (n ? n : 1); i++) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", n ? labels[i] : "");
        rk_define defs[16];
        co.defines = defs;
        co.ndefines = split_defines(buf, defs, 16);
        c0 = cpu_ms();
        t0 = now_ms();
        if (rk_compile(ctx, src, len, &co, &p) != RK_OK) {
            fprintf(stderr, "%s: %s\n", n ? labels[i] : "defaults", rk_error(ctx));
            return 1;
        }
        cold[i] = now_ms() - t0;
        double c = cpu_ms() - c0;
        sum += cold[i];
        cpu_sum += c;
        printf("compile: cold %-72s %7.1f ms (CPU %.1f ms)\n", n ? labels[i] : "(defaults)", cold[i], c);
        rk_program_destroy(p);
    }
    int k = n ? n : 1;
    double mean = sum / k;
    printf("compile: cold, %d configs: median %.1f ms, mean %.1f ms, mean CPU %.1f ms per config\n", k,
           median(cold, k), mean, cpu_sum / k);
    rk_ctx_destroy(ctx);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        return 1;
    return 0;
}
