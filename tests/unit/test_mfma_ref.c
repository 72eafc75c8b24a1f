/* Tests of the MFMA reference model (runtime/emu/mfma_ref.c).
 *
 * 1. Hand-checked products, for every op: permutation matrices times B (and A times permutations)
 *    give the permuted rows (columns), a single non-zero in A and B gives exactly one non-zero in D at
 *    the right place, C passes through when A or B is zero, random small integers match a triple loop
 *    in double exactly (all values and partial sums are exactly representable), d may alias c, and the
 *    element formats are decoded as documented (xf32 truncation, FNUZ fp8, f16/bf16 subnormals, i8
 *    wrap-around). These pack operands with the model's own layout, so they check the arithmetic, not
 *    where elements sit (a k order shared by A and B does not even change A x B). The gfx950 ops
 *    (v_mfma_f32_{16x16x32,32x32x16}_{f16,bf16}) have no tables in tests/data/mfma (the calculator's
 *    commit there knows no CDNA4), so only these tests cover them, plus one run with the operands
 *    placed by hand the way AMD's examples place them (test_gfx950_documented).
 * 2. Layout oracle, for every instruction with tables in tests/data/mfma/{CDNA3,CDNA2}/ (AMD's Matrix
 *    Instruction Calculator): the model's info matches the .detail.txt; each of the A, B, C, D tables
 *    covers every register slot once and every matrix element once, D's table equals C's; packing row
 *    and column ids into registers with the model's layout puts at each table cell (lane, register,
 *    bit range) the element the cell names; and emu_mfma_exec run on operands packed by the tables
 *    (not by the model) gives, read back through the D table, the triple-loop result.
 * Runs in the repository root, where it reads tests/data/mfma; without the tables it fails.
 *
 * Each part was seen to fail on a deliberately broken model: A and B halves swapped, A's lane groups
 * swapped, A's and B's k groups swapped, D's lane groups swapped, the f64 D laid out like f32
 * (oracle); for the gfx950 ops alone, A's rows shifted, D's lane groups swapped, B's k groups rotated
 * against A's (hand placement); xf32 rounding instead of truncating, fp8 with the OCP bias, i8
 * unsigned, no i32 wrap-around, f16 subnormals flushed, bf16 read as f16, C ignored (hand-checked
 * part). A k order shared by A and B is invisible in D, so only the oracle's cell check sees it. */
#include "runtime/emu/mfma_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WAVE = 64, MAXREG = 16, MAXEL = 1024, MAXCELLS = 2048 };

static int failures;

#define CHECK(cond, ...)                                                                            \
    do {                                                                                            \
        if (!(cond)) {                                                                              \
            if (failures++ < 25) {                                                                  \
                fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                    \
                fprintf(stderr, __VA_ARGS__);                                                       \
                fputc('\n', stderr);                                                                \
            }                                                                                       \
        }                                                                                           \
    } while (0)

/* ---- What the test knows about each op, independently of the model --------------------------- */

typedef enum Kind { K_F16, K_BF16, K_F32, K_XF32, K_F64, K_I8, K_FP8 } Kind;
typedef enum Acc { ACC_F32, ACC_I32, ACC_F64 } Acc;

typedef struct TestOp {
    MfmaOp op;
    Kind in;
    Acc acc;
    int m, n, k;
    const char *cdna3; /* table name under tests/data/mfma/CDNA3, or NULL */
    const char *cdna2; /* table name under tests/data/mfma/CDNA2, or NULL */
} TestOp;

static const TestOp tops[] = {
    {MFMA_F32_16X16X16_F16, K_F16, ACC_F32, 16, 16, 16, "v_mfma_f32_16x16x16_f16", "v_mfma_f32_16x16x16f16"},
    {MFMA_F32_32X32X8_F16, K_F16, ACC_F32, 32, 32, 8, "v_mfma_f32_32x32x8_f16", "v_mfma_f32_32x32x8f16"},
    {MFMA_F32_16X16X16_BF16, K_BF16, ACC_F32, 16, 16, 16, "v_mfma_f32_16x16x16_bf16",
     "v_mfma_f32_16x16x16bf16_1k"},
    {MFMA_F32_32X32X8_BF16, K_BF16, ACC_F32, 32, 32, 8, "v_mfma_f32_32x32x8_bf16", "v_mfma_f32_32x32x8bf16_1k"},
    {MFMA_F32_16X16X4_F32, K_F32, ACC_F32, 16, 16, 4, "v_mfma_f32_16x16x4_f32", "v_mfma_f32_16x16x4f32"},
    {MFMA_F32_32X32X2_F32, K_F32, ACC_F32, 32, 32, 2, "v_mfma_f32_32x32x2_f32", "v_mfma_f32_32x32x2f32"},
    {MFMA_F32_16X16X8_XF32, K_XF32, ACC_F32, 16, 16, 8, "v_mfma_f32_16x16x8_xf32", NULL},
    {MFMA_F32_32X32X4_XF32, K_XF32, ACC_F32, 32, 32, 4, "v_mfma_f32_32x32x4_xf32", NULL},
    {MFMA_I32_16X16X32_I8, K_I8, ACC_I32, 16, 16, 32, "v_mfma_i32_16x16x32_i8", NULL},
    {MFMA_I32_32X32X16_I8, K_I8, ACC_I32, 32, 32, 16, "v_mfma_i32_32x32x16_i8", NULL},
    {MFMA_F64_16X16X4_F64, K_F64, ACC_F64, 16, 16, 4, "v_mfma_f64_16x16x4_f64", NULL},
    {MFMA_F32_16X16X32_FP8_FP8, K_FP8, ACC_F32, 16, 16, 32, "v_mfma_f32_16x16x32_fp8_fp8", NULL},
    {MFMA_F32_32X32X16_FP8_FP8, K_FP8, ACC_F32, 32, 32, 16, "v_mfma_f32_32x32x16_fp8_fp8", NULL},
    {MFMA_I32_16X16X16_I8, K_I8, ACC_I32, 16, 16, 16, NULL, "v_mfma_i32_16x16x16i8"},
    {MFMA_I32_32X32X8_I8, K_I8, ACC_I32, 32, 32, 8, NULL, "v_mfma_i32_32x32x8i8"},
    {MFMA_F32_16X16X32_F16, K_F16, ACC_F32, 16, 16, 32, NULL, NULL},
    {MFMA_F32_32X32X16_F16, K_F16, ACC_F32, 32, 32, 16, NULL, NULL},
    {MFMA_F32_16X16X32_BF16, K_BF16, ACC_F32, 16, 16, 32, NULL, NULL},
    {MFMA_F32_32X32X16_BF16, K_BF16, ACC_F32, 32, 32, 16, NULL, NULL},
};
enum { NTOPS = sizeof tops / sizeof tops[0] };

