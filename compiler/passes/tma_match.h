/* tma_match: whether a 2-D tile load is a box of a row-major tensor that sm_90's bulk tensor copy
 * engine (TMA) can fetch with the same result, and where that tensor and box are.
 *
 * The pointer tile must be `base + (o_outer + i) * stride + (o_inner + j)` (i, j the tile's indices,
 * base a pointer argument, stride a launch-time value), built from splat, arange, expand_dims,
 * broadcast, add, mul and addptr, possibly advanced by a loop-invariant amount each iteration of the
 * loop carrying it. The mask must be an `and` of bounds `o + i < R` on each dimension (the same
 * coordinates, one on each dimension) and of uniform conditions; `other`, if any, zero. TMA fetches element (i, j) when its
 * coordinates lie in [0, dim) and fills zeros elsewhere, so the load is a TMA copy exactly when each
 * dimension's dim = R - o_mask + o_pointer is the same for every program and iteration: a linear
 * function of the kernel's integer arguments, which the runtime evaluates at launch. */
#ifndef RK_TMA_MATCH_H
#define RK_TMA_MATCH_H

#include "compiler/tir/tir.h"

enum { TMA_LIN_MAX = 6 };

/* k + sum of c * a * b over terms (b NULL: degree 1); atoms are scalar i32 values, hints stripped. */
typedef struct TmaLin {
    int64_t k;
    int n;
    bool bad;
    struct {
        int64_t c;
        const Value *a, *b;
    } t[TMA_LIN_MAX];
} TmaLin;

typedef struct TmaMatch {
    int ptr_param;      /* the kernel argument holding the tensor's base address */
    int inner;          /* the tile dimension contiguous in memory (its stride is 1) */
    int esize;          /* bytes per element */
    TmaLin dim[2];      /* elements along the inner and the outer dimension: kernel arguments only */
    TmaLin stride;      /* elements between outer indices: kernel arguments only */
    TmaLin coord[2];    /* the tile's first element, inner and outer: values of the kernel */
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
