/* The program generator's data (gen_tile.c builds it, gen_tile_ab.c evaluates it abstractly,
 * gen_tile_print.c prints it). A program is a tree of statements over expression nodes; a node is used
 * once (a tree) unless it is bound by `let`, and then it is referred to by name. */
#ifndef RK_TESTS_FUZZ_GEN_TILE_INTERNAL_H
#define RK_TESTS_FUZZ_GEN_TILE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "rk.h"
#include "tests/fuzz/gen_tile.h"

enum {
    MAXNODE = 8000, MAXSTMT = 1500, MAXBLK = 400, MAXBODY = 96, MAXBUF = 12, MAXIN = 6, MAXOUT = 4,
    MAXARG = 10, MAXVAR = 12, MAXAVAIL = 600, MAXELEMS = 4096,
};

/* A type: a scalar (rank 0) or a tile. dt is an rk_dtype. */
typedef struct Ty {
    int dt, rank, d[4];
} Ty;

/* An abstract value. Every implementation's value lies in [lo, hi] (or is NaN when `nan`); two correct
 * implementations differ by at most `err` (0: the value is deterministic, the same bits everywhere, NaNs
 * aside); q > 0 says the value is exactly the mathematical result and a multiple of q (so sums of such
 * values are exact while they stay within the type's precision). Integers: q = 1, err = 0. */
typedef struct Ab {
    double lo, hi, err, q;
    bool nan;
} Ab;

enum Op {
    O_LOAD,    /* k0 index node, k1 mask, k2 other; a0 buffer, a1 slot expression (loop node or -1),
                  a2 runtime offset arg or -1, a3 multiple_of on the program's offset; of an output
                  (gen_tile_mem.c): sub 1 when it may read elements no store wrote (the poison) */
    O_STOREX,  /* (not an expression) */
    O_ARG,     /* a0 arg */
    O_PID,     /* the linear program id */
    O_LOOPI,   /* a loop's index: a0 the loop statement */
    O_LIT,     /* lit, typed ty */
    O_BIN,     /* sub: B_*; k0 k1 */
    O_UN,      /* sub: U_*; k0 */
    O_CAST,    /* k0 as ty.dt */
    O_BITCAST, /* bitcast(k0, ty.dt) */
    O_WHERE,   /* where(k0, k1, k2) */
    O_FMA,     /* fma(k0, k1, k2) */
    O_RED,     /* sub: R_*; k0; a0 axis (-1 all), a1 keepdims */
    O_CUMSUM,  /* k0, a0 axis (-1: the default, the last) */
    O_DOT,     /* k0 k1 [k2 acc]; a0 tf32 */
    O_TRANS,   /* k0 */
    O_PERMUTE, /* k0, a[] the permutation */
    O_RESHAPE, /* k0 */
    O_EXPAND,  /* k0, a0 axis, a1: 1 as x[:, None] indexing, 0 as expand_dims */
    O_BCAST,   /* broadcast_to(k0, shape) */
    O_FULL,    /* full(shape, k0 or lit, dt) */
    O_ZEROS,
    O_ARANGE,  /* arange(a0, a0 + d) along axis a1 of the shape (broadcast to it) */
    O_IDX,     /* an index tile: sub the pattern P_* */
    O_VAR,     /* a0 var */
};

enum Bin {
    B_ADD, B_SUB, B_MUL, B_DIV, B_REM, B_AND, B_OR, B_XOR, B_SHL, B_SHR, B_MAX, B_MIN,
    B_EQ, B_NE, B_LT, B_LE, B_GT, B_GE, B_LAND, B_LOR, NBIN,
};
enum Un { U_NEG, U_NOT, U_LNOT, U_ABS, U_EXP, U_EXP2, U_LOG, U_LOG2, U_SQRT, U_RSQRT, U_FLOOR, U_CEIL, U_SIN, U_COS, NUN };
enum Red { R_SUM, R_MAX, R_MIN, R_ARGMAX, R_ARGMIN };
enum Pat { P_ROW, P_COL, P_REV, P_PERM, P_BCAST, P_SCALAR };
/* How a pointer is written: base + offsets + index (the default); (base + index) + offsets; base +
 * (offsets + index); (base + offsets + 2^20) + index - 2^20; (base + offsets - 7) + (index + 7); base +
 * 64-bit offsets + 64-bit index. All address the same elements. */
