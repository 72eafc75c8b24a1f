/* Moving a tile between layouts: convert_layout, reshape and permute.
 *
 * When both layouts give every lane and wave the same elements (they differ only in how a lane numbers
 * its registers), the move is a renaming of registers and costs nothing. Otherwise the tile goes
 * through LDS: every lane writes its elements at their row-major offset, the workgroup synchronises,
 * and every lane reads the elements its new layout gives it. Reshape is the same with the destination's
 * own shape (row-major order is what reshape preserves), permute with permuted coordinates. Runs of
 * consecutive registers that are consecutive in LDS move as one vector access. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/lower/lower_internal.h"
#include "isa/emu_abi.h"

static int elem_bytes(const Type *t)
{
    const Type *e = ty_elem(t);
    return e->kind == TY_PTR ? 8 : e->sk == SK_BOOL ? 1 : sk_bits(e->sk) / 8;
}

/* For a permute: the source coordinates of destination coordinates. */
typedef struct Perm {
    int n;
    int64_t dims[TIR_MAX_RANK]; /* dst dim i = src dim dims[i] */
} Perm;

/* Registers of dst taken directly from src (-1 when the lanes disagree). */
static bool register_map(const LinLayout *src, const LinLayout *dst, const Perm *p, int *map)
{
    if (src->nlane != dst->nlane || src->nwarp != dst->nwarp)
        return false;
    int rank = dst->rank;
    for (int which = 0; which < 2; which++) {
        int nb = which ? src->nwarp : src->nlane;
        for (int b = 0; b < nb; b++) {
            const int32_t *sb = which ? src->warp[b] : src->lane[b];
            const int32_t *db = which ? dst->warp[b] : dst->lane[b];
            for (int i = 0; i < rank; i++)
                if (db[i] != (p ? sb[p->dims[i]] : sb[i]))
                    return false;
        }
    }
    for (int r = 0; r < lin_nregs(dst); r++) {
        int64_t c[TIR_MAX_RANK], sc[TIR_MAX_RANK];
        lin_reg_coords(dst, r, c);
        for (int i = 0; i < rank; i++) {
            if (p)
                sc[p->dims[i]] = c[i];
            else
                sc[i] = c[i];
        }
        map[r] = lin_reg_of(src, sc);
        if (map[r] < 0)
            return false;
    }
    return true;
}

static LLVMValueRef to_storage(Lower *L, LLVMValueRef v, const Type *t)
{
    if (ty_is_bool(t))
        return LLVMBuildZExt(L->b, v, L->i8, "");
    return v;
}

static LLVMValueRef from_storage(Lower *L, LLVMValueRef v, const Type *t)
{
    if (ty_is_bool(t))
        return LLVMBuildICmp(L->b, LLVMIntNE, v, LLVMConstInt(L->i8, 0, 0), "");
    return v;
}

/* Where an element lives in the LDS scratch: its row-major index, with the 16-byte chunks of each row
 * XOR-swizzled by the row number (over up to 8 chunks), so that lanes reading the same column of
 * consecutive rows hit different banks. Every access of a transfer uses the same mapping, and a run
 * of registers never crosses a chunk, so swizzling never splits a vector access. The chunk XORed is
 * the row's phase, (row / pp ^ (row >> xs) << xl) & (nch - 1): the second term (xs > 0, AMD's
 * deferred operands) also spreads rows that are nch * pp apart, which a write touches together, over
 * the chunks 1 << xl apart (a write whose lanes cover 1 << xl chunks of a row). */
typedef struct Lds {
    int rank;
    int64_t shape[TIR_MAX_RANK];
    int vec;  /* elements per chunk (16 bytes, or a deferred operand's k_width) */
    int nch;  /* chunks XORed with the row (1: no swizzle) */
    int pp;   /* rows per phase: the XOR uses row / pp (rows narrower than 128 bytes share a phase) */
    int xs;   /* > 0: the phase also XORs (row >> xs) << xl */
    int xl;
    int pad;  /* elements after each row: the row pitch is shape[rank - 1] + pad (deferred operands) */
    bool fold; /* a swizzled access may still take a register's constant offset (lds_reg_offset) */
} Lds;

static Lds lds_map(const Type *t, int bytes, bool swizzle)
{
    Lds m;
    m.rank = t->rank;
    memcpy(m.shape, t->shape, sizeof(int64_t) * (size_t)t->rank);
    m.vec = 16 / bytes > 0 ? 16 / bytes : 1;
    int64_t cols = t->shape[t->rank - 1];
    int64_t chunks = cols / m.vec;
    m.nch = swizzle && t->rank >= 2 && chunks >= 2 ? (int)(chunks < 8 ? chunks : 8) : 1;
    m.pp = 1;
    m.xs = 0;
    m.xl = 0;
    m.pad = 0;
    m.fold = false;
    return m;
}

/* This lane's LDS element offset (i32) of register r of li; with a permutation, the coordinates are
 * first mapped back to the source's. */
static LLVMValueRef lds_offset(Lower *L, const LayInfo *li, int r, const Lds *m, const Perm *p)
{
    LLVMValueRef coord[TIR_MAX_RANK], c[TIR_MAX_RANK];
    for (int d = 0; d < li->ll.rank; d++)
        coord[d] = reg_coord(L, li, r, d);
    for (int d = 0; d < m->rank; d++) {
        if (p) {
            int k = 0;
            for (int i = 0; i < p->n; i++)
                if (p->dims[i] == d)
                    k = i;
            c[d] = coord[k];
        } else {
            c[d] = coord[d];
        }
    }
    LLVMValueRef row = const_i32(L, 0);
    int64_t stride = 1;
    for (int d = m->rank - 2; d >= 0; d--) {
        row = LLVMBuildAdd(L->b, row, stride == 1 ? c[d] : LLVMBuildMul(L->b, c[d], const_i32(L, stride), ""), "");
        stride *= m->shape[d];
    }
    LLVMValueRef col = c[m->rank - 1];
    int64_t cols = m->shape[m->rank - 1];
    if (m->nch > 1) {
        LLVMValueRef prow = m->pp > 1 ? LLVMBuildUDiv(L->b, row, const_i32(L, m->pp), "") : row;
        if (m->xs > 0)
            prow = LLVMBuildXor(L->b, prow,
                                LLVMBuildShl(L->b, LLVMBuildLShr(L->b, row, const_i32(L, m->xs), ""),
                                             const_i32(L, m->xl), ""),
                                "");
        LLVMValueRef phase = LLVMBuildAnd(L->b, prow, const_i32(L, m->nch - 1), "");
        col = LLVMBuildXor(L->b, col, LLVMBuildMul(L->b, phase, const_i32(L, m->vec), ""), "");
    }
    if (m->rank == 1)
        return col;
    return LLVMBuildAdd(L->b, LLVMBuildMul(L->b, row, const_i32(L, cols + m->pad), ""), col, "");
}

/* lds_offset's element index, on integers, for the remarks (lds_banks.c): the same map, coordinates
 * `c` in the layout's order (a permutation applied as lds_offset applies it). */
typedef struct LdsView {
    const Lds *m;
    int src[TIR_MAX_RANK]; /* the coordinate that the map's dimension d takes */
} LdsView;

static LdsView lds_view(const Lds *m, const Perm *p)
{
    LdsView v = {m, {0}};
    for (int d = 0; d < m->rank; d++) {
        v.src[d] = p ? 0 : d;
        for (int i = 0; p && i < p->n; i++)
            if (p->dims[i] == d)
                v.src[d] = i;
    }
    return v;
}

