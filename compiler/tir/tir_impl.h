/* Internals shared by the tile IR's printer, parser, verifier and canonicaliser (not for passes).
 *
 * The limits here are the IR's, checked by the parser (a text that breaks them does not parse) and by
 * the verifier (IR built in memory that breaks them does not verify), so that no later stage has to
 * guard against, say, a shape whose element count overflows. */
#ifndef RK_TIR_IMPL_H
#define RK_TIR_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler/tir/tir.h"

/* A tile dimension is a power of two in [1, TIR_MAX_DIM]; a tile has at most TIR_MAX_NUMEL elements. */
#define TIR_MAX_DIM ((int64_t)1 << 30)
#define TIR_MAX_NUMEL ((int64_t)1 << 30)
/* Regions nest at most this deep, so that the recursive walks cannot exhaust the stack. */
enum { TIR_MAX_DEPTH = 200 };

/* Attribute slot names in the order of the A_* bits; the text form prints slots in this order. */
enum { TIR_NATTRS = 13 };
extern const char *const tir_attr_names[TIR_NATTRS];

/* NULL when the shape is a valid tile shape, else what is wrong with it. */
const char *tir_shape_problem(int rank, const int64_t *shape);

/* Integers (and bools) are stored as their bits sign-extended to 64 (Attrs.value.i); these give the
 * canonical form of v for kind sk (bool: the low bit) and the mask of the kind's bits. */
int64_t tir_int_norm(ScalarKind sk, int64_t v);
uint64_t tir_int_mask(ScalarKind sk);

/* A value name the text form prints as is: IDENT ('.' DIGITS)*, IDENT = [A-Za-z_][A-Za-z0-9_]*. */
bool tir_name_is_plain(const char *s, size_t n);

/* ---- folding (fold.c), used by canonicalize.c ---- */

/* When op, a pure op, computes a constant (all operands constant, or an exact identity such as
 * x * 0 on integers), turns it into a `const` in place and returns true. */
bool tir_fold_to_const(Op *op);
/* When op's single result always equals an existing value (x + 0, select(true, a, b), a cast to the
 * same type...), returns that value; NULL otherwise. The op is left unchanged. */
Value *tir_fold_to_value(Op *op);
/* Rewrites a shape op (or convert_layout) on a splat or on an op of the same kind into a simpler op
 * in place (broadcast(splat x) -> splat x, reshape(reshape x) -> reshape x); true when it did. */
bool tir_fold_shape(Op *op);

#endif
