/* Constant folding and exact simplifications of single ops, for canonicalize.c.
 *
 * Folding computes exactly what the op computes at run time (the language's semantics, ops.def):
 *  - integers wrap at their width; a value is kept as its bits sign-extended (tir_int_norm) and
 *    read as signed or unsigned by its type; division truncates toward zero, x / 0 is all ones,
 *    x % 0 is x, MIN / -1 is MIN and MIN % -1 is 0 (no trap, as on the GPU);
 *    shift amounts are taken modulo the width; shr is arithmetic on signed types;
 *  - floats are computed in double and rounded once to the result type (fp_round). For + - * / and
 *    sqrt this is the correctly rounded result: double has more than 2p+2 bits for every p <= 24,
 *    so the double rounding is innocuous. fmod is exact; fma rounds once (fp_fma);
 *    min/max: NaN if either is NaN, and -0.0 is below +0.0;
 *  - comparisons are ordered, except ne, which is true on NaN (as C's !=);
 *  - casts: int -> int wraps; int -> float rounds to nearest even; float -> int truncates and
 *    saturates, NaN -> 0; float -> float rounds; anything -> bool is x != 0 (NaN -> true).
 * These are the interpreter's rules (runtime/interp/interp_ops.c), the reference semantics.
 * Not folded, because the device's result is not pinned down to the bit: exp, exp2, log, log2,
 * rsqrt, sin, cos (their accuracy is the math library's), and bitcasts that produce or read a NaN
 * (the text form does not keep NaN payloads).
 *
 * The identities used are exact for every input, NaN and -0.0 included: for floats only x * 1.0,
 * x / 1.0, x + (-0.0) and x - 0.0 (never x + 0.0, which turns -0.0 into +0.0); for integers also
 * x + 0, x * 0, x & ~0, x | 0, x ^ x, x - x and the like. Shape ops and convert_layout of a splat
 * become a splat, of a constant a constant; convert_layout to its operand's type is the operand.
 * Assumes verified IR. */
#include <math.h>
#include <string.h>

#include "support/fp16.h"
#include "compiler/tir/tir_impl.h"

static const Op *const_op(const Value *v) { return v && v->def && v->def->code == OP_CONST ? v->def : NULL; }

static ScalarKind elem_sk(const Value *v) { return ty_elem(v->type)->sk; }
static bool is_float_v(const Value *v) { return ty_elem(v->type)->kind == TY_SCALAR && sk_is_float(elem_sk(v)); }
static bool is_intb_v(const Value *v) { return ty_elem(v->type)->kind == TY_SCALAR && !sk_is_float(elem_sk(v)); }

/* v is an integer or bool constant equal to x (after normalisation to its type). */
static bool is_int_const(const Value *v, int64_t x)
{
    const Op *c = const_op(v);
    return c && is_intb_v(v) && c->at.value.i == tir_int_norm(elem_sk(v), x);
}

/* v is a float constant with exactly these bits (so -0.0 and +0.0 differ). */
static bool is_float_const(const Value *v, double x)
{
    const Op *c = const_op(v);
    return c && is_float_v(v) && memcmp(&c->at.value.f, &x, sizeof x) == 0;
}

static void become_const(Op *op, int64_t i, double f, bool is_float)
{
    op->code = OP_CONST;
    op->nopnds = 0;
    memset(&op->at, 0, sizeof op->at);
    if (is_float)
        op->at.value.f = f;
    else
        op->at.value.i = i;
}

/* ---- integers ---- */

static int64_t asr(int64_t a, unsigned s) { return a < 0 ? ~(~a >> s) : a >> s; }

