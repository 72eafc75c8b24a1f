/* Builtin functions of the language: each typed, shape-checked and lowered to tile IR (or folded when
 * its operands are compile-time constants). The table at the bottom maps names to handlers and their
 * parameter names, which is also what named arguments (`mask = m`) are matched against. Reductions and
 * scans are in sema_builtin_reduce.c; the argument helpers both use are declared in sema_builtin.h. */
#include <math.h>
#include <string.h>

#include "compiler/sema/sema_builtin.h"
#include "compiler/sema/sema_internal.h"
#include "compiler/target/target.h"
#include "parser.h"

typedef SVal (*BuiltinFn)(Sema *S, BArgs *a);

typedef struct Builtin {
    const char *name;
    BuiltinFn fn;
    int min_args;                      /* required leading parameters */
    const char *params[MAX_BARGS + 1]; /* parameter names, NULL-terminated */
    int code;                          /* handler-specific: an OpCode or OpKind */
} Builtin;

Loc barg_loc(BArgs *a, int i) { return a->n[i] ? a->n[i]->loc : a->loc; }
bool barg_given(BArgs *a, int i) { return a->v[i].kind != SV_VOID; }

/* ---- argument helpers ---- */

bool barg_value(Sema *S, BArgs *a, int i, const char *what)
{
    if (a->v[i].kind == SV_ERR)
        return false;
    if (!sv_is_value(&a->v[i])) {
        sema_error(S, barg_loc(a, i), "%s of %s must be a value, not %s", what, a->name, sv_describe(S, &a->v[i]));
        return false;
    }
    return true;
}

bool barg_int_const(Sema *S, BArgs *a, int i, const char *what, int64_t *out)
{
    return sv_const_int(S, a->v[i], barg_loc(a, i), arena_printf(S->arena, "%s of %s", what, a->name), out);
}

static bool want_string(Sema *S, BArgs *a, int i, const char *what, const char **out)
{
    if (a->v[i].kind == SV_ERR)
        return false;
    if (a->v[i].kind != SV_STRING) {
        sema_error(S, barg_loc(a, i), "%s of %s must be a string literal, not %s", what, a->name,
                   sv_describe(S, &a->v[i]));
        return false;
    }
    *out = a->v[i].str;
    return true;
}

static const Type *want_type(Sema *S, BArgs *a, int i)
{
    if (a->v[i].kind == SV_ERR)
        return NULL;
    if (a->v[i].kind != SV_TYPE || a->v[i].type->kind != TY_SCALAR) {
        sema_error(S, barg_loc(a, i), "the dtype of %s must be a scalar type such as f32, not %s", a->name,
                   sv_describe(S, &a->v[i]));
        return NULL;
    }
    return a->v[i].type;
}

/* A shape: a list of constant powers of two, rank 1..4. */
static bool want_shape(Sema *S, BArgs *a, int i, int *rank, int64_t *shape)
{
    SVal v = a->v[i];
    if (v.kind == SV_ERR)
        return false;
    if (v.kind != SV_LIST || v.n < 1 || v.n > TIR_MAX_RANK) {
        sema_error(S, barg_loc(a, i), "the shape of %s must be a list of 1 to %d constants, such as [64, 32]",
                   a->name, TIR_MAX_RANK);
        return false;
    }
    Node *ln = a->n[i] && a->n[i]->kind == AST_LIST && a->n[i]->list.n == v.n ? a->n[i] : NULL;
    for (int k = 0; k < v.n; k++) {
        Loc at = ln ? ln->list.items[k]->loc : barg_loc(a, i);
        if (!sv_const_int(S, v.items[k], at, "a tile dimension", &shape[k]))
            return false;
        if (!sema_is_pow2(shape[k])) {
            sema_error(S, at, "tile dimension %lld is not a power of two", (long long)shape[k]);
            return false;
        }
    }
    if (sema_shape_numel(v.n, shape) < 0) {
        sema_error(S, barg_loc(a, i), "the shape of %s has more than %d elements (the limit of a tile)", a->name,
                   MAX_TILE_ELEMS);
        return false;
    }
    *rank = v.n;
    return true;
}

/* An axis in [-rank, rank), normalised; `of` names the operand in the message. */
bool barg_axis(Sema *S, BArgs *a, int i, int rank, const char *of, int *axis)
{
    int64_t ax;
    if (!barg_int_const(S, a, i, "the axis", &ax))
        return false;
    if (ax < -rank || ax >= rank) {
        sema_error(S, barg_loc(a, i), "axis %lld is out of range for %s (rank %d: axes %d to %d)", (long long)ax, of,
                   rank, -rank, rank - 1);
        return false;
    }
    *axis = (int)(ax < 0 ? ax + rank : ax);
    return true;
}

static const Type *bool_t(Sema *S) { return ty_scalar(S->types, SK_BOOL); }
static const Type *i32_t(Sema *S) { return ty_scalar(S->types, SK_I32); }

/* ---- indices and creation ---- */

static SVal b_program_id(Sema *S, BArgs *a)
{
    int64_t axis;
    if (!barg_int_const(S, a, 0, "the axis", &axis))
        return sv_err();
    if (axis < 0 || axis > 2)
        return sema_error(S, barg_loc(a, 0), "the axis of %s must be 0, 1 or 2, not %lld", a->name, (long long)axis);
    sema_set_loc(S, a->loc);
    Value *v = b_op0(&S->b, (OpCode)a->code, i32_t(S));
    v->def->at.axis = axis;
    return sv_dyn(v);
}

static SVal b_arange(Sema *S, BArgs *a)
{
    int64_t start = 0, end;
    if (barg_given(a, 1)) {
        if (!barg_int_const(S, a, 0, "the start", &start) || !barg_int_const(S, a, 1, "the end", &end))
            return sv_err();
    } else if (!barg_int_const(S, a, 0, "the length", &end)) {
        return sv_err();
    }
    if (start < INT32_MIN || start > INT32_MAX || end < INT32_MIN || end > (int64_t)INT32_MAX + 1)
        return sema_error(S, a->loc, "arange bounds must fit in i32");
    int64_t n = end - start;
    if (!sema_is_pow2(n))
        return sema_error(S, a->loc, "arange(%lld, %lld) has length %lld, which is not a power of two",
                          (long long)start, (long long)end, (long long)n);
    if (n > MAX_TILE_ELEMS)
        return sema_error(S, a->loc, "arange(%lld, %lld) has more than %d elements (the limit of a tile)",
                          (long long)start, (long long)end, MAX_TILE_ELEMS);
    sema_set_loc(S, a->loc);
    Value *v = b_op0(&S->b, OP_ARANGE, sema_tile_type(S, i32_t(S), 1, &n));
    v->def->at.start = start;
    v->def->at.end = end;
    return sv_dyn(v);
}

