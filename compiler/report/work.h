/* Work counts: how many floating-point operations and bytes of global memory one program of a kernel
 * does, as formulas in its scalar arguments, its program id and the grid, from the tile IR
 * (compiler/report/work.c).
 *
 * The formulas travel with the kernel (RtKernelDesc.work, the compile cache, bundles) as text, one
 * line per figure, each a formula in reverse Polish notation that the runtime evaluates for a launch
 * (runtime/api/perf.c, rk_kernel_work), summed over the programs of the grid:
 *     dtype bf16               the element type of the dots' operands (the matrix peak that applies)
 *     flops_dot F              FLOPs of dot (2*M*N*K each)
 *     flops_elem F             FLOPs of elementwise float arithmetic, reductions and scans
 *     bytes_load F             bytes read from global memory (loads, atomics)
 *     bytes_store F            bytes written to global memory (stores, atomics)
 *     bytes_aN F               of those, the bytes through pointer parameter N (loads and stores)
 *     estimate WHY             present when a figure is not exact, saying why
 * A formula's tokens: integers; aN (the N-th run-time parameter's value); gx gy gz (the grid);
 * px py pz (the program's id); the
 * operators + - * / (truncating) % min max, cdivp (ceil(a / b) when b > 0 and a > 0, else 0), the
 * comparisons eq ne lt le gt ge (1 or 0) and sel (c a b sel: a when c is not 0, else b). */
#ifndef RK_REPORT_WORK_H
#define RK_REPORT_WORK_H

#include "compiler/tir/tir.h"
#include "support/arena.h"

/* The work description of a kernel function (FUNC_KERNEL, tile IR after sema), as above, with the
 * user's @flops / @bytes formulas (or NULL) as lines `flops_user F` and `bytes_user F` (F for the whole
 * launch, not per program). Never NULL. */
const char *work_describe(Arena *a, Func *f, const char *user_flops, const char *user_bytes);
/* The formula of scalar integer value v of function f (its body's arguments are aN), or NULL when it
 * is not integer arithmetic of those and constants (sema's @flops and @bytes). */
const char *work_formula(Arena *a, Func *f, const Value *v);

#endif
