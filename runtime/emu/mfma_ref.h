/* Reference semantics of the AMD matrix instructions rk uses, for the emulator.
 *
 * Written from AMD's ISA documentation (CDNA3 ISA, section "Matrix Arithmetic Instructions"; CDNA2 and
 * CDNA4 likewise), independently of the compiler's layout code, so that the emulator checks the
 * compiler instead of echoing it. Each instruction is executed for a whole wave64 at once: operands
 * are given as 32-bit register words per lane, exactly as the hardware holds them in VGPRs/AGPRs.
 * The register ↔ matrix element layouts are verified by tests against the tables AMD's Matrix
 * Instruction Calculator produced (tests/data/mfma/). */
#ifndef RK_MFMA_REF_H
#define RK_MFMA_REF_H

#include <stdint.h>

typedef enum EmuMfmaOp {
    /* CDNA3 (gfx940/941/942); the f16 and bf16 ones also stand for CDNA2's *_1k forms where the
     * layouts agree (the tests check each architecture's table separately). */
    EMU_MFMA_F32_16X16X16_F16,
    EMU_MFMA_F32_32X32X8_F16,
    EMU_MFMA_F32_16X16X16_BF16,
    EMU_MFMA_F32_32X32X8_BF16,
    EMU_MFMA_F32_16X16X4_F32,
    EMU_MFMA_F32_32X32X2_F32,
    EMU_MFMA_F32_16X16X8_XF32,
    EMU_MFMA_F32_32X32X4_XF32,
    EMU_MFMA_I32_16X16X32_I8,
    EMU_MFMA_I32_32X32X16_I8,
    EMU_MFMA_F64_16X16X4_F64,
    EMU_MFMA_F32_16X16X32_FP8_FP8,
    EMU_MFMA_F32_32X32X16_FP8_FP8,
    /* CDNA2 (gfx90a) only */
    EMU_MFMA_I32_16X16X16_I8,
    EMU_MFMA_I32_32X32X8_I8,
    /* CDNA4 (gfx950) wider forms */
    EMU_MFMA_F32_16X16X32_F16,
    EMU_MFMA_F32_32X32X16_F16,
    EMU_MFMA_F32_16X16X32_BF16,
    EMU_MFMA_F32_32X32X16_BF16,
    EMU_MFMA_COUNT
} EmuMfmaOp;

typedef struct EmuMfmaInfo {
    const char *name; /* the ISA mnemonic, e.g. "v_mfma_f32_16x16x16_bf16" */
    int m, n, k;      /* the matrix shape of one block */
    int blocks;       /* independent blocks per instruction (1 for every op above unless noted) */
    int a_regs;       /* 32-bit registers per lane holding A */
    int b_regs;       /* ... B */
    int cd_regs;      /* ... C and D (f64: two per element) */
    int passes;       /* issue passes (4 cycles each), from the ISA tables */
} EmuMfmaInfo;

const EmuMfmaInfo *emu_mfma_info(EmuMfmaOp op);

/* D = A × B + C for one wave of 64 lanes. a[lane * a_regs + r], b[lane * b_regs + r],
 * c[lane * cd_regs + r], d[lane * cd_regs + r]; d may alias c. Modifiers (cbsz, abid, blgp) are 0.
 * Uses about 4 KiB of stack. */
void emu_mfma_exec(EmuMfmaOp op, const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *d);

/* The register layouts themselves, for tests and tools. C and D share one layout. */
typedef enum EmuMfmaOperand { EMU_MFMA_OPERAND_A, EMU_MFMA_OPERAND_B, EMU_MFMA_OPERAND_CD } EmuMfmaOperand;

/* Width in bits of one element of the operand: 8, 16, 32 or 64 (0 for a bad op). */
int emu_mfma_elem_bits(EmuMfmaOp op, EmuMfmaOperand which);

/* The matrix element held in bits [bit, bit + width) of register `reg` of `lane` (a 64-bit element
 * starts at an even register, bit 0): *row, *col are (i, k) of A, (k, j) of B, (i, j) of C/D.
 * Returns 0 when (lane, reg, bit) names no element: out of range or not at an element boundary. */
int emu_mfma_elem_at(EmuMfmaOp op, EmuMfmaOperand which, int lane, int reg, int bit, int *row, int *col);

#endif
