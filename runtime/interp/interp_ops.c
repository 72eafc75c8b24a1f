/* The interpreter's pure ops: constants and indices, elementwise arithmetic, casts, shapes,
 * reductions, scans and dot. Each computes whole tiles from the frame into the frame; operands were
 * checked against their types when the function was compiled (interp_check.c), so nothing here can
 * fail.
 *
 * Corner cases (the language contract and ops.def define them; this is where they are decided):
 *   ints    wrap at their width after every op; x/0 = -1 (all ones), x%0 = x, MIN/-1 = MIN,
 *           MIN%-1 = 0; shift amounts are taken modulo the width; >> is arithmetic on signed types.
 *   floats  computed in double and rounded to the element type after every op (fp_round: straight
 *           from double, round to nearest even); min/max return NaN when either operand is NaN and
 *           order -0 below +0; math functions are libm's in double, then rounded; rsqrt = 1/sqrt.
 *   cmp     eq, lt, le, gt, ge are false on NaN; ne is true (unordered not-equal, as C's !=).
 *   cast    float->int truncates toward zero and saturates, NaN -> 0; int->float and float->float
 *           round to nearest even once; to bool is x != 0 (NaN -> true); pointers and integers
 *           convert through their 64-bit address (truncated or extended like integers).
 *   bitcast reinterprets the memory image; a signalling NaN comes back quiet (payload kept).
 *   reduce  sum/scan accumulate in index order in f32 (f64 for f64 results), ints wrap; max/min
 *           propagate NaN. A reverse scan runs from the last index back; an exclusive one writes the
 *           accumulator before adding the element, starting from the identity (+0, 1, the lowest
 *           value or -inf for max, the highest or +inf for min). argmax/argmin: the first NaN if there is one (as numpy, so that
 *           x[argmax(x)] is max(x) and x[argmin(x)] is min(x)), else the first extreme.
 *   dot     acc[m][n] = fma(a[m][k], b[k][n], acc[m][n]) for k in order, in f32 for 16- and 32-bit
 *           floats (tf32: a and b first rounded to 10 mantissa bits, nearest even), in f64 for f64,
 *           wrapping in the result's width for integers; 16-bit results rounded at the end. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/interp/interp_fp.h"
#include "runtime/interp/interp_internal.h"

/* ---- elementwise semantics ---- */

static double fmin_nan(double x, double y)
{
    if (isnan(x) || isnan(y))
        return NAN;
    if (x == y)
        return signbit(x) ? x : y;
    return x < y ? x : y;
}

static double fmax_nan(double x, double y)
{
    if (isnan(x) || isnan(y))
        return NAN;
    if (x == y)
        return signbit(x) ? y : x;
    return x > y ? x : y;
}

Slot interp_binop(OpCode code, const Elem *e, Slot a, Slot b)
{
    Slot r;
    if (e->cls == EC_FLOAT) {
        double x = a.f, y = b.f, z;
        switch (code) {
        case OP_ADD: z = x + y; break;
        case OP_SUB: z = x - y; break;
        case OP_MUL: z = x * y; break;
        case OP_DIV: z = x / y; break;
        case OP_REM: z = fmod(x, y); break;
        case OP_MIN: z = fmin_nan(x, y); break;
        case OP_MAX: z = fmax_nan(x, y); break;
        case OP_MINNUM: z = isnan(x) ? y : isnan(y) ? x : fmin_nan(x, y); break;
        case OP_MAXNUM: z = isnan(x) ? y : isnan(y) ? x : fmax_nan(x, y); break;
        default: z = NAN; break;
        }
        r.f = fp_round(e->sk, z);
        return r;
    }
    uint64_t x = a.u, y = b.u, z;
    bool sgn = e->cls == EC_SINT;
    unsigned amount = (unsigned)(y % (uint64_t)e->bits);
    switch (code) {
    case OP_ADD: z = x + y; break;
    case OP_SUB: z = x - y; break;
    case OP_MUL: z = x * y; break;
    case OP_DIV:
        if (y == 0)
            z = ~0ull;
        else if (sgn && b.i == -1)
            z = 0 - x; /* MIN / -1 wraps to MIN */
        else
            z = sgn ? (uint64_t)(a.i / b.i) : x / y;
        break;
    case OP_REM:
        if (y == 0)
            z = x;
        else if (sgn && b.i == -1)
            z = 0;
        else
            z = sgn ? (uint64_t)(a.i % b.i) : x % y;
        break;
    case OP_AND: z = x & y; break;
    case OP_OR: z = x | y; break;
    case OP_XOR: z = x ^ y; break;
    case OP_SHL: z = x << amount; break;
    case OP_SHR: z = sgn ? (uint64_t)(a.i >> amount) : x >> amount; break;
    case OP_MIN: z = sgn ? (a.i < b.i ? x : y) : (x < y ? x : y); break;
    case OP_MAX: z = sgn ? (a.i > b.i ? x : y) : (x > y ? x : y); break;
    default: z = 0; break;
    }
    r.u = elem_norm(e, z);
    return r;
}

