/* Tests of the LDS bank-conflict evaluator (compiler/target/amdgpu/report_lds.c) and of its charge in
 * the loop cycle model, on hand-written kernels whose answers follow from the bank rule by hand
 * (32 banks of 4 bytes; a pass serves 32 lanes of 4 bytes, 16 of 8, 8 of 16): each lane's address is
 * built from v0 (the flat workitem id) by the arithmetic both compilers emit, then read in a loop.
 * A stride of 16 bytes for ds_read_b128 is conflict-free, 512 bytes puts the 8 lanes of a pass in
 * the same 4 banks (8-way, the most a 16-byte access can have); a stride of 256 bytes for ds_read_b64
 * puts the 16 lanes of a pass in 2 banks (16-way); ds_read2_b64 is two 8-byte accesses. Uniform
 * unknowns (a kernel argument added or XORed in) keep the pattern; an unknown ANDed in, or an address
 * loaded from memory, makes the access unknown and uncharged. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "compiler/target/amdgpu/report.h"


#include "tests/unit/check.h"

#define N(x) ((int)(sizeof(x) / sizeof((x)[0])))

/* The costs of the DS instruction at lines[at] of a kernel whose loop starts at `entry`. */
static LdsCost cost(const char *const *lines, int n, int entry, int at, int waves)
{
    Arena a;
    arena_init(&a, arena_default_allocator);
    LdsCost c[64];
    report_lds_costs(&a, lines, entry, n, waves, 32, true, c);
    arena_free(&a);
    return c[at - entry];
}

static void test_b128(void)
{
    const char *free_[] = {"s_load_dword s4, s[0:1], 0x0", "v_lshlrev_b32_e32 v1, 4, v0", "s_waitcnt lgkmcnt(0)",
                           "ds_read_b128 v[4:7], v1", "s_cbranch_scc1 65534"};
    LdsCost c = cost(free_, N(free_), 3, 3, 4);
    CHECK(c.kind == LDS_KNOWN && c.ways == 1 && c.passes == 4 * 8 && c.pass_ways == 32, "stride 16: kind %d ways %d %lld/%lld",
          c.kind, c.ways, (long long)c.pass_ways, (long long)c.passes);
    const char *conf[] = {"v_lshlrev_b32_e32 v1, 9, v0", "ds_read_b128 v[4:7], v1 offset:64", "s_cbranch_scc1 65534"};
    c = cost(conf, N(conf), 1, 1, 4);
    CHECK(c.kind == LDS_KNOWN && c.ways == 8 && c.pass_ways == 8 * 4 * 8, "stride 512: kind %d ways %d %lld/%lld", c.kind,
          c.ways, (long long)c.pass_ways, (long long)c.passes);
    /* the same, XOR-swizzled by the row (lane / 8 ... as a compiler does: ((lane & 7) ^ (lane >> 3 & 7)) * 16
     * + (lane >> 3) * 512: each pass's 8 lanes take 8 different 16-byte columns: conflict-free */
    const char *swz[] = {"v_and_b32_e32 v2, 7, v0", "v_bfe_u32 v3, v0, 3, 3", "v_xor_b32_e32 v2, v2, v3",
                         "v_lshlrev_b32_e32 v2, 4, v2", "v_lshrrev_b32_e32 v3, 3, v0", "v_lshl_add_u32 v1, v3, 9, v2",
                         "ds_read_b128 v[4:7], v1", "s_cbranch_scc1 65534"};
    c = cost(swz, N(swz), 6, 6, 4);
    CHECK(c.kind == LDS_KNOWN && c.ways == 1, "swizzled: kind %d ways %d", c.kind, c.ways);
}

