/* Loads, stores and atomics. A lane moves `vec` registers at once when its layout gives it that many
 * consecutive elements along the fastest dimension and the lowering's own axis analysis proves the
 * pointers contiguous and aligned and the mask constant over them (coalesce chose the layout from the
 * same facts, but an MFMA dot's A operand may hold longer runs than one access). A masked group is
 * loaded or stored under a branch, so masked-off lanes never touch memory; on the emulator every
 * access is checked first.
 *
 * An atomic happens once per element, although a layout may give an element to several lanes, waves
 * or registers (a zero basis: replication) and a scalar is held by every lane: only the copy whose
 * replicating id bits are all zero performs it, and when the old values are used that copy publishes
 * them through LDS for the others. A store, too, happens only in the owner copy: a replica writing
 * the same value would race with a kernel that reads and rewrites its own output (x = 2 * x), whose
 * replicas might read the owner's result. (Replicated loads are harmless.)
 *
 * A masked store in a loop has its values built before its first branch and handed to the target's
 * keep_above (AMD: an empty inline asm per value; the emulator: a single-thread fence). Without it
 * the loads and arithmetic whose only use is the stored value are moved into the store's branch, by
 * instruction combining and again by the code generator's sinking pass (legal: nothing between them
 * and the branch writes memory): they issue after the loop's other loads, the waits split, and the
 * waits left in a branch, which a skipped branch does not execute, cost a vmcnt(0) at the loop's top
 * (layernorm's last loop in bench/vs_triton: 2416 -> 1312 cycles by the loop model). */
#include "compiler/lower/lower_internal.h"
#include "isa/emu_abi.h"

static int elem_bytes(const Type *t)
{
    const Type *e = ty_elem(t);
    if (e->kind == TY_PTR)
        return 8;
    return e->sk == SK_BOOL ? 1 : sk_bits(e->sk) / 8;
}

/* The widest access, in elements of `bytes`, that the lowering's axis facts allow along dimension d
 * (axis_access_width), or 0 where they are unknown. */
static int64_t axis_width(const Lower *L, const Type *t, int d, int bytes, const Value *ptr, const Value *mask)
{
    const AxisInfo *pa = L->axis ? L->axis[ptr->scratch] : NULL;
    if (!pa || pa->rank != t->rank)
        return 0;
    const AxisInfo *ma = mask && L->axis ? L->axis[mask->scratch] : NULL;
    return axis_access_width(pa, ma && ma->rank == t->rank ? ma : NULL, d, bytes);
}

/* Registers per access: the elements a lane holds consecutively along the memory-contiguous dimension
 * — a blocked layout's elements per lane along its fastest dimension, or for other layouts (a store
 * straight from an accumulator) the run of register bits along the last dimension, which layout
 * assignment chose only where the axis analysis allows it — at most 16 bytes, and no wider than the
 * axis facts allow (an A operand's load holds k_width columns a lane whatever its access width:
 * layout_anchors.c). */
static int vector_width(Lower *L, const Type *t, int bytes, const Value *ptr, const Value *mask)
{
    const Layout *l = t->layout;
    if (t->kind != TY_TILE || !l)
        return 1;
    int v, d = t->rank - 1;
    if (l->kind == LAY_BLOCKED) {
        d = l->order[0];
        v = l->spt[d];
        if (v > (int)t->shape[d])
            v = (int)t->shape[d];
    } else {
        const LinLayout *ll = &lay_info(L, t)->ll;
        int k = 0;
        while (k < ll->nreg && ll->reg[k][d] == (1 << k)) {
            bool only = true;
            for (int e = 0; e < d; e++)
                only &= ll->reg[k][e] == 0;
            if (!only)
                break;
            k++;
        }
        v = 1 << k;
    }
    int64_t allowed = axis_width(L, t, d, bytes, ptr, mask);
    while (v > 1 && (v * bytes > 16 || (allowed > 0 && v > allowed)))
        v /= 2;
    return v > 0 ? v : 1;
}

