/* Float remainder (C's fmod): LLVM's frem, or rk's exact function where the target's hook asks for it
 * (exact_frem: sm_90, whose frem expansion is inexact, and emu_sm90 with it; AMD GPUs for bf16). */
#include "compiler/lower/lower_internal.h"
#include "compiler/target/target_hooks.h"

/* fmod for sm_90, where LLVM's NVPTX back end expands frem as x - trunc(x / y) * y: wrong by far once
 * the quotient passes 2^24 (a remainder of 1.5e31 for 1e31 mod 0.7). The exact algorithm, in double
 * (which holds every f32 exactly): |y| doubled up to the largest b * 2^j <= |x|, then for j down to 0
 * subtract b * 2^j when it fits, each subtraction exact (Sterbenz: b 2^j <= a < b 2^(j+1)); the sign is
 * x's. NaN for an infinite x, y = 0 or a NaN; x when |x| < |y| (y infinite too). One function per
 * module, called per element: a loop of at most ~280 steps for f32 inputs, ~2100 for f64. emu_sm90 runs
 * the same function, so the run tests check it on the emulator as well as on the GPU. */
static LLVMValueRef fmod_function(Lower *L, LLVMTypeRef ft)
{
    const char *name = ft == L->f64 ? "rk.fmod.f64" : "rk.fmod.f32";
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, name);
    if (fn)
        return fn;
    LLVMTypeRef d = L->f64, pt[2] = {ft, ft};
    fn = LLVMAddFunction(L->mod, name, LLVMFunctionType(ft, pt, 2, 0));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(L->ctx);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(L->ctx, fn, "entry");
    LLVMBasicBlockRef up = LLVMAppendBasicBlockInContext(L->ctx, fn, "up");
    LLVMBasicBlockRef down = LLVMAppendBasicBlockInContext(L->ctx, fn, "down");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, fn, "done");
    LLVMBasicBlockRef small = LLVMAppendBasicBlockInContext(L->ctx, fn, "small");
    LLVMPositionBuilderAtEnd(b, entry);
    LLVMValueRef x = LLVMGetParam(fn, 0), y = LLVMGetParam(fn, 1);
    LLVMValueRef xd = ft == d ? x : LLVMBuildFPExt(b, x, d, ""), yd = ft == d ? y : LLVMBuildFPExt(b, y, d, "");
    LLVMValueRef fabs_fn = lower_intrinsic(L, "llvm.fabs.f64", d, &d, 1);
    LLVMValueRef a = LLVMBuildCall2(b, LLVMGlobalGetValueType(fabs_fn), fabs_fn, &xd, 1, "");
    LLVMValueRef bb = LLVMBuildCall2(b, LLVMGlobalGetValueType(fabs_fn), fabs_fn, &yd, 1, "");
    LLVMValueRef inf = LLVMConstReal(d, __builtin_inf());
    /* NaN: x infinite or NaN (not a < inf), y zero or NaN (not b > 0) */
    LLVMValueRef bad = LLVMBuildOr(b, LLVMBuildFCmp(b, LLVMRealUGE, a, inf, ""),
                                   LLVMBuildFCmp(b, LLVMRealULE, bb, LLVMConstReal(d, 0), ""), "");
    LLVMValueRef lt = LLVMBuildFCmp(b, LLVMRealOLT, a, bb, "");
    LLVMBuildCondBr(b, LLVMBuildOr(b, bad, lt, ""), small, up);
    /* up: m doubles while m + m <= a */
    LLVMPositionBuilderAtEnd(b, up);
    LLVMValueRef m = LLVMBuildPhi(b, d, "m");
    LLVMValueRef m2 = LLVMBuildFAdd(b, m, m, "");
    LLVMValueRef more = LLVMBuildFCmp(b, LLVMRealOLE, m2, a, "");
    LLVMValueRef m_in[2] = {bb, m2};
    LLVMBasicBlockRef m_from[2] = {entry, up};
    LLVMAddIncoming(m, m_in, m_from, 2);
    LLVMBuildCondBr(b, more, up, down);
    /* down: subtract m when it fits, halve it, until m < b */
    LLVMPositionBuilderAtEnd(b, down);
    LLVMValueRef r = LLVMBuildPhi(b, d, "r"), k = LLVMBuildPhi(b, d, "k");
    LLVMValueRef fits = LLVMBuildFCmp(b, LLVMRealOGE, r, k, "");
    LLVMValueRef r2 = LLVMBuildSelect(b, fits, LLVMBuildFSub(b, r, k, ""), r, "");
    LLVMValueRef k2 = LLVMBuildFMul(b, k, LLVMConstReal(d, 0.5), "");
    LLVMValueRef again = LLVMBuildFCmp(b, LLVMRealOGE, k2, bb, "");
    LLVMValueRef r_in[2] = {a, r2}, k_in[2] = {m, k2};
    LLVMBasicBlockRef rk_from[2] = {up, down};
    LLVMAddIncoming(r, r_in, rk_from, 2);
    LLVMAddIncoming(k, k_in, rk_from, 2);
    LLVMBuildCondBr(b, again, down, done);
    LLVMPositionBuilderAtEnd(b, done);
    LLVMValueRef res = ft == d ? r2 : LLVMBuildFPTrunc(b, r2, ft, ""); /* exact: a remainder of f32s */
    LLVMValueRef cs = lower_intrinsic(L, ft == d ? "llvm.copysign.f64" : "llvm.copysign.f32", ft, pt, 2);
    LLVMBuildRet(b, LLVMBuildCall2(b, LLVMGlobalGetValueType(cs), cs, (LLVMValueRef[]){res, x}, 2, ""));
    LLVMPositionBuilderAtEnd(b, small);
    LLVMBuildRet(b, LLVMBuildSelect(b, bad, LLVMConstReal(ft, __builtin_nan("")), x, ""));
    LLVMDisposeBuilder(b);
    return fn;
}

LLVMValueRef tgt_frem(Lower *L, LLVMValueRef a, LLVMValueRef b, ScalarKind sk)
{
    LLVMTypeRef t = LLVMTypeOf(a);
    bool (*exact)(Lower *, LLVMTypeRef, ScalarKind) = L->t->hooks->exact_frem;
    if (!exact || !exact(L, t, sk) || (t != L->f32 && t != L->f64))
        return LLVMBuildFRem(L->b, a, b, "");
    LLVMValueRef fn = fmod_function(L, t);
    return LLVMBuildCall2(L->b, LLVMGlobalGetValueType(fn), fn, (LLVMValueRef[]){a, b}, 2, "");
}
