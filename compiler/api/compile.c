/* The compiler half of rk.h: rk_compile, on top of driver_compile and the compile cache, and the pieces
 * rk_autotune and rk_compile_bundle share with it (compile_internal.h).
 *
 * One compile is one arena from the context's allocator hook, freed before returning; what outlives it
 * (the code object, the kernels' descriptions, the diagnostics) is copied into the program's arena and
 * the context's diagnostics arena. The arena, and its recovery point, live in a block from the hook
 * rather than on the stack: C leaves automatic objects changed between setjmp and longjmp
 * indeterminate, and the arena changes with every allocation.
 *
 * The cache (runtime/cache): the key is the SHA-256 of every input of the compile (source, file name,
 * target, kernel, defines, import folders, stdlib folder, optimisation level, and the environment
 * variables that change the code: code_env) with rk's version and its build (the size and time of the binary holding the compiler, so that a rebuilt rk never reuses an
 * entry of the old one); the entry records the imports' contents, and a changed import makes it stale.
 * A hit builds the program from the entry and replays the compile's diagnostics (warnings). IR dumps
 * bypass the cache, since a hit would produce none. */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compiler/target/target.h"
#include "compiler/api/compile_internal.h"
#include "runtime/cache/progcache.h"
#include "runtime/profile/profile.h"
#include "runtime/version.h"

_Static_assert(RK_BOOL == (int)SK_BOOL && RK_I8 == (int)SK_I8 && RK_I64 == (int)SK_I64 && RK_U8 == (int)SK_U8 &&
                   RK_U64 == (int)SK_U64 && RK_F16 == (int)SK_F16 && RK_BF16 == (int)SK_BF16 &&
                   RK_F32 == (int)SK_F32 && RK_F64 == (int)SK_F64,
               "rk_dtype follows the compiler's ScalarKind");

#ifndef RK_DEFAULT_STDLIB
#define RK_DEFAULT_STDLIB NULL
#endif

/* ---- the build and the stdlib, found once per process ---- */

static pthread_once_t build_once = PTHREAD_ONCE_INIT;
static char build_id[PATH_MAX + 64];
static char installed_stdlib[PATH_MAX + 32];

/* The binary holding this code (librk.so, or a program linking the static library): its identity for
 * cache keys, and <prefix>/share/rk/stdlib next to an installed librk. */
static void find_build(void)
{
    Dl_info info;
    struct stat st;
    if (dladdr((void *)&rk_compile, &info) && info.dli_fname && stat(info.dli_fname, &st) == 0) {
        snprintf(build_id, sizeof build_id, "%s %lld %lld.%09ld %llu", info.dli_fname, (long long)st.st_size,
                 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (unsigned long long)st.st_ino);
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", info.dli_fname);
        char *slash = strrchr(dir, '/');
        if (slash) {
            *slash = 0;
            /* <prefix>/lib/librk.so or <prefix>/lib/<multiarch>/librk.so */
            snprintf(installed_stdlib, sizeof installed_stdlib, "%s/../share/rk/stdlib", dir);
            if (access(installed_stdlib, R_OK) != 0)
                snprintf(installed_stdlib, sizeof installed_stdlib, "%s/../../share/rk/stdlib", dir);
            if (access(installed_stdlib, R_OK) != 0)
                installed_stdlib[0] = 0;
        }
    } else {
        snprintf(build_id, sizeof build_id, "unknown build %s %s", __DATE__, __TIME__);
    }
}

/* ---- options ---- */

