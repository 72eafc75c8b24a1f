/* tma_match (tma_match.h): recognises a 2-D load that the bulk tensor copy engine can perform.
 *
 * Values are read as symbolic forms. A scalar integer is a TmaLin: a constant plus terms c * a * b
 * over opaque i32 values (degree at most 2: a stride times a loop index). A tile is a TForm:
 * ptr + u + sum over its dimensions d of s_d * (o_d + index_d), with u, s_d and o_d uniform TmaLins;
 * a mask is an `and` of bounds `c0 + index_d < R` and of uniform conditions. A value carried by a loop
 * and advanced by a uniform amount each iteration is its initial form plus that amount times the
 * iteration number, (iv - lo) / step. Anything else is not recognised, and the load keeps its
 * per-thread copies. */
#include "compiler/target/nvptx/tma_match.h"

#include <math.h>
#include <string.h>

enum { MAX_DEPTH = 64, MAX_VISITS = 4096 };

/* Visits left to this match: a DAG of shared subexpressions would otherwise be walked once per path
 * (exponential in its depth). Compiles run on several threads. */
static _Thread_local int visits;

const Value *tma_strip(const Value *v)
{
    while (v->def && v->def->code == OP_HINT)
        v = v->def->operands[0];
    return v;
}

int tma_param_index(const Func *f, const Value *v)
{
    v = tma_strip(v);
    return !v->def && v->owner == f->body ? v->index : -1;
}

/* ---- linear forms ---- */

static TmaLin lin_k(int64_t k)
{
    TmaLin l;
    memset(&l, 0, sizeof l);
    l.k = k;
    return l;
}

static TmaLin lin_bad(void)
{
    TmaLin l = lin_k(0);
    l.bad = true;
    return l;
}

static bool small(int64_t c) { return c > -((int64_t)1 << 40) && c < ((int64_t)1 << 40); }

static void lin_term(TmaLin *l, int64_t c, const Value *a, const Value *b, bool wide)
{
    if (l->bad || c == 0)
        return;
    if (!small(c)) {
        l->bad = true;
        return;
    }
    if (b && b < a) {
        const Value *x = a;
        a = b;
        b = x;
    }
    for (int i = 0; i < l->n; i++)
        if (l->t[i].a == a && l->t[i].b == b) {
            l->t[i].c += c;
            l->t[i].wide |= wide;
            if (l->t[i].c == 0)
                l->t[i] = l->t[--l->n];
            return;
        }
    if (l->n == TMA_LIN_MAX) {
        l->bad = true;
        return;
    }
    l->t[l->n].c = c;
    l->t[l->n].a = a;
    l->t[l->n].b = b;
    l->t[l->n].wide = wide;
    l->n++;
}

static TmaLin lin_atom(const Value *v)
{
    TmaLin l = lin_k(0);
    lin_term(&l, 1, v, NULL, false);
    return l;
}

/* l as the value of i64 arithmetic: its terms need not fit an i32. */
static TmaLin lin_widen(TmaLin l)
{
    for (int i = 0; i < l.n; i++)
        l.t[i].wide = true;
    return l;
}

static TmaLin lin_add(TmaLin x, const TmaLin *y, int64_t sy)
{
    if (x.bad || y->bad || !small(x.k) || !small(y->k))
        return lin_bad();
    x.k += sy * y->k;
    for (int i = 0; i < y->n; i++)
        lin_term(&x, sy * y->t[i].c, y->t[i].a, y->t[i].b, y->t[i].wide);
    return x;
}

static TmaLin lin_mul(const TmaLin *x, const TmaLin *y)
{
    if (x->bad || y->bad || !small(x->k) || !small(y->k))
        return lin_bad();
    TmaLin r = lin_k(x->k * y->k);
    for (int i = 0; i < x->n; i++)
        lin_term(&r, x->t[i].c * y->k, x->t[i].a, x->t[i].b, x->t[i].wide);
    for (int i = 0; i < y->n; i++)
        lin_term(&r, y->t[i].c * x->k, y->t[i].a, y->t[i].b, y->t[i].wide);
    for (int i = 0; i < x->n; i++)
        for (int j = 0; j < y->n; j++) {
            if (x->t[i].b || y->t[j].b)
                return lin_bad();
            lin_term(&r, x->t[i].c * y->t[j].c, x->t[i].a, y->t[j].a, x->t[i].wide || y->t[j].wide);
        }
    return r;
}

