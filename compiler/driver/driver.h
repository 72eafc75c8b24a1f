/* The compiler driver: one source file through every stage to the requested one.
 *
 * Both rkc and rk_compile() call driver_compile. It owns the order of stages (front end, semantics,
 * TIR passes, layouts and LIR passes, lowering to LLVM, LLVM codegen, linking), their timings, and the
 * IR dumps RK_DUMP_IR asks for. The library never prints: dumps are handed to a sink, written to
 * RK_DUMP_DIR, or kept in the result for the caller. */
#ifndef RK_DRIVER_H
#define RK_DRIVER_H

#include <stddef.h>

#include "compiler/lower/lower_choice.h"
#include "compiler/sema/sema.h"

typedef enum Stage {
    STAGE_TOKENS,
    STAGE_AST,
    STAGE_TIR,
    STAGE_LIR,
    STAGE_LLVM,
    STAGE_ASM,
    STAGE_OBJ,
    STAGE_BIN, /* the loadable code: hsaco (gfx*), a shared object (emu), TIR text (interp), PTX (sm_90) */
} Stage;

/* Called once per dump: `stage` is "tir", a pass name, "lir", "llvm" or "asm". */
typedef void (*DumpSink)(void *ud, const char *stage, const char *kernel, const char *text);

typedef struct DriverOptions {
    const char *filename; /* for diagnostics and relative imports */
    const char *source;
    size_t len;
    const char *target; /* gfx942 (default), gfx90a, gfx950, emu, interp, sm_90 */
    const Define *defines;
    int ndefines;
    const char *const *incdirs;
    int nincdirs;
    const char *stdlib_dir;
    const char *kernel; /* only this kernel, or NULL */
    int opt_level;      /* LLVM -O level, 0..3 */
    const Config *config; /* an autotune config overriding consts and options, or NULL */
    const char *assume;   /* facts about run-time parameters (support/facts.h), or NULL */
    bool confine_imports; /* imports only from inside incdirs and stdlib_dir (untrusted source) */
    bool remarks;         /* collect performance remarks (DriverResult.remarks) */
    bool tir_input;       /* source is tile IR text (rkc -x tir): parsed and verified, then `passes` */
    /* every kernel lowered as it says (all zero: as written), with no retry of its own: an autotuned
     * variant's second compile (compiler/api/variants.c) */
    LowerChoice lower;
    const char *passes;   /* with tir_input: pass names, comma-separated (pass_table.c), or NULL for none */
    /* IR dumps: the RK_DUMP_IR value ("1", "all" or a list of stages such as "tir,llvm"), RK_DUMP_DIR,
     * and a sink for dumps that are not written to files (NULL: keep them in DriverResult.dumps). */
    const char *dump_ir;
    const char *dump_dir;
    DumpSink dump_sink;
    void *dump_ud;
} DriverOptions;

typedef struct Dump {
    const char *stage, *kernel, *text;
} Dump;

/* What the runtime needs about one compiled kernel. */
typedef struct DriverKernel {
    const KernelMeta *meta;
    const char *symbol;   /* its name in the binary */
    int block;            /* work-items per workgroup: num_warps * wave size */
    int lds_bytes;        /* static LDS (shared memory) */
    const char *grid_tir; /* the @grid function as TIR text, or NULL */
    const char *tma;      /* sm_90: the tensor maps it takes after its parameters (LowerResult), or NULL */
    const char *work;     /* its FLOPs and bytes as formulas (compiler/report/work.h) */
    bool spends_regs;     /* its lowering spent VGPRs for cycles (LowerResult.spends): a frugal one
                             would differ (the driver's retry, driver_frugal.c) */
    bool drain_capped;    /* a dot's drain read-ahead stopped at its cap (LowerResult.drain_capped):
                             one lowered with DRAIN_DEEP would differ */
    bool drain_raised;    /* a dot read further ahead for its drain (LowerResult.drain_raised) */
    LowerChoice lowered;  /* how its code was lowered: a retry's choice where the retry was kept (on
                             emu, the choice its gfx942 code was kept with) */
    bool choice_read;     /* its lowering read the choice (LowerResult.choice_read): another could
                             lower it differently */
} DriverKernel;

