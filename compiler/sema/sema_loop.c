/* Loops: `for` (an scf-style for, or a while when it may break or return), `while`, and `static for`
 * (unrolled at compile time). The vars a loop body assigns are found by a syntactic scan before the
 * body is emitted (the loop's block arguments must exist first) and carried as iteration values;
 * break and return flags are carried too when the body may set them (see sema_stmt.c). */
#include <string.h>

#include "compiler/sema/sema_internal.h"
#include "parser.h"

enum { MAX_STATIC_UNROLL = 4096 };

/* ---- syntactic scans ---- */

typedef struct Scan {
    const char **names; /* assigned names */
    int n, cap;
    bool brk;  /* a break/continue for this loop (not for a nested one) */
    bool ret;  /* a return anywhere */
} Scan;

static void scan_add(Sema *S, Scan *sc, const char *name)
{
    for (int i = 0; i < sc->n; i++)
        if (sc->names[i] == name)
            return;
    if (sc->n == sc->cap) {
        sc->cap = sc->cap ? sc->cap * 2 : 8;
        sc->names = arena_realloc(S->arena, sc->names, sizeof(char *) * (size_t)sc->n, sizeof(char *) * (size_t)sc->cap);
    }
    sc->names[sc->n++] = name;
}

static void scan_stmt(Sema *S, Node *n, Scan *sc, int loop_depth)
{
    if (!n)
        return;
    switch (n->kind) {
    case AST_ASSIGN:
        scan_add(S, sc, n->name);
        break;
    case AST_BREAK:
    case AST_CONTINUE:
        if (loop_depth == 0 && n->kind == AST_BREAK)
            sc->brk = true;
        break;
    case AST_RETURN:
        sc->ret = true;
        break;
    case AST_BLOCK:
        for (int i = 0; i < n->list.n; i++)
            scan_stmt(S, n->list.items[i], sc, loop_depth);
        break;
    case AST_IF:
        scan_stmt(S, n->b, sc, loop_depth);
        scan_stmt(S, n->c, sc, loop_depth);
        break;
    case AST_FOR:
        scan_stmt(S, n->d, sc, loop_depth + 1);
        break;
    case AST_WHILE:
        scan_stmt(S, n->b, sc, loop_depth + 1);
        break;
    default:
        break;
    }
}

/* ---- loops ---- */

/* The vars a loop body assigns, in scope order, plus the flags the loop needs carried. */
static VarSet carried_vars(Sema *S, Node *body, Scan *scan)
{
    memset(scan, 0, sizeof *scan);
    scan_stmt(S, body, scan, 0);
    VarSet all = sema_visible_vars(S), out = {0};
    out.b = ARENA_ARRAY(S->arena, Binding *, all.n + 1);
    Frame *fn = sema_fn_frame(S);
    for (int i = 0; i < all.n; i++) {
        Binding *b = all.b[i];
        bool take = false;
        if (b->kind == BIND_VAR) {
            for (int k = 0; k < scan->n; k++)
                if (scan->names[k] == b->name && sema_lookup(S, b->name) == b)
                    take = true;
        } else if (fn && scan->ret && (b == fn->ret || b == fn->retval)) {
            take = true;
        }
        if (take && b->val.kind != SV_ERR)
            out.b[out.n++] = b;
    }
    return out;
}

typedef struct LoopInfo {
    VarSet vars;   /* carried user vars and flags */
    Value **inits;
    const Type **types;
    int nflat;
    Binding *unset_value; /* the fn's return value, not carried because no return has set it yet */
    bool unset_set;       /* ... and a return in the loop set it: an error, which outlives the loop */
} LoopInfo;

