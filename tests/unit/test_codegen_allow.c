/* Tests of the intrinsic allow-lists (compiler/target) against LLVM 22 itself.
 *
 * tests/data/codegen/intrinsics.ll (gfx9) and intrinsics_nvptx.ll (sm_90) hold one small kernel per
 * target intrinsic, each headed "; ---- NAME[ size N]: TARGETS", TARGETS being where llc-22 compiles
 * it. For every chunk and every target:
 *   - listed: codegen_module must compile it (so the list allows nothing LLVM cannot do);
 *   - not listed: codegen_module (or target_check_module, for another architecture's chunks) must
 *     refuse it with a message naming the intrinsic, before LLVM runs;
 *   - not listed, same architecture: in a forked child, the same module goes straight to LLVM
 *     (no rk check) to show what rk prevents: the child must die of a signal ("LLVM ERROR: Cannot
 *     select" aborts) or fail, except for the documented cases where LLVM compiles what the CPU
 *     does not have (llvm.amdgcn.cvt.scalef32.* on gfx90a/gfx942) or a non-intrinsic llvm.* name.
 *     So the lists are neither too wide nor, for what they refuse, needlessly narrow.
 * Nothing here needs ld.lld (objects only). Keep the data files and target.c's lists in step: every
 * listed intrinsic has a chunk. */
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/TargetMachine.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compiler/codegen/codegen.h"
#include "compiler/target/target.h"


#include "tests/unit/check.h"
#include "support/files.h"

#define DATA "tests/data/codegen/"

static char *slurp(const char *path)
{
    size_t len;
    int err;
    return rt_read_file(path, (size_t)1 << 30, &len, &err);
}

typedef struct Chunk {
    char name[128];   /* the intrinsic's base name */
    char header[256]; /* the whole header after "; ---- " */
    char targets[128];
    const char *text;
    size_t len;
} Chunk;

enum { MAX_CHUNKS = 256 };

/* Splits a data file at its "; ---- " lines. */
static int read_chunks(char *file, Chunk *out)
{
    int n = 0;
    const char *marker = "\n; ---- ";
    char *p = strstr(file, marker);
    while (p && n < MAX_CHUNKS) {
        char *h = p + strlen(marker);
        char *eol = strchr(h, '\n');
        if (!eol)
            break;
        Chunk *c = &out[n++];
        snprintf(c->header, sizeof c->header, "%.*s", (int)(eol - h), h);
        char *colon = strchr(c->header, ':');
        snprintf(c->targets, sizeof c->targets, "%s", colon ? colon + 1 : "");
        size_t nl = strcspn(c->header, " :");
        snprintf(c->name, sizeof c->name, "%.*s", (int)nl, c->header);
        c->text = eol + 1;
        p = strstr(eol, marker);
        c->len = p ? (size_t)(p - c->text) : strlen(c->text);
    }
    return n;
}

static bool listed(const Chunk *c, const char *target)
{
    char padded[160];
    snprintf(padded, sizeof padded, "%s ", c->targets);
    char want[32];
    snprintf(want, sizeof want, " %s ", target);
    return strstr(padded, want) != NULL;
}

static LLVMModuleRef parse(LLVMContextRef ctx, const Chunk *c)
{
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(c->text, c->len, c->name);
    LLVMModuleRef m = NULL;
    char *msg = NULL;
    if (LLVMParseIRInContext2(ctx, buf, &m, &msg)) {
        fprintf(stderr, "%s: does not parse: %s\n", c->header, msg);
        m = NULL;
    }
    LLVMDisposeMessage(msg);
    LLVMDisposeMemoryBuffer(buf);
    return m;
}

/* What LLVM does with the chunk when nothing stops it: compiled in a child process, since the
 * answer may be an abort. Returns 0 (compiled), 1 (failed cleanly) or the signal that killed it. */
static int llvm_alone(const Target *t, const Chunk *c)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr))
            _exit(3);
        LLVMContextRef ctx = LLVMContextCreate();
        LLVMModuleRef m = parse(ctx, c);
        LLVMTargetRef tt;
        char *msg;
        if (!m || LLVMGetTargetFromTriple(t->triple, &tt, &msg))
            _exit(2);
        LLVMSetTarget(m, t->triple);
        LLVMTargetMachineRef tm = LLVMCreateTargetMachine(tt, t->triple, t->cpu, t->features, LLVMCodeGenLevelDefault,
                                                          LLVMRelocDefault, LLVMCodeModelDefault);
        LLVMMemoryBufferRef out;
        LLVMCodeGenFileType type = t->kind == TARGET_NVPTX ? LLVMAssemblyFile : LLVMObjectFile;
        _exit(LLVMTargetMachineEmitToMemoryBuffer(tm, m, type, &msg, &out) ? 1 : 0);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return -1;
    if (WIFSIGNALED(status))
        return WTERMSIG(status);
    return WEXITSTATUS(status) == 0 ? 0 : 1;
}

