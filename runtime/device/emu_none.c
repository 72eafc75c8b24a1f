/* The emu devices where there is no emulator: on a host that is not x86-64, whose fibers
 * (runtime/emu/fiber.c) are x86-64 assembly, CMake builds this file in place of emu_dev.c and the
 * emulator proper (see the top-level CMakeLists.txt). Opening `emu` or `emu_sm90` then says why it is
 * absent, as an absent GPU does, and the host devices' memory has no emulator registry to tell. */
#include <stdio.h>

#include "runtime/device/device.h"
#include "runtime/emu/emu.h"

rk_status rt_emu_open(Allocator al, bool sm90, RtDevice **out, char *msg, size_t msglen)
{
    (void)al;
    *out = NULL;
    snprintf(msg, msglen, "no %s device: this runtime was built without the emulator (x86-64 hosts only)",
             sm90 ? "emu_sm90" : "emu");
    return RK_ENODEVICE;
}

void emu_mem_register(const void *base, size_t bytes)
{
    (void)base;
    (void)bytes;
}

void emu_mem_unregister(const void *base)
{
    (void)base;
}
