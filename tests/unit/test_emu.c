/* Tests of the emulator (runtime/emu): kernels written by hand in C against the emu ABI, as the emu
 * lowering will produce them, run through emu_launch.
 *
 * Covered: the lane and workgroup ids; global and LDS checks; barriers; every wave operation (a DPP
 * table written from AMD's CDNA3 ISA guide, "Microcode Formats: DPP", tables "DPP Fields" and
 * "DPP_CTRL Enumeration"); an MFMA through the reference semantics; each error with its exact message;
 * many workgroups over several threads against one thread; print ordering; deep lane stacks. It ends
 * with timings, printed: the cost of one fiber switch and of launches heavy in barriers and permutes. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/emu/emu.h"
#include "runtime/emu/emu_fiber.h"
#include "runtime/emu/mfma_ref.h"

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

static EmuStatus launch(const char *name, EmuKernelFn fn, const void *args, uint32_t gx, uint32_t gy, uint32_t gz,
                        uint32_t block, uint32_t lds, int threads)
{
    EmuLaunch p = {.kernel_name = name, .entry = fn, .kernarg = args, .grid = {gx, gy, gz}, .block = block,
                   .lds_bytes = lds, .threads = threads};
    return emu_launch(&p, msg, sizeof msg);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t gid(const EmuLane *l)
{
    return l->wg[0] * l->block + l->lane;
}

/* ---- ids ---------------------------------------------------------------------------------------- */

typedef struct {
    uint32_t *out; /* 8 words per lane */
} IdArgs;

static void k_ids(const void *ka, EmuLane *l)
{
    const IdArgs *A = ka;
    uint32_t wg = l->wg[0] + l->nwg[0] * (l->wg[1] + l->nwg[1] * l->wg[2]);
    uint32_t *o = &A->out[(wg * l->block + l->lane) * 8];
    l->fns->check(l, o, 32, EMU_ACCESS_STORE, "ids.tile:1:1");
    uint32_t v[8] = {l->lane, l->wg[0], l->wg[1], l->wg[2], l->nwg[0] * 100 + l->nwg[1] * 10 + l->nwg[2], l->block,
                     l->lds_size, l->lds != NULL};
    memcpy(o, v, sizeof v);
}

static void test_ids(void)
{
    enum { B = 128, NWG = 2 * 3 * 2 };
    uint32_t *out = calloc(NWG * B * 8, sizeof *out);
    emu_mem_register(out, NWG * B * 8 * sizeof *out);
    IdArgs a = {out};
    CHECK(launch("ids", k_ids, &a, 2, 3, 2, B, 256, 2) == EMU_OK);
    int bad = 0;
    for (uint32_t z = 0; z < 2; z++)
        for (uint32_t y = 0; y < 3; y++)
            for (uint32_t x = 0; x < 2; x++)
                for (uint32_t t = 0; t < B; t++) {
                    uint32_t *o = &out[((x + 2 * (y + 3 * z)) * B + t) * 8];
                    uint32_t want[8] = {t, x, y, z, 232, B, 256, 1};
                    bad += memcmp(o, want, sizeof want) != 0;
                }
    CHECK(bad == 0);
    emu_mem_unregister(out);
    free(out);
}

/* ---- vector add and global checks --------------------------------------------------------------- */

typedef struct {
    const float *a, *b;
    float *c;
    int32_t n;
} VaddArgs;

static void k_vadd(const void *ka, EmuLane *l)
{
    const VaddArgs *A = ka;
    uint32_t i = gid(l);
    if (i < (uint32_t)A->n) {
        l->fns->check(l, &A->a[i], 4, EMU_ACCESS_LOAD, "vadd.tile:3:9");
        l->fns->check(l, &A->b[i], 4, EMU_ACCESS_LOAD, "vadd.tile:3:17");
        l->fns->check(l, &A->c[i], 4, EMU_ACCESS_STORE, "vadd.tile:3:5");
        A->c[i] = A->a[i] + A->b[i];
    }
}

static void test_vadd(void)
{
    enum { N = 1000 };
    float *a = malloc(N * 4), *b = malloc(N * 4), *c = malloc(N * 4);
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i;
        c[i] = -1;
    }
    emu_mem_register(a, N * 4);
    emu_mem_register(b, N * 4);
    emu_mem_register(c, N * 4);
    VaddArgs args = {a, b, c, N};
    CHECK(launch("vadd", k_vadd, &args, 4, 1, 1, 256, 0, 0) == EMU_OK);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += c[i] != 1.5f * (float)i;
    CHECK(bad == 0);

    /* one element past the end of b: workgroup 3, lane 1000 - 768 */
    args.n = N + 1;
    char want[512];
    CHECK(launch("vadd", k_vadd, &args, 4, 1, 1, 256, 0, 1) == EMU_ERR_ACCESS);
    snprintf(want, sizeof want,
             "kernel vadd, workgroup (3, 0, 0), lane 232: out-of-bounds load of 4 bytes at 0x%" PRIxPTR
             " (vadd.tile:3:9)",
             (uintptr_t)&a[N]);
    CHECK_MSG(msg, want);

    /* an unregistered buffer: the store fails, on several threads too */
    args.n = N;
    emu_mem_unregister(c);
    CHECK(launch("vadd", k_vadd, &args, 4, 1, 1, 256, 0, 1) == EMU_ERR_ACCESS);
    snprintf(want, sizeof want,
             "kernel vadd, workgroup (0, 0, 0), lane 0: out-of-bounds store of 4 bytes at 0x%" PRIxPTR
             " (vadd.tile:3:5)",
             (uintptr_t)c);
    CHECK_MSG(msg, want);
    emu_mem_unregister(a);
    emu_mem_unregister(b);
    free(a);
    free(b);
    free(c);
}

