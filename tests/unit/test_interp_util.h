/* Shared scaffolding of the interpreter tests (test_interp*.c): a module to build kernels in with the
 * builder API, registered and poisoned buffers, a seeded random source (the seed is printed with
 * every failure; pass it as argv[1] to replay), and a host reference for the number formats that
 * does not share code with the interpreter: floats are decoded with ldexp and rounded to a format
 * with frexpl/nearbyintl on long double (64-bit significand), integers wrap through C's own types.
 * Everything here is static: each test file includes it once. */
#ifndef RK_TEST_INTERP_UTIL_H
#define RK_TEST_INTERP_UTIL_H

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compiler/tir/tir.h"
#include "runtime/interp/interp.h"
#include "runtime/memreg.h"

typedef struct TI {
    Arena arena;
    TypeTab types;
    StrTab strs;
    Module *m;
    uint64_t seed, rng;
    int fails, checks;
    void **bufs;
    int nbufs, capbufs;
} TI;

static TI T;

static inline void ti_failf(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static inline void ti_failf(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%d: FAIL: ", file, line);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (seed %" PRIu64 ")\n", T.seed);
    va_end(ap);
    T.fails++;
}

#define EXPECT(cond, ...)                                                                                          \
    do {                                                                                                           \
        T.checks++;                                                                                                \
        if (!(cond))                                                                                               \
            ti_failf(__FILE__, __LINE__, __VA_ARGS__);                                                             \
    } while (0)

#define EXPECT_MSG(got, want)                                                                                      \
    EXPECT(strcmp((got), (want)) == 0, "message\n  got:  %s\n  want: %s", (got), (want))

