/* Axis analysis (see axis_info.h): a forward pass over the structured IR; loop-carried values are
 * iterated to a fixed point (a few rounds: facts only ever weaken, and each is a power of two). */
#include "compiler/passes/axis_info.h"

#include <string.h>

struct AxisTab {
    AxisInfo *info;
    int n;
};

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* The largest power of two dividing v (0 counts as divisible by everything). */
static int64_t pow2_div(int64_t v)
{
    if (v == 0)
        return AXIS_MAX_DIV;
    uint64_t u = (uint64_t)v;
    int64_t d = (int64_t)(u & (~u + 1));
    return d > AXIS_MAX_DIV || d <= 0 ? AXIS_MAX_DIV : d;
}

static int64_t capdiv(int64_t d) { return d > AXIS_MAX_DIV || d <= 0 ? AXIS_MAX_DIV : d; }

static int rank_of(const Type *t) { return t->kind == TY_TILE ? t->rank : 0; }

/* What nothing is known about. */
static void unknown(AxisInfo *o, const Type *t)
{
    memset(o, 0, sizeof *o);
    o->rank = rank_of(t);
    o->sdiv = 1;
    for (int i = 0; i < o->rank; i++)
        o->contig[i] = o->constancy[i] = o->div[i] = 1;
}

/* A value constant over the whole tile with divisibility d. */
static void constant(AxisInfo *o, const Type *t, int64_t d)
{
    unknown(o, t);
    o->sdiv = d;
    for (int i = 0; i < o->rank; i++) {
        o->constancy[i] = t->shape[i];
        o->div[i] = d;
    }
}

/* The divisibility of every element (not only run starts): 1 once anything varies by one. */
static int64_t elem_div(const AxisInfo *x)
{
    if (x->rank == 0)
        return x->sdiv;
    int64_t d = AXIS_MAX_DIV;
    for (int i = 0; i < x->rank; i++)
        d = min64(d, x->contig[i] > 1 ? 1 : x->div[i]);
    return d;
}

typedef struct Ctx {
    AxisTab *t;
    bool changed;
} Ctx;

static AxisInfo *get(Ctx *c, const Value *v) { return &c->t->info[v->scratch]; }

static void set(Ctx *c, const Value *v, const AxisInfo *ai)
{
    AxisInfo *cur = &c->t->info[v->scratch];
    if (memcmp(cur, ai, sizeof *ai) != 0) {
        *cur = *ai;
        c->changed = true;
    }
}

/* Meet of two facts about the same value (loop joins, if results). */
static void meet(AxisInfo *o, const AxisInfo *a, const AxisInfo *b)
{
    *o = *a;
    o->sdiv = gcd64(a->sdiv, b->sdiv);
    for (int i = 0; i < a->rank; i++) {
        o->contig[i] = gcd64(a->contig[i], b->contig[i]);
        o->constancy[i] = gcd64(a->constancy[i], b->constancy[i]);
        o->div[i] = gcd64(a->div[i], b->div[i]);
    }
}

/* The divisibility an operand with runs of xc values divisible by xd at their starts guarantees at
 * the starts of the result's runs of rc: those starts are also its own run starts when rc is a
 * multiple of xc; otherwise they sit at multiples of rc inside its runs. */
static int64_t run_div(int64_t xd, int64_t xc, int64_t rc)
{
    return rc >= xc ? xd : min64(xd, rc);
}

/* a + b (a - b), b scaled by bscale (addptr: the pointee size, giving bytes). */
static void visit_add(AxisInfo *o, const AxisInfo *a, const AxisInfo *b, int64_t bscale, bool sub)
{
    o->sdiv = gcd64(a->sdiv, capdiv(b->sdiv * bscale));
    for (int i = 0; i < o->rank; i++) {
        /* a run of one operand over a constant stretch of the other stays a run (in elements, also
         * for addptr); a difference of runs decreases */
        int64_t c1 = gcd64(a->contig[i], b->constancy[i]);
        int64_t c2 = sub ? 1 : gcd64(a->constancy[i], b->contig[i]);
        o->contig[i] = max64(c1, c2);
        o->constancy[i] = gcd64(a->constancy[i], b->constancy[i]);
        int64_t rc = o->contig[i];
        o->div[i] = gcd64(run_div(a->div[i], a->contig[i], rc),
                          capdiv(run_div(b->div[i], b->contig[i], rc) * bscale));
    }
}

