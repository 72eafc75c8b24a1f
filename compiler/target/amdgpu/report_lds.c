/* LDS bank conflicts read from the ISA: for each LDS read or write of a loop, every lane's address,
 * found by evaluating the vector and scalar arithmetic that produces it, lane by lane, from the
 * kernel's entry through the preheader into the loop; then the ways of each pass by the bank rule of
 * compiler/lower/lds_banks.c. The loop cycle model (report_loop.c) multiplies the access's LDS time
 * by them. It reads any code object (rk's, Triton's) and knows nothing of the compiler's layouts.
 *
 * What it assumes:
 * - Workitem ids: a 1-D workgroup, lane L of wave W has v0 = 64 W + L at entry (gfx90a and later
 *   pack x, y, z into v0 as bits 9:0, 19:10, 29:20; a kernel whose descriptor asks for y or z ids
 *   gets v0 unknown). Every other VGPR is unknown at entry, every SGPR (kernel arguments,
 *   workgroup ids) a uniform unknown.
 * - Straight-line: the instructions are evaluated once each, in program order, branches ignored,
 *   all 64 lanes active, v_readfirstlane reading lane 0. A DS instruction's addresses are those of
 *   the loop's first iteration; an address register a loop advances is assumed to advance by the
 *   same amount in every lane (both compilers step stage buffers by a uniform offset), which keeps
 *   the pattern, below.
 * - Uniform unknowns. A value is exact in every lane (EXACT), or unknown and lane-varying (UNK: a
 *   VGPR loaded from memory, a select on a lane mask, an unknown uniform ANDed in...), or its true
 *   value t is f(x) for its exact part x (what it would be with every unknown taken as 0) and a map
 *   f that is a chain of steps y -> y + u and y -> y ^ u, each u uniform, known or not: one addition
 *   (ADDU), one XOR (XORU), or any chain (MIX). Such a chain leaves the ways of an access of n bytes
 *   (n = 4, 8, 16) as they are: the lanes of a pass meet by two relations on their n-byte units,
 *   same unit and same banks (unit mod banks/(n/4)). If every lane's address f(x) + offset is a
 *   multiple of n, every stage of the chain has one residue mod n in all lanes (step back through
 *   an addition or an XOR of a uniform: the residue stays uniform), so on the units (value / n) each
 *   step is again y -> y + u' or y -> y ^ u' with u' uniform, mod 2^32 / n: a bijection on units
 *   that maps unit mod m to a function of unit mod m alone, bijectively, for m a power of two
 *   dividing 2^32 / n. So two lanes share a unit, or banks, under f exactly when they do under x,
 *   and the ways are those of the exact part. What this needs is the alignment: both compilers put
 *   their n-byte LDS vectors at multiples of n; an address whose exact parts x + offset are not all
 *   one residue mod n (mod 4 for ADDU, which needs only the words) cannot be, and is counted unknown,
 *   as is one of 1, 2 or 12 bytes with an unknown part. An addend after an XOR is harmless only when
 *   it is uniform: (x ^ u) + y with a lane-varying y is no chain, and its ways do depend on u (a
 *   stride-16 example in tests/unit/test_report_lds.c goes from 4 ways to 2); so is a mask or right
 *   shift after an addition, whose carries depend on u. The operations keep a form where the algebra
 *   does: adding or XORing a uniform adds a step (a known 0 keeps ADDU/XORU as they are); u - y
 *   negates the chain, and -(y ^ u) = ((((-y) ^ ~0) + 1) ^ ~u) + 1 is a chain of -y again; f(x) << k
 *   is the chain, its constants shifted, of x << k; (x ^ u) >> k (logical or arithmetic), (x ^ u) & c
 *   and (x ^ u) | c = (x | c) ^ (u & ~c) stay XORU, (x + u) * c stays ADDU, for uniform exact k and c;
 *   x | u with exact x sharing no bit with the bits u may have (a uniform's possible bits are
 *   followed through SALU selects, masks and shifts) is x ^ u; sums of EXACT/ADDU values are ADDU,
 *   XORs of EXACT/XORU values XORU; anything else with an unknown part is UNK, except that an
 *   operation on uniform values only is uniform.
 * An UNK address is not charged (counted as unknown in the report). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

enum { LANES = 64, NV = 256, NS = 128 };
enum { EXACT, ADDU, XORU, MIX, UNK };

typedef struct Val {
    uint8_t form; /* EXACT, ADDU, XORU, MIX, UNK */
    bool uniform; /* the same in every lane (true value, unknowns included) */
    uint32_t x[LANES]; /* the exact part (the value with any unknown taken as 0) */
    uint32_t maybe; /* a uniform value with an unknown part: the bits it may have set */
} Val;

