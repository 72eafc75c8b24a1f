/* Control flow: for loops carrying tiles (with a reduction and a broadcast in the body), a while loop
 * on a reduction, if/else choosing tiles by program, break and continue on run-time values, loops
 * with steps (constant, negative, run-time), nested loops, early return. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/run/cases.h"

enum { C_FOR, C_FOR_REDUCE, C_WHILE, C_IF, C_BREAK, C_STEPS, C_RETURN, C_BOOL, C_IFLAY };

static void setup_ctrl(Run *r)
{
    const Case *c = r->c;
    rk_dtype t = c->dt[0];
    Rng *R = &r->rng;
    int block = c->p[1];
    switch (c->p[0]) {
    case C_FOR: {
        int n = pick_n(r, block), iters = (int)rng_range(R, 0, 5);
        in_buf(r, "x", t, (size_t)(n * (iters > 0 ? iters : 1)), dt_float(t) ? UNI(-4, 4) : MIX(0, 0));
        out_buf(r, "out", t, (size_t)n);
        arg(r, rk_arg_i32(n));
        arg(r, rk_arg_i32(iters));
        break;
    }
    case C_FOR_REDUCE: {
        int R_ = c->p[1], C_ = c->p[2], iters = (int)rng_range(R, 1, 4);
        in_buf(r, "x", RK_F32, (size_t)(iters * R_ * C_), UNI(-2, 2));
        out_buf(r, "out", RK_F32, (size_t)(R_ * C_))->cols = C_;
        out_buf(r, "rows", RK_F32, (size_t)R_);
        arg(r, rk_arg_i32(iters));
        set_grid(r, 1, 1, 1);
        break;
    }
    case C_WHILE: {
        int P = (int)rng_range(R, 1, 4);
        in_buf(r, "x", RK_F32, (size_t)(P * block), UNI(-1000, 1000));
        out_buf(r, "out", RK_F32, (size_t)(P * block));
        out_buf(r, "cnt", RK_I32, (size_t)P);
        arg(r, rk_arg_f32((float)(0.5 + rng_unit(R) * 10)));
        set_grid(r, (uint32_t)P, 1, 1);
        break;
    }
    case C_IF: {
        int n = pick_n(r, block);
        Gen g = dt_float(t) ? UNI(-4, 4) : MIX(0, 0);
        in_buf(r, "x", t, (size_t)n, g);
        in_buf(r, "y", t, (size_t)n, g);
        out_buf(r, "out", t, (size_t)n);
        arg(r, rk_arg_i32(n));
        break;
    }
    case C_BREAK:
        in_buf(r, "x", RK_F32, (size_t)(64 * block), UNI(-1, 1));
        out_buf(r, "out", RK_F32, (size_t)(2 * block));
        arg(r, rk_arg_i32((int32_t)rng_range(R, 1, 5)));
        arg(r, rk_arg_i32((int32_t)rng_range(R, 0, 70)));
        set_grid(r, 1, 1, 1);
        break;
    case C_STEPS: {
        out_buf(r, "out", RK_I32, (size_t)(2 * block));
        int lo = (int)rng_range(R, -10, 10), hi = lo + (int)rng_range(R, -3, 20);
        int st = (int)rng_range(R, 1, 4);
        if (hi < lo)
            st = -st;
        arg(r, rk_arg_i32(lo));
        arg(r, rk_arg_i32(hi));
        arg(r, rk_arg_i32(st));
        set_grid(r, 1, 1, 1);
        break;
    }
    case C_BOOL: {
        int iters = (int)rng_range(R, 0, 5);
        in_buf(r, "x", RK_F32, (size_t)(block * (iters ? iters : 1)), UNI(-1, 1));
        out_buf(r, "out", RK_I8, (size_t)block);
        arg(r, rk_arg_i32(iters));
        arg(r, rk_arg_f32(0.9f));
        set_grid(r, 1, 1, 1);
        break;
    }
    case C_IFLAY:
        in_buf(r, "x", RK_F32, (size_t)(block * block), UNI(-4, 4));
        out_buf(r, "out", RK_F32, (size_t)(block * block))->cols = block;
        arg(r, rk_arg_i32((int32_t)rng_range(R, 0, 2)));
        set_grid(r, 1, 1, 1);
        break;
    default: {
        int P = (int)rng_range(R, 1, 8);
        out_buf(r, "out", RK_I32, (size_t)(P * block));
        arg(r, rk_arg_i32((int32_t)rng_range(R, 0, P)));
        set_grid(r, (uint32_t)P, 1, 1);
        break;
    }
    }
}

static int64_t i32w(int64_t v)
{
    return iwrap(RK_I32, v);
}

static void check_ctrl(Run *r)
{
    const Case *c = r->c;
    rk_dtype t = c->dt[0];
    int block = c->p[1];
    switch (c->p[0]) {
    case C_FOR: {
        HBuf *x = &r->bufs[0], *o = &r->bufs[1];
        int n = (int)r->args[2].v.i, iters = (int)r->args[3].v.i;
        for (int e = 0; e < n; e++) {
            double f = 0;
            int64_t v = 0;
            for (int i = 0; i < iters; i++) {
                size_t k = (size_t)(i * n + e);
                if (dt_float(t))
                    f = rnd(t, f + rnd(t, fget(t, x->host, k) * rnd(t, i + 1)));
                else
                    v = ref_int_binop(0, t, v, ref_int_binop(2, t, iget(t, x->host, k), iwrap(t, i + 1)));
            }
            if (dt_float(t))
                ref_f(o, (size_t)e, f);
            else
                ref_i(o, (size_t)e, v);
        }
        expect_buf(r, o, EXACT);
        break;
    }
    case C_FOR_REDUCE: {
        HBuf *x = &r->bufs[0], *o = &r->bufs[1], *rows = &r->bufs[2];
        int R_ = c->p[1], C_ = c->p[2], iters = (int)r->args[3].v.i;
        double *tr = run_alloc(r, (size_t)R_ * sizeof *tr);
        for (int i = 0; i < R_; i++) {
            double s = 0, sa = 0;
            for (int j = 0; j < C_; j++) {
                double tt = 0;
                for (int k = 0; k < iters; k++) {
                    size_t b = (size_t)(k * R_ * C_ + i * C_);
                    double mx = -INFINITY;
                    for (int q = 0; q < C_; q++)
                        mx = fmax(mx, fget(RK_F32, x->host, b + (size_t)q));
                    tt = rnd(RK_F32, rnd(RK_F32, tt + fget(RK_F32, x->host, b + (size_t)j)) - mx);
                    if (j == 0)
                        for (int q = 0; q < C_; q++) {
                            s += fget(RK_F32, x->host, b + (size_t)q);
                            sa += fabs(fget(RK_F32, x->host, b + (size_t)q));
                        }
                }
                ref_f(o, (size_t)(i * C_ + j), tt);
            }
            ref_f(rows, (size_t)i, s);
            tr[i] = sa * 0x1p-20;
        }
        expect_buf(r, o, EXACT);
        Tol tl = ABSREL(0, 0);
        tl.per = tr;
        expect_buf(r, rows, tl);
        break;
    }
    case C_WHILE: {
        HBuf *x = &r->bufs[0], *o = &r->bufs[1], *cnt = &r->bufs[2];
        double lim = r->args[3].v.f;
        for (size_t p = 0; p < cnt->n; p++) {
            double mx = 0;
            for (int e = 0; e < block; e++)
                mx = fmax(mx, fabs(fget(RK_F32, x->host, p * (size_t)block + (size_t)e)));
            int k = 0;
            while (mx >= lim) {
                mx *= 0.5;
                k++;
            }
            ref_i(cnt, p, k);
            for (int e = 0; e < block; e++)
                ref_f(o, p * (size_t)block + (size_t)e, ldexp(fget(RK_F32, x->host, p * (size_t)block + (size_t)e), -k));
        }
        expect_buf(r, o, EXACT);
        expect_buf(r, cnt, EXACT);
        break;
    }
    case C_IF: {
        HBuf *x = &r->bufs[0], *y = &r->bufs[1], *o = &r->bufs[2];
        for (size_t e = 0; e < o->n; e++) {
            size_t pid = e / (size_t)block;
            int op = pid % 2 == 0 ? 0 : 1;
            if (dt_float(t)) {
                double v = rnd(t, op ? fget(t, x->host, e) - fget(t, y->host, e) : fget(t, x->host, e) + fget(t, y->host, e));
                ref_f(o, e, pid % 3 == 0 ? v * 2 : v);
            } else {
                int64_t v = ref_int_binop(op, t, iget(t, x->host, e), iget(t, y->host, e));
                ref_i(o, e, pid % 3 == 0 ? ref_int_binop(2, t, v, 2) : v);
            }
        }
        expect_buf(r, o, EXACT);
        break;
    }
    case C_BREAK: {
        HBuf *x = &r->bufs[0], *o = &r->bufs[1];
        int skip = (int)r->args[2].v.i, stop = (int)r->args[3].v.i;
        for (int e = 0; e < block; e++) {
            double acc = 0;
            int cntv = 0;
            for (int k = 0; k < 64; k++) {
                if (k == stop)
                    break;
                if (k % skip == 0)
                    continue;
                acc = rnd(RK_F32, acc + fget(RK_F32, x->host, (size_t)(k * block + e)));
                cntv++;
            }
            ref_f(o, (size_t)e, acc);
            ref_f(o, (size_t)(block + e), cntv);
        }
        expect_buf(r, o, EXACT);
        break;
    }
    case C_STEPS: {
        HBuf *o = &r->bufs[0];
        int lo = (int)r->args[1].v.i, hi = (int)r->args[2].v.i, st = (int)r->args[3].v.i;
        for (int e = 0; e < block; e++) {
            int64_t a = 0, b = 0;
            if (st > 0)
                for (int i = lo; i < hi; i += st)
                    a = i32w(a * 3 + i + e);
            else
                for (int i = lo; i > hi; i += st)
                    a = i32w(a * 3 + i + e);
            for (int i = hi; i > lo; i -= 2)
                for (int j = 0; j < 3; j++)
                    b = i32w(b + (i * j) % 7 + e);
            ref_i(o, (size_t)e, a);
            ref_i(o, (size_t)(block + e), b);
        }
        expect_buf(r, o, EXACT);
        break;
    }
    case C_BOOL: {
        HBuf *x = &r->bufs[0], *o = &r->bufs[1];
        int iters = (int)r->args[2].v.i;
        for (int e = 0; e < block; e++) {
            bool f = false;
            for (int i = 0; i < iters; i++)
                f |= fget(RK_F32, x->host, (size_t)(i * block + e)) > (double)0.9f;
            ref_i(o, (size_t)e, f);
        }
        expect_buf(r, o, EXACT);
        break;
    }
    case C_IFLAY: {
        HBuf *x = &r->bufs[0], *o = &r->bufs[1];
        int sel = (int)r->args[2].v.i, R_ = block;
        for (int i = 0; i < R_; i++)
            for (int j = 0; j < R_; j++) {
                double v = fget(RK_F32, x->host, (size_t)(i * R_ + j)), z;
                if (sel == 0)
                    z = fget(RK_F32, x->host, (size_t)(j * R_ + i));
                else if (sel == 1)
                    z = v * 2;
                else {
                    double mx = -INFINITY;
                    for (int k = 0; k < R_; k++)
                        mx = fmax(mx, fget(RK_F32, x->host, (size_t)(k * R_ + j)));
                    z = v - mx;
                }
                ref_f(o, (size_t)(i * R_ + j), z);
            }
        expect_buf(r, o, EXACT);
        break;
    }
    default: {
        HBuf *o = &r->bufs[0];
        int limit = (int)r->args[1].v.i;
        for (size_t e = 0; e < o->n; e++)
            if ((int)(e / (size_t)block) < limit)
                ref_i(o, e, (int64_t)(e / (size_t)block));
        expect_buf(r, o, EXACT);
        break;
    }
    }
}

static Case *ctrl_case(const char *kernel, int kind, rk_dtype t, int block, int warps, const char *extra)
{
    Case *c;
    if (t == RK_BOOL) {
        c = add_case("ctrl.tile", kernel, setup_ctrl, check_ctrl, "ctrl/%s/b%d/w%d", kernel, block, warps);
        case_define(c, "BLOCK=%d num_warps=%d", block, warps);
    } else {
        c = add_case("ctrl.tile", kernel, setup_ctrl, check_ctrl, "ctrl/%s/%s/b%d/w%d", kernel, tname(t), block, warps);
        case_define(c, "T=%s BLOCK=%d num_warps=%d", tname(t), block, warps);
    }
    c->p[0] = kind;
    c->p[1] = block;
    c->dt[0] = t;
    (void)extra;
    return c;
}

void gen_ctrl(void)
{
    int k = 0;
    for (int ti = 0; ti < NALL_TYPES; ti++) {
        int block, warps;
        pick_shape(k++, &block, &warps);
        ctrl_case("for_carry", C_FOR, ALL_TYPES[ti], block, warps, "");
        pick_shape(k++, &block, &warps);
        ctrl_case("if_else", C_IF, ALL_TYPES[ti], block, warps, "");
    }
    static const int shapes[][3] = {{32, 64, 4}, {64, 64, 8}, {16, 32, 1}, {8, 128, 2}};
    for (int s = 0; s < 4; s++) {
        Case *c = add_case("ctrl.tile", "for_reduce", setup_ctrl, check_ctrl, "ctrl/for_reduce/%dx%d/w%d", shapes[s][0],
                           shapes[s][1], shapes[s][2]);
        c->p[0] = C_FOR_REDUCE;
        c->p[1] = shapes[s][0];
        c->p[2] = shapes[s][1];
        case_define(c, "R=%d C=%d num_warps=%d", shapes[s][0], shapes[s][1], shapes[s][2]);
    }
    static const int bw[][2] = {{128, 1}, {256, 4}, {512, 8}, {64, 2}};
    for (int s = 0; s < 4; s++) {
        ctrl_case("while_loop", C_WHILE, RK_BOOL, bw[s][0], bw[s][1], "");
        ctrl_case("break_continue", C_BREAK, RK_BOOL, bw[s][0], bw[s][1], "");
        ctrl_case("steps", C_STEPS, RK_BOOL, bw[s][0] / 2, bw[s][1], "");
        ctrl_case("early_return", C_RETURN, RK_BOOL, bw[s][0] / 2, bw[s][1], "");
        ctrl_case("for_bool", C_BOOL, RK_BOOL, bw[s][0], bw[s][1], "");
    }
    static const int il[][2] = {{16, 1}, {32, 4}, {64, 8}, {128, 2}};
    for (int s = 0; s < 4; s++) {
        Case *c = add_case("ctrl.tile", "if_layouts", setup_ctrl, check_ctrl, "ctrl/if_layouts/%dx%d/w%d", il[s][0],
                           il[s][0], il[s][1]);
        c->p[0] = C_IFLAY;
        c->p[1] = il[s][0];
        case_define(c, "R=%d num_warps=%d", il[s][0], il[s][1]);
    }
}
