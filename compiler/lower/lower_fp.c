/* 16-bit floats in the lowering.
 *
 * On the GPU f16 and bf16 are LLVM's half and bfloat, and f16 arithmetic is native. On the emulator
 * (an x86-64 host without F16C) LLVM would turn every conversion into a compiler-rt call
 * (__truncsfhf2, __truncsfbf2, ...) that the process loading the kernel need not have; there the
 * values are kept as i16 bit patterns and converted with explicit integer code, rounding to nearest
 * even exactly as the GPU and the interpreter do. fp_up / fp_down bracket every arithmetic op:
 * a 16-bit operand goes up to a type LLVM computes in (f32, or native half on the GPU) and the result
 * comes back down, rounded once. */
#include "compiler/lower/lower_internal.h"
#include "support/fp16.h"

bool fp_is16(ScalarKind sk)
{
    return sk == SK_F16 || sk == SK_BF16;
}

static LLVMValueRef sel(Lower *L, LLVMValueRef c, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildSelect(L->b, c, a, b, "");
}

static LLVMValueRef u32(Lower *L, uint32_t v) { return LLVMConstInt(L->i32, v, 0); }

LLVMValueRef fp_to_f32(Lower *L, LLVMValueRef v, ScalarKind sk)
{
    if (!L->t->soft_fp16)
        return LLVMBuildFPExt(L->b, v, L->f32, "");
    LLVMValueRef h = LLVMBuildZExt(L->b, v, L->i32, "");
    if (sk == SK_BF16)
        return LLVMBuildBitCast(L->b, LLVMBuildShl(L->b, h, u32(L, 16), ""), L->f32, "");
    /* f16: sign, exponent, mantissa moved into place; subnormals scaled exactly */
    LLVMValueRef sign = LLVMBuildShl(L->b, LLVMBuildAnd(L->b, h, u32(L, 0x8000), ""), u32(L, 16), "");
    LLVMValueRef exp = LLVMBuildAnd(L->b, LLVMBuildLShr(L->b, h, u32(L, 10), ""), u32(L, 0x1F), "");
    LLVMValueRef mant = LLVMBuildAnd(L->b, h, u32(L, 0x3FF), "");
    LLVMValueRef normal = LLVMBuildOr(L->b, LLVMBuildShl(L->b, LLVMBuildAdd(L->b, exp, u32(L, 112), ""), u32(L, 23), ""),
                                      LLVMBuildShl(L->b, mant, u32(L, 13), ""), "");
    LLVMValueRef special = LLVMBuildOr(L->b, u32(L, 0x7F800000), LLVMBuildShl(L->b, mant, u32(L, 13), ""), "");
    LLVMValueRef sub = LLVMBuildBitCast(
        L->b, LLVMBuildFMul(L->b, LLVMBuildUIToFP(L->b, mant, L->f32, ""), LLVMConstReal(L->f32, 0x1p-24), ""), L->i32, "");
    LLVMValueRef bits = sel(L, LLVMBuildICmp(L->b, LLVMIntEQ, exp, u32(L, 0), ""), sub,
                            sel(L, LLVMBuildICmp(L->b, LLVMIntEQ, exp, u32(L, 0x1F), ""), special, normal));
    return LLVMBuildBitCast(L->b, LLVMBuildOr(L->b, bits, sign, ""), L->f32, "");
}

