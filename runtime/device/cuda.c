/* The `cuda` device, for now a probe: it loads the CUDA driver (libcuda.so.1, or $RK_CUDA_LIB) with
 * dlopen, initialises it and counts the GPUs, and reports cleanly what it found: no library, no
 * device, or a device that rk cannot drive yet (RK_EUNSUPPORTED; the NVIDIA work fills this file in).
 * The library is unloaded after the probe: nothing of it is kept. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/device/device.h"

typedef int CUresult;

rk_status rt_cuda_open(int index, Allocator al, RtDevice **out, char *msg, size_t msglen)
{
    (void)al;
    *out = NULL;
    const char *env = getenv("RK_CUDA_LIB");
    const char *path = env && *env ? env : "libcuda.so.1";
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(msg, msglen, "no CUDA device: cannot load the CUDA driver %s%s: %s", env && *env ? "RK_CUDA_LIB=" : "",
                 path, e ? e : "dlopen failed");
        return RK_ENODEVICE;
    }
    CUresult (*init)(unsigned) = NULL;
    CUresult (*count)(int *) = NULL;
    void *p = dlsym(lib, "cuInit");
    memcpy(&init, &p, sizeof p);
    p = dlsym(lib, "cuDeviceGetCount");
    memcpy(&count, &p, sizeof p);
    rk_status st = RK_ENODEVICE;
    int n = 0;
    CUresult r;
    if (!init || !count)
        snprintf(msg, msglen, "no CUDA device: %s lacks cuInit or cuDeviceGetCount", path);
    else if ((r = init(0)) != 0)
        snprintf(msg, msglen, "no CUDA device: cuInit failed with error %d", r);
    else if ((r = count(&n)) != 0 || n <= 0)
        snprintf(msg, msglen, "no CUDA device%s", r ? ": cuDeviceGetCount failed" : " (cuDeviceGetCount found none)");
    else if (index < 0 || index >= n)
        snprintf(msg, msglen, "no CUDA device %d (found %d)", index, n);
    else {
        snprintf(msg, msglen, "found %d CUDA device%s, but the cuda device is not implemented yet", n, n == 1 ? "" : "s");
        st = RK_EUNSUPPORTED;
    }
    dlclose(lib);
    return st;
}
