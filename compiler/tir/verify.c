/* The tile IR verifier: structure, dominance and the type rule of every op.
 *
 * A problem found here is a compiler bug, not a user error: each is reported as a diagnostic naming
 * the function, the op and its source position when it has one
 * (`verify: @add: 'add' at 12:3: operand types i32 and f32 differ`), and tir_verify returns false.
 * It checks, in this order for each op:
 *  - structure: the op is known, its operand, result and region counts match the table (fixed
 *    counts; the variable ones are the op's type rule), links between ops, blocks and values agree,
 *    every type is well formed (tir_shape_problem), nesting is at most TIR_MAX_DEPTH deep;
 *  - dominance, for structured IR: an operand is a result of an earlier op of the same block or of an
 *    enclosing block, or an argument of the block or of an enclosing block;
 *  - terminators: yield ends the regions of `for` and `if` and the `after` region of `while`,
 *    condition ends its `before` region, return ends a function body; none appears elsewhere;
 *  - the op's type rule (check_types), only when the structure is sound, so that a malformed op
 *    gives one message and never a crash.
 * Decisions the rules encode: a reduction's result has its operand's element type (sema casts
 * 16-bit floats to f32 before a sum); a constant's value is exactly representable in its type (ints
 * canonical as in Attrs, floats already rounded to f16/bf16/f32); `if`, `while` conditions and `for`
 * bounds are scalars (uniform across the program instance).
 *
 * This file also holds the small shared rules of tir_impl.h (shape limits, integer canonical form,
 * value-name syntax), since the verifier is where they are enforced. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "compiler/layout/layout.h"
#include "support/fp16.h"
#include "compiler/tir/tir.h"
#include "compiler/tir/tir_impl.h"

/* ---- shared rules ---- */

const char *const tir_attr_names[TIR_NATTRS] = {"value", "axis", "pred", "kind", "start", "end",
                                                "n",     "sem",  "scope", "msg", "dims", "reverse", "exclusive"};
const char *const tir_plan_names[PK_COUNT] = {"stage_buffer", "stage", "stages", "stage_bytes", "copy_groups",
                                              "tma",          "tma_bars", "wgmma", "lds",    "defer",
                                              "rotate",       "k_width",      "front",    "tma_coord", "tma_pred", "layout"};

const char *tir_shape_problem(int rank, const int64_t *shape)
{
    if (rank < 1 || rank > TIR_MAX_RANK)
        return "a tile has 1 to 4 dimensions";
    int64_t numel = 1;
    for (int i = 0; i < rank; i++) {
        int64_t d = shape[i];
        if (d < 1 || d > TIR_MAX_DIM || (d & (d - 1)))
            return "a dimension is not a power of two from 1 to 2^30";
        numel *= d; /* <= 2^30 * 2^30: no overflow */
        if (numel > TIR_MAX_NUMEL)
            return "a tile has more than 2^30 elements";
    }
    return NULL;
}

uint64_t tir_int_mask(ScalarKind sk)
{
    int bits = sk_bits(sk);
    return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

int64_t tir_int_norm(ScalarKind sk, int64_t v)
{
    int bits = sk_bits(sk);
    if (sk == SK_BOOL)
        return v & 1;
    if (bits >= 64)
        return v;
    uint64_t mask = (1ull << bits) - 1, u = (uint64_t)v & mask;
    if (u >> (bits - 1))
        u |= ~mask;
    return (int64_t)u;
}

bool tir_name_is_plain(const char *s, size_t n)
{
    size_t i = 0;
    if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
        return false;
    while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
                     s[i] == '_'))
        i++;
    while (i < n) {
        if (s[i] != '.' || i + 1 >= n || s[i + 1] < '0' || s[i + 1] > '9')
            return false;
        for (i++; i < n && s[i] >= '0' && s[i] <= '9';)
            i++;
    }
    return true;
}

/* ---- verifier state ---- */

typedef struct V {
    const Module *m;
    Diags *d;
    Arena *a;
    const Func *f;
    bool ok;
    /* values defined and in scope: a hash set with a live flag, and a stack to end scopes */
    const Value **keys;
    bool *live;
    size_t cap;
    const Value **stack;
    size_t nstack, capstack;
} V;

