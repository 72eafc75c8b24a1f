/* rk_autotune and rk_run: the @autotune space compiled on all cores (variants.c), timed on the device
 * (runtime/tune), the winner remembered in memory and on disk.
 *
 * Two keys:
 *   Md = the compile's inputs as bytes (compile_key_material: source, options, target, kernel, rk's
 *        build), Kd its SHA-256  → the kernel's description: run-time parameters, @autotune configs
 *        (as defines), key and reset parameters, and the imports it read. Found in the context's
 *        memory by Md, in the cache by Kd ("meta" entries), or by running the compiler to tile IR
 *        (which counts as a compile).
 *   Mt = Kd + device (kind, name, processor) + the key parameters' values, Kt its SHA-256  → the
 *        winner: in memory by Mt (its rk_kernel), in the cache by Kt (a "tune" entry holding the code
 *        object that contains it, its description and its config), or by tuning.
 * The memory is keyed by the bytes themselves (tune.h's tune_memo_get: a fast hash and a compare), so that
 * rk_run, which looks its kernel up on every call, pays no SHA-256: about 1 us above rk_launch. A
 * second process with the same source, device and key values reads both entries and compiles nothing
 * (rk_stats.compiles stays 0). */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "compiler/api/variants.h"
#include "compiler/target/target.h"
#include "runtime/cache/progcache.h"
#include "runtime/profile/profile.h"
#include "runtime/tune/tune.h"

/* ---- the kernel's description ---- */

typedef struct TuneConfig {
    Define *defs;
    int ndefs;
    const char *label;
} TuneConfig;

typedef struct TuneDesc {
    HashKey kd;    /* the description's cache key (not stored: the key of its entry) */
    CacheDep *deps;
    int ndeps;
    rk_param *params;
    int nparams;
    bool has_autotune;
    const char **key, **reset;
    int nkey, nreset;
    int *key_idx, *reset_idx;
    TuneConfig *configs;
    int nconfigs;
    const char *nospec; /* the parameters @no_specialize names, space-separated */
    int *spec_idx;      /* the parameters a call's facts are about (desc_index) */
    int nspec;
    int *ptr_idx;       /* the pointer parameters a call's facts (x<2G) are about, on targets with
                           buffer addressing (runtime/api/spec.c's rule) */
    int nptr;
} TuneDesc;

enum { DESC_MAGIC = 0x32445452 /* "RTD2" */ };

/* The one kernel of a program of one kernel (a tuned winner, a compile of one kernel). */
static rk_kernel *only_kernel(rk_program *p)
{
    rk_kernel *k = NULL;
    rk_program_kernel_at(p, 0, &k);
    return k;
}

static void desc_write(Blob *b, const TuneDesc *d)
{
    blob_u32(b, DESC_MAGIC);
    blob_u32(b, (uint32_t)d->ndeps);
    for (int i = 0; i < d->ndeps; i++) {
        blob_str(b, d->deps[i].path);
        blob_u64(b, d->deps[i].size);
        blob_bytes(b, d->deps[i].hash.b, 32);
    }
    blob_u32(b, (uint32_t)d->nparams);
    for (int i = 0; i < d->nparams; i++) {
        blob_str(b, d->params[i].name);
        blob_u32(b, (uint32_t)d->params[i].kind);
        blob_u32(b, (uint32_t)d->params[i].dtype);
    }
    blob_u32(b, d->has_autotune);
    blob_u32(b, (uint32_t)d->nkey);
    for (int i = 0; i < d->nkey; i++)
        blob_str(b, d->key[i]);
    blob_u32(b, (uint32_t)d->nreset);
    for (int i = 0; i < d->nreset; i++)
        blob_str(b, d->reset[i]);
    blob_u32(b, (uint32_t)d->nconfigs);
    for (int i = 0; i < d->nconfigs; i++) {
        blob_str(b, d->configs[i].label);
        blob_u32(b, (uint32_t)d->configs[i].ndefs);
        for (int j = 0; j < d->configs[i].ndefs; j++) {
            blob_str(b, d->configs[i].defs[j].name);
            blob_str(b, d->configs[i].defs[j].value);
        }
    }
    blob_str(b, d->nospec);
}

static int rd_n(BlobReader *r)
{
    uint32_t n = blob_read_u32(r);
    if (r->bad || n > (uint32_t)(r->end - r->p)) {
        r->bad = true;
        return 0;
    }
    return (int)n;
}

static const char **rd_names(BlobReader *r, int *n)
{
    *n = rd_n(r);
    const char **v = ARENA_ARRAY(r->a, const char *, *n + 1);
    for (int i = 0; i < *n && !r->bad; i++)
        if (!(v[i] = blob_read_str(r)))
            r->bad = true;
    return v;
}

