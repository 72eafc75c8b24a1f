/* Tests of the interpreter's memory, control flow and errors (runtime/interp): masked loads and
 * stores, atomics with many programs hammering one location (exact results, and the old values
 * returned must be a permutation: each update seen once), structured control flow (for with iter
 * args in both directions and near the type's limit, a yield that swaps, nested if, while, an early
 * return), print and its ordering, grid functions, results independent of the thread count, two
 * launches of one Func at once, and every error with its exact message: out-of-bounds and misaligned
 * loads, stores and atomics (a failing store writes nothing), device_assert, assume, timeouts,
 * step 0 (no iteration), malformed IR, and the lowest failing program reported whatever the thread timing.
 *
 * Seen failing when: masked-off lanes were checked against the registry, atomics were a plain
 * load-add-store (lost updates), a yield of (b, a) copied in place, the timeout was never checked,
 * the error of whichever thread came first was reported. */
#include <pthread.h>
#include <unistd.h>

#include "tests/unit/test_interp_util.h"

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *nm(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *nm(const char *fmt, ...)
{
    char buf[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return str_intern0(&T.strs, buf);
}

/* Starts a region: the builder moves into the block; end_region moves it back. */
static Builder begin_region(KB *k, Block *b)
{
    Builder saved = k->b;
    tir_builder_at_end(&k->b, b);
    k->b.pos = saved.pos;
    return saved;
}
static void end_region(KB *k, Builder saved, Value *const *ys, int n, OpCode term)
{
    b_op(&k->b, term, NULL, 0, ys, n);
    k->b = saved;
}

/* for i in 0 .. trips {} : a loop doing nothing, to make some programs slower than others. */
static void k_spin(KB *k, Value *trips)
{
    const Type *i32 = sty(SK_I32);
    Value *ops[3] = {k_ci(k, i32, 0), trips, k_ci(k, i32, 1)};
    Op *loop = b_op(&k->b, OP_FOR, NULL, 0, ops, 3);
    tir_block_add_arg(loop->regions[0], i32, "i");
    Builder s = begin_region(k, loop->regions[0]);
    end_region(k, s, NULL, 0, OP_YIELD);
}

/* ---- masked loads and stores ---- */

static void test_masked(void)
{
    static const ScalarKind sks[] = {SK_F32, SK_F16, SK_I8, SK_BOOL, SK_I64, SK_F64, SK_U16};
    for (int t = 0; t < COUNT(sks); t++) {
        ScalarKind sk = sks[t];
        /* out[i] = load(in + i, mask = i < n && m[i], other = o[i]); store(out2 + i, ..., mask = m2[i]):
         * lanes past n would be out of bounds, so only masking keeps them off memory */
        const Type *i32 = sty(SK_I32), *b1 = sty(SK_BOOL);
        const Type *pt[7] = {pty(sk), pty(SK_BOOL), pty(sk), pty(sk), pty(SK_BOOL), pty(sk), i32};
        KB k = kb_new(FUNC_KERNEL, nm("masked_%s", sk_name(sk)), 7, pt);
        Value *offs = k_arange(&k, 0, 256);
        Value *inb = k_cmp(&k, PRED_LT, offs, k_splat(&k, kb_arg(&k, 6), offs->type));
        Value *m = k_load(&k, k_ptrs(&k, kb_arg(&k, 1), offs), inb, NULL);
        Value *other = k_load(&k, k_ptrs(&k, kb_arg(&k, 2), offs), NULL, NULL);
        Value *x = k_load(&k, k_ptrs(&k, kb_arg(&k, 0), offs), k_bin(&k, OP_AND, inb, m), other);
        k_store(&k, k_ptrs(&k, kb_arg(&k, 3), offs), x, NULL);
        Value *m2 = k_load(&k, k_ptrs(&k, kb_arg(&k, 4), offs), inb, k_ci(&k, t1(b1, 256), 0));
        k_store(&k, k_ptrs(&k, kb_arg(&k, 5), offs), x, m2);
        /* a scalar masked-off load of a null pointer, stored unmasked */
        Value *z = k_load(&k, k_ci(&k, pty(sk), 0), k_ci(&k, b1, 0), NULL);
        k_store(&k, k_op(&k, OP_ADDPTR, pty(sk), 2, kb_arg(&k, 5), k_ci(&k, i32, 255), NULL), z, NULL);
        k_ret(&k);
        (void)i32;
        for (int rep = 0; rep < 3; rep++) {
            int32_t n = 100 + (int32_t)(rnd() % 150);
            size_t es = sk_size(sk);
            void *in = ti_buf((size_t)n * es), *mb = ti_buf((size_t)n), *ob = ti_buf(256 * es), *out = ti_buf(256 * es);
            void *m2b = ti_buf((size_t)n), *out2 = ti_buf(256 * es);
            for (int i = 0; i < n; i++) {
                put_bits(sk, in, (size_t)i, gen_bits(sk));
                ((uint8_t *)mb)[i] = rnd() & 1;
                ((uint8_t *)m2b)[i] = rnd() & 1;
            }
            for (int i = 0; i < 256; i++)
                put_bits(sk, ob, (size_t)i, gen_bits(sk));
            const void *args[] = {&in, &mb, &ob, &out, &m2b, &out2, &n};
            EXPECT_OK(ti_launch(k.f, 1, args));
            for (int i = 0; i < 256; i++) {
                bool on = i < n && ((uint8_t *)mb)[i];
                uint64_t want = on ? get_bits(sk, in, (size_t)i) : get_bits(sk, ob, (size_t)i);
                uint64_t got = get_bits(sk, out, (size_t)i);
                bool nan = sk_f(sk) && isnan(dec_float(sk, want)) && isnan(dec_float(sk, got));
                if (sk == SK_BOOL)
                    want = want != 0;
                EXPECT(got == want || nan, "%s load [%d] (mask %d): got 0x%" PRIx64 ", want 0x%" PRIx64, sk_name(sk), i,
                       on, got, want);
                bool on2 = i < n && ((uint8_t *)m2b)[i];
                uint64_t got2 = get_bits(sk, out2, (size_t)i), poison = 0xABABABABABABABABull & width_mask(sk);
                if (i == 255)
                    EXPECT(got2 == 0, "%s masked-off load gives 0: got 0x%" PRIx64, sk_name(sk), got2);
                else if (on2)
                    EXPECT(got2 == got, "%s store [%d]: got 0x%" PRIx64 ", want 0x%" PRIx64, sk_name(sk), i, got2, got);
                else
                    EXPECT(got2 == poison, "%s masked-off store [%d] wrote 0x%" PRIx64, sk_name(sk), i, got2);
            }
            ti_free_bufs();
        }
    }
}

/* ---- atomics ---- */

/* Each of P programs does atomic_rmw(kind) of v[pid * 64 + lane] on one location (all lanes at once),
 * and writes the old values out. */
static Func *atomic_kernel(const char *name, ScalarKind sk, int64_t kind, bool cas, bool masked)
{
    const Type *pt[5] = {pty(sk), pty(sk), pty(sk), pty(sk), pty(SK_BOOL)};
    KB k = kb_new(FUNC_KERNEL, name, 5, pt);
    Value *offs = k_offs(&k, 64);
    Value *v = k_load(&k, k_ptrs(&k, kb_arg(&k, 1), offs), NULL, NULL);
    Value *p = k_splat(&k, kb_arg(&k, 0), t1(pty(sk), 64));
    Value *mask = masked ? k_load(&k, k_ptrs(&k, kb_arg(&k, 4), offs), NULL, NULL) : NULL;
    Value *ops[4] = {p, v, mask, NULL};
    int n = masked ? 3 : 2;
    if (cas) {
        Value *cmpv = k_load(&k, k_ptrs(&k, kb_arg(&k, 3), offs), NULL, NULL);
        ops[1] = cmpv;
        ops[2] = v;
        ops[3] = mask;
        n++;
    }
    const Type *rt = v->type;
    Op *op = b_op(&k.b, cas ? OP_ATOMIC_CAS : OP_ATOMIC_RMW, &rt, 1, ops, n);
    op->at.kind = kind;
    op->at.sem = SEM_ACQ_REL;
    k_store(&k, k_ptrs(&k, kb_arg(&k, 2), offs), op_result(op, 0), NULL);
    k_ret(&k);
    return k.f;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_atomics(void)
{
    enum { P = 64, L = 64 };
    /* adds of 1: the final count is exact and the old values are 0 .. P*L-1, each once */
    static const ScalarKind adds[] = {SK_I32, SK_U64, SK_I64, SK_F32, SK_F64, SK_U32};
    for (int t = 0; t < COUNT(adds); t++) {
        ScalarKind sk = adds[t];
        Func *f = atomic_kernel(nm("atomic_add_%s", sk_name(sk)), sk, KIND_ADD, false, false);
        void *loc = ti_buf(8), *v = ti_buf(P * L * 8), *old = ti_buf(P * L * 8);
        put_bits(sk, loc, 0, sk_f(sk) ? enc_float(sk, 0) : 0);
        for (int i = 0; i < P * L; i++)
            put_bits(sk, v, (size_t)i, sk_f(sk) ? enc_float(sk, 1) : 1);
        const void *args[] = {&loc, &v, &old, &old, &old};
        EXPECT_OK(ti_launch(f, P, args));
        uint64_t seen[P * L];
        for (int i = 0; i < P * L; i++)
            seen[i] = (uint64_t)ldval(sk, get_bits(sk, old, (size_t)i));
        qsort(seen, P * L, sizeof seen[0], cmp_u64);
        bool perm = true;
        for (int i = 0; i < P * L; i++)
            perm = perm && seen[i] == (uint64_t)i;
        EXPECT((uint64_t)ldval(sk, get_bits(sk, loc, 0)) == P * L, "atomic add %s: got %Lg", sk_name(sk),
               ldval(sk, get_bits(sk, loc, 0)));
        EXPECT(perm, "atomic add %s: the old values are not a permutation", sk_name(sk));
        ti_free_bufs();
    }
    /* contention: 16 programs on all threads, each adding 1 from 64 lanes 300 times in a loop */
    {
        const Type *i32 = sty(SK_I32), *pt = pty(SK_I32);
        KB k = kb_new(FUNC_KERNEL, "hammer", 1, &pt);
        Value *ops[3] = {k_ci(&k, i32, 0), k_ci(&k, i32, 300), k_ci(&k, i32, 1)};
        Op *loop = b_op(&k.b, OP_FOR, NULL, 0, ops, 3);
        tir_block_add_arg(loop->regions[0], i32, "i");
        Builder s = begin_region(&k, loop->regions[0]);
        Value *aops[2] = {k_splat(&k, kb_arg(&k, 0), t1(pt, 64)), k_ci(&k, t1(i32, 64), 1)};
        const Type *rt = aops[1]->type;
        Op *a = b_op(&k.b, OP_ATOMIC_RMW, &rt, 1, aops, 2);
        a->at.kind = KIND_ADD;
        end_region(&k, s, NULL, 0, OP_YIELD);
        k_ret(&k);
        int32_t *loc = ti_buf(4);
        *loc = 0;
        const void *args[] = {&loc};
        EXPECT_OK(ti_launch3(k.f, 16, 1, 1, args, 0));
        EXPECT(*loc == 16 * 300 * 64, "hammer: %d, want %d", *loc, 16 * 300 * 64);
        ti_free_bufs();
    }
    /* 16-bit float adds go through a compare-and-swap loop: 2048 ones are exact in f16, 256 in bf16;
     * i8 adds wrap */
    static const struct { ScalarKind sk; int progs; } small[] = {{SK_F16, 32}, {SK_BF16, 4}, {SK_I8, 8}, {SK_U16, 16}};
    for (int t = 0; t < COUNT(small); t++) {
        ScalarKind sk = small[t].sk;
        int np = small[t].progs;
        Func *f = atomic_kernel(nm("atomic_add_%s", sk_name(sk)), sk, KIND_ADD, false, false);
        void *loc = ti_buf(8), *v = ti_buf(P * L * 2), *old = ti_buf(P * L * 2);
        put_bits(sk, loc, 0, 0);
        for (int i = 0; i < np * L; i++)
            put_bits(sk, v, (size_t)i, sk_f(sk) ? enc_float(sk, 1) : 1);
        const void *args[] = {&loc, &v, &old, &old, &old};
        EXPECT_OK(ti_launch(f, (uint32_t)np, args));
        long double got = ldval(sk, get_bits(sk, loc, 0)), want = sk == SK_I8 ? (int8_t)(np * L) : np * L;
        EXPECT(got == want, "atomic add %s: got %Lg, want %Lg", sk_name(sk), got, want);
        ti_free_bufs();
    }
    /* max, min, and, or, xor, xchg against the sequential result; masked lanes leave memory alone */
    static const struct { ScalarKind sk; int64_t kind; } ops[] = {
        {SK_I32, KIND_MAX}, {SK_I32, KIND_MIN}, {SK_U32, KIND_MAX}, {SK_U32, KIND_MIN}, {SK_I64, KIND_MAX},
        {SK_F32, KIND_MAX}, {SK_F32, KIND_MIN}, {SK_F16, KIND_MAX}, {SK_I8, KIND_MIN}, {SK_U64, KIND_AND},
        {SK_U64, KIND_OR}, {SK_I32, KIND_XOR}, {SK_U8, KIND_OR}, {SK_I32, KIND_XCHG}, {SK_F32, KIND_XCHG}};
    for (int t = 0; t < COUNT(ops); t++) {
        ScalarKind sk = ops[t].sk;
        int64_t kind = ops[t].kind;
        for (int masked = 0; masked < 2; masked++) {
            Func *f = atomic_kernel(nm("atomic_%s_%s_%d", tir_kind_name((OpKind)kind), sk_name(sk), masked), sk, kind,
                                    false, masked);
            void *loc = ti_buf(8), *v = ti_buf(P * L * 8), *old = ti_buf(P * L * 8), *mb = ti_buf(P * L);
            uint64_t init = kind == KIND_AND ? width_mask(sk) : sk_f(sk) ? gen_float(sk, -1000, 1000) : gen_bits(sk);
            if (kind == KIND_XCHG)
                init = sk_f(sk) ? enc_float(sk, -1) : width_mask(sk);
            put_bits(sk, loc, 0, init);
            for (int i = 0; i < P * L; i++) {
                uint64_t b = sk_f(sk) ? gen_float(sk, -1000, 1000) : gen_bits(sk);
                if (kind == KIND_XCHG)
                    b = sk_f(sk) ? enc_float(sk, i) : (uint64_t)i;
                if (kind == KIND_AND || kind == KIND_OR)
                    b = (kind == KIND_AND ? ~(1ull << (i % (8 * sk_size(sk)))) : 1ull << (i % (8 * sk_size(sk)))) &
                        width_mask(sk);
                put_bits(sk, v, (size_t)i, b);
                ((uint8_t *)mb)[i] = masked ? (rnd() % 4 != 0) : 1;
            }
            const void *args[] = {&loc, &v, &old, &old, &mb};
            EXPECT_OK(ti_launch(f, P, args));
            /* the sequential result of the active lanes, in any order: max/min/and/or/xor commute */
            long double accf = ldval(sk, init);
            uint64_t acci = init;
            int active = 0;
            for (int i = 0; i < P * L; i++) {
                if (!((uint8_t *)mb)[i]) {
                    EXPECT(get_bits(sk, old, (size_t)i) == 0, "masked-off atomic lane %d returned nonzero", i);
                    continue;
                }
                active++;
                uint64_t b = get_bits(sk, v, (size_t)i);
                long double x = ldval(sk, b);
                if (kind == KIND_MAX)
                    accf = x > accf ? x : accf;
                else if (kind == KIND_MIN)
                    accf = x < accf ? x : accf;
                else if (kind == KIND_AND)
                    acci &= b;
                else if (kind == KIND_OR)
                    acci |= b;
                else if (kind == KIND_XOR)
                    acci ^= b;
            }
            uint64_t got = get_bits(sk, loc, 0);
            if (kind == KIND_MAX || kind == KIND_MIN)
                EXPECT(ldval(sk, got) == accf, "atomic %s %s: got %Lg, want %Lg", tir_kind_name((OpKind)kind),
                       sk_name(sk), ldval(sk, got), accf);
            else if (kind != KIND_XCHG)
                EXPECT(got == (acci & width_mask(sk)), "atomic %s %s: got 0x%" PRIx64 ", want 0x%" PRIx64,
                       tir_kind_name((OpKind)kind), sk_name(sk), got, acci);
            else {
                /* exchanges form one chain: the old values and the final one are init and the ids, once each */
                uint64_t all[P * L + 1];
                int n = 0;
                for (int i = 0; i < P * L; i++)
                    if (((uint8_t *)mb)[i])
                        all[n++] = (uint64_t)(ldval(sk, get_bits(sk, old, (size_t)i)) + 1);
                all[n++] = (uint64_t)(ldval(sk, got) + 1);
                qsort(all, (size_t)n, sizeof all[0], cmp_u64);
                bool chain = all[0] == 0;
                for (int i = 0, j = 0; i < P * L && chain; i++)
                    if (((uint8_t *)mb)[i])
                        chain = all[++j] == (uint64_t)i + 1;
                EXPECT(chain && n == active + 1, "atomic xchg %s (masked %d): old values are not one chain", sk_name(sk),
                       masked);
            }
            ti_free_bufs();
        }
    }
    /* compare-and-swap: every lane of every program tries 0 -> id; exactly one wins */
    static const ScalarKind cass[] = {SK_I32, SK_U64, SK_F32, SK_I8};
    for (int t = 0; t < COUNT(cass); t++) {
        ScalarKind sk = cass[t];
        int np = sk == SK_I8 ? 1 : P;
        Func *f = atomic_kernel(nm("atomic_cas_%s", sk_name(sk)), sk, 0, true, false);
        void *loc = ti_buf(8), *v = ti_buf(P * L * 8), *old = ti_buf(P * L * 8), *cmpb = ti_buf(P * L * 8);
        put_bits(sk, loc, 0, 0);
        for (int i = 0; i < np * L; i++) {
            put_bits(sk, v, (size_t)i, sk_f(sk) ? enc_float(sk, i + 1) : (uint64_t)(i + 1));
            put_bits(sk, cmpb, (size_t)i, 0);
        }
        const void *args[] = {&loc, &v, &old, &cmpb, &old};
        EXPECT_OK(ti_launch(f, (uint32_t)np, args));
        long double winner = ldval(sk, get_bits(sk, loc, 0));
        int zeros = 0, others = 0;
        for (int i = 0; i < np * L; i++) {
            long double o = ldval(sk, get_bits(sk, old, (size_t)i));
            zeros += o == 0;
            others += o == winner;
        }
        EXPECT(zeros == 1 && others == np * L - 1 && winner >= 1 && winner <= np * L,
               "atomic cas %s: %d lanes saw 0, %d the winner %Lg", sk_name(sk), zeros, others, winner);
        ti_free_bufs();
    }
}

/* ---- control flow ---- */

/* for iv in lb .. ub step s (iv of type sk): acc += iv; cnt += 1; yields (acc, cnt); also a pair
 * (x, y) yielded as (y, x) to check the parallel copy. */
static Func *for_kernel(ScalarKind sk)
{
    const Type *t = sty(sk), *i32 = sty(SK_I32);
    const Type *pt[4] = {t, t, t, pty(SK_I64)};
    KB k = kb_new(FUNC_KERNEL, nm("for_%s", sk_name(sk)), 4, pt);
    Value *ops[7] = {kb_arg(&k, 0), kb_arg(&k, 1), kb_arg(&k, 2), k_ci(&k, t, 0), k_ci(&k, i32, 0), k_ci(&k, i32, 1),
                     k_ci(&k, i32, 2)};
    const Type *rts[4] = {t, i32, i32, i32};
    kb_at(&k, 5, 3);
    Op *loop = b_op(&k.b, OP_FOR, rts, 4, ops, 7);
    Block *body = loop->regions[0];
    tir_block_add_arg(body, t, "iv");
    for (int i = 0; i < 4; i++)
        tir_block_add_arg(body, rts[i], NULL);
    Builder saved = begin_region(&k, body);
    Value *a = &body->args[0];
    Value *ys[4] = {k_bin(&k, OP_ADD, &body->args[1], a), k_bin(&k, OP_ADD, &body->args[2], k_ci(&k, i32, 1)),
                    &body->args[4], &body->args[3]};
    end_region(&k, saved, ys, 4, OP_YIELD);
    for (int i = 0; i < 4; i++) {
        Value *r = op_result(loop, i);
        Value *w = i == 0 ? k_cast(&k, r, sty(SK_I64)) : k_cast(&k, r, sty(SK_I64));
        k_store(&k, k_op(&k, OP_ADDPTR, pty(SK_I64), 2, kb_arg(&k, 3), k_ci(&k, i32, i), NULL), w, NULL);
    }
    k_ret(&k);
    return k.f;
}

static void test_for(void)
{
    static const struct { ScalarKind sk; int64_t lb, ub, step; } cases[] = {
        {SK_I32, 0, 10, 1},  {SK_I32, 0, 10, 3},   {SK_I32, 10, 0, -1},   {SK_I32, 10, 0, -3}, {SK_I32, 5, 5, 1},
        {SK_I32, 7, 3, 1},   {SK_I32, 3, 7, -1},   {SK_I32, -5, 5, 2},    {SK_U32, 0, 10, 4},  {SK_U32, 10, 0, 1},
        {SK_I32, INT32_MAX - 10, INT32_MAX, 3},    {SK_I32, INT32_MIN + 10, INT32_MIN, -4},
        {SK_I64, INT64_MAX - 10, INT64_MAX, 3},    {SK_U64, UINT64_MAX - 20, UINT64_MAX, 7},
        {SK_I8, -128, 127, 50}, {SK_I64, INT64_MIN, INT64_MAX, INT64_MAX}};
    for (int c = 0; c < COUNT(cases); c++) {
        ScalarKind sk = cases[c].sk;
        Func *f = for_kernel(sk);
        uint64_t lb = (uint64_t)cases[c].lb, ub = (uint64_t)cases[c].ub, st = (uint64_t)cases[c].step;
        int64_t *out = ti_buf(4 * 8);
        const void *args[] = {&lb, &ub, &st, &out};
        EXPECT_OK(ti_launch(f, 1, args));
        /* the reference, in the wide integers of the host */
        __int128 iv = sk_is_signed(sk) ? (__int128)cases[c].lb : (__int128)(uint64_t)cases[c].lb;
        __int128 end = sk_is_signed(sk) ? (__int128)cases[c].ub : (__int128)(uint64_t)cases[c].ub;
        __int128 s = sk_is_signed(sk) ? (__int128)cases[c].step : (__int128)(uint64_t)cases[c].step;
        uint64_t acc = 0;
        int64_t cnt = 0;
        for (; s > 0 ? iv < end : iv > end; iv += s, cnt++)
            acc += (uint64_t)iv;
        int64_t want_acc = ival(sk, acc & width_mask(sk));
        if (sk == SK_U64 || sk == SK_U32)
            want_acc = (int64_t)(acc & width_mask(sk));
        EXPECT(out[0] == want_acc && out[1] == cnt, "for %s %lld..%lld step %lld: sum %lld, %lld trips; want %lld, %lld",
               sk_name(sk), (long long)cases[c].lb, (long long)cases[c].ub, (long long)cases[c].step,
               (long long)out[0], (long long)out[1], (long long)want_acc, (long long)cnt);
        EXPECT(out[2] == (cnt % 2 ? 2 : 1) && out[3] == (cnt % 2 ? 1 : 2), "for %s: swapped pair after %lld trips: %lld %lld",
               sk_name(sk), (long long)cnt, (long long)out[2], (long long)out[3]);
        ti_free_bufs();
    }
    /* a run-time step of 0 runs no iteration (docs/language.md; emu and the GPUs alike), either way
     * round */
    for (int down = 0; down < 2; down++) {
        Func *f = for_kernel(SK_I32);
        int32_t lb = down ? 10 : 0, ub = down ? 0 : 10, st = 0;
        int64_t *out = ti_buf(32);
        const void *args[] = {&lb, &ub, &st, &out};
        EXPECT_OK(ti_launch(f, 1, args));
        EXPECT(out[1] == 0, "step 0: %lld trips", (long long)out[1]);
        ti_free_bufs();
    }
}

/* out[pid] = x > 0 ? (x > 10 ? 1 : 2) : 3 with x = pid - 3 as nested ifs with results; then a result-
 * less if storing out[pid + 32] = 7 when pid is even; then a return when pid % 3 == 0 before a last
 * store out[pid + 64] = 9. */
static void test_if(void)
{
    const Type *i32 = sty(SK_I32), *b1 = sty(SK_BOOL), *pt = pty(SK_I32);
    KB k = kb_new(FUNC_KERNEL, "ifs", 1, &pt);
    Value *pid = k_pid(&k, 0);
    Value *x = k_bin(&k, OP_SUB, pid, k_ci(&k, i32, 3));
    Value *c1 = k_cmp(&k, PRED_GT, x, k_ci(&k, i32, 0));
    Op *if1 = b_op(&k.b, OP_IF, &i32, 1, &c1, 1);
    Builder s = begin_region(&k, if1->regions[0]);
    Value *c2 = k_cmp(&k, PRED_GT, x, k_ci(&k, i32, 10));
    Op *if2 = b_op(&k.b, OP_IF, &i32, 1, &c2, 1);
    Builder s2 = begin_region(&k, if2->regions[0]);
    Value *one = k_ci(&k, i32, 1);
    end_region(&k, s2, &one, 1, OP_YIELD);
    s2 = begin_region(&k, if2->regions[1]);
    Value *two = k_ci(&k, i32, 2);
    end_region(&k, s2, &two, 1, OP_YIELD);
    Value *r2 = op_result(if2, 0);
    end_region(&k, s, &r2, 1, OP_YIELD);
    s = begin_region(&k, if1->regions[1]);
    Value *three = k_ci(&k, i32, 3);
    end_region(&k, s, &three, 1, OP_YIELD);
    k_store(&k, k_op(&k, OP_ADDPTR, pt, 2, kb_arg(&k, 0), pid, NULL), op_result(if1, 0), NULL);
    Value *even = k_cmp(&k, PRED_EQ, k_bin(&k, OP_REM, pid, k_ci(&k, i32, 2)), k_ci(&k, i32, 0));
    Op *if3 = b_op(&k.b, OP_IF, NULL, 0, &even, 1);
    s = begin_region(&k, if3->regions[0]);
    k_store(&k, k_op(&k, OP_ADDPTR, pt, 2, kb_arg(&k, 0), k_bin(&k, OP_ADD, pid, k_ci(&k, i32, 32)), NULL),
            k_ci(&k, i32, 7), NULL);
    end_region(&k, s, NULL, 0, OP_YIELD); /* the else region stays empty */
    Value *third = k_cmp(&k, PRED_EQ, k_bin(&k, OP_REM, pid, k_ci(&k, i32, 3)), k_ci(&k, i32, 0));
    Op *if4 = b_op(&k.b, OP_IF, NULL, 0, &third, 1);
    s = begin_region(&k, if4->regions[0]);
    end_region(&k, s, NULL, 0, OP_RETURN);
    k_store(&k, k_op(&k, OP_ADDPTR, pt, 2, kb_arg(&k, 0), k_bin(&k, OP_ADD, pid, k_ci(&k, i32, 64)), NULL),
            k_ci(&k, i32, 9), NULL);
    k_ret(&k);
    (void)b1;
    int32_t *out = ti_buf(96 * 4);
    const void *args[] = {&out};
    EXPECT_OK(ti_launch(k.f, 32, args));
    for (int p = 0; p < 32; p++) {
        int x2 = p - 3;
        EXPECT(out[p] == (x2 > 0 ? (x2 > 10 ? 1 : 2) : 3), "if [%d]: got %d", p, out[p]);
        EXPECT(out[p + 32] == (p % 2 == 0 ? 7 : (int32_t)0xABABABAB), "result-less if [%d]: got %d", p, out[p + 32]);
        EXPECT(out[p + 64] == (p % 3 == 0 ? (int32_t)0xABABABAB : 9), "early return [%d]: got %d", p, out[p + 64]);
    }
    ti_free_bufs();
}

/* Collatz: steps = 0; while (n != 1) { n = n % 2 ? 3n + 1 : n / 2; steps++ } for n = pid + 1. The
 * before region tests the condition and passes (n, steps) on; after computes the next pair. */
static void test_while(void)
{
    const Type *i64 = sty(SK_I64), *pt = pty(SK_I64);
    KB k = kb_new(FUNC_KERNEL, "collatz", 1, &pt);
    Value *n0 = k_bin(&k, OP_ADD, k_cast(&k, k_pid(&k, 0), i64), k_ci(&k, i64, 1));
    Value *inits[2] = {n0, k_ci(&k, i64, 0)};
    const Type *rts[2] = {i64, i64};
    Op *w = b_op(&k.b, OP_WHILE, rts, 2, inits, 2);
    Block *before = w->regions[0], *after = w->regions[1];
    tir_block_add_arg(before, i64, "n");
    tir_block_add_arg(before, i64, "steps");
    tir_block_add_arg(after, i64, "n");
    tir_block_add_arg(after, i64, "steps");
    Builder s = begin_region(&k, before);
    Value *cond = k_cmp(&k, PRED_NE, &before->args[0], k_ci(&k, i64, 1));
    Value *cv[3] = {cond, &before->args[0], &before->args[1]};
    end_region(&k, s, cv, 3, OP_CONDITION);
    s = begin_region(&k, after);
    Value *n = &after->args[0];
    Value *odd = k_cmp(&k, PRED_NE, k_bin(&k, OP_REM, n, k_ci(&k, i64, 2)), k_ci(&k, i64, 0));
    Value *up = k_bin(&k, OP_ADD, k_bin(&k, OP_MUL, n, k_ci(&k, i64, 3)), k_ci(&k, i64, 1));
    Value *down = k_bin(&k, OP_DIV, n, k_ci(&k, i64, 2));
    Value *ys[2] = {k_op(&k, OP_SELECT, i64, 3, odd, up, down), k_bin(&k, OP_ADD, &after->args[1], k_ci(&k, i64, 1))};
    end_region(&k, s, ys, 2, OP_YIELD);
    k_store(&k, k_op(&k, OP_ADDPTR, pt, 2, kb_arg(&k, 0), k_pid(&k, 0), NULL), op_result(w, 1), NULL);
    k_ret(&k);
    int64_t *out = ti_buf(100 * 8);
    const void *args[] = {&out};
    EXPECT_OK(ti_launch(k.f, 100, args));
    for (int p = 0; p < 100; p++) {
        int64_t nn = p + 1, steps = 0;
        while (nn != 1) {
            nn = nn % 2 ? 3 * nn + 1 : nn / 2;
            steps++;
        }
        EXPECT(out[p] == steps, "collatz(%d): got %lld, want %lld", p + 1, (long long)out[p], (long long)steps);
    }
    ti_free_bufs();
}

/* ---- print ---- */

typedef struct Lines {
    char *v[128];
    int n;
} Lines;

static void sink(void *ud, const char *line)
{
    Lines *l = ud;
    if (l->n < 128)
        l->v[l->n++] = strdup(line);
}

static void test_print(void)
{
    const Type *f32 = sty(SK_F32), *pt = pty(SK_F32);
    KB k = kb_new(FUNC_KERNEL, "printer", 1, &pt);
    Value *pid = k_pid(&k, 0);
    /* higher programs are slower, so that with several threads one thread runs programs far apart */
    const Type *i32 = sty(SK_I32);
    k_spin(&k, k_bin(&k, OP_MUL, pid, k_ci(&k, i32, 100000)));
    Op *p1 = b_op(&k.b, OP_PRINT, NULL, 0, &pid, 1);
    p1->at.msg = "pid";
    int64_t s2[2] = {2, 2};
    Value *x = k_load(&k, k_ptrs(&k, kb_arg(&k, 0), k_offs_nd(&k, 2, s2)), NULL, NULL);
    Op *p2 = b_op(&k.b, OP_PRINT, NULL, 0, &x, 1);
    p2->at.msg = "x";
    Value *d = k_cast(&k, k_cf(&k, f32, 0.1), sty(SK_F64));
    Op *p3 = b_op(&k.b, OP_PRINT, NULL, 0, &d, 1);
    p3->at.msg = "d";
    Value *bv = k_cmp(&k, PRED_EQ, pid, k_ci(&k, sty(SK_I32), 1));
    Op *p4 = b_op(&k.b, OP_PRINT, NULL, 0, &bv, 1);
    p4->at.msg = "b";
    Op *p5 = b_op(&k.b, OP_PRINT, NULL, 0, NULL, 0);
    p5->at.msg = "done";
    k_ret(&k);
    float *in = ti_buf(16);
    in[0] = 0.1f, in[1] = -2.0f, in[2] = 1e20f, in[3] = 3.0f;
    for (int threads = 1; threads <= 4; threads += 3) {
        Lines l = {0};
        const void *args[] = {&in};
        InterpLaunch ln = {.kernel = k.f, .args = args, .grid = {8, 1, 1}, .threads = threads, .print_sink = sink,
                           .print_ud = &l};
        EXPECT_OK(interp_launch(&ln, ti_msg, sizeof ti_msg));
        EXPECT(l.n == 8 * 8, "print: %d lines", l.n);
        for (int p = 0; p < 8 && l.n == 64; p++) {
            char want[8][96];
            snprintf(want[0], 96, "pid (%d, 0, 0) pid: %d", p, p);
            snprintf(want[1], 96, "pid (%d, 0, 0) idx (0, 0) x: 0.100000001", p);
            snprintf(want[2], 96, "pid (%d, 0, 0) idx (0, 1) x: -2", p);
            snprintf(want[3], 96, "pid (%d, 0, 0) idx (1, 0) x: 1.00000002e+20", p);
            snprintf(want[4], 96, "pid (%d, 0, 0) idx (1, 1) x: 3", p);
            snprintf(want[5], 96, "pid (%d, 0, 0) d: 0.10000000149011612", p);
            snprintf(want[6], 96, "pid (%d, 0, 0) b: %s", p, p == 1 ? "true" : "false");
            snprintf(want[7], 96, "pid (%d, 0, 0) done", p);
            for (int i = 0; i < 8; i++)
                EXPECT_MSG(l.v[p * 8 + i], want[i]);
        }
        for (int i = 0; i < l.n; i++)
            free(l.v[i]);
    }
    /* without a sink print does nothing */
    const void *args[] = {&in};
    EXPECT_OK(ti_launch(k.f, 8, args));
    ti_free_bufs();
}

/* ---- grid functions ---- */

static void test_grid(void)
{
    const Type *i32 = sty(SK_I32);
    const Type *pt[2] = {i32, i32};
    KB k = kb_new(FUNC_GRID, "matmul_grid", 2, pt);
    Value *gx = k_bin(&k, OP_DIV, k_bin(&k, OP_ADD, kb_arg(&k, 0), k_ci(&k, i32, 63)), k_ci(&k, i32, 64));
    Value *gy = k_bin(&k, OP_DIV, k_bin(&k, OP_ADD, kb_arg(&k, 1), k_ci(&k, i32, 31)), k_ci(&k, i32, 32));
    Value *rs[3] = {gx, gy, k_ci(&k, i32, 1)};
    b_op(&k.b, OP_RETURN, NULL, 0, rs, 3);
    int32_t M = 1000, N = 65;
    const void *args[] = {&M, &N};
    uint32_t g[3] = {0, 0, 0};
    EXPECT_OK(interp_eval_grid(k.f, args, g, ti_msg, sizeof ti_msg));
    EXPECT(g[0] == 16 && g[1] == 3 && g[2] == 1, "grid (%u, %u, %u)", g[0], g[1], g[2]);
    M = -200;
    EXPECT(interp_eval_grid(k.f, args, g, ti_msg, sizeof ti_msg) == INTERP_ERR_INVALID, "negative grid fails");
    EXPECT_MSG(ti_msg, "grid function matmul_grid returned size -2 for axis 0 (a size is 1 .. 2^32 - 1; the grid is "
                       "computed in its parameters' types: a division by zero gives -1, an overflow wraps)");
    /* a kernel is not a grid function and the reverse */
    EXPECT(interp_eval_grid(NULL, args, g, ti_msg, sizeof ti_msg) == INTERP_ERR_INVALID, "NULL grid function");
    InterpLaunch l = {.kernel = k.f, .args = args, .grid = {1, 1, 1}};
    EXPECT(interp_launch(&l, ti_msg, sizeof ti_msg) == INTERP_ERR_INVALID, "grid function launched as a kernel");
}

/* ---- errors ---- */

static void test_errors(void)
{
    const Type *i32 = sty(SK_I32), *pf = pty(SK_F32);
    char want[512];
    /* out of bounds: program 1 reads past a buffer of 64 floats */
    {
        KB k = kb_new(FUNC_KERNEL, "oob_load", 2, (const Type *[]){pf, pf});
        Value *offs = k_offs(&k, 64);
        kb_at(&k, 7, 9);
        Value *x = k_load(&k, k_ptrs(&k, kb_arg(&k, 0), offs), NULL, NULL);
        kb_at(&k, 8, 5);
        k_store(&k, k_ptrs(&k, kb_arg(&k, 1), offs), x, NULL);
        k_ret(&k);
        float *in = ti_buf(64 * 4), *big = ti_buf(256 * 4);
        const void *args[] = {&in, &big};
        for (int rep = 0; rep < 10; rep++) {
            EXPECT(ti_launch3(k.f, 4, 1, 1, args, 2) == INTERP_ERR_ACCESS, "oob load fails");
            snprintf(want, sizeof want, "kernel oob_load, workgroup (1, 0, 0): out-of-bounds load of 4 bytes at %p (test.tile:7:9)",
                     (void *)(in + 64));
            EXPECT_MSG(ti_msg, want);
        }
        /* program 0 stores past the end of 60 floats: nothing of that store happens */
        float *in2 = ti_buf(256 * 4), *out = ti_buf(60 * 4);
        const void *args2[] = {&in2, &out};
        EXPECT(ti_launch3(k.f, 1, 1, 1, args2, 1) == INTERP_ERR_ACCESS, "oob store fails");
        snprintf(want, sizeof want, "kernel oob_load, workgroup (0, 0, 0): out-of-bounds store of 4 bytes at %p (test.tile:8:5)",
                 (void *)(out + 60));
        EXPECT_MSG(ti_msg, want);
        uint32_t bits;
        memcpy(&bits, &out[0], 4);
        EXPECT(bits == 0xABABABABu, "a failing store writes nothing");
        /* misaligned, and a null pointer */
        float *mis = (float *)((char *)in2 + 2);
        const void *args3[] = {&mis, &out};
        EXPECT(ti_launch3(k.f, 1, 1, 1, args3, 1) == INTERP_ERR_ACCESS, "misaligned load fails");
        snprintf(want, sizeof want, "kernel oob_load, workgroup (0, 0, 0): misaligned load of 4 bytes at %p (test.tile:7:9)",
                 (void *)mis);
        EXPECT_MSG(ti_msg, want);
        float *null = NULL;
        const void *args4[] = {&null, &out};
        EXPECT(ti_launch3(k.f, 1, 1, 1, args4, 1) == INTERP_ERR_ACCESS, "null load fails");
        EXPECT_MSG(ti_msg, "kernel oob_load, workgroup (0, 0, 0): out-of-bounds load of 4 bytes at 0x0 (test.tile:7:9)");
        ti_free_bufs();
    }
    /* the lowest failing program is reported, whatever the threads: programs >= 5 all fail */
    {
        KB k = kb_new(FUNC_KERNEL, "many_fail", 1, &pf);
        Value *pid = k_pid(&k, 0);
        Value *off = k_bin(&k, OP_MUL, k_bin(&k, OP_DIV, pid, k_ci(&k, i32, 5)), k_ci(&k, i32, 1000));
        kb_at(&k, 3, 4);
        k_store(&k, k_op(&k, OP_ADDPTR, pf, 2, kb_arg(&k, 0), off, NULL), k_cf(&k, sty(SK_F32), 1), NULL);
        k_ret(&k);
        float *buf = ti_buf(4);
        const void *args[] = {&buf};
        snprintf(want, sizeof want, "kernel many_fail, workgroup (5, 0, 0): out-of-bounds store of 4 bytes at %p (test.tile:3:4)",
                 (void *)(buf + 1000));
        for (int rep = 0; rep < 20; rep++) {
            EXPECT(ti_launch3(k.f, 64, 1, 1, args, rep % 2 ? 2 : 7) == INTERP_ERR_ACCESS, "many fail");
            EXPECT_MSG(ti_msg, want);
        }
        ti_free_bufs();
    }
    /* ... also when the lowest failing program fails last: program 5 spins first */
    {
        KB k = kb_new(FUNC_KERNEL, "slow_fail", 1, &pf);
        Value *pid = k_pid(&k, 0);
        Value *five = k_cmp(&k, PRED_EQ, pid, k_ci(&k, i32, 5));
        k_spin(&k, k_op(&k, OP_SELECT, i32, 3, five, k_ci(&k, i32, 200000), k_ci(&k, i32, 0)));
        Value *off = k_bin(&k, OP_MUL, k_bin(&k, OP_DIV, pid, k_ci(&k, i32, 5)), k_ci(&k, i32, 1000));
        kb_at(&k, 9, 2);
        k_store(&k, k_op(&k, OP_ADDPTR, pf, 2, kb_arg(&k, 0), off, NULL), k_cf(&k, sty(SK_F32), 1), NULL);
        k_ret(&k);
        float *buf = ti_buf(4);
        const void *args[] = {&buf};
        snprintf(want, sizeof want, "kernel slow_fail, workgroup (5, 0, 0): out-of-bounds store of 4 bytes at %p (test.tile:9:2)",
                 (void *)(buf + 1000));
        for (int rep = 0; rep < 3; rep++) {
            EXPECT(ti_launch3(k.f, 64, 1, 1, args, 2) == INTERP_ERR_ACCESS, "slow fail");
            EXPECT_MSG(ti_msg, want);
        }
        ti_free_bufs();
    }
    /* an atomic out of bounds */
    {
        Func *f = atomic_kernel("oob_atomic", SK_I32, KIND_ADD, false, false);
        int32_t *loc = ti_buf(4), *v = ti_buf(64 * 4), *old = ti_buf(64 * 4);
        int32_t *bad = loc + 1;
        const void *args[] = {&bad, &v, &old, &old, &old};
        EXPECT(ti_launch(f, 1, args) == INTERP_ERR_ACCESS, "oob atomic fails");
        snprintf(want, sizeof want, "kernel oob_atomic, workgroup (0, 0, 0): out-of-bounds atomic of 4 bytes at %p (test.tile:1:1)",
                 (void *)bad);
        EXPECT_MSG(ti_msg, want);
        ti_free_bufs();
    }
    /* device_assert and assume */
    {
        KB k = kb_new(FUNC_KERNEL, "asserts", 1, &i32);
        Value *x = k_bin(&k, OP_SUB, k_splat(&k, kb_arg(&k, 0), t1(i32, 16)), k_splat(&k, k_pid(&k, 0), t1(i32, 16)));
        Value *ok = k_cmp(&k, PRED_GT, x, k_arange(&k, 0, 16));
        kb_at(&k, 12, 3);
        Op *a = b_op(&k.b, OP_ASSERT, NULL, 0, &ok, 1);
        a->at.msg = "x must be positive";
        Value *small = k_cmp(&k, PRED_LT, k_pid(&k, 0), k_ci(&k, i32, 40));
        kb_at(&k, 13, 5);
        b_op(&k.b, OP_ASSUME, NULL, 0, &small, 1);
        k_ret(&k);
        int32_t lim = 20; /* program p fails when 20 - p <= 15 */
        const void *args[] = {&lim};
        EXPECT(ti_launch(k.f, 5, args) == INTERP_OK, "asserts hold");
        EXPECT(ti_launch(k.f, 16, args) == INTERP_ERR_ASSERT, "assert fails");
        EXPECT_MSG(ti_msg, "kernel asserts, workgroup (5, 0, 0): assertion failed: x must be positive (test.tile:12:3)");
        lim = 1000;
        EXPECT(ti_launch(k.f, 64, args) == INTERP_ERR_ASSERT, "assume fails");
        EXPECT_MSG(ti_msg, "kernel asserts, workgroup (40, 0, 0): assume failed (test.tile:13:5)");
    }
    /* timeouts: from RK_EMU_TIMEOUT, and from the launch */
    {
        KB k = kb_new(FUNC_KERNEL, "spin", 0, NULL);
        const Type *b1 = sty(SK_BOOL);
        Value *t = k_ci(&k, b1, 1);
        Op *w = b_op(&k.b, OP_WHILE, NULL, 0, NULL, 0);
        Builder s = begin_region(&k, w->regions[0]);
        Value *c = k_un(&k, OP_NOT, k_un(&k, OP_NOT, t));
        end_region(&k, s, &c, 1, OP_CONDITION);
        s = begin_region(&k, w->regions[1]);
        end_region(&k, s, NULL, 0, OP_YIELD);
        k_ret(&k);
        setenv("RK_EMU_TIMEOUT", "1", 1);
        double t0 = now_s();
        EXPECT(ti_launch(k.f, 4, NULL) == INTERP_ERR_TIMEOUT, "timeout");
        double el = now_s() - t0;
        EXPECT_MSG(ti_msg, "kernel spin ran past 1 s (RK_EMU_TIMEOUT)");
        EXPECT(el >= 1.0 && el < 3.0, "timeout after %.2f s", el);
        unsetenv("RK_EMU_TIMEOUT");
        InterpLaunch l = {.kernel = k.f, .grid = {1, 1, 1}, .timeout_s = 0.25};
        EXPECT(interp_launch(&l, ti_msg, sizeof ti_msg) == INTERP_ERR_TIMEOUT, "timeout_s");
        EXPECT_MSG(ti_msg, "kernel spin ran past 0.25 s (RK_EMU_TIMEOUT)");
    }
    /* malformed IR is refused, not run */
    {
        KB k = kb_new(FUNC_KERNEL, "bad_shapes", 0, NULL);
        kb_at(&k, 4, 2);
        k_op(&k, OP_ADD, t1(i32, 8), 2, k_arange(&k, 0, 8), k_arange(&k, 0, 16), NULL);
        k_ret(&k);
        EXPECT(ti_launch(k.f, 1, NULL) == INTERP_ERR_INVALID, "bad shapes");
        EXPECT_MSG(ti_msg, "malformed IR in kernel bad_shapes: 'add' at test.tile:4:2: operand 1 has 16 elements, expected 8");
        KB k2 = kb_new(FUNC_KERNEL, "use_before_def", 0, NULL);
        Value *a = k_ci(&k2, i32, 1);
        Value *b = k_bin(&k2, OP_ADD, a, a);
        tir_unlink(a->def);
        tir_insert_after(b->def, a->def);
        k_ret(&k2);
        EXPECT(ti_launch(k2.f, 1, NULL) == INTERP_ERR_INVALID, "use before def");
        EXPECT_MSG(ti_msg, "malformed IR in kernel use_before_def: 'add' at test.tile:1:1: operand 0 is not defined before it");
        KB k3 = kb_new(FUNC_KERNEL, "missing_arg", 1, &i32);
        k_ret(&k3);
        EXPECT(ti_launch(k3.f, 1, NULL) == INTERP_ERR_INVALID, "missing argument");
        EXPECT_MSG(ti_msg, "argument 0 of missing_arg is missing");
    }
}

/* ---- threads ---- */

typedef struct Conc {
    Func *f;
    const void *const *args;
    InterpStatus st;
} Conc;

static void *conc_run(void *ud)
{
    Conc *c = ud;
    char msg[256];
    InterpLaunch l = {.kernel = c->f, .args = c->args, .grid = {16, 1, 1}, .threads = 2};
    c->st = interp_launch(&l, msg, sizeof msg);
    return NULL;
}

static void test_threads(void)
{
    /* the same atomic kernel with 1, 2 and 7 threads, and two launches of one Func at once */
    Func *f = atomic_kernel("atomic_threads", SK_I64, KIND_ADD, false, false);
    int64_t *loc = ti_buf(8), *v = ti_buf(64 * 64 * 8), *old = ti_buf(64 * 64 * 8);
    for (int i = 0; i < 64 * 64; i++)
        v[i] = (int64_t)(rnd() % 1000);
    int64_t want = 0;
    for (int i = 0; i < 64 * 16; i++)
        want += v[i];
    const void *args[] = {&loc, &v, &old, &old, &old};
    static const int threads[] = {1, 2, 7, 0};
    for (int t = 0; t < COUNT(threads); t++) {
        *loc = 0;
        EXPECT_OK(ti_launch3(f, 16, 1, 1, args, threads[t]));
        EXPECT(*loc == want, "%d threads: %lld, want %lld", threads[t], (long long)*loc, (long long)want);
    }
    *loc = 0;
    Conc c[2] = {{f, args, INTERP_OK}, {f, args, INTERP_OK}};
    pthread_t tid[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&tid[i], NULL, conc_run, &c[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(tid[i], NULL);
    EXPECT(c[0].st == INTERP_OK && c[1].st == INTERP_OK && *loc == 2 * want, "concurrent launches: %lld, want %lld",
           (long long)*loc, (long long)(2 * want));
    ti_free_bufs();
}

int main(int argc, char **argv)
{
    ti_init(argc, argv);
    test_masked();
    test_atomics();
    test_for();
    test_if();
    test_while();
    test_print();
    test_grid();
    test_errors();
    test_threads();
    return ti_finish("test_interp_mem");
}
