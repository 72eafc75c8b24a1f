/* The target table, the MFMA map and the intrinsic allow-lists (target.h says why they exist).
 *
 * Sources of the figures:
 *   AMDGPU limits: LLVM 22 AMDGPUBaseInfo.cpp and the subtarget features (compiler/target/amdgpu/
 *     report_occupancy.c cites each: VGPR file 512 unified, granule 8, 8 waves per SIMD; LDS 64 KiB
 *     on gfx90a/gfx942, 160 KiB on gfx950 with a 1280-byte granule). Checked here with llc-22: an
 *     80000-byte LDS array fails on gfx942 ("local memory (80000) exceeds limit (65536)") and
 *     compiles on gfx950.
 *   MFMA availability: every llvm.amdgcn.mfma.* intrinsic of IntrinsicsAMDGPU.td compiled with
 *     llc-22 for gfx90a, gfx942 and gfx950 (tests/data/codegen/intrinsics.ll records the result).
 *     gfx90a: the CDNA2 set (f32, f16, bf16_1k, f64, i8 as 16x16x16/32x32x8; no xf32, no fp8, no
 *     i8 16x16x32). gfx942: CDNA3 (the old i8 and non-1k bf16 forms are gone; xf32, fp8/bf8 and i8
 *     16x16x32/32x32x16 added). gfx950: CDNA3 minus xf32, plus f16/bf16 16x16x32 and 32x32x16 and
 *     i8 16x16x64/32x32x32.
 *   sm_90 (H100, CUDA programming guide, compute capability 9.0): 228 KiB shared memory per SM, at
 *     most 227 KiB per block with cudaFuncAttributeMaxDynamicSharedMemorySize, 48 KiB without;
 *     64K 32-bit registers per SM (4 SMSPs: 512 per lane each), allocated per warp in units of 256
 *     (8 per lane), at most 255 per thread; 64 resident warps per SM (16 per SMSP). */
#include <stdio.h>
#include <string.h>

#include "target.h"
#include "target_hooks.h"

enum { T_GFX942 = 1 << 0, T_GFX90A = 1 << 1, T_GFX950 = 1 << 2, T_EMU = 1 << 3, T_SM90 = 1 << 4 };
enum { T_GFX9 = T_GFX90A | T_GFX942 | T_GFX950, T_CDNA3 = T_GFX942 | T_GFX950 };

#define AMDGPU_TRIPLE "amdgcn-amd-amdhsa"
/* The gfx9 CDNA facts shared by gfx90a, gfx942 and emu (gfx950 differs only in LDS: size and banks). */
#define CDNA_CORE(lds, granule, banks)                                                                      \
    .wave_size = 64, .max_workgroup_size = 1024, .simds_per_cu = 4, .max_waves_per_simd = 8,            \
    .vgpr_file = 512, .vgpr_granule = 8, .max_vgprs_per_lane = 512, .lds_bytes = (lds),                 \
    .lds_bytes_default = (lds), .lds_per_cu = (lds), .lds_granule = (granule),                        \
    .lds_banks = (banks)

/* HIP's runtime (ROCclr) copies a launch's arguments into one chunk of its kernarg pool: 1 MiB
 * (HSA_KERNARG_POOL_SIZE's default) in 4 chunks, and an argument block larger than a chunk runs past
 * it unchecked (rocclr/device/rocm/rocvirtual.cpp, VirtualGPU::allocKernArg; KernelArgPoolNumSignal
 * = 4). rk's kernels have no hidden arguments (.kernarg_segment_size is the parameters' bytes). */
#define HIP_KERNARG .max_kernarg_bytes = 1024 * 1024 / 4, .kernarg_by = "HIP"
/* CUDA passes a kernel's parameters in constant memory, at most 32,764 bytes since CUDA 12.1 on
 * Volta and later (4,096 before; NVIDIA, "CUDA 12.1 Supports Large Kernel Parameters"). */
#define CUDA_KERNARG .max_kernarg_bytes = 32764, .kernarg_by = "CUDA"

