/* Front-end speed: lexing and parsing about 1 MB of tile source.
 *
 * The source is generated in memory from a fixed seed, so every run measures the same text: many
 * kernels and device functions that together use every construct of the language (attributes, const
 * and pointer parameters, every statement, every operator, calls with named arguments, indexing with
 * ':' and None, casts, all literal kinds, comments). Each timed run lexes and parses the whole text into
 * a fresh arena and string table; the figure is the median of the runs, in wall-clock time. A second
 * line gives the CPU time of the same (steadier on a shared machine), times the lexer alone and says
 * how much memory the AST took. Usage: bench_front [MEGABYTES] [RUNS]; `bench_front --source
 * [MEGABYTES]` prints the text instead. Figures go to docs/performance.md. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compiler/front/lex.h"
#include "compiler/front/parse.h"

/* ---- a growable text buffer and a fixed-seed generator ---- */

typedef struct Text {
    char *p;
    size_t n, cap;
} Text;

static void put(Text *t, const char *s)
{
    size_t k = strlen(s);
    if (t->n + k + 1 > t->cap) {
        t->cap = (t->n + k + 1) * 2;
        t->p = realloc(t->p, t->cap);
        if (!t->p) {
            fprintf(stderr, "bench_front: out of memory\n");
            exit(1);
        }
    }
    memcpy(t->p + t->n, s, k + 1);
    t->n += k;
}

