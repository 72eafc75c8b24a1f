/* dot: D = A × B + C.
 *
 * MFMA: the accumulator layout's lowest register bits are one instruction's output registers, so the
 * lane's accumulator for instruction tile t is registers [t*n, (t+1)*n). For each tile and each k step
 * the lane's A and B elements are found in the dot_op layouts by their coordinates (tile origin plus
 * the k step), packed into the instruction's operand vectors, and the instruction is issued. A lane's
 * k_width consecutive k elements feed k_width/kpl consecutive instructions (kpl = k elements per lane
 * per instruction); every k is summed exactly once whatever the packing.
 * mma.sync (sm_90): the same scheme with NVIDIA's m16n8k16 fragments: per tile 4 accumulator
 * registers, per k step of 16 an A fragment of 4 pairs (rows +0/+8, k +0/+8) and a B fragment of 2
 * pairs (k +0/+8); a pair is two consecutive k in one 32-bit register.
 * FMA (no matrix instruction for the type or target): each lane holds whole rows of A and columns of B
 * for its accumulator elements (dot_op over a blocked parent) and chains fmas in k order, as the
 * interpreter does. */
#include <string.h>

#include "compiler/lower/lower_internal.h"
#include "isa/mfma.h"

static LLVMValueRef fma_intr(Lower *L, LLVMTypeRef t, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c)
{
    const char *name = t == L->f64 ? "llvm.fma.f64" : "llvm.fma.f32";
    LLVMValueRef f = LLVMGetNamedFunction(L->mod, name);
    if (!f) {
        LLVMTypeRef pt[3] = {t, t, t};
        f = LLVMAddFunction(L->mod, name, LLVMFunctionType(t, pt, 3, 0));
    }
    LLVMValueRef args[3] = {a, b, c};
    return LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, args, 3, "");
}

/* f32 rounded to tf32 (10 explicit mantissa bits, nearest even); infinities and NaNs unchanged. */
static LLVMValueRef to_tf32(Lower *L, LLVMValueRef x)
{
    LLVMValueRef i = LLVMBuildBitCast(L->b, x, L->i32, "");
    LLVMValueRef lsb = LLVMBuildAnd(L->b, LLVMBuildLShr(L->b, i, const_i32(L, 13), ""), const_i32(L, 1), "");
    LLVMValueRef r = LLVMBuildAdd(L->b, i, LLVMBuildAdd(L->b, const_i32(L, 0xFFF), lsb, ""), "");
    r = LLVMBuildAnd(L->b, r, const_i32(L, (int32_t)0xFFFFE000u), "");
    LLVMValueRef exp = LLVMBuildAnd(L->b, i, const_i32(L, 0x7F800000), "");
    LLVMValueRef special = LLVMBuildICmp(L->b, LLVMIntEQ, exp, const_i32(L, 0x7F800000), "");
    return LLVMBuildBitCast(L->b, LLVMBuildSelect(L->b, special, i, r, ""), L->f32, "");
}

static void dot_fma(Lower *L, Op *op)
{
    const Type *ta = op->operands[0]->type, *tb = op->operands[1]->type, *tc = op->results[0].type;
    const LinLayout *la = &lay_info(L, ta)->ll, *lb = &lay_info(L, tb)->ll;
    const LayInfo *lc = lay_info(L, tc);
    LVal *A = lval(L, op->operands[0]), *B = lval(L, op->operands[1]), *C = lval(L, op->operands[2]);
    int64_t K = ta->shape[1];
    ScalarKind ek = ta->elem->sk;
    bool tf32 = op->at.kind == KIND_TF32;
    LLVMTypeRef acc_t = llvm_type(L, tc);
    LVal out = lval_new(L, C->n, C->ll);
    /* converted operands, once per register */
    LLVMValueRef *ac = ARENA_ARRAY(L->a, LLVMValueRef, A->n + 1), *bc = ARENA_ARRAY(L->a, LLVMValueRef, B->n + 1);
    for (int pass = 0; pass < 2; pass++) {
        LVal *X = pass ? B : A;
        LLVMValueRef *xc = pass ? bc : ac;
        for (int r = 0; r < X->n; r++) {
            LLVMValueRef v = X->r[r];
            if (ek == SK_F16 || ek == SK_BF16)
                v = fp_to_f32(L, v, ek);
            else if (ek == SK_I8)
                v = LLVMBuildSExt(L->b, v, L->i32, "");
            else if (tf32)
                v = to_tf32(L, v);
            xc[r] = v;
        }
    }
    for (int r = 0; r < C->n; r++) {
        int64_t c[2];
        lin_reg_coords(&lc->ll, r, c);
        LLVMValueRef acc = C->r[r];
        for (int64_t k = 0; k < K; k++) {
            int64_t ca[2] = {c[0], k}, cb[2] = {k, c[1]};
            int ia = lin_reg_of(la, ca), ib = lin_reg_of(lb, cb);
            if (ia < 0 || ib < 0) {
                lower_error(L, "internal error: dot operand layouts do not match the accumulator's");
                return;
            }
            if (ek == SK_I8)
                acc = LLVMBuildAdd(L->b, acc, LLVMBuildMul(L->b, ac[ia], bc[ib], ""), "");
            else
                acc = fma_intr(L, acc_t, ac[ia], bc[ib], acc);
        }
        out.r[r] = acc;
    }
    lval_set(L, op_result(op, 0), out);
}

/* The operand vector of one instruction from kpl elements. */
static LLVMValueRef pack_operand(Lower *L, int instr, LLVMValueRef *xs, int kpl)
{
    LLVMTypeRef et = LLVMTypeOf(xs[0]);
    if (kpl == 1)
        return xs[0];
    LLVMValueRef v = vector_of(L, et, xs, kpl);
    switch (instr) {
    case MFMA_F32_16X16X16_BF16:
    case MFMA_F32_32X32X8_BF16: /* the .1k forms take bf16 as i16 */
        return LLVMBuildBitCast(L->b, v, LLVMVectorType(L->i16, (unsigned)kpl), "");
    case MFMA_I32_16X16X32_I8:
    case MFMA_I32_32X32X16_I8:
        return LLVMBuildBitCast(L->b, v, L->i64, "");
    case MFMA_I32_16X16X16_I8:
    case MFMA_I32_32X32X8_I8:
        return LLVMBuildBitCast(L->b, v, L->i32, "");
    default:
        return v;
    }
}

/* The kpl elements of one operand for one instruction: from registers, or read from LDS when the
 * operand was left there by its convert (a vector read when they are consecutive). */