static int64_t lds_index(const void *view, const int64_t *coord)
{
    const LdsView *v = view;
    const Lds *m = v->m;
    int64_t row = 0, stride = 1;
    for (int d = m->rank - 2; d >= 0; d--) {
        row += coord[v->src[d]] * stride;
        stride *= m->shape[d];
    }
    int64_t col = coord[v->src[m->rank - 1]];
    if (m->nch > 1)
        col ^= ((row / m->pp ^ (m->xs > 0 ? (row >> m->xs) << m->xl : 0)) & (m->nch - 1)) * m->vec;
    return m->rank == 1 ? col : row * (m->shape[m->rank - 1] + m->pad) + col;
}

/* Notes an access for the remarks: `run` elements from register r of li, through the map. */
static void note(Lower *L, bool write, const Type *t, const LayInfo *li, int r, int run, int bytes, int64_t base,
                 const Lds *m, const Perm *p)
{
    if (!L->o->remarks)
        return;
    LdsView v = lds_view(m, p);
    LdsAccess acc = {&li->ll, r, run, bytes, base, lds_index, &v, 0};
    lds_note(L, write, t, &acc);
}

/* The delta of register r's LDS index from register `base`'s, when it is the same in every lane and
 * wave (through the map's own index, so padding and swizzles included); else false. The lanes' and
 * waves' coordinates are the XORs of their layout's bit vectors; the walk visits every XOR of the
 * nonzero, distinct vectors (in Gray code order: one vector XORed in a step), since replicas
 * (zero vectors: the waves a dot operand is broadcast over) and repeats add no coordinate. The LDS
 * map search calls this for every register of every candidate map: walking all 64 lanes of 8 waves
 * was most of the compile of a chained 128x128 dot. */
static bool const_delta(const LinLayout *ll, int r, int base, const Lds *m, const Perm *p, int64_t *delta)
{
    LdsView v = lds_view(m, p);
    const int32_t *vecs[LAY_MAX_LANE_BITS + LAY_MAX_WARP_BITS];
    int nv = 0;
    for (int b = 0; b < ll->nlane + ll->nwarp; b++) {
        const int32_t *vec = b < ll->nlane ? ll->lane[b] : ll->warp[b - ll->nlane];
        bool keep = false;
        for (int d = 0; d < ll->rank; d++)
            keep |= vec[d] != 0;
        for (int i = 0; keep && i < nv; i++)
            keep = memcmp(vecs[i], vec, sizeof(int32_t) * (size_t)ll->rank) != 0;
        if (keep)
            vecs[nv++] = vec;
    }
    int64_t c[TIR_MAX_RANK], cb[TIR_MAX_RANK]; /* the registers' coordinates, a lane's vectors XORed in */
    lin_reg_coords(ll, r, c);
    lin_reg_coords(ll, base, cb);
    *delta = lds_index(&v, c) - lds_index(&v, cb);
    for (uint32_t i = 1; i < 1u << nv; i++) {
        const int32_t *vec = vecs[__builtin_ctz(i)];
        for (int d = 0; d < ll->rank; d++) {
            c[d] ^= vec[d];
            cb[d] ^= vec[d];
        }
        if (lds_index(&v, c) - lds_index(&v, cb) != *delta)
            return false;
    }
    return true;
}

/* The register bits whose own offset under a folding swizzled map is the same in every lane and wave
 * (lds_reg_offset's `free_bits`): a function of the layout and the map only, computed once for all
 * the registers of an access (-1: not a folding swizzled map). */
static int reg_free_bits(const LinLayout *ll, const Lds *m, const Perm *p)
{
    if (m->nch <= 1 || !m->fold)
        return -1;
    int free_bits = 0;
    for (int b = 0; b < ll->nreg; b++) {
        int64_t d = 0;
        if (const_delta(ll, 1 << b, 0, m, p, &d))
            free_bits |= 1 << b;
    }
    return free_bits;
}

/* Register r's element offset from the register *base whose address the access computes: the
 * register bits' part of its coordinates, which the address then adds as a constant (a DS
 * instruction's offset field) instead of a per-register address computed once and kept live in a
 * VGPR. Unswizzled, every register is at a constant offset from register 0's element. Swizzled, r is
 * its own base, unless the map may fold: then the base is r without the register bits whose own
 * offset is the same in every lane (k steps above the swizzled chunks, rows a whole phase cycle
 * apart), checked for r as a whole. free_bits: reg_free_bits of the layout and the map, which an
 * access computes once for all its registers (lds_reg_offset computes it for one). */
static int64_t reg_offset_with(const LayInfo *li, int r, const Lds *m, const Perm *p, int free_bits, int *base)
{
    *base = r;
    if (m->nch > 1 && !m->fold)
        return 0;
    if (m->nch > 1) {
        const LinLayout *ll = &li->ll;
        int64_t d = 0;
        if ((r & free_bits) && const_delta(ll, r, r & ~free_bits, m, p, &d)) {
            *base = r & ~free_bits;
            return d;
        }
        return 0;
    }
    *base = 0;
    int64_t c[TIR_MAX_RANK], off = 0, stride = 1;
    lin_reg_coords(&li->ll, r, c);
    for (int d = m->rank - 1; d >= 0; d--) {
        int k = d;
        for (int i = 0; p && i < p->n; i++)
            if (p->dims[i] == d)
                k = i;
        off += c[k] * stride;
        stride *= m->shape[d] + (d == m->rank - 1 ? m->pad : 0);
    }
    return off;
}

static int64_t lds_reg_offset(const LayInfo *li, int r, const Lds *m, const Perm *p, int *base)
{
    return reg_offset_with(li, r, m, p, reg_free_bits(&li->ll, m, p), base);
}

/* Length of the run of registers starting at r that are consecutive along the last dimension of the
 * layout's linear index (register bits 0..k-1 along that dim with values 1, 2, 4...). */
static int run_length(const LinLayout *ll, int r, int rank_dim, int max)
{
    int k = 0;
    while (k < ll->nreg && ll->reg[k][rank_dim] == (1 << k)) {
        bool only = true;
        for (int d = 0; d < ll->rank; d++)
            if (d != rank_dim && ll->reg[k][d])
                only = false;
        if (!only)
            break;
        k++;
    }
    int run = 1 << k;
    while (run > max)
        run /= 2;
    while (r % run)
        run /= 2;
    return run;
}

/* A move between layouts of a tile larger than the free LDS, in pieces: rows [c R, (c + 1) R) of the
 * flattened leading dimensions at a time, R the most rows that fit (a power of two). Each piece is
 * written by the lanes holding its elements (a branch per register group, on the element's row, which
 * LLVM folds where the row's high bits are register bits) and read back into the destination
 * registers whose rows it holds (a select), between barriers. The compiler's own choice of layouts
 * must not make a kernel fail (a 256x256 accumulator stored through a run-time stride is 128 KiB of
 * bf16: two pieces on gfx942). Returns false when not even one row fits. */
enum { MAX_PIECED_MOVE_WORDS = 256 }; /* a lane's VGPRs on gfx942 (without AGPRs) */

/* Whether the piece (rows / R) of a destination element depends on its lane or wave: some lane or
 * wave basis vector moves the row (the dimensions before the last, flattened row-major) by R or more. */
static bool piece_varies_by_lane(const LinLayout *ll, int64_t R)
{
    for (int which = 0; which < 2; which++) {
        int nb = which ? ll->nwarp : ll->nlane;
        for (int i = 0; i < nb; i++) {
            const int32_t *b = which ? ll->warp[i] : ll->lane[i];
            int64_t row = 0;
            for (int d = 0; d < ll->rank - 1; d++)
                row = row * ll->shape[d] + b[d];
            if (row >= R)
                return true;
        }
    }
    return false;
}

