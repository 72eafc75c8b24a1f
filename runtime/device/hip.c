/* The `hip` device: AMD GPUs through the HIP runtime, loaded with dlopen.
 *
 * Nothing links against a vendor library: the few entry points used are declared here with their C
 * signatures and looked up once per process. The library is searched for as $RK_HIP_LIB (only there
 * when set), then ROCm 6 (/opt/rocm/lib/libamdhip64.so.6: Debian's HIP 5.2 knows no gfx94x), then
 * the loader path (libamdhip64.so.6, .so.5, .so), then /opt/rocm/lib. It is never unloaded: the HIP
 * runtime starts threads and registers exit handlers that must outlive any context.
 *
 * Facts relied on (ROCm 5.2 and 6.x headers): hipDeviceAttribute_t keeps its numbers across both (6.x
 * renamed removed entries "Unused" rather than renumbering); hipGetDeviceProperties' struct layout
 * differs between them (6.x exports the new one as hipGetDevicePropertiesR0600), so the processor name
 * is found by scanning the struct for a "gfx..." string rather than by offset; a kernarg buffer goes
 * through `extra` as {HIP_LAUNCH_PARAM_BUFFER_POINTER (1), buf, HIP_LAUNCH_PARAM_BUFFER_SIZE (2),
 * &size, HIP_LAUNCH_PARAM_END (3)}. Without a GPU, hipInit fails (error 100 or 101): that is
 * RK_ENODEVICE with the reason, never a crash. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/device/device.h"

typedef int hipError_t;
typedef void *hipModule_t;
typedef void *hipFunction_t;
typedef void *hipEvent_t;
typedef void *hipStream_t;

enum {
    hipMemcpyHostToDevice = 1,
    hipMemcpyDeviceToHost = 2,
    hipMemcpyDeviceToDevice = 3,
    hipDeviceAttributeMultiprocessorCount = 63,
    hipDeviceAttributeMaxSharedMemoryPerBlock = 74,
    hipDeviceAttributeWarpSize = 87,
};

typedef struct HipApi {
    hipError_t (*Init)(unsigned flags);
    hipError_t (*GetDeviceCount)(int *n);
    hipError_t (*SetDevice)(int dev);
    hipError_t (*DeviceGetAttribute)(int *v, int attr, int dev);
    hipError_t (*DeviceGetName)(char *name, int len, int dev);
    hipError_t (*DeviceTotalMem)(size_t *bytes, int dev);
    hipError_t (*GetDeviceProperties)(void *props, int dev);
    hipError_t (*Malloc)(void **p, size_t n);
    hipError_t (*Free)(void *p);
    hipError_t (*Memcpy)(void *dst, const void *src, size_t n, int kind);
    hipError_t (*Memset)(void *dst, int v, size_t n);
    hipError_t (*ModuleLoadData)(hipModule_t *m, const void *image);
    hipError_t (*ModuleUnload)(hipModule_t m);
    hipError_t (*ModuleGetFunction)(hipFunction_t *f, hipModule_t m, const char *name);
    hipError_t (*ModuleLaunchKernel)(hipFunction_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                     unsigned by, unsigned bz, unsigned shared, hipStream_t s, void **params,
                                     void **extra);
    hipError_t (*DeviceSynchronize)(void);
    hipError_t (*EventCreate)(hipEvent_t *e);
    hipError_t (*EventRecord)(hipEvent_t e, hipStream_t s);
    hipError_t (*EventSynchronize)(hipEvent_t e);
    hipError_t (*EventElapsedTime)(float *ms, hipEvent_t a, hipEvent_t b);
    hipError_t (*EventDestroy)(hipEvent_t e);
    const char *(*GetErrorString)(hipError_t e);
    const char *(*GetErrorName)(hipError_t e);
} HipApi;

/* Process-wide: the library, its entry points, and the outcome of hipInit. */
static pthread_once_t hip_once = PTHREAD_ONCE_INIT;
static HipApi H;
static rk_status hip_status = RK_ENODEVICE;
static char hip_msg[512];
static int hip_count;

static const char *hip_err(hipError_t e)
{
    static __thread char buf[160];
    const char *name = H.GetErrorName ? H.GetErrorName(e) : NULL;
    const char *desc = H.GetErrorString ? H.GetErrorString(e) : NULL;
    if (desc && (!*desc || (name && strcmp(desc, name) == 0))) /* HIP 5 returns the name as the string */
        desc = NULL;
    snprintf(buf, sizeof buf, "%s%s%s (error %d)", name ? name : "HIP error", desc ? ": " : "", desc ? desc : "", e);
    return buf;
}

