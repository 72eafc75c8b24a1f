/* AST construction and the stable printer behind `rkc --emit=ast`.
 *
 * The printed form is one node per line, indented by depth, with the node's kind, its fields and its
 * line:col: it is what the golden tests check, so change it only with them. */
#include "compiler/front/ast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/front/lex.h"
#include "support/strbuf.h"

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

static void put_quoted(StrBuf *b, const char *s, int n)
{
    strbuf_put(b, "\"", 1);
    for (int i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            strbuf_printf(b, "\\%c", c);
        else if (c == '\n')
            strbuf_put(b, "\\n", 2);
        else if (c == '\t')
            strbuf_put(b, "\\t", 2);
        else if (c < 0x20)
            strbuf_printf(b, "\\x%02x", c);
        else
            strbuf_put(b, (const char *)&c, 1);
    }
    strbuf_put(b, "\"", 1);
}

/* A number's value after its spelling when the two differ (`Int 0x1F = 31`, `Float .5 = 0.5`): the
 * tests see what the literal converted to. Floats print in the shortest form that reads back exactly. */
static void print_value(StrBuf *b, const Node *n)
{
    char v[64];
    if (n->kind == AST_INT) {
        snprintf(v, sizeof v, "%llu", (unsigned long long)n->lit.i);
    } else {
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(v, sizeof v, "%.*g", prec, n->lit.f);
            if (strtod(v, NULL) == n->lit.f)
                break;
        }
        if (strchr(v, 'e') && n->lit.f < 1e16 && n->lit.f > -1e16 && n->lit.f == (double)(int64_t)n->lit.f)
            snprintf(v, sizeof v, "%.0f", n->lit.f); /* 25000, not 2.5e+04 */
    }
    if (strcmp(v, n->str) != 0)
        strbuf_printf(b, " = %s", v);
}

/* Lines and columns of node locations. src_linecol finds a column by scanning its line from the start,
 * which makes printing quadratic when one long line holds many nodes (a minified or generated file: a
 * 30 KB line took 0.2 s). The printer indexes the file once instead: where each line starts, and how
 * many UTF-8 continuation bytes come before each 64-byte block, so that a column is a binary search
 * and at most 63 bytes of counting. The results are src_linecol's. */
typedef struct LineIndex {
    const SrcFile *f;
    uint32_t *starts; /* nlines entries */
    uint32_t *cont;   /* continuation bytes before block i (of 64 bytes) */
    int nlines;
} LineIndex;

static void index_file(Arena *a, LineIndex *x, const SrcFile *f)
{
    x->f = f;
    x->nlines = 1;
    for (uint32_t i = 0; i < f->len; i++)
        x->nlines += f->text[i] == '\n';
    x->starts = arena_alloc(a, sizeof(uint32_t) * (size_t)x->nlines);
    x->cont = arena_alloc(a, sizeof(uint32_t) * (f->len / 64 + 1));
    int k = 1;
    uint32_t c = 0;
    for (uint32_t i = 0; i < f->len; i++) {
        if (i % 64 == 0)
            x->cont[i / 64] = c;
        c += ((unsigned char)f->text[i] & 0xC0) == 0x80;
        if (f->text[i] == '\n')
            x->starts[k++] = i + 1;
    }
    if (f->len % 64 == 0)
        x->cont[f->len / 64] = c;
}

static uint32_t cont_before(const LineIndex *x, uint32_t off)
{
    uint32_t c = x->cont[off / 64];
    for (uint32_t i = off & ~63u; i < off; i++)
        c += ((unsigned char)x->f->text[i] & 0xC0) == 0x80;
    return c;
}

