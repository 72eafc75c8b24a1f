/* Wave operations: the cross-lane instructions of a gfx942 wave64 (and of an sm_90 warp of 32 lanes,
 * for emu_sm90 code), executed once all the lanes of the wave have arrived, with all their operands at
 * once.
 *
 * Protocol: a lane arriving at an operation first checks that its wave is not split (no lane of it at a
 * barrier or returned) and that it agrees with the lanes already waiting (same kind, same uniform
 * parameters), then stores its operands in the wave's arrays and blocks. The last arrival executes the
 * operation for the whole wave in its own fiber, marks every lane ready and carries on; the others read
 * their results when they are resumed. A result slot is rewritten only when all the lanes have arrived
 * at the next operation, that is after each has read its previous result.
 *
 * Semantics, from AMD's "AMD Instinct MI300 Instruction Set Architecture" (CDNA3), "LDS Lane-permute
 * Ops" (ds_permute_b32 / ds_bpermute_b32) and "Microcode Formats: DPP" (the tables "DPP Fields" and
 * "DPP_CTRL Enumeration", identical in the CDNA4 guide as Tables 93 and 94), and from LLVM's
 * AMDGPUUsage / AMDGPUModifierSyntax documentation of llvm.amdgcn.update.dpp and the dpp_ctrl, row_mask,
 * bank_mask and bound_ctrl modifiers. Every lane of a wave is active in rk's code (EXEC is full), so
 * the rules about inactive lanes never apply. */
#include <stdio.h>
#include <string.h>

#include "runtime/emu/emu_internal.h"
#include "runtime/emu/mfma_ref.h"
#include "runtime/emu/mma_ref.h"

static const char *const OP_NAMES[] = {
    [WOP_BPERMUTE] = "bpermute",   [WOP_PERMUTE] = "permute",
    [WOP_DPP] = "dpp",             [WOP_READLANE] = "readlane",
    [WOP_READFIRSTLANE] = "readfirstlane", [WOP_BALLOT] = "ballot",
    [WOP_MFMA] = "mfma",           [WOP_MMA_SYNC] = "mma.sync", [WOP_WGMMA_RS] = "wgmma (A in registers)",
    [WOP_LDMATRIX] = "ldmatrix",   [WOP_FENCE] = "wave fence (memory order)",
};

static void dpp_ctrl_name(int32_t c, char *buf, size_t len)
{
    int k = c & 15;
    if (c >= 0 && c <= 0xFF)
        snprintf(buf, len, "quad_perm:[%d,%d,%d,%d]", c & 3, (c >> 2) & 3, (c >> 4) & 3, (c >> 6) & 3);
    else if (c > 0x100 && c <= 0x10F)
        snprintf(buf, len, "row_shl:%d", k);
    else if (c > 0x110 && c <= 0x11F)
        snprintf(buf, len, "row_shr:%d", k);
    else if (c > 0x120 && c <= 0x12F)
        snprintf(buf, len, "row_ror:%d", k);
    else if (c == 0x130)
        snprintf(buf, len, "wave_shl:1");
    else if (c == 0x134)
        snprintf(buf, len, "wave_rol:1");
    else if (c == 0x138)
        snprintf(buf, len, "wave_shr:1");
    else if (c == 0x13C)
        snprintf(buf, len, "wave_ror:1");
    else if (c == 0x140)
        snprintf(buf, len, "row_mirror");
    else if (c == 0x141)
        snprintf(buf, len, "row_half_mirror");
    else if (c == 0x142)
        snprintf(buf, len, "row_bcast:15");
    else if (c == 0x143)
        snprintf(buf, len, "row_bcast:31");
    else if (c >= 0x150 && c <= 0x15F)
        snprintf(buf, len, "row_newbcast:%d", k);
    else
        snprintf(buf, len, "0x%x", (unsigned)c);
}

