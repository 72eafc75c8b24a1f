/* The compiler driver: stages in order, timings, IR dumps (see driver.h). */
#include "compiler/driver/driver.h"
#include "compiler/driver/driver_internal.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "compiler/front/lex.h"
#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>

#include "compiler/codegen/codegen.h"
#include "compiler/front/parse.h"
#include "compiler/lower/lower.h"
#include "compiler/passes/passes.h"
#include "compiler/report/work.h"
#include "compiler/target/amdgpu/report.h"
#include "parser.h"
#include "support/strbuf.h"
#include "support/clock.h"

/* The recovery point of the LLVM stages (see driver_compile). */
typedef struct LlvmGuard {
    jmp_buf oom;
} LlvmGuard;

static const char *const stage_names[] = {"tokens", "ast", "tir", "lir", "llvm", "asm", "obj", "hsaco"};

int driver_stage_from_name(const char *name)
{
    for (int i = 0; i <= STAGE_BIN; i++)
        if (strcmp(name, stage_names[i]) == 0)
            return i;
    return -1;
}

const char *driver_stage_name(Stage s)
{
    return s <= STAGE_BIN ? stage_names[s] : "?";
}

bool driver_stage_available(const char *target, Stage s)
{
    if (s <= STAGE_TIR)
        return true;
    if (target_is_interp(target))
        return s == STAGE_BIN; /* the interpreter's code is the TIR itself */
    return true;
}

bool driver_lower_kernel(Arena *a, Diags *diags, const LowerOptions *lopt, Func *f, LLVMModuleRef mod, DriverResult *out)
{
    LowerResult lr;
    bool ok = lower_kernel(f, mod, lopt, diags, &lr);
    driver_add_remarks(a, out, &lr);
    for (int k = 0; k < out->nkernels; k++)
        if (strcmp(out->kernels[k].symbol, f->name) == 0) {
            out->kernels[k].lds_bytes = lr.lds_bytes;
            out->kernels[k].tma = lr.tma ? arena_strdup(a, lr.tma) : NULL;
            out->kernels[k].block = lr.block;
            out->kernels[k].spends_regs = lr.spends;
            out->kernels[k].drain_capped = lr.drain_capped;
            out->kernels[k].drain_raised = lr.drain_raised;
            out->kernels[k].lowered = lopt->choice;
            out->kernels[k].choice_read = lr.choice_read;
        }
    return ok;
}

void driver_add_remarks(Arena *a, DriverResult *out, const LowerResult *lr)
{
    int fresh = 0;
    const Remark **add = ARENA_ARRAY(a, const Remark *, lr->nremarks + 1);
    for (int i = 0; i < lr->nremarks; i++) {
        const Remark *r = &lr->remarks[i];
        bool seen = false;
        for (int j = 0; j < out->nremarks && !seen; j++) {
            const Remark *o = &out->remarks[j];
            seen = o->kind == r->kind && o->line == r->line && o->col == r->col && !strcmp(o->what, r->what) &&
                   !strcmp(o->kernel, r->kernel);
        }
        if (!seen)
            add[fresh++] = r;
    }
    if (!fresh)
        return;
    Remark *all = ARENA_ARRAY(a, Remark, out->nremarks + fresh);
    if (out->nremarks)
        memcpy(all, out->remarks, sizeof *all * (size_t)out->nremarks);
    for (int i = 0; i < fresh; i++)
        all[out->nremarks + i] = *add[i];
    out->remarks = all;
    out->nremarks += fresh;
}

/* ---- dumps ---- */

/* RK_DUMP_IR is "1" or "all" for every stage, or a comma-separated list of stage names. */
static bool dump_wanted(const DriverOptions *o, const char *stage)
{
    const char *d = o->dump_ir;
    if (!d || !*d || strcmp(d, "0") == 0)
        return false;
    if (strcmp(d, "1") == 0 || strcmp(d, "all") == 0)
        return true;
    size_t n = strlen(stage);
    for (const char *p = d; *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && strncmp(p, stage, n) == 0)
            return true;
        p += len + (comma ? 1 : 0);
    }
    return false;
}

static const char *dump_ext(const char *stage)
{
    if (strcmp(stage, "llvm") == 0)
        return "ll";
    if (strcmp(stage, "asm") == 0)
        return "s";
    return strcmp(stage, "lir") == 0 ? "lir" : "tir";
}

