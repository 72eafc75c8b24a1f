/* Reading a regular file; writing an output file: a temporary renamed over a regular file, in place
 * for anything else (files.h says why). */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

bool rt_out_open(RtOut *o, const char *path)
{
    static unsigned long counter;
    *o = (RtOut){.fd = -1, .path = path};
    struct stat st, lst;
    /* a link to a regular file: the file is replaced, the link stays (as writing through it did) */
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
        realpath(path, o->real))
        o->path = path = o->real;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* no O_TRUNC, no O_CREAT: a node is written, never made or emptied */
        o->in_place = true;
        o->fd = open(path, O_WRONLY | O_CLOEXEC);
    } else {
        unsigned long k = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
        int n = snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld.%lu", path, (long)getpid(), k);
        if (n < 0 || (size_t)n >= sizeof o->tmp) {
            o->err = ENAMETOOLONG;
            return false;
        }
        o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    }
    if (o->fd < 0) {
        o->err = errno;
        return false;
    }
    return true;
}

bool rt_out_write(RtOut *o, const void *data, size_t n)
{
    const char *p = data;
    while (!o->err && n) {
        ssize_t w = write(o->fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            o->err = w < 0 ? errno : EIO;
            break;
        }
        p += w;
        n -= (size_t)w;
    }
    return !o->err;
}

int rt_out_close(RtOut *o)
{
    if (o->fd >= 0 && close(o->fd) != 0 && !o->err)
        o->err = errno;
    if (o->fd >= 0 && !o->in_place) {
        if (!o->err && rename(o->tmp, o->path) != 0)
            o->err = errno;
        if (o->err)
            unlink(o->tmp);
    }
    o->fd = -1;
    return o->err;
}

int rt_write_file(const char *path, const void *data, size_t n)
{
    RtOut o;
    if (!rt_out_open(&o, path))
        return o.err;
    rt_out_write(&o, data, n);
    return rt_out_close(&o);
}

/* The reader: the whole file, or with head its first max bytes. */
static char *read_regular(const Allocator *al, const char *path, size_t max, bool head, size_t *len, int *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    *err = 0;
    if (fd < 0 || fstat(fd, &st) != 0) {
        *err = errno;
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || ((uint64_t)st.st_size > max && !head)) {
        *err = S_ISREG(st.st_mode) ? EFBIG : EINVAL;
        close(fd);
        return NULL;
    }
    size_t size = (uint64_t)st.st_size > max ? max : (size_t)st.st_size, n = 0;
    char *buf = arena_alloc_raw(al, size + 1);
    if (!buf) {
        *err = ENOMEM;
        close(fd);
        return NULL;
    }
    while (n < size) {
        ssize_t r = read(fd, buf + n, size - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            *err = errno;
            arena_free_raw(al, buf, size + 1);
            close(fd);
            return NULL;
        }
        if (r == 0)
            break; /* the file shrank: what is there */
        n += (size_t)r;
    }
    close(fd);
    if (n < size) { /* the block's size is what the caller frees: n + 1 */
        char *p = al->fn(al->ud, buf, size + 1, n + 1);
        if (!p) {
            arena_free_raw(al, buf, size + 1);
            *err = ENOMEM;
            return NULL;
        }
        buf = p;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

char *rt_read_file_with(const Allocator *al, const char *path, size_t max, size_t *len, int *err)
{
    return read_regular(al, path, max, false, len, err);
}

char *rt_read_file_head(const Allocator *al, const char *path, size_t max, size_t *len, int *err)
{
    return read_regular(al, path, max, true, len, err);
}

char *rt_read_file(const char *path, size_t max, size_t *len, int *err)
{
    return rt_read_file_with(&arena_default_allocator, path, max, len, err);
}