static bool loop_inits(Sema *S, LoopInfo *li, Loc loc)
{
    int n = 0;
    for (int i = 0; i < li->vars.n; i++) {
        Binding *b = li->vars.b[i];
        if (b->val.kind == SV_UNINIT) {
            /* A return in the loop of a fn: fine for `return;`; a value cannot be carried without
             * its type, which is known only once a return has given one (see carried_now). */
            li->unset_value = b;
            li->vars.b[i--] = li->vars.b[--li->vars.n];
            continue;
        }
        n += sema_flat_count(&b->val);
    }
    li->inits = ARENA_ARRAY(S->arena, Value *, n + 1);
    li->types = ARENA_ARRAY(S->arena, const Type *, n + 1);
    int k = 0;
    for (int i = 0; i < li->vars.n; i++)
        if (!sema_flatten(S, li->vars.b[i]->val, li->inits, &k, loc))
            return false;
    for (int j = 0; j < k; j++)
        li->types[j] = li->inits[j]->type;
    li->nflat = k;
    return true;
}

/* Binds the carried vars to block arguments args[0..], keeping their shapes (tuples). */
static void bind_carried(Sema *S, LoopInfo *li, Value **args)
{
    int k = 0;
    for (int i = 0; i < li->vars.n; i++) {
        SVal like = li->vars.b[i]->val;
        li->vars.b[i]->val = sema_unflatten(S, &like, args, &k);
    }
}

/* The carried vars' current values, checked against the loop's types; NULL after an error. */
static Value **carried_now(Sema *S, LoopInfo *li, Loc loc)
{
    if (li->unset_value && li->unset_value->val.kind != SV_UNINIT) {
        Frame *fn = sema_fn_frame(S);
        if (li->unset_value->val.kind != SV_ERR)
            sema_error(S, fn ? fn->value_ret_loc : loc, "returning a value from inside a loop is not supported yet: "
                       "assign the value to a var, break, and return after the loop");
        li->unset_value->val = sv_err();
        li->unset_set = true;
        return NULL;
    }
    Value **vals = ARENA_ARRAY(S->arena, Value *, li->nflat + 1);
    int k = 0;
    for (int i = 0; i < li->vars.n; i++) {
        Binding *b = li->vars.b[i];
        int before = k;
        if (b->val.kind == SV_ERR || !sema_flatten(S, b->val, vals, &k, loc))
            return NULL;
        for (int j = before; j < k; j++)
            if (vals[j]->type != li->types[j]) {
                sema_error(S, loc, "%s changes type inside the loop: %s before, %s after", sema_var_label(S, b),
                           ty_str(S->arena, S->types, li->types[j]), ty_str(S->arena, S->types, vals[j]->type));
                return NULL;
            }
    }
    return vals;
}

static Value **block_args(Sema *S, Block *blk, int first, int n)
{
    Value **v = ARENA_ARRAY(S->arena, Value *, n + 1);
    for (int i = 0; i < n; i++)
        v[i] = &blk->args[first + i];
    return v;
}

static Value **block_args_of_results(Sema *S, Op *op, int first, int n)
{
    Value **v = ARENA_ARRAY(S->arena, Value *, n + 1);
    for (int i = 0; i < n; i++)
        v[i] = op_result(op, first + i);
    return v;
}

static void name_args(Block *blk, int first, LoopInfo *li)
{
    int k = first;
    for (int i = 0; i < li->vars.n; i++) {
        int c = sema_flat_count(&li->vars.b[i]->val);
        for (int j = 0; j < c; j++, k++)
            if (li->vars.b[i]->kind == BIND_VAR)
                blk->args[k].name = li->vars.b[i]->name;
    }
}

static void set_results(Sema *S, Op *op, LoopInfo *li)
{
    op->nres = li->nflat;
    op->results = ARENA_ARRAY(S->arena, Value, li->nflat + 1);
    for (int k = 0; k < li->nflat; k++) {
        op->results[k].type = li->types[k];
        op->results[k].def = op;
        op->results[k].index = k;
    }
    Value **res = ARENA_ARRAY(S->arena, Value *, li->nflat + 1);
    for (int k = 0; k < li->nflat; k++)
        res[k] = op_result(op, k);
    bind_carried(S, li, res);
    int k = 0;
    for (int i = 0; i < li->vars.n; i++) {
        int c = sema_flat_count(&li->vars.b[i]->val);
        for (int j = 0; j < c; j++, k++)
            if (li->vars.b[i]->kind == BIND_VAR)
                op->results[k].name = li->vars.b[i]->name;
    }
}

