/* The loop cycle model: how many cycles one iteration of a loop takes on a CDNA SIMD, how much of
 * that the matrix unit is busy, and where the rest goes.
 *
 * A small static scheduler over the loop body's instructions in program order, for the waves of the
 * workgroup that share one SIMD (CDNA deals a workgroup's waves out to a CU's 4 SIMDs in turn: one
 * for up to 4 waves, two for 5 to 8). Each wave issues in order, one instruction per issue slot of
 * at least 4 cycles (report_loop.def holds each class's slot and each MFMA's cycles, from AMD's
 * tables). The SIMD's units are shared by its waves: the VALU (an MFMA's issue included), the SALU,
 * the VMEM and DS issue take one instruction a slot, from either wave; the matrix unit one MFMA at a
 * time for its cycles, while other instructions issue under it. Of the waves' next instructions the
 * one that can issue first goes, ties to the older wave (AMD's arbiter favours age). Any instruction
 * that reads or writes a register an MFMA has not finished writing waits for it (the compiler's
 * s_nop cover the rest of the hazards, and are costed as issue slots). Memory instructions complete
 * after a latency (LoopParams): VMEM (global_, buffer_, scratch_) counts against vmcnt only, as the
 * hardware does (FLAT's flat_ against both vmcnt and lgkmcnt; llvm-mca 22 charges every FLAT-encoded
 * instruction, global_load included, to lgkmcnt, which the hardware does not), DS and SMEM against
 * lgkmcnt; VMEM and DS complete in order, SMEM in any order. s_waitcnt waits until at most N of its
 * wave's counter's operations are outstanding. DS instructions also queue for the LDS, whose
 * bandwidth per CU is shared by the workgroup's waves (the other SIMDs' waves run the same loop at the
 * same times, so each wave scheduled here stands for the workgroup's waves over those of the SIMD),
 * so an op's completion is its start on the LDS (after the bytes of those before it) plus the LDS
 * latency. s_barrier waits until the SIMD's waves have all reached it (counted by number, as the
 * hardware counts them, not by place) and opens barrier_latency after the last arrives.
 * LDS bank conflicts: where report_lds.c finds every lane's address of a DS read or write (by
 * evaluating the kernel's address arithmetic from its entry), an access whose passes take n ways in
 * all, over passes that would take one each, occupies the LDS n / passes times as long; an access
 * whose addresses it cannot find is charged as conflict-free and counted as unknown.
 * Workgroups resident on the CU at once (LoopParams.workgroups, the report's occupancy) run side by
 * side, each with its own barriers; a figure is per iteration of one workgroup.
 * Not modelled: other kernels' waves on the CU, cache
 * misses (one global latency for all), instruction fetch, branches (every instruction of the body is
 * issued once per iteration, whichever way its forward branches go), VMEM bandwidth, s_setprio.
 *
 * Steady state: one wave runs params.iterations (4) iterations back to back, with the loads of one
 * still outstanding in the next, and its last is measured, from when it is ready to issue its first
 * instruction to when it is ready for the next iteration's. Several waves run 4 times as many each:
 * the older wins every tie and may run ahead (without barriers it can starve the younger, which
 * then finishes alone), so the figure is the SIMD's average time per round of one iteration of each
 * wave, from the moment nw * iterations of the waves' iterations have finished (whichever wave's) to
 * the last; exact for waves that keep pace, as waves meeting at barriers do. Several workgroups:
 * the steady state of a GPU whose free slots take the next workgroup (the youngest: priority passes
 * round), from when every wave has run `iterations` to when the last workgroup has run its 4 times as
 * many, the others running on (refill). Each cycle of that
 * window is either one in which the matrix unit is busy (any wave's MFMA) or one charged to what the
 * wave that finishes last was doing (report.h: the stall causes), so the busy cycles and the stalls
 * add up to the window, and per round, rounded, to the figure. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Defaults: estimates for MI300X (CDNA3, 2.1 GHz), not measured here (no AMD GPU in reach); the
 * sources and the reasoning are in docs/internals.md ("The loop cycle model"). */
const LoopParams report_loop_params = {
    .global_latency = 500,   /* ~240 ns at 2.1 GHz: between MI300X's L2 and HBM latencies */
    .lds_latency = 64,       /* the figure AMD's GCN/CDNA guides give for an LDS access */
    .smem_latency = 100,     /* a scalar cache hit */
    .barrier_latency = 32,   /* the round trip through the workgroup's barrier, no wave late */
    .lds_bytes_per_clk = 128, /* CDNA3 white paper: 128 bytes per clock per CU */
    .iterations = 4,
    .simd_waves = 0,         /* the workgroup's share of a SIMD: 4 SIMDs a CU */
    .workgroups = 1,         /* the report passes the kernel's occupancy */
};

