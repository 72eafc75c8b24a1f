/* Memory and creation: masked loads with `other` (masks from data, so vectors split anywhere),
 * masked stores, addresses of unknown alignment and with multiple_of hints, strides, 2-D tiles in
 * row- and column-major order, scalar loads and stores, one address for every lane; zeros, full,
 * arange(start, end), program_id and num_programs over 1-, 2- and 3-D grids; barrier() between the
 * waves' stores and other waves' loads (tiles, a scalar, in a loop). Inputs are allocated
 * with exactly n elements, so a masked-off lane that touched memory would be caught by the devices'
 * bounds checks. */
#include <stdio.h>
#include <string.h>

#include "tests/run/cases.h"

static rk_dtype T0(const Run *r)
{
    return r->c->dt[0];
}

static rk_arg scalar_arg(rk_dtype t, double v)
{
    switch (t) {
    case RK_F32: return rk_arg_f32((float)v);
    case RK_F16: return rk_arg_f16(rk_f16_from_double(v));
    case RK_BF16: return rk_arg_bf16(rk_bf16_from_double(v));
    case RK_I8: return rk_arg_i8((int8_t)v);
    case RK_I32: return rk_arg_i32((int32_t)v);
    case RK_U32: return rk_arg_u32((uint32_t)v);
    default: return rk_arg_i64((int64_t)v);
    }
}

/* ---- load with other / masked store ---- */

static void setup_load_other(Run *r)
{
    rk_dtype t = T0(r);
    int n = pick_n(r, r->c->p[1]);
    in_buf(r, "x", t, (size_t)n, MIX(-8, 8));
    HBuf *mk = in_buf(r, "mk", RK_I8, (size_t)n, BOOLS);
    /* runs of set and clear bits as well as noise */
    if (rng_range(&r->rng, 0, 1))
        for (size_t i = 0; i < mk->n; i++)
            iset(RK_I8, mk->host, i, (i / (size_t)rng_range(&r->rng, 1, 3)) % 3 != 0);
    out_buf(r, "out", t, (size_t)n);
    int o = (int)rng_range(&r->rng, -5, 5);
    r->scratch[0] = (uint8_t)(int8_t)o;
    if (r->c->p[0] == 0) {
        arg(r, rk_arg_i32(n));
        arg(r, scalar_arg(t, t == RK_U32 ? (double)(o + 5) : (double)o));
    } else {
        arg(r, rk_arg_i32(n));
    }
}

static void check_load_other(Run *r)
{
    HBuf *x = &r->bufs[0], *mk = &r->bufs[1], *o = &r->bufs[2];
    rk_dtype t = o->dt;
    int ov = (int8_t)r->scratch[0];
    if (t == RK_U32)
        ov += 5;
    for (size_t i = 0; i < o->n; i++) {
        bool m = ibits(RK_I8, mk->host, i) != 0;
        if (r->c->p[0] == 0) {
            if (m)
                ref_bits(o, i, (uint8_t *)x->host + i * x->esize);
            else if (dt_float(t))
                ref_f(o, i, ov);
            else
                ref_i(o, i, ov);
        } else if (m) {
            ref_bits(o, i, (uint8_t *)x->host + i * x->esize);
        }
    }
    expect_buf(r, o, EXACT);
}

/* ---- offsets and strides ---- */

static void setup_offset(Run *r)
{
    rk_dtype t = T0(r);
    int n = pick_n(r, r->c->p[1]), hint = r->c->p[2];
    int start = hint * (int)rng_range(&r->rng, 0, 9) + (hint == 1 ? (int)rng_range(&r->rng, 0, 7) : 0);
    in_buf(r, "x", t, (size_t)(n + start), MIX(-8, 8));
    out_buf(r, "out", t, (size_t)(n + start));
    arg(r, rk_arg_i32(n));
    arg(r, rk_arg_i32(start));
    memcpy(r->scratch, &start, sizeof start);
}

