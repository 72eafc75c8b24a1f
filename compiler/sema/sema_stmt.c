/* Statements, `if`, exit flags and fn inlining (loops are in sema_loop.c).
 *
 * Mutable `var`s become SSA values. A `var` assigned inside a branch or loop is carried out of it:
 * `if` yields the branches' final values (found by comparing each visible var's value before and after
 * each branch), loops carry the vars their body assigns (found by a syntactic scan before the body is
 * emitted, since the loop's block arguments must exist first) as iteration arguments.
 *
 * break, continue and return are not IR ops: each is an assignment to a hidden var (a flag), and
 * every statement after one that may have set a flag is emitted under `if !flag`. Loops that may break
 * or return become `while` loops whose condition also tests the flags. Because conditions are uniform
 * (one value per program instance), this is exactly the source semantics, and the IR stays structured.
 * A flag that is a compile-time constant costs nothing: `break` at the top of a loop body simply ends
 * the emission of that body. Where the rest runs under `if !flag`, the flag is known clear in that
 * branch and set in the other, so a flag set on every path stays a constant: that is how a fn that
 * returns on every path is told from one that can fall off its end. */
#include <string.h>

#include "compiler/sema/sema_internal.h"
#include "parser.h"

enum { MAX_CALL_DEPTH = 64 };

/* ---- scopes ---- */

void sema_push_scope(Sema *S, Scope *sc)
{
    sc->parent = S->scope;
    S->scope = sc;
}

Binding *sema_hidden(Sema *S, const char *what, SVal init)
{
    Scope *sc = S->scope;
    return sema_bind(S, sc, what, BIND_HIDDEN, init, loc_make(0, 0));
}

/* ---- value identity and carrying ---- */

static bool same_val(const SVal *a, const SVal *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case SV_CONST:
        return a->type == b->type && a->weak == b->weak && a->c.i == b->c.i;
    case SV_DYN:
        return a->v == b->v;
    case SV_TUPLE:
        if (a->n != b->n)
            return false;
        for (int i = 0; i < a->n; i++)
            if (!same_val(&a->items[i], &b->items[i]))
                return false;
        return true;
    case SV_UNINIT:
        return true;
    default:
        return a->type == b->type;
    }
}

VarSet sema_visible_vars(Sema *S)
{
    VarSet vs = {0};
    int cap = 0;
    for (Scope *sc = S->scope; sc; sc = sc->parent)
        for (Binding *b = sc->first; b; b = b->next) {
            if (b->kind != BIND_VAR && b->kind != BIND_HIDDEN)
                continue;
            if (vs.n == cap) {
                cap = cap ? cap * 2 : 16;
                vs.b = arena_realloc(S->arena, vs.b, sizeof(Binding *) * (size_t)vs.n, sizeof(Binding *) * (size_t)cap);
            }
            vs.b[vs.n++] = b;
        }
    return vs;
}

SVal *sema_snapshot(Sema *S, VarSet vs)
{
    SVal *s = ARENA_ARRAY(S->arena, SVal, vs.n + 1);
    for (int i = 0; i < vs.n; i++)
        s[i] = vs.b[i]->val;
    return s;
}

void sema_restore(VarSet vs, const SVal *s)
{
    for (int i = 0; i < vs.n; i++)
        vs.b[i]->val = s[i];
}

/* Number of IR values a carried value flattens to (tuples flatten element-wise). */
int sema_flat_count(const SVal *v)
{
    if (v->kind != SV_TUPLE)
        return 1;
    int n = 0;
    for (int i = 0; i < v->n; i++)
        n += sema_flat_count(&v->items[i]);
    return n;
}

/* A zero of the same type(s) as `like`, for a hidden value not set on some path. */
static SVal zero_like(Sema *S, const SVal *like, Loc loc)
{
    if (like->kind == SV_TUPLE) {
        SVal t = *like;
        t.items = ARENA_ARRAY(S->arena, SVal, like->n + 1);
        for (int i = 0; i < like->n; i++)
            t.items[i] = zero_like(S, &like->items[i], loc);
        return t;
    }
    SVal h = sv_harden(S, *like); /* a literal is yielded as its hardened type */
    const Type *ty = sv_type(S, &h);
    sema_set_loc(S, loc);
    Value *z = ty_is_float(ty) ? b_const_float(&S->b, ty, 0.0)
               : ty_is_ptr(ty) ? NULL
                               : b_const_int(&S->b, ty, 0);
    if (!z) { /* a pointer: reuse the value itself, it is never read on that path */
        return *like;
    }
    return sv_dyn(z);
}

