/* Differential testing of the emulator against the reference interpreter on generated programs.
 *
 *   diff_tile [--seed S] [--count N] [--seconds T] [--data K] [--out DIR] [--print] [--reduce]
 *             [--no-barrier] [--loops] [--timeout T1] [FILE...]
 *
 * Without files: programs from tests/fuzz/gen_tile.c with the seeds S, S + 1, ... (S from the clock
 * unless given), N of them or as many as fit in T seconds (both given: whichever ends first). With
 * files: each saved program (a header of `// ` lines, gen_tile.h) is run as it is, which is how
 * tests/regress/diff/ replays its cases.
 * Every program is compiled for `interp` and `emu` through include/rk.h and run K times (default 2)
 * with fresh inputs; each output must agree bit for bit or within the tolerance its header gives
 * (the comparison of tests/run/harness.c: expect_buf, with the interpreter's result as reference).
 * emu checks for data races, as in the run tests (RK_CHECK_RACES=0: not): the outputs of a racy
 * program are no reference, so a race is a launch error (a generator bug, or a race of the compiler's
 * own LDS transfers). A compile refused only by the kernel's summed budgets (registers or memory
 * accesses a lane over the whole kernel, issue 23: compiler/lower/lower_core.c, lower_budget), the
 * other device compiling, is counted apart, "refused by a documented limit", neither agreement nor
 * failure: the generator bounds each tile (MAXELEMS) but cannot model those sums, which the lowering
 * counts over every op's registers, its own intermediate values included; the refusal is printed with
 * the line that replays it. Any other compile error, launch error or disagreement is a failure: it
 * prints the program's seed and the line that replays it, writes the program to DIR (default: none) and, for a
 * generated program, the outputs that disagree alone (gen_tile's only_output); --reduce then deletes
 * lines while it still fails (a help to read it, not a proof: the tolerances are the original
 * program's; it keeps every `barrier();`, without which a program of several waves may race).
 * --no-barrier generates programs without barrier() (for a language without it; gen_tile.h).
 * --loops adds run-time loops whose bounds and step are arguments anywhere in i32 (next to INT32_MAX
 * and INT32_MIN, a step of 0, bounds the wrong way round) and pointer arithmetic in other forms
 * (gen_tile.h, rt_loops): another sequence of programs from the same seeds. A
 * program whose compiles and runs take more than T1 seconds (default 300; 0: no limit) ends the run
 * as a failure, its text written to DIR: LLVM has hung on generated programs, and a hang must not stop
 * a campaign without a word.
 * Exit status: 0 when every program agreed or was refused by a documented limit, 1 otherwise, 2 on a
 * bad command line. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/fuzz/gen_tile.h"
#include "tests/run/harness.h"
#include "support/files.h"

static const char *const DEVS[NDEV] = {"interp", "emu"};

typedef struct Param {
    char name[16];
    int kind; /* 0 input, 1 output, 2 scalar */
    rk_dtype dt;
    long n;
    int gen; /* 0 uni, 1 bits, 2 special */
    double lo, hi, q, tol, v;
    bool exact;
} Param;

typedef struct Prog {
    const char *text;
    uint64_t seed;
    uint32_t grid[3];
    Param p[MAX_ARGS];
    int np;
} Prog;

static rk_ctx *ctxs[NDEV];
static bool print_programs, reduce, no_barrier, rt_loops;
static const char *out_dir;
static int data_rounds = 2;
static long n_programs, n_runs, n_fail_compile, n_fail_launch, n_fail_diff, n_refused, n_agreed;
static unsigned timeout_s = 300;

/* The watchdog: what the SIGALRM handler writes (made before each program: the handler may only make
 * async-signal-safe calls) and the replay line of the program being run. */
static char wd_msg[1600], wd_path[1024], wd_replay[1100];
static const char *wd_text;
static size_t wd_msg_len, wd_text_len;

static void on_alarm(int sig)
{
    (void)sig;
    ssize_t n = write(STDOUT_FILENO, wd_msg, wd_msg_len);
    int fd = wd_path[0] ? open(wd_path, O_WRONLY | O_CREAT | O_TRUNC, 0666) : -1;
    if (fd >= 0) {
        n = write(fd, wd_text, wd_text_len);
        close(fd);
    }
    (void)n;
    _exit(1);
}