rk_status compile_setup(rk_ctx *ctx, const char *source, size_t length, const rk_compile_options *o,
                        CompileSetup *cs)
{
    pthread_once(&build_once, find_build);
    if (!source && length)
        return rt_fail(ctx, RK_EINVAL, "source is NULL");
    if ((o->ndefines && !o->defines) || (o->ninclude_dirs && !o->include_dirs) || o->ndefines < 0 ||
        o->ninclude_dirs < 0)
        return rt_fail(ctx, RK_EINVAL, "compile options: a count is set without its array");
    if (o->opt_level < RK_OPT_O0 || o->opt_level > 3)
        return rt_fail(ctx, RK_EINVAL, "compile options: opt_level %d is not RK_OPT_O0, 0 (default) or 1..3",
                       o->opt_level);
    for (int i = 0; i < o->ndefines; i++)
        if (!o->defines[i].name || !o->defines[i].value)
            return rt_fail(ctx, RK_EINVAL, "compile options: define %d has no name or value", i);
    for (int i = 0; i < o->ninclude_dirs; i++)
        if (!o->include_dirs[i])
            return rt_fail(ctx, RK_EINVAL, "compile options: include folder %d is NULL", i);
    if (o->nspecialize < 0 || (o->nspecialize && !o->specialize))
        return rt_fail(ctx, RK_EINVAL, "compile options: a count is set without its array");
    for (int i = 0; i < o->nspecialize; i++)
        if (!o->specialize[i])
            return rt_fail(ctx, RK_EINVAL, "compile options: specialisation %d is NULL", i);
    const RtCompileSettings *set = rt_compile_settings(ctx);
    const char *dev_target = rt_ctx_device(ctx)->target; /* NULL without a device */
    const char *target = o->target ? o->target : dev_target ? dev_target : "gfx942";
    if (!target_known(target))
        return rt_fail(ctx, RK_EINVAL, "unknown target '%s'; known targets: %s, interp", target, target_names());
    if (!driver_stage_available(target, STAGE_BIN))
        return rt_fail(ctx, RK_EUNSUPPORTED, "code generation for target %s is not built yet", target);
    *cs = (CompileSetup){.filename = o->filename ? o->filename : "<source>",
                         .source = source ? source : "",
                         .length = length,
                         .target = target,
                         .defines = o->defines,
                         .ndefines = o->ndefines,
                         .incdirs = o->include_dirs,
                         .nincdirs = o->ninclude_dirs,
                         .kernel = o->kernel,
                         .opt_level = o->opt_level == RK_OPT_O0 ? 0 : o->opt_level == 0 ? 3 : o->opt_level,
                         .assume = o->assume && *o->assume ? o->assume : NULL,
                         .confine_imports = set->confine_imports || o->confine_imports > 0,
                         .specialize = o->specialize,
                         .nspecialize = o->nspecialize,
                         .stdlib_dir = set->stdlib_dir         ? set->stdlib_dir
                                       : installed_stdlib[0] ? installed_stdlib
                                                             : RK_DEFAULT_STDLIB};
    return RK_OK;
}

/* The fields of a key go either into a SHA-256 (disk keys) or into bytes (the context's memory). */
typedef struct KeySink {
    Sha256 *s;
    Blob *b;
} KeySink;

static void sink_bytes(KeySink *k, const void *p, size_t n)
{
    if (k->s)
        hash_key_bytes(k->s, p, n);
    else
        blob_bytes(k->b, p, n);
}

static void sink_str(KeySink *k, const char *str)
{
    if (k->s)
        hash_key_str(k->s, str);
    else
        blob_str(k->b, str);
}

static void sink_u64(KeySink *k, uint64_t v)
{
    if (k->s)
        hash_key_u64(k->s, v);
    else
        blob_u64(k->b, v);
}

/* The environment variables the compiler reads that change the code it emits (codegen.c: LLVM's
 * options, pipeline and code generator level; lower_tma.c and dot_choice.c: the sm_90 A/B knobs), so
 * that an entry compiled under one setting is never handed back under another. */
static const char *const code_env[] = {"RK_LLVM_ARGS", "RK_LLVM_PASSES", "RK_LLVM_CODEGEN_OPT", "RK_NO_TMA",
                                       "RK_NO_WGMMA"};