typedef struct Sreg {
    bool known;
    uint32_t v; /* the value; unknown: the bits it may have set */
} Sreg;

typedef struct Eval {
    Val v[NV];
    Val acc[NV]; /* AGPRs: where a compiler parks VGPRs (v_accvgpr_write/read) */
    Sreg s[NS]; /* s0..s105, vcc 106-107, m0 124, exec 126-127 (the hardware's numbering) */
} Eval;

static Val unk(void)
{
    Val r;
    r.form = UNK;
    r.uniform = false;
    memset(r.x, 0, sizeof r.x);
    r.maybe = ~0u;
    return r;
}

static Val konst(uint32_t c)
{
    Val r;
    r.form = EXACT;
    r.uniform = true;
    for (int l = 0; l < LANES; l++)
        r.x[l] = c;
    r.maybe = c;
    return r;
}

/* A uniform unknown that may have the bits `maybe` set: exact part 0, either form. */
static Val uni(uint32_t maybe)
{
    Val r = konst(0);
    r.form = ADDU;
    r.maybe = maybe;
    return r;
}

static bool is_uni_exact(const Val *a)
{
    return a->form == EXACT && a->uniform;
}

/* The bits a uniform value may have set. */
static uint32_t uni_bits(const Val *a)
{
    return !a->uniform ? ~0u : a->form == EXACT ? a->x[0] : a->maybe;
}

/* ---- operands --------------------------------------------------------------------------------- */

/* An SGPR name (s5, s[4:5], vcc, vcc_lo, exec_lo, m0 ...): its first register number, else -1. */
static int sreg_num(const char *t)
{
    static const struct {
        const char *name;
        int num;
    } special[] = {{"vcc", 106}, {"vcc_lo", 106}, {"vcc_hi", 107}, {"m0", 124},
                   {"exec", 126}, {"exec_lo", 126}, {"exec_hi", 127}};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        if (!strcmp(t, special[i].name))
            return special[i].num;
    if (t[0] != 's' || !(t[1] == '[' || (t[1] >= '0' && t[1] <= '9')))
        return -1;
    long n = strtol(t + 1 + (t[1] == '['), NULL, 10);
    return n >= 0 && n < NS ? (int)n : -1;
}

/* The last register of a range s[4:5] / v[4:7], or the register itself. */
static int reg_last(const char *t, int first)
{
    const char *c = strchr(t, ':');
    if (!c)
        return first;
    long n = strtol(c + 1, NULL, 10);
    return n >= first && n < 512 ? (int)n : first;
}

static int vreg_num(const char *t)
{
    if ((t[0] != 'v' && t[0] != 'a') || !(t[1] == '[' || (t[1] >= '0' && t[1] <= '9')))
        return -1;
    long n = strtol(t + 1 + (t[1] == '['), NULL, 10);
    return n >= 0 && n < NV ? (int)n : -1;
}

/* An integer literal as LLVM prints one: 12, -1, 0x7f, lit(0x5040100). */
static bool literal(const char *t, uint32_t *v)
{
    const char *p = t;
    if (!strncmp(p, "lit(", 4))
        p += 4;
    char *end;
    long long n = strtoll(p, &end, 0);
    if (end == p || (*end && strcmp(end, ")") != 0))
        return false;
    *v = (uint32_t)n;
    return true;
}

/* The value of a source operand. */
static Val operand(const Eval *e, const char *t)
{
    int r = vreg_num(t);
    if (r >= 0)
        return t[0] == 'a' ? e->acc[r] : e->v[r];
    r = sreg_num(t);
    if (r >= 0) {
        if (r == 126 || r == 127) /* exec: every lane active */
            return konst(0xffffffffu);
        return e->s[r].known ? konst(e->s[r].v) : uni(e->s[r].v);
    }
    uint32_t c;
    if (literal(t, &c))
        return konst(c);
    return uni(~0u); /* another constant (a float, an hardware register): the same in every lane */
}