static int kind_bits(Kind k)
{
    static const int bits[] = {[K_F16] = 16, [K_BF16] = 16, [K_F32] = 32, [K_XF32] = 32,
                               [K_F64] = 64, [K_I8] = 8,    [K_FP8] = 8};
    return bits[k];
}

static int acc_bits(Acc a)
{
    return a == ACC_F64 ? 64 : 32;
}

/* Operand geometry: rows x cols of the matrix, registers per lane, element width. */
typedef struct Geo {
    int rows, cols, regs, w;
} Geo;

static Geo geo(const TestOp *t, EmuMfmaOperand which)
{
    const MfmaInfo *in = isa_mfma_info(t->op);
    switch (which) {
    case EMU_MFMA_OPERAND_A:
        return (Geo){t->m, t->k, in->a_regs, kind_bits(t->in)};
    case EMU_MFMA_OPERAND_B:
        return (Geo){t->k, t->n, in->b_regs, kind_bits(t->in)};
    default:
        return (Geo){t->m, t->n, in->cd_regs, acc_bits(t->acc)};
    }
}

/* ---- Element encodings (exact values only) ------------------------------------------------------ */

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float f32_val(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint64_t f64_bits(double f)
{
    uint64_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static double f64_val(uint64_t u)
{
    double f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* A small float format with `man` mantissa bits and exponent bias `bias`, v exactly representable
 * and finite (fails the test otherwise). */
static uint32_t encode_small(double v, int exp_bits, int man, int bias, int has_neg_zero)
{
    int total = 1 + exp_bits + man;
    uint32_t sign = v < 0 || (v == 0 && signbit(v) && has_neg_zero);
    double a = fabs(v);
    if (a == 0)
        return sign << (total - 1);
    int e;
    frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
    int field = e - 1 + bias;
    double scaled;
    uint32_t raw;
    if (field >= 1) {
        scaled = (ldexp(a, -(e - 1)) - 1) * (1 << man);
        raw = (uint32_t)field << man | (uint32_t)scaled;
    } else {
        scaled = ldexp(a, man + bias - 1);
        raw = (uint32_t)scaled;
    }
    CHECK(scaled == floor(scaled) && field < (1 << exp_bits), "value %g not representable", v);
    return sign << (total - 1) | raw;
}

static uint64_t encode(Kind k, double v)
{
    switch (k) {
    case K_F16:
        return encode_small(v, 5, 10, 15, 1);
    case K_BF16: {
        uint32_t u = f32_bits((float)v);
        CHECK((u & 0xffff) == 0 && (double)(float)v == v, "value %g not bf16", v);
        return u >> 16;
    }
    case K_FP8: /* e4m3 FNUZ: bias 8, no negative zero */
        return encode_small(v, 4, 3, 8, 0);
    case K_I8:
        CHECK(v >= -128 && v <= 127 && v == floor(v), "value %g not i8", v);
        return (uint8_t)(int8_t)v;
    case K_F64:
        return f64_bits(v);
    default:
        CHECK((double)(float)v == v, "value %g not f32", v);
        return f32_bits((float)v);
    }
}

static uint64_t encode_acc(Acc a, double v)
{
    if (a == ACC_F64)
        return f64_bits(v);
    if (a == ACC_I32)
        return (uint32_t)(int32_t)v;
    return f32_bits((float)v);
}

static double decode_acc(Acc a, uint64_t raw)
{
    if (a == ACC_F64)
        return f64_val(raw);
    if (a == ACC_I32)
        return (int32_t)(uint32_t)raw;
    return f32_val((uint32_t)raw);
}

static void put_slot(uint32_t *regs, int nregs, int lane, int reg, int bit, int w, uint64_t raw)
{
    uint32_t *r = regs + lane * nregs + reg;
    if (w == 64) {
        r[0] = (uint32_t)raw;
        r[1] = (uint32_t)(raw >> 32);
    } else if (w == 32) {
        r[0] = (uint32_t)raw;
    } else {
        uint32_t mask = ((1u << w) - 1) << bit;
        r[0] = (r[0] & ~mask) | ((uint32_t)raw << bit & mask);
    }
}

static uint64_t get_slot(const uint32_t *regs, int nregs, int lane, int reg, int bit, int w)
{
    const uint32_t *r = regs + lane * nregs + reg;
    if (w == 64)
        return (uint64_t)r[0] | (uint64_t)r[1] << 32;
    if (w == 32)
        return r[0];
    return (r[0] >> bit) & ((1u << w) - 1);
}

/* Calls f for every element slot of the operand, as the model lays it out. */
typedef void SlotFn(void *ctx, int lane, int reg, int bit, int w, int row, int col);

static int for_model_slots(const TestOp *t, EmuMfmaOperand which, SlotFn *f, void *ctx)
{
    Geo g = geo(t, which);
    int n = 0;
    for (int lane = 0; lane < WAVE; lane++)
        for (int reg = 0; reg < g.regs; reg += g.w == 64 ? 2 : 1)
            for (int bit = 0; bit < 32; bit += g.w >= 32 ? 32 : g.w) {
                int row, col;
                if (emu_mfma_elem_at(t->op, which, lane, reg, bit, &row, &col)) {
                    f(ctx, lane, reg, bit, g.w, row, col);
                    n++;
                }
            }
    return n;
}

/* Packing with the model's layout: raw element bits from a row-major matrix of raw values. */
typedef struct PackCtx {
    uint32_t *regs;
    int nregs, cols;
    uint64_t *raw;
    int unpack;
} PackCtx;

static void pack_slot(void *p, int lane, int reg, int bit, int w, int row, int col)
{
    PackCtx *c = p;
    if (c->unpack)
        c->raw[row * c->cols + col] = get_slot(c->regs, c->nregs, lane, reg, bit, w);
    else
        put_slot(c->regs, c->nregs, lane, reg, bit, w, c->raw[row * c->cols + col]);
}

static void pack_raw(const TestOp *t, EmuMfmaOperand which, uint64_t *raw, uint32_t *regs, int unpack)
{
    Geo g = geo(t, which);
    if (!unpack)
        memset(regs, 0, sizeof(uint32_t) * WAVE * g.regs);
    PackCtx c = {regs, g.regs, g.cols, raw, unpack};
    int n = for_model_slots(t, which, pack_slot, &c);
    CHECK(n == g.rows * g.cols, "%s: model has %d slots for %d elements", isa_mfma_info(t->op)->name, n,
          g.rows * g.cols);
}

/* Packs numeric matrices (row-major doubles) with the model's layout and runs the op; d gets the
 * result as doubles. */
typedef struct Mats {
    double a[MAXEL], b[MAXEL], c[MAXEL], d[MAXEL];
} Mats;

static void run_model(const TestOp *t, Mats *m, int alias)
{
    uint64_t raw[MAXEL];
    uint32_t ra[WAVE * MAXREG], rb[WAVE * MAXREG], rc[WAVE * MAXREG], rd[WAVE * MAXREG];
    for (int i = 0; i < t->m * t->k; i++)
        raw[i] = encode(t->in, m->a[i]);
    pack_raw(t, EMU_MFMA_OPERAND_A, raw, ra, 0);
    for (int i = 0; i < t->k * t->n; i++)
        raw[i] = encode(t->in, m->b[i]);
    pack_raw(t, EMU_MFMA_OPERAND_B, raw, rb, 0);
    for (int i = 0; i < t->m * t->n; i++)
        raw[i] = encode_acc(t->acc, m->c[i]);
    pack_raw(t, EMU_MFMA_OPERAND_CD, raw, rc, 0);
    memset(rd, 0xa5, sizeof rd);
    emu_mfma_exec(t->op, ra, rb, rc, alias ? rc : rd);
    pack_raw(t, EMU_MFMA_OPERAND_CD, raw, alias ? rc : rd, 1);
    for (int i = 0; i < t->m * t->n; i++)
        m->d[i] = decode_acc(t->acc, raw[i]);
}

static void reference(const TestOp *t, const Mats *m, double *ref)
{
    for (int i = 0; i < t->m; i++)
        for (int j = 0; j < t->n; j++) {
            double s = m->c[i * t->n + j];
            for (int k = 0; k < t->k; k++)
                s += m->a[i * t->k + k] * m->b[k * t->n + j];
            ref[i * t->n + j] = s;
        }
}

static uint32_t rng_state = 12345;

static int rnd(int lo, int hi)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return lo + (int)((rng_state >> 8) % (uint32_t)(hi - lo + 1));
}

/* ---- 1. Hand-checked products -------------------------------------------------------------------- */

static void check_d(const TestOp *t, const Mats *m, const double *want, const char *what)
{
    int bad = 0;
    for (int i = 0; i < t->m * t->n && bad < 3; i++)
        if (!(m->d[i] == want[i] && signbit(m->d[i]) == signbit(want[i]))) {
            CHECK(0, "%s %s: D[%d][%d] = %.17g, want %.17g", isa_mfma_info(t->op)->name, what, i / t->n,
                  i % t->n, m->d[i], want[i]);
            bad++;
        }
}

static void test_products(const TestOp *t)
{
    static Mats m;
    double want[MAXEL];
    int M = t->m, N = t->n, K = t->k;

    /* Permutation-like A: row i picks k = p(i), so D = rows p(i) of B; and B picking columns of A. */
    static const int perms[][2] = {{1, 0}, {5, 3}, {3, 1}};
    for (size_t p = 0; p < sizeof perms / sizeof perms[0]; p++) {
        memset(&m, 0, sizeof m);
        for (int i = 0; i < K * N; i++)
            m.b[i] = rnd(-8, 8);
        for (int i = 0; i < M; i++)
            m.a[i * K + (i * perms[p][0] + perms[p][1]) % K] = 1;
        run_model(t, &m, 0);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++)
                want[i * N + j] = m.b[((i * perms[p][0] + perms[p][1]) % K) * N + j];
        check_d(t, &m, want, "A permutation");

        memset(&m, 0, sizeof m);
        for (int i = 0; i < M * K; i++)
            m.a[i] = rnd(-8, 8);
        for (int j = 0; j < N; j++)
            m.b[((j * perms[p][0] + perms[p][1]) % K) * N + j] = 1;
        run_model(t, &m, 0);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++)
                want[i * N + j] = m.a[i * K + (j * perms[p][0] + perms[p][1]) % K];
        check_d(t, &m, want, "B permutation");
    }

    /* A single non-zero in A and in B: one non-zero in D, or none when their k differ. */
    for (int trial = 0; trial < 24; trial++) {
        int i0 = trial == 0 ? 0 : trial == 1 ? M - 1 : rnd(0, M - 1);
        int j0 = trial == 0 ? 0 : trial == 1 ? N - 1 : rnd(0, N - 1);
        int ka = trial == 0 ? 0 : trial == 1 ? K - 1 : rnd(0, K - 1);
        int kb = trial % 3 == 2 ? (ka + rnd(1, K - 1)) % K : ka;
        memset(&m, 0, sizeof m);
        m.a[i0 * K + ka] = 2;
        m.b[kb * N + j0] = -3;
        run_model(t, &m, 0);
        memset(want, 0, sizeof want);
        if (ka == kb)
            want[i0 * N + j0] = -6;
        check_d(t, &m, want, ka == kb ? "single one" : "single one, different k");
    }

    /* C passes through when A or B is zero (any finite non-zero C, not only integers). */
    for (int zero = 0; zero < 2; zero++) {
        memset(&m, 0, sizeof m);
        for (int i = 0; i < M * K; i++)
            m.a[i] = zero ? 0 : rnd(-8, 8);
        for (int i = 0; i < K * N; i++)
            m.b[i] = zero ? rnd(-8, 8) : 0;
        for (int i = 0; i < M * N; i++) {
            double v = t->acc == ACC_I32 ? rnd(-100000, 100000) : ldexp(rnd(1, 0xffffff), rnd(-140, 100));
            m.c[i] = want[i] = t->acc == ACC_F32 ? (float)v : v;
        }
        run_model(t, &m, 0);
        check_d(t, &m, want, zero ? "A = 0" : "B = 0");
    }

    /* Random small integers against the triple loop, into a separate D and into C itself. */
    for (int trial = 0; trial < 6; trial++) {
        memset(&m, 0, sizeof m);
        for (int i = 0; i < M * K; i++)
            m.a[i] = rnd(-8, 8);
        for (int i = 0; i < K * N; i++)
            m.b[i] = rnd(-8, 8);
        for (int i = 0; i < M * N; i++)
            m.c[i] = rnd(-100, 100);
        reference(t, &m, want);
        run_model(t, &m, trial & 1);
        check_d(t, &m, want, trial & 1 ? "random, d = c" : "random");
    }
}

