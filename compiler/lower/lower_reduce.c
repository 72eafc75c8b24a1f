/* Reductions and scans along an axis.
 *
 * reduce / argreduce work in three steps, read off the operand's linear layout:
 *   1. in a lane: registers whose coordinates differ only along the axis are combined;
 *   2. across lanes: for every lane bit whose basis points along the axis, a butterfly step exchanges
 *      partial results with the lane that differs in that bit (DPP within a row of 16 lanes on gfx9,
 *      else ds_bpermute / shfl: lower_xlane.c);
 *   3. across waves: if wave bits point along the axis, each wave writes its partials to LDS and every
 *      lane combines the waves' partials for the elements it holds (with DPP, where the lowest lane bits
 *      hold one element: each lane reads one wave's partial and the lanes combine them by DPP).
 * The result's layout is the slice of the operand's, so each lane ends up with exactly the elements it
 * needs. argmax/argmin carry an index beside each value (ties: the smaller index; NaN counts as the
 * largest for argmax and the smallest for argmin, like numpy returning the first NaN).
 * Scans (cumsum) are in lower_scan.c; the combining and the cross-lane read are shared through
 * lower_reduce.h. */
#include <string.h>

#include "compiler/lower/lower_internal.h"
#include "compiler/lower/lower_reduce.h"
#include "isa/emu_abi.h"


static LLVMValueRef call_intr(Lower *L, const char *base, LLVMValueRef a, LLVMValueRef b)
{
    LLVMTypeRef t = LLVMTypeOf(a);
    char name[64];
    LLVMTypeKind k = LLVMGetTypeKind(t);
    const char *sfx = k == LLVMHalfTypeKind ? "f16" : k == LLVMFloatTypeKind ? "f32" : k == LLVMDoubleTypeKind ? "f64"
                      : k == LLVMBFloatTypeKind ? "bf16" : NULL;
    if (sfx)
        snprintf(name, sizeof name, "%s.%s", base, sfx);
    else
        snprintf(name, sizeof name, "%s.i%u", base, LLVMGetIntTypeWidth(t));
    LLVMValueRef f = LLVMGetNamedFunction(L->mod, name);
    if (!f) {
        LLVMTypeRef pt[2] = {t, t};
        f = LLVMAddFunction(L->mod, name, LLVMFunctionType(t, pt, 2, 0));
    }
    LLVMValueRef args[2] = {a, b};
    return LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, args, 2, "");
}

