/* Tests of the loop cycle model (compiler/target/amdgpu/report_loop.c) on hand-written loop bodies whose
 * answers follow from the model's rules by hand: back-to-back MFMAs, a load waited at once, a load
 * waited a full iteration later, lgkmcnt that must not wait for global loads (llvm-mca 22 does),
 * FLAT that must, the LDS's bandwidth shared by a workgroup's waves, a VALU reading an MFMA's result,
 * barriers, s_nop, the MFMA-free run across the back edge, the latencies as parameters, and the
 * invariant that the busy cycles and the stalls add up to the iteration; and that the model's MFMA
 * cycles are the compiler's own (isa/mfma.def's passes, which the lowering's timing uses) for every
 * instruction both tables have. Each body ends with its backward branch, as the report hands it over. */
#include <stdio.h>
#include <string.h>

#include "compiler/target/amdgpu/report.h"
#include "isa/mfma.h"

#include "tests/unit/check.h"

#define N(x) ((int)(sizeof(x) / sizeof((x)[0])))

static const char *BR = "s_cbranch_scc1 65520";
static const char *MFMA16 = "v_mfma_f32_16x16x16_bf16 v[0:3], v[64:65], v[66:67], v[0:3]";
static const char *MFMA32 = "v_mfma_f32_32x32x8_bf16 a[0:15], v[64:65], v[66:67], a[0:15]";
static const char *LOAD = "global_load_dwordx4 v[40:43], v[44:45], off";

static LoopReport model(const char *cpu, int waves, const char *const *lines, int n, const LoopParams *p)
{
    Arena a;
    arena_init(&a, arena_default_allocator);
    LoopReport l;
    int rc = report_loop_model(&a, cpu, waves, lines, n, p, &l);
    CHECK(rc == 0, "no model for %s", cpu);
    int sum = l.mfma_busy;
    for (int c = 0; c < NSTALLS; c++) {
        CHECK(l.stalls[c] >= 0, "stall %s %d", report_stall_names[c], l.stalls[c]);
        sum += l.stalls[c];
    }
    CHECK(sum == l.cycles, "busy %d + stalls = %d, not the %d cycles", l.mfma_busy, sum, l.cycles);
    CHECK(l.instructions == n, "%d instructions, not %d", l.instructions, n);
    arena_free(&a);
    return l;
}

/* N independent MFMAs back to back: N times the instruction's cycles, the unit always busy. */
static void test_mfma_back_to_back(void)
{
    const char *b16[] = {MFMA16, "v_mfma_f32_16x16x16_bf16 v[4:7], v[64:65], v[66:67], v[4:7]",
                         "v_mfma_f32_16x16x16_bf16 v[8:11], v[64:65], v[66:67], v[8:11]",
                         "v_mfma_f32_16x16x16_bf16 v[12:15], v[64:65], v[66:67], v[12:15]", BR};
    LoopReport l = model("gfx942", 4, b16, N(b16), NULL);
    CHECK(l.cycles == 4 * 16 && l.mfma_busy == 64 && l.mfma == 4 && l.mfma_free == 1, "4 x 16x16x16: %d cycles, busy %d, %d mfma, free %d",
          l.cycles, l.mfma_busy, l.mfma, l.mfma_free);
    l = model("gfx90a", 4, (const char *[]){"v_mfma_f32_16x16x16bf16_1k v[0:3], v[64:65], v[66:67], v[0:3]",
                                            "v_mfma_f32_16x16x16bf16_1k v[4:7], v[64:65], v[66:67], v[4:7]", BR},
              3, NULL);
    CHECK(l.cycles == 2 * 32 && l.mfma_busy == 64, "gfx90a 2 x 16x16x16bf16_1k (8 passes): %d", l.cycles);
    l = model("gfx90a", 4, (const char *[]){"v_mfma_f64_16x16x4f64 v[0:7], v[64:65], v[66:67], v[0:7]", BR}, 2, NULL);
    CHECK(l.cycles == 32 && l.mfma_busy == 32, "gfx90a 16x16x4f64 (8 passes, as gfx942's): %d", l.cycles);
    l = model("gfx950", 4, (const char *[]){"v_mfma_f64_16x16x4_f64 v[0:7], v[64:65], v[66:67], v[0:7]", BR}, 2, NULL);
    CHECK(l.cycles == 64 && l.mfma_busy == 64, "gfx950 16x16x4_f64 (16 passes): %d", l.cycles);
    const char *b32[] = {MFMA32, MFMA32, MFMA32, BR}; /* one accumulator: back to back on CDNA3 too */
    l = model("gfx942", 4, b32, N(b32), NULL);
    CHECK(l.cycles == 3 * 32 && l.mfma_busy == 96, "3 x 32x32x8: %d", l.cycles);
    l = model("gfx950", 4, (const char *[]){"v_mfma_f32_16x16x32_bf16 v[0:3], v[64:67], v[68:71], v[0:3]", BR}, 2,
              NULL);
    CHECK(l.cycles == 16, "gfx950 16x16x32_bf16: %d", l.cycles);
    l = model("gfx942", 4, (const char *[]){"v_mfma_f32_32x32x4_2b_f16 v[0:31], v[64:65], v[66:67], v[0:31]", BR}, 2,
              NULL);
    CHECK(l.cycles == 32 && l.mfma_busy == 32, "not in the table, costed by its 32x32 shape: %d", l.cycles);
}

