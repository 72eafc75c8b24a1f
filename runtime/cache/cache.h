/* The on-disk cache: entries named by a key, written atomically, checked when read.
 *
 * Layout: DIR/<kind>/<first two hex digits of the key>/<the other 62>, kind being "compile" (a compiled
 * program), "tune" (an autotuning's winner with its code), "meta" (a kernel's tuning description) or
 * "btune" (a bundle's winner). DIR is the context's cache folder: rk_ctx_options.cache_dir, else
 * $RK_CACHE_DIR, else $XDG_CACHE_HOME/rk, else $HOME/.cache/rk.
 *
 * An entry is a header and a payload:
 *     magic "RKCACHE\0" | u32 format version | u32 header bytes | u64 payload bytes | u64 checksum |
 *     32-byte key | payload
 * The checksum (hash_fast64 of the payload, seeded by its length) and the key catch a truncated, corrupt
 * or misplaced entry, which the caller then rebuilds and overwrites.
 *
 * Writers never expose a partial entry: the bytes go to a temporary file in the same folder (named
 * after the writer's process and thread) which is then renamed over the entry. Two processes filling
 * the same entry at once both rename a complete file; whichever comes last wins, and both contents are
 * valid. A reader either sees a whole old entry or a whole new one. Failures (no HOME, an unwritable or
 * full folder) are reported to the caller, which compiles without caching. Nothing here prints. */
#ifndef RK_CACHE_H
#define RK_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/cache/hash.h"
#include "support/arena.h"

enum { CACHE_FORMAT_VERSION = 1 };

typedef enum CacheGet {
    CACHE_HIT,
    CACHE_MISS,    /* no entry */
    CACHE_CORRUPT, /* an entry that fails its checks: truncated, bad magic, version, key or checksum */
    CACHE_NOMEM,
} CacheGet;

/* The cache folder for an explicit setting (NULL: the defaults above) into out; false when there is
 * none (no HOME) or the path is too long. */
bool cache_resolve_dir(const char *setting, char *out, size_t outlen);

/* Reads an entry. On a hit, *payload (from `al`, free with arena_free_raw(al, p, *size)) holds *size bytes. */
CacheGet cache_get(const char *dir, const char *kind, const HashKey *key, const Allocator *al, void **payload,
                   size_t *size);
/* Writes an entry (creating folders). False with a reason in why when it could not. */
bool cache_put(const char *dir, const char *kind, const HashKey *key, const void *payload, size_t size, char *why,
               size_t whylen);
/* The path of an entry, for tests. */
void cache_entry_path(const char *dir, const char *kind, const HashKey *key, char *out, size_t outlen);

#endif
