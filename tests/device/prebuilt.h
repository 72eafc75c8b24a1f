/* Programs compiled on one machine and run on another: the GPU machine may have no LLVM, so no rk
 * compiler, only the runtime library. A prebuilt program is two files:
 *
 *     NAME.ptx    the code object as rk_program_binary gives it (PTX text for sm_90)
 *     NAME.meta   what the runtime needs to launch its kernels, one fact per line:
 *                     rk-prebuilt 2
 *                     target sm_90
 *                     kernel vecadd                 (then, for each kernel:)
 *                     config T=f32 ALIGN=16         (the -D pairs it was compiled with; may be empty)
 *                     num_warps 4
 *                     block 128
 *                     lds_bytes 0
 *                     param x pointer f32           (each run-time parameter in order)
 *                     param n scalar i32
 *                     grid kernel @g(...) {         (each line of its @grid function's TIR text, if any)
 *                     tma 0 4 128 1 0 0+1*1 1 0+1*1
 *                                               (sm_90 TMA kernels: each line of its tensor map spec,
 *                                                runtime/api/tma.c, as it is; none for other kernels)
 *                     end
 *
 * Version 2 added the tma and grid lines; pb_load reads version 1 files too (they have none).
 *
 * pb_save needs the public API (a compiler build writes them) and, for the tma lines, rk_kernel's
 * tma_spec; pb_load builds the program with the runtime's rt_program_new (runtime/api/api_internal.h,
 * as rk_bundle_load does), so it links the static rk_runtime, not librk.so.
 * Used by tests/device/cuda_smoke.c and bench/h200/rk_bench.c. */
#ifndef RK_TESTS_PREBUILT_H
#define RK_TESTS_PREBUILT_H

#include <stddef.h>

#include "rk.h"

/* Writes `base`.ptx (the code object, whatever the target) and `base`.meta; `config` is recorded for
 * every kernel (NULL: ""). 0 on success, else -1 with why in err. */
int pb_save(rk_program *prog, const char *config, const char *base, char *err, size_t errlen);

/* Reads `base`.ptx and `base`.meta into a program on ctx (destroy it with rk_program_destroy, or with
 * the context). RK_EIO when a file cannot be read, RK_EINVAL when the meta file is malformed (the
 * message in err), else rt_program_new's status with rk_error(ctx) in err. rk_kernel_config gives
 * each kernel's config back. */
rk_status pb_load(rk_ctx *ctx, const char *base, rk_program **prog, char *err, size_t errlen);

#endif