static void unvec(Lower *L, LLVMValueRef v, LLVMValueRef *out, int n)
{
    if (n == 1) {
        out[0] = v;
        return;
    }
    for (int i = 0; i < n; i++)
        out[i] = LLVMBuildExtractElement(L->b, v, const_i32(L, i), "");
}

static LLVMAtomicOrdering ordering(int64_t sem)
{
    switch (sem) {
    case SEM_RELAXED: return LLVMAtomicOrderingMonotonic;
    case SEM_ACQUIRE: return LLVMAtomicOrderingAcquire;
    case SEM_RELEASE: return LLVMAtomicOrderingRelease;
    default: return LLVMAtomicOrderingAcquireRelease;
    }
}

static void set_scope(Lower *L, LLVMValueRef inst, int64_t scope)
{
    /* the system scope is LLVM's default; NVPTX names the others block and device (LLVM aborts on
     * AMDGPU's names there); the host has one scope */
    const char *s = scope == SCOPE_CTA ? L->t->scope_cta : scope == SCOPE_GPU ? L->t->scope_gpu : NULL;
    if (s)
        LLVMSetAtomicSyncScopeID(inst, LLVMGetSyncScopeID(L->ctx, s, strlen(s)));
}

static LLVMAtomicOrdering failure_ordering(LLVMAtomicOrdering ord)
{
    return ord == LLVMAtomicOrderingRelease           ? LLVMAtomicOrderingMonotonic
           : ord == LLVMAtomicOrderingAcquireRelease ? LLVMAtomicOrderingAcquire
                                                     : ord;
}

/* atomic_add on f16 and bf16 on the emulator, where they are i16 bit patterns (lower_fp.c) that LLVM's
 * atomicrmw fadd does not take: a compare-and-swap loop around the add, rounded once as everywhere. */
static LLVMValueRef atomic_add16(Lower *L, Op *op, LLVMValueRef ptr, LLVMValueRef v)
{
    ScalarKind sk = ty_elem(op->results[0].type)->sk;
    LLVMAtomicOrdering ord = ordering(op->at.sem);
    LLVMValueRef first = LLVMBuildLoad2(L->b, L->i16, ptr, "");
    LLVMSetOrdering(first, LLVMAtomicOrderingMonotonic);
    LLVMSetAlignment(first, 2);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "atomic.add16");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "");
    LLVMBuildBr(L->b, loop);
    LLVMPositionBuilderAtEnd(L->b, loop);
    LLVMValueRef cur = LLVMBuildPhi(L->b, L->i16, "");
    LLVMValueRef sum = fp_from_f32(L, LLVMBuildFAdd(L->b, fp_to_f32(L, cur, sk), fp_to_f32(L, v, sk), ""), sk);
    LLVMValueRef x = LLVMBuildAtomicCmpXchg(L->b, ptr, cur, sum, ord, failure_ordering(ord), 0);
    LLVMValueRef seen = LLVMBuildExtractValue(L->b, x, 0, "");
    LLVMValueRef ok = LLVMBuildExtractValue(L->b, x, 1, "");
    LLVMAddIncoming(cur, &first, &pre, 1);
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(L->b);
    LLVMAddIncoming(cur, &seen, &latch, 1);
    LLVMBuildCondBr(L->b, ok, done, loop);
    LLVMPositionBuilderAtEnd(L->b, done);
    return cur;
}

