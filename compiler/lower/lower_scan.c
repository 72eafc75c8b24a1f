/* Scans (cumsum, cumprod, cummax, cummin) along an axis as log-step networks, read off the operand's
 * linear layout.
 *
 * rk's layouts are separable (compiler/layout/layout.h): the coordinate along the axis is a sum of
 * distinct powers of two, each coming from one register bit, lane bit or wave bit. Taking those axis
 * bits from the least significant up:
 *   1. the lowest ones that are register bits make runs of consecutive elements in one lane's
 *      registers: each run is scanned serially in registers, its last value being the run's total;
 *   2. every further bit is a step of the hypercube scan: each run knows the total t of its block (the
 *      elements agreeing with it in all higher axis bits) and the combined value p of the blocks before
 *      it; the partner block (the bit flipped) is another register (compile time), another lane (one
 *      cross-lane read, lower_xlane.c: DPP within a row of 16 lanes on gfx942, else ds_bpermute; shfl
 *      on sm_90) or another wave; the upper block adds
 *      the partner's t to its p, and both add it to t;
 *   3. consecutive wave bits are one step group through LDS: every wave writes its t at the runs'
 *      element offsets, and after one barrier reads the t of the 2^G waves of its group.
 * Finally every element is p combined with its in-run prefix. No loop: the code is straight-line, with
 * log2(lanes along the axis) cross-lane reads per run.
 *
 * A reverse scan is the same network on the reversed coordinate, whose bits are the axis bits
 * flipped: runs are scanned from their last register down, and at every step the block with the bit
 * clear is the upper one (the lane's bit clear, the register without the bit, the waves after this
 * one), so it costs nothing more. An exclusive scan ends with p combined with the in-run prefix before
 * the element (the identity when there is nothing before: +0 for a float sum, not the -0 the inclusive
 * network starts from, so that the first element reads 0). */
#include "compiler/lower/lower_reduce.h"
#include "isa/emu_abi.h"

/* x combined with y; a NULL x stands for the identity (nothing before) */
static LLVMValueRef join(Lower *L, OpKind kind, ScalarKind sk, LLVMValueRef x, LLVMValueRef y)
{
    if (!x)
        return y;
    Part a = {x, NULL}, b = {y, NULL};
    return red_combine(L, kind, sk, a, b).v;
}

/* the identity of kind in type et: -0 for a float sum (x + -0 is x, for x = -0 too), 1 for a product,
 * the least value for max (-inf: maximum(-inf, NaN) is NaN, maximum(-inf, -0) is -0), the greatest for
 * min */
static LLVMValueRef identity(Lower *L, OpKind kind, ScalarKind sk, LLVMTypeRef et)
{
    bool fl = sk_is_float(sk);
    switch (kind) {
    case KIND_PROD: return fl ? fp_const(L, 1.0, sk) : LLVMConstInt(et, 1, 0);
    case KIND_MAX:
        if (fl)
            return fp_const(L, -__builtin_inf(), sk);
        return sk_is_signed(sk) ? LLVMConstInt(et, 1ull << (LLVMGetIntTypeWidth(et) - 1), 0) : LLVMConstInt(et, 0, 0);
    case KIND_MIN:
        if (fl)
            return fp_const(L, __builtin_inf(), sk);
        return sk_is_signed(sk) ? LLVMConstInt(et, (1ull << (LLVMGetIntTypeWidth(et) - 1)) - 1, 0)
                                : LLVMConstAllOnes(et);
    default: return fl ? fp_const(L, -0.0, sk) : LLVMConstInt(et, 0, 0);
    }
}

/* which id bit gives each power 2^j of the axis coordinate */
enum { SRC_REG, SRC_LANE, SRC_WARP };
typedef struct AxisBit {
    int src, bit;
} AxisBit;

static bool axis_bits(const LinLayout *ll, int axis, int nbits, AxisBit *ab)
{
    for (int j = 0; j < nbits; j++)
        ab[j].src = -1;
    const int32_t(*bases[3])[LAY_MAX_RANK] = {ll->reg, ll->lane, ll->warp};
    int n[3] = {ll->nreg, ll->nlane, ll->nwarp};
    for (int s = 0; s < 3; s++)
        for (int b = 0; b < n[s]; b++) {
            int32_t v = bases[s][b][axis];
            if (!v)
                continue;
            int j = __builtin_ctz((unsigned)v);
            if ((v & (v - 1)) || j >= nbits || ab[j].src >= 0)
                return false;
            ab[j] = (AxisBit){s, b};
        }
    for (int j = 0; j < nbits; j++)
        if (ab[j].src < 0)
            return false;
    return true;
}

