/* Covered loads: a rotated loop's global loads of the next iteration's tiles that its dot issues
 * among its MFMAs (Lower.covered), so that their address and mask work and their issue run under the
 * matrix unit rather than in the loop's MFMA-free top.
 *
 * The dot takes them in one of two ways. lower_next_covered lowers the next load where the dot
 * stands, all of it. lower_covered_row, called by dot_mfma after each of its rows of MFMAs, issues
 * them in pieces: at its first call it lowers every load left (their address work there, which its
 * row sched barriers let LLVM move among the MFMAs), takes each vector memory instruction out of the
 * block with what is computed from its value (a piece), and then puts back as many pieces a row as
 * needed to issue the last by the row the dot allows (its rows before the writes that read the
 * loads, less a global load's latency): 8 back-to-back buffer loads of a 256x128 tile become one a
 * row, the VMEM issue and its hazard nops spread under the MFMAs (rk's loop model, 256x128x64 w4 k16:
 * 2560 -> 2504 cycles). A piece moves later in the same block, past MFMAs and LDS reads only (the
 * covered loads stand before no store, atomic or barrier), with everything that uses its value, so
 * it computes the same values. A load whose lowering holds anything but pure instructions and its
 * memory instructions (the emulator's loads: a call through its table and a read of the stack slot
 * it fills) is not split and stays where it was lowered. */
#include <string.h>

#include "compiler/lower/lower_internal.h"

/* A rotated loop's body (NULL: none): the global loads its dot can issue among its MFMAs. The dot is
 * the body's last direct dot; a load qualifies when it stands before it, is not a stage buffer's, its
 * tile is read only by the yield (the next iteration's operand), so nothing between it and the dot
 * waits for it, and only loads and pure ops stand between it and the dot (it must not move past a
 * store, an atomic or a barrier). */
void lower_find_covered(Lower *L, Block *body)
{
    L->covered = NULL;
    L->ncovered = 0;
    L->cover_dot = NULL;
    L->pieces = NULL;
    L->npieces = L->next_piece = L->pieces_per_row = 0;
    if (!body || !body->last || body->last->code != OP_YIELD)
        return;
    const Op *dot = NULL;
    int nops = 0;
    for (const Op *op = body->first; op; op = op->next, nops++)
        if (op->code == OP_DOT)
            dot = op;
    if (!dot)
        return;
    const Op *y = body->last;
    Op **list = ARENA_ARRAY(L->a, Op *, nops + 1);
    int n = 0;
    for (Op *op = body->first; op != dot; op = op->next) {
        if (op->code != OP_LOAD && !op_is_pure(op)) {
            n = 0; /* a store, an atomic, a barrier...: the loads before it must not move past it */
            continue;
        }
        if (op->code != OP_LOAD || op->nres != 1 || lower_is_shared_tile(op->results[0].type))
            continue;
        int in_yield = 0;
        for (int i = 0; i < y->nopnds; i++)
            in_yield += y->operands[i] == &op->results[0];
        if (in_yield && in_yield == L->uses[op->results[0].scratch])
            list[n++] = op;
    }
    if (!n)
        return;
    L->covered = list;
    L->ncovered = n;
    L->cover_dot = dot;
}

/* Lowers the next covered load where the builder stands (false when none is left). */
static bool lower_one(Lower *L)
{
    if (!L->ncovered || L->failed)
        return false;
    Op *op = L->covered[0];
    L->covered++;
    L->ncovered--;
    const Op *saved = L->op;
    SrcPos pos = L->pos;
    L->pos = op->pos;
    L->op = op; /* not lower_op: the dot's pending LDS remarks stay the dot's */
    lower_memory(L, op);
    L->op = saved;
    L->pos = pos;
    return true;
}

/* Puts the next piece back where the builder stands. */
static void put_piece(Lower *L)
{
    CoveredPiece *p = &L->pieces[L->next_piece++];
    for (int i = 0; i < p->n; i++)
        LLVMInsertIntoBuilder(L->b, p->ins[i]);
}

void lower_covered_flush(Lower *L)
{
    while (L->next_piece < L->npieces)
        put_piece(L);
}

bool lower_next_covered(Lower *L)
{
    lower_covered_flush(L);
    return lower_one(L);
}

/* The name of the function a call instruction calls directly; NULL for anything else. */
static const char *callee_name(LLVMValueRef in)
{
    LLVMValueRef f = LLVMIsACallInst(in) ? LLVMGetCalledValue(in) : NULL;
    size_t len;
    return f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : NULL;
}