enum PForm { PF_PLAIN, PF_TILE_FIRST, PF_INT_FIRST, PF_PAST_BACK, PF_BEFORE_FWD, PF_WIDE, NPF };

typedef struct Node {
    int op, sub;
    Ty ty;
    Ab ab;
    int k[3];
    int a[4];
    double lit;
    int name; /* >= 0: bound by `let` as v<name> (index tiles: ix<name>) */
    int size; /* operators in its tree */
    int pform; /* O_LOAD: how its pointer is written (PF_*; gen_tile_print.c), 0 unless rt_loops */
    int uses; /* let-bound: times it is referred to */
} Node;

enum StKind { S_LET, S_VAR, S_ASSIGN, S_IF, S_FOR, S_WHILE, S_BREAK, S_CONTINUE, S_RETURN, S_STORE, S_BARRIER,
              S_PWALK };

typedef struct Stmt {
    int kind;
    int node;     /* LET/VAR/ASSIGN: the value; IF: the condition; STORE: the value */
    int var;      /* VAR/ASSIGN: the var; WHILE: the counter var */
    int blk[2];   /* IF: then, else (-1: none); FOR/WHILE: body */
    int compound; /* ASSIGN: printed as `w op= e` (node is B_* of the var and e), else -1 */
    /* FOR: i in lo .. hi step step (literals, or hi from arg `harg`), `trips` iterations; WHILE: `trips`
     * iterations, the limit from arg `harg` */
    int lo, hi, step, harg, trips, loopi;
    bool is_static;
    /* STORE: out buffer, index node, mask node (-1), runtime offset arg (-1), pointer form (PF_*) */
    int out, idx, mask, off, pform;
    /* FOR/WHILE over an arbitrary i32 range (GenOptions.rt_loops): lo and step are arguments `larg`
     * and `sarg` too (hi is `harg`); lo, hi and step hold their values */
    bool far;
    int larg, sarg;
    /* PWALK (rt_loops): a pointer carried through a run-time loop. `idx` the input buffer, `out` the
     * output, `lo` the elements a step, `harg` the trips, `sarg` the step argument (-1: the literal),
     * `larg` the break index argument (-1: none), `step` -1 walking backwards, `is_static` a while */
} Stmt;

typedef struct Block {
    int st[MAXBODY];
    int n;
} Block;

typedef struct Buf {
    int dt;
    bool out;
    int size;       /* elements per program and slot */
    int slots;      /* slots per program (loads indexed by a loop's index) */
    int gen;        /* 0 uni, 1 bits, 2 special */
    double lo, hi, q;
    double tol;     /* outputs: the largest err stored (-1: nothing stored yet) */
    int tail_arg;   /* every access is masked by idx < this arg (-1 none yet, -2 not all) */
    bool padded;    /* accessed at a runtime offset: 8 more elements */
    bool used;
    bool own;       /* a pointer walk's input (gen_pwalk): no other load takes it */
    /* outputs of overlapping accesses (gen_tile_mem.c) */
    bool readback;  /* loaded by the program: its stores are printed under only_output too */
    bool cont_set;  /* cont holds every value stored so far (else nothing was stored yet) */
    Ab cont;        /* the join of the values stored, converted to dt */
} Buf;

typedef struct Arg {
    int dt;
    double v;
} Arg;

typedef struct Var {
    Ty ty;
    int uses;
} Var;

