/* plan_async: sm_90's stage buffers and their copies, decided before lowering (LIR, kernels).
 *
 * assign_layouts gives a `shared` layout to a 16-bit 2-D load that only feeds an mma operand: its tile
 * is never in registers but in a stage buffer, filled by cp.async or by the bulk tensor copy engine
 * (TMA). This pass decides where those buffers are and how they are filled, and writes it on the
 * loads as plan attributes (tir.h, OpPlan) and on the kernel (Func.stage_lds, tma_flag, tma), which
 * the lowering (compiler/target/nvptx/lower_async.c, lower_tma.c) translates without deciding again:
 *
 *  - a ring per loop-carried chain of shared tiles that a convert reads (the front) and that ends in
 *    a load in the loop's body (pipeline_loads: with num_stages = S the loop carries S-1 tiles): S
 *    buffers (`stages`) of `stage_bytes` each from `stage_buffer`, the prologue's loads in buffers
 *    0..S-2 (`stage`), the loop's load in the one before its `front`'s (stage -1); `copy_groups`, the
 *    cp.async commit groups its loop issues per iteration (its cp.async rings);
 *  - a buffer of its own (stages = 1) for every other shared tile;
 *  - TMA for a ring whose loads are all boxes of one tensor (tma_match), in a kernel with a wgmma dot,
 *    on a target that has TMA (RK_NO_TMA=1 keeps cp.async): `tma` the tensor (one kernel parameter,
 *    Func.tma its description for the runtime), `tma_bars` its S mbarriers, `tma_coord` the box's
 *    first element and `tma_pred` the conditions under which the copy happens;
 *  - on a dot of a wgmma layout, `wgmma`: 1 when wgmma reads its operands where they are (B in a stage
 *    buffer, A too or in registers), 0 when the lowering issues mma.sync on the same layouts.
 *
 * Buffers are at 1024-byte boundaries (wgmma's 128-byte swizzle is a function of the address) from
 * the bottom of shared memory, in the order of the loops, rings before the standalone buffers; the
 * TMA barriers after their ring, the negative-coordinate flag after everything; Func.stage_lds is the
 * region's end, rounded to 16. Nothing else is placed in that region while a stage buffer is used. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/passes/passes.h"
#include "compiler/target/nvptx/tma_match.h"

enum { MAX_RINGS = 16, MAX_TMA_RINGS = 16 };

typedef struct Planner {
    Arena *a;
    Func *f;
    int wave;
    bool tma_ok;     /* TMA may fill rings: the target has it, a dot is a wgmma, RK_NO_TMA unset */
    int lds;         /* bytes reserved so far */
    int ntma_rings;
    const char **tma; /* the tensors' descriptions */
    int ntma, tma_cap;
} Planner;

static bool is_shared(const Type *t)
{
    return t->kind == TY_TILE && t->layout && t->layout->kind == LAY_SHARED;
}

static bool is_wgmma_dot(const Op *op)
{
    const Layout *l = op->code == OP_DOT ? op->results[0].type->layout : NULL;
    return l && l->kind == LAY_MMA && nv_is_wgmma(l->instr);
}

/* What a kernel has to plan, found in one walk that also clears the plans of an earlier run. */
typedef struct Scan {
    bool shared, wgmma; /* a load of a shared tile, a dot of a wgmma layout */
} Scan;

static bool scan_op(Op *op, void *ud)
{
    Scan *sc = ud;
    op->plan = NULL;
    sc->shared |= op->code == OP_LOAD && is_shared(op->results[0].type);
    sc->wgmma |= is_wgmma_dot(op);
    return true;
}

static OpPlan *plan_of(Planner *P, Op *op)
{
    if (!op->plan)
        op->plan = ARENA_NEW(P->a, OpPlan);
    return op->plan;
}

static void plan_set(OpPlan *pl, PlanKey k, int64_t v)
{
    pl->set |= 1u << k;
    pl->v[k] = v;
}

/* ---- TMA: whether a ring's loads are boxes of one tensor ---- */

