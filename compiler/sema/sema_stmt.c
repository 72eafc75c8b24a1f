/* Statements, structured control flow and fn inlining.
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
 * the emission of that body. */
#include <string.h>

#include "compiler/sema/sema_internal.h"
#include "parser.h"

enum { MAX_CALL_DEPTH = 64, MAX_STATIC_UNROLL = 4096 };

/* ---- scopes ---- */

void push_scope(Sema *S, Scope *sc)
{
    sc->parent = S->scope;
    S->scope = sc;
}

static Binding *hidden(Sema *S, const char *what, SVal init)
{
    Scope *sc = S->scope;
    return bind(S, sc, what, BIND_HIDDEN, init, loc_make(0, 0));
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

/* The vars (and hidden flags) visible from the current scope, innermost first. */
typedef struct VarSet {
    Binding **b;
    int n;
} VarSet;

static VarSet visible_vars(Sema *S)
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

static SVal *snapshot(Sema *S, VarSet vs)
{
    SVal *s = ARENA_ARRAY(S->arena, SVal, vs.n + 1);
    for (int i = 0; i < vs.n; i++)
        s[i] = vs.b[i]->val;
    return s;
}

static void restore(VarSet vs, const SVal *s)
{
    for (int i = 0; i < vs.n; i++)
        vs.b[i]->val = s[i];
}

/* Number of IR values a carried value flattens to (tuples flatten element-wise). */
static int flat_count(const SVal *v)
{
    if (v->kind != SV_TUPLE)
        return 1;
    int n = 0;
    for (int i = 0; i < v->n; i++)
        n += flat_count(&v->items[i]);
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

static bool flatten(Sema *S, SVal v, Value **out, int *k, Loc loc)
{
    if (v.kind == SV_TUPLE) {
        for (int i = 0; i < v.n; i++)
            if (!flatten(S, v.items[i], out, k, loc))
                return false;
        return true;
    }
    if (!sv_is_value(&v))
        return false;
    out[(*k)++] = materialize(S, v, loc);
    return true;
}

static SVal unflatten(Sema *S, const SVal *like, Value **vals, int *k)
{
    if (like->kind == SV_TUPLE) {
        SVal t = *like;
        t.items = ARENA_ARRAY(S->arena, SVal, like->n + 1);
        for (int i = 0; i < like->n; i++)
            t.items[i] = unflatten(S, &like->items[i], vals, k);
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
    if (x->kind != SV_CONST || !x->weak || !sv_is_value(like) || (like->kind == SV_CONST && like->weak))
        return;
    const Type *e = ty_elem(sv_type(S, like));
    if (e->kind != TY_SCALAR || e->sk == SK_BOOL || (sk_is_float(x->type->sk) && !sk_is_float(e->sk)))
        return;
    SVal c = convert_operand(S, *x, e, loc);
    if (c.kind != SV_ERR)
        *x = c;
}

/* For messages: the value as it would be stored (literals hardened). */
static const char *describe_hard(Sema *S, const SVal *v)
{
    if (v->kind == SV_TUPLE) {
        const char *s = "(";
        for (int i = 0; i < v->n; i++)
            s = arena_printf(S->arena, "%s%s%s", s, i ? ", " : "", describe_hard(S, &v->items[i]));
        return arena_printf(S->arena, "%s)", s);
    }
    SVal h = sv_harden(S, *v);
    return sv_describe(S, &h);
}

static const char *var_label(Sema *S, const Binding *b)
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

typedef void (*EmitFn)(Sema *S, void *ctx);

/* Emits `if cond { then_fn } else { else_fn }` (either may be NULL) with var carrying. `pin`, when not
 * NULL, is an exit flag whose value is the negation of cond: it is known clear in the then branch and
 * set in the else branch, which keeps flags constant where every path sets them
 * (`if c { return a; } return b;` returns on every path). */
static void emit_if(Sema *S, Value *cond, EmitFn then_fn, void *then_ctx, EmitFn else_fn, void *else_ctx,
                    Binding *pin, Loc loc)
{
    VarSet vs = visible_vars(S);
    SVal *before = snapshot(S, vs);
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
        after[r] = snapshot(S, vs);
        restore(vs, before);
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
        }
        if (x->kind != SV_UNINIT && y->kind != SV_UNINIT && !types_match(S, x, y)) {
            if (vs.b[i]->kind == BIND_HIDDEN)
                sema_error(S, loc, "fn '%s' returns %s on one path of this if but %s on the other",
                           fn_name_of(S), describe_hard(S, x), describe_hard(S, y));
            else
                sema_error(S, loc, "%s has type %s on one path of this if but %s on the other (a var keeps its type)",
                           var_label(S, vs.b[i]), describe_hard(S, x), describe_hard(S, y));
            changed[i] = false;
            same[i] = sv_err();
            continue;
        }
        nres += flat_count(x->kind != SV_UNINIT ? x : y);
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
            flatten(S, v, yv[r], &k, loc);
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
        vs.b[i]->val = unflatten(S, like, vals, &k);
        if (vs.b[i]->kind == BIND_VAR)
            for (int j = 0; j < flat_count(like); j++)
                if (!op->results[k - 1 - j].name)
                    op->results[k - 1 - j].name = vs.b[i]->name;
    }
}

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

static Frame *fn_frame(Sema *S)
{
    Frame *f = S->frame;
    while (f && f->is_loop)
        f = f->outer;
    return f;
}

/* The OR of exit flags, as a value (CONST or DYN). *pin, when not NULL, receives the one flag that is
 * not a constant, if exactly one is (see emit_if). */
static SVal flags_or(Sema *S, Binding *const *flags, int n, Loc loc, Binding **pin)
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
        acc = acc.kind == SV_CONST ? f : eval_binary(S, TOK_PIPE, acc, f, loc);
    }
    if (pin && ndyn != 1)
        *pin = NULL;
    return acc;
}