/* One product a * b into D[0][0] (C[0][0] = c), from raw element encodings: the formats. */
static double one_product(const TestOp *t, uint64_t a, uint64_t b, uint64_t c)
{
    static uint64_t ra[MAXEL], rb[MAXEL], rc[MAXEL];
    uint32_t ga[WAVE * MAXREG], gb[WAVE * MAXREG], gc[WAVE * MAXREG];
    memset(ra, 0, sizeof ra);
    memset(rb, 0, sizeof rb);
    memset(rc, 0, sizeof rc);
    ra[0] = a;
    rb[0] = b;
    rc[0] = c;
    pack_raw(t, EMU_MFMA_OPERAND_A, ra, ga, 0);
    pack_raw(t, EMU_MFMA_OPERAND_B, rb, gb, 0);
    pack_raw(t, EMU_MFMA_OPERAND_CD, rc, gc, 0);
    emu_mfma_exec(t->op, ga, gb, gc, gc);
    pack_raw(t, EMU_MFMA_OPERAND_CD, rc, gc, 1);
    return decode_acc(t->acc, rc[0]);
}

static const TestOp *find(MfmaOp op)
{
    for (int i = 0; i < NTOPS; i++)
        if (tops[i].op == op)
            return &tops[i];
    return NULL;
}

