/* Layouts: how a tile is spread over the registers, lanes and waves of a workgroup, or laid out in LDS.
 *
 * Every tile shape in rk is a power of two, so every distributed layout is a linear map over GF(2)
 * (Triton's "linear layouts"): the coordinate of the element a lane holds in register r is the XOR of
 * a basis vector for each set bit of r, of the lane id and of the wave id. A basis of zero means
 * replication (several lanes or waves hold the same element). rk's layouts are also "separable": every
 * basis has at most one non-zero component, a power of two, and the non-zero bases of one dimension
 * are distinct powers — so XOR is addition and coordinates are sums of shifted id bits.
 *
 * The named layouts (Triton's vocabulary) are the parameters users see in IR dumps; LinLayout is what
 * every pass and the lowering compute with:
 *   blocked(sizePerThread, threadsPerWarp, warpsPerCTA, order)  coalesced global access
 *   slice(parent, dim)                                           a reduction's result
 *   mfma(instr, warpsPerCTA, transposed)                         a matrix instruction's accumulator
 *   mma(instr, warpsPerCTA)                                      NVIDIA mma.sync m16n8k16's accumulator
 *   dot_op(opIdx, parent, kWidth)                                a dot operand (parent: mfma or blocked)
 *   shared(vec, perPhase, maxPhase, order) / padded              a tile in LDS
 * A layout is independent of the tile's shape; applied to a shape it gives a LinLayout. Layouts are
 * interned: equal layouts are equal pointers, so types with layouts intern too. */
#ifndef RK_LAYOUT_H
#define RK_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler/tir/type.h"
#include "isa/nvmma.h"

typedef enum LayoutKind { LAY_BLOCKED, LAY_SLICE, LAY_MFMA, LAY_DOT_OP, LAY_SHARED, LAY_MMA } LayoutKind;

/* The matrix instructions of the mfma and mma layouts are ids of the instruction tables (isa/mfma.def:
 * MfmaOp; isa/nvmma.def: NvMmaOp), all NVIDIA's with f32 accumulators: mma.sync.aligned.m16n8k16
 * .row.col (sm_80 and later), and wgmma.mma_async m64nNk16 (sm_90a), whose accumulator is the mma
 * layout with the warps of each warpgroup stacked along M (wpc [num_warps, 1]): warp w % 4 of a
 * warpgroup holds rows 16 (w % 4) .. +15 of its 64, each as mma.sync's m16n8 C fragments along N. The
 * wgmma ops read both operands from shared memory; where the lowering finds an operand elsewhere it
 * issues mma.sync on the same layouts (nv_mma_sync_op). */

enum { LAY_MAX_RANK = TIR_MAX_RANK, LAY_MAX_REG_BITS = 20, LAY_MAX_LANE_BITS = 6, LAY_MAX_WARP_BITS = 4 };

struct Layout {
    LayoutKind kind;
    int rank;
    /* blocked; mfma uses wpc; shared uses order */
    int spt[LAY_MAX_RANK], tpw[LAY_MAX_RANK], wpc[LAY_MAX_RANK], order[LAY_MAX_RANK];
    /* slice and dot_op */
    const Layout *parent;
    int dim;
    /* mfma: the instruction (MfmaOp) and its shape; transposed swaps the roles of lanes and
     * registers in the accumulator so that a lane holds consecutive columns */
    int instr, im, in, ik;
    bool transposed;
    /* dot_op */
    int op_idx, k_width;
    /* shared: XOR swizzle (vec, per_phase, max_phase) or padding (pad elements per row, 0 = none) */
    int vec, per_phase, max_phase, pad;
    uint32_t id;
};

/* A distributed layout applied to a shape. */
typedef struct LinLayout {
    int rank;
    int nreg, nlane, nwarp; /* bits of each id */
    int32_t reg[LAY_MAX_REG_BITS][LAY_MAX_RANK];
    int32_t lane[LAY_MAX_LANE_BITS][LAY_MAX_RANK];
    int32_t warp[LAY_MAX_WARP_BITS][LAY_MAX_RANK];
    int64_t shape[LAY_MAX_RANK];
} LinLayout;

