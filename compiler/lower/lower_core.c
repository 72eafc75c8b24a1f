/* The lowering's skeleton: the kernel signature, value numbering, per-layout coordinates, structured
 * control flow turned into LLVM blocks and phis, and dispatch of each op to its family. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "compiler/lower/lower_internal.h"
#include "compiler/tir/provenance.h"
#include "compiler/target/target.h"

void lower_error(Lower *L, const char *fmt, ...)
{
    if (L->failed)
        return;
    L->failed = true;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const Module *m = L->f->module;
    if (L->pos.line && L->pos.file < (uint32_t)m->nfiles)
        diag_plain(L->diags, DIAG_ERROR, "%s:%u:%u: %s", m->files[L->pos.file], L->pos.line, L->pos.col, msg);
    else
        diag_plain(L->diags, DIAG_ERROR, "kernel %s: %s", L->f->name, msg);
}

const char *site_of(Lower *L)
{
    const Module *m = L->f->module;
    const char *file = L->pos.file < (uint32_t)m->nfiles ? m->files[L->pos.file] : "?";
    return arena_printf(L->a, "%s:%u:%u", file, L->pos.line, L->pos.col);
}

LLVMValueRef const_i32(Lower *L, int64_t v) { return LLVMConstInt(L->i32, (unsigned long long)v, 1); }
LLVMValueRef const_i64(Lower *L, int64_t v) { return LLVMConstInt(L->i64, (unsigned long long)v, 1); }

LLVMValueRef global_string(Lower *L, const char *s)
{
    return LLVMBuildGlobalStringPtr(L->b, s, "str");
}

/* ---- values ---- */

/* Compile time grows faster than linearly with the memory accesses a lane makes: vecadd on gfx942
 * with 4 warps, 64 elements per lane 0.25 s, 128 0.6 s, 256 3 to 8 s, 512 22 s, 1024 116 s, and a
 * load and sum of 2^18 elements 73 s (LLVM's scheduling and register allocation over one lane's
 * accesses). Arithmetic costs far less (dot's replicated f64 operands, 512 per lane, compile in
 * seconds). So a load, store or atomic of more than MAX_ACCESSES_PER_LANE elements per lane
 * (lower_mem.c), and any value of more than MAX_REGS_PER_LANE, end the lowering at the op, before LLVM
 * (issue 23); lower_block stops there, so a 2^24-element tile costs one op's registers. Checked where
 * registers are made, not on the LIR's types: a shared or wgmma operand's layout counts elements no
 * lane holds. */
enum { MAX_ACCESSES_PER_LANE = 256, MAX_REGS_PER_LANE = 4096 };
/* The same cost summed over a kernel's accesses: each within the bound, 16 loads of 64 elements a lane
 * took 6 s, 64 of them 85 s and 2.3 GB, 32 of 128 169 s (LLVM's greedy register allocator splitting
 * live ranges of loads scheduled early). The accesses of a kernel, in elements per lane (an access in
 * a loop counts once: it is code that costs, not its runs), end the lowering past this sum, at the op
 * that passes it. The largest kernel of the ISA snapshot, Triton's attention backward, has 471. */
enum { MAX_ACCESSES_PER_KERNEL = 1024 };
/* And the registers of all of a kernel's values: LLVM's SLP vectorizer takes time quadratic in a
 * basic block's arithmetic, so a chain of 100 multiply-adds on 64 elements a lane (25,922 registers)
 * took 3.7 s for gfx942, 200 of them 20 s and 400 100 s. Past this sum the lowering stops at the op
 * that passes it (at it, 31 multiply-adds on 256 elements a lane take 6 s); the largest kernel of the
 * ISA snapshot and the tests makes 7,000. */
enum { MAX_REGS_PER_KERNEL = 24576 };

void lower_budget_end(Lower *L)
{
    if (L->over_sum && !L->failed) {
        L->pos = L->over_sum_pos;
        lower_error(L, "%s", L->over_sum);
    }
}

bool lower_budget(Lower *L, int n, bool access)
{
    int limit = access ? MAX_ACCESSES_PER_LANE : MAX_REGS_PER_LANE;
    if (L->failed)
        return false;
    bool over_sum = access ? (L->lane_accesses += n) > MAX_ACCESSES_PER_KERNEL
                           : (L->lane_regs += n) > MAX_REGS_PER_KERNEL;
    if (n <= limit && !over_sum)
        return true;
    const Op *op = L->op;
    const Type *t = op && op->nres ? op->results[0].type : op && op->nopnds ? op->operands[0]->type : NULL;
    char *ts = t ? ty_str(L->a, L->f->module->types, t) : "value", *hash = strchr(ts, '#');
    if (hash)
        *hash = 0; /* the type without its layout */
    const char *what = access && op ? arena_printf(L->a, "%s of %s", op_info(op)->name, ts) : ts;
    /* past a sum: the first op that passed it is remembered and the lowering goes on (rk's own work is
     * cheap; LLVM never sees the kernel), so that an op past its own bound, which names the cause,
     * is reported instead; else the sum is, at the end (lower_budget_end), or at once when far past */
    if (n <= limit) {
        if (!L->over_sum) {
            L->over_sum_pos = L->pos;
            L->over_sum = access ? arena_printf(L->a,
                                                "this %s brings the kernel's memory accesses to %d elements in each of "
                                                "the %d lanes of a program, more than the %d rk compiles in bounded "
                                                "time: give a program fewer elements (a smaller block) or more warps, "
                                                "or split the kernel",
                                                what, L->lane_accesses, L->nw * L->wave, MAX_ACCESSES_PER_KERNEL)
                                 : arena_printf(L->a,
                                                "this %s brings the kernel's values to %d registers in each of the %d "
                                                "lanes of a program, more than the %d rk compiles in bounded time: "
                                                "give a program fewer elements (a smaller block) or more warps, or "
                                                "split the kernel",
                                                what, L->lane_regs, L->nw * L->wave, MAX_REGS_PER_KERNEL);
        }
        if (L->lane_accesses <= 8 * MAX_ACCESSES_PER_KERNEL && L->lane_regs <= 8 * MAX_REGS_PER_KERNEL)
            return true;
        lower_budget_end(L);
        return false;
    }
    else
        lower_error(L,
                    "this %s needs %d elements in each of the %d lanes of a program, more than the %d rk "
                    "compiles in bounded time: give a program fewer elements (a smaller block) or more warps",
                    what, n, L->nw * L->wave, limit);
    return false;
}