static bool lin_is_k(const TmaLin *l, int64_t k) { return !l->bad && l->n == 0 && l->k == k; }
static bool lin_uniform_zero(const TmaLin *l) { return lin_is_k(l, 0); }

static bool is_i32(const Type *t)
{
    const Type *e = ty_elem(t);
    return e->kind == TY_SCALAR && e->sk == SK_I32;
}

/* The form of a scalar i32 value, or of an i64 one computed from i32 values by sign extension,
 * addition and multiplication (its terms wide). */
static TmaLin scalar_lin(const Value *v, int depth)
{
    v = tma_strip(v);
    if (--visits < 0)
        return lin_bad();
    bool i64 = v->type->kind == TY_SCALAR && v->type->sk == SK_I64;
    if (v->type->kind != TY_SCALAR || (v->type->sk != SK_I32 && !i64))
        return lin_bad();
    const Op *op = v->def;
    if (op && depth < MAX_DEPTH) {
        TmaLin x, y, r;
        switch (op->code) {
        case OP_CONST:
            return lin_k(op->at.value.i);
        case OP_CAST: /* i32 to i64: the same value */
            if (i64 && is_i32(op->operands[0]->type) && ty_is_signed(op->operands[0]->type))
                return lin_widen(scalar_lin(op->operands[0], depth + 1));
            break;
        case OP_ADD:
        case OP_SUB:
            x = scalar_lin(op->operands[0], depth + 1);
            y = scalar_lin(op->operands[1], depth + 1);
            r = lin_add(x, &y, op->code == OP_ADD ? 1 : -1);
            if (!r.bad)
                return r;
            break;
        case OP_MUL:
            x = scalar_lin(op->operands[0], depth + 1);
            y = scalar_lin(op->operands[1], depth + 1);
            r = lin_mul(&x, &y);
            if (!r.bad)
                return r;
            break;
        default:
            break;
        }
    }
    return i64 ? lin_bad() : lin_atom(v);
}

/* ---- tile forms ---- */

typedef struct TForm {
    bool ok;
    int rank;
    const Value *ptr; /* pointer tiles: the scalar base (a kernel argument) */
    TmaLin u;
    bool has[2];
    TmaLin s[2], o[2];
} TForm;

static TForm t_fail(void)
{
    TForm f;
    memset(&f, 0, sizeof f);
    return f;
}

static bool t_uniform(const TForm *f) { return f->ok && !f->ptr && !f->has[0] && !f->has[1]; }

static bool t_sane(TForm *f)
{
    f->ok = f->ok && !f->u.bad;
    for (int d = 0; d < 2; d++)
        f->ok = f->ok && (!f->has[d] || (!f->s[d].bad && !f->o[d].bad));
    return f->ok;
}

static TForm tform(const Value *v, int depth);

/* A loop-carried tile advanced by a uniform amount each iteration. */
/* Whether v is computed inside block b (or a block nested in it), or is one of its arguments. */
static bool defined_in(const Value *v, const Block *b)
{
    const Block *at = v->def ? v->def->parent : v->owner;
    while (at && at != b)
        at = at->parent ? at->parent->parent : NULL;
    return at == b;
}

/* An amount that is the same in every iteration of the loop with body b: no value of the body. */
static bool invariant_in(const TmaLin *l, const Block *b)
{
    for (int i = 0; i < l->n; i++)
        if (defined_in(l->t[i].a, b) || (l->t[i].b && defined_in(l->t[i].b, b)))
            return false;
    return true;
}

