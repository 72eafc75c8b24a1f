/* A growable string in an arena, for text built piece by piece (the AST and ISA printers, the bundle
 * manifest) and for bytes (the ELF writer, the caches' records).
 *
 * The room doubles as it fills, so at most twice the final size is used; the arena keeps the old
 * copies until it is freed. After any append, p is NUL-terminated past its n bytes. An allocation that
 * fails jumps to the arena's recovery point as every allocation does; an arena without one returns
 * NULL, and the buffer then sets oom, keeps what it had and ignores later appends.
 *
 * Without an arena the room comes from an allocator hook: malloc's (strbuf_init(b, NULL)), for text
 * gathered where the arena must not be touched (while LLVM holds the thread, codegen.c; the
 * interpreter's threads), or a context's (strbuf_init_with: the runtime's records and profile, whose
 * memory all goes through the user's hook); strbuf_free gives it back. */
#ifndef RK_STRBUF_H
#define RK_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "arena.h"

typedef struct StrBuf {
    Arena *a;     /* NULL: the room comes from al */
    Allocator al; /* without an arena: the hook; none (a zeroed StrBuf) is malloc's */
    char *p;      /* NULL until the first append (even of nothing) */
    size_t n; /* bytes in p, not counting the NUL */
    size_t cap;
    bool oom;
} StrBuf;

void strbuf_init(StrBuf *b, Arena *a);
/* A buffer whose room comes from the hook al. */
void strbuf_init_with(StrBuf *b, Allocator al);
/* Frees the room of a buffer without an arena (nothing for an arena's) and empties it. */
void strbuf_free(StrBuf *b);
void strbuf_put(StrBuf *b, const void *data, size_t n);
void strbuf_str(StrBuf *b, const char *s);
void strbuf_ch(StrBuf *b, char c);
/* n copies of c. */
void strbuf_fill(StrBuf *b, char c, size_t n);
void strbuf_printf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vprintf(StrBuf *b, const char *fmt, va_list ap);

#endif