static void dump(Arena *a, Diags *diags, const DriverOptions *o, DriverResult *r, const char *stage, const char *kernel,
                 const char *text)
{
    if (!dump_wanted(o, stage))
        return;
    if (o->dump_dir && *o->dump_dir) {
        mkdir(o->dump_dir, 0777);
        /* KERNEL.STAGE.EXT (vecadd.pipeline.tir, vecadd.llvm.ll), or KERNEL.EXT where the stage names its
         * own extension (vecadd.tir, vecadd.lir) */
        const char *ext = dump_ext(stage);
        const char *path = strcmp(stage, ext) == 0 ? arena_printf(a, "%s/%s.%s", o->dump_dir, kernel, ext)
                                                   : arena_printf(a, "%s/%s.%s.%s", o->dump_dir, kernel, stage, ext);
        FILE *f = fopen(path, "wb");
        if (!f || fputs(text, f) < 0)
            diag_plain(diags, DIAG_WARNING, "cannot write the IR dump %s", path);
        if (f)
            fclose(f);
        return;
    }
    if (o->dump_sink) {
        o->dump_sink(o->dump_ud, stage, kernel, text);
        return;
    }
    Dump *d = arena_realloc(a, r->dumps, sizeof(Dump) * (size_t)r->ndumps, sizeof(Dump) * (size_t)(r->ndumps + 1));
    d[r->ndumps] = (Dump){stage, kernel, text};
    r->dumps = d;
    r->ndumps++;
}

/* ---- stages ---- */

static char *tokens_text(Arena *a, SrcFile *f, Diags *diags)
{
    Lexer lx;
    lex_init(&lx, f, diags);
    StrBuf b;
    strbuf_init(&b, a);
    for (;;) {
        Token t = lex_next(&lx);
        if (t.kind == TOK_LEX_ERROR)
            return NULL;
        int line, col;
        src_linecol(f, t.off, &line, &col);
        strbuf_printf(&b, "%d:%d %s", line, col, lex_token_id(t.kind));
        if (t.kind != TOK_EOF) {
            strbuf_ch(&b, ' ');
            strbuf_put(&b, f->text + t.off, t.len);
        }
        strbuf_ch(&b, '\n');
        if (t.kind == TOK_EOF)
            return b.p;
    }
}

static const char *func_text(Arena *a, Func *f)
{
    return tir_print_func(a, f, 0);
}

/* The code object a retry judges an attempt by (driver_reg_facts), and whether it needs the loop
 * model's cycles: where a kernel's drain read-ahead stopped at its cap, or was lowered past it. */
typedef struct JudgedCode {
    const void *code; /* the linked code object, or the relocatable object; NULL: the assembly's text */
    size_t size;
    bool cycles;
} JudgedCode;

static bool wants_cycles(const DriverResult *out, const LowerChoice *choice, int n)
{
    for (int k = 0; k < out->nkernels; k++)
        if (out->kernels[k].drain_capped)
            return true;
    for (int i = 0; choice && i < n; i++)
        if (choice[i].drain == DRAIN_DEEP)
            return true;
    return false;
}

/* What an attempt is judged by once codegen_module made cr: at the assembly and object stages, where
 * the loop model is wanted, the object linked here (a link that fails, say ld.lld missing, is no
 * error: the attempt is judged without cycles, and its DRAIN_DEEP retry is not made or not kept). */
static JudgedCode judged_code(Arena *a, const Target *tg, Stage stop, const CodegenResult *cr, bool cycles,
                              DriverResult *out)
{
    if (stop == STAGE_BIN)
        return (JudgedCode){cr->binary, cr->binary_size, cycles};
    if (cycles) {
        const void *objs[1] = {cr->obj};
        size_t sizes[1] = {cr->obj_size};
        void *bin = NULL;
        size_t size = 0;
        const char *err = NULL;
        CgTimes link;
        CgStatus st = cg_link_timed(tg, objs, sizes, 1, a, &bin, &size, &err, &link);
        out->ms_link += link.wall_ms;
        out->cpu_link += link.cpu_ms;
        if (st == CG_OK)
            return (JudgedCode){bin, size, true};
    }
    return stop == STAGE_OBJ ? (JudgedCode){cr->obj, cr->obj_size, false} : (JudgedCode){NULL, 0, false};
}

/* One lowering and code generation of lir's kernels into out (choice[i]: how kernel i is lowered;
 * NULL: each as written): out->text or out->binary as
 * `stop` asks, and the texts an IR dump of the LLVM IR or assembly wants in *llvm_text and *asm_text
 * (generate_best dumps the chosen ones). judged (NULL: not wanted): what a retry judges the attempt
 * by; where it needs the loop model, a code object is linked at the assembly and object stages too. */
