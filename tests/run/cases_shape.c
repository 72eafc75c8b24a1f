/* Shapes: broadcasting ([:, None], [None, :]), expand_dims, broadcast_to, trans, permute of 3-D tiles
 * (every permutation), reshape 1-D to 2-D, 2-D to 1-D, to a wider 2-D and to 3-D (then a sum over the
 * last axis). Each runs on one program with whole tiles, over several shapes and warp counts: these
 * are the ops whose layouts must line up or go through LDS. */
#include <stdio.h>
#include <string.h>

#include "tests/run/cases.h"

enum { K_OUTER, K_EXPAND, K_TRANS, K_PERMUTE, K_RESHAPE12, K_RESHAPE21, K_BOOL };
static const char *const KNAME[] = {"outer", "expand", "trans2d", "permute3", "reshape_1to2", "reshape_2to1", "bool_moves"};

/* x op y in the type: floats rounded once, integers wrapped. */
static void put_add(HBuf *o, size_t i, double fx, double fy, int64_t ix, int64_t iy)
{
    if (dt_float(o->dt))
        ref_f(o, i, fx + fy);
    else
        ref_i(o, i, ref_int_binop(0, o->dt, ix, iy));
}

static void setup_shape(Run *r)
{
    const Case *c = r->c;
    rk_dtype t = c->dt[0];
    int R = c->p[1], C = c->p[2];
    Gen g = dt_float(t) ? UNI(-8, 8) : MIX(0, 0);
    switch (c->p[0]) {
    case K_OUTER:
    case K_EXPAND:
        in_buf(r, "x", t, (size_t)R, g);
        in_buf(r, "y", t, (size_t)C, g);
        out_buf(r, "out", t, (size_t)(R * C))->cols = C;
        break;
    case K_TRANS:
        in_buf(r, "x", t, (size_t)(R * C), g);
        out_buf(r, "out", t, (size_t)(R * C))->cols = R;
        break;
    case K_PERMUTE:
        in_buf(r, "x", t, (size_t)(c->p[1] * c->p[2] * c->p[3]), g);
        out_buf(r, "out", t, (size_t)(c->p[1] * c->p[2] * c->p[3]));
        break;
    case K_RESHAPE12:
        in_buf(r, "x", t, (size_t)(R * C), g);
        out_buf(r, "out", t, (size_t)(R * C))->cols = C;
        break;
    case K_BOOL:
        in_buf(r, "x", t, (size_t)(R * C), g);
        out_buf(r, "outt", RK_I8, (size_t)(R * C))->cols = R;
        out_buf(r, "outr", RK_I8, (size_t)(R * C));
        out_buf(r, "outp", RK_I8, (size_t)(R * C));
        break;
    default:
        in_buf(r, "x", t, (size_t)(R * C), g);
        out_buf(r, "out", t, (size_t)(R * C));
        out_buf(r, "out2", t, (size_t)(R * C))->cols = 2 * C;
        out_buf(r, "out3", t, (size_t)(R * C / 2))->cols = C / 2;
        break;
    }
    set_grid(r, 1, 1, 1);
}

