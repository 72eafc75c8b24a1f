/* Arenas: bump allocators that own everything of one lifetime.
 *
 * All memory of a compile (tokens, AST, IR) comes from an arena that is freed in one go; nothing is
 * freed node by node. Chunks come from the context's allocator hook. When the hook fails, the arena
 * jumps to the recovery point of the entry point in progress (Arena.oom), which returns RK_ENOMEM:
 * since every allocation lives in some arena, unwinding leaks nothing. */
#ifndef RK_ARENA_H
#define RK_ARENA_H

#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

/* The allocator hook (same shape as Lua's lua_Alloc): nsize == 0 frees, ptr == NULL allocates. */
typedef void *(*AllocFn)(void *ud, void *ptr, size_t osize, size_t nsize);

typedef struct Allocator {
    AllocFn fn;
    void *ud;
} Allocator;

typedef struct ArenaChunk ArenaChunk;

typedef struct Arena {
    Allocator alloc;
    ArenaChunk *head;
    char *cur, *end;
    size_t bytes;     /* bytes obtained from the hook, for statistics */
    jmp_buf *oom;     /* where to go when the hook fails; NULL: arena_alloc returns NULL */
} Arena;

extern const Allocator arena_default_allocator;

void arena_init(Arena *a, Allocator alloc);
/* Zeroed, 16-byte aligned memory. */
void *arena_alloc(Arena *a, size_t n);
void *arena_realloc(Arena *a, void *old, size_t oldn, size_t n);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Frees every chunk; the arena can be used again afterwards. */
void arena_free(Arena *a);

/* An allocator hook made safe to call from several threads: `inner` (a user's hook need not be
 * thread-safe) called under a lock. The arenas of worker threads get locked_allocator(&la). */
typedef struct LockedAllocator {
    Allocator inner;
    pthread_mutex_t lock;
} LockedAllocator;
void locked_allocator_init(LockedAllocator *la, Allocator inner);
Allocator locked_allocator(LockedAllocator *la);
void locked_allocator_destroy(LockedAllocator *la);

/* Raw allocation through the hook, for the few long-lived objects outside arenas. */
void *arena_alloc_raw(const Allocator *al, size_t n);
void arena_free_raw(const Allocator *al, void *p, size_t n);

/* A growable array of pointers in an arena. */
typedef struct PtrVec {
    void **items;
    int n, cap;
} PtrVec;
void ptrvec_push(Arena *a, PtrVec *v, void *p);

#define ARENA_NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

#endif
