/* The lowering's hooks for NVIDIA sm_90 (NVPTX): NVVM intrinsics for tid, ctaid, nctaid, bar.sync,
 * shfl.sync, mma.sync, ldmatrix and cp.async; inline PTX for wgmma and the async-proxy fence (LLVM 22
 * has no intrinsics for them); shared memory as one dynamic extern addrspace(3) array sized at launch;
 * exp, log, sin, cos from the approximate instructions with corrections (NVPTX has no libm). */
#include <math.h>
#include <stdio.h>

#include "compiler/lower/lower_internal.h"
#include "compiler/target/target_hooks.h"
#include "isa/mfma.h"

#define call lower_call

static void nvptx_entry(Lower *L)
{
    LLVMBuilderRef b = L->setup;
    LLVMValueRef f = lower_intrinsic(L, "llvm.nvvm.read.ptx.sreg.tid.x", L->i32, NULL, 0);
    L->tid = lower_noundef(L, LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, NULL, 0, "tid"));
    /* dynamic shared memory: its size is given at launch (the kernel's lds_bytes) */
    L->lds = LLVMAddGlobalInAddressSpace(L->mod, LLVMArrayType2(L->i8, 0), "rk_smem", 3);
    LLVMSetLinkage(L->lds, LLVMExternalLinkage);
    LLVMSetAlignment(L->lds, 1024); /* the 128-byte swizzle of wgmma operands repeats every 1024 bytes */
}

static LLVMValueRef nvptx_program_id(Lower *L, int axis)
{
    static const char *const nv[] = {"llvm.nvvm.read.ptx.sreg.ctaid.x", "llvm.nvvm.read.ptx.sreg.ctaid.y",
                                     "llvm.nvvm.read.ptx.sreg.ctaid.z"};
    return lower_noundef(L, call(L, nv[axis], L->i32, NULL, NULL, 0));
}

static LLVMValueRef nvptx_num_programs(Lower *L, int axis)
{
    static const char *const nv[] = {"llvm.nvvm.read.ptx.sreg.nctaid.x", "llvm.nvvm.read.ptx.sreg.nctaid.y",
                                     "llvm.nvvm.read.ptx.sreg.nctaid.z"};
    return call(L, nv[axis], L->i32, NULL, NULL, 0);
}

/* bar.sync orders shared and global memory among the block's threads */
static void nvptx_barrier(Lower *L)
{
    LLVMValueRef zero = const_i32(L, 0);
    call(L, "llvm.nvvm.barrier.cta.sync.aligned.all", L->void_t, &L->i32, &zero, 1);
}

static LLVMValueRef nvptx_shuffle(Lower *L, LLVMValueRef value, LLVMValueRef src_lane)
{
    LLVMTypeRef pt[4] = {L->i32, L->i32, L->i32, L->i32};
    LLVMValueRef args[4] = {const_i32(L, -1), value, src_lane, const_i32(L, 31)};
    return call(L, "llvm.nvvm.shfl.sync.idx.i32", L->i32, pt, args, 4);
}

static void nvptx_mma_sync(Lower *L, int instr, LLVMValueRef *a, LLVMValueRef *b, LLVMValueRef *acc)
{
    LLVMTypeRef pt = LLVMTypeOf(a[0]);
    LLVMTypeRef params[10] = {pt, pt, pt, pt, pt, pt, L->f32, L->f32, L->f32, L->f32};
    LLVMValueRef args[10] = {a[0], a[1], a[2], a[3], b[0], b[1], acc[0], acc[1], acc[2], acc[3]};
    LLVMTypeRef rt = LLVMStructTypeInContext(L->ctx, (LLVMTypeRef[]){L->f32, L->f32, L->f32, L->f32}, 4, 0);
    const char *name = instr == NV_MMA_BF16 ? "llvm.nvvm.mma.m16n8k16.row.col.bf16"
                                            : "llvm.nvvm.mma.m16n8k16.row.col.f32.f32";
    LLVMValueRef r = call(L, name, rt, params, args, 10);
    for (int i = 0; i < 4; i++)
        acc[i] = LLVMBuildExtractValue(L->b, r, (unsigned)i, "");
}

static void nvptx_ldmatrix_x4(Lower *L, LLVMValueRef ptr, bool trans, LLVMValueRef *out)
{
    LLVMTypeRef rt = LLVMStructTypeInContext(L->ctx, (LLVMTypeRef[]){L->i32, L->i32, L->i32, L->i32}, 4, 0);
    LLVMTypeRef pt = L->ptr_lds;
    LLVMValueRef r = call(L, trans ? "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.trans.b16.p3"
                                   : "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3",
                          rt, &pt, &ptr, 1);
    for (int i = 0; i < 4; i++)
        out[i] = LLVMBuildExtractValue(L->b, r, (unsigned)i, "");
}

