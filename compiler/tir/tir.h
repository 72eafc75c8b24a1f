/* The tile IR (TIR, and LIR once tiles carry layouts): SSA values, ops with structured regions.
 *
 * A Module holds functions: one `kernel` per compiled kernel (fully specialised: every const is
 * folded, every shape concrete) and, for kernels with @grid, a `grid` function computing the launch
 * grid from the scalar arguments. A function's body is a Block whose arguments are the parameters.
 * Ops live in doubly linked lists inside blocks; `for`, `if` and `while` own regions (one block each),
 * which end in a terminator (yield / condition). There is no CFG.
 *
 * Everything is arena-allocated; nothing is freed one by one. Values know their defining op (or
 * owning block for block arguments) but not their uses: passes that need uses compute them
 * (tir_count_uses) — the IR of a kernel is a few thousand ops at most. */
#ifndef RK_TIR_H
#define RK_TIR_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler/tir/type.h"
#include "support/diag.h"
#include "support/strtab.h"

/* ---- the op table ---- */

enum {
    F_PURE = 1u << 0,
    F_COMM = 1u << 1,
    F_TERM = 1u << 2,
    F_ELEM = 1u << 3,
};

enum {
    A_VALUE = 1u << 0,
    A_AXIS = 1u << 1,
    A_PRED = 1u << 2,
    A_KIND = 1u << 3,
    A_START = 1u << 4,
    A_END = 1u << 5,
    A_N = 1u << 6,
    A_SEM = 1u << 7,
    A_SCOPE = 1u << 8,
    A_MSG = 1u << 9,
    A_DIMS = 1u << 10,
    A_REVERSE = 1u << 11,   /* bools, optional: false when absent, printed only when true */
    A_EXCLUSIVE = 1u << 12,
    A_OPTIONAL = A_REVERSE | A_EXCLUSIVE,
};

typedef enum OpCode {
#define OP(id, name, nops, nres, nreg, flags, attrs) OP_##id,
#include "compiler/tir/ops.def"
#undef OP
    OP_COUNT
} OpCode;

typedef struct OpInfo {
    const char *name;
    int nopnds;   /* -1: variable */
    int nres;     /* -1: variable */
    int nregions;
    unsigned flags, attrs;
} OpInfo;

extern const OpInfo tir_op_info[OP_COUNT];
/* OP_COUNT when the name is unknown. */
OpCode tir_op_from_name(const char *name);

/* Attribute values with names in the text form. */
typedef enum CmpPred { PRED_EQ, PRED_NE, PRED_LT, PRED_LE, PRED_GT, PRED_GE, PRED_COUNT } CmpPred;
typedef enum OpKind {
    KIND_SUM,
    KIND_MAX,
    KIND_MIN,
    KIND_ARGMAX,
    KIND_ARGMIN,
    KIND_ADD, /* atomics */
    KIND_AND,
    KIND_OR,
    KIND_XOR,
    KIND_XCHG,
    KIND_IEEE, /* dot precision */
    KIND_TF32,
    KIND_MULTIPLE_OF, /* hints */
    KIND_MAX_CONTIGUOUS,
    KIND_PROD, /* scans: cumprod */
    KIND_MAXNUM, /* reductions of max/min(..., propagate_nan = false): NaN ignored */
    KIND_MINNUM,
    KIND_COUNT
} OpKind;
typedef enum MemSem { SEM_RELAXED, SEM_ACQUIRE, SEM_RELEASE, SEM_ACQ_REL, SEM_COUNT } MemSem;
typedef enum MemScope { SCOPE_GPU, SCOPE_CTA, SCOPE_SYS, SCOPE_COUNT } MemScope;

const char *tir_pred_name(CmpPred p);
const char *tir_kind_name(OpKind k);
const char *tir_sem_name(MemSem s);
const char *tir_scope_name(MemScope s);

/* ---- IR objects ---- */

