/* The emulator's internal state, shared by emu.c (launch, workers, scheduler, checks, print),
 * emu_wave.c (wave operations) and emu_mem.c (the registry of global memory).
 *
 * Ownership: a Launch is one emu_launch call. Each host thread of a launch owns one Worker, which owns
 * its lanes (fibers with stacks), its waves and its LDS; a worker runs one workgroup at a time, so
 * nothing in a Worker is shared between threads. Across threads only the Launch's counters, stop flag
 * and first error are shared (atomics and a mutex). Workers are pooled between launches. */
#ifndef RK_EMU_INTERNAL_H
#define RK_EMU_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "runtime/emu/emu.h"
#include "runtime/emu/emu_fiber.h"

enum {
    EMU_MAX_BLOCK = 1024,
    EMU_MAX_WAVES = EMU_MAX_BLOCK / EMU_WAVE_MIN,
    EMU_MAX_LDS = 227 * 1024, /* sm_90's most per block (gfx942 kernels stay within 64 KiB) */
    EMU_LDS_POISON = 0xFE,
    EMU_MFMA_MAX_REGS = 16, /* registers per lane of the widest operand (32x32 f32 C/D) */
    EMU_MSG_MAX = 512,
};

/* ---- global memory ---------------------------------------------------------------------------- */

typedef struct EmuRange {
    uintptr_t lo, hi; /* [lo, hi) */
} EmuRange;

/* The registered allocations as they were when a launch began, sorted by lo, read without locks. */
typedef struct EmuMemSnap {
    EmuRange *r;
    size_t n;
} EmuMemSnap;

bool emu_mem_snapshot(EmuMemSnap *s); /* false: out of memory */
void emu_mem_snap_free(EmuMemSnap *s);
/* The range holding all of [a, a + bytes), or NULL. */
const EmuRange *emu_mem_find(const EmuMemSnap *s, uintptr_t a, uint64_t bytes);

/* ---- waves ------------------------------------------------------------------------------------ */

typedef enum WaveOpKind {
    WOP_BPERMUTE,
    WOP_PERMUTE,
    WOP_DPP,
    WOP_READLANE,
    WOP_READFIRSTLANE,
    WOP_BALLOT,
    WOP_MFMA,
    WOP_MMA_SYNC, /* 32-lane waves: mma.sync m16n8k16 */
    WOP_LDMATRIX, /* 32-lane waves: ldmatrix .x4 */
    WOP_WGMMA_RS, /* 32-lane waves: a warp's part of wgmma with A from registers */
    WOP_FENCE,    /* wave order: nothing to execute, every lane has arrived */
} WaveOpKind;

/* A wave operation and its wave-uniform parameters (DPP controls, readlane's lane, MFMA op): every
 * lane of the wave must arrive with the same WaveOp. */
typedef struct WaveOp {
    int kind;
    int32_t p[4];
} WaveOp;

/* One wave of the running workgroup: `size` lanes (64, or 32 for emu_sm90 code), `full` the mask of
 * them all. Invariant between scheduling steps: a lane is in `ready` unless it waits at a wave
 * operation (then n_op counts it), at a barrier (n_bar) or has returned (n_done); n_op is 0 whenever
 * n_bar or n_done is not (mixing is an error raised on arrival). */
typedef struct Wave {
    uint64_t ready, full;
    int size;
    int n_op, n_bar, n_done;
    uint32_t op_lane, bar_lane, done_lane; /* the first lane (work-item id) in each state */
    const char *bar_site;                  /* the site of the barrier its lanes wait at (NULL: unnamed) */
    WaveOp op;
    int32_t x[EMU_WAVE], y[EMU_WAVE]; /* operands */
    int32_t res[EMU_WAVE];            /* results, valid from execution until the next arrival */
    uint64_t ballot;
    const uint32_t *ma[EMU_WAVE], *mb[EMU_WAVE], *mc[EMU_WAVE]; /* MFMA registers, on the lanes' stacks */
    uint32_t *md[EMU_WAVE];
    const uint8_t *rows[EMU_WAVE]; /* ldmatrix: the row each lane gives (in LDS); wgmma_rs: the LDS */
} Wave;

/* ---- lanes and workers ------------------------------------------------------------------------ */

struct Worker;