void emu_wave_op_name(const WaveOp *op, char *buf, size_t len)
{
    switch (op->kind) {
    case WOP_DPP: {
        char ctrl[32];
        dpp_ctrl_name(op->p[0], ctrl, sizeof ctrl);
        snprintf(buf, len, "dpp %s (row_mask 0x%x, bank_mask 0x%x, bound_ctrl %d)", ctrl, (unsigned)op->p[1],
                 (unsigned)op->p[2], op->p[3]);
        break;
    }
    case WOP_READLANE:
        snprintf(buf, len, "readlane %d", op->p[0]);
        break;
    case WOP_MMA_SYNC:
        snprintf(buf, len, "mma.sync.m16n8k16.%s", op->p[0] == NV_MMA_BF16 ? "bf16" : "f16");
        break;
    case WOP_LDMATRIX:
        snprintf(buf, len, "ldmatrix.x4%s", op->p[0] ? ".trans" : "");
        break;
    case WOP_MFMA: {
        const MfmaInfo *info = isa_mfma_info((MfmaOp)op->p[0]);
        if (info)
            snprintf(buf, len, "mfma %s", info->name);
        else
            snprintf(buf, len, "mfma op %d", op->p[0]);
        break;
    }
    default:
        snprintf(buf, len, "%s", OP_NAMES[op->kind]);
        break;
    }
}

/* ---- DPP ---------------------------------------------------------------------------------------- */

/* The DPP_CTRL enumeration. A row is 16 lanes; "pix[n].srca = pix[m].srca" in the ISA's table means lane
 * n reads lane m's source. Out of range (-1) is where the table says "else use bound_cntl". */
int emu_dpp_source(int32_t c, int n)
{
    if (c < 0 || c > 0x15F)
        return -2;
    if (c <= 0xFF) /* DPP_QUAD_PERM: pix[(n & 0x3c) + dpp_cntl[n%4*2+1 : n%4*2]] */
        return (n & ~3) | ((c >> (2 * (n & 3))) & 3);
    int k = c & 15;
    switch (c & ~15) {
    case 0x100: /* DPP_ROW_SL1..15: if ((n & 0xf) < 16 - k) pix[n + k] else bound_cntl */
        return k == 0 ? -2 : (n & 15) < 16 - k ? n + k : -1;
    case 0x110: /* DPP_ROW_SR1..15: if ((n & 0xf) >= k) pix[n - k] else bound_cntl */
        return k == 0 ? -2 : (n & 15) >= k ? n - k : -1;
    case 0x120: /* DPP_ROW_RR1..15: pix[n - k], or pix[n + 16 - k] when that leaves the row */
        return k == 0 ? -2 : (n & ~15) | ((n - k) & 15);
    case 0x130:
        switch (c) {
        case 0x130: /* DPP_WF_SL1: if (n < 63) pix[n + 1] else bound_cntl */
            return n < 63 ? n + 1 : -1;
        case 0x134: /* DPP_WF_RL1: if (n < 63) pix[n + 1] else pix[0] */
            return (n + 1) & 63;
        case 0x138: /* DPP_WF_SR1: if (n > 0) pix[n - 1] else bound_cntl */
            return n > 0 ? n - 1 : -1;
        case 0x13C: /* DPP_WF_RR1: if (n > 0) pix[n - 1] else pix[63] */
            return (n + 63) & 63;
        default:
            return -2;
        }
    case 0x140:
        switch (c) {
        case 0x140: /* DPP_ROW_MIRROR: pix[15 - (n & 0xf)] within the row */
            return (n & ~15) | (15 - (n & 15));
        case 0x141: /* DPP_ROW_HALF_MIRROR: pix[7 - (n & 7)] within the half row */
            return (n & ~7) | (7 - (n & 7));
        case 0x142: /* DPP_ROW_BCAST15: if (n > 15) pix[(n & 0x30) - 1]. The table gives no else branch,
                     * so row 0 keeps reading its own source here; code that needs row 0 masks it off
                     * (row_mask 0xa), rk's reductions never read it (compiler/lower/lower_xlane.c). */
            return n > 15 ? (n & 0x30) - 1 : n;
        case 0x143: /* DPP_ROW_BCAST31: if (n > 31) pix[(n & 0x20) - 1]; rows 0-1 as row 0 above */
            return n > 31 ? (n & 0x20) - 1 : n;
        default:
            return -2;
        }
    case 0x150: /* DPP_ROW_NEWBCAST (row_newbcast:k, gfx90a and later): lane k of the row, whole row */
        return (n & ~15) | k;
    default:
        return -2;
    }
}

