/* Abstract interpretation of generated programs: for every value, an interval that holds every correct
 * implementation's result, a bound on how far two correct implementations may differ (`err`), and
 * whether the value is exact (a multiple of `q` with no rounding so far). This decides what the
 * generator may build and how the devices' outputs are compared:
 *
 *  - + - * / sqrt, casts and comparisons are correctly rounded everywhere (16-bit floats computed in
 *    f32 and rounded again give the same result: f32 has more than 2p + 2 bits), so they keep a
 *    deterministic value (err 0) deterministic, rounded or not;
 *  - sums, cumsums and dots add in an order each implementation chooses: exact operands whose partial
 *    sums fit the accumulator's precision give the same bits in any order, the others get a bound;
 *  - exp, log, sin, ... are within a few ulps on each side; fma may round twice in the interpreter;
 *  - what is discontinuous (comparisons, floor, casts to integers, argmax, fmod) takes deterministic
 *    operands only, so an error can never flip a branch or an index;
 *  - a value that may differ must stay finite and far from overflow (else err is unbounded).
 * The rules follow docs/language.md (saturating float-to-int casts, x / 0 = -1, shifts modulo the
 * width, maximum propagating NaN). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "tests/fuzz/gen_tile_internal.h"

/* ---- types ------------------------------------------------------------------------------------- */

bool gt_float(int t)
{
    return t == RK_F16 || t == RK_BF16 || t == RK_F32 || t == RK_F64;
}

bool gt_int(int t)
{
    return t >= RK_I8 && t <= RK_U64;
}

bool gt_signed(int t)
{
    return t >= RK_I8 && t <= RK_I64;
}

int gt_bits(int t)
{
    return t == RK_BOOL ? 1 : (int)rk_dtype_size((rk_dtype)t) * 8;
}

/* Significand bits, the implicit one included. */
static int prec(int t)
{
    switch (t) {
    case RK_F16: return 11;
    case RK_BF16: return 8;
    case RK_F32: return 24;
    case RK_F64: return 53;
    default: return 64;
    }
}

static double fmaxv(int t)
{
    switch (t) {
    case RK_F16: return 65504.0;
    case RK_BF16: return 0x1.fep127;
    case RK_F32: return 0x1.fffffep127;
    default: return DBL_MAX;
    }
}

static double minsub(int t)
{
    switch (t) {
    case RK_F16: return 0x1p-24;
    case RK_BF16: return 0x1p-133;
    case RK_F32: return 0x1p-149;
    default: return 0x1p-1074;
    }
}

double gt_min(int t)
{
    if (gt_float(t))
        return -fmaxv(t);
    return gt_signed(t) ? -ldexp(1, gt_bits(t) - 1) : 0;
}

double gt_max(int t)
{
    if (gt_float(t))
        return fmaxv(t);
    if (t == RK_BOOL)
        return 1;
    return gt_signed(t) ? ldexp(1, gt_bits(t) - 1) - 1 : ldexp(1, gt_bits(t)) - 1;
}

int gt_elems(Ty t)
{
    int n = 1;
    for (int i = 0; i < t.rank; i++)
        n *= t.d[i];
    return n;
}

int gt_promote(int a, int b)
{
    if (a == b)
        return a;
    if (a == RK_BOOL || b == RK_BOOL)
        return -1;
    if (gt_float(a) || gt_float(b)) {
        if (!gt_float(a))
            return b;
        if (!gt_float(b))
            return a;
        return a == RK_F64 || b == RK_F64 ? RK_F64 : RK_F32;
    }
    int ba = gt_bits(a), bb = gt_bits(b);
    if (ba != bb)
        return ba > bb ? a : b;
    return gt_signed(a) ? b : a;
}

int gt_sum_type(int t)
{
    switch (t) {
    case RK_F16: case RK_BF16: return RK_F32;
    case RK_BOOL: case RK_I8: case RK_I16: return RK_I32;
    case RK_U8: case RK_U16: return RK_U32;
    default: return t;
    }
}

/* ---- abstract values --------------------------------------------------------------------------- */

double ab_mag(Ab a)
{
    return fmax(fabs(a.lo), fabs(a.hi));
}

static double qmin(double a, double b)
{
    return a > 0 && b > 0 ? fmin(a, b) : 0;
}

