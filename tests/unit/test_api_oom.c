/* Allocator failure injection through the C API: every allocation the library asks of the context's
 * hook is made to fail in turn, over a whole session on the interpreter (context, compile, kernel
 * lookup, memory, launch with @grid, events). Each run must end in RK_ENOMEM from the call that could
 * not allocate, with no crash, and once the context is destroyed no block from the hook may remain
 * (checked here by counting; ASan's leak checker checks the rest). A second pass fails one allocation
 * inside rk_compile and then checks that the same context compiles and launches normally. A third pass
 * does the same over a set of programs and targets (the examples, with imports, autotune spaces, dot
 * and reductions, through LLVM and the linkers; a program with errors, whose diagnostics must survive
 * as RK_ECOMPILE or give way to RK_ENOMEM), refusing each allocation of the compile in turn. */
#include "tests/unit/test_api_util.h"

typedef struct Hook {
    long calls;   /* allocations and growths asked for so far */
    long fail_at; /* the index of the one to refuse; -1: none */
    long live;    /* blocks handed out and not yet freed */
} Hook;

static void *hook(void *ud, void *ptr, size_t osize, size_t nsize)
{
    Hook *h = ud;
    (void)osize;
    if (nsize == 0) {
        if (ptr)
            h->live--;
        free(ptr);
        return NULL;
    }
    if (h->calls++ == h->fail_at)
        return NULL;
    void *p = realloc(ptr, nsize);
    if (p && !ptr)
        h->live++;
    return p;
}

/* One session; returns the first status that is not RK_OK. */
static rk_status session(Hook *h, rk_ctx **pctx)
{
    rk_ctx_options o = {.device = "interp", .alloc = hook, .alloc_ud = h, .host_threads = 1};
    rk_ctx *ctx = NULL;
    rk_status st = rk_ctx_create(&o, &ctx);
    *pctx = ctx;
    if (st != RK_OK)
        return st;
    rk_compile_options co = {.filename = "vadd.tile"};
    rk_program *p = NULL;
    if ((st = rk_compile(ctx, VADD_SRC, strlen(VADD_SRC), &co, &p)))
        return st;
    rk_kernel *k;
    if ((st = rk_program_kernel(p, "vadd", &k)))
        return st;
    enum { N = 300 };
    float hx[N];
    for (int i = 0; i < N; i++)
        hx[i] = (float)i;
    void *x, *y, *out;
    if ((st = rk_malloc(ctx, sizeof hx, &x)) || (st = rk_malloc(ctx, sizeof hx, &y)) ||
        (st = rk_malloc(ctx, sizeof hx, &out)))
        return st;
    if ((st = rk_memcpy_htod(ctx, x, hx, sizeof hx)) || (st = rk_memcpy_htod(ctx, y, hx, sizeof hx)))
        return st;
    rk_arg args[] = {rk_arg_ptr(x), rk_arg_ptr(y), rk_arg_ptr(out), rk_arg_i32(N)};
    rk_event *e;
    if ((st = rk_event_create(ctx, &e)) || (st = rk_launch(k, NULL, args, 4, NULL)) || (st = rk_event_record(e, NULL)))
        return st;
    float ho[N];
    if ((st = rk_memcpy_dtoh(ctx, ho, out, sizeof ho)))
        return st;
    for (int i = 0; i < N; i++)
        if (ho[i] != 2.0f * (float)i)
            return RK_EINTERNAL;
    rk_program_destroy(p);
    return rk_free(ctx, x);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 17];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *copy = malloc(n + 1);
    if (copy)
        memcpy(copy, buf, n + 1);
    return copy;
}

typedef struct Prog {
    const char *path; /* a file of the tree, or NULL: text */
    const char *text;
    const char *target;
    rk_status want; /* without a refusal */
} Prog;

static const char ERR_SRC[] = "fn twice(v) { return v + v; }\n"
                              "kernel bad(x: *f32) {\n"
                              "    let a = twice(load(x)) + undefined_name;\n"
                              "    let b = arange(3);\n"
                              "    store(x, a & 1.5);\n"
                              "}\n";

/* Every allocation of one compile of each program refused in turn: RK_ENOMEM (or, for a program with
 * errors, its RK_ECOMPILE when the refusal only cost a diagnostic's text), nothing left behind, and the
 * same context then compiles it as before. Returns the number of compiles run. */
