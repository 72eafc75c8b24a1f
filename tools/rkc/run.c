/* `rkc run`: compile one kernel and launch it on the default device, for quick experiments and
 * black-box tests (docs: TOOLS.md and docs/api.md).
 *
 *     rkc run FILE.tile -k NAME [--grid X[,Y,Z]] [-D NAME=VALUE]... [-I DIR]... [ARG...]
 *             [--dump NAME=PATH]... [--bench] [--seed N] [--no-tune]
 *
 * ARG is NAME=VALUE for a scalar parameter, parsed as the parameter's type (integers in decimal or
 * 0x hex, floats as strtod reads them, bool as true/false/1/0), and for a pointer parameter one of
 *   NAME=zeros:T[n]        n elements of T, all zero
 *   NAME=rand:T[n]         n random elements: floats uniform in [-1, 1) on the grid of values the
 *                          type represents exactly at that scale (multiples of 2^-(p-1), p its
 *                          precision), signed integers uniform in [-16, 16), unsigned in [0, 16),
 *                          bool 0 or 1; seeded by --seed (default 0) and the parameter's position
 *   NAME=file:PATH:T[n]    n elements read from PATH, raw little-endian; the file must hold exactly
 *                          n * sizeof(T) bytes
 * where T must be the parameter's element type. --dump writes a buffer's contents after the launch
 * as raw little-endian bytes. --bench then launches again: warm-up runs, then timed runs, and prints
 * the median (device events; wall time on emu and interp).
 *
 * A kernel with @autotune is tuned for these arguments first (rk_run: each config compiled, timed on
 * the device, the winner cached on disk, so the next run with the same key values compiles nothing),
 * with a progress line on a terminal; RK_PRINT_AUTOTUNING=1 prints each config's time and the winner.
 * Tuning launches the kernel many times: a kernel that updates a buffer in place should name it in
 * `reset` (zeroed before each run) or be run with --no-tune, which compiles the default config.
 *
 * This is the first client of the library: it uses rk.h and nothing else of rk. Exit status: 0,
 * 1 for errors in the tile program, 2 for a bad command line, 3 for device and run-time errors
 * (out-of-bounds access, failed device_assert, no device), 4 for internal errors. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compiler/target/amdgpu/report.h"
#include "rk.h"
#include "support/files.h"
#include "tools/rkc/run.h"

enum { EXIT_PROGRAM = 1, EXIT_USAGE = 2, EXIT_DEVICE = 3, EXIT_INTERNAL = 4 };
enum { MAX_LIST = 256 };

typedef struct NameValue {
    const char *name, *value;
    bool used;
} NameValue;

typedef struct RunOptions {
    const char *input, *kernel;
    bool has_grid, bench, no_tune, confine_imports;
    const char *advise;   /* rkc --advise: NULL, "text" or "json" */
    const char *target;   /* rkc --advise --target=T (default gfx942) */
    const char *roofline; /* --roofline=FILE.svg */
    const char *report; /* NULL, "text" or "json" */
    char assume[4096];  /* --assume facts, joined by spaces */
    uint32_t grid[3];
    uint64_t seed;
    rk_define defines[MAX_LIST];
    int ndefines;
    const char *incdirs[MAX_LIST];
    int nincdirs;
    NameValue args[MAX_LIST];
    int nargs;
    NameValue dumps[MAX_LIST];
    int ndumps;
} RunOptions;

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static const char *tool = "rkc run"; /* "rkc" for rkc --advise */

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: error: ", tool);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(%s --help lists the options)\n", tool);
    va_end(ap);
    return EXIT_USAGE;
}

static void run_usage(FILE *f)
{
    fputs("usage: rkc run FILE.tile -k NAME [--grid X[,Y,Z]] [-D NAME=VALUE]... [-I DIR]... [ARG...]\n"
          "                [--dump NAME=PATH]... [--bench] [--seed N] [--no-tune] [--assume FACTS]...\n"
          "                [--report[=json]] [--roofline=FILE.svg]\n"
          "\n"
          "  ARG               NAME=VALUE for a scalar parameter; for a pointer parameter\n"
          "                    NAME=zeros:T[n] | NAME=rand:T[n] | NAME=file:PATH:T[n]\n"
          "  -k NAME           the kernel to run\n"
          "  --grid X[,Y,Z]    the launch grid (optional when the kernel has @grid)\n"
          "  -D NAME=VALUE     a const parameter or compile option\n"
          "  -I DIR            import path (repeatable)\n"
          "  --dump NAME=PATH  write buffer NAME after the launch, raw little-endian\n"
          "  --bench           time repeated launches and print the median, then the launch's work\n"
          "                    (FLOPs, bytes), achieved rates, the device's peaks and the roofline bound\n"
          "  --roofline=FILE.svg  with --bench: that measurement on the device's roofline, as SVG\n"
          "  --seed N          seed of rand: buffers (default 0)\n"
          "  --no-tune         run the default configuration (no autotuning)\n"
          "  --confine-imports imports only from inside the -I folders and the stdlib\n"
          "  --assume FACTS    compile for these facts (NAME%N==0, NAME==V; rkc --help) instead of\n"
          "                    specialising on the arguments; arguments that break one are refused\n"
          "  --report[=json]   after the launch: the facts of the variant it ran and, for AMD targets\n"
          "                    (emu runs gfx942's lowering), that variant's gfx942 resource report\n"
          "The device is RK_DEVICE (hip, cuda, emu, emu_sm90, interp), else the first GPU, else the host.\n",
          f);
}

