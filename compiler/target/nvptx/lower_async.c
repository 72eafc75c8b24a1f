/* sm_90: dot operands copied from global to shared memory asynchronously (cp.async), in rings of
 * stage buffers.
 *
 * assign_layouts gives a shared layout to a load that only feeds an mma.sync operand through the
 * loop-carried values of software pipelining (pipeline.c): with num_stages = S the loop carries S-1
 * tiles, the prologue loads the first S-1 and each iteration loads the tile S-1 iterations ahead.
 * Such a tile is never in registers: its value is a handle, the byte offset of its stage buffer in
 * shared memory, and the loop carries handles. A ring has S buffers: the S-1 carried ones and the one
 * the previous iteration read, which this iteration's load fills. Its offset follows from the handle
 * the dot reads now (the front of the chain): the buffer before it, cyclically.
 *
 * Order within an iteration, with one barrier: the first convert of a shared operand waits until at
 * most (S-2) x (loads per iteration) copy groups are pending (cp.async.wait_group: the groups of the
 * tiles for the next S-2 iterations), then bar.sync — the current tiles are complete and visible, and
 * every warp has finished reading the previous iteration's buffers; then the loads for S-1 iterations
 * ahead are issued (one commit group each) into the buffer read last time, and the dot reads the
 * current buffers with ldmatrix. Where the pipeliner put a load before the first convert, the load
 * is preceded by a barrier of its own (the buffer it fills was read in the previous iteration). After
 * the loop, cp.async.wait_all. A shared tile outside such a ring (a direct load feeding a dot) has a
 * buffer of its own, written after a barrier and waited for completely.
 *
 * Where the buffers are and how they are filled was decided by the pass plan_async
 * (compiler/target/nvptx/plan_async.c): its attributes on the loads (stage_buffer, stage, stages,
 * stage_bytes, copy_groups, front, tma...) and on the kernel (stage_lds, tma_flag, tma) are what
 * async_setup reads; this file only translates them. The buffers lie before anything else in shared
 * memory (their region stays reserved for the whole kernel; transfers use what lies above). On the emulator (emu_sm90) the copies, groups and
 * waits are the emulator's (EmuFns.cp_async): a destination holds poison from the copy's issue until
 * a wait covers its group, so a read before its wait, or a copy into a buffer still being read, shows
 * in the results. */
#include <string.h>

#include "compiler/lower/lower_internal.h"

struct Ring {
    int base;       /* byte offset of buffer 0 */
    int slot_bytes; /* bytes per buffer */
    int S;          /* buffers */
    int per_iter;   /* rings of the same loop (copy groups issued per iteration) */
    const Value *front; /* the loop-carried handle the dot reads (NULL: a standalone buffer) */
    const Op *loop;
    int tma;  /* the tensor its copies come from by TMA (lower_tma.c), or -1: cp.async */
    int bars; /* TMA: byte offset of its S barriers */
    bool nested;   /* TMA: its loop is in another loop: each run starts the barriers again */
    bool restarted; /* TMA, nested: the restart before its first prologue copy is lowered */
};

static bool is_shared(const Type *t)
{
    return t->kind == TY_TILE && t->layout && t->layout->kind == LAY_SHARED;
}

bool lower_is_shared_tile(const Type *t) { return is_shared(t); }

static bool in_loop(const Op *op);
static void tma_restart(Lower *L, const Op *loop);

static const Value *strip_hints(const Value *v)
{
    while (v->def && v->def->code == OP_HINT)
        v = v->def->operands[0];
    return v;
}