static Slot unop(OpCode code, const Elem *e, Slot a)
{
    Slot r;
    if (e->cls == EC_FLOAT) {
        double x = a.f, z;
        switch (code) {
        case OP_NEG: z = -x; break;
        case OP_EXP: z = exp(x); break;
        case OP_EXP2: z = exp2(x); break;
        case OP_LOG: z = log(x); break;
        case OP_LOG2: z = log2(x); break;
        case OP_SQRT: z = sqrt(x); break;
        case OP_RSQRT: z = 1.0 / sqrt(x); break;
        case OP_ABS: z = fabs(x); break;
        case OP_FLOOR: z = floor(x); break;
        case OP_CEIL: z = ceil(x); break;
        case OP_SIN: z = sin(x); break;
        case OP_COS: z = cos(x); break;
        default: z = NAN; break;
        }
        r.f = fp_round(e->sk, z);
        return r;
    }
    uint64_t x = a.u, z;
    switch (code) {
    case OP_NEG: z = 0 - x; break;
    case OP_NOT: z = ~x; break;
    case OP_ABS: z = e->cls == EC_SINT && a.i < 0 ? 0 - x : x; break;
    default: z = x; break;
    }
    r.u = elem_norm(e, z);
    return r;
}

static bool cmp(CmpPred p, const Elem *e, Slot a, Slot b)
{
    if (e->cls == EC_FLOAT) {
        double x = a.f, y = b.f;
        switch (p) {
        case PRED_EQ: return x == y;
        case PRED_NE: return x != y;
        case PRED_LT: return x < y;
        case PRED_LE: return x <= y;
        case PRED_GT: return x > y;
        default: return x >= y;
        }
    }
    if (e->cls == EC_SINT) {
        int64_t x = a.i, y = b.i;
        switch (p) {
        case PRED_EQ: return x == y;
        case PRED_NE: return x != y;
        case PRED_LT: return x < y;
        case PRED_LE: return x <= y;
        case PRED_GT: return x > y;
        default: return x >= y;
        }
    }
    uint64_t x = a.u, y = b.u;
    switch (p) {
    case PRED_EQ: return x == y;
    case PRED_NE: return x != y;
    case PRED_LT: return x < y;
    case PRED_LE: return x <= y;
    case PRED_GT: return x > y;
    default: return x >= y;
    }
}

/* Truncation toward zero, saturating at the type's range; NaN -> 0. */
static uint64_t float_to_int(const Elem *d, double x)
{
    if (isnan(x))
        return 0;
    double t = trunc(x);
    if (d->cls == EC_SINT) {
        double hi = ldexp(1.0, d->bits - 1); /* 2^(bits-1): the first value out of range */
        if (t >= hi)
            return elem_norm(d, (1ull << (d->bits - 1)) - 1);
        if (t < -hi)
            return elem_norm(d, 0 - (1ull << (d->bits - 1)));
        return elem_norm(d, (uint64_t)(int64_t)t);
    }
    if (t <= 0)
        return 0;
    if (t >= ldexp(1.0, d->bits))
        return d->mask;
    return (uint64_t)t;
}

