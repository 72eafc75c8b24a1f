/* Ahead-of-time bundles in the runtime: loading a code object with every variant and its manifest, and
 * autotuning over the variants with the runtime library alone (rk.h: rk_bundle_*).
 *
 * The manifest (written by compiler/api/bundle_write.c; docs/api.md shows one):
 *     {"format": "rk-bundle", "version": 1, "target": "emu", "binary_size": N, "binary_hash": "...",
 *      "kernels": [{"name": "matmul", "key": ["M", ...], "reset": [...],
 *                   "variants": [{"symbol": "matmul__c0", "config": {...}, "config_text": "BLOCK_M=64 ...",
 *                                 "params": [{"name": "a", "kind": "pointer", "dtype": "bf16"}, ...],
 *                                 "num_warps": 4, "block": 256, "lds_bytes": 8192, "grid": "<TIR>",
 *                                 "vgpr_spills": 0, "sgpr_spills": 0, "scratch_bytes": 0,
 *                                 "tma": "tma 0 2 64 128 128 0+1*5 0+1*3 0+1*6\n..."}, ...]}]}
 * "tma" (sm_90 kernels whose dot operands are copied by TMA: runtime/api/tma.c) is present only
 * when the kernel takes tensor maps; a manifest without it loads as before.
 * The program holds every variant as a kernel named by its symbol. Tuning times them as rk_autotune
 * does (runtime/tune), after dropping spilling variants when a variant without spills exists, and
 * remembers the winner in the bundle and on disk ("btune" entries) by (the bundle's SHA-256, kernel,
 * device, key values). */
#include <errno.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "runtime/api/api_internal.h"
#include "runtime/bundle/json.h"
#include "runtime/bundle/variant_id.h"
#include "runtime/cache/progcache.h"
#include "runtime/profile/profile.h"
#include "runtime/tune/tune.h"
#include "support/files.h"

typedef struct BKernel {
    const char *name;
    const rk_param *params;
    int nparams;
    const char **key, **reset;
    int nkey, nreset;
    int *key_idx, *reset_idx;
    int nvariants;
    rk_kernel **variants;
    const char **labels;
    int *spills;
} BKernel;

/* A winner remembered by the bytes of its key (no SHA-256 on the way to a launch). */
typedef struct BMemo {
    uint64_t hash;
    size_t n;
    rk_kernel *k;
    struct BMemo *next;
    unsigned char key[]; /* n bytes */
} BMemo;

struct rk_bundle {
    rk_ctx *ctx;
    rk_bundle *prev, *next;
    Arena arena;
    const char *target;
    HashKey id;
    rk_program *prog;
    BKernel *kernels;
    int nkernels;
    BMemo *memo;
};

/* ---- reading ---- */

typedef struct Load {
    jmp_buf oom;
    Arena tmp;
    char *manifest, *binary;
    size_t mlen, blen;
} Load;

static bool dtype_named(const char *s, rk_dtype *out)
{
    for (int t = RK_BOOL; t <= RK_F64; t++)
        if (s && strcmp(rk_dtype_name((rk_dtype)t), s) == 0) {
            *out = (rk_dtype)t;
            return true;
        }
    return false;
}

static const char **names(Arena *a, const Json *arr, int *n)
{
    *n = 0;
    if (!arr || arr->kind != JSON_ARRAY)
        return ARENA_ARRAY(a, const char *, 1);
    const char **v = ARENA_ARRAY(a, const char *, arr->n + 1);
    for (int i = 0; i < arr->n; i++)
        if (arr->items[i]->kind == JSON_STRING)
            v[(*n)++] = arena_strdup(a, arr->items[i]->str);
    return v;
}

/* An integer field of a variant: a JSON number with an integer value in [lo, hi]; false (with why,
 * naming the field) otherwise. A manifest is text anyone can edit: "4096" (a string) is not 4096, and
 * 1e32 is refused, not converted to an int with overflow (issue 23). */