static void test_b64_and_pairs(void)
{
    /* lane id from mbcnt, stride 256: 16 lanes a pass in banks 0 and 1, 16 words each */
    const char *c16[] = {"v_mbcnt_lo_u32_b32 v2, -1, 0", "v_mbcnt_hi_u32_b32 v2, -1, v2", "v_lshlrev_b32_e32 v1, 8, v2",
                         "ds_write_b64 v1, v[4:5]", "s_cbranch_scc1 65534"};
    LdsCost c = cost(c16, N(c16), 3, 3, 1);
    CHECK(c.kind == LDS_KNOWN && c.ways == 16 && c.passes == 4 && c.pass_ways == 64, "b64 stride 256: kind %d ways %d %lld/%lld",
          c.kind, c.ways, (long long)c.pass_ways, (long long)c.passes);
    /* ds_read2_b64 with a lane stride of 16: two 8-byte accesses, lanes l and l + 8 of a pass meet (2-way);
     * read as one 16-byte access it would be conflict-free */
    const char *pair[] = {"v_lshlrev_b32_e32 v1, 4, v0", "ds_read2_b64 v[4:7], v1 offset1:1", "s_cbranch_scc1 65534"};
    c = cost(pair, N(pair), 1, 1, 1);
    CHECK(c.kind == LDS_KNOWN && c.ways == 2 && c.passes == 8 && c.pass_ways == 16, "read2 stride 16: ways %d %lld/%lld",
          c.ways, (long long)c.pass_ways, (long long)c.passes);
    /* st64 offsets are in units of 64 elements: stride 8, offset1:8 = +4096 bytes, conflict-free */
    const char *st64[] = {"v_lshlrev_b32_e32 v1, 3, v0", "ds_read2st64_b64 v[4:7], v1 offset0:1 offset1:8",
                          "s_cbranch_scc1 65534"};
    c = cost(st64, N(st64), 1, 1, 1);
    CHECK(c.kind == LDS_KNOWN && c.ways == 1 && c.passes == 8, "read2st64: ways %d passes %lld", c.ways, (long long)c.passes);
}

static void test_unknowns(void)
{
    /* a kernel argument added and XORed (times 16) keeps the pattern: still 8-way */
    const char *uni[] = {"s_load_dword s4, s[0:1], 0x0", "v_lshlrev_b32_e32 v1, 9, v0", "s_lshl_b32 s5, s4, 4",
                         "v_readfirstlane_b32 s6, v0", "v_add_u32_e32 v1, s6, v1", "v_xor_b32_e32 v1, s5, v1",
                         "v_add_u32_e32 v2, s4, v1", "ds_read_b128 v[4:7], v1", "ds_read_b128 v[4:7], v2",
                         "s_cbranch_scc1 65534"};
    LdsCost c = cost(uni, N(uni), 7, 7, 2);
    CHECK(c.kind == LDS_KNOWN && c.ways == 8, "xor + add of uniforms: kind %d ways %d", c.kind, c.ways);
    /* v2 = (x ^ u) + u': a uniform addend after the XOR is one more step of the chain (test_chains) */
    c = cost(uni, N(uni), 7, 8, 2);
    CHECK(c.kind == LDS_KNOWN && c.ways == 8, "add after xor of unknowns: kind %d ways %d", c.kind, c.ways);
    const char *and_[] = {"s_load_dword s4, s[0:1], 0x0", "v_lshlrev_b32_e32 v1, 4, v0", "v_and_b32_e32 v1, s4, v1",
                          "ds_read_b128 v[4:7], v1", "global_load_dword v2, v[8:9], off", "ds_read_b32 v3, v2",
                          "ds_read_b32 v3, v1 offset:4", "v_mov_b32_e32 v3, 0", "s_cbranch_scc1 65534"};
    c = cost(and_, N(and_), 3, 3, 1);
    CHECK(c.kind == LDS_UNKNOWN, "and with an unknown: kind %d", c.kind);
    c = cost(and_, N(and_), 3, 5, 1);
    CHECK(c.kind == LDS_UNKNOWN, "loaded address: kind %d", c.kind);
    c = cost(and_, N(and_), 3, 7, 1);
    CHECK(c.kind == LDS_NONE, "v_mov is not an LDS access: kind %d", c.kind);
    /* a descriptor asking for y/z ids: v0 unknown */
    Arena a;
    arena_init(&a, arena_default_allocator);
    LdsCost cs[2];
    const char *b[] = {"v_lshlrev_b32_e32 v1, 4, v0", "ds_read_b128 v[4:7], v1", "s_cbranch_scc1 65534"};
    report_lds_costs(&a, b, 1, 3, 1, 32, false, cs);
    CHECK(cs[0].kind == LDS_UNKNOWN, "v0 unknown: kind %d", cs[0].kind);
    arena_free(&a);
}