static bool lds_move_rows(Lower *L, const LVal *src, const Type *from, const Type *to, int base, LVal *out)
{
    const LayInfo *si = lay_info(L, from), *di = lay_info(L, to);
    int bytes = elem_bytes(from);
    int64_t cols = from->shape[from->rank - 1], rows = ty_numel(from) / cols;
    int64_t fit = (L->lds_limit - base) / (cols * bytes), R = 1;
    while (R * 2 <= fit && R * 2 <= rows)
        R *= 2;
    if (fit < 1 || rows % R)
        return false;
    /* Every piece is read into every destination register that may hold its elements, so a lane keeps
     * its source values and its destination values live together: past a lane's 256 registers LLVM
     * spills them, and its register allocator takes time superlinear in them (gfx942, f16 transposes:
     * [256, 256] on 8 waves, 128 + 128 values, 0.9 s; on 4 waves, 256 + 256, 23 s; [256, 512] on 8
     * waves 15 s). Such a move is refused at its op, before LLVM (issue 23), as lower_budget does —
     * but only where a destination register's piece depends on the lane or the wave. Where registers
     * alone decide it (a bf16 256x256 matmul's store on 4 waves, 256 + 256 values), each read's piece
     * is a constant, the other pieces' reads fold away, and the move compiles in about a second: a
     * kernel the compiler can build is never refused for its own choice of layouts (issue 19). */
    int64_t words = (int64_t)(src->n + lin_nregs(&di->ll)) * (bytes > 4 ? bytes / 4 : 1);
    if (rows / R > 1 && words > MAX_PIECED_MOVE_WORDS && piece_varies_by_lane(&di->ll, R)) {
        char *ts = ty_str(L->a, L->f->module->types, from), *hash = strchr(ts, '#');
        if (hash)
            *hash = 0; /* the type without its layout */
        lower_error(L,
                    "moving %s between layouts takes %lld pieces through LDS, each lane keeping its %d values and "
                    "the %d it receives live together (%lld registers, more than the %d rk compiles in bounded "
                    "time): give the program more warps or a smaller tile",
                    ts, (long long)(rows / R), src->n, lin_nregs(&di->ll),
                    (long long)words, MAX_PIECED_MOVE_WORDS);
        return true;
    }
    int64_t piece = R * cols;
    if (base + piece * bytes > L->lds_bytes)
        L->lds_bytes = (int)(base + piece * bytes);
    LLVMTypeRef et = llvm_type(L, from);
    LLVMTypeRef st = ty_is_bool(from) ? L->i8 : et;
    Lds wmap = lds_map(from, bytes, true), rmap = wmap;
    for (int64_t c = 0; c < rows / R; c++) {
        tgt_barrier(L);
        LLVMBasicBlockRef copies = copies_begin(L, &si->ll);
        for (int r = 0; r < src->n; r++) {
            LLVMValueRef idx = lds_offset(L, si, r, &wmap, NULL);
            LLVMValueRef in = LLVMBuildICmp(L->b, LLVMIntEQ, LLVMBuildUDiv(L->b, idx, const_i32(L, piece), ""),
                                            const_i32(L, c), "");
            LLVMBasicBlockRef wr = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "piece.write");
            LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, L->fn, "");
            LLVMBuildCondBr(L->b, in, wr, done);
            LLVMPositionBuilderAtEnd(L->b, wr);
            LLVMValueRef off = LLVMBuildSub(L->b, idx, const_i32(L, c * piece), "");
            LLVMValueRef ptr = tgt_lds_ptr(L, LLVMBuildAdd(L->b, LLVMBuildMul(L->b, off, const_i32(L, bytes), ""),
                                                           const_i32(L, base), ""));
            tgt_check(L, ptr, bytes, EMU_ACCESS_STORE | EMU_ACCESS_LDS);
            LLVMBuildStore(L->b, to_storage(L, src->r[r], from), ptr);
            LLVMBuildBr(L->b, done);
            LLVMPositionBuilderAtEnd(L->b, done);
        }
        copies_end(L, copies);
        tgt_barrier(L);
        for (int r = 0; r < out->n; r++) {
            LLVMValueRef idx = lds_offset(L, di, r, &rmap, NULL);
            LLVMValueRef in = LLVMBuildICmp(L->b, LLVMIntEQ, LLVMBuildUDiv(L->b, idx, const_i32(L, piece), ""),
                                            const_i32(L, c), "");
            /* a lane whose element is in another piece reads the piece's first element and drops it */
            LLVMValueRef off = LLVMBuildSelect(L->b, in, LLVMBuildSub(L->b, idx, const_i32(L, c * piece), ""),
                                               const_i32(L, 0), "");
            LLVMValueRef ptr = tgt_lds_ptr(L, LLVMBuildAdd(L->b, LLVMBuildMul(L->b, off, const_i32(L, bytes), ""),
                                                           const_i32(L, base), ""));
            tgt_check(L, ptr, bytes, EMU_ACCESS_LOAD | EMU_ACCESS_LDS);
            LLVMValueRef v = from_storage(L, LLVMBuildLoad2(L->b, st, ptr, ""), from);
            out->r[r] = c == 0 ? v : LLVMBuildSelect(L->b, in, v, out->r[r], "");
        }
    }
    return true;
}