static bool int_field(Arena *a, const Json *v, const char *key, double lo, double hi, int *out, const char **why)
{
    const Json *f = json_get(v, key);
    if (!f || f->kind != JSON_NUMBER || !(f->num >= lo && f->num <= hi) || f->num != (double)(int64_t)f->num) {
        *why = arena_printf(a, "field %s is %s, not an integer in %.0f .. %.0f", key,
                            !f                        ? "missing"
                            : f->kind != JSON_NUMBER ? "not a number"
                                                      : arena_printf(a, "%g", f->num),
                            lo, hi);
        return false;
    }
    *out = (int)f->num;
    return true;
}

/* A variant's description from the manifest; false (with why) when it is not one. wave: the target's
 * lanes per wave (block must be num_warps of them: the code was compiled for that many lanes). */
static bool variant_desc(Arena *a, const Json *v, RtKernelDesc *d, int *spills, int wave, const char **why)
{
    const Json *ps = json_get(v, "params");
    d->symbol = json_str(v, "symbol", NULL);
    if (!d->symbol || !ps || ps->kind != JSON_ARRAY) {
        *why = "a variant without a symbol or params";
        return false;
    }
    d->symbol = arena_strdup(a, d->symbol);
    d->name = d->symbol;
    d->config = arena_strdup(a, json_str(v, "config_text", ""));
    rk_param *p = ARENA_ARRAY(a, rk_param, ps->n + 1);
    for (int i = 0; i < ps->n; i++) {
        const char *name = json_str(ps->items[i], "name", NULL), *kind = json_str(ps->items[i], "kind", "");
        if (!name || !dtype_named(json_str(ps->items[i], "dtype", NULL), &p[i].dtype) ||
            (strcmp(kind, "pointer") != 0 && strcmp(kind, "scalar") != 0)) {
            *why = "a parameter without a name, kind or dtype";
            return false;
        }
        p[i].name = arena_strdup(a, name);
        p[i].kind = strcmp(kind, "pointer") == 0 ? RK_PARAM_POINTER : RK_PARAM_SCALAR;
    }
    d->params = p;
    d->nparams = ps->n;
    int vs = 0, ss = 0;
    if (!int_field(a, v, "num_warps", 1, 32, &d->num_warps, why) || !int_field(a, v, "block", 1, 1024, &d->block, why) ||
        !int_field(a, v, "lds_bytes", 0, 227 * 1024, &d->lds_bytes, why) ||
        !int_field(a, v, "vgpr_spills", 0, 1 << 20, &vs, why) || !int_field(a, v, "sgpr_spills", 0, 1 << 20, &ss, why))
        return false;
    if (d->block != d->num_warps * wave) {
        *why = arena_printf(a, "field block is %d, but num_warps %d of %d lanes are %d", d->block, d->num_warps, wave,
                            d->num_warps * wave);
        return false;
    }
    const char *grid = json_str(v, "grid", NULL);
    d->grid_tir = grid ? arena_strdup(a, grid) : NULL;
    const char *tma = json_str(v, "tma", NULL); /* absent or null: no tensor maps */
    d->tma = tma ? arena_strdup(a, tma) : NULL;
    const char *facts = json_str(v, "facts", NULL), *nospec = json_str(v, "no_specialize", NULL);
    d->facts = facts ? arena_strdup(a, facts) : NULL;
    d->nospec = nospec ? arena_strdup(a, nospec) : NULL;
    const char *work = json_str(v, "work", NULL); /* absent in bundles made before work counts */
    d->work = work ? arena_strdup(a, work) : NULL;
    *spills = vs + ss;
    return true;
}

