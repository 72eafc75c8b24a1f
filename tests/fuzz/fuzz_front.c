/* libFuzzer target over the front end: any byte string must lex and parse to an AST or to located
 * diagnostics, without a crash, a leak, undefined behaviour or a hang. */
#include <stddef.h>
#include <stdint.h>

#include "compiler/front/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Arena arena;
    arena_init(&arena, default_allocator);
    SrcMgr src;
    src_init(&src, &arena);
    Diags diags;
    diags_init(&diags, &arena, &src);
    StrTab strs;
    strtab_init(&strs, &arena);
    SrcFile *f = src_add(&src, "fuzz.tile", (const char *)data, size);
    if (f) {
        Node *m = parse_module(&arena, &strs, &diags, f);
        if (m)
            (void)ast_print(&arena, &src, m);
        for (int i = 0; i < diags.n; i++)
            (void)diag_render(&arena, &diags.items[i]);
        if (!m && diags.nerrors == 0)
            __builtin_trap(); /* a failed parse must say why */
    }
    arena_free(&arena);
    return 0;
}
