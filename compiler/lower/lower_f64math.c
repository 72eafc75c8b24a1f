/* exp, exp2, log and log2 of f64 as rk's own functions, on every target that lowers (issue 23 item 17):
 * the GPUs have no f64 libm (LLVM would call `exp`, which no code object links), and the emulators run
 * the same functions, so that the run tests check on emu and emu_sm90 what gfx and sm_90 compute.
 * Within 2 ulps of the exact result (docs/language.md), by the classic reductions:
 *   exp(x)  = 2^k exp(r), k = rint(x / ln 2), r = x - k ln2_hi - k ln2_lo (Cody and Waite: ln2_hi has
 *             21 trailing zero bits, so k ln2_hi is exact for the k that matter), exp(r) by its Taylor
 *             series to r^13 (|r| <= ln 2 / 2: the rest is below 2^-60);
 *   exp2(x) = 2^k exp(f ln 2), k = rint(x), f = x - k exact, f ln 2 carried as a head and an fma'd tail;
 *   log(x)  = e ln 2 + log(m), x = 2^e m with m in [sqrt(1/2), sqrt(2)), log(1 + f) = f - s (f - R(s^2)),
 *             s = f / (2 + f), R = 2 s^2 / 3 + 2 s^4 / 5 + ... (atanh's series; s^2 <= 0.0295, 11 terms);
 *   log2(x) = e + log(m) / ln 2, one fma.
 * 2^k is applied as two factors 2^(k/2), each built from its exponent bits, so that results near the
 * overflow and subnormal ends are rounded once. The special values follow IEEE (NaN in, NaN out; exp
 * of +-inf +inf and 0; log of 0 -inf, of a negative number NaN). Each is one function per module,
 * straight-line code, called per element. */
#include "compiler/lower/lower_f64math.h"

LLVMValueRef fb_dc(Fb *f, double v) { return LLVMConstReal(f->d, v); }

LLVMValueRef fb_call1(Fb *f, const char *name, LLVMValueRef x)
{
    LLVMValueRef fn = lower_intrinsic(f->L, name, f->d, &f->d, 1);
    return LLVMBuildCall2(f->b, LLVMGlobalGetValueType(fn), fn, &x, 1, "");
}

LLVMValueRef fb_call2(Fb *f, const char *name, LLVMValueRef x, LLVMValueRef y)
{
    LLVMTypeRef pt[2] = {f->d, f->d};
    LLVMValueRef fn = lower_intrinsic(f->L, name, f->d, pt, 2);
    return LLVMBuildCall2(f->b, LLVMGlobalGetValueType(fn), fn, (LLVMValueRef[]){x, y}, 2, "");
}

LLVMValueRef fb_fma(Fb *f, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c)
{
    LLVMTypeRef pt[3] = {f->d, f->d, f->d};
    LLVMValueRef fn = lower_intrinsic(f->L, "llvm.fma.f64", f->d, pt, 3);
    return LLVMBuildCall2(f->b, LLVMGlobalGetValueType(fn), fn, (LLVMValueRef[]){a, b, c}, 3, "");
}

static LLVMValueRef cmp(Fb *f, LLVMRealPredicate p, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFCmp(f->b, p, a, b, ""); }

/* sum of c[i] x^i, i = 0 .. n-1, by Horner's rule with fma */
LLVMValueRef fb_horner(Fb *f, LLVMValueRef x, const double *c, int n)
{
    LLVMValueRef p = fb_dc(f, c[n - 1]);
    for (int i = n - 2; i >= 0; i--)
        p = fb_fma(f, p, x, fb_dc(f, c[i]));
    return p;
}

/* 2^k as a double, for an i32 k in [-1022, 1023] */
LLVMValueRef fb_pow2(Fb *f, LLVMValueRef k)
{
    LLVMValueRef e = LLVMBuildZExt(f->b, LLVMBuildAdd(f->b, k, LLVMConstInt(f->i32, 1023, 0), ""), f->i64, "");
    return LLVMBuildBitCast(f->b, LLVMBuildShl(f->b, e, LLVMConstInt(f->i64, 52, 0), ""), f->d, "");
}

