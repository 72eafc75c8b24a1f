/* The emulator's launch: workgroups over host threads, lanes as fibers, barriers, access checks,
 * device_assert, print and the timeout. Wave operations are in emu_wave.c, fibers in fiber.c, the
 * registry of global memory in emu_mem.c.
 *
 * Scheduling. A workgroup runs on one worker thread. Its lanes start ready; the scheduler (the worker
 * thread's own context) takes the waves in turn and switches to the first ready lane of the wave. A lane
 * runs until it blocks — at a wave operation, at a barrier, or by returning — and then switches straight
 * to the next ready lane of its wave (one switch per lane and operation), or back to the scheduler when
 * none is left. Wave operations complete inside their wave (the last lane to arrive executes them and
 * readies the wave), so a wave only goes back to the scheduler when all its lanes wait at a barrier or
 * have returned. When every wave has gone back, either all lanes have returned (the workgroup is done) or
 * all wait at the barrier, which then opens: every lane is ready again.
 *
 * Errors. Each condition is detected by the lane that makes it true (an access out of bounds, a failed
 * assert, a lane reaching a barrier after another returned, ...). That lane records the first error of
 * the launch, raises the launch's stop flag and leaves for the scheduler for good: it never returns into
 * generated code. The scheduler then abandons the workgroup: its suspended lanes are never resumed and
 * their stacks are simply reinitialised by the next workgroup. Other workers see the stop flag between
 * workgroups, at barriers and in tick, and abandon theirs the same way. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/emu/emu_internal.h"
#include "support/clock.h"

enum {
    TICK_EVERY = 4096, /* tick looks at the clock once per this many calls on a worker */
    POOL_MAX = 64,     /* workers kept for later launches */
    MAX_THREADS = 256,
};

/* wall-clock seconds, for the launch's deadline */
static double now_s(void)
{
    return clock_wall_ms() / 1e3;
}

/* ---- errors ------------------------------------------------------------------------------------ */

/* Records the launch's first error and stops it. */
static void launch_error(Launch *L, EmuStatus st, const char *msg)
{
    pthread_mutex_lock(&L->lock);
    if (L->status == EMU_OK) {
        L->status = st;
        snprintf(L->msg, sizeof L->msg, "%s", msg);
    }
    pthread_mutex_unlock(&L->lock);
    atomic_store(&L->stop, 1);
}

static int wg_prefix(Worker *w, char *buf, size_t len)
{
    const uint32_t *g = w->lanes[0].abi.wg;
    return snprintf(buf, len, "kernel %s, workgroup (%u, %u, %u)", w->L->name, g[0], g[1], g[2]);
}

/* An error of the workgroup found by the scheduler, outside any lane. */
static void wg_fail(Worker *w, EmuStatus st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void wg_fail(Worker *w, EmuStatus st, const char *fmt, ...)
{
    char buf[EMU_MSG_MAX];
    int n = wg_prefix(w, buf, sizeof buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    launch_error(w->L, st, buf);
    w->stop_wg = true;
}

void emu_lane_fail(Lane *l, EmuStatus st, const char *fmt, ...)
{
    Worker *w = l->w;
    char buf[EMU_MSG_MAX];
    int n = wg_prefix(w, buf, sizeof buf);
    n += snprintf(buf + n, sizeof buf - (size_t)n, ", lane %u: ", l->abi.lane);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    launch_error(w->L, st, buf);
    w->stop_wg = true;
    emu_ctx_exit(&l->ctx, &w->sched);
}

/* Leaves a lane whose workgroup is abandoned because another one failed. */
static _Noreturn void lane_abandon(Lane *l)
{
    l->w->stop_wg = true;
    emu_ctx_exit(&l->ctx, &l->w->sched);
}

static void timeout_message(Launch *L, char *buf, size_t len)
{
    snprintf(buf, len, "kernel %s ran past %g s (RK_EMU_TIMEOUT)", L->name, L->timeout_s);
}

/* ---- scheduling --------------------------------------------------------------------------------- */

static bool same_site(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Appends to buf (at *n, capacity len) "wave 3" or "waves 0, 2": the waves waiting at the barrier at
 * `site` (at_barrier) or those with a lane that returned; returns how many. */
static int list_waves(Worker *w, bool at_barrier, const char *site, char *buf, size_t len, size_t *n)
{
    int idx[EMU_MAX_WAVES], k = 0;
    for (int v = 0; v < w->nwaves; v++) {
        Wave *wv = &w->waves[v];
        if (at_barrier ? wv->n_bar && same_site(wv->bar_site, site) : wv->n_done > 0)
            idx[k++] = v;
    }
    *n += (size_t)snprintf(buf + *n, *n < len ? len - *n : 0, "wave%s ", k == 1 ? "" : "s");
    for (int i = 0; i < k; i++)
        *n += (size_t)snprintf(buf + *n, *n < len ? len - *n : 0, "%s%d", i ? ", " : "", idx[i]);
    return k;
}

/* Describes a workgroup whose waves do not all wait at one barrier: "waves 0, 1 wait at the barrier at
 * f:3:5; wave 2 waits at the barrier at f:9:5; waves 3 returned". */
static void barrier_sides(Worker *w, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (int v = 0; v < w->nwaves; v++) {
        Wave *wv = &w->waves[v];
        bool first = wv->n_bar > 0;
        for (int u = 0; u < v && first; u++)
            first = !(w->waves[u].n_bar && same_site(w->waves[u].bar_site, wv->bar_site));
        if (!first)
            continue;
        if (n)
            n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "; ");
        bool one = list_waves(w, true, wv->bar_site, buf, len, &n) == 1;
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, " wait%s at the barrier%s%s", one ? "s" : "",
                              wv->bar_site ? " at " : "", wv->bar_site ? wv->bar_site : "");
    }
    if (w->n_done) {
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "; ");
        list_waves(w, false, NULL, buf, len, &n);
        snprintf(buf + n, n < len ? len - n : 0, " returned");
    }
}

