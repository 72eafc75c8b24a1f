/* allocate_lds: where each op's LDS scratch goes, and which dot operands wait in LDS for their dot
 * (LIR, kernels; after plan_async, whose stage buffers it builds on). On AMD, a dot operand that
 * finds the LDS taken by the operands waiting below it moves those into registers (make_room).
 *
 * Shared memory is used as a stack that the lowering's ops take in program order (the order in which
 * the lowering emits them: each block in order, a region's blocks in order):
 *  - the bottom, [0, Func.stage_lds), is sm_90's stage buffers (plan_async) until the kernel's last
 *    loop that reads them is done: then it is free too (the floor drops to 0);
 *  - above the floor, dot operands that a convert writes to LDS for its dot to read k step by k step
 *    (a `defer = 1` convert: a dot operand of a matrix instruction, used once, by the next dot of its
 *    block, whose conversion does not only rename registers, and that fits: dot_operand_candidate,
 *    lin_renames, dot_operand_next_dot) each take a region at a 16-byte boundary (`defer = 2` when
 *    there is room for DEFER_PAD_BYTES after each row too, which the lowering pads rows with against
 *    bank conflicts on AMD), until the dot that reads them (a dot with such an operand, or a wgmma) frees them all;
 *  - every op that may move data through LDS for itself (a conversion, reshape or permute through
 *    LDS, a reduction across waves, a scan, a replicated atomic's result) writes its scratch from
 *    the free offset up, `lds` (absent when 0): the region ends with the op, the next one reuses it.
 * A loop whose only LDS users are deferred converts of the tiles it carries gets them `rotate`d
 * (rotate_loop below): written before the loop and at the body's end, their regions live across it.
 * The lowering (lower_convert.c, lower_reduce.c, lower_mem.c) takes these offsets and `defer` as
 * given; it aligns an offset as its own accesses need (16 or 8 bytes) and sizes its region, the
 * kernel's LDS being the largest end. */
#include "compiler/lower/lower.h"
#include "compiler/passes/passes.h"

enum { MAX_WAITING = 8 };

typedef struct Alloc {
    Arena *a;
    int wave, nw, limit;
    bool rotate;      /* deferred operands may be rotated (registers-to-LDS targets: not sm_90's rings) */
    bool movable;     /* waiting operands may move into registers (make_room): not where a warp MMA's
                         plan reads a deferred A from shared memory (sm_90's wgmma, plan_async.c) */
    int pending;      /* the free offset: stage buffers and deferred operands below */
    int floor;        /* the stage buffers' end while they are used, then 0 */
    int shared_loads; /* loads into stage buffers not reached yet */
    bool pad;         /* deferred operands' rows are padded (no warp MMA: lower_convert.c's operand_map) */
    int64_t end;      /* the highest end of a deferred operand's region */
    int64_t est;      /* ... or of an op's scratch, estimated at its operand's size */
    Op *waiting[MAX_WAITING]; /* the deferred converts above the floor, waiting for their dots */
    int nwaiting;             /* -1: more than MAX_WAITING (make_room moves none) */
} Alloc;

static bool is_shared(const Type *t)
{
    return t->kind == TY_TILE && t->layout && t->layout->kind == LAY_SHARED;
}

static void set_key(Alloc *A, Op *op, PlanKey k, int64_t v)
{
    if (!op->plan)
        op->plan = ARENA_NEW(A->a, OpPlan);
    op->plan->set |= 1u << k;
    op->plan->v[k] = v;
}

static int elem_bytes(const Type *t);

/* Ops whose lowering may move a tile through LDS scratch (besides layout conversions and dots). */
static bool takes_scratch(OpCode code)
{
    return code == OP_RESHAPE || code == OP_PERMUTE || code == OP_REDUCE || code == OP_ARGREDUCE ||
           code == OP_SCAN || code == OP_ATOMIC_RMW || code == OP_ATOMIC_CAS;
}

static void take_scratch(Alloc *A, Op *op)
{
    if (A->pending)
        set_key(A, op, PK_LDS, A->pending);
    else if (op->plan)
        op->plan->set &= ~(1u << PK_LDS);
    /* its scratch is at most its operand's size (an estimate, the same whether rows are padded) */
    const Type *t = op->nopnds ? op->operands[0]->type : NULL;
    int64_t est = A->pending + (t && t->kind == TY_TILE ? ty_numel(t) * elem_bytes(t) : 0);
    if (est > A->est)
        A->est = est;
}

static int elem_bytes(const Type *t)
{
    const Type *e = ty_elem(t);
    return e->kind == TY_PTR ? 8 : e->sk == SK_BOOL ? 1 : sk_bits(e->sk) / 8;
}

static int64_t align16(int64_t offset)
{
    return (offset + 15) / 16 * 16;
}