LVal lval_new(Lower *L, int n, const LinLayout *ll)
{
    lower_budget(L, n, false);
    LVal x = {ARENA_ARRAY(L->a, LLVMValueRef, n + 1), n, ll};
    return x;
}

LVal *lval(Lower *L, const Value *v)
{
    return &L->vals[v->scratch];
}

void lval_set(Lower *L, const Value *v, LVal x)
{
    L->vals[v->scratch] = x;
}

LLVMTypeRef llvm_type(Lower *L, const Type *t)
{
    const Type *e = ty_elem(t);
    if (e->kind == TY_PTR)
        return L->ptr_g;
    switch (e->sk) {
    case SK_BOOL: return L->i1;
    case SK_I8: case SK_U8: return L->i8;
    case SK_I16: case SK_U16: return L->i16;
    case SK_I32: case SK_U32: return L->i32;
    case SK_I64: case SK_U64: return L->i64;
    case SK_F16: return L->f16;
    case SK_BF16: return L->bf16;
    case SK_F32: return L->f32;
    default: return L->f64;
    }
}

/* ---- layouts ---- */

static LLVMBuilderRef setup_builder(Lower *L);

/* Sum of the id's bits times their bases along dim (bases of a dimension are distinct powers of two,
 * so OR is addition). A run of id bits k..k+m-1 whose bases double from 2^sh is one field of the id,
 * moved with one and and one shift: the usual layouts give `lane & 63` rather than six bits one by
 * one (less IR for LLVM to fold, and a readable RK_DUMP_IR=llvm). `acc` is NULL for nothing yet. */
static LLVMValueRef id_part(Lower *L, LLVMBuilderRef b, LLVMValueRef id, int32_t (*bases)[LAY_MAX_RANK], int n,
                            int dim, LLVMValueRef acc)
{
    for (int k = 0; k < n;) {
        int32_t v = bases[k][dim];
        if (!v) {
            k++;
            continue;
        }
        int sh = __builtin_ctz((unsigned)v), m = 1;
        while (k + m < n && bases[k + m][dim] == (int32_t)(v << m))
            m++;
        uint32_t mask = (uint32_t)(((1ull << m) - 1) << k);
        /* the and stays even for all of the id's bits: it tells LLVM the field's range (a wave index
         * from readfirstlane has none), without which it cannot prove the address arithmetic free of
         * overflow (bench/isa_snapshot.sh: 28 figures worse) */
        LLVMValueRef part = LLVMBuildAnd(b, id, const_i32(L, (int32_t)mask), "");
        if (sh > k)
            part = LLVMBuildShl(b, part, const_i32(L, sh - k), "");
        else if (sh < k)
            part = LLVMBuildLShr(b, part, const_i32(L, k - sh), "");
        if (acc) {
            part = LLVMBuildOr(b, acc, part, "");
            LLVMSetIsDisjoint(part, 1);
        }
        acc = part;
        k += m;
    }
    return acc;
}

const LayInfo *lay_info(Lower *L, const Type *t)
{
    /* keyed by layout and shape: tiles of different element types share their coordinates */
    for (LayInfo *li = L->lays; li; li = li->next)
        if (li->type->layout == t->layout && li->type->rank == t->rank &&
            !memcmp(li->type->shape, t->shape, sizeof(int64_t) * (size_t)t->rank))
            return li;
    LayInfo *li = ARENA_NEW(L->a, LayInfo);
    li->type = t;
    if (!lay_linear(t->layout, t->rank, t->shape, L->wave, L->nw, &li->ll)) {
        lower_error(L, "internal error: layout %s does not fit %s", lay_str(L->a, t->layout),
                    ty_str(L->a, L->f->module->types, t));
        memset(&li->ll, 0, sizeof li->ll);
        li->ll.rank = t->rank;
    }
    LLVMBuilderRef b = setup_builder(L);
    for (int d = 0; d < t->rank; d++) {
        LLVMValueRef acc = id_part(L, b, L->lane, li->ll.lane, li->ll.nlane, d, NULL);
        acc = id_part(L, b, L->warp, li->ll.warp, li->ll.nwarp, d, acc);
        li->lane_coord[d] = acc ? acc : const_i32(L, 0);
    }
    li->next = L->lays;
    L->lays = li;
    return li;
}

/* the source vector and lane of an extractelement with a constant index, or NULL */
static LLVMValueRef lane_of(LLVMValueRef x, unsigned *lane)
{
    if (!LLVMIsAInstruction(x) || LLVMGetInstructionOpcode(x) != LLVMExtractElement)
        return NULL;
    LLVMValueRef idx = LLVMGetOperand(x, 1);
    if (!LLVMIsAConstantInt(idx))
        return NULL;
    *lane = (unsigned)LLVMConstIntGetZExtValue(idx);
    return LLVMGetOperand(x, 0);
}

/* The vector of elements xs[0..n) of type et when every one is a lane of one of at most four vectors of
 * one type (of any length): that vector itself, or shufflevectors of them; else NULL. */
static LLVMValueRef vector_from_lanes(Lower *L, LLVMTypeRef et, LLVMValueRef *xs, int n)
{
    LLVMValueRef src[4] = {NULL, NULL, NULL, NULL};
    int which[64], nsrc = 0;
    unsigned lanes[64];
    if (n > 64)
        return NULL;
    bool identity = true;
    for (int i = 0; i < n; i++) {
        LLVMValueRef s = lane_of(xs[i], &lanes[i]);
        if (!s || LLVMGetElementType(LLVMTypeOf(s)) != et || (nsrc && LLVMTypeOf(s) != LLVMTypeOf(src[0])))
            return NULL;
        int k = 0;
        while (k < nsrc && src[k] != s)
            k++;
        if (k == 4)
            return NULL;
        if (k == nsrc)
            src[nsrc++] = s;
        which[i] = k;
        identity &= k == 0 && lanes[i] == (unsigned)i;
    }
    LLVMTypeRef st = LLVMTypeOf(src[0]);
    int m = (int)LLVMGetVectorSize(st);
    if (identity && m == n)
        return src[0];
    /* (a, b) and (c, d) each by one shufflevector, then the two halves by a third */
    LLVMValueRef half[2] = {NULL, NULL}, mask[64], none = LLVMGetPoison(L->i32);
    for (int h = 0; h < 2 && 2 * h < nsrc; h++) {
        for (int i = 0; i < n; i++)
            mask[i] = which[i] / 2 == h ? LLVMConstInt(L->i32, (unsigned long long)(which[i] % 2 * m) + lanes[i], 0) : none;
        half[h] = LLVMBuildShuffleVector(L->b, src[2 * h], src[2 * h + 1] ? src[2 * h + 1] : LLVMGetPoison(st),
                                         LLVMConstVector(mask, (unsigned)n), "");
    }
    if (!half[1])
        return half[0];
    for (int i = 0; i < n; i++)
        mask[i] = LLVMConstInt(L->i32, (unsigned long long)(which[i] / 2 * n + i), 0);
    return LLVMBuildShuffleVector(L->b, half[0], half[1], LLVMConstVector(mask, (unsigned)n), "");
}