bool sema_flatten(Sema *S, SVal v, Value **out, int *k, Loc loc)
{
    if (v.kind == SV_TUPLE) {
        for (int i = 0; i < v.n; i++)
            if (!sema_flatten(S, v.items[i], out, k, loc))
                return false;
        return true;
    }
    if (!sv_is_value(&v))
        return false;
    out[(*k)++] = sema_materialize(S, v, loc);
    return true;
}

SVal sema_unflatten(Sema *S, const SVal *like, Value **vals, int *k)
{
    if (like->kind == SV_TUPLE) {
        SVal t = *like;
        t.items = ARENA_ARRAY(S->arena, SVal, like->n + 1);
        for (int i = 0; i < like->n; i++)
            t.items[i] = sema_unflatten(S, &like->items[i], vals, k);
        return t;
    }
    return sv_dyn(vals[(*k)++]);
}

static bool types_match(Sema *S, const SVal *a, const SVal *b)
{
    if (a->kind == SV_TUPLE || b->kind == SV_TUPLE) {
        if (a->kind != b->kind || a->n != b->n)
            return false;
        for (int i = 0; i < a->n; i++)
            if (!types_match(S, &a->items[i], &b->items[i]))
                return false;
        return true;
    }
    const Type *ta = a->kind == SV_CONST && a->weak ? sv_harden(S, *a).type : sv_type(S, a);
    const Type *tb = b->kind == SV_CONST && b->weak ? sv_harden(S, *b).type : sv_type(S, b);
    return ta && ta == tb;
}

/* An untyped literal meeting a typed value of the same shape (a fn returning `0.0` on one path and
 * an f16 on another) takes that value's element type, as it would in an operator. Tuples item by item. */
static void adopt_type(Sema *S, SVal *x, const SVal *like, Loc loc)
{
    if (x->kind == SV_TUPLE && like->kind == SV_TUPLE && x->n == like->n) {
        SVal *items = ARENA_ARRAY(S->arena, SVal, x->n + 1);
        for (int i = 0; i < x->n; i++) {
            items[i] = x->items[i];
            adopt_type(S, &items[i], &like->items[i], loc);
        }
        x->items = items;
        return;
    }
    if (x->kind != SV_CONST || !x->weak || !sv_is_value(like))
        return;
    if (like->kind == SV_CONST && like->weak) { /* two literals: an integer one becomes a float one */
        if (!sk_is_float(x->type->sk) && sk_is_float(like->type->sk))
            *x = sv_weak_float(S, x->type->sk == SK_U64 ? (double)(uint64_t)x->c.i : (double)x->c.i);
        return;
    }
    const Type *e = ty_elem(sv_type(S, like));
    if (e->kind != TY_SCALAR || e->sk == SK_BOOL || (sk_is_float(x->type->sk) && !sk_is_float(e->sk)))
        return;
    *x = sema_convert_operand(S, *x, e, loc); /* SV_ERR after a diagnostic (a literal that does not fit) */
}

/* For messages: a value, or a tuple of them item by item. */
static const char *describe_value(Sema *S, const SVal *v)
{
    if (v->kind == SV_TUPLE) {
        const char *s = "(";
        for (int i = 0; i < v->n; i++)
            s = arena_printf(S->arena, "%s%s%s", s, i ? ", " : "", describe_value(S, &v->items[i]));
        return arena_printf(S->arena, "%s)", s);
    }
    return sv_describe(S, v);
}

static bool has_error(const SVal *v)
{
    if (v->kind == SV_TUPLE) {
        for (int i = 0; i < v->n; i++)
            if (has_error(&v->items[i]))
                return true;
        return false;
    }
    return v->kind == SV_ERR;
}

const char *sema_var_label(Sema *S, const Binding *b)
{
    return b->kind == BIND_HIDDEN ? "the returned value" : arena_printf(S->arena, "var '%s'", b->name);
}

/* The name of the fn being inlined, for messages. */
static const char *fn_name_of(Sema *S)
{
    for (Frame *f = S->frame; f; f = f->outer)
        if (!f->is_loop)
            return f->fn_name ? f->fn_name : "?";
    return "?";
}

/* ---- if ---- */

/* Emits `if cond { then_fn } else { else_fn }` (either may be NULL) with var carrying. `pin`, when not
 * NULL, is an exit flag whose value is the negation of cond: it is known clear in the then branch and
 * set in the else branch, which keeps flags constant where every path sets them
 * (`if c { return a; } return b;` returns on every path). */
