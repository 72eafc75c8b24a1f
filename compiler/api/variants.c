/* Compiling many configs at once on all cores (variants.h).
 *
 * Three phases, each a pool of worker threads taking items in turn:
 *   1. lower: each variant through the driver to LLVM IR text (front end, sema, passes, lowering);
 *      variants over the LDS limit are pruned here;
 *   2. generate: the surviving variants are dealt into groups, largest IR first to the lightest group
 *      (so the groups take about equally long), and each group's IR is parsed into one module of a
 *      fresh LLVMContext, the kernels renamed kernel__cN (in a bundle kernel__cN_<id>, <id> naming
 *      what the code was compiled for: runtime/bundle/variant_id.h), linked, optimised, compiled
 *      and linked by ld.lld into one code object;
 *   3. retry (AMDGPU): variants whose code lost to its registers are compiled again, for their next
 *      occupancy step or frugally, in rounds through phases 1 and 2, each a batch of its own, and
 *      keep the second code where it spills fewer VGPRs or runs more waves; those whose dot's drain
 *      read-ahead stopped at its cap, with it lifted, kept where the loop model says faster
 *      (retry_registers).
 * The text form between the phases costs a few milliseconds a variant, against the hundreds LLVM
 * takes to optimise and compile it, and keeps the driver's interface as it is. */
#include "compiler/target/target.h"
#include "compiler/api/variants.h"

#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Linker.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compiler/codegen/codegen.h"
#include "compiler/target/amdgpu/report.h"
#include "isa/emu_abi.h"
#include "runtime/bundle/variant_id.h"
#include "runtime/profile/profile.h"
#include "support/clock.h"

int variants_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    return 1;
}

/* ---- shared state ---- */

typedef struct Group {
    int *members; /* variant indices */
    int n;
    double cost;  /* IR bytes */
    /* out */
    void *bin;    /* code object, or object with link_all on emu */
    size_t size;
    int nsplit;   /* when generated variant by variant: that many code objects in splits */
    void **split_bins;
    size_t *split_sizes;
    int *split_of; /* split_of[k]: which split member k went to (-1: failed) */
    const char *why; /* when split: why the group together failed */
} Group;

typedef struct Worker Worker;

/* The variants being compiled: the set's, or the second compiles of those that lost to their
 * registers (retry_registers); phase 1 → 2: each one's IR text (NULL: none) and function name in it. */
typedef struct Batch {
    Variant *v;
    int n;
    const char **irs;
    size_t *irlens;
    const char **oldsyms;
    int *of;                /* a retry batch's: each one's variant in the set */
    Group *groups;
    int ngroups;
} Batch;

typedef struct Shared {
    VariantSet *vs;
    rk_ctx *ctx;            /* workers read stdlib and dump settings, and the thread-safe trace */
    LockedAllocator alloc;  /* the context's hook, behind a lock */
    pthread_mutex_t lock;   /* everything below */
    pthread_cond_t changed;
    int next;               /* the next item to take */
    int nitems;
    int lowered, generated, running;
    int compiles;
    bool oom;
    Batch *b;               /* the variants the phases work on */
    void (*item)(Worker *w, int i);
} Shared;

struct Worker {
    Shared *sh;
    pthread_t thread;
    Arena a;      /* results that outlive the phase: in VariantSet's care after the join */
    jmp_buf oom;  /* recovery point of the item in progress */
    Arena ca;     /* one item's scratch */
};

static void *worker_main(void *arg)
{
    Worker *w = arg;
    Shared *sh = w->sh;
    for (;;) {
        pthread_mutex_lock(&sh->lock);
        int i = sh->oom || sh->next >= sh->nitems ? -1 : sh->next++;
        pthread_mutex_unlock(&sh->lock);
        if (i < 0)
            break;
        sh->item(w, i);
    }
    pthread_mutex_lock(&sh->lock);
    sh->running--;
    pthread_cond_broadcast(&sh->changed);
    pthread_mutex_unlock(&sh->lock);
    return NULL;
}