/* v_mov_b32_dpp over the wave, as llvm.amdgcn.update.dpp defines it: dest starts as `old`; ROW_MASK and
 * BANK_MASK "apply to the VGPR destination write only" (a disabled lane keeps old); a lane whose source
 * is out of range gets 0 when bound_ctrl is set ("BC: 1 = write", the invalid lane reads as zero) and
 * keeps old otherwise. Banks are lanes 4b..4b+3 of every row. */
static void dpp_exec(Wave *wv)
{
    int32_t ctrl = wv->op.p[0], row_mask = wv->op.p[1], bank_mask = wv->op.p[2], bound_ctrl = wv->op.p[3];
    for (int n = 0; n < EMU_WAVE; n++) {
        int32_t old = wv->x[n];
        if (!((row_mask >> (n >> 4)) & 1) || !((bank_mask >> ((n >> 2) & 3)) & 1)) {
            wv->res[n] = old;
            continue;
        }
        int src = emu_dpp_source(ctrl, n);
        wv->res[n] = src >= 0 ? wv->y[src] : bound_ctrl ? 0 : old;
    }
}

/* ---- arrival and execution --------------------------------------------------------------------- */

static void mfma_exec(Worker *w, Wave *wv)
{
    MfmaOp op = (MfmaOp)wv->op.p[0];
    const MfmaInfo *info = isa_mfma_info(op);
    int na = info->a_regs, nb = info->b_regs, ncd = info->cd_regs;
    for (int i = 0; i < EMU_WAVE; i++) {
        memcpy(&w->mfma_a[i * na], wv->ma[i], (size_t)na * sizeof(uint32_t));
        memcpy(&w->mfma_b[i * nb], wv->mb[i], (size_t)nb * sizeof(uint32_t));
        memcpy(&w->mfma_c[i * ncd], wv->mc[i], (size_t)ncd * sizeof(uint32_t));
    }
    emu_mfma_exec(op, w->mfma_a, w->mfma_b, w->mfma_c, w->mfma_d);
    for (int i = 0; i < EMU_WAVE; i++)
        memcpy(wv->md[i], &w->mfma_d[i * ncd], (size_t)ncd * sizeof(uint32_t));
}

/* mma.sync m16n8k16 over a warp of 32 lanes (mma_ref.c). */
static void mma_sync_exec(Worker *w, Wave *wv)
{
    uint32_t *a = w->mfma_a, *b = w->mfma_b;
    float c[EMU_NV_WARP * 4], d[EMU_NV_WARP * 4];
    for (int i = 0; i < EMU_NV_WARP; i++) {
        memcpy(&a[i * 4], wv->ma[i], 4 * sizeof(uint32_t));
        memcpy(&b[i * 2], wv->mb[i], 2 * sizeof(uint32_t));
        memcpy(&c[i * 4], wv->mc[i], 4 * sizeof(float));
    }
    emu_mma_m16n8k16((NvMmaOp)wv->op.p[0], a, b, c, d);
    for (int i = 0; i < EMU_NV_WARP; i++)
        memcpy(wv->md[i], &d[i * 4], 4 * sizeof(float));
}

/* ldmatrix .x4 over a warp of 32 lanes: every lane's row is read now, with the whole warp at the
 * instruction (no other wave runs between the arrivals and this). */
static void ldmatrix_exec(Worker *w, Wave *wv)
{
    uint32_t *out = w->mfma_d;
    emu_ldmatrix_x4(wv->rows, wv->op.p[0], out);
    for (int i = 0; i < EMU_NV_WARP; i++)
        memcpy(wv->md[i], &out[i * 4], 4 * sizeof(uint32_t));
}

/* A warp's part of a wgmma with A from registers: its 16 rows of A from the 32 lanes' fragments, B
 * from LDS through the descriptor (the same on every lane), each lane's N/2 accumulators. res[i]
 * receives 0, or 1 for a descriptor that differs between lanes or has no swizzle, 2 for a B element
 * outside the LDS: the lanes report it after the operation. */