static TForm carried(const Value *v, int depth)
{
    const Block *body = v->owner;
    const Op *loop = body ? body->parent : NULL;
    if (!loop || loop->code != OP_FOR || v->index == 0 || !body->last || body->last->code != OP_YIELD)
        return t_fail();
    const Value *next = body->last->operands[v->index - 1];
    const Op *adv = next->def;
    if (!adv || (adv->code != OP_ADDPTR && adv->code != OP_ADD))
        return t_fail();
    int self = adv->operands[0] == v ? 0 : adv->code == OP_ADD && adv->operands[1] == v ? 1 : -1;
    if (self < 0)
        return t_fail();
    TForm inc = tform(adv->operands[1 - self], depth + 1);
    const Value *st = tma_strip(loop->operands[2]);
    /* the same amount every iteration (pa += k * 64 would make the sum quadratic, not t * inc) */
    if (!t_uniform(&inc) || !invariant_in(&inc.u, body) || !st->def || st->def->code != OP_CONST ||
        st->def->at.value.i <= 0)
        return t_fail();
    int64_t step = st->def->at.value.i;
    /* (iv - lo) / step iterations of inc: inc / step must be exact */
    TmaLin per = inc.u;
    if (per.k % step)
        return t_fail();
    per.k /= step;
    for (int i = 0; i < per.n; i++) {
        if (per.t[i].c % step)
            return t_fail();
        per.t[i].c /= step;
    }
    TmaLin lo = scalar_lin(loop->operands[0], depth + 1);
    TmaLin iters = lin_add(lin_atom(&body->args[0]), &lo, -1);
    TmaLin adv_total = lin_mul(&per, &iters);
    TForm init = tform(loop->operands[3 + v->index - 1], depth + 1);
    if (!init.ok)
        return t_fail();
    init.u = lin_add(init.u, &adv_total, 1);
    t_sane(&init);
    return init;
}

static TForm t_combine(TForm x, const TForm *y, int64_t sy)
{
    if (!x.ok || !y->ok || (x.ptr && y->ptr) || (sy < 0 && (y->ptr || y->has[0] || y->has[1])))
        return t_fail();
    if (!x.ptr)
        x.ptr = y->ptr;
    x.u = lin_add(x.u, &y->u, sy);
    for (int d = 0; d < 2; d++)
        if (y->has[d]) {
            if (x.has[d])
                return t_fail();
            x.has[d] = true;
            x.s[d] = y->s[d];
            x.o[d] = y->o[d];
        }
    t_sane(&x);
    return x;
}

static TForm tform(const Value *v, int depth)
{
    const Type *t = v->type;
    if (depth > MAX_DEPTH || --visits < 0 || t->kind != TY_TILE || t->rank > 2)
        return t_fail();
    const Op *op = v->def;
    if (!op)
        return carried(v, depth);
    TForm f = t_fail(), x, y;
    f.rank = t->rank;
    switch (op->code) {
    case OP_HINT:
    case OP_CONVERT_LAYOUT:
        return tform(op->operands[0], depth + 1);
    case OP_CONST:
        if (!is_i32(t))
            return t_fail();
        f.ok = true;
        f.u = lin_k(op->at.value.i);
        return f;
    case OP_SPLAT: {
        const Value *s = op->operands[0];
        f.ok = true;
        f.u = lin_k(0);
        if (s->type->kind == TY_PTR) {
            while (s->def && s->def->code == OP_ADDPTR) { /* a scalar offset of the base */
                TmaLin off = scalar_lin(s->def->operands[1], depth + 1);
                f.u = lin_add(f.u, &off, 1);
                s = s->def->operands[0];
            }
            f.ptr = tma_strip(s);
        } else if (is_i32(s->type)) {
            f.u = scalar_lin(s, depth + 1);
        } else {
            return t_fail();
        }
        t_sane(&f);
        return f;
    }
    case OP_ARANGE:
        if (t->rank != 1)
            return t_fail();
        f.ok = true;
        f.u = lin_k(0);
        f.has[0] = true;
        f.s[0] = lin_k(1);
        f.o[0] = lin_k(op->at.start);
        return f;
    case OP_EXPAND_DIMS: {
        x = tform(op->operands[0], depth + 1);
        if (!x.ok || x.rank != 1 || t->rank != 2)
            return t_fail();
        if (x.has[0] && lin_is_k(&x.s[0], 1)) { /* a 1-D index: its uniform part is its origin */
            x.o[0] = lin_add(x.o[0], &x.u, 1);
            x.u = lin_k(0);
        }
        int d = op->at.axis == 0 ? 1 : 0;
        f = x;
        f.rank = 2;
        f.has[0] = f.has[1] = false;
        f.has[d] = x.has[0];
        f.s[d] = x.s[0];
        f.o[d] = x.o[0];
        t_sane(&f);
        return f;
    }
    case OP_BROADCAST: {
        const Type *xt = op->operands[0]->type;
        x = tform(op->operands[0], depth + 1);
        if (!x.ok || xt->rank != t->rank)
            return t_fail();
        for (int d = 0; d < t->rank; d++)
            if (x.has[d] && xt->shape[d] == 1 && t->shape[d] != 1) { /* index 0 only: a uniform value */
                TmaLin c = lin_mul(&x.s[d], &x.o[d]);
                x.u = lin_add(x.u, &c, 1);
                x.has[d] = false;
            }
        t_sane(&x);
        return x;
    }
    case OP_ADD:
    case OP_ADDPTR:
    case OP_SUB:
        x = tform(op->operands[0], depth + 1);
        y = tform(op->operands[1], depth + 1);
        return t_combine(x, &y, op->code == OP_SUB ? -1 : 1);
    case OP_MUL: {
        x = tform(op->operands[0], depth + 1);
        y = tform(op->operands[1], depth + 1);
        if (t_uniform(&x)) {
            TForm z = x;
            x = y;
            y = z;
        }
        if (!x.ok || !t_uniform(&y) || x.ptr)
            return t_fail();
        x.u = lin_mul(&x.u, &y.u);
        for (int d = 0; d < 2; d++)
            if (x.has[d])
                x.s[d] = lin_mul(&x.s[d], &y.u);
        t_sane(&x);
        return x;
    }
    default:
        return t_fail();
    }
}