/* The lowering's facts of an AMD GPU */
#define AMDGPU_LOWERING(xcds)                                                                           \
    .scope_cta = "workgroup", .scope_gpu = "agent", .num_xcds = (xcds), .hooks = &amdgpu_hooks,           \
    .codegen = &amdgpu_codegen, .fp_contract = true, .packed_f32 = true, .buffer_range32 = true, HIP_KERNARG
/* ... of the emulator, on top of which it emulates */
#define EMU_LOWERING .soft_fp16 = true, .checked = true, .hooks = &emu_hooks, .codegen = &emu_codegen

/* Order: the default first; the others as rkc lists them. The bit of targets[i] is 1 << i. */
static const Target targets[] = {
    {.name = "gfx942", .kind = TARGET_AMDGPU, .triple = AMDGPU_TRIPLE, .cpu = "gfx942", .features = "",
     .arch = "gfx942", .description = "AMD Instinct MI300X/MI300A/MI325X (CDNA3)", .lowering = true,
     CDNA_CORE(65536, 512, 32), .mfma_family = MFMA_CDNA3, .as_global = 1, .as_lds = 3, .as_constant = 4,
     .as_private = 5, .kernel_cc = LLVMAMDGPUKERNELCallConv, .code_object_version = 500,
     .binary_ext = "hsaco", AMDGPU_LOWERING(8), .max_by_parts = true},
    {.name = "gfx90a", .kind = TARGET_AMDGPU, .triple = AMDGPU_TRIPLE, .cpu = "gfx90a", .features = "",
     .arch = "gfx90a", .description = "AMD Instinct MI200 series (CDNA2)", .lowering = true,
     CDNA_CORE(65536, 512, 32), .mfma_family = MFMA_CDNA2, .as_global = 1, .as_lds = 3, .as_constant = 4,
     .as_private = 5, .kernel_cc = LLVMAMDGPUKERNELCallConv, .code_object_version = 500,
     .binary_ext = "hsaco", AMDGPU_LOWERING(1), .max_by_parts = true},
    {.name = "gfx950", .kind = TARGET_AMDGPU, .triple = AMDGPU_TRIPLE, .cpu = "gfx950", .features = "",
     .arch = "gfx950", .description = "AMD Instinct MI350 series (CDNA4)", .lowering = true,
     CDNA_CORE(163840, 1280, 64), .mfma_family = MFMA_CDNA4, .as_global = 1, .as_lds = 3, .as_constant = 4,
     .as_private = 5, .kernel_cc = LLVMAMDGPUKERNELCallConv, .code_object_version = 500,
     .binary_ext = "hsaco", AMDGPU_LOWERING(8)},
    /* x86-64 with SSSE3 and POPCNT: any x86-64 host of the last fifteen years, and a fixed choice, so
     * a cached .so never depends on the machine that compiled it. Not SSE4.1: LLVM 22's x86
     * instruction selector never finishes on some of rk's emulator code with it (a generated
     * program, tests/regress/diff/emu_sse41_isel_hang.tile: llc-22 -mcpu=x86-64-v2 loops in
     * "X86 DAG->DAG Instruction Selection"; without SSE4.1 it takes 2 s). Position-independent. */
    {.name = "emu", .kind = TARGET_EMU, .triple = "x86_64-pc-linux-gnu", .cpu = "x86-64", .features = "+ssse3,+popcnt",
     .arch = "gfx942", .description = "host emulator of a gfx942 workgroup", .lowering = true,
     CDNA_CORE(65536, 512, 32), .mfma_family = MFMA_CDNA3, .as_global = 0, .as_lds = 0, .as_constant = 0,
     .as_private = 0, .kernel_cc = LLVMCCallConv, .code_object_version = 0, .binary_ext = "so", EMU_LOWERING, .num_xcds = 8, HIP_KERNARG,
     .fp_contract = true, .packed_f32 = true, .max_by_parts = true, .buffer_range32 = true},
    /* sm_90a: the arch-specific variant (wgmma, setmaxnreg); PTX ISA 8.0 is the first that has it. */
    {.name = "sm_90", .kind = TARGET_NVPTX, .triple = "nvptx64-nvidia-cuda", .cpu = "sm_90a",
     .features = "+ptx80", .arch = "sm_90", .description = "NVIDIA H100/H200 (Hopper)",
     .lowering = true, .wave_size = 32, .max_workgroup_size = 1024, .simds_per_cu = 4,
     .max_waves_per_simd = 16, .vgpr_file = 512, .vgpr_granule = 8, .max_vgprs_per_lane = 255,
     .lds_bytes = 227 * 1024, .lds_bytes_default = 48 * 1024, .lds_per_cu = 228 * 1024, .lds_granule = 128,
     .lds_banks = 32, .mfma_family = 0, .as_global = 1, .as_lds = 3, .as_constant = 4, .as_private = 5,
     .kernel_cc = LLVMPTXKernelCallConv, .code_object_version = 0, .binary_ext = "ptx", .scope_cta = "block", .scope_gpu = "device", .fenced_atomics = true,
     .warp_mma = true, .wgmma = true, .tma = true, .licm_stays_in_loop = true, CUDA_KERNARG,
     .num_xcds = 1, .hooks = &nvptx_hooks, .codegen = &nvptx_codegen},
    /* The sm_90 lowering (32-lane warps, mma.sync, ldmatrix, cp.async) compiled for the host and run
     * by the emulator (runtime/emu), like emu for gfx942: sm_90's layouts and limits, emu's code
     * generation. No target intrinsics: what needs the other lanes goes through EmuFns. */
    {.name = "emu_sm90", .kind = TARGET_EMU, .triple = "x86_64-pc-linux-gnu", .cpu = "x86-64", .features = "+ssse3,+popcnt",
     .arch = "sm_90", .description = "host emulator of an sm_90 thread block", .lowering = true,
     .wave_size = 32, .max_workgroup_size = 1024, .simds_per_cu = 4, .max_waves_per_simd = 16, .vgpr_file = 512,
     .vgpr_granule = 8, .max_vgprs_per_lane = 255, .lds_bytes = 227 * 1024, .lds_bytes_default = 227 * 1024,
     .lds_per_cu = 228 * 1024, .lds_granule = 128, .lds_banks = 32, .mfma_family = 0, .as_global = 0, .as_lds = 0, .as_constant = 0,
     .as_private = 0, .kernel_cc = LLVMCCallConv, .code_object_version = 0, .binary_ext = "so", EMU_LOWERING, .warp_mma = true, .wgmma = true,
     CUDA_KERNARG, .num_xcds = 1},
};
enum { NTARGETS = sizeof targets / sizeof targets[0] };