/* "--opt VALUE", "--opt=VALUE" or, for short options, "-xVALUE". Advances *i. NULL when missing. */
static const char *value_of(int argc, char **argv, int *i, const char *flag)
{
    const char *a = argv[*i];
    size_t n = strlen(flag);
    if (a[n] == '=' && flag[1] == '-')
        return a + n + 1;
    if (a[n] && flag[1] != '-')
        return a + n;
    if (a[n])
        return NULL;
    return *i + 1 < argc ? argv[++*i] : NULL;
}

static bool is_flag(const char *a, const char *flag)
{
    size_t n = strlen(flag);
    return strncmp(a, flag, n) == 0 && (a[n] == 0 || a[n] == '=' || flag[1] != '-');
}

static bool parse_u64(const char *s, uint64_t *out)
{
    if (!*s || *s == '-' || *s == '+')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

static bool parse_grid(const char *s, uint32_t g[3])
{
    g[0] = g[1] = g[2] = 1;
    char buf[128];
    if (strlen(s) >= sizeof buf)
        return false;
    strcpy(buf, s);
    int n = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        uint64_t v;
        if (n == 3 || !parse_u64(tok, &v) || v > UINT32_MAX)
            return false;
        g[n++] = (uint32_t)v;
    }
    return n > 0 && s[strlen(s) - 1] != ',';
}

static int add_pair(NameValue *list, int *n, const char *what, const char *s)
{
    const char *eq = strchr(s, '=');
    if (!eq || eq == s || !eq[1])
        return usage_error("%s needs NAME=VALUE, got '%s'", what, s);
    if (*n == MAX_LIST)
        return usage_error("too many %s (the limit is %d)", strcmp(what, "an argument") == 0 ? "arguments" : what,
                           MAX_LIST);
    char *name = strndup(s, (size_t)(eq - s));
    for (int i = 0; i < *n; i++)
        if (strcmp(list[i].name, name) == 0) {
            int rc = usage_error("%s '%s' is given twice", what, name);
            free(name);
            return rc;
        }
    list[(*n)++] = (NameValue){name, eq + 1, false};
    return 0;
}

static int parse_run_options(int argc, char **argv, RunOptions *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int rc;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            run_usage(stdout);
            return -1;
        } else if (is_flag(a, "--grid")) {
            if (!(v = value_of(argc, argv, &i, "--grid")) || !parse_grid(v, o->grid))
                return usage_error("--grid needs X[,Y,Z] (up to three sizes), got '%s'", v ? v : "");
            o->has_grid = true;
        } else if (is_flag(a, "--seed")) {
            if (!(v = value_of(argc, argv, &i, "--seed")) || !parse_u64(v, &o->seed))
                return usage_error("--seed needs a non-negative integer, got '%s'", v ? v : "");
        } else if (is_flag(a, "--dump")) {
            if (!(v = value_of(argc, argv, &i, "--dump")))
                return usage_error("%s", "--dump needs NAME=PATH");
            if ((rc = add_pair(o->dumps, &o->ndumps, "--dump", v)))
                return rc;
        } else if (strcmp(a, "--bench") == 0) {
            o->bench = true;
        } else if (strcmp(a, "--no-tune") == 0) {
            o->no_tune = true;
        } else if (strcmp(a, "--confine-imports") == 0) {
            o->confine_imports = true;
        } else if (strcmp(a, "--report") == 0 || strcmp(a, "--report=text") == 0) {
            o->report = "text";
        } else if (strcmp(a, "--report=json") == 0) {
            o->report = "json";
        } else if (strcmp(a, "--advise") == 0 || strcmp(a, "--advise=text") == 0) {
            o->advise = "text";
        } else if (strcmp(a, "--advise=json") == 0) {
            o->advise = "json";
        } else if (strncmp(a, "--target=", 9) == 0 && o->advise) {
            o->target = a + 9;
        } else if (strncmp(a, "--roofline=", 11) == 0 && a[11]) {
            o->roofline = a + 11;
        } else if (is_flag(a, "--assume")) {
            if (!(v = value_of(argc, argv, &i, "--assume")) || !*v)
                return usage_error("%s", "--assume needs facts such as 'K%16==0' or 'stride_n==1'");
            size_t n = strlen(o->assume);
            if (n + strlen(v) + 2 > sizeof o->assume)
                return usage_error("%s", "--assume: too many facts");
            snprintf(o->assume + n, sizeof o->assume - n, "%s%s", n ? " " : "", v);
        } else if (strncmp(a, "-k", 2) == 0) {
            if (!(o->kernel = value_of(argc, argv, &i, "-k")))
                return usage_error("%s", "-k needs a kernel name");
        } else if (strncmp(a, "-D", 2) == 0) {
            NameValue tmp[1];
            int n = 0;
            if (!(v = value_of(argc, argv, &i, "-D")))
                return usage_error("%s", "-D needs NAME=VALUE");
            if ((rc = add_pair(tmp, &n, "-D", v)))
                return rc;
            if (o->ndefines == MAX_LIST)
                return usage_error("too many -D options (the limit is %d)", MAX_LIST);
            o->defines[o->ndefines++] = (rk_define){tmp[0].name, tmp[0].value};
        } else if (strncmp(a, "-I", 2) == 0) {
            if (!(v = value_of(argc, argv, &i, "-I")))
                return usage_error("%s", "-I needs a directory");
            if (o->nincdirs == MAX_LIST)
                return usage_error("too many -I options (the limit is %d)", MAX_LIST);
            o->incdirs[o->nincdirs++] = v;
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option '%s'", a);
        } else if (!o->input) {
            o->input = a;
        } else if ((rc = add_pair(o->args, &o->nargs, "an argument", a))) {
            return rc;
        }
    }
    if (!o->input)
        return usage_error("%s", "no input file");
    if (!o->kernel && !o->advise)
        return usage_error("%s", "rkc run needs -k NAME, the kernel to run");
    return 0;
}