static void *hip_dlopen(char *why, size_t whylen)
{
    const char *env = getenv("RK_HIP_LIB");
    if (env && *env) {
        void *h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char *e = dlerror();
            snprintf(why, whylen, "cannot load the HIP runtime RK_HIP_LIB=%s: %s", env, e ? e : "dlopen failed");
        }
        return h;
    }
    static const char *const paths[] = {"/opt/rocm/lib/libamdhip64.so.6", "libamdhip64.so.6", "libamdhip64.so.5",
                                        "libamdhip64.so",                 "/opt/rocm/lib/libamdhip64.so",
                                        "/opt/rocm/lib/libamdhip64.so.5"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        void *h = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    snprintf(why, whylen, "no HIP runtime found (libamdhip64.so in /opt/rocm/lib or the loader path; "
                          "RK_HIP_LIB names one explicitly)");
    return NULL;
}

static void hip_load_once(void)
{
    void *lib = hip_dlopen(hip_msg, sizeof hip_msg);
    if (!lib)
        return;
    struct {
        void *slot;
        const char *name;
        bool required;
    } syms[] = {
#define SYM(f, req) {&H.f, "hip" #f, req}
        SYM(Init, true), SYM(GetDeviceCount, true), SYM(SetDevice, true), SYM(DeviceGetAttribute, true),
        SYM(DeviceGetName, false), SYM(DeviceTotalMem, false), SYM(Malloc, true), SYM(Free, true),
        SYM(Memcpy, true), SYM(Memset, true), SYM(ModuleLoadData, true), SYM(ModuleUnload, true),
        SYM(ModuleGetFunction, true), SYM(ModuleLaunchKernel, true), SYM(DeviceSynchronize, true),
        SYM(EventCreate, true), SYM(EventRecord, true), SYM(EventSynchronize, true),
        SYM(EventElapsedTime, true), SYM(EventDestroy, true), SYM(GetErrorString, false),
        SYM(GetErrorName, false),
#undef SYM
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *p = dlsym(lib, syms[i].name);
        if (!p && syms[i].required) {
            snprintf(hip_msg, sizeof hip_msg, "the HIP runtime lacks %s", syms[i].name);
            memset(&H, 0, sizeof H);
            return;
        }
        memcpy(syms[i].slot, &p, sizeof p); /* POSIX: dlsym's result converts to a function pointer */
    }
    void *props = dlsym(lib, "hipGetDevicePropertiesR0600");
    if (!props)
        props = dlsym(lib, "hipGetDeviceProperties");
    memcpy(&H.GetDeviceProperties, &props, sizeof props);
    hipError_t e = H.Init(0);
    if (e != 0) {
        snprintf(hip_msg, sizeof hip_msg, "no HIP device: hipInit failed with %s", hip_err(e));
        return;
    }
    e = H.GetDeviceCount(&hip_count);
    if (e != 0 || hip_count <= 0) {
        snprintf(hip_msg, sizeof hip_msg, "no HIP device%s%s", e ? ": hipGetDeviceCount failed with " : "",
                 e ? hip_err(e) : " (hipGetDeviceCount found none)");
        hip_count = 0;
        return;
    }
    hip_status = RK_OK;
}

/* ---- AMDGPU code objects ---- */

/* EF_AMDGPU_MACH values (llvm/BinaryFormat/ELF.h) of the processors a HIP runtime may report. */
static const struct {
    uint8_t mach;
    const char *name;
} amdgpu_machs[] = {
    {0x2c, "gfx900"},  {0x2f, "gfx906"},  {0x30, "gfx908"},  {0x32, "gfx90c"},  {0x3f, "gfx90a"},
    {0x40, "gfx940"},  {0x4b, "gfx941"},  {0x4c, "gfx942"},  {0x4f, "gfx950"},  {0x33, "gfx1010"},
    {0x34, "gfx1011"}, {0x35, "gfx1012"}, {0x36, "gfx1030"}, {0x37, "gfx1031"}, {0x38, "gfx1032"},
    {0x41, "gfx1100"}, {0x46, "gfx1101"}, {0x47, "gfx1102"}, {0x44, "gfx1103"}, {0x48, "gfx1200"},
    {0x4e, "gfx1201"},
};

