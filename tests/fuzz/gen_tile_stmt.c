/* The program generator's statements (gen_tile.c makes the expressions, gt_gx): lets, vars and
 * assignments, if/else, for (run-time and constant bounds, steps, downwards, static) and while loops
 * with break, continue and early return, stores to the outputs, and the whole program's top level
 * (gen_all, gen_tile_program). Loops get trip counts that the evaluator (gen_tile_ab.c) iterates as
 * often as they will run, including bounds far from zero that test wrap-around. */
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/gen_tile_internal.h"

/* ---- statements -------------------------------------------------------------------------------- */

/* A new block, or block 0 with g->bad set when there is no room. */
static int block(G *g)
{
    if (g->nb >= MAXBLK) {
        g->bad = true;
        return 0;
    }
    g->blk[g->nb].n = 0;
    return g->nb++;
}

static void gen_block(G *g, int b, int n, int nest);

/* A scalar bool condition, the same for the whole program. */
static int gen_cond(G *g)
{
    int r = gt_ri(g, 0, 99);
    Ty i32 = gt_scalar(RK_I32), b = gt_scalar(RK_BOOL);
    int loop = gt_inner_for(g);
    if (r < 30) {
        int p = gt_done(g, gt_node(g, O_PID, 0, i32, -1, -1, -1));
        int m = gt_lit(g, RK_I32, gt_ri(g, 2, 3), false);
        int rem = p >= 0 && m >= 0 ? gt_done(g, gt_node(g, O_BIN, B_REM, i32, p, m, -1)) : -1;
        int k = gt_lit(g, RK_I32, gt_ri(g, 0, 1), false);
        return rem >= 0 && k >= 0 ? gt_done(g, gt_node(g, O_BIN, gt_chance(g, 50) ? B_EQ : B_NE, b, rem, k, -1)) : -1;
    }
    if (r < 55 && loop >= 0) {
        const Node *li = &g->nodes[g->st[loop].loopi];
        int i = gt_done(g, gt_node(g, O_LOOPI, 0, i32, -1, -1, -1));
        if (i < 0)
            return -1;
        memcpy(g->nodes[i].a, li->a, sizeof li->a);
        int k = gt_lit(g, RK_I32, gt_ri(g, li->a[1], li->a[2]), false);
        static const int OPS[] = {B_EQ, B_NE, B_LT, B_GE};
        return k >= 0 ? gt_done(g, gt_node(g, O_BIN, OPS[gt_ri(g, 0, 3)], b, i, k, -1)) : -1;
    }
    return gt_gx(g, b, 3, true);
}

/* A shape a dot can produce: [M, N] with M, N >= 16, of f32, i32 or f64. */
static Ty dot_shape(G *g)
{
    static const int D[] = {16, 32, 64};
    Ty t = {gt_chance(g, 70) ? RK_F32 : gt_chance(g, 70) ? RK_I32 : RK_F64, 2, {D[gt_ri(g, 0, 2)], D[gt_ri(g, 0, 2)], 0, 0}};
    return t;
}

/* The type of a new let or var: mostly from the palette, sometimes a dot's or a bool. */
static Ty pick_ty(G *g)
{
    int r = gt_ri(g, 0, 99);
    return r < 8 ? gt_pick_shape(g, RK_BOOL) : r < 22 ? dot_shape(g) : gt_pick_shape(g, gt_pick_dt(g));
}

static void gen_let(G *g)
{
    Ty t = pick_ty(g);
    int id = gt_gx(g, t, gt_ri(g, 1, 4), false);
    if (id < 0 || g->nodes[id].name >= 0)
        return;
    int op = g->nodes[id].op;
    if (op == O_VAR || op == O_LIT || op == O_ARG || op == O_PID || op == O_LOOPI)
        return;
    gt_let(g, id);
}

static void gen_var(G *g)
{
    if (g->nvar >= MAXVAR)
        return;
    Ty t = pick_ty(g);
    int id = gt_gx(g, t, gt_ri(g, 1, 3), false);
    if (id < 0)
        return;
    int v = g->nvar++;
    g->var[v].ty = t;
    int s = gt_stmt(g, S_VAR);
    g->st[s].node = id;
    g->st[s].var = v;
    gt_append(g, g->cur, s);
    g->env[v] = g->nodes[id].ab;
    g->vscope[g->nvscope++] = v;
}