static LVal lds_move(Lower *L, const LVal *src, const Type *from, const Type *to, const Perm *p)
{
    const LayInfo *si = lay_info(L, from), *di = lay_info(L, to);
    int bytes = elem_bytes(from);
    int64_t numel = ty_numel(from);
    int64_t need = numel * bytes;
    LVal out = lval_new(L, lin_nregs(&di->ll), &di->ll);
    /* too large for the free LDS: in pieces of rows (a move between layouts of one shape only) */
    bool same_shape = !p && from->rank == to->rank && from->rank >= 2 &&
                      !memcmp(from->shape, to->shape, sizeof(int64_t) * (size_t)from->rank);
    if (same_shape && lds_free_offset(L) + need > L->lds_limit &&
        lds_move_rows(L, src, from, to, lds_free_offset(L), &out))
        return out;
    if (need > L->lds_limit) {
        lower_error(L, "moving %s between layouts needs %lld bytes of LDS, more than the %d available",
                    ty_str(L->a, L->f->module->types, from), (long long)need, L->lds_limit);
        return out;
    }
    int base = lds_free_offset(L);
    if (base + need > L->lds_limit && to->layout && to->layout->kind == LAY_DOT_OP) {
        /* a dot operand (the user's tile, at the dot's line): what waits in LDS below it is the dot's
         * other operand, or a ring of pipelined stages */
        char *shape = ty_str(L->a, L->f->module->types, from), *hash = strchr(shape, '#');
        if (hash)
            *hash = 0; /* the element type and shape, without the layout */
        lower_error(L, "this dot's operand %s needs %lld bytes of LDS, and %d of the %d bytes that %s has "
                    "hold what waits there for the dot (its other operand, or pipelined stages): give the "
                    "dot smaller tiles (fewer elements along k, or along %s)",
                    shape, (long long)need, base, L->lds_limit, L->t->name, to->layout->op_idx == 0 ? "m" : "n");
        return out;
    }
    if (base + need > L->lds_limit) {
        lower_error(L, "moving %s between layouts needs %lld more bytes of LDS than the %d available",
                    ty_str(L->a, L->f->module->types, from), (long long)need, L->lds_limit - base);
        return out;
    }
    if (base + need > L->lds_bytes)
        L->lds_bytes = (int)(base + need);
    LLVMTypeRef et = llvm_type(L, from);
    LLVMTypeRef st = ty_is_bool(from) ? L->i8 : et;
    int max_vec = 16 / bytes > 0 ? 16 / bytes : 1;
    /* reshape reads in another shape than it writes: no swizzle, plain row-major for both */
    bool reshape = from->rank != to->rank || memcmp(from->shape, to->shape, sizeof(int64_t) * (size_t)from->rank);
    Lds wmap = lds_map(from, bytes, !reshape || p), rmap = p ? wmap : lds_map(to, bytes, !reshape);
    /* previous users of the scratch must be done before it is overwritten */
    tgt_barrier(L);
    /* writes: the source's row-major order (a permute reads through the permutation instead) */
    int last_src = from->rank - 1;
    LLVMBasicBlockRef copies = copies_begin(L, &si->ll);
    for (int r = 0; r < src->n;) {
        int run = p ? 1 : run_length(&si->ll, r, last_src, max_vec);
        note(L, true, from, si, r, run, bytes, base, &wmap, NULL);
        LLVMValueRef idx = lds_offset(L, si, r, &wmap, NULL);
        LLVMValueRef ptr = tgt_lds_ptr(L, LLVMBuildAdd(L->b, LLVMBuildMul(L->b, idx, const_i32(L, bytes), ""),
                                                       const_i32(L, base), ""));
        tgt_check(L, ptr, run * bytes, EMU_ACCESS_STORE | EMU_ACCESS_LDS);
        LLVMValueRef v;
        if (run == 1) {
            v = to_storage(L, src->r[r], from);
        } else {
            LLVMValueRef xs[64];
            for (int i = 0; i < run; i++)
                xs[i] = to_storage(L, src->r[r + i], from);
            v = vector_of(L, st, xs, run);
        }
        LLVMValueRef s = LLVMBuildStore(L->b, v, ptr);
        LLVMSetAlignment(s, (unsigned)(run * bytes));
        r += run;
    }
    copies_end(L, copies);
    tgt_barrier(L);
    int last_dst = to->rank - 1;
    for (int r = 0; r < out.n;) {
        int run = p ? 1 : run_length(&di->ll, r, last_dst, max_vec);
        note(L, false, to, di, r, run, bytes, base, &rmap, p);
        LLVMValueRef idx = lds_offset(L, di, r, &rmap, p);
        LLVMValueRef ptr = tgt_lds_ptr(L, LLVMBuildAdd(L->b, LLVMBuildMul(L->b, idx, const_i32(L, bytes), ""),
                                                       const_i32(L, base), ""));
        tgt_check(L, ptr, run * bytes, EMU_ACCESS_LOAD | EMU_ACCESS_LDS);
        LLVMTypeRef vt = run == 1 ? st : LLVMVectorType(st, (unsigned)run);
        LLVMValueRef v = LLVMBuildLoad2(L->b, vt, ptr, "");
        LLVMSetAlignment(v, (unsigned)(run * bytes));
        if (run == 1)
            out.r[r] = from_storage(L, v, from);
        else
            for (int i = 0; i < run; i++)
                out.r[r + i] = from_storage(L, LLVMBuildExtractElement(L->b, v, const_i32(L, i), ""), from);
        r += run;
    }
    return out;
}

LVal lds_transfer(Lower *L, const LVal *src, const Type *from, const Type *to)
{
    const LayInfo *si = lay_info(L, from), *di = lay_info(L, to);
    int *map = ARENA_ARRAY(L->a, int, lin_nregs(&di->ll) + 1);
    if (ty_numel(from) == ty_numel(to) && from->rank == to->rank &&
        !memcmp(from->shape, to->shape, sizeof(int64_t) * (size_t)from->rank) &&
        register_map(&si->ll, &di->ll, NULL, map)) {
        LVal out = lval_new(L, lin_nregs(&di->ll), &di->ll);
        for (int r = 0; r < out.n; r++)
            out.r[r] = src->r[map[r]];
        return out;
    }
    return lds_move(L, src, from, to, NULL);
}

static bool deferrable(Lower *L, Op *op);
static bool rotated(const Op *op);
static Deferred *defer_operand(Lower *L, const LVal *src, const Type *from, const Type *to);

void lower_convert(Lower *L, Op *op)
{
    const Type *from = op->operands[0]->type, *to = op->results[0].type;
    LVal *src = lval(L, op->operands[0]);
    if (to->kind != TY_TILE) { /* reshape of a one-element tile to a scalar cannot happen; be safe */
        lval_set(L, op_result(op, 0), *src);
        return;
    }
    if (from->kind != TY_TILE) { /* reshape of a scalar: a splat */
        LVal out = lval_new(L, lin_nregs(&lay_info(L, to)->ll), &lay_info(L, to)->ll);
        for (int r = 0; r < out.n; r++)
            out.r[r] = src->r[0];
        lval_set(L, op_result(op, 0), out);
        return;
    }
    if (op->code == OP_PERMUTE) {
        Perm p;
        p.n = op->at.ndims;
        memcpy(p.dims, op->at.dims, sizeof p.dims);
        const LayInfo *si = lay_info(L, from), *di = lay_info(L, to);
        int *map = ARENA_ARRAY(L->a, int, lin_nregs(&di->ll) + 1);
        if (register_map(&si->ll, &di->ll, &p, map)) {
            LVal out = lval_new(L, lin_nregs(&di->ll), &di->ll);
            for (int r = 0; r < out.n; r++)
                out.r[r] = src->r[map[r]];
            lval_set(L, op_result(op, 0), out);
            return;
        }
        lval_set(L, op_result(op, 0), lds_move(L, src, from, to, &p));
        return;
    }
    if (op->code == OP_RESHAPE) {
        lval_set(L, op_result(op, 0), lds_move(L, src, from, to, NULL));
        return;
    }
    if (op->code == OP_CONVERT_LAYOUT && lower_is_shared_tile(from)) {
        /* a tile in a cp.async stage buffer: the dot reads it there with ldmatrix */
        const Layout *tl = to->layout;
        if (tl->kind != LAY_DOT_OP || tl->parent->kind != LAY_MMA || ty_bits(ty_elem(from)) != 16) {
            lower_error(L, "internal error: a shared tile converted to something other than an mma operand");
            return;
        }
        async_wait(L, op);
        Deferred *d = ARENA_NEW(L->a, Deferred);
        d->to = to;
        d->offset = 0;
        d->base_v = src->r[0];
        d->bytes = 2;
        d->rank = 2;
        /* a column-major buffer holds a B operand [K, N] as [N, K]: k fastest, read untransposed */
        d->kmajor = from->layout->order[0] == 0;
        if (d->kmajor && tl->op_idx != 1) {
            lower_error(L, "internal error: a column-major shared tile used as an A operand");
            return;
        }
        d->shape[0] = from->shape[d->kmajor ? 1 : 0];
        d->shape[1] = from->shape[d->kmajor ? 0 : 1];
        d->vec = 8;
        d->nch = from->layout->max_phase;
        d->pp = from->layout->per_phase;
        d->ldsm = true;
        d->stage = true;
        L->deferred[op->results[0].scratch] = d;
        lval_set(L, op_result(op, 0), lval_new(L, 0, &lay_info(L, to)->ll));
        return;
    }
    if (op->code == OP_CONVERT_LAYOUT && deferrable(L, op)) {
        /* a rotated operand was written before the loop, and is at the end of each iteration */
        Deferred *d = rotated(op) ? L->deferred[op->results[0].scratch] : defer_operand(L, src, from, to);
        if (!d && rotated(op) && !L->failed)
            lower_error(L, "internal error: a rotated dot operand without its loop's writes");
        if (d) {
            L->deferred[op->results[0].scratch] = d;
            lval_set(L, op_result(op, 0), lval_new(L, 0, &lay_info(L, to)->ll));
            return;
        }
    }
    lval_set(L, op_result(op, 0), lds_transfer(L, src, from, to));
}