const Target *target_find(const char *name)
{
    for (int i = 0; name && i < NTARGETS; i++)
        if (strcmp(targets[i].name, name) == 0)
            return &targets[i];
    return NULL;
}

const Target *target_default(void) { return &targets[0]; }
int target_count(void) { return NTARGETS; }
const Target *target_at(int i) { return i >= 0 && i < NTARGETS ? &targets[i] : NULL; }
const char *target_names(void) { return "gfx942, gfx90a, gfx950, emu, sm_90, emu_sm90"; }

const Target *target_code_object_judge(const Target *t)
{
    if (t && t->kind == TARGET_EMU)
        t = target_find(t->arch);
    return t && t->codegen->link == LINK_CODE_OBJECT ? t : NULL;
}

bool target_is_interp(const char *name) { return name && strcmp(name, "interp") == 0; }
bool target_known(const char *name) { return target_find(name) || target_is_interp(name); }

const char *target_output_ext(const char *name)
{
    const Target *t = target_find(name);
    return t ? t->binary_ext : target_is_interp(name) ? "tir" : NULL;
}

static unsigned target_bit(const Target *t)
{
    return t >= targets && t < targets + NTARGETS ? 1u << (t - targets) : 0;
}

/* ---- MFMA ------------------------------------------------------------------------------------- */

