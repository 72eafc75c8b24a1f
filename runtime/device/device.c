/* Opening a device by kind, the default order, and the error helper every device uses. */
#include "runtime/device/device.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

rk_status rt_dev_fail(RtDevice *d, rk_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
    return st;
}

rk_status rt_device_open(const char *kind, int index, Allocator al, RtDevice **out, char *msg, size_t msglen)
{
    *out = NULL;
    if (strcmp(kind, "hip") == 0)
        return rt_hip_open(index, al, out, msg, msglen);
    if (strcmp(kind, "cuda") == 0)
        return rt_cuda_open(index, al, out, msg, msglen);
    if (index != 0) {
        snprintf(msg, msglen, "device %s has only index 0 (asked for %d)", kind, index);
        return RK_ENODEVICE;
    }
    if (strcmp(kind, "emu") == 0 || strcmp(kind, "emu_sm90") == 0)
        return rt_emu_open(al, strcmp(kind, "emu_sm90") == 0, out, msg, msglen);
    if (strcmp(kind, "interp") == 0)
        return rt_interp_open(al, out, msg, msglen);
    snprintf(msg, msglen, "unknown device '%s'; known devices: hip, cuda, emu, emu_sm90, interp, none", kind);
    return RK_ENODEVICE;
}

/* A GPU that is absent or fails to start is skipped, silently: the default order is a search. Only an
 * out-of-memory stops it, since the fallback would fail the same way. */
rk_status rt_device_open_default(const char *host_kind, Allocator al, RtDevice **out, char *msg, size_t msglen)
{
    rk_status st = rt_hip_open(0, al, out, msg, msglen);
    if (st == RK_OK || st == RK_ENOMEM)
        return st;
    st = rt_cuda_open(0, al, out, msg, msglen);
    if (st == RK_OK || st == RK_ENOMEM)
        return st;
    return rt_device_open(host_kind, 0, al, out, msg, msglen);
}

void rt_device_close(RtDevice *d)
{
    if (d)
        d->ops->release(d);
}
