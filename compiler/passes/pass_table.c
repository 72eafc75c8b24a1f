/* The pass table: every pass from layout-free tile IR to tile IR with layouts, in pipeline order.
 *
 * One entry per step (name, the function that runs it, the RK_DUMP_IR stage names shown after it, and
 * what it takes). The driver runs the list on each kernel through one loop (driver.c, run_passes),
 * which dumps, verifies and times; `rkc -x tir --passes=NAME,...` runs chosen entries on IR text. An
 * analysis (compute_axis_info) keeps its result in PassState for the passes after it, until a pass
 * that changes ops or values (setting plan attributes does not: choose_dots); a pass that needs it and
 * finds none computes it itself, and assign_layouts chooses a dot that has no plan itself, so every
 * entry can run alone. */
#include <string.h>

#include "compiler/passes/axis_info.h"
#include "compiler/passes/passes.h"

static bool run_pipeline_loads(PassState *s, Func **f)
{
    (void)s;
    pipeline_loads(*f);
    return true;
}

static bool run_canonicalize(PassState *s, Func **f)
{
    (void)s;
    tir_canonicalize(*f);
    return true;
}

static bool run_remarks(PassState *s, Func **f)
{
    int nr;
    Remark *rs = compute_remarks(s->a, *f, s->ax, (*f)->opts.num_warps * s->lo.wave, &nr);
    if (!nr)
        return true;
    Remark *all = ARENA_ARRAY(s->a, Remark, s->nrems + nr + 1);
    if (s->nrems)
        memcpy(all, s->rems, sizeof *all * (size_t)s->nrems);
    memcpy(all + s->nrems, rs, sizeof *all * (size_t)nr);
    s->rems = all;
    s->nrems += nr;
    return true;
}

static bool run_axis_info(PassState *s, Func **f)
{
    s->ax = compute_axis_info(s->a, *f);
    return true;
}

static bool run_choose_dots(PassState *s, Func **f)
{
    choose_dots(s->a, *f, s->lt, &s->lo);
    return true;
}

static bool run_coalesce(PassState *s, Func **f)
{
    if (!s->ax)
        s->ax = compute_axis_info(s->a, *f);
    coalesce(s->a, *f, s->ax, s->lt, &s->lo);
    return true;
}

static bool run_assign_layouts(PassState *s, Func **f)
{
    Func *lf = assign_layouts(s->a, *f, s->ax, s->lir, s->lt, &s->lo, s->diags);
    if (!lf)
        return false;
    *f = lf;
    return true;
}

static bool run_remove_converts(PassState *s, Func **f)
{
    (void)s;
    remove_converts(*f);
    return true;
}

static bool run_plan_async(PassState *s, Func **f)
{
    plan_async(s->a, *f, s->lo.target);
    return true;
}

static bool run_allocate_lds(PassState *s, Func **f)
{
    allocate_lds(s->a, *f, s->lo.target);
    return true;
}

static const Pass pipeline[] = {
    {"pipeline_loads", run_pipeline_loads, NULL, PASS_TIR | PASS_KERNEL},
    {"canonicalize", run_canonicalize, "pipeline", 0},
    {"compute_axis_info", run_axis_info, NULL, PASS_TIR | PASS_ANALYSIS | PASS_KERNEL},
    {"compute_remarks", run_remarks, NULL, PASS_TIR | PASS_ANALYSIS | PASS_REMARKS | PASS_KERNEL},
    {"choose_dots", run_choose_dots, "choose_dots", PASS_TIR | PASS_ANALYSIS | PASS_KERNEL},
    {"coalesce", run_coalesce, "coalesce", PASS_TIR | PASS_ANALYSIS | PASS_KERNEL},
    {"assign_layouts", run_assign_layouts, "assign_layouts", PASS_TIR | PASS_KERNEL},
    {"canonicalize", run_canonicalize, NULL, 0},
    {"remove_converts", run_remove_converts, "remove_converts", PASS_LIR | PASS_KERNEL},
    {"plan_async", run_plan_async, "plan_async", PASS_LIR | PASS_KERNEL},
    {"allocate_lds", run_allocate_lds, "allocate_lds,lir", PASS_LIR | PASS_KERNEL},
};
enum { NPASSES = sizeof pipeline / sizeof pipeline[0] };

const Pass *pass_pipeline(int *n)
{
    *n = NPASSES;
    return pipeline;
}

const Pass *pass_find(const char *name)
{
    for (int i = 0; i < NPASSES; i++)
        if (strcmp(pipeline[i].name, name) == 0)
            return &pipeline[i];
    return NULL;
}

const char *pass_names(Arena *a)
{
    const char *t = "";
    for (int i = 0; i < NPASSES; i++)
        if (pass_find(pipeline[i].name) == &pipeline[i])
            t = arena_printf(a, "%s%s%s", t, *t ? ", " : "", pipeline[i].name);
    return t;
}
