/* Tests of the target table and of code generation (compiler/target, compiler/codegen).
 *
 * Modules are built through the LLVM C API, as the lowering will build them, and compiled by
 * codegen_module. The outputs are checked by independent means: the ELF headers by hand, the code
 * objects through the ISA report (compiler/target/amdgpu: its disassembler gives the instruction mix and the MFMA
 * mnemonics, which are compared with the emulator's names for each MfmaOp), the emu shared
 * object by dlopen'ing it and running it for fake lanes with a stub EmuFns. Then every refusal:
 * invalid modules, an MFMA the target lacks, an external call, a forged CPU, LDS over the limit
 * (LLVM's error, caught instead of exit(1)), a missing or failing ld.lld. Then threads, and the
 * timings the driver's budget depends on (printed). Skips (77) without ld.lld from LLVM 22.
 * tests/unit/test_codegen_allow.c checks the intrinsic allow-lists one intrinsic at a time. */
#include <dlfcn.h>
#include <fcntl.h>
#include <llvm-c/Core.h>
#include <llvm-c/Linker.h>
#include <llvm-c/TargetMachine.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compiler/codegen/codegen.h"
#include "compiler/target/amdgpu/report.h"
#include "compiler/target/target.h"
#include "isa/emu_abi.h"
#include "runtime/emu/mfma_ref.h"


#include "tests/unit/check.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* ---- module builders ---------------------------------------------------------------------------- */

static LLVMValueRef intrinsic(LLVMModuleRef m, const char *name, LLVMTypeRef *fty)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    if (!id) {
        fprintf(stderr, "LLVM does not know %s\n", name);
        abort();
    }
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(m, id, NULL, 0);
    *fty = LLVMGlobalGetValueType(f);
    return f;
}

/* A kernel `name(ptr addrspace(global) out)`: out[tid] = tid * 2, tid from the target's lane id. */
static void add_store_kernel(LLVMModuleRef m, const Target *t, const char *name)
{
    LLVMContextRef c = LLVMGetModuleContext(m);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
    LLVMTypeRef gptr = LLVMPointerTypeInContext(c, t->as_global);
    LLVMValueRef f = LLVMAddFunction(m, name, LLVMFunctionType(LLVMVoidTypeInContext(c), &gptr, 1, 0));
    LLVMSetFunctionCallConv(f, t->kernel_cc);
    if (t->kind == TARGET_AMDGPU) {
        LLVMAttributeRef at = LLVMCreateStringAttribute(c, "amdgpu-flat-work-group-size", 27, "1,256", 5);
        LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, at);
    }
    LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, "entry"));
    LLVMTypeRef fty;
    LLVMValueRef tidf = intrinsic(m, t->kind == TARGET_NVPTX ? "llvm.nvvm.read.ptx.sreg.tid.x" : "llvm.amdgcn.workitem.id.x",
                                  &fty);
    LLVMValueRef tid = LLVMBuildCall2(b, fty, tidf, NULL, 0, "tid");
    LLVMValueRef v = LLVMBuildMul(b, tid, LLVMConstInt(i32, 2, 0), "v");
    LLVMValueRef p = LLVMBuildGEP2(b, i32, LLVMGetParam(f, 0), &tid, 1, "p");
    LLVMBuildStore(b, v, p);
    LLVMBuildRetVoid(b);
    LLVMDisposeBuilder(b);
}

static LLVMModuleRef store_module(LLVMContextRef c, const Target *t, const char *name)
{
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("store", c);
    add_store_kernel(m, t, name);
    return m;
}

/* The target's MFMA ops as a set: bit op for MfmaOp op. */
static uint32_t mfma_ops(const Target *t)
{
    uint32_t set = 0;
    for (int op = 0; op < MFMA_COUNT; op++)
        if (target_has_mfma(t, (MfmaOp)op))
            set |= 1u << op;
    return set;
}

/* One kernel per MFMA op of the target: mfma_<op>(out, a, b, c) stores the intrinsic's result. */
static LLVMModuleRef mfma_module(LLVMContextRef c, const Target *t, uint32_t ops)
{
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("mfma", c);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
    for (int op = 0; op < MFMA_COUNT; op++) {
        if (!(ops & (1u << op)))
            continue;
        LLVMTypeRef fty;
        LLVMValueRef mf = intrinsic(m, target_mfma_intrinsic((MfmaOp)op), &fty);
        LLVMTypeRef pt[6];
        LLVMGetParamTypes(fty, pt);
        LLVMTypeRef kp[4] = {LLVMPointerTypeInContext(c, t->as_global), pt[0], pt[1], pt[2]};
        char name[32];
        snprintf(name, sizeof name, "mfma_%d", op);
        LLVMValueRef f = LLVMAddFunction(m, name, LLVMFunctionType(LLVMVoidTypeInContext(c), kp, 4, 0));
        LLVMSetFunctionCallConv(f, t->kernel_cc);
        LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, "entry"));
        LLVMValueRef args[6] = {LLVMGetParam(f, 1), LLVMGetParam(f, 2), LLVMGetParam(f, 3),
                                LLVMConstInt(i32, 0, 0), LLVMConstInt(i32, 0, 0), LLVMConstInt(i32, 0, 0)};
        LLVMValueRef r = LLVMBuildCall2(b, fty, mf, args, 6, "d");
        LLVMBuildStore(b, r, LLVMGetParam(f, 0));
        LLVMBuildRetVoid(b);
    }
    LLVMDisposeBuilder(b);
    return m;
}

/* The emu ABI: void k(const void *kernarg, EmuLane *lane). kernarg holds one pointer `out`;
 * out[lane] = lane * 2 + 1000 * wg[0], after calling lane->fns->barrier(lane). With `libm`, the
 * value is exp2(lane) instead, through llvm.exp2.f32 (a call to exp2f resolved at dlopen). */