static void fragment(Lower *L, const LinLayout *ll, const LVal *regs, const Deferred *d, int64_t c0, int64_t c1,
                     int kdim, int kpl, LLVMValueRef *out)
{
    int r[16];
    for (int j = 0; j < kpl; j++) {
        int64_t c[2] = {c0, c1};
        c[kdim] += j;
        r[j] = lin_reg_of(ll, c);
        if (r[j] < 0) {
            lower_error(L, "internal error: dot operand layouts do not match the accumulator's");
            return;
        }
    }
    if (!d) {
        for (int j = 0; j < kpl; j++)
            out[j] = regs->r[r[j]];
        return;
    }
    bool run = true;
    for (int j = 1; j < kpl; j++)
        run &= r[j] == r[0] + j;
    if (run && (kdim == 1 || d->kmajor)) {
        deferred_read(L, d, r[0], kpl, out);
        return;
    }
    for (int j = 0; j < kpl; j++)
        deferred_read(L, d, r[j], 1, &out[j]);
}

/* A dot's operand fragments, fetched per k step into a ring of ahead + 1 sets (dot_mfma); a k step
 * read with the one `pair[op]` steps before it (k_pair_distance) waits in `early` for its turn. */
typedef struct Frags {
    const LinLayout *ll[2];
    const LVal *regs[2];
    const Deferred *d[2];
    const int64_t *org[2]; /* the distinct rows of A's tiles, columns of B's */
    int instr, kw, kpl, KB, ring;
    LLVMValueRef *xs;
    LLVMValueRef **f[2]; /* f[op][step % ring][j] */
    int nsteps, nfrag, pair[2];
    LLVMValueRef *early[2]; /* [op][step * nfrag + j]: read with its pair, not yet taken */
} Frags;

/* The first k of k step `step`: a lane's k_width consecutive k feed kw / kpl steps. */
static int64_t step_k0(const Frags *F, int step)
{
    int per_q = F->kw / F->kpl;
    return (int64_t)(step / per_q) * F->KB + (step % per_q) * F->kpl;
}

/* The register of the i-th k element of operand op's fragment j at k step `step`, or -1. */
static int frag_reg(const Frags *F, int op, int j, int step, int i)
{
    int64_t k = step_k0(F, step) + i;
    int64_t c[2] = {op ? k : F->org[0][j], op ? F->org[1][j] : k};
    return lin_reg_of(F->ll[op], c);
}

/* Whether fragments j of steps s0 and s1 of operand op are one ds_read2's: each one LDS read of 4 or
 * 8 bytes (fragment's run), both from one address, the distance within the instruction's 8-bit
 * offsets (in its units, or in 64 of them: the st64 form). */
static bool pairable(Lower *L, const Frags *F, int op, int j, int s0, int s1)
{
    const Deferred *d = F->d[op];
    if (!d || (op == 1 && !d->kmajor))
        return false;
    int w = F->kpl * d->bytes;
    if (w != 4 && w != 8)
        return false;
    int r0 = frag_reg(F, op, j, s0, 0), r1 = frag_reg(F, op, j, s1, 0);
    if (r0 < 0 || r1 < 0)
        return false;
    for (int i = 1; i < F->kpl; i++)
        if (frag_reg(F, op, j, s0, i) != r0 + i || frag_reg(F, op, j, s1, i) != r1 + i)
            return false;
    int64_t dist = deferred_read_distance(L, d, r0, r1);
    if (dist == INT64_MIN || dist <= 0 || dist % w)
        return false;
    return dist / w <= 255 || (dist % (64 * w) == 0 && dist / (64 * w) <= 255);
}

static LLVMValueRef read_frag(Lower *L, Frags *F, int op, int j, int step)
{
    int64_t k0 = step_k0(F, step);
    if (op == 0)
        fragment(L, F->ll[0], F->regs[0], F->d[0], F->org[0][j], k0, 1, F->kpl, F->xs);
    else
        fragment(L, F->ll[1], F->regs[1], F->d[1], k0, F->org[1][j], 0, F->kpl, F->xs);
    return pack_operand(L, F->instr, F->xs, F->kpl);
}

/* Operand op's (0: A, 1: B) fragment j of k step `step`: taken from `early` where it was read with
 * its pair, else read now, and with it the step it pairs with. */
static void fetch(Lower *L, Frags *F, int op, int j, int step)
{
    LLVMValueRef *slot = F->early[op] ? &F->early[op][step * F->nfrag + j] : NULL;
    if (slot && *slot) {
        F->f[op][step % F->ring][j] = *slot;
        *slot = NULL;
        return;
    }
    F->f[op][step % F->ring][j] = read_frag(L, F, op, j, step);
    int d = F->pair[op], s1 = step + d;
    if (d && (step / d) % 2 == 0 && s1 < F->nsteps && pairable(L, F, op, j, step, s1))
        F->early[op][s1 * F->nfrag + j] = read_frag(L, F, op, j, s1);
}

/* The fewest k steps d, at most `most`, between two fragments of operand op that one ds_read2
 * reads (pairable, fragment 0 of steps 0 and d), where every fragment of every step s in the first
 * d of each 2d pairs with step s + d as well; 0 for none. */
static int k_pair_distance(Lower *L, const Frags *F, int op, int nfrag, int most)
{
    int d = 1;
    while (d <= most && 2 * d <= F->nsteps && !pairable(L, F, op, 0, 0, d))
        d++;
    if (d > most || 2 * d > F->nsteps)
        return 0;
    for (int st = 0; st + d < F->nsteps; st++)
        for (int j = 0; (st / d) % 2 == 0 && j < nfrag; j++)
            if (!pairable(L, F, op, j, st, st + d))
                return 0;
    return d;
}

/* Every fragment of k step `step`: A's nm, then B's nn. */
static void fetch_step(Lower *L, Frags *F, int nm, int nn, int step)
{
    for (int op = 0; op < 2; op++)
        for (int j = 0; j < (op ? nn : nm); j++)
            fetch(L, F, op, j, step);
}

/* The MFMAs of a k step when operands are read from LDS (deferred) go row by row: an outer operand
 * fragment (one row of tiles) times each inner fragment (the operand with fewer fragments a step).
 * Step s + ahead's fragments are read while step s's MFMAs run: the inner ones before the step's
 * first MFMA, the outer ones in pairs right after the pair's rows (their last use in step s; two reads
 * at a constant distance from one address become one ds_read2). The first of a pair then has
 * (ahead - 1) whole steps plus (nout - 2) rows of MFMAs to complete before its first use, the inner
 * ones ahead whole steps. `ahead` is the fewest steps (at least 1) whose MFMA cycles there cover
 * READ_LATENCY: the LDS's 64 cycles (report_loop.c's lds_latency, AMD's figure) plus as much again
 * for the queue of the workgroup's other waves reading the same step. Each step ahead keeps one more
 * step's fragments live (2 VGPRs each for 16-bit operands; a vs_triton matmul's step has 4 to 12),
 * the rows' order only the inner ones and a pair: at most MAX_AHEAD, and fewer than the steps. A
 * dot of two k steps (K = 32 blocks of 16-deep MFMAs) reads its second step during its first only
 * where one step's rows cover the read (ahead 1): a small tile's few MFMAs a step cannot, its other
 * waves hide the reads, and the second step's fragments would only hold registers across the first
 * (bench/isa_snapshot.sh's sweep once had two such kernels lose a wave and five loops get slower). A
 * large tile's step can: bench/tile_sweep.py's 1,478 configurations by rk's loop model (2026-12-06),
 * two-step dots reading ahead where they cover against none reading ahead: 57 loops faster (256x256x32
 * w8 s3 k16 f16 3174 -> 2315 cycles, 128x256x32 w4 s2 k16 1286 -> 1091), 2 slower (by 2.6% and
 * less); reading ahead in every two-step dot made 22 slower (by up to 14%: gfx90a 32x256x32 w4 s3
 * 585 -> 666), the 20 more all tiles whose step does not cover.
 * bench/vs_triton: the 128x128 32x32 matmuls (two rows of two, 4 waves: no rows between a pair and
 * its use) read two steps ahead, every other case one. */
