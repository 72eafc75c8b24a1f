/* Facts about a kernel's run-time parameters: what a specialised variant is compiled with and what
 * each launch of it must satisfy (docs/api.md, "Specialisation").
 *
 * One text form serves everywhere (rkc --assume, rk_compile_options.assume, the cache record, the
 * bundle manifest, the IR dump's header, the reports): facts separated by spaces or commas, each
 *     NAME%N==0   an integer divisible by N, or a pointer aligned to N bytes (N > 0)
 *     NAME==V     an integer equal to V
 * The runtime's own facts of a launch are `%16==0` and `==1` on integers (a pointer is 16-byte aligned
 * by the launch contract already). The compiler turns each fact into what `multiple_of(NAME, N)` or
 * the constant V would give; the launch checks them. */
#ifndef RK_FACTS_H
#define RK_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum FactKind { FACT_DIV = 1, FACT_EQ = 2 } FactKind;

typedef struct Fact {
    const char *name; /* into the parsed text: not NUL-terminated */
    int namelen;
    FactKind kind;
    int64_t n; /* the divisor, or the value */
} Fact;

/* Parses `text` into at most `cap` facts (out may be NULL to count). Returns the number of facts, or
 * -1 with a one-line reason in `why`. A NULL or blank text has none. */
int facts_parse(const char *text, Fact *out, int cap, char *why, size_t whylen);

/* Whether a value satisfies a fact (integers as int64; pointers as their address). */
static inline bool fact_holds(FactKind kind, int64_t n, int64_t v)
{
    return kind == FACT_DIV ? (n > 0 && (uint64_t)v % (uint64_t)n == 0) : v == n;
}

/* Whether a fact names `name`. */
bool facts_is(const Fact *f, const char *name);

#endif
