/* Tests of the split of packed f16-operand multiply-adds (compiler/target/amdgpu/mix_f16.c) on
 * hand-written IR: which packed adds it splits into lanes (a contract fadd/fsub of a one-use contract
 * fmul with an fpext of half used only there; its one-use fptrunc to half with it), which it leaves
 * (no f16 operand, an extension used twice, no contract), that the result verifies, and that an fsub
 * keeps its operand order (p - z and z - p). */
#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "compiler/target/amdgpu/mix_f16.h"

#include "tests/unit/check.h"

static const char ir[] =
    "define <2 x half> @mix(<2 x float> %a, <2 x half> %w, <2 x half> %b) {\n"
    "  %we = fpext <2 x half> %w to <2 x float>\n"
    "  %be = fpext <2 x half> %b to <2 x float>\n"
    "  %m = fmul contract <2 x float> %a, %we\n"
    "  %s = fadd contract <2 x float> %m, %be\n"
    "  %r = fptrunc <2 x float> %s to <2 x half>\n"
    "  ret <2 x half> %r\n"
    "}\n"
    "define <2 x float> @sub_mul_second(<2 x float> %a, <2 x float> %t, <2 x half> %c) {\n"
    "  %ce = fpext <2 x half> %c to <2 x float>\n"
    "  %m = fmul contract <2 x float> %a, %t\n"
    "  %s = fsub contract <2 x float> %ce, %m\n"
    "  ret <2 x float> %s\n"
    "}\n"
    "define <2 x float> @sub_mul_first(<2 x float> %a, <2 x half> %w, <2 x float> %t) {\n"
    "  %we = fpext <2 x half> %w to <2 x float>\n"
    "  %m = fmul contract <2 x float> %a, %we\n"
    "  %s = fsub contract <2 x float> %m, %t\n"
    "  ret <2 x float> %s\n"
    "}\n"
    "define <2 x float> @no_half(<2 x float> %a, <2 x float> %b, <2 x float> %c) {\n"
    "  %m = fmul contract <2 x float> %a, %b\n"
    "  %s = fadd contract <2 x float> %m, %c\n"
    "  ret <2 x float> %s\n"
    "}\n"
    "define <2 x float> @ext_twice(<2 x float> %a, <2 x half> %w) {\n"
    "  %we = fpext <2 x half> %w to <2 x float>\n"
    "  %m = fmul contract <2 x float> %a, %we\n"
    "  %s = fadd contract <2 x float> %m, %we\n"
    "  ret <2 x float> %s\n"
    "}\n"
    "define <2 x float> @no_contract(<2 x float> %a, <2 x half> %w, <2 x float> %c) {\n"
    "  %we = fpext <2 x half> %w to <2 x float>\n"
    "  %m = fmul <2 x float> %a, %we\n"
    "  %s = fadd <2 x float> %m, %c\n"
    "  ret <2 x float> %s\n"
    "}\n";

/* Instructions of f with opcode op whose type is a vector (vec) or a scalar (!vec). */
static int count(LLVMValueRef f, LLVMOpcode op, bool vec)
{
    int n = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in))
            if (LLVMGetInstructionOpcode(in) == op &&
                (LLVMGetTypeKind(LLVMTypeOf(in)) == LLVMVectorTypeKind) == vec)
                n++;
    return n;
}

/* Every scalar fsub of f has its fmul at operand k. */
static bool fsub_mul_at(LLVMValueRef f, unsigned k)
{
    int n = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            if (LLVMGetInstructionOpcode(in) != LLVMFSub || LLVMGetTypeKind(LLVMTypeOf(in)) == LLVMVectorTypeKind)
                continue;
            LLVMValueRef m = LLVMGetOperand(in, k);
            if (!LLVMIsAInstruction(m) || LLVMGetInstructionOpcode(m) != LLVMFMul)
                return false;
            n++;
        }
    return n == 2;
}

int main(void)
{
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, strlen(ir), "mix_f16");
    LLVMModuleRef m = NULL;
    char *msg = NULL;
    if (LLVMParseIRInContext(ctx, buf, &m, &msg)) {
        fprintf(stderr, "test IR does not parse: %s\n", msg);
        return 1;
    }
    amdgpu_split_mixed_f16(m);
    char *vmsg = NULL;
    CHECK(!LLVMVerifyModule(m, LLVMReturnStatusAction, &vmsg), "%s", vmsg ? vmsg : "");
    LLVMDisposeMessage(vmsg);

    LLVMValueRef f = LLVMGetNamedFunction(m, "mix");
    CHECK(count(f, LLVMFAdd, true) == 0 && count(f, LLVMFMul, true) == 0, "mix: packed math left");
    CHECK(count(f, LLVMFAdd, false) == 2 && count(f, LLVMFMul, false) == 2, "mix: not two lanes");
    CHECK(count(f, LLVMFPTrunc, true) == 0 && count(f, LLVMFPTrunc, false) == 2, "mix: fptrunc not split");
    CHECK(count(f, LLVMFPExt, true) == 0 && count(f, LLVMFPExt, false) == 4, "mix: extensions not per lane");

    f = LLVMGetNamedFunction(m, "sub_mul_second");
    CHECK(count(f, LLVMFSub, true) == 0 && fsub_mul_at(f, 1), "sub_mul_second: not z - p lane by lane");
    f = LLVMGetNamedFunction(m, "sub_mul_first");
    CHECK(count(f, LLVMFSub, true) == 0 && fsub_mul_at(f, 0), "sub_mul_first: not p - z lane by lane");

    static const char *kept[] = {"no_half", "ext_twice", "no_contract"};
    for (int i = 0; i < 3; i++) {
        f = LLVMGetNamedFunction(m, kept[i]);
        CHECK(count(f, LLVMFAdd, true) == 1 && count(f, LLVMFMul, true) == 1 && count(f, LLVMFAdd, false) == 0,
              "%s: split, should stay packed", kept[i]);
    }
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    return failures != 0;
}