static inline uint64_t rnd(void)
{
    uint64_t z = (T.rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline double rnd_unit(void) { return (double)(rnd() >> 11) * 0x1p-53; } /* [0, 1) */

static inline void ti_init(int argc, char **argv)
{
    arena_init(&T.arena, arena_default_allocator);
    typetab_init(&T.types, &T.arena);
    strtab_init(&T.strs, &T.arena);
    T.m = tir_module_new(&T.arena, &T.types, &T.strs);
    tir_module_file(T.m, "test.tile");
    if (argc > 1) {
        T.seed = strtoull(argv[1], NULL, 0);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        T.seed = (uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec;
    }
    T.rng = T.seed;
}

static inline void *ti_buf(size_t bytes)
{
    size_t n = (bytes + 63) / 64 * 64;
    void *p = aligned_alloc(64, n ? n : 64);
    if (T.nbufs == T.capbufs) {
        T.capbufs = T.capbufs ? 2 * T.capbufs : 256;
        T.bufs = realloc(T.bufs, (size_t)T.capbufs * sizeof *T.bufs);
    }
    if (!p || !T.bufs || !memreg_add(p, bytes)) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    memset(p, 0xAB, n ? n : 64); /* poison */
    T.bufs[T.nbufs++] = p;
    return p;
}

static inline void ti_free_bufs(void)
{
    for (int i = 0; i < T.nbufs; i++) {
        memreg_remove(T.bufs[i]);
        free(T.bufs[i]);
    }
    T.nbufs = 0;
}

static inline int ti_finish(const char *name)
{
    ti_free_bufs();
    free(T.bufs);
    arena_free(&T.arena);
    printf("%s: %d checks, %d failures (seed %" PRIu64 ")\n", name, T.checks, T.fails, T.seed);
    return T.fails ? 1 : 0;
}

/* ---- types ---- */

static inline const Type *sty(ScalarKind sk) { return ty_scalar(&T.types, sk); }
static inline const Type *pty(ScalarKind sk) { return ty_ptr(&T.types, sty(sk)); }
static inline const Type *tile(const Type *e, int rank, const int64_t *shape) { return ty_tile(&T.types, e, rank, shape, NULL); }
static inline const Type *t1(const Type *e, int64_t n) { return tile(e, 1, &n); }
static inline const Type *t2(const Type *e, int64_t m, int64_t n)
{
    int64_t s[2] = {m, n};
    return tile(e, 2, s);
}
static inline const Type *with_elem(const Type *t, const Type *e) { return ty_with_elem(&T.types, t, e); }

/* ---- kernel building ---- */

typedef struct KB {
    Func *f;
    Builder b;
} KB;

static inline KB kb_new(FuncKind kind, const char *name, int nparams, const Type *const *ptypes)
{
    KB k;
    k.f = tir_func_new(T.m, kind, str_intern0(&T.strs, name));
    for (int i = 0; i < nparams; i++)
        tir_block_add_arg(k.f->body, ptypes[i], NULL);
    tir_builder_at_end(&k.b, k.f->body);
    k.b.pos = (SrcPos){0, 1, 1};
    return k;
}

static inline Value *kb_arg(KB *k, int i) { return &k->f->body->args[i]; }
static inline void kb_at(KB *k, uint32_t line, uint32_t col) { k->b.pos = (SrcPos){0, line, col}; }

static inline Value *k_op(KB *k, OpCode code, const Type *rt, int n, Value *a, Value *b, Value *c)
{
    Value *ops[3] = {a, b, c};
    return op_result(b_op(&k->b, code, &rt, 1, ops, n), 0);
}
static inline Value *k_ci(KB *k, const Type *t, int64_t v) { return b_const_int(&k->b, t, v); }
static inline Value *k_cf(KB *k, const Type *t, double v) { return b_const_float(&k->b, t, v); }
static inline Value *k_un(KB *k, OpCode code, Value *a) { return k_op(k, code, a->type, 1, a, NULL, NULL); }
static inline Value *k_bin(KB *k, OpCode code, Value *a, Value *b) { return k_op(k, code, a->type, 2, a, b, NULL); }
static inline Value *k_cmp(KB *k, CmpPred p, Value *a, Value *b)
{
    Value *r = k_op(k, OP_CMP, with_elem(a->type, sty(SK_BOOL)), 2, a, b, NULL);
    r->def->at.pred = p;
    return r;
}
static inline Value *k_cast(KB *k, Value *a, const Type *elem) { return k_op(k, OP_CAST, with_elem(a->type, elem), 1, a, NULL, NULL); }
static inline Value *k_splat(KB *k, Value *x, const Type *t) { return k_op(k, OP_SPLAT, t, 1, x, NULL, NULL); }
static inline Value *k_pid(KB *k, int axis)
{
    Value *r = k_op(k, OP_PROGRAM_ID, sty(SK_I32), 0, NULL, NULL, NULL);
    r->def->at.axis = axis;
    return r;
}
static inline Value *k_arange(KB *k, int64_t start, int64_t end)
{
    Value *r = k_op(k, OP_ARANGE, t1(sty(SK_I32), end - start), 0, NULL, NULL, NULL);
    r->def->at.start = start;
    r->def->at.end = end;
    return r;
}
/* base (a scalar pointer) + offs (an int tile): a tile of pointers. */
static inline Value *k_ptrs(KB *k, Value *base, Value *offs)
{
    const Type *pt = with_elem(offs->type, base->type);
    Value *p = ty_is_tile(offs->type) ? k_splat(k, base, pt) : base;
    return k_op(k, OP_ADDPTR, pt, 2, p, offs, NULL);
}
static inline Value *k_load(KB *k, Value *ptrs, Value *mask, Value *other)
{
    const Type *rt = with_elem(ptrs->type, ty_elem(ptrs->type)->pointee);
    return k_op(k, OP_LOAD, rt, other ? 3 : mask ? 2 : 1, ptrs, mask, other);
}
static inline void k_store(KB *k, Value *ptrs, Value *v, Value *mask)
{
    Value *ops[3] = {ptrs, v, mask};
    b_op(&k->b, OP_STORE, NULL, 0, ops, mask ? 3 : 2);
}
static inline void k_ret(KB *k) { b_op(&k->b, OP_RETURN, NULL, 0, NULL, 0); }

/* x with a dimension of 1 inserted at axis. */
static inline Value *k_expand(KB *k, Value *x, int axis)
{
    int64_t shape[TIR_MAX_RANK];
    int rank = ty_is_tile(x->type) ? x->type->rank : 0;
    for (int i = 0, j = 0; i <= rank; i++)
        shape[i] = i == axis ? 1 : x->type->shape[j++];
    Value *r = k_op(k, OP_EXPAND_DIMS, tile(ty_elem(x->type), rank + 1, shape), 1, x, NULL, NULL);
    r->def->at.axis = axis;
    return r;
}
static inline Value *k_bcast(KB *k, Value *x, const Type *t)
{
    return x->type == t ? x : k_op(k, OP_BROADCAST, with_elem(t, ty_elem(x->type)), 1, x, NULL, NULL);
}
/* Row-major element offsets of a tile of the given shape, built from aranges (no reshape). */
static inline Value *k_offs_nd(KB *k, int rank, const int64_t *shape)
{
    const Type *i32 = sty(SK_I32), *full = tile(i32, rank, shape);
    Value *acc = NULL;
    int64_t stride = 1;
    for (int d = rank - 1; d >= 0; d--) {
        Value *a = k_arange(k, 0, shape[d]);
        a = k_bin(k, OP_MUL, a, k_splat(k, k_ci(k, i32, stride), a->type));
        for (int i = 0; i < d; i++)
            a = k_expand(k, a, 0);
        for (int i = d + 1; i < rank; i++)
            a = k_expand(k, a, i);
        a = k_bcast(k, a, full);
        acc = acc ? k_bin(k, OP_ADD, acc, a) : a;
        stride *= shape[d];
    }
    return acc;
}

/* i32[n] offsets pid(0) * n + arange(n). */
static inline Value *k_offs(KB *k, int64_t n)
{
    const Type *i32 = sty(SK_I32);
    Value *base = k_bin(k, OP_MUL, k_pid(k, 0), k_ci(k, i32, n));
    return k_bin(k, OP_ADD, k_splat(k, base, t1(i32, n)), k_arange(k, 0, n));
}

static char ti_msg[2048];

static inline InterpStatus ti_launch3(Func *f, uint32_t gx, uint32_t gy, uint32_t gz, const void *const *args, int threads)
{
    InterpLaunch l = {.kernel = f, .args = args, .grid = {gx, gy, gz}, .threads = threads};
    return interp_launch(&l, ti_msg, sizeof ti_msg);
}

static inline InterpStatus ti_launch(Func *f, uint32_t gx, const void *const *args)
{
    return ti_launch3(f, gx, 1, 1, args, 0);
}

#define EXPECT_OK(st) EXPECT((st) == INTERP_OK, "launch failed (%d): %s", (int)(st), ti_msg)

/* ---- the host reference's number formats ---- */

static inline bool sk_f(ScalarKind sk) { return sk_is_float(sk); }
static inline size_t sk_size(ScalarKind sk) { return sk == SK_BOOL ? 1 : (size_t)sk_bits(sk) / 8; }

static inline uint64_t get_bits(ScalarKind sk, const void *buf, size_t i)
{
    uint64_t v = 0;
    memcpy(&v, (const char *)buf + i * sk_size(sk), sk_size(sk)); /* little-endian host */
    return v;
}

static inline void put_bits(ScalarKind sk, void *buf, size_t i, uint64_t v)
{
    memcpy((char *)buf + i * sk_size(sk), &v, sk_size(sk));
}

/* Format parameters: precision p (with the hidden bit), exponent range. */
static inline void fmt_of(ScalarKind sk, int *p, int *emin, int *emax)
{
    switch (sk) {
    case SK_F16: *p = 11, *emin = -14, *emax = 15; break;
    case SK_BF16: *p = 8, *emin = -126, *emax = 127; break;
    case SK_F32: *p = 24, *emin = -126, *emax = 127; break;
    default: *p = 53, *emin = -1022, *emax = 1023; break;
    }
}

/* Round to nearest even in a format given by p, emin, emax, through libm on long double. */
static inline long double rround_fmt(long double x, int p, int emin, int emax)
{
    if (isnan(x) || isinf(x) || x == 0)
        return x;
    int e;
    frexpl(x, &e); /* |x| in [2^(e-1), 2^e) */
    int ue = (e - 1 < emin ? emin : e - 1) - (p - 1);
    long double r = ldexpl(nearbyintl(ldexpl(x, -ue)), ue);
    long double maxv = ldexpl(2.0L - ldexpl(1.0L, 1 - p), emax);
    if (fabsl(r) > maxv)
        return copysignl(INFINITY, x);
    return r;
}

static inline long double rround(long double x, ScalarKind sk)
{
    int p, emin, emax;
    fmt_of(sk, &p, &emin, &emax);
    return rround_fmt(x, p, emin, emax);
}

/* Decodes a float's bits from its fields with ldexp. */
static inline long double dec_float(ScalarKind sk, uint64_t b)
{
    int p, emin, emax;
    fmt_of(sk, &p, &emin, &emax);
    int mb = p - 1, eb = sk == SK_F16 ? 5 : sk == SK_F64 ? 11 : 8;
    uint64_t m = b & ((1ull << mb) - 1), e = (b >> mb) & ((1ull << eb) - 1);
    int neg = (int)((b >> (mb + eb)) & 1);
    long double v;
    if (e == (1ull << eb) - 1)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexpl((long double)m, emin - mb);
    else
        v = ldexpl((long double)(m | 1ull << mb), (int)e - emax - mb);
    return neg ? -v : v;
}

/* The bits of a value exactly representable in the float format. */
static inline uint64_t enc_float(ScalarKind sk, long double v)
{
    int p, emin, emax;
    fmt_of(sk, &p, &emin, &emax);
    int mb = p - 1, eb = sk == SK_F16 ? 5 : sk == SK_F64 ? 11 : 8;
    uint64_t sign = signbit(v) ? 1ull << (mb + eb) : 0, emask = (1ull << eb) - 1;
    long double a = fabsl(v);
    if (isnan(v))
        return emask << mb | 1ull << (mb - 1);
    if (isinf(v))
        return sign | emask << mb;
    if (a == 0)
        return sign;
    int e;
    frexpl(a, &e);
    if (e - 1 < emin)
        return sign | (uint64_t)ldexpl(a, -(emin - mb));
    return sign | (uint64_t)(e - 1 + emax) << mb | ((uint64_t)ldexpl(a, mb - (e - 1)) & ((1ull << mb) - 1));
}

/* An integer's bits reinterpreted as its value through C's types. */
static inline int64_t ival(ScalarKind sk, uint64_t b)
{
    switch (sk) {
    case SK_BOOL: return (int64_t)(b & 1);
    case SK_I8: return (int8_t)b;
    case SK_I16: return (int16_t)b;
    case SK_I32: return (int32_t)b;
    case SK_I64: return (int64_t)b;
    case SK_U8: return (uint8_t)b;
    case SK_U16: return (uint16_t)b;
    case SK_U32: return (uint32_t)b;
    default: return (int64_t)b; /* u64: the same bits */
    }
}

/* A value as long double: floats decoded, integers exact. */
static inline long double ldval(ScalarKind sk, uint64_t b)
{
    if (sk_f(sk))
        return dec_float(sk, b);
    if (sk == SK_U64)
        return (long double)b;
    return (long double)ival(sk, b);
}

static inline uint64_t width_mask(ScalarKind sk) { return sk_size(sk) == 8 ? ~0ull : (1ull << (8 * sk_size(sk))) - 1; }

/* Same value (NaN equals NaN; zeros compare by sign). */
static inline bool same_ld(long double a, long double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return a == b && signbit(a) == signbit(b);
}

/* Random bits of a type, a quarter of them from a list of special values. */
static inline uint64_t gen_bits(ScalarKind sk)
{
    uint64_t r = rnd();
    if (rnd() % 4)
        return sk == SK_BOOL ? r & 1 : r & width_mask(sk);
    if (sk_f(sk)) {
        static const long double sp[] = {0.0L, -0.0L, 1.0L, -1.0L, 0.5L, -0.5L, 1.5L, 2.5L, -2.5L, 3.0L,
                                         INFINITY, -INFINITY, NAN, 65504.0L, 65520.0L, 1e10L, -1e10L,
                                         2147483647.0L, 2147483648.0L, -2147483649.0L, 4294967296.0L,
                                         9.3e18L, 1.9e19L, -9.3e18L, 127.5L, -128.9L, 255.9L, 300.0L,
                                         0x1p-24L, 0x1p-14L, 0x1p-126L, 0x1p-149L, 1e-30L, 3.4e38L};
        long double v = sp[rnd() % (sizeof sp / sizeof sp[0])];
        return enc_float(sk, rround(v, sk));
    }
    static const int64_t sp[] = {0, 1, -1, 2, 7, 8, 31, 32, 63, 64, 127, 128, -128, -129, 255, 256, 32767,
                                 -32768, 65535, INT32_MAX, INT32_MIN, UINT32_MAX, INT64_MAX, INT64_MIN};
    if (sk == SK_BOOL)
        return r & 1;
    return (uint64_t)sp[rnd() % (sizeof sp / sizeof sp[0])] & width_mask(sk);
}

/* Bits of a float value in [lo, hi) rounded to the format. */
static inline uint64_t gen_float(ScalarKind sk, double lo, double hi)
{
    return enc_float(sk, rround((long double)(lo + (hi - lo) * rnd_unit()), sk));
}

#endif
