/* rk_compile_bundle (and so `rkc --all-configs`): every config of every kernel in one code object, and
 * its manifest (runtime/bundle/bundle.c describes the format and reads it back).
 *
 * The kernels and their @autotune spaces come from one compile to tile IR; each (kernel, config) is a
 * variant compiled by variants.c with link_all: for AMDGPU all variants are linked into one LLVM
 * module (a code object has one metadata note, so one object), for emu the workers' objects are
 * linked by one ld.lld into one shared object. A kernel without @autotune has one variant, its
 * defaults. Variants pruned for LDS or failing to compile are left out with a note in the log; a
 * kernel none of whose variants compiles is an error. Both files are written to temporary names and
 * renamed, the manifest last, so a reader never pairs a new binary with an old manifest for long:
 * and rk_bundle_load checks the binary's size and hash against the manifest anyway. */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compiler/api/variants.h"
#include "compiler/target/target.h"
#include "runtime/profile/profile.h"
#include "support/files.h"
#include "support/strbuf.h"
#include "support/facts.h"
#include "runtime/version.h"

typedef struct BKernelInfo BKernelInfo;

/* One bundle's state, in a block from the hook (compile.c says why). */
typedef struct BundleJob {
    jmp_buf oom;
    Arena a;
    VariantSet vs;
    BKernelInfo *ks;
    int nk;
} BundleJob;

/* ---- the manifest ---- */

static void put_str(StrBuf *o, const char *s)
{
    if (!s) {
        strbuf_str(o, "null");
        return;
    }
    strbuf_str(o, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            strbuf_put(o, e, 2);
        } else if (c == '\n') {
            strbuf_str(o, "\\n");
        } else if (c == '\t') {
            strbuf_str(o, "\\t");
        } else if (c < 0x20) {
            strbuf_printf(o, "\\u%04x", c);
        } else {
            strbuf_put(o, (const char *)&c, 1);
        }
    }
    strbuf_str(o, "\"");
}

/* A config value: a JSON number or bool when it is one, else a string (types such as f16). */
static void put_value(StrBuf *o, const char *v)
{
    char *end;
    if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0) {
        strbuf_str(o, v);
        return;
    }
    long long i = strtoll(v, &end, 10);
    if (*v && !*end) {
        strbuf_printf(o, "%lld", i);
        return;
    }
    put_str(o, v);
}

static void put_names(StrBuf *o, const char *const *names, int n)
{
    strbuf_str(o, "[");
    for (int i = 0; i < n; i++) {
        strbuf_str(o, i ? ", " : "");
        put_str(o, names[i]);
    }
    strbuf_str(o, "]");
}

static void put_variant(StrBuf *o, const Variant *v, bool first)
{
    const RtKernelDesc *d = &v->desc;
    strbuf_str(o, first ? "\n        {" : ",\n        {");
    strbuf_str(o, "\"symbol\": ");
    put_str(o, v->symbol);
    strbuf_str(o, ", \"config\": {");
    for (int i = 0; i < v->ndefs; i++) {
        strbuf_str(o, i ? ", " : "");
        put_str(o, v->defs[i].name);
        strbuf_str(o, ": ");
        put_value(o, v->defs[i].value);
    }
    strbuf_str(o, "}, \"config_text\": ");
    put_str(o, v->label);
    strbuf_str(o, ",\n         \"params\": [");
    for (int i = 0; i < d->nparams; i++) {
        strbuf_str(o, i ? ", " : "");
        strbuf_str(o, "{\"name\": ");
        put_str(o, d->params[i].name);
        strbuf_printf(o, ", \"kind\": \"%s\", \"dtype\": \"%s\"}", d->params[i].kind == RK_PARAM_POINTER ? "pointer" : "scalar",
             rk_dtype_name(d->params[i].dtype));
    }
    strbuf_printf(o, "],\n         \"num_warps\": %d, \"block\": %d, \"lds_bytes\": %d, \"vgpr_spills\": %d, \"sgpr_spills\": %d, "
            "\"scratch_bytes\": %d,\n         \"grid\": ",
         d->num_warps, d->block, d->lds_bytes, v->vgpr_spills, v->sgpr_spills, v->scratch_bytes);
    put_str(o, d->grid_tir);
    if (d->facts && *d->facts) { /* compiled with --assume: a launch must satisfy them */
        strbuf_str(o, ",\n         \"facts\": ");
        put_str(o, d->facts);
    }
    if (d->work) {
        strbuf_str(o, ",\n         \"work\": ");
        put_str(o, d->work);
    }
    if (d->nospec && *d->nospec) {
        strbuf_str(o, ", \"no_specialize\": ");
        put_str(o, d->nospec);
    }
    if (d->tma) { /* only sm_90 TMA kernels have one: other manifests stay as they were */
        strbuf_str(o, ",\n         \"tma\": ");
        put_str(o, d->tma);
    }
    strbuf_str(o, "}");
}

/* ---- the kernels and their configs ---- */

struct BKernelInfo {
    const char *name;
    const char **key, **reset;
    int nkey, nreset;
    int first, n; /* its variants in the set */
};

