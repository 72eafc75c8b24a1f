/* Elementwise families: binary operators (1-D, 2-D, with a scalar on either side), comparisons,
 * bool operators, integer unary operators, where and cdiv, over every dtype where meaningful. The
 * references here are written from the language's rules (docs/language.md): integers wrap, x/0 = -1,
 * x%0 = x, MIN/-1 = MIN, shift amounts modulo the width, >> arithmetic on signed types; floats are
 * computed exactly and rounded once to the type (which is what f32 arithmetic on 16-bit values does
 * too: f32 has more than twice their precision); minimum/maximum propagate NaN and order -0 < +0, and
 * with propagate_nan = false a NaN operand gives the other (IEEE 754-2019 minimumNumber). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/run/cases.h"

enum { B_ADD, B_SUB, B_MUL, B_DIV, B_REM, B_AND, B_OR, B_XOR, B_SHL, B_SHR, B_MIN, B_MAX, B_MINNUM, B_MAXNUM, B_CDIV, NB };
static const char *const BNAME[NB] = {"add", "sub", "mul", "div", "rem", "and", "or", "xor",
                                      "shl", "shr", "minimum", "maximum", "minimum_num", "maximum_num", "cdiv"};
static const char *const CNAME[6] = {"eq", "ne", "lt", "le", "gt", "ge"};

double ref_fmin(double x, double y)
{
    if (isnan(x) || isnan(y))
        return NAN;
    if (x == y)
        return signbit(x) ? x : y;
    return x < y ? x : y;
}

double ref_fmax(double x, double y)
{
    if (isnan(x) || isnan(y))
        return NAN;
    if (x == y)
        return signbit(x) ? y : x;
    return x > y ? x : y;
}

double ref_float_binop(int op, rk_dtype t, double x, double y)
{
    double z;
    switch (op) {
    case B_ADD: z = x + y; break;
    case B_SUB: z = x - y; break;
    case B_MUL: z = x * y; break;
    case B_DIV: z = x / y; break;
    case B_REM: z = fmod(x, y); break;
    case B_MIN: z = ref_fmin(x, y); break;
    case B_MAX: z = ref_fmax(x, y); break;
    case B_MINNUM: z = isnan(x) ? y : isnan(y) ? x : ref_fmin(x, y); break;
    case B_MAXNUM: z = isnan(x) ? y : isnan(y) ? x : ref_fmax(x, y); break;
    default: z = NAN; break;
    }
    return rnd(t, z);
}

int64_t ref_int_binop(int op, rk_dtype t, int64_t a, int64_t b)
{
    uint64_t x = (uint64_t)a, y = (uint64_t)b;
    bool sg = dt_signed(t);
    int bits = dt_bits(t);
    unsigned amt = (unsigned)(y & (uint64_t)(bits - 1));
    switch (op) {
    case B_ADD: return iwrap(t, (int64_t)(x + y));
    case B_SUB: return iwrap(t, (int64_t)(x - y));
    case B_MUL: return iwrap(t, (int64_t)(x * y));
    case B_DIV:
        if (b == 0)
            return iwrap(t, -1);
        if (sg && b == -1)
            return iwrap(t, (int64_t)(0 - x));
        return iwrap(t, sg ? a / b : (int64_t)(x / y));
    case B_REM:
        if (b == 0)
            return a;
        if (sg && b == -1)
            return 0;
        return iwrap(t, sg ? a % b : (int64_t)(x % y));
    case B_AND: return iwrap(t, (int64_t)(x & y));
    case B_OR: return iwrap(t, (int64_t)(x | y));
    case B_XOR: return iwrap(t, (int64_t)(x ^ y));
    case B_SHL: return iwrap(t, (int64_t)(x << amt));
    case B_SHR: return iwrap(t, sg ? a >> amt : (int64_t)(x >> amt));
    case B_MIN: case B_MINNUM: return sg ? (a < b ? a : b) : (x < y ? a : b);
    case B_MAX: case B_MAXNUM: return sg ? (a > b ? a : b) : (x > y ? a : b);
    case B_CDIV: /* (a + b - 1) / b in the type, with the division's own rules */
        return ref_int_binop(B_DIV, t, ref_int_binop(B_SUB, t, ref_int_binop(B_ADD, t, a, b), 1), b);
    default: return 0;
    }
}