static void key_fields(KeySink *k, const char *kind, const CompileSetup *cs)
{
    sink_str(k, "rk cache key 1");
    sink_str(k, kind);
    sink_str(k, rt_version());
    sink_str(k, build_id);
    sink_bytes(k, cs->source, cs->length);
    sink_str(k, cs->filename);
    sink_str(k, cs->target);
    sink_str(k, cs->kernel);
    sink_u64(k, (uint64_t)cs->opt_level);
    sink_u64(k, (uint64_t)cs->ndefines);
    for (int i = 0; i < cs->ndefines; i++) {
        sink_str(k, cs->defines[i].name);
        sink_str(k, cs->defines[i].value);
    }
    sink_u64(k, (uint64_t)cs->nincdirs);
    for (int i = 0; i < cs->nincdirs; i++)
        sink_str(k, cs->incdirs[i]);
    sink_str(k, cs->stdlib_dir);
    sink_str(k, cs->assume);
    sink_u64(k, cs->confine_imports); /* a confined compile never reuses an unconfined one's imports */
    for (size_t i = 0; i < sizeof code_env / sizeof code_env[0]; i++)
        sink_str(k, getenv(code_env[i]));
}

void compile_key_begin(Sha256 *s, const char *kind, const CompileSetup *cs)
{
    hash_sha256_init(s);
    KeySink k = {s, NULL};
    key_fields(&k, kind, cs);
}

void compile_key_material(Blob *b, const char *kind, const CompileSetup *cs)
{
    KeySink k = {NULL, b};
    key_fields(&k, kind, cs);
}

/* The defines of cs as the driver's, followed by room for `extra` more (n set to cs->ndefines). */
static Define *compile_defines(Arena *a, const CompileSetup *cs, int extra, int *n)
{
    Define *defs = ARENA_ARRAY(a, Define, cs->ndefines + extra + 1);
    for (int i = 0; i < cs->ndefines; i++)
        defs[i] = (Define){cs->defines[i].name, cs->defines[i].value};
    *n = cs->ndefines;
    return defs;
}

/* Driver options for cs and its defines. Dumps go to the context's sink only when `dumps`. */
static void compile_driver_options(DriverOptions *d, rk_ctx *ctx, const CompileSetup *cs, const Define *defs,
                                   int ndefs, bool dumps)
{
    memset(d, 0, sizeof *d);
    d->filename = cs->filename;
    d->source = cs->source;
    d->len = cs->length;
    d->target = cs->target;
    d->defines = defs;
    d->ndefines = ndefs;
    d->incdirs = cs->incdirs;
    d->nincdirs = cs->nincdirs;
    d->stdlib_dir = cs->stdlib_dir;
    d->kernel = cs->kernel;
    d->opt_level = cs->opt_level;
    d->assume = cs->assume;
    d->confine_imports = cs->confine_imports;
    if (dumps) {
        const RtCompileSettings *set = rt_compile_settings(ctx);
        d->dump_ir = set->dump_ir;
        d->dump_dir = set->dump_dir;
        d->dump_sink = set->dump;
        d->dump_ud = set->dump_ud;
    }
}

bool compile_dumps_wanted(const rk_ctx *ctx)
{
    const char *d = rt_compile_settings(ctx)->dump_ir;
    return d && *d && strcmp(d, "0") != 0;
}

/* ---- what a compile produced ---- */

CacheDep *compile_deps(Arena *a, const SrcMgr *src, int *n)
{
    CacheDep *deps = ARENA_ARRAY(a, CacheDep, src->nfiles + 1);
    *n = 0;
    for (int i = 2; i < src->nfiles; i++) { /* files[0]: no file; files[1]: the source itself */
        const SrcFile *f = src->files[i];
        Sha256 s;
        hash_sha256_init(&s);
        hash_sha256_update(&s, f->text, f->len);
        deps[(*n)++] = (CacheDep){f->name, f->len, hash_key_final(&s)};
    }
    return deps;
}

rk_param *compile_params(Arena *a, const KernelMeta *m)
{
    rk_param *ps = ARENA_ARRAY(a, rk_param, m->nparams + 1);
    for (int j = 0; j < m->nparams; j++) {
        const Type *t = m->params[j].type;
        bool ptr = m->params[j].kind == PARAM_POINTER;
        const Type *s = ptr && t->kind == TY_PTR ? t->pointee : t;
        ps[j] = (rk_param){arena_strdup(a, m->params[j].name), ptr ? RK_PARAM_POINTER : RK_PARAM_SCALAR,
                           (rk_dtype)s->sk};
    }
    return ps;
}