/* ---- masks ---- */

typedef struct MForm {
    bool ok;
    int nb, np;
    struct {
        int dim;
        TmaLin c0, R; /* c0 + index < R */
    } b[4];
    const Value *pred[4];
} MForm;

static MForm m_fail(void)
{
    MForm m;
    memset(&m, 0, sizeof m);
    return m;
}

static MForm mform(const Value *v, int depth)
{
    const Op *op = v->def;
    const Type *t = v->type;
    MForm m = m_fail(), x, y;
    if (!op || depth > MAX_DEPTH || --visits < 0 || t->kind != TY_TILE || t->rank > 2)
        return m;
    switch (op->code) {
    case OP_HINT:
    case OP_CONVERT_LAYOUT:
        return mform(op->operands[0], depth + 1);
    case OP_CONST:
        m.ok = op->at.value.i != 0; /* all true: no condition */
        return m;
    case OP_SPLAT:
        m.ok = true;
        m.np = 1;
        m.pred[0] = op->operands[0];
        return m;
    case OP_AND:
        x = mform(op->operands[0], depth + 1);
        y = mform(op->operands[1], depth + 1);
        if (!x.ok || !y.ok || x.nb + y.nb > 4 || x.np + y.np > 4)
            return m;
        for (int i = 0; i < y.nb; i++)
            x.b[x.nb++] = y.b[i];
        for (int i = 0; i < y.np; i++)
            x.pred[x.np++] = y.pred[i];
        return x;
    case OP_BROADCAST: {
        const Type *xt = op->operands[0]->type;
        x = mform(op->operands[0], depth + 1);
        if (!x.ok || xt->rank != t->rank)
            return m;
        for (int i = 0; i < x.nb; i++)
            if (xt->shape[x.b[i].dim] == 1 && t->shape[x.b[i].dim] != 1)
                return m; /* a bound on a stretched dimension is a condition we cannot name */
        return x;
    }
    case OP_EXPAND_DIMS:
        x = mform(op->operands[0], depth + 1);
        if (!x.ok || op->operands[0]->type->rank != 1 || t->rank != 2)
            return m;
        for (int i = 0; i < x.nb; i++)
            x.b[i].dim = op->at.axis == 0 ? 1 : 0;
        return x;
    case OP_CMP: {
        int64_t p = op->at.pred;
        const Value *a = op->operands[0], *b = op->operands[1];
        if (!is_i32(a->type) || !ty_is_signed(a->type))
            return m;
        if (p == PRED_GT || p == PRED_GE) { /* R > c  is  c < R */
            const Value *z = a;
            a = b;
            b = z;
            p = p == PRED_GT ? PRED_LT : PRED_LE;
        }
        if (p != PRED_LT && p != PRED_LE)
            return m;
        TForm ix = tform(a, depth + 1), bound = tform(b, depth + 1);
        if (!ix.ok || ix.ptr || !t_uniform(&bound))
            return m;
        int d = -1;
        for (int k = 0; k < t->rank; k++)
            if (ix.has[k]) {
                if (d >= 0 || !lin_is_k(&ix.s[k], 1))
                    return m;
                d = k;
            }
        if (d < 0)
            return m;
        m.ok = true;
        m.nb = 1;
        m.b[0].dim = d;
        m.b[0].c0 = lin_add(ix.u, &ix.o[d], 1);
        TmaLin one = lin_k(p == PRED_LE ? 1 : 0);
        m.b[0].R = lin_add(bound.u, &one, 1);
        m.ok = !m.b[0].c0.bad && !m.b[0].R.bad;
        return m;
    }
    default:
        return m;
    }
}