LLVMValueRef vector_of(Lower *L, LLVMTypeRef et, LLVMValueRef *xs, int n)
{
    if (n == 1)
        return xs[0];
    LLVMValueRef v = vector_from_lanes(L, et, xs, n);
    if (v)
        return v;
    v = LLVMGetUndef(LLVMVectorType(et, (unsigned)n));
    for (int i = 0; i < n; i++)
        v = LLVMBuildInsertElement(L->b, v, xs[i], const_i32(L, i), "");
    return v;
}

LLVMValueRef reg_coord(Lower *L, const LayInfo *li, int r, int dim)
{
    int64_t c[TIR_MAX_RANK];
    lin_reg_coords(&li->ll, r, c);
    if (!c[dim])
        return li->lane_coord[dim];
    LLVMValueRef v = LLVMBuildOr(L->b, li->lane_coord[dim], const_i32(L, c[dim]), "");
    LLVMSetIsDisjoint(v, 1);
    return v;
}

/* Values needed everywhere (ids, per-layout lane coordinates) are built in a setup block that runs
 * first and falls through to the body; lay_info adds to it whenever a new layout appears. */
static LLVMBuilderRef setup_builder(Lower *L)
{
    return L->setup;
}

/* ---- control flow ---- */

static void lower_block(Lower *L, Block *b);

/* Whether a for or while loop is in b or in a region nested in it. */
static bool block_has_loop(const Block *b)
{
    for (const Op *op = b->first; op; op = op->next) {
        if (op->code == OP_FOR || op->code == OP_WHILE)
            return true;
        for (int r = 0; r < op->nregions; r++)
            if (block_has_loop(op->regions[r]))
                return true;
    }
    return false;
}

/* Whether a dot in b (or nested in it) has a wgmma layout. */
static bool block_has_wgmma(const Block *b)
{
    for (const Op *op = b->first; op; op = op->next) {
        if (is_wgmma_dot(op))
            return true;
        for (int r = 0; r < op->nregions; r++)
            if (block_has_wgmma(op->regions[r]))
                return true;
    }
    return false;
}

static LLVMBasicBlockRef new_bb(Lower *L, const char *name)
{
    return LLVMAppendBasicBlockInContext(L->ctx, L->fn, name);
}

/* The flat list of LLVM values of a list of LIR values (tiles contribute all their registers). */
static int flat(Lower *L, Value *const *vs, int n, LLVMValueRef *out)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        LVal *x = lval(L, vs[i]);
        for (int j = 0; j < x->n; j++) {
            if (out)
                out[k] = x->r[j];
            k++;
        }
    }
    return k;
}

int lower_nregs(Lower *L, const Type *t)
{
    if (t->kind != TY_TILE || lower_is_shared_tile(t))
        return 1;
    return lin_nregs(&lay_info(L, t)->ll);
}

/* Phis for a list of LIR values (block arguments or results), bound to them. */
static LLVMValueRef *make_phis(Lower *L, Value *vals, int n, int *count)
{
    int total = 0;
    for (int i = 0; i < n; i++)
        total += lower_nregs(L, vals[i].type);
    LLVMValueRef *phis = ARENA_ARRAY(L->a, LLVMValueRef, total + 1);
    int k = 0;
    for (int i = 0; i < n; i++) {
        const Type *t = vals[i].type;
        int nr = lower_nregs(L, t);
        bool sh = lower_is_shared_tile(t);
        LVal x = lval_new(L, nr, t->kind == TY_TILE && !sh ? &lay_info(L, t)->ll : NULL);
        for (int j = 0; j < nr; j++)
            x.r[j] = phis[k++] = LLVMBuildPhi(L->b, sh ? L->i32 : llvm_type(L, t), "");
        lval_set(L, &vals[i], x);
    }
    *count = total;
    return phis;
}

static void add_incoming(LLVMValueRef *phis, LLVMValueRef *vals, int n, LLVMBasicBlockRef from)
{
    for (int i = 0; i < n; i++)
        LLVMAddIncoming(phis[i], &vals[i], &from, 1);
}

static void bind_flat(Lower *L, Value *vals, int n, LLVMValueRef *flatv)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        const Type *t = vals[i].type;
        int nr = lower_nregs(L, t);
        LVal x = lval_new(L, nr, t->kind == TY_TILE && !lower_is_shared_tile(t) ? &lay_info(L, t)->ll : NULL);
        for (int j = 0; j < nr; j++)
            x.r[j] = flatv[k++];
        lval_set(L, &vals[i], x);
    }
}

/* Loop-carried registers that the body yields as the lanes 0..k-1 of one vector (an MFMA accumulator,
 * a prefetched vector load) become one vector phi: the body's scalar phis are replaced by extracts
 * of it at the top of the header, and the vector goes round the loop whole. Without this the body
 * would take the vector apart at its end and build it again at its start, and LLVM's SLP vectoriser
 * and instcombine spent their time putting it back together (64 accumulator phis of a 128x128
 * matmul tile become 16). */
