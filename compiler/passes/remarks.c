/* Performance remarks (rkc --remarks): every global load or store narrower than the widest access the
 * target has (128 bits per lane), with its position, its width and the fact about a run-time parameter
 * that would widen it, in the language's own terms -- as LLVM's -Rpass-missed, but naming the
 * kernel's parameters.
 *
 * It reads the same axis analysis the layouts are chosen from (axis_vector_width), on the tile IR
 * assign_layouts receives, and asks why a load's run is short: the addresses not known to be
 * contiguous (a stride that may not be 1), not known to be aligned (an offset or stride not known to
 * be a multiple of 16), or a mask not known to be constant over the run (a bound not known to be a
 * multiple of 16). The parameters named are the kernel's integer parameters that reach the pointer
 * (or the mask) through arithmetic; a tile too small to give every lane the widest access is not
 * remarked on. LDS accesses are decided in the lowering and remarked on there (compiler/lower/lds_banks.c). */
#include <stdio.h>
#include <string.h>

#include "compiler/passes/axis_info.h"
#include "compiler/passes/passes.h"

enum { MAX_NAMES = 16 };

typedef struct Names {
    const char *n[MAX_NAMES];
    int count;
} Names;

static void add_name(Names *s, const char *name)
{
    for (int i = 0; i < s->count; i++)
        if (strcmp(s->n[i], name) == 0)
            return;
    if (s->count < MAX_NAMES)
        s->n[s->count++] = name;
}

typedef struct RCtx {
    Arena *a;
    const Func *f;
    const Module *m;
    const AxisTab *ax;
    int lanes;
    Remark *items;
    int n, cap;
    int budget; /* steps left for the walk of one access (shared subexpressions are walked again) */
} RCtx;

/* A kernel parameter (an integer scalar argument of the function's body), or NULL. */
static const char *param_name(const Func *f, const Value *v)
{
    return !v->def && v->owner == f->body && v->type->kind == TY_SCALAR && ty_is_int(v->type) ? v->name : NULL;
}

/* Whether v, a tile of the pointer's rank, varies along dimension d. */
static bool varies(const RCtx *c, const Value *v, int rank, int d)
{
    if (d < 0 || v->type->kind != TY_TILE || v->type->rank != rank || v->type->shape[d] <= 1)
        return false;
    return axis_of(c->ax, v)->constancy[d] < v->type->shape[d];
}

/* The parameters an address (or mask) computation reads, by role: `strides` multiply a value that
 * varies along dimension d (d < 0: none tracked), `bounds` divide one that does (`% N`), `others` enter
 * otherwise. Follows sums, products, broadcasts, expand_dims, hints, casts and loop-carried values to
 * their initial values; depth-bounded. */