typedef struct Value Value;
typedef struct Op Op;
typedef struct Block Block;
typedef struct Func Func;
typedef struct Module Module;

/* A source position: file is an index into Module.files; 0 lines mean "unknown". */
typedef struct SrcPos {
    uint32_t file, line, col;
} SrcPos;

struct Value {
    const Type *type;
    Op *def;        /* defining op; NULL for a block argument */
    Block *owner;   /* the block of a block argument */
    int index;      /* result or argument index */
    const char *name; /* a source name, for readable IR; may be NULL */
    int64_t scratch;  /* free for passes (cleared by nobody: set before use) */
};

typedef struct Attrs {
    union {
        int64_t i; /* ints and bools (bool: 0 or 1), as the bits sign-extended to 64 */
        double f;  /* floats */
    } value;
    int64_t axis, pred, kind, start, end, n, sem, scope;
    bool reverse, exclusive; /* scan: from the last element back; without the element itself */
    const char *msg;
    int ndims;
    int64_t dims[TIR_MAX_RANK];
} Attrs;

/* ---- plan attributes ----
 * What a planning pass decided for the passes after it or the lowering to translate (choose_dots: a
 * dot's matrix instruction and waves, read by assign_layouts; plan_async: sm_90's stage buffers, their
 * TMA copies, wgmma or mma.sync; allocate_lds: LDS offsets and deferred dot operands), kept on the op
 * it concerns, printed and parsed with the op's attributes; NULL on ops without one. Values named here (a ring's front, a copy's coordinates and conditions) are
 * defined before the op. */
enum { PLAN_LIN_MAX = 6, PLAN_MAX_PRED = 4 };

/* k + the sum of c * a (* b when b is set) over i32 scalar values: `k + c*%a*%b - c2*%d` in text. */
typedef struct PlanLin {
    int64_t k;
    int n;
    struct {
        int64_t c;
        Value *a, *b;
    } t[PLAN_LIN_MAX];
} PlanLin;

typedef enum PlanKey {
    PK_STAGE_BUFFER, /* load: byte offset in shared memory of its ring's buffer 0 */
    PK_STAGE,        /* load: its buffer in the ring (the prologue's), or -1 (the loop's: the one before front's) */
    PK_STAGES,       /* load: buffers in the ring */
    PK_STAGE_BYTES,  /* load: bytes per buffer */
    PK_COPY_GROUPS,  /* load: cp.async commit groups its loop issues per iteration */
    PK_TMA,          /* load: the tensor its copies come from by TMA (Func.tma), absent for cp.async */
    PK_TMA_BARS,     /* load, TMA: byte offset of its ring's barriers (8 bytes per buffer) */
    PK_WGMMA,        /* dot of a wgmma layout: 1 wgmma, 0 mma.sync on the same layouts */
    PK_LDS,          /* op that may use LDS scratch (allocate_lds): where the free LDS starts; absent: 0 */
    PK_DEFER,        /* convert_layout (allocate_lds): 1, the dot operand is left in LDS for its dot; 2, with
                      * room for DEFER_PAD_BYTES of padding after each row (lower_convert.c) */
    PK_ROTATE,       /* deferred convert_layout of a `for` body's carried tile (allocate_lds): 1, the lowering
                      * writes the loop's initial tile to its region before the loop and the yielded tile at
                      * the body's end, after a barrier; the convert itself writes nothing */
    PK_K_WIDTH,      /* dot of TIR (choose_dots): the k_width of its operands' dot_op layouts */
    PK_NINT,
    PK_FRONT = PK_NINT, /* load of a loop: the carried handle its dot reads */
    PK_TMA_COORD,       /* load, TMA: the box's first element, inner dimension first */
    PK_TMA_PRED,        /* load, TMA: the copy happens when all hold (uniform bools) */
    PK_LAYOUT,          /* dot of TIR (choose_dots): its accumulator's layout (the matrix instruction and
                         * the waves' split, or blocked for FMAs), `layout = #mfma<...>` in text */
    PK_COUNT
} PlanKey;

