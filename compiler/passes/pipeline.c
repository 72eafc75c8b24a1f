/* pipeline: software pipelining of the global loads that feed a dot (num_stages).
 *
 * With num_stages = S > 1, the loads of iteration i + S - 1 are issued at the top of iteration i,
 * before the dot of iteration i, so their latency overlaps the matrix work; iteration i consumes tiles
 * loaded S - 1 iterations earlier, carried as loop values. This is done on TIR, before layouts:
 *
 *   prologue      the loads of iterations 0 .. S-2, their masks also requiring the iteration to exist
 *   body          cur = the oldest carried tile (replaces the load's result); the load of iteration
 *                 i + S - 1 issued first thing, from the load's address computation with every loop
 *                 value advanced S - 1 iterations (the yield's computation cloned S - 1 times) and the
 *                 induction variable + (S - 1) * step; its mask also requires that iteration to exist
 *   yield         the carried tiles shift by one
 *
 * A load qualifies when it sits directly in the loop body, its result reaches a dot, and everything
 * its pointer, mask and other operands depend on inside the body is pure and computed from the loop's
 * values (so it can be recomputed for a later iteration). Loops with a dynamic step keep their loads,
 * and so do loops whose body holds a barrier() at any depth: a load issued ahead would cross the
 * barriers of the iterations in between and could miss stores of other waves that the program orders
 * before it (and the lowering moves a ring's copies within the body, across them too). */
#include <string.h>

#include "compiler/passes/passes.h"

typedef struct Map {
    Value **from, **to;
    int n, cap;
} Map;

static void map_put(Arena *a, Map *m, Value *f, Value *t)
{
    if (m->n == m->cap) {
        int cap = m->cap ? m->cap * 2 : 32;
        m->from = arena_realloc(a, m->from, sizeof(Value *) * (size_t)m->cap, sizeof(Value *) * (size_t)cap);
        m->to = arena_realloc(a, m->to, sizeof(Value *) * (size_t)m->cap, sizeof(Value *) * (size_t)cap);
        m->cap = cap;
    }
    m->from[m->n] = f;
    m->to[m->n] = t;
    m->n++;
}

static Value *map_get(const Map *m, Value *v)
{
    for (int i = m->n - 1; i >= 0; i--)
        if (m->from[i] == v)
            return m->to[i];
    return v;
}

/* Is v computed inside block b (directly)? */
static bool in_block(const Value *v, const Block *b)
{
    return v->def ? v->def->parent == b : v->owner == b;
}

/* Collects, in program order, the ops of `body` that `v` depends on; false if one is not pure or is a
 * region op. */
static bool slice(Arena *a, Block *body, Value *v, PtrVec *ops)
{
    if (!in_block(v, body) || !v->def)
        return true; /* loop-invariant, or a block argument of the loop */
    Op *op = v->def;
    for (int i = 0; i < ops->n; i++)
        if (ops->items[i] == op)
            return true;
    if (!op_is_pure(op) || op->nregions)
        return false;
    for (int i = 0; i < op->nopnds; i++)
        if (!slice(a, body, op->operands[i], ops))
            return false;
    ptrvec_push(a, ops, op);
    return true;
}

static void sort_by_position(Block *b, PtrVec *ops)
{
    int k = 0;
    for (Op *op = b->first; op; op = op->next)
        for (int i = k; i < ops->n; i++)
            if (ops->items[i] == op) {
                void *t = ops->items[k];
                ops->items[k] = op;
                ops->items[i] = t;
                k++;
                break;
            }
}

static Op *clone_op(Builder *bd, const Op *op, Map *m)
{
    Value **ops = ARENA_ARRAY(bd->func->module->arena, Value *, op->nopnds + 1);
    for (int i = 0; i < op->nopnds; i++)
        ops[i] = map_get(m, op->operands[i]);
    const Type **rt = ARENA_ARRAY(bd->func->module->arena, const Type *, op->nres + 1);
    for (int i = 0; i < op->nres; i++)
        rt[i] = op->results[i].type;
    Op *n = b_op(bd, op->code, rt, op->nres, ops, op->nopnds);
    n->at = op->at;
    n->pos = op->pos;
    for (int i = 0; i < op->nres; i++) {
        n->results[i].name = op->results[i].name;
        map_put(bd->func->module->arena, m, &((Op *)op)->results[i], op_result(n, i));
    }
    return n;
}

