/* rkc: the compiler driver.
 *
 * Parses and validates the command line of the tools contract, runs the compiler to the requested
 * stage and prints its diagnostics. This is the only place that writes to the terminal. Exit codes:
 * 0 success, 1 error in the tile program, 2 bad command line, 3 device or runtime error, 4 internal. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compiler/front/lex.h"
#include "compiler/front/parse.h"
#include "compiler/driver/driver.h"
#include "compiler/passes/passes.h"
#include "compiler/target/amdgpu/report.h"
#include "compiler/target/target.h"
#include "parser.h"
#include "rk.h"
#include "support/files.h"
#include "support/strbuf.h"
#include "tools/rkc/run.h"

#ifndef RK_VERSION
#define RK_VERSION "0.0.0"
#endif

/* A failed write of the output is an error of status 1, like a failed link. */
enum { EXIT_PROGRAM = 1, EXIT_WRITE = 1, EXIT_USAGE = 2, EXIT_DEVICE = 3, EXIT_INTERNAL = 4 };

static const char *const known_emits[] = {"tokens", "ast", "tir", "lir", "llvm", "asm", "obj", "hsaco", NULL};

typedef struct Options {
    const char *input, *output, *target, *emit, *kernel;
    const char *report; /* NULL, "text" or "json" */
    int confine_imports;
    int opt_level, all_configs, remarks;
    Define defines[256];
    int ndefines;
    const char *incdirs[64];
    int nincdirs;
    char assume[4096]; /* --assume facts, joined by spaces */
    const char *specialize[64]; /* --specialize sets (bundles) */
    int nspecialize;
    int tir_input;      /* -x tir: the input is tile IR text */
    const char *passes; /* --passes=NAME,...: with -x tir, the passes to run (pass_table.c) */
} Options;

