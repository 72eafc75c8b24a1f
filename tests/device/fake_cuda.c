/* A fake CUDA driver, to test the `cuda` device on machines without an NVIDIA GPU: load it with
 * RK_CUDA_LIB=<path of this shared library>.
 *
 * It exports the driver entry points rk uses, by the names the real libcuda.so.1 exports them, and
 * keeps the rules a real driver enforces that rk could get wrong: nothing works before cuInit; memory,
 * module, function, launch and event calls need a current context; device ranges must lie inside
 * allocations; a module is PTX text with a NUL, for .target sm_90(a); a launch passes its parameters
 * either as kernelParams or as one buffer in `extra` whose size is exact (without tail padding), has at
 * most the entry's .maxntid threads, and takes more than 48 KiB of dynamic shared memory only after
 * CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES allowed it. Parameter sizes and alignments come from
 * the entry's PTX declaration, as the real driver takes them from the image.
 *
 * "Device memory" is host memory (a CUdeviceptr is a host address). Kernels run as C models chosen by
 * entry name over the packed parameters: vecadd (f32), softmax_rows, layernorm (f32; one row per
 * program, so a grid too small leaves rows unwritten), matmul (bf16) and attention (f16, not causal;
 * its head dimension from the size of o's allocation). Other entries do nothing.
 * A pointer parameter outside every allocation makes the next cuCtxSynchronize fail with
 * CUDA_ERROR_ILLEGAL_ADDRESS, as a faulting kernel would.
 *
 * Knobs (environment, read by cuInit): FAKE_CUDA_DEVICES (1), FAKE_CUDA_CC ("9.0"), FAKE_CUDA_INIT_ERROR
 * (a CUresult for cuInit to fail with), FAKE_CUDA_MEM (device memory in bytes, 1 GiB). A module with
 * the token not_an_instruction fails to load with CUDA_ERROR_INVALID_PTX and a two-line log. The
 * counters in `fake_cuda_counters` let a test check that everything made was freed. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum {
    OK = 0,
    E_INVALID_VALUE = 1,
    E_OUT_OF_MEMORY = 2,
    E_NOT_INITIALIZED = 3,
    E_NO_DEVICE = 100,
    E_INVALID_DEVICE = 101,
    E_INVALID_IMAGE = 200,
    E_INVALID_CONTEXT = 201,
    E_INVALID_PTX = 218,
    E_INVALID_HANDLE = 400,
    E_NOT_FOUND = 500,
    E_NOT_READY = 600,
    E_ILLEGAL_ADDRESS = 700,
    E_LAUNCH_OUT_OF_RESOURCES = 701,
    OPTIN_SHARED = 232448, /* 227 KiB: sm_90's opt-in limit */
    MAX_ENTRIES = 32,
    MAX_PARAMS = 64,
    MAX_ALLOCS = 4096,
};

/* What a test reads back (dlsym "fake_cuda_counters"). */
typedef struct FakeCudaCounters {
    int live_allocs, live_modules, live_events;
    int launches, set_attribute_calls, primary_retains;
    unsigned last_shared, last_block, last_grid[3];
    int last_used_extra; /* the last launch passed its parameters through `extra` */
} FakeCudaCounters;

FakeCudaCounters fake_cuda_counters;

typedef struct Entry {
    char name[128];
    int nparams, maxntid;
    int size[MAX_PARAMS], align[MAX_PARAMS], is_ptr[MAX_PARAMS];
} Entry;

typedef struct Func {
    const Entry *e;
    int shared_allowed;
} Func;

typedef struct Module {
    unsigned magic;
    int n;
    Entry e[MAX_ENTRIES];
    Func f[MAX_ENTRIES];
} Module;

typedef struct Event {
    unsigned magic;
    double t;
    int recorded;
} Event;

enum { MODULE_MAGIC = 0x6d6f6475, EVENT_MAGIC = 0x6576656e };

