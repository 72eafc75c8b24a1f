/* The instruction tables of isa/mfma.def and isa/nvmma.def as arrays, indexed by their ids. */
#include "isa/mfma.h"
#include "isa/nvmma.h"

static const MfmaInfo mfma_ops[MFMA_COUNT] = {
#define ISA_MFMA(id, mnemonic, m, n, k, blocks, ar, br, cdr, p2, p3, p4, in, acc)                                      \
    [MFMA_##id] = {mnemonic, m, n, k, blocks, ar, br, cdr, {p2, p3, p4}, ISA_##in, ISA_##acc,                          \
                   (p2 ? MFMA_CDNA2 : 0) | (p3 ? MFMA_CDNA3 : 0) | (p4 ? MFMA_CDNA4 : 0)},
#include "isa/mfma.def"
#undef ISA_MFMA
};

const MfmaInfo *isa_mfma_info(MfmaOp op)
{
    return (unsigned)op < MFMA_COUNT ? &mfma_ops[op] : NULL;
}

static const NvMmaInfo nv_ops[NV_MMA_COUNT] = {
#define ISA_NVMMA(id, name, m, n, k, ar, br, cdr, elem, wgmma) [id] = {name, m, n, k, ar, br, cdr, ISA_##elem, wgmma},
#include "isa/nvmma.def"
#undef ISA_NVMMA
};

const NvMmaInfo *isa_nvmma_info(NvMmaOp op)
{
    return (unsigned)op < NV_MMA_COUNT ? &nv_ops[op] : NULL;
}
