/* Diagnostics: recording with location and rendering with source line and caret. */
#include "diag.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void diags_init(Diags *d, Arena *a, SrcMgr *src)
{
    memset(d, 0, sizeof *d);
    d->arena = a;
    d->src = src;
    d->max_errors = 50;
}

const char *diag_severity_name(DiagSeverity s)
{
    switch (s) {
    case DIAG_ERROR:
        return "error";
    case DIAG_WARNING:
        return "warning";
    default:
        return "note";
    }
}

static Diag *diag_new(Diags *d, DiagSeverity sev)
{
    if (sev == DIAG_ERROR) {
        d->nerrors++;
        if (d->max_errors && d->nerrors > d->max_errors)
            return NULL;
    }
    if (d->n == d->cap) {
        int cap = d->cap ? d->cap * 2 : 8;
        d->items = arena_realloc(d->arena, d->items, sizeof(Diag) * (size_t)d->cap, sizeof(Diag) * (size_t)cap);
        d->cap = cap;
    }
    Diag *g = &d->items[d->n++];
    memset(g, 0, sizeof *g);
    g->sev = sev;
    return g;
}

void diag_vat(Diags *d, DiagSeverity sev, Loc loc, const char *fmt, va_list ap)
{
    Diag *g = diag_new(d, sev);
    if (!g)
        return;
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    char *msg = arena_alloc(d->arena, (size_t)(n < 0 ? 0 : n) + 1);
    vsnprintf(msg, (size_t)(n < 0 ? 0 : n) + 1, fmt, ap);
    g->msg = msg;
    SrcFile *f = (d->src && loc.file) ? src_file(d->src, loc.file) : NULL;
    if (f) {
        g->file = f->name;
        src_linecol(f, loc.off, &g->line, &g->col);
        size_t len;
        const char *line = src_line(f, g->line, &len);
        g->srcline = line;
        g->srclen = (int)len;
        uint32_t start = (uint32_t)(line - f->text);
        int caret = (int)(loc.off - start);
        g->caret = caret < 0 ? 0 : caret > (int)len ? (int)len : caret;
    }
}

void diag_at(Diags *d, DiagSeverity sev, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vat(d, sev, loc, fmt, ap);
    va_end(ap);
}

void diag_plain(Diags *d, DiagSeverity sev, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vat(d, sev, loc_make(0, 0), fmt, ap);
    va_end(ap);
}

/* Bytes a terminal would act on — ESC, BEL and the other C0 controls but tab, and DEL — written as
 * \xHH, so that a source (or a name or string quoted from it) cannot retitle, clear or recolour the
 * terminal that shows the diagnostic (issue 23). */
static bool is_control(unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7f; }

char *diag_escape(Arena *a, const char *s, size_t n)
{
    char *out = arena_alloc(a, 4 * n + 1), *o = out;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (is_control(c))
            o += snprintf(o, 5, "\\x%02x", c);
        else
            *o++ = (char)c;
    }
    *o = 0;
    return out;
}

/* The echoed source line is clipped to this many bytes on each side of the caret (a 50 MB line would
 * otherwise be echoed whole, twice with the caret line). */
enum { ECHO_SIDE = 160 };

char *diag_render(Arena *a, const Diag *g)
{
    const char *sev = diag_severity_name(g->sev);
    const char *msg = diag_escape(a, g->msg, strlen(g->msg));
    if (!g->file)
        return arena_printf(a, "rk: %s: %s\n", sev, msg);
    const char *file = diag_escape(a, g->file, strlen(g->file));
    if (!g->srcline)
        return arena_printf(a, "%s:%d:%d: %s: %s\n", file, g->line, g->col, sev, msg);
    /* the window of the line shown: whole code points, ECHO_SIDE bytes or so either side of the caret */
    int lo = 0, hi = g->srclen;
    if (g->caret > ECHO_SIDE) {
        lo = g->caret - ECHO_SIDE;
        while (lo < g->caret && ((unsigned char)g->srcline[lo] & 0xC0) == 0x80)
            lo++;
    }
    if (hi - g->caret > ECHO_SIDE) {
        hi = g->caret + ECHO_SIDE;
        while (hi > g->caret && ((unsigned char)g->srcline[hi] & 0xC0) == 0x80)
            hi--;
    }
    const char *pre = lo > 0 ? "..." : "", *post = hi < g->srclen ? "..." : "";
    /* The caret line keeps tabs, turns every other code point before the caret into one space and an
     * escaped byte into four. */
    char *pad = arena_alloc(a, 4 * (size_t)(g->caret - lo) + 4);
    int k = 0;
    for (int i = 0; i < (int)strlen(pre); i++)
        pad[k++] = ' ';
    for (int i = lo; i < g->caret; i++) {
        unsigned char c = (unsigned char)g->srcline[i];
        if (c == '\t')
            pad[k++] = '\t';
        else if (is_control(c))
            for (int j = 0; j < 4; j++)
                pad[k++] = ' ';
        else if ((c & 0xC0) != 0x80)
            pad[k++] = ' ';
    }
    pad[k] = 0;
    const char *line = diag_escape(a, g->srcline + lo, (size_t)(hi - lo));
    return arena_printf(a, "%s:%d:%d: %s: %s\n%s%s%s\n%s^\n", file, g->line, g->col, sev, msg, pre, line, post, pad);
}
