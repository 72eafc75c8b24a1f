/* The lowering's hooks for the emulator (emu: a gfx942 workgroup; emu_sm90: an sm_90 thread block):
 * host code that does what needs the other lanes, the workgroup or the matrix units through calls of
 * the EmuLane the emulator passes to every lane (isa/emu_abi.h), whose field offsets come from
 * that header. Every memory access is checked (fns->check), stores and atomics are ordered across the
 * wave (fns->wave_fence), device_assert and print report through the emulator. What differs between
 * the two architectures it emulates (math, remainders) is sm_90's own code where the arch is sm_90. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "compiler/lower/lower_internal.h"
#include "compiler/target/target_hooks.h"
#include "isa/emu_abi.h"
#include "isa/mfma.h"

static bool emulates_sm90(const Lower *L)
{
    return strcmp(L->t->arch, "sm_90") == 0;
}

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

/* The kernel takes the kernarg block and the lane. */
static void emu_signature(Lower *L, int np)
{
    (void)np;
    LLVMTypeRef params[2] = {L->ptr0, L->ptr0};
    L->fn = LLVMAddFunction(L->mod, L->f->name, LLVMFunctionType(L->void_t, params, 2, 0));
}

static void emu_entry(Lower *L)
{
    LLVMBuilderRef b = L->setup;
    L->lane_ptr = LLVMGetParam(L->fn, 1);
    L->fns = lane_field(L, b, offsetof(EmuLane, fns), L->ptr0);
    L->tid = lane_field(L, b, offsetof(EmuLane, lane), L->i32);
    L->lds = lane_field(L, b, offsetof(EmuLane, lds), L->ptr0);
}

/* The parameters from the kernarg block, laid out as the GPU's: each at its own alignment. */
static void emu_params(Lower *L, int np)
{
    Block *body = L->f->body;
    L->arg_off = ARENA_ARRAY(L->a, int, np + 1);
    int off = 0;
    for (int i = 0; i < np; i++) {
        const Type *t = body->args[i].type;
        LLVMTypeRef lt = t->kind == TY_SCALAR && t->sk == SK_BOOL ? L->i8 : llvm_type(L, t);
        int size = t->kind == TY_PTR ? 8 : (t->sk == SK_BOOL ? 1 : ty_bits(t) / 8);
        off = align_up(off, size);
        L->arg_off[i] = off;
        LLVMValueRef p = LLVMBuildGEP2(L->b, L->i8, LLVMGetParam(L->fn, 0), (LLVMValueRef[]){const_i64(L, off)}, 1, "");
        LLVMValueRef v = LLVMBuildLoad2(L->b, lt, p, body->args[i].name ? body->args[i].name : "");
        off += size;
        lower_param_set(L, i, v);
    }
}

static LLVMValueRef emu_program_id(Lower *L, int axis)
{
    return lane_field(L, L->b, offsetof(EmuLane, wg) + 4 * (size_t)axis, L->i32);
}

static LLVMValueRef emu_num_programs(Lower *L, int axis)
{
    return lane_field(L, L->b, offsetof(EmuLane, nwg) + 4 * (size_t)axis, L->i32);
}

/* the site lets the emulator name a barrier not every wave reaches */
static void emu_barrier(Lower *L)
{
    LLVMValueRef site = global_string(L, site_of(L));
    emu_call(L, offsetof(EmuFns, barrier_at), L->void_t, &L->ptr0, &site, 1);
    L->fence_block = LLVMGetInsertBlock(L->b);
    L->fence_accesses = L->accesses;
}

static LLVMValueRef emu_shuffle(Lower *L, LLVMValueRef value, LLVMValueRef src_lane)
{
    LLVMValueRef addr = LLVMBuildShl(L->b, src_lane, const_i32(L, 2), "");
    LLVMTypeRef pt[2] = {L->i32, L->i32};
    LLVMValueRef args[2] = {addr, value};
    return emu_call(L, offsetof(EmuFns, bpermute), L->i32, pt, args, 2);
}

/* the emulator's DPP and readlane (runtime/emu/emu_wave.c, from AMD's CDNA3 ISA) */
static LLVMValueRef emu_dpp(Lower *L, LLVMValueRef value, int dpp_ctrl)
{
    LLVMTypeRef pt[6] = {L->i32, L->i32, L->i32, L->i32, L->i32, L->i32};
    LLVMValueRef args[6] = {const_i32(L, 0), value, const_i32(L, dpp_ctrl), const_i32(L, 0xF), const_i32(L, 0xF),
                            const_i32(L, 1)};
    return emu_call(L, offsetof(EmuFns, dpp), L->i32, pt, args, 6);
}

