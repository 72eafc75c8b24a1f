/* The run-test harness (tests/run): every case compiles a kernel of tests/run/kernels/, makes fresh
 * random inputs, poisons its outputs, launches on the reference interpreter (`interp`) and on the
 * emulator (`emu`, the real gfx942 lowering), and checks each device against a C reference and the
 * two devices against each other.
 *
 * A case is data (Case: kernel file, kernel name, defines, family parameters) plus two functions of
 * its family: setup() declares the launch arguments in order (buffers with their random contents,
 * scalars, the grid) and check() computes the reference into each output's `ref` and compares.
 * Families live in cases_*.c and register their cases in a generator (gen_*). */
#ifndef RK_TESTS_RUN_HARNESS_H
#define RK_TESTS_RUN_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rk.h"

/* The folder of the kernels (CMake passes the source tree's). */
#ifndef RK_RUN_KERNELS
#define RK_RUN_KERNELS "tests/run/kernels"
#endif

enum { DEV_INTERP, DEV_EMU, NDEV };
enum { MAX_BUFS = 12, MAX_ARGS = 16, MAX_LINES = 4096 };

/* ---- random numbers (xoshiro256**) ---- */
typedef struct Rng {
    uint64_t s[4];
} Rng;
void rng_seed(Rng *r, uint64_t seed);
uint64_t rng_u64(Rng *r);
double rng_unit(Rng *r);                     /* [0, 1) */
int64_t rng_range(Rng *r, int64_t lo, int64_t hi); /* [lo, hi], inclusive */

/* ---- element access on host buffers of any dtype ---- */
bool dt_float(rk_dtype t);
bool dt_signed(rk_dtype t);
int dt_bits(rk_dtype t);
double rnd(rk_dtype t, double v); /* v rounded to the float type t (round to nearest even) */
double fget(rk_dtype t, const void *p, size_t i);
void fset(rk_dtype t, void *p, size_t i, double v); /* rounds to t (ints: converts as C, wrapping) */
int64_t iget(rk_dtype t, const void *p, size_t i);  /* sign- or zero-extended */
void iset(rk_dtype t, void *p, size_t i, int64_t v); /* wraps to the width */
int64_t iwrap(rk_dtype t, int64_t v);                /* v wrapped to t's width, then extended */
uint64_t ibits(rk_dtype t, const void *p, size_t i); /* the raw bits of an element */

/* ---- input generators ---- */
typedef enum GenKind {
    G_UNI,     /* floats uniform in [lo, hi) rounded to the type; ints uniform in [lo, hi] */
    G_MIX,     /* ints: full-range bits, small values, extremes; floats: uniform in [lo, hi) with 1 in 16
                  special (+-0, +-inf, NaN, the largest, a subnormal) */
    G_BITS,    /* random bits (floats: every class, NaN included) */
    G_BOOL,    /* 0 or 1 */
    G_NONE,    /* left as poison (outputs) */
} GenKind;
typedef struct Gen {
    GenKind kind;
    double lo, hi;
} Gen;
#define UNI(a, b) ((Gen){G_UNI, (a), (b)})
#define MIX(a, b) ((Gen){G_MIX, (a), (b)})
#define BITS ((Gen){G_BITS, 0, 0})
#define BOOLS ((Gen){G_BOOL, 0, 1})

/* ---- tolerances ---- */
typedef enum TolKind {
    T_EXACT, /* bit for bit (any NaN matches any NaN) */
    T_ULPS,  /* at most `ulps` units in the last place of the type apart (same-sign zeros aside) */
    T_ABS,   /* |got - ref| <= abs + rel * |ref|, or per-element `per[i]` when given (integers: abs
              * and rel only; per-element tolerances leave them exact) */
} TolKind;
typedef struct Tol {
    TolKind kind;
    int ulps;
    double abs, rel;
    const double *per;
} Tol;
#define EXACT ((Tol){T_EXACT, 0, 0, 0, NULL})
#define ULPS(n) ((Tol){T_ULPS, (n), 0, 0, NULL})
#define ABSREL(a, r) ((Tol){T_ABS, 0, (a), (r), NULL})