#define PRODUCT(op, a, b, c, want)                                                                  \
    do {                                                                                            \
        double got_ = one_product(find(op), a, b, c);                                               \
        double want_ = (want);                                                                      \
        CHECK(got_ == want_ || (isnan(got_) && isnan(want_)), "%s: %s * %s + %s = %.17g, want %.17g", \
              isa_mfma_info(op)->name, #a, #b, #c, got_, want_);                                    \
    } while (0)

static void test_formats(void)
{
    /* xf32 reads 10 mantissa bits, truncating the low 13: 1 + 2^-12 is read as 1, 1 + 2^-10 is kept;
     * the f32 op keeps all bits. Truncation is toward zero for negative values too. */
    for (int big = 0; big < 2; big++) {
        MfmaOp x = big ? MFMA_F32_32X32X4_XF32 : MFMA_F32_16X16X8_XF32;
        PRODUCT(x, 0x3f800800, 0x3f800800, 0, 1.0);
        PRODUCT(x, 0xbf801fff, 0x3f800fff, 0, -1.0);
        PRODUCT(x, 0x3f802000, 0x3f802000, 0, (1 + 0x1p-10) * (1 + 0x1p-10));
        PRODUCT(x, 0x3f800800, 0x40000000, f32_bits(0.25f), 2.25);
    }
    PRODUCT(MFMA_F32_16X16X4_F32, 0x3f800800, 0x3f800800, 0, 1 + 0x1p-11);
    PRODUCT(MFMA_F32_32X32X2_F32, 0x3f800001, 0x40400000, 0, (double)(float)(3 + 0x1p-23 * 3));

    /* FP8 is e4m3 FNUZ: bias 8, 0x7f = 240 (NaN in OCP e4m3), 0x38 = 0.5 (1.0 in OCP), 0x80 NaN. */
    for (int big = 0; big < 2; big++) {
        MfmaOp f = big ? MFMA_F32_32X32X16_FP8_FP8 : MFMA_F32_16X16X32_FP8_FP8;
        PRODUCT(f, 0x7f, 0x38, 0, 120);
        PRODUCT(f, 0x01, 0x40, 0, 0x1p-10);
        PRODUCT(f, 0x08, 0x40, 0, 0x1p-7);
        PRODUCT(f, 0xb8, 0x48, 0, -1);
        PRODUCT(f, 0x80, 0x40, 0, NAN);
        PRODUCT(f, 0x00, 0x7f, f32_bits(5.0f), 5);
    }

    /* f16 and bf16: subnormals are values, not zeros; the largest f16; bf16 is the top of an f32. */
    PRODUCT(MFMA_F32_16X16X16_F16, 0x0001, 0x3c00, 0, 0x1p-24);
    PRODUCT(MFMA_F32_32X32X16_F16, 0x7bff, 0x3c00, 0, 65504);
    PRODUCT(MFMA_F32_16X16X32_F16, 0x3555, 0xc000, 0, -2 * (1 + 0x155 / 1024.0) / 4);
    PRODUCT(MFMA_F32_32X32X8_F16, 0x7c00, 0x3c00, 0, INFINITY);
    PRODUCT(MFMA_F32_16X16X16_BF16, 0x3f80, 0x4040, 0, 3);
    PRODUCT(MFMA_F32_32X32X8_BF16, 0x0001, 0x3f80, 0, 0x1p-133);
    PRODUCT(MFMA_F32_16X16X32_BF16, 0xbfc0, 0x4120, 0, -15);
    PRODUCT(MFMA_F32_32X32X16_BF16, 0x3f81, 0x3f81, 0, (1 + 0x1p-7) * (1 + 0x1p-7));

    /* i8 is signed, the sum wraps around in 32 bits. */
    static const MfmaOp i8ops[] = {MFMA_I32_16X16X32_I8, MFMA_I32_32X32X16_I8, MFMA_I32_16X16X16_I8,
                                      MFMA_I32_32X32X8_I8};
    for (int i = 0; i < 4; i++) {
        PRODUCT(i8ops[i], 0x80, 0x80, 0, 16384);
        PRODUCT(i8ops[i], 0x80, 0x7f, 0, -16256);
        PRODUCT(i8ops[i], 0x01, 0x01, 0x7fffffff, -2147483648.0);
        PRODUCT(i8ops[i], 0xff, 0x01, 0x80000000, 2147483647.0);
    }

    /* f64: two registers per element, full double precision. */
    PRODUCT(MFMA_F64_16X16X4_F64, f64_bits(1 + 0x1p-30), f64_bits(1 + 0x1p-30), f64_bits(-1),
            0x1p-29 + 0x1p-60);
    PRODUCT(MFMA_F64_16X16X4_F64, f64_bits(1.5), f64_bits(2.25), f64_bits(0x1p-1070), 3.375);
}

/* The gfx950 ops placed by hand as AMD's examples place them, not by the model: lane l holds row
 * l % M of A (column l % N of B) and k = 8 (l / M) .. 8 (l / M) + 7, two per register, low half first
 * (carlushuang/gcnasm matrix_core_gfx950 loads 8 halves from k = 8 (lane / 32) for 32x32x16;
 * composable_kernel uses 4 groups of 16 lanes with 8 k each for 16x16x32); D is stored as that
 * example stores it: register r of lane l is row (r % 4) + 8 (r / 4) + 4 (l / 32), column l % 32
 * (16x16: row 4 (l / 16) + r). */
static void test_gfx950_documented(void)
{
    static const MfmaOp x950[] = {MFMA_F32_16X16X32_F16, MFMA_F32_32X32X16_F16,
                                     MFMA_F32_16X16X32_BF16, MFMA_F32_32X32X16_BF16};
    static Mats m;
    double want[MAXEL];
    for (int o = 0; o < 4; o++) {
        const TestOp *t = find(x950[o]);
        uint32_t ra[WAVE * 4] = {0}, rb[WAVE * 4] = {0}, rc[WAVE * 16] = {0};
        int M = t->m, N = t->n, K = t->k, cd = isa_mfma_info(t->op)->cd_regs;
        for (int i = 0; i < M * K; i++)
            m.a[i] = rnd(-8, 8);
        for (int i = 0; i < K * N; i++)
            m.b[i] = rnd(-8, 8);
        for (int i = 0; i < M * N; i++)
            m.c[i] = rnd(-100, 100);
        for (int l = 0; l < WAVE; l++)
            for (int e = 0; e < 8; e++) {
                int ka = 8 * (l / M) + e, kb = 8 * (l / N) + e;
                put_slot(ra, 4, l, e / 2, 16 * (e % 2), 16, encode(t->in, m.a[(l % M) * K + ka]));
                put_slot(rb, 4, l, e / 2, 16 * (e % 2), 16, encode(t->in, m.b[kb * N + l % N]));
            }
        for (int l = 0; l < WAVE; l++)
            for (int r = 0; r < cd; r++) {
                int row = M == 32 ? r % 4 + 8 * (r / 4) + 4 * (l / 32) : 4 * (l / 16) + r;
                rc[l * cd + r] = f32_bits((float)m.c[row * N + l % N]);
            }
        emu_mfma_exec(t->op, ra, rb, rc, rc);
        reference(t, &m, want);
        for (int l = 0; l < WAVE; l++)
            for (int r = 0; r < cd; r++) {
                int row = M == 32 ? r % 4 + 8 * (r / 4) + 4 * (l / 32) : 4 * (l / 16) + r;
                double got = f32_val(rc[l * cd + r]), w = want[row * N + l % N];
                CHECK(got == w, "%s placed as documented: D[%d][%d] = %g, want %g", isa_mfma_info(t->op)->name, row,
                      l % N, got, w);
            }
    }
}

/* ---- 2. Layout oracle ---------------------------------------------------------------------------- */

static const char *table_dir = "tests/data/mfma";

typedef struct Cell {
    int lane, reg, bit, w; /* the register slot */
    int row, col;          /* the element named there */
} Cell;

typedef struct Table {
    int n;
    Cell c[MAXCELLS];
} Table;

/* Column header: "vN" (32 bits), "vN.[hi:lo]" (a bit range) or "v[hi:lo]" (a register pair). */
static int parse_column(const char *s, Cell *c)
{
    int r, hi, lo, used = 0;
    if (sscanf(s, "v[%d:%d]%n", &hi, &lo, &used) == 2 && s[used] == 0) {
        c->reg = lo, c->bit = 0, c->w = 32 * (hi - lo + 1);
        return 1;
    }
    if (sscanf(s, "v%d.[%d:%d]%n", &r, &hi, &lo, &used) == 3 && s[used] == 0) {
        c->reg = r, c->bit = lo, c->w = hi - lo + 1;
        return 1;
    }
    if (sscanf(s, "v%d%n", &r, &used) == 1 && s[used] == 0) {
        c->reg = r, c->bit = 0, c->w = 32;
        return 1;
    }
    return 0;
}

static char *next_field(char **p)
{
    char *s = *p, *e = strchr(s, ',');
    if (e) {
        *e = 0;
        *p = e + 1;
    } else {
        *p = s + strlen(s);
    }
    s[strcspn(s, "\r\n")] = 0;
    return s;
}

/* Reads arch/name.X.csv. Returns 0 if it cannot be read (reported). */
static int read_table(const char *arch, const char *name, char x, Table *t)
{
    char path[512], line[4096];
    snprintf(path, sizeof path, "%s/%s/%s.%c.csv", table_dir, arch, name, x);
    FILE *f = fopen(path, "r");
    CHECK(f, "cannot read %s", path);
    if (!f)
        return 0;
    Cell cols[64];
    int ncols = 0, lineno = 0;
    t->n = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (lineno <= 2)
            continue; /* Architecture:, Instruction: */
        char *p = line, *first = next_field(&p);
        if (lineno == 3) {
            CHECK(strcmp(first, "lane") == 0, "%s: bad header", path);
            while (*p && ncols < 64) {
                char *h = next_field(&p);
                CHECK(parse_column(h, &cols[ncols]), "%s: bad column %s", path, h);
                ncols++;
            }
            continue;
        }
        int lane = atoi(first);
        for (int i = 0; i < ncols && *p; i++) {
            char *v = next_field(&p), m;
            Cell c = cols[i];
            c.lane = lane;
            int ok = sscanf(v, "%c[%d][%d]", &m, &c.row, &c.col) == 3 && m == x;
            CHECK(ok && t->n < MAXCELLS, "%s:%d: bad cell %s", path, lineno, v);
            if (ok && t->n < MAXCELLS)
                t->c[t->n++] = c;
        }
    }
    fclose(f);
    return 1;
}

