/* The lowering's hooks for AMD GPUs (gfx90a, gfx942, gfx950): AMDGPU intrinsics for the workitem and
 * workgroup ids, s_barrier between workgroup-scope fences, ds_bpermute, the MFMA intrinsics; LDS as an
 * addrspace(3) global whose size is known at the end; the grid size from the dispatch packet; exp and
 * exp2 of f32 from v_exp_f32. */
#include <stdio.h>
#include <string.h>

#include "compiler/lower/lower_internal.h"
#include "compiler/target/target_hooks.h"

#define intr lower_typed_call

static void amdgpu_entry(Lower *L)
{
    LLVMBuilderRef b = L->setup;
    LLVMValueRef f = lower_intrinsic(L, "llvm.amdgcn.workitem.id.x", L->i32, NULL, 0);
    L->tid = lower_noundef(L, LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, NULL, 0, "tid"));
    /* LDS: a placeholder replaced by a global of the final size in amdgpu_finish */
    L->lds = LLVMAddGlobalInAddressSpace(L->mod, LLVMArrayType2(L->i8, 0), "rk.lds.placeholder", 3);
    LLVMSetLinkage(L->lds, LLVMExternalLinkage);
}

/* the wave index is uniform: keep it in a scalar register */
static LLVMValueRef amdgpu_uniform(Lower *L, LLVMValueRef w)
{
    LLVMValueRef f = lower_intrinsic(L, "llvm.amdgcn.readfirstlane.i32", L->i32, &L->i32, 1);
    return lower_noundef(L, LLVMBuildCall2(L->setup, LLVMGlobalGetValueType(f), f, &w, 1, "warp"));
}

static LLVMValueRef amdgpu_program_id(Lower *L, int axis)
{
    static const char *const names[] = {"llvm.amdgcn.workgroup.id.x", "llvm.amdgcn.workgroup.id.y",
                                        "llvm.amdgcn.workgroup.id.z"};
    return lower_noundef(L, lower_call(L, names[axis], L->i32, NULL, NULL, 0));
}

static LLVMValueRef amdgpu_num_programs(Lower *L, int axis)
{
    /* hsa_kernel_dispatch_packet_t: workgroup_size_x/y/z (u16) at 4, 6, 8; grid_size_x/y/z (u32, in
     * work-items) at 12, 16, 20 */
    LLVMTypeRef p4 = LLVMPointerTypeInContext(L->ctx, 4);
    LLVMValueRef dp = lower_call(L, "llvm.amdgcn.dispatch.ptr", p4, NULL, NULL, 0);
    LLVMValueRef gp = LLVMBuildGEP2(L->b, L->i8, dp, (LLVMValueRef[]){const_i64(L, 12 + 4 * axis)}, 1, "");
    LLVMValueRef wp = LLVMBuildGEP2(L->b, L->i8, dp, (LLVMValueRef[]){const_i64(L, 4 + 2 * axis)}, 1, "");
    LLVMValueRef g = LLVMBuildLoad2(L->b, L->i32, gp, "");
    LLVMValueRef w = LLVMBuildZExt(L->b, LLVMBuildLoad2(L->b, L->i16, wp, ""), L->i32, "");
    return LLVMBuildUDiv(L->b, g, w, "");
}

/* A workgroup-scope fence; `lds_only`: one for LDS alone (LLVM's MMRA for AMDGPU, as Triton's barriers
 * do: no wait for global accesses). */
static void wg_fence(Lower *L, LLVMAtomicOrdering order, bool lds_only)
{
    LLVMBuildFence(L->b, order, 0, "");
    LLVMValueRef fence = LLVMGetLastInstruction(LLVMGetInsertBlock(L->b));
    LLVMSetAtomicSyncScopeID(fence, LLVMGetSyncScopeID(L->ctx, "workgroup", 9));
    if (!lds_only)
        return;
    LLVMMetadataRef s[2] = {LLVMMDStringInContext2(L->ctx, "amdgpu-synchronize-as", 21),
                            LLVMMDStringInContext2(L->ctx, "local", 5)};
    LLVMSetMetadata(fence, LLVMGetMDKindIDInContext(L->ctx, "mmra", 4),
                    LLVMMetadataAsValue(L->ctx, LLVMMDNodeInContext2(L->ctx, s, 2)));
}

