/* device_assert and print. A failing assert must stop the launch on both devices with RK_EKERNEL and a
 * message holding the assert's text and its file:line:col (found in the kernel file, so the test
 * follows edits of it); a passing one must change nothing. print() must give the same lines on both
 * devices (compared as multisets: the order between programs and lanes is the devices' own), one per
 * element and program. A failing scalar assert also goes through `rkc run` on each device, which must
 * exit with status 3 and print the message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/run/cases.h"

enum { G_ASSERT_TILE, G_ASSERT_SCALAR, G_ASSERT_LOOP, G_PRINT };

/* "debug.tile:LINE:COL" of the device_assert whose message contains msg. */
static void assert_site(const char *msg, char *out, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/debug.tile", RK_RUN_KERNELS);
    FILE *f = fopen(path, "r");
    snprintf(out, n, "debug.tile:?:?");
    if (!f)
        return;
    char line[512];
    for (int ln = 1; fgets(line, sizeof line, f); ln++) {
        char *a = strstr(line, "device_assert(");
        if (a && strstr(line, msg)) {
            snprintf(out, n, "debug.tile:%d:%d", ln, (int)(a - line) + 1);
            break;
        }
    }
    fclose(f);
}

/* p: [0] kind, [1] BLOCK (or R), [2] C, [3] 1: an element fails */
static void setup_debug(Run *r)
{
    const Case *c = r->c;
    Rng *R = &r->rng;
    bool fail = c->p[3];
    switch (c->p[0]) {
    case G_ASSERT_TILE: {
        int block = c->p[1], n = pick_n(r, block);
        HBuf *x = in_buf(r, "x", RK_F32, (size_t)n, UNI(-1, 1));
        if (fail)
            fset(RK_F32, x->host, (size_t)rng_range(R, 0, n - 1), 5.0);
        arg(r, rk_arg_i32(n));
        arg(r, rk_arg_f32(2.0f));
        break;
    }
    case G_ASSERT_SCALAR: {
        int P = (int)rng_range(R, 1, 40);
        HBuf *x = in_buf(r, "x", RK_I32, (size_t)P, UNI(-100, 99));
        if (fail)
            iset(RK_I32, x->host, (size_t)rng_range(R, 0, P - 1), 100);
        arg(r, rk_arg_i32(100));
        set_grid(r, (uint32_t)P, 1, 1);
        break;
    }
    case G_ASSERT_LOOP: {
        int iters = (int)rng_range(R, 1, 4), e = c->p[1] * c->p[2];
        HBuf *x = in_buf(r, "x", RK_F32, (size_t)(iters * e), UNI(-1, 1));
        if (fail)
            fset(RK_F32, x->host, (size_t)rng_range(R, 0, iters * e - 1), 3.0);
        arg(r, rk_arg_f32(2.0f));
        arg(r, rk_arg_i32(iters));
        set_grid(r, (uint32_t)rng_range(R, 1, 3), 1, 1);
        break;
    }
    default: {
        int P = (int)rng_range(R, 1, 3), block = c->p[1];
        rk_dtype t = c->dt[0];
        size_t n = (size_t)(P * block) > (size_t)(8 * 16) ? (size_t)(P * block) : 8 * 16;
        in_buf(r, "x", t, n, dt_float(t) ? UNI(-2, 2) : UNI(-50, 50));
        set_grid(r, (uint32_t)P, 1, 1);
        break;
    }
    }
}

/* The same failing launch through `rkc run` on each device: exit status 3 and the message on stderr. */
static void check_rkc_exit(Run *r, const char *msg, const char *site)
{
#ifdef RK_RUN_RKC
    HBuf *x = &r->bufs[0];
    char path[] = "/tmp/rk_run_assert_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        failf(r, "  cannot make a temporary file");
        return;
    }
    FILE *f = fdopen(fd, "wb");
    fwrite(x->host, x->esize, x->n, f);
    fclose(f);
    for (int d = 0; d < NDEV; d++) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd,
                 "RK_DEVICE=%s '%s' run '%s/debug.tile' -k assert_scalar %s%s --grid %u x=file:%s:i32[%zu] lim=100 2>&1",
                 d ? "emu" : "interp", RK_RUN_RKC, RK_RUN_KERNELS, "-D ", strchr(r->c->defines, '=') ? r->c->defines : "",
                 r->grid[0], path, x->n);
        FILE *p = popen(cmd, "r");
        char out[4096] = "";
        size_t n = p ? fread(out, 1, sizeof out - 1, p) : 0;
        out[n] = 0;
        int st = p ? pclose(p) : -1;
        int code = st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        if (code != 3 || !strstr(out, msg) || !strstr(out, site))
            failf(r, "  rkc run on %s: exit %d (expected 3), output: %s", d ? "emu" : "interp", code, out);
    }
    remove(path);