static LLVMModuleRef emu_module(LLVMContextRef c, const char *name, bool libm)
{
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("emu", c);
    LLVMTypeRef i8 = LLVMInt8TypeInContext(c), i32 = LLVMInt32TypeInContext(c), ptr = LLVMPointerTypeInContext(c, 0);
    LLVMTypeRef f32 = LLVMFloatTypeInContext(c);
    LLVMTypeRef params[2] = {ptr, ptr};
    LLVMValueRef f = LLVMAddFunction(m, name, LLVMFunctionType(LLVMVoidTypeInContext(c), params, 2, 0));
    LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, "entry"));
    LLVMValueRef kernarg = LLVMGetParam(f, 0), lane = LLVMGetParam(f, 1);
#define FIELD(base, off) LLVMBuildGEP2(b, i8, (base), (LLVMValueRef[]){LLVMConstInt(i32, (off), 0)}, 1, "")
    LLVMValueRef out = LLVMBuildLoad2(b, ptr, kernarg, "out");
    LLVMValueRef lid = LLVMBuildLoad2(b, i32, FIELD(lane, offsetof(EmuLane, lane)), "lid");
    LLVMValueRef wg = LLVMBuildLoad2(b, i32, FIELD(lane, offsetof(EmuLane, wg)), "wg");
    LLVMValueRef fns = LLVMBuildLoad2(b, ptr, FIELD(lane, offsetof(EmuLane, fns)), "fns");
    LLVMValueRef barrier = LLVMBuildLoad2(b, ptr, FIELD(fns, offsetof(EmuFns, barrier)), "barrier");
    LLVMTypeRef bty = LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0);
    LLVMBuildCall2(b, bty, barrier, &lane, 1, "");
#undef FIELD
    LLVMValueRef v;
    if (libm) {
        unsigned id = LLVMLookupIntrinsicID("llvm.exp2", 9);
        LLVMValueRef e = LLVMGetIntrinsicDeclaration(m, id, &f32, 1);
        LLVMValueRef x = LLVMBuildUIToFP(b, lid, f32, "x");
        v = LLVMBuildCall2(b, LLVMIntrinsicGetType(c, id, &f32, 1), e, &x, 1, "e");
    } else {
        v = LLVMBuildAdd(b, LLVMBuildMul(b, lid, LLVMConstInt(i32, 2, 0), ""),
                         LLVMBuildMul(b, wg, LLVMConstInt(i32, 1000, 0), ""), "v");
    }
    LLVMValueRef p = LLVMBuildGEP2(b, libm ? f32 : i32, out, &lid, 1, "p");
    LLVMBuildStore(b, v, p);
    LLVMBuildRetVoid(b);
    LLVMDisposeBuilder(b);
    return m;
}

/* ---- checks on outputs -------------------------------------------------------------------------- */

static bool has(const char *text, const char *needle) { return text && strstr(text, needle) != NULL; }

/* ELF64 header fields: e_ident[EI_ABIVERSION], e_type, e_machine. */
static void elf_header(const void *p, size_t n, int *abiver, int *type, int *machine)
{
    const unsigned char *e = p;
    *abiver = *type = *machine = -1;
    if (!p || n < 64 || memcmp(e, "\177ELF", 4) != 0)
        return;
    *abiver = e[8];
    *type = e[16] | e[17] << 8;
    *machine = e[18] | e[19] << 8;
}

/* mnemonic with '_' removed and a trailing "1k" dropped: v_mfma_f32_16x16x16bf16_1k (gfx90a's
 * spelling) and v_mfma_f32_16x16x16_bf16 (the emulator's, CDNA3's) become the same */
static void normalize(const char *s, char *out, size_t n)
{
    size_t j = 0;
    for (; *s && j + 1 < n; s++)
        if (*s != '_')
            out[j++] = *s;
    out[j] = 0;
    if (j >= 2 && strcmp(out + j - 2, "1k") == 0)
        out[j - 2] = 0;
}

/* ---- tests -------------------------------------------------------------------------------------- */

