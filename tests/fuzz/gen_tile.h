/* A generator of random, well-typed tile programs for differential testing (tests/fuzz/diff_tile.c).
 *
 * gen_tile_program(seed) returns the text of one `.tile` file: a kernel `fz` over random shapes (powers
 * of two), dtypes, builtins, masks, control flow, reductions and dots, preceded by a header of `// `
 * lines that say how to run it. In 40% of programs some outputs are written several times in program
 * order — tile, strided, scalar and masked stores to overlapping elements, loads of what was stored,
 * barrier() between the accesses of different waves — so that their final contents depend on the
 * order (gen_tile_mem.c says what is drawn and why it is free of races). The header:
 *
 *   // rk-diff seed 0x1234                  the seed of the input data
 *   // grid 2 1 1
 *   // buf NAME DTYPE N in GEN LO HI Q      an input buffer of N elements: GEN is `uni` (floats: multiples
 *                                           of Q in [LO, HI]; Q 0: any float in [LO, HI); ints: [LO, HI]),
 *                                           `bits` (random bits) or `special` (uni plus inf, NaN and -0)
 *   // buf NAME DTYPE N out TOL             an output: `exact` (bit for bit, any NaN equal to any NaN)
 *                                           or the largest absolute difference allowed
 *   // arg NAME DTYPE VALUE                 a scalar argument
 *
 * in the kernel's parameter order. The tolerance of each output comes from an abstract interpretation
 * of the program (gen_tile_ab.c): every value carries an interval, a bound on how far two correct
 * implementations may differ, and whether it is exact (on a grid fine enough for its type), so that
 * sums and dots of exact values must agree bit for bit and the rest within a derived bound. The text
 * is self-contained: diff_tile replays a saved file (tests/regress/diff/) from the header alone.
 * With GenOptions.rt_loops (diff_tile --loops) programs also hold run-time loops over arbitrary i32
 * ranges and pointer arithmetic in several forms (issue 23: interp and emu disagreed on such loops). */
#ifndef RK_TESTS_FUZZ_GEN_TILE_H
#define RK_TESTS_FUZZ_GEN_TILE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct GenOptions {
    int only_output; /* >= 0: print only the stores to this output and compare it alone: the other
                        outputs stay parameters, declared as inputs of random bits, and keep their
                        stores when the program loads them back; -1: all */
    int size;        /* statements at the top level (0: 6 .. 16 at random) */
    bool no_barrier; /* no barrier() (a language without it): overlapping accesses of an output by
                        different operations only in programs of one wave (num_warps = 1) */
    bool rt_loops;   /* also run-time loops whose bounds and step are all arguments anywhere in i32
                        (next to INT32_MAX and INT32_MIN, steps up to 2^30 either way, a step of 0,
                        bounds the wrong way round: docs/language.md's semantics, 0 to 4 iterations),
                        while loops over such a range, pointer arithmetic in other forms (the
                        pointer tile first, the offsets summed first, past the allocation and back,
                        before it and forward, 64-bit offsets), and pointers carried through run-time
                        loops (walks: gen_tile.c, gen_pwalk). Off: the sequence of programs from a
                        seed is the one CI's fuzz/diff batch knows */
} GenOptions;

/* A program from the seed (the same seed gives the same text), malloc'd; NULL when no valid program
 * came out of many attempts (does not happen in practice) or o->only_output is not one of its
 * outputs. *noutputs: its number of outputs. */
char *gen_tile_program(uint64_t seed, const GenOptions *o, int *noutputs);

#endif