static void amdgpu_barrier(Lower *L)
{
    wg_fence(L, LLVMAtomicOrderingRelease, false);
    lower_call(L, "llvm.amdgcn.s.barrier", L->void_t, NULL, NULL, 0);
    wg_fence(L, LLVMAtomicOrderingAcquire, false);
}

static void amdgpu_sched_barrier(Lower *L, unsigned allow)
{
    LLVMValueRef m = const_i32(L, (int32_t)allow);
    lower_call(L, "llvm.amdgcn.sched.barrier", L->void_t, &L->i32, &m, 1);
}

/* A barrier for LDS alone, and sched_barrier(0) keeping LLVM's scheduler from moving anything across
 * (barrier_early.c chooses where it goes). */
static void amdgpu_barrier_lds(Lower *L)
{
    wg_fence(L, LLVMAtomicOrderingRelease, true);
    lower_call(L, "llvm.amdgcn.s.barrier", L->void_t, NULL, NULL, 0);
    wg_fence(L, LLVMAtomicOrderingAcquire, true);
    amdgpu_sched_barrier(L, 0);
}

static bool amdgpu_lds_barrier_early_hook(Lower *L)
{
    return amdgpu_lds_barrier_early(L, amdgpu_barrier_lds);
}

static LLVMValueRef amdgpu_shuffle(Lower *L, LLVMValueRef value, LLVMValueRef src_lane)
{
    LLVMValueRef addr = LLVMBuildShl(L->b, src_lane, const_i32(L, 2), "");
    LLVMTypeRef pt[2] = {L->i32, L->i32};
    LLVMValueRef args[2] = {addr, value};
    return lower_call(L, "llvm.amdgcn.ds.bpermute", L->i32, pt, args, 2);
}

static LLVMValueRef amdgpu_dpp(Lower *L, LLVMValueRef value, int dpp_ctrl)
{
    LLVMTypeRef pt[6] = {L->i32, L->i32, L->i32, L->i32, L->i32, L->i1};
    LLVMValueRef args[6] = {LLVMGetPoison(L->i32), value, const_i32(L, dpp_ctrl), const_i32(L, 0xF),
                            const_i32(L, 0xF), LLVMConstInt(L->i1, 1, 0)};
    return lower_call(L, "llvm.amdgcn.update.dpp.i32", L->i32, pt, args, 6);
}

static LLVMValueRef amdgpu_readlane(Lower *L, LLVMValueRef value, int lane)
{
    LLVMTypeRef pt[2] = {L->i32, L->i32};
    LLVMValueRef args[2] = {value, const_i32(L, lane)};
    return lower_call(L, "llvm.amdgcn.readlane.i32", L->i32, pt, args, 2);
}

static LLVMValueRef amdgpu_mfma(Lower *L, int instr, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c)
{
    const char *name = target_has_mfma(L->t, (MfmaOp)instr) ? target_mfma_intrinsic((MfmaOp)instr) : NULL;
    if (!name) {
        lower_error(L, "internal error: no intrinsic for matrix instruction %d", instr);
        return c;
    }
    LLVMTypeRef pt[6] = {LLVMTypeOf(a), LLVMTypeOf(b), LLVMTypeOf(c), L->i32, L->i32, L->i32};
    LLVMValueRef args[6] = {a, b, c, const_i32(L, 0), const_i32(L, 0), const_i32(L, 0)};
    /* noundef: the operands are loaded tiles and accumulators rk has defined. It ends SLP's poison
     * queries on every vector an accumulator is extracted from (they walked the mfma chain back
     * through its operands): 20% of the optimisation pipeline of a matmul, the same IR out of it */
    return lower_noundef(L, lower_call(L, name, LLVMTypeOf(c), pt, args, 6));
}

static void amdgpu_assert_fail(Lower *L, const char *msg)
{
    (void)msg;
    lower_call(L, "llvm.trap", L->void_t, NULL, NULL, 0);
}