static void test_table(void)
{
    CHECK(target_default() == target_find("gfx942"), "default");
    CHECK(target_count() == 6, "%d targets", target_count());
    for (int i = 0; i < target_count(); i++) {
        const Target *t = target_at(i);
        CHECK(target_find(t->name) == t, "%s", t->name);
        CHECK(has(target_names(), t->name), "%s missing from target_names", t->name);
    }
    CHECK(target_at(6) == NULL && target_at(-1) == NULL, "out of range");
    CHECK(!target_find("gfx999") && !target_find("") && !target_find(NULL) && !target_find("GFX942"), "unknown");
    const Target *g942 = target_find("gfx942"), *g90a = target_find("gfx90a"), *g950 = target_find("gfx950");
    const Target *emu = target_find("emu"), *sm90 = target_find("sm_90");
    CHECK(g942->lds_bytes == 65536 && g90a->lds_bytes == 65536 && g950->lds_bytes == 163840, "lds");
    CHECK(g950->lds_granule == 1280 && g942->lds_granule == 512, "lds granule");
    CHECK(g942->wave_size == 64 && emu->wave_size == EMU_WAVE && sm90->wave_size == 32, "wave size");
    CHECK(sm90->lds_bytes_default == 48 * 1024 && sm90->lds_bytes == 227 * 1024 && sm90->lowering, "sm_90");
    CHECK(emu->kind == TARGET_EMU && strcmp(emu->arch, "gfx942") == 0 && mfma_ops(emu) == mfma_ops(g942), "emu");
    const Target *esm = target_find("emu_sm90");
    CHECK(esm && esm->kind == TARGET_EMU && strcmp(esm->arch, "sm_90") == 0 && esm->wave_size == 32 &&
              esm->lds_bytes == sm90->lds_bytes && mfma_ops(esm) == 0 && esm->lowering,
          "emu_sm90: sm_90's facts, emu's code generation");
    CHECK(g942->as_global == 1 && g942->as_lds == 3 && g942->kernel_cc == LLVMAMDGPUKERNELCallConv, "gfx942 as/cc");
    CHECK(g942->code_object_version == 500, "cov");
    /* the MFMA sets the brief names, checked op by op */
    CHECK(target_has_mfma(g942, MFMA_F32_16X16X8_XF32) && !target_has_mfma(g90a, MFMA_F32_16X16X8_XF32) &&
              !target_has_mfma(g950, MFMA_F32_16X16X8_XF32), "xf32: gfx942 only");
    CHECK(!target_has_mfma(g90a, MFMA_F32_16X16X32_FP8_FP8) && target_has_mfma(g950, MFMA_F32_16X16X32_FP8_FP8),
          "fp8");
    CHECK(target_has_mfma(g90a, MFMA_I32_16X16X16_I8) && !target_has_mfma(g942, MFMA_I32_16X16X16_I8) &&
              !target_has_mfma(g90a, MFMA_I32_16X16X32_I8), "i8 forms");
    CHECK(target_has_mfma(g950, MFMA_F32_32X32X16_BF16) && !target_has_mfma(g942, MFMA_F32_32X32X16_BF16), "wide");
    CHECK(!target_has_mfma(sm90, MFMA_F32_16X16X16_F16) && !target_has_mfma(g942, MFMA_COUNT), "none");
    for (int op = 0; op < MFMA_COUNT; op++) {
        const char *n = target_mfma_intrinsic((MfmaOp)op);
        CHECK(n && LLVMLookupIntrinsicID(n, strlen(n)) != 0, "op %d: %s is not an LLVM intrinsic", op, n);
    }
    CHECK(target_mfma_intrinsic(MFMA_COUNT) == NULL, "bad op");
    CHECK(target_supports_intrinsic(g942, "llvm.fma") && target_supports_intrinsic(emu, "llvm.exp2"), "generic");
    CHECK(!target_supports_intrinsic(emu, "llvm.amdgcn.workitem.id.x"), "emu has no amdgcn intrinsics");
    CHECK(!target_supports_intrinsic(g942, "llvm.nvvm.read.ptx.sreg.tid.x"), "nvvm on gfx942");
    CHECK(target_supports_intrinsic(sm90, "llvm.nvvm.read.ptx.sreg.tid.x"), "nvvm on sm_90");
    CHECK(!target_supports_intrinsic(g942, "llvm.amdgcn.bogus") && !target_supports_intrinsic(g942, "malloc"), "bogus");
    CHECK(!target_supports_intrinsic(NULL, "llvm.fma"), "null target");
    /* the same facts as the ISA report's occupancy model (compiler/target/amdgpu), which keeps its own table */
    for (int i = 0; i < 3; i++) {
        const Target *t = i == 0 ? g942 : i == 1 ? g90a : g950;
        const char *lim;
        int full = t->vgpr_file / t->max_waves_per_simd;
        CHECK(report_occupancy_for(t->cpu, full, 0, 0, 64, &lim) == t->max_waves_per_simd, "%s vgprs", t->name);
        CHECK(report_occupancy_for(t->cpu, full + 1, 0, 0, 64, &lim) == t->vgpr_file / (full + t->vgpr_granule),
              "%s granule", t->name);
        CHECK(report_occupancy_for(t->cpu, 32, 0, t->lds_bytes, 256, &lim) >= 1, "%s: all of the LDS", t->name);
        CHECK(report_occupancy_for(t->cpu, 32, 0, t->lds_bytes + 1, 256, &lim) == 0, "%s: LDS + 1", t->name);
    }
}

/* The store kernel on each GPU target, at -O0 and -O3: assembly, object and code object. */
static void test_gpu_kernel(const char *name, int opt)
{
    const Target *t = target_find(name);
    Arena a;
    arena_init(&a, arena_default_allocator);
    LLVMContextRef c = LLVMContextCreate();
    LLVMModuleRef m = store_module(c, t, "store2");
    CodegenResult r;
    const char *err = NULL;
    CgStatus st = codegen_module(t, m, opt, CG_WANT_ASM | CG_WANT_OBJ | CG_WANT_BINARY, &a, &r, &err);
    CHECK(st == CG_OK, "%s -O%d: %s", name, opt, err);
    CHECK(LLVMContextGetDiagnosticHandler(c) == NULL, "the context's handler is restored");
    if (st == CG_OK) {
        CHECK(has(r.asm_text, "global_store_dword") && has(r.asm_text, ".amdhsa_code_object_version 5"),
              "%s asm:\n%s", name, r.asm_text);
        int abiver, type, machine;
        elf_header(r.obj, r.obj_size, &abiver, &type, &machine);
        CHECK(type == 1 && machine == 224 && abiver == 3, "object: type %d machine %d abi %d", type, machine, abiver);
        elf_header(r.binary, r.binary_size, &abiver, &type, &machine);
        CHECK(type == 3 && machine == 224 && abiver == 3, "hsaco: type %d machine %d abi %d (3 = code object v5)",
              type, machine, abiver);
        CodeReport rep;
        const char *rerr;
        CHECK(report_code_object(&a, r.binary, r.binary_size, &rep, &rerr) == 0, "report: %s", rerr);
        if (rep.nkernels == 1) {
            KernelReport *k = &rep.kernels[0];
            CHECK(strcmp(rep.cpu, t->cpu) == 0, "cpu %s", rep.cpu);
            CHECK(strcmp(k->name, "store2") == 0 && k->global_stores[W32] == 1 && k->scratch_bytes == 0 &&
                      k->workgroup_size == 256 && k->wave_size == 64,
                  "%s: stores %d, scratch %d, wg %d", k->name, k->global_stores[W32], k->scratch_bytes,
                  k->workgroup_size);
        } else {
            CHECK(0, "%d kernels", rep.nkernels);
        }
        CHECK(r.t_opt_ms >= 0 && r.t_codegen_ms > 0 && r.t_link_ms > 0, "timings");
    }
    LLVMDisposeModule(m);
    LLVMContextDispose(c);
    arena_free(&a);
}

