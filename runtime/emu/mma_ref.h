/* Reference semantics of the NVIDIA warp-level matrix instructions rk's sm_90 lowering uses, for the
 * emulator (emu_sm90 code: 32-lane waves).
 *
 * Written from the PTX ISA (section "Warp Level Matrix Multiply-Accumulate Instructions": "Matrix
 * Fragments for mma.m16n8k16 with floating point type" and "ldmatrix"), independently of the
 * compiler's layout code (compiler/layout/layout_linear.c), so that the emulator checks the compiler
 * instead of echoing it. Operands are given per lane as the 32-bit registers the hardware holds; a
 * register of 16-bit elements holds two, the lower-numbered one in its low half.
 *
 *   mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 d, a, b, c
 *     groupID = lane / 4, tig = lane % 4
 *     A (16x16): element i of a[0..7] (register i/2) is row groupID + 8*((i/2) % 2),
 *                column (k) 2*tig + i%2 + 8*(i/4)
 *     B (16x8):  element i of b[0..3] (register i/2) is row (k) 2*tig + i%2 + 8*(i/2), column groupID
 *     C, D (16x8, f32): c[i] is row groupID + 8*(i/2), column 2*tig + i%2
 *   ldmatrix.sync.aligned.m8n8.x4{.trans}.shared.b16 {r0, r1, r2, r3}, [addr]
 *     lane l gives the address of row l % 8 of matrix l / 8 (16 bytes: eight 16-bit elements,
 *     16-byte aligned); lane t receives in r[j], of matrix j, the elements (row t/4, columns
 *     2*(t%4), 2*(t%4)+1); with .trans the elements (rows 2*(t%4), 2*(t%4)+1, column t/4).
 *   wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}.{f16,bf16} d, a-desc, b-desc, 1, 1, 1, 0, tb
 *     (section "Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions"): a warpgroup of
 *     four warps; thread t (0..127) holds d[i], i < N/2, at row 16*(t/32) + (t%32)/4 + 8*((i/2)%2),
 *     column 8*(i/4) + 2*(t%4) + i%2. A (64x16) and B (16xN) are read from shared memory through
 *     64-bit descriptors: start address bits 0-13, leading byte offset (LBO) 16-29, stride byte
 *     offset (SBO) 32-45 (each in 16-byte units), swizzle 62-63 (1: 128 bytes, 2: 64, 3: 32). With a
 *     swizzle of S bytes the operand is made of atoms of 8 lines of S bytes; a K-major operand (A, or
 *     B when tb = 0) has m (n) along the lines, k along each line, the next 8 lines SBO further; an
 *     MN-major one (B with tb = 1) has k along the lines and n along each line, the next 8 k SBO
 *     further and the next S/2 n LBO further. Inside an atom, bits 4.. of the address are XORed with
 *     bits 7.. (as many bits as S / 16 needs). */
#ifndef RK_MMA_REF_H
#define RK_MMA_REF_H

#include <stdint.h>

#include "isa/nvmma.h" /* the ops, shared with the compiler: NV_MMA_F16, NV_MMA_BF16, NV_WGMMA_* */

enum { EMU_NV_WARP = 32 };

/* D = A x B + C for one warp: a[lane * 4 + r], b[lane * 2 + r], c[lane * 4 + i], d[lane * 4 + i]
 * (d may alias c). Products of 16-bit floats are exact in f32; they are summed in f32, in k order,
 * onto C. */
void emu_mma_m16n8k16(NvMmaOp op, const uint32_t *a, const uint32_t *b, const float *c, float *d);

/* The fragment layouts: the matrix coordinates of element i of a lane's A (0..7), B (0..3) or C/D
 * (0..3) fragment. */
void emu_mma_a_coord(int lane, int i, int *row, int *k);
void emu_mma_b_coord(int lane, int i, int *k, int *col);
void emu_mma_cd_coord(int lane, int i, int *row, int *col);

/* ldmatrix .x4 for one warp: rows[l] is the 16-byte row lane l gives; out[t * 4 + j] receives lane t's
 * register of matrix j. */
void emu_ldmatrix_x4(const uint8_t *const *rows, int trans, uint32_t *out);

/* wgmma: element i of thread t's accumulators (t: 0..127 in the warpgroup). */
void emu_wgmma_d_coord(int t, int i, int *row, int *col);
/* The shared-memory byte address of element (mn, k) of a 16-bit operand read through descriptor
 * `desc`, K-major (mn_major 0) or MN-major; -1 for a descriptor without a swizzle (rk never makes one). */
int64_t emu_wgmma_addr(uint64_t desc, int mn_major, int mn, int k);
/* A 16-bit element's value, of op's element type (any NvMmaOp). */
float emu_mma_elem_value(NvMmaOp op, uint32_t bits);

#endif
