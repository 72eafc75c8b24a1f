/* sin and cos of f64 as rk's own functions (issue 23 item 17; lower_f64math.c says why and where).
 *
 * Reduction to y = x - q pi/2, |y| <= pi/4 (a little more), carried as a double-double y0 + y1:
 *   - |x| < 2^20 pi/2: q = rint(x 2/pi), y = x - q P1 - q P2 - q P3 - q P3T, where P1, P2, P3 hold 33 bits
 *     of pi/2 each (so q Pi is exact) and P3T the next 53 (Cody and Waite, as fdlibm's medium case):
 *     every step an exact product and a TwoSum;
 *   - larger |x| (to 2^1024): Payne and Hanek. x = M 2^E with M a 53-bit integer, and x 2/pi mod 4 is
 *     M times a 192-bit window of the bits of 2/pi that starts two bits above x's unit (the bits before
 *     give multiples of 4, the bits after less than 2^-137), taken from TWO_OVER_PI by a funnel shift;
 *     the low 192 bits of the 245-bit product, in 32-bit limbs, are 2 bits of quadrant and 190 of
 *     fraction, rounded to the nearest quadrant and turned into a double-double times pi/2.
 * Then sin and cos of y0 + y1 by their Taylor series to y^17 and y^18 (|y| <= pi/4: the rest is below
 * 2^-60), with y1's first-order terms, and the quadrant's sign and swap. Straight-line code: both
 * reductions are computed and the one |x| asks for is selected. NaN and the infinities give NaN. */
#include "compiler/lower/lower_f64math.h"

/* The bits of 2/pi from the first, 32 to a word, after two words of zeros (so that a window may start
 * up to 64 bits before the binary point). Computed with Python's integers:
 *   pi = 16 atan(1/5) - 4 atan(1/239) in fixed point with 1420 fraction bits;
 *   words of floor(2^1248 * 2 / pi). The first word is 0xa2f9836e, as in fdlibm's table. */
static const uint32_t TWO_OVER_PI[41] = {
    0, 0,
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
    0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
    0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b,
    0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046, 0xfc7b6bab, 0xf0cfbc20,
};

/* pi/2 in pieces: three of 33 bits, then 53 (fdlibm's pio2_1, pio2_2, pio2_3, pio2_3t) */
static const double P1 = 1.57079632673412561417e+00, P2 = 6.07710050630396597660e-11,
                    P3 = 2.02226624871116645580e-21, P3T = 8.47842766036889956997e-32;
static const double PIO2_HI = 1.57079632679489655800e+00, PIO2_LO = 6.12323399573676603587e-17;

typedef struct Dd {
    LLVMValueRef hi, lo;
} Dd;

static LLVMValueRef i64c(Fb *f, uint64_t v) { return LLVMConstInt(f->i64, v, 0); }
static LLVMValueRef i32c(Fb *f, int v) { return LLVMConstInt(f->i32, (unsigned long long)(long long)v, 1); }

/* a + b exactly as hi + lo (Knuth's TwoSum: no order between |a| and |b| needed) */
static Dd two_sum(Fb *f, LLVMValueRef a, LLVMValueRef b)
{
    LLVMValueRef s = fb_add(f, a, b), bb = fb_sub(f, s, a);
    LLVMValueRef e = fb_add(f, fb_sub(f, a, fb_sub(f, s, bb)), fb_sub(f, b, bb));
    return (Dd){s, e};
}

/* hi + lo renormalised, |lo| <= ulp(hi) / 2 (Fast2Sum: |a| >= |b|) */
static Dd fast_sum(Fb *f, LLVMValueRef a, LLVMValueRef b)
{
    LLVMValueRef s = fb_add(f, a, b);
    return (Dd){s, fb_sub(f, b, fb_sub(f, s, a))};
}

/* medium reduction of a = |x| < 2^20 pi/2: y = a - q pi/2, q as a double */
static Dd reduce_medium(Fb *f, LLVMValueRef a, LLVMValueRef *q)
{
    LLVMValueRef k = fb_call1(f, "llvm.rint.f64", fb_mul(f, a, fb_dc(f, 6.36619772367581382433e-01)));
    LLVMValueRef nk = LLVMBuildFNeg(f->b, k, "");
    LLVMValueRef r = fb_fma(f, nk, fb_dc(f, P1), a);         /* exact: k P1 exact, and close to a */
    Dd y = two_sum(f, r, fb_mul(f, nk, fb_dc(f, P2)));           /* k P2 exact */
    Dd z = two_sum(f, y.hi, fb_mul(f, nk, fb_dc(f, P3)));        /* k P3 exact */
    LLVMValueRef lo = fb_add(f, fb_add(f, y.lo, z.lo), fb_mul(f, nk, fb_dc(f, P3T)));
    *q = k;
    return fast_sum(f, z.hi, lo);
}

