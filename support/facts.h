/* Facts about a kernel's run-time parameters: what a specialised variant is compiled with and what
 * each launch of it must satisfy (docs/api.md, "Specialisation").
 *
 * One text form serves everywhere (rkc --assume, rk_compile_options.assume, the cache record, the
 * bundle manifest, the IR dump's header, the reports): facts separated by spaces or commas, each
 *     NAME%N==0   an integer divisible by N, or a pointer aligned to N bytes (N > 0)
 *     NAME==V     an integer equal to V
 *     NAME<2G     a pointer every in-bounds access through which lies in [NAME, NAME + 2^31): a byte
 *                 offset from it fits 31 bits, so AMD targets address it with a buffer resource and
 *                 32-bit offsets (docs/language.md, "Facts")
 * The runtime's own facts of a launch are `%16==0` and `==1` on integers (a pointer is 16-byte aligned
 * by the launch contract already) and `<2G` on a pointer that is the base of an rk_malloc allocation
 * of at most 2^31 bytes, on targets that use it. The compiler turns each fact into what
 * `multiple_of(NAME, N)` or the constant V would give, or marks the pointer parameter; the launch
 * checks them. */
#ifndef RK_FACTS_H
#define RK_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum FactKind { FACT_DIV = 1, FACT_EQ = 2, FACT_RANGE32 = 3 } FactKind;

typedef struct Fact {
    const char *name; /* into the parsed text: not NUL-terminated */
    int namelen;
    FactKind kind;
    int64_t n; /* the divisor, or the value (FACT_RANGE32: 2^31, the bound) */
} Fact;

/* Parses `text` into at most `cap` facts (out may be NULL to count). Returns the number of facts, or
 * -1 with a one-line reason in `why`. A NULL or blank text has none. */
int facts_parse(const char *text, Fact *out, int cap, char *why, size_t whylen);

/* Whether a value satisfies a fact (integers as int64; pointers as their address). FACT_RANGE32 is
 * about the memory behind the pointer, not its value: fact_range32_holds decides it. */
static inline bool fact_holds(FactKind kind, int64_t n, int64_t v)
{
    return kind == FACT_DIV ? (n > 0 && (uint64_t)v % (uint64_t)n == 0) : kind == FACT_EQ && v == n;
}

/* FACT_RANGE32 for a pointer into the allocation [base, base + bytes): every in-bounds access through
 * it (any byte of the allocation) lies in [ptr, ptr + 2^31) exactly when the pointer is the
 * allocation's base (a pointer further in could reach back) and the allocation is at most 2^31 bytes. */
static inline bool fact_range32_holds(uint64_t ptr, uint64_t base, uint64_t bytes)
{
    return ptr == base && bytes <= ((uint64_t)1 << 31);
}

/* The text of a fact on `name` (NAME%N==0, NAME==V, NAME<2G) into buf. */
const char *facts_spell(char *buf, size_t n, const char *name, int namelen, FactKind kind, int64_t v);

/* Whether a fact names `name`. */
bool facts_is(const Fact *f, const char *name);

#endif