static void nvptx_cp_async(Lower *L, LLVMValueRef dst, LLVMValueRef src, int bytes, LLVMValueRef mask)
{
    /* .cg (L2 only) for 16 bytes, as Triton does; .ca for the narrower copies, which .cg lacks. With a
     * mask, the .s form: src-size 0 reads nothing and fills the destination with zeros. */
    char name[64];
    snprintf(name, sizeof name, "llvm.nvvm.cp.async.%s.shared.global.%d%s", bytes == 16 ? "cg" : "ca", bytes,
             mask ? ".s" : "");
    LLVMTypeRef pt[3] = {L->ptr_lds, L->ptr_g, L->i32};
    LLVMValueRef args[3] = {dst, src, mask ? LLVMBuildSelect(L->b, mask, const_i32(L, bytes), const_i32(L, 0), "") : NULL};
    call(L, name, L->void_t, pt, args, mask ? 3 : 2);
}

static void nvptx_cp_async_commit(Lower *L)
{
    call(L, "llvm.nvvm.cp.async.commit.group", L->void_t, NULL, NULL, 0);
}

static void nvptx_cp_async_wait(Lower *L, int n)
{
    LLVMValueRef v = const_i32(L, n);
    if (n < 0) /* wait_all: commit_group, then wait_group 0 */
        call(L, "llvm.nvvm.cp.async.wait.all", L->void_t, NULL, NULL, 0);
    else
        call(L, "llvm.nvvm.cp.async.wait.group", L->void_t, &L->i32, &v, 1);
}

static void nvptx_assert_fail(Lower *L, const char *msg)
{
    (void)msg;
    call(L, "llvm.trap", L->void_t, NULL, NULL, 0);
}

/* sm_90: LLVM's NVPTX back end has no libm; exp, log and the trigonometric functions are built from
 * the approximate instructions (ex2, lg2, sin, cos .approx.f32), which is what Triton's fast paths
 * emit too. exp carries the rounding error of x*log2(e) with an FMA so that large arguments keep
 * their precision; sin and cos reduce their argument to [-pi, pi] first (Cody-Waite, two parts of
 * 2*pi), where the instructions' absolute error is below 2^-20.9. 16-bit inputs compute in f32.
 * emu_sm90 runs the same code with the host's log2, sin and cos (correctly rounded or nearly) in
 * place of the approximate instructions: the range reductions and corrections are checked, the
 * instructions' own error is not modelled. */
LLVMValueRef nvptx_math(Lower *L, OpCode code, LLVMValueRef a)
{
    if (code != OP_EXP && code != OP_LOG && code != OP_LOG2 && code != OP_SIN && code != OP_COS)
        return NULL;
    LLVMTypeRef t = LLVMTypeOf(a);
    if (t != L->f32 && t != L->f16 && t != L->bf16)
        return NULL;
    LLVMValueRef x = t == L->f32 ? a : LLVMBuildFPExt(L->b, a, L->f32, "");
    if (code != OP_EXP) { /* accurate functions of our own (lower_nvmath.c) */
        LLVMValueRef r = nvmath_call(L, code, x);
        return t == L->f32 ? r : LLVMBuildFPTrunc(L->b, r, t, "");
    }
    /* exp: t = x*log2e rounded; e = its rounding error (exact by FMA) + x*log2e_lo; exp = 2^t (1 + e ln2) */
    LLVMTypeRef f1[1] = {L->f32}, f3[3] = {L->f32, L->f32, L->f32};
#define FMA(p, q, s) call(L, "llvm.fma.f32", L->f32, f3, (LLVMValueRef[]){p, q, s}, 3)
#define C(v) LLVMConstReal(L->f32, v)
    const double l2e = 1.4426950408889634, l2e_hi = (float)1.4426950408889634;
    LLVMValueRef th = LLVMBuildFMul(L->b, x, C(l2e_hi), "");
    LLVMValueRef e = FMA(x, C(l2e_hi), LLVMBuildFNeg(L->b, th, ""));
    e = FMA(x, C(l2e - l2e_hi), e);
    LLVMValueRef p = call(L, "llvm.exp2.f32", L->f32, f1, &th, 1);
    LLVMValueRef r = FMA(LLVMBuildFMul(L->b, p, C(0.6931471805599453), ""), e, p);
    /* x infinite (e is NaN then) or 2^t overflowed: the correction is NaN, 2^t is the answer */
    r = LLVMBuildSelect(L->b, LLVMBuildFCmp(L->b, LLVMRealUNO, r, r, ""), p, r, "");
#undef FMA
#undef C
    return t == L->f32 ? r : LLVMBuildFPTrunc(L->b, r, t, "");
}