/* A cp.async copy issued by a lane and not yet complete. */
typedef struct CpCopy {
    char *dst;
    const char *src;
    uint32_t group; /* the commit count when it was issued: its group */
    uint8_t bytes, src_bytes;
} CpCopy;

typedef struct Lane {
    EmuLane abi; /* first: generated code holds &abi, the emulator casts it back */
    EmuCtx ctx;
    struct Worker *w;
    Wave *wave;
    uint32_t wl;             /* index in the wave */
    uintptr_t hit_lo, hit_hi; /* the allocation the last global access fell in (a one-entry cache) */
    size_t hit_range;          /* its index in the launch's memory snapshot */
    /* EMU_ACCESS_ARG: the last argument pointer looked up and its allocation (lo == hi: in none) */
    uintptr_t arg_ptr, arg_lo, arg_hi;
    size_t arg_range;
    bool arg_valid;
    /* cp.async: the pending copies cp[cp_head .. cp_n), in issue order; cp_groups commits so far */
    CpCopy *cp;
    uint32_t cp_head, cp_n, cp_cap, cp_groups;
} Lane;

typedef struct PrintRec {
    uint64_t wg;   /* linear workgroup id */
    uint32_t lane;
    uint64_t seq;  /* order of the calls on this worker */
    size_t text;   /* offset in the worker's text buffer */
} PrintRec;

typedef struct Launch Launch;

typedef struct Worker {
    EmuCtx sched; /* the worker thread's own context, where the scheduler runs */
    Lane *lanes;  /* EMU_MAX_BLOCK */
    int wave;     /* lanes per wave the lanes are grouped in now (Lane.wave, Lane.wl) */
    int nstacks;  /* lanes with a stack, a multiple of EMU_WAVE (stacks are mapped 64 at a time) */
    char *stack_maps[EMU_MAX_BLOCK / EMU_WAVE]; /* one mapping per EMU_WAVE stacks */
    char *lds;    /* EMU_MAX_LDS bytes */
    Wave waves[EMU_MAX_WAVES];

    /* the running workgroup */
    Launch *L;
    uint64_t wg_lin;
    int nwaves;
    int n_bar, n_done;           /* over the workgroup */
    uint32_t bar_lane, done_lane;
    bool stop_wg;                /* failed or abandoned: no lane of it runs again */
    bool at_assert;              /* the lanes waiting together wait at a device_assert (fns->assert_at) */
    Lane *assert_lane;           /* the first lane whose assert failed there, its message and site */
    const char *assert_msg, *assert_site;
    uint32_t ticks;

    uint32_t mfma_a[EMU_WAVE * EMU_MFMA_MAX_REGS], mfma_b[EMU_WAVE * EMU_MFMA_MAX_REGS];
    uint32_t mfma_c[EMU_WAVE * EMU_MFMA_MAX_REGS], mfma_d[EMU_WAVE * EMU_MFMA_MAX_REGS];

    PrintRec *prints;
    size_t nprints, cprints;
    char *text;
    size_t ntext, ctext;
    uint64_t print_seq;

    struct Worker *next_free; /* in the pool */
} Worker;

struct Launch {
    const EmuLaunch *p;
    const char *name;
    uint64_t nwg;
    _Atomic uint64_t next; /* the next workgroup to take */
    atomic_int stop;       /* set by the first error: take no more workgroups, abandon running ones */
    double deadline;       /* monotonic seconds */
    double timeout_s;
    EmuMemSnap mem;
    struct Race *race;    /* the race checker's state (emu_race.c), or NULL */
    pthread_mutex_t lock; /* guards status and msg */
    EmuStatus status;
    char msg[EMU_MSG_MAX];
};

/* ---- shared between emu.c and emu_wave.c ------------------------------------------------------ */