static void gen_assign(G *g, int v)
{
    Ty t = g->var[v].ty;
    int id, compound = -1;
    if (t.dt != RK_BOOL && gt_chance(g, 40)) {
        static const int FOPS[] = {B_ADD, B_SUB, B_MUL, B_ADD, B_DIV};
        static const int IOPS[] = {B_ADD, B_SUB, B_MUL, B_AND, B_OR, B_XOR, B_SHL, B_SHR, B_DIV, B_REM};
        int op = gt_float(t.dt) ? FOPS[gt_ri(g, 0, 4)] : IOPS[gt_ri(g, 0, 9)];
        int vr = gt_node(g, O_VAR, 0, t, -1, -1, -1);
        if (vr < 0)
            return;
        g->nodes[vr].a[0] = v;
        vr = gt_done(g, vr);
        int e = gt_chance(g, 30) ? gt_lit(g, t.dt, op == B_SHL || op == B_SHR ? gt_ri(g, 0, 3) : gt_lit_value(g, t.dt), false)
                              : gt_gx(g, gt_sub_shape(g, t), gt_ri(g, 0, 2), false);
        if (e >= 0 && op == B_DIV && gt_float(t.dt))
            e = gt_away_from_zero(g, e, 1.0);
        if (vr < 0 || e < 0)
            return;
        const Ab *ev = &g->nodes[e].ab;
        if ((op == B_DIV || op == B_REM) && !gt_float(t.dt) && ev->lo <= 0 && ev->hi >= 0 && gt_is_const(g, e))
            return; /* the var may be a constant too: a compile-time division by zero */
        id = gt_done(g, gt_node(g, O_BIN, op, t, vr, e, -1));
        compound = op;
    } else {
        id = gt_gx(g, t, gt_ri(g, 1, 3), false);
    }
    if (id < 0)
        return;
    int s = gt_stmt(g, S_ASSIGN);
    g->st[s].node = id;
    g->st[s].var = v;
    g->st[s].compound = compound;
    gt_append(g, g->cur, s);
    if (!ab_stmt(g, s))
        g->bad = true;
}

typedef struct Scope {
    int navail, nvscope, cur;
    Ab env[MAXVAR];
} Scope;

static void enter(G *g, Scope *sc)
{
    sc->navail = g->navail;
    sc->nvscope = g->nvscope;
    sc->cur = g->cur;
    memcpy(sc->env, g->env, sizeof sc->env);
}

static void leave(G *g, const Scope *sc)
{
    g->navail = sc->navail;
    g->nvscope = sc->nvscope;
    g->cur = sc->cur;
    memcpy(g->env, sc->env, sizeof sc->env);
}

/* The statement s, made while generating, joins the current block; its effect on the vars is
 * evaluated again as a whole. */
static void finish(G *g, const Scope *sc, int s)
{
    leave(g, sc);
    gt_append(g, g->cur, s);
    if (!ab_stmt(g, s))
        g->bad = true;
}

static void gen_if(G *g, int nest)
{
    int c = gen_cond(g);
    if (c < 0)
        return;
    int s = gt_stmt(g, S_IF);
    g->st[s].node = c;
    Scope sc;
    enter(g, &sc);
    g->st[s].blk[0] = block(g);
    gen_block(g, g->st[s].blk[0], gt_ri(g, 1, 3), nest + 1);
    leave(g, &sc);
    if (gt_chance(g, 50)) {
        g->st[s].blk[1] = block(g);
        gen_block(g, g->st[s].blk[1], gt_ri(g, 1, 3), nest + 1);
    }
    finish(g, &sc, s);
}

/* An `if cond { break; }`, `continue` or `return`. */
static void gen_jump(G *g, int kind)
{
    int c = gen_cond(g);
    if (c < 0)
        return;
    int s = gt_stmt(g, S_IF);
    g->st[s].node = c;
    g->st[s].blk[0] = block(g);
    gt_append(g, g->st[s].blk[0], gt_stmt(g, kind));
    gt_append(g, g->cur, s);
    if (!ab_stmt(g, s))
        g->bad = true;
}

static bool has_assign(G *g, int b)
{
    for (int i = 0; i < g->blk[b].n; i++)
        if (g->st[g->blk[b].st[i]].kind == S_ASSIGN)
            return true;
    return false;
}

/* A range of `trips` values lo, lo + step, ... inside i32 and a bound hi that ends it there (the last
 * value below hi counting up, above it counting down; with trips 0, hi on the wrong side of lo or a
 * step of 0), placed next to INT32_MAX, next to INT32_MIN, around 0 or anywhere. A while loop's counter
 * must also hold lo + trips * step, the value that ends it. */
