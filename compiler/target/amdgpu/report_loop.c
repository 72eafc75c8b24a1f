/* The loop cycle model: how many cycles one iteration of a loop takes on a CDNA SIMD, how much of
 * that the matrix unit is busy, and where the rest goes.
 *
 * A small static scheduler over the loop body's instructions in program order, for one wave: the
 * wave issues in order, one instruction per issue slot of at least 4 cycles (report_loop.def holds
 * each class's slot and each MFMA's cycles, from AMD's tables); an MFMA then keeps the matrix unit
 * busy for its cycles and the next MFMA waits for it, while other instructions issue under it; any
 * other instruction that reads or writes a register an MFMA has not finished writing waits for it
 * (the compiler's s_nop cover the rest of the hazards, and are costed as issue slots). Memory
 * instructions complete after a latency (LoopParams): VMEM (global_, buffer_, scratch_) counts
 * against vmcnt only, as the hardware does (FLAT's flat_ against both vmcnt and lgkmcnt; llvm-mca 22
 * charges every FLAT-encoded instruction, global_load included, to lgkmcnt, which the hardware does
 * not), DS and SMEM against lgkmcnt; VMEM and DS complete in order, SMEM in any order. s_waitcnt
 * waits until at most N of its counter's operations are outstanding. DS instructions also queue for
 * the LDS, whose bandwidth per CU is shared by the workgroup's waves (they run the same loop), so an
 * op's completion is its start on the LDS (after the bytes of those before it) plus the LDS latency.
 * s_barrier costs barrier_latency: every wave runs this same code, so they arrive together.
 * LDS bank conflicts: where report_lds.c finds every lane's address of a DS read or write (by
 * evaluating the kernel's address arithmetic from its entry), an access whose passes take n ways in
 * all, over passes that would take one each, occupies the LDS n / passes times as long; an access
 * whose addresses it cannot find is charged as conflict-free and counted as unknown.
 * Not modelled: other waves on the same SIMD (occupancy), cache misses (one global
 * latency for all), instruction fetch, branches (every instruction of the body is issued once per
 * iteration, whichever way its forward branches go), VMEM bandwidth.
 *
 * Steady state: params.iterations (4) iterations are scheduled back to back, with the loads of one
 * still outstanding in the next, and the last is reported: its cycles are the difference between the
 * times the wave is ready to issue its first instruction and the next iteration's. Each cycle of that
 * iteration is either one in which the matrix unit is busy or one charged to what the wave was doing
 * (report.h: the stall causes), so the busy cycles and the stalls add up to the iteration. */
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

typedef struct Sched {
    const LoopParams *p;
    int64_t t;         /* when the wave can issue its next instruction */
    int64_t mfma_free; /* when the matrix unit takes the next MFMA */
    int64_t lds_free;  /* when the LDS takes the next DS instruction */
    int64_t ready[NREGS];
    Counter vm, lgkm;
    Span *busy; /* MFMA busy spans, in order, disjoint */
    int nbusy;
    int64_t stalls[NSTALLS];
    int64_t conflict; /* LDS cycles the bank conflicts add, in the counted iteration */
    bool counting;
} Sched;

/* Cycles of [a, b) during which the matrix unit is busy (spans after b cannot exist yet). */
static int64_t busy_in(const Sched *s, int64_t a, int64_t b)
{
    int64_t sum = 0;
    for (int i = s->nbusy - 1; i >= 0 && s->busy[i].end > a; i--) {
        int64_t lo = s->busy[i].start > a ? s->busy[i].start : a, hi = s->busy[i].end < b ? s->busy[i].end : b;
        if (hi > lo)
            sum += hi - lo;
    }
    return sum;
}

