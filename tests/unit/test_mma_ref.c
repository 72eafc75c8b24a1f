/* Tests of the NVIDIA reference model (runtime/emu/mma_ref.c): mma.sync m16n8k16 and ldmatrix .x4.
 *
 * The operands are packed here from the PTX ISA's fragment figures ("Matrix Fragments for
 * mma.m16n8k16 with floating point type"), transcribed as tables of register offsets rather than the
 * model's formulas:
 *   A: registers a0..a3 (two halves each) hold rows g, g+8, g, g+8 and columns 2t, 2t+8 in pairs:
 *      a0 = (g, 2t..2t+1), a1 = (g+8, 2t..2t+1), a2 = (g, 2t+8..), a3 = (g+8, 2t+8..)
 *   B: b0 = rows (k) 2t..2t+1 of column g, b1 = rows 2t+8..2t+9
 *   C, D: c0, c1 = (g, 2t), (g, 2t+1); c2, c3 = (g+8, 2t), (g+8, 2t+1)
 * with g = lane / 4 and t = lane % 4. Checked: the identity and permutation matrices times B, a single
 * one in A and in B for every (row, k, column) giving exactly one one in D at the lane and register the
 * figure names, C passed through, d aliasing c, f16 and bf16 decoding, random small integers against a
 * triple loop; ldmatrix with and without .trans on rows given in shuffled order, each element checked at
 * the lane and half the PTX ISA's ldmatrix figure names.
 *
 * Seen to fail on a broken model: A's register pairs (a1, a2) swapped, B's k halves swapped, C's rows
 * g and g+8 swapped, bf16 read as f16, ldmatrix's .trans ignored, its halves swapped. */
#include "runtime/emu/mma_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 32 };

#include "tests/unit/check.h"

/* The figures, as (row, column) offsets from (g, 2t) of each register's low half. */
static const int A_OFF[4][2] = {{0, 0}, {8, 0}, {0, 8}, {8, 8}};
static const int B_OFF[2] = {0, 8}; /* k offset from 2t */
static const int CD_OFF[4][2] = {{0, 0}, {0, 1}, {8, 0}, {8, 1}};

/* f16 and bf16 of small integers and halves (exact). */
static uint16_t to_f16(float f)
{
    if (f == 0)
        return signbit(f) ? 0x8000 : 0;
    int e;
    float m = frexpf(fabsf(f), &e); /* f = m * 2^e, m in [0.5, 1) */
    uint32_t man = (uint32_t)(m * 2048.0f) - 1024; /* 10 bits after the leading one */
    return (uint16_t)((f < 0 ? 0x8000 : 0) | (uint32_t)(e - 1 + 15) << 10 | man);
}

static uint16_t to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (uint16_t)(u >> 16); /* exact for the values used */
}

typedef struct {
    NvMmaOp op;
    float A[16][16], B[16][8], C[16][8];
    uint32_t a[W * 4], b[W * 2];
    float c[W * 4], d[W * 4];
} Mma;

static uint32_t pack(NvMmaOp op, float lo, float hi)
{
    uint16_t l = op == NV_MMA_BF16 ? to_bf16(lo) : to_f16(lo), h = op == NV_MMA_BF16 ? to_bf16(hi) : to_f16(hi);
    return (uint32_t)l | (uint32_t)h << 16;
}

static void run(Mma *m)
{
    for (int lane = 0; lane < W; lane++) {
        int g = lane / 4, t = lane % 4;
        for (int r = 0; r < 4; r++) {
            int row = g + A_OFF[r][0], col = 2 * t + A_OFF[r][1];
            m->a[lane * 4 + r] = pack(m->op, m->A[row][col], m->A[row][col + 1]);
        }
        for (int r = 0; r < 2; r++) {
            int k = 2 * t + B_OFF[r];
            m->b[lane * 2 + r] = pack(m->op, m->B[k][g], m->B[k + 1][g]);
        }
        for (int i = 0; i < 4; i++)
            m->c[lane * 4 + i] = m->C[g + CD_OFF[i][0]][2 * t + CD_OFF[i][1]];
    }
    emu_mma_m16n8k16(m->op, m->a, m->b, m->c, m->d);
}