/* A load waited on at once: its latency (plus the branch's issue slot); the latency is a parameter. */
static void test_load_latency(void)
{
    const char *b[] = {LOAD, "s_waitcnt vmcnt(0)", BR};
    LoopReport l = model("gfx942", 4, b, N(b), NULL);
    int lat = report_loop_params.global_latency;
    CHECK(l.cycles == lat + 4, "load + wait: %d, not %d", l.cycles, lat + 4);
    CHECK(l.stalls[STALL_VMCNT] == lat - 4 && l.stalls[STALL_OTHER] == 4 && l.stalls[STALL_SALU] == 4,
          "vmcnt %d other %d salu %d", l.stalls[STALL_VMCNT], l.stalls[STALL_OTHER], l.stalls[STALL_SALU]);
    LoopParams p = report_loop_params;
    p.global_latency = 300;
    l = model("gfx942", 4, b, N(b), &p);
    CHECK(l.cycles == 304, "global_latency 300: %d", l.cycles);
    /* the raw immediate form: s_waitcnt 0 waits for everything */
    l = model("gfx942", 4, (const char *[]){LOAD, "s_waitcnt 0", BR}, 3, &p);
    CHECK(l.cycles == 304, "s_waitcnt 0: %d", l.cycles);
    /* a scalar load is counted by lgkmcnt */
    l = model("gfx942", 4, (const char *[]){"s_load_dwordx2 s[4:5], s[0:1], 0x0", "s_waitcnt lgkmcnt(0)", BR}, 3,
              NULL);
    CHECK(l.cycles == report_loop_params.smem_latency + 4, "s_load + lgkmcnt(0): %d", l.cycles);
}

/* Global and buffer loads count against vmcnt only: lgkmcnt(0) does not wait for them (llvm-mca 22
 * says it does). FLAT (flat_load) counts against both. */
static void test_counters(void)
{
    LoopReport l = model("gfx942", 4, (const char *[]){LOAD, "s_waitcnt lgkmcnt(0)", BR}, 3, NULL);
    CHECK(l.cycles == 12 && l.stalls[STALL_LGKMCNT] == 0, "global_load + lgkmcnt(0): %d", l.cycles);
    l = model("gfx942", 4,
              (const char *[]){"buffer_load_dwordx4 v[0:3], v4, s[8:11], 0 offen", "s_waitcnt lgkmcnt(0)", BR}, 3,
              NULL);
    CHECK(l.cycles == 12, "buffer_load + lgkmcnt(0): %d", l.cycles);
    l = model("gfx942", 4, (const char *[]){"flat_load_dwordx4 v[0:3], v[4:5]", "s_waitcnt lgkmcnt(0)", BR}, 3, NULL);
    CHECK(l.cycles == report_loop_params.global_latency + 4 && l.stalls[STALL_LGKMCNT] > 0,
          "flat_load + lgkmcnt(0): %d", l.cycles);
    /* vmcnt(N) counts: with two loads in flight, vmcnt(1) waits for the first only */
    LoopParams p = report_loop_params;
    p.global_latency = 100;
    l = model("gfx942", 4,
              (const char *[]){LOAD, "v_add_f32_e32 v1, v2, v3", "v_add_f32_e32 v1, v2, v3", LOAD,
                               "s_waitcnt vmcnt(1)", "s_waitcnt vmcnt(0)", BR},
              7, &p);
    CHECK(l.cycles == 12 + 100 + 4, "two loads, vmcnt(1) then (0): %d", l.cycles);
}

