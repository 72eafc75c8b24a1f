/* Elementwise lowering: every register of the result from the same register of the operands, with
 * the language's semantics made explicit where LLVM leaves them undefined (division by zero and
 * MIN / -1, shift amounts, float-to-int overflow), plus the ops that only re-index registers
 * (constants, arange, splat, broadcast, expand_dims, hints) and the scalar ids. bf16 arithmetic is
 * done in f32 and rounded back after each op, as the interpreter does. */
#include <string.h>

#include "compiler/lower/lower_internal.h"

static LLVMValueRef intr(Lower *L, const char *name, LLVMTypeRef t, LLVMValueRef *args, int n)
{
    char full[96];
    const char *suffix;
    LLVMTypeKind k = LLVMGetTypeKind(t);
    if (k == LLVMHalfTypeKind)
        suffix = "f16";
    else if (k == LLVMFloatTypeKind)
        suffix = "f32";
    else if (k == LLVMDoubleTypeKind)
        suffix = "f64";
    else if (k == LLVMBFloatTypeKind)
        suffix = "bf16";
    else {
        static char ib[8];
        (void)ib;
        suffix = NULL;
    }
    if (suffix)
        snprintf(full, sizeof full, "%s.%s", name, suffix);
    else
        snprintf(full, sizeof full, "%s.i%u", name, LLVMGetIntTypeWidth(t));
    LLVMValueRef f = LLVMGetNamedFunction(L->mod, full);
    if (!f) {
        LLVMTypeRef pt[4] = {t, t, t, t};
        if (strcmp(name, "llvm.abs") == 0)
            pt[1] = L->i1;
        f = LLVMAddFunction(L->mod, full, LLVMFunctionType(t, pt, (unsigned)n, 0));
    }
    return LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, args, (unsigned)n, "");
}

/* Saturating float -> int conversions (NaN -> 0), as rk defines `as`. */
static LLVMValueRef fp_to_int_sat(Lower *L, LLVMValueRef x, LLVMTypeRef to, bool is_signed)
{
    char name[64];
    LLVMTypeRef from = LLVMTypeOf(x);
    const char *fs = LLVMGetTypeKind(from) == LLVMFloatTypeKind    ? "f32"
                     : LLVMGetTypeKind(from) == LLVMDoubleTypeKind ? "f64"
                                                                   : "f16";
    snprintf(name, sizeof name, "llvm.fpto%si.sat.i%u.%s", is_signed ? "s" : "u", LLVMGetIntTypeWidth(to), fs);
    LLVMValueRef f = LLVMGetNamedFunction(L->mod, name);
    if (!f)
        f = LLVMAddFunction(L->mod, name, LLVMFunctionType(to, &from, 1, 0));
    return LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, &x, 1, "");
}


/* A 64-bit integer as an f64 rounded to odd (truncated, with the last bit set when anything was
 * dropped), so that a later rounding to a narrower float is the only one: sitofp would round to nearest
 * here, and a value just above a 16-bit float's tie would become the tie. Magnitudes above 2^53 keep
 * their top 53 bits with the dropped ones ORed into the lowest, then scale back exactly. */
static LLVMValueRef int64_to_f64_odd(Lower *L, LLVMValueRef x, bool is_signed)
{
    LLVMValueRef zero = const_i64(L, 0);
    LLVMValueRef neg = is_signed ? LLVMBuildICmp(L->b, LLVMIntSLT, x, zero, "") : NULL;
    LLVMValueRef a = neg ? LLVMBuildSelect(L->b, neg, LLVMBuildSub(L->b, zero, x, ""), x, "") : x; /* |x|, unsigned */
    LLVMValueRef ctlz = LLVMGetNamedFunction(L->mod, "llvm.ctlz.i64");
    if (!ctlz) {
        LLVMTypeRef pt[2] = {L->i64, L->i1};
        ctlz = LLVMAddFunction(L->mod, "llvm.ctlz.i64", LLVMFunctionType(L->i64, pt, 2, 0));
    }
    LLVMValueRef args[2] = {a, LLVMConstInt(L->i1, 0, 0)};
    LLVMValueRef lz = LLVMBuildCall2(L->b, LLVMGlobalGetValueType(ctlz), ctlz, args, 2, "");
    /* s = max(0, 11 - lz): the bits below the top 53 */
    LLVMValueRef s = LLVMBuildSub(L->b, const_i64(L, 11), lz, "");
    s = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, s, zero, ""), zero, s, "");
    LLVMValueRef dropped = LLVMBuildAnd(L->b, a, LLVMBuildSub(L->b, LLVMBuildShl(L->b, const_i64(L, 1), s, ""), const_i64(L, 1), ""), "");
    LLVMValueRef sticky = LLVMBuildZExt(L->b, LLVMBuildICmp(L->b, LLVMIntNE, dropped, zero, ""), L->i64, "");
    LLVMValueRef m = LLVMBuildOr(L->b, LLVMBuildLShr(L->b, a, s, ""), sticky, "");
    /* m < 2^53 converts exactly; 2^s is the double with exponent field 1023 + s */
    LLVMValueRef scale = LLVMBuildBitCast(L->b, LLVMBuildShl(L->b, LLVMBuildAdd(L->b, s, const_i64(L, 1023), ""), const_i64(L, 52), ""),
                                          L->f64, "");
    LLVMValueRef d = LLVMBuildFMul(L->b, LLVMBuildUIToFP(L->b, m, L->f64, ""), scale, "");
    return neg ? LLVMBuildSelect(L->b, neg, LLVMBuildFNeg(L->b, d, ""), d, "") : d;
}

