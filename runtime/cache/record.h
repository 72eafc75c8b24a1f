/* Serialised programs: what the compile and autotune caches store about a compile.
 *
 * A record holds the code object and everything rt_program_new needs to rebuild the program without
 * the compiler (each kernel's name, symbol, config, parameters, warps, block, LDS and @grid as TIR
 * text), the diagnostics of the compile (warnings are replayed on a hit), and the imports the source
 * read, each with its size and SHA-256: the cache key covers the main source and the options, and an
 * entry whose imports have changed since is stale (record_deps_current), as ccache's direct mode does.
 *
 * The encoding is little-endian and length-prefixed (Blob writes, BlobReader reads with bounds
 * checks: a record that does not parse is treated as a corrupt entry, never trusted). */
#ifndef RK_RECORD_H
#define RK_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/api/program_build.h"
#include "runtime/cache/hash.h"
#include "support/strbuf.h"

/* The bytes written so far (p, n), in room from the context's allocator hook; oom: an allocation
 * failed and the contents are incomplete. */
typedef StrBuf Blob;

void blob_init(Blob *b, Allocator al);
void blob_free(Blob *b);
void blob_u32(Blob *b, uint32_t v);
void blob_i32(Blob *b, int32_t v);
void blob_u64(Blob *b, uint64_t v);
void blob_f64(Blob *b, double v);
void blob_bytes(Blob *b, const void *data, size_t n); /* length-prefixed */
void blob_str(Blob *b, const char *s);                /* NULL is distinct from "" */

typedef struct BlobReader {
    const unsigned char *p, *end;
    Arena *a;  /* strings are copied here (with its recovery point set) */
    bool bad;  /* read past the end or an impossible length */
} BlobReader;

uint32_t blob_read_u32(BlobReader *r);
int32_t blob_read_i32(BlobReader *r);
uint64_t blob_read_u64(BlobReader *r);
double blob_read_f64(BlobReader *r);
const void *blob_read_bytes(BlobReader *r, size_t *n); /* points into the buffer */
const char *blob_read_str(BlobReader *r);              /* a NUL-terminated copy in r->a, or NULL */

typedef struct CacheDep {
    const char *path;
    uint64_t size;
    HashKey hash;
} CacheDep;

typedef struct ProgRecord {
    CacheDep *deps;
    int ndeps;
    const char *target;
    const void *binary;
    size_t size;
    RtKernelDesc *kernels;
    int nkernels;
    Diag *diags;
    int ndiags;
    double best_ms; /* autotune records: the winner's time */
} ProgRecord;

void record_write(Blob *b, const ProgRecord *r);
/* False when the bytes are not a record. */
bool record_read(BlobReader *rd, ProgRecord *r);

/* Whether every dependency still has the recorded size and contents. */
bool record_deps_current(const CacheDep *deps, int n);

#endif