/* D's element (row, col), read through the figure. */
static float d_at(const Mma *m, int row, int col)
{
    for (int lane = 0; lane < W; lane++)
        for (int i = 0; i < 4; i++)
            if (lane / 4 + CD_OFF[i][0] == row && 2 * (lane % 4) + CD_OFF[i][1] == col)
                return m->d[lane * 4 + i];
    return NAN;
}

static void check_product(const Mma *m, const char *what)
{
    int bad = 0;
    for (int r = 0; r < 16; r++)
        for (int n = 0; n < 8; n++) {
            double want = m->C[r][n];
            for (int k = 0; k < 16; k++)
                want += (double)m->A[r][k] * m->B[k][n];
            float got = d_at(m, r, n);
            if (got != (float)want && bad++ < 4)
                CHECK(0, "%s, op %d: D[%d][%d] = %g, want %g", what, m->op, r, n, got, want);
        }
}

static void test_identity_and_permutation(NvMmaOp op)
{
    static Mma m;
    memset(&m, 0, sizeof m);
    m.op = op;
    srand(1);
    for (int k = 0; k < 16; k++)
        for (int n = 0; n < 8; n++)
            m.B[k][n] = (float)(rand() % 17 - 8);
    for (int i = 0; i < 16; i++)
        m.A[i][i] = 1;
    run(&m);
    check_product(&m, "identity");
    int perm[16];
    for (int i = 0; i < 16; i++)
        perm[i] = (i * 5 + 3) % 16;
    memset(m.A, 0, sizeof m.A);
    for (int i = 0; i < 16; i++)
        m.A[i][perm[i]] = 1;
    run(&m);
    for (int r = 0; r < 16; r++)
        for (int n = 0; n < 8; n++)
            CHECK(d_at(&m, r, n) == m.B[perm[r]][n], "permutation, op %d: D[%d][%d] = %g, want B[%d][%d] = %g", op,
                  r, n, d_at(&m, r, n), perm[r], n, m.B[perm[r]][n]);
}

/* A = e(r, k), B = e(k, n): D = e(r, n), at the lane and register the C/D figure names. */
static void test_single_ones(NvMmaOp op)
{
    static Mma m;
    int bad = 0;
    for (int r = 0; r < 16; r++)
        for (int k = 0; k < 16; k++)
            for (int n = 0; n < 8; n++) {
                memset(&m, 0, sizeof m);
                m.op = op;
                m.A[r][k] = 1;
                m.B[k][n] = 1;
                run(&m);
                int want_lane = (r % 8) * 4 + n / 2, want_reg = (r / 8) * 2 + n % 2;
                for (int i = 0; i < W * 4; i++) {
                    float want = i == want_lane * 4 + want_reg ? 1.0f : 0.0f;
                    if (m.d[i] != want && bad++ < 4)
                        CHECK(0, "op %d, A = e(%d, %d), B = e(%d, %d): lane %d register %d is %g, want %g", op, r, k,
                              k, n, i / 4, i % 4, m.d[i], want);
                }
            }
}

static void test_c_alias_random(NvMmaOp op)
{
    static Mma m;
    memset(&m, 0, sizeof m);
    m.op = op;
    srand(7 + op);
    for (int r = 0; r < 16; r++)
        for (int n = 0; n < 8; n++)
            m.C[r][n] = (float)(rand() % 1001 - 500) * 0.25f;
    run(&m); /* A = 0: D = C */
    check_product(&m, "A = 0");
    for (int r = 0; r < 16; r++)
        for (int k = 0; k < 16; k++)
            m.A[r][k] = (float)(rand() % 33 - 16) * 0.5f;
    for (int k = 0; k < 16; k++)
        for (int n = 0; n < 8; n++)
            m.B[k][n] = (float)(rand() % 33 - 16);
    run(&m);
    check_product(&m, "random");
    /* d aliasing c */
    float d[W * 4];
    memcpy(d, m.d, sizeof d);
    emu_mma_m16n8k16(op, m.a, m.b, m.c, m.c);
    CHECK(memcmp(d, m.c, sizeof d) == 0, "op %d: d aliasing c gives another result", op);
}

