/* Files the library and the tools read and write (issue 23).
 *
 * Reading: rt_read_file takes a regular file only (never a device, a FIFO or a terminal, which would
 * read forever or block), opened without blocking, read to its size and no further, up to a limit.
 *
 * Writing an output file without harming what is at its path:
 * A regular file (or a path that does not exist yet) is written whole to a temporary file beside it
 * and renamed over it, so a failed write leaves the old file (or nothing), never a truncated one.
 * A symlink to a regular file replaces the file it names, and stays. Anything else at the path — a
 * device node such as /dev/null or /dev/full, a FIFO, a terminal — is
 * opened and written in place: renaming over it would replace the node with a regular file (as root,
 * the whole machine's /dev/null). Every write and the close are checked; a failure removes the
 * temporary file and returns the errno. */
#ifndef RK_FILES_H
#define RK_FILES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "arena.h"

typedef struct RtOut {
    int fd;
    int err;       /* the first failure's errno, 0 while all is well */
    bool in_place; /* the path is not a regular file: written where it is */
    const char *path;
    char tmp[PATH_MAX + 64];
    char real[PATH_MAX]; /* a symlink's target, when path is a link to a regular file */
} RtOut;

/* Opens path for writing; false (and o->err) when it cannot. */
bool rt_out_open(RtOut *o, const char *path);
/* Appends n bytes; false once anything has failed. */
bool rt_out_write(RtOut *o, const void *data, size_t n);
/* Closes and, for a regular file, renames the temporary over the path. Returns 0 or the errno of
 * the first failure (nothing is left behind then). */
int rt_out_close(RtOut *o);
/* rt_out_open, one write, rt_out_close: 0 or an errno. */
int rt_write_file(const char *path, const void *data, size_t n);

/* The bytes of the regular file at path, NUL-terminated (malloc'd: free them), *len their number; NULL
 * with *err an errno when it cannot be read, EINVAL when it is not a regular file, EFBIG when it is
 * larger than max bytes, ENOMEM. */
char *rt_read_file(const char *path, size_t max, size_t *len, int *err);
/* The same with the memory from an allocator hook (the library's own reads: all of its memory comes
 * through the context's hook); free it with arena_free_raw(al, p, *len + 1). */
char *rt_read_file_with(const Allocator *al, const char *path, size_t max, size_t *len, int *err);
/* The first max bytes of the regular file at path (all of it when smaller), as rt_read_file_with but
 * never refused for its size: a tool's messages (compiler/codegen/codegen_link.c). */
char *rt_read_file_head(const Allocator *al, const char *path, size_t max, size_t *len, int *err);

#endif