/* fmod: LLVM's NVPTX back end expands frem as x - trunc(x / y) * y, wrong by far once the quotient
 * passes 2^24 (a remainder of 1.5e31 for 1e31 mod 0.7): f32 and f64 take rk's exact function
 * (lower_fmod.c). */
bool nvptx_exact_frem(Lower *L, LLVMTypeRef t, ScalarKind sk)
{
    (void)sk;
    return t == L->f32 || t == L->f64;
}

/* ---- wgmma (sm_90a): inline PTX, as LLVM 22 has no intrinsic for wgmma.mma_async ---- */

static LLVMValueRef nvptx_smem_addr(Lower *L, LLVMValueRef byte_offset)
{
    return LLVMBuildTrunc(L->b, LLVMBuildPtrToInt(L->b, tgt_lds_ptr(L, byte_offset), L->i64, ""), L->i32, "");
}

static void nvptx_fence_proxy_async(Lower *L)
{
    tgt_inline_asm(L, L->void_t, NULL, NULL, 0, "fence.proxy.async.shared::cta;", "~{memory}");
}

static void nvptx_wgmma_fence(Lower *L)
{
    tgt_inline_asm(L, L->void_t, NULL, NULL, 0, "wgmma.fence.sync.aligned;", "~{memory}");
}

/* wgmma.mma_async as inline PTX: acc[n/2] tied in and out; A as a descriptor (na = 1, i64: the
 * shared-memory form, with imm-trans-a 0) or as four 32-bit registers (na = 4: the register form,
 * which has no imm-trans-a); scale-d 1 (accumulate), scale-a/b 1. */
static void nvptx_wgmma(Lower *L, int instr, int n, const LLVMValueRef *a, int na, LLVMValueRef b_desc, bool trans_b,
                     LLVMValueRef *acc)
{
    int nacc = n / 2;
    /* Accumulators that are all +0 (a dot's first instruction without C): D = A x B (scale-d false),
     * the registers written only. Passed in, the zeros would be one register that the tied outputs
     * share with every other use of 0 (a TMA copy's coordinate), and ptxas then waits for the
     * wgmma before that use (C7517), serialising the dot. */
    bool zero = true;
    for (int i = 0; i < nacc && zero; i++) {
        LLVMBool lost;
        zero = LLVMIsUndef(acc[i]) ||
               (LLVMIsAConstantFP(acc[i]) && LLVMConstRealGetDouble(acc[i], &lost) == 0.0 &&
                !signbit(LLVMConstRealGetDouble(acc[i], &lost)));
    }
    int nin = zero ? 0 : nacc; /* operands before A's: the accumulators in, tied to the outputs */
    size_t cap = (size_t)nacc * 24 + 256;
    char *text = arena_alloc(L->a, cap), *cons = arena_alloc(L->a, cap);
    const char *ty = instr == NV_WGMMA_F16 ? "f16" : "bf16";
    int t = snprintf(text, cap, "{\n.reg .pred p;\nsetp.ne.b32 p, %d, 0;\nwgmma.mma_async.sync.aligned.m64n%dk16.f32.%s.%s {",
                     zero ? 0 : 1, n, ty, ty);
    int c = 0;
    for (int i = 0; i < nacc; i++) {
        t += snprintf(text + t, cap - (size_t)t, "%s$%d", i ? "," : "", i);
        c += snprintf(cons + c, cap - (size_t)c, "%s=f", i ? "," : "");
    }
    for (int i = 0; i < nin; i++)
        c += snprintf(cons + c, cap - (size_t)c, ",%d", i);
    t += snprintf(text + t, cap - (size_t)t, "}, %s", na > 1 ? "{" : "");
    for (int i = 0; i < na; i++) {
        t += snprintf(text + t, cap - (size_t)t, "%s$%d", i ? "," : "", nacc + nin + i);
        c += snprintf(cons + c, cap - (size_t)c, ",%s", na > 1 ? "r" : "l");
    }
    snprintf(cons + c, cap - (size_t)c, ",l");
    snprintf(text + t, cap - (size_t)t, "%s, $%d, p, 1, 1, %s%d;\n}", na > 1 ? "}" : "", nacc + nin + na,
             na > 1 ? "" : "0, ", trans_b ? 1 : 0);
    LLVMTypeRef *fields = ARENA_ARRAY(L->a, LLVMTypeRef, nacc);
    LLVMTypeRef *pt = ARENA_ARRAY(L->a, LLVMTypeRef, nin + na + 1);
    LLVMValueRef *args = ARENA_ARRAY(L->a, LLVMValueRef, nin + na + 1);
    for (int i = 0; i < nacc; i++)
        fields[i] = L->f32;
    for (int i = 0; i < nin; i++) {
        pt[i] = L->f32;
        args[i] = acc[i];
    }
    for (int i = 0; i < na; i++) {
        args[nin + i] = na > 1 ? LLVMBuildBitCast(L->b, a[i], L->i32, "") : a[i];
        pt[nin + i] = LLVMTypeOf(args[nin + i]);
    }
    pt[nin + na] = L->i64;
    args[nin + na] = b_desc;
    LLVMValueRef r = tgt_inline_asm(L, LLVMStructTypeInContext(L->ctx, fields, (unsigned)nacc, 0), pt, args,
                                nin + na + 1, text, cons);
    for (int i = 0; i < nacc; i++)
        acc[i] = LLVMBuildExtractValue(L->b, r, (unsigned)i, "");
}