/* Latency hidden: a load waited one iteration later costs nothing when an iteration outlasts it; the
 * same load waited at once adds its latency to every iteration. */
static void test_hiding(void)
{
    const char *late[23], *early[23];
    late[0] = early[0] = LOAD;
    early[1] = "s_waitcnt vmcnt(0)";
    for (int i = 0; i < 20; i++)
        late[1 + i] = early[2 + i] = MFMA32;
    late[21] = "s_waitcnt vmcnt(1)";
    late[22] = early[22] = BR;
    LoopReport l = model("gfx942", 4, late, 23, NULL);
    CHECK(l.cycles == 20 * 32 && l.mfma_busy == l.cycles && l.stalls[STALL_VMCNT] == 0,
          "waited an iteration later: %d cycles, busy %d, vmcnt %d", l.cycles, l.mfma_busy, l.stalls[STALL_VMCNT]);
    l = model("gfx942", 4, early, 23, NULL);
    int lat = report_loop_params.global_latency;
    /* the wait starts 4 cycles after the load, and the previous iteration's last MFMA (started 8
     * cycles before it) still runs for the first 20 of them */
    CHECK(l.cycles == lat + 19 * 32 + 8 && l.stalls[STALL_VMCNT] == lat - 24,
          "waited at once: %d cycles (want %d), vmcnt %d", l.cycles, lat + 19 * 32 + 8, l.stalls[STALL_VMCNT]);
    /* steady state: a load issued at the end and waited at the top of the next iteration */
    l = model("gfx942", 4, (const char *[]){"s_waitcnt vmcnt(0)", LOAD, BR}, 3, NULL);
    CHECK(l.cycles == lat, "load waited in the next iteration: %d", l.cycles);
}

/* The LDS: one read waited at once costs the LDS latency; eight 128-bit reads of a 4-wave workgroup
 * queue for its 128 bytes per clock (1 KiB per wave per read, 4 waves: 32 cycles each). */
static void test_lds(void)
{
    const char *rd = "ds_read_b128 v[0:3], v8";
    LoopReport l = model("gfx942", 1, (const char *[]){rd, "s_waitcnt lgkmcnt(0)", BR}, 3, NULL);
    CHECK(l.cycles == report_loop_params.lds_latency + 4, "ds_read + wait: %d", l.cycles);
    const char *b[] = {rd, rd, rd, rd, rd, rd, rd, rd, "s_waitcnt lgkmcnt(0)", BR};
    l = model("gfx942", 4, b, N(b), NULL);
    int lat = report_loop_params.lds_latency;
    CHECK(l.cycles == 7 * 32 + lat + 4, "8 reads, 4 waves: %d, want %d", l.cycles, 7 * 32 + lat + 4);
    CHECK(l.stalls[STALL_LDS] == 7 * 32 - 28 && l.stalls[STALL_LGKMCNT] == lat + 28 - 32,
          "lds %d lgkmcnt %d", l.stalls[STALL_LDS], l.stalls[STALL_LGKMCNT]);
    l = model("gfx942", 1, b, N(b), NULL);
    CHECK(l.cycles == 7 * 8 + lat + 4, "8 reads, 1 wave: %d", l.cycles);
    LoopParams p = report_loop_params;
    p.lds_latency = 20;
    l = model("gfx942", 1, (const char *[]){rd, "s_waitcnt lgkmcnt(0)", BR}, 3, &p);
    CHECK(l.cycles == 24, "lds_latency 20: %d", l.cycles);
}