static bool reaches_dot(Func *f, Value *v, int depth)
{
    (void)f;
    if (depth > 6)
        return false;
    Block *b = v->def ? v->def->parent : v->owner;
    for (Op *op = b->first; op; op = op->next)
        for (int i = 0; i < op->nopnds; i++)
            if (op->operands[i] == v) {
                if (op->code == OP_DOT)
                    return true;
                if (op_is_pure(op) && op->nres == 1 && (tir_op_info[op->code].flags & F_ELEM || op->code == OP_PERMUTE) &&
                    reaches_dot(f, op_result(op, 0), depth + 1))
                    return true;
            }
    return false;
}

/* Clones the loads' address slices for iteration `ahead` iterations after the one whose loop values
 * are given by `m` (already mapping the body arguments), emitting with `bd`. `yslice` is the yield's
 * computation, cloned once per step ahead. */
static void advance(Builder *bd, Block *body, Op *yield, PtrVec *yslice, Map *m, int ahead, const bool *used,
                    Value *step)
{
    Arena *a = bd->func->module->arena;
    for (int s = 0; s < ahead; s++) {
        for (int i = 0; i < yslice->n; i++)
            clone_op(bd, yslice->items[i], m);
        Value **next = ARENA_ARRAY(a, Value *, yield->nopnds + 1);
        for (int i = 0; i < yield->nopnds; i++)
            next[i] = map_get(m, yield->operands[i]);
        for (int i = 0; i < yield->nopnds; i++)
            if (used[i + 1])
                map_put(a, m, &body->args[i + 1], next[i]);
        /* the induction variable of that iteration */
        Value *iv = map_get(m, &body->args[0]);
        map_put(a, m, &body->args[0], b_op2(bd, OP_ADD, iv->type, iv, step));
    }
}

/* The load of a later iteration: its slice cloned under m, its mask also requiring `exists`. */
static Value *clone_load(Builder *bd, Op *load, PtrVec *ls, Map *m, Value *exists)
{
    Arena *a = bd->func->module->arena;
    for (int i = 0; i < ls->n; i++)
        clone_op(bd, ls->items[i], m);
    Value *ptr = map_get(m, load->operands[0]);
    const Type *rt = load->results[0].type;
    const Type *bool_t = ty_with_elem(bd->func->module->types, ptr->type, ty_scalar(bd->func->module->types, SK_BOOL));
    Value *ex = ptr->type->kind == TY_TILE ? b_op1(bd, OP_SPLAT, bool_t, exists) : exists;
    Value *mask, *other;
    if (load->nopnds == 3) {
        mask = b_op2(bd, OP_AND, bool_t, map_get(m, load->operands[1]), ex);
        other = map_get(m, load->operands[2]);
    } else {
        mask = ex;
        other = ty_is_float(rt) ? b_const_float(bd, rt, 0.0) : b_const_int(bd, rt, 0);
    }
    Value *ops[3] = {ptr, mask, other};
    Op *n = b_op(bd, OP_LOAD, &rt, 1, ops, 3);
    n->pos = load->pos;
    n->results[0].name = load->results[0].name;
    (void)a;
    return op_result(n, 0);
}

static bool has_barrier(const Block *b)
{
    for (const Op *op = b->first; op; op = op->next) {
        if (op->code == OP_BARRIER)
            return true;
        for (int r = 0; r < op->nregions; r++)
            if (has_barrier(op->regions[r]))
                return true;
    }
    return false;
}