/* The facts of one specialisation that name kernel m's parameters, after the compile's own (NULL when
 * it names none of them: the plain variants are that kernel's). */
static const char *spec_facts(Arena *a, const CompileSetup *cs, const KernelMeta *m, const char *text)
{
    char why[256];
    int n = facts_parse(text, NULL, 0, why, sizeof why);
    if (n <= 0)
        return NULL;
    Fact *fs = ARENA_ARRAY(a, Fact, n + 1);
    facts_parse(text, fs, n, why, sizeof why);
    const char *out = NULL;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m->nparams; j++)
            if (facts_is(&fs[i], m->params[j].name)) {
                char buf[300];
                out = arena_printf(a, "%s%s%s", out ? out : "", out ? " " : "",
                                   facts_spell(buf, sizeof buf, fs[i].name, fs[i].namelen, fs[i].kind, fs[i].n));
            }
    return !out ? NULL : cs->assume ? arena_printf(a, "%s %s", cs->assume, out) : out;
}

/* Kernels and variants from a compile to tile IR. */
static rk_status plan(rk_ctx *ctx, const CompileSetup *cs, Arena *a, VariantSet *vs, BKernelInfo **ks, int *nk)
{
    CompileSession *cx = compile_session(a, ctx, cs, NULL, 0, false);
    rt_ctx_stats(ctx)->compiles++;
    bool ok = compile_session_run(cx, a, ctx, STAGE_TIR, NULL);
    const Diags *diags = &cx->diags;
    const DriverResult *r = &cx->r;
    rt_set_diags(ctx, diags->items, diags->n);
    if (!ok || diags->nerrors)
        return compile_failed(ctx, diags);
    const SemaResult *sr = &r->sema;
    int total = 0;
    for (int i = 0; i < sr->nkernels; i++)
        total += (sr->kernels[i].has_autotune && sr->kernels[i].ntune ? sr->kernels[i].ntune : 1) *
                 (1 + cs->nspecialize);
    *ks = ARENA_ARRAY(a, BKernelInfo, sr->nkernels + 1);
    *nk = sr->nkernels;
    vs->v = ARENA_ARRAY(a, Variant, total + 1);
    vs->n = 0;
    for (int i = 0; i < sr->nkernels; i++) {
        const KernelMeta *m = &sr->kernels[i];
        BKernelInfo *k = &(*ks)[i];
        k->name = m->name;
        k->key = m->tune_key;
        k->nkey = m->ntune_key;
        k->reset = m->tune_reset;
        k->nreset = m->ntune_reset;
        k->first = vs->n;
        int nc = m->has_autotune && m->ntune ? m->ntune : 1;
        /* every config, plain (spec 0) and for each set of facts that names this kernel's parameters */
        for (int s = 0; s <= cs->nspecialize; s++) {
            const char *assume = NULL;
            if (s > 0 && !(assume = spec_facts(a, cs, m, cs->specialize[s - 1])))
                continue;
            for (int c = 0; c < nc; c++) {
                Variant *v = &vs->v[vs->n++];
                *v = (Variant){.kernel = m->name, .index = c, .label = "", .assume = assume, .spec = s};
                if (m->has_autotune && m->ntune) {
                    v->defs = ARENA_ARRAY(a, Define, m->tune_configs[c].n + 1);
                    compile_config_defines(a, &m->tune_configs[c], (Define *)v->defs, &v->ndefs);
                    v->label = compile_config_text(a, &m->tune_configs[c]);
                }
            }
        }
        k->n = vs->n - k->first;
    }
    return RK_OK;
}

/* ---- files ---- */

/* Through rt_out: a device node given as the output (-o /dev/null) is written in place, never
 * replaced by a regular file; a failed write leaves no partial file. */
static rk_status write_whole(rk_ctx *ctx, const char *path, const void *data, size_t size)
{
    int e = rt_write_file(path, data, size);
    if (e)
        return rt_fail(ctx, RK_EIO, "cannot write %s: %s", path, strerror(e));
    return RK_OK;
}

