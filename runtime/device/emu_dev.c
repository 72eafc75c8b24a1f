/* The `emu` device: kernels compiled for --target=emu, run by the host emulator of a gfx942 workgroup;
 * and the `emu_sm90` device: the same emulator running kernels compiled for --target=emu_sm90 (the
 * sm_90 lowering for the host) in waves of 32 lanes.
 *
 * Its code object is a host shared object exporting `void <kernel>(const void *kernarg, EmuLane *lane)`
 * per kernel (isa/emu_abi.h), and, for a wave size other than 64, the i32 "<kernel>.rk_wave"
 * (EMU_WAVE_SYMBOL_SUFFIX) that launches read. Loading writes it to an anonymous memory file (memfd_create) and
 * dlopens that through /proc/self/fd, or, where memfd is missing, to a private temporary file that is
 * unlinked at once; nothing is left on disk either way. The file descriptor stays open while the module
 * is loaded, so its /proc path cannot name another module meanwhile (the loader would hand back the
 * old one for a name it already knows). Launch hands the kernarg block, in HIP's layout, to
 * emu_launch with block = num_warps * wave work-items and the kernel's static LDS. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/device/device.h"
#include "runtime/emu/emu.h"

struct RtFunc {
    EmuKernelFn entry;
    int wave; /* lanes per wave: 64 unless the code exports "<kernel>" EMU_WAVE_SYMBOL_SUFFIX */
    RtFunc *next;
};

struct RtModule {
    void *handle;
    int fd;
    RtFunc *funcs;
};

static bool write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        c += w;
        n -= (size_t)w;
    }
    return true;
}