static void putf(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(Text *t, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    put(t, buf);
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static unsigned pick(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static const char *const names[] = {"x", "acc", "offs", "mask", "pid", "BLOCK_M", "BLOCK_N", "n", "stride", "i"};
#define NAME names[pick(sizeof names / sizeof names[0])]

/* ---- expressions of every form, depth-bounded ---- */

static void expr(Text *t, int depth)
{
    static const char *const binops[] = {"||", "&&", "|", "^", "&", "==", "!=", "<", "<=", ">",
                                         ">=", "<<", ">>", "+", "-", "*", "/", "%"};
    unsigned k = depth <= 0 ? pick(6) : pick(16);
    switch (k) {
    case 0:
        put(t, NAME);
        break;
    case 1: {
        static const char *const ints[] = {"0", "1", "42", "1_024", "0x1F", "0xdead_BEEF", "0b1010", "65536"};
        put(t, ints[pick(8)]);
        break;
    }
    case 2: {
        static const char *const floats[] = {"1.0", ".5", "1e-3", "2.5e+4", "0.125", "3.14159", "inf", "nan"};
        put(t, floats[pick(8)]);
        break;
    }
    case 3: {
        static const char *const others[] = {"true", "false", "None", "\"tf32\"", "\"a\\tb\\n\""};
        put(t, others[pick(5)]);
        break;
    }
    case 4:
        putf(t, "%s[:, None]", NAME);
        break;
    case 5:
        putf(t, "%s[None, :]", NAME);
        break;
    case 6:
    case 7:
    case 8:
    case 9: {
        /* Comparisons do not chain: each comes in parentheses. */
        unsigned op = pick(sizeof binops / sizeof binops[0]);
        int cmp = op >= 5 && op <= 10;
        put(t, cmp ? "(" : "");
        expr(t, depth - 1);
        putf(t, " %s ", binops[op]);
        expr(t, depth - 1);
        put(t, cmp ? ")" : "");
        break;
    }
    case 10:
        put(t, "(");
        expr(t, depth - 1);
        put(t, ")");
        break;
    case 11:
        put(t, pick(3) == 0 ? "!" : pick(2) ? "-" : "~");
        expr(t, depth - 1);
        break;
    case 12:
        expr(t, 0);
        put(t, pick(2) ? " as f32" : " as *f16");
        break;
    case 13:
        putf(t, "load(%s + ", NAME);
        expr(t, depth - 1);
        put(t, ", mask = ");
        expr(t, depth - 1);
        put(t, ", other = 0)");
        break;
    case 14:
        put(t, pick(2) ? "maximum(" : "where(");
        expr(t, depth - 1);
        put(t, ", ");
        expr(t, depth - 1);
        put(t, pick(2) ? ")" : ", 0.0)");
        break;
    default:
        put(t, "[");
        expr(t, depth - 1);
        put(t, ", ");
        expr(t, depth - 1);
        put(t, "]");
        break;
    }
}

/* ---- statements of every form ---- */

static void indent(Text *t, int level)
{
    for (int i = 0; i < level; i++)
        put(t, "    ");
}

static void stmt(Text *t, int level, int depth, int in_loop)
{
    static const char *const assignops[] = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
    indent(t, level);
    unsigned k = depth <= 0 ? pick(6) : pick(12);
    switch (k) {
    case 0:
        putf(t, "let v%u = ", pick(100));
        expr(t, 3);
        put(t, ";\n");
        break;
    case 1:
        putf(t, "var w%u = zeros([BLOCK_M, BLOCK_N], f32);\n", pick(100));
        break;
    case 2:
        putf(t, "%s %s ", NAME, assignops[pick(11)]);
        expr(t, 3);
        put(t, ";\n");
        break;
    case 3:
        put(t, "let (lo, hi) = split(");
        expr(t, 2);
        put(t, ", axis = 1);\n");
        break;
    case 4:
        put(t, "store(out + offs, ");
        expr(t, 3);
        put(t, ", mask = offs < n); // write back\n");
        break;
    case 5:
        if (in_loop)
            put(t, pick(2) ? "break;\n" : "continue;\n");
        else
            put(t, "acc = dot(a, b, acc);\n");
        break;
    case 6:
    case 7:
        put(t, "if ");
        expr(t, 2);
        put(t, " {\n");
        stmt(t, level + 1, depth - 1, in_loop);
        indent(t, level);
        if (pick(2)) {
            put(t, "} else if ");
            expr(t, 1);
            put(t, " {\n");
            stmt(t, level + 1, depth - 1, in_loop);
            indent(t, level);
        }
        put(t, "} else {\n");
        stmt(t, level + 1, depth - 1, in_loop);
        indent(t, level);
        put(t, "}\n");
        break;
    case 8:
        putf(t, "for k in 0 .. cdiv(K, BLOCK_K)%s {\n", pick(2) ? " step 2" : "");
        stmt(t, level + 1, depth - 1, 1);
        stmt(t, level + 1, depth - 1, 1);
        indent(t, level);
        put(t, "}\n");
        break;
    case 9:
        put(t, "static for j in 0 .. 4 {\n");
        stmt(t, level + 1, depth - 1, 1);
        indent(t, level);
        put(t, "}\n");
        break;
    case 10:
        put(t, "while ");
        expr(t, 1);
        put(t, " {\n");
        stmt(t, level + 1, depth - 1, 1);
        indent(t, level);
        put(t, "}\n");
        break;
    default:
        put(t, "{\n");
        stmt(t, level + 1, depth - 1, in_loop);
        indent(t, level);
        put(t, "}\n");
        break;
    }
}

static void generate(Text *t, size_t bytes)
{
    put(t, "// Generated by bench_front: every construct of the tile language, many times over.\n");
    put(t, "import \"std/math\";\nimport \"std/pid\";\nconst LOG2E = 1.4426950408889634;\nconst W: i32 = 64;\n\n");
    for (unsigned n = 0; t->n < bytes; n++) {
        if (n % 3 == 0) {
            putf(t, "fn helper%u(x, y: f32, p: *f16, t: f32[16, 32]) -> (f32, i32) {\n", n);
            for (int i = 0; i < 6; i++)
                stmt(t, 1, 3, 0);
            put(t, "    return (x * y, 0);\n}\n\n");
            continue;
        }
        put(t, "@autotune(key = [M, N], space = {BLOCK_M: [64, 128], BLOCK_N: [64, 128], num_warps: [4, 8]},\n"
               "          where = BLOCK_M * BLOCK_N <= 16384, configs = [{BLOCK_M: 32, BLOCK_N: 32}], reset = [out])\n"
               "@options(num_warps = 8, num_stages = 2)\n"
               "@grid(cdiv(M, BLOCK_M), cdiv(N, BLOCK_N))\n");
        putf(t, "kernel k%u(a: *bf16, b: *bf16, out: *f32, M: i32, N: i32, K: i32, n: i32, eps: f32,\n"
                "          const BLOCK_M: i32 = 128, const BLOCK_N: i32 = 64, const BLOCK_K: i32 = 32,\n"
                "          const EVEN: bool = true, const T: type = f16) {\n", n);
        put(t, "    let pid = program_id(0);\n    let offs = pid * BLOCK_M + arange(BLOCK_M);\n"
               "    var acc = zeros([BLOCK_M, BLOCK_N], f32);\n    /* the body */\n");
        for (int i = 0; i < 12; i++)
            stmt(t, 1, 3, 0);
        put(t, "    store(out + offs, acc as f32, mask = offs < n);\n    return;\n}\n\n");
    }
}

/* ---- timing ---- */

static double clock_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double now_ms(void)
{
    return clock_ms(CLOCK_MONOTONIC);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--source") == 0) { /* the text that is measured, for a look or a profile */
        Text text = {0};
        generate(&text, (size_t)(argc > 2 ? atof(argv[2]) * 1024 * 1024 : 1024 * 1024));
        fputs(text.p, stdout);
        free(text.p);
        return 0;
    }
    double mb = argc > 1 ? atof(argv[1]) : 1.0;
    int runs = argc > 2 ? atoi(argv[2]) : 11;
    if (mb <= 0 || runs < 1 || runs > 1000) {
        fprintf(stderr, "usage: bench_front [MEGABYTES] [RUNS]\n");
        return 2;
    }
    Text text = {0};
    generate(&text, (size_t)(mb * 1024 * 1024));

    Arena keep;
    arena_init(&keep, arena_default_allocator);
    SrcMgr src;
    src_init(&src, &keep);
    SrcFile *f = src_add(&src, "bench.tile", text.p, text.n);

    double parse_ms[1000], parse_cpu_ms[1000], lex_ms[1000];
    long ntokens = 0;
    size_t arena_bytes = 0;
    for (int r = 0; r < runs; r++) {
        Arena a;
        arena_init(&a, arena_default_allocator);
        Diags diags;
        diags_init(&diags, &a, &src);
        StrTab strs;
        strtab_init(&strs, &a);
        double t0 = now_ms(), c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
        Node *m = parse_module(&a, &strs, &diags, f);
        parse_ms[r] = now_ms() - t0;
        parse_cpu_ms[r] = clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
        if (!m) {
            for (int i = 0; i < diags.n; i++)
                fputs(diag_render(&a, &diags.items[i]), stderr);
            fprintf(stderr, "bench_front: the generated source does not parse\n");
            return 1;
        }
        arena_bytes = a.bytes;
        Lexer lx;
        lex_init(&lx, f, &diags);
        ntokens = 0;
        t0 = now_ms();
        for (Token t = lex_next(&lx); t.kind > 0; t = lex_next(&lx))
            ntokens++;
        lex_ms[r] = now_ms() - t0;
        arena_free(&a);
    }
    double size_mb = (double)text.n / (1024.0 * 1024.0);
    double p = median(parse_ms, runs), pc = median(parse_cpu_ms, runs), l = median(lex_ms, runs);
    printf("front: %.2f MB lexed+parsed in %.1f ms (%.0f MB/s)\n", size_mb, p, size_mb / (p / 1e3));
    printf("front: medians of %d runs; lexed+parsed in %.1f ms of CPU time; lexed alone in %.1f ms (%.0f MB/s, "
           "%ld tokens); the AST took %.1f MB\n",
           runs, pc, l, size_mb / (l / 1e3), ntokens, (double)arena_bytes / (1024.0 * 1024.0));
    arena_free(&keep);
    free(text.p);
    return 0;
}
