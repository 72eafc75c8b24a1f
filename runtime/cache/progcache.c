/* Programs through the on-disk cache (progcache.h). */
#include "runtime/api/api_internal.h"
#include "runtime/cache/progcache.h"

#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "runtime/cache/cache.h"
#include "runtime/profile/profile.h"

rk_status rt_cache_get_raw(rk_ctx *ctx, const char *kind, const HashKey *key, void **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    if (!ctx->settings.cache_root || !ctx->cache_read)
        return RK_OK;
    CacheGet g = cache_get(ctx->settings.cache_root, kind, key, &ctx->alloc, data, size);
    if (g == CACHE_HIT)
        return RK_OK;
    if (g == CACHE_NOMEM)
        return rt_fail(ctx, RK_ENOMEM, "out of memory reading the cache");
    ctx->stats.cache_misses++;
    if (g == CACHE_CORRUPT)
        ctx->stats.cache_corrupt++;
    return RK_OK;
}

void rt_cache_put_raw(rk_ctx *ctx, const char *kind, const HashKey *key, const void *data, size_t size)
{
    if (!ctx->settings.cache_root)
        return;
    char why[1024];
    if (cache_put(ctx->settings.cache_root, kind, key, data, size, why, sizeof why))
        ctx->stats.cache_writes++;
    else
        rt_cache_note(ctx, why);
}

/* The recovery point of a load lives in a block from the hook (see compiler/api/compile.c for why). */
typedef struct Load {
    Arena a;
    jmp_buf oom;
} Load;

rk_status rt_cache_load(rk_ctx *ctx, const char *kind, const HashKey *key, rk_program **out, double *best_ms)
{
    *out = NULL;
    double t0 = ctx->prof ? prof_now_us() : 0;
    void *data;
    size_t size;
    rk_status st = rt_cache_get_raw(ctx, kind, key, &data, &size);
    if (st || !data)
        return st;
    Load *l = arena_alloc_raw(&ctx->alloc, sizeof *l);
    if (!l) {
        arena_free_raw(&ctx->alloc, data, size ? size : 1);
        return rt_fail(ctx, RK_ENOMEM, "out of memory reading the cache");
    }
    arena_init(&l->a, ctx->alloc);
    if (setjmp(l->oom)) {
        ctx->diag_arena.oom = NULL;
        rt_set_diags(ctx, NULL, 0);
        arena_free(&l->a);
        arena_free_raw(&ctx->alloc, l, sizeof *l);
        arena_free_raw(&ctx->alloc, data, size ? size : 1);
        return rt_fail(ctx, RK_ENOMEM, "out of memory reading the cache");
    }
    l->a.oom = &l->oom;
    BlobReader rd = {data, (const unsigned char *)data + size, &l->a, false};
    ProgRecord r;
    bool ok = record_read(&rd, &r);
    if (!ok)
        ctx->stats.cache_corrupt++;
    if (ok && !record_deps_current(r.deps, r.ndeps))
        ok = false; /* stale: an import changed */
    if (ok) {
        st = rt_program_new(ctx, r.target, r.binary, r.size, r.kernels, r.nkernels, out);
        if (st && st != RK_ENOMEM) {
            ok = false; /* a record that parses but does not build is corrupt */
            ctx->stats.cache_corrupt++;
            st = RK_OK;
            rt_clear(ctx);
        }
    }
    if (ok && !st) {
        ctx->diag_arena.oom = &l->oom;
        rt_set_diags(ctx, r.diags, r.ndiags);
        ctx->diag_arena.oom = NULL;
        if (best_ms)
            *best_ms = r.best_ms;
        ctx->stats.cache_hits++;
    } else if (!st) {
        ctx->stats.cache_misses++;
    }
    l->a.oom = NULL;
    arena_free(&l->a);
    arena_free_raw(&ctx->alloc, l, sizeof *l);
    arena_free_raw(&ctx->alloc, data, size ? size : 1);
    if (ctx->prof && *out) {
        char args[128];
        snprintf(args, sizeof args, "{\"kind\": \"%s\", \"bytes\": %zu}", kind, size);
        prof_span(ctx->prof, "cache", "cache hit", t0, prof_now_us() - t0, args);
    }
    return st;
}

rk_status rt_cache_store(rk_ctx *ctx, const char *kind, const HashKey *key, const ProgRecord *r)
{
    if (!ctx->settings.cache_root)
        return RK_OK;
    Blob b;
    blob_init(&b, ctx->alloc);
    record_write(&b, r);
    bool oom = b.oom;
    if (!oom)
        rt_cache_put_raw(ctx, kind, key, b.p, b.n);
    blob_free(&b);
    return oom ? rt_fail(ctx, RK_ENOMEM, "out of memory writing a cache entry") : RK_OK;
}