/* ---- dot operands read by the dot ---- */

int lds_free_offset(Lower *L)
{
    const OpPlan *pl = L->op ? L->op->plan : NULL; /* allocate_lds's offset for the op being lowered */
    return pl && (pl->set & (1u << PK_LDS)) ? (int)pl->v[PK_LDS] : 0;
}

/* Writes a tile into a fresh LDS region for a dot to read later; a barrier before the first write
 * protects the regions from the previous readers, and so does one before a later region's writes
 * when LDS was read since the last barrier: a layout conversion between two deferred operands (a
 * dot's B computed by another dot and transposed) reads its scratch where the next region goes. The
 * race checker found it (8 waves: wave 0 writing the next operand while wave 4 still read). */
/* AMD: the LDS map of a deferred operand that keeps the LDS busiest for the fewest clocks, by
 * lds_banks.c's model. The MFMA operands give 16 or 32 consecutive lanes 16 or 32 rows at one k, and
 * rows of a multiple of 128 bytes put them all in one bank (16 ways); the writes of a B transposed from
 * its loads' layout touch rows 8 apart. The candidates:
 *  - rows as they are (first: it wins ties, so a conflict-free operand keeps its map);
 *  - an XOR swizzle (no LDS): chunks of `vec` elements (the reads' k_width, or 16 bytes) of a row
 *    XORed with its phase, (row / pp ^ (row >> xs) << xl) & (nch - 1), rows narrower than 128 bytes
 *    sharing a phase (pp) as in Triton's AMD shared encoding for MFMA operands (vec = k_width,
 *    perPhase = 128 bytes / row, maxPhase = min(16 / perPhase, chunks)), and xs > 0 also spreading
 *    the rows a whole phase cycle apart that a write touches together over the chunks 1 << xl apart
 *    (xl up to log2(nch) - 1; not in a frugal lowering, LowerChoice.frugal: the spread costs
 *    addresses). A write whose lanes cover two chunks of a row (bench/vs_triton's 64x32x64 w4 k32:
 *    B's 16-bit writes, rows 8 and 16 apart) needs it in the second bit; xl = 0 left them 2-way.
 *    A wider spread is a candidate only where it has fewer conflicts (ways) than xl = 0: taken for
 *    its fewer addresses alone it cost 256x256x64 w8 k32 2-way writes (4149 -> 4253 cycles);
 *  - with `padded` (allocate_lds's `defer = 2`), rows padded by a multiple of the accesses' widths,
 *    at most DEFER_PAD_BYTES (kept where the swizzle does no better).
 * The measure: the LDS clocks of a workgroup's writes and reads, wave 0's (each pass of an access
 * takes as many clocks as its worst bank's ways: a 16-bit write 4-way conflicted takes 4 of one
 * pass, a 128-bit one 2-way 16 of 8) times the workgroup's waves, which all go through the CU's one
 * LDS; plus BASE_CLOCKS for each distinct address the writes and the reads compute (lds_reg_offset's
 * bases: a swizzle keeps the constant offsets only of registers that do not change the phase; each
 * other address is a VGPR held across the loop); ties go to fewer addresses, then to the earlier
 * candidate. Writes under a swizzle are at most `vec` elements. BASE_CLOCKS is an exchange rate fitted
 * over bench/tile_sweep.py's 1,478 configurations (gfx942, gfx90a, gfx950; 6 and 12 did worse on
 * gfx950): fewer waves weigh the conflicts less against the addresses, as their lanes hold larger
 * tiles (8 waves: an address is worth a clock of conflicts; 2 waves: four). An address costs nothing
 * until the registers run short; where they are (registers_short), the measure is the frugal one
 * that came before: each access's worst ways, twice for a read, plus BASE_WAYS an address (the
 * vs_triton attention kernel's V took 18 VGPRs more and a longer loop by the clocks).
 * docs/performance.md has the figures. */
enum { BASE_CLOCKS = 8, BASE_WAYS = 2 };
typedef struct MapCost {
    long clocks, ways;
    int bases;
} MapCost;

/* `at` into the set seen[0 .. *n) of distinct address registers (at most 256). */
static void add_base(int *seen, int *n, int at)
{
    for (int i = 0; i < *n; i++)
        if (seen[i] == at)
            return;
    if (*n < 256)
        seen[(*n)++] = at;
}

static MapCost map_cost(Lower *L, const LayInfo *si, const LayInfo *di, const Type *to, const Lds *map,
                        const Perm *p, int bytes, const int *bits, int nb)
{
    int kw = to->layout->k_width > 0 ? to->layout->k_width : 1;
    int kdim = to->layout->op_idx == 1 ? 0 : 1;
    while (map->nch > 1 && nb > 0 && 1 << nb > map->vec)
        nb--;
    int groupmask = 0;
    for (int i = 0; i < nb; i++)
        groupmask |= 1 << bits[i];
    MapCost c = {0, 0, 0};
    LdsView v = lds_view(map, p);
    int seen[256], nseen = 0;
    int sfree = reg_free_bits(&si->ll, map, p), dfree = reg_free_bits(&di->ll, map, p);
    for (int r = 0; r < lin_nregs(&si->ll); r++) {
        if (r & groupmask)
            continue;
        LdsAccess acc = {&si->ll, r, 1 << nb, bytes, 0, lds_index, &v, 0};
        c.clocks += lds_clocks(L, &acc, &c.ways, 1);
        int at;
        reg_offset_with(si, r, map, p, sfree, &at);
        add_base(seen, &nseen, at);
    }
    c.bases = nseen; /* the writes' addresses (registers of the source layout) */
    nseen = 0;
    for (int r = 0; r < lin_nregs(&di->ll); r++) {
        int64_t co[TIR_MAX_RANK];
        lin_reg_coords(&di->ll, r, co);
        if (co[kdim] % kw)
            continue;
        LdsAccess acc = {&di->ll, r, kw, bytes, 0, lds_index, &v, 0};
        c.clocks += lds_clocks(L, &acc, &c.ways, 2);
        int at;
        reg_offset_with(di, r, map, p, dfree, &at);
        add_base(seen, &nseen, at);
    }
    c.bases += nseen;
    c.clocks *= L->nw;
    return c;
}

/* short_regs: measured by the ways (registers_short) */
static bool cheaper(MapCost a, MapCost b, bool short_regs)
{
    long ca = short_regs ? a.ways + BASE_WAYS * a.bases : a.clocks + BASE_CLOCKS * a.bases;
    long cb = short_regs ? b.ways + BASE_WAYS * b.bases : b.clocks + BASE_CLOCKS * b.bases;
    return ca < cb || (ca == cb && a.bases < b.bases);
}

/* Whether the registers are short around the op being lowered (a deferred operand's convert, in or
 * before its loop): twice the loop's estimated registers (reg_pressure.c) exceed what a lane may use
 * at the waves the LDS allows, or that the kernel asks for (waves_per_eu), at most 256 (the VGPRs an
 * address can be in). Twice: the estimate leaves out what LLVM adds, the addresses themselves
 * included; with the estimate alone examples/attention.tile at waves_per_eu = 5 spilled 10 VGPRs. */
