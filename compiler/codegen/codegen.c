/* LLVM initialisation, the TargetMachine cache, and codegen_module: verify, optimise, emit, link.
 *
 * The order inside codegen_module matters for safety: everything that could make LLVM abort is
 * checked before the first pass runs (target table, verifier, allow-lists); LLVM's error
 * diagnostics go to a handler on the module's context, restored before returning. While LLVM state
 * is held (a lent TargetMachine, the handler, memory buffers) nothing is allocated from the arena,
 * whose out-of-memory path may longjmp: messages go to a fixed buffer and the outputs are copied
 * into the arena only after everything is given back.
 *
 * Measured on the 2-core build machine (tests/unit/test_codegen.c prints the figures), for a small
 * gfx942 kernel: LLVMCreateTargetMachine 0.15 ms, but its first code generation also builds the
 * subtarget, 3-4 ms more than with a cached TargetMachine (8 ms against 4.5 ms); O3 1 ms; ld.lld
 * 25-35 ms, nearly all of it the process start. */
#include <llvm-c/Analysis.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#ifdef __GLIBC__
#include <ctype.h>
#include <malloc.h>
#endif
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codegen.h"
#include "support/clock.h"
#include "support/strbuf.h"

/* ---- LLVM initialisation ---------------------------------------------------------------------- */

static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;

/* glibc's malloc returns a freed block above its mmap threshold (128 KiB at first) to the kernel at
 * once, and shrinks a thread's heap when its free top passes the trim threshold (128 KiB). LLVM's
 * AMDGPU code generator allocates, for every function, arrays indexed by physical register or
 * register unit (thousands of each: LiveRegMatrix, LiveVariables, the register pressure tracker) and
 * frees them at its end, so every compile took them back from the kernel as fresh zeroed pages:
 * about 900 page faults and 35% of the compile time of a one-store kernel, 3 to 5% of a larger one
 * (docs/performance.md). Raising both thresholds keeps the memory in the process for the next
 * compile; the process keeps its peak heap (tens of MiB) instead. $RK_MALLOC_DEFAULTS=1 leaves
 * glibc's settings alone (for a program that tunes malloc itself). */
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
    const char *env = getenv("RK_MALLOC_DEFAULTS");
    if (env && *env && strcmp(env, "0") != 0)
        return;
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

/* Whether an RK_LLVM_ARGS word may reach LLVM's option parser, which runs inside the host process of
 * rk_compile: only options (`-name` or `--name`, with `=value`), never the ones LLVM answers by
 * printing and calling exit() (-help and its forms, -h, --version, -print-options,
 * -print-all-options), a response file (`@file`, read from disk) or a positional word. A word
 * refused is ignored, as LLVM ignores an option it does not know (issue 23). */
static bool llvm_arg_allowed(const char *w)
{
    if (w[0] != '-')
        return false;
    const char *name = w + (w[1] == '-' ? 2 : 1);
    size_t n = strcspn(name, "=");
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)name[i]) && name[i] != '-' && name[i] != '_' && name[i] != '.')
            return false;
    static const char *const exits[] = {"h", "version", "print-options", "print-all-options"};
    for (size_t i = 0; i < sizeof exits / sizeof *exits; i++)
        if (strlen(exits[i]) == n && strncmp(name, exits[i], n) == 0)
            return false;
    return strncmp(name, "help", 4) != 0;
}