static void visit_op(Ctx *c, Op *op)
{
    if (op->nres != 1)
        return;
    Value *r = op_result(op, 0);
    const Type *t = r->type;
    AxisInfo o;
    unknown(&o, t);
    const AxisInfo *a = op->nopnds > 0 ? get(c, op->operands[0]) : NULL;
    const AxisInfo *b = op->nopnds > 1 ? get(c, op->operands[1]) : NULL;
    switch (op->code) {
    case OP_CONST:
        constant(&o, t, ty_is_float(t) ? 1 : pow2_div(op->at.value.i));
        break;
    case OP_ARANGE:
        o.contig[0] = op->at.end - op->at.start;
        o.constancy[0] = 1;
        o.div[0] = pow2_div(op->at.start);
        break;
    case OP_SPLAT:
        constant(&o, t, a->sdiv);
        break;
    case OP_HINT: {
        /* the facts are powers of two (every access they allow is aligned to its width): a multiple
         * of 12 is a multiple of 4, runs of 12 consecutive values are runs of 4 */
        int64_t n = pow2_div(op->at.n);
        o = *a;
        if (op->at.kind == KIND_MULTIPLE_OF) {
            o.sdiv = max64(o.sdiv, n);
            for (int i = 0; i < o.rank; i++)
                o.div[i] = max64(o.div[i], n);
        } else if (o.rank) {
            o.contig[o.rank - 1] = max64(o.contig[o.rank - 1], min64(n, t->shape[o.rank - 1]));
        }
        break;
    }
    case OP_CONVERT_LAYOUT: /* the same values, in other registers (the lowering's IR has them) */
        o = *a;
        break;
    case OP_BROADCAST: {
        const Type *x = op->operands[0]->type;
        int64_t ed = elem_div(a);
        for (int i = 0; i < o.rank; i++) {
            if (x->shape[i] == 1 && t->shape[i] != 1) {
                o.contig[i] = 1;
                o.constancy[i] = t->shape[i];
                o.div[i] = ed;
            } else {
                o.contig[i] = a->contig[i];
                o.constancy[i] = a->constancy[i];
                o.div[i] = a->div[i];
            }
        }
        break;
    }
    case OP_EXPAND_DIMS:
        for (int i = 0, k = 0; i < o.rank; i++) {
            if (i == op->at.axis) {
                o.contig[i] = 1;
                o.constancy[i] = 1;
                o.div[i] = elem_div(a);
            } else {
                o.contig[i] = a->contig[k];
                o.constancy[i] = a->constancy[k];
                o.div[i] = a->div[k];
                k++;
            }
        }
        break;
    case OP_PERMUTE:
        for (int i = 0; i < o.rank; i++) {
            int64_t d = op->at.dims[i];
            o.contig[i] = a->contig[d];
            o.constancy[i] = a->constancy[d];
            o.div[i] = a->div[d];
        }
        break;
    case OP_ADD:
        if (!ty_is_int(t))
            break;
        visit_add(&o, a, b, 1, false);
        break;
    case OP_SUB:
        if (!ty_is_int(t))
            break;
        visit_add(&o, a, b, 1, true);
        break;
    case OP_ADDPTR: {
        int64_t size = ty_bits(ty_elem(t)->pointee) / 8;
        visit_add(&o, a, b, size > 0 ? size : 1, false);
        break;
    }
    case OP_MUL:
        if (!ty_is_int(t))
            break;
        o.sdiv = capdiv(a->sdiv * b->sdiv);
        for (int i = 0; i < o.rank; i++) {
            o.constancy[i] = gcd64(a->constancy[i], b->constancy[i]);
            o.div[i] = capdiv(elem_div(a) * elem_div(b));
            /* a run times a constant one is still a run */
            if (b->constancy[i] == t->shape[i] && b->rank && b->div[i] == 1 && b->contig[i] == 1)
                o.contig[i] = 1;
        }
        break;
    case OP_SHL:
        if (b->rank == 0 || (b->rank && b->constancy[0] == t->shape[0])) {
            o = *a;
            o.sdiv = capdiv(a->sdiv * 2);
            for (int i = 0; i < o.rank; i++)
                o.contig[i] = 1, o.div[i] = capdiv(elem_div(a) * 2);
        }
        break;
    case OP_DIV:
    case OP_REM:
        for (int i = 0; i < o.rank; i++) {
            o.constancy[i] = gcd64(a->constancy[i], b->constancy[i]);
            /* x % n with n uniform along d: a run of x starting at a multiple of g, with g dividing n,
             * stays a run (Triton's rule: contiguity gcd(contig(x), div(n)), assuming x >= 0 as pointer
             * offsets are; divisibility gcd(div(x), div(n))) */
            bool uniform = b->rank == 0 || b->constancy[i] == t->shape[i];
            if (op->code == OP_REM && ty_is_int(t) && uniform && a->rank) {
                int64_t nd = b->rank ? b->div[i] : b->sdiv;
                o.contig[i] = gcd64(a->contig[i], nd);
                o.div[i] = gcd64(a->div[i], nd);
            }
        }
        break;
    case OP_AND:
    case OP_OR:
    case OP_XOR:
    case OP_NOT:
    case OP_MIN:
    case OP_MAX:
        for (int i = 0; i < o.rank; i++)
            o.constancy[i] = b ? gcd64(a->constancy[i], b->constancy[i]) : a->constancy[i];
        break;
    case OP_CMP: {
        /* x < n, x a run starting at multiples of d, n constant and a multiple of e: the result is
         * constant over aligned groups of gcd(run, d, e), since it changes only where x crosses n.
         * So is x >= n; but x <= n and x > n change where x crosses n + 1, and x == n, x != n hold
         * at one element of a run (the differential fuzzer's first find: a store masked by
         * arange(64) == 0 stored 8 elements on emu). With the run on the right, n > x and n <= x. */
        CmpPred p = (CmpPred)op->at.pred;
        bool run_left = p == PRED_LT || p == PRED_GE, run_right = p == PRED_GT || p == PRED_LE;
        for (int i = 0; i < o.rank; i++) {
            o.constancy[i] = gcd64(a->constancy[i], b->constancy[i]);
            if (run_left && a->contig[i] > 1 && b->constancy[i] >= a->contig[i])
                o.constancy[i] = max64(o.constancy[i], gcd64(gcd64(a->contig[i], a->div[i]), b->div[i]));
            if (run_right && b->contig[i] > 1 && a->constancy[i] >= b->contig[i])
                o.constancy[i] = max64(o.constancy[i], gcd64(gcd64(b->contig[i], b->div[i]), a->div[i]));
        }
        break;
    }
    case OP_SELECT: {
        const AxisInfo *x = get(c, op->operands[1]), *y = get(c, op->operands[2]);
        o.sdiv = gcd64(x->sdiv, y->sdiv);
        for (int i = 0; i < o.rank; i++) {
            o.constancy[i] = gcd64(a->constancy[i], gcd64(x->constancy[i], y->constancy[i]));
            /* runs survive only where the condition does not change */
            o.contig[i] = gcd64(a->constancy[i], gcd64(x->contig[i], y->contig[i]));
            int64_t rc = o.contig[i];
            o.div[i] = gcd64(run_div(x->div[i], x->contig[i], rc), run_div(y->div[i], y->contig[i], rc));
        }
        break;
    }
    case OP_CAST:
        if (ty_is_int(t) && ty_is_int(op->operands[0]->type))
            o = *a;
        else
            for (int i = 0; i < o.rank; i++)
                o.constancy[i] = a->constancy[i];
        break;
    default:
        break;
    }
    set(c, r, &o);
}