static bool desc_read(BlobReader *r, TuneDesc *d)
{
    Arena *a = r->a;
    memset(d, 0, sizeof *d);
    if (blob_read_u32(r) != DESC_MAGIC)
        return false;
    d->ndeps = rd_n(r);
    d->deps = ARENA_ARRAY(a, CacheDep, d->ndeps + 1);
    for (int i = 0; i < d->ndeps && !r->bad; i++) {
        d->deps[i].path = blob_read_str(r);
        d->deps[i].size = blob_read_u64(r);
        size_t n;
        const void *h = blob_read_bytes(r, &n);
        if (!d->deps[i].path || n != 32)
            r->bad = true;
        else
            memcpy(d->deps[i].hash.b, h, 32);
    }
    d->nparams = rd_n(r);
    d->params = ARENA_ARRAY(a, rk_param, d->nparams + 1);
    for (int i = 0; i < d->nparams && !r->bad; i++) {
        d->params[i].name = blob_read_str(r);
        uint32_t kind = blob_read_u32(r), dt = blob_read_u32(r);
        if (!d->params[i].name || kind > RK_PARAM_POINTER || dt > RK_F64)
            r->bad = true;
        d->params[i].kind = (rk_param_kind)kind;
        d->params[i].dtype = (rk_dtype)dt;
    }
    d->has_autotune = blob_read_u32(r) != 0;
    d->key = rd_names(r, &d->nkey);
    d->reset = rd_names(r, &d->nreset);
    d->nconfigs = rd_n(r);
    d->configs = ARENA_ARRAY(a, TuneConfig, d->nconfigs + 1);
    for (int i = 0; i < d->nconfigs && !r->bad; i++) {
        TuneConfig *c = &d->configs[i];
        c->label = blob_read_str(r);
        c->ndefs = rd_n(r);
        c->defs = ARENA_ARRAY(a, Define, c->ndefs + 1);
        for (int j = 0; j < c->ndefs && !r->bad; j++) {
            c->defs[j].name = blob_read_str(r);
            c->defs[j].value = blob_read_str(r);
            if (!c->defs[j].name || !c->defs[j].value)
                r->bad = true;
        }
        if (!c->label)
            r->bad = true;
    }
    if (!(d->nospec = blob_read_str(r)))
        r->bad = true;
    return !r->bad && r->p == r->end;
}

/* Key and reset parameters by index; false when the names do not match the parameters. */
static bool desc_index(Arena *a, TuneDesc *d)
{
    /* The parameters a call's facts are about: runtime/api/spec.c's rule, the first 32 integer
     * parameters that @no_specialize does not name. */
    d->spec_idx = ARENA_ARRAY(a, int, d->nparams + 1);
    d->nspec = 0;
    for (int j = 0; j < d->nparams && d->nspec < 32; j++) {
        const rk_param *p = &d->params[j];
        rk_dtype t = p->dtype;
        if (p->kind != RK_PARAM_SCALAR || t == RK_BOOL || t == RK_F16 || t == RK_BF16 || t == RK_F32 || t == RK_F64)
            continue;
        size_t pl = strlen(p->name);
        const char *hit = d->nospec ? d->nospec : "";
        bool skip = false;
        while (!skip && (hit = strstr(hit, p->name))) {
            skip = (hit == d->nospec || hit[-1] == ' ') && (hit[pl] == 0 || hit[pl] == ' ');
            hit += pl;
        }
        if (!skip)
            d->spec_idx[d->nspec++] = j;
    }
    d->ptr_idx = ARENA_ARRAY(a, int, d->nparams + 1);
    d->nptr = 0;
    for (int j = 0; j < d->nparams && d->nptr < 32; j++)
        if (d->params[j].kind == RK_PARAM_POINTER && !rt_spec_named(d->nospec, d->params[j].name))
            d->ptr_idx[d->nptr++] = j;
    d->key_idx = ARENA_ARRAY(a, int, d->nkey + 1);
    d->reset_idx = ARENA_ARRAY(a, int, d->nreset + 1);
    return tune_param_indices(d->params, d->nparams, d->key, d->nkey, d->key_idx) &&
           tune_param_indices(d->params, d->nparams, d->reset, d->nreset, d->reset_idx);
}

