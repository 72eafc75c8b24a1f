/* Loads, stores and atomics. A lane moves `vec` registers at once when its layout gives it that many
 * consecutive elements along the fastest dimension (coalesce chose vec from the axis analysis, which
 * proved the pointers contiguous and aligned and the mask constant over them). A masked group is
 * loaded or stored under a branch, so masked-off lanes never touch memory; on the emulator every
 * access is checked first. */
#include "compiler/lower/lower_internal.h"
#include "runtime/emu/emu_abi.h"

static int elem_bytes(const Type *t)
{
    const Type *e = ty_elem(t);
    if (e->kind == TY_PTR)
        return 8;
    return e->sk == SK_BOOL ? 1 : sk_bits(e->sk) / 8;
}

/* Registers per access: the elements a lane holds consecutively along the memory-contiguous dimension
 * — a blocked layout's elements per lane along its fastest dimension, or for other layouts (a store
 * straight from an accumulator) the run of register bits along the last dimension, which layout
 * assignment chose only where the axis analysis allows it — at most 16 bytes. */
static int vector_width(Lower *L, const Type *t, int bytes)
{
    const Layout *l = t->layout;
    if (t->kind != TY_TILE || !l)
        return 1;
    int v;
    if (l->kind == LAY_BLOCKED) {
        v = l->spt[l->order[0]];
        if (v > (int)t->shape[l->order[0]])
            v = (int)t->shape[l->order[0]];
    } else {
        const LinLayout *ll = &lay_info(L, t)->ll;
        int k = 0, last = t->rank - 1;
        while (k < ll->nreg && ll->reg[k][last] == (1 << k)) {
            bool only = true;
            for (int d = 0; d < last; d++)
                only &= ll->reg[k][d] == 0;
            if (!only)
                break;
            k++;
        }
        v = 1 << k;
    }
    while (v > 1 && v * bytes > 16)
        v /= 2;
    return v > 0 ? v : 1;
}

static LLVMValueRef vec_of(Lower *L, LLVMTypeRef et, LLVMValueRef *xs, int n)
{
    if (n == 1)
        return xs[0];
    LLVMValueRef v = LLVMGetUndef(LLVMVectorType(et, (unsigned)n));
    for (int i = 0; i < n; i++)
        v = LLVMBuildInsertElement(L->b, v, xs[i], const_i32(L, i), "");
    return v;
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
    if (L->emu)
        return; /* the host has one scope */
    const char *s = scope == SCOPE_CTA ? "workgroup" : scope == SCOPE_GPU ? "agent" : NULL;
    if (s)
        LLVMSetAtomicSyncScopeID(inst, LLVMGetSyncScopeID(L->ctx, s, strlen(s)));
}

static LLVMValueRef atomic_one(Lower *L, Op *op, LLVMValueRef ptr, LLVMValueRef *vals)
{
    const Type *et = ty_elem(op->results[0].type);
    LLVMAtomicOrdering ord = ordering(op->at.sem);
    if (op->code == OP_ATOMIC_CAS) {
        LLVMValueRef x = LLVMBuildAtomicCmpXchg(L->b, ptr, vals[0], vals[1], ord,
                                                ord == LLVMAtomicOrderingRelease ? LLVMAtomicOrderingMonotonic
                                                : ord == LLVMAtomicOrderingAcquireRelease ? LLVMAtomicOrderingAcquire
                                                                                          : ord,
                                                0);
        set_scope(L, x, op->at.scope);
        return LLVMBuildExtractValue(L->b, x, 0, "");
    }
    bool fl = sk_is_float(et->sk), sg = sk_is_signed(et->sk);
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
    LLVMValueRef x = LLVMBuildAtomicRMW(L->b, bop, ptr, vals[0], ord, 0);
    set_scope(L, x, op->at.scope);
    return x;
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
    int vec = atomic ? 1 : vector_width(L, pt, bytes);
    LVal res = lval_new(L, n, ptr->ll);
    int flags = is_load ? EMU_ACCESS_LOAD : is_store ? EMU_ACCESS_STORE : EMU_ACCESS_ATOMIC;
    for (int g = 0; g < n; g += vec) {
        LLVMValueRef p = ptr->r[g];
        LLVMValueRef m = mask ? mask->r[mask->n == 1 ? 0 : g] : NULL;
        if (m && LLVMIsAConstantInt(m)) {
            if (!LLVMConstIntGetZExtValue(m)) {
                for (int i = 0; i < vec && is_load; i++)
                    res.r[g + i] = other->r[other->n == 1 ? 0 : g + i];
                continue; /* never accessed */
            }
            m = NULL;
        }
        LLVMBasicBlockRef from = NULL, body = NULL, done = NULL;
        if (m) {
            from = LLVMGetInsertBlock(L->b);
            body = LLVMAppendBasicBlockInContext(L->ctx, L->fn, is_load ? "ld" : "st");
            done = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "");
            LLVMBuildCondBr(L->b, m, body, done);
            LLVMPositionBuilderAtEnd(L->b, body);
        }
        tgt_check(L, p, vec * bytes, flags);
        LLVMTypeRef vty = vec > 1 ? LLVMVectorType(et, (unsigned)vec) : et;
        LLVMValueRef got = NULL;
        if (is_load) {
            got = LLVMBuildLoad2(L->b, vty, p, "");
            LLVMSetAlignment(got, (unsigned)(vec * bytes));
        } else if (is_store) {
            LLVMValueRef *xs = ARENA_ARRAY(L->a, LLVMValueRef, vec);
            for (int i = 0; i < vec; i++)
                xs[i] = vals[0]->r[vals[0]->n == 1 ? 0 : g + i];
            LLVMValueRef s = LLVMBuildStore(L->b, vec_of(L, et, xs, vec), p);
            LLVMSetAlignment(s, (unsigned)(vec * bytes));
        } else {
            LLVMValueRef xs[2];
            for (int k = 0; k < nval; k++)
                xs[k] = vals[k]->r[vals[k]->n == 1 ? 0 : g];
            got = atomic_one(L, op, p, xs);
        }
        if (m) {
            LLVMBasicBlockRef end = LLVMGetInsertBlock(L->b);
            LLVMBuildBr(L->b, done);
            LLVMPositionBuilderAtEnd(L->b, done);
            if (got) {
                LLVMValueRef phi = LLVMBuildPhi(L->b, vty, "");
                LLVMValueRef alt;
                if (other) {
                    LLVMValueRef *os = ARENA_ARRAY(L->a, LLVMValueRef, vec);
                    for (int i = 0; i < vec; i++)
                        os[i] = other->r[other->n == 1 ? 0 : g + i];
                    /* build the alternative in the entry of the branch, before it */
                    LLVMPositionBuilderBefore(L->b, LLVMGetBasicBlockTerminator(from));
                    alt = vec_of(L, et, os, vec);
                    LLVMPositionBuilderAtEnd(L->b, done);
                } else {
                    alt = LLVMConstNull(vty);
                }
                LLVMAddIncoming(phi, &got, &end, 1);
                LLVMAddIncoming(phi, &alt, &from, 1);
                got = phi;
            }
        }
        if (got)
            unvec(L, got, res.r + g, vec);
    }
    if (op->nres)
        lval_set(L, op_result(op, 0), res);
}