static void init_llvm(void)
{
    keep_freed_memory();
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUAsmPrinter();
    LLVMInitializeAMDGPUAsmParser();
    LLVMInitializeAMDGPUDisassembler();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXAsmPrinter();
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86Target();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeX86AsmParser();
    /* Options for LLVM's command line parser (process-wide: they apply to every module this process
     * compiles with LLVM). rk's one default, -disable-licm-promotion, turns off LICM's promotion of
     * memory to registers in loops, which rk's kernels never need (their loop-carried values are
     * already SSA values) and whose alias-set bookkeeping took 6% of a matmul compile: the assembly
     * of every kernel of bench/isa_snapshot.sh is identical without it (docs/performance.md).
     * $RK_LLVM_ARGS adds options, separated by spaces, e.g. to compare code generator options
     * ("-amdgpu-scalar-ir-passes=0", ...) with bench/isa_snapshot.sh. The C API's parser reports nothing
     * (an option LLVM does not know is ignored), but LLVM answers a few options by printing and
     * calling exit(): llvm_arg_allowed keeps those out. (For -time-passes, use bench_stages
     * --llvm: its report needs the option set before LLVM's first use.) */
    static char buf[1024];
    const char *argv[34] = {"rk", "-disable-licm-promotion"};
    int argc = 2;
    const char *env = getenv("RK_LLVM_ARGS");
    snprintf(buf, sizeof buf, "%s", env ? env : "");
    char *save = NULL;
    for (char *p = strtok_r(buf, " \t\n", &save); p && argc < 34; p = strtok_r(NULL, " \t\n", &save))
        if (llvm_arg_allowed(p))
            argv[argc++] = p;
    LLVMParseCommandLineOptions(argc, argv, NULL);
}

void codegen_init_llvm(void) { pthread_once(&llvm_once, init_llvm); }

/* ---- what -O<n> means --------------------------------------------------------------------------- */

/* The optimisation pipeline for -O`opt` on t: $RK_LLVM_PASSES when set (to compare pipelines, e.g.
 * "default<O3>"), the target's own at -O2 and -O3 (AMDGPU: compiler/target/amdgpu), else LLVM's
 * default<On>. */
static const char *opt_pipeline(const Target *t, int opt, char *buf, size_t n)
{
    const char *env = getenv("RK_LLVM_PASSES");
    if (env && *env)
        return env;
    if (t->codegen->llvm_passes && opt >= 2)
        return t->codegen->llvm_passes;
    snprintf(buf, n, "default<O%d>", opt);
    return buf;
}

/* The code generator's level for -O`opt` on t: $RK_LLVM_CODEGEN_OPT (0 to 3) when set; for AMDGPU
 * at -O2 and -O3 the default level (2): on rk's kernels it gives the same or fewer instructions than
 * the aggressive level (tail duplication and block placement at -O3 copy masked-store blocks), and
 * runs GVN's cheaper EarlyCSE among its IR passes; else the level of -O`opt`. */
static int codegen_level(const Target *t, int opt)
{
    const char *env = getenv("RK_LLVM_CODEGEN_OPT");
    if (env && env[0] >= '0' && env[0] <= '3' && !env[1])
        return env[0] - '0';
    int max = t->codegen->max_codegen_level;
    return max && opt > max ? max : opt;
}

/* ---- TargetMachine cache ---------------------------------------------------------------------- */

/* A slot holds one TargetMachine for (target, code generator level); `busy` while lent to a call.
 * More than one slot per key exists when threads compile for the same key at once. */
typedef struct TmSlot {
    const Target *t;
    int opt;
    LLVMTargetMachineRef tm;
    bool busy;
} TmSlot;

enum { TM_SLOTS = 64 };
static pthread_mutex_t tm_lock = PTHREAD_MUTEX_INITIALIZER;
static TmSlot tm_slots[TM_SLOTS];
static int tm_nslots;

static LLVMTargetMachineRef tm_create(const Target *t, int opt, char *why, size_t whylen)
{
    LLVMTargetRef target;
    char *msg = NULL;
    if (LLVMGetTargetFromTriple(t->triple, &target, &msg)) {
        snprintf(why, whylen, "LLVM has no back end for %s: %s", t->triple, msg ? msg : "");
        LLVMDisposeMessage(msg);
        return NULL;
    }
    static const LLVMCodeGenOptLevel levels[] = {LLVMCodeGenLevelNone, LLVMCodeGenLevelLess,
                                                 LLVMCodeGenLevelDefault, LLVMCodeGenLevelAggressive};
    LLVMTargetMachineOptionsRef o = LLVMCreateTargetMachineOptions();
    LLVMTargetMachineOptionsSetCPU(o, t->cpu);
    LLVMTargetMachineOptionsSetFeatures(o, t->features);
    LLVMTargetMachineOptionsSetCodeGenOptLevel(o, levels[opt]);
    /* emu: the object goes into a shared library */
    LLVMTargetMachineOptionsSetRelocMode(o, t->codegen->pic ? LLVMRelocPIC : LLVMRelocDefault);
    LLVMTargetMachineRef tm = LLVMCreateTargetMachineWithOptions(target, t->triple, o);
    LLVMDisposeTargetMachineOptions(o);
    if (!tm)
        snprintf(why, whylen, "LLVM could not make a target machine for %s (%s)", t->triple, t->cpu);
    return tm;
}

