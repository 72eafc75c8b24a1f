/* What the two host devices (emu and interp) share: device memory that is host memory, registered with
 * the allocation registries the emulator and the interpreter check every access against, and events
 * on the host's clock.
 *
 * Memory: one block from the allocator hook per allocation, over-allocated so that the returned address
 * is 256-byte aligned (as hipMalloc's), with a header just below it that remembers the block. The
 * registered range is exactly [ptr, ptr + bytes), so the header and the slack around it count as out
 * of bounds. Fresh memory is filled with 0xFF: NaN in every float format, -1 in every signed integer,
 * so that a kernel reading memory nobody wrote shows it. */
#include "runtime/device/device.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/emu/emu.h"
#include "runtime/memreg.h"
#include "support/clock.h"

enum { HOST_ALIGN = 256 };

typedef struct HostHeader {
    void *block;
    size_t block_size;
} HostHeader;
_Static_assert(sizeof(HostHeader) <= 16, "the header must fit below the aligned address");

struct RtEvent {
    double ms;
};

rk_status rt_host_malloc(RtDevice *d, size_t bytes, void **ptr)
{
    if (bytes > SIZE_MAX - HOST_ALIGN - 16)
        return rt_dev_fail(d, RK_ENOMEM, "cannot allocate %zu bytes", bytes);
    size_t total = bytes + HOST_ALIGN + 16;
    char *block = arena_alloc_raw(&d->alloc, total);
    if (!block)
        return rt_dev_fail(d, RK_ENOMEM, "out of memory allocating %zu bytes of device memory", bytes);
    uintptr_t p = ((uintptr_t)block + 16 + HOST_ALIGN - 1) & ~(uintptr_t)(HOST_ALIGN - 1);
    HostHeader h = {block, total};
    memcpy((char *)p - 16, &h, sizeof h);
    if (!memreg_add((void *)p, bytes)) {
        arena_free_raw(&d->alloc, block, total);
        return rt_dev_fail(d, RK_ENOMEM, "out of memory registering device memory");
    }
    emu_mem_register((void *)p, bytes);
    memset((void *)p, 0xFF, bytes);
    *ptr = (void *)p;
    return RK_OK;
}

rk_status rt_host_free(RtDevice *d, void *ptr)
{
    if (!ptr)
        return RK_OK;
    HostHeader h;
    memcpy(&h, (char *)ptr - 16, sizeof h);
    emu_mem_unregister(ptr);
    memreg_remove(ptr);
    arena_free_raw(&d->alloc, h.block, h.block_size);
    return RK_OK;
}

rk_status rt_host_memcpy(RtDevice *d, void *dst, const void *src, size_t bytes, RtCopy dir)
{
    (void)d;
    (void)dir;
    memmove(dst, src, bytes);
    return RK_OK;
}

rk_status rt_host_memset(RtDevice *d, void *dst, int value, size_t bytes)
{
    (void)d;
    memset(dst, value, bytes);
    return RK_OK;
}

rk_status rt_host_synchronize(RtDevice *d)
{
    (void)d;
    return RK_OK;
}

rk_status rt_host_event_create(RtDevice *d, RtEvent **ev)
{
    *ev = arena_alloc_raw(&d->alloc, sizeof(RtEvent));
    if (!*ev)
        return rt_dev_fail(d, RK_ENOMEM, "out of memory creating an event");
    (*ev)->ms = -1;
    return RK_OK;
}

rk_status rt_host_event_record(RtDevice *d, RtEvent *ev)
{
    (void)d;
    ev->ms = clock_wall_ms();
    return RK_OK;
}

rk_status rt_host_event_elapsed(RtDevice *d, RtEvent *start, RtEvent *end, float *ms)
{
    if (start->ms < 0 || end->ms < 0)
        return rt_dev_fail(d, RK_EINVAL, "event not recorded");
    *ms = (float)(end->ms - start->ms);
    return RK_OK;
}

void rt_host_event_destroy(RtDevice *d, RtEvent *ev)
{
    arena_free_raw(&d->alloc, ev, sizeof *ev);
}

void rt_host_props(RtProps *p, const char *kind, const char *name)
{
    memset(p, 0, sizeof *p);
    snprintf(p->kind, sizeof p->kind, "%s", kind);
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->arch, sizeof p->arch, "%s", kind);
    snprintf(p->target, sizeof p->target, "%s", kind);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    p->compute_units = n > 0 ? (int)n : 1;
    p->lds_bytes = 65536; /* gfx942's LDS per workgroup, which the emulator models */
    p->wave_size = 64;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    p->global_memory = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}