static void walk(RCtx *c, const Func *f, const Value *v, int rank, int d, Names *strides, Names *bounds,
                 Names *others, int depth)
{
    if (!v || depth > 64 || c->budget-- <= 0)
        return;
    const char *pn = param_name(f, v);
    if (pn) {
        add_name(others, pn);
        return;
    }
    if (!v->def) {
        const Op *loop = v->owner ? v->owner->parent : NULL;
        if (loop && loop->code == OP_FOR && v->index >= 1 && v->index + 2 < loop->nopnds)
            walk(c, f, loop->operands[v->index + 2], rank, d, strides, bounds, others, depth + 1);
        return;
    }
    const Op *op = v->def;
    if (op->code == OP_HINT && op->at.kind == KIND_MULTIPLE_OF && op->at.n % 16 == 0)
        return; /* already known to be a multiple of 16: not what to suggest */
    switch (op->code) {
    case OP_MUL: {
        bool v0 = varies(c, op->operands[0], rank, d), v1 = varies(c, op->operands[1], rank, d);
        for (int i = 0; i < 2; i++) {
            bool other_varies = i == 0 ? v1 : v0, this_varies = i == 0 ? v0 : v1;
            if (other_varies && !this_varies)
                walk(c, f, op->operands[i], rank, -1, strides, bounds, strides, depth + 1);
            else
                walk(c, f, op->operands[i], rank, d, strides, bounds, others, depth + 1);
        }
        return;
    }
    case OP_REM:
        walk(c, f, op->operands[0], rank, d, strides, bounds, others, depth + 1);
        if (varies(c, op->operands[0], rank, d)) { /* a run along d wraps at the divisor */
            walk(c, f, op->operands[1], rank, -1, strides, bounds, bounds, depth + 1);
        } else {
            Names sink = {{0}, 0};
            walk(c, f, op->operands[1], rank, -1, &sink, &sink, &sink, depth + 1);
        }
        return;
    case OP_EXPAND_DIMS: {
        int ax = (int)op->at.axis;
        int nd = d < 0 || d == ax ? -1 : d < ax ? d : d - 1;
        walk(c, f, op->operands[0], rank - 1, nd, strides, bounds, others, depth + 1);
        return;
    }
    case OP_DIV:
    case OP_MIN:
    case OP_MAX: { /* index arithmetic (a program's tile coordinates): its parameters move no run */
        Names sink = {{0}, 0};
        for (int i = 0; i < op->nopnds; i++)
            walk(c, f, op->operands[i], rank, -1, &sink, &sink, &sink, depth + 1);
        return;
    }
    case OP_ADD:
    case OP_SUB:
    case OP_ADDPTR:
    case OP_BROADCAST:
    case OP_SPLAT:
    case OP_HINT:
    case OP_CAST:
    case OP_AND:
    case OP_OR:
    case OP_CMP:
    case OP_SELECT:
        for (int i = 0; i < op->nopnds; i++)
            walk(c, f, op->operands[i], op->code == OP_SPLAT ? 0 : rank, op->code == OP_SPLAT ? -1 : d, strides,
                 bounds, others, depth + 1);
        return;
    default:
        return;
    }
}

static const char *names_text(Arena *a, const Names *s, const char *fmt_each)
{
    const char *t = "";
    for (int i = 0; i < s->count; i++)
        t = arena_printf(a, "%s%s%s", t, i ? (i + 1 == s->count ? " and " : ", ") : "",
                         arena_printf(a, fmt_each, s->n[i], s->n[i]));
    return t;
}

/* Records a remark; a load the pipeline cloned (prologue and body) is one remark. */
static void push(RCtx *c, const Op *op, const char *what, int bits, int widest, const char *why)
{
    for (int i = 0; i < c->n; i++)
        if (c->items[i].line == (int)op->pos.line && c->items[i].col == (int)op->pos.col &&
            strcmp(c->items[i].what, what) == 0)
            return;
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 8;
        Remark *r = ARENA_ARRAY(c->a, Remark, cap);
        if (c->n)
            memcpy(r, c->items, sizeof *r * (size_t)c->n);
        c->items = r;
        c->cap = cap;
    }
    const char *file = op->pos.file < (uint32_t)c->m->nfiles ? c->m->files[op->pos.file] : NULL;
    c->items[c->n++] = (Remark){REMARK_NARROW, c->f->name, file, (int)op->pos.line, (int)op->pos.col, what, bits, widest, 0, why};
}