/* A dimension or stride as the runtime reads it: K+C*P (or +C*P*Q) for constant K, C and parameters
 * P, Q; "*" for an open dimension. */
static void lin_text(char *buf, size_t cap, const Func *f, const TmaLin *l, bool open)
{
    if (open) {
        snprintf(buf, cap, "*");
        return;
    }
    int w = snprintf(buf, cap, "%lld", (long long)l->k);
    for (int i = 0; i < l->n && w > 0 && (size_t)w < cap; i++) {
        w += snprintf(buf + w, cap - (size_t)w, "%+lld*%d", (long long)l->t[i].c, tma_param_index(f, l->t[i].a));
        if (l->t[i].b && w > 0 && (size_t)w < cap)
            w += snprintf(buf + w, cap - (size_t)w, "*%d", tma_param_index(f, l->t[i].b));
    }
}

/* The runtime's description of a tensor: one line, see runtime/api/tma.c. */
static const char *spec_of(Planner *P, const TmaMatch *m, int box0, int box1, int swizzle)
{
    char d0[160], d1[160], s1[160], d2[160] = "", s2[160] = "";
    lin_text(d0, sizeof d0, P->f, &m->dim[0], m->open[0]);
    lin_text(d1, sizeof d1, P->f, &m->dim[1], m->open[1]);
    lin_text(s1, sizeof s1, P->f, &m->stride[0], false);
    if (m->rank == 3) {
        d2[0] = s2[0] = ' ';
        lin_text(d2 + 1, sizeof d2 - 1, P->f, &m->dim[2], m->open[2]);
        lin_text(s2 + 1, sizeof s2 - 1, P->f, &m->stride[1], false);
    }
    return arena_printf(P->a, "tma %d %d %d %d %d %s %s %s%s%s", m->ptr_param, m->esize, box0, box1, swizzle, d0, d1,
                        s1, d2, s2);
}

/* What the kernel's multiple_of hints on argument v promise to divide it where `at` runs: the hints
 * that run before it every time, those earlier in its block or in a block around it (a hint in a
 * branch not taken promises nothing). */
