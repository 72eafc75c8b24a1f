/* common.c: the shared part of the example host programs (see common.h). */
#include "common.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef EX_SOURCE_DIR
#define EX_SOURCE_DIR "examples"
#endif

static const char *ex_usage;
static bool *ex_used; /* which argv entries an ex_int / ex_str call has read */
static uint64_t ex_seed = 1, ex_stream;

/* ---- errors and arguments ----------------------------------------------------------------------- */

void ex_die(ex *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", e->name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

void ex_check(ex *e, rk_status st, const char *what)
{
    if (st != RK_OK)
        ex_die(e, "%s: %s (%s)", what, rk_error(e->ctx), rk_status_name(st));
}

/* The value of NAME=VALUE on the command line, or NULL; marks it read. */
static const char *find_arg(ex *e, const char *key)
{
    size_t len = strlen(key);
    const char *v = NULL;
    for (int i = 1; i < e->argc; i++)
        if (strncmp(e->argv[i], key, len) == 0 && e->argv[i][len] == '=') {
            v = e->argv[i] + len + 1;
            ex_used[i] = true;
        }
    return v;
}

long ex_int(ex *e, const char *key, long def, long full_def)
{
    const char *v = find_arg(e, key);
    if (!v)
        return e->full ? full_def : def;
    char *end;
    long x = strtol(v, &end, 0);
    if (*v == '\0' || *end != '\0')
        ex_die(e, "%s=%s: not an integer", key, v);
    return x;
}

const char *ex_str(ex *e, const char *key, const char *def)
{
    const char *v = find_arg(e, key);
    return v ? v : def;
}

void ex_args_done(ex *e)
{
    for (int i = 1; i < e->argc; i++)
        if (!ex_used[i]) {
            fprintf(stderr, "%s: unknown argument '%s'\nusage: %s\n", e->name, e->argv[i], ex_usage);
            exit(2);
        }
}

static char last_progress[512];

/* The library's log: tuning progress redrawn in place on a terminal (one line each otherwise), the
 * autotuner's results (RK_PRINT_AUTOTUNING=1) and notes on their own lines. */
static void on_log(void *ud, rk_log_kind kind, const char *line)
{
    ex *e = ud;
    if (kind == RK_LOG_PROGRESS) {
        if (strcmp(line, last_progress) == 0)
            return;
        snprintf(last_progress, sizeof last_progress, "%s", line);
        /* Off a terminal, of the compile phase's counts only the first and the last line show. */
        int n, threads, lowered, generated;
        bool compiling = sscanf(line, "autotuning %*s compiling %d configs on %d threads: %d lowered, %d generated", &n,
                                &threads, &lowered, &generated) == 4;
        if (isatty(2))
            fprintf(stderr, "\r%s: %s\x1b[K", e->name, line);
        else if (!compiling || (lowered == 0 && generated == 0) || generated == n)
            fprintf(stderr, "%s: %s\n", e->name, line);
        e->progress_shown = isatty(2);
        e->tuned_now = true;
    } else {
        if (e->progress_shown)
            fputc('\n', stderr);
        e->progress_shown = false;
        fprintf(stderr, "%s: %s\n", e->name, line);
    }
    fflush(stderr);
}

void ex_init(ex *e, const char *name, const char *usage, int argc, char **argv)
{
    memset(e, 0, sizeof *e);
    e->name = name;
    e->argc = argc;
    e->argv = argv;
    ex_usage = usage;
    ex_used = calloc((size_t)argc + 1, sizeof *ex_used);
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "help") == 0 || strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: %s\n  common: full=1 (or RK_EXAMPLES_FULL=1) large sizes, reps=N timed launches, "
                   "tune=0 no tuning, seed=N\n  device: RK_DEVICE=hip|emu|interp\n", usage);
            exit(0);
        }
    const char *full = getenv("RK_EXAMPLES_FULL");
    e->full = full && *full && strcmp(full, "0") != 0;
    e->full = ex_int(e, "full", e->full, e->full) != 0;
    e->reps = (int)ex_int(e, "reps", 0, 0);
    e->tune = ex_int(e, "tune", 1, 1) != 0;
    ex_seed = (uint64_t)ex_int(e, "seed", 1, 1);

    /* The context: the default device, the library's log to on_log. On the host devices, configs
     * are timed once each (see ex_tune), so the context is made again with those settings. */
    rk_ctx_options o = {.log = on_log, .log_ud = e};
    rk_status st = rk_ctx_create(&o, &e->ctx);
    if (st == RK_OK && rk_device_get_info(e->ctx, &e->dev) == RK_OK &&
        (strcmp(e->dev.kind, "emu") == 0 || strcmp(e->dev.kind, "interp") == 0)) {
        rk_ctx_destroy(e->ctx);
        o.tune_runs = 1;
        o.tune_ms = -1;
        st = rk_ctx_create(&o, &e->ctx);
    }
    if (st != RK_OK) {
        fprintf(stderr, "%s: no device: %s\n", name, rk_error(e->ctx));
        rk_ctx_destroy(e->ctx);
        exit(1);
    }
    ex_check(e, rk_device_get_info(e->ctx, &e->dev), "device");
    if (e->reps <= 0)
        e->reps = ex_on_host(e) ? 3 : 20;
    fprintf(stderr, "%s: device %s: %s (%d %s)\n", name, e->dev.kind, e->dev.name, e->dev.compute_units,
            ex_on_host(e) ? "host cores" : "CUs");
}

