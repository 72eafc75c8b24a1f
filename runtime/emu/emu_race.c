/* The race checker (RK_CHECK_RACES=1, rk_ctx_options.check_races): reports two accesses to one byte of
 * global memory or LDS, at least one a write and not both atomic, that nothing orders.
 *
 * Happens-before is tracked with vector clocks, one "thread" per wave of each workgroup (tid =
 * linear workgroup id * waves + wave + 1). A wave's own clock advances at every barrier and after every
 * releasing atomic. Within a wave everything is ordered (the emulator runs a wave's accesses in program
 * order: fns->wave_fence). A barrier joins the clocks of all the workgroup's waves; an atomic with
 * release semantics joins its wave's clock into the clock of its address, and one with acquire
 * semantics joins that clock into its wave's (a lock taken with atomic_cas and released with
 * atomic_xchg, both acq_rel by default, so orders what it protects). Relaxed atomics order nothing.
 *
 * Every byte has a shadow cell: the last write and up to two reads since, each as (tid, clock, lane,
 * site, atomic). An access races with a recorded one of another wave when the accessing wave's clock
 * of that wave is below the recorded clock. Reads that are themselves unordered are kept two at a
 * time (a third replaces the second): the checker may miss a race then, but never reports one that
 * is not there. LDS records of an earlier workgroup on the same worker are ignored by their tid.
 *
 * The checker runs the launch on one host thread, so that its state needs no locks; workgroups then
 * run one after another, which changes nothing it reports: orders come from the clocks, not from the
 * interleaving the emulator happened to choose. What it does not see: cp.async and wgmma operand
 * reads on emu_sm90 (their own checks cover bounds only). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime/emu/emu_internal.h"

enum {
    REC_ATOMIC = 0x8000, /* in RaceRec.lane */
    SITE_NONE = 0,
};

typedef struct RaceRec {
    uint32_t tid;   /* 0: none */
    uint32_t clock; /* the wave's own clock at the access */
    uint16_t lane;  /* work-item id in the workgroup | REC_ATOMIC */
    uint16_t site;  /* index in Race.sites */
} RaceRec;

typedef struct Cell {
    RaceRec w, r[2];
} Cell;

typedef struct VcEnt {
    uint32_t tid, clock;
} VcEnt;

/* A vector clock: entries sorted by tid; a missing tid has clock 0. */
typedef struct Vc {
    VcEnt *e;
    uint32_t n, cap;
} Vc;

typedef struct SyncObj {
    uintptr_t addr; /* 0: empty slot */
    Vc vc;
} SyncObj;

struct Race {
    uint32_t nwaves;
    Cell **global; /* per range of the launch's memory snapshot, mapped on first use */
    size_t *global_bytes;
    size_t nranges;
    Cell *lds;
    size_t lds_bytes;
    Vc vc[EMU_MAX_WAVES]; /* the running workgroup's waves */
    Vc tmp;
    SyncObj *sync; /* open addressing by address */
    size_t nsync, csync;
    const char **sites; /* sites[0]: none; a hash from pointer to index in site_slot */
    size_t nsites, csites;
    uint16_t *site_slot;
    size_t cslot;
    bool oom;
};

/* ---- vector clocks ---- */

