/* The in-process linker (compiler/codegen/elf_link.c) against its oracle, ld.lld -shared.
 *
 * Every kernel of examples/, bench/kernels/, bench/vs_triton/kernels/ and tests/golden/isa/ is
 * compiled to a relocatable object for gfx942 (gfx90a and gfx950 for two of them), modules of 1 to 17
 * kernels are built through the C API (so .gnu.hash gets several buckets), and one object is re-laid
 * with its .text grown by chosen amounts, so the segments after it land at every kind of page offset
 * (the .dynamic ending on a page boundary, the text ending on one, ...). Each object is linked both
 * ways and the two code objects must agree structurally: the ELF header (but for where the section
 * headers start), every program header, every section header (name, type, flags, address, size,
 * link, info, alignment, entry size; the offset too for loaded sections) and every section's bytes,
 * all but .comment (ld.lld writes its version there). Both must also give the same ISA report.
 * Then the refusals: garbage, an undefined symbol, a relocation type it does not resolve; in each
 * case codegen_link falls back to ld.lld. Prints the median time of both links. Skips (77) without
 * ld.lld. */
#include <elf.h>
#include <llvm-c/Core.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compiler/codegen/codegen.h"
#include "compiler/driver/driver.h"
#include "compiler/target/amdgpu/report.h"
#include "compiler/target/target.h"

static int compared;

#include "tests/unit/check.h"

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

enum { MAX_TIMES = 256 };
static double t_inproc[MAX_TIMES], t_lld[MAX_TIMES];
static int ntimes;

/* ---- structural comparison ------------------------------------------------------------------- */

static Elf64_Shdr shdr(const unsigned char *f, const Elf64_Ehdr *eh, int i)
{
    Elf64_Shdr s;
    memcpy(&s, f + eh->e_shoff + (size_t)i * sizeof s, sizeof s);
    return s;
}

static const char *sec_name(const unsigned char *f, const Elf64_Ehdr *eh, const Elf64_Shdr *s)
{
    Elf64_Shdr st = shdr(f, eh, eh->e_shstrndx);
    return (const char *)f + st.sh_offset + s->sh_name;
}

/* Whether two code objects agree in everything but .comment and where the non-loaded sections lie. */
static bool same_code_object(const char *what, const unsigned char *a, size_t na, const unsigned char *b, size_t nb)
{
    compared++;
    Elf64_Ehdr ea, eb;
    if (na < sizeof ea || nb < sizeof eb) {
        fprintf(stderr, "%s: too short\n", what);
        return false;
    }
    memcpy(&ea, a, sizeof ea);
    memcpy(&eb, b, sizeof eb);
    Elf64_Ehdr ca = ea, cb = eb;
    ca.e_shoff = cb.e_shoff = 0;
    if (memcmp(&ca, &cb, sizeof ca) != 0) {
        fprintf(stderr, "%s: ELF headers differ\n", what);
        return false;
    }
    if (memcmp(a + ea.e_phoff, b + eb.e_phoff, (size_t)ea.e_phnum * sizeof(Elf64_Phdr)) != 0) {
        fprintf(stderr, "%s: program headers differ\n", what);
        return false;
    }
    for (int i = 0; i < ea.e_shnum; i++) {
        Elf64_Shdr sa = shdr(a, &ea, i), sb = shdr(b, &eb, i);
        const char *name = sec_name(a, &ea, &sa);
        if (strcmp(name, sec_name(b, &eb, &sb)) != 0) {
            fprintf(stderr, "%s: section %d is %s against ld.lld's %s\n", what, i, name, sec_name(b, &eb, &sb));
            return false;
        }
        bool comment = strcmp(name, ".comment") == 0;
        Elf64_Shdr xa = sa, xb = sb;
        if (!(sa.sh_flags & SHF_ALLOC))
            xa.sh_offset = xb.sh_offset = 0;
        if (comment)
            xa.sh_size = xb.sh_size = 0;
        if (memcmp(&xa, &xb, sizeof xa) != 0) {
            fprintf(stderr, "%s: the headers of %s differ\n", what, name);
            return false;
        }
        if (!comment && sa.sh_type != SHT_NOBITS && memcmp(a + sa.sh_offset, b + sb.sh_offset, sa.sh_size) != 0) {
            fprintf(stderr, "%s: the bytes of %s differ\n", what, name);
            return false;
        }
    }
    /* the same report: kernels, resources, instruction mix */
    Arena ar;
    arena_init(&ar, arena_default_allocator);
    CodeReport ra, rb;
    const char *err = NULL;
    bool ok = report_code_object(&ar, a, na, &ra, &err) == 0 && report_code_object(&ar, b, nb, &rb, &err) == 0 &&
              ra.nkernels == rb.nkernels && ra.nkernels > 0;
    if (!ok)
        fprintf(stderr, "%s: the reports differ or fail: %s\n", what, err ? err : "kernel counts");
    arena_free(&ar);
    return ok;
}