static void visit_mem(RCtx *c, const Op *op)
{
    const Value *ptr = op->operands[0];
    const Value *mask = NULL;
    if (op->code == OP_LOAD && op->nopnds == 3)
        mask = op->operands[1];
    else if (op->code == OP_STORE && op->nopnds == 3)
        mask = op->operands[2];
    const Type *t = ptr->type;
    if (t->kind != TY_TILE)
        return;
    int eb = ty_bits(t->elem->pointee);
    if (eb <= 0 || eb >= 128)
        return;
    int dim;
    int vec = axis_vector_width(c->ax, ptr, mask, 128, &dim);
    /* the widest this tile allows: 128 bits, within the dimension, every lane given work */
    int64_t numel = ty_numel(t);
    int best = 128 / eb;
    int bdim = dim;
    while (best > 1 && (best > t->shape[bdim] || numel / best < c->lanes))
        best /= 2;
    if (vec >= best)
        return;
    const AxisInfo *p = axis_of(c->ax, ptr);
    Arena *a = c->a;
    const char *why;
    c->budget = 4096;
    Names st = {{0}, 0}, bd = {{0}, 0}, ot = {{0}, 0};
    int rank = t->rank;
    if (p->contig[bdim] < best) {
        walk(c, c->f, ptr, rank, bdim, &st, &bd, &ot, 0);
        const char *facts = "", *hints = "";
        if (st.count) {
            facts = names_text(a, &st, "%s == 1");
            hints = arena_printf(a, "pass 1 for %s", names_text(a, &st, "`%s`"));
        }
        if (bd.count) {
            facts = arena_printf(a, "%s%s%s", facts, *facts ? " and " : "", names_text(a, &bd, "%s %% 16 == 0"));
            hints = arena_printf(a, "%s%swrite %s", hints, *hints ? " and " : "",
                                 names_text(a, &bd, "multiple_of(%s, 16)"));
        }
        why = *facts ? arena_printf(a, "consecutive elements are not known to be consecutive in memory (%s%s%s); a "
                                       "launch with %s specialises it, or %s",
                                    st.count ? arena_printf(a, "the stride %s may not be 1", names_text(a, &st, "`%s`"))
                                             : "",
                                    st.count && bd.count ? "; " : "",
                                    bd.count ? arena_printf(a, "a run may wrap at %s", names_text(a, &bd, "`%s`")) : "",
                                    facts, hints)
                     : "consecutive elements are not known to be consecutive in memory; write max_contiguous on "
                       "the offsets if they are";
    } else if (p->div[bdim] * 8 < (int64_t)best * eb) {
        walk(c, c->f, ptr, rank, bdim, &ot, &ot, &ot, 0);
        why = ot.count ? arena_printf(a, "the address of each run is not known to be %d-byte aligned (%s); a launch "
                                         "with %s specialises it, or write %s",
                                      best * eb / 8, names_text(a, &ot, "`%s`"), names_text(a, &ot, "%s %% 16 == 0"),
                                      names_text(a, &ot, "multiple_of(%s, 16)"))
                       : arena_printf(a, "the address of each run is not known to be %d-byte aligned; write "
                                         "multiple_of on the offsets", best * eb / 8);
    } else {
        if (mask)
            walk(c, c->f, mask, rank, bdim, &ot, &ot, &ot, 0);
        why = ot.count ? arena_printf(a, "the mask is not known to be the same over %d consecutive elements (%s); a "
                                         "launch with %s specialises it, or write %s",
                                      best, names_text(a, &ot, "`%s`"), names_text(a, &ot, "%s %% 16 == 0"),
                                      names_text(a, &ot, "multiple_of(%s, 16)"))
                       : arena_printf(a, "the mask is not known to be the same over %d consecutive elements", best);
    }
    push(c, op, op->code == OP_LOAD ? "global load" : "global store", vec * eb, best * eb, why);
}

static void visit_block(RCtx *c, const Block *b)
{
    for (const Op *op = b->first; op; op = op->next) {
        if (op->code == OP_LOAD || op->code == OP_STORE)
            visit_mem(c, op);
        for (int r = 0; r < op->nregions; r++)
            visit_block(c, op->regions[r]);
    }
}

Remark *compute_remarks(Arena *a, Func *f, const AxisTab *ax, int lanes, int *n)
{
    RCtx c = {a, f, f->module, ax ? ax : compute_axis_info(a, f), lanes, NULL, 0, 0, 0};
    visit_block(&c, f->body);
    *n = c.n;
    return c.items;
}
