/* Source files and locations.
 *
 * A location is a (file, byte offset) pair; line and column are computed only when a diagnostic is
 * produced. Columns count UTF-8 code points from 1, so a caret lines up under the character. */
#ifndef RK_SOURCE_H
#define RK_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"

typedef struct Loc {
    uint32_t file; /* index in SrcMgr.files; 0 = no location */
    uint32_t off;
} Loc;

typedef struct SrcFile {
    uint32_t id;
    const char *name;
    const char *text; /* NUL-terminated copy */
    uint32_t len;
    uint32_t *line_starts; /* computed on first use, in arena */
    Arena *arena;
    int nlines;
} SrcFile;

typedef struct SrcMgr {
    Arena *arena;
    SrcFile **files; /* files[0] is a placeholder for "no file" */
    int nfiles, cap;
} SrcMgr;

void src_init(SrcMgr *m, Arena *a);
/* Copies name and text. Returns NULL when the text is over 4 GiB. */
SrcFile *src_add(SrcMgr *m, const char *name, const char *text, size_t len);
SrcFile *src_file(const SrcMgr *m, uint32_t id);
/* 1-based line and code-point column of an offset. */
void src_linecol(SrcFile *f, uint32_t off, int *line, int *col);
/* The text of a 1-based line, without its newline. */
const char *src_line(SrcFile *f, int line, size_t *len);

static inline Loc loc_make(uint32_t file, uint32_t off)
{
    Loc l = {file, off};
    return l;
}

#endif
