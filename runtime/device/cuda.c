/* The `cuda` device: NVIDIA GPUs of compute capability 9.0 (H100, H200) through the CUDA driver API,
 * loaded with dlopen.
 *
 * As for hip.c, nothing links against a vendor library: the entry points used are declared here with
 * their C signatures (CUDA 12/13 headers) and looked up once per process in $RK_CUDA_LIB (only there
 * when set) or libcuda.so.1, by the versioned names the headers map them to (cuMemAlloc_v2 ...). The
 * library is never unloaded, and each GPU's primary context, retained at the first open, is kept for
 * the life of the process: creating one costs a fraction of a second, and the default device order
 * opens the GPU at every rk_ctx_create. Contexts free their memory, modules and events themselves.
 *
 * The code object is PTX text (rkc --target=sm_90: PTX ISA 8.0, .target sm_90a), which the driver
 * compiles at load time; a JIT error is reported with the driver's log. Facts relied on:
 *  - a kernel's .entry takes the kernel's run-time parameters in order, each at its natural size: the
 *    argument block the API lays out. They go to cuLaunchKernel as `kernelParams`, a pointer to each
 *    argument inside the block (RtLaunch.args): the driver takes each parameter's size from the image.
 *    (Passing the block itself through `extra` would need its exact size without tail padding, which
 *    the driver checks and RtLaunch does not carry: kernarg_size is rounded up to 8.)
 *  - shared memory is one dynamic extern array: sharedMemBytes is the kernel's LDS size, and above
 *    48 KiB the kernel must first be allowed it with CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
 *    up to CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN (227 KiB on sm_90);
 *  - block = num_warps × 32 threads (RtLaunch.block), in x.
 * Device pointers are CUdeviceptr, 64-bit addresses in CUDA's unified address space: `void *` here.
 * Launches, memsets and events go to the legacy default stream, so everything is ordered. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/device/device.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUevent;
typedef void *CUstream;

enum {
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_FOUND = 500,
    CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
    CU_EVENT_DEFAULT = 0,
    STATIC_SHARED_LIMIT = 48 * 1024, /* what a launch may take without the attribute */
    MAX_GPUS = 64,
};

typedef struct CudaApi {
    CUresult (*Init)(unsigned flags);
    CUresult (*DeviceGetCount)(int *n);
    CUresult (*DeviceGet)(CUdevice *dev, int ordinal);
    CUresult (*DeviceGetName)(char *name, int len, CUdevice dev);
    CUresult (*DeviceGetAttribute)(int *v, int attr, CUdevice dev);
    CUresult (*DeviceTotalMem)(size_t *bytes, CUdevice dev);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
    CUresult (*CtxSetCurrent)(CUcontext ctx);
    CUresult (*CtxSynchronize)(void);
    CUresult (*MemAlloc)(CUdeviceptr *p, size_t n);
    CUresult (*MemFree)(CUdeviceptr p);
    CUresult (*MemcpyHtoD)(CUdeviceptr dst, const void *src, size_t n);
    CUresult (*MemcpyDtoH)(void *dst, CUdeviceptr src, size_t n);
    CUresult (*MemcpyDtoD)(CUdeviceptr dst, CUdeviceptr src, size_t n);
    CUresult (*MemsetD8)(CUdeviceptr dst, unsigned char v, size_t n);
    CUresult (*ModuleLoadDataEx)(CUmodule *m, const void *image, unsigned nopts, int *opts, void **vals);
    CUresult (*ModuleUnload)(CUmodule m);
    CUresult (*ModuleGetFunction)(CUfunction *f, CUmodule m, const char *name);
    CUresult (*FuncSetAttribute)(CUfunction f, int attr, int value);
    CUresult (*LaunchKernel)(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                             unsigned bz, unsigned shared, CUstream s, void **params, void **extra);
    CUresult (*EventCreate)(CUevent *e, unsigned flags);
    CUresult (*EventRecord)(CUevent e, CUstream s);
    CUresult (*EventSynchronize)(CUevent e);
    CUresult (*EventElapsedTime)(float *ms, CUevent a, CUevent b);
    CUresult (*EventDestroy)(CUevent e);
    CUresult (*GetErrorName)(CUresult e, const char **s);
    CUresult (*GetErrorString)(CUresult e, const char **s);
    /* optional: drivers before CUDA 12 lack it, and then no TMA kernel runs */
    CUresult (*TensorMapEncodeTiled)(void *map, int dtype, unsigned rank, void *base, const uint64_t *dims,
                                     const uint64_t *strides, const unsigned *box, const unsigned *estrides,
                                     int interleave, int swizzle, int l2promotion, int oobfill);
} CudaApi;

