/* Cross-lane reads within a wave for reductions and scans: a value of any scalar type from lane
 * `lane ^ (1 << b)`, or a wave-uniform value from one lane.
 *
 * On a 64-lane wave of a gfx9 architecture (gfx942, and emu, which emulates it) the exchanges within a
 * row of 16 lanes are DPP moves, which the ALU reads in the same instruction and which need no
 * s_waitcnt (AMD's CDNA3 ISA, "DPP_CTRL Enumeration"):
 *   b = 0  quad_perm:[1,0,3,2]      lane ^ 1
 *   b = 1  quad_perm:[2,3,0,1]      lane ^ 2
 *   b = 2  row_half_mirror          lane ^ 7 within 8 lanes: lane ^ 4 when the lanes that differ only in
 *                                   bits 0 and 1 hold the same value (the caller says so in `uniform`)
 *   b = 3  row_ror:8                lane ^ 8 within the row
 * and once every row holds one value, row_bcast:15 gives rows 1-3 the last lane of the row before and
 * row_bcast:31 gives rows 2-3 lane 31 (xlane_bcast). Row 0 (rows 0-1 for row_bcast:31) has no source
 * lane: the row mask stays full, so that LLVM folds the move into the ALU instruction that reads it,
 * and the caller uses only rows 1 and 3 (row 3) of the result.
 * Other bits, and other targets, take the target's shuffle (ds_bpermute on gfx942, shfl.sync on sm_90).
 * Values wider than 32 bits move 32 bits at a time. */
#include "compiler/lower/lower_reduce.h"

bool xlane_has_dpp(Lower *L)
{
    if (!HOOKS->dpp || !HOOKS->readlane || L->wave != 64)
        return false;
    const Target *arch = target_find(L->t->arch);
    return arch && target_supports_intrinsic(arch, "llvm.amdgcn.update.dpp");
}

/* the DPP control that reads lane ^ (1 << b), or -1 */
static int xor_ctrl(Lower *L, int b, unsigned uniform)
{
    if (!xlane_has_dpp(L))
        return -1;
    switch (b) {
    case 0: return 0xB1;
    case 1: return 0x4E;
    case 2: return (uniform & 3) == 3 ? 0x141 : -1;
    case 3: return 0x128;
    default: return -1;
    }
}

/* v as i32 words (1 or 2), and back */
static int to_words(Lower *L, LLVMValueRef v, LLVMValueRef *w, unsigned *bits)
{
    LLVMTypeRef t = LLVMTypeOf(v);
    LLVMTypeKind k = LLVMGetTypeKind(t);
    *bits = k == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(t) : k == LLVMDoubleTypeKind ? 64 : k == LLVMFloatTypeKind ? 32 : 16;
    LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, *bits);
    LLVMValueRef x = k == LLVMIntegerTypeKind ? v : LLVMBuildBitCast(L->b, v, it, "");
    if (*bits <= 32) {
        w[0] = *bits < 32 ? LLVMBuildZExt(L->b, x, L->i32, "") : x;
        return 1;
    }
    w[0] = LLVMBuildTrunc(L->b, x, L->i32, "");
    w[1] = LLVMBuildTrunc(L->b, LLVMBuildLShr(L->b, x, const_i64(L, 32), ""), L->i32, "");
    return 2;
}

static LLVMValueRef from_words(Lower *L, LLVMTypeRef t, unsigned bits, LLVMValueRef *w)
{
    LLVMTypeKind k = LLVMGetTypeKind(t);
    LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, bits);
    LLVMValueRef res;
    if (bits <= 32)
        res = bits < 32 ? LLVMBuildTrunc(L->b, w[0], it, "") : w[0];
    else
        res = LLVMBuildOr(L->b, LLVMBuildZExt(L->b, w[0], L->i64, ""),
                          LLVMBuildShl(L->b, LLVMBuildZExt(L->b, w[1], L->i64, ""), const_i64(L, 32), ""), "");
    return k == LLVMIntegerTypeKind ? res : LLVMBuildBitCast(L->b, res, t, "");
}

/* v moved by the DPP control ctrl, 32 bits at a time */
static LLVMValueRef dpp_words(Lower *L, LLVMValueRef v, int ctrl)
{
    LLVMValueRef w[2];
    unsigned bits;
    int n = to_words(L, v, w, &bits);
    for (int i = 0; i < n; i++)
        w[i] = HOOKS->dpp(L, w[i], ctrl);
    return from_words(L, LLVMTypeOf(v), bits, w);
}

LLVMValueRef xlane_xor(Lower *L, LLVMValueRef v, int b, unsigned uniform)
{
    int ctrl = xor_ctrl(L, b, uniform);
    if (ctrl < 0)
        return red_shuffle(L, v, LLVMBuildXor(L->b, L->lane, const_i32(L, 1 << b), ""));
    return dpp_words(L, v, ctrl);
}

LLVMValueRef xlane_bcast(Lower *L, LLVMValueRef v, int last)
{
    return dpp_words(L, v, last == 15 ? 0x142 : 0x143); /* DPP_ROW_BCAST15, DPP_ROW_BCAST31 */
}

LLVMValueRef xlane_read(Lower *L, LLVMValueRef v, int lane)
{
    LLVMValueRef w[2];
    unsigned bits;
    int n = to_words(L, v, w, &bits);
    for (int i = 0; i < n; i++)
        w[i] = HOOKS->readlane(L, w[i], lane);
    return from_words(L, LLVMTypeOf(v), bits, w);
}