static void err(V *v, const Op *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void err(V *v, const Op *op, const char *fmt, ...)
{
    char msg[512], where[48] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *fname = v->f && v->f->name ? v->f->name : "?";
    v->ok = false;
    if (!op) {
        diag_plain(v->d, DIAG_ERROR, "verify: @%s: %s", fname, msg);
        return;
    }
    if (op->pos.line)
        snprintf(where, sizeof where, " at %u:%u", (unsigned)op->pos.line, (unsigned)op->pos.col);
    const char *name = (unsigned)op->code < OP_COUNT ? tir_op_info[op->code].name : "?";
    diag_plain(v->d, DIAG_ERROR, "verify: @%s: '%s'%s: %s", fname, name, where, msg);
}

static const char *tn(V *v, const Type *t) { return t ? ty_str(v->a, v->m->types, t) : "<no type>"; }

static size_t slot_of(V *v, const Value *x)
{
    uint64_t h = (uint64_t)(uintptr_t)x * 0x9E3779B97F4A7C15ull;
    size_t mask = v->cap - 1;
    for (size_t i = (size_t)(h ^ (h >> 29)) & mask;; i = (i + 1) & mask)
        if (v->keys[i] == x || !v->keys[i])
            return i;
}

static bool is_live(V *v, const Value *x)
{
    size_t i = slot_of(v, x);
    return v->keys[i] && v->live[i];
}

static void define(V *v, const Value *x)
{
    size_t i = slot_of(v, x);
    v->keys[i] = x;
    v->live[i] = true;
    if (v->nstack == v->capstack) {
        size_t cap = v->capstack ? v->capstack * 2 : 64;
        v->stack = arena_realloc(v->a, v->stack, sizeof(Value *) * v->capstack, sizeof(Value *) * cap);
        v->capstack = cap;
    }
    v->stack[v->nstack++] = x;
}

static void end_scope(V *v, size_t mark)
{
    while (v->nstack > mark)
        v->live[slot_of(v, v->stack[--v->nstack])] = false;
}

static size_t count_values(const Block *b, int depth)
{
    if (!b || depth > TIR_MAX_DEPTH)
        return 0;
    size_t n = b->nargs > 0 ? (size_t)b->nargs : 0;
    for (const Op *op = b->first; op; op = op->next) {
        n += op->nres > 0 ? (size_t)op->nres : 0;
        for (int r = 0; r < op->nregions && op->regions; r++)
            n += count_values(op->regions[r], depth + 1);
    }
    return n;
}

/* ---- types ---- */

static const char *type_problem(const Type *t)
{
    if (!t)
        return "a value has no type";
    switch (t->kind) {
    case TY_SCALAR:
        return (unsigned)t->sk < SK_COUNT ? NULL : "bad scalar kind";
    case TY_PTR:
        return t->pointee && t->pointee->kind == TY_SCALAR && (unsigned)t->pointee->sk < SK_COUNT
                   ? NULL
                   : "a pointer points to a scalar";
    case TY_TILE:
        if (!t->elem || t->elem->kind == TY_TILE)
            return "tile elements are scalars or pointers";
        if (type_problem(t->elem))
            return type_problem(t->elem);
        return tir_shape_problem(t->rank, t->shape);
    }
    return "bad type kind";
}

enum { C_BOOL = 1, C_INT = 2, C_FLOAT = 4, C_PTR = 8 };

static unsigned cls(const Type *t)
{
    const Type *e = ty_elem(t);
    if (e->kind == TY_PTR)
        return C_PTR;
    return e->sk == SK_BOOL ? C_BOOL : sk_is_int(e->sk) ? C_INT : C_FLOAT;
}

/* What a class mask admits, for messages: "integers or floats" / "an integer or a float". */
static const char *cls_name(unsigned c, bool plural)
{
    static const char *const many[16] = {
        [C_INT] = "integers", [C_FLOAT] = "floats", [C_INT | C_FLOAT] = "integers or floats",
        [C_INT | C_BOOL] = "integers or bools", [C_BOOL] = "bools", [C_INT | C_PTR] = "integers or pointers",
        [C_PTR] = "pointers"};
    static const char *const one[16] = {
        [C_INT] = "an integer", [C_FLOAT] = "a float", [C_INT | C_FLOAT] = "an integer or a float",
        [C_INT | C_BOOL] = "an integer or a bool", [C_BOOL] = "a bool", [C_INT | C_PTR] = "an integer or a pointer",
        [C_PTR] = "a pointer"};
    const char *s = (plural ? many : one)[c & 15];
    return s ? s : "something else";
}

static const char *plural(int n) { return n == 1 ? "" : "s"; }

static bool shape_eq(const Type *a, const Type *b)
{
    if ((a->kind == TY_TILE) != (b->kind == TY_TILE))
        return false;
    if (a->kind != TY_TILE)
        return true;
    if (a->rank != b->rank)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->shape[i] != b->shape[i])
            return false;
    return true;
}

static bool is_scalar_of(const Type *t, ScalarKind sk) { return t->kind == TY_SCALAR && t->sk == sk; }

/* The type of operand i of an op whose operand may be missing (terminators checked by their parent). */
static const Type *otype(const Op *op, int i)
{
    return i < op->nopnds && op->operands[i] ? op->operands[i]->type : NULL;
}

#define T(i) (op->operands[i]->type)
#define R(i) (op->results[i].type)

/* All of the first n operands and the result have one type. */
static bool check_same(V *v, const Op *op, int n)
{
    for (int i = 1; i < n; i++)
        if (T(i) != T(0)) {
            err(v, op, "operand types %s and %s differ", tn(v, T(0)), tn(v, T(i)));
            return false;
        }
    if (R(0) != T(0)) {
        err(v, op, "result type %s differs from the operand type %s", tn(v, R(0)), tn(v, T(0)));
        return false;
    }
    return true;
}

/* The element class of t is allowed; `what` names the operand, NULL meaning all of them. */
static bool check_cls(V *v, const Op *op, const Type *t, unsigned allowed, const char *what)
{
    if (cls(t) & allowed)
        return true;
    if (what)
        err(v, op, "%s must be %s, not %s", what, cls_name(allowed, false), tn(v, t));
    else
        err(v, op, "takes %s, not %s", cls_name(allowed, true), tn(v, t));
    return false;
}

/* The operands of a memory op after the pointer: `n` values of the pointee type with the pointer's
 * shape, then an optional bool mask of that shape. */
static void check_mem(V *v, const Op *op, int n, int min, int max)
{
    if (op->nopnds < min || op->nopnds > max) {
        err(v, op, "takes %d or %d operands, not %d", min, max, op->nopnds);
        return;
    }
    if (!check_cls(v, op, T(0), C_PTR, "the address"))
        return;
    const Type *pointee = ty_elem(T(0))->pointee;
    for (int i = 1; i <= n && i < op->nopnds; i++)
        if (ty_elem(T(i)) != pointee || !shape_eq(T(i), T(0)))
            err(v, op, "operand %d has type %s, expected %s values shaped like the address %s", i, tn(v, T(i)),
                tn(v, pointee), tn(v, T(0)));
    if (op->nopnds == max) {
        const Type *mask = T(max - 1);
        if (cls(mask) != C_BOOL || !shape_eq(mask, T(0)))
            err(v, op, "mask %s must be bool shaped like the address %s", tn(v, mask), tn(v, T(0)));
    }
}