/* Arms the watchdog for one program (label, its text). */
static void watch(const char *label, const char *text)
{
    if (!timeout_s)
        return;
    wd_path[0] = 0;
    if (out_dir) {
        mkdir(out_dir, 0777);
        snprintf(wd_path, sizeof wd_path, "%s/%s", out_dir, label);
    }
    snprintf(wd_msg, sizeof wd_msg,
             "FAIL %s: timeout: its compiles and runs took more than %u s\n  replay: %s\n%s%s%s"
             "diff_tile: stopped after %ld programs, %ld runs, %ld failed before it\n",
             label, timeout_s, wd_replay, wd_path[0] ? "  written to " : "", wd_path, wd_path[0] ? "\n" : "",
             n_programs - 1, n_runs, n_fail_compile + n_fail_launch + n_fail_diff);
    wd_msg_len = strlen(wd_msg);
    wd_text = text;
    wd_text_len = strlen(text);
    fflush(stdout);
    alarm(timeout_s);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int dtype_of(const char *s)
{
    for (int t = RK_BOOL; t <= RK_F64; t++)
        if (strcmp(rk_dtype_name((rk_dtype)t), s) == 0)
            return t;
    return -1;
}

/* Reads the header; false (with a message) when it is not one. */
static bool parse_header(const char *text, Prog *p, const char *label)
{
    memset(p, 0, sizeof *p);
    p->text = text;
    p->grid[0] = p->grid[1] = p->grid[2] = 1;
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, "// ", 3) != 0)
            continue;
        char kw[16], name[16], dt[16], dir[16], gen[16];
        unsigned long long seed;
        if (sscanf(l, "// rk-diff seed %llx", &seed) == 1) {
            p->seed = seed;
            continue;
        }
        if (sscanf(l, "// grid %u %u %u", &p->grid[0], &p->grid[1], &p->grid[2]) == 3)
            continue;
        if (sscanf(l, "// %15s %15s %15s", kw, name, dt) != 3 || (strcmp(kw, "buf") && strcmp(kw, "arg")))
            continue;
        if (p->np == MAX_ARGS) {
            fprintf(stderr, "%s: too many parameters\n", label);
            return false;
        }
        Param *q = &p->p[p->np];
        snprintf(q->name, sizeof q->name, "%s", name);
        int t = dtype_of(dt);
        if (t < 0) {
            fprintf(stderr, "%s: unknown dtype %s\n", label, dt);
            return false;
        }
        q->dt = (rk_dtype)t;
        if (strcmp(kw, "arg") == 0) {
            q->kind = 2;
            if (sscanf(l, "// arg %*s %*s %lf", &q->v) != 1)
                goto bad;
        } else if (sscanf(l, "// buf %*s %*s %ld %15s", &q->n, dir) == 2 && strcmp(dir, "out") == 0) {
            q->kind = 1;
            char tol[32];
            if (sscanf(l, "// buf %*s %*s %*d out %31s", tol) != 1)
                goto bad;
            q->exact = strcmp(tol, "exact") == 0;
            q->tol = q->exact ? 0 : strtod(tol, NULL);
        } else if (sscanf(l, "// buf %*s %*s %ld in %15s %lf %lf %lf", &q->n, gen, &q->lo, &q->hi, &q->q) == 5) {
            q->kind = 0;
            q->gen = strcmp(gen, "uni") == 0 ? 0 : strcmp(gen, "bits") == 0 ? 1 : 2;
        } else {
            goto bad;
        }
        p->np++;
        continue;
    bad:
        fprintf(stderr, "%s: bad header line: %.80s\n", label, l);
        return false;
    }
    return true;
}

static rk_arg scalar_arg(rk_dtype t, double v)
{
    switch (t) {
    case RK_BOOL: return rk_arg_bool(v != 0);
    case RK_F16: return rk_arg_f16(rk_f16_from_double(v));
    case RK_BF16: return rk_arg_bf16(rk_bf16_from_double(v));
    case RK_F32: return rk_arg_f32((float)v);
    case RK_F64: return rk_arg_f64(v);
    case RK_U64: return rk_arg_u64((uint64_t)v);
    default: return rk_arg_i64((int64_t)v);
    }
}

