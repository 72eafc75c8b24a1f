/* The frugal retry of autotuned variants (compiler/api/variants.c, phase 3). On gfx90a, examples/
 * matmul.tile in f16 with 64x128x256 tiles, 8 waves and 32x32 MFMA first spills 19 VGPRs (the
 * lowering's register estimate misses the pieces B is moved in), as rkc's first attempt does
 * (tests/golden/isa/frugal_retry.tile). Compiled as an autotuner's variant (code objects of groups, no
 * link_all) beside a config that does not spill, it must come back without spills: the code object
 * its group index names holds its symbol, frugal code without spills, and the other config keeps
 * its first code. Then the same two as one bundle's code object (link_all), generated again with the
 * frugal code. The code objects are read back with the ISA report, independently of the variants'
 * own counts. */
#include "compiler/api/variants.h"
#include "compiler/target/amdgpu/report.h"
#include "tests/unit/test_api_util.h"

static const Define spills[] = {{"T", "f16"},       {"BLOCK_M", "64"},  {"BLOCK_N", "128"},
                                {"BLOCK_K", "256"}, {"num_warps", "8"}, {"matrix_instr_nonkdim", "32"}};
static const Define clean[] = {{"T", "f16"}, {"BLOCK_M", "64"}, {"BLOCK_N", "64"}, {"BLOCK_K", "64"}, {"num_warps", "4"}};

/* The report of `symbol` in the set's code object `bin`; NULL where it is not there. */
static const KernelReport *find(Arena *a, const VariantSet *vs, int bin, const char *symbol)
{
    CodeReport rep;
    const char *err = NULL;
    if (bin < 0 || bin >= vs->nbins || report_code_object(a, vs->bins[bin], vs->sizes[bin], &rep, &err) != 0)
        return NULL;
    for (int k = 0; k < rep.nkernels; k++)
        if (rep.kernels[k].name && strcmp(rep.kernels[k].name, symbol) == 0)
            return &rep.kernels[k];
    return NULL;
}

static void run(rk_ctx *ctx, const CompileSetup *cs, bool link_all)
{
    Arena a;
    arena_init(&a, arena_default_allocator);
    Variant v[2] = {{.kernel = "matmul", .index = 0, .defs = spills, .ndefs = 6, .label = "spills"},
                    {.kernel = "matmul", .index = 1, .defs = clean, .ndefs = 5, .label = "clean"}};
    VariantSet vs = {.cs = cs, .v = v, .n = 2, .threads = 2, .group_max = 2, .link_all = link_all,
                     .lds_limit = 65536, .out = &a};
    CHECK(variants_build(ctx, &vs) == RK_OK);
    CHECK(v[0].state == VAR_OK && v[1].state == VAR_OK);
    CHECK(v[0].frugal && v[0].vgpr_spills == 0); /* kept the frugal code */
    CHECK(!v[1].frugal);                         /* nothing to retry */
    CHECK(vs.compiles == 3);                     /* two lowerings and one frugal one */
    CHECK(!link_all || vs.nbins == 1);
    for (int i = 0; i < 2; i++) {
        const KernelReport *kr = v[i].state == VAR_OK ? find(&a, &vs, v[i].group, v[i].symbol) : NULL;
        CHECK(kr != NULL);
        if (kr) {
            CHECK(kr->vgpr_spills == 0 && kr->scratch_bytes == 0);
            CHECK(kr->vgprs_total == v[i].regs.vgprs);
        }
        if (!kr)
            fprintf(stderr, "%s: no %s in code object %d of %d\n", link_all ? "bundle" : "groups", v[i].symbol,
                    v[i].group, vs.nbins);
    }
    variants_free(&vs);
    arena_free(&a);
}

int main(void)
{
    size_t len = 0;
    char *src = read_all("examples/matmul.tile", &len);
    if (!src) {
        fprintf(stderr, "run from the source tree: examples/matmul.tile not found\n");
        return 1;
    }
    rk_ctx_options o = {.device = "none"};
    rk_ctx *ctx;
    CHECK(rk_ctx_create(&o, &ctx) == RK_OK);
    CompileSetup cs;
    rk_compile_options co = {.filename = "examples/matmul.tile", .target = "gfx90a"};
    CHECK(compile_setup(ctx, src, len, &co, &cs) == RK_OK);
    cs.kernel = "matmul";
    run(ctx, &cs, false);
    run(ctx, &cs, true);
    rk_ctx_destroy(ctx);
    free(src);
    return api_finish("test_variants_frugal");
}