static bool ref_cmp(int op, rk_dtype t, const void *xa, const void *ya, size_t i)
{
    if (dt_float(t)) {
        double x = fget(t, xa, i), y = fget(t, ya, i);
        switch (op) {
        case 0: return x == y;
        case 1: return x != y;
        case 2: return x < y;
        case 3: return x <= y;
        case 4: return x > y;
        default: return x >= y;
        }
    }
    int64_t a = iget(t, xa, i), b = iget(t, ya, i);
    if (!dt_signed(t)) {
        uint64_t x = (uint64_t)a, y = (uint64_t)b;
        switch (op) {
        case 0: return x == y;
        case 1: return x != y;
        case 2: return x < y;
        case 3: return x <= y;
        case 4: return x > y;
        default: return x >= y;
        }
    }
    switch (op) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    default: return a >= b;
    }
}

int pick_n(Run *r, int block)
{
    return block * (int)rng_range(&r->rng, 0, 2) + (int)rng_range(&r->rng, 1, block - 1);
}

/* ---- binary operators, 1-D ---- */

static void setup_binary(Run *r)
{
    const Case *c = r->c;
    rk_dtype t = c->dt[0];
    int n = pick_n(r, c->p[1]);
    Gen g = MIX(-8, 8);
    in_buf(r, "x", t, (size_t)n, g);
    in_buf(r, "y", t, (size_t)n, g);
    out_buf(r, "out", t, (size_t)n);
    arg(r, rk_arg_i32(n));
}

static void check_binary(Run *r)
{
    HBuf *x = &r->bufs[0], *y = &r->bufs[1], *o = &r->bufs[2];
    int op = r->c->p[0];
    rk_dtype t = o->dt;
    for (size_t i = 0; i < o->n; i++) {
        if (dt_float(t))
            ref_f(o, i, ref_float_binop(op, t, fget(t, x->host, i), fget(t, y->host, i)));
        else
            ref_i(o, i, ref_int_binop(op, t, iget(t, x->host, i), iget(t, y->host, i)));
    }
    expect_buf(r, o, EXACT);
}

/* ---- binary operators, 2-D ---- */

static void setup_binary2d(Run *r)
{
    const Case *c = r->c;
    rk_dtype t = c->dt[0];
    int br = c->p[1], bc = c->p[2];
    int rows = br * (int)rng_range(&r->rng, 0, 1) + (int)rng_range(&r->rng, 1, br);
    int cols = bc * (int)rng_range(&r->rng, 0, 1) + (int)rng_range(&r->rng, 1, bc);
    size_t n = (size_t)rows * (size_t)cols;
    in_buf(r, "x", t, n, MIX(-8, 8));
    in_buf(r, "y", t, n, MIX(-8, 8));
    HBuf *o = out_buf(r, "out", t, n);
    o->cols = cols;
    arg(r, rk_arg_i32(rows));
    arg(r, rk_arg_i32(cols));
}

/* ---- a scalar operand ---- */

static rk_arg scalar_of(rk_dtype t, const void *p)
{
    switch (t) {
    case RK_F32: return rk_arg_f32((float)fget(t, p, 0));
    case RK_F16: return rk_arg_f16((uint16_t)ibits(t, p, 0));
    case RK_BF16: return rk_arg_bf16((uint16_t)ibits(t, p, 0));
    case RK_I8: return rk_arg_i8((int8_t)iget(t, p, 0));
    case RK_I32: return rk_arg_i32((int32_t)iget(t, p, 0));
    case RK_U32: return rk_arg_u32((uint32_t)iget(t, p, 0));
    case RK_I64: return rk_arg_i64(iget(t, p, 0));
    default: return rk_arg_bool(ibits(t, p, 0) != 0);
    }
}

