/* Allocator failure injection through the C API: every allocation the library asks of the context's
 * hook is made to fail in turn, over a whole session on the interpreter (context, compile, kernel
 * lookup, memory, launch with @grid, events). Each run must end in RK_ENOMEM from the call that could
 * not allocate, with no crash, and once the context is destroyed no block from the hook may remain
 * (checked here by counting; ASan's leak checker checks the rest). A second pass fails one allocation
 * inside rk_compile and then checks that the same context compiles and launches normally. */
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
    return api_finish("test_api_oom");
}