const char *const report_stall_names[NSTALLS] = {"vmcnt", "lgkmcnt", "lds", "barrier", "valu", "salu", "other"};

enum { K_VALU, K_TRANS, K_MFMA, K_DS, K_VMEM, K_FLAT, K_SMEM, K_WAIT, K_BARRIER, K_NOP, K_SALU, K_OTHER };

static const struct {
    const char *prefix;
    int kind, issue;
} kinds[] = {
#define KIND(p, k, i) {p, k, i},
#define MFMA(m, c2, c3, c4)
#include "report_loop.def"
#undef KIND
#undef MFMA
};

static const struct {
    const char *mnemonic;
    int cycles[3]; /* CDNA2, CDNA3, CDNA4 */
} mfmas[] = {
#define KIND(p, k, i)
#define MFMA(m, c2, c3, c4) {m, {c2, c3, c4}},
#include "report_loop.def"
#undef KIND
#undef MFMA
};

/* The CDNA generation of each CPU a code object may name (its ELF e_flags), as the report's table
 * spells them: the column of the MFMA cycles above; and its LDS banks of 4 bytes, which serve one
 * access in passes of 4 x banks bytes (32 lanes of 4 bytes or less, 16 of 8, 8 of 16 with 32 banks):
 * 32 on CDNA2 and CDNA3 (AMD's MI200 and MI300 ISA guides, "Data share operations": 32 banks, 128
 * bytes a clock), 64 on CDNA4 (its LDS serves 256 bytes a clock: Chips and Cheese, "AMD's CDNA 4
 * architecture announcement"); the same figures as Target.lds_banks (compiler/target/target.h),
 * which the compiler's own bank model (compiler/lower/lds_banks.c) uses. */
static const struct {
    const char *cpu;
    int family; /* 2 (CDNA2), 3 (CDNA3), 4 (CDNA4) */
    int lds_banks;
} families[] = {
    {"gfx90a", 2, 32}, {"gfx940", 3, 32}, {"gfx941", 3, 32}, {"gfx942", 3, 32}, {"gfx9-4-generic", 3, 32},
    {"gfx950", 4, 64},
};

/* The family of a CPU name of the report's table, 0 when it has no model. */
static int family(const char *cpu)
{
    for (size_t i = 0; cpu && i < sizeof families / sizeof families[0]; i++)
        if (strcmp(cpu, families[i].cpu) == 0)
            return families[i].family;
    return 0;
}

static int lds_banks(const char *cpu)
{
    for (size_t i = 0; cpu && i < sizeof families / sizeof families[0]; i++)
        if (strcmp(cpu, families[i].cpu) == 0)
            return families[i].lds_banks;
    return 32;
}

int report_loop_has_model(const char *cpu)
{
    return family(cpu) != 0;
}

/* An MFMA missing from the table, costed from its shape: 32x32 blocks 32 cycles, 16x16 16, smaller
 * 8, on CDNA3 and CDNA4; twice that for f32 and f64 inputs (not xf32) and on CDNA2. */
static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

static int mfma_fallback(const char *mn, int fam)
{
    int cycles = strstr(mn, "_32x32x") ? 32 : strstr(mn, "_16x16x") ? 16 : 8;
    if ((ends_with(mn, "f32") && !ends_with(mn, "xf32")) || ends_with(mn, "f64"))
        cycles *= 2;
    return fam == 2 ? cycles * 2 : cycles;
}

static int mfma_cycles(const char *mn, int fam)
{
    for (size_t i = 0; i < sizeof mfmas / sizeof mfmas[0]; i++)
        if (!strcmp(mfmas[i].mnemonic, mn) && mfmas[i].cycles[fam - 2])
            return mfmas[i].cycles[fam - 2];
    return mfma_fallback(mn, fam);
}

/* ---- decoding one instruction ----------------------------------------------------------------- */

enum { MAX_REGS = 8, NREGS = 512 }; /* v0-v255 then a0-a255 */

