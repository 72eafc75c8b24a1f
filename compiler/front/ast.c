/* AST construction and the stable printer behind `rkc --emit=ast`.
 *
 * The printed form is one node per line, indented by depth, with the node's kind, its fields and its
 * line:col: it is what the golden tests check, so change it only with them. */
#include "compiler/front/ast.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "compiler/front/lex.h"

static const char *const kind_names[] = {
#define X(k, s) s,
    AST_KINDS(X)
#undef X
};

const char *ast_kind_name(AstKind k)
{
    return (unsigned)k < AST_NKINDS ? kind_names[k] : "?";
}

Node *ast_new(Arena *a, AstKind k, Loc loc)
{
    Node *n = ARENA_NEW(a, Node);
    n->kind = k;
    n->loc = loc;
    return n;
}

void ast_push(Arena *a, NodeList *l, Node *n)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 4;
        l->items = arena_realloc(a, l->items, sizeof(Node *) * (size_t)l->cap, sizeof(Node *) * (size_t)cap);
        l->cap = cap;
    }
    l->items[l->n++] = n;
}

/* ---- printer: an explicit buffer so that huge trees print in linear time ---- */

typedef struct Buf {
    Arena *a;
    char *p;
    size_t n, cap;
} Buf;

static void buf_put(Buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->n + n + 1)
            cap *= 2;
        b->p = arena_realloc(b->a, b->p, b->cap, cap);
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(Buf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < (int)sizeof tmp) {
        buf_put(b, tmp, (size_t)n);
        return;
    }
    char *big = arena_alloc(b->a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    buf_put(b, big, (size_t)n);
}

static void put_quoted(Buf *b, const char *s, int n)
{
    buf_put(b, "\"", 1);
    for (int i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            buf_printf(b, "\\%c", c);
        else if (c == '\n')
            buf_put(b, "\\n", 2);
        else if (c == '\t')
            buf_put(b, "\\t", 2);
        else if (c < 0x20)
            buf_printf(b, "\\x%02x", c);
        else
            buf_put(b, (const char *)&c, 1);
    }
    buf_put(b, "\"", 1);
}

static void print_node(Buf *b, SrcMgr *src, const Node *n, int indent, const char *role);

static void print_child(Buf *b, SrcMgr *src, const Node *n, int indent, const char *role)
{
    if (n)
        print_node(b, src, n, indent, role);
}

static void print_node(Buf *b, SrcMgr *src, const Node *n, int indent, const char *role)
{
    for (int i = 0; i < indent; i++)
        buf_put(b, "  ", 2);
    if (role)
        buf_printf(b, "%s: ", role);
    buf_printf(b, "%s", ast_kind_name(n->kind));
    switch (n->kind) {
    case AST_INT:
    case AST_FLOAT:
        buf_printf(b, " %s", n->str);
        break;
    case AST_BOOL:
        buf_printf(b, " %s", n->lit.i ? "true" : "false");
        break;
    case AST_STRING:
    case AST_IMPORT:
        buf_put(b, " ", 1);
        put_quoted(b, n->str, n->slen);
        break;
    case AST_UNARY:
    case AST_BINARY:
    case AST_ASSIGN:
        if (n->name)
            buf_printf(b, " %s", n->name);
        buf_printf(b, " %s", lex_token_name(n->op));
        break;
    default:
        if (n->name)
            buf_printf(b, " %s", n->name);
        break;
    }
    if (n->flags & AST_FLAG_STATIC)
        buf_put(b, " static", 7);
    if (n->flags & AST_FLAG_CONST)
        buf_put(b, " const", 6);
    SrcFile *f = src_file(src, n->loc.file);
    if (f && n->loc.file) {
        int line, col;
        src_linecol(f, n->loc.off, &line, &col);
        buf_printf(b, " <%d:%d>", line, col);
    }
    buf_put(b, "\n", 1);
    int in = indent + 1;
    switch (n->kind) {
    case AST_CAST:
        print_child(b, src, n->a, in, NULL);
        print_child(b, src, n->b, in, "type");
        return;
    case AST_CALL:
        print_child(b, src, n->a, in, "callee");
        break;
    case AST_IF:
        print_child(b, src, n->a, in, "cond");
        print_child(b, src, n->b, in, "then");
        print_child(b, src, n->c, in, "else");
        return;
    case AST_FOR:
        print_child(b, src, n->a, in, "from");
        print_child(b, src, n->b, in, "to");
        print_child(b, src, n->c, in, "step");
        print_child(b, src, n->d, in, "body");
        return;
    case AST_WHILE:
        print_child(b, src, n->a, in, "cond");
        print_child(b, src, n->b, in, "body");
        return;
    case AST_CONST:
        print_child(b, src, n->b, in, "type");
        print_child(b, src, n->a, in, "value");
        return;
    case AST_PARAM:
        print_child(b, src, n->a, in, "type");
        print_child(b, src, n->b, in, "default");
        return;
    case AST_FN:
        for (int i = 0; i < n->list.n; i++)
            print_node(b, src, n->list.items[i], in, NULL);
        print_child(b, src, n->a, in, "returns");
        print_child(b, src, n->b, in, "body");
        return;
    case AST_KERNEL:
        for (int i = 0; i < n->list2.n; i++)
            print_node(b, src, n->list2.items[i], in, NULL);
        for (int i = 0; i < n->list.n; i++)
            print_node(b, src, n->list.items[i], in, NULL);
        print_child(b, src, n->b, in, "body");
        return;
    default:
        print_child(b, src, n->a, in, NULL);
        print_child(b, src, n->b, in, NULL);
        print_child(b, src, n->c, in, NULL);
        print_child(b, src, n->d, in, NULL);
        break;
    }
    for (int i = 0; i < n->list.n; i++)
        print_node(b, src, n->list.items[i], in, NULL);
}

char *ast_print(Arena *a, SrcMgr *src, const Node *module)
{
    Buf b = {a, NULL, 0, 0};
    buf_put(&b, "", 0);
    print_node(&b, src, module, 0, NULL);
    return b.p;
}
