/* The text form of the tile IR: the parser (print.c writes what this reads).
 *
 * Like the printer, the parser is generic over the op table: an op's name, fixed operand and result
 * counts, region count and attribute slots come from tir_op_info. It checks only what the text must
 * say to build an op (arity from the table, attribute names and kinds, well-formed types); whether the
 * op makes sense is the verifier's job, so that the verifier's rules can be tested from text.
 *
 * Names are function-wide: every value is defined once per function, and a use may come before the
 * definition (it is resolved at the end of the function; the verifier reports the dominance
 * violation). `%name` keeps its name; `%12` makes an unnamed value. A float `value` literal is rounded
 * to the element type. The first error stops the parse: it is reported as a diagnostic at its place
 * in the text and tir_parse returns NULL. Any byte string is safe to parse: nesting is bounded
 * (TIR_MAX_DEPTH), every count is checked before use, and the work is linear in the input. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/fp16.h"
#include "compiler/tir/tir.h"
#include "compiler/tir/tir_impl.h"

/* ---- grammar -----------------------------------------------------------------------------------
 *
 *   module    := (filedecl | func)*
 *   filedecl  := 'file' INT STRING
 *   func      := ('kernel' | 'grid') '@' (IDENT | STRING) '(' [param (',' param)*] ')' [optdict] [loc]
 *                '{' op* '}'
 *   param     := VALUE ':' type
 *   optdict   := '{' NAME '=' optval (',' NAME '=' optval)* '}'  kernels only; names: num_warps,
 *                                                            num_stages, waves_per_eu,
 *                                                            matrix_instr_nonkdim, kpack; plan_async's
 *                                                            stage_lds, tma_flag, tma
 *   optval    := INT | '[' [STRING (',' STRING)*] ']'       tma: the TMA tensors
 *   op        := [VALUE (',' VALUE)* '='] OPNAME [VALUE (',' VALUE)*] [attrs] [':' type (',' type)*]
 *                region* [loc]
 *   attrs     := '{' NAME '=' attrval (',' NAME '=' attrval)* '}'
 *   attrval   := ['-'] (INT | FLOAT | 'inf' | 'nan')   value
 *              | INT                                   axis start end n
 *              | IDENT | INT                           pred kind sem scope (by name)
 *              | STRING                                msg
 *              | '[' [INT (',' INT)*] ']'              dims
 *              | INT                                   plan: stage_buffer stage stages stage_bytes
 *                                                      copy_groups tma tma_bars wgmma lds defer
 *                                                      k_width
 *              | '#' LAYOUT                            plan: layout (a dot's accumulator, a memory
 *                                                      access's tile; read for the op's result
 *                                                      type, or its first operand's, once known)
 *              | VALUE                                 plan: front
 *              | '[' [lin (',' lin)*] ']'              plan: tma_coord
 *              | '[' [VALUE (',' VALUE)*] ']'          plan: tma_pred
 *   lin       := INT (('+' | '-') INT '*' VALUE ['*' VALUE])*   values defined before the op
 *   region    := '{' ['^' '(' [VALUE ':' type (',' VALUE ':' type)*] ')' ':'] op* '}'
 *   loc       := 'loc' '(' [INT ':'] INT ':' INT ')'
 *   type      := ['*'] SCALAR ['[' INT (',' INT)* ']' ['#' LAYOUT]]
 *                                                     a tile's elements are scalars or pointers;
 *                                                     LAYOUT as compiler/layout/layout_text.c
 *                                                     writes it (LIR), on one line
 *   VALUE     := '%' (IDENT | DIGITS) ('.' DIGITS)*
 *
 * Comments run from // to the end of the line. An attribute dict and a region both open with '{':
 * '{' NAME '=' starts a dict (no op starts with NAME '='). An operand list and the next op's result
 * list both start with VALUE: the list belongs to the next op when '=' follows it. */

typedef enum TokKind { T_EOF, T_IDENT, T_VALUE, T_INT, T_FLOAT, T_STRING, T_PUNCT } TokKind;

typedef struct Tok {
    TokKind kind;
    uint32_t off, len;
} Tok;

typedef struct Sym {
    const char *s; /* the name in the text (after '%'); NULL: empty slot */
    uint32_t len;
    Value *v;
} Sym;

typedef struct Fixup {
    Op *op;
    int index;
    Tok tok;
} Fixup;

typedef struct FileMap {
    int64_t text;
    uint32_t module;
} FileMap;

typedef struct RawValue {
    bool present;
    uint32_t off;
    const char *text; /* the literal, sign included */
    TokKind kind;
} RawValue;

typedef struct P {
    Arena *a;
    TypeTab *types;
    StrTab *strs;
    Diags *diags;
    SrcFile *src;
    const char *text;
    uint32_t len;
    Tok tok;      /* the current token */
    uint32_t pos; /* where the next token starts */
    jmp_buf fail;
    Module *m;
    Func *f;
    int depth;
    Sym *syms; /* the current function's values */
    uint32_t symcap, nsyms;
    Fixup *fixups;
    int nfixups, capfixups;
    FileMap *files;
    int nfiles, capfiles;
    /* per-op scratch lists, consumed when the op is built (before its regions are parsed) */
    Tok *res, *opnds, *args;
    const Type **types_, **argtypes;
    int capres, capopnds, capargs, captypes, capargtypes;
    const char *plan_layout; /* the op's plan layout text, read once its result type is known */
    uint32_t plan_layout_off;
} P;