/* ---- LDS and barriers ------------------------------------------------------------------------- */

typedef struct {
    const int32_t *in;
    int32_t *out;
} SumArgs;

/* The workgroup's sum by a tree in LDS, one barrier per level. */
static void k_wgsum(const void *ka, EmuLane *l)
{
    const SumArgs *A = ka;
    int32_t *lds = (int32_t *)(void *)l->lds;
    uint32_t t = l->lane;
    l->fns->check(l, &A->in[gid(l)], 4, EMU_ACCESS_LOAD, "sum.tile:2:9");
    l->fns->check(l, &lds[t], 4, EMU_ACCESS_STORE | EMU_ACCESS_LDS, "sum.tile:2:5");
    lds[t] = A->in[gid(l)];
    l->fns->barrier(l);
    for (uint32_t s = l->block / 2; s > 0; s /= 2) {
        if (t < s) {
            l->fns->check(l, &lds[t + s], 4, EMU_ACCESS_LOAD | EMU_ACCESS_LDS, "sum.tile:4:9");
            lds[t] += lds[t + s];
        }
        l->fns->barrier(l);
    }
    if (t == 0) {
        l->fns->check(l, &A->out[l->wg[0]], 4, EMU_ACCESS_STORE, "sum.tile:6:5");
        A->out[l->wg[0]] = lds[0];
    }
}

static void test_wgsum(uint32_t block, uint32_t nwg, int threads)
{
    int32_t *in = malloc(block * nwg * 4), *out = malloc(nwg * 4), *ref = calloc(nwg, 4);
    for (uint32_t i = 0; i < block * nwg; i++) {
        in[i] = (int32_t)(i * 2654435761u >> 20);
        ref[i / block] += in[i];
    }
    emu_mem_register(in, block * nwg * 4);
    emu_mem_register(out, nwg * 4);
    SumArgs a = {in, out};
    CHECK(launch("wgsum", k_wgsum, &a, nwg, 1, 1, block, block * 4, threads) == EMU_OK);
    CHECK(memcmp(out, ref, nwg * 4) == 0);
    emu_mem_unregister(in);
    emu_mem_unregister(out);
    free(in);
    free(out);
    free(ref);
}

/* LDS starts poisoned; a store one word past the kernel's LDS fails. */
static void k_lds(const void *ka, EmuLane *l)
{
    const SumArgs *A = ka;
    uint32_t *lds = (uint32_t *)(void *)l->lds;
    l->fns->check(l, &lds[l->lane], 4, EMU_ACCESS_LOAD | EMU_ACCESS_LDS, "lds.tile:1:1");
    l->fns->check(l, &A->out[gid(l)], 4, EMU_ACCESS_STORE, "lds.tile:1:1");
    A->out[gid(l)] = (int32_t)lds[l->lane];
    l->fns->barrier(l);
    l->fns->check(l, &lds[l->lane + 1], 4, EMU_ACCESS_STORE | EMU_ACCESS_LDS, "lds.tile:5:3");
    lds[l->lane + 1] = 7;
}

static void test_lds(void)
{
    int32_t out[512] = {0};
    emu_mem_register(out, sizeof out);
    SumArgs a = {NULL, out};
    CHECK(launch("lds", k_lds, &a, 2, 1, 1, 256, 1024, 1) == EMU_ERR_ACCESS);
    CHECK_MSG(msg, "kernel lds, workgroup (0, 0, 0), lane 255: out-of-bounds LDS store of 4 bytes at offset 1024, "
                   "LDS is 1024 bytes (lds.tile:5:3)");
    int bad = 0;
    for (int i = 0; i < 256; i++)
        bad += out[i] != (int32_t)0xFEFEFEFE;
    CHECK(bad == 0);
    emu_mem_unregister(out);
}

/* ---- wave operations ---------------------------------------------------------------------------- */

typedef struct {
    int32_t *out;
} OutArgs;

/* A wave sum by a butterfly of bpermutes. */
static void k_bperm_sum(const void *ka, EmuLane *l)
{
    const OutArgs *A = ka;
    int32_t wl = (int32_t)(l->lane % 64);
    int32_t v = (int32_t)gid(l) * 3 + 1;
    for (int32_t off = 32; off > 0; off /= 2)
        v += l->fns->bpermute(l, (wl ^ off) * 4, v);
    A->out[gid(l)] = v;
}

/* An inclusive scan of the wave by DPP, as LLVM's atomic optimizer builds it: row_shr:1,2,4,8 within
 * rows, then row_bcast:15 (rows 1 and 3) and row_bcast:31 (rows 2 and 3); lane 63 has the total. */
static void k_dpp_scan(const void *ka, EmuLane *l)
{
    const OutArgs *A = ka;
    int32_t v = (int32_t)gid(l) + 1;
    for (int32_t k = 1; k <= 8; k *= 2)
        v += l->fns->dpp(l, 0, v, 0x110 + k, 0xf, 0xf, 0);
    v += l->fns->dpp(l, 0, v, 0x142, 0xa, 0xf, 0);
    v += l->fns->dpp(l, 0, v, 0x143, 0xc, 0xf, 0);
    int32_t total = l->fns->readlane(l, v, 63);
    A->out[2 * gid(l)] = v;
    A->out[2 * gid(l) + 1] = total;
}