static void check_sem_scope(V *v, const Op *op)
{
    if (op->at.sem < 0 || op->at.sem >= SEM_COUNT)
        err(v, op, "bad memory order %lld", (long long)op->at.sem);
    if (op->at.scope < 0 || op->at.scope >= SCOPE_COUNT)
        err(v, op, "bad scope %lld", (long long)op->at.scope);
}

/* The shape of a reduction's result: the operand's without the axis; a scalar when rank 1. */
static bool check_reduced(V *v, const Op *op, const Type *elem)
{
    const Type *x = T(0), *r = R(0);
    if (x->kind != TY_TILE) {
        err(v, op, "operand must be a tile, not %s", tn(v, x));
        return false;
    }
    if (op->at.axis < 0 || op->at.axis >= x->rank) {
        err(v, op, "axis %lld is out of range for %s", (long long)op->at.axis, tn(v, x));
        return false;
    }
    bool ok = ty_elem(r) == elem;
    if (x->rank == 1) {
        ok = ok && r->kind != TY_TILE;
    } else {
        ok = ok && r->kind == TY_TILE && r->rank == x->rank - 1;
        for (int i = 0, j = 0; ok && i < x->rank; i++)
            if (i != op->at.axis)
                ok = r->shape[j++] == x->shape[i];
    }
    if (!ok)
        err(v, op, "result %s is not %s reduced along axis %lld into %s", tn(v, r), tn(v, x), (long long)op->at.axis,
            tn(v, elem));
    return ok;
}

static void check_dot(V *v, const Op *op)
{
    const Type *a = T(0), *b = T(1), *c = T(2);
    if (op->at.kind != KIND_IEEE && op->at.kind != KIND_TF32)
        err(v, op, "kind must be ieee or tf32");
    if (a->kind != TY_TILE || b->kind != TY_TILE || c->kind != TY_TILE || a->rank != 2 || b->rank != 2 ||
        c->rank != 2) {
        err(v, op, "operands must be 2-D tiles, not %s, %s and %s", tn(v, a), tn(v, b), tn(v, c));
        return;
    }
    if (a->shape[1] != b->shape[0] || c->shape[0] != a->shape[0] || c->shape[1] != b->shape[1])
        err(v, op, "shapes %s, %s and %s are not a[M, K], b[K, N], acc[M, N]", tn(v, a), tn(v, b), tn(v, c));
    else if (a->shape[0] < 16 || a->shape[1] < 16 || b->shape[1] < 16)
        err(v, op, "M, N and K must be at least 16 (%s times %s)", tn(v, a), tn(v, b));
    const Type *ea = ty_elem(a), *eb = ty_elem(b), *ec = ty_elem(c);
    if (ea != eb) {
        err(v, op, "inputs %s and %s differ in element type", tn(v, a), tn(v, b));
    } else if (ea->kind != TY_SCALAR || ec->kind != TY_SCALAR ||
               !((ea->sk == SK_F16 && ec->sk == SK_F32) || (ea->sk == SK_BF16 && ec->sk == SK_F32) ||
                 (ea->sk == SK_F32 && ec->sk == SK_F32) || (ea->sk == SK_I8 && ec->sk == SK_I32) ||
                 (ea->sk == SK_F64 && ec->sk == SK_F64))) {
        err(v, op, "no dot of %s inputs into a %s accumulator", tn(v, ea), tn(v, ec));
    } else if (op->at.kind == KIND_TF32 && ea->sk != SK_F32) {
        err(v, op, "tf32 needs f32 inputs, not %s", tn(v, ea));
    }
    if (R(0) != c)
        err(v, op, "result type %s differs from the accumulator type %s", tn(v, R(0)), tn(v, c));
}

/* The terminator ending region r when it is the expected one; NULL otherwise (already reported). */
static const Op *term_of(const Op *op, int r, OpCode code)
{
    const Block *b = op->regions[r];
    return b && b->last && b->last->code == code ? b->last : NULL;
}

/* Operands first.. of terminator t carry the types of `n` values given by type_at. */
static void check_carried(V *v, const Op *op, const Op *t, int first, int n, const Type *const *types,
                          const char *what)
{
    if (!t)
        return;
    if (t->nopnds - first != n) {
        err(v, op, "%s carries %d value%s, expected %d", what, t->nopnds - first, plural(t->nopnds - first), n);
        return;
    }
    for (int i = 0; i < n; i++) {
        const Type *got = otype(t, first + i);
        if (got && types[i] && got != types[i])
            err(v, op, "%s value %d has type %s, expected %s", what, i, tn(v, got), tn(v, types[i]));
    }
}

static const Type **result_types(V *v, const Op *op)
{
    const Type **ts = ARENA_ARRAY(v->a, const Type *, op->nres + 1);
    for (int i = 0; i < op->nres; i++)
        ts[i] = R(i);
    return ts;
}

static const Type **arg_types(V *v, const Block *b)
{
    const Type **ts = ARENA_ARRAY(v->a, const Type *, b->nargs + 1);
    for (int i = 0; i < b->nargs; i++)
        ts[i] = b->args[i].type;
    return ts;
}