static void check_offset(Run *r)
{
    HBuf *x = &r->bufs[0], *o = &r->bufs[1];
    int start;
    memcpy(&start, r->scratch, sizeof start);
    for (size_t i = (size_t)start; i < o->n; i++)
        ref_bits(o, i, (uint8_t *)x->host + i * x->esize);
    expect_buf(r, o, EXACT);
}

static void setup_strided(Run *r)
{
    rk_dtype t = T0(r);
    int n = pick_n(r, r->c->p[1]), stride = (int)rng_range(&r->rng, 0, 5);
    in_buf(r, "x", t, (size_t)((n - 1) * stride + 1), MIX(-8, 8));
    out_buf(r, "out", t, (size_t)n);
    arg(r, rk_arg_i32(n));
    arg(r, rk_arg_i32(stride));
    memcpy(r->scratch, &stride, sizeof stride);
}

static void check_strided(Run *r)
{
    HBuf *x = &r->bufs[0], *o = &r->bufs[1];
    int stride;
    memcpy(&stride, r->scratch, sizeof stride);
    for (size_t i = 0; i < o->n; i++)
        ref_bits(o, i, (uint8_t *)x->host + i * (size_t)stride * x->esize);
    expect_buf(r, o, EXACT);
}

/* ---- 2-D copies ---- */

static void setup_copy2d(Run *r)
{
    rk_dtype t = T0(r);
    int br = r->c->p[1], bc = r->c->p[2];
    bool colmajor = r->c->p[3];
    int rows = br * (int)rng_range(&r->rng, 0, 2) + (int)rng_range(&r->rng, 1, br);
    int cols = bc * (int)rng_range(&r->rng, 0, 2) + (int)rng_range(&r->rng, 1, bc);
    int ld = (colmajor ? rows : cols) + (int)rng_range(&r->rng, 0, 3);
    size_t nx = colmajor ? (size_t)(cols - 1) * (size_t)ld + (size_t)rows : (size_t)(rows - 1) * (size_t)ld + (size_t)cols;
    in_buf(r, "x", t, nx, MIX(-8, 8));
    HBuf *o = out_buf(r, "out", t, (size_t)rows * (size_t)cols);
    o->cols = cols;
    arg(r, rk_arg_i32(rows));
    arg(r, rk_arg_i32(cols));
    arg(r, rk_arg_i32(ld));
    int v[3] = {rows, cols, ld};
    memcpy(r->scratch, v, sizeof v);
}

static void check_copy2d(Run *r)
{
    HBuf *x = &r->bufs[0], *o = &r->bufs[1];
    int v[3];
    memcpy(v, r->scratch, sizeof v);
    bool colmajor = r->c->p[3];
    for (int i = 0; i < v[0]; i++)
        for (int j = 0; j < v[1]; j++) {
            size_t src = colmajor ? (size_t)j * (size_t)v[2] + (size_t)i : (size_t)i * (size_t)v[2] + (size_t)j;
            ref_bits(o, (size_t)i * (size_t)v[1] + (size_t)j, (uint8_t *)x->host + src * x->esize);
        }
    expect_buf(r, o, EXACT);
}

/* ---- masked vectors: n a multiple of p[2] ---- */

static void setup_masked_vec(Run *r)
{
    rk_dtype t = T0(r);
    int block = r->c->p[1], hint = r->c->p[2];
    int n = hint * (int)rng_range(&r->rng, 1, (3 * block) / hint - 1);
    in_buf(r, "x", t, (size_t)n, MIX(-8, 8));
    HBuf *o = out_buf(r, "out", t, (size_t)n);
    (void)o;
    arg(r, rk_arg_i32(n));
}