/* p 2^k for an integral double k in [-1100, 1100]: two factors, each a normal power of two */
static LLVMValueRef scale(Fb *f, LLVMValueRef p, LLVMValueRef k)
{
    LLVMValueRef ki = LLVMBuildFPToSI(f->b, k, f->i32, "");
    LLVMValueRef k1 = LLVMBuildAShr(f->b, ki, LLVMConstInt(f->i32, 1, 0), "");
    LLVMValueRef k2 = LLVMBuildSub(f->b, ki, k1, "");
    return fb_mul(f, fb_mul(f, p, fb_pow2(f, k1)), fb_pow2(f, k2));
}

/* exp(r) for |r| <= ln 2 / 2 (a little more for exp2's rounding): Taylor to r^13 */
static LLVMValueRef exp_poly(Fb *f, LLVMValueRef r)
{
    double c[14];
    c[0] = 1;
    for (int i = 1; i < 14; i++)
        c[i] = c[i - 1] / i;
    return fb_horner(f, r, c, 14);
}

static const double LN2_HI = 6.93147180369123816490e-01; /* 0x3fe62e42fee00000 */
static const double LN2_LO = 1.90821492927058770002e-10; /* ln 2 - LN2_HI */
static const double LN2 = 0.69314718055994530942;
static const double INV_LN2 = 1.44269504088896338700;

static void build_exp(Fb *f, LLVMValueRef x, bool base2)
{
    /* past these, exp and exp2 are inf or 0 (or the smallest subnormal's half, which rounds to 0) */
    double hi = base2 ? 1025 : 710, lo = base2 ? -1080 : -746;
    LLVMValueRef xc = fb_call2(f, "llvm.minnum.f64", fb_call2(f, "llvm.maxnum.f64", x, fb_dc(f, lo)), fb_dc(f, hi));
    LLVMValueRef p, k;
    if (base2) {
        k = fb_call1(f, "llvm.rint.f64", xc);
        LLVMValueRef fr = fb_sub(f, xc, k);                 /* exact: |x| < 2^11 */
        LLVMValueRef r = fb_mul(f, fr, fb_dc(f, LN2));
        LLVMValueRef t = fb_fma(f, fr, fb_dc(f, LN2), LLVMBuildFNeg(f->b, r, "")); /* f ln2 - r, exact */
        t = fb_fma(f, fr, fb_dc(f, 2.3190468138462996e-17), t); /* ln 2 - LN2 */
        p = exp_poly(f, r);
        p = fb_fma(f, p, t, p);                             /* exp(r + t) = exp(r) (1 + t) */
    } else {
        k = fb_call1(f, "llvm.rint.f64", fb_mul(f, xc, fb_dc(f, INV_LN2)));
        LLVMValueRef rh = fb_fma(f, LLVMBuildFNeg(f->b, k, ""), fb_dc(f, LN2_HI), xc);
        LLVMValueRef r = fb_sub(f, rh, fb_mul(f, k, fb_dc(f, LN2_LO)));
        p = exp_poly(f, r);
    }
    LLVMValueRef res = scale(f, p, k);
    LLVMBuildRet(f->b, fb_sel(f, cmp(f, LLVMRealUNO, x, x), x, res));
}