static LLVMValueRef cast(Lower *L, LLVMValueRef x, const Type *from, const Type *to)
{
    const Type *fe = ty_elem(from), *te = ty_elem(to);
    LLVMTypeRef lt = llvm_type(L, to);
    if (fe->kind == TY_PTR || te->kind == TY_PTR)
        return x; /* opaque pointers: a pointer cast changes nothing */
    ScalarKind fs = fe->sk, ts = te->sk;
    if (fs == ts)
        return x;
    /* 16-bit floats go through f32 (exact) on the way in */
    if (fp_is16(fs)) {
        x = fp_to_f32(L, x, fs);
        fs = SK_F32;
        if (ts == SK_F32)
            return x;
    }
    if (ts == SK_BOOL) {
        if (sk_is_float(fs))
            return LLVMBuildFCmp(L->b, LLVMRealUNE, x, LLVMConstReal(LLVMTypeOf(x), 0), "");
        return LLVMBuildICmp(L->b, LLVMIntNE, x, LLVMConstInt(LLVMTypeOf(x), 0, 0), "");
    }
    if (fp_is16(ts)) {
        /* to a 16-bit float: one rounding, from f32, f64 or an integer (through f64: exact for integers
         * of up to 53 bits, and rounded to odd for 64-bit ones, so the rounding to 16 bits is still the
         * only one) */
        LLVMValueRef v;
        if (fs == SK_BOOL)
            v = LLVMBuildUIToFP(L->b, x, L->f32, "");
        else if (sk_is_int(fs) && sk_bits(fs) == 64)
            v = int64_to_f64_odd(L, x, sk_is_signed(fs));
        else if (sk_is_int(fs))
            v = sk_is_signed(fs) ? LLVMBuildSIToFP(L->b, x, L->f64, "") : LLVMBuildUIToFP(L->b, x, L->f64, "");
        else
            v = x;
        if (LLVMTypeOf(v) == L->f64)
            return fp_from_f64(L, v, ts);
        return fp_from_f32(L, v, ts);
    }
    if (fs == SK_BOOL)
        return sk_is_float(ts) ? LLVMBuildUIToFP(L->b, x, lt, "") : LLVMBuildZExt(L->b, x, lt, "");
    if (sk_is_int(fs) && sk_is_int(ts)) {
        if (sk_bits(ts) < sk_bits(fs))
            return LLVMBuildTrunc(L->b, x, lt, "");
        if (sk_bits(ts) == sk_bits(fs))
            return x;
        return sk_is_signed(fs) ? LLVMBuildSExt(L->b, x, lt, "") : LLVMBuildZExt(L->b, x, lt, "");
    }
    if (sk_is_int(fs)) /* to float: round to nearest */
        return sk_is_signed(fs) ? LLVMBuildSIToFP(L->b, x, lt, "") : LLVMBuildUIToFP(L->b, x, lt, "");
    if (sk_is_int(ts))
        return fp_to_int_sat(L, x, lt, sk_is_signed(ts));
    /* f32 <-> f64 */
    if (sk_bits(ts) > sk_bits(fs))
        return LLVMBuildFPExt(L->b, x, lt, "");
    return LLVMBuildFPTrunc(L->b, x, lt, "");
}

/* Integer division with rk's definitions: x / 0 = -1 (all ones), x % 0 = x, MIN / -1 = MIN,
 * MIN % -1 = 0 (LLVM leaves these undefined; x86 traps on them). */