static bool registers_short(Lower *L, int64_t lds_end)
{
    if (lower_choice(L)->frugal)
        return true;
    int64_t lds = 0;
    int est = lower_loop_pressure(L, L->op, &lds);
    if (lds < lds_end)
        lds = lds_end;
    int simd_waves = (L->nw + L->t->simds_per_cu - 1) / L->t->simds_per_cu;
    int budget = lower_lds_budget(L, lds, simd_waves);
    int asked = lower_waves_asked(L); /* the occupancy the kernel asks for caps its registers */
    if (asked > 0) {
        int cap = L->t->vgpr_file / (asked < L->t->max_waves_per_simd ? asked : L->t->max_waves_per_simd);
        budget = budget < cap ? budget : cap;
    }
    return 2 * (int64_t)est > (budget < 256 ? budget : 256);
}

static void operand_map(Lower *L, const LayInfo *si, const LayInfo *di, const Type *to, Lds *map, const Perm *p,
                        int bytes, const int *bits, int nb, bool padded, bool short_regs)
{
    int kw = to->layout->k_width > 0 ? to->layout->k_width : 1;
    int step = kw > 1 << nb ? kw : 1 << nb; /* keeps every read and write aligned to its width */
    int64_t cols = map->shape[1], pitch = cols * bytes;
    Lds best = *map, m = *map;
    MapCost bc = map_cost(L, si, di, to, map, p, bytes, bits, nb);
    int vecs[2] = {kw, 16 / bytes > kw ? 16 / bytes : kw};
    for (int vi = 0; vi < (vecs[1] > vecs[0] ? 2 : 1); vi++) {
        int vec = vecs[vi];
        int64_t units = cols % vec ? 0 : cols / vec;
        int pp = pitch >= 128 ? 1 : (int)(128 / pitch);
        for (int nch = 2; nch <= units && nch <= 32; nch *= 2) {
            long spread_ways = 0; /* the ways of the spread over adjacent chunks (xl = 0) */
            for (int xs = 0; xs <= (lower_choice(L)->frugal ? 1 : __builtin_ctz((unsigned)nch)); xs++) {
                m = *map;
                m.vec = vec, m.nch = nch, m.pp = pp, m.fold = true;
                m.xs = xs ? __builtin_ctz((unsigned)(nch * pp)) : 0;
                m.xl = xs ? xs - 1 : 0;
                MapCost c = map_cost(L, si, di, to, &m, p, bytes, bits, nb);
                if (xs == 1)
                    spread_ways = c.ways;
                if (m.xl > 0 && c.ways >= spread_ways)
                    continue; /* a wider spread is for conflicts, not for fewer addresses */
                if (cheaper(c, bc, short_regs))
                    best = m, bc = c;
            }
        }
    }
    for (int pad = step; padded && pad * bytes <= DEFER_PAD_BYTES; pad += step) {
        m = *map;
        m.pad = pad;
        MapCost c = map_cost(L, si, di, to, &m, p, bytes, bits, nb);
        if (cheaper(c, bc, short_regs))
            best = m, bc = c;
    }
    *map = best;
}

/* The register bits of a tile written in runs consecutive along the LDS-fastest dimension of a
 * deferred operand: the bits whose bases step that dimension by 1, 2, 4... (wherever they sit in the
 * register index), at most 16 bytes a run. */
static int run_bits(const LayInfo *si, const Type *from, bool kmajor, int *bits)
{
    int max_vec = 16 / elem_bytes(from) > 0 ? 16 / elem_bytes(from) : 1;
    int fast = kmajor ? 0 : from->rank - 1;
    int nb = 0;
    for (int want = 1; nb < 8 && want <= max_vec / 2 + 0; want *= 2) {
        int found = -1;
        for (int b = 0; b < si->ll.nreg; b++) {
            bool only = si->ll.reg[b][fast] == want;
            for (int dd = 0; dd < from->rank; dd++)
                only &= dd == fast || si->ll.reg[b][dd] == 0;
            if (only)
                found = b;
        }
        if (found < 0)
            break;
        bits[nb++] = found;
    }
    return nb;
}

/* The region and LDS map of the deferred operand that L->op (a `defer` convert) leaves for its dot;
 * no code. */
static Deferred *defer_plan(Lower *L, const Type *from, const Type *to)
{
    const LayInfo *si = lay_info(L, from);
    int bytes = elem_bytes(from);
    int64_t need = ty_numel(from) * bytes;
    int base = (lds_free_offset(L) + 15) / 16 * 16;
    if (base + need > L->lds_limit) {
        lower_error(L, "internal error: a deferred dot operand that does not fit in LDS");
        return NULL;
    }
    Deferred *d = ARENA_NEW(L->a, Deferred);
    d->to = to;
    d->offset = base;
    d->bytes = bytes;
    d->rank = from->rank;
    /* Both operands are stored with k fastest, so a lane's k-consecutive elements are one LDS read:
     * A [M, K] as it is, B [K, N] transposed to [N, K]. Rows are not swizzled: every fragment of a
     * lane is then at a constant offset from one base address, which the reads fold into their offset
     * fields instead of keeping an address register per k step. */
    d->kmajor = to->layout->op_idx == 1;
    /* sm_90 keeps B as it was loaded: [K, N] with n fastest, read transposed (ldmatrix .trans), or,
     * when k is the fastest dimension of its registers (Kᵀ in attention), [N, K] with k fastest, read
     * as it is; either way the tile is written with the registers' own 128-bit runs. */
    if (L->t->warp_mma && bytes == 2)
        d->kmajor = d->kmajor && from->layout->kind == LAY_BLOCKED && from->rank == 2 && from->layout->order[0] == 0;
    if (d->kmajor) {
        d->shape[0] = from->shape[1];
        d->shape[1] = from->shape[0];
    } else {
        memcpy(d->shape, from->shape, sizeof(int64_t) * (size_t)from->rank);
    }
    d->vec = 16 / bytes > 0 ? 16 / bytes : 1;
    d->nch = 1;
    d->pp = 1;
    /* sm_90 reads 16-bit operands with ldmatrix: eight lanes give the addresses of eight rows' 16-byte
     * chunks at once, so the chunks are XOR-swizzled by the row (rows narrower than 128 bytes sharing
     * a phase) and the eight land in different banks. A's rows are m, B's are k. */
    int64_t pitch = d->shape[1] * bytes, chunks = pitch / 16;
    if (L->t->warp_mma && bytes == 2 && d->rank == 2 && chunks >= 2) {
        d->ldsm = true;
        d->nch = (int)(chunks < 8 ? chunks : 8);
        d->pp = pitch >= 128 ? 1 : (int)(128 / pitch);
    }
    if (!L->t->warp_mma && d->rank == 2) {
        Lds map;
        map.rank = d->rank;
        memcpy(map.shape, d->shape, sizeof map.shape);
        map.vec = d->vec;
        map.nch = d->nch;
        map.pp = d->pp;
        map.xs = 0;
        map.xl = 0;
        map.pad = 0;
        map.fold = false;
        Perm tr = {2, {1, 0}};
        int bits[8], nb = run_bits(si, from, d->kmajor, bits);
        bool short_regs = registers_short(L, base + need);
        operand_map(L, si, lay_info(L, to), to, &map, d->kmajor ? &tr : NULL, bytes, bits, nb,
                    L->op->plan->v[PK_DEFER] == 2, short_regs);
        L->spends |= !short_regs || map.xl > 0;
        d->pad = map.pad, d->vec = map.vec, d->nch = map.nch, d->pp = map.pp, d->xs = map.xs, d->xl = map.xl;
        need = d->shape[0] * (d->shape[1] + d->pad) * bytes;
        if (base + need > L->lds_limit) {
            lower_error(L, "internal error: a deferred dot operand that does not fit in LDS");
            return NULL;
        }
    }
    if (base + need > L->lds_bytes)
        L->lds_bytes = (int)(base + need);
    return d;
}