/* word i of TWO_OVER_PI (an i32 index into the constant table) as an i64 */
static LLVMValueRef table_word(Fb *f, LLVMValueRef table, LLVMValueRef i)
{
    LLVMTypeRef at = LLVMArrayType2(f->i32, 41);
    LLVMValueRef idx[2] = {i32c(f, 0), i};
    LLVMValueRef p = LLVMBuildInBoundsGEP2(f->b, at, table, idx, 2, "");
    LLVMValueRef w = LLVMBuildLoad2(f->b, f->i32, p, "");
    return LLVMBuildZExt(f->b, w, f->i64, "");
}

static LLVMValueRef lo32(Fb *f, LLVMValueRef v) { return LLVMBuildAnd(f->b, v, i64c(f, 0xffffffffu), ""); }
static LLVMValueRef hi32(Fb *f, LLVMValueRef v) { return LLVMBuildLShr(f->b, v, i64c(f, 32), ""); }

/* Payne-Hanek reduction of a = |x| >= 2^20 pi/2 (any double; garbage, never a trap, for smaller ones:
 * the exponent is clamped so that the table is always read inside). q: the quadrant as an i64. */
static Dd reduce_large(Fb *f, LLVMValueRef table, LLVMValueRef a, LLVMValueRef *q)
{
    LLVMValueRef bits = LLVMBuildBitCast(f->b, a, f->i64, "");
    LLVMValueRef ex = LLVMBuildTrunc(f->b, LLVMBuildLShr(f->b, bits, i64c(f, 52), ""), f->i32, "");
    LLVMValueRef m = LLVMBuildOr(f->b, LLVMBuildAnd(f->b, bits, i64c(f, 0x000fffffffffffffull), ""), i64c(f, 1ull << 52), "");
    /* x = m 2^e, e = ex - 1075 in [-32, 971] for the x that take this path; the window starts at bit
     * j0 + 1 = e - 1 of 2/pi, bit jj + 1 of the table with its 64 leading zeros */
    LLVMValueRef e = LLVMBuildSub(f->b, ex, i32c(f, 1075), "");
    LLVMValueRef lt = LLVMBuildICmp(f->b, LLVMIntSLT, e, i32c(f, -32), "");
    e = fb_sel(f, lt, i32c(f, -32), e);
    LLVMValueRef gt = LLVMBuildICmp(f->b, LLVMIntSGT, e, i32c(f, 971), "");
    e = fb_sel(f, gt, i32c(f, 971), e);
    LLVMValueRef jj = LLVMBuildAdd(f->b, e, i32c(f, 62), "");               /* (e - 2) + 64 >= 30 */
    LLVMValueRef w0 = LLVMBuildLShr(f->b, jj, i32c(f, 5), "");
    LLVMValueRef o = LLVMBuildZExt(f->b, LLVMBuildAnd(f->b, jj, i32c(f, 31), ""), f->i64, "");
    LLVMValueRef sh = LLVMBuildSub(f->b, i64c(f, 32), o, "");
    /* the window's six 32-bit limbs, a[0] the least significant: limb t (from the top) is bits
     * 32 t + 1 .. 32 t + 32 after the shift by o */
    LLVMValueRef a32[6];
    LLVMValueRef w = table_word(f, table, w0);
    for (int t = 0; t < 6; t++) {
        LLVMValueRef next = table_word(f, table, LLVMBuildAdd(f->b, w0, i32c(f, t + 1), ""));
        LLVMValueRef pair = LLVMBuildOr(f->b, LLVMBuildShl(f->b, w, i64c(f, 32), ""), next, "");
        a32[5 - t] = lo32(f, LLVMBuildLShr(f->b, pair, sh, ""));
        w = next;
    }
    /* the low 192 bits of m * window: m = m1 2^32 + m0 */
    LLVMValueRef m0 = lo32(f, m), m1 = hi32(f, m);
    LLVMValueRef r[6], carry = i64c(f, 0);
    for (int i = 0; i < 6; i++) {
        LLVMValueRef t = LLVMBuildAdd(f->b, LLVMBuildMul(f->b, m0, a32[i], ""), carry, "");
        r[i] = lo32(f, t);
        carry = hi32(f, t);
    }
    carry = i64c(f, 0);
    for (int i = 0; i + 1 < 6; i++) {
        LLVMValueRef t = LLVMBuildAdd(f->b, LLVMBuildAdd(f->b, r[i + 1], LLVMBuildMul(f->b, m1, a32[i], ""), ""), carry, "");
        r[i + 1] = lo32(f, t);
        carry = hi32(f, t);
    }
    /* quadrant: the top 2 bits; fraction: the 190 below, as a double-double in [0, 1) */
    LLVMValueRef quad = LLVMBuildLShr(f->b, r[5], i64c(f, 30), "");
    LLVMValueRef t1 = fb_mul(f, LLVMBuildUIToFP(f->b, LLVMBuildAnd(f->b, r[5], i64c(f, 0x3fffffff), ""), f->d, ""), fb_dc(f, 0x1p-30));
    LLVMValueRef t2 = fb_mul(f, LLVMBuildUIToFP(f->b, r[4], f->d, ""), fb_dc(f, 0x1p-62));
    LLVMValueRef t3 = fb_mul(f, LLVMBuildUIToFP(f->b, r[3], f->d, ""), fb_dc(f, 0x1p-94));
    LLVMValueRef t4 = fb_mul(f, LLVMBuildUIToFP(f->b, r[2], f->d, ""), fb_dc(f, 0x1p-126));
    Dd s = two_sum(f, t1, t2);
    Dd s3 = two_sum(f, s.hi, t3);
    Dd s4 = two_sum(f, s3.hi, t4);
    Dd fr = fast_sum(f, s4.hi, fb_add(f, fb_add(f, s.lo, s3.lo), s4.lo));
    /* to the nearest quadrant: a fraction of 1/2 or more is the next quadrant's negative one */
    LLVMValueRef up = LLVMBuildFCmp(f->b, LLVMRealOGE, fr.hi, fb_dc(f, 0.5), "");
    fr.hi = fb_sel(f, up, fb_sub(f, fr.hi, fb_dc(f, 1)), fr.hi); /* exact */
    *q = LLVMBuildAdd(f->b, quad, LLVMBuildZExt(f->b, up, f->i64, ""), "");
    fr = fast_sum(f, fr.hi, fr.lo);
    /* times pi/2 */
    LLVMValueRef p = fb_mul(f, fr.hi, fb_dc(f, PIO2_HI));
    LLVMValueRef err = fb_fma(f, fr.hi, fb_dc(f, PIO2_HI), LLVMBuildFNeg(f->b, p, ""));
    err = fb_fma(f, fr.hi, fb_dc(f, PIO2_LO), fb_fma(f, fr.lo, fb_dc(f, PIO2_HI), err));
    return fast_sum(f, p, err);
}