LLVMValueRef fp_from_f32(Lower *L, LLVMValueRef f, ScalarKind sk)
{
    if (!L->t->soft_fp16)
        return LLVMBuildFPTrunc(L->b, f, sk == SK_BF16 ? L->bf16 : L->f16, "");
    LLVMValueRef i = LLVMBuildBitCast(L->b, f, L->i32, "");
    LLVMValueRef sign = LLVMBuildAnd(L->b, LLVMBuildLShr(L->b, i, u32(L, 16), ""), u32(L, 0x8000), "");
    LLVMValueRef a = LLVMBuildAnd(L->b, i, u32(L, 0x7FFFFFFF), "");
    LLVMValueRef isnan = LLVMBuildICmp(L->b, LLVMIntUGT, a, u32(L, 0x7F800000), "");
    LLVMValueRef o;
    if (sk == SK_BF16) {
        LLVMValueRef lsb = LLVMBuildAnd(L->b, LLVMBuildLShr(L->b, i, u32(L, 16), ""), u32(L, 1), "");
        LLVMValueRef r = LLVMBuildLShr(L->b, LLVMBuildAdd(L->b, i, LLVMBuildAdd(L->b, u32(L, 0x7FFF), lsb, ""), ""),
                                       u32(L, 16), "");
        o = sel(L, isnan, LLVMBuildOr(L->b, sign, u32(L, 0x7FC0), ""), r);
    } else {
        /* round to nearest even (F. Giesen's float_to_half_fast3_rtne) */
        LLVMValueRef big = LLVMBuildICmp(L->b, LLVMIntUGE, a, u32(L, (127 + 16) << 23), "");
        LLVMValueRef inf = sel(L, isnan, u32(L, 0x7E00), u32(L, 0x7C00));
        LLVMValueRef tiny = LLVMBuildICmp(L->b, LLVMIntULT, a, u32(L, 113u << 23), "");
        LLVMValueRef magic = LLVMConstReal(L->f32, 0.5); /* ((127 - 15) + (23 - 10) + 1) << 23 */
        LLVMValueRef af = LLVMBuildBitCast(L->b, a, L->f32, "");
        LLVMValueRef d = LLVMBuildSub(L->b, LLVMBuildBitCast(L->b, LLVMBuildFAdd(L->b, af, magic, ""), L->i32, ""),
                                      u32(L, 0x3F000000), "");
        LLVMValueRef odd = LLVMBuildAnd(L->b, LLVMBuildLShr(L->b, a, u32(L, 13), ""), u32(L, 1), "");
        LLVMValueRef nrm = LLVMBuildAdd(L->b, a, u32(L, (uint32_t)(15 - 127) * (1u << 23) + 0xFFF), "");
        nrm = LLVMBuildLShr(L->b, LLVMBuildAdd(L->b, nrm, odd, ""), u32(L, 13), "");
        o = sel(L, big, inf, sel(L, tiny, d, nrm));
        o = LLVMBuildOr(L->b, o, sign, "");
    }
    return LLVMBuildTrunc(L->b, o, L->i16, "");
}

static LLVMValueRef fabs64(Lower *L, LLVMValueRef x)
{
    LLVMValueRef f = LLVMGetNamedFunction(L->mod, "llvm.fabs.f64");
    if (!f)
        f = LLVMAddFunction(L->mod, "llvm.fabs.f64", LLVMFunctionType(L->f64, &L->f64, 1, 0));
    return LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, &x, 1, "");
}

/* f64 to a 16-bit float with one rounding: to f32 rounding to odd, then to nearest even. */
LLVMValueRef fp_from_f64(Lower *L, LLVMValueRef d, ScalarKind sk)
{
    if (!L->t->soft_fp16)
        return LLVMBuildFPTrunc(L->b, d, sk == SK_BF16 ? L->bf16 : L->f16, "");
    LLVMValueRef f = LLVMBuildFPTrunc(L->b, d, L->f32, "");
    LLVMValueRef back = LLVMBuildFPExt(L->b, f, L->f64, "");
    LLVMValueRef inexact = LLVMBuildFCmp(L->b, LLVMRealONE, back, d, "");
    LLVMValueRef fb = LLVMBuildBitCast(L->b, f, L->i32, "");
    LLVMValueRef even = LLVMBuildICmp(L->b, LLVMIntEQ, LLVMBuildAnd(L->b, fb, u32(L, 1), ""), u32(L, 0), "");
    /* move one ulp toward d: up in magnitude when f fell short of |d| */
    LLVMValueRef shorter = LLVMBuildFCmp(L->b, LLVMRealOLT, fabs64(L, back), fabs64(L, d), "");
    LLVMValueRef adj = LLVMBuildAdd(L->b, fb, sel(L, shorter, u32(L, 1), u32(L, 0xFFFFFFFF)), "");
    LLVMValueRef odd = sel(L, LLVMBuildAnd(L->b, inexact, even, ""), adj, fb);
    return fp_from_f32(L, LLVMBuildBitCast(L->b, odd, L->f32, ""), sk);
}

LLVMValueRef fp_up(Lower *L, LLVMValueRef v, ScalarKind sk)
{
    if (sk == SK_BF16 || (sk == SK_F16 && L->t->soft_fp16))
        return fp_to_f32(L, v, sk);
    return v;
}

LLVMValueRef fp_down(Lower *L, LLVMValueRef v, ScalarKind sk)
{
    if (sk == SK_BF16 || (sk == SK_F16 && L->t->soft_fp16))
        return fp_from_f32(L, v, sk);
    return v;
}

LLVMValueRef fp_const(Lower *L, double v, ScalarKind sk)
{
    if (L->t->soft_fp16 && fp_is16(sk))
        return LLVMConstInt(L->i16, sk == SK_F16 ? f64_to_f16(v) : f64_to_bf16(v), 0);
    return LLVMConstReal(sk == SK_F16 ? L->f16 : sk == SK_BF16 ? L->bf16 : sk == SK_F32 ? L->f32 : L->f64, v);
}