/* Runs sh->item over nitems on the workers; the calling thread reports progress meanwhile. */
static bool run_pool(Shared *sh, Worker *ws, int nthreads, int nitems, void (*item)(Worker *, int))
{
    sh->item = item;
    sh->next = 0;
    sh->nitems = nitems;
    sh->running = 0;
    int started = 0;
    for (int t = 0; t < nthreads && t < nitems; t++) {
        pthread_mutex_lock(&sh->lock);
        sh->running++;
        pthread_mutex_unlock(&sh->lock);
        if (pthread_create(&ws[t].thread, NULL, worker_main, &ws[t]) != 0) {
            pthread_mutex_lock(&sh->lock);
            sh->running--;
            pthread_mutex_unlock(&sh->lock);
            break;
        }
        started++;
    }
    if (started == 0 && nitems > 0) {
        /* no thread could start: do the work here */
        pthread_mutex_lock(&sh->lock);
        sh->running++;
        pthread_mutex_unlock(&sh->lock);
        worker_main(&ws[0]);
        return true;
    }
    VariantSet *vs = sh->vs;
    pthread_mutex_lock(&sh->lock);
    int lowered = -1, generated = -1;
    while (sh->running > 0) {
        if (vs->on_progress && (sh->lowered != lowered || sh->generated != generated)) {
            lowered = sh->lowered;
            generated = sh->generated;
            pthread_mutex_unlock(&sh->lock);
            vs->on_progress(vs->progress_ud, lowered, generated, vs->n);
            pthread_mutex_lock(&sh->lock);
            continue;
        }
        pthread_cond_wait(&sh->changed, &sh->lock);
    }
    /* the last workers may finish between two reports: the final counts are always reported */
    bool final = vs->on_progress && (sh->lowered != lowered || sh->generated != generated);
    lowered = sh->lowered;
    generated = sh->generated;
    pthread_mutex_unlock(&sh->lock);
    if (final)
        vs->on_progress(vs->progress_ud, lowered, generated, vs->n);
    for (int t = 0; t < started; t++)
        pthread_join(ws[t].thread, NULL);
    return true;
}

static void bump(Shared *sh, int *counter, int by)
{
    pthread_mutex_lock(&sh->lock);
    *counter += by;
    pthread_cond_broadcast(&sh->changed);
    pthread_mutex_unlock(&sh->lock);
}

static void out_of_memory(Shared *sh)
{
    pthread_mutex_lock(&sh->lock);
    sh->oom = true;
    pthread_mutex_unlock(&sh->lock);
}

/* ---- phase 1: to LLVM IR ---- */

static const char *first_error(Arena *a, const Diags *d, rk_status *st)
{
    *st = RK_ECOMPILE;
    for (int i = 0; i < d->n; i++)
        if (d->items[i].sev == DIAG_ERROR) {
            if (strncmp(d->items[i].msg, "internal error", 14) == 0)
                *st = RK_EINTERNAL;
            const Diag *g = &d->items[i];
            return g->file ? arena_printf(a, "%s:%d:%d: error: %s", g->file, g->line, g->col, g->msg)
                           : arena_printf(a, "error: %s", g->msg);
        }
    return "compilation failed";
}

static void lower_variant(Worker *w, int i)
{
    Shared *sh = w->sh;
    VariantSet *vs = sh->vs;
    Variant *v = &sh->b->v[i];
    arena_init(&w->ca, locked_allocator(&sh->alloc));
    if (setjmp(w->oom)) {
        arena_free(&w->ca);
        w->a.oom = NULL;
        v->state = VAR_FAILED;
        v->st = RK_ENOMEM;
        v->why = "out of memory";
        out_of_memory(sh);
        bump(sh, &sh->lowered, 1);
        return;
    }
    w->ca.oom = &w->oom;
    w->a.oom = &w->oom;
    Arena *ca = &w->ca;
    v->symbol = v->spec ? arena_printf(&w->a, "%s__s%dc%d", v->kernel, v->spec, v->index)
                        : arena_printf(&w->a, "%s__c%d", v->kernel, v->index);
    CompileSession *cx = compile_session(ca, sh->ctx, vs->cs, v->defs, v->ndefs, false);
    if (v->assume)
        cx->opts.assume = v->assume;
    cx->opts.kernel = v->kernel;
    cx->opts.lower = v->lower;
    bool ok = compile_session_run(cx, ca, sh->ctx, STAGE_LLVM, v->symbol);
    bump(sh, &sh->compiles, 1);
    const Diags *diags = &cx->diags;
    const DriverResult *r = &cx->r;
    const DriverKernel *dk = NULL;
    for (int k = 0; ok && k < r->nkernels; k++)
        if (strcmp(r->kernels[k].meta->name, v->kernel) == 0)
            dk = &r->kernels[k];
    if (!ok || diags->nerrors || !dk || !r->text) {
        v->state = VAR_FAILED;
        v->why = first_error(&w->a, diags, &v->st);
        v->diags = ARENA_ARRAY(&w->a, Diag, diags->n + 1);
        for (int k = 0; k < diags->n; k++) {
            const Diag *g = &diags->items[k];
            v->diags[k] = (Diag){g->sev,   g->file ? arena_strdup(&w->a, g->file) : NULL, g->line, g->col,
                                 arena_strdup(&w->a, g->msg),
                                 g->srcline ? arena_strndup(&w->a, g->srcline, (size_t)g->srclen) : NULL,
                                 g->srclen, g->caret};
        }
        v->ndiags = diags->n;
        /* The passes check LDS against the target's limit themselves ("... needs N bytes of LDS, more
         * than the M available"): that is a config the space should not have had, not a failure. */
        if (v->st == RK_ECOMPILE && strstr(v->why, " bytes of LDS"))
            v->state = VAR_PRUNED_LDS;
        if (ok && !diags->nerrors) {
            v->st = RK_EINTERNAL;
            v->why = arena_printf(&w->a, "internal error: the compile of %s produced no kernel %s", v->symbol, v->kernel);
        }
    } else {
        const KernelMeta *m = dk->meta;
        v->desc = (RtKernelDesc){v->symbol,    v->symbol,     compile_params(&w->a, m), m->nparams, m->opts.num_warps,
                                 dk->block,    dk->lds_bytes, dk->grid_tir ? arena_strdup(&w->a, dk->grid_tir) : NULL,
                                 v->label,     dk->tma ? arena_strdup(&w->a, dk->tma) : NULL,
                                 arena_strdup(&w->a, m->facts ? m->facts : ""), compile_nospec(&w->a, m),
                                 dk->work ? arena_strdup(&w->a, dk->work) : NULL};
        if (vs->link_all) { /* a bundle's: the symbol carries what the code was compiled for (variant_id.h) */
            char id[VARIANT_ID_LEN + 1];
            variant_id(&v->desc, id);
            v->symbol = arena_printf(&w->a, "%s_%s", v->symbol, id);
            v->desc.name = v->desc.symbol = v->symbol;
        }
        if (dk->lds_bytes > vs->lds_limit) {
            v->state = VAR_PRUNED_LDS;
        } else {
            v->state = VAR_OK;
            size_t len = strlen(r->text);
            sh->b->irs[i] = arena_strndup(&w->a, r->text, len);
            sh->b->irlens[i] = len;
            sh->b->oldsyms[i] = arena_strdup(&w->a, dk->symbol);
            v->lower = dk->lowered; /* (for emu, as the config's gfx942 code was kept: driver.c) */
            v->spends = dk->spends_regs;
            v->drain_capped = dk->drain_capped;
            v->drain_raised = dk->drain_raised;
            v->asks_waves = m->opts.waves_per_eu > 0;
        }
    }
    w->a.oom = NULL;
    w->ca.oom = NULL;
    arena_free(&w->ca);
    bump(sh, &sh->lowered, 1);
}