Ab ab_join(Ab a, Ab b)
{
    return (Ab){fmin(a.lo, b.lo), fmax(a.hi, b.hi), fmax(a.err, b.err), qmin(a.q, b.q), a.nan || b.nan};
}

/* The largest power of two that divides v (2^20 for 0), 0 when there is none above 2^-40. */
static double qof(double v)
{
    if (v == 0)
        return 0x1p20;
    if (!isfinite(v))
        return 0;
    for (int e = 20; e >= -40; e--)
        if (fmod(v, ldexp(1, e)) == 0)
            return ldexp(1, e);
    return 0;
}

Ab ab_point(int dt, double v)
{
    return (Ab){v, v, 0, gt_float(dt) ? qof(v) : 1, false};
}

/* An ulp of t at magnitude m. */
static double ulp(int t, double m)
{
    if (!(m > 0))
        return minsub(t);
    if (isinf(m))
        return INFINITY;
    int e;
    frexp(m, &e); /* m = f 2^e, f in [0.5, 1) */
    return fmax(ldexp(1, e - prec(t)), minsub(t));
}

static void int_fix(int t, Ab *a)
{
    a->err = 0;
    a->q = 1;
    a->nan = false;
    double lim = 0x1p52;
    if (isnan(a->lo) || isnan(a->hi) || a->lo < gt_min(t) || a->hi > gt_max(t) || fabs(a->lo) > lim ||
        fabs(a->hi) > lim) {
        a->lo = gt_min(t);
        a->hi = gt_max(t);
    }
}

/* A float result whose mathematical value lies in [lo, hi] (a multiple of q when q > 0): exact when
 * q's grid fits t's precision and range, else rounded (q 0, the interval widened by an ulp). */
static void fl_fix(int t, Ab *a)
{
    if (isnan(a->lo) || isnan(a->hi)) {
        a->lo = -INFINITY;
        a->hi = INFINITY;
        a->nan = true;
    }
    double m = ab_mag(*a);
    if (a->q > 0 && m <= fmaxv(t) && m / a->q <= ldexp(1, prec(t)) && a->q >= minsub(t))
        return;
    a->q = 0;
    if (isfinite(a->lo))
        a->lo -= ulp(t, fabs(a->lo));
    if (isfinite(a->hi))
        a->hi += ulp(t, fabs(a->hi));
    if (a->hi > fmaxv(t))
        a->hi = INFINITY;
    if (a->lo < -fmaxv(t))
        a->lo = -INFINITY;
    if (a->lo > fmaxv(t))
        a->lo = fmaxv(t);
    if (a->hi < -fmaxv(t))
        a->hi = -fmaxv(t);
}

/* A value that two implementations may compute differently must be finite and far from overflow. */
static bool fl_ok(int t, const Ab *a)
{
    if (a->err == 0)
        return true;
    return isfinite(a->err) && !a->nan && isfinite(a->lo) && isfinite(a->hi) && ab_mag(*a) <= fmaxv(t) / 16;
}

static bool ab_finite(const Ab *a)
{
    return !a->nan && isfinite(a->lo) && isfinite(a->hi);
}

/* `as` from one type to another. */
static Ab cast_ab(int from, int to, Ab a, bool *ok)
{
    if (from == to)
        return a;
    Ab r = a;
    if (to == RK_BOOL) {
        if (gt_float(from) && a.err > 0)
            *ok = false;
        bool zero = a.lo <= 0 && a.hi >= 0, nonzero = !(a.lo == 0 && a.hi == 0) || a.nan;
        r = (Ab){zero ? 0 : 1, nonzero ? 1 : 0, 0, 1, false};
        return r;
    }
    if (from == RK_BOOL) {
        r = (Ab){fmax(a.lo, 0), fmin(a.hi, 1), 0, 1, false};
        if (gt_float(to))
            fl_fix(to, &r);
        return r;
    }
    if (gt_int(from) && gt_int(to)) {
        int_fix(to, &r);
        return r;
    }
    if (gt_int(from)) { /* to a float */
        r.q = 1;
        r.err = 0;
        r.nan = false;
        fl_fix(to, &r);
        return r;
    }
    if (gt_int(to)) { /* from a float: saturating, NaN gives 0 */
        if (a.err > 0)
            *ok = false;
        double lo = isnan(a.lo) ? gt_min(to) : fmax(trunc(a.lo), gt_min(to));
        double hi = isnan(a.hi) ? gt_max(to) : fmin(trunc(a.hi), gt_max(to));
        if (a.nan) {
            lo = fmin(lo, 0);
            hi = fmax(hi, 0);
        }
        r = (Ab){fmin(lo, hi), fmax(lo, hi), 0, 1, false};
        int_fix(to, &r);
        return r;
    }
    if (prec(to) >= prec(from) && fmaxv(to) >= fmaxv(from) && minsub(to) <= minsub(from))
        return a; /* widening: exact */
    if (r.err > 0)
        r.err += ulp(to, ab_mag(a));
    fl_fix(to, &r);
    return r;
}