static void fill_input(Run *r, HBuf *b, const Param *q)
{
    for (size_t i = 0; i < b->n; i++) {
        if (q->gen == 1) {
            fill_one(r, b, i, BITS);
            continue;
        }
        if (q->gen == 2 && rng_range(&r->rng, 0, 7) == 0) {
            static const double S[] = {0.0, -0.0, INFINITY, -INFINITY, NAN};
            fset(b->dt, b->host, i, S[rng_range(&r->rng, 0, 4)]);
            continue;
        }
        if (!dt_float(b->dt))
            iset(b->dt, b->host, i, rng_range(&r->rng, (int64_t)q->lo, (int64_t)q->hi));
        else if (q->q > 0)
            fset(b->dt, b->host, i, q->q * (double)rng_range(&r->rng, (int64_t)ceil(q->lo / q->q), (int64_t)floor(q->hi / q->q)));
        else
            fset(b->dt, b->host, i, q->lo + (q->hi - q->lo) * rng_unit(&r->rng));
    }
}

static void launch_on(rk_kernel *k, Run *r, int d)
{
    rk_ctx *ctx = ctxs[d];
    void *dptr[MAX_BUFS] = {0};
    rk_arg args[MAX_ARGS];
    rk_status st = RK_OK;
    for (int i = 0; i < r->nbufs && st == RK_OK; i++) {
        HBuf *b = &r->bufs[i];
        if ((st = rk_malloc(ctx, b->n * b->esize, &dptr[i])) == RK_OK)
            st = rk_memcpy_htod(ctx, dptr[i], b->host, b->n * b->esize);
    }
    if (st == RK_OK) {
        for (int i = 0; i < r->nargs; i++)
            args[i] = r->argbuf[i] >= 0 ? rk_arg_ptr(dptr[r->argbuf[i]]) : r->args[i];
        st = rk_launch(k, r->grid, args, r->nargs, NULL);
        if (st == RK_OK)
            st = rk_synchronize(ctx);
    }
    r->st[d] = st;
    snprintf(r->msg[d], sizeof r->msg[d], "%s", st == RK_OK ? "" : rk_error(ctx));
    for (int i = 0; i < r->nbufs; i++) {
        HBuf *b = &r->bufs[i];
        if (dptr[i] && st == RK_OK)
            rk_memcpy_dtoh(ctx, b->got[d], dptr[i], b->n * b->esize);
        rk_free(ctx, dptr[i]);
    }
}

static void free_run(Run *r)
{
    for (int i = 0; i < r->nbufs; i++) {
        free(r->bufs[i].host);
        free(r->bufs[i].ref);
        free(r->bufs[i].written);
        for (int d = 0; d < NDEV; d++)
            free(r->bufs[i].got[d]);
    }
    free(r->log);
}

enum { OK, FAIL_COMPILE, FAIL_LAUNCH, FAIL_DIFF, REFUSED };

/* The last compile on ctx was refused by the kernel's summed budgets alone: every error is the
 * lowering's "brings the kernel's values (memory accesses) to N ... in bounded time" (lower_budget).
 * A single op past its own per-lane bound is not one of them: the generator's MAXELEMS keeps every
 * tile under it, so that refusal is a failure (a generator or compiler bug). */
static bool refused_by_sum(const rk_ctx *ctx)
{
    int errors = 0;
    for (int i = 0; i < rk_diag_count(ctx); i++) {
        rk_diag dg;
        if (rk_diag_get(ctx, i, &dg) != RK_OK || dg.severity != RK_SEVERITY_ERROR)
            continue;
        if (!strstr(dg.message, "brings the kernel's") || !strstr(dg.message, "rk compiles in bounded time"))
            return false;
        errors++;
    }
    return errors > 0;
}