static Slot cast(const Elem *d, const Elem *s, Slot a)
{
    Slot r;
    if (d->cls == EC_BOOL) {
        r.u = s->cls == EC_FLOAT ? a.f != 0 : a.u != 0;
        return r;
    }
    if (d->cls == EC_FLOAT) {
        if (s->cls == EC_FLOAT)
            r.f = fp_round(d->sk, a.f);
        else if (s->cls == EC_SINT)
            r.f = interp_i64_to_float(a.i, d->sk);
        else
            r.f = interp_u64_to_float(a.u, d->sk);
        return r;
    }
    /* integer or pointer destination */
    if (s->cls == EC_FLOAT)
        r.u = float_to_int(d, a.f);
    else
        r.u = elem_norm(d, a.u);
    return r;
}

uint64_t interp_to_bits(const Elem *e, Slot s)
{
    if (e->cls != EC_FLOAT)
        return s.u & e->mask;
    switch (e->sk) {
    case SK_F16:
        return f64_to_f16(s.f);
    case SK_BF16:
        return f64_to_bf16(s.f);
    case SK_F32: {
        float f = (float)s.f;
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        return u;
    }
    default: {
        uint64_t u;
        memcpy(&u, &s.f, sizeof u);
        return u;
    }
    }
}

Slot interp_from_bits(const Elem *e, uint64_t bits)
{
    Slot r;
    if (e->cls == EC_BOOL) {
        r.u = (bits & 0xFF) != 0;
        return r;
    }
    if (e->cls != EC_FLOAT) {
        r.u = elem_norm(e, bits);
        return r;
    }
    switch (e->sk) {
    case SK_F16:
        r.f = f16_to_f32((uint16_t)bits);
        break;
    case SK_BF16:
        r.f = bf16_to_f32((uint16_t)bits);
        break;
    case SK_F32: {
        uint32_t u = (uint32_t)bits;
        float f;
        memcpy(&f, &u, sizeof f);
        r.f = f;
        break;
    }
    default:
        memcpy(&r.f, &bits, sizeof r.f);
        break;
    }
    return r;
}

/* ---- shapes ---- */

/* A value's shape padded on the left to rank 4, and its row-major strides. */
static void shape4(const VInfo *v, int64_t shape[4], int64_t stride[4])
{
    int k = 4 - v->rank;
    for (int i = 0; i < 4; i++)
        shape[i] = i < k ? 1 : v->shape[i - k];
    int64_t s = 1;
    for (int i = 3; i >= 0; i--) {
        stride[i] = s;
        s *= shape[i];
    }
}

/* dst (contiguous, of shape shp) = src read through strides st. */
static void gather4(Slot *dst, const Slot *src, const int64_t shp[4], const int64_t st[4])
{
    for (int64_t a = 0; a < shp[0]; a++)
        for (int64_t b = 0; b < shp[1]; b++)
            for (int64_t c = 0; c < shp[2]; c++) {
                const Slot *s = src + a * st[0] + b * st[1] + c * st[2];
                for (int64_t d = 0; d < shp[3]; d++)
                    *dst++ = s[d * st[3]];
            }
}

static void exec_broadcast(Ctx *c, const Node *n)
{
    const VInfo *x = vinfo(c, n->in[0]), *r = vinfo(c, n->out[0]);
    int64_t xs[4], xst[4], rs[4], rst[4];
    shape4(x, xs, xst);
    shape4(r, rs, rst);
    for (int i = 0; i < 4; i++)
        if (xs[i] == 1)
            xst[i] = 0;
    gather4(val(c, n->out[0]), val(c, n->in[0]), rs, xst);
}

