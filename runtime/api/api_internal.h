/* The objects behind rk.h's handles, shared by the runtime half of the API (runtime/api) and the
 * compiler half (compiler/api). Not installed; nothing here is exported from the shared library.
 *
 * Ownership: a context owns its device, its programs (a list, so that rk_ctx_destroy can free those the
 * caller forgot; tuned kernels live in programs of this list that no caller holds), its bundles, its
 * events, the registry of its allocations, its tuning memory and its trace. A program owns one arena holding
 * its code object, its kernels and their parsed @grid functions; its module is loaded on the device
 * at the first launch. All of it comes from the context's allocator hook. Error messages live in a
 * fixed buffer of the context, so reporting a failure never allocates. */
#ifndef RK_API_INTERNAL_H
#define RK_API_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "compiler/tir/tir.h"
#include "rk.h"
#include "runtime/device/device.h"
#include "support/diag.h"

typedef struct RtAlloc {
    uintptr_t base;
    size_t bytes;
} RtAlloc;

struct rk_ctx {
    Allocator alloc;
    RtDevice *dev;          /* NULL for "none", or when opening failed */
    rk_status dev_status;   /* why dev is NULL */
    char dev_msg[512];
    char err[2048];         /* rk_error */
    Arena arena;            /* lives as long as the context: copies of option strings */
    Arena diag_arena;       /* the diagnostics of the last compile */
    rk_diag *diags;
    int ndiags;
    const char *dump_ir, *dump_dir, *cache_dir, *stdlib_dir;
    rk_dump_fn dump;
    void *dump_ud;
    rk_print_fn print;
    void *print_ud;
    int host_threads;
    RtAlloc *allocs;        /* sorted by base; from the allocator hook */
    int nallocs, capallocs;
    rk_program *programs;   /* doubly linked */
    rk_event *events;       /* doubly linked */
    rk_device_info info;    /* points into dev->props */
    /* Caches, autotuning, profiling and logging (runtime/cache, runtime/tune, runtime/profile). */
    const char *cache_root; /* the resolved cache folder, or NULL when there is none */
    bool cache_read;        /* false with always_compile: entries are written but never read */
    bool cache_noted;       /* a cache failure has been logged once (later ones are not) */
    bool print_autotuning;
    bool check_races; /* emu devices: report data races (rk_ctx_options.check_races) */
    bool no_specialize; /* launches never specialise (rk_ctx_options.no_specialize) */
    bool confine_imports; /* every compile's imports stay in its include folders and the stdlib */
    rk_log_fn log;
    void *log_ud;
    struct RtProfile *prof; /* NULL when not profiling */
    int compile_threads, tune_warmup, tune_runs, tune_ms;
    rk_stats stats;
    struct RtTuneMemo *memo; /* tuned kernels and kernel descriptions of this context */
    rk_bundle *bundles;     /* doubly linked */
    /* The thread in a call on this context (RT_ENTER): a token of that thread, 0 when none; depth
     * counts its nested entries (rk_run calls rk_launch). */
    _Atomic uintptr_t owner;
    int depth;
};