/* Process-wide: the library, its entry points, the outcome of cuInit, and each GPU's primary context. */
static pthread_once_t cuda_once = PTHREAD_ONCE_INIT;
static CudaApi C;
static rk_status cuda_status = RK_ENODEVICE;
static char cuda_msg[512];
static int cuda_count;
static pthread_mutex_t cuda_ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext cuda_ctxs[MAX_GPUS];

/* "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected (error 100)" */
static const char *cu_err(CUresult e)
{
    static __thread char buf[192];
    const char *name = NULL, *desc = NULL;
    if (C.GetErrorName && C.GetErrorName(e, &name) != 0)
        name = NULL;
    if (C.GetErrorString && C.GetErrorString(e, &desc) != 0)
        desc = NULL;
    snprintf(buf, sizeof buf, "%s%s%s (error %d)", name ? name : "CUDA error", desc ? ": " : "", desc ? desc : "", e);
    return buf;
}

static void cuda_load_once(void)
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
    /* Each entry point by the name cuda.h maps it to, then an older spelling where drivers differ. */
    struct {
        void *slot;
        const char *name, *alt;
        bool required;
    } syms[] = {
        {&C.Init, "cuInit", NULL, true},
        {&C.DeviceGetCount, "cuDeviceGetCount", NULL, true},
        {&C.DeviceGet, "cuDeviceGet", NULL, true},
        {&C.DeviceGetName, "cuDeviceGetName", NULL, false},
        {&C.DeviceGetAttribute, "cuDeviceGetAttribute", NULL, true},
        {&C.DeviceTotalMem, "cuDeviceTotalMem_v2", NULL, false},
        {&C.DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL, true},
        {&C.CtxSetCurrent, "cuCtxSetCurrent", NULL, true},
        {&C.CtxSynchronize, "cuCtxSynchronize", NULL, true},
        {&C.MemAlloc, "cuMemAlloc_v2", NULL, true},
        {&C.MemFree, "cuMemFree_v2", NULL, true},
        {&C.MemcpyHtoD, "cuMemcpyHtoD_v2", NULL, true},
        {&C.MemcpyDtoH, "cuMemcpyDtoH_v2", NULL, true},
        {&C.MemcpyDtoD, "cuMemcpyDtoD_v2", NULL, true},
        {&C.MemsetD8, "cuMemsetD8_v2", NULL, true},
        {&C.ModuleLoadDataEx, "cuModuleLoadDataEx", NULL, true},
        {&C.ModuleUnload, "cuModuleUnload", NULL, true},
        {&C.ModuleGetFunction, "cuModuleGetFunction", NULL, true},
        {&C.FuncSetAttribute, "cuFuncSetAttribute", NULL, true},
        {&C.LaunchKernel, "cuLaunchKernel", NULL, true},
        {&C.EventCreate, "cuEventCreate", NULL, true},
        {&C.EventRecord, "cuEventRecord", NULL, true},
        {&C.EventSynchronize, "cuEventSynchronize", NULL, true},
        /* cuda.h 12.8+ maps this one to _v2; every driver still exports the first. */
        {&C.EventElapsedTime, "cuEventElapsedTime", "cuEventElapsedTime_v2", true},
        {&C.EventDestroy, "cuEventDestroy_v2", "cuEventDestroy", true},
        {&C.GetErrorName, "cuGetErrorName", NULL, false},
        {&C.GetErrorString, "cuGetErrorString", NULL, false},
        {&C.TensorMapEncodeTiled, "cuTensorMapEncodeTiled", NULL, false},
};
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *p = dlsym(lib, syms[i].name);
        if (!p && syms[i].alt)
            p = dlsym(lib, syms[i].alt);
        if (!p && syms[i].required) {
            snprintf(cuda_msg, sizeof cuda_msg, "no CUDA device: the CUDA driver %s lacks %s", path, syms[i].name);
            memset(&C, 0, sizeof C);
            return;
        }
        memcpy(syms[i].slot, &p, sizeof p); /* POSIX: dlsym's result converts to a function pointer */
    }
    CUresult e = C.Init(0);
    if (e != 0) {
        snprintf(cuda_msg, sizeof cuda_msg, "no CUDA device: cuInit failed with %s", cu_err(e));
        return;
    }
    e = C.DeviceGetCount(&cuda_count);
    if (e != 0 || cuda_count <= 0) {
        snprintf(cuda_msg, sizeof cuda_msg, "no CUDA device%s%s", e ? ": cuDeviceGetCount failed with " : "",
                 e ? cu_err(e) : " (cuDeviceGetCount found none)");
        cuda_count = 0;
        return;
    }
    cuda_status = RK_OK;
}

