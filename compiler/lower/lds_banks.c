/* LDS remarks (rkc --remarks): the LDS accesses of a kernel whose lanes meet in a bank, and those
 * narrower than the tile allows, computed from the layouts at the place where the lowering chooses
 * each access (lower_convert.c, and the reductions' exchange across waves in lower_reduce.c), with the
 * addresses it emits.
 *
 * The model of the banks: LDS has Target.lds_banks banks of 4 bytes. One access instruction of a wave
 * (warp) is served in passes of consecutive lanes that together move 4 * lds_banks bytes (32 banks:
 * 32 lanes of 4 bytes or less, 16 of 8 bytes, 8 of 16 bytes); within a pass, lanes reading or writing
 * the same 4-byte word share it, and lanes that need different words of one bank are served one after
 * another. The access's "ways" is the most words one bank serves in one pass, over the passes and
 * waves: 1 is conflict-free, n costs about n times the passes. This is the rule of AMD's LDS (CDNA3
 * ISA guide, "Data share operations") and of NVIDIA's shared memory (CUDA programming guide, "Shared
 * memory"), where wider accesses are split into the same phases. */
#include <string.h>

#include "compiler/lower/lower_internal.h"
#include "compiler/passes/remark.h"

/* Coordinates of the element of register r in lane `lane` of wave `warp`: the layout's bits are
 * disjoint, and lane or wave bits past the layout's own are replicas. */
void lds_element_coords(const LinLayout *ll, int r, int lane, int warp, int64_t *c)
{
    lin_reg_coords(ll, r, c);
    lds_xor_lane(ll, lane, warp, c);
}

void lds_xor_lane(const LinLayout *ll, int lane, int warp, int64_t *c)
{
    for (int b = 0; b < ll->nlane; b++)
        if (lane >> b & 1)
            for (int d = 0; d < ll->rank; d++)
                c[d] ^= ll->lane[b][d];
    for (int b = 0; b < ll->nwarp; b++)
        if (warp >> b & 1)
            for (int d = 0; d < ll->rank; d++)
                c[d] ^= ll->warp[b][d];
}

typedef struct Pass {
    int64_t word[64 * 4]; /* the words the pass's lanes touch */
    int lane[64 * 4];
    int n;
} Pass;

/* The most distinct words one bank serves in a pass; an example of two lanes that meet: for the first
 * word i at which a bank reaches the most, the other word of that bank that came first latest (at
 * the lane where it came first). Target.lds_banks is 32 or 64: past MAX_BANKS banks would share
 * counts (banks fold onto MAX_BANKS), which no target has. The words are walked once, each bank
 * keeping its distinct words in the order they first came (a chain through `next`), so a pass costs
 * its words times their ways, not the cube of its words (the LDS map search runs this for every
 * candidate map). */
static int pass_ways(const Pass *p, int banks, int *ex_lane, int *ex_bank, int64_t *ex_addr)
{
    enum { MAX_BANKS = 128 };
    if (banks > MAX_BANKS)
        banks = MAX_BANKS;
    int head[MAX_BANKS], tail[MAX_BANKS], count[MAX_BANKS];
    int next[64 * 4]; /* by word index: the next distinct word of its bank */
    for (int k = 0; k < banks; k++)
        head[k] = tail[k] = -1, count[k] = 0;
    int worst = 1;
    for (int i = 0; i < p->n; i++) {
        int bank = (int)((p->word[i] % banks + banks) % banks);
        int same = -1, before_tail = -1; /* word i's first occurrence; the entry before the tail */
        for (int j = head[bank]; j >= 0; j = next[j]) {
            if (p->word[j] == p->word[i])
                same = j;
            if (next[j] == tail[bank] && j != tail[bank])
                before_tail = j;
        }
        int ways = same >= 0 ? count[bank] : count[bank] + 1;
        if (ways > worst) {
            int other = same == tail[bank] ? before_tail : tail[bank];
            worst = ways;
            ex_lane[0] = p->lane[other], ex_lane[1] = p->lane[i];
            ex_addr[0] = p->word[other] * 4, ex_addr[1] = p->word[i] * 4;
            *ex_bank = bank;
        }
        if (same < 0) {
            next[i] = -1;
            if (tail[bank] >= 0)
                next[tail[bank]] = i;
            else
                head[bank] = i;
            tail[bank] = i;
            count[bank]++;
        }
    }
    return worst;
}

/* The ways of one access over the first `waves` waves; the worst pass's example; in *clocks (where not
 * NULL) the sum of its passes' ways. */
