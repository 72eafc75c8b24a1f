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

#include "isa/mfma.h" /* the ops and their shapes, register counts and element types */

/* D = A × B + C for one wave of 64 lanes. a[lane * a_regs + r], b[lane * b_regs + r],
 * c[lane * cd_regs + r], d[lane * cd_regs + r]; d may alias c. Modifiers (cbsz, abid, blgp) are 0.
 * Uses about 4 KiB of stack. */
void emu_mfma_exec(MfmaOp op, const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *d);

/* The register layouts themselves, for tests and tools. C and D share one layout. */
typedef enum EmuMfmaOperand { EMU_MFMA_OPERAND_A, EMU_MFMA_OPERAND_B, EMU_MFMA_OPERAND_CD } EmuMfmaOperand;

/* Width in bits of one element of the operand: 8, 16, 32 or 64 (0 for a bad op). */
int emu_mfma_elem_bits(MfmaOp op, EmuMfmaOperand which);

/* The matrix element held in bits [bit, bit + width) of register `reg` of `lane` (a 64-bit element
 * starts at an even register, bit 0): *row, *col are (i, k) of A, (k, j) of B, (i, j) of C/D.
 * Returns 0 when (lane, reg, bit) names no element: out of range or not at an element boundary. */
int emu_mfma_elem_at(MfmaOp op, EmuMfmaOperand which, int lane, int reg, int bit, int *row, int *col);

#endif
