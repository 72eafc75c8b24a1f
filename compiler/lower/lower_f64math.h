/* The builder helpers shared by rk's own f64 functions (lower_f64math.c: exp, exp2, log, log2;
 * lower_f64trig.c: sin, cos): double constants, intrinsic calls, fma, and the power of two of an i32. */
#ifndef RK_LOWER_F64MATH_H
#define RK_LOWER_F64MATH_H

#include "compiler/lower/lower_internal.h"

typedef struct Fb {
    Lower *L;
    LLVMBuilderRef b;
    LLVMTypeRef d, i64, i32;
} Fb;

LLVMValueRef fb_dc(Fb *f, double v);
static inline LLVMValueRef fb_add(Fb *f, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFAdd(f->b, a, b, ""); }
static inline LLVMValueRef fb_sub(Fb *f, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFSub(f->b, a, b, ""); }
static inline LLVMValueRef fb_mul(Fb *f, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFMul(f->b, a, b, ""); }
static inline LLVMValueRef fb_sel(Fb *f, LLVMValueRef c, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildSelect(f->b, c, a, b, "");
}
LLVMValueRef fb_call1(Fb *f, const char *name, LLVMValueRef x);
LLVMValueRef fb_call2(Fb *f, const char *name, LLVMValueRef x, LLVMValueRef y);
LLVMValueRef fb_fma(Fb *f, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c);
LLVMValueRef fb_horner(Fb *f, LLVMValueRef x, const double *c, int n); /* sum of c[i] x^i */
LLVMValueRef fb_pow2(Fb *f, LLVMValueRef k);                          /* 2^k, i32 k in [-1022, 1023] */
/* a new internal function `name` of one double returning double, with f positioned in its entry */
LLVMValueRef fb_begin(Fb *f, Lower *L, const char *name);
/* sin or cos of an f64 (lower_f64trig.c) */
LLVMValueRef f64_trig_function(Lower *L, bool cosine);

#endif