static bool generate(Arena *a, Diags *diags, const DriverOptions *o, DriverResult *out, Module *lir,
                     const char *target, const Target *tg, const char *fname, Stage stop,
                     const LowerChoice *choice, const char **llvm_text, const char **asm_text, JudgedCode *judged)
{
    if (judged)
        *judged = (JudgedCode){NULL, 0, false};
    /* a code object of several AMDGPU kernels: each kernel in a module of its own, compiled on
     * threads side by side (driver_kernels.c) and merged, unless an IR dump wants the whole module */
    if (stop == STAGE_BIN && tg && tg->codegen->link == LINK_CODE_OBJECT && lir->nfuncs > 1 && !dump_wanted(o, "llvm") &&
        !dump_wanted(o, "asm")) {
        int threads = driver_codegen_threads(lir->nfuncs);
        if (threads > 1) {
            int r = driver_kernels_parallel(a, diags, o, target, lir, threads, choice, out);
            if (r == 1 && judged)
                *judged = (JudgedCode){out->binary, out->size, wants_cycles(out, choice, lir->nfuncs)};
            if (r >= 0)
                return r == 1;
        }
    }
    /* LLVM IR: every kernel of the file in one module */
    double t3 = clock_wall_ms(), c3 = clock_thread_cpu_ms();
    /* An allocation failure from here on (the arena's longjmp, compiler/api/compile.c) passes
     * through this guard, which disposes of the LLVM module and context on its way. ctx and mod
     * are not changed after the setjmp, so they are intact when it returns again. */
    LlvmGuard *g = ARENA_NEW(a, LlvmGuard);
    if (!g) {
        diag_plain(diags, DIAG_ERROR, "out of memory");
        return false;
    }
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef mod = LLVMModuleCreateWithNameInContext(fname, ctx);
    jmp_buf *outer = a->oom;
    if (outer) {
        if (setjmp(g->oom)) {
            a->oom = outer;
            LLVMDisposeModule(mod);
            LLVMContextDispose(ctx);
            longjmp(*outer, 1);
        }
        a->oom = &g->oom;
    }
    LowerOptions lopt = {tg, false, o->remarks, {0}};
    bool ok = true;
    for (int i = 0; i < lir->nfuncs && ok; i++) {
        lopt.choice = choice ? choice[i] : (LowerChoice){0};
        ok = driver_lower_kernel(a, diags, &lopt, lir->funcs[i], mod, out);
    }
    /* verified here only when LLVM stops at the IR: codegen_module verifies before its first
     * pass (verifying twice cost a compile 0.2 to 0.5 ms) */
    char *vmsg = NULL;
    if (ok && stop <= STAGE_LLVM && LLVMVerifyModule(mod, LLVMReturnStatusAction, &vmsg)) {
        diag_plain(diags, DIAG_ERROR, "internal error: rk produced invalid LLVM IR (a bug in rk): %s", vmsg);
        ok = false;
    }
    if (vmsg)
        LLVMDisposeMessage(vmsg);
    /* and the target's allow-lists, which codegen_module checks before LLVM runs: IR that stops
     * here (rkc --emit=llvm, fuzz_lower) is IR that would be compiled */
    const char *why = NULL;
    if (ok && stop <= STAGE_LLVM && tg && !codegen_check_allowed(tg, mod, a, &why)) {
        diag_plain(diags, DIAG_ERROR, "internal error: %s", why);
        ok = false;
    }
    out->ms_lower = clock_wall_ms() - t3;
    out->cpu_lower = clock_thread_cpu_ms() - c3;
    if (ok && (stop == STAGE_LLVM || dump_wanted(o, "llvm"))) {
        char *ir = LLVMPrintModuleToString(mod);
        out->text = arena_strdup(a, ir);
        LLVMDisposeMessage(ir);
        *llvm_text = out->text;
    }
    if (ok && stop > STAGE_LLVM) {
        /* LLVM: optimise, generate code, link */
        out->text = NULL;
        unsigned want = stop == STAGE_ASM ? CG_WANT_ASM : stop == STAGE_OBJ ? CG_WANT_OBJ : CG_WANT_BINARY;
        if (dump_wanted(o, "asm"))
            want |= CG_WANT_ASM;
        bool cycles = judged && wants_cycles(out, choice, lir->nfuncs);
        if (cycles && stop != STAGE_BIN)
            want |= CG_WANT_OBJ; /* linked below: the loop model reads a code object */
        CodegenResult cr;
        const char *err = NULL;
        CgStatus st = tg ? codegen_module(tg, mod, o->opt_level, want, a, &cr, &err) : CG_ERR_USAGE;
        if (st != CG_OK) {
            diag_plain(diags, DIAG_ERROR, "%s%s", st == CG_ERR_INVALID || st == CG_ERR_LLVM ? "internal error: " : "",
                       err ? err : "code generation failed");
            ok = false;
        } else {
            out->ms_opt = cr.t_opt_ms;
            out->ms_codegen = cr.t_codegen_ms;
            out->ms_link = cr.t_link_ms;
            out->cpu_opt = cr.c_opt_ms;
            out->cpu_codegen = cr.c_codegen_ms;
            out->cpu_link = cr.c_link_ms;
            *asm_text = cr.asm_text;
            if (judged)
                *judged = judged_code(a, tg, stop, &cr, cycles, out);
            if (stop == STAGE_ASM) {
                out->text = cr.asm_text;
            } else if (stop == STAGE_OBJ) {
                out->binary = cr.obj;
                out->size = cr.obj_size;
            } else {
                out->binary = cr.binary;
                out->size = cr.binary_size;
            }
        }
    }
    a->oom = outer;
    LLVMDisposeModule(mod);
    LLVMContextDispose(ctx);
    return ok;
}