/* Every MFMA op of each target: compiled in one module, then each kernel's single MFMA mnemonic
 * compared with the emulator's name for the op. An op the target lacks is refused before LLVM. */
static void test_mfma(const char *name)
{
    const Target *t = target_find(name);
    Arena a;
    arena_init(&a, arena_default_allocator);
    LLVMContextRef c = LLVMContextCreate();
    LLVMModuleRef m = mfma_module(c, t, mfma_ops(t));
    CodegenResult r;
    const char *err = NULL;
    CgStatus st = codegen_module(t, m, 3, CG_WANT_BINARY, &a, &r, &err);
    CHECK(st == CG_OK, "%s: %s", name, err);
    CodeReport rep = {0};
    const char *rerr;
    if (st == CG_OK)
        CHECK(report_code_object(&a, r.binary, r.binary_size, &rep, &rerr) == 0, "report: %s", rerr);
    int seen = 0;
    for (int i = 0; i < rep.nkernels; i++) {
        KernelReport *k = &rep.kernels[i];
        int op = atoi(k->name + 5);
        char want[64], got[64];
        normalize(isa_mfma_info((MfmaOp)op)->name, want, sizeof want);
        normalize(k->nmfma == 1 ? k->mfma[0].mnemonic : "", got, sizeof got);
        CHECK(k->mfma_total == 1 && strcmp(want, got) == 0, "%s %s: %d MFMA, %s, want %s", name, k->name,
              k->mfma_total, k->nmfma ? k->mfma[0].mnemonic : "-", isa_mfma_info((MfmaOp)op)->name);
        seen++;
    }
    CHECK(seen == __builtin_popcount(mfma_ops(t)), "%s: %d kernels", name, seen);
    LLVMDisposeModule(m);
    /* each op the target lacks, alone: refused with the intrinsic's name, LLVM never runs */
    for (int op = 0; op < MFMA_COUNT; op++) {
        if (target_has_mfma(t, (MfmaOp)op))
            continue;
        m = mfma_module(c, t, 1u << op);
        st = codegen_module(t, m, 3, CG_WANT_OBJ, &a, &r, &err);
        CHECK(st == CG_ERR_INVALID && has(err, target_mfma_intrinsic((MfmaOp)op)) && has(err, name),
              "%s op %d: status %d: %s", name, op, st, st ? err : "");
        LLVMDisposeModule(m);
    }
    LLVMContextDispose(c);
    arena_free(&a);
}

/* Stub emulator services for calling emu code directly. */
static int barrier_calls;
static void stub_barrier(EmuLane *l)
{
    (void)l;
    __atomic_add_fetch(&barrier_calls, 1, __ATOMIC_RELAXED);
}

/* dlopen's the .so from a file and returns k, or NULL. */
static void *load_so(const void *bin, size_t size, const char *sym, void **handle)
{
    char path[] = "/tmp/rk_cg_so_XXXXXX";
    *handle = NULL;
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    bool ok = write(fd, bin, size) == (ssize_t)size;
    close(fd);
    *handle = ok ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!*handle)
        fprintf(stderr, "dlopen: %s\n", dlerror());
    unlink(path);
    return *handle ? dlsym(*handle, sym) : NULL;
}

static bool run_emu_lanes(EmuKernelFn k, int wg, bool libm)
{
    static const EmuFns fns = {.barrier = stub_barrier};
    union {
        int32_t i[EMU_WAVE];
        float f[EMU_WAVE];
    } out;
    memset(&out, 0xff, sizeof out);
    void *kernarg[1] = {&out};
    barrier_calls = 0;
    for (uint32_t l = 0; l < EMU_WAVE; l++) {
        EmuLane lane = {.fns = &fns, .lane = l, .wg = {(uint32_t)wg, 0, 0}, .nwg = {4, 1, 1}, .block = EMU_WAVE};
        k(kernarg, &lane);
    }
    bool ok = barrier_calls == EMU_WAVE;
    for (int l = 0; l < EMU_WAVE; l++)
        ok = ok && (libm ? l >= 24 || out.f[l] == (float)(1u << l) : out.i[l] == l * 2 + 1000 * wg);
    return ok;
}

static void test_emu(int opt, bool libm)
{
    const Target *t = target_find("emu");
    Arena a;
    arena_init(&a, arena_default_allocator);
    LLVMContextRef c = LLVMContextCreate();
    LLVMModuleRef m = emu_module(c, "emu_k", libm);
    CodegenResult r;
    const char *err = NULL;
    CgStatus st = codegen_module(t, m, opt, CG_WANT_ASM | CG_WANT_BINARY, &a, &r, &err);
    CHECK(st == CG_OK, "emu -O%d: %s", opt, err);
    if (st == CG_OK) {
        int abiver, type, machine;
        elf_header(r.binary, r.binary_size, &abiver, &type, &machine);
        CHECK(type == 3 && machine == 62, "emu .so: type %d machine %d", type, machine);
        CHECK(has(r.asm_text, "emu_k:") && (!libm || has(r.asm_text, "exp2f")), "emu asm:\n%s", r.asm_text);
        void *h = NULL;
        EmuKernelFn k = (EmuKernelFn)(uintptr_t)load_so(r.binary, r.binary_size, "emu_k", &h);
        CHECK(k, "emu_k not found");
        if (k) {
            CHECK(run_emu_lanes(k, 0, libm), "emu -O%d results, wg 0", opt);
            CHECK(run_emu_lanes(k, 3, libm), "emu -O%d results, wg 3", opt);
        }
        if (h)
            dlclose(h);
    }
    LLVMDisposeModule(m);
    LLVMContextDispose(c);
    arena_free(&a);
}