/* The errors of a lane that returns or reaches a barrier while its wave waits at a wave operation, or
 * the workgroup at a barrier; out of line so that the hot paths keep no arrays (see emu_ctx_start). */
__attribute__((noinline, cold)) static _Noreturn void split_fail(Lane *l, bool at_barrier, const char *site)
{
    Wave *wv = l->wave;
    Worker *w = l->w;
    if (wv->n_op) {
        char name[96];
        emu_wave_op_name(&wv->op, name, sizeof name);
        emu_lane_fail(l, EMU_ERR_WAVE, "wave operation reached by only some lanes (lane %u at %s, lane %u %s)",
                      wv->op_lane, name, l->abi.lane, at_barrier ? "at a barrier" : "returned");
    }
    /* count the lane where it is, for the list of both sides */
    if (at_barrier && wv->n_bar++ == 0)
        wv->bar_site = site;
    if (!at_barrier)
        wv->n_done++;
    w->n_done += !at_barrier;
    char sides[EMU_MSG_MAX / 2];
    barrier_sides(w, sides, sizeof sides);
    emu_lane_fail(l, EMU_ERR_WAVE, "a barrier not every wave reaches: %s", sides);
}

/* A lane's fiber: the kernel, then the bookkeeping of its return. The kernel is code rk generated,
 * without the function-type prefix that clang's -fsanitize=function (part of -fsanitize=undefined)
 * reads from the 8 bytes before a called address: for a kernel at the start of its code object's
 * first page those bytes are not mapped, and the CI's sanitizer build crashed there (fuzz/diff_loops,
 * seed 0x2323002d), so the check is off for this call. */
#if defined(__clang__)
__attribute__((no_sanitize("function")))
#endif
static EmuCtx *lane_main(void *arg)
{
    Lane *l = arg;
    Worker *w = l->w;
    Wave *wv = l->wave;
    const EmuLaunch *p = w->L->p;
    p->entry(p->kernarg, &l->abi);
    if (wv->n_op || w->n_bar)
        split_fail(l, false, NULL);
    if (wv->n_done++ == 0)
        wv->done_lane = l->abi.lane;
    if (w->n_done++ == 0)
        w->done_lane = l->abi.lane;
    wv->ready &= ~((uint64_t)1 << l->wl);
    return emu_next_ctx(l);
}

static void barrier_wait(Lane *l, const char *site)
{
    Worker *w = l->w;
    Wave *wv = l->wave;
    if (wv->n_op || w->n_done)
        split_fail(l, true, site);
    if (wv->n_bar++ == 0) {
        wv->bar_lane = l->abi.lane;
        wv->bar_site = site;
    } else if (!same_site(wv->bar_site, site)) {
        emu_lane_fail(l, EMU_ERR_WAVE, "lanes of wave %d wait at different barriers (lane %u at %s, lane %u at %s)",
                      (int)(l->abi.lane / (uint32_t)wv->size), wv->bar_lane, wv->bar_site ? wv->bar_site : "a barrier",
                      l->abi.lane, site ? site : "a barrier");
    }
    if (w->n_bar++ == 0)
        w->bar_lane = l->abi.lane;
    wv->ready &= ~((uint64_t)1 << l->wl);
    emu_lane_block(l);
}

static void fn_barrier(EmuLane *el)
{
    barrier_wait((Lane *)el, NULL);
}

static void fn_barrier_at(EmuLane *el, const char *site)
{
    barrier_wait((Lane *)el, site);
}

/* device_assert: every lane of the workgroup waits here (run_wg fails the workgroup with the first
 * failing lane's message once all have arrived), so that the other lanes' prints before it are not
 * lost: lanes run one after another, and a failing lane that stopped the launch at once left the
 * lanes after it unprinted (issue 24). */
