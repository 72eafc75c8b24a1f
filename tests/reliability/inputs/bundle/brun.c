#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rk.h"
/* usage: brun BUNDLE [variant] ; runs kernel tr (x,y: 64*64 f32, n) or via rk_bundle_run */
int main(int argc, char **argv)
{
    rk_ctx *ctx; rk_ctx_options o = {0}; o.device = getenv("DEV") ? getenv("DEV") : "emu"; o.cache_dir = NULL; /* RK_CACHE_DIR */
    if (rk_ctx_create(&o, &ctx)) { printf("ctx: %s\n", rk_error(ctx)); return 1; }
    rk_bundle *b = NULL;
    rk_status s = rk_bundle_load(ctx, argv[1], &b);
    printf("load: %s %s\n", rk_status_name(s), rk_error(ctx));
    if (s) { rk_ctx_destroy(ctx); return 0; }
    int nk = rk_bundle_kernel_count(b);
    printf("kernels=%d target=%s\n", nk, rk_bundle_target(b));
    for (int i = 0; i < nk; i++) printf(" kernel %s variants=%d\n", rk_bundle_kernel_name(b, i), rk_bundle_variant_count(b, rk_bundle_kernel_name(b, i)));
    const char *kn = nk > 0 ? rk_bundle_kernel_name(b, 0) : "tr";
    void *x, *y; float h[64 * 64], r[64 * 64];
    for (int i = 0; i < 64 * 64; i++) h[i] = (float)i;
    rk_malloc(ctx, sizeof h, &x); rk_malloc(ctx, sizeof h, &y);
    rk_memcpy_htod(ctx, x, h, sizeof h); rk_memset(ctx, y, 0, sizeof h);
    rk_arg a[3] = {rk_arg_ptr(x), rk_arg_ptr(y), rk_arg_i32(64)};
    int nv = rk_bundle_variant_count(b, kn);
    for (int v = 0; v < nv; v++) {
        rk_kernel *k = NULL;
        s = rk_bundle_variant(b, kn, v, &k);
        printf("variant %d: %s %s\n", v, rk_status_name(s), s ? rk_error(ctx) : rk_kernel_config(k));
        if (s) continue;
        rk_kernel_info ki; rk_kernel_get_info(k, &ki);
        printf("  info: params=%d warps=%d block=%d lds=%d grid=%d\n", ki.num_params, ki.num_warps, ki.block_size, ki.lds_bytes, ki.has_grid);
        rk_memset(ctx, y, 0, sizeof h);
        s = rk_launch(k, NULL, a, 3, NULL);
        printf("  launch: %s %s\n", rk_status_name(s), rk_error(ctx));
        rk_memcpy_dtoh(ctx, r, y, sizeof r);
        int B = v == 0 ? 32 : 64, wrong = 0;
        for (int i = 0; i < B; i++) for (int j = 0; j < B; j++) wrong += r[i * B + j] != h[j * B + i];
        printf("  wrong=%d of %d\n", wrong, B * B);
        if (s == RK_OK && wrong)
            printf("  WRONG: launched with RK_OK but %d of %d elements wrong\n", wrong, B * B);
    }
    s = rk_bundle_run(b, kn, NULL, a, 3, NULL);
    printf("bundle_run: %s %s\n", rk_status_name(s), rk_error(ctx));
    rk_bundle_destroy(b);
    rk_ctx_destroy(ctx);
    return 0;
}