/* The ring whose buffer 0 is at `base`, made from the load's plan when first seen. */
static Ring *ring_at(Lower *L, const OpPlan *pl, Ring ***rings, int *nrings, int *cap)
{
    for (int i = 0; i < *nrings; i++)
        if ((*rings)[i]->base == pl->v[PK_STAGE_BUFFER])
            return (*rings)[i];
    if (*nrings == *cap) {
        int c = *cap ? 2 * *cap : 8;
        Ring **x = ARENA_ARRAY(L->a, Ring *, c);
        if (*nrings)
            memcpy(x, *rings, sizeof *x * (size_t)*nrings);
        *rings = x;
        *cap = c;
    }
    Ring *r = ARENA_NEW(L->a, Ring);
    r->base = (int)pl->v[PK_STAGE_BUFFER];
    r->slot_bytes = (int)pl->v[PK_STAGE_BYTES];
    r->S = (int)pl->v[PK_STAGES];
    r->per_iter = pl->set & (1u << PK_COPY_GROUPS) ? (int)pl->v[PK_COPY_GROUPS] : 0;
    r->tma = pl->set & (1u << PK_TMA) ? (int)pl->v[PK_TMA] : -1;
    r->bars = r->tma >= 0 ? (int)pl->v[PK_TMA_BARS] : 0;
    (*rings)[(*nrings)++] = r;
    return r;
}

static void setup_block(Lower *L, Block *b, Ring ***rings, int *nrings, int *cap)
{
    for (Op *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++)
            setup_block(L, op->regions[r], rings, nrings, cap);
        if (op->code != OP_LOAD || !is_shared(op->results[0].type))
            continue;
        L->shared_loads++;
        const OpPlan *pl = op->plan;
        if (!pl || !(pl->set & (1u << PK_STAGE_BUFFER)))
            continue; /* lower_async_load reports it */
        Ring *r = ring_at(L, pl, rings, nrings, cap);
        L->ring_of[op->results[0].scratch] = r;
        L->ring_slot[op->results[0].scratch] = (int)pl->v[PK_STAGE];
        if (pl->v[PK_STAGE] < 0 && pl->front) { /* the loop's load: its ring's front and loop */
            r->front = pl->front;
            r->loop = op->parent->parent;
            r->nested = in_loop(r->loop); /* each run of a nested loop starts its barriers again */
            L->ring_of[pl->front->scratch] = r;
        }
    }
}

/* The stage buffers as plan_async placed them (its attributes on the loads and the kernel). */
void async_setup(Lower *L, Func *f)
{
    Ring **rings = NULL;
    int nrings = 0, cap = 0;
    setup_block(L, f->body, &rings, &nrings, &cap);
    /* in the order of their buffers, which is the order plan_async made them in */
    for (int i = 1; i < nrings; i++)
        for (int j = i; j > 0 && rings[j - 1]->base > rings[j]->base; j--) {
            Ring *x = rings[j];
            rings[j] = rings[j - 1];
            rings[j - 1] = x;
        }
    for (int i = 0; i < nrings; i++) {
        if (rings[i]->tma < 0)
            L->cp_buffers++;
        else if (L->ntma_rings < MAX_TMA_RINGS)
            L->tma_rings[L->ntma_rings++] = rings[i];
    }
    tma_setup(L, f);
    L->tma_flag = f->tma_flag;
    L->lds_static = f->stage_lds;
    L->lds_floor = L->lds_static;
    if (L->lds_static > L->lds_bytes)
        L->lds_bytes = L->lds_static;
    if (L->lds_static > L->lds_limit)
        lower_error(L, "the pipelined dot operands need %d bytes of shared memory, more than the %d available "
                       "(fewer num_stages or smaller blocks)",
                    L->lds_static, L->lds_limit);
}

LLVMValueRef stage_chunk_offset(Lower *L, LLVMValueRef line, LLVMValueRef chunk, int64_t pitch, int64_t lines)
{
    LLVMValueRef off;
    int64_t width = pitch < 128 ? pitch : 128; /* bytes of a line within one column */
    if (pitch > 128) {
        LLVMValueRef col = LLVMBuildLShr(L->b, chunk, const_i32(L, 3), "");
        chunk = LLVMBuildAnd(L->b, chunk, const_i32(L, 7), "");
        off = LLVMBuildMul(L->b, col, const_i32(L, lines * 128), "");
        off = LLVMBuildAdd(L->b, off, LLVMBuildMul(L->b, line, const_i32(L, 128), ""), "");
    } else {
        off = LLVMBuildMul(L->b, line, const_i32(L, pitch), "");
    }
    off = LLVMBuildAdd(L->b, off, LLVMBuildShl(L->b, chunk, const_i32(L, 4), ""), "");
    int nch = (int)(width / 16);
    if (nch > 1) {
        LLVMValueRef phase = LLVMBuildAnd(L->b, LLVMBuildLShr(L->b, off, const_i32(L, 7), ""), const_i32(L, nch - 1), "");
        off = LLVMBuildXor(L->b, off, LLVMBuildShl(L->b, phase, const_i32(L, 4), ""), "");
    }
    return off;
}