enum { LDS_LATENCY = 64, READ_LATENCY = 2 * LDS_LATENCY, MAX_AHEAD = 2, DRAIN_MAX_AHEAD = 3, DRAIN_SPARE = 48 };
/* A global load's latency on MI300X, the loop model's estimate (report_loop.c's global_latency) */
enum { GLOBAL_LATENCY = 500 };
static int read_ahead(int passes, int nout, int nin, int nsteps)
{
    if (nsteps < 2)
        return 0;
    int mfma = passes * 4, ahead = 1;
    int pair = nout > 1 ? 2 : 1;
    while (ahead < MAX_AHEAD && ((ahead - 1) * nout * nin + (nout - pair) * nin) * mfma < READ_LATENCY)
        ahead++;
    if (nsteps == 2 && ahead > 1)
        return 0; /* one step's rows do not cover the second step's reads */
    if (ahead > nsteps - 1)
        ahead = nsteps - 1;
    return ahead > 0 ? ahead : 0;
}

/* A dot's carried MFMAs (lower_carry.c): the tiles of its last rows, issued among its first reads. */
typedef struct Carried {
    DotCarry *dc;        /* NULL: the dot carries none */
    int phi[2][MAX_CARRY]; /* [A/B][fragment]: its phi in dc, or -1 */
    int n, next;         /* tiles carried, issued so far */
    int *tiles;
    LLVMValueRef *acc;
    const int *mi, *ni;  /* each tile's A and B fragment */
} Carried;

/* Issues the next carried MFMA, its operands the phis of the previous iteration's fragments (made at
 * first use, of the type `like` has: A's and B's operand vectors are of one type). */
static void carried_mfma(Lower *L, Carried *cs, LLVMValueRef like)
{
    if (!cs->dc || cs->next >= cs->n)
        return;
    DotCarry *dc = cs->dc;
    int t = cs->tiles[cs->next++], fr[2] = {cs->mi[t], cs->ni[t]};
    for (int op2 = 0; op2 < 2; op2++)
        if (cs->phi[op2][fr[op2]] < 0) {
            cs->phi[op2][fr[op2]] = dc->nphi;
            lower_carry_phi(L, dc, LLVMTypeOf(like));
            dc->nphi++;
        }
    int a = cs->phi[0][fr[0]], b = cs->phi[1][fr[1]];
    cs->acc[t] = dc->transposed ? tgt_mfma(L, dc->instr, dc->phi[b], dc->phi[a], cs->acc[t])
                                : tgt_mfma(L, dc->instr, dc->phi[a], dc->phi[b], cs->acc[t]);
    dc->tile[dc->n] = t;
    dc->a[dc->n] = a;
    dc->b[dc->n] = b;
    dc->n++;
}

int lower_lds_workgroups(const Lower *L, int64_t lds_bytes)
{
    int64_t wgs = lds_bytes > 0 ? L->t->lds_per_cu / lds_bytes : L->t->max_waves_per_simd;
    return wgs > 0 ? (int)wgs : 1;
}

/* (the LDS-limited 256x128x64 w4 matmul runs one wave a SIMD, which may use all 512 registers,
 * AGPRs included) */
int lower_lds_budget(const Lower *L, int64_t lds_bytes, int simd_waves)
{
    int waves = lower_lds_workgroups(L, lds_bytes) * simd_waves;
    if (waves > L->t->max_waves_per_simd)
        waves = L->t->max_waves_per_simd;
    int budget = L->t->vgpr_file / waves;
    return budget < L->t->max_vgprs_per_lane ? budget : L->t->max_vgprs_per_lane;
}

/* The workgroups a CU holds at once by the LDS the kernel has allocated so far. */
static int lds_workgroups(Lower *L)
{
    return lower_lds_workgroups(L, L->lds_bytes);
}

static int lds_budget(Lower *L, int simd_waves)
{
    return lower_lds_budget(L, L->lds_bytes, simd_waves);
}

/* Whether read-ahead step `step`'s first row is a read's latency of rows after the first row, so that
 * its reads may wait until that row has issued (dot_mfma, where the workgroup has the LDS to itself). */
static bool read_after_first_row(int step, int nout, int row_cycles)
{
    return (step * nout - 1) * row_cycles >= READ_LATENCY;
}

/* Whether a dot may carry `carry` rows of its `rows` after the last read (dot_mfma): within the
 * phis lower_carry.c keeps (MAX_CARRY fragments of each operand), with `wait` rows left to cover the
 * last read, and the rotated writes' `wcycles` of LDS still draining under the rows left after those. */
static bool carry_fits(int carry, int nm, int nn, int nin, int nout, int rows, int wait, int64_t wcycles,
                       int simd_row_cycles)
{
    return carry <= nout && nm <= MAX_CARRY && nn <= MAX_CARRY && carry * nin <= MAX_CARRY &&
           carry + nin <= MAX_CARRY && rows - carry > wait &&
           wcycles <= (int64_t)(rows - carry - wait) * simd_row_cycles;
}