static void k_misc(const void *ka, EmuLane *l)
{
    const OutArgs *A = ka;
    int32_t wl = (int32_t)(l->lane % 64);
    int32_t *o = &A->out[gid(l) * 6];
    uint64_t m = l->fns->ballot(l, wl % 3 == 0);
    o[0] = (int32_t)m;
    o[1] = (int32_t)(m >> 32);
    o[2] = l->fns->readlane(l, (int32_t)gid(l) * 10, 37);
    o[3] = l->fns->readfirstlane(l, (int32_t)gid(l) + 5);
    o[4] = l->fns->permute(l, ((wl + 1) % 64) * 4, (int32_t)gid(l)); /* lane i receives lane i-1's value */
    o[5] = l->fns->permute(l, 0, wl);                                 /* all to lane 0: the highest wins */
}

static void test_wave_ops(void)
{
    enum { B = 128, NWG = 3, N = B * NWG };
    int32_t *out = calloc(N * 6, 4);
    emu_mem_register(out, N * 6 * 4);
    OutArgs a = {out};

    CHECK(launch("bperm_sum", k_bperm_sum, &a, NWG, 1, 1, B, 0, 1) == EMU_OK);
    int bad = 0;
    for (int w = 0; w < N / 64; w++) {
        int32_t sum = 0;
        for (int i = 0; i < 64; i++)
            sum += (w * 64 + i) * 3 + 1;
        for (int i = 0; i < 64; i++)
            bad += out[w * 64 + i] != sum;
    }
    CHECK(bad == 0);

    CHECK(launch("dpp_scan", k_dpp_scan, &a, NWG, 1, 1, B, 0, 2) == EMU_OK);
    bad = 0;
    for (int w = 0; w < N / 64; w++) {
        int32_t pre = 0, total = 0;
        for (int i = 0; i < 64; i++)
            total += w * 64 + i + 1;
        for (int i = 0; i < 64; i++) {
            pre += w * 64 + i + 1;
            bad += out[2 * (w * 64 + i)] != pre || out[2 * (w * 64 + i) + 1] != total;
        }
    }
    CHECK(bad == 0);

    CHECK(launch("misc", k_misc, &a, NWG, 1, 1, B, 0, 1) == EMU_OK);
    bad = 0;
    for (int i = 0; i < N; i++) {
        int w = i / 64, wl = i % 64;
        int32_t *o = &out[i * 6];
        bad += o[0] != (int32_t)0x49249249 || o[1] != (int32_t)0x92492492;
        bad += o[2] != (w * 64 + 37) * 10;
        bad += o[3] != w * 64 + 5;
        bad += o[4] != w * 64 + (wl + 63) % 64;
        bad += o[5] != (wl == 0 ? 63 : 0);
    }
    CHECK(bad == 0);
    emu_mem_unregister(out);
    free(out);
}

/* Waves of one workgroup doing different wave operations between two barriers (the branch is
 * wave-uniform), then a deep stack: 192 KiB of the lane's 256 KiB. */
static void k_mixed(const void *ka, EmuLane *l)
{
    const OutArgs *A = ka;
    int32_t v = (int32_t)l->lane;
    if (l->lane < 64) {
        for (int i = 0; i < 3; i++)
            v += (int32_t)(l->fns->ballot(l, 1) & 0xff);
    } else {
        for (int i = 0; i < 5; i++)
            v = l->fns->dpp(l, v, v, 0x13C, 0xf, 0xf, 0); /* wave_ror:1 */
    }
    l->fns->barrier(l);
    volatile char deep[192 * 1024];
    deep[0] = (char)v;
    deep[sizeof deep - 1] = (char)v;
    A->out[gid(l)] = v + (deep[0] == deep[sizeof deep - 1]);
}

static void test_mixed(void)
{
    int32_t out[128] = {0};
    emu_mem_register(out, sizeof out);
    OutArgs a = {out};
    CHECK(launch("mixed", k_mixed, &a, 1, 1, 1, 128, 0, 1) == EMU_OK);
    int bad = 0;
    for (int i = 0; i < 128; i++)
        bad += out[i] != (i < 64 ? i + 3 * 255 : 64 + (i - 64 + 64 - 5) % 64) + 1;
    CHECK(bad == 0);
    emu_mem_unregister(out);
}

static void k_bad_mfma(const void *ka, EmuLane *l)
{
    uint32_t r[16] = {0};
    l->fns->mfma(l, 1000, r, r, r, r);
}

/* ---- DPP against a table ------------------------------------------------------------------------ */

typedef struct {
    int32_t ctrl, row_mask, bank_mask, bound_ctrl;
} DppCfg;

typedef struct {
    const DppCfg *cfg;
    int32_t ncfg;
    int32_t *out; /* [ncfg][64] */
} DppArgs;

static void k_dpp_table(const void *ka, EmuLane *l)
{
    const DppArgs *A = ka;
    for (int32_t i = 0; i < A->ncfg; i++) {
        const DppCfg *c = &A->cfg[i];
        int32_t n = (int32_t)l->lane;
        A->out[i * 64 + n] = l->fns->dpp(l, 1000 + n, n, c->ctrl, c->row_mask, c->bank_mask, c->bound_ctrl);
    }
}

#define OLD(n) (1000 + (n)) /* the lane kept its old value */

/* Written by hand from the ISA's DPP_CTRL table (pix[n].srca = pix[m].srca: lane n reads lane m; src is
 * the lane number, old is 1000 + lane). "bound_cntl" lanes read 0 with bound_ctrl set, else keep old;
 * ROW_MASK and BANK_MASK disable the destination write (old kept), whatever bound_ctrl says. */
