/* Moving a tile between layouts: convert_layout, reshape and permute.
 *
 * When both layouts give every lane and wave the same elements (they differ only in how a lane numbers
 * its registers), the move is a renaming of registers and costs nothing. Otherwise the tile goes
 * through LDS: every lane writes its elements at their row-major offset, the workgroup synchronises,
 * and every lane reads the elements its new layout gives it. Reshape is the same with the destination's
 * own shape (row-major order is what reshape preserves), permute with permuted coordinates. Runs of
 * consecutive registers that are consecutive in LDS move as one vector access. */
#include <string.h>

#include "compiler/lower/lower_internal.h"
#include "runtime/emu/emu_abi.h"

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

/* This lane's row-major element index (as i32) of register r of li, in a tile of the given shape;
 * with a permutation, the coordinates are first mapped back to the source's. */
static LLVMValueRef linear_index(Lower *L, const LayInfo *li, int r, const int64_t *shape, int rank, const Perm *p)
{
    LLVMValueRef acc = const_i32(L, 0);
    int64_t stride = 1;
    LLVMValueRef coord[TIR_MAX_RANK];
    for (int d = 0; d < li->ll.rank; d++)
        coord[d] = reg_coord(L, li, r, d);
    for (int d = rank - 1; d >= 0; d--) {
        LLVMValueRef c;
        if (p) {
            int k = -1;
            for (int i = 0; i < p->n; i++)
                if (p->dims[i] == d)
                    k = i;
            c = coord[k];
        } else {
            c = coord[d];
        }
        LLVMValueRef term = stride == 1 ? c : LLVMBuildMul(L->b, c, const_i32(L, stride), "");
        acc = LLVMBuildAdd(L->b, acc, term, "");
        stride *= shape[d];
    }
    return acc;
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

static LVal lds_move(Lower *L, const LVal *src, const Type *from, const Type *to, const Perm *p)
{
    const LayInfo *si = lay_info(L, from), *di = lay_info(L, to);
    int bytes = elem_bytes(from);
    int64_t numel = ty_numel(from);
    int64_t need = numel * bytes;
    LVal out = lval_new(L, lin_nregs(&di->ll), &di->ll);
    if (need > L->lds_limit) {
        lower_error(L, "moving %s between layouts needs %lld bytes of LDS, more than the %d available",
                    ty_str(L->a, L->f->module->types, from), (long long)need, L->lds_limit);
        return out;
    }
    if (need > L->lds_bytes)
        L->lds_bytes = (int)need;
    LLVMTypeRef et = llvm_type(L, from);
    LLVMTypeRef st = ty_is_bool(from) ? L->i8 : et;
    int max_vec = 16 / bytes > 0 ? 16 / bytes : 1;
    /* previous users of the scratch must be done before it is overwritten */
    tgt_barrier(L);
    /* writes: the source's row-major order (a permute reads through the permutation instead) */
    int last_src = from->rank - 1;
    for (int r = 0; r < src->n;) {
        int run = p ? 1 : run_length(&si->ll, r, last_src, max_vec);
        LLVMValueRef idx = linear_index(L, si, r, from->shape, from->rank, NULL);
        LLVMValueRef ptr = tgt_lds_ptr(L, LLVMBuildMul(L->b, idx, const_i32(L, bytes), ""));
        tgt_check(L, ptr, run * bytes, EMU_ACCESS_STORE | EMU_ACCESS_LDS);
        LLVMValueRef v;
        if (run == 1) {
            v = to_storage(L, src->r[r], from);
        } else {
            v = LLVMGetUndef(LLVMVectorType(st, (unsigned)run));
            for (int i = 0; i < run; i++)
                v = LLVMBuildInsertElement(L->b, v, to_storage(L, src->r[r + i], from), const_i32(L, i), "");
        }
        LLVMValueRef s = LLVMBuildStore(L->b, v, ptr);
        LLVMSetAlignment(s, (unsigned)(run * bytes));
        r += run;
    }
    tgt_barrier(L);
    int last_dst = to->rank - 1;
    for (int r = 0; r < out.n;) {
        int run = p ? 1 : run_length(&di->ll, r, last_dst, max_vec);
        LLVMValueRef idx = p ? linear_index(L, di, r, from->shape, from->rank, p)
                             : linear_index(L, di, r, to->shape, to->rank, NULL);
        LLVMValueRef ptr = tgt_lds_ptr(L, LLVMBuildMul(L->b, idx, const_i32(L, bytes), ""));
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
    lval_set(L, op_result(op, 0), lds_transfer(L, src, from, to));
}
