/* Tests of the interpreter's elementwise semantics (runtime/interp): every elementwise op of ops.def
 * across dtypes, casts between every pair of scalar types, bitcasts and pointer arithmetic.
 *
 * Each case is one kernel `out[i] = op(x[i], y[i], ...)` over 4 programs of 256 elements, built with
 * the builder API and run three times on fresh random inputs (a quarter of them special values:
 * zeros of both signs, infinities, NaN, type limits, overflow and rounding boundaries; float inputs
 * are otherwise random bit patterns, so subnormals and NaN payloads occur), with the output poisoned
 * before each run. Results are compared bit for bit (NaN with NaN) against a host reference that
 * follows the language contract and ops.def, written without the interpreter's code: f32 and f64
 * arithmetic in the host's own float and double, f16/bf16 in long double rounded with libm
 * (test_interp_util.h). Hand-written cases pin the corner cases a random draw rarely hits.
 *
 * Seen failing when: f16 rounding went through float (double rounding: the bf16 fma case), int
 * division by zero gave 0, shift amounts were not reduced, float->int did not saturate, float
 * min/max ignored NaN. Pass a seed as argv[1] to replay a failing run. */
#include "tests/unit/test_interp_util.h"

enum { EW_N = 256, EW_PROGS = 4, EW_TOTAL = EW_N * EW_PROGS };

typedef struct EwCase {
    const char *name;
    OpCode code;
    int nin;
    ScalarKind in[3];
    ScalarKind out;
    int64_t pred;
    bool moderate; /* float inputs drawn from [-4, 4) instead of random bits */
} EwCase;

static Func *ew_kernel(const EwCase *c)
{
    const Type *pt[4];
    for (int i = 0; i < c->nin; i++)
        pt[i] = pty(c->in[i]);
    pt[c->nin] = pty(c->out);
    KB k = kb_new(FUNC_KERNEL, c->name, c->nin + 1, pt);
    Value *offs = k_offs(&k, EW_N);
    Value *x[3] = {NULL, NULL, NULL};
    for (int i = 0; i < c->nin; i++)
        x[i] = k_load(&k, k_ptrs(&k, kb_arg(&k, i), offs), NULL, NULL);
    Value *r = k_op(&k, c->code, t1(sty(c->out), EW_N), c->nin, x[0], x[1], x[2]);
    r->def->at.pred = c->pred;
    k_store(&k, k_ptrs(&k, kb_arg(&k, c->nin), offs), r, NULL);
    k_ret(&k);
    return k.f;
}

/* ---- the reference ---- */

static long double ref_fbin(OpCode code, ScalarKind sk, long double a, long double b)
{
    if (code == OP_MIN || code == OP_MAX) {
        if (isnan(a) || isnan(b))
            return NAN;
        if (a == b) /* only zeros differ: -0 is the smaller */
            return (code == OP_MIN) == (signbit(a) != 0) ? a : b;
        return code == OP_MIN ? fminl(a, b) : fmaxl(a, b);
    }
    if (sk == SK_F32) {
        float x = (float)a, y = (float)b, z;
        switch (code) {
        case OP_ADD: z = x + y; break;
        case OP_SUB: z = x - y; break;
        case OP_MUL: z = x * y; break;
        case OP_DIV: z = x / y; break;
        default: z = fmodf(x, y); break;
        }
        return z;
    }
    if (sk == SK_F64) {
        double x = (double)a, y = (double)b, z;
        switch (code) {
        case OP_ADD: z = x + y; break;
        case OP_SUB: z = x - y; break;
        case OP_MUL: z = x * y; break;
        case OP_DIV: z = x / y; break;
        default: z = fmod(x, y); break;
        }
        return z;
    }
    long double z; /* 16-bit formats: long double has 64 >= 2 * 11 + 2 bits, so one rounding after */
    switch (code) {
    case OP_ADD: z = a + b; break;
    case OP_SUB: z = a - b; break;
    case OP_MUL: z = a * b; break;
    case OP_DIV: z = a / b; break;
    default: z = fmodl(a, b); break;
    }
    return rround(z, sk);
}

