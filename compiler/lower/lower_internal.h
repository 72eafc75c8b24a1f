/* Shared state of the lowering (the files of compiler/lower). See lower.h. */
#ifndef RK_LOWER_INTERNAL_H
#define RK_LOWER_INTERNAL_H

#include <llvm-c/Core.h>
#include <stdio.h>
#include <string.h>

#include "compiler/lower/lower.h"
#include "compiler/passes/axis_info.h"
#include "compiler/target/target.h"
#include "compiler/target/target_hooks.h"

/* A lowered LIR value: one LLVM value per register (scalars: n == 1, ll == NULL). */
typedef struct LVal {
    LLVMValueRef *r;
    int n;
    const LinLayout *ll;
} LVal;

typedef struct Lower Lower;
typedef struct CoveredPiece CoveredPiece;
typedef struct Ring Ring; /* lower_async.c */

/* A tensor whose boxes TMA copies into stage buffers (lower_tma.c), read from plan_async's
 * description (Func.tma). */
typedef struct TmaTensor {
    int rank;        /* 2, or 3: a batch of matrices */
    PlanLin dim[3];  /* elements along the inner, the outer and the batch dimension: kernel arguments */
    bool open[3];    /* the dimension is as long as the allocation */
    int box[2];      /* elements: inner (one copy's line), outer (lines) */
    int swizzle;     /* bytes: 32, 64, 128 */
    int param;       /* the LLVM parameter holding its map */
    const char *spec; /* the runtime's description */
} TmaTensor;

/* Per-layout facts computed once per kernel: the linear layout and, per dimension, this lane's (and
 * wave's) part of the coordinates as LLVM values. */
typedef struct LayInfo {
    const Type *type; /* the tile type (shape + layout) */
    LinLayout ll;
    LLVMValueRef lane_coord[TIR_MAX_RANK]; /* i32: lane part + wave part of each coordinate */
    struct LayInfo *next;
} LayInfo;