static void check_for(V *v, const Op *op)
{
    if (op->nopnds < 3) {
        err(v, op, "takes a lower bound, an upper bound, a step and initial values, not %d operands", op->nopnds);
        return;
    }
    if (T(0) != T(1) || T(0) != T(2) || T(0)->kind != TY_SCALAR || cls(T(0)) != C_INT)
        err(v, op, "bounds and step must be integer scalars of one type, not %s, %s and %s", tn(v, T(0)), tn(v, T(1)),
            tn(v, T(2)));
    int k = op->nopnds - 3;
    if (op->nres != k) {
        err(v, op, "has %d result%s for %d initial value%s", op->nres, plural(op->nres), k, plural(k));
        return;
    }
    const Block *body = op->regions[0];
    if (body->nargs != k + 1) {
        err(v, op, "region has %d argument%s, expected %d (the induction variable and the iter values)",
            body->nargs, plural(body->nargs), k + 1);
        return;
    }
    if (body->args[0].type != T(0))
        err(v, op, "induction variable has type %s, the bounds %s", tn(v, body->args[0].type), tn(v, T(0)));
    for (int i = 0; i < k; i++)
        if (T(3 + i) != R(i) || body->args[1 + i].type != R(i))
            err(v, op, "iter value %d: initial value %s, region argument %s and result %s differ", i, tn(v, T(3 + i)),
                tn(v, body->args[1 + i].type), tn(v, R(i)));
    check_carried(v, op, term_of(op, 0, OP_YIELD), 0, k, result_types(v, op), "yield");
}

static void check_if(V *v, const Op *op)
{
    if (T(0)->kind != TY_SCALAR || T(0)->sk != SK_BOOL)
        err(v, op, "condition must be a bool scalar, not %s", tn(v, T(0)));
    for (int r = 0; r < 2; r++) {
        if (op->regions[r]->nargs) {
            err(v, op, "region %d takes no arguments", r);
            continue;
        }
        check_carried(v, op, term_of(op, r, OP_YIELD), 0, op->nres, result_types(v, op), r ? "else yield" : "then yield");
    }
}

static void check_while(V *v, const Op *op)
{
    const Block *before = op->regions[0], *after = op->regions[1];
    int n = op->nopnds;
    if (before->nargs != n) {
        err(v, op, "before region has %d argument%s for %d initial value%s", before->nargs, plural(before->nargs), n,
            plural(n));
    } else {
        for (int i = 0; i < n; i++)
            if (before->args[i].type != T(i))
                err(v, op, "before region argument %d has type %s, its initial value %s", i,
                    tn(v, before->args[i].type), tn(v, T(i)));
        check_carried(v, op, term_of(op, 1, OP_YIELD), 0, n, arg_types(v, before), "after yield");
    }
    const Op *cond = term_of(op, 0, OP_CONDITION);
    if (cond) {
        const Type *c = otype(cond, 0);
        if (cond->nopnds < 1)
            err(v, op, "condition has no operands");
        else if (c && (c->kind != TY_SCALAR || c->sk != SK_BOOL))
            err(v, op, "condition must be a bool scalar, not %s", tn(v, c));
        else
            check_carried(v, op, cond, 1, op->nres, result_types(v, op), "condition");
    }
    if (after->nargs != op->nres) {
        err(v, op, "after region has %d argument%s for %d result%s", after->nargs, plural(after->nargs), op->nres,
            plural(op->nres));
        return;
    }
    for (int i = 0; i < op->nres; i++)
        if (after->args[i].type != R(i))
            err(v, op, "after region argument %d has type %s, result %s", i, tn(v, after->args[i].type), tn(v, R(i)));
}

static void check_const(V *v, const Op *op)
{
    const Type *e = ty_elem(R(0));
    if (e->kind == TY_PTR) {
        err(v, op, "a constant cannot be a pointer");
    } else if (sk_is_float(e->sk)) {
        double f = op->at.value.f;
        if (!isnan(f) && fp_round(e->sk, f) != f)
            err(v, op, "value %.17g is not representable in %s", f, sk_name(e->sk));
    } else if (op->at.value.i != tir_int_norm(e->sk, op->at.value.i) ||
               (e->sk == SK_BOOL && op->at.value.i != 0 && op->at.value.i != 1)) {
        err(v, op, "value %lld is out of range for %s", (long long)op->at.value.i, sk_name(e->sk));
    }
}

static void check_arange(V *v, const Op *op)
{
    int64_t s = op->at.start, e = op->at.end;
    if (e <= s) {
        err(v, op, "end %lld is not greater than start %lld", (long long)e, (long long)s);
        return;
    }
    if (s < INT32_MIN || e - 1 > INT32_MAX) {
        err(v, op, "bounds %lld..%lld do not fit in i32", (long long)s, (long long)e);
        return;
    }
    int64_t n = e - s;
    if (n & (n - 1)) {
        err(v, op, "length %lld is not a power of two", (long long)n);
        return;
    }
    const Type *r = R(0);
    if (r->kind != TY_TILE || r->rank != 1 || r->shape[0] != n || !is_scalar_of(r->elem, SK_I32))
        err(v, op, "result must be i32[%lld], not %s", (long long)n, tn(v, r));
}

