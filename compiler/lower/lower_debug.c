/* device_assert and print. Both are active on the emulator and in debug builds; a release build for
 * the GPU drops them. Only one lane prints each element — the one whose replicated lane and wave bits
 * are zero — so the output lists every element once, as the interpreter's does. */
#include "compiler/lower/lower_internal.h"
#include "isa/emu_abi.h"

/* True in the lane that owns its elements (not a replica). */
static LLVMValueRef owner(Lower *L, const LinLayout *ll)
{
    int lmask = 0, wmask = 0;
    if (!ll)
        return LLVMBuildICmp(L->b, LLVMIntEQ, L->tid, const_i32(L, 0), "");
    for (int b = 0; b < ll->nlane; b++) {
        bool zero = true;
        for (int d = 0; d < ll->rank; d++)
            zero &= ll->lane[b][d] == 0;
        if (zero)
            lmask |= 1 << b;
    }
    for (int b = 0; b < ll->nwarp; b++) {
        bool zero = true;
        for (int d = 0; d < ll->rank; d++)
            zero &= ll->warp[b][d] == 0;
        if (zero)
            wmask |= 1 << b;
    }
    LLVMValueRef a = LLVMBuildICmp(L->b, LLVMIntEQ, LLVMBuildAnd(L->b, L->lane, const_i32(L, lmask), ""), const_i32(L, 0), "");
    LLVMValueRef w = LLVMBuildICmp(L->b, LLVMIntEQ, LLVMBuildAnd(L->b, L->warp, const_i32(L, wmask), ""), const_i32(L, 0), "");
    return LLVMBuildAnd(L->b, a, w, "");
}

static void when(Lower *L, LLVMValueRef cond, LLVMBasicBlockRef *body, LLVMBasicBlockRef *done)
{
    *body = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "");
    *done = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "");
    LLVMBuildCondBr(L->b, cond, *body, *done);
    LLVMPositionBuilderAtEnd(L->b, *body);
}

static LLVMValueRef bits64(Lower *L, LLVMValueRef v, const Type *t, int *kind)
{
    const Type *e = ty_elem(t);
    if (e->kind == TY_PTR) {
        *kind = EMU_PRINT_PTR;
        return LLVMBuildPtrToInt(L->b, v, L->i64, "");
    }
    if (e->sk == SK_BOOL) {
        *kind = EMU_PRINT_BOOL;
        return LLVMBuildZExt(L->b, v, L->i64, "");
    }
    if (sk_is_float(e->sk)) {
        *kind = EMU_PRINT_F64;
        if (fp_is16(e->sk))
            v = fp_to_f32(L, v, e->sk);
        LLVMValueRef d = e->sk == SK_F64 ? v : LLVMBuildFPExt(L->b, v, L->f64, "");
        return LLVMBuildBitCast(L->b, d, L->i64, "");
    }
    *kind = sk_is_signed(e->sk) ? EMU_PRINT_I64 : EMU_PRINT_U64;
    if (sk_bits(e->sk) == 64)
        return v;
    return sk_is_signed(e->sk) ? LLVMBuildSExt(L->b, v, L->i64, "") : LLVMBuildZExt(L->b, v, L->i64, "");
}

void lower_debug(Lower *L, Op *op)
{
    if (!L->debug)
        return;
    if (op->code == OP_ASSERT) {
        LVal *c = lval(L, op->operands[0]);
        if (HOOKS->assert_point) { /* the emulator: every lane reports, the workgroup stops together */
            LLVMValueRef ok = LLVMConstInt(L->i1, 1, 0);
            for (int r = 0; r < c->n; r++)
                ok = LLVMBuildAnd(L->b, ok, c->r[r], "");
            HOOKS->assert_point(L, ok, op->at.msg ? op->at.msg : "");
            return;
        }
        for (int r = 0; r < c->n; r++) {
            LLVMBasicBlockRef body, done;
            when(L, LLVMBuildNot(L->b, c->r[r], ""), &body, &done);
            tgt_assert_fail(L, op->at.msg ? op->at.msg : "");
            LLVMBuildBr(L->b, done);
            LLVMPositionBuilderAtEnd(L->b, done);
        }
        return;
    }
    const char *msg = op->at.msg ? op->at.msg : "";
    if (op->nopnds == 0) {
        LLVMBasicBlockRef body, done;
        when(L, owner(L, NULL), &body, &done);
        tgt_print(L, msg, 0, NULL, EMU_PRINT_NONE, const_i64(L, 0));
        LLVMBuildBr(L->b, done);
        LLVMPositionBuilderAtEnd(L->b, done);
        return;
    }
    const Type *t = op->operands[0]->type;
    LVal *x = lval(L, op->operands[0]);
    const LayInfo *li = t->kind == TY_TILE ? lay_info(L, t) : NULL;
    LLVMBasicBlockRef body, done;
    when(L, owner(L, li ? &li->ll : NULL), &body, &done);
    for (int r = 0; r < x->n; r++) {
        LLVMValueRef coords[TIR_MAX_RANK];
        int rank = li ? t->rank : 0;
        for (int d = 0; d < rank; d++)
            coords[d] = reg_coord(L, li, r, d);
        int kind;
        LLVMValueRef b = bits64(L, x->r[r], t, &kind);
        tgt_print(L, msg, rank, coords, kind, b);
    }
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, done);
}