/* The description from a compile to tile IR. */
static void desc_from_meta(Arena *a, const KernelMeta *m, const SrcMgr *src, TuneDesc *d)
{
    memset(d, 0, sizeof *d);
    CacheDep *deps = compile_deps(a, src, &d->ndeps);
    d->deps = ARENA_ARRAY(a, CacheDep, d->ndeps + 1);
    for (int i = 0; i < d->ndeps; i++)
        d->deps[i] = (CacheDep){arena_strdup(a, deps[i].path), deps[i].size, deps[i].hash};
    d->nparams = m->nparams;
    d->params = compile_params(a, m);
    d->has_autotune = m->has_autotune && m->ntune > 0;
    d->nkey = m->ntune_key;
    d->key = ARENA_ARRAY(a, const char *, d->nkey + 1);
    for (int i = 0; i < d->nkey; i++)
        d->key[i] = arena_strdup(a, m->tune_key[i]);
    d->nreset = m->ntune_reset;
    d->reset = ARENA_ARRAY(a, const char *, d->nreset + 1);
    for (int i = 0; i < d->nreset; i++)
        d->reset[i] = arena_strdup(a, m->tune_reset[i]);
    d->nconfigs = d->has_autotune ? m->ntune : 0;
    d->configs = ARENA_ARRAY(a, TuneConfig, d->nconfigs + 1);
    for (int i = 0; i < d->nconfigs; i++) {
        TuneConfig *c = &d->configs[i];
        c->defs = ARENA_ARRAY(a, Define, m->tune_configs[i].n + 1);
        compile_config_defines(a, &m->tune_configs[i], c->defs, &c->ndefs);
        for (int j = 0; j < c->ndefs; j++)
            c->defs[j] = (Define){arena_strdup(a, c->defs[j].name), arena_strdup(a, c->defs[j].value)};
        c->label = compile_config_text(a, &m->tune_configs[i]);
    }
    d->nospec = arena_strdup(a, compile_nospec(a, m));
}

/* The facts of a call as a signature (2 bits per parameter of d->spec_idx: 1 divisible by 16, 2 equal
 * to 1), as runtime/api/spec.c computes it at launch; and as text. */
static uint64_t call_sig(const TuneDesc *d, const rk_arg *args, int nargs)
{
    uint64_t sig = 0;
    if (nargs != d->nparams)
        return 0;
    for (int s = 0; s < d->nspec; s++) {
        const rk_arg *a = &args[d->spec_idx[s]];
        rk_dtype at = a->dtype;
        if (a->kind != RK_PARAM_SCALAR || at == RK_BOOL || at == RK_F16 || at == RK_BF16 || at == RK_F32 || at == RK_F64)
            continue;
        int64_t v = at == RK_I8 || at == RK_I16 || at == RK_I32 || at == RK_I64 ? a->v.i : (int64_t)a->v.u;
        sig |= (uint64_t)(v == 1 ? 2 : v % 16 == 0 ? 1 : 0) << (2 * s);
    }
    return sig;
}

/* The pointers' facts of a call (bit s: ptr_idx[s]<2G), on a target with buffer addressing. */
static uint32_t call_psig(const rk_ctx *ctx, const TuneDesc *d, const rk_arg *args, int nargs)
{
    uint32_t psig = 0;
    for (int s = 0; nargs == d->nparams && s < d->nptr; s++) {
        const rk_arg *a = &args[d->ptr_idx[s]];
        if (a->kind == RK_PARAM_POINTER && rt_range32_holds(ctx, a->v.ptr))
            psig |= 1u << s;
    }
    return psig;
}

/* Both as text, in the parameters' order (as runtime/api/spec.c spells a launch's). */
static void sig_text(const TuneDesc *d, uint64_t sig, uint32_t psig, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int s = 0, q = 0; (s < d->nspec || q < d->nptr) && len < n;) {
        if (s == d->nspec || (q < d->nptr && d->ptr_idx[q] < d->spec_idx[s])) {
            if (psig >> q & 1)
                len += (size_t)snprintf(buf + len, n - len, "%s%s<2G", len ? " " : "", d->params[d->ptr_idx[q]].name);
            q++;
            continue;
        }
        unsigned bits = (unsigned)(sig >> (2 * s)) & 3;
        if (bits)
            len += (size_t)snprintf(buf + len, n - len, "%s%s%s", len ? " " : "", d->params[d->spec_idx[s]].name,
                                    bits == 2 ? "==1" : "%16==0");
        s++;
    }
}

/* State of one description lookup, in a block from the hook (compile.c says why): everything that
 * changes after the recovery point lives here. */
typedef struct DescJob {
    jmp_buf oom;
    Arena ca;      /* the compile */
    Arena *owner;  /* the description's own arena, for the memory */
    void *data;    /* a cache entry being read */
    size_t size;
    Blob b;        /* a cache entry being written */
} DescJob;

