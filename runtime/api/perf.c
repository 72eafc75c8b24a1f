/* Where a kernel stands: the devices' peak figures (a table with its sources), the evaluation of a
 * kernel's work formulas for a launch (compiler/report/work.h says the format), and the roofline.
 *
 * The peaks are the vendors' published dense figures at the peak engine clock. Sources:
 *   MI300X  "AMD Instinct MI300X Accelerator" data sheet (amd.com, instinct-mi300x-data-sheet.pdf) and
 *           "AMD CDNA 3 Architecture" white paper (amd.com, amd-cdna-3-white-paper.pdf): 304 CUs,
 *           2100 MHz, 5.3 TB/s HBM3; 64 KiB LDS and a 512-entry VGPR file (AGPRs included) per SIMD lane.
 *   MI325X  "AMD Instinct MI325X Accelerator" data sheet: the MI300X's compute, 6 TB/s HBM3E.
 *   MI250X  "AMD Instinct MI250X Accelerator" data sheet and "AMD CDNA 2 Architecture" white paper:
 *           220 CUs, 1700 MHz, 3.2768 TB/s HBM2e, no FP8.
 *   MI355X  "AMD Instinct MI355X GPU" data sheet and "AMD CDNA 4 Architecture" white paper: 256 CUs,
 *           2400 MHz, 8 TB/s HBM3E, 160 KiB LDS per CU.
 *   H100    "NVIDIA H100 Tensor Core GPU" data sheet (SXM5 column; the tensor figures there are with
 *           sparsity, the dense ones half) and the "NVIDIA H100 Tensor Core GPU Architecture" white
 *           paper (132 SMs, 228 KiB shared memory and 64 Ki registers per SM): 3.35 TB/s HBM3.
 *   H200    "NVIDIA H200 Tensor Core GPU" data sheet (SXM column): the H100's compute, 4.8 TB/s HBM3e.
 * docs/performance.md, "Device peaks", repeats the table. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/api/api_internal.h"

#define T 1e12
static const rk_peaks peaks[] = {
    {"MI300X", "gfx942", 304, 2100, 81.7 * T, 163.4 * T, 163.4 * T, 163.4 * T, 1307.4 * T, 1307.4 * T, 2614.9 * T,
     5.3e12, 65536, 512, "AMD Instinct MI300X data sheet; AMD CDNA 3 architecture white paper"},
    {"MI325X", "gfx942", 304, 2100, 81.7 * T, 163.4 * T, 163.4 * T, 163.4 * T, 1307.4 * T, 1307.4 * T, 2614.9 * T,
     6.0e12, 65536, 512, "AMD Instinct MI325X data sheet; AMD CDNA 3 architecture white paper"},
    {"MI250X", "gfx90a", 220, 1700, 47.9 * T, 95.7 * T, 47.9 * T, 95.7 * T, 383.0 * T, 383.0 * T, 0, 3.2768e12,
     65536, 512, "AMD Instinct MI250X data sheet; AMD CDNA 2 architecture white paper"},
    {"MI355X", "gfx950", 256, 2400, 78.6 * T, 78.6 * T, 157.3 * T, 157.3 * T, 2516.6 * T, 2516.6 * T, 5033.2 * T,
     8.0e12, 163840, 512, "AMD Instinct MI355X data sheet; AMD CDNA 4 architecture white paper"},
    {"H100 SXM", "sm_90", 132, 1980, 34.0 * T, 67.0 * T, 67.0 * T, 494.7 * T, 989.4 * T, 989.4 * T, 1978.9 * T,
     3.35e12, 233472, 65536, "NVIDIA H100 Tensor Core GPU data sheet (SXM5, dense); H100 architecture white paper"},
    {"H200 SXM", "sm_90", 132, 1980, 34.0 * T, 67.0 * T, 67.0 * T, 494.7 * T, 989.4 * T, 989.4 * T, 1978.9 * T,
     4.8e12, 233472, 65536, "NVIDIA H200 Tensor Core GPU data sheet (SXM, dense); H100 architecture white paper"},
};
#undef T
enum { NPEAKS = sizeof peaks / sizeof peaks[0] };

int rk_peaks_count(void)
{
    return NPEAKS;
}

const rk_peaks *rk_peaks_get(int i)
{
    return i >= 0 && i < NPEAKS ? &peaks[i] : NULL;
}

/* a and b equal ignoring case and spaces; with prefix, a only has to start b's letters */
static bool same_name(const char *a, const char *b, bool prefix)
{
    for (;;) {
        while (*a == ' ')
            a++;
        while (*b == ' ')
            b++;
        if (!*a || !*b)
            return !*a && (!*b || prefix);
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
        a++, b++;
    }
}

