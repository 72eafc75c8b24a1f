/* What reductions (lower_reduce.c) and scans (lower_scan.c) share: combining two partial results of
 * an OpKind, and reading a value of any scalar type from another lane of the wave. */
#ifndef RK_LOWER_REDUCE_H
#define RK_LOWER_REDUCE_H

#include "compiler/lower/lower_internal.h"

typedef struct Part {
    LLVMValueRef v, idx; /* idx: i32, only for argreduce */
} Part;

/* x combined with y (x comes first along the axis), in the element type of sk */
Part red_combine(Lower *L, OpKind kind, ScalarKind sk, Part x, Part y);
/* v as lane src holds it (the target's shuffle, 32 bits at a time) */
LLVMValueRef red_shuffle(Lower *L, LLVMValueRef v, LLVMValueRef src);
int red_elem_bytes(LLVMTypeRef t);
void lower_scan(Lower *L, Op *op);

#endif
