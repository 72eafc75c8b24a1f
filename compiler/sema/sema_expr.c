/* Expressions: names, literals, operators (with promotion, broadcasting and constant folding), casts,
 * indexing, types. Calls go to sema_builtin.c or, for `fn`s, to inlining in sema_stmt.c. */
#include <math.h>
#include <string.h>

#include "compiler/sema/sema_internal.h"
#include "parser.h"

/* ---- names ---- */

static uint32_t name_hash(const char *name)
{
    uint64_t h = (uint64_t)(uintptr_t)name * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32);
}

static void global_put(Sema *S, Binding *b)
{
    if (2 * (S->gcount + 1) > S->gcap) {
        uint32_t cap = S->gcap ? 2 * S->gcap : 64;
        Binding **t = ARENA_ARRAY(S->arena, Binding *, cap);
        for (uint32_t i = 0; i < S->gcap; i++)
            if (S->gtab[i]) {
                uint32_t j = name_hash(S->gtab[i]->name) & (cap - 1);
                while (t[j])
                    j = (j + 1) & (cap - 1);
                t[j] = S->gtab[i];
            }
        S->gtab = t;
        S->gcap = cap;
    }
    uint32_t j = name_hash(b->name) & (S->gcap - 1);
    while (S->gtab[j] && S->gtab[j]->name != b->name)
        j = (j + 1) & (S->gcap - 1);
    if (!S->gtab[j])
        S->gcount++;
    S->gtab[j] = b; /* the newest binding of the name, as the scope's list gives it first */
}

Binding *sema_global_find(Sema *S, const char *name)
{
    if (!S->gcap)
        return NULL;
    uint32_t j = name_hash(name) & (S->gcap - 1);
    while (S->gtab[j]) {
        if (S->gtab[j]->name == name)
            return S->gtab[j];
        j = (j + 1) & (S->gcap - 1);
    }
    return NULL;
}

Binding *sema_bind(Sema *S, Scope *sc, const char *name, BindKind kind, SVal v, Loc loc)
{
    Binding *b = ARENA_NEW(S->arena, Binding);
    b->name = name;
    b->kind = kind;
    b->val = v;
    b->loc = loc;
    b->next = sc->first;
    sc->first = b;
    if (sc == S->globals)
        global_put(S, b);
    return b;
}

static Binding *find_in(Scope *sc, const char *name)
{
    for (Binding *b = sc->first; b; b = b->next)
        if (b->name == name)
            return b;
    return NULL;
}

Binding *sema_lookup(Sema *S, const char *name)
{
    for (Scope *sc = S->scope; sc; sc = sc->parent) {
        Binding *b = find_in(sc, name);
        if (b)
            return b;
    }
    return sema_global_find(S, name);
}

bool sv_const_int(Sema *S, SVal v, Loc loc, const char *what, int64_t *out)
{
    if (v.kind == SV_ERR)
        return false;
    if (v.kind != SV_CONST || !sk_is_int(v.type->sk)) {
        sema_error(S, loc, "%s must be a compile-time integer, got %s", what,
                   v.kind == SV_DYN ? arena_printf(S->arena, "a run-time %s", sv_describe(S, &v))
                                    : sv_describe(S, &v));
        return false;
    }
    *out = v.c.i;
    return true;
}

/* The integer value of a compile-time expression, with a diagnostic naming `what` otherwise. */
static bool const_int(Sema *S, Node *e, const char *what, int64_t *out)
{
    return sv_const_int(S, sema_eval_expr(S, e), e->loc, what, out);
}

/* ---- types ---- */

