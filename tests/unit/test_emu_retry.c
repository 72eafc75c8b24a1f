/* The emulator runs the lowering the GPU's code object holds (compiler/driver/driver.c, generate_best):
 * where gfx942's code is compiled again (a retry for its registers or its loop's cycles,
 * driver_frugal.c) and the second code kept, the emu target's code is lowered as that second code
 * was, judged by gfx942's code objects; where it is not kept, as written. Each config of
 * examples/matmul.tile below is compiled for gfx942 and for emu to the code object; the choice each
 * kernel was lowered with (DriverKernel.lowered) must be the same on both and the one expected:
 * bf16 128x64x128 with 8 waves and 32x32 MFMA, buffer addressing, with its drain's read-ahead past
 * its cap (faster by rk's loop model, tests/golden/isa/drain_deep_retry.tile); 32x256x64 the same
 * way first lowering (the deeper code is slower); 64x64x64 with 8 waves for 8 waves a SIMD and
 * 128x128x32 with 4 waves for 4 (tests/golden/isa/frugal_retry.tile STEP8, STEP4); the default
 * config as written. The sm_90 emulator has no code object to judge by: as written. A kernel whose
 * lowering reads no choice (examples/vecadd.tile: no dot, no LDS map) says so (DriverKernel.choice_read),
 * and the emulator's compile then makes no gfx942 code (a 10,000-line elementwise kernel's emu compile
 * stays 2 s instead of 90, tests/golden/reliability/long_program.tile), and another choice lowers it to
 * the same LLVM IR; matmul's reads it. The emulator's choice is made at the LLVM IR stage too, and in a
 * file of two kernels each kernel gets gfx942's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/driver/driver.h"
#include "support/arena.h"
#include "support/diag.h"
#include "tests/unit/check.h"

static char src[1 << 20];
static size_t src_len;
static const char *path = "examples/matmul.tile", *kernel = "matmul";

static bool read_source(const char *p)
{
    FILE *f = fopen(p, "rb");
    if (!f)
        return false;
    src_len = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    path = p;
    return true;
}

/* One compile of `path` (its kernel `kernel`, or every kernel where NULL) for target to `stop`, each
 * kernel lowered as `given` says (all zero: the driver chooses). Each kernel's choice into
 * out[0..*n) and whether its lowering read it into read[]; the LLVM IR (STAGE_LLVM) into *text,
 * malloc'ed, where text is not NULL. False where the compile failed. */
static bool compile_one(const char *target, const char *assume, const Define *defs, int ndefs, Stage stop,
                        LowerChoice given, LowerChoice *out, bool *read, int *n, char **text)
{
    Arena a;
    arena_init(&a, arena_default_allocator);
    SrcMgr sm;
    src_init(&sm, &a);
    Diags d;
    diags_init(&d, &a, &sm);
    StrTab st;
    strtab_init(&st, &a);
    DriverOptions o = {0};
    o.filename = path;
    o.source = arena_strndup(&a, src, src_len);
    o.len = src_len;
    o.target = target;
    o.stdlib_dir = "stdlib";
    o.opt_level = 3;
    o.kernel = kernel;
    o.assume = assume;
    o.defines = defs;
    o.ndefines = ndefs;
    o.lower = given;
    DriverResult r;
    bool ok = driver_compile(&a, &st, &sm, &d, &o, stop, &r);
    *n = 0;
    for (int k = 0; ok && k < r.nkernels && k < 4; k++, ++*n)
        out[k] = r.kernels[k].lowered, read[k] = r.kernels[k].choice_read;
    if (text)
        *text = ok && r.text ? strdup(r.text) : NULL;
    for (int i = 0; !ok && i < d.n; i++)
        fputs(diag_render(&a, &d.items[i]), stderr);
    arena_free(&a);
    return ok;
}

/* The choice the one kernel was lowered with for target (*read: whether its lowering read it); *ok
 * false where the compile failed. */
