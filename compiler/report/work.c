/* Work counts from the tile IR: one program's FLOPs and global-memory bytes as formulas in the
 * kernel's arguments, its program ids and the grid (work.h says the format; runtime/api/perf.c sums
 * them over the grid).
 *
 * Each dot, elementwise float op, reduction, load and store contributes its per-execution amount
 * times the trip counts of the loops around it. A loop's trip count is cdiv(ub - lb, step) when its
 * bounds are integer arithmetic on the arguments, constants, program ids and the grid; otherwise its
 * body counts once and the result says it is an estimate. A masked load or store counts the lanes its
 * mask lets through when the mask is a conjunction of `index < bound` (<=, >, >=), one per dimension,
 * the index an arange plus a scalar of those (rows past M, columns past N, the tail past n): the
 * masked-off tail of the last programs moves no bytes. Any other mask (one that changes in a loop, a
 * causal mask) counts all lanes, an upper bound, and says so; so do `if` (both branches counted) and
 * `while` (its body counted once). */
#include <stdio.h>
#include <string.h>

#include "compiler/report/work.h"

enum { MAX_FORMULA = 4000 };

typedef struct WCtx {
    Arena *a;
    Func *f;
    const char *flops_dot, *flops_elem, *bytes_load, *bytes_store; /* per program, RPN, or NULL for 0 */
    const char *why;   /* the reasons it is an estimate, "; "-joined, or NULL */
    int dot_sk;        /* the dots' operand type, -1 before the first */
    const char *by_param[256]; /* bytes per program through each pointer parameter (RPN or NULL) */
} WCtx;

/* The pointer parameter a pointer (tile) value is based on, or -1. */
static int base_param(WCtx *w, const Value *v, int depth)
{
    if (!v || depth > 256)
        return -1;
    if (!v->def) {
        if (v->owner == w->f->body)
            return v->index < 256 && v->type->kind == TY_PTR ? v->index : -1;
        const Op *loop = v->owner->parent; /* a for's carried value: its initial value's base */
        if (loop && loop->code == OP_FOR && v->index > 0 && 3 + v->index - 1 < loop->nopnds)
            return base_param(w, loop->operands[3 + v->index - 1], depth + 1);
        return -1;
    }
    if (v->def->code == OP_ADDPTR || op_carries_operand0(v->def->code))
        return base_param(w, v->def->operands[0], depth + 1);
    switch (v->def->code) {
    case OP_FOR: /* a pointer a loop carries out */
        return v->index + 3 < v->def->nopnds ? base_param(w, v->def->operands[3 + v->index], depth + 1) : -1;
    default:
        return -1;
    }
}

static void note(WCtx *w, const char *fmt_why)
{
    if (w->why && strstr(w->why, fmt_why))
        return;
    w->why = w->why ? arena_printf(w->a, "%s; %s", w->why, fmt_why) : fmt_why;
}

