/* The registry of global memory the emulator knows, against which every global access is checked.
 *
 * Allocations are kept in one array sorted by base address, guarded by a read-write lock. Checks do not
 * take the lock: each launch copies the array once (emu_mem_snapshot) and looks accesses up in its copy
 * by binary search. That is sound because a kernel may only touch memory allocated before its launch,
 * and memory freed while a kernel runs is a bug of the host program either way. Ranges are assumed not
 * to overlap; registering a base again replaces its size. */
#include "runtime/emu/emu_internal.h"

#include <stdlib.h>
#include <string.h>

static pthread_rwlock_t mem_lock = PTHREAD_RWLOCK_INITIALIZER;
static EmuRange *mem_r;
static size_t mem_n, mem_cap;

/* The index of the first range with lo > a (so the candidate holding a is the one before). */
static size_t upper_bound(const EmuRange *r, size_t n, uintptr_t a)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r[mid].lo <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void emu_mem_register(const void *base, size_t bytes)
{
    if (!base)
        return;
    uintptr_t lo = (uintptr_t)base;
    uintptr_t hi = bytes > UINTPTR_MAX - lo ? UINTPTR_MAX : lo + bytes;
    pthread_rwlock_wrlock(&mem_lock);
    size_t i = upper_bound(mem_r, mem_n, lo);
    if (i > 0 && mem_r[i - 1].lo == lo) {
        mem_r[i - 1].hi = hi;
    } else {
        if (mem_n == mem_cap) {
            size_t cap = mem_cap ? mem_cap * 2 : 64;
            EmuRange *r = realloc(mem_r, cap * sizeof *r);
            if (!r) {
                /* The API cannot report this; the range stays unknown and accesses to it fail as
                 * out of bounds, which is loud rather than silent. */
                pthread_rwlock_unlock(&mem_lock);
                return;
            }
            mem_r = r;
            mem_cap = cap;
        }
        memmove(mem_r + i + 1, mem_r + i, (mem_n - i) * sizeof *mem_r);
        mem_r[i] = (EmuRange){lo, hi};
        mem_n++;
    }
    pthread_rwlock_unlock(&mem_lock);
}

void emu_mem_unregister(const void *base)
{
    uintptr_t lo = (uintptr_t)base;
    pthread_rwlock_wrlock(&mem_lock);
    size_t i = upper_bound(mem_r, mem_n, lo);
    if (i > 0 && mem_r[i - 1].lo == lo) {
        memmove(mem_r + i - 1, mem_r + i, (mem_n - i) * sizeof *mem_r);
        mem_n--;
    }
    pthread_rwlock_unlock(&mem_lock);
}

bool emu_mem_snapshot(EmuMemSnap *s)
{
    pthread_rwlock_rdlock(&mem_lock);
    s->n = mem_n;
    s->r = malloc((mem_n ? mem_n : 1) * sizeof *s->r);
    if (s->r)
        memcpy(s->r, mem_r, mem_n * sizeof *s->r);
    pthread_rwlock_unlock(&mem_lock);
    return s->r != NULL;
}

void emu_mem_snap_free(EmuMemSnap *s)
{
    free(s->r);
    s->r = NULL;
    s->n = 0;
}

const EmuRange *emu_mem_find(const EmuMemSnap *s, uintptr_t a, uint64_t bytes)
{
    size_t i = upper_bound(s->r, s->n, a);
    if (i == 0)
        return NULL;
    const EmuRange *r = &s->r[i - 1];
    if (a < r->hi && bytes <= r->hi - a)
        return r;
    return NULL;
}
