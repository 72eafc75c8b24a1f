/* Semantic-analysis speed: source to tile IR for one kernel file, in process.
 *
 * Each timed run starts from the source text in memory and does what `rkc --emit=tir` does before
 * printing: parse the file and its imports (examples/matmul.tile imports std/pid), run semantic
 * analysis (name resolution, types, shapes, fn inlining, IR construction) and canonicalize each
 * function (folding, CSE, DCE). Everything lives in a fresh arena, freed after the run. The figure is
 * the median wall-clock time of the runs; a second line splits it into parse + sema and canonicalize,
 * gives the CPU time of the whole and the arena's size. Usage:
 *   bench_sema [FILE.tile] [RUNS] [STDLIB_DIR]
 * (defaults: examples/matmul.tile, 50 runs, stdlib; run from the source tree). Figures go to
 * docs/performance.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compiler/sema/sema.h"
#include "support/files.h"

static double clock_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
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

static char *read_file(const char *path, size_t *len)
{
    int err;
    return rt_read_file(path, (size_t)1 << 30, len, &err);
}

enum { MAX_RUNS = 1000 };

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "examples/matmul.tile";
    int runs = argc > 2 ? atoi(argv[2]) : 50;
    const char *stdlib_dir = argc > 3 ? argv[3] : "stdlib";
    if (runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "usage: bench_sema [FILE.tile] [RUNS (1..%d)] [STDLIB_DIR]\n", MAX_RUNS);
        return 2;
    }
    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
        fprintf(stderr, "bench_sema: cannot read %s (run from the source tree or name the file)\n", path);
        return 2;
    }
    static double total[MAX_RUNS], front_sema[MAX_RUNS], canon[MAX_RUNS], cpu[MAX_RUNS];
    size_t arena_bytes = 0;
    int nops = 0;
    for (int r = 0; r < runs; r++) {
        Arena a;
        arena_init(&a, arena_default_allocator);
        SrcMgr src;
        src_init(&src, &a);
        Diags diags;
        diags_init(&diags, &a, &src);
        StrTab strs;
        strtab_init(&strs, &a);
        TypeTab types;
        double t0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
        typetab_init(&types, &a);
        SrcFile *f = src_add(&src, path, text, len);
        SemaOptions opts = {0};
        opts.stdlib_dir = stdlib_dir;
        SemaResult res;
        bool ok = f && sema_compile(&a, &strs, &types, &src, &diags, f, &opts, NULL, &res);
        double t1 = clock_ms(CLOCK_MONOTONIC);
        if (!ok) {
            for (int i = 0; i < diags.n; i++)
                fputs(diag_render(&a, &diags.items[i]), stderr);
            fprintf(stderr, "bench_sema: %s does not compile\n", path);
            return 1;
        }
        for (int i = 0; i < res.module->nfuncs; i++)
            tir_canonicalize(res.module->funcs[i]);
        double t2 = clock_ms(CLOCK_MONOTONIC);
        cpu[r] = clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
        front_sema[r] = t1 - t0;
        canon[r] = t2 - t1;
        total[r] = t2 - t0;
        arena_bytes = a.bytes;
        nops = 0;
        for (int i = 0; i < res.module->nfuncs; i++)
            for (Op *op = res.module->funcs[i]->body->first; op; op = op->next)
                nops++;
        arena_free(&a);
    }
    printf("sema: %s to tile IR (parse + sema + canonicalize) in %.3f ms, median of %d runs\n", path,
           median(total, runs), runs);
    printf("sema: parse + sema %.3f ms, canonicalize %.3f ms, CPU time %.3f ms; %d top-level ops; arena %.1f KB\n",
           median(front_sema, runs), median(canon, runs), median(cpu, runs), nops, (double)arena_bytes / 1024.0);
    free(text);
    return 0;
}
