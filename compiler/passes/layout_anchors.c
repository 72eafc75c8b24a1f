/* The layouts of anchors: the ops whose layout is chosen rather than derived.
 *
 * A load, store or atomic takes the layout the pass coalesce planned (al_coalesced_layout, when it
 * has no plan): the coalesced layout its axis facts allow, `vec` elements of at most 16 bytes per
 * lane, contiguous, aligned and with the mask constant over them, fewer when the tile would leave
 * lanes idle; a B tile that feeds an MFMA dot is loaded with k_width rows per lane, so it is written
 * k-major to LDS in runs, and a pipelined A tile that feeds an MFMA dot, whose accesses are narrower
 * than k_width, with k_width consecutive k of one row per lane, written to LDS in runs too. A dot
 * takes the accumulator layout choose_dots planned (its matrix instruction's, or a blocked one for
 * the FMA fallback) and dot_op layouts for its operands. A store of a value computed in an
 * accumulator layout writes straight from it when a lane's run of columns is one access (and, for
 * NVIDIA's wgmma tiles, when shared memory would not give 16-byte stores). */
#include "compiler/passes/assign_layouts.h"

/* The k_width of the matrix-instruction dot whose operand `idx` (0: A, 1: B) the tile v becomes,
 * directly or through loop-carried values (a pipelined load reaches its dot in the next iteration:
 * *carried is then set), or 1 (no such dot; sm_90 keeps B as loaded, ldmatrix .trans). */
static int operand_k_of(Ctx *c, const Value *v, int idx, int depth, bool *carried)
{
    if (depth > 3)
        return 1;
    for (Use *u = c->uses[vid(v)]; u; u = u->next) {
        Op *op = u->op;
        if (op->code == OP_DOT && u->idx == idx) {
            const Layout *acc, *la, *lb;
            al_dot_layouts(c, op, &acc, &la, &lb);
            return acc->kind == LAY_MFMA ? (idx ? lb : la)->k_width : 1;
        }
        const Value *next = NULL;
        if (op->code == OP_FOR && u->idx >= 3)
            next = &op_block(op, 0)->args[u->idx - 2];
        else if (op->code == OP_YIELD && op->parent->parent && op->parent->parent->code == OP_FOR)
            next = &op->parent->args[u->idx + 1];
        if (next) {
            int r = operand_k_of(c, next, idx, depth + 1, carried);
            if (r > 1) {
                *carried = true;
                return r;
            }
        }
    }
    return 1;
}

/* A load whose tile becomes a B operand is stored to LDS with k fastest, so each lane should hold
 * k_width consecutive rows of its columns: then it writes a run of k per column instead of single
 * elements. Returns that k_width, or 1. */
static int b_operand_rows(Ctx *c, const Op *ld)
{
    bool carried = false;
    return operand_k_of(c, &ld->results[0], 1, 0, &carried);
}

/* A pipelined load (its tile reaches the dot through the loop's carried values) whose tile becomes an
 * MFMA dot's A operand and whose access is narrower than the operand's k_width: each lane should
 * hold k_width consecutive columns (k) of its rows all the same, loaded one access at a time
 * (lower_mem.c caps the access by the axis facts). A lane then writes a run of k to LDS in one access
 * instead of single elements, and holds a quarter of the rows (a masked load's row masks, SGPR pairs
 * each: a 128x64 tile on 4 waves, 32 of them a lane, 8 with runs of 4). A load that its own
 * iteration's dot reads (one stage) keeps one element a lane: its runs are packed as soon as they
 * arrive, and at the edge of the VGPRs LLVM then issued them two loads at a time behind a vmcnt(0)
 * (bench/tile_sweep.py --unhinted: one stage 22 configurations slower on gfx90a, up to 2.9x, two and
 * three stages faster by 3 to 7% in geometric mean); a load outside loops too (its conversion runs
 * once). Returns the elements a lane should hold, or vec. */
static int a_operand_columns(Ctx *c, const Op *ld, int vec)
{
    bool carried = false;
    int kw = operand_k_of(c, &ld->results[0], 0, 0, &carried);
    return kw > vec && carried ? kw : vec;
}

