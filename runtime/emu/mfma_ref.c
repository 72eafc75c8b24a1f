/* Reference semantics of the MFMA instructions rk uses, for one wave64: register layouts and numerics.
 *
 * Written from AMD's descriptions of the instructions, independently of the compiler's layout code, so
 * that the emulator checks the compiler instead of echoing it. Every layout is a small function from a
 * register slot (lane, register, bit offset) to a matrix element, derived from the instruction's M, N,
 * K and element width alone; emu_mfma_exec gathers A and B through them, then computes each D slot from
 * the C value in the same slot (C and D share a layout), which makes d aliasing c harmless. The tests
 * (tests/unit/test_mfma_ref.c) check every slot against the tables of AMD's Matrix Instruction
 * Calculator in tests/data/mfma/ and check the products by hand.
 *
 * Sources (read, not copied):
 *  [ISA3]  "AMD Instinct MI300 (CDNA3) Instruction Set Architecture", chapter 7 "Matrix Arithmetic
 *          Instructions", the normative description, to which [BLOG] refers for the full layouts;
 *          [ISA2] and [ISA4] are the same chapter of the MI200 (CDNA2) and CDNA4 guides. Their text was
 *          not at hand when this was written: the layouts below follow AMD's own explanations of them
 *          ([LAB], [BLOG], [X950]) and are checked against [CALC]'s tables by the tests.
 *  [LAB]   AMD lab notes "AMD matrix cores" (gpuopen.com/learn/amd-lab-notes, amd/amd-lab-notes
 *          matrix-cores/): examples 1-3 and src/mfma_fp32_32x32x8fp16.cpp, mfma_fp64_16x16x4fp64.cpp.
 *  [BLOG]  ROCm blog "Matrix Core Programming on AMD CDNA3 and CDNA4 architecture" (Salykov, Luo,
 *          Huang, Sun, 2025): section 2 (FP8 variants), 3 (cycle counts), 5.1-5.3 (layouts).
 *  [CALC]  ROCm/amd_matrix_instruction_calculator (commit 2ef9189): the tables in tests/data/mfma, and
 *          matrix_calculator.py's data types ("amd_fp8" for CDNA3, "fp8" = OCP for later parts).
 *  [X950]  carlushuang/gcnasm matrix_core_gfx950/matrix_core.cc (v_mfma_f32_32x32x16_f16 layout) and
 *          composable_kernel xdlops_gemm.hpp mfma_type<mfma_f32_16x16x32f16> (k_per_blk 8, 4 input
 *          blocks of 16 lanes).
 *  [XF32]  ROCm/rocm-libraries PR 9176 "round before gfx942 xf32 mfma to avoid bias from hardware
 *          truncation" and PR 6768 review thread; triton-lang/triton PR 11783 (XF32 "discards the low
 *          13 mantissa bits").
 *
 * Numerics (what the documents do not pin down is said where it is implemented):
 *  - f16, bf16, fp8 and xf32 products are exact in f32 (at most 11 x 11 significant bits), so each
 *    product is formed exactly and added to the accumulator with one f32 rounding (round to nearest
 *    even), in increasing k, starting from C: acc = fmaf(a[k], b[k], acc). The hardware instead adds
 *    several products per pass in a wider multi-operand adder and rounds once per pass; its internal
 *    alignment width and order are not documented, so results can differ from it in the last bits
 *    when the terms have different exponents or cancel. Sums of exactly representable terms whose
 *    partial sums are exact (as in the tests) agree bit for bit.
 *  - f32 (16x16x4, 32x32x2): the same chain of f32 fused multiply-adds; f64: the same in f64.
 *  - Subnormal inputs and results are kept (IEEE); NaN and infinity propagate as fmaf makes them.
 *  - i8: signed, products and sums in 32-bit two's complement with wrap-around. */
#include "runtime/emu/mfma_ref.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

