/* Parser support: literal conversion, syntax error messages, the limits that keep every accepted tree
 * shallow enough to walk recursively, and the token loop that drives lemon. */
#include "compiler/front/parse_internal.h"

#include <stdio.h>

#include "parser.h"

/* Defined in parser.c, by lemon and by parse_driver.inc. */
void parse_lemonInit(void *parser);
void parse_lemon(void *parser, int major, Token minor, Parser *P);
void parse_lemonFinalize(void *parser);
int parse_stack_height(void *engine);
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

/* Lemon's stack is full: what is left after the limits of check_nesting, such as a very long chain of
 * `else if` or of '*' in a type. */
void parse_too_deep(Parser *P, int stack_depth)
{
    fail(P, loc_of(P, P->tok), "program nested too deeply (the parser's stack of %d entries is full)", stack_depth);
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

Node *parse_mk_int(Parser *P, Token t)
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

Node *parse_mk_float(Parser *P, Token t)
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
    if (t.kind == TOK_FLOAT && n->lit.f == __builtin_inf())
        fail(P, n->loc, "float literal '%s' is too large (the largest is about 1.8e308)", n->str);
    return n;
}

/* The lexer has checked the escapes; this decodes them. */
void parse_set_string(Parser *P, Node *n, Token t)
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
static const int stmt_start[] = {TOK_LET,   TOK_VAR,      TOK_IF,     TOK_FOR,   TOK_STATIC,
                                 TOK_WHILE, TOK_CONTINUE, TOK_RETURN, TOK_BREAK, TOK_LBRACE, 0};
static const int item_start[] = {TOK_IMPORT, TOK_CONST, TOK_FN, TOK_KERNEL, TOK_AT, 0};
static const int type_start[] = {TOK_IDENT, TOK_STAR, 0};
static const int operators[] = {TOK_OROR, TOK_ANDAND, TOK_PIPE, TOK_CARET,   TOK_AMP,  TOK_EQ,     TOK_NE,
                                TOK_LT,   TOK_LE,     TOK_GT,   TOK_GE,      TOK_SHL,  TOK_SHR,    TOK_PLUS,
                                TOK_MINUS, TOK_STAR,  TOK_SLASH, TOK_PERCENT, TOK_AS,  TOK_LPAREN, TOK_LBRACKET, 0};
static const int comparisons[] = {TOK_LT, TOK_LE, TOK_GT, TOK_GE, TOK_EQ, TOK_NE, 0};
static const int assignments[] = {TOK_ASSIGN,  TOK_PLUSEQ, TOK_MINUSEQ, TOK_STAREQ, TOK_SLASHEQ, TOK_PERCENTEQ,
                                  TOK_AMPEQ,   TOK_PIPEEQ, TOK_CARETEQ, TOK_SHLEQ,  TOK_SHREQ,   0};

static int in_group(int tok, const int *g)
{
    for (int i = 0; g[i]; i++)
        if (g[i] == tok)
            return 1;
    return 0;
}

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

/* A token kind as the object of "expected": with an article where it names a class of tokens. */
static const char *expected_name(int t)
{
    switch (t) {
    case TOK_IDENT:
        return "an identifier";
    case TOK_INT:
        return "an integer literal";
    case TOK_FLOAT:
        return "a float literal";
    case TOK_STRING:
        return "a string literal";
    default:
        return lex_token_name(t);
    }
}