static rk_status desc_compile(rk_ctx *ctx, const CompileSetup *cs, DescJob *j, TuneDesc *d)
{
    CompileSession *cx = compile_session(&j->ca, ctx, cs, NULL, 0, false);
    rt_ctx_stats(ctx)->compiles++;
    bool ok = compile_session_run(cx, &j->ca, ctx, STAGE_TIR, cs->filename);
    const Diags *diags = &cx->diags;
    const DriverResult *r = &cx->r;
    rt_diags_oom(ctx, &j->oom);
    rt_set_diags(ctx, diags->items, diags->n);
    rt_diags_oom(ctx, NULL);
    const KernelMeta *m = NULL;
    for (int i = 0; ok && i < r->sema.nkernels; i++)
        if (strcmp(r->sema.kernels[i].name, cs->kernel) == 0)
            m = &r->sema.kernels[i];
    if (!ok || diags->nerrors || !m) {
        rk_status st = compile_failed(ctx, diags);
        for (int i = 0; i < diags->n; i++)
            if (diags->items[i].sev == DIAG_ERROR && strncmp(diags->items[i].msg, "no kernel named", 15) == 0)
                st = rt_fail(ctx, RK_ENOTFOUND, "%s", diags->items[i].msg);
        return st;
    }
    desc_from_meta(j->owner, m, &cx->src, d);
    return RK_OK;
}

/* Finds or makes the description (get_desc's body, inside its recovery point). */
static rk_status desc_find(rk_ctx *ctx, const CompileSetup *cs, const HashKey *kd, DescJob *j, TuneDesc *d)
{
    rk_status st = rt_cache_get_raw(ctx, "meta", kd, &j->data, &j->size);
    if (st)
        return st;
    bool found = false;
    if (j->data) {
        BlobReader r = {j->data, (const unsigned char *)j->data + j->size, j->owner, false};
        found = desc_read(&r, d) && record_deps_current(d->deps, d->ndeps);
        if (found)
            rt_ctx_stats(ctx)->cache_hits++;
        else
            rt_ctx_stats(ctx)->cache_misses++;
    }
    if (!found) {
        if ((st = desc_compile(ctx, cs, j, d)))
            return st;
        blob_init(&j->b, *rt_ctx_allocator(ctx));
        desc_write(&j->b, d);
        if (j->b.oom)
            return rt_fail(ctx, RK_ENOMEM, "out of memory");
        rt_cache_put_raw(ctx, "meta", kd, j->b.p, j->b.n);
    }
    if (!desc_index(j->owner, d))
        return rt_fail(ctx, RK_EINTERNAL, "internal error: the @autotune key or reset of %s names no parameter",
                       cs->kernel);
    return RK_OK;
}

/* The description of cs->kernel from the cache or a compile to tile IR, then remembered in the
 * context under `material` (kd is its SHA-256). */
static rk_status get_desc(rk_ctx *ctx, const CompileSetup *cs, const HashKey *kd, const void *material, size_t n,
                          TuneDesc **out)
{
    DescJob *j = arena_alloc_raw(rt_ctx_allocator(ctx), sizeof *j);
    Arena *owner = arena_alloc_raw(rt_ctx_allocator(ctx), sizeof *owner);
    if (!j || !owner) {
        arena_free_raw(rt_ctx_allocator(ctx), j, sizeof *j);
        arena_free_raw(rt_ctx_allocator(ctx), owner, sizeof *owner);
        return rt_fail(ctx, RK_ENOMEM, "out of memory");
    }
    memset(j, 0, sizeof *j);
    arena_init(owner, *rt_ctx_allocator(ctx));
    arena_init(&j->ca, *rt_ctx_allocator(ctx));
    blob_init(&j->b, *rt_ctx_allocator(ctx));
    j->owner = owner;
    rk_status st;
    TuneDesc *d = NULL;
    if (setjmp(j->oom)) {
        rt_diags_oom(ctx, NULL);
        st = rt_fail(ctx, RK_ENOMEM, "out of memory");
    } else {
        owner->oom = &j->oom;
        j->ca.oom = &j->oom;
        d = ARENA_NEW(owner, TuneDesc);
        st = desc_find(ctx, cs, kd, j, d);
    }
    owner->oom = NULL;
    j->ca.oom = NULL;
    if (!st) {
        d->kd = *kd;
        if (!tune_memo_set(ctx, material, n, d, owner))
            st = rt_fail(ctx, RK_ENOMEM, "out of memory");
    }
    if (!st) {
        *out = d;
    } else {
        arena_free(owner);
        arena_free_raw(rt_ctx_allocator(ctx), owner, sizeof *owner);
    }
    if (j->data)
        arena_free_raw(rt_ctx_allocator(ctx), j->data, j->size ? j->size : 1);
    blob_free(&j->b);
    arena_free(&j->ca);
    arena_free_raw(rt_ctx_allocator(ctx), j, sizeof *j);
    return st;
}

/* ---- tuning ---- */