/* Links `obj` both ways and compares. */
static void check_object(const char *what, const void *obj, size_t size)
{
    Arena a;
    arena_init(&a, arena_default_allocator);
    const Target *t = target_find("gfx942");
    void *mine, *theirs;
    size_t nmine, ntheirs;
    const char *why = NULL, *err = NULL;
    double c0 = cpu_ms();
    bool ok = cg_elf_link(obj, size, &a, &mine, &nmine, &why);
    double c1 = cpu_ms(), tool = 0;
    const void *objs[1] = {obj};
    CgStatus st = codegen_link_lld(t, objs, &size, 1, &a, &theirs, &ntheirs, &err, &tool);
    double c2 = cpu_ms();
    if (ntimes < MAX_TIMES) {
        t_inproc[ntimes] = c1 - c0;
        t_lld[ntimes++] = c2 - c1 + tool;
    }
    CHECK(ok, "%s: the in-process linker refused: %s", what, why);
    CHECK(st == CG_OK, "%s: ld.lld: %s", what, err);
    if (ok && st == CG_OK)
        CHECK(same_code_object(what, mine, nmine, theirs, ntheirs), "%s differs from ld.lld's", what);
    arena_free(&a);
}

/* ---- objects ---------------------------------------------------------------------------------- */

/* The relocatable object of a .tile file, or NULL (a failure is reported). */
static void *compile_tile_kernel(Arena *a, const char *path, const char *target, const char *kernel, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        CHECK(f, "cannot read %s", path);
        return NULL;
    }
    static char src[1 << 20];
    size_t len = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    char *copy = arena_strndup(a, src, len);
    SrcMgr sm;
    src_init(&sm, a);
    Diags d;
    diags_init(&d, a, &sm);
    StrTab st;
    strtab_init(&st, a);
    DriverOptions o = {0};
    o.filename = path;
    o.source = copy;
    o.len = len;
    o.target = target;
    o.stdlib_dir = "stdlib";
    o.opt_level = 3;
    o.kernel = kernel;
    DriverResult r;
    if (!driver_compile(a, &st, &sm, &d, &o, STAGE_OBJ, &r)) {
        for (int i = 0; i < d.n; i++)
            fputs(diag_render(a, &d.items[i]), stderr);
        CHECK(0, "%s does not compile", path);
        return NULL;
    }
    *size = r.size;
    return r.binary;
}

static void *compile_tile(Arena *a, const char *path, const char *target, size_t *size)
{
    return compile_tile_kernel(a, path, target, NULL, size);
}