static void vector_phis(Lower *L, LLVMValueRef *phis, LLVMValueRef *next, LLVMValueRef *inits, int np,
                        LLVMBasicBlockRef pre, LLVMBasicBlockRef header, LLVMBasicBlockRef latch)
{
    LLVMValueRef first = LLVMGetFirstInstruction(header);
    while (first && LLVMIsAPHINode(first))
        first = LLVMGetNextInstruction(first);
    for (int i = 1; i < np;) {
        unsigned lane;
        LLVMValueRef vec = lane_of(next[i], &lane);
        int k = 0;
        if (vec && lane == 0) {
            LLVMTypeRef vt = LLVMTypeOf(vec);
            k = LLVMGetTypeKind(vt) == LLVMVectorTypeKind ? (int)LLVMGetVectorSize(vt) : 0;
            if (k < 2 || i + k > np || LLVMGetElementType(vt) != LLVMTypeOf(phis[i]))
                k = 0;
            for (int j = 1; j < k; j++)
                if (lane_of(next[i + j], &lane) != vec || lane != (unsigned)j || LLVMTypeOf(phis[i + j]) != LLVMTypeOf(phis[i]))
                    k = 0;
        }
        if (k == 0) {
            i++;
            continue;
        }
        /* the initial vector, built before the loop */
        LLVMPositionBuilderBefore(L->b, LLVMGetBasicBlockTerminator(pre));
        LLVMValueRef init = vector_of(L, LLVMGetElementType(LLVMTypeOf(vec)), inits + i - 1, k);
        LLVMPositionBuilder(L->b, header, LLVMGetFirstInstruction(header));
        LLVMValueRef vphi = LLVMBuildPhi(L->b, LLVMTypeOf(vec), "");
        LLVMAddIncoming(vphi, &init, &pre, 1);
        LLVMAddIncoming(vphi, &vec, &latch, 1);
        if (first)
            LLVMPositionBuilderBefore(L->b, first);
        else
            LLVMPositionBuilderAtEnd(L->b, header);
        for (int j = 0; j < k; j++) {
            LLVMValueRef e = LLVMBuildExtractElement(L->b, vphi, const_i32(L, j), "");
            LLVMReplaceAllUsesWith(phis[i + j], e);
            LLVMInstructionEraseFromParent(phis[i + j]);
            phis[i + j] = e;
        }
        i += k;
    }
}

/* Whether block b holds a loop, at any depth. */
static bool holds_loop(const Block *b)
{
    for (const Op *op = b->first; op; op = op->next) {
        if (op->code == OP_FOR || op->code == OP_WHILE)
            return true;
        for (int i = 0; i < op->nregions; i++)
            if (holds_loop(op->regions[i]))
                return true;
    }
    return false;
}

/* sm_90: a loop around another loop (a persistent kernel's loop over tiles) keeps LLVM's LICM out
 * (`llvm.licm.disable` on its back edge): what is invariant in it would be hoisted out of it and stay
 * live across the whole kernel, beside the inner loop's accumulators. The persistent matmul of 128x128
 * tiles with 4 warps needed 255 registers and spilled 336 bytes; without LICM there, 154 and none. The
 * inner loops' invariants still go to their preheaders, in the outer body. */
static void keep_licm_out(Lower *L, LLVMValueRef backedge, const Block *body)
{
    if (!L->t->licm_stays_in_loop || !holds_loop(body))
        return;
    LLVMMetadataRef tmp = LLVMTemporaryMDNode(L->ctx, NULL, 0);
    LLVMMetadataRef name = LLVMMDStringInContext2(L->ctx, "llvm.licm.disable", 17);
    LLVMMetadataRef ops[2] = {tmp, LLVMMDNodeInContext2(L->ctx, &name, 1)};
    LLVMMetadataRef id = LLVMMDNodeInContext2(L->ctx, ops, 2);
    LLVMMetadataReplaceAllUsesWith(tmp, id); /* the loop ID refers to itself */
    LLVMSetMetadata(backedge, LLVMGetMDKindIDInContext(L->ctx, "llvm.loop", 9), LLVMMetadataAsValue(L->ctx, id));
}

/* The number of iterations of `for i in lb .. ub step st` (docs/language.md), in the induction
 * variable's width, unsigned: the distance to the bound in exact arithmetic, divided by the step and
 * rounded up (up: lb < ub and st > 0; down, signed types only: lb > ub and st < 0; otherwise none,
 * a step of 0 included). Computed once, before the loop. */
static LLVMValueRef trip_count(Lower *L, LLVMValueRef lb, LLVMValueRef ub, LLVMValueRef st, bool is_signed)
{
    LLVMTypeRef it = LLVMTypeOf(lb);
    LLVMValueRef zero = LLVMConstInt(it, 0, 0), one = LLVMConstInt(it, 1, 0);
    /* dist / s rounded up, dist > 0 and s > 0 as unsigned: (dist - 1) / s + 1 */
#define CEIL_DIV(dist, s) LLVMBuildAdd(L->b, LLVMBuildUDiv(L->b, LLVMBuildSub(L->b, dist, one, ""), s, ""), one, "")
    /* a run-time step may be 0: divide by 1 instead (x86 traps on a division by 0; the count is 0 then) */
    LLVMValueRef nonzero = LLVMIsAConstantInt(st) ? NULL : LLVMBuildICmp(L->b, LLVMIntNE, st, zero, "");
    LLVMValueRef s_up = nonzero ? LLVMBuildSelect(L->b, nonzero, st, one, "") : st;
    LLVMValueRef up_ok = LLVMBuildICmp(L->b, is_signed ? LLVMIntSLT : LLVMIntULT, lb, ub, "");
    LLVMValueRef n_up = LLVMBuildSelect(L->b, up_ok, CEIL_DIV(LLVMBuildSub(L->b, ub, lb, ""), s_up), zero, "");
    if (LLVMIsAConstantInt(st)) {
        long long c = LLVMConstIntGetSExtValue(st);
        if (c == 0)
            return zero;
        if (!is_signed || c > 0)
            return n_up;
    }
    if (!is_signed)
        return LLVMBuildSelect(L->b, nonzero, n_up, zero, "");
    LLVMValueRef down_ok = LLVMBuildICmp(L->b, LLVMIntSGT, lb, ub, "");
    LLVMValueRef s_down = LLVMBuildNeg(L->b, s_up, "");
    LLVMValueRef n_down = LLVMBuildSelect(L->b, down_ok, CEIL_DIV(LLVMBuildSub(L->b, lb, ub, ""), s_down), zero, "");
#undef CEIL_DIV
    if (LLVMIsAConstantInt(st))
        return n_down;
    LLVMValueRef pos = LLVMBuildICmp(L->b, LLVMIntSGT, st, zero, "");
    LLVMValueRef neg = LLVMBuildICmp(L->b, LLVMIntSLT, st, zero, "");
    return LLVMBuildSelect(L->b, pos, n_up, LLVMBuildSelect(L->b, neg, n_down, zero, ""), "");
}

