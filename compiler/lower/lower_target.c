/* The hooks that differ between the targets. gfx9: AMDGPU intrinsics (workitem and workgroup ids,
 * s_barrier, ds_bpermute, the MFMA intrinsics), LDS as an addrspace(3) global, the grid size from the
 * dispatch packet. sm_90: NVVM intrinsics (tid, ctaid, nctaid, bar.sync, shfl.sync, mma.sync), shared
 * memory as one dynamic extern addrspace(3) array sized at launch. emu: the same operations as calls
 * through the EmuLane the emulator passes to every lane (runtime/emu/emu_abi.h), whose field offsets
 * come from that header. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "compiler/lower/lower_internal.h"
#include "runtime/emu/emu_abi.h"
#include "runtime/emu/mfma_ref.h"

static LLVMValueRef intrinsic(Lower *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, int n)
{
    LLVMValueRef f = LLVMGetNamedFunction(L->mod, name);
    if (!f)
        f = LLVMAddFunction(L->mod, name, LLVMFunctionType(ret, params, (unsigned)n, 0));
    return f;
}

static LLVMValueRef call(Lower *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *pt, LLVMValueRef *args, int n)
{
    LLVMValueRef f = intrinsic(L, name, ret, pt, n);
    return LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, args, (unsigned)n, "");
}

/* Marks a call's result noundef: ids and matrix results are never undef or poison. Said to LLVM, it
 * ends its poison queries (isGuaranteedNotToBePoison, SLP) at the call: for the MFMA results that cut
 * a matmul's optimisation by a fifth; for the ids no compile measured got cheaper (SCEV's walks in
 * straight-line strength reduction stop earlier, at values with poison-generating flags). */
static LLVMValueRef noundef_ret(Lower *L, LLVMValueRef call_inst)
{
    LLVMAddCallSiteAttribute(call_inst, LLVMAttributeReturnIndex,
                             LLVMCreateEnumAttribute(L->ctx, LLVMGetEnumAttributeKindForName("noundef", 7), 0));
    return call_inst;
}

/* ---- emu: EmuLane fields and EmuFns calls ---- */

static LLVMValueRef lane_field(Lower *L, LLVMBuilderRef b, size_t off, LLVMTypeRef t)
{
    LLVMValueRef p = LLVMBuildGEP2(b, L->i8, L->lane_ptr, (LLVMValueRef[]){const_i64(L, (int64_t)off)}, 1, "");
    return LLVMBuildLoad2(b, t, p, "");
}

/* Calls fns->field(lane, args...). */
static LLVMValueRef emu_call(Lower *L, size_t field, LLVMTypeRef ret, LLVMTypeRef *pt, LLVMValueRef *args, int n)
{
    LLVMTypeRef *all = ARENA_ARRAY(L->a, LLVMTypeRef, n + 2);
    LLVMValueRef *vals = ARENA_ARRAY(L->a, LLVMValueRef, n + 2);
    all[0] = L->ptr0;
    vals[0] = L->lane_ptr;
    for (int i = 0; i < n; i++) {
        all[i + 1] = pt[i];
        vals[i + 1] = args[i];
    }
    LLVMTypeRef ft = LLVMFunctionType(ret, all, (unsigned)n + 1, 0);
    LLVMValueRef slot = LLVMBuildGEP2(L->b, L->i8, L->fns, (LLVMValueRef[]){const_i64(L, (int64_t)field)}, 1, "");
    LLVMValueRef fp = LLVMBuildLoad2(L->b, L->ptr0, slot, "");
    return LLVMBuildCall2(L->b, ft, fp, vals, (unsigned)n + 1, "");
}

/* ---- ids ---- */

void tgt_entry(Lower *L)
{
    LLVMBuilderRef b = L->setup;
    if (L->emu) {
        L->lane_ptr = LLVMGetParam(L->fn, 1);
        L->fns = lane_field(L, b, offsetof(EmuLane, fns), L->ptr0);
        L->tid = lane_field(L, b, offsetof(EmuLane, lane), L->i32);
        L->lds = lane_field(L, b, offsetof(EmuLane, lds), L->ptr0);
    } else if (L->nv) {
        LLVMValueRef f = intrinsic(L, "llvm.nvvm.read.ptx.sreg.tid.x", L->i32, NULL, 0);
        L->tid = noundef_ret(L, LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, NULL, 0, "tid"));
        /* dynamic shared memory: its size is given at launch (the kernel's lds_bytes) */
        L->lds = LLVMAddGlobalInAddressSpace(L->mod, LLVMArrayType2(L->i8, 0), "rk_smem", 3);
        LLVMSetLinkage(L->lds, LLVMExternalLinkage);
        LLVMSetAlignment(L->lds, 1024); /* the 128-byte swizzle of wgmma operands repeats every 1024 bytes */
    } else {
        LLVMValueRef f = intrinsic(L, "llvm.amdgcn.workitem.id.x", L->i32, NULL, 0);
        L->tid = noundef_ret(L, LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, NULL, 0, "tid"));
        /* LDS: a placeholder replaced by a global of the final size in tgt_finish */
        L->lds = LLVMAddGlobalInAddressSpace(L->mod, LLVMArrayType2(L->i8, 0), "rk.lds.placeholder", 3);
        LLVMSetLinkage(L->lds, LLVMExternalLinkage);
    }
    L->lane = LLVMBuildAnd(b, L->tid, const_i32(L, L->wave - 1), "lane");
    LLVMValueRef w = LLVMBuildLShr(b, L->tid, const_i32(L, __builtin_ctz((unsigned)L->wave)), "");
    if (!L->emu && !L->nv) {
        /* the wave index is uniform: keep it in a scalar register */
        LLVMValueRef f = intrinsic(L, "llvm.amdgcn.readfirstlane.i32", L->i32, &L->i32, 1);
        w = noundef_ret(L, LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, &w, 1, "warp"));
    }
    L->warp = w;
}

