/* 16-bit floating-point formats: conversions with round to nearest, ties to even.
 *
 * rk computes on f16 (IEEE binary16: 5 exponent bits, 10 mantissa bits) and bf16 (bfloat16: 8
 * exponent bits, 7 mantissa bits) as a GPU does: every operation, cast and store rounds its result to
 * the format. The host has no portable 16-bit float type, so the folder and the interpreter keep
 * these values as their bits (uint16_t) and compute in float or double.
 *
 * Rounding a double straight to 16 bits is exact-once rounding; going double -> float -> 16 bits
 * could round twice, which is why the narrowing functions take a double (a float converts to double
 * exactly, so the f32 variants are the same function). Overflow gives infinity; NaNs stay NaNs (quiet,
 * sign and top payload bits kept). Widening to float is exact. */
#ifndef RK_FP16_H
#define RK_FP16_H

#include <stdint.h>

uint16_t f64_to_f16(double x);
uint16_t f64_to_bf16(double x);
static inline uint16_t f32_to_f16(float x) { return f64_to_f16((double)x); }
static inline uint16_t f32_to_bf16(float x) { return f64_to_bf16((double)x); }
float f16_to_f32(uint16_t h);
float bf16_to_f32(uint16_t h);

#endif
