/* The target hooks the lowering calls with something around them: an operation a family lacks is an
 * internal error (the layouts never ask for it there) or a no-op where the hook's comment says so
 * (compiler/target/target_hooks.h); LDS reads are tracked for the barriers of deferred operands. */
#include "compiler/lower/lower_internal.h"
#include "isa/emu_abi.h"

static bool present(Lower *L, bool hook, const char *what)
{
    if (!hook)
        lower_error(L, "internal error: %s on a target without it", what);
    return hook;
}

LLVMValueRef tgt_mfma(Lower *L, int instr, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c)
{
    return present(L, HOOKS->mfma != NULL, "a matrix instruction") ? HOOKS->mfma(L, instr, a, b, c) : c;
}

void tgt_mma_sync(Lower *L, int instr, LLVMValueRef *a, LLVMValueRef *b, LLVMValueRef *acc)
{
    if (present(L, HOOKS->mma_sync != NULL, "mma.sync"))
        HOOKS->mma_sync(L, instr, a, b, acc);
}

void tgt_ldmatrix_x4(Lower *L, LLVMValueRef ptr, bool trans, LLVMValueRef *out)
{
    if (present(L, HOOKS->ldmatrix_x4 != NULL, "ldmatrix"))
        HOOKS->ldmatrix_x4(L, ptr, trans, out);
}

void tgt_cp_async(Lower *L, LLVMValueRef dst, LLVMValueRef src, int bytes, LLVMValueRef mask)
{
    if (present(L, HOOKS->cp_async != NULL, "cp.async"))
        HOOKS->cp_async(L, dst, src, bytes, mask);
}

void tgt_cp_async_commit(Lower *L)
{
    if (present(L, HOOKS->cp_async_commit != NULL, "cp.async"))
        HOOKS->cp_async_commit(L);
}

void tgt_cp_async_wait(Lower *L, int n)
{
    if (present(L, HOOKS->cp_async_wait != NULL, "cp.async"))
        HOOKS->cp_async_wait(L, n);
}

void tgt_check(Lower *L, LLVMValueRef ptr, int bytes, int flags)
{
    if ((flags & (EMU_ACCESS_LDS | EMU_ACCESS_LOAD)) == (EMU_ACCESS_LDS | EMU_ACCESS_LOAD))
        L->lds_read = true;
    if (HOOKS->check)
        HOOKS->check(L, ptr, bytes, const_i32(L, flags));
}

void tgt_check_masked(Lower *L, LLVMValueRef ptr, int bytes, int flags, LLVMValueRef m)
{
    if (HOOKS->check) /* flags 0: the lane does not access memory */
        HOOKS->check(L, ptr, bytes, LLVMBuildSelect(L->b, m, const_i32(L, flags), const_i32(L, 0), ""));
}

LLVMValueRef tgt_smem_addr(Lower *L, LLVMValueRef byte_offset)
{
    return present(L, HOOKS->smem_addr != NULL, "wgmma") ? HOOKS->smem_addr(L, byte_offset) : byte_offset;
}

/* The async proxy's fence and wgmma's fence, commit and wait: no-ops where the hook is absent (the
 * emulator runs each wgmma at once, in program order). */
void tgt_fence_proxy_async(Lower *L)
{
    if (HOOKS->fence_proxy_async)
        HOOKS->fence_proxy_async(L);
}

void tgt_wgmma_fence(Lower *L)
{
    if (HOOKS->wgmma_fence)
        HOOKS->wgmma_fence(L);
}

void tgt_wgmma(Lower *L, int instr, int n, LLVMValueRef a_desc, LLVMValueRef b_desc, bool trans_b, LLVMValueRef *acc)
{
    if (present(L, HOOKS->wgmma != NULL, "wgmma"))
        HOOKS->wgmma(L, instr, n, &a_desc, 1, b_desc, trans_b, acc);
}

void tgt_wgmma_rs(Lower *L, int instr, int n, LLVMValueRef *a, LLVMValueRef b_desc, bool trans_b, LLVMValueRef *acc)
{
    if (present(L, HOOKS->wgmma != NULL, "wgmma"))
        HOOKS->wgmma(L, instr, n, a, 4, b_desc, trans_b, acc);
}

void tgt_wgmma_commit(Lower *L)
{
    if (HOOKS->wgmma_commit)
        HOOKS->wgmma_commit(L);
}

void tgt_wgmma_wait(Lower *L, LLVMValueRef *acc, int n, int pending)
{
    if (HOOKS->wgmma_wait)
        HOOKS->wgmma_wait(L, acc, n, pending);
}
