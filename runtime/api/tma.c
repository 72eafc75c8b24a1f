/* Tensor maps for the bulk tensor copy engine (sm_90 TMA), built at each launch.
 *
 * A kernel whose dot operands are copied by TMA (compiler/target/nvptx/lower_tma.c) takes, after its
 * parameters, one 128-byte tensor map per tensor. The compiler describes each in the kernel's `tma`
 * text, one line per map:
 *
 *     tma PTR ESIZE BOX_INNER BOX_OUTER SWIZZLE DIM_INNER DIM_OUTER STRIDE [DIM_BATCH STRIDE_BATCH]
 *
 * PTR is the parameter holding the tensor's base address, ESIZE its element's bytes, the box and the
 * swizzle (32, 64 or 128 bytes) what one copy moves, and the dimensions and strides (in elements)
 * functions of the kernel's i32 arguments written `K+C*P+C*P*Q...` (constant K, C times parameter P,
 * or times parameters P and Q). With the last two fields the map has rank 3: a batch of matrices
 * STRIDE_BATCH elements apart (one matrix per copy). The outermost dimension may be `*`, open: as
 * many rows (or matrices) as fit in the rest of the pointer's allocation (rk_malloc's), rounded up.
 * The runtime evaluates them on the launch's arguments and has the device encode the map
 * (cuTensorMapEncodeTiled). A dimension of 0 or less becomes 1: the kernel then copies from
 * coordinate 1, out of bounds, which TMA fills with zeros, as the mask says. Maps are kept, and
 * encoded again only when their inputs change (a loop of launches encodes once). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/api/api_internal.h"

enum { TMA_LIN_TERMS = 6 };

typedef struct RtTmaLin {
    int64_t k;
    int n;
    bool open; /* "*": from the allocation */
    int64_t c[TMA_LIN_TERMS];
    int p[TMA_LIN_TERMS], q[TMA_LIN_TERMS]; /* q -1: degree 1 */
} RtTmaLin;

typedef struct RtTma RtTma;
struct RtTma {
    int ptr, esize, swizzle, rank;
    uint32_t box[2];
    RtTmaLin dim[3], stride[2];
    bool have;           /* map holds the encoding of `last` */
    RtTensorMapDesc last;
    _Alignas(64) unsigned char map[128];
};

static bool param_at(const char *at, char **end, int nparams, int *p)
{
    long v = strtol(at, end, 10);
    if (*end == at || v < 0 || v >= nparams)
        return false;
    *p = (int)v;
    return true;
}

static bool parse_lin(const char *s, RtTmaLin *l, int nparams)
{
    char *end;
    memset(l, 0, sizeof *l);
    if (strcmp(s, "*") == 0) {
        l->open = true;
        return true;
    }
    errno = 0;
    l->k = strtoll(s, &end, 10);
    while (!errno && (*end == '+' || *end == '-')) {
        if (l->n == TMA_LIN_TERMS)
            return false;
        const char *at = end;
        l->c[l->n] = strtoll(at, &end, 10);
        if (end == at || *end != '*' || !param_at(end + 1, &end, nparams, &l->p[l->n]))
            return false;
        l->q[l->n] = -1;
        if (*end == '*' && !param_at(end + 1, &end, nparams, &l->q[l->n]))
            return false;
        l->n++;
    }
    return !errno && *end == 0;
}

static bool i32_param(const rk_kernel *k, int p)
{
    return p < 0 || (k->params[p].kind == RK_PARAM_SCALAR && k->params[p].dtype == RK_I32);
}

static bool parse_line(const char *line, RtTma *t, const rk_kernel *k)
{
    char lin[5][200];
    int ptr, esize, bi, bo, sw;
    int got = sscanf(line, "tma %d %d %d %d %d %199s %199s %199s %199s %199s", &ptr, &esize, &bi, &bo, &sw, lin[0],
                     lin[1], lin[2], lin[3], lin[4]);
    if ((got != 8 && got != 10) || ptr < 0 || ptr >= k->nparams || k->params[ptr].kind != RK_PARAM_POINTER ||
        (esize != 1 && esize != 2 && esize != 4) || bi < 1 || bi > 256 || bo < 1 || bo > 256 ||
        (sw != 0 && sw != 32 && sw != 64 && sw != 128))
        return false;
    memset(t, 0, sizeof *t);
    t->ptr = ptr;
    t->esize = esize;
    t->box[0] = (uint32_t)bi;
    t->box[1] = (uint32_t)bo;
    t->swizzle = sw;
    t->rank = got == 10 ? 3 : 2;
    RtTmaLin *ls[5] = {&t->dim[0], &t->dim[1], &t->stride[0], &t->dim[2], &t->stride[1]};
    for (int i = 0; i < got - 5; i++) {
        if (!parse_lin(lin[i], ls[i], k->nparams))
            return false;
        for (int j = 0; j < ls[i]->n; j++)
            if (!i32_param(k, ls[i]->p[j]) || !i32_param(k, ls[i]->q[j]))
                return false;
    }
    /* only the outermost dimension may be open */
    for (int j = 0; j < 3; j++)
        if (t->dim[j].open && j != t->rank - 1)
            return false;
    return !t->stride[0].open && !t->stride[1].open;
}

