/* Pointer provenance (provenance.h): a fixpoint over the function's values in the lattice
 * unset < parameter i < unknown, structured control flow joining at if results, loop-carried
 * arguments and loop results. Monotone, so it ends after at most two changes per value. */
#include "compiler/tir/provenance.h"

#include <stdbool.h>

enum { UNSET = 0, UNKNOWN = -1 }; /* and i + 1 for parameter i */

typedef struct Prov {
    int32_t *p;
    ProvId id;
    void *ud;
    bool changed;
} Prov;

static bool is_ptr(const Value *v) { return ty_elem(v->type)->kind == TY_PTR; }

static int32_t get(const Prov *s, const Value *v)
{
    int32_t i = v ? s->id(s->ud, v) : -1;
    return i < 0 ? UNKNOWN : s->p[i];
}

static int32_t meet(int32_t a, int32_t b)
{
    if (a == UNSET)
        return b;
    if (b == UNSET || a == b)
        return a;
    return UNKNOWN;
}

static void join(Prov *s, const Value *v, int32_t x)
{
    int32_t i = s->id(s->ud, v);
    if (i < 0 || !is_ptr(v))
        return;
    int32_t m = meet(s->p[i], x);
    if (m != s->p[i]) {
        s->p[i] = m;
        s->changed = true;
    }
}

static const Op *term_of(const Block *b) { return b && b->last && (op_info(b->last)->flags & F_TERM) ? b->last : NULL; }

static void walk(Prov *s, const Block *b)
{
    for (const Op *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++)
            if (op->regions[r])
                walk(s, op->regions[r]);
        if (op->code == OP_ADDPTR || op_carries_operand0(op->code)) {
            if (op->nres == 1 && op->nopnds >= 1)
                join(s, &op->results[0], get(s, op->operands[0]));
        } else switch (op->code) {
        case OP_SELECT:
            if (op->nres == 1 && op->nopnds == 3)
                join(s, &op->results[0], meet(get(s, op->operands[1]), get(s, op->operands[2])));
            break;
        case OP_IF: {
            for (int r = 0; r < op->nregions && r < 2; r++) {
                const Op *y = term_of(op->regions[r]);
                for (int i = 0; i < op->nres; i++)
                    join(s, &op->results[i], y && i < y->nopnds ? get(s, y->operands[i]) : UNKNOWN);
            }
            break;
        }
        case OP_FOR: {
            /* operands lb, ub, step, inits; body args (iv, iters); yield iters; results = iters */
            const Block *body = op->nregions ? op->regions[0] : NULL;
            const Op *y = term_of(body);
            for (int i = 0; i < op->nres; i++) {
                int32_t x = meet(3 + i < op->nopnds ? get(s, op->operands[3 + i]) : UNKNOWN,
                                 y && i < y->nopnds ? get(s, y->operands[i]) : UNKNOWN);
                if (body && 1 + i < body->nargs)
                    join(s, &body->args[1 + i], x);
                join(s, &op->results[i], x);
            }
            break;
        }
        case OP_WHILE: {
            /* inits -> before args; condition's vals -> after args and results; after's yield -> before args */
            const Block *before = op->nregions > 0 ? op->regions[0] : NULL;
            const Block *after = op->nregions > 1 ? op->regions[1] : NULL;
            const Op *c = term_of(before), *y = term_of(after);
            for (int i = 0; before && i < before->nargs; i++)
                join(s, &before->args[i], meet(i < op->nopnds ? get(s, op->operands[i]) : UNKNOWN,
                                               y && i < y->nopnds ? get(s, y->operands[i]) : UNKNOWN));
            for (int i = 0; i < op->nres; i++) {
                int32_t x = c && 1 + i < c->nopnds ? get(s, c->operands[1 + i]) : UNKNOWN;
                if (after && i < after->nargs)
                    join(s, &after->args[i], x);
                join(s, &op->results[i], x);
            }
            break;
        }
        default:
            /* a pointer from memory, a cast, anything else: not known */
            for (int i = 0; i < op->nres; i++)
                join(s, &op->results[i], UNKNOWN);
            break;
        }
    }
}

static void clear(Prov *s, const Block *b)
{
    for (int i = 0; i < b->nargs; i++) {
        int32_t k = s->id(s->ud, &b->args[i]);
        if (k >= 0)
            s->p[k] = UNSET;
    }
    for (const Op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nres; i++) {
            int32_t k = s->id(s->ud, &op->results[i]);
            if (k >= 0)
                s->p[k] = UNSET;
        }
        for (int r = 0; r < op->nregions; r++)
            if (op->regions[r])
                clear(s, op->regions[r]);
    }
}

static void finish(Prov *s, const Block *b)
{
    for (int i = 0; i < b->nargs; i++) {
        int32_t k = s->id(s->ud, &b->args[i]);
        if (k >= 0 && s->p[k] < 0)
            s->p[k] = 0;
    }
    for (const Op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nres; i++) {
            int32_t k = s->id(s->ud, &op->results[i]);
            if (k >= 0 && s->p[k] < 0)
                s->p[k] = 0;
        }
        for (int r = 0; r < op->nregions; r++)
            if (op->regions[r])
                finish(s, op->regions[r]);
    }
}

void compute_provenance(const Func *f, int32_t *prov, ProvId id, void *ud)
{
    Prov s = {prov, id, ud, false};
    const Block *body = f->body;
    if (!body)
        return;
    clear(&s, body);
    for (int i = 0; i < body->nargs; i++)
        if (is_ptr(&body->args[i]) && body->args[i].type->kind == TY_PTR)
            join(&s, &body->args[i], i + 1);
    do {
        s.changed = false;
        walk(&s, body);
    } while (s.changed);
    finish(&s, body); /* UNKNOWN (-1) becomes 0; UNSET stays 0 */
}
