/* The registry of device allocations on host-backed devices (emu and interp).
 *
 * Both host devices check every global access against it, so that an out-of-bounds access is an
 * error naming the address instead of a silent read of neighbouring memory or a crash. Thread-safe:
 * workgroups run on several host threads while the registry is read. */
#ifndef RK_MEMREG_H
#define RK_MEMREG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Returns false when out of memory. */
bool memreg_add(const void *base, size_t bytes);
void memreg_remove(const void *base);
/* True when [addr, addr + bytes) lies inside one registered allocation. */
bool memreg_contains(const void *addr, size_t bytes);
/* The allocation holding the byte at addr: true and [*lo, *hi), or false when none does. */
bool memreg_range(const void *addr, uintptr_t *lo, uintptr_t *hi);

#endif