typedef struct DriverResult {
    Stage stage;
    char *text; /* tokens, ast, tir, lir, llvm, asm: the text form */
    void *binary; /* obj or bin */
    size_t size;
    SemaResult sema;
    DriverKernel *kernels;
    int nkernels;
    Dump *dumps;
    int ndumps;
    struct Remark *remarks; /* with DriverOptions.remarks: compiler/passes/passes.h */
    int nremarks;
    double ms_front, ms_sema, ms_passes, ms_lower, ms_opt, ms_codegen, ms_link;
    /* the same stages in CPU time: the calling thread's, plus ld.lld's for the link when it ran */
    double cpu_front, cpu_sema, cpu_passes, cpu_lower, cpu_opt, cpu_codegen, cpu_link;
} DriverResult;

/* Runs the stages up to `stop`. Errors are diagnostics; returns false after any. */
bool driver_compile(Arena *a, StrTab *strs, SrcMgr *src, Diags *diags, const DriverOptions *o, Stage stop,
                    DriverResult *out);

/* "tokens" → STAGE_TOKENS ...; -1 if unknown. */
int driver_stage_from_name(const char *name);
const char *driver_stage_name(Stage s);
/* Whether a stage is implemented for a target yet. */
bool driver_stage_available(const char *target, Stage s);

/* driver_frugal.c: what a kernel's code came to in registers, from a code object (binary) or, where
 * binary is NULL, from the metadata of its assembly; the retry's tests (the driver's, and autotuned
 * variants' in compiler/api/variants.c). With `cycles`, and a binary, each kernel's loops through
 * rk's loop model too (a disassembly: about 1.5 us an instruction). */
typedef struct RegFacts {
    const char *name;
    int vgprs, sgprs, lds, spills, block; /* .vgpr_count, .sgpr_count, LDS bytes, VGPRs spilled, work-items */
    int cycles; /* its loops' cycles an iteration by the loop model, summed (each loop's steady state,
                   as many as the report models, REPORT_MAX_LOOPS); 0: not modelled */
    int sgpr_spills, scratch; /* SGPRs spilled, scratch bytes a work-item */
} RegFacts;
int driver_reg_facts(Arena *a, const void *binary, size_t size, const char *asm_text, bool cycles, RegFacts **out);
struct KernelReport;
/* One kernel's facts from its code object report (compiler/target/amdgpu/report.h). */
RegFacts driver_reg_facts_of(const struct KernelReport *kr);
struct Target;
/* Spilled VGPRs, or fewer waves a SIMD than without its VGPRs (its LDS, workgroup and SGPRs the rest). */
bool driver_register_bound(const struct Target *t, const RegFacts *f);
/* The waves a SIMD of the next occupancy step a code without spills would take with a few VGPRs
 * fewer (at most a tenth fewer), where its VGPRs limit its waves; 0 where there is none. */
int driver_next_waves(const struct Target *t, const RegFacts *f);
/* What a kernel's retries are planned by, all from its first code and lowering: the waves a SIMD of
 * its next occupancy step where a few VGPRs stand between (driver_next_waves; 0: none near, or the
 * kernel asks for its waves), whether its lowering spent VGPRs for cycles (LowerResult.spends) where
 * the code is register-bound, whether a dot's drain read-ahead stopped at its cap
 * (LowerResult.drain_capped) where the loop model read the loops, whether a dot read ahead for its
 * drain (LowerResult.drain_raised). */
typedef struct RetryBasis {
    int waves;
    bool spends, capped, raised;
} RetryBasis;
RetryBasis driver_retry_basis(const struct Target *t, const RegFacts *first, const DriverKernel *dk, bool asks_waves);
/* The retries of a kernel, one a round (1, 2, ...). Where its code lost to its registers: compiled as
 * if it asked for the waves of its next occupancy step, its lowering otherwise as it was; frugally
 * where its lowering spent VGPRs for cycles; both at once; without its dots' read-ahead for their
 * drains alone where they read ahead so (DRAIN_NONE; a kernel takes part in rounds until one does
 * better, or while its best code still spills). Where it did not and a dot's drain read-ahead stopped
 * at its cap: with the cap lifted (DRAIN_DEEP). False where round `round` has none for it; else
 * *choice says how. */
enum { DRIVER_RETRY_ROUNDS = 4 };
bool driver_retry_plan(int round, const RetryBasis *b, LowerChoice *choice);
/* The second code spills fewer VGPRs, or as many and runs more waves a SIMD; a retry for cycles
 * (DRAIN_DEEP), no more VGPRs or SGPRs spilled, no more scratch, no fewer waves and its loops at
 * least DRIVER_RETRY_GAIN percent faster by the loop model (RegFacts.cycles, both modelled). */
enum { DRIVER_RETRY_GAIN = 1 };
bool driver_retry_better(const struct Target *t, const RegFacts *first, const RegFacts *second,
                         const LowerChoice *second_choice);

#endif
