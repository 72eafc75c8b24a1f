/* Buffer addressing of pointer parameters with the fact NAME<2G (AMD targets and emu:
 * Target.buffer_range32; docs/internals.md, "Buffer addressing"): which accesses take it
 * (buffer_param), the 32-bit offset of an access with its masked-off lanes out of range
 * (buffer_offset), a mask's uniform conjunct moved into the resource (uniform_guard), and loop-carried
 * pointers carried as their 32-bit distances (buffer_carry_offsets). lower_mem.c does the accesses. */
#include "compiler/lower/lower_internal.h"

enum { BUFFER_OUT_OF_RANGE = (int)0x80000000u }; /* 2^31: no in-bounds offset under the fact */

/* Buffer addressing (AMD targets and emu: Target.buffer_range32). A load or store whose pointer
 * derives from a pointer parameter with the fact NAME<2G (Func.range32; compute_provenance: the
 * parameter plus offsets) addresses it as the parameter's buffer resource and a 32-bit byte offset,
 * the pointer's distance from the parameter truncated to 32 bits. The fact makes that exact: every
 * in-bounds byte lies in [NAME, NAME + 2^31), and the low 32 bits of a difference are those of the
 * same sum, product or shift computed in 32 bits, which is what LLVM then narrows the offset to. A
 * masked-off lane's offset is 2^31, outside the resource, so it loads 0 and stores nothing, with no
 * branch and no 64-bit address select (`other` other than 0 is selected after the load). Pointers
 * to pointers and bools keep the 64-bit path. Returns the parameter, or -1. */
int buffer_param(Lower *L, const Op *op, const Type *vt)
{
    if (!L->t->buffer_range32 || !HOOKS->buffer_load || !L->f->range32 || !L->prov)
        return -1;
    if (op->code != OP_LOAD && op->code != OP_STORE)
        return -1;
    const Type *e = ty_elem(vt);
    if (e->kind == TY_PTR || e->sk == SK_BOOL)
        return -1;
    int32_t p = L->prov[op->operands[0]->scratch];
    if (p <= 0 || p > 64 || !(L->f->range32 >> (p - 1) & 1))
        return -1;
    return p - 1;
}

/* Whether every use of pointer v in the loop body `body` only observes its offset from parameter j
 * modulo 2^32: buffer accesses through j, pointer arithmetic and shape ops whose results do the same,
 * and the body's yield at position `slot` (v going round as the same loop value). */
static bool offset_only(Lower *L, const Block *body, const Block *b, const Value *v, int j, int slot, int depth)
{
    if (depth > 16)
        return false;
    for (const Op *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++)
            if (!offset_only(L, body, op->regions[r], v, j, slot, depth))
                return false;
        for (int k = 0; k < op->nopnds; k++) {
            if (op->operands[k] != v)
                continue;
            bool ok;
            if (op_carries_operand0(op->code)) {
                ok = offset_only(L, body, body, &op->results[0], j, slot, depth + 1);
            } else switch (op->code) {
            case OP_ADDPTR:
            case OP_SELECT:
                ok = (op->code == OP_ADDPTR ? k == 0 : k > 0) &&
                     offset_only(L, body, body, &op->results[0], j, slot, depth + 1);
                break;
            case OP_LOAD:
                ok = k == 0 && buffer_param(L, op, op->results[0].type) == j;
                break;
            case OP_STORE:
                ok = k == 0 && buffer_param(L, op, op->operands[1]->type) == j;
                break;
            case OP_YIELD:
                ok = op->parent == body && k == slot;
                break;
            default:
                ok = false;
            }
            if (!ok)
                return false;
        }
    }
    return true;
}

/* Whether a loop phi's value only goes round the loop: its one user, a chain of address computations
 * each with one user, comes back to it (the registers of a carried pointer tile that no access
 * uses, which LLVM deletes, but not once an opaque step sits in the cycle). */
static bool only_itself(LLVMValueRef phi)
{
    LLVMValueRef v = phi;
    for (int d = 0; d < 4; d++) {
        LLVMUseRef u = LLVMGetFirstUse(v);
        if (!u || LLVMGetNextUse(u))
            return false;
        LLVMValueRef user = LLVMGetUser(u);
        if (user == phi)
            return true;
        if (!LLVMIsAGetElementPtrInst(user))
            return false;
        v = user;
    }
    return false;
}

/* A loop-carried pointer tile whose provenance is a parameter with NAME<2G goes round the loop as a
 * 64-bit pointer, and each buffer access takes its distance from the parameter anew. Where nothing in
 * the loop observes more than that distance modulo 2^32 (offset_only) and the loop's final value is
 * unused, it goes round as that distance instead, an i32 phi (exact for every use: the low 32 bits of
 * a sum, product or shift are those of the same in 32 bits), and the pointer is rebuilt in the header
 * as the parameter plus it, which LLVM folds away. The advance passes through the target's `opaque`
 * (AMD: an empty asm), which hides the recurrence from LLVM's loop strength reduction: it would
 * otherwise split each distance into an induction variable and a loop-invariant part that every
 * access adds again (matmul's A loads, 256x128 tile: 8 v_add_u32 an iteration). */