const Type *sema_eval_type(Sema *S, Node *t)
{
    switch (t->kind) {
    case AST_TYPE_NAME: {
        int sk = sk_from_name(t->name);
        if (sk >= 0)
            return ty_scalar(S->types, (ScalarKind)sk);
        Binding *b = sema_lookup(S, t->name);
        if (b && b->kind == BIND_CONST)
            sema_eval_global(S, b, t->loc);
        if (b && b->val.kind == SV_TYPE)
            return b->val.type;
        if (b && b->val.kind == SV_ERR)
            return NULL;
        sema_error(S, t->loc, "unknown type '%s'", t->name);
        return NULL;
    }
    case AST_TYPE_PTR: {
        const Type *p = sema_eval_type(S, t->a);
        if (!p)
            return NULL;
        if (p->kind != TY_SCALAR) {
            sema_error(S, t->loc, "a pointer must point to a scalar type, not %s", ty_str(S->arena, S->types, p));
            return NULL;
        }
        return ty_ptr(S->types, p);
    }
    case AST_TYPE_TILE: {
        int sk = sk_from_name(t->name);
        const Type *elem = NULL;
        if (sk >= 0)
            elem = ty_scalar(S->types, (ScalarKind)sk);
        else {
            Binding *b = sema_lookup(S, t->name);
            if (b && b->kind == BIND_CONST)
                sema_eval_global(S, b, t->loc);
            if (b && b->val.kind == SV_TYPE)
                elem = b->val.type;
        }
        if (!elem) {
            sema_error(S, t->loc, "unknown type '%s'", t->name);
            return NULL;
        }
        if (t->list.n > TIR_MAX_RANK) {
            sema_error(S, t->loc, "tiles have at most %d dimensions, not %d", TIR_MAX_RANK, t->list.n);
            return NULL;
        }
        int64_t shape[TIR_MAX_RANK];
        for (int i = 0; i < t->list.n; i++) {
            if (!const_int(S, t->list.items[i], "a tile dimension", &shape[i]))
                return NULL;
            if (!sema_is_pow2(shape[i])) {
                sema_error(S, t->list.items[i]->loc, "tile dimension %lld is not a power of two",
                           (long long)shape[i]);
                return NULL;
            }
        }
        if (sema_shape_numel(t->list.n, shape) < 0) {
            sema_error(S, t->loc, "a tile of more than %d elements is too large", MAX_TILE_ELEMS);
            return NULL;
        }
        return sema_tile_type(S, elem, t->list.n, shape);
    }
    default:
        sema_error(S, t->loc, "expected a type");
        return NULL;
    }
}

/* ---- constant folding ---- */

static uint64_t mask_shift(ScalarKind sk, int64_t amount)
{
    return (uint64_t)amount & (uint64_t)(sk_bits(sk) - 1);
}

static SVal fold_int(Sema *S, OpCode op, const Type *t, int64_t a, int64_t b)
{
    ScalarKind sk = t->sk;
    bool s = sk_is_signed(sk);
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    int64_t r = 0;
    switch (op) {
    case OP_ADD: r = (int64_t)(ua + ub); break;
    case OP_SUB: r = (int64_t)(ua - ub); break;
    case OP_MUL: r = (int64_t)(ua * ub); break;
    case OP_DIV:
        if (b == 0)
            r = -1;
        else if (s)
            r = (a == INT64_MIN && b == -1) ? a : a / b;
        else
            r = (int64_t)(ua / ub);
        break;
    case OP_REM:
        if (b == 0)
            r = a;
        else if (s)
            r = (b == -1) ? 0 : a % b;
        else
            r = (int64_t)(ua % ub);
        break;
    case OP_AND: r = a & b; break;
    case OP_OR: r = a | b; break;
    case OP_XOR: r = a ^ b; break;
    case OP_SHL: r = (int64_t)(ua << mask_shift(sk, b)); break;
    case OP_SHR: {
        uint64_t k = mask_shift(sk, b);
        if (s)
            r = a >> k; /* a is sign-extended, so this is arithmetic at the type's width */
        else
            r = (int64_t)(ua >> k);
        break;
    }
    case OP_MIN: r = s ? (a < b ? a : b) : (ua < ub ? a : b); break;
    case OP_MAX: r = s ? (a > b ? a : b) : (ua > ub ? a : b); break;
    default: return sv_err();
    }
    /* Division results of narrower types: the operands are already normalised, so a/b fits except for
     * MIN/-1, which wraps to MIN at the type's width as well. */
    return sv_int(t, r);
}

static SVal fold_float(Sema *S, OpCode op, const Type *t, double a, double b, bool weak)
{
    double r;
    switch (op) {
    case OP_ADD: r = a + b; break;
    case OP_SUB: r = a - b; break;
    case OP_MUL: r = a * b; break;
    case OP_DIV: r = a / b; break;
    case OP_REM: r = fmod(a, b); break;
    case OP_MIN: r = (isnan(a) || isnan(b)) ? NAN : fmin(a, b); break;
    case OP_MAX: r = (isnan(a) || isnan(b)) ? NAN : fmax(a, b); break;
    default: return sv_err();
    }
    if (weak)
        return sv_weak_float(S, r);
    return sv_float(t, r);
}