/* ---- the device ---- */

typedef struct Cuda {
    CUcontext ctx;
    int ordinal;
} Cuda;

struct RtFunc {
    CUfunction f;
    unsigned shared_optin; /* dynamic shared memory the function is allowed so far (0: the default 48 KiB) */
    RtFunc *next;          /* the module's functions, freed with it */
};

struct RtModule {
    CUmodule m;
    RtFunc *funcs;
};

struct RtEvent {
    CUevent e;
};

static CUdeviceptr dptr(const void *p)
{
    return (CUdeviceptr)(uintptr_t)p;
}

/* The current context is per thread and a context may move between threads: set it every time. */
static rk_status cuda_enter(RtDevice *d)
{
    CUresult e = C.CtxSetCurrent(((Cuda *)d->impl)->ctx);
    return e ? rt_dev_fail(d, RK_EDEVICE, "cuCtxSetCurrent failed: %s", cu_err(e)) : RK_OK;
}

#define CU_CALL(d, call, what)                                                                                     \
    do {                                                                                                           \
        CUresult e_ = (call);                                                                                      \
        if (e_)                                                                                                    \
            return rt_dev_fail((d), RK_EDEVICE, "%s failed: %s", (what), cu_err(e_));                              \
    } while (0)

static rk_status cuda_malloc(RtDevice *d, size_t bytes, void **ptr)
{
    rk_status st = cuda_enter(d);
    if (st)
        return st;
    CUdeviceptr p = 0;
    CUresult e = C.MemAlloc(&p, bytes);
    if (e == CUDA_ERROR_OUT_OF_MEMORY)
        return rt_dev_fail(d, RK_ENOMEM, "cuMemAlloc of %zu bytes: out of device memory", bytes);
    if (e)
        return rt_dev_fail(d, RK_EDEVICE, "cuMemAlloc of %zu bytes failed: %s", bytes, cu_err(e));
    *ptr = (void *)(uintptr_t)p;
    return RK_OK;
}

static rk_status cuda_free(RtDevice *d, void *ptr)
{
    rk_status st = cuda_enter(d);
    if (st)
        return st;
    CU_CALL(d, C.MemFree(dptr(ptr)), "cuMemFree");
    return RK_OK;
}

