/* Targets: the facts about each machine rk compiles for, and the allow-lists that keep LLVM from
 * aborting the process.
 *
 * A Target is constant data (one static table in target.c): the LLVM triple, CPU and features, the
 * wave size, the LDS (shared memory) budget, the register file, the matrix instructions, the address
 * spaces and the kernel calling convention. The lowering reads it; nothing writes it. The lowering
 * hooks that DESIGN.md puts next to these facts (lane ids, barriers, shuffles, MFMA operand layouts)
 * join the struct with the lowering itself.
 *
 *   gfx942  MI300X (CDNA3), the default      gfx90a  MI200 (CDNA2)      gfx950  MI350 (CDNA4)
 *   emu     the host (x86-64), running the code the gfx942 lowering produces through the
 *           emulator's ABI (runtime/emu/emu_abi.h): layouts, wave size and LDS are gfx942's
 *   sm_90   H100/H200 (NVPTX): PTX through LLVM's NVPTX back end
 *   emu_sm90 the host, running the code the sm_90 lowering produces (32-lane warps, mma.sync,
 *           ldmatrix, cp.async) through the same emulator ABI: layouts, wave size and shared memory
 *           are sm_90's
 *
 * Why allow-lists: LLVM 22 aborts the process (report_fatal_error, "LLVM ERROR: Cannot select")
 * when an intrinsic reaches instruction selection on a CPU that lacks it, and on some inputs it
 * crashes outright (llvm.amdgcn.s.barrier.signal on gfx9: SIGSEGV) or, worse, silently emits an
 * instruction the CPU does not have (llvm.amdgcn.cvt.scalef32.* on gfx90a/gfx942). An unknown CPU
 * name makes LLVM print a warning to stderr, ignore the CPU and later abort. So rk only ever hands
 * LLVM a CPU from this table, and target_check_module refuses, with a message, every target
 * intrinsic that is not on the target's list (default deny). Each entry of the lists was compiled
 * through llc-22 for each CPU; tests/data/codegen/intrinsics*.ll hold those modules and
 * tests/unit/test_codegen.c re-checks every one through rk's own codegen. */
#ifndef RK_TARGET_H
#define RK_TARGET_H

#include <llvm-c/Core.h>
#include <stdbool.h>
#include <stdint.h>

#include "runtime/emu/mfma_ref.h"
#include "support/arena.h"

typedef enum TargetKind {
    TARGET_AMDGPU, /* code object (.hsaco) through ld.lld -shared */
    TARGET_EMU,    /* host shared object (.so) through ld.lld -shared, dlopen'ed by the emulator */
    TARGET_NVPTX,  /* PTX text (and a cubin through ptxas, when asked) */
} TargetKind;

typedef struct Target {
    const char *name;     /* rk's name: gfx942, gfx90a, gfx950, emu, sm_90, emu_sm90 */
    TargetKind kind;
    const char *triple;   /* LLVM target triple */
    const char *cpu;      /* LLVM processor: always one LLVM 22 knows */
    const char *features; /* LLVM feature string ("" for AMDGPU: xnack and sramecc "any", so the code
                             object loads whichever mode the GPU runs in) */
    const char *arch;     /* whose layouts and limits the lowering uses: gfx942 for emu, sm_90 for emu_sm90 */
    const char *description;
    bool lowering;        /* false: the target is known, but rk cannot lower kernels for it yet */

    /* Execution model. "SIMD" is AMD's word; on NVIDIA read "SM sub-partition" (SMSP). */
    int wave_size;           /* lanes per wave (warp) */
    int max_workgroup_size;  /* work-items per workgroup (threads per block) */
    int simds_per_cu;        /* SIMDs per CU (SMSPs per SM) */
    int max_waves_per_simd;  /* resident waves per SIMD */
    int vgpr_file;           /* 32-bit vector registers per lane per SIMD (AGPRs included on CDNA) */
    int vgpr_granule;        /* allocation granule of vector registers per lane */
    int max_vgprs_per_lane;  /* architectural VGPRs + AGPRs one lane can address */
    /* LDS / shared memory, bytes */
    int lds_bytes;           /* most a workgroup can have (sm_90: with the opt-in attribute) */
    int lds_bytes_default;   /* without opt-in (sm_90: 48 KiB); = lds_bytes elsewhere */
    int lds_per_cu;          /* per CU (SM) */
    int lds_granule;         /* allocation granule */

    /* Matrix instructions: bit op set when EmuMfmaOp op exists on the target (emu: gfx942's set,
     * executed by the emulator). target_mfma_intrinsic gives the LLVM intrinsic for each. */
    uint32_t mfma_ops;

    /* LLVM address spaces and calling convention of a kernel */
    unsigned as_global, as_lds, as_constant, as_private;
    unsigned kernel_cc; /* LLVMCallConv: AMDGPU_KERNEL, PTX_Kernel, or C for emu */
    int code_object_version; /* AMDGPU: the amdhsa_code_object_version module flag (500); 0 else */
    const char *binary_ext;  /* file extension of the loadable binary: hsaco, so, ptx */
} Target;

/* The target named `name`, or NULL. Only targets from this table are handed to LLVM. */
const Target *target_find(const char *name);
/* The default target (gfx942). */
const Target *target_default(void);
/* The known targets in table order, for listings: target_at(i) for 0 <= i < target_count(). */
int target_count(void);
const Target *target_at(int i);
/* "gfx942, gfx90a, gfx950, emu, sm_90, emu_sm90": for "unknown target" messages. */
const char *target_names(void);

/* MFMA */
bool target_has_mfma(const Target *t, EmuMfmaOp op);
/* The LLVM intrinsic that performs op on AMDGPU ("llvm.amdgcn.mfma.f32.16x16x16bf16.1k"), NULL for
 * a bad op. The intrinsic's types follow IntrinsicsAMDGPU.td; whether the target has it is
 * target_has_mfma's answer. */
const char *target_mfma_intrinsic(EmuMfmaOp op);

/* Whether `llvm_name`, an intrinsic's base name (without overload suffixes: "llvm.amdgcn.readlane",
 * as LLVMIntrinsicGetName gives it), may reach LLVM for this target. Target-independent intrinsics
 * (llvm.fma, llvm.exp2, llvm.memcpy, ...) are always allowed; target intrinsics (llvm.amdgcn.*,
 * llvm.nvvm.*, llvm.x86.* and the other back ends' prefixes) only when on the target's list. */
bool target_supports_intrinsic(const Target *t, const char *llvm_name);

/* Walks the module's function declarations and checks, before any LLVM pass runs:
 *  - every target intrinsic is on the target's list (and the operands that matter are: the size of
 *    llvm.amdgcn.global.load.lds is 1, 2 or 4, or also 12 or 16 on gfx950);
 *  - no declaration named llvm.* that LLVM does not know as an intrinsic;
 *  - on GPU targets, no call to an external function (nothing could resolve it at load time).
 * Returns true when the module may go to LLVM; else false with every problem found, one a line, in
 * *msg (allocated in `a`). Never aborts: it only reads the module. */
bool target_check_module(const Target *t, LLVMModuleRef m, Arena *a, const char **msg);

#endif