/* Common preparation of loop operands: a loop scope holding the break flag and the frame. */
typedef struct LoopCtx {
    Scope scope;
    Frame frame;
    Scan scan;
    LoopInfo li;
    SVal *saved;
    VarSet all;
} LoopCtx;

static void loop_begin(Sema *S, LoopCtx *lc, Node *body)
{
    memset(lc, 0, sizeof *lc);
    sema_push_scope(S, &lc->scope);
    lc->frame.outer = S->frame;
    lc->frame.is_loop = true;
    lc->frame.brk = sema_hidden(S, "<break>", sv_bool(S, false));
    lc->li.vars = carried_vars(S, body, &lc->scan);
    if (lc->scan.brk) { /* the break flag itself is carried */
        lc->li.vars.b[lc->li.vars.n++] = lc->frame.brk;
    }
    lc->all = sema_visible_vars(S);
    lc->saved = sema_snapshot(S, lc->all);
}

static void loop_end(Sema *S, LoopCtx *lc, Frame *outer_frame, Scope *outer_scope)
{
    S->frame = outer_frame;
    S->scope = outer_scope;
    if (lc->li.unset_set)
        lc->li.unset_value->val = sv_err();
}

/* At the top of a `while` body the carried break and return flags are clear: the condition that led
 * there tested them. Knowing it keeps their updates in the body constant where they can be. */
static void clear_flags(Sema *S, LoopCtx *lc)
{
    Frame *fn = lc->frame.outer;
    while (fn && fn->is_loop)
        fn = fn->outer;
    for (int i = 0; i < lc->li.vars.n; i++) {
        Binding *b = lc->li.vars.b[i];
        if (b == lc->frame.brk || (fn && b == fn->ret))
            b->val = sv_bool(S, false);
    }
}

/* The body of a loop iteration: a scope with the induction variable and a fresh continue flag. */
static void emit_body(Sema *S, Node *n, Frame *fr, const char *ivname, SVal iv)
{
    Scope body = {0};
    sema_push_scope(S, &body);
    if (ivname)
        sema_bind(S, &body, ivname, BIND_LET, iv, n->loc);
    fr->cont = sema_hidden(S, "<continue>", sv_bool(S, false));
    Frame *outer = S->frame;
    S->frame = fr;
    Node *blk = n->kind == AST_FOR ? n->d : n->b;
    sema_emit_stmts(S, blk->list.items, blk->list.n);
    S->frame = outer;
    S->scope = body.parent;
}

static SVal int_operand(Sema *S, Node *e, const char *what)
{
    SVal v = sema_eval_expr(S, e);
    if (v.kind == SV_ERR)
        return v;
    const Type *t = sv_type(S, &v);
    if (!t || t->kind != TY_SCALAR || !sk_is_int(t->sk))
        return sema_error(S, e->loc, "the %s of a for loop must be a scalar integer, not %s", what, sv_describe(S, &v));
    return v;
}

typedef struct StaticIter {
    Node *n;
    Frame *fr;
    int64_t k, hi, step;
} StaticIter;

static void static_iters(Sema *S, void *ctx)
{
    StaticIter *it = ctx;
    for (; it->step > 0 ? it->k < it->hi : it->k > it->hi; it->k += it->step) {
        if (S->work > MAX_KERNEL_WORK)
            return; /* too large (reported): stop unrolling */
        emit_body(S, it->n, it->fr, it->n->name, sv_weak_int(S, it->k));
        /* after an iteration: a set break (or return) ends the unrolling */
        Frame *fn = sema_fn_frame(S);
        Binding *flags[2] = {it->fr->brk, fn ? fn->ret : NULL}, *pin;
        SVal ex = sema_flags_or(S, flags, 2, it->n->loc, &pin);
        if (ex.kind == SV_ERR)
            return;
        if (ex.kind == SV_CONST) {
            if (ex.c.i)
                return;
            continue;
        }
        StaticIter next = *it;
        next.k += next.step;
        if (next.step > 0 ? next.k >= next.hi : next.k <= next.hi)
            return;
        Value *notx = b_op1(&S->b, OP_NOT, ex.v->type, ex.v);
        sema_emit_if(S, notx, static_iters, &next, NULL, NULL, pin, it->n->loc);
        return;
    }
}