/* ---- phase 2: code generation ---- */

typedef struct LlvmDiag {
    char msg[512];
    bool error;
} LlvmDiag;

static void on_llvm_diag(LLVMDiagnosticInfoRef di, void *ud)
{
    LlvmDiag *d = ud;
    if (LLVMGetDiagInfoSeverity(di) != LLVMDSError || d->error)
        return;
    char *m = LLVMGetDiagInfoDescription(di);
    snprintf(d->msg, sizeof d->msg, "%s", m ? m : "LLVM error");
    LLVMDisposeMessage(m);
    d->error = true;
}

/* Parses, renames and links the members' IR into one module; NULL with why on failure. */
static LLVMModuleRef link_members(Shared *sh, LLVMContextRef lc, LlvmDiag *diag, const int *members, int n,
                                  Arena *a, const char **why)
{
    LLVMModuleRef mod = NULL;
    for (int k = 0; k < n; k++) {
        int i = members[k];
        Variant *v = &sh->b->v[i];
        /* the text is NUL-terminated, and the parser does not keep the buffer */
        LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(sh->b->irs[i], sh->b->irlens[i], v->symbol, 1);
        LLVMModuleRef m = NULL;
        char *msg = NULL;
        LLVMBool bad = LLVMParseIRInContext2(lc, buf, &m, &msg);
        LLVMDisposeMemoryBuffer(buf);
        if (bad) {
            *why = arena_printf(a, "internal error: the LLVM IR of %s does not parse: %s", v->symbol, msg ? msg : "");
            LLVMDisposeMessage(msg);
            break;
        }
        LLVMValueRef f = LLVMGetNamedFunction(m, sh->b->oldsyms[i]);
        if (!f) {
            *why = arena_printf(a, "internal error: no function %s in the LLVM IR of %s", sh->b->oldsyms[i], v->symbol);
            LLVMDisposeModule(m);
            break;
        }
        LLVMSetValueName2(f, v->symbol, strlen(v->symbol));
        /* emu code with waves of 32 exports "<kernel>.rk_wave" beside it: renamed with it, or the members'
         * constants would clash in the link and the runtime would look for the new name in vain */
        char *wname = arena_printf(a, "%s" EMU_WAVE_SYMBOL_SUFFIX, sh->b->oldsyms[i]);
        LLVMValueRef wg = LLVMGetNamedGlobal(m, wname);
        if (wg) {
            const char *nw = arena_printf(a, "%s" EMU_WAVE_SYMBOL_SUFFIX, v->symbol);
            LLVMSetValueName2(wg, nw, strlen(nw));
        }
        if (!mod) {
            mod = m;
        } else if (LLVMLinkModules2(mod, m)) {
            *why = arena_printf(a, "internal error: cannot link the LLVM IR of %s: %s", v->symbol, diag->msg);
            break;
        }
        if (k + 1 == n)
            return mod;
    }
    if (mod)
        LLVMDisposeModule(mod);
    return NULL;
}

