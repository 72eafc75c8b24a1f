/* libFuzzer target over the tile IR's text form: any byte string must parse to a module or to located
 * diagnostics, without a crash, a leak, undefined behaviour or a hang. What parses must print, parse
 * again and print to the same text; the verifier must not crash on it; and a module that verifies
 * must still verify after tir_canonicalize. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "compiler/tir/tir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static Module *parse(Arena *a, SrcMgr *src, Diags *d, StrTab *s, TypeTab *t, const char *text, size_t n)
{
    SrcFile *f = src_add(src, "fuzz.tir", text, n);
    return f ? tir_parse(a, t, s, d, f) : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Arena arena;
    arena_init(&arena, arena_default_allocator);
    SrcMgr src;
    src_init(&src, &arena);
    Diags diags;
    diags_init(&diags, &arena, &src);
    StrTab strs;
    strtab_init(&strs, &arena);
    TypeTab types;
    typetab_init(&types, &arena);
    Module *m = parse(&arena, &src, &diags, &strs, &types, (const char *)data, size);
    if (!m && diags.nerrors == 0)
        __builtin_trap(); /* a failed parse must say why */
    if (m) {
        for (unsigned flags = 0; flags <= TIR_PRINT_LOCS; flags += TIR_PRINT_LOCS) {
            char *t1 = tir_print_module(&arena, m, flags);
            Module *m2 = parse(&arena, &src, &diags, &strs, &types, t1, strlen(t1));
            if (!m2 || strcmp(tir_print_module(&arena, m2, flags), t1) != 0)
                __builtin_trap(); /* print -> parse -> print must be the identity */
        }
        if (tir_verify(m, &diags)) {
            for (int i = 0; i < m->nfuncs; i++)
                tir_canonicalize(m->funcs[i]);
            if (!tir_verify(m, &diags))
                __builtin_trap(); /* canonicalisation must keep the IR valid */
            (void)tir_print_module(&arena, m, 0);
        }
    }
    for (int i = 0; i < diags.n; i++)
        (void)diag_render(&arena, &diags.items[i]);
    arena_free(&arena);
    return 0;
}
