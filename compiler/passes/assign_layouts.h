/* assign_layouts' shared state: the files of the layout assignment (assign_layouts.c drives it in
 * program order; layout_anchors.c chooses the anchors' layouts, compiler/target/nvptx/layout_async.c NVIDIA's asynchronous
 * copies, layout_remat.c the preferences and the rematerialisation of cheap values). Internal to
 * compiler/passes. */
#ifndef RK_ASSIGN_LAYOUTS_H
#define RK_ASSIGN_LAYOUTS_H

#include "compiler/passes/axis_info.h"
#include "compiler/passes/passes.h"

typedef struct Memo Memo;
struct Memo {
    const Layout *lay;
    Value *v;
    Block *blk;
    Memo *next;
};

typedef struct Use {
    Op *op;
    int idx;
    struct Use *next;
} Use;

typedef struct BlockPair {
    Block *tir, *lir;
} BlockPair;

typedef struct Ctx {
    Arena *a;
    TypeTab *tt;
    LayoutTab *lt;
    const LirOptions *o;
    Diags *diags;
    AxisTab *ax;
    Func *src, *dst;
    int nw;
    int nvals;
    Value **fixed;
    Memo **memo;
    Use **uses;
    const Layout **pref;
    char *pref_state; /* 0 unknown, 1 busy, 2 done (strong), 3 done (weak) */
    int pref_depth;   /* pref_of calls on the stack */
    BlockPair *blocks;
    int nblocks, capblocks;
    Builder b;
    bool failed;
} Ctx;

typedef struct IP {
    Block *blk;
    Op *before; /* NULL: the end of blk */
} IP;

/* Values are numbered by compute_axis_info (Value.scratch): the index of every per-value table. */
static inline int vid(const Value *v) { return (int)v->scratch; }

static inline const Type *with_layout(Ctx *c, const Type *t, const Layout *l)
{
    if (t->kind != TY_TILE)
        return t;
    return ty_tile(c->tt, t->elem, t->rank, t->shape, l);
}

/* assign_layouts.c: insertion points */
bool al_encloses(Block *outer, Block *inner);
/* The demand point, or just before the outermost loop between it and the definition's block. */
IP al_hoist(Ctx *c, IP ip, const Value *tirv);
Op *al_emit_at(Ctx *c, IP ip, OpCode code, const Type *rt, Value **ops, int nops);

/* assign_layouts.c: the state over a TIR function (its values numbered by the axis analysis `ax`,
 * computed when NULL; the uses of each) */
void al_ctx_init(Ctx *c, Arena *a, Func *tir, AxisTab *ax, LayoutTab *lt, const LirOptions *o, Diags *diags);

/* layout_anchors.c: the layouts of loads, stores, atomics and dots */
const Layout *al_coalesced_layout(Ctx *c, const Op *op); /* chosen now (coalesce) */
const Layout *al_mem_layout(Ctx *c, const Op *op);       /* as planned, else chosen now */
void al_dot_layouts(Ctx *c, const Op *dot, const Layout **acc, const Layout **la, const Layout **lb);
const Layout *al_store_in_place(Ctx *c, const Op *st);

/* compiler/target/nvptx/layout_async.c: sm_90's loads copied asynchronously into shared memory */
bool al_async_load(Ctx *c, const Op *op);
const Layout *al_async_shared_layout(Ctx *c, const Op *op);
bool al_async_live_at(Ctx *c, const Op *op);

/* layout_remat.c: preferences and rematerialisation */
const Layout *al_default_layout(Ctx *c, const Type *t);
const Layout *al_pref_of(Ctx *c, const Value *v, bool *strong);
const Layout *al_pref(Ctx *c, const Value *v);
bool al_is_free(const Op *op);
/* v in layout L, available at ip: the value itself, a memoised copy, a rematerialised one or a
 * conversion; NULL for an anchor not emitted yet. */
Value *al_get(Ctx *c, Value *v, const Layout *L, IP ip);

#endif