LLVMValueRef tgt_program_id(Lower *L, int axis)
{
    if (L->emu)
        return lane_field(L, L->b, offsetof(EmuLane, wg) + 4 * (size_t)axis, L->i32);
    if (L->nv) {
        static const char *const nv[] = {"llvm.nvvm.read.ptx.sreg.ctaid.x", "llvm.nvvm.read.ptx.sreg.ctaid.y",
                                         "llvm.nvvm.read.ptx.sreg.ctaid.z"};
        return noundef_ret(L, call(L, nv[axis], L->i32, NULL, NULL, 0));
    }
    static const char *const names[] = {"llvm.amdgcn.workgroup.id.x", "llvm.amdgcn.workgroup.id.y",
                                        "llvm.amdgcn.workgroup.id.z"};
    return noundef_ret(L, call(L, names[axis], L->i32, NULL, NULL, 0));
}

LLVMValueRef tgt_num_programs(Lower *L, int axis)
{
    if (L->emu)
        return lane_field(L, L->b, offsetof(EmuLane, nwg) + 4 * (size_t)axis, L->i32);
    if (L->nv) {
        static const char *const nv[] = {"llvm.nvvm.read.ptx.sreg.nctaid.x", "llvm.nvvm.read.ptx.sreg.nctaid.y",
                                         "llvm.nvvm.read.ptx.sreg.nctaid.z"};
        return call(L, nv[axis], L->i32, NULL, NULL, 0);
    }
    /* hsa_kernel_dispatch_packet_t: workgroup_size_x/y/z (u16) at 4, 6, 8; grid_size_x/y/z (u32, in
     * work-items) at 12, 16, 20 */
    LLVMTypeRef p4 = LLVMPointerTypeInContext(L->ctx, 4);
    LLVMValueRef dp = call(L, "llvm.amdgcn.dispatch.ptr", p4, NULL, NULL, 0);
    LLVMValueRef gp = LLVMBuildGEP2(L->b, L->i8, dp, (LLVMValueRef[]){const_i64(L, 12 + 4 * axis)}, 1, "");
    LLVMValueRef wp = LLVMBuildGEP2(L->b, L->i8, dp, (LLVMValueRef[]){const_i64(L, 4 + 2 * axis)}, 1, "");
    LLVMValueRef g = LLVMBuildLoad2(L->b, L->i32, gp, "");
    LLVMValueRef w = LLVMBuildZExt(L->b, LLVMBuildLoad2(L->b, L->i16, wp, ""), L->i32, "");
    return LLVMBuildUDiv(L->b, g, w, "");
}

void tgt_barrier(Lower *L)
{
    L->lds_read = false;
    if (L->emu) { /* the site lets the emulator name a barrier not every wave reaches */
        LLVMValueRef site = global_string(L, site_of(L));
        emu_call(L, offsetof(EmuFns, barrier_at), L->void_t, &L->ptr0, &site, 1);
        L->fence_block = LLVMGetInsertBlock(L->b);
        L->fence_accesses = L->accesses;
        return;
    }
    if (L->nv) { /* bar.sync orders shared and global memory among the block's threads */
        LLVMValueRef zero = const_i32(L, 0);
        call(L, "llvm.nvvm.barrier.cta.sync.aligned.all", L->void_t, &L->i32, &zero, 1);
        return;
    }
    LLVMBuildFence(L->b, LLVMAtomicOrderingRelease, 0, "");
    LLVMValueRef fence = LLVMGetLastInstruction(LLVMGetInsertBlock(L->b));
    LLVMSetAtomicSyncScopeID(fence, LLVMGetSyncScopeID(L->ctx, "workgroup", 9));
    call(L, "llvm.amdgcn.s.barrier", L->void_t, NULL, NULL, 0);
    LLVMBuildFence(L->b, LLVMAtomicOrderingAcquire, 0, "");
    fence = LLVMGetLastInstruction(LLVMGetInsertBlock(L->b));
    LLVMSetAtomicSyncScopeID(fence, LLVMGetSyncScopeID(L->ctx, "workgroup", 9));
}

LLVMValueRef tgt_lds_ptr(Lower *L, LLVMValueRef byte_offset)
{
    return LLVMBuildGEP2(L->b, L->i8, L->lds, &byte_offset, 1, "");
}

LLVMValueRef tgt_shuffle(Lower *L, LLVMValueRef value, LLVMValueRef src_lane)
{
    if (L->nv && !L->emu) {
        LLVMTypeRef pt[4] = {L->i32, L->i32, L->i32, L->i32};
        LLVMValueRef args[4] = {const_i32(L, -1), value, src_lane, const_i32(L, 31)};
        return call(L, "llvm.nvvm.shfl.sync.idx.i32", L->i32, pt, args, 4);
    }
    LLVMValueRef addr = LLVMBuildShl(L->b, src_lane, const_i32(L, 2), "");
    LLVMTypeRef pt[2] = {L->i32, L->i32};
    LLVMValueRef args[2] = {addr, value};
    if (L->emu)
        return emu_call(L, offsetof(EmuFns, bpermute), L->i32, pt, args, 2);
    return call(L, "llvm.amdgcn.ds.bpermute", L->i32, pt, args, 2);
}

/* The LLVM intrinsic of each matrix instruction (gfx90a spells some differently). */
static const char *mfma_intrinsic(Lower *L, int instr)
{
    switch (instr) {
    case EMU_MFMA_F32_16X16X16_F16: return "llvm.amdgcn.mfma.f32.16x16x16f16";
    case EMU_MFMA_F32_32X32X8_F16: return "llvm.amdgcn.mfma.f32.32x32x8f16";
    case EMU_MFMA_F32_16X16X16_BF16: return "llvm.amdgcn.mfma.f32.16x16x16bf16.1k";
    case EMU_MFMA_F32_32X32X8_BF16: return "llvm.amdgcn.mfma.f32.32x32x8bf16.1k";
    case EMU_MFMA_F32_16X16X4_F32: return "llvm.amdgcn.mfma.f32.16x16x4f32";
    case EMU_MFMA_F32_32X32X2_F32: return "llvm.amdgcn.mfma.f32.32x32x2f32";
    case EMU_MFMA_F32_16X16X8_XF32: return "llvm.amdgcn.mfma.f32.16x16x8.xf32";
    case EMU_MFMA_F32_32X32X4_XF32: return "llvm.amdgcn.mfma.f32.32x32x4.xf32";
    case EMU_MFMA_I32_16X16X32_I8: return "llvm.amdgcn.mfma.i32.16x16x32.i8";
    case EMU_MFMA_I32_32X32X16_I8: return "llvm.amdgcn.mfma.i32.32x32x16.i8";
    case EMU_MFMA_I32_16X16X16_I8: return "llvm.amdgcn.mfma.i32.16x16x16i8";
    case EMU_MFMA_I32_32X32X8_I8: return "llvm.amdgcn.mfma.i32.32x32x8i8";
    case EMU_MFMA_F32_16X16X32_F16: return "llvm.amdgcn.mfma.f32.16x16x32.f16";
    case EMU_MFMA_F32_32X32X16_F16: return "llvm.amdgcn.mfma.f32.32x32x16.f16";
    case EMU_MFMA_F32_16X16X32_BF16: return "llvm.amdgcn.mfma.f32.16x16x32.bf16";
    case EMU_MFMA_F32_32X32X16_BF16: return "llvm.amdgcn.mfma.f32.32x32x16.bf16";
    default:
        (void)L;
        return NULL;
    }
}