const rk_peaks *rk_peaks_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < NPEAKS; i++)
        if (same_name(name, peaks[i].name, false))
            return &peaks[i];
    for (int i = 0; i < NPEAKS; i++) /* "H200" for "H200 SXM" */
        if (same_name(name, peaks[i].name, true))
            return &peaks[i];
    for (int i = 0; i < NPEAKS; i++)
        if (strcmp(name, peaks[i].arch) == 0)
            return &peaks[i];
    return NULL;
}

/* The entry whose name appears in a device's name ("AMD Instinct MI300X", "NVIDIA H200"). */
static const rk_peaks *find_in(const char *devname)
{
    if (!devname)
        return NULL;
    for (int i = 0; i < NPEAKS; i++) {
        char key[16];
        size_t n = strcspn(peaks[i].name, " ");
        snprintf(key, sizeof key, "%.*s", (int)n, peaks[i].name);
        if (strstr(devname, key))
            return &peaks[i];
    }
    return NULL;
}

static rk_status device_peaks(rk_ctx *ctx, const char *target, const rk_peaks **out, bool *estimate)
{
    const rk_device_info *d = rt_ctx_device(ctx);
    bool gpu = strcmp(d->kind, "hip") == 0 || strcmp(d->kind, "cuda") == 0;
    const char *t = target ? target : d->target ? d->target : "gfx942";
    const char *env = getenv("RK_PEAKS");
    const rk_peaks *p = NULL;
    if (env && *env && !(p = rk_peaks_find(env)))
        return rt_fail(ctx, RK_ENOTFOUND, "RK_PEAKS=%s names no device of the peaks table", env);
    if (!p && gpu && !target)
        p = find_in(d->name);
    if (!p) {
        /* the device an emulated target stands for, in the peaks table */
        const char *arch = strcmp(t, "emu") == 0 || strcmp(t, "interp") == 0 ? "gfx942" /* names a target: peaks */
                           : strcmp(t, "emu_sm90") == 0                      ? "sm_90"  /* names a target: peaks */
                                                                             : t;
        p = rk_peaks_find(arch);
    }
    if (!p)
        return rt_fail(ctx, RK_ENOTFOUND, "no device of the peaks table runs target %s", t);
    *out = p;
    if (estimate)
        *estimate = !gpu || (target && d->target && strcmp(target, d->target) != 0);
    return RK_OK;
}

rk_status rk_device_peaks(rk_ctx *ctx, const char *target, const rk_peaks **out, bool *estimate)
{
    if (!ctx || !out)
        return RK_EINVAL;
    RT_ENTER(ctx);
    return device_peaks(ctx, target, out, estimate);
}

static double matrix_peak(const rk_peaks *p, rk_dtype t)
{
    switch (t) {
    case RK_F16:
        return p->f16_matrix;
    case RK_BF16:
        return p->bf16_matrix;
    case RK_F64:
        return p->f64_matrix;
    default:
        return p->f32_matrix;
    }
}

rk_status rk_roofline_of(const rk_peaks *p, const rk_work *w, double ms, rk_roofline *r)
{
    if (!p || !w || !r || ms < 0)
        return RK_EINVAL;
    memset(r, 0, sizeof *r);
    double mp = matrix_peak(p, w->dot_dtype), vp = p->f32;
    double t_compute = (mp > 0 ? w->flops_dot / mp : 0) + (vp > 0 ? w->flops_elem / vp : 0); /* seconds */
    double bytes = w->bytes_min > 0 ? w->bytes_min : w->bytes;
    double t_memory = p->bytes_per_s > 0 ? bytes / p->bytes_per_s : 0;
    r->peak_flops_per_s = t_compute > 0 ? w->flops / t_compute : vp;
    r->ridge = p->bytes_per_s > 0 ? r->peak_flops_per_s / p->bytes_per_s : 0;
    r->intensity = bytes > 0 ? w->flops / bytes : 0;
    r->limit = t_compute > t_memory ? "compute" : "memory";
    r->bound_ms = 1e3 * (t_compute > t_memory ? t_compute : t_memory);
    if (ms > 0) {
        r->flops_per_s = w->flops / (ms * 1e-3);
        r->bytes_per_s = w->bytes / (ms * 1e-3);
        r->fraction = r->bound_ms / ms;
    }
    return RK_OK;
}

/* ---- the work formulas ---- */

