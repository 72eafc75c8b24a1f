/* The compiler half of rk.h: rk_compile, on top of driver_compile.
 *
 * One compile is one arena from the context's allocator hook, freed before returning; what outlives it
 * (the code object, the kernels' descriptions, the diagnostics) is copied into the program's arena and
 * the context's diagnostics arena. The arena, and its recovery point, live in a block from the hook
 * rather than on the stack: C leaves automatic objects changed between setjmp and longjmp
 * indeterminate, and the arena changes with every allocation. */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "compiler/driver/driver.h"
#include "runtime/api/api_internal.h"

_Static_assert(RK_BOOL == (int)SK_BOOL && RK_I8 == (int)SK_I8 && RK_I64 == (int)SK_I64 && RK_U8 == (int)SK_U8 &&
                   RK_U64 == (int)SK_U64 && RK_F16 == (int)SK_F16 && RK_BF16 == (int)SK_BF16 &&
                   RK_F32 == (int)SK_F32 && RK_F64 == (int)SK_F64,
               "rk_dtype follows the compiler's ScalarKind");

#ifndef RK_DEFAULT_STDLIB
#define RK_DEFAULT_STDLIB NULL
#endif

static const char *const known_targets[] = {"gfx942", "gfx90a", "gfx950", "emu", "interp", "sm_90"};

bool rt_compiler_emits(const char *target)
{
    return driver_stage_available(target, STAGE_BIN);
}

/* One compile's state, in a block from the hook (see above). */
typedef struct Job {
    Arena a;
    jmp_buf oom;
    rk_ctx *ctx;
    const char *source;
    size_t length;
    const rk_compile_options *o;
    const char *target;
    rk_program **program;
} Job;

static bool has_internal_error(const Diags *d)
{
    for (int i = 0; i < d->n; i++)
        if (d->items[i].sev == DIAG_ERROR && strncmp(d->items[i].msg, "internal error", 14) == 0)
            return true;
    return false;
}

static rk_status compile_failed(rk_ctx *ctx, const Diags *diags)
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

/* The kernels' descriptions for the runtime, from the driver's result (in the compile arena). */
static RtKernelDesc *describe(Arena *a, const DriverResult *r)
{
    RtKernelDesc *ks = ARENA_ARRAY(a, RtKernelDesc, r->nkernels + 1);
    for (int i = 0; i < r->nkernels; i++) {
        const DriverKernel *dk = &r->kernels[i];
        const KernelMeta *m = dk->meta;
        rk_param *ps = ARENA_ARRAY(a, rk_param, m->nparams + 1);
        for (int j = 0; j < m->nparams; j++) {
            const Type *t = m->params[j].type;
            bool ptr = m->params[j].kind == PARAM_POINTER;
            const Type *s = ptr && t->kind == TY_PTR ? t->pointee : t;
            ps[j] = (rk_param){m->params[j].name, ptr ? RK_PARAM_POINTER : RK_PARAM_SCALAR, (rk_dtype)s->sk};
        }
        ks[i] = (RtKernelDesc){m->name, dk->symbol, ps, m->nparams, m->opts.num_warps, dk->block, dk->lds_bytes,
                               dk->grid_tir};
    }
    return ks;
}