static void fn_assert_at(EmuLane *el, int32_t ok, const char *msg, const char *site)
{
    Lane *l = (Lane *)el;
    Worker *w = l->w;
    if (!ok && !w->assert_lane) {
        w->assert_lane = l;
        w->assert_msg = msg;
        w->assert_site = site;
    }
    w->at_assert = true;
    barrier_wait(l, site);
}

/* Runs workgroup `id` to completion on w; false when it failed or was abandoned. */
static bool run_wg(Worker *w, uint64_t id)
{
    Launch *L = w->L;
    const EmuLaunch *p = L->p;
    uint64_t gx = p->grid[0], gy = p->grid[1];
    uint32_t wg[3] = {(uint32_t)(id % gx), (uint32_t)(id / gx % gy), (uint32_t)(id / (gx * gy))};
    int block = (int)p->block;

    int size = w->wave;
    w->wg_lin = id;
    w->nwaves = block / size;
    w->n_bar = w->n_done = 0;
    w->stop_wg = false;
    w->at_assert = false;
    w->assert_lane = NULL;
    memset(w->lds, EMU_LDS_POISON, p->lds_bytes);
    for (int v = 0; v < w->nwaves; v++) {
        Wave *wv = &w->waves[v];
        wv->ready = wv->full;
        wv->n_op = wv->n_bar = wv->n_done = 0;
    }
    for (int i = 0; i < block; i++) {
        Lane *l = &w->lanes[i];
        memcpy(l->abi.wg, wg, sizeof wg);
        memcpy(l->abi.nwg, p->grid, sizeof l->abi.nwg);
        l->abi.lds_size = p->lds_bytes;
        l->abi.block = p->block;
        l->hit_lo = UINTPTR_MAX;
        l->hit_hi = 0;
        l->arg_valid = false;
        l->cp_head = l->cp_n = l->cp_groups = 0; /* copies left by an abandoned workgroup never land */
        emu_ctx_start(&l->ctx, lane_main, l);
    }
    if (L->race)
        emu_race_wg_start(w);

    for (;;) {
        for (int v = 0; v < w->nwaves; v++) {
            Wave *wv = &w->waves[v];
            if (!wv->ready)
                continue;
            emu_ctx_switch(&w->sched, &w->lanes[v * size + __builtin_ctzll(wv->ready)].ctx);
            if (w->stop_wg)
                return false;
        }
        /* Every wave is back: its lanes wait at the barrier or have returned, never a mix (lanes check
         * that on arrival). */
        if (w->n_done == block)
            return true;
        if (w->n_bar != block) {
            wg_fail(w, EMU_ERR_WAVE, ": internal error: %d lanes at a barrier, %d returned, of %d", w->n_bar,
                    w->n_done, block);
            return false;
        }
        for (int v = 1; v < w->nwaves; v++)
            if (!same_site(w->waves[v].bar_site, w->waves[0].bar_site)) {
                char sides[EMU_MSG_MAX / 2];
                barrier_sides(w, sides, sizeof sides);
                wg_fail(w, EMU_ERR_WAVE, ": the waves wait at different barriers: %s", sides);
                return false;
            }
        if (atomic_load_explicit(&L->stop, memory_order_relaxed))
            return false;
        if (now_s() > L->deadline) {
            char buf[EMU_MSG_MAX];
            timeout_message(L, buf, sizeof buf);
            launch_error(L, EMU_ERR_TIMEOUT, buf);
            return false;
        }
        if (w->assert_lane) { /* every lane reached the failed device_assert: its prints are in */
            char buf[EMU_MSG_MAX];
            int n = wg_prefix(w, buf, sizeof buf);
            snprintf(buf + n, sizeof buf - (size_t)n, ", lane %u: assertion failed: %s%s%s%s", w->assert_lane->abi.lane,
                     w->assert_msg ? w->assert_msg : "", w->assert_site ? " (" : "", w->assert_site ? w->assert_site : "",
                     w->assert_site ? ")" : "");
            launch_error(L, EMU_ERR_ASSERT, buf);
            w->stop_wg = true;
            return false;
        }
        if (L->race && !w->at_assert) /* an assert orders nothing on the GPU */
            emu_race_barrier(w);
        w->at_assert = false;
        w->n_bar = 0;
        for (int v = 0; v < w->nwaves; v++) {
            w->waves[v].n_bar = 0;
            w->waves[v].ready = w->waves[v].full;
        }
    }
}

/* ---- checks, assert, print, tick --------------------------------------------------------------- */

