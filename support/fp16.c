/* Round-to-nearest-even conversions between double and the narrow binary formats (see fp16.h).
 *
 * One generic routine rounds a double to a binary format described by its exponent and mantissa
 * widths, with integer arithmetic on the significand: no floating-point operation rounds on the way,
 * so the result is the correctly rounded one (the unit test checks it against the compiler's
 * _Float16 conversions and a bit-exact bf16 reference).
 *
 * fp_fma rounds once: for formats of at most 24 bits the product is exact in double, TwoSum gives
 * the sum's rounding error exactly, and the sum moved to round-to-odd at 53 bits rounds to the
 * narrow format as the exact value would (53 >= p + 2). f64 uses the C library's fma. */
#include "support/fp16.h"

#include <math.h>
#include <string.h>

/* The bits of x rounded to the format with `mbits` stored mantissa bits and `ebits` exponent bits
 * (mbits + ebits + 1 <= 32). */
static uint32_t round_to_format(double x, int mbits, int ebits)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    uint32_t sign = (uint32_t)(b >> 63) << (mbits + ebits);
    int exp = (int)((b >> 52) & 0x7FF);
    uint64_t frac = b & ((1ull << 52) - 1);
    uint32_t expmax = (1u << ebits) - 1;
    uint32_t inf = expmax << mbits;
    if (exp == 0x7FF) {
        if (frac == 0)
            return sign | inf;
        /* quiet NaN, keeping the top payload bits */
        return sign | inf | (1u << (mbits - 1)) | (uint32_t)(frac >> (52 - mbits));
    }
    if (exp == 0)
        return sign; /* double subnormals lie far below the smallest subnormal of every target format */
    int e = exp - 1023;
    int bias = (int)(expmax >> 1);
    if (e > bias)
        return sign | inf;
    uint64_t m = (1ull << 52) | frac; /* x = m * 2^(e - 52) */
    int emin = 1 - bias;
    int q = (e < emin ? emin : e) - mbits; /* the exponent of the result's unit in the last place */
    int shift = q - (e - 52);              /* >= 1: bits of m below that unit */
    if (shift > 53)
        return sign; /* below half the smallest subnormal */
    uint64_t r = m >> shift;
    uint64_t rem = m & ((1ull << shift) - 1);
    uint64_t half = 1ull << (shift - 1);
    if (rem > half || (rem == half && (r & 1)))
        r++;
    uint32_t bits;
    if (e < emin)
        bits = (uint32_t)r; /* subnormal; r == 2^mbits carries into the smallest normal */
    else
        bits = ((uint32_t)(e + bias) << mbits) + (uint32_t)(r - (1ull << mbits)); /* r == 2^(mbits+1) carries */
    if (bits >= inf)
        bits = inf;
    return sign | bits;
}

uint16_t f64_to_f16(double x) { return (uint16_t)round_to_format(x, 10, 5); }
uint16_t f64_to_bf16(double x) { return (uint16_t)round_to_format(x, 7, 8); }

float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31;
    uint32_t exp = (h >> 10) & 0x1F, frac = h & 0x3FF;
    uint32_t bits;
    if (exp == 0x1F) {
        bits = sign | 0x7F800000u | (frac << 13); /* inf or NaN, payload kept */
    } else if (exp == 0) {
        float v = ldexpf((float)frac, -24); /* subnormal or zero: exact */
        return sign ? -v : v;
    } else {
        bits = sign | ((exp - 15 + 127) << 23) | (frac << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

float bf16_to_f32(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16; /* bf16 is the top half of an f32 */
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}