/* ---- operations -------------------------------------------------------------------------------- */

static void iv_mul(Ab x, Ab y, double *lo, double *hi)
{
    double p[4] = {x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi};
    *lo = *hi = p[0];
    for (int i = 1; i < 4; i++) {
        if (isnan(p[i]) || isnan(*lo)) {
            *lo = NAN;
            *hi = NAN;
            return;
        }
        *lo = fmin(*lo, p[i]);
        *hi = fmax(*hi, p[i]);
    }
}

static Ab ab_bin(int op, int t, Ab x, Ab y, bool *ok)
{
    Ab r = {0, 0, 0, 0, false};
    bool fl = gt_float(t);
    if (op >= B_EQ) { /* comparisons and && || */
        if (fl && (x.err > 0 || y.err > 0))
            *ok = false;
        return (Ab){0, 1, 0, 1, false};
    }
    if (t == RK_BOOL) /* & | ^ on bools */
        return (Ab){0, 1, 0, 1, false};
    bool inf = !isfinite(x.lo) || !isfinite(x.hi) || !isfinite(y.lo) || !isfinite(y.hi);
    r.nan = fl && (x.nan || y.nan || inf);
    double mx = ab_mag(x), my = ab_mag(y);
    switch (op) {
    case B_ADD:
    case B_SUB:
        r.lo = op == B_ADD ? x.lo + y.lo : x.lo - y.hi;
        r.hi = op == B_ADD ? x.hi + y.hi : x.hi - y.lo;
        r.q = qmin(x.q, y.q);
        r.err = x.err + y.err;
        break;
    case B_MUL:
        iv_mul(x, y, &r.lo, &r.hi);
        r.q = x.q > 0 && y.q > 0 ? x.q * y.q : 0;
        r.err = x.err * my + y.err * mx + x.err * y.err;
        break;
    case B_DIV:
        if (!fl) {
            double m = fmax(fabs(x.lo), fabs(x.hi));
            r.lo = gt_signed(t) ? -m : 0;
            r.hi = m;
            if (y.lo <= 0 && y.hi >= 0) { /* x / 0 is -1 (all ones) */
                r.lo = fmin(r.lo, -1);
                if (!gt_signed(t))
                    r.hi = gt_max(t);
            }
            if (gt_signed(t) && x.lo <= gt_min(t) && y.lo <= -1 && y.hi >= -1)
                r.hi = INFINITY; /* MIN / -1 wraps */
            break;
        }
        if (y.lo <= 0 && y.hi >= 0) { /* maybe a division by zero: inf or NaN, deterministic only */
            r = (Ab){-INFINITY, INFINITY, x.err + y.err > 0 ? INFINITY : 0, 0, true};
            break;
        } else {
            double m = fmin(fabs(y.lo), fabs(y.hi));
            double p[4] = {x.lo / y.lo, x.lo / y.hi, x.hi / y.lo, x.hi / y.hi};
            r.lo = r.hi = p[0];
            for (int i = 1; i < 4; i++) {
                r.lo = fmin(r.lo, p[i]);
                r.hi = fmax(r.hi, p[i]);
            }
            r.err = x.err + y.err > 0 ? x.err / m + mx * y.err / (m * m) : 0;
            r.q = 0;
        }
        break;
    case B_REM:
        if (fl) { /* fmod: exact, but discontinuous */
            if (x.err > 0 || y.err > 0)
                *ok = false;
            r.lo = -mx;
            r.hi = mx;
            r.q = qmin(x.q, y.q);
            r.nan = r.nan || (y.lo <= 0 && y.hi >= 0);
        } else { /* x % 0 is x */
            r.lo = gt_signed(t) ? -mx : 0;
            r.hi = mx;
        }
        break;
    case B_AND:
    case B_OR:
    case B_XOR:
        if (x.lo >= 0 && y.lo >= 0) {
            double m = fmax(x.hi, y.hi), p = 1;
            while (p <= m)
                p *= 2;
            r.lo = 0;
            r.hi = op == B_AND ? fmin(x.hi, y.hi) : p - 1;
        } else {
            r.lo = gt_min(t);
            r.hi = gt_max(t);
        }
        break;
    case B_SHL:
        if (x.lo >= 0 && y.lo >= 0 && y.hi < gt_bits(t)) {
            r.lo = 0;
            r.hi = x.hi * ldexp(1, (int)y.hi);
        } else {
            r.lo = gt_min(t);
            r.hi = gt_max(t);
        }
        break;
    case B_SHR: /* whatever the amount (modulo the width) */
        r.lo = fmin(x.lo, 0);
        r.hi = fmax(x.hi, 0);
        break;
    case B_MAX:
    case B_MIN:
        r.lo = op == B_MAX ? fmax(x.lo, y.lo) : fmin(x.lo, y.lo);
        r.hi = op == B_MAX ? fmax(x.hi, y.hi) : fmin(x.hi, y.hi);
        r.q = qmin(x.q, y.q);
        r.err = fmax(x.err, y.err);
        r.nan = fl && (x.nan || y.nan);
        if (fl)
            fl_fix(t, &r);
        else
            int_fix(t, &r);
        return r;
    }
    if (!fl) {
        int_fix(t, &r);
        return r;
    }
    if (r.err > 0)
        r.err += ulp(t, ab_mag(r));
    fl_fix(t, &r);
    return r;
}