static const struct {
    DppCfg cfg;
    int lane, want;
} DPP_TABLE[] = {
    {{0xB1, 0xf, 0xf, 0}, 0, 1},   /* quad_perm:[1,0,3,2] */
    {{0xB1, 0xf, 0xf, 0}, 1, 0},
    {{0xB1, 0xf, 0xf, 0}, 2, 3},
    {{0xB1, 0xf, 0xf, 0}, 63, 62},
    {{0x1B, 0xf, 0xf, 0}, 0, 3},   /* quad_perm:[3,2,1,0] */
    {{0x1B, 0xf, 0xf, 0}, 9, 10},
    {{0x00, 0xf, 0xf, 0}, 7, 4},   /* quad_perm:[0,0,0,0] */
    {{0x101, 0xf, 0xf, 0}, 0, 1},  /* row_shl:1 */
    {{0x101, 0xf, 0xf, 0}, 14, 15},
    {{0x101, 0xf, 0xf, 0}, 15, OLD(15)},
    {{0x101, 0xf, 0xf, 1}, 15, 0},
    {{0x101, 0xf, 0xf, 1}, 31, 0},
    {{0x111, 0xf, 0xf, 0}, 0, OLD(0)}, /* row_shr:1 */
    {{0x111, 0xf, 0xf, 1}, 0, 0},
    {{0x111, 0xf, 0xf, 0}, 16, OLD(16)},
    {{0x111, 0xf, 0xf, 0}, 17, 16},
    {{0x11F, 0xf, 0xf, 0}, 15, 0}, /* row_shr:15 */
    {{0x11F, 0xf, 0xf, 0}, 14, OLD(14)},
    {{0x11F, 0xf, 0xf, 0}, 63, 48},
    {{0x121, 0xf, 0xf, 0}, 0, 15}, /* row_ror:1 */
    {{0x121, 0xf, 0xf, 0}, 16, 31},
    {{0x121, 0xf, 0xf, 0}, 5, 4},
    {{0x12F, 0xf, 0xf, 0}, 0, 1},  /* row_ror:15 */
    {{0x12F, 0xf, 0xf, 0}, 15, 0},
    {{0x130, 0xf, 0xf, 0}, 0, 1},  /* wave_shl:1 */
    {{0x130, 0xf, 0xf, 0}, 15, 16},
    {{0x130, 0xf, 0xf, 0}, 63, OLD(63)},
    {{0x130, 0xf, 0xf, 1}, 63, 0},
    {{0x134, 0xf, 0xf, 0}, 63, 0}, /* wave_rol:1 */
    {{0x134, 0xf, 0xf, 0}, 10, 11},
    {{0x138, 0xf, 0xf, 0}, 0, OLD(0)}, /* wave_shr:1 */
    {{0x138, 0xf, 0xf, 0}, 16, 15},
    {{0x13C, 0xf, 0xf, 0}, 0, 63}, /* wave_ror:1 */
    {{0x13C, 0xf, 0xf, 0}, 32, 31},
    {{0x140, 0xf, 0xf, 0}, 0, 15}, /* row_mirror */
    {{0x140, 0xf, 0xf, 0}, 17, 30},
    {{0x140, 0xf, 0xf, 0}, 63, 48},
    {{0x141, 0xf, 0xf, 0}, 0, 7},  /* row_half_mirror */
    {{0x141, 0xf, 0xf, 0}, 8, 15},
    {{0x141, 0xf, 0xf, 0}, 9, 14},
    {{0x141, 0xf, 0xf, 0}, 20, 19},
    {{0x142, 0xa, 0xf, 0}, 16, 15}, /* row_bcast:15, rows 1 and 3 */
    {{0x142, 0xa, 0xf, 0}, 31, 15},
    {{0x142, 0xa, 0xf, 0}, 48, 47},
    {{0x142, 0xa, 0xf, 0}, 5, OLD(5)},
    {{0x142, 0xa, 0xf, 1}, 40, OLD(40)},
    {{0x142, 0xf, 0xf, 0}, 5, 5},   /* row 0 unmasked: "if (n > 15)" has no else, it reads itself */
    {{0x142, 0xf, 0xf, 0}, 33, 31},
    {{0x143, 0xc, 0xf, 0}, 32, 31}, /* row_bcast:31, rows 2 and 3 */
    {{0x143, 0xc, 0xf, 0}, 63, 31},
    {{0x143, 0xc, 0xf, 0}, 20, OLD(20)},
    {{0x153, 0xf, 0xf, 0}, 0, 3},   /* row_newbcast:3 */
    {{0x153, 0xf, 0xf, 0}, 31, 19},
    {{0x111, 0xf, 0x1, 0}, 1, 0},   /* bank_mask: only lanes 0-3 of each row write */
    {{0x111, 0xf, 0x1, 0}, 5, OLD(5)},
    {{0x111, 0xf, 0x1, 1}, 16, 0},
    {{0xE4, 0x2, 0xf, 0}, 3, OLD(3)}, /* row_mask 0x2 with the identity quad_perm */
    {{0xE4, 0x2, 0xf, 0}, 20, 20},
    {{0x101, 0xe, 0xf, 1}, 15, OLD(15)}, /* a disabled row keeps old even where bound_ctrl would zero */
    {{0x101, 0xe, 0xf, 1}, 31, 0},
};

