/* The tile language grammar (lemon).
 *
 * Read it side by side with the language contract: the sections below follow it. Every action builds
 * an AST node in the parse's arena; the first syntax error stops the parse with a message naming the
 * unexpected token and the tokens that could have come there. Depth is bounded twice: lemon's own
 * stack (YYSTACKDEPTH) for nesting of any kind, and Node.depth for expression trees, so that no later
 * recursive walk can overflow the C stack. */

/* lemon's entry points carry the parser's prefix (parse_lemon, parse_lemonInit, ...): its default
 * "Parse" would leave the library as a global name. */
%name parse_lemon
%token_prefix TOK_
%token_type {Token}
%default_type {Node *}
%extra_argument {Parser *P}
%start_symbol module
%stack_size 4000

/* Token order fixes the TOK_ values (parser.h); keep the lexer's name table in step. */
%token IDENT INT FLOAT STRING.
%token IMPORT CONST FN KERNEL LET VAR IF ELSE FOR IN STEP STATIC WHILE BREAK CONTINUE RETURN AS
       TRUE FALSE NONE INF NAN.
%token LPAREN RPAREN LBRACKET RBRACKET LBRACE RBRACE COMMA SEMI COLON DOTDOT ARROW AT.
%token ASSIGN PLUSEQ MINUSEQ STAREQ SLASHEQ PERCENTEQ AMPEQ PIPEEQ CARETEQ SHLEQ SHREQ.
%token OROR ANDAND PIPE CARET AMP EQ NE LT LE GT GE SHL SHR PLUS MINUS STAR SLASH PERCENT BANG TILDE.

/* Precedence, lowest first, exactly the contract's table. Comparisons do not chain: `a < b < c`
 * is almost always a bug in a tile program (it compares a bool), so it is a syntax error. `as` binds
 * tighter than the unary operators (-x as f32 is -(x as f32)), postfix call and index tightest. */
%left OROR.
%left ANDAND.
%left PIPE.
%left CARET.
%left AMP.
%nonassoc EQ NE.
%nonassoc LT LE GT GE.
%left SHL SHR.
%left PLUS MINUS.
%left STAR SLASH PERCENT.
%right UNARY.
%left AS.
%left LPAREN LBRACKET.

%include {
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/front/parse_internal.h"
}

/* Only noted here; parse_module explains it once the parse has stopped (parse_explain_syntax_error). */
%syntax_error {
    parse_note_syntax_error(P, yymajor, yyminor);
}

%stack_overflow {
    parse_too_deep(P, YYSTACKDEPTH);
}

/* ---------------------------------------------------------------- module ---------------------------- */

module ::= items(L). { P->module->list = L->list; }

items(R) ::= . { R = P->module; }
items(R) ::= items(L) item(I). { if (I) ast_push(P->arena, &L->list, I); R = L; }

item(R) ::= IMPORT(T) STRING(S) SEMI. { R = mk(P, AST_IMPORT, T); parse_set_string(P, R, S); }
item(R) ::= CONST(T) IDENT(N) ASSIGN expr(E) SEMI. { R = mk(P, AST_CONST, T); R->name = ident(P, N); R->a = E; }
item(R) ::= CONST(T) IDENT(N) COLON type(Y) ASSIGN expr(E) SEMI.
            { R = mk(P, AST_CONST, T); R->name = ident(P, N); R->a = E; R->b = Y; }
item(R) ::= FN(T) IDENT(N) LPAREN params(PS) RPAREN ret(Y) block(B).
            { R = mk(P, AST_FN, T); R->name = ident(P, N); R->list = PS->list; R->a = Y; R->b = B; }
item(R) ::= attrs(AS) KERNEL(T) IDENT(N) LPAREN params(PS) RPAREN block(B).
            { R = mk(P, AST_KERNEL, T); R->name = ident(P, N); R->list = PS->list; R->list2 = AS->list; R->b = B; }

/* ---------------------------------------------------------------- attributes ------------------------ */

