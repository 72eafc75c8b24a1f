/* Serialised programs for the caches (record.h): the byte writer and reader, the record format, and
 * the check that a record's imports are unchanged. */
#include "runtime/api/api_internal.h"
#include "runtime/cache/record.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The magic names the record format: a record of an older one (RRC1 had no tensor maps, RRC3 no work formulas) fails to
 * read and is rebuilt as any corrupt entry is. */
enum { REC_MAGIC = 0x34435252 /* "RRC4" */, NULL_STR = 0xFFFFFFFFu };

/* ---- writing ---- */

void blob_init(Blob *b, Allocator al)
{
    strbuf_init_with(b, al);
}

void blob_free(Blob *b)
{
    strbuf_free(b);
}

static void put(Blob *b, const void *data, size_t n)
{
    strbuf_put(b, data, n);
}

void blob_u32(Blob *b, uint32_t v)
{
    unsigned char x[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
    put(b, x, 4);
}

void blob_i32(Blob *b, int32_t v)
{
    blob_u32(b, (uint32_t)v);
}

void blob_u64(Blob *b, uint64_t v)
{
    blob_u32(b, (uint32_t)v);
    blob_u32(b, (uint32_t)(v >> 32));
}

void blob_f64(Blob *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    blob_u64(b, u);
}

void blob_bytes(Blob *b, const void *data, size_t n)
{
    blob_u64(b, n);
    put(b, data, n);
}

void blob_str(Blob *b, const char *s)
{
    if (!s) {
        blob_u32(b, NULL_STR);
        return;
    }
    size_t n = strlen(s);
    if (n >= NULL_STR) {
        b->oom = true; /* not representable; never happens for real strings */
        return;
    }
    blob_u32(b, (uint32_t)n);
    put(b, s, n);
}

/* ---- reading ---- */

static const unsigned char *take(BlobReader *r, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = true;
        return NULL;
    }
    const unsigned char *p = r->p;
    r->p += n;
    return p;
}

uint32_t blob_read_u32(BlobReader *r)
{
    const unsigned char *p = take(r, 4);
    return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24 : 0;
}

int32_t blob_read_i32(BlobReader *r)
{
    return (int32_t)blob_read_u32(r);
}

uint64_t blob_read_u64(BlobReader *r)
{
    uint64_t lo = blob_read_u32(r);
    return lo | (uint64_t)blob_read_u32(r) << 32;
}

