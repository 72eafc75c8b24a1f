/* Launching: checking the arguments against the kernel's parameters, laying them out in the kernarg
 * block, evaluating @grid, loading the module at the first launch, and handing it all to the device.
 *
 * Scalar arguments convert to the parameter's type only without loss (rk.h, rk_launch): an integer
 * that fits, a float (or integer) exactly representable in the parameter's float type, bool from bool
 * only. Exactness is decided on values, not on types, so rk_arg_i64(5) passes for an i32 and
 * rk_arg_f64(0.5) for an f16, while rk_arg_f64(0.1) for an f32 is refused: a silent rounding of a
 * kernel's argument is the kind of bug this check exists to catch. Pointers must lie inside memory
 * from rk_malloc on this context and be 16-byte aligned, which the compiler assumes for wide loads. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "support/fp16.h"
#include "runtime/api/api_internal.h"
#include "runtime/interp/interp.h"
#include "runtime/profile/profile.h"

/* ---- argument conversion ---- */

static bool dt_is_float(rk_dtype t)
{
    return t == RK_F16 || t == RK_BF16 || t == RK_F32 || t == RK_F64;
}

static bool dt_is_signed(rk_dtype t)
{
    return t == RK_I8 || t == RK_I16 || t == RK_I32 || t == RK_I64;
}

static bool dt_is_int(rk_dtype t)
{
    return t != RK_BOOL && !dt_is_float(t);
}

/* The argument's value as a double (floats: exact, since every format converts to double exactly). */
static double float_value(const rk_arg *a)
{
    switch (a->dtype) {
    case RK_F16:
        return f16_to_f32(a->v.bits);
    case RK_BF16:
        return bf16_to_f32(a->v.bits);
    default:
        return a->v.f;
    }
}

/* x rounded to the float type t, as a double. */
static double round_to(rk_dtype t, double x)
{
    switch (t) {
    case RK_F16:
        return f16_to_f32(f64_to_f16(x));
    case RK_BF16:
        return bf16_to_f32(f64_to_bf16(x));
    case RK_F32:
        return (double)(float)x;
    default:
        return x;
    }
}

/* An integer argument's value as a double, when exactly representable in one; false otherwise. */
static bool int_as_double(const rk_arg *a, double *out)
{
    if (dt_is_signed(a->dtype)) {
        double d = (double)a->v.i;
        if (d >= 9223372036854775808.0 || d < -9223372036854775808.0 || (int64_t)d != a->v.i)
            return false;
        *out = d;
    } else {
        double d = (double)a->v.u;
        if (d >= 18446744073709551616.0 || (uint64_t)d != a->v.u)
            return false;
        *out = d;
    }
    return true;
}

static void arg_str(const rk_arg *a, char *buf, size_t n)
{
    if (a->kind != RK_PARAM_POINTER && !rk_dtype_name(a->dtype))
        snprintf(buf, n, "an argument of invalid dtype %d", (int)a->dtype);
    else if (a->kind == RK_PARAM_POINTER)
        snprintf(buf, n, "pointer %p", a->v.ptr);
    else if (a->dtype == RK_BOOL)
        snprintf(buf, n, "bool %s", a->v.b ? "true" : "false");
    else if (dt_is_float(a->dtype))
        snprintf(buf, n, "%s %.17g", rk_dtype_name(a->dtype), float_value(a));
    else if (dt_is_signed(a->dtype))
        snprintf(buf, n, "%s %lld", rk_dtype_name(a->dtype), (long long)a->v.i);
    else
        snprintf(buf, n, "%s %llu", rk_dtype_name(a->dtype), (unsigned long long)a->v.u);
}

/* Writes the argument, converted to the parameter's type, at dst; on failure writes why. The argument
 * is spelt out (`got`) only on the way to a failure: a launch that succeeds formats nothing. */
