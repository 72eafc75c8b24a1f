/* Type interning: scalars are preallocated; pointer and tile types live in an open-addressing set
 * keyed by their structure. */
#include "compiler/tir/type.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "support/fp16.h"

static const char *const sk_names[SK_COUNT] = {"bool", "i8",  "i16", "i32",  "i64", "u8", "u16",
                                               "u32",  "u64", "f16", "bf16", "f32", "f64"};
static const int sk_widths[SK_COUNT] = {1, 8, 16, 32, 64, 8, 16, 32, 64, 16, 16, 32, 64};

const char *sk_name(ScalarKind sk) { return (unsigned)sk < SK_COUNT ? sk_names[sk] : "?"; }
int sk_bits(ScalarKind sk) { return sk_widths[sk]; }
bool sk_is_int(ScalarKind sk) { return sk >= SK_I8 && sk <= SK_U64; }
bool sk_is_signed(ScalarKind sk) { return sk >= SK_I8 && sk <= SK_I64; }
bool sk_is_float(ScalarKind sk) { return sk >= SK_F16; }

int sk_from_name(const char *name)
{
    for (int i = 0; i < SK_COUNT; i++)
        if (strcmp(name, sk_names[i]) == 0)
            return i;
    return -1;
}

void typetab_init(TypeTab *t, Arena *a)
{
    memset(t, 0, sizeof *t);
    t->arena = a;
    for (int i = 0; i < SK_COUNT; i++) {
        Type *ty = ARENA_NEW(a, Type);
        ty->kind = TY_SCALAR;
        ty->sk = (ScalarKind)i;
        ty->id = t->next_id++;
        t->scalars[i] = ty;
    }
}

const Type *ty_scalar(TypeTab *t, ScalarKind sk) { return t->scalars[sk]; }

static uint32_t type_hash(const Type *k)
{
    uint64_t h = (uint64_t)k->kind * 0x9E3779B97F4A7C15ull;
    h ^= (k->pointee ? k->pointee->id + 1 : 0) * 0xBF58476D1CE4E5B9ull;
    h ^= (k->elem ? k->elem->id + 1 : 0) * 0x94D049BB133111EBull;
    h ^= (uint64_t)(uintptr_t)k->layout * 0x2545F4914F6CDD1Dull;
    for (int i = 0; i < k->rank; i++)
        h = (h ^ (uint64_t)k->shape[i]) * 0x100000001B3ull;
    return (uint32_t)(h ^ (h >> 32));
}

static bool type_eq(const Type *a, const Type *b)
{
    if (a->kind != b->kind || a->pointee != b->pointee || a->elem != b->elem || a->rank != b->rank ||
        a->layout != b->layout)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->shape[i] != b->shape[i])
            return false;
    return true;
}

static void grow(TypeTab *t)
{
    uint32_t cap = t->cap ? t->cap * 2 : 64;
    Type **slots = ARENA_ARRAY(t->arena, Type *, cap);
    for (uint32_t i = 0; i < t->cap; i++) {
        Type *ty = t->slots[i];
        if (!ty)
            continue;
        uint32_t j = type_hash(ty) & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = ty;
    }
    t->slots = slots;
    t->cap = cap;
}

static const Type *intern(TypeTab *t, const Type *key)
{
    if (2 * (t->n + 1) > t->cap)
        grow(t);
    uint32_t j = type_hash(key) & (t->cap - 1);
    while (t->slots[j]) {
        if (type_eq(t->slots[j], key))
            return t->slots[j];
        j = (j + 1) & (t->cap - 1);
    }
    Type *ty = ARENA_NEW(t->arena, Type);
    *ty = *key;
    ty->id = t->next_id++;
    t->slots[j] = ty;
    t->n++;
    return ty;
}

const Type *ty_ptr(TypeTab *t, const Type *pointee)
{
    Type k = {0};
    k.kind = TY_PTR;
    k.pointee = pointee;
    return intern(t, &k);
}