/* Stores a value to a stack slot as 32-bit words; returns the slot. */
static LLVMValueRef spill_words(Lower *L, LLVMValueRef v)
{
    LLVMValueRef slot = LLVMBuildAlloca(L->b, LLVMTypeOf(v), "");
    LLVMBuildStore(L->b, v, slot);
    return slot;
}

LLVMValueRef tgt_mfma(Lower *L, int instr, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c)
{
    if (L->emu) {
        LLVMValueRef pa = spill_words(L, a), pb = spill_words(L, b), pc = spill_words(L, c);
        LLVMValueRef pd = LLVMBuildAlloca(L->b, LLVMTypeOf(c), "");
        LLVMTypeRef pt[5] = {L->i32, L->ptr0, L->ptr0, L->ptr0, L->ptr0};
        LLVMValueRef args[5] = {const_i32(L, instr), pa, pb, pc, pd};
        emu_call(L, offsetof(EmuFns, mfma), L->void_t, pt, args, 5);
        return LLVMBuildLoad2(L->b, LLVMTypeOf(c), pd, "");
    }
    const char *name = mfma_intrinsic(L, instr);
    if (!name) {
        lower_error(L, "internal error: no intrinsic for matrix instruction %d", instr);
        return c;
    }
    LLVMTypeRef pt[6] = {LLVMTypeOf(a), LLVMTypeOf(b), LLVMTypeOf(c), L->i32, L->i32, L->i32};
    LLVMValueRef args[6] = {a, b, c, const_i32(L, 0), const_i32(L, 0), const_i32(L, 0)};
    /* noundef: the operands are loaded tiles and accumulators rk has defined. It ends SLP's poison
     * queries on every vector an accumulator is extracted from (they walked the mfma chain back
     * through its operands): 20% of the optimisation pipeline of a matmul, the same IR out of it */
    return noundef_ret(L, call(L, name, LLVMTypeOf(c), pt, args, 6));
}

void tgt_mma_sync(Lower *L, int instr, LLVMValueRef *a, LLVMValueRef *b, LLVMValueRef *acc)
{
    if (!L->nv) {
        lower_error(L, "internal error: mma.sync on a target without it");
        return;
    }
    if (L->emu) { /* the emulator's mma_sync(lane, op, a[4], b[2], c[4], d[4]) on 32-bit words */
        LLVMValueRef pa = LLVMBuildAlloca(L->b, LLVMArrayType2(L->i32, 4), "");
        LLVMValueRef pb = LLVMBuildAlloca(L->b, LLVMArrayType2(L->i32, 2), "");
        LLVMValueRef pc = LLVMBuildAlloca(L->b, LLVMArrayType2(L->f32, 4), "");
        LLVMValueRef pd = LLVMBuildAlloca(L->b, LLVMArrayType2(L->f32, 4), "");
        for (int i = 0; i < 4; i++) {
            LLVMValueRef w = LLVMBuildBitCast(L->b, a[i], L->i32, "");
            LLVMBuildStore(L->b, w, LLVMBuildGEP2(L->b, L->i32, pa, (LLVMValueRef[]){const_i32(L, i)}, 1, ""));
            LLVMBuildStore(L->b, acc[i], LLVMBuildGEP2(L->b, L->f32, pc, (LLVMValueRef[]){const_i32(L, i)}, 1, ""));
        }
        for (int i = 0; i < 2; i++) {
            LLVMValueRef w = LLVMBuildBitCast(L->b, b[i], L->i32, "");
            LLVMBuildStore(L->b, w, LLVMBuildGEP2(L->b, L->i32, pb, (LLVMValueRef[]){const_i32(L, i)}, 1, ""));
        }
        LLVMTypeRef pt[5] = {L->i32, L->ptr0, L->ptr0, L->ptr0, L->ptr0};
        LLVMValueRef args[5] = {const_i32(L, instr), pa, pb, pc, pd};
        emu_call(L, offsetof(EmuFns, mma_sync), L->void_t, pt, args, 5);
        for (int i = 0; i < 4; i++)
            acc[i] = LLVMBuildLoad2(L->b, L->f32,
                                    LLVMBuildGEP2(L->b, L->f32, pd, (LLVMValueRef[]){const_i32(L, i)}, 1, ""), "");
        return;
    }
    LLVMTypeRef pt = LLVMTypeOf(a[0]);
    LLVMTypeRef params[10] = {pt, pt, pt, pt, pt, pt, L->f32, L->f32, L->f32, L->f32};
    LLVMValueRef args[10] = {a[0], a[1], a[2], a[3], b[0], b[1], acc[0], acc[1], acc[2], acc[3]};
    LLVMTypeRef rt = LLVMStructTypeInContext(L->ctx, (LLVMTypeRef[]){L->f32, L->f32, L->f32, L->f32}, 4, 0);
    const char *name = instr == NV_MMA_BF16 ? "llvm.nvvm.mma.m16n8k16.row.col.bf16"
                                            : "llvm.nvvm.mma.m16n8k16.row.col.f32.f32";
    LLVMValueRef r = call(L, name, rt, params, args, 10);
    for (int i = 0; i < 4; i++)
        acc[i] = LLVMBuildExtractValue(L->b, r, (unsigned)i, "");
}