static void check_masked_vec(Run *r)
{
    HBuf *x = &r->bufs[0], *o = &r->bufs[1];
    rk_dtype t = o->dt;
    for (size_t i = 0; i < o->n; i++) {
        if (dt_float(t))
            ref_f(o, i, fget(t, x->host, i) + fget(t, x->host, i));
        else
            ref_i(o, i, ref_int_binop(0, t, iget(t, x->host, i), iget(t, x->host, i)));
    }
    expect_buf(r, o, EXACT);
}

static void setup_copy2d_hint(Run *r)
{
    rk_dtype t = T0(r);
    int br = r->c->p[1], bc = r->c->p[2], hint = r->c->p[4];
    int rows = (int)rng_range(&r->rng, 1, 2 * br + br / 2);
    int cols = hint * (int)rng_range(&r->rng, 1, (2 * bc + bc / 2) / hint);
    int ld = cols + hint * (int)rng_range(&r->rng, 0, 2);
    in_buf(r, "x", t, (size_t)(rows - 1) * (size_t)ld + (size_t)cols, MIX(-8, 8));
    HBuf *o = out_buf(r, "out", t, (size_t)rows * (size_t)cols);
    o->cols = cols;
    arg(r, rk_arg_i32(rows));
    arg(r, rk_arg_i32(cols));
    arg(r, rk_arg_i32(ld));
    int v[3] = {rows, cols, ld};
    memcpy(r->scratch, v, sizeof v);
}

/* ---- scalars and one address ---- */

static void setup_scalar_ls(Run *r)
{
    rk_dtype t = T0(r);
    int n = (int)rng_range(&r->rng, 1, 300);
    in_buf(r, "x", t, (size_t)n, MIX(-8, 8));
    out_buf(r, "out", t, (size_t)n * 2);
    arg(r, rk_arg_i32(n));
    set_grid(r, (uint32_t)n, 1, 1);
}

static void check_scalar_ls(Run *r)
{
    HBuf *x = &r->bufs[0], *o = &r->bufs[1];
    size_t n = x->n;
    for (size_t p = 0; p < n; p++) {
        ref_bits(o, p, (uint8_t *)x->host + p * x->esize);
        if (p % 3 != 0) {
            if (p % 2 == 0)
                ref_bits(o, n + p, (uint8_t *)x->host + p * x->esize);
            else if (dt_float(o->dt))
                ref_f(o, n + p, 7);
            else
                ref_i(o, n + p, 7);
        }
    }
    expect_buf(r, o, EXACT);
}

static void setup_same_addr(Run *r)
{
    rk_dtype t = T0(r);
    int n = pick_n(r, r->c->p[1]);
    int block = r->c->p[1];
    int progs = (n + block - 1) / block;
    in_buf(r, "x", t, (size_t)progs, MIX(-8, 8));
    out_buf(r, "out", t, (size_t)n);
    arg(r, rk_arg_i32(n));
}

static void check_same_addr(Run *r)
{
    HBuf *x = &r->bufs[0], *o = &r->bufs[1];
    size_t block = (size_t)r->c->p[1];
    for (size_t i = 0; i < o->n; i++)
        ref_bits(o, i, (uint8_t *)x->host + (i / block) * x->esize);
    expect_buf(r, o, EXACT);
}

/* ---- creation ---- */

static void setup_create(Run *r)
{
    rk_dtype t = T0(r);
    int block = r->c->p[1], progs = (int)rng_range(&r->rng, 1, 5);
    out_buf(r, "out", t, (size_t)(progs * 4 * block));
    int v = (int)rng_range(&r->rng, t == RK_U32 ? 0 : -100, 100);
    arg(r, scalar_arg(t, v));
    memcpy(r->scratch, &v, sizeof v);
    set_grid(r, (uint32_t)progs, 1, 1);
}

