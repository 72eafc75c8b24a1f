/* mma.sync m16n8k16 and ldmatrix .x4, as the PTX ISA defines them (mma_ref.h gives the formulas). */
#include "runtime/emu/mma_ref.h"

#include <math.h>
#include <string.h>

void emu_mma_a_coord(int lane, int i, int *row, int *k)
{
    *row = lane / 4 + 8 * ((i / 2) % 2);
    *k = 2 * (lane % 4) + i % 2 + 8 * (i / 4);
}

void emu_mma_b_coord(int lane, int i, int *k, int *col)
{
    *k = 2 * (lane % 4) + i % 2 + 8 * (i / 2);
    *col = lane / 4;
}

void emu_mma_cd_coord(int lane, int i, int *row, int *col)
{
    *row = lane / 4 + 8 * (i / 2);
    *col = 2 * (lane % 4) + i % 2;
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
    uint32_t u = h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The value of a 16-bit element of op's type (isa/nvmma.def: f16 or bf16). */
static float value(NvMmaOp op, uint32_t h)
{
    const NvMmaInfo *i = isa_nvmma_info(op);
    return i && i->elem == ISA_BF16 ? bf16_value(h) : f16_value(h);
}

/* The 16-bit element `half` (0: low, 1: high) of a register. */
static float elem(NvMmaOp op, uint32_t reg, int half)
{
    return value(op, (reg >> (16 * half)) & 0xffff);
}

void emu_mma_m16n8k16(NvMmaOp op, const uint32_t *a, const uint32_t *b, const float *c, float *d)
{
    float A[16][16], B[16][8], C[16][8];
    for (int lane = 0; lane < EMU_NV_WARP; lane++) {
        for (int i = 0; i < 8; i++) {
            int r, k;
            emu_mma_a_coord(lane, i, &r, &k);
            A[r][k] = elem(op, a[lane * 4 + i / 2], i % 2);
        }
        for (int i = 0; i < 4; i++) {
            int k, n;
            emu_mma_b_coord(lane, i, &k, &n);
            B[k][n] = elem(op, b[lane * 2 + i / 2], i % 2);
        }
        for (int i = 0; i < 4; i++) {
            int r, n;
            emu_mma_cd_coord(lane, i, &r, &n);
            C[r][n] = c[lane * 4 + i];
        }
    }
    for (int lane = 0; lane < EMU_NV_WARP; lane++)
        for (int i = 0; i < 4; i++) {
            int r, n;
            emu_mma_cd_coord(lane, i, &r, &n);
            float acc = C[r][n];
            for (int k = 0; k < 16; k++)
                acc += A[r][k] * B[k][n]; /* the product is exact: 11 x 11 significant bits at most */
            d[lane * 4 + i] = acc;
        }
}

float emu_mma_elem_value(NvMmaOp op, uint32_t bits)
{
    return value(op, bits & 0xffff);
}

void emu_wgmma_d_coord(int t, int i, int *row, int *col)
{
    *row = 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2);
    *col = 8 * (i / 4) + 2 * (t % 4) + i % 2;
}

int64_t emu_wgmma_addr(uint64_t desc, int mn_major, int mn, int k)
{
    int64_t start = (int64_t)(desc & 0x3fff) << 4, lbo = (int64_t)(desc >> 16 & 0x3fff) << 4,
            sbo = (int64_t)(desc >> 32 & 0x3fff) << 4;
    int mode = (int)(desc >> 62), S = mode == 1 ? 128 : mode == 2 ? 64 : mode == 3 ? 32 : 0;
    if (!S)
        return -1;
    int64_t off;
    if (!mn_major)
        off = start + (int64_t)(mn / 8) * sbo + (int64_t)(mn % 8) * S + (int64_t)k * 2;
    else
        off = start + (int64_t)(mn / (S / 2)) * lbo + (int64_t)(mn % (S / 2)) * 2 + (int64_t)(k / 8) * sbo +
              (int64_t)(k % 8) * S;
    return off ^ (((off >> 7) & (S / 16 - 1)) << 4);
}

static uint32_t row_elem(const uint8_t *row, int col)
{
    return (uint32_t)row[2 * col] | (uint32_t)row[2 * col + 1] << 8;
}

void emu_ldmatrix_x4(const uint8_t *const *rows, int trans, uint32_t *out)
{
    for (int t = 0; t < EMU_NV_WARP; t++)
        for (int j = 0; j < 4; j++) {
            const uint8_t *const *m = rows + 8 * j; /* matrix j's eight rows */
            uint32_t lo, hi;
            if (trans) {
                lo = row_elem(m[2 * (t % 4)], t / 4);
                hi = row_elem(m[2 * (t % 4) + 1], t / 4);
            } else {
                lo = row_elem(m[t / 4], 2 * (t % 4));
                hi = row_elem(m[t / 4], 2 * (t % 4) + 1);
            }
            out[t * 4 + j] = lo | hi << 16;
        }
}
