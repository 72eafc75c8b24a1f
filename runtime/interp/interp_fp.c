/* tf32 rounding and int->float conversions rounded once (see interp_fp.h for why they are exact). */
#include "runtime/interp/interp_fp.h"

#include <math.h>
#include <string.h>

double interp_round_tf32(double x)
{
    float f = (float)x;
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    if ((b & 0x7F800000u) != 0x7F800000u) {
        /* round the 13 dropped bits to nearest even; a carry may reach the exponent (up to inf) */
        b += 0xFFFu + ((b >> 13) & 1);
        b &= ~0x1FFFu;
    }
    memcpy(&f, &b, sizeof f);
    return f;
}

/* A 64-bit magnitude as a double rounded to odd at 53 bits. */
static double u64_odd(uint64_t m)
{
    if (m < (1ull << 53))
        return (double)m;
    int s = 64 - __builtin_clzll(m) - 53;
    uint64_t lo = m & ((1ull << s) - 1);
    m >>= s;
    if (lo)
        m |= 1;
    return ldexp((double)m, s);
}

double interp_u64_to_float(uint64_t v, ScalarKind sk)
{
    if (sk == SK_F64)
        return (double)v;
    if (sk == SK_F32)
        return (double)(float)v;
    return fp_round(sk, u64_odd(v));
}

double interp_i64_to_float(int64_t v, ScalarKind sk)
{
    if (sk == SK_F64)
        return (double)v;
    if (sk == SK_F32)
        return (double)(float)v;
    double m = u64_odd(v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
    return fp_round(sk, v < 0 ? -m : m);
}