static void check_create(Run *r)
{
    HBuf *o = &r->bufs[0];
    int block = r->c->p[1], v;
    memcpy(&v, r->scratch, sizeof v);
    int progs = (int)(o->n / (size_t)(4 * block));
    for (int p = 0; p < progs; p++)
        for (int i = 0; i < block; i++) {
            size_t b = (size_t)(p * 4 * block + i);
            if (dt_float(o->dt)) {
                ref_f(o, b, 0);
                ref_f(o, b + (size_t)block, v);
                ref_f(o, b + 2 * (size_t)block, 3);
                ref_f(o, b + 3 * (size_t)block, 5 + i + p);
            } else {
                ref_i(o, b, 0);
                ref_i(o, b + (size_t)block, v);
                ref_i(o, b + 2 * (size_t)block, 3);
                ref_i(o, b + 3 * (size_t)block, 5 + i + p);
            }
        }
    expect_buf(r, o, EXACT);
}

static void setup_ids(Run *r)
{
    uint32_t g[3] = {(uint32_t)rng_range(&r->rng, 1, 7), (uint32_t)rng_range(&r->rng, 1, 5),
                     (uint32_t)rng_range(&r->rng, 1, 4)};
    if (r->c->p[0] < 3)
        g[2] = 1;
    if (r->c->p[0] < 2)
        g[1] = 1;
    out_buf(r, "out", RK_I32, (size_t)g[0] * g[1] * g[2] * 8);
    set_grid(r, g[0], g[1], g[2]);
}

static void check_ids(Run *r)
{
    HBuf *o = &r->bufs[0];
    uint32_t *g = r->grid;
    for (uint32_t z = 0; z < g[2]; z++)
        for (uint32_t y = 0; y < g[1]; y++)
            for (uint32_t x = 0; x < g[0]; x++) {
                size_t lin = x + g[0] * (y + g[1] * z);
                int64_t v[8] = {x, y, z, g[0], g[1], g[2], (int64_t)lin, x * 1000000 + y * 1000 + z};
                for (int k = 0; k < 8; k++)
                    ref_i(o, lin * 8 + (size_t)k, v[k]);
            }
    expect_buf(r, o, EXACT);
}

static void setup_ids2d(Run *r)
{
    int br = r->c->p[1], bc = r->c->p[2];
    int rows = (int)rng_range(&r->rng, 1, 3 * br), cols = (int)rng_range(&r->rng, 1, 3 * bc);
    HBuf *o = out_buf(r, "out", RK_I32, (size_t)rows * (size_t)cols);
    o->cols = cols;
    arg(r, rk_arg_i32(rows));
    arg(r, rk_arg_i32(cols));
    int v[2] = {rows, cols};
    memcpy(r->scratch, v, sizeof v);
}

static void check_ids2d(Run *r)
{
    HBuf *o = &r->bufs[0];
    int v[2], bc = r->c->p[2];
    memcpy(v, r->scratch, sizeof v);
    for (int i = 0; i < v[0]; i++)
        for (int j = 0; j < v[1]; j++)
            ref_i(o, (size_t)(i * v[1] + j), (j / bc) * 100 + i * 10000 + j);
    expect_buf(r, o, EXACT);
}

/* ---- registration ---- */

/* ---- barrier() ---- */

/* barrier_swap: 1 to 3 programs of BLOCK (p[1]) elements, SHIFT (p[2]), 0 to 3 rounds (scratch[0]). */
static void setup_barrier(Run *r)
{
    rk_dtype t = T0(r);
    int g = (int)rng_range(&r->rng, 1, 3);
    size_t n = (size_t)g * (size_t)r->c->p[1];
    in_buf(r, "x", t, n, dt_float(t) ? UNI(-100, 100) : MIX(-100, 100));
    out_buf(r, "buf", t, n);
    out_buf(r, "out", t, n);
    int rounds = (int)rng_range(&r->rng, 0, 3);
    r->scratch[0] = (uint8_t)rounds;
    arg(r, rk_arg_i32(rounds));
    set_grid(r, (uint32_t)g, 1, 1);
}