/* "expected a statement, ')' or an operator": the tokens lemon would accept, grouped into words. */
static void expected_words(char *ok, int ntok, char *out, size_t size)
{
    const char *words[16];
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
    /* Outside expressions, an identifier or '*' starts a type (`*` is never a prefix operator). */
    if (group_in(ok, type_start) && !ok[TOK_MINUS]) {
        group_clear(ok, type_start);
        words[nw++] = "a type";
    }
    /* After an expression, almost any binary operator may follow: say so in a word. Comparisons are
     * left out of that test because they are refused after a comparison (they do not chain). */
    int operator_word = 1;
    for (int i = 0; operators[i]; i++)
        if (!in_group(operators[i], comparisons) && !ok[operators[i]])
            operator_word = 0;
    if (operator_word)
        group_clear(ok, operators);
    int assign_word = group_in(ok, assignments);
    if (assign_word)
        group_clear(ok, assignments);
    int extra = 0;
    for (int t = 1; t < ntok; t++)
        if (ok[t]) {
            if (nw < 8)
                words[nw++] = expected_name(t);
            else
                extra++;
        }
    if (operator_word)
        words[nw++] = "an operator";
    if (assign_word)
        words[nw++] = "an assignment";
    size_t k = 0;
    out[0] = 0;
    for (int i = 0; i < nw && k + 64 < size; i++)
        k += (size_t)snprintf(out + k, size - k, "%s%s", i == 0 ? "" : i == nw - 1 && !extra ? " or " : ", ",
                              words[i]);
    if (extra && k + 32 < size)
        snprintf(out + k, size - k, " or %d more", extra);
}

static void token_text(Parser *P, int kind, const Token *t, char *out, size_t size)
{
    if (kind == TOK_EOF)
        snprintf(out, size, "end of file");
    else if (kind == TOK_IDENT || kind == TOK_INT || kind == TOK_FLOAT)
        snprintf(out, size, "%s '%.*s'", lex_token_name(kind), t->len > 40 ? 40 : (int)t->len, P->file->text + t->off);
    else
        snprintf(out, size, "%s", lex_token_name(kind));
}

static int line_of(Parser *P, uint32_t off)
{
    int line, col;
    src_linecol(P->file, off, &line, &col);
    return line;
}

void parse_note_syntax_error(Parser *P, int major, Token minor)
{
    if (P->failed)
        return;
    P->failed = 1;
    P->syntax_error = 1;
    P->err_kind = major;
    P->err_tok = minor;
}

/* The first syntax error: the unexpected token and what could have come instead (from the state stack
 * saved just before the token), or, for the mistakes that the bare token sets explain badly, a message
 * that names the mistake. */
static void syntax_error(Parser *P, int major, const Token *minor)
{
    char ok[256] = {0};
    int ntok = 0;
    for (int t = 1; t < 256; t++) {
        int r = parse_expected(t, P);
        if (r < 0)
            break;
        ok[t] = (char)r;
        ntok = t + 1;
    }
    Loc loc = loc_make(P->file->id, minor->off);
    char got[96];
    token_text(P, major, minor, got, sizeof got);
    int prev = P->prev.kind;

    if (in_group(major, comparisons) && ok[TOK_PLUS] && ok[TOK_AS]) {
        fail(P, loc, "unexpected %s; comparisons do not chain: write (a < b) & (b < c)", got);
        return;
    }
    if (ok[TOK_KERNEL] && !ok[TOK_FN]) {
        fail(P, loc, "unexpected %s after an attribute; attributes go only before 'kernel'", got);
        return;
    }
    if (major == TOK_COLON && prev == TOK_IDENT && P->prev2_kind == TOK_LBRACE && ok[TOK_PLUSEQ]) {
        fail(P, loc, "unexpected ':'; a '{' that starts a statement opens a block (dict literals appear only in "
                     "attribute arguments)");
        return;
    }
    if (major == TOK_LBRACE && ok[TOK_IDENT] && ok[TOK_MINUS] &&
        (prev == TOK_COMMA || prev == TOK_LPAREN || prev == TOK_LBRACKET || in_group(prev, assignments))) {
        fail(P, loc, "unexpected '{'; expected an expression (dict literals appear only in attribute arguments)");
        return;
    }
    if (in_group(major, stmt_start) && major != TOK_LBRACE && ok[TOK_FN]) {
        fail(P, loc, "unexpected %s at the top level; statements go inside a fn or kernel body", got);
        return;
    }
    if (in_group(major, assignments) && !ok[major] && ok[TOK_SEMI] && (prev == TOK_RBRACKET || prev == TOK_RPAREN)) {
        fail(P, loc, "unexpected %s; only a variable can be assigned to", got);
        return;
    }
    if (major == TOK_RPAREN && prev == TOK_COMMA && ok[TOK_MINUS] && !ok[TOK_RPAREN]) {
        fail(P, loc, "unexpected ')'; expected an expression (a tuple has two or more elements)");
        return;
    }
    if (prev == TOK_AS && !ok[TOK_MINUS]) {
        fail(P, loc, "unexpected %s; 'as' takes a scalar or pointer type (f32, *f16)", got);
        return;
    }
    /* A statement that ends at the end of a line without its ';': point there, not at the next line. */
    if (ok[TOK_SEMI] && major != TOK_EOF && P->prev.len && line_of(P, minor->off) > line_of(P, P->prev.off)) {
        Loc end = loc_make(P->file->id, P->prev.off + P->prev.len);
        fail(P, end, "missing ';' at the end of the line (the next line starts with %s)", got);
        return;
    }

    /* The end of the file is shown where the last token ends, not on an empty last line. */
    if (major == TOK_EOF && P->prev.len)
        loc = loc_make(P->file->id, P->prev.off + P->prev.len);
    char expected[512];
    expected_words(ok, ntok, expected, sizeof expected);
    char open[96] = "";
    if (major == TOK_EOF && P->nopen > 0 && P->nopen <= PARSE_MAX_NESTING) {
        const Token *o = &P->open[P->nopen - 1];
        int line, col;
        src_linecol(P->file, o->off, &line, &col);
        snprintf(open, sizeof open, " (the %s at %d:%d is not closed)", lex_token_name(o->kind), line, col);
    }
    if (expected[0])
        fail(P, loc, "unexpected %s; expected %s%s", got, expected, open);
    else
        fail(P, loc, "unexpected %s%s", got, open);
}