static void emit_static_for(Sema *S, Node *n, SVal lo, SVal hi, SVal st)
{
    int64_t a, b, step = 1;
    if (!sv_const_int(S, lo, n->a->loc, "the start of a static for", &a) ||
        !sv_const_int(S, hi, n->b->loc, "the end of a static for", &b) ||
        (n->c && !sv_const_int(S, st, n->c->loc, "the step of a static for", &step)))
        return;
    if (step == 0) {
        sema_error(S, n->c->loc, "the step of a for loop must not be 0");
        return;
    }
    int64_t count = step > 0 ? (b > a ? (b - a + step - 1) / step : 0) : (a > b ? (a - b - step - 1) / -step : 0);
    if (count > MAX_STATIC_UNROLL) {
        sema_error(S, n->loc, "static for unrolls %lld iterations; the limit is %d", (long long)count,
                   MAX_STATIC_UNROLL);
        return;
    }
    Scope *outer_scope = S->scope;
    Frame *outer_frame = S->frame;
    Scope sc = {0};
    sema_push_scope(S, &sc);
    Frame fr = {0};
    fr.outer = outer_frame;
    fr.is_loop = true;
    fr.brk = sema_hidden(S, "<break>", sv_bool(S, false));
    StaticIter it = {n, &fr, a, b, step};
    static_iters(S, &it);
    S->frame = outer_frame;
    S->scope = outer_scope;
}

/* The next induction variable of the while form of a run-time for loop: iv + step, or the end when the
 * addition would pass the type's limit, so that the loop ends there instead of wrapping around (the trip
 * count of the loop without break, docs/language.md). Overflow shows as a sum on the wrong side of iv. */
static SVal step_past_end(Sema *S, SVal iv, SVal st, Value *vst, Value *vhi, const Type *ivt, Loc loc)
{
    SVal next = sema_eval_binary(S, TOK_PLUS, iv, sv_dyn(vst), loc);
    SVal wrapped;
    if (!sk_is_signed(ivt->sk) || (st.kind == SV_CONST && st.c.i > 0))
        wrapped = sema_eval_binary(S, TOK_LT, next, iv, loc);
    else if (st.kind == SV_CONST)
        wrapped = sema_eval_binary(S, TOK_GT, next, iv, loc);
    else {
        SVal below = sema_eval_binary(S, TOK_LT, next, iv, loc);
        SVal above = sema_eval_binary(S, TOK_GT, next, iv, loc);
        SVal pos = sema_eval_binary(S, TOK_GT, sv_dyn(vst), sv_int(ivt, 0), loc);
        wrapped = sv_dyn(b_op3(&S->b, OP_SELECT, below.v->type, pos.v, below.v, above.v));
    }
    if (wrapped.kind != SV_DYN || next.kind != SV_DYN)
        return next;
    return sv_dyn(b_op3(&S->b, OP_SELECT, next.v->type, wrapped.v, vhi, next.v));
}

