/* remove_converts: conversions that move nothing.
 *
 * assign_layouts places converts only where an anchor's result is needed in another layout, but a
 * chain can still arise (a value converted, then converted again) and a convert to the layout the
 * value already has is a no-op. This pass folds convert(convert(x, L1), L2) to convert(x, L2), drops
 * converts whose source already has the target layout, and erases converts left unused. */
#include "compiler/passes/passes.h"

static bool fold(Op *op, void *ud)
{
    bool *changed = ud;
    if (op->code != OP_CONVERT_LAYOUT)
        return true;
    Value *src = op->operands[0];
    if (src->def && src->def->code == OP_CONVERT_LAYOUT) {
        op->operands[0] = src->def->operands[0];
        *changed = true;
    }
    return true;
}

typedef struct Same {
    Func *f;
    bool changed;
} Same;

static bool drop_same(Op *op, void *ud)
{
    Same *s = ud;
    if (op->code == OP_CONVERT_LAYOUT && op->operands[0]->type == op->results[0].type) {
        tir_replace_uses(s->f, op_result(op, 0), op->operands[0]);
        s->changed = true;
    }
    return true;
}

static bool erase_dead(Block *b)
{
    bool changed = false;
    for (Op *op = b->first; op;) {
        Op *next = op->next;
        for (int r = 0; r < op->nregions; r++)
            changed |= erase_dead(op->regions[r]);
        if (op->code == OP_CONVERT_LAYOUT && op->results[0].scratch == 0) {
            tir_erase(op);
            changed = true;
        }
        op = next;
    }
    return changed;
}

void remove_converts(Func *f)
{
    for (int round = 0; round < 4; round++) {
        bool changed = false;
        tir_walk_func(f, fold, &changed);
        Same s = {f, false};
        tir_walk_func(f, drop_same, &s);
        tir_count_uses(f);
        changed |= s.changed | erase_dead(f->body);
        if (!changed)
            break;
    }
}