static int initialized, ndevices = 1, cc_major = 9, cc_minor = 0;
static size_t mem_total = (size_t)1 << 30, mem_used;
static int primary[8];                 /* the primary contexts: their addresses are the handles */
static __thread void *current;
static CUresult sticky;                /* a kernel "fault", reported by the next synchronize */
static struct {
    uintptr_t base;
    size_t size;
} allocs[MAX_ALLOCS];

/* ---- errors, init, devices ---- */

static const struct {
    CUresult e;
    const char *name, *desc;
} errors[] = {
    {OK, "CUDA_SUCCESS", "no error"},
    {E_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {E_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {E_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {E_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {E_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {E_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {E_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {E_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {E_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {E_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {E_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {E_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {E_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"},
};

CUresult cuGetErrorName(CUresult e, const char **s)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].e == e) {
            *s = errors[i].name;
            return OK;
        }
    *s = NULL;
    return E_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult e, const char **s)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].e == e) {
            *s = errors[i].desc;
            return OK;
        }
    *s = NULL;
    return E_INVALID_VALUE;
}

CUresult cuInit(unsigned flags)
{
    const char *v;
    if (flags != 0)
        return E_INVALID_VALUE;
    if ((v = getenv("FAKE_CUDA_INIT_ERROR")) && atoi(v))
        return atoi(v);
    if ((v = getenv("FAKE_CUDA_DEVICES")))
        ndevices = atoi(v);
    if ((v = getenv("FAKE_CUDA_CC")))
        sscanf(v, "%d.%d", &cc_major, &cc_minor);
    if ((v = getenv("FAKE_CUDA_MEM")))
        mem_total = (size_t)strtoull(v, NULL, 10);
    if (ndevices > 8)
        ndevices = 8;
    initialized = 1;
    return OK;
}

CUresult cuDriverGetVersion(int *v)
{
    *v = 12080;
    return OK;
}

CUresult cuDeviceGetCount(int *n)
{
    if (!initialized)
        return E_NOT_INITIALIZED;
    *n = ndevices;
    return OK;
}

CUresult cuDeviceGet(int *dev, int ordinal)
{
    if (!initialized)
        return E_NOT_INITIALIZED;
    if (ordinal < 0 || ordinal >= ndevices)
        return E_INVALID_DEVICE;
    *dev = ordinal;
    return OK;
}

static CUresult check_dev(int dev)
{
    return !initialized ? E_NOT_INITIALIZED : dev < 0 || dev >= ndevices ? E_INVALID_DEVICE : OK;
}

CUresult cuDeviceGetName(char *name, int len, int dev)
{
    CUresult e = check_dev(dev);
    if (!e)
        snprintf(name, (size_t)len, "Fake NVIDIA H200 %d", dev);
    return e;
}

CUresult cuDeviceGetAttribute(int *v, int attr, int dev)
{
    CUresult e = check_dev(dev);
    if (e)
        return e;
    switch (attr) {
    case 10: *v = 32; break;           /* warp size */
    case 16: *v = 132; break;          /* multiprocessors */
    case 75: *v = cc_major; break;
    case 76: *v = cc_minor; break;
    case 97: *v = OPTIN_SHARED; break; /* shared memory per block, opt-in */
    default: *v = 0; break;
    }
    return OK;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, int dev)
{
    CUresult e = check_dev(dev);
    if (!e)
        *bytes = mem_total;
    return e;
}

CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev)
{
    CUresult e = check_dev(dev);
    if (e)
        return e;
    *ctx = &primary[dev];
    fake_cuda_counters.primary_retains++;
    return OK;
}

CUresult cuCtxSetCurrent(void *ctx)
{
    if (!initialized)
        return E_NOT_INITIALIZED;
    if (ctx && ((int *)ctx < primary || (int *)ctx >= primary + ndevices))
        return E_INVALID_CONTEXT;
    current = ctx;
    return OK;
}

static CUresult need_ctx(void)
{
    return !initialized ? E_NOT_INITIALIZED : !current ? E_INVALID_CONTEXT : OK;
}

CUresult cuCtxSynchronize(void)
{
    CUresult e = need_ctx();
    return e ? e : sticky;
}

/* ---- memory ---- */

static int find_alloc(uintptr_t p, size_t n)
{
    for (int i = 0; i < MAX_ALLOCS; i++)
        if (allocs[i].base && p >= allocs[i].base && p - allocs[i].base <= allocs[i].size &&
            n <= allocs[i].size - (p - allocs[i].base))
            return i;
    return -1;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
    CUresult e = need_ctx();
    if (e)
        return e;
    if (n == 0)
        return E_INVALID_VALUE;
    if (n > mem_total - mem_used)
        return E_OUT_OF_MEMORY;
    for (int i = 0; i < MAX_ALLOCS; i++)
        if (!allocs[i].base) {
            void *m = aligned_alloc(256, (n + 255) / 256 * 256);
            if (!m)
                return E_OUT_OF_MEMORY;
            allocs[i].base = (uintptr_t)m;
            allocs[i].size = n;
            mem_used += n;
            fake_cuda_counters.live_allocs++;
            *p = (CUdeviceptr)(uintptr_t)m;
            return OK;
        }
    return E_OUT_OF_MEMORY;
}

CUresult cuMemFree_v2(CUdeviceptr p)
{
    CUresult e = need_ctx();
    if (e)
        return e;
    for (int i = 0; i < MAX_ALLOCS; i++)
        if (allocs[i].base == (uintptr_t)p && p) {
            free((void *)allocs[i].base);
            mem_used -= allocs[i].size;
            allocs[i].base = 0;
            fake_cuda_counters.live_allocs--;
            return OK;
        }
    return E_INVALID_VALUE;
}

static CUresult dev_range(CUdeviceptr p, size_t n)
{
    CUresult e = need_ctx();
    return e ? e : find_alloc((uintptr_t)p, n) < 0 ? E_INVALID_VALUE : OK;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
    CUresult e = dev_range(dst, n);
    if (!e)
        memcpy((void *)(uintptr_t)dst, src, n);
    return e;
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
    CUresult e = dev_range(src, n);
    if (!e && find_alloc((uintptr_t)dst, 1) >= 0)
        e = E_INVALID_VALUE; /* a device address where a host one belongs */
    if (!e)
        memcpy(dst, (void *)(uintptr_t)src, n);
    return e;
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
    CUresult e = dev_range(dst, n);
    if (!e)
        e = dev_range(src, n);
    if (!e)
        memmove((void *)(uintptr_t)dst, (void *)(uintptr_t)src, n);
    return e;
}

CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, size_t n)
{
    CUresult e = dev_range(dst, n);
    if (!e)
        memset((void *)(uintptr_t)dst, v, n);
    return e;
}

/* ---- modules ---- */

/* Bytes of a PTX scalar type such as ".u64", ".f32", ".b8"; 0 for anything else. */
static int type_size(const char *t)
{
    if ((t[0] != 'u' && t[0] != 's' && t[0] != 'b' && t[0] != 'f') || (t[1] < '0' || t[1] > '9'))
        return 0;
    int bits = atoi(t + 1);
    return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? bits / 8 : 0;
}

/* One parameter declaration: ".param .u64 .ptr .global .align 16 k_param_0" or ".param .align 2 .b8 k_param_4[2]". */
static int parse_param(Entry *e, const char *decl, size_t len)
{
    char buf[256];
    if (len >= sizeof buf || e->nparams == MAX_PARAMS)
        return -1;
    memcpy(buf, decl, len);
    buf[len] = 0;
    int size = 0, align = 0, ptr = 0, count = 1;
    for (char *tok = strtok(buf, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
        if (strcmp(tok, ".param") == 0 || strcmp(tok, ".global") == 0)
            continue;
        if (strcmp(tok, ".ptr") == 0)
            ptr = 1;
        else if (strcmp(tok, ".align") == 0 && (tok = strtok(NULL, " \t\r\n")))
            align = atoi(tok);
        else if (tok[0] == '.' && type_size(tok + 1))
            size = type_size(tok + 1);
        else if (tok[0] != '.' && strchr(tok, '['))
            count = atoi(strchr(tok, '[') + 1);
    }
    if (!size || count <= 0)
        return -1;
    e->size[e->nparams] = size * count;
    e->align[e->nparams] = align ? align : size;
    e->is_ptr[e->nparams] = ptr;
    e->nparams++;
    return 0;
}

static int parse_ptx(Module *m, const char *text)
{
    for (const char *p = strstr(text, ".entry "); p; p = strstr(p + 1, ".entry ")) {
        if (m->n == MAX_ENTRIES)
            return -1;
        Entry *e = &m->e[m->n];
        memset(e, 0, sizeof *e);
        const char *name = p + 7, *open = strchr(name, '('), *close = open ? strchr(open, ')') : NULL;
        if (!open || !close || (size_t)(open - name) >= sizeof e->name)
            return -1;
        memcpy(e->name, name, (size_t)(open - name));
        for (const char *q = open + 1; q < close;) {
            const char *end = memchr(q, ',', (size_t)(close - q));
            if (!end)
                end = close;
            const char *s = q;
            while (s < end && (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r'))
                s++;
            if (s < end && parse_param(e, s, (size_t)(end - s)) != 0)
                return -1;
            q = end + 1;
        }
        const char *body = strchr(close, '{'), *mx = strstr(close, ".maxntid");
        e->maxntid = mx && body && mx < body ? atoi(mx + 8) : 1024;
        m->f[m->n] = (Func){e, 0};
        m->n++;
    }
    return m->n ? 0 : -1;
}

/* JIT options: CU_JIT_ERROR_LOG_BUFFER (5) and its size (6), in bytes, written back with the log's length. */
static void jit_log(unsigned nopts, const int *opts, void **vals, const char *log)
{
    char *buf = NULL;
    size_t size = 0;
    for (unsigned i = 0; i < nopts; i++) {
        if (opts[i] == 5)
            buf = vals[i];
        if (opts[i] == 6)
            size = (size_t)(uintptr_t)vals[i];
    }
    if (buf && size) {
        snprintf(buf, size, "%s", log);
        for (unsigned i = 0; i < nopts; i++)
            if (opts[i] == 6)
                vals[i] = (void *)(uintptr_t)(strlen(log) + 1 < size ? strlen(log) + 1 : size);
    }
}

CUresult cuModuleLoadDataEx(void **mod, const void *image, unsigned nopts, int *opts, void **vals)
{
    CUresult e = need_ctx();
    if (e)
        return e;
    const char *text = image;
    /* Read as a C string, as the driver does: a missing NUL reads past the image. */
    if (!strstr(text, ".version ") || !strstr(text, ".target sm_90")) {
        jit_log(nopts, opts, vals, "ptxas fatal   : not PTX for sm_90\n");
        return E_INVALID_IMAGE;
    }
    if (strstr(text, "not_an_instruction")) {
        jit_log(nopts, opts, vals,
                "ptxas application ptx input, line 9; error   : Not a name of any known instruction: "
                "'not_an_instruction'\n"
                "ptxas fatal   : Ptx assembly aborted due to errors\n");
        return E_INVALID_PTX;
    }
    Module *m = calloc(1, sizeof *m);
    if (!m)
        return E_OUT_OF_MEMORY;
    if (parse_ptx(m, text) != 0) {
        free(m);
        jit_log(nopts, opts, vals, "ptxas fatal   : the fake cannot read this module's entries\n");
        return E_INVALID_PTX;
    }
    m->magic = MODULE_MAGIC;
    fake_cuda_counters.live_modules++;
    *mod = m;
    return OK;
}

CUresult cuModuleLoadData(void **mod, const void *image)
{
    return cuModuleLoadDataEx(mod, image, 0, NULL, NULL);
}

CUresult cuModuleUnload(void *mod)
{
    CUresult e = need_ctx();
    Module *m = mod;
    if (e)
        return e;
    if (!m || m->magic != MODULE_MAGIC)
        return E_INVALID_HANDLE;
    m->magic = 0;
    free(m);
    fake_cuda_counters.live_modules--;
    return OK;
}

CUresult cuModuleGetFunction(void **f, void *mod, const char *name)
{
    CUresult e = need_ctx();
    Module *m = mod;
    if (e)
        return e;
    if (!m || m->magic != MODULE_MAGIC)
        return E_INVALID_HANDLE;
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->e[i].name, name) == 0) {
            *f = &m->f[i];
            return OK;
        }
    return E_NOT_FOUND;
}

CUresult cuFuncSetAttribute(void *f, int attr, int value)
{
    CUresult e = need_ctx();
    if (e)
        return e;
    if (!f)
        return E_INVALID_HANDLE;
    fake_cuda_counters.set_attribute_calls++;
    if (attr != 8)
        return OK;
    if (value < 0 || value > OPTIN_SHARED)
        return E_INVALID_VALUE;
    ((Func *)f)->shared_allowed = value;
    return OK;
}

/* ---- kernels ---- */

static float f32_at(const unsigned char *buf, const size_t *off, int i)
{
    float v;
    memcpy(&v, buf + off[i], 4);
    return v;
}

static int32_t i32_at(const unsigned char *buf, const size_t *off, int i)
{
    int32_t v;
    memcpy(&v, buf + off[i], 4);
    return v;
}

static void *ptr_at(const unsigned char *buf, const size_t *off, int i)
{
    uint64_t v;
    memcpy(&v, buf + off[i], 8);
    return (void *)(uintptr_t)v;
}

static double bf16_get(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static uint16_t bf16_put(double x)
{
    float f = (float)x;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return (uint16_t)((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

static double f16_get(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return h & 0x8000 ? -v : v;
}

static uint16_t f16_put(double x)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    x = fabs(x);
    if (isnan(x))
        return 0x7e00;
    if (x >= 65520)
        return sign | 0x7c00;
    int e;
    frexp(x, &e); /* x = f * 2^e, f in [0.5, 1) */
    int q = e - 11 < -24 ? -24 : e - 11; /* the exponent of one unit in the last place */
    double m = nearbyint(ldexp(x, -q));  /* rounds to nearest, ties to even */
    double v = ldexp(m, q);
    if (v < ldexp(1, -14))
        return sign | (uint16_t)m;
    frexp(v, &e);
    return sign | (uint16_t)((e + 14) << 10 | ((uint32_t)ldexp(v, 11 - e) & 1023));
}

/* cuTensorMapEncodeTiled: checks what TMA checks of a map of rank 2 or 3 and writes the fields where
 * the models read them back (a real map's bytes are opaque). */
typedef struct FakeMap {
    uint64_t magic, base, dim[3], stride[2];
    unsigned box[3];
    int dtype, swizzle, rank;
} FakeMap;
#define FAKE_MAP_MAGIC 0x70614d6b61466b72ull

CUresult cuTensorMapEncodeTiled(void *map, int dtype, unsigned rank, void *base, const uint64_t *dims,
                                const uint64_t *strides, const unsigned *box, const unsigned *estrides, int interleave,
                                int swizzle, int l2promotion, int oobfill)
{
    int esize = dtype == 0 ? 1 : dtype == 1 ? 2 : dtype == 2 ? 4 : 0;
    int span = swizzle == 1 ? 32 : swizzle == 2 ? 64 : swizzle == 3 ? 128 : 0;
    if (!map || (uintptr_t)map % 64 || rank < 2 || rank > 3 || !esize || (uintptr_t)base % 16 || interleave ||
        oobfill || swizzle < 0 || swizzle > 3)
        return E_INVALID_VALUE;
    for (unsigned i = 0; i < rank; i++)
        if (dims[i] < 1 || dims[i] > ((uint64_t)1 << 32) || box[i] < 1 || box[i] > 256 || estrides[i] != 1)
            return E_INVALID_VALUE;
    for (unsigned i = 0; i + 1 < rank; i++)
        if (strides[i] % 16 || strides[i] >= ((uint64_t)1 << 40))
            return E_INVALID_VALUE;
    if ((box[0] * (unsigned)esize) % 16 || (span && box[0] * (unsigned)esize > (unsigned)span))
        return E_INVALID_VALUE;
    FakeMap m = {FAKE_MAP_MAGIC, (uint64_t)(uintptr_t)base, {dims[0], dims[1], rank == 3 ? dims[2] : 0},
                 {strides[0], rank == 3 ? strides[1] : 0}, {box[0], box[1], rank == 3 ? box[2] : 0}, dtype, span,
                 (int)rank};
    memset(map, 0, 128);
    memcpy(map, &m, sizeof m);
    (void)l2promotion;
    return 0;
}

/* Whether parameter i is the 2-D map of the tensor at base, dims d0 (contiguous) x d1, stride bytes
 * apart. */
static bool map_is(const unsigned char *buf, const size_t *off, int i, const void *base, int64_t d0, int64_t d1,
                   int64_t stride)
{
    FakeMap m;
    memcpy(&m, buf + off[i], sizeof m);
    return m.magic == FAKE_MAP_MAGIC && m.rank == 2 && m.base == (uint64_t)(uintptr_t)base &&
           (int64_t)m.dim[0] == d0 && (int64_t)m.dim[1] == d1 && (int64_t)m.stride[0] == stride;
}

/* Whether parameter i is the 3-D map of the tensor at base: d0 (contiguous) x d1 x d2, strides s1, s2
 * bytes. */
static bool map3_is(const unsigned char *buf, const size_t *off, int i, const void *base, int64_t d0, int64_t d1,
                    int64_t d2, int64_t s1, int64_t s2)
{
    FakeMap m;
    memcpy(&m, buf + off[i], sizeof m);
    return m.magic == FAKE_MAP_MAGIC && m.rank == 3 && m.base == (uint64_t)(uintptr_t)base &&
           (int64_t)m.dim[0] == d0 && (int64_t)m.dim[1] == d1 && (int64_t)m.dim[2] == d2 &&
           (int64_t)m.stride[0] == s1 && (int64_t)m.stride[1] == s2 && m.box[2] == 1;
}

/* Runs the model of entry `e` with the packed parameters; the grid decides how many rows are done. */
static void run_model(const Entry *e, const unsigned char *buf, const size_t *off, const unsigned grid[3])
{
    if (strcmp(e->name, "vecadd") == 0 && e->nparams == 4) {
        const float *x = ptr_at(buf, off, 0), *y = ptr_at(buf, off, 1);
        float *out = ptr_at(buf, off, 2);
        for (int32_t i = 0, n = i32_at(buf, off, 3); i < n; i++)
            out[i] = x[i] + y[i];
    } else if ((strcmp(e->name, "softmax_rows") == 0 && e->nparams == 4) ||
               (strcmp(e->name, "layernorm") == 0 && e->nparams == 7)) {
        int ln = e->nparams == 7;
        const float *x = ptr_at(buf, off, 0), *w = ln ? ptr_at(buf, off, 1) : NULL, *b = ln ? ptr_at(buf, off, 2) : NULL;
        float *y = ptr_at(buf, off, ln ? 3 : 1);
        int rows = i32_at(buf, off, ln ? 4 : 2), cols = i32_at(buf, off, ln ? 5 : 3);
        float eps = ln ? f32_at(buf, off, 6) : 0;
        for (int r = 0; r < rows && r < (int)grid[0]; r++) {
            const float *xr = x + (size_t)r * cols;
            float *yr = y + (size_t)r * cols;
            double a = 0, s = 0;
            if (ln) {
                for (int j = 0; j < cols; j++)
                    a += xr[j];
                a /= cols;
                for (int j = 0; j < cols; j++)
                    s += (xr[j] - a) * (xr[j] - a);
                double rstd = 1 / sqrt(s / cols + eps);
                for (int j = 0; j < cols; j++)
                    yr[j] = (float)((xr[j] - a) * rstd * w[j] + b[j]);
            } else {
                a = -INFINITY;
                for (int j = 0; j < cols; j++)
                    a = fmax(a, xr[j]);
                for (int j = 0; j < cols; j++)
                    s += exp(xr[j] - a);
                for (int j = 0; j < cols; j++)
                    yr[j] = (float)(exp(xr[j] - a) / s);
            }
        }
    } else if (strcmp(e->name, "matmul") == 0 && e->nparams >= 9 && e->nparams <= 11) {
        const uint16_t *a = ptr_at(buf, off, 0), *b = ptr_at(buf, off, 1);
        uint16_t *c = ptr_at(buf, off, 2);
        int M = i32_at(buf, off, 3), N = i32_at(buf, off, 4), K = i32_at(buf, off, 5);
        int lda = i32_at(buf, off, 6), ldb = i32_at(buf, off, 7), ldc = i32_at(buf, off, 8);
        /* TMA: after the parameters, the maps of A (K x M) and/or B (N x K), in that order; a wrong
         * one leaves C untouched */
        for (int i = 9, want_a = 1; i < e->nparams; i++, want_a = 0)
            if (!(want_a && map_is(buf, off, i, a, K, M, 2 * (int64_t)lda)) && !map_is(buf, off, i, b, N, K, 2 * (int64_t)ldb))
                return;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double acc = 0;
                for (int k = 0; k < K; k++)
                    acc += bf16_get(a[(size_t)i * lda + k]) * bf16_get(b[(size_t)k * ldb + j]);
                c[(size_t)i * ldc + j] = bf16_put(acc);
            }
    } else if (strcmp(e->name, "attention") == 0 && (e->nparams == 8 || e->nparams == 10)) {
        /* f16 q, k, v, o of [Z, H, N, D], not causal; D from the size of o's allocation. With TMA, the
         * maps of K and V follow: D x N x Z*H (the heads' count from the allocation), rows 2D bytes
         * apart, heads 2ND; a wrong one leaves o untouched. */
        const uint16_t *q = ptr_at(buf, off, 0), *k = ptr_at(buf, off, 1), *v = ptr_at(buf, off, 2);
        uint16_t *o = ptr_at(buf, off, 3);
        float scale = f32_at(buf, off, 4);
        int Z = i32_at(buf, off, 5), H = i32_at(buf, off, 6), N = i32_at(buf, off, 7);
        int a = find_alloc((uintptr_t)o, 0);
        int D = a < 0 || Z * H * N == 0 ? 0 : (int)(allocs[a].size / 2 / ((size_t)Z * H * N));
        for (int i = 8; i < e->nparams; i++)
            if (!map3_is(buf, off, i, i == 8 ? k : v, D, N, Z * H, 2 * (int64_t)D, 2 * (int64_t)N * D))
                return;
        double *s = malloc((size_t)N * sizeof *s);
        for (int zh = 0; s && zh < Z * H && zh < (int)grid[1]; zh++)
            for (int i = 0; i < N; i++) {
                size_t base = (size_t)zh * N * D;
                double mx = -INFINITY, sum = 0;
                for (int j = 0; j < N; j++) {
                    double dot = 0;
                    for (int d = 0; d < D; d++)
                        dot += f16_get(q[base + (size_t)i * D + d]) * f16_get(k[base + (size_t)j * D + d]);
                    s[j] = dot * scale;
                    mx = fmax(mx, s[j]);
                }
                for (int j = 0; j < N; j++)
                    sum += (s[j] = exp(s[j] - mx));
                for (int d = 0; d < D; d++) {
                    double acc = 0;
                    for (int j = 0; j < N; j++)
                        acc += s[j] * f16_get(v[base + (size_t)j * D + d]);
                    o[base + (size_t)i * D + d] = f16_put(acc / sum);
                }
            }
        free(s);
    }
}

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *stream, void **params, void **extra)
{
    CUresult e = need_ctx();
    if (e)
        return e;
    Func *fn = f;
    if (!fn || !fn->e)
        return E_INVALID_HANDLE;
    const Entry *en = fn->e;
    if (stream || !gx || !gy || !gz || gy > 65535 || gz > 65535 || !bx || !by || !bz)
        return E_INVALID_VALUE;
    if (bx * by * bz > (unsigned)en->maxntid)
        return E_INVALID_VALUE;
    if (shared > OPTIN_SHARED || (shared > 48 * 1024 && (unsigned)fn->shared_allowed < shared))
        return E_INVALID_VALUE;
    /* The parameters, packed at their offsets. */
    size_t off[MAX_PARAMS], exact = 0;
    for (int i = 0; i < en->nparams; i++) {
        exact = (exact + (size_t)en->align[i] - 1) / (size_t)en->align[i] * (size_t)en->align[i];
        off[i] = exact;
        exact += (size_t)en->size[i];
    }
    unsigned char buf[4096];
    if (exact > sizeof buf || (params && extra))
        return E_INVALID_VALUE;
    fake_cuda_counters.last_used_extra = extra != NULL;
    if (en->nparams && params) {
        for (int i = 0; i < en->nparams; i++)
            memcpy(buf + off[i], params[i], (size_t)en->size[i]);
    } else if (en->nparams && extra) {
        const void *src = NULL;
        const size_t *size = NULL;
        for (int i = 0; extra[i] != (void *)0; i += 2) {
            if (extra[i] == (void *)1)
                src = extra[i + 1];
            else if (extra[i] == (void *)2)
                size = extra[i + 1];
            else
                return E_INVALID_VALUE;
        }
        if (!src || !size || *size != exact)
            return E_INVALID_VALUE; /* the real driver refuses tail padding too */
        memcpy(buf, src, exact);
    } else if (en->nparams) {
        return E_INVALID_VALUE;
    }
    for (int i = 0; i < en->nparams; i++) {
        uintptr_t p;
        if (en->size[i] != 8 || !en->is_ptr[i])
            continue;
        memcpy(&p, buf + off[i], 8);
        if (p && find_alloc(p, 0) < 0 && !sticky)
            sticky = E_ILLEGAL_ADDRESS;
    }
    fake_cuda_counters.launches++;
    fake_cuda_counters.last_shared = shared;
    fake_cuda_counters.last_block = bx;
    fake_cuda_counters.last_grid[0] = gx;
    fake_cuda_counters.last_grid[1] = gy;
    fake_cuda_counters.last_grid[2] = gz;
    if (!sticky)
        run_model(en, buf, off, (unsigned[3]){gx, gy, gz});
    return OK;
}

/* ---- events ---- */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

CUresult cuEventCreate(void **ev, unsigned flags)
{
    CUresult e = need_ctx();
    if (e)
        return e;
    Event *x = calloc(1, sizeof *x);
    if (!x)
        return E_OUT_OF_MEMORY;
    x->magic = EVENT_MAGIC;
    fake_cuda_counters.live_events++;
    *ev = x;
    return OK;
}

static CUresult event(void *ev, Event **out)
{
    CUresult e = need_ctx();
    *out = ev;
    return e ? e : !ev || (*out)->magic != EVENT_MAGIC ? E_INVALID_HANDLE : OK;
}

CUresult cuEventRecord(void *ev, void *stream)
{
    Event *x;
    CUresult e = event(ev, &x);
    if (!e) {
        x->t = now_ms();
        x->recorded = 1;
    }
    return e;
}

CUresult cuEventSynchronize(void *ev)
{
    Event *x;
    return event(ev, &x);
}

CUresult cuEventElapsedTime(float *ms, void *a, void *b)
{
    Event *x, *y;
    CUresult e = event(a, &x);
    if (!e)
        e = event(b, &y);
    if (!e && (!x->recorded || !y->recorded))
        e = E_INVALID_HANDLE;
    if (!e)
        *ms = (float)(y->t - x->t);
    return e;
}

CUresult cuEventDestroy_v2(void *ev)
{
    Event *x;
    CUresult e = event(ev, &x);
    if (!e) {
        x->magic = 0;
        free(x);
        fake_cuda_counters.live_events--;
    }
    return e;
}
