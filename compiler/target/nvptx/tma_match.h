/* tma_match: whether a 2-D tile load is a box of a row-major tensor that sm_90's bulk tensor copy
 * engine (TMA) can fetch with the same result, and where that tensor and box are.
 *
 * The pointer tile must be `base + u + (o_outer + i) * stride + (o_inner + j)` (i, j the tile's
 * indices, base a pointer argument, u a uniform offset, stride a launch-time value), built from splat,
 * arange, expand_dims, broadcast, add, mul and addptr (scalar offsets of the base may be i64 values
 * computed from i32 ones: (pid as i64) * (n as i64) * 64), possibly advanced by a loop-invariant
 * amount each iteration of the loop carrying it. The mask must be an `and` of bounds `o + i < R`, at
 * most one per dimension, and of uniform conditions; `other`, if any, zero. TMA fetches element
 * (i, j) when its coordinates lie in [0, dim) and fills zeros elsewhere, so the load is a TMA copy
 * exactly when each dimension's extent agrees with the mask for every program and iteration:
 *  - a bounded dimension: dim = R - o_mask + o_pointer, a linear function of the kernel's integer
 *    arguments (which the runtime evaluates at launch); or, for the outer one, that plus q * dim
 *    where q is uniform: the tensor is then a batch of such matrices (a third, outermost dimension of
 *    stride stride * dim) and q the batch's coordinate (attention's per-head base);
 *  - the inner dimension without a bound: the copy must stay inside a row, which is proven when the
 *    coordinate and the stride are constants (dim = stride);
 *  - the outermost dimension without a bound is open: the runtime makes it as long as the pointer's
 *    allocation (a row past it is outside the program's memory anyway). */
#ifndef RK_TMA_MATCH_H
#define RK_TMA_MATCH_H

#include "compiler/tir/tir.h"

enum { TMA_LIN_MAX = 6 };

/* k + sum of c * a * b over terms (b NULL: degree 1); atoms are scalar i32 values, hints stripped.
 * A term is wide when i64 arithmetic made it (its value need not fit an i32). */
typedef struct TmaLin {
    int64_t k;
    int n;
    bool bad;
    struct {
        int64_t c;
        const Value *a, *b;
        bool wide;
    } t[TMA_LIN_MAX];
} TmaLin;

typedef struct TmaMatch {
    int ptr_param;      /* the kernel argument holding the tensor's base address */
    int inner;          /* the tile dimension contiguous in memory (its stride is 1) */
    int esize;          /* bytes per element */
    int rank;           /* 2, or 3: a batch of matrices (coord[2] the batch) */
    TmaLin dim[3];      /* elements along the inner, the outer and the batch dimension: kernel arguments */
    bool open[3];       /* the dimension is as long as the allocation (the outermost one only) */
    TmaLin stride[2];   /* elements between outer indices, between batches: kernel arguments */
    TmaLin coord[3];    /* the tile's first element, inner first: values of the kernel (i32) */
    const Value *pred[4]; /* the copy happens when all hold (uniform bools) */
    int npred;
} TmaMatch;

/* Fills m and returns true when `load` (an OP_LOAD of a 2-D tile in function f) can be a TMA copy. */
bool tma_match(const Func *f, const Op *load, TmaMatch *m);

/* v without the hints (multiple_of, max_contiguous) around it: the same value. */
const Value *tma_strip(const Value *v);

/* The argument index of a degree-1 TmaLin's atom (a kernel argument), -1 if it is not one. */
int tma_param_index(const Func *f, const Value *v);

#endif
