/* Types of the tile IR, interned: equal types are equal pointers.
 *
 * A type is a scalar (bool, integers, floats), a pointer to a scalar in global memory, or a tile:
 * an element type (scalar or pointer) and a shape of 1 to 4 power-of-two dimensions. After layout
 * assignment a tile type also carries a layout (Layout, defined by the layout module; opaque here),
 * as Triton's tensor types carry an encoding. */
#ifndef RK_TYPE_H
#define RK_TYPE_H

#include <stdbool.h>
#include <stdint.h>

#include "support/arena.h"

typedef enum ScalarKind {
    SK_BOOL,
    SK_I8,
    SK_I16,
    SK_I32,
    SK_I64,
    SK_U8,
    SK_U16,
    SK_U32,
    SK_U64,
    SK_F16,
    SK_BF16,
    SK_F32,
    SK_F64,
    SK_COUNT
} ScalarKind;

typedef enum TypeKind { TY_SCALAR, TY_PTR, TY_TILE } TypeKind;

enum { TIR_MAX_RANK = 4 };

typedef struct Layout Layout;
typedef struct Type Type;

struct Type {
    TypeKind kind;
    ScalarKind sk;       /* TY_SCALAR */
    const Type *pointee; /* TY_PTR: a scalar type */
    const Type *elem;    /* TY_TILE: a scalar or pointer type */
    int rank;            /* TY_TILE: 1..4 */
    int64_t shape[TIR_MAX_RANK];
    const Layout *layout; /* TY_TILE after layout assignment; NULL before */
    uint32_t id;          /* intern order, for hashing */
};

typedef char *(*LayoutPrinter)(Arena *a, const Layout *l);
/* Reads the layout text `s` (what follows '#', NUL-terminated) for a tile of the given shape; NULL
 * with *why set when it is not one. */
typedef const Layout *(*LayoutParser)(void *ud, const char *s, int rank, const int64_t *shape, const char **why);

typedef struct TypeTab {
    Arena *arena;
    LayoutPrinter print_layout; /* set by the layout module; NULL prints no layout */
    LayoutParser parse_layout;  /* set by the layout module (lay_attach_text); NULL: layouts are an error */
    void *parse_layout_ud;
    const Type *scalars[SK_COUNT];
    Type **slots; /* hash set of pointer and tile types */
    uint32_t cap, n, next_id;
} TypeTab;

void typetab_init(TypeTab *t, Arena *a);
const Type *ty_scalar(TypeTab *t, ScalarKind sk);
const Type *ty_ptr(TypeTab *t, const Type *pointee);
/* A tile of `elem` (scalar or pointer) with the given shape and layout (NULL before layouts). */
const Type *ty_tile(TypeTab *t, const Type *elem, int rank, const int64_t *shape, const Layout *layout);
/* The same type with another element type / shape / layout (scalars: the element itself). */
const Type *ty_with_elem(TypeTab *t, const Type *ty, const Type *elem);
const Type *ty_with_layout(TypeTab *t, const Type *ty, const Layout *layout);

/* Queries. "elem" of a scalar or pointer is the type itself. */
const Type *ty_elem(const Type *t);
static inline bool ty_is_tile(const Type *t) { return t->kind == TY_TILE; }
bool ty_is_int(const Type *t);    /* element is an integer (not bool) */
bool ty_is_signed(const Type *t); /* element is a signed integer */
bool ty_is_float(const Type *t);  /* element is a float */
bool ty_is_bool(const Type *t);
bool ty_is_ptr(const Type *t); /* element is a pointer */
int ty_bits(const Type *t);    /* element width in bits; pointers 64 */
int64_t ty_numel(const Type *t); /* elements of a tile; 1 for scalars */
int sk_bits(ScalarKind sk);
bool sk_is_int(ScalarKind sk);
bool sk_is_signed(ScalarKind sk);
bool sk_is_float(ScalarKind sk);
const char *sk_name(ScalarKind sk);
/* Parses a scalar type name ("f32"); -1 when it is not one. */
int sk_from_name(const char *name);
/* x rounded to the float kind sk (SK_F16, SK_BF16, SK_F32 or SK_F64; support/fp16.h's formats),
 * returned as a double; x itself for any other kind. */
double fp_round(ScalarKind sk, double x);
/* a * b + c rounded once to the float kind sk, the operands being values of that kind. */
double fp_fma(double a, double b, double c, ScalarKind sk);

/* "f32", "*bf16", "f32[64, 32]"; a tile's layout follows as "#<layout>" when tt can print it. */
char *ty_str(Arena *a, const TypeTab *tt, const Type *t);

#endif