/* ---- the match ---- */

static bool i32_param(const Func *f, const Value *v)
{
    const Type *t = tma_strip(v)->type;
    return tma_param_index(f, v) >= 0 && t->kind == TY_SCALAR && t->sk == SK_I32;
}

/* A function of the kernel's i32 arguments (what the runtime can evaluate at launch): linear, or of
 * degree 2 when `quadratic`. */
static bool launch_lin(const Func *f, const TmaLin *l, bool quadratic)
{
    if (l->bad)
        return false;
    for (int i = 0; i < l->n; i++)
        if (!i32_param(f, l->t[i].a) || (l->t[i].b && (!quadratic || !i32_param(f, l->t[i].b))))
            return false;
    return true;
}

/* Adds to `outer` what of the uniform offset u is a multiple of the stride, the rest to `inner`. */
static void split_offset(const TmaLin *u, const TmaLin *stride, TmaLin *inner, TmaLin *outer)
{
    TmaLin one_term = lin_k(0);
    int64_t ks = stride->k, cs = 0;
    const Value *X = NULL;
    if (stride->n == 1 && ks == 0 && !stride->t[0].b) {
        cs = stride->t[0].c;
        X = stride->t[0].a;
    }
    TmaLin k = lin_k(u->k);
    if (!X && ks && u->k % ks == 0) {
        TmaLin q = lin_k(u->k / ks);
        *outer = lin_add(*outer, &q, 1);
    } else {
        *inner = lin_add(*inner, &k, 1);
    }
    for (int i = 0; i < u->n; i++) {
        int64_t c = u->t[i].c;
        const Value *a = u->t[i].a, *b = u->t[i].b;
        bool w = u->t[i].wide;
        TmaLin q = one_term;
        bool to_outer = false;
        if (!X && ks && c % ks == 0) {
            lin_term(&q, c / ks, a, b, w);
            to_outer = true;
        } else if (X && c % cs == 0 && (a == X || b == X)) {
            if (!b)
                q.k = c / cs;
            else
                lin_term(&q, c / cs, a == X ? b : a, NULL, w);
            to_outer = true;
        }
        if (to_outer) {
            *outer = lin_add(*outer, &q, 1);
        } else {
            TmaLin r = lin_k(0);
            lin_term(&r, c, a, b, w);
            *inner = lin_add(*inner, &r, 1);
        }
    }
}

static bool zero_value(const Value *v)
{
    const Op *op = v->def;
    while (op && (op->code == OP_SPLAT || op->code == OP_CONVERT_LAYOUT || op->code == OP_BROADCAST))
        op = op->operands[0]->def;
    if (!op || op->code != OP_CONST)
        return false;
    if (ty_is_float(op->results[0].type))
        return op->at.value.f == 0.0 && !signbit(op->at.value.f);
    return op->at.value.i == 0;
}

/* dim = L + E, L its launch-time part, E = q * L with q uniform: the outer dimension of a batch of
 * matrices (the coordinate's q * L part is the batch's start). Sets the batch's coordinate, the row's,
 * and the map's third dimension. */