static uint64_t ref_ibin(OpCode code, ScalarKind sk, uint64_t ab, uint64_t bb)
{
    bool s = sk_is_signed(sk);
    int w = sk == SK_BOOL ? 1 : sk_bits(sk);
    int64_t a = ival(sk, ab), b = ival(sk, bb);
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b, r;
    unsigned amt = (unsigned)(ub % (uint64_t)w);
    switch (code) {
    case OP_ADD: r = ua + ub; break;
    case OP_SUB: r = ua - ub; break;
    case OP_MUL: r = ua * ub; break;
    case OP_DIV:
        if (b == 0)
            r = ~0ull;
        else if (s && b == -1)
            r = 0 - ua;
        else
            r = s ? (uint64_t)(a / b) : ua / ub;
        break;
    case OP_REM:
        if (b == 0)
            r = ua;
        else if (s && b == -1)
            r = 0;
        else
            r = s ? (uint64_t)(a % b) : ua % ub;
        break;
    case OP_AND: r = ua & ub; break;
    case OP_OR: r = ua | ub; break;
    case OP_XOR: r = ua ^ ub; break;
    case OP_SHL: r = ua << amt; break;
    case OP_SHR: r = s ? (uint64_t)(a >> amt) : ua >> amt; break;
    case OP_MIN: r = s ? (uint64_t)(a < b ? a : b) : (ua < ub ? ua : ub); break;
    default: r = s ? (uint64_t)(a > b ? a : b) : (ua > ub ? ua : ub); break;
    }
    return sk == SK_BOOL ? r & 1 : r & width_mask(sk);
}

static bool ref_cmp(CmpPred p, ScalarKind sk, uint64_t ab, uint64_t bb)
{
    if (sk_f(sk)) {
        long double a = dec_float(sk, ab), b = dec_float(sk, bb);
        switch (p) {
        case PRED_EQ: return a == b;
        case PRED_NE: return a != b;
        case PRED_LT: return a < b;
        case PRED_LE: return a <= b;
        case PRED_GT: return a > b;
        default: return a >= b;
        }
    }
    if (sk_is_signed(sk)) {
        int64_t a = ival(sk, ab), b = ival(sk, bb);
        switch (p) {
        case PRED_EQ: return a == b;
        case PRED_NE: return a != b;
        case PRED_LT: return a < b;
        case PRED_LE: return a <= b;
        case PRED_GT: return a > b;
        default: return a >= b;
        }
    }
    uint64_t a = (uint64_t)ival(sk, ab), b = (uint64_t)ival(sk, bb);
    switch (p) {
    case PRED_EQ: return a == b;
    case PRED_NE: return a != b;
    case PRED_LT: return a < b;
    case PRED_LE: return a <= b;
    case PRED_GT: return a > b;
    default: return a >= b;
    }
}

static long double ref_fun(OpCode code, ScalarKind sk, long double a)
{
    double x = (double)a, z;
    switch (code) {
    case OP_NEG: return -a;
    case OP_ABS: return fabsl(a);
    case OP_FLOOR: return floorl(a);
    case OP_CEIL: return ceill(a);
    case OP_SQRT: return sk == SK_F64 ? sqrt(x) : rround(sqrtl(a), sk);
    case OP_EXP: z = exp(x); break;
    case OP_EXP2: z = exp2(x); break;
    case OP_LOG: z = log(x); break;
    case OP_LOG2: z = log2(x); break;
    case OP_RSQRT: z = 1.0 / sqrt(x); break;
    case OP_SIN: z = sin(x); break;
    default: z = cos(x); break;
    }
    return rround(z, sk);
}

static uint64_t ref_iun(OpCode code, ScalarKind sk, uint64_t ab)
{
    int64_t a = ival(sk, ab);
    uint64_t r;
    switch (code) {
    case OP_NEG: r = 0 - (uint64_t)a; break;
    case OP_NOT: r = ~(uint64_t)a; break;
    default: r = sk_is_signed(sk) && a < 0 ? 0 - (uint64_t)a : (uint64_t)a; break;
    }
    return sk == SK_BOOL ? r & 1 : r & width_mask(sk);
}