static LLVMTargetMachineRef tm_acquire(const Target *t, int opt, bool *cached, char *why, size_t whylen)
{
    pthread_mutex_lock(&tm_lock);
    for (int i = 0; i < tm_nslots; i++) {
        TmSlot *s = &tm_slots[i];
        if (s->t == t && s->opt == opt && !s->busy) {
            s->busy = true;
            pthread_mutex_unlock(&tm_lock);
            *cached = true;
            return s->tm;
        }
    }
    pthread_mutex_unlock(&tm_lock);
    *cached = false;
    return tm_create(t, opt, why, whylen);
}

static void tm_release(const Target *t, int opt, LLVMTargetMachineRef tm)
{
    pthread_mutex_lock(&tm_lock);
    for (int i = 0; i < tm_nslots; i++) {
        if (tm_slots[i].tm == tm) {
            tm_slots[i].busy = false;
            pthread_mutex_unlock(&tm_lock);
            return;
        }
    }
    if (tm_nslots < TM_SLOTS) {
        tm_slots[tm_nslots++] = (TmSlot){t, opt, tm, false};
        tm = NULL;
    }
    pthread_mutex_unlock(&tm_lock);
    if (tm)
        LLVMDisposeTargetMachine(tm);
}

void codegen_release_cache(void)
{
    pthread_mutex_lock(&tm_lock);
    int keep = 0;
    for (int i = 0; i < tm_nslots; i++) {
        if (tm_slots[i].busy)
            tm_slots[keep++] = tm_slots[i];
        else
            LLVMDisposeTargetMachine(tm_slots[i].tm);
    }
    tm_nslots = keep;
    pthread_mutex_unlock(&tm_lock);
}

/* ---- diagnostics ------------------------------------------------------------------------------ */

/* Text gathered while LLVM runs: malloc'ed (a StrBuf without an arena), capped, never the arena (see
 * the file comment). One message per line. */
enum { TEXT_MAX = 16384 };

static void text_add(StrBuf *t, const char *line)
{
    size_t len = strlen(line);
    if (t->n + len + 2 > TEXT_MAX)
        return;
    if (t->n)
        strbuf_ch(t, '\n');
    strbuf_put(t, line, len);
}

typedef struct Diags {
    StrBuf errors, warnings; /* without an arena: malloc'ed */
    int nerrors;
} Diags;

static void on_diagnostic(LLVMDiagnosticInfoRef di, void *ud)
{
    Diags *d = ud;
    LLVMDiagnosticSeverity sev = LLVMGetDiagInfoSeverity(di);
    if (sev != LLVMDSError && sev != LLVMDSWarning)
        return;
    char *msg = LLVMGetDiagInfoDescription(di);
    if (sev == LLVMDSError) {
        d->nerrors++;
        text_add(&d->errors, msg ? msg : "(no message)");
    } else {
        text_add(&d->warnings, msg ? msg : "(no message)");
    }
    LLVMDisposeMessage(msg);
}

/* ---- verification ----------------------------------------------------------------------------- */

bool codegen_verify_module(LLVMModuleRef m, Arena *a, const char **err)
{
    char *msg = NULL;
    if (!LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
        LLVMDisposeMessage(msg);
        return true;
    }
    /* copy first: the arena may longjmp on out-of-memory */
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", msg ? msg : "");
    LLVMDisposeMessage(msg);
    size_t n = strlen(buf);
    while (n && buf[n - 1] == '\n')
        buf[--n] = 0;
    *err = arena_printf(a, "invalid LLVM module (a bug in rk): %s", buf);
    return false;
}