/* The language's loop (docs/language.md): i = lb, lb + s, ... while i < ub (i > ub for a negative step
 * of a signed type), with the values of exact arithmetic: the loop runs trip_count times, so an
 * induction variable whose next value would leave its type ends the loop instead of wrapping around
 * to run again (its wrapped value after the last iteration is never used), and a step of 0 runs no
 * iteration. The counter k = 0, 1, ... < n is what the header tests; LLVM's SCEV reads the trip
 * count from it. */
static void lower_for(Lower *L, Op *op)
{
    LLVMValueRef lb = lval(L, op->operands[0])->r[0], ub = lval(L, op->operands[1])->r[0];
    LLVMValueRef st = lval(L, op->operands[2])->r[0];
    int ninit = flat(L, op->operands + 3, op->nopnds - 3, NULL);
    LLVMValueRef *inits = ARENA_ARRAY(L->a, LLVMValueRef, ninit + 1);
    flat(L, op->operands + 3, op->nopnds - 3, inits);
    Block *body = op_block(op, 0);
    bool is_signed = ty_is_signed(body->args[0].type);
    LLVMValueRef trips = trip_count(L, lb, ub, st, is_signed);
    LLVMValueRef k0 = LLVMConstInt(LLVMTypeOf(lb), 0, 0);
    bool rotate = defer_rotate_begin(L, op);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef header = new_bb(L, "for.head"), bb = new_bb(L, "for.body"), exit = new_bb(L, "for.exit");
    LLVMBuildBr(L->b, header);
    LLVMPositionBuilderAtEnd(L->b, header);
    int np;
    LLVMValueRef *phis = make_phis(L, body->args, body->nargs, &np);
    LLVMValueRef iv = phis[0];
    LLVMAddIncoming(iv, &lb, &pre, 1);
    add_incoming(phis + 1, inits, np - 1, pre);
    LLVMValueRef k = LLVMBuildPhi(L->b, LLVMTypeOf(lb), "for.k");
    LLVMAddIncoming(k, &k0, &pre, 1);
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntULT, k, trips, ""), bb, exit);
    LLVMPositionBuilderAtEnd(L->b, bb);
    /* the body is also entered from its own end, where copies may be pending: whatever the code before
     * the loop waited for, the body's first read of a stage buffer waits again */
    L->async_synced = false;
    WgmmaLoop outer = wgmma_loop_begin(L, body);
    Op *rot_outer = L->rot_loop;
    bool rot_outer_done = L->rot_done;
    Op **cov_outer = L->covered;
    int ncov_outer = L->ncovered;
    const Op *cov_dot_outer = L->cover_dot;
    L->rot_loop = rotate ? op : NULL;
    L->rot_done = false;
    lower_find_covered(L, rotate ? body : NULL);
    DotCarry carry, *carry_outer = L->carry;
    L->carry = lower_find_carry(L, body, inits, &carry) ? &carry : NULL;
    carry.pre = pre;
    carry.header = header;
    L->loop_depth++;
    lower_block(L, body); /* binds nothing new: args are the phis */
    L->loop_depth--;
    L->carry = carry_outer;
    lower_covered_flush(L);
    L->covered = cov_outer;
    L->ncovered = ncov_outer;
    L->cover_dot = cov_dot_outer;
    wgmma_loop_end(L, outer);
    if (rotate && !L->failed && !L->rot_done)
        defer_rotate_end(L, op);
    L->rot_loop = rot_outer;
    L->rot_done = rot_outer_done;
    if (L->failed)
        return;
    Op *y = body->last;
    LLVMValueRef *next = ARENA_ARRAY(L->a, LLVMValueRef, np + 1);
    next[0] = LLVMBuildAdd(L->b, iv, st, "");
    LLVMValueRef k_next = LLVMBuildNUWAdd(L->b, k, LLVMConstInt(LLVMTypeOf(lb), 1, 0), "");
    flat(L, y->operands, y->nopnds, next + 1);
    tgt_loop_tick(L);
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(L->b);
    keep_licm_out(L, LLVMBuildBr(L->b, header), body);
    LLVMAddIncoming(k, &k_next, &latch, 1);
    add_incoming(phis, next, np, latch);
    lower_carry_latch(&carry, latch);
    vector_phis(L, phis, next, inits, np, pre, header, latch);
    buffer_carry_offsets(L, op, phis + 1, pre, header, latch);
    LLVMPositionBuilderAtEnd(L->b, exit);
    if (carry.n) { /* the last iteration's carried MFMAs, on a copy of the accumulator's registers */
        LLVMValueRef *res = ARENA_ARRAY(L->a, LLVMValueRef, np);
        memcpy(res, phis + 1, sizeof(LLVMValueRef) * (size_t)(np - 1));
        lower_carry_exit(L, &carry, res + carry.off);
        bind_flat(L, op->results, op->nres, res);
    } else
        bind_flat(L, op->results, op->nres, phis + 1);
    if (rotate)
        L->lds_read = true; /* the rotated regions' last writes: the next deferred write waits */
}

static void lower_if(Lower *L, Op *op)
{
    LLVMValueRef cond = lval(L, op->operands[0])->r[0];
    LLVMBasicBlockRef tb = new_bb(L, "if.then"), eb = new_bb(L, "if.else"), mb = new_bb(L, "if.end");
    LLVMBuildCondBr(L->b, cond, tb, eb);
    int nflat = 0;
    for (int i = 0; i < op->nres; i++)
        nflat += lower_nregs(L, op->results[i].type);
    LLVMValueRef *vals[2];
    LLVMBasicBlockRef ends[2];
    LLVMBasicBlockRef starts[2] = {tb, eb};
    for (int r = 0; r < 2; r++) {
        LLVMPositionBuilderAtEnd(L->b, starts[r]);
        lower_block(L, op_block(op, r));
        if (L->failed)
            return;
        Op *y = op_block(op, r)->last;
        vals[r] = ARENA_ARRAY(L->a, LLVMValueRef, nflat + 1);
        flat(L, y->operands, y->nopnds, vals[r]);
        ends[r] = LLVMGetInsertBlock(L->b);
        LLVMBuildBr(L->b, mb);
    }
    LLVMPositionBuilderAtEnd(L->b, mb);
    int np;
    LLVMValueRef *phis = make_phis(L, op->results, op->nres, &np);
    add_incoming(phis, vals[0], np, ends[0]);
    add_incoming(phis, vals[1], np, ends[1]);
}