typedef struct Ins {
    int kind, issue;
    int cycles;       /* MFMA: matrix unit cycles */
    int bytes;        /* DS: bytes the wave moves through the LDS */
    LdsCost lds;      /* DS: its bank conflicts, where known */
    int vm, lgkm;     /* s_waitcnt: the counts waited for, -1 when not waited on */
    int nregs;
    uint16_t lo[MAX_REGS], hi[MAX_REGS]; /* register ranges, in NREGS numbering, operand order */
} Ins;

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* A register operand v5, v[4:7], a3, a[0:15] (after any '-' or '|' modifier): 1 with its range. */
static int parse_reg(const char *t, size_t n, int *lo, int *hi)
{
    while (n && (*t == '-' || *t == '|'))
        t++, n--;
    while (n && t[n - 1] == '|')
        n--;
    if (n < 2 || (t[0] != 'v' && t[0] != 'a'))
        return 0;
    int base = t[0] == 'a' ? 256 : 0;
    char buf[32];
    if (n >= sizeof buf)
        return 0;
    memcpy(buf, t + 1, n - 1);
    buf[n - 1] = 0;
    char *end;
    if (is_digit(buf[0])) {
        long r = strtol(buf, &end, 10);
        if (*end || r > 255)
            return 0;
        *lo = *hi = base + (int)r;
        return 1;
    }
    if (buf[0] != '[' || !is_digit(buf[1]))
        return 0;
    long a = strtol(buf + 1, &end, 10);
    if (*end != ':' || !is_digit(end[1]))
        return 0;
    long b = strtol(end + 1, &end, 10);
    if (strcmp(end, "]") != 0 || a > b || b > 255)
        return 0;
    *lo = base + (int)a;
    *hi = base + (int)b;
    return 1;
}

/* s_waitcnt's operand: vmcnt(N) lgkmcnt(M) expcnt(K) in any order, or the raw GFX9 immediate. */
static void parse_waitcnt(const char *ops, Ins *in)
{
    in->vm = in->lgkm = -1;
    const char *v = strstr(ops, "vmcnt("), *l = strstr(ops, "lgkmcnt(");
    if (v)
        in->vm = atoi(v + 6);
    if (l)
        in->lgkm = atoi(l + 8);
    if (!v && !l && !strstr(ops, "cnt(")) {
        char *end;
        long imm = strtol(ops, &end, 0);
        if (end != ops) { /* GFX9: vmcnt [3:0] and [15:14], lgkmcnt [11:8]; all ones = no wait */
            int vm = (int)((imm & 0xf) | ((imm >> 14) & 3) << 4), lg = (int)((imm >> 8) & 0xf);
            in->vm = vm == 63 ? -1 : vm;
            in->lgkm = lg == 15 ? -1 : lg;
        }
    }
}

static void decode(const char *line, int fam, Ins *in)
{
    memset(in, 0, sizeof *in);
    in->vm = in->lgkm = -1;
    const char *t = line + strspn(line, " \t");
    char mn[64];
    size_t mlen = strcspn(t, " \t");
    if (mlen >= sizeof mn)
        mlen = sizeof mn - 1;
    memcpy(mn, t, mlen);
    mn[mlen] = 0;
    const char *ops = t + mlen;
    ops += strspn(ops, " \t");
    in->kind = K_OTHER;
    in->issue = 4;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strncmp(mn, kinds[i].prefix, strlen(kinds[i].prefix))) {
            in->kind = kinds[i].kind;
            in->issue = kinds[i].issue;
            break;
        }
    switch (in->kind) {
    case K_MFMA: in->cycles = mfma_cycles(mn, fam); break;
    case K_DS: {
        int bits = 0;
        report_classify_memory(mn, &bits);
        in->bytes = (bits ? bits : 32) / 8 * 64;
        break;
    }
    case K_WAIT: parse_waitcnt(ops, in); break;
    case K_NOP: in->issue = 4 * (1 + (int)(strtol(ops, NULL, 0) & 0xf)); break;
    default: break;
    }
    /* registers: comma- or space-separated operands */
    const char *p = ops;
    while (*p && in->nregs < MAX_REGS) {
        p += strspn(p, " ,\t");
        size_t n = strcspn(p, " ,\t");
        if (!n)
            break;
        int lo, hi;
        if (parse_reg(p, n, &lo, &hi)) {
            in->lo[in->nregs] = (uint16_t)lo;
            in->hi[in->nregs] = (uint16_t)hi;
            in->nregs++;
        }
        p += n;
    }
}

/* ---- the schedule ----------------------------------------------------------------------------- */

typedef struct Pending {
    int64_t done;  /* completion cycle */
    int64_t queue; /* DS: cycles spent waiting for the LDS before starting */
} Pending;

enum { MAX_PENDING = 256 };

typedef struct Counter {
    Pending op[MAX_PENDING];
    int n;
    int64_t last; /* in-order completion: the latest completion so far */
} Counter;

typedef struct Span {
    int64_t start, end;
} Span;

/* An interval of a wave's time and what it was doing then (charged once every MFMA that can overlap
 * it is known). */
typedef struct Charge {
    int64_t start, end;
    int cause;
} Charge;