/* A module of n trivial kernels k0..k{n-1}: out[tid] = tid * (i + 1). */
static void *kernels_object(Arena *a, int n, size_t *size)
{
    const Target *t = target_find("gfx942");
    LLVMContextRef c = LLVMContextCreate();
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("many", c);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(c), gptr = LLVMPointerTypeInContext(c, 1);
    LLVMTypeRef tidty = LLVMFunctionType(i32, NULL, 0, 0);
    LLVMValueRef tidf = LLVMAddFunction(m, "llvm.amdgcn.workitem.id.x", tidty);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "kernel_number_%d", i);
        LLVMValueRef f = LLVMAddFunction(m, name, LLVMFunctionType(LLVMVoidTypeInContext(c), &gptr, 1, 0));
        LLVMSetFunctionCallConv(f, LLVMAMDGPUKERNELCallConv);
        LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, "entry"));
        LLVMValueRef tid = LLVMBuildCall2(b, tidty, tidf, NULL, 0, "tid");
        LLVMValueRef v = LLVMBuildMul(b, tid, LLVMConstInt(i32, (unsigned long long)i + 1, 0), "v");
        LLVMBuildStore(b, v, LLVMBuildGEP2(b, i32, LLVMGetParam(f, 0), &tid, 1, "p"));
        LLVMBuildRetVoid(b);
    }
    LLVMDisposeBuilder(b);
    CodegenResult r;
    const char *err = NULL;
    CgStatus st = codegen_module(t, m, 3, CG_WANT_OBJ, a, &r, &err);
    LLVMDisposeModule(m);
    LLVMContextDispose(c);
    CHECK(st == CG_OK, "%d kernels: %s", n, err);
    *size = r.obj_size;
    return st == CG_OK ? r.obj : NULL;
}

/* A copy of a relocatable object with its .text grown by `grow` bytes (s_nop 0, after the last
 * kernel): the sections behind it in the file move by `grow` rounded up to 16. */
static void *grow_text(Arena *a, const unsigned char *in, size_t size, uint64_t grow, size_t *out_size)
{
    Elf64_Ehdr eh;
    memcpy(&eh, in, sizeof eh);
    int text = -1;
    for (int i = 1; i < eh.e_shnum; i++) {
        Elf64_Shdr s = shdr(in, &eh, i);
        if (strcmp(sec_name(in, &eh, &s), ".text") == 0)
            text = i;
    }
    if (text < 0)
        return NULL;
    Elf64_Shdr ts = shdr(in, &eh, text);
    uint64_t cut = ts.sh_offset + ts.sh_size, shift = (grow + 15) / 16 * 16;
    unsigned char *out = arena_alloc(a, size + shift);
    memcpy(out, in, cut);
    for (uint64_t k = 0; k < grow; k += 4) {
        static const unsigned char nop[4] = {0x00, 0x00, 0x80, 0xbf};
        memcpy(out + cut + k, nop, 4);
    }
    memcpy(out + cut + shift, in + cut, size - cut);
    Elf64_Ehdr oh = eh;
    if (oh.e_shoff >= cut)
        oh.e_shoff += shift;
    memcpy(out, &oh, sizeof oh);
    for (int i = 1; i < eh.e_shnum; i++) {
        Elf64_Shdr s = shdr(in, &eh, i);
        if (i == text)
            s.sh_size += grow;
        else if (s.sh_offset >= cut && s.sh_type != SHT_NOBITS)
            s.sh_offset += shift;
        memcpy(out + oh.e_shoff + (size_t)i * sizeof s, &s, sizeof s);
    }
    *out_size = size + shift;
    return out;
}

/* ---- the tests -------------------------------------------------------------------------------- */

static void test_kernels(void)
{
    static const char *const files[] = {
        "examples/vecadd.tile", "examples/softmax.tile", "examples/layernorm.tile", "examples/matmul.tile",
        "examples/matmul_bias_gelu.tile", "examples/attention.tile", "examples/split_k.tile",
        "bench/kernels/softmax.tile", "bench/kernels/layernorm.tile", "bench/vs_triton/kernels/matmul.tile",
        "bench/vs_triton/kernels/softmax.tile", "bench/vs_triton/kernels/layernorm.tile",
        "bench/vs_triton/kernels/attention.tile", "tests/golden/isa/vadd.tile",
        "tests/golden/isa/rem_contiguity.tile",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        Arena a;
        arena_init(&a, arena_default_allocator);
        size_t n;
        void *obj = compile_tile(&a, files[i], "gfx942", &n);
        if (obj)
            check_object(files[i], obj, n);
        arena_free(&a);
    }
    static const char *const other[][2] = {{"examples/matmul.tile", "gfx90a"}, {"examples/attention.tile", "gfx950"}};
    for (int i = 0; i < 2; i++) {
        Arena a;
        arena_init(&a, arena_default_allocator);
        size_t n;
        void *obj = compile_tile(&a, other[i][0], other[i][1], &n);
        if (obj)
            check_object(other[i][1], obj, n);
        arena_free(&a);
    }
}