enum { WAVE = 64, MAX_MK = 512 /* the largest M*K or K*N in isa/mfma.def */, MAX_F64_MK = 64 };

/* The shapes, register counts and element types come from the instruction table (isa/mfma.def), which
 * the compiler reads too; what is derived here, from AMD's documents alone, is where each element sits
 * in the registers and what the instruction computes. */
static int elem_bits(IsaElem e)
{
    switch (e) {
    case ISA_I8:
    case ISA_FP8:
        return 8;
    case ISA_F16:
    case ISA_BF16:
        return 16;
    case ISA_F64:
        return 64;
    default:
        return 32;
    }
}

int emu_mfma_elem_bits(MfmaOp op, EmuMfmaOperand which)
{
    const MfmaInfo *d = isa_mfma_info(op);
    if (!d)
        return 0;
    return elem_bits(which == EMU_MFMA_OPERAND_CD ? d->acc : d->in);
}

/* ---- Layouts ----------------------------------------------------------------------------------------
 *
 * A and B ([ISA3] ch. 7; [LAB] examples 1 and src/mfma_fp32_32x32x8fp16.cpp; [BLOG] 5.1-5.3; [ISA2] for
 * the CDNA2 i8 ops; [ISA4] and [X950] for the gfx950 f16/bf16 ops). The 64 lanes form 64/M groups of
 * M lanes (64/N of N for B); lane l holds row i = l % M of A (column j = l % N of B), and group g = l/M
 * holds the g-th run of kpl = K*M/64 consecutive k. Within the lane the run is packed from the first
 * register upward, element e of the run in bits [e*w, e*w + w) (w the element width; "low half
 * first"), a 64-bit element in a register pair. So lane l, register r, bit b holds
 *     A[l % M][kpl * (l / M) + (32 r + b) / w]        B[kpl * (l / N) + (32 r + b) / w][l % N].
 * Examples: 32x32x8 f16, kpl 4: lanes 0-31 hold k 0-3, lanes 32-63 k 4-7, two per register; 16x16x4
 * f32, kpl 1: lane 16 holds A[0][1]; 16x16x32 fp8, kpl 8: eight bytes in two registers; 32x32x16 f16
 * (gfx950), kpl 8: four registers, lane 32 holds A[0][8..15] [X950].
 *
 * A permutation of k applied to both A and B does not change A x B (only the order of the rounding
 * steps), so D depends on the pairing of A and B slots, not on which k a pair is called; the tables
 * name the k anyway, and the tests check the names too. */
static int in_elem(const MfmaInfo *d, int mn, int lane, int reg, int bit, int *idx, int *k)
{
    int w = elem_bits(d->in);
    int kpl = d->k * mn / WAVE;
    int e = (32 * reg + bit) / w;
    *idx = lane % mn;
    *k = kpl * (lane / mn) + e;
    return e < kpl;
}

/* C and D ([ISA3] ch. 7; [LAB] example 1 and src/mfma_fp32_32x32x8fp16.cpp for f32 results,
 * src/mfma_fp64_16x16x4fp64.cpp for f64; [BLOG] 5.1). Lane l holds column j = l % N; its 64/N lane
 * groups split the rows. For 32-bit results each lane group takes G = 4 consecutive rows per register
 * group: register r of lane l holds row
 *     i = (r / 4) * 4 * (64 / N) + 4 * (l / N) + r % 4,
 * i.e. 16x16: i = 4 (l/16) + r; 32x32: registers 4q..4q+3 cover rows 8q..8q+7, lanes 32-63 the upper
 * four. For the f64 result (16x16x4 f64) G = 1: element e (registers 2e, 2e+1) of lane l is row
 * 4 e + l / 16 ("consecutive registers skip 4 rows, groups of 16 lanes cover consecutive rows" [LAB]). */