/* The bundle from the parsed manifest and the code object. */
static rk_status build(rk_ctx *ctx, rk_bundle *b, Load *l, const Json *m, const char *path)
{
    Arena *a = &b->arena;
    const char *why = NULL;
    const Json *ks = json_get(m, "kernels");
    if (strcmp(json_str(m, "format", ""), "rk-bundle") != 0 || json_num(m, "version", 0) != 1 || !ks ||
        ks->kind != JSON_ARRAY || !json_str(m, "target", NULL))
        return rt_fail(ctx, RK_EINVAL, "%s.json is not an rk bundle manifest (format rk-bundle, version 1)", path);
    char hash[32];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)hash_fast64(l->binary, l->blen, l->blen));
    if (json_num(m, "binary_size", -1) != (double)l->blen || strcmp(json_str(m, "binary_hash", ""), hash) != 0)
        return rt_fail(ctx, RK_EINVAL, "%s does not match its manifest %s.json (size or hash differ): rebuild the bundle",
                       path, path);
    b->target = arena_strdup(a, json_str(m, "target", NULL));
    /* emu_sm90 and sm_90 code runs in warps of 32 lanes, the others in waves of 64 */
    int wave = strcmp(b->target, "sm_90") == 0 || strcmp(b->target, "emu_sm90") == 0 ? 32 : 64; /* names a target: */
    /* (the runtime, built without the compiler, has no Target table to ask) */
    int total = 0;
    for (int i = 0; i < ks->n; i++) {
        const Json *vs = json_get(ks->items[i], "variants");
        total += vs && vs->kind == JSON_ARRAY ? vs->n : 0;
    }
    RtKernelDesc *descs = ARENA_ARRAY(&l->tmp, RtKernelDesc, total + 1);
    b->nkernels = ks->n;
    b->kernels = ARENA_ARRAY(a, BKernel, ks->n + 1);
    int nd = 0;
    for (int i = 0; i < ks->n; i++) {
        const Json *kj = ks->items[i];
        BKernel *k = &b->kernels[i];
        const Json *vs = json_get(kj, "variants");
        const char *name = json_str(kj, "name", NULL);
        if (!name || !vs || vs->kind != JSON_ARRAY || vs->n == 0)
            return rt_fail(ctx, RK_EINVAL, "%s.json: kernel %d has no name or no variants", path, i);
        k->name = arena_strdup(a, name);
        k->key = names(a, json_get(kj, "key"), &k->nkey);
        k->reset = names(a, json_get(kj, "reset"), &k->nreset);
        k->nvariants = vs->n;
        k->variants = ARENA_ARRAY(a, rk_kernel *, vs->n);
        k->labels = ARENA_ARRAY(a, const char *, vs->n);
        k->spills = ARENA_ARRAY(a, int, vs->n);
        for (int j = 0; j < vs->n; j++) {
            RtKernelDesc *d = &descs[nd++];
            if (!variant_desc(a, vs->items[j], d, &k->spills[j], wave, &why))
                return rt_fail(ctx, RK_EINVAL, "%s.json: kernel %s: variant %d: %s", path, k->name, j, why);
            k->labels[j] = d->config;
            if (j == 0) {
                k->params = d->params;
                k->nparams = d->nparams;
            } else if (d->nparams != k->nparams) {
                return rt_fail(ctx, RK_EINVAL, "%s.json: the variants of %s differ in their parameters", path, k->name);
            }
        }
        k->key_idx = ARENA_ARRAY(a, int, k->nkey + 1);
        k->reset_idx = ARENA_ARRAY(a, int, k->nreset + 1);
        if (!tune_param_indices(k->params, k->nparams, k->key, k->nkey, k->key_idx) ||
            !tune_param_indices(k->params, k->nparams, k->reset, k->nreset, k->reset_idx))
            return rt_fail(ctx, RK_EINVAL, "%s.json: the key or reset of %s names no parameter", path, k->name);
    }
    rk_status st = rt_program_new(ctx, b->target, l->binary, l->blen, descs, nd, &b->prog);
    if (st == RK_EINTERNAL) { /* from the manifest's text (a grid that does not parse): not rk's error */
        char why2[512];
        const char *e = rk_error(ctx);
        snprintf(why2, sizeof why2, "%s", strncmp(e, "internal error: ", 16) == 0 ? e + 16 : e);
        return rt_fail(ctx, RK_EINVAL, "%s.json does not describe its code object: %s", path, why2);
    }
    if (st)
        return st;
    /* Each variant's fields are those of the code its symbol names (variant_id.h): symbols exchanged
     * between variants, or a config or lds_bytes edited, would run one config's code as another's. */
    nd = 0;
    for (int i = 0; i < b->nkernels; i++)
        for (int j = 0; j < b->kernels[i].nvariants; j++) {
            const RtKernelDesc *d = &descs[nd++];
            int bad = variant_id_check(d->symbol, d);
            if (bad == 3)
                return rt_fail(ctx, RK_EINVAL,
                               "%s.json: kernel %s: variant %d: field symbol '%.200s' does not end in the id of a "
                               "configuration (_ and 16 hex digits): not a variant of an rk bundle (rebuild it)",
                               path, b->kernels[i].name, j, d->symbol);
            if (bad == 1)
                return rt_fail(ctx, RK_EINVAL,
                               "%s.json: kernel %s: variant %d: field config_text \"%.200s%s\"%s is not the "
                               "configuration the code of symbol %s was compiled for",
                               path, b->kernels[i].name, j, d->config, strlen(d->config) > 200 ? "..." : "",
                               d->facts && *d->facts ? " (with its facts)" : "", d->symbol);
            if (bad)
                return rt_fail(ctx, RK_EINVAL,
                               "%s.json: kernel %s: variant %d: fields num_warps %d, block %d, lds_bytes %d%s, params "
                               "and grid are not the launch shape and parameters the code of symbol %s was compiled for",
                               path, b->kernels[i].name, j, d->num_warps, d->block, d->lds_bytes,
                               d->tma ? " and tma" : "", d->symbol);
        }
    nd = 0;
    for (int i = 0; i < b->nkernels; i++)
        for (int j = 0; j < b->kernels[i].nvariants; j++)
            b->kernels[i].variants[j] = &b->prog->kernels[nd++];
    Sha256 s;
    hash_sha256_init(&s);
    hash_key_str(&s, "rk bundle");
    hash_key_bytes(&s, l->manifest, l->mlen);
    hash_key_bytes(&s, l->binary, l->blen);
    b->id = hash_key_final(&s);
    return RK_OK;
}