/* ---- operations ------------------------------------------------------------------------------- */

typedef enum { OP_ADD, OP_SUB, OP_XOR, OP_AND, OP_OR, OP_SHL, OP_SHR, OP_ASHR, OP_MUL, OP_MUL24 } Op;

static uint32_t apply(Op op, uint32_t a, uint32_t b)
{
    switch (op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_XOR: return a ^ b;
    case OP_AND: return a & b;
    case OP_OR: return a | b;
    case OP_SHL: return a << (b & 31);
    case OP_SHR: return a >> (b & 31);
    case OP_ASHR: return (uint32_t)((int32_t)a >> (b & 31));
    case OP_MUL: return a * b;
    case OP_MUL24: return (a & 0xffffff) * (b & 0xffffff);
    }
    return 0;
}

/* The form of x op u, x not uniform (form fx), u uniform (exact when u_exact, the exact value c), by
 * the rules of the top paragraph; u_first: u is the left operand (u - x, u << x ...). */
static uint8_t with_uniform(Op op, uint8_t fx, bool u_exact, uint32_t c, bool u_first)
{
    switch (op) {
    case OP_ADD:
    case OP_SUB: /* a chain gains a step; u - x negates the chain, a chain of -x (top paragraph) */
        if (fx == EXACT)
            return u_exact ? EXACT : ADDU;
        if (fx == ADDU || (u_exact && c == 0 && !(op == OP_SUB && u_first)))
            return fx;
        return MIX;
    case OP_XOR:
        if (fx == EXACT)
            return u_exact ? EXACT : XORU;
        if (fx == XORU || (u_exact && c == 0))
            return fx;
        return MIX;
    case OP_SHL: /* each step of a chain commutes with x << k, its constant shifted */
        return !u_first && u_exact ? fx : UNK;
    case OP_SHR:
    case OP_ASHR: /* bit moves: they commute with XOR, not with addition */
        return !u_first && u_exact && (fx == EXACT || fx == XORU) ? fx : UNK;
    case OP_AND:
    case OP_OR: /* (x ^ u) & c = (x & c) ^ (u & c), (x ^ u) | c = (x | c) ^ (u & ~c) */
        return u_exact && (fx == EXACT || fx == XORU) ? fx : UNK;
    case OP_MUL: /* (x + u) * c = x c + u c */
        return u_exact && (fx == EXACT || fx == ADDU) ? fx : UNK;
    case OP_MUL24:
        return u_exact && fx == EXACT ? EXACT : UNK;
    }
    return UNK;
}

/* The bits a op b may have set, a and b uniform. */
static uint32_t maybe_bits(Op op, const Val *a, const Val *b)
{
    uint32_t pa = uni_bits(a), pb = uni_bits(b);
    bool k = is_uni_exact(b);
    switch (op) {
    case OP_AND: return pa & pb;
    case OP_OR:
    case OP_XOR: return pa | pb;
    case OP_ADD: return pa & pb ? ~0u : pa | pb; /* no carry */
    case OP_SHL: return k ? pa << (b->x[0] & 31) : ~0u;
    case OP_SHR: return k ? pa >> (b->x[0] & 31) : ~0u;
    default: return ~0u;
    }
}

/* a op b, lane by lane, with the form the algebra of the top paragraph allows. */
static Val binop(Op op, const Val *a, const Val *b)
{
    if (a->form == UNK || b->form == UNK)
        return unk();
    Val r;
    for (int l = 0; l < LANES; l++)
        r.x[l] = apply(op, a->x[l], b->x[l]);
    r.uniform = a->uniform && b->uniform;
    if (a->form == EXACT && b->form == EXACT) {
        r.form = EXACT;
        return r;
    }
    if (r.uniform) /* uniform operands, a uniform result */
        return uni(maybe_bits(op, a, b));
    r.maybe = ~0u;
    if (a->uniform || b->uniform) { /* a lane-varying value and a uniform one */
        const Val *x = a->uniform ? b : a, *u = a->uniform ? a : b;
        r.form = with_uniform(op, x->form, u->form == EXACT, u->x[0], u == a);
        if (op == OP_OR && x->form == EXACT && u->form != EXACT) { /* x | u = x ^ u where no bit is in both */
            bool apart = true;
            for (int l = 0; l < LANES && apart; l++)
                apart = !(x->x[l] & u->maybe);
            r.form = apart ? XORU : UNK;
        }
    } else if (op == OP_ADD || op == OP_SUB) { /* two lane-varying values: sums of additive forms */
        r.form = (a->form == EXACT || a->form == ADDU) && (b->form == EXACT || b->form == ADDU) ? ADDU : UNK;
    } else if (op == OP_XOR) {
        r.form = (a->form == EXACT || a->form == XORU) && (b->form == EXACT || b->form == XORU) ? XORU : UNK;
    } else {
        r.form = UNK;
    }
    if (r.form == UNK)
        return unk();
    return r;
}