static LowerChoice lowered_read(const char *target, const char *assume, const Define *defs, int ndefs, bool *ok,
                                bool *read)
{
    LowerChoice c[4] = {{0}};
    bool r[4] = {false};
    int n;
    *ok = compile_one(target, assume, defs, ndefs, STAGE_BIN, (LowerChoice){0}, c, r, &n, NULL) && n == 1;
    *read = r[0];
    return c[0];
}

static LowerChoice lowered(const char *target, const char *assume, const Define *defs, int ndefs, bool *ok)
{
    bool read;
    return lowered_read(target, assume, defs, ndefs, ok, &read);
}

static const char *drain_name(DrainReach r)
{
    return r == DRAIN_DEEP ? "deep" : r == DRAIN_NONE ? "none" : "capped";
}

static void expect(const char *what, const char *assume, const Define *defs, int ndefs, LowerChoice want)
{
    bool ok_gpu, ok_emu;
    LowerChoice gpu = lowered("gfx942", assume, defs, ndefs, &ok_gpu);
    LowerChoice emu = lowered("emu", assume, defs, ndefs, &ok_emu);
    CHECK(ok_gpu && ok_emu, "%s: does not compile", what);
    const LowerChoice *got[2] = {&gpu, &emu};
    const char *on[2] = {"gfx942", "emu"};
    for (int i = 0; i < 2; i++)
        CHECK(lower_choice_same(got[i], &want),
              "%s on %s: lowered frugal %d waves %d drain %s, expected frugal %d waves %d drain %s", what, on[i],
              got[i]->frugal, got[i]->min_waves, drain_name(got[i]->drain), want.frugal, want.min_waves,
              drain_name(want.drain));
}

