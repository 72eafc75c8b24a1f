/* Prebuilt programs: a code object and its kernels' descriptions in two files (prebuilt.h). */
#include "tests/device/prebuilt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/api/api_internal.h"

enum { PB_MAX_KERNELS = 64, PB_MAX_PARAMS = 64, PB_MAX_TMA = 4096, PB_MAX_GRID = 16384 };

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* A kernel's tensor maps, one `tma` line each: the spec's own lines, which start with "tma " already.
 * False when a line does not, since the reader could not tell it from another key. */
static bool save_tma(FILE *f, const char *spec)
{
    while (spec && *spec) {
        size_t len = strcspn(spec, "\n");
        if (len < 4 || strncmp(spec, "tma ", 4) != 0)
            return false;
        fprintf(f, "%.*s\n", (int)len, spec);
        spec += len + (spec[len] == '\n');
    }
    return true;
}

/* A kernel's @grid function, one `grid` line per line of its TIR text; its work formulas
 * (compiler/report/work.h) likewise, as `work` lines. */
static void save_lines(FILE *f, const char *key, const char *text)
{
    while (text && *text) {
        size_t len = strcspn(text, "\n");
        fprintf(f, "%s %.*s\n", key, (int)len, text);
        text += len + (text[len] == '\n');
    }
}