static void exec_permute(Ctx *c, const Node *n)
{
    const VInfo *x = vinfo(c, n->in[0]), *r = vinfo(c, n->out[0]);
    int64_t xs[4], xst[4], rs[4], rst[4], st[4];
    shape4(x, xs, xst);
    shape4(r, rs, rst);
    int k = 4 - r->rank;
    for (int i = 0; i < 4; i++)
        st[i] = i < k ? 0 : xst[4 - x->rank + n->op->at.dims[i - k]];
    gather4(val(c, n->out[0]), val(c, n->in[0]), rs, st);
}

/* ---- reductions and scans ---- */

/* The operand seen as [outer, len, inner] around the axis. */
static void around_axis(const VInfo *x, int axis, int64_t *outer, int64_t *len, int64_t *inner)
{
    *outer = *inner = 1;
    *len = x->rank ? x->shape[axis] : 1;
    for (int i = 0; i < x->rank; i++) {
        if (i < axis)
            *outer *= x->shape[i];
        else if (i > axis)
            *inner *= x->shape[i];
    }
}

/* Sum accumulator: f32 unless the result is f64. */
static double acc_add(double acc, double x, bool wide)
{
    return wide ? acc + x : (double)(float)(acc + x);
}

/* Product accumulator (cumprod), likewise. */
static double acc_mul(double acc, double x, bool wide)
{
    return wide ? acc * x : (double)(float)(acc * x);
}

/* Is x a better pick than best for argmax (max = true) or argmin? Strict, so ties keep the first. */
static bool arg_better(const Elem *e, Slot x, Slot best, bool max)
{
    if (e->cls == EC_FLOAT) {
        if (isnan(best.f))
            return false;
        if (isnan(x.f))
            return true;
        if (x.f == best.f)
            return x.f == 0 && signbit(x.f) != signbit(best.f) && (max ? signbit(best.f) : signbit(x.f));
        return max ? x.f > best.f : x.f < best.f;
    }
    if (e->cls == EC_SINT)
        return max ? x.i > best.i : x.i < best.i;
    return max ? x.u > best.u : x.u < best.u;
}

static void exec_reduce(Ctx *c, const Node *n)
{
    const VInfo *x = vinfo(c, n->in[0]), *r = vinfo(c, n->out[0]);
    const Slot *xs = val(c, n->in[0]);
    Slot *rs = val(c, n->out[0]);
    int64_t outer, len, inner;
    around_axis(x, (int)n->op->at.axis, &outer, &len, &inner);
    OpCode code = n->op->code;
    int64_t kind = n->op->at.kind;
    bool isf = x->el.cls == EC_FLOAT, wide = r->el.sk == SK_F64 || x->el.sk == SK_F64;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            const Slot *p = xs + o * len * inner + i;
            Slot *out = rs + o * inner + i;
            if (code == OP_ARGREDUCE) {
                int64_t best = 0;
                for (int64_t k = 1; k < len; k++)
                    if (arg_better(&x->el, p[k * inner], p[best * inner], kind == KIND_ARGMAX))
                        best = k;
                out->u = elem_norm(&r->el, (uint64_t)best);
                continue;
            }
            if (isf) {
                double acc = wide ? p[0].f : (double)(float)p[0].f;
                for (int64_t k = 1; k < len; k++) {
                    double v = p[k * inner].f;
                    if (kind == KIND_SUM)
                        acc = acc_add(acc, v, wide);
                    else if (kind == KIND_PROD)
                        acc = acc_mul(acc, v, wide);
                    else if (kind == KIND_MAXNUM || kind == KIND_MINNUM) /* NaN ignored: the other */
                        acc = isnan(acc) ? v : isnan(v) ? acc : kind == KIND_MAXNUM ? fmax_nan(acc, v) : fmin_nan(acc, v);
                    else
                        acc = kind == KIND_MAX ? fmax_nan(acc, v) : fmin_nan(acc, v);
                }
                out->f = fp_round(r->el.sk, acc);
                continue;
            }
            Slot acc = p[0];
            for (int64_t k = 1; k < len; k++) {
                Slot v = p[k * inner];
                if (kind == KIND_SUM)
                    acc.u += v.u;
                else if (kind == KIND_PROD)
                    acc.u *= v.u;
                else if (kind == KIND_MAX || kind == KIND_MAXNUM ? arg_better(&x->el, v, acc, true)
                                                                 : arg_better(&x->el, v, acc, false))
                    acc = v;
            }
            out->u = elem_norm(&r->el, acc.u);
        }
}

