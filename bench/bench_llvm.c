/* bench_llvm: LLVM's share of a compile under several configurations, interleaved.
 *
 * Lowers a .tile file to LLVM IR once (driver_compile to STAGE_LLVM), then for each run and each
 * configuration in turn parses that IR into a fresh context, runs an optimisation pipeline and emits
 * an object, timing both in CPU time of this thread. Interleaving the configurations run by run
 * cancels most of the drift of a shared machine, which moves CPU times by 1.5x between minutes.
 *
 *   bench_llvm FILE.tile [target] [runs] [-D NAME=VALUE]... [-c PIPELINE@LEVEL]... [--llvm OPTION]...
 *
 * PIPELINE is a new pass manager pipeline ("default<O3>", "function(instcombine)", or "none" for no
 * optimisation) and LEVEL the code generator's optimisation level, 0 to 3; the default compares
 * "default<O3>@3" with what codegen_module runs. --llvm passes options to LLVM's command line parser
 * (they apply to every configuration). Prints the median opt, codegen and sum per configuration, and
 * the size of the object. Run from the source tree (the stdlib is at ./stdlib). */
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Support.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compiler/codegen/codegen.h"
#include "compiler/driver/driver.h"

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
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

enum { MAX_RUNS = 128, MAX_CONFIGS = 8 };

typedef struct Setup {
    const char *pipeline;
    int level;
    LLVMTargetMachineRef tm;
    double opt[MAX_RUNS], cg[MAX_RUNS];
    size_t obj_size;
} Setup;