static bool pipeline_for(Func *f, Op *loop, int stages)
{
    Arena *a = f->module->arena;
    TypeTab *tt = f->module->types;
    Block *body = op_block(loop, 0);
    Op *yield = body->last;
    Value *lb = loop->operands[0], *ub = loop->operands[1], *st = loop->operands[2];
    if (!st->def || st->def->code != OP_CONST || st->def->at.value.i <= 0 || !yield || yield->code != OP_YIELD ||
        has_barrier(body))
        return false;
    /* the loads to pipeline */
    PtrVec loads = {0};
    PtrVec *slices = NULL;
    for (Op *op = body->first; op; op = op->next) {
        if (op->code != OP_LOAD || op->results[0].type->kind != TY_TILE || !reaches_dot(f, op_result(op, 0), 0))
            continue;
        PtrVec s = {0};
        bool ok = true;
        for (int i = 0; i < op->nopnds && ok; i++)
            ok = slice(a, body, op->operands[i], &s);
        if (!ok)
            continue;
        sort_by_position(body, &s);
        slices = arena_realloc(a, slices, sizeof(PtrVec) * (size_t)loads.n, sizeof(PtrVec) * (size_t)(loads.n + 1));
        slices[loads.n] = s;
        ptrvec_push(a, &loads, op);
    }
    if (!loads.n)
        return false;
    /* the loop values the loads' addresses use, and the yield's computation of them, which must be
     * pure to be cloned ahead (the others, such as the accumulator, are never needed ahead) */
    bool *used = ARENA_ARRAY(a, bool, body->nargs + 1);
    for (int l = 0; l < loads.n; l++) {
        Op *ld = loads.items[l];
        for (int i = 0; i < ld->nopnds; i++)
            if (ld->operands[i]->owner == body)
                used[ld->operands[i]->index] = true;
        for (int k = 0; k < slices[l].n; k++) {
            Op *op = slices[l].items[k];
            for (int i = 0; i < op->nopnds; i++)
                if (op->operands[i]->owner == body)
                    used[op->operands[i]->index] = true;
        }
    }
    /* an address value carried from another one (p = q + 1; q = ...) needs that one too */
    PtrVec ys = {0};
    for (bool grew = true; grew;) {
        grew = false;
        for (int i = 1; i < body->nargs; i++) {
            if (!used[i])
                continue;
            PtrVec one = {0};
            if (!slice(a, body, yield->operands[i - 1], &one))
                return false;
            for (int k = 0; k < one.n; k++) {
                Op *op = one.items[k];
                bool have = false;
                for (int j = 0; j < ys.n; j++)
                    have |= ys.items[j] == op;
                if (!have)
                    ptrvec_push(a, &ys, op);
                for (int j = 0; j < op->nopnds; j++)
                    if (op->operands[j]->owner == body && !used[op->operands[j]->index])
                        used[op->operands[j]->index] = grew = true;
            }
            if (yield->operands[i - 1]->owner == body && !used[yield->operands[i - 1]->index])
                used[yield->operands[i - 1]->index] = grew = true;
        }
    }
    sort_by_position(body, &ys);
    int ahead = stages - 1;
    int nl = loads.n;
    const Type *bool_t = ty_scalar(tt, SK_BOOL);
    /* prologue: the loads of iterations 0 .. ahead-1 */
    Builder bd;
    tir_builder_before(&bd, loop);
    bd.pos = loop->pos;
    Value **init = ARENA_ARRAY(a, Value *, nl * ahead + 1);
    for (int s = 0; s < ahead; s++) {
        Map m = {0};
        for (int i = 0; i < body->nargs - 1; i++)
            map_put(a, &m, &body->args[i + 1], loop->operands[3 + i]);
        map_put(a, &m, &body->args[0], lb);
        if (s)
            advance(&bd, body, yield, &ys, &m, s, used, st);
        Value *ivs = map_get(&m, &body->args[0]);
        Value *exists = b_op2(&bd, OP_CMP, bool_t, ivs, ub);
        exists->def->at.pred = ty_is_signed(ivs->type) ? PRED_LT : PRED_LT;
        for (int l = 0; l < nl; l++)
            init[s * nl + l] = clone_load(&bd, loads.items[l], &slices[l], &m, exists);
    }
    /* the new loop: old operands and arguments, plus ahead * nl carried tiles */
    int nold = loop->nopnds;
    int nnew = nold + nl * ahead;
    Value **ops = ARENA_ARRAY(a, Value *, nnew + 1);
    memcpy(ops, loop->operands, sizeof(Value *) * (size_t)nold);
    memcpy(ops + nold, init, sizeof(Value *) * (size_t)(nl * ahead));
    const Type **rt = ARENA_ARRAY(a, const Type *, nnew);
    for (int i = 0; i < loop->nres; i++)
        rt[i] = loop->results[i].type;
    for (int s = 0; s < ahead; s++)
        for (int l = 0; l < nl; l++)
            rt[loop->nres + s * nl + l] = ((Op *)loads.items[l])->results[0].type;
    Op *nloop = b_op(&bd, OP_FOR, rt, loop->nres + nl * ahead, ops, nnew);
    nloop->at = loop->at;
    for (int i = 0; i < loop->nres; i++)
        nloop->results[i].name = loop->results[i].name;
    Block *nb = op_block(nloop, 0);
    for (int i = 0; i < body->nargs; i++)
        tir_block_add_arg(nb, body->args[i].type, body->args[i].name);
    for (int s = 0; s < ahead; s++)
        for (int l = 0; l < nl; l++)
            tir_block_add_arg(nb, rt[loop->nres + s * nl + l], ((Op *)loads.items[l])->results[0].name);
    /* move the body over, then rewire its arguments */
    while (body->first) {
        Op *op = body->first;
        tir_unlink(op);
        tir_insert_end(nb, op);
    }
    for (int i = 0; i < body->nargs; i++)
        tir_replace_uses(f, &body->args[i], &nb->args[i]);
    /* the current tiles replace the loads' results */
    for (int l = 0; l < nl; l++)
        tir_replace_uses(f, op_result(loads.items[l], 0), &nb->args[body->nargs + l]);
    /* the loads of iteration i + ahead, first thing in the body */
    Builder in;
    tir_builder_before(&in, nb->first);
    in.pos = loop->pos;
    Map m = {0};
    advance(&in, nb, yield, &ys, &m, ahead, used, st);
    Value *ivs = map_get(&m, &nb->args[0]);
    Value *exists = b_op2(&in, OP_CMP, bool_t, ivs, ub);
    exists->def->at.pred = PRED_LT;
    Value **fresh = ARENA_ARRAY(a, Value *, nl + 1);
    for (int l = 0; l < nl; l++)
        fresh[l] = clone_load(&in, loads.items[l], &slices[l], &m, exists);
    /* the yield: old values, the carried tiles shifted, the fresh loads last */
    Value **yv = ARENA_ARRAY(a, Value *, yield->nopnds + nl * ahead + 1);
    if (yield->nopnds) /* a loop that carries nothing has no operands (NULL) */
        memcpy(yv, yield->operands, sizeof(Value *) * (size_t)yield->nopnds);
    for (int s = 0; s + 1 < ahead; s++)
        for (int l = 0; l < nl; l++)
            yv[yield->nopnds + s * nl + l] = &nb->args[body->nargs + (s + 1) * nl + l];
    for (int l = 0; l < nl; l++)
        yv[yield->nopnds + (ahead - 1) * nl + l] = fresh[l];
    yield->operands = yv;
    yield->nopnds += nl * ahead;
    /* the old loads are dead now; the old loop's results are the new one's */
    for (int l = 0; l < nl; l++)
        tir_erase(loads.items[l]);
    for (int i = 0; i < loop->nres; i++)
        tir_replace_uses(f, op_result(loop, i), op_result(nloop, i));
    tir_erase(loop);
    return true;
}

static bool find_loops(Block *b, PtrVec *out, Arena *a)
{
    for (Op *op = b->first; op; op = op->next) {
        if (op->code == OP_FOR)
            ptrvec_push(a, out, op);
        for (int r = 0; r < op->nregions; r++)
            find_loops(op->regions[r], out, a);
    }
    return true;
}

void pipeline_loads(Func *f)
{
    int stages = f->opts.num_stages;
    if (stages < 2)
        return;
    PtrVec loops = {0};
    find_loops(f->body, &loops, f->module->arena);
    for (int i = 0; i < loops.n; i++)
        pipeline_for(f, loops.items[i], stages);
}
