/* The lowering's hooks: what a target family does its own way when LIR becomes LLVM IR.
 *
 * The lowering (compiler/lower) is one for every target: it calls these through the inline tgt_*
 * functions of lower_internal.h, which read L->t->hooks. Each family fills one table in its folder:
 *   amdgpu/lower_amdgpu.c  AMDGPU intrinsics: workitem and workgroup ids, s_barrier, ds_bpermute, MFMA,
 *                          LDS as an addrspace(3) global sized at the end, the grid from the dispatch
 *                          packet
 *   nvptx/lower_nvptx.c    NVVM intrinsics and inline PTX: tid, ctaid, bar.sync, shfl.sync, mma.sync,
 *                          ldmatrix, cp.async, wgmma, shared memory as one dynamic extern array
 *   emu/lower_emu.c        the same operations as calls through the EmuLane the emulator passes to every
 *                          lane (isa/emu_abi.h), for the architecture the target emulates
 * A NULL hook is an operation the family does not have (the lowering never asks for it there: the
 * layouts it is given come from the same target's facts) or, where said, a no-op. */
#ifndef RK_TARGET_HOOKS_H
#define RK_TARGET_HOOKS_H

#include <llvm-c/Core.h>
#include <stdbool.h>

#include "compiler/tir/tir.h"

struct Lower;