/* ---- one instruction -------------------------------------------------------------------------- */

enum { MAX_OPS = 8 };

typedef struct Insn {
    char mn[48];
    char op[MAX_OPS][40];
    int nops;
    bool mods; /* a modifier follows the operands (clamp, op_sel, sdwa/dpp selects...) */
} Insn;

static void split(const char *line, Insn *in)
{
    memset(in, 0, sizeof *in);
    const char *t = line + strspn(line, " \t");
    size_t n = strcspn(t, " \t");
    if (n >= sizeof in->mn)
        n = sizeof in->mn - 1;
    memcpy(in->mn, t, n);
    t += strcspn(t, " \t");
    while (*t) {
        t += strspn(t, " ,\t");
        n = strcspn(t, " ,\t");
        if (!n)
            break;
        if (!strncmp(t, "//", 2))
            break;
        if (memchr(t, ':', n) && t[0] != 'v' && t[0] != 's' && t[0] != 'a') /* offset:16, op_sel:[..] */
            in->mods = in->mods || strncmp(t, "offset", 6) != 0;
        if (in->nops < MAX_OPS && n < sizeof in->op[0]) {
            memcpy(in->op[in->nops], t, n);
            in->op[in->nops][n] = 0;
            in->nops++;
        }
        t += n;
    }
    /* _e32/_e64 are encodings of the same operation; sdwa and dpp change what a lane reads */
    size_t m = strlen(in->mn);
    if (m > 4 && (!strcmp(in->mn + m - 4, "_e32") || !strcmp(in->mn + m - 4, "_e64")))
        in->mn[m - 4] = 0;
    if (strstr(in->mn, "_sdwa") || strstr(in->mn, "_dpp"))
        in->mods = true;
    for (int i = 0; i < in->nops; i++)
        if (!strcmp(in->op[i], "clamp") || !strncmp(in->op[i], "row_", 4) || !strncmp(in->op[i], "quad_", 5))
            in->mods = true;
}

static bool starts(const char *s, const char *p)
{
    return !strncmp(s, p, strlen(p));
}

/* Writes `r` to the registers of operand `dst` (a range: every register UNK but the first). */
static void set_v(Eval *e, const char *dst, Val r)
{
    int lo = vreg_num(dst);
    if (lo < 0)
        return;
    int hi = reg_last(dst, lo);
    Val *file = dst[0] == 'a' ? e->acc : e->v;
    file[lo] = r;
    for (int g = lo + 1; g <= hi && g < NV; g++)
        file[g] = unk();
}

static void set_s(Eval *e, const char *dst, bool known, uint32_t v)
{
    int lo = sreg_num(dst);
    if (lo < 0)
        return;
    int hi = !strcmp(dst, "vcc") || !strcmp(dst, "exec") ? lo + 1 : reg_last(dst, lo);
    for (int g = lo; g <= hi && g < NS; g++)
        e->s[g] = (Sreg){g == lo && known, g == lo ? v : ~0u};
}

/* Instructions whose first operand is read, not written. */
static bool no_dest(const char *mn)
{
    static const char *const p[] = {"s_cmp", "s_bitcmp", "s_cbranch", "s_branch", "s_waitcnt", "s_barrier",
                                    "s_nop", "s_setprio", "s_sleep", "s_endpgm", "s_dcache", "s_icache",
                                    "s_trap", "s_sendmsg", "s_ttrace", "s_setreg", "s_set_gpr", "s_store",
                                    "s_buffer_store", "ds_write", "ds_store", "global_store", "buffer_store",
                                    "flat_store", "scratch_store", "s_sched"};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        if (starts(mn, p[i]))
            return true;
    return false;
}