static const char *const mfma_intrinsics[MFMA_COUNT] = {
    [MFMA_F32_16X16X16_F16] = "llvm.amdgcn.mfma.f32.16x16x16f16",
    [MFMA_F32_32X32X8_F16] = "llvm.amdgcn.mfma.f32.32x32x8f16",
    [MFMA_F32_16X16X16_BF16] = "llvm.amdgcn.mfma.f32.16x16x16bf16.1k",
    [MFMA_F32_32X32X8_BF16] = "llvm.amdgcn.mfma.f32.32x32x8bf16.1k",
    [MFMA_F32_16X16X4_F32] = "llvm.amdgcn.mfma.f32.16x16x4f32",
    [MFMA_F32_32X32X2_F32] = "llvm.amdgcn.mfma.f32.32x32x2f32",
    [MFMA_F32_16X16X8_XF32] = "llvm.amdgcn.mfma.f32.16x16x8.xf32",
    [MFMA_F32_32X32X4_XF32] = "llvm.amdgcn.mfma.f32.32x32x4.xf32",
    [MFMA_I32_16X16X32_I8] = "llvm.amdgcn.mfma.i32.16x16x32.i8",
    [MFMA_I32_32X32X16_I8] = "llvm.amdgcn.mfma.i32.32x32x16.i8",
    [MFMA_F64_16X16X4_F64] = "llvm.amdgcn.mfma.f64.16x16x4f64",
    [MFMA_F32_16X16X32_FP8_FP8] = "llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8",
    [MFMA_F32_32X32X16_FP8_FP8] = "llvm.amdgcn.mfma.f32.32x32x16.fp8.fp8",
    [MFMA_I32_16X16X16_I8] = "llvm.amdgcn.mfma.i32.16x16x16i8",
    [MFMA_I32_32X32X8_I8] = "llvm.amdgcn.mfma.i32.32x32x8i8",
    [MFMA_F32_16X16X32_F16] = "llvm.amdgcn.mfma.f32.16x16x32.f16",
    [MFMA_F32_32X32X16_F16] = "llvm.amdgcn.mfma.f32.32x32x16.f16",
    [MFMA_F32_16X16X32_BF16] = "llvm.amdgcn.mfma.f32.16x16x32.bf16",
    [MFMA_F32_32X32X16_BF16] = "llvm.amdgcn.mfma.f32.32x32x16.bf16",
};

bool target_has_mfma(const Target *t, MfmaOp op)
{
    const MfmaInfo *info = isa_mfma_info(op);
    return t && info && (info->families & t->mfma_family);
}

const char *target_mfma_intrinsic(MfmaOp op)
{
    return (unsigned)op < MFMA_COUNT ? mfma_intrinsics[op] : NULL;
}

/* ---- intrinsic allow-lists -------------------------------------------------------------------- */

/* Base names (LLVMIntrinsicGetName) and the targets on which each compiles. Everything here was
 * compiled by llc-22 on each listed CPU (tests/data/codegen/intrinsics*.ll). Not here, on purpose:
 * llvm.amdgcn.cvt.scalef32.* other than the one fp8 packing form (gfx950 only, although LLVM also
 * selects it for gfx90a/gfx942), permlanex16 and the WMMA/sudot4 family (RDNA), s.barrier.signal
 * (gfx12; crashes llc on gfx9), and the smfmac/scale MFMA forms (not used by rk). */
