/* Code generation, the back half: an LLVM module in, assembly, an object and a loadable binary out.
 *
 *   verify (LLVMVerifyModule, then target_check_module's allow-lists)
 *     → optimise (LLVMRunPasses "default<On>")
 *     → codegen (LLVMTargetMachineEmitToMemoryBuffer: assembly and/or a relocatable object)
 *     → link (ld.lld -shared: .hsaco for AMDGPU, .so for emu; for sm_90 the binary is the PTX text)
 *
 * LLVM never sees a module that failed the verifier or the allow-lists, nor a CPU that is not in
 * the target table, since those are the inputs on which LLVM 22 aborts the process (target.h).
 * LLVM's own error diagnostics (LDS over the limit, a libcall the GPU cannot make) are caught by
 * a handler installed on the module's context for the duration of the call, returned as
 * CG_ERR_LLVM, and never printed; without the handler LLVM would print them and exit(1).
 *
 * Threads: any number of threads may call codegen_module at once, each with a module in its own
 * LLVMContext. LLVM is initialised once (pthread_once). TargetMachines are cached per (target,
 * opt level) and lent to one call at a time: a TargetMachine is not safe to share (its subtarget
 * map is unlocked), so a thread that finds every cached one busy makes another.
 *
 * Tools: ld.lld is found as $RK_LLD, else ld.lld-22 on PATH, else /usr/lib/llvm-22/bin/ld.lld,
 * and run with posix_spawn on files in a private directory under $TMPDIR (or /tmp), removed
 * afterwards; its stderr is captured for the error message. ptxas likewise: $RK_PTXAS, ptxas on
 * PATH, /usr/local/cuda/bin/ptxas. A missing or failing tool is an error (CG_ERR_TOOL), never a
 * crash. Nothing here prints or exits. */
#ifndef RK_CODEGEN_H
#define RK_CODEGEN_H

#include <llvm-c/Core.h>
#include <stdbool.h>
#include <stddef.h>

#include "compiler/target/target.h"
#include "support/arena.h"

typedef enum CgStatus {
    CG_OK = 0,
    CG_ERR_USAGE,   /* a bad argument: opt level, nothing wanted, an output the target has not
                       (sm_90 makes no object file) */
    CG_ERR_INVALID, /* the module failed LLVMVerifyModule or the target's allow-lists, or its triple
                       is another target's: a bug in rk's lowering, to report as an internal error */
    CG_ERR_LLVM,    /* LLVM reported an error while optimising or generating code */
    CG_ERR_TOOL,    /* ld.lld or ptxas is missing or failed, or its temporary files could not be made */
} CgStatus;

/* What codegen_module is asked to produce. */
enum {
    CG_WANT_ASM = 1,    /* assembly text: AMDGPU .s, x86-64 .s for emu, PTX for sm_90 */
    CG_WANT_OBJ = 2,    /* the relocatable object (ELF); not for sm_90 */
    CG_WANT_BINARY = 4, /* the loadable binary: .hsaco, .so (emu), PTX text (sm_90) */
    /* The two halves of a compile, for a caller that runs them on different threads: CG_OPT_ONLY
     * verifies and optimises the module and stops (no output asked for or made); a later call with
     * CG_OPTIMISED and the outputs wanted generates code from it without optimising it again. */
    CG_OPT_ONLY = 8,
    CG_OPTIMISED = 16,
};

typedef struct CodegenResult {
    char *asm_text;     /* CG_WANT_ASM: NUL-terminated; asm_size excludes the NUL */
    size_t asm_size;
    void *obj;          /* CG_WANT_OBJ (or BINARY, which needs it): the relocatable object */
    size_t obj_size;
    void *binary;       /* CG_WANT_BINARY */
    size_t binary_size;
    const char *warnings; /* LLVM's warnings, one a line, or NULL */
    /* milliseconds per stage: verify + allow-lists, getting a TargetMachine (0 when cached),
     * the optimisation pipeline, code generation (both outputs when both are asked for), and
     * the link (ld.lld's process start and run; 0 for sm_90) */
    double t_verify_ms, t_tm_ms, t_opt_ms, t_codegen_ms, t_link_ms;
    /* the same three in CPU time: the calling thread's (steadier than wall-clock time on a loaded
     * machine), plus for the link ld.lld's user and system time when it ran */
    double c_opt_ms, c_codegen_ms, c_link_ms;
    bool tm_cached;     /* a cached TargetMachine was used */
} CodegenResult;

/* Registers the AMDGPU, NVPTX and X86 back ends (target info, MC, code generator, asm printer,
 * asm parser for inline assembly, and the AMDGPU disassembler used by the ISA report, compiler/target/amdgpu). Thread-safe
 * and idempotent; every entry point here calls it, and so does the ISA report. */
void codegen_init_llvm(void);