static int out_elem(const MfmaInfo *d, int lane, int reg, int *i, int *j)
{
    int n = d->n;
    int f64 = d->acc == ISA_F64;
    int e = f64 ? reg / 2 : reg;
    int g = f64 ? 1 : 4;
    int groups = WAVE / n;
    *j = lane % n;
    *i = (e / g) * g * groups + g * (lane / n) + e % g;
    return *i < d->m;
}

int emu_mfma_elem_at(MfmaOp op, EmuMfmaOperand which, int lane, int reg, int bit, int *row, int *col)
{
    const MfmaInfo *d = isa_mfma_info(op);
    if (!d || lane < 0 || lane >= WAVE || reg < 0 || bit < 0 || bit >= 32)
        return 0;
    int w = emu_mfma_elem_bits(op, which);
    if (w == 64 ? (bit != 0 || reg % 2 != 0) : bit % w != 0)
        return 0;
    switch (which) {
    case EMU_MFMA_OPERAND_A:
        return reg < d->a_regs && in_elem(d, d->m, lane, reg, bit, row, col);
    case EMU_MFMA_OPERAND_B:
        return reg < d->b_regs && in_elem(d, d->n, lane, reg, bit, col, row);
    case EMU_MFMA_OPERAND_CD:
        return reg < d->cd_regs && out_elem(d, lane, reg, row, col);
    }
    return 0;
}

/* ---- Element formats ---------------------------------------------------------------------------- */