static void check_shape_op(V *v, const Op *op)
{
    const Type *x = T(0), *r = R(0);
    if (x->kind != TY_TILE || r->kind != TY_TILE) {
        err(v, op, "operand and result must be tiles, not %s and %s", tn(v, x), tn(v, r));
        return;
    }
    if (x->elem != r->elem) {
        err(v, op, "element types of %s and %s differ", tn(v, x), tn(v, r));
        return;
    }
    bool ok = true;
    switch (op->code) {
    case OP_BROADCAST:
        ok = x->rank == r->rank;
        for (int i = 0; ok && i < x->rank; i++)
            ok = x->shape[i] == r->shape[i] || x->shape[i] == 1;
        if (!ok)
            err(v, op, "cannot broadcast %s to %s", tn(v, x), tn(v, r));
        break;
    case OP_EXPAND_DIMS: {
        int64_t axis = op->at.axis;
        if (axis < 0 || axis > x->rank || x->rank == TIR_MAX_RANK) {
            err(v, op, "cannot insert a dimension at axis %lld of %s", (long long)axis, tn(v, x));
            break;
        }
        ok = r->rank == x->rank + 1 && r->shape[axis] == 1;
        for (int i = 0, j = 0; ok && i < r->rank; i++)
            if (i != axis)
                ok = r->shape[i] == x->shape[j++];
        if (!ok)
            err(v, op, "result %s is not %s with a dimension of 1 at axis %lld", tn(v, r), tn(v, x), (long long)axis);
        break;
    }
    case OP_RESHAPE:
        if (ty_numel(x) != ty_numel(r))
            err(v, op, "cannot reshape %s to %s", tn(v, x), tn(v, r));
        break;
    case OP_PERMUTE: {
        const Attrs *at = &op->at;
        bool seen[TIR_MAX_RANK] = {0};
        ok = at->ndims == x->rank;
        for (int i = 0; ok && i < at->ndims; i++) {
            ok = at->dims[i] >= 0 && at->dims[i] < x->rank && !seen[at->dims[i]];
            if (ok)
                seen[at->dims[i]] = true;
        }
        if (!ok) {
            err(v, op, "dims are not a permutation of the %d dimensions of %s", x->rank, tn(v, x));
            break;
        }
        ok = r->rank == x->rank;
        for (int i = 0; ok && i < r->rank; i++)
            ok = r->shape[i] == x->shape[at->dims[i]];
        if (!ok)
            err(v, op, "result %s is not %s permuted", tn(v, r), tn(v, x));
        break;
    }
    default:
        break;
    }
}

/* ---- the rule of each op ---- */