typedef struct OpPlan {
    unsigned set; /* 1 << PlanKey: the keys present */
    int64_t v[PK_NINT];
    Value *front;
    int ncoord, npred;
    PlanLin coord[3];
    Value *pred[PLAN_MAX_PRED];
    const Layout *layout;
} OpPlan;

extern const char *const tir_plan_names[PK_COUNT];

struct Op {
    OpCode code;
    SrcPos pos;
    Value **operands;
    int nopnds;
    Value *results;
    int nres;
    Block **regions;
    int nregions;
    Attrs at;
    OpPlan *plan; /* NULL unless a planning pass set one */
    Op *prev, *next;
    Block *parent;
    int64_t scratch;
};

struct Block {
    Value *args;
    int nargs, capargs; /* capargs: the elements args has room for (tir_block_add_arg grows it) */
    Op *first, *last;
    Op *parent; /* the op owning this region; NULL for a function body */
    Func *func;
};

/* The most parameters a kernel may have: LLVM's AMDGPU code generator takes time quadratic in them
 * (an empty kernel of 4,096 parameters 0.9 s, of 32,768 49 s), and 4,096 of 8 bytes already fill
 * CUDA's 32,764 bytes (docs/language.md, "Limits"; issue 23). */
enum { MAX_KERNEL_PARAMS = 4096 };

typedef enum FuncKind { FUNC_KERNEL, FUNC_GRID } FuncKind;

/* Compile options that travel with a kernel. */
typedef struct KernelOptions {
    int num_warps, num_stages, waves_per_eu, matrix_instr_nonkdim, kpack;
} KernelOptions;

struct Func {
    FuncKind kind;
    const char *name;
    Block *body; /* args = parameters, named */
    SrcPos pos;
    KernelOptions opts;
    /* plan_async's, printed with the options when stage_lds > 0: the bytes at the bottom of shared
     * memory that the stage buffers (and TMA's barriers and flag) reserve, the flag's offset, and the
     * TMA tensors, one kernel parameter each, as the runtime's descriptions (lower_tma.c) */
    int stage_lds, tma_flag, ntma;
    const char **tma;
    /* bit i: pointer parameter i (i < 64) has the fact NAME<2G (every in-bounds access through it lies
     * within 2^31 bytes above it: support/facts.h), which AMD targets address with buffer
     * instructions (compiler/lower/lower_mem.c) */
    uint64_t range32;
    Module *module;
};

struct Module {
    Arena *arena;
    TypeTab *types;
    StrTab *strs;
    const char **files; /* files[i] for SrcPos.file == i */
    int nfiles;
    Func **funcs;
    int nfuncs;
};

/* ---- construction ---- */

Module *tir_module_new(Arena *a, TypeTab *types, StrTab *strs);
uint32_t tir_module_file(Module *m, const char *path); /* index of a file name, added if new */
Func *tir_func_new(Module *m, FuncKind kind, const char *name);
/* Adds an argument. Arguments live in one array that this may move: take &b->args[i] only after
 * the last argument is added. */
Value *tir_block_add_arg(Block *b, const Type *type, const char *name);
Block *tir_block_new(Func *f);
Func *tir_module_find(Module *m, FuncKind kind, const char *name);

/* An op not yet in any block; operands copied; results get the given types. */
Op *tir_op_new(Func *f, OpCode code, const Type *const *rtypes, int nres, Value *const *operands, int nopnds);
void tir_op_set_operand(Op *op, int i, Value *v);
Block *tir_op_add_region(Op *op, Func *f); /* appends a region of one empty block */

void tir_insert_end(Block *b, Op *op);
void tir_insert_before(Op *pos, Op *op);
void tir_insert_after(Op *pos, Op *op);
void tir_unlink(Op *op); /* removes from its block (regions stay attached to the op) */