void buffer_carry_offsets(Lower *L, Op *loop, LLVMValueRef *phis, LLVMBasicBlockRef pre, LLVMBasicBlockRef header,
                          LLVMBasicBlockRef latch)
{
    if (!L->t->buffer_range32 || !HOOKS->buffer_load || !L->f->range32 || !L->prov)
        return;
    Block *body = op_block(loop, 0);
    int k = 0;
    for (int i = 1; i < body->nargs; i++) {
        Value *arg = &body->args[i];
        const Type *t = arg->type;
        int nr = t->kind == TY_TILE && !lower_is_shared_tile(t) ? lin_nregs(&lay_info(L, t)->ll) : 1;
        const Type *e = ty_elem(t);
        int32_t p = e->kind == TY_PTR ? L->prov[arg->scratch] : 0;
        bool ok = p > 0 && p <= 64 && (L->f->range32 >> (p - 1) & 1) && e->pointee->kind != TY_PTR &&
                  e->pointee->sk != SK_BOOL && L->uses[loop->results[i - 1].scratch] == 0 &&
                  offset_only(L, body, body, arg, p - 1, i - 1, 0);
        if (!ok) {
            k += nr;
            continue;
        }
        LLVMValueRef base = lval(L, &L->f->body->args[p - 1])->r[0];
        for (int r = 0; r < nr; r++, k++) {
            LLVMValueRef phi = phis[k];
            if (!LLVMIsAPHINode(phi) || LLVMGetTypeKind(LLVMTypeOf(phi)) != LLVMPointerTypeKind ||
                LLVMCountIncoming(phi) != 2 || LLVMGetIncomingBlock(phi, 0) != pre ||
                LLVMGetIncomingBlock(phi, 1) != latch || only_itself(phi))
                continue;
            LLVMBasicBlockRef bbs[2] = {pre, latch};
            LLVMValueRef dist[2];
            for (int s = 0; s < 2; s++) {
                LLVMPositionBuilderBefore(L->b, LLVMGetBasicBlockTerminator(bbs[s]));
                LLVMValueRef d = LLVMBuildSub(L->b, LLVMBuildPtrToInt(L->b, LLVMGetIncomingValue(phi, (unsigned)s), L->i64, ""),
                                              LLVMBuildPtrToInt(L->b, base, L->i64, ""), "");
                dist[s] = LLVMBuildTrunc(L->b, d, L->i32, "dist");
            }
            if (HOOKS->opaque && t->kind == TY_TILE) /* a scalar's is uniform: SALU, and no VGPR for it */
                dist[1] = HOOKS->opaque(L, dist[1]);
            LLVMPositionBuilder(L->b, header, phi);
            LLVMValueRef d = LLVMBuildPhi(L->b, L->i32, "dist");
            LLVMAddIncoming(d, dist, bbs, 2);
            LLVMPositionBuilderBefore(L->b, LLVMGetBasicBlockTerminator(header));
            LLVMValueRef wide = LLVMBuildZExt(L->b, d, L->i64, "");
            LLVMValueRef q = LLVMBuildGEP2(L->b, L->i8, base, &wide, 1, "");
            LLVMReplaceAllUsesWith(phi, q);
            LLVMInstructionEraseFromParent(phi);
            phis[k] = q;
        }
    }
}

/* The conjunct of a buffer access's mask that is one scalar bool for the whole program instance (a
 * splat of it: the pipeliner's "iteration i + S - 1 exists", pipeline.c), or NULL; *rest is the
 * mask's other conjunct, NULL when the mask is the splat alone. Such a guard goes into the resource
 * (HOOKS->buffer_guard: no records when it is false) instead of into every lane's mask, where it
 * was one s_and_b64 per distinct mask a loop iteration. */
const Value *uniform_guard(const Op *op, int mask_i, const Value **rest)
{
    *rest = NULL;
    if (mask_i < 0)
        return NULL;
    const Value *m = op->operands[mask_i];
    const Op *d = m->def;
    if (!d)
        return NULL;
    if (d->code == OP_SPLAT && d->operands[0]->type->kind != TY_TILE)
        return d->operands[0];
    if (d->code != OP_AND)
        return NULL;
    for (int i = 0; i < 2; i++) {
        const Op *s = d->operands[i]->def;
        if (s && s->code == OP_SPLAT && s->operands[0]->type->kind != TY_TILE &&
            d->operands[1 - i]->type == m->type) {
            *rest = d->operands[1 - i];
            return s->operands[0];
        }
    }
    return NULL;
}

/* The 32-bit byte offset of pointer p from parameter j's value, out of range where m is false. */
LLVMValueRef buffer_offset(Lower *L, int j, LLVMValueRef p, LLVMValueRef m, LLVMValueRef *rsrc)
{
    if (!L->rsrc)
        L->rsrc = ARENA_ARRAY(L->a, LLVMValueRef, L->f->body->nargs + 1);
    LLVMValueRef base = lval(L, &L->f->body->args[j])->r[0];
    if (!L->rsrc[j])
        L->rsrc[j] = HOOKS->buffer_rsrc(L, base);
    *rsrc = L->rsrc[j];
    LLVMValueRef d = LLVMBuildSub(L->b, LLVMBuildPtrToInt(L->b, p, L->i64, ""), LLVMBuildPtrToInt(L->b, base, L->i64, ""), "");
    LLVMValueRef off = LLVMBuildTrunc(L->b, d, L->i32, "boff");
    return m ? LLVMBuildSelect(L->b, m, off, const_i32(L, BUFFER_OUT_OF_RANGE), "") : off;
}