static void line_col(Arena *a, LineIndex *x, const SrcFile *f, uint32_t off, int *line, int *col)
{
    if (x->f != f)
        index_file(a, x, f);
    if (off > f->len)
        off = f->len;
    int lo = 0, hi = x->nlines - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (x->starts[mid] <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    uint32_t s = x->starts[lo];
    *line = lo + 1;
    *col = 1 + (int)((off - s) - (cont_before(x, off) - cont_before(x, s)));
}

/* One line: indentation, role, kind, fields, flags and line:col. */
static void print_line(StrBuf *b, SrcMgr *src, LineIndex *x, const Node *n, int indent, const char *role)
{
    strbuf_fill(b, ' ', 2 * (size_t)indent);
    if (role)
        strbuf_printf(b, "%s: ", role);
    strbuf_printf(b, "%s", ast_kind_name(n->kind));
    switch (n->kind) {
    case AST_INT:
    case AST_FLOAT:
        strbuf_printf(b, " %s", n->str);
        print_value(b, n);
        break;
    case AST_BOOL:
        strbuf_printf(b, " %s", n->lit.i ? "true" : "false");
        break;
    case AST_STRING:
    case AST_IMPORT:
        strbuf_put(b, " ", 1);
        put_quoted(b, n->str, n->slen);
        break;
    case AST_UNARY:
    case AST_BINARY:
    case AST_ASSIGN:
        if (n->name)
            strbuf_printf(b, " %s", n->name);
        strbuf_printf(b, " %s", lex_token_name(n->op));
        break;
    default:
        if (n->name)
            strbuf_printf(b, " %s", n->name);
        break;
    }
    if (n->flags & AST_FLAG_STATIC)
        strbuf_put(b, " static", 7);
    if (n->flags & AST_FLAG_CONST)
        strbuf_put(b, " const", 6);
    SrcFile *f = src_file(src, n->loc.file);
    if (f && n->loc.file) {
        int line, col;
        line_col(b->a, x, f, n->loc.off, &line, &col);
        strbuf_printf(b, " <%d:%d>", line, col);
    }
    strbuf_put(b, "\n", 1);
}

/* A node's children in print order, as up to six segments: one child with its role, or a list. */
typedef struct Seg {
    const Node *one;
    const char *role;
    const NodeList *list;
} Seg;

static int segments(const Node *n, Seg *s)
{
    int k = 0;
#define ONE(x, r) (s[k++] = (Seg){(x), (r), NULL})
#define LIST(l) (s[k++] = (Seg){NULL, NULL, &(l)})
    switch (n->kind) {
    case AST_CAST:
        ONE(n->a, NULL), ONE(n->b, "type");
        break;
    case AST_CALL:
        ONE(n->a, "callee"), LIST(n->list);
        break;
    case AST_IF:
        ONE(n->a, "cond"), ONE(n->b, "then"), ONE(n->c, "else");
        break;
    case AST_FOR:
        ONE(n->a, "from"), ONE(n->b, "to"), ONE(n->c, "step"), ONE(n->d, "body");
        break;
    case AST_WHILE:
        ONE(n->a, "cond"), ONE(n->b, "body");
        break;
    case AST_LET_TUPLE:
        LIST(n->list), ONE(n->a, "value");
        break;
    case AST_CONST:
        ONE(n->b, "type"), ONE(n->a, "value");
        break;
    case AST_PARAM:
        ONE(n->a, "type"), ONE(n->b, "default");
        break;
    case AST_FN:
        LIST(n->list), ONE(n->a, "returns"), ONE(n->b, "body");
        break;
    case AST_KERNEL:
        LIST(n->list2), LIST(n->list), ONE(n->b, "body");
        break;
    default:
        ONE(n->a, NULL), ONE(n->b, NULL), ONE(n->c, NULL), ONE(n->d, NULL), LIST(n->list);
        break;
    }
#undef ONE
#undef LIST
    return k;
}

/* Depth-first with an explicit stack, so that printing never recurses however deep the tree is. */
typedef struct Item {
    const Node *n;
    int indent;
    const char *role;
} Item;

typedef struct Stack {
    Arena *a;
    Item *items;
    size_t n, cap;
} Stack;

static void push(Stack *st, const Node *n, int indent, const char *role)
{
    if (!n)
        return;
    if (st->n == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 256;
        st->items = arena_realloc(st->a, st->items, sizeof(Item) * st->cap, sizeof(Item) * cap);
        st->cap = cap;
    }
    st->items[st->n++] = (Item){n, indent, role};
}

char *ast_print(Arena *a, SrcMgr *src, const Node *module)
{
    StrBuf b;
    strbuf_init(&b, a);
    strbuf_put(&b, "", 0);
    Stack st = {a, NULL, 0, 0};
    LineIndex x = {0};
    push(&st, module, 0, NULL);
    while (st.n) {
        Item it = st.items[--st.n];
        print_line(&b, src, &x, it.n, it.indent, it.role);
        Seg seg[6];
        int ns = segments(it.n, seg);
        for (int i = ns - 1; i >= 0; i--) {
            if (seg[i].list)
                for (int j = seg[i].list->n - 1; j >= 0; j--)
                    push(&st, seg[i].list->items[j], it.indent + 1, NULL);
            else
                push(&st, seg[i].one, it.indent + 1, seg[i].role);
        }
    }
    return b.p;
}