/* The costs of lines[at] with the kernel argument s4 unknown (lines[0] loads it), and with s4 = k. */
static LdsCost cost_s4(const char **lines, int n, int at, const uint32_t *k, int nk, LdsCost *known)
{
    char mov[64];
    lines[0] = "s_load_dword s4, s[0:1], 0x0";
    LdsCost c = cost(lines, n, 0, at, 1);
    for (int i = 0; i < nk; i++) {
        snprintf(mov, sizeof mov, "s_mov_b32 s4, 0x%x", k[i]);
        lines[0] = mov;
        known[i] = cost(lines, n, 0, at, 1);
    }
    return c;
}

/* Uniform unknowns by their chains: an address x with uniform unknowns added and XORed in, in any order,
 * has the ways of x whatever the unknowns are; so the evaluator's answer with s4 unknown must equal the
 * answer with s4 known, for every value tried. Where a lane-varying value is added after an XOR with an
 * unknown, or a mask or right shift follows an addition of one, the ways depend on the unknown (two
 * values of s4 give two answers here) and the evaluator must say unknown. ds_read_b64 with a lane
 * stride of 32 bytes: 16 lanes a pass, four to each of the banks 0, 8, 16, 24 (4-way). */
static void test_chains(void)
{
    static const uint32_t k[] = {0, 1, 4, 5, 8, 0x1234, 0xffffffffu};
    LdsCost known[N(k)];
    /* Triton's form: v_add_u32 0 after the XOR with a uniform unknown (s_bfe_i32 of an argument, masked) */
    const char *plus0[] = {"", "v_lshlrev_b32_e32 v1, 5, v0", "s_bfe_i32 s5, s4, 0x10006", "s_and_b32 s5, s5, 0x808",
                           "v_xor_b32_e32 v1, s5, v1", "v_add_u32_e32 v2, 0, v1", "ds_read_b64 v[4:5], v2",
                           "s_cbranch_scc1 65534"};
    LdsCost c = cost_s4(plus0, N(plus0), 6, k, N(k), known);
    CHECK(c.kind == LDS_KNOWN && c.ways == 4, "xor then +0: kind %d ways %d", c.kind, c.ways);
    for (int i = 0; i < N(k); i++)
        CHECK(known[i].kind == LDS_KNOWN && known[i].ways == c.ways && known[i].pass_ways == c.pass_ways,
              "xor then +0, s4 = %#x: ways %d", k[i], known[i].ways);
    /* XOR, a uniform unknown and a constant added, the whole negated: one chain */
    const char *mix[] = {"", "v_lshlrev_b32_e32 v1, 5, v0", "s_lshl_b32 s5, s4, 3", "s_lshl_b32 s6, s4, 4",
                         "v_xor_b32_e32 v1, s5, v1", "v_add_u32_e32 v1, s6, v1", "v_add_u32_e32 v1, 24, v1",
                         "v_sub_u32_e32 v2, 0, v1", "ds_read_b64 v[4:5], v2", "s_cbranch_scc1 65534"};
    c = cost_s4(mix, N(mix), 8, k, N(k), known);
    CHECK(c.kind == LDS_KNOWN && c.ways == 4, "chain: kind %d ways %d", c.kind, c.ways);
    for (int i = 0; i < N(k); i++)
        CHECK(known[i].kind == LDS_KNOWN && known[i].ways == c.ways && known[i].pass_ways == c.pass_ways,
              "chain, s4 = %#x: ways %d", k[i], known[i].ways);
    /* (16 lane ^ u) + 16 lane: 4 ways for s4 = 0, 2 for s4 = 8 */
    const char *lane_add[] = {"", "v_lshlrev_b32_e32 v1, 4, v0", "s_lshl_b32 s5, s4, 3", "v_xor_b32_e32 v2, s5, v1",
                              "v_add_u32_e32 v2, v1, v2", "ds_read_b64 v[4:5], v2", "s_cbranch_scc1 65534"};
    c = cost_s4(lane_add, N(lane_add), 5, k, N(k), known);
    CHECK(c.kind == LDS_UNKNOWN, "xor then a lane's addend: kind %d", c.kind);
    CHECK(known[0].ways == 4 && known[4].ways == 2, "xor then a lane's addend: s4 = 0 and 8 give %d and %d ways",
          known[0].ways, known[4].ways);
    /* ((8 lane ^ u) + u) & 0x80: 1 way for s4 = 0, 2 for s4 = 1 */
    const char *masked[] = {"", "v_lshlrev_b32_e32 v1, 3, v0", "s_lshl_b32 s5, s4, 3", "v_xor_b32_e32 v1, s5, v1",
                            "v_add_u32_e32 v1, s5, v1", "v_and_b32_e32 v2, 0x80, v1", "ds_read_b64 v[4:5], v2",
                            "s_cbranch_scc1 65534"};
    c = cost_s4(masked, N(masked), 6, k, N(k), known);
    CHECK(c.kind == LDS_UNKNOWN, "chain then a mask: kind %d", c.kind);
    CHECK(known[0].ways == 1 && known[1].ways == 2, "chain then a mask: s4 = 0 and 1 give %d and %d ways",
          known[0].ways, known[1].ways);
    /* Triton's selected swizzle bits: s5 is 0 or 0x1010 (SCC unknown), ORed into lane bits it does not
     * share: an XOR, the ways those of either value; ORed into lane bits it shares (stride 16, bit 4),
     * not an XOR: unknown */
    const char *sel[] = {"s_cmp_eq_u32 s4, 0", "s_cselect_b32 s5, 0, 0x1010", "v_lshlrev_b32_e32 v1, 5, v0",
                         "v_or_b32_e32 v2, s5, v1", "ds_read_b64 v[4:5], v2", "v_lshlrev_b32_e32 v1, 4, v0",
                         "v_or_b32_e32 v2, s5, v1", "ds_read_b64 v[4:5], v2", "s_cbranch_scc1 65534"};
    c = cost(sel, N(sel), 0, 4, 1);
    LdsCost shared = cost(sel, N(sel), 0, 7, 1);
    const char *sel_k[] = {"", "v_lshlrev_b32_e32 v1, 5, v0", "v_or_b32_e32 v2, s5, v1", "ds_read_b64 v[4:5], v2",
                           "s_cbranch_scc1 65534"};
    sel_k[0] = "s_mov_b32 s5, 0";
    LdsCost k0 = cost(sel_k, N(sel_k), 0, 3, 1);
    sel_k[0] = "s_mov_b32 s5, 0x1010";
    LdsCost k1 = cost(sel_k, N(sel_k), 0, 3, 1);
    CHECK(c.kind == LDS_KNOWN && c.ways == 4 && k0.ways == 4 && k1.ways == 4 && c.pass_ways == k1.pass_ways,
          "or of a selected constant: kind %d ways %d (%d and %d known)", c.kind, c.ways, k0.ways, k1.ways);
    CHECK(shared.kind == LDS_UNKNOWN, "or into shared bits: kind %d", shared.kind);
    /* a lane stride of 4 for an 8-byte access under an unknown XOR: not 8-aligned in every lane */
    const char *odd[] = {"", "v_lshlrev_b32_e32 v1, 2, v0", "s_lshl_b32 s5, s4, 3", "v_xor_b32_e32 v2, s5, v1",
                         "ds_read_b64 v[4:5], v2", "s_cbranch_scc1 65534"};
    c = cost_s4(odd, N(odd), 4, k, N(k), known);
    CHECK(c.kind == LDS_UNKNOWN, "misaligned under an unknown: kind %d", c.kind);
}