static const char *basename_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static rk_status build(rk_ctx *ctx, BundleJob *j, const CompileSetup *cs, const char *path)
{
    Arena *a = &j->a;
    VariantSet *vs = &j->vs;
    rk_status st = plan(ctx, cs, a, vs, &j->ks, &j->nk);
    if (st)
        return st;
    const BKernelInfo *ks = j->ks;
    int nk = j->nk;
    const Target *tg = target_find(cs->target);
    vs->cs = cs;
    int threads = rt_compile_settings(ctx)->compile_threads;
    vs->threads = threads > 0 ? threads : variants_cores();
    vs->group_max = 0;
    vs->link_all = true;
    vs->lds_limit = tg ? tg->lds_bytes : 65536;
    vs->out = a;
    if ((st = variants_build(ctx, vs)))
        return st;
    rt_ctx_stats(ctx)->compiles += (uint64_t)vs->compiles;
    for (int i = 0; i < vs->n; i++) {
        const Variant *v = &vs->v[i];
        if (v->state == VAR_PRUNED_LDS)
            rt_log(ctx, RK_LOG_NOTE, "%s config %s needs %d bytes of LDS, over %d: left out", v->kernel, v->label,
                   v->desc.lds_bytes, vs->lds_limit);
        else if (v->state == VAR_FAILED)
            rt_log(ctx, RK_LOG_NOTE, "%s config %s does not compile and is left out: %s", v->kernel, v->label, v->why);
    }
    for (int k = 0; k < nk; k++) {
        int ok = 0;
        const Variant *fail = NULL;
        for (int i = ks[k].first; i < ks[k].first + ks[k].n; i++) {
            ok += vs->v[i].state == VAR_OK;
            if (vs->v[i].state == VAR_FAILED && !fail)
                fail = &vs->v[i];
        }
        if (!ok && fail)
            rt_set_diags(ctx, fail->diags, fail->ndiags); /* the first failing config's */
        if (!ok)
            return rt_fail(ctx, fail ? fail->st : RK_ECOMPILE, "kernel %s: no config compiles%s%s", ks[k].name,
                           fail ? ": " : " (all need too much LDS)", fail ? fail->why : "");
    }
    if (nk == 0)
        return rt_fail(ctx, RK_EINVAL, "the source has no kernel: a bundle needs one");
    if (vs->nbins != 1)
        return rt_fail(ctx, RK_EINTERNAL, "internal error: the bundle came out as %d code objects", vs->nbins);
    StrBuf o;
    strbuf_init(&o, a);
    strbuf_str(&o, "{\"format\": \"rk-bundle\", \"version\": 1, \"rk_version\": ");
    put_str(&o, rt_version());
    strbuf_str(&o, ", \"target\": ");
    put_str(&o, cs->target);
    strbuf_str(&o, ",\n \"binary\": ");
    put_str(&o, basename_of(path));
    strbuf_printf(&o, ", \"binary_size\": %zu, \"binary_hash\": \"%016llx\",\n \"source\": ", vs->sizes[0],
         (unsigned long long)hash_fast64(vs->bins[0], vs->sizes[0], vs->sizes[0]));
    put_str(&o, cs->filename);
    strbuf_str(&o, ",\n \"kernels\": [");
    for (int k = 0; k < nk; k++) {
        strbuf_str(&o, k ? ",\n  {\"name\": " : "\n  {\"name\": ");
        put_str(&o, ks[k].name);
        strbuf_str(&o, ", \"key\": ");
        put_names(&o, ks[k].key, ks[k].nkey);
        strbuf_str(&o, ", \"reset\": ");
        put_names(&o, ks[k].reset, ks[k].nreset);
        strbuf_str(&o, ",\n   \"variants\": [");
        bool first = true;
        for (int i = ks[k].first; i < ks[k].first + ks[k].n; i++)
            if (vs->v[i].state == VAR_OK) {
                put_variant(&o, &vs->v[i], first);
                first = false;
            }
        strbuf_str(&o, "]}");
    }
    strbuf_str(&o, "]}\n");
    if ((st = write_whole(ctx, path, vs->bins[0], vs->sizes[0])))
        return st;
    return write_whole(ctx, arena_printf(a, "%s.json", path), o.p, o.n);
}

rk_status rk_compile_bundle(rk_ctx *ctx, const char *source, size_t length, const rk_compile_options *options,
                            const char *path)
{
    if (!ctx)
        return RK_EINVAL;
    RT_ENTER(ctx);
    if (!path)
        return rt_fail(ctx, RK_EINVAL, "rk_compile_bundle: path is NULL");
    rk_compile_options none;
    memset(&none, 0, sizeof none);
    CompileSetup cs;
    rk_status st = compile_setup(ctx, source, length, options ? options : &none, &cs);
    if (st)
        return st;
    if (target_is_interp(cs.target))
        return rt_fail(ctx, RK_EUNSUPPORTED, "bundles hold code objects: target interp has none");
    for (int i = 0; i < cs.nspecialize; i++) {
        char why[256];
        if (facts_parse(cs.specialize[i], NULL, 0, why, sizeof why) <= 0)
            return rt_fail(ctx, RK_EINVAL, "specialisation '%s': %s", cs.specialize[i],
                           facts_parse(cs.specialize[i], NULL, 0, why, sizeof why) < 0 ? why : "no facts");
    }
    BundleJob *j = arena_alloc_raw(rt_ctx_allocator(ctx), sizeof *j);
    if (!j)
        return rt_fail(ctx, RK_ENOMEM, "out of memory");
    memset(j, 0, sizeof *j);
    arena_init(&j->a, *rt_ctx_allocator(ctx));
    if (setjmp(j->oom)) {
        rt_diags_oom(ctx, NULL);
        rt_set_diags(ctx, NULL, 0); /* frees what a partial copy left */
        st = rt_fail(ctx, RK_ENOMEM, "out of memory compiling the bundle");
    } else {
        j->a.oom = &j->oom;
        rt_diags_oom(ctx, &j->oom);
        st = build(ctx, j, &cs, path);
        rt_diags_oom(ctx, NULL);
    }
    variants_free(&j->vs);
    j->a.oom = NULL;
    arena_free(&j->a);
    arena_free_raw(rt_ctx_allocator(ctx), j, sizeof *j);
    return st;
}