static void free_run_options(RunOptions *o)
{
    for (int i = 0; i < o->ndefines; i++)
        free((char *)o->defines[i].name);
    for (int i = 0; i < o->nargs; i++)
        free((char *)o->args[i].name);
    for (int i = 0; i < o->ndumps; i++)
        free((char *)o->dumps[i].name);
}

/* The library's log: autotuning results and notes on stderr, progress redrawn in place on a terminal. */
static bool progress_shown;

static void end_progress(void)
{
    if (progress_shown)
        fputs("\r\033[K", stderr);
    progress_shown = false;
}

static void print_log(void *ud, rk_log_kind kind, const char *line)
{
    (void)ud;
    if (kind == RK_LOG_PROGRESS) {
        if (isatty(STDERR_FILENO)) {
            fprintf(stderr, "\r\033[K%s", line);
            fflush(stderr);
            progress_shown = true;
        }
        return;
    }
    end_progress();
    fprintf(stderr, "rkc run: %s%s\n", kind == RK_LOG_NOTE ? "note: " : "", line);
}

static void print_line(void *ud, const char *line)
{
    (void)ud;
    printf("%s\n", line);
}

static void print_dump(void *ud, const char *stage, const char *kernel, const char *text)
{
    (void)ud;
    fprintf(stderr, "// -----// IR Dump After %s (%s) //----- //\n%s", stage, kernel, text);
    size_t n = strlen(text);
    if (n && text[n - 1] != '\n')
        fputc('\n', stderr);
}

/* ---- arguments ---- */

static bool dtype_from_name(const char *s, size_t n, rk_dtype *out)
{
    for (int t = RK_BOOL; t <= RK_F64; t++) {
        const char *name = rk_dtype_name((rk_dtype)t);
        if (strlen(name) == n && strncmp(s, name, n) == 0) {
            *out = (rk_dtype)t;
            return true;
        }
    }
    return false;
}

static bool is_float(rk_dtype t)
{
    return t == RK_F16 || t == RK_BF16 || t == RK_F32 || t == RK_F64;
}

static bool is_signed(rk_dtype t)
{
    return t == RK_I8 || t == RK_I16 || t == RK_I32 || t == RK_I64;
}

/* A scalar argument parsed as the parameter's type; false when VALUE is not one. */
static bool parse_scalar(const char *s, rk_dtype t, rk_arg *out)
{
    if (t == RK_BOOL) {
        if (strcmp(s, "true") == 0 || strcmp(s, "1") == 0)
            *out = rk_arg_bool(true);
        else if (strcmp(s, "false") == 0 || strcmp(s, "0") == 0)
            *out = rk_arg_bool(false);
        else
            return false;
        return true;
    }
    char *end;
    errno = 0;
    if (is_float(t)) {
        double d = strtod(s, &end);
        if (!*s || *end || isspace((unsigned char)*s))
            return false;
        switch (t) {
        case RK_F16: *out = rk_arg_f16(rk_f16_from_double(d)); break;
        case RK_BF16: *out = rk_arg_bf16(rk_bf16_from_double(d)); break;
        case RK_F32: *out = rk_arg_f32((float)d); break;
        default: *out = rk_arg_f64(d); break;
        }
        return true;
    }
    int bits = (int)rk_dtype_size(t) * 8;
    if (is_signed(t)) {
        long long v = strtoll(s, &end, 0);
        if (!*s || *end || errno || isspace((unsigned char)*s))
            return false;
        if (bits < 64 && (v < -(1LL << (bits - 1)) || v >= (1LL << (bits - 1))))
            return false;
        *out = rk_arg_i64(v);
        out->dtype = t;
        return true;
    }
    uint64_t v;
    if (!parse_u64(s, &v) || (bits < 64 && v >> bits))
        return false;
    *out = rk_arg_u64(v);
    out->dtype = t;
    return true;
}

/* A device buffer made for a pointer parameter. */
typedef struct Buffer {
    void *dev;
    size_t bytes;
} Buffer;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Random elements as documented at the top of this file. */
static void fill_random(void *buf, rk_dtype t, size_t n, uint64_t seed, int index)
{
    uint64_t s = seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(index + 1));
    size_t sz = rk_dtype_size(t);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = splitmix(&s), bits = 0;
        if (is_float(t)) {
            int p = t == RK_F16 ? 11 : t == RK_BF16 ? 8 : t == RK_F32 ? 24 : 53;
            int64_t k = (int64_t)(r >> (64 - p)) - ((int64_t)1 << (p - 1)); /* [-2^(p-1), 2^(p-1)) */
            double x = ldexp((double)k, -(p - 1));
            if (t == RK_F16)
                bits = rk_f16_from_double(x);
            else if (t == RK_BF16)
                bits = rk_bf16_from_double(x);
            else if (t == RK_F32) {
                float f = (float)x;
                uint32_t u;
                memcpy(&u, &f, 4);
                bits = u;
            } else
                memcpy(&bits, &x, 8);
        } else if (t == RK_BOOL) {
            bits = r >> 63;
        } else if (is_signed(t)) {
            bits = (uint64_t)((int64_t)(r >> 59) - 16);
        } else {
            bits = r >> 60;
        }
        memcpy((char *)buf + i * sz, &bits, sz); /* little-endian host */
    }
}