/* exp, log, sin, ...: within K ulps of the truth on each side. */
static int math_ulps(int t)
{
    return t == RK_F16 || t == RK_BF16 ? 2 : 4;
}

static Ab ab_un(int op, int t, Ab x, bool *ok)
{
    Ab r = x;
    bool fl = gt_float(t);
    switch (op) {
    case U_NEG:
        if (!fl && (gt_signed(t) ? x.lo <= gt_min(t) : !(x.lo == 0 && x.hi == 0))) {
            r.lo = gt_min(t);
            r.hi = gt_max(t);
        } else {
            r.lo = -x.hi;
            r.hi = -x.lo;
        }
        return r;
    case U_NOT:
        if (t == RK_BOOL)
            return (Ab){0, 1, 0, 1, false};
        r.lo = gt_signed(t) ? -x.hi - 1 : gt_max(t) - x.hi;
        r.hi = gt_signed(t) ? -x.lo - 1 : gt_max(t) - x.lo;
        int_fix(t, &r);
        return r;
    case U_LNOT:
        return (Ab){0, 1, 0, 1, false};
    case U_ABS:
        if (!fl && gt_signed(t) && x.lo <= gt_min(t)) {
            r.lo = gt_min(t); /* abs(MIN) is MIN */
            r.hi = gt_max(t);
        } else if (x.lo >= 0) {
        } else if (x.hi <= 0) {
            r.lo = -x.hi;
            r.hi = -x.lo;
        } else {
            r.lo = 0;
            r.hi = fmax(-x.lo, x.hi);
        }
        return r;
    case U_FLOOR:
    case U_CEIL:
        if (x.err > 0)
            *ok = false;
        r.lo = op == U_FLOOR ? floor(x.lo) : ceil(x.lo);
        r.hi = op == U_FLOOR ? floor(x.hi) : ceil(x.hi);
        r.q = x.q >= 1 ? x.q : 1;
        fl_fix(t, &r);
        return r;
    case U_SQRT:
        if (x.nan || x.lo < 0 || (x.err > 0 && x.lo <= 0))
            *ok = false;
        r.lo = sqrt(fmax(x.lo, 0));
        r.hi = sqrt(x.hi);
        r.q = 0;
        r.err = x.err > 0 ? x.err / (2 * sqrt(x.lo)) + ulp(t, r.hi) : 0;
        fl_fix(t, &r);
        return r;
    default:
        break;
    }
    /* exp exp2 log log2 rsqrt sin cos: not correctly rounded */
    if (!ab_finite(&x)) {
        *ok = false;
        return r;
    }
    double d; /* the largest derivative on the interval */
    switch (op) {
    case U_EXP:
        r.lo = exp(x.lo);
        r.hi = exp(x.hi);
        d = r.hi;
        break;
    case U_EXP2:
        r.lo = exp2(x.lo);
        r.hi = exp2(x.hi);
        d = r.hi * M_LN2;
        break;
    case U_LOG:
    case U_LOG2:
        if (x.lo <= 0) {
            *ok = false;
            return r;
        }
        r.lo = op == U_LOG ? log(x.lo) : log2(x.lo);
        r.hi = op == U_LOG ? log(x.hi) : log2(x.hi);
        d = 1 / (x.lo * (op == U_LOG ? 1 : M_LN2));
        break;
    case U_RSQRT:
        if (x.lo <= 0) {
            *ok = false;
            return r;
        }
        r.lo = 1 / sqrt(x.hi);
        r.hi = 1 / sqrt(x.lo);
        d = 0.5 * pow(x.lo, -1.5);
        break;
    default: /* sin, cos */
        if (ab_mag(x) > 100)
            *ok = false;
        r.lo = -1;
        r.hi = 1;
        d = 1;
        break;
    }
    double u = math_ulps(t) * ulp(t, ab_mag(r));
    r.err = d * x.err + u;
    r.lo -= u;
    r.hi += u;
    r.q = 0;
    fl_fix(t, &r);
    return r;
}

