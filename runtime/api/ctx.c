/* The runtime half of rk.h: contexts, errors and diagnostics, device memory, synchronisation and
 * events. Programs and kernels are in program.c, launches in launch.c.
 *
 * Every entry point validates its handles and out pointers first (RK_EINVAL, with a message when there
 * is a context to hold it), clears the context's error, and leaves a message there on failure. Memory
 * of the library comes from the context's allocator hook: arenas for what lives and dies together
 * (with a recovery point around each use, see support/arena.h), arena_alloc_raw for the rest. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/api/api_internal.h"
#include "runtime/cache/cache.h"
#include "runtime/profile/profile.h"
#include "runtime/version.h"

/* ---- status, version, errors ---- */

const char *rk_status_name(rk_status status)
{
    static const char *const names[] = {"RK_OK",         "RK_EINVAL", "RK_ENOMEM",       "RK_ECOMPILE",
                                        "RK_ENODEVICE",  "RK_EDEVICE", "RK_ELAUNCH",     "RK_EKERNEL",
                                        "RK_EUNSUPPORTED", "RK_EIO",  "RK_ENOTFOUND",    "RK_EINTERNAL",
                                        "RK_EBUSY"};
    return (unsigned)status < sizeof names / sizeof names[0] ? names[status] : "RK_UNKNOWN_STATUS";
}

const char *rk_version(void)
{
    return rt_version();
}

rk_status rt_fail(rk_ctx *ctx, rk_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->err, sizeof ctx->err, fmt, ap);
    va_end(ap);
    return st;
}

void rt_clear(rk_ctx *ctx)
{
    ctx->err[0] = 0;
}

/* a token of the calling thread: the address of a thread-local */
static _Thread_local char thread_token;

RtGuard rt_enter(rk_ctx *ctx)
{
    uintptr_t me = (uintptr_t)&thread_token, none = 0;
    if (atomic_load_explicit(&ctx->owner, memory_order_relaxed) == me) {
        ctx->depth++;
    } else if (atomic_compare_exchange_strong_explicit(&ctx->owner, &none, me, memory_order_acquire,
                                                       memory_order_relaxed)) {
        ctx->depth = 1;
    } else {
        return (RtGuard){NULL};
    }
    ctx->err[0] = 0;
    return (RtGuard){ctx};
}

void rt_leave(RtGuard *g)
{
    if (g->ctx && --g->ctx->depth == 0)
        atomic_store_explicit(&g->ctx->owner, 0, memory_order_release);
}

rk_status rt_dev_error(rk_ctx *ctx, rk_status st)
{
    snprintf(ctx->err, sizeof ctx->err, "%s", ctx->dev->msg);
    return st;
}

rk_status rt_need_device(rk_ctx *ctx)
{
    if (ctx->dev)
        return RK_OK;
    return rt_fail(ctx, ctx->dev_status, "%s", ctx->dev_msg);
}

const char *rk_error(const rk_ctx *ctx)
{
    return ctx ? ctx->err : "no context (rk_ctx_create failed before making one)";
}

/* ---- contexts ---- */

static const char *env_or(const char *opt, const char *env)
{
    if (opt)
        return opt;
    const char *e = getenv(env);
    return e && *e ? e : NULL;
}

static void fill_info(rk_ctx *ctx)
{
    rk_device_info *i = &ctx->info;
    memset(i, 0, sizeof *i);
    if (!ctx->dev) {
        i->kind = "none";
        i->name = "no device";
        i->arch = "none";
        return;
    }
    const RtProps *p = &ctx->dev->props;
    *i = (rk_device_info){p->kind, p->name, p->arch, p->target, p->compute_units, p->lds_bytes, p->wave_size,
                          p->global_memory};
}

/* An rk_ctx_options switch: 1 on, -1 off, 0 as the environment variable says ("1" or "true": on). */
static bool switch_or_env(int opt, const char *env)
{
    if (opt)
        return opt > 0;
    const char *e = getenv(env);
    return e && (strcmp(e, "1") == 0 || strcmp(e, "true") == 0 || strcmp(e, "yes") == 0);
}