/* The compile proper. Only `job` is used after the recovery point, and it never changes. */
static rk_status run_job(Job *job)
{
    rk_ctx *ctx = job->ctx;
    const rk_compile_options *o = job->o;
    arena_init(&job->a, ctx->alloc);
    if (setjmp(job->oom)) {
        job->ctx->diag_arena.oom = NULL;
        rt_set_diags(job->ctx, NULL, 0); /* frees what a partial copy left */
        arena_free(&job->a);
        return rt_fail(job->ctx, RK_ENOMEM, "out of memory compiling %s",
                       job->o->filename ? job->o->filename : "<source>");
    }
    Arena *a = &job->a;
    a->oom = &job->oom;
    rt_set_diags(ctx, NULL, 0);
    SrcMgr *src = ARENA_NEW(a, SrcMgr);
    src_init(src, a);
    Diags *diags = ARENA_NEW(a, Diags);
    diags_init(diags, a, src);
    StrTab *strs = ARENA_NEW(a, StrTab);
    strtab_init(strs, a);
    Define *defs = ARENA_ARRAY(a, Define, o->ndefines + 1);
    for (int i = 0; i < o->ndefines; i++)
        defs[i] = (Define){o->defines[i].name, o->defines[i].value};
    DriverOptions d = {0};
    d.filename = o->filename ? o->filename : "<source>";
    d.source = job->source;
    d.len = job->length;
    d.target = job->target;
    d.defines = defs;
    d.ndefines = o->ndefines;
    d.incdirs = o->include_dirs;
    d.nincdirs = o->ninclude_dirs;
    d.stdlib_dir = ctx->stdlib_dir ? ctx->stdlib_dir : RK_DEFAULT_STDLIB;
    d.kernel = o->kernel;
    d.opt_level = o->opt_level == RK_OPT_O0 ? 0 : o->opt_level == 0 ? 3 : o->opt_level;
    d.dump_ir = ctx->dump_ir;
    d.dump_dir = ctx->dump_dir;
    d.dump_sink = ctx->dump;
    d.dump_ud = ctx->dump_ud;
    DriverResult *r = ARENA_NEW(a, DriverResult);
    bool ok = driver_compile(a, strs, src, diags, &d, STAGE_BIN, r);
    ctx->diag_arena.oom = &job->oom;
    rt_set_diags(ctx, diags->items, diags->n);
    ctx->diag_arena.oom = NULL;
    rk_status st;
    if (!ok || diags->nerrors) {
        st = compile_failed(ctx, diags);
    } else {
        RtKernelDesc *ks = describe(a, r);
        st = rt_program_new(ctx, job->target, r->binary, r->size, ks, r->nkernels, job->program);
    }
    a->oom = NULL;
    arena_free(a);
    return st;
}

rk_status rk_compile(rk_ctx *ctx, const char *source, size_t length, const rk_compile_options *options,
                     rk_program **program)
{
    if (!ctx)
        return RK_EINVAL;
    rt_clear(ctx);
    if (!program)
        return rt_fail(ctx, RK_EINVAL, "rk_compile: program is NULL");
    *program = NULL;
    if (!source && length)
        return rt_fail(ctx, RK_EINVAL, "rk_compile: source is NULL");
    rk_compile_options none;
    memset(&none, 0, sizeof none);
    const rk_compile_options *o = options ? options : &none;
    if ((o->ndefines && !o->defines) || (o->ninclude_dirs && !o->include_dirs) || o->ndefines < 0 ||
        o->ninclude_dirs < 0)
        return rt_fail(ctx, RK_EINVAL, "rk_compile: a count is set without its array");
    if (o->opt_level < RK_OPT_O0 || o->opt_level > 3)
        return rt_fail(ctx, RK_EINVAL, "rk_compile: opt_level %d is not RK_OPT_O0, 0 (default) or 1..3", o->opt_level);
    for (int i = 0; i < o->ndefines; i++)
        if (!o->defines[i].name || !o->defines[i].value)
            return rt_fail(ctx, RK_EINVAL, "rk_compile: define %d has no name or value", i);
    const char *target = o->target ? o->target : ctx->dev ? ctx->dev->props.target : "gfx942";
    bool known = false;
    for (size_t i = 0; i < sizeof known_targets / sizeof known_targets[0]; i++)
        known |= strcmp(target, known_targets[i]) == 0;
    if (!known)
        return rt_fail(ctx, RK_EINVAL, "unknown target '%s'; known targets: gfx942, gfx90a, gfx950, emu, interp, sm_90",
                       target);
    if (!driver_stage_available(target, STAGE_BIN))
        return rt_fail(ctx, RK_EUNSUPPORTED, "code generation for target %s is not built yet", target);

    Job *job = alloc_raw(&ctx->alloc, sizeof *job);
    if (!job)
        return rt_fail(ctx, RK_ENOMEM, "out of memory");
    memset(job, 0, sizeof *job);
    *job = (Job){.ctx = ctx, .source = source ? source : "", .length = length, .o = o, .target = target,
                 .program = program};
    rk_status st = run_job(job);
    free_raw(&ctx->alloc, job, sizeof *job);
    return st;
}