bool ex_on_host(const ex *e)
{
    return strcmp(e->dev.kind, "emu") == 0 || strcmp(e->dev.kind, "interp") == 0;
}

int ex_finish(ex *e, bool ok)
{
    for (int i = 0; i < e->nprograms; i++)
        rk_program_destroy(e->programs[i]);
    rk_ctx_destroy(e->ctx);
    free(ex_used);
    return ok ? 0 : 1;
}

/* ---- data --------------------------------------------------------------------------------------- */

rk_dtype ex_dtype(ex *e, const char *name)
{
    if (strcmp(name, "f32") == 0)
        return RK_F32;
    if (strcmp(name, "f16") == 0)
        return RK_F16;
    if (strcmp(name, "bf16") == 0)
        return RK_BF16;
    ex_die(e, "dtype=%s: expected f32, f16 or bf16", name);
}

/* splitmix64: small, fast, and good enough for test data. */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static int precision(rk_dtype t)
{
    return t == RK_F16 ? 11 : t == RK_BF16 ? 8 : t == RK_F32 ? 24 : 53;
}

double ex_round(rk_dtype t, double x)
{
    switch (t) {
    case RK_F16:
        return rk_f16_to_double(rk_f16_from_double(x));
    case RK_BF16:
        return rk_bf16_to_double(rk_bf16_from_double(x));
    case RK_F32:
        return (double)(float)x;
    default:
        return x;
    }
}

double *ex_random(ex *e, size_t n, rk_dtype t, double lo, double hi)
{
    double *v = malloc(n * sizeof *v);
    if (!v)
        ex_die(e, "out of host memory");
    uint64_t s = ex_seed * 0x100000001b3u + ++ex_stream;
    /* A uniform value on a grid of 2^(p-1) steps per unit, rounded to the dtype: exact in it. */
    double steps = ldexp(1.0, precision(t) - 1 < 20 ? precision(t) - 1 : 20);
    for (size_t i = 0; i < n; i++) {
        double u = (double)(next_u64(&s) >> 11) * 0x1p-53;
        v[i] = ex_round(t, lo + floor(u * (hi - lo) * steps) / steps);
    }
    return v;
}

double *ex_zeros(size_t n)
{
    double *v = calloc(n ? n : 1, sizeof *v);
    if (!v) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    return v;
}

void *ex_upload(ex *e, const double *v, size_t n, rk_dtype t)
{
    size_t es = rk_dtype_size(t), bytes = n * es;
    unsigned char *h = malloc(bytes ? bytes : 1);
    if (!h)
        ex_die(e, "out of host memory");
    for (size_t i = 0; i < n; i++) {
        if (t == RK_F32) {
            float f = (float)v[i];
            memcpy(h + i * 4, &f, 4);
        } else {
            uint16_t b = t == RK_F16 ? rk_f16_from_double(v[i]) : rk_bf16_from_double(v[i]);
            memcpy(h + i * 2, &b, 2);
        }
    }
    void *d;
    ex_check(e, rk_malloc(e->ctx, bytes, &d), "rk_malloc");
    ex_check(e, rk_memcpy_htod(e->ctx, d, h, bytes), "rk_memcpy_htod");
    free(h);
    return d;
}

void *ex_alloc_zero(ex *e, size_t n, rk_dtype t)
{
    void *d;
    ex_check(e, rk_malloc(e->ctx, n * rk_dtype_size(t), &d), "rk_malloc");
    ex_check(e, rk_memset(e->ctx, d, 0, n * rk_dtype_size(t)), "rk_memset");
    return d;
}