/* exp2 and exp of f32 (not the emulator, which keeps LLVM's exp2 and exp): v_exp_f32 itself
 * (llvm.amdgcn.exp2), within 1 ulp, as Triton emits it. llvm.exp2.f32 would wrap it in a range
 * reduction that keeps results below 2^-126 (x < -126) as denormals: a compare, two selects, an add
 * and an ldexp per element; here such results may be flushed to zero. exp is 2^(x log2 e) with the
 * rounding error of x log2 e carried by FMAs (x*hi exactly split into t + e, then 2^t (1 + e ln 2)), so
 * large arguments keep their precision (within 2 ulps); outside |t| < 128 the correction is skipped:
 * 2^t is 0, inf or NaN there and e may be NaN. */
static LLVMValueRef amdgpu_math(Lower *L, OpCode c, LLVMValueRef a)
{
    if ((c != OP_EXP && c != OP_EXP2) || LLVMTypeOf(a) != L->f32)
        return NULL;
    if (c == OP_EXP2)
        return intr(L, "llvm.amdgcn.exp2", L->f32, &a, 1);
    const double l2e = 1.4426950408889634;
    const float l2e_hi = (float)l2e;
    LLVMValueRef hi = LLVMConstReal(L->f32, l2e_hi), lo = LLVMConstReal(L->f32, l2e - l2e_hi);
    LLVMValueRef t = LLVMBuildFMul(L->b, a, hi, "");
    LLVMValueRef e = intr(L, "llvm.fma", L->f32, (LLVMValueRef[]){a, hi, LLVMBuildFNeg(L->b, t, "")}, 3);
    e = intr(L, "llvm.fma", L->f32, (LLVMValueRef[]){a, lo, e}, 3);
    LLVMValueRef p = intr(L, "llvm.amdgcn.exp2", L->f32, &t, 1);
    LLVMValueRef q = LLVMBuildFMul(L->b, p, LLVMConstReal(L->f32, 0.6931471805599453), "");
    LLVMValueRef r = intr(L, "llvm.fma", L->f32, (LLVMValueRef[]){q, e, p}, 3);
    LLVMValueRef in = LLVMBuildFCmp(L->b, LLVMRealOLT, intr(L, "llvm.fabs", L->f32, &t, 1),
                                    LLVMConstReal(L->f32, 128.0), "");
    return LLVMBuildSelect(L->b, in, r, p, "");
}

/* A bf16 remainder (its operands widened to f32) takes the exact function: LLVM's InstCombine narrows
 * frem(fpext x, fpext y) back to a bf16 frem, which the AMDGPU back end cannot lower ("no libcall
 * available for frem", issue 23); the exact function is what sm_90 computes. */
static bool amdgpu_exact_frem(Lower *L, LLVMTypeRef t, ScalarKind sk)
{
    return sk == SK_BF16 && t == L->f32;
}

static void amdgpu_finish(Lower *L)
{
    char buf[32];
    snprintf(buf, sizeof buf, "1,%d", L->nw * L->wave);
    lower_fn_attr(L, "amdgpu-flat-work-group-size", buf);
    int waves = lower_waves_asked(L);
    if (waves > 0) {
        snprintf(buf, sizeof buf, "%d", waves);
        lower_fn_attr(L, "amdgpu-waves-per-eu", buf);
    }
    /* LDS: the global of the final size replaces the placeholder */
    LLVMValueRef ph = L->lds;
    if (LLVMGetFirstUse(ph)) {
        LLVMTypeRef at = LLVMArrayType2(L->i8, (uint64_t)L->lds_bytes);
        LLVMValueRef g = LLVMAddGlobalInAddressSpace(L->mod, at, "rk.lds", 3);
        LLVMSetLinkage(g, LLVMInternalLinkage);
        LLVMSetInitializer(g, LLVMGetUndef(at));
        LLVMSetAlignment(g, 16);
        LLVMReplaceAllUsesWith(ph, g);
    }
    LLVMDeleteGlobal(ph);
    L->lds = NULL;
}

/* The width of a scalar integer or float type; 0 for any other (a pointer). */
static unsigned scalar_bits(LLVMTypeRef t)
{
    switch (LLVMGetTypeKind(t)) {
    case LLVMIntegerTypeKind: return LLVMGetIntTypeWidth(t);
    case LLVMHalfTypeKind:
    case LLVMBFloatTypeKind: return 16;
    case LLVMFloatTypeKind: return 32;
    case LLVMDoubleTypeKind: return 64;
    default: return 0;
    }
}