static SVal make_full(Sema *S, BArgs *a, int shape_i, SVal value, const Type *elem)
{
    int rank;
    int64_t shape[TIR_MAX_RANK];
    if (!want_shape(S, a, shape_i, &rank, shape) || !elem || value.kind == SV_ERR)
        return sv_err();
    if (value.kind == SV_CONST && value.weak && sk_is_int(elem->sk) && sk_is_float(value.type->sk))
        return sema_error(S, a->loc, "cannot fill a tile of %s with a float literal", sk_name(elem->sk));
    SVal c = sema_convert_operand(S, value, elem, a->loc);
    if (c.kind == SV_ERR)
        return c;
    if (c.kind == SV_CONST) {
        sema_set_loc(S, a->loc);
        const Type *t = sema_tile_type(S, elem, rank, shape);
        return sv_dyn(sema_const_value(S, t, c));
    }
    if (sv_is_tile(&c))
        return sema_error(S, barg_loc(a, 1), "the fill value of %s must be a scalar", a->name);
    return sv_broadcast(S, c, rank, shape, a->loc);
}

static SVal b_zeros(Sema *S, BArgs *a)
{
    return make_full(S, a, 0, sv_weak_int(S, 0), want_type(S, a, 1));
}

static SVal b_full(Sema *S, BArgs *a)
{
    if (!barg_value(S, a, 1, "the value"))
        return sv_err();
    return make_full(S, a, 0, a->v[1], want_type(S, a, 2));
}

/* ---- memory ---- */

/* The shape of a memory operation is its pointer's: the other arguments (value, mask, other) must
 * broadcast to it. (A tile stored through one scalar pointer, or a tile mask on a scalar load, is a
 * mistake rather than a broadcast.) False after a diagnostic. */
static bool common_shape(Sema *S, BArgs *a, const int *idx, int n, int *rank, int64_t *shape,
                         const char *const *roles)
{
    const Type *pt = sv_type(S, &a->v[idx[0]]);
    *rank = pt->kind == TY_TILE ? pt->rank : 0;
    if (*rank)
        memcpy(shape, pt->shape, sizeof(int64_t) * (size_t)*rank);
    for (int k = 1; k < n; k++) {
        int i = idx[k];
        if (!barg_given(a, i))
            continue;
        const Type *t = sv_type(S, &a->v[i]);
        int r;
        int64_t got[TIR_MAX_RANK];
        if (!sema_broadcast_shape(pt, t, &r, got) || r != *rank || memcmp(got, shape, sizeof(int64_t) * (size_t)r) != 0) {
            sema_error(S, barg_loc(a, i), "%s: the %s (%s) does not broadcast to the shape of the pointer (%s)", a->name,
                       roles[i], sv_describe(S, &a->v[i]), sv_describe(S, &a->v[idx[0]]));
            return false;
        }
    }
    return true;
}

static bool want_ptr(Sema *S, BArgs *a, int i)
{
    if (!barg_value(S, a, i, "the pointer"))
        return false;
    if (!ty_is_ptr(sv_type(S, &a->v[i]))) {
        sema_error(S, barg_loc(a, i), "%s needs a pointer or a tile of pointers, not %s", a->name,
                   sv_describe(S, &a->v[i]));
        return false;
    }
    return true;
}

static bool want_mask(Sema *S, BArgs *a, int i)
{
    if (!barg_given(a, i))
        return true;
    if (!barg_value(S, a, i, "the mask"))
        return false;
    if (!ty_is_bool(sv_type(S, &a->v[i]))) {
        sema_error(S, barg_loc(a, i), "the mask of %s must be bool, not %s", a->name, sv_describe(S, &a->v[i]));
        return false;
    }
    return true;
}

static SVal b_load(Sema *S, BArgs *a)
{
    if (!want_ptr(S, a, 0) || !want_mask(S, a, 1))
        return sv_err();
    if (barg_given(a, 2) && !barg_value(S, a, 2, "the other value"))
        return sv_err();
    if (barg_given(a, 2) && !barg_given(a, 1))
        return sema_error(S, barg_loc(a, 2), "'other' of load is used only with a mask");
    int idx[] = {0, 1, 2}, rank;
    int64_t shape[TIR_MAX_RANK];
    static const char *const roles[] = {"pointer", "mask", "other value"};
    if (!common_shape(S, a, idx, 3, &rank, shape, roles))
        return sv_err();
    const Type *elem = ty_elem(sv_type(S, &a->v[0]))->pointee;
    Value *ops[3];
    ops[0] = sema_materialize(S, sv_broadcast(S, a->v[0], rank, shape, a->loc), a->loc);
    int nops = 1;
    if (barg_given(a, 1)) {
        SVal other = barg_given(a, 2) ? a->v[2] : sv_weak_int(S, 0);
        if (other.kind == SV_CONST && other.weak && sk_is_int(elem->sk) && sk_is_float(other.type->sk))
            return sema_error(S, barg_loc(a, 2), "'other' is a float literal but the load reads %s", sk_name(elem->sk));
        other = sema_convert_operand(S, other, elem, barg_loc(a, 2));
        if (other.kind == SV_ERR)
            return other;
        ops[1] = sema_materialize(S, sv_broadcast(S, a->v[1], rank, shape, a->loc), a->loc);
        ops[2] = sema_materialize(S, sv_broadcast(S, other, rank, shape, a->loc), a->loc);
        nops = 3;
    }
    sema_set_loc(S, a->loc);
    const Type *rt = sema_tile_type(S, elem, rank, shape);
    return sv_dyn(op_result(b_op(&S->b, OP_LOAD, &rt, 1, ops, nops), 0));
}

static SVal b_store(Sema *S, BArgs *a)
{
    if (!want_ptr(S, a, 0) || !barg_value(S, a, 1, "the value") || !want_mask(S, a, 2))
        return sv_err();
    int idx[] = {0, 1, 2}, rank;
    int64_t shape[TIR_MAX_RANK];
    static const char *const roles[] = {"pointer", "value", "mask"};
    if (!common_shape(S, a, idx, 3, &rank, shape, roles))
        return sv_err();
    const Type *elem = ty_elem(sv_type(S, &a->v[0]))->pointee;
    SVal val = a->v[1];
    if (ty_is_ptr(sv_type(S, &val)))
        return sema_error(S, barg_loc(a, 1), "cannot store %s through %s", sv_describe(S, &val),
                          sv_describe(S, &a->v[0]));
    if (val.kind == SV_CONST && val.weak && sk_is_int(elem->sk) && sk_is_float(val.type->sk))
        return sema_error(S, barg_loc(a, 1), "cannot store a float literal to %s", sv_describe(S, &a->v[0]));
    val = sema_convert_operand(S, val, elem, barg_loc(a, 1));
    if (val.kind == SV_ERR)
        return val;
    Value *ops[3];
    ops[0] = sema_materialize(S, sv_broadcast(S, a->v[0], rank, shape, a->loc), a->loc);
    ops[1] = sema_materialize(S, sv_broadcast(S, val, rank, shape, a->loc), a->loc);
    int nops = 2;
    if (barg_given(a, 2))
        ops[nops++] = sema_materialize(S, sv_broadcast(S, a->v[2], rank, shape, a->loc), a->loc);
    sema_set_loc(S, a->loc);
    b_op(&S->b, OP_STORE, NULL, 0, ops, nops);
    return sv_void();
}