static void wgmma_rs_exec(Wave *wv)
{
    NvMmaOp op = (NvMmaOp)wv->op.p[0];
    int n = wv->op.p[1], mn_major = wv->op.p[2] != 0;
    uint32_t lds_size = (uint32_t)wv->op.p[3];
    uint64_t desc = (uint64_t)(uint32_t)wv->x[0] | (uint64_t)(uint32_t)wv->y[0] << 32;
    float A[16][16];
    int err = 0;
    for (int lane = 0; lane < EMU_NV_WARP; lane++) {
        if (wv->x[lane] != wv->x[0] || wv->y[lane] != wv->y[0])
            err = 1;
        for (int i = 0; i < 8; i++) {
            int r, k;
            emu_mma_a_coord(lane, i, &r, &k);
            A[r][k] = emu_mma_elem_value(op, wv->ma[lane][i / 2] >> (16 * (i % 2)));
        }
    }
    for (int lane = 0; lane < EMU_NV_WARP && !err; lane++) {
        float *acc = (float *)(void *)wv->md[lane];
        for (int i = 0; i < n / 2 && !err; i++) {
            int row, col;
            emu_wgmma_d_coord(lane, i, &row, &col);
            float sum = acc[i];
            for (int k = 0; k < 16; k++) {
                int64_t a = emu_wgmma_addr(desc, mn_major, col, k);
                if (a < 0 || a + 2 > (int64_t)lds_size) {
                    err = a < 0 ? 1 : 2;
                    break;
                }
                const uint8_t *p = wv->rows[lane] + a;
                sum += A[row][k] * emu_mma_elem_value(op, (uint32_t)p[0] | (uint32_t)p[1] << 8);
            }
            acc[i] = sum;
        }
    }
    for (int lane = 0; lane < EMU_NV_WARP; lane++)
        wv->res[lane] = err;
}

/* Out of line: only the last lane of the wave runs it. */
__attribute__((noinline)) static void op_exec(Worker *w, Wave *wv)
{
    int n = wv->size;
    unsigned m = (unsigned)n - 1; /* lane numbers wrap at the wave size */
    switch (wv->op.kind) {
    case WOP_BPERMUTE: /* returnVal = LDS[dst]: lane i reads lane (addr / 4) % 64; high bits ignored.
                        * A 32-lane warp: shfl.sync.idx with every lane active, lane % 32. */
        for (int i = 0; i < n; i++)
            wv->res[i] = wv->y[((uint32_t)wv->x[i] >> 2) & m];
        break;
    case WOP_PERMUTE: { /* LDS[dst] = src0: lane i sends to lane (addr / 4) % 64; a lane nobody sends to
                         * gets 0; when several send to one lane the highest-numbered sender wins */
        memset(wv->res, 0, sizeof wv->res);
        for (int i = 0; i < n; i++)
            wv->res[((uint32_t)wv->x[i] >> 2) & m] = wv->y[i];
        break;
    }
    case WOP_DPP:
        dpp_exec(wv);
        break;
    case WOP_READLANE: /* the lane select is wave-uniform (an SGPR); bits [5:0] are used */
        for (int i = 0; i < n; i++)
            wv->res[i] = wv->x[(unsigned)wv->op.p[0] & m];
        break;
    case WOP_READFIRSTLANE: /* the lowest active lane: lane 0, EXEC being full */
        for (int i = 0; i < n; i++)
            wv->res[i] = wv->x[0];
        break;
    case WOP_BALLOT: {
        uint64_t b = 0;
        for (int i = 0; i < n; i++)
            b |= (uint64_t)(wv->x[i] != 0) << i;
        wv->ballot = b;
        break;
    }
    case WOP_MFMA:
        mfma_exec(w, wv);
        break;
    case WOP_MMA_SYNC:
        mma_sync_exec(w, wv);
        break;
    case WOP_LDMATRIX:
        ldmatrix_exec(w, wv);
        break;
    case WOP_WGMMA_RS:
        wgmma_rs_exec(wv);
        break;
    case WOP_FENCE:
        break;
    }
}

/* The errors of an arrival, out of line so that the operations keep no arrays (see emu_ctx_start). */
__attribute__((noinline, cold)) static _Noreturn void arrive_fail(Lane *l, int kind, int32_t p0, int32_t p1,
                                                                 int32_t p2, int32_t p3)
{
    Wave *wv = l->wave;
    WaveOp op = {kind, {p0, p1, p2, p3}};
    char a[96], b[96];
    emu_wave_op_name(&op, b, sizeof b);
    if (wv->n_bar || wv->n_done)
        emu_lane_fail(l, EMU_ERR_WAVE, "wave operation reached by only some lanes (lane %u at %s, lane %u %s)",
                      l->abi.lane, b, wv->n_bar ? wv->bar_lane : wv->done_lane,
                      wv->n_bar ? "at a barrier" : "returned");
    emu_wave_op_name(&wv->op, a, sizeof a);
    emu_lane_fail(l, EMU_ERR_WAVE, "lanes of a wave disagree on a wave operation (lane %u at %s, lane %u at %s)",
                  wv->op_lane, a, l->abi.lane, b);
}