struct Lower {
    Arena *a;
    Diags *diags;
    const LowerOptions *o;
    const Target *t; /* its facts and hooks: the lowering never asks for its name */
    Func *f;
    bool debug, failed;
    int wave, nw;
    int lane_accesses; /* elements per lane of the kernel's memory accesses so far (lower_budget) */
    int lane_regs;     /* registers per lane of the kernel's values so far (lower_budget) */
    const char *over_sum; /* the message for the first op that passed a sum (lower_budget), and where */
    SrcPos over_sum_pos;
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    LLVMBuilderRef setup; /* positioned at the end of the setup block */
    LLVMValueRef fn;
    /* emu: the EmuLane pointer and its function table */
    LLVMValueRef lane_ptr, fns;
    LLVMValueRef buffer_slot; /* emu: the 16-byte stack slot buffer accesses pass their data through */
    /* ids, computed in the entry block */
    LLVMValueRef tid, lane, warp;
    /* LDS: one scratch array; lds_bytes grows to the largest need */
    LLVMValueRef lds;
    int lds_bytes, lds_limit;
    /* emu wave order: accesses emitted so far (checks), and the block and count at the last fence */
    unsigned accesses, fence_accesses;
    LLVMBasicBlockRef fence_block;
    LLVMValueRef check_or; /* emu: i32 flags or'ed into every check while set (EMU_ACCESS_REPLICA) */
    int lds_static;       /* bytes at the bottom reserved for the stage buffers (cp.async) */
    int lds_floor;        /* where free LDS starts: lds_static, or 0 once no stage buffer is used again (as
                           * allocate_lds has it: a deferred operand's first region there needs a barrier) */
    bool lds_read;        /* an LDS read was emitted since the last barrier (its readers may still run) */
    Op *rot_loop;         /* the loop whose body is being lowered, where it has rotated dot operands */
    bool rot_done;        /* its rotated writes were emitted by its dot (defer_rotate_write) */
    /* that loop's global loads its dot issues among its MFMAs (lower_next_covered): loads before the
     * dot whose tiles only the body's yield reads, skipped where they stand */
    Op **covered;
    int ncovered;
    const Op *cover_dot;
    struct DotCarry *carry; /* the loop whose body is being lowered: its dot that may carry MFMAs */
    int loop_depth;         /* loops around the op being lowered */
    bool spends;            /* a choice spent VGPRs for cycles that LowerChoice.frugal would not */
    bool drain_capped;      /* LowerResult.drain_capped */
    bool drain_raised;      /* LowerResult.drain_raised */
    bool choice_read;       /* LowerResult.choice_read (lower_choice) */
    /* lower_covered_row: the loads' vector memory instructions taken out of the block, each with what
     * uses its value, put back pieces_per_row after each of the dot's rows (-1: not split) */
    struct CoveredPiece {
        LLVMValueRef *ins;
        int n;
    } *pieces;
    int npieces, next_piece, pieces_per_row;
    int shared_loads;     /* loads into stage buffers not lowered yet */
    Ring **ring_of;       /* by value id: the stage buffers of a shared tile (lower_async.c) */
    int *ring_slot;       /* by value id: its fixed buffer, or -1 (the loop's load) */
    bool has_loop;        /* the kernel has a for or while loop (lower_mem.c: masked loads) */
    bool wgmma;           /* a dot of the kernel has a wgmma layout: async_wait fences the async proxy */
    /* a loop body whose wgmma stays in flight into the next iteration (lower_wgmma.c): its ring loads'
     * copies are held until the dot has waited for the previous iteration's group */
    bool hold_copies;
    int nheld, held_cap, held_base; /* held[held_base .. nheld): this loop's */
    struct HeldCopy {
        Op *op;
        LLVMValueRef buf;
        bool barrier_first;
    } *held;
    bool *inflight;       /* by value id: a dot result whose wgmma group may still be running */
    TmaTensor *tma;       /* tensors copied by TMA: one hidden kernel parameter each (lower_tma.c) */
    int ntma, tma_cap;
#define MAX_TMA_RINGS 16
    Ring *tma_rings[MAX_TMA_RINGS]; /* the rings filled by TMA (their barriers) */
    int ntma_rings;
    int cp_buffers; /* rings and buffers filled by cp.async */
    int tma_flag;   /* shared-memory word set when a TMA copy had a negative coordinate */
    bool tma_checked; /* tma_check done, before the flag's memory was reused */
    bool async_synced;    /* the copies issued so far were waited for (no copy since the last wait) */
    LVal *vals; /* by value id (Value.scratch) */
    int32_t *prov; /* emu, and kernels with NAME<2G facts on targets with buffer addressing, by value id:
                      1 + the parameter a pointer derives from, or 0 (compute_provenance) */
    LLVMValueRef *rsrc; /* by parameter: its buffer resource (HOOKS->buffer_rsrc), made on first use */
    int *arg_off;  /* emu, by parameter: its byte offset in the kernarg block */
    int *uses;  /* by value id: number of uses */
    const AxisInfo **axis; /* by value id: the axis analysis of the function as lowered (constancy) */
    /* dot operands left in LDS for the dot to read k step by k step (lower_convert.c): by value id */
    struct Deferred **deferred;
    LayInfo *lays;
    /* common types */
    LLVMTypeRef i1, i8, i16, i32, i64, f16, bf16, f32, f64, ptr_g, ptr_lds, ptr0, void_t;
    SrcPos pos; /* of the op being lowered */
    const Op *op; /* the op being lowered (NULL before the first) */
    /* with LowerOptions.remarks (lds_banks.c): the LDS accesses of the op being lowered, writes and
     * reads, and the remarks made so far (in the diagnostics' arena) */
    struct LdsNote {
        const Type *type;            /* the tile moved */
        int accesses, conflicted;    /* accesses, and those whose lanes meet in a bank */
        int ways, ex_lane[2], ex_bank; /* the worst: lanes served one after another, an example */
        int64_t ex_addr[2];
        int narrow, bits, widest;    /* accesses narrower than the widest; the narrowest, per lane */
        bool rotated;                /* written before a loop and again in it (lds_note_rotated) */
    } lds_notes[2][4]; /* [writes, reads][one per tile type: a dot reads A and B] */
    struct Remark *remarks;
    int nremarks, remarks_cap;
};

/* ---- lds_banks.c: LDS remarks ---- */
/* One LDS access, as the lowering emits it: `run` elements of `bytes` bytes per lane, starting with
 * register r of the layout ll, at byte base + bytes * index(map, coordinates of that element). */
typedef struct LdsAccess {
    const LinLayout *ll;
    int r, run, bytes;
    int64_t base;
    int64_t (*index)(const void *map, const int64_t *coords);
    const void *map;
    int widest; /* the widest access possible in bytes, for the narrow remark; 0: all that a lane holds
                   of the tile, up to 128 bits */
} LdsAccess;
/* Notes one access of the op being lowered (write or read of tile type t): how many lanes' accesses
 * one LDS bank serves one after another, and whether it is narrower than the tile allows. Only with
 * LowerOptions.remarks. */