static bool atomic_sem_scope(Sema *S, BArgs *a, int si, int ci, int64_t *sem, int64_t *scope)
{
    static const char *const sems[] = {"relaxed", "acquire", "release", "acq_rel"};
    static const char *const scopes[] = {"gpu", "cta", "sys"};
    *sem = SEM_ACQ_REL;
    *scope = SCOPE_GPU;
    const char *s;
    if (barg_given(a, si)) {
        if (!want_string(S, a, si, "sem", &s))
            return false;
        int k = -1;
        for (int i = 0; i < 4; i++)
            if (strcmp(s, sems[i]) == 0)
                k = i;
        if (k < 0) {
            sema_error(S, barg_loc(a, si), "unknown memory order \"%s\" (relaxed, acquire, release, acq_rel)", s);
            return false;
        }
        *sem = k;
    }
    if (barg_given(a, ci)) {
        if (!want_string(S, a, ci, "scope", &s))
            return false;
        int k = -1;
        for (int i = 0; i < 3; i++)
            if (strcmp(s, scopes[i]) == 0)
                k = i;
        if (k < 0) {
            sema_error(S, barg_loc(a, ci), "unknown scope \"%s\" (gpu, cta, sys)", s);
            return false;
        }
        *scope = k;
    }
    return true;
}

/* atomic_add(ptr, v, mask, sem, scope) and friends; atomic_cas(ptr, cmp, v, mask, sem, scope). */
static SVal b_atomic(Sema *S, BArgs *a)
{
    bool cas = a->code < 0;
    int nval = cas ? 2 : 1, mi = 1 + nval;
    if (!want_ptr(S, a, 0))
        return sv_err();
    for (int i = 1; i <= nval; i++)
        if (!barg_value(S, a, i, "the value"))
            return sv_err();
    if (!want_mask(S, a, mi))
        return sv_err();
    int64_t sem, scope;
    if (!atomic_sem_scope(S, a, mi + 1, mi + 2, &sem, &scope))
        return sv_err();
    int idx[] = {0, 1, 2, 3}, rank;
    int64_t shape[TIR_MAX_RANK];
    static const char *const roles_rmw[] = {"pointer", "value", "mask"}, *const roles_cas[] = {"pointer", "compared value", "value", "mask"};
    if (!common_shape(S, a, idx, mi + 1, &rank, shape, cas ? roles_cas : roles_rmw))
        return sv_err();
    const Type *elem = ty_elem(sv_type(S, &a->v[0]))->pointee;
    OpKind kind = cas ? KIND_XCHG : (OpKind)a->code;
    bool is_float = sk_is_float(elem->sk);
    /* What the hardware has: 32- and 64-bit integers for every kind; floats for add, max, min and
     * xchg; 16-bit floats for add only; nothing on bool or 8/16-bit integers. */
    if (elem->sk == SK_BOOL)
        return sema_error(S, a->loc, "%s does not apply to bool (through %s)", a->name, sv_describe(S, &a->v[0]));
    if (cas && (is_float || sk_bits(elem->sk) < 32))
        return sema_error(S, a->loc, "atomic_cas needs 32- or 64-bit integers, not %s (through %s)", sk_name(elem->sk),
                          sv_describe(S, &a->v[0]));
    if (is_float && (kind == KIND_AND || kind == KIND_OR || kind == KIND_XOR))
        return sema_error(S, a->loc, "%s needs integers, not %s (through %s)", a->name, sk_name(elem->sk),
                          sv_describe(S, &a->v[0]));
    if (sk_bits(elem->sk) < 32 && !(is_float && kind == KIND_ADD))
        return sema_error(S, a->loc, "%s needs 32- or 64-bit elements, not %s (through %s)%s", a->name,
                          sk_name(elem->sk), sv_describe(S, &a->v[0]),
                          is_float ? "; 16-bit floats have only atomic_add" : "");
    Value *ops[4];
    ops[0] = sema_materialize(S, sv_broadcast(S, a->v[0], rank, shape, a->loc), a->loc);
    for (int i = 1; i <= nval; i++) {
        SVal v = sema_convert_operand(S, a->v[i], elem, barg_loc(a, i));
        if (v.kind == SV_ERR)
            return v;
        ops[i] = sema_materialize(S, sv_broadcast(S, v, rank, shape, a->loc), a->loc);
    }
    int nops = 1 + nval;
    if (barg_given(a, mi))
        ops[nops++] = sema_materialize(S, sv_broadcast(S, a->v[mi], rank, shape, a->loc), a->loc);
    sema_set_loc(S, a->loc);
    const Type *rt = sema_tile_type(S, elem, rank, shape);
    Op *op = b_op(&S->b, cas ? OP_ATOMIC_CAS : OP_ATOMIC_RMW, &rt, 1, ops, nops);
    if (!cas)
        op->at.kind = kind;
    op->at.sem = sem;
    op->at.scope = scope;
    return sv_dyn(op_result(op, 0));
}

/* ---- matrix product ---- */

static SVal b_dot(Sema *S, BArgs *a)
{
    if (!barg_value(S, a, 0, "the first operand") || !barg_value(S, a, 1, "the second operand"))
        return sv_err();
    if (barg_given(a, 2) && a->v[2].kind != SV_NONE && !barg_value(S, a, 2, "the accumulator"))
        return sv_err();
    const Type *ta = sv_type(S, &a->v[0]), *tb = sv_type(S, &a->v[1]);
    if (ta->kind != TY_TILE || tb->kind != TY_TILE || ta->rank != 2 || tb->rank != 2)
        return sema_error(S, a->loc, "dot needs two 2-D tiles, got %s and %s", sv_describe(S, &a->v[0]),
                          sv_describe(S, &a->v[1]));
    int64_t M = ta->shape[0], K = ta->shape[1], N = tb->shape[1];
    if (tb->shape[0] != K)
        return sema_error(S, a->loc, "dot: the inner dimensions differ (%lld and %lld): %s and %s", (long long)K,
                          (long long)tb->shape[0], sv_describe(S, &a->v[0]), sv_describe(S, &a->v[1]));
    if (M < 16 || N < 16 || K < 16)
        return sema_error(S, a->loc, "dot needs M, N and K of at least 16, got %s and %s", sv_describe(S, &a->v[0]),
                          sv_describe(S, &a->v[1]));
    ScalarKind ea = ta->elem->kind == TY_SCALAR ? ta->elem->sk : SK_COUNT;
    ScalarKind eb = tb->elem->kind == TY_SCALAR ? tb->elem->sk : SK_COUNT;
    if (ea != eb)
        return sema_error(S, a->loc, "dot operands must have the same element type, got %s and %s",
                          sv_describe(S, &a->v[0]), sv_describe(S, &a->v[1]));
    ScalarKind acc_sk;
    switch (ea) {
    case SK_F16:
    case SK_BF16:
    case SK_F32:
        acc_sk = SK_F32;
        break;
    case SK_F64:
        acc_sk = SK_F64;
        break;
    case SK_I8:
        acc_sk = SK_I32;
        break;
    default:
        return sema_error(S, a->loc, "dot supports f16, bf16, f32, f64 and i8 operands, not %s", sk_name(ea));
    }
    int64_t kind = KIND_IEEE;
    if (barg_given(a, 3)) {
        const char *p;
        if (!want_string(S, a, 3, "the precision", &p))
            return sv_err();
        if (strcmp(p, "tf32") == 0)
            kind = KIND_TF32;
        else if (strcmp(p, "ieee") != 0)
            return sema_error(S, barg_loc(a, 3), "unknown precision \"%s\" (ieee or tf32)", p);
        if (kind == KIND_TF32 && ea != SK_F32)
            return sema_error(S, barg_loc(a, 3), "precision \"tf32\" applies to f32 operands, not %s", sk_name(ea));
    }
    int64_t shape[2] = {M, N};
    const Type *acc_t = sema_tile_type(S, ty_scalar(S->types, acc_sk), 2, shape);
    Value *acc;
    if (barg_given(a, 2) && a->v[2].kind != SV_NONE) {
        const Type *tc = sv_type(S, &a->v[2]);
        if (tc != acc_t)
            return sema_error(S, barg_loc(a, 2), "the accumulator of dot must be %s, not %s",
                              ty_str(S->arena, S->types, acc_t), sv_describe(S, &a->v[2]));
        acc = sema_materialize(S, a->v[2], a->loc);
    } else {
        sema_set_loc(S, a->loc);
        acc = acc_sk == SK_I32 ? b_const_int(&S->b, acc_t, 0) : b_const_float(&S->b, acc_t, 0.0);
    }
    Value *x = sema_materialize(S, a->v[0], a->loc), *y = sema_materialize(S, a->v[1], a->loc);
    sema_set_loc(S, a->loc);
    Value *r = b_op3(&S->b, OP_DOT, acc_t, x, y, acc);
    r->def->at.kind = kind;
    return sv_dyn(r);
}