static void lower_while(Lower *L, Op *op)
{
    int ninit = flat(L, op->operands, op->nopnds, NULL);
    LLVMValueRef *inits = ARENA_ARRAY(L->a, LLVMValueRef, ninit + 1);
    flat(L, op->operands, op->nopnds, inits);
    Block *before = op_block(op, 0), *after = op_block(op, 1);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef hb = new_bb(L, "while.before"), ab = new_bb(L, "while.after"), xb = new_bb(L, "while.exit");
    LLVMBuildBr(L->b, hb);
    LLVMPositionBuilderAtEnd(L->b, hb);
    int np;
    LLVMValueRef *phis = make_phis(L, before->args, before->nargs, &np);
    add_incoming(phis, inits, np, pre);
    L->loop_depth++;
    lower_block(L, before);
    if (L->failed) {
        L->loop_depth--;
        return;
    }
    Op *c = before->last;
    LLVMValueRef cond = lval(L, c->operands[0])->r[0];
    int nc = flat(L, c->operands + 1, c->nopnds - 1, NULL);
    LLVMValueRef *cv = ARENA_ARRAY(L->a, LLVMValueRef, nc + 1);
    flat(L, c->operands + 1, c->nopnds - 1, cv);
    LLVMBuildCondBr(L->b, cond, ab, xb);
    LLVMPositionBuilderAtEnd(L->b, ab);
    bind_flat(L, after->args, after->nargs, cv);
    lower_block(L, after);
    L->loop_depth--;
    if (L->failed)
        return;
    Op *y = after->last;
    LLVMValueRef *next = ARENA_ARRAY(L->a, LLVMValueRef, np + 1);
    flat(L, y->operands, y->nopnds, next);
    tgt_loop_tick(L);
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(L->b);
    keep_licm_out(L, LLVMBuildBr(L->b, hb), before);
    add_incoming(phis, next, np, latch);
    LLVMPositionBuilderAtEnd(L->b, xb);
    bind_flat(L, op->results, op->nres, cv);
}

static void lower_op_here(Lower *L, Op *op);

static void lower_op(Lower *L, Op *op)
{
    lower_op_here(L, op);
    if (L->o->remarks) {
        L->op = op; /* a loop's body has been lowered since */
        lds_note_flush(L);
    }
}

static void lower_op_here(Lower *L, Op *op)
{
    L->pos = op->pos;
    L->op = op;
    switch (op->code) {
    /* async_synced describes straight-line code: a region is entered (a loop body again after its back
     * edge, which may have issued copies) and left (after branches that may differ) unsynced */
    case OP_FOR:
        L->async_synced = false;
        lower_for(L, op);
        async_after_loop(L, op);
        wgmma_after_loop(L, op);
        L->async_synced = false;
        return;
    case OP_IF:
        L->async_synced = false;
        lower_if(L, op);
        L->async_synced = false;
        return;
    case OP_WHILE:
        L->async_synced = false;
        lower_while(L, op);
        L->async_synced = false;
        return;
    case OP_YIELD:
    case OP_CONDITION:
        return; /* read by the owning op */
    case OP_RETURN:
        if (L->ntma_rings && !L->tma_checked)
            tma_check(L);
        LLVMBuildRetVoid(L->b);
        return;
    case OP_LOAD:
        if (lower_is_shared_tile(op->results[0].type)) {
            lower_async_load(L, op);
            return;
        }
        lower_memory(L, op);
        return;
    case OP_STORE:
    case OP_ATOMIC_RMW:
    case OP_ATOMIC_CAS:
        lower_memory(L, op);
        return;
    case OP_CONVERT_LAYOUT:
    case OP_RESHAPE:
    case OP_PERMUTE:
        lower_convert(L, op);
        return;
    case OP_REDUCE:
    case OP_ARGREDUCE:
    case OP_SCAN:
        lower_reduce(L, op);
        return;
    case OP_DOT:
        lower_dot(L, op);
        return;
    case OP_ASSERT:
    case OP_PRINT:
        lower_debug(L, op);
        return;
    case OP_ASSUME:
        return;
    case OP_BARRIER:
        /* barrier(). A cp.async copy reads its source when it completes: the copies issued before the
         * barrier complete first, so that their loads read memory as it was before it. (No ring can be
         * filling here: a loop holding a barrier is not pipelined, and the prologue's copies come right
         * before their loop.) */
        if (L->t->warp_mma && L->cp_buffers)
            tgt_cp_async_wait(L, -1);
        tgt_barrier(L);
        return;
    default:
        lower_elementwise(L, op);
        return;
    }
}

static bool is_covered(const Lower *L, const Op *op)
{
    for (int i = 0; i < L->ncovered; i++)
        if (L->covered[i] == op)
            return true;
    return false;
}

static void lower_block(Lower *L, Block *b)
{
    for (Op *op = b->first; op && !L->failed; op = op->next) {
        if (L->ncovered && is_covered(L, op))
            continue; /* issued by the dot (lower_covered.c) */
        lower_op(L, op);
        while (op == L->cover_dot && lower_next_covered(L)) /* those the dot did not take: right after it */
            ;
    }
}

/* ---- numbering ---- */

static void count_uses(Block *b, int *uses)
{
    for (Op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nopnds; i++)
            uses[op->operands[i]->scratch]++;
        for (int r = 0; r < op->nregions; r++)
            count_uses(op->regions[r], uses);
    }
}

static int32_t value_id(void *ud, const Value *v)
{
    (void)ud;
    return (int32_t)v->scratch;
}