const char *compile_nospec(Arena *a, const KernelMeta *m)
{
    const char *nospec = "";
    for (int j = 0; j < m->nparams; j++)
        if (m->params[j].no_specialize)
            nospec = arena_printf(a, "%s%s%s", nospec, *nospec ? " " : "", m->params[j].name);
    return nospec;
}

RtKernelDesc *compile_describe(Arena *a, const DriverResult *r)
{
    RtKernelDesc *ks = ARENA_ARRAY(a, RtKernelDesc, r->nkernels + 1);
    for (int i = 0; i < r->nkernels; i++) {
        const DriverKernel *dk = &r->kernels[i];
        const KernelMeta *m = dk->meta;
        const char *nospec = compile_nospec(a, m);
        ks[i] = (RtKernelDesc){m->name,      dk->symbol,   compile_params(a, m), m->nparams, m->opts.num_warps,
                               dk->block,    dk->lds_bytes, dk->grid_tir,        NULL,
                               dk->tma,      m->facts,      nospec,              dk->work};
    }
    return ks;
}

static const char *cval_text(Arena *a, const CVal *v)
{
    switch (v->kind) {
    case CV_INT:
        return arena_printf(a, "%lld", (long long)v->i);
    case CV_FLOAT:
        return arena_printf(a, "%.17g", v->f);
    case CV_BOOL:
        return v->i ? "true" : "false";
    default: {
        const Type *t = v->type;
        int ptrs = 0;
        while (t && t->kind == TY_PTR)
            t = t->pointee, ptrs++;
        return arena_printf(a, "%.*s%s", ptrs, "********", t ? sk_name(t->sk) : "?");
    }
    }
}

const char *compile_config_text(Arena *a, const Config *c)
{
    const char *s = "";
    for (int i = 0; i < c->n; i++)
        s = arena_printf(a, "%s%s%s=%s", s, i ? " " : "", c->entries[i].name, cval_text(a, &c->entries[i].value));
    return s;
}

void compile_config_defines(Arena *a, const Config *c, Define *defs, int *n)
{
    for (int i = 0; i < c->n; i++)
        defs[(*n)++] = (Define){c->entries[i].name, cval_text(a, &c->entries[i].value)};
}

static bool has_internal_error(const Diags *d)
{
    for (int i = 0; i < d->n; i++)
        if (d->items[i].sev == DIAG_ERROR && strncmp(d->items[i].msg, "internal error", 14) == 0)
            return true;
    return false;
}

rk_status compile_failed(rk_ctx *ctx, const Diags *diags)
{
    const Diag *first = NULL;
    for (int i = 0; i < diags->n && !first; i++)
        if (diags->items[i].sev == DIAG_ERROR)
            first = &diags->items[i];
    rk_status st = has_internal_error(diags) ? RK_EINTERNAL : RK_ECOMPILE;
    if (!first)
        return rt_fail(ctx, st, "compilation failed");
    char more[64] = "";
    if (diags->nerrors > 1)
        snprintf(more, sizeof more, " (and %d more error%s)", diags->nerrors - 1, diags->nerrors > 2 ? "s" : "");
    if (first->file)
        return rt_fail(ctx, st, "%s:%d:%d: error: %s%s", first->file, first->line, first->col, first->msg, more);
    return rt_fail(ctx, st, "error: %s%s", first->msg, more);
}