/* A VALU reading an MFMA's result waits for it; barriers, s_nop and the VALU's rate. */
static void test_dependences_and_issue(void)
{
    LoopReport l = model("gfx942", 4, (const char *[]){MFMA16, "v_add_f32_e32 v4, v0, v5", BR}, 3, NULL);
    CHECK(l.cycles == 24 && l.mfma_busy == 16 && l.stalls[STALL_VALU] == 4, "mfma then its reader: %d (valu %d)",
          l.cycles, l.stalls[STALL_VALU]);
    l = model("gfx942", 4, (const char *[]){MFMA16, "v_add_f32_e32 v4, v20, v5", BR}, 3, NULL);
    CHECK(l.cycles == 16, "mfma and an independent VALU: %d", l.cycles);
    l = model("gfx942", 4, (const char *[]){"s_barrier", BR}, 2, NULL);
    CHECK(l.cycles == report_loop_params.barrier_latency + 4 &&
              l.stalls[STALL_BARRIER] == report_loop_params.barrier_latency,
          "barrier: %d", l.cycles);
    l = model("gfx942", 4, (const char *[]){"s_nop 3", BR}, 2, NULL);
    CHECK(l.cycles == 20 && l.stalls[STALL_SALU] == 20, "s_nop 3: %d", l.cycles);
    l = model("gfx942", 4,
              (const char *[]){"v_exp_f32_e32 v1, v2", "v_pk_fma_f32 v[4:5], v[6:7], v[8:9], v[10:11]", BR}, 3, NULL);
    CHECK(l.cycles == 16 + 4 + 4 && l.stalls[STALL_VALU] == 20, "v_exp (quarter rate) + v_pk_fma: %d", l.cycles);
}

/* The longest MFMA-free run wraps around the back edge. */
static void test_mfma_free(void)
{
    const char *v = "v_add_f32_e32 v1, v2, v3";
    const char *b[] = {v, v, v, MFMA16, v, v, v, v, v, MFMA16, v, v, BR};
    LoopReport l = model("gfx942", 4, b, N(b), NULL);
    CHECK(l.mfma_free == 6 && l.mfma == 2, "free %d (want 2 + branch + 3 = 6)", l.mfma_free);
    l = model("gfx942", 4, (const char *[]){v, v, BR}, 3, NULL);
    CHECK(l.mfma_free == 3 && l.mfma == 0 && l.mfma_busy == 0 && l.cycles == 12, "no mfma: free %d cycles %d",
          l.mfma_free, l.cycles);
}

/* Two waves on a SIMD (a workgroup of 8 waves on CDNA's 4 SIMDs): they share its matrix unit and its
 * VALU, an iteration is the time in which each does one, and the busy share is the unit's. */
