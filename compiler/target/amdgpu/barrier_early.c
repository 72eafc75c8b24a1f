/* The barrier before a reduction's LDS writes on gfx9 (TargetHooks.lds_barrier_early, called by
 * compiler/lower/lower_reduce.c): placed where the waves wait anyway, while the block's loads are in
 * flight, instead of where LLVM 22's scheduler puts it, after the ALU work on those loads (rk's loop
 * model charged KL divergence's loop the barrier's 64 cycles on top of the loads' latency; Triton's
 * LLVM puts its barrier right after the loads).
 *
 * Where the block's last instruction that may touch memory or has an effect (a store, a load, a fence,
 * a call other than a pure intrinsic) is a load of global memory, the block (the builder at its end,
 * no terminator yet) is rearranged:
 *   1. the barrier (LDS-only workgroup fences around s_barrier, then sched_barrier(0), which LLVM's
 *      scheduler moves nothing across) goes right after that load;
 *   2. the ALU work before it that waits for a load of the block (its value computed from one) and
 *      feeds nothing that stays above is moved after the barrier, in its order;
 *   3. the loads before it that nothing above the barrier uses, back to the last instruction that is
 *      neither pure nor a load, are issued last before the barrier, in the order their values are
 *      first needed, so that the first waits leave the later loads in flight.
 * Only instructions that touch no memory move, and loads past loads and such instructions; nothing
 * leaves the block. Elsewhere (after an LDS read, a store, a call) it does nothing and says so: the
 * reduction's plain barrier before its writes. */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "compiler/lower/lower_internal.h"
#include "compiler/target/target_hooks.h"

/* intrinsics that compute a value from their operands alone */
static bool pure_intrinsic(LLVMValueRef call)
{
    LLVMValueRef f = LLVMGetCalledValue(call);
    if (!f || !LLVMIsAFunction(f) || !LLVMGetIntrinsicID(f))
        return false;
    size_t n;
    const char *name = LLVMGetValueName2(f, &n);
    static const char *const pure[] = {"llvm.amdgcn.update.dpp.", "llvm.amdgcn.mov.dpp.", "llvm.amdgcn.readlane.",
                                       "llvm.amdgcn.readfirstlane.", "llvm.amdgcn.ldexp.", "llvm.maximum",
                                       "llvm.minimum", "llvm.maxnum.", "llvm.minnum.", "llvm.smax.", "llvm.smin.",
                                       "llvm.umax.", "llvm.umin.", "llvm.fma.", "llvm.fmuladd.", "llvm.fabs.",
                                       "llvm.exp.", "llvm.exp2.", "llvm.log.", "llvm.log2.", "llvm.sqrt.",
                                       "llvm.copysign.", "llvm.floor.", "llvm.ceil."};
    for (size_t k = 0; k < sizeof pure / sizeof pure[0]; k++)
        if (!strncmp(name, pure[k], strlen(pure[k])))
            return true;
    return false;
}

/* no memory access, no effect: may move anywhere in the block after its operands */
static bool is_pure(LLVMValueRef i)
{
    switch (LLVMGetInstructionOpcode(i)) {
    case LLVMLoad: case LLVMStore: case LLVMFence: case LLVMAtomicRMW: case LLVMAtomicCmpXchg: case LLVMPHI:
    case LLVMInvoke: case LLVMVAArg: case LLVMLandingPad: case LLVMAlloca:
        return false;
    case LLVMCall:
        return pure_intrinsic(i);
    default:
        return !LLVMIsATerminatorInst(i);
    }
}

/* a load of global memory: a non-volatile load outside LDS, or a buffer load */
static bool is_vmem_load(LLVMValueRef i)
{
    if (LLVMGetInstructionOpcode(i) == LLVMLoad)
        return !LLVMGetVolatile(i) && LLVMGetPointerAddressSpace(LLVMTypeOf(LLVMGetOperand(i, 0))) != 3;
    if (LLVMGetInstructionOpcode(i) != LLVMCall)
        return false;
    LLVMValueRef f = LLVMGetCalledValue(i);
    size_t n;
    const char *name = f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, &n) : "";
    return !strncmp(name, "llvm.amdgcn.raw.ptr.buffer.load.", 32) || !strncmp(name, "llvm.amdgcn.raw.buffer.load.", 28);
}

/* loads only read: a later load may be issued before an earlier one */
static bool only_reads(LLVMValueRef i)
{
    return LLVMGetInstructionOpcode(i) == LLVMLoad ? !LLVMGetVolatile(i) && !LLVMGetOrdering(i) : is_vmem_load(i);
}

/* instruction -> its index in the block (open addressing; the block's instructions only) */
typedef struct {
    LLVMValueRef *key;
    int *val;
    uint32_t mask;
} Index;

static uint32_t slot_of(const Index *m, LLVMValueRef v)
{
    uint64_t h = (uint64_t)(uintptr_t)v * 0x9e3779b97f4a7c15ull;
    uint32_t s = (uint32_t)(h >> 32) & m->mask;
    while (m->key[s] && m->key[s] != v)
        s = (s + 1) & m->mask;
    return s;
}

static int index_of(const Index *m, LLVMValueRef v)
{
    uint32_t s = slot_of(m, v);
    return m->key[s] ? m->val[s] : -1;
}

/* where the first instruction that computes with v (through casts and element moves) will be:
 * pos[] of each instruction of the block, INT_MAX outside it */
static int first_need(const Index *m, const int *pos, LLVMValueRef v, int depth)
{
    int best = INT_MAX;
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        int k = index_of(m, user);
        if (k < 0)
            continue;
        LLVMOpcode op = LLVMGetInstructionOpcode(user);
        bool moves = op == LLVMBitCast || op == LLVMExtractElement || op == LLVMShuffleVector || op == LLVMInsertElement;
        int p = moves && depth < 4 ? first_need(m, pos, user, depth + 1) : pos[k];
        if (p < best)
            best = p;
    }
    return best;
}