/* Records a compile's stages in the trace: spans from t0_us, one per stage the result timed. */
static void compile_profile(rk_ctx *ctx, const char *name, double t0, const DriverResult *r)
{
    if (!rt_ctx_profile(ctx))
        return;
    const char *names[] = {"front end + sema", "passes", "lower to LLVM IR", "LLVM optimisation", "code generation",
                           "link"};
    double ms[] = {r->ms_front + r->ms_sema, r->ms_passes, r->ms_lower, r->ms_opt, r->ms_codegen, r->ms_link};
    double t = t0;
    char args[512], ename[400];
    prof_escape(ename, sizeof ename, name);
    for (int i = 0; i < 6; i++) {
        if (ms[i] <= 0)
            continue;
        snprintf(args, sizeof args, "{\"of\": \"%s\"}", ename);
        prof_span(rt_ctx_profile(ctx), "compile", names[i], t, ms[i] * 1e3, args);
        t += ms[i] * 1e3;
    }
}

/* ---- a compile session ---- */

CompileSession *compile_session(Arena *a, rk_ctx *ctx, const CompileSetup *cs, const Define *extra, int nextra,
                                bool dumps)
{
    CompileSession *s = ARENA_NEW(a, CompileSession);
    src_init(&s->src, a);
    diags_init(&s->diags, a, &s->src);
    strtab_init(&s->strs, a);
    int nd;
    Define *defs = compile_defines(a, cs, nextra, &nd);
    for (int i = 0; i < nextra; i++)
        defs[nd++] = extra[i];
    compile_driver_options(&s->opts, ctx, cs, defs, nd, dumps);
    return s;
}

bool compile_session_run(CompileSession *s, Arena *a, rk_ctx *ctx, Stage stop, const char *trace_name)
{
    double t0 = trace_name && rt_ctx_profile(ctx) ? prof_now_us() : 0;
    bool ok = driver_compile(a, &s->strs, &s->src, &s->diags, &s->opts, stop, &s->r);
    if (trace_name)
        compile_profile(ctx, trace_name, t0, &s->r);
    return ok;
}

/* ---- rk_compile ---- */

/* One compile's state, in a block from the hook (see above). */
typedef struct Job {
    Arena a;
    jmp_buf oom;
    rk_ctx *ctx;
    const CompileSetup *cs;
    const HashKey *key; /* where to store the result, or NULL */
    rk_program **program;
} Job;

/* The compile proper. Only `job` is used after the recovery point, and it never changes. */
static rk_status run_job(Job *job)
{
    rk_ctx *ctx = job->ctx;
    const CompileSetup *cs = job->cs;
    arena_init(&job->a, *rt_ctx_allocator(ctx));
    if (setjmp(job->oom)) {
        rt_diags_oom(job->ctx, NULL);
        rt_set_diags(job->ctx, NULL, 0); /* frees what a partial copy left */
        arena_free(&job->a);
        return rt_fail(job->ctx, RK_ENOMEM, "out of memory compiling %s", job->cs->filename);
    }
    Arena *a = &job->a;
    a->oom = &job->oom;
    rt_set_diags(ctx, NULL, 0);
    CompileSession *cx = compile_session(a, ctx, cs, NULL, 0, true);
    rt_ctx_stats(ctx)->compiles++;
    bool ok = compile_session_run(cx, a, ctx, STAGE_BIN, cs->filename);
    const Diags *diags = &cx->diags;
    const DriverResult *r = &cx->r;
    rt_diags_oom(ctx, &job->oom);
    rt_set_diags(ctx, diags->items, diags->n);
    rt_diags_oom(ctx, NULL);
    rk_status st;
    if (!ok || diags->nerrors) {
        st = compile_failed(ctx, diags);
    } else {
        RtKernelDesc *ks = compile_describe(a, r);
        st = rt_program_new(ctx, cs->target, r->binary, r->size, ks, r->nkernels, job->program);
        if (!st && job->key) {
            ProgRecord rec = {0};
            rec.deps = compile_deps(a, &cx->src, &rec.ndeps);
            rec.target = cs->target;
            rec.binary = r->binary;
            rec.size = r->size;
            rec.kernels = ks;
            rec.nkernels = r->nkernels;
            rec.diags = diags->items;
            rec.ndiags = diags->n;
            if ((st = rt_cache_store(ctx, "compile", job->key, &rec))) {
                rk_program_destroy(*job->program);
                *job->program = NULL;
                rt_set_diags(ctx, NULL, 0);
            }
        }
    }
    a->oom = NULL;
    arena_free(a);
    return st;
}

