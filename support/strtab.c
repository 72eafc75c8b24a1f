/* String interning with open addressing (FNV-1a hashes, power-of-two table, load factor ≤ 1/2). */
#include "strtab.h"

#include <string.h>

uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
    const unsigned char *s = p;
    uint64_t h = 1469598103934665603ull ^ seed;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ull;
    }
    return h;
}

void strtab_init(StrTab *t, Arena *a)
{
    memset(t, 0, sizeof *t);
    t->arena = a;
}

static void strtab_grow(StrTab *t)
{
    size_t cap = t->cap ? t->cap * 2 : 256;
    const char **slots = ARENA_ARRAY(t->arena, const char *, cap);
    uint32_t *hashes = ARENA_ARRAY(t->arena, uint32_t, cap);
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i])
            continue;
        size_t j = t->hashes[i] & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = t->slots[i];
        hashes[j] = t->hashes[i];
    }
    t->slots = slots;
    t->hashes = hashes;
    t->cap = cap;
}

const char *str_intern(StrTab *t, const char *s, size_t n)
{
    if (2 * (t->n + 1) > t->cap)
        strtab_grow(t);
    uint32_t h = (uint32_t)hash_bytes(s, n, 0);
    size_t j = h & (t->cap - 1);
    while (t->slots[j]) {
        if (t->hashes[j] == h && strncmp(t->slots[j], s, n) == 0 && t->slots[j][n] == 0)
            return t->slots[j];
        j = (j + 1) & (t->cap - 1);
    }
    const char *copy = arena_strndup(t->arena, s, n);
    t->slots[j] = copy;
    t->hashes[j] = h;
    t->n++;
    return copy;
}

const char *str_intern0(StrTab *t, const char *s)
{
    return str_intern(t, s, strlen(s));
}
