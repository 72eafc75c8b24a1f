/* Small LLVM helpers the lowering and the targets' hooks share: declaring and calling intrinsics,
 * function attributes, inline assembly, and the generic hooks (LDS pointers, the zero page of masked
 * loads, a GPU kernel's signature and parameters, float remainders). */
#include <string.h>

#include "compiler/lower/lower_internal.h"

LLVMValueRef lower_intrinsic(Lower *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, int n)
{
    LLVMValueRef f = LLVMGetNamedFunction(L->mod, name);
    if (!f)
        f = LLVMAddFunction(L->mod, name, LLVMFunctionType(ret, params, (unsigned)n, 0));
    return f;
}

LLVMValueRef lower_call(Lower *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *pt, LLVMValueRef *args, int n)
{
    LLVMValueRef f = lower_intrinsic(L, name, ret, pt, n);
    return LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, args, (unsigned)n, "");
}

/* Said to LLVM, noundef ends its poison queries (isGuaranteedNotToBePoison, SLP) at the call: for the
 * MFMA results that cut a matmul's optimisation by a fifth; for the ids no compile measured got
 * cheaper (SCEV's walks in straight-line strength reduction stop earlier, at values with
 * poison-generating flags). */
void lower_compiler_barrier(Lower *L, LLVMValueRef *vals, int n)
{
    (void)vals;
    (void)n;
    LLVMBuildFence(L->b, LLVMAtomicOrderingAcquireRelease, 1 /* single thread */, "");
}

LLVMValueRef lower_noundef(Lower *L, LLVMValueRef call_inst)
{
    LLVMAddCallSiteAttribute(call_inst, LLVMAttributeReturnIndex,
                             LLVMCreateEnumAttribute(L->ctx, LLVMGetEnumAttributeKindForName("noundef", 7), 0));
    return call_inst;
}

void lower_fn_attr(Lower *L, const char *k, const char *v)
{
    LLVMAttributeRef a = LLVMCreateStringAttribute(L->ctx, k, (unsigned)strlen(k), v, (unsigned)strlen(v));
    LLVMAddAttributeAtIndex(L->fn, LLVMAttributeFunctionIndex, a);
}

LLVMValueRef tgt_inline_asm(Lower *L, LLVMTypeRef ret, LLVMTypeRef *pt, LLVMValueRef *args, int n, const char *text,
                            const char *constraints)
{
    LLVMTypeRef ft = LLVMFunctionType(ret, pt, (unsigned)n, 0);
    LLVMValueRef f = LLVMGetInlineAsm(ft, text, strlen(text), constraints, strlen(constraints), 1, 0,
                                      LLVMInlineAsmDialectATT, 0);
    return LLVMBuildCall2(L->b, ft, f, args, (unsigned)n, "");
}

LLVMValueRef tgt_lds_ptr(Lower *L, LLVMValueRef byte_offset)
{
    return LLVMBuildGEP2(L->b, L->i8, L->lds, &byte_offset, 1, "");
}

LLVMValueRef tgt_safe_ptr(Lower *L)
{
    LLVMValueRef g = LLVMGetNamedGlobal(L->mod, "rk.safe");
    if (!g) {
        LLVMTypeRef at = LLVMArrayType2(L->i8, 16);
        g = LLVMAddGlobalInAddressSpace(L->mod, at, "rk.safe", L->t->as_global);
        LLVMSetInitializer(g, LLVMConstNull(at));
        LLVMSetGlobalConstant(g, 1);
        LLVMSetLinkage(g, LLVMPrivateLinkage);
        LLVMSetUnnamedAddr(g, 1);
        LLVMSetAlignment(g, 16);
    }
    return g;
}

/* The GPUs: kernels take their parameters directly (LLVM lays out the kernarg segment as HIP does,
 * NVPTX as CUDA does), then the tensor maps of TMA copies. */
void gpu_signature(Lower *L, int np)
{
    Block *body = L->f->body;
    LLVMTypeRef *params = ARENA_ARRAY(L->a, LLVMTypeRef, np + L->ntma + 1);
    for (int i = 0; i < np; i++) {
        const Type *t = body->args[i].type;
        params[i] = t->kind == TY_SCALAR && t->sk == SK_BOOL ? L->i8 : llvm_type(L, t);
    }
    for (int i = 0; i < L->ntma; i++)
        params[np + i] = L->ptr0;
    L->fn = LLVMAddFunction(L->mod, L->f->name, LLVMFunctionType(L->void_t, params, (unsigned)(np + L->ntma), 0));
    LLVMSetFunctionCallConv(L->fn, L->t->kernel_cc);
    tma_bind_params(L, np);
}

/* LLVM's C API adds a parameter attribute by copying the function's whole attribute list, so giving
 * every parameter its attributes costs O(n^2): 8,000 parameters took 2.1 s of a 2.75 s compile, 32,000
 * about 40 s (issue 23). Past this many parameters the hints below are left out; the code stays right. */
enum { PARAM_HINTS_MAX = 1024 };

void gpu_params(Lower *L, int np)
{
    Block *body = L->f->body;
    for (int i = 0; i < np; i++) {
        const Type *t = body->args[i].type;
        LLVMValueRef v = LLVMGetParam(L->fn, (unsigned)i);
        lower_param_set(L, i, v);
        if (np > PARAM_HINTS_MAX)
            continue;
        /* noundef: the host passes every argument; without it LLVM's poison queries
         * (isGuaranteedNotToBePoison, from SLP and SCEV) walk each lane-index expression up to
         * its arguments and scan the instructions after it: 15% of a matmul's compile */
        LLVMAddAttributeAtIndex(L->fn, (unsigned)i + 1,
                                LLVMCreateEnumAttribute(L->ctx, LLVMGetEnumAttributeKindForName("noundef", 7), 0));
        if (t->kind == TY_PTR) /* pointer arguments are 16-byte aligned by contract */
            LLVMAddAttributeAtIndex(L->fn, (unsigned)i + 1,
                                    LLVMCreateEnumAttribute(L->ctx, LLVMGetEnumAttributeKindForName("align", 5), 16));
    }
}