/* Casts by the contract: saturating truncation with NaN -> 0, nearest-even rounding, x != 0 to bool. */
static void ref_cast(ScalarKind from, ScalarKind to, uint64_t b, uint64_t *rb, long double *rv)
{
    long double x = ldval(from, b);
    if (to == SK_BOOL) {
        *rb = sk_f(from) ? x != 0 : (b & width_mask(from)) != 0;
    } else if (sk_f(to)) {
        *rv = rround(x, to);
    } else if (sk_f(from)) {
        int w = sk_bits(to);
        long double lo = sk_is_signed(to) ? -ldexpl(1, w - 1) : 0;
        long double hi = sk_is_signed(to) ? ldexpl(1, w - 1) - 1 : ldexpl(1, w) - 1;
        long double t = isnan(x) ? 0 : truncl(x);
        t = t < lo ? lo : t > hi ? hi : t;
        *rb = (t < 0 ? (uint64_t)(int64_t)t : (uint64_t)t) & width_mask(to);
    } else {
        *rb = (uint64_t)ival(from, b) & width_mask(to);
    }
}

/* Reference result of one element: bits for integer and bool results, a value for floats. */
static void ew_ref(const EwCase *c, const uint64_t *x, uint64_t *rb, long double *rv)
{
    ScalarKind sk = c->in[0];
    switch (c->code) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_REM: case OP_MIN: case OP_MAX: case OP_AND:
    case OP_OR: case OP_XOR: case OP_SHL: case OP_SHR:
        if (sk_f(sk))
            *rv = ref_fbin(c->code, sk, dec_float(sk, x[0]), dec_float(sk, x[1]));
        else
            *rb = ref_ibin(c->code, sk, x[0], x[1]);
        return;
    case OP_CMP:
        *rb = ref_cmp((CmpPred)c->pred, sk, x[0], x[1]);
        return;
    case OP_SELECT:
        if (sk_f(c->out))
            *rv = dec_float(c->out, (x[0] & 1) ? x[1] : x[2]);
        else
            *rb = (x[0] & 1) ? x[1] : x[2];
        return;
    case OP_FMA: {
        long double a = dec_float(sk, x[0]), b = dec_float(sk, x[1]), d = dec_float(sk, x[2]);
        if (sk == SK_F32)
            *rv = fmaf((float)a, (float)b, (float)d);
        else if (sk == SK_F64)
            *rv = fma((double)a, (double)b, (double)d);
        else
            *rv = rround(fmal(a, b, d), sk); /* exact in long double for the moderate inputs used */
        return;
    }
    case OP_CAST:
        ref_cast(sk, c->out, x[0], rb, rv);
        return;
    case OP_BITCAST:
        if (sk_f(c->out))
            *rv = dec_float(c->out, x[0]);
        else
            *rb = x[0];
        return;
    default:
        if (sk_f(sk))
            *rv = ref_fun(c->code, sk, dec_float(sk, x[0]));
        else
            *rb = ref_iun(c->code, sk, x[0]);
        return;
    }
}

static uint64_t ew_input(const EwCase *c, int i)
{
    ScalarKind sk = c->in[i];
    if (c->code == OP_SELECT && i == 0)
        return rnd() & 1;
    if (c->moderate && sk_f(sk))
        return gen_float(sk, -4, 4);
    return gen_bits(sk);
}

/* A float bitcast of a NaN may come back quieted: any NaN of the source format is right. */
static bool bitcast_nan_ok(const EwCase *c, uint64_t in, uint64_t got)
{
    if (c->code != OP_BITCAST)
        return false;
    ScalarKind f = sk_f(c->in[0]) ? c->in[0] : c->out;
    return isnan(dec_float(f, in)) && isnan(dec_float(f, got));
}

