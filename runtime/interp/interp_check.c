/* Structural checks of each op as the interpreter compiles a function.
 *
 * The interpreter must never crash on IR it is given, verified or not: every op is checked here for
 * what its execution relies on (operand counts, element types, shapes that keep every index inside
 * its tile, loop-carried values of equal size). A failure is a compiler bug, reported as
 * INTERP_ERR_INVALID naming the op; it is not a full verifier (tir_verify is). */
#include <stdio.h>

#include "runtime/interp/interp_internal.h"

typedef struct Chk {
    const Prog *p;
    const Node *n;
    char *why;
    size_t len;
} Chk;

#define BAD(...) (snprintf(k->why, k->len, __VA_ARGS__), false)

static const VInfo *in(const Chk *k, int i) { return &k->p->v[k->n->in[i]]; }
static const VInfo *out(const Chk *k, int i) { return &k->p->v[k->n->out[i]]; }
static const Type *el(const VInfo *v) { return ty_elem(v->type); }
static bool is_scalar(const VInfo *v) { return v->rank == 0; }

/* All operands and the first result have the same number of elements. */
static bool same_numel(const Chk *k)
{
    int64_t n = k->n->op->nres ? out(k, 0)->n : in(k, 0)->n;
    for (int i = 0; i < k->n->op->nopnds; i++)
        if (in(k, i)->n != n)
            return BAD("operand %d has %lld elements, expected %lld", i, (long long)in(k, i)->n, (long long)n);
    return true;
}

/* Operands [from, nopnds) and the result have one element type. */
static bool same_elem(const Chk *k, int from)
{
    const Type *t = el(out(k, 0));
    for (int i = from; i < k->n->op->nopnds; i++)
        if (el(in(k, i)) != t)
            return BAD("operand %d's element type differs from the result's", i);
    return true;
}

static bool cls_in(const Chk *k, const VInfo *v, unsigned classes)
{
    if (classes & (1u << v->el.cls))
        return true;
    return BAD("element type not allowed here");
}

#define C_BOOL (1u << EC_BOOL)
#define C_INT ((1u << EC_SINT) | (1u << EC_UINT))
#define C_FLOAT (1u << EC_FLOAT)
#define C_PTR (1u << EC_PTR)

/* Values copied into other values (loop-carried, yielded) must have their types. */
static bool copies(const Chk *k, const int32_t *src, const int32_t *dst, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        if (k->p->v[src[i]].type != k->p->v[dst[i]].type)
            return BAD("%s %d has another type than where it goes", what, i);
    return true;
}

static bool term_is(const Chk *k, const CBlock *b, OpCode code, int nopnds, const char *region)
{
    if (!b->term || b->term->op->code != code)
        return BAD("%s region does not end in '%s'", region, tir_op_info[code].name);
    if (b->term->op->nopnds != nopnds)
        return BAD("%s region's '%s' has %d operands, expected %d", region, tir_op_info[code].name,
                   b->term->op->nopnds, nopnds);
    return true;
}

