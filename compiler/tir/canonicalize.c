/* tir_canonicalize: folding, simplification, CSE and DCE of a function, to a fixed point.
 *
 * Each round walks the function once in program order (which, in structured IR, visits every
 * definition before its uses) and then removes dead code backwards:
 *  - operands are first replaced by what their values were forwarded to earlier in the walk
 *    (Value.scratch holds the forwarding pointer during the walk);
 *  - a pure op that always equals an existing value (fold.c: x + 0, select(true, a, b), ...) has its
 *    result forwarded to it; one that computes a constant becomes a `const` in place (a tile constant
 *    is a splat); shape ops of splats become splats;
 *  - `if` with a constant condition is replaced by the ops of the taken region, its results by what
 *    that region yields; `for` whose lower bound is not below its upper bound (constants) runs zero
 *    times and is replaced by its initial values;
 *  - CSE: a pure op equal to an earlier one (opcode, operands — either order for commutative ops —,
 *    the attributes the op uses, result types) of the same or an enclosing block is replaced by it.
 *    A hash table of buckets keeps the ops in scope; a region's entries are removed when the walk
 *    leaves it (in reverse order of insertion, so each is at the head of its bucket);
 *  - DCE: pure ops without uses are removed, and `if` ops without used results whose regions hold only
 *    pure ops. Loops are kept even when unused (a `for` with a zero step never ends) and so are their
 *    unused iter values.
 * A round is linear in the size of the function; rounds repeat while the walk changed something
 * (rarely more than twice, since the walk already sees the effect of earlier changes). Assumes
 * verified IR and keeps it verified. */
#include <string.h>

#include "compiler/tir/tir_impl.h"

typedef struct CseEnt {
    Op *op;
    uint64_t hash;
    struct CseEnt *next;
} CseEnt;

typedef struct Canon {
    Func *f;
    Arena *a;
    bool changed;
    CseEnt **buckets;
    size_t mask;
    CseEnt *pool;
    size_t npool, cappool;
    size_t *undo; /* bucket of each entry, in insertion order */
    size_t nundo;
} Canon;

/* ---- forwarding ---- */

static Value *resolve(Value *v)
{
    while (v && v->scratch)
        v = (Value *)(intptr_t)v->scratch;
    return v;
}

static void forward(Canon *c, Value *from, Value *to)
{
    to = resolve(to);
    if (to == from)
        return;
    from->scratch = (int64_t)(intptr_t)to;
    c->changed = true;
}

/* Clears the forwarding pointers and counts the ops. */
static size_t clear_block(Block *b)
{
    size_t n = 0;
    for (int i = 0; i < b->nargs; i++)
        b->args[i].scratch = 0;
    for (Op *op = b->first; op; op = op->next) {
        n++;
        for (int i = 0; i < op->nres; i++)
            op->results[i].scratch = 0;
        for (int r = 0; r < op->nregions; r++)
            n += clear_block(op->regions[r]);
    }
    return n;
}

/* ---- CSE ---- */

static uint64_t mix(uint64_t h, uint64_t x)
{
    h ^= x + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9ull;
}

static uint64_t hptr(const void *p) { return mix(0, (uint64_t)(uintptr_t)p); }

static bool commutes(const Op *op) { return (tir_op_info[op->code].flags & F_COMM) && op->nopnds == 2; }

static uint64_t op_hash(const Op *op)
{
    uint64_t h = mix((uint64_t)op->code, (uint64_t)op->nres);
    for (int i = 0; i < op->nres; i++)
        h = mix(h, hptr(op->results[i].type));
    if (commutes(op)) {
        h = mix(h, hptr(op->operands[0]) + hptr(op->operands[1]));
    } else {
        for (int i = 0; i < op->nopnds; i++)
            h = mix(h, hptr(op->operands[i]));
    }
    unsigned m = tir_op_info[op->code].attrs;
    const Attrs *at = &op->at;
    if (m & A_VALUE) h = mix(h, (uint64_t)at->value.i);
    if (m & A_AXIS) h = mix(h, (uint64_t)at->axis);
    if (m & A_PRED) h = mix(h, (uint64_t)at->pred);
    if (m & A_KIND) h = mix(h, (uint64_t)at->kind);
    if (m & A_START) h = mix(h, (uint64_t)at->start);
    if (m & A_END) h = mix(h, (uint64_t)at->end);
    if (m & A_N) h = mix(h, (uint64_t)at->n);
    if (m & A_SEM) h = mix(h, (uint64_t)at->sem);
    if (m & A_REVERSE) h = mix(h, (uint64_t)at->reverse);
    if (m & A_EXCLUSIVE) h = mix(h, (uint64_t)at->exclusive);
    if (m & A_SCOPE) h = mix(h, (uint64_t)at->scope);
    if (m & A_MSG) h = mix(h, at->msg ? hash_bytes(at->msg, strlen(at->msg), 0) : 0);
    if (m & A_DIMS)
        for (int i = 0; i < at->ndims; i++)
            h = mix(h, (uint64_t)at->dims[i]);
    return h;
}