static Val op3(Op o1, Op o2, const Val *a, const Val *b, const Val *c)
{
    Val t = binop(o1, a, b);
    return binop(o2, &t, c);
}

/* mbcnt_lo/hi: the number of set bits of the mask below the lane, in its half, plus a. */
static Val mbcnt(bool hi, const Val *m, const Val *a)
{
    if (!is_uni_exact(m) || a->form == UNK)
        return unk();
    Val r = *a;
    for (int l = 0; l < LANES; l++) {
        int below = hi ? (l >= 32 ? l - 32 : 0) : (l < 32 ? l : 32);
        uint32_t bits = below >= 32 ? m->x[l] : m->x[l] & ((1u << below) - 1);
        r.x[l] = a->x[l] + (uint32_t)__builtin_popcount(bits);
    }
    r.uniform = false;
    if (r.form != EXACT && r.form != ADDU)
        return unk();
    return r;
}

/* The value a VALU instruction writes, UNK for one this evaluator does not know. */
static Val valu(const Eval *e, const Insn *in)
{
    const char *mn = in->mn;
    if (!strcmp(mn, "v_accvgpr_write_b32") || !strcmp(mn, "v_accvgpr_read_b32") || !strcmp(mn, "v_accvgpr_mov_b32"))
        return in->nops > 1 ? operand(e, in->op[1]) : unk();
    int src = 1; /* first source operand */
    if (starts(mn, "v_add_co_u32") || starts(mn, "v_sub_co_u32") || starts(mn, "v_subrev_co_u32"))
        src = 2; /* the carry out comes second */
    if (in->mods || in->nops < src + 1)
        return unk();
    Val a = operand(e, in->op[src]), b = in->nops > src + 1 ? operand(e, in->op[src + 1]) : konst(0),
        c = in->nops > src + 2 ? operand(e, in->op[src + 2]) : konst(0);
    if (!strcmp(mn, "v_mov_b32"))
        return a;
    if (!strcmp(mn, "v_add_u32") || !strcmp(mn, "v_add_i32") || !strcmp(mn, "v_add_nc_u32") ||
        !strcmp(mn, "v_add_co_u32"))
        return binop(OP_ADD, &a, &b);
    if (!strcmp(mn, "v_sub_u32") || !strcmp(mn, "v_sub_i32") || !strcmp(mn, "v_sub_co_u32"))
        return binop(OP_SUB, &a, &b);
    if (!strcmp(mn, "v_subrev_u32") || !strcmp(mn, "v_subrev_co_u32"))
        return binop(OP_SUB, &b, &a);
    if (!strcmp(mn, "v_lshlrev_b32"))
        return binop(OP_SHL, &b, &a);
    if (!strcmp(mn, "v_lshrrev_b32"))
        return binop(OP_SHR, &b, &a);
    if (!strcmp(mn, "v_ashrrev_i32"))
        return binop(OP_ASHR, &b, &a);
    if (!strcmp(mn, "v_and_b32"))
        return binop(OP_AND, &a, &b);
    if (!strcmp(mn, "v_or_b32"))
        return binop(OP_OR, &a, &b);
    if (!strcmp(mn, "v_xor_b32"))
        return binop(OP_XOR, &a, &b);
    if (!strcmp(mn, "v_not_b32")) {
        Val ones = konst(0xffffffffu);
        return binop(OP_XOR, &a, &ones);
    }
    if (!strcmp(mn, "v_mul_lo_u32") || !strcmp(mn, "v_mul_lo_i32"))
        return binop(OP_MUL, &a, &b);
    if (!strcmp(mn, "v_mul_u32_u24"))
        return binop(OP_MUL24, &a, &b);
    if (!strcmp(mn, "v_mad_u32_u24"))
        return op3(OP_MUL24, OP_ADD, &a, &b, &c);
    if (!strcmp(mn, "v_bfe_u32")) { /* (a >> b) & ((1 << c) - 1), c of 5 bits */
        if (!is_uni_exact(&c))
            return unk();
        Val m = konst((c.x[0] & 31) ? (1u << (c.x[0] & 31)) - 1 : 0);
        return op3(OP_SHR, OP_AND, &a, &b, &m);
    }
    if (!strcmp(mn, "v_bfe_i32")) { /* (a >> b) & ((1 << c) - 1) sign-extended from bit c - 1: two shifts */
        if (!is_uni_exact(&b) || !is_uni_exact(&c))
            return unk();
        uint32_t off = b.x[0] & 31, w = c.x[0] & 31;
        if (!w)
            return konst(0);
        Val sh = konst(off), up = konst(32 - w), t1 = binop(OP_ASHR, &a, &sh), t2 = binop(OP_SHL, &t1, &up);
        return binop(OP_ASHR, &t2, &up);
    }
    if (!strcmp(mn, "v_bfi_b32")) { /* (b & a) | (c & ~a) */
        Val na = a, t1, t2;
        Val ones = konst(0xffffffffu);
        na = binop(OP_XOR, &a, &ones);
        t1 = binop(OP_AND, &b, &a);
        t2 = binop(OP_AND, &c, &na);
        return binop(OP_OR, &t1, &t2);
    }
    if (!strcmp(mn, "v_lshl_add_u32"))
        return op3(OP_SHL, OP_ADD, &a, &b, &c);
    if (!strcmp(mn, "v_add_lshl_u32"))
        return op3(OP_ADD, OP_SHL, &a, &b, &c);
    if (!strcmp(mn, "v_lshl_or_b32"))
        return op3(OP_SHL, OP_OR, &a, &b, &c);
    if (!strcmp(mn, "v_and_or_b32"))
        return op3(OP_AND, OP_OR, &a, &b, &c);
    if (!strcmp(mn, "v_or3_b32"))
        return op3(OP_OR, OP_OR, &a, &b, &c);
    if (!strcmp(mn, "v_xor3_b32"))
        return op3(OP_XOR, OP_XOR, &a, &b, &c);
    if (!strcmp(mn, "v_add3_u32"))
        return op3(OP_ADD, OP_ADD, &a, &b, &c);
    if (!strcmp(mn, "v_xad_u32"))
        return op3(OP_XOR, OP_ADD, &a, &b, &c);
    if (!strcmp(mn, "v_mbcnt_lo_u32_b32") || !strcmp(mn, "v_mbcnt_hi_u32_b32"))
        return mbcnt(mn[8] == 'h', &a, &b);
    if (!strcmp(mn, "v_cndmask_b32")) /* the same value either way, else it depends on the lane's bit */
        return a.form == EXACT && b.form == EXACT && !memcmp(a.x, b.x, sizeof a.x) ? a : unk();
    return unk();
}