static double param_value(const rk_kernel *k, int i)
{
    const unsigned char *p = k->kernarg + k->offsets[i];
    union {
        int8_t i8;
        int16_t i16;
        int32_t i32;
        int64_t i64;
        uint8_t u8;
        uint16_t u16;
        uint32_t u32;
        uint64_t u64;
        float f32;
        double f64;
    } v;
    memcpy(&v, p, rk_dtype_size(k->params[i].dtype));
    switch (k->params[i].dtype) {
    case RK_BOOL:
    case RK_U8:
        return v.u8;
    case RK_I8:
        return v.i8;
    case RK_I16:
        return v.i16;
    case RK_U16:
        return v.u16;
    case RK_I32:
        return v.i32;
    case RK_U32:
        return v.u32;
    case RK_I64:
        return (double)v.i64;
    case RK_U64:
        return (double)v.u64;
    case RK_F32:
        return v.f32;
    case RK_F64:
        return v.f64;
    default:
        return 0;
    }
}

/* A formula compiled once per query (compiler/report/work.h gives the tokens), evaluated per program. */
typedef enum { R_NUM, R_ARG, R_GRID, R_PID, R_SEL, R_ADD, R_SUB, R_MUL, R_DIV, R_REM, R_MIN, R_MAX, R_CDIV, R_EQ,
               R_NE, R_LT, R_LE, R_GT, R_GE } RpnOp;
typedef struct Rpn {
    RpnOp op;
    int axis;
    double v;
} Rpn;
enum { RPN_STACK = 64 };

/* Compiles the formula (to the end of its line) into t (at most cap tokens), with each argument's value
 * resolved; the number of tokens, or -1 when it is not a formula of those tokens. */
static int rpn_compile(const rk_kernel *k, const char *s, Rpn *t, int cap, bool *per_pid)
{
    static const char *const ops[] = {"+", "-", "*", "/", "%", "min", "max", "cdivp", "eq", "ne", "lt", "le", "gt", "ge"};
    int n = 0, depth = 0;
    while (*s && *s != '\n') {
        while (*s == ' ')
            s++;
        if (!*s || *s == '\n')
            break;
        size_t len = strcspn(s, " \n");
        char tok[24];
        if (len >= sizeof tok || n == cap)
            return -1;
        memcpy(tok, s, len);
        tok[len] = 0;
        s += len;
        Rpn r = {R_NUM, 0, 0};
        if (isdigit((unsigned char)tok[0]) || (tok[0] == '-' && isdigit((unsigned char)tok[1]))) {
            r.v = strtod(tok, NULL);
        } else if (tok[0] == 'a' && isdigit((unsigned char)tok[1])) {
            int i = atoi(tok + 1);
            if (i >= k->nparams || k->params[i].kind != RK_PARAM_SCALAR)
                return -1;
            r.op = R_ARG;
            r.v = param_value(k, i);
        } else if ((tok[0] == 'g' || tok[0] == 'p') && tok[1] >= 'x' && tok[1] <= 'z' && !tok[2]) {
            r.op = tok[0] == 'g' ? R_GRID : R_PID;
            r.axis = tok[1] - 'x';
            *per_pid |= tok[0] == 'p';
        } else if (strcmp(tok, "sel") == 0) {
            r.op = R_SEL;
        } else {
            size_t o = 0;
            while (o < sizeof ops / sizeof ops[0] && strcmp(tok, ops[o]) != 0)
                o++;
            if (o == sizeof ops / sizeof ops[0])
                return -1;
            r.op = (RpnOp)(R_ADD + o);
        }
        depth += r.op <= R_PID ? 1 : r.op == R_SEL ? -2 : -1;
        if (depth < 1 || depth > RPN_STACK)
            return -1;
        t[n++] = r;
    }
    return depth == 1 ? n : -1;
}

static double rpn_eval(const Rpn *t, int n, const uint32_t grid[3], const uint32_t pid[3])
{
    double st[RPN_STACK];
    int sp = 0;
    for (int i = 0; i < n; i++) {
        const Rpn *r = &t[i];
        switch (r->op) {
        case R_NUM:
        case R_ARG:
            st[sp++] = r->v;
            continue;
        case R_GRID:
            st[sp++] = grid[r->axis];
            continue;
        case R_PID:
            st[sp++] = pid[r->axis];
            continue;
        case R_SEL:
            sp -= 2;
            st[sp - 1] = st[sp - 1] != 0 ? st[sp] : st[sp + 1];
            continue;
        default:
            break;
        }
        double b = st[--sp], a = st[sp - 1], v;
        switch (r->op) {
        case R_ADD: v = a + b; break;
        case R_SUB: v = a - b; break;
        case R_MUL: v = a * b; break;
        case R_DIV: v = b != 0 ? trunc(a / b) : 0; break;
        case R_REM: v = b != 0 ? fmod(a, b) : a; break;
        case R_MIN: v = a < b ? a : b; break;
        case R_MAX: v = a > b ? a : b; break;
        case R_CDIV: v = a > 0 && b > 0 ? ceil(a / b) : 0; break;
        case R_EQ: v = a == b; break;
        case R_NE: v = a != b; break;
        case R_LT: v = a < b; break;
        case R_LE: v = a <= b; break;
        case R_GT: v = a > b; break;
        default: v = a >= b; break;
        }
        st[sp - 1] = v;
    }
    return st[0];
}