static bool attrs_equal(const Attrs *x, const Attrs *y, unsigned m)
{
    /* `value` compares as bits: +0.0 and -0.0 are different constants, equal NaNs the same */
    if ((m & A_VALUE) && x->value.i != y->value.i) return false;
    if ((m & A_AXIS) && x->axis != y->axis) return false;
    if ((m & A_PRED) && x->pred != y->pred) return false;
    if ((m & A_KIND) && x->kind != y->kind) return false;
    if ((m & A_START) && x->start != y->start) return false;
    if ((m & A_END) && x->end != y->end) return false;
    if ((m & A_N) && x->n != y->n) return false;
    if ((m & A_SEM) && x->sem != y->sem) return false;
    if ((m & A_REVERSE) && x->reverse != y->reverse) return false;
    if ((m & A_EXCLUSIVE) && x->exclusive != y->exclusive) return false;
    if ((m & A_SCOPE) && x->scope != y->scope) return false;
    if ((m & A_MSG) && strcmp(x->msg ? x->msg : "", y->msg ? y->msg : "") != 0) return false;
    if (m & A_DIMS) {
        if (x->ndims != y->ndims)
            return false;
        for (int i = 0; i < x->ndims; i++)
            if (x->dims[i] != y->dims[i])
                return false;
    }
    return true;
}

static bool ops_equal(const Op *x, const Op *y)
{
    if (x->code != y->code || x->nres != y->nres || x->nopnds != y->nopnds)
        return false;
    for (int i = 0; i < x->nres; i++)
        if (x->results[i].type != y->results[i].type)
            return false;
    bool same = true;
    for (int i = 0; same && i < x->nopnds; i++)
        same = x->operands[i] == y->operands[i];
    if (!same && !(commutes(x) && x->operands[0] == y->operands[1] && x->operands[1] == y->operands[0]))
        return false;
    return attrs_equal(&x->at, &y->at, tir_op_info[x->code].attrs);
}

/* The equal op already in scope, or NULL after adding op to the scope. */
static Op *cse(Canon *c, Op *op)
{
    uint64_t h = op_hash(op);
    size_t b = (size_t)(h ^ (h >> 32)) & c->mask;
    for (CseEnt *e = c->buckets[b]; e; e = e->next)
        if (e->hash == h && ops_equal(e->op, op))
            return e->op;
    if (c->npool == c->cappool)
        return NULL; /* cannot happen: one entry per op counted before the walk */
    CseEnt *e = &c->pool[c->npool++];
    e->op = op;
    e->hash = h;
    e->next = c->buckets[b];
    c->buckets[b] = e;
    c->undo[c->nundo++] = b;
    return NULL;
}

static void end_scope(Canon *c, size_t mark)
{
    while (c->nundo > mark) {
        size_t b = c->undo[--c->nundo];
        c->buckets[b] = c->buckets[b]->next;
    }
}

/* ---- the walk ---- */

static void simplify(Canon *c, Op *op)
{
    for (;;) {
        Value *to = tir_fold_to_value(op);
        if (to) {
            forward(c, &op->results[0], to);
            return; /* op is dead: DCE removes it */
        }
        if (tir_fold_to_const(op)) {
            c->changed = true;
            break;
        }
        if (!tir_fold_shape(op))
            break;
        c->changed = true;
    }
    Op *same = cse(c, op);
    if (same)
        for (int i = 0; i < op->nres; i++)
            forward(c, &op->results[i], &same->results[i]);
}

static const Op *const_def(const Value *v) { return v->def && v->def->code == OP_CONST ? v->def : NULL; }

/* Moves the ops of the taken region of an `if` with a constant condition before it and removes it.
 * Returns the first moved op (NULL when the region held only its yield); *done says it happened. */