void sema_emit_if(Sema *S, Value *cond, EmitFn then_fn, void *then_ctx, EmitFn else_fn, void *else_ctx,
                    Binding *pin, Loc loc)
{
    VarSet vs = sema_visible_vars(S);
    SVal *before = sema_snapshot(S, vs);
    sema_set_loc(S, loc);
    Op *op = b_op(&S->b, OP_IF, NULL, 0, &cond, 1);
    Builder outer = S->b;
    SVal *after[2];
    EmitFn fns[2] = {then_fn, else_fn};
    void *ctxs[2] = {then_ctx, else_ctx};
    for (int r = 0; r < 2; r++) {
        tir_builder_at_end(&S->b, op_block(op, r));
        S->b.pos = outer.pos;
        if (pin)
            pin->val = sv_bool(S, r == 1);
        if (fns[r])
            fns[r](S, ctxs[r]);
        after[r] = sema_snapshot(S, vs);
        sema_restore(vs, before);
    }
    /* Which vars changed, and their merged types. A var that ends with the same value on both paths
     * (a flag set on both, a constant assigned on both) needs no result: it simply has that value. */
    int nres = 0;
    bool *changed = ARENA_ARRAY(S->arena, bool, vs.n + 1);
    SVal *same = ARENA_ARRAY(S->arena, SVal, vs.n + 1);
    for (int i = 0; i < vs.n; i++) {
        same[i].kind = SV_VOID;
        changed[i] = !same_val(&after[0][i], &before[i]) || !same_val(&after[1][i], &before[i]);
        if (!changed[i])
            continue;
        SVal *x = &after[0][i], *y = &after[1][i];
        if (x->kind == SV_ERR || y->kind == SV_ERR) {
            changed[i] = false;
            same[i] = sv_err();
            continue;
        }
        if (same_val(x, y)) {
            changed[i] = false;
            same[i] = *x;
            continue;
        }
        if (vs.b[i] == pin && x->kind == SV_CONST && !x->c.i && y->kind == SV_CONST && y->c.i) {
            changed[i] = false; /* clear where it was clear, set where it was set: unchanged */
            same[i] = before[i];
            continue;
        }
        if (x->kind == SV_CONST && y->kind == SV_CONST && x->type->sk == SK_BOOL && y->type == x->type) {
            changed[i] = false; /* true on one side, false on the other: the condition or its negation */
            if (x->c.i) {
                same[i] = sv_dyn(cond);
            } else {
                Builder after_if = outer; /* right after the if op (the builder is in a branch now) */
                sema_set_loc(S, loc);
                after_if.pos = S->b.pos;
                same[i] = sv_dyn(b_op1(&after_if, OP_NOT, cond->type, cond));
            }
            continue;
        }
        if (x->kind != SV_UNINIT && y->kind != SV_UNINIT) {
            adopt_type(S, x, y, loc);
            adopt_type(S, y, x, loc);
            if (has_error(x) || has_error(y)) {
                changed[i] = false;
                same[i] = sv_err();
                continue;
            }
        }
        if (x->kind != SV_UNINIT && y->kind != SV_UNINIT && !types_match(S, x, y)) {
            if (vs.b[i]->kind == BIND_HIDDEN)
                sema_error(S, loc, "fn '%s' returns %s on one path of this if but %s on the other",
                           fn_name_of(S), describe_value(S, x), describe_value(S, y));
            else
                sema_error(S, loc, "%s has type %s on one path of this if but %s on the other (a var keeps its type)",
                           sema_var_label(S, vs.b[i]), describe_value(S, x), describe_value(S, y));
            changed[i] = false;
            same[i] = sv_err();
            continue;
        }
        nres += sema_flat_count(x->kind != SV_UNINIT ? x : y);
    }
    Value **yv[2];
    const Type **rtypes = ARENA_ARRAY(S->arena, const Type *, nres + 1);
    for (int r = 0; r < 2; r++) {
        tir_builder_at_end(&S->b, op_block(op, r));
        S->b.pos = outer.pos;
        yv[r] = ARENA_ARRAY(S->arena, Value *, nres + 1);
        int k = 0;
        for (int i = 0; i < vs.n; i++) {
            if (!changed[i])
                continue;
            SVal v = after[r][i];
            if (v.kind == SV_UNINIT)
                v = zero_like(S, &after[1 - r][i], loc);
            sema_flatten(S, v, yv[r], &k, loc);
        }
        b_op(&S->b, OP_YIELD, NULL, 0, yv[r], nres);
    }
    for (int k = 0; k < nres; k++)
        rtypes[k] = yv[0][k]->type;
    op->nres = nres;
    op->results = ARENA_ARRAY(S->arena, Value, nres + 1);
    for (int k = 0; k < nres; k++) {
        op->results[k].type = rtypes[k];
        op->results[k].def = op;
        op->results[k].index = k;
    }
    S->b = outer;
    int k = 0;
    for (int i = 0; i < vs.n; i++) {
        if (same[i].kind != SV_VOID)
            vs.b[i]->val = same[i];
        if (!changed[i])
            continue;
        const SVal *like = after[0][i].kind != SV_UNINIT ? &after[0][i] : &after[1][i];
        Value **vals = ARENA_ARRAY(S->arena, Value *, nres + 1);
        for (int j = 0; j < nres; j++)
            vals[j] = op_result(op, j);
        vs.b[i]->val = sema_unflatten(S, like, vals, &k);
        if (vs.b[i]->kind == BIND_VAR)
            for (int j = 0; j < sema_flat_count(like); j++)
                if (!op->results[k - 1 - j].name)
                    op->results[k - 1 - j].name = vs.b[i]->name;
    }
}