/* Targets whose bundle is one image made from one module (a gfx code object, sm_90's PTX text); the
 * emulator's is one shared object linked from several objects. */
static bool single_image(const char *target)
{
    const Target *t = target_find(target);
    return t && t->codegen->link != LINK_HOST_SO;
}

/* Generates code for members; *bin on success, else why. */
static bool generate(Worker *w, const int *members, int n, void **bin, size_t *size, const char **why)
{
    Shared *sh = w->sh;
    VariantSet *vs = sh->vs;
    const Target *tg = target_find(vs->cs->target);
    LLVMContextRef lc = LLVMContextCreate();
    LlvmDiag diag = {{0}, false};
    LLVMContextSetDiagnosticHandler(lc, on_llvm_diag, &diag);
    double t0 = rt_ctx_profile(sh->ctx) ? prof_now_us() : 0;
    LLVMModuleRef mod = link_members(sh, lc, &diag, members, n, &w->a, why);
    bool ok = false;
    CodegenResult cr;
    memset(&cr, 0, sizeof cr);
    if (mod && tg) {
        unsigned want = vs->link_all && !single_image(vs->cs->target) ? CG_WANT_OBJ : CG_WANT_BINARY;
        const char *err = NULL;
        CgStatus st = codegen_module(tg, mod, vs->cs->opt_level, want, &w->a, &cr, &err);
        if (st == CG_OK) {
            *bin = want == CG_WANT_OBJ ? cr.obj : cr.binary;
            *size = want == CG_WANT_OBJ ? cr.obj_size : cr.binary_size;
            ok = true;
        } else {
            *why = arena_printf(&w->a, "%s%s", st == CG_ERR_INVALID || st == CG_ERR_LLVM ? "internal error: " : "",
                                err ? err : "code generation failed");
        }
    } else if (!tg) {
        *why = "internal error: no target";
    }
    if (mod)
        LLVMDisposeModule(mod);
    LLVMContextDispose(lc);
    if (rt_ctx_profile(sh->ctx)) {
        char args[256];
        snprintf(args, sizeof args, "{\"variants\": %d, \"opt_ms\": %.3f, \"codegen_ms\": %.3f, \"link_ms\": %.3f}", n,
                 cr.t_opt_ms, cr.t_codegen_ms, cr.t_link_ms);
        double t = t0 + (prof_now_us() - t0) - (cr.t_opt_ms + cr.t_codegen_ms + cr.t_link_ms) * 1e3;
        prof_span(rt_ctx_profile(sh->ctx), "compile", "parse + link LLVM IR", t0, t - t0, args);
        prof_span(rt_ctx_profile(sh->ctx), "compile", "LLVM optimisation", t, cr.t_opt_ms * 1e3, args);
        t += cr.t_opt_ms * 1e3;
        prof_span(rt_ctx_profile(sh->ctx), "compile", "code generation", t, cr.t_codegen_ms * 1e3, args);
        t += cr.t_codegen_ms * 1e3;
        prof_span(rt_ctx_profile(sh->ctx), "compile", "link", t, cr.t_link_ms * 1e3, args);
    }
    return ok;
}

/* Spill counts of each member from the code object's metadata. */
static void read_spills(Worker *w, const int *members, int n, const void *bin, size_t size)
{
    CodeReport rep;
    const char *err = NULL;
    double t0 = rt_ctx_profile(w->sh->ctx) ? prof_now_us() : 0;
    int rc = report_code_object(&w->a, bin, size, &rep, &err);
    if (rt_ctx_profile(w->sh->ctx))
        prof_span(rt_ctx_profile(w->sh->ctx), "compile", "read spill counts", t0, prof_now_us() - t0, NULL);
    if (rc != 0)
        return;
    for (int k = 0; k < n; k++) {
        Variant *v = &w->sh->b->v[members[k]];
        for (int j = 0; j < rep.nkernels; j++)
            if (rep.kernels[j].name && strcmp(rep.kernels[j].name, v->symbol) == 0) {
                const KernelReport *kr = &rep.kernels[j];
                v->vgpr_spills = kr->vgpr_spills;
                v->sgpr_spills = kr->sgpr_spills;
                v->scratch_bytes = kr->scratch_bytes;
                v->regs = driver_reg_facts_of(kr);
                v->regs.name = v->symbol;
                v->have_regs = true;
            }
    }
}