static bool fold_int2(OpCode code, ScalarKind sk, int64_t a, int64_t b, int64_t *r)
{
    bool sgn = sk_is_signed(sk);
    uint64_t m = tir_int_mask(sk), ua = (uint64_t)a, ub = (uint64_t)b, za = ua & m, zb = ub & m;
    unsigned sh = (unsigned)(ub & (uint64_t)(sk_bits(sk) - 1));
    uint64_t x;
    switch (code) {
    case OP_ADD: x = ua + ub; break;
    case OP_SUB: x = ua - ub; break;
    case OP_MUL: x = ua * ub; break;
    case OP_DIV:
        if (zb == 0)
            x = ~0ull;
        else if (sgn)
            x = b == -1 ? 0 - ua : (uint64_t)(a / b); /* a / -1 negates, wrapping MIN to MIN */
        else
            x = za / zb;
        break;
    case OP_REM:
        if (zb == 0)
            x = ua;
        else if (sgn)
            x = b == -1 ? 0 : (uint64_t)(a % b);
        else
            x = za % zb;
        break;
    case OP_AND: x = ua & ub; break;
    case OP_OR: x = ua | ub; break;
    case OP_XOR: x = ua ^ ub; break;
    case OP_SHL: x = za << sh; break;
    case OP_SHR: x = sgn ? (uint64_t)asr(a, sh) : za >> sh; break;
    case OP_MIN: x = (sgn ? a < b : za < zb) ? ua : ub; break;
    case OP_MAX: x = (sgn ? a > b : za > zb) ? ua : ub; break;
    default: return false;
    }
    *r = tir_int_norm(sk, (int64_t)x);
    return true;
}

static bool fold_int1(OpCode code, ScalarKind sk, int64_t a, int64_t *r)
{
    uint64_t ua = (uint64_t)a;
    switch (code) {
    case OP_NEG: *r = tir_int_norm(sk, (int64_t)(0 - ua)); return true;
    case OP_NOT: *r = tir_int_norm(sk, (int64_t)~ua); return true;
    case OP_ABS: *r = sk_is_signed(sk) && a < 0 ? tir_int_norm(sk, (int64_t)(0 - ua)) : a; return true;
    default: return false;
    }
}

/* -1, 0, 1 for less, equal, greater; 2 for unordered. */
static bool pred_holds(int64_t pred, int order)
{
    switch (pred) {
    case PRED_EQ: return order == 0;
    case PRED_NE: return order != 0;
    case PRED_LT: return order == -1;
    case PRED_LE: return order == -1 || order == 0;
    case PRED_GT: return order == 1;
    case PRED_GE: return order == 1 || order == 0;
    default: return false;
    }
}

/* ---- floats ---- */

static bool fold_float2(OpCode code, ScalarKind sk, double a, double b, double *r)
{
    double x;
    switch (code) {
    case OP_ADD: x = a + b; break;
    case OP_SUB: x = a - b; break;
    case OP_MUL: x = a * b; break;
    case OP_DIV: x = a / b; break;
    case OP_REM: x = fmod(a, b); break;
    case OP_MIN:
    case OP_MAX:
        if (isnan(a) || isnan(b)) {
            x = NAN;
            break;
        }
        if (a == b) /* equal, or zeros of opposite signs: min takes the negative one */
            x = (signbit(a) != 0) == (code == OP_MIN) ? a : b;
        else
            x = (code == OP_MIN ? a < b : a > b) ? a : b;
        break;
    case OP_MINNUM:
    case OP_MAXNUM: /* a NaN operand gives the other; otherwise as min and max */
        if (isnan(a) || isnan(b))
            x = isnan(a) ? b : a;
        else if (a == b)
            x = (signbit(a) != 0) == (code == OP_MINNUM) ? a : b;
        else
            x = (code == OP_MINNUM ? a < b : a > b) ? a : b;
        break;
    default: return false;
    }
    *r = fp_round(sk, x);
    return true;
}

static bool fold_float1(OpCode code, ScalarKind sk, double a, double *r)
{
    switch (code) {
    case OP_NEG: *r = -a; return true;
    case OP_ABS: *r = fabs(a); return true;
    case OP_FLOOR: *r = floor(a); return true;
    case OP_CEIL: *r = ceil(a); return true;
    case OP_SQRT: *r = fp_round(sk, sqrt(a)); return true;
    default: return false;
    }
}