static void setup_binary_scalar(Run *r)
{
    const Case *c = r->c;
    rk_dtype t = c->dt[0];
    int n = pick_n(r, c->p[1]);
    in_buf(r, "x", t, (size_t)n, MIX(-8, 8));
    /* the scalar: drawn into a one-element host buffer that is not an argument */
    uint8_t s[8];
    HBuf tmp = {.dt = t, .n = 1, .esize = rk_dtype_size(t), .host = s};
    Gen g = MIX(-8, 8);
    if (c->p[0] == B_SHL || c->p[0] == B_SHR)
        g = UNI(0, dt_bits(t) * 2 - 1);
    fill_one(r, &tmp, 0, g);
    if (dt_float(t) && isnan(fget(t, s, 0)))
        fset(t, s, 0, 1.5);
    arg(r, scalar_of(t, s));
    out_buf(r, "out", t, (size_t)n);
    arg(r, rk_arg_i32(n));
    memcpy(r->scratch, s, sizeof s);
}

static void check_binary_scalar(Run *r)
{
    HBuf *x = &r->bufs[0], *o = &r->bufs[1];
    int op = r->c->p[0];
    bool swap = r->c->p[2];
    rk_dtype t = o->dt;
    for (size_t i = 0; i < o->n; i++) {
        if (dt_float(t)) {
            double a = fget(t, x->host, i), s = fget(t, r->scratch, 0);
            ref_f(o, i, swap ? ref_float_binop(op, t, s, a) : ref_float_binop(op, t, a, s));
        } else {
            int64_t a = iget(t, x->host, i), s = iget(t, r->scratch, 0);
            ref_i(o, i, swap ? ref_int_binop(op, t, s, a) : ref_int_binop(op, t, a, s));
        }
    }
    expect_buf(r, o, EXACT);
}

/* ---- comparisons ---- */

static void setup_compare(Run *r)
{
    const Case *c = r->c;
    rk_dtype t = c->dt[0];
    int n = pick_n(r, c->p[1]);
    /* a narrow range so that equal operands are common */
    Gen g = dt_float(t) ? MIX(-2, 2) : UNI(dt_signed(t) ? -3 : 0, 3);
    HBuf *x = in_buf(r, "x", t, (size_t)n, g);
    HBuf *y = in_buf(r, "y", t, (size_t)n, g);
    if (!dt_float(t)) /* and some extremes */
        for (size_t i = 0; i < x->n; i += 7) {
            fill_one(r, x, i, MIX(0, 0));
            fill_one(r, y, i, MIX(0, 0));
        }
    else
        for (size_t i = 0; i < x->n; i += 5)
            fset(t, x->host, i, rnd(t, (double)(int)rng_range(&r->rng, -2, 2) / 2));
    out_buf(r, "out", RK_I8, (size_t)n);
    arg(r, rk_arg_i32(n));
}

static void check_compare(Run *r)
{
    HBuf *x = &r->bufs[0], *y = &r->bufs[1], *o = &r->bufs[2];
    for (size_t i = 0; i < o->n; i++)
        ref_i(o, i, ref_cmp(r->c->p[0], x->dt, x->host, y->host, i));
    expect_buf(r, o, EXACT);
}

/* ---- bool operators ---- */

static void setup_boolean(Run *r)
{
    int n = pick_n(r, r->c->p[1]);
    HBuf *x = in_buf(r, "x", RK_I8, (size_t)n, BOOLS);
    HBuf *y = in_buf(r, "y", RK_I8, (size_t)n, BOOLS);
    /* any non-zero byte is true */
    for (size_t i = 0; i < x->n; i += 3) {
        fill_one(r, x, i, BITS);
        fill_one(r, y, i, BITS);
    }
    out_buf(r, "out", RK_I8, (size_t)n);
    arg(r, rk_arg_i32(n));
}

static void check_boolean(Run *r)
{
    HBuf *x = &r->bufs[0], *y = &r->bufs[1], *o = &r->bufs[2];
    for (size_t i = 0; i < o->n; i++) {
        bool a = iget(RK_I8, x->host, i) != 0, b = iget(RK_I8, y->host, i) != 0, z;
        switch (r->c->p[0]) {
        case 0: z = a & b; break;
        case 1: z = a | b; break;
        case 2: z = a ^ b; break;
        case 3: z = a == b; break;
        case 4: z = a != b; break;
        case 5: z = !a; break;
        default: z = a ? b : !b; break;
        }
        ref_i(o, i, z);
    }
    expect_buf(r, o, EXACT);
}