__attribute__((noinline, cold)) static _Noreturn void access_fail(Lane *l, uintptr_t a, uint64_t bytes, int32_t flags,
                                                                  const char *site)
{
    const char *what = flags & EMU_ACCESS_ATOMIC ? "atomic" : flags & EMU_ACCESS_STORE ? "store" : "load";
    const char *unit = bytes == 1 ? "byte" : "bytes";
    char where[300] = "";
    if (site)
        snprintf(where, sizeof where, " (%s)", site);
    if (flags & EMU_ACCESS_LDS) {
        intptr_t off = (intptr_t)(a - (uintptr_t)l->abi.lds);
        emu_lane_fail(l, EMU_ERR_ACCESS,
                      "out-of-bounds LDS %s of %" PRIu64 " %s at offset %" PRIdPTR ", LDS is %u bytes%s", what, bytes,
                      unit, off, l->abi.lds_size, where);
    }
    emu_lane_fail(l, EMU_ERR_ACCESS, "out-of-bounds %s of %" PRIu64 " %s at 0x%" PRIxPTR "%s", what, bytes, unit, a,
                  where);
}

/* EMU_ACCESS_ARG: the access must lie in the allocation its kernel argument points into. False when
 * the argument points into no allocation (then any allocation passes, as without the flag). */
static bool check_derived(Lane *l, uintptr_t a, uint64_t bytes, int32_t flags, const char *site)
{
    uint32_t off = (uint32_t)((flags >> EMU_ACCESS_ARG_SHIFT) & EMU_ACCESS_ARG_MAX) * 8;
    uintptr_t base;
    memcpy(&base, (const char *)l->w->L->p->kernarg + off, sizeof base);
    if (!l->arg_valid || base != l->arg_ptr) {
        const EmuRange *r = emu_mem_find(&l->w->L->mem, base, 1);
        l->arg_valid = true;
        l->arg_ptr = base;
        l->arg_lo = r ? r->lo : 0;
        l->arg_hi = r ? r->hi : 0;
        l->arg_range = r ? (size_t)(r - l->w->L->mem.r) : 0;
    }
    if (l->arg_lo == l->arg_hi)
        return false;
    if (a >= l->arg_lo && a < l->arg_hi && bytes <= l->arg_hi - a) {
        l->hit_lo = l->arg_lo;
        l->hit_hi = l->arg_hi;
        l->hit_range = l->arg_range;
        return true;
    }
    if (!emu_mem_find(&l->w->L->mem, a, bytes))
        access_fail(l, a, bytes, flags, site); /* in no allocation at all: the plain message */
    const char *what = flags & EMU_ACCESS_ATOMIC ? "atomic" : flags & EMU_ACCESS_STORE ? "store" : "load";
    char where[300] = "";
    if (site)
        snprintf(where, sizeof where, " (%s)", site);
    intptr_t rel = a >= l->arg_lo ? (intptr_t)(a - l->arg_lo) : -(intptr_t)(l->arg_lo - a);
    emu_lane_fail(l, EMU_ERR_ACCESS,
                  "out-of-bounds %s of %" PRIu64 " %s at 0x%" PRIxPTR ": offset %" PRIdPTR " of the %" PRIuPTR
                  "-byte allocation its pointer derives from (kernel argument at kernarg offset %u), inside another%s",
                  what, bytes, bytes == 1 ? "byte" : "bytes", a, rel, l->arg_hi - l->arg_lo, off, where);
}

static void fn_check(EmuLane *el, const void *addr, uint64_t bytes, int32_t flags, const char *site)
{
    Lane *l = (Lane *)el;
    uintptr_t a = (uintptr_t)addr;
    if (!flags)
        return; /* a masked-off lane: no access */
    if (flags & EMU_ACCESS_LDS) {
        uintptr_t lo = (uintptr_t)el->lds;
        if (a >= lo && bytes <= el->lds_size && a - lo <= el->lds_size - bytes) {
            /* naturally aligned, as sm_90 requires (a misaligned 4-byte access faults there) */
            if ((bytes & (bytes - 1)) == 0 && (a - lo) % bytes != 0)
                emu_lane_fail(l, EMU_ERR_ACCESS, "misaligned LDS %s of %" PRIu64 " bytes at offset %" PRIuPTR "%s%s%s",
                              flags & EMU_ACCESS_STORE ? "store" : "load", bytes, a - lo, site ? " (" : "",
                              site ? site : "", site ? ")" : "");
            if (l->w->L->race)
                emu_race_access(l, a, bytes, flags, site, lo, 0);
            return;
        }
        access_fail(l, a, bytes, flags, site);
    }
    /* A vector access is as aligned as the compiler proved it to be (the kernel's multiple_of hints, the
     * launch contract's 16-byte pointers): misaligned, its arguments broke a hint. The host's aligned
     * vector instructions would fault on it; the GPU would read or write somewhere else. */
    if (bytes > 1 && (bytes & (bytes - 1)) == 0 && a % bytes != 0)
        emu_lane_fail(l, EMU_ERR_ACCESS,
                      "misaligned %s of %" PRIu64 " bytes at 0x%" PRIxPTR " (not a multiple of %" PRIu64
                      "): the kernel's hints promise alignment that its arguments break (a multiple_of on a size, "
                      "stride or offset that is not that multiple, or a pointer argument not 16-byte aligned)%s%s%s",
                      flags & EMU_ACCESS_ATOMIC ? "atomic" : flags & EMU_ACCESS_STORE ? "store" : "load", bytes, a,
                      bytes, site ? " (" : "", site ? site : "", site ? ")" : "");
    if (flags & EMU_ACCESS_ARG && check_derived(l, a, bytes, flags, site)) {
        /* inside its argument's allocation */
    } else if (!(a >= l->hit_lo && a < l->hit_hi && bytes <= l->hit_hi - a)) {
        const EmuRange *r = emu_mem_find(&l->w->L->mem, a, bytes);
        if (!r)
            access_fail(l, a, bytes, flags, site);
        l->hit_lo = r->lo;
        l->hit_hi = r->hi;
        l->hit_range = (size_t)(r - l->w->L->mem.r);
    }
    if (l->w->L->race)
        emu_race_access(l, a, bytes, flags, site, l->hit_lo, l->hit_range);
}