struct rk_kernel {
    rk_program *prog;
    const char *name, *symbol;
    const char *config;     /* the autotune config as -D pairs, or "" */
    rk_param *params;
    int nparams;
    size_t *offsets;        /* each parameter's offset in the kernarg block (HIP layout) */
    size_t kernarg_size;
    int num_warps, block, lds_bytes;
    Func *grid;             /* the @grid function, or NULL */
    int *grid_params;       /* grid argument i is kernel parameter grid_params[i] */
    const void **grid_args; /* the grid function's arguments, pointing into the kernarg block */
    unsigned char *grid_key; /* the grid arguments' bytes at the last evaluation, and its result: */
    size_t grid_key_size;    /* @grid is a pure function, so equal arguments give the same grid */
    uint32_t grid_last[3];
    bool grid_known;
    RtFunc *fn;             /* resolved at the first launch */
    unsigned char *kernarg; /* the block, built anew by each launch */
    const void **argptrs;   /* pointers to each argument inside it, then to each tensor map */
    const char *tma_spec;   /* sm_90: the tensor maps it takes after its parameters (tma.c), or NULL */
    const char *grid_text;  /* the @grid function's TIR text (RtKernelDesc.grid_tir), or NULL */
    struct RtTma *tma;      /* those maps, parsed, with the last launch's inputs and maps */
    int ntma;
    /* Specialisation (spec.c). The facts its code assumes, checked at every launch: */
    const char *facts;      /* canonical text, "" for none */
    struct RtFactCheck *checks;
    int nchecks;
    /* The integer parameters a launch specialises on (not @no_specialize; at most 32), the variants
     * compiled so far by their signature (2 bits per such parameter: 1 divisible by 16, 2 equal to 1),
     * and the last launch's signature and variant: */
    int *spec_params;
    int nspec;
    struct RtVariant *vars; /* from the allocator hook; each variant's program is owned by this kernel */
    int nvars, capvars;
    uint64_t own_sig;       /* its own facts as a signature, when they are all %16==0 or ==1 on */
    bool own_sig_ok;        /* parameters it specialises on (an autotune winner's) */
    uint64_t last_sig;
    rk_kernel *last_run;    /* the kernel the last launch ran: this one or a variant (NULL: none yet) */
};

/* How a program's kernels were compiled, for compiling their specialised variants at launch (spec.c;
 * set by rk_compile and the autotuner, NULL for programs from bundles and for variants). */
typedef struct RtSpecSrc RtSpecSrc;
/* Compiles kernel `name` of the source of src with a config ("" or -D pairs) and facts, into a new
 * program: the compiler's function, which it hands over with the program (rt_spec_attach), so that
 * the runtime never names a compiler symbol. */
typedef rk_status (*RtCompileVariantFn)(rk_ctx *ctx, const RtSpecSrc *src, const char *name, const char *config,
                                        const char *facts, rk_program **out);
struct RtSpecSrc {
    const char *source;
    size_t length;
    rk_compile_options opts;    /* strings, defines and folders copied into the program's arena */
    RtCompileVariantFn compile; /* never NULL */
};

struct rk_program {
    rk_ctx *ctx;
    rk_program *prev, *next;
    Arena arena;
    const char *target;
    void *binary;
    size_t size;
    rk_kernel *kernels;
    int nkernels;
    RtModule *mod;          /* loaded at the first launch */
    RtSpecSrc *spec;        /* how to compile variants of its kernels at launch, or NULL */
};

/* What the compiler half hands over about one compiled kernel. */
typedef struct RtKernelDesc {
    const char *name, *symbol;
    const rk_param *params;
    int nparams;
    int num_warps, block, lds_bytes;
    const char *grid_tir; /* the @grid function as TIR text, or NULL */
    const char *config;   /* the autotune config as -D pairs ("BLOCK=64 num_warps=4"), or NULL */
    const char *tma;      /* sm_90: the tensor maps after the parameters, one line each (tma.c), or NULL */
    const char *facts;    /* the facts it was compiled with (support/facts.h), or NULL / "" */
    const char *nospec;   /* the parameters named by @no_specialize, space-separated, or NULL / "" */
} RtKernelDesc;

/* A program from a code object and its kernels' descriptions (everything is copied). Sets the
 * context's error on failure. The bundle loader and the tests use it directly. */
/* tma.c: a kernel's tensor maps (k->tma_spec): parsed when the kernel is built (false after setting
 * the context's error), built for each launch from its arguments in k->kernarg (k->argptrs after the
 * parameters point at them). */
bool rt_tma_parse(rk_ctx *ctx, Arena *a, rk_kernel *k);
rk_status rt_tma_build(rk_kernel *k);