static LLVMValueRef int_divrem(Lower *L, bool rem, bool is_signed, LLVMValueRef x, LLVMValueRef y)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef zero = LLVMConstInt(t, 0, 0), one = LLVMConstInt(t, 1, 0);
    LLVMValueRef yz = LLVMBuildICmp(L->b, LLVMIntEQ, y, zero, "");
    LLVMValueRef safe = LLVMBuildSelect(L->b, yz, one, y, "");
    if (is_signed) {
        unsigned w = LLVMGetIntTypeWidth(t);
        LLVMValueRef min = LLVMConstInt(t, 1ull << (w - 1), 0);
        LLVMValueRef neg1 = LLVMConstAllOnes(t);
        LLVMValueRef ovf = LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, x, min, ""),
                                        LLVMBuildICmp(L->b, LLVMIntEQ, y, neg1, ""), "");
        safe = LLVMBuildSelect(L->b, ovf, one, safe, ""); /* MIN / 1 = MIN, MIN % 1 = 0 */
    }
    LLVMValueRef r = rem ? (is_signed ? LLVMBuildSRem(L->b, x, safe, "") : LLVMBuildURem(L->b, x, safe, ""))
                         : (is_signed ? LLVMBuildSDiv(L->b, x, safe, "") : LLVMBuildUDiv(L->b, x, safe, ""));
    return LLVMBuildSelect(L->b, yz, rem ? x : LLVMConstAllOnes(t), r, "");
}

static LLVMIntPredicate ipred(CmpPred p, bool s)
{
    switch (p) {
    case PRED_EQ: return LLVMIntEQ;
    case PRED_NE: return LLVMIntNE;
    case PRED_LT: return s ? LLVMIntSLT : LLVMIntULT;
    case PRED_LE: return s ? LLVMIntSLE : LLVMIntULE;
    case PRED_GT: return s ? LLVMIntSGT : LLVMIntUGT;
    default: return s ? LLVMIntSGE : LLVMIntUGE;
    }
}

static LLVMRealPredicate fpred(CmpPred p)
{
    switch (p) {
    case PRED_EQ: return LLVMRealOEQ;
    case PRED_NE: return LLVMRealUNE;
    case PRED_LT: return LLVMRealOLT;
    case PRED_LE: return LLVMRealOLE;
    case PRED_GT: return LLVMRealOGT;
    default: return LLVMRealOGE;
    }
}

/* intr for the targets' hooks (lower_internal.h) */
LLVMValueRef lower_typed_call(Lower *L, const char *name, LLVMTypeRef t, LLVMValueRef *args, int n)
{
    return intr(L, name, t, args, n);
}

