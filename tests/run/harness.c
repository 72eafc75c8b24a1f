/* The run-test harness: see harness.h for the model, tests/run/README.md for how to run it.
 *
 *   run_harness [--list] [--time] [--device=emu|emu_sm90] [FILTER...]
 *   run_harness --save DIR [FILTER...]                 compile each case for interp and sm_90, no run
 *   run_harness --load DIR --device=cuda [FILTER...]   run those programs: interp against the GPU
 *
 * A FILTER selects the cases whose name contains it ("=NAME" for exactly NAME); none selects all.
 * --device names the device compared with interp: `emu` (the gfx942 lowering, the default),
 * `emu_sm90` (the sm_90 lowering: 32-lane warps, mma.sync, ldmatrix, cp.async) or, with --load,
 * `cuda`. --save and --load carry the cases to a GPU machine without LLVM (bench/h200/run.sh cases):
 * each case's two programs are prebuilt files (tests/device/prebuilt.h) named by a hash of its name.
 * Built with RK_RUN_NO_COMPILER (run_harness_rt, bench/h200/CMakeLists.txt: the GPU machine's
 * runtime-only build), only --load works.
 * Environment:
 *   RK_RUN_SEED=N      the base seed (default: fresh from the clock); every case's inputs derive from it
 *                      and the case's name, so a failure replays with the seed and the name it prints
 *   RK_RUN_ROUNDS=N    run the selection N times with fresh seeds (default 1)
 *   RK_RUN_SECONDS=S   keep running rounds until S seconds have passed (a long run)
 *   RK_RUN_SAMPLE=K    run one case in K of the selection per round (chosen by the seed; default 1: all)
 *   RK_RUN_VERBOSE=1   print every case, with its times on both devices
 * Exit status: 0 when every case agreed, 1 otherwise. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/device/prebuilt.h"
#include "tests/run/harness.h"
#include "support/files.h"

static const char *DEV_NAME[NDEV] = {"interp", "emu"}; /* DEV_EMU: --device */
static const char *save_dir, *load_dir;            /* --save, --load */

