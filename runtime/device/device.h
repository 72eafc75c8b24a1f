/* Devices behind one vtable: hip, cuda, emu and interp.
 *
 * The API layer (runtime/api) talks to a device only through RtDeviceOps. A device owns its memory,
 * its loaded modules (code objects) and its events; the API keeps the registry of allocations that
 * launch checks pointer arguments against, and lays out the kernel arguments. Every operation returns
 * an rk_status and, on failure, leaves a one-line message in RtDevice.msg (a fixed buffer, so that
 * reporting an error never allocates). Device memory is an address in the process (HIP's unified
 * addressing, host memory for emu and interp), so `void *` is the device pointer type.
 *
 * Host memory that the devices keep for themselves comes from the context's allocator hook (arena_alloc_raw),
 * never from malloc; what the vendor runtimes, the emulator and the interpreter allocate inside is
 * theirs. */
#ifndef RK_DEVICE_H
#define RK_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rk.h"
#include "support/arena.h"

typedef struct RtDevice RtDevice;
typedef struct RtModule RtModule; /* a loaded code object; each device defines it */
typedef struct RtFunc RtFunc;     /* a kernel entry in a module; each device defines it */
typedef struct RtEvent RtEvent;

typedef enum RtCopy { RT_HTOD, RT_DTOH, RT_DTOD } RtCopy;

typedef struct RtLaunch {
    RtFunc *fn;
    const char *name; /* the kernel, for messages */
    uint32_t grid[3]; /* workgroups; none is 0 */
    uint32_t block;   /* work-items per workgroup */
    uint32_t lds_bytes;
    /* The argument block in HIP's layout (each argument at its natural alignment, in order) ... */
    const void *kernarg;
    size_t kernarg_size;
    /* ... and a pointer to each argument inside it, in parameter order (for interp). */
    const void *const *args;
    int nargs;
    int threads;      /* host devices: threads (0: one per core) */
    void (*print)(void *ud, const char *line);
    void *print_ud;
    bool check_races; /* emu devices: the race checker */
} RtLaunch;

/* A tensor map for TMA (sm_90) of rank 2 or 3: the tensor at `base`, dim[0] elements of esize bytes
 * along its contiguous dimension, dim[1] rows stride_bytes[0] apart and (rank 3) dim[2] matrices
 * stride_bytes[1] apart; each copy moves a box of box[0] x box[1] (x 1) elements into shared memory
 * with the given swizzle (0, 32, 64, 128 bytes); out-of-bounds elements read as zeros. */
typedef struct RtTensorMapDesc {
    uint64_t base, dim[3], stride_bytes[2];
    uint32_t box[3];
    int rank, esize, swizzle;
} RtTensorMapDesc;

typedef struct RtDeviceOps {
    const char *kind;
    rk_status (*malloc)(RtDevice *d, size_t bytes, void **ptr);
    rk_status (*free)(RtDevice *d, void *ptr);
    rk_status (*memcpy)(RtDevice *d, void *dst, const void *src, size_t bytes, RtCopy dir);
    rk_status (*memset)(RtDevice *d, void *dst, int value, size_t bytes);
    /* Loads a code object compiled for this device's target. */
    rk_status (*load)(RtDevice *d, const void *binary, size_t size, RtModule **mod);
    void (*unload)(RtDevice *d, RtModule *mod);
    rk_status (*function)(RtDevice *d, RtModule *mod, const char *symbol, RtFunc **fn);
    rk_status (*launch)(RtDevice *d, const RtLaunch *l);
    rk_status (*synchronize)(RtDevice *d);
    rk_status (*event_create)(RtDevice *d, RtEvent **ev);
    rk_status (*event_record)(RtDevice *d, RtEvent *ev);
    rk_status (*event_elapsed)(RtDevice *d, RtEvent *start, RtEvent *end, float *ms);
    void (*event_destroy)(RtDevice *d, RtEvent *ev);
    void (*release)(RtDevice *d); /* frees the device itself */
    /* Encodes a tensor map (128 bytes, 64-byte aligned) for TMA; NULL on devices without TMA. */
    rk_status (*tensor_map)(RtDevice *d, void *map, const RtTensorMapDesc *t);
} RtDeviceOps;

