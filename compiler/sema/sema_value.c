/* Values during semantic analysis: compile-time constants and IR values, the contract's promotion
 * rules, conversions (`as`), numpy broadcasting, and materialising constants as IR. */
#include <math.h>
#include <string.h>

#include "compiler/sema/sema_internal.h"
#include "support/fp16.h"

SVal sv_err(void) { SVal v = {0}; v.kind = SV_ERR; return v; }
SVal sv_void(void) { SVal v = {0}; v.kind = SV_VOID; return v; }

SVal sv_int(const Type *t, int64_t x)
{
    SVal v = {0};
    v.kind = SV_CONST;
    v.type = t;
    v.c.i = sema_norm_int(t->sk, x);
    return v;
}

SVal sv_weak_int(Sema *S, int64_t x)
{
    SVal v = sv_int(ty_scalar(S->types, SK_I64), x);
    v.weak = true;
    return v;
}

SVal sv_float(const Type *t, double x)
{
    SVal v = {0};
    v.kind = SV_CONST;
    v.type = t;
    v.c.f = fp_round(t->sk, x);
    return v;
}

SVal sv_weak_float(Sema *S, double x)
{
    SVal v = {0};
    v.kind = SV_CONST;
    v.type = ty_scalar(S->types, SK_F64); /* full precision until it meets a concrete type */
    v.c.f = x;
    v.weak = true;
    return v;
}

SVal sv_bool(Sema *S, bool b) { return sv_int(ty_scalar(S->types, SK_BOOL), b); }

SVal sv_dyn(Value *x)
{
    SVal v = {0};
    v.kind = SV_DYN;
    v.v = x;
    return v;
}

SVal sv_typeval(const Type *t)
{
    SVal v = {0};
    v.kind = SV_TYPE;
    v.type = t;
    return v;
}

bool sv_is_value(const SVal *v) { return v->kind == SV_CONST || v->kind == SV_DYN; }
bool sv_is_tile(const SVal *v) { return v->kind == SV_DYN && v->v->type->kind == TY_TILE; }

const Type *sv_type(Sema *S, const SVal *v)
{
    (void)S;
    if (v->kind == SV_CONST)
        return v->type;
    if (v->kind == SV_DYN)
        return v->v->type;
    return NULL;
}

bool sema_is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

int64_t sema_shape_numel(int rank, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        if (shape[i] <= 0 || shape[i] > MAX_TILE_ELEMS / n)
            return -1;
        n *= shape[i];
    }
    return n;
}

const Type *sema_tile_type(Sema *S, const Type *elem, int rank, const int64_t *shape)
{
    if (rank == 0)
        return elem;
    return ty_tile(S->types, elem, rank, shape, NULL);
}

const char *sv_describe(Sema *S, const SVal *v)
{
    switch (v->kind) {
    case SV_CONST:
        if (v->weak)
            return sk_is_float(v->type->sk) ? "a float literal" : "an integer literal";
        return ty_str(S->arena, S->types, v->type);
    case SV_DYN:
        return ty_str(S->arena, S->types, v->v->type);
    case SV_TYPE:
        return arena_printf(S->arena, "the type %s", ty_str(S->arena, S->types, v->type));
    case SV_LIST:
        return "a list";
    case SV_TUPLE:
        return "a tuple";
    case SV_STRING:
        return "a string";
    case SV_NONE:
        return "None";
    case SV_SLICE:
        return "':'";
    case SV_VOID:
        return "nothing (a call without a result)";
    default:
        return "an invalid value";
    }
}

int64_t sema_norm_int(ScalarKind sk, int64_t v)
{
    if (sk == SK_BOOL)
        return v != 0;
    int w = sk_bits(sk);
    if (w >= 64 || !sk_is_int(sk))
        return v;
    uint64_t u = (uint64_t)v;
    if (sk_is_signed(sk))
        return (int64_t)(u << (64 - w)) >> (64 - w);
    return (int64_t)(u & ((1ull << w) - 1));
}

/* Does an integer constant fit the type without changing value? */
static bool int_fits(ScalarKind sk, int64_t v, bool from_unsigned64)
{
    if (sk == SK_U64)
        return !(v < 0 && !from_unsigned64);
    if (from_unsigned64 && v < 0)
        return false;
    return sema_norm_int(sk, v) == v;
}