static int access_ways(Lower *L, const LdsAccess *acc, int waves, int *ex_lane, int *ex_bank, int64_t *ex_addr,
                       long *clocks)
{
    int bytes = acc->run * acc->bytes, banks = L->t->lds_banks > 0 ? L->t->lds_banks : 32;
    int per_pass = 4 * banks / (bytes > 4 ? bytes : 4);
    if (per_pass > L->wave)
        per_pass = L->wave;
    if (per_pass < 1)
        per_pass = 1;
    int words = (bytes + 3) / 4;
    int worst = 1;
    Pass pass, *p = &pass; /* 3 KiB: the compile's thread has a 512 MiB stack (driver.c) */
    /* lds_element_coords, by parts: the register's coordinates once, each lane's and wave's bits
     * XORed in (the model runs for every candidate LDS map of every deferred operand: computing the
     * register's coordinates again for each lane was most of a matmul's compile) */
    const LinLayout *ll = acc->ll;
    int64_t rc[TIR_MAX_RANK] = {0};
    lin_reg_coords(ll, acc->r, rc);
    /* each lane's bits XORed in, a lane from the one without its lowest set bit (a wave has at most
     * 64 lanes; bits past the layout's own are replicas) */
    enum { MAX_LANES = 64 };
    int64_t lx[MAX_LANES][TIR_MAX_RANK];
    int lanes = L->wave < MAX_LANES ? L->wave : MAX_LANES;
    memset(lx[0], 0, sizeof lx[0]);
    for (int lane = 1; lane < lanes; lane++) {
        int b = __builtin_ctz((unsigned)lane);
        memcpy(lx[lane], lx[lane & (lane - 1)], sizeof lx[lane]);
        for (int d = 0; b < ll->nlane && d < ll->rank; d++)
            lx[lane][d] ^= ll->lane[b][d];
    }
    for (int w = 0; w < waves; w++) {
        int64_t wc[TIR_MAX_RANK]; /* the register's coordinates with the wave's bits */
        memcpy(wc, rc, sizeof wc);
        lds_xor_lane(ll, 0, w, wc);
        for (int first = 0; first < lanes; first += per_pass) {
            p->n = 0;
            for (int lane = first; lane < first + per_pass; lane++) { /* a last pass past the wave: */
                int64_t c[TIR_MAX_RANK] = {0};                           /* its first lanes again */
                for (int d = 0; d < ll->rank; d++)
                    c[d] = wc[d] ^ lx[lane % lanes][d];
                int64_t addr = acc->base + acc->bytes * acc->index(acc->map, c);
                for (int k = 0; k < words && p->n < 64 * 4; k++) {
                    p->word[p->n] = addr / 4 + k;
                    p->lane[p->n++] = lane;
                }
            }
            int el[2] = {0, 0}, eb = 0;
            int64_t ea[2] = {0, 0};
            int ways = pass_ways(p, banks, el, &eb, ea);
            if (clocks)
                *clocks += ways;
            if (ways > worst) {
                worst = ways;
                ex_lane[0] = el[0] + w * L->wave, ex_lane[1] = el[1] + w * L->wave;
                *ex_bank = eb;
                ex_addr[0] = ea[0], ex_addr[1] = ea[1];
            }
        }
    }
    return worst;
}

int lds_ways(Lower *L, const LdsAccess *acc)
{
    int el[2], eb;
    int64_t ea[2];
    return access_ways(L, acc, 1, el, &eb, ea, NULL);
}

long lds_clocks(Lower *L, const LdsAccess *acc, long *ways, int weight)
{
    int el[2], eb;
    int64_t ea[2];
    long clocks = 0;
    int w = access_ways(L, acc, 1, el, &eb, ea, &clocks);
    if (ways)
        *ways += (long)weight * w;
    return clocks;
}

static void flush_note(Lower *L, int dir, struct LdsNote *n);