/* keep_above: each value through an empty inline asm with side effects ("=v,0": the value in place,
 * no instruction), which LLVM's sinking passes neither move nor move loads past, so the arithmetic
 * and its waits stay on the loop's path above the store's branch. A value whose width is not whole
 * 32-bit registers gets a single-thread fence instead (the loads stay above; the arithmetic may
 * sink). */
static void amdgpu_keep_above(Lower *L, LLVMValueRef *vals, int n)
{
    bool fence = false;
    for (int i = 0; i < n; i++) {
        LLVMTypeRef t = LLVMTypeOf(vals[i]);
        bool vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
        unsigned bits = scalar_bits(vec ? LLVMGetElementType(t) : t) * (vec ? LLVMGetVectorSize(t) : 1);
        if (!bits || bits % 32 || bits > 128) {
            fence = true;
            continue;
        }
        LLVMTypeRef it = bits == 32 ? L->i32 : LLVMVectorType(L->i32, bits / 32);
        LLVMValueRef v = LLVMBuildBitCast(L->b, vals[i], it, "");
        v = tgt_inline_asm(L, it, &it, &v, 1, "", "=v,0");
        vals[i] = LLVMBuildBitCast(L->b, v, t, "");
    }
    if (fence)
        lower_compiler_barrier(L, NULL, 0);
}

/* Buffer addressing (lower_buffer.c, buffer_param). The resource: the base, stride 0 (a raw buffer, no
 * swizzle), num_records 2^31 (every offset the fact NAME<2G allows is in range, 2^31 itself is not),
 * and in its last word DST_SEL 0, NUM_FORMAT 7 and DATA_FORMAT 4 (32): the untyped buffer_load_dword*
 * ignore the format, but CDNA treats a resource whose DATA_FORMAT is 0 as out of range (Triton's AMD
 * backend uses the same word, 0x27000). Built once, in the setup block: SGPRs, as the base is. */
/* A call of an overloaded intrinsic, its declaration mangled for the overload types. */
static LLVMValueRef overloaded_call(Lower *L, LLVMBuilderRef b, const char *name, LLVMTypeRef *ovl, int novl,
                                    LLVMValueRef *args, int n)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(L->mod, id, ovl, (size_t)novl);
    return LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, args, (unsigned)n, "");
}

static LLVMValueRef amdgpu_buffer_rsrc(Lower *L, LLVMValueRef base)
{
    LLVMValueRef args[4] = {base, LLVMConstInt(L->i16, 0, 0), const_i64(L, (int64_t)1 << 31),
                            const_i32(L, (7 << 12) | (4 << 15))};
    LLVMTypeRef ot[2] = {LLVMPointerTypeInContext(L->ctx, 8), LLVMTypeOf(base)};
    return overloaded_call(L, L->setup, "llvm.amdgcn.make.buffer.rsrc", ot, 2, args, 4);
}

/* A guarded resource (lower_buffer.c, uniform_guard): num_records 2^31 where ok holds, else 0, which
 * puts every offset out of range whatever soffset and voffset are. The count is read from the first
 * lane (ok is one value for the program instance, and LLVM then keeps the resource in SGPRs without a
 * waterfall loop: one s_cselect_b32 an iteration for the pipeliner's guard). */
static LLVMValueRef amdgpu_buffer_guard(Lower *L, LLVMValueRef base, LLVMValueRef rsrc, LLVMValueRef ok)
{
    (void)rsrc;
    LLVMValueRef n = LLVMBuildSelect(L->b, ok, const_i32(L, (int)0x80000000u), const_i32(L, 0), "records");
    LLVMValueRef f = lower_intrinsic(L, "llvm.amdgcn.readfirstlane.i32", L->i32, &L->i32, 1);
    n = LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, &n, 1, "");
    LLVMValueRef args[4] = {base, LLVMConstInt(L->i16, 0, 0), LLVMBuildZExt(L->b, n, L->i64, ""),
                            const_i32(L, (7 << 12) | (4 << 15))};
    LLVMTypeRef ot[2] = {LLVMPointerTypeInContext(L->ctx, 8), LLVMTypeOf(base)};
    return overloaded_call(L, L->b, "llvm.amdgcn.make.buffer.rsrc", ot, 2, args, 4);
}