static const struct {
    const char *name;
    unsigned targets;
} allowed[] = {
    /* ids, dispatch */
    {"llvm.amdgcn.workitem.id.x", T_GFX9},
    {"llvm.amdgcn.workitem.id.y", T_GFX9},
    {"llvm.amdgcn.workitem.id.z", T_GFX9},
    {"llvm.amdgcn.workgroup.id.x", T_GFX9},
    {"llvm.amdgcn.workgroup.id.y", T_GFX9},
    {"llvm.amdgcn.workgroup.id.z", T_GFX9},
    {"llvm.amdgcn.kernarg.segment.ptr", T_GFX9},
    {"llvm.amdgcn.implicitarg.ptr", T_GFX9},
    {"llvm.amdgcn.dispatch.ptr", T_GFX9},
    /* synchronisation and scheduling */
    {"llvm.amdgcn.s.barrier", T_GFX9},
    {"llvm.amdgcn.wave.barrier", T_GFX9},
    {"llvm.amdgcn.s.waitcnt", T_GFX9},
    {"llvm.amdgcn.sched.barrier", T_GFX9},
    {"llvm.amdgcn.sched.group.barrier", T_GFX9},
    {"llvm.amdgcn.iglp.opt", T_GFX9},
    {"llvm.amdgcn.s.setprio", T_GFX9},
    {"llvm.amdgcn.s.sleep", T_GFX9},
    {"llvm.amdgcn.s.memtime", T_GFX9},
    {"llvm.amdgcn.s.memrealtime", T_GFX9},
    {"llvm.amdgcn.s.getpc", T_GFX9},
    /* cross-lane */
    {"llvm.amdgcn.ds.bpermute", T_GFX9},
    {"llvm.amdgcn.ds.permute", T_GFX9},
    {"llvm.amdgcn.ds.swizzle", T_GFX9},
    {"llvm.amdgcn.update.dpp", T_GFX9},
    {"llvm.amdgcn.mov.dpp", T_GFX9},
    {"llvm.amdgcn.readlane", T_GFX9},
    {"llvm.amdgcn.readfirstlane", T_GFX9},
    {"llvm.amdgcn.writelane", T_GFX9},
    {"llvm.amdgcn.ballot", T_GFX9},
    {"llvm.amdgcn.mbcnt.lo", T_GFX9},
    {"llvm.amdgcn.mbcnt.hi", T_GFX9},
    {"llvm.amdgcn.permlane32.swap", T_GFX950},
    {"llvm.amdgcn.permlane16.swap", T_GFX950},
    /* arithmetic */
    {"llvm.amdgcn.exp2", T_GFX9},
    {"llvm.amdgcn.log", T_GFX9},
    {"llvm.amdgcn.rcp", T_GFX9},
    {"llvm.amdgcn.rsq", T_GFX9},
    {"llvm.amdgcn.sqrt", T_GFX9},
    {"llvm.amdgcn.fmed3", T_GFX9},
    {"llvm.amdgcn.cvt.pkrtz", T_GFX9},
    {"llvm.amdgcn.fdot2", T_GFX9},
    {"llvm.amdgcn.sdot4", T_GFX9},
    {"llvm.amdgcn.cvt.f32.fp8", T_CDNA3},
    {"llvm.amdgcn.cvt.f32.bf8", T_CDNA3},
    {"llvm.amdgcn.cvt.pk.f32.fp8", T_CDNA3},
    {"llvm.amdgcn.cvt.pk.fp8.f32", T_CDNA3},
    {"llvm.amdgcn.cvt.pk.bf8.f32", T_CDNA3},
    {"llvm.amdgcn.cvt.sr.fp8.f32", T_CDNA3},
    {"llvm.amdgcn.cvt.scalef32.pk.fp8.f32", T_GFX950},
    /* memory */
    {"llvm.amdgcn.make.buffer.rsrc", T_GFX9},
    {"llvm.amdgcn.raw.ptr.buffer.load", T_GFX9},
    {"llvm.amdgcn.raw.ptr.buffer.store", T_GFX9},
    {"llvm.amdgcn.global.load.lds", T_GFX9}, /* sizes checked per call: global_load_lds_size_ok */
    {"llvm.amdgcn.ds.read.tr4.b64", T_GFX950},
    {"llvm.amdgcn.ds.read.tr8.b64", T_GFX950},
    {"llvm.amdgcn.ds.read.tr6.b96", T_GFX950},
    {"llvm.amdgcn.ds.read.tr16.b64", T_GFX950},
    /* matrix: those in MfmaOp come from mfma_intrinsics and the ops' families (isa/mfma.def); these are
     * the other forms that compile (the CDNA1 ones, 4x4 blocks, the other fp8/bf8 pairs). */
    {"llvm.amdgcn.mfma.f32.32x32x1f32", T_GFX9},
    {"llvm.amdgcn.mfma.f32.16x16x1f32", T_GFX9},
    {"llvm.amdgcn.mfma.f32.4x4x1f32", T_GFX9},
    {"llvm.amdgcn.mfma.f32.32x32x4f16", T_GFX9},
    {"llvm.amdgcn.mfma.f32.16x16x4f16", T_GFX9},
    {"llvm.amdgcn.mfma.f32.4x4x4f16", T_GFX9},
    {"llvm.amdgcn.mfma.i32.32x32x4i8", T_GFX9},
    {"llvm.amdgcn.mfma.i32.16x16x4i8", T_GFX9},
    {"llvm.amdgcn.mfma.i32.4x4x4i8", T_GFX9},
    {"llvm.amdgcn.mfma.f32.32x32x2bf16", T_GFX90A},
    {"llvm.amdgcn.mfma.f32.16x16x2bf16", T_GFX90A},
    {"llvm.amdgcn.mfma.f32.4x4x2bf16", T_GFX90A},
    {"llvm.amdgcn.mfma.f32.32x32x4bf16", T_GFX90A},
    {"llvm.amdgcn.mfma.f32.16x16x8bf16", T_GFX90A},
    {"llvm.amdgcn.mfma.f32.32x32x4bf16.1k", T_GFX9},
    {"llvm.amdgcn.mfma.f32.16x16x4bf16.1k", T_GFX9},
    {"llvm.amdgcn.mfma.f32.4x4x4bf16.1k", T_GFX9},
    {"llvm.amdgcn.mfma.f64.4x4x4f64", T_GFX9},
    {"llvm.amdgcn.mfma.i32.16x16x64.i8", T_GFX950},
    {"llvm.amdgcn.mfma.i32.32x32x32.i8", T_GFX950},
    {"llvm.amdgcn.mfma.f32.16x16x32.bf8.bf8", T_CDNA3},
    {"llvm.amdgcn.mfma.f32.16x16x32.bf8.fp8", T_CDNA3},
    {"llvm.amdgcn.mfma.f32.16x16x32.fp8.bf8", T_CDNA3},
    {"llvm.amdgcn.mfma.f32.32x32x16.bf8.bf8", T_CDNA3},
    {"llvm.amdgcn.mfma.f32.32x32x16.bf8.fp8", T_CDNA3},
    {"llvm.amdgcn.mfma.f32.32x32x16.fp8.bf8", T_CDNA3},
    /* NVPTX (sm_90), for the lowering to come: compiled with llc-22 -mcpu=sm_90a */
    {"llvm.nvvm.read.ptx.sreg.tid.x", T_SM90},
    {"llvm.nvvm.read.ptx.sreg.tid.y", T_SM90},
    {"llvm.nvvm.read.ptx.sreg.tid.z", T_SM90},
    {"llvm.nvvm.read.ptx.sreg.ctaid.x", T_SM90},
    {"llvm.nvvm.read.ptx.sreg.ctaid.y", T_SM90},
    {"llvm.nvvm.read.ptx.sreg.ctaid.z", T_SM90},
    {"llvm.nvvm.read.ptx.sreg.ntid.x", T_SM90},
    {"llvm.nvvm.read.ptx.sreg.nctaid.x", T_SM90},
    {"llvm.nvvm.read.ptx.sreg.nctaid.y", T_SM90},
    {"llvm.nvvm.read.ptx.sreg.nctaid.z", T_SM90},
    {"llvm.nvvm.lg2.approx.f", T_SM90},
    {"llvm.nvvm.sin.approx.f", T_SM90},
    {"llvm.nvvm.cos.approx.f", T_SM90},
    {"llvm.nvvm.mma.m16n8k16.row.col.f32.f32", T_SM90},
    {"llvm.nvvm.mma.m16n8k16.row.col.bf16", T_SM90},
    {"llvm.nvvm.mma.m16n8k8.row.col.tf32", T_SM90},
    {"llvm.nvvm.mma.m16n8k32.row.col.s8", T_SM90},
    {"llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16", T_SM90},
    {"llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.trans.b16", T_SM90},
    {"llvm.nvvm.ldmatrix.sync.aligned.m8n8.x2.b16", T_SM90},
    {"llvm.nvvm.ldmatrix.sync.aligned.m8n8.x2.trans.b16", T_SM90},
    {"llvm.nvvm.cp.async.cg.shared.global.16", T_SM90},
    {"llvm.nvvm.cp.async.ca.shared.global.16", T_SM90},
    {"llvm.nvvm.cp.async.ca.shared.global.8", T_SM90},
    {"llvm.nvvm.cp.async.ca.shared.global.4", T_SM90},
    {"llvm.nvvm.cp.async.cg.shared.global.16.s", T_SM90},
    {"llvm.nvvm.cp.async.ca.shared.global.16.s", T_SM90},
    {"llvm.nvvm.cp.async.ca.shared.global.8.s", T_SM90},
    {"llvm.nvvm.cp.async.ca.shared.global.4.s", T_SM90},
    {"llvm.nvvm.cp.async.commit.group", T_SM90},
    {"llvm.nvvm.cp.async.wait.group", T_SM90},
    {"llvm.nvvm.cp.async.wait.all", T_SM90},
    {"llvm.nvvm.read.ptx.sreg.laneid", T_SM90},
    {"llvm.nvvm.barrier.cta.sync.aligned.all", T_SM90},
    {"llvm.nvvm.bar.warp.sync", T_SM90},
    {"llvm.nvvm.shfl.sync.idx.i32", T_SM90},
    {"llvm.nvvm.shfl.sync.bfly.i32", T_SM90},
    {"llvm.nvvm.shfl.sync.up.i32", T_SM90},
    {"llvm.nvvm.shfl.sync.down.i32", T_SM90},
    {"llvm.nvvm.shfl.sync.idx.f32", T_SM90},
    {"llvm.nvvm.shfl.sync.bfly.f32", T_SM90},
    {"llvm.nvvm.vote.ballot.sync", T_SM90},
    {"llvm.nvvm.wgmma.fence.sync.aligned", T_SM90},
};