typedef struct Tuning {
    rk_ctx *ctx;
    const CompileSetup *cs;
    const TuneDesc *d;
    const char *key_text;
    const HashKey *kt;
    const rk_arg *args;
    int nargs;
    Arena a;          /* this tuning's scratch */
    jmp_buf oom;
    VariantSet vs;
    rk_program **progs; /* one per code object, for timing */
    int nprogs;
} Tuning;

static void compile_progress(void *ud, int lowered, int generated, int total)
{
    Tuning *t = ud;
    rt_log(t->ctx, RK_LOG_PROGRESS, "autotuning %s: compiling %d configs on %d threads: %d lowered, %d generated",
           t->cs->kernel, total, t->vs.threads, lowered, generated);
}

static int count_state(const VariantSet *vs, VariantState s)
{
    int n = 0;
    for (int i = 0; i < vs->n; i++)
        n += vs->v[i].state == s;
    return n;
}

/* Drops configs that spill when some config does not (AMDGPU code objects only report spills). */
static void prune_spills(VariantSet *vs)
{
    bool clean = false;
    for (int i = 0; i < vs->n; i++)
        clean |= vs->v[i].state == VAR_OK && vs->v[i].vgpr_spills == 0 && vs->v[i].sgpr_spills == 0;
    for (int i = 0; clean && i < vs->n; i++)
        if (vs->v[i].state == VAR_OK && (vs->v[i].vgpr_spills > 0 || vs->v[i].sgpr_spills > 0))
            vs->v[i].state = VAR_PRUNED_SPILL;
}

static int lds_limit(rk_ctx *ctx, const char *target)
{
    const Target *t = target_find(target);
    int lim = t ? t->lds_bytes : 65536;
    if (rt_ctx_device(ctx)->lds_bytes > 0 && rt_ctx_device(ctx)->lds_bytes < lim) /* 0 without a device */
        lim = rt_ctx_device(ctx)->lds_bytes;
    return lim;
}