/* brk || cont || ret for the innermost loop and function. */
static SVal exiting_pin(Sema *S, Loc loc, Binding **pin)
{
    Frame *loop = S->frame && S->frame->is_loop ? S->frame : NULL;
    Frame *fn = fn_frame(S);
    Binding *flags[3] = {loop ? loop->brk : NULL, loop ? loop->cont : NULL, fn ? fn->ret : NULL};
    return flags_or(S, flags, 3, loc, pin);
}

static SVal exiting(Sema *S, Loc loc) { return exiting_pin(S, loc, NULL); }

typedef struct Rest {
    Node **stmts;
    int n;
} Rest;

static void emit_stmts(Sema *S, Node **stmts, int n);

static void emit_rest(Sema *S, void *ctx)
{
    Rest *r = ctx;
    emit_stmts(S, r->stmts, r->n);
}


/* Emits statements in order; after one that may have set an exit flag, the rest runs under
 * `if !(flags)`, or not at all when a flag is known to be set. */
static void emit_stmt(Sema *S, Node *n);

static void emit_stmts(Sema *S, Node **stmts, int n)
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
        emit_if(S, notx, emit_rest, &rest, NULL, NULL, pin, stmts[i + 1]->loc);
        return;
    }
}

void emit_block(Sema *S, Node *block, Scope *scope)
{
    Scope local = {0};
    if (!scope)
        scope = &local;
    Scope *saved = S->scope;
    push_scope(S, scope);
    emit_stmts(S, block->list.items, block->list.n);
    S->scope = saved;
}

static void emit_block_cb(Sema *S, void *ctx)
{
    emit_block(S, ctx, NULL);
}

