/* sm_90: the stage buffers of a ring filled by the bulk tensor copy engine (TMA) instead of cp.async.
 *
 * Which rings TMA fills is plan_async's decision (compiler/target/nvptx/plan_async.c: a ring's loads, the
 * prologue's and the loop's, qualify when tma_match finds the same tensor behind each: a 2-byte
 * element tile whose contiguous dimension is the stage buffer's lines, 32, 64 or 128 bytes or
 * 128-byte columns, 8 to 256 lines); this file translates its attributes: the kernel's tensors
 * (Func.tma, the runtime's descriptions, read by tma_setup) and each copy's coordinates and
 * conditions (the load's tma_coord, tma_pred). The tensor's map is a kernel parameter the runtime
 * builds at launch (a CUtensorMap, 128 bytes, `.param .align 64`, read through its generic address:
 * nvvm.grid_constant) from the description this file passes on in the kernel's `tma` string
 * (LowerResult); the copy lands exactly where stage_chunk_offset puts the cp.async
 * chunks, since TMA's 32/64/128-byte swizzles are wgmma's.
 *
 * Completion: one mbarrier per buffer (8 bytes of shared memory after the ring's buffers),
 * initialised with an arrival count of 1 at the kernel's start. Thread 0 issues: arrive.expect_tx of
 * the tile's bytes, then one copy per 128-byte column, each completing its bytes on that barrier; when
 * the copy's uniform conditions fail (an iteration past the loop's end), a plain arrive, so that every
 * buffer's phases keep counting fills. Tile t of a loop is in buffer t mod S, the (t div S)-th fill of
 * it: readers wait for phase parity (t div S) & 1. A loop nested in another starts its barriers again
 * before each run (lower_async.c, tma_restart); the barriers are invalidated before their shared
 * memory serves anything else.
 *
 * Coordinates are i32 in elements, inner first. A negative one (which TMA would fill with zeros
 * where the mask reads memory) traps. A dimension that is 0 or less at launch makes the whole box
 * out of bounds: the runtime gives the map a dimension of 1 and the copy a coordinate of 1 there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/lower/lower_internal.h"

/* One dimension of a tensor's description: K+C*P (or +C*P*Q) over parameter indices, "*" open. */
static const char *parse_dim(Lower *L, const char *s, PlanLin *l, bool *open)
{
    memset(l, 0, sizeof *l);
    while (*s == ' ')
        s++;
    if (*s == '*') {
        *open = true;
        return s + 1;
    }
    *open = false;
    char *e;
    l->k = strtoll(s, &e, 10);
    s = e;
    Block *body = L->f->body;
    while ((*s == '+' || *s == '-') && l->n < PLAN_LIN_MAX) {
        l->t[l->n].c = strtoll(s, &e, 10);
        long p = *e == '*' ? strtol(e + 1, &e, 10) : -1, q = -1;
        if (*e == '*')
            q = strtol(e + 1, &e, 10);
        if (p < 0 || p >= body->nargs || q >= body->nargs) {
            lower_error(L, "internal error: a TMA tensor's description names no parameter");
            return "";
        }
        l->t[l->n].a = &body->args[p];
        l->t[l->n].b = q >= 0 ? &body->args[q] : NULL;
        l->n++;
        s = e;
    }
    return s;
}

/* The tensors of plan_async's descriptions (Func.tma): "tma P E B0 B1 SW D0 D1 S1 [D2 S2]". */
void tma_setup(Lower *L, Func *f)
{
    L->ntma = L->tma_cap = f->ntma;
    L->tma = ARENA_ARRAY(L->a, TmaTensor, f->ntma + 1);
    for (int i = 0; i < f->ntma; i++) {
        TmaTensor *t = &L->tma[i];
        int ptr, esize, used = 0;
        t->spec = f->tma[i];
        if (sscanf(t->spec, "tma %d %d %d %d %d%n", &ptr, &esize, &t->box[0], &t->box[1], &t->swizzle, &used) != 5) {
            lower_error(L, "internal error: a TMA tensor's description does not read");
            return;
        }
        PlanLin stride;
        bool open;
        const char *s = parse_dim(L, t->spec + used, &t->dim[0], &t->open[0]);
        s = parse_dim(L, s, &t->dim[1], &t->open[1]);
        s = parse_dim(L, s, &stride, &open);
        t->rank = 2;
        if (*s == ' ') {
            parse_dim(L, s, &t->dim[2], &t->open[2]);
            t->rank = 3;
        }
    }
}

