/* Source file registry and offset → line/column mapping (binary search over line starts). */
#include "source.h"

#include <string.h>

void src_init(SrcMgr *m, Arena *a)
{
    memset(m, 0, sizeof *m);
    m->arena = a;
    src_add(m, "<none>", "", 0);
}

SrcFile *src_add(SrcMgr *m, const char *name, const char *text, size_t len)
{
    if (len >= UINT32_MAX)
        return NULL;
    if (m->nfiles == m->cap) {
        int cap = m->cap ? m->cap * 2 : 8;
        m->files = arena_realloc(m->arena, m->files, sizeof(SrcFile *) * (size_t)m->cap,
                                 sizeof(SrcFile *) * (size_t)cap);
        m->cap = cap;
    }
    SrcFile *f = ARENA_NEW(m->arena, SrcFile);
    f->id = (uint32_t)m->nfiles;
    f->name = arena_strdup(m->arena, name);
    f->text = arena_strndup(m->arena, text, len);
    f->len = (uint32_t)len;
    f->arena = m->arena;
    m->files[m->nfiles++] = f;
    return f;
}

SrcFile *src_file(const SrcMgr *m, uint32_t id)
{
    return id < (uint32_t)m->nfiles ? m->files[id] : NULL;
}

/* The line table is built on first use: only diagnostics need it. */
static void ensure_lines(SrcFile *f)
{
    if (f->line_starts)
        return;
    int n = 1;
    for (uint32_t i = 0; i < f->len; i++)
        n += f->text[i] == '\n';
    f->line_starts = ARENA_ARRAY(f->arena, uint32_t, n + 1);
    int k = 0;
    f->line_starts[k++] = 0;
    for (uint32_t i = 0; i < f->len; i++)
        if (f->text[i] == '\n')
            f->line_starts[k++] = i + 1;
    f->line_starts[k] = f->len + 1;
    f->nlines = n;
}

void src_linecol(SrcFile *f, uint32_t off, int *line, int *col)
{
    ensure_lines(f);
    if (off > f->len)
        off = f->len;
    int lo = 0, hi = f->nlines - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (f->line_starts[mid] <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    int c = 1;
    for (uint32_t i = f->line_starts[lo]; i < off; i++)
        if (((unsigned char)f->text[i] & 0xC0) != 0x80)
            c++;
    *line = lo + 1;
    *col = c;
}

const char *src_line(SrcFile *f, int line, size_t *len)
{
    ensure_lines(f);
    if (line < 1 || line > f->nlines) {
        *len = 0;
        return "";
    }
    uint32_t s = f->line_starts[line - 1];
    uint32_t e = s;
    while (e < f->len && f->text[e] != '\n')
        e++;
    if (e > s && f->text[e - 1] == '\r')
        e--;
    *len = e - s;
    return f->text + s;
}