static float f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static double f64_from_bits(uint64_t u)
{
    double f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint64_t f64_bits(double f)
{
    uint64_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* IEEE binary16, exactly (subnormals included). */
static float f16_value(uint32_t h)
{
    int sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    float v;
    if (exp == 0x1f)
        v = man ? NAN : INFINITY;
    else if (exp == 0)
        v = ldexpf((float)man, -24);
    else
        v = ldexpf((float)(man | 0x400), exp - 25);
    return sign ? -v : v;
}

/* bfloat16 is the upper half of an f32. */
static float bf16_value(uint32_t h)
{
    return f32_from_bits(h << 16);
}

/* FP8 e4m3 FNUZ, the "FP8" of CDNA3 ([CALC]: "AMD 4-bit exponent, 3-bit mantissa"; [BLOG] section 2:
 * "CDNA3 uses FNUZ variants"): exponent bias 8, no infinities, no negative zero, 0x80 the only NaN,
 * largest 0x7f = 240, smallest subnormal 0x01 = 2^-10. (CDNA4 uses OCP e4m3fn instead; rk's fp8 ops
 * are the gfx942 ones.) */
static float fp8_fnuz_value(uint32_t x)
{
    if (x == 0x80)
        return NAN;
    int sign = (x >> 7) & 1, exp = (x >> 3) & 0xf, man = x & 7;
    float v = exp == 0 ? ldexpf((float)man, -10) : ldexpf((float)(man | 8), exp - 11);
    return sign ? -v : v;
}

/* XF32: the multiplier reads an f32 register with only its upper 10 mantissa bits, the low 13 cut
 * off (round toward zero). The CDNA3 ISA guide is inconsistent here (it mentions both rounding and
 * truncation, per the review thread of [XF32] PR 6768); measurements on gfx942 reported in [XF32]
 * PR 9176 show truncation (a consistent downward bias, fixed in software by adding half an ulp before
 * the MFMA), so truncation is what is implemented. Applied as a bit mask, it also turns a NaN whose
 * payload lies only in the low 13 bits into an infinity, which [XF32] triton PR 11783 describes. */
static float xf32_value(uint32_t u)
{
    return f32_from_bits(u & 0xffffe000u);
}

/* The value of a float-typed input element (raw bits right-aligned). */
static float in_value(IsaElem e, uint32_t raw)
{
    switch (e) {
    case ISA_F16:
        return f16_value(raw);
    case ISA_BF16:
        return bf16_value(raw);
    case ISA_XF32:
        return xf32_value(raw);
    case ISA_FP8:
        return fp8_fnuz_value(raw);
    default:
        return f32_from_bits(raw);
    }
}

/* ---- Execution ---------------------------------------------------------------------------------- */

/* Inputs gathered into row-major matrices, [0] = A (M x K), [1] = B (K x N); 4 KiB. */
typedef union Inputs {
    float f[2][MAX_MK];      /* float-typed inputs (f16, bf16, f32, xf32, fp8) */
    int32_t i[2][MAX_MK];    /* i8 */
    double d[2][MAX_F64_MK]; /* f64 */
} Inputs;

static void gather(MfmaOp op, const MfmaInfo *d, EmuMfmaOperand which, const uint32_t *regs, Inputs *in)
{
    int nregs = which == EMU_MFMA_OPERAND_A ? d->a_regs : d->b_regs;
    int cols = which == EMU_MFMA_OPERAND_A ? d->k : d->n;
    int s = which == EMU_MFMA_OPERAND_A ? 0 : 1;
    int w = elem_bits(d->in);
    for (int lane = 0; lane < WAVE; lane++) {
        const uint32_t *r = regs + (size_t)lane * nregs;
        for (int reg = 0; reg < nregs; reg += w == 64 ? 2 : 1) {
            for (int bit = 0; bit < 32; bit += w == 64 ? 32 : w) {
                int row, col;
                if (!emu_mfma_elem_at(op, which, lane, reg, bit, &row, &col))
                    continue;
                int at = row * cols + col;
                if (w == 64) {
                    in->d[s][at] = f64_from_bits((uint64_t)r[reg] | (uint64_t)r[reg + 1] << 32);
                    continue;
                }
                uint32_t raw = w == 32 ? r[reg] : (r[reg] >> bit) & ((1u << w) - 1);
                if (d->in == ISA_I8)
                    in->i[s][at] = (int32_t)raw - (raw & 0x80 ? 256 : 0);
                else
                    in->f[s][at] = in_value(d->in, raw);
            }
        }
    }
}

void emu_mfma_exec(MfmaOp op, const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *d)
{
    const MfmaInfo *o = isa_mfma_info(op);
    if (!o)
        return;
    Inputs in;
    gather(op, o, EMU_MFMA_OPERAND_A, a, &in);
    gather(op, o, EMU_MFMA_OPERAND_B, b, &in);

    int n = o->n, k = o->k, cd = o->cd_regs;
    int step = o->acc == ISA_F64 ? 2 : 1;
    for (int lane = 0; lane < WAVE; lane++) {
        for (int reg = 0; reg < cd; reg += step) {
            int i, j;
            if (!emu_mfma_elem_at(op, EMU_MFMA_OPERAND_CD, lane, reg, 0, &i, &j))
                continue;
            size_t at = (size_t)lane * cd + reg;
            /* Each D slot reads only the C slot it replaces, so d == c is fine. */
            switch (o->acc) {
            case ISA_F64: {
                double acc = f64_from_bits((uint64_t)c[at] | (uint64_t)c[at + 1] << 32);
                for (int kk = 0; kk < k; kk++)
                    acc = fma(in.d[0][i * k + kk], in.d[1][kk * n + j], acc);
                uint64_t u = f64_bits(acc);
                d[at] = (uint32_t)u;
                d[at + 1] = (uint32_t)(u >> 32);
                break;
            }
            case ISA_I32: {
                uint32_t acc = c[at];
                for (int kk = 0; kk < k; kk++)
                    acc += (uint32_t)(in.i[0][i * k + kk] * in.i[1][kk * n + j]);
                d[at] = acc;
                break;
            }
            default: {
                float acc = f32_from_bits(c[at]);
                for (int kk = 0; kk < k; kk++)
                    acc = fmaf(in.f[0][i * k + kk], in.f[1][kk * n + j], acc);
                d[at] = f32_bits(acc);
                break;
            }
            }
        }
    }
}