static void check_barrier(Run *r)
{
    HBuf *x = &r->bufs[0], *buf = &r->bufs[1], *out = &r->bufs[2];
    int block = r->c->p[1], shift = r->c->p[2], rounds = r->scratch[0];
    bool fl = dt_float(x->dt);
    /* the block's values in the kernel's arithmetic: f32 steps rounded as the device rounds them,
     * integers exact (ref_i wraps them at the end, as wrapping at each step would) */
    float f[1024], fn[1024];
    int64_t v[1024], vn[1024];
    for (size_t p = 0; p < x->n / (size_t)block; p++) {
        size_t base = p * (size_t)block;
        for (int i = 0; i < block; i++) {
            ref_bits(out, base + (size_t)i, (uint8_t *)x->host + (base + (size_t)(block - 1 - i)) * x->esize);
            f[i] = (float)fget(x->dt, x->host, base + (size_t)i);
            v[i] = iget(x->dt, x->host, base + (size_t)i);
        }
        f[block - 1] = f[block / 2] * 2.0f + 1.0f;
        v[block - 1] = v[block / 2] * 2 + 1;
        for (int k = 0; k < rounds; k++) {
            for (int i = 0; i < block; i++) {
                fn[i] = f[(i + shift) % block] + 1.0f;
                vn[i] = v[(i + shift) % block] + 1;
            }
            memcpy(f, fn, sizeof(float) * (size_t)block);
            memcpy(v, vn, sizeof(int64_t) * (size_t)block);
        }
        for (int i = 0; i < block; i++) {
            if (fl)
                ref_f(buf, base + (size_t)i, f[i]);
            else
                ref_i(buf, base + (size_t)i, v[i]);
        }
    }
    expect_buf(r, out, EXACT);
    expect_buf(r, buf, EXACT);
}

static Case *mem_case(const char *kernel, SetupFn s, CheckFn ck, rk_dtype t, int k, const char *what)
{
    int block, warps;
    pick_shape(k, &block, &warps);
    Case *c = add_case("mem.tile", kernel, s, ck, "mem/%s%s%s/%s/b%d/w%d", kernel, *what ? "/" : "", what, tname(t),
                       block, warps);
    c->dt[0] = t;
    c->p[1] = block;
    case_define(c, "T=%s BLOCK=%d num_warps=%d", tname(t), block, warps);
    return c;
}

