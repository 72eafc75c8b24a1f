/* On-disk cache entries: reading with checks, writing through a temporary file and rename (cache.h). */
#include "runtime/cache/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char MAGIC[8] = {'R', 'K', 'C', 'A', 'C', 'H', 'E', 0};

enum { HEADER_BYTES = 8 + 4 + 4 + 8 + 8 + 32 };

bool cache_resolve_dir(const char *setting, char *out, size_t outlen)
{
    int n;
    if (setting && *setting) {
        n = snprintf(out, outlen, "%s", setting);
    } else {
        const char *xdg = getenv("XDG_CACHE_HOME");
        const char *home = getenv("HOME");
        if (xdg && *xdg == '/')
            n = snprintf(out, outlen, "%s/rk", xdg);
        else if (home && *home)
            n = snprintf(out, outlen, "%s/.cache/rk", home);
        else
            return false;
    }
    return n > 0 && (size_t)n < outlen;
}

void cache_entry_path(const char *dir, const char *kind, const HashKey *key, char *out, size_t outlen)
{
    char hex[65];
    hash_key_hex(key, hex);
    snprintf(out, outlen, "%s/%s/%.2s/%s", dir, kind, hex, hex + 2);
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* ---- reading ---- */

static bool read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r;
        n -= (size_t)r;
    }
    return true;
}

CacheGet cache_get(const char *dir, const char *kind, const HashKey *key, const Allocator *al, void **payload,
                   size_t *size)
{
    *payload = NULL;
    *size = 0;
    char path[PATH_MAX];
    cache_entry_path(dir, kind, key, path, sizeof path);
    /* without blocking, and a regular file only: a FIFO or device put in an entry's place is a
     * corrupt entry (replaced by the next write), never a read that waits or never ends (issue 23) */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return CACHE_MISS;
    struct stat st;
    unsigned char h[HEADER_BYTES];
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < HEADER_BYTES || !read_all(fd, h, HEADER_BYTES)) {
        close(fd);
        return CACHE_CORRUPT;
    }
    uint64_t len = get_u64(h + 16);
    if (memcmp(h, MAGIC, 8) != 0 || get_u32(h + 8) != CACHE_FORMAT_VERSION || get_u32(h + 12) != HEADER_BYTES ||
        memcmp(h + 32, key->b, 32) != 0 || len != (uint64_t)st.st_size - HEADER_BYTES || len > SIZE_MAX / 2) {
        close(fd);
        return CACHE_CORRUPT;
    }
    void *buf = arena_alloc_raw(al, len ? (size_t)len : 1);
    if (!buf) {
        close(fd);
        return CACHE_NOMEM;
    }
    bool ok = read_all(fd, buf, (size_t)len);
    close(fd);
    if (!ok || hash_fast64(buf, (size_t)len, len) != get_u64(h + 24)) {
        arena_free_raw(al, buf, len ? (size_t)len : 1);
        return CACHE_CORRUPT;
    }
    *payload = buf;
    *size = (size_t)len;
    return CACHE_HIT;
}

/* ---- writing ---- */

/* mkdir -p of the folder holding `file`. */
static bool make_dirs(const char *file, char *why, size_t whylen)
{
    char d[PATH_MAX];
    snprintf(d, sizeof d, "%s", file);
    char *last = strrchr(d, '/');
    if (!last || last == d)
        return true;
    *last = 0;
    struct stat st;
    if (stat(d, &st) == 0 && S_ISDIR(st.st_mode))
        return true;
    for (char *p = d + 1;; p++) {
        if (*p != '/' && *p != 0)
            continue;
        char c = *p;
        *p = 0;
        if (mkdir(d, 0777) != 0 && errno != EEXIST) {
            snprintf(why, whylen, "cannot create the cache folder %s: %s", d, strerror(errno));
            return false;
        }
        *p = c;
        if (!c)
            break;
    }
    if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, whylen, "cannot create the cache folder %s: %s", d, strerror(ENOTDIR));
        return false;
    }
    return true;
}

static bool write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = ENOSPC;
            return false;
        }
        p += w;
        n -= (size_t)w;
    }
    return true;
}

static unsigned long next_tmp(void)
{
    static unsigned long counter;
    return __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
}

bool cache_put(const char *dir, const char *kind, const HashKey *key, const void *payload, size_t size, char *why,
               size_t whylen)
{
    char path[PATH_MAX], tmp[PATH_MAX + 64];
    cache_entry_path(dir, kind, key, path, sizeof path);
    if (!make_dirs(path, why, whylen))
        return false;
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%lx.%lu", path, (long)getpid(), (unsigned long)pthread_self(), next_tmp());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(why, whylen, "cannot write to the cache folder %s: %s", dir, strerror(errno));
        return false;
    }
    unsigned char h[HEADER_BYTES];
    memcpy(h, MAGIC, 8);
    put_u32(h + 8, CACHE_FORMAT_VERSION);
    put_u32(h + 12, HEADER_BYTES);
    put_u64(h + 16, size);
    put_u64(h + 24, hash_fast64(payload, size, size));
    memcpy(h + 32, key->b, 32);
    bool ok = write_all(fd, h, sizeof h) && write_all(fd, payload, size);
    int e = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        e = errno;
    }
    if (!ok) {
        unlink(tmp);
        snprintf(why, whylen, "cannot write the cache entry %s: %s", path, strerror(e));
    }
    return ok;
}