/* One element of an elementwise op. xs: the operands' values for this register. */
static LLVMValueRef elem(Lower *L, Op *op, LLVMValueRef *xs)
{
    const Type *rt = op->results[0].type;
    const Type *ot = op->nopnds ? op->operands[0]->type : rt;
    bool fl = ty_is_float(ot), sg = ty_is_signed(ot);
    LLVMTypeRef lt = llvm_type(L, rt);
    LLVMValueRef x = op->nopnds > 0 ? xs[0] : NULL, y = op->nopnds > 1 ? xs[1] : NULL;
    OpCode c = op->code;
    if (fl && (c == OP_ADD || c == OP_SUB || c == OP_MUL || c == OP_DIV || c == OP_REM || c == OP_MIN ||
               c == OP_MAX || c == OP_MINNUM || c == OP_MAXNUM || c == OP_NEG || c == OP_EXP || c == OP_EXP2 || c == OP_LOG || c == OP_LOG2 ||
               c == OP_SQRT || c == OP_RSQRT || c == OP_ABS || c == OP_FLOOR || c == OP_CEIL || c == OP_SIN ||
               c == OP_COS || c == OP_FMA)) {
        ScalarKind ek = ty_elem(ot)->sk;
        LLVMValueRef a = fp_up(L, x, ek), b = y ? fp_up(L, y, ek) : NULL;
        LLVMTypeRef wt = LLVMTypeOf(a);
        LLVMValueRef r = tgt_math(L, c, a);
        if (!r)
            r = lower_f64_math(L, c, a);
        if (r)
            return fp_down(L, r, ek);
        switch (c) {
        case OP_ADD: r = fpmath_contract(L, LLVMBuildFAdd(L->b, a, b, "")); break;
        case OP_SUB: r = fpmath_contract(L, LLVMBuildFSub(L->b, a, b, "")); break;
        case OP_MUL: r = fpmath_contract(L, LLVMBuildFMul(L->b, a, b, "")); break;
        case OP_DIV: r = LLVMBuildFDiv(L->b, a, b, ""); break;
        case OP_REM: r = tgt_frem(L, a, b, ek); break;
        case OP_MIN: r = intr(L, "llvm.minimum", wt, (LLVMValueRef[]){a, b}, 2); break;
        case OP_MAX: r = intr(L, "llvm.maximum", wt, (LLVMValueRef[]){a, b}, 2); break;
        case OP_MINNUM: r = intr(L, "llvm.minimumnum", wt, (LLVMValueRef[]){a, b}, 2); break;
        case OP_MAXNUM: r = intr(L, "llvm.maximumnum", wt, (LLVMValueRef[]){a, b}, 2); break;
        case OP_NEG: r = LLVMBuildFNeg(L->b, a, ""); break;
        case OP_EXP: r = intr(L, "llvm.exp", wt, &a, 1); break;
        case OP_EXP2: r = intr(L, "llvm.exp2", wt, &a, 1); break;
        case OP_LOG: r = intr(L, "llvm.log", wt, &a, 1); break;
        case OP_LOG2: r = intr(L, "llvm.log2", wt, &a, 1); break;
        case OP_SQRT: r = intr(L, "llvm.sqrt", wt, &a, 1); break;
        case OP_RSQRT: r = LLVMBuildFDiv(L->b, LLVMConstReal(wt, 1.0), intr(L, "llvm.sqrt", wt, &a, 1), ""); break;
        case OP_ABS: r = intr(L, "llvm.fabs", wt, &a, 1); break;
        case OP_FLOOR: r = intr(L, "llvm.floor", wt, &a, 1); break;
        case OP_CEIL: r = intr(L, "llvm.ceil", wt, &a, 1); break;
        case OP_SIN: r = intr(L, "llvm.sin", wt, &a, 1); break;
        case OP_COS: r = intr(L, "llvm.cos", wt, &a, 1); break;
        default: { /* fma */
            LLVMValueRef cc = fp_up(L, xs[2], ek);
            r = intr(L, "llvm.fma", wt, (LLVMValueRef[]){a, b, cc}, 3);
            break;
        }
        }
        return fp_down(L, r, ek);
    }
    switch (c) {
    case OP_ADD: return LLVMBuildAdd(L->b, x, y, "");
    case OP_SUB: return LLVMBuildSub(L->b, x, y, "");
    case OP_MUL: return LLVMBuildMul(L->b, x, y, "");
    case OP_DIV: return int_divrem(L, false, sg, x, y);
    case OP_REM: return int_divrem(L, true, sg, x, y);
    case OP_AND: return LLVMBuildAnd(L->b, x, y, "");
    case OP_OR: return LLVMBuildOr(L->b, x, y, "");
    case OP_XOR: return LLVMBuildXor(L->b, x, y, "");
    case OP_NOT: return LLVMBuildNot(L->b, x, "");
    case OP_NEG: return LLVMBuildNeg(L->b, x, "");
    case OP_SHL:
    case OP_SHR: {
        LLVMTypeRef t = LLVMTypeOf(x);
        LLVMValueRef amt = LLVMBuildAnd(L->b, y, LLVMConstInt(t, LLVMGetIntTypeWidth(t) - 1, 0), "");
        if (c == OP_SHL)
            return LLVMBuildShl(L->b, x, amt, "");
        return sg ? LLVMBuildAShr(L->b, x, amt, "") : LLVMBuildLShr(L->b, x, amt, "");
    }
    case OP_MIN: return intr(L, sg ? "llvm.smin" : "llvm.umin", LLVMTypeOf(x), (LLVMValueRef[]){x, y}, 2);
    case OP_MAX: return intr(L, sg ? "llvm.smax" : "llvm.umax", LLVMTypeOf(x), (LLVMValueRef[]){x, y}, 2);
    case OP_ABS: /* unsigned values are their own magnitude (llvm.abs would read them as signed) */
        if (!sg)
            return x;
        return intr(L, "llvm.abs", LLVMTypeOf(x), (LLVMValueRef[]){x, LLVMConstInt(L->i1, 0, 0)}, 2);
    case OP_CMP:
        if (fl)
            return LLVMBuildFCmp(L->b, fpred((CmpPred)op->at.pred), fp_up(L, x, ty_elem(ot)->sk),
                                 fp_up(L, y, ty_elem(ot)->sk), "");
        return LLVMBuildICmp(L->b, ipred((CmpPred)op->at.pred, sg), x, y, "");
    case OP_SELECT: return LLVMBuildSelect(L->b, x, y, xs[2], "");
    case OP_CAST: return cast(L, x, ot, rt);
    case OP_BITCAST: {
        bool fp = ty_is_ptr(ot), tp = ty_is_ptr(rt);
        if (fp && !tp)
            return LLVMBuildPtrToInt(L->b, x, lt, "");
        if (!fp && tp)
            return LLVMBuildIntToPtr(L->b, x, lt, "");
        return LLVMBuildBitCast(L->b, x, lt, "");
    }
    case OP_ADDPTR: {
        const Type *pe = ty_elem(ot)->pointee;
        LLVMValueRef off = y;
        if (!ty_is_signed(op->operands[1]->type) && LLVMGetIntTypeWidth(LLVMTypeOf(y)) < 64)
            off = LLVMBuildZExt(L->b, y, L->i64, "");
        return LLVMBuildGEP2(L->b, llvm_type(L, pe), x, &off, 1, "");
    }
    case OP_HINT: return x;
    default:
        lower_error(L, "internal error: no lowering for '%s'", tir_op_info[c].name);
        return LLVMGetUndef(lt);
    }
}

