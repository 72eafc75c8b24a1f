/* Code generation for AMD GPUs: rk's own optimisation pipeline, the code generator's level, and one
 * code object per compile (compiler/codegen links it). */
#include "compiler/target/amdgpu/mix_f16.h"
#include "compiler/target/target.h"

/* rk's middle end for AMDGPU at -O2 and -O3: the passes of LLVM's default<O3> that change the code of
 * rk's kernels, found by removing the others one at a time and keeping a removal only when the ISA
 * report (compiler/target/amdgpu) of every kernel of examples/, bench/kernels/, bench/vs_triton/kernels/ and
 * tests/golden/isa/ stayed identical (docs/performance.md, "Compile time"). The same code as
 * default<O3> in 40 to 60% of its time. The lowering's IR is already free of allocas, calls and
 * dead code; what it leaves to LLVM is redundant lane-coordinate arithmetic (early-cse, instcombine),
 * masked-access branches (simplifycfg), loop-invariant address computations (licm on rotated loops),
 * induction variables (indvars), scalars SLP packs into vectors (<2 x half> and <4 x float> math,
 * 16-bit values carried through loops in pairs), and the kernel attributes amdgpu-attributor infers
 * (which implicit arguments and work-item ids a kernel does not use). */
static const char rk_amdgpu_pipeline[] =
    "function("
    "early-cse,sccp,instcombine<max-iterations=1;no-verify-fixpoint>,simplifycfg,"
    "early-cse<memssa>,instcombine<max-iterations=1;no-verify-fixpoint>,reassociate,"
    "loop-mssa(loop-rotate<header-duplication;no-prepare-for-lto>,licm<allowspeculation>),"
    "instcombine<max-iterations=1;no-verify-fixpoint>,loop(indvars),early-cse<memssa>,"
    "infer-alignment,slp-vectorizer,vector-combine,instcombine<max-iterations=1;no-verify-fixpoint>,div-rem-pairs),"
    "amdgpu-attributor";

/* At -O2 and -O3 the code generator's default level (2): on rk's kernels it gives the same or fewer
 * instructions than the aggressive level (tail duplication and block placement at -O3 copy
 * masked-store blocks), and runs GVN's cheaper EarlyCSE among its IR passes. */
const TargetCodegen amdgpu_codegen = {
    .llvm_passes = rk_amdgpu_pipeline,
    .max_codegen_level = 2,
    .after_passes = amdgpu_split_mixed_f16, /* SLP's packed f32 math that v_fma_mix would do unpacked */
    .link = LINK_CODE_OBJECT,
    .link_output = "out.hsaco",
};
