/* dot through wgmma.mma_async (sm_90a): D = A x B + C with both operands read from shared memory.
 *
 * The accumulator layout is the mma layout with warps stacked along M (assign_layouts.c, wgmma_fits):
 * each warpgroup of four warps owns 64 rows of every 16 x num_warps, and for one m64nNk16 instruction
 * a thread's N/2 accumulators are its registers at rows +0/+8 and columns 8j + 0/1 of the tile, in
 * that order (the PTX ISA's wgmma D fragment; lin_reg_of finds them). Instructions are at most N = 256
 * wide; wider tiles take several.
 *
 * Which dots of a wgmma layout are wgmma is plan_async's decision (compiler/target/nvptx/plan_async.c,
 * `wgmma = 1` on the dot; `wgmma = 0`: mma.sync on the same layouts, lower_dot.c); the checks below
 * only confirm it. The operands are the cp.async stage buffers the converts left in place
 * (lower_convert.c: a Deferred with `stage`), or for A its registers (wgmma's register form: a thread gives mma.sync's A
 * fragment of its warp's 16 rows; attention's P, the previous dot's result), laid out by stage_chunk_offset: lines of 32, 64 or 128 bytes, or 128-byte
 * columns, swizzled as wgmma's 32/64/128-byte modes, at 1024-byte aligned addresses. A is K-major
 * (m along the lines); B is MN-major (k along the lines: imm-trans-b 1) when loaded row-major, K-major
 * when it was loaded column-major (Kᵀ). A descriptor points at the first element of the instruction's
 * part: K-major, 8 lines of one swizzle atom then the next 8 SBO = 8 x line bytes further, a k step of
 * 16 two bytes an element further along the line (the swizzle applies to the whole address); MN-major,
 * k steps of 16 lines, the next 64 columns LBO = lines x 128 bytes further.
 *
 * Order: the converts waited for the copies, fenced the async proxy and synchronised the block
 * (async_wait); then wgmma.fence, every instruction of the dot (k outermost), one commit group and a
 * wait, the accumulators passed through the wait so that nothing touches them while the tensor cores
 * still write them. A dot whose accumulator is only carried to the next iteration of its loop (a
 * matmul's main loop) keeps its group running: wait_group 1 lets this iteration's group go on while
 * the previous one completes; then a barrier (every warpgroup is past that wait, so no wgmma still
 * reads the buffer the previous iteration used) and only then the copies into that buffer, which the
 * loop's loads issued earlier in program order and were held back for this (async_release). After the
 * loop, wait_group 0. The tensor cores run while the next iteration waits for its copies. */
#include "compiler/lower/lower_internal.h"

/* Bytes of a line of a stage buffer that wgmma's swizzles describe: 32, 64, or 128 per column. */
static bool line_ok(int64_t pitch)
{
    return pitch == 32 || pitch == 64 || (pitch >= 128 && pitch % 128 == 0);
}

static bool readable(const Deferred *d, bool is_b)
{
    return d && d->stage && d->bytes == 2 && d->rank == 2 && (is_b || !d->kmajor) &&
           line_ok(d->shape[1] * 2) && d->shape[0] % 8 == 0;
}

/* The descriptor of the operand part whose first element is (mn0 + extra_lines, k0): K-major
 * (mn_major false: lines are m or n) or MN-major (lines are k). extra_lines (i32, K-major only) adds
 * lines known at run time (the warpgroup's rows), NULL for none. */
static LLVMValueRef descriptor(Lower *L, const Deferred *d, bool mn_major, LLVMValueRef extra_lines, int64_t mn0,
                               int64_t k0)
{
    int64_t pitch = d->shape[1] * 2, lines = d->shape[0];
    int64_t S = pitch < 128 ? pitch : 128; /* the swizzle: bytes of a line within one column */
    int64_t line_of = mn_major ? k0 : mn0, along = (mn_major ? mn0 : k0) * 2;
    int64_t off = (along / S) * lines * S + line_of * S + along % S;
    LLVMValueRef addr = LLVMBuildAdd(L->b, d->base_v, const_i32(L, off), "");
    if (extra_lines)
        addr = LLVMBuildAdd(L->b, addr, LLVMBuildMul(L->b, extra_lines, const_i32(L, S), ""), "");
    addr = tgt_smem_addr(L, addr);
    LLVMValueRef lo = LLVMBuildAnd(L->b, LLVMBuildLShr(L->b, addr, const_i32(L, 4), ""), const_i32(L, 0x3fff), "");
    uint64_t lbo = mn_major ? (uint64_t)(lines * S) >> 4 : 1, sbo = (uint64_t)(8 * S) >> 4;
    uint64_t mode = S == 128 ? 1 : S == 64 ? 2 : 3;
    uint64_t hi = lbo << 16 | sbo << 32 | mode << 62;
    return LLVMBuildOr(L->b, LLVMBuildZExt(L->b, lo, L->i64, ""), LLVMConstInt(L->i64, hi, 0), "desc");
}