static bool fold_cmp(CmpPred p, const Type *t, SVal a, SVal b)
{
    int c;
    if (sk_is_float(t->sk)) {
        double x = a.c.f, y = b.c.f;
        if (isnan(x) || isnan(y))
            return p == PRED_NE;
        c = x < y ? -1 : x > y;
    } else if (sk_is_signed(t->sk) || t->sk == SK_BOOL) {
        c = a.c.i < b.c.i ? -1 : a.c.i > b.c.i;
    } else {
        uint64_t x = (uint64_t)a.c.i, y = (uint64_t)b.c.i;
        c = x < y ? -1 : x > y;
    }
    switch (p) {
    case PRED_EQ: return c == 0;
    case PRED_NE: return c != 0;
    case PRED_LT: return c < 0;
    case PRED_LE: return c <= 0;
    case PRED_GT: return c > 0;
    default: return c >= 0;
    }
}

/* ---- operators ---- */

typedef struct BinOp {
    int tok;
    OpCode op;
    CmpPred pred;
    const char *verb;
} BinOp;

static const BinOp binops[] = {
    {TOK_PLUS, OP_ADD, 0, "add"},
    {TOK_MINUS, OP_SUB, 0, "subtract"},
    {TOK_STAR, OP_MUL, 0, "multiply"},
    {TOK_SLASH, OP_DIV, 0, "divide"},
    {TOK_PERCENT, OP_REM, 0, "take the remainder of"},
    {TOK_AMP, OP_AND, 0, "apply '&' to"},
    {TOK_PIPE, OP_OR, 0, "apply '|' to"},
    {TOK_CARET, OP_XOR, 0, "apply '^' to"},
    {TOK_SHL, OP_SHL, 0, "shift"},
    {TOK_SHR, OP_SHR, 0, "shift"},
    {TOK_EQ, OP_CMP, PRED_EQ, "compare"},
    {TOK_NE, OP_CMP, PRED_NE, "compare"},
    {TOK_LT, OP_CMP, PRED_LT, "compare"},
    {TOK_LE, OP_CMP, PRED_LE, "compare"},
    {TOK_GT, OP_CMP, PRED_GT, "compare"},
    {TOK_GE, OP_CMP, PRED_GE, "compare"},
};

static const BinOp *find_binop(int tok)
{
    for (size_t i = 0; i < sizeof binops / sizeof binops[0]; i++)
        if (binops[i].tok == tok)
            return &binops[i];
    return NULL;
}

/* ---- untyped integer literals: exact arithmetic in [-2^63, 2^64 - 1] ---- */

typedef __int128 Wide;

static Wide weak_value(SVal v) { return v.type->sk == SK_U64 ? (Wide)(uint64_t)v.c.i : (Wide)v.c.i; }

/* An exact value as an untyped literal (SK_U64 above INT64_MAX, as the lexer gives them), or the error
 * that it does not fit in 64 bits (docs/language.md: integer literals are exact, up to 2^64 - 1). */
static SVal weak_result(Sema *S, Wide r, bool ok, Loc loc)
{
    if (!ok || r < (Wide)INT64_MIN || r > (Wide)UINT64_MAX)
        return sema_error(S, loc, "the exact value of this untyped integer expression is outside -2^63 .. 2^64 - 1 "
                                  "(a typed operand, such as `x as u64`, makes it wrap)");
    if (r > (Wide)INT64_MAX) {
        SVal v = sv_int(ty_scalar(S->types, SK_U64), (int64_t)(uint64_t)r);
        v.weak = true;
        return v;
    }
    return sv_weak_int(S, (int64_t)r);
}

/* The operators' meaning on exact integers: division and remainder truncate toward zero (the sign of
 * the dividend; by zero is refused before), bitwise ops on the two's complement, a left shift a
 * multiplication by 2^b and a right shift a floor division by it (b >= 0). */
static SVal fold_weak_int(Sema *S, const BinOp *bo, SVal av, SVal bv, Loc loc)
{
    Wide a = weak_value(av), b = weak_value(bv), r = 0;
    bool ok = true;
    switch (bo->op) {
    case OP_ADD: ok = !__builtin_add_overflow(a, b, &r); break;
    case OP_SUB: ok = !__builtin_sub_overflow(a, b, &r); break;
    case OP_MUL: ok = !__builtin_mul_overflow(a, b, &r); break;
    case OP_DIV: r = a / b; break;
    case OP_REM: r = a % b; break;
    case OP_AND: r = a & b; break;
    case OP_OR: r = a | b; break;
    case OP_XOR: r = a ^ b; break;
    case OP_SHL:
        if (b < 0)
            ok = false;
        else if (a != 0)
            ok = b <= 64 && !__builtin_mul_overflow(a, (Wide)1 << b, &r);
        break;
    case OP_SHR:
        if (b < 0)
            ok = false;
        else
            r = b > 127 ? (a < 0 ? -1 : 0) : a >> b;
        break;
    default:
        ok = false;
        break;
    }
    return weak_result(S, r, ok, loc);
}