static void usage(FILE *f)
{
    fputs("usage: rkc FILE.tile [-o OUT] [--target=T] [--emit=K] [-D NAME=VALUE]... [-k NAME] [-I DIR]...\n"
          "           [-O0..-O3] [--all-configs [--specialize FACTS]...] [--report[=json]] [--assume FACTS]...\n"
          "           [--remarks]\n"
          "       rkc -x tir FILE.tir [--passes=NAME,...] [--emit=tir|lir] [--target=T] [-o OUT]\n"
          "       rkc run FILE.tile -k NAME [--grid X[,Y,Z]] [-D ...] [ARG...] [--dump NAME=PATH] [--bench]\n"
          "           [--roofline=FILE.svg]\n"
          "       rkc --advise[=json] FILE.tile [-k NAME] [--target=T] [-D ...] [--grid X[,Y,Z]] [NAME=VALUE]...\n"
          "           [--roofline=FILE.svg]\n"
          "       rkc --version | --help\n"
          "\n"
          "  -o PATH          output path ('-' = stdout for text forms); default FILE.hsaco (FILE.ptx for\n"
          "                   sm_90, FILE.so for emu and emu_sm90)\n"
          "  --target=T       gfx942 (default), gfx90a, gfx950, emu, sm_90, emu_sm90\n"
          "  --emit=K         tokens | ast | tir | lir | llvm | asm | obj | hsaco (default)\n"
          "  -D NAME=VALUE    a const parameter or compile option (num_warps=8, num_stages=2, ...)\n"
          "  -k NAME          only this kernel\n"
          "  -I DIR           import path (repeatable)\n"
          "  -O0 .. -O3       LLVM optimisation level (default -O3)\n"
          "  --all-configs    one code object with every autotune config, plus OUT.json\n"
          "  --confine-imports  imports only from inside the -I folders and the stdlib (untrusted source)\n"
          "  --report         resources and instruction mix per kernel; --report=json for machines\n"
          "  --assume FACTS   compile for facts about run-time parameters (repeatable): NAME%N==0 (an\n"
          "                   integer divisible by N, a pointer aligned to N bytes) or NAME==V (an integer\n"
          "                   equal to V), e.g. --assume 'K%16==0 stride_n==1'; a launch whose\n"
          "                   arguments break one is refused, naming the parameter\n"
          "  --specialize FACTS\n"
          "                   with --all-configs: every config compiled for these facts too (repeatable);\n"
          "                   the runtime runs the most specialised set a call's arguments satisfy\n"
          "  --remarks        every global load or store narrower than the widest (128 bits), with its\n"
          "                   position, width and the fact that would widen it (also in --report=json)\n"
          "  --advise[=json]  the kernel's likely limiters, ranked, with evidence and the change to try, for\n"
          "                   a launch with these scalar arguments (buffers as NAME=T[n] bound the least\n"
          "                   traffic; nothing runs)\n"
          "  --roofline=FILE.svg  with --advise or rkc run --bench: the device's roofline and the point\n"
          "  -x tir           the input is tile IR text (TIR, or LIR with layouts), as --emit=tir/lir\n"
          "                   and RK_DUMP_IR print it; it is verified and printed back\n"
          "  --passes=NAME,...  with -x tir: run these passes, in this order, before printing:\n"
          "                   pipeline_loads, canonicalize, compute_axis_info, compute_remarks,\n"
          "                   choose_dots, coalesce, assign_layouts, remove_converts, plan_async,\n"
          "                   allocate_lds\n"
          "\n"
          "environment (docs/api.md says more):\n"
          "  RK_DUMP_IR=1|STAGE,...  print the IR after each stage (tir, pipeline, choose_dots,\n"
          "                   coalesce, assign_layouts, remove_converts, plan_async, allocate_lds, lir,\n"
          "                   llvm, asm) to stderr\n"
          "  RK_DUMP_DIR=DIR  write those dumps to DIR/KERNEL.STAGE.EXT instead\n"
          "  RK_DEVICE=D      rkc run's device: hip, cuda, emu, emu_sm90, interp (default: a GPU, else emu)\n"
          "  RK_PRINT_AUTOTUNING=1  rkc run prints each config's time and the winner, or that the cache\n"
          "                   gave it\n"
          "  RK_CACHE_DIR=DIR the compile and autotune cache (default $XDG_CACHE_HOME/rk, ~/.cache/rk)\n"
          "  RK_ALWAYS_COMPILE=1  never read the cache\n"
          "  RK_NO_SPECIALIZE=1  launches do not specialise on their arguments\n"
          "  RK_CHECK_RACES=1 emu and emu_sm90 report data races\n"
          "  RK_EMU_TIMEOUT=S emu and interp stop a launch after S seconds\n"
          "  RK_PROFILE=FILE  a Chrome/Perfetto trace of compiles, tuning and launches\n"
          "  RK_ROOFLINE=FILE.svg  the autotuner draws its whole search on the device's roofline\n"
          "  RK_PEAKS=NAME    judge against this device of the peaks table (MI300X, MI325X, H200, ...)\n"
          "  RK_STDLIB_DIR=DIR  the standard library's folder\n"
          "  RK_CODEGEN_THREADS=N  threads for code generation\n"
          "  RK_LLVM_ARGS, RK_LLVM_PASSES, RK_LLVM_CODEGEN_OPT  LLVM's options, pass pipeline, codegen level\n"
          "  RK_HIP_LIB, RK_CUDA_LIB  the vendor library to load; RK_LLD, RK_PTXAS  the tools to run\n",
          f);
}

static int in_list(const char *s, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(s, list[i]) == 0)
            return 1;
    return 0;
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "rkc: error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(rkc --help lists the options)\n");
    return EXIT_USAGE;
}

/* Value of an option given as "-X VALUE" or "-XVALUE"; advances *i. NULL when missing. */
static const char *opt_value(int argc, char **argv, int *i, const char *flag)
{
    size_t n = strlen(flag);
    if (argv[*i][n])
        return argv[*i] + n;
    if (*i + 1 < argc)
        return argv[++*i];
    return NULL;
}