const char *rt_amdgpu_elf_arch(const void *binary, size_t size, char *msg, size_t msglen)
{
    const unsigned char *b = binary;
    if (!b || size < 64 || memcmp(b, "\x7f" "ELF", 4) != 0) {
        snprintf(msg, msglen, "not an AMDGPU code object: not an ELF file");
        return NULL;
    }
    unsigned machine = (unsigned)b[18] | (unsigned)b[19] << 8;
    if (b[4] != 2 || b[5] != 1 || machine != 224) {
        snprintf(msg, msglen, "not an AMDGPU code object: ELF machine %u, class %u, data %u (expected 224, 64-bit, "
                              "little-endian)", machine, b[4], b[5]);
        return NULL;
    }
    if (!rt_elf_extents_ok(binary, size, msg, msglen))
        return NULL;
    unsigned mach = b[48]; /* e_flags & EF_AMDGPU_MACH (0xff), little-endian */
    for (size_t i = 0; i < sizeof amdgpu_machs / sizeof amdgpu_machs[0]; i++)
        if (amdgpu_machs[i].mach == mach)
            return amdgpu_machs[i].name;
    snprintf(msg, msglen, "AMDGPU code object for an unknown processor (EF_AMDGPU_MACH 0x%02x)", mach);
    return NULL;
}

bool rt_amdgpu_arch_matches(const char *elf_arch, const char *dev_arch)
{
    size_t n = strcspn(dev_arch, ":");
    return strlen(elf_arch) == n && strncmp(elf_arch, dev_arch, n) == 0;
}

/* ---- the device ---- */

typedef struct Hip {
    int dev;
} Hip;

struct RtEvent {
    hipEvent_t e;
};

static int hip_dev(RtDevice *d)
{
    return ((Hip *)d->impl)->dev;
}

/* HIP's current device is per thread; a context may move between threads, so set it every time. */
static rk_status hip_enter(RtDevice *d)
{
    hipError_t e = H.SetDevice(hip_dev(d));
    return e ? rt_dev_fail(d, RK_EDEVICE, "hipSetDevice(%d) failed: %s", hip_dev(d), hip_err(e)) : RK_OK;
}

#define HIP_CALL(d, st, call, what)                                                                                \
    do {                                                                                                           \
        hipError_t e_ = (call);                                                                                    \
        if (e_)                                                                                                    \
            return rt_dev_fail((d), (st), "%s failed: %s", (what), hip_err(e_));                                  \
    } while (0)

static rk_status hip_malloc(RtDevice *d, size_t bytes, void **ptr)
{
    rk_status st = hip_enter(d);
    if (st)
        return st;
    hipError_t e = H.Malloc(ptr, bytes);
    if (e == 2) /* hipErrorOutOfMemory */
        return rt_dev_fail(d, RK_ENOMEM, "hipMalloc of %zu bytes: out of device memory", bytes);
    if (e)
        return rt_dev_fail(d, RK_EDEVICE, "hipMalloc of %zu bytes failed: %s", bytes, hip_err(e));
    return RK_OK;
}

static rk_status hip_free(RtDevice *d, void *ptr)
{
    rk_status st = hip_enter(d);
    if (st)
        return st;
    HIP_CALL(d, RK_EDEVICE, H.Free(ptr), "hipFree");
    return RK_OK;
}

static rk_status hip_memcpy(RtDevice *d, void *dst, const void *src, size_t bytes, RtCopy dir)
{
    rk_status st = hip_enter(d);
    if (st)
        return st;
    int kind = dir == RT_HTOD   ? hipMemcpyHostToDevice
               : dir == RT_DTOH ? hipMemcpyDeviceToHost
                                : hipMemcpyDeviceToDevice;
    HIP_CALL(d, RK_EDEVICE, H.Memcpy(dst, src, bytes, kind), "hipMemcpy");
    return RK_OK;
}

static rk_status hip_memset(RtDevice *d, void *dst, int value, size_t bytes)
{
    rk_status st = hip_enter(d);
    if (st)
        return st;
    HIP_CALL(d, RK_EDEVICE, H.Memset(dst, value, bytes), "hipMemset");
    return RK_OK;
}

