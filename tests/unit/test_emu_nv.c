/* Tests of the emulator running emu_sm90 code (EmuLaunch.wave = 32): kernels written by hand in C
 * against the emu ABI, as the sm_90 lowering compiled for the host produces them.
 *
 * Covered: waves of 32 (bpermute as shfl.sync.idx, ballot with 32 bits, readlane, barriers between
 * waves of 32, lanes of the same wave at different barriers or returned); mma.sync and ldmatrix through
 * EmuFns against a triple loop and the PTX ISA's figures (packed here by hand, not by mma_ref); the
 * operations refused on the wrong wave size; cp.async (the destination poisoned until the wait that
 * covers its group, wait_group n leaving the n most recent groups pending, zero fill, the source read
 * at completion, bounds and alignment checks with their messages); the launch's wave size checks; a
 * 64-lane launch after a 32-lane one on the same pooled workers. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/emu/emu.h"

static int failures;

#define CHECK(c)                                                                                                   \
    do {                                                                                                           \
        if (!(c)) {                                                                                                \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);                                  \
            failures++;                                                                                            \
        }                                                                                                          \
    } while (0)

#define CHECK_MSG(got, want)                                                                                       \
    do {                                                                                                           \
        if (strcmp((got), (want)) != 0) {                                                                          \
            fprintf(stderr, "%s:%d: message\n  got:  %s\n  want: %s\n", __FILE__, __LINE__, (got), (want));        \
            failures++;                                                                                            \
        }                                                                                                          \
    } while (0)

static char msg[512];

static EmuStatus launch(const char *name, EmuKernelFn fn, const void *args, uint32_t nwg, uint32_t block,
                        uint32_t lds, int wave, int threads)
{
    EmuLaunch p = {.kernel_name = name, .entry = fn, .kernarg = args, .grid = {nwg, 1, 1}, .block = block,
                   .lds_bytes = lds, .wave = wave, .threads = threads};
    return emu_launch(&p, msg, sizeof msg);
}

static uint32_t gid(const EmuLane *l)
{
    return l->wg[0] * l->block + l->lane;
}

typedef struct {
    int32_t *out;
} OutArgs;

/* ---- waves of 32 --------------------------------------------------------------------------------- */

/* Per lane: a butterfly sum over the warp, the ballot of lane % 3 == 0, readlane 37 (37 % 32 = 5), a
 * shuffle reading lane (l + 1) % 32, and, after a barrier, a value another warp stored in LDS. */
static void k_warp(const void *ka, EmuLane *l)
{
    const OutArgs *A = ka;
    int32_t wl = (int32_t)(l->lane % 32);
    int32_t *o = &A->out[gid(l) * 6];
    int32_t v = (int32_t)gid(l);
    for (int32_t off = 16; off > 0; off /= 2)
        v += l->fns->bpermute(l, (wl ^ off) * 4, v);
    o[0] = v;
    uint64_t m = l->fns->ballot(l, wl % 3 == 0);
    o[1] = (int32_t)m;
    o[2] = (int32_t)(m >> 32);
    o[3] = l->fns->readlane(l, (int32_t)gid(l), 37);
    o[4] = l->fns->bpermute(l, (wl + 1) * 4, (int32_t)gid(l)); /* lane 31 asks for 32: wraps to 0 */
    int32_t *lds = (int32_t *)(void *)l->lds;
    l->fns->check(l, &lds[l->lane], 4, EMU_ACCESS_STORE | EMU_ACCESS_LDS, "warp.tile:1:1");
    lds[l->lane] = (int32_t)l->lane * 7;
    l->fns->barrier(l);
    uint32_t other = (l->lane + 32) % l->block; /* the same place in the next warp */
    o[5] = lds[other];
}