attrs(R) ::= . { R = mk_list(P); }
attrs(R) ::= attrs(L) AT(T) IDENT(N) LPAREN attrargs(A) RPAREN.
             { Node *x = mk(P, AST_ATTR, T); x->name = ident(P, N); x->list = A->list; ast_push(P->arena, &L->list, x); R = L; }

/* Attribute arguments are call arguments that may also be dicts, or lists of dicts (@autotune's space
 * and configs). Dicts exist only here: a `{` that starts a statement is always a block. */
attrargs(R) ::= . { R = mk_list(P); }
attrargs(R) ::= attrarglist(L). { R = L; }
attrargs(R) ::= attrarglist(L) COMMA. { R = L; }
attrarglist(R) ::= attrarg(A). { R = mk_list(P); ast_push(P->arena, &R->list, A); }
attrarglist(R) ::= attrarglist(L) COMMA attrarg(A). { ast_push(P->arena, &L->list, A); R = L; }
attrarg(R) ::= aval(E). { R = E; }
attrarg(R) ::= IDENT(N) ASSIGN aval(E). { R = mk(P, AST_NAMED, N); R->name = ident(P, N); R->a = E; }
aval(R) ::= expr(E). { R = E; }
aval(R) ::= dict(D). { R = D; }
aval(R) ::= LBRACKET(T) dictlist(L) RBRACKET. { R = mk(P, AST_LIST, T); R->list = L->list; }
aval(R) ::= LBRACKET(T) dictlist(L) COMMA RBRACKET. { R = mk(P, AST_LIST, T); R->list = L->list; }
dictlist(R) ::= dict(D). { R = mk_list(P); ast_push(P->arena, &R->list, D); }
dictlist(R) ::= dictlist(L) COMMA dict(D). { ast_push(P->arena, &L->list, D); R = L; }
dict(R) ::= LBRACE(T) entries(L) RBRACE. { R = mk(P, AST_DICT, T); R->list = L->list; }

/* ---------------------------------------------------------------- parameters and types -------------- */

params(R) ::= . { R = mk_list(P); }
params(R) ::= paramlist(L). { R = L; }
params(R) ::= paramlist(L) COMMA. { R = L; }
paramlist(R) ::= param(X). { R = mk_list(P); ast_push(P->arena, &R->list, X); }
paramlist(R) ::= paramlist(L) COMMA param(X). { ast_push(P->arena, &L->list, X); R = L; }

param(R) ::= IDENT(N). { R = mk(P, AST_PARAM, N); R->name = ident(P, N); }
param(R) ::= IDENT(N) COLON type(Y). { R = mk(P, AST_PARAM, N); R->name = ident(P, N); R->a = Y; }
param(R) ::= CONST IDENT(N) COLON type(Y).
             { R = mk(P, AST_PARAM, N); R->name = ident(P, N); R->a = Y; R->flags = AST_FLAG_CONST; }
param(R) ::= CONST IDENT(N) COLON type(Y) ASSIGN expr(E).
             { R = mk(P, AST_PARAM, N); R->name = ident(P, N); R->a = Y; R->b = E; R->flags = AST_FLAG_CONST; }

ret(R) ::= . { R = NULL; }
ret(R) ::= ARROW type(Y). { R = Y; }
/* Tuple results, like tuples and tuple lets, have two or more elements and may end with a comma. */
ret(R) ::= ARROW LPAREN(T) typelist(L) RPAREN. { R = mk(P, AST_TYPE_TUPLE, T); R->list = L->list; }
ret(R) ::= ARROW LPAREN(T) typelist(L) COMMA RPAREN. { R = mk(P, AST_TYPE_TUPLE, T); R->list = L->list; }
typelist(R) ::= type(X) COMMA type(Y).
                { R = mk_list(P); ast_push(P->arena, &R->list, X); ast_push(P->arena, &R->list, Y); }
typelist(R) ::= typelist(L) COMMA type(Y). { ast_push(P->arena, &L->list, Y); R = L; }