Part red_combine(Lower *L, OpKind kind, ScalarKind sk, Part x, Part y)
{
    Part r = {NULL, NULL};
    bool fl = sk_is_float(sk), is_signed = sk_is_signed(sk);
    LLVMValueRef a = fp_up(L, x.v, sk), b = fp_up(L, y.v, sk);
    switch (kind) {
    case KIND_SUM:
        r.v = fl ? LLVMBuildFAdd(L->b, a, b, "") : LLVMBuildAdd(L->b, a, b, "");
        break;
    case KIND_PROD:
        r.v = fl ? LLVMBuildFMul(L->b, a, b, "") : LLVMBuildMul(L->b, a, b, "");
        break;
    case KIND_MAX:
        r.v = fl ? call_intr(L, "llvm.maximum", a, b) : call_intr(L, is_signed ? "llvm.smax" : "llvm.umax", a, b);
        break;
    case KIND_MIN:
        r.v = fl ? call_intr(L, "llvm.minimum", a, b) : call_intr(L, is_signed ? "llvm.smin" : "llvm.umin", a, b);
        break;
    case KIND_MAXNUM: /* max(..., propagate_nan = false): a NaN gives the other */
        r.v = fl ? call_intr(L, "llvm.maximumnum", a, b) : call_intr(L, is_signed ? "llvm.smax" : "llvm.umax", a, b);
        break;
    case KIND_MINNUM:
        r.v = fl ? call_intr(L, "llvm.minimumnum", a, b) : call_intr(L, is_signed ? "llvm.smin" : "llvm.umin", a, b);
        break;
    default: { /* argmax / argmin: take y when it is strictly better, or equal with a smaller index */
        bool mx = kind == KIND_ARGMAX;
        LLVMValueRef better, equal;
        if (fl) {
            LLVMValueRef ynan = LLVMBuildFCmp(L->b, LLVMRealUNO, b, b, "");
            LLVMValueRef xnan = LLVMBuildFCmp(L->b, LLVMRealUNO, a, a, "");
            LLVMValueRef cmp = LLVMBuildFCmp(L->b, mx ? LLVMRealOGT : LLVMRealOLT, b, a, "");
            /* -0 orders below +0, as in max and min (so that x[argmin(x)] is min(x)): equal values
             * of different signs are zeros, and the one with the sign that wins is better */
            LLVMTypeRef ft = LLVMTypeOf(a);
            LLVMTypeKind fk = LLVMGetTypeKind(ft);
            LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, fk == LLVMDoubleTypeKind ? 64 : fk == LLVMFloatTypeKind ? 32 : 16);
            LLVMValueRef zi = LLVMConstInt(it, 0, 0);
            LLVMValueRef sa = LLVMBuildICmp(L->b, LLVMIntSLT, LLVMBuildBitCast(L->b, a, it, ""), zi, "");
            LLVMValueRef sb = LLVMBuildICmp(L->b, LLVMIntSLT, LLVMBuildBitCast(L->b, b, it, ""), zi, "");
            LLVMValueRef oeq = LLVMBuildFCmp(L->b, LLVMRealOEQ, a, b, "");
            LLVMValueRef signs_differ = LLVMBuildXor(L->b, sa, sb, "");
            LLVMValueRef zero_wins = LLVMBuildAnd(L->b, LLVMBuildAnd(L->b, oeq, signs_differ, ""), mx ? sa : sb, "");
            cmp = LLVMBuildOr(L->b, cmp, zero_wins, "");
            better = LLVMBuildOr(L->b, LLVMBuildAnd(L->b, ynan, LLVMBuildNot(L->b, xnan, ""), ""),
                                 LLVMBuildAnd(L->b, cmp, LLVMBuildNot(L->b, xnan, ""), ""), "");
            equal = LLVMBuildOr(L->b, LLVMBuildAnd(L->b, oeq, LLVMBuildNot(L->b, signs_differ, ""), ""),
                                LLVMBuildAnd(L->b, xnan, ynan, ""), "");
        } else {
            better = LLVMBuildICmp(L->b, mx ? (is_signed ? LLVMIntSGT : LLVMIntUGT) : (is_signed ? LLVMIntSLT : LLVMIntULT),
                                   b, a, "");
            equal = LLVMBuildICmp(L->b, LLVMIntEQ, a, b, "");
        }
        LLVMValueRef smaller = LLVMBuildICmp(L->b, LLVMIntSLT, y.idx, x.idx, "");
        LLVMValueRef take = LLVMBuildOr(L->b, better, LLVMBuildAnd(L->b, equal, smaller, ""), "");
        r.v = LLVMBuildSelect(L->b, take, y.v, x.v, ""); /* the original (16-bit) values */
        r.idx = LLVMBuildSelect(L->b, take, y.idx, x.idx, "");
        return r;
    }
    }
    r.v = fp_down(L, r.v, sk);
    return r;
}

/* Cross-lane read of any scalar type, 32 bits at a time. */
LLVMValueRef red_shuffle(Lower *L, LLVMValueRef v, LLVMValueRef src)
{
    LLVMTypeRef t = LLVMTypeOf(v);
    LLVMTypeKind k = LLVMGetTypeKind(t);
    unsigned bits = k == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(t)
                    : k == LLVMDoubleTypeKind ? 64 : k == LLVMFloatTypeKind ? 32 : 16;
    LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, bits);
    LLVMValueRef x = k == LLVMIntegerTypeKind ? v : LLVMBuildBitCast(L->b, v, it, "");
    LLVMValueRef res;
    if (bits <= 32) {
        LLVMValueRef w = bits < 32 ? LLVMBuildZExt(L->b, x, L->i32, "") : x;
        LLVMValueRef s = tgt_shuffle(L, w, src);
        res = bits < 32 ? LLVMBuildTrunc(L->b, s, it, "") : s;
    } else {
        LLVMValueRef lo = LLVMBuildTrunc(L->b, x, L->i32, "");
        LLVMValueRef hi = LLVMBuildTrunc(L->b, LLVMBuildLShr(L->b, x, const_i64(L, 32), ""), L->i32, "");
        lo = LLVMBuildZExt(L->b, tgt_shuffle(L, lo, src), L->i64, "");
        hi = LLVMBuildZExt(L->b, tgt_shuffle(L, hi, src), L->i64, "");
        res = LLVMBuildOr(L->b, lo, LLVMBuildShl(L->b, hi, const_i64(L, 32), ""), "");
    }
    return k == LLVMIntegerTypeKind ? res : LLVMBuildBitCast(L->b, res, t, "");
}