static void check_types(V *v, const Op *op)
{
    const OpInfo *info = &tir_op_info[op->code];
    if (info->flags & F_ELEM) {
        for (int i = 0; i < op->nopnds; i++)
            if (!shape_eq(T(i), R(0))) {
                err(v, op, "operand %d (%s) and the result (%s) differ in shape", i, tn(v, T(i)), tn(v, R(0)));
                return;
            }
    }
    switch (op->code) {
    case OP_CONST: check_const(v, op); break;
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS:
        if (op->at.axis < 0 || op->at.axis > 2)
            err(v, op, "axis %lld is not 0, 1 or 2", (long long)op->at.axis);
        if (!is_scalar_of(R(0), SK_I32))
            err(v, op, "result must be i32, not %s", tn(v, R(0)));
        break;
    case OP_ARANGE: check_arange(v, op); break;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_REM: case OP_MIN: case OP_MAX:
        if (check_same(v, op, 2))
            check_cls(v, op, T(0), C_INT | C_FLOAT, NULL);
        break;
    case OP_MINNUM: case OP_MAXNUM:
        if (check_same(v, op, 2))
            check_cls(v, op, T(0), C_FLOAT, NULL);
        break;
    case OP_AND: case OP_OR: case OP_XOR:
        if (check_same(v, op, 2))
            check_cls(v, op, T(0), C_INT | C_BOOL, NULL);
        break;
    case OP_SHL: case OP_SHR:
        if (check_same(v, op, 2))
            check_cls(v, op, T(0), C_INT, NULL);
        break;
    case OP_CMP:
        if (T(0) != T(1))
            err(v, op, "operand types %s and %s differ", tn(v, T(0)), tn(v, T(1)));
        if (cls(R(0)) != C_BOOL)
            err(v, op, "result must be bool, not %s", tn(v, R(0)));
        if (op->at.pred < 0 || op->at.pred >= PRED_COUNT)
            err(v, op, "bad predicate %lld", (long long)op->at.pred);
        break;
    case OP_SELECT:
        if (!check_cls(v, op, T(0), C_BOOL, "the condition"))
            break;
        if (T(1) != T(2))
            err(v, op, "operand types %s and %s differ", tn(v, T(1)), tn(v, T(2)));
        else if (R(0) != T(1))
            err(v, op, "result type %s differs from the operand type %s", tn(v, R(0)), tn(v, T(1)));
        break;
    case OP_NEG: case OP_ABS:
        if (check_same(v, op, 1))
            check_cls(v, op, T(0), C_INT | C_FLOAT, NULL);
        break;
    case OP_NOT:
        if (check_same(v, op, 1))
            check_cls(v, op, T(0), C_INT | C_BOOL, NULL);
        break;
    case OP_EXP: case OP_EXP2: case OP_LOG: case OP_LOG2: case OP_SQRT: case OP_RSQRT: case OP_FLOOR: case OP_CEIL:
    case OP_SIN: case OP_COS:
        if (check_same(v, op, 1))
            check_cls(v, op, T(0), C_FLOAT, NULL);
        break;
    case OP_FMA:
        if (check_same(v, op, 3))
            check_cls(v, op, T(0), C_FLOAT, NULL);
        break;
    case OP_CAST:
        if ((cls(T(0)) == C_PTR) != (cls(R(0)) == C_PTR))
            err(v, op, "cannot cast %s to %s", tn(v, T(0)), tn(v, R(0)));
        break;
    case OP_BITCAST:
        if (ty_bits(T(0)) != ty_bits(R(0)))
            err(v, op, "cannot bitcast %s to %s of another width", tn(v, T(0)), tn(v, R(0)));
        break;
    case OP_ADDPTR:
        if (check_cls(v, op, T(0), C_PTR, "the first operand") && check_cls(v, op, T(1), C_INT, "the offset") &&
            R(0) != T(0))
            err(v, op, "result type %s differs from the pointer type %s", tn(v, R(0)), tn(v, T(0)));
        break;
    case OP_SPLAT:
        if (T(0)->kind == TY_TILE || R(0)->kind != TY_TILE)
            err(v, op, "splats a scalar into a tile, not %s into %s", tn(v, T(0)), tn(v, R(0)));
        else if (R(0)->elem != T(0))
            err(v, op, "result element type of %s differs from the operand type %s", tn(v, R(0)), tn(v, T(0)));
        break;
    case OP_BROADCAST: case OP_EXPAND_DIMS: case OP_RESHAPE: case OP_PERMUTE: check_shape_op(v, op); break;
    case OP_LOAD: /* ptr [, mask, other]; a load into shared memory (LIR): ptr [, mask], zero-filled */
        if (op->nopnds == 2 && R(0)->kind == TY_TILE && R(0)->layout && R(0)->layout->kind == LAY_SHARED) {
            if (cls(T(1)) != C_BOOL || !shape_eq(T(1), T(0)))
                err(v, op, "mask %s must be bool shaped like the address %s", tn(v, T(1)), tn(v, T(0)));
            break;
        }
        if (op->nopnds != 1 && op->nopnds != 3) {
            err(v, op, "takes 1 or 3 operands, not %d", op->nopnds);
            break;
        }
        if (!check_cls(v, op, T(0), C_PTR, "the address"))
            break;
        if (ty_elem(R(0)) != ty_elem(T(0))->pointee || !shape_eq(R(0), T(0)))
            err(v, op, "result type %s does not match the address type %s", tn(v, R(0)), tn(v, T(0)));
        else if (op->nopnds == 3 && (cls(T(1)) != C_BOOL || !shape_eq(T(1), T(0))))
            err(v, op, "mask %s must be bool shaped like the address %s", tn(v, T(1)), tn(v, T(0)));
        else if (op->nopnds == 3 && T(2) != R(0))
            err(v, op, "other has type %s, the result %s", tn(v, T(2)), tn(v, R(0)));
        break;
    case OP_STORE: check_mem(v, op, 1, 2, 3); break;
    case OP_ATOMIC_RMW: {
        int64_t k = op->at.kind;
        unsigned allowed = k == KIND_ADD || k == KIND_MAX || k == KIND_MIN || k == KIND_XCHG ? C_INT | C_FLOAT
                           : k == KIND_AND || k == KIND_OR || k == KIND_XOR               ? C_INT
                                                                                          : 0;
        if (!allowed)
            err(v, op, "kind must be add, max, min, and, or, xor or xchg");
        check_sem_scope(v, op);
        check_mem(v, op, 1, 2, 3);
        if (op->nopnds >= 2 && op->nopnds <= 3 && allowed && check_cls(v, op, T(1), allowed, "the value") &&
            R(0) != T(1))
            err(v, op, "result type %s differs from the value type %s", tn(v, R(0)), tn(v, T(1)));
        break;
    }
    case OP_ATOMIC_CAS:
        check_sem_scope(v, op);
        check_mem(v, op, 2, 3, 4);
        if (op->nopnds >= 3 && op->nopnds <= 4 && check_cls(v, op, T(1), C_INT | C_FLOAT, "the value") &&
            R(0) != T(1))
            err(v, op, "result type %s differs from the value type %s", tn(v, R(0)), tn(v, T(1)));
        break;
    case OP_REDUCE:
        if (op->at.kind != KIND_SUM && op->at.kind != KIND_MAX && op->at.kind != KIND_MIN &&
            op->at.kind != KIND_MAXNUM && op->at.kind != KIND_MINNUM)
            err(v, op, "kind must be sum, max, min, maxnum or minnum");
        else if (check_cls(v, op, T(0), C_INT | C_FLOAT, NULL))
            check_reduced(v, op, ty_elem(T(0)));
        break;
    case OP_ARGREDUCE:
        if (op->at.kind != KIND_ARGMAX && op->at.kind != KIND_ARGMIN)
            err(v, op, "kind must be argmax or argmin");
        else if (check_cls(v, op, T(0), C_INT | C_FLOAT, NULL))
            check_reduced(v, op, v->m->types->scalars[SK_I32]);
        break;
    case OP_SCAN:
        if (op->at.kind != KIND_SUM && op->at.kind != KIND_PROD && op->at.kind != KIND_MAX && op->at.kind != KIND_MIN)
            err(v, op, "kind must be sum, prod, max or min");
        else if (T(0)->kind != TY_TILE || op->at.axis < 0 || op->at.axis >= T(0)->rank)
            err(v, op, "axis %lld is out of range for %s", (long long)op->at.axis, tn(v, T(0)));
        else if (check_cls(v, op, T(0), C_INT | C_FLOAT, NULL) && R(0) != T(0))
            err(v, op, "result type %s differs from the operand type %s", tn(v, R(0)), tn(v, T(0)));
        break;
    case OP_DOT: check_dot(v, op); break;
    case OP_FOR: check_for(v, op); break;
    case OP_IF: check_if(v, op); break;
    case OP_WHILE: check_while(v, op); break;
    case OP_YIELD: case OP_CONDITION: break; /* checked by the op owning the region */
    case OP_RETURN:
        if (v->f->kind == FUNC_KERNEL && op->nopnds != 0)
            err(v, op, "a kernel returns nothing");
        if (v->f->kind == FUNC_GRID) {
            bool ok = op->nopnds == 3;
            for (int i = 0; ok && i < 3; i++)
                ok = is_scalar_of(T(i), SK_I32);
            if (!ok)
                err(v, op, "a grid function returns three i32 scalars");
        }
        break;
    case OP_BARRIER:
        if (v->f->kind != FUNC_KERNEL) /* a grid function runs on the host, once */
            err(v, op, "a barrier belongs in a kernel");
        break;
    case OP_ASSERT: check_cls(v, op, T(0), C_BOOL, "the condition"); break;
    case OP_PRINT:
        if (op->nopnds > 1)
            err(v, op, "prints at most one value, not %d", op->nopnds);
        break;
    case OP_HINT:
        if (op->at.kind != KIND_MULTIPLE_OF && op->at.kind != KIND_MAX_CONTIGUOUS)
            err(v, op, "kind must be multiple_of or max_contiguous");
        else if (op->at.n < 1)
            err(v, op, "n must be positive, not %lld", (long long)op->at.n);
        else if (check_cls(v, op, T(0), C_INT | C_PTR, "the operand") && R(0) != T(0))
            err(v, op, "result type %s differs from the operand type %s", tn(v, R(0)), tn(v, T(0)));
        break;
    case OP_ASSUME:
        if (!is_scalar_of(T(0), SK_BOOL))
            err(v, op, "the condition must be a bool scalar, not %s", tn(v, T(0)));
        break;
    case OP_CONVERT_LAYOUT:
        if (!shape_eq(T(0), R(0)) || ty_elem(T(0)) != ty_elem(R(0)))
            err(v, op, "converts %s to %s: only the layout may change", tn(v, T(0)), tn(v, R(0)));
        break;
    case OP_COUNT: break;
    }
}