type(R) ::= IDENT(N). { R = mk(P, AST_TYPE_NAME, N); R->name = ident(P, N); }
type(R) ::= STAR(T) type(Y). { R = mk(P, AST_TYPE_PTR, T); R->a = Y; }
type(R) ::= IDENT(N) LBRACKET exprlist(L) RBRACKET.
            { R = mk(P, AST_TYPE_TILE, N); R->name = ident(P, N); R->list = L->list; }

/* A cast names a scalar or pointer type; tile types never follow `as` (x as f32[...] would be ambiguous
 * with indexing the result). */
casttype(R) ::= IDENT(N). { R = mk(P, AST_TYPE_NAME, N); R->name = ident(P, N); }
casttype(R) ::= STAR(T) casttype(Y). { R = mk(P, AST_TYPE_PTR, T); R->a = Y; }

/* ---------------------------------------------------------------- statements ------------------------ */

block(R) ::= LBRACE(T) stmts(L) RBRACE. { R = L; R->loc = loc_of(P, T); }
stmts(R) ::= . { R = mk_list(P); R->kind = AST_BLOCK; }
stmts(R) ::= stmts(L) stmt(S). { ast_push(P->arena, &L->list, S); R = L; }

stmt(R) ::= LET(T) IDENT(N) ASSIGN expr(E) SEMI. { R = mk(P, AST_LET, T); R->name = ident(P, N); R->a = E; }
stmt(R) ::= VAR(T) IDENT(N) ASSIGN expr(E) SEMI. { R = mk(P, AST_VAR, T); R->name = ident(P, N); R->a = E; }
stmt(R) ::= LET(T) LPAREN namelist(L) RPAREN ASSIGN expr(E) SEMI.
            { R = mk(P, AST_LET_TUPLE, T); R->list = L->list; R->a = E; }
stmt(R) ::= LET(T) LPAREN namelist(L) COMMA RPAREN ASSIGN expr(E) SEMI.
            { R = mk(P, AST_LET_TUPLE, T); R->list = L->list; R->a = E; }
stmt(R) ::= IDENT(N) assignop(O) expr(E) SEMI.
            { R = mk(P, AST_ASSIGN, O); R->name = ident(P, N); R->op = O.kind; R->a = E; R->loc = loc_of(P, N); }
stmt(R) ::= expr(E) SEMI. { R = mk_at(P, AST_EXPR_STMT, E->loc); R->a = E; }
stmt(R) ::= ifstmt(S). { R = S; }
stmt(R) ::= FOR(T) IDENT(N) IN expr(A) DOTDOT expr(B) block(D).
            { R = mk(P, AST_FOR, T); R->name = ident(P, N); R->a = A; R->b = B; R->d = D; }
stmt(R) ::= FOR(T) IDENT(N) IN expr(A) DOTDOT expr(B) STEP expr(C) block(D).
            { R = mk(P, AST_FOR, T); R->name = ident(P, N); R->a = A; R->b = B; R->c = C; R->d = D; }
stmt(R) ::= STATIC(T) FOR IDENT(N) IN expr(A) DOTDOT expr(B) block(D).
            { R = mk(P, AST_FOR, T); R->name = ident(P, N); R->a = A; R->b = B; R->d = D; R->flags = AST_FLAG_STATIC; }
stmt(R) ::= STATIC(T) FOR IDENT(N) IN expr(A) DOTDOT expr(B) STEP expr(C) block(D).
            { R = mk(P, AST_FOR, T); R->name = ident(P, N); R->a = A; R->b = B; R->c = C; R->d = D; R->flags = AST_FLAG_STATIC; }
stmt(R) ::= WHILE(T) expr(A) block(B). { R = mk(P, AST_WHILE, T); R->a = A; R->b = B; }
stmt(R) ::= BREAK(T) SEMI. { R = mk(P, AST_BREAK, T); }
stmt(R) ::= CONTINUE(T) SEMI. { R = mk(P, AST_CONTINUE, T); }
stmt(R) ::= RETURN(T) SEMI. { R = mk(P, AST_RETURN, T); }
stmt(R) ::= RETURN(T) expr(E) SEMI. { R = mk(P, AST_RETURN, T); R->a = E; }
stmt(R) ::= block(B). { R = B; }