bool amdgpu_lds_barrier_early(Lower *L, void (*barrier_lds)(Lower *L))
{
    LLVMBasicBlockRef bb = LLVMGetInsertBlock(L->b);
    int n = 0;
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
        n++;
    LLVMValueRef *ins = ARENA_ARRAY(L->a, LLVMValueRef, n + 1);
    int k = 0;
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
        ins[k++] = i;
    int stop = n - 1; /* the last instruction that stays above the barrier */
    while (stop >= 0 && is_pure(ins[stop]))
        stop--;
    /* only where loads of global memory are in flight (and the builder at the block's end): else the
     * caller's barrier before its writes, where LLVM's scheduler puts it */
    if (stop < 0 || !is_vmem_load(ins[stop]) || LLVMGetBasicBlockTerminator(bb))
        return false;
    barrier_lds(L); /* appended: fence, s_barrier, fence, sched_barrier */
    LLVMValueRef bar = LLVMGetNextInstruction(ins[n - 1]);
    int run = stop; /* loads from here to stop may be reordered */
    while (run > 0 && (is_pure(ins[run - 1]) || only_reads(ins[run - 1])))
        run--;
    Index m;
    uint32_t cap = 16;
    while (cap < 2u * (uint32_t)n)
        cap *= 2;
    m.key = ARENA_ARRAY(L->a, LLVMValueRef, cap);
    m.val = ARENA_ARRAY(L->a, int, cap);
    m.mask = cap - 1;
    memset(m.key, 0, cap * sizeof *m.key);
    for (int j = 0; j < n; j++) {
        uint32_t s = slot_of(&m, ins[j]);
        m.key[s] = ins[j], m.val[s] = j;
    }
    /* 2. what waits for a load: pure, computed from a load of the block or from such an instruction */
    char *waits = ARENA_ARRAY(L->a, char, n + 1), *sink = ARENA_ARRAY(L->a, char, n + 1), *late = ARENA_ARRAY(L->a, char, n + 1);
    memset(waits, 0, (size_t)n + 1), memset(sink, 0, (size_t)n + 1), memset(late, 0, (size_t)n + 1);
    for (int j = 0; j <= stop; j++) {
        if (!is_pure(ins[j]))
            continue;
        for (int o = 0, no = LLVMGetNumOperands(ins[j]); o < no && !waits[j]; o++) {
            int d = index_of(&m, LLVMGetOperand(ins[j], o));
            waits[j] = d >= 0 && d < j && (is_vmem_load(ins[d]) || waits[d]);
        }
    }
    /* an instruction moves below when every user in the block is below the barrier or moves too */
    for (int j = stop; j >= 0; j--) {
        bool movable = waits[j] || (j >= run && is_vmem_load(ins[j]));
        for (LLVMUseRef u = LLVMGetFirstUse(ins[j]); movable && u; u = LLVMGetNextUse(u)) {
            int d = index_of(&m, LLVMGetUser(u));
            movable = d < 0 || d > stop || sink[d];
        }
        if (movable && waits[j])
            sink[j] = 1;
        else if (movable)
            late[j] = 1;
    }
    /* positions after the move: the sunk instructions (in order), then the rest of the block */
    int *pos = ARENA_ARRAY(L->a, int, n + 1), nsink = 0;
    for (int j = 0; j < n; j++)
        pos[j] = j <= stop ? (sink[j] ? nsink++ : INT_MAX) : 0;
    for (int j = stop + 1; j < n; j++)
        pos[j] = nsink + j;
    int *order = ARENA_ARRAY(L->a, int, n + 1), *need = ARENA_ARRAY(L->a, int, n + 1), nlate = 0;
    for (int j = run; j <= stop; j++)
        if (late[j]) { /* insertion sort by first need, stable */
            int key = first_need(&m, pos, ins[j], 0), p = nlate++;
            while (p > 0 && need[p - 1] > key)
                order[p] = order[p - 1], need[p] = need[p - 1], p--;
            order[p] = j, need[p] = key;
        }
    /* rebuild the block: what stays above, the loads, the barrier, what waited, the rest */
    LLVMBuilderRef b = LLVMCreateBuilderInContext(L->ctx);
    LLVMPositionBuilderAtEnd(b, bb);
    LLVMValueRef moved[4];
    int nb = 0;
    for (LLVMValueRef i = bar; i; i = LLVMGetNextInstruction(i))
        moved[nb++] = i;
    for (int j = 0; j < nb; j++)
        LLVMInstructionRemoveFromParent(moved[j]);
    int first = 0;
    while (first <= stop && !sink[first] && !late[first])
        first++;
    for (int j = first; j < n; j++)
        LLVMInstructionRemoveFromParent(ins[j]);
    for (int j = first; j <= stop; j++)
        if (!sink[j] && !late[j])
            LLVMInsertIntoBuilder(b, ins[j]);
    for (int j = 0; j < nlate; j++)
        LLVMInsertIntoBuilder(b, ins[order[j]]);
    for (int j = 0; j < nb; j++)
        LLVMInsertIntoBuilder(b, moved[j]);
    for (int j = first; j <= stop; j++)
        if (sink[j])
            LLVMInsertIntoBuilder(b, ins[j]);
    for (int j = stop + 1; j < n; j++)
        LLVMInsertIntoBuilder(b, ins[j]);
    LLVMDisposeBuilder(b);
    LLVMPositionBuilderAtEnd(L->b, bb);
    return true;
}