static void run_ew(const EwCase *c, int reps)
{
    Func *f = ew_kernel(c);
    void *buf[4];
    uint64_t x[3][EW_TOTAL];
    for (int i = 0; i < c->nin; i++)
        buf[i] = ti_buf(EW_TOTAL * sk_size(c->in[i]));
    buf[c->nin] = ti_buf(EW_TOTAL * sk_size(c->out));
    const void *args[4] = {&buf[0], &buf[1], &buf[2], &buf[3]};
    for (int rep = 0; rep < reps; rep++) {
        for (int i = 0; i < c->nin; i++)
            for (int j = 0; j < EW_TOTAL; j++)
                put_bits(c->in[i], buf[i], (size_t)j, x[i][j] = ew_input(c, i));
        memset(buf[c->nin], 0xAB, EW_TOTAL * sk_size(c->out));
        InterpStatus st = ti_launch(f, EW_PROGS, args);
        EXPECT_OK(st);
        if (st != INTERP_OK)
            return;
        int bad = 0;
        for (int j = 0; j < EW_TOTAL; j++) {
            uint64_t in[3] = {x[0][j], x[1][j], x[2][j]}, rb = 0, got = get_bits(c->out, buf[c->nin], (size_t)j);
            long double rv = 0;
            ew_ref(c, in, &rb, &rv);
            bool ok = sk_f(c->out) ? same_ld(dec_float(c->out, got), rv) : got == (rb & width_mask(c->out));
            ok = ok || bitcast_nan_ok(c, in[0], got);
            T.checks++;
            if (!ok && bad++ < 4)
                ti_failf(__FILE__, __LINE__, "%s[%d]: inputs 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " (%Lg %Lg %Lg): got 0x%" PRIx64 " (%Lg), want 0x%" PRIx64 " / %Lg",
                         c->name, j, in[0], in[1], in[2], ldval(c->in[0], in[0]),
                         c->nin > 1 ? ldval(c->in[1], in[1]) : 0.0L, c->nin > 2 ? ldval(c->in[2], in[2]) : 0.0L, got,
                         ldval(c->out, got), rb, rv);
        }
        if (bad > 4)
            ti_failf(__FILE__, __LINE__, "%s: %d mismatches in all", c->name, bad);
    }
    ti_free_bufs();
}

static const ScalarKind NUM[] = {SK_F32, SK_F16, SK_BF16, SK_F64, SK_I8, SK_I16, SK_I32, SK_I64, SK_U8, SK_U32, SK_U64};
static const ScalarKind INTS[] = {SK_I8, SK_I16, SK_I32, SK_I64, SK_U8, SK_U16, SK_U32, SK_U64};
static const ScalarKind FLOATS[] = {SK_F32, SK_F16, SK_BF16, SK_F64};
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void ew1(OpCode code, int nin, ScalarKind in, ScalarKind out, int64_t pred, bool moderate)
{
    char name[96];
    snprintf(name, sizeof name, "%s_%s_%s%s", tir_op_info[code].name, sk_name(in), sk_name(out),
             code == OP_CMP ? tir_pred_name((CmpPred)pred) : "");
    EwCase c = {.name = str_intern0(&T.strs, name), .code = code, .nin = nin, .in = {in, in, in}, .out = out,
                .pred = pred, .moderate = moderate};
    if (code == OP_SELECT)
        c.in[0] = SK_BOOL;
    run_ew(&c, 3);
}

static void test_binary(void)
{
    static const OpCode arith[] = {OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_REM, OP_MIN, OP_MAX};
    for (int o = 0; o < COUNT(arith); o++)
        for (int t = 0; t < COUNT(NUM); t++)
            ew1(arith[o], 2, NUM[t], NUM[t], 0, false);
    static const OpCode bits[] = {OP_AND, OP_OR, OP_XOR, OP_SHL, OP_SHR};
    for (int o = 0; o < COUNT(bits); o++) {
        for (int t = 0; t < COUNT(INTS); t++)
            ew1(bits[o], 2, INTS[t], INTS[t], 0, false);
        if (bits[o] != OP_SHL && bits[o] != OP_SHR)
            ew1(bits[o], 2, SK_BOOL, SK_BOOL, 0, false);
    }
    for (int p = 0; p < PRED_COUNT; p++) {
        for (int t = 0; t < COUNT(NUM); t++)
            ew1(OP_CMP, 2, NUM[t], SK_BOOL, p, false);
        ew1(OP_CMP, 2, SK_BOOL, SK_BOOL, p, false);
        ew1(OP_CMP, 2, SK_U16, SK_BOOL, p, false);
    }
}