void sema_emit_for(Sema *S, Node *n)
{
    SVal lo = int_operand(S, n->a, "start"), hi = int_operand(S, n->b, "end");
    SVal st = n->c ? int_operand(S, n->c, "step") : sv_weak_int(S, 1);
    if (lo.kind == SV_ERR || hi.kind == SV_ERR || st.kind == SV_ERR)
        return;
    if (n->flags & AST_FLAG_STATIC) {
        emit_static_for(S, n, lo, hi, st);
        return;
    }
    if (st.kind == SV_CONST && st.c.i == 0) {
        sema_error(S, n->c->loc, "the step of a for loop must not be 0");
        return;
    }
    /* One integer type for the induction variable: the promotion of the bounds and step. */
    const Type *ivt = sema_promote_elem(S, &lo, &hi);
    SVal probe = {0};
    probe.kind = SV_CONST;
    probe.type = ivt;
    probe.weak = lo.kind == SV_CONST && lo.weak && hi.kind == SV_CONST && hi.weak;
    ivt = ivt ? sema_promote_elem(S, &probe, &st) : NULL;
    if (!ivt || !sk_is_int(ivt->sk)) {
        sema_error(S, n->loc, "the bounds of a for loop must be integers of compatible types, got %s and %s",
                   sv_describe(S, &lo), sv_describe(S, &hi));
        return;
    }
    if (probe.weak && st.kind == SV_CONST && st.weak)
        ivt = ty_scalar(S->types, SK_I32);
    lo = sema_convert_operand(S, lo, ivt, n->a->loc);
    hi = sema_convert_operand(S, hi, ivt, n->b->loc);
    st = sema_convert_operand(S, st, ivt, n->c ? n->c->loc : n->loc);
    if (lo.kind == SV_ERR || hi.kind == SV_ERR || st.kind == SV_ERR)
        return;
    if (lo.kind == SV_CONST && hi.kind == SV_CONST && st.kind == SV_CONST) {
        bool none = sk_is_signed(ivt->sk) ? (st.c.i > 0 ? lo.c.i >= hi.c.i : lo.c.i <= hi.c.i)
                                          : (uint64_t)lo.c.i >= (uint64_t)hi.c.i;
        if (none)
            return;
    }
    Scope *outer_scope = S->scope;
    Frame *outer_frame = S->frame;
    LoopCtx lc;
    loop_begin(S, &lc, n->d);
    if (!loop_inits(S, &lc.li, n->loc)) {
        loop_end(S, &lc, outer_frame, outer_scope);
        return;
    }
    Value *vlo = sema_materialize(S, lo, n->loc), *vhi = sema_materialize(S, hi, n->loc), *vst = sema_materialize(S, st, n->loc);
    Builder outer = S->b;
    sema_set_loc(S, n->loc);
    int nf = lc.li.nflat;
    Op *op;
    if (!lc.scan.brk && !lc.scan.ret) {
        Value **ops = ARENA_ARRAY(S->arena, Value *, nf + 3);
        ops[0] = vlo, ops[1] = vhi, ops[2] = vst;
        memcpy(ops + 3, lc.li.inits, sizeof(Value *) * (size_t)nf);
        op = b_op(&S->b, OP_FOR, NULL, 0, ops, nf + 3);
        Block *body = op_block(op, 0);
        tir_block_add_arg(body, ivt, n->name);
        for (int k = 0; k < nf; k++)
            tir_block_add_arg(body, lc.li.types[k], NULL);
        Value *iv = &body->args[0]; /* only now: adding arguments moves them */
        name_args(body, 1, &lc.li);
        tir_builder_at_end(&S->b, body);
        S->b.pos = outer.pos;
        bind_carried(S, &lc.li, block_args(S, body, 1, nf));
        emit_body(S, n, &lc.frame, n->name, sv_dyn(iv));
        Value **vals = carried_now(S, &lc.li, n->loc);
        if (vals)
            b_op(&S->b, OP_YIELD, NULL, 0, vals, nf);
        else
            b_op(&S->b, OP_YIELD, NULL, 0, lc.li.inits, 0), op = NULL;
    } else {
        /* while (iv, vars...) { iv in range && !break && !return } do { body; iv += step } */
        Value **ops = ARENA_ARRAY(S->arena, Value *, nf + 1);
        ops[0] = vlo;
        memcpy(ops + 1, lc.li.inits, sizeof(Value *) * (size_t)nf);
        op = b_op(&S->b, OP_WHILE, NULL, 0, ops, nf + 1);
        Block *before = op_block(op, 0), *after = op_block(op, 1);
        for (int r = 0; r < 2; r++) {
            Block *blk = op_block(op, r);
            tir_block_add_arg(blk, ivt, n->name);
            for (int k = 0; k < nf; k++)
                tir_block_add_arg(blk, lc.li.types[k], NULL);
            name_args(blk, 1, &lc.li);
        }
        tir_builder_at_end(&S->b, before);
        S->b.pos = outer.pos;
        bind_carried(S, &lc.li, block_args(S, before, 1, nf));
        SVal iv = sv_dyn(&before->args[0]);
        SVal in_range;
        if (st.kind == SV_CONST)
            in_range = sema_eval_binary(S, (sk_is_signed(ivt->sk) && st.c.i < 0) ? TOK_GT : TOK_LT, iv, sv_dyn(vhi), n->loc);
        else {
            SVal up = sema_eval_binary(S, TOK_LT, iv, sv_dyn(vhi), n->loc);
            SVal down = sema_eval_binary(S, TOK_GT, iv, sv_dyn(vhi), n->loc);
            SVal pos = sema_eval_binary(S, TOK_GT, sv_dyn(vst), sv_int(ivt, 0), n->loc);
            in_range = sv_dyn(b_op3(&S->b, OP_SELECT, up.v->type, pos.v, up.v, down.v));
            /* a run-time step of 0 runs no iteration (docs/language.md), whichever side a is on */
            SVal moves = sema_eval_binary(S, TOK_NE, sv_dyn(vst), sv_int(ivt, 0), n->loc);
            in_range = sema_eval_binary(S, TOK_AMP, in_range, moves, n->loc);
        }
        Frame *save_frame = S->frame;
        S->frame = &lc.frame;
        SVal ex = sema_exiting(S, n->loc);
        S->frame = save_frame;
        SVal go = sema_eval_binary(S, TOK_AMP, in_range, sema_eval_unary(S, TOK_BANG, ex, n->loc), n->loc);
        Value **cops = ARENA_ARRAY(S->arena, Value *, nf + 2);
        cops[0] = sema_materialize(S, go, n->loc);
        cops[1] = &before->args[0];
        for (int k = 0; k < nf; k++)
            cops[2 + k] = &before->args[1 + k];
        b_op(&S->b, OP_CONDITION, NULL, 0, cops, nf + 2);
        tir_builder_at_end(&S->b, after);
        S->b.pos = outer.pos;
        bind_carried(S, &lc.li, block_args(S, after, 1, nf));
        clear_flags(S, &lc);
        emit_body(S, n, &lc.frame, n->name, sv_dyn(&after->args[0]));
        Value **vals = carried_now(S, &lc.li, n->loc);
        SVal next = step_past_end(S, sv_dyn(&after->args[0]), st, vst, vhi, ivt, n->loc);
        Value **yops = ARENA_ARRAY(S->arena, Value *, nf + 2);
        yops[0] = sema_materialize(S, next, n->loc);
        if (vals)
            memcpy(yops + 1, vals, sizeof(Value *) * (size_t)nf);
        b_op(&S->b, OP_YIELD, NULL, 0, yops, vals ? nf + 1 : 1);
        if (!vals)
            op = NULL;
        /* results: (iv, vars...) — drop the iv */
        if (op) {
            LoopInfo li2 = lc.li;
            li2.nflat = nf + 1;
            li2.types = ARENA_ARRAY(S->arena, const Type *, nf + 2);
            li2.types[0] = ivt;
            memcpy(li2.types + 1, lc.li.types, sizeof(Type *) * (size_t)nf);
            S->b = outer;
            sema_restore(lc.all, lc.saved);
            op->nres = nf + 1;
            op->results = ARENA_ARRAY(S->arena, Value, nf + 2);
            for (int k = 0; k <= nf; k++) {
                op->results[k].type = li2.types[k];
                op->results[k].def = op;
                op->results[k].index = k;
            }
            bind_carried(S, &lc.li, block_args_of_results(S, op, 1, nf));
            for (int i = 0, k = 1; i < lc.li.vars.n; i++) {
                int c = sema_flat_count(&lc.li.vars.b[i]->val);
                for (int j = 0; j < c; j++, k++)
                    if (lc.li.vars.b[i]->kind == BIND_VAR)
                        op->results[k].name = lc.li.vars.b[i]->name;
            }
            loop_end(S, &lc, outer_frame, outer_scope);
            return;
        }
    }
    S->b = outer;
    sema_restore(lc.all, lc.saved);
    if (op)
        set_results(S, op, &lc.li);
    else
        for (int i = 0; i < lc.li.vars.n; i++)
            lc.li.vars.b[i]->val = sv_err();
    loop_end(S, &lc, outer_frame, outer_scope);
}