/* Is the dot's accumulator only carried around its loop: its result used by nothing but the body's
 * yield, and the value that yield carries into the next iteration used by nothing but this dot, as
 * its C? Then nothing reads the accumulators while the group still runs (acc = dot(a, b, acc * s)
 * would: there the dot waits for its group). */
static bool carried_only(Lower *L, const Op *op)
{
    Block *b = op->parent;
    const Op *y = b ? b->last : NULL;
    if (!y || y->code != OP_YIELD || !b->parent || b->parent->code != OP_FOR || L->uses[op->results[0].scratch] != 1)
        return false;
    for (int i = 0; i < y->nopnds && i + 1 < b->nargs; i++)
        if (y->operands[i] == &op->results[0])
            return op->operands[2] == &b->args[i + 1] && L->uses[b->args[i + 1].scratch] == 1;
    return false;
}

bool is_wgmma_dot(const Op *op)
{
    const Layout *l = op->code == OP_DOT ? op->results[0].type->layout : NULL;
    return l && l->kind == LAY_MMA && nv_is_wgmma(l->instr);
}

WgmmaLoop wgmma_loop_begin(Lower *L, const Block *body)
{
    WgmmaLoop outer = {L->hold_copies, L->held_base};
    L->held_base = L->nheld;
    L->hold_copies = false;
    for (const Op *op = body->first; op && L->wgmma; op = op->next)
        if (is_wgmma_dot(op) && carried_only(L, op))
            L->hold_copies = true;
    return outer;
}

void wgmma_loop_end(Lower *L, WgmmaLoop outer)
{
    /* copies still held: the dot was not a wgmma after all (mma.sync reads its buffers synchronously,
     * and the iteration's barrier ordered every earlier read before these writes) */
    async_release(L, false);
    L->hold_copies = outer.hold;
    L->held_base = outer.base;
}

void wgmma_after_loop(Lower *L, Op *loop)
{
    Block *body = op_block(loop, 0);
    const Op *y = body->last;
    if (!L->wgmma || !y || y->code != OP_YIELD)
        return;
    for (int i = 0; i < y->nopnds && i < loop->nres; i++) {
        if (!L->inflight[y->operands[i]->scratch])
            continue;
        const LVal *v = lval(L, &loop->results[i]);
        LVal w = lval_new(L, v->n, v->ll);
        memcpy(w.r, v->r, sizeof(LLVMValueRef) * (size_t)v->n);
        tgt_wgmma_wait(L, w.r, w.n, 0);
        lval_set(L, &loop->results[i], w);
    }
}

