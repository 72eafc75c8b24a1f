#include <stdio.h>
#include <stdlib.h>
#include "rk.h"
/* usage: manyp DEVICE SOURCE: a kernel k of 1000 pointers and an i32 (tests/reliability/api.cases) */
int main(int argc, char **argv)
{
    FILE *f = fopen(argv[2], "rb"); static char src[1 << 20]; size_t n = fread(src, 1, sizeof src, f); fclose(f);
    rk_ctx *ctx; rk_ctx_options o = {0}; o.device = argv[1]; o.cache_dir = NULL; /* RK_CACHE_DIR */
    rk_ctx_create(&o, &ctx);
    rk_program *p; rk_status s = rk_compile(ctx, src, n, NULL, &p); printf("compile %s %s\n", rk_status_name(s), rk_error(ctx)); if (s) return 1;
    rk_kernel *k; rk_program_kernel(p, "k", &k);
    static rk_arg a[1001]; static void *bufs[1000];
    for (int i = 0; i < 1000; i++) { rk_malloc(ctx, 256, &bufs[i]); rk_memset(ctx, bufs[i], 0, 256); a[i] = rk_arg_ptr(bufs[i]); }
    a[1000] = rk_arg_i32(64);
    uint32_t g[3] = {1, 1, 1};
    s = rk_launch(k, g, a, 1001, NULL); printf("launch %s %s\n", rk_status_name(s), rk_error(ctx));
    float h[64]; int ok = 0;
    for (int i = 0; i < 1000; i += 100) { rk_memcpy_dtoh(ctx, h, bufs[i], 256); ok += h[0] == 1.0f && h[63] == 1.0f; }
    printf("%d of 10 buffers updated\n", ok);
    rk_ctx_destroy(ctx); return 0;
}
