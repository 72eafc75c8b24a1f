/* The growable string of strbuf.h. */
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strbuf_init(StrBuf *b, Arena *a)
{
    *b = (StrBuf){.a = a};
}

void strbuf_init_with(StrBuf *b, Allocator al)
{
    *b = (StrBuf){.al = al};
}

/* The hook of a buffer without an arena: its own, or malloc's (a zeroed StrBuf is a malloc'ed one). */
static Allocator hook(const StrBuf *b)
{
    return b->al.fn ? b->al : arena_default_allocator;
}

void strbuf_free(StrBuf *b)
{
    if (!b->a && b->p) {
        Allocator al = hook(b);
        al.fn(al.ud, b->p, b->cap, 0);
    }
    *b = (StrBuf){.a = b->a, .al = b->al};
}

/* Room for n more bytes and the NUL; false (and oom) when the arena or malloc has none. */
static bool reserve(StrBuf *b, size_t n)
{
    if (b->oom)
        return false;
    if (b->n + n + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap * 2 : 4096;
    while (cap < b->n + n + 1)
        cap *= 2;
    Allocator al = hook(b);
    char *p = b->a ? arena_realloc(b->a, b->p, b->cap, cap) : al.fn(al.ud, b->p, b->p ? b->cap : 0, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

void strbuf_put(StrBuf *b, const void *data, size_t n)
{
    if (!reserve(b, n))
        return;
    if (n)
        memcpy(b->p + b->n, data, n);
    b->n += n;
    b->p[b->n] = 0;
}

void strbuf_str(StrBuf *b, const char *s)
{
    strbuf_put(b, s, strlen(s));
}

void strbuf_ch(StrBuf *b, char c)
{
    strbuf_put(b, &c, 1);
}

void strbuf_fill(StrBuf *b, char c, size_t n)
{
    if (!reserve(b, n))
        return;
    memset(b->p + b->n, c, n);
    b->n += n;
    b->p[b->n] = 0;
}

void strbuf_vprintf(StrBuf *b, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    char tmp[256];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    if (n >= 0 && (size_t)n < sizeof tmp)
        strbuf_put(b, tmp, (size_t)n);
    else if (n >= 0 && reserve(b, (size_t)n)) /* formatted straight into the room */
        b->n += (size_t)vsnprintf(b->p + b->n, (size_t)n + 1, fmt, again);
    va_end(again);
}

void strbuf_printf(StrBuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_vprintf(b, fmt, ap);
    va_end(ap);
}