/* The exclusive scan's first value: the identity of kind in e (+0 for float sums). */
static Slot scan_identity(const Elem *e, int64_t kind)
{
    Slot s = {0};
    bool fl = e->cls == EC_FLOAT, sgn = e->cls == EC_SINT;
    uint64_t top = e->bits >= 64 ? 1ull << 63 : 1ull << (e->bits - 1);
    switch (kind) {
    case KIND_PROD:
        if (fl)
            s.f = 1.0;
        else
            s.u = 1;
        break;
    case KIND_MAX:
        if (fl)
            s.f = -INFINITY;
        else
            s.u = elem_norm(e, sgn ? top : 0);
        break;
    case KIND_MIN:
        if (fl)
            s.f = INFINITY;
        else
            s.u = elem_norm(e, sgn ? top - 1 : ~0ull);
        break;
    default:
        if (fl)
            s.f = 0.0;
        break;
    }
    return s;
}

/* scan: in index order, or from the last index back (reverse); exclusive writes the accumulator before
 * the element joins it, the identity first */
static void exec_scan(Ctx *c, const Node *n)
{
    const VInfo *x = vinfo(c, n->in[0]), *r = vinfo(c, n->out[0]);
    const Slot *xs = val(c, n->in[0]);
    Slot *rs = val(c, n->out[0]);
    int64_t outer, len, inner;
    around_axis(x, (int)n->op->at.axis, &outer, &len, &inner);
    int64_t kind = n->op->at.kind;
    bool rev = n->op->at.reverse, excl = n->op->at.exclusive;
    bool isf = x->el.cls == EC_FLOAT, wide = r->el.sk == SK_F64 || x->el.sk == SK_F64;
    Slot id = scan_identity(&r->el, kind);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            const Slot *p = xs + o * len * inner + i;
            Slot *out = rs + o * len * inner + i;
            Slot acc = id; /* as written out; floats accumulate in a (f32 or f64), rounded to r on the way out */
            double a = 0;
            for (int64_t k = 0; k < len; k++) {
                int64_t at = (rev ? len - 1 - k : k) * inner;
                Slot v = p[at];
                if (excl)
                    out[at] = acc;
                if (isf) {
                    double y = v.f;
                    if (k == 0)
                        a = wide ? y : (double)(float)y;
                    else if (kind == KIND_SUM)
                        a = acc_add(a, y, wide);
                    else if (kind == KIND_PROD)
                        a = acc_mul(a, y, wide);
                    else
                        a = kind == KIND_MAX ? fmax_nan(a, y) : fmin_nan(a, y);
                    acc.f = fp_round(r->el.sk, a);
                } else {
                    if (k == 0)
                        acc = v;
                    else if (kind == KIND_SUM)
                        acc.u += v.u;
                    else if (kind == KIND_PROD)
                        acc.u *= v.u;
                    else if (arg_better(&x->el, v, acc, kind == KIND_MAX))
                        acc = v;
                    acc.u = elem_norm(&r->el, acc.u);
                }
                if (!excl)
                    out[at] = acc;
            }
        }
}

/* ---- dot ---- */

static float *ftmp(Ctx *c, size_t n)
{
    if (n > c->ftmp_cap) {
        float *p = realloc(c->ftmp, n * sizeof *p);
        if (!p)
            return NULL;
        c->ftmp = p;
        c->ftmp_cap = n;
    }
    return c->ftmp;
}

