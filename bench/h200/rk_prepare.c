/* rk_prepare: compiles one kernel of a .tile file for sm_90 and writes it as a prebuilt program
 * (tests/device/prebuilt.h): OUT.ptx, the PTX rkc --target=sm_90 gives, and OUT.meta, what the
 * runtime needs to launch it on a machine without the compiler. bench/h200/prepare.sh runs it once
 * per kernel config.
 *
 *     rk_prepare OUT FILE.tile KERNEL [NAME=VALUE]...
 *
 * The NAME=VALUE pairs are -D defines (const parameters and compile options such as num_warps) and
 * are recorded as the kernel's config, so the benchmark knows each variant's tile sizes. The line it
 * prints ends with the cold compile time in process (rk_compile, source to PTX, the cache off; CPU
 * time): the median of three compiles after a first one that pays LLVM's initialisation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rk.h"
#include "tests/device/prebuilt.h"

enum { MAX_DEFINES = 32 };

/* CPU time of this process: the compile runs on this thread alone (no child process for PTX), and on a
 * build machine shared with other work it moves far less than the wall clock. */
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc - 4 > MAX_DEFINES) {
        fprintf(stderr, "usage: rk_prepare OUT FILE.tile KERNEL [NAME=VALUE]... (at most %d defines)\n", MAX_DEFINES);
        return 2;
    }
    const char *out = argv[1], *file = argv[2], *kernel = argv[3];
    rk_define defs[MAX_DEFINES];
    char names[MAX_DEFINES][64], config[2048] = "";
    int nd = 0;
    size_t clen = 0;
    for (int i = 4; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        if (!eq || eq == argv[i] || (size_t)(eq - argv[i]) >= sizeof names[0]) {
            fprintf(stderr, "rk_prepare: '%s' is not NAME=VALUE\n", argv[i]);
            return 2;
        }
        snprintf(names[nd], sizeof names[nd], "%.*s", (int)(eq - argv[i]), argv[i]);
        defs[nd] = (rk_define){names[nd], eq + 1};
        nd++;
        clen += (size_t)snprintf(config + clen, clen < sizeof config ? sizeof config - clen : 0, "%s%s",
                                 clen ? " " : "", argv[i]);
    }
    if (clen >= sizeof config) {
        fprintf(stderr, "rk_prepare: the defines are too long\n");
        return 2;
    }
    FILE *f = fopen(file, "rb");
    if (!f) {
        fprintf(stderr, "rk_prepare: cannot read %s\n", file);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *src = malloc((size_t)n + 1);
    if (!src || fread(src, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "rk_prepare: cannot read %s\n", file);
        fclose(f);
        free(src);
        return 1;
    }
    fclose(f);

    rk_ctx_options o = {.device = "none", .always_compile = 1};
    rk_ctx *ctx = NULL;
    if (rk_ctx_create(&o, &ctx) != RK_OK) {
        fprintf(stderr, "rk_prepare: %s\n", rk_error(ctx));
        rk_ctx_destroy(ctx);
        free(src);
        return 1;
    }
    rk_compile_options co = {.filename = file, .target = "sm_90", .defines = defs, .ndefines = nd, .kernel = kernel};
    rk_program *prog = NULL;
    /* the first compile pays LLVM's one-time initialisation; the cold compile time printed is the
     * median of the next three (the cache is off: each one compiles) */
    double t0 = now_ms();
    rk_status st = rk_compile(ctx, src, (size_t)n, &co, &prog);
    double first = now_ms() - t0, again[3] = {0, 0, 0};
    for (int r = 0; r < 3 && st == RK_OK; r++) {
        rk_program *p2 = NULL;
        t0 = now_ms();
        if (rk_compile(ctx, src, (size_t)n, &co, &p2) == RK_OK)
            again[r] = now_ms() - t0;
        rk_program_destroy(p2);
    }
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (again[j] < again[i]) {
                double x = again[i];
                again[i] = again[j];
                again[j] = x;
            }
    for (int i = 0; i < rk_diag_count(ctx); i++) {
        rk_diag d;
        rk_diag_get(ctx, i, &d);
        fputs(d.text, stderr);
    }
    int rc = 0;
    char err[1024];
    rk_kernel *k = NULL;
    rk_kernel_info ki;
    if (st != RK_OK) {
        fprintf(stderr, "rk_prepare: %s %s: %s\n", file, config, rk_error(ctx));
        rc = 1;
    } else if (rk_program_kernel(prog, kernel, &k) != RK_OK || rk_kernel_get_info(k, &ki) != RK_OK) {
        fprintf(stderr, "rk_prepare: %s\n", rk_error(ctx));
        rc = 1;
    } else if (pb_save(prog, config, out, err, sizeof err) != 0) {
        fprintf(stderr, "rk_prepare: %s\n", err);
        rc = 1;
    } else {
        printf("%s.ptx: %s [%s], %d warps, %d B shared, compiled in %.1f ms of CPU (first in the process %.1f ms)\n", out,
               kernel, config, ki.num_warps, ki.lds_bytes, again[1], first);
    }
    rk_program_destroy(prog);
    rk_ctx_destroy(ctx);
    free(src);
    return rc;
}