/* The bits an unknown result of a scalar instruction may have set, from its operands' (x). */
static uint32_t salu_bits(const char *mn, const Val *x)
{
    static const struct {
        const char *mn;
        Op op;
    } ops[] = {{"s_lshl_b32", OP_SHL}, {"s_lshr_b32", OP_SHR}, {"s_and_b32", OP_AND}, {"s_or_b32", OP_OR},
               {"s_xor_b32", OP_XOR}, {"s_cselect_b32", OP_OR}};
    if (!strcmp(mn, "s_mov_b32"))
        return uni_bits(&x[0]);
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(mn, ops[i].mn))
            return maybe_bits(ops[i].op, &x[0], &x[1]);
    return ~0u;
}

/* A scalar instruction over known SGPRs: its value, or false and in *out the bits it may have set. */
static bool salu(const Eval *e, const Insn *in, uint32_t *out)
{
    *out = ~0u;
    if (in->nops < 2)
        return false;
    const char *mn = in->mn;
    uint32_t v[3] = {0, 0, 0};
    Val x[2] = {konst(0), konst(0)};
    bool known = true;
    for (int i = 1; i < in->nops && i < 4; i++) {
        Val o = operand(e, in->op[i]);
        known = known && is_uni_exact(&o);
        v[i - 1] = o.x[0];
        if (i < 3)
            x[i - 1] = o;
    }
    if (!strcmp(mn, "s_cselect_b32") && known && v[0] == v[1]) { /* either way the same */
        *out = v[0];
        return true;
    }
    if (!known || !strcmp(mn, "s_cselect_b32")) { /* SCC is not followed */
        *out = salu_bits(mn, x);
        return false;
    }
    static const struct {
        const char *mn;
        Op op;
    } ops[] = {{"s_add_i32", OP_ADD},  {"s_add_u32", OP_ADD},  {"s_sub_i32", OP_SUB}, {"s_sub_u32", OP_SUB},
               {"s_lshl_b32", OP_SHL}, {"s_lshr_b32", OP_SHR}, {"s_ashr_i32", OP_ASHR}, {"s_and_b32", OP_AND},
               {"s_or_b32", OP_OR},    {"s_xor_b32", OP_XOR},  {"s_mul_i32", OP_MUL}};
    if (!strcmp(mn, "s_mov_b32") || !strcmp(mn, "s_movk_i32")) {
        *out = v[0];
        return true;
    }
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(mn, ops[i].mn)) {
            *out = apply(ops[i].op, v[0], v[1]);
            return true;
        }
    for (int k = 1; k <= 4; k++) {
        char name[24] = "s_lshl1_add_u32";
        name[6] = (char)('0' + k);
        if (!strcmp(mn, name)) {
            *out = (v[0] << k) + v[1];
            return true;
        }
    }
    if (!strcmp(mn, "s_bfe_u32")) { /* b: offset in bits 4:0, width in 22:16 */
        uint32_t off = v[1] & 31, w = (v[1] >> 16) & 127;
        *out = w >= 32 ? v[0] >> off : (v[0] >> off) & ((1u << w) - 1);
        return true;
    }
    if (!strcmp(mn, "s_bfe_i32")) { /* the same field, sign-extended from its top bit */
        uint32_t off = v[1] & 31, w = (v[1] >> 16) & 127;
        uint32_t t = apply(OP_ASHR, v[0], off);
        *out = !w ? 0 : w >= 32 ? t : apply(OP_ASHR, t << (32 - w), 32 - w);
        return true;
    }
    return false;
}

