/* What the files of compiler/driver share. */
#ifndef RK_DRIVER_INTERNAL_H
#define RK_DRIVER_INTERNAL_H

#include <llvm-c/Types.h>

#include "compiler/driver/driver.h"

/* Stack of the threads that run LLVM (driver.c's compile thread, driver_kernels.c's): LLVM's passes
 * recurse on deep IR (a 30,000-line kernel overflowed 8 MiB in assign_layouts and LLVM), and the stack
 * is only address space until touched. */
enum { DRIVER_COMPILE_STACK = 512 << 20 };


/* Threads for compiling nkernels kernels side by side: $RK_CODEGEN_THREADS when set (1 turns it off),
 * else one per kernel up to twice the cores this process may run on, and the cores beyond that; at
 * most nkernels. */
int driver_codegen_threads(int nkernels);

/* driver_kernels.c: the kernels of lir, each lowered into a module of its own, optimised and compiled
 * on `threads` threads, the objects merged and linked into out->binary (AMDGPU). 1: done; 0: failed
 * (diagnostics written); -1: the objects could not be merged, compile them in one module instead. */
int driver_kernels_parallel(Arena *a, Diags *diags, const DriverOptions *o, const char *target, Module *lir,
                            int threads, const LowerChoice *choice, DriverResult *out);

/* Lowers kernel f into mod (compiler/lower/lower.h) and notes in out what the runtime needs of it
 * (LDS, tensor maps, workgroup) and its remarks. */
struct LowerOptions;
bool driver_lower_kernel(Arena *a, Diags *diags, const struct LowerOptions *lopt, Func *f, LLVMModuleRef mod,
                         DriverResult *out);

/* Adds a kernel's lowering remarks (LDS accesses) to out->remarks; one already there (a kernel lowered
 * again after a failed merge) is not added twice. */
struct LowerResult;
void driver_add_remarks(Arena *a, DriverResult *out, const struct LowerResult *lr);

/* driver_spills.c: a REMARK_SPILL for each kernel of out->binary (an AMDGPU code object) that spills,
 * naming what lir's kernel keeps live across its main loop. */
struct Target;
void driver_spill_remarks(Arena *a, DriverResult *out, const Module *lir, const struct Target *t);

/* The pass loop (driver.c): the n entries of `list` on *f, in order, with the dumps each names. */
struct PassState;
struct Pass;
bool driver_run_passes(Arena *a, Diags *diags, const DriverOptions *o, DriverResult *out, struct PassState *s,
                       Func **f, const struct Pass *list, int n);

/* driver_tir.c: tile IR text (o->tir_input) parsed, through o->passes, printed into out->text. */
bool driver_compile_tir(Arena *a, StrTab *strs, SrcFile *f, Diags *diags, const DriverOptions *o, Stage stop,
                        DriverResult *out);

#endif