/* Token-level limits, checked before lemon sees the token. Brackets open at once are counted (and
 * remembered, for "not closed" notes); so are runs of '-', '!' and '~': a run of n of them holds at
 * least n - 1 prefix operators over an operand, an expression at least n deep. Without these checks
 * such input would only meet lemon's stack limit, far later and with a vaguer message. */
static int check_nesting(Parser *P, Token t)
{
    switch (t.kind) {
    case TOK_LPAREN:
    case TOK_LBRACKET:
    case TOK_LBRACE:
        if (P->nopen == PARSE_MAX_NESTING) {
            fail(P, loc_of(P, t), "brackets nested too deeply (more than %d '(', '[' and '{' open at once)",
                 PARSE_MAX_NESTING);
            return 0;
        }
        P->open[P->nopen++] = t;
        break;
    case TOK_RPAREN:
    case TOK_RBRACKET:
    case TOK_RBRACE:
        if (P->nopen > 0)
            P->nopen--;
        break;
    default:
        break;
    }
    if (t.kind == TOK_MINUS || t.kind == TOK_BANG || t.kind == TOK_TILDE) {
        if (++P->unary_run > PARSE_MAX_EXPR_DEPTH) {
            fail(P, loc_of(P, t), "expression nested too deeply (more than %d levels)", PARSE_MAX_EXPR_DEPTH);
            return 0;
        }
    } else {
        P->unary_run = 0;
    }
    return 1;
}

/* The whole tree at most PARSE_MAX_DEPTH deep. Expressions are bounded as they are built; what nests
 * without brackets otherwise (a chain of `else if`, '*' in a type) is caught here, by a walk with an
 * explicit stack so that the check itself cannot overflow. */
