/* loop_live.c: the values live across a loop, for the estimates that ask what a loop holds in
 * registers through all its iterations (compiler/lower/reg_pressure.c before the LDS maps are chosen,
 * compiler/driver/driver_spills.c after a spill): the values the loop carries (its first region's
 * arguments, less a for's induction variable) and the values made before it that its regions read,
 * each once, in that order; and whether an op or a value sits inside a loop. */
#include "compiler/tir/tir.h"

bool tir_inside_loop(const Value *v, const Op *loop)
{
    const Block *b = v->def ? v->def->parent : v->owner;
    for (; b; b = b->parent ? b->parent->parent : NULL)
        if (b->parent == loop)
            return true;
    return false;
}

bool tir_in_loop(const Op *op)
{
    for (const Block *b = op->parent; b && b->parent; b = b->parent->parent)
        if (b->parent->code == OP_FOR || b->parent->code == OP_WHILE)
            return true;
    return false;
}

typedef struct LiveSet {
    const Value **v;
    int n, max;
} LiveSet;

static void add(LiveSet *s, const Value *v)
{
    for (int i = 0; i < s->n; i++)
        if (s->v[i] == v)
            return;
    if (s->n < s->max)
        s->v[s->n++] = v;
}

static void reads_from_outside(const Block *b, const Op *loop, LiveSet *s)
{
    for (const Op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nopnds; i++)
            if (op->operands[i] && !tir_inside_loop(op->operands[i], loop))
                add(s, op->operands[i]);
        for (int r = 0; r < op->nregions; r++)
            reads_from_outside(op->regions[r], loop, s);
    }
}

int tir_loop_live(const Op *loop, const Value **out, int max)
{
    LiveSet s = {out, 0, max};
    if (!loop || loop->nregions < 1)
        return 0;
    const Block *first = loop->regions[0];
    for (int i = loop->code == OP_FOR ? 1 : 0; i < first->nargs; i++)
        add(&s, &first->args[i]);
    for (int r = 0; r < loop->nregions; r++)
        reads_from_outside(loop->regions[r], loop, &s);
    return s.n;
}