static void nvptx_wgmma_commit(Lower *L)
{
    tgt_inline_asm(L, L->void_t, NULL, NULL, 0, "wgmma.commit_group.sync.aligned;", "~{memory}");
}

static void nvptx_wgmma_wait(Lower *L, LLVMValueRef *acc, int n, int pending)
{
    /* the accumulators pass through the wait: nothing reads them before it (register moves included) */
    size_t cap = (size_t)n * 8 + 64;
    char *cons = arena_alloc(L->a, cap), text[64];
    int c = 0;
    for (int i = 0; i < n; i++)
        c += snprintf(cons + c, cap - (size_t)c, "%s=f", i ? "," : "");
    for (int i = 0; i < n; i++)
        c += snprintf(cons + c, cap - (size_t)c, ",%d", i);
    snprintf(cons + c, cap - (size_t)c, "%s~{memory}", n ? "," : "");
    snprintf(text, sizeof text, "wgmma.wait_group.sync.aligned %d;", pending);
    LLVMTypeRef *fields = ARENA_ARRAY(L->a, LLVMTypeRef, n + 1);
    for (int i = 0; i < n; i++)
        fields[i] = L->f32;
    LLVMTypeRef rt = n > 1 ? LLVMStructTypeInContext(L->ctx, fields, (unsigned)n, 0) : n ? L->f32 : L->void_t;
    LLVMValueRef r = tgt_inline_asm(L, rt, fields, acc, n, text, cons);
    if (n == 1)
        acc[0] = r;
    for (int i = 0; n > 1 && i < n; i++)
        acc[i] = LLVMBuildExtractValue(L->b, r, (unsigned)i, "");
}

static void nvptx_finish(Lower *L)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%d", L->nw * L->wave);
    lower_fn_attr(L, "nvvm.maxntid", buf);
    if (!LLVMGetFirstUse(L->lds))
        LLVMDeleteGlobal(L->lds);
    L->lds = NULL;
}

const TargetHooks nvptx_hooks = {
    .signature = gpu_signature,
    .entry = nvptx_entry,
    .params = gpu_params,
    .program_id = nvptx_program_id,
    .num_programs = nvptx_num_programs,
    .barrier = nvptx_barrier,
    .shuffle = nvptx_shuffle,
    .mma_sync = nvptx_mma_sync,
    .ldmatrix_x4 = nvptx_ldmatrix_x4,
    .cp_async = nvptx_cp_async,
    .cp_async_commit = nvptx_cp_async_commit,
    .cp_async_wait = nvptx_cp_async_wait,
    .assert_fail = nvptx_assert_fail,
    .math = nvptx_math,
    .exact_frem = nvptx_exact_frem,
    .smem_addr = nvptx_smem_addr,
    .fence_proxy_async = nvptx_fence_proxy_async,
    .wgmma_fence = nvptx_wgmma_fence,
    .wgmma = nvptx_wgmma,
    .wgmma_commit = nvptx_wgmma_commit,
    .wgmma_wait = nvptx_wgmma_wait,
    .finish = nvptx_finish,
};