/* Logging, the cache, the profiler and the tuning settings. False when out of memory. */
static bool configure_tools(rk_ctx *ctx, const rk_ctx_options *o)
{
    ctx->log = o->log;
    ctx->log_ud = o->log_ud;
    ctx->settings.print_autotuning = switch_or_env(o->print_autotuning, "RK_PRINT_AUTOTUNING");
    ctx->check_races = switch_or_env(o->check_races, "RK_CHECK_RACES");
    ctx->settings.no_specialize = switch_or_env(o->no_specialize, "RK_NO_SPECIALIZE");
    ctx->settings.confine_imports = o->confine_imports > 0;
    ctx->cache_read = !switch_or_env(o->always_compile, "RK_ALWAYS_COMPILE");
    char dir[4096];
    if (cache_resolve_dir(ctx->cache_dir, dir, sizeof dir) && !(ctx->settings.cache_root = arena_strdup(&ctx->arena, dir)))
        return false;
    ctx->settings.compile_threads = o->compile_threads > 0 ? o->compile_threads : 0;
    ctx->tune_warmup = o->tune_warmup > 0 ? o->tune_warmup : 1;
    ctx->tune_runs = o->tune_runs > 0 ? o->tune_runs : 10;
    ctx->tune_ms = o->tune_ms > 0 ? o->tune_ms : o->tune_ms < 0 ? 0 : 100;
    const char *prof = o->profile ? o->profile : getenv("RK_PROFILE");
    if (prof && *prof && !(ctx->prof = prof_open(ctx->alloc, prof)))
        return false;
    return true;
}

void rt_log(rk_ctx *ctx, rk_log_kind kind, const char *fmt, ...)
{
    if (!ctx->log)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    ctx->log(ctx->log_ud, kind, line);
}

void rt_cache_note(rk_ctx *ctx, const char *why)
{
    if (ctx->cache_noted)
        return;
    ctx->cache_noted = true;
    rt_log(ctx, RK_LOG_NOTE, "%s; compiling without the cache", why);
}

rk_status rk_get_stats(const rk_ctx *ctx, rk_stats *stats)
{
    if (!ctx || !stats)
        return RK_EINVAL;
    *stats = ctx->stats;
    return RK_OK;
}

rk_status rk_ctx_create(const rk_ctx_options *options, rk_ctx **out)
{
    if (!out)
        return RK_EINVAL;
    *out = NULL;
    rk_ctx_options none;
    memset(&none, 0, sizeof none);
    const rk_ctx_options *o = options ? options : &none;
    if (o->host_threads < 0 || o->device_index < 0)
        return RK_EINVAL;
    Allocator al = o->alloc ? (Allocator){o->alloc, o->alloc_ud} : arena_default_allocator;
    rk_ctx *ctx = arena_alloc_raw(&al, sizeof *ctx);
    if (!ctx)
        return RK_ENOMEM;
    memset(ctx, 0, sizeof *ctx);
    ctx->alloc = al;
    arena_init(&ctx->arena, al);
    arena_init(&ctx->diag_arena, al);
    /* The arena has no recovery point here: arena_strdup returns NULL when the hook fails. */
    const char *strs[4] = {env_or(o->dump_ir, "RK_DUMP_IR"), env_or(o->dump_dir, "RK_DUMP_DIR"),
                           env_or(o->cache_dir, "RK_CACHE_DIR"), env_or(o->stdlib_dir, "RK_STDLIB_DIR")};
    const char **dsts[4] = {&ctx->settings.dump_ir, &ctx->settings.dump_dir, &ctx->cache_dir, &ctx->settings.stdlib_dir};
    for (int i = 0; i < 4; i++)
        if (strs[i] && !(*dsts[i] = arena_strdup(&ctx->arena, strs[i]))) {
            rk_ctx_destroy(ctx);
            return RK_ENOMEM;
        }
    ctx->settings.dump = o->dump;
    ctx->settings.dump_ud = o->dump_ud;
    ctx->print = o->print;
    ctx->print_ud = o->print_ud;
    ctx->host_threads = o->host_threads;
    if (!configure_tools(ctx, o)) {
        rk_ctx_destroy(ctx);
        return RK_ENOMEM;
    }

    const char *kind = env_or(o->device, "RK_DEVICE");
    rk_status st;
    if (kind && strcmp(kind, "none") == 0) {
        st = RK_OK;
        ctx->dev_status = RK_ENODEVICE;
        snprintf(ctx->dev_msg, sizeof ctx->dev_msg, "the context has no device (device \"none\")");
    } else if (kind) {
        st = rt_device_open(kind, o->device_index, al, &ctx->dev, ctx->dev_msg, sizeof ctx->dev_msg);
    } else {
        /* Without a GPU, the emulator: it runs what the compiler makes for the emu targets and the
         * programs of bundles alike (the interpreter is asked for by name). */
        st = rt_device_open_default("emu", al, &ctx->dev, ctx->dev_msg, sizeof ctx->dev_msg);
    }
    if (st == RK_ENOMEM) {
        rk_ctx_destroy(ctx);
        return RK_ENOMEM;
    }
    if (st != RK_OK) {
        ctx->dev_status = st;
        snprintf(ctx->err, sizeof ctx->err, "%s", ctx->dev_msg);
    }
    fill_info(ctx);
    *out = ctx;
    return st;
}