/* The LDS map a deferred operand was written with, as its writes and reads follow it: on AMD a
 * swizzled access keeps what constant offsets it can (only a swizzle, nch > 1, reads `fold`). */
static Lds deferred_map(const Lower *L, const Deferred *d)
{
    Lds map;
    map.rank = d->rank;
    memcpy(map.shape, d->shape, sizeof map.shape);
    map.vec = d->vec;
    map.nch = d->nch;
    map.pp = d->pp;
    map.xs = d->xs;
    map.xl = d->xl;
    map.pad = d->pad;
    map.fold = !L->t->warp_mma;
    return map;
}

/* The register bits of one store of d's writes (the run's registers). */
static int write_bits(Lower *L, const Deferred *d, const Type *from, int *bits)
{
    int nb = run_bits(lay_info(L, from), from, d->kmajor, bits);
    if (!L->t->warp_mma && d->rank == 2)
        while (d->nch > 1 && nb > 0 && 1 << nb > d->vec) /* a write stays within a chunk */
            nb--;
    return nb;
}

/* The number of stores of d's writes of src, a tile of type `from`. */
static int defer_stores(Lower *L, const Deferred *d, const LVal *src, const Type *from)
{
    int bits[8], nb = write_bits(L, d, from, bits), groupmask = 0, n = 0;
    for (int i = 0; i < nb; i++)
        groupmask |= 1 << bits[i];
    for (int r = 0; r < src->n; r++)
        n += !(r & groupmask);
    return n;
}

/* Writes the tile src (of type `from`) into the deferred operand d's region, by d's map; `notes`: its
 * accesses go to the LDS remarks. No barrier: the caller's. Only the stores numbered lo <= *n < hi,
 * counting on from *n (every store where n is NULL): a rotated operand's writes in parts. */
static void defer_write_part(Lower *L, const Deferred *d, const LVal *src, const Type *from, bool notes, int *n,
                             int lo, int hi)
{
    const LayInfo *si = lay_info(L, from);
    int bytes = d->bytes;
    Lds map = deferred_map(L, d);
    Perm tr = {2, {1, 0}};
    LLVMTypeRef st = llvm_type(L, from);
    int bits[8], nb = write_bits(L, d, from, bits);
    int groupmask = 0;
    for (int i = 0; i < nb; i++)
        groupmask |= 1 << bits[i];
    int base = d->offset;
    LLVMBasicBlockRef copies = copies_begin(L, &si->ll);
    for (int r = 0; r < src->n; r++) {
        if (r & groupmask)
            continue; /* written with its group's first register */
        if (n && (*n)++ < lo)
            continue;
        if (n && *n > hi)
            break;
        int run = 1 << nb;
        LLVMValueRef *xs = ARENA_ARRAY(L->a, LLVMValueRef, run);
        for (int j = 0; j < run; j++) {
            int rr = r;
            for (int i = 0; i < nb; i++)
                if (j >> i & 1)
                    rr |= 1 << bits[i];
            xs[j] = src->r[rr];
        }
        if (notes)
            note(L, true, from, si, r, run, bytes, base, &map, d->kmajor ? &tr : NULL);
        int at;
        int64_t k = lds_reg_offset(si, r, &map, d->kmajor ? &tr : NULL, &at);
        LLVMValueRef idx = lds_offset(L, si, at, &map, d->kmajor ? &tr : NULL);
        LLVMValueRef ptr = tgt_lds_ptr(L, LLVMBuildAdd(L->b, LLVMBuildMul(L->b, idx, const_i32(L, bytes), ""),
                                                       const_i32(L, base), ""));
        if (k != 0)
            ptr = LLVMBuildGEP2(L->b, L->i8, ptr, (LLVMValueRef[]){const_i32(L, k * bytes)}, 1, "");
        tgt_check(L, ptr, run * bytes, EMU_ACCESS_STORE | EMU_ACCESS_LDS);
        LLVMValueRef v;
        if (run == 1) {
            v = xs[0];
        } else {
            v = vector_of(L, st, xs, run);
        }
        LLVMValueRef s = LLVMBuildStore(L->b, v, ptr);
        LLVMSetAlignment(s, (unsigned)(run * bytes));
    }
    copies_end(L, copies);
}

static void defer_write(Lower *L, const Deferred *d, const LVal *src, const Type *from, bool notes)
{
    defer_write_part(L, d, src, from, notes, NULL, 0, 0);
}

static Deferred *defer_operand(Lower *L, const LVal *src, const Type *from, const Type *to)
{
    if ((lds_free_offset(L) + 15) / 16 * 16 + ty_numel(from) * elem_bytes(from) > L->lds_limit) {
        lower_error(L, "internal error: a deferred dot operand that does not fit in LDS");
        return NULL;
    }
    /* the first region above the floor (the ones before were freed by their dot), or LDS was read */
    if (lds_free_offset(L) == L->lds_floor || L->lds_read)
        tgt_barrier(L);
    Deferred *d = defer_plan(L, from, to);
    if (d)
        defer_write(L, d, src, from, true);
    return d;
}

/* ---- rotated operands (allocate_lds's `rotate`): written outside their convert ---- */

static bool rotated(const Op *op)
{
    return op->code == OP_CONVERT_LAYOUT && op->plan && (op->plan->set & (1u << PK_ROTATE)) && op->plan->v[PK_ROTATE];
}

/* Before the loop: each rotated operand's region gets the loop's initial tile, as its convert would
 * have written it at the top of the first iteration (the same barrier, map and remarks). The dot's
 * own barrier makes the writes visible to its reads. The remarks count the loop's writes of the
 * region too (the same accesses, which note nothing where they are emitted). */
bool defer_rotate_begin(Lower *L, Op *loop)
{
    Block *body = op_block(loop, 0);
    const Op *saved = L->op;
    SrcPos pos = L->pos;
    bool any = false;
    for (Op *cv = body->first; cv && !L->failed; cv = cv->next) {
        if (!rotated(cv))
            continue;
        L->op = cv;
        L->pos = cv->pos;
        const Value *x = cv->operands[0];
        int i = (int)(x - body->args); /* a carried tile: 1 <= i (the verifier's) */
        lay_info(L, x->type); /* both layouts' lane coordinates first, as deferrable does */
        lay_info(L, cv->results[0].type);
        Deferred *d = defer_operand(L, lval(L, loop->operands[2 + i]), x->type, cv->results[0].type);
        L->deferred[cv->results[0].scratch] = d;
        lds_note_rotated(L);
        lds_note_flush(L);
        any = true;
    }
    L->op = saved;
    L->pos = pos;
    return any;
}

/* At the body's end: one barrier after the body's last read of the regions (its dot's), then each
 * rotated operand's region gets the tile the body yields for it, the next iteration's. After the
 * loop the last iteration's writes may still be under way in other waves: the next deferred write
 * waits (lds_read), as every other writer of LDS does anyway. */
void defer_rotate_end(Lower *L, Op *loop)
{
    Block *body = op_block(loop, 0);
    const Op *y = body->last;
    tgt_sched_fence(L); /* the writes' repacking stays after the reads; MFMAs may cross */
    tgt_barrier(L);
    for (Op *cv = body->first; cv && !L->failed; cv = cv->next) {
        const Deferred *d = rotated(cv) ? L->deferred[cv->results[0].scratch] : NULL;
        if (!d)
            continue;
        const Value *x = cv->operands[0];
        defer_write(L, d, lval(L, y->operands[x - body->args - 1]), x->type, false);
    }
}