static bool batch_split(const Func *f, const TmaLin *dim, TmaMatch *m)
{
    TmaLin L = lin_k(dim->k), E = lin_k(0), q = lin_k(0);
    for (int i = 0; i < dim->n; i++) {
        bool launch = i32_param(f, dim->t[i].a) && !dim->t[i].b;
        lin_term(launch ? &L : &E, dim->t[i].c, dim->t[i].a, dim->t[i].b, dim->t[i].wide);
    }
    if (E.n == 0 || L.bad || E.bad)
        return false;
    if (L.n == 0 && L.k > 0) { /* rows of a constant count */
        for (int i = 0; i < E.n; i++) {
            if (E.t[i].c % L.k)
                return false;
            lin_term(&q, E.t[i].c / L.k, E.t[i].a, E.t[i].b, E.t[i].wide);
        }
    } else if (L.n == 1 && L.k == 0 && !L.t[0].b && L.t[0].c > 0) { /* c * P rows */
        const Value *P = L.t[0].a;
        int64_t c = L.t[0].c;
        for (int i = 0; i < E.n; i++) {
            if (!E.t[i].b || (E.t[i].a != P && E.t[i].b != P) || E.t[i].c % c)
                return false;
            lin_term(&q, E.t[i].c / c, E.t[i].a == P ? E.t[i].b : E.t[i].a, NULL, E.t[i].wide);
        }
    } else {
        return false;
    }
    TmaLin start = lin_mul(&q, &L);
    m->coord[1] = lin_add(m->coord[1], &start, -1);
    m->coord[2] = q;
    m->dim[1] = L;
    m->open[2] = true;
    m->stride[1] = lin_mul(&m->stride[0], &L);
    m->rank = 3;
    return !m->coord[1].bad && launch_lin(f, &m->stride[1], true);
}

/* A coordinate the kernel computes in i32 without leaving the value the program meant: a wide term
 * (i64 arithmetic) only as the plain i32 value it came from. */
static bool i32_coordinate(const TmaLin *l)
{
    if (l->bad || l->k != (int32_t)l->k)
        return false;
    for (int i = 0; i < l->n; i++)
        if (l->t[i].wide && (l->n != 1 || l->k != 0 || l->t[i].c != 1 || l->t[i].b))
            return false;
    return true;
}

bool tma_match(const Func *f, const Op *load, TmaMatch *m)
{
    memset(m, 0, sizeof *m);
    visits = MAX_VISITS;
    const Type *rt = load->results[0].type;
    if (load->code != OP_LOAD || rt->kind != TY_TILE || rt->rank != 2 || load->nopnds < 1)
        return false;
    m->esize = ty_bits(rt) / 8;
    m->rank = 2;
    TForm p = tform(load->operands[0], 0);
    if (!p.ok || !p.ptr || !p.has[0] || !p.has[1])
        return false;
    m->ptr_param = tma_param_index(f, p.ptr);
    if (m->ptr_param < 0 || p.ptr->type->kind != TY_PTR)
        return false;
    bool one0 = lin_is_k(&p.s[0], 1), one1 = lin_is_k(&p.s[1], 1);
    if (one0 == one1)
        return false;
    int inner = one1 ? 1 : 0, outer = 1 - inner;
    m->inner = inner;
    m->stride[0] = p.s[outer];
    if (!launch_lin(f, &m->stride[0], false) || lin_uniform_zero(&m->stride[0]))
        return false;
    m->coord[0] = p.o[inner];
    m->coord[1] = p.o[outer];
    split_offset(&p.u, &m->stride[0], &m->coord[0], &m->coord[1]);
    if (m->coord[0].bad || m->coord[1].bad)
        return false;
    bool bounded[2] = {false, false};
    if (load->nopnds >= 2) {
        MForm mk = mform(load->operands[1], 0);
        if (!mk.ok)
            return false;
        for (int i = 0; i < mk.nb; i++) {
            int k = mk.b[i].dim == inner ? 0 : 1;
            if (bounded[k])
                return false;
            bounded[k] = true;
            TmaLin dim = lin_add(mk.b[i].R, &mk.b[i].c0, -1);
            dim = lin_add(dim, &m->coord[k], 1);
            if (launch_lin(f, &dim, false))
                m->dim[k] = dim;
            else if (k == 0 || !batch_split(f, &dim, m))
                return false;
        }
        for (int i = 0; i < mk.np; i++)
            m->pred[m->npred++] = mk.pred[i];
    }
    /* No bound on a row: the copy must stay in it, which constants prove (the driver wants the rows
     * no longer than the stride). */
    if (!bounded[0]) {
        int64_t width = rt->shape[inner];
        if (m->coord[0].n || m->stride[0].n || m->coord[0].k < 0 || m->coord[0].k + width > m->stride[0].k)
            return false;
        m->dim[0] = lin_k(m->stride[0].k);
    }
    if (!bounded[1])
        m->open[1] = true; /* the outermost: as long as the allocation */
    for (int k = 0; k < m->rank; k++)
        if (!i32_coordinate(&m->coord[k]))
            return false;
    if (load->nopnds >= 3 && !zero_value(load->operands[2]))
        return false;
    return true;
}