static void test_waves_sharing_a_simd(void)
{
    const char *m[] = {MFMA16, "v_mfma_f32_16x16x16_bf16 v[4:7], v[64:65], v[66:67], v[4:7]",
                       "v_mfma_f32_16x16x16_bf16 v[8:11], v[64:65], v[66:67], v[8:11]",
                       "v_mfma_f32_16x16x16_bf16 v[12:15], v[64:65], v[66:67], v[12:15]", BR};
    LoopReport l = model("gfx942", 8, m, N(m), NULL);
    CHECK(l.cycles == 2 * 4 * 16 && l.mfma_busy == l.cycles, "2 waves x 4 MFMAs: %d cycles, busy %d", l.cycles,
          l.mfma_busy);
    LoopParams alone = report_loop_params;
    alone.simd_waves = 1; /* one wave with the SIMD to itself, as llvm-mca models it */
    l = model("gfx942", 8, m, N(m), &alone);
    CHECK(l.cycles == 4 * 16, "8 waves, one scheduled: %d", l.cycles);
    l = model("gfx942", 5, m, N(m), NULL);
    CHECK(l.cycles == 128, "5 waves: 2 on the first SIMD: %d", l.cycles);
    /* a load waited at once, no barrier: the older wave wins every tie and runs ahead; the younger's
     * MFMAs fill the older's waits and, once the older is done, it runs alone with its own waits
     * unhidden. The rounds are averaged over the whole run: between the two waves' MFMAs alone (a
     * floor) and each wave alone one after the other (a ceiling) */
    const char *early[23];
    early[0] = LOAD;
    early[1] = "s_waitcnt vmcnt(0)";
    for (int i = 0; i < 20; i++)
        early[2 + i] = MFMA32;
    early[22] = BR;
    LoopReport solo = model("gfx942", 4, early, 23, NULL);
    l = model("gfx942", 8, early, 23, NULL);
    CHECK(l.cycles >= 2 * 20 * 32 && l.cycles < 2 * solo.cycles && l.mfma_busy <= 2 * 20 * 32,
          "load waited at once, 2 waves: %d cycles (alone %d) busy %d", l.cycles, solo.cycles, l.mfma_busy);
    /* a barrier: both waves' MFMAs (4 x 32 each) before it, then the barrier's 32 after the second
     * wave's last MFMA issues (4 cycles into it), and the branch: 256 busy + 4 + 4 */
    const char *b[] = {MFMA32, "v_mfma_f32_32x32x8_bf16 a[16:31], v[64:65], v[66:67], a[16:31]",
                       "v_mfma_f32_32x32x8_bf16 a[32:47], v[64:65], v[66:67], a[32:47]",
                       "v_mfma_f32_32x32x8_bf16 a[48:63], v[64:65], v[66:67], a[48:63]", "s_barrier", BR};
    l = model("gfx942", 8, b, N(b), NULL);
    CHECK(l.cycles == 264 && l.mfma_busy == 256 && l.stalls[STALL_BARRIER] + l.stalls[STALL_SALU] == 8 &&
              l.stalls[STALL_BARRIER] >= 3 && l.stalls[STALL_SALU] >= 3, /* the window's shares, rounded */
          "barrier, 2 waves: %d cycles busy %d barrier %d", l.cycles, l.mfma_busy, l.stalls[STALL_BARRIER]);
    l = model("gfx942", 4, b, N(b), NULL);
    CHECK(l.cycles == 96 + 4 + 32 + 4, "barrier, 1 wave: %d", l.cycles); /* 4th MFMA at 96 */
    /* ten VALU ops a wave: the SIMD's VALU issues one every 4 cycles, for either wave. The older wave
     * has it whenever it can issue, the younger only in the older's branch slots (an SALU) until the
     * older is done: 80 VALU cycles a round, and the branches' few slots the VALU then idles */
    const char *v = "v_add_f32_e32 v1, v2, v3";
    const char *vb[] = {v, v, v, v, v, v, v, v, v, v, BR};
    l = model("gfx942", 8, vb, N(vb), NULL);
    CHECK(l.cycles >= 2 * 10 * 4 && l.cycles <= 2 * 11 * 4, "VALU shared by 2 waves: %d", l.cycles);
    /* with a barrier they keep pace: the first's ten, the second's ten, the barrier, a branch. The
     * second finishes last, and its time is charged: waiting for the VALU and issuing (80, less the
     * slot its branch took while the first waited at the barrier), the barrier's latency (32) */
    const char *vbb[] = {v, v, v, v, v, v, v, v, v, v, "s_barrier", BR};
    l = model("gfx942", 8, vbb, N(vbb), NULL);
    CHECK(l.cycles == 80 + 32 + 4 && l.stalls[STALL_VALU] >= 76 && l.stalls[STALL_BARRIER] == 32,
          "VALU and a barrier, 2 waves: %d (valu %d barrier %d)", l.cycles, l.stalls[STALL_VALU],
          l.stalls[STALL_BARRIER]);
    l = model("gfx942", 4, vb, N(vb), NULL);
    CHECK(l.cycles == 11 * 4, "VALU, 1 wave: %d", l.cycles);
    /* two workgroups of 4 waves resident at once (LoopParams.workgroups, the occupancy): one wave of
     * each a SIMD, each with its own barriers, so one's MFMAs run while the other waits at its
     * barrier: 4 x 32 a workgroup's iteration, the unit always busy (alone: 136, above), within the
     * measured window's edges (the two workgroups finish their iterations half a round apart) */
    LoopParams two = report_loop_params;
    two.workgroups = 2;
    l = model("gfx942", 4, b, N(b), &two);
    CHECK(l.cycles >= 128 && l.cycles <= 130 && l.mfma_busy >= 124, "2 workgroups, barrier: %d cycles busy %d",
          l.cycles, l.mfma_busy);
    /* two workgroups, no barrier: each wave waits for an LDS read (64 cycles) and then runs 8 MFMAs
     * (128), so the other's MFMAs fill its wait and the unit is always busy: 128 cycles a workgroup's
     * iteration. The older wins every tie and runs ahead; when its workgroup is done the next one
     * takes the slot, the youngest (LoopParams.workgroups: the steady state, every slot busy). Ending
     * the window with the older's last iteration instead left the younger to run its last alone, its
     * waits unhidden: 144. */
    const char *rm[] = {"ds_read_b64 v[80:81], v90", "v_add_u32_e32 v91, 1, v91", "s_waitcnt lgkmcnt(0)",
                        "v_mfma_f32_16x16x16_bf16 v[0:3], v[80:81], v[66:67], v[0:3]",
                        "v_mfma_f32_16x16x16_bf16 v[4:7], v[80:81], v[66:67], v[4:7]",
                        "v_mfma_f32_16x16x16_bf16 v[8:11], v[80:81], v[66:67], v[8:11]",
                        "v_mfma_f32_16x16x16_bf16 v[12:15], v[80:81], v[66:67], v[12:15]",
                        "v_mfma_f32_16x16x16_bf16 v[16:19], v[80:81], v[66:67], v[16:19]",
                        "v_mfma_f32_16x16x16_bf16 v[20:23], v[80:81], v[66:67], v[20:23]",
                        "v_mfma_f32_16x16x16_bf16 v[24:27], v[80:81], v[66:67], v[24:27]",
                        "v_mfma_f32_16x16x16_bf16 v[28:31], v[80:81], v[66:67], v[28:31]", BR};
    l = model("gfx942", 4, rm, N(rm), &two);
    CHECK(l.cycles == 128 && l.mfma_busy == 128, "2 workgroups, an LDS wait each: %d cycles busy %d", l.cycles,
          l.mfma_busy);
    /* the same body ending in its barrier (no branch): the iteration ends as the barrier opens, and
     * the slot is refilled there too (a review found it was not: the younger then ran alone, 172);
     * the barrier's 32 cycles partly uncovered: 144 */
    rm[N(rm) - 1] = "s_barrier";
    l = model("gfx942", 4, rm, N(rm), &two);
    CHECK(l.cycles >= 128 && l.cycles <= 150, "2 workgroups, a barrier ending the body: %d cycles", l.cycles);
    /* scalar loads issue through the SALU: 2 waves x (s_load + 3 s_add + the branch) slots of 4 */
    const char *sa = "s_add_u32 s0, s1, s2";
    const char *sm[] = {"s_load_dwordx2 s[4:5], s[0:1], 0x0", sa, sa, sa, BR};
    l = model("gfx942", 8, sm, N(sm), NULL);
    CHECK(l.cycles == 2 * 5 * 4, "SMEM and SALU, 2 waves: %d", l.cycles);
    /* floors, whatever the order (a review's bodies, under them with a single measured window): a
     * round takes at least the SIMD's waves' MFMA cycles, and the workgroup's LDS bytes at 128 a
     * clock (16 waves: 4 a SIMD) */
    const char *lq[] = {"s_waitcnt lgkmcnt(4)", "ds_read_b128 v[54:57], v8", "ds_read_b128 v[58:61], v8", BR};
    l = model("gfx942", 16, lq, N(lq), NULL);
    CHECK(l.cycles >= 16 * 2 * 1024 / 128, "LDS floor, 16 waves: %d", l.cycles);
    const char *st[] = {"s_nop 3", "s_waitcnt vmcnt(2)", "buffer_store_dword v48, v1, s[0:3], 0 offen", MFMA32,
                        "s_waitcnt vmcnt(2) lgkmcnt(3)", BR};
    l = model("gfx942", 16, st, N(st), NULL);
    CHECK(l.cycles >= 4 * 32 && l.mfma_busy <= l.cycles, "MFMA floor, 16 waves: %d (busy %d)", l.cycles, l.mfma_busy);
    /* LDS: 8 waves x 8 reads x 1 KiB at 128 bytes a clock, whichever SIMD they come from */
    const char *rd = "ds_read_b128 v[0:3], v8";
    const char *lb[] = {rd, rd, rd, rd, rd, rd, rd, rd, "s_waitcnt lgkmcnt(0)", BR};
    l = model("gfx942", 8, lb, N(lb), NULL);
    CHECK(l.cycles == 8 * 8 * 1024 / 128, "LDS, 8 waves: %d", l.cycles);
}