static int64_t hinted_div(const Op *at, const Value *v)
{
    int64_t d = 1;
    for (const Op *in = at; in && in->parent; in = in->parent->parent)
        for (const Op *op = in->parent->first; op && op != in; op = op->next)
            if (op->code == OP_HINT && op->at.kind == KIND_MULTIPLE_OF && op->operands[0] == v && op->at.n > d)
                d = op->at.n;
    return d;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The stride's bytes must be a multiple of 16 for every launch of `load`: from its constants and the
 * hints. */
static bool stride_aligned(const Op *load, const TmaMatch *m)
{
    const TmaLin *s = &m->stride[0]; /* the batch stride is a multiple of it */
    int64_t g = s->k;
    for (int i = 0; i < s->n; i++)
        g = gcd64(g, s->t[i].c * hinted_div(load, tma_strip(s->t[i].a)));
    return g != 0 && (g * m->esize) % 16 == 0;
}

static PlanLin plan_lin(const TmaLin *l)
{
    PlanLin p;
    memset(&p, 0, sizeof p);
    p.k = l->k;
    p.n = l->n;
    for (int i = 0; i < l->n; i++) {
        p.t[i].c = l->t[i].c;
        p.t[i].a = (Value *)l->t[i].a;
        p.t[i].b = (Value *)l->t[i].b;
    }
    return p;
}

/* The tensor index when every load of a ring (tile: its shared type) is a box of one tensor TMA can
 * copy, each load's coordinates and conditions then in its plan; else -1. */
static int tma_ring(Planner *P, const Type *tile, Op **loads, int n)
{
    if (!P->tma_ok)
        return -1;
    const Layout *lay = tile->layout;
    int fast = lay->order[0];
    int64_t lines = tile->shape[1 - fast], pitch = tile->shape[fast] * 2;
    if (tile->rank != 2 || lines % 8 || lines > 256 || !(pitch == 32 || pitch == 64 || pitch % 128 == 0))
        return -1;
    TmaMatch *ms = ARENA_ARRAY(P->a, TmaMatch, n);
    const char *spec = NULL;
    for (int i = 0; i < n; i++) {
        if (!tma_match(P->f, loads[i], &ms[i]) || ms[i].esize != 2 || ms[i].inner != fast ||
            !stride_aligned(loads[i], &ms[i]))
            return -1;
        const char *s = spec_of(P, &ms[i], (int)(pitch > 128 ? 64 : pitch / 2), (int)lines,
                                (int)(pitch > 128 ? 128 : pitch));
        if (spec && strcmp(spec, s) != 0)
            return -1;
        spec = s;
    }
    /* the same tensor as an earlier ring's: one parameter */
    int k = 0;
    while (k < P->ntma && strcmp(P->tma[k], spec) != 0)
        k++;
    if (k == P->ntma) {
        if (P->ntma == P->tma_cap) {
            int cap = P->tma_cap ? 2 * P->tma_cap : 4;
            const char **x = ARENA_ARRAY(P->a, const char *, cap);
            if (P->ntma)
                memcpy(x, P->tma, sizeof *x * (size_t)P->ntma);
            P->tma = x;
            P->tma_cap = cap;
        }
        P->tma[P->ntma++] = spec;
    }
    for (int i = 0; i < n; i++) {
        OpPlan *pl = plan_of(P, loads[i]);
        pl->set |= 1u << PK_TMA_COORD | (ms[i].npred ? 1u << PK_TMA_PRED : 0);
        pl->ncoord = ms[i].rank;
        for (int d = 0; d < ms[i].rank; d++)
            pl->coord[d] = plan_lin(&ms[i].coord[d]);
        pl->npred = ms[i].npred;
        for (int j = 0; j < ms[i].npred; j++)
            pl->pred[j] = (Value *)ms[i].pred[j];
    }
    return k;
}

/* ---- rings ---- */

/* S buffers for tile t (1024-byte aligned), at the end of the region so far: the first's offset. */
static int new_buffers(Planner *P, const Type *t, int S, int *slot_bytes)
{
    *slot_bytes = (int)((ty_numel(t) * 2 + 1023) / 1024 * 1024);
    P->lds = (P->lds + 1023) / 1024 * 1024;
    int base = P->lds;
    P->lds += *slot_bytes * S;
    return base;
}

static void plan_buffer(Op *load, int base, int S, int slot_bytes, int slot)
{
    OpPlan *pl = load->plan;
    plan_set(pl, PK_STAGE_BUFFER, base);
    plan_set(pl, PK_STAGE, slot);
    plan_set(pl, PK_STAGES, S);
    plan_set(pl, PK_STAGE_BYTES, slot_bytes);
}

/* The rings of one loop: from each carried handle that a convert reads (the front), back through the
 * yields to the load in the body; the loop inputs of the chain are the prologue's loads. */
static void plan_loop(Planner *P, Op *loop)
{
    Block *body = op_block(loop, 0);
    Op *y = body->last;
    if (!y || y->code != OP_YIELD)
        return;
    Op *ring_loads[MAX_RINGS][17];
    int ring_n[MAX_RINGS], ring_tma[MAX_RINGS];
    int nr = 0;
    for (int i = 1; i < body->nargs && nr < MAX_RINGS; i++) {
        Value *front = &body->args[i];
        if (!is_shared(front->type))
            continue;
        bool read = false;
        for (Op *op = body->first; op; op = op->next)
            for (int k = 0; k < op->nopnds; k++)
                read |= op->operands[k] == front && op->code == OP_CONVERT_LAYOUT;
        if (!read)
            continue;
        /* the chain, front first: each carried value is the yield of the one before it */
        const Value *chain[16];
        int n = 0;
        const Value *cur = front;
        Op *load = NULL;
        while (n < 16) {
            chain[n++] = cur;
            const Value *prev = y->operands[cur->index - 1];
            if (prev->owner == body && !prev->def) {
                cur = prev;
                continue;
            }
            if (prev->def && prev->def->code == OP_LOAD && prev->def->parent == body)
                load = prev->def;
            break;
        }
        if (!load)
            continue;
        int slot_bytes, base = new_buffers(P, front->type, n + 1, &slot_bytes);
        Op **loads = ring_loads[nr];
        int nloads = 0;
        loads[nloads++] = load;
        plan_of(P, load);
        plan_buffer(load, base, n + 1, slot_bytes, -1);
        load->plan->set |= 1u << PK_FRONT;
        load->plan->front = front;
        /* the prologue's loads: chain position d holds the tile of iteration d, in buffer d */
        for (int d = 0; d < n; d++) {
            const Value *init = loop->operands[3 + chain[d]->index - 1];
            if (init->def && init->def->code == OP_LOAD && is_shared(init->type)) {
                plan_of(P, init->def);
                plan_buffer(init->def, base, n + 1, slot_bytes, d);
                loads[nloads++] = init->def;
            }
        }
        const Value *st = tma_strip(loop->operands[2]);
        bool const_step = st->def && st->def->code == OP_CONST && st->def->at.value.i > 0;
        int tma = -1;
        if (const_step && nloads == n + 1 && P->ntma_rings < MAX_TMA_RINGS &&
            (tma = tma_ring(P, front->type, loads, nloads)) >= 0) {
            P->lds = (P->lds + 7) / 8 * 8;
            for (int i2 = 0; i2 < nloads; i2++) {
                plan_set(loads[i2]->plan, PK_TMA, tma);
                plan_set(loads[i2]->plan, PK_TMA_BARS, P->lds);
            }
            P->lds += 8 * (n + 1);
            P->ntma_rings++;
        }
        ring_n[nr] = nloads;
        ring_tma[nr++] = tma;
    }
    int ncp = 0; /* copy groups per iteration: the cp.async rings' */
    for (int i = 0; i < nr; i++)
        ncp += ring_tma[i] < 0;
    for (int i = 0; i < nr; i++)
        for (int j = 0; j < ring_n[i]; j++)
            plan_set(ring_loads[i][j]->plan, PK_COPY_GROUPS, ncp);
}

static void plan_block(Planner *P, Block *b)
{
    for (Op *op = b->first; op; op = op->next) {
        if (op->code == OP_FOR)
            plan_loop(P, op);
        for (int r = 0; r < op->nregions; r++)
            plan_block(P, op->regions[r]);
    }
    /* shared tiles outside rings: a buffer each */
    for (Op *op = b->first; op; op = op->next)
        if (op->code == OP_LOAD && is_shared(op->results[0].type) && !op->plan) {
            int slot_bytes, base = new_buffers(P, op->results[0].type, 1, &slot_bytes);
            plan_of(P, op);
            plan_buffer(op, base, 1, slot_bytes, 0);
        }
}

/* ---- the dot's instruction: wgmma, or mma.sync on the same layouts ---- */

bool dot_operand_candidate(const Op *cv, int uses)
{
    const Layout *to = cv->code == OP_CONVERT_LAYOUT ? cv->results[0].type->layout : NULL;
    return to && to->kind == LAY_DOT_OP && (to->parent->kind == LAY_MFMA || to->parent->kind == LAY_MMA) && uses == 1;
}

bool dot_operand_next_dot(const Op *cv)
{
    for (const Op *n = cv->next; n; n = n->next)
        if (n->code == OP_DOT)
            return n->operands[0] == &cv->results[0] || n->operands[1] == &cv->results[0];
    return false;
}

/* Bytes of a line of a stage buffer that wgmma's swizzles describe: 32, 64, or 128 per column. */
static bool line_ok(int64_t pitch)
{
    return pitch == 32 || pitch == 64 || (pitch >= 128 && pitch % 128 == 0);
}

/* An operand wgmma reads through a descriptor: a stage buffer's tile (a convert of a shared tile, which
 * the dot reads where it is), 16-bit, lines of 32, 64 or a multiple of 128 bytes, a multiple of 8
 * lines; A K-major. */
static bool descriptor_operand(const Value *v, bool is_b)
{
    const Op *cv = v->def;
    if (!cv || cv->code != OP_CONVERT_LAYOUT || !is_shared(cv->operands[0]->type))
        return false;
    const Type *from = cv->operands[0]->type;
    bool kmajor = from->layout->order[0] == 0;
    int64_t lines = from->shape[kmajor ? 1 : 0], pitch = from->shape[kmajor ? 0 : 1] * 2;
    return from->rank == 2 && ty_bits(ty_elem(from)) == 16 && (is_b || !kmajor) && line_ok(pitch) && lines % 8 == 0;
}

/* A in registers (wgmma's register form): not left in LDS for the dot (dot_operand_candidate, _next_dot
 * and not a renaming of registers: a chained dot's accumulator is the next A as it is). */
static bool in_registers(const Value *v, const Planner *P)
{
    const Op *cv = v->def;
    if (!cv || cv->code != OP_CONVERT_LAYOUT)
        return true;
    if (is_shared(cv->operands[0]->type))
        return false;
    if (!dot_operand_candidate(cv, (int)v->scratch))
        return true;
    const Type *from = cv->operands[0]->type, *to = v->type;
    LinLayout ls, ld;
    if (lay_linear(from->layout, from->rank, from->shape, P->wave, P->f->opts.num_warps, &ls) &&
        lay_linear(to->layout, to->rank, to->shape, P->wave, P->f->opts.num_warps, &ld) && lin_renames(&ls, &ld))
        return true;
    return !dot_operand_next_dot(cv);
}

/* wgmma when its operands are where it reads them (B in a stage buffer, A too or in registers) and the
 * tile is its: warps stacked along M in warpgroups, M a multiple of 16 per warp, K of 16, N of 8 (and
 * of 256 above 256); else the dot is mma.sync on the same layouts. */
static void plan_dot(Planner *P, Op *dot)
{
    const Layout *cl = dot->results[0].type->layout;
    if (!is_wgmma_dot(dot))
        return;
    const Type *ta = dot->operands[0]->type, *tb = dot->operands[1]->type;
    int64_t M = ta->shape[0], K = ta->shape[1], N = tb->shape[1];
    int nw = P->f->opts.num_warps;
    bool a_ok = descriptor_operand(dot->operands[0], false) || in_registers(dot->operands[0], P);
    bool ok = a_ok && descriptor_operand(dot->operands[1], true) && cl->wpc[0] == nw && cl->wpc[1] == 1 && nw % 4 == 0 &&
              M % (16 * nw) == 0 && K % 16 == 0 && N % 8 == 0 && !(N > 256 && N % 256);
    plan_set(plan_of(P, dot), PK_WGMMA, ok);
}

static bool plan_dots(Op *op, void *ud)
{
    if (op->code == OP_DOT)
        plan_dot(ud, op);
    return true;
}

void plan_async(Arena *a, Func *f, const Target *t)
{
    Scan sc = {false, false};
    tir_walk_func(f, scan_op, &sc); /* a second run plans afresh */
    f->stage_lds = f->tma_flag = f->ntma = 0;
    f->tma = NULL;
    if (!sc.shared && !sc.wgmma)
        return;
    Planner P = {a, f, t->wave_size, false, 0, 0, NULL, 0, 0};
    P.tma_ok = t->tma && t->wgmma && sc.wgmma && !getenv("RK_NO_TMA");
    plan_block(&P, f->body);
    if (sc.wgmma) {
        tir_count_uses(f);
        tir_walk_func(f, plan_dots, &P);
    }
    if (P.ntma_rings) {
        P.lds = (P.lds + 7) / 8 * 8;
        f->tma_flag = P.lds;
        P.lds += 8;
    }
    f->stage_lds = (P.lds + 15) / 16 * 16;
    f->tma = P.tma;
    f->ntma = P.ntma;
}