/* An open file holding the bytes, and a path dlopen can use for it. -1 on failure (errno set). */
static int open_image(const void *binary, size_t size, char *path, size_t pathlen)
{
    int fd = memfd_create("rk-emu", MFD_CLOEXEC);
    if (fd >= 0) {
        snprintf(path, pathlen, "/proc/self/fd/%d", fd);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(path, pathlen, "%s/rk-emu-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        fd = mkostemp(path, O_CLOEXEC);
        if (fd < 0)
            return -1;
    }
    if (!write_all(fd, binary, size)) {
        int e = errno;
        if (strncmp(path, "/proc/", 6) != 0)
            unlink(path);
        close(fd);
        errno = e ? e : EIO;
        return -1;
    }
    return fd;
}

static rk_status emu_load(RtDevice *d, const void *binary, size_t size, RtModule **out)
{
    if (size < 4 || memcmp(binary, "\x7f" "ELF", 4) != 0)
        return rt_dev_fail(d, RK_EDEVICE, "not an emu code object: not an ELF shared object");
    char why[256];
    if (!rt_elf_extents_ok(binary, size, why, sizeof why))
        return rt_dev_fail(d, RK_EDEVICE, "cannot load the emu code object: %s", why);
    RtModule *mod = arena_alloc_raw(&d->alloc, sizeof *mod);
    if (!mod)
        return rt_dev_fail(d, RK_ENOMEM, "out of memory loading a module");
    memset(mod, 0, sizeof *mod);
    char path[4096];
    mod->fd = open_image(binary, size, path, sizeof path);
    if (mod->fd < 0) {
        arena_free_raw(&d->alloc, mod, sizeof *mod);
        return rt_dev_fail(d, RK_EIO, "cannot write the emu code object to a temporary file: %s", strerror(errno));
    }
    mod->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (strncmp(path, "/proc/", 6) != 0)
        unlink(path);
    if (!mod->handle) {
        const char *e = dlerror();
        rt_dev_fail(d, RK_EDEVICE, "cannot load the emu code object: %s", e ? e : "dlopen failed");
        close(mod->fd);
        arena_free_raw(&d->alloc, mod, sizeof *mod);
        return RK_EDEVICE;
    }
    *out = mod;
    return RK_OK;
}

static void emu_unload(RtDevice *d, RtModule *mod)
{
    for (RtFunc *f = mod->funcs, *next; f; f = next) {
        next = f->next;
        arena_free_raw(&d->alloc, f, sizeof *f);
    }
    dlclose(mod->handle);
    close(mod->fd);
    arena_free_raw(&d->alloc, mod, sizeof *mod);
}

static rk_status emu_function(RtDevice *d, RtModule *mod, const char *symbol, RtFunc **fn)
{
    dlerror();
    void *sym = dlsym(mod->handle, symbol);
    if (!sym)
        return rt_dev_fail(d, RK_ENOTFOUND, "no kernel '%s' in the emu code object", symbol);
    int wave = EMU_WAVE;
    char wname[512];
    if ((size_t)snprintf(wname, sizeof wname, "%s%s", symbol, EMU_WAVE_SYMBOL_SUFFIX) < sizeof wname) {
        const int32_t *w = dlsym(mod->handle, wname);
        if (w)
            wave = *w;
    }
    if (wave != EMU_WAVE && wave != EMU_WAVE_MIN)
        return rt_dev_fail(d, RK_EDEVICE, "kernel '%s' asks for waves of %d lanes; the emulator runs %d or %d", symbol,
                           wave, EMU_WAVE, EMU_WAVE_MIN);
    /* the device runs the wave size of its target: 64 on emu, 32 on emu_sm90 */
    if (wave != d->props.wave_size)
        return rt_dev_fail(d, RK_EUNSUPPORTED, "kernel '%s' was compiled for waves of %d lanes; device %s runs %d",
                           symbol, wave, d->props.kind, d->props.wave_size);
    RtFunc *f = arena_alloc_raw(&d->alloc, sizeof *f);
    if (!f)
        return rt_dev_fail(d, RK_ENOMEM, "out of memory");
    f->wave = wave;
    /* POSIX guarantees that dlsym's object pointer converts to a function pointer. */
    memcpy(&f->entry, &sym, sizeof f->entry);
    f->next = mod->funcs;
    mod->funcs = f;
    *fn = f;
    return RK_OK;
}

static rk_status emu_launch_fn(RtDevice *d, const RtLaunch *l)
{
    EmuLaunch el = {.kernel_name = l->name,
                    .entry = l->fn->entry,
                    .kernarg = l->kernarg,
                    .grid = {l->grid[0], l->grid[1], l->grid[2]},
                    .block = l->block,
                    .lds_bytes = l->lds_bytes,
                    .wave = l->fn->wave,
                    .threads = l->threads,
                    .print_sink = l->print,
                    .print_ud = l->print_ud,
                    .check_races = l->check_races};
    switch (emu_launch(&el, d->msg, sizeof d->msg)) {
    case EMU_OK:
        return RK_OK;
    case EMU_ERR_NOMEM:
        return RK_ENOMEM;
    case EMU_ERR_INVALID: /* launch parameters the emulator refuses, or code it cannot run */
        return RK_EDEVICE;
    default: /* access, assert, wave operation reached by some lanes only, timeout */
        return RK_EKERNEL;
    }
}

static void emu_release(RtDevice *d)
{
    arena_free_raw(&d->alloc, d, sizeof *d);
}

static const RtDeviceOps emu_ops = {
    .kind = "emu", /* both devices: props.kind says which */
    .malloc = rt_host_malloc,
    .free = rt_host_free,
    .memcpy = rt_host_memcpy,
    .memset = rt_host_memset,
    .load = emu_load,
    .unload = emu_unload,
    .function = emu_function,
    .launch = emu_launch_fn,
    .synchronize = rt_host_synchronize,
    .event_create = rt_host_event_create,
    .event_record = rt_host_event_record,
    .event_elapsed = rt_host_event_elapsed,
    .event_destroy = rt_host_event_destroy,
    .release = emu_release,
};

rk_status rt_emu_open(Allocator al, bool sm90, RtDevice **out, char *msg, size_t msglen)
{
    const char *kind = sm90 ? "emu_sm90" : "emu";
    RtDevice *d = arena_alloc_raw(&al, sizeof *d);
    if (!d) {
        snprintf(msg, msglen, "out of memory opening device %s", kind);
        return RK_ENOMEM;
    }
    memset(d, 0, sizeof *d);
    d->ops = &emu_ops;
    d->alloc = al;
    rt_host_props(&d->props, kind,
                  sm90 ? "host emulator of an sm_90 thread block" : "host emulator of a gfx942 workgroup");
    if (sm90) { /* the target's facts (compiler/target/target.c): warps of 32, 227 KiB of shared memory */
        snprintf(d->props.arch, sizeof d->props.arch, "sm_90");
        d->props.wave_size = EMU_WAVE_MIN;
        d->props.lds_bytes = 227 * 1024;
    }
    *out = d;
    return RK_OK;
}
