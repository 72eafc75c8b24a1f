/* sin, cos, log and log2 of f32 for sm_90 (and emu_sm90, which runs the same code): NVPTX has no libm,
 * and the approximate instructions (sin.approx, lg2.approx) are 3 to 9 ulps off, flush subnormals and
 * do not reduce large arguments (cos(3.4e38) came out 1). Each is an internal function of the module,
 * computed in double and rounded once to f32: within 1 ulp of the exact result for every f32 input
 * (sin, cos) and correctly rounded for log (checked against the host's double libm on 44 million
 * f32 inputs spread over every exponent, with a C transcription of these functions).
 *
 *   sin, cos  |x| < 2^-27: x and 1. |x| < 2^28: n = rint(x·2/π), y = (x - n·p1) - n·p1t with π/2 in
 *             25 + 53 bits (n·p1 exact). Larger (Payne–Hanek, in integers): x = m·2^k (k = e - 23),
 *             and 2^k·2/π modulo 4 depends only on 96 bits of 2/π from bit k - 1 on: the product of m
 *             with that window (i128) gives the quadrant (its top 2 bits) and the fraction f; y = f·π/2.
 *             Then fdlibm's minimax kernels for sin and cos on [-π/4, π/4] (musl's __sindf, __cosdf),
 *             chosen and signed by the quadrant (cos x = sin(x + π/2): the quadrant plus one).
 *   log       x = m·2^e with m in [√½, √2), s = (m - 1)/(m + 1), log m = 2s·Σ s^2k/(2k + 1), twelve
 *             terms; log2 = e + log m / ln 2. NaN below 0, -inf at 0, inf at inf. */
#include "compiler/lower/lower_internal.h"

/* fdlibm's kernels (|x| <= π/4, double): sin x ~ x + S1 x^3 + ..., cos x ~ 1 + C0 x^2 + ... */
static const double S1 = -0x15555554cbac77.0p-55, S2 = 0x111110896efbb2.0p-59, S3 = -0x1a00f9e2cae774.0p-65,
                    S4 = 0x16cd878c3b46a7.0p-71;
static const double C0 = -0x1ffffffd0c5e81.0p-54, C1 = 0x155553e1053a42.0p-57, C2 = -0x16c087e80f1e27.0p-62,
                    C3 = 0x199342e0ee5069.0p-68;
/* 2/π · 2^256, most significant 64 bits first */
static const uint64_t TWO_OVER_PI[4] = {0xa2f9836e4e441529ull, 0xfc2757d1f534ddc0ull, 0xdb6295993c439041ull,
                                        0xfe5163abdebbc561ull};

typedef struct Fb {
    Lower *L;
    LLVMBuilderRef b;
    LLVMValueRef fn;
    LLVMValueRef x, xd; /* the argument, and it in double */
} Fb;

static LLVMValueRef D(Fb *f, double v) { return LLVMConstReal(f->L->f64, v); }
static LLVMValueRef fadd(Fb *f, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFAdd(f->b, a, b, ""); }
static LLVMValueRef fsub(Fb *f, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFSub(f->b, a, b, ""); }
static LLVMValueRef fmul(Fb *f, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFMul(f->b, a, b, ""); }

static LLVMValueRef unary(Fb *f, const char *name, LLVMValueRef x)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef fn = LLVMGetNamedFunction(f->L->mod, name);
    if (!fn)
        fn = LLVMAddFunction(f->L->mod, name, LLVMFunctionType(t, &t, 1, 0));
    return LLVMBuildCall2(f->b, LLVMGlobalGetValueType(fn), fn, &x, 1, "");
}

static LLVMBasicBlockRef block(Fb *f, const char *name) { return LLVMAppendBasicBlockInContext(f->L->ctx, f->fn, name); }

/* A new internal function float(float), a builder at its entry and the argument (also as a double);
 * false (f->fn the existing one) when the module has it already. */
static bool begin(Fb *f, Lower *L, const char *name)
{
    f->L = L;
    f->fn = LLVMGetNamedFunction(L->mod, name);
    if (f->fn)
        return false;
    f->fn = LLVMAddFunction(L->mod, name, LLVMFunctionType(L->f32, &L->f32, 1, 0));
    LLVMSetLinkage(f->fn, LLVMInternalLinkage);
    f->b = LLVMCreateBuilderInContext(L->ctx);
    LLVMPositionBuilderAtEnd(f->b, block(f, "entry"));
    f->x = LLVMGetParam(f->fn, 0);
    f->xd = LLVMBuildFPExt(f->b, f->x, L->f64, "");
    return true;
}