#undef T
#undef R

/* ---- structure, dominance, terminators ---- */

static void verify_block(V *v, const Block *b, const Op *parent, int region, int depth);

static OpCode region_terminator(const Op *op, int region)
{
    return op->code == OP_WHILE && region == 0 ? OP_CONDITION : OP_YIELD;
}

/* Plan attributes (tir.h, OpPlan): the memory accesses' layouts (coalesce) and the dots' choices
 * (choose_dots) in TIR; the loads' stage buffers and copies, the dots' wgmma, the LDS offsets of the
 * ops that may take scratch and the deferred converts in LIR; the values they name are in scope at
 * the op. */
static void verify_plan(V *v, const Op *op)
{
    const OpPlan *pl = op->plan;
    unsigned stage = (1u << PK_STAGE_BUFFER | 1u << PK_STAGE | 1u << PK_STAGES | 1u << PK_STAGE_BYTES |
                      1u << PK_COPY_GROUPS | 1u << PK_TMA | 1u << PK_TMA_BARS | 1u << PK_FRONT | 1u << PK_TMA_COORD |
                      1u << PK_TMA_PRED);
    unsigned allowed = 0;
    switch (op->code) {
    case OP_LOAD: allowed = stage | 1u << PK_LAYOUT; break;
    case OP_STORE: allowed = 1u << PK_LAYOUT; break;
    case OP_DOT: allowed = 1u << PK_WGMMA | 1u << PK_K_WIDTH | 1u << PK_LAYOUT; break;
    case OP_CONVERT_LAYOUT: allowed = 1u << PK_LDS | 1u << PK_DEFER | 1u << PK_ROTATE; break;
    case OP_ATOMIC_RMW:
    case OP_ATOMIC_CAS: allowed = 1u << PK_LDS | 1u << PK_LAYOUT; break;
    case OP_RESHAPE:
    case OP_PERMUTE:
    case OP_REDUCE:
    case OP_ARGREDUCE:
    case OP_SCAN: allowed = 1u << PK_LDS; break;
    default: break;
    }
    for (int k = 0; k < PK_COUNT; k++)
        if ((pl->set & (1u << k)) && !(allowed & (1u << k)))
            err(v, op, "has no plan attribute '%s'", tir_plan_names[k]);
    unsigned choice = pl->set & (1u << PK_K_WIDTH | 1u << PK_LAYOUT);
    if (op->code == OP_DOT && choice &&
        (choice != (1u << PK_K_WIDTH | 1u << PK_LAYOUT) || pl->v[PK_K_WIDTH] < 1 || pl->v[PK_K_WIDTH] > 64 || !pl->layout))
        err(v, op, "its plan's layout and k_width (1 to 64) go together");
    if (pl->set & (1u << PK_ROTATE)) {
        /* a rotated operand is a tile the `for` loop directly around the convert carries */
        const Value *x = op->nopnds ? op->operands[0] : NULL;
        const Block *b = op->parent;
        bool carried = x && !x->def && x->owner == b && b && b->parent && b->parent->code == OP_FOR && x != b->args;
        if (pl->v[PK_ROTATE] != 1 || !(pl->set & (1u << PK_DEFER)) || pl->v[PK_DEFER] < 1 || !carried)
            err(v, op, "rotate = 1 goes with defer, on a convert of a tile its `for` loop carries");
    }
    bool live = !(pl->set & (1u << PK_FRONT)) || (pl->front && is_live(v, pl->front));
    for (int i = 0; i < pl->ncoord && i < 3; i++)
        for (int j = 0; j < pl->coord[i].n && j < PLAN_LIN_MAX; j++)
            live = live && pl->coord[i].t[j].a && is_live(v, pl->coord[i].t[j].a) &&
                   (!pl->coord[i].t[j].b || is_live(v, pl->coord[i].t[j].b));
    for (int i = 0; i < pl->npred && i < PLAN_MAX_PRED; i++)
        live = live && pl->pred[i] && is_live(v, pl->pred[i]);
    if (!live)
        err(v, op, "its plan names a value outside the scope of its definition");
}