SVal sv_harden(Sema *S, SVal v)
{
    if (v.kind != SV_CONST || !v.weak)
        return v;
    if (sk_is_float(v.type->sk))
        return sv_float(ty_scalar(S->types, SK_F32), v.c.f);
    if (v.type->sk == SK_U64 && v.c.i < 0) /* only literals above INT64_MAX are weak u64 */
        return sv_int(ty_scalar(S->types, SK_U64), v.c.i);
    if (int_fits(SK_I32, v.c.i, false))
        return sv_int(ty_scalar(S->types, SK_I32), v.c.i);
    return sv_int(ty_scalar(S->types, SK_I64), v.c.i);
}

/* Sema keeps unsigned constants zero-extended (so folding and comparing them is plain uint64_t
 * arithmetic); the IR stores every integer constant as its bits sign-extended to 64. */
static int64_t ir_bits(ScalarKind sk, int64_t v)
{
    int w = sk_bits(sk);
    if (sk == SK_BOOL || w >= 64)
        return v;
    uint64_t u = (uint64_t)v << (64 - w);
    return (int64_t)u >> (64 - w);
}

Value *sema_const_value(Sema *S, const Type *t, SVal c)
{
    ScalarKind sk = ty_elem(t)->sk;
    if (sk_is_float(sk))
        return b_const_float(&S->b, t, c.c.f);
    return b_const_int(&S->b, t, ir_bits(sk, c.c.i));
}

Value *sema_materialize(Sema *S, SVal v, Loc loc)
{
    if (v.kind == SV_DYN)
        return v.v;
    v = sv_harden(S, v);
    sema_set_loc(S, loc);
    return sema_const_value(S, v.type, v);
}

/* Constant conversion between scalar types, as `as` does at run time. */
static SVal convert_const(Sema *S, SVal v, const Type *to)
{
    const Type *from = v.type;
    if (from->kind != TY_SCALAR || to->kind != TY_SCALAR)
        return sv_err();
    ScalarKind fs = from->sk, ts = to->sk;
    if (ts == SK_BOOL)
        return sv_bool(S, sk_is_float(fs) ? v.c.f != 0 : v.c.i != 0);
    if (sk_is_float(ts)) {
        double d;
        if (sk_is_float(fs))
            d = v.c.f;
        else if (fs == SK_U64)
            d = (double)(uint64_t)v.c.i;
        else
            d = (double)v.c.i;
        return sv_float(to, d);
    }
    /* to an integer */
    if (sk_is_float(fs)) {
        double d = trunc(v.c.f);
        int64_t r;
        if (isnan(d))
            r = 0;
        else if (ts == SK_U64)
            r = d <= 0 ? 0 : d >= 18446744073709551616.0 ? -1 : (int64_t)(uint64_t)d;
        else {
            int w = sk_bits(ts);
            bool s = sk_is_signed(ts);
            double lo = s ? -ldexp(1, w - 1) : 0, hi = s ? ldexp(1, w - 1) - 1 : ldexp(1, w) - 1;
            r = d < lo ? (int64_t)lo : d > hi ? (int64_t)hi : (int64_t)d;
        }
        return sv_int(to, r);
    }
    return sv_int(to, v.c.i);
}

SVal sv_convert(Sema *S, SVal v, const Type *elem, Loc loc)
{
    if (v.kind == SV_ERR)
        return v;
    if (v.kind == SV_CONST) {
        if (v.type == elem && !v.weak)
            return v;
        if (elem->kind == TY_PTR)
            return sema_error(S, loc, "cannot convert %s to %s", sv_describe(S, &v),
                              ty_str(S->arena, S->types, elem));
        return convert_const(S, v, elem);
    }
    const Type *t = v.v->type;
    if (ty_elem(t) == elem)
        return v;
    if (ty_is_ptr(t) || elem->kind == TY_PTR) /* between pointer types only with `as` (eval_cast) */
        if (ty_is_ptr(t) != (elem->kind == TY_PTR))
            return sema_error(S, loc, "cannot convert %s to %s", sv_describe(S, &v), ty_str(S->arena, S->types, elem));
    sema_set_loc(S, loc);
    return sv_dyn(b_op1(&S->b, OP_CAST, ty_with_elem(S->types, t, elem), v.v));
}

/* Why two shapes do not broadcast, for messages: "" when they are incompatible, else a note on size. */
const char *sema_broadcast_why(const Type *a, const Type *b)
{
    int ra = a->kind == TY_TILE ? a->rank : 0, rb = b->kind == TY_TILE ? b->rank : 0;
    int r = ra > rb ? ra : rb;
    for (int i = 0; i < r; i++) {
        int ia = i - (r - ra), ib = i - (r - rb);
        int64_t da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return "";
    }
    return ": the result would have more than 16777216 elements (the limit of a tile)";
}