/* A per-program formula summed over the grid: the formula times the programs when it names no program
 * id; else evaluated for each program, or, past 65536 programs, for 65536 evenly spread ones and
 * scaled (*sampled set). NAN when it is not a formula. */
static double eval_total(rk_kernel *k, const uint32_t grid[3], const char *f, bool *sampled)
{
    rk_ctx *ctx = k->prog->ctx;
    size_t len = strcspn(f, "\n");
    int cap = (int)(len / 2 + 2);
    Rpn *t = arena_alloc_raw(&ctx->alloc, sizeof *t * (size_t)cap);
    if (!t)
        return NAN;
    bool per_pid = false;
    int n = rpn_compile(k, f, t, cap, &per_pid);
    double programs = (double)grid[0] * grid[1] * grid[2], total;
    static const uint32_t zero[3];
    if (n < 0) {
        total = NAN;
    } else if (!per_pid || programs == 0) {
        total = programs * rpn_eval(t, n, grid, zero);
    } else {
        double sum = 0, step = programs > 65536 ? programs / 65536 : 1, count = 0;
        if (step > 1)
            *sampled = true;
        for (double i = 0; i < programs; i += step) {
            uint64_t lin = (uint64_t)i;
            uint32_t pid[3] = {(uint32_t)(lin % grid[0]), (uint32_t)(lin / grid[0] % grid[1]),
                               (uint32_t)(lin / grid[0] / grid[1])};
            sum += rpn_eval(t, n, grid, pid);
            count++;
        }
        total = sum * programs / count;
    }
    arena_free_raw(&ctx->alloc, t, sizeof *t * (size_t)cap);
    return total;
}

/* The line starting with `key ` in the description, or NULL. */
static const char *field(const char *text, const char *key)
{
    size_t n = strlen(key);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, key, n) == 0 && l[n] == ' ')
            return l + n + 1;
    return NULL;
}

bool rt_work_eval(rk_kernel *k, const uint32_t grid[3], rk_work *w)
{
    memset(w, 0, sizeof *w);
    w->why = "";
    w->dot_dtype = RK_F32;
    if (!k->work)
        return false;
    const char *fd = field(k->work, "flops_dot"), *fe = field(k->work, "flops_elem");
    const char *bl = field(k->work, "bytes_load"), *bs = field(k->work, "bytes_store");
    if (!fd || !fe || !bl || !bs)
        return false;
    bool sampled = false;
    w->flops_dot = eval_total(k, grid, fd, &sampled);
    w->flops_elem = eval_total(k, grid, fe, &sampled);
    w->bytes_read = eval_total(k, grid, bl, &sampled);
    w->bytes_written = eval_total(k, grid, bs, &sampled);
    if (isnan(w->flops_dot) || isnan(w->flops_elem) || isnan(w->bytes_read) || isnan(w->bytes_written))
        return false;
    w->flops = w->flops_dot + w->flops_elem;
    w->bytes = w->bytes_read + w->bytes_written;
    /* the least traffic: each pointer's bytes, at most its buffer */
    double attributed = 0, least = 0;
    for (int i = 0; i < k->nparams; i++) {
        char key[32];
        snprintf(key, sizeof key, "bytes_a%d", i);
        const char *f = field(k->work, key);
        double b = f ? eval_total(k, grid, f, &sampled) : NAN;
        if (isnan(b))
            continue;
        attributed += b;
        void *ptr;
        memcpy(&ptr, k->kernarg + k->offsets[i], sizeof ptr);
        const RtAlloc *al = ptr ? rt_alloc_find(k->prog->ctx, ptr, 0) : NULL;
        double avail = al ? (double)(al->base + al->bytes - (uintptr_t)ptr) : b;
        least += b < avail ? b : avail;
    }
    w->bytes_min = least + (w->bytes - attributed > 0 ? w->bytes - attributed : 0);
    const char *dt = field(k->work, "dtype");
    for (int t = RK_BOOL; dt && t <= RK_F64; t++) {
        size_t n = strlen(rk_dtype_name((rk_dtype)t));
        if (strncmp(dt, rk_dtype_name((rk_dtype)t), n) == 0 && (dt[n] == '\n' || !dt[n]))
            w->dot_dtype = (rk_dtype)t;
    }
    /* @flops / @bytes: the user's figures for the whole launch replace the compiler's */
    const char *uf = field(k->work, "flops_user"), *ub = field(k->work, "bytes_user");
    static const uint32_t one[3] = {1, 1, 1};
    bool dummy = false;
    double fu = uf ? eval_total(k, one, uf, &dummy) : NAN, bu = ub ? eval_total(k, one, ub, &dummy) : NAN;
    if (uf && !isnan(fu)) {
        w->flops_dot = w->flops_dot > 0 ? fu : 0;
        w->flops_elem = w->flops_dot > 0 ? 0 : fu;
        w->flops = fu;
    }
    if (ub && !isnan(bu)) {
        double r = w->bytes > 0 ? w->bytes_read / w->bytes : 1;
        w->bytes_read = bu * r;
        w->bytes_written = bu - w->bytes_read;
        w->bytes = w->bytes_min = bu;
    }
    const char *why = field(k->work, "estimate");
    if (uf && ub && !isnan(fu) && !isnan(bu)) {
        w->why = "";
        w->estimate = false;
    } else if (why) {
        w->estimate = true;
        w->why = why; /* to the end of the text: the estimate line is the last */
    } else if (sampled) {
        w->estimate = true;
        w->why = "work that varies by program summed over 65536 programs of the grid and scaled";
    }
    return true;
}