/* The stage's timings of attempt `from` added to `to` (every attempt counts). */
static void add_times(DriverResult *to, const DriverResult *from)
{
    to->ms_lower += from->ms_lower, to->cpu_lower += from->cpu_lower;
    to->ms_opt += from->ms_opt, to->cpu_opt += from->cpu_opt;
    to->ms_codegen += from->ms_codegen, to->cpu_codegen += from->cpu_codegen;
    to->ms_link += from->ms_link, to->cpu_link += from->cpu_link;
}

/* One attempt's result: out as it left it, with its copy of the kernels' table and its dump texts. */
typedef struct Attempt {
    DriverResult out;
    DriverKernel *kernels;
    const char *llvm_text, *asm_text;
    RegFacts *facts;
    int nfacts;
} Attempt;

static bool attempt(Arena *a, Diags *diags, const DriverOptions *o, DriverResult *out, const DriverResult *base,
                    const DriverKernel *base_kernels, Module *lir, const char *target, const Target *tg,
                    const char *fname, Stage stop, const LowerChoice *choice, bool facts, Attempt *at)
{
    *out = *base;
    if (out->nkernels)
        memcpy(out->kernels, base_kernels, sizeof *out->kernels * (size_t)out->nkernels);
    at->llvm_text = at->asm_text = NULL;
    at->nfacts = 0;
    JudgedCode jc;
    bool ok = generate(a, diags, o, out, lir, target, tg, fname, stop, choice, &at->llvm_text, &at->asm_text,
                       facts ? &jc : NULL);
    at->out = *out;
    at->kernels = ARENA_ARRAY(a, DriverKernel, (size_t)out->nkernels + 1);
    if (!at->kernels) {
        diag_plain(diags, DIAG_ERROR, "out of memory");
        return false;
    }
    if (out->nkernels)
        memcpy(at->kernels, out->kernels, sizeof *out->kernels * (size_t)out->nkernels);
    /* the code object's metadata (an object's note is the one the link keeps), or the assembly's; the
     * loop model's cycles from a linked code object */
    if (ok && facts)
        at->nfacts = driver_reg_facts(a, jc.code, jc.size, at->asm_text, jc.cycles, &at->facts);
    return ok;
}

static const RegFacts *facts_of(const Attempt *at, const char *name)
{
    for (int i = 0; i < at->nfacts; i++)
        if (strcmp(at->facts[i].name, name) == 0)
            return &at->facts[i];
    return NULL;
}

static const DriverKernel *kernel_of(const Attempt *at, int nkernels, const char *name)
{
    for (int k = 0; k < nkernels; k++)
        if (strcmp(at->kernels[k].symbol, name) == 0)
            return &at->kernels[k];
    return NULL;
}

/* A retry failed: its diagnostics are taken back, and the first attempt, which succeeded, stands (a
 * retry is only ever a fallback). Returns the attempt chosen: 0. */
static int take_back(Diags *diags, int n, int nerrors)
{
    diags->n = n;
    diags->nerrors = nerrors;
    return 0;
}

/* Whether attempt `at` compiled every kernel as `want` says. */
static bool compiled_as(const LowerChoice *at, const LowerChoice *want, int n)
{
    for (int i = 0; i < n; i++)
        if (!lower_choice_same(&at[i], &want[i]))
            return false;
    return true;
}

static bool zero_choices(const LowerChoice *c, int n)
{
    for (int i = 0; i < n; i++)
        if (!lower_choice_same(&c[i], &(LowerChoice){0}))
            return false;
    return true;
}

/* Whether a kernel's lowering in attempt `at` read its LowerChoice (DriverKernel.choice_read). */
static bool reads_choice(const Attempt *at, int nkernels)
{
    for (int k = 0; at->kernels && k < nkernels; k++)
        if (at->kernels[k].choice_read)
            return true;
    return false;
}