/* A function attribute that would hand LLVM a CPU or feature set outside the table. */
static bool check_function_targets(const Target *t, LLVMModuleRef m, Arena *a, const char **err)
{
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
        static const char *const keys[] = {"target-cpu", "target-features"};
        const char *want[] = {t->cpu, t->features};
        for (int k = 0; k < 2; k++) {
            LLVMAttributeRef at =
                LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, keys[k], (unsigned)strlen(keys[k]));
            if (!at)
                continue;
            unsigned len;
            const char *v = LLVMGetStringAttributeValue(at, &len);
            if (len != strlen(want[k]) || memcmp(v, want[k], len) != 0) {
                size_t nlen;
                const char *name = LLVMGetValueName2(f, &nlen);
                *err = arena_printf(a, "function '%.*s' has \"%s\"=\"%.*s\", but the target %s is \"%s\"",
                                    (int)nlen, name, keys[k], (int)len, v, t->name, want[k]);
                return false;
            }
        }
    }
    return true;
}

/* ---- codegen_module ----------------------------------------------------------------------------- */

/* LLVM 22.1's x86 instruction selector (SelectionDAG) dies with SIGSEGV (in InstrEmitter, adding a
 * register operand) on some straight-line blocks of many thousands of instructions: a 10,000-line
 * kernel on emu did (tests/golden/reliability/long_program.tile; llc-22 alone crashes on its optimised
 * IR). FastISel selects such blocks. Blocks of ordinary kernels are far smaller (the examples' largest
 * on emu: ~750 instructions), so they keep SelectionDAG's code. */
enum { BIG_BLOCK = 4096 };

static bool has_big_block(LLVMModuleRef m)
{
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b)) {
            int n = 0;
            for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
                if (++n > BIG_BLOCK)
                    return true;
        }
    return false;
}

/* Emits one file type from `m`; on failure writes the reason to why. */
static LLVMMemoryBufferRef emit(LLVMTargetMachineRef tm, LLVMModuleRef m, LLVMCodeGenFileType type, char *why,
                                size_t whylen)
{
    char *msg = NULL;
    LLVMMemoryBufferRef buf = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, type, &msg, &buf)) {
        snprintf(why, whylen, "LLVM could not emit %s: %s", type == LLVMAssemblyFile ? "assembly" : "an object",
                 msg ? msg : "");
        LLVMDisposeMessage(msg);
        return NULL;
    }
    LLVMDisposeMessage(msg);
    return buf;
}

/* A NUL-terminated copy (the NUL is not counted in *size). */
static void *copy_buffer(Arena *a, LLVMMemoryBufferRef b, size_t *size)
{
    size_t n = LLVMGetBufferSize(b);
    char *p = arena_alloc(a, n + 1);
    if (!p)
        return NULL;
    memcpy(p, LLVMGetBufferStart(b), n);
    p[n] = 0;
    *size = n;
    return p;
}

bool codegen_check_allowed(const Target *t, LLVMModuleRef m, Arena *a, const char **err)
{
    const char *why;
    if (target_check_module(t, m, a, &why))
        return true;
    *err = arena_printf(a, "the module uses what %s cannot compile (a bug in rk's lowering):\n%s", t->name, why);
    return false;
}