static void test_warp_ops(void)
{
    enum { B = 128, NWG = 3, N = B * NWG };
    int32_t *out = calloc(N * 6, 4);
    emu_mem_register(out, N * 6 * 4);
    OutArgs a = {out};
    CHECK(launch("warp", k_warp, &a, NWG, B, B * 4, 32, 2) == EMU_OK);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        int w = i / 32, wl = i % 32;
        int32_t *o = &out[i * 6];
        int32_t sum = 0;
        for (int j = 0; j < 32; j++)
            sum += w * 32 + j;
        bad += o[0] != sum;
        bad += o[1] != (int32_t)0x49249249 || o[2] != 0; /* 32 bits only */
        bad += o[3] != w * 32 + 5;
        bad += o[4] != w * 32 + (wl + 1) % 32;
        bad += o[5] != ((i % B + 32) % B) * 7;
    }
    CHECK(bad == 0);
    emu_mem_unregister(out);
    free(out);
}

/* The first warp returns, then the second reaches a barrier: an error naming both. */
static void k_split(const void *ka, EmuLane *l)
{
    (void)ka;
    if (l->lane >= 32)
        l->fns->barrier(l);
}

/* Half a warp at a shuffle, the other half returned. */
static void k_half_shfl(const void *ka, EmuLane *l)
{
    (void)ka;
    if (l->lane % 32 < 16)
        l->fns->bpermute(l, 0, 1);
}

static void k_dpp32(const void *ka, EmuLane *l)
{
    (void)ka;
    l->fns->dpp(l, 0, 1, 0x111, 0xf, 0xf, 0);
}

static void k_mma64(const void *ka, EmuLane *l)
{
    (void)ka;
    uint32_t a[4] = {0}, b[2] = {0};
    float c[4] = {0}, d[4];
    l->fns->mma_sync(l, 0, a, b, c, d);
}

static void k_nothing(const void *ka, EmuLane *l)
{
    (void)ka;
    (void)l;
}

static void test_warp_errors(void)
{
    CHECK(launch("split", k_split, NULL, 1, 64, 0, 32, 1) == EMU_ERR_WAVE);
    CHECK_MSG(msg, "kernel split, workgroup (0, 0, 0), lane 32: a barrier not every wave reaches: wave 1 waits at the "
                   "barrier; wave 0 returned");
    CHECK(launch("half", k_half_shfl, NULL, 1, 32, 0, 32, 1) == EMU_ERR_WAVE);
    CHECK_MSG(msg, "kernel half, workgroup (0, 0, 0), lane 16: wave operation reached by only some lanes (lane 0 "
                   "at bpermute, lane 16 returned)");
    CHECK(launch("dpp", k_dpp32, NULL, 1, 32, 0, 32, 1) == EMU_ERR_INVALID);
    CHECK_MSG(msg, "kernel dpp, workgroup (0, 0, 0), lane 0: dpp on a wave of 32 lanes (DPP is a wave64 operation)");
    CHECK(launch("mma", k_mma64, NULL, 1, 64, 0, 64, 1) == EMU_ERR_INVALID);
    CHECK_MSG(msg, "kernel mma, workgroup (0, 0, 0), lane 0: mma.sync on a wave of 64 lanes (it is a 32-lane warp "
                   "operation)");
    CHECK(launch("k", k_nothing, NULL, 1, 48, 0, 32, 1) == EMU_ERR_INVALID);
    CHECK_MSG(msg, "kernel k: a block of 48 work-items is not a whole number of waves of 32");
    CHECK(launch("k", k_nothing, NULL, 1, 64, 0, 16, 1) == EMU_ERR_INVALID);
    CHECK_MSG(msg, "kernel k: waves of 16 lanes (the emulator runs 64 or 32)");
    /* a block of 32 is fine with waves of 32, and a block of 1024 is 32 of them */
    CHECK(launch("k", k_nothing, NULL, 2, 32, 0, 32, 1) == EMU_OK);
    CHECK(launch("k", k_nothing, NULL, 2, 1024, 0, 32, 2) == EMU_OK);
}

/* ---- mma.sync and ldmatrix through EmuFns --------------------------------------------------------- */

typedef struct {
    const uint16_t *A; /* 16 x 16 f16, row-major */
    const uint16_t *B; /* 16 x 8 f16, row-major (k, n) */
    float *D;          /* 16 x 8 per warp */
} MmaArgs;

static uint32_t pair(const uint16_t *p, int i, int j)
{
    return (uint32_t)p[i] | (uint32_t)p[j] << 16;
}