static Op *fold_if(Canon *c, Op *op, bool *done)
{
    const Op *cond = const_def(op->operands[0]);
    Block *taken = cond ? op->regions[cond->at.value.i ? 0 : 1] : NULL;
    *done = false;
    if (!taken || !taken->last || taken->last->code != OP_YIELD || taken->last->nopnds != op->nres)
        return NULL;
    Op *yield = taken->last, *first = NULL;
    for (Op *x = taken->first; x != yield;) {
        Op *nx = x->next;
        tir_unlink(x);
        tir_insert_before(op, x);
        if (!first)
            first = x;
        x = nx;
    }
    for (int i = 0; i < op->nres; i++)
        forward(c, &op->results[i], yield->operands[i]);
    tir_unlink(op);
    c->changed = true;
    *done = true;
    return first;
}

/* A `for` whose constant bounds say it runs zero times: lb >= ub in the bounds' signedness. */
static bool never_runs(const Op *op)
{
    const Op *lb = const_def(op->operands[0]), *ub = const_def(op->operands[1]);
    if (!lb || !ub)
        return false;
    int64_t l = lb->at.value.i, u = ub->at.value.i;
    const Op *st = const_def(op->operands[2]);
    if (ty_is_signed(op->operands[0]->type)) {
        if (!st)
            return false; /* the direction is unknown */
        return st->at.value.i > 0 ? l >= u : st->at.value.i < 0 ? l <= u : false;
    }
    uint64_t m = tir_int_mask(ty_elem(op->operands[0]->type)->sk);
    return ((uint64_t)l & m) >= ((uint64_t)u & m);
}

static void walk_block(Canon *c, Block *b)
{
    size_t mark = c->nundo;
    for (Op *op = b->first; op;) {
        Op *next = op->next;
        for (int i = 0; i < op->nopnds; i++)
            op->operands[i] = resolve(op->operands[i]);
        if (op->code == OP_IF) {
            bool done;
            Op *first = fold_if(c, op, &done);
            if (done) {
                op = first ? first : next;
                continue;
            }
        }
        if (op->code == OP_FOR && op->nopnds >= 3 && never_runs(op)) {
            for (int i = 0; i < op->nres; i++)
                forward(c, &op->results[i], op->operands[3 + i]);
            tir_unlink(op);
            c->changed = true;
            op = next;
            continue;
        }
        for (int r = 0; r < op->nregions; r++)
            walk_block(c, op->regions[r]);
        if (op_is_pure(op) && !op->nregions && op->nres > 0)
            simplify(c, op);
        op = next;
    }
    end_scope(c, mark);
}

/* ---- DCE (Value.scratch holds use counts here) ---- */

static void drop_uses(Op *op)
{
    for (int i = 0; i < op->nopnds; i++)
        op->operands[i]->scratch--;
    for (int r = 0; r < op->nregions; r++)
        for (Op *x = op->regions[r]->first; x; x = x->next)
            drop_uses(x);
}

static bool removable(const Op *op)
{
    for (int i = 0; i < op->nres; i++)
        if (op->results[i].scratch)
            return false;
    if (op_is_pure(op))
        return true;
    if (op->code != OP_IF)
        return false;
    for (int r = 0; r < op->nregions; r++)
        for (const Op *x = op->regions[r]->first; x; x = x->next)
            if (!op_is_pure(x) && x->code != OP_YIELD)
                return false;
    return true;
}

/* Backwards, regions first: removing an op can free the ops that feed it, which come earlier. */
static void dce_block(Block *b)
{
    for (Op *op = b->last; op;) {
        Op *prev = op->prev;
        for (int r = 0; r < op->nregions; r++)
            dce_block(op->regions[r]);
        if (removable(op)) {
            drop_uses(op);
            tir_unlink(op);
        }
        op = prev;
    }
}

void tir_canonicalize(Func *f)
{
    Canon c = {0};
    c.f = f;
    c.a = f->module->arena;
    for (int round = 0; round < 16; round++) {
        size_t nops = clear_block(f->body);
        size_t nb = 16;
        while (nb < 2 * nops)
            nb *= 2;
        c.buckets = ARENA_ARRAY(c.a, CseEnt *, nb);
        c.mask = nb - 1;
        c.pool = ARENA_ARRAY(c.a, CseEnt, nops + 1);
        c.cappool = nops + 1;
        c.npool = 0;
        c.undo = ARENA_ARRAY(c.a, size_t, nops + 1);
        c.nundo = 0;
        c.changed = false;
        walk_block(&c, f->body);
        tir_count_uses(f);
        dce_block(f->body);
        if (!c.changed)
            break;
    }
}