/* Where a dot operand's convert finds too little LDS above the operands waiting for their dot (the
 * other operand of its dot), to wait too or to move through LDS into registers: those move into
 * registers instead (their converts came first, their scratch at the floor), and this one takes the
 * LDS above the floor, rather than moving into registers in pieces of rows through the LDS left
 * (lower_convert.c lds_move_rows: a barrier and a select a piece), or not at all where not a row is
 * left, which refused the kernel (f64 128x64x64: A's 64 KiB and B's 32 KiB; bf16 256x256x128: 64 KiB
 * an operand, tests/golden/reliability/dot_lds.tile). Only where the waiting list is every region
 * above the floor, and not on sm_90, whose wgmma plan (plan_async.c) takes a deferred A as read from
 * LDS. Returns this convert's base. */
static int64_t make_room(Alloc *A, Op *op, int64_t need)
{
    int64_t base = align16(A->pending);
    if (base + need <= A->limit || A->nwaiting <= 0 || !A->movable || need > A->limit - A->floor)
        return base;
    for (int i = 0; i < A->nwaiting; i++)
        A->waiting[i]->plan->set &= ~(1u << PK_DEFER);
    A->nwaiting = 0;
    A->pending = A->floor;
    take_scratch(A, op);
    return align16(A->pending);
}

/* A convert whose dot operand waits in LDS for its dot: its region, if it fits. */
static void convert(Alloc *A, Op *op)
{
    const Type *from = op->operands[0]->type, *to = op->results[0].type;
    if (from->kind == TY_TILE && is_shared(from))
        return; /* a stage buffer's tile: the dot reads it where it is */
    take_scratch(A, op);
    if (from->kind != TY_TILE || to->kind != TY_TILE || !to->layout || to->layout->kind != LAY_DOT_OP)
        return;
    LinLayout ls, ld;
    if (lay_linear(from->layout, from->rank, from->shape, A->wave, A->nw, &ls) &&
        lay_linear(to->layout, to->rank, to->shape, A->wave, A->nw, &ld) && lin_renames(&ls, &ld))
        return; /* a chained dot's accumulator as the next A: the registers as they are */
    int64_t need = ty_numel(from) * elem_bytes(from);
    int64_t base = make_room(A, op, need); /* (also for an operand that will not wait: shared by two dots) */
    if (!dot_operand_candidate(op, (int)op->results[0].scratch) || !dot_operand_next_dot(op))
        return;
    if (base + need > A->limit)
        return; /* converted through LDS instead, its result in registers */
    /* room for the rows' padding (k is the row) when it fits: defer = 2 */
    int64_t padded = need + (A->pad && from->rank == 2
                                 ? ty_numel(from) / from->shape[to->layout->op_idx == 1 ? 0 : 1] * DEFER_PAD_BYTES
                                 : 0);
    if (padded > need && base + padded <= A->limit)
        need = padded;
    set_key(A, op, PK_DEFER, padded == need && padded > ty_numel(from) * elem_bytes(from) ? 2 : 1);
    if (A->nwaiting >= 0 && A->nwaiting < MAX_WAITING)
        A->waiting[A->nwaiting++] = op;
    else
        A->nwaiting = -1; /* more than the list holds: none moves */
    A->pending = (int)(base + need);
    if (A->pending > A->end)
        A->end = A->pending;
    if (A->pending > A->est)
        A->est = A->pending;
}

static bool deferred(const Value *v)
{
    const Op *cv = v->def;
    if (!cv || cv->code != OP_CONVERT_LAYOUT)
        return false;
    return is_shared(cv->operands[0]->type) || (cv->plan && (cv->plan->set & (1u << PK_DEFER)));
}

static void alloc_block(Alloc *A, Block *b);

/* Rotation: a deferred operand that its `for` loop carries (a block argument whose yielded value is
 * not the argument itself: pipeline_loads' next tile) is written to its region before the loop (the
 * initial tile) and at the body's end (the yielded one) instead of by its convert at the top of each
 * iteration, so that the writes follow the body's last reads behind one barrier and overlap the
 * dot's last matrix instructions. Its region is then live across the whole loop: the body may hold
 * no other op that takes LDS (another deferred operand, a conversion, a reduction... at any depth,
 * attention's second dot among them), or the loop keeps its converts' writes. `lds_ops` counts the
 * body's ops that may take LDS, `cands` collects the rotatable converts (at most 8). */
typedef struct Rot {
    Op *cands[8];
    int ncands, lds_ops;
} Rot;

static void rot_scan(const Block *body, const Block *b, Rot *R)
{
    for (Op *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++)
            rot_scan(body, op->regions[r], R);
        switch (op->code) {
        case OP_CONVERT_LAYOUT: {
            R->lds_ops++;
            const Value *x = op->operands[0];
            bool deferred_op = op->plan && (op->plan->set & (1u << PK_DEFER)) && op->plan->v[PK_DEFER];
            int i = x->owner == body && !x->def ? (int)(x - body->args) : 0;
            if (deferred_op && b == body && i >= 1 && body->last->operands[i - 1] != x && R->ncands < 8)
                R->cands[R->ncands++] = op;
            break;
        }
        default: R->lds_ops += takes_scratch(op->code); break;
        }
    }
}

