/* Float arithmetic of the interpreter that needs care beyond support/fp16.h (fp_round, fp_fma):
 * tf32 rounding and int->float conversions, each rounded once.
 *
 * The interpreter holds every float as a double whose value is exactly representable in the element
 * type, and rounds after every operation with fp_round (straight from double, never through float).
 * That keeps each result singly rounded: +, -, *, / and sqrt of two values of a format with
 * p <= 24 bits, computed in double (53 bits >= 2p + 2), and then rounded, equal the correctly rounded
 * result (Figueroa's theorem). fma and int->float conversions are not covered by it, so they go
 * through round-to-odd at 53 bits first, which makes the second rounding exact (fp_fma does the same
 * with TwoSum). */
#ifndef RK_INTERP_FP_H
#define RK_INTERP_FP_H

#include <stdint.h>

#include "compiler/tir/type.h"
#include "support/fp16.h"

/* An f32 value rounded to tf32 (f32's exponent range, 10 explicit mantissa bits), nearest even. */
double interp_round_tf32(double x);

/* An integer converted to a float element type with one rounding. */
double interp_i64_to_float(int64_t v, ScalarKind sk);
double interp_u64_to_float(uint64_t v, ScalarKind sk);

#endif
