/* The element types of the matrix instructions' operands (isa/mfma.def, isa/nvmma.def). */
#ifndef RK_ISA_ELEM_H
#define RK_ISA_ELEM_H

typedef enum IsaElem {
    ISA_F16,
    ISA_BF16,
    ISA_F32,
    ISA_XF32, /* an f32 register whose value the multiplier reads reduced to 10 mantissa bits */
    ISA_F64,
    ISA_I8,
    ISA_FP8, /* CDNA3's FNUZ e4m3 */
    ISA_I32,
} IsaElem;

#endif