static void emit_else_cb(Sema *S, void *ctx)
{
    Node *e = ctx;
    if (e->kind == AST_IF)
        emit_stmt(S, e);
    else
        emit_block(S, e, NULL);
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
        v = sv_convert(S, v, e, loc);
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
    Binding *b = lookup(S, n->name);
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
    SVal v = eval_expr(S, n->a);
    if (n->op != TOK_ASSIGN) {
        int op = 0;
        for (size_t i = 0; i < sizeof compound_ops / sizeof compound_ops[0]; i++)
            if (compound_ops[i][0] == n->op)
                op = compound_ops[i][1];
        v = eval_binary(S, op, b->val, v, n->loc);
    }
    if (v.kind == SV_ERR || b->val.kind == SV_ERR)
        return;
    v = fit_to(S, v, sv_type(S, &b->val), arena_printf(S->arena, "var '%s'", n->name), n->a->loc);
    if (v.kind != SV_ERR)
        b->val = v;
}

/* ---- loops ---- */

/* The vars a loop body assigns, in scope order, plus the flags the loop needs carried. */
static VarSet carried_vars(Sema *S, Node *body, Scan *scan)
{
    memset(scan, 0, sizeof *scan);
    scan_stmt(S, body, scan, 0);
    VarSet all = visible_vars(S), out = {0};
    out.b = ARENA_ARRAY(S->arena, Binding *, all.n + 1);
    Frame *fn = fn_frame(S);
    for (int i = 0; i < all.n; i++) {
        Binding *b = all.b[i];
        bool take = false;
        if (b->kind == BIND_VAR) {
            for (int k = 0; k < scan->n; k++)
                if (scan->names[k] == b->name && lookup(S, b->name) == b)
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
} LoopInfo;

static bool loop_inits(Sema *S, LoopInfo *li, Loc loc)
{
    int n = 0;
    for (int i = 0; i < li->vars.n; i++) {
        Binding *b = li->vars.b[i];
        if (b->val.kind == SV_UNINIT) {
            sema_error(S, loc, "a fn that returns a value from inside a loop is not supported: "
                               "assign to a var and break instead");
            return false;
        }
        n += flat_count(&b->val);
    }
    li->inits = ARENA_ARRAY(S->arena, Value *, n + 1);
    li->types = ARENA_ARRAY(S->arena, const Type *, n + 1);
    int k = 0;
    for (int i = 0; i < li->vars.n; i++)
        if (!flatten(S, li->vars.b[i]->val, li->inits, &k, loc))
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
        li->vars.b[i]->val = unflatten(S, &like, args, &k);
    }
}

/* The carried vars' current values, checked against the loop's types; NULL after an error. */
static Value **carried_now(Sema *S, LoopInfo *li, Loc loc)
{
    Value **vals = ARENA_ARRAY(S->arena, Value *, li->nflat + 1);
    int k = 0;
    for (int i = 0; i < li->vars.n; i++) {
        Binding *b = li->vars.b[i];
        int before = k;
        if (b->val.kind == SV_ERR || !flatten(S, b->val, vals, &k, loc))
            return NULL;
        for (int j = before; j < k; j++)
            if (vals[j]->type != li->types[j]) {
                sema_error(S, loc, "%s changes type inside the loop: %s before, %s after", var_label(S, b),
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
        int c = flat_count(&li->vars.b[i]->val);
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
        int c = flat_count(&li->vars.b[i]->val);
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
    push_scope(S, &lc->scope);
    lc->frame.outer = S->frame;
    lc->frame.is_loop = true;
    lc->frame.brk = hidden(S, "<break>", sv_bool(S, false));
    lc->li.vars = carried_vars(S, body, &lc->scan);
    if (lc->scan.brk) { /* the break flag itself is carried */
        lc->li.vars.b[lc->li.vars.n++] = lc->frame.brk;
    }
    lc->all = visible_vars(S);
    lc->saved = snapshot(S, lc->all);
}

static void loop_end(Sema *S, LoopCtx *lc, Frame *outer_frame, Scope *outer_scope)
{
    S->frame = outer_frame;
    S->scope = outer_scope;
    (void)lc;
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
    push_scope(S, &body);
    if (ivname)
        bind(S, &body, ivname, BIND_LET, iv, n->loc);
    fr->cont = hidden(S, "<continue>", sv_bool(S, false));
    Frame *outer = S->frame;
    S->frame = fr;
    Node *blk = n->kind == AST_FOR ? n->d : n->b;
    emit_stmts(S, blk->list.items, blk->list.n);
    S->frame = outer;
    S->scope = body.parent;
}

static SVal int_operand(Sema *S, Node *e, const char *what)
{
    SVal v = eval_expr(S, e);
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
        emit_body(S, it->n, it->fr, it->n->name, sv_weak_int(S, it->k));
        /* after an iteration: a set break (or return) ends the unrolling */
        Frame *fn = fn_frame(S);
        Binding *flags[2] = {it->fr->brk, fn ? fn->ret : NULL}, *pin;
        SVal ex = flags_or(S, flags, 2, it->n->loc, &pin);
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
        emit_if(S, notx, static_iters, &next, NULL, NULL, pin, it->n->loc);
        return;
    }
}

static void emit_static_for(Sema *S, Node *n, SVal lo, SVal hi, SVal st)
{
    int64_t a, b, step = 1;
    if (!sval_const_int(S, lo, n->a->loc, "the start of a static for", &a) ||
        !sval_const_int(S, hi, n->b->loc, "the end of a static for", &b) ||
        (n->c && !sval_const_int(S, st, n->c->loc, "the step of a static for", &step)))
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
    push_scope(S, &sc);
    Frame fr = {0};
    fr.outer = outer_frame;
    fr.is_loop = true;
    fr.brk = hidden(S, "<break>", sv_bool(S, false));
    StaticIter it = {n, &fr, a, b, step};
    static_iters(S, &it);
    S->frame = outer_frame;
    S->scope = outer_scope;
}

static void emit_for(Sema *S, Node *n)
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
    const Type *ivt = promote_elem(S, &lo, &hi);
    SVal probe = {0};
    probe.kind = SV_CONST;
    probe.type = ivt;
    probe.weak = lo.kind == SV_CONST && lo.weak && hi.kind == SV_CONST && hi.weak;
    ivt = ivt ? promote_elem(S, &probe, &st) : NULL;
    if (!ivt || !sk_is_int(ivt->sk)) {
        sema_error(S, n->loc, "the bounds of a for loop must be integers of compatible types, got %s and %s",
                   sv_describe(S, &lo), sv_describe(S, &hi));
        return;
    }
    if (probe.weak && st.kind == SV_CONST && st.weak)
        ivt = ty_scalar(S->types, SK_I32);
    lo = convert_operand(S, lo, ivt, n->a->loc);
    hi = convert_operand(S, hi, ivt, n->b->loc);
    st = convert_operand(S, st, ivt, n->c ? n->c->loc : n->loc);
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
    Value *vlo = materialize(S, lo, n->loc), *vhi = materialize(S, hi, n->loc), *vst = materialize(S, st, n->loc);
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
            in_range = eval_binary(S, (sk_is_signed(ivt->sk) && st.c.i < 0) ? TOK_GT : TOK_LT, iv, sv_dyn(vhi), n->loc);
        else {
            SVal up = eval_binary(S, TOK_LT, iv, sv_dyn(vhi), n->loc);
            SVal down = eval_binary(S, TOK_GT, iv, sv_dyn(vhi), n->loc);
            SVal pos = eval_binary(S, TOK_GT, sv_dyn(vst), sv_int(ivt, 0), n->loc);
            in_range = sv_dyn(b_op3(&S->b, OP_SELECT, up.v->type, pos.v, up.v, down.v));
        }
        Frame *save_frame = S->frame;
        S->frame = &lc.frame;
        SVal ex = exiting(S, n->loc);
        S->frame = save_frame;
        SVal go = eval_binary(S, TOK_AMP, in_range, eval_unary(S, TOK_BANG, ex, n->loc), n->loc);
        Value **cops = ARENA_ARRAY(S->arena, Value *, nf + 2);
        cops[0] = materialize(S, go, n->loc);
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
        SVal next = eval_binary(S, TOK_PLUS, sv_dyn(&after->args[0]), sv_dyn(vst), n->loc);
        Value **yops = ARENA_ARRAY(S->arena, Value *, nf + 2);
        yops[0] = materialize(S, next, n->loc);
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
            restore(lc.all, lc.saved);
            op->nres = nf + 1;
            op->results = ARENA_ARRAY(S->arena, Value, nf + 2);
            for (int k = 0; k <= nf; k++) {
                op->results[k].type = li2.types[k];
                op->results[k].def = op;
                op->results[k].index = k;
            }
            bind_carried(S, &lc.li, block_args_of_results(S, op, 1, nf));
            for (int i = 0, k = 1; i < lc.li.vars.n; i++) {
                int c = flat_count(&lc.li.vars.b[i]->val);
                for (int j = 0; j < c; j++, k++)
                    if (lc.li.vars.b[i]->kind == BIND_VAR)
                        op->results[k].name = lc.li.vars.b[i]->name;
            }
            loop_end(S, &lc, outer_frame, outer_scope);
            return;
        }
    }
    S->b = outer;
    restore(lc.all, lc.saved);
    if (op)
        set_results(S, op, &lc.li);
    else
        for (int i = 0; i < lc.li.vars.n; i++)
            lc.li.vars.b[i]->val = sv_err();
    loop_end(S, &lc, outer_frame, outer_scope);
}