/* The code of lir's kernels, each kernel compiled again where its first code lost to its registers
 * or a dot's drain read-ahead stopped at its cap, and a later one did better (driver_frugal.c). A
 * first attempt; then, for the kernels that spilled or lost waves to their VGPRs, up to four rounds
 * (driver_retry_plan): a kernel a few VGPRs short of its next occupancy step (driver_next_waves)
 * compiled as if it asked for those waves (waves_per_eu's register caps in the lowering, LLVM's
 * amdgpu-waves-per-eu); one whose lowering spent VGPRs for cycles (LowerResult.spends) frugally;
 * frugally for those waves; without its dots' read-ahead for their drains alone (DRAIN_NONE, where
 * they read ahead so: LowerResult.drain_raised). A kernel with none of those whose drain was capped
 * (LowerResult.drain_capped) takes part in round 1 with the cap lifted (DRAIN_DEEP), judged by the
 * loop model's cycles (JudgedCode: at the assembly and object stages such attempts link a code
 * object too, so that `--emit=asm` shows the code the code object holds). A kernel takes part in
 * rounds until one does better for it, or while its best code still spills (gfx950 128x64x256 w4 s3
 * k16 bf16 spills 9 VGPRs, frugally 8, its LDS map spilling, and none without the drain's read-ahead
 * alone: 6640 -> 4472 cycles); the first two each help kernels the other does not
 * (bench/vs_triton's 32x32x64 w4 k32 keeps its spread map at 8 waves for them, 321 cycles against
 * the frugal 352; gfx950 64x256x128 w4 k16 gets 2 only frugally). Each kernel keeps its best code
 * (fewer VGPRs spilled, or as many and more waves; for DRAIN_DEEP, fewer cycles); a round compiles
 * the kernels that take no part as chosen so far, and where no attempt compiled all of them as
 * chosen, one more does. Where a retry fails, its diagnostics are taken back and the rounds stop;
 * where that joined compile fails, the first code stands. AMDGPU code objects only, from the
 * assembly on; `--emit=llvm` shows the first lowering (the choice needs the machine code). The
 * emulator runs the lowering the code object holds (target_code_object_judge): its kernels are
 * lowered first as written, and where a lowering read its choice (DriverKernel.choice_read: any
 * other choice could lower it differently), gfx942 code objects are compiled from the same LIR for
 * the rounds above (and the joined compile), and the emulator's code is lowered again as the chosen
 * one was (where the first gfx942 compile or that lowering fails, its diagnostics are taken back and
 * the first lowering stands), from the LLVM IR on
 * (an autotuned variant for emu is lowered as its config's gfx942 code is). Autotuned variants
 * are lowered to LLVM IR here and make the same choice in compiler/api/variants.c, which asks for
 * the second lowering with DriverOptions.lower (every kernel so, no retry). The dumps of the LLVM IR
 * and assembly are the chosen attempt's (a failed first attempt's LLVM IR too); the timings are all
 * attempts'. */
