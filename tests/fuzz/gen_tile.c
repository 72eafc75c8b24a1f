/* The program generator (gen_tile.h says what it makes). Generation is top-down and typed, as Csmith's:
 * gt_gx(type, shape) picks a production whose result has that type and shape (a load, an operator, a
 * cast, a reduction that removes an axis the operand has, a dot, a transpose, ...) and generates the
 * operands it needs, so every program is well-typed by construction. Each new node is evaluated at
 * once (gen_tile_ab.c); a node whose constraints fail (a comparison of values that may differ, a log
 * of what may be negative, ...) is dropped and another production is tried. Statements add lets,
 * vars, assignments, if/else, for (run-time and constant bounds, steps, downwards, static), while,
 * break, continue, early return and stores; a fraction of programs also get episodes of
 * overlapping stores, loads back and barriers on an output of their own (gen_tile_mem.c). After
 * generation the whole program is evaluated again, loops iterated as often as they will run, and a
 * program that fails a constraint then is replaced by the next attempt. */
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/gen_tile_internal.h"

/* ---- random numbers (splitmix64) --------------------------------------------------------------- */

static uint64_t rnd(G *g)
{
    uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int gt_ri(G *g, int lo, int hi)
{
    return lo + (int)(rnd(g) % (uint64_t)(hi - lo + 1));
}

bool gt_chance(G *g, int pct)
{
    return gt_ri(g, 0, 99) < pct;
}

/* An index drawn with the given weights. */
int gt_pick_w(G *g, const int *w, int n)
{
    int tot = 0;
    for (int i = 0; i < n; i++)
        tot += w[i];
    if (tot == 0)
        return -1;
    int r = gt_ri(g, 0, tot - 1);
    for (int i = 0; i < n; i++) {
        if (r < w[i])
            return i;
        r -= w[i];
    }
    return n - 1;
}

/* ---- types and shapes -------------------------------------------------------------------------- */

Ty gt_scalar(int dt)
{
    Ty t = {dt, 0, {0, 0, 0, 0}};
    return t;
}

Ty gt_with_dt(Ty t, int dt)
{
    t.dt = dt;
    return t;
}

static bool same_ty(Ty a, Ty b)
{
    if (a.dt != b.dt || a.rank != b.rank)
        return false;
    for (int i = 0; i < a.rank; i++)
        if (a.d[i] != b.d[i])
            return false;
    return true;
}

/* `from` broadcasts to `to` (numpy rules) */
static bool bcastable(Ty from, Ty to)
{
    if (from.rank > to.rank)
        return false;
    for (int i = 0; i < from.rank; i++) {
        int f = from.d[from.rank - 1 - i], t = to.d[to.rank - 1 - i];
        if (f != t && f != 1)
            return false;
    }
    return true;
}

static const int ALL_DT[] = {RK_F32, RK_F16, RK_BF16, RK_I32, RK_I8, RK_I16, RK_I64, RK_U8, RK_U16, RK_U32, RK_U64, RK_F64};
static const int ALL_W[] = {6, 4, 4, 5, 1, 1, 1, 1, 1, 2, 1, 1};
enum { NALL = 12 };

/* Any numeric dtype, by its weight. */
int gt_any_dt(G *g)
{
    return ALL_DT[gt_pick_w(g, ALL_W, NALL)];
}

/* A numeric dtype: mostly the program's palette. */
int gt_pick_dt(G *g)
{
    if (gt_chance(g, 85))
        return g->dts[gt_ri(g, 0, g->ndts - 1)];
    return gt_any_dt(g);
}

static int pick_dim(G *g)
{
    int r = gt_ri(g, 0, 99);
    if (r < 80)
        return g->dims[gt_ri(g, 0, 2)];
    if (r < 90)
        return 1;
    return 1 << gt_ri(g, 0, 7);
}

static void fit(Ty *t)
{
    int lim = t->rank >= 3 ? MAXELEMS / 2 : MAXELEMS;
    while (gt_elems(*t) > lim) {
        int m = 0;
        for (int i = 1; i < t->rank; i++)
            if (t->d[i] > t->d[m])
                m = i;
        t->d[m] /= 2;
    }
}

Ty gt_pick_shape(G *g, int dt)
{
    static const int RW[] = {10, 35, 40, 15};
    Ty t = gt_scalar(dt);
    t.rank = gt_pick_w(g, RW, 4);
    for (int i = 0; i < t.rank; i++)
        t.d[i] = pick_dim(g);
    fit(&t);
    return t;
}

/* A shape that broadcasts to t: t itself, a scalar, t with dimensions of 1, or without leading ones. */
Ty gt_sub_shape(G *g, Ty t)
{
    int r = gt_ri(g, 0, 99);
    if (r < 50 || t.rank == 0)
        return t;
    if (r < 65)
        return gt_scalar(t.dt);
    Ty s = t;
    if (r < 85) {
        for (int i = 0; i < s.rank; i++)
            if (gt_chance(g, 50))
                s.d[i] = 1;
        return s;
    }
    int drop = gt_ri(g, 1, t.rank);
    s.rank = t.rank - drop;
    for (int i = 0; i < s.rank; i++)
        s.d[i] = t.d[i + drop];
    return s;
}

/* ---- nodes, statements, scopes ------------------------------------------------------------------ */

int gt_node(G *g, int op, int sub, Ty t, int k0, int k1, int k2)
{
    if (g->nn >= MAXNODE) {
        g->bad = true;
        return -1;
    }
    Node *n = &g->nodes[g->nn];
    memset(n, 0, sizeof *n);
    n->op = op;
    n->sub = sub;
    n->ty = t;
    n->k[0] = k0;
    n->k[1] = k1;
    n->k[2] = k2;
    n->name = -1;
    return g->nn++;
}

/* Evaluates a new node: its id, or -1 (and the node dropped) when a constraint fails. */
int gt_done(G *g, int id)
{
    if (id < 0)
        return -1;
    Node *n = &g->nodes[id];
    n->size = 1;
    for (int i = 0; i < 3; i++)
        if (n->k[i] >= 0)
            n->size += g->nodes[n->k[i]].name >= 0 ? 1 : g->nodes[n->k[i]].size;
    if (!ab_node(g, id)) {
        if (id == g->nn - 1)
            g->nn--;
        return -1;
    }
    return id;
}

int gt_stmt(G *g, int kind)
{
    if (g->ns >= MAXSTMT) {
        g->bad = true;
        return 0;
    }
    Stmt *s = &g->st[g->ns];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->node = s->var = s->compound = s->harg = s->loopi = s->out = s->idx = s->mask = s->off = -1;
    s->larg = s->sarg = -1;
    s->blk[0] = s->blk[1] = -1;
    return g->ns++;
}

void gt_append(G *g, int b, int s)
{
    if (g->blk[b].n >= MAXBODY) {
        g->bad = true;
        return;
    }
    g->blk[b].st[g->blk[b].n++] = s;
}

/* Binds a node with `let` in the current block (its statement goes before the one being built). */
int gt_let(G *g, int id)
{
    if (id < 0)
        return -1;
    int s = gt_stmt(g, S_LET);
    g->st[s].node = id;
    g->nodes[id].name = g->names++;
    gt_append(g, g->cur, s);
    if (g->navail < MAXAVAIL)
        g->avail[g->navail++] = id;
    return id;
}

/* Scalar arguments a program may still take: 5 (the sequence CI's batch knows), or with rt_loops as
 * many as leave room, within the run harness's 16 parameters, for every buffer still to come. */
int gt_arg_room(const G *g)
{
    if (!g->opt->rt_loops)
        return 5 - g->narg;
    int room = 16 - g->nparams - (MAXIN - g->nin) - (MAXOUT - g->nout);
    return room < MAXARG - g->narg ? room : MAXARG - g->narg;
}

int gt_new_arg(G *g, int dt, double v)
{
    if (gt_arg_room(g) <= 0)
        return -1;
    g->arg[g->narg] = (Arg){dt, v};
    g->params[g->nparams++] = -1 - g->narg;
    return g->narg++;
}

static int arg_node(G *g, int a)
{
    int id = gt_node(g, O_ARG, 0, gt_scalar(g->arg[a].dt), -1, -1, -1);
    if (id >= 0)
        g->nodes[id].a[0] = a;
    return gt_done(g, id);
}

/* A value of a float type on a grid every float type holds exactly: k / 2^j. */
static double grid_value(G *g)
{
    return gt_ri(g, -8, 8) / (double)(1 << gt_ri(g, 0, 3));
}

/* A literal that fits t. */
/* v modulo (the type's largest value + 1), for small non-negative v: a value of type t (the modulus
 * only matters for types narrower than v; 64-bit maxima do not fit an int). */
static int below_max(int v, int t)
{
    double m = gt_max(t) + 1;
    return m < 1e9 ? v % (int)m : v;
}

double gt_lit_value(G *g, int t)
{
    if (gt_float(t))
        return grid_value(g);
    if (t == RK_BOOL)
        return gt_ri(g, 0, 1);
    int r = gt_ri(g, 0, 99);
    if (r < 80)
        return gt_signed(t) ? gt_ri(g, -8, 8) : gt_ri(g, 0, 15);
    if (r < 90)
        return gt_bits(t) > 32 ? gt_max(RK_I32) : gt_max(t);
    return gt_signed(t) ? (gt_bits(t) > 32 ? gt_min(RK_I32) : gt_min(t)) : below_max(gt_ri(g, 16, 200), t);
}

/* A literal operand: takes the other operand's type, t. `typed` prints it as `(v as t)`. */
int gt_lit(G *g, int t, double v, bool typed)
{
    int id = gt_node(g, O_LIT, 0, gt_scalar(t), -1, -1, -1);
    if (id >= 0) {
        g->nodes[id].lit = v;
        g->nodes[id].a[0] = typed;
    }
    return gt_done(g, id);
}

/* ---- expressions -------------------------------------------------------------------------------- */

static int in_buf(G *g, int dt, int elems)
{
    for (int i = 0; i < g->nbuf; i++)
        if (!g->buf[i].out && !g->buf[i].own && g->buf[i].dt == dt && g->buf[i].size >= elems && gt_chance(g, 60))
            return i;
    if (g->nin >= MAXIN || g->nbuf >= MAXBUF) {
        for (int i = 0; i < g->nbuf; i++)
            if (!g->buf[i].out && !g->buf[i].own && g->buf[i].dt == dt && g->buf[i].size >= elems)
                return i;
        return -1;
    }
    Buf *b = &g->buf[g->nbuf];
    memset(b, 0, sizeof *b);
    b->dt = dt;
    b->size = elems;
    b->slots = 1;
    b->tail_arg = -1;
    b->tol = -1;
    int r = gt_ri(g, 0, 99);
    if (gt_float(dt)) {
        static const double R[] = {1, 2, 4, 8, 16};
        b->lo = -R[gt_ri(g, 0, 4)];
        b->hi = gt_chance(g, 80) ? -b->lo : 0.5 * -b->lo;
        int p = dt == RK_BF16 ? 6 : dt == RK_F16 ? 9 : 10; /* hi / q at most 2^p */
        int j = gt_ri(g, 0, 6);
        while (j > 0 && -b->lo * (1 << j) > (1 << p))
            j--;
        b->q = 1.0 / (1 << j);
        b->gen = r < 8 ? 2 : 0;
        if (r >= 8 && r < 16)
            b->q = 0; /* any float in the range: deterministic values off the grid */
    } else {
        b->gen = r < 30 ? 1 : 0;
        if (gt_signed(dt)) {
            static const double L[] = {8, 100, 1000};
            b->hi = L[gt_ri(g, 0, 2)];
            if (b->hi > gt_max(dt))
                b->hi = gt_max(dt);
            b->lo = -b->hi;
        } else {
            b->lo = 0;
            b->hi = gt_chance(g, 50) ? 15 : 255;
        }
        b->q = 1;
    }
    g->params[g->nparams++] = g->nbuf;
    g->nin++;
    return g->nbuf++;
}

/* An index tile over t's shape (values in 0 .. elems - 1), bound by `let`. `store`: bijective only. */
int gt_index_tile(G *g, Ty t, bool store)
{
    Ty it = gt_with_dt(t, RK_I32);
    int pat = P_SCALAR;
    if (t.rank > 0) {
        static const int W[] = {40, 15, 10, 15, 10};
        pat = gt_pick_w(g, W, store ? 4 : 5);
    }
    int id = gt_node(g, O_IDX, pat, it, -1, -1, -1);
    if (id < 0)
        return -1;
    g->nodes[id].a[0] = 0;
    if (pat == P_BCAST) /* the dimensions the index depends on */
        g->nodes[id].a[1] = gt_ri(g, 0, (1 << t.rank) - 1);
    return gt_let(g, gt_done(g, id));
}

/* The innermost enclosing loop, or -1. */
int gt_inner_loop(G *g)
{
    return g->nloops ? g->loops[g->nloops - 1] : -1;
}

/* The innermost enclosing for loop (loads may be indexed by it), or -1. */
int gt_inner_for(G *g)
{
    int l = gt_inner_loop(g);
    return l >= 0 && g->st[l].kind == S_FOR ? l : -1;
}

/* `idx < a` for a new argument a in [0, elems] (the buffer's tail), or -1. */
int gt_tail_mask(G *g, int idx, int elems, int *arg)
{
    *arg = -1;
    int a = gt_new_arg(g, RK_I32, gt_ri(g, 0, elems));
    if (a < 0)
        return -1;
    *arg = a;
    int an = arg_node(g, a);
    return gt_done(g, gt_node(g, O_BIN, B_LT, gt_with_dt(g->nodes[idx].ty, RK_BOOL), idx, an, -1));
}

static int mk_load(G *g, Ty t, int depth, bool det)
{
    if (t.dt == RK_BOOL)
        return -1;
    int elems = gt_elems(t);
    int b = in_buf(g, t.dt, elems);
    if (b < 0)
        return -1;
    int idx = gt_index_tile(g, t, false);
    if (idx < 0)
        return -1;
    int id = gt_node(g, O_LOAD, 0, t, idx, -1, -1);
    if (id < 0)
        return -1;
    Node *n = &g->nodes[id];
    n->a[0] = b;
    n->a[1] = n->a[2] = -1;
    int loop = gt_inner_for(g);
    if (loop >= 0 && !g->st[loop].far && gt_chance(g, 50)) {
        Stmt *l = &g->st[loop];
        int span = g->nodes[l->loopi].a[2] - g->nodes[l->loopi].a[1] + 1;
        n->a[1] = loop;
        if (span > g->buf[b].slots)
            g->buf[b].slots = span;
    }
    if (gt_chance(g, 12)) {
        n->a[2] = gt_new_arg(g, RK_I32, gt_ri(g, 0, 7));
        if (n->a[2] >= 0)
            g->buf[b].padded = true;
    }
    n->a[3] = gt_chance(g, 25); /* multiple_of on the program's offset */
    int mask = -1, tail = -1;
    if (gt_chance(g, 40)) {
        int r = gt_ri(g, 0, 99);
        if (r < 55)
            mask = gt_tail_mask(g, idx, elems, &tail);
        if (r >= 40 || mask < 0) {
            Ty ms = gt_sub_shape(g, gt_with_dt(t, RK_BOOL));
            int m2 = gt_gx(g, ms, depth - 1, true);
            if (m2 >= 0)
                mask = mask >= 0 ? gt_done(g, gt_node(g, O_BIN, B_AND, gt_with_dt(t, RK_BOOL), mask, m2, -1)) : m2;
        }
    }
    Buf *bf = &g->buf[b];
    if (tail >= 0 && mask >= 0 && n->a[2] < 0 && (bf->tail_arg == -1 || bf->tail_arg == tail))
        bf->tail_arg = tail;
    else
        bf->tail_arg = -2;
    int other = -1;
    if (mask >= 0 && gt_chance(g, 60))
        other = gt_chance(g, 50) ? gt_lit(g, t.dt, gt_lit_value(g, t.dt), false) : gt_gx(g, gt_sub_shape(g, t), depth - 1, det);
    /* the operands were made after the node: rebuild it at the end so that it follows them */
    int ld = gt_node(g, O_LOAD, 0, t, idx, mask, other);
    if (ld < 0)
        return -1;
    memcpy(g->nodes[ld].a, g->nodes[id].a, sizeof g->nodes[ld].a);
    if (g->opt->rt_loops && gt_chance(g, 60))
        g->nodes[ld].pform = gt_ri(g, 1, NPF - 1);
    return gt_done(g, ld);
}

static int mk_cmp(G *g, Ty t, int depth);

/* A scalar or tile of type t from nothing: a load, an argument, the program id, a loop index, an
 * arange, full or zeros. */
static int mk_leaf(G *g, Ty t, int depth, bool det)
{
    if (t.dt == RK_BOOL) {
        if (t.rank == 0 && gt_chance(g, 20)) {
            int a = gt_new_arg(g, RK_BOOL, gt_ri(g, 0, 1));
            if (a >= 0)
                return arg_node(g, a);
        }
        if (gt_chance(g, 85)) /* a comparison of leaves */
            return mk_cmp(g, t, 1);
        if (t.rank == 0)
            return gt_lit(g, RK_BOOL, gt_ri(g, 0, 1), true);
        int id = gt_node(g, O_FULL, 0, t, -1, -1, -1);
        if (id >= 0)
            g->nodes[id].lit = gt_ri(g, 0, 1);
        return gt_done(g, id);
    }
    int r = gt_ri(g, 0, 99);
    if (t.rank == 0) {
        if (r < 30) {
            for (int i = 0; i < g->narg; i++)
                if (g->arg[i].dt == t.dt && gt_chance(g, 50))
                    return arg_node(g, i);
            int a = gt_new_arg(g, t.dt, gt_lit_value(g, t.dt));
            if (a >= 0)
                return arg_node(g, a);
        }
        if (r < 50 && t.dt == RK_I32) {
            int loop = gt_inner_for(g);
            if (loop >= 0 && gt_chance(g, 60)) {
                int id = gt_node(g, O_LOOPI, 0, t, -1, -1, -1);
                if (id >= 0)
                    memcpy(g->nodes[id].a, g->nodes[g->st[loop].loopi].a, sizeof g->nodes[id].a);
                return gt_done(g, id);
            }
            return gt_done(g, gt_node(g, O_PID, 0, t, -1, -1, -1));
        }
        if (r < 88)
            return mk_load(g, t, depth, det);
        return gt_lit(g, t.dt, gt_lit_value(g, t.dt), true);
    }
    if (r < 65)
        return mk_load(g, t, depth, det);
    if (r < 78) { /* arange along one axis, broadcast to the shape, cast to t */
        int axis = gt_ri(g, 0, t.rank - 1);
        int id = gt_node(g, O_ARANGE, 0, gt_with_dt(t, RK_I32), -1, -1, -1);
        if (id < 0)
            return -1;
        g->nodes[id].a[0] = gt_chance(g, 70) ? 0 : gt_ri(g, -8, 8);
        g->nodes[id].a[1] = axis;
        id = gt_done(g, id);
        if (id < 0 || t.dt == RK_I32)
            return id;
        return gt_done(g, gt_node(g, O_CAST, 0, t, id, -1, -1));
    }
    if (r < 96) { /* full with a run-time scalar */
        int s = gt_gx(g, gt_scalar(gt_chance(g, 70) ? t.dt : gt_pick_dt(g)), depth - 1, det);
        if (s < 0)
            return -1;
        return gt_done(g, gt_node(g, O_FULL, 0, t, s, -1, -1));
    }
    int id = gt_node(g, r < 98 ? O_ZEROS : O_FULL, 0, t, -1, -1, -1);
    if (id >= 0)
        g->nodes[id].lit = gt_lit_value(g, t.dt);
    return gt_done(g, id);
}

/* An in-scope value of type t (a let or a var), or one that broadcasts to it. */
static int mk_reuse(G *g, Ty t, bool det)
{
    int cand[64], nc = 0;
    for (int i = g->navail - 1; i >= 0 && nc < 64; i--) {
        const Node *n = &g->nodes[g->avail[i]];
        if (n->ty.dt == t.dt && bcastable(n->ty, t) && (!det || n->ab.err == 0) && n->op != O_IDX)
            cand[nc++] = g->avail[i];
    }
    for (int i = 0; i < g->nvscope && nc < 64; i++) {
        int v = g->vscope[i];
        if (g->var[v].ty.dt == t.dt && bcastable(g->var[v].ty, t) && (!det || g->env[v].err == 0))
            cand[nc++] = -1 - v;
    }
    if (nc == 0)
        return -1;
    int w[64];
    for (int i = 0; i < nc; i++) /* prefer what nothing uses yet, so that fewer values are dead */
        w[i] = (cand[i] >= 0 ? g->nodes[cand[i]].uses : g->var[-1 - cand[i]].uses) ? 1 : 4;
    int c = cand[gt_pick_w(g, w, nc)];
    if (c >= 0)
        g->nodes[c].uses++;
    else
        g->var[-1 - c].uses++;
    int id = c;
    if (c < 0) {
        id = gt_node(g, O_VAR, 0, g->var[-1 - c].ty, -1, -1, -1);
        if (id < 0)
            return -1;
        g->nodes[id].a[0] = -1 - c;
        id = gt_done(g, id);
    }
    if (id < 0 || same_ty(g->nodes[id].ty, t))
        return id;
    return gt_done(g, gt_node(g, O_BCAST, 0, t, id, -1, -1));
}

/* A scalar that may be known at compile time (sema folds it). */
bool gt_is_const(G *g, int id)
{
    const Node *n = &g->nodes[id];
    if (n->op == O_VAR) /* a var may hold a constant */
        return true;
    if (n->ty.rank > 0 || n->op == O_LOAD || n->op == O_ARG || n->op == O_PID || n->op == O_RED)
        return false;
    if (n->op == O_LOOPI)
        return n->a[3] != 0; /* a static for's index */
    for (int i = 0; i < 3; i++)
        if (n->k[i] >= 0 && !gt_is_const(g, n->k[i]))
            return false;
    return true;
}

/* A type u != t whose promotion with t is t (for mixed operands), or -1. */
static int partner(G *g, int t)
{
    int c[NALL], n = 0;
    for (int i = 0; i < NALL; i++)
        if (ALL_DT[i] != t && gt_promote(t, ALL_DT[i]) == t)
            c[n++] = ALL_DT[i];
    return n ? c[gt_ri(g, 0, n - 1)] : -1;
}

static int mk_binary(G *g, Ty t, int depth, bool det)
{
    bool fl = gt_float(t.dt);
    int op;
    if (t.dt == RK_BOOL) {
        static const int OPS[] = {B_AND, B_OR, B_XOR, B_LAND, B_LOR};
        op = OPS[gt_ri(g, 0, t.rank == 0 ? 4 : 2)];
    } else if (fl) {
        static const int OPS[] = {B_ADD, B_SUB, B_MUL, B_DIV, B_REM, B_MAX, B_MIN};
        static const int W[] = {25, 20, 25, 10, 4, 8, 8};
        op = OPS[gt_pick_w(g, W, 7)];
    } else {
        static const int W[] = {20, 15, 15, 5, 5, 6, 6, 6, 6, 6, 5, 5};
        op = gt_pick_w(g, W, 12);
    }
    bool need_det = det || (fl && op == B_REM);
    Ty s1 = t, s2 = gt_sub_shape(g, t);
    if (gt_chance(g, 50)) {
        Ty x = s1;
        s1 = s2;
        s2 = x;
    }
    int t1 = t.dt, t2 = t.dt;
    int r = gt_ri(g, 0, 99);
    bool literal = false;
    if (t.dt != RK_BOOL && r < 15) {
        int p = partner(g, t.dt);
        if (p >= 0 && op != B_SHL && op != B_SHR) {
            if (gt_chance(g, 50))
                t1 = p;
            else
                t2 = p;
        }
    } else if (t.dt != RK_BOOL && r < 35 && op != B_LAND && op != B_LOR) {
        literal = true;
    }
    int a, b;
    if (literal) {
        a = gt_gx(g, t, depth - 1, need_det);
        double v = gt_lit_value(g, t.dt);
        if (op == B_SHL || op == B_SHR)
            v = below_max(gt_ri(g, 0, gt_bits(t.dt) + 2), t.dt);
        if ((op == B_DIV || op == B_REM) && v == 0 && gt_chance(g, 80))
            v = 3;
        b = gt_lit(g, t.dt, v, false);
        if (gt_chance(g, 30) && op != B_SHL && op != B_SHR) {
            int x = a;
            a = b;
            b = x;
        }
    } else {
        a = gt_gx(g, gt_with_dt(s1, t1), depth - 1, need_det);
        b = gt_gx(g, gt_with_dt(s2, t2), depth - 1, need_det);
        if (fl && op == B_DIV && b >= 0 && gt_chance(g, 70)) { /* a divisor away from zero: abs(b) + c */
            int ab = gt_done(g, gt_node(g, O_UN, U_ABS, g->nodes[b].ty, b, -1, -1));
            int c = gt_lit(g, t2, gt_chance(g, 50) ? 1.0 : 0.5, false);
            b = ab >= 0 && c >= 0 ? gt_done(g, gt_node(g, O_BIN, B_ADD, g->nodes[b].ty, ab, c, -1)) : -1;
        }
    }
    if (a < 0 || b < 0)
        return -1;
    const Ab *bv = &g->nodes[b].ab;
    if (!fl && (op == B_DIV || op == B_REM) && bv->lo <= 0 && bv->hi >= 0 && gt_is_const(g, a) && gt_is_const(g, b))
        return -1; /* a division by zero between constants is a compile-time error */
    return gt_done(g, gt_node(g, O_BIN, op, t, a, b, -1));
}

static int mk_cmp(G *g, Ty t, int depth)
{
    int op = gt_ri(g, B_EQ, B_GE);
    int u = gt_pick_dt(g), u2 = u;
    if (gt_chance(g, 15)) {
        int p = partner(g, u);
        if (p >= 0)
            u2 = p;
    }
    Ty s1 = gt_with_dt(t, u), s2 = gt_with_dt(gt_sub_shape(g, t), u2);
    int a, b;
    if (gt_chance(g, 25)) {
        a = gt_gx(g, gt_with_dt(t, u), depth - 1, true);
        b = gt_lit(g, u, gt_lit_value(g, u), false);
    } else {
        a = gt_gx(g, s1, depth - 1, true);
        b = gt_gx(g, s2, depth - 1, true);
    }
    if (a < 0 || b < 0)
        return -1;
    if (gt_chance(g, 50))
        return gt_done(g, gt_node(g, O_BIN, op, t, b, a, -1));
    return gt_done(g, gt_node(g, O_BIN, op, t, a, b, -1));
}

static int mk_unary(G *g, Ty t, int depth, bool det)
{
    int op;
    if (t.dt == RK_BOOL)
        op = gt_chance(g, 70) ? U_LNOT : U_NOT;
    else if (gt_float(t.dt))
        op = gt_chance(g, 60) ? U_NEG : U_ABS;
    else
        op = gt_ri(g, 0, 2) == 0 ? U_NEG : gt_chance(g, 50) ? U_NOT : U_ABS;
    int x = gt_gx(g, t, depth - 1, det);
    return x < 0 ? -1 : gt_done(g, gt_node(g, O_UN, op, t, x, -1, -1));
}

/* maximum(minimum(x, c), -c) */
static int clamp(G *g, int x, double c)
{
    Ty t = g->nodes[x].ty;
    int hi = gt_lit(g, t.dt, c, false);
    int a = hi >= 0 ? gt_done(g, gt_node(g, O_BIN, B_MIN, t, x, hi, -1)) : -1;
    int lo = gt_lit(g, t.dt, -c, false);
    return a >= 0 && lo >= 0 ? gt_done(g, gt_node(g, O_BIN, B_MAX, t, a, lo, -1)) : -1;
}

/* abs(x) + c */
int gt_away_from_zero(G *g, int x, double c)
{
    Ty t = g->nodes[x].ty;
    int a = gt_done(g, gt_node(g, O_UN, U_ABS, t, x, -1, -1));
    int l = gt_lit(g, t.dt, c, false);
    return a >= 0 && l >= 0 ? gt_done(g, gt_node(g, O_BIN, B_ADD, t, a, l, -1)) : -1;
}

static int mk_math(G *g, Ty t, int depth, bool det)
{
    static const int OPS[] = {U_EXP, U_EXP2, U_LOG, U_LOG2, U_SQRT, U_RSQRT, U_FLOOR, U_CEIL, U_SIN, U_COS};
    int op = OPS[gt_ri(g, 0, 9)];
    if (det) /* only these keep a deterministic value deterministic */
        op = gt_chance(g, 50) ? U_SQRT : gt_chance(g, 50) ? U_FLOOR : U_CEIL;
    int x = gt_gx(g, t, depth - 1, det || op == U_FLOOR || op == U_CEIL);
    if (x < 0)
        return -1;
    double m = ab_mag(g->nodes[x].ab);
    switch (op) {
    case U_EXP: if (!(m <= 8)) x = clamp(g, x, 8); break;
    case U_EXP2: if (!(m <= 12)) x = clamp(g, x, 12); break;
    case U_SIN: case U_COS: if (!(m <= 16)) x = clamp(g, x, 16); break;
    case U_LOG: case U_LOG2: case U_RSQRT: x = gt_away_from_zero(g, x, gt_chance(g, 50) ? 1.0 : 0.5); break;
    case U_SQRT:
        x = g->nodes[x].ab.err > 0 || gt_chance(g, 30) ? gt_away_from_zero(g, x, 1.0)
                                                  : gt_done(g, gt_node(g, O_UN, U_ABS, t, x, -1, -1));
        break;
    default: break;
    }
    return x < 0 ? -1 : gt_done(g, gt_node(g, O_UN, op, t, x, -1, -1));
}

static int mk_cast(G *g, Ty t, int depth, bool det)
{
    int u = t.dt == RK_BOOL || gt_chance(g, 90) ? gt_pick_dt(g) : RK_BOOL;
    if (u == t.dt)
        u = gt_pick_dt(g);
    if (u == t.dt)
        return -1;
    bool need = gt_float(u) && !gt_float(t.dt); /* float to int or bool: discontinuous */
    int x = gt_gx(g, gt_with_dt(t, u), depth - 1, det || need);
    return x < 0 ? -1 : gt_done(g, gt_node(g, O_CAST, 0, t, x, -1, -1));
}

static int mk_bitcast(G *g, Ty t, int depth)
{
    int c[NALL], n = 0;
    for (int i = 0; i < NALL; i++)
        if (ALL_DT[i] != t.dt && gt_bits(ALL_DT[i]) == gt_bits(t.dt))
            c[n++] = ALL_DT[i];
    if (n == 0)
        return -1;
    int u = c[gt_ri(g, 0, n - 1)];
    int x = gt_gx(g, gt_with_dt(t, u), depth - 1, true);
    return x < 0 ? -1 : gt_done(g, gt_node(g, O_BITCAST, 0, t, x, -1, -1));
}

static int mk_where(G *g, Ty t, int depth, bool det)
{
    int c = gt_gx(g, gt_sub_shape(g, gt_with_dt(t, RK_BOOL)), depth - 1, true);
    int a = gt_gx(g, t, depth - 1, det);
    int b = gt_chance(g, 25) ? gt_lit(g, t.dt, gt_lit_value(g, t.dt), false) : gt_gx(g, gt_sub_shape(g, t), depth - 1, det);
    if (c < 0 || a < 0 || b < 0)
        return -1;
    return gt_chance(g, 50) ? gt_done(g, gt_node(g, O_WHERE, 0, t, c, a, b)) : gt_done(g, gt_node(g, O_WHERE, 0, t, c, b, a));
}

static int mk_fma(G *g, Ty t, int depth, bool det)
{
    int full = gt_ri(g, 0, 2), k[3];
    for (int i = 0; i < 3; i++)
        if ((k[i] = gt_gx(g, i == full ? t : gt_sub_shape(g, t), depth - 1, det)) < 0)
            return -1;
    return gt_done(g, gt_node(g, O_FMA, 0, t, k[0], k[1], k[2]));
}

/* A reduction whose result has type t: the operand has one more axis (or t's axis of 1 is longer, with
 * keepdims), or any shape when t is a scalar. */
static int mk_red(G *g, Ty t, int depth, bool det)
{
    int kinds[5], nk = 0;
    int su[4], ns = 0;
    for (int i = 0; i < NALL; i++)
        if (gt_sum_type(ALL_DT[i]) == t.dt)
            su[ns++] = ALL_DT[i];
    if (t.dt == RK_I32)
        su[ns++] = RK_BOOL;
    if (ns)
        kinds[nk++] = R_SUM, kinds[nk++] = R_SUM;
    kinds[nk++] = R_MAX;
    kinds[nk++] = R_MIN;
    if (t.dt == RK_I32)
        kinds[nk++] = gt_chance(g, 50) ? R_ARGMAX : R_ARGMIN;
    int kind = kinds[gt_ri(g, 0, nk - 1)];
    int u = kind == R_SUM ? su[gt_ri(g, 0, ns - 1)] : kind == R_MAX || kind == R_MIN ? t.dt : gt_pick_dt(g);
    Ty o = gt_with_dt(t, u);
    int axis = -1, keep = 0;
    int ones[4], n1 = 0;
    for (int i = 0; i < t.rank; i++)
        if (t.d[i] == 1)
            ones[n1++] = i;
    int mode = gt_ri(g, 0, 99);
    if (t.rank == 0) {
        o = gt_pick_shape(g, u);
        if (o.rank == 0) {
            o.rank = 1;
            o.d[0] = pick_dim(g);
        }
    } else if (n1 == t.rank && mode < 30) { /* every axis, keepdims */
        for (int i = 0; i < t.rank; i++)
            o.d[i] = pick_dim(g);
        keep = 1;
    } else if (n1 > 0 && mode < 60) {
        axis = ones[gt_ri(g, 0, n1 - 1)];
        o.d[axis] = pick_dim(g);
        keep = 1;
    } else if (t.rank < 4) {
        axis = gt_ri(g, 0, t.rank);
        for (int i = t.rank; i > axis; i--)
            o.d[i] = o.d[i - 1];
        o.d[axis] = pick_dim(g);
        o.rank++;
    } else {
        return -1;
    }
    if (gt_elems(o) > (o.rank >= 3 ? MAXELEMS / 2 : MAXELEMS))
        return -1;
    int x = gt_gx(g, o, depth - 1, det || kind >= R_ARGMAX);
    if (x < 0)
        return -1;
    int id = gt_node(g, O_RED, kind, t, x, -1, -1);
    if (id >= 0) {
        g->nodes[id].a[0] = axis;
        g->nodes[id].a[1] = keep;
        g->nodes[id].a[2] = gt_chance(g, 25); /* spell the axis negatively */
        g->nodes[id].a[3] = gt_chance(g, 25); /* by name */
    }
    return gt_done(g, id);
}

static int mk_cumsum(G *g, Ty t, int depth, bool det)
{
    int su[4], ns = 0;
    for (int i = 0; i < NALL; i++)
        if (gt_sum_type(ALL_DT[i]) == t.dt)
            su[ns++] = ALL_DT[i];
    if (ns == 0 || t.rank == 0)
        return -1;
    int x = gt_gx(g, gt_with_dt(t, su[gt_ri(g, 0, ns - 1)]), depth - 1, det);
    if (x < 0)
        return -1;
    int id = gt_node(g, O_CUMSUM, 0, t, x, -1, -1);
    if (id >= 0) {
        int axis = gt_ri(g, 0, t.rank - 1);
        g->nodes[id].a[0] = axis == t.rank - 1 && gt_chance(g, 40) ? -1 : axis;
        g->nodes[id].a[1] = gt_chance(g, 30); /* reverse */
        g->nodes[id].a[2] = gt_chance(g, 30); /* exclusive */
    }
    return gt_done(g, id);
}

static int mk_dot(G *g, Ty t, int depth, bool det)
{
    int u;
    if (t.dt == RK_F32) {
        static const int U[] = {RK_F16, RK_BF16, RK_F32};
        u = U[gt_ri(g, 0, 2)];
    } else {
        u = t.dt == RK_I32 ? RK_I8 : RK_F64;
    }
    static const int KS[] = {16, 32, 64};
    int m = t.d[0], n = t.d[1], k = KS[gt_ri(g, 0, 2)];
    while (k > 16 && (m * k > MAXELEMS || k * n > MAXELEMS))
        k /= 2;
    if (m * k > MAXELEMS || k * n > MAXELEMS)
        return -1;
    Ty ta = {u, 2, {m, k, 0, 0}}, tb = {u, 2, {k, n, 0, 0}};
    int a = gt_gx(g, ta, depth - 1, det), b = gt_gx(g, tb, depth - 1, det);
    int acc = gt_chance(g, 40) ? gt_gx(g, t, depth - 1, det) : -1;
    if (a < 0 || b < 0)
        return -1;
    int id = gt_node(g, O_DOT, 0, t, a, b, acc);
    if (id >= 0)
        g->nodes[id].a[0] = u == RK_F32 && gt_chance(g, 20);
    return gt_done(g, id);
}

static int mk_shape(G *g, Ty t, int depth, bool det)
{
    int ones[4], n1 = 0;
    for (int i = 0; i < t.rank; i++)
        if (t.d[i] == 1)
            ones[n1++] = i;
    int w[5] = {t.rank == 2 ? 3 : 0, t.rank >= 2 && t.rank <= 3 ? 2 : 0, 2, n1 ? 3 : 0, 3};
    int kind = gt_pick_w(g, w, 5);
    Ty o = t;
    int id = -1, x;
    switch (kind) {
    case 0: /* trans */
        o.d[0] = t.d[1];
        o.d[1] = t.d[0];
        if ((x = gt_gx(g, o, depth - 1, det)) < 0)
            return -1;
        return gt_done(g, gt_node(g, O_TRANS, 0, t, x, -1, -1));
    case 1: { /* permute */
        int p[4] = {0, 1, 2, 3};
        for (int i = t.rank - 1; i > 0; i--) {
            int j = gt_ri(g, 0, i), s = p[i];
            p[i] = p[j];
            p[j] = s;
        }
        for (int i = 0; i < t.rank; i++)
            o.d[p[i]] = t.d[i];
        if ((x = gt_gx(g, o, depth - 1, det)) < 0)
            return -1;
        if ((id = gt_node(g, O_PERMUTE, 0, t, x, -1, -1)) >= 0)
            memcpy(g->nodes[id].a, p, sizeof p);
        return gt_done(g, id);
    }
    case 2: { /* reshape from another factorisation of the element count */
        int e = gt_elems(t), bits = 0;
        while ((1 << bits) < e)
            bits++;
        o.rank = gt_ri(g, 1, 3);
        for (int i = 0; i < o.rank; i++)
            o.d[i] = 1;
        for (int b = 0; b < bits; b++)
            o.d[gt_ri(g, 0, o.rank - 1)] *= 2;
        if ((x = gt_gx(g, o, depth - 1, det)) < 0)
            return -1;
        return gt_done(g, gt_node(g, O_RESHAPE, 0, t, x, -1, -1));
    }
    case 3: { /* expand_dims / x[:, None] */
        int axis = ones[gt_ri(g, 0, n1 - 1)];
        for (int i = axis; i < t.rank - 1; i++)
            o.d[i] = t.d[i + 1];
        o.rank--;
        if ((x = gt_gx(g, o, depth - 1, det)) < 0)
            return -1;
        if ((id = gt_node(g, O_EXPAND, 0, t, x, -1, -1)) >= 0) {
            g->nodes[id].a[0] = axis;
            g->nodes[id].a[1] = o.rank == 0 || gt_chance(g, 60);
        }
        return gt_done(g, id);
    }
    default: /* broadcast_to */
        for (int i = 0; i < 3 && same_ty(o, t); i++)
            o = gt_sub_shape(g, t);
        if (same_ty(o, t) || (x = gt_gx(g, o, depth - 1, det)) < 0)
            return -1;
        return gt_done(g, gt_node(g, O_BCAST, 0, t, x, -1, -1));
    }
}

enum { PR_REUSE, PR_LEAF, PR_BIN, PR_CMP, PR_UN, PR_MATH, PR_CAST, PR_BITCAST, PR_WHERE, PR_FMA, PR_RED, PR_CUMSUM,
       PR_DOT, PR_SHAPE, NPR };

/* An expression of type t, at most `depth` operators deep; deterministic (err 0) when det. */
int gt_gx(G *g, Ty t, int depth, bool det)
{
    bool fl = gt_float(t.dt), bo = t.dt == RK_BOOL;
    for (int attempt = 0; attempt < 8 && !g->bad; attempt++) {
        int w[NPR] = {0};
        w[PR_REUSE] = 20;
        w[PR_LEAF] = depth <= 0 ? 50 : 12;
        if (depth > 0) {
            w[PR_BIN] = bo ? 10 : 30;
            w[PR_CMP] = bo ? 35 : 0;
            w[PR_UN] = 6;
            w[PR_MATH] = fl ? 8 : 0;
            w[PR_CAST] = 8;
            w[PR_BITCAST] = bo ? 0 : 2;
            w[PR_WHERE] = 5;
            w[PR_FMA] = fl ? 3 : 0;
            w[PR_RED] = bo ? 0 : 8;
            w[PR_CUMSUM] = !bo && t.rank > 0 ? 3 : 0;
            w[PR_DOT] = t.rank == 2 && t.d[0] >= 16 && t.d[1] >= 16 &&
                                (t.dt == RK_F32 || t.dt == RK_I32 || t.dt == RK_F64)
                            ? 30
                            : 0;
            w[PR_SHAPE] = t.rank > 0 ? 8 : 0;
        }
        int id = -1;
        switch (gt_pick_w(g, w, NPR)) {
        case PR_REUSE: id = mk_reuse(g, t, det); break;
        case PR_LEAF: id = mk_leaf(g, t, depth, det); break;
        case PR_BIN: id = mk_binary(g, t, depth, det); break;
        case PR_CMP: id = mk_cmp(g, t, depth); break;
        case PR_UN: id = mk_unary(g, t, depth, det); break;
        case PR_MATH: id = mk_math(g, t, depth, det); break;
        case PR_CAST: id = mk_cast(g, t, depth, det); break;
        case PR_BITCAST: id = mk_bitcast(g, t, depth); break;
        case PR_WHERE: id = mk_where(g, t, depth, det); break;
        case PR_FMA: id = mk_fma(g, t, depth, det); break;
        case PR_RED: id = mk_red(g, t, depth, det); break;
        case PR_CUMSUM: id = mk_cumsum(g, t, depth, det); break;
        case PR_DOT: id = mk_dot(g, t, depth, det); break;
        default: id = mk_shape(g, t, depth, det); break;
        }
        if (id >= 0 && (!det || g->nodes[id].ab.err == 0))
            return id;
    }
    if (t.rank == 0)
        return gt_lit(g, t.dt, gt_lit_value(g, t.dt), true);
    int id = gt_node(g, O_FULL, 0, t, -1, -1, -1);
    if (id >= 0)
        g->nodes[id].lit = gt_lit_value(g, t.dt);
    return gt_done(g, id);
}