void tgt_ldmatrix_x4(Lower *L, LLVMValueRef ptr, bool trans, LLVMValueRef *out)
{
    if (L->emu) { /* the emulator's ldmatrix(lane, addr, trans, out[4]) */
        LLVMValueRef po = LLVMBuildAlloca(L->b, LLVMArrayType2(L->i32, 4), "");
        tgt_check(L, ptr, 16, EMU_ACCESS_LOAD | EMU_ACCESS_LDS);
        LLVMTypeRef pt[3] = {L->ptr0, L->i32, L->ptr0};
        LLVMValueRef args[3] = {ptr, const_i32(L, trans), po};
        emu_call(L, offsetof(EmuFns, ldmatrix), L->void_t, pt, args, 3);
        for (int i = 0; i < 4; i++)
            out[i] = LLVMBuildLoad2(L->b, L->i32,
                                    LLVMBuildGEP2(L->b, L->i32, po, (LLVMValueRef[]){const_i32(L, i)}, 1, ""), "");
        return;
    }
    LLVMTypeRef rt = LLVMStructTypeInContext(L->ctx, (LLVMTypeRef[]){L->i32, L->i32, L->i32, L->i32}, 4, 0);
    LLVMTypeRef pt = L->ptr_lds;
    LLVMValueRef r = call(L, trans ? "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.trans.b16.p3"
                                   : "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3",
                          rt, &pt, &ptr, 1);
    for (int i = 0; i < 4; i++)
        out[i] = LLVMBuildExtractValue(L->b, r, (unsigned)i, "");
}

/* ---- cp.async (sm_90) ---- */

void tgt_cp_async(Lower *L, LLVMValueRef dst, LLVMValueRef src, int bytes, LLVMValueRef mask)
{
    if (L->emu) { /* the emulator's cp_async(lane, dst, src, bytes, src_bytes) */
        LLVMValueRef n = mask ? LLVMBuildSelect(L->b, mask, const_i32(L, bytes), const_i32(L, 0), "") : const_i32(L, bytes);
        LLVMTypeRef pt[5] = {L->ptr0, L->ptr0, L->i32, L->i32, L->ptr0};
        LLVMValueRef args[5] = {dst, src, const_i32(L, bytes), n, global_string(L, site_of(L))};
        emu_call(L, offsetof(EmuFns, cp_async), L->void_t, pt, args, 5);
        return;
    }
    /* .cg (L2 only) for 16 bytes, as Triton does; .ca for the narrower copies, which .cg lacks. With a
     * mask, the .s form: src-size 0 reads nothing and fills the destination with zeros. */
    char name[64];
    snprintf(name, sizeof name, "llvm.nvvm.cp.async.%s.shared.global.%d%s", bytes == 16 ? "cg" : "ca", bytes,
             mask ? ".s" : "");
    LLVMTypeRef pt[3] = {L->ptr_lds, L->ptr_g, L->i32};
    LLVMValueRef args[3] = {dst, src, mask ? LLVMBuildSelect(L->b, mask, const_i32(L, bytes), const_i32(L, 0), "") : NULL};
    call(L, name, L->void_t, pt, args, mask ? 3 : 2);
}

void tgt_cp_async_commit(Lower *L)
{
    if (L->emu)
        emu_call(L, offsetof(EmuFns, cp_async_commit), L->void_t, NULL, NULL, 0);
    else
        call(L, "llvm.nvvm.cp.async.commit.group", L->void_t, NULL, NULL, 0);
}

void tgt_cp_async_wait(Lower *L, int n)
{
    LLVMValueRef v = const_i32(L, n);
    if (n < 0) { /* wait_all: commit_group, then wait_group 0 */
        if (L->emu) {
            tgt_cp_async_commit(L);
            v = const_i32(L, 0);
            emu_call(L, offsetof(EmuFns, cp_async_wait), L->void_t, &L->i32, &v, 1);
        } else {
            call(L, "llvm.nvvm.cp.async.wait.all", L->void_t, NULL, NULL, 0);
        }
        return;
    }
    if (L->emu)
        emu_call(L, offsetof(EmuFns, cp_async_wait), L->void_t, &L->i32, &v, 1);
    else
        call(L, "llvm.nvvm.cp.async.wait.group", L->void_t, &L->i32, &v, 1);
}

void tgt_wave_fence(Lower *L)
{
    if (!L->emu)
        return;
    /* nothing to order when no access was emitted since a fence or barrier in this block: one basic
     * block runs straight through, so every lane of the wave passed that fence just before */
    LLVMBasicBlockRef bb = LLVMGetInsertBlock(L->b);
    if (bb == L->fence_block && L->accesses == L->fence_accesses)
        return;
    emu_call(L, offsetof(EmuFns, wave_fence), L->void_t, NULL, NULL, 0);
    L->fence_block = bb;
    L->fence_accesses = L->accesses;
}

/* fns->check(lane, ptr, bytes, flags, site); flags an i32 value */
static void emu_check(Lower *L, LLVMValueRef ptr, int bytes, LLVMValueRef flags)
{
    L->accesses++;
    if (L->check_or) /* never on a masked-off lane's check (flags 0: no access) */
        flags = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntNE, flags, const_i32(L, 0), ""),
                                LLVMBuildOr(L->b, flags, L->check_or, ""), flags, "");
    LLVMTypeRef pt[4] = {L->ptr0, L->i64, L->i32, L->ptr0};
    LLVMValueRef args[4] = {ptr, const_i64(L, bytes), flags, global_string(L, site_of(L))};
    emu_call(L, offsetof(EmuFns, check), L->void_t, pt, args, 4);
}

void tgt_check(Lower *L, LLVMValueRef ptr, int bytes, int flags)
{
    if ((flags & (EMU_ACCESS_LDS | EMU_ACCESS_LOAD)) == (EMU_ACCESS_LDS | EMU_ACCESS_LOAD))
        L->lds_read = true;
    if (L->emu)
        emu_check(L, ptr, bytes, const_i32(L, flags));
}