/* Does the statement contain break, continue or return (at any depth)? */
static bool may_exit(Node *n)
{
    if (!n)
        return false;
    switch (n->kind) {
    case AST_BREAK:
    case AST_CONTINUE:
    case AST_RETURN:
        return true;
    case AST_BLOCK:
        for (int i = 0; i < n->list.n; i++)
            if (may_exit(n->list.items[i]))
                return true;
        return false;
    case AST_IF:
        return may_exit(n->b) || may_exit(n->c);
    case AST_FOR:
        return may_exit(n->d);
    case AST_WHILE:
        return may_exit(n->b);
    default:
        return false;
    }
}

/* ---- exit flags ---- */

Frame *sema_fn_frame(Sema *S)
{
    Frame *f = S->frame;
    while (f && f->is_loop)
        f = f->outer;
    return f;
}

/* The OR of exit flags, as a value (CONST or DYN). *pin, when not NULL, receives the one flag that is
 * not a constant, if exactly one is (see emit_if). */
SVal sema_flags_or(Sema *S, Binding *const *flags, int n, Loc loc, Binding **pin)
{
    SVal acc = sv_bool(S, false);
    int ndyn = 0;
    if (pin)
        *pin = NULL;
    for (int i = 0; i < n; i++) {
        if (!flags[i])
            continue;
        SVal f = flags[i]->val;
        if (f.kind == SV_ERR)
            return f;
        if (f.kind == SV_CONST) {
            if (f.c.i)
                return sv_bool(S, true); /* a flag known to be set decides alone */
            continue; /* a flag known to be clear adds nothing */
        }
        if (pin)
            *pin = flags[i];
        ndyn++;
        acc = acc.kind == SV_CONST ? f : sema_eval_binary(S, TOK_PIPE, acc, f, loc);
    }
    if (pin && ndyn != 1)
        *pin = NULL;
    return acc;
}

/* brk || cont || ret for the innermost loop and function. */
static SVal exiting_pin(Sema *S, Loc loc, Binding **pin)
{
    Frame *loop = S->frame && S->frame->is_loop ? S->frame : NULL;
    Frame *fn = sema_fn_frame(S);
    Binding *flags[3] = {loop ? loop->brk : NULL, loop ? loop->cont : NULL, fn ? fn->ret : NULL};
    return sema_flags_or(S, flags, 3, loc, pin);
}

SVal sema_exiting(Sema *S, Loc loc) { return exiting_pin(S, loc, NULL); }

typedef struct Rest {
    Node **stmts;
    int n;
} Rest;


static void emit_rest(Sema *S, void *ctx)
{
    Rest *r = ctx;
    sema_emit_stmts(S, r->stmts, r->n);
}


/* Emits statements in order; after one that may have set an exit flag, the rest runs under
 * `if !(flags)`, or not at all when a flag is known to be set. */
static void emit_stmt(Sema *S, Node *n);