static bool int_literal_fits(ScalarKind sk, SVal v)
{
    bool big = v.type->sk == SK_U64; /* a literal above INT64_MAX */
    if (big)
        return sk == SK_U64;
    if (!sk_is_signed(sk) && v.c.i < 0)
        return false;
    return sk == SK_U64 || sema_norm_int(sk, v.c.i) == v.c.i;
}

/* Converts an operand to the promoted element type; a weak integer literal must fit. */
SVal sema_convert_operand(Sema *S, SVal v, const Type *elem, Loc loc)
{
    if (v.kind == SV_CONST && v.weak && elem->kind == TY_SCALAR && sk_is_int(elem->sk) && sk_is_float(v.type->sk))
        return sema_error(S, loc, "a float literal (%g) where %s is expected: write an integer, or convert with 'as'",
                          v.c.f, sk_name(elem->sk));
    if (v.kind == SV_CONST && v.weak && elem->kind == TY_SCALAR && sk_is_int(elem->sk) && !sk_is_float(v.type->sk) &&
        !int_literal_fits(elem->sk, v)) {
        if (v.type->sk == SK_U64)
            return sema_error(S, loc, "integer literal %llu does not fit in %s", (unsigned long long)v.c.i,
                              sk_name(elem->sk));
        return sema_error(S, loc, "integer literal %lld does not fit in %s", (long long)v.c.i, sk_name(elem->sk));
    }
    return sv_convert(S, v, elem, loc);
}

static bool elem_is_number(const Type *e) { return e->kind == TY_SCALAR && e->sk != SK_BOOL; }
static bool elem_is_intlike(const Type *e) { return e->kind == TY_SCALAR && !sk_is_float(e->sk); }

/* ptr ± int: the offset keeps its own integer type (an untyped literal becomes i32). */
static SVal eval_addptr(Sema *S, SVal p, SVal off, bool negate, Loc loc)
{
    const Type *pt = sv_type(S, &p), *ot = sv_type(S, &off);
    if (!ty_is_int(ot))
        return sema_error(S, loc, "cannot offset %s by %s (offsets are integers)", sv_describe(S, &p),
                          sv_describe(S, &off));
    if (off.kind == SV_CONST && off.weak)
        off = sv_harden(S, off);
    ot = sv_type(S, &off);
    int rank;
    int64_t shape[TIR_MAX_RANK];
    if (!sema_broadcast_shape(pt, ot, &rank, shape))
        return sema_error(S, loc, "cannot add %s and %s", sv_describe(S, &p), sv_describe(S, &off));
    if (negate) {
        if (off.kind == SV_CONST)
            off = sv_int(off.type, -off.c.i);
        else {
            sema_set_loc(S, loc);
            off = sv_dyn(b_op1(&S->b, OP_NEG, off.v->type, off.v));
        }
    }
    SVal a = sv_broadcast(S, p, rank, shape, loc);
    SVal b = sv_broadcast(S, off, rank, shape, loc);
    Value *x = sema_materialize(S, a, loc), *y = sema_materialize(S, b, loc);
    sema_set_loc(S, loc);
    return sv_dyn(b_op2(&S->b, OP_ADDPTR, sema_tile_type(S, ty_elem(pt), rank, shape), x, y));
}