double *ex_download(ex *e, const void *d, size_t n, rk_dtype t)
{
    size_t es = rk_dtype_size(t), bytes = n * es;
    unsigned char *h = malloc(bytes ? bytes : 1);
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!h || !v)
        ex_die(e, "out of host memory");
    ex_check(e, rk_memcpy_dtoh(e->ctx, h, d, bytes), "rk_memcpy_dtoh");
    for (size_t i = 0; i < n; i++) {
        if (t == RK_F32) {
            float f;
            memcpy(&f, h + i * 4, 4);
            v[i] = f;
        } else {
            uint16_t b;
            memcpy(&b, h + i * 2, 2);
            v[i] = t == RK_F16 ? rk_f16_to_double(b) : rk_bf16_to_double(b);
        }
    }
    free(h);
    return v;
}

/* ---- compiling and tuning ----------------------------------------------------------------------- */

void ex_def_str(ex_config *c, const char *name, const char *value)
{
    int i = 0;
    while (i < c->n && strcmp(c->name[i], name) != 0)
        i++;
    if (i == EX_MAX_DEFINES || strlen(name) >= sizeof c->name[0] || strlen(value) >= sizeof c->value[0]) {
        fprintf(stderr, "too many or too long defines (%s=%s)\n", name, value);
        exit(1);
    }
    strcpy(c->name[i], name);
    strcpy(c->value[i], value);
    if (i == c->n)
        c->n++;
}

void ex_def_int(ex_config *c, const char *name, long value)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%ld", value);
    ex_def_str(c, name, buf);
}

/* The config as rk_define pairs pointing into it. */
static void defines(const ex_config *c, rk_define *d)
{
    for (int i = 0; c && i < c->n; i++) {
        d[i].name = c->name[i];
        d[i].value = c->value[i];
    }
}

const char *ex_config_get(const ex_config *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->name[i], name) == 0)
            return c->value[i];
    return "default";
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (size_t r; buf && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    *len = n;
    return buf;
}

/* The text of examples/<file> (malloc'd), its path in `path`. */
static char *read_source(ex *e, const char *file, char *path, size_t pathlen, size_t *len)
{
    const char *dir = getenv("RK_EXAMPLES_DIR");
    snprintf(path, pathlen, "%s/%s", dir && *dir ? dir : EX_SOURCE_DIR, file);
    char *src = read_file(path, len);
    if (!src)
        ex_die(e, "cannot read %s (set RK_EXAMPLES_DIR to the examples folder)", path);
    return src;
}

/* Compiles and returns the program; diagnostics go to stderr. */
static rk_program *compile(ex *e, const char *file, const char *kernel, const ex_config *config)
{
    char path[4096];
    size_t len;
    char *src = read_source(e, file, path, sizeof path, &len);
    rk_define defs[EX_MAX_DEFINES];
    defines(config, defs);
    rk_compile_options co = {.filename = path, .defines = defs, .ndefines = config ? config->n : 0, .kernel = kernel};
    rk_program *prog = NULL;
    rk_status st = rk_compile(e->ctx, src, len, &co, &prog);
    for (int i = 0; i < rk_diag_count(e->ctx); i++) {
        rk_diag d;
        if (rk_diag_get(e->ctx, i, &d) == RK_OK)
            fputs(d.text, stderr);
    }
    free(src);
    ex_check(e, st, "rk_compile");
    if (e->nprograms == (int)(sizeof e->programs / sizeof e->programs[0]))
        ex_die(e, "too many programs");
    e->programs[e->nprograms++] = prog;
    return prog;
}

rk_kernel *ex_compile(ex *e, const char *file, const char *kernel, const ex_config *config)
{
    rk_program *prog = compile(e, file, kernel, config);
    rk_kernel *k;
    ex_check(e, rk_program_kernel(prog, kernel, &k), kernel);
    return k;
}

static void reset(ex *e, const ex_launch *l)
{
    for (int i = 0; i < l->nresets; i++)
        ex_check(e, rk_memset(e->ctx, l->resets[i].ptr, 0, l->resets[i].bytes), "reset");
}