static void generate_group(Worker *w, int gi)
{
    Shared *sh = w->sh;
    Group *g = &sh->b->groups[gi];
    const Target *t = target_find(sh->vs->cs->target);
    bool amdgpu = t && t->codegen->link == LINK_CODE_OBJECT; /* spill counts from the code object */
    if (setjmp(w->oom)) {
        w->a.oom = NULL;
        g->bin = NULL;
        for (int k = 0; k < g->n; k++) {
            Variant *v = &sh->b->v[g->members[k]];
            v->state = VAR_FAILED;
            v->st = RK_ENOMEM;
            v->why = "out of memory";
        }
        out_of_memory(sh);
        bump(sh, &sh->generated, g->n);
        return;
    }
    w->a.oom = &w->oom;
    const char *why = NULL;
    if (generate(w, g->members, g->n, &g->bin, &g->size, &why)) {
        if (amdgpu)
            read_spills(w, g->members, g->n, g->bin, g->size);
    } else if (g->n == 1) {
        Variant *v = &sh->b->v[g->members[0]];
        v->state = VAR_FAILED;
        v->st = strncmp(why, "internal error", 14) == 0 ? RK_EINTERNAL : RK_ECOMPILE;
        v->why = why;
    } else {
        /* One bad variant must not take the group down: generate each alone. */
        g->why = why;
        g->split_bins = ARENA_ARRAY(&w->a, void *, g->n);
        g->split_sizes = ARENA_ARRAY(&w->a, size_t, g->n);
        g->split_of = ARENA_ARRAY(&w->a, int, g->n);
        for (int k = 0; k < g->n; k++) {
            Variant *v = &sh->b->v[g->members[k]];
            const char *vwhy = NULL;
            int s = g->nsplit;
            g->split_of[k] = -1;
            if (generate(w, &g->members[k], 1, &g->split_bins[s], &g->split_sizes[s], &vwhy)) {
                if (amdgpu)
                    read_spills(w, &g->members[k], 1, g->split_bins[s], g->split_sizes[s]);
                g->split_of[k] = s;
                g->nsplit++;
            } else {
                v->state = VAR_FAILED;
                v->st = strncmp(vwhy, "internal error", 14) == 0 ? RK_EINTERNAL : RK_ECOMPILE;
                v->why = vwhy;
            }
        }
    }
    w->a.oom = NULL;
    bump(sh, &sh->generated, g->n);
}

/* ---- the whole ---- */

static int cmp_cost(const void *a, const void *b, void *ud)
{
    const size_t *len = ud;
    size_t x = len[*(const int *)a], y = len[*(const int *)b];
    return x > y ? -1 : x < y;
}

/* Deals the batch's lowered variants into groups: largest first, each to the lightest group with room.
 * False where memory ran out. */
static bool make_groups(Shared *sh, Arena *a)
{
    VariantSet *vs = sh->vs;
    Batch *b = sh->b;
    int nok = 0;
    int *order = ARENA_ARRAY(a, int, b->n + 1);
    if (!order) {
        out_of_memory(sh);
        return false;
    }
    for (int i = 0; i < b->n; i++)
        if (b->v[i].state == VAR_OK)
            order[nok++] = i;
    if (nok == 0)
        return true;
    int gmax = vs->group_max > 0 && !vs->link_all ? vs->group_max : nok;
    int ng = (nok + gmax - 1) / gmax;
    if (ng < vs->threads)
        ng = nok < vs->threads ? nok : vs->threads; /* keep every worker busy */
    if (vs->link_all && single_image(vs->cs->target) && !b->of)
        ng = 1; /* one module per code object (a retry's code objects only tell what it came to) */
    qsort_r(order, (size_t)nok, sizeof *order, cmp_cost, b->irlens);
    b->groups = ARENA_ARRAY(a, Group, ng);
    if (!b->groups) {
        out_of_memory(sh);
        return false;
    }
    b->ngroups = ng;
    int cap = (nok + ng - 1) / ng;
    for (int g = 0; g < ng; g++)
        if (!(b->groups[g].members = ARENA_ARRAY(a, int, nok))) {
            b->ngroups = 0;
            out_of_memory(sh);
            return false;
        }
    for (int k = 0; k < nok; k++) {
        int best = -1;
        for (int g = 0; g < ng; g++)
            if (b->groups[g].n < (ng == 1 ? nok : cap) && (best < 0 || b->groups[g].cost < b->groups[best].cost))
                best = g;
        Group *gp = &b->groups[best];
        gp->members[gp->n++] = order[k];
        gp->cost += (double)b->irlens[order[k]];
    }
    return true;
}

/* A batch of n variants; `retry`: a retry's, which maps each one to its variant in the set (of). */
static Batch *batch_new(Arena *a, Variant *v, int n, bool retry)
{
    Batch *b = ARENA_NEW(a, Batch);
    if (!b)
        return NULL;
    b->v = v;
    b->n = n;
    b->irs = ARENA_ARRAY(a, const char *, n + 1);
    b->irlens = ARENA_ARRAY(a, size_t, n + 1);
    b->oldsyms = ARENA_ARRAY(a, const char *, n + 1);
    b->of = retry ? ARENA_ARRAY(a, int, n + 1) : NULL;
    return b->v && b->irs && b->irlens && b->oldsyms && (b->of || !retry) ? b : NULL;
}

