/* NVIDIA's matrix instructions as data: NvMmaOp, the id the compiler's mma layouts and lowering and the
 * emulator share, and each op's facts (isa/nvmma.def says what each column means). */
#ifndef RK_ISA_NVMMA_H
#define RK_ISA_NVMMA_H

#include <stdbool.h>
#include <stddef.h>

#include "isa/elem.h"

typedef enum NvMmaOp {
#define ISA_NVMMA(id, name, m, n, k, ar, br, cdr, elem, wgmma) id,
#include "isa/nvmma.def"
#undef ISA_NVMMA
    NV_MMA_COUNT
} NvMmaOp;

typedef struct NvMmaInfo {
    const char *name;            /* "m16n8k16_f16", "wgmma_m64k16_bf16" */
    int m, n, k;                 /* n 0: chosen per instruction */
    int a_regs, b_regs, cd_regs; /* per thread; 0: from shared memory, or N/2 (wgmma's C/D) */
    IsaElem elem;                /* A and B; C and D are f32 */
    bool wgmma;
} NvMmaInfo;

/* The facts of op; NULL for a value that is no NvMmaOp. */
const NvMmaInfo *isa_nvmma_info(NvMmaOp op);

/* Its name, or NULL. */
static inline const char *nv_mma_name(NvMmaOp op)
{
    const NvMmaInfo *i = isa_nvmma_info(op);
    return i ? i->name : NULL;
}
/* Whether op is a wgmma op. */
static inline bool nv_is_wgmma(int op)
{
    const NvMmaInfo *i = isa_nvmma_info((NvMmaOp)op);
    return i && i->wgmma;
}
/* The mma.sync op of the same element type: what the lowering issues where a wgmma operand is not in
 * shared memory. */
static inline NvMmaOp nv_mma_sync_op(int op)
{
    const NvMmaInfo *i = isa_nvmma_info((NvMmaOp)op);
    return i && i->elem == ISA_F16 ? NV_MMA_F16 : NV_MMA_BF16;
}

#endif
