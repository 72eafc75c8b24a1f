/* Float math the language allows the target to do faster (docs/language.md, "Float arithmetic").
 *
 * Contraction: where the target says so (Target.fp_contract: AMD's gfx targets and the emulator of
 * gfx942), float adds, subtracts and multiplies carry LLVM's `contract` flag, so that a product added
 * or subtracted becomes one fma (gfx942: v_fma_f32, v_pk_fma_f32 for a pair), rounded once, as Triton
 * and HIP do by default. The emulator's host (x86-64 without FMA) has no fused instruction and keeps
 * both roundings.
 *
 * Packed f32 (Target.packed_f32: gfx90a, gfx942, gfx950, emu): these GPUs add, multiply and fma two
 * f32 values held in a register pair in one instruction (v_pk_add_f32, v_pk_mul_f32, v_pk_fma_f32),
 * which LLVM selects for <2 x float> operations; its SLP vectoriser finds few of them in rk's code (a
 * pair that feeds a scalar v_exp_f32 does not pay by its cost model). So the elementwise lowering
 * hands f32 add, sub, mul and fma to fpmath_pair two registers at a time, which makes one <2 x float>
 * op when an operand's two registers are adjacent lanes of one vector (an MFMA result, an accumulator
 * carried round a loop, an earlier pair) that was not loaded from memory, and else declines.
 *
 * NaN-propagating max and min by parts: `maximum`, `minimum` and the reductions `max`, `min` give NaN
 * when any operand is NaN (llvm.maximum / llvm.minimum). gfx942 and gfx90a have no such instruction:
 * LLVM makes each one v_max_f32 + v_cmp_o_f32 + v_cndmask_b32. A chain of them (a reduction's
 * combines in one lane: max(max(max(a, b), c), d)) is rebuilt after the lowering, exactly: the same
 * tree with LLVM's no-NaN flag (v_max_f32 / v_max3_f32, which still order -0 below +0), and one test
 * whether any leaf is NaN (v_cmp_u_f32 of two leaves at a time, or-ed), which selects a quiet NaN.
 * A chain of k leaves costs about k/2 + k/2 + 1 vector instructions instead of 3(k - 1). Targets with
 * the instruction (gfx950's v_maximum3_f32, sm_90's max.NaN) keep the chain as it is. */
#include <math.h>
#include <string.h>

#include "compiler/lower/lower_internal.h"

LLVMValueRef fpmath_contract(Lower *L, LLVMValueRef v)
{
    if (L->t->fp_contract && LLVMIsAInstruction(v) && LLVMCanValueUseFastMathFlags(v))
        LLVMSetFastMathFlags(v, LLVMGetFastMathFlags(v) | LLVMFastMathAllowContract);
    return v;
}

/* 1: llvm.maximum.*, 2: llvm.minimum.* on a float scalar; 0 else */
static int minmax_kind(LLVMValueRef I)
{
    if (!I || !LLVMIsACallInst(I))
        return 0;
    LLVMValueRef f = LLVMGetCalledValue(I);
    if (!f || !LLVMIsAFunction(f))
        return 0;
    LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(I));
    if (k != LLVMFloatTypeKind && k != LLVMHalfTypeKind)
        return 0;
    size_t n;
    const char *name = LLVMGetValueName2(f, &n);
    if (n > 13 && strncmp(name, "llvm.maximum.", 13) == 0)
        return 1;
    if (n > 13 && strncmp(name, "llvm.minimum.", 13) == 0)
        return 2;
    return 0;
}

/* An operand of a chain's call that belongs to the chain: the same op, used only there, in its block. */
static bool inner_link(LLVMValueRef op, int kind, LLVMValueRef user)
{
    if (minmax_kind(op) != kind)
        return false;
    LLVMUseRef u = LLVMGetFirstUse(op);
    return u && !LLVMGetNextUse(u) && LLVMGetInstructionParent(op) == LLVMGetInstructionParent(user);
}

enum { CHAIN_MAX = 64 };

/* The chain's leaves, left to right, and its calls marked no-NaN; false when it has too many. */
static bool collect(LLVMValueRef call, int kind, LLVMValueRef *leaves, int *n, LLVMValueRef *calls, int *nc)
{
    if (*nc >= CHAIN_MAX)
        return false;
    calls[(*nc)++] = call;
    for (unsigned i = 0; i < 2; i++) {
        LLVMValueRef op = LLVMGetOperand(call, i);
        if (inner_link(op, kind, call)) {
            if (!collect(op, kind, leaves, n, calls, nc))
                return false;
        } else {
            if (*n >= CHAIN_MAX)
                return false;
            leaves[(*n)++] = op;
        }
    }
    return true;
}

