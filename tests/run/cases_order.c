/* Memory order (kernels/order.tile): programs whose outcome the hardware defines, on every device.
 *
 * - Same-address order within a wave: AMD's "AMD Instinct MI300 Instruction Set Architecture" (CDNA3),
 *   section 4.4 "Data Dependency Resolution" and chapter 9: a wave's vector memory instructions are
 *   issued in order and stores from one wave to one address complete in that order (vmcnt counts
 *   them in order on CDNA3), so a wave's later store to an address wins and its later load reads it.
 *   On sm_90 rk's code issues one warp's instructions in order as well; the emulators run a wave's
 *   accesses in program order (fns->wave_fence).
 * - Across waves only through a barrier: s_barrier after s_waitcnt vmcnt(0) lgkmcnt(0) (LLVM's
 *   AMDGPUUsage memory model, workgroup-scope release/acquire fences around it); PTX's bar.sync
 *   "guarantees memory ordering among threads participating in the barrier".
 * - Atomics: a lock taken with an acquiring compare-and-swap and released with a releasing exchange
 *   orders what it protects (the release/acquire patterns of both memory models).
 * - LDS reuse across pipeline stages is covered by dot/matmul's num_stages cases.
 * Every case runs with the race checker on (the harness's default), which reports the racy twins the
 * unit test test_emu_order.c builds by hand. */
#include <stdlib.h>
#include <string.h>

#include "tests/run/cases.h"

/* ---- one tile and one element ---- */

static void setup_store_order(Run *r)
{
    out_buf(r, "out", RK_F32, (size_t)r->c->p[0]);
    set_grid(r, 1, 1, 1);
}

static void check_store_order(Run *r)
{
    HBuf *o = &r->bufs[0];
    for (size_t i = 0; i < o->n; i++)
        ref_f(o, i, 1.0);
    if (r->c->p[2] == 0) /* store_order: the scalar store is the later one */
        ref_f(o, (size_t)r->c->p[1], 2.0);
    expect_buf(r, o, EXACT);
}

static void setup_masked_over(Run *r)
{
    size_t n = (size_t)r->c->p[0];
    in_buf(r, "x", RK_F32, n, UNI(-8, 8));
    in_buf(r, "y", RK_F32, n, UNI(-8, 8));
    in_buf(r, "m", RK_I8, n, BOOLS);
    out_buf(r, "out", RK_F32, n);
    set_grid(r, 1, 1, 1);
}

static void check_masked_over(Run *r)
{
    HBuf *x = &r->bufs[0], *y = &r->bufs[1], *m = &r->bufs[2], *o = &r->bufs[3];
    for (size_t i = 0; i < o->n; i++)
        ref_f(o, i, fget(RK_F32, (ibits(RK_I8, m->host, i) ? y : x)->host, i));
    expect_buf(r, o, EXACT);
}

static void setup_readback(Run *r)
{
    size_t n = (size_t)r->c->p[0];
    in_buf(r, "x", RK_F32, n, UNI(-8, 8));
    out_buf(r, "out", RK_F32, n);
    out_buf(r, "back", RK_F32, n);
    set_grid(r, 1, 1, 1);
}

static void check_readback(Run *r)
{
    HBuf *x = &r->bufs[0], *o = &r->bufs[1], *b = &r->bufs[2];
    for (size_t i = 0; i < o->n; i++) {
        ref_f(o, i, fget(RK_F32, x->host, i));
        ref_f(b, i, fget(RK_F32, x->host, o->n - 1 - i));
    }
    expect_buf(r, o, EXACT);
    expect_buf(r, b, EXACT);
}

/* ---- the layer-norm backward lock ---- */

static void setup_ln_lock(Run *r)
{
    int rows = (int)rng_range(&r->rng, 1, 48), group = (int)rng_range(&r->rng, 1, 8);
    int n = (int)rng_range(&r->rng, 1, r->c->p[0]);
    in_buf(r, "x", RK_F32, (size_t)rows * (size_t)n, UNI(-2, 2));
    in_buf(r, "dy", RK_F32, (size_t)rows * (size_t)n, UNI(-2, 2));
    out_buf(r, "dw", RK_F32, (size_t)group * (size_t)n);
    in_buf(r, "locks", RK_I32, 2 * (size_t)group, UNI(0, 0));
    arg(r, rk_arg_i32(rows));
    arg(r, rk_arg_i32(n));
    arg(r, rk_arg_i32(group));
    int32_t dims[3] = {rows, group, n};
    memcpy(r->scratch, dims, sizeof dims);
}

