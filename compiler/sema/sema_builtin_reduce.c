/* Builtin reductions and scans: sum, max, min, argmax, argmin over an axis or every element (keepdims;
 * max and min with propagate_nan), and cumsum, cumprod, cummax, cummin (reverse, exclusive). Each is
 * typed, shape-checked and lowered to a tile IR reduce, argreduce or scan; the table that names them
 * is sema_builtin.c's. */
#include "compiler/sema/sema_builtin.h"

static const Type *sum_type(Sema *S, const Type *elem)
{
    ScalarKind sk = elem->sk;
    if (sk == SK_F16 || sk == SK_BF16)
        return ty_scalar(S->types, SK_F32);
    if (sk == SK_BOOL || ((sk_is_int(sk)) && sk_bits(sk) < 32))
        return ty_scalar(S->types, sk_is_signed(sk) || sk == SK_BOOL ? SK_I32 : SK_U32);
    return elem;
}

static Value *reduce_axis(Sema *S, OpCode code, OpKind kind, Value *x, int axis, const Type *relem, Loc loc)
{
    const Type *t = x->type;
    int64_t shape[TIR_MAX_RANK];
    int r = 0;
    for (int i = 0; i < t->rank; i++)
        if (i != axis)
            shape[r++] = t->shape[i];
    sema_set_loc(S, loc);
    Value *v = b_op1(&S->b, code, sema_tile_type(S, relem, r, shape), x);
    v->def->at.kind = kind;
    v->def->at.axis = axis;
    return v;
}


/* sum/max/min/argmax/argmin(x, axis = None, keepdims = false); max and min also take propagate_nan
 * (true): false ignores NaN on floats as maximum(..., propagate_nan = false) does (the kinds maxnum
 * and minnum), and changes nothing on integers */
SVal b_reduce(Sema *S, BArgs *a)
{
    if (!barg_value(S, a, 0, "the operand"))
        return sv_err();
    SVal x = a->v[0];
    const Type *t = sv_type(S, &x);
    if (t->kind != TY_TILE)
        return sema_error(S, a->loc, "%s reduces a tile, not %s", a->name, sv_describe(S, &x));
    const Type *elem = t->elem;
    if (elem->kind != TY_SCALAR || (elem->sk == SK_BOOL && a->code != KIND_SUM))
        return sema_error(S, a->loc, "cannot %s %s", a->name, sv_describe(S, &x));
    bool keep = false;
    if (barg_given(a, 2)) {
        if (a->v[2].kind != SV_CONST || a->v[2].type->sk != SK_BOOL)
            return sema_error(S, barg_loc(a, 2), "keepdims of %s must be true or false at compile time, not %s", a->name,
                              a->v[2].kind == SV_DYN ? arena_printf(S->arena, "a run-time %s", sv_describe(S, &a->v[2]))
                                                     : sv_describe(S, &a->v[2]));
        keep = a->v[2].c.i != 0;
    }
    OpKind kind = (OpKind)a->code;
    if ((kind == KIND_MAX || kind == KIND_MIN) && barg_given(a, 3)) { /* the others have no fourth parameter */
        bool propagate;
        if (!barg_flag(S, a, 3, "propagate_nan", &propagate))
            return sv_err();
        if (!propagate && sk_is_float(elem->sk))
            kind = kind == KIND_MAX ? KIND_MAXNUM : KIND_MINNUM;
    }
    bool arg = a->code == KIND_ARGMAX || a->code == KIND_ARGMIN;
    OpCode code = arg ? OP_ARGREDUCE : OP_REDUCE;
    const Type *relem = arg ? ty_scalar(S->types, SK_I32) : a->code == KIND_SUM ? sum_type(S, elem) : elem;
    Value *v = x.v;
    if (relem != elem && !arg) {
        sema_set_loc(S, a->loc);
        v = b_op1(&S->b, OP_CAST, ty_with_elem(S->types, t, relem), v);
    }
    int rank = t->rank;
    if (barg_given(a, 1) && a->v[1].kind != SV_NONE) {
        int axis;
        if (!barg_axis(S, a, 1, rank, sv_describe(S, &x), &axis))
            return sv_err();
        Value *r = reduce_axis(S, code, kind, v, axis, relem, a->loc);
        if (keep) {
            int64_t shape[TIR_MAX_RANK];
            for (int i = 0; i < rank; i++)
                shape[i] = i == axis ? 1 : t->shape[i];
            if (r->type->kind != TY_TILE)
                r = b_op1(&S->b, OP_SPLAT, sema_tile_type(S, relem, rank, shape), r);
            else {
                r = b_op1(&S->b, OP_EXPAND_DIMS, sema_tile_type(S, relem, rank, shape), r);
                r->def->at.axis = axis;
            }
        }
        return sv_dyn(r);
    }
    /* No axis: over every element. argmax/argmin give the index into the row-major flattening. */
    if (rank > 1) {
        int64_t n = ty_numel(t);
        sema_set_loc(S, a->loc);
        v = b_op1(&S->b, OP_RESHAPE, sema_tile_type(S, ty_elem(v->type), 1, &n), v);
    }
    Value *r = reduce_axis(S, code, kind, v, 0, relem, a->loc);
    if (keep) {
        int64_t ones[TIR_MAX_RANK] = {1, 1, 1, 1};
        r = b_op1(&S->b, OP_SPLAT, sema_tile_type(S, relem, rank, ones), r);
    }
    return sv_dyn(r);
}


/* cumsum/cumprod/cummax/cummin(x, axis = last, reverse = false, exclusive = false): running scans;
 * sums and products accumulate as sum does (16-bit floats in f32, bool and small integers in i32), max
 * and min keep x's type. reverse runs from the last element back; exclusive leaves the element itself
 * out (the first one gets the combine's identity) */
SVal b_scan(Sema *S, BArgs *a)
{
    if (!barg_value(S, a, 0, "the operand"))
        return sv_err();
    const Type *t = sv_type(S, &a->v[0]);
    if (t->kind != TY_TILE || t->elem->kind != TY_SCALAR ||
        (t->elem->sk == SK_BOOL && a->code != KIND_SUM && a->code != KIND_PROD))
        return sema_error(S, a->loc, "%s scans a tile of numbers, not %s", a->name, sv_describe(S, &a->v[0]));
    int axis = t->rank - 1;
    if (barg_given(a, 1) && !barg_axis(S, a, 1, t->rank, sv_describe(S, &a->v[0]), &axis))
        return sv_err();
    bool reverse, exclusive;
    if (!barg_flag(S, a, 2, "reverse", &reverse) || !barg_flag(S, a, 3, "exclusive", &exclusive))
        return sv_err();
    const Type *relem = a->code == KIND_SUM || a->code == KIND_PROD ? sum_type(S, t->elem) : t->elem;
    Value *v = a->v[0].v;
    sema_set_loc(S, a->loc);
    if (relem != t->elem)
        v = b_op1(&S->b, OP_CAST, ty_with_elem(S->types, t, relem), v);
    Value *r = b_op1(&S->b, OP_SCAN, v->type, v);
    r->def->at.kind = a->code;
    r->def->at.axis = axis;
    r->def->at.reverse = reverse;
    r->def->at.exclusive = exclusive;
    return sv_dyn(r);
}