/* Compiles and runs a program; a failure's text goes to *log (malloc'd) when log is not NULL. */
static int run_prog(const Prog *p, const char *label, char **log)
{
    static Case c;
    snprintf(c.name, sizeof c.name, "%s", label);
    c.file = label;
    c.kernel = "fz";
    rk_program *prog[NDEV] = {0};
    rk_kernel *k[NDEV] = {0};
    int res = OK;
    bool any_refused = false, other_error = false;
    Run r;
    memset(&r, 0, sizeof r);
    r.c = &c;
    watch(label, p->text);
    for (int d = 0; d < NDEV; d++) {
        rk_compile_options co = {.filename = label};
        rk_status st = rk_compile(ctxs[d], p->text, strlen(p->text), &co, &prog[d]);
        if (st == RK_OK)
            st = rk_program_kernel(prog[d], "fz", &k[d]);
        if (st != RK_OK) {
            failf(&r, "  compile for %s: %s: %s", DEVS[d], rk_status_name(st), rk_error(ctxs[d]));
            for (int i = 0; i < rk_diag_count(ctxs[d]) && i < 3; i++) {
                rk_diag dg;
                rk_diag_get(ctxs[d], i, &dg);
                failf(&r, "%s", dg.text);
            }
            res = FAIL_COMPILE;
            if (st == RK_ECOMPILE && refused_by_sum(ctxs[d]))
                any_refused = true;
            else
                other_error = true;
        }
    }
    if (any_refused && !other_error)
        res = REFUSED;
    for (int round = 0; round < data_rounds && res == OK; round++) {
        Run rr;
        memset(&rr, 0, sizeof rr);
        rr.c = &c;
        rr.seed = p->seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(round + 1));
        rng_seed(&rr.rng, rr.seed);
        static const uint8_t poisons[] = {0xA5, 0x5A, 0xC3, 0xFF, 0x7E};
        rr.poison = poisons[rng_range(&rr.rng, 0, 4)];
        for (int i = 0; i < p->np; i++) {
            const Param *q = &p->p[i];
            if (q->kind == 2) {
                arg(&rr, scalar_arg(q->dt, q->v));
            } else if (q->kind == 0) {
                fill_input(&rr, in_buf(&rr, q->name, q->dt, (size_t)q->n, (Gen){G_NONE, 0, 0}), q);
            } else {
                out_buf(&rr, q->name, q->dt, (size_t)q->n);
            }
        }
        set_grid(&rr, p->grid[0], p->grid[1], p->grid[2]);
        for (int d = 0; d < NDEV; d++)
            launch_on(k[d], &rr, d);
        n_runs++;
        if (!launched_ok(&rr)) {
            for (int d = 0; d < NDEV; d++)
                failf(&rr, "  launch on %s: %s: %s", DEVS[d], rk_status_name(rr.st[d]), rr.st[d] ? rr.msg[d] : "");
            res = FAIL_LAUNCH;
        } else {
            int bi = 0;
            for (int i = 0; i < p->np; i++) {
                if (p->p[i].kind == 2)
                    continue;
                HBuf *b = &rr.bufs[bi++];
                if (p->p[i].kind != 1)
                    continue;
                memcpy(b->ref, b->got[0], b->n * b->esize); /* the interpreter is the reference */
                memset(b->written, 1, b->n);
                expect_buf(&rr, b, p->p[i].exact ? EXACT : ABSREL(p->p[i].tol, 0));
            }
            if (rr.failures)
                res = FAIL_DIFF;
        }
        if (rr.failures) {
            failf(&r, "  data round %d:", round);
            failf(&r, "%s", rr.log);
        }
        free_run(&rr);
    }
    alarm(0);
    for (int d = 0; d < NDEV; d++)
        rk_program_destroy(prog[d]);
    if (log)
        *log = r.log;
    else
        free(r.log);
    return res;
}

static void save(const char *text, const char *name)
{
    if (!out_dir)
        return;
    mkdir(out_dir, 0777);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", out_dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "diff_tile: cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    fputs(text, f);
    fclose(f);
    printf("  written to %s\n", path);
}