static void dot_mfma(Lower *L, Op *op)
{
    const Type *ta = op->operands[0]->type, *tb = op->operands[1]->type, *tc = op->results[0].type;
    const Layout *cl = tc->layout;
    const MfmaInfo *info = isa_mfma_info((MfmaOp)cl->instr);
    const LinLayout *la = &lay_info(L, ta)->ll, *lb = &lay_info(L, tb)->ll, *lc = &lay_info(L, tc)->ll;
    LVal *A = lval(L, op->operands[0]), *B = lval(L, op->operands[1]), *C = lval(L, op->operands[2]);
    const Deferred *da = L->deferred[op->operands[0]->scratch], *db = L->deferred[op->operands[1]->scratch];
    int kw = ta->layout->k_width;
    int kpl = info->k * info->m / 64;
    int KB = kw * (64 / info->m);
    int64_t K = ta->shape[1];
    int nacc = isa_mfma_acc_elems(info);
    LLVMTypeRef ct = llvm_type(L, tc);
    int ntiles = C->n / nacc;
    /* the tiles' origins, and the distinct rows (A) and columns (B) among them */
    int64_t (*org)[2] = arena_alloc(L->a, sizeof(int64_t[2]) * (size_t)(ntiles + 1));
    int64_t *ms = ARENA_ARRAY(L->a, int64_t, ntiles + 1), *ns = ARENA_ARRAY(L->a, int64_t, ntiles + 1);
    int *mi = ARENA_ARRAY(L->a, int, ntiles + 1), *ni = ARENA_ARRAY(L->a, int, ntiles + 1);
    int nm = 0, nn = 0;
    LLVMValueRef *acc = ARENA_ARRAY(L->a, LLVMValueRef, ntiles + 1);
    for (int t = 0; t < ntiles; t++) {
        lin_reg_coords(lc, t * nacc, org[t]);
        int k;
        for (k = 0; k < nm && ms[k] != org[t][0]; k++)
            ;
        if (k == nm)
            ms[nm++] = org[t][0];
        mi[t] = k;
        for (k = 0; k < nn && ns[k] != org[t][1]; k++)
            ;
        if (k == nn)
            ns[nn++] = org[t][1];
        ni[t] = k;
    }
    int per_q = kw / kpl, nsteps = (int)((K + KB - 1) / KB) * per_q;
    /* the tiles as rows: row o of the outer operand's fragment o times each inner fragment */
    bool a_in = nm <= nn;
    int nin = a_in ? nm : nn, nout = a_in ? nn : nm;
    /* a kernel that asks for an occupancy (waves_per_eu) has its registers capped: the fragments
     * read ahead would spill there (examples/attention.tile at 6 waves: 16 VGPRs instead of 10),
     * and the other waves hide the reads' latency */
    /* The timing below (read-ahead, `wait` rows, the drain, covered loads' latency rows) is
     * calibrated against rk's loop model with CDNA3's passes, which it takes on every family that
     * shares the op (an op of gfx90a or gfx950 alone: its own): with each target's own (gfx90a's
     * 16-bit ops twice as long, gfx950's f64 op 16 passes) bench/tile_sweep.py's gfx90a
     * configurations were 133 faster and 78 slower (up to 1.28x: 64x128x64 w4 s1 k32, a vmcnt stall
     * of 132 cycles), 19 spilling more and 15 fewer (2026-12-07): a retune, not a swap. */
    int passes = isa_mfma_passes(info, MFMA_CDNA3);
    if (!passes)
        passes = isa_mfma_passes(info, L->t->mfma_family);
    int ahead = (da || db) && lower_waves_asked(L) <= 0 ? read_ahead(passes, nout, nin, nsteps) : 0;
    int row_cycles = nin * passes * 4;
    int wait = (LDS_LATENCY + row_cycles - 1) / row_cycles;
    int simd_waves = (L->nw + L->t->simds_per_cu - 1) / L->t->simds_per_cu;
    /* The rotated writes (the next tiles, after the barrier that follows the dot's last read) drain
     * through the LDS while the rows after the last read run: the workgroup's bytes at 4 * lds_banks
     * a clock against those rows' MFMA cycles of the SIMD's waves (less `wait` rows, which cover the
     * last read). Where the rows are too few, the drain lands at the loop's top, with the matrix unit
     * idle: the dot reads a step further ahead, which moves the last read a step earlier, while the
     * registers allow it (the accumulators, the fragments of ahead + 1 steps and the next tiles'
     * loads within lds_budget less DRAIN_SPARE for addresses and the rest; the vs_triton matmuls
     * need 36 to 48 more than those), where the next tiles' loads it issues among its rows (below)
     * still find their rows, and only in an outermost loop (an outer loop's values, a
     * persistent kernel's, hold registers this does not count: the tutorial's persistent matmul
     * spilled 10 more SGPRs). By rk's loop model: 256x256x64 w8 k32 4432 -> 4313 cycles, 256x128x64
     * w4 k32 2452 -> 2280, 128x128x64 w4 k16 1123 -> 1095, k32 1071 -> 1035; 256x256 k16's writes
     * drain under its rows already (reading ahead there would need 232 of 256 and spill). LLVM's
     * schedules of some smaller tiles came out slower: examples/matmul.tile's 128x128 w4 (masked on
     * M and N) 1135 -> 1151, 64x128 w8 728 -> 750. At most DRAIN_MAX_AHEAD steps ahead unless
     * DRAIN_DEEP (LowerChoice): dots of one MFMA a step want more (128x64x128 w8 k32 2088 -> 1835
     * cycles with the cap lifted, its writes under 6 MFMAs after their barrier instead of 1), but
     * over bench/tile_sweep.py's configurations lifting it was as often slower as faster, and no
     * figure of the dot told which (2026-12-07): where the cap stops it (LowerResult.drain_capped),
     * the driver compiles the kernel again with it lifted and keeps the faster code by rk's loop
     * model (driver_frugal.c). DRAIN_NONE turns this read-ahead off (as frugal does), a
     * retry of a kernel that spilled where it alone spent the registers (gfx950 128x64x256 w4 s3 k16
     * bf16: 8 VGPRs spilled with it, none without; frugally 8, its LDS map spills). */
    int64_t rot_bytes = ahead ? defer_rotate_bytes(L, op) : 0;
    int64_t wcycles = rot_bytes / (4 * L->t->lds_banks);
    int acc_regs = C->n * (LLVMGetTypeKind(ct) == LLVMDoubleTypeKind ? 2 : 1);
    int step_regs = (nm + nn) * ((kpl * ty_bits(ta) / 8 + 3) / 4);
    int load_regs = (int)(rot_bytes / (L->nw * L->t->wave_size) / 4);
    int budget = lds_budget(L, simd_waves) - DRAIN_SPARE;
    int latency_rows = (GLOBAL_LATENCY + row_cycles - 1) / row_cycles;
    bool coverable = L->cover_dot == op && L->ncovered &&
                     (nsteps - ahead) * nout + wait - latency_rows >= L->ncovered;
    const LowerChoice *choice = lower_choice(L);
    bool frugal = choice->frugal;
    while (ahead && !frugal && choice->drain != DRAIN_NONE && L->loop_depth == 1 && ahead < nsteps - 1 &&
           wcycles > (int64_t)(ahead * nout - wait) * row_cycles * simd_waves &&
           acc_regs + (ahead + 2) * step_regs + load_regs <= budget &&
           (!coverable || (nsteps - ahead - 1) * nout + wait - latency_rows >= L->ncovered)) {
        if (ahead >= DRAIN_MAX_AHEAD && choice->drain != DRAIN_DEEP) {
            L->drain_capped = true;
            break;
        }
        ahead++, L->spends = true, L->drain_raised = true;
    }
    Frags F = {{la, lb}, {A, B}, {da, db}, {ms, ns}, cl->instr, kw, kpl, KB, ahead + 1,
               ARENA_ARRAY(L->a, LLVMValueRef, kpl + 1), {NULL, NULL}, nsteps, nm > nn ? nm : nn, {0, 0},
               {NULL, NULL}};
    for (int op2 = 0; op2 < 2; op2++) {
        F.f[op2] = ARENA_ARRAY(L->a, LLVMValueRef *, F.ring);
        for (int i = 0; i < F.ring; i++)
            F.f[op2][i] = ARENA_ARRAY(L->a, LLVMValueRef, (op2 ? nn : nm) + 1);
    }
    /* k steps in pairs: where an operand's fragments d steps apart are read from one address at a
     * distance a ds_read2 holds (k_pair_distance: a swizzle's phase repeats every nch chunks, so
     * 32x32x8 bf16 under 16 chunks pairs steps 8 apart, 128 bytes), LLVM makes the two reads one only
     * where they stand side by side between the rows' sched barriers: step s and s + d are read
     * together (s in the first d of every 2d), the second held d steps longer. Triton's AMD backend
     * reads its k steps so (ds_read2_b64 offset1:16). Only where it pays, by bench/tile_sweep.py's
     * 1,478 configurations under rk's loop model (2026-12-06):
     *  - a step has no more MFMAs than reads (nm * nn <= nm + nn: each MFMA waits on reads of its
     *    own); with more (128x128x128 w8 k16: 8 MFMAs to 6 reads) every step's reads came at the
     *    loop's top and queued in the LDS ahead of the first rows (2544 -> 3510 cycles);
     *  - d is at most a quarter of the steps, so that the early reads spread over the loop (d = 8 in
     *    16 steps: 128x128x128 w8 k32 2791 -> 3194);
     *  - the registers are not short (twice the loop's estimate with the held fragments, as for the
     *    LDS maps, within lds_budget: 32x64x256 w2 s3 k16 spilled 18 VGPRs without it) and the
     *    fragments fit in lds_budget less DRAIN_SPARE as above. */
    int frag_regs = (kpl * ty_bits(ta) / 8 + 3) / 4, held = acc_regs + (ahead + 1) * step_regs + load_regs;
    int est = lower_loop_pressure(L, op, NULL), room = lds_budget(L, simd_waves);
    room = room < 256 ? room : 256; /* the VGPRs an LDS address can be in */
    for (int op2 = 0; ahead && !frugal && nm * nn <= nm + nn && op2 < 2; op2++) {
        int d = k_pair_distance(L, &F, op2, op2 ? nn : nm, nsteps / 4);
        int extra = d * (op2 ? nn : nm) * frag_regs;
        if (!d || held + extra > budget || 2 * (est + extra) > room)
            continue;
        held += extra;
        est += extra;
        F.pair[op2] = d;
        L->spends = true;
        F.early[op2] = ARENA_ARRAY(L->a, LLVMValueRef, (size_t)nsteps * F.nfrag + 1); /* (zeroed) */
    }
    /* The steps after the one among whose MFMAs the last read stands: `ahead`, more where the last
     * steps were read with their pairs (a step's reads stand in step - ahead, a pair's second's in
     * its first's). */
    int last_read = -1;
    for (int st = ahead; st < nsteps; st++) {
        int at = -1;
        for (int op2 = 0; op2 < 2; op2++) {
            int d = F.pair[op2], from = d && (st / d) % 2 == 1 ? st - d : st;
            at = from - ahead > at ? from - ahead : at;
        }
        last_read = at > last_read ? at : last_read;
    }
    int tail = ahead ? nsteps - 1 - last_read : 0;
    int rows = tail * nout;
    /* The last rows carried into the next iteration (lower_carry.c): as many as cover the first
     * row's reads there. That is an LDS read's latency by the wave's own rows (`wait` rows); where
     * the workgroup has the CU's LDS to itself its waves leave the barrier together, and the first
     * row's reads of all of them (1 + nin fragments a wave, at 4 * lds_banks bytes a clock) queue
     * in the LDS, which the rows of the SIMD's waves cover together where it holds several and the
     * registers hold a step's fragments more (the drain's measure above: each row's operands stay
     * live round the loop). 256x256x64 w8 k32: 96 cycles of queue, two rows of 2 waves' 64 where one
     * was carried, by rk's loop model 4189 -> 4149 cycles (k16, 24 registers short, keeps one).
     * With one wave a SIMD the queue's rows are the wave's own, more of them: 32x256x64 w2 came out
     * 18% slower, and 64x256x128 w4 and 128x128x128 w2 spilled, with them; kernels that spill
     * already, whose registers the measure does not see, may spill more (gfx950 256x256x128 w8:
     * 15 -> 63 VGPRs).
     * The rotated writes, spread over the rows after `wait`, drain through the LDS while those rows
     * of the SIMD's waves run; a row carried away shortens that, and where the writes (the
     * workgroup's bytes at 4 * lds_banks a clock) then outlast it, their drain lands at the loop's
     * top, before its barrier, and the carried MFMAs behind it only add to the top (rk's loop
     * model, 256x256x64 w8: k16 4456 -> 4328 cycles, 512 cycles of writes under 6 rows of 2 waves'
     * 64; k32 4432 -> 4540, under 2 rows): the queue's rows are given up first, down to `wait`. */
    int carry = 0;
    bool reads_first = false;
    if (ahead && L->carry && L->carry->dot == op && ta->elem->sk == tb->elem->sk) {
        bool spare_step = held + step_regs <= budget;
        int simd_row_cycles = row_cycles * simd_waves;
        int64_t frag_bytes = (int64_t)kpl * ty_bits(ta) / 8 * L->t->wave_size;
        int64_t queue = lds_workgroups(L) == 1 ? L->nw * (1 + nin) * frag_bytes / (4 * L->t->lds_banks) : 0;
        int queue_rows = (int)((LDS_LATENCY + queue + simd_row_cycles - 1) / simd_row_cycles);
        carry = simd_waves > 1 && spare_step && !frugal && queue_rows > wait ? queue_rows : wait;
        while (carry > wait && !carry_fits(carry, nm, nn, nin, nout, rows, wait, wcycles, simd_row_cycles))
            carry--;
        L->spends |= carry > wait;
        if (!carry_fits(carry, nm, nn, nin, nout, rows, wait, wcycles, simd_row_cycles))
            carry = 0;
        /* Where the queue's rows make a wave's carried MFMAs take longer than a read's latency, the
         * first row's reads go ahead of all but the first of them (which keeps the matrix unit busy
         * while the reads issue): LLVM issues them first otherwise (they wait for nothing) and gives
         * the reads the carried operands' registers, so that the reads wait until the SIMD's matrix
         * unit has taken every carried MFMA, the first row long after (the 256x256x64 w8 k32 matmul
         * with 64-bit addresses 4244 -> 4173 cycles by rk's loop model). */
        reads_first = carry > wait; /* `wait` rows already take a read's latency */
    }
    int live_rows = rows - carry; /* the rows after the last read that stay in this iteration */
    /* The loop's next tiles' global loads (Lower.covered): the dot issues them after its first rows,
     * past its barrier, their address and mask work free to issue under the MFMAs (the row sched
     * barriers let VALU cross), their vector loads spread over `cover_rows` rows (lower_covered_row)
     * and held in their row, which LLVM would otherwise sink to the writes at the body's end that
     * use them: the rows before the writes (after the last read and `wait` rows) less those a global
     * load's latency takes. Where they are fewer than the loads, the writes would wait for them: the
     * loads then stay where they stand, before the barrier. */
    int cover_rows = (nsteps - tail) * nout + wait - latency_rows;
    bool covered = ahead && L->cover_dot == op && L->ncovered && cover_rows >= L->ncovered;
    while (!covered && L->cover_dot == op && lower_next_covered(L))
        ;
    if (da || db)
        tgt_barrier(L); /* the operands' LDS writes are complete */
    for (int t = 0; t < ntiles; t++)
        acc[t] = vector_of(L, ct, C->r + t * nacc, nacc);
    int *tile = ARENA_ARRAY(L->a, int, nout * nin + 1);
    for (int i = 0; i < nout * nin; i++)
        tile[i] = -1;
    for (int t = 0; t < ntiles; t++)
        tile[(a_in ? ni[t] : mi[t]) * nin + (a_in ? mi[t] : ni[t])] = t;
    int inner = a_in ? 0 : 1;
    /* LLVM's scheduler would sink the reads back to their MFMAs (its register pressure heuristic):
     * sched barriers keep reads and MFMAs in this order; everything else may cross them */
    unsigned others = SCHED_ALLOW_VALU | SCHED_ALLOW_SALU | SCHED_ALLOW_VMEM | SCHED_ALLOW_DS_WRITE | SCHED_ALLOW_TRANS;
    /* The first step's fragments, read after the barrier, in the order the rows use them: the first
     * outer one, the inner ones, then the other outer ones. DS reads complete in order, so the first
     * row waits for its own fragments only, not for every outer one (256x256x64 w8 k16: 2.5 KiB a
     * wave of the LDS's reads before the first MFMA instead of 4.5; by rk's loop model 4500 -> 4416
     * cycles, the matrix unit idle at the loop's top 188 -> 124). The steps after it (read two ahead)
     * keep the operands' order: their rows are a step away, and putting their outer ones last made
     * 128x128x64 w8 (two steps ahead) wait for them: 1213 -> 1262. */
    Carried cs = {carry ? L->carry : NULL, {{0}}, 0, 0, NULL, acc, mi, ni};
    if (cs.dc) { /* the carried tiles: those of the last `carry` rows */
        DotCarry *dc = cs.dc;
        for (int op2 = 0; op2 < 2; op2++)
            for (int j = 0; j < (op2 ? nn : nm); j++)
                cs.phi[op2][j] = -1;
        cs.tiles = ARENA_ARRAY(L->a, int, carry * nin + 1);
        for (int o = nout - carry; o < nout; o++)
            for (int i = 0; i < nin; i++)
                if (tile[o * nin + i] >= 0)
                    cs.tiles[cs.n++] = tile[o * nin + i];
        dc->instr = cl->instr;
        dc->nacc = nacc;
        dc->transposed = cl->transposed;
        dc->acc_type = ct;
    }
    if (ahead) {
        fetch(L, &F, 1 - inner, 0, 0);
        if (reads_first)
            carried_mfma(L, &cs, F.f[1 - inner][0][0]);
        for (int j = 0; j < nin; j++)
            fetch(L, &F, inner, j, 0);
        if (reads_first)
            tgt_sched_barrier(L, others); /* the first row's reads before the other carried MFMAs */
        for (int j = 1; j < nout; j++)
            fetch(L, &F, 1 - inner, j, 0);
    }
    /* The steps after the first that are read ahead: right away, or after the first row where the
     * workgroup has the CU's LDS to itself and the step's first row is a read's latency of rows
     * further. All the workgroup's waves leave the barrier together and queue their reads in the
     * LDS, so the first rows wait behind the later steps' reads too (256x256x64 w8 k32, two steps
     * ahead: 3 KiB a wave a step, 384 cycles of LDS for the 8 waves' two steps; after the first row,
     * 4313 -> 4217 cycles by rk's loop model; 256x128 k32 2280 -> 2240). Two workgroups a CU do not
     * leave one barrier together: 128x128x64 w4 k32 read its third step after the first row and
     * came out slower (1035 -> 1052). */
    bool late = lds_workgroups(L) == 1;
    for (int f = 1; f < ahead; f++)
        if (!late || !read_after_first_row(f, nout, row_cycles))
            fetch_step(L, &F, nm, nn, f);
    /* the previous iteration's last rows: LLVM's scheduler puts them among the first reads (they wait
     * for nothing), ahead of the first row, which waits for its reads (256x256x64 w8 k16: 4328
     * cycles; spaced by hand between the reads, 4363) */
    while (cs.next < cs.n)
        carried_mfma(L, &cs, F.f[1 - inner][0][0]);
    if (covered) /* the covered loads stay in their rows */
        others &= ~(unsigned)SCHED_ALLOW_VMEM;
    /* The loop's rotated writes (defer_rotate_early), where this dot is their operands' last reader:
     * after its last read (in step nsteps - 1 - tail) the last `tail` steps' nout rows of MFMAs
     * remain. Where the writes take the LDS longer than those rows' MFMAs (the workgroup's bytes at
     * 4 * lds_banks a clock; 256x256x64 w8 k32: 512 cycles against 4 rows of 64), written at the
     * body's end they outlast the few MFMAs LLVM leaves there (3 of 8): the dot writes them itself,
     * the barrier before the first row after `wait` rows, whose MFMA cycles cover the last read's LDS
     * latency (the barrier waits for it), the writes spread evenly before the rows after it. Where the
     * rows cover the writes, the body's end hides them as well, and spreading them only puts the
     * repacking's VALU waits among the MFMAs (by rk's loop model, 128x128x64 w4 k16: 1428 -> 1460).
     * With covered loads the tiles written are those loads', issued by the first rows: the writes are
     * planned at the first row after the last read, and always spread, since the loop's top no longer
     * holds the loads' work that hid the end's writes draining through the LDS before the next
     * iteration's reads. */
    int nwr = 0, per = 0, written = 0;
    bool planned = false;
    for (int e = 0; e < nsteps && !L->failed; e++) {
        int f = e + ahead; /* the step whose fragments are read during this one's MFMAs */
        LLVMValueRef *ga = F.f[0][e % F.ring], *gb = F.f[1][e % F.ring];
        if (!ahead) {
            /* operands in registers: only one k step's fragments are live at a time */
            fetch_step(L, &F, nm, nn, e);
        } else if (f < nsteps) {
            for (int j = 0; j < nin; j++)
                fetch(L, &F, inner, j, f);
        }
        /* transposed accumulators come from the instruction with its operands swapped: D^T = B^T A^T */
        for (int o = 0; o < (ahead ? nout : 1); o++) {
            int row = (e - (nsteps - tail)) * nout + o; /* >= 0: a row after the last read */
            if (cs.dc && row >= live_rows) { /* carried: its fragments go round the loop */
                for (int i = 0; i < nin; i++) {
                    int t = tile[o * nin + i];
                    if (t >= 0) {
                        cs.dc->next[cs.phi[0][mi[t]]] = ga[mi[t]];
                        cs.dc->next[cs.phi[1][ni[t]]] = gb[ni[t]];
                    }
                }
                continue;
            }
            if (ahead && !planned && (row >= 0 || !covered)) {
                int64_t wbytes = 0;
                nwr = defer_rotate_early(L, op, &wbytes);
                if (wait >= live_rows || (!covered && wbytes / (4 * L->t->lds_banks) <= (int64_t)live_rows * row_cycles))
                    nwr = 0;
                per = nwr ? (nwr + live_rows - wait - 1) / (live_rows - wait) : 0;
                planned = true;
            }
            /* the row's share of the writes, spread over its MFMAs: a share before each, so that the
             * repacking and writes between two MFMAs take no longer than one, where the SIMD's other
             * wave has run ahead and left the matrix unit to this one (256x256x64 w8 k32 wrote 12
             * instructions, 48 cycles, between rows of two 32-cycle MFMAs) */
            bool spread = nwr && row >= wait;
            int row_lo = written, row_hi = written + per < nwr ? written + per : nwr;
            if (spread)
                lower_covered_flush(L); /* (issued rows before: cover_rows leaves a latency's rows) */
            else if (ahead)
                tgt_sched_barrier(L, nwr && row >= 0 ? others & ~(unsigned)SCHED_ALLOW_DS_WRITE : others);
            for (int i = 0; i < (ahead ? nin : ntiles); i++) {
                int t = ahead ? tile[o * nin + i] : i;
                int hi = row_lo + (row_hi - row_lo) * (i + 1) / nin; /* (empty where the share is < nin) */
                if (spread)
                    tgt_sched_barrier(L, 0);
                if (spread && hi > written) {
                    defer_rotate_write(L, written, hi);
                    written = hi;
                    tgt_sched_barrier(L, 0);
                }
                if (t >= 0)
                    acc[t] = cl->transposed ? tgt_mfma(L, cl->instr, gb[ni[t]], ga[mi[t]], acc[t])
                                            : tgt_mfma(L, cl->instr, ga[mi[t]], gb[ni[t]], acc[t]);
            }
            if (covered)
                lower_covered_row(L, cover_rows);
            for (int f2 = 1; e == 0 && o == 0 && f2 < ahead; f2++) /* the steps not read before the first row */
                if (late && read_after_first_row(f2, nout, row_cycles))
                    fetch_step(L, &F, nm, nn, f2);
            /* outer fragments in pairs, after the pair's second row: two reads at a constant
             * distance from one address become one ds_read2 (A's rows a phase cycle apart) */
            if (ahead && f < nsteps && (o % 2 || o == nout - 1))
                for (int j = o - o % 2; j <= o; j++)
                    fetch(L, &F, 1 - inner, j, f);
        }
    }
    lower_covered_flush(L);
    LVal out = lval_new(L, C->n, C->ll);
    for (int t = 0; t < ntiles; t++)
        for (int j = 0; j < nacc; j++)
            out.r[t * nacc + j] = LLVMBuildExtractElement(L->b, acc[t], const_i32(L, j), "");
    lval_set(L, op_result(op, 0), out);
}