static bool exec_dot(Ctx *c, const Node *n)
{
    const VInfo *a = vinfo(c, n->in[0]), *b = vinfo(c, n->in[1]), *r = vinfo(c, n->out[0]);
    const Slot *as = val(c, n->in[0]), *bs = val(c, n->in[1]), *cs = val(c, n->in[2]);
    Slot *rs = val(c, n->out[0]);
    int64_t M = a->shape[0], K = a->shape[1], N = b->shape[1];
    const Elem *re = &r->el;
    if (re->cls != EC_FLOAT) {
        /* integers: products and sums wrap in the result's width */
        for (int64_t i = 0; i < M * N; i++)
            rs[i] = cs[i];
        for (int64_t m = 0; m < M; m++)
            for (int64_t k = 0; k < K; k++) {
                uint64_t x = as[m * K + k].u;
                const Slot *brow = bs + k * N;
                Slot *rrow = rs + m * N;
                for (int64_t j = 0; j < N; j++)
                    rrow[j].u = elem_norm(re, rrow[j].u + x * brow[j].u);
            }
        return true;
    }
    if (re->sk == SK_F64) {
        for (int64_t i = 0; i < M * N; i++)
            rs[i] = cs[i];
        for (int64_t m = 0; m < M; m++)
            for (int64_t k = 0; k < K; k++) {
                double x = as[m * K + k].f;
                const Slot *brow = bs + k * N;
                Slot *rrow = rs + m * N;
                for (int64_t j = 0; j < N; j++)
                    rrow[j].f = fma(x, brow[j].f, rrow[j].f);
            }
        return true;
    }
    /* f32 accumulation: the operands as floats (exact for 16-bit and f32 inputs), then an fma per k */
    size_t na = (size_t)(M * K), nb = (size_t)(K * N), nc = (size_t)(M * N);
    float *fa = ftmp(c, na + nb + nc);
    if (!fa)
        return interp_fail(c, n->op, INTERP_ERR_NOMEM, "out of memory in dot");
    float *fb = fa + na, *fc = fb + nb;
    bool tf32 = n->op->at.kind == KIND_TF32;
    for (size_t i = 0; i < na; i++)
        fa[i] = (float)(tf32 ? interp_round_tf32(as[i].f) : as[i].f);
    for (size_t i = 0; i < nb; i++)
        fb[i] = (float)(tf32 ? interp_round_tf32(bs[i].f) : bs[i].f);
    for (size_t i = 0; i < nc; i++)
        fc[i] = (float)cs[i].f;
    for (int64_t m = 0; m < M; m++)
        for (int64_t k = 0; k < K; k++) {
            float x = fa[m * K + k];
            const float *brow = fb + k * N;
            float *crow = fc + m * N;
            for (int64_t j = 0; j < N; j++)
                crow[j] = fmaf(x, brow[j], crow[j]);
        }
    for (size_t i = 0; i < nc; i++)
        rs[i].f = fp_round(re->sk, fc[i]);
    return true;
}

/* ---- dispatch ---- */

