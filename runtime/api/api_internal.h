/* The objects behind rk.h's handles, private to the runtime (runtime/api and the runtime's modules; the
 * compiler half of the API sees only program_build.h). Not installed; nothing here is exported from
 * the shared library.
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
#include "runtime/api/program_build.h"
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
    RtCompileSettings settings; /* what compiles read (program_build.h) */
    const char *cache_dir;
    rk_print_fn print;
    void *print_ud;
    int host_threads;
    RtAlloc *allocs;        /* sorted by base; from the allocator hook */
    int nallocs, capallocs;
    rk_program *programs;   /* doubly linked */
    rk_event *events;       /* doubly linked */
    rk_device_info info;    /* points into dev->props */
    /* Caches, autotuning, profiling and logging (runtime/cache, runtime/tune, runtime/profile). */
    bool cache_read;        /* false with always_compile: entries are written but never read */
    bool cache_noted;       /* a cache failure has been logged once (later ones are not) */
    bool check_races; /* emu devices: report data races (rk_ctx_options.check_races) */
    rk_log_fn log;
    void *log_ud;
    struct RtProfile *prof; /* NULL when not profiling */
    int tune_warmup, tune_runs, tune_ms;
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
    const char *work;       /* its FLOPs and bytes as formulas (RtKernelDesc.work, perf.c), or NULL */
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
    bool own_sig_ok;        /* parameters it specialises on (an autotune winner's), or <2G on pointers */
    uint64_t last_sig;
    /* On targets with buffer addressing (Target.buffer_range32), the pointer parameters a launch
     * specialises on (at most 32) and their signature: bit s, the fact spec_ptrs[s]<2G */
    int *spec_ptrs;
    int nspec_ptrs;
    uint32_t own_psig, last_psig;
    rk_kernel *last_run;    /* the kernel the last launch ran: this one or a variant (NULL: none yet) */
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

/* tma.c: a kernel's tensor maps (k->tma_spec): parsed when the kernel is built (false after setting
 * the context's error), built for each launch from its arguments in k->kernarg (k->argptrs after the
 * parameters point at them). */
bool rt_tma_parse(rk_ctx *ctx, Arena *a, rk_kernel *k);
rk_status rt_tma_build(rk_kernel *k);

/* The device's message as the context's error. */
rk_status rt_dev_error(rk_ctx *ctx, rk_status st);

/* Logs a cache failure, once per context: the compile goes on without the cache. */
void rt_cache_note(rk_ctx *ctx, const char *why);

/* Destroys the context's bundles (runtime/bundle) and tuning memory (runtime/tune); rk_ctx_destroy
 * calls them first. */
void rt_bundles_destroy(rk_ctx *ctx);
void rt_memo_destroy(rk_ctx *ctx);

/* launch.c: checks the arguments into k->kernarg, as a launch does, and gives the grid: grid_in, else
 * the kernel's @grid for them. perf.c reads the arguments from there. */
rk_status rt_args_grid(rk_kernel *k, const uint32_t *grid_in, const rk_arg *args, int nargs, uint32_t grid[3]);
/* perf.c: the work of the launch whose arguments are in k->kernarg, over grid (false when k has no
 * formulas or one does not evaluate). */
bool rt_work_eval(rk_kernel *k, const uint32_t grid[3], rk_work *w);
/* The work, peaks and roofline of a launch of k taking ms (false when one cannot be had; the context's
 * error is left as it was), and the same as a text for a log line ("; 1.2 TFLOP/s, ...") or as JSON
 * members for a trace (", \"flops\": ..."), "" when there are none. */
bool rt_roofline_for(rk_kernel *k, const uint32_t *grid, const rk_arg *args, int nargs, double ms, rk_work *w,
                     const rk_peaks **p, bool *estimate, rk_roofline *r);
const char *rt_roofline_text(rk_kernel *k, const uint32_t *grid, const rk_arg *args, int nargs, double ms, bool json,
                             char *buf, size_t n);

/* The allocation holding [p, p + bytes), or NULL. */
const RtAlloc *rt_alloc_find(const rk_ctx *ctx, const void *p, size_t bytes);

/* spec.c: specialisation at launch (rt_spec_attach: program_build.h). rt_spec_select picks the kernel
 * a launch with k->kernarg runs (k itself or a variant, compiled on first use); it checks k's own facts
 * first (RK_EINVAL naming the parameter). rt_spec_free frees k's variants (rk_program_destroy). */
rk_status rt_spec_select(rk_kernel *k, rk_kernel **run);
bool rt_spec_kernel_init(rk_ctx *ctx, Arena *a, rk_kernel *k, const char *facts, const char *nospec);
/* How many facts k has, when the arguments satisfy them all; -1 when they break one (bundles). */
int rt_spec_args_hold(const rk_kernel *k, const rk_arg *args, int nargs);
/* Takes a program out of its context's list (a variant, owned by its kernel). */
void rt_program_unlink(rk_program *p);
void rt_spec_free(rk_kernel *k);
/* The facts of the arguments in k->kernarg as text (spec.c), for messages and rkc. */
const char *rt_spec_sig_text(const rk_kernel *k, uint64_t sig, uint32_t psig, char *buf, size_t n);

#endif