static void emit_while(Sema *S, Node *n)
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
    SVal c = eval_expr(S, n->a);
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
        SVal ex = exiting(S, n->loc);
        S->frame = save_frame;
        c = eval_binary(S, TOK_AMP, c, eval_unary(S, TOK_BANG, ex, n->loc), n->loc);
    }
    Value **cops = ARENA_ARRAY(S->arena, Value *, nf + 1);
    cops[0] = ok ? materialize(S, c, n->a->loc) : b_const_int(&S->b, ty_scalar(S->types, SK_BOOL), 0);
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
    restore(lc.all, lc.saved);
    if (vals && ok)
        set_results(S, op, &lc.li);
    else
        for (int i = 0; i < lc.li.vars.n; i++)
            lc.li.vars.b[i]->val = sv_err();
    loop_end(S, &lc, outer_frame, outer_scope);
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
    Frame *fn = fn_frame(S);
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
    SVal v = eval_expr(S, n->a);
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
    if (old.kind != SV_UNINIT && old.kind != SV_ERR)
        adopt_type(S, &v, &old, n->a->loc);
    if (old.kind != SV_UNINIT && old.kind != SV_ERR && !types_match(S, &old, &v)) {
        sema_error(S, n->a->loc, "fn '%s' returns %s here but %s on an earlier return", fn->fn_name,
                   describe_hard(S, &v), describe_hard(S, &old));
        return_error(S, fn);
        return;
    }
    fn->value_ret = true;
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
    SVal c = eval_expr(S, n->a);
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
            emit_block(S, n->b, NULL);
        else if (n->c)
            emit_else_cb(S, n->c);
        return;
    }
    emit_if(S, c.v, emit_block_cb, n->b, n->c ? emit_else_cb : NULL, n->c, NULL, n->loc);
}

