/* Interned strings: equal names are equal pointers, so the compiler compares names with ==. */
#ifndef RK_STRTAB_H
#define RK_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"

typedef struct StrTab {
    Arena *arena;
    const char **slots;
    uint32_t *hashes;
    size_t cap, n;
} StrTab;

void strtab_init(StrTab *t, Arena *a);
const char *str_intern(StrTab *t, const char *s, size_t n);
const char *str_intern0(StrTab *t, const char *s);
uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);

#endif