/* The axis analysis of every value, in the order `number` numbers them. */
static void collect_axis(const AxisTab *ax, Block *b, const AxisInfo **out, int *n)
{
    for (int i = 0; i < b->nargs; i++)
        out[(*n)++] = axis_of(ax, &b->args[i]);
    for (Op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nres; i++)
            out[(*n)++] = axis_of(ax, &op->results[i]);
        for (int r = 0; r < op->nregions; r++)
            collect_axis(ax, op->regions[r], out, n);
    }
}

static void number(Block *b, int *n)
{
    for (int i = 0; i < b->nargs; i++)
        b->args[i].scratch = (*n)++;
    for (Op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nres; i++)
            op->results[i].scratch = (*n)++;
        for (int r = 0; r < op->nregions; r++)
            number(op->regions[r], n);
    }
}

/* ---- the kernel ---- */


/* Lowering's state lives in the caller's arena, so that an allocation failure (the arena's longjmp,
 * compiler/api/compile.c) finds it: the builders and the lowering arena are given back and the
 * failure goes on to the caller's recovery point, which disposes of the LLVM module (driver.c). */
typedef struct LowerFrame {
    Lower L;
    Arena arena;
    jmp_buf oom;
} LowerFrame;

static bool lower_body(Lower *L, Arena *arena, Func *f, LLVMModuleRef mod, const LowerOptions *o, Diags *diags,
                       LowerResult *out);

/* A vector built by insertelements, lanes 0..n-1 in order starting from undef or poison, whose elements
 * are lanes of at most four vectors, is made by vector_from_lanes instead (the vector itself, or
 * shufflevectors). vector_of does so as it builds, but loop-carried registers become lanes of a vector
 * phi only after the loop body is lowered (vector_phis), so the body built such vectors from scalar
 * phis that are extracts now: rebuilt here, the chain deleted, rather than left to instcombine and
 * the SLP vectoriser. */
static void fold_rebuilt_vectors(Lower *L)
{
    LLVMValueRef xs[64];
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(L->fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef I = LLVMGetFirstInstruction(bb), next; I; I = next) {
            next = LLVMGetNextInstruction(I);
            if (!LLVMIsAInsertElementInst(I))
                continue;
            LLVMTypeRef vt = LLVMTypeOf(I);
            unsigned n = LLVMGetVectorSize(vt), i = n;
            LLVMValueRef v = I;
            /* from the last lane down to lane 0 */
            while (i > 0 && n <= 64 && LLVMIsAInsertElementInst(v)) {
                LLVMValueRef idx = LLVMGetOperand(v, 2);
                if (!LLVMIsAConstantInt(idx) || LLVMConstIntGetZExtValue(idx) != i - 1)
                    break;
                xs[--i] = LLVMGetOperand(v, 1);
                v = LLVMGetOperand(v, 0);
            }
            if (i != 0 || n > 64 || !(LLVMIsUndef(v) || LLVMIsPoison(v)))
                continue;
            LLVMPositionBuilderBefore(L->b, I);
            LLVMValueRef r = vector_from_lanes(L, LLVMGetElementType(vt), xs, (int)n);
            if (!r)
                continue;
            LLVMReplaceAllUsesWith(I, r);
            /* the chain, now unused, from its end */
            for (LLVMValueRef d = I; d && LLVMIsAInsertElementInst(d) && !LLVMGetFirstUse(d);) {
                LLVMValueRef prev = LLVMGetOperand(d, 0);
                LLVMInstructionEraseFromParent(d);
                d = prev;
            }
        }
}

/* Unused values of pure instructions are deleted, last first so that a chain goes at once: every vector
 * load is taken apart into all its lanes (a tile's registers), of which an MFMA operand or a store that
 * takes the whole vector uses none. LLVM would delete them too, in every pass until the first that does. */
static void delete_unused(Lower *L)
{
    for (LLVMBasicBlockRef bb = LLVMGetLastBasicBlock(L->fn); bb; bb = LLVMGetPreviousBasicBlock(bb))
        for (LLVMValueRef I = LLVMGetLastInstruction(bb), prev; I; I = prev) {
            prev = LLVMGetPreviousInstruction(I);
            if (LLVMGetFirstUse(I))
                continue;
            switch (LLVMGetInstructionOpcode(I)) {
            case LLVMExtractElement: case LLVMInsertElement: case LLVMShuffleVector: case LLVMBitCast:
            case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl: case LLVMLShr: case LLVMAnd: case LLVMOr:
            case LLVMXor: case LLVMGetElementPtr: case LLVMICmp: case LLVMSelect: case LLVMZExt: case LLVMSExt:
            case LLVMTrunc:
                LLVMInstructionEraseFromParent(I);
                break;
            default:
                break;
            }
        }
}

bool lower_kernel(Func *f, LLVMModuleRef mod, const LowerOptions *o, Diags *diags, LowerResult *out)
{
    memset(out, 0, sizeof *out);
    LowerFrame *fr = ARENA_NEW(diags->arena, LowerFrame);
    if (!fr) {
        diag_plain(diags, DIAG_ERROR, "out of memory lowering %s", f->name);
        return false;
    }
    arena_init(&fr->arena, f->module->arena->alloc);
    jmp_buf *outer = diags->arena->oom;
    if (outer) {
        if (setjmp(fr->oom)) {
            diags->arena->oom = outer;
            if (fr->L.b)
                LLVMDisposeBuilder(fr->L.b);
            if (fr->L.setup)
                LLVMDisposeBuilder(fr->L.setup);
            arena_free(&fr->arena);
            longjmp(*outer, 1);
        }
        fr->arena.oom = &fr->oom;
        diags->arena->oom = &fr->oom;
    }
    bool ok = false;
    if (!o->target || !o->target->hooks)
        diag_plain(diags, DIAG_ERROR, "internal error: no lowering for the target of %s", f->name);
    else
        ok = lower_body(&fr->L, &fr->arena, f, mod, o, diags, out);
    diags->arena->oom = outer;
    if (fr->L.b)
        LLVMDisposeBuilder(fr->L.b);
    if (fr->L.setup)
        LLVMDisposeBuilder(fr->L.setup);
    arena_free(&fr->arena);
    return ok;
}

