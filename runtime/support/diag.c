/* Diagnostics: recording with location and rendering with source line and caret. */
#include "diag.h"

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

char *diag_render(Arena *a, const Diag *g)
{
    const char *sev = diag_severity_name(g->sev);
    if (!g->file)
        return arena_printf(a, "rk: %s: %s\n", sev, g->msg);
    if (!g->srcline)
        return arena_printf(a, "%s:%d:%d: %s: %s\n", g->file, g->line, g->col, sev, g->msg);
    /* The caret line keeps tabs and turns every other code point before the caret into one space. */
    char *pad = arena_alloc(a, (size_t)g->caret + 1);
    int k = 0;
    for (int i = 0; i < g->caret; i++) {
        unsigned char c = (unsigned char)g->srcline[i];
        if (c == '\t')
            pad[k++] = '\t';
        else if ((c & 0xC0) != 0x80)
            pad[k++] = ' ';
    }
    pad[k] = 0;
    return arena_printf(a, "%s:%d:%d: %s: %s\n%.*s\n%s^\n", g->file, g->line, g->col, sev, g->msg, g->srclen,
                        g->srcline, pad);
}