static void execute(Eval *e, const Insn *in)
{
    if (!in->nops || no_dest(in->mn))
        return;
    const char *dst = in->op[0];
    if (!strcmp(in->mn, "v_readfirstlane_b32") || !strcmp(in->mn, "v_readlane_b32")) {
        Val a = in->nops > 1 ? operand(e, in->op[1]) : unk();
        uint32_t lane = 0;
        bool known = a.form == EXACT;
        if (in->mn[6] == 'l') { /* readlane: the lane operand */
            Val l = in->nops > 2 ? operand(e, in->op[2]) : unk();
            known = known && is_uni_exact(&l);
            lane = l.x[0] & 63;
        }
        set_s(e, dst, known, known ? a.x[lane] : ~0u);
        return;
    }
    if (dst[0] == 'v' || (dst[0] == 'a' && vreg_num(dst) >= 0)) {
        set_v(e, dst, starts(in->mn, "v_") ? valu(e, in) : unk());
        if (starts(in->mn, "v_add_co_") || starts(in->mn, "v_sub_co_") || starts(in->mn, "v_subrev_co_"))
            if (in->nops > 1)
                set_s(e, in->op[1], false, ~0u);
        return;
    }
    if (sreg_num(dst) >= 0) {
        uint32_t v = ~0u;
        bool known = starts(in->mn, "s_") && salu(e, in, &v);
        set_s(e, dst, known, v);
    }
}

/* ---- the banks -------------------------------------------------------------------------------- */

/* The most distinct words one bank serves among `n` words. */
static int pass_ways(const uint32_t *word, int n, int banks)
{
    int worst = 1;
    for (int i = 0; i < n; i++) {
        int ways = 0;
        for (int j = 0; j < n; j++) {
            if (word[j] % (uint32_t)banks != word[i] % (uint32_t)banks)
                continue;
            bool first = true; /* each distinct word once */
            for (int k = 0; k < j && first; k++)
                first = word[k] != word[j];
            ways += first;
        }
        if (ways > worst)
            worst = ways;
    }
    return worst;
}

