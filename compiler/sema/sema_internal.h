/* Shared state and helpers of the semantic analysis (the files in compiler/sema). See sema.h. */
#ifndef RK_SEMA_INTERNAL_H
#define RK_SEMA_INTERNAL_H

#include <setjmp.h>
#include <stdbool.h>

#include "compiler/sema/sema.h"

/* The most elements a tile may have (2^24: 64 MB of f32, far beyond what a workgroup holds). */
enum { MAX_TILE_ELEMS = 1 << 24 };
/* The most statements and expressions sema evaluates for one kernel, static for loops unrolled and fns
 * inlined: nested unrolling or a fn calling itself twice would otherwise grow the IR exponentially (a
 * resource error, not an out-of-memory; a 10,000-line kernel takes about 100,000). */
enum { MAX_KERNEL_WORK = 1 << 19 };

/* ---- values during evaluation ---- */

typedef enum SvKind {
    SV_ERR,    /* after an error: propagates without further diagnostics */
    SV_VOID,   /* a call with no result */
    SV_CONST,  /* a compile-time scalar (int, float or bool) */
    SV_DYN,    /* an IR value (scalar or tile) */
    SV_TYPE,   /* a dtype: f32, *f16, ... */
    SV_LIST,   /* [a, b, ...] */
    SV_TUPLE,  /* (a, b) from a fn */
    SV_STRING, /* "..." */
    SV_NONE,   /* None */
    SV_SLICE,  /* ':' inside an index */
    SV_UNINIT, /* a hidden var not yet assigned (see sema_stmt.c) */
} SvKind;

typedef struct SVal SVal;
struct SVal {
    SvKind kind;
    bool weak;        /* SV_CONST from an untyped literal: adopts the other operand's type */
    const Type *type; /* SV_CONST: scalar type; SV_TYPE: the type denoted */
    union {
        int64_t i; /* ints (normalised to the type's width) and bools */
        double f;
    } c;
    Value *v; /* SV_DYN */
    SVal *items;
    int n;           /* SV_LIST, SV_TUPLE */
    const char *str; /* SV_STRING */
    int slen;
};

/* ---- scopes ---- */

typedef enum BindKind { BIND_LET, BIND_VAR, BIND_CONST, BIND_FN, BIND_KERNEL, BIND_HIDDEN } BindKind;

typedef struct Binding Binding;
struct Binding {
    const char *name;
    BindKind kind;
    SVal val;
    Loc loc;        /* where it was declared */
    Node *decl;     /* fn / kernel / module const declaration */
    const char *role; /* for messages about a BIND_LET: "a kernel parameter", ...; NULL for `let` */
    bool evaluating; /* module const being evaluated (cycle check) */
    Binding *outer_const; /* while evaluating: the module const whose value needed this one */
    bool evaluated;
    Binding *next; /* next binding in the same scope */
};

typedef struct Scope Scope;
struct Scope {
    Scope *parent;
    Binding *first;
};

/* A loop or function being emitted, for break/continue/return. */
typedef struct Frame Frame;
struct Frame {
    Frame *outer;
    bool is_loop;      /* else a fn or the kernel */
    Binding *brk;      /* hidden var: a break happened (loops) */
    Binding *cont;     /* hidden var: a continue happened (loops) */
    Binding *ret;      /* hidden var: a return happened (fn / kernel) */
    Binding *retval;   /* hidden var: the value returned (fn) */
    const char *fn_name;
    bool void_ret;     /* a `return;` was emitted (on any path) */
    bool value_ret;    /* a `return e;` was emitted (on any path): mixing the two is an error */
    Loc value_ret_loc; /* the last `return e;` emitted */
};