#else
    (void)r, (void)msg, (void)site;
#endif
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void check_debug(Run *r)
{
    const Case *c = r->c;
    if (c->p[0] != G_PRINT) {
        static const char *const MSG[] = {"element at or above", "scalar at or above", "tile at or above"};
        const char *msg = MSG[c->p[0]];
        if (!c->p[3]) {
            if (!launched_ok(r))
                failf(r, "  the assert failed where it holds: interp %s, emu %s", r->msg[0], r->msg[1]);
            return;
        }
        char site[64];
        assert_site(msg, site, sizeof site);
        const char *subs[] = {msg, site, "assert_"};
        expect_kernel_error(r, subs, 3);
        if (c->p[0] == G_ASSERT_SCALAR)
            check_rkc_exit(r, msg, site);
        return;
    }
    if (!launched_ok(r))
        return;
    /* per program: pid, BLOCK vec, R*C mat, BLOCK flag, sum */
    size_t P = r->grid[0], want = P * (size_t)(1 + 2 * c->p[1] + 8 * 16 + 1);
    for (int d = 0; d < NDEV; d++)
        if ((size_t)r->nlines[d] != want)
            failf(r, "  %s printed %d lines, expected %zu", d ? "emu" : "interp", r->nlines[d], want);
    int n = r->nlines[0] < r->nlines[1] ? r->nlines[0] : r->nlines[1];
    qsort(r->lines[0], (size_t)r->nlines[0], sizeof(char *), cmp_str);
    qsort(r->lines[1], (size_t)r->nlines[1], sizeof(char *), cmp_str);
    int shown = 0;
    for (int i = 0, j = 0; i < r->nlines[0] || j < r->nlines[1];) {
        int k = i >= r->nlines[0] ? 1 : j >= r->nlines[1] ? -1 : strcmp(r->lines[0][i], r->lines[1][j]);
        if (k == 0) {
            i++, j++;
            continue;
        }
        if (shown++ < 6)
            failf(r, "  only on %s: %s", k < 0 ? "interp" : "emu", k < 0 ? r->lines[0][i] : r->lines[1][j]);
        if (k < 0)
            i++;
        else
            j++;
    }
    (void)n;
}

void gen_debug(void)
{
    static const int bw[][2] = {{128, 1}, {256, 4}, {512, 8}, {64, 2}};
    for (int s = 0; s < 4; s++)
        for (int fail = 0; fail < 2; fail++) {
            Case *c = add_case("debug.tile", "assert_tile", setup_debug, check_debug, "debug/assert_tile/%s/b%d/w%d",
                               fail ? "fails" : "holds", bw[s][0], bw[s][1]);
            c->p[0] = G_ASSERT_TILE;
            c->p[1] = bw[s][0];
            c->p[3] = fail;
            c->expect = fail ? EXPECT_KERNEL_ERROR : EXPECT_OK;
            case_define(c, "BLOCK=%d num_warps=%d", bw[s][0], bw[s][1]);
            c = add_case("debug.tile", "assert_scalar", setup_debug, check_debug, "debug/assert_scalar/%s/w%d",
                         fail ? "fails" : "holds", bw[s][1]);
            c->p[0] = G_ASSERT_SCALAR;
            c->p[3] = fail;
            c->expect = fail ? EXPECT_KERNEL_ERROR : EXPECT_OK;
            case_define(c, "num_warps=%d", bw[s][1]);
            static const int rc[][2] = {{16, 32}, {32, 64}, {8, 128}, {64, 16}};
            c = add_case("debug.tile", "assert_loop", setup_debug, check_debug, "debug/assert_loop/%s/%dx%d/w%d",
                         fail ? "fails" : "holds", rc[s][0], rc[s][1], bw[s][1]);
            c->p[0] = G_ASSERT_LOOP;
            c->p[1] = rc[s][0];
            c->p[2] = rc[s][1];
            c->p[3] = fail;
            c->expect = fail ? EXPECT_KERNEL_ERROR : EXPECT_OK;
            case_define(c, "R=%d C=%d num_warps=%d", rc[s][0], rc[s][1], bw[s][1]);
        }
    static const rk_dtype PT[] = {RK_F32, RK_F16, RK_BF16, RK_I8, RK_I32, RK_U32, RK_I64};
    for (int ti = 0; ti < 7; ti++) {
        int block = 64 << (ti % 3), warps = 1 << (ti % 4);
        Case *c = add_case("debug.tile", "print_tiles", setup_debug, check_debug, "debug/print/%s/b%d/w%d",
                           tname(PT[ti]), block, warps);
        c->p[0] = G_PRINT;
        c->p[1] = block;
        c->dt[0] = PT[ti];
        case_define(c, "T=%s BLOCK=%d num_warps=%d", tname(PT[ti]), block, warps);
    }
}