bool sema_broadcast_shape(const Type *a, const Type *b, int *rank, int64_t *shape)
{
    int ra = a->kind == TY_TILE ? a->rank : 0, rb = b->kind == TY_TILE ? b->rank : 0;
    int r = ra > rb ? ra : rb;
    for (int i = 0; i < r; i++) {
        int ia = i - (r - ra), ib = i - (r - rb);
        int64_t da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return false;
        shape[i] = da == 1 ? db : da;
    }
    *rank = r;
    return sema_shape_numel(r, shape) >= 0; /* a result too large does not broadcast either */
}

SVal sv_broadcast(Sema *S, SVal v, int rank, const int64_t *shape, Loc loc)
{
    if (v.kind == SV_ERR || rank == 0)
        return v;
    Value *x = sema_materialize(S, v, loc);
    const Type *t = x->type;
    const Type *elem = ty_elem(t);
    const Type *want = sema_tile_type(S, elem, rank, shape);
    if (t == want)
        return sv_dyn(x);
    sema_set_loc(S, loc);
    if (t->kind != TY_TILE)
        return sv_dyn(b_op1(&S->b, OP_SPLAT, want, x));
    /* Leading dims of 1 first (numpy aligns shapes from the right), then stretch. */
    int64_t s[TIR_MAX_RANK];
    int r = t->rank;
    for (int i = 0; i < r; i++)
        s[i] = t->shape[i];
    while (r < rank) {
        Op *op;
        for (int i = r; i > 0; i--)
            s[i] = s[i - 1];
        s[0] = 1;
        r++;
        const Type *nt = sema_tile_type(S, elem, r, s);
        x = b_op1(&S->b, OP_EXPAND_DIMS, nt, x);
        op = x->def;
        op->at.axis = 0;
    }
    if (x->type != want)
        x = b_op1(&S->b, OP_BROADCAST, want, x);
    return sv_dyn(x);
}

/* The contract: the wider integer wins; equal width signed/unsigned gives unsigned; int with float
 * gives the float; f16 with bf16 gives f32; a 16-bit float with f32 gives f32; f32 with f64 gives f64;
 * bool never promotes to a number. An untyped literal takes the other operand's type, except that a
 * float literal with an integer gives f32. */
static const Type *promote_concrete(Sema *S, const Type *a, const Type *b)
{
    if (a == b)
        return a;
    if (a->kind != TY_SCALAR || b->kind != TY_SCALAR)
        return NULL;
    ScalarKind x = a->sk, y = b->sk;
    if (x == SK_BOOL || y == SK_BOOL)
        return NULL;
    bool fx = sk_is_float(x), fy = sk_is_float(y);
    if (fx && fy) {
        int bx = sk_bits(x), by = sk_bits(y);
        if (bx == 16 && by == 16)
            return ty_scalar(S->types, SK_F32); /* f16 with bf16 */
        return bx >= by ? a : b;
    }
    if (fx)
        return a;
    if (fy)
        return b;
    int bx = sk_bits(x), by = sk_bits(y);
    if (bx != by)
        return bx > by ? a : b;
    return sk_is_signed(x) ? b : a; /* equal width: unsigned wins */
}

const Type *sema_promote_elem(Sema *S, const SVal *a, const SVal *b)
{
    const Type *ta = ty_elem(sv_type(S, a)), *tb = ty_elem(sv_type(S, b));
    bool wa = a->kind == SV_CONST && a->weak, wb = b->kind == SV_CONST && b->weak;
    if (wa && wb) {
        if (sk_is_float(ta->sk) || sk_is_float(tb->sk))
            return ty_scalar(S->types, SK_F64); /* stays weak: the caller folds */
        return ty_scalar(S->types, SK_I64);
    }
    if (wa || wb) {
        const Type *weak = wa ? ta : tb, *other = wa ? tb : ta;
        if (other->kind != TY_SCALAR)
            return sk_is_float(weak->sk) ? NULL : other; /* pointer + int literal: pointer */
        if (other->sk == SK_BOOL)
            return NULL;
        if (sk_is_float(weak->sk) && !sk_is_float(other->sk))
            return ty_scalar(S->types, SK_F32);
        return other;
    }
    return promote_concrete(S, ta, tb);
}