static LLVMValueRef atomic_one(Lower *L, Op *op, LLVMValueRef ptr, LLVMValueRef *vals)
{
    const Type *et = ty_elem(op->results[0].type);
    LLVMAtomicOrdering ord = ordering(op->at.sem);
    if (op->code == OP_ATOMIC_CAS) {
        LLVMValueRef x = LLVMBuildAtomicCmpXchg(L->b, ptr, vals[0], vals[1], ord, failure_ordering(ord), 0);
        set_scope(L, x, op->at.scope);
        return LLVMBuildExtractValue(L->b, x, 0, "");
    }
    bool fl = sk_is_float(et->sk), sg = sk_is_signed(et->sk);
    if (L->t->soft_fp16 && fp_is16(et->sk))
        return atomic_add16(L, op, ptr, vals[0]);
    LLVMAtomicRMWBinOp bop;
    switch (op->at.kind) {
    case KIND_ADD: bop = fl ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd; break;
    case KIND_MAX: bop = fl ? LLVMAtomicRMWBinOpFMax : sg ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax; break;
    case KIND_MIN: bop = fl ? LLVMAtomicRMWBinOpFMin : sg ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin; break;
    case KIND_AND: bop = LLVMAtomicRMWBinOpAnd; break;
    case KIND_OR: bop = LLVMAtomicRMWBinOpOr; break;
    case KIND_XOR: bop = LLVMAtomicRMWBinOpXor; break;
    default: bop = LLVMAtomicRMWBinOpXchg; break;
    }
    /* NVPTX (LLVM 22) emits every atomicrmw as a relaxed `atom`, dropping its order: on sm_90 the
     * order is given by fences around a relaxed one (fence.acq_rel.<scope>, the PTX memory model's
     * release and acquire patterns), which it does emit */
    bool fences = L->t->fenced_atomics && ord != LLVMAtomicOrderingMonotonic;
    if (fences && (ord == LLVMAtomicOrderingRelease || ord == LLVMAtomicOrderingAcquireRelease))
        set_scope(L, LLVMBuildFence(L->b, LLVMAtomicOrderingRelease, 0, ""), op->at.scope);
    LLVMValueRef x = LLVMBuildAtomicRMW(L->b, bop, ptr, vals[0], fences ? LLVMAtomicOrderingMonotonic : ord, 0);
    set_scope(L, x, op->at.scope);
    if (fences && (ord == LLVMAtomicOrderingAcquire || ord == LLVMAtomicOrderingAcquireRelease))
        set_scope(L, LLVMBuildFence(L->b, LLVMAtomicOrderingAcquire, 0, ""), op->at.scope);
    return x;
}

/* The id bits that replicate the elements of a value (all lanes and waves for a scalar). */
typedef struct Repl {
    int reg, lane, warp;
} Repl;

static Repl replication(Lower *L, const LVal *v)
{
    Repl x = {0, 0, 0};
    const LinLayout *ll = v->ll;
    if (!ll) {
        x.lane = L->wave - 1;
        x.warp = L->nw - 1;
        return x;
    }
    for (int which = 0; which < 3; which++) {
        int nb = which == 0 ? ll->nreg : which == 1 ? ll->nlane : ll->nwarp;
        for (int b = 0; b < nb; b++) {
            const int32_t *basis = which == 0 ? ll->reg[b] : which == 1 ? ll->lane[b] : ll->warp[b];
            bool zero = true;
            for (int d = 0; d < ll->rank; d++)
                zero &= basis[d] == 0;
            if (zero)
                *(which == 0 ? &x.reg : which == 1 ? &x.lane : &x.warp) |= 1 << b;
        }
    }
    return x;
}

/* A region of code that only the first copy of a layout's waves runs: a layout whose warp bits have a
 * zero basis gives the same elements to several waves, and when each of them wrote its registers to
 * LDS they would store the same values at the same addresses at the same time, a race (a benign one
 * on the hardware, but reported by the emulator's race checker, and wasted LDS bandwidth). The
 * condition is on the wave index only, uniform in the wave: a scalar branch on the GPU. */
static int copies_mask(Lower *L, const LinLayout *ll)
{
    int bits = __builtin_ctz((unsigned)L->nw), mask = 0;
    for (int b = 0; b < bits; b++) {
        bool zero = true;
        for (int d = 0; ll && b < ll->nwarp && d < ll->rank; d++)
            zero &= ll->warp[b][d] == 0;
        if (zero)
            mask |= 1 << b;
    }
    return mask;
}