static void split_chain(Lower *L, LLVMValueRef root, int kind)
{
    LLVMValueRef leaves[CHAIN_MAX], calls[CHAIN_MAX];
    int n = 0, nc = 0;
    if (!collect(root, kind, leaves, &n, calls, &nc) || n < 3)
        return; /* one op alone costs the same either way */
    LLVMValueRef next = LLVMGetNextInstruction(root);
    if (!next)
        return;
    for (int i = 0; i < nc; i++)
        LLVMSetFastMathFlags(calls[i], LLVMGetFastMathFlags(calls[i]) | LLVMFastMathNoNaNs);
    LLVMPositionBuilderBefore(L->b, next);
    LLVMValueRef any = NULL;
    for (int i = 0; i < n; i += 2) {
        LLVMValueRef b = i + 1 < n ? leaves[i + 1] : leaves[i];
        LLVMValueRef u = LLVMBuildFCmp(L->b, LLVMRealUNO, leaves[i], b, "");
        any = any ? LLVMBuildOr(L->b, any, u, "") : u;
    }
    /* select(any, NaN, root) takes root's uses; it is a constant when every leaf is one */
    LLVMValueRef sel = LLVMBuildSelect(L->b, any, LLVMConstReal(LLVMTypeOf(root), NAN), root, "");
    for (bool again = true; again;) {
        again = false;
        for (LLVMUseRef u = LLVMGetFirstUse(root); u; u = LLVMGetNextUse(u)) {
            LLVMValueRef user = LLVMGetUser(u);
            if (user == sel)
                continue;
            for (int i = 0; i < LLVMGetNumOperands(user); i++)
                if (LLVMGetOperand(user, (unsigned)i) == root)
                    LLVMSetOperand(user, (unsigned)i, sel);
            again = true; /* the use list changed under us */
            break;
        }
    }
}

void fpmath_split_max_chains(Lower *L)
{
    if (!L->t->max_by_parts)
        return;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(L->fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef I = LLVMGetFirstInstruction(bb), next; I; I = next) {
            next = LLVMGetNextInstruction(I);
            int kind = minmax_kind(I);
            if (!kind)
                continue;
            /* a root: not itself a link of a longer chain */
            LLVMUseRef u = LLVMGetFirstUse(I);
            if (u && !LLVMGetNextUse(u) && inner_link(I, kind, LLVMGetUser(u)) && minmax_kind(LLVMGetUser(u)) == kind)
                continue;
            split_chain(L, I, kind);
            next = LLVMGetNextInstruction(I);
        }
}

/* Packed f32 math (above): the op is done once on <2 x float> operands (a shufflevector where both
 * registers come from one vector) and its two lanes taken out again; LLVM folds those extracts into
 * the next pair's vectors. */
bool fpmath_pairable(Lower *L, const Op *op)
{
    if (!L->t->packed_f32 || op->nres != 1 || op->nopnds < 2)
        return false;
    if (op->code != OP_ADD && op->code != OP_SUB && op->code != OP_MUL && op->code != OP_FMA)
        return false;
    if (ty_elem(op->results[0].type)->sk != SK_F32)
        return false;
    for (int i = 0; i < op->nopnds; i++)
        if (ty_elem(op->operands[i]->type)->sk != SK_F32)
            return false;
    return true;
}

/* A vector load, or a masked one (the phi after its branch). Pairs from loaded vectors are left to
 * LLVM: done in pairs, softmax's 16 floats a lane (bench/vs_triton) took 4 more VGPRs, 68, and 2
 * waves fewer per SIMD, for no fewer instructions. */
static bool loaded(LLVMValueRef v)
{
    if (LLVMIsALoadInst(v))
        return true;
    if (LLVMIsAPHINode(v))
        for (unsigned i = 0; i < LLVMCountIncoming(v); i++)
            if (LLVMIsALoadInst(LLVMGetIncomingValue(v, i)))
                return true;
    return false;
}

/* x and y are lanes j and j + 1 of one vector that was not loaded */
static bool adjacent_lanes(LLVMValueRef x, LLVMValueRef y)
{
    if (!LLVMIsAExtractElementInst(x) || !LLVMIsAExtractElementInst(y) || LLVMGetOperand(x, 0) != LLVMGetOperand(y, 0))
        return false;
    LLVMValueRef i = LLVMGetOperand(x, 1), j = LLVMGetOperand(y, 1);
    return LLVMIsAConstantInt(i) && LLVMIsAConstantInt(j) && LLVMConstIntGetZExtValue(j) == LLVMConstIntGetZExtValue(i) + 1 &&
           !loaded(LLVMGetOperand(x, 0));
}

bool fpmath_pair(Lower *L, const Op *op, LLVMValueRef *xs0, LLVMValueRef *xs1, int k, LLVMValueRef out[2])
{
    LLVMValueRef v[4];
    bool in_pair = false;
    for (int i = 0; i < k; i++)
        in_pair |= adjacent_lanes(xs0[i], xs1[i]);
    if (!in_pair)
        return false;
    LLVMTypeRef vt = LLVMVectorType(L->f32, 2);
    for (int i = 0; i < k; i++) {
        LLVMValueRef two[2] = {xs0[i], xs1[i]};
        v[i] = vector_of(L, L->f32, two, 2);
    }
    LLVMValueRef r;
    switch (op->code) {
    case OP_ADD: r = fpmath_contract(L, LLVMBuildFAdd(L->b, v[0], v[1], "")); break;
    case OP_SUB: r = fpmath_contract(L, LLVMBuildFSub(L->b, v[0], v[1], "")); break;
    case OP_MUL: r = fpmath_contract(L, LLVMBuildFMul(L->b, v[0], v[1], "")); break;
    default: {
        LLVMValueRef f = LLVMGetNamedFunction(L->mod, "llvm.fma.v2f32");
        LLVMTypeRef ft = LLVMFunctionType(vt, (LLVMTypeRef[]){vt, vt, vt}, 3, 0);
        if (!f)
            f = LLVMAddFunction(L->mod, "llvm.fma.v2f32", ft);
        r = LLVMBuildCall2(L->b, ft, f, v, 3, "");
        break;
    }
    }
    out[0] = LLVMBuildExtractElement(L->b, r, const_i32(L, 0), "");
    out[1] = LLVMBuildExtractElement(L->b, r, const_i32(L, 1), "");
    return true;
}