SVal sema_eval_binary(Sema *S, int tok, SVal a, SVal b, Loc loc)
{
    if (a.kind == SV_ERR || b.kind == SV_ERR)
        return sv_err();
    const BinOp *bo = find_binop(tok);
    if (!bo)
        return sema_error(S, loc, "internal: unknown operator");
    if (a.kind == SV_TYPE && b.kind == SV_TYPE && bo->op == OP_CMP && (bo->pred == PRED_EQ || bo->pred == PRED_NE))
        return sv_bool(S, (a.type == b.type) == (bo->pred == PRED_EQ)); /* `if T == f16` on a type parameter */
    if (!sv_is_value(&a) || !sv_is_value(&b))
        return sema_error(S, loc, "cannot %s %s and %s", bo->verb, sv_describe(S, &a), sv_describe(S, &b));
    const Type *ta = sv_type(S, &a), *tb = sv_type(S, &b);
    bool pa = ty_is_ptr(ta), pb = ty_is_ptr(tb);
    if ((pa || pb) && bo->op != OP_CMP) {
        if (tok == TOK_PLUS && pa && !pb)
            return eval_addptr(S, a, b, false, loc);
        if (tok == TOK_PLUS && pb && !pa)
            return eval_addptr(S, b, a, false, loc);
        if (tok == TOK_MINUS && pa && !pb)
            return eval_addptr(S, a, b, true, loc);
        return sema_error(S, loc, "cannot %s %s and %s (a pointer takes only + and - of an integer offset)",
                          bo->verb, sv_describe(S, &a), sv_describe(S, &b));
    }
    int rank;
    int64_t shape[TIR_MAX_RANK];
    if (!sema_broadcast_shape(ta, tb, &rank, shape))
        return sema_error(S, loc, "cannot %s %s and %s%s", bo->verb, sv_describe(S, &a), sv_describe(S, &b),
                          sema_broadcast_why(ta, tb));
    const Type *elem = sema_promote_elem(S, &a, &b);
    if (!elem) {
        const char *why = (ty_is_bool(ta) || ty_is_bool(tb)) ? " (bool never promotes to a number: cast it)" : "";
        return sema_error(S, loc, "cannot %s %s and %s%s", bo->verb, sv_describe(S, &a), sv_describe(S, &b), why);
    }
    /* What each operator accepts, after promotion. */
    bool ok;
    switch (bo->op) {
    case OP_AND:
    case OP_OR:
    case OP_XOR:
        ok = elem_is_intlike(elem);
        break;
    case OP_SHL:
    case OP_SHR:
        ok = elem->kind == TY_SCALAR && sk_is_int(elem->sk);
        break;
    case OP_CMP:
        ok = elem->kind == TY_PTR || elem_is_number(elem) ||
             (elem->sk == SK_BOOL && (bo->pred == PRED_EQ || bo->pred == PRED_NE));
        break;
    default:
        ok = elem_is_number(elem);
        break;
    }
    if (!ok)
        return sema_error(S, loc, "cannot %s %s and %s", bo->verb, sv_describe(S, &a), sv_describe(S, &b));
    bool both_weak = a.kind == SV_CONST && a.weak && b.kind == SV_CONST && b.weak;
    if (!both_weak) {
        a = sema_convert_operand(S, a, elem, loc);
        b = sema_convert_operand(S, b, elem, loc);
        if (a.kind == SV_ERR || b.kind == SV_ERR)
            return sv_err();
    }
    /* Fold constants. Weak pairs fold at full precision and stay weak. */
    if (a.kind == SV_CONST && b.kind == SV_CONST) {
        if (both_weak && sk_is_float(elem->sk)) {
            double x = sk_is_float(a.type->sk) ? a.c.f : (a.type->sk == SK_U64 ? (double)(uint64_t)a.c.i : (double)a.c.i);
            double y = sk_is_float(b.type->sk) ? b.c.f : (b.type->sk == SK_U64 ? (double)(uint64_t)b.c.i : (double)b.c.i);
            a.c.f = x;
            b.c.f = y;
        }
        if (bo->op == OP_CMP)
            return sv_bool(S, fold_cmp(bo->pred, elem, a, b));
        if ((bo->op == OP_DIV || bo->op == OP_REM) && !sk_is_float(elem->sk) && b.c.i == 0)
            return sema_error(S, loc, "integer %s by zero in a compile-time expression",
                              bo->op == OP_DIV ? "division" : "remainder");
        if (both_weak && !sk_is_float(elem->sk))
            return fold_weak_int(S, bo, a, b, loc);
        SVal r = sk_is_float(elem->sk) ? fold_float(S, bo->op, elem, a.c.f, b.c.f, both_weak)
                                       : fold_int(S, bo->op, elem, a.c.i, b.c.i);
        if (both_weak && !sk_is_float(elem->sk))
            r.weak = true;
        if (r.kind == SV_ERR)
            return sema_error(S, loc, "cannot %s %s and %s", bo->verb, sv_describe(S, &a), sv_describe(S, &b));
        return r;
    }
    if (both_weak) {
        a = sv_harden(S, a);
        b = sv_harden(S, b);
    }
    a = sv_broadcast(S, a, rank, shape, loc);
    b = sv_broadcast(S, b, rank, shape, loc);
    Value *x = sema_materialize(S, a, loc), *y = sema_materialize(S, b, loc);
    sema_set_loc(S, loc);
    if (bo->op == OP_CMP) {
        Value *r = b_op2(&S->b, OP_CMP, sema_tile_type(S, ty_scalar(S->types, SK_BOOL), rank, shape), x, y);
        r->def->at.pred = bo->pred;
        return sv_dyn(r);
    }
    return sv_dyn(b_op2(&S->b, bo->op, x->type, x, y));
}