static void test_many_kernels(void)
{
    static const int counts[] = {1, 3, 7, 8, 12, 17};
    for (int i = 0; i < 6; i++) {
        Arena a;
        arena_init(&a, arena_default_allocator);
        size_t n;
        void *obj = kernels_object(&a, counts[i], &n);
        char what[64];
        snprintf(what, sizeof what, "%d kernels", counts[i]);
        if (obj)
            check_object(what, obj, n);
        arena_free(&a);
    }
}

/* .text sizes that put what follows it at the edges of a page */
static void test_text_sizes(void)
{
    Arena a;
    arena_init(&a, arena_default_allocator);
    size_t n;
    void *obj = compile_tile(&a, "examples/vecadd.tile", "gfx942", &n);
    void *bin;
    size_t nbin;
    const char *why;
    if (!obj || !cg_elf_link(obj, n, &a, &bin, &nbin, &why)) {
        CHECK(0, "vecadd does not link");
        arena_free(&a);
        return;
    }
    /* where the text and .dynamic end without growth, from the linked object */
    Elf64_Ehdr eh;
    memcpy(&eh, bin, sizeof eh);
    uint64_t text_end = 0, dyn_end = 0;
    for (int i = 1; i < eh.e_shnum; i++) {
        Elf64_Shdr s = shdr(bin, &eh, i);
        const char *name = sec_name(bin, &eh, &s);
        if (strcmp(name, ".text") == 0)
            text_end = s.sh_addr + s.sh_size;
        if (strcmp(name, ".dynamic") == 0)
            dyn_end = s.sh_addr + s.sh_size;
    }
    uint64_t grows[16];
    int ng = 0;
    grows[ng++] = 4;
    grows[ng++] = 0x1000 - text_end % 0x1000;             /* .text ends on a page boundary */
    grows[ng++] = (0x1000 - dyn_end % 0x1000) % 0x1000;   /* .dynamic ends on one: no relro padding */
    grows[ng++] = (0x1000 - dyn_end % 0x1000) % 0x1000 + 8;
    grows[ng++] = (0x1000 - dyn_end % 0x1000 + 0x1000 - 8) % 0x1000; /* one dynamic entry short of it */
    grows[ng++] = 0x1000 - text_end % 0x1000 + 4;
    grows[ng++] = 0x3004;
    grows[ng++] = 0x10000;
    for (int i = 0; i < ng; i++) {
        if (grows[i] == 0 || grows[i] % 4)
            continue;
        size_t gn;
        void *g = grow_text(&a, obj, n, grows[i], &gn);
        char what[64];
        snprintf(what, sizeof what, "vecadd with .text grown by 0x%llx", (unsigned long long)grows[i]);
        CHECK(g, "%s", what);
        if (g)
            check_object(what, g, gn);
    }
    arena_free(&a);
}

/* A copy of obj with the type of its first relocation changed to `type`. */
static void *retype_relocation(Arena *a, const unsigned char *in, size_t size, uint32_t type)
{
    unsigned char *out = arena_alloc(a, size);
    memcpy(out, in, size);
    Elf64_Ehdr eh;
    memcpy(&eh, in, sizeof eh);
    for (int i = 1; i < eh.e_shnum; i++) {
        Elf64_Shdr s = shdr(in, &eh, i);
        if (s.sh_type == SHT_RELA && s.sh_size >= sizeof(Elf64_Rela)) {
            Elf64_Rela r;
            memcpy(&r, in + s.sh_offset, sizeof r);
            r.r_info = ELF64_R_INFO(ELF64_R_SYM(r.r_info), type);
            memcpy(out + s.sh_offset, &r, sizeof r);
            return out;
        }
    }
    return NULL;
}

