#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>
#include "rk.h"
static const char src[] =
    "@grid(cdiv(n, 64))\n"
    "kernel vadd(x: *f32, y: *f32, out: *f32, n: i32)\n"
    "{\n"
    "    let offs = program_id(0) * 64 + arange(64);\n"
    "    let m = offs < n;\n"
    "    store(out + offs, load(x + offs, mask = m) + load(y + offs, mask = m), mask = m);\n"
    "}\n";
static rk_ctx *ctx;
static atomic_int counts[16];
static atomic_int bad;
static void tally(rk_status s) { atomic_fetch_add(&counts[s < 16 ? s : 15], 1); }
static void *worker(void *arg)
{
    long id = (long)arg;
    for (int it = 0; it < 40; it++) {
        rk_program *p = NULL;
        char buf[600];
        snprintf(buf, sizeof buf, "%s// %ld %d\n", src, id, it % 3); /* a few distinct sources */
        rk_status s = rk_compile(ctx, buf, strlen(buf), NULL, &p);
        tally(s);
        const char *e = rk_error(ctx); (void)strlen(e);
        (void)rk_diag_count(ctx);
        if (s != RK_OK) continue;
        rk_kernel *k;
        s = rk_program_kernel(p, "vadd", &k); tally(s);
        if (s == RK_OK) {
            void *x = NULL;
            s = rk_malloc(ctx, 1024, &x); tally(s);
            if (s == RK_OK) {
                rk_arg a[4] = {rk_arg_ptr(x), rk_arg_ptr(x), rk_arg_ptr(x), rk_arg_i32(256)};
                s = rk_memset(ctx, x, 0, 1024); tally(s);
                s = rk_launch(k, NULL, a, 4, NULL); tally(s);
                if (s != RK_OK && s != RK_EBUSY) { atomic_fetch_add(&bad, 1); fprintf(stderr, "launch: %s %s\n", rk_status_name(s), rk_error(ctx)); }
                while ((s = rk_free(ctx, x)) == RK_EBUSY) tally(s);
                tally(s);
            }
        }
        rk_program_destroy(p);
    }
    return NULL;
}
int main(int argc, char **argv)
{
    rk_ctx_options o = {0}; o.device = argc > 1 ? argv[1] : "interp"; o.cache_dir = NULL; /* RK_CACHE_DIR */
    if (rk_ctx_create(&o, &ctx) != RK_OK) { fprintf(stderr, "ctx: %s\n", rk_error(ctx)); return 1; }
    pthread_t t[8];
    for (long i = 0; i < 8; i++) pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < 8; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < 16; i++) if (counts[i]) printf("%s: %d\n", rk_status_name((rk_status)i), counts[i]);
    printf("bad=%d\n", bad);
    rk_ctx_destroy(ctx);
    return 0;
}