static void far_range(G *g, int trips, bool is_while, int64_t *lo, int64_t *hi, int64_t *step)
{
    static const int64_t STEPS[] = {1, 2, 3, 7, 100, 65536, 1 << 30};
    const int64_t MIN = INT32_MIN, MAX = INT32_MAX;
    int64_t s = STEPS[gt_ri(g, 0, 6)];
    if (!is_while && trips == 0 && gt_chance(g, 30))
        s = 0;
    if (gt_chance(g, 40))
        s = -s;
    int64_t n = is_while ? trips : (trips > 0 ? trips - 1 : 0); /* steps the counter takes */
    /* a for loop counting up needs its last value below hi <= INT32_MAX (down: above hi >= INT32_MIN) */
    int64_t room = !is_while && trips > 0 ? 1 : 0;
    int64_t span = n * (s < 0 ? -s : s) + room;
    int64_t first = s >= 0 ? MIN : MIN + span, last = s >= 0 ? MAX - span : MAX; /* lo's range */
    if (first > last) { /* the steps do not fit: steps of 1 */
        s = 1;
        first = MIN;
        last = MAX - n - room;
    }
    int mode = gt_ri(g, 0, 3);
    int64_t l = mode == 0 ? last - gt_ri(g, 0, 50) : mode == 1 ? first + gt_ri(g, 0, 50)
              : mode == 2 ? gt_ri(g, -50, 50) : first + (int64_t)((double)(last - first) * gt_ri(g, 0, 1000) / 1000);
    l = l < first ? first : l > last ? last : l;
    int64_t end = l + n * s; /* a while loop's counter after the last iteration; a for loop's last value */
    int64_t h;
    if (trips == 0 || s == 0) { /* hi on the wrong side (or anywhere with a step of 0) */
        int64_t a = s > 0 ? MIN : l, b = s > 0 ? l : MAX;
        if (s == 0)
            a = MIN, b = MAX;
        h = a + (int64_t)((double)(b - a) * gt_ri(g, 0, 1000) / 1000);
        if (gt_chance(g, 30))
            h = l;
    } else if (is_while) { /* the counter stops at end: hi in (end - step, end] counting up */
        int64_t a = s > 0 ? end - s + 1 : end, b = s > 0 ? end : end - s - 1;
        h = gt_chance(g, 50) ? (s > 0 ? b : a) : a + (int64_t)((double)(b - a) * gt_ri(g, 0, 1000) / 1000);
    } else { /* the for loop's last value is end: hi in (end, end + step] counting up, clipped to i32 */
        int64_t a = s > 0 ? end + 1 : end + s, b = s > 0 ? end + s : end - 1;
        a = a < MIN ? MIN : a;
        b = b > MAX ? MAX : b;
        h = gt_chance(g, 50) ? (s > 0 ? b : a) : a + (int64_t)((double)(b - a) * gt_ri(g, 0, 1000) / 1000);
    }
    *lo = l;
    *hi = h;
    *step = s;
}

/* The values of a far loop's index, in order; their number. */
static int far_values(int64_t lo, int64_t hi, int64_t step, int *vals)
{
    int n = 0;
    if (step == 0)
        return 0;
    for (int64_t i = lo; step > 0 ? i < hi : i > hi; i += step) {
        if (n == 16)
            break;
        vals[n++] = (int)i;
        if (i + step > INT32_MAX || i + step < INT32_MIN)
            break;
    }
    return n;
}