/* sin(y0 + y1) and cos(y0 + y1) for |y0| <= pi/4 */
static LLVMValueRef kernel_sin(Fb *f, Dd y)
{
    double c[8]; /* (-1)^(i+1) / (2i + 3)!, i = 0 .. 7: y^3 .. y^17 */
    double fact = 1;
    for (int i = 0, n = 1; i < 8; i++) {
        for (; n < 2 * i + 3;)
            fact *= ++n;
        c[i] = (i % 2 ? 1 : -1) / fact;
    }
    LLVMValueRef z = fb_mul(f, y.hi, y.hi);
    LLVMValueRef poly = fb_mul(f, fb_mul(f, y.hi, z), fb_horner(f, z, c, 8));
    LLVMValueRef tail = fb_mul(f, y.lo, fb_fma(f, z, fb_dc(f, -0.5), fb_dc(f, 1)));
    return fb_add(f, y.hi, fb_add(f, poly, tail));
}

static LLVMValueRef kernel_cos(Fb *f, Dd y)
{
    double c[8]; /* (-1)^i / (2i + 4)!, i = 0 .. 7: y^4 .. y^18 */
    double fact = 2;
    for (int i = 0, n = 2; i < 8; i++) {
        for (; n < 2 * i + 4;)
            fact *= ++n;
        c[i] = (i % 2 ? -1 : 1) / fact;
    }
    LLVMValueRef z = fb_mul(f, y.hi, y.hi), hz = fb_mul(f, z, fb_dc(f, 0.5));
    LLVMValueRef w = fb_sub(f, fb_dc(f, 1), hz);
    LLVMValueRef rest = fb_sub(f, fb_mul(f, fb_mul(f, z, z), fb_horner(f, z, c, 8)), fb_mul(f, y.hi, y.lo));
    return fb_add(f, w, fb_add(f, fb_sub(f, fb_sub(f, fb_dc(f, 1), w), hz), rest)); /* 1 - hz with its error */
}