static int parse_options(int argc, char **argv, Options *o)
{
    memset(o, 0, sizeof *o);
    o->target = "gfx942";
    o->emit = "hsaco";
    o->opt_level = 3;
    int emit_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(a, "--version") == 0) {
            printf("rkc %s (LLVM 22)\n", RK_VERSION);
            exit(0);
        } else if (strncmp(a, "-o", 2) == 0) {
            o->output = opt_value(argc, argv, &i, "-o");
            if (!o->output)
                return bad_usage("%s needs a path", "-o");
        } else if (strncmp(a, "--target=", 9) == 0) {
            o->target = a + 9;
            if (!target_find(o->target)) {
                fprintf(stderr, "rkc: error: unknown target '%s'; known targets: %s\n", o->target, target_names());
                return EXIT_USAGE;
            }
        } else if (strncmp(a, "--emit=", 7) == 0) {
            o->emit = a + 7;
            emit_given = 1;
            if (!in_list(o->emit, known_emits)) {
                fprintf(stderr, "rkc: error: unknown --emit kind '%s'; known: tokens, ast, tir, lir, llvm, asm, obj, hsaco\n",
                        o->emit);
                return EXIT_USAGE;
            }
        } else if (strncmp(a, "-D", 2) == 0) {
            const char *d = opt_value(argc, argv, &i, "-D");
            const char *eq = d ? strchr(d, '=') : NULL;
            if (!d || !eq || eq == d || !eq[1])
                return bad_usage("-D needs NAME=VALUE, got '%s'", d ? d : "");
            if (o->ndefines == (int)(sizeof o->defines / sizeof o->defines[0]))
                return bad_usage("too many -D options (the limit is %s)", "256");
            char *name = strndup(d, (size_t)(eq - d));
            o->defines[o->ndefines++] = (Define){name, eq + 1};
        } else if (strncmp(a, "-k", 2) == 0) {
            o->kernel = opt_value(argc, argv, &i, "-k");
            if (!o->kernel)
                return bad_usage("%s needs a kernel name", "-k");
        } else if (strncmp(a, "-I", 2) == 0) {
            const char *dir = opt_value(argc, argv, &i, "-I");
            if (!dir)
                return bad_usage("%s needs a directory", "-I");
            if (o->nincdirs == (int)(sizeof o->incdirs / sizeof o->incdirs[0]))
                return bad_usage("too many -I options (the limit is %s)", "64");
            o->incdirs[o->nincdirs++] = dir;
        } else if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) {
            o->opt_level = a[2] - '0';
        } else if (strcmp(a, "--all-configs") == 0) {
            o->all_configs = 1;
        } else if (strcmp(a, "--confine-imports") == 0) {
            o->confine_imports = 1;
        } else if (strcmp(a, "--assume") == 0 || strncmp(a, "--assume=", 9) == 0) {
            const char *f = a[8] == '=' ? a + 9 : i + 1 < argc ? argv[++i] : NULL;
            if (!f || !*f)
                return bad_usage("%s needs facts such as 'K%%16==0' or 'stride_n==1'", "--assume");
            size_t n = strlen(o->assume);
            if (n + strlen(f) + 2 > sizeof o->assume)
                return bad_usage("%s: too many facts", "--assume");
            snprintf(o->assume + n, sizeof o->assume - n, "%s%s", n ? " " : "", f);
        } else if (strcmp(a, "--remarks") == 0) {
            o->remarks = 1;
        } else if (strncmp(a, "-x", 2) == 0) {
            const char *lang = opt_value(argc, argv, &i, "-x");
            if (!lang || (strcmp(lang, "tir") != 0 && strcmp(lang, "tile") != 0))
                return bad_usage("-x takes 'tir' (tile IR text) or 'tile', got '%s'", lang ? lang : "");
            o->tir_input = strcmp(lang, "tir") == 0;
        } else if (strncmp(a, "--passes=", 9) == 0) {
            o->passes = a + 9;
            for (const char *p = o->passes; *p;) {
                const char *comma = strchr(p, ',');
                size_t len = comma ? (size_t)(comma - p) : strlen(p);
                char name[64];
                snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), p);
                if (!len || len >= sizeof name || !pass_find(name)) {
                    int n;
                    const Pass *all = pass_pipeline(&n);
                    fprintf(stderr, "rkc: error: unknown pass '%.*s'; the passes are:", (int)len, p);
                    for (int k = 0, first = 1; k < n; k++)
                        if (pass_find(all[k].name) == &all[k])
                            fprintf(stderr, "%s %s", first ? "" : ",", all[k].name), first = 0;
                    fputc('\n', stderr);
                    return EXIT_USAGE;
                }
                p += len + (comma ? 1 : 0);
            }
        } else if (strcmp(a, "--specialize") == 0 || strncmp(a, "--specialize=", 13) == 0) {
            const char *f = a[12] == '=' ? a + 13 : i + 1 < argc ? argv[++i] : NULL;
            if (!f || !*f)
                return bad_usage("%s needs facts such as 'K%%16==0 stride_n==1'", "--specialize");
            if (o->nspecialize == (int)(sizeof o->specialize / sizeof o->specialize[0]))
                return bad_usage("too many --specialize options (the limit is %s)", "64");
            o->specialize[o->nspecialize++] = f;
        } else if (strcmp(a, "--report") == 0) {
            o->report = "text";
        } else if (strncmp(a, "--report=", 9) == 0) {
            if (strcmp(a + 9, "json") != 0 && strcmp(a + 9, "text") != 0)
                return bad_usage("--report takes 'json' or 'text', got '%s'", a + 9);
            o->report = a + 9;
        } else if (a[0] == '-' && a[1]) {
            return bad_usage("unknown option '%s'", a);
        } else if (o->input) {
            return bad_usage("more than one input file ('%s')", a);
        } else {
            o->input = a;
        }
    }
    if (!o->input)
        return bad_usage("%s", "no input file");
    if (o->nspecialize && !o->all_configs)
        return bad_usage("%s makes bundles: add --all-configs", "--specialize");
    if (o->passes && !o->tir_input)
        return bad_usage("%s runs on tile IR text: add -x tir", "--passes");
    if (o->tir_input) {
        if (!emit_given)
            o->emit = "tir";
        if (strcmp(o->emit, "tir") != 0 && strcmp(o->emit, "lir") != 0)
            return bad_usage("-x tir prints tile IR: --emit=tir or --emit=lir, not --emit=%s", o->emit);
        if (o->all_configs || o->report)
            return bad_usage("%s", "-x tir prints tile IR: no --all-configs or --report");
    }
    return 0;
}