/* Compiles module `m` (in any LLVMContext, used by one thread at a time) for `t` at -O`opt_level`
 * (0..3). The module is changed in place: its triple and data layout are set (a module with an empty
 * triple gets the target's; another target's triple is CG_ERR_INVALID), AMDGPU modules get the
 * amdhsa_code_object_version flag (t->code_object_version) unless they have one, and the
 * optimisation pipeline runs on it. The caller still owns and disposes it. Outputs are allocated in
 * `a`; *out is zeroed first. On failure returns the status with a message in *err (in `a`). */
CgStatus codegen_module(const Target *t, LLVMModuleRef m, int opt_level, unsigned want, Arena *a,
                        CodegenResult *out, const char **err);

/* LLVMVerifyModule, returning its message instead of printing it. */
bool codegen_verify_module(LLVMModuleRef m, Arena *a, const char **err);

/* target_check_module with the message codegen_module gives (in `a`) when the module uses what t
 * cannot compile: every LLVM module rk hands on, compiled or printed, passes it. */
bool codegen_check_allowed(const Target *t, LLVMModuleRef m, Arena *a, const char **err);

/* Links relocatable objects (from codegen_module, for the same target) into one loadable binary: a
 * code object for AMDGPU, in process (cg_elf_link) unless the object holds what that does not handle or
 * RK_LINK=lld asks for ld.lld, else with ld.lld -shared --no-undefined (a GPU has nothing to resolve
 * symbols against); a shared object for emu with ld.lld -shared (undefined symbols such as memcpy
 * resolve when dlopen'ed).
 * AMDGPU: several objects are first merged into one (cg_elf_merge: each carries a metadata note and
 * the loader reads only the first, so their kernel lists are joined); CG_ERR_USAGE when they cannot
 * be. emu: up to 256 objects, whose symbol names must differ. */
CgStatus codegen_link(const Target *t, const void *const *objs, const size_t *sizes, int n, Arena *a, void **bin,
                      size_t *bin_size, const char **err);

/* The in-process linker (elf_link.c): one AMDGPU relocatable object from codegen_module into the code
 * object ld.lld -shared would make of it (the same bytes but for .comment). Returns false with the
 * reason in *why when the object holds anything it does not handle (a section, symbol or relocation
 * kind rk's modules do not produce); codegen_link then runs ld.lld. */
bool cg_elf_link(const void *obj, size_t size, Arena *a, void **bin, size_t *bin_size, const char **why);

/* The object merger (elf_merge.c): AMDGPU relocatable objects from codegen_module (kernels compiled in
 * separate modules) into the one relocatable object a module holding all of them would give: .text,
 * .rodata and relocations concatenated, one metadata note listing every kernel. Returns false with
 * the reason in *why for anything it does not handle. */
bool cg_elf_merge(const void *const *objs, const size_t *sizes, int n, Arena *a, void **out, size_t *out_size,
                  const char **why);

/* codegen_link through ld.lld whatever the input; adds ld.lld's CPU time (user + system) to *cpu_ms
 * unless cpu_ms is NULL. */
CgStatus codegen_link_lld(const Target *t, const void *const *objs, const size_t *sizes, int n, Arena *a, void **bin,
                          size_t *bin_size, const char **err, double *cpu_ms);

/* codegen_link, adding the CPU time of ld.lld, when it ran, to *tool_cpu_ms (unless NULL). */
CgStatus cg_link(const Target *t, const void *const *objs, const size_t *sizes, int n, Arena *a, void **bin,
                 size_t *bin_size, const char **err, double *tool_cpu_ms);
/* A link's times: wall, and CPU (the calling thread's, which runs rk's own linker, and ld.lld's). */
typedef struct CgTimes {
    double wall_ms, cpu_ms;
} CgTimes;
/* cg_link, timed: every stage that links (codegen_module, the driver's) reports its link so. */
CgStatus cg_link_timed(const Target *t, const void *const *objs, const size_t *sizes, int n, Arena *a, void **bin,
                       size_t *bin_size, const char **err, CgTimes *times);

/* sm_90: assembles PTX text into a cubin with ptxas -arch=<t->cpu>. CG_ERR_TOOL when ptxas is not
 * found. (The hook for later: codegen_module's binary for sm_90 is the PTX, which the CUDA driver
 * can load and JIT itself.) */
CgStatus codegen_ptxas(const Target *t, const char *ptx, size_t len, Arena *a, void **cubin, size_t *size,
                       const char **err);

/* The ld.lld (ptxas) that codegen_link (codegen_ptxas) would run, or NULL with the reason in *why. */
const char *codegen_find_lld(Arena *a, const char **why);
const char *codegen_find_ptxas(Arena *a, const char **why);

/* Disposes the cached TargetMachines that no call is using (for leak checkers and tests). */
void codegen_release_cache(void);

#endif