bool copies_replicated(Lower *L, const LinLayout *ll)
{
    return copies_mask(L, ll) != 0;
}

LLVMBasicBlockRef copies_begin(Lower *L, const LinLayout *ll)
{
    int mask = copies_mask(L, ll);
    if (!mask)
        return NULL;
    LLVMValueRef first = LLVMBuildICmp(L->b, LLVMIntEQ, LLVMBuildAnd(L->b, L->warp, const_i32(L, mask), ""),
                                       const_i32(L, 0), "first.copy");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "first.copy");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "");
    LLVMBuildCondBr(L->b, first, body, done);
    LLVMPositionBuilderAtEnd(L->b, body);
    return done;
}

void copies_end(Lower *L, LLVMBasicBlockRef done)
{
    if (!done)
        return;
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, done);
}

/* Gives every copy of a replicated atomic's result the value its owner (the copy that performed the
 * atomic) got: owners write their registers to LDS at the elements' row-major offsets, and after a
 * barrier every lane reads its own. */
static void publish_atomic(Lower *L, const Type *t, LVal *res, const Repl *rp, LLVMValueRef owner)
{
    LLVMTypeRef et = llvm_type(L, t);
    const Type *e = ty_elem(t);
    int bytes = e->kind == TY_PTR ? 8 : sk_bits(e->sk) / 8;
    int64_t numel = t->kind == TY_TILE ? ty_numel(t) : 1;
    int base = (lds_free_offset(L) + 15) / 16 * 16;
    if (base + numel * bytes > L->lds_limit) {
        lower_error(L, "the old values of this atomic need %lld bytes of LDS, more than the %d available",
                    (long long)(numel * bytes), L->lds_limit - base);
        return;
    }
    if (base + numel * bytes > L->lds_bytes)
        L->lds_bytes = (int)(base + numel * bytes);
    const LayInfo *li = t->kind == TY_TILE ? lay_info(L, t) : NULL;
    LLVMValueRef *off = ARENA_ARRAY(L->a, LLVMValueRef, res->n + 1);
    for (int r = 0; r < res->n; r++) {
        LLVMValueRef lin = const_i32(L, 0);
        for (int d = 0; li && d < t->rank; d++) {
            int64_t stride = 1;
            for (int k = d + 1; k < t->rank; k++)
                stride *= t->shape[k];
            lin = LLVMBuildAdd(L->b, lin, LLVMBuildMul(L->b, reg_coord(L, li, r, d), const_i32(L, stride), ""), "");
        }
        off[r] = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, lin, const_i32(L, bytes), ""), const_i32(L, base), "");
    }
    tgt_barrier(L); /* the region's previous readers are done */
    LLVMBasicBlockRef wr = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "atomic.publish");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "");
    LLVMBuildCondBr(L->b, owner, wr, done);
    LLVMPositionBuilderAtEnd(L->b, wr);
    for (int r = 0; r < res->n; r++) {
        if (r & rp->reg)
            continue;
        LLVMValueRef p = tgt_lds_ptr(L, off[r]);
        tgt_check(L, p, bytes, EMU_ACCESS_STORE | EMU_ACCESS_LDS);
        LLVMBuildStore(L->b, res->r[r], p);
    }
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, done);
    tgt_barrier(L);
    for (int r = 0; r < res->n; r++) {
        LLVMValueRef p = tgt_lds_ptr(L, off[r]);
        tgt_check(L, p, bytes, EMU_ACCESS_LOAD | EMU_ACCESS_LDS);
        res->r[r] = LLVMBuildLoad2(L->b, et, p, "");
    }
}