void sema_emit_while(Sema *S, Node *n)
{
    Scope *outer_scope = S->scope;
    Frame *outer_frame = S->frame;
    LoopCtx lc;
    loop_begin(S, &lc, n->b);
    if (!loop_inits(S, &lc.li, n->loc)) {
        loop_end(S, &lc, outer_frame, outer_scope);
        return;
    }
    int nf = lc.li.nflat;
    Builder outer = S->b;
    sema_set_loc(S, n->loc);
    Op *op = b_op(&S->b, OP_WHILE, NULL, 0, lc.li.inits, nf);
    Block *before = op_block(op, 0), *after = op_block(op, 1);
    for (int r = 0; r < 2; r++) {
        for (int k = 0; k < nf; k++)
            tir_block_add_arg(op_block(op, r), lc.li.types[k], NULL);
        name_args(op_block(op, r), 0, &lc.li);
    }
    /* before: the condition, with the vars as they are at the top of an iteration */
    tir_builder_at_end(&S->b, before);
    S->b.pos = outer.pos;
    bind_carried(S, &lc.li, block_args(S, before, 0, nf));
    SVal c = sema_eval_expr(S, n->a);
    const Type *ct = c.kind == SV_ERR ? NULL : sv_type(S, &c);
    bool ok = c.kind != SV_ERR;
    if (ok && (!ct || ct->kind != TY_SCALAR || ct->sk != SK_BOOL)) {
        sema_error(S, n->a->loc, "the condition of while must be a scalar bool (the same for the whole program), not %s",
                   sv_describe(S, &c));
        ok = false;
    }
    if (ok) {
        Frame *save_frame = S->frame;
        S->frame = &lc.frame;
        SVal ex = sema_exiting(S, n->loc);
        S->frame = save_frame;
        c = sema_eval_binary(S, TOK_AMP, c, sema_eval_unary(S, TOK_BANG, ex, n->loc), n->loc);
    }
    Value **cops = ARENA_ARRAY(S->arena, Value *, nf + 1);
    cops[0] = ok ? sema_materialize(S, c, n->a->loc) : b_const_int(&S->b, ty_scalar(S->types, SK_BOOL), 0);
    for (int k = 0; k < nf; k++)
        cops[1 + k] = &before->args[k];
    b_op(&S->b, OP_CONDITION, NULL, 0, cops, nf + 1);
    /* after: the body */
    tir_builder_at_end(&S->b, after);
    S->b.pos = outer.pos;
    bind_carried(S, &lc.li, block_args(S, after, 0, nf));
    clear_flags(S, &lc);
    emit_body(S, n, &lc.frame, NULL, sv_void());
    Value **vals = carried_now(S, &lc.li, n->loc);
    b_op(&S->b, OP_YIELD, NULL, 0, vals ? vals : lc.li.inits, vals ? nf : 0);
    S->b = outer;
    sema_restore(lc.all, lc.saved);
    if (vals && ok)
        set_results(S, op, &lc.li);
    else
        for (int i = 0; i < lc.li.vars.n; i++)
            lc.li.vars.b[i]->val = sv_err();
    loop_end(S, &lc, outer_frame, outer_scope);
}