static void fn_assert_fail(EmuLane *el, const char *msg, const char *site)
{
    Lane *l = (Lane *)el;
    if (site)
        emu_lane_fail(l, EMU_ERR_ASSERT, "assertion failed: %s (%s)", msg ? msg : "", site);
    emu_lane_fail(l, EMU_ERR_ASSERT, "assertion failed: %s", msg ? msg : "");
}

static int format_value(char *buf, size_t len, int32_t kind, uint64_t bits)
{
    switch (kind) {
    case EMU_PRINT_I64:
        return snprintf(buf, len, "%" PRId64, (int64_t)bits);
    case EMU_PRINT_U64:
        return snprintf(buf, len, "%" PRIu64, bits);
    case EMU_PRINT_F64: {
        double d;
        memcpy(&d, &bits, sizeof d);
        /* 9 significant digits round-trip an f32 (which arrives widened); an f64 needs 17. */
        return snprintf(buf, len, (double)(float)d == d ? "%.9g" : "%.17g", d);
    }
    case EMU_PRINT_BOOL:
        return snprintf(buf, len, "%s", bits ? "true" : "false");
    default: /* EMU_PRINT_PTR */
        return snprintf(buf, len, "0x%" PRIx64, bits);
    }
}

/* Room for `need` elements of `elem` bytes in *p (capacity *cap); false when out of memory. */
static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t cap2 = *cap ? *cap : 64;
    while (cap2 < need)
        cap2 *= 2;
    void *q = realloc(p, cap2 * elem);
    if (q)
        *cap = cap2;
    return q;
}

/* One line per call, "pid (x, y, z) idx (i, j) msg: value" (idx left out for a scalar), kept on the
 * worker and handed to print_sink in (workgroup, lane, call) order when the launch ends. */
static void fn_print(EmuLane *el, const char *msg, int32_t rank, const int32_t *coords, int32_t kind, uint64_t bits)
{
    Lane *l = (Lane *)el;
    Worker *w = l->w;
    if (!w->L->p->print_sink)
        return;
    char line[1024];
    size_t n = (size_t)snprintf(line, sizeof line, "pid (%u, %u, %u)", el->wg[0], el->wg[1], el->wg[2]);
    if (rank > 0) {
        n += (size_t)snprintf(line + n, sizeof line - n, " idx (");
        for (int32_t i = 0; i < rank && n < sizeof line; i++)
            n += (size_t)snprintf(line + n, sizeof line - n, i ? ", %d" : "%d", coords[i]);
        if (n < sizeof line)
            n += (size_t)snprintf(line + n, sizeof line - n, ")");
    }
    if (msg && *msg && n < sizeof line)
        n += (size_t)snprintf(line + n, sizeof line - n, " %s", msg);
    if (n < sizeof line && kind != EMU_PRINT_NONE)
        n += (size_t)snprintf(line + n, sizeof line - n, ": ");
    if (n < sizeof line && kind != EMU_PRINT_NONE)
        n += (size_t)format_value(line + n, sizeof line - n, kind, bits);
    if (n >= sizeof line)
        n = sizeof line - 1;

    char *text = grow(w->text, &w->ctext, w->ntext + n + 1, 1);
    if (text)
        w->text = text;
    PrintRec *recs = text ? grow(w->prints, &w->cprints, w->nprints + 1, sizeof *recs) : NULL;
    if (!recs)
        emu_lane_fail(l, EMU_ERR_NOMEM, "out of memory for print output");
    w->prints = recs;
    memcpy(w->text + w->ntext, line, n + 1);
    w->prints[w->nprints++] = (PrintRec){w->wg_lin, el->lane, w->print_seq++, w->ntext};
    w->ntext += n + 1;
}