void gen_mem(void)
{
    int k = 0;
    for (int ti = 0; ti < NALL_TYPES; ti++) {
        rk_dtype t = ALL_TYPES[ti];
        mem_case("load_other", setup_load_other, check_load_other, t, k++, "");
        Case *c = mem_case("store_mask", setup_load_other, check_load_other, t, k++, "");
        c->p[0] = 1;
        static const int hints[] = {1, 4, 16};
        for (int h = 0; h < 3; h++) {
            char w[16];
            snprintf(w, sizeof w, "hint%d", hints[h]);
            c = mem_case("offset", setup_offset, check_offset, t, k++, w);
            c->p[2] = hints[h];
            case_define(c, "HINT=%d", hints[h]);
        }
        mem_case("strided", setup_strided, check_strided, t, k++, "");
        mem_case("same_addr", setup_same_addr, check_same_addr, t, k++, "");
        c = add_case("mem.tile", "scalar_ls", setup_scalar_ls, check_scalar_ls, "mem/scalar_ls/%s/w%d", tname(t),
                     1 << (ti % 4));
        c->dt[0] = t;
        case_define(c, "T=%s num_warps=%d", tname(t), 1 << (ti % 4));
        mem_case("create", setup_create, check_create, t, k++, "");
        static const int shapes[][3] = {{32, 64, 4}, {64, 64, 8}, {16, 128, 2}, {64, 16, 1}, {128, 32, 4}};
        for (int s = 0; s < 5; s++)
            for (int cm = 0; cm < 2; cm++) {
                if ((s + ti) % 2 && !cm) /* half of the row-major shapes, every column-major one */
                    continue;
                c = add_case("mem.tile", "copy2d", setup_copy2d, check_copy2d, "mem/copy2d/%s/%s/%dx%d/w%d",
                             cm ? "colmajor" : "rowmajor", tname(t), shapes[s][0], shapes[s][1], shapes[s][2]);
                c->dt[0] = t;
                c->p[1] = shapes[s][0];
                c->p[2] = shapes[s][1];
                c->p[3] = cm;
                case_define(c, "T=%s COLMAJOR=%s BR=%d BC=%d num_warps=%d", tname(t), cm ? "true" : "false",
                            shapes[s][0], shapes[s][1], shapes[s][2]);
            }
    }
    /* masked vector accesses: every dtype, hints up to 16 bytes and beyond */
    static const int vh[] = {2, 4, 8, 16};
    for (int ti = 0; ti < NALL_TYPES; ti++)
        for (int h = 0; h < 4; h++) {
            rk_dtype t = ALL_TYPES[ti];
            char w[16];
            snprintf(w, sizeof w, "hint%d", vh[h]);
            Case *c = mem_case("masked_vec", setup_masked_vec, check_masked_vec, t, k++, w);
            c->p[2] = vh[h];
            case_define(c, "HINT=%d", vh[h]);
            static const int sh[][3] = {{32, 64, 4}, {16, 128, 2}, {64, 32, 8}, {8, 256, 1}};
            const int *q = sh[(ti + h) % 4];
            c = add_case("mem.tile", "copy2d_hint", setup_copy2d_hint, check_copy2d, "mem/copy2d_hint/hint%d/%s/%dx%d/w%d",
                         vh[h], tname(t), q[0], q[1], q[2]);
            c->dt[0] = t;
            c->p[1] = q[0];
            c->p[2] = q[1];
            c->p[4] = vh[h]; /* p[3], column-major, stays 0 for check_copy2d */
            case_define(c, "T=%s HINT=%d BR=%d BC=%d num_warps=%d", tname(t), vh[h], q[0], q[1], q[2]);
        }
    for (int dims = 1; dims <= 3; dims++) {
        Case *c = add_case("mem.tile", "ids", setup_ids, check_ids, "mem/ids/grid%dd/w%d", dims, 1 << dims);
        c->p[0] = dims;
        case_define(c, "num_warps=%d", 1 << dims);
    }
    /* barrier(): SHIFT one wave's share of the block (the next wave's elements), or that plus 3 */
    static const int bs[][3] = {{256, 64, 4}, {1024, 259, 4}, {512, 64, 8}, {128, 64, 2}, {64, 16, 1}, {256, 16, 16}};
    for (int s = 0; s < 6; s++)
        for (int ti = 0; ti < 2; ti++) {
            rk_dtype t = ti ? RK_I32 : RK_F32;
            Case *c = add_case("mem.tile", "barrier_swap", setup_barrier, check_barrier, "mem/barrier/%s/b%d/s%d/w%d",
                               tname(t), bs[s][0], bs[s][1], bs[s][2]);
            c->dt[0] = t;
            c->p[1] = bs[s][0];
            c->p[2] = bs[s][1];
            case_define(c, "T=%s BLOCK=%d SHIFT=%d num_warps=%d", tname(t), bs[s][0], bs[s][1], bs[s][2]);
        }
    static const int s2[][3] = {{16, 32, 1}, {32, 64, 4}, {64, 8, 2}};
    for (int s = 0; s < 3; s++) {
        Case *c = add_case("mem.tile", "ids2d", setup_ids2d, check_ids2d, "mem/ids2d/%dx%d/w%d", s2[s][0], s2[s][1],
                           s2[s][2]);
        c->p[1] = s2[s][0];
        c->p[2] = s2[s][1];
        case_define(c, "BR=%d BC=%d num_warps=%d", s2[s][0], s2[s][1], s2[s][2]);
    }
}