rk_status rk_bundle_load(rk_ctx *ctx, const char *path, rk_bundle **out)
{
    if (!ctx)
        return RK_EINVAL;
    RT_ENTER(ctx);
    if (!path || !out)
        return rt_fail(ctx, RK_EINVAL, "rk_bundle_load: %s is NULL", path ? "bundle" : "path");
    *out = NULL;
    Load *l = arena_alloc_raw(&ctx->alloc, sizeof *l);
    rk_bundle *b = arena_alloc_raw(&ctx->alloc, sizeof *b);
    if (!l || !b) {
        arena_free_raw(&ctx->alloc, l, sizeof *l);
        arena_free_raw(&ctx->alloc, b, sizeof *b);
        return rt_fail(ctx, RK_ENOMEM, "out of memory");
    }
    memset(l, 0, sizeof *l);
    memset(b, 0, sizeof *b);
    b->ctx = ctx;
    arena_init(&b->arena, ctx->alloc);
    arena_init(&l->tmp, ctx->alloc);
    rk_status st;
    if (setjmp(l->oom)) {
        st = rt_fail(ctx, RK_ENOMEM, "out of memory loading the bundle %s", path);
    } else {
        b->arena.oom = &l->oom;
        l->tmp.oom = &l->oom;
        int rerr = 0; /* regular files only: never a FIFO's wait */
        char *mpath = arena_printf(&l->tmp, "%s.json", path);
        l->manifest = rt_read_file_with(&ctx->alloc, mpath, SIZE_MAX, &l->mlen, &rerr);
        if (l->manifest)
            l->binary = rt_read_file_with(&ctx->alloc, path, SIZE_MAX, &l->blen, &rerr);
        if (rerr == ENOMEM) {
            st = rt_fail(ctx, RK_ENOMEM, "out of memory loading the bundle %s", path);
        } else if (!l->manifest || !l->binary) {
            st = rt_fail(ctx, RK_EIO, "cannot read %s", l->manifest ? path : mpath);
        } else {
            char err[256];
            Json *m = json_parse(&l->tmp, l->manifest, l->mlen, err, sizeof err);
            st = m ? build(ctx, b, l, m, path) : rt_fail(ctx, RK_EINVAL, "%s: %s", mpath, err);
        }
    }
    b->arena.oom = NULL;
    l->tmp.oom = NULL;
    arena_free(&l->tmp);
    if (l->manifest)
        arena_free_raw(&ctx->alloc, l->manifest, l->mlen + 1);
    if (l->binary)
        arena_free_raw(&ctx->alloc, l->binary, l->blen + 1);
    arena_free_raw(&ctx->alloc, l, sizeof *l);
    if (st) {
        rk_program_destroy(b->prog);
        arena_free(&b->arena);
        arena_free_raw(&ctx->alloc, b, sizeof *b);
        return st;
    }
    b->next = ctx->bundles;
    if (ctx->bundles)
        ctx->bundles->prev = b;
    ctx->bundles = b;
    *out = b;
    return RK_OK;
}