void ex_run(ex *e, const ex_launch *l, const char *what)
{
    reset(e, l);
    ex_check(e, rk_launch(l->kernel, l->grid, l->args, l->nargs, NULL), what);
    ex_check(e, rk_synchronize(e->ctx), what);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double ex_time(ex *e, const ex_launch *l)
{
    rk_event *start, *stop;
    ex_check(e, rk_event_create(e->ctx, &start), "rk_event_create");
    ex_check(e, rk_event_create(e->ctx, &stop), "rk_event_create");
    ex_run(e, l, "warm-up launch");
    double *t = malloc((size_t)e->reps * sizeof *t);
    for (int i = 0; i < e->reps; i++) {
        reset(e, l);
        float ms;
        ex_check(e, rk_event_record(start, NULL), "rk_event_record");
        ex_check(e, rk_launch(l->kernel, l->grid, l->args, l->nargs, NULL), "timed launch");
        ex_check(e, rk_event_record(stop, NULL), "rk_event_record");
        ex_check(e, rk_event_elapsed(start, stop, &ms), "rk_event_elapsed");
        t[i] = ms;
    }
    qsort(t, (size_t)e->reps, sizeof *t, cmp_double);
    double med = t[e->reps / 2];
    free(t);
    rk_event_destroy(start);
    rk_event_destroy(stop);
    return med;
}

/* Parses "NAME=VALUE NAME=VALUE" into c (over what it holds). */
static void parse_config(ex_config *c, const char *s)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = '\0';
        ex_def_str(c, tok, eq + 1);
    }
}

void ex_tune(ex *e, const char *file, const char *kernel, const ex_config *base, ex_launch *l, ex_config *chosen)
{
    if (chosen)
        *chosen = *base;
    /* The interpreter is not tuned: its timings mean nothing, and rk_autotune fails there today
     * (tests/repro/autotune_on_interp.tile). */
    if (!e->tune || strcmp(e->dev.kind, "interp") == 0) {
        l->kernel = ex_compile(e, file, kernel, base);
        return;
    }
    char path[4096];
    size_t len;
    char *src = read_source(e, file, path, sizeof path, &len);
    rk_define defs[EX_MAX_DEFINES];
    defines(base, defs);
    rk_compile_options co = {.filename = path, .defines = defs, .ndefines = base->n};
    e->progress_shown = e->tuned_now = false;
    last_progress[0] = '\0';
    rk_status st = rk_autotune(e->ctx, src, len, kernel, l->args, l->nargs, &co, &l->kernel);
    if (e->progress_shown)
        fputc('\n', stderr);
    e->progress_shown = false;
    for (int i = 0; st == RK_ECOMPILE && i < rk_diag_count(e->ctx); i++) {
        rk_diag d;
        if (rk_diag_get(e->ctx, i, &d) == RK_OK)
            fputs(d.text, stderr);
    }
    free(src);
    ex_check(e, st, "rk_autotune");
    const char *cfg = rk_kernel_config(l->kernel);
    if (*cfg)
        fprintf(stderr, "%s: %s %s: %s\n", e->name, kernel, e->tuned_now ? "tuned" : "tuned earlier (rk's cache)", cfg);
    if (chosen)
        parse_config(chosen, cfg);
}

/* ---- checking and reporting --------------------------------------------------------------------- */

double ex_tol(rk_dtype t)
{
    return t == RK_F32 ? 1e-4 : t == RK_F16 ? 5e-3 : t == RK_BF16 ? 2e-2 : 1e-10;
}

double ex_max_rel_err(const double *out, const double *ref, size_t n)
{
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += ref[i] * ref[i];
    double rms = n ? sqrt(ss / (double)n) : 0, worst = 0;
    if (rms == 0)
        rms = 1e-30;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(out[i] - ref[i]);
        if (isnan(d) || isnan(out[i]))
            return NAN;
        double r = d / fmax(fabs(ref[i]), rms);
        if (r > worst)
            worst = r;
    }
    return worst;
}

bool ex_report(ex *e, const char *what, double ms, double flops, double bytes, double err, double tol)
{
    bool ok = err <= tol;
    char rate[64];
    if (flops > 0)
        snprintf(rate, sizeof rate, "%.3g TFLOP/s", flops / (ms * 1e-3) / 1e12);
    else
        snprintf(rate, sizeof rate, "%.3g GB/s", bytes / (ms * 1e-3) / 1e9);
    printf("%s | %s | %.4g ms | %s | max rel err %.1e (tol %.0e) | %s\n", what, e->dev.kind, ms, rate, err, tol,
           ok ? "ok" : "FAILED");
    fflush(stdout);
    return ok;
}