static bool check_mem(const Chk *k)
{
    const Op *op = k->n->op;
    int base; /* operands before the optional mask */
    switch (op->code) {
    case OP_LOAD: base = 1; break;
    case OP_STORE: case OP_ATOMIC_RMW: base = 2; break;
    default: base = 3; break;
    }
    int extra = op->code == OP_LOAD ? 2 : 1;
    if (op->nopnds < base || op->nopnds > base + extra)
        return BAD("has %d operands", op->nopnds);
    const VInfo *p = in(k, 0);
    if (p->el.cls != EC_PTR)
        return BAD("operand 0 is not a pointer");
    const Type *pointee = el(p)->pointee;
    int64_t n = p->n;
    for (int i = 1; i < op->nopnds; i++)
        if (in(k, i)->n != n)
            return BAD("operand %d has %lld elements, the pointer %lld", i, (long long)in(k, i)->n, (long long)n);
    if (op->nres && (out(k, 0)->n != n || el(out(k, 0)) != pointee))
        return BAD("result is not the pointee of the pointer operand");
    for (int i = 1; i < base; i++)
        if (el(in(k, i)) != pointee)
            return BAD("operand %d is not the pointee of the pointer operand", i);
    if (op->nopnds > base && in(k, base)->el.cls != EC_BOOL)
        return BAD("mask is not bool");
    if (op->code == OP_LOAD && op->nopnds == 3 && el(in(k, 2)) != pointee)
        return BAD("'other' is not the pointee of the pointer operand");
    if (op->code == OP_ATOMIC_RMW) {
        int64_t kind = op->at.kind;
        if (kind != KIND_ADD && kind != KIND_MAX && kind != KIND_MIN && kind != KIND_AND && kind != KIND_OR &&
            kind != KIND_XOR && kind != KIND_XCHG)
            return BAD("bad atomic kind");
        ElemCls c = p->el.psk == SK_BOOL ? EC_BOOL : sk_is_float(p->el.psk) ? EC_FLOAT : EC_SINT;
        if (c == EC_FLOAT && (kind == KIND_AND || kind == KIND_OR || kind == KIND_XOR))
            return BAD("bitwise atomic on a float");
        if (c == EC_BOOL && (kind == KIND_ADD || kind == KIND_MAX || kind == KIND_MIN))
            return BAD("arithmetic atomic on bool");
    }
    return true;
}

static bool check_reduce(const Chk *k)
{
    const Op *op = k->n->op;
    const VInfo *x = in(k, 0), *r = out(k, 0);
    if (x->rank < 1 || op->at.axis < 0 || op->at.axis >= x->rank)
        return BAD("axis %lld out of range", (long long)op->at.axis);
    int64_t kind = op->at.kind;
    if (op->code == OP_ARGREDUCE) {
        if (kind != KIND_ARGMAX && kind != KIND_ARGMIN)
            return BAD("bad kind");
        if (!cls_in(k, x, C_INT | C_FLOAT) || !cls_in(k, r, C_INT))
            return false;
    } else {
        if (op->code == OP_SCAN ? kind != KIND_SUM && kind != KIND_PROD && kind != KIND_MAX && kind != KIND_MIN
                                : kind != KIND_SUM && kind != KIND_MAX && kind != KIND_MIN && kind != KIND_MAXNUM &&
                                      kind != KIND_MINNUM)
            return BAD("bad kind");
        if (!cls_in(k, x, C_INT | C_FLOAT))
            return false;
        bool xf = x->el.cls == EC_FLOAT, rf = r->el.cls == EC_FLOAT;
        if (xf != rf || r->el.cls == EC_BOOL || r->el.cls == EC_PTR)
            return BAD("result and operand element types do not match");
    }
    int64_t want = op->code == OP_SCAN ? x->n : x->n / x->shape[op->at.axis];
    if (r->n != want)
        return BAD("result has %lld elements, expected %lld", (long long)r->n, (long long)want);
    return true;
}

static bool check_dot(const Chk *k)
{
    const VInfo *a = in(k, 0), *b = in(k, 1), *acc = in(k, 2), *r = out(k, 0);
    if (a->rank != 2 || b->rank != 2 || acc->rank != 2 || r->rank != 2)
        return BAD("operands are not 2-D");
    if (a->shape[1] != b->shape[0] || acc->shape[0] != a->shape[0] || acc->shape[1] != b->shape[1] ||
        acc->type != r->type)
        return BAD("shapes do not match [M, K] x [K, N] + [M, N]");
    unsigned c = r->el.cls == EC_FLOAT ? C_FLOAT : C_INT;
    if (!cls_in(k, r, C_INT | C_FLOAT) || !cls_in(k, a, c) || !cls_in(k, b, c))
        return false;
    return true;
}