/* Chunks LLVM compiles although rk refuses them (the reasons are in target.c). */
static bool known_silent(const Chunk *c, const Target *t)
{
    if (strncmp(c->name, "llvm.amdgcn.cvt.scalef32.", 25) == 0 && t->kind == TARGET_AMDGPU)
        return true; /* selects on gfx90a/gfx942: an instruction they do not have */
    return false;
}

typedef struct Tally {
    int compiled, refused, aborts, fails, silent;
} Tally;

static void check_file(const char *path, const char *const *own, int nown, const char *const *others, int nothers,
                       Tally *tally)
{
    char *file = slurp(path);
    if (!file) {
        CHECK(0, "cannot read %s: run from the repository root", path);
        return;
    }
    static Chunk chunks[MAX_CHUNKS];
    int n = read_chunks(file, chunks);
    CHECK(n > 10, "%s: %d chunks", path, n);
    for (int i = 0; i < n; i++) {
        const Chunk *c = &chunks[i];
        for (int k = 0; k < nown; k++) {
            const Target *t = target_find(own[k]);
            Arena a;
            arena_init(&a, arena_default_allocator);
            LLVMContextRef ctx = LLVMContextCreate();
            LLVMModuleRef m = parse(ctx, c);
            CHECK(m, "%s", c->header);
            if (m) {
                CodegenResult r;
                const char *err = NULL;
                unsigned want = t->kind == TARGET_NVPTX ? CG_WANT_ASM : CG_WANT_OBJ;
                CgStatus st = codegen_module(t, m, 3, want, &a, &r, &err);
                if (listed(c, t->name)) {
                    CHECK(st == CG_OK, "%s on %s: %s", c->header, t->name, err);
                    tally->compiled++;
                } else {
                    const char *size = strstr(c->header, " size ");
                    char sized[64] = "";
                    if (size)
                        snprintf(sized, sizeof sized, "of %d bytes", atoi(size + 6));
                    CHECK(st == CG_ERR_INVALID && strstr(err, size ? sized : c->name), "%s on %s: status %d: %s",
                          c->header, t->name, st, err ? err : "");
                    tally->refused++;
                    int alone = llvm_alone(t, c);
                    if (alone == 0) {
                        tally->silent++;
                        CHECK(known_silent(c, t), "%s on %s: LLVM compiles it; allow it, or say why not", c->header,
                              t->name);
                    } else if (alone == 1) {
                        tally->fails++;
                    } else {
                        tally->aborts++;
                    }
                }
                LLVMDisposeModule(m);
            }
            LLVMContextDispose(ctx);
            arena_free(&a);
        }
        /* another architecture: refused by the allow-list alone (unless the chunk is that
         * architecture's own, like the file's one llvm.nvvm chunk, which sm_90 accepts) */
        for (int k = 0; k < nothers; k++) {
            const Target *t = target_find(others[k]);
            const char *own_prefix = t->kind == TARGET_NVPTX ? "llvm.nvvm." : "llvm.amdgcn.";
            if (t->kind != TARGET_EMU && strncmp(c->name, own_prefix, strlen(own_prefix)) == 0)
                continue;
            Arena a;
            arena_init(&a, arena_default_allocator);
            LLVMContextRef ctx = LLVMContextCreate();
            LLVMModuleRef m = parse(ctx, c);
            const char *msg = NULL;
            CHECK(m && !target_check_module(t, m, &a, &msg) && strstr(msg, c->name), "%s on %s: %s", c->header,
                  t->name, msg ? msg : "accepted");
            if (m)
                LLVMDisposeModule(m);
            LLVMContextDispose(ctx);
            arena_free(&a);
        }
    }
    free(file);
}