ifstmt(R) ::= IF(T) expr(C) block(B). { R = mk(P, AST_IF, T); R->a = C; R->b = B; }
ifstmt(R) ::= IF(T) expr(C) block(B) ELSE block(E). { R = mk(P, AST_IF, T); R->a = C; R->b = B; R->c = E; }
ifstmt(R) ::= IF(T) expr(C) block(B) ELSE ifstmt(E). { R = mk(P, AST_IF, T); R->a = C; R->b = B; R->c = E; }

namelist(R) ::= IDENT(A) COMMA IDENT(B).
                { R = mk_list(P); ast_push(P->arena, &R->list, mk_name(P, A)); ast_push(P->arena, &R->list, mk_name(P, B)); }
namelist(R) ::= namelist(L) COMMA IDENT(N). { ast_push(P->arena, &L->list, mk_name(P, N)); R = L; }

assignop(R) ::= ASSIGN(T). { R = T; }
assignop(R) ::= PLUSEQ(T). { R = T; }
assignop(R) ::= MINUSEQ(T). { R = T; }
assignop(R) ::= STAREQ(T). { R = T; }
assignop(R) ::= SLASHEQ(T). { R = T; }
assignop(R) ::= PERCENTEQ(T). { R = T; }
assignop(R) ::= AMPEQ(T). { R = T; }
assignop(R) ::= PIPEEQ(T). { R = T; }
assignop(R) ::= CARETEQ(T). { R = T; }
assignop(R) ::= SHLEQ(T). { R = T; }
assignop(R) ::= SHREQ(T). { R = T; }
%type assignop {Token}

/* ---------------------------------------------------------------- expressions ----------------------- */

expr(R) ::= expr(A) OROR(T) expr(B). { R = mk_bin(P, T, A, B); }
expr(R) ::= expr(A) ANDAND(T) expr(B). { R = mk_bin(P, T, A, B); }
expr(R) ::= expr(A) PIPE(T) expr(B). { R = mk_bin(P, T, A, B); }
expr(R) ::= expr(A) CARET(T) expr(B). { R = mk_bin(P, T, A, B); }
expr(R) ::= expr(A) AMP(T) expr(B). { R = mk_bin(P, T, A, B); }
expr(R) ::= expr(A) EQ(T) expr(B). { R = mk_bin(P, T, A, B); }
expr(R) ::= expr(A) NE(T) expr(B). { R = mk_bin(P, T, A, B); }
expr(R) ::= expr(A) LT(T) expr(B). { R = mk_bin(P, T, A, B); }
expr(R) ::= expr(A) LE(T) expr(B). { R = mk_bin(P, T, A, B); }
expr(R) ::= expr(A) GT(T) expr(B). { R = mk_bin(P, T, A, B); }
expr(R) ::= expr(A) GE(T) expr(B). { R = mk_bin(P, T, A, B); }
expr(R) ::= expr(A) SHL(T) expr(B). { R = mk_bin(P, T, A, B); }
expr(R) ::= expr(A) SHR(T) expr(B). { R = mk_bin(P, T, A, B); }
expr(R) ::= expr(A) PLUS(T) expr(B). { R = mk_bin(P, T, A, B); }
expr(R) ::= expr(A) MINUS(T) expr(B). { R = mk_bin(P, T, A, B); }
expr(R) ::= expr(A) STAR(T) expr(B). { R = mk_bin(P, T, A, B); }
expr(R) ::= expr(A) SLASH(T) expr(B). { R = mk_bin(P, T, A, B); }
expr(R) ::= expr(A) PERCENT(T) expr(B). { R = mk_bin(P, T, A, B); }
expr(R) ::= MINUS(T) expr(A). [UNARY] { R = mk_un(P, T, A); }
expr(R) ::= BANG(T) expr(A). [UNARY] { R = mk_un(P, T, A); }
expr(R) ::= TILDE(T) expr(A). [UNARY] { R = mk_un(P, T, A); }
expr(R) ::= expr(A) AS(T) casttype(Y). { R = mk(P, AST_CAST, T); R->a = A; R->b = Y; set_depth(P, R, A, NULL); }
expr(R) ::= expr(F) LPAREN args(L) RPAREN.
            { R = mk_at(P, AST_CALL, F->loc); R->a = F; R->list = L->list; set_depth_list(P, R, F, &L->list); }