/* Each warp: its operands packed per the PTX ISA's figures (g = lane / 4, t = lane % 4), then D
 * written back through the C/D figure. */
static void k_mma(const void *ka, EmuLane *l)
{
    const MmaArgs *M = ka;
    int lane = (int)(l->lane % 32), warp = (int)(l->lane / 32), g = lane / 4, t = lane % 4;
    int r0 = g * 16 + 2 * t, r8 = (g + 8) * 16 + 2 * t; /* A's rows g and g + 8, column 2t */
    uint32_t a[4] = {pair(M->A, r0, r0 + 1), pair(M->A, r8, r8 + 1), pair(M->A, r0 + 8, r0 + 9),
                     pair(M->A, r8 + 8, r8 + 9)};
    uint32_t b[2] = {pair(M->B, (2 * t) * 8 + g, (2 * t + 1) * 8 + g),
                     pair(M->B, (2 * t + 8) * 8 + g, (2 * t + 9) * 8 + g)};
    float c[4] = {(float)warp, (float)warp, (float)warp, (float)warp}, d[4];
    l->fns->mma_sync(l, 0, a, b, c, d);
    float *D = M->D + warp * 128;
    D[g * 8 + 2 * t] = d[0];
    D[g * 8 + 2 * t + 1] = d[1];
    D[(g + 8) * 8 + 2 * t] = d[2];
    D[(g + 8) * 8 + 2 * t + 1] = d[3];
}

static uint16_t small_f16(int v) /* -8 .. 8, exactly */
{
    if (v == 0)
        return 0;
    int a = v < 0 ? -v : v, e = 0;
    while ((a >> e) > 1)
        e++;
    uint16_t man = (uint16_t)(((a << 10) >> e) & 0x3ff);
    return (uint16_t)((v < 0 ? 0x8000 : 0) | (e + 15) << 10 | man);
}

static void test_mma(void)
{
    uint16_t A[256], B[128];
    int Ai[256], Bi[128];
    srand(3);
    for (int i = 0; i < 256; i++)
        A[i] = small_f16(Ai[i] = rand() % 17 - 8);
    for (int i = 0; i < 128; i++)
        B[i] = small_f16(Bi[i] = rand() % 17 - 8);
    float *D = calloc(2 * 128, sizeof *D);
    MmaArgs m = {A, B, D};
    CHECK(launch("mma", k_mma, &m, 1, 64, 0, 32, 1) == EMU_OK);
    int bad = 0;
    for (int w = 0; w < 2; w++)
        for (int r = 0; r < 16; r++)
            for (int n = 0; n < 8; n++) {
                int want = w;
                for (int k = 0; k < 16; k++)
                    want += Ai[r * 16 + k] * Bi[k * 8 + n];
                bad += D[w * 128 + r * 8 + n] != (float)want;
            }
    CHECK(bad == 0);
    free(D);
}

/* ldmatrix from LDS: element (matrix j, row r, col c) = j * 64 + r * 8 + c at LDS row (j * 8 + r) * 16
 * bytes; each lane gives its row's address; out[j] per the figure. Odd lanes also try .trans. */
static void k_ldmatrix(const void *ka, EmuLane *l)
{
    const OutArgs *A = ka;
    uint16_t *lds = (uint16_t *)(void *)l->lds;
    int lane = (int)(l->lane % 32);
    for (int c = 0; c < 8; c++)
        lds[lane * 8 + c] = (uint16_t)(lane * 8 + c);
    l->fns->barrier(l);
    uint32_t out[4], tout[4];
    l->fns->ldmatrix(l, l->lds + lane * 16, 0, out);
    l->fns->ldmatrix(l, l->lds + lane * 16, 1, tout);
    for (int j = 0; j < 4; j++) {
        A->out[gid(l) * 8 + j] = (int32_t)out[j];
        A->out[gid(l) * 8 + 4 + j] = (int32_t)tout[j];
    }
}

/* A row outside the kernel's LDS. */
static void k_ldmatrix_oob(const void *ka, EmuLane *l)
{
    (void)ka;
    uint32_t out[4];
    l->fns->ldmatrix(l, l->lds + (l->lane % 32) * 16 + 16, 0, out);
}