static rk_status hip_load(RtDevice *d, const void *binary, size_t size, RtModule **mod)
{
    char why[256];
    const char *arch = rt_amdgpu_elf_arch(binary, size, why, sizeof why);
    if (!arch)
        return rt_dev_fail(d, RK_EDEVICE, "%s", why);
    if (!rt_amdgpu_arch_matches(arch, d->props.arch))
        return rt_dev_fail(d, RK_EDEVICE, "the code object is for %s but the device is %s (compile with target %.*s)",
                           arch, d->props.arch, (int)strcspn(d->props.arch, ":"), d->props.arch);
    rk_status st = hip_enter(d);
    if (st)
        return st;
    hipModule_t m = NULL;
    HIP_CALL(d, RK_EDEVICE, H.ModuleLoadData(&m, binary), "hipModuleLoadData");
    *mod = (RtModule *)m;
    return RK_OK;
}

static void hip_unload(RtDevice *d, RtModule *mod)
{
    if (hip_enter(d) == RK_OK)
        H.ModuleUnload((hipModule_t)mod);
}

static rk_status hip_function(RtDevice *d, RtModule *mod, const char *symbol, RtFunc **fn)
{
    rk_status st = hip_enter(d);
    if (st)
        return st;
    hipFunction_t f = NULL;
    hipError_t e = H.ModuleGetFunction(&f, (hipModule_t)mod, symbol);
    if (e)
        return rt_dev_fail(d, RK_ENOTFOUND, "no kernel '%s' in the code object: %s", symbol, hip_err(e));
    *fn = (RtFunc *)f;
    return RK_OK;
}

static rk_status hip_launch(RtDevice *d, const RtLaunch *l)
{
    rk_status st = hip_enter(d);
    if (st)
        return st;
    size_t size = l->kernarg_size;
    void *extra[] = {(void *)1, (void *)l->kernarg, (void *)2, &size, (void *)3};
    /* Static LDS is part of the code object's kernel descriptor: no dynamic shared memory. */
    hipError_t e = H.ModuleLaunchKernel((hipFunction_t)l->fn, l->grid[0], l->grid[1], l->grid[2], l->block, 1, 1, 0,
                                        NULL, NULL, extra);
    if (e)
        return rt_dev_fail(d, RK_EDEVICE, "launch of %s failed: %s", l->name, hip_err(e));
    return RK_OK;
}

static rk_status hip_synchronize(RtDevice *d)
{
    rk_status st = hip_enter(d);
    if (st)
        return st;
    HIP_CALL(d, RK_EDEVICE, H.DeviceSynchronize(), "hipDeviceSynchronize");
    return RK_OK;
}

static rk_status hip_event_create(RtDevice *d, RtEvent **ev)
{
    rk_status st = hip_enter(d);
    if (st)
        return st;
    RtEvent *e = arena_alloc_raw(&d->alloc, sizeof *e);
    if (!e)
        return rt_dev_fail(d, RK_ENOMEM, "out of memory creating an event");
    hipError_t he = H.EventCreate(&e->e);
    if (he) {
        arena_free_raw(&d->alloc, e, sizeof *e);
        return rt_dev_fail(d, RK_EDEVICE, "hipEventCreate failed: %s", hip_err(he));
    }
    *ev = e;
    return RK_OK;
}

static rk_status hip_event_record(RtDevice *d, RtEvent *ev)
{
    rk_status st = hip_enter(d);
    if (st)
        return st;
    HIP_CALL(d, RK_EDEVICE, H.EventRecord(ev->e, NULL), "hipEventRecord");
    return RK_OK;
}

static rk_status hip_event_elapsed(RtDevice *d, RtEvent *start, RtEvent *end, float *ms)
{
    rk_status st = hip_enter(d);
    if (st)
        return st;
    HIP_CALL(d, RK_EDEVICE, H.EventSynchronize(end->e), "hipEventSynchronize");
    HIP_CALL(d, RK_EDEVICE, H.EventElapsedTime(ms, start->e, end->e), "hipEventElapsedTime");
    return RK_OK;
}

static void hip_event_destroy(RtDevice *d, RtEvent *ev)
{
    if (hip_enter(d) == RK_OK)
        H.EventDestroy(ev->e);
    arena_free_raw(&d->alloc, ev, sizeof *ev);
}

static void hip_release(RtDevice *d)
{
    arena_free_raw(&d->alloc, d->impl, sizeof(Hip));
    arena_free_raw(&d->alloc, d, sizeof *d);
}