/* rk_compile's work: a program for cs, from the cache or compiled. */
static rk_status compile_program(rk_ctx *ctx, const CompileSetup *csp, rk_program **program)
{
    CompileSetup cs = *csp;
    rk_status st;
    HashKey key;
    bool cached = rt_compile_settings(ctx)->cache_root && !compile_dumps_wanted(ctx);
    if (cached) {
        Sha256 s;
        compile_key_begin(&s, "compile", &cs);
        key = hash_key_final(&s);
        if ((st = rt_cache_load(ctx, "compile", &key, program, NULL)) || *program)
            return st;
    }
    Job *job = arena_alloc_raw(rt_ctx_allocator(ctx), sizeof *job);
    if (!job)
        return rt_fail(ctx, RK_ENOMEM, "out of memory");
    memset(job, 0, sizeof *job);
    job->ctx = ctx;
    job->cs = &cs;
    job->key = cached ? &key : NULL;
    job->program = program;
    st = run_job(job);
    arena_free_raw(rt_ctx_allocator(ctx), job, sizeof *job);
    return st;
}

rk_status rk_compile(rk_ctx *ctx, const char *source, size_t length, const rk_compile_options *options,
                     rk_program **program)
{
    if (!ctx)
        return RK_EINVAL;
    RT_ENTER(ctx);
    if (!program)
        return rt_fail(ctx, RK_EINVAL, "rk_compile: program is NULL");
    *program = NULL;
    rk_compile_options none;
    memset(&none, 0, sizeof none);
    CompileSetup cs;
    rk_status st = compile_setup(ctx, source, length, options ? options : &none, &cs);
    if (st || (st = compile_program(ctx, &cs, program)))
        return st;
    compile_spec_attach(*program, &cs);
    return RK_OK;
}

static rk_status compile_variant(rk_ctx *ctx, const RtSpecSrc *src, const char *name, const char *config,
                                 const char *facts, rk_program **out);

void compile_spec_attach(rk_program *p, const CompileSetup *cs)
{
    if (!p || cs->assume || !compile_specializes(cs->target))
        return;
    rk_compile_options o = {.filename = strcmp(cs->filename, "<source>") == 0 ? NULL : cs->filename,
                            .target = cs->target,
                            .defines = cs->defines,
                            .ndefines = cs->ndefines,
                            .include_dirs = cs->incdirs,
                            .ninclude_dirs = cs->nincdirs,
                            .opt_level = cs->opt_level == 0 ? RK_OPT_O0 : cs->opt_level,
                            .confine_imports = cs->confine_imports};
    const Target *t = target_find(cs->target);
    rt_spec_attach(p, cs->source, cs->length, &o, compile_variant, t && t->buffer_range32); /* out of memory: unspecialised */
}

bool compile_specializes(const char *target)
{
    return !target_is_interp(target); /* the interpreter gains nothing from facts */
}

/* A specialised variant of a kernel, compiled at its launch (runtime/api/spec.c calls it through the
 * program's RtSpecSrc). */
static rk_status compile_variant(rk_ctx *ctx, const RtSpecSrc *src, const char *name, const char *config,
                                 const char *facts, rk_program **out)
{
    *out = NULL;
    rk_compile_options o = src->opts;
    o.kernel = name;
    o.assume = facts;
    /* The autotune config as defines after the caller's ("BLOCK_M=128 num_warps=4"). */
    rk_define defs[320];
    char buf[2048];
    int n = 0;
    for (; n < o.ndefines && n < 256; n++)
        defs[n] = o.defines[n];
    snprintf(buf, sizeof buf, "%s", config ? config : "");
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok && n < 320; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = 0;
        defs[n++] = (rk_define){tok, eq + 1};
    }
    o.defines = defs;
    o.ndefines = n;
    CompileSetup cs;
    rk_status st = compile_setup(ctx, src->source, src->length, &o, &cs);
    return st ? st : compile_program(ctx, &cs, out);
}