static void test_sm90(void)
{
    const Target *t = target_find("sm_90");
    Arena a;
    arena_init(&a, arena_default_allocator);
    LLVMContextRef c = LLVMContextCreate();
    LLVMModuleRef m = store_module(c, t, "ptx_store");
    CodegenResult r;
    const char *err = NULL;
    CHECK(codegen_module(t, m, 3, CG_WANT_OBJ, &a, &r, &err) == CG_ERR_USAGE && has(err, "PTX"), "obj: %s", err);
    CgStatus st = codegen_module(t, m, 3, CG_WANT_ASM | CG_WANT_BINARY, &a, &r, &err);
    CHECK(st == CG_OK, "sm_90: %s", err);
    if (st == CG_OK) {
        CHECK(has(r.asm_text, ".target sm_90a") && has(r.asm_text, ".version 8.0") && has(r.asm_text, ".entry ptx_store"),
              "ptx:\n%s", r.asm_text);
        CHECK(r.binary_size == r.asm_size && memcmp(r.binary, r.asm_text, r.asm_size) == 0, "binary = PTX");
        const char *why;
        if (codegen_find_ptxas(&a, &why)) {
            void *cubin;
            size_t n;
            st = codegen_ptxas(t, r.asm_text, r.asm_size, &a, &cubin, &n, &err);
            int abiver, type, machine;
            elf_header(cubin, n, &abiver, &type, &machine);
            CHECK(st == CG_OK && machine == 190, "ptxas: %s (machine %d)", st ? err : "", machine);
            CHECK(codegen_ptxas(t, "garbage", 7, &a, &cubin, &n, &err) == CG_ERR_TOOL && has(err, "ptxas failed"),
                  "bad ptx: %s", err);
        } else {
            printf("  (no ptxas: %s)\n", why);
        }
    }
    LLVMDisposeModule(m);
    LLVMContextDispose(c);
    arena_free(&a);
}

