/* Buffer instructions (MUBUF) on a raw buffer, as gfx942 executes them: what code compiled for emu
 * runs where the gfx942 lowering addresses a pointer parameter with the fact NAME<2G through a buffer
 * resource (isa/emu_abi.h, EmuFns.buffer_load / buffer_store).
 *
 * Written from AMD's CDNA3 ISA reference ("Vector Memory Buffer Instructions": the V# layout, and
 * range checking for a linear buffer, stride 0 and no swizzle) and LLVM's AMDGPU notes on buffer
 * out-of-bounds handling: accesses wider than 32 bits are range-checked one dword at a time, the
 * offset taken as unsigned; out-of-range reads return zero and out-of-range writes are dropped. A
 * resource whose DATA_FORMAT is 0 is invalid, every access out of range. The bytes that are in range
 * go through fns->check like any global access, so a true overrun of the allocation is still
 * reported, and a masked-off lane (whose offset the compiler put out of range) touches nothing. */
#include "runtime/emu/emu_internal.h"

#include <string.h>

/* Whether bytes [voffset + at, voffset + at + n) of the access lie below num_records. */
static int in_range(uint32_t voffset, uint32_t at, uint32_t n, uint32_t num_records)
{
    uint64_t end = (uint64_t)voffset + at + n; /* no wrap: the hardware's offset is unsigned, saturating */
    return end <= num_records;
}

static void decode(const uint32_t *v, uintptr_t *base, uint32_t *stride, uint32_t *num_records, int *valid)
{
    *base = (uintptr_t)v[0] | (uintptr_t)(v[1] & 0xffffu) << 32;
    *stride = v[1] >> 16 & 0x3fffu;
    *num_records = v[2];
    *valid = (v[3] >> 15 & 0xfu) != 0; /* DATA_FORMAT */
}

static void buffer_access(EmuLane *l, const uint32_t *vsharp, uint32_t voffset, uint32_t soffset, int32_t bytes,
                          void *dst, const void *src, int32_t flags, const char *site)
{
    uintptr_t base;
    uint32_t stride, num_records;
    int valid;
    decode(vsharp, &base, &stride, &num_records, &valid);
    if (stride != 0)
        valid = 0; /* a strided (structured) buffer: not what the compiler builds; treated as invalid */
    unsigned char *addr = (unsigned char *)(base + soffset + voffset);
    if (valid && in_range(voffset, 0, (uint32_t)bytes, num_records)) { /* all of it: one check */
        l->fns->check(l, addr, (uint64_t)bytes, flags, site);
        if (dst)
            memcpy(dst, addr, (size_t)bytes);
        else
            memcpy(addr, src, (size_t)bytes);
        return;
    }
    uint32_t unit = bytes < 4 ? (uint32_t)bytes : 4;
    for (uint32_t at = 0; at < (uint32_t)bytes; at += unit) {
        int in = valid && in_range(voffset, at, unit, num_records);
        if (dst) {
            if (in) {
                l->fns->check(l, addr + at, unit, flags, site);
                memcpy((unsigned char *)dst + at, addr + at, unit);
            } else {
                memset((unsigned char *)dst + at, 0, unit);
            }
        } else if (in) {
            l->fns->check(l, addr + at, unit, flags, site);
            memcpy(addr + at, (const unsigned char *)src + at, unit);
        }
    }
}

void emu_op_buffer_load(EmuLane *l, const uint32_t *vsharp, uint32_t voffset, uint32_t soffset, int32_t bytes,
                        void *dst, int32_t flags, const char *site)
{
    buffer_access(l, vsharp, voffset, soffset, bytes, dst, NULL, flags, site);
}

void emu_op_buffer_store(EmuLane *l, const uint32_t *vsharp, uint32_t voffset, uint32_t soffset, int32_t bytes,
                         const void *src, int32_t flags, const char *site)
{
    buffer_access(l, vsharp, voffset, soffset, bytes, NULL, src, flags, site);
}