/* Deletes lines of the kernel body while the program still fails in the same way. */
static char *reduce_text(const char *text, int want, const char *label)
{
    char *cur = strdup(text);
    bool progress = true;
    while (progress) {
        progress = false;
        int nl = 0;
        for (const char *s = cur; *s; s++)
            nl += *s == '\n';
        for (int line = nl - 1; line >= 0; line--) {
            const char *s = cur;
            for (int i = 0; i < line; i++)
                s = strchr(s, '\n') + 1;
            const char *e = strchr(s, '\n');
            size_t len = (size_t)(e - s) + 1;
            if (strncmp(s, "//", 2) == 0 || strstr(s, "kernel") == s || *s == '@' || *s == '{' || *s == '}' ||
                strstr(s, "let pid =") || strstr(s, "barrier();") || memchr(s, '{', len) || memchr(s, '}', len))
                continue;
            char *cand = malloc(strlen(cur) + 1);
            memcpy(cand, cur, (size_t)(s - cur));
            strcpy(cand + (s - cur), e + 1);
            Prog p;
            if (parse_header(cand, &p, label) && run_prog(&p, label, NULL) == want) {
                free(cur);
                cur = cand;
                progress = true;
            } else {
                free(cand);
            }
        }
    }
    return cur;
}

static void count_result(int res)
{
    if (res == REFUSED)
        n_refused++;
    else if (res == FAIL_COMPILE)
        n_fail_compile++;
    else if (res == FAIL_LAUNCH)
        n_fail_launch++;
    else
        n_fail_diff++;
}

static void report(const Prog *p, const char *label, int res, const char *log, const char *replay)
{
    static const char *const WHAT[] = {"", "compile error", "launch error", "disagreement",
                                       "refused by a documented limit (the kernel's summed budget)"};
    printf("%s %s: %s\n%s  replay: %s\n", res == REFUSED ? "REFUSED" : "FAIL", label, WHAT[res], log ? log : "",
           replay);
    if (print_programs || (!out_dir && res != REFUSED))
        printf("---- program ----\n%s-----------------\n", p->text);
    fflush(stdout);
}

/* One generated program: run it, and on a failure isolate the outputs that fail and save them. */
static bool run_generated(uint64_t seed)
{
    int nout = 0;
    GenOptions o = {-1, 0, no_barrier, rt_loops};
    char *text = gen_tile_program(seed, &o, &nout);
    char label[64], replay[128];
    snprintf(label, sizeof label, "diff-%016" PRIx64 ".tile", seed);
    snprintf(replay, sizeof replay, "diff_tile --seed 0x%016" PRIx64 " --count 1%s%s", seed,
             rt_loops ? " --loops" : "", no_barrier ? " --no-barrier" : "");
    snprintf(wd_replay, sizeof wd_replay, "%s", replay);
    if (!text) {
        printf("FAIL %s: the generator made no program\n", label);
        return false;
    }
    n_programs++;
    Prog p;
    char *log = NULL;
    if (print_programs)
        printf("---- %s ----\n%s", label, text);
    int res = parse_header(text, &p, label) ? run_prog(&p, label, &log) : FAIL_COMPILE;
    if (res == REFUSED) {
        count_result(res);
        report(&p, label, res, log, replay);
    } else if (res != OK) {
        count_result(res);
        report(&p, label, res, log, replay);
        save(text, label);
        /* which outputs fail alone */
        for (int k = 0; res == FAIL_DIFF && k < 16; k++) {
            o.only_output = k;
            char *one = gen_tile_program(seed, &o, NULL);
            Prog q;
            if (one && strstr(one, "store(") && parse_header(one, &q, label) && run_prog(&q, label, NULL) == FAIL_DIFF) {
                char name[80];
                snprintf(name, sizeof name, "diff-%016" PRIx64 "-o%d.tile", seed, k);
                printf("  output o%d fails alone\n", k);
                if (reduce) {
                    char *small = reduce_text(one, FAIL_DIFF, label);
                    printf("---- reduced ----\n%s-----------------\n", small);
                    save(small, name);
                    free(small);
                } else {
                    save(one, name);
                }
            }
            free(one);
        }
    }
    n_agreed += res == OK;
    free(log);
    free(text);
    return res == OK || res == REFUSED;
}

static char *read_file(const char *path)
{
    size_t len;
    int err;
    return rt_read_file(path, (size_t)1 << 30, &len, &err);
}