const Layout *al_coalesced_layout(Ctx *c, const Op *op)
{
    const Value *ptr = op->operands[0];
    const Type *t = ptr->type;
    const Value *mask = NULL;
    if (op->code == OP_LOAD && op->nopnds == 3)
        mask = op->operands[1];
    else if (op->code == OP_STORE && op->nopnds == 3)
        mask = op->operands[2];
    else if (op->code == OP_ATOMIC_RMW && op->nopnds == 3)
        mask = op->operands[2];
    else if (op->code == OP_ATOMIC_CAS && op->nopnds == 4)
        mask = op->operands[3];
    int dim;
    int vec = axis_vector_width(c->ax, ptr, mask, 128, &dim);
    if (op->code == OP_ATOMIC_RMW || op->code == OP_ATOMIC_CAS)
        vec = 1;
    if (op->code == OP_LOAD && t->rank == 2 && dim == 1)
        vec = a_operand_columns(c, op, vec);
    /* each lane should get work: fewer elements per lane when the tile is small */
    int64_t numel = ty_numel(t), lanes = (int64_t)c->nw * c->o->wave;
    while (vec > 1 && numel / vec < lanes)
        vec /= 2;
    const Layout *l = lay_coalesced(c->lt, t->rank, t->shape, dim, vec, c->nw, c->o->wave);
    int rows = op->code == OP_LOAD && t->rank == 2 && dim == 1 ? b_operand_rows(c, op) : 1;
    /* as many of those rows as the tile gives every lane (a 64x64 f16 tile on 256 lanes: 2 rows of 8) */
    while (rows > 1 && ((int64_t)rows * l->tpw[0] * l->wpc[0] > t->shape[0] || numel / ((int64_t)rows * vec) < lanes))
        rows /= 2;
    if (rows > 1) {
        int spt[2] = {rows, l->spt[1]};
        l = lay_blocked(c->lt, 2, spt, l->tpw, l->wpc, l->order);
    }
    return l;
}

/* A memory op's layout as coalesce planned it, else chosen now (assign_layouts run alone). */
const Layout *al_mem_layout(Ctx *c, const Op *op)
{
    const OpPlan *pl = op->plan;
    return pl && (pl->set & (1u << PK_LAYOUT)) ? pl->layout : al_coalesced_layout(c, op);
}

/* The dot's accumulator layout as choose_dots planned it, its operands' dot_op layouts around it. */
void al_dot_layouts(Ctx *c, const Op *dot, const Layout **acc, const Layout **la, const Layout **lb)
{
    int kw;
    *acc = dot_layout_of(c->lt, c->o, c->src, dot, &kw);
    *la = lay_dot_op(c->lt, 0, *acc, kw);
    *lb = lay_dot_op(c->lt, 1, *acc, kw);
}

/* Elements a lane holds consecutively along the last dimension in layout l (a run of register bits). */
static int lane_run(Ctx *c, const Layout *l, const Type *t)
{
    LinLayout ll;
    if (!lay_linear(l, t->rank, t->shape, c->o->wave, c->nw, &ll))
        return 0;
    int k = 0, last = t->rank - 1;
    while (k < ll.nreg && ll.reg[k][last] == (1 << k)) {
        bool only = true;
        for (int d = 0; d < last; d++)
            only &= ll.reg[k][d] == 0;
        if (!only)
            break;
        k++;
    }
    return 1 << k;
}

/* A store of a value computed in an accumulator layout (directly or through elementwise ops) writes
 * from that layout when the pointers allow a lane's run of consecutive columns as one access:
 * no trip through LDS, no LDS to reserve. */
const Layout *al_store_in_place(Ctx *c, const Op *st)
{
    bool strong;
    const Layout *v = al_pref_of(c, st->operands[1], &strong);
    if (!v || !strong || (v->kind != LAY_MFMA && v->kind != LAY_MMA))
        return NULL;
    const Type *pt = st->operands[0]->type;
    int dim;
    int vec = axis_vector_width(c->ax, st->operands[0], st->nopnds == 3 ? st->operands[2] : NULL, 128, &dim);
    int run = lane_run(c, v, pt);
    int bytes = ty_bits(ty_elem(pt)->pointee) / 8;
    if (dim != pt->rank - 1 || run < 2 || vec < run || run * bytes > 16)
        return NULL;
    /* NVIDIA's accumulator gives a lane 2 consecutive columns (4 or 8 bytes) per row: for a wgmma
     * tile (64 to 128 accumulators a thread), when the pointers allow 16 bytes, the tile goes through
     * shared memory to 16-byte stores instead (a quarter of the store instructions, whole 32-byte
     * sectors: +8% for a 4096^3 bf16 matmul on the H200), if it fits there alone and no stage buffer
     * is live (the lowering reuses their region once the last is dead). mma.sync tiles (attention's)
     * store in place: there the transfer's registers made ptxas spill. */
    if (v->kind == LAY_MMA && nv_is_wgmma(v->instr) && run * bytes < 16 && vec * bytes >= 16 &&
        ty_numel(pt) * bytes <= 64 * 1024 && !al_async_live_at(c, st))
        return NULL;
    return v;
}