static void gen_loop(G *g, int nest, bool is_while)
{
    if (g->nvscope == 0 || gt_chance(g, 50))
        gen_var(g);
    int outer_vars = g->nvscope;
    int s = gt_stmt(g, is_while ? S_WHILE : S_FOR);
    Stmt *l = &g->st[s];
    int vals[16], nv = 0;
    bool far = false;
    if (g->opt->rt_loops && gt_arg_room(g) >= 3 && gt_chance(g, 50)) {
        int64_t lo, hi, step;
        int trips = gt_ri(g, 0, 4);
        far_range(g, trips, is_while, &lo, &hi, &step);
        l->far = far = true;
        l->lo = (int)lo;
        l->hi = (int)hi;
        l->step = (int)step;
        l->larg = gt_new_arg(g, RK_I32, (double)lo);
        l->harg = gt_new_arg(g, RK_I32, (double)hi);
        l->sarg = gt_new_arg(g, RK_I32, (double)step);
        if (is_while) {
            l->trips = step == 0 ? 0 : trips;
        } else {
            nv = far_values(lo, hi, step, vals);
            l->trips = nv;
        }
    }
    if (far) {
    } else if (is_while) {
        int v = gt_ri(g, 0, 4);
        l->harg = gt_new_arg(g, RK_I32, v);
        l->hi = v;
        l->trips = v;
    } else {
        int kind = gt_ri(g, 0, 99);
        l->step = 1;
        if (kind < 35) {
            l->lo = 0;
            l->hi = gt_ri(g, 0, 4);
            l->harg = gt_new_arg(g, RK_I32, l->hi);
        } else if (kind < 55) {
            l->lo = gt_ri(g, 0, 2);
            l->hi = l->lo + gt_ri(g, 0, 4);
        } else if (kind < 70) {
            l->lo = 0;
            l->hi = gt_ri(g, 0, 6);
            l->step = gt_ri(g, 2, 3);
            l->harg = gt_new_arg(g, RK_I32, l->hi);
        } else if (kind < 85) { /* downwards: hi .. 0 step -1 */
            l->lo = gt_ri(g, 0, 4);
            l->hi = 0;
            l->step = -1;
            l->harg = gt_new_arg(g, RK_I32, l->lo);
        } else {
            l->is_static = true;
            l->lo = 0;
            l->hi = gt_ri(g, 1, 4);
        }
        for (int i = l->lo; l->step > 0 ? i < l->hi : i > l->hi; i += l->step)
            vals[nv++] = i;
        l->trips = nv;
    }
    if (!is_while) {
        int lo = nv ? vals[0] : 0, hi = nv ? vals[0] : 0;
        for (int i = 0; i < nv; i++) {
            lo = vals[i] < lo ? vals[i] : lo;
            hi = vals[i] > hi ? vals[i] : hi;
        }
        int li = gt_node(g, O_LOOPI, 0, gt_scalar(RK_I32), -1, -1, -1);
        if (li < 0)
            return;
        g->nodes[li].a[0] = s;
        g->nodes[li].a[1] = lo;
        g->nodes[li].a[2] = hi;
        g->nodes[li].a[3] = l->is_static;
        l->loopi = gt_done(g, li);
    }
    Scope sc;
    enter(g, &sc);
    bool jm = g->join_mode;
    g->join_mode = true;
    g->loops[g->nloops++] = s;
    g->st[s].blk[0] = block(g);
    int body = g->st[s].blk[0];
    gen_block(g, body, gt_ri(g, 1, 4), nest + 1);
    if (outer_vars > 0 && !has_assign(g, body) && !g->bad) {
        g->cur = body;
        gen_assign(g, g->vscope[gt_ri(g, 0, outer_vars - 1)]);
    }
    g->nloops--;
    g->join_mode = jm;
    finish(g, &sc, s);
}

int gt_new_out(G *g, int dt, int size)
{
    if (g->nout >= MAXOUT || g->nbuf >= MAXBUF)
        return -1;
    Buf *b = &g->buf[g->nbuf];
    memset(b, 0, sizeof *b);
    b->dt = dt;
    b->out = true;
    b->size = size;
    b->slots = 1;
    b->tol = -1;
    b->tail_arg = -1;
    g->params[g->nparams++] = g->nbuf;
    g->nout++;
    return g->nbuf++;
}

static void gen_store(G *g, int val)
{
    if (val < 0)
        return;
    /* A store in a static for is a store per unrolled iteration, each with a layout of its own: in a
     * program of several waves the next iteration's store of an element may be another wave's, a race
     * unless a barrier comes between (docs/language.md, "Memory order"). A store in a run-time loop is
     * one operation, each element stored by the same lane every iteration. */
    bool unrolled = false;
    for (int i = 0; i < g->nloops; i++)
        unrolled |= g->st[g->loops[i]].is_static;
    unrolled &= g->warps > 1;
    if (unrolled && g->opt->no_barrier)
        return;
    Ty t = g->nodes[val].ty;
    int dt = t.dt == RK_BOOL ? (gt_chance(g, 50) ? RK_I8 : RK_U8) : t.dt;
    if (gt_chance(g, 12)) {
        int u = gt_pick_dt(g);
        if (!(gt_float(t.dt) && !gt_float(u) && g->nodes[val].ab.err > 0))
            dt = u;
    }
    int b = gt_new_out(g, dt, gt_elems(t));
    if (b < 0)
        return;
    int idx = gt_index_tile(g, t, true);
    if (idx < 0)
        return;
    int mask = -1, tail = -1;
    if (t.rank > 0 && gt_chance(g, 30)) {
        if (gt_chance(g, 50))
            mask = gt_tail_mask(g, idx, gt_elems(t), &tail);
        else
            mask = gt_gx(g, gt_sub_shape(g, gt_with_dt(t, RK_BOOL)), 2, true);
    }
    int s = gt_stmt(g, S_STORE);
    Stmt *st = &g->st[s];
    st->node = val;
    st->out = b;
    st->idx = idx;
    st->mask = mask;
    if (gt_chance(g, 10) && (st->off = gt_new_arg(g, RK_I32, gt_ri(g, 0, 7))) >= 0)
        g->buf[b].padded = true;
    if (g->opt->rt_loops && gt_chance(g, 60))
        st->pform = gt_ri(g, 1, NPF - 1);
    Buf *bf = &g->buf[b];
    bf->tail_arg = tail >= 0 && mask >= 0 && st->off < 0 ? tail : -2;
    if (unrolled)
        gt_append(g, g->cur, gt_stmt(g, S_BARRIER));
    gt_append(g, g->cur, s);
    if (!ab_stmt(g, s))
        g->blk[g->cur].n--;
}