static rk_status cuda_memcpy(RtDevice *d, void *dst, const void *src, size_t bytes, RtCopy dir)
{
    rk_status st = cuda_enter(d);
    if (st)
        return st;
    switch (dir) {
    case RT_HTOD:
        CU_CALL(d, C.MemcpyHtoD(dptr(dst), src, bytes), "cuMemcpyHtoD");
        break;
    case RT_DTOH:
        CU_CALL(d, C.MemcpyDtoH(dst, dptr(src), bytes), "cuMemcpyDtoH");
        break;
    case RT_DTOD:
        /* Asynchronous for the host; rk.h promises a copy complete on return. */
        CU_CALL(d, C.MemcpyDtoD(dptr(dst), dptr(src), bytes), "cuMemcpyDtoD");
        CU_CALL(d, C.CtxSynchronize(), "cuCtxSynchronize after cuMemcpyDtoD");
        break;
    }
    return RK_OK;
}

static rk_status cuda_memset(RtDevice *d, void *dst, int value, size_t bytes)
{
    rk_status st = cuda_enter(d);
    if (st)
        return st;
    CU_CALL(d, C.MemsetD8(dptr(dst), (unsigned char)value, bytes), "cuMemsetD8");
    return RK_OK;
}

/* The JIT's log on one line: its lines joined by "; ", trailing blanks dropped. */
static void one_line(const char *log, char *out, size_t outlen)
{
    size_t n = 0;
    bool sep = false;
    for (const char *p = log; *p && n + 3 < outlen; p++) {
        if (*p == '\n' || *p == '\r') {
            sep = n > 0;
            continue;
        }
        if (sep) {
            out[n++] = ';';
            out[n++] = ' ';
            sep = false;
        }
        out[n++] = *p;
    }
    while (n && out[n - 1] == ' ')
        n--;
    out[n] = 0;
}

static rk_status cuda_load(RtDevice *d, const void *binary, size_t size, RtModule **mod)
{
    const unsigned char *b = binary;
    if (!b || size == 0)
        return rt_dev_fail(d, RK_EDEVICE, "cannot load an empty code object on device cuda");
    /* A cubin (ELF) or fatbin goes as it is; PTX is text the driver reads up to a NUL. */
    bool text = size < 4 || (memcmp(b, "\x7f" "ELF", 4) != 0 && memcmp(b, "\x50\xed\x55\xba", 4) != 0);
    char why[256];
    if (size >= 4 && memcmp(b, "\x7f" "ELF", 4) == 0 && !rt_elf_extents_ok(b, size, why, sizeof why))
        return rt_dev_fail(d, RK_EDEVICE, "cannot load the cubin: %s", why);
    char *copy = NULL;
    if (text && !memchr(b, 0, size)) {
        if (!(copy = arena_alloc_raw(&d->alloc, size + 1)))
            return rt_dev_fail(d, RK_ENOMEM, "out of memory loading a module");
        memcpy(copy, b, size);
        copy[size] = 0;
    }
    RtModule *m = arena_alloc_raw(&d->alloc, sizeof *m);
    rk_status st = m ? cuda_enter(d) : rt_dev_fail(d, RK_ENOMEM, "out of memory loading a module");
    if (st == RK_OK) {
        char log[4096] = "", line[1024];
        int opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
        void *vals[] = {log, (void *)(uintptr_t)sizeof log};
        memset(m, 0, sizeof *m);
        CUresult e = C.ModuleLoadDataEx(&m->m, copy ? copy : binary, 2, opts, vals);
        if (e) {
            log[sizeof log - 1] = 0;
            one_line(log, line, sizeof line);
            st = rt_dev_fail(d, RK_EDEVICE, "cuModuleLoadDataEx failed: %s%s%s", cu_err(e), line[0] ? ": " : "",
                             line);
        }
    }
    if (copy)
        arena_free_raw(&d->alloc, copy, size + 1);
    if (st) {
        if (m)
            arena_free_raw(&d->alloc, m, sizeof *m);
        return st;
    }
    *mod = m;
    return RK_OK;
}