/* Stops the launch with "kernel K, workgroup (x, y, z), lane L: <fmt>" and leaves the lane for good. */
_Noreturn void emu_lane_fail(Lane *l, EmuStatus st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The context to run after lane l has left its wave's ready set (it waits or has finished): the next
 * ready lane of the wave in round-robin order, or the scheduler when there is none. */
static inline EmuCtx *emu_next_ctx(Lane *l)
{
    struct Worker *w = l->w;
    uint64_t r = l->wave->ready;
    if (!r || w->stop_wg)
        return &w->sched;
    unsigned i = l->wl;
    uint64_t after = i == 63 ? 0 : r & (~(uint64_t)0 << (i + 1)); /* r has no bits past the wave's size */
    unsigned n = (unsigned)__builtin_ctzll(after ? after : r);
    return &w->lanes[l->abi.lane - i + n].ctx;
}

/* Suspends a lane that has left `ready` and runs the next one; returns when the lane is resumed. */
static inline void emu_lane_block(Lane *l)
{
    emu_ctx_switch(&l->ctx, emu_next_ctx(l));
}

/* Describes a wave operation for messages ("bpermute", "dpp row_shr:1 ..."). */
void emu_wave_op_name(const WaveOp *op, char *buf, size_t len);

extern const EmuFns emu_fns;

/* The wave operations, in emu_wave.c. */
int32_t emu_op_bpermute(EmuLane *l, int32_t byte_addr, int32_t value);
int32_t emu_op_permute(EmuLane *l, int32_t byte_addr, int32_t value);
int32_t emu_op_dpp(EmuLane *l, int32_t old, int32_t src, int32_t dpp_ctrl, int32_t row_mask, int32_t bank_mask,
                   int32_t bound_ctrl);
int32_t emu_op_readlane(EmuLane *l, int32_t value, int32_t lane);
int32_t emu_op_readfirstlane(EmuLane *l, int32_t value);
uint64_t emu_op_ballot(EmuLane *l, int32_t pred);
void emu_op_mfma(EmuLane *l, int32_t op, const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *d);
void emu_op_mma_sync(EmuLane *l, int32_t op, const uint32_t *a, const uint32_t *b, const float *c, float *d);
void emu_op_ldmatrix(EmuLane *l, const void *addr, int32_t trans, uint32_t *out);
void emu_op_wave_fence(EmuLane *l);
/* emu_buffer.c: MUBUF loads and stores of a raw buffer (EmuFns.buffer_load / buffer_store) */
void emu_op_buffer_load(EmuLane *l, const uint32_t *vsharp, uint32_t voffset, uint32_t soffset, int32_t bytes,
                        void *dst, int32_t flags, const char *site);
void emu_op_buffer_store(EmuLane *l, const uint32_t *vsharp, uint32_t voffset, uint32_t soffset, int32_t bytes,
                         const void *src, int32_t flags, const char *site);

/* cp.async, in emu_async.c: a lane's own asynchronous copies (no wave synchronisation). */
void emu_op_cp_async(EmuLane *l, void *dst, const void *src, int32_t bytes, int32_t src_bytes, const char *site);
void emu_op_cp_async_commit(EmuLane *l);
void emu_op_cp_async_wait(EmuLane *l, int32_t n);
void emu_op_wgmma(EmuLane *l, int32_t op, int32_t n, uint64_t a_desc, uint64_t b_desc, int32_t trans_b, float *acc);
void emu_op_wgmma_rs(EmuLane *l, int32_t op, int32_t n, const uint32_t *a, uint64_t b_desc, int32_t trans_b, float *acc);

/* The race checker, in emu_race.c (EmuLaunch.check_races): the launch then runs on one thread. */
typedef struct Race Race;
bool emu_race_fits(const Launch *L); /* thread ids fit its 32 bits */
bool emu_race_init(Launch *L);       /* false: out of memory (emu_race_free cleans up either way) */
void emu_race_free(Launch *L);
bool emu_race_oom(const Launch *L);  /* it ran out of memory and stopped tracking something */
void emu_race_wg_start(Worker *w);
void emu_race_barrier(Worker *w); /* the workgroup's barrier opens */
/* An access that passed the bounds checks: base is its allocation's start (or the LDS), range the
 * allocation's index in the snapshot. Reports a race through emu_lane_fail. */
void emu_race_access(Lane *l, uintptr_t a, uint64_t bytes, int32_t flags, const char *site, uintptr_t base,
                     size_t range);

/* DPP's source lane for lane n under dpp_ctrl: 0..63, -1 when out of range (bound_ctrl decides),
 * -2 when dpp_ctrl is not a CDNA3 control. */
int emu_dpp_source(int32_t dpp_ctrl, int n);

#endif
