/* The retry of autotuned variants that lost to their registers (compiler/api/variants.c, phase 3).
 * On gfx90a with buffer addressing, examples/matmul.tile in bf16 with 128x64x128 tiles, 2 waves, 3
 * stages and 32x32 MFMA first spills 17 VGPRs, as rkc's first attempt does
 * (tests/golden/isa/frugal_retry.tile): lowered again frugally it spills none. On gfx942, bf16
 * with 128x128x32 tiles and 4 waves first takes 136 VGPRs, 3 waves a SIMD: compiled as if it asked
 * for 4 (LowerChoice.min_waves, the first round) it takes at most 128 and runs 4. On gfx950 with
 * buffer addressing, bf16 with 64x256x128 tiles and 4 waves first takes 277 VGPRs, 1 wave a SIMD;
 * compiled for 2 waves (the first round) it does not get them, lowered frugally (the second) it does.
 * On gfx942 with buffer addressing, bf16 with 128x64x128 tiles, 8 waves and 32x32 MFMA stops its
 * dot's drain read-ahead at its cap (compiler/lower/lower_dot.c): lowered with the cap lifted
 * (DRAIN_DEEP, the first round) its loop is faster by rk's loop model and is kept;
 * 32x256x64 with 8 waves stops there too, but its second code is slower and is not kept (the choice
 * of tests/golden/isa/drain_deep_retry.tile). On gfx950, bf16 with 128x64x256 tiles, 4 waves, 3 stages
 * and 16-wide MFMA spills 9 VGPRs, frugally (the first round) 8, which it keeps and still spills: without
 * its drain's read-ahead alone (DRAIN_NONE, the second) none (tests/golden/isa/frugal_retry.tile). Each compiled as an autotuner's
 * variant (code objects of groups, no link_all) beside a config that needs no retry must come back
 * so: the code object its group index names holds its symbol with the second code, and the other
 * config keeps its first code. Then the same two as one bundle's code object (link_all), generated
 * again with the second code. The code objects are read back with the ISA report, independently of
 * the variants' own counts. Variants for the emulator are lowered as their gfx942 code is kept. */
#include "compiler/api/variants.h"
#include "compiler/target/amdgpu/report.h"
#include "compiler/target/target.h"
#include "tests/unit/test_api_util.h"

static const Define spills[] = {{"T", "bf16"},      {"BLOCK_M", "128"},  {"BLOCK_N", "64"}, {"BLOCK_K", "128"},
                                {"num_warps", "2"}, {"num_stages", "3"}, {"matrix_instr_nonkdim", "32"}};
static const Define short_waves[] = {{"T", "bf16"}, {"BLOCK_M", "128"}, {"BLOCK_N", "128"}, {"BLOCK_K", "32"},
                                     {"num_warps", "4"}};
static const Define second[] = {{"T", "bf16"}, {"BLOCK_M", "64"}, {"BLOCK_N", "256"}, {"BLOCK_K", "128"}, {"num_warps", "4"}};
static const Define deeper[] = {{"T", "bf16"},      {"BLOCK_M", "128"}, {"BLOCK_N", "64"},
                                {"BLOCK_K", "128"}, {"num_warps", "8"}, {"matrix_instr_nonkdim", "32"}};
static const Define not_deep[] = {{"T", "bf16"},     {"BLOCK_M", "32"},  {"BLOCK_N", "256"},
                                  {"BLOCK_K", "64"}, {"num_warps", "8"}, {"matrix_instr_nonkdim", "32"}};
static const Define drain_spills[] = {{"T", "bf16"},       {"BLOCK_M", "128"},  {"BLOCK_N", "64"},
                                      {"BLOCK_K", "256"},   {"num_warps", "4"},  {"num_stages", "3"},
                                      {"matrix_instr_nonkdim", "16"}};
static const Define clean[] = {{"T", "f16"}, {"BLOCK_M", "64"}, {"BLOCK_N", "64"}, {"BLOCK_K", "32"}, {"num_warps", "4"}};

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

/* defs[0..n) is the config to retry, variant `at` of two: kept from retry round `round` (0: tried in
 * `tried` rounds and not kept), lowered as `want` says; group_max variants a code object where not
 * link_all. */
static void run_tried(rk_ctx *ctx, const CompileSetup *cs, const Define *defs, int n, int round, int tried,
                      LowerChoice want, int at, int group_max, bool link_all)
{
    Arena a;
    arena_init(&a, arena_default_allocator);
    Variant v[2];
    v[at] = (Variant){.kernel = "matmul", .index = at, .defs = defs, .ndefs = n, .label = "retried"};
    v[1 - at] = (Variant){.kernel = "matmul", .index = 1 - at, .defs = clean, .ndefs = 5, .label = "clean"};
    VariantSet vs = {.cs = cs, .v = v, .n = 2, .threads = 2, .group_max = group_max, .link_all = link_all,
                     .lds_limit = target_find(cs->target)->lds_bytes, .out = &a};
    rk_status bst = variants_build(ctx, &vs);
    CHECK(bst == RK_OK);
    if (bst)
        fprintf(stderr, "variants_build: %s\n", rk_error(ctx));
    CHECK(v[0].state == VAR_OK && v[1].state == VAR_OK);
    CHECK(v[at].retried == round && lower_choice_same(&v[at].lower, &want) && v[at].vgpr_spills == 0);
    CHECK(!v[1 - at].retried); /* nothing to retry */
    CHECK(vs.compiles == 2 + tried); /* two lowerings and one a round */
    CHECK(vs.nbins == (link_all ? 1 : round ? 3 : 2)); /* one; or a group a worker, and a kept retry's */
    for (int i = 0; i < 2; i++) {
        const KernelReport *kr = v[i].state == VAR_OK ? find(&a, &vs, v[i].group, v[i].symbol) : NULL;
        CHECK(kr != NULL);
        if (kr) {
            CHECK(kr->vgpr_spills == 0 && kr->scratch_bytes == 0);
            CHECK(kr->vgprs_total == v[i].regs.vgprs);
            CHECK(i != at || want.min_waves == 0 || kr->waves_per_simd == want.min_waves);
            int cycles = 0; /* what the retry judged a cycle retry by: the loops' cycles */
            for (int l = 0; l < kr->nloops; l++)
                cycles += kr->loops[l].cycles;
            CHECK(i != at || want.drain != DRAIN_DEEP || (cycles > 0 && cycles == v[i].regs.cycles));
        }
        if (!kr)
            fprintf(stderr, "%s: no %s in code object %d of %d\n", link_all ? "bundle" : "groups", v[i].symbol,
                    v[i].group, vs.nbins);
    }
    variants_free(&vs);
    arena_free(&a);
}