static bool check_control(const Chk *k)
{
    const Op *op = k->n->op;
    const Node *n = k->n;
    int nres = op->nres;
    switch (op->code) {
    case OP_FOR: {
        if (op->nopnds < 3 || nres != op->nopnds - 3)
            return BAD("needs lb, ub, step and one init per result");
        for (int i = 0; i < 3; i++)
            if (!is_scalar(in(k, i)) || in(k, i)->el.cls == EC_BOOL || !cls_in(k, in(k, i), C_INT) ||
                in(k, i)->type != in(k, 0)->type)
                return BAD("lb, ub and step must be integer scalars of one type");
        const CBlock *body = &n->reg[0];
        if (body->nargs != 1 + nres || k->p->v[body->args[0]].type != in(k, 0)->type)
            return BAD("body takes the induction variable and one value per result");
        if (!copies(k, n->in + 3, body->args + 1, nres, "init") || !copies(k, body->args + 1, n->out, nres, "iter") ||
            !term_is(k, body, OP_YIELD, nres, "body"))
            return false;
        return copies(k, body->term->in, body->args + 1, nres, "yielded value");
    }
    case OP_IF:
        if (!is_scalar(in(k, 0)) || in(k, 0)->el.cls != EC_BOOL)
            return BAD("condition is not a bool scalar");
        for (int r = 0; r < 2; r++) {
            const CBlock *b = &n->reg[r];
            if (b->nargs)
                return BAD("regions take no arguments");
            if (b->term && b->term->op->code == OP_RETURN)
                continue; /* an early return: the region yields nothing */
            if (nres || b->term) {
                if (!term_is(k, b, OP_YIELD, nres, r ? "else" : "then"))
                    return false;
                if (!copies(k, b->term->in, n->out, nres, "yielded value"))
                    return false;
            }
        }
        return true;
    case OP_WHILE: {
        const CBlock *before = &n->reg[0], *after = &n->reg[1];
        if (before->nargs != op->nopnds || after->nargs != nres)
            return BAD("before takes the inits, after the results");
        if (!copies(k, n->in, before->args, op->nopnds, "init") ||
            !term_is(k, before, OP_CONDITION, 1 + nres, "before") || !term_is(k, after, OP_YIELD, op->nopnds, "after"))
            return false;
        const VInfo *cond = &k->p->v[before->term->in[0]];
        if (!is_scalar(cond) || cond->el.cls != EC_BOOL)
            return BAD("condition is not a bool scalar");
        return copies(k, before->term->in + 1, after->args, nres, "condition value") &&
               copies(k, before->term->in + 1, n->out, nres, "condition value") &&
               copies(k, after->term->in, before->args, op->nopnds, "yielded value");
    }
    default:
        return true;
    }
}