static void test_ldmatrix(void)
{
    int32_t *out = calloc(64 * 8, 4);
    OutArgs a = {out};
    CHECK(launch("ldm", k_ldmatrix, &a, 1, 64, 512, 32, 1) == EMU_OK);
    int bad = 0;
    for (int i = 0; i < 64; i++) {
        int t = i % 32;
        for (int j = 0; j < 4; j++) {
            uint32_t lo = (uint32_t)(j * 64 + (t / 4) * 8 + 2 * (t % 4));
            uint32_t tlo = (uint32_t)(j * 64 + 2 * (t % 4) * 8 + t / 4);
            bad += (uint32_t)out[i * 8 + j] != (lo | (lo + 1) << 16);
            bad += (uint32_t)out[i * 8 + 4 + j] != (tlo | (tlo + 8) << 16);
        }
    }
    CHECK(bad == 0);
    free(out);
    CHECK(launch("ldm", k_ldmatrix_oob, NULL, 1, 32, 512, 32, 1) == EMU_ERR_ACCESS);
    CHECK_MSG(msg, "kernel ldm, workgroup (0, 0, 0), lane 31: out-of-bounds ldmatrix row of 16 bytes at LDS offset "
                   "512, LDS is 512 bytes");
}

/* ---- cp.async ----------------------------------------------------------------------------------- */

typedef struct {
    const int32_t *src; /* 4 words per lane and stage */
    int32_t *out;       /* 16 words per lane */
} CpArgs;

/* Three groups of one 16-byte copy each (the third with no source: zeros), observed as the waits
 * complete them: poison before, the data after; the source is changed after issue and before the
 * wait, and the new value lands. */
static void k_cp(const void *ka, EmuLane *l)
{
    const CpArgs *A = ka;
    int32_t *s = (int32_t *)(void *)l->lds + l->lane * 12; /* 3 stages of 4 words */
    int32_t *o = &A->out[gid(l) * 16];
    const int32_t *src = &A->src[gid(l) * 8];
    for (int g = 0; g < 3; g++) {
        l->fns->cp_async(l, s + 4 * g, src + 4 * (g % 2), 16, g == 2 ? 0 : 16, "cp.tile:1:1");
        l->fns->cp_async_commit(l);
    }
    ((int32_t *)src)[4] += 1000; /* group 1's source, before its copy completes */
    l->fns->cp_async_wait(l, 2); /* group 0 done */
    o[0] = s[0];
    o[1] = s[4];
    o[2] = s[8];
    l->fns->cp_async_wait(l, 1); /* group 1 */
    o[3] = s[4];
    o[4] = s[8];
    l->fns->cp_async_wait(l, 0); /* group 2: zeros */
    o[5] = s[8];
    o[6] = s[11];
    /* copies issued but not committed are not completed by wait_group 0 */
    l->fns->cp_async(l, s, src, 4, 4, "cp.tile:9:1");
    l->fns->cp_async_wait(l, 0);
    o[7] = s[0];
    l->fns->cp_async_commit(l);
    l->fns->cp_async_wait(l, 0);
    o[8] = s[0];
}

static void k_cp_oob_src(const void *ka, EmuLane *l)
{
    const CpArgs *A = ka;
    l->fns->cp_async(l, l->lds, A->src + 4, 16, 16, "cp.tile:3:7");
}

static void k_cp_oob_dst(const void *ka, EmuLane *l)
{
    const CpArgs *A = ka;
    l->fns->cp_async(l, l->lds + 64, A->src, 8, 8, "cp.tile:4:7");
}

static void k_cp_misaligned(const void *ka, EmuLane *l)
{
    const CpArgs *A = ka;
    l->fns->cp_async(l, l->lds + 8, A->src, 16, 16, "cp.tile:5:7");
}

static void k_cp_size(const void *ka, EmuLane *l)
{
    const CpArgs *A = ka;
    l->fns->cp_async(l, l->lds, A->src, 12, 12, "cp.tile:6:7");
}