static void cuda_unload(RtDevice *d, RtModule *mod)
{
    if (cuda_enter(d) == RK_OK)
        C.ModuleUnload(mod->m);
    for (RtFunc *f = mod->funcs, *next; f; f = next) {
        next = f->next;
        arena_free_raw(&d->alloc, f, sizeof *f);
    }
    arena_free_raw(&d->alloc, mod, sizeof *mod);
}

static rk_status cuda_function(RtDevice *d, RtModule *mod, const char *symbol, RtFunc **fn)
{
    rk_status st = cuda_enter(d);
    if (st)
        return st;
    CUfunction f = NULL;
    CUresult e = C.ModuleGetFunction(&f, mod->m, symbol);
    if (e == CUDA_ERROR_NOT_FOUND)
        return rt_dev_fail(d, RK_ENOTFOUND, "no kernel '%s' in the module: %s", symbol, cu_err(e));
    if (e)
        return rt_dev_fail(d, RK_EDEVICE, "cuModuleGetFunction(%s) failed: %s", symbol, cu_err(e));
    RtFunc *r = arena_alloc_raw(&d->alloc, sizeof *r);
    if (!r)
        return rt_dev_fail(d, RK_ENOMEM, "out of memory resolving kernel '%s'", symbol);
    *r = (RtFunc){f, 0, mod->funcs};
    mod->funcs = r;
    *fn = r;
    return RK_OK;
}

static rk_status cuda_launch(RtDevice *d, const RtLaunch *l)
{
    RtFunc *fn = l->fn;
    if (d->props.lds_bytes > 0 && l->lds_bytes > (uint32_t)d->props.lds_bytes)
        return rt_dev_fail(d, RK_EDEVICE, "kernel %s needs %u bytes of shared memory; %s allows %d per block",
                           l->name, l->lds_bytes, d->props.name, d->props.lds_bytes);
    if (l->grid[1] > 65535 || l->grid[2] > 65535 || l->grid[0] > 0x7fffffffu)
        return rt_dev_fail(d, RK_EDEVICE, "kernel %s: grid %u x %u x %u exceeds CUDA's limits (2^31 - 1 x 65535 x 65535)",
                           l->name, l->grid[0], l->grid[1], l->grid[2]);
    rk_status st = cuda_enter(d);
    if (st)
        return st;
    if (l->lds_bytes > STATIC_SHARED_LIMIT && fn->shared_optin < l->lds_bytes) {
        CUresult e = C.FuncSetAttribute(fn->f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)l->lds_bytes);
        if (e)
            return rt_dev_fail(d, RK_EDEVICE, "kernel %s: allowing it %u bytes of dynamic shared memory failed: %s",
                               l->name, l->lds_bytes, cu_err(e));
        fn->shared_optin = l->lds_bytes;
    }
    /* The driver only reads the pointers and what they point to. */
    void **params = l->nargs > 0 ? (void **)(uintptr_t)l->args : NULL;
    CUresult e = C.LaunchKernel(fn->f, l->grid[0], l->grid[1], l->grid[2], l->block, 1, 1, l->lds_bytes, NULL, params,
                                NULL);
    if (e)
        return rt_dev_fail(d, RK_EDEVICE, "launch of %s (grid %u x %u x %u, block %u, %u bytes of shared memory) failed: %s",
                           l->name, l->grid[0], l->grid[1], l->grid[2], l->block, l->lds_bytes, cu_err(e));
    return RK_OK;
}

/* CUtensorMap's enums (cuda.h): data types UINT8 0, UINT16 1, UINT32 2 (TMA only moves the bytes);
 * interleave none 0; swizzle none 0, 32B 1, 64B 2, 128B 3; L2 promotion 128B 2; out-of-bounds fill
 * with zeros 0. */
