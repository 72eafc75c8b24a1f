/* The kernels of one file compiled side by side (driver_internal.h): each kernel is lowered into an
 * LLVM module of its own (in its own LLVMContext), the modules are optimised and compiled to objects
 * on up to as many threads as the process may run on, and the objects are merged and linked into
 * one code object (codegen_link, compiler/codegen/elf_merge.c).
 *
 * Why: LLVM optimises and compiles one module's functions one after the other, and its work is
 * almost all of a compile (docs/performance.md); a file's kernels share nothing that LLVM uses, so
 * on a 2-core machine a file of 2 or 3 kernels compiles in about half the time. The code of every
 * kernel is what the one-module compile gives (tests/unit/test_elf_link.c compares their reports).
 *
 * Each compiling thread has its own arena, whose allocations go through the caller's allocator under
 * a lock (a user's hook need not be thread-safe) and which returns NULL rather than jumping when the
 * hook fails: codegen_module then reports an error. The objects are copied into the caller's arena
 * before the thread arenas are freed. */
#include <llvm-c/Core.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/codegen/codegen.h"
#include "compiler/driver/driver_internal.h"
#include "compiler/lower/lower.h"
#include "support/clock.h"

typedef struct Job {
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    Arena arena;
    CodegenResult cr_opt, cr; /* the optimisation's figures; code generation's and the object */
    CgStatus st;
    const char *err;
    bool optimised; /* the first half has finished (successfully or not) */
} Job;

/* The work: 2n tasks, task i < n optimising kernel i, task n + i generating its code. The
 * optimisations come first so that the code generation of the first kernels overlaps them: with 3
 * equal kernels on 2 threads (optimisation about a fifth of each) the last finishes at 1.8 kernel
 * times instead of 2. A thread that takes a code generation task whose module is still being
 * optimised waits for it. */
typedef struct Pool {
    Job *jobs;
    int n, next;
    const Target *tg;
    int opt;
    pthread_mutex_t lock;
    pthread_cond_t optimised;
    LockedAllocator alloc; /* the caller's allocator, for the threads' arenas */
} Pool;

static void *work(void *arg)
{
    Pool *pl = arg;
    for (;;) {
        pthread_mutex_lock(&pl->lock);
        int t = pl->next < 2 * pl->n ? pl->next++ : -1;
        Job *j = t < 0 ? NULL : &pl->jobs[t % pl->n];
        while (t >= pl->n && !j->optimised)
            pthread_cond_wait(&pl->optimised, &pl->lock);
        pthread_mutex_unlock(&pl->lock);
        if (t < 0)
            return NULL;
        if (t < pl->n) {
            j->st = codegen_module(pl->tg, j->mod, pl->opt, CG_OPT_ONLY, &j->arena, &j->cr_opt, &j->err);
            pthread_mutex_lock(&pl->lock);
            j->optimised = true;
            pthread_cond_broadcast(&pl->optimised);
            pthread_mutex_unlock(&pl->lock);
        } else if (j->st == CG_OK) {
            j->st = codegen_module(pl->tg, j->mod, pl->opt, CG_WANT_OBJ | CG_OPTIMISED, &j->arena, &j->cr, &j->err);
        }
    }
}

int driver_codegen_threads(int nkernels)
{
    const char *env = getenv("RK_CODEGEN_THREADS");
    int n = 0;
    if (env && *env)
        n = atoi(env);
    if (n <= 0) {
        /* A few kernels get a thread each even beyond the cores: the system shares the cores between
         * them and they finish together, where a thread per core would leave the odd kernel to one
         * core at the end (3 equal kernels on 2 cores: 1.5 kernel times in theory against 1.8 with the
         * task order above; layernorm measured median 62.3 -> 59.6 ms over 12 interleaved rounds). */
        cpu_set_t set;
        int cores = sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
        n = nkernels <= 2 * cores ? nkernels : cores;
    }
    return n < nkernels ? n : nkernels;
}

/* The recovery point while the modules are lowered: every context made so far is disposed of. */
typedef struct Guard {
    jmp_buf oom;
} Guard;