/* f32 max and min across lanes as ordered i32 keys (gfx9 with DPP): a float's bits b map to
 * b ^ ((b >> 31) & 0x7fffffff), whose signed order is the floats' with -0 below +0, and a NaN made
 * the greatest (max: 0x7fc00000) or the least (min: 0xffc00000) key, so that a NaN anywhere wins as
 * maximum and minimum say; for maxnum/minnum (NaN ignored) the other way round, so that a NaN loses
 * to every number and all-NaN gives a NaN. Each cross-lane step is then one v_max_i32 / v_min_i32 (with its DPP
 * move folded in) where llvm.maximum.f32 costs v_max_f32 + v_cmp_o_f32 + v_cndmask_b32. The map is
 * its own inverse. */
static LLVMValueRef key_map(Lower *L, LLVMValueRef b)
{
    LLVMValueRef s = LLVMBuildAnd(L->b, LLVMBuildAShr(L->b, b, const_i32(L, 31), ""), const_i32(L, 0x7fffffff), "");
    return LLVMBuildXor(L->b, b, s, "");
}

static LLVMValueRef key_of(Lower *L, OpKind kind, LLVMValueRef v)
{
    LLVMValueRef nan = LLVMBuildFCmp(L->b, LLVMRealUNO, v, v, "");
    bool top = kind == KIND_MAX || kind == KIND_MINNUM; /* the NaN is the greatest key */
    LLVMValueRef b = LLVMBuildSelect(L->b, nan, const_i32(L, top ? 0x7fc00000 : (int32_t)0xffc00000u),
                                     LLVMBuildBitCast(L->b, v, L->i32, ""), "");
    return key_map(L, b);
}

static LLVMValueRef float_of_key(Lower *L, LLVMValueRef k)
{
    return LLVMBuildBitCast(L->b, key_map(L, k), LLVMFloatTypeInContext(L->ctx), "");
}

/* v is computed in the block being lowered (not a phi): a lane of a packed add costs no move */
static bool here(Lower *L, LLVMValueRef v)
{
    return LLVMIsAInstruction(v) && !LLVMIsAPHINode(v) && LLVMGetInstructionParent(v) == LLVMGetInsertBlock(L->b);
}

int red_elem_bytes(LLVMTypeRef t)
{
    LLVMTypeKind k = LLVMGetTypeKind(t);
    if (k == LLVMIntegerTypeKind)
        return (int)(LLVMGetIntTypeWidth(t) + 7) / 8;
    return k == LLVMDoubleTypeKind ? 8 : k == LLVMFloatTypeKind ? 4 : 2;
}

/* The exchange across waves for the remarks (lds_banks.c): partial (key, wave w) at element key * W + w
 * of the exchange. The coordinates the map is given are those of exchange_layout's layout: the
 * coordinates off the axis give the key (row-major over the result's shape), the axis coordinate the
 * wave's index, or the element of the run a read starts at. */
typedef struct XMap {
    int rank, axis, W;
    int64_t ostride[TIR_MAX_RANK], off;
    int swz; /* >= 0: a write's wave index is XORed with (key >> swz) % W (exchange_swizzle) */
} XMap;

static int64_t xmap_index(const void *map, const int64_t *c)
{
    const XMap *m = map;
    int64_t k = 0;
    for (int d = 0, j = 0; d < m->rank; d++)
        if (d != m->axis)
            k += c[d] * m->ostride[j++];
    return k * m->W + (c[m->axis] ^ (m->swz >= 0 ? k >> m->swz & (m->W - 1) : 0)) + m->off;
}

/* The operand's layout with its axis coordinate replaced, as the exchange addresses it: the wave's
 * index along the axis (the writes: wave bit wbits[i] gives bit i), the lane's among the lowest nwb
 * lane bits (the spread read: lane l reads wave l % W's partial), or none (a lane reading all W). Lanes
 * that differ along the axis hold the same partial after step 2 and write the same address. */
enum { XL_WRITE, XL_READ, XL_SPREAD };

static LinLayout exchange_layout(const LinLayout *ll, int axis, const int *wbits, int nwb, int mode)
{
    LinLayout x = *ll;
    for (int b = 0; b < x.nreg; b++)
        x.reg[b][axis] = 0;
    for (int b = 0; b < x.nlane; b++)
        x.lane[b][axis] = mode == XL_SPREAD && b < nwb ? 1 << b : 0;
    for (int b = 0; b < x.nwarp; b++)
        x.warp[b][axis] = 0;
    for (int i = 0; mode == XL_WRITE && i < nwb; i++)
        x.warp[wbits[i]][axis] = 1 << i;
    return x;
}