void tma_bind_params(Lower *L, int np)
{
    LLVMTypeRef map = LLVMArrayType2(L->i8, 128);
    for (int i = 0; i < L->ntma; i++) {
        unsigned idx = (unsigned)(np + i) + 1;
        LLVMAddAttributeAtIndex(L->fn, idx, LLVMCreateTypeAttribute(L->ctx, LLVMGetEnumAttributeKindForName("byval", 5), map));
        LLVMAddAttributeAtIndex(L->fn, idx, LLVMCreateEnumAttribute(L->ctx, LLVMGetEnumAttributeKindForName("align", 5), 64));
        LLVMAddAttributeAtIndex(L->fn, idx, LLVMCreateStringAttribute(L->ctx, "nvvm.grid_constant", 18, "", 0));
        L->tma[i].param = np + i;
    }
}

const char *tma_spec(Lower *L)
{
    if (!L->ntma)
        return NULL;
    size_t len = 1;
    for (int i = 0; i < L->ntma; i++)
        len += strlen(L->tma[i].spec) + 1;
    char *s = arena_alloc(L->diags->arena, len), *p = s; /* outlives the lowering's arena */
    for (int i = 0; i < L->ntma; i++)
        p += sprintf(p, "%s\n", L->tma[i].spec);
    *p = 0;
    return s;
}

static LLVMValueRef bar_addr(Lower *L, int bars, LLVMValueRef slot)
{
    return tgt_smem_addr(L, LLVMBuildAdd(L->b, const_i32(L, bars), LLVMBuildShl(L->b, slot, const_i32(L, 3), ""), ""));
}

void tma_init(Lower *L, int bars, int S, bool last)
{
    LLVMTypeRef pt[2] = {L->i32, L->i32};
    for (int s = 0; s < S; s++) {
        LLVMValueRef args[2] = {L->tid, bar_addr(L, bars, const_i32(L, s))};
        tgt_inline_asm(L, L->void_t, pt, args, 2, "{ .reg .pred p; setp.eq.u32 p, $0, 0; @p mbarrier.init.shared::cta.b64 [$1], 1; }",
                 "r,r,~{memory}");
    }
    if (last)
        tma_init_done(L);
}

void tma_init_done(Lower *L)
{
    tgt_inline_asm(L, L->void_t, NULL, NULL, 0, "fence.mbarrier_init.release.cluster;", "~{memory}");
    tgt_barrier(L);
}

void tma_flag_init(Lower *L)
{
    LLVMTypeRef pt[2] = {L->i32, L->i32};
    LLVMValueRef args[2] = {L->tid, tgt_smem_addr(L, const_i32(L, L->tma_flag))};
    tgt_inline_asm(L, L->void_t, pt, args, 2, "{ .reg .pred p; setp.eq.u32 p, $0, 0; @p st.shared.u32 [$1], 0; }",
             "r,r,~{memory}");
}

void tma_check(Lower *L)
{
    LLVMTypeRef pt[2] = {L->i32, L->i32};
    LLVMValueRef args[2] = {L->tid, tgt_smem_addr(L, const_i32(L, L->tma_flag))};
    tgt_inline_asm(L, L->void_t, pt, args, 2,
             "{ .reg .pred p; .reg .b32 f; setp.eq.u32 p, $0, 0; @p ld.shared.u32 f, [$1]; "
             "@p setp.ne.u32 p, f, 0; @p trap; }",
             "r,r,~{memory}");
}