expr(R) ::= expr(X) LBRACKET(T) indexlist(L) RBRACKET.
            { R = mk(P, AST_INDEX, T); R->a = X; R->list = L->list; set_depth_list(P, R, X, &L->list); }
expr(R) ::= LPAREN expr(E) RPAREN. { R = E; set_depth(P, R, E, NULL); }
/* A tuple has two or more elements: `(a,)` is not one. */
expr(R) ::= LPAREN(T) expr(E) COMMA exprlist(L) RPAREN. { R = mk_tuple(P, T, E, L); }
expr(R) ::= LPAREN(T) expr(E) COMMA exprlist(L) COMMA RPAREN. { R = mk_tuple(P, T, E, L); }
expr(R) ::= LBRACKET(T) exprlist0(L) RBRACKET. { R = mk(P, AST_LIST, T); R->list = L->list; set_depth_list(P, R, NULL, &L->list); }
expr(R) ::= INT(T). { R = parse_mk_int(P, T); }
expr(R) ::= FLOAT(T). { R = parse_mk_float(P, T); }
expr(R) ::= INF(T). { R = parse_mk_float(P, T); }
expr(R) ::= NAN(T). { R = parse_mk_float(P, T); }
expr(R) ::= STRING(T). { R = mk(P, AST_STRING, T); parse_set_string(P, R, T); }
expr(R) ::= TRUE(T). { R = mk(P, AST_BOOL, T); R->lit.i = 1; }
expr(R) ::= FALSE(T). { R = mk(P, AST_BOOL, T); R->lit.i = 0; }
expr(R) ::= NONE(T). { R = mk(P, AST_NONE, T); }
expr(R) ::= IDENT(N). { R = mk_name(P, N); }

exprlist(R) ::= expr(E). { R = mk_list(P); ast_push(P->arena, &R->list, E); }
exprlist(R) ::= exprlist(L) COMMA expr(E). { ast_push(P->arena, &L->list, E); R = L; }
/* Lists may be empty and may end with a comma. */
exprlist0(R) ::= . { R = mk_list(P); }
exprlist0(R) ::= exprlist(L). { R = L; }
exprlist0(R) ::= exprlist(L) COMMA. { R = L; }

args(R) ::= . { R = mk_list(P); }
args(R) ::= arglist(L). { R = L; }
args(R) ::= arglist(L) COMMA. { R = L; }
arglist(R) ::= arg(A). { R = mk_list(P); ast_push(P->arena, &R->list, A); }
arglist(R) ::= arglist(L) COMMA arg(A). { ast_push(P->arena, &L->list, A); R = L; }
arg(R) ::= expr(E). { R = E; }
arg(R) ::= IDENT(N) ASSIGN expr(E). { R = mk(P, AST_NAMED, N); R->name = ident(P, N); R->a = E; set_depth(P, R, E, NULL); }

indexlist(R) ::= index(X). { R = mk_list(P); ast_push(P->arena, &R->list, X); }
indexlist(R) ::= indexlist(L) COMMA index(X). { ast_push(P->arena, &L->list, X); R = L; }
index(R) ::= COLON(T). { R = mk(P, AST_SLICE, T); }
index(R) ::= expr(E). { R = E; }

entries(R) ::= . { R = mk_list(P); }
entries(R) ::= entrylist(L). { R = L; }
entries(R) ::= entrylist(L) COMMA. { R = L; }
entrylist(R) ::= entry(E). { R = mk_list(P); ast_push(P->arena, &R->list, E); }
entrylist(R) ::= entrylist(L) COMMA entry(E). { ast_push(P->arena, &L->list, E); R = L; }
entry(R) ::= IDENT(N) COLON expr(E). { R = mk(P, AST_ENTRY, N); R->name = ident(P, N); R->a = E; set_depth(P, R, E, NULL); }

%code {
#include "compiler/front/parse_driver.inc"
}