static void check_depth(Parser *P, Node *root)
{
    typedef struct {
        Node *n;
        int depth;
    } Item;
    size_t n = 0, cap = 256;
    Item *st = arena_alloc(P->arena, sizeof(Item) * cap);
    st[n++] = (Item){root, 1};
    while (n) {
        Item it = st[--n];
        if (it.depth > PARSE_MAX_DEPTH) {
            fail(P, it.n->loc, "program nested too deeply (more than %d levels)", PARSE_MAX_DEPTH);
            return;
        }
        Node *kids[4] = {it.n->a, it.n->b, it.n->c, it.n->d};
        size_t need = n + 4 + (size_t)it.n->list.n + (size_t)it.n->list2.n;
        if (need > cap) {
            size_t ncap = cap * 2 > need ? cap * 2 : need;
            st = arena_realloc(P->arena, st, sizeof(Item) * cap, sizeof(Item) * ncap);
            cap = ncap;
        }
        for (int i = 0; i < 4; i++)
            if (kids[i])
                st[n++] = (Item){kids[i], it.depth + 1};
        for (int i = 0; i < it.n->list.n; i++)
            st[n++] = (Item){it.n->list.items[i], it.depth + 1};
        for (int i = 0; i < it.n->list2.n; i++)
            st[n++] = (Item){it.n->list2.items[i], it.depth + 1};
    }
}

/* Explains the syntax error that stopped the parse. Lemon performs default reductions before it notices
 * an error, which narrows what it would report as expected, so the stack it stopped with is not the one
 * to ask. The tokens before the error are parsed again, by a second engine with a scratch copy of the
 * parser, and its stack just before the offending token is the one asked. Saving the stack before every
 * token instead cost a fifth of the parse (bench/bench_front.c); only a failed parse pays for this. */
static void explain_syntax_error(Parser *P)
{
    Parser Q = *P;
    Q.failed = 1; /* the second pass reports nothing */
    Q.module = ast_new(P->arena, AST_MODULE, loc_make(P->file->id, 0));
    void *engine = arena_alloc(P->arena, parse_engine_size());
    parse_lemonInit(engine);
    Lexer lx;
    lex_init(&lx, P->file, P->diags);
    for (;;) {
        Token t = lex_next(&lx);
        if (t.off >= P->err_tok.off || t.kind <= 0)
            break;
        parse_lemon(engine, t.kind, t, &Q);
    }
    parse_snapshot(engine, P);
    parse_lemonFinalize(engine);
    P->failed = 0;
    syntax_error(P, P->err_kind, &P->err_tok);
}

Node *parse_module(Arena *a, StrTab *strs, Diags *diags, SrcFile *f)
{
    Parser P;
    memset(&P, 0, sizeof P);
    P.arena = a;
    P.strs = strs;
    P.diags = diags;
    P.file = f;
    P.module = ast_new(a, AST_MODULE, loc_make(f->id, 0));
    void *engine = arena_alloc(a, parse_engine_size());
    parse_lemonInit(engine);
    Lexer lx;
    lex_init(&lx, f, diags);
    int stack_peak = 0;
    for (;;) {
        Token t = lex_next(&lx);
        if (t.kind == TOK_LEX_ERROR) {
            P.failed = 1;
            break;
        }
        if (!check_nesting(&P, t))
            break;
        P.tok = t;
        parse_lemon(engine, t.kind, t, &P);
        if (P.failed || t.kind == TOK_EOF)
            break;
        int h = parse_stack_height(engine);
        stack_peak = h > stack_peak ? h : stack_peak;
        P.prev2_kind = P.prev.kind;
        P.prev = t;
    }
    parse_lemonFinalize(engine);
    if (P.syntax_error)
        explain_syntax_error(&P);
    /* Outside expressions, every level of nesting holds an entry of lemon's stack while its inside is
     * parsed, so no tree is deeper than the highest stack between two tokens plus the deepest
     * expression (plus a little for leaves that count no depth of their own). Only a program whose
     * stack went high needs the walk, which would cost a tenth of the parse on ordinary programs
     * (bench/bench_front.c). The fuzzer checks the bound on every tree it gets accepted. */
    if (!P.failed && stack_peak + PARSE_MAX_EXPR_DEPTH + 16 > PARSE_MAX_DEPTH)
        check_depth(&P, P.module);
    return P.failed ? NULL : P.module;
}