/* The float of kind sk nearest to the integer (neg ? -mag : mag), ties to even: the magnitude is
 * rounded to the format's precision with integer arithmetic, which a double then holds exactly. */
static double int_to_float(bool neg, uint64_t mag, ScalarKind sk)
{
    int prec = sk == SK_F16 ? 11 : sk == SK_BF16 ? 8 : sk == SK_F32 ? 24 : 53;
    int bits = 0;
    for (uint64_t t = mag; t; t >>= 1)
        bits++;
    double v;
    if (bits <= prec) {
        v = (double)mag;
    } else {
        int shift = bits - prec;
        uint64_t r = mag >> shift, rem = mag & ((1ull << shift) - 1), half = 1ull << (shift - 1);
        if (rem > half || (rem == half && (r & 1)))
            r++;
        v = ldexp((double)r, shift);
    }
    return fp_round(sk, neg ? -v : v); /* exact, or f16 overflowing to inf */
}

static bool fold_cast(ScalarKind from, ScalarKind to, int64_t i, double f, int64_t *ri, double *rf)
{
    if (sk_is_float(from)) {
        if (to == SK_BOOL) {
            *ri = f != 0; /* NaN -> true */
            return true;
        }
        if (sk_is_float(to)) {
            *rf = fp_round(to, f);
            return true;
        }
        double t = trunc(f);
        int bits = sk_bits(to);
        if (isnan(f)) {
            *ri = 0;
        } else if (sk_is_signed(to)) {
            double lim = ldexp(1.0, bits - 1);
            *ri = t < -lim ? (int64_t)(-lim) : t >= lim ? tir_int_norm(to, (int64_t)(~0ull >> (65 - bits))) : (int64_t)t;
        } else {
            double lim = ldexp(1.0, bits);
            *ri = tir_int_norm(to, t <= 0 ? 0 : t >= lim ? -1 : (int64_t)(uint64_t)t);
        }
        return true;
    }
    /* from an integer or bool: its value, by the signedness of its type */
    bool neg = sk_is_signed(from) && i < 0;
    uint64_t mag = neg ? 0 - (uint64_t)i : (uint64_t)i & tir_int_mask(from);
    if (to == SK_BOOL)
        *ri = mag != 0;
    else if (sk_is_float(to))
        *rf = int_to_float(neg, mag, to);
    else
        *ri = tir_int_norm(to, neg ? (int64_t)(0 - mag) : (int64_t)mag);
    return true;
}

