/* Specialisation at launch, as Triton's JIT does it: each integer argument divisible by 16 and each
 * integer equal to 1 is a fact of the call (a pointer is 16-byte aligned by the launch contract, so
 * the compiler assumes that always), and a kernel runs the variant compiled for its call's facts,
 * compiled on first use through the compile cache (whose key holds the facts).
 *
 * On targets with buffer addressing (AMD's and emu: Target.buffer_range32) a pointer argument that is
 * the base of an rk_malloc allocation of at most 2^31 bytes is the fact `NAME<2G` (support/facts.h:
 * every in-bounds access through it then lies in [NAME, NAME + 2^31)), read from the context's
 * allocation table.
 *
 * The facts of a call are its signature: 2 bits per integer parameter that is not @no_specialize (1:
 * divisible by 16, 2: equal to 1; at most 32 parameters, later ones are not specialised), and 1 bit
 * per such pointer parameter (<2G; at most 32). A kernel
 * keeps its variants by signature and the last launch's signature and variant, so a launch in a loop
 * pays a loop over those parameters and one compare. A variant is compiled with exactly the call's
 * facts (rk_compile_options.assume), so no launch ever runs code assuming more than its arguments
 * give. A kernel compiled with facts of its own (rkc --assume, a variant, a bundle's) checks them at
 * every launch and refuses arguments that break one, naming the parameter. */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "runtime/api/api_internal.h"
#include "support/facts.h"

typedef struct RtFactCheck {
    int param;
    FactKind kind;
    int64_t n;
} RtFactCheck;

typedef struct RtVariant {
    uint64_t sig;
    uint32_t psig;
    rk_kernel *k;     /* the variant's kernel, or the generic kernel when the variant failed to compile */
    rk_program *prog; /* the variant's program (owned), or NULL */
} RtVariant;

enum { SPEC_MAX_PARAMS = 32 };

/* An argument of k as laid out in its kernarg block: integers sign- or zero-extended, pointers as their
 * address. */
