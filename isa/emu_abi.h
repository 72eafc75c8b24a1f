/* The contract between code compiled for --target=emu and the emulator that runs it.
 *
 * The emu target lowers a kernel with the gfx942 layouts, exactly as for the GPU, but for the host
 * (emu_sm90 likewise with sm_90's: 32-lane waves, mma.sync, ldmatrix, cp.async):
 * every lane of a workgroup runs the compiled function as its own fiber,
 *
 *     void <kernel>(const void *kernarg, EmuLane *lane);
 *
 * where kernarg is the kernel's argument block with the same layout HIP uses (each argument at its
 * natural alignment, in order). Whatever the GPU gets from hardware registers (lane and workgroup
 * ids, LDS) the emu code reads from EmuLane; whatever needs the other lanes of the wave (permutes,
 * DPP, ballots, MFMA) or of the workgroup (barriers) goes through EmuLane.fns, which suspends the
 * lane until all the lanes involved have arrived and then executes the operation with all their
 * operands at once. Every global and LDS access is checked first (fns->check).
 *
 * The field offsets below are part of the ABI: the lowering computes them from this struct with
 * offsetof, so keep them in one place and append only. */
#ifndef RK_EMU_ABI_H
#define RK_EMU_ABI_H

#include <stdint.h>

typedef struct EmuLane EmuLane;

enum {
    EMU_WAVE = 64,     /* lanes per wave, as on CDNA: the default */
    EMU_WAVE_MIN = 32, /* the other wave size the emulator runs: a 32-lane warp (emu_sm90) */
};

/* A kernel compiled with a wave size other than EMU_WAVE exports, next to its entry point, an i32
 * constant named "<kernel>" EMU_WAVE_SYMBOL_SUFFIX holding it (emu_sm90: 32); the emu device reads it
 * and launches with waves of that many lanes. */
#define EMU_WAVE_SYMBOL_SUFFIX ".rk_wave"

/* fns->check flags (0: the lane's access is masked off, nothing to check) */
enum {
    EMU_ACCESS_LOAD = 1,
    EMU_ACCESS_STORE = 2,
    EMU_ACCESS_ATOMIC = 4,
    EMU_ACCESS_LDS = 8, /* an LDS access (else global) */
    /* with EMU_ACCESS_ATOMIC: the atomic's memory order, for the race checker (relaxed: neither) */
    EMU_ACCESS_ACQUIRE = 16,
    EMU_ACCESS_RELEASE = 32,
    /* a load by a wave that holds a second copy of a tile (a layout whose warp bits replicate): its
     * values reach no store, atomic or LDS transfer (the first copy performs those), so the race
     * checker does not count it */
    EMU_ACCESS_REPLICA = 64,
    /* a global access whose pointer derives from a kernel argument (a pointer; the lowering's
     * compute_provenance): flags bits EMU_ACCESS_ARG_SHIFT and up hold that argument's byte offset in
     * the kernarg block / 8, and the access must lie in the allocation the argument points into, not
     * merely in some allocation (an overrun into a neighbouring buffer is an error). Without the
     * flag, or when the argument points into no allocation, any allocation passes. */
    EMU_ACCESS_ARG = 128,
    EMU_ACCESS_ARG_SHIFT = 16,
    EMU_ACCESS_ARG_MAX = 0x7fff, /* the largest offset / 8 the flags hold */
};

/* Element kinds for fns->print (EMU_PRINT_NONE: print("msg") with no value, the line ends at msg). */
enum { EMU_PRINT_I64, EMU_PRINT_U64, EMU_PRINT_F64, EMU_PRINT_BOOL, EMU_PRINT_PTR, EMU_PRINT_NONE };