/* Compiles the space, times it, stores and returns the winner. */
static rk_status tune(Tuning *t, rk_kernel **best)
{
    rk_ctx *ctx = t->ctx;
    const TuneDesc *d = t->d;
    Arena *a = &t->a;
    double t0 = rt_ctx_profile(ctx) ? prof_now_us() : 0;
    VariantSet *vs = &t->vs;
    vs->cs = t->cs;
    vs->n = d->nconfigs;
    vs->v = ARENA_ARRAY(a, Variant, vs->n + 1);
    for (int i = 0; i < vs->n; i++)
        vs->v[i] = (Variant){.kernel = t->cs->kernel, .index = i, .defs = d->configs[i].defs,
                             .ndefs = d->configs[i].ndefs, .label = d->configs[i].label};
    int threads = rt_compile_settings(ctx)->compile_threads;
    int cores = threads > 0 ? threads : variants_cores();
    vs->threads = cores;
    /* Two groups per worker: each pays one ld.lld (about 30 ms of a process start), and the workers
     * still balance their load (taking groups in turn) and report progress in steps. */
    vs->group_max = (vs->n + 2 * cores - 1) / (2 * cores);
    vs->lds_limit = lds_limit(ctx, t->cs->target);
    vs->on_progress = compile_progress;
    vs->progress_ud = t;
    vs->out = a;
    rk_status st = variants_build(ctx, vs);
    rt_ctx_stats(ctx)->compiles += (uint64_t)vs->compiles;
    if (st)
        return st;
    prune_spills(vs);
    int nok = count_state(vs, VAR_OK);
    int pruned = count_state(vs, VAR_PRUNED_LDS) + count_state(vs, VAR_PRUNED_SPILL);
    for (int i = 0; i < vs->n; i++)
        if (vs->v[i].state == VAR_FAILED)
            rt_log(ctx, RK_LOG_NOTE, "autotuning %s: config %s does not compile and is skipped: %s", t->cs->kernel,
                   vs->v[i].label, vs->v[i].why);
    if (nok == 0) {
        for (int i = 0; i < vs->n; i++)
            if (vs->v[i].state == VAR_FAILED) {
                rt_diags_oom(ctx, &t->oom);
                rt_set_diags(ctx, vs->v[i].diags, vs->v[i].ndiags); /* the first failing config's */
                rt_diags_oom(ctx, NULL);
                return rt_fail(ctx, vs->v[i].st, "autotuning %s: no config compiles; config %s: %s", t->cs->kernel,
                               vs->v[i].label, vs->v[i].why);
            }
        return rt_fail(ctx, RK_ECOMPILE, "autotuning %s: every config was pruned (LDS over %d bytes, or spills)",
                       t->cs->kernel, vs->lds_limit);
    }
    double t1 = rt_ctx_profile(ctx) ? prof_now_us() : 0;
    /* A program per code object, holding its variants; candidates in the order of the space. */
    t->progs = ARENA_ARRAY(a, rk_program *, vs->nbins + 1);
    rk_program **of_group = ARENA_ARRAY(a, rk_program *, vs->nbins + 1);
    rk_kernel **cands = ARENA_ARRAY(a, rk_kernel *, nok);
    const char **labels = ARENA_ARRAY(a, const char *, nok);
    int *which = ARENA_ARRAY(a, int, nok);
    RtKernelDesc *descs = ARENA_ARRAY(a, RtKernelDesc, vs->n + 1);
    for (int g = 0; g < vs->nbins; g++) {
        int nk = 0;
        for (int i = 0; i < vs->n; i++)
            if (vs->v[i].state == VAR_OK && vs->v[i].group == g)
                descs[nk++] = vs->v[i].desc;
        if (nk && (st = rt_program_new(ctx, t->cs->target, vs->bins[g], vs->sizes[g], descs, nk, &of_group[g])))
            return st;
        if (nk)
            t->progs[t->nprogs++] = of_group[g];
    }
    int nc = 0;
    for (int i = 0; i < vs->n; i++)
        if (vs->v[i].state == VAR_OK) {
            rk_program_kernel(of_group[vs->v[i].group], vs->v[i].symbol, &cands[nc]);
            labels[nc] = vs->v[i].label;
            which[nc++] = i;
        }
    double tb0 = prof_now_us();
    double *ms = ARENA_ARRAY(a, double, nc);
    TuneJob job = {t->cs->kernel, t->key_text, cands, labels, nc, NULL, t->args, t->nargs, d->reset_idx, d->nreset};
    int win;
    st = tune_time(ctx, &job, ms, &win);
    double t2 = prof_now_us();
    rt_ctx_stats(ctx)->tunings++;
    rt_ctx_stats(ctx)->last_tune_compile_ms = vs->ms_wall;
    rt_ctx_stats(ctx)->last_tune_bench_ms = (t2 - tb0) / 1e3;
    rt_ctx_stats(ctx)->last_tune_configs = vs->n;
    rt_ctx_stats(ctx)->last_tune_pruned = pruned;
    if (st)
        return st;
    const Variant *v = &vs->v[which[win]];
    /* The winner on disk: the code object holding it, its description under the kernel's own name. */
    RtKernelDesc wd = v->desc;
    wd.name = t->cs->kernel;
    ProgRecord rec = {0};
    rec.deps = d->deps;
    rec.ndeps = d->ndeps;
    rec.target = t->cs->target;
    rec.binary = vs->bins[v->group];
    rec.size = vs->sizes[v->group];
    rec.kernels = &wd;
    rec.nkernels = 1;
    rec.best_ms = ms[win];
    if ((st = rt_cache_store(ctx, "tune", t->kt, &rec)))
        return st;
    rk_program *p;
    if ((st = rt_program_new(ctx, t->cs->target, rec.binary, rec.size, &wd, 1, &p)))
        return st;
    *best = only_kernel(p);
    if (rt_compile_settings(ctx)->print_autotuning) {
        /* where the winner stands: its work for these arguments against the device's peaks */
        char roof[256] = "";
        rk_work w;
        const rk_peaks *pk;
        bool est = false;
        rk_roofline r;
        if (rk_kernel_work(*best, NULL, job.args, job.nargs, &w) == RK_OK &&
            rk_device_peaks(ctx, t->cs->target, &pk, &est) == RK_OK && rk_roofline_of(pk, &w, ms[win], &r) == RK_OK)
            snprintf(roof, sizeof roof, "; %.6f TFLOP/s, %.3f GB/s, %.4f%% of the %s roofline bound%s", r.flops_per_s / 1e12,
                     r.bytes_per_s / 1e9, 100 * r.fraction, pk->name, est ? " (an estimate)" : "");
        rt_clear(ctx);
        rt_log(ctx, RK_LOG_AUTOTUNE,
               "autotune %s [%s]: best %s: %.4f ms; %d configs, %d pruned, %d failed; compiled in %.0f ms, timed in "
               "%.0f ms%s",
               t->cs->kernel, t->key_text, v->label, ms[win], vs->n, pruned, count_state(vs, VAR_FAILED), vs->ms_wall,
               rt_ctx_stats(ctx)->last_tune_bench_ms, roof);
    }
    if (rt_ctx_profile(ctx)) {
        char args[512], cfg[400];
        prof_escape(cfg, sizeof cfg, v->label);
        snprintf(args, sizeof args, "{\"configs\": %d, \"pruned\": %d, \"best\": \"%s\", \"best_ms\": %.6f}", vs->n,
                 pruned, cfg, ms[win]);
        prof_span(rt_ctx_profile(ctx), "tune", "compile configs", t0, t1 - t0, args);
        prof_span(rt_ctx_profile(ctx), "tune", "time configs", t1, t2 - t1, args);
    }
    return RK_OK;
}