void tma_inval(Lower *L, int bars, int S)
{
    LLVMTypeRef pt[2] = {L->i32, L->i32};
    for (int s = 0; s < S; s++) {
        LLVMValueRef args[2] = {L->tid, bar_addr(L, bars, const_i32(L, s))};
        tgt_inline_asm(L, L->void_t, pt, args, 2, "{ .reg .pred p; setp.eq.u32 p, $0, 0; @p mbarrier.inval.shared::cta.b64 [$1]; }",
                 "r,r,~{memory}");
    }
}

/* A linear form of the kernel's values at this point (i32). */
static LLVMValueRef lin_value(Lower *L, const PlanLin *l)
{
    LLVMValueRef v = const_i32(L, l->k);
    for (int i = 0; i < l->n; i++) {
        LLVMValueRef x = LLVMBuildMul(L->b, lval(L, l->t[i].a)->r[0], const_i32(L, l->t[i].c), "");
        if (l->t[i].b)
            x = LLVMBuildMul(L->b, x, lval(L, l->t[i].b)->r[0], "");
        v = LLVMBuildAdd(L->b, v, x, "");
    }
    return v;
}

/* Issues the copies of `load` into buffer buf (stage `slot` of a ring with barriers at `bars`).
 *
 * One thread issues: warp 0 (its index made provably uniform by a shuffle, so that the other warps
 * branch around the block) elects a lane with elect.sync. With a plain `tid == 0` predicate ptxas
 * cannot tell that one lane issues, and loops over the lanes around each copy (ELECT, VOTEU, a branch
 * back: tens of instructions that every warp ran in attention's loop). Constant coordinates are
 * written into the instruction. A negative coordinate's flag is written by every lane of warp 0 (the
 * coordinates are uniform), thread 0 among them, which checks it at the end (tma_check). */
