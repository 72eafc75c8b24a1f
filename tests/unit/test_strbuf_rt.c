/* The one growable string (support/strbuf.h) in its modes: in an arena, malloc'ed (no arena, as
 * codegen.c gathers LLVM's messages) and from an allocator hook (the runtime's records and profile).
 * Appends of every kind, growth past the first room, NUL termination, formatting longer than the
 * formatter's stack buffer, strbuf_free, and a hook that fails: oom, the text so far kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/strbuf.h"

static int failures;
#define CHECK(c) ((c) ? (void)0 : (void)(failures++, fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c)))

/* The same appends in either mode; the text they must give. */
static void fill(StrBuf *b)
{
    strbuf_put(b, "", 0);
    CHECK(b->p && b->n == 0 && b->p[0] == 0);
    strbuf_str(b, "ab");
    strbuf_ch(b, 'c');
    strbuf_fill(b, '-', 3);
    strbuf_printf(b, "%d:%s", 42, "x");
    for (int i = 0; i < 1000; i++) /* past the first 4096 bytes */
        strbuf_str(b, "0123456789");
    char big[600];
    memset(big, 'y', sizeof big - 1);
    big[sizeof big - 1] = 0;
    strbuf_printf(b, "<%s>", big); /* longer than strbuf_vprintf's 256-byte stack buffer */
}

/* A hook that counts what it holds and refuses to grow past `limit` bytes. */
typedef struct Counting {
    size_t held, limit;
    int calls;
} Counting;

static void *counting_fn(void *ud, void *ptr, size_t osize, size_t nsize)
{
    Counting *c = ud;
    c->calls++;
    if (nsize > c->limit)
        return NULL;
    void *p = nsize ? realloc(ptr, nsize) : (free(ptr), NULL);
    if (nsize == 0 || p)
        c->held = c->held - osize + nsize;
    return p;
}

static void check_text(const StrBuf *b)
{
    CHECK(!b->oom);
    CHECK(b->n == 2 + 1 + 3 + 4 + 10000 + 601);
    CHECK(b->p && strlen(b->p) == b->n);
    CHECK(b->p && strncmp(b->p, "abc---42:x0123456789", 20) == 0);
    CHECK(b->p && b->p[b->n - 1] == '>' && b->p[b->n - 2] == 'y' && b->p[10010] == '<');
    CHECK(b->cap > b->n);
}

int main(void)
{
    Arena a;
    arena_init(&a, (Allocator){0});
    StrBuf in;
    strbuf_init(&in, &a);
    fill(&in);
    check_text(&in);

    StrBuf heap;
    strbuf_init(&heap, NULL);
    fill(&heap);
    check_text(&heap);
    CHECK(in.p && heap.p && strcmp(in.p, heap.p) == 0);
    strbuf_free(&heap);
    CHECK(!heap.p && heap.n == 0 && heap.cap == 0 && !heap.a);
    strbuf_str(&heap, "again"); /* usable after free */
    CHECK(heap.p && strcmp(heap.p, "again") == 0);
    strbuf_free(&heap);

    Counting cnt = {0, (size_t)1 << 20, 0};
    StrBuf hook;
    strbuf_init_with(&hook, (Allocator){counting_fn, &cnt});
    fill(&hook);
    check_text(&hook);
    CHECK(cnt.calls > 1 && cnt.held == hook.cap);
    strbuf_free(&hook);
    CHECK(cnt.held == 0 && !hook.p && hook.al.ud == &cnt);
    Counting small = {0, 8192, 0}; /* the room stops at 8 KiB: oom, the first 8 KiB's text kept */
    strbuf_init_with(&hook, (Allocator){counting_fn, &small});
    fill(&hook);
    CHECK(hook.oom && hook.n > 4096 && hook.n < 8192 && strlen(hook.p) == hook.n && strncmp(hook.p, "abc---42:x", 10) == 0);
    size_t n = hook.n;
    strbuf_str(&hook, "more");
    CHECK(hook.n == n);
    strbuf_free(&hook);
    CHECK(small.held == 0);

    strbuf_free(&in); /* an arena's buffer: emptied, its memory stays the arena's */
    CHECK(!in.p && in.n == 0 && in.a == &a);
    arena_free(&a);
    if (failures)
        fprintf(stderr, "test_strbuf_rt: %d failures\n", failures);
    return failures ? 1 : 0;
}