/* Checks an arrival at operation `kind` with uniform parameters p0..p3; returns the wave, whose operand
 * slots the caller then fills. Scalars, not a WaveOp: an address-taken local would cost a fake-stack
 * frame per call under ASan. */
static inline Wave *op_arrive(Lane *l, int kind, int32_t p0, int32_t p1, int32_t p2, int32_t p3)
{
    Wave *wv = l->wave;
    if (wv->n_bar | wv->n_done)
        arrive_fail(l, kind, p0, p1, p2, p3);
    if (wv->n_op == 0) {
        wv->op.kind = kind;
        wv->op.p[0] = p0;
        wv->op.p[1] = p1;
        wv->op.p[2] = p2;
        wv->op.p[3] = p3;
        wv->op_lane = l->abi.lane;
    } else if (wv->op.kind != kind || wv->op.p[0] != p0 || wv->op.p[1] != p1 || wv->op.p[2] != p2 ||
               wv->op.p[3] != p3) {
        arrive_fail(l, kind, p0, p1, p2, p3);
    }
    return wv;
}

/* Counts the arrival; the last one executes, the others block until it has. */
static inline void op_wait(Lane *l, Wave *wv)
{
    if (++wv->n_op == wv->size) {
        op_exec(l->w, wv);
        wv->n_op = 0;
        wv->ready = wv->full;
        return;
    }
    wv->ready &= ~((uint64_t)1 << l->wl);
    emu_lane_block(l);
}

int32_t emu_op_bpermute(EmuLane *el, int32_t byte_addr, int32_t value)
{
    Lane *l = (Lane *)el;
    Wave *wv = op_arrive(l, WOP_BPERMUTE, 0, 0, 0, 0);
    wv->x[l->wl] = byte_addr;
    wv->y[l->wl] = value;
    op_wait(l, wv);
    return wv->res[l->wl];
}

void emu_op_wave_fence(EmuLane *el)
{
    Lane *l = (Lane *)el;
    Wave *wv = op_arrive(l, WOP_FENCE, 0, 0, 0, 0);
    bool last = wv->n_op + 1 == wv->size;
    op_wait(l, wv);
    /* the last lane to arrive lets the others go first, so that the wave goes on in lane order (the
     * lowest lane reports the first fault of the next access, as before the fence) */
    if (last && wv->size > 1)
        emu_ctx_switch(&l->ctx, emu_next_ctx(l));
}

int32_t emu_op_permute(EmuLane *el, int32_t byte_addr, int32_t value)
{
    Lane *l = (Lane *)el;
    Wave *wv = op_arrive(l, WOP_PERMUTE, 0, 0, 0, 0);
    wv->x[l->wl] = byte_addr;
    wv->y[l->wl] = value;
    op_wait(l, wv);
    return wv->res[l->wl];
}

int32_t emu_op_dpp(EmuLane *el, int32_t old, int32_t src, int32_t dpp_ctrl, int32_t row_mask, int32_t bank_mask,
                   int32_t bound_ctrl)
{
    Lane *l = (Lane *)el;
    if (l->wave->size != EMU_WAVE)
        emu_lane_fail(l, EMU_ERR_INVALID, "dpp on a wave of %d lanes (DPP is a wave64 operation)", l->wave->size);
    if (emu_dpp_source(dpp_ctrl, 0) == -2)
        emu_lane_fail(l, EMU_ERR_INVALID, "dpp control 0x%x is not a CDNA3 DPP_CTRL", (unsigned)dpp_ctrl);
    if ((uint32_t)row_mask > 15 || (uint32_t)bank_mask > 15)
        emu_lane_fail(l, EMU_ERR_INVALID, "dpp row_mask 0x%x or bank_mask 0x%x is not 4 bits", (unsigned)row_mask,
                      (unsigned)bank_mask);
    Wave *wv = op_arrive(l, WOP_DPP, dpp_ctrl, row_mask, bank_mask, bound_ctrl != 0);
    wv->x[l->wl] = old;
    wv->y[l->wl] = src;
    op_wait(l, wv);
    return wv->res[l->wl];
}

