/* What the lemon-generated parser's actions need: the parser state and node constructors.
 * Included only by the generated parser.c. */
#ifndef RK_PARSE_INTERNAL_H
#define RK_PARSE_INTERNAL_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/front/lex.h"
#include "compiler/front/parse.h"

typedef struct Parser {
    Arena *arena;
    StrTab *strs;
    Diags *diags;
    SrcFile *file;
    Node *module;
    int failed;
    unsigned short *snap; /* lemon's state stack before the token of a syntax error (parse_snapshot) */
    int snap_top;
    int syntax_error;     /* a syntax error was noted at err_tok (err_kind) and is still to be explained */
    int err_kind;
    Token err_tok;
    Token tok, prev;      /* the token being parsed and the one before it */
    int prev2_kind;       /* the kind of the token before prev */
    int unary_run;        /* consecutive '-', '!', '~' tokens up to tok */
    int nopen;            /* brackets open before tok; the innermost PARSE_MAX_NESTING are in open[] */
    Token open[PARSE_MAX_NESTING];
} Parser;

static inline Loc loc_of(Parser *P, Token t)
{
    return loc_make(P->file->id, t.off);
}

static inline Node *mk_at(Parser *P, AstKind k, Loc loc)
{
    return ast_new(P->arena, k, loc);
}

static inline Node *mk(Parser *P, AstKind k, Token t)
{
    return ast_new(P->arena, k, loc_of(P, t));
}

/* A temporary node that only carries a list while a rule builds it. */
static inline Node *mk_list(Parser *P)
{
    return ast_new(P->arena, AST_BLOCK, loc_make(P->file->id, 0));
}

static inline const char *ident(Parser *P, Token t)
{
    return str_intern(P->strs, P->file->text + t.off, t.len);
}

static inline Node *mk_name(Parser *P, Token t)
{
    Node *n = mk(P, AST_NAME, t);
    n->name = ident(P, t);
    n->depth = 1;
    return n;
}

void parse_fail_depth(Parser *P, Node *n);

static inline void set_depth(Parser *P, Node *n, const Node *a, const Node *b)
{
    int d = 0;
    if (a && a->depth > d)
        d = a->depth;
    if (b && b->depth > d)
        d = b->depth;
    n->depth = d + 1;
    if (n->depth > PARSE_MAX_EXPR_DEPTH)
        parse_fail_depth(P, n);
}

static inline void set_depth_list(Parser *P, Node *n, const Node *a, const NodeList *l)
{
    int d = a ? a->depth : 0;
    for (int i = 0; i < l->n; i++)
        if (l->items[i]->depth > d)
            d = l->items[i]->depth;
    n->depth = d + 1;
    if (n->depth > PARSE_MAX_EXPR_DEPTH)
        parse_fail_depth(P, n);
}

static inline Node *mk_bin(Parser *P, Token op, Node *a, Node *b)
{
    Node *n = mk(P, AST_BINARY, op);
    n->op = op.kind;
    n->a = a;
    n->b = b;
    set_depth(P, n, a, b);
    return n;
}

static inline Node *mk_un(Parser *P, Token op, Node *a)
{
    Node *n = mk(P, AST_UNARY, op);
    n->op = op.kind;
    n->a = a;
    set_depth(P, n, a, NULL);
    return n;
}

static inline Node *mk_tuple(Parser *P, Token t, Node *first, Node *rest)
{
    Node *n = mk(P, AST_TUPLE, t);
    ast_push(P->arena, &n->list, first);
    for (int i = 0; i < rest->list.n; i++)
        ast_push(P->arena, &n->list, rest->list.items[i]);
    set_depth_list(P, n, NULL, &n->list);
    return n;
}

Node *parse_mk_int(Parser *P, Token t);
Node *parse_mk_float(Parser *P, Token t);
void parse_set_string(Parser *P, Node *n, Token t);
void parse_note_syntax_error(Parser *P, int major, Token minor);
void parse_snapshot(void *engine, Parser *P);
int parse_expected(int tok, Parser *P);
void parse_too_deep(Parser *P, int stack_depth);

#endif