static uint32_t vc_get(const Vc *v, uint32_t tid)
{
    uint32_t lo = 0, hi = v->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (v->e[mid].tid < tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < v->n && v->e[lo].tid == tid ? v->e[lo].clock : 0;
}

static bool vc_reserve(Vc *v, uint32_t n)
{
    if (n <= v->cap)
        return true;
    uint32_t cap = v->cap ? v->cap : 8;
    while (cap < n)
        cap *= 2;
    VcEnt *e = realloc(v->e, cap * sizeof *e);
    if (!e)
        return false;
    v->e = e;
    v->cap = cap;
    return true;
}

static bool vc_set(Vc *v, uint32_t tid, uint32_t clock)
{
    uint32_t i = 0;
    while (i < v->n && v->e[i].tid < tid)
        i++;
    if (i < v->n && v->e[i].tid == tid) {
        v->e[i].clock = clock;
        return true;
    }
    if (!vc_reserve(v, v->n + 1))
        return false;
    memmove(&v->e[i + 1], &v->e[i], (v->n - i) * sizeof *v->e);
    v->e[i] = (VcEnt){tid, clock};
    v->n++;
    return true;
}

/* dst = max(dst, src), through tmp. */
static bool vc_join(Vc *dst, const Vc *src, Vc *tmp)
{
    if (!src->n)
        return true;
    if (!vc_reserve(tmp, dst->n + src->n))
        return false;
    uint32_t i = 0, j = 0, k = 0;
    while (i < dst->n || j < src->n) {
        if (j == src->n || (i < dst->n && dst->e[i].tid < src->e[j].tid))
            tmp->e[k++] = dst->e[i++];
        else if (i == dst->n || src->e[j].tid < dst->e[i].tid)
            tmp->e[k++] = src->e[j++];
        else {
            VcEnt a = dst->e[i++], b = src->e[j++];
            tmp->e[k++] = (VcEnt){a.tid, a.clock > b.clock ? a.clock : b.clock};
        }
    }
    tmp->n = k;
    Vc t = *dst;
    *dst = *tmp;
    *tmp = t;
    return true;
}

/* ---- setup ---- */

static void *map_zeroed(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

bool emu_race_init(Launch *L)
{
    Race *r = calloc(1, sizeof *r);
    if (!r)
        return false;
    L->race = r;
    r->nwaves = L->p->block / (uint32_t)(L->p->wave ? L->p->wave : EMU_WAVE);
    r->nranges = L->mem.n;
    r->global = calloc(r->nranges + 1, sizeof *r->global);
    r->global_bytes = calloc(r->nranges + 1, sizeof *r->global_bytes);
    r->lds_bytes = L->p->lds_bytes;
    r->lds = r->lds_bytes ? map_zeroed(r->lds_bytes * sizeof(Cell)) : NULL;
    r->csites = 64;
    r->sites = calloc(r->csites, sizeof *r->sites);
    r->nsites = 1;
    r->cslot = 128;
    r->site_slot = calloc(r->cslot, sizeof *r->site_slot);
    return r->global && r->global_bytes && (!r->lds_bytes || r->lds) && r->sites && r->site_slot;
}

void emu_race_free(Launch *L)
{
    Race *r = L->race;
    if (!r)
        return;
    for (size_t i = 0; r->global && i < r->nranges; i++)
        if (r->global[i])
            munmap(r->global[i], r->global_bytes[i] * sizeof(Cell));
    free(r->global);
    free(r->global_bytes);
    if (r->lds)
        munmap(r->lds, r->lds_bytes * sizeof(Cell));
    for (uint32_t i = 0; i < EMU_MAX_WAVES; i++)
        free(r->vc[i].e);
    free(r->tmp.e);
    for (size_t i = 0; i < r->csync; i++)
        free(r->sync[i].vc.e);
    free(r->sync);
    free(r->sites);
    free(r->site_slot);
    free(r);
    L->race = NULL;
}

static uint32_t tid_of(const Race *r, uint64_t wg, uint32_t wave)
{
    return (uint32_t)(wg * r->nwaves + wave + 1);
}

/* The grid is small enough for 32-bit thread ids. */
bool emu_race_fits(const Launch *L)
{
    uint32_t nwaves = L->p->block / (uint32_t)(L->p->wave ? L->p->wave : EMU_WAVE);
    return L->nwg <= (UINT32_MAX - 1) / nwaves;
}

void emu_race_wg_start(Worker *w)
{
    Race *r = w->L->race;
    for (uint32_t v = 0; v < r->nwaves; v++) {
        r->vc[v].n = 0;
        if (!vc_set(&r->vc[v], tid_of(r, w->wg_lin, v), 1))
            r->oom = true;
    }
}

void emu_race_barrier(Worker *w)
{
    Race *r = w->L->race;
    Vc *all = &r->vc[0];
    for (uint32_t v = 1; v < r->nwaves; v++)
        if (!vc_join(all, &r->vc[v], &r->tmp))
            r->oom = true;
    for (uint32_t v = 1; v < r->nwaves; v++) {
        if (!vc_reserve(&r->vc[v], all->n)) {
            r->oom = true;
            continue;
        }
        memcpy(r->vc[v].e, all->e, all->n * sizeof *all->e);
        r->vc[v].n = all->n;
    }
    for (uint32_t v = 0; v < r->nwaves; v++) {
        uint32_t t = tid_of(r, w->wg_lin, v);
        if (!vc_set(&r->vc[v], t, vc_get(&r->vc[v], t) + 1))
            r->oom = true;
    }
}

/* ---- sites and sync objects ---- */

static uint16_t site_index(Race *r, const char *site)
{
    if (!site)
        return SITE_NONE;
    uintptr_t h = ((uintptr_t)site >> 3) * 0x9E3779B97F4A7C15u;
    for (size_t i = h % r->cslot;; i = (i + 1) % r->cslot) {
        uint16_t k = r->site_slot[i];
        if (k == SITE_NONE)
            break;
        if (r->sites[k] == site)
            return k;
    }
    if (r->nsites >= UINT16_MAX || r->oom)
        return SITE_NONE;
    if (r->nsites == r->csites) {
        const char **s = realloc(r->sites, 2 * r->csites * sizeof *s);
        if (!s)
            return SITE_NONE;
        r->sites = s;
        r->csites *= 2;
    }
    if (2 * (r->nsites + 1) > r->cslot) { /* rehash into a table twice the size */
        size_t c = 2 * r->cslot;
        uint16_t *t = calloc(c, sizeof *t);
        if (!t)
            return SITE_NONE;
        for (size_t k = 1; k < r->nsites; k++) {
            uintptr_t hk = ((uintptr_t)r->sites[k] >> 3) * 0x9E3779B97F4A7C15u;
            size_t i = hk % c;
            while (t[i])
                i = (i + 1) % c;
            t[i] = (uint16_t)k;
        }
        free(r->site_slot);
        r->site_slot = t;
        r->cslot = c;
    }
    uint16_t k = (uint16_t)r->nsites++;
    r->sites[k] = site;
    size_t i = h % r->cslot;
    while (r->site_slot[i])
        i = (i + 1) % r->cslot;
    r->site_slot[i] = k;
    return k;
}

static Vc *sync_of(Race *r, uintptr_t a)
{
    if (2 * (r->nsync + 1) > r->csync) {
        size_t c = r->csync ? 2 * r->csync : 64;
        SyncObj *t = calloc(c, sizeof *t);
        if (!t)
            return NULL;
        for (size_t k = 0; k < r->csync; k++)
            if (r->sync[k].addr) {
                size_t i = (r->sync[k].addr * 0x9E3779B97F4A7C15u) % c;
                while (t[i].addr)
                    i = (i + 1) % c;
                t[i] = r->sync[k];
            }
        free(r->sync);
        r->sync = t;
        r->csync = c;
    }
    size_t i = (a * 0x9E3779B97F4A7C15u) % r->csync;
    while (r->sync[i].addr && r->sync[i].addr != a)
        i = (i + 1) % r->csync;
    if (!r->sync[i].addr) {
        r->sync[i].addr = a;
        r->nsync++;
    }
    return &r->sync[i].vc;
}

/* ---- accesses ---- */

static const char *kind_name(bool write, bool atomic)
{
    return atomic ? "atomic" : write ? "store" : "load";
}

__attribute__((noinline, cold)) static _Noreturn void report(Lane *l, bool lds, uintptr_t a, uintptr_t base,
                                                             bool write, bool atomic, const char *site,
                                                             const RaceRec *prev, bool prev_write)
{
    Worker *w = l->w;
    Race *r = w->L->race;
    uint32_t wave_size = (uint32_t)l->wave->size;
    uint64_t pwg = (prev->tid - 1) / r->nwaves;
    uint32_t pwave = (prev->tid - 1) % r->nwaves;
    const char *psite = prev->site ? r->sites[prev->site] : NULL;
    char who[160];
    if (pwg == w->wg_lin) {
        snprintf(who, sizeof who, "wave %u lane %u", pwave, prev->lane & ~REC_ATOMIC);
    } else {
        uint64_t gx = w->L->p->grid[0], gy = w->L->p->grid[1];
        snprintf(who, sizeof who, "workgroup (%" PRIu64 ", %" PRIu64 ", %" PRIu64 ") wave %u lane %u", pwg % gx,
                 pwg / gx % gy, pwg / (gx * gy), pwave, prev->lane & ~REC_ATOMIC);
    }
    char where[96];
    if (lds)
        snprintf(where, sizeof where, "LDS offset %" PRIuPTR, a - base);
    else
        snprintf(where, sizeof where, "global memory 0x%" PRIxPTR " (byte %" PRIuPTR " of the allocation at 0x%" PRIxPTR ")",
                 a, a - base, base);
    emu_lane_fail(l, EMU_ERR_RACE,
                  "data race on %s: %s by wave %u lane %u at %s and %s by %s at %s, with no %s between them", where,
                  kind_name(write, atomic), l->abi.lane / wave_size, l->abi.lane, site ? site : "?",
                  kind_name(prev_write, (prev->lane & REC_ATOMIC) != 0), who, psite ? psite : "?",
                  pwg == w->wg_lin ? "barrier" : "synchronisation through atomics");
}

/* Whether the recorded access is ordered before an access by wave `self` (tid) with clock vc. */
static inline bool ordered(const RaceRec *p, uint32_t self, const Vc *vc, uint32_t tid_lo)
{
    return p->tid == 0 || p->tid == self || p->tid < tid_lo || vc_get(vc, p->tid) >= p->clock;
}

void emu_race_access(Lane *l, uintptr_t a, uint64_t bytes, int32_t flags, const char *site, uintptr_t base,
                     size_t range)
{
    Worker *w = l->w;
    Race *r = w->L->race;
    if (flags & EMU_ACCESS_REPLICA)
        return;
    bool lds = (flags & EMU_ACCESS_LDS) != 0;
    bool atomic = (flags & EMU_ACCESS_ATOMIC) != 0;
    bool write = (flags & (EMU_ACCESS_STORE | EMU_ACCESS_ATOMIC)) != 0;
    uint32_t wave = l->abi.lane / (uint32_t)l->wave->size;
    uint32_t self = tid_of(r, w->wg_lin, wave);
    Vc *vc = &r->vc[wave];
    /* LDS: records of an earlier workgroup on this worker do not count */
    uint32_t tid_lo = lds ? tid_of(r, w->wg_lin, 0) : 0;
    Cell *cells;
    if (lds) {
        cells = r->lds;
    } else {
        if (range >= r->nranges)
            return;
        if (!r->global[range]) {
            const EmuRange *rg = &w->L->mem.r[range];
            r->global_bytes[range] = rg->hi - rg->lo;
            r->global[range] = map_zeroed(r->global_bytes[range] * sizeof(Cell));
            if (!r->global[range]) {
                r->oom = true;
                return;
            }
        }
        cells = r->global[range];
    }
    if (!cells)
        return;
    if (atomic && (flags & EMU_ACCESS_ACQUIRE)) {
        Vc *s = sync_of(r, a);
        if (!s || !vc_join(vc, s, &r->tmp))
            r->oom = true;
    }
    RaceRec me = {self, vc_get(vc, self), (uint16_t)(l->abi.lane | (atomic ? REC_ATOMIC : 0)), site_index(r, site)};
    for (uint64_t i = 0; i < bytes; i++) {
        Cell *c = &cells[a - base + i];
        if (!ordered(&c->w, self, vc, tid_lo) && !(atomic && (c->w.lane & REC_ATOMIC)))
            report(l, lds, a + i, base, write, atomic, site, &c->w, true);
        if (write) {
            for (int k = 0; k < 2; k++)
                if (!ordered(&c->r[k], self, vc, tid_lo) && !(atomic && (c->r[k].lane & REC_ATOMIC)))
                    report(l, lds, a + i, base, write, atomic, site, &c->r[k], false);
            c->w = me;
            c->r[0].tid = c->r[1].tid = 0;
        } else {
            /* keep two reads not ordered before this one; this one replaces an ordered one or the second */
            int k = ordered(&c->r[0], self, vc, tid_lo) ? 0 : ordered(&c->r[1], self, vc, tid_lo) ? 1 : 1;
            c->r[k] = me;
        }
    }
    if (atomic && (flags & EMU_ACCESS_RELEASE)) {
        Vc *s = sync_of(r, a);
        if (!s || !vc_join(s, vc, &r->tmp) || !vc_set(vc, self, me.clock + 1))
            r->oom = true;
    }
}

bool emu_race_oom(const Launch *L)
{
    return L->race && L->race->oom;
}