const Type *ty_tile(TypeTab *t, const Type *elem, int rank, const int64_t *shape, const Layout *layout)
{
    Type k = {0};
    k.kind = TY_TILE;
    k.elem = elem;
    k.rank = rank;
    for (int i = 0; i < rank; i++)
        k.shape[i] = shape[i];
    k.layout = layout;
    return intern(t, &k);
}

const Type *ty_with_elem(TypeTab *t, const Type *ty, const Type *elem)
{
    if (ty->kind != TY_TILE)
        return elem;
    return ty_tile(t, elem, ty->rank, ty->shape, ty->layout);
}

const Type *ty_with_layout(TypeTab *t, const Type *ty, const Layout *layout)
{
    if (ty->kind != TY_TILE)
        return ty;
    return ty_tile(t, ty->elem, ty->rank, ty->shape, layout);
}

const Type *ty_elem(const Type *t) { return t->kind == TY_TILE ? t->elem : t; }
bool ty_is_int(const Type *t) { const Type *e = ty_elem(t); return e->kind == TY_SCALAR && sk_is_int(e->sk); }
bool ty_is_signed(const Type *t) { const Type *e = ty_elem(t); return e->kind == TY_SCALAR && sk_is_signed(e->sk); }
bool ty_is_float(const Type *t) { const Type *e = ty_elem(t); return e->kind == TY_SCALAR && sk_is_float(e->sk); }
bool ty_is_bool(const Type *t) { const Type *e = ty_elem(t); return e->kind == TY_SCALAR && e->sk == SK_BOOL; }
bool ty_is_ptr(const Type *t) { return ty_elem(t)->kind == TY_PTR; }

int ty_bits(const Type *t)
{
    const Type *e = ty_elem(t);
    return e->kind == TY_PTR ? 64 : sk_bits(e->sk);
}

int64_t ty_numel(const Type *t)
{
    if (t->kind != TY_TILE)
        return 1;
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++)
        n *= t->shape[i];
    return n;
}

static int put_type(char *buf, size_t n, const Type *t)
{
    switch (t->kind) {
    case TY_SCALAR:
        return snprintf(buf, n, "%s", sk_name(t->sk));
    case TY_PTR: {
        int k = snprintf(buf, n, "*");
        return k + put_type(buf + k, n > (size_t)k ? n - (size_t)k : 0, t->pointee);
    }
    case TY_TILE: {
        int k = put_type(buf, n, t->elem);
        for (int i = 0; i < t->rank; i++)
            k += snprintf(buf + k, n > (size_t)k ? n - (size_t)k : 0, "%s%lld", i ? ", " : "[", (long long)t->shape[i]);
        k += snprintf(buf + k, n > (size_t)k ? n - (size_t)k : 0, "]");
        return k;
    }
    }
    return 0;
}

char *ty_str(Arena *a, const TypeTab *tt, const Type *t)
{
    char buf[256];
    put_type(buf, sizeof buf, t);
    if (t->kind == TY_TILE && t->layout && tt && tt->print_layout)
        return arena_printf(a, "%s#%s", buf, tt->print_layout(a, t->layout));
    return arena_strdup(a, buf);
}

/* ---- rounding to a float kind ---- */

double fp_round(ScalarKind sk, double x)
{
    switch (sk) {
    case SK_F16:
        return (double)f16_to_f32(f64_to_f16(x));
    case SK_BF16:
        return (double)bf16_to_f32(f64_to_bf16(x));
    case SK_F32:
        return (double)(float)x;
    default:
        return x;
    }
}

static uint64_t dbits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

double fp_fma(double a, double b, double c, ScalarKind sk)
{
    if (sk == SK_F64)
        return fma(a, b, c);
    double p = a * b, s = p + c;
    if (!isfinite(s))
        return fp_round(sk, s);
    double bb = s - p, err = (p - (s - bb)) + (c - bb);
    if (err != 0 && !(dbits(s) & 1))
        s = nextafter(s, err > 0 ? INFINITY : -INFINITY); /* round to odd */
    return fp_round(sk, s);
}