static void test_unary(void)
{
    for (int t = 0; t < COUNT(NUM); t++) {
        ew1(OP_NEG, 1, NUM[t], NUM[t], 0, false);
        ew1(OP_ABS, 1, NUM[t], NUM[t], 0, false);
        ew1(OP_SELECT, 3, NUM[t], NUM[t], 0, false);
    }
    for (int t = 0; t < COUNT(INTS); t++)
        ew1(OP_NOT, 1, INTS[t], INTS[t], 0, false);
    ew1(OP_NOT, 1, SK_BOOL, SK_BOOL, 0, false);
    ew1(OP_SELECT, 3, SK_BOOL, SK_BOOL, 0, false);
    static const OpCode math[] = {OP_EXP, OP_EXP2, OP_LOG, OP_LOG2, OP_SQRT, OP_RSQRT, OP_FLOOR, OP_CEIL, OP_SIN, OP_COS};
    for (int o = 0; o < COUNT(math); o++)
        for (int t = 0; t < COUNT(FLOATS); t++)
            ew1(math[o], 1, FLOATS[t], FLOATS[t], 0, false);
    for (int t = 0; t < COUNT(FLOATS); t++)
        ew1(OP_FMA, 3, FLOATS[t], FLOATS[t], 0, true);
    ew1(OP_FMA, 3, SK_F32, SK_F32, 0, false); /* random bits: fmaf is the reference */
}

static void test_casts(void)
{
    for (int a = 0; a < SK_COUNT; a++)
        for (int b = 0; b < SK_COUNT; b++)
            ew1(OP_CAST, 1, (ScalarKind)a, (ScalarKind)b, 0, false);
    static const ScalarKind pairs[][2] = {{SK_F32, SK_I32}, {SK_I32, SK_F32}, {SK_F32, SK_U32}, {SK_U32, SK_F32},
                                          {SK_F16, SK_I16}, {SK_I16, SK_F16}, {SK_BF16, SK_U16}, {SK_U16, SK_BF16},
                                          {SK_F16, SK_BF16}, {SK_F64, SK_I64}, {SK_I64, SK_F64}, {SK_U64, SK_F64},
                                          {SK_I8, SK_U8}, {SK_U8, SK_I8}, {SK_I32, SK_U32}, {SK_BOOL, SK_BOOL}};
    for (int i = 0; i < COUNT(pairs); i++)
        ew1(OP_BITCAST, 1, pairs[i][0], pairs[i][1], 0, false);
}

/* One scalar op on constants, stored to out[0]: for the corner cases. */
static uint64_t scalar_case(OpCode code, ScalarKind in, ScalarKind out, int n, const uint64_t *bits)
{
    static int seq;
    char name[64];
    snprintf(name, sizeof name, "scalar_%d", seq++);
    const Type *pt = pty(out);
    KB k = kb_new(FUNC_KERNEL, name, 1, &pt);
    Value *x[3] = {NULL, NULL, NULL};
    for (int i = 0; i < n; i++) {
        void *b = ti_buf(8);
        put_bits(in, b, 0, bits[i]);
        x[i] = k_load(&k, k_ci(&k, pty(in), (int64_t)(uintptr_t)b), NULL, NULL);
    }
    Value *r = k_op(&k, code, sty(out), n, x[0], x[1], x[2]);
    k_store(&k, kb_arg(&k, 0), r, NULL);
    k_ret(&k);
    void *o = ti_buf(8);
    const void *args[] = {&o};
    EXPECT_OK(ti_launch(k.f, 1, args));
    return get_bits(out, o, 0);
}

static uint64_t fb(ScalarKind sk, long double v) { return enc_float(sk, v); }