/* ---- reductions and scans ---- */

/* The accumulation type of sum and cumsum: 16-bit floats sum in f32, small integers in i32. */
/* a compile-time bool argument i of a (false when not given) into *out */
bool barg_flag(Sema *S, BArgs *a, int i, const char *what, bool *out)
{
    *out = false;
    if (!barg_given(a, i))
        return true;
    if (a->v[i].kind != SV_CONST || a->v[i].type->sk != SK_BOOL) {
        sema_error(S, barg_loc(a, i), "%s of %s must be true or false at compile time, not %s", what, a->name,
                   a->v[i].kind == SV_DYN ? arena_printf(S->arena, "a run-time %s", sv_describe(S, &a->v[i]))
                                          : sv_describe(S, &a->v[i]));
        return false;
    }
    *out = a->v[i].c.i != 0;
    return true;
}

/* ---- shapes ---- */

static bool want_tile(Sema *S, BArgs *a, int i)
{
    if (!barg_value(S, a, i, "the operand"))
        return false;
    if (sv_type(S, &a->v[i])->kind != TY_TILE) {
        sema_error(S, barg_loc(a, i), "%s needs a tile, not %s", a->name, sv_describe(S, &a->v[i]));
        return false;
    }
    return true;
}

static SVal b_reshape(Sema *S, BArgs *a)
{
    int rank;
    int64_t shape[TIR_MAX_RANK];
    if (!barg_value(S, a, 0, "the operand") || !want_shape(S, a, 1, &rank, shape))
        return sv_err();
    const Type *t = sv_type(S, &a->v[0]);
    const Type *rt = sema_tile_type(S, ty_elem(t), rank, shape);
    if (ty_numel(rt) != ty_numel(t))
        return sema_error(S, a->loc, "cannot reshape %s to %s: the element counts differ", sv_describe(S, &a->v[0]),
                          ty_str(S->arena, S->types, rt));
    Value *v = sema_materialize(S, a->v[0], a->loc);
    sema_set_loc(S, a->loc);
    if (t->kind != TY_TILE)
        return sv_dyn(b_op1(&S->b, OP_SPLAT, rt, v));
    if (t == rt)
        return sv_dyn(v);
    return sv_dyn(b_op1(&S->b, OP_RESHAPE, rt, v));
}

static SVal do_permute(Sema *S, BArgs *a, const int64_t *dims, int n)
{
    const Type *t = sv_type(S, &a->v[0]);
    if (n != t->rank)
        return sema_error(S, barg_loc(a, 1), "%s of %s needs %d dimensions in its order, got %d", a->name,
                          sv_describe(S, &a->v[0]), t->rank, n);
    int64_t shape[TIR_MAX_RANK];
    bool seen[TIR_MAX_RANK] = {0};
    for (int i = 0; i < n; i++) {
        if (dims[i] < 0 || dims[i] >= n || seen[dims[i]]) {
            const char *l = "[";
            for (int k = 0; k < n; k++)
                l = arena_printf(S->arena, "%s%s%lld", l, k ? ", " : "", (long long)dims[k]);
            return sema_error(S, barg_loc(a, 1), "%s: %s] is not a permutation of the %d dimensions of %s", a->name, l, n,
                              sv_describe(S, &a->v[0]));
        }
        seen[dims[i]] = true;
        shape[i] = t->shape[dims[i]];
    }
    sema_set_loc(S, a->loc);
    Value *v = b_op1(&S->b, OP_PERMUTE, sema_tile_type(S, t->elem, n, shape), a->v[0].v);
    v->def->at.ndims = n;
    memcpy(v->def->at.dims, dims, sizeof(int64_t) * (size_t)n);
    return sv_dyn(v);
}

static SVal b_trans(Sema *S, BArgs *a)
{
    if (!want_tile(S, a, 0))
        return sv_err();
    if (sv_type(S, &a->v[0])->rank != 2)
        return sema_error(S, a->loc, "trans needs a 2-D tile, not %s (use permute)", sv_describe(S, &a->v[0]));
    int64_t dims[2] = {1, 0};
    return do_permute(S, a, dims, 2);
}

static SVal b_permute(Sema *S, BArgs *a)
{
    if (!want_tile(S, a, 0))
        return sv_err();
    SVal l = a->v[1];
    if (l.kind != SV_LIST)
        return sema_error(S, barg_loc(a, 1), "the order of permute must be a list such as [1, 0]");
    int64_t dims[TIR_MAX_RANK];
    if (l.n > TIR_MAX_RANK)
        return sema_error(S, barg_loc(a, 1), "too many dimensions in the order of permute");
    for (int i = 0; i < l.n; i++)
        if (!sv_const_int(S, l.items[i], barg_loc(a, 1), "a dimension of permute", &dims[i]))
            return sv_err();
    return do_permute(S, a, dims, l.n);
}