static void build_log(Fb *f, LLVMValueRef x, bool base2)
{
    LLVMValueRef sub_n = cmp(f, LLVMRealOLT, x, fb_dc(f, 0x1p-1022));
    LLVMValueRef xs = fb_sel(f, sub_n, fb_mul(f, x, fb_dc(f, 0x1p54)), x); /* subnormals scaled into range */
    LLVMValueRef bits = LLVMBuildBitCast(f->b, xs, f->i64, "");
    LLVMValueRef eb = LLVMBuildTrunc(f->b, LLVMBuildLShr(f->b, bits, LLVMConstInt(f->i64, 52, 0), ""), f->i32, "");
    LLVMValueRef e = LLVMBuildSub(f->b, eb, fb_sel(f, sub_n, LLVMConstInt(f->i32, 1023 + 54, 0), LLVMConstInt(f->i32, 1023, 0)), "");
    LLVMValueRef mb = LLVMBuildOr(f->b, LLVMBuildAnd(f->b, bits, LLVMConstInt(f->i64, 0x000fffffffffffffull, 0), ""),
                                  LLVMConstInt(f->i64, 0x3ff0000000000000ull, 0), "");
    LLVMValueRef m = LLVMBuildBitCast(f->b, mb, f->d, ""); /* [1, 2) */
    LLVMValueRef big = cmp(f, LLVMRealOGT, m, fb_dc(f, 1.41421356237309504880));
    m = fb_sel(f, big, fb_mul(f, m, fb_dc(f, 0.5)), m);
    e = LLVMBuildAdd(f->b, e, LLVMBuildZExt(f->b, big, f->i32, ""), "");
    LLVMValueRef fr = fb_sub(f, m, fb_dc(f, 1));                  /* exact */
    LLVMValueRef s = LLVMBuildFDiv(f->b, fr, fb_add(f, fb_dc(f, 2), fr), "");
    LLVMValueRef z = fb_mul(f, s, s);
    double c[11];
    for (int i = 0; i < 11; i++)
        c[i] = 2.0 / (2 * i + 3);
    LLVMValueRef rz = fb_mul(f, z, fb_horner(f, z, c, 11));
    LLVMValueRef l1p = fb_sub(f, fr, fb_mul(f, s, fb_sub(f, fr, rz))); /* log(1 + f) */
    LLVMValueRef ed = LLVMBuildSIToFP(f->b, e, f->d, "");
    LLVMValueRef res;
    if (base2)
        res = fb_fma(f, l1p, fb_dc(f, INV_LN2), ed);
    else
        res = fb_fma(f, ed, fb_dc(f, LN2_HI), fb_fma(f, ed, fb_dc(f, LN2_LO), l1p));
    /* specials: NaN and negative numbers NaN, 0 -inf, +inf +inf */
    res = fb_sel(f, cmp(f, LLVMRealOEQ, x, fb_dc(f, 0)), fb_dc(f, -__builtin_inf()), res);
    res = fb_sel(f, cmp(f, LLVMRealOEQ, x, fb_dc(f, __builtin_inf())), x, res);
    res = fb_sel(f, cmp(f, LLVMRealULT, x, fb_dc(f, 0)), fb_dc(f, __builtin_nan("")), res);
    LLVMBuildRet(f->b, res);
}

LLVMValueRef fb_begin(Fb *f, Lower *L, const char *name)
{
    LLVMTypeRef d = L->f64;
    LLVMValueRef fn = LLVMAddFunction(L->mod, name, LLVMFunctionType(d, &d, 1, 0));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    *f = (Fb){L, LLVMCreateBuilderInContext(L->ctx), d, L->i64, L->i32};
    LLVMPositionBuilderAtEnd(f->b, LLVMAppendBasicBlockInContext(L->ctx, fn, "entry"));
    return fn;
}

static LLVMValueRef f64_function(Lower *L, OpCode code)
{
    const char *name = code == OP_EXP ? "rk.exp.f64" : code == OP_EXP2 ? "rk.exp2.f64" : code == OP_LOG ? "rk.log.f64" : "rk.log2.f64";
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, name);
    if (fn)
        return fn;
    Fb f;
    fn = fb_begin(&f, L, name);
    LLVMValueRef x = LLVMGetParam(fn, 0);
    if (code == OP_EXP || code == OP_EXP2)
        build_exp(&f, x, code == OP_EXP2);
    else
        build_log(&f, x, code == OP_LOG2);
    LLVMDisposeBuilder(f.b);
    return fn;
}

LLVMValueRef lower_f64_math(Lower *L, OpCode code, LLVMValueRef x)
{
    if (LLVMTypeOf(x) != L->f64)
        return NULL;
    LLVMValueRef fn;
    if (code == OP_SIN || code == OP_COS)
        fn = f64_trig_function(L, code == OP_COS);
    else if (code == OP_EXP || code == OP_EXP2 || code == OP_LOG || code == OP_LOG2)
        fn = f64_function(L, code);
    else
        return NULL;
    return LLVMBuildCall2(L->b, LLVMGlobalGetValueType(fn), fn, &x, 1, "");
}
