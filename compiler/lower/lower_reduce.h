/* What reductions (lower_reduce.c) and scans (lower_scan.c) share: combining two partial results of
 * an OpKind, and reading a value of any scalar type from another lane of the wave (lower_xlane.c). */
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

/* lower_xlane.c: whether the wave has DPP (a 64-lane gfx9 wave); v as lane ^ (1 << b) holds it, by DPP
 * where it can (uniform: the lane bits across which v is known to be the same), else the shuffle; v as
 * lane `lane` holds it, uniform (v_readlane_b32; only where xlane_has_dpp); in lanes 16-63 (last 15)
 * v as the last lane of the row before holds it, in lanes 32-63 (last 31) v as lane 31 does, the
 * other lanes undefined (only where xlane_has_dpp) */
bool xlane_has_dpp(Lower *L);
LLVMValueRef xlane_xor(Lower *L, LLVMValueRef v, int b, unsigned uniform);
LLVMValueRef xlane_read(Lower *L, LLVMValueRef v, int lane);
LLVMValueRef xlane_bcast(Lower *L, LLVMValueRef v, int last);
void lower_scan(Lower *L, Op *op);

#endif