static _Noreturn void fail(P *p, uint32_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static _Noreturn void fail(P *p, uint32_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vat(p->diags, DIAG_ERROR, loc_make(p->src->id, off), fmt, ap);
    va_end(ap);
    longjmp(p->fail, 1);
}

/* Grows a scratch array to hold at least n elements. */
static void *reserve(P *p, void *arr, int *cap, int n, size_t elem)
{
    if (n <= *cap)
        return arr;
    int c = *cap ? *cap * 2 : 8;
    while (c < n)
        c *= 2;
    arr = arena_realloc(p->a, arr, elem * (size_t)*cap, elem * (size_t)c);
    *cap = c;
    return arr;
}

/* ---- lexer ---- */

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool ident_char(char c) { return ident_start(c) || is_digit(c); }

static Tok lex_at(P *p, uint32_t *pos)
{
    const char *s = p->text;
    uint32_t n = p->len, i = *pos;
    for (;;) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
            i++;
        if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
            while (i < n && s[i] != '\n')
                i++;
            continue;
        }
        break;
    }
    Tok t = {T_EOF, i, 0};
    if (i >= n) {
        *pos = i;
        return t;
    }
    char c = s[i];
    uint32_t j = i + 1;
    if (ident_start(c)) {
        while (j < n && ident_char(s[j]))
            j++;
        t.kind = T_IDENT;
    } else if (c == '%') {
        while (j < n && (ident_char(s[j]) || s[j] == '.'))
            j++;
        t.kind = T_VALUE;
    } else if (is_digit(c) || (c == '-' && j < n && is_digit(s[j]))) {
        while (j < n && is_digit(s[j]))
            j++;
        t.kind = T_INT;
        if (j < n && s[j] == '.') {
            j++;
            while (j < n && is_digit(s[j]))
                j++;
            t.kind = T_FLOAT;
        }
        if (j < n && (s[j] == 'e' || s[j] == 'E')) {
            uint32_t k = j + 1;
            if (k < n && (s[k] == '+' || s[k] == '-'))
                k++;
            if (k < n && is_digit(s[k])) {
                j = k;
                while (j < n && is_digit(s[j]))
                    j++;
                t.kind = T_FLOAT;
            }
        }
    } else if (c == '"') {
        while (j < n && s[j] != '"' && s[j] != '\n') {
            if (s[j] == '\\' && j + 1 < n && s[j + 1] != '\n')
                j++;
            j++;
        }
        if (j >= n || s[j] != '"')
            fail(p, i, "unterminated string");
        j++;
        t.kind = T_STRING;
    } else if (c && strchr("(){}[],:=*^@-#+", c)) {
        t.kind = T_PUNCT;
    } else if (c > 0x20 && c < 0x7F) {
        fail(p, i, "unexpected character '%c'", c);
    } else {
        fail(p, i, "unexpected byte 0x%02X", (unsigned char)c);
    }
    t.len = j - i;
    *pos = j;
    return t;
}

static void next(P *p) { p->tok = lex_at(p, &p->pos); }

/* The token k places after the current one (k >= 1), without moving. */
static Tok peek(P *p, int k)
{
    uint32_t pos = p->pos;
    Tok t = p->tok;
    while (k-- > 0)
        t = lex_at(p, &pos);
    return t;
}

static bool is_punct(Tok t, P *p, char c) { return t.kind == T_PUNCT && p->text[t.off] == c; }
static bool at_punct(P *p, char c) { return is_punct(p->tok, p, c); }

static bool tok_is(P *p, Tok t, const char *word)
{
    size_t n = strlen(word);
    return t.kind == T_IDENT && t.len == n && memcmp(p->text + t.off, word, n) == 0;
}

/* The token as a message shows it. */
static const char *describe(P *p, Tok t)
{
    if (t.kind == T_EOF)
        return "end of input";
    if (t.len > 24)
        return arena_printf(p->a, "'%.21s...'", p->text + t.off);
    return arena_printf(p->a, "'%.*s'", (int)t.len, p->text + t.off);
}

static void expect(P *p, char c, const char *where)
{
    if (!at_punct(p, c))
        fail(p, p->tok.off, "expected '%c'%s, found %s", c, where, describe(p, p->tok));
    next(p);
}

/* ---- literals ---- */