/* ---- random numbers ---------------------------------------------------------------------------- */

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void rng_seed(Rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t rng_u64(Rng *r)
{
    uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return res;
}

double rng_unit(Rng *r)
{
    return (double)(rng_u64(r) >> 11) * 0x1p-53;
}

int64_t rng_range(Rng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    if (span == 0)
        return (int64_t)rng_u64(r);
    return (int64_t)((uint64_t)lo + rng_u64(r) % span);
}

/* ---- dtypes ------------------------------------------------------------------------------------ */

const rk_dtype ALL_TYPES[] = {RK_F32, RK_F16, RK_BF16, RK_I8, RK_I32, RK_U32, RK_I64};
const int NALL_TYPES = (int)(sizeof ALL_TYPES / sizeof ALL_TYPES[0]);

const char *tname(rk_dtype t)
{
    return rk_dtype_name(t);
}

bool dt_float(rk_dtype t)
{
    return t == RK_F16 || t == RK_BF16 || t == RK_F32 || t == RK_F64;
}

bool dt_signed(rk_dtype t)
{
    return t == RK_I8 || t == RK_I16 || t == RK_I32 || t == RK_I64;
}

int dt_bits(rk_dtype t)
{
    return t == RK_BOOL ? 8 : (int)rk_dtype_size(t) * 8;
}

double rnd(rk_dtype t, double v)
{
    switch (t) {
    case RK_F16: return rk_f16_to_double(rk_f16_from_double(v));
    case RK_BF16: return rk_bf16_to_double(rk_bf16_from_double(v));
    case RK_F32: return (double)(float)v;
    default: return v;
    }
}

uint64_t ibits(rk_dtype t, const void *p, size_t i)
{
    const uint8_t *b = (const uint8_t *)p + i * rk_dtype_size(t);
    switch (rk_dtype_size(t)) {
    case 1: return b[0];
    case 2: { uint16_t v; memcpy(&v, b, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, b, 4); return v; }
    default: { uint64_t v; memcpy(&v, b, 8); return v; }
    }
}

static void set_bits(rk_dtype t, void *p, size_t i, uint64_t v)
{
    uint8_t *b = (uint8_t *)p + i * rk_dtype_size(t);
    switch (rk_dtype_size(t)) {
    case 1: b[0] = (uint8_t)v; break;
    case 2: { uint16_t x = (uint16_t)v; memcpy(b, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(b, &x, 4); break; }
    default: memcpy(b, &v, 8); break;
    }
}

int64_t iwrap(rk_dtype t, int64_t v)
{
    int bits = dt_bits(t);
    if (t == RK_BOOL)
        return v != 0;
    if (bits == 64)
        return v;
    uint64_t m = (1ull << bits) - 1, u = (uint64_t)v & m;
    if (dt_signed(t) && (u >> (bits - 1)))
        u |= ~m;
    return (int64_t)u;
}

int64_t iget(rk_dtype t, const void *p, size_t i)
{
    if (dt_float(t))
        return (int64_t)fget(t, p, i);
    return iwrap(t, (int64_t)ibits(t, p, i));
}

void iset(rk_dtype t, void *p, size_t i, int64_t v)
{
    if (dt_float(t)) {
        fset(t, p, i, (double)v);
        return;
    }
    set_bits(t, p, i, (uint64_t)v);
}

double fget(rk_dtype t, const void *p, size_t i)
{
    uint64_t b = ibits(t, p, i);
    switch (t) {
    case RK_F16: return rk_f16_to_double((uint16_t)b);
    case RK_BF16: return rk_bf16_to_double((uint16_t)b);
    case RK_F32: { uint32_t u = (uint32_t)b; float f; memcpy(&f, &u, 4); return f; }
    case RK_F64: { double d; memcpy(&d, &b, 8); return d; }
    case RK_U64: return (double)b;
    default: return dt_signed(t) ? (double)iwrap(t, (int64_t)b) : (double)b;
    }
}

void fset(rk_dtype t, void *p, size_t i, double v)
{
    switch (t) {
    case RK_F16: set_bits(t, p, i, rk_f16_from_double(v)); return;
    case RK_BF16: set_bits(t, p, i, rk_bf16_from_double(v)); return;
    case RK_F32: { float f = (float)v; uint32_t u; memcpy(&u, &f, 4); set_bits(t, p, i, u); return; }
    case RK_F64: { uint64_t u; memcpy(&u, &v, 8); set_bits(t, p, i, u); return; }
    default: set_bits(t, p, i, (uint64_t)(int64_t)v); return;
    }
}

/* ---- the case list ----------------------------------------------------------------------------- */

static Case **cases;
static int ncases, capcases;

Case *add_case(const char *file, const char *kernel, SetupFn setup, CheckFn check, const char *namefmt, ...)
{
    if (ncases == capcases) {
        capcases = capcases ? capcases * 2 : 256;
        cases = realloc(cases, (size_t)capcases * sizeof *cases);
    }
    Case *c = calloc(1, sizeof *c);
    va_list ap;
    va_start(ap, namefmt);
    vsnprintf(c->name, sizeof c->name, namefmt, ap);
    va_end(ap);
    c->file = file;
    c->kernel = kernel;
    c->setup = setup;
    c->check = check;
    cases[ncases++] = c;
    return c;
}

void case_define(Case *c, const char *fmt, ...)
{
    size_t n = strlen(c->defines);
    if (n && n + 1 < sizeof c->defines)
        c->defines[n++] = ' ';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->defines + n, sizeof c->defines - n, fmt, ap);
    va_end(ap);
}

void pick_shape(int i, int *block, int *warps)
{
    static const int B[] = {128, 256, 512, 1024}, W[] = {1, 2, 4, 8};
    *block = B[i % 4];
    *warps = W[(i / 4 + i) % 4];
}

/* ---- failures ---------------------------------------------------------------------------------- */

void failf(Run *r, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof buf)
        n = sizeof buf - 1;
    if (r->loglen + (size_t)n + 2 > r->logcap) {
        r->logcap = (r->loglen + (size_t)n + 2) * 2;
        r->log = realloc(r->log, r->logcap);
    }
    memcpy(r->log + r->loglen, buf, (size_t)n);
    r->loglen += (size_t)n;
    r->log[r->loglen++] = '\n';
    r->log[r->loglen] = 0;
    r->failures++;
}

/* ---- buffers ----------------------------------------------------------------------------------- */

static HBuf *new_buf(Run *r, const char *name, rk_dtype dt, size_t n)
{
    if (r->nbufs == MAX_BUFS || r->nargs == MAX_ARGS) {
        fprintf(stderr, "run_harness: too many buffers in %s\n", r->c->name);
        exit(2);
    }
    HBuf *b = &r->bufs[r->nbufs];
    memset(b, 0, sizeof *b);
    b->name = name;
    b->dt = dt;
    b->n = n;
    b->esize = rk_dtype_size(dt);
    size_t bytes = n * b->esize + 16;
    b->host = malloc(bytes);
    b->ref = malloc(bytes);
    b->written = calloc(n + 1, 1);
    for (int d = 0; d < NDEV; d++)
        b->got[d] = malloc(bytes);
    memset(b->host, r->poison, bytes);
    r->argbuf[r->nargs] = r->nbufs;
    r->args[r->nargs++] = rk_arg_ptr(NULL);
    r->nbufs++;
    return b;
}