/* The cases the brief names, spelt out. */
static void test_named_cases(void)
{
    Arena a;
    arena_init(&a, arena_default_allocator);
    const Target *g90a = target_find("gfx90a"), *g942 = target_find("gfx942"), *g950 = target_find("gfx950");
    CHECK(!target_supports_intrinsic(g90a, "llvm.amdgcn.mfma.f32.16x16x8.xf32"), "xf32 on gfx90a");
    CHECK(!target_supports_intrinsic(g950, "llvm.amdgcn.mfma.f32.16x16x8.xf32"), "xf32 on gfx950");
    CHECK(target_supports_intrinsic(g942, "llvm.amdgcn.mfma.f32.16x16x8.xf32"), "xf32 on gfx942");
    CHECK(!target_supports_intrinsic(g90a, "llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8"), "fp8 on gfx90a");
    CHECK(target_supports_intrinsic(g90a, "llvm.amdgcn.mfma.i32.16x16x16i8"), "old i8 on gfx90a");
    CHECK(!target_supports_intrinsic(g942, "llvm.amdgcn.mfma.i32.16x16x16i8"), "old i8 on gfx942");
    CHECK(!target_supports_intrinsic(g942, "llvm.amdgcn.cvt.scalef32.pk.fp8.f32"), "scalef32 on gfx942");
    CHECK(!target_supports_intrinsic(g950, "llvm.amdgcn.s.barrier.signal"), "barrier.signal");
    /* global.load.lds: 16 bytes is gfx950 only */
    LLVMContextRef ctx = LLVMContextCreate();
    const char *ir = "declare void @llvm.amdgcn.global.load.lds(ptr addrspace(1), ptr addrspace(3), i32, i32, i32)\n"
                     "define amdgpu_kernel void @k(ptr addrspace(1) %g, ptr addrspace(3) %l) {\n"
                     "  call void @llvm.amdgcn.global.load.lds(ptr addrspace(1) %g, ptr addrspace(3) %l, i32 16, i32 0, i32 0)\n"
                     "  call void @llvm.amdgcn.global.load.lds(ptr addrspace(1) %g, ptr addrspace(3) %l, i32 3, i32 0, i32 0)\n"
                     "  ret void\n}\n";
    Chunk c = {.name = "lds", .text = ir, .len = strlen(ir)};
    LLVMModuleRef m = parse(ctx, &c);
    const char *msg = NULL;
    CHECK(!target_check_module(g942, m, &a, &msg) && strstr(msg, "of 16 bytes is not supported on gfx942") &&
              strstr(msg, "of 3 bytes"), "%s", msg);
    CHECK(!target_check_module(g950, m, &a, &msg) && !strstr(msg, "of 16") && strstr(msg, "of 3 bytes"), "%s", msg);
    LLVMDisposeModule(m);
    /* a name under llvm. that is no intrinsic; many problems, each on its line */
    ir = "declare i32 @llvm.amdgcn.bogus.thing(i32)\n"
         "declare i32 @llvm.amdgcn.permlanex16.i32(i32, i32, i32, i32, i1, i1)\n"
         "define amdgpu_kernel void @k(ptr addrspace(1) %o, i32 %x) {\n"
         "  %a = call i32 @llvm.amdgcn.bogus.thing(i32 %x)\n"
         "  %b = call i32 @llvm.amdgcn.permlanex16.i32(i32 %a, i32 %x, i32 0, i32 0, i1 false, i1 false)\n"
         "  store i32 %b, ptr addrspace(1) %o\n  ret void\n}\n";
    c = (Chunk){.name = "bogus", .text = ir, .len = strlen(ir)};
    m = parse(ctx, &c);
    CHECK(!target_check_module(g942, m, &a, &msg) &&
              strstr(msg, "llvm.amdgcn.bogus.thing is not an intrinsic that LLVM 22 knows\n") &&
              strstr(msg, "intrinsic llvm.amdgcn.permlanex16 is not supported on gfx942"), "%s", msg);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    arena_free(&a);
}

int main(void)
{
    codegen_init_llvm();
    test_named_cases();
    Tally gfx = {0}, ptx = {0};
    const char *const gpus[] = {"gfx90a", "gfx942", "gfx950"}, *const not_gfx[] = {"emu", "sm_90"};
    const char *const sm90[] = {"sm_90"}, *const not_sm90[] = {"gfx942", "emu"};
    check_file(DATA "intrinsics.ll", gpus, 3, not_gfx, 2, &gfx);
    check_file(DATA "intrinsics_nvptx.ll", sm90, 1, not_sm90, 2, &ptx);
    printf("  gfx9: %d compiled, %d refused (LLVM alone: %d abort or crash, %d fail cleanly, %d compile)\n",
           gfx.compiled, gfx.refused, gfx.aborts, gfx.fails, gfx.silent);
    printf("  sm_90: %d compiled, %d refused (LLVM alone: %d abort or crash, %d fail cleanly, %d compile)\n",
           ptx.compiled, ptx.refused, ptx.aborts, ptx.fails, ptx.silent);
    codegen_release_cache();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_codegen_allow: ok\n");
    return 0;
}