static void test_dpp_table(void)
{
    enum { N = sizeof DPP_TABLE / sizeof DPP_TABLE[0] };
    DppCfg cfg[N];
    int32_t *out = calloc(N * 64, 4);
    for (int i = 0; i < N; i++)
        cfg[i] = DPP_TABLE[i].cfg;
    emu_mem_register(out, N * 64 * 4);
    DppArgs a = {cfg, N, out};
    CHECK(launch("dpp_table", k_dpp_table, &a, 1, 1, 1, 64, 0, 1) == EMU_OK);
    for (int i = 0; i < N; i++) {
        int got = out[i * 64 + DPP_TABLE[i].lane];
        if (got != DPP_TABLE[i].want) {
            fprintf(stderr, "dpp 0x%x row_mask 0x%x bank_mask 0x%x bound_ctrl %d, lane %d: got %d, want %d\n",
                    cfg[i].ctrl, cfg[i].row_mask, cfg[i].bank_mask, cfg[i].bound_ctrl, DPP_TABLE[i].lane, got,
                    DPP_TABLE[i].want);
            failures++;
        }
    }
    emu_mem_unregister(out);
    free(out);
}

/* ---- MFMA --------------------------------------------------------------------------------------- */

/* An exact f16 for a small non-negative integer. */
static uint16_t f16_of_int(int v)
{
    if (v == 0)
        return 0;
    int e = 0;
    while ((v >> e) > 1)
        e++;
    uint32_t mant = ((uint32_t)v << (10 - e)) & 0x3ff; /* exact for v < 2048 */
    return (uint16_t)(((e + 15) << 10) | mant);
}

/* I x B for v_mfma_f32_16x16x16_f16, registers per the CDNA3 tables (tests/data/mfma): lane l holds
 * A[l % 16][4 (l / 16) + r] and B[4 (l / 16) + r][l % 16] as f16 pairs, D[4 (l / 16) + r][l % 16]. */
static void k_mfma(const void *ka, EmuLane *l)
{
    const OutArgs *A = ka;
    uint32_t ln = l->lane % 64, row = ln % 16, k0 = 4 * (ln / 16);
    uint32_t a[2], b[2], c[4] = {0}, d[4];
    for (int r = 0; r < 4; r += 2) {
        uint16_t a0 = row == k0 + r ? 0x3C00 : 0, a1 = row == k0 + r + 1 ? 0x3C00 : 0;
        a[r / 2] = a0 | (uint32_t)a1 << 16;
        b[r / 2] = f16_of_int((int)((k0 + r) * 16 + row)) | (uint32_t)f16_of_int((int)((k0 + r + 1) * 16 + row)) << 16;
    }
    l->fns->mfma(l, MFMA_F32_16X16X16_F16, a, b, c, d);
    memcpy(&A->out[l->lane * 4], d, sizeof d);
}

static void test_mfma(void)
{
    const MfmaInfo *info = isa_mfma_info(MFMA_F32_16X16X16_F16);
    CHECK(info && info->a_regs == 2 && info->b_regs == 2 && info->cd_regs == 4);
    int32_t out[128 * 4] = {0};
    emu_mem_register(out, sizeof out);
    OutArgs a = {out};
    CHECK(launch("mfma", k_mfma, &a, 1, 1, 1, 128, 0, 1) == EMU_OK);
    int bad = 0;
    for (int ln = 0; ln < 128; ln++)
        for (int r = 0; r < 4; r++) {
            float f;
            memcpy(&f, &out[ln * 4 + r], 4);
            int i = 4 * (ln % 64 / 16) + r, j = ln % 16;
            bad += f != (float)(i * 16 + j);
        }
    CHECK(bad == 0);
    emu_mem_unregister(out);
}

/* ---- errors ------------------------------------------------------------------------------------- */

static void k_assert(const void *ka, EmuLane *l)
{
    if (l->wg[0] == 1 && l->lane == 70)
        l->fns->assert_fail(l, "x < 10", "a.tile:4:5");
}

static void k_half_bpermute(const void *ka, EmuLane *l)
{
    if (l->lane < 32)
        l->fns->bpermute(l, 0, 1);
}

static void k_half_barrier(const void *ka, EmuLane *l)
{
    if (l->lane < 32)
        l->fns->bpermute(l, 0, 1);
    else
        l->fns->barrier(l);
}

static void k_dpp_disagree(const void *ka, EmuLane *l)
{
    l->fns->dpp(l, 0, 1, l->lane < 32 ? 0x111 : 0x112, 0xf, 0xf, 0);
}

static void k_bad_dpp(const void *ka, EmuLane *l)
{
    l->fns->dpp(l, 0, 1, 0x100, 0xf, 0xf, 0);
}

static void k_return_at_barrier(const void *ka, EmuLane *l)
{
    if (l->lane < 64)
        l->fns->barrier(l);
}

static void k_barrier_after_return(const void *ka, EmuLane *l)
{
    if (l->lane >= 64)
        l->fns->barrier(l);
}

static void k_spin(const void *ka, EmuLane *l)
{
    for (;;)
        l->fns->tick(l);
}