void sema_emit_stmts(Sema *S, Node **stmts, int n)
{
    for (int i = 0; i < n; i++) {
        emit_stmt(S, stmts[i]);
        if (!may_exit(stmts[i]) || i + 1 == n)
            continue;
        Binding *pin;
        SVal ex = exiting_pin(S, stmts[i]->loc, &pin);
        if (ex.kind == SV_ERR)
            return;
        if (ex.kind == SV_CONST) {
            if (ex.c.i)
                return; /* the rest is unreachable */
            continue;
        }
        Value *notx = b_op1(&S->b, OP_NOT, ex.v->type, ex.v);
        Rest rest = {stmts + i + 1, n - i - 1};
        sema_emit_if(S, notx, emit_rest, &rest, NULL, NULL, pin, stmts[i + 1]->loc);
        return;
    }
}

void sema_emit_block(Sema *S, Node *block, Scope *scope)
{
    Scope local = {0};
    if (!scope)
        scope = &local;
    Scope *saved = S->scope;
    sema_push_scope(S, scope);
    sema_emit_stmts(S, block->list.items, block->list.n);
    S->scope = saved;
}

static void emit_block_cb(Sema *S, void *ctx)
{
    sema_emit_block(S, ctx, NULL);
}

static void emit_else_cb(Sema *S, void *ctx)
{
    Node *e = ctx;
    if (e->kind == AST_IF)
        emit_stmt(S, e);
    else
        sema_emit_block(S, e, NULL);
}

/* ---- assignment ---- */

/* Converts a value assigned to (or returned into) something of type `want`. */
static SVal fit_to(Sema *S, SVal v, const Type *want, const char *what, Loc loc)
{
    if (v.kind == SV_ERR)
        return v;
    if (!sv_is_value(&v))
        return sema_error(S, loc, "cannot assign %s to %s", sv_describe(S, &v), what);
    const Type *t = sv_type(S, &v);
    if (v.kind == SV_CONST && v.weak) {
        const Type *e = ty_elem(want);
        if (e->kind == TY_SCALAR && sk_is_int(e->sk) && sk_is_float(v.type->sk))
            return sema_error(S, loc, "cannot assign a float literal to %s of type %s", what,
                              ty_str(S->arena, S->types, want));
        v = sema_convert_operand(S, v, e, loc);
        t = sv_type(S, &v);
    }
    if (t == want)
        return v;
    if (want->kind == TY_TILE && t->kind != TY_TILE && ty_elem(t) == want->elem)
        return sv_broadcast(S, v, want->rank, want->shape, loc);
    return sema_error(S, loc, "cannot assign %s to %s of type %s (a var keeps its type and shape)",
                      sv_describe(S, &v), what, ty_str(S->arena, S->types, want));
}

static const int compound_ops[][2] = {
    {TOK_PLUSEQ, TOK_PLUS}, {TOK_MINUSEQ, TOK_MINUS}, {TOK_STAREQ, TOK_STAR}, {TOK_SLASHEQ, TOK_SLASH},
    {TOK_PERCENTEQ, TOK_PERCENT}, {TOK_AMPEQ, TOK_AMP}, {TOK_PIPEEQ, TOK_PIPE}, {TOK_CARETEQ, TOK_CARET},
    {TOK_SHLEQ, TOK_SHL}, {TOK_SHREQ, TOK_SHR},
};

static void emit_assign(Sema *S, Node *n)
{
    Binding *b = sema_lookup(S, n->name);
    if (!b) {
        sema_error(S, n->loc, "unknown name '%s'", n->name);
        return;
    }
    if (b->kind != BIND_VAR) {
        const char *what = b->kind == BIND_CONST ? "a module const"
                           : b->kind == BIND_FN   ? "a fn"
                           : b->kind == BIND_KERNEL ? "a kernel"
                           : b->role              ? b->role
                                                  : "declared with let";
        sema_error(S, n->loc, "cannot assign to '%s': it is %s (only a var can be assigned)", n->name, what);
        return;
    }
    SVal v = sema_eval_expr(S, n->a);
    if (n->op != TOK_ASSIGN) {
        int op = 0;
        for (size_t i = 0; i < sizeof compound_ops / sizeof compound_ops[0]; i++)
            if (compound_ops[i][0] == n->op)
                op = compound_ops[i][1];
        v = sema_eval_binary(S, op, b->val, v, n->loc);
    }
    if (v.kind == SV_ERR || b->val.kind == SV_ERR)
        return;
    v = fit_to(S, v, sv_type(S, &b->val), arena_printf(S->arena, "var '%s'", n->name), n->a->loc);
    if (v.kind != SV_ERR)
        b->val = v;
}

/* ---- statements ---- */

static void set_flag(Sema *S, Binding *flag)
{
    if (flag)
        flag->val = sv_bool(S, true);
}

