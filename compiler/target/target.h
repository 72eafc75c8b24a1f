/* Targets: the facts about each machine rk compiles for, and the allow-lists that keep LLVM from
 * aborting the process.
 *
 * A Target is constant data (one static table in target.c): the LLVM triple, CPU and features, the
 * wave size, the LDS (shared memory) budget, the register file, the matrix instructions, the address
 * spaces and the kernel calling convention. The lowering reads it; nothing writes it. Next to the facts,
 * each Target points to its family's lowering hooks (target_hooks.h), which live in the family's
 * folder: amdgpu/, nvptx/, emu/. Code outside compiler/target asks a Target for facts and hooks, never
 * for its name or family.
 *
 *   gfx942  MI300X (CDNA3), the default      gfx90a  MI200 (CDNA2)      gfx950  MI350 (CDNA4)
 *   emu     the host (x86-64), running the code the gfx942 lowering produces through the
 *           emulator's ABI (isa/emu_abi.h): layouts, wave size and LDS are gfx942's
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

#include "isa/mfma.h"
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
    /* 4-byte LDS banks served at once: the lanes of one access that together move 4 * lds_banks bytes
     * are served in one pass, and lanes meeting in a bank at different words one after another
     * (compiler/lower/lds_banks.c). CDNA2/3 and sm_90: 32 (128 bytes per clock); CDNA4: 64 (its LDS
     * reads 256 bytes per clock: Chips and Cheese, "AMD's CDNA 4 architecture announcement"). */
    int lds_banks;

    /* Matrix instructions: the MFMA family whose instructions it has (isa/mfma.def's last column:
     * MFMA_CDNA2, _CDNA3, _CDNA4; emu: gfx942's, executed by the emulator; 0: none).
     * target_mfma_intrinsic gives the LLVM intrinsic for each. */
    unsigned mfma_family;

    /* LLVM address spaces and calling convention of a kernel */
    unsigned as_global, as_lds, as_constant, as_private;
    unsigned kernel_cc; /* LLVMCallConv: AMDGPU_KERNEL, PTX_Kernel, or C for emu */
    int code_object_version; /* AMDGPU: the amdhsa_code_object_version module flag (500); 0 else */
    const char *binary_ext;  /* file extension of the loadable binary: hsaco, so, ptx */

    /* What the lowering asks of the machine, as facts rather than names (emu_sm90 has sm_90's). */
    const char *scope_cta, *scope_gpu; /* LLVM sync scopes of a workgroup and of the device; NULL: one
                                          scope (the host) */
    bool fenced_atomics;  /* ordered atomics are a relaxed one between fences (NVPTX drops the order) */
    bool soft_fp16;       /* 16-bit floats are i16 bit patterns converted in software (the emulator) */
    bool checked;         /* every access goes through the emulator's checks; assert and print always on */
    bool warp_mma;        /* mma.sync, ldmatrix and cp.async stage buffers (sm_90's warp-level path) */
    bool wgmma;           /* wgmma.mma_async layouts (sm_90a) */
    bool tma;             /* TMA copies into stage buffers (the GPU only: the emulator has none) */
    bool fp_contract;     /* a float product added or subtracted may be fused into one fma (LLVM's contract
                             flag on fmul, fadd, fsub): AMD's gfx targets and emu, not sm_90 */
    bool packed_f32;      /* f32 add, mul, fma on a register pair in one instruction (v_pk_*_f32): the
                             elementwise lowering makes <2 x float> ops (lower_fpmath.c) */
    bool max_by_parts;    /* no one-instruction NaN-propagating max: a chain of llvm.maximum/minimum is
                             rebuilt as a NaN-blind tree (max3) and one unordered test (lower_fpmath.c) */
    bool buffer_range32;  /* a global access through a pointer parameter with the fact NAME<2G is a buffer
                             instruction with a 32-bit offset (the hooks' buffer_load/store), and a
                             launch derives that fact from its allocation (runtime/api/spec.c): AMD's
                             gfx targets and emu */
    bool licm_stays_in_loop; /* outer loops keep the invariants of their inner loops (ptxas's registers) */
    int max_kernarg_bytes;   /* most bytes of parameters a kernel can take; 0: no known limit */
    const char *kernarg_by;  /* whose limit that is, for the message ("CUDA", "HIP") */
    int num_xcds;            /* accelerator complex dies a launch's workgroups are dealt across */
    /* The lowering's hooks: lane ids, barriers, LDS, cross-lane and matrix instructions, atomics'
     * scopes, math, the kernel's signature and attributes (compiler/target/target_hooks.h), one
     * table per family: amdgpu/, nvptx/, emu/. */
    const struct TargetHooks *hooks;
    /* Code generation and linking (its family's folder) */
    const struct TargetCodegen *codegen;
} Target;

/* How a target's objects become the loadable binary. */
typedef enum TargetLink {
    LINK_NONE,        /* none: the binary is the assembly text (PTX) */
    LINK_CODE_OBJECT, /* one AMDGPU code object: objects merged into one (one metadata note), linked by
                         rk's ELF linker, or ld.lld -shared --no-undefined with RK_LINK=lld */
    LINK_HOST_SO,     /* a host shared object: ld.lld -shared */
} TargetLink;

typedef struct TargetCodegen {
    const char *llvm_passes; /* the optimisation pipeline at -O2 and -O3; NULL: LLVM's default<On> */
    int max_codegen_level;   /* the code generator's level at most (0: -O's) */
    bool pic;                /* position-independent code (a shared object) */
    bool fast_isel_big_blocks; /* fast instruction selection for modules with very large blocks */
    void (*after_passes)(LLVMModuleRef m); /* the target's own rewrite of the optimised IR; NULL: none */
    TargetLink link;
    const char *link_output; /* the linker's output file name: out.hsaco, out.so */
} TargetCodegen;

/* The target named `name`, or NULL. Only targets from this table are handed to LLVM. */
const Target *target_find(const char *name);
/* The default target (gfx942). */
const Target *target_default(void);
/* The known targets in table order, for listings: target_at(i) for 0 <= i < target_count(). */
int target_count(void);
const Target *target_at(int i);
/* The target whose code objects judge how t's kernels are lowered where the driver's retries choose
 * (compiler/driver/driver_frugal.c): t where it makes AMDGPU code objects; for an emulator, the GPU
 * whose lowering it runs where that one does (emu: gfx942), so that it runs the code object's
 * lowering; NULL otherwise (PTX, the sm_90 emulator). */
const Target *target_code_object_judge(const Target *t);
/* "gfx942, gfx90a, gfx950, emu, sm_90, emu_sm90": for "unknown target" messages. */
const char *target_names(void);

/* "interp": the interpreter, which runs the tile IR itself. It is no machine, so it has no Target; the
 * driver stops before layouts for it. */
bool target_is_interp(const char *name);
/* A name the compiler takes: a Target's, or "interp". */
bool target_known(const char *name);
/* The file extension of what compiling for `name` writes (hsaco, so, ptx; tir for interp), NULL for an
 * unknown name. */
const char *target_output_ext(const char *name);

/* MFMA */
bool target_has_mfma(const Target *t, MfmaOp op);
/* The LLVM intrinsic that performs op on AMDGPU ("llvm.amdgcn.mfma.f32.16x16x16bf16.1k"), NULL for
 * a bad op. The intrinsic's types follow IntrinsicsAMDGPU.td; whether the target has it is
 * target_has_mfma's answer. */
const char *target_mfma_intrinsic(MfmaOp op);

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