/* A decimal integer of n bytes, '-' allowed; false when it does not fit in 64 bits. */
static bool parse_i64(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    bool neg = n > 0 && s[0] == '-';
    if (neg)
        i++;
    uint64_t v = 0;
    for (; i < n; i++) {
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
        return false;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

static int64_t expect_int(P *p, int64_t lo, int64_t hi, const char *what)
{
    int64_t v;
    if (p->tok.kind != T_INT)
        fail(p, p->tok.off, "expected %s, found %s", what, describe(p, p->tok));
    if (!parse_i64(p->text + p->tok.off, p->tok.len, &v) || v < lo || v > hi)
        fail(p, p->tok.off, "%s %s is out of range", what, describe(p, p->tok));
    next(p);
    return v;
}

static int hexval(char c)
{
    if (is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The contents of a string token, escapes decoded. */
static const char *decode_string(P *p, Tok t)
{
    const char *s = p->text + t.off + 1;
    uint32_t n = t.len - 2;
    char *out = arena_alloc(p->a, n + 1);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == 0)
            fail(p, t.off + 1 + i, "NUL byte in string");
        if (c != '\\') {
            out[k++] = c;
            continue;
        }
        char e = s[++i];
        if (e == 'n') {
            out[k++] = '\n';
        } else if (e == 't') {
            out[k++] = '\t';
        } else if (e == '"' || e == '\\') {
            out[k++] = e;
        } else if (e == 'x' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
            int v = hexval(s[i + 1]) * 16 + hexval(s[i + 2]);
            if (v == 0)
                fail(p, t.off + i, "NUL byte in string");
            out[k++] = (char)v;
            i += 2;
        } else {
            fail(p, t.off + i, "bad escape in string");
        }
    }
    out[k] = 0;
    return out;
}

/* ---- types ---- */

static const Type *parse_scalar(P *p)
{
    Tok t = p->tok;
    char buf[8];
    int sk = -1;
    if (t.kind == T_IDENT && t.len < sizeof buf) {
        memcpy(buf, p->text + t.off, t.len);
        buf[t.len] = 0;
        sk = sk_from_name(buf);
    }
    if (sk < 0) {
        if (t.kind == T_IDENT)
            fail(p, t.off, "unknown type %s", describe(p, t));
        if (is_punct(t, p, '*'))
            fail(p, t.off, "a pointer points to a scalar type");
        fail(p, t.off, "expected a type, found %s", describe(p, t));
    }
    next(p);
    return ty_scalar(p->types, (ScalarKind)sk);
}

static const Layout *parse_layout(P *p, int rank, const int64_t *shape);

static const Type *parse_type(P *p)
{
    const Type *elem;
    if (at_punct(p, '*')) {
        next(p);
        elem = ty_ptr(p->types, parse_scalar(p));
    } else {
        elem = parse_scalar(p);
    }
    if (!at_punct(p, '['))
        return elem;
    uint32_t off = p->tok.off;
    next(p);
    int64_t shape[TIR_MAX_RANK];
    int rank = 0;
    for (;;) {
        if (rank == TIR_MAX_RANK)
            fail(p, p->tok.off, "a tile has at most %d dimensions", TIR_MAX_RANK);
        shape[rank++] = expect_int(p, 0, INT64_MAX, "a dimension");
        if (!at_punct(p, ','))
            break;
        next(p);
    }
    expect(p, ']', " after the dimensions");
    const char *why = tir_shape_problem(rank, shape);
    if (why)
        fail(p, off, "bad tile shape: %s", why);
    if (!at_punct(p, '#'))
        return ty_tile(p->types, elem, rank, shape, NULL);
    return ty_tile(p->types, elem, rank, shape, parse_layout(p, rank, shape));
}

/* A layout after '#': the text up to the '>' that closes its first '<' (nesting counted, one line),
 * read by the layout module's parser (TypeTab.parse_layout); the layout interned there. */
static const char *layout_text(P *p, uint32_t *at);
static const Layout *read_layout(P *p, const char *text, uint32_t at, int rank, const int64_t *shape);

static const Layout *parse_layout(P *p, int rank, const int64_t *shape)
{
    uint32_t at;
    const char *text = layout_text(p, &at);
    return read_layout(p, text, at, rank, shape);
}

/* The layout's text (NUL-terminated, in the arena), *at its offset; the token after it is current. */
static const char *layout_text(P *p, uint32_t *at)
{
    uint32_t off = p->tok.off, start = p->pos, i = start;
    if (!p->types->parse_layout)
        fail(p, off, "a layout where this IR has none");
    int depth = 0;
    for (; i < p->len && p->text[i] != '\n'; i++) {
        if (p->text[i] == '<')
            depth++;
        else if (p->text[i] == '>' && --depth <= 0)
            break;
    }
    if (i == p->len || p->text[i] != '>' || depth != 0)
        fail(p, off, "expected a layout after '#' (such as blocked<...>), ending on its line");
    char *buf = arena_alloc(p->a, i + 2 - start);
    memcpy(buf, p->text + start, i + 1 - start);
    buf[i + 1 - start] = 0;
    p->pos = i + 1;
    next(p);
    *at = start;
    return buf;
}

static const Layout *read_layout(P *p, const char *text, uint32_t at, int rank, const int64_t *shape)
{
    const char *why = NULL;
    const Layout *l = p->types->parse_layout(p->types->parse_layout_ud, text, rank, shape, &why);
    if (!l)
        fail(p, at, "%s", why ? why : "a malformed layout");
    return l;
}

/* ---- values ---- */

static void check_value_tok(P *p, Tok t)
{
    const char *s = p->text + t.off + 1;
    uint32_t n = t.len - 1, i = 0;
    bool ok = n > 0;
    if (ok && is_digit(s[0])) {
        while (i < n && is_digit(s[i]))
            i++;
        while (ok && i < n) {
            ok = s[i] == '.' && i + 1 < n && is_digit(s[i + 1]);
            for (i++; i < n && is_digit(s[i]);)
                i++;
        }
    } else {
        ok = ok && tir_name_is_plain(s, n);
    }
    if (!ok)
        fail(p, t.off, "bad value name %s", describe(p, t));
}

static Sym *sym_slot(P *p, const char *s, uint32_t len)
{
    uint32_t mask = p->symcap - 1;
    for (uint32_t i = (uint32_t)hash_bytes(s, len, 0) & mask;; i = (i + 1) & mask) {
        Sym *y = &p->syms[i];
        if (!y->s || (y->len == len && memcmp(y->s, s, len) == 0))
            return y;
    }
}

static void sym_grow(P *p)
{
    Sym *old = p->syms;
    uint32_t oldcap = p->symcap;
    p->symcap = oldcap ? oldcap * 2 : 64;
    p->syms = ARENA_ARRAY(p->a, Sym, p->symcap);
    for (uint32_t i = 0; i < oldcap; i++)
        if (old[i].s)
            *sym_slot(p, old[i].s, old[i].len) = old[i];
}

/* Defines the value named by t (a checked VALUE token) as v. */
static void define(P *p, Tok t, Value *v)
{
    if (2 * (p->nsyms + 1) > p->symcap)
        sym_grow(p);
    const char *s = p->text + t.off + 1;
    uint32_t len = t.len - 1;
    Sym *y = sym_slot(p, s, len);
    if (y->s)
        fail(p, t.off, "redefinition of value %s", describe(p, t));
    y->s = s;
    y->len = len;
    y->v = v;
    p->nsyms++;
    v->name = is_digit(s[0]) ? NULL : str_intern(p->strs, s, len);
}

static Value *lookup(P *p, Tok t)
{
    if (!p->symcap)
        return NULL;
    Sym *y = sym_slot(p, p->text + t.off + 1, t.len - 1);
    return y->s ? y->v : NULL;
}

static Tok expect_value(P *p, const char *what)
{
    Tok t = p->tok;
    if (t.kind != T_VALUE)
        fail(p, t.off, "expected %s, found %s", what, describe(p, t));
    check_value_tok(p, t);
    next(p);
    return t;
}

/* Uses that precede their definition are resolved when the function ends. */
static void resolve_fixups(P *p)
{
    for (int i = 0; i < p->nfixups; i++) {
        Fixup *x = &p->fixups[i];
        Value *v = lookup(p, x->tok);
        if (!v)
            fail(p, x->tok.off, "unknown value %s", describe(p, x->tok));
        x->op->operands[x->index] = v;
    }
    p->nfixups = 0;
}

/* ---- locations and attributes ---- */

static SrcPos parse_loc(P *p)
{
    uint32_t off = p->tok.off;
    next(p); /* 'loc' */
    expect(p, '(', " after 'loc'");
    int64_t n[3];
    int k = 0;
    for (;;) {
        n[k++] = expect_int(p, 0, UINT32_MAX, "a location number");
        if (k == 3 || !at_punct(p, ':'))
            break;
        next(p);
    }
    if (k < 2)
        fail(p, p->tok.off, "expected ':' in the location, found %s", describe(p, p->tok));
    expect(p, ')', " after the location");
    SrcPos pos = {0, (uint32_t)n[k - 2], (uint32_t)n[k - 1]};
    int64_t file = k == 3 ? n[0] : 0;
    for (int i = 0; i < p->nfiles; i++)
        if (p->files[i].text == file) {
            pos.file = p->files[i].module;
            return pos;
        }
    if (file != 0 || p->nfiles)
        fail(p, off, "unknown file %lld in a location", (long long)file);
    return pos; /* no file declared at all: file 0, which the module may not have */
}

/* Reads a name from the table of an enum attribute, or its number. */
static int64_t parse_enum(P *p, const char *(*name)(int), int count, const char *what)
{
    Tok t = p->tok;
    if (t.kind == T_INT)
        return expect_int(p, INT64_MIN, INT64_MAX, what);
    if (t.kind == T_IDENT)
        for (int i = 0; i < count; i++) {
            const char *nm = name(i);
            if (strlen(nm) == t.len && memcmp(nm, p->text + t.off, t.len) == 0) {
                next(p);
                return i;
            }
        }
    fail(p, t.off, "unknown %s %s", what, describe(p, t));
}

static const char *pred_name(int i) { return tir_pred_name((CmpPred)i); }
static const char *kind_name(int i) { return tir_kind_name((OpKind)i); }
static const char *sem_name(int i) { return tir_sem_name((MemSem)i); }
static const char *scope_name(int i) { return tir_scope_name((MemScope)i); }

/* A value that a plan names: defined before the op. */
static Value *plan_value(P *p)
{
    Tok t = expect_value(p, "a value");
    Value *v = lookup(p, t);
    if (!v)
        fail(p, t.off, "unknown value %s", describe(p, t));
    return v;
}

/*   lin := INT (('+' | '-') INT '*' VALUE ['*' VALUE])* */
static void parse_lin(P *p, PlanLin *l)
{
    l->k = expect_int(p, INT64_MIN, INT64_MAX, "an integer");
    while (at_punct(p, '+') || at_punct(p, '-')) {
        bool neg = at_punct(p, '-');
        if (l->n == PLAN_LIN_MAX)
            fail(p, p->tok.off, "at most %d terms", PLAN_LIN_MAX);
        next(p);
        int64_t c = expect_int(p, 0, INT64_MAX, "a coefficient");
        l->t[l->n].c = neg ? -c : c;
        expect(p, '*', " after the coefficient");
        l->t[l->n].a = plan_value(p);
        l->t[l->n].b = NULL;
        if (at_punct(p, '*')) {
            next(p);
            l->t[l->n].b = plan_value(p);
        }
        l->n++;
    }
}

/* One plan key's value (after '='): an integer, a value, or a list of coordinates or values. */
static void parse_plan_key(P *p, OpPlan *pl, int k, uint32_t off)
{
    if (pl->set & (1u << k))
        fail(p, off, "duplicate attribute '%s'", tir_plan_names[k]);
    pl->set |= 1u << k;
    if (k < PK_NINT) {
        pl->v[k] = expect_int(p, INT64_MIN, INT64_MAX, "an integer");
        return;
    }
    if (k == PK_FRONT) {
        pl->front = plan_value(p);
        return;
    }
    if (k == PK_LAYOUT) {
        if (!at_punct(p, '#'))
            fail(p, p->tok.off, "expected '#' and a layout");
        p->plan_layout = layout_text(p, &p->plan_layout_off);
        return;
    }
    expect(p, '[', " before the list");
    int *n = k == PK_TMA_COORD ? &pl->ncoord : &pl->npred, max = k == PK_TMA_COORD ? 3 : PLAN_MAX_PRED;
    while (!at_punct(p, ']')) {
        if (*n == max)
            fail(p, p->tok.off, "at most %d elements", max);
        if (k == PK_TMA_COORD)
            parse_lin(p, &pl->coord[(*n)++]);
        else
            pl->pred[(*n)++] = plan_value(p);
        if (!at_punct(p, ','))
            break;
        next(p);
    }
    expect(p, ']', " after the list");
}

static void parse_attrs(P *p, OpCode code, Attrs *at, unsigned *seen, RawValue *raw, OpPlan **plan)
{
    const char *opname = tir_op_info[code].name;
    next(p); /* '{' */
    for (;;) {
        Tok t = p->tok;
        int pk = 0;
        while (t.kind == T_IDENT && pk < PK_COUNT && !tok_is(p, t, tir_plan_names[pk]))
            pk++;
        if (t.kind == T_IDENT && pk < PK_COUNT) {
            if (!*plan)
                *plan = ARENA_NEW(p->a, OpPlan);
            next(p);
            expect(p, '=', " after the attribute name");
            parse_plan_key(p, *plan, pk, t.off);
            if (!at_punct(p, ','))
                break;
            next(p);
            continue;
        }
        int k = 0;
        if (t.kind == T_IDENT)
            while (k < TIR_NATTRS && !(strlen(tir_attr_names[k]) == t.len && memcmp(tir_attr_names[k], p->text + t.off, t.len) == 0))
                k++;
        if (t.kind != T_IDENT || k == TIR_NATTRS)
            fail(p, t.off, "unknown attribute %s", describe(p, t));
        unsigned bit = 1u << k;
        if (!(tir_op_info[code].attrs & bit))
            fail(p, t.off, "'%s' has no attribute '%s'", opname, tir_attr_names[k]);
        if (*seen & bit)
            fail(p, t.off, "duplicate attribute '%s'", tir_attr_names[k]);
        *seen |= bit;
        next(p);
        expect(p, '=', " after the attribute name");
        switch (bit) {
        case A_VALUE: {
            uint32_t off = p->tok.off;
            bool neg = at_punct(p, '-');
            if (neg)
                next(p);
            Tok v = p->tok;
            bool word = tok_is(p, v, "inf") || tok_is(p, v, "nan");
            if (v.kind != T_INT && v.kind != T_FLOAT && !word)
                fail(p, v.off, "expected a number, found %s", describe(p, v));
            raw->present = true;
            raw->off = off;
            raw->kind = v.kind;
            raw->text = arena_printf(p->a, "%s%.*s", neg ? "-" : "", (int)v.len, p->text + v.off);
            next(p);
            break;
        }
        case A_AXIS: at->axis = expect_int(p, INT64_MIN, INT64_MAX, "an integer"); break;
        case A_START: at->start = expect_int(p, INT64_MIN, INT64_MAX, "an integer"); break;
        case A_END: at->end = expect_int(p, INT64_MIN, INT64_MAX, "an integer"); break;
        case A_N: at->n = expect_int(p, INT64_MIN, INT64_MAX, "an integer"); break;
        case A_PRED: at->pred = parse_enum(p, pred_name, PRED_COUNT, "predicate"); break;
        case A_KIND: at->kind = parse_enum(p, kind_name, KIND_COUNT, "kind"); break;
        case A_SEM: at->sem = parse_enum(p, sem_name, SEM_COUNT, "memory order"); break;
        case A_SCOPE: at->scope = parse_enum(p, scope_name, SCOPE_COUNT, "scope"); break;
        case A_MSG:
            if (p->tok.kind != T_STRING)
                fail(p, p->tok.off, "expected a string, found %s", describe(p, p->tok));
            at->msg = decode_string(p, p->tok);
            next(p);
            break;
        case A_REVERSE:
        case A_EXCLUSIVE: {
            bool yes = tok_is(p, p->tok, "true");
            if (!yes && !tok_is(p, p->tok, "false"))
                fail(p, p->tok.off, "expected true or false, found %s", describe(p, p->tok));
            *(bit == A_REVERSE ? &at->reverse : &at->exclusive) = yes;
            next(p);
            break;
        }
        case A_DIMS:
            expect(p, '[', " before the dims");
            at->ndims = 0;
            while (!at_punct(p, ']')) {
                if (at->ndims == TIR_MAX_RANK)
                    fail(p, p->tok.off, "at most %d dims", TIR_MAX_RANK);
                at->dims[at->ndims++] = expect_int(p, INT64_MIN, INT64_MAX, "an integer");
                if (!at_punct(p, ','))
                    break;
                next(p);
            }
            expect(p, ']', " after the dims");
            break;
        default: break;
        }
        if (!at_punct(p, ','))
            break;
        next(p);
    }
    expect(p, '}', " after the attributes");
}

/* The `value` literal in the result's element type: floats rounded to it, unsigned ints in its
 * range; signed ints and bools are kept as written (the verifier checks their range). */
static void convert_value(P *p, const RawValue *raw, const Type *rtype, Attrs *at)
{
    const Type *e = rtype ? ty_elem(rtype) : NULL;
    bool scalar = e && e->kind == TY_SCALAR;
    if (scalar && sk_is_float(e->sk)) {
        const char *s = raw->text + (raw->text[0] == '-');
        double v = strcmp(s, "inf") == 0 ? INFINITY : strcmp(s, "nan") == 0 ? NAN : strtod(s, NULL);
        at->value.f = fp_round(e->sk, raw->text[0] == '-' ? -v : v);
        return;
    }
    if (raw->kind != T_INT)
        fail(p, raw->off, "expected an integer value, found '%s'", raw->text);
    int64_t v = 0;
    bool ok;
    if (scalar && sk_is_int(e->sk) && !sk_is_signed(e->sk)) {
        /* unsigned: 0 .. 2^bits - 1, stored sign-extended */
        uint64_t u = 0;
        ok = raw->text[0] != '-';
        for (const char *c = raw->text; ok && *c; c++) {
            uint64_t d = (uint64_t)(*c - '0');
            ok = u <= (UINT64_MAX - d) / 10;
            u = u * 10 + d;
        }
        ok = ok && (u & ~tir_int_mask(e->sk)) == 0;
        v = tir_int_norm(e->sk, (int64_t)u);
    } else {
        ok = parse_i64(raw->text, strlen(raw->text), &v);
    }
    if (!ok)
        fail(p, raw->off, "value %s is out of range for %s", raw->text, scalar ? sk_name(e->sk) : "its type");
    at->value.i = v;
}

/* ---- ops and regions ---- */

static void parse_ops(P *p, Block *b);

/* Whether the VALUE list at the current token is the next op's result list. */
static bool results_follow(P *p)
{
    uint32_t pos = p->pos;
    Tok t;
    for (;;) {
        t = lex_at(p, &pos);
        if (!is_punct(t, p, ','))
            break;
        t = lex_at(p, &pos);
        if (t.kind != T_VALUE)
            return false;
    }
    return is_punct(t, p, '=');
}

static const char *plural(int n) { return n == 1 ? "" : "s"; }

static void parse_region(P *p, Op *op)
{
    if (p->depth >= TIR_MAX_DEPTH)
        fail(p, p->tok.off, "regions nested too deeply (more than %d)", TIR_MAX_DEPTH);
    p->depth++;
    Block *b = tir_op_add_region(op, p->f);
    next(p); /* '{' */
    if (at_punct(p, '^')) {
        next(p);
        expect(p, '(', " after '^'");
        int n = 0;
        while (!at_punct(p, ')')) {
            p->args = reserve(p, p->args, &p->capargs, n + 1, sizeof(Tok));
            p->argtypes = reserve(p, p->argtypes, &p->capargtypes, n + 1, sizeof(Type *));
            p->args[n] = expect_value(p, "a block argument");
            expect(p, ':', " after the argument");
            p->argtypes[n++] = parse_type(p);
            if (!at_punct(p, ','))
                break;
            next(p);
        }
        expect(p, ')', " after the block arguments");
        expect(p, ':', " after the block arguments");
        for (int i = 0; i < n; i++) /* all added first: adding one moves the others */
            tir_block_add_arg(b, p->argtypes[i], NULL);
        for (int i = 0; i < n; i++)
            define(p, p->args[i], &b->args[i]);
    }
    parse_ops(p, b);
    expect(p, '}', " to close the region");
    p->depth--;
}

static void parse_op(P *p, Block *b)
{
    int nres = 0, nopnds = 0, ntypes = 0;
    if (p->tok.kind == T_VALUE) {
        for (;;) {
            p->res = reserve(p, p->res, &p->capres, nres + 1, sizeof(Tok));
            p->res[nres++] = expect_value(p, "a result");
            if (!at_punct(p, ','))
                break;
            next(p);
        }
        expect(p, '=', " after the results");
    }
    Tok name = p->tok;
    if (name.kind != T_IDENT)
        fail(p, name.off, "expected an op, found %s", describe(p, name));
    OpCode code = OP_COUNT;
    if (name.len < 32) {
        char buf[32];
        memcpy(buf, p->text + name.off, name.len);
        buf[name.len] = 0;
        code = tir_op_from_name(buf);
    }
    if (code == OP_COUNT)
        fail(p, name.off, "unknown op %s", describe(p, name));
    const OpInfo *info = &tir_op_info[code];
    next(p);
    if (p->tok.kind == T_VALUE && !results_follow(p)) {
        for (;;) {
            p->opnds = reserve(p, p->opnds, &p->capopnds, nopnds + 1, sizeof(Tok));
            p->opnds[nopnds++] = expect_value(p, "an operand");
            if (!at_punct(p, ','))
                break;
            next(p);
        }
    }
    Attrs at;
    memset(&at, 0, sizeof at);
    unsigned seen = 0;
    RawValue raw = {0};
    OpPlan *plan = NULL;
    p->plan_layout = NULL;
    if (at_punct(p, '{') && peek(p, 1).kind == T_IDENT && is_punct(peek(p, 2), p, '='))
        parse_attrs(p, code, &at, &seen, &raw, &plan);
    unsigned missing = info->attrs & ~seen & ~(unsigned)A_OPTIONAL;
    for (int k = 0; missing && k < TIR_NATTRS; k++)
        if (missing & (1u << k))
            fail(p, name.off, "missing attribute '%s' on '%s'", tir_attr_names[k], info->name);
    if (at_punct(p, ':')) {
        next(p);
        for (;;) {
            p->types_ = reserve(p, p->types_, &p->captypes, ntypes + 1, sizeof(Type *));
            p->types_[ntypes++] = parse_type(p);
            if (!at_punct(p, ','))
                break;
            next(p);
        }
    }
    if (info->nopnds >= 0 && nopnds != info->nopnds)
        fail(p, name.off, "'%s' takes %d operand%s, got %d", info->name, info->nopnds, plural(info->nopnds), nopnds);
    if (info->nres >= 0 && nres != info->nres)
        fail(p, name.off, "'%s' has %d result%s, got %d", info->name, info->nres, plural(info->nres), nres);
    if (ntypes != nres)
        fail(p, name.off, "'%s' has %d result%s but %d result type%s", info->name, nres, plural(nres), ntypes,
             plural(ntypes));
    if (p->plan_layout) { /* a layout for the op's tile result, or (a store) its first operand's tile */
        const Value *first = nopnds ? lookup(p, p->opnds[0]) : NULL;
        const Type *t = nres == 1 ? p->types_[0] : first ? first->type : NULL;
        if (!t || t->kind != TY_TILE)
            fail(p, p->plan_layout_off, "a plan layout is for an op with a tile result or a tile first operand");
        plan->layout = read_layout(p, p->plan_layout, p->plan_layout_off, t->rank, t->shape);
    }

    Op *op = tir_op_new(p->f, code, p->types_, nres, NULL, 0);
    if (nopnds) {
        op->operands = ARENA_ARRAY(p->a, Value *, nopnds);
        op->nopnds = nopnds;
    }
    for (int i = 0; i < nopnds; i++) {
        op->operands[i] = lookup(p, p->opnds[i]);
        if (!op->operands[i]) {
            p->fixups = reserve(p, p->fixups, &p->capfixups, p->nfixups + 1, sizeof(Fixup));
            p->fixups[p->nfixups++] = (Fixup){op, i, p->opnds[i]};
        }
    }
    if (raw.present)
        convert_value(p, &raw, nres ? p->types_[0] : NULL, &at);
    op->at = at;
    op->plan = plan;
    tir_insert_end(b, op);
    for (int i = 0; i < nres; i++)
        define(p, p->res[i], &op->results[i]);
    while (at_punct(p, '{'))
        parse_region(p, op);
    if (op->nregions != info->nregions)
        fail(p, name.off, "'%s' takes %d region%s, got %d", info->name, info->nregions, plural(info->nregions),
             op->nregions);
    if (tok_is(p, p->tok, "loc"))
        op->pos = parse_loc(p);
}

static void parse_ops(P *p, Block *b)
{
    while (!at_punct(p, '}')) {
        if (p->tok.kind == T_EOF)
            fail(p, p->tok.off, "expected '}' to close the block, found end of input");
        parse_op(p, b);
    }
}

/* ---- functions and the module ---- */

static void parse_options(P *p, Func *f)
{
    static const char *const names[] = {"num_warps",   "num_stages", "waves_per_eu", "matrix_instr_nonkdim",
                                        "kpack",       "stage_lds",  "tma_flag",     "tma"};
    int *slots[] = {&f->opts.num_warps, &f->opts.num_stages, &f->opts.waves_per_eu, &f->opts.matrix_instr_nonkdim,
                    &f->opts.kpack,     &f->stage_lds,       &f->tma_flag,         NULL};
    int cap = 0;
    unsigned seen = 0;
    if (f->kind != FUNC_KERNEL)
        fail(p, p->tok.off, "only kernels have options");
    next(p); /* '{' */
    for (;;) {
        Tok t = p->tok;
        int k = 0;
        while (k < 8 && !tok_is(p, t, names[k]))
            k++;
        if (k == 8)
            fail(p, t.off, "unknown option %s", describe(p, t));
        if (seen & (1u << k))
            fail(p, t.off, "duplicate option '%s'", names[k]);
        seen |= 1u << k;
        next(p);
        expect(p, '=', " after the option name");
        if (k == 7) { /* plan_async's tensors: a list of strings */
            expect(p, '[', " before the tensors");
            while (p->tok.kind == T_STRING) {
                f->tma = reserve(p, f->tma, &cap, f->ntma + 1, sizeof(char *));
                f->tma[f->ntma++] = decode_string(p, p->tok);
                next(p);
                if (!at_punct(p, ','))
                    break;
                next(p);
            }
            expect(p, ']', " after the tensors");
        } else {
            *slots[k] = (int)expect_int(p, INT32_MIN, INT32_MAX, "an integer");
        }
        if (!at_punct(p, ','))
            break;
        next(p);
    }
    expect(p, '}', " after the options");
}

static void parse_func(P *p)
{
    FuncKind kind = tok_is(p, p->tok, "grid") ? FUNC_GRID : FUNC_KERNEL;
    next(p);
    expect(p, '@', " before the function name");
    Tok t = p->tok;
    const char *name;
    if (t.kind == T_IDENT)
        name = str_intern(p->strs, p->text + t.off, t.len);
    else if (t.kind == T_STRING)
        name = str_intern0(p->strs, decode_string(p, t));
    else
        fail(p, t.off, "expected a function name, found %s", describe(p, t));
    if (tir_module_find(p->m, kind, name))
        fail(p, t.off, "redefinition of %s @%s", kind == FUNC_GRID ? "grid" : "kernel", name);
    next(p);
    Func *f = tir_func_new(p->m, kind, name);
    p->f = f;
    p->syms = NULL;
    p->symcap = p->nsyms = 0;
    p->nfixups = 0;
    expect(p, '(', " before the parameters");
    int n = 0;
    while (!at_punct(p, ')')) {
        p->args = reserve(p, p->args, &p->capargs, n + 1, sizeof(Tok));
        p->argtypes = reserve(p, p->argtypes, &p->capargtypes, n + 1, sizeof(Type *));
        p->args[n] = expect_value(p, "a parameter");
        expect(p, ':', " after the parameter");
        p->argtypes[n++] = parse_type(p);
        if (!at_punct(p, ','))
            break;
        next(p);
    }
    expect(p, ')', " after the parameters");
    for (int i = 0; i < n; i++)
        tir_block_add_arg(f->body, p->argtypes[i], NULL);
    for (int i = 0; i < n; i++)
        define(p, p->args[i], &f->body->args[i]);
    if (at_punct(p, '{') && peek(p, 1).kind == T_IDENT && is_punct(peek(p, 2), p, '='))
        parse_options(p, f);
    if (tok_is(p, p->tok, "loc"))
        f->pos = parse_loc(p);
    expect(p, '{', " before the function body");
    parse_ops(p, f->body);
    next(p); /* '}' */
    resolve_fixups(p);
}

static void parse_file(P *p)
{
    next(p); /* 'file' */
    uint32_t off = p->tok.off;
    int64_t idx = expect_int(p, 0, UINT32_MAX, "a file number");
    for (int i = 0; i < p->nfiles; i++)
        if (p->files[i].text == idx)
            fail(p, off, "file %lld is declared twice", (long long)idx);
    if (p->tok.kind != T_STRING)
        fail(p, p->tok.off, "expected a file name, found %s", describe(p, p->tok));
    const char *path = decode_string(p, p->tok);
    next(p);
    p->files = reserve(p, p->files, &p->capfiles, p->nfiles + 1, sizeof(FileMap));
    p->files[p->nfiles++] = (FileMap){idx, tir_module_file(p->m, path)};
}

Module *tir_parse(Arena *a, TypeTab *types, StrTab *strs, Diags *diags, SrcFile *f)
{
    P *p = ARENA_NEW(a, P);
    p->a = a;
    p->types = types;
    p->strs = strs;
    p->diags = diags;
    p->src = f;
    p->text = f->text;
    p->len = f->len;
    if (setjmp(p->fail))
        return NULL;
    p->m = tir_module_new(a, types, strs);
    next(p);
    while (p->tok.kind != T_EOF) {
        if (tok_is(p, p->tok, "kernel") || tok_is(p, p->tok, "grid"))
            parse_func(p);
        else if (tok_is(p, p->tok, "file"))
            parse_file(p);
        else
            fail(p, p->tok.off, "expected 'kernel', 'grid' or 'file', found %s", describe(p, p->tok));
    }
    return p->m;
}