/* opaque: an empty asm without side effects ("=v,0": the value in place, no instruction), which
 * LLVM's scalar evolution does not see through; being free of side effects, it orders nothing. */
static LLVMValueRef amdgpu_opaque(Lower *L, LLVMValueRef v)
{
    LLVMTypeRef ft = LLVMFunctionType(L->i32, &L->i32, 1, 0);
    LLVMValueRef f = LLVMGetInlineAsm(ft, "", 0, "=v,0", 4, 0, 0, LLVMInlineAsmDialectATT, 0);
    LLVMValueRef c = LLVMBuildCall2(L->b, ft, f, &v, 1, "");
    /* touches no memory: dead when unused (a tile's registers other than its access groups' are) */
    LLVMAttributeRef none = LLVMCreateEnumAttribute(L->ctx, LLVMGetEnumAttributeKindForName("memory", 6), 0);
    LLVMAddCallSiteAttribute(c, LLVMAttributeFunctionIndex, none);
    LLVMAddCallSiteAttribute(c, LLVMAttributeFunctionIndex,
                             LLVMCreateEnumAttribute(L->ctx, LLVMGetEnumAttributeKindForName("nounwind", 8), 0));
    return c;
}

/* The type a buffer access moves: whole dwords as i32 or <n x i32>, narrower ones as i8 or i16 (the
 * intrinsics' legal types; Triton's getBufferOpType likewise). */
static LLVMTypeRef buffer_type(Lower *L, LLVMTypeRef t)
{
    bool vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
    unsigned bits = scalar_bits(vec ? LLVMGetElementType(t) : t) * (vec ? LLVMGetVectorSize(t) : 1);
    return bits == 8 ? L->i8 : bits == 16 ? L->i16 : bits == 32 ? L->i32 : LLVMVectorType(L->i32, bits / 32);
}

static LLVMValueRef amdgpu_buffer_load(Lower *L, LLVMValueRef rsrc, LLVMValueRef off, LLVMTypeRef ty, int flags)
{
    (void)flags;
    LLVMTypeRef bt = buffer_type(L, ty);
    LLVMValueRef args[4] = {rsrc, off, const_i32(L, 0), const_i32(L, 0)};
    LLVMValueRef v = overloaded_call(L, L->b, "llvm.amdgcn.raw.ptr.buffer.load", &bt, 1, args, 4);
    return LLVMBuildBitCast(L->b, v, ty, "");
}

static void amdgpu_buffer_store(Lower *L, LLVMValueRef rsrc, LLVMValueRef off, LLVMValueRef v, int flags)
{
    (void)flags;
    LLVMTypeRef bt = buffer_type(L, LLVMTypeOf(v));
    LLVMValueRef args[5] = {LLVMBuildBitCast(L->b, v, bt, ""), rsrc, off, const_i32(L, 0), const_i32(L, 0)};
    overloaded_call(L, L->b, "llvm.amdgcn.raw.ptr.buffer.store", &bt, 1, args, 5);
}

const TargetHooks amdgpu_hooks = {
    .signature = gpu_signature,
    .entry = amdgpu_entry,
    .params = gpu_params,
    .uniform = amdgpu_uniform,
    .program_id = amdgpu_program_id,
    .num_programs = amdgpu_num_programs,
    .barrier = amdgpu_barrier,
    .lds_barrier_early = amdgpu_lds_barrier_early_hook,
    .shuffle = amdgpu_shuffle,
    .dpp = amdgpu_dpp,
    .readlane = amdgpu_readlane,
    .mfma = amdgpu_mfma,
    .assert_fail = amdgpu_assert_fail,
    .math = amdgpu_math,
    .exact_frem = amdgpu_exact_frem,
    .keep_above = amdgpu_keep_above,
    .sched_barrier = amdgpu_sched_barrier,
    .buffer_rsrc = amdgpu_buffer_rsrc,
    .buffer_load = amdgpu_buffer_load,
    .buffer_guard = amdgpu_buffer_guard,
    .opaque = amdgpu_opaque,
    .buffer_store = amdgpu_buffer_store,
    .finish = amdgpu_finish,
};