/* ---- phase 3: the retry of variants that lost to their registers ----
 * The lowering spends VGPRs for cycles where its estimate, made before LLVM allocates, says they are
 * there, and LLVM allocates as many as its schedule takes (compiler/driver/driver_frugal.c). A variant
 * whose code spilled VGPRs or runs fewer waves than without its VGPRs is compiled again in up to four
 * rounds, as rkc compiles the same config (compiler/driver/driver.c, generate_best; the rounds are
 * driver_retry_plan's): a few VGPRs short of its next occupancy step, as if its config asked for those
 * waves (LowerChoice.min_waves); frugally (LowerChoice.frugal) where its lowering spent VGPRs;
 * frugally for those waves; without its dots' read-ahead for their drains alone
 * (DRAIN_NONE); each variant until a round does better for it, or while its best code
 * still spills. A variant with none of those
 * whose dot's drain read-ahead stopped at its cap (and whose loops the model read) takes part in the
 * first round with the cap lifted (DRAIN_DEEP). Each round's variants are generated
 * apart, and each keeps the second code where it spills fewer VGPRs, or as many and runs more waves;
 * a DRAIN_DEEP one where driver_retry_better finds its loops faster by the model. */
static RetryBasis basis_of(const Target *tg, const Variant *v)
{
    if (v->retried)
        return v->basis;
    DriverKernel dk = {.spends_regs = v->spends, .drain_capped = v->drain_capped, .drain_raised = v->drain_raised};
    return driver_retry_basis(tg, &v->regs, &dk, v->asks_waves);
}

static bool retry_plan(const Target *tg, const Variant *v, int round, LowerChoice *choice)
{
    /* until a round does better, or while the best code so far still spills */
    if (v->state != VAR_OK || !v->have_regs || (v->retried && v->regs.spills == 0))
        return false;
    RetryBasis b = basis_of(tg, v);
    return driver_retry_plan(round, &b, choice);
}

/* One round: its variants compiled and generated as a batch of their own; the kept ones take their
 * second code's description and IR in `main` (Variant.retried = round). The batch, or NULL where none
 * was kept. */
static Batch *retry_round(Shared *sh, Worker *ws, int nthreads, Batch *main, const Target *tg, int round)
{
    VariantSet *vs = sh->vs;
    int nc = 0;
    LowerChoice ch;
    for (int i = 0; i < main->n; i++)
        nc += retry_plan(tg, &main->v[i], round, &ch);
    if (nc == 0)
        return NULL;
    Batch *tb = batch_new(vs->out, ARENA_ARRAY(vs->out, Variant, nc + 1), nc, true);
    if (!tb) {
        out_of_memory(sh);
        return NULL;
    }
    for (int i = 0, t = 0; i < main->n; i++) {
        const Variant *v = &main->v[i];
        if (!retry_plan(tg, v, round, &ch))
            continue;
        tb->of[t] = i;
        tb->v[t++] = (Variant){.kernel = v->kernel, .index = v->index, .defs = v->defs, .ndefs = v->ndefs,
                               .label = v->label, .assume = v->assume, .spec = v->spec, .lower = ch};
    }
    sh->b = tb;
    run_pool(sh, ws, nthreads, nc, lower_variant);
    if (!sh->oom && make_groups(sh, vs->out))
        run_pool(sh, ws, nthreads, tb->ngroups, generate_group);
    sh->b = main;
    int kept = 0;
    for (int t = 0; t < nc && !sh->oom; t++) {
        Variant *f = &tb->v[t], *v = &main->v[tb->of[t]];
        if (f->state != VAR_OK || !f->have_regs || !driver_retry_better(tg, &v->regs, &f->regs, &f->lower))
            continue;
        f->retried = round;
        f->basis = basis_of(tg, v); /* (the later rounds are planned by the first code's) */
        *v = *f; /* its description, spills and registers are the second code's */
        main->irs[tb->of[t]] = tb->irs[t];
        main->irlens[tb->of[t]] = tb->irlens[t];
        main->oldsyms[tb->of[t]] = tb->oldsyms[t];
        kept++;
    }
    return kept ? tb : NULL;
}

/* The rounds; rounds[r - 1] is round r's batch where it holds kept code (else NULL). On a single
 * image (a bundle's code object) the kept variants' IR replaces the first in `main`, whose groups are
 * generated again (where that fails, the first code stands), and no round's batch is returned. */