/* Sums of n values of x in type a (already converted), cumsum's prefixes too. */
static Ab ab_sum(int a, Ab x, double n)
{
    Ab r = x;
    r.lo = n * fmin(x.lo, 0) + (x.lo > 0 ? x.lo : 0);
    r.hi = n * fmax(x.hi, 0) + (x.hi < 0 ? x.hi : 0);
    if (!gt_float(a)) {
        int_fix(a, &r);
        return r;
    }
    double m = n * ab_mag(x);
    r.nan = x.nan || !isfinite(x.lo) || !isfinite(x.hi);
    if (x.err == 0 && x.q > 0 && m / x.q <= ldexp(1, prec(a)) && m <= fmaxv(a))
        return r; /* every partial sum exact: the same in any order */
    r.err = n * x.err + 2 * n * m * ldexp(1, -prec(a)) + ulp(a, m);
    r.q = 0;
    fl_fix(a, &r);
    return r;
}

static Ab ab_dot(int t, const Node *a, const Node *b, const Ab *acc, bool tf32)
{
    Ab x = a->ab, y = b->ab, r;
    double k = a->ty.d[1];
    double plo, phi;
    iv_mul(x, y, &plo, &phi);
    r.lo = k * plo + acc->lo;
    r.hi = k * phi + acc->hi;
    r.nan = x.nan || y.nan || acc->nan;
    r.err = 0;
    if (!gt_float(t)) {
        int_fix(t, &r);
        return r;
    }
    double mx = ab_mag(x), my = ab_mag(y), m = k * mx * my + ab_mag(*acc);
    r.q = qmin(x.q > 0 && y.q > 0 ? x.q * y.q : 0, acc->q);
    bool tf_exact = !tf32 || (x.q > 0 && y.q > 0 && mx / x.q <= 0x1p11 && my / y.q <= 0x1p11);
    if (x.err == 0 && y.err == 0 && acc->err == 0 && tf_exact && r.q > 0 && m / r.q <= ldexp(1, prec(t)) &&
        m <= fmaxv(t))
        return r;
    r.err = k * (x.err * my + y.err * mx + x.err * y.err) + acc->err + 2 * (k + 1) * m * ldexp(1, -prec(t)) +
            (tf32 ? 2 * k * mx * my * 0x1p-10 : 0) + ulp(t, m);
    r.q = 0;
    fl_fix(t, &r);
    return r;
}