static void test_corners(void)
{
    /* bf16 fma whose exact value lies just below a rounding midpoint: computing a*b + c in double
     * rounds to the midpoint and then to even, the wrong neighbour. 1.75 * 0.578125 = 1 + 3 * 2^-8. */
    uint64_t in[3] = {fb(SK_BF16, 1.75L), fb(SK_BF16, 0.578125L), fb(SK_BF16, -0x1p-100L)};
    EXPECT(scalar_case(OP_FMA, SK_BF16, SK_BF16, 3, in) == fb(SK_BF16, 1.0078125L), "bf16 fma rounds once");
    in[2] = fb(SK_BF16, 0x1p-100L);
    EXPECT(scalar_case(OP_FMA, SK_BF16, SK_BF16, 3, in) == fb(SK_BF16, 1.015625L), "bf16 fma rounds once (up)");
    /* f32 -> f16: 65519.99 rounds to 65504, 65520 to inf; the least subnormal's half goes to even (0) */
    EXPECT(scalar_case(OP_CAST, SK_F32, SK_F16, 1, (uint64_t[]){fb(SK_F32, 65519.9921875L)}) == 0x7BFF, "f16 max");
    EXPECT(scalar_case(OP_CAST, SK_F32, SK_F16, 1, (uint64_t[]){fb(SK_F32, 65520.0L)}) == 0x7C00, "f16 overflow");
    EXPECT(scalar_case(OP_CAST, SK_F32, SK_F16, 1, (uint64_t[]){fb(SK_F32, 0x1p-25L)}) == 0, "f16 tie to zero");
    EXPECT(scalar_case(OP_CAST, SK_F32, SK_F16, 1, (uint64_t[]){fb(SK_F32, 0x1.8p-25L)}) == 1, "f16 least subnormal");
    /* f64 -> f16 straight, not through f32: 1 + 2^-11 + 2^-40 rounds up in one step, to even in two */
    EXPECT(scalar_case(OP_CAST, SK_F64, SK_F16, 1, (uint64_t[]){fb(SK_F64, 1.0L + 0x1p-11L + 0x1p-40L)}) == 0x3C01,
           "f64 -> f16 rounds once");
    /* i64 -> bf16 rounds once: 2^40 + 2^32 + 1 is just above a bf16 midpoint (2^40 + 2^32) */
    EXPECT(scalar_case(OP_CAST, SK_I64, SK_BF16, 1, (uint64_t[]){(1ull << 40) + (1ull << 32) + 1}) ==
               fb(SK_BF16, 0x1p40L + 0x1p33L), "i64 -> bf16 rounds once");
    /* saturation and NaN */
    EXPECT(scalar_case(OP_CAST, SK_F32, SK_I32, 1, (uint64_t[]){fb(SK_F32, 3e9L)}) == 0x7FFFFFFF, "f32 -> i32 saturates");
    EXPECT(scalar_case(OP_CAST, SK_F32, SK_I32, 1, (uint64_t[]){fb(SK_F32, -3e9L)}) == 0x80000000, "f32 -> i32 saturates low");
    EXPECT(scalar_case(OP_CAST, SK_F32, SK_I32, 1, (uint64_t[]){fb(SK_F32, NAN)}) == 0, "NaN -> 0");
    EXPECT(scalar_case(OP_CAST, SK_F32, SK_U8, 1, (uint64_t[]){fb(SK_F32, -5.0L)}) == 0, "f32 -> u8 clamps at 0");
    EXPECT(scalar_case(OP_CAST, SK_F64, SK_U64, 1, (uint64_t[]){fb(SK_F64, 1e30L)}) == ~0ull, "f64 -> u64 saturates");
    EXPECT(scalar_case(OP_CAST, SK_F32, SK_BOOL, 1, (uint64_t[]){fb(SK_F32, NAN)}) == 1, "NaN -> true");
    EXPECT(scalar_case(OP_CAST, SK_F32, SK_I32, 1, (uint64_t[]){fb(SK_F32, -2.75L)}) == (uint32_t)-2, "truncates");
    /* integer corners */
    EXPECT(scalar_case(OP_DIV, SK_I32, SK_I32, 2, (uint64_t[]){7, 0}) == 0xFFFFFFFF, "x / 0 = -1");
    EXPECT(scalar_case(OP_DIV, SK_U8, SK_U8, 2, (uint64_t[]){7, 0}) == 0xFF, "u8 x / 0 = all ones");
    EXPECT(scalar_case(OP_REM, SK_I32, SK_I32, 2, (uint64_t[]){(uint32_t)-7, 0}) == (uint32_t)-7, "x %% 0 = x");
    EXPECT(scalar_case(OP_DIV, SK_I64, SK_I64, 2, (uint64_t[]){1ull << 63, ~0ull}) == 1ull << 63, "MIN / -1");
    EXPECT(scalar_case(OP_REM, SK_I64, SK_I64, 2, (uint64_t[]){1ull << 63, ~0ull}) == 0, "MIN %% -1");
    EXPECT(scalar_case(OP_DIV, SK_I32, SK_I32, 2, (uint64_t[]){(uint32_t)-7, 2}) == (uint32_t)-3, "toward zero");
    EXPECT(scalar_case(OP_REM, SK_I32, SK_I32, 2, (uint64_t[]){(uint32_t)-7, 2}) == (uint32_t)-1, "sign of dividend");
    EXPECT(scalar_case(OP_SHL, SK_I32, SK_I32, 2, (uint64_t[]){1, 33}) == 2, "shl modulo 32");
    EXPECT(scalar_case(OP_SHR, SK_I8, SK_I8, 2, (uint64_t[]){0x80, 9}) == 0xC0, "i8 shr arithmetic, modulo 8");
    EXPECT(scalar_case(OP_SHR, SK_U8, SK_U8, 2, (uint64_t[]){0x80, 9}) == 0x40, "u8 shr logical");
    EXPECT(scalar_case(OP_ABS, SK_I8, SK_I8, 1, (uint64_t[]){0x80}) == 0x80, "abs(MIN) wraps");
    EXPECT(scalar_case(OP_ADD, SK_I8, SK_I8, 2, (uint64_t[]){127, 1}) == 0x80, "i8 wraps");
    /* float min/max with NaN and zeros */
    EXPECT(isnan((double)dec_float(SK_F32, scalar_case(OP_MAX, SK_F32, SK_F32, 2, (uint64_t[]){fb(SK_F32, 1), fb(SK_F32, NAN)}))),
           "max propagates NaN");
    EXPECT(scalar_case(OP_MIN, SK_F32, SK_F32, 2, (uint64_t[]){fb(SK_F32, 0.0L), fb(SK_F32, -0.0L)}) == 0x80000000,
           "min(+0, -0) = -0");
    EXPECT(scalar_case(OP_CMP, SK_F32, SK_BOOL, 2, (uint64_t[]){fb(SK_F32, NAN), fb(SK_F32, NAN)}) == 0, "NaN == NaN is false");
    /* f16 arithmetic rounds after every op: 2048 + 1 = 2048 (ties to even) */
    EXPECT(scalar_case(OP_ADD, SK_F16, SK_F16, 2, (uint64_t[]){fb(SK_F16, 2048), fb(SK_F16, 1)}) == fb(SK_F16, 2048),
           "f16 add rounds");
    EXPECT(scalar_case(OP_ADD, SK_F16, SK_F16, 2, (uint64_t[]){fb(SK_F16, 2048), fb(SK_F16, 3)}) == fb(SK_F16, 2052),
           "f16 add rounds to even upward");
}