#define got (arg_str(a, got_buf, sizeof got_buf), got_buf)
static bool convert_scalar(const rk_param *p, const rk_arg *a, unsigned char *dst, char *why, size_t whylen)
{
    char got_buf[96];
    rk_dtype t = p->dtype;
    if (!rk_dtype_name(a->dtype)) {
        snprintf(why, whylen, "got %s", got);
        return false;
    }
    if (t == RK_BOOL || a->dtype == RK_BOOL) {
        if (t != a->dtype) {
            snprintf(why, whylen, "got %s; %s", got,
                     t == RK_BOOL ? "a bool takes rk_arg_bool" : "a bool does not convert to a number");
            return false;
        }
        dst[0] = a->v.b ? 1 : 0;
        return true;
    }
    if (dt_is_int(t)) {
        if (dt_is_float(a->dtype)) {
            snprintf(why, whylen, "got %s; a float does not convert to an integer parameter", got);
            return false;
        }
        int bits = (int)rk_dtype_size(t) * 8;
        bool fits;
        uint64_t u;
        if (dt_is_signed(a->dtype)) {
            int64_t v = a->v.i;
            u = (uint64_t)v;
            if (dt_is_signed(t))
                fits = bits == 64 || (v >= -(INT64_C(1) << (bits - 1)) && v < (INT64_C(1) << (bits - 1)));
            else
                fits = v >= 0 && (bits == 64 || (uint64_t)v < (UINT64_C(1) << bits));
        } else {
            u = a->v.u;
            fits = dt_is_signed(t) ? u < (UINT64_C(1) << (bits - 1)) : bits == 64 || u < (UINT64_C(1) << bits);
        }
        if (!fits) {
            snprintf(why, whylen, "got %s, which does not fit in %s", got, rk_dtype_name(t));
            return false;
        }
        memcpy(dst, &u, (size_t)bits / 8); /* little-endian: the low bytes */
        return true;
    }
    /* A float parameter. */
    double x;
    if (dt_is_float(a->dtype)) {
        if (a->dtype == t) { /* the same format: the bits as given, NaN payloads included */
            if (t == RK_F16 || t == RK_BF16)
                memcpy(dst, &a->v.bits, 2);
            else if (t == RK_F32) {
                float f = (float)a->v.f;
                memcpy(dst, &f, 4);
            } else
                memcpy(dst, &a->v.f, 8);
            return true;
        }
        x = float_value(a);
    } else if (!int_as_double(a, &x)) {
        snprintf(why, whylen, "got %s, which is not exactly representable as %s", got, rk_dtype_name(t));
        return false;
    }
    if (!isnan(x) && round_to(t, x) != x) {
        snprintf(why, whylen, "got %s, which is not exactly representable as %s (pass rk_arg_%s)", got,
                 rk_dtype_name(t), rk_dtype_name(t));
        return false;
    }
#undef got
    switch (t) {
    case RK_F16: {
        uint16_t h = f64_to_f16(x);
        memcpy(dst, &h, 2);
        break;
    }
    case RK_BF16: {
        uint16_t h = f64_to_bf16(x);
        memcpy(dst, &h, 2);
        break;
    }
    case RK_F32: {
        float f = (float)x;
        memcpy(dst, &f, 4);
        break;
    }
    default:
        memcpy(dst, &x, 8);
        break;
    }
    return true;
}

static void param_type_str(const rk_param *p, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s", p->kind == RK_PARAM_POINTER ? "*" : "", rk_dtype_name(p->dtype));
}

/* Checks and lays out every argument into k->kernarg, with k->argptrs pointing at each. */
static rk_status build_args(rk_kernel *k, const rk_arg *args, int nargs)
{
    rk_ctx *ctx = k->prog->ctx;
    if (nargs > 0 && !args)
        return rt_fail(ctx, RK_EINVAL, "kernel %s: args is NULL but nargs is %d", k->name, nargs);
    if (nargs != k->nparams) {
        char list[512] = "";
        size_t n = 0;
        for (int i = 0; i < k->nparams && n < sizeof list; i++) {
            char ty[32];
            param_type_str(&k->params[i], ty, sizeof ty);
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%s: %s", i ? ", " : "", k->params[i].name, ty);
        }
        return rt_fail(ctx, RK_ELAUNCH, "kernel %s takes %d argument%s (%s), got %d", k->name, k->nparams,
                       k->nparams == 1 ? "" : "s", list, nargs);
    }
    memset(k->kernarg, 0, k->kernarg_size);
    for (int i = 0; i < nargs; i++) {
        const rk_param *p = &k->params[i];
        const rk_arg *a = &args[i];
        unsigned char *dst = k->kernarg + k->offsets[i];
        k->argptrs[i] = dst;
        char ty_buf[32], why[256];
#define ty (param_type_str(p, ty_buf, sizeof ty_buf), ty_buf) /* spelt out only for a message */
        if (p->kind == RK_PARAM_POINTER) {
            if (a->kind != RK_PARAM_POINTER) {
                arg_str(a, why, sizeof why);
                return rt_fail(ctx, RK_ELAUNCH,
                               "kernel %s, argument %d '%s' (%s): expected a pointer (rk_arg_ptr), got %s", k->name,
                               i + 1, p->name, ty, why);
            }
            void *ptr = a->v.ptr;
            if (ptr && !rt_alloc_find(ctx, ptr, 0))
                return rt_fail(ctx, RK_ELAUNCH,
                               "kernel %s, argument %d '%s' (%s): %p is not inside memory from rk_malloc on this "
                               "context (a host pointer?)",
                               k->name, i + 1, p->name, ty, ptr);
            if ((uintptr_t)ptr % 16)
                return rt_fail(ctx, RK_ELAUNCH, "kernel %s, argument %d '%s' (%s): pointer %p is not 16-byte aligned",
                               k->name, i + 1, p->name, ty, ptr);
            memcpy(dst, &ptr, 8);
            continue;
        }
        if (a->kind != RK_PARAM_SCALAR)
            return rt_fail(ctx, RK_ELAUNCH, "kernel %s, argument %d '%s' (%s): expected a scalar, got a pointer",
                           k->name, i + 1, p->name, ty);
        if (!convert_scalar(p, a, dst, why, sizeof why))
            return rt_fail(ctx, RK_ELAUNCH, "kernel %s, argument %d '%s' (%s): %s", k->name, i + 1, p->name, ty, why);
#undef ty
    }
    return RK_OK;
}