/* One access of `bytes` per lane at addresses x + off: adds its passes and their ways to *c. */
static void charge_access(const uint32_t *x, uint32_t off, int bytes, int banks, LdsCost *c)
{
    int per_pass = 4 * banks / (bytes > 4 ? bytes : 4), words = (bytes + 3) / 4;
    if (per_pass > LANES)
        per_pass = LANES;
    if (per_pass < 1)
        per_pass = 1;
    uint32_t word[LANES * 4];
    for (int first = 0; first < LANES; first += per_pass) {
        int n = 0;
        for (int l = first; l < first + per_pass && l < LANES; l++)
            for (int k = 0; k < words && n < LANES * 4; k++)
                word[n++] = (x[l] + off) / 4 + (uint32_t)k;
        int ways = pass_ways(word, n, banks);
        c->pass_ways += ways;
        c->passes++;
        if (ways > c->ways)
            c->ways = ways;
    }
}

static uint32_t field(const Insn *in, const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; i < in->nops; i++)
        if (!strncmp(in->op[i], name, n) && in->op[i][n] == ':')
            return (uint32_t)strtoul(in->op[i] + n + 1, NULL, 0);
    return 0;
}

/* Whether an address with an unknown part can be aligned as the top paragraph assumes: its true
 * address (x + u) + off a multiple of 4, for XORU and MIX of the access's width too, which needs every
 * lane's exact part x + off in one residue modulo that (an exact address needs nothing). */
static bool aligned_as_assumed(const Val *addr, uint32_t off, int bytes)
{
    if (addr->form == EXACT)
        return true;
    uint32_t m = addr->form == ADDU ? 4u : (uint32_t)bytes;
    if (m & (m - 1)) /* 12 bytes: no unit of the access's width */
        return false;
    for (int l = 1; l < LANES; l++)
        if (((addr->x[l] + off) ^ (addr->x[0] + off)) & (m - 1))
            return false;
    return true;
}

/* A DS read or write of the loop: its addresses in this wave, charged to *c. */
static void lds_access(const Eval *e, const Insn *in, int banks, LdsCost *c)
{
    int bits = 0, cls = report_classify_memory(in->mn, &bits);
    if (cls != MEM_LDS_READ && cls != MEM_LDS_WRITE)
        return;
    if (c->kind == LDS_UNKNOWN)
        return;
    bool pair = strstr(in->mn, "2st64") || strstr(in->mn, "read2") || strstr(in->mn, "write2") ||
                strstr(in->mn, "2addr");
    int bytes = bits / 8 / (pair ? 2 : 1);
    int a = cls == MEM_LDS_READ ? 1 : 0; /* the address operand: after the data for reads */
    Val addr = a < in->nops ? operand(e, in->op[a]) : unk();
    if (bytes <= 0 || addr.form == UNK || (addr.form != EXACT && bytes < 4) || vreg_num(in->op[a]) < 0) {
        c->kind = LDS_UNKNOWN;
        return;
    }
    uint32_t unit = (uint32_t)bytes * (strstr(in->mn, "st64") ? 64u : 1u);
    uint32_t off[2] = {pair ? field(in, "offset0") * unit : field(in, "offset"), field(in, "offset1") * unit};
    for (int h = 0; h < 1 + pair; h++)
        if (!aligned_as_assumed(&addr, off[h], bytes)) {
            c->kind = LDS_UNKNOWN;
            return;
        }
    c->kind = LDS_KNOWN;
    for (int h = 0; h < 1 + pair; h++)
        charge_access(addr.x, off[h], bytes, banks, c);
}

void report_lds_costs(Arena *a, const char *const *lines, int entry, int n, int waves, int banks, bool v0_tid,
                      LdsCost *out)
{
    for (int i = entry; i < n; i++)
        out[i - entry] = (LdsCost){0};
    if (entry < 0 || entry >= n)
        return;
    Eval *e = malloc(sizeof *e);
    Insn *in = ARENA_NEW(a, Insn);
    if (!e)
        return;
    if (waves < 1)
        waves = 1;
    for (int w = 0; w < waves; w++) {
        for (int r = 0; r < NV; r++)
            e->v[r] = e->acc[r] = unk();
        for (int r = 0; r < NS; r++)
            e->s[r] = (Sreg){false, ~0u};
        if (v0_tid) {
            e->v[0].form = EXACT;
            for (int l = 0; l < LANES; l++)
                e->v[0].x[l] = (uint32_t)(LANES * w + l);
        }
        for (int i = 0; i < n; i++) {
            split(lines[i], in);
            if (i >= entry)
                lds_access(e, in, banks, &out[i - entry]);
            execute(e, in);
        }
    }
    free(e);
}