static void test_errors(void)
{
    CHECK(launch("asrt", k_assert, NULL, 3, 1, 1, 128, 0, 1) == EMU_ERR_ASSERT);
    CHECK_MSG(msg, "kernel asrt, workgroup (1, 0, 0), lane 70: assertion failed: x < 10 (a.tile:4:5)");

    CHECK(launch("half", k_half_bpermute, NULL, 1, 1, 1, 64, 0, 1) == EMU_ERR_WAVE);
    CHECK_MSG(msg, "kernel half, workgroup (0, 0, 0), lane 32: wave operation reached by only some lanes "
                   "(lane 0 at bpermute, lane 32 returned)");

    CHECK(launch("half", k_half_barrier, NULL, 1, 1, 1, 64, 0, 1) == EMU_ERR_WAVE);
    CHECK_MSG(msg, "kernel half, workgroup (0, 0, 0), lane 32: wave operation reached by only some lanes "
                   "(lane 0 at bpermute, lane 32 at a barrier)");

    CHECK(launch("dis", k_dpp_disagree, NULL, 1, 1, 1, 64, 0, 1) == EMU_ERR_WAVE);
    CHECK_MSG(msg, "kernel dis, workgroup (0, 0, 0), lane 32: lanes of a wave disagree on a wave operation "
                   "(lane 0 at dpp row_shr:1 (row_mask 0xf, bank_mask 0xf, bound_ctrl 0), "
                   "lane 32 at dpp row_shr:2 (row_mask 0xf, bank_mask 0xf, bound_ctrl 0))");

    CHECK(launch("bad", k_bad_dpp, NULL, 1, 1, 1, 64, 0, 1) == EMU_ERR_INVALID);
    CHECK_MSG(msg, "kernel bad, workgroup (0, 0, 0), lane 0: dpp control 0x100 is not a CDNA3 DPP_CTRL");

    CHECK(launch("bad", k_bad_mfma, NULL, 1, 1, 1, 64, 0, 1) == EMU_ERR_INVALID);
    CHECK_MSG(msg, "kernel bad, workgroup (0, 0, 0), lane 0: mfma op 1000 is not an MfmaOp");

    CHECK(launch("early", k_return_at_barrier, NULL, 1, 1, 1, 128, 0, 1) == EMU_ERR_WAVE);
    CHECK_MSG(msg, "kernel early, workgroup (0, 0, 0), lane 64: a barrier not every wave reaches: wave 0 waits at the "
                   "barrier; wave 1 returned");

    CHECK(launch("early", k_barrier_after_return, NULL, 1, 1, 1, 128, 0, 1) == EMU_ERR_WAVE);
    CHECK_MSG(msg, "kernel early, workgroup (0, 0, 0), lane 64: a barrier not every wave reaches: wave 1 waits at the "
                   "barrier; wave 0 returned");

    /* the launch recovers: the same workers run a good launch next */
    test_wgsum(128, 4, 1);

    setenv("RK_EMU_TIMEOUT", "1", 1);
    double t0 = now_s();
    CHECK(launch("spin", k_spin, NULL, 4, 1, 1, 64, 0, 2) == EMU_ERR_TIMEOUT);
    CHECK_MSG(msg, "kernel spin ran past 1 s (RK_EMU_TIMEOUT)");
    CHECK(now_s() - t0 < 3);
    unsetenv("RK_EMU_TIMEOUT");

    CHECK(launch("k", k_spin, NULL, 1, 1, 1, 100, 0, 1) == EMU_ERR_INVALID);
    CHECK_MSG(msg, "kernel k: a block of 100 work-items is not a whole number of waves of 64");
    CHECK(launch("k", k_spin, NULL, 1, 1, 1, 2048, 0, 1) == EMU_ERR_INVALID);
    CHECK_MSG(msg, "kernel k: a block of 2048 work-items is more than 1024");
    CHECK(launch("k", k_spin, NULL, 1, 1, 1, 64, 240000, 1) == EMU_ERR_INVALID);
    CHECK_MSG(msg, "kernel k: 240000 bytes of LDS is more than 232448");
    CHECK(launch("k", k_spin, NULL, 0, 1, 1, 64, 0, 1) == EMU_ERR_INVALID);
    CHECK_MSG(msg, "kernel k: empty grid (0, 1, 1)");
}

/* One failing workgroup among many, on several threads: the launch stops with its message. */
static void test_error_many_threads(void)
{
    enum { B = 64, NWG = 400, N = B * NWG };
    float *a = calloc(N, 4), *b = calloc(N, 4), *c = calloc(N, 4);
    emu_mem_register(a, N * 4);
    emu_mem_register(b, (N - 1) * 4); /* the last element of b is out of bounds */
    emu_mem_register(c, N * 4);
    VaddArgs args = {a, b, c, N};
    CHECK(launch("vadd", k_vadd, &args, NWG, 1, 1, B, 0, 4) == EMU_ERR_ACCESS);
    char want[512];
    snprintf(want, sizeof want,
             "kernel vadd, workgroup (399, 0, 0), lane 63: out-of-bounds load of 4 bytes at 0x%" PRIxPTR
             " (vadd.tile:3:17)",
             (uintptr_t)&b[N - 1]);
    CHECK_MSG(msg, want);
    emu_mem_unregister(a);
    emu_mem_unregister(b);
    emu_mem_unregister(c);
    free(a);
    free(b);
    free(c);
}

/* ---- threads and print -------------------------------------------------------------------------- */

static void test_threads(void)
{
    enum { B = 256, NWG = 300 };
    int32_t *in = malloc(B * NWG * 4), *o1 = calloc(NWG, 4), *o4 = calloc(NWG, 4);
    for (int i = 0; i < B * NWG; i++)
        in[i] = i % 1000 - 500;
    emu_mem_register(in, B * NWG * 4);
    emu_mem_register(o1, NWG * 4);
    emu_mem_register(o4, NWG * 4);
    SumArgs a1 = {in, o1}, a4 = {in, o4};
    CHECK(launch("wgsum", k_wgsum, &a1, NWG, 1, 1, B, B * 4, 1) == EMU_OK);
    CHECK(launch("wgsum", k_wgsum, &a4, NWG, 1, 1, B, B * 4, 4) == EMU_OK);
    CHECK(memcmp(o1, o4, NWG * 4) == 0);
    memset(o4, 0, NWG * 4);
    CHECK(launch("wgsum", k_wgsum, &a4, NWG, 1, 1, B, B * 4, 0) == EMU_OK);
    CHECK(memcmp(o1, o4, NWG * 4) == 0);
    emu_mem_unregister(in);
    emu_mem_unregister(o1);
    emu_mem_unregister(o4);
    free(in);
    free(o1);
    free(o4);
}