static const RtDeviceOps hip_ops = {
    .kind = "hip",
    .malloc = hip_malloc,
    .free = hip_free,
    .memcpy = hip_memcpy,
    .memset = hip_memset,
    .load = hip_load,
    .unload = hip_unload,
    .function = hip_function,
    .launch = hip_launch,
    .synchronize = hip_synchronize,
    .event_create = hip_event_create,
    .event_record = hip_event_record,
    .event_elapsed = hip_event_elapsed,
    .event_destroy = hip_event_destroy,
    .release = hip_release,
};

/* The processor name in a hipDeviceProp_t of either layout: the first NUL-terminated string after the
 * 256-byte `name` field that reads gfx<hex digits> and then ends or goes on with ':' features. */
static void find_arch(const char *buf, size_t n, char *out, size_t outlen)
{
    for (size_t i = 256; i + 4 < n; i++) {
        if (buf[i - 1] != 0 || strncmp(buf + i, "gfx", 3) != 0)
            continue;
        size_t j = i + 3;
        while (j < n && ((buf[j] >= '0' && buf[j] <= '9') || (buf[j] >= 'a' && buf[j] <= 'f')))
            j++;
        if (j == i + 3 || j >= n || (buf[j] != 0 && buf[j] != ':'))
            continue;
        size_t len = strnlen(buf + i, n - i);
        snprintf(out, outlen, "%.*s", (int)len, buf + i);
        return;
    }
}

rk_status rt_hip_open(int index, Allocator al, RtDevice **out, char *msg, size_t msglen)
{
    pthread_once(&hip_once, hip_load_once);
    if (hip_status != RK_OK) {
        snprintf(msg, msglen, "%s", hip_msg);
        return hip_status;
    }
    if (index < 0 || index >= hip_count) {
        snprintf(msg, msglen, "no HIP device %d (found %d)", index, hip_count);
        return RK_ENODEVICE;
    }
    RtDevice *d = arena_alloc_raw(&al, sizeof *d);
    Hip *h = arena_alloc_raw(&al, sizeof *h);
    if (!d || !h) {
        arena_free_raw(&al, d, sizeof *d);
        arena_free_raw(&al, h, sizeof *h);
        snprintf(msg, msglen, "out of memory opening device hip");
        return RK_ENOMEM;
    }
    memset(d, 0, sizeof *d);
    h->dev = index;
    d->ops = &hip_ops;
    d->alloc = al;
    d->impl = h;
    RtProps *p = &d->props;
    snprintf(p->kind, sizeof p->kind, "hip");
    rk_status st = hip_enter(d);
    if (st) {
        snprintf(msg, msglen, "%s", d->msg);
        hip_release(d);
        return RK_EDEVICE;
    }
    H.DeviceGetAttribute(&p->compute_units, hipDeviceAttributeMultiprocessorCount, index);
    H.DeviceGetAttribute(&p->lds_bytes, hipDeviceAttributeMaxSharedMemoryPerBlock, index);
    H.DeviceGetAttribute(&p->wave_size, hipDeviceAttributeWarpSize, index);
    size_t total = 0;
    if (H.DeviceTotalMem && H.DeviceTotalMem(&total, index) == 0)
        p->global_memory = total;
    if (H.DeviceGetName)
        H.DeviceGetName(p->name, (int)sizeof p->name, index);
    /* Room for any layout of hipDeviceProp_t (about 1.5 KiB in ROCm 6) with a wide margin. */
    enum { PROPS_BYTES = 16384 };
    char *props = arena_alloc_raw(&al, PROPS_BYTES);
    if (props) {
        memset(props, 0, PROPS_BYTES);
        if (H.GetDeviceProperties && H.GetDeviceProperties(props, index) == 0)
            find_arch(props, PROPS_BYTES, p->arch, sizeof p->arch);
        arena_free_raw(&al, props, PROPS_BYTES);
    }
    if (!p->arch[0]) {
        snprintf(msg, msglen, "HIP device %d: cannot tell its processor (no gfx name in its properties)", index);
        hip_release(d);
        return RK_EDEVICE;
    }
    snprintf(p->target, sizeof p->target, "%.*s", (int)strcspn(p->arch, ":"), p->arch);
    if (!p->name[0])
        snprintf(p->name, sizeof p->name, "%s", p->target);
    *out = d;
    return RK_OK;
}