/* Byte offset (from the buffer's start) of element (row, col) of a shared tile: lines along its fastest
 * dimension (rows, or columns when column-major), as stage_chunk_offset places them. */
static LLVMValueRef shared_offset(Lower *L, const Type *t, LLVMValueRef row, LLVMValueRef col)
{
    int fast = t->layout->order[0];
    if (fast == 0) {
        LLVMValueRef x = row;
        row = col;
        col = x;
    }
    LLVMValueRef chunk = LLVMBuildLShr(L->b, col, const_i32(L, 3), "");
    LLVMValueRef within = LLVMBuildShl(L->b, LLVMBuildAnd(L->b, col, const_i32(L, 7), ""), const_i32(L, 1), "");
    return LLVMBuildOr(L->b, stage_chunk_offset(L, row, chunk, t->shape[fast] * 2, t->shape[1 - fast]), within, "");
}

/* Whether a convert of a shared tile (which waits and synchronises, async_wait) comes before `op` in its
 * block: then every warp has passed a barrier in this iteration before op runs. */
static bool fenced_before(const Op *op)
{
    for (const Op *o = op->parent->first; o && o != op; o = o->next)
        if (o->code == OP_CONVERT_LAYOUT && is_shared(o->operands[0]->type))
            return true;
    return false;
}

/* The copies of a load into its buffer `buf` (i32 byte offset), one commit group. */
static void issue_copies(Lower *L, Op *op, LLVMValueRef buf, bool barrier_first)
{
    const Type *rt = op->results[0].type, *pt = op->operands[0]->type;
    if (barrier_first)
        tgt_barrier(L);
    const Ring *ring = L->ring_of[op->results[0].scratch];
    if (ring && ring->tma >= 0) {
        LLVMValueRef slot = LLVMBuildUDiv(L->b, LLVMBuildSub(L->b, buf, const_i32(L, ring->base), ""),
                                          const_i32(L, ring->slot_bytes), "");
        tma_issue(L, op, ring->tma, ring->bars, slot, buf);
        return;
    }
    const LayInfo *li = lay_info(L, pt);
    LVal *ptr = lval(L, op->operands[0]);
    LVal *mask = op->nopnds >= 2 ? lval(L, op->operands[1]) : NULL;
    int fast = rt->layout->order[0], slow = 1 - fast;
    int vec = 1; /* the registers consecutive along the fastest dimension: one copy */
    for (int b = 0; b < li->ll.nreg && li->ll.reg[b][fast] == (1 << b) && li->ll.reg[b][slow] == 0; b++)
        vec = 2 << b;
    if (vec > 8)
        vec = 8;
    int bytes = vec * 2;
    for (int g = 0; g < ptr->n; g += vec) {
        LLVMValueRef row = reg_coord(L, li, g, 0), col = reg_coord(L, li, g, 1);
        LLVMValueRef dst = tgt_lds_ptr(L, LLVMBuildAdd(L->b, buf, shared_offset(L, rt, row, col), ""));
        LLVMValueRef src = ptr->r[g];
        LLVMValueRef m = mask ? mask->r[mask->n == 1 ? 0 : g] : NULL;
        if (m && LLVMIsAConstantInt(m) && LLVMConstIntGetZExtValue(m))
            m = NULL;
        tgt_cp_async(L, dst, src, bytes, m);
    }
    tgt_cp_async_commit(L);
}