void tma_issue(Lower *L, const Op *load, int tensor, int bars, LLVMValueRef slot, LLVMValueRef buf)
{
    const TmaTensor *t = &L->tma[tensor];
    const OpPlan *m = load->plan; /* plan_async's coordinates and conditions */
    const Type *tile = load->results[0].type;
    int64_t pitch = tile->shape[tile->layout->order[0]] * 2;
    int cols = (int)(pitch > 128 ? pitch / 128 : 1); /* copies per tile: 128-byte columns of the buffer */
    if (m->ncoord != t->rank) {
        lower_error(L, "internal error: a TMA copy's coordinates are not its tensor's");
        return;
    }
    LLVMValueRef c[3], zero = const_i32(L, 0);
    char ctext[3][24];
    for (int k = 0; k < t->rank; k++) {
        c[k] = lin_value(L, &m->coord[k]);
        /* a dimension of 0 or less: nothing is in bounds (the map's dimension is 1, the coordinate 1) */
        if (!t->open[k] && !(t->dim[k].n == 0 && t->dim[k].k > 0)) {
            LLVMValueRef empty = LLVMBuildICmp(L->b, LLVMIntSLE, lin_value(L, &t->dim[k]), zero, "");
            c[k] = LLVMBuildSelect(L->b, empty, const_i32(L, 1), c[k], "");
        }
    }
    LLVMValueRef go = LLVMConstInt(L->i1, 1, 0);
    for (int i = 0; i < m->npred; i++)
        go = LLVMBuildAnd(L->b, go, lval(L, m->pred[i])->r[0], "");
    LLVMValueRef any = LLVMBuildOr(L->b, c[0], c[1], "");
    if (t->rank == 3)
        any = LLVMBuildOr(L->b, any, c[2], "");
    LLVMValueRef neg = LLVMBuildAnd(L->b, go, LLVMBuildICmp(L->b, LLVMIntSLT, any, zero, ""), "");
    LLVMValueRef issue = LLVMBuildZExt(L->b, go, L->i32, ""), negative = LLVMBuildZExt(L->b, neg, L->i32, "");
    LLVMValueRef flag = tgt_smem_addr(L, const_i32(L, L->tma_flag));
    LLVMValueRef map = LLVMBuildPtrToInt(L->b, LLVMGetParam(L->fn, (unsigned)t->param), L->i64, "");
    LLVMValueRef bar = bar_addr(L, bars, slot);
    int bytes = t->box[0] * t->box[1] * cols * 2;
    LLVMValueRef warp0 = LLVMBuildICmp(L->b, LLVMIntEQ, tgt_shuffle(L, L->warp, zero), zero, "");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "tma.issue");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "tma.issued");
    LLVMBuildCondBr(L->b, warp0, body, done);
    LLVMPositionBuilderAtEnd(L->b, body);
    /* operands: $0 issue (else a plain arrive), $1 negative, $2 barrier, $3 map, $4 the flag, then the
     * coordinates that are not constants, then the destinations. A negative coordinate sets the flag
     * (tma_check traps at the end: a trap here would make ptxas serialise the loop's wgmma) */
    LLVMTypeRef pt[16];
    LLVMValueRef args[16];
    int n = 0;
    LLVMValueRef in[5] = {issue, negative, bar, map, flag};
    char cons[256] = "r,r,r,l,r";
    for (int i = 0; i < 5; i++) {
        args[n] = in[i];
        pt[n++] = LLVMTypeOf(in[i]);
    }
    for (int k = 0; k < t->rank; k++) {
        if (LLVMIsAConstantInt(c[k])) {
            snprintf(ctext[k], sizeof ctext[k], "%lld", (long long)LLVMConstIntGetSExtValue(c[k]));
        } else {
            snprintf(ctext[k], sizeof ctext[k], "$%d", n);
            args[n] = c[k];
            pt[n++] = L->i32;
            strcat(cons, ",r");
        }
    }
    char text[2048];
    int w = snprintf(text, sizeof text,
                     "{ .reg .pred e, p, q, pn; .reg .b64 st; .reg .b32 cx; elect.sync _|e, 0xffffffff; "
                     "setp.ne.and.u32 p, $0, 0, e; setp.eq.and.u32 q, $0, 0, e; setp.ne.u32 pn, $1, 0; "
                     "@pn st.shared.u32 [$4], 1; "
                     "@p mbarrier.arrive.expect_tx.shared::cta.b64 st, [$2], %d; "
                     "@q mbarrier.arrive.shared::cta.b64 st, [$2]; ",
                     bytes);
    for (int col = 0; col < cols && n < 16; col++) {
        LLVMValueRef dst = LLVMBuildAdd(L->b, buf, const_i32(L, (int64_t)col * t->box[1] * 128), "");
        args[n] = tgt_smem_addr(L, dst);
        pt[n] = L->i32;
        strcat(cons, ",r");
        const char *inner = ctext[0];
        if (col > 0) { /* the next 128-byte column: its inner coordinate */
            if (LLVMIsAConstantInt(c[0]))
                snprintf(ctext[0], sizeof ctext[0], "%lld",
                         (long long)LLVMConstIntGetSExtValue(c[0]) + (long long)col * t->box[0]);
            else
                w += snprintf(text + w, sizeof text - (size_t)w, "add.s32 cx, %s, %d; ", ctext[0],
                              col * t->box[0]);
            inner = LLVMIsAConstantInt(c[0]) ? ctext[0] : "cx";
        }
        w += snprintf(text + w, sizeof text - (size_t)w,
                      "@p cp.async.bulk.tensor.%dd.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                      "[$%d], [$3, {%s, %s%s%s}], [$2]; ",
                      t->rank, n, inner, ctext[1], t->rank == 3 ? ", " : "", t->rank == 3 ? ctext[2] : "");
        n++;
    }
    snprintf(text + w, sizeof text - (size_t)w, "}");
    strcat(cons, ",~{memory}");
    tgt_inline_asm(L, L->void_t, pt, args, n, text, cons);
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, done);
}

void tma_wait(Lower *L, int bars, LLVMValueRef slot, LLVMValueRef parity)
{
    LLVMTypeRef pt[2] = {L->i32, L->i32};
    LLVMValueRef args[2] = {bar_addr(L, bars, slot), parity};
    tgt_inline_asm(L, L->void_t, pt, args, 2,
             "{ .reg .pred p; TMA_WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1; "
             "@!p bra TMA_WAIT; }",
             "r,r,~{memory}");
}