typedef struct EmuFns {
    /* s_barrier: waits for every lane of the workgroup. */
    void (*barrier)(EmuLane *l);
    /* ds_bpermute_b32: returns `value` of the lane (byte_addr / 4) % W of this wave (W: its lanes, 64
     * or 32; for 32 this is shfl.sync.idx with every lane active). */
    int32_t (*bpermute)(EmuLane *l, int32_t byte_addr, int32_t value);
    /* ds_permute_b32: sends `value` to lane (byte_addr / 4) % 64; returns what this lane received
     * (0 if nothing). */
    int32_t (*permute)(EmuLane *l, int32_t byte_addr, int32_t value);
    /* v_mov_b32 with DPP (llvm.amdgcn.update.dpp semantics: old, src, dpp_ctrl, row_mask, bank_mask,
     * bound_ctrl), as documented for CDNA3. */
    int32_t (*dpp)(EmuLane *l, int32_t old, int32_t src, int32_t dpp_ctrl, int32_t row_mask, int32_t bank_mask,
                   int32_t bound_ctrl);
    /* v_readlane_b32 (lane % W) and v_readfirstlane_b32. */
    int32_t (*readlane)(EmuLane *l, int32_t value, int32_t lane);
    int32_t (*readfirstlane)(EmuLane *l, int32_t value);
    /* The wave's mask of lanes whose pred is non-zero (bit i: lane i; W bits). */
    uint64_t (*ballot)(EmuLane *l, int32_t pred);
    /* One matrix instruction (op: MfmaOp, isa/mfma.h; 64-lane waves only); a, b, c, d point to this lane's
     * registers. */
    void (*mfma)(EmuLane *l, int32_t op, const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *d);
    /* Checks an access of `bytes` at `addr` (flags: EMU_ACCESS_*) before it happens; an access outside
     * every allocation (global), outside the allocation of the argument it derives from
     * (EMU_ACCESS_ARG) or outside the workgroup's LDS stops the launch with an error naming the
     * kernel, workgroup, lane, address and `site` ("file:line:col"). Does not return then. */
    void (*check)(EmuLane *l, const void *addr, uint64_t bytes, int32_t flags, const char *site);
    /* A failed device_assert: stops the launch with the message and site. Does not return. */
    void (*assert_fail)(EmuLane *l, const char *msg, const char *site);
    /* print("msg", x): one element of x, at its coordinates in the tile (rank 0 for a scalar). */
    void (*print)(EmuLane *l, const char *msg, int32_t rank, const int32_t *coords, int32_t kind, uint64_t bits);
    /* Called on every loop back edge: lets the emulator stop a kernel that runs past RK_EMU_TIMEOUT. */
    void (*tick)(EmuLane *l);
    /* NVIDIA sm_90 semantics (target emu_sm90, 32-lane waves), executed once all 32 lanes of the wave
     * arrived, as the PTX ISA defines them:
     * mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 (op: NvMmaOp, isa/nvmma.h): a[4], b[2] this
     * lane's packed 16-bit pairs, c[4] its accumulators; d[4] receives the result. */
    void (*mma_sync)(EmuLane *l, int32_t op, const uint32_t *a, const uint32_t *b, const float *c, float *d);
    /* ldmatrix.sync.aligned.m8n8.x4{.trans}.shared.b16: `addr` (in this workgroup's LDS, 16-byte
     * aligned) is the 16-byte row this lane gives (row lane % 8 of matrix lane / 8); out[j] receives
     * this lane's 32-bit register of matrix j. */
    void (*ldmatrix)(EmuLane *l, const void *addr, int32_t trans, uint32_t *out);
    /* cp.async.{ca,cg}.shared.global [dst], [src], bytes, src_bytes (bytes: 4, 8 or 16; src_bytes:
     * bytes, or 0 to fill with zeros): this lane's asynchronous copy from global memory to its
     * workgroup's LDS. The destination holds garbage (the LDS poison) from now until the copy is
     * complete, which it is only after a cp_async_wait that covers its group: then the source is read
     * and the bytes land. Both addresses are checked now (as fns->check would, `site` naming the
     * load); the source only when src_bytes > 0. */
    void (*cp_async)(EmuLane *l, void *dst, const void *src, int32_t bytes, int32_t src_bytes, const char *site);
    /* cp.async.commit_group: this lane's copies issued since the last commit form a group. */
    void (*cp_async_commit)(EmuLane *l);
    /* cp.async.wait_group n: completes this lane's groups but the n most recent (wait_all: n = 0 after
     * a commit). */
    void (*cp_async_wait)(EmuLane *l, int32_t n);
    /* wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16} (op: NvMmaOp's wgmma ops, 2 or 3), n its N,
     * a_desc and b_desc the shared-memory descriptors, trans_b its imm-trans-b (B MN-major); acc[n/2]
     * this lane's accumulators, updated in place. Executed at issue (the emulator does not model the
     * instruction running on after wgmma.commit_group); every element read is checked against the
     * workgroup's LDS. */
    void (*wgmma)(EmuLane *l, int32_t op, int32_t n, uint64_t a_desc, uint64_t b_desc, int32_t trans_b, float *acc);
    /* The same with A from registers: a[4] is this lane's mma.sync A fragment of its warp's 16 rows
     * (so the warp's 32 lanes execute it together, as for mma_sync). */
    void (*wgmma_rs)(EmuLane *l, int32_t op, int32_t n, const uint32_t *a, uint64_t b_desc, int32_t trans_b, float *acc);
    /* Wave order, no instruction of its own: returns once every lane of the wave has arrived. A lane
     * runs as its own fiber between wave operations, so without it lane 1's part of one store could
     * land after lane 0's next store; the lowering places it around each operation that writes
     * memory, so that a wave's accesses take effect in program order across its lanes, as a wave's
     * instructions do on the hardware. */
    void (*wave_fence)(EmuLane *l);
    /* fns->barrier with the site ("file:line:col") of the statement or operation it belongs to: every
     * wave of the workgroup must wait at the same site; a wave that waits at another, or returns, is
     * reported with the waves on each side (a barrier not every wave reaches hangs or misbehaves on
     * the hardware). */
    void (*barrier_at)(EmuLane *l, const char *site);
    /* device_assert, called by every lane with whether its elements hold (ok non-zero): waits, as
     * barrier_at does, for every lane of the workgroup to reach it, so that what the other lanes print
     * before it is printed, as the interpreter prints it (issue 24); then a failure stops the launch with
     * the first failing lane's message and site, as assert_fail does. An assert is no barrier on the
     * GPU: the race checker does not count it as one. */
    void (*assert_at)(EmuLane *l, int32_t ok, const char *msg, const char *site);
    /* MUBUF buffer_load_* / buffer_store_* of `bytes` (1, 2, 4, 8, 12 or 16) through the 128-bit buffer
     * resource `vsharp` (V#: base in bits 0-47, stride in 48-61, num_records in word 2, DST_SEL,
     * NUM_FORMAT and DATA_FORMAT in word 3) at voffset (a VGPR) and soffset (an SGPR), as gfx942
     * executes it for a raw buffer (stride 0, no swizzle): the address is base + soffset + voffset,
     * and each dword (the whole access when narrower) is in range when its bytes lie below
     * num_records counting from voffset; a load reads 0 and a store writes nothing where it is out
     * of range, and a resource with DATA_FORMAT 0 is out of range everywhere. The bytes in range are
     * checked first, as `check` checks them (flags: EMU_ACCESS_*). runtime/emu/emu_buffer.c. */
    void (*buffer_load)(EmuLane *l, const uint32_t *vsharp, uint32_t voffset, uint32_t soffset, int32_t bytes,
                        void *dst, int32_t flags, const char *site);
    void (*buffer_store)(EmuLane *l, const uint32_t *vsharp, uint32_t voffset, uint32_t soffset, int32_t bytes,
                         const void *src, int32_t flags, const char *site);
} EmuFns;

struct EmuLane {
    const EmuFns *fns;
    char *lds;         /* this workgroup's LDS (poison-filled at workgroup start) */
    uint32_t lane;     /* work-item id in the workgroup, 0 .. block-1 (workgroups are 1-D) */
    uint32_t wg[3];    /* workgroup id */
    uint32_t nwg[3];   /* grid size in workgroups */
    uint32_t lds_size; /* bytes of LDS the kernel declared */
    uint32_t block;    /* work-items per workgroup */
    /* the emulator's private state follows */
};

typedef void (*EmuKernelFn)(const void *kernarg, EmuLane *lane);

#endif
