/* The parser's entry point: one source file to one AST module. */
#ifndef RK_PARSE_H
#define RK_PARSE_H

#include "compiler/front/ast.h"
#include "runtime/support/diag.h"
#include "runtime/support/strtab.h"

enum {
    PARSE_MAX_EXPR_DEPTH = 1000, /* deeper expressions are an error, not a stack overflow later */
};

/* Returns the module, or NULL after reporting the first lexical or syntax error. */
Node *parse_module(Arena *a, StrTab *strs, Diags *diags, SrcFile *f);

#endif