static bool generate_best(Arena *a, Diags *diags, const DriverOptions *o, DriverResult *out, Module *lir,
                          const char *target, const Target *tg, const char *fname, Stage stop)
{
    int n = lir->nfuncs;
    bool given = !zero_choices(&o->lower, 1);
    const Target *jt = target_code_object_judge(tg);
    /* a GPU's own code from its assembly on (the choice needs its machine code); an emulator's from
     * its LLVM IR on (autotuned variants are lowered to LLVM IR first) */
    bool stage = stop >= STAGE_ASM || (jt && jt != tg && stop == STAGE_LLVM);
    bool retry = jt && stage && n > 0 && !given && report_occupancy_for(jt->cpu, 0, 0, 0, 64, NULL) > 0;
    /* the attempts' target and stage: tg's, or where tg emulates a GPU (OWN_FIRST and OWN are tg's
     * code then) the GPU's code objects */
    bool judge_apart = retry && jt != tg;
    const Target *at_tg = judge_apart ? jt : tg;
    const char *at_target = judge_apart ? jt->name : target;
    Stage at_stop = judge_apart ? STAGE_BIN : stop;
    enum { FIRST, LAST_ROUND = DRIVER_RETRY_ROUNDS, JOINED, OWN_FIRST, OWN, NATTEMPTS };
    LowerChoice *ch[NATTEMPTS], *want = ARENA_ARRAY(a, LowerChoice, (size_t)n + 1);
    int *pick = ARENA_ARRAY(a, int, (size_t)n + 1);
    RetryBasis *basis = ARENA_ARRAY(a, RetryBasis, (size_t)n + 1);
    bool *takes = ARENA_ARRAY(a, bool, (size_t)n + 1);
    DriverResult base = *out;
    DriverKernel *base_kernels = ARENA_ARRAY(a, DriverKernel, (size_t)out->nkernels + 1);
    bool mem = want && pick && basis && takes && base_kernels;
    for (int t = 0; t < NATTEMPTS; t++)
        mem = mem && (ch[t] = ARENA_ARRAY(a, LowerChoice, (size_t)n + 1)) != NULL;
    if (!mem) {
        diag_plain(diags, DIAG_ERROR, "out of memory");
        return false;
    }
    if (out->nkernels)
        memcpy(base_kernels, out->kernels, sizeof *out->kernels * (size_t)out->nkernels);
    for (int i = 0; given && i < n; i++)
        ch[FIRST][i] = o->lower;
    Attempt at[NATTEMPTS];
    bool done[NATTEMPTS] = {false};
    int chosen = FIRST;
    bool ok = true;
    if (judge_apart) { /* judged only where some kernel's lowering read its choice */
        done[OWN_FIRST] = true;
        ok = attempt(a, diags, o, out, &base, base_kernels, lir, target, tg, fname, stop, NULL, false, &at[OWN_FIRST]);
        chosen = OWN_FIRST;
        retry = ok && reads_choice(&at[OWN_FIRST], out->nkernels);
    }
    int dn = diags->n, de = diags->nerrors;
    if (ok && (!judge_apart || retry)) {
        done[FIRST] = true;
        bool first = attempt(a, diags, o, out, &base, base_kernels, lir, at_target, at_tg, fname, at_stop,
                             given ? ch[FIRST] : NULL, retry, &at[FIRST]);
        if (!judge_apart)
            ok = first;
        else if (!first) { /* no gfx942 code to judge by: the emulator's first lowering stands */
            take_back(diags, dn, de);
            retry = false;
        }
    }
    for (int i = 0; ok && retry && i < n; i++) {
        const RegFacts *f = facts_of(&at[FIRST], lir->funcs[i]->name);
        const DriverKernel *dk = kernel_of(&at[FIRST], out->nkernels, lir->funcs[i]->name);
        basis[i] = f && dk ? driver_retry_basis(jt, f, dk, lir->funcs[i]->opts.waves_per_eu > 0) : (RetryBasis){0};
    }
    for (int round = 1; ok && retry && round <= LAST_ROUND; round++) {
        /* the kernels that take part, and the others as chosen so far (so that the last round
         * mostly compiles every kernel as chosen, and no joined compile is needed) */
        int tried = 0;
        for (int i = 0; i < n; i++) {
            const RegFacts *best = facts_of(&at[pick[i]], lir->funcs[i]->name);
            bool open = pick[i] == FIRST || (best && best->spills > 0); /* (until better, or no spills) */
            takes[i] = open && driver_retry_plan(round, &basis[i], &ch[round][i]);
            if (!takes[i])
                ch[round][i] = want[i];
            tried += takes[i];
        }
        if (!tried)
            continue;
        done[round] = true;
        if (!attempt(a, diags, o, out, &base, base_kernels, lir, at_target, at_tg, fname, at_stop, ch[round], true,
                     &at[round])) {
            take_back(diags, dn, de);
            break;
        }
        for (int i = 0; i < n; i++) {
            const RegFacts *fb = facts_of(&at[pick[i]], lir->funcs[i]->name);
            const RegFacts *fr = facts_of(&at[round], lir->funcs[i]->name);
            if (takes[i] && fb && fr && driver_retry_better(jt, fb, fr, &ch[round][i])) {
                pick[i] = round;
                want[i] = ch[round][i];
            }
        }
    }
    bool retried = false;
    for (int t = 1; t <= LAST_ROUND; t++)
        retried |= done[t];
    if (retried) {
        chosen = -1;
        for (int t = LAST_ROUND; t >= FIRST && chosen < 0; t--)
            if (done[t] && compiled_as(ch[t], want, n))
                chosen = t; /* (a failed round's kernels are all FIRST's in want: it is not chosen) */
        if (chosen < 0) { /* kernels whose best code came from different attempts */
            done[JOINED] = true;
            chosen = attempt(a, diags, o, out, &base, base_kernels, lir, at_target, at_tg, fname, at_stop, want,
                             false, &at[JOINED])
                         ? JOINED
                         : take_back(diags, dn, de);
        }
    }
    if (judge_apart) {
        /* the emulator's code lowered as the GPU's chosen code was; where that compile fails, its
         * diagnostics are taken back and the first lowering stands, as the GPU's first code does */
        bool kept = retried && chosen != FIRST && !zero_choices(want, n);
        chosen = OWN_FIRST;
        if (kept) {
            int kn = diags->n, ke = diags->nerrors;
            done[OWN] = true;
            chosen = attempt(a, diags, o, out, &base, base_kernels, lir, target, tg, fname, stop, want, false, &at[OWN])
                         ? OWN
                         : (take_back(diags, kn, ke), OWN_FIRST);
        }
    }
    Attempt *c = &at[chosen];
    *out = c->out;
    if (out->nkernels && c->kernels) /* (NULL only where the attempt ran out of memory) */
        memcpy(out->kernels, c->kernels, sizeof *out->kernels * (size_t)out->nkernels);
    for (int t = 0; t < NATTEMPTS; t++)
        if (done[t] && t != chosen)
            add_times(out, &at[t].out);
    for (int i = 0; c->llvm_text && i < n; i++)
        dump(a, diags, o, out, "llvm", lir->funcs[i]->name, c->llvm_text);
    for (int i = 0; ok && c->asm_text && i < n; i++)
        dump(a, diags, o, out, "asm", lir->funcs[i]->name, c->asm_text);
    return ok;
}

static bool compile_here(Arena *a, StrTab *strs, SrcMgr *src, Diags *diags, const DriverOptions *o, Stage stop,
                         DriverResult *out);

/* ---- the pass loop ----------------------------------------------------------------------------------
 * Runs passes (the pipeline of pass_table.c, or one that rkc --passes names) on one function: after
 * each, the dumps its entry names. A pass that changes the IR ends the life of the analysis in
 * PassState. Entries marked PASS_REMARKS run only when remarks are asked for. The LIR is verified once,
 * after the loop (compile_here): there a failure is a bug in a pass, reported as an internal error;
 * the passes' times are the stage's (DriverResult.ms_passes). */