void lds_note(Lower *L, bool write, const Type *t, const LdsAccess *acc);
/* Coordinates of the element of register r in lane `lane` of wave `warp`. */
void lds_element_coords(const LinLayout *ll, int r, int lane, int warp, int64_t *c);
/* c ^= the coordinates' part that lane `lane` of wave `warp` contributes (lds_element_coords is
 * register r's coordinates with this applied). */
void lds_xor_lane(const LinLayout *ll, int lane, int warp, int64_t *c);
/* The most words one bank serves in a pass of the access, in wave 0 (the lowering's choices). */
int lds_ways(Lower *L, const LdsAccess *acc);
/* The LDS clocks of the access in wave 0: the sum over its passes of each pass's ways (a conflict-free
 * access takes one clock a pass, 4 * lds_banks bytes); its worst pass's ways times `weight` added to
 * *ways where not NULL (lds_ways). */
long lds_clocks(Lower *L, const LdsAccess *acc, long *ways, int weight);

/* ---- lower_dot.c ---- */
/* The workgroups a CU holds at once when each takes lds_bytes of LDS (0: the LDS does not limit). */
int lower_lds_workgroups(const Lower *L, int64_t lds_bytes);
/* The registers a lane may use without fewer waves a SIMD than that LDS allows (its workgroups a CU
 * times the workgroup's simd_waves waves a SIMD), at most max_vgprs_per_lane. */
int lower_lds_budget(const Lower *L, int64_t lds_bytes, int simd_waves);

/* ---- reg_pressure.c ---- */
/* An estimate of the vector registers a lane holds through the innermost loop around op (0 outside
 * loops): the float tiles the loop carries and reads from outside, and its dots' operands; in *lds
 * (where not NULL) the bytes of those operands that wait in LDS (allocate_lds's defer), what a stage
 * of them takes there. */
int lower_loop_pressure(const Lower *L, const Op *op, int64_t *lds);
/* Turns the op's notes into remarks and clears them (after each op). */
void lds_note_flush(Lower *L);
/* The pending writes' notes count twice: a rotated operand's tile is written before its loop and,
 * with the same map, again in the loop's body, whose writes note nothing (lower_convert.c). */
void lds_note_rotated(Lower *L);