static LLVMValueRef emu_readlane(Lower *L, LLVMValueRef value, int lane)
{
    LLVMTypeRef pt[2] = {L->i32, L->i32};
    LLVMValueRef args[2] = {value, const_i32(L, lane)};
    return emu_call(L, offsetof(EmuFns, readlane), L->i32, pt, args, 2);
}

/* Stores a value to a stack slot as 32-bit words; returns the slot. */
static LLVMValueRef spill_words(Lower *L, LLVMValueRef v)
{
    LLVMValueRef slot = LLVMBuildAlloca(L->b, LLVMTypeOf(v), "");
    LLVMBuildStore(L->b, v, slot);
    return slot;
}

static LLVMValueRef emu_mfma(Lower *L, int instr, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c)
{
    LLVMValueRef pa = spill_words(L, a), pb = spill_words(L, b), pc = spill_words(L, c);
    LLVMValueRef pd = LLVMBuildAlloca(L->b, LLVMTypeOf(c), "");
    LLVMTypeRef pt[5] = {L->i32, L->ptr0, L->ptr0, L->ptr0, L->ptr0};
    LLVMValueRef args[5] = {const_i32(L, instr), pa, pb, pc, pd};
    emu_call(L, offsetof(EmuFns, mfma), L->void_t, pt, args, 5);
    return LLVMBuildLoad2(L->b, LLVMTypeOf(c), pd, "");
}

/* the emulator's mma_sync(lane, op, a[4], b[2], c[4], d[4]) on 32-bit words */
static void emu_mma_sync(Lower *L, int instr, LLVMValueRef *a, LLVMValueRef *b, LLVMValueRef *acc)
{
    if (!emulates_sm90(L)) {
        lower_error(L, "internal error: mma.sync on a target without it");
        return;
    }
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
        acc[i] = LLVMBuildLoad2(L->b, L->f32, LLVMBuildGEP2(L->b, L->f32, pd, (LLVMValueRef[]){const_i32(L, i)}, 1, ""),
                                "");
}

/* the emulator's ldmatrix(lane, addr, trans, out[4]) */
static void emu_ldmatrix_x4(Lower *L, LLVMValueRef ptr, bool trans, LLVMValueRef *out)
{
    LLVMValueRef po = LLVMBuildAlloca(L->b, LLVMArrayType2(L->i32, 4), "");
    tgt_check(L, ptr, 16, EMU_ACCESS_LOAD | EMU_ACCESS_LDS);
    LLVMTypeRef pt[3] = {L->ptr0, L->i32, L->ptr0};
    LLVMValueRef args[3] = {ptr, const_i32(L, trans), po};
    emu_call(L, offsetof(EmuFns, ldmatrix), L->void_t, pt, args, 3);
    for (int i = 0; i < 4; i++)
        out[i] = LLVMBuildLoad2(L->b, L->i32, LLVMBuildGEP2(L->b, L->i32, po, (LLVMValueRef[]){const_i32(L, i)}, 1, ""),
                                "");
}

/* the emulator's cp_async(lane, dst, src, bytes, src_bytes) */
static void emu_cp_async(Lower *L, LLVMValueRef dst, LLVMValueRef src, int bytes, LLVMValueRef mask)
{
    LLVMValueRef n = mask ? LLVMBuildSelect(L->b, mask, const_i32(L, bytes), const_i32(L, 0), "") : const_i32(L, bytes);
    LLVMTypeRef pt[5] = {L->ptr0, L->ptr0, L->i32, L->i32, L->ptr0};
    LLVMValueRef args[5] = {dst, src, const_i32(L, bytes), n, global_string(L, site_of(L))};
    emu_call(L, offsetof(EmuFns, cp_async), L->void_t, pt, args, 5);
}

static void emu_cp_async_commit(Lower *L)
{
    emu_call(L, offsetof(EmuFns, cp_async_commit), L->void_t, NULL, NULL, 0);
}

/* n < 0: wait_all, a commit_group and then wait_group 0 */
static void emu_cp_async_wait(Lower *L, int n)
{
    if (n < 0) {
        emu_cp_async_commit(L);
        n = 0;
    }
    LLVMValueRef v = const_i32(L, n);
    emu_call(L, offsetof(EmuFns, cp_async_wait), L->void_t, &L->i32, &v, 1);
}