bool driver_run_passes(Arena *a, Diags *diags, const DriverOptions *o, DriverResult *out, PassState *s, Func **f,
                       const Pass *list, int n)
{
    for (int i = 0; i < n; i++) {
        const Pass *p = &list[i];
        if ((p->flags & PASS_REMARKS) && !s->remarks)
            continue;
        if (!p->run(s, f))
            return false;
        if (!(p->flags & PASS_ANALYSIS))
            s->ax = NULL;
        for (const char *d = p->dumps; d && *d;) {
            const char *comma = strchr(d, ',');
            size_t len = comma ? (size_t)(comma - d) : strlen(d);
            const char *stage = arena_printf(a, "%.*s", (int)len, d);
            if (dump_wanted(o, stage))
                dump(a, diags, o, out, stage, (*f)->name, func_text(a, *f));
            d += len + (comma ? 1 : 0);
        }
    }
    return true;
}

/* ---- a stack for the compile --------------------------------------------------------------------
 * Some analyses recurse along chains of values (assign_layouts' preferences follow an elementwise
 * chain operand by operand), so their depth grows with a kernel's length: a 10,000-line kernel
 * (tests/golden/reliability/long_program.tile) overflowed an 8 MiB stack under ASan, and a kernel at
 * sema's limit of 524,288 statements could overflow any thread's default stack. Every compile
 * therefore runs on a thread of its own with COMPILE_STACK bytes of stack (address space, committed
 * only as far as it is used), which costs ~0.05 ms. An allocation failure on that thread (the arena's
 * longjmp) cannot jump to the caller's recovery point on another thread: it is caught there and
 * raised again here. */
enum { COMPILE_STACK = DRIVER_COMPILE_STACK };

typedef struct CompileCall {
    Arena *a;
    StrTab *strs;
    SrcMgr *src;
    Diags *diags;
    const DriverOptions *o;
    Stage stop;
    DriverResult *out;
    bool ok, oom;
    jmp_buf jb;
} CompileCall;

static void *compile_thread(void *arg)
{
    CompileCall *k = arg;
    jmp_buf *outer = k->a->oom;
    if (outer) {
        if (setjmp(k->jb)) {
            k->a->oom = outer;
            k->oom = true;
            return NULL;
        }
        k->a->oom = &k->jb;
    }
    k->ok = compile_here(k->a, k->strs, k->src, k->diags, k->o, k->stop, k->out);
    k->a->oom = outer;
    return NULL;
}

bool driver_compile(Arena *a, StrTab *strs, SrcMgr *src, Diags *diags, const DriverOptions *o, Stage stop,
                    DriverResult *out)
{
    CompileCall *k = ARENA_NEW(a, CompileCall);
    if (!k) {
        diag_plain(diags, DIAG_ERROR, "out of memory");
        return false;
    }
    k->a = a;
    k->strs = strs;
    k->src = src;
    k->diags = diags;
    k->o = o;
    k->stop = stop;
    k->out = out;
    pthread_attr_t attr;
    pthread_t th;
    bool started = pthread_attr_init(&attr) == 0;
    if (started) {
        started = pthread_attr_setstacksize(&attr, COMPILE_STACK) == 0 && pthread_create(&th, &attr, compile_thread, k) == 0;
        pthread_attr_destroy(&attr);
    }
    if (!started) /* no thread to be had: compile on this one, with its stack */
        return compile_here(a, strs, src, diags, o, stop, out);
    pthread_join(th, NULL);
    if (k->oom)
        longjmp(*a->oom, 1);
    return k->ok;
}