static LLVMValueRef sin_kernel(Fb *f, LLVMValueRef x)
{
    LLVMValueRef z = fmul(f, x, x), w = fmul(f, z, z), r = fadd(f, D(f, S3), fmul(f, z, D(f, S4)));
    LLVMValueRef s = fmul(f, z, x);
    return fadd(f, fadd(f, x, fmul(f, s, fadd(f, D(f, S1), fmul(f, z, D(f, S2))))), fmul(f, fmul(f, s, w), r));
}

static LLVMValueRef cos_kernel(Fb *f, LLVMValueRef x)
{
    LLVMValueRef z = fmul(f, x, x), w = fmul(f, z, z), r = fadd(f, D(f, C2), fmul(f, z, D(f, C3)));
    return fadd(f, fadd(f, fadd(f, D(f, 1.0), fmul(f, z, D(f, C0))), fmul(f, w, D(f, C1))), fmul(f, fmul(f, w, z), r));
}

/* Payne–Hanek for |x| >= 2^28: the quadrant (i32, 0..3) and y (double, |y| <= π/4). */
static void reduce_large(Fb *f, LLVMValueRef x, LLVMValueRef *quad, LLVMValueRef *y)
{
    Lower *L = f->L;
    LLVMBuilderRef b = f->b;
    LLVMTypeRef i128 = LLVMIntTypeInContext(L->ctx, 128), i256 = LLVMIntTypeInContext(L->ctx, 256);
    LLVMValueRef u = LLVMBuildBitCast(b, x, L->i32, "");
    LLVMValueRef e = LLVMBuildSub(b, LLVMBuildAnd(b, LLVMBuildLShr(b, u, const_i32(L, 23), ""), const_i32(L, 255), ""),
                                  const_i32(L, 127), "");
    LLVMValueRef m = LLVMBuildOr(b, LLVMBuildAnd(b, u, const_i32(L, 0x7fffff), ""), const_i32(L, 0x800000), "");
    /* the window: 96 bits of 2/π from bit k - 1 = e - 24, i.e. (T >> (162 - k)) mod 2^96 */
    uint64_t words[4] = {TWO_OVER_PI[3], TWO_OVER_PI[2], TWO_OVER_PI[1], TWO_OVER_PI[0]}; /* least significant first */
    LLVMValueRef T = LLVMConstIntOfArbitraryPrecision(i256, 4, words);
    LLVMValueRef sh = LLVMBuildZExt(b, LLVMBuildSub(b, const_i32(L, 162 + 23), e, ""), i256, "");
    LLVMValueRef W = LLVMBuildTrunc(b, LLVMBuildLShr(b, T, sh, ""), i128, "");
    const uint64_t w96[2] = {~0ull, 0xffffffffull}, w94[2] = {0, 1ull << 30}, w94m[2] = {~0ull, (1ull << 30) - 1},
                   w93[2] = {0, 1ull << 29};
    LLVMValueRef mask96 = LLVMConstIntOfArbitraryPrecision(i128, 2, w96);
    W = LLVMBuildAnd(b, W, mask96, "");
    LLVMValueRef P = LLVMBuildAnd(b, LLVMBuildMul(b, LLVMBuildZExt(b, m, i128, ""), W, ""), mask96, "");
    LLVMValueRef q = LLVMBuildAnd(b, LLVMBuildTrunc(b, LLVMBuildLShr(b, P, LLVMConstInt(i128, 94, 0), ""), L->i32, ""),
                                  const_i32(L, 3), "");
    LLVMValueRef one94 = LLVMConstIntOfArbitraryPrecision(i128, 2, w94);
    LLVMValueRef fr = LLVMBuildAnd(b, P, LLVMConstIntOfArbitraryPrecision(i128, 2, w94m), "");
    /* a fraction of one half or more: the next quadrant, f - 1 */
    LLVMValueRef up = LLVMBuildICmp(b, LLVMIntUGE, fr, LLVMConstIntOfArbitraryPrecision(i128, 2, w93), "");
    LLVMValueRef mag = LLVMBuildSelect(b, up, LLVMBuildSub(b, one94, fr, ""), fr, "");
    q = LLVMBuildSelect(b, up, LLVMBuildAdd(b, q, const_i32(L, 1), ""), q, "");
    /* mag < 2^94 as a double: its top 64 bits and its low 30, each converted exactly or once rounded */
    LLVMValueRef hi = LLVMBuildTrunc(b, LLVMBuildLShr(b, mag, LLVMConstInt(i128, 30, 0), ""), L->i64, "");
    LLVMValueRef lo = LLVMBuildTrunc(b, LLVMBuildAnd(b, mag, LLVMConstInt(i128, (1u << 30) - 1, 0), ""), L->i64, "");
    LLVMValueRef fv = fadd(f, fmul(f, LLVMBuildUIToFP(b, hi, L->f64, ""), D(f, 0x1p-64)),
                           fmul(f, LLVMBuildUIToFP(b, lo, L->f64, ""), D(f, 0x1p-94)));
    fv = LLVMBuildSelect(b, up, LLVMBuildFNeg(b, fv, ""), fv, "");
    /* x negative: the mirror image */
    LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, u, const_i32(L, 0), "");
    q = LLVMBuildSelect(b, neg, LLVMBuildSub(b, const_i32(L, 0), q, ""), q, "");
    fv = LLVMBuildSelect(b, neg, LLVMBuildFNeg(b, fv, ""), fv, "");
    *quad = q;
    *y = fmul(f, fv, D(f, 1.5707963267948966));
}