/* Runs tune() with its scratch, then frees everything but the winner. */
static rk_status tune_space(rk_ctx *ctx, const CompileSetup *cs, const TuneDesc *d, const char *key_text,
                            const HashKey *kt, const rk_arg *args, int nargs, rk_kernel **best)
{
    Tuning *t = arena_alloc_raw(rt_ctx_allocator(ctx), sizeof *t);
    if (!t)
        return rt_fail(ctx, RK_ENOMEM, "out of memory");
    memset(t, 0, sizeof *t);
    *t = (Tuning){.ctx = ctx, .cs = cs, .d = d, .key_text = key_text, .kt = kt, .args = args, .nargs = nargs};
    arena_init(&t->a, *rt_ctx_allocator(ctx));
    rk_status st;
    if (setjmp(t->oom)) {
        rt_diags_oom(ctx, NULL);
        rt_set_diags(ctx, NULL, 0);
        st = rt_fail(ctx, RK_ENOMEM, "out of memory autotuning %s", cs->kernel);
    } else {
        t->a.oom = &t->oom;
        st = tune(t, best);
    }
    for (int i = 0; i < t->nprogs; i++)
        rk_program_destroy(t->progs[i]);
    variants_free(&t->vs);
    t->a.oom = NULL;
    arena_free(&t->a);
    arena_free_raw(rt_ctx_allocator(ctx), t, sizeof *t);
    return st;
}

/* ---- the entry points ---- */

static rk_status winner(rk_ctx *ctx, const char *source, size_t length, const char *kernel_name, const rk_arg *args,
                        int nargs, const rk_compile_options *o, const CompileSetup *cs, const TuneDesc *d,
                        const char *key_text, const Blob *m, rk_kernel **best, bool *tuned);

/* rk_autotune's work; *desc is the kernel's description and *tuned whether configs were timed now. */
static rk_status autotune(rk_ctx *ctx, const char *source, size_t length, const char *kernel_name,
                          const rk_arg *args, int nargs, const rk_compile_options *options, rk_kernel **best,
                          const TuneDesc **desc, bool *tuned)
{
    *tuned = false;
    if (!kernel_name)
        return rt_fail(ctx, RK_EINVAL, "kernel_name is NULL");
    rk_status st = rt_need_device(ctx);
    if (st)
        return st;
    rk_compile_options o;
    memset(&o, 0, sizeof o);
    if (options)
        o = *options;
    o.kernel = kernel_name;
    CompileSetup cs;
    if ((st = compile_setup(ctx, source, length, &o, &cs)))
        return st;
    if (strcmp(cs.target, rt_ctx_device(ctx)->target) != 0)
        return rt_fail(ctx, RK_EINVAL, "autotuning runs the configs on the device: target %s does not run on %s (%s)",
                       cs.target, rt_ctx_device(ctx)->kind, rt_ctx_device(ctx)->target);
    /* The description: by the compile's inputs in memory (as bytes: no SHA-256 on this path, which
     * rk_run takes on every call), else by their SHA-256 on disk. */
    Blob m;
    blob_init(&m, *rt_ctx_allocator(ctx));
    compile_key_material(&m, "meta", &cs);
    TuneDesc *d = m.oom ? NULL : tune_memo_get(ctx, m.p, m.n);
    if (!d && !m.oom) {
        Sha256 s;
        hash_sha256_init(&s);
        hash_sha256_update(&s, m.p, m.n);
        HashKey kd = hash_key_final(&s);
        st = get_desc(ctx, &cs, &kd, m.p, m.n, &d);
    }
    st = m.oom ? rt_fail(ctx, RK_ENOMEM, "out of memory") : st;
    blob_free(&m);
    if (st)
        return st;
    *desc = d;
    char key_text[2048];
    if ((st = tune_key_text(ctx, kernel_name, d->params, d->nparams, d->key_idx, d->nkey, args, nargs, key_text,
                            sizeof key_text)))
        return st;
    /* The configs are compiled (and timed) for the facts of this call, as a launch would specialise them;
     * the winner is remembered by them too. Facts the caller gave (options->assume) are used as given. */
    CompileSetup base = cs;
    bool specializes = !cs.assume && !rt_compile_settings(ctx)->no_specialize && compile_specializes(cs.target);
    uint64_t sig = specializes ? call_sig(d, args, nargs) : 0;
    const Target *tg = target_find(cs.target);
    uint32_t psig = specializes && tg && tg->buffer_range32 ? call_psig(ctx, d, args, nargs) : 0;
    /* The winner: by the description's key, the device and the key values. */
    blob_init(&m, *rt_ctx_allocator(ctx));
    blob_bytes(&m, d->kd.b, 32);
    blob_str(&m, d->has_autotune ? "tune" : "default");
    blob_str(&m, rt_ctx_device(ctx)->kind);
    blob_str(&m, rt_ctx_device(ctx)->name);
    blob_str(&m, rt_ctx_device(ctx)->arch);
    blob_str(&m, key_text);
    blob_u64(&m, sig); /* not psig: the pointers' facts do not change which config wins; a launch of
                          the winner with other pointers compiles its own variant */
    if (m.oom) {
        blob_free(&m);
        return rt_fail(ctx, RK_ENOMEM, "out of memory");
    }
    if ((*best = tune_memo_get(ctx, m.p, m.n))) {
        blob_free(&m);
        return RK_OK;
    }
    char facts[2048];
    sig_text(d, sig, psig, facts, sizeof facts);
    if (*facts)
        o.assume = cs.assume = facts;
    st = winner(ctx, source, length, kernel_name, args, nargs, &o, &cs, d, key_text, &m, best, tuned);
    blob_free(&m);
    if (!st) /* later launches with other facts compile their own variant of the winner's config */
        compile_spec_attach(rk_kernel_program(*best), &base);
    return st;
}