static rk_status cuda_tensor_map(RtDevice *d, void *map, const RtTensorMapDesc *t)
{
    if (!C.TensorMapEncodeTiled)
        return rt_dev_fail(d, RK_EDEVICE, "the CUDA driver lacks cuTensorMapEncodeTiled (CUDA 12 or later is needed for TMA)");
    int dtype = t->esize == 1 ? 0 : t->esize == 2 ? 1 : 2;
    int swizzle = t->swizzle == 128 ? 3 : t->swizzle == 64 ? 2 : t->swizzle == 32 ? 1 : 0;
    unsigned estrides[3] = {1, 1, 1};
    CUresult e = C.TensorMapEncodeTiled(map, dtype, (unsigned)t->rank, (void *)(uintptr_t)t->base, t->dim,
                                        t->stride_bytes, t->box, estrides, 0, swizzle, 2, 0);
    if (e)
        return rt_dev_fail(d, RK_EDEVICE,
                           "cuTensorMapEncodeTiled failed: %s (base 0x%llx, dims %llu x %llu x %llu, strides %llu and "
                           "%llu bytes, box %u x %u, swizzle %d bytes, rank %d)",
                           cu_err(e), (unsigned long long)t->base, (unsigned long long)t->dim[0],
                           (unsigned long long)t->dim[1], (unsigned long long)t->dim[2],
                           (unsigned long long)t->stride_bytes[0], (unsigned long long)t->stride_bytes[1], t->box[0],
                           t->box[1], t->swizzle, t->rank);
    return RK_OK;
}

static rk_status cuda_synchronize(RtDevice *d)
{
    rk_status st = cuda_enter(d);
    if (st)
        return st;
    CU_CALL(d, C.CtxSynchronize(), "cuCtxSynchronize");
    return RK_OK;
}

static rk_status cuda_event_create(RtDevice *d, RtEvent **ev)
{
    rk_status st = cuda_enter(d);
    if (st)
        return st;
    RtEvent *e = arena_alloc_raw(&d->alloc, sizeof *e);
    if (!e)
        return rt_dev_fail(d, RK_ENOMEM, "out of memory creating an event");
    CUresult ce = C.EventCreate(&e->e, CU_EVENT_DEFAULT);
    if (ce) {
        arena_free_raw(&d->alloc, e, sizeof *e);
        return rt_dev_fail(d, RK_EDEVICE, "cuEventCreate failed: %s", cu_err(ce));
    }
    *ev = e;
    return RK_OK;
}

static rk_status cuda_event_record(RtDevice *d, RtEvent *ev)
{
    rk_status st = cuda_enter(d);
    if (st)
        return st;
    CU_CALL(d, C.EventRecord(ev->e, NULL), "cuEventRecord");
    return RK_OK;
}

static rk_status cuda_event_elapsed(RtDevice *d, RtEvent *start, RtEvent *end, float *ms)
{
    rk_status st = cuda_enter(d);
    if (st)
        return st;
    CU_CALL(d, C.EventSynchronize(end->e), "cuEventSynchronize");
    CU_CALL(d, C.EventElapsedTime(ms, start->e, end->e), "cuEventElapsedTime");
    return RK_OK;
}

static void cuda_event_destroy(RtDevice *d, RtEvent *ev)
{
    if (cuda_enter(d) == RK_OK)
        C.EventDestroy(ev->e);
    arena_free_raw(&d->alloc, ev, sizeof *ev);
}

static void cuda_release(RtDevice *d)
{
    arena_free_raw(&d->alloc, d->impl, sizeof(Cuda));
    arena_free_raw(&d->alloc, d, sizeof *d);
}

static const RtDeviceOps cuda_ops = {
    .kind = "cuda",
    .tensor_map = cuda_tensor_map,
    .malloc = cuda_malloc,
    .free = cuda_free,
    .memcpy = cuda_memcpy,
    .memset = cuda_memset,
    .load = cuda_load,
    .unload = cuda_unload,
    .function = cuda_function,
    .launch = cuda_launch,
    .synchronize = cuda_synchronize,
    .event_create = cuda_event_create,
    .event_record = cuda_event_record,
    .event_elapsed = cuda_event_elapsed,
    .event_destroy = cuda_event_destroy,
    .release = cuda_release,
};