/* The source: a regular file through rt_read_file (the library's reader: never a device or a FIFO,
 * read to its size), or stdin for "-". NULL with errno set when it cannot be read. */
char *rkc_read_source(const char *path, size_t *len)
{
    if (strcmp(path, "-") != 0) {
        int err;
        char *text = rt_read_file(path, (size_t)1 << 31, len, &err);
        if (!text)
            errno = err; /* EINVAL: not a regular file */
        return text;
    }
    /* stdin, up to 2 GiB, in a malloc'ed StrBuf (the caller frees its bytes) */
    StrBuf b;
    strbuf_init(&b, NULL);
    char chunk[1 << 16];
    size_t r;
    strbuf_put(&b, "", 0);
    while (!b.oom && b.n <= ((size_t)1 << 31) && (r = fread(chunk, 1, sizeof chunk, stdin)) > 0)
        strbuf_put(&b, chunk, r);
    if (b.oom || b.n > ((size_t)1 << 31) || ferror(stdin)) {
        errno = b.oom || b.n > ((size_t)1 << 31) ? ENOMEM : EIO;
        strbuf_free(&b);
        return NULL;
    }
    *len = b.n;
    return b.p;
}

/* An output that is the input file (`rkc x.tile --emit=tir -o x.tile`) is refused before anything is
 * written: the source would be gone. */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return strcmp(a, "-") != 0 && strcmp(b, "-") != 0 && stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
           S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int refuse_input_as_output(const char *input, const char *output)
{
    if (!same_file(input, output))
        return 0;
    fprintf(stderr, "rkc: error: the output '%s' is the input file: it would overwrite the source\n", output);
    return EXIT_USAGE;
}

/* Writes the result to -o PATH (through rt_out: a device node is written in place, a failed write
 * leaves no partial file) or to stdout. A write that fails is an error with exit status 1. */
static int write_output(const Options *o, const char *text, const void *bin, size_t size)
{
    const void *data = text ? text : bin;
    size_t n = text ? strlen(text) : size;
    if (!o->output || strcmp(o->output, "-") == 0) {
        if (fwrite(data, 1, n, stdout) != n || fflush(stdout) != 0) {
            fprintf(stderr, "rkc: error: cannot write the standard output: %s\n", strerror(errno));
            return EXIT_WRITE;
        }
        return 0;
    }
    int e = rt_write_file(o->output, data, n);
    if (e) {
        fprintf(stderr, "rkc: error: cannot write '%s': %s\n", o->output, strerror(e));
        return EXIT_WRITE;
    }
    return 0;
}

static void print_diags(Arena *a, const Diags *d)
{
    for (int i = 0; i < d->n; i++)
        fputs(diag_render(a, &d->items[i]), stderr);
    if (d->max_errors && d->nerrors > d->max_errors)
        fprintf(stderr, "rkc: %d more errors not shown\n", d->nerrors - d->max_errors);
}