/* Refusals, each with its message, none reaching LLVM's code generator. */
static void test_refusals(void)
{
    const Target *g942 = target_find("gfx942"), *g950 = target_find("gfx950"), *emu = target_find("emu");
    Arena a;
    arena_init(&a, arena_default_allocator);
    LLVMContextRef c = LLVMContextCreate();
    LLVMTypeRef i32 = LLVMInt32TypeInContext(c), f32 = LLVMFloatTypeInContext(c);
    CodegenResult r;
    const char *err;

    /* invalid module: a block without a terminator */
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("bad", c);
    LLVMValueRef f = LLVMAddFunction(m, "f", LLVMFunctionType(LLVMVoidTypeInContext(c), NULL, 0, 0));
    LLVMAppendBasicBlockInContext(c, f, "entry");
    CHECK(codegen_module(g942, m, 3, CG_WANT_OBJ, &a, &r, &err) == CG_ERR_INVALID &&
              has(err, "invalid LLVM module") && has(err, "does not have terminator"), "%s", err);
    LLVMDisposeModule(m);

    /* an intrinsic with the wrong type */
    m = LLVMModuleCreateWithNameInContext("badty", c);
    LLVMValueRef wi = LLVMAddFunction(m, "llvm.amdgcn.workitem.id.x", LLVMFunctionType(f32, NULL, 0, 0));
    f = LLVMAddFunction(m, "k", LLVMFunctionType(f32, NULL, 0, 0));
    LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, "entry"));
    LLVMBuildRet(b, LLVMBuildCall2(b, LLVMFunctionType(f32, NULL, 0, 0), wi, NULL, 0, ""));
    CHECK(codegen_module(g942, m, 3, CG_WANT_OBJ, &a, &r, &err) == CG_ERR_INVALID && has(err, "Intrinsic has incorrect"),
          "%s", err);
    LLVMDisposeModule(m);

    /* an external call: refused on the GPU, fine on emu (exp2f-like symbols resolve at dlopen) */
    for (int i = 0; i < 2; i++) {
        const Target *t = i ? emu : g942;
        m = LLVMModuleCreateWithNameInContext("call", c);
        LLVMTypeRef fty = LLVMFunctionType(f32, &f32, 1, 0);
        LLVMValueRef sinhf = LLVMAddFunction(m, "sinhf", fty);
        LLVMTypeRef ptr = LLVMPointerTypeInContext(c, t->as_global);
        LLVMTypeRef kp[2] = {ptr, f32};
        f = LLVMAddFunction(m, "k", LLVMFunctionType(LLVMVoidTypeInContext(c), kp, 2, 0));
        LLVMSetFunctionCallConv(f, t->kernel_cc);
        LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, "entry"));
        LLVMValueRef x = LLVMGetParam(f, 1);
        LLVMBuildStore(b, LLVMBuildCall2(b, fty, sinhf, &x, 1, ""), LLVMGetParam(f, 0));
        LLVMBuildRetVoid(b);
        CgStatus st = codegen_module(t, m, 3, CG_WANT_OBJ, &a, &r, &err);
        if (i)
            CHECK(st == CG_OK, "emu external call: %s", err);
        else
            CHECK(st == CG_ERR_INVALID && has(err, "'sinhf'") && has(err, "external function"), "%s", err);
        LLVMDisposeModule(m);
    }

    /* a forged target: an unknown CPU never reaches LLVM */
    Target forged = *g942;
    forged.cpu = "gfx999";
    m = store_module(c, g942, "k");
    CHECK(codegen_module(&forged, m, 3, CG_WANT_OBJ, &a, &r, &err) == CG_ERR_USAGE && has(err, "table"), "%s", err);
    /* nor through a function attribute */
    LLVMValueRef k = LLVMGetNamedFunction(m, "k");
    LLVMAddAttributeAtIndex(k, LLVMAttributeFunctionIndex, LLVMCreateStringAttribute(c, "target-cpu", 10, "gfx999", 6));
    CHECK(codegen_module(g942, m, 3, CG_WANT_OBJ, &a, &r, &err) == CG_ERR_INVALID && has(err, "gfx999"), "%s", err);
    LLVMDisposeModule(m);

    /* another target's triple */
    m = store_module(c, g942, "k");
    LLVMSetTarget(m, "x86_64-pc-linux-gnu");
    CHECK(codegen_module(g942, m, 3, CG_WANT_OBJ, &a, &r, &err) == CG_ERR_INVALID && has(err, "x86_64"), "%s", err);
    LLVMDisposeModule(m);

    /* bad arguments */
    m = store_module(c, g942, "k");
    CHECK(codegen_module(g942, m, 4, CG_WANT_OBJ, &a, &r, &err) == CG_ERR_USAGE, "O4");
    CHECK(codegen_module(g942, m, 3, 0, &a, &r, &err) == CG_ERR_USAGE, "nothing wanted");
    CHECK(codegen_module(NULL, m, 3, CG_WANT_OBJ, &a, &r, &err) == CG_ERR_USAGE, "no target");
    LLVMDisposeModule(m);

    /* LDS over the limit: LLVM's error diagnostic, which without rk's handler would exit(1) */
    for (int i = 0; i < 2; i++) {
        const Target *t = i ? g950 : g942;
        m = LLVMModuleCreateWithNameInContext("lds", c);
        LLVMTypeRef arr = LLVMArrayType2(f32, 20000);
        LLVMValueRef lds = LLVMAddGlobalInAddressSpace(m, arr, "lds", t->as_lds);
        LLVMSetInitializer(lds, LLVMGetUndef(arr));
        LLVMSetLinkage(lds, LLVMInternalLinkage);
        LLVMTypeRef kp[2] = {LLVMPointerTypeInContext(c, 1), i32};
        f = LLVMAddFunction(m, "k", LLVMFunctionType(LLVMVoidTypeInContext(c), kp, 2, 0));
        LLVMSetFunctionCallConv(f, t->kernel_cc);
        LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, "entry"));
        LLVMValueRef idx = LLVMGetParam(f, 1);
        LLVMValueRef p = LLVMBuildGEP2(b, f32, lds, &idx, 1, "");
        LLVMBuildStore(b, LLVMConstReal(f32, 1.0), p);
        LLVMValueRef q = LLVMBuildGEP2(b, f32, p, (LLVMValueRef[]){LLVMConstInt(i32, 7, 0)}, 1, "");
        LLVMBuildStore(b, LLVMBuildLoad2(b, f32, q, ""), LLVMGetParam(f, 0));
        LLVMBuildRetVoid(b);
        CgStatus st = codegen_module(t, m, 3, CG_WANT_OBJ, &a, &r, &err);
        if (i)
            CHECK(st == CG_OK, "gfx950 holds 80000 bytes of LDS: %s", err);
        else
            CHECK(st == CG_ERR_LLVM && has(err, "local memory (80000) exceeds limit (65536)"), "%d: %s", st, err);
        CHECK(LLVMContextGetDiagnosticHandler(c) == NULL, "handler restored after an error");
        LLVMDisposeModule(m);
    }
    /* a warning (a stack frame over "warn-stack-size") comes back in r.warnings, not on stderr */
    m = LLVMModuleCreateWithNameInContext("warn", c);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
    f = LLVMAddFunction(m, "w", LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0));
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateStringAttribute(c, "warn-stack-size", 15, "0", 1));
    unsigned noredzone = LLVMGetEnumAttributeKindForName("noredzone", 9); /* else a leaf has no frame */
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c, noredzone, 0));
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, "entry"));
    LLVMValueRef slot = LLVMBuildAlloca(b, i32, "slot");
    LLVMSetVolatile(LLVMBuildStore(b, LLVMConstInt(i32, 1, 0), slot), 1);
    LLVMBuildStore(b, LLVMBuildLoad2(b, i32, slot, ""), LLVMGetParam(f, 0));
    LLVMBuildRetVoid(b);
    CHECK(codegen_module(emu, m, 0, CG_WANT_OBJ, &a, &r, &err) == CG_OK && has(r.warnings, "stack frame size"),
          "warnings: %s", r.warnings ? r.warnings : "none");
    LLVMDisposeModule(m);
    LLVMDisposeBuilder(b);
    LLVMContextDispose(c);
    arena_free(&a);
}