static void check_ln_lock(Run *r)
{
    HBuf *x = &r->bufs[0], *dy = &r->bufs[1], *dw = &r->bufs[2], *locks = &r->bufs[3];
    int32_t dims[3];
    memcpy(dims, r->scratch, sizeof dims);
    int rows = dims[0], group = dims[1], n = dims[2];
    double *sum = calloc((size_t)group * (size_t)n, sizeof *sum), *mag = calloc((size_t)group * (size_t)n, sizeof *mag);
    for (int row = 0; row < rows; row++)
        for (int c = 0; c < n; c++) {
            double p = (double)(float)(fget(RK_F32, x->host, (size_t)(row * n + c)) * fget(RK_F32, dy->host, (size_t)(row * n + c)));
            sum[(row % group) * n + c] += p;
            mag[(row % group) * n + c] += p < 0 ? -p : p;
        }
    double tol = 0;
    for (int g = 0; g < group && g < rows; g++)
        for (int c = 0; c < n; c++) {
            ref_f(dw, (size_t)(g * n + c), sum[g * n + c]);
            double t = mag[g * n + c] * 1e-6;
            tol = t > tol ? t : tol;
        }
    /* the locks are free again, the counts set for every group that had a row */
    int32_t zero = 0, one = 1;
    for (int g = 0; g < group; g++) {
        ref_bits(locks, (size_t)g, &zero);
        ref_bits(locks, (size_t)(group + g), g < rows ? &one : &zero);
    }
    expect_buf(r, dw, ABSREL(tol + 1e-6, 1e-5));
    expect_buf(r, locks, EXACT);
    free(sum);
    free(mag);
}

void gen_order(void)
{
    for (int w = 1; w <= 4; w *= 2) {
        int block = 64 * w;
        Case *c = add_case("order.tile", "store_order", setup_store_order, check_store_order, "order/store_order/w%d", w);
        c->p[0] = block;
        c->p[1] = 5;
        case_define(c, "BLOCK=%d AT=5 num_warps=%d", block, w);
        /* the element in the last lane's part, stored by lane 0: one wave only, since with more the
         * last lane is in another wave, and that is a race (tests/golden/run/store_race.tile) */
        if (w == 1) {
            c = add_case("order.tile", "store_order", setup_store_order, check_store_order, "order/store_order/last/w1");
            c->p[0] = 64;
            c->p[1] = 63;
            case_define(c, "BLOCK=64 AT=63 num_warps=1");
            c = add_case("order.tile", "store_order", setup_store_order, check_store_order, "order/store_order/vec4/w1");
            c->p[0] = 256;
            c->p[1] = 255;
            case_define(c, "BLOCK=256 AT=255 num_warps=1");
        }
        c = add_case("order.tile", "scalar_then_tile", setup_store_order, check_store_order,
                     "order/scalar_then_tile/w%d", w);
        c->p[0] = block;
        c->p[1] = 5;
        c->p[2] = 1;
        case_define(c, "BLOCK=%d AT=5 num_warps=%d", block, w);
        c = add_case("order.tile", "masked_over", setup_masked_over, check_masked_over, "order/masked_over/w%d", w);
        c->p[0] = block * 2;
        case_define(c, "BLOCK=%d num_warps=%d", block * 2, w);
        c = add_case("order.tile", "readback", setup_readback, check_readback, "order/readback/%s/w%d",
                     w == 1 ? "wave" : "barrier", w);
        c->p[0] = block;
        case_define(c, "BLOCK=%d WAVE_ONLY=%s num_warps=%d", block, w == 1 ? "true" : "false", w);
        c = add_case("order.tile", "ln_lock", setup_ln_lock, check_ln_lock, "order/ln_lock/w%d", w);
        c->p[0] = block;
        case_define(c, "BLOCK=%d num_warps=%d", block, w);
    }
    /* rows narrower than the waves: every wave but the first holds a copy of the row and loads dw while
     * the first stores it (reads the race checker does not count: EMU_ACCESS_REPLICA) */
    for (int block = 64; block <= 128; block *= 2) {
        Case *c = add_case("order.tile", "ln_lock", setup_ln_lock, check_ln_lock, "order/ln_lock/b%d/w4", block);
        c->p[0] = block;
        case_define(c, "BLOCK=%d num_warps=4", block);
    }
}