static void retry_registers(Shared *sh, Worker *ws, int nthreads, Batch *main, Batch *rounds[DRIVER_RETRY_ROUNDS])
{
    VariantSet *vs = sh->vs;
    const Target *tg = target_find(vs->cs->target);
    bool kept = false;
    for (int r = 0; r < DRIVER_RETRY_ROUNDS; r++)
        rounds[r] = NULL;
    if (!tg || tg->codegen->link != LINK_CODE_OBJECT || report_occupancy_for(tg->cpu, 0, 0, 0, 64, NULL) <= 0)
        return;
    int wanted = 0;
    LowerChoice ch;
    for (int i = 0; i < main->n; i++)
        for (int r = 1; r <= DRIVER_RETRY_ROUNDS; r++)
            wanted += retry_plan(tg, &main->v[i], r, &ch);
    if (wanted == 0 || main->ngroups == 0)
        return; /* nothing to retry (no groups: no variant compiled, a file without kernels say) */
    bool again = vs->link_all && single_image(vs->cs->target);
    for (int g = 0; g < main->ngroups && again; g++)
        if (!main->groups[g].bin)
            return; /* the bundle fails as one code object anyway (collect) */
    /* what a bundle's regeneration falls back on */
    Group *groups0 = again ? ARENA_ARRAY(vs->out, Group, main->ngroups + 1) : NULL;
    Batch *b0 = again ? batch_new(vs->out, ARENA_ARRAY(vs->out, Variant, main->n + 1), main->n, false) : NULL;
    if (again && (!groups0 || !b0)) {
        out_of_memory(sh);
        return;
    }
    if (again) {
        memcpy(groups0, main->groups, sizeof *groups0 * (size_t)main->ngroups);
        memcpy(b0->v, main->v, sizeof *b0->v * (size_t)main->n);
        memcpy(b0->irs, main->irs, sizeof *b0->irs * (size_t)main->n);
        memcpy(b0->irlens, main->irlens, sizeof *b0->irlens * (size_t)main->n);
        memcpy(b0->oldsyms, main->oldsyms, sizeof *b0->oldsyms * (size_t)main->n);
    }
    /* the progress counts are the set's: the retry's work is not counted in them */
    int lowered = sh->lowered, generated = sh->generated;
    void (*progress)(void *, int, int, int) = vs->on_progress;
    vs->on_progress = NULL;
    for (int r = 0; r < DRIVER_RETRY_ROUNDS && !sh->oom; r++)
        kept |= (rounds[r] = retry_round(sh, ws, nthreads, main, tg, r + 1)) != NULL;
    if (kept && again && !sh->oom) {
        for (int g = 0; g < main->ngroups; g++) {
            Group *gp = &main->groups[g];
            *gp = (Group){.members = gp->members, .n = gp->n, .cost = gp->cost};
        }
        run_pool(sh, ws, nthreads, main->ngroups, generate_group);
        bool whole = true;
        for (int g = 0; g < main->ngroups; g++)
            whole &= main->groups[g].bin != NULL;
        if (!whole && !sh->oom) {
            memcpy(main->groups, groups0, sizeof *groups0 * (size_t)main->ngroups);
            memcpy(main->v, b0->v, sizeof *b0->v * (size_t)main->n);
            memcpy(main->irs, b0->irs, sizeof *b0->irs * (size_t)main->n);
            memcpy(main->irlens, b0->irlens, sizeof *b0->irlens * (size_t)main->n);
            memcpy(main->oldsyms, b0->oldsyms, sizeof *b0->oldsyms * (size_t)main->n);
        }
        for (int r = 0; r < DRIVER_RETRY_ROUNDS; r++)
            rounds[r] = NULL;
    }
    vs->on_progress = progress;
    sh->lowered = lowered;
    sh->generated = generated;
}

/* Whether member i of batch j (0 the set's, r the retry round r's) is the code its variant in the set
 * keeps: round r's where the variant took that round's code and the round's batch is collected,
 * the set's otherwise. */
static bool kept_code(const Shared *sh, Batch *const *bs, int j, int i)
{
    const Variant *v = j ? &sh->vs->v[bs[j]->of[i]] : &bs[0]->v[i];
    if (v->state != VAR_OK)
        return false;
    if (j)
        return v->retried == j && bs[j]->v[i].state == VAR_OK;
    return !(v->retried && bs[v->retried]);
}

/* Collects the code objects of the batches (the set's, then the retry rounds' where kept) and numbers
 * the variants' groups; with link_all on emu, links the groups' objects into one shared object. */
