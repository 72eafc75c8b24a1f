/* Mixed-precision multiply-adds back to scalars after SLP (AMDGPU's TargetCodegen.after_passes).
 *
 * gfx9's v_fma_mix_f32 / v_fma_mixlo_f16 / v_fma_mixhi_f16 take f16 operands where an f32 fma takes f32
 * ones (op_sel picks a register's high half) and can round the result to f16 into either half of a
 * register; LLVM selects them for a scalar fma, or contract fmul + fadd, whose operands are fpext from
 * half, and for the fptrunc of one. SLP packs the same scalars into <2 x float> math (v_pk_fma_f32),
 * for which there is no mixed form: every extended operand then costs a v_cvt_f32_f16 a lane, and the
 * f16 result a v_cvt_f16_f32 a lane and a v_pack_b32_f16 a pair. Layer norm's `(x - mean) * rstd * w + b`
 * stored as f16, w and b f16: 6 VALU instructions an element packed, 3 split (issue 19; the loop model:
 * 944 cycles an iteration packed, 568 split, Triton's 933). Turning SLP off instead gives the mixed
 * forms too but unpacks everything else (that loop 703 cycles, the variance loop 93 to 108 instructions).
 *
 * So after the optimisation pipeline, a contract fadd or fsub of a contract fmul on <N x float>, the
 * fmul used only there, with at least one of its three operands an fpext of <N x half> used only
 * there, goes back to N scalar fmul + fadd pairs (the same flags, so the same fusion), and so does the
 * fptrunc to half that is the add's one use. Exact: the same operations lane by lane. A packed add
 * with no such operand stays packed (one v_pk_fma_f32 for two lanes beats two v_fma). */
#include <llvm-c/Core.h>
#include <stdbool.h>
#include <stddef.h>

#include "compiler/target/amdgpu/mix_f16.h"

static bool is_vec_of(LLVMTypeRef t, LLVMTypeKind elem, unsigned *n)
{
    if (LLVMGetTypeKind(t) != LLVMVectorTypeKind || LLVMGetTypeKind(LLVMGetElementType(t)) != elem)
        return false;
    *n = LLVMGetVectorSize(t);
    return true;
}

static bool one_use(LLVMValueRef v)
{
    LLVMUseRef u = LLVMGetFirstUse(v);
    return u && !LLVMGetNextUse(u);
}

/* fpext <N x half> to <N x float> used only by its one user */
static bool lone_half_ext(LLVMValueRef v)
{
    unsigned n;
    return LLVMIsAFPExtInst(v) && one_use(v) && is_vec_of(LLVMTypeOf(LLVMGetOperand(v, 0)), LLVMHalfTypeKind, &n);
}

static bool contract(LLVMValueRef v)
{
    return LLVMCanValueUseFastMathFlags(v) && (LLVMGetFastMathFlags(v) & LLVMFastMathAllowContract);
}

/* Lane i of v as a scalar: through an fpext of half it extends the half lane, so the scalar fpext
 * stays next to the add for instruction selection to fold. */
static LLVMValueRef lane(LLVMBuilderRef b, LLVMValueRef v, LLVMValueRef i, LLVMTypeRef f32)
{
    if (lone_half_ext(v))
        return LLVMBuildFPExt(b, LLVMBuildExtractElement(b, LLVMGetOperand(v, 0), i, ""), f32, "");
    return LLVMBuildExtractElement(b, v, i, "");
}

/* The add's fmul operand (0 or 1), or -1. */
static int mul_operand(LLVMValueRef add)
{
    LLVMOpcode op = LLVMGetInstructionOpcode(add);
    if ((op != LLVMFAdd && op != LLVMFSub) || !contract(add))
        return -1;
    for (int k = 0; k < 2; k++) {
        LLVMValueRef m = LLVMGetOperand(add, (unsigned)k);
        if (LLVMIsAInstruction(m) && LLVMGetInstructionOpcode(m) == LLVMFMul && contract(m) && one_use(m))
            return k;
    }
    return -1;
}

/* The last instruction of the split, or NULL where `add` is not one to split. */
static LLVMValueRef split(LLVMBuilderRef b, LLVMValueRef add)
{
    unsigned n;
    if (!is_vec_of(LLVMTypeOf(add), LLVMFloatTypeKind, &n) || n == 0 || n > 16)
        return NULL;
    int k = mul_operand(add);
    if (k < 0)
        return NULL;
    LLVMValueRef mul = LLVMGetOperand(add, (unsigned)k), other = LLVMGetOperand(add, (unsigned)(1 - k));
    LLVMValueRef ops[3] = {LLVMGetOperand(mul, 0), LLVMGetOperand(mul, 1), other};
    if (!lone_half_ext(ops[0]) && !lone_half_ext(ops[1]) && !lone_half_ext(ops[2]))
        return NULL;
    LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(add));
    LLVMTypeRef f32 = LLVMFloatTypeInContext(ctx), f16 = LLVMHalfTypeInContext(ctx), i32 = LLVMInt32TypeInContext(ctx);
    /* the fptrunc to half that is the add's one use goes lane by lane too */
    LLVMValueRef trunc = NULL;
    if (one_use(add)) {
        LLVMValueRef u = LLVMGetUser(LLVMGetFirstUse(add));
        unsigned m;
        if (LLVMIsAFPTruncInst(u) && is_vec_of(LLVMTypeOf(u), LLVMHalfTypeKind, &m))
            trunc = u;
    }
    LLVMValueRef last = trunc ? trunc : add;
    LLVMPositionBuilderBefore(b, last);
    LLVMFastMathFlags fm = LLVMGetFastMathFlags(mul), fa = LLVMGetFastMathFlags(add);
    LLVMValueRef out = LLVMGetPoison(LLVMTypeOf(last));
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef idx = LLVMConstInt(i32, i, false);
        LLVMValueRef x = lane(b, ops[0], idx, f32), y = lane(b, ops[1], idx, f32), z = lane(b, ops[2], idx, f32);
        LLVMValueRef p = LLVMBuildFMul(b, x, y, "");
        LLVMSetFastMathFlags(p, fm);
        LLVMValueRef s = LLVMGetInstructionOpcode(add) == LLVMFAdd
                             ? (k == 0 ? LLVMBuildFAdd(b, p, z, "") : LLVMBuildFAdd(b, z, p, ""))
                             : (k == 0 ? LLVMBuildFSub(b, p, z, "") : LLVMBuildFSub(b, z, p, ""));
        LLVMSetFastMathFlags(s, fa);
        if (trunc)
            s = LLVMBuildFPTrunc(b, s, f16, "");
        out = LLVMBuildInsertElement(b, out, s, idx, "");
    }
    LLVMReplaceAllUsesWith(last, out);
    /* the packed chain, now unused, from its end */
    if (trunc)
        LLVMInstructionEraseFromParent(trunc);
    LLVMInstructionEraseFromParent(add);
    LLVMInstructionEraseFromParent(mul);
    for (int j = 0; j < 3; j++)
        if (LLVMIsAFPExtInst(ops[j]) && !LLVMGetFirstUse(ops[j]))
            LLVMInstructionEraseFromParent(ops[j]);
    return out;
}

void amdgpu_split_mixed_f16(LLVMModuleRef m)
{
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in;) {
                /* a split erases `in`, what feeds it and its fptrunc, and ends in an insertelement */
                LLVMValueRef done = split(b, in);
                in = LLVMGetNextInstruction(done ? done : in);
            }
    LLVMDisposeBuilder(b);
}
