/* Programs through the on-disk cache: turning a record into a program on a hit, storing one after a
 * compile. The compile cache (rk_compile) and the autotune cache (rk_autotune's winners) both use it;
 * it needs no compiler. Statistics (rk_stats) and the trace are kept here; failures to write are one
 * note in the log, never an error (the program was compiled; only caching it failed). */
#ifndef RK_PROGCACHE_H
#define RK_PROGCACHE_H

#include "runtime/cache/record.h"

/* Looks the key up. A hit whose imports are unchanged becomes *out (its diagnostics replace the
 * context's, its best_ms goes to *best_ms when not NULL); anything else is a miss with *out NULL. Only
 * running out of memory is an error. Skipped (a miss) without a cache folder or with always_compile. */
rk_status rt_cache_load(rk_ctx *ctx, const char *kind, const HashKey *key, rk_program **out, double *best_ms);
/* Writes the record. A folder that cannot be written is a note in the log (once per context), not an
 * error; running out of memory is RK_ENOMEM, as everywhere (the allocator hook's contract). */
rk_status rt_cache_store(rk_ctx *ctx, const char *kind, const HashKey *key, const ProgRecord *r);

/* Raw entries for other payloads (kernel descriptions): same rules, no program. On a hit *data, from
 * the context's allocator (arena_free_raw(&ctx->alloc, data, size ? size : 1)); on a miss NULL. */
rk_status rt_cache_get_raw(rk_ctx *ctx, const char *kind, const HashKey *key, void **data, size_t *size);
void rt_cache_put_raw(rk_ctx *ctx, const char *kind, const HashKey *key, const void *data, size_t size);

#endif
