/* bench_stages: in-process compile time of a .tile file to a code object, by stage.
 *
 * Calls driver_compile (the path rkc and rk_compile take) N times after one warm-up run (which pays
 * for LLVM's one-time initialisation and the TargetMachine) and prints the median of each stage in
 * CPU time (the process's: the compiling threads', plus ld.lld's when it runs; steadier on a shared machine) and in
 * wall-clock time: front end + semantics, passes, lowering to LLVM IR, LLVM's optimisation, code
 * generation, and the link.
 *
 *   bench_stages FILE.tile [target] [runs] [-D NAME=VALUE]... [--llvm OPTION]...
 *
 * --llvm passes an option to LLVM's command line parser before the first compile, e.g.
 * `--llvm -time-passes` (LLVM prints its per-pass timers on stderr; the new pass manager's after each
 * optimisation, the code generator's at exit). Run from the source tree (the stdlib is at ./stdlib). */
#include <llvm-c/Core.h>
#include <llvm-c/Support.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "compiler/driver/driver.h"

static double clock_ms(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* CPU time of the children waited for so far (ld.lld) */
static double children_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
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

enum { MAX_RUNS = 256, NCOL = 7 };

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_stages FILE.tile [target] [runs] [-D NAME=VALUE]... [--llvm OPTION]...\n");
        return 2;
    }
    const char *path = argv[1];
    const char *target = argc > 2 && argv[2][0] != '-' ? argv[2] : "gfx942";
    int runs = argc > 3 && argv[3][0] != '-' ? atoi(argv[3]) : 20;
    if (runs < 1)
        runs = 1;
    if (runs > MAX_RUNS)
        runs = MAX_RUNS;
    Define defs[32];
    int nd = 0;
    const char *llvm_argv[33] = {"bench_stages"};
    int nllvm = 1;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "-D") == 0 && i + 1 < argc && nd < 32) {
            char *eq = strchr(argv[++i], '=');
            if (eq) {
                *eq = 0;
                defs[nd++] = (Define){argv[i], eq + 1};
            }
        } else if (strcmp(argv[i], "--llvm") == 0 && i + 1 < argc && nllvm < 33) {
            llvm_argv[nllvm++] = argv[++i];
        }
    }
    if (nllvm > 1)
        LLVMParseCommandLineOptions(nllvm, llvm_argv, NULL);
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    static char src[1 << 20];
    size_t len = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    /* columns: total, front+sema, passes, lower, opt, codegen, link */
    static double wall[NCOL][MAX_RUNS], cpu[NCOL][MAX_RUNS];
    for (int r = -1; r < runs; r++) {
        Arena a;
        arena_init(&a, arena_default_allocator);
        SrcMgr sm;
        src_init(&sm, &a);
        Diags d;
        diags_init(&d, &a, &sm);
        StrTab st;
        strtab_init(&st, &a);
        DriverOptions o = {0};
        o.filename = path;
        o.source = src;
        o.len = len;
        o.target = target;
        o.stdlib_dir = "stdlib";
        o.opt_level = 3;
        o.defines = defs;
        o.ndefines = nd;
        DriverResult res;
        double t0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID), k0 = children_ms();
        bool ok = driver_compile(&a, &st, &sm, &d, &o, STAGE_BIN, &res);
        double t1 = clock_ms(CLOCK_MONOTONIC), c1 = clock_ms(CLOCK_PROCESS_CPUTIME_ID), k1 = children_ms();
        if (!ok) {
            for (int i = 0; i < d.n; i++)
                fputs(diag_render(&a, &d.items[i]), stderr);
            return 1;
        }
        if (r >= 0) {
            double w[NCOL] = {t1 - t0, res.ms_front + res.ms_sema, res.ms_passes, res.ms_lower,
                              res.ms_opt, res.ms_codegen, res.ms_link};
            /* the total: the process's (the driver compiles on a thread of its own, a file's kernels on
             * several) and ld.lld's, so it also counts what lies between the stages (making and
             * disposing of LLVM's contexts and modules); the stages' own columns are the compiling
             * threads' sums */
            double c[NCOL] = {c1 - c0 + k1 - k0, res.cpu_front + res.cpu_sema, res.cpu_passes, res.cpu_lower,
                              res.cpu_opt, res.cpu_codegen, res.cpu_link};
            for (int k = 0; k < NCOL; k++) {
                wall[k][r] = w[k];
                cpu[k][r] = c[k];
            }
        }
        arena_free(&a);
    }
    double mw[NCOL], mc[NCOL];
    for (int k = 0; k < NCOL; k++) {
        mw[k] = median(wall[k], runs);
        mc[k] = median(cpu[k], runs);
    }
    printf("%s (%s, %d runs, medians in ms)\n", path, target, runs);
    printf("  cpu:  total %6.1f = front+sema %.2f, passes %.2f, lower %.2f, llvm opt %.1f, codegen %.1f, link %.1f\n",
           mc[0], mc[1], mc[2], mc[3], mc[4], mc[5], mc[6]);
    printf("  wall: total %6.1f = front+sema %.2f, passes %.2f, lower %.2f, llvm opt %.1f, codegen %.1f, link %.1f\n",
           mw[0], mw[1], mw[2], mw[3], mw[4], mw[5], mw[6]);
    if (nllvm > 1)
        LLVMShutdown(); /* prints what -time-passes gathered */
    return 0;
}