/* ld.lld missing, failing, or writing to stderr: errors, never a crash. */
static void test_linker_errors(void)
{
    const Target *t = target_find("gfx942");
    Arena a;
    arena_init(&a, arena_default_allocator);
    LLVMContextRef c = LLVMContextCreate();
    CodegenResult r;
    const char *err;
    char *saved = getenv("RK_LLD") ? strdup(getenv("RK_LLD")) : NULL;

    setenv("RK_LLD", "/nonexistent/ld.lld", 1);
    /* a gfx code object is linked in process (compiler/codegen/elf_link.c): no ld.lld needed */
    LLVMModuleRef m = store_module(c, t, "k");
    CHECK(codegen_module(t, m, 3, CG_WANT_BINARY, &a, &r, &err) == CG_OK && r.binary, "%s", err);
    LLVMDisposeModule(m);
    /* the rest is about ld.lld, which RK_LINK=lld asks for */
    setenv("RK_LINK", "lld", 1);
    m = store_module(c, t, "k");
    CHECK(codegen_module(t, m, 3, CG_WANT_BINARY, &a, &r, &err) == CG_ERR_TOOL && has(err, "RK_LLD=/nonexistent"),
          "%s", err);
    LLVMDisposeModule(m);
    /* the object alone needs no linker */
    m = store_module(c, t, "k");
    CHECK(codegen_module(t, m, 3, CG_WANT_OBJ, &a, &r, &err) == CG_OK, "%s", err);
    LLVMDisposeModule(m);

    char script[] = "/tmp/rk_cg_lld_XXXXXX";
    int fd = mkstemp(script);
    const char *body = "#!/bin/sh\necho 'error: something about the input' >&2\nexit 3\n";
    CHECK(fd >= 0 && write(fd, body, strlen(body)) == (ssize_t)strlen(body), "script");
    close(fd);
    chmod(script, 0700);
    setenv("RK_LLD", script, 1);
    m = store_module(c, t, "k");
    CHECK(codegen_module(t, m, 3, CG_WANT_BINARY, &a, &r, &err) == CG_ERR_TOOL && has(err, "exit status 3") &&
              has(err, "something about the input"), "%s", err);
    LLVMDisposeModule(m);
    /* a tool that writes more than the message keeps: its first 4096 bytes (support's reader, head) */
    fd = open(script, O_WRONLY | O_TRUNC);
    body = "#!/bin/sh\necho 'error: the first line' >&2\ni=0\nwhile [ $i -lt 300 ]; do echo "
           "'padding padding padding padding' >&2; i=$((i+1)); done\nexit 3\n";
    CHECK(fd >= 0 && write(fd, body, strlen(body)) == (ssize_t)strlen(body), "script");
    close(fd);
    m = store_module(c, t, "k");
    CHECK(codegen_module(t, m, 3, CG_WANT_BINARY, &a, &r, &err) == CG_ERR_TOOL && has(err, "error: the first line") &&
              has(err, "padding") && strlen(err) < 4096 + 64,
          "%.200s (%zu bytes)", err, strlen(err));
    LLVMDisposeModule(m);
    unlink(script);

    unsetenv("RK_LINK");
    if (saved)
        setenv("RK_LLD", saved, 1);
    else
        unsetenv("RK_LLD");
    free(saved);
    /* an object that is not one: ld.lld's own message comes back */
    void *bin;
    size_t n;
    const void *objs[1] = {"not an object"};
    size_t sizes[1] = {13};
    CHECK(codegen_link(t, objs, sizes, 1, &a, &bin, &n, &err) == CG_ERR_TOOL && has(err, "ld.lld failed"), "%s", err);
    CHECK(codegen_link(target_find("sm_90"), objs, sizes, 1, &a, &bin, &n, &err) == CG_ERR_USAGE, "sm_90 link");
    LLVMContextDispose(c);
    arena_free(&a);
}

/* Several kernels in one code object (what --all-configs and a file of kernels need): for AMDGPU
 * through one LLVM module, or objects merged into one (whose metadata note lists every kernel) with
 * the same result; emu links several objects. */
/* CG_OPT_ONLY then CG_OPTIMISED (the two halves driver_kernels.c runs on different threads) give the
 * object one call gives, and the second half does not optimise again; the two flags together, or neither with no output, are usage errors. */
static void test_halves(void)
{
    const Target *g942 = target_find("gfx942");
    Arena a;
    arena_init(&a, arena_default_allocator);
    LLVMContextRef c = LLVMContextCreate();
    const char *err = NULL;
    CodegenResult whole, first, second;
    LLVMModuleRef m = mfma_module(c, g942, 1);
    CHECK(codegen_module(g942, m, 3, CG_WANT_OBJ, &a, &whole, &err) == CG_OK, "%s", err);
    LLVMDisposeModule(m);
    m = mfma_module(c, g942, 1);
    CHECK(codegen_module(g942, m, 3, CG_OPT_ONLY, &a, &first, &err) == CG_OK, "%s", err);
    CHECK(!first.obj && !first.asm_text && first.t_codegen_ms == 0, "CG_OPT_ONLY made output");
    CHECK(codegen_module(g942, m, 3, CG_WANT_OBJ | CG_OPTIMISED, &a, &second, &err) == CG_OK, "%s", err);
    CHECK(second.t_opt_ms == 0 && second.c_opt_ms == 0, "CG_OPTIMISED optimised again");
    CHECK(second.obj && whole.obj && second.obj_size == whole.obj_size &&
              memcmp(second.obj, whole.obj, whole.obj_size) == 0,
          "two halves differ from one call (%zu against %zu bytes)", second.obj_size, whole.obj_size);
    CHECK(codegen_module(g942, m, 3, CG_OPT_ONLY | CG_OPTIMISED, &a, &first, &err) == CG_ERR_USAGE, "both halves");
    CHECK(codegen_module(g942, m, 3, CG_OPTIMISED, &a, &first, &err) == CG_ERR_USAGE, "no output");
    LLVMDisposeModule(m);
    LLVMContextDispose(c);
    arena_free(&a);
}