int pb_save(rk_program *prog, const char *config, const char *base, char *err, size_t errlen)
{
    const void *bin;
    size_t size;
    if (rk_program_binary(prog, &bin, &size) != RK_OK)
        return fail(err, errlen, "no code object");
    /* The meta file names kernels by their entry symbol, which for a plain compile is the kernel's name:
     * check it where the code object is PTX text. */
    const char *target = rk_program_target(prog);
    if (strncmp(target, "sm_", 3) == 0) {
        char *text = malloc(size + 1);
        if (!text)
            return fail(err, errlen, "out of memory");
        memcpy(text, bin, size);
        text[size] = 0;
        for (int i = 0; i < rk_program_kernel_count(prog); i++) {
            rk_kernel *k;
            rk_kernel_info ki;
            char entry[160];
            rk_program_kernel_at(prog, i, &k);
            rk_kernel_get_info(k, &ki);
            snprintf(entry, sizeof entry, ".entry %s(", ki.name);
            if (!strstr(text, entry)) {
                free(text);
                return fail(err, errlen, "the PTX has no '%s': its entry is not named after the kernel", entry);
            }
        }
        free(text);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s.ptx", base);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bin, 1, size, f) != size || fclose(f) != 0)
        return fail(err, errlen, "cannot write %s: %s", path, strerror(errno));
    snprintf(path, sizeof path, "%s.meta", base);
    if (!(f = fopen(path, "w")))
        return fail(err, errlen, "cannot write %s: %s", path, strerror(errno));
    fprintf(f, "rk-prebuilt 2\ntarget %s\n", target);
    for (int i = 0; i < rk_program_kernel_count(prog); i++) {
        rk_kernel *k;
        rk_kernel_info ki;
        rk_program_kernel_at(prog, i, &k);
        rk_kernel_get_info(k, &ki);
        fprintf(f, "kernel %s\nconfig %s\nnum_warps %d\nblock %d\nlds_bytes %d\n", ki.name, config ? config : "",
                ki.num_warps, ki.block_size, ki.lds_bytes);
        for (int j = 0; j < ki.num_params; j++) {
            rk_param p;
            rk_kernel_get_param(k, j, &p);
            fprintf(f, "param %s %s %s\n", p.name, p.kind == RK_PARAM_POINTER ? "pointer" : "scalar",
                    rk_dtype_name(p.dtype));
        }
        save_lines(f, "grid", k->grid_text);
        save_lines(f, "work", k->work);
        if (!save_tma(f, k->tma_spec)) {
            fclose(f);
            return fail(err, errlen, "kernel %s: a tensor map line that does not start with 'tma '", ki.name);
        }
        fprintf(f, "end\n");
    }
    if (fclose(f) != 0)
        return fail(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *nb = realloc(buf, (cap *= 2) + 1);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (buf) {
        buf[n] = 0;
        *len = n;
    }
    return buf;
}

static bool dtype_of(const char *s, rk_dtype *t)
{
    for (int i = RK_BOOL; i <= RK_F64; i++)
        if (strcmp(rk_dtype_name((rk_dtype)i), s) == 0) {
            *t = (rk_dtype)i;
            return true;
        }
    return false;
}

typedef struct PbKernel {
    char name[128], config[512];
    char tma[PB_MAX_TMA]; /* the tensor maps' spec, its lines joined again, or "" */
    char grid[PB_MAX_GRID]; /* the @grid function's TIR text, or "" */
    char work[PB_MAX_GRID]; /* the work formulas, or "" (files from before them) */
    int num_warps, block, lds_bytes, nparams;
    char pnames[PB_MAX_PARAMS][64];
    rk_param params[PB_MAX_PARAMS];
} PbKernel;

/* Parses the meta text into ks; the number of kernels, or -1 with why. */
static int parse_meta(char *text, char *target, size_t tlen, PbKernel *ks, char *err, size_t errlen)
{
    int nk = 0, lineno = 0;
    PbKernel *k = NULL;
    bool header = false;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        lineno++;
        char *val = strchr(line, ' ');
        if (val)
            *val++ = 0;
        else
            val = line + strlen(line);
        if (!header) {
            if (strcmp(line, "rk-prebuilt") != 0 || (strcmp(val, "1") != 0 && strcmp(val, "2") != 0))
                return fail(err, errlen, "not an rk-prebuilt 1 or 2 file");
            header = true;
        } else if (strcmp(line, "target") == 0) {
            snprintf(target, tlen, "%s", val);
        } else if (strcmp(line, "kernel") == 0) {
            if (nk == PB_MAX_KERNELS)
                return fail(err, errlen, "line %d: more than %d kernels", lineno, PB_MAX_KERNELS);
            k = &ks[nk++];
            memset(k, 0, sizeof *k);
            snprintf(k->name, sizeof k->name, "%s", val);
        } else if (!k) {
            return fail(err, errlen, "line %d: '%s' before any kernel", lineno, line);
        } else if (strcmp(line, "config") == 0) {
            snprintf(k->config, sizeof k->config, "%s", val);
        } else if (strcmp(line, "num_warps") == 0 || strcmp(line, "block") == 0 || strcmp(line, "lds_bytes") == 0) {
            char *end;
            long v = strtol(val, &end, 10);
            if (*val == 0 || *end || v < 0 || v > (1L << 30))
                return fail(err, errlen, "line %d: bad %s '%s'", lineno, line, val);
            *(line[0] == 'n' ? &k->num_warps : line[0] == 'b' ? &k->block : &k->lds_bytes) = (int)v;
        } else if (strcmp(line, "param") == 0) {
            char name[64], kind[16], dtype[16];
            rk_param *p = &k->params[k->nparams];
            if (k->nparams == PB_MAX_PARAMS || sscanf(val, "%63s %15s %15s", name, kind, dtype) != 3 ||
                !dtype_of(dtype, &p->dtype) || (strcmp(kind, "pointer") != 0 && strcmp(kind, "scalar") != 0))
                return fail(err, errlen, "line %d: bad param '%s'", lineno, val);
            snprintf(k->pnames[k->nparams], sizeof k->pnames[0], "%s", name);
            p->name = k->pnames[k->nparams];
            p->kind = strcmp(kind, "pointer") == 0 ? RK_PARAM_POINTER : RK_PARAM_SCALAR;
            k->nparams++;
        } else if (strcmp(line, "grid") == 0 || strcmp(line, "tma") == 0 || strcmp(line, "work") == 0) {
            /* a line of a multi-line text: the @grid function's TIR, the tensor maps (lines "tma ..."), or
             * the work formulas */
            bool grid = line[0] == 'g', work = line[0] == 'w';
            char *buf = grid ? k->grid : work ? k->work : k->tma;
            size_t cap = grid ? sizeof k->grid : work ? sizeof k->work : sizeof k->tma, used = strlen(buf);
            int n = snprintf(buf + used, cap - used, "%s%s\n", grid || work ? "" : "tma ", val);
            if (n < 0 || (size_t)n >= cap - used)
                return fail(err, errlen, "line %d: the %s of %s take more than %zu bytes", lineno,
                            grid ? "@grid function's lines" : work ? "work formulas" : "tensor maps", k->name, cap);
        } else if (strcmp(line, "end") == 0) {
            if (k->block <= 0 || k->num_warps <= 0)
                return fail(err, errlen, "line %d: kernel %s without block or num_warps", lineno, k->name);
            k = NULL;
        } else {
            return fail(err, errlen, "line %d: unknown key '%s'", lineno, line);
        }
    }
    if (!header || !target[0] || nk == 0 || k)
        return fail(err, errlen, "%s", !header ? "empty" : !target[0] ? "no target" : nk == 0 ? "no kernel"
                                                                                              : "no 'end' after the last kernel");
    return nk;
}

rk_status pb_load(rk_ctx *ctx, const char *base, rk_program **prog, char *err, size_t errlen)
{
    *prog = NULL;
    char path[4096], target[64] = "";
    size_t mlen = 0, blen = 0;
    snprintf(path, sizeof path, "%s.meta", base);
    char *meta = read_all(path, &mlen);
    if (!meta) {
        fail(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return RK_EIO;
    }
    PbKernel *ks = calloc(PB_MAX_KERNELS, sizeof *ks);
    int nk = ks ? parse_meta(meta, target, sizeof target, ks, err, errlen) : fail(err, errlen, "out of memory");
    free(meta);
    if (nk < 0) {
        char why[512];
        snprintf(why, sizeof why, "%s", err);
        fail(err, errlen, "%s: %s", path, why);
        free(ks);
        return RK_EINVAL;
    }
    snprintf(path, sizeof path, "%s.ptx", base);
    char *bin = read_all(path, &blen);
    if (!bin) {
        fail(err, errlen, "cannot read %s: %s", path, strerror(errno));
        free(ks);
        return RK_EIO;
    }
    RtKernelDesc descs[PB_MAX_KERNELS];
    for (int i = 0; i < nk; i++)
        descs[i] = (RtKernelDesc){.name = ks[i].name,
                                  .symbol = ks[i].name,
                                  .params = ks[i].params,
                                  .nparams = ks[i].nparams,
                                  .num_warps = ks[i].num_warps,
                                  .block = ks[i].block,
                                  .lds_bytes = ks[i].lds_bytes,
                                  .config = ks[i].config,
                                  .tma = ks[i].tma[0] ? ks[i].tma : NULL,
                                  .grid_tir = ks[i].grid[0] ? ks[i].grid : NULL,
                                  .work = ks[i].work[0] ? ks[i].work : NULL};
    rk_status st = rt_program_new(ctx, target, bin, blen, descs, nk, prog);
    if (st)
        fail(err, errlen, "%s: %s", base, rk_error(ctx));
    free(bin);
    free(ks);
    return st;
}
