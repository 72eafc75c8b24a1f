/* Tests of the emulator's memory order (runtime/emu): wave order through fns->wave_fence, barriers
 * named by their site (barrier_at) and the race checker (emu_race.c), with kernels written by hand in
 * C against the emu ABI, as the emu lowering produces them, run through emu_launch.
 *
 * Each race test has a twin that the checker must pass: the same accesses ordered by a barrier, by the
 * same wave, or by a lock taken with an acquiring compare-and-swap and released by a releasing
 * exchange; and each is made to fail: relaxed atomics do not order, a read then a write race as a write
 * then a read does, LDS races as global memory does. Every error message is checked whole. */
#include <inttypes.h>
#include <stdatomic.h>
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

static EmuStatus launch(const char *name, EmuKernelFn fn, const void *args, uint32_t gx, uint32_t block,
                        uint32_t lds, int races)
{
    EmuLaunch p = {.kernel_name = name, .entry = fn, .kernarg = args, .grid = {gx, 1, 1}, .block = block,
                   .lds_bytes = lds, .threads = 2, .check_races = races};
    return emu_launch(&p, msg, sizeof msg);
}

typedef struct Args {
    int32_t *x;
    int32_t *lock;
    int32_t mode;
} Args;

static void st(EmuLane *l, int32_t *p, int32_t v, const char *site)
{
    l->fns->check(l, p, 4, EMU_ACCESS_STORE, site);
    *p = v;
}

static int32_t ld(EmuLane *l, const int32_t *p, const char *site)
{
    l->fns->check(l, p, 4, EMU_ACCESS_LOAD, site);
    return *p;
}

/* ---- wave order ---- */

/* The tile store, then lane 0's store to element 5 (store_order of issue 13): the fences make every
 * lane's part of the first store land before the second, as one wave's instructions do on the GPU. */
static void k_store_order(const void *ka, EmuLane *l)
{
    const Args *a = ka;
    l->fns->wave_fence(l);
    st(l, &a->x[l->lane], 1, "o.tile:3:5");
    if (a->mode)
        l->fns->wave_fence(l);
    if (l->lane == 0)
        st(l, &a->x[5], 2, "o.tile:4:5");
}

static void test_wave_order(void)
{
    int32_t *x = calloc(64, 4);
    emu_mem_register(x, 64 * 4);
    Args a = {x, NULL, 1};
    CHECK(launch("store_order", k_store_order, &a, 1, 64, 0, 0) == EMU_OK);
    CHECK(x[5] == 2);
    /* without the fence the fibers show the bug the fence fixes: lane 5 runs after lane 0 */
    a.mode = 0;
    CHECK(launch("store_order", k_store_order, &a, 1, 64, 0, 0) == EMU_OK);
    CHECK(x[5] == 1);
    /* and the checker has nothing to say either way: one wave */
    CHECK(launch("store_order", k_store_order, &a, 1, 64, 0, 1) == EMU_OK);
    emu_mem_unregister(x);
    free(x);
}

/* ---- races between the waves of a workgroup ---- */

/* mode 0: wave 1 stores over wave 0's element with no barrier; 1: with a barrier between; 2: wave 1
 * loads it instead (a read after a write); 3: wave 0 loads, then wave 1 stores (a write after a read) */
static void k_cross_wave(const void *ka, EmuLane *l)
{
    const Args *a = ka;
    if (a->mode == 3 && l->lane == 3)
        (void)ld(l, &a->x[3], "w.tile:2:9");
    if (a->mode != 3)
        st(l, &a->x[l->lane], 1, "w.tile:3:5");
    if (a->mode == 1)
        l->fns->barrier_at(l, "w.tile:4:5");
    if (l->lane == 67) {
        if (a->mode == 2)
            (void)ld(l, &a->x[3], "w.tile:5:13");
        else
            st(l, &a->x[3], 2, "w.tile:5:5");
    }
}