void lower_async_load(Lower *L, Op *op)
{
    Ring *r = L->ring_of[op->results[0].scratch];
    if (!r) {
        lower_error(L, "internal error: a shared tile without a buffer");
        return;
    }
    L->shared_loads--;
    /* the buffer: fixed for the prologue's loads, the one before the front's for the loop's */
    LLVMValueRef buf;
    int slot = L->ring_slot[op->results[0].scratch];
    if (slot >= 0) {
        buf = const_i32(L, r->base + slot * r->slot_bytes);
    } else {
        LLVMValueRef front = lval(L, r->front)->r[0];
        LLVMValueRef first = LLVMBuildICmp(L->b, LLVMIntEQ, front, const_i32(L, r->base), "");
        buf = LLVMBuildSelect(L->b, first, const_i32(L, r->base + (r->S - 1) * r->slot_bytes),
                              LLVMBuildSub(L->b, front, const_i32(L, r->slot_bytes), ""), "stage");
    }
    /* The buffer's previous readers must be done before it is overwritten: a barrier first, unless the
     * wait and barrier before a convert of a stage buffer earlier in this iteration saw to it (a matmul
     * loop: the convert, then the load). A loop whose load comes first (attention's second dot) needs
     * it: its buffer was read in the previous iteration, and nothing in between synchronised. */
    bool barrier_first = slot < 0 ? !fenced_before(op) : !r->front;
    if (slot >= 0 && r->tma >= 0 && r->nested && !r->restarted)
        tma_restart(L, r->loop);
    if (slot < 0 && L->hold_copies) {
        /* the previous iteration's wgmma may still read this buffer: the copies wait for the dot
         * (async_release) */
        if (L->nheld == L->held_cap) {
            int cap = L->held_cap ? 2 * L->held_cap : 8;
            struct HeldCopy *h = ARENA_ARRAY(L->a, struct HeldCopy, cap);
            if (L->nheld)
                memcpy(h, L->held, sizeof *h * (size_t)L->nheld);
            L->held = h;
            L->held_cap = cap;
        }
        L->held[L->nheld].op = op;
        L->held[L->nheld].buf = buf;
        L->held[L->nheld].barrier_first = barrier_first;
        L->nheld++;
    } else {
        issue_copies(L, op, buf, barrier_first);
    }
    /* a ring's new copy fills a stage that no convert reads before the next wait (the loop's next
     * iteration); a standalone buffer is read next, after a wait */
    if (!r->front)
        L->async_synced = false;
    LVal out = lval_new(L, 1, NULL);
    out.r[0] = buf;
    lval_set(L, op_result(op, 0), out);
}

void async_release(Lower *L, bool synced)
{
    for (int i = L->held_base; i < L->nheld; i++)
        issue_copies(L, L->held[i].op, L->held[i].buf, !synced && L->held[i].barrier_first);
    L->nheld = L->held_base;
}

/* A TMA ring's reader: tile t of the loop (t = (iv - lo) / step) is the (t div S)-th fill of buffer
 * t mod S, whose barrier this thread waits for; then the block synchronises (every warp is done with
 * the buffers that the copies issued after this point overwrite, and has waited for their barriers'
 * previous phase). Once per iteration is enough: a reader after another stage buffer's reader in the
 * same iteration (attention's V after K) finds every warp past this iteration's barrier, so done
 * with the previous iteration, whose buffers are all that this iteration's copies overwrite. */
static void tma_read(Lower *L, const Ring *r, const Value *src, const Op *reader)
{
    LLVMValueRef handle = lval(L, src)->r[0];
    LLVMValueRef slot = LLVMBuildUDiv(L->b, LLVMBuildSub(L->b, handle, const_i32(L, r->base), ""),
                                      const_i32(L, r->slot_bytes), "");
    const Block *body = op_block((Op *)r->loop, 0);
    const Value *stv = strip_hints(r->loop->operands[2]);
    LLVMValueRef t = LLVMBuildSub(L->b, lval(L, &body->args[0])->r[0], lval(L, r->loop->operands[0])->r[0], "");
    t = LLVMBuildUDiv(L->b, t, const_i32(L, stv->def->at.value.i), "");
    LLVMValueRef parity = LLVMBuildAnd(L->b, LLVMBuildUDiv(L->b, t, const_i32(L, r->S), ""), const_i32(L, 1), "");
    tma_wait(L, r->bars, slot, parity);
    /* No barrier when the loop's copies are held until after its wgmma's barrier. async_synced, which
     * also stands for cp.async's waits, is only used when the kernel has no cp.async buffer. */
    bool pure = L->cp_buffers == 0;
    if (!L->hold_copies && !(pure && L->async_synced) && !fenced_before(reader))
        tgt_barrier(L);
    if (pure)
        L->async_synced = true;
}