typedef struct RtProps {
    char kind[16];    /* "hip", "cuda", "emu", "emu_sm90", "interp" */
    char name[128];   /* a readable name */
    char arch[128];   /* "gfx942:sramecc+:xnack-", "emu", "interp" */
    char target[32];  /* the compile target: "gfx942", "emu", "emu_sm90", "interp" */
    int compute_units, lds_bytes, wave_size;
    uint64_t global_memory;
} RtProps;

struct RtDevice {
    const RtDeviceOps *ops;
    RtProps props;
    Allocator alloc;
    char msg[1024]; /* the message of the last failed operation */
    void *impl;     /* the device's own state */
};

/* Opens a device of a kind ("hip", "cuda", "emu", "emu_sm90", "interp"); index selects among GPUs. On failure
 * *out is NULL and msg says why (RK_ENODEVICE: absent; RK_EDEVICE: present but failing). */
rk_status rt_device_open(const char *kind, int index, Allocator al, RtDevice **out, char *msg, size_t msglen);
/* The default order: the first HIP GPU, else the first CUDA GPU, else `host_kind` ("emu", or "interp"
 * while emu code cannot be generated yet). */
rk_status rt_device_open_default(const char *host_kind, Allocator al, RtDevice **out, char *msg, size_t msglen);
void rt_device_close(RtDevice *d);

/* Constructors, one per file. */
rk_status rt_hip_open(int index, Allocator al, RtDevice **out, char *msg, size_t msglen);
rk_status rt_cuda_open(int index, Allocator al, RtDevice **out, char *msg, size_t msglen);
/* sm90: the emu_sm90 device (target emu_sm90, 32-lane waves), else emu. */
rk_status rt_emu_open(Allocator al, bool sm90, RtDevice **out, char *msg, size_t msglen);
rk_status rt_interp_open(Allocator al, RtDevice **out, char *msg, size_t msglen);

/* Sets d->msg and returns st. */
rk_status rt_dev_fail(RtDevice *d, rk_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- shared by the two host devices (host.c) ---- */

/* Host memory registered with both allocation registries (runtime/memreg.h for the interpreter,
 * emu_mem_register for the emulator), so that a pointer from either host device is checked the same
 * way everywhere. Memory comes from the allocator hook, aligned to 256 bytes, filled with 0xFF. */
rk_status rt_host_malloc(RtDevice *d, size_t bytes, void **ptr);
rk_status rt_host_free(RtDevice *d, void *ptr);
rk_status rt_host_memcpy(RtDevice *d, void *dst, const void *src, size_t bytes, RtCopy dir);
rk_status rt_host_memset(RtDevice *d, void *dst, int value, size_t bytes);
rk_status rt_host_synchronize(RtDevice *d);
/* Events on the host's monotonic clock (host launches are synchronous). */
rk_status rt_host_event_create(RtDevice *d, RtEvent **ev);
rk_status rt_host_event_record(RtDevice *d, RtEvent *ev);
rk_status rt_host_event_elapsed(RtDevice *d, RtEvent *start, RtEvent *end, float *ms);
void rt_host_event_destroy(RtDevice *d, RtEvent *ev);
/* Fills the properties common to host devices (core count, memory). */
void rt_host_props(RtProps *p, const char *kind, const char *name);

/* ---- AMDGPU code objects (hip.c) ---- */

/* Whether a 64-bit little-endian ELF's header tables, segments and sections all lie inside its `size`
 * bytes (elf_check.c): checked before any loader sees a code object. A message when not. */
bool rt_elf_extents_ok(const void *binary, size_t size, char *msg, size_t msglen);
/* The processor an AMDGPU code object was built for, from EF_AMDGPU_MACH in the ELF header's e_flags
 * ("gfx942"). NULL with a message when the bytes are not an AMDGPU ELF or the processor is unknown. */
const char *rt_amdgpu_elf_arch(const void *binary, size_t size, char *msg, size_t msglen);
/* Whether a code object for processor `elf_arch` runs on a device whose gcnArchName is `dev_arch`
 * ("gfx942:sramecc+:xnack-"): the processor names before any ':' must be equal. */
bool rt_amdgpu_arch_matches(const char *elf_arch, const char *dev_arch);

#endif