static void test_cross_wave(void)
{
    int32_t *x = calloc(128, 4);
    emu_mem_register(x, 128 * 4);
    Args a = {x, NULL, 0};
    char want[512];
    CHECK(launch("cw", k_cross_wave, &a, 1, 128, 0, 0) == EMU_OK); /* no checker: no report */
    CHECK(launch("cw", k_cross_wave, &a, 1, 128, 0, 1) == EMU_ERR_RACE);
    snprintf(want, sizeof want,
             "kernel cw, workgroup (0, 0, 0), lane 67: data race on global memory 0x%" PRIxPTR
             " (byte 12 of the allocation at 0x%" PRIxPTR "): store by wave 1 lane 67 at w.tile:5:5 and store by "
             "wave 0 lane 3 at w.tile:3:5, with no barrier between them",
             (uintptr_t)&x[3], (uintptr_t)x);
    CHECK_MSG(msg, want);
    a.mode = 1;
    CHECK(launch("cw", k_cross_wave, &a, 1, 128, 0, 1) == EMU_OK);
    a.mode = 2;
    CHECK(launch("cw", k_cross_wave, &a, 1, 128, 0, 1) == EMU_ERR_RACE);
    snprintf(want, sizeof want,
             "kernel cw, workgroup (0, 0, 0), lane 67: data race on global memory 0x%" PRIxPTR
             " (byte 12 of the allocation at 0x%" PRIxPTR "): load by wave 1 lane 67 at w.tile:5:13 and store by "
             "wave 0 lane 3 at w.tile:3:5, with no barrier between them",
             (uintptr_t)&x[3], (uintptr_t)x);
    CHECK_MSG(msg, want);
    a.mode = 3;
    CHECK(launch("cw", k_cross_wave, &a, 1, 128, 0, 1) == EMU_ERR_RACE);
    snprintf(want, sizeof want,
             "kernel cw, workgroup (0, 0, 0), lane 67: data race on global memory 0x%" PRIxPTR
             " (byte 12 of the allocation at 0x%" PRIxPTR "): store by wave 1 lane 67 at w.tile:5:5 and load by "
             "wave 0 lane 3 at w.tile:2:9, with no barrier between them",
             (uintptr_t)&x[3], (uintptr_t)x);
    CHECK_MSG(msg, want);
    emu_mem_unregister(x);
    free(x);
}

/* LDS: wave 1 reads what wave 0 wrote; mode 1 puts a barrier between. A second workgroup on the same
 * worker finds the first one's records and must not count them. */
static void k_lds(const void *ka, EmuLane *l)
{
    const Args *a = ka;
    if (l->lane == 0) {
        l->fns->check(l, l->lds + 8, 4, EMU_ACCESS_STORE | EMU_ACCESS_LDS, "s.tile:2:5");
        *(int32_t *)(void *)(l->lds + 8) = 7;
    }
    if (a->mode)
        l->fns->barrier_at(l, "s.tile:3:5");
    if (l->lane == 64) {
        l->fns->check(l, l->lds + 8, 4, EMU_ACCESS_LOAD | EMU_ACCESS_LDS, "s.tile:4:5");
        a->x[l->wg[0]] = *(int32_t *)(void *)(l->lds + 8);
    }
}

static void test_lds(void)
{
    int32_t *x = calloc(4, 4);
    emu_mem_register(x, 16);
    Args a = {x, NULL, 0};
    CHECK(launch("lds", k_lds, &a, 1, 128, 64, 1) == EMU_ERR_RACE);
    CHECK_MSG(msg, "kernel lds, workgroup (0, 0, 0), lane 64: data race on LDS offset 8: load by wave 1 lane 64 at "
                   "s.tile:4:5 and store by wave 0 lane 0 at s.tile:2:5, with no barrier between them");
    a.mode = 1;
    CHECK(launch("lds", k_lds, &a, 4, 128, 64, 1) == EMU_OK);
    CHECK(x[0] == 7 && x[3] == 7);
    emu_mem_unregister(x);
    free(x);
}

/* ---- races between workgroups, and locks ---- */

/* Every workgroup adds 1 to x[0] from lane 0. mode 0: plainly (a race); 1: under a lock taken by an
 * acquiring compare-and-swap and released by a releasing exchange, the layer-norm backward pattern;
 * 2: the same lock with relaxed atomics, which order nothing (a race); 3: under the lock, wave 1 doing
 * the update between two barriers (clean); 4: the same without the barrier before the release, which
 * then does not cover wave 1's update (a race, as on the GPU: Triton's tutorial has a debug_barrier
 * there). */
static void k_lock(const void *ka, EmuLane *l)
{
    const Args *a = ka;
    int32_t sync = a->mode == 2 ? 0 : EMU_ACCESS_ACQUIRE | EMU_ACCESS_RELEASE;
    if (a->mode && l->lane == 0) {
        for (;;) {
            l->fns->check(l, a->lock, 4, EMU_ACCESS_ATOMIC | sync, "k.tile:3:11");
            int32_t zero = 0;
            if (atomic_compare_exchange_strong((_Atomic int32_t *)a->lock, &zero, 1))
                break;
            l->fns->tick(l);
        }
    }
    if (a->mode >= 3)
        l->fns->barrier_at(l, "k.tile:4:5"); /* wave 1 now holds the lock too */
    uint32_t updater = a->mode >= 3 ? 64 : 0;
    if (l->lane == updater)
        st(l, &a->x[0], ld(l, &a->x[0], "k.tile:5:13") + 1, "k.tile:5:5");
    if (a->mode == 3)
        l->fns->barrier_at(l, "k.tile:6:5");
    if (a->mode && l->lane == 0) {
        l->fns->check(l, a->lock, 4, EMU_ACCESS_ATOMIC | sync, "k.tile:7:5");
        atomic_exchange((_Atomic int32_t *)a->lock, 0);
    }
}