/* The back ends' intrinsic prefixes (IntrinsicsAArch64.td ... IntrinsicsXCore.td): an intrinsic
 * with one of these is a target intrinsic; any other llvm.* intrinsic is target-independent. */
static const char *const target_prefixes[] = {
    "llvm.aarch64.", "llvm.amdgcn.", "llvm.arm.",   "llvm.bpf.",   "llvm.dx.",    "llvm.hexagon.",
    "llvm.loongarch.", "llvm.mips.", "llvm.nvvm.",  "llvm.ppc.",   "llvm.r600.",  "llvm.riscv.",
    "llvm.spv.",     "llvm.s390.",   "llvm.ve.",    "llvm.wasm.",  "llvm.x86.",   "llvm.xcore.",
};

static bool is_target_intrinsic(const char *name)
{
    for (size_t i = 0; i < sizeof target_prefixes / sizeof target_prefixes[0]; i++)
        if (strncmp(name, target_prefixes[i], strlen(target_prefixes[i])) == 0)
            return true;
    return false;
}

bool target_supports_intrinsic(const Target *t, const char *llvm_name)
{
    unsigned bit = target_bit(t);
    if (!bit || !llvm_name || strncmp(llvm_name, "llvm.", 5) != 0)
        return false;
    if (!is_target_intrinsic(llvm_name))
        return true;
    if (t->kind == TARGET_AMDGPU)
        for (int op = 0; op < MFMA_COUNT; op++)
            if (strcmp(mfma_intrinsics[op], llvm_name) == 0)
                return target_has_mfma(t, (MfmaOp)op);
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
        if (strcmp(allowed[i].name, llvm_name) == 0)
            return (allowed[i].targets & bit) != 0;
    return false;
}