static double special(Rng *g, rk_dtype t)
{
    switch (rng_range(g, 0, 8)) {
    case 0: return 0.0;
    case 1: return -0.0;
    case 2: return INFINITY;
    case 3: return -INFINITY;
    case 4: return NAN;
    case 5: return t == RK_F16 ? 65504.0 : t == RK_BF16 ? 0x1.fep127 : t == RK_F32 ? 0x1.fffffep127 : 1e300;
    case 6: return t == RK_F16 ? 0x1p-24 * 3 : t == RK_BF16 ? 0x1p-130 : t == RK_F32 ? 0x1p-140 : 1e-310;
    case 7: return -1.0;
    default: return 1.0;
    }
}

void fill_one(Run *r, HBuf *b, size_t i, Gen g)
{
    Rng *R = &r->rng;
    rk_dtype t = b->dt;
    switch (g.kind) {
    case G_NONE:
        return;
    case G_BOOL:
        set_bits(t, b->host, i, (uint64_t)rng_range(R, 0, 1));
        return;
    case G_BITS:
        set_bits(t, b->host, i, rng_u64(R));
        return;
    case G_UNI:
        if (dt_float(t))
            fset(t, b->host, i, g.lo + (g.hi - g.lo) * rng_unit(R));
        else
            iset(t, b->host, i, rng_range(R, (int64_t)g.lo, (int64_t)g.hi));
        return;
    case G_MIX:
        if (dt_float(t)) {
            if (rng_range(R, 0, 15) == 0)
                fset(t, b->host, i, special(R, t));
            else
                fset(t, b->host, i, g.lo + (g.hi - g.lo) * rng_unit(R));
            return;
        }
        switch (rng_range(R, 0, 3)) {
        case 0:
            set_bits(t, b->host, i, rng_u64(R));
            return;
        case 1:
            iset(t, b->host, i, rng_range(R, dt_signed(t) ? -4 : 0, 4));
            return;
        case 2: {
            int bits = dt_bits(t);
            int64_t ext[] = {0, 1, -1, dt_signed(t) ? INT64_MIN >> (64 - bits) : 0,
                             dt_signed(t) ? INT64_MAX >> (64 - bits) : -1, 2, bits - 1, bits};
            iset(t, b->host, i, ext[rng_range(R, 0, 7)]);
            return;
        }
        default:
            iset(t, b->host, i, rng_range(R, -1000, 1000));
            return;
        }
    }
}

void fill(Run *r, HBuf *b, Gen g)
{
    for (size_t i = 0; i < b->n; i++)
        fill_one(r, b, i, g);
}

HBuf *in_buf(Run *r, const char *name, rk_dtype dt, size_t n, Gen g)
{
    HBuf *b = new_buf(r, name, dt, n);
    fill(r, b, g);
    return b;
}

HBuf *out_buf(Run *r, const char *name, rk_dtype dt, size_t n)
{
    return new_buf(r, name, dt, n);
}

void arg(Run *r, rk_arg a)
{
    r->argbuf[r->nargs] = -1;
    r->args[r->nargs++] = a;
}

void set_grid(Run *r, uint32_t x, uint32_t y, uint32_t z)
{
    r->grid[0] = x;
    r->grid[1] = y;
    r->grid[2] = z;
    r->has_grid = true;
}

void ref_f(HBuf *b, size_t i, double v)
{
    fset(b->dt, b->ref, i, v);
    b->written[i] = true;
}

void ref_i(HBuf *b, size_t i, int64_t v)
{
    iset(b->dt, b->ref, i, v);
    b->written[i] = true;
}

void ref_bits(HBuf *b, size_t i, const void *src)
{
    memcpy((uint8_t *)b->ref + i * b->esize, src, b->esize);
    b->written[i] = true;
}

/* ---- comparison -------------------------------------------------------------------------------- */

/* A float's bits as an integer that orders like the value (-0 and +0 one apart). */
static int64_t ordered(rk_dtype t, uint64_t bits)
{
    int w = dt_bits(t);
    uint64_t sign = 1ull << (w - 1), mag = bits & (sign - 1);
    return (bits & sign) ? -(int64_t)mag - 1 : (int64_t)mag;
}