CgStatus codegen_module(const Target *t, LLVMModuleRef m, int opt_level, unsigned want, Arena *a,
                        CodegenResult *out, const char **err)
{
    memset(out, 0, sizeof *out);
    codegen_init_llvm();
    if (!t || t != target_find(t->name)) {
        *err = "codegen: not a target from rk's table";
        return CG_ERR_USAGE;
    }
    if (opt_level < 0 || opt_level > 3) {
        *err = arena_printf(a, "codegen: optimisation level %d is not 0..3", opt_level);
        return CG_ERR_USAGE;
    }
    bool opt_only = want & CG_OPT_ONLY, optimised = want & CG_OPTIMISED;
    bool asm_binary = t->codegen->link == LINK_NONE; /* the binary is the assembly text (PTX) */
    if (opt_only ? optimised : !(want & (CG_WANT_ASM | CG_WANT_OBJ | CG_WANT_BINARY))) {
        *err = opt_only ? "codegen: CG_OPT_ONLY with CG_OPTIMISED" : "codegen: no output asked for";
        return CG_ERR_USAGE;
    }
    if (asm_binary && (want & CG_WANT_OBJ)) {
        *err = arena_printf(a, "%s has no object file: its output is PTX text (--emit=asm or the binary)", t->name);
        return CG_ERR_USAGE;
    }

    /* verify: nothing below runs on a module that fails here */
    double t0 = clock_wall_ms();
    const char *triple = LLVMGetTarget(m);
    if (!triple || !*triple) {
        LLVMSetTarget(m, t->triple);
    } else if (strcmp(triple, t->triple) != 0) {
        *err = arena_printf(a, "the module is for %s, not %s (%s)", triple, t->name, t->triple);
        return CG_ERR_INVALID;
    }
    if (t->code_object_version && !LLVMGetModuleFlag(m, "amdhsa_code_object_version", 26)) {
        LLVMValueRef v = LLVMConstInt(LLVMInt32TypeInContext(LLVMGetModuleContext(m)),
                                      (unsigned long long)t->code_object_version, 0);
        LLVMAddModuleFlag(m, LLVMModuleFlagBehaviorError, "amdhsa_code_object_version", 26, LLVMValueAsMetadata(v));
    }
    if (!optimised && !codegen_verify_module(m, a, err))
        return CG_ERR_INVALID;
    if (!codegen_check_allowed(t, m, a, err))
        return CG_ERR_INVALID;
    if (!check_function_targets(t, m, a, err))
        return CG_ERR_INVALID;
    out->t_verify_ms = clock_wall_ms() - t0;

    /* From here to `done`, LLVM state is held: no arena allocation. */
    CgStatus st = CG_OK;
    char msg[1024] = "";
    Diags diags = {0}; /* StrBufs without an arena */
    LLVMMemoryBufferRef asm_buf = NULL, obj_buf = NULL;

    t0 = clock_wall_ms();
    int cg_level = codegen_level(t, opt_level);
    LLVMTargetMachineRef tm = tm_acquire(t, cg_level, &out->tm_cached, msg, sizeof msg);
    out->t_tm_ms = clock_wall_ms() - t0;
    if (!tm)
        return *err = arena_strdup(a, msg), CG_ERR_LLVM;

    LLVMContextRef ctx = LLVMGetModuleContext(m);
    LLVMDiagnosticHandler old_handler = LLVMContextGetDiagnosticHandler(ctx);
    void *old_ud = LLVMContextGetDiagnosticContext(ctx);
    LLVMContextSetDiagnosticHandler(ctx, on_diagnostic, &diags);

    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(m, td);
    LLVMDisposeTargetData(td);

    /* optimise */
    t0 = clock_wall_ms();
    double c0 = clock_thread_cpu_ms();
    if (!optimised) {
        char buf[32];
        const char *pipeline = opt_pipeline(t, opt_level, buf, sizeof buf);
        LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
        LLVMErrorRef e = LLVMRunPasses(m, pipeline, tm, po);
        LLVMDisposePassBuilderOptions(po);
        out->t_opt_ms = clock_wall_ms() - t0;
        out->c_opt_ms = clock_thread_cpu_ms() - c0;
        if (e) {
            char *em = LLVMGetErrorMessage(e);
            const char *env = getenv("RK_LLVM_PASSES");
            /* a pipeline the user gave that LLVM cannot run is the user's error, not rk's */
            bool theirs = env && *env && strcmp(env, pipeline) == 0;
            if (theirs)
                snprintf(msg, sizeof msg, "RK_LLVM_PASSES=%.200s is not a pipeline LLVM can run: %s", pipeline, em);
            else
                snprintf(msg, sizeof msg, "LLVM's optimisation pipeline (%.200s) failed: %s", pipeline, em);
            LLVMDisposeErrorMessage(em);
            st = theirs ? CG_ERR_USAGE : CG_ERR_LLVM;
            goto done;
        }
        /* SLP, the pipeline's vectoriser, is on at -O1 and up */
        if (t->codegen && t->codegen->after_passes && opt_level > 0)
            t->codegen->after_passes(m);
    }
    if (diags.nerrors) {
        st = CG_ERR_LLVM;
        goto done;
    }
    if (opt_only)
        goto done;

    /* codegen: code generation changes the IR (kernel argument lowering, LDS packing, ...), so
     * when both assembly and an object are wanted the assembly comes from a copy */
    t0 = clock_wall_ms();
    c0 = clock_thread_cpu_ms();
    bool fast_isel = t->codegen->fast_isel_big_blocks && has_big_block(m);
    if (fast_isel)
        LLVMSetTargetMachineFastISel(tm, 1);
    bool need_obj = !asm_binary && (want & (CG_WANT_OBJ | CG_WANT_BINARY));
    bool need_asm = (want & CG_WANT_ASM) || (asm_binary && (want & CG_WANT_BINARY));
    if (need_asm) {
        LLVMModuleRef src = need_obj ? LLVMCloneModule(m) : m;
        asm_buf = emit(tm, src, LLVMAssemblyFile, msg, sizeof msg);
        if (src != m)
            LLVMDisposeModule(src);
        if (!asm_buf)
            st = CG_ERR_LLVM;
    }
    if (st == CG_OK && need_obj && !diags.nerrors) {
        obj_buf = emit(tm, m, LLVMObjectFile, msg, sizeof msg);
        if (!obj_buf)
            st = CG_ERR_LLVM;
    }
    if (fast_isel)
        LLVMSetTargetMachineFastISel(tm, 0); /* the machine is cached for ordinary modules */
    out->t_codegen_ms = clock_wall_ms() - t0;
    out->c_codegen_ms = clock_thread_cpu_ms() - c0;
    if (diags.nerrors)
        st = CG_ERR_LLVM;

done:
    LLVMContextSetDiagnosticHandler(ctx, old_handler, old_ud);
    tm_release(t, cg_level, tm);
    /* LLVM state given back; the arena may be used again. Its failure (a longjmp when it has a recovery
     * point) is held back while the buffers are copied, so that they are disposed of first. */
    jmp_buf *oom = a->oom;
    a->oom = NULL;
    bool lost = false;
    if (diags.warnings.n)
        lost |= !(out->warnings = arena_strdup(a, diags.warnings.p));
    if (st == CG_OK) {
        if (asm_buf && (want & CG_WANT_ASM))
            lost |= !(out->asm_text = copy_buffer(a, asm_buf, &out->asm_size));
        if (obj_buf)
            lost |= !(out->obj = copy_buffer(a, obj_buf, &out->obj_size));
        if (asm_buf && asm_binary && (want & CG_WANT_BINARY))
            lost |= !(out->binary = copy_buffer(a, asm_buf, &out->binary_size));
    } else if (diags.nerrors) {
        *err = arena_printf(a, "LLVM: %s", diags.errors.p ? diags.errors.p : "(error messages lost: out of memory)");
        lost |= !*err;
    } else {
        lost |= !(*err = arena_strdup(a, msg));
    }
    if (asm_buf)
        LLVMDisposeMemoryBuffer(asm_buf);
    if (obj_buf)
        LLVMDisposeMemoryBuffer(obj_buf);
    strbuf_free(&diags.errors);
    strbuf_free(&diags.warnings);
    a->oom = oom;
    if (lost) {
        if (oom)
            longjmp(*oom, 1);
        *err = "out of memory copying the code generator's output";
        return CG_ERR_LLVM;
    }
    if (st != CG_OK)
        return st;

    if (!opt_only && (want & CG_WANT_BINARY) && !asm_binary) {
        const void *objs[1] = {out->obj};
        size_t sizes[1] = {out->obj_size};
        CgTimes link;
        st = cg_link_timed(t, objs, sizes, 1, a, &out->binary, &out->binary_size, err, &link);
        out->t_link_ms = link.wall_ms;
        out->c_link_ms = link.cpu_ms;
    }
    return st;
}
