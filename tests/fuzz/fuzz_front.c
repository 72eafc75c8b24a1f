/* libFuzzer target over the front end: any byte string must lex (as `rkc --emit=tokens` does) and parse
 * to an AST or to located diagnostics, without a crash, a leak, undefined behaviour or a hang. An
 * accepted tree must respect the parser's depth limit, since later passes rely on it. Run by
 * scripts/fuzz.sh with the dictionary tests/fuzz/tile.dict. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "compiler/front/lex.h"
#include "compiler/front/parse.h"

/* Depth of the deepest node (recursive on purpose: the parser promises this cannot overflow). */
static int depth(const Node *n)
{
    if (!n)
        return 0;
    int d = 0;
    const Node *kids[4] = {n->a, n->b, n->c, n->d};
    for (int i = 0; i < 4; i++) {
        int k = depth(kids[i]);
        d = k > d ? k : d;
    }
    for (int i = 0; i < n->list.n; i++) {
        int k = depth(n->list.items[i]);
        d = k > d ? k : d;
    }
    for (int i = 0; i < n->list2.n; i++) {
        int k = depth(n->list2.items[i]);
        d = k > d ? k : d;
    }
    return d + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
    SrcFile *f = src_add(&src, "fuzz.tile", (const char *)data, size);
    if (f) {
        Lexer lx;
        Diags lexdiags;
        diags_init(&lexdiags, &arena, &src);
        lex_init(&lx, f, &lexdiags);
        for (;;) {
            Token t = lex_next(&lx);
            if (t.kind == TOK_LEX_ERROR) {
                if (lexdiags.nerrors != 1)
                    __builtin_trap(); /* a lexical error is reported exactly once */
                break;
            }
            if (t.off + t.len > f->len || strcmp(lex_token_id(t.kind), "?") == 0)
                __builtin_trap(); /* a token outside the text, or of no known kind */
            if (t.kind == TOK_EOF)
                break;
        }
        Node *m = parse_module(&arena, &strs, &diags, f);
        if (m) {
            (void)ast_print(&arena, &src, m);
            if (depth(m) > PARSE_MAX_DEPTH)
                __builtin_trap();
        }
        for (int i = 0; i < diags.n; i++)
            (void)diag_render(&arena, &diags.items[i]);
        if (!m && diags.nerrors == 0)
            __builtin_trap(); /* a failed parse must say why */
    }
    arena_free(&arena);
    return 0;
}