/* The exchange's writes of (key, wave w) go to slot position w ^ (key >> swz) % W where that makes
 * them meet in fewer banks (lds_ways, the bank model of the remarks): with the layout [key][wave],
 * chosen so that a lane reads its slot's W partials as one 128-bit read, lanes holding consecutive
 * keys write W slots apart and meet W ways (examples/layernorm.tile's column sums, 4 waves: 4-way);
 * XORing the wave index with the key's bits just above a pass of banks' worth of slots spreads them
 * over every bank, and the reads stay whole slots. The shift, or -1 to leave the layout as it is. */
static int exchange_swizzle(Lower *L, const LinLayout *xw, const int *rep, int nparts, int vb, int64_t base,
                            XMap *m)
{
    int row = 4 * (L->t->lds_banks > 0 ? L->t->lds_banks : 32), chunk = m->W * vb, shift = 0;
    if (m->W < 2 || chunk >= row)
        return -1;
    while (chunk << shift < row)
        shift++;
    int ways[2] = {1, 1};
    for (int k = 0; k < 2; k++) {
        m->swz = k ? shift : -1;
        for (int p = 0; p < nparts; p++) {
            LdsAccess acc = {xw, rep[p], 1, vb, base, xmap_index, m, vb};
            int w = lds_ways(L, &acc);
            ways[k] = w > ways[k] ? w : ways[k];
        }
    }
    m->swz = -1;
    return ways[1] < ways[0] ? shift : -1;
}

/* Notes one access of the exchange for the remarks: `run` partials of `bytes` from register r's key
 * (x from exchange_layout), never narrower than it could be (a partial is alone in its slot). */
static void note_exchange(Lower *L, bool write, const Type *t, const LinLayout *x, int r, int run, int bytes,
                          int64_t base, const XMap *m)
{
    LdsAccess acc = {x, r, run, bytes, base, xmap_index, m, run * bytes};
    lds_note(L, write, t, &acc);
}