/* After an error in a return: the fn's value is an error (no further diagnostics), and it has returned. */
static void return_error(Sema *S, Frame *fn)
{
    if (fn->retval)
        fn->retval->val = sv_err();
    set_flag(S, fn->ret);
}

static void emit_return(Sema *S, Node *n)
{
    Frame *fn = sema_fn_frame(S);
    if (!fn) {
        sema_error(S, n->loc, "return outside a function");
        return;
    }
    if (!n->a) {
        if (fn->fn_name && fn->value_ret) {
            sema_error(S, n->loc, "fn '%s' returns nothing here but a value on another return", fn->fn_name);
            return_error(S, fn);
            return;
        }
        fn->void_ret = true;
        set_flag(S, fn->ret);
        return;
    }
    if (!fn->fn_name) {
        sema_error(S, n->loc, "a kernel returns nothing: write 'return;'");
        return_error(S, fn);
        return;
    }
    SVal v = sema_eval_expr(S, n->a);
    if (v.kind == SV_ERR) {
        return_error(S, fn);
        return;
    }
    const SVal *bad = NULL;
    if (v.kind == SV_TUPLE) {
        for (int i = 0; i < v.n && !bad; i++)
            if (!sv_is_value(&v.items[i]) && v.items[i].kind != SV_TYPE)
                bad = &v.items[i];
    } else if (!sv_is_value(&v) && v.kind != SV_TYPE && v.kind != SV_LIST) {
        bad = &v;
    }
    if (bad) {
        sema_error(S, n->a->loc, "a fn can return values and tuples of values, not %s", sv_describe(S, bad));
        return_error(S, fn);
        return;
    }
    if (fn->void_ret) {
        sema_error(S, n->loc, "fn '%s' returns a value here but nothing on another 'return;'", fn->fn_name);
        return_error(S, fn);
        return;
    }
    SVal old = fn->retval->val;
    if (old.kind != SV_UNINIT && old.kind != SV_ERR) {
        adopt_type(S, &v, &old, n->a->loc);
        if (has_error(&v)) {
            return_error(S, fn);
            return;
        }
    }
    if (old.kind != SV_UNINIT && old.kind != SV_ERR && !types_match(S, &old, &v)) {
        sema_error(S, n->a->loc, "fn '%s' returns %s here but %s on an earlier return", fn->fn_name,
                   describe_value(S, &v), describe_value(S, &old));
        return_error(S, fn);
        return;
    }
    fn->value_ret = true;
    fn->value_ret_loc = n->loc;
    fn->retval->val = v;
    set_flag(S, fn->ret);
}

static void emit_break(Sema *S, Node *n)
{
    Frame *f = S->frame;
    if (!f || !f->is_loop) {
        sema_error(S, n->loc, "'%s' outside a loop%s", n->kind == AST_BREAK ? "break" : "continue",
                   f && f->fn_name ? " (a fn cannot leave a loop of its caller)" : "");
        return;
    }
    set_flag(S, n->kind == AST_BREAK ? f->brk : f->cont);
}

static void emit_if_stmt(Sema *S, Node *n)
{
    SVal c = sema_eval_expr(S, n->a);
    if (c.kind == SV_ERR)
        return;
    const Type *t = sv_type(S, &c);
    if (!t || t->kind != TY_SCALAR || t->sk != SK_BOOL) {
        sema_error(S, n->a->loc, "the condition of if must be a scalar bool (the same for the whole program); "
                   "for a choice per element use where(), got %s", sv_describe(S, &c));
        return;
    }
    if (c.kind == SV_CONST) { /* decided at compile time: only the taken branch exists */
        if (c.c.i)
            sema_emit_block(S, n->b, NULL);
        else if (n->c)
            emit_else_cb(S, n->c);
        return;
    }
    sema_emit_if(S, c.v, emit_block_cb, n->b, n->c ? emit_else_cb : NULL, n->c, NULL, n->loc);
}

static void emit_let(Sema *S, Node *n)
{
    SVal v = sema_eval_expr(S, n->a);
    if (v.kind == SV_VOID) {
        sema_error(S, n->a->loc, "this call has no value to bind to '%s'", n->name);
        v = sv_err();
    }
    if (n->kind == AST_VAR && v.kind != SV_ERR) {
        if (!sv_is_value(&v)) {
            sema_error(S, n->a->loc, "a var holds a scalar or a tile, not %s", sv_describe(S, &v));
            v = sv_err();
        } else {
            v = sv_harden(S, v);
            if (v.kind == SV_DYN && !v.v->name)
                v.v->name = n->name;
        }
    } else if (v.kind == SV_DYN && !v.v->name && v.v->def && v.v->def->code != OP_CONST) {
        v.v->name = n->name;
    }
    sema_bind(S, S->scope, n->name, n->kind == AST_VAR ? BIND_VAR : BIND_LET, v, n->loc);
}