static bool compile_here(Arena *a, StrTab *strs, SrcMgr *src, Diags *diags, const DriverOptions *o, Stage stop,
                         DriverResult *out)
{
    memset(out, 0, sizeof *out);
    out->stage = stop;
    int errs0 = diags->nerrors;
    const char *target = o->target ? o->target : "gfx942";
    const Target *tg = target_find(target); /* NULL for interp: it has no LIR */
    if (!driver_stage_available(target, stop)) {
        diag_plain(diags, DIAG_ERROR, "--emit=%s is not available for target %s", driver_stage_name(stop), target);
        return false;
    }
    double t0 = clock_wall_ms(), c0 = clock_thread_cpu_ms();
    SrcFile *f = src_add(src, o->filename ? o->filename : "<source>", o->source, o->len);
    if (!f) {
        diag_plain(diags, DIAG_ERROR, "%s is too large (over 4 GiB)", o->filename);
        return false;
    }
    if (o->tir_input)
        return driver_compile_tir(a, strs, f, diags, o, stop, out);
    if (stop == STAGE_TOKENS) {
        out->text = tokens_text(a, f, diags);
        return out->text != NULL;
    }
    if (stop == STAGE_AST) {
        Node *m = parse_module(a, strs, diags, f);
        out->ms_front = clock_wall_ms() - t0;
        out->cpu_front = clock_thread_cpu_ms() - c0;
        if (!m)
            return false;
        out->text = ast_print(a, src, m);
        return true;
    }
    /* Semantics: parsing of the main file and its imports happens inside. */
    TypeTab *types = ARENA_NEW(a, TypeTab);
    typetab_init(types, a);
    SemaOptions so = {o->incdirs,    o->nincdirs, o->stdlib_dir, o->defines,
                      o->ndefines,   o->kernel,   target,        o->assume,
                      o->confine_imports};
    double t1 = clock_wall_ms(), c1 = clock_thread_cpu_ms();
    if (!sema_compile(a, strs, types, src, diags, f, &so, o->config, &out->sema))
        return false;
    Module *m = out->sema.module;
    for (int i = 0; i < m->nfuncs; i++)
        tir_canonicalize(m->funcs[i]);
    if (!tir_verify(m, diags)) {
        diag_plain(diags, DIAG_ERROR, "internal error: the tile IR of %s failed verification (a bug in rk)",
                   f->name);
        return false;
    }
    out->ms_sema = clock_wall_ms() - t1;
    out->cpu_sema = clock_thread_cpu_ms() - c1;
    for (int i = 0; i < m->nfuncs; i++) {
        if (m->funcs[i]->kind != FUNC_KERNEL)
            continue;
        const char *text = func_text(a, m->funcs[i]);
        for (int j = 0; j < out->sema.nkernels; j++) /* a specialised variant says so first */
            if (strcmp(out->sema.kernels[j].name, m->funcs[i]->name) == 0 && *out->sema.kernels[j].facts)
                text = arena_printf(a, "// facts: %s\n%s", out->sema.kernels[j].facts, text);
        dump(a, diags, o, out, "tir", m->funcs[i]->name, text);
    }
    /* What the runtime needs per kernel. */
    out->nkernels = out->sema.nkernels;
    out->kernels = ARENA_ARRAY(a, DriverKernel, out->nkernels + 1);
    for (int i = 0; i < out->nkernels; i++) {
        DriverKernel *k = &out->kernels[i];
        k->meta = &out->sema.kernels[i];
        k->symbol = k->meta->name;
        k->block = k->meta->opts.num_warps * (tg && tg->wave_size ? tg->wave_size : 64);
        Func *g = tir_module_find(m, FUNC_GRID, k->meta->name);
        k->grid_tir = g ? tir_print_func(a, g, TIR_PRINT_LOCS) : NULL;
        Func *kf = tir_module_find(m, FUNC_KERNEL, k->meta->name);
        k->work = kf ? work_describe(a, kf, k->meta->user_flops, k->meta->user_bytes) : NULL;
    }
    if (stop == STAGE_TIR) {
        out->text = tir_print_module(a, m, 0);
        return diags->nerrors == errs0;
    }
    if (!target_is_interp(target)) {
        /* Layouts: each kernel's LIR, in a module of its own. */
        double t2 = clock_wall_ms(), c2 = clock_thread_cpu_ms();
        LayoutTab *lt = ARENA_NEW(a, LayoutTab);
        laytab_init(lt, a);
        lay_attach_printer(types);
        Module *lir = tir_module_new(a, types, strs);
        lir->files = m->files;
        lir->nfiles = m->nfiles;
        const Target *lt_target = tg ? tg : target_default();
        PassState ps = {a, diags, {lt_target, lt_target->wave_size, true}, lt, lir, NULL, o->remarks, NULL, 0};
        int npasses;
        const Pass *pipeline = pass_pipeline(&npasses);
        for (int i = 0; i < m->nfuncs; i++) {
            if (m->funcs[i]->kind != FUNC_KERNEL)
                continue;
            Func *kf = m->funcs[i];
            if (!driver_run_passes(a, diags, o, out, &ps, &kf, pipeline, npasses))
                return false;
        }
        out->remarks = ps.rems;
        out->nremarks = ps.nrems;
        if (!tir_verify(lir, diags)) {
            diag_plain(diags, DIAG_ERROR, "internal error: the LIR of %s failed verification (a bug in rk)", f->name);
            return false;
        }
        out->ms_passes = clock_wall_ms() - t2;
        out->cpu_passes = clock_thread_cpu_ms() - c2;
        if (stop == STAGE_LIR) {
            out->text = tir_print_module(a, lir, 0);
            return diags->nerrors == errs0;
        }
        bool ok = generate_best(a, diags, o, out, lir, target, tg, f->name, stop);
        if (ok && o->remarks && stop == STAGE_BIN && tg->codegen->link == LINK_CODE_OBJECT)
            driver_spill_remarks(a, out, lir, tg);
        return ok && diags->nerrors == errs0;
    }
    if (target_is_interp(target)) {
        /* The interpreter runs the TIR itself: its code object is the text form with positions. */
        out->binary = tir_print_module(a, m, TIR_PRINT_LOCS);
        out->size = strlen(out->binary);
        return diags->nerrors == errs0;
    }
    diag_plain(diags, DIAG_ERROR, "--emit=%s is not available for target %s", driver_stage_name(stop), target);
    return false;
}
