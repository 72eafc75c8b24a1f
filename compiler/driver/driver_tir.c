/* Tile IR text in, tile IR text out (rkc -x tir [--passes=NAME,...]), as mlir-opt and opt do.
 *
 * The text (TIR, or LIR with its layouts) is parsed into a module of its own and verified; then the
 * chosen entries of the pass table run on each function through the driver's pass loop (dumps
 * included), in the order given, and the result is verified and printed. Kernels take every pass;
 * a grid function only those that are not kernel passes (canonicalize). A pass that takes layout-free
 * IR refuses LIR and the other way round, naming the pass. Without --passes the IR is printed as read:
 * print(parse(print(F))) == print(F) is what tests/golden/tir/roundtrip_stages.sh checks for every
 * dump of every example. */
#include <string.h>

#include "compiler/driver/driver_internal.h"
#include "compiler/passes/passes.h"
#include "support/clock.h"

static bool block_has_layouts(const Block *b)
{
    for (int i = 0; i < b->nargs; i++)
        if (b->args[i].type->kind == TY_TILE && b->args[i].type->layout)
            return true;
    for (const Op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nres; i++)
            if (op->results[i].type->kind == TY_TILE && op->results[i].type->layout)
                return true;
        for (int r = 0; r < op->nregions; r++)
            if (block_has_layouts(op->regions[r]))
                return true;
    }
    return false;
}

/* The passes named in `list` ("a,b,c"), or NULL after an error naming the unknown one. */
static const Pass **pass_list(Arena *a, Diags *diags, const char *list, int *n)
{
    int cap = 1;
    for (const char *p = list; *p; p++)
        cap += *p == ',';
    const Pass **ps = ARENA_ARRAY(a, const Pass *, cap + 1);
    *n = 0;
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *name = arena_printf(a, "%.*s", (int)len, p);
        const Pass *pass = pass_find(name);
        if (!pass) {
            diag_plain(diags, DIAG_ERROR, "unknown pass '%s'; the passes are: %s", name, pass_names(a));
            return NULL;
        }
        ps[(*n)++] = pass;
        p += len + (comma ? 1 : 0);
    }
    return ps;
}

bool driver_compile_tir(Arena *a, StrTab *strs, SrcFile *f, Diags *diags, const DriverOptions *o, Stage stop,
                        DriverResult *out)
{
    if (stop != STAGE_TIR && stop != STAGE_LIR) {
        diag_plain(diags, DIAG_ERROR, "tile IR input prints tile IR: --emit=tir or --emit=lir, not --emit=%s",
                   driver_stage_name(stop));
        return false;
    }
    int npasses = 0;
    const Pass **passes = NULL;
    if (o->passes && *o->passes && !(passes = pass_list(a, diags, o->passes, &npasses)))
        return false;
    const Target *tg = target_find(o->target ? o->target : "gfx942");
    if (!tg || !tg->lowering) {
        diag_plain(diags, DIAG_ERROR, "the passes take a target with layouts, not %s", o->target);
        return false;
    }
    TypeTab *types = ARENA_NEW(a, TypeTab);
    typetab_init(types, a);
    LayoutTab *lt = ARENA_NEW(a, LayoutTab);
    laytab_init(lt, a);
    lay_attach_text(types, lt);
    double t0 = clock_wall_ms();
    Module *m = tir_parse(a, types, strs, diags, f);
    out->ms_front = clock_wall_ms() - t0;
    if (!m || !tir_verify(m, diags))
        return false;
    Module *lir = tir_module_new(a, types, strs);
    lir->files = m->files;
    lir->nfiles = m->nfiles;
    PassState ps = {a, diags, {tg, tg->wave_size, true}, lt, lir, NULL, true, NULL, 0};
    Func **funcs = ARENA_ARRAY(a, Func *, m->nfuncs + 1);
    double t1 = clock_wall_ms();
    for (int i = 0; i < m->nfuncs; i++) {
        Func *fn = m->funcs[i];
        bool has_lay = block_has_layouts(fn->body);
        for (int k = 0; k < npasses; k++) {
            const Pass *p = passes[k];
            if (fn->kind != FUNC_KERNEL && (p->flags & (PASS_TIR | PASS_LIR | PASS_KERNEL)))
                continue;
            if ((has_lay && (p->flags & PASS_TIR)) || (!has_lay && (p->flags & PASS_LIR))) {
                diag_plain(diags, DIAG_ERROR, "pass %s takes tile IR %s layouts, and @%s has %s", p->name,
                           has_lay ? "without" : "with", fn->name, has_lay ? "them" : "none");
                return false;
            }
            if (!driver_run_passes(a, diags, o, out, &ps, &fn, p, 1))
                return false;
            has_lay = has_lay || fn->module == lir;
        }
        funcs[i] = fn;
    }
    out->ms_passes = clock_wall_ms() - t1;
    out->remarks = ps.rems;
    out->nremarks = ps.nrems;
    Module *res = ARENA_NEW(a, Module);
    *res = *m;
    res->funcs = funcs;
    if (npasses && !tir_verify(res, diags)) {
        diag_plain(diags, DIAG_ERROR, "internal error: the IR after --passes=%s failed verification (a bug in rk)",
                   o->passes);
        return false;
    }
    out->text = tir_print_module(a, res, 0);
    return true;
}