void lds_note(Lower *L, bool write, const Type *t, const LdsAccess *acc)
{
    if (!L->o->remarks)
        return;
    struct LdsNote *notes = L->lds_notes[write ? 0 : 1], *n = NULL;
    for (int i = 0; i < 4 && !n; i++) /* the tile's note, or a free one */
        if (notes[i].type == t || !notes[i].accesses)
            n = &notes[i];
    if (!n) {
        flush_note(L, write ? 0 : 1, &notes[3]);
        n = &notes[3];
    }
    n->type = t;
    n->accesses++;
    int bytes = acc->run * acc->bytes;
    int ex_lane[2] = {0, 0}, ex_bank = 0;
    int64_t ex_addr[2] = {0, 0};
    int worst = access_ways(L, acc, L->nw, ex_lane, &ex_bank, ex_addr, NULL);
    if (worst > 1) {
        n->conflicted++;
        if (worst > n->ways) {
            n->ways = worst;
            n->ex_lane[0] = ex_lane[0], n->ex_lane[1] = ex_lane[1];
            n->ex_bank = ex_bank;
            n->ex_addr[0] = ex_addr[0], n->ex_addr[1] = ex_addr[1];
        }
    }
    /* the widest: 128 bits, or all that a lane holds of the tile */
    int held = acc->widest ? acc->widest : lin_nregs(acc->ll) * acc->bytes;
    int widest = 16 < held ? 16 : held;
    if (bytes < widest) {
        n->narrow++;
        if (!n->bits || bytes * 8 < n->bits)
            n->bits = bytes * 8;
        n->widest = widest * 8;
    }
}

static void add_remark(Lower *L, Remark r)
{
    Arena *a = L->diags->arena;
    if (L->nremarks == L->remarks_cap) {
        int cap = L->remarks_cap ? 2 * L->remarks_cap : 8;
        Remark *m = ARENA_ARRAY(a, Remark, cap);
        if (L->nremarks)
            memcpy(m, L->remarks, sizeof *m * (size_t)L->nremarks);
        L->remarks = m;
        L->remarks_cap = cap;
    }
    L->remarks[L->nremarks++] = r;
}

/* The remarks of one note (dir 0: writes, 1: reads), which is then cleared. */
static void flush_note(Lower *L, int dir, struct LdsNote *n)
{
    if (!n->accesses || !L->op)
        return;
    Arena *a = L->diags->arena;
    const Module *m = L->f->module;
    const char *file = L->op->pos.file < (uint32_t)m->nfiles ? m->files[L->op->pos.file] : NULL;
    const char *opname = L->op->code == OP_DOT                                         ? "the dot reading its operand"
                         : L->op->code == OP_REDUCE || L->op->code == OP_ARGREDUCE ? "the reduction's exchange across waves"
                         : n->rotated ? "a move between layouts, written before the loop and again in it"
                                      : "a move between layouts";
    const char *what = dir == 0 ? "LDS write" : "LDS read";
    const char *tile = ty_str(a, m->types, n->type);
    if (n->ways > 1) {
        int wl = L->wave;
        const char *why = arena_printf(
            a, "%d of the %d %ss of %s (%s) meet in a bank: lanes %d and %d of wave %d use bank %d at bytes %lld "
               "and %lld (%d banks of 4 bytes)",
            n->conflicted, n->accesses, what, tile, opname, n->ex_lane[0] % wl, n->ex_lane[1] % wl,
            n->ex_lane[1] / wl, n->ex_bank, (long long)n->ex_addr[0], (long long)n->ex_addr[1], L->t->lds_banks);
        add_remark(L, (Remark){REMARK_BANKS, L->f->name, file, (int)L->op->pos.line, (int)L->op->pos.col, what, 0,
                               0, n->ways, why});
    }
    if (n->narrow) {
        int eb = ty_bits(ty_elem(n->type)) / 8;
        const char *why = arena_printf(a, "%d of the %d %ss of %s (%s): its %s layout gives a lane runs of %d "
                                          "element(s) that are consecutive in LDS",
                                       n->narrow, n->accesses, what, tile, opname, dir == 0 ? "source" : "destination",
                                       n->bits / 8 / (eb ? eb : 1));
        add_remark(L, (Remark){REMARK_NARROW, L->f->name, file, (int)L->op->pos.line, (int)L->op->pos.col, what,
                               n->bits, n->widest, 0, why});
    }
    memset(n, 0, sizeof *n);
}

void lds_note_rotated(Lower *L)
{
    for (int i = 0; i < 4; i++) {
        struct LdsNote *n = &L->lds_notes[0][i];
        if (!n->accesses)
            continue; /* a free slot: a later op's note must not take the flag */
        n->accesses *= 2;
        n->conflicted *= 2;
        n->narrow *= 2;
        n->rotated = true;
    }
}

void lds_note_flush(Lower *L)
{
    if (!L->o->remarks)
        return;
    for (int dir = 0; dir < 2; dir++)
        for (int i = 0; i < 4; i++)
            flush_note(L, dir, &L->lds_notes[dir][i]);
}