/* A value in scope to store: preferably a large one that nothing uses yet. */
static int pick_value(G *g)
{
    int cand[MAXAVAIL + MAXVAR], w[MAXAVAIL + MAXVAR], n = 0;
    for (int i = 0; i < g->navail; i++) {
        const Node *x = &g->nodes[g->avail[i]];
        if (x->op == O_IDX)
            continue;
        cand[n] = g->avail[i];
        w[n++] = (x->uses ? 1 : 4) * (x->size < 20 ? x->size : 20);
    }
    for (int i = 0; i < g->nvscope; i++) {
        cand[n] = -1 - g->vscope[i];
        w[n++] = g->var[g->vscope[i]].uses ? 8 : 24;
    }
    if (n == 0)
        return -1;
    int c = cand[gt_pick_w(g, w, n)];
    if (c >= 0) {
        g->nodes[c].uses++;
        return c;
    }
    g->var[-1 - c].uses++;
    int id = gt_node(g, O_VAR, 0, g->var[-1 - c].ty, -1, -1, -1);
    if (id >= 0)
        g->nodes[id].a[0] = -1 - c;
    return gt_done(g, id);
}

/* A pointer walk (rt_loops): a loop of a run-time number of trips carries a pointer into an input of
 * its own, loading a slot and stepping the pointer by a slot each trip (forwards or backwards, by a
 * literal or a run-time step, in a for or a while, maybe broken off at a run-time index), summing the
 * slots into an output of its own: i32 values in [-1000, 1000], so the sum is exact. */
static void gen_pwalk(G *g)
{
    bool unrolled = false;
    for (int i = 0; i < g->nloops; i++)
        unrolled |= g->st[g->loops[i]].is_static;
    if ((unrolled && g->warps > 1) || gt_arg_room(g) < 3 || g->nin >= MAXIN || g->nout >= MAXOUT - 1 ||
        g->nbuf >= MAXBUF - 1)
        return;
    static const int N[] = {1, 16, 64, 256};
    int n = N[gt_ri(g, 0, 3)], trips = gt_ri(g, 0, 4);
    Buf *b = &g->buf[g->nbuf];
    memset(b, 0, sizeof *b);
    b->dt = RK_I32;
    b->size = n;
    b->slots = trips > 0 ? trips : 1;
    b->tail_arg = -1;
    b->tol = -1;
    b->lo = -1000;
    b->hi = 1000;
    b->q = 1;
    b->own = true;
    g->params[g->nparams++] = g->nbuf;
    g->nin++;
    int in = g->nbuf++;
    int out = gt_new_out(g, RK_I32, n);
    if (out < 0)
        return;
    g->buf[out].tol = 0;
    g->buf[out].cont_set = true;
    g->buf[out].cont = (Ab){-1000.0 * 4, 1000.0 * 4, 0, 1, false};
    int s = gt_stmt(g, S_PWALK);
    Stmt *w = &g->st[s];
    w->idx = in;
    w->out = out;
    w->lo = n;
    w->step = gt_chance(g, 30) ? -1 : 1;
    w->is_static = gt_chance(g, 30); /* a while */
    w->harg = gt_new_arg(g, RK_I32, trips);
    w->sarg = gt_chance(g, 50) ? gt_new_arg(g, RK_I32, w->step * n) : -1;
    w->larg = !w->is_static && gt_chance(g, 30) ? gt_new_arg(g, RK_I32, gt_ri(g, 0, trips)) : -1;
    gt_append(g, g->cur, s);
}