typedef struct {
    char **lines;
    int n, cap;
} Lines;

static void sink(void *ud, const char *line)
{
    Lines *L = ud;
    if (L->n == L->cap) {
        L->cap = L->cap ? 2 * L->cap : 256;
        L->lines = realloc(L->lines, (size_t)L->cap * sizeof *L->lines);
    }
    L->lines[L->n++] = strdup(line);
}

static void k_print(const void *ka, EmuLane *l)
{
    int32_t idx[2] = {(int32_t)l->lane / 8, (int32_t)l->lane % 8};
    l->fns->print(l, "x", 2, idx, EMU_PRINT_I64, (uint64_t)(int64_t)-(int32_t)l->lane);
    l->fns->barrier(l);
    double h = 0.5 * l->wg[0];
    uint64_t bits;
    memcpy(&bits, &h, 8);
    if (l->lane == 0) {
        l->fns->print(l, "h", 0, NULL, EMU_PRINT_F64, bits);
        l->fns->print(l, "", 0, NULL, EMU_PRINT_BOOL, 1);
    }
}

static void test_print(void)
{
    Lines L = {0};
    EmuLaunch p = {.kernel_name = "pr", .entry = k_print, .grid = {3, 2, 1}, .block = 128, .threads = 3,
                   .print_sink = sink, .print_ud = &L};
    CHECK(emu_launch(&p, msg, sizeof msg) == EMU_OK);
    CHECK(L.n == 6 * (128 + 2));
    int k = 0, bad = 0;
    char want[128];
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 3; x++)
            for (int t = 0; t < 128; t++) {
                snprintf(want, sizeof want, "pid (%d, %d, 0) idx (%d, %d) x: %d", x, y, t / 8, t % 8, -t);
                bad += k >= L.n || strcmp(L.lines[k++], want) != 0;
                if (t == 0) {
                    snprintf(want, sizeof want, "pid (%d, %d, 0) h: %g", x, y, 0.5 * x);
                    bad += k >= L.n || strcmp(L.lines[k++], want) != 0;
                    snprintf(want, sizeof want, "pid (%d, %d, 0): true", x, y);
                    bad += k >= L.n || strcmp(L.lines[k++], want) != 0;
                }
            }
    CHECK(bad == 0);
    p.print_sink = NULL; /* print without a sink does nothing */
    CHECK(emu_launch(&p, msg, sizeof msg) == EMU_OK);
    if (bad && L.n > 2)
        fprintf(stderr, "first lines: %s | %s | %s\n", L.lines[0], L.lines[1], L.lines[2]);
    for (int i = 0; i < L.n; i++)
        free(L.lines[i]);
    free(L.lines);
}

/* ---- timings ------------------------------------------------------------------------------------ */

static EmuCtx bench_main, bench_fiber;
static long bench_iters;

static EmuCtx *bench_fiber_fn(void *arg)
{
    for (long i = 0; i < bench_iters; i++)
        emu_ctx_switch(&bench_fiber, &bench_main);
    return &bench_main;
}

/* The cost of one switch, from a ping-pong between the thread and one fiber. */
static void bench_switch(void)
{
    char *stack = emu_stacks_map(1);
    CHECK(stack != NULL);
    if (!stack)
        return;
    bench_iters = 2000000;
    emu_ctx_thread(&bench_main);
    bench_fiber.stack_lo = stack + EMU_GUARD_BYTES;
    bench_fiber.stack_size = EMU_STACK_BYTES;
    emu_ctx_start(&bench_fiber, bench_fiber_fn, NULL);
    double t0 = now_s();
    for (long i = 0; i <= bench_iters; i++)
        emu_ctx_switch(&bench_main, &bench_fiber);
    double t = now_s() - t0;
    printf("fiber switch: %.1f ns (%ld round trips in %.3f s)\n", t * 1e9 / (2.0 * (double)bench_iters),
           bench_iters, t);
    emu_ctx_destroy(&bench_fiber);
    emu_stacks_unmap(stack, 1);
}

/* 16 barriers and 64 bpermutes per lane, as the brief of the emulator asked to measure. */
static void k_bench(const void *ka, EmuLane *l)
{
    const OutArgs *A = ka;
    uint32_t v = l->lane, wl = l->lane % 64;
    for (int b = 0; b < 16; b++) {
        for (int p = 0; p < 4; p++)
            v += (uint32_t)l->fns->bpermute(l, (int32_t)((wl + 1) & 63) * 4, (int32_t)v);
        l->fns->barrier(l);
    }
    A->out[gid(l)] = (int32_t)v;
}

static void k_ballots(const void *ka, EmuLane *l)
{
    uint64_t m = 0;
    for (int i = 0; i < 20000; i++)
        m += l->fns->ballot(l, (int32_t)l->lane & 1);
    ((const OutArgs *)ka)->out[l->lane] = (int32_t)m;
}

/* A row softmax as the compiler would lower it for a 64 x 4096 f32 tile, one row per workgroup of 4
 * waves: 16 elements per lane, each reduction in the lane, across the wave by a bpermute butterfly, then
 * across the waves through LDS between two barriers; every access checked. */
typedef struct {
    const float *x;
    float *y;
} SoftmaxArgs;