void rk_ctx_destroy(rk_ctx *ctx)
{
    if (!ctx)
        return;
    rt_bundles_destroy(ctx);
    rt_memo_destroy(ctx);
    if (ctx->prof) {
        char why[512];
        if (!prof_close(ctx->prof, why, sizeof why))
            rt_log(ctx, RK_LOG_NOTE, "%s", why);
        ctx->prof = NULL;
    }
    while (ctx->programs)
        rk_program_destroy(ctx->programs);
    while (ctx->events)
        rk_event_destroy(ctx->events);
    if (ctx->dev) {
        for (int i = 0; i < ctx->nallocs; i++)
            ctx->dev->ops->free(ctx->dev, (void *)ctx->allocs[i].base);
        rt_device_close(ctx->dev);
    }
    arena_free_raw(&ctx->alloc, ctx->allocs, sizeof(RtAlloc) * (size_t)ctx->capallocs);
    arena_free(&ctx->arena);
    arena_free(&ctx->diag_arena);
    Allocator al = ctx->alloc;
    arena_free_raw(&al, ctx, sizeof *ctx);
}

rk_status rk_device_get_info(rk_ctx *ctx, rk_device_info *info)
{
    if (!ctx || !info)
        return RK_EINVAL;
    RT_ENTER(ctx);
    *info = ctx->info;
    return RK_OK;
}

/* ---- diagnostics ---- */

void rt_set_diags(rk_ctx *ctx, const Diag *items, int n)
{
    arena_free(&ctx->diag_arena);
    ctx->diags = NULL;
    ctx->ndiags = 0;
    if (n == 0)
        return;
    Arena *a = &ctx->diag_arena;
    rk_diag *d = ARENA_ARRAY(a, rk_diag, n);
    for (int i = 0; i < n; i++) {
        const Diag *g = &items[i];
        d[i].severity = g->sev == DIAG_ERROR ? RK_SEVERITY_ERROR : g->sev == DIAG_WARNING ? RK_SEVERITY_WARNING
                                                                                           : RK_SEVERITY_NOTE;
        d[i].file = g->file ? arena_strdup(a, g->file) : NULL;
        d[i].line = g->line;
        d[i].column = g->col;
        d[i].message = arena_strdup(a, g->msg);
        d[i].source_line = g->srcline ? arena_strndup(a, g->srcline, (size_t)g->srclen) : NULL;
        d[i].caret = g->caret;
        d[i].text = diag_render(a, g);
    }
    ctx->diags = d;
    ctx->ndiags = n;
}

void rt_diags_oom(rk_ctx *ctx, jmp_buf *oom)
{
    ctx->diag_arena.oom = oom;
}

/* ---- what the compiler half reads and adds to (program_build.h) ---- */

const RtCompileSettings *rt_compile_settings(const rk_ctx *ctx)
{
    return &ctx->settings;
}

Allocator *rt_ctx_allocator(rk_ctx *ctx)
{
    return &ctx->alloc;
}

rk_stats *rt_ctx_stats(rk_ctx *ctx)
{
    return &ctx->stats;
}

struct RtProfile *rt_ctx_profile(rk_ctx *ctx)
{
    return ctx->prof;
}

const rk_device_info *rt_ctx_device(const rk_ctx *ctx)
{
    return &ctx->info;
}

int rk_diag_count(const rk_ctx *ctx)
{
    return ctx ? ctx->ndiags : 0;
}

rk_status rk_diag_get(const rk_ctx *ctx, int i, rk_diag *diag)
{
    if (!ctx || !diag || i < 0 || i >= ctx->ndiags)
        return RK_EINVAL;
    *diag = ctx->diags[i];
    return RK_OK;
}

/* ---- the allocation registry ---- */