int main(void)
{
    if (!read_source("examples/matmul.tile")) {
        fprintf(stderr, "run from the source tree: examples/matmul.tile not found\n");
        return 1;
    }
    const char *buffers = "a<2G b<2G c<2G";
    const Define deep[] = {{"BLOCK_M", "128"}, {"BLOCK_N", "64"}, {"BLOCK_K", "128"}, {"num_warps", "8"},
                           {"matrix_instr_nonkdim", "32"}};
    const Define not_deep[] = {{"BLOCK_M", "32"}, {"BLOCK_N", "256"}, {"BLOCK_K", "64"}, {"num_warps", "8"},
                               {"matrix_instr_nonkdim", "32"}};
    const Define step8[] = {{"BLOCK_M", "64"}, {"BLOCK_N", "64"}, {"BLOCK_K", "64"}, {"num_warps", "8"},
                            {"matrix_instr_nonkdim", "32"}};
    const Define step4[] = {{"BLOCK_M", "128"}, {"BLOCK_N", "128"}, {"BLOCK_K", "32"}, {"num_warps", "4"}};
    expect("128x64x128 w8 k32", buffers, deep, 5, (LowerChoice){false, 0, DRAIN_DEEP});
    expect("32x256x64 w8 k32", buffers, not_deep, 5, (LowerChoice){0});
    expect("64x64x64 w8 k32", NULL, step8, 5, (LowerChoice){false, 8, DRAIN_CAPPED});
    expect("128x128x32 w4", NULL, step4, 4, (LowerChoice){false, 4, DRAIN_CAPPED});
    expect("default config", NULL, NULL, 0, (LowerChoice){0});
    bool ok;
    LowerChoice sm = lowered("emu_sm90", NULL, step4, 4, &ok);
    CHECK(ok && sm.frugal == false && sm.min_waves == 0 && sm.drain == DRAIN_CAPPED, "emu_sm90: lowered as written");
    /* the LLVM IR stage: the emulator's is judged there too (autotuned variants are lowered to it) */
    LowerChoice c[4];
    bool r[4];
    int n;
    CHECK(compile_one("emu", buffers, deep, 5, STAGE_LLVM, (LowerChoice){0}, c, r, &n, NULL) && n == 1 &&
              c[0].drain == DRAIN_DEEP,
          "emu --emit=llvm: lowered with the drain past its cap");
    /* two kernels of one file, each kept from its own retry in round 1 (the drain past its cap, and
     * the waves): each as on gfx942 */
    static char two[3 << 16];
    char *body = strstr(src, "\nkernel matmul(");
    const char *dflt = "const BLOCK_M: i32 = 128, const BLOCK_N: i32 = 128, const BLOCK_K: i32 = 64,";
    char *at = body ? strstr(body, dflt) : NULL;
    CHECK(body && at, "examples/matmul.tile: its kernel's signature changed");
    if (body && at) {
        int len = 0;
        len += snprintf(two + len, sizeof two - (size_t)len, "import \"std/pid\";\n");
        const char *spec[2][2] = {{"8, matrix_instr_nonkdim = 32) kernel mma(", "const BLOCK_M: i32 = 128, const BLOCK_N: i32 = 64, const BLOCK_K: i32 = 128,"},
                                  {"4) kernel mmb(", "const BLOCK_M: i32 = 128, const BLOCK_N: i32 = 128, const BLOCK_K: i32 = 32,"}};
        for (int k = 0; k < 2; k++)
            len += snprintf(two + len, sizeof two - (size_t)len, "@options(num_warps = %s%.*s%s%s\n", spec[k][0],
                            (int)(at - body - (int)strlen("\nkernel matmul(")), body + strlen("\nkernel matmul("),
                            spec[k][1], at + strlen(dflt));
        memcpy(src, two, (size_t)len + 1);
        src_len = (size_t)len;
        path = "two_kernels.tile";
        kernel = NULL;
        LowerChoice g[4], e[4];
        bool gr[4], er[4];
        int ng, ne;
        bool okg = compile_one("gfx942", buffers, NULL, 0, STAGE_BIN, (LowerChoice){0}, g, gr, &ng, NULL);
        bool oke = compile_one("emu", buffers, NULL, 0, STAGE_BIN, (LowerChoice){0}, e, er, &ne, NULL);
        CHECK(okg && oke && ng == 2 && ne == 2, "two kernels: compiled");
        for (int k = 0; okg && oke && k < 2 && k < ng && k < ne; k++)
            CHECK(lower_choice_same(&g[k], &e[k]), "two kernels: kernel %d lowered differently on emu", k);
        CHECK(ng == 2 && g[0].drain == DRAIN_DEEP && g[1].min_waves == 4, "two kernels: not the expected choices");
    }
    bool read = false;
    CHECK(read_source("examples/matmul.tile"), "examples/matmul.tile not found");
    path = "examples/matmul.tile";
    kernel = "matmul";
    lowered_read("emu", NULL, step4, 4, &ok, &read);
    CHECK(ok && read, "matmul on emu: its lowering reads the choice");
    kernel = "vecadd";
    CHECK(read_source("examples/vecadd.tile"), "examples/vecadd.tile not found");
    read = true;
    LowerChoice v = lowered_read("emu", NULL, NULL, 0, &ok, &read);
    CHECK(ok && !read && v.min_waves == 0 && !v.frugal && v.drain == DRAIN_CAPPED, "vecadd on emu: reads no choice");
    /* a lowering that read no choice is the same under any */
    char *plain = NULL, *other = NULL;
    compile_one("emu", NULL, NULL, 0, STAGE_LLVM, (LowerChoice){0}, c, r, &n, &plain);
    compile_one("emu", NULL, NULL, 0, STAGE_LLVM, (LowerChoice){true, 8, DRAIN_NONE}, c, r, &n, &other);
    CHECK(plain && other && strcmp(plain, other) == 0, "vecadd on emu: another choice lowered it differently");
    free(plain);
    free(other);
    if (failures)
        fprintf(stderr, "test_emu_retry: %d failed\n", failures);
    return failures != 0;
}