bool lower_dot_wgmma(Lower *L, Op *op)
{
    const Type *ta = op->operands[0]->type, *tb = op->operands[1]->type, *tc = op->results[0].type;
    const Layout *cl = tc->layout;
    const Deferred *da = L->deferred[op->operands[0]->scratch], *db = L->deferred[op->operands[1]->scratch];
    int64_t M = ta->shape[0], K = ta->shape[1], N = tb->shape[1];
    int nw = L->nw;
    /* A from registers (wgmma's register form) when it is there: a chained dot's (attention's P) */
    bool a_regs = !da && lval(L, op->operands[0])->n > 0;
    if ((!a_regs && !readable(da, false)) || !readable(db, true) || cl->wpc[0] != nw || cl->wpc[1] != 1 ||
        nw % 4 || M % (16 * nw) || K % 16 || N % 8 || (N > 256 && N % 256))
        return false;
    const LinLayout *lc = &lay_info(L, tc)->ll;
    LVal *C = lval(L, op->operands[2]);
    int64_t rows = 16 * (int64_t)nw; /* rows of one repeat of the layout over the warps */
    int nm = (int)(M / rows), ni = (int)(N > 256 ? 256 : N), nn = (int)(N / ni), nacc = ni / 2;
    int ntiles = nm * nn;
    /* each instruction tile's accumulators, in the instruction's order */
    int *reg = ARENA_ARRAY(L->a, int, (size_t)ntiles * (size_t)nacc);
    LLVMValueRef *acc = ARENA_ARRAY(L->a, LLVMValueRef, (size_t)ntiles * (size_t)nacc);
    for (int i = 0; i < nm; i++)
        for (int j = 0; j < nn; j++)
            for (int r = 0; r < nacc; r++) {
                int64_t c[2] = {i * rows + 8 * ((r >> 1) & 1), (int64_t)j * ni + 8 * (r >> 2) + (r & 1)};
                int at = (i * nn + j) * nacc + r;
                reg[at] = lin_reg_of(lc, c);
                if (reg[at] < 0 || reg[at] >= C->n) {
                    lower_error(L, "internal error: the accumulator layout is not wgmma's");
                    return true;
                }
                acc[at] = C->r[reg[at]];
            }
    /* the warpgroup's first row: warps 4g .. 4g+3 hold rows 64g .. 64g+63 of each repeat */
    LLVMValueRef wg_lines = nw > 4 ? LLVMBuildShl(L->b, LLVMBuildLShr(L->b, L->warp, const_i32(L, 2), ""),
                                                  const_i32(L, 6), "")
                                   : NULL;
    bool b_mn = !db->kmajor;
    LLVMValueRef *dA = ARENA_ARRAY(L->a, LLVMValueRef, nm), *dB = ARENA_ARRAY(L->a, LLVMValueRef, nn);
    /* A's fragments (register form), all of them before the fence: a register written between the
     * fence and its wgmma makes ptxas add a fence of its own before that wgmma (C7519) */
    int nk = (int)(K / 16);
    LLVMValueRef (*fA)[4] = arena_alloc(L->a, sizeof(LLVMValueRef[4]) * (size_t)nm * (size_t)nk);
    for (int64_t k0 = 0; k0 < K && a_regs && !L->failed; k0 += 16)
        for (int i = 0; i < nm; i++)
            mma_a_fragment(L, &lay_info(L, ta)->ll, lval(L, op->operands[0]), cl->instr, i * rows, k0,
                           fA[k0 / 16 * nm + i]);
    tgt_wgmma_fence(L);
    for (int64_t k0 = 0; k0 < K && !L->failed; k0 += 16) {
        for (int i = 0; i < nm && !a_regs; i++)
            dA[i] = descriptor(L, da, false, wg_lines, i * rows, k0);
        for (int j = 0; j < nn; j++)
            dB[j] = descriptor(L, db, b_mn, NULL, (int64_t)j * ni, k0);
        for (int i = 0; i < nm; i++)
            for (int j = 0; j < nn; j++)
                if (a_regs)
                    tgt_wgmma_rs(L, cl->instr, ni, fA[k0 / 16 * nm + i], dB[j], b_mn, &acc[(i * nn + j) * nacc]);
                else
                    tgt_wgmma(L, cl->instr, ni, dA[i], dB[j], b_mn, &acc[(i * nn + j) * nacc]);
    }
    tgt_wgmma_commit(L);
    bool carried = carried_only(L, op);
    tgt_wgmma_wait(L, acc, ntiles * nacc, carried ? 1 : 0);
    if (carried) {
        L->inflight[op->results[0].scratch] = true;
        tgt_barrier(L);
        async_release(L, true);
    }
    LVal out = lval_new(L, C->n, C->ll);
    for (int t = 0; t < ntiles * nacc; t++)
        out.r[reg[t]] = acc[t];
    for (int r = 0; r < C->n; r++)
        if (!out.r[r]) {
            lower_error(L, "internal error: accumulator register %d is in no wgmma tile", r);
            return true;
        }
    lval_set(L, op_result(op, 0), out);
    return true;
}