/* Float bits of a value of kind sk (known not to be NaN), and back; false on NaN. */
static uint64_t float_bits(ScalarKind sk, double f)
{
    if (sk == SK_F16)
        return f64_to_f16(f);
    if (sk == SK_BF16)
        return f64_to_bf16(f);
    if (sk == SK_F32) {
        float x = (float)f;
        uint32_t b;
        memcpy(&b, &x, sizeof b);
        return b;
    }
    uint64_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static double bits_float(ScalarKind sk, uint64_t b)
{
    if (sk == SK_F16)
        return f16_to_f32((uint16_t)b);
    if (sk == SK_BF16)
        return bf16_to_f32((uint16_t)b);
    if (sk == SK_F32) {
        uint32_t u = (uint32_t)b;
        float x;
        memcpy(&x, &u, sizeof x);
        return x;
    }
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static bool fold_bitcast(ScalarKind from, ScalarKind to, int64_t i, double f, int64_t *ri, double *rf)
{
    if (sk_is_float(from) && isnan(f))
        return false;
    uint64_t bits = sk_is_float(from) ? float_bits(from, f) : (uint64_t)i & tir_int_mask(from);
    if (!sk_is_float(to)) {
        *ri = tir_int_norm(to, (int64_t)bits);
        return true;
    }
    *rf = bits_float(to, bits);
    return !isnan(*rf);
}

/* ---- entry points ---- */

/* Identities whose result is a constant whatever the non-constant operand is (integers only). */
static bool identity_const(Op *op, int64_t *r)
{
    Value *a = op->operands[0], *b = op->nopnds > 1 ? op->operands[1] : NULL;
    if (!is_intb_v(a) || (b && !is_intb_v(b)))
        return false;
    switch (op->code) {
    case OP_MUL:
    case OP_AND:
        *r = 0;
        return is_int_const(a, 0) || is_int_const(b, 0);
    case OP_OR:
        *r = tir_int_norm(elem_sk(a), -1);
        return is_int_const(a, -1) || is_int_const(b, -1);
    case OP_SUB:
    case OP_XOR:
        *r = 0;
        return a == b;
    case OP_REM:
        *r = 0;
        return is_int_const(b, 1) || (sk_is_signed(elem_sk(a)) && is_int_const(b, -1));
    case OP_CMP: /* integers, bools: no NaN */
        *r = pred_holds(op->at.pred, 0);
        return a == b;
    default:
        return false;
    }
}

bool tir_fold_to_const(Op *op)
{
    if (op->code == OP_CONST || op->nres != 1 || !op_is_pure(op) || op->nregions)
        return false;
    const Type *re = ty_elem(op->results[0].type);
    if (op->code == OP_SPLAT || op->code == OP_BROADCAST || op->code == OP_EXPAND_DIMS || op->code == OP_RESHAPE ||
        op->code == OP_PERMUTE || op->code == OP_CONVERT_LAYOUT) {
        const Op *c = const_op(op->operands[0]);
        if (!c)
            return false;
        Attrs at = c->at;
        become_const(op, at.value.i, at.value.f, re->kind == TY_SCALAR && sk_is_float(re->sk));
        return true;
    }
    if (!(tir_op_info[op->code].flags & F_ELEM) || re->kind != TY_SCALAR)
        return false;
    int64_t ri = 0;
    double rf = 0;
    bool rfloat = sk_is_float(re->sk);
    if (identity_const(op, &ri)) {
        become_const(op, ri, 0, false);
        return true;
    }
    const Op *c[3] = {0};
    for (int i = 0; i < op->nopnds; i++)
        if (i >= 3 || !(c[i] = const_op(op->operands[i])))
            return false;
    if (op->nopnds == 0)
        return false;
    Value *a = op->operands[0];
    ScalarKind ask = elem_sk(a);
    int64_t ai = c[0]->at.value.i, bi = op->nopnds > 1 ? c[1]->at.value.i : 0;
    double af = c[0]->at.value.f, bf = op->nopnds > 1 ? c[1]->at.value.f : 0;
    bool ok = false;
    switch (op->code) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_REM: case OP_AND: case OP_OR: case OP_XOR:
    case OP_SHL: case OP_SHR: case OP_MIN: case OP_MAX: case OP_MINNUM: case OP_MAXNUM:
        ok = rfloat ? fold_float2(op->code, re->sk, af, bf, &rf) : fold_int2(op->code, re->sk, ai, bi, &ri);
        break;
    case OP_NEG: case OP_NOT: case OP_ABS: case OP_FLOOR: case OP_CEIL: case OP_SQRT:
        ok = rfloat ? fold_float1(op->code, re->sk, af, &rf) : fold_int1(op->code, re->sk, ai, &ri);
        break;
    case OP_CMP: {
        int order;
        if (is_float_v(a))
            order = isnan(af) || isnan(bf) ? 2 : af < bf ? -1 : af > bf ? 1 : 0;
        else if (sk_is_signed(ask))
            order = ai < bi ? -1 : ai > bi ? 1 : 0;
        else {
            uint64_t m = tir_int_mask(ask), za = (uint64_t)ai & m, zb = (uint64_t)bi & m;
            order = za < zb ? -1 : za > zb ? 1 : 0;
        }
        ri = pred_holds(op->at.pred, order);
        ok = true;
        break;
    }
    case OP_SELECT: {
        const Op *pick = c[0]->at.value.i ? c[1] : c[2];
        ri = pick->at.value.i;
        rf = pick->at.value.f;
        ok = true;
        break;
    }
    case OP_FMA:
        rf = fp_fma(af, bf, c[2]->at.value.f, re->sk);
        ok = true;
        break;
    case OP_CAST:
        if (ty_elem(a->type)->kind == TY_SCALAR)
            ok = fold_cast(ask, re->sk, ai, af, &ri, &rf);
        break;
    case OP_BITCAST:
        if (ty_elem(a->type)->kind == TY_SCALAR)
            ok = fold_bitcast(ask, re->sk, ai, af, &ri, &rf);
        break;
    default:
        break;
    }
    if (ok)
        become_const(op, ri, rf, rfloat);
    return ok;
}

static bool is_one(const Value *v) { return is_float_v(v) ? is_float_const(v, 1.0) : is_int_const(v, 1); }

Value *tir_fold_to_value(Op *op)
{
    if (op->nres != 1 || op->nopnds < 1 || !op_is_pure(op))
        return NULL;
    Value *a = op->operands[0], *b = op->nopnds > 1 ? op->operands[1] : NULL;
    const Type *rt = op->results[0].type;
    switch (op->code) {
    case OP_ADD:
        if (is_float_v(a))
            return is_float_const(b, -0.0) ? a : is_float_const(a, -0.0) ? b : NULL;
        return is_int_const(b, 0) ? a : is_int_const(a, 0) ? b : NULL;
    case OP_SUB:
        if (is_float_v(a))
            return is_float_const(b, 0.0) ? a : NULL;
        return is_int_const(b, 0) ? a : NULL;
    case OP_MUL:
        return is_one(b) ? a : is_one(a) ? b : NULL;
    case OP_DIV:
        return is_one(b) ? a : NULL;
    case OP_AND:
        return a == b || is_int_const(b, -1) ? a : is_int_const(a, -1) ? b : NULL;
    case OP_OR:
        return a == b || is_int_const(b, 0) ? a : is_int_const(a, 0) ? b : NULL;
    case OP_XOR:
        return is_int_const(b, 0) ? a : is_int_const(a, 0) ? b : NULL;
    case OP_SHL:
    case OP_SHR: {
        const Op *c = const_op(b);
        return c && ((uint64_t)c->at.value.i & (uint64_t)(sk_bits(elem_sk(b)) - 1)) == 0 ? a : NULL;
    }
    case OP_MIN:
    case OP_MAX:
    case OP_MINNUM:
    case OP_MAXNUM:
        return a == b ? a : NULL;
    case OP_SELECT: {
        const Op *c = const_op(a);
        if (c)
            return c->at.value.i ? op->operands[1] : op->operands[2];
        return op->operands[1] == op->operands[2] ? op->operands[1] : NULL;
    }
    case OP_NEG:
    case OP_NOT:
        return a->def && a->def->code == op->code ? a->def->operands[0] : NULL;
    case OP_CAST:
    case OP_BITCAST:
    case OP_BROADCAST:
    case OP_RESHAPE:
    case OP_CONVERT_LAYOUT:
        return a->type == rt ? a : NULL;
    case OP_PERMUTE:
        for (int i = 0; i < op->at.ndims; i++)
            if (op->at.dims[i] != i)
                return NULL;
        return a->type == rt ? a : NULL;
    case OP_ADDPTR:
        return is_int_const(b, 0) ? a : NULL;
    default:
        return NULL;
    }
}

bool tir_fold_shape(Op *op)
{
    if (op->nopnds != 1)
        return false;
    Op *d = op->operands[0]->def;
    if (!d)
        return false;
    switch (op->code) {
    case OP_BROADCAST:
    case OP_EXPAND_DIMS:
    case OP_RESHAPE:
    case OP_PERMUTE:
    case OP_CONVERT_LAYOUT:
        if (d->code == OP_SPLAT) {
            op->code = OP_SPLAT;
            op->operands[0] = d->operands[0];
            memset(&op->at, 0, sizeof op->at);
            return true;
        }
        if ((op->code == OP_RESHAPE || op->code == OP_BROADCAST || op->code == OP_CONVERT_LAYOUT) && d->code == op->code) {
            op->operands[0] = d->operands[0];
            return true;
        }
        return false;
    default:
        return false;
    }
}