static void emu_wave_fence(Lower *L)
{
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

/* Buffer addressing (lower_buffer.c): the resource is the V# gfx942 would get (amdgpu/lower_amdgpu.c
 * builds the same one for the GPU): the base in bits 0-47, stride 0, num_records 2^31, DATA_FORMAT 4
 * and NUM_FORMAT 7; the emulator executes the access from it (runtime/emu/emu_buffer.c). Built in
 * the setup block, as four i32 in a stack slot there. */
static LLVMValueRef emu_buffer_rsrc(Lower *L, LLVMValueRef base)
{
    LLVMBuilderRef b = L->setup;
    LLVMTypeRef at = LLVMArrayType2(L->i32, 4);
    LLVMValueRef slot = LLVMBuildAlloca(b, at, "vsharp");
    LLVMValueRef a = LLVMBuildPtrToInt(b, base, L->i64, "");
    LLVMValueRef w[4] = {LLVMBuildTrunc(b, a, L->i32, ""),
                         LLVMBuildAnd(b, LLVMBuildTrunc(b, LLVMBuildLShr(b, a, const_i64(L, 32), ""), L->i32, ""),
                                      const_i32(L, 0xffff), ""),
                         const_i32(L, (int)0x80000000u), const_i32(L, (7 << 12) | (4 << 15))};
    for (int i = 0; i < 4; i++)
        LLVMBuildStore(b, w[i], LLVMBuildGEP2(b, L->i32, slot, (LLVMValueRef[]){const_i64(L, i)}, 1, ""));
    return slot;
}

/* A guarded resource (lower_buffer.c, uniform_guard): a copy of rsrc's V# whose num_records is 0 where
 * ok is false, in a slot of the setup block, written where the builder is. */
static LLVMValueRef emu_buffer_guard(Lower *L, LLVMValueRef base, LLVMValueRef rsrc, LLVMValueRef ok)
{
    (void)base;
    LLVMTypeRef at = LLVMArrayType2(L->i32, 4);
    LLVMValueRef slot = LLVMBuildAlloca(L->setup, at, "vsharp.guard");
    for (int i = 0; i < 4; i++) {
        LLVMValueRef idx = const_i64(L, i);
        LLVMValueRef w = i == 2 ? LLVMBuildSelect(L->b, ok, const_i32(L, (int)0x80000000u), const_i32(L, 0), "records")
                                : LLVMBuildLoad2(L->b, L->i32, LLVMBuildGEP2(L->b, L->i32, rsrc, &idx, 1, ""), "");
        LLVMBuildStore(L->b, w, LLVMBuildGEP2(L->b, L->i32, slot, &idx, 1, ""));
    }
    return slot;
}

/* The bytes of a scalar or vector of integers or floats. */
static int type_bytes(LLVMTypeRef t)
{
    bool vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
    LLVMTypeRef e = vec ? LLVMGetElementType(t) : t;
    int bits = LLVMGetTypeKind(e) == LLVMIntegerTypeKind ? (int)LLVMGetIntTypeWidth(e)
               : LLVMGetTypeKind(e) == LLVMFloatTypeKind  ? 32
               : LLVMGetTypeKind(e) == LLVMDoubleTypeKind ? 64
                                                          : 16;
    return bits / 8 * (vec ? (int)LLVMGetVectorSize(t) : 1);
}

static LLVMValueRef buffer_flags(Lower *L, int flags)
{
    L->accesses++;
    LLVMValueRef f = const_i32(L, flags);
    return L->check_or ? LLVMBuildOr(L->b, f, L->check_or, "") : f;
}

/* One slot for every access's data (at most 16 bytes; a lane's calls run one at a time): an alloca per
 * access made a 10,000-line kernel's frame and compile grow with its accesses. */
static LLVMValueRef buffer_slot(Lower *L)
{
    if (!L->buffer_slot) {
        L->buffer_slot = LLVMBuildAlloca(L->setup, LLVMVectorType(L->i32, 4), "bufdata");
        LLVMSetAlignment(L->buffer_slot, 16);
    }
    return L->buffer_slot;
}

static LLVMValueRef emu_buffer_load(Lower *L, LLVMValueRef rsrc, LLVMValueRef off, LLVMTypeRef ty, int flags)
{
    LLVMValueRef slot = buffer_slot(L);
    LLVMTypeRef pt[7] = {L->ptr0, L->i32, L->i32, L->i32, L->ptr0, L->i32, L->ptr0};
    LLVMValueRef args[7] = {rsrc, off, const_i32(L, 0), const_i32(L, type_bytes(ty)), slot,
                            buffer_flags(L, flags), global_string(L, site_of(L))};
    emu_call(L, offsetof(EmuFns, buffer_load), L->void_t, pt, args, 7);
    return LLVMBuildLoad2(L->b, ty, slot, "");
}

static void emu_buffer_store(Lower *L, LLVMValueRef rsrc, LLVMValueRef off, LLVMValueRef v, int flags)
{
    LLVMTypeRef ty = LLVMTypeOf(v);
    LLVMValueRef slot = buffer_slot(L);
    LLVMBuildStore(L->b, v, slot);
    LLVMTypeRef pt[7] = {L->ptr0, L->i32, L->i32, L->i32, L->ptr0, L->i32, L->ptr0};
    LLVMValueRef args[7] = {rsrc, off, const_i32(L, 0), const_i32(L, type_bytes(ty)), slot,
                            buffer_flags(L, flags), global_string(L, site_of(L))};
    emu_call(L, offsetof(EmuFns, buffer_store), L->void_t, pt, args, 7);
}

static void emu_assert_fail(Lower *L, const char *msg)
{
    LLVMTypeRef pt[2] = {L->ptr0, L->ptr0};
    LLVMValueRef args[2] = {global_string(L, msg), global_string(L, site_of(L))};
    emu_call(L, offsetof(EmuFns, assert_fail), L->void_t, pt, args, 2);
}

static void emu_assert_point(Lower *L, LLVMValueRef ok, const char *msg)
{
    LLVMTypeRef pt[3] = {L->i32, L->ptr0, L->ptr0};
    LLVMValueRef args[3] = {LLVMBuildZExt(L->b, ok, L->i32, ""), global_string(L, msg), global_string(L, site_of(L))};
    emu_call(L, offsetof(EmuFns, assert_at), L->void_t, pt, args, 3);
}

static void emu_print(Lower *L, const char *msg, int rank, LLVMValueRef *coords, int kind, LLVMValueRef bits64)
{
    LLVMValueRef arr = LLVMBuildAlloca(L->b, LLVMArrayType2(L->i32, (unsigned)(rank ? rank : 1)), "");
    for (int i = 0; i < rank; i++) {
        LLVMValueRef p = LLVMBuildGEP2(L->b, L->i32, arr, (LLVMValueRef[]){const_i32(L, i)}, 1, "");
        LLVMBuildStore(L->b, coords[i], p);
    }
    LLVMTypeRef pt[5] = {L->ptr0, L->i32, L->ptr0, L->i32, L->i64};
    LLVMValueRef args[5] = {global_string(L, msg), const_i32(L, rank), arr, const_i32(L, kind), bits64};
    emu_call(L, offsetof(EmuFns, print), L->void_t, pt, args, 5);
}

static void emu_loop_tick(Lower *L)
{
    emu_call(L, offsetof(EmuFns, tick), L->void_t, NULL, NULL, 0);
}

/* emu_sm90 runs sm_90's math with the host's log2, sin and cos in place of the approximate
 * instructions: the range reductions and corrections are checked, the instructions' own error is not
 * modelled. emu keeps LLVM's generic intrinsics. */
static LLVMValueRef emu_math(Lower *L, OpCode code, LLVMValueRef a)
{
    return emulates_sm90(L) ? nvptx_math(L, code, a) : NULL;
}

/* emu_sm90 takes sm_90's exact function, so that the run tests check it on the emulator as well */
static bool emu_exact_frem(Lower *L, LLVMTypeRef t, ScalarKind sk)
{
    return emulates_sm90(L) && nvptx_exact_frem(L, t, sk);
}

/* the emulator's descriptors hold offsets into the workgroup's LDS */
static LLVMValueRef emu_smem_addr(Lower *L, LLVMValueRef byte_offset)
{
    (void)L;
    return byte_offset;
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

static void emu_finish(Lower *L)
{
    lower_fn_attr(L, "probe-stack", "inline-asm");
    if (L->wave != EMU_WAVE) {
        /* the launch's wave size, read by the emu device next to the kernel (absent: 64) */
        char name[512];
        snprintf(name, sizeof name, "%s" EMU_WAVE_SYMBOL_SUFFIX, L->f->name);
        LLVMValueRef g = LLVMAddGlobal(L->mod, L->i32, name);
        LLVMSetInitializer(g, const_i32(L, L->wave));
        LLVMSetGlobalConstant(g, 1);
    }
}

const TargetHooks emu_hooks = {
    .signature = emu_signature,
    .entry = emu_entry,
    .params = emu_params,
    .program_id = emu_program_id,
    .num_programs = emu_num_programs,
    .barrier = emu_barrier,
    .shuffle = emu_shuffle,
    .dpp = emu_dpp,
    .readlane = emu_readlane,
    .mfma = emu_mfma,
    .mma_sync = emu_mma_sync,
    .ldmatrix_x4 = emu_ldmatrix_x4,
    .cp_async = emu_cp_async,
    .cp_async_commit = emu_cp_async_commit,
    .cp_async_wait = emu_cp_async_wait,
    .wave_fence = emu_wave_fence,
    .check = emu_check,
    .buffer_rsrc = emu_buffer_rsrc,
    .buffer_load = emu_buffer_load,
    .buffer_guard = emu_buffer_guard,
    .buffer_store = emu_buffer_store,
    .assert_fail = emu_assert_fail,
    .assert_point = emu_assert_point,
    .print = emu_print,
    .loop_tick = emu_loop_tick,
    .math = emu_math,
    .exact_frem = emu_exact_frem,
    .smem_addr = emu_smem_addr,
    .wgmma = emu_wgmma,
    .keep_above = lower_compiler_barrier,
    .finish = emu_finish,
};