/* Evaluates @grid with the interpreter, or takes the last result when the grid's arguments are the
 * same bytes as last time (@grid is pure): launching in a loop evaluates it once. */
static rk_status eval_grid(rk_kernel *k, uint32_t grid[3])
{
    rk_ctx *ctx = k->prog->ctx;
    if (!k->grid)
        return rt_fail(ctx, RK_ELAUNCH, "kernel %s has no @grid: give the launch a grid", k->name);
    unsigned char key[256];
    size_t n = 0;
    bool keyed = k->grid_key_size <= sizeof key;
    for (int i = 0; i < k->grid->body->nargs; i++) {
        int j = k->grid_params[i];
        k->grid_args[i] = k->argptrs[j];
        size_t sz = k->params[j].kind == RK_PARAM_POINTER ? 8 : rk_dtype_size(k->params[j].dtype);
        if (keyed)
            memcpy(key + n, k->argptrs[j], sz);
        n += sz;
    }
    if (keyed && k->grid_known && memcmp(key, k->grid_key, n) == 0) {
        memcpy(grid, k->grid_last, sizeof k->grid_last);
        return RK_OK;
    }
    char msg[512];
    InterpStatus st = interp_eval_grid(k->grid, k->grid_args, grid, msg, sizeof msg);
    if (st == INTERP_ERR_NOMEM)
        return rt_fail(ctx, RK_ENOMEM, "out of memory evaluating the @grid of %s", k->name);
    if (st != INTERP_OK) {
        k->grid_known = false;
        return rt_fail(ctx, RK_ELAUNCH, "the @grid of kernel %s: %s", k->name, msg);
    }
    if (keyed) {
        memcpy(k->grid_key, key, n);
        memcpy(k->grid_last, grid, sizeof k->grid_last);
        k->grid_known = true;
    }
    return RK_OK;
}

/* Loads the program's module and resolves the kernel, once. */
static rk_status kernel_ready(rk_kernel *k)
{
    rk_program *p = k->prog;
    rk_ctx *ctx = p->ctx;
    if (k->fn)
        return RK_OK;
    rk_status st = rt_need_device(ctx);
    if (st)
        return st;
    RtDevice *d = ctx->dev;
    if (strcmp(p->target, d->props.target) != 0)
        return rt_fail(ctx, RK_EUNSUPPORTED, "the program was compiled for target %s, but device %s (%s) runs %s",
                       p->target, d->props.kind, d->props.arch, d->props.target);
    if (!p->mod && (st = d->ops->load(d, p->binary, p->size, &p->mod)))
        return rt_dev_error(ctx, st);
    if ((st = d->ops->function(d, p->mod, k->symbol, &k->fn)))
        return rt_dev_error(ctx, st);
    return RK_OK;
}

rk_status rk_kernel_grid(rk_kernel *k, const rk_arg *args, int nargs, uint32_t grid[3])
{
    if (!k)
        return RK_EINVAL;
    rk_ctx *ctx = k->prog->ctx;
    RT_ENTER(ctx);
    if (!grid)
        return rt_fail(ctx, RK_EINVAL, "rk_kernel_grid: grid is NULL");
    rk_status st = build_args(k, args, nargs);
    return st ? st : eval_grid(k, grid);
}

rk_status rt_args_grid(rk_kernel *k, const uint32_t *grid_in, const rk_arg *args, int nargs, uint32_t grid[3])
{
    rk_status st = build_args(k, args, nargs);
    if (st)
        return st;
    if (grid_in) {
        memcpy(grid, grid_in, 3 * sizeof *grid);
        return RK_OK;
    }
    return eval_grid(k, grid);
}