double blob_read_f64(BlobReader *r)
{
    uint64_t u = blob_read_u64(r);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

const void *blob_read_bytes(BlobReader *r, size_t *n)
{
    uint64_t len = blob_read_u64(r);
    *n = 0;
    if (r->bad || len > (uint64_t)(r->end - r->p)) {
        r->bad = true;
        return NULL;
    }
    *n = (size_t)len;
    return take(r, (size_t)len);
}

const char *blob_read_str(BlobReader *r)
{
    uint32_t n = blob_read_u32(r);
    if (r->bad || n == NULL_STR)
        return NULL;
    const unsigned char *p = take(r, n);
    return p ? arena_strndup(r->a, (const char *)p, n) : NULL;
}

/* A count that the remaining bytes can hold (each item takes at least `min` bytes). */
static int rd_count(BlobReader *r, size_t min)
{
    uint32_t n = blob_read_u32(r);
    if (r->bad || n > (size_t)(r->end - r->p) / min || n > 1u << 24) {
        r->bad = true;
        return 0;
    }
    return (int)n;
}

/* ---- records ---- */

void record_write(Blob *b, const ProgRecord *r)
{
    blob_u32(b, REC_MAGIC);
    blob_u32(b, (uint32_t)r->ndeps);
    for (int i = 0; i < r->ndeps; i++) {
        blob_str(b, r->deps[i].path);
        blob_u64(b, r->deps[i].size);
        put(b, r->deps[i].hash.b, 32);
    }
    blob_str(b, r->target);
    blob_bytes(b, r->binary, r->size);
    blob_u32(b, (uint32_t)r->nkernels);
    for (int i = 0; i < r->nkernels; i++) {
        const RtKernelDesc *k = &r->kernels[i];
        blob_str(b, k->name);
        blob_str(b, k->symbol);
        blob_str(b, k->config);
        blob_u32(b, (uint32_t)k->nparams);
        for (int j = 0; j < k->nparams; j++) {
            blob_str(b, k->params[j].name);
            blob_u32(b, (uint32_t)k->params[j].kind);
            blob_u32(b, (uint32_t)k->params[j].dtype);
        }
        blob_i32(b, k->num_warps);
        blob_i32(b, k->block);
        blob_i32(b, k->lds_bytes);
        blob_str(b, k->grid_tir);
        blob_str(b, k->tma);
        blob_str(b, k->facts);
        blob_str(b, k->nospec);
        blob_str(b, k->work);
    }
    blob_u32(b, (uint32_t)r->ndiags);
    for (int i = 0; i < r->ndiags; i++) {
        const Diag *d = &r->diags[i];
        blob_u32(b, (uint32_t)d->sev);
        blob_str(b, d->file);
        blob_i32(b, d->line);
        blob_i32(b, d->col);
        blob_str(b, d->msg);
        blob_bytes(b, d->srcline, d->srcline ? (size_t)d->srclen : 0);
        blob_u32(b, d->srcline != NULL);
        blob_i32(b, d->caret);
    }
    blob_f64(b, r->best_ms);
}

bool record_read(BlobReader *rd, ProgRecord *r)
{
    memset(r, 0, sizeof *r);
    Arena *a = rd->a;
    if (blob_read_u32(rd) != REC_MAGIC)
        return false;
    r->ndeps = rd_count(rd, 44);
    r->deps = ARENA_ARRAY(a, CacheDep, r->ndeps + 1);
    for (int i = 0; i < r->ndeps && !rd->bad; i++) {
        r->deps[i].path = blob_read_str(rd);
        r->deps[i].size = blob_read_u64(rd);
        const unsigned char *h = take(rd, 32);
        if (h)
            memcpy(r->deps[i].hash.b, h, 32);
        if (!r->deps[i].path)
            rd->bad = true;
    }
    r->target = blob_read_str(rd);
    r->binary = blob_read_bytes(rd, &r->size);
    r->nkernels = rd_count(rd, 40);
    r->kernels = ARENA_ARRAY(a, RtKernelDesc, r->nkernels + 1);
    for (int i = 0; i < r->nkernels && !rd->bad; i++) {
        RtKernelDesc *k = &r->kernels[i];
        k->name = blob_read_str(rd);
        k->symbol = blob_read_str(rd);
        k->config = blob_read_str(rd);
        k->nparams = rd_count(rd, 12);
        rk_param *ps = ARENA_ARRAY(a, rk_param, k->nparams + 1);
        for (int j = 0; j < k->nparams && !rd->bad; j++) {
            ps[j].name = blob_read_str(rd);
            uint32_t kind = blob_read_u32(rd), dt = blob_read_u32(rd);
            if (!ps[j].name || kind > RK_PARAM_POINTER || dt > RK_F64)
                rd->bad = true;
            ps[j].kind = (rk_param_kind)kind;
            ps[j].dtype = (rk_dtype)dt;
        }
        k->params = ps;
        k->num_warps = blob_read_i32(rd);
        k->block = blob_read_i32(rd);
        k->lds_bytes = blob_read_i32(rd);
        k->grid_tir = blob_read_str(rd);
        k->tma = blob_read_str(rd);
        k->facts = blob_read_str(rd);
        k->nospec = blob_read_str(rd);
        k->work = blob_read_str(rd);
        if (!k->name || !k->symbol)
            rd->bad = true;
    }
    r->ndiags = rd_count(rd, 28);
    r->diags = ARENA_ARRAY(a, Diag, r->ndiags + 1);
    for (int i = 0; i < r->ndiags && !rd->bad; i++) {
        Diag *d = &r->diags[i];
        uint32_t sev = blob_read_u32(rd);
        d->sev = sev <= DIAG_NOTE ? (DiagSeverity)sev : DIAG_NOTE;
        d->file = blob_read_str(rd);
        d->line = blob_read_i32(rd);
        d->col = blob_read_i32(rd);
        d->msg = blob_read_str(rd);
        size_t n;
        const void *line = blob_read_bytes(rd, &n);
        bool has_line = blob_read_u32(rd) != 0;
        d->srcline = has_line && line ? arena_strndup(a, line, n) : NULL;
        d->srclen = (int)n;
        d->caret = blob_read_i32(rd);
        if (!d->msg)
            rd->bad = true;
    }
    r->best_ms = blob_read_f64(rd);
    return !rd->bad && r->target && rd->p == rd->end;
}

/* ---- dependencies ---- */

/* A dependency from a file's current contents; false when it cannot be read. */
static bool dep_hash_file(const char *path, uint64_t *size, HashKey *hash)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO never blocks the check */
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    Sha256 s;
    hash_sha256_init(&s);
    unsigned char buf[16384];
    uint64_t total = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0) {
            close(fd);
            return false;
        }
        if (n == 0)
            break;
        hash_sha256_update(&s, buf, (size_t)n);
        total += (uint64_t)n;
    }
    close(fd);
    *size = total;
    *hash = hash_key_final(&s);
    return true;
}

bool record_deps_current(const CacheDep *deps, int n)
{
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (stat(deps[i].path, &st) != 0 || (uint64_t)st.st_size != deps[i].size)
            return false;
        uint64_t size;
        HashKey h;
        if (!dep_hash_file(deps[i].path, &size, &h) || size != deps[i].size || memcmp(h.b, deps[i].hash.b, 32) != 0)
            return false;
    }
    return true;
}