/* v_bfe_i32 and s_bfe_i32 sign-extend the field: lanes 8-15 of a pass (bit 3 set) get -1 & 64 = +64
 * bytes and meet lanes 0-7 in banks 0-15 (2-way; unsigned, the field would add nothing: 1 way). */
static void test_bfe_signed(void)
{
    const char *v[] = {"v_lshlrev_b32_e32 v1, 3, v0", "v_bfe_i32 v2, v0, 3, 1", "v_and_b32_e32 v2, 64, v2",
                       "v_add_u32_e32 v1, v1, v2", "ds_read_b64 v[4:5], v1", "s_cbranch_scc1 65534"};
    LdsCost c = cost(v, N(v), 4, 4, 1);
    CHECK(c.kind == LDS_KNOWN && c.ways == 2, "v_bfe_i32: kind %d ways %d", c.kind, c.ways);
    /* s_bfe_i32 of bit 7 of 0x80: -1, a mask that keeps the stride of 32 (4-way; 1 would make every
     * lane read address 0, one word broadcast) */
    const char *s[] = {"s_movk_i32 s4, 0x80", "s_bfe_i32 s5, s4, 0x10007", "v_lshlrev_b32_e32 v1, 5, v0",
                       "v_and_b32_e32 v1, s5, v1", "ds_read_b64 v[4:5], v1", "s_cbranch_scc1 65534"};
    c = cost(s, N(s), 4, 4, 1);
    CHECK(c.kind == LDS_KNOWN && c.ways == 4, "s_bfe_i32: kind %d ways %d", c.kind, c.ways);
}