void lower_scan(Lower *L, Op *op)
{
    const Type *t = op->operands[0]->type;
    const LayInfo *li = lay_info(L, t);
    const LinLayout *ll = &li->ll;
    LVal *in = lval(L, op->operands[0]);
    int axis = (int)op->at.axis;
    OpKind kind = (OpKind)op->at.kind;
    ScalarKind sk = ty_elem(t)->sk;
    LLVMTypeRef et = llvm_type(L, t);
    int nbits = __builtin_ctzll((unsigned long long)t->shape[axis]);
    bool rev = op->at.reverse, excl = op->at.exclusive;
    LLVMValueRef ident = excl && kind == KIND_SUM && sk_is_float(sk) ? fp_const(L, 0.0, sk) : identity(L, kind, sk, et);
    AxisBit ab[64];
    if (!axis_bits(ll, axis, nbits, ab)) {
        lower_error(L, "internal error: scan layout %s is not separable along axis %d", lay_str(L->a, t->layout), axis);
        return;
    }
    int n = in->n;
    /* 1. runs: the lowest m axis bits are register bits */
    int m = 0, runmask = 0;
    while (m < nbits && ab[m].src == SRC_REG)
        runmask |= 1 << ab[m++].bit;
    LVal out = lval_new(L, n, in->ll);
    LLVMValueRef *tot = ARENA_ARRAY(L->a, LLVMValueRef, n + 1); /* per run, indexed by its first register */
    LLVMValueRef *pre = ARENA_ARRAY(L->a, LLVMValueRef, n + 1); /* NULL: nothing before */
    LLVMValueRef *before = ARENA_ARRAY(L->a, LLVMValueRef, n + 1); /* exclusive: the in-run prefix, NULL */
    for (int r = 0; r < n; r++) {
        if (r & runmask)
            continue;
        LLVMValueRef acc = NULL;
        for (int i = 0; i < (1 << m); i++) {
            int k = rev ? (1 << m) - 1 - i : i, reg = r;
            for (int j = 0; j < m; j++)
                if (k >> j & 1)
                    reg |= 1 << ab[j].bit;
            before[reg] = acc;
            acc = join(L, kind, sk, acc, in->r[reg]);
            out.r[reg] = acc;
        }
        tot[r] = acc;
        pre[r] = NULL;
    }
    /* 2. and 3. the hypercube over the remaining axis bits; uniform: the lane bits across which the
     * totals are the same (replicated lanes, and lane bits of axis bits already done) */
    unsigned uniform = 0;
    for (int b = 0; b < ll->nlane; b++) {
        bool zero = true;
        for (int d = 0; d < t->rank; d++)
            zero &= ll->lane[b][d] == 0;
        if (zero)
            uniform |= 1u << b;
    }
    for (int j = m; j < nbits;) {
        if (ab[j].src == SRC_REG) {
            int bit = 1 << ab[j].bit;
            for (int r = 0; r < n; r++) {
                if ((r & runmask) || (r & bit))
                    continue;
                int lo = rev ? r | bit : r, hi = rev ? r : r | bit; /* hi comes after lo */
                LLVMValueRef both = join(L, kind, sk, tot[lo], tot[hi]);
                pre[hi] = pre[hi] ? join(L, kind, sk, tot[lo], pre[hi]) : tot[lo];
                tot[r] = tot[r | bit] = both;
            }
            j++;
        } else if (ab[j].src == SRC_LANE) {
            int b = ab[j].bit;
            LLVMValueRef upper = LLVMBuildTrunc(L->b, LLVMBuildLShr(L->b, L->lane, const_i32(L, b), ""),
                                                LLVMInt1TypeInContext(L->ctx), "");
            if (rev)
                upper = LLVMBuildNot(L->b, upper, "");
            for (int r = 0; r < n; r++) {
                if (r & runmask)
                    continue;
                LLVMValueRef o = xlane_xor(L, tot[r], b, uniform);
                LLVMValueRef np = pre[r] ? join(L, kind, sk, o, pre[r]) : o;
                pre[r] = LLVMBuildSelect(L->b, upper, np, pre[r] ? pre[r] : ident, "");
                tot[r] = join(L, kind, sk, tot[r], o);
            }
            uniform |= 1u << b;
            j++;
        } else {
            /* a group of consecutive wave bits j .. j+G-1: one exchange through LDS */
            int G = 0;
            while (j + G < nbits && ab[j + G].src == SRC_WARP)
                G++;
            int W = 1 << G;
            int eb = red_elem_bytes(et);
            int64_t need = ty_numel(t) * eb;
            int base = lds_free_offset(L);
            if (base + need > L->lds_limit) {
                lower_error(L, "this scan needs %lld bytes of LDS, more than the %d available", (long long)need,
                            L->lds_limit - base);
                return;
            }
            if (base + need > L->lds_bytes)
                L->lds_bytes = (int)(base + need);
            int64_t stride[TIR_MAX_RANK], s = 1;
            for (int d = t->rank - 1; d >= 0; d--) {
                stride[d] = s;
                s *= t->shape[d];
            }
            int gmask = (W - 1) << j;
            /* each run's element offset without the group's bits, and this wave's place in the group */
            LLVMValueRef *off = ARENA_ARRAY(L->a, LLVMValueRef, n + 1);
            LLVMValueRef mine = NULL;
            for (int r = 0; r < n; r++) {
                if (r & runmask)
                    continue;
                LLVMValueRef idx = const_i32(L, 0);
                for (int d = 0; d < t->rank; d++) {
                    LLVMValueRef c = reg_coord(L, li, r, d);
                    if (d == axis) {
                        if (!mine)
                            mine = LLVMBuildLShr(L->b, LLVMBuildAnd(L->b, c, const_i32(L, gmask), ""), const_i32(L, j), "");
                        c = LLVMBuildAnd(L->b, c, const_i32(L, ~gmask), "");
                    }
                    idx = LLVMBuildAdd(L->b, idx, LLVMBuildMul(L->b, c, const_i32(L, stride[d]), ""), "");
                }
                off[r] = idx;
            }
            LLVMValueRef *mineoff = ARENA_ARRAY(L->a, LLVMValueRef, W);
            for (int w = 0; w < W; w++)
                mineoff[w] = const_i32(L, ((int64_t)w << j) * stride[axis]);
            LLVMValueRef myoff = LLVMBuildMul(L->b, LLVMBuildShl(L->b, mine, const_i32(L, j), ""),
                                              const_i32(L, stride[axis]), "");
            tgt_barrier(L);
            LLVMBasicBlockRef copies = copies_begin(L, ll);
            for (int r = 0; r < n; r++) {
                if (r & runmask)
                    continue;
                LLVMValueRef e = LLVMBuildAdd(L->b, off[r], myoff, "");
                LLVMValueRef p = tgt_lds_ptr(L, LLVMBuildAdd(L->b, LLVMBuildMul(L->b, e, const_i32(L, eb), ""),
                                                             const_i32(L, base), ""));
                tgt_check(L, p, eb, EMU_ACCESS_STORE | EMU_ACCESS_LDS);
                LLVMBuildStore(L->b, tot[r], p);
            }
            copies_end(L, copies);
            tgt_barrier(L);
            for (int r = 0; r < n; r++) {
                if (r & runmask)
                    continue;
                LLVMValueRef all = NULL, prior = ident;
                for (int w = 0; w < W; w++) {
                    LLVMValueRef e = LLVMBuildAdd(L->b, off[r], mineoff[w], "");
                    LLVMValueRef p = tgt_lds_ptr(L, LLVMBuildAdd(L->b, LLVMBuildMul(L->b, e, const_i32(L, eb), ""),
                                                                 const_i32(L, base), ""));
                    tgt_check(L, p, eb, EMU_ACCESS_LOAD | EMU_ACCESS_LDS);
                    LLVMValueRef x = LLVMBuildLoad2(L->b, et, p, "");
                    all = join(L, kind, sk, all, x);
                    if (rev ? w > 0 : w < W - 1) { /* wave w comes before this one */
                        LLVMValueRef earlier = LLVMBuildICmp(L->b, rev ? LLVMIntUGT : LLVMIntULT, const_i32(L, w), mine, "");
                        prior = LLVMBuildSelect(L->b, earlier, join(L, kind, sk, prior, x), prior, "");
                    }
                }
                pre[r] = pre[r] ? join(L, kind, sk, prior, pre[r]) : prior;
                tot[r] = all;
            }
            j += G;
        }
    }
    for (int r = 0; r < n; r++) {
        LLVMValueRef p = pre[r & ~runmask], v = excl ? before[r] : out.r[r];
        out.r[r] = p && v ? join(L, kind, sk, p, v) : p ? p : v ? v : ident;
    }
    lval_set(L, op_result(op, 0), out);
}