/* A masked load without a branch: every lane loads, a masked-off one from tgt_safe_ptr's zeros instead
 * of its own address, and takes `other` where the mask is false (zero needs no select: it is what
 * the masked-off lane read). One basic block instead of two per access: LLVM's code generator costs
 * per block, and its schedulers work within one, so the loads of a loop body can be issued back to
 * back and overlap the loop's arithmetic (matmul's main loop: 222 -> 188 instructions, 19 -> 13
 * s_waitcnt). Used in kernels with a loop only: in a one-shot kernel such as a row softmax, every load
 * would be in flight at once, each with a 64-bit address select (two VGPRs), which cost occupancy
 * (8 -> 4 waves per SIMD for a 4096-wide row) where the branches let loads complete one group at a
 * time; a kernel with a loop issues its loads a tile at a time anyway. */
static void load_selected(Lower *L, const LVal *ptr, const LVal *other, LLVMValueRef m, const int *members, int nm,
                          int vec, int bytes, LLVMTypeRef et, LVal *res, int flags)
{
    LLVMTypeRef vty = vec > 1 ? LLVMVectorType(et, (unsigned)vec) : et;
    LLVMValueRef safe = tgt_safe_ptr(L);
    for (int k = 0; k < nm; k++) {
        int gg = members[k];
        LLVMValueRef p = ptr->r[gg];
        tgt_check_masked(L, p, vec * bytes, flags, m);
        LLVMValueRef got = LLVMBuildLoad2(L->b, vty, LLVMBuildSelect(L->b, m, p, safe, ""), "");
        LLVMSetAlignment(got, (unsigned)(vec * bytes));
        /* a masked-off lane read zeros: only another `other` needs a select */
        bool zero = true;
        LLVMValueRef *os = ARENA_ARRAY(L->a, LLVMValueRef, vec);
        for (int i = 0; i < vec; i++) {
            os[i] = other ? other->r[other->n == 1 ? 0 : gg + i] : NULL;
            zero &= !os[i] || (LLVMIsConstant(os[i]) && LLVMIsNull(os[i]));
        }
        if (!zero)
            got = LLVMBuildSelect(L->b, m, got, vector_of(L, et, os, vec), "");
        unvec(L, got, res->r + gg, vec);
    }
}

/* The vector a store writes for the group of registers g .. g + vec - 1. */
static LLVMValueRef store_vector(Lower *L, const LVal *val, int g, int vec, LLVMTypeRef et)
{
    LLVMValueRef *xs = ARENA_ARRAY(L->a, LLVMValueRef, vec);
    for (int i = 0; i < vec; i++)
        xs[i] = val->r[val->n == 1 ? 0 : g + i];
    return vector_of(L, et, xs, vec);
}

/* emu: the kernel argument the pointer derives from (compute_provenance), for fns->check to hold the
 * access to that argument's allocation; 0 (any allocation) when not known. */
static int provenance_flags(Lower *L, const Value *ptr)
{
    int32_t p = L->prov && L->t->checked ? L->prov[ptr->scratch] : 0;
    if (p <= 0)
        return 0;
    int off = L->arg_off[p - 1];
    if (off % 8 || off / 8 > EMU_ACCESS_ARG_MAX)
        return 0;
    return EMU_ACCESS_ARG | (off / 8) << EMU_ACCESS_ARG_SHIFT;
}