static void emit_let_tuple(Sema *S, Node *n)
{
    SVal v = sema_eval_expr(S, n->a);
    int want = n->list.n;
    if (v.kind != SV_ERR && (v.kind != SV_TUPLE || v.n != want)) {
        sema_error(S, n->a->loc, "cannot unpack %s into %d names", v.kind == SV_TUPLE
                   ? arena_printf(S->arena, "a tuple of %d values", v.n) : sv_describe(S, &v), want);
        v = sv_err();
    }
    for (int i = 0; i < want; i++)
        for (int j = 0; j < i; j++)
            if (n->list.items[j]->name == n->list.items[i]->name) {
                sema_error(S, n->list.items[i]->loc, "'%s' is bound twice in this let", n->list.items[i]->name);
                v = sv_err();
            }
    for (int i = 0; i < want; i++) {
        SVal x = v.kind == SV_ERR ? v : v.items[i];
        if (x.kind == SV_DYN && !x.v->name)
            x.v->name = n->list.items[i]->name;
        sema_bind(S, S->scope, n->list.items[i]->name, BIND_LET, x, n->list.items[i]->loc);
    }
}

static void emit_stmt(Sema *S, Node *n)
{
    if (!sema_step(S, n->loc))
        return;
    sema_set_loc(S, n->loc);
    switch (n->kind) {
    case AST_LET:
    case AST_VAR:
        emit_let(S, n);
        break;
    case AST_LET_TUPLE:
        emit_let_tuple(S, n);
        break;
    case AST_ASSIGN:
        emit_assign(S, n);
        break;
    case AST_EXPR_STMT:
        (void)sema_eval_expr(S, n->a);
        break;
    case AST_IF:
        emit_if_stmt(S, n);
        break;
    case AST_FOR:
        sema_emit_for(S, n);
        break;
    case AST_WHILE:
        sema_emit_while(S, n);
        break;
    case AST_BREAK:
    case AST_CONTINUE:
        emit_break(S, n);
        break;
    case AST_RETURN:
        emit_return(S, n);
        break;
    case AST_BLOCK:
        sema_emit_block(S, n, NULL);
        break;
    default:
        sema_error(S, n->loc, "expected a statement");
        break;
    }
}

/* ---- fn inlining ---- */

/* Calls are inlined: the body is emitted in a fresh scope whose parent is the module (a fn sees no
 * locals of its caller), with the parameters bound to the evaluated arguments — constants stay
 * constants, so a fn can build shapes from its arguments, which is what makes fns generic. */
