/* Tests of the interpreter's tile computations (runtime/interp): constants and indices, shape ops,
 * reductions, argmax/argmin and scans along each axis, dot for each dtype pair, and a tiled matmul.
 *
 * Inputs are fresh random values each run, outputs poisoned; every result is compared against a host
 * reference. Reductions and scans must match the documented order exactly (f32 accumulation in index
 * order, rounded to the result type at the end; NaN propagating; argmax/argmin: first NaN, else first
 * extreme, ties drawn deliberately from a small value set). dot must match an fma-in-k-order host loop
 * bit for bit (tf32: inputs rounded to 10 mantissa bits first) and a float64 reference within a
 * tolerance by dtype. The last test times a 256x256x256 f32 matmul written as the usual tiled kernel
 * (64x64 output tiles, a loop over K in steps of 64 with masked loads and dot) and prints the figure;
 * it does not assert on time.
 *
 * Seen failing when: argmax took the last of equal values, permute used the inverse permutation,
 * broadcast did not stretch the leading dimension, dot's tf32 truncated instead of rounding, the f16
 * sum accumulated in f16. */
#include "tests/unit/test_interp_util.h"

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Loads base[offs] for an int tile of offsets. */
static Value *load_nd(KB *k, Value *base, int rank, const int64_t *shape)
{
    return k_load(k, k_ptrs(k, base, k_offs_nd(k, rank, shape)), NULL, NULL);
}

static void store_nd(KB *k, Value *base, Value *v)
{
    if (!ty_is_tile(v->type))
        k_store(k, base, v, NULL);
    else
        k_store(k, k_ptrs(k, base, k_offs_nd(k, v->type->rank, v->type->shape)), v, NULL);
}