static rk_status collect(rk_ctx *ctx, Shared *sh, Batch *main, Batch *const rounds[DRIVER_RETRY_ROUNDS])
{
    VariantSet *vs = sh->vs;
    enum { NB = DRIVER_RETRY_ROUNDS + 1 };
    Batch *bs[NB] = {main};
    for (int r = 0; r < DRIVER_RETRY_ROUNDS; r++)
        bs[r + 1] = rounds[r];
    int total = 0;
    for (int j = 0; j < NB; j++)
        for (int g = 0; bs[j] && g < bs[j]->ngroups; g++)
            total += bs[j]->groups[g].bin ? 1 : bs[j]->groups[g].nsplit;
    vs->bins = ARENA_ARRAY(vs->out, void *, total + 1);
    vs->sizes = ARENA_ARRAY(vs->out, size_t, total + 1);
    vs->nbins = 0;
    if (!vs->bins || !vs->sizes)
        return rt_fail(ctx, RK_ENOMEM, "out of memory compiling the autotune configs");
    for (int j = 0; j < NB; j++)
        for (int g = 0; bs[j] && g < bs[j]->ngroups; g++) {
            Group *gp = &bs[j]->groups[g];
            bool used = false;
            for (int k = 0; k < gp->n; k++) {
                if (!kept_code(sh, bs, j, gp->members[k]))
                    continue;
                Variant *v = &vs->v[j ? bs[j]->of[gp->members[k]] : gp->members[k]];
                v->group = gp->bin ? vs->nbins : vs->nbins + gp->split_of[k];
                used = true;
            }
            if (!used && j)
                continue; /* second code no variant kept */
            if (gp->bin) {
                vs->bins[vs->nbins] = gp->bin;
                vs->sizes[vs->nbins++] = gp->size;
            } else {
                for (int s = 0; s < gp->nsplit; s++) {
                    vs->bins[vs->nbins] = gp->split_bins[s];
                    vs->sizes[vs->nbins++] = gp->split_sizes[s];
                }
            }
        }
    if (vs->link_all && single_image(vs->cs->target) && vs->nbins > 1) {
        /* every config compiles alone, but not all of them as the one image a bundle is (its link
         * could not write its files, say): the group's failure is the answer */
        const char *why = NULL;
        for (int g = 0; g < main->ngroups && !why; g++)
            why = main->groups[g].why;
        return rt_fail(ctx, RK_ECOMPILE, "the configs do not compile into one code object: %s",
                       why ? why : "(no reason given)");
    }
    if (!vs->link_all || single_image(vs->cs->target) || vs->nbins == 0)
        return RK_OK;
    /* emu: the objects into one shared object */
    void *bin = NULL;
    size_t size = 0;
    const char *err = NULL;
    CgStatus st = codegen_link(target_find(vs->cs->target), (const void *const *)vs->bins, vs->sizes, vs->nbins,
                               vs->out, &bin, &size, &err);
    if (st != CG_OK)
        return rt_fail(ctx, RK_EINTERNAL, "internal error: cannot link the variants: %s", err ? err : "ld.lld failed");
    vs->bins[0] = bin;
    vs->sizes[0] = size;
    vs->nbins = 1;
    for (int i = 0; i < vs->n; i++)
        vs->v[i].group = 0;
    return RK_OK;
}

rk_status variants_build(rk_ctx *ctx, VariantSet *vs)
{
    double t0 = clock_wall_ms();
    int nthreads = vs->threads > 0 ? vs->threads : 1;
    if (nthreads > vs->n)
        nthreads = vs->n > 0 ? vs->n : 1;
    Shared *sh = ARENA_NEW(vs->out, Shared);
    Batch *main = sh ? batch_new(vs->out, vs->v, vs->n, false) : NULL;
    Worker *ws = ARENA_ARRAY(vs->out, Worker, nthreads);
    vs->keep = ARENA_ARRAY(vs->out, Arena *, nthreads);
    if (!main || !ws || !vs->keep)
        return rt_fail(ctx, RK_ENOMEM, "out of memory compiling the autotune configs");
    sh->vs = vs;
    sh->ctx = ctx;
    sh->b = main;
    locked_allocator_init(&sh->alloc, *rt_ctx_allocator(ctx));
    pthread_mutex_init(&sh->lock, NULL);
    pthread_cond_init(&sh->changed, NULL);
    /* The results point into the workers' arenas, which the set keeps until variants_free (also after
     * running out of memory here). */
    vs->raw = *rt_ctx_allocator(ctx);
    for (int t = 0; t < nthreads; t++) {
        ws[t].sh = sh;
        arena_init(&ws[t].a, locked_allocator(&sh->alloc));
        vs->keep[vs->nkeep++] = &ws[t].a;
    }
    codegen_init_llvm();
    run_pool(sh, ws, nthreads, vs->n, lower_variant);
    rk_status st = RK_OK;
    Batch *rounds[DRIVER_RETRY_ROUNDS] = {NULL};
    if (sh->oom)
        st = rt_fail(ctx, RK_ENOMEM, "out of memory compiling the autotune configs");
    if (!st) {
        if (make_groups(sh, vs->out))
            run_pool(sh, ws, nthreads, main->ngroups, generate_group);
        if (!sh->oom)
            retry_registers(sh, ws, nthreads, main, rounds);
        if (sh->oom)
            st = rt_fail(ctx, RK_ENOMEM, "out of memory compiling the autotune configs");
    }
    if (!st)
        st = collect(ctx, sh, main, rounds);
    vs->compiles = sh->compiles;
    vs->ms_wall = clock_wall_ms() - t0;
    pthread_mutex_destroy(&sh->lock);
    pthread_cond_destroy(&sh->changed);
    return st;
}

void variants_free(VariantSet *vs)
{
    for (int t = 0; t < vs->nkeep; t++) {
        vs->keep[t]->alloc = vs->raw; /* no worker is left to race with */
        arena_free(vs->keep[t]);
    }
    vs->nkeep = 0;
}