bool interp_exec_pure(Ctx *c, const Node *n)
{
    const Op *op = n->op;
    const VInfo *r = op->nres ? vinfo(c, n->out[0]) : NULL;
    Slot *rs = op->nres ? val(c, n->out[0]) : NULL;
    int64_t cnt = r ? r->n : 0;
    switch (op->code) {
    case OP_CONST: {
        Slot v;
        if (r->el.cls == EC_FLOAT)
            v.f = fp_round(r->el.sk, op->at.value.f);
        else
            v.u = elem_norm(&r->el, (uint64_t)op->at.value.i);
        for (int64_t i = 0; i < cnt; i++)
            rs[i] = v;
        return true;
    }
    case OP_PROGRAM_ID:
        rs[0].u = elem_norm(&r->el, c->pid[op->at.axis]);
        return true;
    case OP_NUM_PROGRAMS:
        rs[0].u = elem_norm(&r->el, c->sh->grid[op->at.axis]);
        return true;
    case OP_ARANGE:
        for (int64_t i = 0; i < cnt; i++)
            rs[i].u = elem_norm(&r->el, (uint64_t)(op->at.start + i));
        return true;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_REM: case OP_AND: case OP_OR:
    case OP_XOR: case OP_SHL: case OP_SHR: case OP_MIN: case OP_MAX: case OP_MINNUM: case OP_MAXNUM: {
        const Slot *a = val(c, n->in[0]), *b = val(c, n->in[1]);
        for (int64_t i = 0; i < cnt; i++)
            rs[i] = interp_binop(op->code, &r->el, a[i], b[i]);
        return true;
    }
    case OP_CMP: {
        const Slot *a = val(c, n->in[0]), *b = val(c, n->in[1]);
        const Elem *e = &vinfo(c, n->in[0])->el;
        for (int64_t i = 0; i < cnt; i++)
            rs[i].u = cmp((CmpPred)op->at.pred, e, a[i], b[i]);
        return true;
    }
    case OP_SELECT: {
        const Slot *k = val(c, n->in[0]), *a = val(c, n->in[1]), *b = val(c, n->in[2]);
        for (int64_t i = 0; i < cnt; i++)
            rs[i] = k[i].u ? a[i] : b[i];
        return true;
    }
    case OP_NEG: case OP_NOT: case OP_EXP: case OP_EXP2: case OP_LOG: case OP_LOG2: case OP_SQRT:
    case OP_RSQRT: case OP_ABS: case OP_FLOOR: case OP_CEIL: case OP_SIN: case OP_COS: {
        const Slot *a = val(c, n->in[0]);
        for (int64_t i = 0; i < cnt; i++)
            rs[i] = unop(op->code, &r->el, a[i]);
        return true;
    }
    case OP_FMA: {
        const Slot *a = val(c, n->in[0]), *b = val(c, n->in[1]), *d = val(c, n->in[2]);
        for (int64_t i = 0; i < cnt; i++)
            rs[i].f = fp_fma(a[i].f, b[i].f, d[i].f, r->el.sk);
        return true;
    }
    case OP_CAST: {
        const Slot *a = val(c, n->in[0]);
        const Elem *s = &vinfo(c, n->in[0])->el;
        for (int64_t i = 0; i < cnt; i++)
            rs[i] = cast(&r->el, s, a[i]);
        return true;
    }
    case OP_BITCAST: {
        const Slot *a = val(c, n->in[0]);
        const Elem *s = &vinfo(c, n->in[0])->el;
        for (int64_t i = 0; i < cnt; i++)
            rs[i] = interp_from_bits(&r->el, interp_to_bits(s, a[i]));
        return true;
    }
    case OP_ADDPTR: {
        const Slot *a = val(c, n->in[0]), *b = val(c, n->in[1]);
        uint64_t size = (uint64_t)r->el.psize;
        for (int64_t i = 0; i < cnt; i++)
            rs[i].u = a[i].u + b[i].u * size;
        return true;
    }
    case OP_SPLAT: {
        Slot v = val(c, n->in[0])[0];
        for (int64_t i = 0; i < cnt; i++)
            rs[i] = v;
        return true;
    }
    case OP_BROADCAST:
        exec_broadcast(c, n);
        return true;
    case OP_PERMUTE:
        exec_permute(c, n);
        return true;
    case OP_EXPAND_DIMS:
    case OP_RESHAPE:
    case OP_HINT:
    case OP_CONVERT_LAYOUT: /* LIR: the values do not depend on the layout */
        memcpy(rs, val(c, n->in[0]), (size_t)cnt * sizeof(Slot));
        return true;
    case OP_REDUCE:
    case OP_ARGREDUCE:
        exec_reduce(c, n);
        return true;
    case OP_SCAN:
        exec_scan(c, n);
        return true;
    case OP_DOT:
        return exec_dot(c, n);
    default:
        return interp_fail(c, op, INTERP_ERR_INVALID, "the interpreter cannot run op '%s'", op_info(op)->name);
    }
}
