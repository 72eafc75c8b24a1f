/* Collected diagnostics.
 *
 * The library never prints: every error, warning and note is recorded here with its file, line,
 * column, message and the source line, and the caller (rkc, or a user of rk.h) decides what to show.
 * diag_render formats one the way the tools contract says: `file:line:col: error: message`, the
 * source line, and a caret under the column (tabs kept, so the caret lines up in a terminal). */
#ifndef RK_DIAG_H
#define RK_DIAG_H

#include <stdarg.h>

#include "source.h"

typedef enum DiagSeverity { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } DiagSeverity;

typedef struct Diag {
    DiagSeverity sev;
    const char *file; /* NULL when the diagnostic has no location */
    int line, col;
    const char *msg;
    const char *srcline; /* the source line (without newline), or NULL */
    int srclen;
    int caret; /* byte offset of the caret in srcline */
} Diag;

typedef struct Diags {
    Arena *arena;
    SrcMgr *src;
    Diag *items;
    int n, cap;
    int nerrors;
    int max_errors; /* after this many errors, further ones are dropped (0 = no limit) */
} Diags;

void diags_init(Diags *d, Arena *a, SrcMgr *src);
void diag_at(Diags *d, DiagSeverity sev, Loc loc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void diag_vat(Diags *d, DiagSeverity sev, Loc loc, const char *fmt, va_list ap);
#define diag_error(d, loc, ...) diag_at((d), DIAG_ERROR, (loc), __VA_ARGS__)
#define diag_note(d, loc, ...) diag_at((d), DIAG_NOTE, (loc), __VA_ARGS__)
/* A diagnostic with no location (command line, environment). */
void diag_plain(Diags *d, DiagSeverity sev, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The text of one diagnostic, in the contract's format, ending with a newline. */
/* s[0..n) with every byte a terminal acts on (C0 controls but tab, DEL) written as \xHH. */
char *diag_escape(Arena *a, const char *s, size_t n);
char *diag_render(Arena *a, const Diag *g);
const char *diag_severity_name(DiagSeverity s);

#endif
