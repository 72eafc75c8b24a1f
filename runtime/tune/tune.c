/* Timing autotune candidates on the device, the key text, and the context's tuning memory (tune.h). */
#include "runtime/api/api_internal.h"
#include "runtime/tune/tune.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/profile/profile.h"

enum { MAX_RUNS = 1000, FLUSH_BYTES = 256 << 20 };

/* ---- reset and flush ---- */

rk_status tune_reset(rk_ctx *ctx, const rk_arg *args, int nargs, const int *reset, int nreset)
{
    for (int i = 0; i < nreset; i++) {
        if (reset[i] < 0 || reset[i] >= nargs || args[reset[i]].kind != RK_PARAM_POINTER || !args[reset[i]].v.ptr)
            continue;
        void *p = args[reset[i]].v.ptr;
        const RtAlloc *a = rt_alloc_find(ctx, p, 0);
        if (!a)
            continue; /* rk_launch reports it */
        rk_status st = rk_memset(ctx, p, 0, a->base + a->bytes - (uintptr_t)p);
        if (st)
            return st;
    }
    return RK_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One candidate: warm-up, then timed runs; *ms is the median. */
static rk_status time_one(rk_ctx *ctx, const TuneJob *job, int c, rk_event *e0, rk_event *e1, void *flush,
                          double *times, double *ms, int *nruns)
{
    rk_kernel *k = job->cands[c];
    rk_status st = RK_OK;
    for (int i = 0; i < ctx->tune_warmup && !st; i++) {
        st = tune_reset(ctx, job->args, job->nargs, job->reset, job->nreset);
        if (!st)
            st = rk_launch(k, job->grid, job->args, job->nargs, NULL);
        ctx->stats.tune_runs++;
    }
    if (!st)
        st = rk_synchronize(ctx);
    double total = 0;
    int n = 0;
    while (!st && n < MAX_RUNS && (n < ctx->tune_runs || total < ctx->tune_ms)) {
        st = tune_reset(ctx, job->args, job->nargs, job->reset, job->nreset);
        if (!st && flush)
            st = rk_memset(ctx, flush, n & 0xFF, FLUSH_BYTES);
        float t = 0;
        if (!st)
            st = rk_event_record(e0, NULL);
        if (!st)
            st = rk_launch(k, job->grid, job->args, job->nargs, NULL);
        if (!st)
            st = rk_event_record(e1, NULL);
        if (!st)
            st = rk_event_elapsed(e0, e1, &t);
        ctx->stats.tune_runs++;
        times[n++] = t;
        total += t;
    }
    if (st)
        return st;
    qsort(times, (size_t)n, sizeof *times, cmp_double);
    *ms = n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
    *nruns = n;
    return RK_OK;
}

/* $RK_ROOFLINE=FILE.svg: the roofline of the whole search, one point per config that ran (a file
 * that cannot be written is a note). */
static void roofline_of_search(rk_ctx *ctx, const TuneJob *job, const double *ms)
{
    const char *path = getenv("RK_ROOFLINE");
    if (!path || !*path)
        return;
    rk_roofline_point *pts = arena_alloc_raw(&ctx->alloc, sizeof *pts * (size_t)(job->n + 1));
    char(*labels)[160] = arena_alloc_raw(&ctx->alloc, sizeof *labels * (size_t)(job->n + 1));
    const rk_peaks *p = NULL;
    double roof = 0;
    int n = 0;
    for (int c = 0; pts && labels && c < job->n; c++) {
        rk_work w;
        bool est;
        rk_roofline r;
        if (ms[c] <= 0 || !rt_roofline_for(job->cands[c], job->grid, job->args, job->nargs, ms[c], &w, &p, &est, &r))
            continue;
        snprintf(labels[n], sizeof labels[n], "%s: %.4g ms", job->labels[c][0] ? job->labels[c] : job->kernel, ms[c]);
        pts[n] = (rk_roofline_point){labels[n], r.intensity, r.flops_per_s, 0};
        roof = r.peak_flops_per_s;
        n++;
    }
    char saved[sizeof ctx->err];
    snprintf(saved, sizeof saved, "%s", ctx->err);
    if (p && n && rk_roofline_svg(ctx, path, p, roof, pts, n) != RK_OK)
        rt_log(ctx, RK_LOG_NOTE, "RK_ROOFLINE: %s", ctx->err);
    snprintf(ctx->err, sizeof ctx->err, "%s", saved);
    if (pts)
        arena_free_raw(&ctx->alloc, pts, sizeof *pts * (size_t)(job->n + 1));
    if (labels)
        arena_free_raw(&ctx->alloc, labels, sizeof *labels * (size_t)(job->n + 1));
}

rk_status tune_time(rk_ctx *ctx, const TuneJob *job, double *ms, int *best)
{
    *best = -1;
    rk_event *e0 = NULL, *e1 = NULL;
    rk_status st = rk_event_create(ctx, &e0);
    if (!st)
        st = rk_event_create(ctx, &e1);
    void *flush = NULL;
    bool gpu = ctx->dev && (strcmp(ctx->dev->props.kind, "hip") == 0 || strcmp(ctx->dev->props.kind, "cuda") == 0);
    if (!st && gpu)
        st = rk_malloc(ctx, FLUSH_BYTES, &flush);
    double *times = st ? NULL : arena_alloc_raw(&ctx->alloc, sizeof(double) * MAX_RUNS);
    if (!st && !times)
        st = rt_fail(ctx, RK_ENOMEM, "out of memory");
    if (st) {
        rk_event_destroy(e0);
        rk_event_destroy(e1);
        return st;
    }
    rk_status first = RK_OK;
    char first_msg[sizeof ctx->err];
    first_msg[0] = 0;
    for (int c = 0; c < job->n; c++) {
        rt_log(ctx, RK_LOG_PROGRESS, "autotuning %s: timing config %d of %d", job->kernel, c + 1, job->n);
        double t0 = ctx->prof ? prof_now_us() : 0;
        int nruns = 0;
        st = time_one(ctx, job, c, e0, e1, flush, times, &ms[c], &nruns);
        if (ctx->prof) {
            char args[1536], cfg[512], roof[512];
            prof_escape(cfg, sizeof cfg, job->labels[c]);
            snprintf(args, sizeof args, "{\"config\": \"%s\", \"runs\": %d, \"median_ms\": %.6f, \"status\": \"%s\"%s}",
                     cfg, nruns, st ? -1.0 : ms[c], rk_status_name(st),
                     st ? "" : rt_roofline_text(job->cands[c], job->grid, job->args, job->nargs, ms[c], true, roof,
                                                sizeof roof));
            prof_span(ctx->prof, "tune", job->kernel, t0, prof_now_us() - t0, args);
        }
        if (st) {
            ms[c] = -1;
            if (!first) {
                first = st;
                snprintf(first_msg, sizeof first_msg, "%s", ctx->err);
            }
            rt_log(ctx, RK_LOG_NOTE, "autotuning %s: config %s failed and is skipped: %s", job->kernel, job->labels[c],
                   ctx->err);
            if (st == RK_ENOMEM)
                break; /* timing more would only fail again */
            continue;
        }
        if (ctx->settings.print_autotuning) {
            char roof[512];
            rt_log(ctx, RK_LOG_AUTOTUNE, "autotune %s [%s]: %s: %.4f ms (median of %d runs)%s", job->kernel,
                   job->key_text, job->labels[c], ms[c], nruns,
                   rt_roofline_text(job->cands[c], job->grid, job->args, job->nargs, ms[c], false, roof, sizeof roof));
        }
        if (*best < 0 || ms[c] < ms[*best])
            *best = c;
    }
    arena_free_raw(&ctx->alloc, times, sizeof(double) * MAX_RUNS);
    roofline_of_search(ctx, job, ms);
    if (flush)
        rk_free(ctx, flush);
    rk_event_destroy(e0);
    rk_event_destroy(e1);
    if (*best < 0)
        return rt_fail(ctx, first ? first : RK_EINTERNAL, "autotuning %s: no config ran: %s", job->kernel,
                       first_msg[0] ? first_msg : "no configs");
    rt_clear(ctx);
    return RK_OK;
}

/* ---- keys ---- */

bool tune_param_indices(const rk_param *params, int nparams, const char *const *names, int n, int *out)
{
    for (int i = 0; i < n; i++) {
        out[i] = -1;
        for (int j = 0; j < nparams; j++)
            if (strcmp(params[j].name, names[i]) == 0)
                out[i] = j;
        if (out[i] < 0)
            return false;
    }
    return true;
}

rk_status tune_key_text(rk_ctx *ctx, const char *kernel, const rk_param *params, int nparams, const int *key, int nkey,
                   const rk_arg *args, int nargs, char *out, size_t outlen)
{
    size_t n = 0;
    out[0] = 0;
    if (nargs != nparams) {
        return rt_fail(ctx, RK_ELAUNCH, "kernel %s takes %d arguments, got %d", kernel, nparams, nargs);
    }
    if (nargs && !args) {
        return rt_fail(ctx, RK_EINVAL, "kernel %s: args is NULL but nargs is %d", kernel, nargs);
    }
    for (int i = 0; i < nkey; i++) {
        const rk_param *p = &params[key[i]];
        const rk_arg *a = &args[key[i]];
        char v[64];
        if (p->kind == RK_PARAM_POINTER) {
            snprintf(v, sizeof v, "*%s", rk_dtype_name(p->dtype));
        } else if (a->kind != RK_PARAM_SCALAR || !rk_dtype_name(a->dtype)) {
            return rt_fail(ctx, RK_ELAUNCH, "kernel %s, argument %d '%s': expected a scalar (a key of @autotune)",
                           kernel, key[i] + 1, p->name);
        } else {
            switch (a->dtype) {
            case RK_BOOL: snprintf(v, sizeof v, "%s", a->v.b ? "true" : "false"); break;
            case RK_I8: case RK_I16: case RK_I32: case RK_I64: snprintf(v, sizeof v, "%lld", (long long)a->v.i); break;
            case RK_F16: case RK_BF16: snprintf(v, sizeof v, "%s:0x%04x", rk_dtype_name(a->dtype), a->v.bits); break;
            case RK_F32: case RK_F64: snprintf(v, sizeof v, "%.17g", a->v.f); break;
            default: snprintf(v, sizeof v, "%llu", (unsigned long long)a->v.u); break;
            }
        }
        int w = snprintf(out + n, outlen - n, "%s%s=%s", i ? " " : "", p->name, v);
        if (w < 0 || (size_t)w >= outlen - n) {
            return rt_fail(ctx, RK_EINVAL, "kernel %s: the @autotune key is too long", kernel);
        }
        n += (size_t)w;
    }
    return RK_OK;
}

/* ---- memory ---- */

typedef struct MemoEntry {
    uint64_t hash;
    unsigned char *key;
    size_t n;
    void *value;
    Arena *owner;
    struct MemoEntry *next;
} MemoEntry;

enum { MEMO_BUCKETS = 64 };

struct RtTuneMemo {
    MemoEntry *b[MEMO_BUCKETS];
};

static MemoEntry *memo_find(rk_ctx *ctx, const void *key, size_t n, uint64_t h)
{
    if (!ctx->memo)
        return NULL;
    for (MemoEntry *e = ctx->memo->b[h % MEMO_BUCKETS]; e; e = e->next)
        if (e->hash == h && e->n == n && memcmp(e->key, key, n) == 0)
            return e;
    return NULL;
}

void *tune_memo_get(rk_ctx *ctx, const void *key, size_t n)
{
    MemoEntry *e = memo_find(ctx, key, n, hash_fast64(key, n, 0));
    return e ? e->value : NULL;
}

bool tune_memo_set(rk_ctx *ctx, const void *key, size_t n, void *value, Arena *owner)
{
    uint64_t h = hash_fast64(key, n, 0);
    if (memo_find(ctx, key, n, h))
        return false;
    if (!ctx->memo) {
        ctx->memo = arena_alloc_raw(&ctx->alloc, sizeof *ctx->memo);
        if (!ctx->memo)
            return false;
        memset(ctx->memo, 0, sizeof *ctx->memo);
    }
    MemoEntry *e = arena_alloc_raw(&ctx->alloc, sizeof *e);
    unsigned char *k = arena_alloc_raw(&ctx->alloc, n ? n : 1);
    if (!e || !k) {
        arena_free_raw(&ctx->alloc, e, sizeof *e);
        arena_free_raw(&ctx->alloc, k, n ? n : 1);
        return false;
    }
    memcpy(k, key, n);
    *e = (MemoEntry){h, k, n, value, owner, ctx->memo->b[h % MEMO_BUCKETS]};
    ctx->memo->b[h % MEMO_BUCKETS] = e;
    return true;
}

void rt_memo_destroy(rk_ctx *ctx)
{
    if (!ctx->memo)
        return;
    for (int i = 0; i < MEMO_BUCKETS; i++)
        for (MemoEntry *e = ctx->memo->b[i], *next; e; e = next) {
            next = e->next;
            if (e->owner) {
                arena_free(e->owner);
                arena_free_raw(&ctx->alloc, e->owner, sizeof *e->owner);
            }
            arena_free_raw(&ctx->alloc, e->key, e->n ? e->n : 1);
            arena_free_raw(&ctx->alloc, e, sizeof *e);
        }
    arena_free_raw(&ctx->alloc, ctx->memo, sizeof *ctx->memo);
    ctx->memo = NULL;
}