typedef struct Sema {
    Arena *arena;
    StrTab *strs;
    TypeTab *types;
    SrcMgr *src;
    Diags *diags;
    const SemaOptions *opts;
    const Config *config;
    Module *module;
    Scope *globals;
    /* globals by name (interned pointers), open addressing, the newest binding of each name: a module
     * of 200k fns declared in linear time, not 100 s of scans (issue 23); gcap a power of two or 0 */
    Binding **gtab;
    uint32_t gcap, gcount;
    Scope *scope;     /* innermost local scope (NULL at module level) */
    Builder b;        /* insertion point while a kernel is emitted */
    Frame *frame;     /* innermost loop or function */
    int call_depth;
    Binding *const_top; /* the module const being evaluated innermost, for cycle messages */
    Node *kernel;     /* the kernel being compiled */
    long work;        /* statements and expressions evaluated for it (MAX_KERNEL_WORK) */
    KernelOptions kopts;
    struct Fact *facts; /* SemaOptions.assume, parsed (sema_spec.c) */
    int nfacts;
    bool *fact_used;    /* which facts named a parameter of a compiled kernel */
    /* interned names used often */
    const char *n_mask, *n_other, *n_keepdims, *n_precision, *n_sem, *n_scope, *n_type;
} Sema;

/* ---- sema_value.c: constants, promotion, conversion, broadcasting ---- */

SVal sv_err(void);
SVal sv_void(void);
SVal sv_int(const Type *t, int64_t v);
SVal sv_weak_int(Sema *S, int64_t v);
SVal sv_float(const Type *t, double v);
SVal sv_weak_float(Sema *S, double v);
SVal sv_bool(Sema *S, bool v);
SVal sv_dyn(Value *v);
SVal sv_typeval(const Type *t);
const Type *sv_type(Sema *S, const SVal *v); /* the value's type (scalar or tile); NULL if none */
bool sv_is_value(const SVal *v);             /* CONST or DYN */
bool sv_is_tile(const SVal *v);
const char *sv_describe(Sema *S, const SVal *v); /* for messages: "f32[64, 32]", "a list", ... */
int64_t sema_norm_int(ScalarKind sk, int64_t v);
/* A weak literal takes a concrete type: ints i32 (i64 if too large), floats f32. */
SVal sv_harden(Sema *S, SVal v);
Value *sema_materialize(Sema *S, SVal v, Loc loc);
/* A `const` op of type t (scalar or tile) holding the constant c (already of t's element type). */
Value *sema_const_value(Sema *S, const Type *t, SVal c);
/* Converts v to element type elem, keeping its shape (cast rules of `as`). */
SVal sv_convert(Sema *S, SVal v, const Type *elem, Loc loc);
/* Broadcasts v (scalar or tile) to a tile of the given shape; v's dims must be 1 or equal. */
SVal sv_broadcast(Sema *S, SVal v, int rank, const int64_t *shape, Loc loc);
/* The numpy-broadcast shape of two values; false (no diagnostic) if incompatible. */
bool sema_broadcast_shape(const Type *a, const Type *b, int *rank, int64_t *shape);
const char *sema_broadcast_why(const Type *a, const Type *b); /* for messages after broadcast_shape failed */
/* The element type two operands promote to (the contract's rules); NULL if they do not mix. */
const Type *sema_promote_elem(Sema *S, const SVal *a, const SVal *b);
bool sema_is_pow2(int64_t v);
/* The element count of a shape, or -1 when it exceeds MAX_TILE_ELEMS (no overflow on the way). */
int64_t sema_shape_numel(int rank, const int64_t *shape);
const Type *sema_tile_type(Sema *S, const Type *elem, int rank, const int64_t *shape);

/* ---- sema_expr.c ---- */

SVal sema_eval_expr(Sema *S, Node *e);
SVal sema_eval_binary(Sema *S, int op, SVal a, SVal b, Loc loc);
SVal sema_eval_unary(Sema *S, int op, SVal a, Loc loc);
SVal sema_eval_cast(Sema *S, SVal v, const Type *to, Loc loc);
/* Converts an operand to a promoted element type; an untyped integer literal must fit in it. */
SVal sema_convert_operand(Sema *S, SVal v, const Type *elem, Loc loc);
const Type *sema_eval_type(Sema *S, Node *t); /* a type expression; NULL after an error */
Binding *sema_lookup(Sema *S, const char *name);
/* The module-level binding of a name (hashed), or NULL. */
Binding *sema_global_find(Sema *S, const char *name);
Binding *sema_bind(Sema *S, Scope *sc, const char *name, BindKind kind, SVal v, Loc loc);
/* The integer value of a compile-time value, with a diagnostic naming `what` otherwise. */
bool sv_const_int(Sema *S, SVal v, Loc loc, const char *what, int64_t *out);