/* A pair of 16-bit elements as the 32-bit register mma.sync takes: <2 x half> for f16, i32 for bf16. */
static LLVMValueRef pack_pair(Lower *L, int instr, LLVMValueRef *xs)
{
    LLVMValueRef v = LLVMGetUndef(LLVMVectorType(LLVMTypeOf(xs[0]), 2));
    v = LLVMBuildInsertElement(L->b, v, xs[0], const_i32(L, 0), "");
    v = LLVMBuildInsertElement(L->b, v, xs[1], const_i32(L, 1), "");
    return instr == NV_MMA_BF16 ? LLVMBuildBitCast(L->b, v, L->i32, "") : v;
}

void mma_a_fragment(Lower *L, const LinLayout *la, const LVal *A, int instr, int64_t m0, int64_t k0, LLVMValueRef *out)
{
    LLVMValueRef xs[2];
    for (int p = 0; p < 4; p++) {
        fragment(L, la, A, NULL, m0 + (p & 1) * 8, k0 + (p >> 1) * 8, 1, 2, xs);
        out[p] = pack_pair(L, nv_mma_sync_op(instr), xs);
    }
}

/* The wave's part of coordinate `dim` of a layout (separable: a sum of the set wave bits' bases). */
static LLVMValueRef warp_part(Lower *L, const LinLayout *ll, int dim)
{
    LLVMValueRef acc = const_i32(L, 0);
    for (int b = 0; b < ll->nwarp; b++) {
        int32_t v = ll->warp[b][dim];
        if (!v)
            continue;
        LLVMValueRef bit = LLVMBuildAnd(L->b, LLVMBuildLShr(L->b, L->warp, const_i32(L, b), ""), const_i32(L, 1), "");
        acc = LLVMBuildAdd(L->b, acc, LLVMBuildShl(L->b, bit, const_i32(L, __builtin_ctz((unsigned)v)), ""), "");
    }
    return acc;
}