static void test_lock(void)
{
    int32_t *x = calloc(1, 4), *lock = calloc(1, 4);
    emu_mem_register(x, 4);
    emu_mem_register(lock, 4);
    Args a = {x, lock, 0};
    char want[512];
    CHECK(launch("lock", k_lock, &a, 3, 128, 0, 1) == EMU_ERR_RACE);
    snprintf(want, sizeof want,
             "kernel lock, workgroup (1, 0, 0), lane 0: data race on global memory 0x%" PRIxPTR
             " (byte 0 of the allocation at 0x%" PRIxPTR "): load by wave 0 lane 0 at k.tile:5:13 and store by "
             "workgroup (0, 0, 0) wave 0 lane 0 at k.tile:5:5, with no synchronisation through atomics between them",
             (uintptr_t)x, (uintptr_t)x);
    CHECK_MSG(msg, want);
    a.mode = 1;
    *x = 0;
    CHECK(launch("lock", k_lock, &a, 8, 128, 0, 1) == EMU_OK);
    CHECK(*x == 8);
    a.mode = 2;
    CHECK(launch("lock", k_lock, &a, 8, 128, 0, 1) == EMU_ERR_RACE);
    a.mode = 3;
    *x = *lock = 0; /* the failed launch left the lock taken */
    CHECK(launch("lock", k_lock, &a, 8, 128, 0, 1) == EMU_OK);
    CHECK(*x == 8);
    a.mode = 4;
    *lock = 0;
    CHECK(launch("lock", k_lock, &a, 8, 128, 0, 1) == EMU_ERR_RACE);
    snprintf(want, sizeof want,
             "kernel lock, workgroup (1, 0, 0), lane 64: data race on global memory 0x%" PRIxPTR
             " (byte 0 of the allocation at 0x%" PRIxPTR "): load by wave 1 lane 64 at k.tile:5:13 and store by "
             "workgroup (0, 0, 0) wave 1 lane 64 at k.tile:5:5, with no synchronisation through atomics between them",
             (uintptr_t)x, (uintptr_t)x);
    CHECK_MSG(msg, want);
    emu_mem_unregister(x);
    emu_mem_unregister(lock);
    free(x);
    free(lock);
}

/* ---- barriers not every wave reaches ---- */

static void k_two_sites(const void *ka, EmuLane *l)
{
    l->fns->barrier_at(l, l->lane < 64 ? "b.tile:3:9" : "b.tile:5:9");
}

static void k_returns(const void *ka, EmuLane *l)
{
    if (l->lane < 128)
        l->fns->barrier_at(l, "b.tile:3:9");
}

static void k_late(const void *ka, EmuLane *l)
{
    if (l->lane >= 64)
        l->fns->barrier_at(l, "b.tile:7:9");
}

static void test_barrier_sites(void)
{
    CHECK(launch("two", k_two_sites, NULL, 1, 128, 0, 0) == EMU_ERR_WAVE);
    CHECK_MSG(msg, "kernel two, workgroup (0, 0, 0): the waves wait at different barriers: wave 0 waits at the "
                   "barrier at b.tile:3:9; wave 1 waits at the barrier at b.tile:5:9");
    CHECK(launch("ret", k_returns, NULL, 1, 256, 0, 0) == EMU_ERR_WAVE);
    CHECK_MSG(msg, "kernel ret, workgroup (0, 0, 0), lane 128: a barrier not every wave reaches: waves 0, 1 wait at "
                   "the barrier at b.tile:3:9; wave 2 returned");
    CHECK(launch("late", k_late, NULL, 1, 128, 0, 0) == EMU_ERR_WAVE);
    CHECK_MSG(msg, "kernel late, workgroup (0, 0, 0), lane 64: a barrier not every wave reaches: wave 1 waits at the "
                   "barrier at b.tile:7:9; wave 0 returned");
}

int main(void)
{
    test_wave_order();
    test_cross_wave();
    test_lds();
    test_lock();
    test_barrier_sites();
    if (failures) {
        fprintf(stderr, "test_emu_order: %d failure%s\n", failures, failures > 1 ? "s" : "");
        return 1;
    }
    printf("test_emu_order: all passed\n");
    return 0;
}