/* One compile of `ir` under `c`; returns false on failure (message on stderr). */
static bool compile_once(const Target *t, const char *ir, size_t len, Setup *c, double *opt_ms, double *cg_ms)
{
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, len, "ir");
    LLVMModuleRef m;
    char *msg = NULL;
    if (LLVMParseIRInContext(ctx, buf, &m, &msg)) {
        fprintf(stderr, "bench_llvm: cannot parse the IR: %s\n", msg);
        return false;
    }
    LLVMSetTarget(m, t->triple);
    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(c->tm);
    LLVMSetModuleDataLayout(m, td);
    LLVMDisposeTargetData(td);
    if (t->code_object_version) {
        LLVMValueRef v = LLVMConstInt(LLVMInt32TypeInContext(ctx), (unsigned long long)t->code_object_version, 0);
        LLVMAddModuleFlag(m, LLVMModuleFlagBehaviorError, "amdhsa_code_object_version", 26, LLVMValueAsMetadata(v));
    }
    double c0 = cpu_ms();
    if (strcmp(c->pipeline, "none") != 0) {
        LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
        LLVMErrorRef e = LLVMRunPasses(m, c->pipeline, c->tm, po);
        LLVMDisposePassBuilderOptions(po);
        if (e) {
            char *em = LLVMGetErrorMessage(e);
            fprintf(stderr, "bench_llvm: pipeline %s: %s\n", c->pipeline, em);
            LLVMDisposeErrorMessage(em);
            return false;
        }
    }
    double c1 = cpu_ms();
    LLVMMemoryBufferRef obj = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(c->tm, m, LLVMObjectFile, &msg, &obj)) {
        fprintf(stderr, "bench_llvm: codegen: %s\n", msg);
        return false;
    }
    double c2 = cpu_ms();
    c->obj_size = LLVMGetBufferSize(obj);
    LLVMDisposeMemoryBuffer(obj);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    *opt_ms = c1 - c0;
    *cg_ms = c2 - c1;
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_llvm FILE.tile [target] [runs] [-D NAME=VALUE]... [-c PIPELINE@LEVEL]... "
                        "[--llvm OPTION]...\n");
        return 2;
    }
    const char *path = argv[1];
    const char *target = argc > 2 && argv[2][0] != '-' ? argv[2] : "gfx942";
    int runs = argc > 3 && argv[3][0] != '-' ? atoi(argv[3]) : 11;
    if (runs < 1)
        runs = 1;
    if (runs > MAX_RUNS)
        runs = MAX_RUNS;
    Define defs[32];
    int nd = 0;
    const char *llvm_argv[33] = {"bench_llvm"};
    int nllvm = 1;
    static Setup cfg[MAX_CONFIGS];
    int nc = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "-D") == 0 && i + 1 < argc && nd < 32) {
            char *eq = strchr(argv[++i], '=');
            if (eq) {
                *eq = 0;
                defs[nd++] = (Define){argv[i], eq + 1};
            }
        } else if (strcmp(argv[i], "--llvm") == 0 && i + 1 < argc && nllvm < 33) {
            llvm_argv[nllvm++] = argv[++i];
        } else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc && nc < MAX_CONFIGS) {
            char *at = strrchr(argv[++i], '@');
            cfg[nc].pipeline = argv[i];
            cfg[nc].level = 3;
            if (at) {
                *at = 0;
                cfg[nc].level = atoi(at + 1);
            }
            nc++;
        }
    }
    if (nc == 0) {
        cfg[nc++] = (Setup){.pipeline = "default<O3>", .level = 3};
    }
    if (nllvm > 1)
        LLVMParseCommandLineOptions(nllvm, llvm_argv, NULL);
    codegen_init_llvm();
    const Target *t = target_find(target);
    if (!t) {
        fprintf(stderr, "bench_llvm: no target %s\n", target);
        return 2;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    static char src[1 << 20];
    size_t len = fread(src, 1, sizeof src - 1, f);
    fclose(f);

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
    if (!driver_compile(&a, &st, &sm, &d, &o, STAGE_LLVM, &res)) {
        for (int i = 0; i < d.n; i++)
            fputs(diag_render(&a, &d.items[i]), stderr);
        return 1;
    }
    const char *ir = res.text;
    size_t irlen = strlen(ir);

    static const LLVMCodeGenOptLevel levels[] = {LLVMCodeGenLevelNone, LLVMCodeGenLevelLess, LLVMCodeGenLevelDefault,
                                                 LLVMCodeGenLevelAggressive};
    LLVMTargetRef tgt;
    char *msg;
    if (LLVMGetTargetFromTriple(t->triple, &tgt, &msg)) {
        fprintf(stderr, "bench_llvm: %s\n", msg);
        return 1;
    }
    for (int c = 0; c < nc; c++) {
        LLVMTargetMachineOptionsRef to = LLVMCreateTargetMachineOptions();
        LLVMTargetMachineOptionsSetCPU(to, t->cpu);
        LLVMTargetMachineOptionsSetFeatures(to, t->features);
        LLVMTargetMachineOptionsSetCodeGenOptLevel(to, levels[cfg[c].level & 3]);
        LLVMTargetMachineOptionsSetRelocMode(to, t->kind == TARGET_EMU ? LLVMRelocPIC : LLVMRelocDefault);
        cfg[c].tm = LLVMCreateTargetMachineWithOptions(tgt, t->triple, to);
        LLVMDisposeTargetMachineOptions(to);
        double x, y;
        if (!compile_once(t, ir, irlen, &cfg[c], &x, &y)) /* warm-up */
            return 1;
    }
    for (int r = 0; r < runs; r++)
        for (int c = 0; c < nc; c++)
            if (!compile_once(t, ir, irlen, &cfg[c], &cfg[c].opt[r], &cfg[c].cg[r]))
                return 1;
    printf("%s (%s, %d runs interleaved, CPU ms medians)\n", path, target, runs);
    for (int c = 0; c < nc; c++) {
        double sum[MAX_RUNS];
        for (int r = 0; r < runs; r++)
            sum[r] = cfg[c].opt[r] + cfg[c].cg[r];
        double ms = median(sum, runs), mo = median(cfg[c].opt, runs), mc = median(cfg[c].cg, runs);
        printf("  %7.1f = opt %6.1f + codegen %6.1f  obj %6zu B  %s @%d\n", ms, mo, mc, cfg[c].obj_size,
               cfg[c].pipeline, cfg[c].level);
        LLVMDisposeTargetMachine(cfg[c].tm);
    }
    if (nllvm > 1)
        LLVMShutdown();
    arena_free(&a);
    return 0;
}