static SVal b_broadcast_to(Sema *S, BArgs *a)
{
    int rank;
    int64_t shape[TIR_MAX_RANK], got[TIR_MAX_RANK];
    if (!barg_value(S, a, 0, "the operand") || !want_shape(S, a, 1, &rank, shape))
        return sv_err();
    const Type *t = sv_type(S, &a->v[0]);
    int r;
    if (!sema_broadcast_shape(t, sema_tile_type(S, ty_elem(t), rank, shape), &r, got) || r != rank ||
        memcmp(got, shape, sizeof(int64_t) * (size_t)rank) != 0)
        return sema_error(S, a->loc, "cannot broadcast %s to %s", sv_describe(S, &a->v[0]),
                          ty_str(S->arena, S->types, sema_tile_type(S, ty_elem(t), rank, shape)));
    return sv_broadcast(S, a->v[0], rank, shape, a->loc);
}

static SVal b_expand_dims(Sema *S, BArgs *a)
{
    if (!barg_value(S, a, 0, "the operand"))
        return sv_err();
    const Type *t = sv_type(S, &a->v[0]);
    int rank = t->kind == TY_TILE ? t->rank : 0;
    int axis;
    if (!barg_axis(S, a, 1, rank + 1, arena_printf(S->arena, "the result of expanding %s", sv_describe(S, &a->v[0])),
                   &axis))
        return sv_err();
    if (rank + 1 > TIR_MAX_RANK)
        return sema_error(S, a->loc, "tiles have at most %d dimensions", TIR_MAX_RANK);
    int64_t shape[TIR_MAX_RANK];
    for (int i = 0, k = 0; i <= rank; i++)
        shape[i] = i == axis ? 1 : t->shape[k++];
    Value *v = sema_materialize(S, a->v[0], a->loc);
    sema_set_loc(S, a->loc);
    if (rank == 0)
        return sv_dyn(b_op1(&S->b, OP_SPLAT, sema_tile_type(S, ty_elem(t), 1, shape), v));
    Value *r = b_op1(&S->b, OP_EXPAND_DIMS, sema_tile_type(S, t->elem, rank + 1, shape), v);
    r->def->at.axis = axis;
    return sv_dyn(r);
}

/* ---- elementwise math ---- */

static double fold_math(OpCode op, double x)
{
    switch (op) {
    case OP_EXP: return exp(x);
    case OP_EXP2: return exp2(x);
    case OP_LOG: return log(x);
    case OP_LOG2: return log2(x);
    case OP_SQRT: return sqrt(x);
    case OP_RSQRT: return 1.0 / sqrt(x);
    case OP_ABS: return fabs(x);
    case OP_FLOOR: return floor(x);
    case OP_CEIL: return ceil(x);
    case OP_SIN: return sin(x);
    case OP_COS: return cos(x);
    default: return x;
    }
}

static SVal b_math1(Sema *S, BArgs *a)
{
    if (!barg_value(S, a, 0, "the operand"))
        return sv_err();
    SVal x = a->v[0];
    OpCode op = (OpCode)a->code;
    const Type *e = ty_elem(sv_type(S, &x));
    if (x.kind == SV_CONST && x.weak && !sk_is_float(e->sk)) {
        if (op == OP_ABS) /* abs(-3) is the integer literal 3 */
            return sv_weak_int(S, e->sk == SK_U64 || x.c.i >= 0 ? x.c.i : (int64_t)(0 - (uint64_t)x.c.i));
        x = sv_weak_float(S, e->sk == SK_U64 ? (double)(uint64_t)x.c.i : (double)x.c.i), e = x.type;
    }
    bool int_ok = op == OP_ABS && e->kind == TY_SCALAR && sk_is_int(e->sk);
    if (e->kind != TY_SCALAR || (!sk_is_float(e->sk) && !int_ok))
        return sema_error(S, barg_loc(a, 0), "%s needs floats, not %s (cast it)", a->name, sv_describe(S, &x));
    if (x.kind == SV_CONST) {
        if (int_ok) {
            int64_t v = x.c.i;
            return sv_int(x.type, sk_is_signed(e->sk) && v < 0 ? (int64_t)(0 - (uint64_t)v) : v);
        }
        double r = fold_math(op, x.c.f);
        return x.weak ? sv_weak_float(S, r) : sv_float(x.type, r);
    }
    sema_set_loc(S, a->loc);
    return sv_dyn(b_op1(&S->b, op, x.v->type, x.v));
}

/* Promotes and broadcasts a group of value arguments to one type and shape. */
static bool unify(Sema *S, BArgs *a, const int *idx, int n, SVal *out, bool float_only)
{
    SVal acc = a->v[idx[0]];
    for (int k = 1; k < n; k++) {
        const Type *e = sema_promote_elem(S, &acc, &a->v[idx[k]]);
        if (!e) {
            sema_error(S, a->loc, "%s: cannot combine %s and %s", a->name, sv_describe(S, &acc),
                       sv_describe(S, &a->v[idx[k]]));
            return false;
        }
        SVal probe = {0};
        probe.kind = SV_CONST;
        probe.type = e;
        probe.weak = acc.kind == SV_CONST && acc.weak && a->v[idx[k]].kind == SV_CONST && a->v[idx[k]].weak;
        acc = probe;
    }
    const Type *elem = acc.weak ? (sk_is_float(acc.type->sk) ? ty_scalar(S->types, SK_F32) : i32_t(S)) : acc.type;
    if (float_only && !sk_is_float(elem->sk)) {
        sema_error(S, a->loc, "%s needs floats, not %s (cast it)", a->name, sk_name(elem->sk));
        return false;
    }
    if (elem->kind != TY_SCALAR || elem->sk == SK_BOOL) {
        sema_error(S, a->loc, "%s needs numbers, not %s", a->name, ty_str(S->arena, S->types, elem));
        return false;
    }
    int rank = 0;
    int64_t shape[TIR_MAX_RANK];
    const Type *cur = elem;
    for (int k = 0; k < n; k++) {
        if (!sema_broadcast_shape(cur, sv_type(S, &a->v[idx[k]]), &rank, shape)) {
            sema_error(S, a->loc, "%s: cannot broadcast %s with %s", a->name, ty_str(S->arena, S->types, cur),
                       sv_describe(S, &a->v[idx[k]]));
            return false;
        }
        cur = sema_tile_type(S, elem, rank, shape);
    }
    for (int k = 0; k < n; k++) {
        SVal v = sema_convert_operand(S, a->v[idx[k]], elem, barg_loc(a, idx[k]));
        if (v.kind == SV_ERR)
            return false;
        out[k] = sv_broadcast(S, v, rank, shape, a->loc);
    }
    return true;
}

/* maximum/minimum(a, b, propagate_nan = true): on floats, propagate_nan = false gives the other
 * operand for a NaN one (IEEE 754-2019 maximumNumber/minimumNumber, Triton's default), which is one
 * instruction on the GPUs where propagating costs a test and a select; on integers it changes nothing. */