SVal sema_eval_unary(Sema *S, int tok, SVal a, Loc loc)
{
    if (a.kind == SV_ERR)
        return a;
    if (!sv_is_value(&a))
        return sema_error(S, loc, "cannot apply '%s' to %s", tok == TOK_MINUS ? "-" : tok == TOK_BANG ? "!" : "~",
                          sv_describe(S, &a));
    const Type *t = sv_type(S, &a), *e = ty_elem(t);
    if (tok == TOK_MINUS) {
        if (!elem_is_number(e))
            return sema_error(S, loc, "cannot negate %s", sv_describe(S, &a));
        if (a.kind == SV_CONST) {
            if (a.weak && !sk_is_float(a.type->sk)) /* exact: -9223372036854775808 is 2^63 negated */
                return weak_result(S, -weak_value(a), true, loc);
            if (a.weak)
                return sv_weak_float(S, -a.c.f);
            return sk_is_float(e->sk) ? sv_float(e, -a.c.f) : sv_int(e, (int64_t)(0 - (uint64_t)a.c.i));
        }
        sema_set_loc(S, loc);
        return sv_dyn(b_op1(&S->b, OP_NEG, t, a.v));
    }
    if (tok == TOK_BANG) {
        if (e->kind != TY_SCALAR || e->sk != SK_BOOL)
            return sema_error(S, loc, "'!' needs a bool, not %s (use '~' for a bitwise not)", sv_describe(S, &a));
        if (a.kind == SV_CONST)
            return sv_bool(S, !a.c.i);
        sema_set_loc(S, loc);
        return sv_dyn(b_op1(&S->b, OP_NOT, t, a.v));
    }
    /* '~' */
    if (!elem_is_intlike(e))
        return sema_error(S, loc, "'~' needs an integer or a bool, not %s", sv_describe(S, &a));
    if (a.kind == SV_CONST) {
        if (a.weak)
            a = sv_harden(S, a);
        return e->sk == SK_BOOL ? sv_bool(S, !a.c.i) : sv_int(a.type, ~a.c.i);
    }
    sema_set_loc(S, loc);
    return sv_dyn(b_op1(&S->b, OP_NOT, t, a.v));
}

SVal sema_eval_cast(Sema *S, SVal v, const Type *to, Loc loc)
{
    if (v.kind == SV_ERR || !to)
        return sv_err();
    if (!sv_is_value(&v))
        return sema_error(S, loc, "cannot cast %s", sv_describe(S, &v));
    const Type *from = ty_elem(sv_type(S, &v));
    if (to->kind == TY_TILE)
        return sema_error(S, loc, "'as' converts elements: name a scalar or pointer type, not %s",
                          ty_str(S->arena, S->types, to));
    if ((from->kind == TY_PTR) != (to->kind == TY_PTR))
        return sema_error(S, loc, "cannot cast %s to %s", sv_describe(S, &v), ty_str(S->arena, S->types, to));
    /* A literal converts from its exact value: `0.1 as f64` is the f64 nearest 0.1, not an f32's. */
    return sv_convert(S, v, to, loc);
}

/* Short-circuit && and ||: scalar bools only. A constant left side decides alone; otherwise the right
 * side is evaluated inside an `if`, so its loads and atomics happen only when they should. */
/* The stdlib module that defines a fn, for the hint on an unknown function (stdlib/std). */
static const char *stdlib_module_of(const char *name)
{
    static const struct {
        const char *fn, *module;
    } fns[] = {{"grouped_pid", "std/pid"}, {"xcd_remap", "std/pid"},    {"xcd_remap_n", "std/pid"},
               {"sigmoid", "std/math"},    {"tanh", "std/math"},       {"erf", "std/math"},
               {"gelu", "std/math"},       {"silu", "std/math"},       {"softplus", "std/math"},
               {"pow", "std/math"},        {"softmax", "std/reduce"},  {"logsumexp", "std/reduce"}};
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        if (strcmp(name, fns[i].fn) == 0)
            return fns[i].module;
    return NULL;
}

