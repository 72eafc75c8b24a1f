/* Parser support: literal conversion, syntax error messages, and the token loop that drives lemon. */
#include "compiler/front/parse_internal.h"

#include <stdio.h>

#include "parser.h"

/* Declared by lemon in parser.c. */
void ParseInit(void *parser);
void Parse(void *parser, int major, Token minor, Parser *P);
void ParseFinalize(void *parser);
size_t parse_engine_size(void);

static void fail(Parser *P, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(Parser *P, Loc loc, const char *fmt, ...)
{
    if (P->failed)
        return;
    P->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    diag_vat(P->diags, DIAG_ERROR, loc, fmt, ap);
    va_end(ap);
}

void parse_fail_depth(Parser *P, Node *n)
{
    fail(P, n->loc, "expression nested too deeply (more than %d levels)", PARSE_MAX_EXPR_DEPTH);
}

void parse_too_deep(Parser *P)
{
    fail(P, loc_make(P->file->id, 0), "program nested too deeply for the parser");
}

/* Copies a literal's spelling without '_' separators. */
static char *digits(Parser *P, Token t)
{
    char *s = arena_alloc(P->arena, t.len + 1);
    int k = 0;
    for (uint32_t i = 0; i < t.len; i++) {
        char c = P->file->text[t.off + i];
        if (c != '_')
            s[k++] = c;
    }
    s[k] = 0;
    return s;
}

Node *mk_int(Parser *P, Token t)
{
    Node *n = mk(P, AST_INT, t);
    n->depth = 1;
    char *s = digits(P, t);
    n->str = arena_strndup(P->arena, P->file->text + t.off, t.len);
    int base = 10;
    const char *p = s;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        base = 16, p = s + 2;
    else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
        base = 2, p = s + 2;
    uint64_t v = 0;
    for (; *p; p++) {
        int d = *p >= 'a' ? *p - 'a' + 10 : *p >= 'A' ? *p - 'A' + 10 : *p - '0';
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) {
            fail(P, n->loc, "integer literal '%s' is too large (the largest is 18446744073709551615)", n->str);
            break;
        }
        v = v * (uint64_t)base + (uint64_t)d;
    }
    n->lit.i = v;
    return n;
}

Node *mk_float(Parser *P, Token t)
{
    Node *n = mk(P, AST_FLOAT, t);
    n->depth = 1;
    n->str = arena_strndup(P->arena, P->file->text + t.off, t.len);
    if (t.kind == TOK_INF)
        n->lit.f = __builtin_inf();
    else if (t.kind == TOK_NAN)
        n->lit.f = __builtin_nan("");
    else
        n->lit.f = strtod(digits(P, t), NULL);
    return n;
}

/* The lexer has checked the escapes; this decodes them. */
void set_string(Parser *P, Node *n, Token t)
{
    const char *s = P->file->text + t.off + 1;
    uint32_t len = t.len - 2;
    char *out = arena_alloc(P->arena, len + 1);
    int k = 0;
    for (uint32_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '\\' && i + 1 < len) {
            char e = s[++i];
            c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
        }
        out[k++] = c;
    }
    out[k] = 0;
    n->str = out;
    n->slen = k;
    n->depth = 1;
}

/* Token groups that read better as one word in "expected ..." messages. */
static const int expr_start[] = {TOK_IDENT, TOK_INT,   TOK_FLOAT, TOK_STRING, TOK_LPAREN, TOK_LBRACKET, TOK_MINUS,
                                 TOK_BANG,  TOK_TILDE, TOK_TRUE,  TOK_FALSE,  TOK_NONE,   TOK_INF,      TOK_NAN, 0};
static const int stmt_start[] = {TOK_LET,   TOK_VAR,      TOK_IF,     TOK_FOR, TOK_STATIC,
                                 TOK_WHILE, TOK_CONTINUE, TOK_RETURN, TOK_BREAK, 0};
static const int item_start[] = {TOK_IMPORT, TOK_CONST, TOK_FN, TOK_KERNEL, TOK_AT, 0};
static const int operators[] = {TOK_OROR, TOK_ANDAND, TOK_PIPE, TOK_CARET,   TOK_AMP,  TOK_EQ,     TOK_NE,
                                TOK_LT,   TOK_LE,     TOK_GT,   TOK_GE,      TOK_SHL,  TOK_SHR,    TOK_PLUS,
                                TOK_MINUS, TOK_STAR,  TOK_SLASH, TOK_PERCENT, TOK_AS,  TOK_LPAREN, TOK_LBRACKET, 0};