static LLVMValueRef const_of(Lower *L, const Op *op)
{
    const Type *t = op->results[0].type;
    LLVMTypeRef lt = llvm_type(L, t);
    if (ty_is_float(t))
        return fp_const(L, op->at.value.f, ty_elem(t)->sk);
    if (ty_is_ptr(t))
        return LLVMConstIntToPtr(const_i64(L, op->at.value.i), lt);
    return LLVMConstInt(lt, (unsigned long long)op->at.value.i, 0);
}

/* The register bits of layout ll whose flip keeps an element of value v in the same aligned group of
 * equal values (the axis analysis' constancy): a register with any of them set holds the value of the
 * one with them clear. matmul's k-tail mask `rk < K - k * BLOCK_K` with K a multiple of 16 is constant
 * over the 4 or 8 consecutive k a lane holds: one compare, not one a k. */
static unsigned constant_reg_bits(const Lower *L, const Value *v, const LinLayout *ll)
{
    const AxisInfo *ai = L->axis ? L->axis[v->scratch] : NULL;
    if (!ai || ai->rank != ll->rank)
        return 0;
    unsigned bits = 0;
    for (int b = 0; b < ll->nreg && b < 32; b++) {
        bool inside = true, moves = false;
        for (int d = 0; d < ll->rank && inside; d++) {
            int64_t step = ll->reg[b][d];
            moves |= step != 0;
            inside = step >= 0 && step < ai->constancy[d];
        }
        if (inside && moves)
            bits |= 1u << b;
    }
    return bits;
}