static void tick_slow(Lane *l)
{
    Launch *L = l->w->L;
    if (atomic_load_explicit(&L->stop, memory_order_relaxed))
        lane_abandon(l);
    if (now_s() > L->deadline) {
        char buf[EMU_MSG_MAX];
        timeout_message(L, buf, sizeof buf);
        launch_error(L, EMU_ERR_TIMEOUT, buf);
        lane_abandon(l);
    }
}

static void fn_tick(EmuLane *el)
{
    Lane *l = (Lane *)el;
    if (++l->w->ticks % TICK_EVERY == 0)
        tick_slow(l);
}

const EmuFns emu_fns = {
    .barrier = fn_barrier,
    .bpermute = emu_op_bpermute,
    .permute = emu_op_permute,
    .dpp = emu_op_dpp,
    .readlane = emu_op_readlane,
    .readfirstlane = emu_op_readfirstlane,
    .ballot = emu_op_ballot,
    .mfma = emu_op_mfma,
    .check = fn_check,
    .assert_fail = fn_assert_fail,
    .print = fn_print,
    .tick = fn_tick,
    .mma_sync = emu_op_mma_sync,
    .ldmatrix = emu_op_ldmatrix,
    .cp_async = emu_op_cp_async,
    .cp_async_commit = emu_op_cp_async_commit,
    .cp_async_wait = emu_op_cp_async_wait,
    .wgmma = emu_op_wgmma,
    .wgmma_rs = emu_op_wgmma_rs,
    .wave_fence = emu_op_wave_fence,
    .barrier_at = fn_barrier_at,
    .assert_at = fn_assert_at,
    .buffer_load = emu_op_buffer_load,
    .buffer_store = emu_op_buffer_store,
};

/* ---- workers ------------------------------------------------------------------------------------ */

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static Worker *pool;
static int pool_n;

static void worker_free(Worker *w)
{
    if (!w)
        return;
    for (int i = 0; i < w->nstacks; i++)
        emu_ctx_destroy(&w->lanes[i].ctx);
    if (w->lanes)
        for (int i = 0; i < EMU_MAX_BLOCK; i++)
            free(w->lanes[i].cp);
    for (int v = 0; v < w->nstacks / EMU_WAVE; v++)
        emu_stacks_unmap(w->stack_maps[v], EMU_WAVE);
    free(w->lanes);
    free(w->lds);
    free(w->prints);
    free(w->text);
    free(w);
}

static void worker_group(Worker *w, int size);

static Worker *worker_new(void)
{
    Worker *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->lanes = calloc(EMU_MAX_BLOCK, sizeof *w->lanes);
    w->lds = malloc(EMU_MAX_LDS);
    if (!w->lanes || !w->lds) {
        worker_free(w);
        return NULL;
    }
    for (int i = 0; i < EMU_MAX_BLOCK; i++) {
        Lane *l = &w->lanes[i];
        l->abi.fns = &emu_fns;
        l->abi.lds = w->lds;
        l->abi.lane = (uint32_t)i;
        l->w = w;
    }
    worker_group(w, EMU_WAVE);
    return w;
}

/* Groups w's lanes (and sizes its waves) in waves of `size` lanes. */
static void worker_group(Worker *w, int size)
{
    w->wave = size;
    for (int i = 0; i < EMU_MAX_BLOCK; i++) {
        w->lanes[i].wave = &w->waves[i / size];
        w->lanes[i].wl = (uint32_t)(i % size);
    }
    uint64_t full = size == 64 ? ~(uint64_t)0 : ((uint64_t)1 << size) - 1;
    for (int v = 0; v < EMU_MAX_BLOCK / size; v++) {
        w->waves[v].size = size;
        w->waves[v].full = full;
    }
}

/* Gives w a stack for each of its first `block` lanes. */
static bool worker_reserve(Worker *w, int block)
{
    size_t stride = emu_stack_stride();
    while (w->nstacks < block) {
        int v = w->nstacks / EMU_WAVE;
        char *base = emu_stacks_map(EMU_WAVE);
        if (!base)
            return false;
        w->stack_maps[v] = base;
        for (int i = 0; i < EMU_WAVE; i++) {
            EmuCtx *c = &w->lanes[v * EMU_WAVE + i].ctx;
            c->stack_lo = base + (size_t)i * stride + EMU_GUARD_BYTES;
            c->stack_size = EMU_STACK_BYTES;
        }
        w->nstacks += EMU_WAVE;
    }
    return true;
}