void lower_reduce(Lower *L, Op *op)
{
    if (op->code == OP_SCAN) {
        lower_scan(L, op);
        return;
    }
    const Type *it = op->operands[0]->type, *rt = op->results[0].type;
    const LayInfo *li = lay_info(L, it);
    const LinLayout *ll = &li->ll;
    int axis = (int)op->at.axis;
    OpKind kind = (OpKind)op->at.kind;
    bool arg = op->code == OP_ARGREDUCE;
    ScalarKind sg = ty_elem(it)->sk;
    LVal *in = lval(L, op->operands[0]);
    /* output shape (the operand's without the axis) and its row-major strides */
    int orank = it->rank - 1;
    int64_t oshape[TIR_MAX_RANK], ostride[TIR_MAX_RANK];
    for (int d = 0, k = 0; d < it->rank; d++)
        if (d != axis)
            oshape[k++] = it->shape[d];
    int64_t onumel = 1;
    for (int d = orank - 1; d >= 0; d--) {
        ostride[d] = onumel;
        onumel *= oshape[d];
    }
    /* 1. within the lane: one partial per distinct reg-part output coordinate (float sums where the
     * target contracts, on gfx9: a tree, below) */
    bool tree = kind == KIND_SUM && sk_is_float(sg) && L->t->fp_contract && xlane_has_dpp(L);
    bool products = false;
    for (int r = 0; tree && r < in->n; r++) {
        LLVMValueRef v = in->r[r];
        if (LLVMIsAExtractElementInst(v)) /* a lane of a packed product (lower_fpmath.c's pairs) */
            v = LLVMGetOperand(v, 0);
        products |= LLVMIsAInstruction(v) && LLVMGetInstructionOpcode(v) == LLVMFMul;
    }
    bool across_waves = false, barrier_placed = false;
    for (int b = 0; b < ll->nwarp; b++)
        across_waves |= ll->warp[b][axis] != 0;
    /* packed adds only for sums across waves (the row-wise losses and softmaxes): in attention's
     * row sums within a wave, beside the MFMAs, LLVM's packing of the exps moved the loop's waits
     * (bench/vs_triton attention 3324 -> 3980 cycles) */
    bool packed = tree && !products && sg == SK_F32 && across_waves;
    tree &= products || packed;
    int nregs = in->n;
    /* the barrier before step 3's LDS writes (the exchange's previous readers are done) may come
     * first, where the target places it above the work before the reduction, in the loads' shadow
     * (lds_barrier_early; nothing of steps 1 and 2 touches LDS); else right before the writes */
    if (across_waves)
        barrier_placed = tgt_lds_barrier_early(L);
    int *key = ARENA_ARRAY(L->a, int, nregs + 1);
    Part *parts = ARENA_ARRAY(L->a, Part, nregs + 1);
    int nparts = 0;
    int *part_of_key = NULL;
    int64_t keyspace = onumel;
    part_of_key = ARENA_ARRAY(L->a, int, keyspace + 1);
    for (int64_t k = 0; k < keyspace; k++)
        part_of_key[k] = -1;
    for (int r = 0; r < nregs; r++) {
        int64_t c[TIR_MAX_RANK];
        lin_reg_coords(ll, r, c);
        int64_t k = 0;
        for (int d = 0, j = 0; d < it->rank; d++)
            if (d != axis)
                k += c[d] * ostride[j++];
        key[r] = (int)k;
        Part x = {in->r[r], NULL};
        if (arg)
            x.idx = reg_coord(L, li, r, axis);
        if (part_of_key[k] < 0) {
            part_of_key[k] = nparts;
            parts[nparts++] = x;
        } else if (!tree) {
            Part *p = &parts[part_of_key[k]];
            *p = red_combine(L, kind, sg, *p, x);
        }
    }
    /* float sums where the target contracts (lower_fpmath.c) and the wave has DPP (gfx942 and its
     * emulator): each partial as a balanced tree of adds over its registers, the first half's
     * register i added to the second half's i at each level, so that neighbouring registers stay
     * neighbours.
     * - Sums of products (a register an fmul, or a lane of one: lower_fpmath.c multiplies pairs of
     *   registers as <2 x float>, as it does for values from buffer loads): a product and its
     *   partner's sum fuse into one v_pk_fma_f32 (KL divergence's sum(t * (log t - p)): 12 multiplies
     *   and adds in a chain become 6 packed ones, as Triton's).
     * - Other f32 sums: each level's adds two at a time as one <2 x float> add (v_pk_add_f32), where
     *   the four registers are computed in this block (a phi's would need moves into pairs): 8
     *   registers take 3 packed adds and 1 add instead of 7, and LLVM then packs the work that
     *   computes them (cross-entropy's sum(exp(x - m)): exp's range reduction as v_pk_fma_f32 and
     *   v_pk_mul_f32, loop 1 1660 -> 1568 cycles by the loop model; examples/attention 3692 -> 3620).
     *   A tree of scalar adds saved nothing and moved attention's waits (3144 -> 3204 once). */
    if (tree) {
        LLVMValueRef *leaf = ARENA_ARRAY(L->a, LLVMValueRef, nregs + 1);
        for (int p = 0; p < nparts; p++) {
            int nl = 0;
            for (int r = 0; r < nregs; r++)
                if (part_of_key[key[r]] == p)
                    leaf[nl++] = in->r[r];
            for (int h; nl > 1; nl = h) {
                h = (nl + 1) / 2;
                int i = 0;
                for (; packed && i + 1 < h && i + 1 + h < nl && here(L, leaf[i]) && here(L, leaf[i + 1]) &&
                       here(L, leaf[i + h]) && here(L, leaf[i + 1 + h]);
                     i += 2) {
                    LLVMValueRef x[2] = {leaf[i], leaf[i + 1]}, y[2] = {leaf[i + h], leaf[i + 1 + h]};
                    LLVMValueRef sum2 = fpmath_contract(L, LLVMBuildFAdd(L->b, vector_of(L, L->f32, x, 2),
                                                                         vector_of(L, L->f32, y, 2), ""));
                    leaf[i] = LLVMBuildExtractElement(L->b, sum2, const_i32(L, 0), "");
                    leaf[i + 1] = LLVMBuildExtractElement(L->b, sum2, const_i32(L, 1), "");
                }
                for (; i + h < nl; i++) {
                    Part a = {leaf[i], NULL}, b = {leaf[i + h], NULL};
                    leaf[i] = fpmath_contract(L, red_combine(L, kind, sg, a, b).v);
                }
            }
            parts[p].v = leaf[0];
        }
    }
    /* f32 max and min cross lanes and waves as ordered i32 keys where the wave has DPP (key_of) and
     * there are at least 4 steps to cross (lane and wave bits along the axis): each saves 2
     * instructions a partial, the keys cost 6 (3 to make, 3 to read back) */
    int steps = 0;
    for (int b = 0; b < ll->nlane; b++)
        steps += ll->lane[b][axis] != 0;
    for (int b = 0; b < ll->nwarp; b++)
        steps += ll->warp[b][axis] != 0;
    bool keyed = (kind == KIND_MAX || kind == KIND_MIN || kind == KIND_MAXNUM || kind == KIND_MINNUM) && sg == SK_F32 && xlane_has_dpp(L) && steps >= 4;
    if (keyed)
        for (int p = 0; p < nparts; p++)
            parts[p].v = key_of(L, kind, parts[p].v);
    ScalarKind sx = keyed ? SK_I32 : sg; /* the kind the partials combine in from here */
    /* 2. across lanes, a butterfly over the lane bits along the axis (lower_xlane.c: DPP within a row
     * of 16 lanes where the wave has it); on a 64-lane gfx9 wave whose two row bits both point along
     * the axis, once the rows are reduced, row 0's combines with row 1's and row 2's with row 3's in
     * rows 1 and 3 (row_bcast:15), the two pairs in row 3 (row_bcast:31), and lane 63's is read as a
     * uniform value (v_readlane_b32): the order of a butterfly, in 2 DPP moves, 2 combines and 1 read
     * where reading the four rows took 4 reads and 3 combines */
    unsigned uniform = 0; /* lane bits across which the partials are the same */
    for (int b = 0; b < ll->nlane; b++) {
        bool zero = true;
        for (int d = 0; d < it->rank; d++)
            zero &= ll->lane[b][d] == 0;
        if (zero)
            uniform |= 1u << b;
    }
    bool rows = xlane_has_dpp(L) && ll->nlane == 6 && ll->lane[4][axis] && ll->lane[5][axis];
    for (int b = 0; b < ll->nlane; b++) {
        if (!ll->lane[b][axis])
            continue;
        if (rows && b == 4 && (uniform & 15) == 15) {
            for (int p = 0; p < nparts; p++) {
                Part x = parts[p];
                for (int last = 15; last <= 31; last += 16) {
                    Part t = {xlane_bcast(L, x.v, last), arg ? xlane_bcast(L, x.idx, last) : NULL};
                    x = red_combine(L, kind, sx, t, x);
                }
                parts[p] = (Part){xlane_read(L, x.v, 63), arg ? xlane_read(L, x.idx, 63) : NULL};
            }
            break;
        }
        for (int p = 0; p < nparts; p++) {
            Part o = {xlane_xor(L, parts[p].v, b, uniform), arg ? xlane_xor(L, parts[p].idx, b, uniform) : NULL};
            parts[p] = red_combine(L, kind, sx, parts[p], o);
        }
        uniform |= 1u << b;
    }
    /* 3. across waves, through LDS */
    int wbits[LAY_MAX_WARP_BITS], nwb = 0;
    for (int b = 0; b < ll->nwarp; b++)
        if (ll->warp[b][axis])
            wbits[nwb++] = b;
    if (nwb) {
        int W = 1 << nwb;
        LLVMTypeRef vt = LLVMTypeOf(parts[0].v);
        int vb = red_elem_bytes(vt);
        /* values, then the indices after all values at a 4-byte boundary (sm_90 faults on a misaligned
         * 4-byte access: argmin of i8 once put them 2 bytes in) */
        int64_t ioff = (onumel * W * vb + 3) / 4 * 4;
        int64_t need = arg ? ioff + onumel * W * 4 : onumel * W * vb;
        int base = (lds_free_offset(L) + 7) / 8 * 8;
        if (base + need > L->lds_limit) {
            lower_error(L, "this reduction needs %lld bytes of LDS, more than the %d available", (long long)need,
                        L->lds_limit);
            return;
        }
        if (base + need > L->lds_bytes)
            L->lds_bytes = (int)(base + need);
        LLVMValueRef widx = const_i32(L, 0);
        for (int i = 0; i < nwb; i++) {
            LLVMValueRef bit = LLVMBuildAnd(L->b, LLVMBuildLShr(L->b, L->warp, const_i32(L, wbits[i]), ""), const_i32(L, 1), "");
            widx = LLVMBuildOr(L->b, widx, LLVMBuildShl(L->b, bit, const_i32(L, i), ""), "");
        }
        /* the full output index of each partial: its key plus this lane's coordinates off the axis */
        LLVMValueRef lanekey = const_i32(L, 0);
        for (int d = 0, j = 0; d < it->rank; d++)
            if (d != axis) {
                lanekey = LLVMBuildAdd(L->b, lanekey, LLVMBuildMul(L->b, li->lane_coord[d], const_i32(L, ostride[j]), ""), "");
                j++;
            }
        LLVMValueRef *slot = ARENA_ARRAY(L->a, LLVMValueRef, nparts + 1);
        int64_t kk = 0;
        for (int64_t k = 0; k < keyspace; k++) {
            int p = part_of_key[k];
            if (p < 0)
                continue;
            (void)kk;
            slot[p] = LLVMBuildAdd(L->b, lanekey, const_i32(L, k), "");
        }
        /* with DPP, and when the lowest nwb lane bits hold one output element (replicated, or along the
         * axis), lane l reads only wave l % W's partial and the W partials are combined across those
         * lane bits (lower_xlane.c): one LDS read per lane instead of W */
        bool spread = xlane_has_dpp(L) && nwb <= 4 && nwb <= ll->nlane;
        for (int b = 0; spread && b < nwb; b++)
            for (int d = 0; d < it->rank; d++)
                spread &= d == axis || ll->lane[b][d] == 0;
        XMap xm = {it->rank, axis, W, {0}, 0, -1};
        memcpy(xm.ostride, ostride, sizeof ostride);
        int *rep = ARENA_ARRAY(L->a, int, nparts + 1);
        for (int r = nregs - 1; r >= 0; r--)
            rep[part_of_key[key[r]]] = r;
        LinLayout xw = exchange_layout(ll, axis, wbits, nwb, XL_WRITE);
        int swz = spread ? -1 : exchange_swizzle(L, &xw, rep, nparts, vb, base, &xm);
        if (!barrier_placed)
            tgt_barrier(L);
        LLVMBasicBlockRef copies = copies_begin(L, &li->ll);
        for (int p = 0; p < nparts; p++) {
            LLVMValueRef w = widx;
            if (swz >= 0)
                w = LLVMBuildXor(L->b, w, LLVMBuildAnd(L->b, LLVMBuildLShr(L->b, slot[p], const_i32(L, swz), ""),
                                                       const_i32(L, W - 1), ""), "");
            LLVMValueRef e = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, slot[p], const_i32(L, W), ""), w, "");
            LLVMValueRef ptr = tgt_lds_ptr(L, LLVMBuildAdd(L->b, LLVMBuildMul(L->b, e, const_i32(L, vb), ""), const_i32(L, base), ""));
            tgt_check(L, ptr, vb, EMU_ACCESS_STORE | EMU_ACCESS_LDS);
            LLVMBuildStore(L->b, parts[p].v, ptr);
            if (arg) {
                LLVMValueRef ip = tgt_lds_ptr(L, LLVMBuildAdd(L->b, const_i32(L, base + (int)ioff),
                                                               LLVMBuildMul(L->b, e, const_i32(L, 4), ""), ""));
                tgt_check(L, ip, 4, EMU_ACCESS_STORE | EMU_ACCESS_LDS);
                LLVMBuildStore(L->b, parts[p].idx, ip);
            }
        }
        copies_end(L, copies);
        /* the remarks: each partial's write, and the reads below as the lowering emits them (LLVM joins
         * a lane's W consecutive reads into pieces of up to 128 bits, as aligned as base and a slot) */
        if (L->o->remarks) {
            xm.swz = swz;
            for (int p = 0; p < nparts; p++) {
                note_exchange(L, true, it, &xw, rep[p], 1, vb, base, &xm);
                if (arg)
                    note_exchange(L, true, it, &xw, rep[p], 1, 4, base + ioff, &xm);
            }
        }
        tgt_barrier(L);
        xm.swz = -1; /* a lane reads its slot's W partials whole */
        if (L->o->remarks) {
            LinLayout xr = exchange_layout(ll, axis, wbits, nwb, spread ? XL_SPREAD : XL_READ);
            for (int p = 0; p < nparts; p++)
                for (int k = 0; k < 1 + arg; k++) {
                    int eb = k ? 4 : vb;
                    int64_t at = k ? base + ioff : base;
                    int piece = spread ? eb : W * eb < 16 ? W * eb : 16;
                    while (!spread && piece > eb && (at & (piece - 1)))
                        piece /= 2;
                    for (xm.off = 0; xm.off < (spread ? 1 : W); xm.off += piece / eb)
                        note_exchange(L, false, it, &xr, rep[p], piece / eb, eb, at, &xm);
                }
            xm.off = 0;
        }
        for (int p = 0; spread && p < nparts; p++) {
            LLVMValueRef e = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, slot[p], const_i32(L, W), ""),
                                          LLVMBuildAnd(L->b, L->lane, const_i32(L, W - 1), ""), "");
            LLVMValueRef ptr = tgt_lds_ptr(L, LLVMBuildAdd(L->b, LLVMBuildMul(L->b, e, const_i32(L, vb), ""), const_i32(L, base), ""));
            tgt_check(L, ptr, vb, EMU_ACCESS_LOAD | EMU_ACCESS_LDS);
            Part x = {LLVMBuildLoad2(L->b, vt, ptr, ""), NULL};
            if (arg) {
                LLVMValueRef ip = tgt_lds_ptr(L, LLVMBuildAdd(L->b, const_i32(L, base + (int)ioff),
                                                               LLVMBuildMul(L->b, e, const_i32(L, 4), ""), ""));
                tgt_check(L, ip, 4, EMU_ACCESS_LOAD | EMU_ACCESS_LDS);
                x.idx = LLVMBuildLoad2(L->b, L->i32, ip, "");
            }
            for (int b = 0; b < nwb; b++) {
                unsigned done = (1u << b) - 1;
                Part o = {xlane_xor(L, x.v, b, done), arg ? xlane_xor(L, x.idx, b, done) : NULL};
                x = red_combine(L, kind, sx, x, o);
            }
            parts[p] = x;
        }
        Part *got = ARENA_ARRAY(L->a, Part, W);
        for (int p = 0; !spread && p < nparts; p++) {
            Part acc = {NULL, NULL};
            for (int w = 0; w < W; w++) {
                LLVMValueRef e = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, slot[p], const_i32(L, W), ""), const_i32(L, w), "");
                LLVMValueRef ptr = tgt_lds_ptr(L, LLVMBuildAdd(L->b, LLVMBuildMul(L->b, e, const_i32(L, vb), ""), const_i32(L, base), ""));
                tgt_check(L, ptr, vb, EMU_ACCESS_LOAD | EMU_ACCESS_LDS);
                Part x = {LLVMBuildLoad2(L->b, vt, ptr, ""), NULL};
                if (arg) {
                    LLVMValueRef ip = tgt_lds_ptr(L, LLVMBuildAdd(L->b, const_i32(L, base + (int)ioff),
                                                                   LLVMBuildMul(L->b, e, const_i32(L, 4), ""), ""));
                    tgt_check(L, ip, 4, EMU_ACCESS_LOAD | EMU_ACCESS_LDS);
                    x.idx = LLVMBuildLoad2(L->b, L->i32, ip, "");
                }
                got[w] = x;
                acc = w == 0 ? x : swz >= 0 ? acc : red_combine(L, kind, sx, acc, x);
            }
            /* swizzled, slot position w holds wave w ^ f of a lane's f: a butterfly over the positions'
             * bits combines the same pairs whatever f is (the combines commute), so every lane's result
             * is the same function of the waves' partials */
            for (int b = 0; swz >= 0 && b < nwb; b++)
                for (int w = 0; w < W; w++)
                    if (!(w >> b & 1))
                        got[w] = red_combine(L, kind, sx, got[w], got[w | 1 << b]);
            parts[p] = swz >= 0 ? got[0] : acc;
        }
    }
    if (keyed)
        for (int p = 0; p < nparts; p++)
            parts[p].v = float_of_key(L, parts[p].v);
    /* the result: each output register from the partial of its coordinates */
    if (rt->kind != TY_TILE) {
        LVal out = lval_new(L, 1, NULL);
        out.r[0] = arg ? parts[0].idx : parts[0].v;
        lval_set(L, op_result(op, 0), out);
        return;
    }
    const LayInfo *oi = lay_info(L, rt);
    LVal out = lval_new(L, lin_nregs(&oi->ll), &oi->ll);
    for (int r = 0; r < out.n; r++) {
        int64_t c[TIR_MAX_RANK];
        lin_reg_coords(&oi->ll, r, c);
        int64_t k = 0;
        for (int d = 0; d < orank; d++)
            k += c[d] * ostride[d];
        int p = k < keyspace ? part_of_key[k] : -1;
        if (p < 0) {
            lower_error(L, "internal error: reduce result layout %s does not match its operand's",
                        lay_str(L->a, rt->layout));
            return;
        }
        out.r[r] = arg ? parts[p].idx : parts[p].v;
    }
    lval_set(L, op_result(op, 0), out);
}