static SVal eval_logical(Sema *S, Node *e)
{
    bool is_and = e->op == TOK_ANDAND;
    const char *opname = is_and ? "&&" : "||";
    SVal a = sema_eval_expr(S, e->a);
    if (a.kind == SV_ERR)
        return a;
    const Type *ta = sv_type(S, &a);
    if (!ta || ta->kind != TY_SCALAR || ta->sk != SK_BOOL)
        return sema_error(S, e->a->loc, "'%s' needs scalar bools, not %s (for tiles use '%s')", opname,
                          sv_describe(S, &a), is_and ? "&" : "|");
    if (a.kind == SV_CONST) {
        if (a.c.i == (is_and ? 0 : 1))
            return a;
        SVal b = sema_eval_expr(S, e->b);
        const Type *tb = sv_type(S, &b);
        if (b.kind != SV_ERR && (!tb || tb->kind != TY_SCALAR || tb->sk != SK_BOOL))
            return sema_error(S, e->b->loc, "'%s' needs scalar bools, not %s (for tiles use '%s')", opname,
                              sv_describe(S, &b), is_and ? "&" : "|");
        return b;
    }
    const Type *tbool = ty_scalar(S->types, SK_BOOL);
    sema_set_loc(S, e->loc);
    Op *ifop = b_op(&S->b, OP_IF, &tbool, 1, &a.v, 1);
    Builder saved = S->b;
    /* the branch that evaluates the right side */
    tir_builder_at_end(&S->b, op_block(ifop, is_and ? 0 : 1));
    SVal b = sema_eval_expr(S, e->b);
    const Type *tb = sv_type(S, &b);
    if (b.kind != SV_ERR && (!tb || tb->kind != TY_SCALAR || tb->sk != SK_BOOL))
        b = sema_error(S, e->b->loc, "'%s' needs scalar bools, not %s (for tiles use '%s')", opname,
                       sv_describe(S, &b), is_and ? "&" : "|");
    Value *bv = b.kind == SV_ERR ? b_const_int(&S->b, tbool, 0) : sema_materialize(S, b, e->b->loc);
    b_op(&S->b, OP_YIELD, NULL, 0, &bv, 1);
    /* the branch that short-circuits */
    tir_builder_at_end(&S->b, op_block(ifop, is_and ? 1 : 0));
    Value *k = b_const_int(&S->b, tbool, is_and ? 0 : 1);
    b_op(&S->b, OP_YIELD, NULL, 0, &k, 1);
    S->b = saved;
    return b.kind == SV_ERR ? b : sv_dyn(op_result(ifop, 0));
}

/* x[:, None]: ':' keeps a dimension, None inserts one of size 1. */
static SVal eval_index(Sema *S, Node *e)
{
    SVal x = sema_eval_expr(S, e->a);
    if (x.kind == SV_ERR)
        return x;
    if (!sv_is_value(&x))
        return sema_error(S, e->loc, "cannot index %s", sv_describe(S, &x));
    const Type *t = sv_type(S, &x);
    int rank = t->kind == TY_TILE ? t->rank : 0;
    int nslices = 0, nnone = 0;
    for (int i = 0; i < e->list.n; i++) {
        Node *ix = e->list.items[i];
        if (ix->kind == AST_SLICE)
            nslices++;
        else if (ix->kind == AST_NONE)
            nnone++;
        else if (e->a->kind == AST_CAST)
            return sema_error(S, ix->loc, "'as' converts elements to a scalar type, not to a tile type: write "
                              "'x as T', the shape stays");
        else
            return sema_error(S, ix->loc, "tiles are indexed only with ':' and None (no element or range indexing)");
    }
    if (nslices != rank)
        return sema_error(S, e->loc, "indexing %s needs exactly %d ':' (one per dimension), got %d",
                          sv_describe(S, &x), rank, nslices);
    if (rank + nnone > TIR_MAX_RANK)
        return sema_error(S, e->loc, "tiles have at most %d dimensions", TIR_MAX_RANK);
    if (nnone == 0)
        return x;
    int64_t shape[TIR_MAX_RANK];
    int k = 0, d = 0;
    for (int i = 0; i < e->list.n; i++)
        shape[k++] = e->list.items[i]->kind == AST_NONE ? 1 : t->shape[d++];
    const Type *elem = ty_elem(t);
    if (rank == 0) {
        Value *v = sema_materialize(S, x, e->loc);
        sema_set_loc(S, e->loc);
        return sv_dyn(b_op1(&S->b, OP_SPLAT, sema_tile_type(S, elem, k, shape), v));
    }
    Value *v = x.v;
    int64_t cur[TIR_MAX_RANK];
    int r = rank;
    for (int i = 0; i < rank; i++)
        cur[i] = t->shape[i];
    sema_set_loc(S, e->loc);
    for (int i = 0; i < e->list.n; i++) {
        if (e->list.items[i]->kind != AST_NONE)
            continue;
        for (int j = r; j > i; j--)
            cur[j] = cur[j - 1];
        cur[i] = 1;
        r++;
        v = b_op1(&S->b, OP_EXPAND_DIMS, sema_tile_type(S, elem, r, cur), v);
        v->def->at.axis = i;
    }
    return sv_dyn(v);
}