static void test_no_model(void)
{
    Arena a;
    arena_init(&a, arena_default_allocator);
    LoopReport l;
    const char *b[] = {MFMA16, BR};
    CHECK(report_loop_model(&a, "gfx1100", 4, b, 2, NULL, &l) == -1 && l.cycles == 0, "gfx1100 has no model");
    CHECK(report_loop_model(&a, "gfx908", 4, b, 2, NULL, &l) == -1, "gfx908 has no model");
    CHECK(report_loop_has_model("gfx942") && report_loop_has_model("gfx90a") && report_loop_has_model("gfx950") &&
              report_loop_has_model("gfx940") && !report_loop_has_model(NULL),
          "models");
    /* garbage lines are instructions of no known class, never a crash */
    const char *junk[] = {"", "v[", "s_waitcnt vmcnt(", "v_mfma_f32_16x16x16_bf16 v[3:1], a[999:1000]", "ds_read_b128",
                          "s_nop", BR};
    CHECK(report_loop_model(&a, "gfx942", 0, junk, N(junk), NULL, &l) == 0 && l.cycles > 0, "junk: %d", l.cycles);
    arena_free(&a);
}

/* A mnemonic without its underscores and CDNA2's "_1k" suffix: LLVM spells gfx90a's ops
 * (v_mfma_f32_16x16x16bf16_1k) unlike gfx942's and AMD's CDNA3 guide (v_mfma_f32_16x16x16_bf16). */
