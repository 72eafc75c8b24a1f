/* Arena allocation: chunks from the allocator hook, bump allocation inside them, one free for all. */
#include "arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ArenaChunk {
    ArenaChunk *next;
    size_t size;
    /* payload follows; the header keeps it 16-byte aligned */
};
_Static_assert(sizeof(ArenaChunk) % 16 == 0, "chunk header must keep the payload aligned");

enum { CHUNK_MIN = 64 * 1024, ALIGN = 16 };

static void *default_alloc_fn(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, nsize);
}

const Allocator arena_default_allocator = {default_alloc_fn, NULL};

void arena_init(Arena *a, Allocator alloc)
{
    memset(a, 0, sizeof *a);
    a->alloc = alloc.fn ? alloc : arena_default_allocator;
}

void *arena_alloc_raw(const Allocator *al, size_t n)
{
    return al->fn(al->ud, NULL, 0, n);
}

void arena_free_raw(const Allocator *al, void *p, size_t n)
{
    if (p)
        al->fn(al->ud, p, n, 0);
}

static void *arena_grow(Arena *a, size_t n)
{
    size_t size = n + sizeof(ArenaChunk) > CHUNK_MIN ? n + sizeof(ArenaChunk) : CHUNK_MIN;
    ArenaChunk *c = arena_alloc_raw(&a->alloc, size);
    if (!c) {
        if (a->oom)
            longjmp(*a->oom, 1);
        return NULL;
    }
    c->next = a->head;
    c->size = size;
    a->head = c;
    a->bytes += size;
    a->cur = (char *)(c + 1);
    a->end = (char *)c + size;
    char *p = a->cur;
    a->cur += n;
    return p;
}

void *arena_alloc(Arena *a, size_t n)
{
    n = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    if (n == 0)
        n = ALIGN;
    char *p;
    if ((size_t)(a->end - a->cur) >= n) {
        p = a->cur;
        a->cur += n;
    } else {
        p = arena_grow(a, n);
        if (!p)
            return NULL;
    }
    memset(p, 0, n);
    return p;
}

void *arena_realloc(Arena *a, void *old, size_t oldn, size_t n)
{
    if (n <= oldn)
        return old;
    void *p = arena_alloc(a, n);
    if (p && old && oldn)
        memcpy(p, old, oldn);
    return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = 0;
    }
    return p;
}

char *arena_strdup(Arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

char *arena_printf(Arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    char *p = arena_alloc(a, (size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void arena_free(Arena *a)
{
    ArenaChunk *c = a->head;
    while (c) {
        ArenaChunk *next = c->next;
        arena_free_raw(&a->alloc, c, c->size);
        c = next;
    }
    a->head = NULL;
    a->cur = a->end = NULL;
    a->bytes = 0;
}

void ptrvec_push(Arena *a, PtrVec *v, void *p)
{
    if (v->n == v->cap) {
        int cap = v->cap ? v->cap * 2 : 4;
        v->items = arena_realloc(a, v->items, sizeof(void *) * (size_t)v->cap, sizeof(void *) * (size_t)cap);
        v->cap = cap;
    }
    v->items[v->n++] = p;
}

static void *locked_call(void *ud, void *p, size_t osize, size_t nsize)
{
    LockedAllocator *la = ud;
    pthread_mutex_lock(&la->lock);
    void *r = la->inner.fn(la->inner.ud, p, osize, nsize);
    pthread_mutex_unlock(&la->lock);
    return r;
}

void locked_allocator_init(LockedAllocator *la, Allocator inner)
{
    la->inner = inner;
    pthread_mutex_init(&la->lock, NULL);
}

Allocator locked_allocator(LockedAllocator *la) { return (Allocator){locked_call, la}; }

void locked_allocator_destroy(LockedAllocator *la) { pthread_mutex_destroy(&la->lock); }