static float block_reduce(EmuLane *l, float v, int is_max)
{
    int32_t wl = (int32_t)(l->lane % 64);
    for (int32_t off = 32; off > 0; off /= 2) {
        int32_t bits, other;
        memcpy(&bits, &v, 4);
        other = l->fns->bpermute(l, (wl ^ off) * 4, bits);
        float o;
        memcpy(&o, &other, 4);
        v = is_max ? (o > v ? o : v) : v + o;
    }
    float *lds = (float *)(void *)l->lds;
    if (wl == 0) {
        l->fns->check(l, &lds[l->lane / 64], 4, EMU_ACCESS_STORE | EMU_ACCESS_LDS, "softmax.tile:5:1");
        lds[l->lane / 64] = v;
    }
    l->fns->barrier(l);
    l->fns->check(l, lds, 16, EMU_ACCESS_LOAD | EMU_ACCESS_LDS, "softmax.tile:5:1");
    float r = lds[0];
    for (int w = 1; w < 4; w++)
        r = is_max ? (lds[w] > r ? lds[w] : r) : r + lds[w];
    l->fns->barrier(l);
    return r;
}

static void k_softmax(const void *ka, EmuLane *l)
{
    const SoftmaxArgs *A = ka;
    const float *x = A->x + (size_t)l->wg[0] * 4096;
    float *y = A->y + (size_t)l->wg[0] * 4096;
    float v[16], m = -1e30f, sum = 0;
    for (int i = 0; i < 16; i++) { /* four 16-byte loads: elements 1024 k + 4 lane + 0..3, k = i / 4 */
        uint32_t j = (uint32_t)(i / 4) * 1024 + l->lane * 4 + (uint32_t)(i % 4);
        if (i % 4 == 0)
            l->fns->check(l, &x[j], 16, EMU_ACCESS_LOAD, "softmax.tile:2:9");
        v[i] = x[j];
        m = v[i] > m ? v[i] : m;
    }
    m = block_reduce(l, m, 1);
    for (int i = 0; i < 16; i++) {
        v[i] = expf(v[i] - m);
        sum += v[i];
    }
    sum = block_reduce(l, sum, 0);
    for (int i = 0; i < 16; i++) {
        uint32_t j = (uint32_t)(i / 4) * 1024 + l->lane * 4 + (uint32_t)(i % 4);
        if (i % 4 == 0)
            l->fns->check(l, &y[j], 16, EMU_ACCESS_STORE, "softmax.tile:7:5");
        y[j] = v[i] / sum;
    }
}

static void bench_softmax(void)
{
    enum { R = 64, C = 4096 };
    float *x = malloc(R * C * 4), *y = malloc(R * C * 4);
    for (int i = 0; i < R * C; i++)
        x[i] = (float)((i * 2654435761u) >> 22) / 256.0f - 8.0f;
    emu_mem_register(x, R * C * 4);
    emu_mem_register(y, R * C * 4);
    SoftmaxArgs a = {x, y};
    double t0 = now_s();
    CHECK(launch("softmax", k_softmax, &a, R, 1, 1, 256, 16, 0) == EMU_OK);
    double t = now_s() - t0;
    double worst = 0;
    for (int r = 0; r < R; r++) {
        double m = -1e30, s = 0;
        for (int c = 0; c < C; c++)
            m = x[r * C + c] > m ? x[r * C + c] : m;
        for (int c = 0; c < C; c++)
            s += exp(x[r * C + c] - m);
        for (int c = 0; c < C; c++) {
            double e = fabs(y[r * C + c] - exp(x[r * C + c] - m) / s) / (exp(x[r * C + c] - m) / s);
            worst = e > worst ? e : worst;
        }
    }
    CHECK(worst < 1e-5);
    printf("softmax 64 x 4096 f32, 64 workgroups x 256 lanes, all threads: %.1f ms\n", t * 1e3);
    emu_mem_unregister(x);
    emu_mem_unregister(y);
    free(x);
    free(y);
}

static void bench_launch(void)
{
    enum { B = 256, NWG = 64 };
    int32_t *out = calloc(B * NWG, 4);
    emu_mem_register(out, B * NWG * 4);
    OutArgs a = {out};
    for (int threads = 1; threads <= 2; threads++) {
        double t0 = now_s();
        CHECK(launch("bench", k_bench, &a, NWG, 1, 1, B, 0, threads) == EMU_OK);
        double t = now_s() - t0;
        double ops = (double)B * NWG * (16 + 64);
        printf("launch 64 x 256 lanes, 16 barriers + 64 bpermutes each, %d thread%s: %.1f ms (%.1f ns per lane "
               "and operation)\n",
               threads, threads > 1 ? "s" : "", t * 1e3, t * 1e9 / ops);
    }
    double t0 = now_s();
    CHECK(launch("ballots", k_ballots, &a, 1, 1, 1, 64, 0, 1) == EMU_OK);
    double t = now_s() - t0;
    printf("one wave, 20000 ballots: %.1f ms (%.1f ns per lane and operation)\n", t * 1e3,
           t * 1e9 / (64.0 * 20000));
    emu_mem_unregister(out);
    free(out);
}

int main(void)
{
    test_ids();
    test_vadd();
    test_wgsum(64, 3, 1);
    test_wgsum(256, 8, 2);
    test_wgsum(1024, 5, 0);
    test_lds();
    test_wave_ops();
    test_mixed();
    test_dpp_table();
    test_mfma();
    test_errors();
    test_error_many_threads();
    test_threads();
    test_print();
    bench_switch();
    bench_launch();
    bench_softmax();
    if (failures) {
        fprintf(stderr, "test_emu: %d failure%s\n", failures, failures > 1 ? "s" : "");
        return 1;
    }
    printf("test_emu: all passed\n");
    return 0;
}