bool ab_node(G *g, int id)
{
    Node *n = &g->nodes[id];
    const Node *k0 = n->k[0] >= 0 ? &g->nodes[n->k[0]] : NULL;
    const Node *k1 = n->k[1] >= 0 ? &g->nodes[n->k[1]] : NULL;
    const Node *k2 = n->k[2] >= 0 ? &g->nodes[n->k[2]] : NULL;
    int t = n->ty.dt;
    bool ok = true;
    Ab r = {0, 0, 0, 1, false};
    switch (n->op) {
    case O_LOAD: {
        const Buf *b = &g->buf[n->a[0]];
        Ab poison = gt_float(t) ? (Ab){-INFINITY, INFINITY, 0, 0, true} : (Ab){gt_min(t), gt_max(t), 0, 1, false};
        if (b->out) { /* what the program stored there (gen_tile_mem.c), or the poison */
            r = b->cont_set ? b->cont : poison;
            if (n->sub)
                r = ab_join(r, poison);
        } else if (gt_float(t)) {
            if (b->gen == 0)
                r = (Ab){b->lo, b->hi, 0, b->q, false};
            else
                r = poison;
        } else if (b->gen == 0) {
            r = (Ab){b->lo, b->hi, 0, 1, false};
        } else {
            r = poison;
        }
        if (k1)
            r = ab_join(r, k2 ? k2->ab : ab_point(t, 0));
        break;
    }
    case O_ARG:
        r = ab_point(t, g->arg[n->a[0]].v);
        break;
    case O_PID:
        r = (Ab){0, g->nprog - 1, 0, 1, false};
        break;
    case O_LOOPI:
        r = (Ab){n->a[1], n->a[2], 0, 1, false};
        break;
    case O_LIT:
    case O_ZEROS:
        r = ab_point(t, n->op == O_LIT ? n->lit : 0);
        break;
    case O_BIN: {
        int p = n->sub == B_LAND || n->sub == B_LOR ? RK_BOOL : gt_promote(k0->ty.dt, k1->ty.dt);
        Ab x = cast_ab(k0->ty.dt, p, k0->ab, &ok), y = cast_ab(k1->ty.dt, p, k1->ab, &ok);
        r = ab_bin(n->sub, p, x, y, &ok);
        break;
    }
    case O_UN:
        r = ab_un(n->sub, t, k0->ab, &ok);
        break;
    case O_CAST:
        r = cast_ab(k0->ty.dt, t, k0->ab, &ok);
        break;
    case O_BITCAST:
        if (gt_float(t)) {
            r = (Ab){-INFINITY, INFINITY, 0, 0, true};
        } else {
            if (gt_float(k0->ty.dt) && (k0->ab.err > 0 || k0->ab.nan))
                ok = false; /* NaN payloads are nobody's business */
            r = (Ab){gt_min(t), gt_max(t), 0, 1, false};
        }
        break;
    case O_WHERE:
        r = ab_join(cast_ab(k1->ty.dt, t, k1->ab, &ok), cast_ab(k2->ty.dt, t, k2->ab, &ok));
        break;
    case O_FMA: {
        Ab x = k0->ab, y = k1->ab, z = k2->ab;
        iv_mul(x, y, &r.lo, &r.hi);
        r.lo += z.lo;
        r.hi += z.hi;
        r.q = qmin(x.q > 0 && y.q > 0 ? x.q * y.q : 0, z.q);
        r.nan = x.nan || y.nan || z.nan || !ab_finite(&x) || !ab_finite(&y) || !ab_finite(&z);
        double m = ab_mag(r);
        if (x.err == 0 && y.err == 0 && z.err == 0 && r.q > 0 && m / r.q <= ldexp(1, prec(t)) && m <= fmaxv(t))
            break; /* exact */
        r.err = x.err * ab_mag(y) + y.err * ab_mag(x) + x.err * y.err + z.err + ulp(t, m);
        r.q = 0;
        fl_fix(t, &r);
        break;
    }
    case O_RED:
    case O_CUMSUM: {
        double len = n->op == O_CUMSUM ? k0->ty.d[n->a[0] < 0 ? k0->ty.rank - 1 : n->a[0]]
                     : n->a[0] < 0    ? gt_elems(k0->ty)
                                      : k0->ty.d[n->a[0]];
        if (n->op == O_CUMSUM || n->sub == R_SUM) {
            r = ab_sum(t, cast_ab(k0->ty.dt, t, k0->ab, &ok), len);
            if (n->op == O_CUMSUM && n->a[2]) { /* an exclusive scan's first element is 0 */
                r.lo = fmin(r.lo, 0);
                r.hi = fmax(r.hi, 0);
            }
        } else if (n->sub == R_MAX || n->sub == R_MIN) {
            r = k0->ab;
        } else {
            if (k0->ab.err > 0 || k0->ab.nan)
                ok = false;
            r = (Ab){0, len - 1, 0, 1, false};
        }
        break;
    }
    case O_DOT: {
        Ab zero = ab_point(t, 0);
        r = ab_dot(t, k0, k1, k2 ? &k2->ab : &zero, n->a[0] != 0);
        break;
    }
    case O_TRANS:
    case O_PERMUTE:
    case O_RESHAPE:
    case O_EXPAND:
    case O_BCAST:
        r = k0->ab;
        break;
    case O_FULL:
        r = k0 ? cast_ab(k0->ty.dt, t, k0->ab, &ok) : ab_point(t, n->lit);
        break;
    case O_ARANGE:
        r = (Ab){n->a[0], n->a[0] + n->ty.d[n->a[1]] - 1, 0, 1, false};
        break;
    case O_IDX:
        r = n->sub == P_SCALAR ? ab_point(t, n->a[0]) : (Ab){0, gt_elems(n->ty) - 1, 0, 1, false};
        break;
    case O_VAR:
        r = g->env[n->a[0]];
        break;
    }
    if (gt_float(t) && !fl_ok(t, &r))
        ok = false;
    n->ab = r;
    return ok;
}