static void test_refusals(void)
{
    Arena a;
    arena_init(&a, arena_default_allocator);
    const Target *t = target_find("gfx942");
    void *bin;
    size_t nbin;
    const char *why = NULL, *err = NULL;
    CHECK(!cg_elf_link("not an object", 13, &a, &bin, &nbin, &why) && why, "garbage");
    const void *objs[1] = {"not an object"};
    size_t sizes[1] = {13};
    /* ld.lld gives its own message */
    CHECK(codegen_link(t, objs, sizes, 1, &a, &bin, &nbin, &err) == CG_ERR_TOOL && strstr(err, "ld.lld"), "%s", err);

    size_t n;
    void *obj = compile_tile(&a, "examples/vecadd.tile", "gfx942", &n);
    if (!obj) {
        arena_free(&a);
        return;
    }
    /* R_AMDGPU_ABS64 (3) would need a dynamic relocation: refused, and codegen_link falls back to
     * ld.lld, which refuses it as well, with its own message */
    void *abs = retype_relocation(&a, obj, n, 3);
    CHECK(abs && !cg_elf_link(abs, n, &a, &bin, &nbin, &why) && strstr(why, "relocation"), "%s", why);
    objs[0] = abs;
    sizes[0] = n;
    void *theirs;
    size_t ntheirs;
    CgStatus s1 = codegen_link(t, objs, sizes, 1, &a, &bin, &nbin, &err);
    const char *err1 = err;
    CgStatus s2 = codegen_link_lld(t, objs, sizes, 1, &a, &theirs, &ntheirs, &err, NULL);
    CHECK(s1 == s2 && (s1 != CG_OK || (nbin == ntheirs && memcmp(bin, theirs, nbin) == 0)) &&
              (s1 == CG_OK || (strstr(err1, "ld.lld") && strstr(err1, "R_AMDGPU_ABS64"))),
          "the fallback is ld.lld's link: %d %d %s", s1, s2, err1);
    /* an undefined symbol: ld.lld --no-undefined has the message for it */
    unsigned char *undef = arena_alloc(&a, n);
    memcpy(undef, obj, n);
    Elf64_Ehdr eh;
    memcpy(&eh, obj, sizeof eh);
    bool patched = false;
    for (int i = 1; i < eh.e_shnum && !patched; i++) {
        Elf64_Shdr s = shdr(obj, &eh, i);
        for (uint64_t k = s.sh_info; s.sh_type == SHT_SYMTAB && k < s.sh_size / sizeof(Elf64_Sym); k++) {
            Elf64_Sym sym;
            memcpy(&sym, undef + s.sh_offset + k * sizeof sym, sizeof sym);
            if (ELF64_ST_TYPE(sym.st_info) == STT_FUNC) {
                sym.st_shndx = SHN_UNDEF;
                sym.st_value = sym.st_size = 0;
                memcpy(undef + s.sh_offset + k * sizeof sym, &sym, sizeof sym);
                patched = true;
                break;
            }
        }
    }
    CHECK(patched && !cg_elf_link(undef, n, &a, &bin, &nbin, &why) && strstr(why, "undefined"), "%s", why);
    objs[0] = undef;
    CHECK(codegen_link(t, objs, sizes, 1, &a, &bin, &nbin, &err) == CG_ERR_TOOL && strstr(err, "undefined"), "%s",
          err);
    /* a truncated object */
    CHECK(!cg_elf_link(obj, n / 2, &a, &bin, &nbin, &why), "truncated");
    /* RK_LINK=lld: ld.lld's output (its .comment names LLD) */
    setenv("RK_LINK", "lld", 1);
    objs[0] = obj;
    sizes[0] = n;
    CHECK(codegen_link(t, objs, sizes, 1, &a, &bin, &nbin, &err) == CG_OK && memmem(bin, nbin, "LLD", 3),
          "RK_LINK=lld");
    unsetenv("RK_LINK");
    CHECK(codegen_link(t, objs, sizes, 1, &a, &bin, &nbin, &err) == CG_OK && memmem(bin, nbin, "Linker: rk", 10),
          "in process by default");
    arena_free(&a);
}

/* The object merger (elf_merge.c): each kernel of a file compiled alone, the objects merged, and the
 * merged object linked both ways (the same code object as ld.lld's); the result must be the bytes of
 * the file compiled in one module, and its report list the same kernels with the same resources and
 * instruction mix. */
