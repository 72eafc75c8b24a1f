/* Lowering: LIR (tile IR with layouts) to LLVM IR, one kernel at a time, through the LLVM C API.
 *
 * Every lane runs the same code (SIMT): a tile value becomes, in each lane, one LLVM value per
 * register of its layout; the layout says which element each register holds in each lane. The same
 * lowering serves every target: only the target's facts and hooks differ (compiler/target/
 * target_hooks.h) — lane and workgroup ids, barriers, LDS, cross-lane operations and matrix
 * instructions are AMDGPU or NVVM intrinsics on the GPUs and calls through EmuLane on the host. */
#ifndef RK_LOWER_H
#define RK_LOWER_H

#include <llvm-c/Core.h>

#include "compiler/layout/layout.h"
#include "compiler/lower/lower_choice.h"
#include "compiler/tir/tir.h"

struct Target;

/* The most padding after each row of a dot operand that waits in LDS for its dot, on targets without
 * warp MMA (lower_convert.c's operand_map, where no swizzle does better); allocate_lds reserves it. */
enum { DEFER_PAD_BYTES = 16 };

typedef struct LowerOptions {
    const struct Target *target; /* from compiler/target's table: its facts and hooks */
    bool debug;         /* device_assert and print active (always on for emu) */
    bool remarks;       /* collect the LDS remarks (lds_banks.c) into LowerResult */
    LowerChoice choice; /* all zero: the first lowering (lower_choice.h) */
} LowerOptions;

typedef struct LowerResult {
    int lds_bytes; /* LDS the kernel uses */
    int block;     /* work-items per workgroup */
    /* sm_90: the tensor maps the kernel takes after its parameters, one line each (lower_tma.c), or
     * NULL: what the runtime builds at launch (runtime/api/tma.c) */
    const char *tma;
    /* with LowerOptions.remarks: the LDS accesses that are narrower than 128 bits or meet in a bank,
     * allocated in the diagnostics' arena (compiler/passes/remark.h) */
    struct Remark *remarks;
    int nremarks;
    bool spends; /* a choice spent VGPRs for cycles (an LDS map by its clocks or spread wider, k steps
                    in pairs, reading further ahead, rows carried for the queue): lowered with
                    LowerOptions.choice.frugal, the kernel would differ */
    bool drain_capped; /* a dot's read-ahead for its drain stopped at DRAIN_MAX_AHEAD steps, where
                          its registers and loads allowed more: with DRAIN_DEEP (LowerChoice), the
                          kernel would differ */
    bool drain_raised; /* a dot read further ahead for its drain: with DRAIN_NONE (or
                          frugal) the kernel would differ */
    bool choice_read;  /* the lowering read LowerOptions.choice (a dot's read-ahead, an LDS map): where
                          it did not, every LowerChoice lowers the kernel the same */
} LowerResult;

/* Lowers one LIR kernel into `mod` (created by the caller in its own LLVMContext). Errors (an op or
 * type the target cannot do) are diagnostics; returns false after one. */
bool lower_kernel(Func *f, LLVMModuleRef mod, const LowerOptions *o, Diags *diags, LowerResult *out);

#endif
