/* The tile language lexer (re2c).
 *
 * Tokens are spans of the source; no column is counted here. The source text is NUL-terminated, but a
 * NUL inside the text is an ordinary (and unexpected) character: the end is found by comparing with
 * the limit (re2c's sentinel-with-bounds-checks method). Lexical errors are reported once, at the
 * offending character, and stop the compile. */
#include <stdio.h>
#include <string.h>

#include "compiler/front/lex.h"
#include "parser.h"

void lex_init(Lexer *lx, SrcFile *f, Diags *diags)
{
    lx->file = f;
    lx->diags = diags;
    lx->start = f->text;
    lx->cur = f->text;
    lx->lim = f->text + f->len;
}

static int is_idc(const char *p, const char *lim)
{
    unsigned char c = (unsigned char)*p;
    return p < lim && (c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z'));
}

static Token make(Lexer *lx, int kind, const char *tok)
{
    Token t = {kind, (uint32_t)(tok - lx->start), (uint32_t)(lx->cur - tok)};
    return t;
}

static Token lex_error(Lexer *lx, const char *at, const char *msg)
{
    diag_error(lx->diags, loc_make(lx->file->id, (uint32_t)(at - lx->start)), "%s", msg);
    Token t = {TOK_LEX_ERROR, (uint32_t)(at - lx->start), 0};
    return t;
}

/* Writes one character of the source for a message: printable ASCII and a valid UTF-8 sequence as
 * themselves, anything else as \xNN. Returns the bytes the character spans. */
static int show_char(const char *at, const char *lim, char *buf, size_t size)
{
    unsigned char c = (unsigned char)*at;
    int n = 1;
    if (c >= 0xC2 && c <= 0xF4) {
        n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        for (int i = 1; i < n; i++)
            if (at + i >= lim || ((unsigned char)at[i] & 0xC0) != 0x80)
                n = 1;
    }
    if (c >= 0x21 && c < 0x7F)
        snprintf(buf, size, "%c", c);
    else if (n > 1)
        snprintf(buf, size, "%.*s", n, at);
    else
        snprintf(buf, size, "\\x%02X", c);
    return n;
}

static Token bad_char(Lexer *lx, const char *at)
{
    char buf[16];
    show_char(at, lx->lim, buf, sizeof buf);
    char msg[64];
    snprintf(msg, sizeof msg, "unexpected character '%s'", buf);
    return lex_error(lx, at, msg);
}

Token lex_next(Lexer *lx)
{
    const char *YYMARKER = NULL;
    const char *YYCURSOR = lx->cur;
    const char *const YYLIMIT = lx->lim;
    (void)YYMARKER;
    for (;;) {
        const char *tok = YYCURSOR;
#define RET(k) do { lx->cur = YYCURSOR; return make(lx, (k), tok); } while (0)
        /*!re2c
        re2c:define:YYCTYPE = "unsigned char";
        re2c:define:YYCURSOR = YYCURSOR;
        re2c:define:YYLIMIT = YYLIMIT;
        re2c:define:YYMARKER = YYMARKER;
        re2c:yyfill:enable = 0;
        re2c:eof = 0;
        re2c:define:YYFILL = "0";
        re2c:flags:utf-8 = 0;

        dec = [0-9] [0-9_]*;
        hexd = [0-9a-fA-F_];
        idc = [A-Za-z0-9_];
        exp = [eE] [+-]? [0-9] [0-9_]*;

        $ { lx->cur = YYCURSOR; Token t = {TOK_EOF, (uint32_t)(tok - lx->start), 0}; return t; }

        [ \t\r\n\v\f]+ { continue; }
        "//" [^\n]* { continue; }
        "/*" ([^*] | "*"+ [^*/])* "*"+ "/" { continue; }
        "/*" { lx->cur = YYCURSOR; return lex_error(lx, tok, "unterminated comment (no '*/' before the end of the file)"); }

        "import" { RET(TOK_IMPORT); }
        "const" { RET(TOK_CONST); }
        "fn" { RET(TOK_FN); }
        "kernel" { RET(TOK_KERNEL); }
        "let" { RET(TOK_LET); }
        "var" { RET(TOK_VAR); }
        "if" { RET(TOK_IF); }
        "else" { RET(TOK_ELSE); }
        "for" { RET(TOK_FOR); }
        "in" { RET(TOK_IN); }
        "step" { RET(TOK_STEP); }
        "static" { RET(TOK_STATIC); }
        "while" { RET(TOK_WHILE); }
        "break" { RET(TOK_BREAK); }
        "continue" { RET(TOK_CONTINUE); }
        "return" { RET(TOK_RETURN); }
        "as" { RET(TOK_AS); }
        "true" { RET(TOK_TRUE); }
        "false" { RET(TOK_FALSE); }
        "None" { RET(TOK_NONE); }
        "inf" { RET(TOK_INF); }
        "nan" { RET(TOK_NAN); }
        [A-Za-z_] idc* { RET(TOK_IDENT); }

        /* Numbers. A number running straight into letters or digits (0b2, 12abc, 0x1g) is malformed,
         * as are a base prefix or an exponent with no digits after it (0x, 1e, 1e+). */
        dec { if (is_idc(YYCURSOR, YYLIMIT)) goto malformed; RET(TOK_INT); }
        "0" [xX] hexd* [0-9a-fA-F] hexd* { if (is_idc(YYCURSOR, YYLIMIT)) goto malformed; RET(TOK_INT); }
        "0" [bB] [01_]* [01] [01_]* { if (is_idc(YYCURSOR, YYLIMIT)) goto malformed; RET(TOK_INT); }
        (dec "." [0-9] [0-9_]* exp?) | ("." [0-9] [0-9_]* exp?) | (dec exp)
            { if (is_idc(YYCURSOR, YYLIMIT)) goto malformed; RET(TOK_FLOAT); }
        "0" [xXbB] | (dec ("." [0-9] [0-9_]*)? [eE] [+-]?) { goto malformed; }
        /* `1.` is not a literal (write 1.0), but `0..n` is 0, '..', n. */
        dec "." { if (YYCURSOR < YYLIMIT && *YYCURSOR == '.') { YYCURSOR--; RET(TOK_INT); } goto malformed; }

        ["] ([^"\\\n] | "\\" ["\\nt])* ["] { RET(TOK_STRING); }
        ["] ([^"\\\n] | "\\" ["\\nt])* "\\" [^"\\nt\n] {
            char c[16], msg[128];
            show_char(YYCURSOR - 1, YYLIMIT, c, sizeof c);
            if (c[0] == '\\')
                snprintf(msg, sizeof msg,
                         "unknown escape sequence in string: '\\' followed by %s (known: \\\" \\\\ \\n \\t)", c);
            else
                snprintf(msg, sizeof msg, "unknown escape sequence '\\%s' in string (known: \\\" \\\\ \\n \\t)", c);
            lx->cur = YYCURSOR;
            return lex_error(lx, YYCURSOR - 2, msg);
        }
        ["] { lx->cur = YYCURSOR; return lex_error(lx, tok, "unterminated string (no closing '\"' on this line)"); }

        "(" { RET(TOK_LPAREN); }
        ")" { RET(TOK_RPAREN); }
        "[" { RET(TOK_LBRACKET); }
        "]" { RET(TOK_RBRACKET); }
        "{" { RET(TOK_LBRACE); }
        "}" { RET(TOK_RBRACE); }
        "," { RET(TOK_COMMA); }
        ";" { RET(TOK_SEMI); }
        ":" { RET(TOK_COLON); }
        ".." { RET(TOK_DOTDOT); }
        "->" { RET(TOK_ARROW); }
        "@" { RET(TOK_AT); }
        "=" { RET(TOK_ASSIGN); }
        "+=" { RET(TOK_PLUSEQ); }
        "-=" { RET(TOK_MINUSEQ); }
        "*=" { RET(TOK_STAREQ); }
        "/=" { RET(TOK_SLASHEQ); }
        "%=" { RET(TOK_PERCENTEQ); }
        "&=" { RET(TOK_AMPEQ); }
        "|=" { RET(TOK_PIPEEQ); }
        "^=" { RET(TOK_CARETEQ); }
        "<<=" { RET(TOK_SHLEQ); }
        ">>=" { RET(TOK_SHREQ); }
        "||" { RET(TOK_OROR); }
        "&&" { RET(TOK_ANDAND); }
        "|" { RET(TOK_PIPE); }
        "^" { RET(TOK_CARET); }
        "&" { RET(TOK_AMP); }
        "==" { RET(TOK_EQ); }
        "!=" { RET(TOK_NE); }
        "<" { RET(TOK_LT); }
        "<=" { RET(TOK_LE); }
        ">" { RET(TOK_GT); }
        ">=" { RET(TOK_GE); }
        "<<" { RET(TOK_SHL); }
        ">>" { RET(TOK_SHR); }
        "+" { RET(TOK_PLUS); }
        "-" { RET(TOK_MINUS); }
        "*" { RET(TOK_STAR); }
        "/" { RET(TOK_SLASH); }
        "%" { RET(TOK_PERCENT); }
        "!" { RET(TOK_BANG); }
        "~" { RET(TOK_TILDE); }

        * { lx->cur = YYCURSOR; return bad_char(lx, tok); }
        */
    malformed:
        /* Take the whole run of number-like characters so the message shows what was written. */
        while (is_idc(YYCURSOR, YYLIMIT) || (YYCURSOR < YYLIMIT && (*YYCURSOR == '+' || *YYCURSOR == '-') &&
                                             (YYCURSOR[-1] == 'e' || YYCURSOR[-1] == 'E')))
            YYCURSOR++;
        lx->cur = YYCURSOR;
        {
            char msg[128];
            int n = (int)(YYCURSOR - tok > 40 ? 40 : YYCURSOR - tok);
            snprintf(msg, sizeof msg, "malformed number '%.*s'%s", n, tok,
                     tok[n - 1] == '.' ? " (a float needs a digit after the point: 1.0)" : "");
            return lex_error(lx, tok, msg);
        }
#undef RET
    }
}

