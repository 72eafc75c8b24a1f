/* The parser's entry point: one source file to one AST module. */
#ifndef RK_PARSE_H
#define RK_PARSE_H

#include "compiler/front/ast.h"
#include "support/diag.h"
#include "support/strtab.h"

/* Limits that keep every walk of an accepted tree within the C stack: a recursive walk over a module
 * returned by parse_module never goes deeper than PARSE_MAX_DEPTH nodes (the module is depth 1), and an
 * expression is at most PARSE_MAX_EXPR_DEPTH deep. Brackets open at once and lemon's stack are bounded
 * too. Going past any limit is a located error, never a crash. */
enum {
    PARSE_MAX_DEPTH = 1200,      /* any node of an accepted tree */
    PARSE_MAX_EXPR_DEPTH = 1000, /* an expression, from its root to its deepest leaf */
    PARSE_MAX_NESTING = 256,     /* '(', '[' and '{' open at once */
    PARSE_STACK_DEPTH = 4000,    /* lemon's stack (%stack_size in grammar/parser.y) */
};

/* Returns the module, or NULL after reporting the first lexical or syntax error. */
Node *parse_module(Arena *a, StrTab *strs, Diags *diags, SrcFile *f);

#endif