static void verify_op(V *v, const Op *op, int depth)
{
    if ((unsigned)op->code >= OP_COUNT) {
        err(v, op, "unknown opcode %d", (int)op->code);
        return;
    }
    const OpInfo *info = &tir_op_info[op->code];
    bool sound = true;
    if (op->nopnds < 0 || (info->nopnds >= 0 && op->nopnds != info->nopnds)) {
        err(v, op, "has %d operand%s, expected %d", op->nopnds, plural(op->nopnds), info->nopnds);
        sound = false;
    }
    if (op->nres < 0 || (info->nres >= 0 && op->nres != info->nres)) {
        err(v, op, "has %d result%s, expected %d", op->nres, plural(op->nres), info->nres);
        sound = false;
    }
    if (op->nregions != info->nregions || (op->nregions && !op->regions)) {
        err(v, op, "has %d region%s, expected %d", op->nregions, plural(op->nregions), info->nregions);
        sound = false;
    }
    for (int i = 0; i < op->nopnds; i++) {
        const Value *x = op->operands[i];
        if (!x) {
            err(v, op, "operand %d is missing", i);
            sound = false;
        } else if (!is_live(v, x)) {
            err(v, op, "operand %d is used outside the scope of its definition", i);
            sound = sound && x->type && !type_problem(x->type);
        } else if (!x->type) {
            sound = false; /* reported where it was defined */
        }
    }
    if (op->plan)
        verify_plan(v, op);
    for (int i = 0; i < op->nres; i++) {
        const Value *r = &op->results[i];
        const char *why = type_problem(r->type);
        if (r->def != op || r->index != i) {
            err(v, op, "result %d does not point back to its op", i);
            sound = false;
        } else if (why) {
            err(v, op, "result %d: %s", i, why);
            sound = false;
        }
    }
    if (op->nregions == info->nregions && op->regions) {
        for (int r = 0; r < op->nregions; r++) {
            const Block *b = op->regions[r];
            if (!b || b->parent != op) {
                err(v, op, "region %d is missing or does not point back to its op", r);
                sound = false;
            } else {
                verify_block(v, b, op, r, depth + 1);
            }
        }
    }
    for (int i = 0; i < op->nres; i++)
        define(v, &op->results[i]);
    if (sound)
        check_types(v, op);
}

static void verify_block(V *v, const Block *b, const Op *parent, int region, int depth)
{
    if (depth > TIR_MAX_DEPTH) {
        err(v, parent, "regions nested too deeply (more than %d)", TIR_MAX_DEPTH);
        return;
    }
    size_t mark = v->nstack;
    for (int i = 0; i < b->nargs; i++) {
        const Value *a = &b->args[i];
        const char *why = type_problem(a->type);
        if (a->owner != b || a->def || a->index != i)
            err(v, parent, "block argument %d does not point back to its block", i);
        else if (why)
            err(v, parent, "block argument %d: %s", i, why);
        define(v, a);
    }
    const Op *prev = NULL;
    for (const Op *op = b->first; op; prev = op, op = op->next) {
        if (op->parent != b || op->prev != prev)
            err(v, op, "is not linked into its block correctly");
        verify_op(v, op, depth);
        if ((unsigned)op->code < OP_COUNT && (tir_op_info[op->code].flags & F_TERM) && op->next)
            err(v, op, "a terminator must end its block");
    }
    if (b->last != prev)
        err(v, parent, "a block's last op is not the end of its list");
    OpCode want = parent ? region_terminator(parent, region) : OP_RETURN;
    if (!prev || prev->code != want) {
        if (parent)
            err(v, parent, "region %d must end in '%s'", region, tir_op_info[want].name);
        else
            err(v, NULL, "the body must end in 'return'");
    }
    end_scope(v, mark);
}

static void verify_func(V *v, const Func *f)
{
    v->f = f;
    if (!f->body || f->body->parent) {
        err(v, NULL, "function without a body");
        return;
    }
    size_t n = count_values(f->body, 0), cap = 64;
    while (cap < 2 * n + 2)
        cap *= 2;
    v->cap = cap;
    v->keys = ARENA_ARRAY(v->a, const Value *, cap);
    v->live = ARENA_ARRAY(v->a, bool, cap);
    v->nstack = 0;
    for (int i = 0; i < f->body->nargs; i++) {
        const Type *t = f->body->args[i].type;
        /* Grid functions take the kernel's parameters, pointers included, so that a launch evaluates
         * them from the same argument list; they never use the pointers. */
        if (t && t->kind == TY_TILE)
            err(v, NULL, "parameter %d has a tile type %s", i, tn(v, t));
    }
    if (f->kind == FUNC_KERNEL) {
        const KernelOptions *o = &f->opts;
        if (o->num_warps < 1 || o->num_warps > 16 || (o->num_warps & (o->num_warps - 1)))
            err(v, NULL, "num_warps %d is not a power of two from 1 to 16", o->num_warps);
        if (o->num_stages < 0 || o->waves_per_eu < 0)
            err(v, NULL, "num_stages and waves_per_eu must not be negative");
        if (o->matrix_instr_nonkdim != 0 && o->matrix_instr_nonkdim != 16 && o->matrix_instr_nonkdim != 32)
            err(v, NULL, "matrix_instr_nonkdim %d is not 0, 16 or 32", o->matrix_instr_nonkdim);
        if (o->kpack != 1 && o->kpack != 2)
            err(v, NULL, "kpack %d is not 1 or 2", o->kpack);
    }
    verify_block(v, f->body, NULL, 0, 0);
}

bool tir_verify(const Module *m, Diags *diags)
{
    V v = {0};
    v.m = m;
    v.d = diags;
    v.a = m->arena;
    v.ok = true;
    for (int i = 0; i < m->nfuncs; i++)
        verify_func(&v, m->funcs[i]);
    return v.ok;
}
