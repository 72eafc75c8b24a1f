/* Compiling many configs of kernels at once, on all cores: the compile phase of rk_autotune and of
 * rk_compile_bundle.
 *
 * Each config is one `variant`: a kernel compiled with the config's values as defines, its function
 * renamed kernel__cN so that variants can share a code object. Worker threads (one per core) take
 * variants in turn and run the driver to LLVM IR, each in its own arena, string table and LLVMContext
 * (driver_compile is re-entrant: sema, passes and lowering keep no global state, and codegen lends
 * each thread its own TargetMachine). A variant whose LDS is over the limit is pruned there, before
 * LLVM spends any time on it. A worker links the IR of the variants it took into one module
 * (LLVMLinkModules2) -- a `group` of at most group_max variants -- and generates code for the group
 * at once, so a group pays for one ld.lld process rather than one per variant (ld.lld's start,
 * loading libLLVM, costs about 30 ms). A group is one module and so one object, which is what an
 * AMDGPU code object is made of (several objects would first be merged: elf_merge.c); for emu bundles the groups' objects are linked into one shared object (link_all). A group
 * whose code generation fails is split: each of its variants is generated alone, so one bad config
 * cannot take the others with it.
 *
 * For AMDGPU targets each group's code object is read back with the ISA report (compiler/target/amdgpu), and
 * every variant gets its spill counts and scratch size, for the autotuner's pruning. A variant whose
 * code lost to its registers (spilled VGPRs, or fewer waves than without its VGPRs) where its lowering
 * spent VGPRs for cycles, or that is a few VGPRs short of more waves, is compiled again (frugally, or
 * for those waves) and generated apart, and keeps the second code where it spills fewer VGPRs or runs
 * more waves; one whose dot's drain read-ahead stopped at its cap is compiled with it lifted and keeps
 * that code where rk's loop model says its loops are faster: the choice rkc makes for the same config
 * (compiler/driver/driver_frugal.c); a bundle's one code object is then generated again with it.
 *
 * The memory of workers comes from the context's allocator hook, behind a mutex. Workers never touch
 * the context: they never log or record statistics; the calling thread waits for them, reports
 * progress through on_progress, and reads their results after the join. */
#ifndef RK_VARIANTS_H
#define RK_VARIANTS_H

#include "compiler/api/compile_internal.h"

typedef enum VariantState {
    VAR_OK,
    VAR_PRUNED_LDS,   /* needs more LDS than lds_limit */
    VAR_PRUNED_SPILL, /* set by the caller from the spill counts */
    VAR_FAILED,       /* did not compile: why, st */
} VariantState;

typedef struct Variant {
    /* in */
    const char *kernel;      /* the kernel (its -k filter) */
    int index;               /* the config's index: the symbol is kernel__c<index> (_<id> in a bundle) */
    const Define *defs;      /* the config's values, after the compile's own defines */
    int ndefs;
    const char *label;       /* the config as -D pairs */
    const char *assume;      /* the facts it is compiled for (NULL: the compile's own) */
    int spec;                /* > 0: a specialisation's variant, symbol kernel__s<spec>c<index> */
    LowerChoice lower;       /* how it is lowered (DriverOptions.lower; all zero: as written); out: how
                                it was (DriverKernel.lowered: for emu, as gfx942's code chose) */
    /* out */
    VariantState state;
    rk_status st;            /* VAR_FAILED: RK_ECOMPILE, RK_EINTERNAL or RK_ENOMEM */
    const char *why;         /* VAR_FAILED: the first error */
    Diag *diags;             /* VAR_FAILED in the front end, sema, passes or lowering: its diagnostics */
    int ndiags;
    const char *symbol;
    RtKernelDesc desc;       /* name and symbol are `symbol`, config is `label` */
    int group;               /* index into VariantSet.bins */
    int vgpr_spills, sgpr_spills, scratch_bytes; /* AMDGPU only */
    int retried;             /* > 0: its code is the second compile's of that retry round (variants.c's
                                phase 3) */
    bool spends;             /* its lowering spent VGPRs for cycles: a frugal one would differ */
    bool drain_capped;       /* a dot's drain read-ahead stopped at its cap: a DRAIN_DEEP one would differ */
    bool drain_raised;       /* a dot read further ahead for its drain: a DRAIN_NONE one would differ */
    bool asks_waves;         /* the config says waves_per_eu */
    bool have_regs;          /* AMDGPU: regs is what its code came to in registers */
    RegFacts regs;
    RetryBasis basis;        /* retried: what the retry's rounds are planned by, the first code's and
                                lowering's (driver_retry_basis) */
} Variant;

typedef struct VariantSet {
    const CompileSetup *cs;
    Variant *v;
    int n;
    int threads;             /* workers (at most n) */
    int group_max;           /* variants per code object, at most */
    bool link_all;           /* one code object for everything (bundles) */
    int lds_limit;           /* bytes */
    void (*on_progress)(void *ud, int lowered, int generated, int total);
    void *progress_ud;
    /* out: code objects, in arena `out` */
    Arena *out;
    void **bins;
    size_t *sizes;
    int nbins;
    int compiles;            /* driver runs */
    double ms_wall;
    Arena **keep;            /* the workers' arenas, which the results point into */
    int nkeep;
    Allocator raw;           /* the context's hook */
} VariantSet;

/* Compiles every variant. RK_OK unless memory ran out (RK_ENOMEM) or the workers could not start;
 * variants that fail are marked, not errors. */
rk_status variants_build(rk_ctx *ctx, VariantSet *vs);
/* Frees what the workers made (labels, descriptions, code objects); call it once the results have been
 * used, whether or not variants_build succeeded. */
void variants_free(VariantSet *vs);

/* The number of cores to use (sched_getaffinity, at least 1). */
int variants_cores(void);

#endif