static void visit_block(Ctx *c, Block *b);

static void visit_region_ops(Ctx *c, Op *op)
{
    switch (op->code) {
    case OP_FOR: {
        Block *body = op_block(op, 0);
        /* iv: lb + k * step */
        AxisInfo iv;
        unknown(&iv, body->args[0].type);
        iv.sdiv = gcd64(get(c, op->operands[0])->sdiv, get(c, op->operands[2])->sdiv);
        set(c, &body->args[0], &iv);
        for (int round = 0; round < 8; round++) {
            bool before = c->changed;
            c->changed = false;
            for (int i = 3; i < op->nopnds; i++) {
                AxisInfo m = *get(c, op->operands[i]);
                Op *y = body->last;
                if (round > 0 && y && y->code == OP_YIELD)
                    meet(&m, &m, get(c, y->operands[i - 3]));
                set(c, &body->args[i - 2], &m);
            }
            visit_block(c, body);
            bool ch = c->changed;
            c->changed = before || ch;
            if (!ch && round > 0)
                break;
        }
        Op *y = body->last;
        for (int i = 0; i < op->nres && y && y->code == OP_YIELD; i++) {
            AxisInfo m;
            meet(&m, get(c, op->operands[3 + i]), get(c, y->operands[i]));
            set(c, op_result(op, i), &m);
        }
        break;
    }
    case OP_IF: {
        visit_block(c, op_block(op, 0));
        visit_block(c, op_block(op, 1));
        Op *y0 = op_block(op, 0)->last, *y1 = op_block(op, 1)->last;
        for (int i = 0; i < op->nres; i++) {
            AxisInfo m;
            if (y0 && y1 && y0->code == OP_YIELD && y1->code == OP_YIELD)
                meet(&m, get(c, y0->operands[i]), get(c, y1->operands[i]));
            else
                unknown(&m, op_result(op, i)->type);
            set(c, op_result(op, i), &m);
        }
        break;
    }
    default:
        /* while: nothing is assumed about its carried values */
        for (int r = 0; r < op->nregions; r++) {
            Block *b = op_block(op, r);
            for (int i = 0; i < b->nargs; i++) {
                AxisInfo u;
                unknown(&u, b->args[i].type);
                set(c, &b->args[i], &u);
            }
            visit_block(c, b);
        }
        for (int i = 0; i < op->nres; i++) {
            AxisInfo u;
            unknown(&u, op_result(op, i)->type);
            set(c, op_result(op, i), &u);
        }
        break;
    }
}