void lower_elementwise(Lower *L, Op *op)
{
    Value *res = op->nres ? op_result(op, 0) : NULL;
    const Type *rt = res ? res->type : NULL;
    if (!res)
        return;
    if (rt->kind != TY_TILE) {
        LVal x = lval_new(L, 1, NULL);
        switch (op->code) {
        case OP_CONST: x.r[0] = const_of(L, op); break;
        case OP_PROGRAM_ID: x.r[0] = tgt_program_id(L, (int)op->at.axis); break;
        case OP_NUM_PROGRAMS: x.r[0] = tgt_num_programs(L, (int)op->at.axis); break;
        default: {
            LLVMValueRef xs[4];
            for (int i = 0; i < op->nopnds && i < 4; i++)
                xs[i] = lval(L, op->operands[i])->r[0];
            x.r[0] = elem(L, op, xs);
            break;
        }
        }
        lval_set(L, res, x);
        return;
    }
    const LayInfo *li = lay_info(L, rt);
    int n = lin_nregs(&li->ll);
    LVal x = lval_new(L, n, &li->ll);
    switch (op->code) {
    case OP_CONST: {
        LLVMValueRef k = const_of(L, op);
        for (int r = 0; r < n; r++)
            x.r[r] = k;
        break;
    }
    case OP_ARANGE:
        for (int r = 0; r < n; r++)
            x.r[r] = LLVMBuildAdd(L->b, reg_coord(L, li, r, 0), const_i32(L, op->at.start), "");
        break;
    case OP_SPLAT: {
        LLVMValueRef s = lval(L, op->operands[0])->r[0];
        for (int r = 0; r < n; r++)
            x.r[r] = s;
        break;
    }
    case OP_BROADCAST:
    case OP_EXPAND_DIMS: {
        const Type *it = op->operands[0]->type;
        LVal *in = lval(L, op->operands[0]);
        const LinLayout *ill = &lay_info(L, it)->ll;
        for (int r = 0; r < n; r++) {
            int64_t c[TIR_MAX_RANK], ic[TIR_MAX_RANK];
            lin_reg_coords(&li->ll, r, c);
            if (op->code == OP_BROADCAST) {
                for (int d = 0; d < rt->rank; d++)
                    ic[d] = it->shape[d] == 1 ? 0 : c[d];
            } else {
                for (int d = 0, k = 0; d < rt->rank; d++)
                    if (d != op->at.axis)
                        ic[k++] = c[d];
            }
            int j = lin_reg_of(ill, ic);
            if (j < 0) {
                lower_error(L, "internal error: %s: layouts do not line up (%s to %s)", tir_op_info[op->code].name,
                            lay_str(L->a, it->layout), lay_str(L->a, rt->layout));
                return;
            }
            x.r[r] = in->r[j];
        }
        break;
    }
    default: {
        LVal *ins[4] = {0};
        for (int i = 0; i < op->nopnds && i < 4; i++) {
            ins[i] = lval(L, op->operands[i]);
            if (op->operands[i]->type->kind == TY_TILE && ins[i]->n != n) {
                lower_error(L, "internal error: '%s' operand %d has %d registers, the result %d",
                            tir_op_info[op->code].name, i, ins[i]->n, n);
                return;
            }
        }
        /* Registers whose operands are the same values (a broadcast operand: matmul's k-tail mask and
         * the pipeline's iteration flag, the same for every row a lane holds) share one result, so the
         * IR has one value per distinct element, and a masked load can tell that its rows agree. */
        int cap = 16;
        while (cap < 2 * n)
            cap *= 2;
        int *slot = ARENA_ARRAY(L->a, int, cap);
        for (int i = 0; i < cap; i++)
            slot[i] = -1;
        int k = op->nopnds < 4 ? op->nopnds : 4;
        bool pair = fpmath_pairable(L, op);
        int *dup = ARENA_ARRAY(L->a, int, n), fresh[2], nf = 0;
        LLVMValueRef fxs[2][4];
        unsigned held = constant_reg_bits(L, res, &li->ll);
        for (int r = 0; r < n; r++) {
            LLVMValueRef xs[4];
            uintptr_t h = 0;
            dup[r] = -1;
            if ((unsigned)r & held) { /* the same value as the register with those bits clear */
                dup[r] = (int)((unsigned)r & ~held);
                continue;
            }
            for (int i = 0; i < k; i++) {
                xs[i] = ins[i]->n == 1 ? ins[i]->r[0] : ins[i]->r[r];
                h = (h ^ (uintptr_t)xs[i]) * 0x9E3779B97F4A7C15u;
            }
            int at = (int)((h >> 16) & (uintptr_t)(cap - 1)), hit = -1;
            for (; slot[at] >= 0; at = (at + 1) & (cap - 1)) {
                int q = slot[at];
                bool same = true;
                for (int i = 0; i < k && same; i++)
                    same = xs[i] == (ins[i]->n == 1 ? ins[i]->r[0] : ins[i]->r[q]);
                if (same) {
                    hit = q;
                    break;
                }
            }
            if (hit >= 0) {
                dup[r] = hit;
                continue;
            }
            slot[at] = r;
            if (!pair) {
                x.r[r] = elem(L, op, xs);
                continue;
            }
            /* packed f32 math: the registers not shared, two at a time (lower_fpmath.c) */
            memcpy(fxs[nf], xs, sizeof xs);
            fresh[nf++] = r;
            if (nf == 2) {
                LLVMValueRef out[2];
                if (!fpmath_pair(L, op, fxs[0], fxs[1], k, out)) {
                    out[0] = elem(L, op, fxs[0]);
                    out[1] = elem(L, op, fxs[1]);
                }
                x.r[fresh[0]] = out[0];
                x.r[fresh[1]] = out[1];
                nf = 0;
            }
        }
        if (nf == 1)
            x.r[fresh[0]] = elem(L, op, fxs[0]);
        for (int r = 0; r < n; r++)
            if (dup[r] >= 0)
                x.r[r] = x.r[dup[r]];
        break;
    }
    }
    lval_set(L, res, x);
}