/* A winner not in the context's memory: the defaults of a kernel without @autotune, the cache, or a
 * tuning; then remembered under m. */
static rk_status winner(rk_ctx *ctx, const char *source, size_t length, const char *kernel_name, const rk_arg *args,
                        int nargs, const rk_compile_options *o, const CompileSetup *csp, const TuneDesc *d,
                        const char *key_text, const Blob *m, rk_kernel **best, bool *tuned)
{
    CompileSetup cs = *csp;
    rk_status st;
    Sha256 s;
    hash_sha256_init(&s);
    hash_sha256_update(&s, m->p, m->n);
    HashKey kt = hash_key_final(&s);
    rk_program *p = NULL;
    bool interp = target_is_interp(cs.target);
    if (d->has_autotune && interp)
        rt_log(ctx, RK_LOG_NOTE, "autotuning %s: the interpreter's timings say nothing about a GPU: running the "
                                 "defaults", kernel_name);
    if (!d->has_autotune || interp) {
        /* Nothing to tune (or no meaningful timing): the defaults, through the compile cache. */
        if ((st = rk_compile(ctx, source, length, o, &p)))
            return st;
        *best = only_kernel(p);
    } else {
        if ((st = rt_cache_load(ctx, "tune", &kt, &p, NULL)))
            return st;
        rk_kernel_info info;
        if (rk_program_kernel_count(p) == 1 && rk_kernel_get_info(only_kernel(p), &info) == RK_OK &&
            strcmp(info.name, kernel_name) == 0) {
            *best = only_kernel(p);
        } else {
            rk_program_destroy(p);
            if ((st = tune_space(ctx, &cs, d, key_text, &kt, args, nargs, best)))
                return st;
            *tuned = true;
        }
    }
    if (!tune_memo_set(ctx, m->p, m->n, *best, NULL)) {
        rk_program_destroy(rk_kernel_program(*best));
        *best = NULL;
        return rt_fail(ctx, RK_ENOMEM, "out of memory");
    }
    return RK_OK;
}

rk_status rk_autotune(rk_ctx *ctx, const char *source, size_t length, const char *kernel_name, const rk_arg *args,
                      int nargs, const rk_compile_options *options, rk_kernel **best)
{
    if (!ctx)
        return RK_EINVAL;
    RT_ENTER(ctx);
    if (!best)
        return rt_fail(ctx, RK_EINVAL, "rk_autotune: best is NULL");
    *best = NULL;
    const TuneDesc *d;
    bool tuned;
    rk_status st = autotune(ctx, source, length, kernel_name, args, nargs, options, best, &d, &tuned);
    if (!st)
        rt_clear(ctx);
    return st;
}

rk_status rk_run(rk_ctx *ctx, const char *source, size_t length, const char *kernel_name, const uint32_t *grid,
                 const rk_arg *args, int nargs, const rk_compile_options *options, rk_stream *stream)
{
    if (!ctx)
        return RK_EINVAL;
    RT_ENTER(ctx);
    rk_kernel *k = NULL;
    const TuneDesc *d = NULL;
    bool tuned;
    rk_status st = autotune(ctx, source, length, kernel_name, args, nargs, options, &k, &d, &tuned);
    if (!st && tuned)
        st = tune_reset(ctx, args, nargs, d->reset_idx, d->nreset);
    if (st)
        return st;
    return rk_launch(k, grid, args, nargs, stream);
}