typedef struct G {
    uint64_t rng;
    const GenOptions *opt;
    Node nodes[MAXNODE];
    int nn;
    Stmt st[MAXSTMT];
    int ns;
    Block blk[MAXBLK];
    int nb;
    Buf buf[MAXBUF];
    int nbuf, nin, nout;
    Arg arg[MAXARG];
    int narg;
    int params[MAXBUF + MAXARG]; /* >= 0: buffer, < 0: -1 - arg */
    int nparams;
    Var var[MAXVAR];
    int nvar;
    int names;                   /* next let name */
    /* what is in scope while generating */
    int avail[MAXAVAIL];
    int navail;
    int vscope[MAXVAR];
    int nvscope;
    int loops[8];                /* enclosing loop statements */
    int nloops;
    bool in_while;               /* inside a while body: no `continue` (it would skip the counter) */
    /* the program */
    int grid[2], nprog, warps, stages;
    bool overlap;                /* draws episodes of overlapping accesses (gen_tile_mem.c) */
    int episodes;                /* episodes drawn so far */
    int dims[3];
    int dts[4], ndts;
    int top;                     /* the kernel body block */
    int cur;                     /* where helper lets go while a statement is being built */
    /* abstract evaluation */
    Ab env[MAXVAR];
    bool join_mode;              /* inside a loop: assignments join */
    bool bad;                    /* a constraint failed */
} G;

/* gen_tile.c: the building blocks that gen_tile_mem.c shares */
int gt_ri(G *g, int lo, int hi);
bool gt_chance(G *g, int pct);
int gt_pick_w(G *g, const int *w, int n);
Ty gt_scalar(int dt);
Ty gt_with_dt(Ty t, int dt);
int gt_pick_dt(G *g);
/* Any numeric dtype, by its weight (the palette is drawn from these). */
int gt_any_dt(G *g);
Ty gt_pick_shape(G *g, int dt);
/* A shape that broadcasts to t. */
Ty gt_sub_shape(G *g, Ty t);
/* A new node (not evaluated yet), -1 when there is no room. */
int gt_node(G *g, int op, int sub, Ty t, int k0, int k1, int k2);
/* Evaluates a new node: its id, or -1 (and the node dropped) when a constraint fails. */
int gt_done(G *g, int id);
int gt_stmt(G *g, int kind);
void gt_append(G *g, int b, int s);
/* Binds a node with `let` in the current block. */
int gt_let(G *g, int id);
int gt_new_arg(G *g, int dt, double v);
double gt_lit_value(G *g, int t);
int gt_lit(G *g, int t, double v, bool typed);
/* An expression of type t, at most `depth` operators deep; deterministic (err 0) when det. */
int gt_gx(G *g, Ty t, int depth, bool det);
/* An index tile over t's shape (values 0 .. elems - 1), bound by `let`; `store`: a bijection. */
int gt_index_tile(G *g, Ty t, bool store);
/* `idx < a` for a new argument a in [0, elems], or -1. */
int gt_tail_mask(G *g, int idx, int elems, int *arg);
int gt_new_out(G *g, int dt, int size);

/* gen_tile.c: helpers the statements share */
/* The innermost enclosing loop, or -1; the innermost enclosing for loop, or -1. */
int gt_inner_loop(G *g);
int gt_inner_for(G *g);
/* Scalar arguments a program may still take. */
int gt_arg_room(const G *g);
/* A scalar that may be known at compile time (sema folds it). */
bool gt_is_const(G *g, int id);
/* abs(x) + c: a value at least c away from zero. */
int gt_away_from_zero(G *g, int x, double c);

/* gen_tile_mem.c: an episode of overlapping stores, masked stores, loads back and barriers on one
 * output of its own, appended to the current block. */
void gt_gen_overlap(G *g);

/* gen_tile_ab.c */
bool gt_float(int dt);
bool gt_int(int dt);
bool gt_signed(int dt);
int gt_bits(int dt);
double gt_min(int dt);
double gt_max(int dt);
int gt_elems(Ty t);
double ab_mag(Ab a);
Ab ab_join(Ab a, Ab b);
Ab ab_point(int dt, double v);
/* The result type of a binary operator on these types (the contract's promotion), -1 when none. */
int gt_promote(int a, int b);
int gt_sum_type(int dt);
/* Evaluates one node from its operands (already evaluated); false when a constraint fails (an
 * operation whose result would differ between correct implementations where it must not). */
bool ab_node(G *g, int n);
/* Evaluates a statement (and what it contains), updating g->env; false when a constraint fails. */
bool ab_stmt(G *g, int s);
bool ab_block(G *g, int b);

/* gen_tile_print.c */
char *gt_print_program(G *g, uint64_t seed);

#endif