void lower_param_set(Lower *L, int i, LLVMValueRef v)
{
    const Value *arg = &L->f->body->args[i];
    if (arg->type->kind == TY_SCALAR && arg->type->sk == SK_BOOL)
        v = LLVMBuildICmp(L->b, LLVMIntNE, v, LLVMConstInt(L->i8, 0, 0), "");
    LVal x = lval_new(L, 1, NULL);
    x.r[0] = v;
    lval_set(L, arg, x);
}

void tgt_entry(Lower *L)
{
    HOOKS->entry(L);
    LLVMBuilderRef b = L->setup;
    L->lane = LLVMBuildAnd(b, L->tid, const_i32(L, L->wave - 1), "lane");
    LLVMValueRef w = LLVMBuildLShr(b, L->tid, const_i32(L, __builtin_ctz((unsigned)L->wave)), "");
    L->warp = HOOKS->uniform ? HOOKS->uniform(L, w) : w;
}

static bool lower_body(Lower *L, Arena *arena, Func *f, LLVMModuleRef mod, const LowerOptions *o, Diags *diags,
                       LowerResult *out)
{
    L->a = arena;
    L->diags = diags;
    L->o = o;
    L->f = f;
    L->t = o->target;
    L->debug = o->debug || L->t->checked;
    L->wave = L->t->wave_size;
    L->nw = f->opts.num_warps;
    L->mod = mod;
    L->ctx = LLVMGetModuleContext(mod);
    L->i1 = LLVMInt1TypeInContext(L->ctx);
    L->i8 = LLVMInt8TypeInContext(L->ctx);
    L->i16 = LLVMInt16TypeInContext(L->ctx);
    L->i32 = LLVMInt32TypeInContext(L->ctx);
    L->i64 = LLVMInt64TypeInContext(L->ctx);
    /* on the emulator 16-bit floats are i16 bit patterns (lower_fp.c) */
    L->f16 = L->t->soft_fp16 ? LLVMInt16TypeInContext(L->ctx) : LLVMHalfTypeInContext(L->ctx);
    L->bf16 = L->t->soft_fp16 ? LLVMInt16TypeInContext(L->ctx) : LLVMBFloatTypeInContext(L->ctx);
    L->f32 = LLVMFloatTypeInContext(L->ctx);
    L->f64 = LLVMDoubleTypeInContext(L->ctx);
    L->ptr0 = LLVMPointerTypeInContext(L->ctx, 0);
    L->ptr_g = LLVMPointerTypeInContext(L->ctx, L->t->as_global);
    L->ptr_lds = LLVMPointerTypeInContext(L->ctx, L->t->as_lds);
    L->void_t = LLVMVoidTypeInContext(L->ctx);
    int n = 0;
    number(f->body, &n);
    /* the axis analysis (it numbers the values its own way), then the lowering's numbering again */
    AxisTab *ax = compute_axis_info(L->a, f);
    L->axis = ARENA_ARRAY(L->a, const AxisInfo *, n + 1);
    int na = 0;
    collect_axis(ax, f->body, L->axis, &na);
    n = 0;
    number(f->body, &n);
    L->vals = ARENA_ARRAY(L->a, LVal, n + 1);
    L->uses = ARENA_ARRAY(L->a, int, n + 1);
    L->deferred = ARENA_ARRAY(L->a, Deferred *, n + 1);
    L->ring_of = ARENA_ARRAY(L->a, Ring *, n + 1);
    L->ring_slot = ARENA_ARRAY(L->a, int, n + 1);
    L->inflight = ARENA_ARRAY(L->a, bool, n + 1);
    count_uses(f->body, L->uses);
    /* the stage buffers first: a ring filled by TMA adds a parameter (its tensor's map) */
    L->wgmma = L->t->wgmma && block_has_wgmma(f->body);
    L->lds_limit = L->t->lds_bytes;
    async_setup(L, f);

    /* The signature: the GPUs' kernels take their parameters directly, the emulator's the kernarg
     * block and the lane (the target's hooks) */
    Block *body = f->body;
    int np = body->nargs;
    HOOKS->signature(L, np);
    L->b = LLVMCreateBuilderInContext(L->ctx);
    LLVMBasicBlockRef setup_bb = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "setup");
    LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "start");
    L->setup = LLVMCreateBuilderInContext(L->ctx);
    LLVMPositionBuilderAtEnd(L->setup, setup_bb);
    LLVMValueRef jump = LLVMBuildBr(L->setup, start);
    LLVMPositionBuilderBefore(L->setup, jump);
    LLVMPositionBuilderBefore(L->b, jump);
    tgt_entry(L);
    /* The runtime passes at most max_kernarg_bytes of parameters (target.c says whose limit and
     * why): a kernel taking more would compile and then fail at every launch (issue 23). */
    if (L->t->max_kernarg_bytes) {
        int bytes = 0;
        for (int i = 0; i < np; i++) {
            const Type *t = body->args[i].type;
            int size = t->kind == TY_PTR ? 8 : (t->sk == SK_BOOL ? 1 : ty_bits(t) / 8);
            bytes = align_up(bytes, size) + size;
        }
        if (bytes > L->t->max_kernarg_bytes) {
            L->pos = f->pos;
            lower_error(L, "kernel %s takes %d bytes of parameters, more than %s passes to a kernel (%d)",
                        f->name, bytes, L->t->kernarg_by, L->t->max_kernarg_bytes); /* lower_block then stops at once */
        }
    }
    /* parameters */
    if (L->t->checked || (L->t->buffer_range32 && f->range32)) {
        L->prov = ARENA_ARRAY(L->a, int32_t, n + 1);
        compute_provenance(f, L->prov, value_id, NULL);
    }
    HOOKS->params(L, np);
    LLVMPositionBuilderAtEnd(L->b, start);
    async_init(L);
    L->has_loop = block_has_loop(body);
    lower_block(L, body);
    lower_budget_end(L);
    if (!L->failed) {
        fold_rebuilt_vectors(L);
        delete_unused(L);
        fpmath_split_max_chains(L);
        tgt_finish(L);
    }
    out->lds_bytes = L->lds_bytes;
    out->spends = L->spends;
    out->drain_capped = L->drain_capped;
    out->drain_raised = L->drain_raised;
    out->choice_read = L->choice_read;
    out->block = L->nw * L->wave;
    out->tma = tma_spec(L);
    out->remarks = L->remarks;
    out->nremarks = L->nremarks;
    return !L->failed;
}