void tgt_check_masked(Lower *L, LLVMValueRef ptr, int bytes, int flags, LLVMValueRef m)
{
    if (L->emu) /* flags 0: the lane does not access memory */
        emu_check(L, ptr, bytes, LLVMBuildSelect(L->b, m, const_i32(L, flags), const_i32(L, 0), ""));
}

LLVMValueRef tgt_safe_ptr(Lower *L)
{
    LLVMValueRef g = LLVMGetNamedGlobal(L->mod, "rk.safe");
    if (!g) {
        LLVMTypeRef at = LLVMArrayType2(L->i8, 16);
        g = LLVMAddGlobalInAddressSpace(L->mod, at, "rk.safe", L->emu ? 0 : 1);
        LLVMSetInitializer(g, LLVMConstNull(at));
        LLVMSetGlobalConstant(g, 1);
        LLVMSetLinkage(g, LLVMPrivateLinkage);
        LLVMSetUnnamedAddr(g, 1);
        LLVMSetAlignment(g, 16);
    }
    return g;
}

void tgt_assert_fail(Lower *L, const char *msg)
{
    if (!L->emu) {
        call(L, "llvm.trap", L->void_t, NULL, NULL, 0);
        return;
    }
    LLVMTypeRef pt[2] = {L->ptr0, L->ptr0};
    LLVMValueRef args[2] = {global_string(L, msg), global_string(L, site_of(L))};
    emu_call(L, offsetof(EmuFns, assert_fail), L->void_t, pt, args, 2);
}

void tgt_print(Lower *L, const char *msg, int rank, LLVMValueRef *coords, int kind, LLVMValueRef bits64)
{
    if (!L->emu)
        return;
    LLVMValueRef arr = LLVMBuildAlloca(L->b, LLVMArrayType2(L->i32, (unsigned)(rank ? rank : 1)), "");
    for (int i = 0; i < rank; i++) {
        LLVMValueRef p = LLVMBuildGEP2(L->b, L->i32, arr, (LLVMValueRef[]){const_i32(L, i)}, 1, "");
        LLVMBuildStore(L->b, coords[i], p);
    }
    LLVMTypeRef pt[5] = {L->ptr0, L->i32, L->ptr0, L->i32, L->i64};
    LLVMValueRef args[5] = {global_string(L, msg), const_i32(L, rank), arr, const_i32(L, kind), bits64};
    emu_call(L, offsetof(EmuFns, print), L->void_t, pt, args, 5);
}

void tgt_loop_tick(Lower *L)
{
    if (L->emu)
        emu_call(L, offsetof(EmuFns, tick), L->void_t, NULL, NULL, 0);
}

static void fn_attr(Lower *L, const char *k, const char *v)
{
    LLVMAttributeRef a = LLVMCreateStringAttribute(L->ctx, k, (unsigned)strlen(k), v, (unsigned)strlen(v));
    LLVMAddAttributeAtIndex(L->fn, LLVMAttributeFunctionIndex, a);
}

void tgt_finish(Lower *L)
{
    if (L->emu) {
        fn_attr(L, "probe-stack", "inline-asm");
        if (L->wave != EMU_WAVE) {
            /* the launch's wave size, read by the emu device next to the kernel (absent: 64) */
            char name[512];
            snprintf(name, sizeof name, "%s" EMU_WAVE_SYMBOL_SUFFIX, L->f->name);
            LLVMValueRef g = LLVMAddGlobal(L->mod, L->i32, name);
            LLVMSetInitializer(g, const_i32(L, L->wave));
            LLVMSetGlobalConstant(g, 1);
        }
        return;
    }
    char buf[32];
    if (L->nv) {
        snprintf(buf, sizeof buf, "%d", L->nw * L->wave);
        fn_attr(L, "nvvm.maxntid", buf);
        if (!LLVMGetFirstUse(L->lds))
            LLVMDeleteGlobal(L->lds);
        L->lds = NULL;
        return;
    }
    snprintf(buf, sizeof buf, "1,%d", L->nw * L->wave);
    fn_attr(L, "amdgpu-flat-work-group-size", buf);
    if (L->f->opts.waves_per_eu > 0) {
        snprintf(buf, sizeof buf, "%d", L->f->opts.waves_per_eu);
        fn_attr(L, "amdgpu-waves-per-eu", buf);
    }
    /* LDS: the global of the final size replaces the placeholder */
    LLVMValueRef ph = L->lds;
    if (LLVMGetFirstUse(ph)) {
        LLVMTypeRef at = LLVMArrayType2(L->i8, (uint64_t)L->lds_bytes);
        LLVMValueRef g = LLVMAddGlobalInAddressSpace(L->mod, at, "rk.lds", 3);
        LLVMSetLinkage(g, LLVMInternalLinkage);
        LLVMSetInitializer(g, LLVMGetUndef(at));
        LLVMSetAlignment(g, 16);
        LLVMReplaceAllUsesWith(ph, g);
    }
    LLVMDeleteGlobal(ph);
    L->lds = NULL;
}

/* ---- math the target has no generic lowering for ---- */

/* sm_90: LLVM's NVPTX back end has no libm; exp, log and the trigonometric functions are built from
 * the approximate instructions (ex2, lg2, sin, cos .approx.f32), which is what Triton's fast paths
 * emit too. exp carries the rounding error of x*log2(e) with an FMA so that large arguments keep
 * their precision; sin and cos reduce their argument to [-pi, pi] first (Cody-Waite, two parts of
 * 2*pi), where the instructions' absolute error is below 2^-20.9. 16-bit inputs compute in f32.
 * emu_sm90 runs the same code with the host's log2, sin and cos (correctly rounded or nearly) in
 * place of the approximate instructions: the range reductions and corrections are checked, the
 * instructions' own error is not modelled. */