/* The element formats: the bits 0x3e00 are 1.5 as f16 and 0.125 as bf16; f16 subnormals are kept. */
static void test_formats(void)
{
    uint32_t a[W * 4] = {0}, b[W * 2] = {0};
    float c[W * 4] = {0}, d[W * 4];
    /* lane 0: a0 low = A[0][0], b0 low = B[0][0] */
    a[0] = 0x3e00; /* f16 1.5; bf16 0.125 */
    b[0] = 0x4000; /* f16 2.0; bf16 2.0 */
    emu_mma_m16n8k16(NV_MMA_F16, a, b, c, d);
    CHECK(d[0] == 3.0f, "f16: 1.5 * 2 = %g", d[0]);
    emu_mma_m16n8k16(NV_MMA_BF16, a, b, c, d);
    CHECK(d[0] == 0.25f, "bf16: 0.125 * 2 = %g", d[0]);
    a[0] = 0x0001; /* f16: the smallest subnormal, 2^-24 */
    b[0] = 0x3c00; /* f16 1 */
    emu_mma_m16n8k16(NV_MMA_F16, a, b, c, d);
    CHECK(d[0] == ldexpf(1, -24), "f16 subnormal: %g", d[0]);
}

/* ldmatrix: element (matrix j, row r, column c) holds j * 64 + r * 8 + c; lane l gives row l % 8 of
 * matrix l / 8, stored at a shuffled place. Lane t receives, per the figure, (row t / 4, columns
 * 2 (t % 4) and + 1) of each matrix, or with .trans (rows 2 (t % 4) and + 1, column t / 4). */
static void test_ldmatrix(void)
{
    uint8_t mem[W][16];
    const uint8_t *rows[W];
    for (int l = 0; l < W; l++) {
        int slot = (l * 13 + 5) % W; /* a permutation of 0..31 */
        int j = l / 8, r = l % 8;
        for (int c = 0; c < 8; c++) {
            uint16_t v = (uint16_t)(j * 64 + r * 8 + c);
            mem[slot][2 * c] = (uint8_t)v;
            mem[slot][2 * c + 1] = (uint8_t)(v >> 8);
        }
        rows[l] = mem[slot];
    }
    for (int trans = 0; trans < 2; trans++) {
        uint32_t out[W * 4];
        emu_ldmatrix_x4(rows, trans, out);
        for (int t = 0; t < W; t++)
            for (int j = 0; j < 4; j++) {
                uint32_t lo = trans ? (uint32_t)(j * 64 + 2 * (t % 4) * 8 + t / 4)
                                    : (uint32_t)(j * 64 + (t / 4) * 8 + 2 * (t % 4));
                uint32_t hi = trans ? lo + 8 : lo + 1;
                uint32_t want = lo | hi << 16;
                CHECK(out[t * 4 + j] == want, "ldmatrix%s: lane %d matrix %d: 0x%08x, want 0x%08x",
                      trans ? ".trans" : "", t, j, out[t * 4 + j], want);
            }
    }
}

int main(void)
{
    for (int op = 0; op <= NV_MMA_BF16; op++) {
        test_identity_and_permutation((NvMmaOp)op);
        test_single_ones((NvMmaOp)op);
        test_c_alias_random((NvMmaOp)op);
    }
    test_formats();
    test_ldmatrix();
    if (failures) {
        fprintf(stderr, "test_mma_ref: %d failures\n", failures);
        return 1;
    }
    printf("test_mma_ref: ok\n");
    return 0;
}