static Worker *worker_get(int block, int wave)
{
    pthread_mutex_lock(&pool_lock);
    Worker *w = pool;
    if (w) {
        pool = w->next_free;
        pool_n--;
    }
    pthread_mutex_unlock(&pool_lock);
    if (!w)
        w = worker_new();
    if (w && !worker_reserve(w, block)) {
        worker_free(w);
        return NULL;
    }
    if (w && w->wave != wave)
        worker_group(w, wave);
    return w;
}

static void worker_put(Worker *w)
{
    pthread_mutex_lock(&pool_lock);
    if (pool_n < POOL_MAX) {
        w->next_free = pool;
        pool = w;
        pool_n++;
        w = NULL;
    }
    pthread_mutex_unlock(&pool_lock);
    worker_free(w);
}

/* Takes workgroups until there are none left or the launch stops. */
static void *worker_run(void *arg)
{
    Worker *w = arg;
    Launch *L = w->L;
    emu_ctx_thread(&w->sched);
    while (!atomic_load_explicit(&L->stop, memory_order_relaxed)) {
        uint64_t id = atomic_fetch_add(&L->next, 1);
        if (id >= L->nwg || !run_wg(w, id))
            break;
        if (now_s() > L->deadline) {
            char buf[EMU_MSG_MAX];
            timeout_message(L, buf, sizeof buf);
            launch_error(L, EMU_ERR_TIMEOUT, buf);
            break;
        }
    }
    return NULL;
}

/* ---- the launch --------------------------------------------------------------------------------- */

typedef struct PrintRef {
    const PrintRec *rec;
    const char *text;
} PrintRef;