SVal sema_inline_call(Sema *S, Binding *fb, Node *call)
{
    Node *fn = fb->decl;
    int np = fn->list.n;
    SVal *args = ARENA_ARRAY(S->arena, SVal, np + 1);
    bool *have = ARENA_ARRAY(S->arena, bool, np + 1);
    int pos = 0;
    bool named = false;
    for (int i = 0; i < call->list.n; i++) {
        Node *a = call->list.items[i];
        int slot = -1;
        if (a->kind == AST_NAMED) {
            named = true;
            for (int k = 0; k < np; k++)
                if (fn->list.items[k]->name == a->name)
                    slot = k;
            if (slot < 0)
                return sema_error(S, a->loc, "fn '%s' has no parameter named '%s'", fn->name, a->name);
            if (have[slot])
                return sema_error(S, a->loc, "'%s' of fn '%s' is given twice", a->name, fn->name);
            args[slot] = sema_eval_expr(S, a->a);
        } else {
            if (named)
                return sema_error(S, a->loc, "a positional argument cannot follow a named one");
            if (pos >= np)
                return sema_error(S, call->loc, "fn '%s' takes %d argument%s, got %d", fn->name, np, np == 1 ? "" : "s",
                                  call->list.n);
            slot = pos++;
            args[slot] = sema_eval_expr(S, a);
        }
        have[slot] = true;
        if (args[slot].kind == SV_ERR)
            return sv_err();
        if (args[slot].kind == SV_VOID) /* a call without a result */
            return sema_error(S, a->kind == AST_NAMED ? a->a->loc : a->loc,
                              "argument '%s' of fn '%s' must be a value, not %s", fn->list.items[slot]->name,
                              fn->name, sv_describe(S, &args[slot]));
    }
    for (int k = 0; k < np; k++)
        if (!have[k])
            return sema_error(S, call->loc, "fn '%s' needs its argument '%s'", fn->name, fn->list.items[k]->name);
    if (S->call_depth >= MAX_CALL_DEPTH)
        return sema_error(S, call->loc, "calls nest more than %d deep (is fn '%s' recursive?)", MAX_CALL_DEPTH,
                          fn->name);
    /* Parameters with types check their argument; untyped ones take anything. */
    Scope *saved_scope = S->scope;
    Frame *saved_frame = S->frame;
    S->scope = NULL;
    Scope sc = {0};
    sema_push_scope(S, &sc);
    for (int k = 0; k < np; k++) {
        Node *p = fn->list.items[k];
        SVal v = args[k];
        if (p->a) {
            const Type *want = sema_eval_type(S, p->a);
            if (!want) {
                S->scope = saved_scope;
                S->frame = saved_frame;
                return sv_err();
            }
            if (v.kind == SV_CONST && v.weak && sv_is_value(&v))
                v = sema_convert_operand(S, v, ty_elem(want), call->list.items[k]->loc);
            if (v.kind == SV_ERR || !sv_is_value(&v) || sv_type(S, &v) != want) {
                if (v.kind != SV_ERR)
                    sema_error(S, call->list.items[k]->loc, "argument '%s' of fn '%s' must be %s, not %s", p->name,
                               fn->name, ty_str(S->arena, S->types, want), sv_describe(S, &v));
                S->scope = saved_scope;
                S->frame = saved_frame;
                return sv_err();
            }
        }
        sema_bind(S, &sc, p->name, BIND_LET, v, p->loc)->role = "a fn parameter";
    }
    Frame fr = {0};
    fr.outer = NULL; /* loops of the caller are not visible from the callee */
    fr.fn_name = fn->name;
    fr.ret = sema_hidden(S, "<return>", sv_bool(S, false));
    SVal uninit = {0};
    uninit.kind = SV_UNINIT;
    fr.retval = sema_hidden(S, "<value>", uninit);
    S->frame = &fr;
    S->call_depth++;
    sema_emit_stmts(S, fn->b->list.items, fn->b->list.n);
    S->call_depth--;
    SVal r = fr.retval->val;
    S->scope = saved_scope;
    S->frame = saved_frame;
    if (r.kind == SV_UNINIT) {
        if (fn->a)
            return sema_error(S, call->loc, "fn '%s' declares a result but returns none on this call", fn->name);
        return sv_void();
    }
    if (r.kind != SV_ERR && fr.ret->val.kind != SV_ERR && !(fr.ret->val.kind == SV_CONST && fr.ret->val.c.i))
        return sema_error(S, call->loc, "fn '%s' can reach its end without returning a value", fn->name);
    if (fn->a && r.kind != SV_ERR) {
        if (fn->a->kind == AST_TYPE_TUPLE) {
            if (r.kind != SV_TUPLE || r.n != fn->a->list.n)
                return sema_error(S, call->loc, "fn '%s' must return a tuple of %d values, not %s", fn->name,
                                  fn->a->list.n, sv_describe(S, &r));
            for (int i = 0; i < r.n; i++) {
                const Type *want = sema_eval_type(S, fn->a->list.items[i]);
                if (want && r.items[i].kind == SV_CONST && r.items[i].weak)
                    r.items[i] = sema_convert_operand(S, r.items[i], ty_elem(want), fr.value_ret_loc);
                if (!want || r.items[i].kind == SV_ERR)
                    return sv_err();
                if (sv_type(S, &r.items[i]) != want)
                    return sema_error(S, call->loc, "value %d returned by fn '%s' must be %s, not %s", i + 1,
                                      fn->name, ty_str(S->arena, S->types, want), sv_describe(S, &r.items[i]));
            }
        } else {
            const Type *want = sema_eval_type(S, fn->a);
            if (want && r.kind == SV_CONST && r.weak)
                r = sema_convert_operand(S, r, ty_elem(want), fr.value_ret_loc);
            if (!want || r.kind == SV_ERR)
                return sv_err();
            if (sv_type(S, &r) != want)
                return sema_error(S, call->loc, "fn '%s' must return %s, not %s", fn->name,
                                  ty_str(S->arena, S->types, want), sv_describe(S, &r));
        }
    }
    return r;
}
