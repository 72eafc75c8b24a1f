/* Internals shared by the interpreter's files: the value representation, the compiled form of a
 * function, and the per-thread execution context.
 *
 * A launch first compiles the Func into a tree of Nodes whose operands are value numbers (the IR is
 * only read, never written, so concurrent launches of one Func do not race). Every value gets a
 * fixed place in a frame of 64-bit slots, one slot per element; each host thread owns one frame and
 * reuses it for every program instance it runs, because SSA values are always written before they
 * are read.
 *
 * Slot contents by element type: integers as their value sign- or zero-extended from the type's
 * width; bool as 0 or 1; floats as a double holding a value exactly representable in the type;
 * pointers as the address. */
#ifndef RK_INTERP_INTERNAL_H
#define RK_INTERP_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "runtime/interp/interp.h"
#include "support/arena.h"
#include "support/strbuf.h"

typedef union Slot {
    int64_t i;
    uint64_t u;
    double f;
} Slot;

typedef enum ElemCls { EC_BOOL, EC_SINT, EC_UINT, EC_FLOAT, EC_PTR } ElemCls;

/* An element type, flattened for the inner loops. */
typedef struct Elem {
    ElemCls cls;
    ScalarKind sk;  /* scalars; SK_U64 for pointers */
    int bits;       /* 1 for bool, 64 for pointers */
    int bytes;      /* size in memory: 1 for bool */
    int shift;      /* 64 - bits: sign extension of signed integers */
    uint64_t mask;  /* the low `bits` bits */
    int64_t psize;  /* pointers: the pointee's size in bytes */
    ScalarKind psk; /* pointers: the pointee */
} Elem;

typedef struct VInfo {
    int64_t off; /* first slot in the frame */
    int64_t n;   /* elements */
    const Type *type;
    Elem el;
    int rank; /* 0 for scalars */
    int64_t shape[TIR_MAX_RANK];
} VInfo;

typedef struct CBlock CBlock;

typedef struct Node {
    const Op *op;
    int32_t *in, *out; /* value numbers of the operands and results */
    CBlock *reg;       /* op->nregions compiled regions */
    bool copy_tmp;     /* terminators: a parallel copy whose sources overlap its destinations */
} Node;

struct CBlock {
    int32_t *args;
    int nargs;
    Node *nodes;
    int n;
    Node *term; /* the terminator, or NULL */
};

typedef struct Prog {
    Arena arena;
    const Func *f;
    VInfo *v;
    int nv;
    int64_t frame_slots;
    int64_t copy_slots; /* the largest parallel copy through a temporary */
    CBlock body;
    bool has_print;
    int32_t *prov; /* by value number: 1 + the parameter a pointer derives from, or 0 (compute_provenance) */
} Prog;

/* State shared by the threads of one launch. */
typedef struct Shared {
    const Prog *p;
    uint32_t grid[3];
    int64_t nprog;
    _Atomic int64_t next;     /* the next program to take */
    _Atomic int64_t stop_pid; /* programs above this one stop; -1 stops all */
    double deadline, timeout_s;
    bool printing; /* a print sink was given */
    /* The error of the lowest failing program, under the lock. */
    pthread_mutex_t lock;
    InterpStatus st;
    int64_t err_pid;
    char msg[1024];
} Shared;

/* Lines printed by one program, NUL-separated. */
typedef struct PrintRec {
    int64_t pid;
    char *text;
    size_t len;
} PrintRec;

typedef struct Ctx {
    Shared *sh;
    const Prog *p;
    Slot *frame;
    Slot *copy_tmp;
    float *ftmp; /* dot operands */
    size_t ftmp_cap;
    uint32_t pid[3];
    int64_t lin;
    uint32_t ticks; /* back edges since the last clock check */
    const Node *ret; /* the return reached by the program, if any */
    /* print output of this thread, sorted by program */
    PrintRec *recs;
    int nrecs, caprecs;
    StrBuf cur; /* the current program's lines (malloc'ed: threads share no arena) */
} Ctx;

static inline Slot *val(Ctx *c, int32_t id) { return c->frame + c->p->v[id].off; }
static inline const VInfo *vinfo(const Ctx *c, int32_t id) { return &c->p->v[id]; }

static inline uint64_t elem_norm(const Elem *e, uint64_t v)
{
    if (e->cls == EC_SINT)
        return (uint64_t)((int64_t)(v << e->shift) >> e->shift);
    return v & e->mask;
}

/* ---- interp.c ---- */
/* Records an error of the running program, worded as the emulator words its errors: "kernel K,
 * workgroup (x, y, z): " then the message, then " (file:line:col)" when the op has a position.
 * Returns false. */
bool interp_fail(Ctx *c, const Op *op, InterpStatus st, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Records an error message as it is. Returns false. */
bool interp_fail_msg(Ctx *c, InterpStatus st, const char *msg);
/* "file:line:col" of the op into buf; false (buf "?") when it has no position. */
bool interp_pos(const Prog *p, const Op *op, char *buf, size_t n);

/* ---- interp_check.c ---- */
/* Checks what executing the node relies on; the reason goes to why. Region nodes are compiled
 * before their op is checked. */
bool interp_check_node(const Prog *p, const Node *n, char *why, size_t len);

/* ---- interp_ops.c: pure computations ---- */
bool interp_exec_pure(Ctx *c, const Node *n);
/* The memory image of a value (the low `bytes` bytes) and back. */
uint64_t interp_to_bits(const Elem *e, Slot s);
Slot interp_from_bits(const Elem *e, uint64_t bits);
/* Elementwise semantics shared with the atomics. */
Slot interp_binop(OpCode code, const Elem *e, Slot a, Slot b);

/* ---- interp_mem.c: memory, atomics, checks, print ---- */
bool interp_exec_mem(Ctx *c, const Node *n);

#endif