/* The formula of a scalar integer value, or NULL when it is not arithmetic on what a launch knows. */
static const char *expr(WCtx *w, const Value *v, int depth)
{
    if (depth > 64 || !v || v->type->kind != TY_SCALAR || !(sk_is_int(v->type->sk) || v->type->sk == SK_BOOL))
        return NULL;
    if (!v->def) {
        if (v->owner == w->f->body)
            return arena_printf(w->a, "a%d", v->index);
        return NULL; /* an induction variable or a carried value */
    }
    const Op *op = v->def;
    const char *x = NULL, *y = NULL, *r = NULL;
    static const char axes[] = "xyz";
    switch (op->code) {
    case OP_CONST:
        return arena_printf(w->a, "%lld", (long long)op->at.value.i);
    case OP_PROGRAM_ID:
        return op->at.axis >= 0 && op->at.axis < 3 ? arena_printf(w->a, "p%c", axes[op->at.axis]) : NULL;
    case OP_NUM_PROGRAMS:
        return op->at.axis >= 0 && op->at.axis < 3 ? arena_printf(w->a, "g%c", axes[op->at.axis]) : NULL;
    case OP_CAST:
    case OP_HINT:
        return expr(w, op->operands[0], depth + 1);
    case OP_CMP: {
        static const char *const pred[] = {[PRED_EQ] = "eq", [PRED_NE] = "ne", [PRED_LT] = "lt",
                                           [PRED_LE] = "le", [PRED_GT] = "gt", [PRED_GE] = "ge"};
        x = expr(w, op->operands[0], depth + 1);
        y = x ? expr(w, op->operands[1], depth + 1) : NULL;
        if (!y || op->at.pred < 0 || op->at.pred >= PRED_COUNT)
            return NULL;
        r = arena_printf(w->a, "%s %s %s", x, y, pred[op->at.pred]);
        return strlen(r) > MAX_FORMULA ? NULL : r;
    }
    case OP_SELECT: {
        const char *c = expr(w, op->operands[0], depth + 1);
        x = c ? expr(w, op->operands[1], depth + 1) : NULL;
        y = x ? expr(w, op->operands[2], depth + 1) : NULL;
        if (!y)
            return NULL;
        r = arena_printf(w->a, "%s %s %s sel", c, x, y);
        return strlen(r) > MAX_FORMULA ? NULL : r;
    }
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_DIV:
    case OP_REM:
    case OP_MIN:
    case OP_MAX:
    case OP_MINNUM:
    case OP_MAXNUM:
        x = expr(w, op->operands[0], depth + 1);
        y = x ? expr(w, op->operands[1], depth + 1) : NULL;
        if (!y)
            return NULL;
        {
            static const char *const sym[] = {[OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*", [OP_DIV] = "/",
                                              [OP_REM] = "%", [OP_MIN] = "min", [OP_MAX] = "max",
                                              [OP_MINNUM] = "min", [OP_MAXNUM] = "max"};
            r = arena_printf(w->a, "%s %s %s", x, y, sym[op->code]);
        }
        return strlen(r) > MAX_FORMULA ? NULL : r;
    default:
        return NULL;
    }
}

/* term * mult added to *sum. */
static void add(WCtx *w, const char **sum, const char *mult, long long amount)
{
    if (amount <= 0)
        return;
    const char *t = strcmp(mult, "1") == 0 ? arena_printf(w->a, "%lld", amount)
                                           : arena_printf(w->a, "%s %lld *", mult, amount);
    *sum = *sum ? arena_printf(w->a, "%s %s +", *sum, t) : t;
}

/* a formula (RPN) times mult added to *sum */
static void add_f(WCtx *w, const char **sum, const char *mult, const char *f)
{
    const char *t = strcmp(mult, "1") == 0 ? f : arena_printf(w->a, "%s %s *", mult, f);
    *sum = *sum ? arena_printf(w->a, "%s %s +", *sum, t) : t;
}

static const Value *peel(const Value *v)
{
    while (v && v->def && (v->def->code == OP_CONVERT_LAYOUT || v->def->code == OP_HINT || v->def->code == OP_CAST))
        v = v->def->operands[0];
    return v;
}

/* A tile of indices `off + start + i` along dimension *dim of extent *ext (an arange, maybe plus a splat
 * scalar, maybe expanded and broadcast): *off its formula. False when it is not one. */
static bool index_tile(WCtx *w, const Value *v, const char **off, long long *ext, int *dim, int depth)
{
    v = peel(v);
    if (!v || !v->def || depth > 16 || v->type->kind != TY_TILE)
        return false;
    const Op *op = v->def;
    switch (op->code) {
    case OP_ARANGE:
        *off = arena_printf(w->a, "%lld", (long long)op->at.start);
        *ext = op->at.end - op->at.start;
        *dim = 0;
        return true;
    case OP_EXPAND_DIMS:
        if (!index_tile(w, op->operands[0], off, ext, dim, depth + 1))
            return false;
        if (*dim >= op->at.axis)
            ++*dim;
        return true;
    case OP_BROADCAST:
        return op->operands[0]->type->kind == TY_TILE && op->operands[0]->type->rank == v->type->rank &&
               index_tile(w, op->operands[0], off, ext, dim, depth + 1);
    case OP_ADD:
        for (int s = 0; s < 2; s++) {
            const Value *sp = peel(op->operands[s]);
            if (sp && sp->def && sp->def->code == OP_SPLAT && index_tile(w, op->operands[1 - s], off, ext, dim, depth + 1)) {
                const char *x = expr(w, sp->def->operands[0], 0);
                if (!x)
                    return false;
                *off = arena_printf(w->a, "%s %s +", *off, x);
                return true;
            }
        }
        return false;
    default:
        return false;
    }
}

/* The scalar bound of a comparison: a splat (maybe broadcast) of a scalar formula. */
static const char *bound(WCtx *w, const Value *v)
{
    for (int i = 0; i < 8 && v; i++) {
        v = peel(v);
        if (!v || !v->def)
            return NULL;
        if (v->def->code == OP_SPLAT)
            return expr(w, v->def->operands[0], 0);
        if (v->def->code != OP_BROADCAST && v->def->code != OP_EXPAND_DIMS)
            return NULL;
        v = v->def->operands[0];
    }
    return NULL;
}

enum { MAX_TERMS = 4 };
typedef struct MTerm {
    const char *count; /* lanes that hold along its dimension */
    long long ext;
    int dim;
} MTerm;

/* A mask as a conjunction of `index < bound` per dimension. False when it is not one. */
static bool mask_terms(WCtx *w, const Value *m, MTerm *t, int *n, int depth)
{
    m = peel(m);
    if (!m || !m->def || depth > 16)
        return false;
    const Op *op = m->def;
    int n0 = *n;
    switch (op->code) {
    case OP_AND:
        return mask_terms(w, op->operands[0], t, n, depth + 1) && mask_terms(w, op->operands[1], t, n, depth + 1);
    case OP_EXPAND_DIMS:
        if (!mask_terms(w, op->operands[0], t, n, depth + 1))
            return false;
        for (int i = n0; i < *n; i++)
            if (t[i].dim >= op->at.axis)
                t[i].dim++;
        return true;
    case OP_BROADCAST:
        return op->operands[0]->type->kind == TY_TILE && op->operands[0]->type->rank == m->type->rank &&
               mask_terms(w, op->operands[0], t, n, depth + 1);
    case OP_CMP: {
        int p = (int)op->at.pred;
        bool lt = p == PRED_LT || p == PRED_LE, le = p == PRED_LE || p == PRED_GE;
        if (!lt && p != PRED_GT && p != PRED_GE)
            return false;
        const Value *x = op->operands[lt ? 0 : 1], *s = op->operands[lt ? 1 : 0];
        const char *off, *b = bound(w, s);
        long long ext;
        int dim;
        if (!b || *n == MAX_TERMS || !index_tile(w, x, &off, &ext, &dim, 0))
            return false;
        t[(*n)++] = (MTerm){arena_printf(w->a, "%s %s - %s0 max %lld min", b, off, le ? "1 + " : "", ext), ext, dim};
        return true;
    }
    default:
        return false;
    }
}

/* The bytes a masked access of tile type `ty` moves, as a formula; NULL when the mask is not one that
 * mask_terms understands. */
static const char *masked_bytes(WCtx *w, const Value *mask, const Type *ty, long long esize)
{
    MTerm t[MAX_TERMS];
    int n = 0;
    if (ty->kind != TY_TILE || !mask_terms(w, mask, t, &n, 0) || n == 0)
        return NULL;
    long long rest = ty_numel(ty);
    unsigned dims = 0;
    for (int i = 0; i < n; i++) {
        if (t[i].dim >= ty->rank || (dims >> t[i].dim & 1) || t[i].ext != ty->shape[t[i].dim])
            return NULL;
        dims |= 1u << t[i].dim;
        rest /= t[i].ext;
    }
    const char *f = t[0].count;
    for (int i = 1; i < n; i++)
        f = arena_printf(w->a, "%s %s *", f, t[i].count);
    return arena_printf(w->a, "%s %lld *", f, rest * esize);
}

static long long elem_bytes(const Type *t)
{
    const Type *e = ty_elem(t);
    if (e->kind == TY_PTR)
        e = e->pointee;
    return e->kind == TY_SCALAR ? (sk_bits(e->sk) + 7) / 8 : 8;
}

static void walk(WCtx *w, Block *b, const char *mult);

static void add_param(WCtx *w, const Value *ptr, const char *mult, long long amount)
{
    int p = base_param(w, ptr, 0);
    if (p >= 0)
        add(w, &w->by_param[p], mult, amount);
}

static void count_op(WCtx *w, Op *op, const char *mult)
{
    const OpInfo *in = op_info(op);
    switch (op->code) {
    case OP_DOT: {
        const Type *a = op->operands[0]->type, *bt = op->operands[1]->type;
        if (a->kind == TY_TILE && bt->kind == TY_TILE && a->rank >= 2) {
            long long m = a->shape[a->rank - 2], k = a->shape[a->rank - 1], n = bt->shape[bt->rank - 1];
            long long batch = ty_numel(a) / (m * k);
            add(w, &w->flops_dot, mult, 2 * batch * m * n * k);
            if (w->dot_sk < 0)
                w->dot_sk = (int)ty_elem(a)->sk;
        }
        return;
    }
    case OP_LOAD:
    case OP_STORE: {
        bool load = op->code == OP_LOAD;
        const Type *ty = load ? op->results[0].type : op->operands[1]->type;
        const Value *mask = load ? (op->nopnds > 1 ? op->operands[1] : NULL) : (op->nopnds > 2 ? op->operands[2] : NULL);
        const char **sum = load ? &w->bytes_load : &w->bytes_store;
        const char *f = mask ? masked_bytes(w, mask, ty, elem_bytes(ty)) : NULL;
        if (!f)
            f = arena_printf(w->a, "%lld", ty_numel(ty) * elem_bytes(ty));
        if (mask && f[0] >= '0' && f[0] <= '9' && !strchr(f, ' '))
            note(w, "masks that are not index < bound per dimension (or that change in a loop) counted as all lanes");
        add_f(w, sum, mult, f);
        int p = base_param(w, op->operands[0], 0);
        if (p >= 0)
            add_f(w, &w->by_param[p], mult, f);
        return;
    }
    case OP_ATOMIC_RMW:
    case OP_ATOMIC_CAS: {
        const Type *t = op->operands[op->nopnds > 1 ? 1 : 0]->type;
        if (op->nopnds > (op->code == OP_ATOMIC_RMW ? 2 : 3))
            note(w, "masked loads and stores counted whole");
        add(w, &w->bytes_load, mult, ty_numel(t) * elem_bytes(t));
        add(w, &w->bytes_store, mult, ty_numel(t) * elem_bytes(t));
        add_param(w, op->operands[0], mult, 2 * ty_numel(t) * elem_bytes(t));
        return;
    }
    case OP_REDUCE:
    case OP_SCAN:
        if (ty_is_float(op->operands[0]->type))
            add(w, &w->flops_elem, mult, ty_numel(op->operands[0]->type));
        return;
    case OP_FOR: {
        const char *ub = expr(w, op->operands[1], 0), *lb = ub ? expr(w, op->operands[0], 0) : NULL;
        const char *st = lb ? expr(w, op->operands[2], 0) : NULL;
        const char *m = mult;
        if (st) {
            const char *trips = arena_printf(w->a, "%s %s - %s cdivp", ub, lb, st);
            m = strcmp(mult, "1") == 0 ? trips : arena_printf(w->a, "%s %s *", mult, trips);
        } else {
            note(w, arena_printf(w->a, "a loop whose trip count is not a function of the arguments (line %u) "
                                       "counted once", op->pos.line));
        }
        walk(w, op->regions[0], m);
        return;
    }
    case OP_WHILE:
        note(w, arena_printf(w->a, "a while loop (line %u) counted once", op->pos.line));
        for (int i = 0; i < op->nregions; i++)
            walk(w, op->regions[i], mult);
        return;
    case OP_IF:
        for (int i = 0; i < op->nregions; i++) {
            const char *l = w->bytes_load, *s = w->bytes_store, *fd = w->flops_dot, *fe = w->flops_elem;
            walk(w, op->regions[i], mult);
            if (l != w->bytes_load || s != w->bytes_store || fd != w->flops_dot || fe != w->flops_elem)
                note(w, "both branches of an if counted");
        }
        return;
    default:
        break;
    }
    if ((in->flags & F_ELEM) && op->nres == 1 && ty_is_float(op->results[0].type) && op->code != OP_CAST &&
        op->code != OP_BITCAST && op->code != OP_SELECT && op->code != OP_ADDPTR)
        add(w, &w->flops_elem, mult, ty_numel(op->results[0].type) * (op->code == OP_FMA ? 2 : 1));
}

static void walk(WCtx *w, Block *b, const char *mult)
{
    for (Op *op = b->first; op; op = op->next)
        count_op(w, op, mult);
}

const char *work_formula(Arena *a, Func *f, const Value *v)
{
    WCtx w;
    memset(&w, 0, sizeof w);
    w.a = a;
    w.f = f;
    return expr(&w, v, 0);
}

const char *work_describe(Arena *a, Func *f, const char *user_flops, const char *user_bytes)
{
    WCtx w;
    memset(&w, 0, sizeof w);
    w.a = a;
    w.f = f;
    w.dot_sk = -1;
    walk(&w, f->body, "1");
#define TOTAL(x) ((x) ? (x) : "0")
    char *t = arena_printf(a, "dtype %s\nflops_dot %s\nflops_elem %s\nbytes_load %s\nbytes_store %s\n",
                                 w.dot_sk >= 0 ? sk_name((ScalarKind)w.dot_sk) : "f32", TOTAL(w.flops_dot),
                                 TOTAL(w.flops_elem), TOTAL(w.bytes_load), TOTAL(w.bytes_store));
    if (user_flops)
        t = arena_printf(a, "%sflops_user %s\n", t, user_flops);
    if (user_bytes)
        t = arena_printf(a, "%sbytes_user %s\n", t, user_bytes);
    for (int i = 0; i < 256; i++)
        if (w.by_param[i])
            t = arena_printf(a, "%sbytes_a%d %s\n", t, i, TOTAL(w.by_param[i]));
#undef TOTAL
    return w.why ? arena_printf(a, "%sestimate %s", t, w.why) : t; /* the last line, without a newline */
}