/* ldmatrix .x4 from a deferred operand: matrix j (= lane / 8) starts at row row0 + rstep[j] and
 * 16-byte chunk chunk0 + cstep[j]; lane l gives row l % 8 of its matrix. */
static void ldsm_x4(Lower *L, const Deferred *d, LLVMValueRef row0, LLVMValueRef chunk0, const int64_t *rstep,
                    const int64_t *cstep, bool trans, LLVMValueRef *out)
{
    LLVMValueRef j = LLVMBuildLShr(L->b, L->lane, const_i32(L, 3), "");
    LLVMValueRef rs = const_i32(L, rstep[0]), cs = const_i32(L, cstep[0]);
    for (int m = 1; m < 4; m++) {
        LLVMValueRef is = LLVMBuildICmp(L->b, LLVMIntEQ, j, const_i32(L, m), "");
        rs = LLVMBuildSelect(L->b, is, const_i32(L, rstep[m]), rs, "");
        cs = LLVMBuildSelect(L->b, is, const_i32(L, cstep[m]), cs, "");
    }
    LLVMValueRef row = LLVMBuildAdd(L->b, LLVMBuildAdd(L->b, row0, rs, ""),
                                    LLVMBuildAnd(L->b, L->lane, const_i32(L, 7), ""), "");
    LLVMValueRef chunk = LLVMBuildAdd(L->b, chunk0, cs, "");
    tgt_ldmatrix_x4(L, deferred_chunk_ptr(L, d, row, chunk), trans, out);
}