/* ---- integer unary operators: -x, ~x, abs ---- */

static void setup_unary_int(Run *r)
{
    rk_dtype t = r->c->dt[0];
    int n = pick_n(r, r->c->p[1]);
    in_buf(r, "x", t, (size_t)n, MIX(0, 0));
    out_buf(r, "out", t, (size_t)n);
    arg(r, rk_arg_i32(n));
}

static void check_unary_int(Run *r)
{
    HBuf *x = &r->bufs[0], *o = &r->bufs[1];
    rk_dtype t = o->dt;
    for (size_t i = 0; i < o->n; i++) {
        int64_t a = iget(t, x->host, i);
        uint64_t u = (uint64_t)a;
        switch (r->c->p[0]) {
        case 0: ref_i(o, i, iwrap(t, (int64_t)(0 - u))); break;
        case 1: ref_i(o, i, iwrap(t, (int64_t)~u)); break;
        default: ref_i(o, i, dt_signed(t) && a < 0 ? iwrap(t, (int64_t)(0 - u)) : a); break;
        }
    }
    expect_buf(r, o, EXACT);
}

/* ---- where ---- */

static void setup_select(Run *r)
{
    rk_dtype t = r->c->dt[0];
    int n = pick_n(r, r->c->p[1]);
    in_buf(r, "c", RK_I8, (size_t)n, BOOLS);
    in_buf(r, "x", t, (size_t)n, MIX(-8, 8));
    in_buf(r, "y", t, (size_t)n, MIX(-8, 8));
    out_buf(r, "out", t, (size_t)n);
    arg(r, rk_arg_i32(n));
}

static void check_select(Run *r)
{
    HBuf *k = &r->bufs[0], *x = &r->bufs[1], *y = &r->bufs[2], *o = &r->bufs[3];
    for (size_t i = 0; i < o->n; i++)
        ref_bits(o, i, (uint8_t *)(iget(RK_I8, k->host, i) ? x->host : y->host) + i * o->esize);
    expect_buf(r, o, EXACT);
}

/* ---- registration ---- */

static Case *elem_case(const char *kernel, SetupFn s, CheckFn ck, int op, rk_dtype t, int i, const char *what)
{
    int block, warps;
    pick_shape(i, &block, &warps);
    Case *c = add_case("elem.tile", kernel, s, ck, "elem/%s/%s/%s/b%d/w%d", kernel, what, tname(t), block, warps);
    c->p[0] = op;
    c->p[1] = block;
    c->dt[0] = t;
    case_define(c, "T=%s OP=%d BLOCK=%d num_warps=%d", tname(t), op, block, warps);
    return c;
}

