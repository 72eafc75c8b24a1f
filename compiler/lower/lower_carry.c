/* Carried MFMAs: a loop's dot leaves its last rows of MFMAs to the start of the next iteration.
 *
 * A matmul loop's top waits at the barrier for every wave's LDS writes of the next tiles and then
 * for its first LDS reads, with no MFMA to issue: the last rows of the previous iteration ran before
 * the barrier (256x256x64 w8 k16: 152 of the 4456 cycles of an iteration, by rk's loop model, the
 * matrix unit idle there). Those rows need nothing from the LDS any more, only their operand
 * registers, so the dot keeps the registers (phis at the loop's header) and issues the rows' MFMAs
 * at the next iteration's start, right after its first reads, where they run while the reads
 * complete; after the loop they are issued once more for the last iteration's rows.
 *
 * The order of each accumulator's additions is unchanged: a carried MFMA adds to its tile before the
 * next iteration's MFMAs of that tile, and the result is the same bit for bit. In the first
 * iteration the carried registers are zeros: their MFMAs add +0 to the accumulator's initial value,
 * which leaves every value but -0 alone (and a subnormal, where the unit flushes it), so a loop
 * carries only where that value is a constant that is neither (the `zeros` of a matmul). The dot
 * must be the accumulator's only reader in the body and its result read by nothing but the yield:
 * the value that goes round the loop lacks the carried rows, and only the loop's end adds them. */
#include <math.h>

#include "compiler/lower/lower_internal.h"

/* A register value the carried zeros leave unchanged: a constant that is not -0, nor a subnormal
 * (which a matrix unit that flushes them would turn into 0). */
static bool survives_zero_add(LLVMValueRef v)
{
    if (LLVMIsAConstantInt(v))
        return true;
    if (!LLVMIsAConstantFP(v))
        return false;
    LLVMBool loses;
    double d = LLVMConstRealGetDouble(v, &loses);
    bool f64 = LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMDoubleTypeKind;
    bool subnormal = f64 ? fpclassify(d) == FP_SUBNORMAL : fpclassify((float)d) == FP_SUBNORMAL;
    return !(d == 0 && signbit(d)) && !subnormal;
}

bool lower_find_carry(Lower *L, Block *body, LLVMValueRef *inits, DotCarry *c)
{
    memset(c, 0, sizeof *c);
    const Op *y = body->last;
    if (!y || y->code != OP_YIELD)
        return false;
    int off = 0;
    for (int i = 1; i < body->nargs; i++) {
        const Value *arg = &body->args[i];
        int nr = lower_nregs(L, arg->type);
        const Op *dot = NULL;
        for (const Op *op = body->first; op; op = op->next)
            if (op->code == OP_DOT && op->operands[2] == arg)
                dot = op;
        bool ok = dot && L->uses[arg->scratch] == 1 && L->uses[dot->results[0].scratch] == 1 &&
                  y->operands[i - 1] == &dot->results[0];
        for (int j = 0; ok && j < nr; j++)
            ok = survives_zero_add(inits[off + j]);
        if (ok) {
            c->dot = dot;
            c->off = off;
            c->nregs = nr;
            return true;
        }
        off += nr;
    }
    return false;
}

LLVMValueRef lower_carry_phi(Lower *L, DotCarry *c, LLVMTypeRef t)
{
    LLVMBasicBlockRef at = LLVMGetInsertBlock(L->b);
    LLVMPositionBuilder(L->b, c->header, LLVMGetFirstInstruction(c->header));
    LLVMValueRef phi = LLVMBuildPhi(L->b, t, "carry");
    LLVMValueRef zero = LLVMConstNull(t);
    LLVMAddIncoming(phi, &zero, &c->pre, 1);
    LLVMPositionBuilderAtEnd(L->b, at);
    c->phi[c->nphi] = phi;
    return phi;
}

void lower_carry_latch(DotCarry *c, LLVMBasicBlockRef latch)
{
    for (int i = 0; i < c->nphi; i++)
        LLVMAddIncoming(c->phi[i], &c->next[i], &latch, 1);
}

void lower_carry_exit(Lower *L, const DotCarry *c, LLVMValueRef *regs)
{
    for (int m = 0; m < c->n; m++) {
        int t = c->tile[m];
        LLVMValueRef acc = vector_of(L, c->acc_type, regs + t * c->nacc, c->nacc);
        LLVMValueRef a = c->phi[c->a[m]], b = c->phi[c->b[m]];
        acc = c->transposed ? tgt_mfma(L, c->instr, b, a, acc) : tgt_mfma(L, c->instr, a, b, acc);
        for (int j = 0; j < c->nacc; j++)
            regs[t * c->nacc + j] = LLVMBuildExtractElement(L->b, acc, const_i32(L, j), "");
    }
}