bool rt_tma_parse(rk_ctx *ctx, Arena *a, rk_kernel *k)
{
    int n = 0;
    for (const char *s = k->tma_spec; *s; s++)
        n += *s == '\n';
    k->tma = arena_alloc(a, sizeof(RtTma) * (size_t)(n + 1) + 64);
    k->tma = (RtTma *)(((uintptr_t)k->tma + 63) / 64 * 64);
    k->ntma = 0;
    for (const char *s = k->tma_spec; *s;) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        char line[1200];
        if (len >= sizeof line || (memcpy(line, s, len), line[len] = 0, !parse_line(line, &k->tma[k->ntma], k))) {
            rt_fail(ctx, RK_EINTERNAL, "internal error: kernel %s: bad tensor map description '%.*s'", k->name,
                    (int)(len < 200 ? len : 200), s);
            return false;
        }
        k->ntma++;
        s += len + (e != NULL);
    }
    return true;
}

static int32_t arg_i32(const rk_kernel *k, int p)
{
    int32_t x;
    memcpy(&x, k->kernarg + k->offsets[p], 4);
    return x;
}

/* The value of l on the launch's arguments; false if it leaves int64. */
static bool eval_lin(const rk_kernel *k, const RtTmaLin *l, int64_t *out)
{
    int64_t v = l->k;
    for (int i = 0; i < l->n; i++) {
        int64_t x;
        if (__builtin_mul_overflow(l->c[i], (int64_t)arg_i32(k, l->p[i]), &x) ||
            (l->q[i] >= 0 && __builtin_mul_overflow(x, (int64_t)arg_i32(k, l->q[i]), &x)) ||
            __builtin_add_overflow(v, x, &v))
            return false;
    }
    *out = v;
    return true;
}

rk_status rt_tma_build(rk_kernel *k)
{
    rk_ctx *ctx = k->prog->ctx;
    if (!k->ntma)
        return RK_OK;
    if (!ctx->dev->ops->tensor_map)
        return rt_fail(ctx, RK_ELAUNCH, "kernel %s takes TMA tensor maps (sm_90 code), which the %s device cannot make",
                       k->name, ctx->dev->ops->kind);
    for (int i = 0; i < k->ntma; i++) {
        RtTma *t = &k->tma[i];
        const char *arg = k->params[t->ptr].name;
        RtTensorMapDesc d;
        memset(&d, 0, sizeof d);
        memcpy(&d.base, k->kernarg + k->offsets[t->ptr], 8);
        d.rank = t->rank;
        for (int j = 0; j + 1 < t->rank; j++) {
            int64_t s;
            if (!eval_lin(k, &t->stride[j], &s) || __builtin_mul_overflow(s, (int64_t)t->esize, &s))
                s = INT64_MAX;
            if (s <= 0 || s % 16 || s >= ((int64_t)1 << 40))
                return rt_fail(ctx, RK_ELAUNCH,
                               "kernel %s: TMA tensor %d (argument '%s'): the %s stride is %lld bytes; TMA needs a "
                               "positive multiple of 16 below 2^40",
                               k->name, i, arg, j ? "batch" : "row", (long long)s);
            d.stride_bytes[j] = (uint64_t)s;
        }
        for (int j = 0; j < t->rank; j++) {
            int64_t v;
            if (t->dim[j].open) { /* the rest of the allocation, in rows (or matrices) rounded up */
                const RtAlloc *al = d.base ? rt_alloc_find(ctx, (const void *)(uintptr_t)d.base, 0) : NULL;
                uint64_t rest = al ? al->base + al->bytes - d.base : 0, step = d.stride_bytes[j - 1];
                v = (int64_t)((rest + step - 1) / step);
            } else if (!eval_lin(k, &t->dim[j], &v)) {
                v = INT64_MAX;
            }
            if (v > ((int64_t)1 << 32))
                return rt_fail(ctx, RK_ELAUNCH, "kernel %s: TMA tensor %d (argument '%s'): dimension %d is %lld, more than 2^32",
                               k->name, i, arg, j, (long long)v);
            d.dim[j] = v > 0 ? (uint64_t)v : 1;
        }
        d.box[0] = t->box[0];
        d.box[1] = t->box[1];
        d.box[2] = 1;
        d.esize = t->esize;
        d.swizzle = t->swizzle;
        if (!t->have || memcmp(&d, &t->last, sizeof d) != 0) {
            rk_status st = ctx->dev->ops->tensor_map(ctx->dev, t->map, &d);
            if (st) {
                t->have = false;
                return rt_dev_error(ctx, st);
            }
            t->last = d;
            t->have = true;
        }
        k->argptrs[k->nparams + i] = t->map;
    }
    return RK_OK;
}
