/* Allocation registry: a sorted array of [base, end) ranges under a reader-writer lock. Lookups are a
 * binary search; additions and removals (one per rk_malloc/rk_free) are rare. */
#include "runtime/memreg.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct Range {
    uintptr_t base, end;
} Range;

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static Range *ranges;
static size_t nranges, cap;

/* Index of the first range with base > p. */
static size_t upper(uintptr_t p)
{
    size_t lo = 0, hi = nranges;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ranges[mid].base <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool memreg_add(const void *base, size_t bytes)
{
    uintptr_t b = (uintptr_t)base;
    pthread_rwlock_wrlock(&lock);
    if (nranges == cap) {
        size_t ncap = cap ? cap * 2 : 64;
        Range *r = realloc(ranges, ncap * sizeof *r);
        if (!r) {
            pthread_rwlock_unlock(&lock);
            return false;
        }
        ranges = r;
        cap = ncap;
    }
    size_t i = upper(b);
    memmove(&ranges[i + 1], &ranges[i], (nranges - i) * sizeof *ranges);
    ranges[i] = (Range){b, b + bytes};
    nranges++;
    pthread_rwlock_unlock(&lock);
    return true;
}

void memreg_remove(const void *base)
{
    uintptr_t b = (uintptr_t)base;
    pthread_rwlock_wrlock(&lock);
    size_t i = upper(b);
    if (i > 0 && ranges[i - 1].base == b) {
        memmove(&ranges[i - 1], &ranges[i], (nranges - i) * sizeof *ranges);
        nranges--;
    }
    if (nranges == 0) {
        free(ranges);
        ranges = NULL;
        cap = 0;
    }
    pthread_rwlock_unlock(&lock);
}

bool memreg_contains(const void *addr, size_t bytes)
{
    uintptr_t p = (uintptr_t)addr;
    if (p + bytes < p)
        return false;
    pthread_rwlock_rdlock(&lock);
    size_t i = upper(p);
    bool ok = i > 0 && p + bytes <= ranges[i - 1].end;
    pthread_rwlock_unlock(&lock);
    return ok;
}

bool memreg_range(const void *addr, uintptr_t *lo, uintptr_t *hi)
{
    uintptr_t p = (uintptr_t)addr;
    pthread_rwlock_rdlock(&lock);
    size_t i = upper(p);
    bool ok = i > 0 && p < ranges[i - 1].end;
    if (ok) {
        *lo = ranges[i - 1].base;
        *hi = ranges[i - 1].end;
    }
    pthread_rwlock_unlock(&lock);
    return ok;
}
