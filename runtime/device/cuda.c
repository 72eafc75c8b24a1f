/* The `cuda` device, for now a probe: it loads the CUDA driver (libcuda.so.1, or $RK_CUDA_LIB) with
 * dlopen, initialises it and counts the GPUs, and reports cleanly what it found: no library, no
 * device, or a device that rk cannot drive yet (RK_EUNSUPPORTED; the NVIDIA work fills this file in).
 * The probe runs once per process (the default device order asks at every rk_ctx_create) and the
 * library is unloaded after it: nothing of it is kept. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/device/device.h"

typedef int CUresult;

static pthread_once_t cuda_once = PTHREAD_ONCE_INIT;
static int cuda_count;       /* GPUs found; 0 when none or no driver */
static char cuda_msg[512];   /* why there is none */

static void cuda_probe(void)
{
    const char *env = getenv("RK_CUDA_LIB");
    const char *path = env && *env ? env : "libcuda.so.1";
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(cuda_msg, sizeof cuda_msg, "no CUDA device: cannot load the CUDA driver %s%s: %s",
                 env && *env ? "RK_CUDA_LIB=" : "", path, e ? e : "dlopen failed");
        return;
    }
    CUresult (*init)(unsigned) = NULL;
    CUresult (*count)(int *) = NULL;
    void *p = dlsym(lib, "cuInit");
    memcpy(&init, &p, sizeof p); /* POSIX: dlsym's result converts to a function pointer */
    p = dlsym(lib, "cuDeviceGetCount");
    memcpy(&count, &p, sizeof p);
    int n = 0;
    CUresult r = 0;
    if (!init || !count)
        snprintf(cuda_msg, sizeof cuda_msg, "no CUDA device: %s lacks cuInit or cuDeviceGetCount", path);
    else if ((r = init(0)) != 0)
        snprintf(cuda_msg, sizeof cuda_msg, "no CUDA device: cuInit failed with error %d", r);
    else if ((r = count(&n)) != 0 || n <= 0)
        snprintf(cuda_msg, sizeof cuda_msg, "no CUDA device%s",
                 r ? ": cuDeviceGetCount failed" : " (cuDeviceGetCount found none)");
    else
        cuda_count = n;
    dlclose(lib);
}

rk_status rt_cuda_open(int index, Allocator al, RtDevice **out, char *msg, size_t msglen)
{
    (void)al;
    *out = NULL;
    pthread_once(&cuda_once, cuda_probe);
    if (cuda_count == 0) {
        snprintf(msg, msglen, "%s", cuda_msg);
        return RK_ENODEVICE;
    }
    if (index < 0 || index >= cuda_count) {
        snprintf(msg, msglen, "no CUDA device %d (found %d)", index, cuda_count);
        return RK_ENODEVICE;
    }
    snprintf(msg, msglen, "found %d CUDA device%s, but the cuda device is not implemented yet", cuda_count,
             cuda_count == 1 ? "" : "s");
    return RK_EUNSUPPORTED;
}