static bool run_file(const char *path)
{
    char *text = read_file(path);
    if (!text) {
        printf("FAIL %s: cannot read it\n", path);
        return false;
    }
    n_programs++;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    snprintf(wd_replay, sizeof wd_replay, "diff_tile %s", path);
    Prog p;
    char *log = NULL;
    int res = parse_header(text, &p, base) ? run_prog(&p, base, &log) : FAIL_COMPILE;
    if (res != OK) {
        char replay[1100];
        snprintf(replay, sizeof replay, "diff_tile %s", path);
        count_result(res);
        report(&p, base, res, log, replay);
        if (reduce && res != REFUSED) {
            char *small = reduce_text(text, res, base);
            printf("---- reduced ----\n%s-----------------\n", small);
            free(small);
        }
    } else {
        printf("ok   %s\n", base);
        n_agreed++;
    }
    free(log);
    free(text);
    return res == OK || res == REFUSED;
}

int main(int argc, char **argv)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 24);
    long count = -1;
    double seconds = 0;
    const char *files[256];
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        if (strcmp(a, "--seed") == 0 && more)
            seed = strtoull(argv[++i], NULL, 0);
        else if (strcmp(a, "--count") == 0 && more)
            count = strtol(argv[++i], NULL, 0);
        else if (strcmp(a, "--seconds") == 0 && more)
            seconds = strtod(argv[++i], NULL);
        else if (strcmp(a, "--data") == 0 && more)
            data_rounds = (int)strtol(argv[++i], NULL, 0);
        else if (strcmp(a, "--out") == 0 && more)
            out_dir = argv[++i];
        else if (strcmp(a, "--print") == 0)
            print_programs = true;
        else if (strcmp(a, "--reduce") == 0)
            reduce = true;
        else if (strcmp(a, "--no-barrier") == 0)
            no_barrier = true;
        else if (strcmp(a, "--loops") == 0)
            rt_loops = true;
        else if (strcmp(a, "--timeout") == 0 && more)
            timeout_s = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (a[0] != '-' && nfiles < 256)
            files[nfiles++] = a;
        else {
            fprintf(stderr, "usage: diff_tile [--seed S] [--count N] [--seconds T] [--data K] [--out DIR] "
                            "[--print] [--reduce] [--no-barrier] [--loops] [--timeout T1] [FILE...]\n");
            return 2;
        }
    }
    if (count < 0 && seconds <= 0)
        count = nfiles ? 0 : 100;
    /* test the compiler, not the compile cache; and write no cache entries for throwaway programs. emu
     * reports data races (a racy program's outputs are no reference: a generator bug, or the compiler's
     * own LDS transfers) unless RK_CHECK_RACES=0, as the run tests do */
    const char *races = getenv("RK_CHECK_RACES");
    for (int d = 0; d < NDEV; d++) {
        rk_ctx_options o = {.device = DEVS[d], .always_compile = 1, .cache_dir = "/dev/null/rk-diff-no-cache",
                            .check_races = races && strcmp(races, "0") == 0 ? -1 : 1};
        if (rk_ctx_create(&o, &ctxs[d]) != RK_OK) {
            fprintf(stderr, "diff_tile: no %s device: %s\n", DEVS[d], rk_error(ctxs[d]));
            return 1;
        }
    }
    signal(SIGALRM, on_alarm);
    double t0 = now_s();
    long bad = 0;
    for (int i = 0; i < nfiles; i++)
        bad += !run_file(files[i]);
    if (count > 0 || seconds > 0) {
        printf("diff_tile: seeds from 0x%016" PRIx64 "%s\n", seed, seconds > 0 ? " (time-bounded)" : "");
        fflush(stdout);
        for (long i = 0; (count <= 0 || i < count) && (seconds <= 0 || now_s() - t0 < seconds); i++)
            bad += !run_generated(seed + (uint64_t)i);
    }
    printf("diff_tile: %ld programs, %ld runs, %ld agreed, %ld failed (%ld compile, %ld launch, %ld disagreements), "
           "refused by a documented limit: %ld, %.1f s\n",
           n_programs, n_runs, n_agreed, bad, n_fail_compile, n_fail_launch, n_fail_diff, n_refused, now_s() - t0);
    for (int d = 0; d < NDEV; d++)
        rk_ctx_destroy(ctxs[d]);
    return bad ? 1 : 0;
}