/* ---- statements -------------------------------------------------------------------------------- */

static bool ab_tree(G *g, int id)
{
    Node *n = &g->nodes[id];
    for (int i = 0; i < 3; i++)
        if (n->k[i] >= 0 && g->nodes[n->k[i]].name < 0 && !ab_tree(g, n->k[i]))
            return false;
    return ab_node(g, id);
}

bool ab_block(G *g, int b)
{
    for (int i = 0; i < g->blk[b].n; i++)
        if (!ab_stmt(g, g->blk[b].st[i]))
            return false;
    return true;
}

bool ab_stmt(G *g, int s)
{
    Stmt *t = &g->st[s];
    switch (t->kind) {
    case S_LET:
        return ab_tree(g, t->node);
    case S_VAR:
        if (!ab_tree(g, t->node))
            return false;
        g->env[t->var] = g->nodes[t->node].ab;
        return true;
    case S_ASSIGN: {
        if (!ab_tree(g, t->node))
            return false;
        Ab v = g->nodes[t->node].ab;
        g->env[t->var] = g->join_mode ? ab_join(g->env[t->var], v) : v;
        return true;
    }
    case S_IF: {
        if (!ab_tree(g, t->node))
            return false;
        Ab saved[MAXVAR], then[MAXVAR];
        memcpy(saved, g->env, sizeof saved);
        if (!ab_block(g, t->blk[0]))
            return false;
        memcpy(then, g->env, sizeof then);
        memcpy(g->env, saved, sizeof saved);
        if (t->blk[1] >= 0 && !ab_block(g, t->blk[1]))
            return false;
        for (int v = 0; v < g->nvar; v++)
            g->env[v] = ab_join(g->env[v], then[v]);
        return true;
    }
    case S_FOR:
    case S_WHILE: {
        bool jm = g->join_mode;
        g->join_mode = true;
        if (t->kind == S_FOR)
            ab_node(g, t->loopi);
        for (int i = 0; i < t->trips; i++)
            if (!ab_block(g, t->blk[0]))
                return false;
        g->join_mode = jm;
        return true;
    }
    case S_STORE: {
        if (!ab_tree(g, t->node) || (t->mask >= 0 && g->nodes[t->mask].name < 0 && !ab_tree(g, t->mask)))
            return false;
        Buf *b = &g->buf[t->out];
        bool ok = true;
        Ab v = cast_ab(g->nodes[t->node].ty.dt, b->dt, g->nodes[t->node].ab, &ok);
        if (!ok || (gt_float(b->dt) && !fl_ok(b->dt, &v)))
            return false;
        b->tol = fmax(b->tol, v.err);
        b->cont = b->cont_set ? ab_join(b->cont, v) : v;
        b->cont_set = true;
        return true;
    }
    default:
        return true;
    }
}