static void test_cp_async(void)
{
    enum { B = 64, NWG = 2, N = B * NWG };
    int32_t *src = malloc(N * 8 * 4), *out = calloc(N * 16, 4);
    for (int i = 0; i < N * 8; i++)
        src[i] = i + 1;
    emu_mem_register(src, N * 8 * 4);
    emu_mem_register(out, N * 16 * 4);
    CpArgs a = {src, out};
    CHECK(launch("cp", k_cp, &a, NWG, B, B * 48, 32, 2) == EMU_OK);
    const int32_t P = (int32_t)0xFEFEFEFE;
    int bad = 0;
    for (int i = 0; i < N; i++) {
        const int32_t *o = &out[i * 16];
        int32_t s0 = i * 8 + 1, s1 = i * 8 + 5 + 1000;
        bad += o[0] != s0 || o[1] != P || o[2] != P;
        bad += o[3] != s1 || o[4] != P;
        bad += o[5] != 0 || o[6] != 0;
        bad += o[7] != P || o[8] != s0;
    }
    CHECK(bad == 0);

    char want[512];
    CHECK(launch("cp", k_cp_oob_src, &a, 1, 32, 64, 32, 1) == EMU_OK);
    emu_mem_unregister(src);
    emu_mem_register(src, 16);
    CHECK(launch("cp", k_cp_oob_src, &a, 1, 32, 64, 32, 1) == EMU_ERR_ACCESS);
    snprintf(want, sizeof want,
             "kernel cp, workgroup (0, 0, 0), lane 0: out-of-bounds load of 16 bytes at 0x%" PRIxPTR " (cp.tile:3:7)",
             (uintptr_t)(src + 4));
    CHECK_MSG(msg, want);
    CHECK(launch("cp", k_cp_oob_dst, &a, 1, 32, 64, 32, 1) == EMU_ERR_ACCESS);
    CHECK_MSG(msg, "kernel cp, workgroup (0, 0, 0), lane 0: out-of-bounds LDS store of 8 bytes at offset 64, LDS is "
                   "64 bytes (cp.tile:4:7)");
    CHECK(launch("cp", k_cp_misaligned, &a, 1, 32, 64, 32, 1) == EMU_ERR_ACCESS);
    snprintf(want, sizeof want,
             "kernel cp, workgroup (0, 0, 0), lane 0: cp.async of 16 bytes from %p to LDS offset 8: misaligned at "
             "cp.tile:5:7",
             (void *)src);
    CHECK_MSG(msg, want);
    CHECK(launch("cp", k_cp_size, &a, 1, 32, 64, 32, 1) == EMU_ERR_INVALID);
    CHECK_MSG(msg, "kernel cp, workgroup (0, 0, 0), lane 0: cp.async of 12 bytes (4, 8 or 16)");
    emu_mem_unregister(src);
    emu_mem_unregister(out);
    free(src);
    free(out);
}

/* ---- back to waves of 64 on the same workers -------------------------------------------------------- */

static void k_lanes64(const void *ka, EmuLane *l)
{
    const OutArgs *A = ka;
    int32_t wl = (int32_t)(l->lane % 64);
    A->out[gid(l)] = l->fns->bpermute(l, ((wl + 33) % 64) * 4, (int32_t)gid(l));
}

static void test_back_to_64(void)
{
    enum { B = 256, NWG = 4, N = B * NWG };
    int32_t *out = calloc(N, 4);
    emu_mem_register(out, N * 4);
    OutArgs a = {out};
    CHECK(launch("l64", k_lanes64, &a, NWG, B, 0, 0, 2) == EMU_OK);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += out[i] != (i / 64) * 64 + (i % 64 + 33) % 64;
    CHECK(bad == 0);
    emu_mem_unregister(out);
    free(out);
}

int main(void)
{
    test_warp_ops();
    test_warp_errors();
    test_mma();
    test_ldmatrix();
    test_cp_async();
    test_back_to_64();
    test_warp_ops();
    if (failures) {
        fprintf(stderr, "test_emu_nv: %d failures\n", failures);
        return 1;
    }
    printf("test_emu_nv: ok\n");
    return 0;
}