static bool same(rk_dtype t, const void *a, const void *b, size_t i, Tol tol, double per, bool twice)
{
    uint64_t x = ibits(t, a, i), y = ibits(t, b, i);
    if (x == y)
        return true;
    if (!dt_float(t)) {
        /* integers: exact, unless the case gives an absolute tolerance (an i8 truncated from an f32
         * result that lies within rounding of an integer may land one off the double reference) */
        if (tol.kind != T_ABS || per >= 0)
            return false;
        double ix = (double)iget(t, a, i), iy = (double)iget(t, b, i);
        return fabs(ix - iy) <= (tol.abs + tol.rel * fmax(fabs(ix), fabs(iy))) * (twice ? 2 : 1);
    }
    double fx = fget(t, a, i), fy = fget(t, b, i);
    if (isnan(fx) || isnan(fy))
        return isnan(fx) && isnan(fy);
    switch (tol.kind) {
    case T_EXACT:
        return false;
    case T_ULPS: {
        if (fx == fy) /* +0 and -0 */
            return true;
        int64_t d = ordered(t, x) - ordered(t, y);
        return llabs(d) <= (int64_t)tol.ulps * (twice ? 2 : 1);
    }
    default: {
        if (isinf(fx) || isinf(fy))
            return fx == fy;
        double lim = (per >= 0 ? per : tol.abs + tol.rel * fmax(fabs(fx), fabs(fy))) * (twice ? 2 : 1);
        return fabs(fx - fy) <= lim;
    }
    }
}

static void show(char *buf, size_t n, rk_dtype t, const void *p, size_t i)
{
    if (dt_float(t))
        snprintf(buf, n, "%.9g (0x%0*" PRIx64 ")", fget(t, p, i), dt_bits(t) / 4, ibits(t, p, i));
    else if (t == RK_U64)
        snprintf(buf, n, "%" PRIu64, ibits(t, p, i));
    else
        snprintf(buf, n, "%" PRId64, iget(t, p, i));
}

static void where_str(char *buf, size_t n, const HBuf *b, size_t i)
{
    if (b->cols > 0)
        snprintf(buf, n, "%s[%zu] (row %zu, col %zu)", b->name, i, i / (size_t)b->cols, i % (size_t)b->cols);
    else
        snprintf(buf, n, "%s[%zu]", b->name, i);
}

void expect_buf(Run *r, HBuf *b, Tol t)
{
    if (!launched_ok(r))
        return;
    int shown = 0, bad = 0;
    for (size_t i = 0; i < b->n; i++) {
        double per = t.per && b->written[i] ? t.per[i] : -1;
        bool ok0, ok1, ok01;
        if (b->written[i]) {
            ok0 = same(b->dt, b->got[0], b->ref, i, t, per, false);
            ok1 = same(b->dt, b->got[1], b->ref, i, t, per, false);
            ok01 = same(b->dt, b->got[0], b->got[1], i, t, per, true);
        } else { /* unwritten: the poison, bit for bit (even where the poison is a NaN) */
            uint64_t p = ibits(b->dt, b->ref, i);
            ok0 = ibits(b->dt, b->got[0], i) == p;
            ok1 = ibits(b->dt, b->got[1], i) == p;
            ok01 = ok0 && ok1;
        }
        if (ok0 && ok1 && ok01)
            continue;
        bad++;
        if (shown++ < 8) {
            char w[96], e[64], g0[64], g1[64];
            where_str(w, sizeof w, b, i);
            show(e, sizeof e, b->dt, b->ref, i);
            show(g0, sizeof g0, b->dt, b->got[0], i);
            show(g1, sizeof g1, b->dt, b->got[1], i);
            failf(r, "  %s: ref %s%s, interp %s%s, %s %s%s", w, b->written[i] ? "" : "(poison) ", e, g0,
                  ok0 ? "" : " WRONG", strcmp(DEV_NAME[DEV_EMU], "cuda") == 0 ? "cuda" : "emu", g1, ok1 ? "" : " WRONG");
        }
    }
    if (bad)
        failf(r, "  %s: %d of %zu elements differ", b->name, bad, b->n);
}

bool launched_ok(Run *r)
{
    bool ok = true;
    for (int d = 0; d < NDEV; d++)
        if (r->st[d] != RK_OK)
            ok = false;
    return ok;
}