/* ---- lower_core.c ---- */
void lower_error(Lower *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
LVal *lval(Lower *L, const Value *v);
void lval_set(Lower *L, const Value *v, LVal x);
LVal lval_new(Lower *L, int n, const LinLayout *ll);
/* Whether n registers per lane (a memory access's elements when `access`) are within the compile
 * budget; else a located error and false (lower_core.c says why). Past a kernel's sums the first op
 * is remembered and lower_budget_end, after the kernel's ops, reports it. */
bool lower_budget(Lower *L, int n, bool access);
void lower_budget_end(Lower *L);
LLVMTypeRef llvm_type(Lower *L, const Type *t); /* element type for tiles */
int lower_nregs(Lower *L, const Type *t); /* registers a lane holds of a value (1: scalars, shared tiles) */
const LayInfo *lay_info(Lower *L, const Type *t);
/* This lane's coordinate along dim for register r, as an i32 value. */
LLVMValueRef reg_coord(Lower *L, const LayInfo *li, int r, int dim);
LLVMValueRef const_i32(Lower *L, int64_t v);
/* A vector of n elements of type et (n == 1: xs[0] itself). When the elements are lanes of at most four
 * vectors of that type (extractelement with constant indices: a tile's registers are often the lanes
 * of one load), the vector is that vector or shufflevectors of them, not n insertelements that LLVM's
 * SLP vectoriser and instcombine would have to fold again. */
LLVMValueRef vector_of(Lower *L, LLVMTypeRef et, LLVMValueRef *xs, int n);
LLVMValueRef const_i64(Lower *L, int64_t v);
const char *site_of(Lower *L); /* "file:line:col" of the op being lowered */
LLVMValueRef global_string(Lower *L, const char *s);

/* lower_mem.c: code between copies_begin and copies_end runs only in the waves that hold the first copy
 * of ll's elements (all of them when ll has no replicated warp bit: then begin returns NULL and emits
 * nothing). For writes of a tile to LDS, which the other copies would repeat. */
LLVMBasicBlockRef copies_begin(Lower *L, const LinLayout *ll);
bool copies_replicated(Lower *L, const LinLayout *ll); /* does copies_begin branch? */
void copies_end(Lower *L, LLVMBasicBlockRef done);

/* ---- lower_llvm.c: LLVM helpers, and the generic parts of the hooks ---- */
LLVMValueRef lower_intrinsic(Lower *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, int n);
LLVMValueRef lower_call(Lower *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *pt, LLVMValueRef *args, int n);
/* Marks a call's result noundef: ids and matrix results are never undef or poison. */
LLVMValueRef lower_noundef(Lower *L, LLVMValueRef call_inst);
/* A single-thread fence: no instruction, but memory written as far as LLVM's optimisers know (the
 * emulator's keep_above hook). */
void lower_compiler_barrier(Lower *L, LLVMValueRef *vals, int n);
void lower_fn_attr(Lower *L, const char *k, const char *v);
/* lower_elem.c's intrinsic call, the name suffixed by the type (llvm.fma -> llvm.fma.f32) */
LLVMValueRef lower_typed_call(Lower *L, const char *name, LLVMTypeRef t, LLVMValueRef *args, int n);
/* A GPU kernel's signature (its parameters, then TMA's tensor maps) and parameter values. */
void gpu_signature(Lower *L, int np);
void gpu_params(Lower *L, int np);
void lower_param_set(Lower *L, int i, LLVMValueRef v); /* lower_core.c: parameter i's value */
static inline int align_up(int v, int a) { return (v + a - 1) / a * a; }
/* How the driver asks for the kernel to be lowered (LowerOptions.choice). Every read goes through
 * here: a lowering that never reads it is the same whatever a retry asks (LowerResult.choice_read). */
static inline const LowerChoice *lower_choice(Lower *L)
{
    L->choice_read = true;
    return &L->o->choice;
}
/* The waves a SIMD the kernel asks for (waves_per_eu), or the driver for it (LowerChoice.min_waves:
 * its retry of a kernel a few VGPRs short of more waves); 0: none. They cap its registers. */
static inline int lower_waves_asked(Lower *L)
{
    return L->f->opts.waves_per_eu > 0 ? L->f->opts.waves_per_eu : lower_choice(L)->min_waves;
}
LLVMValueRef tgt_lds_ptr(Lower *L, LLVMValueRef byte_offset); /* pointer into LDS scratch */
/* A pointer to 16 zero bytes (16-byte aligned, read-only global memory): what a masked-off lane of a
 * branch-free masked load reads instead of its own address. */
LLVMValueRef tgt_safe_ptr(Lower *L);
/* A call of inline assembly (side effects, AT&T dialect) with the given operand constraints. */
LLVMValueRef tgt_inline_asm(Lower *L, LLVMTypeRef ret, LLVMTypeRef *pt, LLVMValueRef *args, int n, const char *text,
                            const char *constraints);
/* Float remainder (C's fmod): frem, or the exact function where the target asks (lower_fmod.c). */
LLVMValueRef tgt_frem(Lower *L, LLVMValueRef a, LLVMValueRef b, ScalarKind sk); /* sk: the operands' type */
/* exp, exp2, log, log2 of an f64 as rk's own functions (lower_f64math.c); NULL for anything else */
LLVMValueRef lower_f64_math(Lower *L, OpCode code, LLVMValueRef x);
/* compiler/target/nvptx: sm_90's math and remainder, which the emulator of sm_90 runs too */
LLVMValueRef nvptx_math(Lower *L, OpCode code, LLVMValueRef a);
bool nvptx_exact_frem(Lower *L, LLVMTypeRef t, ScalarKind sk);
/* lower_nvmath.c: sin, cos, log, log2 of an f32 on sm_90 (accurate; NVPTX has no libm). */
LLVMValueRef nvmath_call(Lower *L, OpCode code, LLVMValueRef x);

/* ---- the target's hooks (compiler/target/target_hooks.h), as the lowering calls them ---- */
#define HOOKS (L->t->hooks)
void tgt_entry(Lower *L); /* lower_core.c: ids and LDS base, in the entry block */
/* lower_hooks.c: the hooks with what every target does around them */
static inline LLVMValueRef tgt_program_id(Lower *L, int axis) { return HOOKS->program_id(L, axis); }
static inline LLVMValueRef tgt_num_programs(Lower *L, int axis) { return HOOKS->num_programs(L, axis); }
static inline void tgt_barrier(Lower *L)
{
    L->lds_read = false;
    HOOKS->barrier(L);
}
/* the target's lds_barrier_early: true where it placed the barrier */
static inline bool tgt_lds_barrier_early(Lower *L)
{
    if (!HOOKS->lds_barrier_early || !HOOKS->lds_barrier_early(L))
        return false;
    L->lds_read = false;
    return true;
}
/* emu: waits for every lane of the wave (fns->wave_fence), so that the memory accesses emitted before
 * it take effect before those after it, across the wave's lanes; a no-op on the GPU targets, whose
 * waves issue in order. Skipped where nothing was accessed since the last fence in the block. */
static inline void tgt_wave_fence(Lower *L)
{
    if (HOOKS->wave_fence)
        HOOKS->wave_fence(L);
}
/* Reads `value` (i32) from lane `src_lane` (i32) of this wave. */
static inline LLVMValueRef tgt_shuffle(Lower *L, LLVMValueRef value, LLVMValueRef src_lane)
{
    return HOOKS->shuffle(L, value, src_lane);
}
/* One matrix instruction: a, b as the instruction's operand vectors, c the accumulator vector. */
LLVMValueRef tgt_mfma(Lower *L, int instr, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c);
/* One mma.sync m16n8k16 (NvMmaOp): a[4], b[2] packed pairs; acc[4] f32, updated in place. */
void tgt_mma_sync(Lower *L, int instr, LLVMValueRef *a, LLVMValueRef *b, LLVMValueRef *acc);
/* Checks an access (emu only; a no-op on the GPUs): ptr of `bytes`, flags EMU_ACCESS_*. */
void tgt_check(Lower *L, LLVMValueRef ptr, int bytes, int flags);
/* The same for a lane whose access happens only where m (i1) is true: no check where it is false. */
void tgt_check_masked(Lower *L, LLVMValueRef ptr, int bytes, int flags, LLVMValueRef m);
static inline void tgt_assert_fail(Lower *L, const char *msg) { HOOKS->assert_fail(L, msg); }
static inline void tgt_print(Lower *L, const char *msg, int rank, LLVMValueRef *coords, int kind, LLVMValueRef bits64)
{
    if (HOOKS->print)
        HOOKS->print(L, msg, rank, coords, kind, bits64);
}
static inline void tgt_keep_above(Lower *L, LLVMValueRef *vals, int n)
{
    if (HOOKS->keep_above)
        HOOKS->keep_above(L, vals, n);
}
/* What may cross a tgt_sched_barrier (the bits of llvm.amdgcn.sched.barrier's mask). */
enum {
    SCHED_ALLOW_ALU = 0x1,      /* every non-memory instruction without side effects (VALU, SALU, MFMA) */
    SCHED_ALLOW_VALU = 0x2,
    SCHED_ALLOW_SALU = 0x4,
    SCHED_ALLOW_MFMA = 0x8,
    SCHED_ALLOW_VMEM = 0x10,
    SCHED_ALLOW_DS_WRITE = 0x200,
    SCHED_ALLOW_TRANS = 0x400,
};
static inline void tgt_sched_barrier(Lower *L, unsigned allow)
{
    if (HOOKS->sched_barrier)
        HOOKS->sched_barrier(L, allow);
}
/* Before the end-of-body writes of rotated dot operands (lower_convert.c): every instruction after
 * it stays below it, and every one before it above, except matrix instructions, which may cross it
 * and overlap the writes; so the registers' repacking for the writes, and its wait for the loads,
 * stay after the body's reads. */
static inline void tgt_sched_fence(Lower *L) { tgt_sched_barrier(L, SCHED_ALLOW_MFMA); }
static inline void tgt_loop_tick(Lower *L)
{
    if (HOOKS->loop_tick)
        HOOKS->loop_tick(L);
}
/* A math function the target computes its own way (sm_90: no libm; AMD: exp from v_exp_f32); NULL
 * when the generic LLVM intrinsic serves. */
static inline LLVMValueRef tgt_math(Lower *L, OpCode code, LLVMValueRef a)
{
    return HOOKS->math ? HOOKS->math(L, code, a) : NULL;
}
static inline void tgt_finish(Lower *L) { HOOKS->finish(L); } /* kernel attributes, LDS size */

/* ---- lower_fp.c: 16-bit floats (i16 bit patterns on the emulator) ---- */
bool fp_is16(ScalarKind sk);
LLVMValueRef fp_to_f32(Lower *L, LLVMValueRef v, ScalarKind sk);
LLVMValueRef fp_from_f32(Lower *L, LLVMValueRef f, ScalarKind sk);
LLVMValueRef fp_from_f64(Lower *L, LLVMValueRef d, ScalarKind sk);
/* ---- lower_fpmath.c: contraction, NaN-propagating max/min chains by parts ---- */
LLVMValueRef fpmath_contract(Lower *L, LLVMValueRef v); /* v, with the contract flag where allowed */
void fpmath_split_max_chains(Lower *L);                 /* after the lowering of a function */
bool fpmath_pairable(Lower *L, const Op *op);           /* f32 add, sub, mul, fma done in pairs */
bool fpmath_pair(Lower *L, const Op *op, LLVMValueRef *xs0, LLVMValueRef *xs1, int k, LLVMValueRef out[2]);
LLVMValueRef fp_up(Lower *L, LLVMValueRef v, ScalarKind sk);   /* to a type LLVM computes in */
LLVMValueRef fp_down(Lower *L, LLVMValueRef v, ScalarKind sk); /* back, rounded once */
LLVMValueRef fp_const(Lower *L, double v, ScalarKind sk);

/* ---- lower_async.c: cp.async stage buffers (sm_90) ---- */
bool lower_is_shared_tile(const Type *t); /* a tile in shared memory: its value is a byte offset */
void async_setup(Lower *L, Func *f);      /* the stage buffers as plan_async placed them, before lowering */
void lower_async_load(Lower *L, Op *op);
void async_wait(Lower *L, const Op *reader); /* before `reader` reads its shared tile operand */
void async_after_loop(Lower *L, const Op *loop);
void async_init(Lower *L); /* at the kernel's start: the TMA rings' barriers */
/* Issues the copies held by the current loop (hold_copies); synced: every thread passed a barrier after the buffers'
 * last readers, so none needs a barrier of its own. */
void async_release(Lower *L, bool synced);
/* Byte offset, from a stage buffer's start, of 16-byte chunk `chunk` (i32) of line `line` (i32) of a
 * buffer of `lines` lines of `pitch` bytes. Lines of up to 128 bytes follow each other; longer ones
 * are cut into 128-byte columns, each column's lines together (lines x 128 bytes), one column after
 * the other. Chunks are XOR-swizzled by bits 7.. of that offset (lines of 32, 64 or 128 bytes: 2, 4
 * or 8 chunks), which is wgmma's 32-, 64- or 128-byte swizzle over a 1024-byte aligned buffer, and
 * lets ldmatrix's eight rows land in different banks. */
LLVMValueRef stage_chunk_offset(Lower *L, LLVMValueRef line, LLVMValueRef chunk, int64_t pitch, int64_t lines);

/* ---- lower_tma.c: stage buffers filled by TMA (sm_90) ---- */
/* The tensors of plan_async's descriptions (Func.tma), before the signature is built: each becomes a
 * parameter. */
void tma_setup(Lower *L, Func *f);
void tma_bind_params(Lower *L, int np); /* the tensor map parameters' attributes, after np real ones */
const char *tma_spec(Lower *L);         /* the runtime's description of the parameters, NULL if none */
/* The S barriers at byte offset bars: initialised at the kernel's start, invalidated before their
 * memory is reused. */
void tma_init(Lower *L, int bars, int S, bool last); /* last: then fence and synchronise */
void tma_init_done(Lower *L); /* the initialisations' fence, then a block barrier */
void tma_inval(Lower *L, int bars, int S);
/* The negative-coordinate flag: cleared at the start, checked at every return (a trap if set). */
void tma_flag_init(Lower *L);
void tma_check(Lower *L);
/* Thread 0 copies load's box (its plan's coordinates) into buffer buf (byte offset), completing on
 * barrier `slot` (i32). */
void tma_issue(Lower *L, const Op *load, int tensor, int bars, LLVMValueRef slot, LLVMValueRef buf);
/* Every thread waits for phase `parity` (i32 0/1) of barrier `slot`. */
void tma_wait(Lower *L, int bars, LLVMValueRef slot, LLVMValueRef parity);

/* ---- per op family ---- */
void lower_elementwise(Lower *L, Op *op);  /* lower_elem.c: arithmetic, casts, math, consts, shapes */
void lower_memory(Lower *L, Op *op);       /* lower_mem.c: load, store, atomics */
/* lower_buffer.c: buffer addressing under NAME<2G. The parameter an access addresses as a buffer, or
 * -1 (vt: the value loaded or stored); the conjunct of its mask (operand mask_i) that is one scalar of
 * the program instance, or NULL, with the rest in *rest; the 32-bit offset of pointer p from parameter
 * j, out of range where m is false (its resource in *rsrc); and a loop's carried pointers into such a
 * parameter that only buffer accesses observe, carried as their 32-bit distances (phis: the header's,
 * one per register of the loop's carried values after the induction variable's; replaced where
 * changed). */
int buffer_param(Lower *L, const Op *op, const Type *vt);
const Value *uniform_guard(const Op *op, int mask_i, const Value **rest);
LLVMValueRef buffer_offset(Lower *L, int j, LLVMValueRef p, LLVMValueRef m, LLVMValueRef *rsrc);
void buffer_carry_offsets(Lower *L, Op *loop, LLVMValueRef *phis, LLVMBasicBlockRef pre, LLVMBasicBlockRef header,
                          LLVMBasicBlockRef latch);
void lower_convert(Lower *L, Op *op);      /* lower_convert.c: convert_layout, reshape, permute */
void lower_reduce(Lower *L, Op *op);       /* lower_reduce.c: reduce, argreduce, scan */
void lower_dot(Lower *L, Op *op);          /* lower_dot.c: FMA and MFMA */
void lower_debug(Lower *L, Op *op);        /* lower_debug.c: assert, print */

/* Moves a tile between layouts through LDS (also used by reductions and reshape). */
LVal lds_transfer(Lower *L, const LVal *src, const Type *from, const Type *to);

/* A dot operand written to LDS by its convert and read by the dot itself, k step by k step. */
typedef struct Deferred {
    const Type *to;   /* the dot_op tile type */
    int offset;       /* byte offset of its LDS region */
    int bytes;        /* element size */
    int64_t shape[TIR_MAX_RANK];
    int rank, vec, nch, pp, xs, xl; /* the swizzled row-major map (lower_convert.c's Lds) */
    int pad;                /* elements after each row (AMD: against bank conflicts), row pitch shape[1] + pad */
    bool ldsm;              /* sm_90: read with ldmatrix (16-byte chunks swizzled by row / pp) */
    LLVMValueRef base_v;    /* the region's offset as a value (a cp.async stage buffer), else offset */
    bool kmajor;        /* B stored transposed: k is the fastest dimension */
    bool stage;         /* a cp.async stage buffer (base_v), lines placed by stage_chunk_offset */
} Deferred;
/* Reads `n` consecutive registers starting at r of a deferred operand (n > 1 only when they are
 * consecutive in LDS). */
void deferred_read(Lower *L, const Deferred *d, int r, int n, LLVMValueRef *out);
int64_t deferred_read_distance(Lower *L, const Deferred *d, int r0, int r1);
/* A `for` loop's deferred operands that allocate_lds rotated (`rotate`): their initial tiles written
 * before the loop (true when there are any), the yielded ones at the body's end behind a barrier. */
bool defer_rotate_begin(Lower *L, Op *loop);
void defer_rotate_end(Lower *L, Op *loop);
int defer_rotate_early(Lower *L, const Op *dot, int64_t *bytes);
void defer_rotate_write(Lower *L, int lo, int hi);
/* The bytes the workgroup writes of the rotated operands that `dot` reads (0: none, or no rotation). */
int64_t defer_rotate_bytes(Lower *L, const Op *dot);
/* lower_covered.c: a rotated loop's covered loads (Lower.covered), found before its body is lowered;
 * the next lowered where the builder stands (false: none left), or issued in pieces after a row of
 * the dot's MFMAs, spread over `rows` rows (false: none left); the pieces not issued yet, issued. */
void lower_find_covered(Lower *L, Block *body);
bool lower_next_covered(Lower *L);
bool lower_covered_row(Lower *L, int rows);
void lower_covered_flush(Lower *L);
/* lower_carry.c: a loop's dot that issues its last rows of MFMAs in the next iteration. lower_for
 * finds the candidate (lower_find_carry: the loop's initial values `inits`, flat), dot_mfma decides
 * and fills in the rest, lower_for completes the phis (lower_carry_latch) and issues the last
 * iteration's carried MFMAs after the loop on the accumulator's registers (lower_carry_exit). */
#define MAX_CARRY 64
typedef struct DotCarry {
    const Op *dot;    /* the candidate */
    int off, nregs;   /* its accumulator's registers among the loop's flat values */
    LLVMBasicBlockRef pre, header;
    int n, nphi;      /* carried MFMAs (0: the dot carries none), operand phis */
    LLVMValueRef phi[MAX_CARRY], next[MAX_CARRY]; /* the phis at the header, their values at the latch */
    int tile[MAX_CARRY], a[MAX_CARRY], b[MAX_CARRY]; /* per MFMA: accumulator tile, operand phis */
    int instr, nacc;
    bool transposed;
    LLVMTypeRef acc_type;
} DotCarry;
bool lower_find_carry(Lower *L, Block *body, LLVMValueRef *inits, DotCarry *c);
LLVMValueRef lower_carry_phi(Lower *L, DotCarry *c, LLVMTypeRef t); /* phi[nphi]; the caller counts it */
void lower_carry_latch(DotCarry *c, LLVMBasicBlockRef latch);
void lower_carry_exit(Lower *L, const DotCarry *c, LLVMValueRef *regs);
/* The address of the 16-byte chunk `chunk` of row `row` of a deferred operand (A: rows are m; B:
 * rows are n when k-major, else k), after the swizzle. */
LLVMValueRef deferred_chunk_ptr(Lower *L, const Deferred *d, LLVMValueRef row, LLVMValueRef chunk);
/* sm_90: ldmatrix .x4 (.b16): four 8x8 matrices, lane l giving the address of row l % 8 of matrix
 * l / 8; out[j] = this lane's 32-bit register of matrix j. */
void tgt_ldmatrix_x4(Lower *L, LLVMValueRef ptr, bool trans, LLVMValueRef *out);
/* sm_90: cp.async of `bytes` (4, 8, 16) from global src to shared dst; mask (i1, or NULL for always)
 * false copies nothing and zero-fills dst. Then commit_group, and wait_group n (n < 0: wait_all). */
void tgt_cp_async(Lower *L, LLVMValueRef dst, LLVMValueRef src, int bytes, LLVMValueRef mask);
void tgt_cp_async_commit(Lower *L);
void tgt_cp_async_wait(Lower *L, int n);
/* sm_90a wgmma. tgt_smem_addr: the 32-bit shared-window address of an LDS byte offset (emu: the
 * offset). tgt_fence_proxy_async: fence.proxy.async.shared::cta (generic-proxy writes, cp.async's
 * included, visible to wgmma's reads). tgt_wgmma: one wgmma.mma_async m64nNk16 (n = N) on descriptors
 * a_desc, b_desc (i64), acc[n/2] updated in place; tgt_wgmma_fence before the first of a dot;
 * tgt_wgmma_commit after the last (one group). */
LLVMValueRef tgt_smem_addr(Lower *L, LLVMValueRef byte_offset);
void tgt_fence_proxy_async(Lower *L);
void tgt_wgmma_fence(Lower *L);
void tgt_wgmma(Lower *L, int instr, int n, LLVMValueRef a_desc, LLVMValueRef b_desc, bool trans_b, LLVMValueRef *acc);
void tgt_wgmma_commit(Lower *L);
/* wgmma.wait_group `pending`, the accumulators acc[n] passed through it. */
void tgt_wgmma_wait(Lower *L, LLVMValueRef *acc, int n, int pending);
/* lower_dot.c: this lane's mma.sync A fragment (4 pairs: rows +0/+8, k +0/+8) at register-part
 * origin (m0, k0) of an A operand held in registers (dot_op k_width 2). */
void mma_a_fragment(Lower *L, const LinLayout *la, const LVal *A, int instr, int64_t m0, int64_t k0, LLVMValueRef *out);
/* tgt_wgmma with A from registers (a[4]: this thread's fragment, mma.sync's A fragment of its warp's
 * 16 rows) instead of a descriptor. */
void tgt_wgmma_rs(Lower *L, int instr, int n, LLVMValueRef *a, LLVMValueRef b_desc, bool trans_b, LLVMValueRef *acc);
/* lower_wgmma.c: a dot that plan_async planned as wgmma (`wgmma = 1`: otherwise lower_dot.c issues
 * mma.sync on the same layouts); false (nothing emitted) when its operands are not what that plan
 * saw, an internal error. */
bool lower_dot_wgmma(Lower *L, Op *op);
bool is_wgmma_dot(const Op *op); /* a dot whose accumulator layout is a wgmma one */
/* Around a loop: wgmma_loop_begin before its body (holds the ring copies when its wgmma will stay in
 * flight), wgmma_loop_end after the body, wgmma_after_loop after the loop (waits for the groups still
 * running and passes the accumulators through the wait). */
typedef struct WgmmaLoop {
    bool hold;
    int base;
} WgmmaLoop; /* the enclosing loop's state, restored at the end of a nested one */
WgmmaLoop wgmma_loop_begin(Lower *L, const Block *body);
void wgmma_loop_end(Lower *L, WgmmaLoop outer);
void wgmma_after_loop(Lower *L, Op *loop);
/* The first LDS byte free for the op being lowered (above the stage buffers and the regions of
 * deferred operands): allocate_lds's `lds` on it, 0 when absent. */
int lds_free_offset(Lower *L);

#endif