static void check_shape(Run *r)
{
    const Case *c = r->c;
    rk_dtype t = c->dt[0];
    int R = c->p[1], C = c->p[2];
    HBuf *x = &r->bufs[0];
    switch (c->p[0]) {
    case K_OUTER:
    case K_EXPAND: {
        HBuf *y = &r->bufs[1], *o = &r->bufs[2];
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C; j++) {
                size_t k = (size_t)(i * C + j);
                double fx = fget(t, x->host, (size_t)i), fy = fget(t, y->host, (size_t)j);
                int64_t ix = dt_float(t) ? 0 : iget(t, x->host, (size_t)i), iy = dt_float(t) ? 0 : iget(t, y->host, (size_t)j);
                if (c->p[0] == K_OUTER)
                    put_add(o, k, 2 * fx, fy, ref_int_binop(0, t, ix, ix), iy);
                else if (i == j)
                    ref_bits(o, k, (uint8_t *)y->host + (size_t)j * y->esize);
                else
                    put_add(o, k, fx, fy, ix, iy);
            }
        expect_buf(r, o, EXACT);
        break;
    }
    case K_TRANS: {
        HBuf *o = &r->bufs[1];
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C; j++) {
                size_t s = (size_t)(i * C + j);
                double f = fget(t, x->host, s);
                int64_t v = dt_float(t) ? 0 : iget(t, x->host, s);
                put_add(o, (size_t)(j * R + i), f, f, v, v);
            }
        expect_buf(r, o, EXACT);
        break;
    }
    case K_PERMUTE: {
        HBuf *o = &r->bufs[1];
        int dims[3] = {c->p[1], c->p[2], c->p[3]}, P[3] = {c->p[4], c->p[5], c->p[6]};
        int od[3] = {dims[P[0]], dims[P[1]], dims[P[2]]};
        for (int a = 0; a < od[0]; a++)
            for (int b = 0; b < od[1]; b++)
                for (int e = 0; e < od[2]; e++) {
                    int xc[3];
                    xc[P[0]] = a;
                    xc[P[1]] = b;
                    xc[P[2]] = e;
                    size_t src = (size_t)((xc[0] * dims[1] + xc[1]) * dims[2] + xc[2]);
                    ref_bits(o, (size_t)((a * od[1] + b) * od[2] + e), (uint8_t *)x->host + src * x->esize);
                }
        expect_buf(r, o, EXACT);
        break;
    }
    case K_RESHAPE12: {
        HBuf *o = &r->bufs[1];
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C; j++) {
                size_t k = (size_t)(i * C + j);
                if (dt_float(t))
                    ref_f(o, k, rnd(t, fget(t, x->host, k) * rnd(t, i + 1)));
                else
                    ref_i(o, k, ref_int_binop(2, t, iget(t, x->host, k), iwrap(t, i + 1)));
            }
        expect_buf(r, o, EXACT);
        break;
    }
    case K_BOOL: {
        HBuf *ot = &r->bufs[1], *orr = &r->bufs[2], *op = &r->bufs[3];
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C; j++) {
                size_t k = (size_t)(i * C + j);
                bool b = dt_float(t) ? fget(t, x->host, k) > 0 : dt_signed(t) ? iget(t, x->host, k) > 0 : iget(t, x->host, k) != 0;
                ref_i(ot, (size_t)(j * R + i), b);
                ref_i(orr, k, b);
                /* b3[i][j / 2][j % 2] -> permuted [j % 2][i][j / 2] */
                ref_i(op, (size_t)((j % 2) * (R * C / 2) + i * (C / 2) + j / 2), b);
            }
        expect_buf(r, ot, EXACT);
        expect_buf(r, orr, EXACT);
        expect_buf(r, op, EXACT);
        break;
    }
    default: {
        HBuf *o = &r->bufs[1], *o2 = &r->bufs[2], *o3 = &r->bufs[3];
        for (size_t k = 0; k < (size_t)(R * C); k++) {
            ref_bits(o, k, (uint8_t *)x->host + k * x->esize);
            ref_bits(o2, k, (uint8_t *)x->host + k * x->esize);
        }
        /* the sum's type: f32 for 16-bit floats, i32 for i8; then stored as t */
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C / 2; j++) {
                size_t a = (size_t)(i * C + 2 * j);
                if (dt_float(t))
                    ref_f(o3, (size_t)(i * (C / 2) + j), rnd(RK_F32, fget(t, x->host, a) + fget(t, x->host, a + 1)));
                else {
                    rk_dtype st = t == RK_I8 ? RK_I32 : t;
                    ref_i(o3, (size_t)(i * (C / 2) + j),
                          iwrap(t, ref_int_binop(0, st, iget(t, x->host, a), iget(t, x->host, a + 1))));
                }
            }
        expect_buf(r, o, EXACT);
        expect_buf(r, o2, EXACT);
        expect_buf(r, o3, EXACT);
        break;
    }
    }
}

void gen_shape(void)
{
    static const int shapes[][3] = {{32, 64, 4}, {64, 64, 8}, {16, 32, 1}, {64, 16, 2}, {128, 64, 16}, {8, 128, 2},
                                    {256, 4, 8}};
    for (int ti = 0; ti < NALL_TYPES; ti++) {
        rk_dtype t = ALL_TYPES[ti];
        for (int kind = K_OUTER; kind <= K_BOOL; kind++) {
            if (kind == K_PERMUTE)
                continue;
            for (int s = 0; s < 7; s++) {
                if ((s + ti + kind) % 2) /* half of the shapes for each dtype and kernel */
                    continue;
                int R = shapes[s][0], C = shapes[s][1], w = shapes[s][2];
                Case *c = add_case("shape.tile", KNAME[kind], setup_shape, check_shape, "shape/%s/%s/%dx%d/w%d",
                                   KNAME[kind], tname(t), R, C, w);
                c->p[0] = kind;
                c->p[1] = R;
                c->p[2] = C;
                c->dt[0] = t;
                case_define(c, "T=%s R=%d C=%d num_warps=%d", tname(t), R, C, w);
            }
        }
    }
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    static const int dims[][3] = {{4, 8, 16}, {2, 32, 16}, {8, 8, 8}, {16, 4, 32}};
    static const rk_dtype pt[] = {RK_F32, RK_F16, RK_I8, RK_I64, RK_BF16, RK_U32};
    for (int d = 0; d < 4; d++)
        for (int p = 0; p < 6; p++) {
            rk_dtype t = pt[(d + p) % 6];
            int w = 1 << ((d + p) % 4);
            Case *c = add_case("shape.tile", "permute3", setup_shape, check_shape, "shape/permute3/%s/%dx%dx%d/p%d%d%d/w%d",
                               tname(t), dims[d][0], dims[d][1], dims[d][2], perms[p][0], perms[p][1], perms[p][2], w);
            c->p[0] = K_PERMUTE;
            for (int i = 0; i < 3; i++) {
                c->p[1 + i] = dims[d][i];
                c->p[4 + i] = perms[p][i];
            }
            c->dt[0] = t;
            case_define(c, "T=%s A=%d B=%d C=%d P0=%d P1=%d P2=%d num_warps=%d", tname(t), dims[d][0], dims[d][1],
                        dims[d][2], perms[p][0], perms[p][1], perms[p][2], w);
        }
}
