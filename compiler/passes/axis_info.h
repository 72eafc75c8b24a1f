/* Axis analysis: what is known about the values of a tile along each dimension.
 *
 *   contiguity[d]  runs of this many consecutive values (x, x+1, ...) along d (a power of two)
 *   constancy[d]   runs of this many equal values along d
 *   divisibility[d] the largest power of two dividing the first value of every contiguity run
 *                   (for pointers: in bytes)
 * These decide how wide a load or store can be: a lane may move `vec` elements at once when the
 * pointers are contiguous over vec elements, aligned to vec * size bytes, and the mask is constant over
 * them. Pointer arguments are 16-byte aligned by contract (rk_launch checks it); integer arguments are
 * unknown unless hinted (multiple_of, max_contiguous). Rules follow Triton's AxisInfo analysis. */
#ifndef RK_AXIS_INFO_H
#define RK_AXIS_INFO_H

#include "compiler/tir/tir.h"

enum { AXIS_MAX_DIV = 1 << 30 };

typedef struct AxisInfo {
    int rank; /* 0 for scalars */
    int64_t contig[TIR_MAX_RANK], constancy[TIR_MAX_RANK], div[TIR_MAX_RANK];
    int64_t sdiv; /* scalars: divisibility */
} AxisInfo;

typedef struct AxisTab AxisTab;

/* Analyses a function; uses Value.scratch of its values as indices (valid until the next pass that
 * writes scratch). */
AxisTab *compute_axis_info(Arena *a, Func *f);
const AxisInfo *axis_of(const AxisTab *t, const Value *v);
/* The widest access, in elements, for a load/store/atomic whose pointer tile is `ptr` (and optional
 * mask) along dimension *dim (chosen: the most contiguous); at most max_bits wide. */
int axis_vector_width(const AxisTab *t, const Value *ptr, const Value *mask, int max_bits, int *dim);
/* The widest access, in elements of `bytes` bytes, along dimension d that pointer facts p allow
 * (contiguous and aligned) and over which mask facts m (NULL: no mask) are constant; at least 1, not
 * rounded to a power of two. axis_vector_width's rule, for the lowering's own facts (lower_mem.c). */
int64_t axis_access_width(const AxisInfo *p, const AxisInfo *m, int d, int64_t bytes);

#endif