typedef struct LayoutTab {
    Arena *arena;
    Layout **slots;
    uint32_t cap, n;
} LayoutTab;

void laytab_init(LayoutTab *t, Arena *a);
/* Connects the layout printer to a type table, so types print with their layouts. */
void lay_attach_printer(TypeTab *tt);

const Layout *lay_blocked(LayoutTab *t, int rank, const int *spt, const int *tpw, const int *wpc, const int *order);
const Layout *lay_slice(LayoutTab *t, const Layout *parent, int dim);
const Layout *lay_mfma(LayoutTab *t, int instr, int im, int in, int ik, const int *wpc, bool transposed);
/* mma.sync m16n8k16: per warp and instruction a 16x8 accumulator tile, 4 f32 per lane (rows lane/4 and
 * lane/4 + 8, columns 2*(lane%4) + 0/1); waves tile wpc[0] x wpc[1] over the result. */
const Layout *lay_mma(LayoutTab *t, int instr, const int *wpc);
const Layout *lay_dot_op(LayoutTab *t, int op_idx, const Layout *parent, int k_width);
const Layout *lay_shared(LayoutTab *t, int rank, int vec, int per_phase, int max_phase, int pad, const int *order);

/* The default blocked layout of a shape: one element per lane per step, lanes along the last
 * dimension first (Triton's default). */
const Layout *lay_default(LayoutTab *t, int rank, const int64_t *shape, int num_warps, int wave);
/* A blocked layout moving `vec` contiguous elements per lane along dimension `dim` (fastest), lanes
 * and waves filling that dimension first, then the others. */
const Layout *lay_coalesced(LayoutTab *t, int rank, const int64_t *shape, int dim, int vec, int num_warps, int wave);

/* The layout of a tile after permute(dims) / reshape, such that the lowering moves no data; NULL when
 * no such layout exists (the caller converts). */
const Layout *lay_permuted(LayoutTab *t, const Layout *l, const int64_t *dims);

bool lay_is_distributed(const Layout *l);
/* Applies a distributed layout to a shape. False if the layout cannot hold that shape (then *out is
 * unspecified). wave = lanes per wave, num_warps = waves per workgroup. */
bool lay_linear(const Layout *l, int rank, const int64_t *shape, int wave, int num_warps, LinLayout *out);
/* The coordinates of register r's element, for lane 0 of wave 0 (the register part). */
void lin_reg_coords(const LinLayout *ll, int r, int64_t *coords);
/* Register count (2^nreg). */
static inline int lin_nregs(const LinLayout *ll) { return 1 << ll->nreg; }
/* The register of ll holding the element whose register-part coordinates are c (the lane and wave
 * parts are this lane's own); -1 if none. Separable layouts decode it bit by bit. */
int lin_reg_of(const LinLayout *ll, const int64_t *c);
/* Whether every lane and wave holds in dst elements it holds in src: a conversion only renames
 * registers. */
bool lin_renames(const LinLayout *src, const LinLayout *dst);
/* Two linear layouts equal (same bases, same shape). */
bool lin_equal(const LinLayout *a, const LinLayout *b);

/* The text form: "blocked<spt = [1, 4], tpw = [16, 4], wpc = [4, 1], order = [1, 0]>", ... */
char *lay_str(Arena *a, const Layout *l);
/* Parses lay_str's output (after the '#'); *end is set past it. NULL on error. */
const Layout *lay_parse(LayoutTab *t, const char *s, const char **end);
/* Connects the layout printer and parser to a type table: types print with their layouts and the
 * TIR text parser reads them (layouts made in t). */
void lay_attach_text(TypeTab *tt, LayoutTab *t);

#endif