static const char *nm(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *nm(const char *fmt, ...)
{
    char buf[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf[0] ? str_intern0(&T.strs, buf) : "";
}

/* ---- constants and indices ---- */

static void test_indices(void)
{
    const Type *pt = pty(SK_I32);
    KB k = kb_new(FUNC_KERNEL, "indices", 1, &pt);
    const Type *i32 = sty(SK_I32);
    Value *lin = k_bin(&k, OP_ADD, k_pid(&k, 0),
                       k_bin(&k, OP_MUL, k_op(&k, OP_NUM_PROGRAMS, i32, 0, NULL, NULL, NULL),
                             k_bin(&k, OP_ADD, k_pid(&k, 1), k_bin(&k, OP_MUL, k_pid(&k, 2), k_ci(&k, i32, 2)))));
    Value *base = k_op(&k, OP_ADDPTR, pty(SK_I32), 2, kb_arg(&k, 0), k_bin(&k, OP_MUL, lin, k_ci(&k, i32, 16)), NULL);
    Value *vals[6];
    for (int a = 0; a < 3; a++) {
        vals[a] = k_pid(&k, a);
        vals[3 + a] = k_op(&k, OP_NUM_PROGRAMS, i32, 0, NULL, NULL, NULL);
        vals[3 + a]->def->at.axis = a;
    }
    for (int i = 0; i < 6; i++)
        k_store(&k, k_op(&k, OP_ADDPTR, pt, 2, base, k_ci(&k, i32, i), NULL), vals[i], NULL);
    /* arange(5, 13) and constants at 6.. */
    Value *ar = k_arange(&k, 5, 13);
    k_store(&k, k_ptrs(&k, k_op(&k, OP_ADDPTR, pt, 2, base, k_ci(&k, i32, 6), NULL), k_arange(&k, 0, 8)), ar, NULL);
    k_store(&k, k_op(&k, OP_ADDPTR, pt, 2, base, k_ci(&k, i32, 14), NULL),
            k_cast(&k, k_ci(&k, sty(SK_I8), 300), i32), NULL); /* an i8 constant wraps: 44 */
    k_store(&k, k_op(&k, OP_ADDPTR, pt, 2, base, k_ci(&k, i32, 15), NULL),
            k_cast(&k, k_cf(&k, sty(SK_F16), 0.1), i32), NULL); /* 0.1 as f16 -> 0 */
    k_ret(&k);
    int32_t *out = ti_buf(12 * 16 * 4);
    const void *args[] = {&out};
    EXPECT_OK(ti_launch3(k.f, 3, 2, 2, args, 0));
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 3; x++) {
                int32_t *o = out + (x + 3 * (y + 2 * z)) * 16;
                int32_t want[16] = {x, y, z, 3, 2, 2, 5, 6, 7, 8, 9, 10, 11, 12, 44, 0};
                for (int i = 0; i < 16; i++)
                    EXPECT(o[i] == want[i], "program (%d, %d, %d) slot %d: got %d, want %d", x, y, z, i, o[i], want[i]);
            }
    ti_free_bufs();

    /* constants of float types are rounded to their type; tile constants fill the tile */
    const Type *pf = pty(SK_F32);
    KB c = kb_new(FUNC_KERNEL, "consts", 1, &pf);
    Value *a = k_cast(&c, k_cf(&c, sty(SK_F16), 0.1), sty(SK_F32));
    Value *b = k_cf(&c, t1(sty(SK_F32), 4), 0.1);
    k_store(&c, kb_arg(&c, 0), a, NULL);
    k_store(&c, k_ptrs(&c, kb_arg(&c, 0), k_arange(&c, 1, 5)), b, NULL);
    k_ret(&c);
    float *fo = ti_buf(5 * 4);
    const void *fargs[] = {&fo};
    EXPECT_OK(ti_launch(c.f, 1, fargs));
    EXPECT(fo[0] == (float)dec_float(SK_F16, 0x2E66), "f16 constant 0.1: got %.9g", fo[0]);
    for (int i = 1; i < 5; i++)
        EXPECT(fo[i] == 0.1f, "tile constant [%d]: got %.9g", i, fo[i]);
    ti_free_bufs();
}

/* ---- shapes ---- */

/* out = op(load(in)) for a shape op given by a callback; ref maps output index -> input index. */
typedef Value *(*ShapeFn)(KB *k, Value *x, const Type *rt);

static Value *sh_bcast(KB *k, Value *x, const Type *rt) { return k_bcast(k, x, rt); }
static Value *sh_reshape(KB *k, Value *x, const Type *rt) { return k_op(k, OP_RESHAPE, rt, 1, x, NULL, NULL); }
static Value *sh_hint(KB *k, Value *x, const Type *rt)
{
    Value *r = k_op(k, OP_HINT, rt, 1, x, NULL, NULL);
    r->def->at.kind = KIND_MULTIPLE_OF;
    r->def->at.n = 16;
    return r;
}
static const int64_t *perm_dims;
static Value *sh_permute(KB *k, Value *x, const Type *rt)
{
    Value *r = k_op(k, OP_PERMUTE, rt, 1, x, NULL, NULL);
    r->def->at.ndims = x->type->rank;
    for (int i = 0; i < x->type->rank; i++)
        r->def->at.dims[i] = perm_dims[i];
    return r;
}

static void shape_case(const char *name, ShapeFn fn, int xr, const int64_t *xs, int rr, const int64_t *rs,
                       int64_t (*ref)(const int64_t *ridx, const int64_t *xs, const int64_t *rs))
{
    const Type *pt[2] = {pty(SK_I64), pty(SK_I64)};
    KB k = kb_new(FUNC_KERNEL, name, 2, pt);
    Value *x = load_nd(&k, kb_arg(&k, 0), xr, xs);
    Value *r = fn(&k, x, tile(sty(SK_I64), rr, rs));
    store_nd(&k, kb_arg(&k, 1), r);
    k_ret(&k);
    int64_t xn = 1, rn = 1;
    for (int i = 0; i < xr; i++)
        xn *= xs[i];
    for (int i = 0; i < rr; i++)
        rn *= rs[i];
    int64_t *in = ti_buf((size_t)xn * 8), *out = ti_buf((size_t)rn * 8);
    for (int64_t i = 0; i < xn; i++)
        in[i] = (int64_t)rnd();
    const void *args[] = {&in, &out};
    EXPECT_OK(ti_launch(k.f, 1, args));
    for (int64_t i = 0; i < rn; i++) {
        int64_t idx[4], rest = i;
        for (int d = rr - 1; d >= 0; d--) {
            idx[d] = rest % rs[d];
            rest /= rs[d];
        }
        int64_t j = ref(idx, xs, rs);
        EXPECT(out[i] == in[j], "%s: out[%lld] should be in[%lld]", name, (long long)i, (long long)j);
    }
    ti_free_bufs();
}

static int ref_rank;
static int64_t ref_bcast(const int64_t *ridx, const int64_t *xs, const int64_t *rs)
{
    (void)rs;
    /* x's rank is ref_rank, aligned to the right of the result's rank 2 or 3 */
    int rr = ref_rank >> 8, xr = ref_rank & 0xFF;
    int64_t j = 0;
    for (int d = 0; d < xr; d++) {
        int64_t i = ridx[rr - xr + d];
        j = j * xs[d] + (xs[d] == 1 ? 0 : i);
    }
    return j;
}
static int64_t ref_linear(const int64_t *ridx, const int64_t *xs, const int64_t *rs)
{
    (void)xs;
    int rr = ref_rank;
    int64_t j = 0;
    for (int d = 0; d < rr; d++)
        j = j * rs[d] + ridx[d];
    return j;
}
static int64_t ref_permute(const int64_t *ridx, const int64_t *xs, const int64_t *rs)
{
    (void)rs;
    int64_t xidx[4];
    for (int i = 0; i < ref_rank; i++)
        xidx[perm_dims[i]] = ridx[i];
    int64_t j = 0;
    for (int d = 0; d < ref_rank; d++)
        j = j * xs[d] + xidx[d];
    return j;
}

static void test_shapes(void)
{
    static const int64_t s1x8[] = {1, 8}, s4x1[] = {4, 1}, s8[] = {8}, s4x8[] = {4, 8}, s2x1x8[] = {2, 1, 8},
                         s2x4x8[] = {2, 4, 8}, s32[] = {32}, s2x16[] = {2, 16}, s8x4[] = {8, 4},
                         s2x2x8[] = {2, 2, 8}, s1[] = {1};
    ref_rank = 2 << 8 | 2;
    shape_case("bcast_rows", sh_bcast, 2, s1x8, 2, s4x8, ref_bcast);
    shape_case("bcast_cols", sh_bcast, 2, s4x1, 2, s4x8, ref_bcast);
    ref_rank = 2 << 8 | 1;
    shape_case("bcast_rank", sh_bcast, 1, s8, 2, s4x8, ref_bcast);
    ref_rank = 2 << 8 | 1;
    shape_case("bcast_one", sh_bcast, 1, s1, 2, s4x8, ref_bcast);
    ref_rank = 3 << 8 | 3;
    shape_case("bcast_3d", sh_bcast, 3, s2x1x8, 3, s2x4x8, ref_bcast);
    ref_rank = 1;
    shape_case("reshape_flat", sh_reshape, 2, s4x8, 1, s32, ref_linear);
    ref_rank = 2;
    shape_case("reshape_2x16", sh_reshape, 2, s4x8, 2, s2x16, ref_linear);
    shape_case("reshape_8x4", sh_reshape, 1, s32, 2, s8x4, ref_linear);
    ref_rank = 3;
    shape_case("reshape_3d", sh_reshape, 2, s4x8, 3, s2x2x8, ref_linear);
    ref_rank = 2;
    shape_case("hint", sh_hint, 2, s4x8, 2, s4x8, ref_linear);
    static const int64_t trans[] = {1, 0}, p3[] = {2, 0, 1}, p3b[] = {1, 2, 0}, p4[] = {3, 1, 0, 2};
    perm_dims = trans;
    ref_rank = 2;
    shape_case("trans", sh_permute, 2, s4x8, 2, s8x4, ref_permute);
    perm_dims = p3;
    ref_rank = 3;
    static const int64_t s8x2x4[] = {8, 2, 4}, s4x8x2[] = {4, 8, 2};
    shape_case("permute_201", sh_permute, 3, s2x4x8, 3, s8x2x4, ref_permute);
    perm_dims = p3b;
    shape_case("permute_120", sh_permute, 3, s2x4x8, 3, s4x8x2, ref_permute);
    perm_dims = p4;
    ref_rank = 4;
    static const int64_t s2x4x8x16[] = {2, 4, 8, 16}, s16x4x2x8[] = {16, 4, 2, 8};
    shape_case("permute_4d", sh_permute, 4, s2x4x8x16, 4, s16x4x2x8, ref_permute);

    /* expand_dims then broadcast, and splat of a scalar argument of each type */
    static const ScalarKind sks[] = {SK_BOOL, SK_I8, SK_U16, SK_I32, SK_I64, SK_F16, SK_BF16, SK_F32, SK_F64};
    for (int t = 0; t < COUNT(sks); t++) {
        const Type *pt[2] = {sty(sks[t]), pty(sks[t])};
        KB k = kb_new(FUNC_KERNEL, nm("splat_%s", sk_name(sks[t])), 2, pt);
        Value *s = k_splat(&k, kb_arg(&k, 0), t1(sty(sks[t]), 8));
        Value *e = k_bcast(&k, k_expand(&k, s, 1), t2(sty(sks[t]), 8, 4));
        store_nd(&k, kb_arg(&k, 1), e);
        k_ret(&k);
        uint64_t v = gen_bits(sks[t]);
        void *out = ti_buf(32 * 8);
        const void *args[] = {&v, &out};
        EXPECT_OK(ti_launch(k.f, 1, args));
        for (int i = 0; i < 32; i++) {
            uint64_t got = get_bits(sks[t], out, (size_t)i);
            bool nan = sk_f(sks[t]) && isnan(dec_float(sks[t], v)) && isnan(dec_float(sks[t], got));
            EXPECT(got == (v & width_mask(sks[t])) || nan, "splat %s [%d]: 0x%" PRIx64 " vs 0x%" PRIx64, sk_name(sks[t]),
                   i, got, v);
        }
        ti_free_bufs();
    }
}

/* ---- reductions, argreduce, scans ---- */

/* Small values make ties; a few NaNs with probability nan_p. */
static uint64_t red_input(ScalarKind sk, bool ties, double nan_p)
{
    if (sk_f(sk)) {
        if (rnd_unit() < nan_p)
            return enc_float(sk, NAN);
        if (ties)
            return enc_float(sk, (long double)((int)(rnd() % 7) - 3));
        return gen_float(sk, -100, 100);
    }
    if (ties)
        return (uint64_t)((int64_t)(rnd() % 7) - (sk_is_signed(sk) ? 3 : 0)) & width_mask(sk);
    return rnd() & width_mask(sk);
}

/* The contract's reduction of n values (stride apart), as described in interp_ops.c. */
static void ref_reduce(OpCode code, int64_t kind, ScalarKind in, ScalarKind out, const void *buf, int64_t first,
                       int64_t stride, int64_t n, uint64_t *rbits, long double *rval, void *scan_out)
{
    if (code == OP_ARGREDUCE) {
        int64_t best = 0;
        for (int64_t k = 0; k < n; k++) {
            long double v = ldval(in, get_bits(in, buf, (size_t)(first + k * stride)));
            long double b = ldval(in, get_bits(in, buf, (size_t)(first + best * stride)));
            if (isnan(b))
                break;
            if (isnan(v) || (kind == KIND_ARGMAX ? v > b : v < b) ||
                (v == 0 && b == 0 && signbit(v) != signbit(b) && (kind == KIND_ARGMAX ? signbit(b) : signbit(v))))
                best = k;
        }
        *rbits = (uint64_t)best;
        return;
    }
    if (sk_f(in)) {
        bool wide = in == SK_F64 || out == SK_F64;
        long double acc = 0;
        for (int64_t k = 0; k < n; k++) {
            long double v = dec_float(in, get_bits(in, buf, (size_t)(first + k * stride)));
            if (k == 0)
                acc = v;
            else if (code == OP_SCAN || kind == KIND_SUM)
                acc = wide ? (long double)((double)acc + (double)v) : (long double)((float)acc + (float)v);
            else if (isnan(acc) || isnan(v))
                acc = NAN;
            else if (acc == v)
                acc = (kind == KIND_MIN) == (signbit(acc) != 0) ? acc : v;
            else
                acc = kind == KIND_MAX ? fmaxl(acc, v) : fminl(acc, v);
            if (code == OP_SCAN)
                put_bits(out, scan_out, (size_t)(first + k * stride), enc_float(out, rround(acc, out)));
        }
        *rval = rround(acc, out);
        return;
    }
    int64_t sacc = 0;
    uint64_t uacc = 0;
    for (int64_t k = 0; k < n; k++) {
        uint64_t b = get_bits(in, buf, (size_t)(first + k * stride));
        int64_t v = ival(in, b);
        if (k == 0 || code == OP_SCAN || kind == KIND_SUM) {
            sacc = k == 0 ? v : (int64_t)((uint64_t)sacc + (uint64_t)v);
            uacc = k == 0 ? (uint64_t)v : uacc + (uint64_t)v;
        } else if (sk_is_signed(in)) {
            sacc = kind == KIND_MAX ? (v > sacc ? v : sacc) : (v < sacc ? v : sacc);
        } else {
            uacc = kind == KIND_MAX ? ((uint64_t)v > uacc ? (uint64_t)v : uacc) : ((uint64_t)v < uacc ? (uint64_t)v : uacc);
        }
        if (code == OP_SCAN)
            put_bits(out, scan_out, (size_t)(first + k * stride),
                     (sk_is_signed(in) ? (uint64_t)sacc : uacc) & width_mask(out));
    }
    *rbits = (sk_is_signed(in) ? (uint64_t)sacc : uacc) & width_mask(out);
}

static void reduce_case(OpCode code, int64_t kind, ScalarKind in, ScalarKind out, int rank, int axis, bool ties, double nan_p)
{
    int64_t shape[2] = {8, 32};
    if (rank == 1)
        shape[0] = 64;
    int64_t R = rank == 2 ? shape[0] : 1, C = rank == 2 ? shape[1] : shape[0];
    const char *name = nm("%s_%s_%s_%s_r%d_a%d%s", tir_op_info[code].name, tir_kind_name((OpKind)kind), sk_name(in),
                          sk_name(out), rank, axis, ties ? "_ties" : "");
    const Type *pt[2] = {pty(in), pty(out)};
    KB k = kb_new(FUNC_KERNEL, name, 2, pt);
    Value *x = load_nd(&k, kb_arg(&k, 0), rank, shape);
    const Type *rt;
    if (code == OP_SCAN)
        rt = with_elem(x->type, sty(out));
    else if (rank == 1)
        rt = sty(out);
    else
        rt = t1(sty(out), shape[1 - axis]);
    Value *r = k_op(&k, code, rt, 1, x, NULL, NULL);
    r->def->at.kind = kind;
    r->def->at.axis = axis;
    store_nd(&k, kb_arg(&k, 1), r);
    k_ret(&k);
    int64_t n = R * C;
    void *ib = ti_buf((size_t)n * 8), *ob = ti_buf((size_t)n * 8), *scan = ti_buf((size_t)n * 8);
    const void *args[] = {&ib, &ob};
    for (int rep = 0; rep < 3; rep++) {
        for (int64_t i = 0; i < n; i++)
            put_bits(in, ib, (size_t)i, red_input(in, ties, nan_p));
        memset(ob, 0xAB, (size_t)n * 8);
        InterpStatus st = ti_launch(k.f, 1, args);
        EXPECT_OK(st);
        if (st != INTERP_OK)
            break;
        /* lines of the reduction: along axis 0 of [R, C] there are C of them, stride C */
        int64_t lines = rank == 1 ? 1 : axis == 0 ? C : R, len = rank == 1 ? C : axis == 0 ? R : C;
        int64_t stride = rank == 2 && axis == 0 ? C : 1;
        int bad = 0;
        for (int64_t l = 0; l < lines; l++) {
            int64_t first = rank == 2 && axis == 0 ? l : l * len;
            uint64_t rb = 0;
            long double rv = 0;
            ref_reduce(code, kind, in, out, ib, first, stride, len, &rb, &rv, scan);
            int64_t m = code == OP_SCAN ? len : 1;
            for (int64_t j = 0; j < m; j++) {
                size_t at = code == OP_SCAN ? (size_t)(first + j * stride) : (size_t)l;
                uint64_t got = get_bits(out, ob, at);
                bool ok;
                if (code == OP_SCAN)
                    ok = sk_f(out) ? same_ld(dec_float(out, got), dec_float(out, get_bits(out, scan, at)))
                                   : got == get_bits(out, scan, at);
                else
                    ok = sk_f(out) && code != OP_ARGREDUCE ? same_ld(dec_float(out, got), rv) : got == (rb & width_mask(out));
                T.checks++;
                if (!ok && bad++ < 3)
                    ti_failf(__FILE__, __LINE__, "%s: line %lld elem %lld: got 0x%" PRIx64 " (%Lg), want 0x%" PRIx64 " / %Lg",
                             name, (long long)l, (long long)j, got, ldval(out, got), rb, rv);
            }
        }
    }
    ti_free_bufs();
}

static void test_reductions(void)
{
    static const ScalarKind same[] = {SK_F32, SK_F16, SK_BF16, SK_F64, SK_I8, SK_I32, SK_U32, SK_I64, SK_U8};
    static const int64_t kinds[] = {KIND_SUM, KIND_MAX, KIND_MIN};
    for (int t = 0; t < COUNT(same); t++)
        for (int kd = 0; kd < 3; kd++)
            for (int rank = 1; rank <= 2; rank++)
                for (int axis = 0; axis < rank; axis++) {
                    reduce_case(OP_REDUCE, kinds[kd], same[t], same[t], rank, axis, false, 0);
                    if (sk_f(same[t]) && kinds[kd] != KIND_SUM)
                        reduce_case(OP_REDUCE, kinds[kd], same[t], same[t], rank, axis, false, 0.02);
                }
    /* 16-bit sums into f32 and i8 sums into i32 */
    for (int axis = 0; axis < 2; axis++) {
        reduce_case(OP_REDUCE, KIND_SUM, SK_F16, SK_F32, 2, axis, false, 0);
        reduce_case(OP_REDUCE, KIND_SUM, SK_BF16, SK_F32, 2, axis, false, 0);
        reduce_case(OP_REDUCE, KIND_SUM, SK_I8, SK_I32, 2, axis, false, 0);
    }
    static const ScalarKind arg[] = {SK_F32, SK_F16, SK_F64, SK_I32, SK_U8, SK_I64, SK_U64};
    for (int t = 0; t < COUNT(arg); t++)
        for (int kd = KIND_ARGMAX; kd <= KIND_ARGMIN; kd++)
            for (int rank = 1; rank <= 2; rank++)
                for (int axis = 0; axis < rank; axis++) {
                    reduce_case(OP_ARGREDUCE, kd, arg[t], SK_I32, rank, axis, true, 0);
                    reduce_case(OP_ARGREDUCE, kd, arg[t], SK_I32, rank, axis, false, 0);
                    if (sk_f(arg[t]))
                        reduce_case(OP_ARGREDUCE, kd, arg[t], SK_I32, rank, axis, true, 0.03);
                }
    static const ScalarKind scan[] = {SK_F32, SK_F16, SK_BF16, SK_F64, SK_I32, SK_I8, SK_U64};
    for (int t = 0; t < COUNT(scan); t++)
        for (int rank = 1; rank <= 2; rank++)
            for (int axis = 0; axis < rank; axis++)
                reduce_case(OP_SCAN, KIND_SUM, scan[t], scan[t], rank, axis, false, 0);
}

/* ---- dot ---- */

static void dot_case(ScalarKind in, ScalarKind acc, int64_t kind, int64_t M, int64_t N, int64_t K)
{
    const char *name = nm("dot_%s_%s_%s_%lldx%lldx%lld", sk_name(in), sk_name(acc), tir_kind_name((OpKind)kind),
                          (long long)M, (long long)N, (long long)K);
    const Type *pt[4] = {pty(in), pty(in), pty(acc), pty(acc)};
    KB k = kb_new(FUNC_KERNEL, name, 4, pt);
    int64_t sa[2] = {M, K}, sb[2] = {K, N}, sc[2] = {M, N};
    Value *a = load_nd(&k, kb_arg(&k, 0), 2, sa), *b = load_nd(&k, kb_arg(&k, 1), 2, sb);
    Value *c = load_nd(&k, kb_arg(&k, 2), 2, sc);
    Value *r = k_op(&k, OP_DOT, c->type, 3, a, b, c);
    r->def->at.kind = kind;
    store_nd(&k, kb_arg(&k, 3), r);
    k_ret(&k);
    void *ab = ti_buf((size_t)(M * K) * 8), *bb = ti_buf((size_t)(K * N) * 8), *cb = ti_buf((size_t)(M * N) * 8);
    void *ob = ti_buf((size_t)(M * N) * 8);
    const void *args[] = {&ab, &bb, &cb, &ob};
    for (int rep = 0; rep < 2; rep++) {
        for (int64_t i = 0; i < M * K; i++)
            put_bits(in, ab, (size_t)i, sk_f(in) ? gen_float(in, -2, 2) : rnd() & 0xFF);
        for (int64_t i = 0; i < K * N; i++)
            put_bits(in, bb, (size_t)i, sk_f(in) ? gen_float(in, -2, 2) : rnd() & 0xFF);
        for (int64_t i = 0; i < M * N; i++)
            put_bits(acc, cb, (size_t)i, sk_f(acc) ? gen_float(acc, -8, 8) : rnd() & 0xFFFFF);
        memset(ob, 0xAB, (size_t)(M * N) * 8);
        InterpStatus st = ti_launch(k.f, 1, args);
        EXPECT_OK(st);
        if (st != INTERP_OK)
            break;
        int bad = 0;
        for (int64_t m = 0; m < M; m++)
            for (int64_t n = 0; n < N; n++) {
                uint64_t got = get_bits(acc, ob, (size_t)(m * N + n));
                uint64_t cbits = get_bits(acc, cb, (size_t)(m * N + n));
                bool ok;
                long double exact = ldval(acc, cbits), mag = fabsl(exact);
                if (!sk_f(acc)) {
                    uint64_t want = (uint64_t)ival(acc, cbits);
                    for (int64_t kk = 0; kk < K; kk++)
                        want += (uint64_t)(ival(in, get_bits(in, ab, (size_t)(m * K + kk))) *
                                           ival(in, get_bits(in, bb, (size_t)(kk * N + n))));
                    ok = got == (want & width_mask(acc));
                } else {
                    /* the documented semantics: fma per k in order, f32 (f64 for f64) */
                    float f32 = (float)exact;
                    double f64 = (double)exact;
                    for (int64_t kk = 0; kk < K; kk++) {
                        long double x = dec_float(in, get_bits(in, ab, (size_t)(m * K + kk)));
                        long double y = dec_float(in, get_bits(in, bb, (size_t)(kk * N + n)));
                        if (kind == KIND_TF32) {
                            x = rround_fmt(x, 11, -126, 127);
                            y = rround_fmt(y, 11, -126, 127);
                        }
                        f32 = fmaf((float)x, (float)y, f32);
                        f64 = fma((double)x, (double)y, f64);
                        exact += (long double)dec_float(in, get_bits(in, ab, (size_t)(m * K + kk))) *
                                 dec_float(in, get_bits(in, bb, (size_t)(kk * N + n)));
                        mag += fabsl(x * y);
                    }
                    long double want = acc == SK_F64 ? (long double)f64 : rround(f32, acc);
                    long double g = dec_float(acc, got);
                    /* and close to the exact result: K roundings of f32 (tf32 inputs: 2^-11 each) */
                    long double tol = (kind == KIND_TF32 ? 0x1p-10L : acc == SK_F64 ? 0x1p-50L : 0x1p-22L) * (K + 1) * mag;
                    if (acc == SK_F16 || acc == SK_BF16)
                        tol += fabsl(exact) * (acc == SK_F16 ? 0x1p-10L : 0x1p-7L);
                    ok = same_ld(g, want) && fabsl(g - exact) <= tol;
                    if (!ok && bad < 3)
                        fprintf(stderr, "  %s [%lld, %lld]: got %.9Lg, fma-order %.9Lg, exact %.9Lg\n", name, (long long)m,
                                (long long)n, g, want, exact);
                }
                T.checks++;
                if (!ok && bad++ < 3)
                    ti_failf(__FILE__, __LINE__, "%s: [%lld, %lld] got 0x%" PRIx64, name, (long long)m, (long long)n, got);
            }
    }
    ti_free_bufs();
}

static void test_dot(void)
{
    static const int64_t shapes[][3] = {{16, 16, 16}, {16, 32, 64}, {32, 16, 16}, {64, 64, 32}};
    for (int s = 0; s < COUNT(shapes); s++) {
        int64_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
        dot_case(SK_F16, SK_F32, KIND_IEEE, M, N, K);
        dot_case(SK_BF16, SK_F32, KIND_IEEE, M, N, K);
        dot_case(SK_F32, SK_F32, KIND_IEEE, M, N, K);
        dot_case(SK_F32, SK_F32, KIND_TF32, M, N, K);
        dot_case(SK_I8, SK_I32, KIND_IEEE, M, N, K);
        dot_case(SK_F64, SK_F64, KIND_IEEE, M, N, K);
        dot_case(SK_F16, SK_F16, KIND_IEEE, M, N, K);
    }
}

/* ---- the tiled matmul ---- */

/* c[M, N] = a[M, K] @ b[K, N], f32 row-major, grid (cdiv(M, 64), cdiv(N, 64)); one program per tile. */
static Func *matmul_kernel(void)
{
    enum { BM = 64, BN = 64, BK = 64 };
    const Type *f32 = sty(SK_F32), *i32 = sty(SK_I32), *pf = pty(SK_F32), *b1 = sty(SK_BOOL);
    const Type *pt[6] = {pf, pf, pf, i32, i32, i32};
    KB k = kb_new(FUNC_KERNEL, "matmul", 6, pt);
    Value *a = kb_arg(&k, 0), *b = kb_arg(&k, 1), *c = kb_arg(&k, 2), *M = kb_arg(&k, 3), *N = kb_arg(&k, 4),
          *K = kb_arg(&k, 5);
    const Type *tmk = t2(i32, BM, BK), *tkn = t2(i32, BK, BN), *tmn = t2(i32, BM, BN);
    Value *rm = k_bin(&k, OP_ADD, k_splat(&k, k_bin(&k, OP_MUL, k_pid(&k, 0), k_ci(&k, i32, BM)), t1(i32, BM)),
                      k_arange(&k, 0, BM));
    Value *rn = k_bin(&k, OP_ADD, k_splat(&k, k_bin(&k, OP_MUL, k_pid(&k, 1), k_ci(&k, i32, BN)), t1(i32, BN)),
                      k_arange(&k, 0, BN));
    Value *rk = k_arange(&k, 0, BK);
    /* pa = a + rm[:, None] * K + rk[None, :]; pb = b + rk[:, None] * N + rn[None, :] */
    Value *oa = k_bin(&k, OP_ADD, k_bcast(&k, k_expand(&k, k_bin(&k, OP_MUL, rm, k_splat(&k, K, rm->type)), 1), tmk),
                      k_bcast(&k, k_expand(&k, rk, 0), tmk));
    Value *ob = k_bin(&k, OP_ADD, k_bcast(&k, k_expand(&k, k_bin(&k, OP_MUL, rk, k_splat(&k, N, rk->type)), 1), tkn),
                      k_bcast(&k, k_expand(&k, rn, 0), tkn));
    Value *pa0 = k_ptrs(&k, a, oa), *pb0 = k_ptrs(&k, b, ob);
    Value *acc0 = k_cf(&k, t2(f32, BM, BN), 0.0);
    Value *trips = k_bin(&k, OP_DIV, k_bin(&k, OP_ADD, K, k_ci(&k, i32, BK - 1)), k_ci(&k, i32, BK));
    Value *ops[6] = {k_ci(&k, i32, 0), trips, k_ci(&k, i32, 1), acc0, pa0, pb0};
    const Type *rts[3] = {acc0->type, pa0->type, pb0->type};
    Op *loop = b_op(&k.b, OP_FOR, rts, 3, ops, 6);
    Block *body = loop->regions[0];
    tir_block_add_arg(body, i32, "k");
    for (int i = 0; i < 3; i++)
        tir_block_add_arg(body, rts[i], NULL);
    Value *kv = &body->args[0], *acc = &body->args[1], *pa = &body->args[2], *pb = &body->args[3];
    Builder outer = k.b;
    tir_builder_at_end(&k.b, body);
    /* kk = rk < K - k * BK */
    Value *rem = k_bin(&k, OP_SUB, K, k_bin(&k, OP_MUL, kv, k_ci(&k, i32, BK)));
    Value *kk = k_cmp(&k, PRED_LT, rk, k_splat(&k, rem, rk->type));
    /* rows of a past M and columns of b past N are masked too: they lie outside the buffers */
    Value *ma = k_bin(&k, OP_AND, k_bcast(&k, k_expand(&k, kk, 0), with_elem(tmk, b1)),
                      k_bcast(&k, k_expand(&k, k_cmp(&k, PRED_LT, rm, k_splat(&k, M, rm->type)), 1), with_elem(tmk, b1)));
    Value *mb = k_bin(&k, OP_AND, k_bcast(&k, k_expand(&k, kk, 1), with_elem(tkn, b1)),
                      k_bcast(&k, k_expand(&k, k_cmp(&k, PRED_LT, rn, k_splat(&k, N, rn->type)), 0), with_elem(tkn, b1)));
    Value *x = k_load(&k, pa, ma, k_cf(&k, with_elem(tmk, f32), 0.0));
    Value *y = k_load(&k, pb, mb, k_cf(&k, with_elem(tkn, f32), 0.0));
    Value *d = k_op(&k, OP_DOT, acc->type, 3, x, y, acc);
    d->def->at.kind = KIND_IEEE;
    Value *pa2 = k_op(&k, OP_ADDPTR, pa->type, 2, pa, k_ci(&k, tmk, BK), NULL);
    Value *pb2 = k_op(&k, OP_ADDPTR, pb->type, 2, pb, k_splat(&k, k_bin(&k, OP_MUL, N, k_ci(&k, i32, BK)), tkn), NULL);
    Value *ys[3] = {d, pa2, pb2};
    b_op(&k.b, OP_YIELD, NULL, 0, ys, 3);
    k.b = outer;
    Value *res = op_result(loop, 0);
    Value *oc = k_bin(&k, OP_ADD, k_bcast(&k, k_expand(&k, k_bin(&k, OP_MUL, rm, k_splat(&k, N, rm->type)), 1), tmn),
                      k_bcast(&k, k_expand(&k, rn, 0), tmn));
    Value *mm = k_bcast(&k, k_expand(&k, k_cmp(&k, PRED_LT, rm, k_splat(&k, M, rm->type)), 1), with_elem(tmn, b1));
    Value *mn = k_bcast(&k, k_expand(&k, k_cmp(&k, PRED_LT, rn, k_splat(&k, N, rn->type)), 0), with_elem(tmn, b1));
    k_store(&k, k_ptrs(&k, c, oc), res, k_bin(&k, OP_AND, mm, mn));
    k_ret(&k);
    return k.f;
}

static void matmul_run(Func *f, int32_t M, int32_t N, int32_t K, bool timed)
{
    float *a = ti_buf((size_t)(M * K) * 4), *b = ti_buf((size_t)(K * N) * 4), *c = ti_buf((size_t)(M * N) * 4);
    for (int32_t i = 0; i < M * K; i++)
        a[i] = (float)(rnd_unit() * 2 - 1);
    for (int32_t i = 0; i < K * N; i++)
        b[i] = (float)(rnd_unit() * 2 - 1);
    const void *args[] = {&a, &b, &c, &M, &N, &K};
    double t0 = now_s();
    EXPECT_OK(ti_launch3(f, (uint32_t)(M + 63) / 64, (uint32_t)(N + 63) / 64, 1, args, 0));
    double t = now_s() - t0;
    if (timed)
        printf("matmul %dx%dx%d f32 (64x64 tiles, K step 64): %.1f ms\n", M, N, K, t * 1e3);
    int bad = 0;
    for (int32_t m = 0; m < M; m++)
        for (int32_t n = 0; n < N; n++) {
            double want = 0, mag = 0;
            float fma_order = 0;
            for (int32_t kk = 0; kk < K; kk++) {
                want += (double)a[m * K + kk] * b[kk * N + n];
                mag += fabs((double)a[m * K + kk] * b[kk * N + n]);
                fma_order = fmaf(a[m * K + kk], b[kk * N + n], fma_order);
            }
            float got = c[m * N + n];
            T.checks++;
            if ((got != fma_order || fabs(got - want) > 0x1p-22 * K * mag) && bad++ < 3)
                ti_failf(__FILE__, __LINE__, "matmul %dx%dx%d [%d, %d]: got %.9g, want %.9g (fma order %.9g)", M, N, K,
                         m, n, got, want, fma_order);
        }
    ti_free_bufs();
}

static void test_matmul(void)
{
    Func *f = matmul_kernel();
    matmul_run(f, 200, 136, 72, false); /* ragged edges: masks on every side */
    matmul_run(f, 256, 256, 256, true);
}

int main(int argc, char **argv)
{
    ti_init(argc, argv);
    test_indices();
    test_shapes();
    test_reductions();
    test_dot();
    test_matmul();
    return ti_finish("test_interp_tile");
}