static SVal b_minmax(Sema *S, BArgs *a)
{
    if (!barg_value(S, a, 0, "the first operand") || !barg_value(S, a, 1, "the second operand"))
        return sv_err();
    bool ignore_nan = false;
    if (barg_given(a, 2)) {
        bool propagate;
        if (!barg_flag(S, a, 2, "propagate_nan", &propagate))
            return sv_err();
        ignore_nan = !propagate;
    }
    int idx[2] = {0, 1};
    SVal v[2];
    if (!unify(S, a, idx, 2, v, false))
        return sv_err();
    const Type *t0 = sv_type(S, &v[0]);
    bool fl = t0 && sk_is_float(ty_elem(t0)->sk);
    if (v[0].kind == SV_CONST && v[1].kind == SV_CONST) {
        SVal lt = sema_eval_binary(S, TOK_LT, v[0], v[1], a->loc);
        if (lt.kind == SV_ERR)
            return lt;
        bool pick0 = a->code == OP_MIN ? lt.c.i : !lt.c.i;
        if (fl && (isnan(v[0].c.f) || isnan(v[1].c.f)))
            return isnan(v[0].c.f) != ignore_nan ? v[0] : v[1];
        if (fl && v[0].c.f == v[1].c.f) /* zeros of opposite signs: -0 below +0 */
            pick0 = (signbit(v[0].c.f) != 0) == (a->code == OP_MIN);
        return pick0 ? v[0] : v[1];
    }
    Value *x = sema_materialize(S, v[0], a->loc), *y = sema_materialize(S, v[1], a->loc);
    sema_set_loc(S, a->loc);
    OpCode code = (OpCode)a->code;
    if (fl && ignore_nan)
        code = code == OP_MIN ? OP_MINNUM : OP_MAXNUM;
    return sv_dyn(b_op2(&S->b, code, x->type, x, y));
}

static SVal b_fma(Sema *S, BArgs *a)
{
    for (int i = 0; i < 3; i++)
        if (!barg_value(S, a, i, "an operand"))
            return sv_err();
    int idx[3] = {0, 1, 2};
    SVal v[3];
    if (!unify(S, a, idx, 3, v, true))
        return sv_err();
    Value *x = sema_materialize(S, v[0], a->loc), *y = sema_materialize(S, v[1], a->loc), *z = sema_materialize(S, v[2], a->loc);
    sema_set_loc(S, a->loc);
    return sv_dyn(b_op3(&S->b, OP_FMA, x->type, x, y, z));
}

static SVal b_where(Sema *S, BArgs *a)
{
    for (int i = 0; i < 3; i++)
        if (!barg_value(S, a, i, "an operand"))
            return sv_err();
    if (!ty_is_bool(sv_type(S, &a->v[0])))
        return sema_error(S, barg_loc(a, 0), "the condition of where must be bool, not %s", sv_describe(S, &a->v[0]));
    SVal c = a->v[0];
    SVal pair[2];
    const Type *e;
    bool ptrs = ty_is_ptr(sv_type(S, &a->v[1])) || ty_is_ptr(sv_type(S, &a->v[2]));
    if (ptrs) {
        e = ty_elem(sv_type(S, &a->v[1]));
        if (e != ty_elem(sv_type(S, &a->v[2])))
            return sema_error(S, a->loc, "where: cannot choose between %s and %s", sv_describe(S, &a->v[1]),
                              sv_describe(S, &a->v[2]));
        pair[0] = a->v[1];
        pair[1] = a->v[2];
    } else {
        e = sema_promote_elem(S, &a->v[1], &a->v[2]);
        if (!e)
            return sema_error(S, a->loc, "where: cannot choose between %s and %s", sv_describe(S, &a->v[1]),
                              sv_describe(S, &a->v[2]));
        if (a->v[1].kind == SV_CONST && a->v[1].weak && a->v[2].kind == SV_CONST && a->v[2].weak)
            e = sk_is_float(e->sk) ? ty_scalar(S->types, SK_F32) : i32_t(S);
        pair[0] = sema_convert_operand(S, a->v[1], e, barg_loc(a, 1));
        pair[1] = sema_convert_operand(S, a->v[2], e, barg_loc(a, 2));
        if (pair[0].kind == SV_ERR || pair[1].kind == SV_ERR)
            return sv_err();
    }
    /* a constant choice between constants folds, after the conversion: where(false, 1 as u16, 11) is
     * the u16 11, as where(true, ...) is the u16 1 */
    if (c.kind == SV_CONST && pair[0].kind == SV_CONST && pair[1].kind == SV_CONST && !sv_is_tile(&pair[0]) &&
        !sv_is_tile(&pair[1]))
        return c.c.i ? pair[0] : pair[1];
    int rank = 0;
    int64_t shape[TIR_MAX_RANK];
    const Type *cur = sv_type(S, &c);
    for (int k = 0; k < 2; k++) {
        if (!sema_broadcast_shape(cur, sv_type(S, &pair[k]), &rank, shape))
            return sema_error(S, a->loc, "where: cannot broadcast %s, %s and %s together", sv_describe(S, &c),
                              sv_describe(S, &a->v[1]), sv_describe(S, &a->v[2]));
        cur = sema_tile_type(S, bool_t(S), rank, shape);
    }
    Value *vc = sema_materialize(S, sv_broadcast(S, c, rank, shape, a->loc), a->loc);
    Value *x = sema_materialize(S, sv_broadcast(S, pair[0], rank, shape, a->loc), a->loc);
    Value *y = sema_materialize(S, sv_broadcast(S, pair[1], rank, shape, a->loc), a->loc);
    sema_set_loc(S, a->loc);
    return sv_dyn(b_op3(&S->b, OP_SELECT, x->type, vc, x, y));
}

/* cdiv(a, b) = (a + b - 1) / b, on integers. */
static SVal b_cdiv(Sema *S, BArgs *a)
{
    if (!barg_value(S, a, 0, "the dividend") || !barg_value(S, a, 1, "the divisor"))
        return sv_err();
    for (int i = 0; i < 2; i++)
        if (!ty_is_int(sv_type(S, &a->v[i])))
            return sema_error(S, barg_loc(a, i), "cdiv needs integers, not %s", sv_describe(S, &a->v[i]));
    SVal bm1 = sema_eval_binary(S, TOK_MINUS, a->v[1], sv_weak_int(S, 1), a->loc); /* folds for a constant b */
    SVal sum = sema_eval_binary(S, TOK_PLUS, a->v[0], bm1, a->loc);
    return sema_eval_binary(S, TOK_SLASH, sum, a->v[1], a->loc);
}

/* ---- hints, checks, debugging ---- */

static SVal b_hint(Sema *S, BArgs *a)
{
    int64_t n;
    if (!barg_value(S, a, 0, "the operand") || !barg_int_const(S, a, 1, "the hint value", &n))
        return sv_err();
    if (n <= 0)
        return sema_error(S, barg_loc(a, 1), "the value of %s must be positive, not %lld", a->name, (long long)n);
    if (!ty_is_int(sv_type(S, &a->v[0])) && !ty_is_ptr(sv_type(S, &a->v[0])))
        return sema_error(S, barg_loc(a, 0), "%s applies to integers or pointers, not %s", a->name,
                          sv_describe(S, &a->v[0]));
    if (a->v[0].kind == SV_CONST)
        return a->v[0];
    sema_set_loc(S, a->loc);
    Value *v = b_op1(&S->b, OP_HINT, a->v[0].v->type, a->v[0].v);
    v->def->at.kind = a->code;
    v->def->at.n = n;
    return sv_dyn(v);
}