static void gen_block(G *g, int b, int n, int nest)
{
    int saved = g->cur;
    g->cur = b;
    for (int i = 0; i < n && !g->bad; i++) {
        if (g->overlap && g->nout < MAXOUT - 1 && gt_chance(g, 7)) {
            gt_gen_overlap(g);
            continue;
        }
        if (g->opt->rt_loops && gt_chance(g, 6)) {
            gen_pwalk(g);
            continue;
        }
        int r = gt_ri(g, 0, 99);
        if (r < 45)
            gen_let(g);
        else if (r < 53)
            gen_var(g);
        else if (r < 66 && g->nvscope > 0)
            gen_assign(g, g->vscope[gt_ri(g, 0, g->nvscope - 1)]);
        else if (r < 73 && nest < 3)
            gen_if(g, nest);
        else if (r < 81 && nest < 3 && g->nloops < 3)
            gen_loop(g, nest, false);
        else if (r < 84 && nest < 3 && g->nloops < 3)
            gen_loop(g, nest, true);
        else if (r < 88 && g->nout < MAXOUT - 1)
            gen_store(g, pick_value(g));
        else if (r < 95 && g->nloops > 0)
            gen_jump(g, g->st[gt_inner_loop(g)].kind == S_FOR && gt_chance(g, 50) ? S_CONTINUE : S_BREAK);
        else if (r < 97)
            gen_jump(g, S_RETURN);
        else
            gen_let(g);
    }
    g->cur = saved;
}

static bool gen_all(G *g)
{
    static const int DIMS[] = {1, 2, 4, 8, 16, 32, 64, 128}, DW[] = {1, 2, 4, 6, 8, 8, 6, 3};
    g->ndts = gt_ri(g, 2, 4);
    for (int i = 0; i < g->ndts; i++)
        g->dts[i] = gt_any_dt(g);
    for (int i = 0; i < 3; i++)
        g->dims[i] = DIMS[gt_pick_w(g, DW, 8)];
    g->grid[0] = gt_ri(g, 1, 3);
    g->grid[1] = gt_chance(g, 25) ? 2 : 1;
    g->nprog = g->grid[0] * g->grid[1];
    g->warps = 1 << gt_ri(g, 0, 3);
    g->stages = gt_ri(g, 1, 3);
    g->overlap = gt_chance(g, 40);
    if (g->overlap && g->opt->no_barrier)
        g->warps = 1; /* overlapping accesses of several waves need barriers */
    g->top = block(g);
    g->cur = g->top;
    gen_block(g, g->top, g->opt->size > 0 ? g->opt->size : gt_ri(g, 6, 16), 0);
    if (g->overlap && g->episodes == 0 && !g->bad)
        gt_gen_overlap(g);
    int want = gt_ri(g, 1, MAXOUT - g->nout > 0 ? MAXOUT - g->nout : 1);
    for (int i = 0; i < 8 && want > 0 && !g->bad; i++) {
        int v = gt_chance(g, 50) ? gt_gx(g, pick_ty(g), gt_ri(g, 2, 5), false) : pick_value(g);
        if (v < 0) {
            gen_let(g);
            continue;
        }
        int before = g->nout;
        gen_store(g, v);
        if (g->nout > before)
            want--;
    }
    return !g->bad && g->nout > 0;
}

char *gen_tile_program(uint64_t seed, const GenOptions *o, int *noutputs)
{
    static const GenOptions defaults = {-1, 0, false, false};
    G *g = malloc(sizeof *g);
    if (!g)
        return NULL;
    char *text = NULL;
    for (int attempt = 0; attempt < 64 && !text; attempt++) {
        memset(g, 0, sizeof *g);
        g->rng = seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)attempt);
        g->opt = o ? o : &defaults;
        if (!gen_all(g))
            continue;
        /* the whole program once more, loops iterated as often as they run */
        memset(g->env, 0, sizeof g->env);
        g->join_mode = false;
        for (int i = 0; i < g->nbuf; i++) {
            g->buf[i].tol = -1;
            g->buf[i].cont_set = false;
        }
        if (!ab_block(g, g->top))
            continue;
        int only = g->opt->only_output;
        if (only >= 0 && (only >= g->nbuf || !g->buf[only].out))
            break; /* not an output of this program */
        text = gt_print_program(g, seed);
        if (noutputs)
            *noutputs = g->nout;
    }
    free(g);
    return text;
}