/* The detail file's "key: value" as an integer, -1 if absent. */
static int detail_int(const char *text, const char *key)
{
    const char *s = strstr(text, key);
    return s ? atoi(s + strlen(key)) : -1;
}

static void check_detail(const TestOp *t, const char *arch, const char *name, unsigned family)
{
    char path[512], text[8192];
    snprintf(path, sizeof path, "%s/%s/%s.detail.txt", table_dir, arch, name);
    FILE *f = fopen(path, "r");
    CHECK(f, "cannot read %s", path);
    if (!f)
        return;
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    const MfmaInfo *in = isa_mfma_info(t->op);
    CHECK(detail_int(text, "M: ") == in->m && detail_int(text, "N: ") == in->n && detail_int(text, "K: ") == in->k &&
              detail_int(text, "blocks: ") == in->blocks,
          "%s: shape differs from %s", in->name, path);
    CHECK(detail_int(text, "GPRs required for A: ") == in->a_regs &&
              detail_int(text, "GPRs required for B: ") == in->b_regs &&
              detail_int(text, "GPRs required for C: ") == in->cd_regs &&
              detail_int(text, "GPRs required for D: ") == in->cd_regs,
          "%s: register counts differ from %s", in->name, path);
    int passes = isa_mfma_passes(in, family);
    CHECK(detail_int(text, "Execution cycles: ") == 4 * passes, "%s: %s's passes (%d) differ from %s", in->name, arch,
          passes, path);
}