/* A vector memory instruction: a piece's first. */
static bool is_memory_read(LLVMValueRef in)
{
    if (LLVMIsALoadInst(in))
        return LLVMGetPointerAddressSpace(LLVMTypeOf(LLVMGetOperand(in, 0))) == 1; /* global */
    const char *name = callee_name(in);
    return name && strncmp(name, "llvm.amdgcn.raw.", 16) == 0 && strstr(name, ".buffer.load") != NULL;
}

/* An instruction that may move later among the dot's MFMAs and reads: one without side effects (no
 * store, no fence, no call but of an LLVM intrinsic other than a barrier, a wait or a sched hint). */
static bool movable(LLVMValueRef in)
{
    if (LLVMIsAStoreInst(in) || LLVMIsAFenceInst(in) || LLVMIsAAtomicRMWInst(in) || LLVMIsAAtomicCmpXchgInst(in))
        return false;
    if (LLVMIsALoadInst(in))
        return is_memory_read(in);
    if (!LLVMIsACallInst(in))
        return true;
    const char *name = callee_name(in);
    return name && strncmp(name, "llvm.", 5) == 0 && !strstr(name, "barrier") && !strstr(name, "wait") &&
           !strstr(name, "sched") && !strstr(name, "setprio");
}

/* Splits what lowering covered loads emitted after `mark` (NULL: from the block's start) into pieces
 * taken out of the block; false, leaving it as it is, when anything there may not move. */
static bool split(Lower *L, LLVMBasicBlockRef bb, LLVMValueRef mark)
{
    int n = 0;
    LLVMValueRef first = mark ? LLVMGetNextInstruction(mark) : LLVMGetFirstInstruction(bb);
    for (LLVMValueRef in = first; in; in = LLVMGetNextInstruction(in), n++)
        if (!movable(in))
            return false;
    LLVMValueRef *ins = ARENA_ARRAY(L->a, LLVMValueRef, n + 1);
    int *piece = ARENA_ARRAY(L->a, int, n + 1);
    int np = 0;
    n = 0;
    for (LLVMValueRef in = first; in; in = LLVMGetNextInstruction(in)) {
        int g = -1; /* -1: stays (address work); else the latest piece among its operands */
        int nops = LLVMGetNumOperands(in);
        for (int k = 0; k < nops; k++) {
            LLVMValueRef o = LLVMGetOperand(in, (unsigned)k);
            for (int j = n - 1; j >= 0 && g < np - 1; j--)
                if (ins[j] == o && piece[j] > g)
                    g = piece[j];
        }
        if (is_memory_read(in))
            g = np++;
        ins[n] = in;
        piece[n++] = g;
    }
    if (!np)
        return false;
    L->pieces = ARENA_ARRAY(L->a, CoveredPiece, np);
    for (int g = 0; g < np; g++) {
        CoveredPiece *p = &L->pieces[g];
        p->n = 0;
        for (int i = 0; i < n; i++)
            p->n += piece[i] == g;
        p->ins = ARENA_ARRAY(L->a, LLVMValueRef, p->n + 1);
        p->n = 0;
        for (int i = 0; i < n; i++)
            if (piece[i] == g)
                p->ins[p->n++] = ins[i];
    }
    for (int i = 0; i < n; i++)
        if (piece[i] >= 0)
            LLVMInstructionRemoveFromParent(ins[i]);
    L->npieces = np;
    L->next_piece = 0;
    return true;
}

bool lower_covered_row(Lower *L, int rows)
{
    if (L->failed)
        return false;
    if (!L->pieces_per_row) {
        if (!L->ncovered)
            return false;
        LLVMBasicBlockRef bb = LLVMGetInsertBlock(L->b);
        LLVMValueRef mark = LLVMGetLastInstruction(bb);
        while (lower_one(L))
            ;
        if (L->failed || LLVMGetInsertBlock(L->b) != bb || !split(L, bb, mark)) {
            L->pieces_per_row = -1; /* issued where lowered */
            return true;
        }
        L->pieces_per_row = rows > 0 ? (L->npieces + rows - 1) / rows : L->npieces;
    }
    if (L->next_piece >= L->npieces)
        return false;
    for (int i = 0; i < L->pieces_per_row && L->next_piece < L->npieces; i++)
        put_piece(L);
    return true;
}