void expect_kernel_error(Run *r, const char *const *subs, int n)
{
    for (int d = 0; d < NDEV; d++) {
        if (r->st[d] != RK_EKERNEL) {
            failf(r, "  %s: expected RK_EKERNEL, got %s: %s", DEV_NAME[d], rk_status_name(r->st[d]), r->msg[d]);
            continue;
        }
        for (int k = 0; k < n; k++)
            if (!strstr(r->msg[d], subs[k]))
                failf(r, "  %s: message lacks \"%s\": %s", DEV_NAME[d], subs[k], r->msg[d]);
    }
}

/* ---- devices ----------------------------------------------------------------------------------- */

static rk_ctx *ctxs[NDEV];
static Run *cur_run;
static int cur_dev;

static void on_print(void *ud, const char *line)
{
    (void)ud;
    Run *r = cur_run;
    if (r && r->nlines[cur_dev] < MAX_LINES)
        r->lines[cur_dev][r->nlines[cur_dev]++] = strdup(line);
}

#ifndef RK_RUN_NO_COMPILER /* only compile_case reads kernels */
static char *read_file(const char *path, size_t *len)
{
    int err;
    return rt_read_file(path, (size_t)1 << 30, len, &err);
}
#endif

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static double compile_ms_total;

static uint64_t hash_name(const char *s);

/* The prebuilt files of case c for device d: DIR/<hash of its name>.<interp|dev>. */
static void prebuilt_base(char *buf, size_t n, const char *dir, const Case *c, int d)
{
    snprintf(buf, n, "%s/%016" PRIx64 ".%s", dir, hash_name(c->name), d == DEV_INTERP ? "interp" : "dev");
}

/* --load: the case's programs from load_dir. */
static bool load_case(Case *c, Run *r)
{
    for (int d = 0; d < NDEV; d++) {
        char base[1024], err[1024];
        prebuilt_base(base, sizeof base, load_dir, c, d);
        rk_status st = pb_load(ctxs[d], base, &c->prog[d], err, sizeof err);
        if (st == RK_OK)
            st = rk_program_kernel(c->prog[d], c->kernel, &c->kern[d]);
        if (st != RK_OK) {
            failf(r, "  prebuilt %s for %s: %s: %s", base, DEV_NAME[d], rk_status_name(st), err);
            c->compile_failed = true;
        }
    }
    return !c->compile_failed;
}

/* Compiles the case for both devices (once; the programs are kept for later rounds). */
static bool compile_case(Case *c, Run *r)
{
    if (c->compiled)
        return !c->compile_failed;
    c->compiled = true;
    if (load_dir)
        return load_case(c, r);
#ifdef RK_RUN_NO_COMPILER
    failf(r, "  this run_harness has no compiler: run it with --load DIR");
    c->compile_failed = true;
    return false;
#else
    char path[512];
    snprintf(path, sizeof path, "%s/%s", RK_RUN_KERNELS, c->file);
    size_t len;
    char *src = read_file(path, &len);
    if (!src) {
        failf(r, "  cannot read %s", path);
        c->compile_failed = true;
        return false;
    }
    rk_define defs[24];
    int nd = 0;
    char buf[sizeof c->defines];
    memcpy(buf, c->defines, sizeof buf);
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok && nd < 24; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = 0;
        defs[nd++] = (rk_define){strdup(tok), strdup(eq + 1)};
    }
    double t0 = now_ms();
    for (int d = 0; d < NDEV; d++) {
        /* --save: the GPU side for sm_90 (its context has no device) */
        const char *target = save_dir && d == DEV_EMU ? "sm_90" : NULL;
        rk_compile_options co = {.filename = path, .target = target, .defines = defs, .ndefines = nd, .kernel = c->kernel};
        rk_status st = rk_compile(ctxs[d], src, len, &co, &c->prog[d]);
        if (st == RK_OK)
            st = rk_program_kernel(c->prog[d], c->kernel, &c->kern[d]);
        if (st != RK_OK) {
            failf(r, "  compile for %s: %s: %s", DEV_NAME[d], rk_status_name(st), rk_error(ctxs[d]));
            for (int i = 0; i < rk_diag_count(ctxs[d]) && i < 4; i++) {
                rk_diag dg;
                rk_diag_get(ctxs[d], i, &dg);
                failf(r, "%s", dg.text);
            }
            c->compile_failed = true;
        }
    }
    compile_ms_total += now_ms() - t0;
    for (int i = 0; i < nd; i++) {
        free((void *)defs[i].name);
        free((void *)defs[i].value);
    }
    free(src);
    return !c->compile_failed;
#endif
}