/* A host-side buffer: an argument of the kernel. */
typedef struct HBuf {
    const char *name;
    rk_dtype dt;
    size_t n, esize;
    void *host;         /* the inputs, or the poison of an output, as copied to the device */
    void *ref;          /* the expected contents after the launch (starts as a copy of host) */
    bool *written;      /* which elements the reference wrote (others must keep their poison) */
    void *got[NDEV];    /* each device's contents after the launch */
    int rows, cols;     /* for messages: a 2-D view (cols 0: 1-D) */
} HBuf;

typedef struct Case Case;
typedef struct Run Run;

typedef void (*SetupFn)(Run *r);
typedef void (*CheckFn)(Run *r);

enum Expect { EXPECT_OK, EXPECT_KERNEL_ERROR };

struct Case {
    char name[112];
    const char *file;     /* under tests/run/kernels/ */
    const char *kernel;
    char defines[224];    /* "T=f16 OP=3 num_warps=4", space separated */
    SetupFn setup;
    CheckFn check;
    int p[8];             /* the family's parameters */
    rk_dtype dt[4];       /* the family's dtypes */
    int expect;
    /* filled by the harness */
    rk_program *prog[NDEV];
    rk_kernel *kern[NDEV];
    bool compiled, compile_failed;
};

struct Run {
    const Case *c;
    Rng rng;
    uint64_t seed;
    HBuf bufs[MAX_BUFS];
    int nbufs;
    rk_arg args[MAX_ARGS];
    int argbuf[MAX_ARGS]; /* index into bufs, or -1 for a scalar */
    int nargs;
    uint32_t grid[3];
    bool has_grid;
    uint8_t poison;
    /* results per device */
    rk_status st[NDEV];
    char msg[NDEV][512];
    char *lines[NDEV][MAX_LINES];
    int nlines[NDEV];
    double ms[NDEV];
    uint8_t scratch[64]; /* a family's own values (a scalar argument, ...) */
    void *mem[8];        /* run_alloc's blocks, freed with the run */
    int nmem;
    int failures;
    char *log; /* failure text, printed after the case */
    size_t loglen, logcap;
};

/* ---- setup helpers: arguments in the kernel's order ---- */
HBuf *in_buf(Run *r, const char *name, rk_dtype dt, size_t n, Gen g);
HBuf *out_buf(Run *r, const char *name, rk_dtype dt, size_t n);
void arg(Run *r, rk_arg a);
void set_grid(Run *r, uint32_t x, uint32_t y, uint32_t z);
void fill(Run *r, HBuf *b, Gen g); /* new random contents */
void fill_one(Run *r, HBuf *b, size_t i, Gen g);

/* Zeroed memory that lives as long as the run (per-element tolerances, ...). */
void *run_alloc(Run *r, size_t bytes);

/* ---- check helpers ---- */
void ref_f(HBuf *b, size_t i, double v);   /* expected float (rounded to the type) */
void ref_i(HBuf *b, size_t i, int64_t v);  /* expected integer (wrapped) */
void ref_bits(HBuf *b, size_t i, const void *src); /* expected raw element */
/* Compares every element of b on both devices with its reference, and the devices with each other. */
void expect_buf(Run *r, HBuf *b, Tol t);
void failf(Run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Both devices must have failed with RK_EKERNEL and a message containing each of the strings. */
void expect_kernel_error(Run *r, const char *const *substrings, int n);
/* The launch succeeded on both devices (else a failure is logged): checks may go on. */
bool launched_ok(Run *r);

/* ---- case registration ---- */
Case *add_case(const char *file, const char *kernel, SetupFn setup, CheckFn check, const char *namefmt, ...)
    __attribute__((format(printf, 5, 6)));
void case_define(Case *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The families (cases_*.c). */
void gen_elem(void);
void gen_cast(void);
void gen_math(void);
void gen_mem(void);
void gen_atomic(void);
void gen_shape(void);
void gen_reduce(void);
void gen_dot(void);
void gen_ctrl(void);
void gen_debug(void);
void gen_regress(void);
void gen_std(void);
void gen_order(void);

/* Shared by the families. */
extern const rk_dtype ALL_TYPES[];
extern const int NALL_TYPES;
const char *tname(rk_dtype t); /* rk_dtype_name */
/* The default launch shape of case number i of a family: BLOCK (128..1024) and num_warps (1..8). */
void pick_shape(int i, int *block, int *warps);

#endif