static const char *const token_names[][2] = {
    [TOK_EOF] = {"EOF", "end of file"},
    [TOK_IDENT] = {"IDENT", "identifier"},
    [TOK_INT] = {"INT", "integer literal"},
    [TOK_FLOAT] = {"FLOAT", "float literal"},
    [TOK_STRING] = {"STRING", "string literal"},
    [TOK_IMPORT] = {"IMPORT", "'import'"},
    [TOK_CONST] = {"CONST", "'const'"},
    [TOK_FN] = {"FN", "'fn'"},
    [TOK_KERNEL] = {"KERNEL", "'kernel'"},
    [TOK_LET] = {"LET", "'let'"},
    [TOK_VAR] = {"VAR", "'var'"},
    [TOK_IF] = {"IF", "'if'"},
    [TOK_ELSE] = {"ELSE", "'else'"},
    [TOK_FOR] = {"FOR", "'for'"},
    [TOK_IN] = {"IN", "'in'"},
    [TOK_STEP] = {"STEP", "'step'"},
    [TOK_STATIC] = {"STATIC", "'static'"},
    [TOK_WHILE] = {"WHILE", "'while'"},
    [TOK_BREAK] = {"BREAK", "'break'"},
    [TOK_CONTINUE] = {"CONTINUE", "'continue'"},
    [TOK_RETURN] = {"RETURN", "'return'"},
    [TOK_AS] = {"AS", "'as'"},
    [TOK_TRUE] = {"TRUE", "'true'"},
    [TOK_FALSE] = {"FALSE", "'false'"},
    [TOK_NONE] = {"NONE", "'None'"},
    [TOK_INF] = {"INF", "'inf'"},
    [TOK_NAN] = {"NAN", "'nan'"},
    [TOK_LPAREN] = {"LPAREN", "'('"},
    [TOK_RPAREN] = {"RPAREN", "')'"},
    [TOK_LBRACKET] = {"LBRACKET", "'['"},
    [TOK_RBRACKET] = {"RBRACKET", "']'"},
    [TOK_LBRACE] = {"LBRACE", "'{'"},
    [TOK_RBRACE] = {"RBRACE", "'}'"},
    [TOK_COMMA] = {"COMMA", "','"},
    [TOK_SEMI] = {"SEMI", "';'"},
    [TOK_COLON] = {"COLON", "':'"},
    [TOK_DOTDOT] = {"DOTDOT", "'..'"},
    [TOK_ARROW] = {"ARROW", "'->'"},
    [TOK_AT] = {"AT", "'@'"},
    [TOK_ASSIGN] = {"ASSIGN", "'='"},
    [TOK_PLUSEQ] = {"PLUSEQ", "'+='"},
    [TOK_MINUSEQ] = {"MINUSEQ", "'-='"},
    [TOK_STAREQ] = {"STAREQ", "'*='"},
    [TOK_SLASHEQ] = {"SLASHEQ", "'/='"},
    [TOK_PERCENTEQ] = {"PERCENTEQ", "'%='"},
    [TOK_AMPEQ] = {"AMPEQ", "'&='"},
    [TOK_PIPEEQ] = {"PIPEEQ", "'|='"},
    [TOK_CARETEQ] = {"CARETEQ", "'^='"},
    [TOK_SHLEQ] = {"SHLEQ", "'<<='"},
    [TOK_SHREQ] = {"SHREQ", "'>>='"},
    [TOK_OROR] = {"OROR", "'||'"},
    [TOK_ANDAND] = {"ANDAND", "'&&'"},
    [TOK_PIPE] = {"PIPE", "'|'"},
    [TOK_CARET] = {"CARET", "'^'"},
    [TOK_AMP] = {"AMP", "'&'"},
    [TOK_EQ] = {"EQ", "'=='"},
    [TOK_NE] = {"NE", "'!='"},
    [TOK_LT] = {"LT", "'<'"},
    [TOK_LE] = {"LE", "'<='"},
    [TOK_GT] = {"GT", "'>'"},
    [TOK_GE] = {"GE", "'>='"},
    [TOK_SHL] = {"SHL", "'<<'"},
    [TOK_SHR] = {"SHR", "'>>'"},
    [TOK_PLUS] = {"PLUS", "'+'"},
    [TOK_MINUS] = {"MINUS", "'-'"},
    [TOK_STAR] = {"STAR", "'*'"},
    [TOK_SLASH] = {"SLASH", "'/'"},
    [TOK_PERCENT] = {"PERCENT", "'%'"},
    [TOK_BANG] = {"BANG", "'!'"},
    [TOK_TILDE] = {"TILDE", "'~'"},
};

const char *lex_token_id(int kind)
{
    if (kind >= 0 && kind < (int)(sizeof token_names / sizeof token_names[0]) && token_names[kind][0])
        return token_names[kind][0];
    return "?";
}

const char *lex_token_name(int kind)
{
    if (kind >= 0 && kind < (int)(sizeof token_names / sizeof token_names[0]) && token_names[kind][1])
        return token_names[kind][1];
    return "?";
}