/* The stdlib: $RK_STDLIB_DIR, else <prefix>/share/rk/stdlib next to an installed rkc, else the source
 * tree's stdlib/ (a build tree). */
const char *rkc_stdlib_dir(void)
{
    static char buf[PATH_MAX + 32];
    const char *env = getenv("RK_STDLIB_DIR");
    if (env && *env)
        return env;
    char exe[PATH_MAX - 32];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            snprintf(buf, sizeof buf, "%s/../share/rk/stdlib", exe);
            if (access(buf, R_OK) == 0)
                return buf;
        }
    }
#ifdef RK_SOURCE_STDLIB
    return RK_SOURCE_STDLIB;
#else
    return NULL;
#endif
}

static void print_dump(void *ud, const char *stage, const char *kernel, const char *text)
{
    (void)ud;
    fprintf(stderr, "// -----// IR Dump After %s (%s) //----- //\n%s", stage, kernel, text);
    size_t n = strlen(text);
    if (n && text[n - 1] != '\n')
        fputc('\n', stderr);
}

static bool has_internal_error(const Diags *d)
{
    for (int i = 0; i < d->n; i++)
        if (strncmp(d->items[i].msg, "internal error", 14) == 0)
            return true;
    return false;
}

static void print_note(void *ud, rk_log_kind kind, const char *line)
{
    (void)ud;
    if (kind == RK_LOG_NOTE)
        fprintf(stderr, "rkc: note: %s\n", line);
}

/* --all-configs: one code object with every config of every kernel, and OUT.json (rk_compile_bundle). */
static int compile_bundle(const Options *o, const char *text, size_t len)
{
    if (strcmp(o->emit, "hsaco") != 0 || o->report) {
        fprintf(stderr, "rkc: error: --all-configs writes a code object and its manifest: it takes no --emit or "
                        "--report\n");
        return EXIT_USAGE;
    }
    char *out = NULL;
    if (o->output && strcmp(o->output, "-") != 0) {
        out = strdup(o->output);
    } else if (o->output) {
        fprintf(stderr, "rkc: error: --all-configs writes two files: give -o PATH, not -o -\n");
        return EXIT_USAGE;
    } else {
        const char *dot = strrchr(o->input, '.');
        size_t stem = dot && !strchr(dot, '/') ? (size_t)(dot - o->input) : strlen(o->input);
        out = malloc(stem + 8);
        if (out)
            snprintf(out, stem + 8, "%.*s.%s", (int)stem, o->input, target_output_ext(o->target));
    }
    if (out) {
        char json[PATH_MAX + 8];
        snprintf(json, sizeof json, "%s.json", out);
        int rc = refuse_input_as_output(o->input, out);
        if (rc || (rc = refuse_input_as_output(o->input, json))) {
            free(out);
            return rc;
        }
    }
    rk_define defs[256];
    for (int i = 0; i < o->ndefines; i++)
        defs[i] = (rk_define){o->defines[i].name, o->defines[i].value};
    rk_ctx_options co = {0};
    co.device = "none";
    co.stdlib_dir = rkc_stdlib_dir();
    co.log = print_note;
    rk_ctx *ctx = NULL;
    rk_status st = out ? rk_ctx_create(&co, &ctx) : RK_ENOMEM;
    if (st == RK_OK) {
        rk_compile_options opts = {0};
        opts.filename = o->input;
        opts.target = o->target;
        opts.defines = defs;
        opts.ndefines = o->ndefines;
        opts.include_dirs = o->incdirs;
        opts.ninclude_dirs = o->nincdirs;
        opts.kernel = o->kernel;
        opts.opt_level = o->opt_level == 0 ? RK_OPT_O0 : o->opt_level;
        opts.assume = o->assume;
        opts.confine_imports = o->confine_imports;
        opts.specialize = o->specialize;
        opts.nspecialize = o->nspecialize;
        st = rk_compile_bundle(ctx, text, len, &opts, out);
        for (int i = 0; i < rk_diag_count(ctx); i++) {
            rk_diag d;
            if (rk_diag_get(ctx, i, &d) == RK_OK)
                fputs(d.text, stderr);
        }
        if (st != RK_OK && (st != RK_ECOMPILE || rk_diag_count(ctx) == 0))
            fprintf(stderr, "rkc: %s%s\n", st == RK_EINTERNAL ? "" : "error: ", rk_error(ctx));
    } else {
        fprintf(stderr, "rkc: error: %s\n", ctx ? rk_error(ctx) : "out of memory");
    }
    rk_ctx_destroy(ctx);
    free(out);
    switch (st) {
    case RK_OK:
        return 0;
    case RK_ECOMPILE:
    case RK_ENOTFOUND:
        return EXIT_PROGRAM;
    case RK_EIO:
    case RK_EINVAL:
        return EXIT_USAGE;
    default:
        return EXIT_INTERNAL;
    }
}