int driver_kernels_parallel(Arena *a, Diags *diags, const DriverOptions *o, const char *target, Module *lir,
                            int threads, const LowerChoice *choice, DriverResult *out)
{
    const Target *tg = target_find(target);
    int n = lir->nfuncs;
    Pool *pl = ARENA_NEW(a, Pool);
    Job *jobs = ARENA_ARRAY(a, Job, n);
    Guard *g = ARENA_NEW(a, Guard);
    const void **objs = ARENA_ARRAY(a, const void *, n);
    size_t *sizes = ARENA_ARRAY(a, size_t, n);
    if (!pl || !jobs || !g || !objs || !sizes) {
        diag_plain(diags, DIAG_ERROR, "out of memory");
        return 0;
    }
    double t0 = clock_wall_ms();
    volatile int made = 0; /* contexts made (read after a longjmp) */
    jmp_buf *outer = a->oom;
    if (outer) {
        if (setjmp(g->oom)) {
            a->oom = outer;
            for (int i = 0; i < made; i++) {
                LLVMDisposeModule(jobs[i].mod);
                LLVMContextDispose(jobs[i].ctx);
            }
            longjmp(*outer, 1);
        }
        a->oom = &g->oom;
    }
    bool ok = true;
    LowerOptions lopt = {target_find(target), false, o->remarks, {0}};
    for (int i = 0; i < n; i++) {
        jobs[i].ctx = LLVMContextCreate();
        jobs[i].mod = LLVMModuleCreateWithNameInContext(lir->funcs[i]->name, jobs[i].ctx);
        made = i + 1;
        if (!ok)
            continue;
        lopt.choice = choice ? choice[i] : (LowerChoice){0};
        ok = driver_lower_kernel(a, diags, &lopt, lir->funcs[i], jobs[i].mod, out);
    }
    a->oom = outer;
    out->ms_lower = clock_wall_ms() - t0;
    if (!ok) {
        for (int i = 0; i < n; i++) {
            LLVMDisposeModule(jobs[i].mod);
            LLVMContextDispose(jobs[i].ctx);
        }
        return 0;
    }

    /* optimise and compile, one module per job, on the threads */
    double t1 = clock_wall_ms();
    *pl = (Pool){.jobs = jobs, .n = n, .tg = tg, .opt = o->opt_level};
    pthread_mutex_init(&pl->lock, NULL);
    pthread_cond_init(&pl->optimised, NULL);
    locked_allocator_init(&pl->alloc, a->alloc);
    for (int i = 0; i < n; i++)
        arena_init(&jobs[i].arena, locked_allocator(&pl->alloc));
    pthread_t th[64];
    int started = 0;
    pthread_attr_t attr;
    bool attr_ok = pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, DRIVER_COMPILE_STACK) == 0;
    for (int t = 1; t < threads && t < 64 && attr_ok; t++) {
        if (pthread_create(&th[started], &attr, work, pl) != 0)
            break;
        started++;
    }
    if (attr_ok)
        pthread_attr_destroy(&attr);
    work(pl); /* this thread takes jobs too (and all of them when no thread started) */
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    pthread_cond_destroy(&pl->optimised);
    pthread_mutex_destroy(&pl->lock);

    /* the objects, into the caller's arena; then the link (merging the objects) */
    double opt_ms = 0, cg_ms = 0;
    bool lost = false;
    a->oom = NULL; /* a failure to copy is raised after the LLVM state is disposed of */
    for (int i = 0; i < n; i++) {
        Job *j = &jobs[i];
        out->cpu_opt += j->cr_opt.c_opt_ms;
        out->cpu_codegen += j->cr.c_codegen_ms;
        opt_ms += j->cr_opt.t_opt_ms;
        cg_ms += j->cr.t_codegen_ms;
        if (ok && j->st != CG_OK) {
            diag_plain(diags, DIAG_ERROR, "%s%s",
                       j->st == CG_ERR_INVALID || j->st == CG_ERR_LLVM ? "internal error: " : "",
                       j->err ? j->err : "code generation failed");
            ok = false;
        }
        if (ok && !lost) {
            void *copy = arena_alloc(a, j->cr.obj_size);
            lost = !copy;
            if (copy) {
                memcpy(copy, j->cr.obj, j->cr.obj_size);
                objs[i] = copy;
                sizes[i] = j->cr.obj_size;
            }
        }
        arena_free(&j->arena);
        LLVMDisposeModule(j->mod);
        LLVMContextDispose(j->ctx);
    }
    locked_allocator_destroy(&pl->alloc);
    a->oom = outer;
    if (lost && ok) {
        if (outer)
            longjmp(*outer, 1);
        diag_plain(diags, DIAG_ERROR, "out of memory");
        return 0;
    }
    /* wall time of the threaded phase, shared between the two stages as their thread time is */
    double phase = clock_wall_ms() - t1;
    out->ms_opt = opt_ms + cg_ms > 0 ? phase * opt_ms / (opt_ms + cg_ms) : 0;
    out->ms_codegen = phase - out->ms_opt;
    if (!ok)
        return 0;
    const char *err = NULL;
    void *bin = NULL;
    size_t bin_size = 0;
    CgTimes link;
    CgStatus st = cg_link_timed(tg, objs, sizes, n, a, &bin, &bin_size, &err, &link);
    out->ms_link = link.wall_ms;
    out->cpu_link = link.cpu_ms;
    if (st == CG_ERR_USAGE)
        return -1; /* objects the merger does not take: the caller compiles one module instead */
    if (st != CG_OK) {
        diag_plain(diags, DIAG_ERROR, "internal error: %s", err ? err : "the link failed");
        return 0;
    }
    out->binary = bin;
    out->size = bin_size;
    out->text = NULL;
    return 1;
}