static const int comparisons[] = {TOK_LT, TOK_LE, TOK_GT, TOK_GE, TOK_EQ, TOK_NE, 0};

static int group_in(const char *ok, const int *g)
{
    for (int i = 0; g[i]; i++)
        if (!ok[g[i]])
            return 0;
    return 1;
}

static void group_clear(char *ok, const int *g)
{
    for (int i = 0; g[i]; i++)
        ok[g[i]] = 0;
}

void parse_syntax_error(Parser *P, int major, const Token *minor, void *engine, int (*probe)(int, void *))
{
    char ok[256] = {0};
    int ntok = 0;
    for (int t = 1; t < 256; t++) {
        int r = probe(t, engine);
        if (r < 0)
            break;
        ok[t] = (char)r;
        ntok = t + 1;
    }
    const char *words[40];
    int nw = 0;
    if (group_in(ok, item_start)) {
        group_clear(ok, item_start);
        words[nw++] = "a declaration";
    }
    if (group_in(ok, stmt_start)) {
        group_clear(ok, stmt_start);
        group_clear(ok, expr_start);
        words[nw++] = "a statement";
    }
    if (group_in(ok, expr_start)) {
        group_clear(ok, expr_start);
        words[nw++] = "an expression";
    }
    /* After an expression, almost any binary operator may follow: say so in a word. Comparisons are
     * left out of that test because they are refused after a comparison (they do not chain). */
    int chained = 0;
    for (int i = 0; comparisons[i]; i++)
        chained |= major == comparisons[i];
    int ops_ok = 1;
    for (int i = 0; operators[i]; i++) {
        int is_cmp = 0;
        for (int j = 0; comparisons[j]; j++)
            is_cmp |= operators[i] == comparisons[j];
        if (!is_cmp && !ok[operators[i]])
            ops_ok = 0;
    }
    int operator_word = 0;
    if (ops_ok) {
        group_clear(ok, operators);
        operator_word = 1;
    }
    int extra = 0;
    for (int t = 1; t < ntok; t++)
        if (ok[t]) {
            if (nw < 8)
                words[nw++] = lex_token_name(t);
            else
                extra++;
        }
    if (operator_word && nw < 8)
        words[nw++] = "an operator";
    char expected[512];
    int k = 0;
    expected[0] = 0;
    for (int i = 0; i < nw && k < (int)sizeof expected - 64; i++)
        k += snprintf(expected + k, sizeof expected - (size_t)k, "%s%s", i == 0 ? "" : i == nw - 1 && !extra ? " or " : ", ",
                      words[i]);
    if (extra)
        snprintf(expected + k, sizeof expected - (size_t)k, " or %d more", extra);

    Loc loc = loc_make(P->file->id, minor->off);
    char got[96];
    if (major == TOK_EOF)
        snprintf(got, sizeof got, "end of file");
    else if (major == TOK_IDENT || major == TOK_INT || major == TOK_FLOAT)
        snprintf(got, sizeof got, "%s '%.*s'", lex_token_name(major), minor->len > 40 ? 40 : (int)minor->len,
                 P->file->text + minor->off);
    else
        snprintf(got, sizeof got, "%s", lex_token_name(major));
    if (chained && operator_word)
        fail(P, loc, "unexpected %s; comparisons do not chain: write (a < b) & (b < c)", got);
    else if (nw)
        fail(P, loc, "unexpected %s; expected %s", got, expected);
    else
        fail(P, loc, "unexpected %s", got);
}

Node *parse_module(Arena *a, StrTab *strs, Diags *diags, SrcFile *f)
{
    Parser P = {a, strs, diags, f, NULL, 0, NULL, 0};
    P.module = ast_new(a, AST_MODULE, loc_make(f->id, 0));
    void *engine = arena_alloc(a, parse_engine_size());
    ParseInit(engine);
    Lexer lx;
    lex_init(&lx, f, diags);
    for (;;) {
        Token t = lex_next(&lx);
        if (t.kind == TOK_LEX_ERROR) {
            P.failed = 1;
            break;
        }
        parse_snapshot(engine, &P);
        Parse(engine, t.kind, t, &P);
        if (P.failed || t.kind == TOK_EOF)
            break;
    }
    ParseFinalize(engine);
    return P.failed ? NULL : P.module;
}