void lower_memory(Lower *L, Op *op)
{
    bool is_load = op->code == OP_LOAD, is_store = op->code == OP_STORE;
    bool atomic = !is_load && !is_store;
    int nval = op->code == OP_STORE ? 1 : op->code == OP_ATOMIC_RMW ? 1 : op->code == OP_ATOMIC_CAS ? 2 : 0;
    int mask_i = is_load ? (op->nopnds == 3 ? 1 : -1) : (op->nopnds == 2 + nval ? 1 + nval : -1);
    const Type *pt = op->operands[0]->type;
    const Type *vt = is_store ? op->operands[1]->type : op->results[0].type;
    int bytes = elem_bytes(vt);
    LLVMTypeRef et = llvm_type(L, vt);
    LVal *ptr = lval(L, op->operands[0]);
    LVal *mask = mask_i >= 0 ? lval(L, op->operands[mask_i]) : NULL;
    LVal *other = is_load && op->nopnds == 3 ? lval(L, op->operands[2]) : NULL;
    LVal *vals[2] = {nval > 0 ? lval(L, op->operands[1]) : NULL, nval > 1 ? lval(L, op->operands[2]) : NULL};
    int n = ptr->n;
    if (!lower_budget(L, n, true))
        return;
    const Value *mask_v = mask_i >= 0 ? op->operands[mask_i] : NULL;
    int vec = atomic ? 1 : vector_width(L, pt, bytes, op->operands[0], mask_v);
    LVal res = lval_new(L, n, ptr->ll);
    int flags = is_load ? EMU_ACCESS_LOAD : is_store ? EMU_ACCESS_STORE : EMU_ACCESS_ATOMIC;
    if (atomic && op->at.sem != SEM_RELAXED)
        flags |= (op->at.sem != SEM_RELEASE ? EMU_ACCESS_ACQUIRE : 0) | (op->at.sem != SEM_ACQUIRE ? EMU_ACCESS_RELEASE : 0);
    flags |= provenance_flags(L, op->operands[0]);
    /* A scalar atomic that orders (a lock, a flag, a counter) is one lane's on behalf of the whole
     * program instance, whose other accesses its waves share: a releasing one waits for every wave's
     * earlier accesses (a barrier before it), and every wave's later accesses wait for an acquiring one
     * (a barrier after it; publish_atomic's serves when the old value is used). A tile atomic orders
     * the accesses of the lane that performs each element, as on the GPU. */
    bool program_order = atomic && L->nw > 1 && pt->kind != TY_TILE && op->at.sem != SEM_RELAXED;
    if (program_order && op->at.sem != SEM_ACQUIRE)
        tgt_barrier(L);
    /* emu: a write takes effect after the wave's earlier accesses and before its later ones */
    if (!is_load)
        tgt_wave_fence(L);
    /* atomics: the owner of each element, and whether other copies need its result */
    Repl rp = {0, 0, 0};
    LLVMValueRef owner = NULL;
    if (atomic || is_store) {
        rp = replication(L, ptr);
        if (rp.lane || rp.warp)
            owner = LLVMBuildAnd(L->b,
                                 LLVMBuildICmp(L->b, LLVMIntEQ, LLVMBuildAnd(L->b, L->lane, const_i32(L, rp.lane), ""),
                                               const_i32(L, 0), ""),
                                 LLVMBuildICmp(L->b, LLVMIntEQ, LLVMBuildAnd(L->b, L->warp, const_i32(L, rp.warp), ""),
                                               const_i32(L, 0), ""),
                                 "owner");
    }
    /* emu: a tile load by a wave holding a second copy is not a read the race checker counts */
    if (L->t->checked && is_load && pt->kind == TY_TILE) {
        Repl lr = replication(L, ptr);
        if (lr.warp)
            L->check_or = LLVMBuildSelect(L->b,
                                          LLVMBuildICmp(L->b, LLVMIntNE, LLVMBuildAnd(L->b, L->warp, const_i32(L, lr.warp), ""),
                                                        const_i32(L, 0), ""),
                                          const_i32(L, EMU_ACCESS_REPLICA), const_i32(L, 0), "replica");
    }
    /* Loads under one mask value share one branch: a mask broadcast along rows (matmul's k tail) gives
     * every row a lane holds the same value, and one exec-mask switch then covers all of them. */
    int bparam = buffer_param(L, op, vt);
    /* a buffer access's uniform guard, in its resource; the lanes' mask is then `rest` */
    const Value *rest = NULL;
    const Value *guard = bparam >= 0 && HOOKS->buffer_guard ? uniform_guard(op, mask_i, &rest) : NULL;
    LVal *lane_mask = rest ? lval(L, rest) : NULL;
    LLVMValueRef guarded = NULL;
    bool batch = is_load && mask && mask->n > 1 && !owner && bparam < 0;
    /* A masked store in a loop: its values, one vector per group, built before its first branch and
     * kept there by the target (keep_above), with the loads they come from (see the top of the file).
     * Elsewhere each vector is built in its group's branch. */
    LLVMValueRef *stored = NULL;
    if (is_store && mask && tir_in_loop(op) && HOOKS->keep_above && bparam < 0) {
        stored = ARENA_ARRAY(L->a, LLVMValueRef, n / vec + 1);
        for (int g = 0; g < n; g += vec)
            stored[g / vec] = store_vector(L, vals[0], g, vec, et);
        tgt_keep_above(L, stored, n / vec);
    }
    char *taken = batch ? ARENA_ARRAY(L->a, char, n + 1) : NULL;
    int *members = ARENA_ARRAY(L->a, int, n / vec + 1);
    LLVMValueRef *gots = ARENA_ARRAY(L->a, LLVMValueRef, n / vec + 1);
    for (int g = 0; g < n; g += vec) {
        LLVMValueRef m = mask ? mask->r[mask->n == 1 ? 0 : g] : NULL;
        if (batch && taken[g])
            continue; /* loaded with an earlier group under the same mask */
        if (is_store && (g & rp.reg))
            continue; /* a copy of register g & ~rp.reg, stored by it */
        if (atomic && (g & rp.reg)) {
            res.r[g] = NULL; /* a copy of register g & ~rp.reg, filled in below */
            continue;
        }
        int nm = 0;
        members[nm++] = g;
        for (int g2 = g + vec; batch && m && !LLVMIsAConstantInt(m) && g2 < n; g2 += vec)
            if (mask->r[g2] == m) {
                members[nm++] = g2;
                taken[g2] = 1;
            }
        if (m && LLVMIsAConstantInt(m)) {
            if (!LLVMConstIntGetZExtValue(m)) {
                for (int i = 0; i < vec && is_load; i++)
                    res.r[g + i] = other->r[other->n == 1 ? 0 : g + i];
                if (atomic)
                    res.r[g] = LLVMConstNull(et);
                continue; /* never accessed */
            }
            m = NULL;
        }
        LLVMValueRef full = m; /* the whole mask, for `other` */
        if (guard) {
            m = lane_mask ? lane_mask->r[lane_mask->n == 1 ? 0 : g] : NULL;
            if (m && LLVMIsAConstantInt(m))
                m = LLVMConstIntGetZExtValue(m) ? NULL : m;
        }
        if (owner) /* stores and atomics: `full` is only for a load's `other` */
            m = m ? LLVMBuildAnd(L->b, m, owner, "") : owner;
        if (bparam >= 0) {
            LLVMTypeRef vty = vec > 1 ? LLVMVectorType(et, (unsigned)vec) : et;
            LLVMValueRef rsrc;
            LLVMValueRef off = buffer_offset(L, bparam, ptr->r[g], m, &rsrc);
            if (guard) {
                if (!guarded)
                    guarded = HOOKS->buffer_guard(L, lval(L, &L->f->body->args[bparam])->r[0], rsrc,
                                                  lval(L, guard)->r[0]);
                rsrc = guarded;
            }
            if (is_store) {
                HOOKS->buffer_store(L, rsrc, off, store_vector(L, vals[0], g, vec, et), flags);
                continue;
            }
            LLVMValueRef got = HOOKS->buffer_load(L, rsrc, off, vty, flags);
            bool zero = true;
            LLVMValueRef *os = ARENA_ARRAY(L->a, LLVMValueRef, vec);
            for (int i = 0; i < vec; i++) {
                os[i] = other ? other->r[other->n == 1 ? 0 : g + i] : NULL;
                zero &= !os[i] || (LLVMIsConstant(os[i]) && LLVMIsNull(os[i]));
            }
            if (full && !zero) /* a lane out of range read zeros */
                got = LLVMBuildSelect(L->b, full, got, vector_of(L, et, os, vec), "");
            unvec(L, got, res.r + g, vec);
            continue;
        }
        if (is_load && m && L->has_loop) {
            load_selected(L, ptr, other, m, members, nm, vec, bytes, et, &res, flags);
            continue;
        }
        LLVMBasicBlockRef from = NULL, body = NULL, done = NULL;
        if (m) {
            from = LLVMGetInsertBlock(L->b);
            body = LLVMAppendBasicBlockInContext(L->ctx, L->fn, is_load ? "ld" : "st");
            done = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "");
            LLVMBuildCondBr(L->b, m, body, done);
            LLVMPositionBuilderAtEnd(L->b, body);
        }
        LLVMTypeRef vty = vec > 1 ? LLVMVectorType(et, (unsigned)vec) : et;
        for (int k = 0; k < nm; k++) {
            int gg = members[k];
            LLVMValueRef p = ptr->r[gg];
            tgt_check(L, p, vec * bytes, flags);
            LLVMValueRef got = NULL;
            if (is_load) {
                got = LLVMBuildLoad2(L->b, vty, p, "");
                LLVMSetAlignment(got, (unsigned)(vec * bytes));
            } else if (is_store) {
                LLVMValueRef v = stored ? stored[gg / vec] : store_vector(L, vals[0], gg, vec, et);
                LLVMValueRef st = LLVMBuildStore(L->b, v, p);
                LLVMSetAlignment(st, (unsigned)(vec * bytes));
            } else {
                LLVMValueRef xs[2];
                for (int j = 0; j < nval; j++)
                    xs[j] = vals[j]->r[vals[j]->n == 1 ? 0 : gg];
                got = atomic_one(L, op, p, xs);
            }
            gots[k] = got;
        }
        LLVMBasicBlockRef end = m ? LLVMGetInsertBlock(L->b) : NULL;
        if (m) {
            LLVMBuildBr(L->b, done);
            LLVMPositionBuilderAtEnd(L->b, done);
        }
        for (int k = 0; k < nm; k++) {
            int gg = members[k];
            LLVMValueRef got = gots[k];
            if (m && got) {
                LLVMValueRef phi = LLVMBuildPhi(L->b, vty, "");
                LLVMValueRef alt;
                if (other) {
                    LLVMValueRef *os = ARENA_ARRAY(L->a, LLVMValueRef, vec);
                    for (int i = 0; i < vec; i++)
                        os[i] = other->r[other->n == 1 ? 0 : gg + i];
                    /* build the alternative in the entry of the branch, before it */
                    LLVMPositionBuilderBefore(L->b, LLVMGetBasicBlockTerminator(from));
                    alt = vector_of(L, et, os, vec);
                    LLVMPositionBuilderAtEnd(L->b, done);
                } else {
                    alt = LLVMConstNull(vty);
                }
                LLVMAddIncoming(phi, &got, &end, 1);
                LLVMAddIncoming(phi, &alt, &from, 1);
                gots[k] = phi;
            }
        }
        for (int k = 0; k < nm; k++) /* after all the phis, which head their block */
            if (gots[k])
                unvec(L, gots[k], res.r + members[k], vec);
    }
    L->check_or = NULL;
    if (!is_load)
        tgt_wave_fence(L);
    if (atomic) {
        for (int g = 0; g < n; g++)
            if (g & rp.reg)
                res.r[g] = res.r[g & ~rp.reg];
        bool publish = owner && L->uses[op->results[0].scratch] > 0;
        if (publish)
            publish_atomic(L, vt, &res, &rp, owner);
        else if (program_order && op->at.sem != SEM_RELEASE)
            tgt_barrier(L);
    }
    if (op->nres)
        lval_set(L, op_result(op, 0), res);
}