/* addptr advances by the pointee size, with signed and unsigned offsets; pointers cast to u64. */
static void test_addptr(void)
{
    static const ScalarKind pointee[] = {SK_BOOL, SK_I8, SK_F16, SK_F32, SK_I64};
    static const ScalarKind off[] = {SK_I32, SK_I64, SK_U32, SK_I8};
    for (int p = 0; p < COUNT(pointee); p++)
        for (int o = 0; o < COUNT(off); o++) {
            const Type *pt[3] = {pty(pointee[p]), pty(off[o]), pty(SK_U64)};
            char name[64];
            snprintf(name, sizeof name, "addptr_%s_%s", sk_name(pointee[p]), sk_name(off[o]));
            KB k = kb_new(FUNC_KERNEL, name, 3, pt);
            Value *offs = k_arange(&k, 0, 64);
            Value *d = k_load(&k, k_ptrs(&k, kb_arg(&k, 1), offs), NULL, NULL);
            Value *q = k_op(&k, OP_ADDPTR, t1(pt[0], 64), 2, k_splat(&k, kb_arg(&k, 0), t1(pt[0], 64)), d, NULL);
            k_store(&k, k_ptrs(&k, kb_arg(&k, 2), offs), k_cast(&k, q, sty(SK_U64)), NULL);
            k_ret(&k);
            void *db = ti_buf(64 * 8), *ob = ti_buf(64 * 8);
            uint64_t base = 0x100000000ull + (rnd() & 0xFFFFFF) * 8;
            for (int i = 0; i < 64; i++)
                put_bits(off[o], db, (size_t)i, gen_bits(off[o]));
            const void *args[] = {&base, &db, &ob};
            EXPECT_OK(ti_launch(k.f, 1, args));
            for (int i = 0; i < 64; i++) {
                uint64_t want = base + (uint64_t)ival(off[o], get_bits(off[o], db, (size_t)i)) * sk_size(pointee[p]);
                EXPECT(get_bits(SK_U64, ob, (size_t)i) == want, "%s[%d]", name, i);
            }
        }
}

int main(int argc, char **argv)
{
    ti_init(argc, argv);
    test_corners();
    test_binary();
    test_unary();
    test_casts();
    test_addptr();
    return ti_finish("test_interp");
}