/* ---- checking a module ------------------------------------------------------------------------ */

typedef struct Problems {
    Arena *a;
    char *text;
    int n;
} Problems;

enum { MAX_PROBLEMS = 20 };

static void problem(Problems *p, const char *line)
{
    if (p->n++ >= MAX_PROBLEMS)
        return;
    p->text = p->text ? arena_printf(p->a, "%s\n%s", p->text, line) : arena_strdup(p->a, line);
}

/* llvm.amdgcn.global.load.lds: "Data byte size: 1/2/4 (/12/16 for gfx950)" (IntrinsicsAMDGPU.td);
 * llc-22 aborts with "Cannot select" on 12 and 16 for gfx90a and gfx942. */
static void check_global_load_lds(const Target *t, LLVMValueRef fn, Problems *p)
{
    for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef call = LLVMGetUser(u);
        if (!LLVMIsACallInst(call) || LLVMGetNumOperands(call) < 3)
            continue;
        LLVMValueRef size = LLVMGetOperand(call, 2);
        long long v = LLVMIsAConstantInt(size) ? LLVMConstIntGetSExtValue(size) : -1;
        bool ok = v == 1 || v == 2 || v == 4 || ((v == 12 || v == 16) && strcmp(t->cpu, "gfx950") == 0);
        if (!ok)
            problem(p, arena_printf(p->a, "llvm.amdgcn.global.load.lds of %lld bytes is not supported on %s "
                                          "(1, 2 or 4 bytes%s)",
                                    v, t->name, strcmp(t->cpu, "gfx950") == 0 ? ", 12 or 16" : ""));
    }
}