static bool want_bool(Sema *S, BArgs *a, int i, bool scalar_only)
{
    if (!barg_value(S, a, i, "the condition"))
        return false;
    const Type *t = sv_type(S, &a->v[i]);
    if (!ty_is_bool(t) || (scalar_only && t->kind == TY_TILE)) {
        sema_error(S, barg_loc(a, i), "the condition of %s must be a %sbool, not %s", a->name,
                   scalar_only ? "scalar " : "", sv_describe(S, &a->v[i]));
        return false;
    }
    return true;
}

static SVal b_assume(Sema *S, BArgs *a)
{
    if (!want_bool(S, a, 0, true))
        return sv_err();
    if (a->v[0].kind == SV_CONST) {
        if (!a->v[0].c.i)
            return sema_error(S, a->loc, "assume(false): the condition is false at compile time");
        return sv_void();
    }
    sema_set_loc(S, a->loc);
    b_op(&S->b, OP_ASSUME, NULL, 0, &a->v[0].v, 1);
    return sv_void();
}

static SVal b_static_assert(Sema *S, BArgs *a)
{
    const char *msg = "";
    if (barg_given(a, 1) && !want_string(S, a, 1, "the message", &msg))
        return sv_err();
    SVal c = a->v[0];
    if (c.kind == SV_ERR)
        return c;
    if (c.kind != SV_CONST || c.type->sk != SK_BOOL)
        return sema_error(S, barg_loc(a, 0), "static_assert needs a compile-time bool, not %s",
                          c.kind == SV_DYN ? arena_printf(S->arena, "a run-time %s", sv_describe(S, &c))
                                           : sv_describe(S, &c));
    if (!c.c.i)
        return sema_error(S, a->loc, "static assertion failed%s%s", *msg ? ": " : "", msg);
    return sv_void();
}

static SVal b_device_assert(Sema *S, BArgs *a)
{
    const char *msg = "";
    if (!want_bool(S, a, 0, false) || (barg_given(a, 1) && !want_string(S, a, 1, "the message", &msg)))
        return sv_err();
    if (a->v[0].kind == SV_CONST && a->v[0].c.i)
        return sv_void();
    Value *c = sema_materialize(S, a->v[0], a->loc);
    sema_set_loc(S, a->loc);
    Op *op = b_op(&S->b, OP_ASSERT, NULL, 0, &c, 1);
    op->at.msg = diag_escape(S->arena, msg, strlen(msg)); /* shown on a terminal: no ESC or BEL */
    return sv_void();
}

static SVal b_print(Sema *S, BArgs *a)
{
    const char *msg;
    if (!want_string(S, a, 0, "the message", &msg))
        return sv_err();
    Value *v = NULL;
    if (barg_given(a, 1)) {
        if (!barg_value(S, a, 1, "the printed value"))
            return sv_err();
        v = sema_materialize(S, a->v[1], a->loc);
    }
    sema_set_loc(S, a->loc);
    Op *op = b_op(&S->b, OP_PRINT, NULL, 0, &v, v ? 1 : 0);
    op->at.msg = diag_escape(S->arena, msg, strlen(msg)); /* shown on a terminal: no ESC or BEL */
    return sv_void();
}

/* barrier(): every wave of the workgroup arrives, and the memory operations before it are visible to
 * every wave after it (Triton's tl.debug_barrier()). A statement: no value. Conditions are uniform
 * over a program instance, so each wave reaches the same barriers. */
static SVal b_barrier(Sema *S, BArgs *a)
{
    if (S->b.func && S->b.func->kind == FUNC_GRID) /* a fn called from @grid */
        return sema_error(S, a->loc, "barrier() in a @grid expression: the grid is computed once, on the host");
    sema_set_loc(S, a->loc);
    b_op(&S->b, OP_BARRIER, NULL, 0, NULL, 0);
    return sv_void();
}

static SVal b_bitcast(Sema *S, BArgs *a)
{
    if (!barg_value(S, a, 0, "the operand"))
        return sv_err();
    if (a->v[1].kind != SV_TYPE)
        return sema_error(S, barg_loc(a, 1), "the second argument of bitcast must be a type, not %s",
                          sv_describe(S, &a->v[1]));
    SVal x = a->v[0];
    if (x.kind == SV_CONST && x.weak)
        x = sv_harden(S, x);
    const Type *from = ty_elem(sv_type(S, &x)), *to = a->v[1].type;
    if (to->kind == TY_TILE)
        return sema_error(S, barg_loc(a, 1), "bitcast converts elements: name a scalar type, not %s",
                          ty_str(S->arena, S->types, to));
    if ((from->kind == TY_SCALAR && from->sk == SK_BOOL) || (to->kind == TY_SCALAR && to->sk == SK_BOOL))
        return sema_error(S, a->loc, "bitcast does not apply to bool (%s to %s): use 'as'", sv_describe(S, &x),
                          ty_str(S->arena, S->types, to));
    int fb = from->kind == TY_PTR ? 64 : sk_bits(from->sk), tb = to->kind == TY_PTR ? 64 : sk_bits(to->sk);
    if (fb != tb)
        return sema_error(S, a->loc, "bitcast needs types of the same width: %s has %d-bit elements, %s has %d bits",
                          sv_describe(S, &x), fb, ty_str(S->arena, S->types, to), tb);
    Value *v = sema_materialize(S, x, a->loc);
    sema_set_loc(S, a->loc);
    return sv_dyn(b_op1(&S->b, OP_BITCAST, ty_with_elem(S->types, v->type, to), v));
}

/* num_xcds(): the chiplets with an L2 cache of their own that the target deals workgroups to round
 * robin (std/pid's xcd_remap): 8 on MI300 (gfx942, and the emulator and interpreter, which stand for
 * it) and MI350 (gfx950); 1 where programs share one L2 (gfx90a: each MI200 die is a device of its
 * own; NVIDIA sm_90): the target's num_xcds. A compile-time constant. */
static SVal b_num_xcds(Sema *S, BArgs *a)
{
    (void)a;
    const Target *t = target_find(S->opts ? S->opts->target : NULL);
    return sv_int(i32_t(S), (t ? t : target_default())->num_xcds); /* interp stands for the default */
}

/* ---- the table ---- */