int32_t emu_op_readlane(EmuLane *el, int32_t value, int32_t lane)
{
    Lane *l = (Lane *)el;
    Wave *wv = op_arrive(l, WOP_READLANE, lane, 0, 0, 0);
    wv->x[l->wl] = value;
    op_wait(l, wv);
    return wv->res[l->wl];
}

int32_t emu_op_readfirstlane(EmuLane *el, int32_t value)
{
    Lane *l = (Lane *)el;
    Wave *wv = op_arrive(l, WOP_READFIRSTLANE, 0, 0, 0, 0);
    wv->x[l->wl] = value;
    op_wait(l, wv);
    return wv->res[l->wl];
}

uint64_t emu_op_ballot(EmuLane *el, int32_t pred)
{
    Lane *l = (Lane *)el;
    Wave *wv = op_arrive(l, WOP_BALLOT, 0, 0, 0, 0);
    wv->x[l->wl] = pred;
    op_wait(l, wv);
    return wv->ballot;
}

void emu_op_mfma(EmuLane *el, int32_t op, const uint32_t *a, const uint32_t *b, const uint32_t *c, uint32_t *d)
{
    Lane *l = (Lane *)el;
    const MfmaInfo *info = isa_mfma_info((MfmaOp)op);
    if (!info)
        emu_lane_fail(l, EMU_ERR_INVALID, "mfma op %d is not an MfmaOp", op);
    if (l->wave->size != EMU_WAVE)
        emu_lane_fail(l, EMU_ERR_INVALID, "%s on a wave of %d lanes (MFMA is a wave64 operation)", info->name,
                      l->wave->size);
    if (info->a_regs > EMU_MFMA_MAX_REGS || info->b_regs > EMU_MFMA_MAX_REGS || info->cd_regs > EMU_MFMA_MAX_REGS)
        emu_lane_fail(l, EMU_ERR_INVALID, "internal error: %s needs more than %d registers per operand", info->name,
                      EMU_MFMA_MAX_REGS);
    Wave *wv = op_arrive(l, WOP_MFMA, op, 0, 0, 0);
    wv->ma[l->wl] = a;
    wv->mb[l->wl] = b;
    wv->mc[l->wl] = c;
    wv->md[l->wl] = d;
    op_wait(l, wv);
}

void emu_op_mma_sync(EmuLane *el, int32_t op, const uint32_t *a, const uint32_t *b, const float *c, float *d)
{
    Lane *l = (Lane *)el;
    if (!isa_nvmma_info((NvMmaOp)op) || nv_is_wgmma(op))
        emu_lane_fail(l, EMU_ERR_INVALID, "mma.sync op %d is not an NvMmaOp", op);
    if (l->wave->size != EMU_NV_WARP)
        emu_lane_fail(l, EMU_ERR_INVALID, "mma.sync on a wave of %d lanes (it is a 32-lane warp operation)",
                      l->wave->size);
    Wave *wv = op_arrive(l, WOP_MMA_SYNC, op, 0, 0, 0);
    wv->ma[l->wl] = a;
    wv->mb[l->wl] = b;
    wv->mc[l->wl] = (const uint32_t *)(const void *)c;
    wv->md[l->wl] = (uint32_t *)(void *)d;
    op_wait(l, wv);
}

/* One 16-bit operand element of a wgmma, read from this workgroup's LDS through its descriptor. */
static float wgmma_elem(Lane *l, int op, uint64_t desc, int mn_major, int mn, int k, const char *which)
{
    int64_t a = emu_wgmma_addr(desc, mn_major, mn, k);
    const EmuLane *el = &l->abi;
    if (a < 0)
        emu_lane_fail(l, EMU_ERR_INVALID, "wgmma %s descriptor 0x%016llx has no swizzle mode", which,
                      (unsigned long long)desc);
    if (a + 2 > (int64_t)el->lds_size)
        emu_lane_fail(l, EMU_ERR_ACCESS, "wgmma reads %s element (%d, %d) at LDS offset %lld, LDS is %u bytes", which,
                      mn, k, (long long)a, el->lds_size);
    const uint8_t *p = (const uint8_t *)el->lds + a;
    return emu_mma_elem_value((NvMmaOp)op, (uint32_t)p[0] | (uint32_t)p[1] << 8);
}