LLVMValueRef tgt_math(Lower *L, OpCode code, LLVMValueRef a)
{
    if (!L->nv)
        return NULL;
    if (code != OP_EXP && code != OP_LOG && code != OP_LOG2 && code != OP_SIN && code != OP_COS)
        return NULL;
    LLVMTypeRef t = LLVMTypeOf(a);
    if (t != L->f32 && t != L->f16 && t != L->bf16)
        return NULL;
    LLVMValueRef x = t == L->f32 ? a : LLVMBuildFPExt(L->b, a, L->f32, "");
    if (code != OP_EXP) { /* accurate functions of our own (lower_nvmath.c) */
        LLVMValueRef r = nvmath_call(L, code, x);
        return t == L->f32 ? r : LLVMBuildFPTrunc(L->b, r, t, "");
    }
    /* exp: t = x*log2e rounded; e = its rounding error (exact by FMA) + x*log2e_lo; exp = 2^t (1 + e ln2) */
    LLVMTypeRef f1[1] = {L->f32}, f3[3] = {L->f32, L->f32, L->f32};
#define FMA(p, q, s) call(L, "llvm.fma.f32", L->f32, f3, (LLVMValueRef[]){p, q, s}, 3)
#define C(v) LLVMConstReal(L->f32, v)
    const double l2e = 1.4426950408889634, l2e_hi = (float)1.4426950408889634;
    LLVMValueRef th = LLVMBuildFMul(L->b, x, C(l2e_hi), "");
    LLVMValueRef e = FMA(x, C(l2e_hi), LLVMBuildFNeg(L->b, th, ""));
    e = FMA(x, C(l2e - l2e_hi), e);
    LLVMValueRef p = call(L, "llvm.exp2.f32", L->f32, f1, &th, 1);
    LLVMValueRef r = FMA(LLVMBuildFMul(L->b, p, C(0.6931471805599453), ""), e, p);
    /* x infinite (e is NaN then) or 2^t overflowed: the correction is NaN, 2^t is the answer */
    r = LLVMBuildSelect(L->b, LLVMBuildFCmp(L->b, LLVMRealUNO, r, r, ""), p, r, "");
#undef FMA
#undef C
    return t == L->f32 ? r : LLVMBuildFPTrunc(L->b, r, t, "");
}

/* fmod for sm_90, where LLVM's NVPTX back end expands frem as x - trunc(x / y) * y: wrong by far once
 * the quotient passes 2^24 (a remainder of 1.5e31 for 1e31 mod 0.7). The exact algorithm, in double
 * (which holds every f32 exactly): |y| doubled up to the largest b * 2^j <= |x|, then for j down to 0
 * subtract b * 2^j when it fits, each subtraction exact (Sterbenz: b 2^j <= a < b 2^(j+1)); the sign is
 * x's. NaN for an infinite x, y = 0 or a NaN; x when |x| < |y| (y infinite too). One function per
 * module, called per element: a loop of at most ~280 steps for f32 inputs, ~2100 for f64. emu_sm90 runs
 * the same function, so the run tests check it on the emulator as well as on the GPU. */
static LLVMValueRef fmod_function(Lower *L, LLVMTypeRef ft)
{
    const char *name = ft == L->f64 ? "rk.fmod.f64" : "rk.fmod.f32";
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, name);
    if (fn)
        return fn;
    LLVMTypeRef d = L->f64, pt[2] = {ft, ft};
    fn = LLVMAddFunction(L->mod, name, LLVMFunctionType(ft, pt, 2, 0));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(L->ctx);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(L->ctx, fn, "entry");
    LLVMBasicBlockRef up = LLVMAppendBasicBlockInContext(L->ctx, fn, "up");
    LLVMBasicBlockRef down = LLVMAppendBasicBlockInContext(L->ctx, fn, "down");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, fn, "done");
    LLVMBasicBlockRef small = LLVMAppendBasicBlockInContext(L->ctx, fn, "small");
    LLVMPositionBuilderAtEnd(b, entry);
    LLVMValueRef x = LLVMGetParam(fn, 0), y = LLVMGetParam(fn, 1);
    LLVMValueRef xd = ft == d ? x : LLVMBuildFPExt(b, x, d, ""), yd = ft == d ? y : LLVMBuildFPExt(b, y, d, "");
    LLVMValueRef fabs_fn = intrinsic(L, "llvm.fabs.f64", d, &d, 1);
    LLVMValueRef a = LLVMBuildCall2(b, LLVMGlobalGetValueType(fabs_fn), fabs_fn, &xd, 1, "");
    LLVMValueRef bb = LLVMBuildCall2(b, LLVMGlobalGetValueType(fabs_fn), fabs_fn, &yd, 1, "");
    LLVMValueRef inf = LLVMConstReal(d, __builtin_inf());
    /* NaN: x infinite or NaN (not a < inf), y zero or NaN (not b > 0) */
    LLVMValueRef bad = LLVMBuildOr(b, LLVMBuildFCmp(b, LLVMRealUGE, a, inf, ""),
                                   LLVMBuildFCmp(b, LLVMRealULE, bb, LLVMConstReal(d, 0), ""), "");
    LLVMValueRef lt = LLVMBuildFCmp(b, LLVMRealOLT, a, bb, "");
    LLVMBuildCondBr(b, LLVMBuildOr(b, bad, lt, ""), small, up);
    /* up: m doubles while m + m <= a */
    LLVMPositionBuilderAtEnd(b, up);
    LLVMValueRef m = LLVMBuildPhi(b, d, "m");
    LLVMValueRef m2 = LLVMBuildFAdd(b, m, m, "");
    LLVMValueRef more = LLVMBuildFCmp(b, LLVMRealOLE, m2, a, "");
    LLVMValueRef m_in[2] = {bb, m2};
    LLVMBasicBlockRef m_from[2] = {entry, up};
    LLVMAddIncoming(m, m_in, m_from, 2);
    LLVMBuildCondBr(b, more, up, down);
    /* down: subtract m when it fits, halve it, until m < b */
    LLVMPositionBuilderAtEnd(b, down);
    LLVMValueRef r = LLVMBuildPhi(b, d, "r"), k = LLVMBuildPhi(b, d, "k");
    LLVMValueRef fits = LLVMBuildFCmp(b, LLVMRealOGE, r, k, "");
    LLVMValueRef r2 = LLVMBuildSelect(b, fits, LLVMBuildFSub(b, r, k, ""), r, "");
    LLVMValueRef k2 = LLVMBuildFMul(b, k, LLVMConstReal(d, 0.5), "");
    LLVMValueRef again = LLVMBuildFCmp(b, LLVMRealOGE, k2, bb, "");
    LLVMValueRef r_in[2] = {a, r2}, k_in[2] = {m, k2};
    LLVMBasicBlockRef rk_from[2] = {up, down};
    LLVMAddIncoming(r, r_in, rk_from, 2);
    LLVMAddIncoming(k, k_in, rk_from, 2);
    LLVMBuildCondBr(b, again, down, done);
    LLVMPositionBuilderAtEnd(b, done);
    LLVMValueRef res = ft == d ? r2 : LLVMBuildFPTrunc(b, r2, ft, ""); /* exact: a remainder of f32s */
    LLVMValueRef cs = intrinsic(L, ft == d ? "llvm.copysign.f64" : "llvm.copysign.f32", ft, pt, 2);
    LLVMBuildRet(b, LLVMBuildCall2(b, LLVMGlobalGetValueType(cs), cs, (LLVMValueRef[]){res, x}, 2, ""));
    LLVMPositionBuilderAtEnd(b, small);
    LLVMBuildRet(b, LLVMBuildSelect(b, bad, LLVMConstReal(ft, __builtin_nan("")), x, ""));
    LLVMDisposeBuilder(b);
    return fn;
}