/* Charges the matrix unit's idle cycles of [a, b) to `cause`. */
static void charge(Sched *s, int64_t a, int64_t b, int cause)
{
    if (s->counting && b > a)
        s->stalls[cause] += (b - a) - busy_in(s, a, b);
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

static int64_t regs_ready(const Sched *s, const Ins *in, int from)
{
    int64_t r = 0;
    for (int i = from; i < in->nregs; i++)
        for (int g = in->lo[i]; g <= in->hi[i]; g++)
            if (s->ready[g] > r)
                r = s->ready[g];
    return r;
}

static void step(Sched *s, const Ins *in, int waves)
{
    const LoopParams *p = s->p;
    int64_t t = s->t;
    switch (in->kind) {
    case K_MFMA: {
        /* A and B (operands 1, 2) must be written; C and D follow the unit's order */
        int64_t r = s->mfma_free > t ? s->mfma_free : t;
        for (int i = 1; i < in->nregs && i < 3; i++)
            for (int g = in->lo[i]; g <= in->hi[i]; g++)
                if (s->ready[g] > r)
                    r = s->ready[g];
        charge(s, t, r, STALL_OTHER);
        s->busy[s->nbusy++] = (Span){r, r + in->cycles};
        s->mfma_free = r + in->cycles;
        if (in->nregs)
            for (int g = in->lo[0]; g <= in->hi[0]; g++)
                s->ready[g] = r + in->cycles;
        s->t = r + in->issue;
        return;
    }
    case K_WAIT: {
        int64_t qv, ql;
        int64_t v = wait_for(&s->vm, in->vm, t, &qv), l = wait_for(&s->lgkm, in->lgkm, t, &ql);
        int64_t end = t + in->issue;
        if (v >= l && v > end) {
            charge(s, t, v, STALL_VMCNT);
            end = v;
        } else if (l > end) {
            /* without the queueing the wait would have ended at l - ql */
            int64_t plain = l - ql > t ? l - ql : t;
            charge(s, t, plain, STALL_LGKMCNT);
            charge(s, plain, l, STALL_LDS);
            end = l;
        } else {
            charge(s, t, end, STALL_SALU);
        }
        s->t = end;
        return;
    }
    case K_BARRIER: {
        int64_t end = t + (p->barrier_latency > in->issue ? p->barrier_latency : in->issue);
        charge(s, t, end, STALL_BARRIER);
        s->t = end;
        return;
    }
    default: break;
    }
    /* everything else: wait for MFMA results it touches, then one issue slot */
    int64_t r = regs_ready(s, in, 0);
    if (r > t) {
        charge(s, t, r, STALL_OTHER);
        t = r;
    }
    int cause = in->kind == K_VALU || in->kind == K_TRANS ? STALL_VALU
                : in->kind == K_SALU || in->kind == K_NOP ? STALL_SALU
                                                          : STALL_OTHER;
    charge(s, t, t + in->issue, cause);
    switch (in->kind) {
    case K_VMEM: push(&s->vm, t + p->global_latency, 0, true, t); break;
    case K_FLAT:
        push(&s->vm, t + p->global_latency, 0, true, t);
        push(&s->lgkm, t + p->global_latency, 0, false, t);
        break;
    case K_SMEM: push(&s->lgkm, t + p->smem_latency, 0, false, t); break;
    case K_DS: {
        int64_t start = s->lds_free > t ? s->lds_free : t;
        int64_t bytes = (int64_t)in->bytes * (waves > 0 ? waves : 1);
        int64_t bw = p->lds_bytes_per_clk > 0 ? p->lds_bytes_per_clk : 1;
        int64_t occupancy = (bytes + bw - 1) / bw;
        if (in->lds.kind == LDS_KNOWN && in->lds.passes > 0) { /* n ways: n times the passes' time */
            int64_t num = bytes * in->lds.pass_ways, den = bw * in->lds.passes;
            int64_t conflicted = (num + den - 1) / den;
            if (s->counting && conflicted > occupancy)
                s->conflict += conflicted - occupancy;
            occupancy = conflicted;
        }
        s->lds_free = start + occupancy;
        push(&s->lgkm, start + p->lds_latency, start - t, true, t);
        break;
    }
    default: break;
    }
    s->t = t + in->issue;
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

    Sched *s = ARENA_NEW(a, Sched);
    memset(s, 0, sizeof *s);
    s->p = p;
    s->busy = ARENA_ARRAY(a, Span, (size_t)nmfma * (size_t)iters + 1);
    int64_t begin = 0;
    for (int k = 0; k < iters; k++) {
        if (k == iters - 1) {
            s->counting = true;
            begin = s->t;
        }
        for (int i = 0; i < n; i++)
            step(s, &body[i], waves);
    }
    int64_t end = s->t;
    out->cycles = (int)(end - begin);
    int64_t busy = 0;
    for (int i = 0; i < s->nbusy; i++) {
        int64_t lo = s->busy[i].start > begin ? s->busy[i].start : begin;
        int64_t hi = s->busy[i].end < end ? s->busy[i].end : end;
        if (hi > lo)
            busy += hi - lo;
    }
    out->mfma_busy = (int)busy;
    for (int c = 0; c < NSTALLS; c++)
        out->stalls[c] = (int)s->stalls[c];
    out->lds_conflict_cycles = (int)s->conflict;
    return 0;
}