static void test_merge(void)
{
    static const char *const files[] = {"examples/layernorm.tile", "examples/softmax.tile",
                                        "tests/data/three_kernels.tile"};
    for (size_t fi = 0; fi < sizeof files / sizeof files[0]; fi++) {
        Arena a;
        arena_init(&a, arena_default_allocator);
        size_t whole_size = 0;
        void *whole = compile_tile(&a, files[fi], "gfx942", &whole_size);
        CodeReport rw;
        const char *err = NULL;
        if (!whole || report_code_object(&a, whole, whole_size, &rw, &err) != 0) {
            CHECK(0, "%s: no report of the whole file: %s", files[fi], err ? err : "");
            arena_free(&a);
            continue;
        }
        int n = rw.nkernels;
        const void **objs = ARENA_ARRAY(&a, const void *, n);
        size_t *sizes = ARENA_ARRAY(&a, size_t, n);
        bool ok = true;
        for (int k = 0; k < n && ok; k++) {
            objs[k] = compile_tile_kernel(&a, files[fi], "gfx942", rw.kernels[k].name, &sizes[k]);
            ok = objs[k] != NULL;
        }
        void *merged = NULL;
        size_t merged_size = 0;
        const char *why = NULL;
        if (ok) {
            ok = cg_elf_merge(objs, sizes, n, &a, &merged, &merged_size, &why);
            CHECK(ok, "%s: the merger refused: %s", files[fi], why);
        }
        if (ok) {
            char what[256];
            snprintf(what, sizeof what, "%s, %d kernels merged", files[fi], n);
            check_object(what, merged, merged_size);
            void *bin = NULL;
            size_t bin_size = 0;
            const void *one = merged;
            CgStatus st = codegen_link(target_find("gfx942"), &one, &merged_size, 1, &a, &bin, &bin_size, &err);
            /* the same bytes as the one-module compile's code object */
            void *wbin = NULL;
            size_t wbin_size = 0;
            const void *wone = whole;
            CgStatus wst = codegen_link(target_find("gfx942"), &wone, &whole_size, 1, &a, &wbin, &wbin_size, &err);
            CHECK(st == CG_OK && wst == CG_OK && bin_size == wbin_size && memcmp(bin, wbin, bin_size) == 0,
                  "%s: the code object is not the one-module compile's (%zu bytes against %zu)", what, bin_size,
                  wbin_size);
            CodeReport rm;
            CHECK(st == CG_OK && report_code_object(&a, bin, bin_size, &rm, &err) == 0, "%s: %s", what, err);
            if (st == CG_OK && rm.nkernels == n) {
                for (int k = 0; k < n; k++) {
                    const KernelReport *x = &rw.kernels[k], *y = &rm.kernels[k];
                    CHECK(strcmp(x->name, y->name) == 0 && x->vgprs == y->vgprs && x->sgprs == y->sgprs &&
                              x->lds_bytes == y->lds_bytes && x->instructions == y->instructions &&
                              x->mfma_total == y->mfma_total && x->waitcnt == y->waitcnt && x->loop_instructions == y->loop_instructions,
                          "%s: kernel %d (%s) differs from the one-module compile", what, k, x->name);
                }
            } else {
                CHECK(0, "%s: %d kernels in the merged code object, %d in the whole", what, st == CG_OK ? rm.nkernels : -1,
                      n);
            }
        }
        arena_free(&a);
    }
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
    unsetenv("RK_LINK");
    test_kernels();
    test_many_kernels();
    test_text_sizes();
    test_merge();
    test_refusals();
    codegen_release_cache();
    if (ntimes > 0) {
        qsort(t_inproc, (size_t)ntimes, sizeof(double), cmp_double);
        qsort(t_lld, (size_t)ntimes, sizeof(double), cmp_double);
        printf("  %d code objects compared with ld.lld's; link CPU time, medians: in process %.3f ms, ld.lld %.1f ms\n",
               compared, t_inproc[ntimes / 2], t_lld[ntimes / 2]);
    }
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_elf_link: ok\n");
    return 0;
}