void gen_elem(void)
{
    int k = 0;
    for (int ti = 0; ti < NALL_TYPES; ti++) {
        rk_dtype t = ALL_TYPES[ti];
        bool fl = dt_float(t);
        for (int op = 0; op < NB; op++) {
            bool intonly = op >= B_AND && op <= B_SHR;
            if ((fl && (intonly || op == B_CDIV)))
                continue;
            elem_case("binary", setup_binary, check_binary, op, t, k++, BNAME[op]);
        }
        for (int op = 0; op < 6; op++)
            elem_case("compare", setup_compare, check_compare, op, t, k++, CNAME[op]);
        elem_case("select", setup_select, check_select, 0, t, k++, "where");
        /* a scalar on the right and on the left */
        static const int sops[] = {B_ADD, B_SUB, B_MUL, B_DIV, B_MAX, B_SHL, B_SHR};
        for (int s = 0; s < 7; s++) {
            if (fl && (sops[s] == B_SHL || sops[s] == B_SHR))
                continue;
            for (int swap = 0; swap < 2; swap++) {
                Case *c = elem_case("binary_scalar", setup_binary_scalar, check_binary_scalar, sops[s], t, k++,
                                    swap ? BNAME[sops[s]] : BNAME[sops[s]]);
                c->p[2] = swap;
                case_define(c, "SWAP=%s", swap ? "true" : "false");
                size_t len = strlen(c->name);
                snprintf(c->name + len, sizeof c->name - len, "/%s", swap ? "scalar-left" : "scalar-right");
            }
        }
        if (!fl)
            for (int op = 0; op < 3; op++)
                elem_case("unary", setup_unary_int, check_unary_int, op, t, k++,
                          op == 0 ? "neg" : op == 1 ? "not" : "abs");
        else {
            Case *c = elem_case("unary", setup_unary_int, check_unary_int, 0, t, k++, "neg");
            c->setup = setup_math; /* shares the float unary reference */
            c->check = check_math;
        }
        /* 2-D tiles */
        static const int shapes[][3] = {{32, 64, 4}, {64, 64, 8}, {16, 128, 2}, {64, 32, 1}};
        for (int s = 0; s < 4; s++) {
            int op = s % 2 ? B_MAX : B_ADD;
            if (!fl && s == 2)
                op = B_SHR;
            Case *c = add_case("elem.tile", "binary2d", setup_binary2d, check_binary, "elem/binary2d/%s/%s/%dx%d/w%d",
                               BNAME[op], tname(t), shapes[s][0], shapes[s][1], shapes[s][2]);
            c->p[0] = op;
            c->p[1] = shapes[s][0];
            c->p[2] = shapes[s][1];
            c->dt[0] = t;
            case_define(c, "T=%s OP=%d BR=%d BC=%d num_warps=%d", tname(t), op, shapes[s][0], shapes[s][1],
                        shapes[s][2]);
        }
    }
    /* odd shapes: dimensions of 1 and 2, tiles smaller than a wave with many warps, very large tiles,
     * 16 warps */
    static const int odd2[][3] = {{1, 64, 4}, {64, 1, 2}, {2, 16, 8}, {256, 256, 8}, {4, 4, 1}, {1, 1, 2}, {64, 64, 16}};
    static const rk_dtype oddt[] = {RK_F32, RK_I8, RK_F16, RK_I64, RK_BF16, RK_U32, RK_I32};
    for (int s = 0; s < 7; s++)
        for (int v = 0; v < 2; v++) {
            rk_dtype t = oddt[(s + v) % 7];
            int op = v ? B_MAX : B_ADD;
            Case *c = add_case("elem.tile", "binary2d", setup_binary2d, check_binary, "elem/odd/binary2d/%s/%s/%dx%d/w%d",
                               BNAME[op], tname(t), odd2[s][0], odd2[s][1], odd2[s][2]);
            c->p[0] = op;
            c->p[1] = odd2[s][0];
            c->p[2] = odd2[s][1];
            c->dt[0] = t;
            case_define(c, "T=%s OP=%d BR=%d BC=%d num_warps=%d", tname(t), op, odd2[s][0], odd2[s][1], odd2[s][2]);
        }
    static const int odd1[][2] = {{16, 8}, {32, 4}, {8192, 1}, {4096, 8}, {64, 8}, {2, 2}};
    for (int s = 0; s < 6; s++)
        for (int v = 0; v < 2; v++) {
            rk_dtype t = oddt[(s + 3 * v) % 7];
            int op = v ? B_MUL : B_SUB;
            Case *c = add_case("elem.tile", "binary", setup_binary, check_binary, "elem/odd/binary/%s/%s/b%d/w%d",
                               BNAME[op], tname(t), odd1[s][0], odd1[s][1]);
            c->p[0] = op;
            c->p[1] = odd1[s][0];
            c->dt[0] = t;
            case_define(c, "T=%s OP=%d BLOCK=%d num_warps=%d", tname(t), op, odd1[s][0], odd1[s][1]);
        }
    static const char *const BOOLN[] = {"and", "or", "xor", "eq", "ne", "not", "where"};
    for (int op = 0; op < 7; op++) {
        int block, warps;
        pick_shape(k++, &block, &warps);
        Case *c = add_case("elem.tile", "boolean", setup_boolean, check_boolean, "elem/boolean/%s/bool/b%d/w%d",
                           BOOLN[op], block, warps);
        c->p[0] = op;
        c->p[1] = block;
        case_define(c, "OP=%d BLOCK=%d num_warps=%d", op, block, warps);
    }
}