static int64_t arg_value(const rk_kernel *k, int j)
{
    const unsigned char *p = k->kernarg + k->offsets[j];
    if (k->params[j].kind == RK_PARAM_POINTER) {
        uint64_t u;
        memcpy(&u, p, 8);
        return (int64_t)u;
    }
    switch (k->params[j].dtype) {
    case RK_I8: {
        int8_t v;
        memcpy(&v, p, 1);
        return v;
    }
    case RK_U8:
        return p[0];
    case RK_I16: {
        int16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case RK_U16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case RK_I32: {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case RK_U32: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    default: {
        int64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

static bool is_int(rk_dtype t) { return t != RK_BOOL && t != RK_F16 && t != RK_BF16 && t != RK_F32 && t != RK_F64; }

bool rt_range32_holds(const rk_ctx *ctx, const void *p)
{
    const RtAlloc *al = p ? rt_alloc_find(ctx, p, 0) : NULL;
    return al && fact_range32_holds((uint64_t)(uintptr_t)p, al->base, al->bytes);
}

static bool range32_holds(const rk_ctx *ctx, int64_t p)
{
    return rt_range32_holds(ctx, (const void *)(uintptr_t)p);
}

bool rt_spec_named(const char *list, const char *name)
{
    for (const char *s = list ? list : ""; *s;) {
        while (*s == ' ')
            s++;
        const char *e = s;
        while (*e && *e != ' ')
            e++;
        if (e > s && (size_t)(e - s) == strlen(name) && strncmp(s, name, (size_t)(e - s)) == 0)
            return true;
        s = e;
    }
    return false;
}

static int param_named(const rk_kernel *k, const char *name, int len)
{
    for (int j = 0; j < k->nparams; j++)
        if ((int)strlen(k->params[j].name) == len && strncmp(k->params[j].name, name, (size_t)len) == 0)
            return j;
    return -1;
}

/* Called by build_kernel (program.c) with the description's facts and @no_specialize names. */
bool rt_spec_kernel_init(rk_ctx *ctx, Arena *a, rk_kernel *k, const char *facts, const char *nospec)
{
    char why[256];
    k->facts = arena_strdup(a, facts ? facts : "");
    int n = facts_parse(k->facts, NULL, 0, why, sizeof why);
    if (n < 0) {
        rt_fail(ctx, RK_EINTERNAL, "internal error: kernel %s: facts '%s': %s", k->name, k->facts, why);
        return false;
    }
    Fact *fs = ARENA_ARRAY(a, Fact, n + 1);
    facts_parse(k->facts, fs, n, why, sizeof why);
    k->checks = ARENA_ARRAY(a, RtFactCheck, n + 1);
    for (int i = 0; i < n; i++) {
        int j = param_named(k, fs[i].name, fs[i].namelen);
        if (j < 0) {
            rt_fail(ctx, RK_EINTERNAL, "internal error: kernel %s: fact '%s' names no parameter", k->name, k->facts);
            return false;
        }
        k->checks[k->nchecks++] = (RtFactCheck){j, fs[i].kind, fs[i].n};
    }
    k->spec_params = ARENA_ARRAY(a, int, k->nparams + 1);
    k->spec_ptrs = ARENA_ARRAY(a, int, k->nparams + 1);
    for (int j = 0; j < k->nparams; j++) {
        const rk_param *p = &k->params[j];
        bool ptr = p->kind == RK_PARAM_POINTER;
        if (ptr ? k->nspec_ptrs == SPEC_MAX_PARAMS
                : p->kind != RK_PARAM_SCALAR || !is_int(p->dtype) || k->nspec == SPEC_MAX_PARAMS)
            continue;
        if (rt_spec_named(nospec, p->name)) /* a space-separated list */
            continue;
        if (ptr)
            k->spec_ptrs[k->nspec_ptrs++] = j;
        else
            k->spec_params[k->nspec++] = j;
    }
    k->own_sig_ok = true;
    for (int i = 0; i < k->nchecks; i++) {
        const RtFactCheck *c = &k->checks[i];
        if (c->kind == FACT_RANGE32) {
            int s = 0;
            while (s < k->nspec_ptrs && k->spec_ptrs[s] != c->param)
                s++;
            if (s == k->nspec_ptrs)
                k->own_sig_ok = false;
            else
                k->own_psig |= 1u << s;
            continue;
        }
        int s = 0;
        while (s < k->nspec && k->spec_params[s] != c->param)
            s++;
        bool div16 = c->kind == FACT_DIV && c->n == 16, one = c->kind == FACT_EQ && c->n == 1;
        if (s == k->nspec || !(div16 || one))
            k->own_sig_ok = false;
        else
            k->own_sig |= (uint64_t)(one ? 2 : 1) << (2 * s);
    }
    return true;
}

const char *rt_spec_sig_text(const rk_kernel *k, uint64_t sig, uint32_t psig, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    /* in the parameters' order, as sema spells a kernel's facts */
    for (int s = 0, q = 0; (s < k->nspec || q < k->nspec_ptrs) && len < n;) {
        bool ptr = s == k->nspec || (q < k->nspec_ptrs && k->spec_ptrs[q] < k->spec_params[s]);
        if (ptr) {
            if (psig >> q & 1)
                len += (size_t)snprintf(buf + len, n - len, "%s%s<2G", len ? " " : "", k->params[k->spec_ptrs[q]].name);
            q++;
            continue;
        }
        unsigned bits = (unsigned)(sig >> (2 * s)) & 3;
        if (bits)
            len += (size_t)snprintf(buf + len, n - len, "%s%s%s", len ? " " : "", k->params[k->spec_params[s]].name,
                                    bits == 2 ? "==1" : "%16==0");
        s++;
    }
    return buf;
}

static rk_status check_facts(rk_kernel *k)
{
    for (int i = 0; i < k->nchecks; i++) {
        const RtFactCheck *c = &k->checks[i];
        int64_t v = arg_value(k, c->param);
        if (c->kind == FACT_RANGE32 ? range32_holds(k->prog->ctx, v) : fact_holds(c->kind, c->n, v))
            continue;
        const rk_param *p = &k->params[c->param];
        char fact[160], val[160];
        facts_spell(fact, sizeof fact, p->name, (int)strlen(p->name), c->kind, c->n);
        const RtAlloc *al = c->kind == FACT_RANGE32 && v ? rt_alloc_find(k->prog->ctx, (const void *)(uintptr_t)v, 0) : NULL;
        if (c->kind == FACT_RANGE32 && !al)
            snprintf(val, sizeof val, "pointer %p, in no allocation of this context", (void *)(uintptr_t)v);
        else if (al && (uint64_t)v != al->base)
            snprintf(val, sizeof val, "pointer %p, %llu bytes into its allocation (it must be the allocation's base)",
                     (void *)(uintptr_t)v, (unsigned long long)((uint64_t)v - al->base));
        else if (al)
            snprintf(val, sizeof val, "pointer %p to an allocation of %llu bytes (more than 2^31)", (void *)(uintptr_t)v,
                     (unsigned long long)al->bytes);
        else if (p->kind == RK_PARAM_POINTER)
            snprintf(val, sizeof val, "pointer %p", (void *)(uintptr_t)v);
        else if (p->dtype == RK_U64)
            snprintf(val, sizeof val, "%llu", (unsigned long long)v);
        else
            snprintf(val, sizeof val, "%lld", (long long)v);
        return rt_fail(k->prog->ctx, RK_EINVAL,
                       "kernel %s was compiled assuming %s, but argument %d '%s' is %s: the launch is refused",
                       k->name, fact, c->param + 1, p->name, val);
    }
    return RK_OK;
}

/* The variant of k for a signature: found, or compiled now. */
static rk_status variant_for(rk_kernel *k, uint64_t sig, uint32_t psig, rk_kernel **run)
{
    for (int i = 0; i < k->nvars; i++)
        if (k->vars[i].sig == sig && k->vars[i].psig == psig) {
            *run = k->vars[i].k;
            return RK_OK;
        }
    rk_ctx *ctx = k->prog->ctx;
    if (k->nvars == k->capvars) {
        int cap = k->capvars ? 2 * k->capvars : 4;
        RtVariant *v = arena_alloc_raw(&ctx->alloc, sizeof *v * (size_t)cap);
        if (!v)
            return rt_fail(ctx, RK_ENOMEM, "out of memory");
        if (k->nvars)
            memcpy(v, k->vars, sizeof *v * (size_t)k->nvars);
        arena_free_raw(&ctx->alloc, k->vars, sizeof *v * (size_t)k->capvars);
        k->vars = v;
        k->capvars = cap;
    }
    char facts[2048];
    rt_spec_sig_text(k, sig, psig, facts, sizeof facts);
    rk_program *vp = NULL;
    rk_status st = k->prog->spec->compile(ctx, k->prog->spec, k->name, k->config, facts, &vp);
    if (st == RK_ENOMEM)
        return st;
    rk_kernel *vk = NULL;
    for (int i = 0; !st && i < vp->nkernels && !vk; i++)
        if (strcmp(vp->kernels[i].name, k->name) == 0 && vp->kernels[i].kernarg_size == k->kernarg_size)
            vk = &vp->kernels[i];
    if (!vk && k->nchecks) { /* k's own code assumes facts these arguments break */
        rk_program_destroy(vp);
        return st ? st : rt_fail(ctx, RK_EINTERNAL, "internal error: the variant of %s for %s has no kernel %s",
                                 k->name, facts, k->name);
    }
    if (!vk) {
        /* The generic kernel is always right: run it, and say once why the variant is missing. */
        rt_log(ctx, RK_LOG_NOTE, "kernel %s: the variant for %s was not compiled (%s); the launch runs the generic "
               "kernel", k->name, facts, st ? rk_error(ctx) : "no such kernel");
        rk_program_destroy(vp);
        vp = NULL;
        vk = k;
        rt_clear(ctx);
    } else {
        rt_program_unlink(vp); /* owned by k from now on */
        vk->config = k->config[0] ? arena_strdup(&vp->arena, k->config) : vk->config; /* its autotune config */
        for (int i = 0; i < vk->nparams; i++)
            vk->argptrs[i] = vk->kernarg + vk->offsets[i];
    }
    k->vars[k->nvars++] = (RtVariant){sig, psig, vk, vp};
    *run = vk;
    return RK_OK;
}

rk_status rt_spec_select(rk_kernel *k, rk_kernel **run)
{
    *run = k;
    rk_status st;
    const RtSpecSrc *src = k->prog->spec;
    bool ptrs = src && src->range32 && k->nspec_ptrs;
    bool specializes = (k->nspec || ptrs) && src && k->own_sig_ok && !k->prog->ctx->settings.no_specialize;
    if (!specializes) {
        k->last_run = k;
        return k->nchecks ? check_facts(k) : RK_OK;
    }
    /* A kernel that specialises runs its own code only for its own signature, which implies its facts. */
    uint64_t sig = 0;
    for (int s = 0; s < k->nspec; s++) {
        int64_t v = arg_value(k, k->spec_params[s]);
        sig |= (uint64_t)(v == 1 ? 2 : v % 16 == 0 ? 1 : 0) << (2 * s);
    }
    uint32_t psig = 0;
    for (int s = 0; ptrs && s < k->nspec_ptrs; s++)
        psig |= (uint32_t)range32_holds(k->prog->ctx, arg_value(k, k->spec_ptrs[s])) << s;
    if (k->last_run && sig == k->last_sig && psig == k->last_psig) {
        *run = k->last_run;
    } else if ((sig != k->own_sig || psig != k->own_psig) && (st = variant_for(k, sig, psig, run))) {
        return st;
    }
    k->last_sig = sig;
    k->last_psig = psig;
    k->last_run = *run;
    if (*run != k)
        memcpy((*run)->kernarg, k->kernarg, k->kernarg_size);
    return RK_OK;
}

void rt_spec_free(rk_kernel *k)
{
    rk_ctx *ctx = k->prog->ctx;
    for (int i = 0; i < k->nvars; i++)
        rk_program_destroy(k->vars[i].prog);
    arena_free_raw(&ctx->alloc, k->vars, sizeof *k->vars * (size_t)k->capvars);
    k->vars = NULL;
    k->nvars = k->capvars = 0;
    k->last_run = NULL;
}

/* ---- how a program was compiled ---- */

bool rt_spec_attach(rk_program *p, const char *source, size_t length, const rk_compile_options *o,
                    RtCompileVariantFn compile, bool range32)
{
    rk_ctx *ctx = p->ctx;
    if (p->spec || ctx->settings.no_specialize || !compile || (o->assume && *o->assume))
        return true;
    bool any = false;
    for (int i = 0; i < p->nkernels; i++)
        any |= p->kernels[i].nspec > 0 || (range32 && p->kernels[i].nspec_ptrs > 0);
    if (!any)
        return true;
    Arena *a = &p->arena;
    jmp_buf oom, *saved = a->oom;
    if (setjmp(oom)) {
        a->oom = saved;
        return false;
    }
    a->oom = &oom;
    RtSpecSrc *s = ARENA_NEW(a, RtSpecSrc);
    char *src = arena_alloc(a, length + 1);
    if (length)
        memcpy(src, source, length);
    s->source = src;
    s->length = length;
    s->compile = compile;
    s->range32 = range32;
    s->opts = *o;
    s->opts.filename = o->filename ? arena_strdup(a, o->filename) : NULL;
    s->opts.target = p->target;
    s->opts.kernel = NULL;
    s->opts.assume = NULL;
    rk_define *defs = ARENA_ARRAY(a, rk_define, o->ndefines + 1);
    for (int i = 0; i < o->ndefines; i++)
        defs[i] = (rk_define){arena_strdup(a, o->defines[i].name), arena_strdup(a, o->defines[i].value)};
    s->opts.defines = defs;
    const char **dirs = ARENA_ARRAY(a, const char *, o->ninclude_dirs + 1);
    for (int i = 0; i < o->ninclude_dirs; i++)
        dirs[i] = arena_strdup(a, o->include_dirs[i]);
    s->opts.include_dirs = dirs;
    a->oom = saved;
    p->spec = s;
    return true;
}

int rt_spec_args_hold(const rk_kernel *k, const rk_arg *args, int nargs)
{
    if (!k->nchecks)
        return 0; /* nothing to check (a wrong argument count is the launch's to report) */
    if (nargs != k->nparams || !args)
        return -1;
    for (int i = 0; i < k->nchecks; i++) {
        const RtFactCheck *c = &k->checks[i];
        const rk_arg *a = &args[c->param];
        int64_t v;
        if (a->kind == RK_PARAM_POINTER)
            v = (int64_t)(uintptr_t)a->v.ptr;
        else if (a->dtype == RK_I8 || a->dtype == RK_I16 || a->dtype == RK_I32 || a->dtype == RK_I64)
            v = a->v.i;
        else if (a->dtype == RK_U8 || a->dtype == RK_U16 || a->dtype == RK_U32 || a->dtype == RK_U64)
            v = (int64_t)a->v.u;
        else
            return -1;
        if (c->kind == FACT_RANGE32 ? a->kind != RK_PARAM_POINTER || !range32_holds(k->prog->ctx, v)
                                    : !fact_holds(c->kind, c->n, v))
            return -1;
    }
    return k->nchecks;
}

/* ---- rk.h ---- */

const char *rk_kernel_facts(const rk_kernel *k)
{
    return k ? k->facts : "";
}

rk_kernel *rk_kernel_last_run(rk_kernel *k)
{
    return k && k->last_run ? k->last_run : k;
}

rk_program *rk_kernel_program(rk_kernel *k)
{
    return k ? k->prog : NULL;
}