LLVMValueRef f64_trig_function(Lower *L, bool cosine)
{
    const char *name = cosine ? "rk.cos.f64" : "rk.sin.f64";
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, name);
    if (fn)
        return fn;
    LLVMValueRef table = LLVMGetNamedGlobal(L->mod, "rk.two_over_pi");
    if (!table) {
        LLVMValueRef w[41];
        for (int i = 0; i < 41; i++)
            w[i] = LLVMConstInt(L->i32, TWO_OVER_PI[i], 0);
        table = LLVMAddGlobalInAddressSpace(L->mod, LLVMArrayType2(L->i32, 41), "rk.two_over_pi", (unsigned)L->t->as_constant);
        LLVMSetInitializer(table, LLVMConstArray2(L->i32, w, 41));
        LLVMSetGlobalConstant(table, 1);
        LLVMSetLinkage(table, LLVMInternalLinkage);
        LLVMSetAlignment(table, 4);
    }
    Fb f;
    fn = fb_begin(&f, L, name);
    LLVMValueRef x = LLVMGetParam(fn, 0);
    LLVMValueRef a = fb_call1(&f, "llvm.fabs.f64", x);
    LLVMValueRef qm, ql;
    Dd ym = reduce_medium(&f, a, &qm);
    Dd yl = reduce_large(&f, table, a, &ql);
    LLVMValueRef large = LLVMBuildFCmp(f.b, LLVMRealOGE, a, fb_dc(&f, 1647099.3291652855), ""); /* 2^20 pi/2 */
    Dd y = {fb_sel(&f, large, yl.hi, ym.hi), fb_sel(&f, large, yl.lo, ym.lo)};
    LLVMValueRef qmi = LLVMBuildFPToSI(f.b, fb_sel(&f, large, fb_dc(&f, 0), qm), f.i64, "");
    LLVMValueRef q = LLVMBuildAnd(f.b, fb_sel(&f, large, ql, qmi), i64c(&f, 3), "");
    /* sin: quadrants 0..3 give s, c, -s, -c; cos: c, -s, -c, s (of |x|; sin is odd) */
    LLVMValueRef s = kernel_sin(&f, y), c = kernel_cos(&f, y);
    LLVMValueRef odd = LLVMBuildICmp(f.b, LLVMIntNE, LLVMBuildAnd(f.b, q, i64c(&f, 1), ""), i64c(&f, 0), "");
    LLVMValueRef res = cosine ? fb_sel(&f, odd, s, c) : fb_sel(&f, odd, c, s);
    LLVMValueRef qn = cosine ? LLVMBuildAdd(f.b, q, i64c(&f, 1), "") : q; /* cos negates in quadrants 1, 2 */
    LLVMValueRef neg = LLVMBuildICmp(f.b, LLVMIntNE, LLVMBuildAnd(f.b, qn, i64c(&f, 2), ""), i64c(&f, 0), "");
    if (!cosine)
        neg = LLVMBuildXor(f.b, neg, LLVMBuildFCmp(f.b, LLVMRealOLT, x, fb_dc(&f, 0), ""), "");
    res = fb_sel(&f, neg, LLVMBuildFNeg(f.b, res, ""), res);
    if (!cosine) /* sin(-0) is -0 */
        res = fb_sel(&f, LLVMBuildFCmp(f.b, LLVMRealOEQ, x, fb_dc(&f, 0), ""), x, res);
    /* NaN and the infinities give NaN */
    LLVMValueRef bad = LLVMBuildFCmp(f.b, LLVMRealUGE, a, fb_dc(&f, __builtin_inf()), "");
    LLVMBuildRet(f.b, fb_sel(&f, bad, fb_dc(&f, __builtin_nan("")), res));
    LLVMDisposeBuilder(f.b);
    return fn;
}
