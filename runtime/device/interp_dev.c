/* The `interp` device: the reference interpreter of tile IR behind the device vtable.
 *
 * Its code object is the TIR text of a module (what `--target=interp` produces), parsed on load into a
 * module with its own arena. A function handle is the kernel's Func. Memory is host memory registered
 * with the allocation registry the interpreter checks every access against (host.c). Launches run to
 * completion on host threads; a kernel that fails (out of bounds, device_assert, timeout) is
 * RK_EKERNEL with the interpreter's message, which names the kernel, program id and source position. */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "compiler/tir/tir.h"
#include "runtime/device/device.h"
#include "runtime/interp/interp.h"

struct RtModule {
    Arena arena;
    Module *m;
};

static rk_status interp_load(RtDevice *d, const void *binary, size_t size, RtModule **out)
{
    RtModule *mod = arena_alloc_raw(&d->alloc, sizeof *mod);
    if (!mod)
        return rt_dev_fail(d, RK_ENOMEM, "out of memory loading a module");
    memset(mod, 0, sizeof *mod);
    arena_init(&mod->arena, d->alloc);
    jmp_buf oom;
    if (setjmp(oom)) {
        arena_free(&mod->arena);
        arena_free_raw(&d->alloc, mod, sizeof *mod);
        return rt_dev_fail(d, RK_ENOMEM, "out of memory loading a module");
    }
    mod->arena.oom = &oom;
    Arena *a = &mod->arena;
    SrcMgr *src = ARENA_NEW(a, SrcMgr);
    src_init(src, a);
    Diags *diags = ARENA_NEW(a, Diags);
    diags_init(diags, a, src);
    StrTab *strs = ARENA_NEW(a, StrTab);
    strtab_init(strs, a);
    TypeTab *types = ARENA_NEW(a, TypeTab);
    typetab_init(types, a);
    SrcFile *f = src_add(src, "<interp code object>", binary, size);
    mod->m = f ? tir_parse(a, types, strs, diags, f) : NULL;
    if (!mod->m) {
        const Diag *g = diags->n ? &diags->items[0] : NULL;
        if (g)
            rt_dev_fail(d, RK_EDEVICE, "not an interp code object: line %d, column %d: %s", g->line, g->col, g->msg);
        else
            rt_dev_fail(d, RK_EDEVICE, "not an interp code object: the text is over 4 GiB");
        mod->arena.oom = NULL;
        arena_free(&mod->arena);
        arena_free_raw(&d->alloc, mod, sizeof *mod);
        return RK_EDEVICE;
    }
    mod->arena.oom = NULL;
    *out = mod;
    return RK_OK;
}

static void interp_unload(RtDevice *d, RtModule *mod)
{
    arena_free(&mod->arena);
    arena_free_raw(&d->alloc, mod, sizeof *mod);
}

static rk_status interp_function(RtDevice *d, RtModule *mod, const char *symbol, RtFunc **fn)
{
    Func *f = tir_module_find(mod->m, FUNC_KERNEL, symbol);
    if (!f)
        return rt_dev_fail(d, RK_ENOTFOUND, "no kernel '%s' in the code object", symbol);
    *fn = (RtFunc *)f;
    return RK_OK;
}

static rk_status interp_launch_fn(RtDevice *d, const RtLaunch *l)
{
    const Func *f = (const Func *)l->fn;
    InterpLaunch il = {.kernel = f,
                       .args = l->args,
                       .grid = {l->grid[0], l->grid[1], l->grid[2]},
                       .threads = l->threads,
                       .print_sink = l->print,
                       .print_ud = l->print_ud};
    InterpStatus st = interp_launch(&il, d->msg, sizeof d->msg);
    switch (st) {
    case INTERP_OK:
        return RK_OK;
    case INTERP_ERR_NOMEM:
        return RK_ENOMEM;
    default: /* access, assert, timeout, and what the interpreter refuses to run */
        return RK_EKERNEL;
    }
}

static void interp_release(RtDevice *d)
{
    arena_free_raw(&d->alloc, d, sizeof *d);
}

static const RtDeviceOps interp_ops = {
    .kind = "interp",
    .malloc = rt_host_malloc,
    .free = rt_host_free,
    .memcpy = rt_host_memcpy,
    .memset = rt_host_memset,
    .load = interp_load,
    .unload = interp_unload,
    .function = interp_function,
    .launch = interp_launch_fn,
    .synchronize = rt_host_synchronize,
    .event_create = rt_host_event_create,
    .event_record = rt_host_event_record,
    .event_elapsed = rt_host_event_elapsed,
    .event_destroy = rt_host_event_destroy,
    .release = interp_release,
};

rk_status rt_interp_open(Allocator al, RtDevice **out, char *msg, size_t msglen)
{
    RtDevice *d = arena_alloc_raw(&al, sizeof *d);
    if (!d) {
        snprintf(msg, msglen, "out of memory opening device interp");
        return RK_ENOMEM;
    }
    memset(d, 0, sizeof *d);
    d->ops = &interp_ops;
    d->alloc = al;
    rt_host_props(&d->props, "interp", "reference interpreter of tile IR (host)");
    *out = d;
    return RK_OK;
}