static long compile_set(void)
{
    static const Prog progs[] = {
        {NULL, VADD_SRC, "emu", RK_OK},
        {NULL, ERR_SRC, "interp", RK_ECOMPILE},
        {"examples/matmul.tile", NULL, "emu", RK_OK},
        {"examples/matmul.tile", NULL, "gfx942", RK_OK},
        {"examples/softmax.tile", NULL, "interp", RK_OK},
        {"examples/attention.tile", NULL, "gfx942", RK_OK},
        {"examples/layernorm.tile", NULL, "sm_90", RK_OK},
    };
    long compiles = 0;
    for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
        const Prog *pg = &progs[i];
        char *owned = pg->path ? slurp(pg->path) : NULL;
        const char *text = pg->path ? owned : pg->text;
        CHECK(text != NULL);
        if (!text)
            continue;
        Hook h = {0, -1, 0};
        rk_ctx_options o = {.device = "none", .alloc = hook, .alloc_ud = &h};
        rk_ctx *ctx;
        CHECK(rk_ctx_create(&o, &ctx) == RK_OK);
        rk_compile_options co = {.filename = pg->path ? pg->path : "prog.tile", .target = pg->target};
        rk_program *p = NULL;
        long before = h.calls;
        CHECK_ST(ctx, rk_compile(ctx, text, strlen(text), &co, &p), pg->want, "");
        long per_compile = h.calls - before;
        rk_program_destroy(p);
        int wrong = 0;
        for (long k = 0; k < per_compile; k++) {
            h.fail_at = h.calls + k;
            p = NULL;
            rk_status st = rk_compile(ctx, text, strlen(text), &co, &p);
            compiles++;
            if (st != RK_ENOMEM && st != pg->want) {
                fprintf(stderr, "%s for %s, allocation %ld of %ld refused: got %s (%s)\n", co.filename, pg->target, k,
                        per_compile, rk_status_name(st), rk_error(ctx));
                wrong++;
            } else if (st == RK_ENOMEM && (p != NULL || !strstr(rk_error(ctx), "out of memory"))) {
                fprintf(stderr, "%s for %s, allocation %ld refused: RK_ENOMEM with a program or with \"%s\"\n",
                        co.filename, pg->target, k, rk_error(ctx));
                wrong++;
            }
            rk_program_destroy(p);
            h.fail_at = -1;
            p = NULL;
            st = rk_compile(ctx, text, strlen(text), &co, &p);
            if (st != pg->want) {
                fprintf(stderr, "%s for %s: after refusing allocation %ld the compile gives %s (%s)\n", co.filename,
                        pg->target, k, rk_status_name(st), rk_error(ctx));
                wrong++;
            }
            rk_program_destroy(p);
        }
        rk_ctx_destroy(ctx);
        if (h.live != 0)
            fprintf(stderr, "%s for %s: %ld blocks left after rk_ctx_destroy\n", co.filename, pg->target, h.live);
        CHECK(wrong == 0 && h.live == 0);
        printf("test_api_oom: %s for %s: each of its %ld allocations refused in turn\n", co.filename, pg->target,
               per_compile);
        free(owned);
    }
    return compiles;
}

int main(void)
{
    Hook h = {0, -1, 0};
    rk_ctx *ctx;
    rk_status st = session(&h, &ctx);
    CHECK_OK(ctx, st);
    rk_ctx_destroy(ctx);
    CHECK(h.live == 0);
    long total = h.calls;
    printf("test_api_oom: a session asks the hook for %ld allocations\n", total);
    CHECK(total > 5);
    int wrong = 0;
    for (long i = 0; i < total; i++) {
        h = (Hook){0, i, 0};
        st = session(&h, &ctx);
        if (st != RK_ENOMEM) {
            fprintf(stderr, "allocation %ld refused: got %s (%s), want RK_ENOMEM\n", i, rk_status_name(st),
                    rk_error(ctx));
            wrong++;
        }
        rk_ctx_destroy(ctx);
        if (h.live != 0) {
            fprintf(stderr, "allocation %ld refused: %ld blocks left after rk_ctx_destroy\n", i, h.live);
            wrong++;
        }
    }
    CHECK(wrong == 0);

    /* Refuse one allocation inside rk_compile, then compile and run again on the same context. */
    h = (Hook){0, -1, 0};
    rk_ctx_options o = {.device = "interp", .alloc = hook, .alloc_ud = &h};
    CHECK(rk_ctx_create(&o, &ctx) == RK_OK);
    long before = h.calls;
    rk_program *p;
    CHECK_OK(ctx, rk_compile(ctx, VADD_SRC, strlen(VADD_SRC), NULL, &p));
    long per_compile = h.calls - before;
    rk_program_destroy(p);
    for (long i = 0; i < per_compile; i++) {
        h.fail_at = h.calls + i;
        CHECK_ST(ctx, rk_compile(ctx, VADD_SRC, strlen(VADD_SRC), NULL, &p), RK_ENOMEM, "out of memory");
        CHECK(p == NULL && rk_diag_count(ctx) == 0);
        h.fail_at = -1;
        CHECK_OK(ctx, rk_compile(ctx, VADD_SRC, strlen(VADD_SRC), NULL, &p));
        rk_kernel *k;
        void *x;
        CHECK_OK(ctx, rk_program_kernel(p, "vadd", &k));
        CHECK_OK(ctx, rk_malloc(ctx, 64 * 4, &x));
        rk_arg args[] = {rk_arg_ptr(x), rk_arg_ptr(x), rk_arg_ptr(x), rk_arg_i32(64)};
        CHECK_OK(ctx, rk_launch(k, NULL, args, 4, NULL));
        CHECK_OK(ctx, rk_free(ctx, x));
        rk_program_destroy(p);
    }
    rk_ctx_destroy(ctx);
    CHECK(h.live == 0);

    CHECK(compile_set() > 0);
    return api_finish("test_api_oom");
}