void async_wait(Lower *L, const Op *reader)
{
    const Value *src = reader->operands[0];
    Ring *r = L->ring_of[src->scratch];
    if (r && r->tma >= 0 && src == r->front) {
        tma_read(L, r, src, reader);
        return;
    }
    if (L->async_synced)
        return;
    if (r && r->tma >= 0) {
        lower_error(L, "internal error: a TMA stage buffer read other than by its loop");
        return;
    }
    int pending = r && r->front && r->S >= 2 ? (r->S - 2) * r->per_iter : 0;
    tgt_cp_async_wait(L, pending);
    if (L->wgmma) /* this thread's copies are complete: make them visible to wgmma's (async proxy) reads */
        tgt_fence_proxy_async(L);
    tgt_barrier(L);
    L->async_synced = true;
}

/* Whether op is inside a loop (its stage buffers' copies then run again after it). */
static bool in_loop(const Op *op)
{
    for (const Block *b = op->parent; b && b->parent; b = b->parent->parent)
        if (b->parent->code == OP_FOR || b->parent->code == OP_WHILE)
            return true;
    return false;
}

/* Before a nested loop's first prologue copy, each run: its TMA rings' barriers start again. The
 * block barrier first: every thread is past its waits of the previous run (whose copies, all read,
 * are complete; its last arrivals, for tiles past the end, completed at once); then thread 0
 * invalidates and initialises them, and the barrier after the fence publishes that. Tile t of the
 * run is then again the (t div S)-th fill of buffer t mod S. */
static void tma_restart(Lower *L, const Op *loop)
{
    tgt_barrier(L);
    for (int i = 0; i < L->ntma_rings; i++) {
        Ring *r = L->tma_rings[i];
        if (r->loop != loop)
            continue;
        tma_inval(L, r->bars, r->S);
        tma_init(L, r->bars, r->S, false);
        r->restarted = true;
    }
    tma_init_done(L);
}

void async_init(Lower *L)
{
    if (L->ntma_rings)
        tma_flag_init(L); /* before the barriers' initialisation and its block barrier */
    for (int i = 0; i < L->ntma_rings; i++)
        tma_init(L, L->tma_rings[i]->bars, L->tma_rings[i]->S, i == L->ntma_rings - 1);
}

/* After a loop whose rings use TMA: the last rings' barriers are invalidated when their memory
 * becomes free (never after a loop nested in another: its next run uses them again, and the region
 * stays reserved). */
static void tma_after_loop(Lower *L, const Op *loop, bool freed)
{
    for (int i = 0; i < L->ntma_rings && freed; i++)
        tma_inval(L, L->tma_rings[i]->bars, L->tma_rings[i]->S);
    if (freed && L->ntma_rings && !L->tma_checked) { /* the flag's word is about to be reused */
        tma_check(L);
        L->tma_checked = true;
    }
}

void async_after_loop(Lower *L, const Op *loop)
{
    Block *body = op_block((Op *)loop, 0);
    for (int i = 1; i < body->nargs; i++)
        if (is_shared(body->args[i].type)) {
            if (L->cp_buffers) /* TMA's copies were all waited for by their readers */
                tgt_cp_async_wait(L, -1);
            /* The last stage buffers of the kernel are dead: their region is free for what follows
             * (an epilogue's transfer), every writer of which waits at a barrier first, after every
             * thread's wait_all above; unless the loop is in another one, whose next iteration
             * copies into them again. */
            bool freed = L->shared_loads == 0 && L->lds_floor && !in_loop(loop);
            tma_after_loop(L, loop, freed);
            if (freed)
                L->lds_floor = 0; /* allocate_lds frees it the same way */
            return;
        }
}