static void test_link_many(void)
{
    const Target *g942 = target_find("gfx942"), *emu = target_find("emu");
    Arena a;
    arena_init(&a, arena_default_allocator);
    LLVMContextRef c = LLVMContextCreate();
    const void *objs[2];
    size_t sizes[2];
    const char *err;
    CodegenResult r;
    for (int i = 0; i < 2; i++) {
        LLVMModuleRef m = store_module(c, g942, i ? "second" : "first");
        CHECK(codegen_module(g942, m, 3, CG_WANT_OBJ, &a, &r, &err) == CG_OK, "%s", err);
        objs[i] = r.obj;
        sizes[i] = r.obj_size;
        LLVMDisposeModule(m);
    }
    void *bin = NULL;
    size_t n = 0;
    err = NULL;
    /* two objects: merged into one first (elf_merge.c), one metadata note listing both kernels */
    CodeReport rep2 = {0};
    CHECK(codegen_link(g942, objs, sizes, 2, &a, &bin, &n, &err) == CG_OK, "%s", err ? err : "");
    CHECK(bin && report_code_object(&a, bin, n, &rep2, &err) == 0 && rep2.nkernels == 2, "%d kernels", rep2.nkernels);
    LLVMModuleRef m = store_module(c, g942, "first"), m2 = store_module(c, g942, "second");
    CHECK(!LLVMLinkModules2(m, m2), "LLVMLinkModules2");
    CodeReport rep = {0};
    CHECK(codegen_module(g942, m, 3, CG_WANT_BINARY, &a, &r, &err) == CG_OK, "%s", err);
    CHECK(r.binary && report_code_object(&a, r.binary, r.binary_size, &rep, &err) == 0 && rep.nkernels == 2,
          "%d kernels", rep.nkernels);
    /* the same code object either way */
    CHECK(r.binary && bin && r.binary_size == n && memcmp(r.binary, bin, n) == 0,
          "two objects merged differ from one module (%zu against %zu bytes)", n, r.binary_size);
    LLVMDisposeModule(m);

    for (int i = 0; i < 2; i++) {
        m = emu_module(c, i ? "emu_second" : "emu_first", false);
        CHECK(codegen_module(emu, m, 3, CG_WANT_OBJ, &a, &r, &err) == CG_OK, "%s", err);
        objs[i] = r.obj;
        sizes[i] = r.obj_size;
        LLVMDisposeModule(m);
    }
    CHECK(codegen_link(emu, objs, sizes, 2, &a, &bin, &n, &err) == CG_OK, "%s", err);
    void *h = NULL;
    EmuKernelFn k = (EmuKernelFn)(uintptr_t)load_so(bin, n, "emu_second", &h);
    CHECK(k && dlsym(h, "emu_first") && run_emu_lanes(k, 1, false), "two objects in one .so");
    if (h)
        dlclose(h);
    LLVMContextDispose(c);
    arena_free(&a);
}

/* ---- threads ------------------------------------------------------------------------------------ */

typedef struct Job {
    const char *target;
    int rounds, ok;
} Job;

static void *compile_thread(void *p)
{
    Job *j = p;
    const Target *t = target_find(j->target);
    for (int i = 0; i < j->rounds; i++) {
        Arena a;
        arena_init(&a, arena_default_allocator);
        LLVMContextRef c = LLVMContextCreate();
        LLVMModuleRef m = t->kind == TARGET_EMU ? emu_module(c, "emu_k", false)
                          : i % 2 ? mfma_module(c, t, mfma_ops(t) & 0xf)
                                  : store_module(c, t, "k");
        CodegenResult r;
        const char *err;
        CgStatus st = codegen_module(t, m, 3, CG_WANT_ASM | CG_WANT_BINARY, &a, &r, &err);
        if (st == CG_OK && r.binary_size > 0 && r.asm_size > 0)
            j->ok++;
        else
            fprintf(stderr, "thread %s: %s\n", j->target, err);
        LLVMDisposeModule(m);
        LLVMContextDispose(c);
        arena_free(&a);
    }
    return NULL;
}

static void test_threads(void)
{
    Job jobs[4] = {{"gfx942", 4, 0}, {"gfx950", 4, 0}, {"emu", 4, 0}, {"gfx942", 4, 0}};
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, compile_thread, &jobs[i]);
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK(jobs[i].ok == jobs[i].rounds, "thread %d (%s): %d of %d", i, jobs[i].target, jobs[i].ok, jobs[i].rounds);
    }
}

/* ---- timings ------------------------------------------------------------------------------------ */

/* Prints the medians of each stage, for a fresh TargetMachine (every third compile) and a cached
 * one: the subtarget is built on a TargetMachine's first codegen, so the first compile pays more
 * than LLVMCreateTargetMachine alone. */
static void timings(const char *name)
{
    enum { N = 15 };
    const Target *t = target_find(name);
    double tm[N], cg_fresh[N], cg_cached[N], opt[N], link[N], total[N];
    int nf = 0, nc = 0;
    for (int i = 0; i < N; i++) {
        if (i % 3 == 0)
            codegen_release_cache();
        Arena a;
        arena_init(&a, arena_default_allocator);
        LLVMContextRef c = LLVMContextCreate();
        LLVMModuleRef m = t->kind == TARGET_EMU ? emu_module(c, "k", false) : store_module(c, t, "k");
        CodegenResult r;
        const char *err;
        double t0 = now_ms();
        CgStatus st = codegen_module(t, m, 3, CG_WANT_BINARY, &a, &r, &err);
        total[i] = now_ms() - t0;
        CHECK(st == CG_OK, "%s", err);
        if (!r.tm_cached) {
            tm[nf] = r.t_tm_ms;
            cg_fresh[nf++] = r.t_codegen_ms;
        } else {
            cg_cached[nc++] = r.t_codegen_ms;
        }
        opt[i] = r.t_opt_ms;
        link[i] = r.t_link_ms;
        LLVMDisposeModule(m);
        LLVMContextDispose(c);
        arena_free(&a);
    }
    printf("  %s small kernel, medians of %d: create TargetMachine %.2f ms; O3 %.2f ms; codegen %.2f ms with a "
           "fresh TargetMachine, %.2f ms with a cached one; link %.2f ms; whole call %.2f ms\n",
           name, N, median(tm, nf), median(opt, N), median(cg_fresh, nf), median(cg_cached, nc), median(link, N),
           median(total, N));
}

int main(void)
{
    Arena a;
    arena_init(&a, arena_default_allocator);
    const char *why;
    codegen_init_llvm();
    if (!codegen_find_lld(&a, &why)) {
        printf("skipped: %s\n", why);
        return 77;
    }
    arena_free(&a);
    test_table();
    const char *gpus[] = {"gfx942", "gfx90a", "gfx950"};
    for (int i = 0; i < 3; i++) {
        test_gpu_kernel(gpus[i], 0);
        test_gpu_kernel(gpus[i], 3);
        test_mfma(gpus[i]);
    }
    test_emu(0, false);
    test_emu(3, false);
    test_emu(3, true);
    test_sm90();
    test_refusals();
    test_linker_errors();
    test_link_many();
    test_halves();
    test_threads();
    timings("gfx942");
    timings("emu");
    codegen_release_cache();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_codegen: ok\n");
    return 0;
}