/* A launch recorded in the trace (RK_PROFILE): the device's call, from the host's view, with the
 * launch's work, and on emu and interp (whose launches run to completion inside the call) what it
 * achieved against the peaks of the device its target stands for (perf.c). */
static rk_status launch_profiled(rk_ctx *ctx, rk_kernel *run, const RtLaunch *l)
{
    double t0 = prof_now_us();
    rk_status st = ctx->dev->ops->launch(ctx->dev, l);
    double t1 = prof_now_us();
    char args[1024], roof[640] = "";
    rk_work w;
    const rk_peaks *p;
    bool sync = strcmp(ctx->info.kind, "hip") != 0 && strcmp(ctx->info.kind, "cuda") != 0;
    if (!st && rt_work_eval(run, l->grid, &w) && rk_device_peaks(ctx, run->prog->target, &p, NULL) == RK_OK) {
        rk_roofline r;
        rk_roofline_of(p, &w, sync ? (t1 - t0) / 1e3 : 0, &r);
        snprintf(roof, sizeof roof,
                 ", \"flops\": %.17g, \"bytes\": %.17g, \"peaks\": \"%s\", \"roofline_bound_ms\": %.6g, "
                 "\"work_estimate\": %s%s",
                 w.flops, w.bytes, p->name, r.bound_ms, w.estimate ? "true" : "false",
                 sync ? "" : ", \"note\": \"asynchronous: the span is the enqueue, not the kernel\"");
        if (sync) {
            size_t n = strlen(roof);
            snprintf(roof + n, sizeof roof - n,
                     ", \"flop_per_s\": %.6g, \"bytes_per_s\": %.6g, \"roofline_fraction\": %.6g, "
                     "\"peaks_estimate\": true",
                     r.flops_per_s, r.bytes_per_s, r.fraction);
        }
    }
    rt_clear(ctx);
    snprintf(args, sizeof args, "{\"grid\": [%u, %u, %u], \"block\": %u, \"lds_bytes\": %u, \"status\": \"%s\"%s}",
             l->grid[0], l->grid[1], l->grid[2], l->block, l->lds_bytes, rk_status_name(st), roof);
    prof_span(ctx->prof, "launch", l->name, t0, t1 - t0, args);
    return st ? rt_dev_error(ctx, st) : RK_OK;
}

rk_status rk_launch(rk_kernel *k, const uint32_t *grid, const rk_arg *args, int nargs, rk_stream *stream)
{
    if (!k)
        return RK_EINVAL;
    rk_ctx *ctx = k->prog->ctx;
    RT_ENTER(ctx);
    if (stream)
        return rt_fail(ctx, RK_EUNSUPPORTED, "streams are not implemented yet: pass NULL (the default stream)");
    rk_status st = build_args(k, args, nargs);
    if (st)
        return st;
    rk_kernel *run; /* k, or its variant for these arguments' facts (spec.c) */
    if ((st = rt_spec_select(k, &run)))
        return st;
    uint32_t g[3];
    if (grid)
        memcpy(g, grid, sizeof g);
    else if ((st = eval_grid(k, g)))
        return st;
    if (g[0] == 0 || g[1] == 0 || g[2] == 0)
        return RK_OK; /* nothing to run, as in Triton */
    if ((uint64_t)g[0] * (uint64_t)(k->block > 0 ? k->block : 1) > UINT32_MAX)
        return rt_fail(ctx, RK_ELAUNCH, "kernel %s: grid x %u times %d work-items per workgroup exceeds 2^32 - 1",
                       k->name, g[0], k->block);
    if ((st = kernel_ready(run)) || (st = rt_tma_build(run)))
        return st;
    RtLaunch l = {.fn = run->fn,
                  .name = k->name,
                  .grid = {g[0], g[1], g[2]},
                  .block = (uint32_t)run->block,
                  .lds_bytes = (uint32_t)run->lds_bytes,
                  .kernarg = run->kernarg,
                  .kernarg_size = run->kernarg_size,
                  .args = run->argptrs,
                  .nargs = run->nparams + run->ntma,
                  .threads = ctx->host_threads,
                  .print = ctx->print,
                  .print_ud = ctx->print_ud,
                  .check_races = ctx->check_races};
    ctx->stats.launches++;
    if (ctx->prof)
        return launch_profiled(ctx, run, &l);
    st = ctx->dev->ops->launch(ctx->dev, &l);
    return st ? rt_dev_error(ctx, st) : RK_OK;
}