/* The charge: eight ds_read_b128 of a 4-wave workgroup waited at the end. Conflict-free, each takes the
 * LDS 4 x 1024 / 128 = 32 cycles (starts 0, 32, ... 224, done 224 + 64 = 288, then the branch's slot:
 * 292 an iteration); 8-way, 256 cycles each: the LDS is the bound, 8 x 256 = 2048 an iteration, and
 * the conflicts add 8 x 224 = 1792 cycles of LDS time. */
static void test_charge(void)
{
    const char *body[14];
    const char *pre[2][2] = {{"v_lshlrev_b32_e32 v1, 4, v0", "v_mov_b32_e32 v2, 0"},
                             {"v_lshlrev_b32_e32 v1, 9, v0", "v_mov_b32_e32 v2, 0"}};
    LoopReport l[2];
    for (int k = 0; k < 2; k++) {
        int n = 0;
        body[n++] = pre[k][0];
        body[n++] = pre[k][1];
        for (int i = 0; i < 8; i++)
            body[n++] = "ds_read_b128 v[4:7], v1";
        body[n++] = "s_waitcnt lgkmcnt(0)";
        body[n++] = "s_cbranch_scc1 65524";
        Arena a;
        arena_init(&a, arena_default_allocator);
        CHECK(report_loop_model_in(&a, "gfx942", 4, true, body, 2, n, NULL, &l[k]) == 0, "model");
        arena_free(&a);
        int sum = l[k].mfma_busy;
        for (int c = 0; c < NSTALLS; c++)
            sum += l[k].stalls[c];
        CHECK(sum == l[k].cycles, "busy + stalls %d, cycles %d", sum, l[k].cycles);
    }
    CHECK(l[0].lds_evaluated == 8 && l[0].lds_conflicted == 0 && l[0].lds_worst_ways == 1 && l[0].lds_conflict_cycles == 0,
          "free: %d known %d conflicted %d ways %d cycles", l[0].lds_evaluated, l[0].lds_conflicted, l[0].lds_worst_ways,
          l[0].lds_conflict_cycles);
    CHECK(l[1].lds_evaluated == 8 && l[1].lds_conflicted == 8 && l[1].lds_worst_ways == 8 && l[1].lds_conflict_cycles == 1792,
          "8-way: %d known %d conflicted %d ways %d cycles", l[1].lds_evaluated, l[1].lds_conflicted, l[1].lds_worst_ways,
          l[1].lds_conflict_cycles);
    CHECK(l[0].cycles == 292 && l[1].cycles == 2048, "8-way %d cycles, conflict-free %d", l[1].cycles, l[0].cycles);
    /* the body alone (report_loop_model): v0 unknown, nothing charged, the conflict-free figure */
    Arena a;
    arena_init(&a, arena_default_allocator);
    LoopReport alone;
    report_loop_model(&a, "gfx942", 4, body + 2, 10, NULL, &alone);
    arena_free(&a);
    CHECK(alone.cycles == l[0].cycles && alone.lds_unknown == 8, "alone: %d cycles, %d unknown", alone.cycles,
          alone.lds_unknown);
}

int main(void)
{
    test_b128();
    test_b64_and_pairs();
    test_unknowns();
    test_chains();
    test_bfe_signed();
    test_charge();
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    return failures != 0;
}