/* The issue units a SIMD's waves share: one instruction of each per issue slot, from one wave (the
 * sequencer may issue a VALU of one wave and an SALU of another in the same slot). An MFMA's issue is a
 * VALU issue. s_waitcnt, s_nop and s_barrier are the wave's own. */
enum { U_VALU, U_SALU, U_VMEM, U_DS, NUNITS, U_NONE = -1 };

typedef struct Wave {
    int64_t t; /* when the wave can issue its next instruction */
    int64_t ready[NREGS];
    Counter vm, lgkm;
    int pc, iter;     /* its next instruction: body[pc] of iteration iter */
    int barriers;     /* s_barriers it has passed */
    bool at_barrier;  /* waiting at its next one for the others */
    int64_t arrived;  /* since when */
    int64_t *ends;    /* ends[i]: when it is ready for iteration i + 1's first instruction */
    Charge *charged;  /* its time and what it spent it on, in order */
    int ncharged, max_charged;
    int64_t conflict; /* LDS cycles its DS instructions' bank conflicts add, with when each issued */
    int64_t *conflict_at, *conflict_cycles;
    int nconflict;
    int limit;        /* the iterations it may run: its workgroup's so far (refilled slots run more) */
    int64_t age;      /* its workgroup's dispatch order: ties go to the lowest (the oldest) */
} Wave;

enum { SIMDS_PER_CU = 4, MAX_SIMD_WAVES = 8 };

typedef struct Sched {
    const LoopParams *p;
    int workgroup;     /* the workgroup's waves */
    int nwaves;        /* those on one SIMD, which the schedule runs (w[0] the oldest) */
    int group;         /* of them, one workgroup's: w[0 .. group) the first, and so on */
    int workgroups;    /* the workgroups resident on the CU: nwaves / group */
    Wave *w;
    int64_t mfma_free; /* when the SIMD's matrix unit takes the next MFMA */
    int64_t lds_free;  /* when the CU's LDS takes the next DS instruction */
    int64_t unit_free[NUNITS];
    Span *busy; /* MFMA busy spans, in order, disjoint (the unit serves one MFMA at a time) */
    int nbusy;
    int n, iters;      /* the body's instructions; the iterations each wave runs */
} Sched;

/* Cycles of [a, b) during which the matrix unit is busy. */
static int64_t busy_in(const Sched *s, int64_t a, int64_t b)
{
    int lo = 0, hi = s->nbusy; /* the first span ending after a */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (s->busy[mid].end > a)
            hi = mid;
        else
            lo = mid + 1;
    }
    int64_t sum = 0;
    for (int i = lo; i < s->nbusy && s->busy[i].start < b; i++) {
        int64_t x = s->busy[i].start > a ? s->busy[i].start : a, y = s->busy[i].end < b ? s->busy[i].end : b;
        if (y > x)
            sum += y - x;
    }
    return sum;
}

/* Records that wave w spent [a, b) on `cause`. */
static void charge(Wave *w, int64_t a, int64_t b, int cause)
{
    if (b <= a || w->ncharged == w->max_charged)
        return;
    w->charged[w->ncharged++] = (Charge){a, b, cause};
}

static void push(Counter *c, int64_t done, int64_t queue, bool in_order, int64_t now)
{
    int k = 0; /* drop what has completed by now */
    for (int i = 0; i < c->n; i++)
        if (c->op[i].done > now)
            c->op[k++] = c->op[i];
    c->n = k;
    if (in_order && done < c->last)
        done = c->last;
    if (done > c->last)
        c->last = done;
    if (c->n == MAX_PENDING) { /* more in flight than any counter holds: the oldest must be done */
        memmove(c->op, c->op + 1, sizeof c->op[0] * (MAX_PENDING - 1));
        c->n--;
    }
    c->op[c->n++] = (Pending){done, queue};
}

static int cmp_done(const void *x, const void *y)
{
    int64_t a = ((const Pending *)x)->done, b = ((const Pending *)y)->done;
    return a < b ? -1 : a > b;
}

/* When at most `max` of c's operations are outstanding, from `now`; *queue gets the LDS queueing of
 * the operation waited for. */
static int64_t wait_for(Counter *c, int max, int64_t now, int64_t *queue)
{
    *queue = 0;
    int k = 0;
    for (int i = 0; i < c->n; i++)
        if (c->op[i].done > now)
            c->op[k++] = c->op[i];
    c->n = k;
    if (max < 0 || c->n <= max)
        return now;
    qsort(c->op, (size_t)c->n, sizeof c->op[0], cmp_done);
    const Pending *w = &c->op[c->n - max - 1];
    *queue = w->queue;
    return w->done;
}