/* What every wgmma needs: a wgmma op, an N it has, a block of whole warpgroups of 32-lane warps. */
static void wgmma_check(Lane *l, int32_t op, int32_t n)
{
    const EmuLane *el = &l->abi;
    if (!nv_is_wgmma(op))
        emu_lane_fail(l, EMU_ERR_INVALID, "wgmma op %d is not a wgmma NvMmaOp", op);
    if (n < 8 || n > 256 || n % 8)
        emu_lane_fail(l, EMU_ERR_INVALID, "wgmma with N = %d (8 to 256, a multiple of 8)", n);
    if (l->wave->size != EMU_NV_WARP || el->block % 128)
        emu_lane_fail(l, EMU_ERR_INVALID, "wgmma in a block of %u threads in waves of %d (warpgroups of 4 warps of 32)",
                      el->block, l->wave->size);
}

void emu_op_wgmma(EmuLane *el, int32_t op, int32_t n, uint64_t a_desc, uint64_t b_desc, int32_t trans_b, float *acc)
{
    Lane *l = (Lane *)el;
    wgmma_check(l, op, n);
    NvMmaOp eop = (NvMmaOp)op;
    int t = (int)(el->lane % 128);
    for (int i = 0; i < n / 2; i++) {
        int row, col;
        emu_wgmma_d_coord(t, i, &row, &col);
        float sum = acc[i];
        for (int k = 0; k < 16; k++)
            sum += wgmma_elem(l, eop, a_desc, 0, row, k, "A") * wgmma_elem(l, eop, b_desc, trans_b != 0, col, k, "B");
        acc[i] = sum;
    }
}

void emu_op_wgmma_rs(EmuLane *el, int32_t op, int32_t n, const uint32_t *a, uint64_t b_desc, int32_t trans_b, float *acc)
{
    Lane *l = (Lane *)el;
    wgmma_check(l, op, n);
    Wave *wv = op_arrive(l, WOP_WGMMA_RS, op, n, trans_b != 0, (int32_t)el->lds_size);
    wv->ma[l->wl] = a;
    wv->md[l->wl] = (uint32_t *)(void *)acc;
    wv->rows[l->wl] = (const uint8_t *)el->lds;
    wv->x[l->wl] = (int32_t)(uint32_t)b_desc;
    wv->y[l->wl] = (int32_t)(uint32_t)(b_desc >> 32);
    op_wait(l, wv);
    if (wv->res[l->wl] == 1)
        emu_lane_fail(l, EMU_ERR_INVALID, "wgmma B descriptor 0x%016llx differs between the warp's lanes or has no swizzle",
                      (unsigned long long)b_desc);
    if (wv->res[l->wl] == 2)
        emu_lane_fail(l, EMU_ERR_ACCESS, "wgmma reads a B element outside the %u bytes of LDS (descriptor 0x%016llx)",
                      el->lds_size, (unsigned long long)b_desc);
}

void emu_op_ldmatrix(EmuLane *el, const void *addr, int32_t trans, uint32_t *out)
{
    Lane *l = (Lane *)el;
    if (l->wave->size != EMU_NV_WARP)
        emu_lane_fail(l, EMU_ERR_INVALID, "ldmatrix on a wave of %d lanes (it is a 32-lane warp operation)",
                      l->wave->size);
    /* each row is 16 bytes of this workgroup's LDS, naturally aligned (the PTX ISA: "The matrix
     * addresses must be naturally aligned") */
    uintptr_t a = (uintptr_t)addr, lo = (uintptr_t)el->lds;
    if (a < lo || el->lds_size < 16 || a - lo > el->lds_size - 16)
        emu_lane_fail(l, EMU_ERR_ACCESS, "out-of-bounds ldmatrix row of 16 bytes at LDS offset %td, LDS is %u bytes",
                      (ptrdiff_t)(a - lo), el->lds_size);
    if ((a - lo) % 16)
        emu_lane_fail(l, EMU_ERR_ACCESS, "ldmatrix row at LDS offset %td is not 16-byte aligned", (ptrdiff_t)(a - lo));
    Wave *wv = op_arrive(l, WOP_LDMATRIX, trans != 0, 0, 0, 0);
    wv->rows[l->wl] = addr;
    wv->md[l->wl] = out;
    op_wait(l, wv);
}