void rk_bundle_destroy(rk_bundle *b)
{
    if (!b)
        return;
    rk_ctx *ctx = b->ctx;
    if (b->prev)
        b->prev->next = b->next;
    else
        ctx->bundles = b->next;
    if (b->next)
        b->next->prev = b->prev;
    for (BMemo *m = b->memo, *next; m; m = next) {
        next = m->next;
        arena_free_raw(&ctx->alloc, m, sizeof *m + m->n);
    }
    rk_program_destroy(b->prog);
    arena_free(&b->arena);
    arena_free_raw(&ctx->alloc, b, sizeof *b);
}

void rt_bundles_destroy(rk_ctx *ctx)
{
    while (ctx->bundles)
        rk_bundle_destroy(ctx->bundles);
}

/* ---- queries ---- */

const char *rk_bundle_target(const rk_bundle *b)
{
    return b ? b->target : NULL;
}

int rk_bundle_kernel_count(const rk_bundle *b)
{
    return b ? b->nkernels : 0;
}

const char *rk_bundle_kernel_name(const rk_bundle *b, int i)
{
    return b && i >= 0 && i < b->nkernels ? b->kernels[i].name : NULL;
}

static BKernel *find(rk_bundle *b, const char *name)
{
    for (int i = 0; name && i < b->nkernels; i++)
        if (strcmp(b->kernels[i].name, name) == 0)
            return &b->kernels[i];
    return NULL;
}