typedef struct TargetHooks {
    /* The kernel function with its signature (np parameters of the LIR kernel), and in the entry block
     * the parameters' values (lval_set), the ids L->tid, L->lds (and the emulator's lane pointer). */
    void (*signature)(struct Lower *L, int np);
    void (*entry)(struct Lower *L);
    void (*params)(struct Lower *L, int np);
    /* The wave index w, made uniform where the family keeps such values in scalar registers; NULL: w */
    LLVMValueRef (*uniform)(struct Lower *L, LLVMValueRef w);
    LLVMValueRef (*program_id)(struct Lower *L, int axis);
    LLVMValueRef (*num_programs)(struct Lower *L, int axis);
    void (*barrier)(struct Lower *L);
    /* The barrier before a reduction's LDS writes (its exchange's previous readers are done), which
     * orders LDS only, placed early in the current block, in its loads' shadow (amdgpu/barrier_early.c);
     * false where it placed none (the caller's `barrier` before the writes). NULL: always false. */
    bool (*lds_barrier_early)(struct Lower *L);
    LLVMValueRef (*shuffle)(struct Lower *L, LLVMValueRef value, LLVMValueRef src_lane);
    /* gfx9's DPP move of an i32 (llvm.amdgcn.update.dpp with full row and bank masks and bound_ctrl;
     * a lane with no source lane is undefined, and the lowering reads none) and v_readlane_b32 (a
     * uniform i32). NULL where the
     * family has none; the emulator's carry them for the gfx942 it emulates (compiler/lower/lower_xlane.c
     * asks whether the architecture has DPP before it calls them). */
    LLVMValueRef (*dpp)(struct Lower *L, LLVMValueRef value, int dpp_ctrl);
    LLVMValueRef (*readlane)(struct Lower *L, LLVMValueRef value, int lane);
    LLVMValueRef (*mfma)(struct Lower *L, int instr, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c);
    void (*mma_sync)(struct Lower *L, int instr, LLVMValueRef *a, LLVMValueRef *b, LLVMValueRef *acc);
    void (*ldmatrix_x4)(struct Lower *L, LLVMValueRef ptr, bool trans, LLVMValueRef *out);
    void (*cp_async)(struct Lower *L, LLVMValueRef dst, LLVMValueRef src, int bytes, LLVMValueRef mask);
    void (*cp_async_commit)(struct Lower *L);
    void (*cp_async_wait)(struct Lower *L, int n);
    /* NULL: a no-op (the GPUs, whose waves issue in order and whose accesses are not checked) */
    void (*wave_fence)(struct Lower *L);
    /* Before the branch of a masked store in a loop, given the values it stores: keeps them computed,
     * and the loads they come from issued, above the branch (lower_mem.c), where LLVM's optimisers
     * would sink them into it; may replace vals[i] by an equal value. AMD: an empty inline asm
     * through which each value passes; the emulator: a single-thread fence (the same order, nothing
     * to schedule). NULL: nothing (ptxas schedules the loads itself). */
    void (*keep_above)(struct Lower *L, LLVMValueRef *vals, int n);
    /* A fence for LLVM's instruction scheduler: no instruction moves across it except the kinds in
     * `allow` (AMD's llvm.amdgcn.sched.barrier mask: SCHED_ALLOW_*, compiler/lower/lower_internal.h).
     * NULL: nothing (the emulators run the code in program order; ptxas schedules its own). */
    void (*sched_barrier)(struct Lower *L, unsigned allow);
    /* Buffer addressing of a pointer parameter with the fact NAME<2G (Target.buffer_range32,
     * compiler/lower/lower_mem.c): the resource of a base pointer (built once, in the setup block),
     * and a load of type ty or a store of v at a 32-bit byte offset from it. An offset of 2^31 or more
     * is out of the resource's range: the load gives 0 and the store writes nothing. flags: the
     * access's EMU_ACCESS_* (the emulator checks the bytes in range as `check` does). */
    LLVMValueRef (*buffer_rsrc)(struct Lower *L, LLVMValueRef base);
    LLVMValueRef (*buffer_load)(struct Lower *L, LLVMValueRef rsrc, LLVMValueRef off, LLVMTypeRef ty, int flags);
    void (*buffer_store)(struct Lower *L, LLVMValueRef rsrc, LLVMValueRef off, LLVMValueRef v, int flags);
    /* The resource of `base` (rsrc, buffer_rsrc's) with no records where the uniform i1 `ok` is false,
     * so that every access through it is out of range, built where the builder is: a guard that holds
     * for the whole program instance, taken out of the lanes' masks (lower_buffer.c, uniform_guard). */
    LLVMValueRef (*buffer_guard)(struct Lower *L, LLVMValueRef base, LLVMValueRef rsrc, LLVMValueRef ok);
    /* v (an i32 of each lane) unchanged, through something LLVM's loop optimisations do not see through
     * (lower_buffer.c, buffer_carry_offsets). AMD: an empty asm; NULL: v itself. */
    LLVMValueRef (*opaque)(struct Lower *L, LLVMValueRef v);
    void (*check)(struct Lower *L, LLVMValueRef ptr, int bytes, LLVMValueRef flags);
    void (*assert_fail)(struct Lower *L, const char *msg);
    /* NULL: each failing register calls assert_fail (the GPUs). The emulator's: every lane calls it
     * once with whether all its elements hold (ok, i1), and the workgroup stops there together */
    void (*assert_point)(struct Lower *L, LLVMValueRef ok, const char *msg);
    void (*print)(struct Lower *L, const char *msg, int rank, LLVMValueRef *coords, int kind, LLVMValueRef bits64);
    void (*loop_tick)(struct Lower *L);
    /* a math function computed the family's own way, or NULL for LLVM's generic intrinsic */
    LLVMValueRef (*math)(struct Lower *L, OpCode code, LLVMValueRef a);
    /* whether a float remainder of type t (sk: the operands' type) takes rk's exact fmod function
     * instead of LLVM's frem */
    bool (*exact_frem)(struct Lower *L, LLVMTypeRef t, ScalarKind sk);
    LLVMValueRef (*smem_addr)(struct Lower *L, LLVMValueRef byte_offset);
    void (*fence_proxy_async)(struct Lower *L);
    void (*wgmma_fence)(struct Lower *L);
    void (*wgmma)(struct Lower *L, int instr, int n, const LLVMValueRef *a, int na, LLVMValueRef b_desc, bool trans_b,
                  LLVMValueRef *acc);
    void (*wgmma_commit)(struct Lower *L);
    void (*wgmma_wait)(struct Lower *L, LLVMValueRef *acc, int n, int pending);
    /* kernel attributes and the LDS's final size */
    void (*finish)(struct Lower *L);
} TargetHooks;

extern const TargetHooks amdgpu_hooks, nvptx_hooks, emu_hooks;
/* amdgpu/barrier_early.c: the block rearranged around barrier_lds(L), which appends the barrier; false
 * (nothing done) where the block's last access is not a global load */
bool amdgpu_lds_barrier_early(struct Lower *L, void (*barrier_lds)(struct Lower *L));
/* the families' code generation (amdgpu/codegen_amdgpu.c, nvptx/, emu/) */
extern const struct TargetCodegen amdgpu_codegen, nvptx_codegen, emu_codegen;

#endif
