/* Float math: neg, abs, exp, exp2, log, log2, sqrt, rsqrt, floor, ceil, sin, cos and fma on f32, f16
 * and bf16. The reference is libm in double, rounded to the type. Tolerances: exact where the result is
 * correctly rounded on both devices (neg, abs, floor, ceil, sqrt); otherwise 2 ulps of f32 (host libm
 * and LLVM's f32 intrinsics are within an ulp, the interpreter rounds the double result) and 1 ulp of
 * a 16-bit type (an f32 result within an ulp may round to the other side of a tie). */
#include <math.h>

#include "tests/run/cases.h"

enum { U_NEG, U_NOT, U_ABS, U_EXP, U_EXP2, U_LOG, U_LOG2, U_SQRT, U_RSQRT, U_FLOOR, U_CEIL, U_SIN, U_COS, NU };
static const char *const UNAME[NU] = {"neg", "not", "abs", "exp", "exp2", "log", "log2",
                                      "sqrt", "rsqrt", "floor", "ceil", "sin", "cos"};

static Gen math_gen(int op)
{
    switch (op) {
    case U_EXP: return MIX(-12, 12);
    case U_EXP2: return MIX(-20, 20);
    case U_LOG: case U_LOG2: case U_SQRT: case U_RSQRT: return MIX(0, 200);
    case U_SIN: case U_COS: return MIX(-10, 10);
    default: return MIX(-300, 300);
    }
}

void setup_math(Run *r)
{
    rk_dtype t = r->c->dt[0];
    int n = pick_n(r, r->c->p[1]);
    HBuf *x = in_buf(r, "x", t, (size_t)n, math_gen(r->c->p[0]));
    /* small magnitudes too, where relative accuracy matters */
    for (size_t i = 0; i < x->n; i += 11)
        fset(t, x->host, i, fget(t, x->host, i) * 1e-3);
    out_buf(r, "out", t, (size_t)n);
    arg(r, rk_arg_i32(n));
}

static double ref_unary(int op, double x)
{
    switch (op) {
    case U_NEG: return -x;
    case U_ABS: return fabs(x);
    case U_EXP: return exp(x);
    case U_EXP2: return exp2(x);
    case U_LOG: return log(x);
    case U_LOG2: return log2(x);
    case U_SQRT: return sqrt(x);
    case U_RSQRT: return 1.0 / sqrt(x);
    case U_FLOOR: return floor(x);
    case U_CEIL: return ceil(x);
    case U_SIN: return sin(x);
    default: return cos(x);
    }
}

static Tol math_tol(int op, rk_dtype t)
{
    switch (op) {
    case U_NEG: case U_ABS: case U_FLOOR: case U_CEIL: case U_SQRT:
        return EXACT;
    default:
        return ULPS(t == RK_F32 ? 2 : 1);
    }
}

void check_math(Run *r)
{
    HBuf *x = &r->bufs[0], *o = &r->bufs[1];
    rk_dtype t = o->dt;
    int op = r->c->p[0];
    for (size_t i = 0; i < o->n; i++)
        ref_f(o, i, ref_unary(op, fget(t, x->host, i)));
    expect_buf(r, o, math_tol(op, t));
}

/* ---- fma ---- */

static void setup_fma(Run *r)
{
    rk_dtype t = r->c->dt[0];
    int n = pick_n(r, r->c->p[1]);
    in_buf(r, "x", t, (size_t)n, MIX(-4, 4));
    in_buf(r, "y", t, (size_t)n, MIX(-4, 4));
    in_buf(r, "z", t, (size_t)n, MIX(-16, 16));
    out_buf(r, "out", t, (size_t)n);
    arg(r, rk_arg_i32(n));
}

static void check_fma(Run *r)
{
    HBuf *x = &r->bufs[0], *y = &r->bufs[1], *z = &r->bufs[2], *o = &r->bufs[3];
    rk_dtype t = o->dt;
    for (size_t i = 0; i < o->n; i++)
        ref_f(o, i, fma(fget(t, x->host, i), fget(t, y->host, i), fget(t, z->host, i)));
    /* a double fma rounded to the type may differ from one rounding by an ulp */
    expect_buf(r, o, ULPS(1));
}

void gen_math(void)
{
    static const rk_dtype FT[] = {RK_F32, RK_F16, RK_BF16};
    int k = 0;
    for (int ti = 0; ti < 3; ti++) {
        rk_dtype t = FT[ti];
        for (int op = U_ABS; op < NU; op++) {
            int block, warps;
            pick_shape(k++, &block, &warps);
            Case *c = add_case("elem.tile", "unary", setup_math, check_math, "math/%s/%s/b%d/w%d", UNAME[op], tname(t),
                               block, warps);
            c->p[0] = op;
            c->p[1] = block;
            c->dt[0] = t;
            case_define(c, "T=%s OP=%d BLOCK=%d num_warps=%d", tname(t), op, block, warps);
        }
        int block, warps;
        pick_shape(k++, &block, &warps);
        Case *c = add_case("elem.tile", "fma3", setup_fma, check_fma, "math/fma/%s/b%d/w%d", tname(t), block, warps);
        c->p[1] = block;
        c->dt[0] = t;
        case_define(c, "T=%s BLOCK=%d num_warps=%d", tname(t), block, warps);
    }
}