static void emit_let(Sema *S, Node *n)
{
    SVal v = eval_expr(S, n->a);
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
    bind(S, S->scope, n->name, n->kind == AST_VAR ? BIND_VAR : BIND_LET, v, n->loc);
}

static void emit_let_tuple(Sema *S, Node *n)
{
    SVal v = eval_expr(S, n->a);
    int want = n->list.n;
    if (v.kind != SV_ERR && (v.kind != SV_TUPLE || v.n != want)) {
        sema_error(S, n->a->loc, "cannot unpack %s into %d names", v.kind == SV_TUPLE
                   ? arena_printf(S->arena, "a tuple of %d values", v.n) : sv_describe(S, &v), want);
        v = sv_err();
    }
    for (int i = 0; i < want; i++) {
        SVal x = v.kind == SV_ERR ? v : v.items[i];
        if (x.kind == SV_DYN && !x.v->name)
            x.v->name = n->list.items[i]->name;
        bind(S, S->scope, n->list.items[i]->name, BIND_LET, x, n->list.items[i]->loc);
    }
}

static void emit_stmt(Sema *S, Node *n)
{
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
        (void)eval_expr(S, n->a);
        break;
    case AST_IF:
        emit_if_stmt(S, n);
        break;
    case AST_FOR:
        emit_for(S, n);
        break;
    case AST_WHILE:
        emit_while(S, n);
        break;
    case AST_BREAK:
    case AST_CONTINUE:
        emit_break(S, n);
        break;
    case AST_RETURN:
        emit_return(S, n);
        break;
    case AST_BLOCK:
        emit_block(S, n, NULL);
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
SVal inline_call(Sema *S, Binding *fb, Node *call)
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
            args[slot] = eval_expr(S, a->a);
        } else {
            if (named)
                return sema_error(S, a->loc, "a positional argument cannot follow a named one");
            if (pos >= np)
                return sema_error(S, call->loc, "fn '%s' takes %d argument%s, got %d", fn->name, np, np == 1 ? "" : "s",
                                  call->list.n);
            slot = pos++;
            args[slot] = eval_expr(S, a);
        }
        have[slot] = true;
        if (args[slot].kind == SV_ERR)
            return sv_err();
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
    push_scope(S, &sc);
    for (int k = 0; k < np; k++) {
        Node *p = fn->list.items[k];
        SVal v = args[k];
        if (p->a) {
            const Type *want = eval_type(S, p->a);
            if (!want) {
                S->scope = saved_scope;
                S->frame = saved_frame;
                return sv_err();
            }
            if (v.kind == SV_CONST && v.weak && sv_is_value(&v))
                v = sv_convert(S, v, ty_elem(want), call->list.items[k]->loc);
            if (v.kind != SV_ERR && (!sv_is_value(&v) || sv_type(S, &v) != want)) {
                sema_error(S, call->list.items[k]->loc, "argument '%s' of fn '%s' must be %s, not %s", p->name,
                           fn->name, ty_str(S->arena, S->types, want), sv_describe(S, &v));
                S->scope = saved_scope;
                S->frame = saved_frame;
                return sv_err();
            }
        }
        bind(S, &sc, p->name, BIND_LET, v, p->loc)->role = "a fn parameter";
    }
    Frame fr = {0};
    fr.outer = NULL; /* loops of the caller are not visible from the callee */
    fr.fn_name = fn->name;
    fr.ret = hidden(S, "<return>", sv_bool(S, false));
    SVal uninit = {0};
    uninit.kind = SV_UNINIT;
    fr.retval = hidden(S, "<value>", uninit);
    S->frame = &fr;
    S->call_depth++;
    emit_stmts(S, fn->b->list.items, fn->b->list.n);
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
                const Type *want = eval_type(S, fn->a->list.items[i]);
                if (want && r.items[i].kind == SV_CONST && r.items[i].weak)
                    r.items[i] = sv_convert(S, r.items[i], ty_elem(want), call->loc);
                if (want && sv_type(S, &r.items[i]) != want)
                    return sema_error(S, call->loc, "value %d returned by fn '%s' must be %s, not %s", i + 1,
                                      fn->name, ty_str(S->arena, S->types, want), sv_describe(S, &r.items[i]));
            }
        } else {
            const Type *want = eval_type(S, fn->a);
            if (want && r.kind == SV_CONST && r.weak)
                r = sv_convert(S, r, ty_elem(want), call->loc);
            if (want && sv_type(S, &r) != want)
                return sema_error(S, call->loc, "fn '%s' must return %s, not %s", fn->name,
                                  ty_str(S->arena, S->types, want), sv_describe(S, &r));
        }
    }
    return r;
}