/* Parses "T[n]" at s (the rest of the spec). */
static bool parse_elems(const char *s, rk_dtype *t, size_t *n)
{
    const char *lb = strchr(s, '[');
    size_t len = strlen(s);
    uint64_t v;
    if (!lb || len < 3 || s[len - 1] != ']' || !dtype_from_name(s, (size_t)(lb - s), t))
        return false;
    char num[32];
    size_t nl = len - 1 - (size_t)(lb + 1 - s);
    if (nl == 0 || nl >= sizeof num)
        return false;
    memcpy(num, lb + 1, nl);
    num[nl] = 0;
    if (!parse_u64(num, &v) || v == 0 || v > SIZE_MAX / 8)
        return false;
    *n = (size_t)v;
    return true;
}

/* Makes the buffer of a pointer argument. Returns an exit status (0: done). */
static int make_buffer(rk_ctx *ctx, const rk_param *p, int index, const char *spec, uint64_t seed, Buffer *b)
{
    const char *elems;
    const char *path = NULL;
    size_t pathlen = 0;
    enum { ZEROS, RAND, FILE_ } kind;
    if (strncmp(spec, "zeros:", 6) == 0) {
        kind = ZEROS;
        elems = spec + 6;
    } else if (strncmp(spec, "rand:", 5) == 0) {
        kind = RAND;
        elems = spec + 5;
    } else if (strncmp(spec, "file:", 5) == 0) {
        kind = FILE_;
        path = spec + 5;
        const char *colon = strrchr(path, ':');
        if (!colon || colon == path)
            return usage_error("argument %s: file: needs PATH:T[n], got '%s'", p->name, spec);
        pathlen = (size_t)(colon - path);
        elems = colon + 1;
    } else {
        return usage_error("argument %s is a pointer (*%s): give zeros:T[n], rand:T[n] or file:PATH:T[n], got '%s'",
                           p->name, rk_dtype_name(p->dtype), spec);
    }
    rk_dtype t;
    size_t n;
    if (!parse_elems(elems, &t, &n))
        return usage_error("argument %s: '%s' is not T[n] (a scalar type and a positive element count)", p->name,
                           elems);
    if (t != p->dtype)
        return usage_error("argument %s: a buffer of %s does not match the parameter's type *%s", p->name,
                           rk_dtype_name(t), rk_dtype_name(p->dtype));
    b->bytes = n * rk_dtype_size(t);
    void *host = calloc(1, b->bytes);
    if (!host) {
        fprintf(stderr, "rkc run: error: out of memory for argument %s (%zu bytes)\n", p->name, b->bytes);
        return EXIT_DEVICE;
    }
    if (kind == RAND)
        fill_random(host, t, n, seed, index);
    if (kind == FILE_) {
        char *fname = strndup(path, pathlen);
        size_t len = 0;
        /* a regular file of at most the buffer's size (rt_read_file): never /dev/zero or a FIFO read
         * forever, never a file larger than the buffer read whole first (issue 23) */
        int err = 0;
        char *data = rt_read_file(fname, b->bytes, &len, &err);
        int rc = 0;
        struct stat st;
        if (!data && err == EFBIG && stat(fname, &st) == 0)
            rc = usage_error("argument %s: '%s' holds %lld bytes, but %s[%zu] is %zu bytes", p->name, fname,
                             (long long)st.st_size, rk_dtype_name(t), n, b->bytes);
        else if (!data)
            rc = usage_error("argument %s: cannot read '%s': %s", p->name, fname,
                             err == EINVAL ? "not a regular file" : strerror(err));
        else if (len != b->bytes)
            rc = usage_error("argument %s: '%s' holds %zu bytes, but %s[%zu] is %zu bytes", p->name, fname, len,
                             rk_dtype_name(t), n, b->bytes);
        else
            memcpy(host, data, len);
        free(data);
        free(fname);
        if (rc) {
            free(host);
            return rc;
        }
    }
    rk_status st = rk_malloc(ctx, b->bytes, &b->dev);
    if (st == RK_OK)
        st = rk_memcpy_htod(ctx, b->dev, host, b->bytes);
    free(host);
    if (st != RK_OK) {
        fprintf(stderr, "rkc run: error: argument %s: %s\n", p->name, rk_error(ctx));
        return st == RK_EINTERNAL ? EXIT_INTERNAL : EXIT_DEVICE;
    }
    return 0;
}

/* ---- running ---- */

static int status_exit(rk_status st)
{
    switch (st) {
    case RK_OK:
        return 0;
    case RK_ECOMPILE:
        return EXIT_PROGRAM;
    case RK_EINVAL:
        return EXIT_USAGE;
    case RK_EINTERNAL:
        return EXIT_INTERNAL;
    default:
        return EXIT_DEVICE;
    }
}

static int device_error(rk_ctx *ctx, rk_status st)
{
    fprintf(stderr, "rkc run: error: %s\n", rk_error(ctx));
    return status_exit(st) == EXIT_INTERNAL ? EXIT_INTERNAL : EXIT_DEVICE;
}