static LLVMValueRef sincos_fn(Lower *L, bool is_cos)
{
    Fb f;
    if (!begin(&f, L, is_cos ? "rk.cos.f32" : "rk.sin.f32"))
        return f.fn;
    LLVMBuilderRef b = f.b;
    LLVMValueRef x = f.x, xd = f.xd, ax = unary(&f, "llvm.fabs.f64", xd);
    LLVMBasicBlockRef finite = block(&f, "finite"), special = block(&f, "special"), red = block(&f, "reduce"),
                      medium = block(&f, "medium"), large = block(&f, "large"), done = block(&f, "done");
    /* infinite or NaN: NaN; |x| < 2^-27: x or 1 */
    LLVMBuildCondBr(b, LLVMBuildFCmp(b, LLVMRealOLT, ax, D(&f, __builtin_inf()), ""), finite, special);
    LLVMPositionBuilderAtEnd(b, special);
    LLVMBuildRet(b, LLVMConstReal(L->f32, __builtin_nan("")));
    LLVMPositionBuilderAtEnd(b, finite);
    LLVMBasicBlockRef tiny = block(&f, "tiny");
    LLVMBuildCondBr(b, LLVMBuildFCmp(b, LLVMRealOLT, ax, D(&f, 0x1p-27), ""), tiny, red);
    LLVMPositionBuilderAtEnd(b, tiny);
    LLVMBuildRet(b, is_cos ? LLVMConstReal(L->f32, 1.0) : x);
    LLVMPositionBuilderAtEnd(b, red);
    LLVMBuildCondBr(b, LLVMBuildFCmp(b, LLVMRealOLT, ax, D(&f, 0x1p28), ""), medium, large);
    LLVMPositionBuilderAtEnd(b, medium);
    LLVMValueRef k = unary(&f, "llvm.rint.f64", fmul(&f, xd, D(&f, 0x1.45f306dc9c883p-1)));
    LLVMValueRef y1 = fsub(&f, fsub(&f, xd, fmul(&f, k, D(&f, 1.57079631090164184570e+00))),
                           fmul(&f, k, D(&f, 1.58932547735281966916e-08)));
    LLVMValueRef n1 = LLVMBuildFPToSI(b, k, L->i32, "");
    LLVMBuildBr(b, done);
    LLVMPositionBuilderAtEnd(b, large);
    LLVMValueRef n2, y2;
    reduce_large(&f, x, &n2, &y2);
    LLVMBasicBlockRef large_end = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, done);
    LLVMPositionBuilderAtEnd(b, done);
    LLVMValueRef y = LLVMBuildPhi(b, L->f64, "y"), n = LLVMBuildPhi(b, L->i32, "n");
    LLVMBasicBlockRef from[2] = {medium, large_end};
    LLVMAddIncoming(y, (LLVMValueRef[]){y1, y2}, from, 2);
    LLVMAddIncoming(n, (LLVMValueRef[]){n1, n2}, from, 2);
    /* sin by quadrant: sin, cos, -sin, -cos; cos x = sin of the next quadrant */
    LLVMValueRef q = LLVMBuildAnd(b, is_cos ? LLVMBuildAdd(b, n, const_i32(L, 1), "") : n, const_i32(L, 3), "");
    LLVMValueRef odd = LLVMBuildTrunc(b, q, L->i1, "");
    LLVMValueRef flip = LLVMBuildTrunc(b, LLVMBuildLShr(b, q, const_i32(L, 1), ""), L->i1, "");
    LLVMValueRef v = LLVMBuildSelect(b, odd, cos_kernel(&f, y), sin_kernel(&f, y), "");
    v = LLVMBuildSelect(b, flip, LLVMBuildFNeg(b, v, ""), v, "");
    LLVMBuildRet(b, LLVMBuildFPTrunc(b, v, L->f32, ""));
    LLVMDisposeBuilder(b);
    return f.fn;
}