rk_status rt_program_new(rk_ctx *ctx, const char *target, const void *binary, size_t size, const RtKernelDesc *kernels,
                         int nkernels, rk_program **out);

/* Entry points that use a context claim it for the calling thread for the length of the call, so that
 * a call from another thread that overlaps it is refused (RK_EBUSY) instead of racing: RT_ENTER(ctx)
 * after the handle checks claims it (a nested call on the same thread passes), clears its error, and
 * gives it back when the function returns (the cleanup attribute, at every return); when another
 * thread holds it, it returns RK_EBUSY and touches nothing. The claim
 * is a compare-and-swap with acquire and release order, so that threads taking turns on one context
 * see each other's writes. */
typedef struct RtGuard {
    rk_ctx *ctx; /* NULL when refused */
} RtGuard;
RtGuard rt_enter(rk_ctx *ctx);
void rt_leave(RtGuard *g);
#define RT_ENTER(c)                                                                 \
    RtGuard rt_guard __attribute__((cleanup(rt_leave))) = rt_enter(c);              \
    if (!rt_guard.ctx)                                                              \
    return RK_EBUSY

/* Sets the context's error message and returns st. */
rk_status rt_fail(rk_ctx *ctx, rk_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Clears the error at the start of an entry point. */
void rt_clear(rk_ctx *ctx);
/* The device's message as the context's error. */
rk_status rt_dev_error(rk_ctx *ctx, rk_status st);
/* RK_OK when the context has a device, else its reason (RK_ENODEVICE ...) as the error. */
rk_status rt_need_device(rk_ctx *ctx);

/* Replaces the context's diagnostics by copies of these (rendered text included). Longjmps through
 * diag_arena.oom when the hook fails: the caller sets it. */
void rt_set_diags(rk_ctx *ctx, const Diag *items, int n);

/* Sends a line to the context's log sink (nothing without one). */
void rt_log(rk_ctx *ctx, rk_log_kind kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Logs a cache failure, once per context: the compile goes on without the cache. */
void rt_cache_note(rk_ctx *ctx, const char *why);

/* Destroys the context's bundles (runtime/bundle) and tuning memory (runtime/tune); rk_ctx_destroy
 * calls them first. */
void rt_bundles_destroy(rk_ctx *ctx);
void rt_memo_destroy(rk_ctx *ctx);

/* The allocation holding [p, p + bytes), or NULL. */
const RtAlloc *rt_alloc_find(const rk_ctx *ctx, const void *p, size_t bytes);

/* spec.c: specialisation at launch. rt_spec_attach records how p was compiled (o after compile_setup:
 * no facts) and the compiler's function that compiles a variant, so that launches of its kernels may
 * compile variants; false when the hook fails (the program still works, unspecialised). rt_spec_select picks the kernel a launch with k->kernarg runs
 * (k itself or a variant, compiled on first use); it checks k's own facts first (RK_EINVAL naming the
 * parameter). rt_spec_free frees k's variants (rk_program_destroy). */
bool rt_spec_attach(rk_program *p, const char *source, size_t length, const rk_compile_options *o,
                    RtCompileVariantFn compile);
rk_status rt_spec_select(rk_kernel *k, rk_kernel **run);
bool rt_spec_kernel_init(rk_ctx *ctx, Arena *a, rk_kernel *k, const char *facts, const char *nospec);
/* How many facts k has, when the arguments satisfy them all; -1 when they break one (bundles). */
int rt_spec_args_hold(const rk_kernel *k, const rk_arg *args, int nargs);
/* Takes a program out of its context's list (a variant, owned by its kernel). */
void rt_program_unlink(rk_program *p);
void rt_spec_free(rk_kernel *k);
/* The facts of the arguments in k->kernarg as text (spec.c), for messages and rkc. */
const char *rt_spec_sig_text(const rk_kernel *k, uint64_t sig, char *buf, size_t n);

#endif