LLVMValueRef tgt_frem(Lower *L, LLVMValueRef a, LLVMValueRef b, ScalarKind sk)
{
    LLVMTypeRef t = LLVMTypeOf(a);
    /* emu_sm90 too: the emulator's run tests then check the sm_90 function. On AMDGPU a bf16
     * remainder (a and b are its operands widened to f32) takes the function as well: LLVM's
     * InstCombine narrows frem(fpext x, fpext y) back to a bf16 frem, which the AMDGPU back end cannot
     * lower ("no libcall available for frem", issue 23); the exact function is what sm_90 computes. */
    bool gfx_bf16 = !L->nv && !L->emu && sk == SK_BF16 && t == L->f32;
    if ((!L->nv && !gfx_bf16) || (t != L->f32 && t != L->f64))
        return LLVMBuildFRem(L->b, a, b, "");
    LLVMValueRef fn = fmod_function(L, t);
    return LLVMBuildCall2(L->b, LLVMGlobalGetValueType(fn), fn, (LLVMValueRef[]){a, b}, 2, "");
}

/* ---- wgmma (sm_90a): inline PTX, as LLVM 22 has no intrinsic for wgmma.mma_async ---- */

LLVMValueRef tgt_inline_asm(Lower *L, LLVMTypeRef ret, LLVMTypeRef *pt, LLVMValueRef *args, int n, const char *text,
                            const char *constraints)
{
    LLVMTypeRef ft = LLVMFunctionType(ret, pt, (unsigned)n, 0);
    LLVMValueRef f = LLVMGetInlineAsm(ft, text, strlen(text), constraints, strlen(constraints), 1, 0,
                                      LLVMInlineAsmDialectATT, 0);
    return LLVMBuildCall2(L->b, ft, f, args, (unsigned)n, "");
}

LLVMValueRef tgt_smem_addr(Lower *L, LLVMValueRef byte_offset)
{
    if (L->emu) /* the emulator's descriptors hold offsets into the workgroup's LDS */
        return byte_offset;
    return LLVMBuildTrunc(L->b, LLVMBuildPtrToInt(L->b, tgt_lds_ptr(L, byte_offset), L->i64, ""), L->i32, "");
}

void tgt_fence_proxy_async(Lower *L)
{
    if (!L->emu)
        tgt_inline_asm(L, L->void_t, NULL, NULL, 0, "fence.proxy.async.shared::cta;", "~{memory}");
}

void tgt_wgmma_fence(Lower *L)
{
    if (!L->emu)
        tgt_inline_asm(L, L->void_t, NULL, NULL, 0, "wgmma.fence.sync.aligned;", "~{memory}");
}

/* wgmma.mma_async as inline PTX: acc[n/2] tied in and out; A as a descriptor (na = 1, i64: the
 * shared-memory form, with imm-trans-a 0) or as four 32-bit registers (na = 4: the register form,
 * which has no imm-trans-a); scale-d 1 (accumulate), scale-a/b 1. */
static void nv_wgmma(Lower *L, int instr, int n, const LLVMValueRef *a, int na, LLVMValueRef b_desc, bool trans_b,
                     LLVMValueRef *acc)
{
    int nacc = n / 2;
    /* Accumulators that are all +0 (a dot's first instruction without C): D = A x B (scale-d false),
     * the registers written only. Passed in, the zeros would be one register that the tied outputs
     * share with every other use of 0 (a TMA copy's coordinate), and ptxas then waits for the
     * wgmma before that use (C7517), serialising the dot. */
    bool zero = true;
    for (int i = 0; i < nacc && zero; i++) {
        LLVMBool lost;
        zero = LLVMIsUndef(acc[i]) ||
               (LLVMIsAConstantFP(acc[i]) && LLVMConstRealGetDouble(acc[i], &lost) == 0.0 &&
                !signbit(LLVMConstRealGetDouble(acc[i], &lost)));
    }
    int nin = zero ? 0 : nacc; /* operands before A's: the accumulators in, tied to the outputs */
    size_t cap = (size_t)nacc * 24 + 256;
    char *text = arena_alloc(L->a, cap), *cons = arena_alloc(L->a, cap);
    const char *ty = instr == NV_WGMMA_F16 ? "f16" : "bf16";
    int t = snprintf(text, cap, "{\n.reg .pred p;\nsetp.ne.b32 p, %d, 0;\nwgmma.mma_async.sync.aligned.m64n%dk16.f32.%s.%s {",
                     zero ? 0 : 1, n, ty, ty);
    int c = 0;
    for (int i = 0; i < nacc; i++) {
        t += snprintf(text + t, cap - (size_t)t, "%s$%d", i ? "," : "", i);
        c += snprintf(cons + c, cap - (size_t)c, "%s=f", i ? "," : "");
    }
    for (int i = 0; i < nin; i++)
        c += snprintf(cons + c, cap - (size_t)c, ",%d", i);
    t += snprintf(text + t, cap - (size_t)t, "}, %s", na > 1 ? "{" : "");
    for (int i = 0; i < na; i++) {
        t += snprintf(text + t, cap - (size_t)t, "%s$%d", i ? "," : "", nacc + nin + i);
        c += snprintf(cons + c, cap - (size_t)c, ",%s", na > 1 ? "r" : "l");
    }
    snprintf(cons + c, cap - (size_t)c, ",l");
    snprintf(text + t, cap - (size_t)t, "%s, $%d, p, 1, 1, %s%d;\n}", na > 1 ? "}" : "", nacc + nin + na,
             na > 1 ? "" : "0, ", trans_b ? 1 : 0);
    LLVMTypeRef *fields = ARENA_ARRAY(L->a, LLVMTypeRef, nacc);
    LLVMTypeRef *pt = ARENA_ARRAY(L->a, LLVMTypeRef, nin + na + 1);
    LLVMValueRef *args = ARENA_ARRAY(L->a, LLVMValueRef, nin + na + 1);
    for (int i = 0; i < nacc; i++)
        fields[i] = L->f32;
    for (int i = 0; i < nin; i++) {
        pt[i] = L->f32;
        args[i] = acc[i];
    }
    for (int i = 0; i < na; i++) {
        args[nin + i] = na > 1 ? LLVMBuildBitCast(L->b, a[i], L->i32, "") : a[i];
        pt[nin + i] = LLVMTypeOf(args[nin + i]);
    }
    pt[nin + na] = L->i64;
    args[nin + na] = b_desc;
    LLVMValueRef r = tgt_inline_asm(L, LLVMStructTypeInContext(L->ctx, fields, (unsigned)nacc, 0), pt, args,
                                nin + na + 1, text, cons);
    for (int i = 0; i < nacc; i++)
        acc[i] = LLVMBuildExtractValue(L->b, r, (unsigned)i, "");
}