SVal sema_eval_expr(Sema *S, Node *e)
{
    if (!sema_step(S, e->loc))
        return sv_err();
    switch (e->kind) {
    case AST_INT:
        if (e->lit.i > (uint64_t)INT64_MAX) {
            SVal v = sv_int(ty_scalar(S->types, SK_U64), (int64_t)e->lit.i);
            v.weak = true;
            return v;
        }
        return sv_weak_int(S, (int64_t)e->lit.i);
    case AST_FLOAT:
        return sv_weak_float(S, e->lit.f);
    case AST_BOOL:
        return sv_bool(S, e->lit.i != 0);
    case AST_NONE: {
        SVal v = {0};
        v.kind = SV_NONE;
        return v;
    }
    case AST_SLICE: {
        SVal v = {0};
        v.kind = SV_SLICE;
        return v;
    }
    case AST_STRING: {
        SVal v = {0};
        v.kind = SV_STRING;
        v.str = e->str;
        v.slen = e->slen;
        return v;
    }
    case AST_LIST:
    case AST_TUPLE: {
        SVal v = {0};
        v.kind = e->kind == AST_LIST ? SV_LIST : SV_TUPLE;
        v.n = e->list.n;
        v.items = ARENA_ARRAY(S->arena, SVal, v.n + 1);
        for (int i = 0; i < v.n; i++) {
            v.items[i] = sema_eval_expr(S, e->list.items[i]);
            if (v.items[i].kind == SV_ERR)
                return sv_err();
            if (v.items[i].kind == SV_VOID)
                return sema_error(S, e->list.items[i]->loc, "an element of a %s must be a value, not %s",
                                  e->kind == AST_LIST ? "list" : "tuple", sv_describe(S, &v.items[i]));
        }
        return v;
    }
    case AST_NAME: {
        Binding *b = sema_lookup(S, e->name);
        if (b) {
            if (b->kind == BIND_CONST)
                return sema_eval_global(S, b, e->loc);
            if (b->kind == BIND_FN)
                return sema_error(S, e->loc, "'%s' is a function: call it", e->name);
            if (b->kind == BIND_KERNEL)
                return sema_error(S, e->loc, "'%s' is a kernel and cannot be used in an expression", e->name);
            return b->val;
        }
        int sk = sk_from_name(e->name);
        if (sk >= 0)
            return sv_typeval(ty_scalar(S->types, (ScalarKind)sk));
        if (sema_is_builtin(e->name))
            return sema_error(S, e->loc, "'%s' is a builtin function: call it", e->name);
        return sema_error(S, e->loc, "unknown name '%s'", e->name);
    }
    case AST_UNARY:
        return sema_eval_unary(S, e->op, sema_eval_expr(S, e->a), e->loc);
    case AST_BINARY:
        if (e->op == TOK_ANDAND || e->op == TOK_OROR)
            return eval_logical(S, e);
        {
            SVal a = sema_eval_expr(S, e->a);
            SVal b = sema_eval_expr(S, e->b);
            return sema_eval_binary(S, e->op, a, b, e->loc);
        }
    case AST_CAST: {
        SVal v = sema_eval_expr(S, e->a);
        return sema_eval_cast(S, v, sema_eval_type(S, e->b), e->loc);
    }
    case AST_INDEX:
        return eval_index(S, e);
    case AST_CALL: {
        if (e->a->kind != AST_NAME)
            return sema_error(S, e->loc, "only named functions can be called");
        const char *name = e->a->name;
        Binding *b = sema_lookup(S, name);
        if (b && b->kind == BIND_FN)
            return sema_inline_call(S, b, e);
        if (b && b->kind != BIND_FN)
            return sema_error(S, e->loc, "'%s' is not a function", name);
        SVal out;
        if (sema_eval_builtin(S, name, e, &out))
            return out;
        const char *module = stdlib_module_of(name);
        if (module)
            return sema_error(S, e->loc, "unknown function '%s'; it is in the standard library: add import \"%s\";",
                              name, module);
        return sema_error(S, e->loc, "unknown function '%s'", name);
    }
    case AST_NAMED:
        return sema_error(S, e->loc, "a named argument ('%s = ...') is only allowed in a call", e->name);
    case AST_DICT:
        return sema_error(S, e->loc, "a dict is only allowed in an attribute");
    default:
        return sema_error(S, e->loc, "expected an expression");
    }
}