rk_status rk_kernel_work(rk_kernel *k, const uint32_t *grid, const rk_arg *args, int nargs, rk_work *w)
{
    if (!k || !w)
        return RK_EINVAL;
    rk_ctx *ctx = k->prog->ctx;
    RT_ENTER(ctx);
    uint32_t g[3];
    rk_status st = rt_args_grid(k, grid, args, nargs, g);
    if (st)
        return st;
    if (!rt_work_eval(k, g, w))
        return rt_fail(ctx, RK_EUNSUPPORTED, "kernel %s has no work formulas (a bundle made before them?)", k->name);
    return RK_OK;
}

bool rt_roofline_for(rk_kernel *k, const uint32_t *grid, const rk_arg *args, int nargs, double ms, rk_work *w,
                     const rk_peaks **p, bool *estimate, rk_roofline *r)
{
    uint32_t g[3];
    rk_ctx *ctx = k->prog->ctx;
    char saved[sizeof ctx->err];
    snprintf(saved, sizeof saved, "%s", ctx->err);
    bool ok = rt_args_grid(k, grid, args, nargs, g) == RK_OK && rt_work_eval(k, g, w) &&
              device_peaks(ctx, k->prog->target, p, estimate) == RK_OK && rk_roofline_of(*p, w, ms, r) == RK_OK;
    snprintf(ctx->err, sizeof ctx->err, "%s", saved); /* a figure that cannot be had is no error */
    return ok;
}

const char *rt_roofline_text(rk_kernel *k, const uint32_t *grid, const rk_arg *args, int nargs, double ms, bool json,
                             char *buf, size_t n)
{
    rk_work w;
    const rk_peaks *p;
    bool est = false;
    rk_roofline r;
    if (!rt_roofline_for(k, grid, args, nargs, ms, &w, &p, &est, &r))
        return json ? "" : "";
    if (json)
        snprintf(buf, n,
                 ", \"flops\": %.17g, \"bytes\": %.17g, \"flop_per_s\": %.6g, \"bytes_per_s\": %.6g, \"peaks\": "
                 "\"%s\", \"peaks_estimate\": %s, \"roofline_bound_ms\": %.6g, \"roofline_fraction\": %.6g, "
                 "\"work_estimate\": %s",
                 w.flops, w.bytes, r.flops_per_s, r.bytes_per_s, p->name, est ? "true" : "false", r.bound_ms,
                 r.fraction, w.estimate ? "true" : "false");
    else
        snprintf(buf, n, "; %.6f TFLOP/s, %.3f GB/s: %.4f%% of the %s roofline bound (%s-bound%s%s)",
                 r.flops_per_s / 1e12, r.bytes_per_s / 1e9, 100 * r.fraction, p->name, r.limit,
                 est ? ", peaks of the device the target stands for" : "", w.estimate ? ", work estimated" : "");
    return buf;
}