static void visit_block(Ctx *c, Block *b)
{
    for (Op *op = b->first; op; op = op->next) {
        if (op->nregions)
            visit_region_ops(c, op);
        else
            visit_op(c, op);
    }
}

typedef struct Numbering {
    int n;
} Numbering;

static void number_block(Block *b, int *n)
{
    for (int i = 0; i < b->nargs; i++)
        b->args[i].scratch = (*n)++;
    for (Op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nres; i++)
            op->results[i].scratch = (*n)++;
        for (int r = 0; r < op->nregions; r++)
            number_block(op->regions[r], n);
    }
}

static void init_block(AxisTab *t, Block *b)
{
    for (int i = 0; i < b->nargs; i++)
        unknown(&t->info[b->args[i].scratch], b->args[i].type);
    for (Op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nres; i++)
            unknown(&t->info[op->results[i].scratch], op->results[i].type);
        for (int r = 0; r < op->nregions; r++)
            init_block(t, op->regions[r]);
    }
}

AxisTab *compute_axis_info(Arena *a, Func *f)
{
    AxisTab *t = ARENA_NEW(a, AxisTab);
    int n = 0;
    number_block(f->body, &n);
    t->n = n;
    t->info = ARENA_ARRAY(a, AxisInfo, n + 1);
    init_block(t, f->body);
    /* parameters: pointers are 16-byte aligned by contract; integers are unknown */
    for (int i = 0; i < f->body->nargs; i++) {
        Value *p = &f->body->args[i];
        if (p->type->kind == TY_PTR)
            t->info[p->scratch].sdiv = 16;
    }
    Ctx c = {t, false};
    visit_block(&c, f->body);
    return t;
}

const AxisInfo *axis_of(const AxisTab *t, const Value *v)
{
    return &t->info[v->scratch];
}

int64_t axis_access_width(const AxisInfo *p, const AxisInfo *m, int d, int64_t bytes)
{
    int64_t w = p->contig[d], aligned = p->div[d] / bytes; /* div: bytes for pointers, powers of two */
    w = min64(w, aligned > 0 ? aligned : 1);
    if (m)
        w = min64(w, m->constancy[d]);
    return w > 0 ? w : 1;
}

int axis_vector_width(const AxisTab *t, const Value *ptr, const Value *mask, int max_bits, int *dim)
{
    const AxisInfo *p = axis_of(t, ptr);
    const Type *pt = ptr->type;
    if (pt->kind != TY_TILE) {
        *dim = 0;
        return 1;
    }
    int best = pt->rank - 1;
    for (int i = pt->rank - 1; i >= 0; i--)
        if (p->contig[i] > p->contig[best])
            best = i;
    *dim = best;
    int64_t size = ty_bits(pt->elem->pointee) / 8;
    if (size <= 0)
        return 1;
    const AxisInfo *m = mask && mask->type->kind == TY_TILE ? axis_of(t, mask) : NULL;
    int64_t vec = axis_access_width(p, m, best, size);
    vec = min64(vec, max_bits / 8 / size);
    vec = min64(vec, pt->shape[best]);
    if (vec < 1)
        vec = 1;
    while (vec & (vec - 1))
        vec &= vec - 1;
    return (int)vec;
}