/* The GPU's primary context, retained once per process. */
static CUresult primary_context(int ordinal, CUdevice dev, CUcontext *ctx)
{
    CUresult e = 0;
    pthread_mutex_lock(&cuda_ctx_lock);
    if (!cuda_ctxs[ordinal])
        e = C.DevicePrimaryCtxRetain(&cuda_ctxs[ordinal], dev);
    *ctx = cuda_ctxs[ordinal];
    pthread_mutex_unlock(&cuda_ctx_lock);
    return e;
}

rk_status rt_cuda_open(int index, Allocator al, RtDevice **out, char *msg, size_t msglen)
{
    *out = NULL;
    pthread_once(&cuda_once, cuda_load_once);
    if (cuda_status != RK_OK) {
        snprintf(msg, msglen, "%s", cuda_msg);
        return cuda_status;
    }
    if (index < 0 || index >= cuda_count || index >= MAX_GPUS) {
        snprintf(msg, msglen, "no CUDA device %d (found %d)", index, cuda_count);
        return RK_ENODEVICE;
    }
    CUdevice dev = 0;
    CUresult e = C.DeviceGet(&dev, index);
    if (e) {
        snprintf(msg, msglen, "CUDA device %d: cuDeviceGet failed with %s", index, cu_err(e));
        return RK_EDEVICE;
    }
    char name[128] = "";
    if (C.DeviceGetName && C.DeviceGetName(name, (int)sizeof name, dev) != 0)
        name[0] = 0;
    if (!name[0])
        snprintf(name, sizeof name, "CUDA device %d", index);
    int major = 0, minor = 0;
    if ((e = C.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)) != 0 ||
        (e = C.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)) != 0) {
        snprintf(msg, msglen, "CUDA device %d (%s): cannot read its compute capability: %s", index, name, cu_err(e));
        return RK_EDEVICE;
    }
    /* rk emits PTX for sm_90a, whose architecture-specific features exist on 9.0 alone. */
    if (major != 9 || minor != 0) {
        snprintf(msg, msglen, "CUDA device %d (%s) has compute capability %d.%d, but rk generates code for sm_90 "
                              "only (compute capability 9.0: H100, H200)", index, name, major, minor);
        return RK_EUNSUPPORTED;
    }
    CUcontext ctx = NULL;
    if ((e = primary_context(index, dev, &ctx)) != 0) {
        snprintf(msg, msglen, "CUDA device %d (%s): cuDevicePrimaryCtxRetain failed with %s", index, name, cu_err(e));
        return RK_EDEVICE;
    }
    RtDevice *d = arena_alloc_raw(&al, sizeof *d);
    Cuda *c = arena_alloc_raw(&al, sizeof *c);
    if (!d || !c) {
        arena_free_raw(&al, d, sizeof *d);
        arena_free_raw(&al, c, sizeof *c);
        snprintf(msg, msglen, "out of memory opening device cuda");
        return RK_ENOMEM;
    }
    memset(d, 0, sizeof *d);
    *c = (Cuda){ctx, index};
    d->ops = &cuda_ops;
    d->alloc = al;
    d->impl = c;
    RtProps *p = &d->props;
    snprintf(p->kind, sizeof p->kind, "cuda");
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->arch, sizeof p->arch, "sm_%d%d", major, minor);
    snprintf(p->target, sizeof p->target, "sm_90");
    C.DeviceGetAttribute(&p->compute_units, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    C.DeviceGetAttribute(&p->lds_bytes, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev);
    if (C.DeviceGetAttribute(&p->wave_size, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev) != 0 || p->wave_size <= 0)
        p->wave_size = 32;
    size_t total = 0;
    if (C.DeviceTotalMem && C.DeviceTotalMem(&total, dev) == 0)
        p->global_memory = total;
    *out = d;
    return RK_OK;
}