typedef struct Counts {
    int cells[4]; /* layout cells checked in A, B, C, D */
    int exec;     /* D cells checked through emu_mfma_exec */
} Counts;

/* The table covers each register slot once and each element once, with the model's element width. */
static void check_coverage(const TestOp *t, EmuMfmaOperand which, const Table *tb, const char *what)
{
    Geo g = geo(t, which);
    static unsigned char seen_el[MAXEL], seen_slot[WAVE * MAXREG * 4];
    memset(seen_el, 0, sizeof seen_el);
    memset(seen_slot, 0, sizeof seen_slot);
    int per_lane = g.w == 64 ? g.regs / 2 : g.regs * 32 / g.w;
    CHECK(tb->n == WAVE * per_lane && tb->n == g.rows * g.cols, "%s: %d cells, want %d", what, tb->n,
          g.rows * g.cols);
    for (int i = 0; i < tb->n; i++) {
        const Cell *c = &tb->c[i];
        CHECK(c->w == g.w && c->w == emu_mfma_elem_bits(t->op, which), "%s: cell width %d, want %d", what, c->w, g.w);
        int ok = c->row >= 0 && c->row < g.rows && c->col >= 0 && c->col < g.cols && c->reg >= 0 && c->reg < g.regs &&
                 c->lane >= 0 && c->lane < WAVE && c->bit % 8 == 0;
        CHECK(ok, "%s: cell out of range", what);
        if (!ok)
            continue;
        int slot = (c->lane * g.regs + c->reg) * 4 + c->bit / 8;
        CHECK(!seen_el[c->row * g.cols + c->col]++, "%s: element [%d][%d] twice", what, c->row, c->col);
        CHECK(!seen_slot[slot]++, "%s: slot lane %d v%d bit %d twice", what, c->lane, c->reg, c->bit);
    }
}

