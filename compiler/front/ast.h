/* The abstract syntax tree.
 *
 * One node struct for every construct, arena-owned, each with its location. Children are named by
 * role through the accessors below rather than by a union per kind, which keeps the parser actions
 * and the printer short. Identifiers are interned (compare with ==). */
#ifndef RK_AST_H
#define RK_AST_H

#include <stdint.h>

#include "support/arena.h"
#include "support/source.h"

#define AST_KINDS(X)                                                                                         \
    /* expressions */                                                                                        \
    X(INT, "Int")             /* lit.i; str = spelling */                                                     \
    X(FLOAT, "Float")         /* lit.f; str = spelling (inf and nan included) */                             \
    X(BOOL, "Bool")           /* lit.i */                                                                    \
    X(NONE, "None")                                                                                           \
    X(STRING, "String")       /* str, slen: the decoded bytes */                                             \
    X(NAME, "Name")           /* name */                                                                     \
    X(UNARY, "Unary")         /* op; a */                                                                    \
    X(BINARY, "Binary")       /* op; a, b */                                                                 \
    X(CAST, "Cast")           /* a as type(b) */                                                             \
    X(CALL, "Call")           /* a(callee) list(args: exprs and NAMED) */                                     \
    X(NAMED, "Named")         /* name = a (named argument) */                                                \
    X(INDEX, "Index")         /* a[list] */                                                                  \
    X(SLICE, "Slice")         /* ':' inside an index */                                                      \
    X(LIST, "List")           /* [list] */                                                                   \
    X(DICT, "Dict")           /* {list of ENTRY} */                                                          \
    X(ENTRY, "Entry")         /* name: a */                                                                  \
    X(TUPLE, "Tuple")         /* (list), two or more */                                                      \
    /* types */                                                                                              \
    X(TYPE_NAME, "TypeName")  /* name */                                                                     \
    X(TYPE_PTR, "TypePtr")    /* *a */                                                                       \
    X(TYPE_TILE, "TypeTile")  /* name[list] */                                                               \
    X(TYPE_TUPLE, "TypeTuple")/* (list) */                                                                   \
    /* statements */                                                                                         \
    X(LET, "Let")             /* name = a */                                                                 \
    X(VAR, "Var")             /* name = a */                                                                 \
    X(LET_TUPLE, "LetTuple")  /* list(NAME...) = a */                                                        \
    X(ASSIGN, "Assign")       /* name op= a; op is '=' or the compound operator */                           \
    X(EXPR_STMT, "ExprStmt")  /* a */                                                                        \
    X(IF, "If")               /* if a then b(BLOCK) else c(BLOCK or IF, may be NULL) */                       \
    X(FOR, "For")             /* name in a .. b step c(NULL) body d; flags & AST_FLAG_STATIC */                   \
    X(WHILE, "While")         /* while a body b */                                                           \
    X(BREAK, "Break")                                                                                         \
    X(CONTINUE, "Continue")                                                                                   \
    X(RETURN, "Return")       /* a (NULL for a bare return) */                                               \
    X(BLOCK, "Block")         /* list of statements */                                                       \
    /* declarations */                                                                                       \
    X(IMPORT, "Import")       /* str */                                                                      \
    X(CONST, "Const")         /* name (: type b) = a */                                                      \
    X(PARAM, "Param")         /* name: type a (may be NULL), default b; flags & AST_FLAG_CONST */                 \
    X(FN, "Fn")               /* name list(params) -> a(type, may be NULL) body b */                         \
    X(KERNEL, "Kernel")       /* name list(params) body b; list2(attrs) */                                   \
    X(ATTR, "Attr")           /* @name(list of args) */                                                      \
    X(MODULE, "Module")       /* list of items */

typedef enum AstKind {
#define X(k, s) AST_##k,
    AST_KINDS(X)
#undef X
    AST_NKINDS
} AstKind;

enum { AST_FLAG_STATIC = 1, AST_FLAG_CONST = 2 };

typedef struct Node Node;

typedef struct NodeList {
    Node **items;
    int n, cap;
} NodeList;

struct Node {
    AstKind kind;
    Loc loc;
    int op;    /* operator: a Tok value (TOK_PLUS, ...), for UNARY, BINARY, ASSIGN */
    int flags; /* AST_STATIC, AST_CONST */
    int depth; /* nesting depth of an expression (bounded by the parser) */
    const char *name;
    Node *a, *b, *c, *d;
    NodeList list, list2;
    union {
        uint64_t i;
        double f;
    } lit;
    const char *str; /* spelling of numbers; decoded bytes of strings */
    int slen;
};

const char *ast_kind_name(AstKind k);
Node *ast_new(Arena *a, AstKind k, Loc loc);
void ast_push(Arena *a, NodeList *l, Node *n);

/* The stable text form used by `rkc --emit=ast` and the golden tests. */
char *ast_print(Arena *a, SrcMgr *src, const Node *module);

#endif
