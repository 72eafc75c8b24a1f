/* rk_kernel_advise: the library's entry to the advice (advise.c), through the public API alone: the
 * kernel's code object, its work for the launch and the peaks of its target's device. */
#include <stdio.h>
#include <string.h>

#include "compiler/driver/driver.h"
#include "compiler/passes/remark.h"
#include "compiler/report/advise.h"
#include "compiler/target/target.h"
#include "runtime/api/program_build.h"

/* The LDS bank-conflict remarks of the kernel, compiled again to the lowering with its options, its
 * config and facts (the lowering's own, compiler/lower/lds_banks.c); -1 when the compile fails. */
static int lds_conflicts(Arena *a, rk_ctx *ctx, rk_kernel *k, const char *name, const char *target, const char *source,
                         size_t length, const rk_compile_options *o, int *ways)
{
    int nd = o ? o->ndefines : 0;
    Define *defs = ARENA_ARRAY(a, Define, nd + 64);
    for (int i = 0; i < nd; i++)
        defs[i] = (Define){o->defines[i].name, o->defines[i].value};
    char *cfg = arena_strdup(a, rk_kernel_config(k)); /* "BLOCK_M=128 num_warps=4": after the options' */
    for (char *save = NULL, *t = strtok_r(cfg, " ", &save); t && nd < (o ? o->ndefines : 0) + 64;
         t = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(t, '=');
        if (eq) {
            *eq = 0;
            defs[nd++] = (Define){t, eq + 1};
        }
    }
    SrcMgr src;
    src_init(&src, a);
    Diags diags;
    diags_init(&diags, a, &src);
    StrTab strs;
    strtab_init(&strs, a);
    DriverOptions d = {0};
    d.filename = o && o->filename ? o->filename : "<source>";
    d.source = source;
    d.len = length;
    d.target = target;
    d.defines = defs;
    d.ndefines = nd;
    d.incdirs = o ? o->include_dirs : NULL;
    d.nincdirs = o ? o->ninclude_dirs : 0;
    d.stdlib_dir = rt_compile_settings(ctx)->stdlib_dir;
    d.kernel = name;
    d.opt_level = 0;
    const char *facts = rk_kernel_facts(rk_kernel_last_run(k));
    d.assume = facts && *facts ? facts : o ? o->assume : NULL;
    d.confine_imports = o && o->confine_imports;
    d.remarks = true;
    DriverResult r;
    if (!driver_compile(a, &strs, &src, &diags, &d, STAGE_LLVM, &r))
        return -1;
    int n = 0;
    for (int i = 0; i < r.nremarks; i++)
        if (r.remarks[i].kind == REMARK_BANKS) {
            n++;
            *ways = r.remarks[i].ways > *ways ? r.remarks[i].ways : *ways;
        }
    return n;
}

static double arg_value(const rk_arg *a)
{
    switch (a->dtype) {
    case RK_F32:
    case RK_F64:
        return a->v.f;
    case RK_U8:
    case RK_U16:
    case RK_U32:
    case RK_U64:
        return (double)a->v.u;
    case RK_BOOL:
        return a->v.b;
    default:
        return (double)a->v.i;
    }
}

rk_status rk_kernel_advise(rk_ctx *ctx, rk_kernel *k, const uint32_t *grid, const rk_arg *args, int nargs,
                           const char *source, size_t length, const rk_compile_options *options, int json, char *buf,
                           size_t size, size_t *needed)
{
    if (!ctx || !k || (!buf && size))
        return RK_EINVAL;
    rk_work w;
    uint32_t g[3];
    rk_status st = grid ? RK_OK : rk_kernel_grid(k, args, nargs, g);
    if (grid)
        memcpy(g, grid, sizeof g);
    if (st == RK_OK)
        st = rk_kernel_work(k, g, args, nargs, &w);
    rk_program *prog = rk_kernel_program(k);
    const char *target = rk_program_target(prog);
    const rk_peaks *p = NULL;
    bool est = false;
    if (st == RK_OK)
        st = rk_device_peaks(ctx, target, &p, &est);
    if (st != RK_OK)
        return st;
    RT_ENTER(ctx);
    rk_kernel_info info;
    rk_kernel_get_info(k, &info);
    Arena a;
    arena_init(&a, *rt_ctx_allocator(ctx));
    jmp_buf oom;
    if (setjmp(oom)) {
        arena_free(&a);
        return rt_fail(ctx, RK_ENOMEM, "out of memory writing the advice");
    }
    a.oom = &oom;
    CodeReport rep;
    const char *err = NULL;
    const void *bin = NULL;
    size_t binsize = 0;
    rk_program_binary(prog, &bin, &binsize);
    const KernelReport *kr = NULL;
    const Target *tg = target_find(target);
    if (tg && tg->codegen->link == LINK_CODE_OBJECT && report_code_object(&a, bin, binsize, &rep, &err) == 0)
        for (int i = 0; i < rep.nkernels; i++)
            if (strcmp(rep.kernels[i].name, info.name) == 0 || !kr)
                kr = &rep.kernels[i];
    rk_param *params = ARENA_ARRAY(&a, rk_param, info.num_params + 1);
    double *values = ARENA_ARRAY(&a, double, info.num_params + 1);
    for (int i = 0; i < info.num_params && i < nargs; i++) {
        rk_kernel_get_param(k, i, &params[i]);
        values[i] = args[i].kind == RK_PARAM_SCALAR ? arg_value(&args[i]) : 0;
    }
    int ways = 0;
    AdviseInput in = {info.name, rk_kernel_config(k), target, kr, kr ? rep.cpu : NULL, &w, p, est,
                      {g[0], g[1], g[2]}, params, values, info.num_params,
                      source && memmem(source, length, "xcd_remap(", 10),
                      tg ? tg->num_xcds : 1,
                      source ? lds_conflicts(&a, ctx, k, info.name, target, source, length, options, &ways) : -1, 0};
    in.lds_conflict_ways = ways;
    Advice adv;
    advise(&a, &in, &adv);
    const char *text = json ? advise_json(&a, &in, &adv) : advise_text(&a, &in, &adv);
    size_t n = strlen(text);
    if (needed)
        *needed = n;
    if (size) {
        size_t c = n < size - 1 ? n : size - 1;
        memcpy(buf, text, c);
        buf[c] = 0;
    }
    arena_free(&a);
    return RK_OK;
}
