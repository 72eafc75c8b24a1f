#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rk.h"
static const char src[] =
    "kernel rd(x: *f32, out: *f32, off: i64)\n"
    "{\n"
    "    let o = arange(64);\n"
    "    store(out + o, load(x + off + o));\n"
    "}\n"
    "kernel wr(x: *f32, off: i64)\n"
    "{\n"
    "    let o = arange(64);\n"
    "    store(x + off + o, full([64], 7.0, f32));\n"
    "}\n";
int main(int argc, char **argv)
{
    rk_ctx *ctx; rk_ctx_options o = {0}; o.device = argv[1]; o.cache_dir = NULL; /* RK_CACHE_DIR */
    if (rk_ctx_create(&o, &ctx)) { printf("ctx: %s\n", rk_error(ctx)); return 1; }
    rk_program *p; if (rk_compile(ctx, src, sizeof src - 1, NULL, &p)) { printf("compile: %s\n", rk_error(ctx)); return 1; }
    rk_kernel *rd, *wr; rk_program_kernel(p, "rd", &rd); rk_program_kernel(p, "wr", &wr);
    void *a, *b, *out;
    rk_malloc(ctx, 4096, &a); rk_malloc(ctx, 4096, &b); rk_malloc(ctx, 4096, &out);
    printf("a=%p b=%p out=%p  b-a=%ld\n", a, b, out, (long)((char *)b - (char *)a));
    long d = ((char *)b - (char *)a) / 4;
    uint32_t g[3] = {1, 1, 1};
    long offs[] = {d, -d, 1024, 1000, -64, -1, d + 960, (long)1 << 40, -((long)1 << 40), INT64_MAX / 8};
    for (unsigned i = 0; i < sizeof offs / sizeof offs[0]; i++) {
        rk_arg ar[3] = {rk_arg_ptr(a), rk_arg_ptr(out), rk_arg_i64(offs[i])};
        rk_status s = rk_launch(rd, g, ar, 3, NULL);
        printf("read  off=%ld: %s %s\n", offs[i], rk_status_name(s), rk_error(ctx));
        rk_arg aw[2] = {rk_arg_ptr(a), rk_arg_i64(offs[i])};
        s = rk_launch(wr, g, aw, 2, NULL);
        printf("write off=%ld: %s %s\n", offs[i], rk_status_name(s), rk_error(ctx));
    }
    float hb[1024]; rk_memcpy_dtoh(ctx, hb, b, 4096);
    int sevens = 0; for (int i = 0; i < 1024; i++) sevens += hb[i] == 7.0f;
    printf("b now holds %d sevens (writes through a landed in b)\n", sevens);
    rk_ctx_destroy(ctx);
    return 0;
}