/* ---- sema_builtin.c ---- */

/* True when `name` is a builtin; then *out is its result. */
bool sema_eval_builtin(Sema *S, const char *name, Node *call, SVal *out);
bool sema_is_builtin(const char *name);

/* ---- sema_stmt.c ---- */

void sema_emit_block(Sema *S, Node *block, Scope *scope);
SVal sema_inline_call(Sema *S, Binding *fn, Node *call);
void sema_push_scope(Sema *S, Scope *sc);

/* Shared with sema_loop.c: var carrying and exit flags. */
typedef struct VarSet {
    Binding **b;
    int n;
} VarSet;
typedef void (*EmitFn)(Sema *S, void *ctx);

Binding *sema_hidden(Sema *S, const char *what, SVal init); /* a hidden var (flag) in the current scope */
VarSet sema_visible_vars(Sema *S);                         /* vars and flags visible here, innermost first */
SVal *sema_snapshot(Sema *S, VarSet vs);
void sema_restore(VarSet vs, const SVal *s);
int sema_flat_count(const SVal *v);                        /* IR values a carried value flattens to */
bool sema_flatten(Sema *S, SVal v, Value **out, int *k, Loc loc);
SVal sema_unflatten(Sema *S, const SVal *like, Value **vals, int *k);
const char *sema_var_label(Sema *S, const Binding *b);     /* "var 'x'", for messages */
/* if cond { then_fn } else { else_fn }, carrying the vars they change; pin: see sema_stmt.c. */
void sema_emit_if(Sema *S, Value *cond, EmitFn then_fn, void *then_ctx, EmitFn else_fn, void *else_ctx, Binding *pin,
             Loc loc);
Frame *sema_fn_frame(Sema *S);                             /* the innermost fn or kernel frame */
SVal sema_flags_or(Sema *S, Binding *const *flags, int n, Loc loc, Binding **pin);
SVal sema_exiting(Sema *S, Loc loc);                       /* break || continue || return, here */
void sema_emit_stmts(Sema *S, Node **stmts, int n);

/* ---- sema_loop.c ---- */

void sema_emit_for(Sema *S, Node *n);
void sema_emit_while(Sema *S, Node *n);

/* ---- sema_decl.c ---- */

SrcPos sema_pos(Sema *S, Loc loc);
void sema_set_loc(Sema *S, Loc loc); /* stamps the builder's position */
SVal sema_eval_global(Sema *S, Binding *b, Loc use);

/* Errors: located at an AST position; return SV_ERR for convenience. */
/* ---- sema_spec.c: specialisation on run-time parameters ---- */

/* Parses SemaOptions.assume into S->facts (false after an error). */
bool sema_parse_facts(Sema *S);
/* @no_specialize(names...) of kernel k: marks the parameters in meta (errors at the names). */
void sema_no_specialize(Sema *S, Node *k, Node *at, KernelMeta *meta);
/* Applies the facts naming meta's parameters to their values vals[] (a multiple_of hint emitted at the
 * builder, or a constant); returns the canonical text of those applied. */
const char *sema_apply_facts(Sema *S, Node *k, Func *f, KernelMeta *meta, SVal *vals);
/* An error for each fact that named no parameter of any kernel compiled. */
void sema_check_facts(Sema *S, const char *file);

SVal sema_error(Sema *S, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Counts a statement or expression against MAX_KERNEL_WORK: false past it (reported once, at loc). */
bool sema_step(Sema *S, Loc loc);

#endif