static int compare_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* --bench's second line: the launch's work (the compiler's count), what it achieved, the device's peaks
 * and the fraction of the roofline's bound it reaches (rk_kernel_work, rk_device_peaks, rk_roofline_of). */
static void print_roofline(rk_ctx *ctx, rk_kernel *k, const uint32_t *grid, const rk_arg *args, int nargs,
                           const char *name, double ms, const char *svg)
{
    rk_work w;
    const rk_peaks *p;
    bool est = false;
    rk_roofline r;
    if (rk_kernel_work(k, grid, args, nargs, &w) != RK_OK || rk_device_peaks(ctx, NULL, &p, &est) != RK_OK ||
        rk_roofline_of(p, &w, ms, &r) != RK_OK) {
        printf("%s: no roofline: %s\n", name, rk_error(ctx));
        return;
    }
    printf("%s: %.0f FLOP (%.0f dot, %.0f elementwise), %.0f bytes (%.0f at least): %.3f GFLOP/s, %.3f GB/s "
           "achieved | %s peaks%s: %.1f TFLOP/s (%s), %.0f GB/s; intensity %.3f FLOP/B, ridge %.1f; roofline bound "
           "%.6f ms (%s), %.4f%% of it%s%s%s\n",
           name, w.flops, w.flops_dot, w.flops_elem, w.bytes, w.bytes_min, r.flops_per_s / 1e9, r.bytes_per_s / 1e9,
           p->name, est ? " (an estimate: the time is not that device's)" : "", r.peak_flops_per_s / 1e12,
           w.flops_dot > 0 ? rk_dtype_name(w.dot_dtype) : "f32 vector", p->bytes_per_s / 1e9, r.intensity, r.ridge,
           r.bound_ms, r.limit, 100 * r.fraction, w.estimate ? " (work is an estimate: " : "",
           w.estimate ? w.why : "", w.estimate ? ")" : "");
    if (svg) { /* --roofline=FILE.svg: this measurement on the device's roofline */
        char label[512];
        snprintf(label, sizeof label, "%s%s%s: %.4g ms", name, *rk_kernel_config(k) ? " " : "", rk_kernel_config(k), ms);
        rk_roofline_point pt = {label, r.intensity, r.flops_per_s, 0};
        if (rk_roofline_svg(ctx, svg, p, r.peak_flops_per_s, &pt, 1) != RK_OK)
            fprintf(stderr, "rkc run: error: %s\n", rk_error(ctx));
    }
}

static int bench(rk_ctx *ctx, rk_kernel *k, const uint32_t *grid, const rk_arg *args, int nargs, const char *name,
                 const char *svg)
{
    rk_device_info info;
    rk_device_get_info(ctx, &info);
    bool gpu = strcmp(info.kind, "hip") == 0 || strcmp(info.kind, "cuda") == 0;
    int warmup = gpu ? 5 : 1, runs = gpu ? 50 : 5;
    rk_event *e0 = NULL, *e1 = NULL;
    float times[64];
    rk_status st = rk_event_create(ctx, &e0);
    if (st == RK_OK)
        st = rk_event_create(ctx, &e1);
    for (int i = 0; st == RK_OK && i < warmup; i++)
        st = rk_launch(k, grid, args, nargs, NULL);
    if (st == RK_OK)
        st = rk_synchronize(ctx);
    for (int i = 0; st == RK_OK && i < runs; i++) {
        st = rk_event_record(e0, NULL);
        if (st == RK_OK)
            st = rk_launch(k, grid, args, nargs, NULL);
        if (st == RK_OK)
            st = rk_event_record(e1, NULL);
        if (st == RK_OK)
            st = rk_event_elapsed(e0, e1, &times[i]);
    }
    int rc = st == RK_OK ? 0 : device_error(ctx, st);
    rk_event_destroy(e0);
    rk_event_destroy(e1);
    if (rc)
        return rc;
    qsort(times, (size_t)runs, sizeof times[0], compare_float);
    double median = runs % 2 ? times[runs / 2] : 0.5 * ((double)times[runs / 2 - 1] + (double)times[runs / 2]);
    printf("%s: median %.4f ms over %d runs on %s (%s)\n", name, median, runs, info.kind,
           gpu ? "device events" : "wall time");
    print_roofline(ctx, k, grid, args, nargs, name, median, svg);
    return 0;
}

static int write_dump(rk_ctx *ctx, const char *name, const char *path, const Buffer *b)
{
    void *host = malloc(b->bytes);
    if (!host) {
        fprintf(stderr, "rkc run: error: out of memory dumping %s\n", name);
        return EXIT_DEVICE;
    }
    rk_status st = rk_memcpy_dtoh(ctx, host, b->dev, b->bytes);
    if (st != RK_OK) {
        free(host);
        return device_error(ctx, st);
    }
    /* rt_write_file: a device node is written in place, a failed write leaves no partial file */
    int e = rt_write_file(path, host, b->bytes), rc = 0;
    if (e) {
        fprintf(stderr, "rkc run: error: cannot write '%s': %s\n", path, strerror(e));
        rc = 1; /* a failed output, as rkc's */
    }
    free(host);
    return rc;
}

/* --report: the facts of the kernel the launch ran and, on AMD devices, its gfx942 report (on emu the
 * variant compiled again for gfx942, whose lowering the emulator runs). */
static int report_launch(rk_ctx *ctx, rk_kernel *k, const RunOptions *o, const char *text, size_t len,
                         const rk_compile_options *co)
{
    rk_kernel *ran = rk_kernel_last_run(k);
    const char *facts = rk_kernel_facts(ran);
    rk_device_info info;
    rk_device_get_info(ctx, &info);
    bool json = strcmp(o->report, "json") == 0;
    const void *bin = NULL;
    size_t size = 0;
    rk_program *gfx = NULL;
    const char *why = NULL;
    if (strcmp(info.kind, "hip") == 0) {
        rk_program_binary(rk_kernel_program(ran), &bin, &size);
    } else if (strcmp(info.kind, "emu") == 0) { /* names a target: the device's kind, from the public API */
        rk_compile_options g = *co;
        rk_define defs[2 * MAX_LIST];
        char cfg[2048];
        int n = 0;
        for (; n < co->ndefines; n++)
            defs[n] = co->defines[n];
        snprintf(cfg, sizeof cfg, "%s", rk_kernel_config(ran));
        for (char *save = NULL, *t = strtok_r(cfg, " ", &save); t && n < 2 * MAX_LIST; t = strtok_r(NULL, " ", &save)) {
            char *eq = strchr(t, '=');
            if (eq) {
                *eq = 0;
                defs[n++] = (rk_define){t, eq + 1};
            }
        }
        g.defines = defs;
        g.ndefines = n;
        g.target = "gfx942";
        g.assume = facts;
        if (rk_compile(ctx, text, len, &g, &gfx) == RK_OK)
            rk_program_binary(gfx, &bin, &size);
        else
            why = rk_error(ctx);
    } else {
        why = "the resource report reads AMDGPU code objects";
    }
    Arena a;
    arena_init(&a, arena_default_allocator);
    CodeReport rep;
    const char *err = NULL;
    bool have = bin && report_code_object(&a, bin, size, &rep, &err) == 0;
    if (json) {
        printf("{\"kernel\": \"%s\", \"device\": \"%s\", \"config\": \"%s\", \"facts\": \"%s\", \"report\": %s}\n",
               o->kernel, info.kind, rk_kernel_config(ran), facts,
               have ? report_json(&a, &rep) : "null");
    } else {
        printf("launch %s (%s): %s%s\n", o->kernel, info.kind, *facts ? "variant " : "no facts (the generic kernel)",
               facts);
        if (have)
            fputs(report_text(&a, &rep), stdout);
        else
            printf("  (no report: %s)\n", why ? why : err ? err : "no code object");
    }
    arena_free(&a);
    rk_program_destroy(gfx);
    return 0;
}

/* Every diagnostic of the context's last compile, to stderr. */
static void print_diags(rk_ctx *ctx)
{
    for (int i = 0; ctx && i < rk_diag_count(ctx); i++) {
        rk_diag d;
        if (rk_diag_get(ctx, i, &d) == RK_OK)
            fputs(d.text, stderr);
    }
}

/* Everything after compiling: arguments, buffers, the launch (through the autotuner unless --no-tune),
 * dumps and the benchmark. */
static int launch(rk_ctx *ctx, rk_kernel *k, RunOptions *o, const char *text, size_t len, const rk_compile_options *co)
{
    rk_kernel_info info;
    rk_kernel_get_info(k, &info);
    int np = info.num_params;
    rk_param *params = calloc((size_t)np + 1, sizeof *params);
    rk_arg *args = calloc((size_t)np + 1, sizeof *args);
    Buffer *bufs = calloc((size_t)np + 1, sizeof *bufs);
    int rc = params && args && bufs ? 0 : EXIT_DEVICE;
    for (int i = 0; rc == 0 && i < np; i++)
        rk_kernel_get_param(k, i, &params[i]);
    /* Every argument names a parameter; every dump names a pointer parameter. */
    for (int j = 0; rc == 0 && j < o->nargs + o->ndumps; j++) {
        bool dump = j >= o->nargs;
        const char *name = dump ? o->dumps[j - o->nargs].name : o->args[j].name;
        int i = 0;
        while (i < np && strcmp(params[i].name, name) != 0)
            i++;
        if (i == np) {
            char list[1024] = "";
            size_t n = 0;
            for (int q = 0; q < np && n < sizeof list; q++)
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", q ? ", " : "", params[q].name);
            rc = usage_error("kernel %s has no parameter '%s' (parameters: %s)", info.name, name,
                             np ? list : "none");
        } else if (dump && params[i].kind != RK_PARAM_POINTER) {
            rc = usage_error("--dump %s: '%s' is a scalar parameter, not a buffer", name, name);
        }
    }
    if (rc == 0 && !o->has_grid && !info.has_grid)
        rc = usage_error("kernel %s has no @grid: give --grid X[,Y,Z]", info.name);
    for (int i = 0; rc == 0 && i < np; i++) {
        const rk_param *p = &params[i];
        NameValue *a = NULL;
        for (int j = 0; j < o->nargs && !a; j++)
            if (strcmp(o->args[j].name, p->name) == 0)
                a = &o->args[j];
        if (!a) {
            rc = usage_error("missing argument %s=... for parameter '%s' (%s%s)", p->name, p->name,
                             p->kind == RK_PARAM_POINTER ? "*" : "", rk_dtype_name(p->dtype));
        } else if (p->kind == RK_PARAM_POINTER) {
            rc = make_buffer(ctx, p, i, a->value, o->seed, &bufs[i]);
            args[i] = rk_arg_ptr(bufs[i].dev);
        } else if (!parse_scalar(a->value, p->dtype, &args[i])) {
            rc = usage_error("argument %s: '%s' is not a value of type %s", p->name, a->value, rk_dtype_name(p->dtype));
        }
    }
    const uint32_t *grid = o->has_grid ? o->grid : NULL;
    if (rc == 0) {
        rk_status st;
        if (o->no_tune) {
            st = rk_launch(k, grid, args, np, NULL);
        } else {
            /* tunes on a miss, zeroes the reset buffers after tuning, launches the best config */
            st = rk_run(ctx, text, len, o->kernel, grid, args, np, co, NULL);
            end_progress();
            rk_kernel *best = NULL;
            if (st == RK_OK && rk_autotune(ctx, text, len, o->kernel, args, np, co, &best) == RK_OK)
                k = best; /* remembered by the context: --bench times the tuned kernel */
            /* a winner from the cache prints no per-config lines: say where it came from */
            rk_stats stats;
            const char *pa = getenv("RK_PRINT_AUTOTUNING");
            if (st == RK_OK && best && *rk_kernel_config(best) && pa && *pa && strcmp(pa, "0") != 0 &&
                rk_get_stats(ctx, &stats) == RK_OK && stats.tunings == 0)
                fprintf(stderr,
                        "rkc run: autotune %s: %s from the cache (tuned earlier for these key values; "
                        "RK_ALWAYS_COMPILE=1 or another RK_CACHE_DIR tunes again)\n",
                        o->kernel, rk_kernel_config(best));
        }
        if (st == RK_OK)
            st = rk_synchronize(ctx);
        if (st == RK_ECOMPILE || st == RK_EINTERNAL) {
            print_diags(ctx);
            if (rk_diag_count(ctx) == 0)
                fprintf(stderr, "rkc run: error: %s\n", rk_error(ctx));
            rc = st == RK_ECOMPILE ? EXIT_PROGRAM : EXIT_INTERNAL;
        } else if (st != RK_OK) {
            rc = device_error(ctx, st);
        }
    }
    if (rc == 0 && o->report)
        rc = report_launch(ctx, k, o, text, len, co);
    for (int j = 0; rc == 0 && j < o->ndumps; j++)
        for (int i = 0; i < np; i++)
            if (strcmp(params[i].name, o->dumps[j].name) == 0)
                rc = write_dump(ctx, o->dumps[j].name, o->dumps[j].value, &bufs[i]);
    if (rc == 0 && o->bench)
        rc = bench(ctx, k, grid, args, np, info.name, o->roofline);
    for (int i = 0; bufs && i < np; i++)
        rk_free(ctx, bufs[i].dev);
    free(params);
    free(args);
    free(bufs);
    return rc;
}

/* The options of `rkc run` and `rkc --advise` parsed and their source read: the source, with *po the
 * options; or NULL with the exit status in *rc (0 after --help) and nothing left to free. */
static char *open_run(int argc, char **argv, RunOptions **po, size_t *len, int *rc)
{
    RunOptions *o = malloc(sizeof *o);
    if (!o) {
        fprintf(stderr, "%s: error: out of memory\n", tool);
        *rc = EXIT_INTERNAL;
        return NULL;
    }
    *rc = parse_run_options(argc, argv, o);
    char *text = NULL;
    if (*rc == 0) {
        text = rkc_read_source(o->input, len);
        if (!text)
            *rc = usage_error("cannot read '%s': %s", o->input,
                              errno == EINVAL ? "not a regular file" : strerror(errno));
    } else if (*rc < 0) {
        *rc = 0;
    }
    if (!text) {
        free_run_options(o);
        free(o);
        return NULL;
    }
    *po = o;
    return text;
}

/* What the command line says about the compile (the target aside). */
static rk_compile_options compile_options_of(const RunOptions *o)
{
    rk_compile_options opts = {0};
    opts.filename = o->input;
    opts.defines = o->defines;
    opts.ndefines = o->ndefines;
    opts.include_dirs = o->incdirs;
    opts.ninclude_dirs = o->nincdirs;
    opts.kernel = o->kernel;
    opts.assume = o->assume[0] ? o->assume : NULL;
    return opts;
}

int rkc_run(int argc, char **argv)
{
    RunOptions *o = NULL;
    size_t len = 0;
    int rc;
    char *text = open_run(argc, argv, &o, &len, &rc);
    if (!text)
        return rc;
    rk_ctx_options co = {0};
    co.print = print_line;
    co.dump = print_dump;
    co.log = print_log;
    co.stdlib_dir = rkc_stdlib_dir();
    co.confine_imports = o->confine_imports; /* every compile of the run, variants included */
    rk_ctx *ctx = NULL;
    rk_status st = rk_ctx_create(&co, &ctx);
    rk_program *prog = NULL;
    if (st != RK_OK) {
        fprintf(stderr, "rkc run: error: %s\n", rk_error(ctx));
        rc = st == RK_ENOMEM ? EXIT_INTERNAL : EXIT_DEVICE;
    } else {
        rk_compile_options opts = compile_options_of(o);
        st = rk_compile(ctx, text, len, &opts, &prog);
        print_diags(ctx);
        rk_kernel *k = NULL;
        if (st == RK_OK)
            st = rk_program_kernel(prog, o->kernel, &k);
        if (st == RK_ECOMPILE || st == RK_EINTERNAL) {
            if (rk_diag_count(ctx) == 0)
                fprintf(stderr, "rkc run: error: %s\n", rk_error(ctx));
            rc = st == RK_ECOMPILE ? EXIT_PROGRAM : EXIT_INTERNAL;
        } else if (st != RK_OK) {
            fprintf(stderr, "rkc run: error: %s\n", rk_error(ctx));
            rc = st == RK_ENOTFOUND ? EXIT_PROGRAM : status_exit(st);
        } else {
            rc = launch(ctx, k, o, text, len, &opts);
        }
    }
    rk_program_destroy(prog);
    rk_ctx_destroy(ctx);
    free(text);
    free_run_options(o);
    free(o);
    return rc;
}

/* `rkc --advise[=json] FILE.tile [-k NAME] [--target=T] [-D ...] [--grid X,Y,Z] [NAME=VALUE]...
 * [--roofline=FILE.svg]`: compiles the kernel for T (default gfx942) without a device and prints its
 * ranked limiters for a launch with these scalar arguments (pointer arguments may be left out: nothing
 * runs), through rk_kernel_advise. */
int rkc_advise(int argc, char **argv)
{
    tool = "rkc";
    RunOptions *o = NULL;
    size_t len = 0;
    int rc;
    char *text = open_run(argc, argv, &o, &len, &rc);
    if (!text)
        return rc;
    /* the interpreter's device holds the buffers whose sizes bound the least traffic (rk_work.bytes_min);
     * nothing runs on it */
    rk_ctx_options co = {0};
    co.device = "interp";
    co.stdlib_dir = rkc_stdlib_dir();
    co.log = print_log;
    rk_ctx *ctx = NULL;
    rk_program *prog = NULL;
    rk_status st = rk_ctx_create(&co, &ctx);
    rk_compile_options opts = compile_options_of(o);
    opts.target = o->target ? o->target : "gfx942";
    if (st == RK_OK || st == RK_ENODEVICE)
        st = rk_compile(ctx, text, len, &opts, &prog);
    print_diags(ctx);
    rk_kernel *k = NULL;
    if (st == RK_OK)
        st = o->kernel ? rk_program_kernel(prog, o->kernel, &k) : rk_program_kernel_at(prog, 0, &k);
    if (st != RK_OK) {
        if (st != RK_ECOMPILE || rk_diag_count(ctx) == 0)
            fprintf(stderr, "rkc: error: %s\n", ctx ? rk_error(ctx) : "out of memory");
        rc = st == RK_ECOMPILE || st == RK_ENOTFOUND ? EXIT_PROGRAM : st == RK_EINVAL ? EXIT_USAGE : status_exit(st);
    }
    rk_kernel_info info = {0};
    rk_param *params = NULL;
    rk_arg *args = NULL;
    if (rc == 0) {
        rk_kernel_get_info(k, &info);
        params = calloc((size_t)info.num_params + 1, sizeof *params);
        args = calloc((size_t)info.num_params + 1, sizeof *args);
        if (!params || !args)
            rc = EXIT_INTERNAL;
    }
    for (int i = 0; rc == 0 && i < info.num_params; i++) {
        rk_kernel_get_param(k, i, &params[i]);
        const NameValue *a = NULL;
        for (int j = 0; j < o->nargs; j++)
            if (strcmp(o->args[j].name, params[i].name) == 0)
                a = &o->args[j];
        if (params[i].kind == RK_PARAM_POINTER) {
            /* T[n] (or KIND:T[n], as rkc run takes): a buffer of that size, never filled; absent: NULL */
            const char *spec = a ? strrchr(a->value, ':') : NULL;
            rk_dtype t;
            size_t n;
            void *ptr = NULL;
            if (a && !parse_elems(spec ? spec + 1 : a->value, &t, &n))
                rc = usage_error("argument %s: '%s' is not a buffer T[n]", params[i].name, a->value);
            else if (a && rk_malloc(ctx, n * rk_dtype_size(t), &ptr) != RK_OK)
                rc = device_error(ctx, RK_ENOMEM);
            args[i] = rk_arg_ptr(ptr);
            if (!a && rc == 0) /* without its size, a buffer read by many programs counts once for each */
                fprintf(stderr,
                        "rkc: note: no size for pointer '%s' (%s=T[n]): every program's loads and stores count "
                        "as memory traffic, so the bytes and a memory-bound verdict are an upper bound; give "
                        "each buffer's size to count it once\n",
                        params[i].name, params[i].name);
        } else if (!a)
            rc = usage_error("--advise needs the value of parameter '%s' (%s=...): the work depends on it",
                             params[i].name, params[i].name);
        else if (!parse_scalar(a->value, params[i].dtype, &args[i]))
            rc = usage_error("argument %s: '%s' is not a value of type %s", params[i].name, a->value,
                             rk_dtype_name(params[i].dtype));
    }
    if (rc == 0) {
        size_t need = 0;
        st = rk_kernel_advise(ctx, k, o->has_grid ? o->grid : NULL, args, info.num_params, text, len, &opts,
                              strcmp(o->advise, "json") == 0, NULL, 0, &need);
        char *buf = st == RK_OK ? malloc(need + 1) : NULL;
        if (buf)
            st = rk_kernel_advise(ctx, k, o->has_grid ? o->grid : NULL, args, info.num_params, text, len, &opts,
                                  strcmp(o->advise, "json") == 0, buf, need + 1, &need);
        if (st == RK_OK && buf)
            fputs(buf, stdout);
        else
            rc = st == RK_ELAUNCH || st == RK_EINVAL ? usage_error("%s", rk_error(ctx)) : device_error(ctx, st);
        free(buf);
    }
    if (rc == 0 && o->roofline) {
        rk_work w;
        const rk_peaks *p;
        rk_roofline r;
        uint32_t g[3];
        if (o->has_grid)
            memcpy(g, o->grid, sizeof g);
        if ((o->has_grid || rk_kernel_grid(k, args, info.num_params, g) == RK_OK) &&
            rk_kernel_work(k, g, args, info.num_params, &w) == RK_OK &&
            rk_device_peaks(ctx, opts.target, &p, NULL) == RK_OK && rk_roofline_of(p, &w, 0, &r) == RK_OK) {
            rk_roofline_point pt = {info.name, r.intensity, r.bound_ms > 0 ? w.flops / (r.bound_ms * 1e-3) : 0, 1};
            char label[512];
            snprintf(label, sizeof label, "%s%s%s, the roofline's bound", info.name, *rk_kernel_config(k) ? " " : "",
                     rk_kernel_config(k));
            pt.label = label;
            if (rk_roofline_svg(ctx, o->roofline, p, r.peak_flops_per_s, &pt, 1) != RK_OK) {
                fprintf(stderr, "rkc: error: %s\n", rk_error(ctx));
                rc = 1;
            }
        } else {
            fprintf(stderr, "rkc: error: no roofline: %s\n", rk_error(ctx));
            rc = EXIT_DEVICE;
        }
    }
    free(params);
    free(args);
    rk_program_destroy(prog);
    rk_ctx_destroy(ctx); /* frees the buffers */
    free(text);
    free_run_options(o);
    free(o);
    return rc;
}