static void plain_name(const char *mn, char *out, size_t cap)
{
    size_t n = 0;
    for (const char *c = mn; *c && n + 1 < cap; c++)
        if (*c != '_')
            out[n++] = *c;
    out[n] = 0;
    if (n >= 2 && !strcmp(out + n - 2, "1k"))
        out[n - 2] = 0;
}

/* The model's table (report_loop.def, read here as data) against isa/mfma.def: each op of the ISA
 * table on each family that has it is in the model's table, at 4 cycles a pass. */
static void test_mfma_tables_agree(void)
{
    static const struct {
        const char *mnemonic;
        int cycles[3];
    } model_mfmas[] = {
#define KIND(p, k, i)
#define MFMA(m, c2, c3, c4) {m, {c2, c3, c4}},
#include "compiler/target/amdgpu/report_loop.def"
#undef KIND
#undef MFMA
    };
    const unsigned fams[3] = {MFMA_CDNA2, MFMA_CDNA3, MFMA_CDNA4};
    int compared = 0;
    for (int op = 0; op < MFMA_COUNT; op++) {
        const MfmaInfo *in = isa_mfma_info((MfmaOp)op);
        char want[64];
        plain_name(in->name, want, sizeof want);
        for (int f = 0; f < 3; f++) {
            int passes = isa_mfma_passes(in, fams[f]);
            if (!passes)
                continue;
            int cycles = -1;
            for (int i = 0; i < N(model_mfmas); i++) {
                char have[64];
                plain_name(model_mfmas[i].mnemonic, have, sizeof have);
                if (!strcmp(have, want) && model_mfmas[i].cycles[f])
                    cycles = model_mfmas[i].cycles[f];
            }
            CHECK(cycles == 4 * passes, "%s on CDNA%d: the loop model's %d cycles, isa/mfma.def's %d passes", in->name,
                  f + 2, cycles, passes);
            compared++;
        }
    }
    CHECK(compared >= 37, "%d (op, family) pairs compared, not every one of the table's 37", compared);
}

int main(void)
{
    test_mfma_tables_agree();
    test_mfma_back_to_back();
    test_load_latency();
    test_counters();
    test_hiding();
    test_lds();
    test_dependences_and_issue();
    test_mfma_free();
    test_waves_sharing_a_simd();
    test_no_model();
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
