/* bench_stages: in-process compile time of a .tile file to a code object, by stage.
 *
 * Calls driver_compile (the path rkc and rk_compile take) N times after one warm-up run (which pays
 * for LLVM's one-time initialisation and the TargetMachine) and prints the median of each stage:
 * front end + semantics, passes, lowering to LLVM IR, LLVM's optimisation, code generation, and the
 * link (ld.lld, a separate process). Usage: bench_stages FILE.tile [target] [runs] [-D NAME=VALUE]...
 * Run from the source tree (the stdlib is found at ./stdlib). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compiler/driver/driver.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
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

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_stages FILE.tile [target] [runs] [-D NAME=VALUE]...\n");
        return 2;
    }
    const char *path = argv[1];
    const char *target = argc > 2 && argv[2][0] != '-' ? argv[2] : "gfx942";
    int runs = argc > 3 && argv[3][0] != '-' ? atoi(argv[3]) : 20;
    Define defs[32];
    int nd = 0;
    for (int i = 2; i < argc && nd < 32; i++)
        if (strcmp(argv[i], "-D") == 0 && i + 1 < argc) {
            char *eq = strchr(argv[++i], '=');
            if (eq) {
                *eq = 0;
                defs[nd++] = (Define){argv[i], eq + 1};
            }
        }
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    static char src[1 << 20];
    size_t len = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    double total[256], fe[256], ps[256], lw[256], op[256], cg[256], lk[256];
    if (runs > 256)
        runs = 256;
    for (int r = -1; r < runs; r++) {
        Arena a;
        arena_init(&a, default_allocator);
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
        double t0 = now_ms();
        bool ok = driver_compile(&a, &st, &sm, &d, &o, STAGE_BIN, &res);
        double t1 = now_ms();
        if (!ok) {
            for (int i = 0; i < d.n; i++)
                fputs(diag_render(&a, &d.items[i]), stderr);
            return 1;
        }
        if (r >= 0) {
            total[r] = t1 - t0;
            fe[r] = res.ms_front + res.ms_sema;
            ps[r] = res.ms_passes;
            lw[r] = res.ms_lower;
            op[r] = res.ms_opt;
            cg[r] = res.ms_codegen;
            lk[r] = res.ms_link;
        }
        arena_free(&a);
    }
    printf("%s (%s, %d runs, medians in ms): total %.1f = front+sema %.2f, passes %.2f, lower %.2f, "
           "llvm opt %.1f, codegen %.1f, link %.1f\n",
           path, target, runs, median(total, runs), median(fe, runs), median(ps, runs), median(lw, runs),
           median(op, runs), median(cg, runs), median(lk, runs));
    return 0;
}