/* --save: compiles the case and writes its two programs to save_dir. */
static bool save_case(Case *c)
{
    Run r;
    memset(&r, 0, sizeof r);
    r.c = c;
    bool ok = compile_case(c, &r);
    for (int d = 0; d < NDEV && ok; d++) {
        char base[1024], err[1024];
        prebuilt_base(base, sizeof base, save_dir, c, d);
        if (pb_save(c->prog[d], c->defines, base, err, sizeof err) != 0) {
            failf(&r, "  %s", err);
            ok = false;
        }
    }
    if (!ok)
        printf("FAIL %s [%s] %s\n%s", c->name, c->file, c->defines, r.log ? r.log : "");
    free(r.log);
    return ok;
}

static void launch_on(Case *c, Run *r, int d)
{
    rk_ctx *ctx = ctxs[d];
    void *dptr[MAX_BUFS] = {0};
    rk_arg args[MAX_ARGS];
    rk_status st = RK_OK;
    cur_run = r;
    cur_dev = d;
    for (int i = 0; i < r->nbufs && st == RK_OK; i++) {
        HBuf *b = &r->bufs[i];
        size_t bytes = b->n * b->esize;
        st = rk_malloc(ctx, bytes, &dptr[i]);
        if (st == RK_OK)
            st = rk_memcpy_htod(ctx, dptr[i], b->host, bytes);
    }
    if (st == RK_OK) {
        for (int i = 0; i < r->nargs; i++) {
            args[i] = r->args[i];
            if (r->argbuf[i] >= 0)
                args[i] = rk_arg_ptr(dptr[r->argbuf[i]]);
        }
        double t0 = now_ms();
        st = rk_launch(c->kern[d], r->has_grid ? r->grid : NULL, args, r->nargs, NULL);
        if (st == RK_OK)
            st = rk_synchronize(ctx);
        r->ms[d] = now_ms() - t0;
    }
    r->st[d] = st;
    snprintf(r->msg[d], sizeof r->msg[d], "%s", st == RK_OK ? "" : rk_error(ctx));
    for (int i = 0; i < r->nbufs; i++) {
        HBuf *b = &r->bufs[i];
        if (dptr[i] && st == RK_OK)
            rk_memcpy_dtoh(ctx, b->got[d], dptr[i], b->n * b->esize);
        rk_free(ctx, dptr[i]);
    }
    cur_run = NULL;
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

void *run_alloc(Run *r, size_t bytes)
{
    if (r->nmem == (int)(sizeof r->mem / sizeof r->mem[0])) {
        fprintf(stderr, "run_harness: too many run_alloc blocks in %s\n", r->c->name);
        exit(2);
    }
    return r->mem[r->nmem++] = calloc(1, bytes ? bytes : 1);
}

static void free_run(Run *r)
{
    for (int i = 0; i < r->nmem; i++)
        free(r->mem[i]);
    for (int i = 0; i < r->nbufs; i++) {
        HBuf *b = &r->bufs[i];
        free(b->host);
        free(b->ref);
        free(b->written);
        for (int d = 0; d < NDEV; d++)
            free(b->got[d]);
    }
    for (int d = 0; d < NDEV; d++)
        for (int i = 0; i < r->nlines[d]; i++)
            free(r->lines[d][i]);
    free(r->log);
}

static bool verbose, show_time;
static long total_runs, total_fail;

/* Runs one case with inputs from (base seed, name). Returns true when it passed. */
static bool run_case(Case *c, uint64_t base)
{
    Run r;
    memset(&r, 0, sizeof r);
    r.c = c;
    r.seed = base ^ hash_name(c->name);
    rng_seed(&r.rng, r.seed);
    static const uint8_t poisons[] = {0xA5, 0x5A, 0xC3, 0xFF, 0x7E};
    r.poison = poisons[rng_range(&r.rng, 0, 4)];
    c->setup(&r);
    for (int i = 0; i < r.nbufs; i++)
        memcpy(r.bufs[i].ref, r.bufs[i].host, r.bufs[i].n * r.bufs[i].esize);
    bool ok = compile_case(c, &r);
    if (ok) {
        for (int d = 0; d < NDEV; d++)
            launch_on(c, &r, d);
        if (c->expect == EXPECT_OK && !launched_ok(&r)) {
            for (int d = 0; d < NDEV; d++)
                if (r.st[d] != RK_OK)
                    failf(&r, "  launch on %s: %s: %s", DEV_NAME[d], rk_status_name(r.st[d]), r.msg[d]);
        } else {
            c->check(&r);
        }
    }
    total_runs++;
    bool pass = r.failures == 0;
    if (!pass) {
        total_fail++;
        printf("FAIL %s [%s] %s\n%s  replay: RK_RUN_SEED=0x%016" PRIx64 " run_harness%s '=%s'\n", c->name, c->file,
               c->defines, r.log ? r.log : "", base,
               strcmp(DEV_NAME[DEV_EMU], "emu") == 0 ? "" : strcmp(DEV_NAME[DEV_EMU], "emu_sm90") == 0 ? " --device=emu_sm90"
               : " --load DIR --device=cuda",
               c->name);
    } else if (verbose || show_time) {
        printf("ok   %s  (interp %.1f ms, %s %.1f ms)\n", c->name, r.ms[0], DEV_NAME[DEV_EMU], r.ms[1]);
    }
    fflush(stdout);
    free_run(&r);
    return pass;
}

/* Why a case cannot run on the compared device, or NULL. */
static const char *unsupported(const Case *c)
{
    const char *dev = DEV_NAME[DEV_EMU];
    bool nv = strcmp(dev, "cuda") == 0 || strcmp(dev, "emu_sm90") == 0;
    if (nv && strncmp(c->name, "std/pid", 7) == 0)
        return "xcd_remap counts the target's XCDs (1 on sm_90, 8 on interp and gfx942)";
    if (strcmp(dev, "cuda") == 0 && strncmp(c->name, "debug/", 6) == 0)
        return "print and device_assert's messages need a host (emulators); a GPU prints nothing and traps";
    return NULL;
}

static bool running; /* not --save: cases the device cannot run are left out (of --list too) */

static bool selected(const Case *c, int nf, char **filters)
{
    if (running && unsupported(c))
        return false;
    if (load_dir) { /* only the cases saved there */
        char base[1024], meta[1100];
        prebuilt_base(base, sizeof base, load_dir, c, DEV_EMU);
        snprintf(meta, sizeof meta, "%s.meta", base);
        if (access(meta, R_OK) != 0)
            return false;
    }
    if (nf == 0)
        return true;
    for (int i = 0; i < nf; i++) {
        if (filters[i][0] == '=' ? strcmp(c->name, filters[i] + 1) == 0 : strstr(c->name, filters[i]) != NULL)
            return true;
    }
    return false;
}

static uint64_t env_u64(const char *name, uint64_t def)
{
    const char *e = getenv(name);
    return e && *e ? strtoull(e, NULL, 0) : def;
}

int main(int argc, char **argv)
{
    bool list = false;
    char **filters = calloc((size_t)argc, sizeof *filters);
    int nf = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--list") == 0)
            list = true;
        else if (strcmp(argv[i], "--time") == 0)
            show_time = true;
        else if (strcmp(argv[i], "--device=emu") == 0 || strcmp(argv[i], "--device=emu_sm90") == 0 ||
                 strcmp(argv[i], "--device=cuda") == 0)
            DEV_NAME[DEV_EMU] = argv[i] + strlen("--device=");
        else if (strcmp(argv[i], "--save") == 0 && i + 1 < argc)
            save_dir = argv[++i];
        else if (strcmp(argv[i], "--load") == 0 && i + 1 < argc)
            load_dir = argv[++i];
        else if (strncmp(argv[i], "--", 2) == 0) {
            fprintf(stderr, "run_harness: unknown option %s (--list, --time, --device=emu|emu_sm90|cuda, --save DIR, "
                            "--load DIR)\n",
                    argv[i]);
            return 2;
        }
        else
            filters[nf++] = argv[i];
    }
    verbose = env_u64("RK_RUN_VERBOSE", 0) != 0;
    /* test the compiler, not the compile cache (a cached object may predate a fix) */
    setenv("RK_ALWAYS_COMPILE", "1", 0);
    gen_elem();
    gen_cast();
    gen_math();
    gen_mem();
    gen_atomic();
    gen_shape();
    gen_reduce();
    gen_dot();
    gen_ctrl();
    gen_debug();
    gen_regress();
    gen_std();
    gen_order();
    int nsel = 0, nskip = 0;
    const char *why = NULL;
    running = false;
    for (int i = 0; i < ncases; i++)
        if (!list && !save_dir && selected(cases[i], nf, filters) && unsupported(cases[i])) {
            nskip++;
            if (verbose || !why || strcmp(why, unsupported(cases[i])) != 0)
                printf("run_harness: skipping %s%s: %s\n", cases[i]->name, verbose ? "" : " and the like",
                       why = unsupported(cases[i]));
        }
    if (nskip)
        printf("run_harness: %d cases skipped on %s\n", nskip, DEV_NAME[DEV_EMU]);
    running = !save_dir; /* --list too: the cases this device runs */
    for (int i = 0; i < ncases; i++)
        if (selected(cases[i], nf, filters)) {
            nsel++;
            if (list)
                printf("%s  [%s -k %s %s]\n", cases[i]->name, cases[i]->file, cases[i]->kernel, cases[i]->defines);
        }
    if (list)
        return 0;
    if (nsel == 0) {
        fprintf(stderr, "run_harness: no case matches\n");
        return 1;
    }
    if (save_dir && load_dir) {
        fprintf(stderr, "run_harness: --save and --load exclude each other\n");
        return 2;
    }
    if (strcmp(DEV_NAME[DEV_EMU], "cuda") == 0 && !load_dir) {
        fprintf(stderr, "run_harness: --device=cuda runs prebuilt programs: give --load DIR (from --save DIR)\n");
        return 2;
    }
    if (save_dir) {
        DEV_NAME[DEV_EMU] = "none"; /* compiles for sm_90 without a GPU */
        if (mkdir(save_dir, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "run_harness: cannot create %s: %s\n", save_dir, strerror(errno));
            return 1;
        }
    }
    /* The race checker runs a launch on one thread and shadows every byte (3 to 45 times slower: under
     * ASan, cumsum over 4096 elements, a serial scan of 8M LDS reads, passed the emulator's 60 s): its
     * launches get 300 s unless RK_EMU_TIMEOUT says otherwise. The timeout is there for hangs. */
    const char *races_env = getenv("RK_CHECK_RACES");
    if (!(races_env && strcmp(races_env, "0") == 0))
        setenv("RK_EMU_TIMEOUT", "300", 0);
    for (int d = 0; d < NDEV; d++) {
        /* the emulators check for data races unless RK_CHECK_RACES=0 (the other devices ignore it) */
        const char *races = getenv("RK_CHECK_RACES");
        rk_ctx_options o = {.device = DEV_NAME[d], .print = on_print,
                            .check_races = races && strcmp(races, "0") == 0 ? -1 : 1};
        if (rk_ctx_create(&o, &ctxs[d]) != RK_OK) {
            fprintf(stderr, "run_harness: no %s device: %s\n", DEV_NAME[d], rk_error(ctxs[d]));
            return 1;
        }
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t fresh = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40);
    uint64_t base = env_u64("RK_RUN_SEED", fresh);
    uint64_t rounds = env_u64("RK_RUN_ROUNDS", 1), seconds = env_u64("RK_RUN_SECONDS", 0);
    uint64_t sample = env_u64("RK_RUN_SAMPLE", 1);
    if (sample == 0)
        sample = 1;
    double t0 = now_ms();
    if (save_dir) {
        int saved = 0, failed = 0;
        for (int i = 0; i < ncases; i++)
            if (selected(cases[i], nf, filters))
                save_case(cases[i]) ? saved++ : failed++;
        printf("run_harness: %d cases saved to %s for interp and sm_90, %d failed, %.1f s\n", saved, save_dir, failed,
               (now_ms() - t0) / 1e3);
        return failed ? 1 : 0;
    }
    if (sample > 1)
        printf("run_harness: %d cases, one in %" PRIu64 " of them per round, base seed 0x%016" PRIx64 "\n", nsel, sample,
               base);
    else
        printf("run_harness: %d cases, base seed 0x%016" PRIx64 "\n", nsel, base);
    fflush(stdout);
    uint64_t round = 0;
    for (;; round++) {
        if (seconds ? now_ms() - t0 > (double)seconds * 1e3 : round >= rounds)
            break;
        uint64_t b = base;
        for (uint64_t k = 0; k < round; k++)
            b = splitmix(&b);
        for (int i = 0; i < ncases; i++) {
            if (!selected(cases[i], nf, filters))
                continue;
            if (sample > 1 && (hash_name(cases[i]->name) ^ b) % sample != 0)
                continue;
            run_case(cases[i], b);
            if (seconds && now_ms() - t0 > (double)seconds * 1e3)
                break;
        }
    }
    printf("run_harness: %" PRIu64 " round(s), %ld case runs, %ld failed, %.1f s (%.1f s compiling)\n", round,
           total_runs, total_fail, (now_ms() - t0) / 1e3, compile_ms_total / 1e3);

    for (int i = 0; i < ncases; i++) {
        for (int d = 0; d < NDEV; d++)
            rk_program_destroy(cases[i]->prog[d]);
        free(cases[i]);
    }
    free(cases);
    free(filters);
    for (int d = 0; d < NDEV; d++)
        rk_ctx_destroy(ctxs[d]);
    return total_fail ? 1 : 0;
}