/* The emulator's wgmma (A a descriptor) or wgmma_rs (A four registers): acc through a stack array. */
static void emu_wgmma(Lower *L, int instr, int n, const LLVMValueRef *a, int na, LLVMValueRef b_desc, bool trans_b,
                      LLVMValueRef *acc)
{
    int nacc = n / 2;
    LLVMValueRef pc = LLVMBuildAlloca(L->b, LLVMArrayType2(L->f32, (unsigned)nacc), "");
    for (int i = 0; i < nacc; i++)
        LLVMBuildStore(L->b, acc[i], LLVMBuildGEP2(L->b, L->f32, pc, (LLVMValueRef[]){const_i32(L, i)}, 1, ""));
    LLVMValueRef av = a[0];
    LLVMTypeRef at = L->i64;
    if (na > 1) {
        av = LLVMBuildAlloca(L->b, LLVMArrayType2(L->i32, 4), "");
        at = L->ptr0;
        for (int i = 0; i < 4; i++)
            LLVMBuildStore(L->b, LLVMBuildBitCast(L->b, a[i], L->i32, ""),
                           LLVMBuildGEP2(L->b, L->i32, av, (LLVMValueRef[]){const_i32(L, i)}, 1, ""));
    }
    LLVMTypeRef pt[6] = {L->i32, L->i32, at, L->i64, L->i32, L->ptr0};
    LLVMValueRef args[6] = {const_i32(L, instr), const_i32(L, n), av, b_desc, const_i32(L, trans_b), pc};
    emu_call(L, na > 1 ? offsetof(EmuFns, wgmma_rs) : offsetof(EmuFns, wgmma), L->void_t, pt, args, 6);
    for (int i = 0; i < nacc; i++)
        acc[i] = LLVMBuildLoad2(L->b, L->f32, LLVMBuildGEP2(L->b, L->f32, pc, (LLVMValueRef[]){const_i32(L, i)}, 1, ""),
                                "");
}

void tgt_wgmma(Lower *L, int instr, int n, LLVMValueRef a_desc, LLVMValueRef b_desc, bool trans_b, LLVMValueRef *acc)
{
    (L->emu ? emu_wgmma : nv_wgmma)(L, instr, n, &a_desc, 1, b_desc, trans_b, acc);
}

void tgt_wgmma_rs(Lower *L, int instr, int n, LLVMValueRef *a, LLVMValueRef b_desc, bool trans_b, LLVMValueRef *acc)
{
    (L->emu ? emu_wgmma : nv_wgmma)(L, instr, n, a, 4, b_desc, trans_b, acc);
}

void tgt_wgmma_commit(Lower *L)
{
    if (!L->emu)
        tgt_inline_asm(L, L->void_t, NULL, NULL, 0, "wgmma.commit_group.sync.aligned;", "~{memory}");
}

void tgt_wgmma_wait(Lower *L, LLVMValueRef *acc, int n, int pending)
{
    if (L->emu)
        return;
    /* the accumulators pass through the wait: nothing reads them before it (register moves included) */
    size_t cap = (size_t)n * 8 + 64;
    char *cons = arena_alloc(L->a, cap), text[64];
    int c = 0;
    for (int i = 0; i < n; i++)
        c += snprintf(cons + c, cap - (size_t)c, "%s=f", i ? "," : "");
    for (int i = 0; i < n; i++)
        c += snprintf(cons + c, cap - (size_t)c, ",%d", i);
    snprintf(cons + c, cap - (size_t)c, "%s~{memory}", n ? "," : "");
    snprintf(text, sizeof text, "wgmma.wait_group.sync.aligned %d;", pending);
    LLVMTypeRef *fields = ARENA_ARRAY(L->a, LLVMTypeRef, n + 1);
    for (int i = 0; i < n; i++)
        fields[i] = L->f32;
    LLVMTypeRef rt = n > 1 ? LLVMStructTypeInContext(L->ctx, fields, (unsigned)n, 0) : n ? L->f32 : L->void_t;
    LLVMValueRef r = tgt_inline_asm(L, rt, fields, acc, n, text, cons);
    if (n == 1)
        acc[0] = r;
    for (int i = 0; n > 1 && i < n; i++)
        acc[i] = LLVMBuildExtractValue(L->b, r, (unsigned)i, "");
}
