/* AMD's matrix instructions (MFMA) as data: MfmaOp, the id the compiler's layouts and lowering and the
 * emulator share, and each op's facts (isa/mfma.def says what each column means and where it comes
 * from). Facts only: where an operand's elements sit in the registers, the compiler's layouts
 * (compiler/layout) and the emulator (runtime/emu/mfma_ref.c) each derive for themselves. */
#ifndef RK_ISA_MFMA_H
#define RK_ISA_MFMA_H

#include <stddef.h>

#include "isa/elem.h"

/* The architecture families of isa/mfma.def's passes columns. */
enum { MFMA_CDNA2 = 1 << 0, MFMA_CDNA3 = 1 << 1, MFMA_CDNA4 = 1 << 2 };

typedef enum MfmaOp {
#define ISA_MFMA(id, mnemonic, m, n, k, blocks, ar, br, cdr, p2, p3, p4, in, acc) MFMA_##id,
#include "isa/mfma.def"
#undef ISA_MFMA
    MFMA_COUNT
} MfmaOp;

typedef struct MfmaInfo {
    const char *name;            /* the ISA mnemonic, e.g. "v_mfma_f32_16x16x16_bf16" */
    int m, n, k;                 /* the matrix shape of one block */
    int blocks;                  /* independent blocks per instruction */
    int a_regs, b_regs, cd_regs; /* 32-bit registers per lane holding A, B, and C and D */
    int passes[3];               /* issue passes (4 cycles each) on CDNA2, CDNA3, CDNA4; 0: absent */
    IsaElem in, acc;             /* element types of A and B, and of C and D */
    unsigned families;           /* MFMA_CDNA2 | MFMA_CDNA3 | MFMA_CDNA4: where it exists */
} MfmaInfo;

/* The facts of op; NULL for a value that is no MfmaOp. */
const MfmaInfo *isa_mfma_info(MfmaOp op);

/* The issue passes of the op on `family` (one MFMA_CDNA* bit), 0 where it lacks the op: the matrix
 * unit is busy 4 cycles a pass. */
static inline int isa_mfma_passes(const MfmaInfo *info, unsigned family)
{
    return family == MFMA_CDNA2 ? info->passes[0] : family == MFMA_CDNA3 ? info->passes[1]
           : family == MFMA_CDNA4 ? info->passes[2] : 0;
}

/* The accumulator elements a lane holds: one per register, one per two for f64. */
static inline int isa_mfma_acc_elems(const MfmaInfo *info)
{
    return info->acc == ISA_F64 ? info->cd_regs / 2 : info->cd_regs;
}

#endif