/* A builder inserts at the end of a block or before an op, stamping a source position. */
typedef struct Builder {
    Func *func;
    Block *block;
    Op *before; /* NULL: append to block */
    SrcPos pos;
} Builder;

void tir_builder_at_end(Builder *b, Block *block);
void tir_builder_before(Builder *b, Op *op);
Op *b_op(Builder *b, OpCode code, const Type *const *rtypes, int nres, Value *const *operands, int nopnds);
Value *b_op0(Builder *b, OpCode code, const Type *rtype);
Value *b_op1(Builder *b, OpCode code, const Type *rtype, Value *x);
Value *b_op2(Builder *b, OpCode code, const Type *rtype, Value *x, Value *y);
Value *b_op3(Builder *b, OpCode code, const Type *rtype, Value *x, Value *y, Value *z);
Value *b_const_int(Builder *b, const Type *type, int64_t v);
Value *b_const_float(Builder *b, const Type *type, double v);

/* ---- queries and edits ---- */

static inline const OpInfo *op_info(const Op *op) { return &tir_op_info[op->code]; }
static inline Value *op_result(Op *op, int i) { return &op->results[i]; }
static inline Block *op_block(Op *op, int region) { return op->regions[region]; }
static inline bool op_is_pure(const Op *op) { return (tir_op_info[op->code].flags & F_PURE) != 0; }
/* Whether an op's result holds its operand 0's values only reshaped, moved between layouts or
 * annotated (splat, broadcast, expand_dims, reshape, permute, convert_layout, hint): what a pointer's
 * base and provenance follow through. */
static inline bool op_carries_operand0(OpCode code)
{
    switch (code) {
    case OP_SPLAT:
    case OP_BROADCAST:
    case OP_EXPAND_DIMS:
    case OP_RESHAPE:
    case OP_PERMUTE:
    case OP_CONVERT_LAYOUT:
    case OP_HINT: return true;
    default: return false;
    }
}

/* Pre-order walk over every op of a block, nested regions included. The callback may not erase the
 * op it is given; collect first, edit after. Returns early when fn returns false. */
typedef bool (*OpVisitor)(Op *op, void *ud);
bool tir_walk_block(Block *b, OpVisitor fn, void *ud);
bool tir_walk_func(Func *f, OpVisitor fn, void *ud);

/* Whether v is made inside loop (a result of an op of its regions, or an argument of one, at any
 * depth). */
bool tir_inside_loop(const Value *v, const Op *loop);
/* Whether op sits in the body of a for or while loop, at any depth. */
bool tir_in_loop(const Op *op);
/* The values live across loop (loop_live.c): those it carries (its first region's arguments, a for's
 * induction variable left out), then those made before it that its regions read; each once, the
 * first `max` of them into out. Returns how many. */
int tir_loop_live(const Op *loop, const Value **out, int max);

/* Replaces every use of `from` inside f by `to`. */
void tir_replace_uses(Func *f, Value *from, Value *to);
/* Sets Value.scratch of every value in f to its number of uses. */
void tir_count_uses(Func *f);
/* Erases an op (and its regions); its results must be unused. */
void tir_erase(Op *op);

/* ---- text form, verification, canonicalisation ---- */

enum { TIR_PRINT_LOCS = 1 };
char *tir_print_module(Arena *a, const Module *m, unsigned flags);
char *tir_print_func(Arena *a, const Func *f, unsigned flags);
/* Parses the text form; errors are diagnostics located in f. NULL on error. */
Module *tir_parse(Arena *a, TypeTab *types, StrTab *strs, Diags *diags, SrcFile *f);
/* Structural and type checks; every problem is reported as a diagnostic naming the op (they are
 * compiler bugs, not user errors). */
bool tir_verify(const Module *m, Diags *diags);
/* Folding, CSE and DCE to a fixed point. */
void tir_canonicalize(Func *f);

#endif
