/* rk_time: rk's compile time inside one process, stage by stage, without the process start and the
 * dynamic loading of libLLVM that an `rkc` run also pays. It calls the driver that rkc and
 * rk_compile() share (compiler/driver/driver.h), so the stages and their clocks are rk's own.
 *
 *   rk_time N STDLIB_DIR FILE.tile [NAME=VALUE]...   compiles FILE N times for gfx942
 *
 * Prints one line of JSON: the first compile ("first": LLVM's target set-up included) and the median
 * of the others ("median", N >= 2), each as total milliseconds and the driver's per-stage times
 * (front, sema, passes, lower, opt, codegen, link); "llvm_pct": the median over all runs of the
 * share of LLVM's work (opt + codegen + link) in the total. Exit 1 when a compile fails (diagnostics on
 * stderr). rk has no compile cache yet (issue 6): every call compiles. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compiler/driver/driver.h"

enum { NSTAGES = 8 }; /* total, then the driver's seven */
static const char *const stage_names[NSTAGES] = {"total", "front", "sema", "passes", "lower", "opt", "codegen", "link"};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void print_times(const char *name, const double *t)
{
    printf("\"%s\": {", name);
    for (int s = 0; s < NSTAGES; s++)
        printf("%s\"%s\": %.2f", s ? ", " : "", stage_names[s], t[s]);
    printf("}");
}

int main(int argc, char **argv)
{
    if (argc < 4 || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: rk_time N STDLIB_DIR FILE.tile [NAME=VALUE]...\n");
        return 2;
    }
    int n = atoi(argv[1]);
    const char *path = argv[3];
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "rk_time: cannot read %s\n", path);
        return 1;
    }
    static char src[1 << 20];
    size_t len = fread(src, 1, sizeof src, f);
    fclose(f);
    int nd = argc - 4;
    Define *defs = calloc((size_t)(nd > 0 ? nd : 1), sizeof *defs);
    for (int i = 0; i < nd; i++) {
        char *eq = strchr(argv[4 + i], '=');
        if (!eq) {
            fprintf(stderr, "rk_time: define '%s' is not NAME=VALUE\n", argv[4 + i]);
            return 2;
        }
        *eq = 0;
        defs[i].name = argv[4 + i];
        defs[i].value = eq + 1;
    }
    double (*t)[NSTAGES] = calloc((size_t)n, sizeof *t);
    for (int i = 0; i < n; i++) {
        Arena arena;
        arena_init(&arena, arena_default_allocator);
        SrcMgr sm;
        src_init(&sm, &arena);
        Diags diags;
        diags_init(&diags, &arena, &sm);
        StrTab strs;
        strtab_init(&strs, &arena);
        DriverOptions d = {0};
        d.filename = path;
        d.source = src;
        d.len = len;
        d.target = "gfx942";
        d.defines = defs;
        d.ndefines = nd;
        d.stdlib_dir = argv[2];
        d.opt_level = 3;
        DriverResult r;
        double t0 = now_ms();
        bool ok = driver_compile(&arena, &strs, &sm, &diags, &d, STAGE_BIN, &r);
        t[i][0] = now_ms() - t0;
        if (!ok) {
            for (int k = 0; k < diags.n; k++)
                fputs(diag_render(&arena, &diags.items[k]), stderr);
            arena_free(&arena);
            return 1;
        }
        double st[NSTAGES - 1] = {r.ms_front, r.ms_sema, r.ms_passes, r.ms_lower, r.ms_opt, r.ms_codegen, r.ms_link};
        memcpy(&t[i][1], st, sizeof st);
        arena_free(&arena);
    }
    printf("{");
    print_times("first", t[0]);
    if (n > 1) {
        double med[NSTAGES], *col = calloc((size_t)n, sizeof *col);
        for (int s = 0; s < NSTAGES; s++) {
            for (int i = 1; i < n; i++)
                col[i - 1] = t[i][s];
            med[s] = median(col, n - 1);
        }
        printf(", ");
        print_times("median", med);
        free(col);
    }
    double *pct = calloc((size_t)n, sizeof *pct);
    for (int i = 0; i < n; i++)
        pct[i] = t[i][0] > 0 ? (t[i][5] + t[i][6] + t[i][7]) / t[i][0] * 100 : 0;
    printf(", \"llvm_pct\": %.1f}\n", median(pct, n));
    free(pct);
    free(t);
    free(defs);
    return 0;
}