static const Builtin builtins[] = {
    {"program_id", b_program_id, 1, {"axis"}, OP_PROGRAM_ID},
    {"num_programs", b_program_id, 1, {"axis"}, OP_NUM_PROGRAMS},
    {"arange", b_arange, 1, {"start", "end"}, 0},
    {"zeros", b_zeros, 2, {"shape", "dtype"}, 0},
    {"full", b_full, 3, {"shape", "value", "dtype"}, 0},
    {"load", b_load, 1, {"ptr", "mask", "other"}, 0},
    {"store", b_store, 2, {"ptr", "value", "mask"}, 0},
    {"atomic_add", b_atomic, 2, {"ptr", "value", "mask", "sem", "scope"}, KIND_ADD},
    {"atomic_max", b_atomic, 2, {"ptr", "value", "mask", "sem", "scope"}, KIND_MAX},
    {"atomic_min", b_atomic, 2, {"ptr", "value", "mask", "sem", "scope"}, KIND_MIN},
    {"atomic_and", b_atomic, 2, {"ptr", "value", "mask", "sem", "scope"}, KIND_AND},
    {"atomic_or", b_atomic, 2, {"ptr", "value", "mask", "sem", "scope"}, KIND_OR},
    {"atomic_xor", b_atomic, 2, {"ptr", "value", "mask", "sem", "scope"}, KIND_XOR},
    {"atomic_xchg", b_atomic, 2, {"ptr", "value", "mask", "sem", "scope"}, KIND_XCHG},
    {"atomic_cas", b_atomic, 3, {"ptr", "cmp", "value", "mask", "sem", "scope"}, -1},
    {"dot", b_dot, 2, {"a", "b", "acc", "precision"}, 0},
    {"sum", b_reduce, 1, {"x", "axis", "keepdims"}, KIND_SUM},
    {"max", b_reduce, 1, {"x", "axis", "keepdims", "propagate_nan"}, KIND_MAX},
    {"min", b_reduce, 1, {"x", "axis", "keepdims", "propagate_nan"}, KIND_MIN},
    {"argmax", b_reduce, 1, {"x", "axis", "keepdims"}, KIND_ARGMAX},
    {"argmin", b_reduce, 1, {"x", "axis", "keepdims"}, KIND_ARGMIN},
    {"cumsum", b_scan, 1, {"x", "axis", "reverse", "exclusive"}, KIND_SUM},
    {"cumprod", b_scan, 1, {"x", "axis", "reverse", "exclusive"}, KIND_PROD},
    {"cummax", b_scan, 1, {"x", "axis", "reverse", "exclusive"}, KIND_MAX},
    {"cummin", b_scan, 1, {"x", "axis", "reverse", "exclusive"}, KIND_MIN},
    {"reshape", b_reshape, 2, {"x", "shape"}, 0},
    {"trans", b_trans, 1, {"x"}, 0},
    {"permute", b_permute, 2, {"x", "dims"}, 0},
    {"broadcast_to", b_broadcast_to, 2, {"x", "shape"}, 0},
    {"expand_dims", b_expand_dims, 2, {"x", "axis"}, 0},
    {"exp", b_math1, 1, {"x"}, OP_EXP},
    {"exp2", b_math1, 1, {"x"}, OP_EXP2},
    {"log", b_math1, 1, {"x"}, OP_LOG},
    {"log2", b_math1, 1, {"x"}, OP_LOG2},
    {"sqrt", b_math1, 1, {"x"}, OP_SQRT},
    {"rsqrt", b_math1, 1, {"x"}, OP_RSQRT},
    {"abs", b_math1, 1, {"x"}, OP_ABS},
    {"floor", b_math1, 1, {"x"}, OP_FLOOR},
    {"ceil", b_math1, 1, {"x"}, OP_CEIL},
    {"sin", b_math1, 1, {"x"}, OP_SIN},
    {"cos", b_math1, 1, {"x"}, OP_COS},
    {"fma", b_fma, 3, {"a", "b", "c"}, 0},
    {"maximum", b_minmax, 2, {"a", "b", "propagate_nan"}, OP_MAX},
    {"minimum", b_minmax, 2, {"a", "b", "propagate_nan"}, OP_MIN},
    {"where", b_where, 3, {"cond", "a", "b"}, 0},
    {"cdiv", b_cdiv, 2, {"a", "b"}, 0},
    {"multiple_of", b_hint, 2, {"x", "n"}, KIND_MULTIPLE_OF},
    {"max_contiguous", b_hint, 2, {"x", "n"}, KIND_MAX_CONTIGUOUS},
    {"assume", b_assume, 1, {"cond"}, 0},
    {"static_assert", b_static_assert, 1, {"cond", "msg"}, 0},
    {"device_assert", b_device_assert, 1, {"cond", "msg"}, 0},
    {"print", b_print, 1, {"msg", "x"}, 0},
    {"barrier", b_barrier, 0, {NULL}, 0},
    {"bitcast", b_bitcast, 2, {"x", "dtype"}, 0},
    {"num_xcds", b_num_xcds, 0, {NULL}, 0},
};

static const Builtin *find_builtin(const char *name)
{
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (strcmp(builtins[i].name, name) == 0)
            return &builtins[i];
    return NULL;
}

bool sema_is_builtin(const char *name) { return find_builtin(name) != NULL; }

bool sema_eval_builtin(Sema *S, const char *name, Node *call, SVal *out)
{
    const Builtin *bi = find_builtin(name);
    if (!bi)
        return false;
    BArgs a;
    memset(&a, 0, sizeof a);
    a.loc = call->loc;
    a.name = bi->name;
    a.code = bi->code;
    int nparams = 0;
    while (nparams < MAX_BARGS && bi->params[nparams])
        nparams++;
    int pos = 0;
    bool named_seen = false;
    for (int i = 0; i < call->list.n; i++) {
        Node *arg = call->list.items[i];
        int slot;
        if (arg->kind == AST_NAMED) {
            named_seen = true;
            slot = -1;
            for (int k = 0; k < nparams; k++)
                if (strcmp(bi->params[k], arg->name) == 0)
                    slot = k;
            if (slot < 0) {
                *out = sema_error(S, arg->loc, "%s has no parameter named '%s'", bi->name, arg->name);
                return true;
            }
            if (a.n[slot]) {
                *out = sema_error(S, arg->loc, "'%s' of %s is given twice", arg->name, bi->name);
                return true;
            }
            a.n[slot] = arg->a;
        } else {
            if (named_seen) {
                *out = sema_error(S, arg->loc, "a positional argument cannot follow a named one");
                return true;
            }
            if (pos >= nparams) {
                *out = nparams ? sema_error(S, arg->loc, "%s takes at most %d arguments, got %d", bi->name, nparams,
                                            call->list.n)
                               : sema_error(S, arg->loc, "%s takes no arguments, got %d", bi->name, call->list.n);
                return true;
            }
            slot = pos++;
            a.n[slot] = arg;
        }
    }
    for (int k = 0; k < bi->min_args; k++)
        if (!a.n[k]) {
            *out = sema_error(S, call->loc, "%s needs its '%s' argument", bi->name, bi->params[k]);
            return true;
        }
    for (int k = 0; k < nparams; k++) {
        a.v[k] = a.n[k] ? sema_eval_expr(S, a.n[k]) : sv_void();
        if (a.v[k].kind == SV_ERR) {
            *out = sv_err();
            return true;
        }
        if (a.n[k] && a.v[k].kind == SV_VOID) { /* else it would pass for an argument not given */
            *out = sema_error(S, a.n[k]->loc, "'%s' of %s must be a value, not %s", bi->params[k], bi->name,
                              sv_describe(S, &a.v[k]));
            return true;
        }
    }
    *out = bi->fn(S, &a);
    return true;
}
