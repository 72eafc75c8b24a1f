/* Tensor maps for the bulk tensor copy engine (sm_90 TMA), built at each launch.
 *
 * A kernel whose dot operands are copied by TMA (compiler/lower/lower_tma.c) takes, after its
 * parameters, one 128-byte tensor map per tensor. The compiler describes each in the kernel's `tma`
 * text, one line per map:
 *
 *     tma PTR ESIZE BOX_INNER BOX_OUTER SWIZZLE DIM_INNER DIM_OUTER STRIDE
 *
 * PTR is the parameter holding the tensor's base address, ESIZE its element's bytes, the box and the
 * swizzle (32, 64 or 128 bytes) what one copy moves, and the dimensions and the row stride (in
 * elements) linear functions of the kernel's i32 arguments written `K+C*P+C*P...` (constant K, C
 * times parameter P). The runtime evaluates them on the launch's arguments and has the device encode
 * the map (cuTensorMapEncodeTiled). A dimension of 0 or less becomes 1: the kernel then copies from
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
    int64_t c[TMA_LIN_TERMS];
    int p[TMA_LIN_TERMS];
} RtTmaLin;

typedef struct RtTma RtTma;
struct RtTma {
    int ptr, esize, swizzle;
    uint32_t box[2];
    RtTmaLin dim[2], stride;
    bool have;           /* map holds the encoding of `last` */
    RtTensorMapDesc last;
    _Alignas(64) unsigned char map[128];
};

static bool parse_lin(const char *s, RtTmaLin *l, int nparams)
{
    char *end;
    memset(l, 0, sizeof *l);
    errno = 0;
    l->k = strtoll(s, &end, 10);
    while (!errno && (*end == '+' || *end == '-')) {
        if (l->n == TMA_LIN_TERMS)
            return false;
        const char *at = end;
        l->c[l->n] = strtoll(at, &end, 10);
        if (end == at || *end != '*')
            return false;
        at = end + 1;
        long p = strtol(at, &end, 10);
        if (end == at || p < 0 || p >= nparams)
            return false;
        l->p[l->n++] = (int)p;
    }
    return !errno && *end == 0;
}

static bool parse_line(const char *line, RtTma *t, const rk_kernel *k)
{
    char lin[3][200];
    int ptr, esize, bi, bo, sw;
    if (sscanf(line, "tma %d %d %d %d %d %199s %199s %199s", &ptr, &esize, &bi, &bo, &sw, lin[0], lin[1], lin[2]) != 8)
        return false;
    if (ptr < 0 || ptr >= k->nparams || k->params[ptr].kind != RK_PARAM_POINTER || (esize != 1 && esize != 2 && esize != 4) ||
        bi < 1 || bi > 256 || bo < 1 || bo > 256 || (sw != 0 && sw != 32 && sw != 64 && sw != 128))
        return false;
    memset(t, 0, sizeof *t);
    t->ptr = ptr;
    t->esize = esize;
    t->box[0] = (uint32_t)bi;
    t->box[1] = (uint32_t)bo;
    t->swizzle = sw;
    RtTmaLin *ls[3] = {&t->dim[0], &t->dim[1], &t->stride};
    for (int i = 0; i < 3; i++) {
        if (!parse_lin(lin[i], ls[i], k->nparams))
            return false;
        for (int j = 0; j < ls[i]->n; j++)
            if (k->params[ls[i]->p[j]].kind != RK_PARAM_SCALAR || k->params[ls[i]->p[j]].dtype != RK_I32)
                return false;
    }
    return true;
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
        char line[700];
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

static int64_t eval_lin(const rk_kernel *k, const RtTmaLin *l)
{
    int64_t v = l->k;
    for (int i = 0; i < l->n; i++) {
        int32_t x;
        memcpy(&x, k->kernarg + k->offsets[l->p[i]], 4);
        v += l->c[i] * x;
    }
    return v;
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
        RtTensorMapDesc d;
        memset(&d, 0, sizeof d);
        memcpy(&d.base, k->kernarg + k->offsets[t->ptr], 8);
        for (int j = 0; j < 2; j++) {
            int64_t v = eval_lin(k, &t->dim[j]);
            if (v > ((int64_t)1 << 32))
                return rt_fail(ctx, RK_ELAUNCH, "kernel %s: TMA tensor %d (argument '%s'): dimension %d is %lld, more than 2^32",
                               k->name, i, k->params[t->ptr].name, j, (long long)v);
            d.dim[j] = v > 0 ? (uint64_t)v : 1;
        }
        int64_t s = eval_lin(k, &t->stride) * t->esize;
        if (s <= 0 || s % 16 || s >= ((int64_t)1 << 40))
            return rt_fail(ctx, RK_ELAUNCH,
                           "kernel %s: TMA tensor %d (argument '%s'): the row stride is %lld bytes; TMA needs a "
                           "positive multiple of 16 below 2^40",
                           k->name, i, k->params[t->ptr].name, (long long)s);
        d.stride_bytes = (uint64_t)s;
        d.box[0] = t->box[0];
        d.box[1] = t->box[1];
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