/* --remarks (compiler/passes/remarks.c), as diagnostics on stderr: "file:line:col: remark: ...". */
static void print_remarks(const DriverResult *r)
{
    for (int i = 0; i < r->nremarks; i++) {
        const Remark *m = &r->remarks[i];
        if (m->kind == REMARK_SPILL)
            fprintf(stderr, "%s:%d:%d: remark: kernel %s spills registers: %s\n", m->file ? m->file : "<source>",
                    m->line, m->col, m->kernel, m->why);
        else if (m->kind == REMARK_BANKS)
            fprintf(stderr, "%s:%d:%d: remark: %d-way bank conflicts in %ss in kernel %s: %s\n",
                    m->file ? m->file : "<source>", m->line, m->col, m->ways, m->what, m->kernel, m->why);
        else
            fprintf(stderr, "%s:%d:%d: remark: %d-bit %ss in kernel %s, where %d-bit ones could be: %s\n",
                    m->file ? m->file : "<source>", m->line, m->col, m->bits, m->what, m->kernel, m->widest, m->why);
    }
}

static void json_escape(Arena *a, const char **out, const char *s)
{
    const char *t = *out;
    for (; *s; s++)
        t = *s == '"' || *s == '\\' ? arena_printf(a, "%s\\%c", t, *s) : arena_printf(a, "%s%c", t, *s);
    *out = t;
}

/* The JSON report with a "remarks" array added at its end (r NULL: as it is). */
static const char *json_remarks(Arena *a, const char *json, const DriverResult *r)
{
    if (!r)
        return json;
    size_t n = strlen(json);
    while (n && (json[n - 1] == '\n' || json[n - 1] == ' '))
        n--;
    if (!n || json[n - 1] != '}')
        return json;
    const char *t = arena_printf(a, "%.*s, \"remarks\": [", (int)(n - 1), json);
    for (int i = 0; i < r->nremarks; i++) {
        const Remark *m = &r->remarks[i];
        t = arena_printf(a, "%s%s\n  {\"kernel\": \"%s\", \"file\": \"", t, i ? "," : "", m->kernel);
        json_escape(a, &t, m->file ? m->file : "<source>");
        t = arena_printf(a, "%s\", \"line\": %d, \"col\": %d, \"kind\": \"%s\", \"access\": \"%s\", ", t, m->line,
                         m->col, m->kind == REMARK_BANKS ? "bank_conflict" : m->kind == REMARK_SPILL ? "spill" : "narrow", m->what);
        t = m->kind == REMARK_SPILL  ? arena_printf(a, "%s\"vgpr_spills\": %d, \"sgpr_spills\": %d, \"why\": \"", t, m->bits, m->widest)
            : m->kind == REMARK_BANKS ? arena_printf(a, "%s\"ways\": %d, \"why\": \"", t, m->ways)
                                    : arena_printf(a, "%s\"bits\": %d, \"widest\": %d, \"why\": \"", t, m->bits, m->widest);
        json_escape(a, &t, m->why);
        t = arena_printf(a, "%s\"}", t);
    }
    return arena_printf(a, "%s]}\n", t);
}