/* Packs row + 1 (pass 0) or column + 1 (pass 1) of every element with the model's layout, then reads
 * each table cell's bits back: they must name the cell's element. */
typedef struct IdCtx {
    uint32_t *regs;
    int nregs, pass;
} IdCtx;

static void id_slot(void *p, int lane, int reg, int bit, int w, int row, int col)
{
    IdCtx *c = p;
    put_slot(c->regs, c->nregs, lane, reg, bit, w, (uint64_t)((c->pass ? col : row) + 1));
}

static int check_cells(const TestOp *t, EmuMfmaOperand which, const Table *tb, const char *what)
{
    Geo g = geo(t, which);
    uint32_t regs[WAVE * MAXREG];
    int checked = 0;
    for (int pass = 0; pass < 2; pass++) {
        memset(regs, 0, sizeof regs);
        IdCtx c = {regs, g.regs, pass};
        for_model_slots(t, which, id_slot, &c);
        for (int i = 0; i < tb->n; i++) {
            const Cell *cl = &tb->c[i];
            if (cl->reg >= g.regs || cl->w != g.w)
                continue;
            uint64_t got = get_slot(regs, g.regs, cl->lane, cl->reg, cl->bit, cl->w);
            uint64_t want = (uint64_t)((pass ? cl->col : cl->row) + 1);
            CHECK(got == want, "%s: lane %d v%d bits %d..%d hold %s %d, table says %d", what, cl->lane, cl->reg,
                  cl->bit, cl->bit + cl->w - 1, pass ? "column" : "row", (int)got - 1, (int)want - 1);
            checked += pass == 0;
        }
    }
    return checked;
}

/* emu_mfma_exec on operands placed by the tables, result read through the D table. */
static int check_exec_by_table(const TestOp *t, const Table tb[4], const char *what)
{
    static Mats m;
    double want[MAXEL];
    uint32_t regs[3][WAVE * MAXREG], rd[WAVE * MAXREG];
    int checked = 0;
    for (int trial = 0; trial < 3; trial++) {
        memset(&m, 0, sizeof m);
        memset(regs, 0, sizeof regs);
        for (int i = 0; i < t->m * t->k; i++)
            m.a[i] = rnd(-8, 8);
        for (int i = 0; i < t->k * t->n; i++)
            m.b[i] = rnd(-8, 8);
        for (int i = 0; i < t->m * t->n; i++)
            m.c[i] = rnd(-1000, 1000);
        const double *src[3] = {m.a, m.b, m.c};
        for (int x = 0; x < 3; x++) {
            Geo g = geo(t, (EmuMfmaOperand)x);
            for (int i = 0; i < tb[x].n; i++) {
                const Cell *c = &tb[x].c[i];
                double v = src[x][c->row * g.cols + c->col];
                uint64_t raw = x == 2 ? encode_acc(t->acc, v) : encode(t->in, v);
                put_slot(regs[x], g.regs, c->lane, c->reg, c->bit, c->w, raw);
            }
        }
        memset(rd, 0x5a, sizeof rd);
        emu_mfma_exec(t->op, regs[0], regs[1], regs[2], rd);
        reference(t, &m, want);
        Geo g = geo(t, EMU_MFMA_OPERAND_CD);
        for (int i = 0; i < tb[3].n; i++) {
            const Cell *c = &tb[3].c[i];
            double got = decode_acc(t->acc, get_slot(rd, g.regs, c->lane, c->reg, c->bit, c->w));
            double w = want[c->row * t->n + c->col];
            CHECK(got == w, "%s: exec gives D[%d][%d] = %g at lane %d v%d, want %g", what, c->row, c->col, got,
                  c->lane, c->reg, w);
            checked++;
        }
    }
    return checked / 3;
}