/* Index of the first allocation with base > p. */
static int upper(const rk_ctx *ctx, uintptr_t p)
{
    int lo = 0, hi = ctx->nallocs;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (ctx->allocs[mid].base <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const RtAlloc *rt_alloc_find(const rk_ctx *ctx, const void *p, size_t bytes)
{
    uintptr_t a = (uintptr_t)p;
    int i = upper(ctx, a);
    if (i == 0)
        return NULL;
    const RtAlloc *r = &ctx->allocs[i - 1];
    if (a - r->base > r->bytes || bytes > r->bytes - (a - r->base))
        return NULL;
    return r;
}

static bool alloc_add(rk_ctx *ctx, void *p, size_t bytes)
{
    if (ctx->nallocs == ctx->capallocs) {
        int cap = ctx->capallocs ? ctx->capallocs * 2 : 16;
        RtAlloc *n = ctx->alloc.fn(ctx->alloc.ud, ctx->allocs, sizeof(RtAlloc) * (size_t)ctx->capallocs,
                                   sizeof(RtAlloc) * (size_t)cap);
        if (!n)
            return false;
        ctx->allocs = n;
        ctx->capallocs = cap;
    }
    int i = upper(ctx, (uintptr_t)p);
    memmove(&ctx->allocs[i + 1], &ctx->allocs[i], sizeof(RtAlloc) * (size_t)(ctx->nallocs - i));
    ctx->allocs[i] = (RtAlloc){(uintptr_t)p, bytes};
    ctx->nallocs++;
    return true;
}

/* ---- memory ---- */

rk_status rk_malloc(rk_ctx *ctx, size_t bytes, void **ptr)
{
    if (!ctx)
        return RK_EINVAL;
    RT_ENTER(ctx);
    if (!ptr)
        return rt_fail(ctx, RK_EINVAL, "rk_malloc: ptr is NULL");
    *ptr = NULL;
    rk_status st = rt_need_device(ctx);
    if (st || bytes == 0)
        return st;
    void *p = NULL;
    st = ctx->dev->ops->malloc(ctx->dev, bytes, &p);
    if (st)
        return rt_dev_error(ctx, st);
    if (!alloc_add(ctx, p, bytes)) {
        ctx->dev->ops->free(ctx->dev, p);
        return rt_fail(ctx, RK_ENOMEM, "out of memory recording an allocation");
    }
    *ptr = p;
    return RK_OK;
}

rk_status rk_free(rk_ctx *ctx, void *ptr)
{
    if (!ctx)
        return RK_EINVAL;
    RT_ENTER(ctx);
    if (!ptr)
        return RK_OK;
    rk_status st = rt_need_device(ctx);
    if (st)
        return st;
    int i = upper(ctx, (uintptr_t)ptr);
    if (i == 0 || ctx->allocs[i - 1].base != (uintptr_t)ptr)
        return rt_fail(ctx, RK_EINVAL, "rk_free: %p is not a pointer rk_malloc returned on this context", ptr);
    /* Host devices run launches to completion; on a GPU, freeing memory a kernel still uses is the
     * caller's race, which HIP's own hipFree waits out. */
    st = ctx->dev->ops->free(ctx->dev, ptr);
    memmove(&ctx->allocs[i - 1], &ctx->allocs[i], sizeof(RtAlloc) * (size_t)(ctx->nallocs - i));
    ctx->nallocs--;
    return st ? rt_dev_error(ctx, st) : RK_OK;
}

static rk_status check_range(rk_ctx *ctx, const char *what, const void *p, size_t bytes)
{
    if (!rt_alloc_find(ctx, p, bytes))
        return rt_fail(ctx, RK_EINVAL, "%s: [%p, +%zu bytes) is not inside memory from rk_malloc on this context", what,
                       p, bytes);
    return RK_OK;
}

static rk_status copy(rk_ctx *ctx, const char *what, void *dst, const void *src, size_t bytes, RtCopy dir)
{
    if (!ctx)
        return RK_EINVAL;
    RT_ENTER(ctx);
    rk_status st = rt_need_device(ctx);
    if (st || bytes == 0)
        return st;
    if (!dst || !src)
        return rt_fail(ctx, RK_EINVAL, "%s: NULL %s", what, dst ? "source" : "destination");
    if (dir != RT_DTOH && (st = check_range(ctx, what, dst, bytes)))
        return st;
    if (dir != RT_HTOD && (st = check_range(ctx, what, src, bytes)))
        return st;
    st = ctx->dev->ops->memcpy(ctx->dev, dst, src, bytes, dir);
    return st ? rt_dev_error(ctx, st) : RK_OK;
}

rk_status rk_memcpy_htod(rk_ctx *ctx, void *dst, const void *src, size_t bytes)
{
    return copy(ctx, "rk_memcpy_htod", dst, src, bytes, RT_HTOD);
}

rk_status rk_memcpy_dtoh(rk_ctx *ctx, void *dst, const void *src, size_t bytes)
{
    return copy(ctx, "rk_memcpy_dtoh", dst, src, bytes, RT_DTOH);
}

rk_status rk_memcpy_dtod(rk_ctx *ctx, void *dst, const void *src, size_t bytes)
{
    return copy(ctx, "rk_memcpy_dtod", dst, src, bytes, RT_DTOD);
}

rk_status rk_memset(rk_ctx *ctx, void *dst, int value, size_t bytes)
{
    if (!ctx)
        return RK_EINVAL;
    RT_ENTER(ctx);
    rk_status st = rt_need_device(ctx);
    if (st || bytes == 0)
        return st;
    if ((st = check_range(ctx, "rk_memset", dst, bytes)))
        return st;
    st = ctx->dev->ops->memset(ctx->dev, dst, value, bytes);
    return st ? rt_dev_error(ctx, st) : RK_OK;
}

rk_status rk_synchronize(rk_ctx *ctx)
{
    if (!ctx)
        return RK_EINVAL;
    RT_ENTER(ctx);
    rk_status st = rt_need_device(ctx);
    if (st)
        return st;
    st = ctx->dev->ops->synchronize(ctx->dev);
    return st ? rt_dev_error(ctx, st) : RK_OK;
}

/* ---- events ---- */

struct rk_event {
    rk_ctx *ctx;
    rk_event *prev, *next;
    RtEvent *ev;
};

rk_status rk_event_create(rk_ctx *ctx, rk_event **event)
{
    if (!ctx)
        return RK_EINVAL;
    RT_ENTER(ctx);
    if (!event)
        return rt_fail(ctx, RK_EINVAL, "rk_event_create: event is NULL");
    *event = NULL;
    rk_status st = rt_need_device(ctx);
    if (st)
        return st;
    rk_event *e = arena_alloc_raw(&ctx->alloc, sizeof *e);
    if (!e)
        return rt_fail(ctx, RK_ENOMEM, "out of memory creating an event");
    memset(e, 0, sizeof *e);
    e->ctx = ctx;
    st = ctx->dev->ops->event_create(ctx->dev, &e->ev);
    if (st) {
        arena_free_raw(&ctx->alloc, e, sizeof *e);
        return rt_dev_error(ctx, st);
    }
    e->next = ctx->events;
    if (ctx->events)
        ctx->events->prev = e;
    ctx->events = e;
    *event = e;
    return RK_OK;
}

rk_status rk_event_record(rk_event *event, rk_stream *stream)
{
    if (!event)
        return RK_EINVAL;
    rk_ctx *ctx = event->ctx;
    RT_ENTER(ctx);
    if (stream)
        return rt_fail(ctx, RK_EUNSUPPORTED, "streams are not implemented yet: pass NULL (the default stream)");
    rk_status st = ctx->dev->ops->event_record(ctx->dev, event->ev);
    return st ? rt_dev_error(ctx, st) : RK_OK;
}

rk_status rk_event_elapsed(rk_event *start, rk_event *end, float *ms)
{
    if (!start || !end)
        return RK_EINVAL;
    rk_ctx *ctx = start->ctx;
    RT_ENTER(ctx);
    if (!ms || end->ctx != ctx)
        return rt_fail(ctx, RK_EINVAL, "rk_event_elapsed: %s", ms ? "events of two contexts" : "ms is NULL");
    rk_status st = ctx->dev->ops->event_elapsed(ctx->dev, start->ev, end->ev, ms);
    return st ? rt_dev_error(ctx, st) : RK_OK;
}

void rk_event_destroy(rk_event *event)
{
    if (!event)
        return;
    rk_ctx *ctx = event->ctx;
    ctx->dev->ops->event_destroy(ctx->dev, event->ev);
    if (event->prev)
        event->prev->next = event->next;
    else
        ctx->events = event->next;
    if (event->next)
        event->next->prev = event->prev;
    arena_free_raw(&ctx->alloc, event, sizeof *event);
}