/* Can `dot` write its loop's rotated operands itself, after its last read of them (lower_dot.c's
 * dot_mfma)? Where the dot is directly in the body, the only reader of every rotated operand, and
 * the tiles the body yields for them are computed before it. Returns the number of stores (0: no),
 * and in *bytes the bytes the workgroup writes. */
int defer_rotate_early(Lower *L, const Op *dot, int64_t *bytes)
{
    *bytes = 0;
    Op *loop = L->rot_loop;
    if (!loop || L->rot_done)
        return 0;
    Block *body = op_block(loop, 0);
    const Op *y = body->last, *o;
    for (o = body->first; o && o != dot; o = o->next)
        ;
    if (!o)
        return 0;
    int n = 0;
    for (Op *cv = body->first; cv; cv = cv->next) {
        const Deferred *d = rotated(cv) ? L->deferred[cv->results[0].scratch] : NULL;
        if (!rotated(cv))
            continue;
        const Value *r = &cv->results[0], *x = cv->operands[0];
        if (!d || L->uses[r->scratch] != 1 || (dot->operands[0] != r && dot->operands[1] != r))
            return 0;
        const LVal *src = lval(L, y->operands[x - body->args - 1]);
        if (!src->r || copies_replicated(L, &lay_info(L, x->type)->ll))
            return 0;
        n += defer_stores(L, d, src, x->type);
    }
    *bytes = defer_rotate_bytes(L, dot); /* every rotated operand is the dot's here */
    return n;
}

int64_t defer_rotate_bytes(Lower *L, const Op *dot)
{
    if (!L->rot_loop)
        return 0;
    int64_t bytes = 0;
    for (Op *cv = op_block(L->rot_loop, 0)->first; cv; cv = cv->next) {
        const Deferred *d = rotated(cv) ? L->deferred[cv->results[0].scratch] : NULL;
        if (d && (dot->operands[0] == &cv->results[0] || dot->operands[1] == &cv->results[0]))
            bytes += ty_numel(cv->operands[0]->type) * d->bytes;
    }
    return bytes;
}

/* The rotated writes numbered lo <= i < hi (defer_rotate_early's count), the barrier before the
 * first: defer_rotate_end's work, done by the dot in parts between its last k steps' MFMAs. */
void defer_rotate_write(Lower *L, int lo, int hi)
{
    Block *body = op_block(L->rot_loop, 0);
    const Op *y = body->last;
    if (lo == 0 && hi > lo) { /* once, before the first write */
        tgt_sched_barrier(L, 0);
        tgt_barrier(L);
        tgt_sched_barrier(L, 0);
    }
    int n = 0;
    for (Op *cv = body->first; cv && !L->failed && n < hi; cv = cv->next) {
        const Deferred *d = rotated(cv) ? L->deferred[cv->results[0].scratch] : NULL;
        if (!d)
            continue;
        const Value *x = cv->operands[0];
        defer_write_part(L, d, lval(L, y->operands[x - body->args - 1]), x->type, false, &n, lo, hi);
    }
    L->rot_done = true;
}

void deferred_read(Lower *L, const Deferred *d, int r, int n, LLVMValueRef *out)
{
    const LayInfo *di = lay_info(L, d->to);
    Lds map = deferred_map(L, d);
    Perm tr = {2, {1, 0}};
    if (!d->base_v)
        note(L, false, d->to, di, r, n, d->bytes, d->offset, &map, d->kmajor ? &tr : NULL);
    int at;
    int64_t k = lds_reg_offset(di, r, &map, d->kmajor ? &tr : NULL, &at);
    LLVMValueRef idx = lds_offset(L, di, at, &map, d->kmajor ? &tr : NULL);
    LLVMValueRef ptr = tgt_lds_ptr(L, LLVMBuildAdd(L->b, LLVMBuildMul(L->b, idx, const_i32(L, d->bytes), ""),
                                                   d->base_v ? d->base_v : const_i32(L, d->offset), ""));
    if (k != 0)
        ptr = LLVMBuildGEP2(L->b, L->i8, ptr, (LLVMValueRef[]){const_i32(L, k * d->bytes)}, 1, "");
    tgt_check(L, ptr, n * d->bytes, EMU_ACCESS_LOAD | EMU_ACCESS_LDS);
    LLVMTypeRef et = llvm_type(L, d->to);
    if (n == 1) {
        LLVMValueRef v = LLVMBuildLoad2(L->b, et, ptr, "");
        LLVMSetAlignment(v, (unsigned)d->bytes);
        out[0] = v;
        return;
    }
    LLVMValueRef v = LLVMBuildLoad2(L->b, LLVMVectorType(et, (unsigned)n), ptr, "");
    LLVMSetAlignment(v, (unsigned)(n * d->bytes));
    for (int i = 0; i < n; i++)
        out[i] = LLVMBuildExtractElement(L->b, v, const_i32(L, i), "");
}

/* The bytes from register r0's LDS read to register r1's where both reads take their address from
 * one base (lds_reg_offset: the same address computation, the distance a constant in the offset
 * fields); INT64_MIN where each computes its own. */
int64_t deferred_read_distance(Lower *L, const Deferred *d, int r0, int r1)
{
    const LayInfo *di = lay_info(L, d->to);
    Lds map = deferred_map(L, d);
    Perm tr = {2, {1, 0}};
    int a0, a1;
    int64_t k0 = lds_reg_offset(di, r0, &map, d->kmajor ? &tr : NULL, &a0);
    int64_t k1 = lds_reg_offset(di, r1, &map, d->kmajor ? &tr : NULL, &a1);
    return a0 == a1 ? (k1 - k0) * d->bytes : INT64_MIN;
}

LLVMValueRef deferred_chunk_ptr(Lower *L, const Deferred *d, LLVMValueRef row, LLVMValueRef chunk)
{
    assert(d->xs == 0 && d->pad == 0); /* sm_90's maps only: operand_map's are AMD's */
    if (d->stage)
        return tgt_lds_ptr(L, LLVMBuildAdd(L->b, stage_chunk_offset(L, row, chunk, d->shape[1] * d->bytes, d->shape[0]),
                                           d->base_v, ""));
    LLVMValueRef c = chunk;
    if (d->nch > 1) {
        LLVMValueRef prow = d->pp > 1 ? LLVMBuildLShr(L->b, row, const_i32(L, __builtin_ctz((unsigned)d->pp)), "") : row;
        c = LLVMBuildXor(L->b, c, LLVMBuildAnd(L->b, prow, const_i32(L, d->nch - 1), ""), "");
    }
    LLVMValueRef idx = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, row, const_i32(L, d->shape[1]), ""),
                                    LLVMBuildMul(L->b, c, const_i32(L, d->vec), ""), "");
    return tgt_lds_ptr(L, LLVMBuildAdd(L->b, LLVMBuildMul(L->b, idx, const_i32(L, d->bytes), ""),
                                       d->base_v ? d->base_v : const_i32(L, d->offset), ""));
}

/* Is this convert's result a dot operand that the dot can read from LDS itself? */
static bool deferrable(Lower *L, Op *op)
{
    if (!op->plan || !(op->plan->set & (1u << PK_DEFER)) || !op->plan->v[PK_DEFER])
        return false; /* allocate_lds's decision */
    lay_info(L, op->operands[0]->type); /* both layouts' lane coordinates first, as a transfer makes them */
    lay_info(L, op->results[0].type);
    return true;
}