static int64_t regs_ready(const Wave *w, const Ins *in, int from, int to)
{
    int64_t r = 0;
    for (int i = from; i < in->nregs && i < to; i++)
        for (int g = in->lo[i]; g <= in->hi[i]; g++)
            if (w->ready[g] > r)
                r = w->ready[g];
    return r;
}

static int unit_of(int kind)
{
    switch (kind) {
    case K_VALU:
    case K_TRANS:
    case K_MFMA: return U_VALU;
    case K_SALU:
    case K_SMEM: return U_SALU; /* issued through the scalar unit (rocprofiler-compute's CU notes) */
    case K_VMEM:
    case K_FLAT: return U_VMEM;
    case K_DS: return U_DS;
    default: return U_NONE;
    }
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* When wave w can issue `in`: the schedule takes the waves' instructions in the order of these times. */
static int64_t issue_time(const Sched *s, const Wave *w, const Ins *in)
{
    int u = unit_of(in->kind);
    int64_t t = u == U_NONE ? w->t : max64(w->t, s->unit_free[u]);
    if (in->kind == K_MFMA) /* A and B (operands 1, 2) must be written; C and D follow the unit's order */
        return max64(max64(t, s->mfma_free), regs_ready(w, in, 1, 3));
    if (u == U_NONE)
        return t;
    return max64(t, regs_ready(w, in, 0, MAX_REGS));
}

/* Wave w issues `in` (not s_barrier, see pass_barrier). */
static void issue(Sched *s, Wave *w, const Ins *in)
{
    const LoopParams *p = s->p;
    int64_t t = w->t;
    int u = unit_of(in->kind);
    switch (in->kind) {
    case K_MFMA: {
        int64_t r = issue_time(s, w, in);
        charge(w, t, r, STALL_OTHER);
        s->busy[s->nbusy++] = (Span){r, r + in->cycles};
        s->mfma_free = r + in->cycles;
        if (in->nregs)
            for (int g = in->lo[0]; g <= in->hi[0]; g++)
                w->ready[g] = r + in->cycles;
        s->unit_free[u] = w->t = r + in->issue;
        return;
    }
    case K_WAIT: {
        int64_t qv, ql;
        int64_t v = wait_for(&w->vm, in->vm, t, &qv), l = wait_for(&w->lgkm, in->lgkm, t, &ql);
        int64_t end = t + in->issue;
        if (v >= l && v > end) {
            charge(w, t, v, STALL_VMCNT);
            end = v;
        } else if (l > end) {
            /* without the queueing the wait would have ended at l - ql */
            int64_t plain = l - ql > t ? l - ql : t;
            charge(w, t, plain, STALL_LGKMCNT);
            charge(w, plain, l, STALL_LDS);
            end = l;
        } else {
            charge(w, t, end, STALL_SALU);
        }
        w->t = end;
        return;
    }
    default: break;
    }
    /* everything else: wait for MFMA results it touches, then for its unit, then one issue slot */
    int cause = in->kind == K_VALU || in->kind == K_TRANS ? STALL_VALU
                : in->kind == K_SALU || in->kind == K_NOP ? STALL_SALU
                                                          : STALL_OTHER;
    int64_t r = regs_ready(w, in, 0, MAX_REGS);
    if (r > t) {
        charge(w, t, r, STALL_OTHER);
        t = r;
    }
    if (u != U_NONE && s->unit_free[u] > t) { /* another wave of the SIMD has the unit */
        charge(w, t, s->unit_free[u], cause);
        t = s->unit_free[u];
    }
    charge(w, t, t + in->issue, cause);
    if (u != U_NONE)
        s->unit_free[u] = t + in->issue;
    switch (in->kind) {
    case K_VMEM: push(&w->vm, t + p->global_latency, 0, true, t); break;
    case K_FLAT:
        push(&w->vm, t + p->global_latency, 0, true, t);
        push(&w->lgkm, t + p->global_latency, 0, false, t);
        break;
    case K_SMEM: push(&w->lgkm, t + p->smem_latency, 0, false, t); break;
    case K_DS: {
        /* the LDS serves the CU's resident waves: each wave here stands for the workgroups' waves
         * over the SIMD's */
        int64_t start = s->lds_free > t ? s->lds_free : t;
        int64_t bytes = (int64_t)in->bytes * s->workgroup * s->workgroups;
        int64_t bw = (int64_t)(p->lds_bytes_per_clk > 0 ? p->lds_bytes_per_clk : 1) * s->nwaves;
        int64_t occupancy = (bytes + bw - 1) / bw;
        if (in->lds.kind == LDS_KNOWN && in->lds.passes > 0) { /* n ways: n times the passes' time */
            int64_t num = bytes * in->lds.pass_ways, den = bw * in->lds.passes;
            int64_t conflicted = (num + den - 1) / den;
            if (conflicted > occupancy && w->nconflict < s->n * s->iters) {
                w->conflict_at[w->nconflict] = t;
                w->conflict_cycles[w->nconflict++] = conflicted - occupancy;
            }
            occupancy = conflicted;
        }
        s->lds_free = start + occupancy;
        push(&w->lgkm, start + p->lds_latency, start - t, true, t);
        break;
    }
    default: break;
    }
    w->t = t + in->issue;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

/* Wave w is past its instruction: the next, and at the body's end the next iteration's first. */
static void advance(Sched *s, Wave *w)
{
    if (++w->pc < s->n)
        return;
    w->pc = 0;
    w->ends[w->iter++] = w->t;
}

/* Several workgroups resident: when every wave of wave k's workgroup has run its iterations, the
 * next workgroup takes the slot: its waves, the youngest on the CU, run `runs` more (up to `cap`). */
static void refill(Sched *s, int k, int runs, int cap, int64_t *next_age)
{
    if (s->workgroups < 2)
        return;
    int lo = k / s->group * s->group, hi = lo + s->group;
    for (int j = lo; j < hi; j++)
        if (s->w[j].iter < s->w[j].limit || s->w[j].limit + runs > cap)
            return;
    int64_t age = (*next_age)++;
    for (int j = lo; j < hi; j++) {
        s->w[j].limit += runs;
        s->w[j].age = age;
    }
}

/* Wave w reaches an s_barrier: it waits until every wave of its workgroup on the SIMD has reached the
 * same one (they stand for the workgroup's: the other SIMDs' waves run the same code at the same
 * times), and all go on barrier_latency after the last arrives. Counted by number, not by place, as
 * the hardware does. */
static void pass_barrier(Sched *s, Wave *w, const Ins *in)
{
    w->at_barrier = true;
    w->arrived = w->t;
    int64_t last = 0;
    int lo = (int)(w - s->w) / s->group * s->group, hi = lo + s->group;
    for (int k = lo; k < hi; k++) {
        const Wave *o = &s->w[k];
        if (!o->at_barrier || o->barriers != w->barriers)
            return;
        last = max64(last, o->arrived);
    }
    int64_t open = last + (s->p->barrier_latency > in->issue ? s->p->barrier_latency : in->issue);
    for (int k = lo; k < hi; k++) {
        Wave *o = &s->w[k];
        charge(o, o->arrived, open, STALL_BARRIER);
        o->t = open;
        o->at_barrier = false;
        o->barriers++;
        advance(s, o);
    }
}

int report_loop_model(Arena *a, const char *cpu, int waves, const char *const *lines, int n, const LoopParams *p,
                      LoopReport *out)
{
    return report_loop_model_in(a, cpu, waves, false, lines, 0, n, p, out);
}

int report_loop_model_in(Arena *a, const char *cpu, int waves, bool v0_tid, const char *const *kernel, int entry,
                         int total, const LoopParams *p, LoopReport *out)
{
    memset(out, 0, sizeof *out);
    int fam = family(cpu);
    int n = total - entry;
    if (!fam || n <= 0 || entry < 0)
        return fam ? 0 : -1;
    if (!p)
        p = &report_loop_params;
    const char *const *lines = kernel + entry;
    int iters = p->iterations >= 2 ? p->iterations : 2;
    Ins *body = ARENA_ARRAY(a, Ins, n);
    LdsCost *lds = ARENA_ARRAY(a, LdsCost, n);
    report_lds_costs(a, kernel, entry, total, waves, lds_banks(cpu), v0_tid, lds);
    int nmfma = 0;
    for (int i = 0; i < n; i++) {
        decode(lines[i], fam, &body[i]);
        body[i].lds = lds[i];
        nmfma += body[i].kind == K_MFMA;
        if (lds[i].kind == LDS_UNKNOWN)
            out->lds_unknown++;
        if (lds[i].kind != LDS_KNOWN)
            continue;
        out->lds_evaluated++;
        out->lds_conflicted += lds[i].ways > 1;
        if (lds[i].ways > out->lds_worst_ways)
            out->lds_worst_ways = lds[i].ways;
    }
    out->instructions = n;
    out->mfma = nmfma;

    /* the longest MFMA-free run, around the back edge */
    if (!nmfma) {
        out->mfma_free = n;
    } else {
        int run = 0;
        for (int i = 0; i < 2 * n; i++) {
            run = body[i % n].kind == K_MFMA ? 0 : run + 1;
            if (run > out->mfma_free)
                out->mfma_free = run;
        }
    }

    /* the waves of the workgroup on one SIMD (CDNA: 4 SIMDs a CU, waves dealt out in turn) */
    int workgroup = waves > 0 ? waves : 1;
    int group = (workgroup + SIMDS_PER_CU - 1) / SIMDS_PER_CU, wgs = p->workgroups > 1 ? p->workgroups : 1;
    if (group > MAX_SIMD_WAVES)
        group = MAX_SIMD_WAVES;
    if (group * wgs > MAX_SIMD_WAVES)
        wgs = MAX_SIMD_WAVES / group;
    int nw = group * wgs;
    if (p->simd_waves > 0) { /* one workgroup, nw of its waves */
        nw = p->simd_waves < workgroup ? p->simd_waves : workgroup;
        nw = nw < MAX_SIMD_WAVES ? nw : MAX_SIMD_WAVES;
        group = nw;
        wgs = 1;
    }
    /* One wave: `iters` iterations, the last measured. Several: the older wave may run ahead of the
     * younger (it wins every tie) and they need longer to settle, so each runs 4 * iters and the
     * SIMD's rounds (one iteration of each wave) from the iters-th to the last are averaged. Several
     * workgroups: as on a GPU, a workgroup whose waves have all run theirs leaves its slot to the next
     * one, the youngest (its waves run `runs` more, up to `cap`), until every slot has run `meas`
     * (4 workgroups' worth: a starved wave takes a few thousand cycles an iteration, and a window of
     * one workgroup's moved the figures by up to 7%, 0.5% from a window 4 times longer again); the
     * window is the steady state in which every slot is busy. */
    int runs = nw > 1 ? 4 * iters : iters, first = nw > 1 ? iters : runs - 1;
    int meas = wgs > 1 ? 4 * runs : runs, cap = wgs > 1 ? 8 * runs : runs;
    Sched *s = ARENA_NEW(a, Sched);
    memset(s, 0, sizeof *s);
    s->p = p;
    s->workgroup = workgroup;
    s->nwaves = nw;
    s->group = group;
    s->workgroups = wgs;
    s->n = n;
    s->iters = cap;
    s->w = ARENA_ARRAY(a, Wave, (size_t)nw);
    memset(s->w, 0, sizeof s->w[0] * (size_t)nw);
    for (int k = 0; k < nw; k++) {
        Wave *w = &s->w[k];
        w->ends = ARENA_ARRAY(a, int64_t, (size_t)cap);
        w->max_charged = 3 * n * cap + 8; /* at most 3 an instruction */
        w->charged = ARENA_ARRAY(a, Charge, (size_t)w->max_charged);
        w->conflict_at = ARENA_ARRAY(a, int64_t, (size_t)n * (size_t)cap + 1);
        w->conflict_cycles = ARENA_ARRAY(a, int64_t, (size_t)n * (size_t)cap + 1);
        w->limit = runs;
        w->age = k / group;
    }
    int64_t next_age = wgs;
    s->busy = ARENA_ARRAY(a, Span, (size_t)nmfma * (size_t)cap * (size_t)nw + 1);
    /* Each step issues the instruction, of all the waves' next ones, that can issue first (ties: the
     * older wave, w[0] the oldest), so the shared units are handed out in time order, until every
     * wave has run its iterations. */
    for (;;) {
        int best = -1, slowest = cap;
        int64_t at = 0;
        for (int k = 0; k < nw; k++)
            slowest = s->w[k].iter < slowest ? s->w[k].iter : slowest;
        for (int k = 0; k < nw && slowest < meas; k++) {
            const Wave *w = &s->w[k];
            if (w->at_barrier || w->iter >= w->limit)
                continue;
            int64_t it = issue_time(s, w, &body[w->pc]);
            if (best < 0 || it < at || (it == at && w->age < s->w[best].age))
                best = k, at = it;
        }
        if (best < 0)
            break;
        Wave *w = &s->w[best];
        const Ins *in = &body[w->pc];
        if (p->trace)
            p->trace(p->trace_ctx, best, w->iter, w->pc, in->kind == K_BARRIER ? -1 : 0);
        if (in->kind == K_BARRIER) {
            pass_barrier(s, w, in); /* may end the workgroup's iteration (a body ending in s_barrier) */
            refill(s, best, runs, cap, &next_age);
            continue;
        }
        issue(s, w, in);
        if (p->trace)
            p->trace(p->trace_ctx, best, w->iter, w->pc, w->t);
        advance(s, w);
        refill(s, best, runs, cap, &next_age);
    }
    /* The measured window. One workgroup: its waves finish nw * runs iterations in all; from the
     * (nw * first)-th of those finishes to the last, nw * (runs - first) more finish, one round of
     * each wave's iteration per nw of them (whichever wave finishes them: the older may run ahead),
     * so the window is runs - first rounds. Several: from when every wave has finished `first`
     * iterations to when the last slot finishes its `meas`, while every slot is busy (a slot whose
     * waves reached `cap` ends it there); the iterations the waves finish in it, `group` of them one
     * workgroup's, are its rounds. The wave that finishes last ran through all of it: the matrix
     * unit's idle cycles are charged to what that wave was doing. A refilled slot's waves go on from
     * where the last workgroup's were, its loads in flight, with no prologue, epilogue or dispatch gap
     * between them: the limit of a long K loop. */
    int last = 0;
    int64_t begin = 0, end = 0, done = 0;
    for (int k = 0; k < nw; k++) {
        const Wave *w = &s->w[k];
        if (w->iter < meas) /* cannot happen: every wave runs the same body and barriers */
            return -1;
        if (w->ends[meas - 1] > s->w[last].ends[meas - 1])
            last = k;
    }
    if (wgs == 1) {
        int64_t *fin = ARENA_ARRAY(a, int64_t, (size_t)nw * (size_t)runs);
        for (int k = 0; k < nw; k++)
            memcpy(fin + (size_t)k * (size_t)runs, s->w[k].ends, sizeof fin[0] * (size_t)runs);
        qsort(fin, (size_t)nw * (size_t)runs, sizeof fin[0], cmp_i64);
        begin = first > 0 ? fin[nw * first - 1] : 0;
        end = fin[nw * runs - 1];
        done = (int64_t)(runs - first) * group;
    } else {
        for (int k = 0; k < nw; k++)
            if (s->w[k].ends[first - 1] > begin)
                begin = s->w[k].ends[first - 1];
        end = s->w[last].ends[meas - 1];
        for (int k = 0; k < nw; k++)
            if (s->w[k].iter == cap && s->w[k].ends[cap - 1] < end)
                end = s->w[k].ends[cap - 1];
        for (int k = 0; k < nw; k++)
            for (int i = 0; i < s->w[k].iter; i++)
                done += s->w[k].ends[i] > begin && s->w[k].ends[i] <= end;
        if (done < group || end <= begin)
            return -1;
    }
    /* per workgroup iteration: done / group of them in the window */
    int64_t window = (end - begin) * group, busy = busy_in(s, begin, end);
    int64_t stalls[NSTALLS] = {0}, conflict = 0;
    const Wave *lw = &s->w[last];
    for (int i = 0; i < lw->ncharged; i++) {
        const Charge *c = &lw->charged[i];
        int64_t x = c->start > begin ? c->start : begin, y = c->end < end ? c->end : end;
        if (y > x)
            stalls[c->cause] += (y - x) - busy_in(s, x, y);
    }
    for (int k = 0; k < nw; k++)
        for (int i = 0; i < s->w[k].nconflict; i++)
            if (s->w[k].conflict_at[i] >= begin && s->w[k].conflict_at[i] < end)
                conflict += s->w[k].conflict_cycles[i];
    /* Per workgroup iteration. The matrix unit's busy cycles are the MFMA work the workgroup's waves
     * on the SIMD do in one (every iteration runs every MFMA), where the window's own count would
     * depend on where its ends cut MFMAs (the same in a steady state of one workgroup); the idle
     * rest is shared among the causes as the window charged them. */
    int64_t cycles = (window + done / 2) / done, work = 0, idle_seen = 0;
    for (int i = 0; i < n; i++)
        work += body[i].kind == K_MFMA ? body[i].cycles : 0;
    work *= group;
    if (first == runs - 1 && wgs == 1 && nw == 1) /* one wave, one iteration measured: as counted */
        work = busy;
    if (work > cycles)
        work = cycles;
    out->cycles = (int)cycles;
    out->mfma_busy = (int)work;
    for (int c = 0; c < NSTALLS; c++)
        idle_seen += stalls[c];
    int64_t left = cycles - work;
    int largest = 0;
    for (int c = 0; c < NSTALLS; c++) {
        out->stalls[c] = idle_seen > 0 ? (int)(stalls[c] * (cycles - work) / idle_seen) : 0;
        left -= out->stalls[c];
        if (stalls[c] > stalls[largest])
            largest = c;
    }
    if (idle_seen == 0)
        largest = STALL_OTHER;
    out->stalls[largest] += (int)left;
    /* the workgroup's: each DS instruction here stands for workgroup / nw of them */
    out->lds_conflict_cycles = (int)((conflict * group + done / 2) / done);
    return 0;
}