static LLVMValueRef log_fn(Lower *L, bool base2)
{
    Fb f;
    if (!begin(&f, L, base2 ? "rk.log2.f32" : "rk.log.f32"))
        return f.fn;
    LLVMBuilderRef b = f.b;
    LLVMValueRef x = f.x, bits = LLVMBuildBitCast(b, f.xd, L->i64, "");
    LLVMValueRef e = LLVMBuildTrunc(b, LLVMBuildLShr(b, bits, const_i64(L, 52), ""), L->i32, "");
    e = LLVMBuildSub(b, LLVMBuildAnd(b, e, const_i32(L, 0x7ff), ""), const_i32(L, 1023), "");
    LLVMValueRef mb = LLVMBuildOr(b, LLVMBuildAnd(b, bits, const_i64(L, 0xfffffffffffffll), ""),
                                  const_i64(L, 0x3ff0000000000000ll), "");
    LLVMValueRef m = LLVMBuildBitCast(b, mb, L->f64, "");
    LLVMValueRef big = LLVMBuildFCmp(b, LLVMRealOGT, m, D(&f, 1.4142135623730951), "");
    m = LLVMBuildSelect(b, big, fmul(&f, m, D(&f, 0.5)), m, "");
    e = LLVMBuildSelect(b, big, LLVMBuildAdd(b, e, const_i32(L, 1), ""), e, "");
    LLVMValueRef s = LLVMBuildFDiv(b, fsub(&f, m, D(&f, 1.0)), fadd(&f, m, D(&f, 1.0)), "");
    LLVMValueRef z = fmul(&f, s, s), p = D(&f, 1.0 / 25);
    for (int k = 11; k >= 0; k--)
        p = fadd(&f, D(&f, 1.0 / (2 * k + 1)), fmul(&f, z, p));
    LLVMValueRef lm = fmul(&f, fmul(&f, D(&f, 2.0), s), p), ed = LLVMBuildSIToFP(b, e, L->f64, "");
    LLVMValueRef r = base2 ? fadd(&f, ed, fmul(&f, lm, D(&f, 1.4426950408889634)))
                           : fadd(&f, fmul(&f, ed, D(&f, 0.6931471805599453)), lm);
    LLVMValueRef rf = LLVMBuildFPTrunc(b, r, L->f32, "");
    /* below 0 or NaN: NaN; 0: -inf; inf: inf */
    LLVMValueRef zero = LLVMConstReal(L->f32, 0.0);
    rf = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, x, LLVMConstReal(L->f32, __builtin_inf()), ""), x, rf, "");
    rf = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, x, zero, ""), LLVMConstReal(L->f32, -__builtin_inf()), rf, "");
    rf = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealULT, x, zero, ""), LLVMConstReal(L->f32, __builtin_nan("")), rf, "");
    LLVMBuildRet(b, rf);
    LLVMDisposeBuilder(b);
    return f.fn;
}

LLVMValueRef nvmath_call(Lower *L, OpCode code, LLVMValueRef x)
{
    LLVMValueRef fn = code == OP_SIN || code == OP_COS ? sincos_fn(L, code == OP_COS) : log_fn(L, code == OP_LOG2);
    return LLVMBuildCall2(L->b, LLVMGlobalGetValueType(fn), fn, &x, 1, "");
}