bool target_check_module(const Target *t, LLVMModuleRef m, Arena *a, const char **msg)
{
    Problems p = {a, NULL, 0};
    if (!target_bit(t)) {
        *msg = "not a target from rk's table";
        return false;
    }
    bool gpu = t->kind != TARGET_EMU;
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
        if (!LLVMIsDeclaration(f))
            continue;
        size_t len;
        const char *name = LLVMGetValueName2(f, &len);
        unsigned id = LLVMGetIntrinsicID(f);
        if (id) {
            size_t blen;
            const char *base = LLVMIntrinsicGetName(id, &blen);
            char buf[256];
            snprintf(buf, sizeof buf, "%.*s", (int)blen, base);
            if (!target_supports_intrinsic(t, buf))
                problem(&p, arena_printf(a, "intrinsic %s is not supported on %s", buf, t->name));
            else if (strcmp(buf, "llvm.amdgcn.global.load.lds") == 0)
                check_global_load_lds(t, f, &p);
        } else if (len >= 5 && strncmp(name, "llvm.", 5) == 0) {
            problem(&p, arena_printf(a, "%.*s is not an intrinsic that LLVM 22 knows", (int)len, name));
        } else if (gpu && LLVMGetFirstUse(f)) {
            problem(&p, arena_printf(a, "function '%.*s' is used but not defined: %s code cannot call an "
                                        "external function", (int)len, name, t->name));
        }
    }
    for (LLVMValueRef g = LLVMGetFirstGlobal(m); gpu && g; g = LLVMGetNextGlobal(g)) {
        /* NVPTX's dynamic shared memory is an external zero-length addrspace(3) array: the launch
         * provides it */
        bool dyn_shared = t->kind == TARGET_NVPTX && LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == t->as_lds &&
                          LLVMGetTypeKind(LLVMGlobalGetValueType(g)) == LLVMArrayTypeKind &&
                          LLVMGetArrayLength2(LLVMGlobalGetValueType(g)) == 0;
        if (LLVMIsDeclaration(g) && LLVMGetFirstUse(g) && !dyn_shared) {
            size_t len;
            const char *name = LLVMGetValueName2(g, &len);
            problem(&p, arena_printf(a, "global '%.*s' is used but not defined: nothing can provide it to %s code",
                                     (int)len, name, t->name));
        }
    }
    if (p.n > MAX_PROBLEMS)
        p.text = arena_printf(a, "%s\n(%d more)", p.text, p.n - MAX_PROBLEMS);
    *msg = p.text;
    return p.n == 0;
}