bool interp_check_node(const Prog *p, const Node *n, char *why, size_t len)
{
    Chk kk = {p, n, why, len}, *k = &kk;
    const Op *op = n->op;
    const OpInfo *oi = op_info(op);
    if (oi->nopnds >= 0 && op->nopnds != oi->nopnds)
        return BAD("has %d operands, expected %d", op->nopnds, oi->nopnds);
    if (oi->nres >= 0 && op->nres != oi->nres)
        return BAD("has %d results, expected %d", op->nres, oi->nres);
    if (op->nregions != oi->nregions)
        return BAD("has %d regions, expected %d", op->nregions, oi->nregions);
    if ((oi->flags & F_ELEM) && !same_numel(k))
        return false;
    const VInfo *r = op->nres ? out(k, 0) : NULL;
    switch (op->code) {
    case OP_CONST:
        return true;
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS:
        if (op->at.axis < 0 || op->at.axis > 2)
            return BAD("axis %lld out of range", (long long)op->at.axis);
        return cls_in(k, r, C_INT) && (is_scalar(r) || BAD("result is not a scalar"));
    case OP_ARANGE:
        if (r->rank != 1 || r->n != op->at.end - op->at.start)
            return BAD("result is not a 1-D tile of end - start elements");
        return cls_in(k, r, C_INT);
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_REM: case OP_MIN: case OP_MAX:
        return same_elem(k, 0) && cls_in(k, r, C_INT | C_FLOAT);
    case OP_MINNUM: case OP_MAXNUM:
        return same_elem(k, 0) && cls_in(k, r, C_FLOAT);
    case OP_AND: case OP_OR: case OP_XOR:
        return same_elem(k, 0) && cls_in(k, r, C_INT | C_BOOL);
    case OP_SHL: case OP_SHR:
        return same_elem(k, 0) && cls_in(k, r, C_INT);
    case OP_CMP:
        if (op->at.pred < 0 || op->at.pred >= PRED_COUNT)
            return BAD("bad predicate");
        if (el(in(k, 0)) != el(in(k, 1)))
            return BAD("operands have different element types");
        return cls_in(k, r, C_BOOL);
    case OP_SELECT:
        return same_elem(k, 1) && cls_in(k, in(k, 0), C_BOOL);
    case OP_NEG: case OP_ABS:
        return same_elem(k, 0) && cls_in(k, r, C_INT | C_FLOAT);
    case OP_NOT:
        return same_elem(k, 0) && cls_in(k, r, C_INT | C_BOOL);
    case OP_EXP: case OP_EXP2: case OP_LOG: case OP_LOG2: case OP_SQRT: case OP_RSQRT: case OP_FLOOR:
    case OP_CEIL: case OP_SIN: case OP_COS: case OP_FMA:
        return same_elem(k, 0) && cls_in(k, r, C_FLOAT);
    case OP_CAST:
        if ((in(k, 0)->el.cls == EC_FLOAT && r->el.cls == EC_PTR) ||
            (in(k, 0)->el.cls == EC_PTR && r->el.cls == EC_FLOAT))
            return BAD("cast between a pointer and a float");
        return true;
    case OP_BITCAST:
        if (in(k, 0)->el.bits != r->el.bits)
            return BAD("bitcast between widths %d and %d", in(k, 0)->el.bits, r->el.bits);
        return true;
    case OP_ADDPTR:
        if (el(in(k, 0)) != el(r))
            return BAD("pointer operand's type differs from the result's");
        return cls_in(k, r, C_PTR) && cls_in(k, in(k, 1), C_INT);
    case OP_SPLAT:
        if (in(k, 0)->n != 1)
            return BAD("operand is not a scalar");
        return same_elem(k, 0);
    case OP_BROADCAST: {
        const VInfo *x = in(k, 0);
        if (!same_elem(k, 0))
            return false;
        if (x->rank > r->rank)
            return BAD("operand has a higher rank than the result");
        for (int i = 0; i < x->rank; i++) {
            int64_t d = x->shape[x->rank - 1 - i], rd = r->shape[r->rank - 1 - i];
            if (d != 1 && d != rd)
                return BAD("dimension of %lld cannot stretch to %lld", (long long)d, (long long)rd);
        }
        return true;
    }
    case OP_EXPAND_DIMS: case OP_RESHAPE: case OP_HINT: case OP_CONVERT_LAYOUT:
        if (in(k, 0)->n != r->n)
            return BAD("operand and result differ in size");
        return same_elem(k, 0);
    case OP_PERMUTE: {
        const VInfo *x = in(k, 0);
        if (!same_elem(k, 0))
            return false;
        if (op->at.ndims != x->rank || r->rank != x->rank)
            return BAD("dims do not match the rank");
        unsigned seen = 0;
        for (int i = 0; i < x->rank; i++) {
            int64_t d = op->at.dims[i];
            if (d < 0 || d >= x->rank || (seen & (1u << d)) || r->shape[i] != x->shape[d])
                return BAD("dims are not a permutation giving the result's shape");
            seen |= 1u << d;
        }
        return true;
    }
    case OP_LOAD: case OP_STORE: case OP_ATOMIC_RMW: case OP_ATOMIC_CAS:
        return check_mem(k);
    case OP_REDUCE: case OP_ARGREDUCE: case OP_SCAN:
        return check_reduce(k);
    case OP_DOT:
        return check_dot(k);
    case OP_FOR: case OP_IF: case OP_WHILE:
        return check_control(k);
    case OP_ASSERT: case OP_ASSUME:
        return cls_in(k, in(k, 0), C_BOOL);
    case OP_PRINT:
        if (op->nopnds > 1)
            return BAD("prints at most one value");
        return true;
    case OP_BARRIER: /* nothing to run */
        return op->nopnds == 0 && op->nres == 0 ? true : BAD("has operands or results");
    case OP_YIELD: case OP_CONDITION: case OP_RETURN:
        return true; /* checked by the op owning the region, or by the launch */
    default:
        return BAD("the interpreter cannot run it");
    }
}