static int print_cmp(const void *pa, const void *pb)
{
    const PrintRec *a = ((const PrintRef *)pa)->rec, *b = ((const PrintRef *)pb)->rec;
    if (a->wg != b->wg)
        return a->wg < b->wg ? -1 : 1;
    if (a->lane != b->lane)
        return a->lane < b->lane ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Hands the printed lines to the sink, sorted by workgroup, then lane, then call order. */
static bool deliver_prints(const EmuLaunch *p, Worker **ws, int nw)
{
    size_t n = 0;
    for (int i = 0; i < nw; i++)
        n += ws[i]->nprints;
    if (n == 0 || !p->print_sink)
        return true;
    PrintRef *refs = malloc(n * sizeof *refs);
    if (!refs)
        return false;
    size_t k = 0;
    for (int i = 0; i < nw; i++)
        for (size_t j = 0; j < ws[i]->nprints; j++)
            refs[k++] = (PrintRef){&ws[i]->prints[j], ws[i]->text + ws[i]->prints[j].text};
    qsort(refs, n, sizeof *refs, print_cmp);
    for (size_t i = 0; i < n; i++)
        p->print_sink(p->print_ud, refs[i].text);
    free(refs);
    return true;
}

/* RK_EMU_TIMEOUT, when set, must be a number of seconds above 0: a typo is an error, not 60 s. */
static bool timeout_env_ok(const char **value)
{
    const char *e = getenv("RK_EMU_TIMEOUT");
    char *end;
    *value = e;
    return !e || !*e || (strtod(e, &end) > 0 && end != e && *end == 0);
}

static double launch_timeout(const EmuLaunch *p)
{
    if (p->timeout_s > 0)
        return p->timeout_s;
    const char *e = getenv("RK_EMU_TIMEOUT");
    if (e && *e) {
        char *end;
        double t = strtod(e, &end);
        if (end != e && t > 0)
            return t;
    }
    return 60;
}

static EmuStatus invalid(char *msg, size_t msglen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static EmuStatus invalid(char *msg, size_t msglen, const char *fmt, ...)
{
    if (msg && msglen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msglen, fmt, ap);
        va_end(ap);
    }
    return EMU_ERR_INVALID;
}

/* Lanes per wave: EmuLaunch.wave, 0 meaning EMU_WAVE. */
static int launch_wave(const EmuLaunch *p)
{
    return p->wave ? p->wave : EMU_WAVE;
}

static EmuStatus validate(const EmuLaunch *p, const char *name, char *msg, size_t msglen)
{
    if (!p->entry)
        return invalid(msg, msglen, "kernel %s: no entry point", name);
    int wave = launch_wave(p);
    if (wave != EMU_WAVE && wave != EMU_WAVE_MIN)
        return invalid(msg, msglen, "kernel %s: waves of %d lanes (the emulator runs %d or %d)", name, p->wave,
                       EMU_WAVE, EMU_WAVE_MIN);
    if (p->block == 0 || p->block % (uint32_t)wave != 0)
        return invalid(msg, msglen, "kernel %s: a block of %u work-items is not a whole number of waves of %d", name,
                       p->block, wave);
    if (p->block > EMU_MAX_BLOCK)
        return invalid(msg, msglen, "kernel %s: a block of %u work-items is more than %d", name, p->block,
                       EMU_MAX_BLOCK);
    if (p->lds_bytes > EMU_MAX_LDS)
        return invalid(msg, msglen, "kernel %s: %u bytes of LDS is more than %d", name, p->lds_bytes, EMU_MAX_LDS);
    if (p->grid[0] == 0 || p->grid[1] == 0 || p->grid[2] == 0)
        return invalid(msg, msglen, "kernel %s: empty grid (%u, %u, %u)", name, p->grid[0], p->grid[1], p->grid[2]);
    const char *tv;
    if (p->timeout_s <= 0 && !timeout_env_ok(&tv))
        return invalid(msg, msglen, "RK_EMU_TIMEOUT=%s is not a number of seconds above 0", tv);
    if ((uint64_t)p->grid[0] * p->grid[1] > UINT64_MAX / p->grid[2])
        return invalid(msg, msglen, "kernel %s: grid (%u, %u, %u) has more than 2^64 workgroups", name, p->grid[0],
                       p->grid[1], p->grid[2]);
    return EMU_OK;
}

EmuStatus emu_launch(const EmuLaunch *p, char *msg, size_t msglen)
{
    if (msg && msglen)
        msg[0] = '\0';
    const char *name = p->kernel_name ? p->kernel_name : "?";
    EmuStatus st = validate(p, name, msg, msglen);
    if (st != EMU_OK)
        return st;

    Launch L = {.p = p, .name = name, .status = EMU_OK};
    L.nwg = (uint64_t)p->grid[0] * p->grid[1] * p->grid[2];
    L.timeout_s = launch_timeout(p);
    L.deadline = now_s() + L.timeout_s;
    atomic_init(&L.next, 0);
    atomic_init(&L.stop, 0);
    pthread_mutex_init(&L.lock, NULL);

    long nthreads = p->check_races ? 1 : p->threads > 0 ? p->threads : sysconf(_SC_NPROCESSORS_ONLN);
    if (nthreads < 1)
        nthreads = 1;
    if (nthreads > MAX_THREADS)
        nthreads = MAX_THREADS;
    if ((uint64_t)nthreads > L.nwg)
        nthreads = (long)L.nwg;

    Worker *ws[MAX_THREADS];
    pthread_t tids[MAX_THREADS];
    int nw = 0;
    if (!emu_mem_snapshot(&L.mem)) {
        invalid(msg, msglen, "kernel %s: out of memory", name);
        pthread_mutex_destroy(&L.lock);
        return EMU_ERR_NOMEM;
    }
    if (p->check_races) {
        if (!emu_race_fits(&L)) {
            emu_mem_snap_free(&L.mem);
            pthread_mutex_destroy(&L.lock);
            return invalid(msg, msglen, "kernel %s: the race checker takes at most 2^32 waves in a grid", name);
        }
        if (!emu_race_init(&L)) {
            emu_race_free(&L);
            emu_mem_snap_free(&L.mem);
            pthread_mutex_destroy(&L.lock);
            invalid(msg, msglen, "kernel %s: out of memory for the race checker", name);
            return EMU_ERR_NOMEM;
        }
    }
    for (; nw < nthreads; nw++) {
        ws[nw] = worker_get((int)p->block, launch_wave(p));
        if (!ws[nw])
            break;
        ws[nw]->L = &L;
        ws[nw]->nprints = ws[nw]->ntext = 0;
        ws[nw]->print_seq = 0;
        ws[nw]->ticks = 0;
    }
    if (nw == 0) {
        emu_race_free(&L);
        emu_mem_snap_free(&L.mem);
        pthread_mutex_destroy(&L.lock);
        invalid(msg, msglen, "kernel %s: out of memory for lane stacks", name);
        return EMU_ERR_NOMEM;
    }

    /* The calling thread is worker 0; a thread that cannot be created just leaves its share to the
     * others. */
    int started = 1;
    for (int i = 1; i < nw; i++)
        if (pthread_create(&tids[started], NULL, worker_run, ws[i]) == 0)
            ws[started++] = ws[i];
        else
            worker_put(ws[i]);
    nw = started;
    worker_run(ws[0]);
    for (int i = 1; i < nw; i++)
        pthread_join(tids[i], NULL);

    if (!deliver_prints(p, ws, nw))
        launch_error(&L, EMU_ERR_NOMEM, "out of memory for print output");
    for (int i = 0; i < nw; i++) {
        ws[i]->L = NULL;
        worker_put(ws[i]);
    }
    if (emu_race_oom(&L))
        launch_error(&L, EMU_ERR_NOMEM, "out of memory in the race checker");
    emu_race_free(&L);
    emu_mem_snap_free(&L.mem);
    st = L.status;
    if (st != EMU_OK && msg && msglen)
        snprintf(msg, msglen, "%s", L.msg);
    pthread_mutex_destroy(&L.lock);
    return st;
}