/* defs[0..n) as an autotuner's variant for the emulator: lowered as its gfx942 code is kept (`want`,
 * judged inside its one compile: compiler/driver/driver.c), and compiled once. */
static void run_emu(rk_ctx *ctx, const CompileSetup *cs, const Define *defs, int n, LowerChoice want)
{
    Arena a;
    arena_init(&a, arena_default_allocator);
    Variant v = {.kernel = "matmul", .index = 0, .defs = defs, .ndefs = n, .label = "emu"};
    VariantSet vs = {.cs = cs, .v = &v, .n = 1, .threads = 1, .group_max = 1, .link_all = false,
                     .lds_limit = target_find(cs->target)->lds_bytes, .out = &a};
    CHECK(variants_build(ctx, &vs) == RK_OK);
    CHECK(v.state == VAR_OK && !v.retried && vs.compiles == 1);
    CHECK(lower_choice_same(&v.lower, &want));
    if (v.lower.drain != want.drain)
        fprintf(stderr, "emu variant: drain %d, expected %d\n", (int)v.lower.drain, (int)want.drain);
    variants_free(&vs);
    arena_free(&a);
}

static void run(rk_ctx *ctx, const CompileSetup *cs, const Define *defs, int n, int round, bool frugal, int waves,
                int at, int group_max, bool link_all)
{
    run_tried(ctx, cs, defs, n, round, round, (LowerChoice){frugal, waves, DRAIN_CAPPED}, at, group_max, link_all);
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
    rk_compile_options co = {.filename = "examples/matmul.tile", .target = "gfx90a", .assume = "a<2G b<2G c<2G"};
    CHECK(compile_setup(ctx, src, len, &co, &cs) == RK_OK);
    cs.kernel = "matmul";
    run(ctx, &cs, spills, 7, 1, true, 0, 0, 2, false);
    run(ctx, &cs, spills, 7, 1, true, 0, 1, 1, false);
    run(ctx, &cs, spills, 7, 1, true, 0, 1, 0, true);
    co.target = "gfx942";
    co.assume = NULL;
    CHECK(compile_setup(ctx, src, len, &co, &cs) == RK_OK);
    cs.kernel = "matmul";
    run(ctx, &cs, short_waves, 5, 1, false, 4, 1, 1, false);
    run(ctx, &cs, short_waves, 5, 1, false, 4, 0, 0, true);
    co.target = "gfx950";
    co.assume = "a<2G b<2G c<2G";
    CHECK(compile_setup(ctx, src, len, &co, &cs) == RK_OK);
    cs.kernel = "matmul";
    run(ctx, &cs, second, 5, 2, true, 0, 0, 2, false);
    run(ctx, &cs, second, 5, 2, true, 0, 1, 0, true);
    co.target = "gfx942";
    CHECK(compile_setup(ctx, src, len, &co, &cs) == RK_OK);
    cs.kernel = "matmul";
    run_tried(ctx, &cs, deeper, 6, 1, 1, (LowerChoice){false, 0, DRAIN_DEEP}, 0, 2, false);
    run_tried(ctx, &cs, deeper, 6, 1, 1, (LowerChoice){false, 0, DRAIN_DEEP}, 1, 0, true);
    run_tried(ctx, &cs, not_deep, 6, 0, 1, (LowerChoice){0}, 0, 2, false);
    co.target = "emu";
    CHECK(compile_setup(ctx, src, len, &co, &cs) == RK_OK);
    cs.kernel = "matmul";
    run_emu(ctx, &cs, deeper, 6, (LowerChoice){false, 0, DRAIN_DEEP});
    run_emu(ctx, &cs, not_deep, 6, (LowerChoice){0});
    run_emu(ctx, &cs, short_waves, 5, (LowerChoice){false, 4, DRAIN_CAPPED});
    co.target = "gfx950";
    CHECK(compile_setup(ctx, src, len, &co, &cs) == RK_OK);
    cs.kernel = "matmul";
    run_tried(ctx, &cs, drain_spills, 7, 2, 2, (LowerChoice){false, 0, DRAIN_NONE}, 0, 2, false);
    run_tried(ctx, &cs, drain_spills, 7, 2, 2, (LowerChoice){false, 0, DRAIN_NONE}, 1, 0, true);
    rk_ctx_destroy(ctx);
    free(src);
    return api_finish("test_variants_frugal");
}