static int compile(const Options *o)
{
    size_t len = 0;
    char *text = rkc_read_source(o->input, &len);
    if (!text) {
        fprintf(stderr, "rkc: error: cannot read '%s': %s\n", o->input,
                errno == EINVAL ? "not a regular file" : strerror(errno));
        return EXIT_USAGE;
    }
    if (o->all_configs) {
        int rc = compile_bundle(o, text, len);
        free(text);
        return rc;
    }
    Stage stop = (Stage)driver_stage_from_name(o->emit);
    if (o->report) {
        if (target_find(o->target)->codegen->link != LINK_CODE_OBJECT) {
            free(text);
            fprintf(stderr, "rkc: error: --report reads AMDGPU code objects: use a gfx target, not %s\n", o->target);
            return EXIT_USAGE;
        }
        stop = STAGE_BIN;
    }
    if (!driver_stage_available(o->target, stop)) {
        free(text);
        fprintf(stderr, "rkc: error: --emit=%s is not available for target %s\n", o->emit, o->target);
        return EXIT_USAGE;
    }
    Arena arena;
    arena_init(&arena, arena_default_allocator);
    SrcMgr src;
    src_init(&src, &arena);
    Diags diags;
    diags_init(&diags, &arena, &src);
    StrTab strs;
    strtab_init(&strs, &arena);
    DriverOptions d = {0};
    d.filename = o->input;
    d.source = text;
    d.len = len;
    d.target = o->target;
    d.defines = o->defines;
    d.ndefines = o->ndefines;
    d.incdirs = o->incdirs;
    d.nincdirs = o->nincdirs;
    d.stdlib_dir = rkc_stdlib_dir();
    d.kernel = o->kernel;
    d.opt_level = o->opt_level;
    d.assume = o->assume[0] ? o->assume : NULL;
    d.confine_imports = o->confine_imports;
    d.remarks = o->remarks;
    d.tir_input = o->tir_input;
    d.passes = o->passes;
    d.dump_ir = getenv("RK_DUMP_IR");
    d.dump_dir = getenv("RK_DUMP_DIR");
    d.dump_sink = print_dump;
    DriverResult r;
    bool ok = driver_compile(&arena, &strs, &src, &diags, &d, stop, &r);
    /* the default output of a binary: FILE.hsaco (gfx), FILE.so (emu), FILE.ptx (sm_90), FILE.tir (interp) */
    Options oo = *o;
    const char *asked_output = o->output;
    if (ok && !o->output && r.binary) {
        const char *dot = strrchr(o->input, '.');
        size_t stem = dot && !strchr(dot, '/') ? (size_t)(dot - o->input) : strlen(o->input);
        const char *ext = stop == STAGE_OBJ ? "o" : target_output_ext(o->target);
        oo.output = arena_printf(&arena, "%.*s.%s", (int)stem, o->input, ext);
    }
    o = &oo;
    free(text);
    int rc = 0;
    if (ok && o->report) {
        CodeReport rep;
        const char *err = NULL;
        if (report_code_object(&arena, r.binary, r.size, &rep, &err) != 0) {
            fprintf(stderr, "rkc: internal error: cannot read the code object rk produced: %s\n", err);
            rc = EXIT_INTERNAL;
        } else {
            fputs(strcmp(o->report, "json") == 0 ? json_remarks(&arena, report_json(&arena, &rep), o->remarks ? &r : NULL)
                                                 : report_text(&arena, &rep),
                  stdout);
        }
        /* the code object itself is written only when asked for with -o, never beside the source */
        if (!asked_output)
            ok = false, r.binary = NULL;
    }
    if (ok) {
        int wrc = refuse_input_as_output(o->input, o->output ? o->output : "-");
        if (!wrc)
            wrc = write_output(o, r.text, r.binary, r.binary ? r.size : 0);
        if (wrc)
            rc = wrc;
    } else if (!o->report || diags.nerrors) {
        rc = has_internal_error(&diags) ? EXIT_INTERNAL : EXIT_PROGRAM;
    }
    print_diags(&arena, &diags);
    print_remarks(&r);
    arena_free(&arena);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "run") == 0)
        return rkc_run(argc - 1, argv + 1);
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--advise") == 0 || strncmp(argv[i], "--advise=", 9) == 0)
            return rkc_advise(argc, argv);
    Options o;
    int rc = parse_options(argc, argv, &o);
    if (rc)
        return rc;
    rc = compile(&o);
    /* the report and --emit=... -o - went to stdout: a failed write (a full disk, a closed pipe) is an
     * error, not a success */
    if (!rc && (fflush(stdout) != 0 || ferror(stdout))) {
        fprintf(stderr, "rkc: error: cannot write the standard output: %s\n", strerror(errno));
        rc = EXIT_WRITE;
    }
    for (int i = 0; i < o.ndefines; i++)
        free((char *)o.defines[i].name);
    return rc;
}