/* i32 registers from ldmatrix as the pairs mma.sync takes (<2 x half> for f16). */
static LLVMValueRef as_pair(Lower *L, int instr, LLVMValueRef r)
{
    return instr == NV_MMA_BF16 ? r : LLVMBuildBitCast(L->b, r, LLVMVectorType(L->f16, 2), "");
}

static void dot_mma(Lower *L, Op *op)
{
    const Type *ta = op->operands[0]->type, *tb = op->operands[1]->type, *tc = op->results[0].type;
    const Layout *cl = tc->layout;
    /* plan_async chose wgmma or, for a wgmma layout whose operands wgmma cannot read, mma.sync */
    if (nv_is_wgmma(cl->instr) && op->plan && (op->plan->set & (1u << PK_WGMMA)) && op->plan->v[PK_WGMMA]) {
        if (!lower_dot_wgmma(L, op))
            lower_error(L, "internal error: a dot planned as wgmma whose operands wgmma cannot read");
        return;
    }
    int instr = nv_mma_sync_op(cl->instr);
    const LinLayout *la = &lay_info(L, ta)->ll, *lb = &lay_info(L, tb)->ll, *lc = &lay_info(L, tc)->ll;
    LVal *A = lval(L, op->operands[0]), *B = lval(L, op->operands[1]), *C = lval(L, op->operands[2]);
    const Deferred *da = L->deferred[op->operands[0]->scratch], *db = L->deferred[op->operands[1]->scratch];
    if ((da && !da->base_v) || (db && !db->base_v))
        tgt_barrier(L); /* the converts' writes are complete (cp.async buffers were waited for already) */
    int64_t K = ta->shape[1];
    int ntiles = C->n / 4;
    int64_t (*org)[2] = arena_alloc(L->a, sizeof(int64_t[2]) * (size_t)(ntiles + 1));
    int64_t *ms = ARENA_ARRAY(L->a, int64_t, ntiles + 1), *ns = ARENA_ARRAY(L->a, int64_t, ntiles + 1);
    int *mi = ARENA_ARRAY(L->a, int, ntiles + 1), *ni = ARENA_ARRAY(L->a, int, ntiles + 1);
    int nm = 0, nn = 0;
    LLVMValueRef *acc = ARENA_ARRAY(L->a, LLVMValueRef, C->n + 1);
    memcpy(acc, C->r, sizeof(LLVMValueRef) * (size_t)C->n);
    for (int t = 0; t < ntiles; t++) {
        lin_reg_coords(lc, t * 4, org[t]);
        int k;
        for (k = 0; k < nm && ms[k] != org[t][0]; k++)
            ;
        if (k == nm)
            ms[nm++] = org[t][0];
        mi[t] = k;
        for (k = 0; k < nn && ns[k] != org[t][1]; k++)
            ;
        if (k == nn)
            ns[nn++] = org[t][1];
        ni[t] = k;
    }
    LLVMValueRef (*fa)[4] = arena_alloc(L->a, sizeof(LLVMValueRef[4]) * (size_t)(nm + 1));
    LLVMValueRef (*fb)[2] = arena_alloc(L->a, sizeof(LLVMValueRef[2]) * (size_t)(nn + 1));
    LLVMValueRef xs[2];
    /* ldmatrix: the wave's origin of its rows (A: m, B: n) */
    LLVMValueRef wa = da && da->ldsm ? warp_part(L, la, 0) : NULL, wb = db && db->ldsm ? warp_part(L, lb, 1) : NULL;
    for (int64_t k0 = 0; k0 < K && !L->failed; k0 += 16) {
        for (int i = 0; i < nm; i++) {
            if (wa) {
                /* matrices: rows +0/+8 (a0a1, a2a3), then k +8 (a4a5, a6a7) */
                static const int64_t rstep[4] = {0, 8, 0, 8}, cstep[4] = {0, 0, 1, 1};
                LLVMValueRef r[4];
                ldsm_x4(L, da, LLVMBuildAdd(L->b, wa, const_i32(L, ms[i]), ""), const_i32(L, k0 / 8), rstep, cstep,
                        false, r);
                for (int p = 0; p < 4; p++)
                    fa[i][p] = as_pair(L, instr, r[p]);
                continue;
            }
            for (int p = 0; p < 4; p++) {
                fragment(L, la, A, da, ms[i] + (p & 1) * 8, k0 + (p >> 1) * 8, 1, 2, xs);
                fa[i][p] = pack_pair(L, instr, xs);
            }
        }
        for (int i = 0; i < nn; i++) {
            if (wb) {
                /* two n tiles at once when there are two left: (tile i: k +0, +8), (tile i+1: k +0, +8);
                 * else tile i twice. B is [K, N]: its rows are k, read transposed. */
                int64_t dn = i + 1 < nn ? ns[i + 1] - ns[i] : 0;
                LLVMValueRef r[4];
                if (db->kmajor) {
                    int64_t rstep[4] = {0, 0, dn, dn}, cstep[4] = {0, 1, 0, 1};
                    ldsm_x4(L, db, LLVMBuildAdd(L->b, wb, const_i32(L, ns[i]), ""), const_i32(L, k0 / 8), rstep,
                            cstep, false, r);
                } else {
                    int64_t rstep[4] = {0, 8, 0, 8}, cstep[4] = {0, 0, dn / 8, dn / 8};
                    LLVMValueRef c0 = LLVMBuildLShr(L->b, LLVMBuildAdd(L->b, wb, const_i32(L, ns[i]), ""),
                                                    const_i32(L, 3), "");
                    ldsm_x4(L, db, const_i32(L, k0), c0, rstep, cstep, true, r);
                }
                fb[i][0] = as_pair(L, instr, r[0]);
                fb[i][1] = as_pair(L, instr, r[1]);
                if (i + 1 < nn) {
                    fb[i + 1][0] = as_pair(L, instr, r[2]);
                    fb[i + 1][1] = as_pair(L, instr, r[3]);
                    i++;
                }
                continue;
            }
            for (int p = 0; p < 2; p++) {
                fragment(L, lb, B, db, k0 + p * 8, ns[i], 0, 2, xs);
                fb[i][p] = pack_pair(L, instr, xs);
            }
        }
        for (int t = 0; t < ntiles && !L->failed; t++)
            tgt_mma_sync(L, instr, fa[mi[t]], fb[ni[t]], &acc[t * 4]);
    }
    LVal out = lval_new(L, C->n, C->ll);
    memcpy(out.r, acc, sizeof(LLVMValueRef) * (size_t)C->n);
    lval_set(L, op_result(op, 0), out);
}

void lower_dot(Lower *L, Op *op)
{
    const Layout *cl = op->results[0].type->layout;
    /* the loop's covered loads (Lower.covered) where they stood, before the dot: only dot_mfma issues
     * them among its MFMAs */
    while ((!cl || cl->kind != LAY_MFMA) && L->cover_dot == op && lower_next_covered(L))
        ;
    if (cl && cl->kind == LAY_MMA)
        dot_mma(L, op);
    else if (cl && cl->kind == LAY_MFMA)
        dot_mfma(L, op);
    else
        dot_fma(L, op);
}