static void rotate_loop(Alloc *A, Op *loop)
{
    Block *body = op_block(loop, 0);
    if (!A->rotate || !body->last || body->last->code != OP_YIELD)
        return;
    Rot R = {{NULL}, 0, 0};
    rot_scan(body, body, &R);
    if (!R.ncands || R.ncands != R.lds_ops)
        return;
    for (int i = 0; i < R.ncands; i++)
        set_key(A, R.cands[i], PK_ROTATE, 1);
}

static void alloc_op(Alloc *A, Op *op)
{
    switch (op->code) {
    case OP_FOR: {
        alloc_block(A, op_block(op, 0));
        rotate_loop(A, op);
        /* the kernel's last stage buffers are dead after their loop, unless it runs again */
        Block *body = op_block(op, 0);
        for (int i = 1; i < body->nargs; i++)
            if (is_shared(body->args[i].type)) {
                if (A->shared_loads == 0 && A->floor && !tir_in_loop(op)) {
                    if (A->pending == A->floor)
                        A->pending = 0;
                    A->floor = 0;
                }
                break;
            }
        return;
    }
    case OP_IF:
    case OP_WHILE:
        for (int r = 0; r < op->nregions; r++)
            alloc_block(A, op->regions[r]);
        return;
    case OP_LOAD:
        A->shared_loads -= is_shared(op->results[0].type);
        return;
    case OP_CONVERT_LAYOUT: convert(A, op); return;
    case OP_DOT: {
        /* the operands' regions are free once the dot has read them (so are they after a wgmma) */
        const OpPlan *pl = op->plan;
        bool wgmma = pl && (pl->set & (1u << PK_WGMMA)) && pl->v[PK_WGMMA];
        if (wgmma || deferred(op->operands[0]) || deferred(op->operands[1])) {
            A->pending = A->floor;
            A->nwaiting = 0;
        }
        return;
    }
    default:
        if (takes_scratch(op->code))
            take_scratch(A, op);
        return;
    }
}

static void alloc_block(Alloc *A, Block *b)
{
    for (Op *op = b->first; op; op = op->next)
        alloc_op(A, op);
}

static bool clear_op(Op *op, void *ud)
{
    Alloc *A = ud;
    if (op->plan)
        op->plan->set &= ~(1u << PK_LDS | 1u << PK_DEFER | 1u << PK_ROTATE); /* a second run allocates afresh */
    A->shared_loads += op->code == OP_LOAD && is_shared(op->results[0].type);
    return true;
}

/* The deferred operands of a block and its regions, counted. */
static int count_deferred(const Block *b)
{
    int n = 0;
    for (const Op *op = b->first; op; op = op->next) {
        n += op->code == OP_CONVERT_LAYOUT && op->plan && (op->plan->set & (1u << PK_DEFER)) && op->plan->v[PK_DEFER];
        for (int r = 0; r < op->nregions; r++)
            n += count_deferred(op->regions[r]);
    }
    return n;
}

/* Workgroups of `bytes` of LDS that fit in a CU (LDS alone). */
static int64_t per_cu(const Target *t, int64_t bytes)
{
    int64_t g = t->lds_granule > 0 ? t->lds_granule : 1;
    return bytes > 0 ? t->lds_per_cu / ((bytes + g - 1) / g * g) : 1 << 30;
}

static Alloc alloc_start(Arena *a, const Func *f, const Target *t, bool pad)
{
    return (Alloc){.a = a, .wave = t->wave_size, .nw = f->opts.num_warps, .limit = t->lds_bytes,
                   .rotate = !t->warp_mma, .movable = !t->warp_mma, .pending = f->stage_lds,
                   .floor = f->stage_lds, .pad = pad};
}

void allocate_lds(Arena *a, Func *f, const Target *t)
{
    Alloc A = alloc_start(a, f, t, false);
    tir_walk_func(f, clear_op, &A);
    tir_count_uses(f);
    alloc_block(&A, f->body);
    if (t->warp_mma)
        return;
    /* Again with room for the rows' padding, kept only when it leaves every operand deferred that was
     * deferred without it and as many workgroups fit in a CU: padding must never cost an operand its
     * place in LDS (a 256x256 tile's two 32 KiB operands fill gfx942's 64 KiB exactly) nor occupancy
     * (128x128x64's 32 KiB of operands are two workgroups a CU, 35 KiB one). The other ops' scratch
     * are counted at their operand's size above the offset they get, and the operands' end alone. */
    int plain = count_deferred(f->body);
    if (!plain)
        return;
    Alloc P = alloc_start(a, f, t, true);
    tir_walk_func(f, clear_op, &P);
    alloc_block(&P, f->body);
    if (count_deferred(f->body) == plain && per_cu(t, P.end) == per_cu(t, A.end) && per_cu(t, P.est) == per_cu(t, A.est))
        return;
    A = alloc_start(a, f, t, false);
    tir_walk_func(f, clear_op, &A);
    alloc_block(&A, f->body);
}