static rk_status not_found(rk_bundle *b, const char *name)
{
    char list[512] = "";
    size_t n = 0;
    for (int i = 0; i < b->nkernels && n < sizeof list; i++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", b->kernels[i].name);
    return rt_fail(b->ctx, RK_ENOTFOUND, "no kernel named '%s' in the bundle (kernels: %s)", name ? name : "(null)",
                   list);
}

int rk_bundle_variant_count(const rk_bundle *b, const char *name)
{
    BKernel *k = b ? find((rk_bundle *)b, name) : NULL;
    return k ? k->nvariants : 0;
}

rk_status rk_bundle_variant(rk_bundle *b, const char *name, int i, rk_kernel **variant)
{
    if (!b)
        return RK_EINVAL;
    RT_ENTER(b->ctx);
    if (!variant)
        return rt_fail(b->ctx, RK_EINVAL, "rk_bundle_variant: variant is NULL");
    *variant = NULL;
    BKernel *k = find(b, name);
    if (!k)
        return not_found(b, name);
    if (i < 0 || i >= k->nvariants)
        return rt_fail(b->ctx, RK_EINVAL, "kernel %s has %d variants, not %d", name, k->nvariants, i + 1);
    *variant = k->variants[i];
    return RK_OK;
}

/* ---- tuning ---- */

static rk_status tune(rk_bundle *b, BKernel *k, const rk_arg *args, int nargs, rk_kernel **best, bool *tuned)
{
    rk_ctx *ctx = b->ctx;
    *tuned = false;
    rk_status st = rt_need_device(ctx);
    if (st)
        return st;
    /* The variants this call may run: those of the most specialised set of facts its arguments satisfy
     * (a bundle compiled with --specialize holds every config for each set). */
    int most = -1, nfit = 0;
    for (int i = 0; i < k->nvariants; i++) {
        int h = rt_spec_args_hold(k->variants[i], args, nargs);
        nfit += h == most;
        if (h > most)
            most = h, nfit = 1;
    }
    if (most < 0) /* none: the launch of the first says which fact is broken */
        return k->nvariants ? rk_launch(k->variants[0], NULL, args, nargs, NULL) : RK_EINVAL;
    if (nfit == 1 || k->nvariants == 1) {
        for (int i = 0; i < k->nvariants; i++)
            if (rt_spec_args_hold(k->variants[i], args, nargs) == most)
                *best = k->variants[i];
        return RK_OK;
    }
    char key_text[2048];
    if ((st = tune_key_text(ctx, k->name, k->params, k->nparams, k->key_idx, k->nkey, args, nargs, key_text,
                            sizeof key_text - 512)))
        return st;
    /* the chosen set is part of the key: its facts (those of any of its variants) */
    for (int i = 0; i < k->nvariants; i++)
        if (rt_spec_args_hold(k->variants[i], args, nargs) == most) {
            if (*k->variants[i]->facts)
                snprintf(key_text + strlen(key_text), 512, " [%s]", k->variants[i]->facts);
            break;
        }
    /* the key: in memory by its bytes, on disk by their SHA-256 */
    unsigned char key[2048 + 512];
    size_t n;
    const char *fields[] = {"btune", k->name, ctx->dev->props.kind, ctx->dev->props.name, ctx->dev->props.arch,
                            key_text};
    memcpy(key, b->id.b, 32);
    n = 32;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        size_t len = strlen(fields[i]) + 1;
        if (n + len > sizeof key)
            return rt_fail(ctx, RK_EINVAL, "kernel %s: the @autotune key is too long", k->name);
        memcpy(key + n, fields[i], len);
        n += len;
    }
    uint64_t h = hash_fast64(key, n, 0);
    for (BMemo *m = b->memo; m; m = m->next)
        if (m->hash == h && m->n == n && memcmp(m->key, key, n) == 0) {
            *best = m->k;
            return RK_OK;
        }
    Sha256 s;
    hash_sha256_init(&s);
    hash_sha256_update(&s, key, n);
    HashKey kt = hash_key_final(&s);
    BMemo *memo = arena_alloc_raw(&ctx->alloc, sizeof *memo + n);
    if (!memo)
        return rt_fail(ctx, RK_ENOMEM, "out of memory");
    /* The winner on disk: its symbol. */
    void *data = NULL;
    size_t size = 0;
    *best = NULL;
    if ((st = rt_cache_get_raw(ctx, "btune", &kt, &data, &size))) {
        arena_free_raw(&ctx->alloc, memo, sizeof *memo + n);
        return st;
    }
    for (int i = 0; data && i < k->nvariants; i++)
        if (strlen(k->variants[i]->symbol) == size && memcmp(k->variants[i]->symbol, data, size) == 0)
            *best = k->variants[i];
    if (data) {
        if (*best)
            ctx->stats.cache_hits++;
        else
            ctx->stats.cache_misses++;
        arena_free_raw(&ctx->alloc, data, size ? size : 1);
    }
    if (!*best) {
        rk_kernel **cands = arena_alloc_raw(&ctx->alloc, sizeof *cands * (size_t)k->nvariants);
        const char **labels = arena_alloc_raw(&ctx->alloc, sizeof *labels * (size_t)k->nvariants);
        double *ms = arena_alloc_raw(&ctx->alloc, sizeof *ms * (size_t)k->nvariants);
        if (!cands || !labels || !ms) {
            st = rt_fail(ctx, RK_ENOMEM, "out of memory");
        } else {
            bool clean = false;
            for (int i = 0; i < k->nvariants; i++)
                clean |= k->spills[i] == 0 && rt_spec_args_hold(k->variants[i], args, nargs) == most;
            int nc = 0;
            for (int i = 0; i < k->nvariants; i++)
                if ((!clean || k->spills[i] == 0) && rt_spec_args_hold(k->variants[i], args, nargs) == most) {
                    cands[nc] = k->variants[i];
                    labels[nc++] = k->labels[i];
                }
            TuneJob job = {k->name, key_text, cands, labels, nc, NULL, args, nargs, k->reset_idx, k->nreset};
            int win;
            double t0 = prof_now_us();
            st = tune_time(ctx, &job, ms, &win);
            ctx->stats.tunings++;
            ctx->stats.last_tune_compile_ms = 0;
            ctx->stats.last_tune_bench_ms = (prof_now_us() - t0) / 1e3;
            ctx->stats.last_tune_configs = k->nvariants;
            ctx->stats.last_tune_pruned = k->nvariants - nc;
            if (!st) {
                *best = cands[win];
                *tuned = true;
                rt_cache_put_raw(ctx, "btune", &kt, (*best)->symbol, strlen((*best)->symbol));
                if (ctx->settings.print_autotuning)
                    rt_log(ctx, RK_LOG_AUTOTUNE, "autotune %s [%s]: best %s: %.4f ms; %d variants, %d pruned (spills)",
                           k->name, key_text, labels[win], ms[win], k->nvariants, k->nvariants - nc);
            }
        }
        arena_free_raw(&ctx->alloc, cands, sizeof *cands * (size_t)k->nvariants);
        arena_free_raw(&ctx->alloc, labels, sizeof *labels * (size_t)k->nvariants);
        arena_free_raw(&ctx->alloc, ms, sizeof *ms * (size_t)k->nvariants);
    }
    if (st) {
        arena_free_raw(&ctx->alloc, memo, sizeof *memo + n);
        *best = NULL;
        return st;
    }
    memo->hash = h;
    memo->n = n;
    memcpy(memo->key, key, n);
    memo->k = *best;
    memo->next = b->memo;
    b->memo = memo;
    return RK_OK;
}

rk_status rk_bundle_autotune(rk_bundle *b, const char *name, const rk_arg *args, int nargs, rk_kernel **best)
{
    if (!b)
        return RK_EINVAL;
    RT_ENTER(b->ctx);
    if (!best)
        return rt_fail(b->ctx, RK_EINVAL, "rk_bundle_autotune: best is NULL");
    *best = NULL;
    BKernel *k = find(b, name);
    if (!k)
        return not_found(b, name);
    bool tuned;
    return tune(b, k, args, nargs, best, &tuned);
}

rk_status rk_bundle_run(rk_bundle *b, const char *name, const uint32_t *grid, const rk_arg *args, int nargs,
                        rk_stream *stream)
{
    if (!b)
        return RK_EINVAL;
    RT_ENTER(b->ctx);
    BKernel *k = find(b, name);
    if (!k)
        return not_found(b, name);
    rk_kernel *best;
    bool tuned;
    rk_status st = tune(b, k, args, nargs, &best, &tuned);
    if (!st && tuned)
        st = tune_reset(b->ctx, args, nargs, k->reset_idx, k->nreset);
    return st ? st : rk_launch(best, grid, args, nargs, stream);
}