static void oracle(const TestOp *t, const char *arch, const char *name, unsigned family, Counts *cnt)
{
    static Table tb[4];
    static const char mats[4] = {'A', 'B', 'C', 'D'};
    char what[256];
    check_detail(t, arch, name, family);
    for (int x = 0; x < 4; x++)
        if (!read_table(arch, name, mats[x], &tb[x]))
            return;
    for (int x = 0; x < 4; x++) {
        EmuMfmaOperand which = x < 2 ? (EmuMfmaOperand)x : EMU_MFMA_OPERAND_CD;
        snprintf(what, sizeof what, "%s/%s.%c", arch, name, mats[x]);
        check_coverage(t, which, &tb[x], what);
        cnt->cells[x] = check_cells(t, which, &tb[x], what);
    }
    CHECK(tb[2].n == tb[3].n, "%s/%s: C and D tables differ in size", arch, name);
    for (int i = 0; i < tb[2].n && i < tb[3].n; i++) {
        const Cell *c = &tb[2].c[i], *d = &tb[3].c[i];
        CHECK(c->lane == d->lane && c->reg == d->reg && c->bit == d->bit && c->row == d->row && c->col == d->col,
              "%s/%s: C and D layouts differ at cell %d", arch, name, i);
    }
    snprintf(what, sizeof what, "%s/%s", arch, name);
    cnt->exec = check_exec_by_table(t, tb, what);
}

static int dir_exists(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f)
        fclose(f);
    return f != NULL;
}

int main(void)
{
    /* Every op has a test entry and an info entry consistent with its shape. */
    CHECK((int)NTOPS == (int)MFMA_COUNT, "%d ops tested, %d exist", NTOPS, (int)MFMA_COUNT);
    for (int i = 0; i < NTOPS; i++) {
        const TestOp *t = &tops[i];
        const MfmaInfo *in = isa_mfma_info(t->op);
        CHECK(in && in->m == t->m && in->n == t->n && in->k == t->k && in->blocks == 1, "op %d: bad info", (int)t->op);
        if (!in)
            return 1;
        CHECK(in->a_regs * 32 * WAVE == t->m * t->k * kind_bits(t->in) &&
                  in->b_regs * 32 * WAVE == t->k * t->n * kind_bits(t->in) &&
                  in->cd_regs * 32 * WAVE == t->m * t->n * acc_bits(t->acc) && in->cd_regs <= MAXREG,
              "%s: register counts do not hold the matrices", in->name);
        CHECK(emu_mfma_elem_bits(t->op, EMU_MFMA_OPERAND_A) == kind_bits(t->in) &&
                  emu_mfma_elem_bits(t->op, EMU_MFMA_OPERAND_CD) == acc_bits(t->acc),
              "%s: element widths", in->name);
    }
    CHECK(isa_mfma_info(MFMA_COUNT) == NULL, "info of a bad op");
    int r, c;
    CHECK(!emu_mfma_elem_at(MFMA_F32_16X16X16_F16, EMU_MFMA_OPERAND_A, 0, 0, 8, &r, &c), "misaligned slot");
    CHECK(!emu_mfma_elem_at(MFMA_F32_16X16X16_F16, EMU_MFMA_OPERAND_A, 0, 2, 0, &r, &c), "register past A");
    CHECK(!emu_mfma_elem_at(MFMA_F64_16X16X4_F64, EMU_MFMA_OPERAND_CD, 0, 1, 0, &r, &c), "odd f64 register");

    /* 1. */
    for (int i = 0; i < NTOPS; i++)
        test_products(&tops[i]);
    test_formats();
    test_gfx950_documented();
    printf("hand-checked products: %d ops (gfx950 ones also placed as AMD's examples place them)\n", NTOPS);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }

    /* 2. */
    char probe[512];
    snprintf(probe, sizeof probe, "%s/README.md", table_dir);
    if (!dir_exists(probe)) {
        fprintf(stderr, "FAILED: %s (AMD's matrix instruction tables) is absent; run from the source tree\n", table_dir);
        return 1;
    }
    int total = 0, instrs = 0;
    for (int i = 0; i < NTOPS; i++) {
        for (int arch = 0; arch < 2; arch++) {
            const TestOp *t = &tops[i];
            const char *name = arch ? t->cdna2 : t->cdna3;
            if (!name)
                continue;
            Counts cnt = {{0}, 0};
            oracle(t, arch ? "CDNA2" : "CDNA3", name, arch ? MFMA_CDNA2 : MFMA_CDNA3, &cnt);
            printf("%s/%-28s cells A %4d  B %4d  C %4d  D %4d  exec D %4d\n", arch ? "CDNA2" : "CDNA3", name,
                   cnt.cells[0], cnt.cells[1], cnt.cells[2], cnt.cells[3], cnt.exec);
            total += cnt.cells[0] + cnt.cells[1] + cnt.cells[2] + cnt.cells[3] + cnt.exec;
            instrs++;
        }
    }
    printf("layout oracle: %d instructions, %d table cells checked\n", instrs, total);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    return 0;
}
