/* Shared scaffolding of the tile IR unit tests (test_tir_*.c): a context with everything the IR
 * needs, type shorthands for the builder, parsing from a string, and CHECK macros that count
 * failures instead of stopping, so that one run shows every broken case. */
#ifndef RK_TEST_TIR_UTIL_H
#define RK_TEST_TIR_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/tir/tir.h"

static int failures;

#define CHECK(c)                                                                                                 \
    do {                                                                                                         \
        if (!(c)) {                                                                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);                                \
            failures++;                                                                                          \
        }                                                                                                        \
    } while (0)

#define CHECK_STR(got, want) check_str(__FILE__, __LINE__, (got), (want))

static inline void check_str(const char *file, int line, const char *got, const char *want)
{
    if (got && want && strcmp(got, want) == 0)
        return;
    fprintf(stderr, "%s:%d: strings differ\n--- got:\n%s\n--- want:\n%s\n---\n", file, line, got ? got : "(null)",
            want ? want : "(null)");
    failures++;
}

typedef struct Ctx {
    Arena arena;
    SrcMgr src;
    Diags diags;
    StrTab strs;
    TypeTab types;
} Ctx;

static inline Ctx *ctx_new(void)
{
    Ctx *c = calloc(1, sizeof *c);
    arena_init(&c->arena, arena_default_allocator);
    src_init(&c->src, &c->arena);
    diags_init(&c->diags, &c->arena, &c->src);
    strtab_init(&c->strs, &c->arena);
    typetab_init(&c->types, &c->arena);
    return c;
}

static inline void ctx_free(Ctx *c)
{
    arena_free(&c->arena);
    free(c);
}

static inline void ctx_clear_diags(Ctx *c) { diags_init(&c->diags, &c->arena, &c->src); }

static inline Module *parse_str(Ctx *c, const char *text)
{
    SrcFile *f = src_add(&c->src, "t.tir", text, strlen(text));
    return tir_parse(&c->arena, &c->types, &c->strs, &c->diags, f);
}

/* Every diagnostic as "line:col: message" (or just the message), one per line. */
static inline const char *diag_text(Ctx *c)
{
    char *s = arena_strdup(&c->arena, "");
    for (int i = 0; i < c->diags.n; i++) {
        const Diag *g = &c->diags.items[i];
        s = g->file ? arena_printf(&c->arena, "%s%d:%d: %s\n", s, g->line, g->col, g->msg)
                    : arena_printf(&c->arena, "%s%s\n", s, g->msg);
    }
    return s;
}

/* ---- type shorthands ---- */

static TypeTab *TT;
static inline const Type *S(ScalarKind k) { return ty_scalar(TT, k); }
static inline const Type *PT(ScalarKind k) { return ty_ptr(TT, S(k)); }
static inline const Type *T1(const Type *e, int64_t a) { return ty_tile(TT, e, 1, (int64_t[]){a}, NULL); }
static inline const Type *T2(const Type *e, int64_t a, int64_t b) { return ty_tile(TT, e, 2, (int64_t[]){a, b}, NULL); }

static inline Value *named(Value *v, Ctx *c, const char *name)
{
    v->name = str_intern0(&c->strs, name);
    return v;
}

#endif
