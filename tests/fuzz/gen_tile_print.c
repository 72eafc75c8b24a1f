/* Prints a generated program: the header that says how to run it (gen_tile.h), then the kernel.
 * Every operator is parenthesised, so the text never depends on the precedence table; let-bound
 * nodes print as their names. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/gen_tile_internal.h"

typedef struct Str {
    char *s;
    size_t n, cap;
} Str;

static void put(Str *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(Str *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (s->n + (size_t)n + 1 > s->cap) {
        s->cap = (s->n + (size_t)n + 1) * 2;
        s->s = realloc(s->s, s->cap);
    }
    va_start(ap, fmt);
    vsnprintf(s->s + s->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    s->n += (size_t)n;
}

static const char *tn(int dt)
{
    return rk_dtype_name((rk_dtype)dt);
}

static void put_num(Str *s, int dt, double v)
{
    if (dt == RK_BOOL) {
        put(s, "%s", v != 0 ? "true" : "false");
    } else if (!gt_float(dt)) {
        if (v < 0)
            put(s, "(-%.0f)", -v);
        else
            put(s, "%.0f", v);
    } else {
        char b[64];
        snprintf(b, sizeof b, "%.17g", fabs(v));
        if (!strpbrk(b, ".en"))
            strcat(b, ".0");
        put(s, v < 0 || (v == 0 && signbit(v)) ? "(-%s)" : "%s", b);
    }
}

static void put_shape(Str *s, Ty t)
{
    put(s, "[");
    for (int i = 0; i < t.rank; i++)
        put(s, "%s%d", i ? ", " : "", t.d[i]);
    put(s, "]");
}

/* x[None, :, None]: `:` at position `at` of `rank` */
static void put_axis_index(Str *s, int at, int rank)
{
    if (rank == 1)
        return;
    put(s, "[");
    for (int i = 0; i < rank; i++)
        put(s, "%s%s", i ? ", " : "", i == at ? ":" : "None");
    put(s, "]");
}

static void pe(G *g, Str *s, int id, bool root);

/* An index tile (O_IDX): row-major, column-major, reversed, a permutation, or broadcast. */
static void put_index(Str *s, const Node *n)
{
    Ty t = n->ty;
    if (n->sub == P_SCALAR) {
        put(s, "%d", n->a[0]);
        return;
    }
    int stride[4], e = gt_elems(t);
    bool col = n->sub == P_COL;
    int acc = 1;
    for (int k = 0; k < t.rank; k++) {
        int i = col ? k : t.rank - 1 - k;
        stride[i] = acc;
        acc *= t.d[i];
    }
    bool bc = n->sub == P_BCAST;
    int used = bc ? n->a[1] : (1 << t.rank) - 1;
    if (bc)
        put(s, "broadcast_to(");
    if (n->sub == P_PERM)
        put(s, "(((");
    int terms = 0;
    for (int i = 0; i < t.rank; i++) {
        if (!(used >> i & 1))
            continue;
        put(s, "%s", terms++ ? " + " : "");
        if (n->sub == P_REV && i == t.rank - 1)
            put(s, "(%d - arange(%d))", t.d[i] - 1, t.d[i]);
        else
            put(s, "arange(%d)", t.d[i]);
        put_axis_index(s, i, t.rank);
        if (stride[i] != 1)
            put(s, " * %d", stride[i]);
    }
    if (terms == 0)
        put(s, "zeros(%s, i32)", "[1]");
    if (n->sub == P_PERM)
        put(s, ") * 5 + 3) & %d)", e - 1);
    if (bc) {
        put(s, ", ");
        put_shape(s, t);
        put(s, ")");
    }
}

static const char *const BIN_SP[NBIN] = {"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "maximum", "minimum",
                                         "==", "!=", "<", "<=", ">", ">=", "&&", "||"};
static const char *const UN_SP[NUN] = {"-", "~", "!", "abs", "exp", "exp2", "log", "log2",
                                       "sqrt", "rsqrt", "floor", "ceil", "sin", "cos"};
static const char *const RED_SP[] = {"sum", "max", "min", "argmax", "argmin"};

/* The scalar offsets of a pointer: the program's part, the loop's slot, a run-time offset; each term
 * converted to i64 when `wide`. */
static void put_offsets(G *g, Str *s, const Buf *b, int slot_loop, int off, bool hint, bool wide)
{
    int per = b->size * b->slots;
    const char *w0 = wide ? "(" : "", *w1 = wide ? " as i64)" : "";
    if (hint && per % 16 == 0)
        put(s, "%smultiple_of(pid * %d, 16)%s", w0, per, w1);
    else if (per == 1)
        put(s, "%spid%s", w0, w1);
    else
        put(s, "%spid * %d%s", w0, per, w1);
    if (slot_loop >= 0) {
        const Stmt *l = &g->st[slot_loop];
        const Node *li = &g->nodes[l->loopi];
        put(s, " + %s", w0);
        put(s, l->is_static ? "((k%d as i32) - %d) * %d" : "(k%d - %d) * %d", slot_loop, li->a[1], b->size);
        put(s, "%s", w1);
    }
    if (off >= 0)
        put(s, " + %sa%d%s", w0, off, w1);
}

/* A pointer to buffer `buf` at its elements `idx`, written in form `form` (PF_*: every form addresses
 * the same elements; the generator's --loops programs draw them). */
static void put_ptr(G *g, Str *s, int buf, int idx, int slot_loop, int off, bool hint, int form)
{
    const Buf *b = &g->buf[buf];
    char base = b->out ? 'o' : 'x';
    switch (form) {
    case PF_TILE_FIRST:
        put(s, "(%c%d + ", base, buf);
        pe(g, s, idx, false);
        put(s, ") + ");
        put_offsets(g, s, b, slot_loop, off, hint, false);
        break;
    case PF_INT_FIRST:
        put(s, "%c%d + (", base, buf);
        put_offsets(g, s, b, slot_loop, off, hint, false);
        put(s, " + ");
        pe(g, s, idx, false);
        put(s, ")");
        break;
    case PF_PAST_BACK:
        put(s, "(%c%d + ", base, buf);
        put_offsets(g, s, b, slot_loop, off, hint, false);
        put(s, " + 1048576) + ");
        pe(g, s, idx, false);
        put(s, " - 1048576");
        break;
    case PF_BEFORE_FWD:
        put(s, "(%c%d + ", base, buf);
        put_offsets(g, s, b, slot_loop, off, hint, false);
        put(s, " - 7) + (");
        pe(g, s, idx, false);
        put(s, " + 7)");
        break;
    case PF_WIDE:
        put(s, "%c%d + ", base, buf);
        put_offsets(g, s, b, slot_loop, off, hint, true);
        put(s, " + ((");
        pe(g, s, idx, false);
        put(s, ") as i64)");
        break;
    default:
        put(s, "%c%d + ", base, buf);
        put_offsets(g, s, b, slot_loop, off, hint, false);
        put(s, " + ");
        pe(g, s, idx, false);
    }
}

static void pe(G *g, Str *s, int id, bool root)
{
    const Node *n = &g->nodes[id];
    if (!root && n->name >= 0) {
        put(s, "%s%d", n->op == O_IDX ? "ix" : "v", n->name);
        return;
    }
    int t = n->ty.dt;
    switch (n->op) {
    case O_LOAD:
        put(s, "load(");
        put_ptr(g, s, n->a[0], n->k[0], n->a[1], n->a[2], n->a[3], n->pform);
        if (n->k[1] >= 0) {
            put(s, ", mask = ");
            pe(g, s, n->k[1], false);
        }
        if (n->k[2] >= 0) {
            put(s, ", other = ");
            pe(g, s, n->k[2], false);
        }
        put(s, ")");
        break;
    case O_ARG: put(s, "a%d", n->a[0]); break;
    case O_PID: put(s, "pid"); break;
    case O_LOOPI: put(s, n->a[3] ? "(k%d as i32)" : "k%d", n->a[0]); break;
    case O_LIT:
        if (n->a[0] && t != RK_BOOL) {
            put(s, "(");
            put_num(s, t, n->lit);
            put(s, " as %s)", tn(t));
        } else {
            put_num(s, t, n->lit);
        }
        break;
    case O_BIN:
        if (n->sub == B_MAX || n->sub == B_MIN) {
            put(s, "%s(", BIN_SP[n->sub]);
            pe(g, s, n->k[0], false);
            put(s, ", ");
            pe(g, s, n->k[1], false);
            put(s, ")");
        } else {
            put(s, "(");
            pe(g, s, n->k[0], false);
            put(s, " %s ", BIN_SP[n->sub]);
            pe(g, s, n->k[1], false);
            put(s, ")");
        }
        break;
    case O_UN:
        if (n->sub <= U_LNOT) {
            put(s, "(%s", UN_SP[n->sub]);
            pe(g, s, n->k[0], false);
            put(s, ")");
        } else {
            put(s, "%s(", UN_SP[n->sub]);
            pe(g, s, n->k[0], false);
            put(s, ")");
        }
        break;
    case O_CAST:
        put(s, "(");
        pe(g, s, n->k[0], false);
        put(s, " as %s)", tn(t));
        break;
    case O_BITCAST:
        put(s, "bitcast(");
        pe(g, s, n->k[0], false);
        put(s, ", %s)", tn(t));
        break;
    case O_WHERE:
    case O_FMA:
        put(s, "%s(", n->op == O_WHERE ? "where" : "fma");
        for (int i = 0; i < 3; i++) {
            put(s, "%s", i ? ", " : "");
            pe(g, s, n->k[i], false);
        }
        put(s, ")");
        break;
    case O_RED: {
        const Ty *xt = &g->nodes[n->k[0]].ty;
        put(s, "%s(", RED_SP[n->sub]);
        pe(g, s, n->k[0], false);
        if (n->a[0] >= 0)
            put(s, n->a[3] ? ", axis = %d" : ", %d", n->a[2] ? n->a[0] - xt->rank : n->a[0]);
        if (n->a[1])
            put(s, ", keepdims = true");
        /* every fourth float max/min whose operand can hold no NaN ignores NaN, which then changes
         * nothing but the lowering (the kinds maxnum/minnum); chosen by the node's index, so that no
         * random draw is added and every other program stays as it was */
        if ((n->sub == R_MAX || n->sub == R_MIN) && gt_float(xt->dt) && !g->nodes[n->k[0]].ab.nan && id % 4 == 0)
            put(s, ", propagate_nan = false");
        put(s, ")");
        break;
    }
    case O_CUMSUM:
        put(s, "cumsum(");
        pe(g, s, n->k[0], false);
        if (n->a[0] >= 0)
            put(s, ", %d", n->a[0]);
        if (n->a[1])
            put(s, ", reverse = true");
        if (n->a[2])
            put(s, ", exclusive = true");
        put(s, ")");
        break;
    case O_DOT:
        put(s, "dot(");
        pe(g, s, n->k[0], false);
        put(s, ", ");
        pe(g, s, n->k[1], false);
        if (n->k[2] >= 0) {
            put(s, ", ");
            pe(g, s, n->k[2], false);
        }
        if (n->a[0])
            put(s, ", precision = \"tf32\"");
        put(s, ")");
        break;
    case O_TRANS:
        put(s, "trans(");
        pe(g, s, n->k[0], false);
        put(s, ")");
        break;
    case O_PERMUTE:
        put(s, "permute(");
        pe(g, s, n->k[0], false);
        put(s, ", [");
        for (int i = 0; i < n->ty.rank; i++)
            put(s, "%s%d", i ? ", " : "", n->a[i]);
        put(s, "])");
        break;
    case O_RESHAPE:
    case O_BCAST:
        put(s, "%s(", n->op == O_RESHAPE ? "reshape" : "broadcast_to");
        pe(g, s, n->k[0], false);
        put(s, ", ");
        put_shape(s, n->ty);
        put(s, ")");
        break;
    case O_EXPAND:
        if (n->a[1]) {
            pe(g, s, n->k[0], false);
            put(s, "[");
            for (int i = 0; i < n->ty.rank; i++)
                put(s, "%s%s", i ? ", " : "", i == n->a[0] ? "None" : ":");
            put(s, "]");
        } else {
            put(s, "expand_dims(");
            pe(g, s, n->k[0], false);
            put(s, ", %d)", n->a[0]);
        }
        break;
    case O_FULL:
    case O_ZEROS:
        if (n->op == O_ZEROS) {
            put(s, "zeros(");
            put_shape(s, n->ty);
            put(s, ", %s)", tn(t));
            break;
        }
        put(s, "full(");
        put_shape(s, n->ty);
        put(s, ", ");
        if (n->k[0] >= 0)
            pe(g, s, n->k[0], false);
        else
            put_num(s, t, n->lit);
        put(s, ", %s)", tn(t));
        break;
    case O_ARANGE: {
        int d = n->ty.d[n->a[1]];
        bool one = n->ty.rank == 1;
        if (!one)
            put(s, "broadcast_to(");
        if (n->a[0] == 0)
            put(s, "arange(%d)", d);
        else
            put(s, n->a[0] < 0 ? "arange((-%d), %d)" : "arange(%d, %d)", abs(n->a[0]), n->a[0] + d);
        if (!one) {
            put_axis_index(s, n->a[1], n->ty.rank);
            put(s, ", ");
            put_shape(s, n->ty);
            put(s, ")");
        }
        break;
    }
    case O_IDX: put_index(s, n); break;
    case O_VAR: put(s, "w%d", n->a[0]); break;
    }
}

static void indent(Str *s, int d)
{
    put(s, "%*s", 4 * d, "");
}

static void pb(G *g, Str *s, int b, int d);

static void ps(G *g, Str *s, int id, int d)
{
    const Stmt *t = &g->st[id];
    switch (t->kind) {
    case S_LET:
        indent(s, d);
        put(s, "let %s%d = ", g->nodes[t->node].op == O_IDX ? "ix" : "v", g->nodes[t->node].name);
        pe(g, s, t->node, true);
        put(s, ";\n");
        break;
    case S_VAR:
        indent(s, d);
        put(s, "var w%d = ", t->var);
        pe(g, s, t->node, false);
        put(s, ";\n");
        break;
    case S_ASSIGN:
        indent(s, d);
        if (t->compound >= 0) {
            put(s, "w%d %s= ", t->var, BIN_SP[t->compound]);
            pe(g, s, g->nodes[t->node].k[1], false);
        } else {
            put(s, "w%d = ", t->var);
            pe(g, s, t->node, false);
        }
        put(s, ";\n");
        break;
    case S_IF:
        indent(s, d);
        put(s, "if ");
        pe(g, s, t->node, false);
        put(s, " {\n");
        pb(g, s, t->blk[0], d + 1);
        indent(s, d);
        if (t->blk[1] >= 0) {
            put(s, "} else {\n");
            pb(g, s, t->blk[1], d + 1);
            indent(s, d);
        }
        put(s, "}\n");
        break;
    case S_FOR:
        indent(s, d);
        put(s, "%sfor k%d in ", t->is_static ? "static " : "", id);
        if (t->far) {
            put(s, "a%d .. a%d step a%d", t->larg, t->harg, t->sarg);
        } else if (t->step < 0) {
            put(s, t->harg >= 0 ? "a%d" : "%d", t->harg >= 0 ? t->harg : t->lo);
            put(s, " .. %d step -1", t->hi);
        } else {
            put(s, "%d .. ", t->lo);
            put(s, t->harg >= 0 ? "a%d" : "%d", t->harg >= 0 ? t->harg : t->hi);
            if (t->step != 1)
                put(s, " step %d", t->step);
        }
        put(s, " {\n");
        pb(g, s, t->blk[0], d + 1);
        indent(s, d);
        put(s, "}\n");
        break;
    case S_WHILE:
        indent(s, d);
        if (t->far) { /* counts from lo by step while below (above) hi: 0 .. 4 times, never overflowing */
            put(s, "var c%d = a%d;\n", id, t->larg);
            indent(s, d);
            put(s, "while c%d %s a%d {\n", id, t->step > 0 ? "<" : ">", t->harg);
        } else {
            put(s, "var c%d = 0;\n", id);
            indent(s, d);
            put(s, "while c%d < ", id);
            put(s, t->harg >= 0 ? "a%d" : "%d", t->harg >= 0 ? t->harg : t->hi);
            put(s, " {\n");
        }
        pb(g, s, t->blk[0], d + 1);
        indent(s, d + 1);
        if (t->far)
            put(s, "c%d += a%d;\n", id, t->sarg);
        else
            put(s, "c%d += 1;\n", id);
        indent(s, d);
        put(s, "}\n");
        break;
    case S_PWALK: {
        if (g->opt->only_output >= 0 && g->opt->only_output != t->out)
            break;
        const Buf *in = &g->buf[t->idx];
        int n = t->lo, per = in->size * in->slots;
        indent(s, d);
        put(s, "var q%d = x%d + pid * %d", id, t->idx, per);
        if (t->step < 0)
            put(s, " + %d", per - n);
        put(s, ";\n");
        indent(s, d);
        put(s, "var t%d = zeros([%d], i32);\n", id, n);
        indent(s, d);
        if (t->is_static) {
            put(s, "var c%d = 0;\n", id);
            indent(s, d);
            put(s, "while c%d < a%d {\n", id, t->harg);
        } else {
            put(s, "for j%d in 0 .. a%d {\n", id, t->harg);
        }
        if (t->larg >= 0) {
            indent(s, d + 1);
            put(s, "if j%d == a%d {\n", id, t->larg);
            indent(s, d + 2);
            put(s, "break;\n");
            indent(s, d + 1);
            put(s, "}\n");
        }
        indent(s, d + 1);
        put(s, "t%d = t%d + load(q%d + arange(%d));\n", id, id, id, n);
        indent(s, d + 1);
        if (t->sarg >= 0)
            put(s, "q%d = q%d + a%d;\n", id, id, t->sarg);
        else
            put(s, "q%d = q%d %c %d;\n", id, id, t->step < 0 ? '-' : '+', n);
        if (t->is_static) {
            indent(s, d + 1);
            put(s, "c%d += 1;\n", id);
        }
        indent(s, d);
        put(s, "}\n");
        indent(s, d);
        put(s, "store(o%d + pid * %d + arange(%d), t%d);\n", t->out, n, n, id);
        break;
    }
    case S_BREAK:
    case S_CONTINUE:
    case S_RETURN:
    case S_BARRIER:
        indent(s, d);
        put(s, "%s;\n", t->kind == S_BREAK      ? "break"
                        : t->kind == S_CONTINUE ? "continue"
                        : t->kind == S_RETURN   ? "return"
                                                : "barrier()");
        break;
    case S_STORE:
        if (g->opt->only_output >= 0 && g->opt->only_output != t->out && !g->buf[t->out].readback)
            break; /* an output loaded back keeps its stores: the loads would read the poison */
        indent(s, d);
        put(s, "store(");
        put_ptr(g, s, t->out, t->idx, -1, t->off, false, t->pform);
        put(s, ", ");
        pe(g, s, t->node, false);
        if (t->mask >= 0) {
            put(s, ", mask = ");
            pe(g, s, t->mask, false);
        }
        put(s, ");\n");
        break;
    }
}

static void pb(G *g, Str *s, int b, int d)
{
    for (int i = 0; i < g->blk[b].n; i++)
        ps(g, s, g->blk[b].st[i], d);
}

/* Elements of a buffer: every program's slots, less the tail no access reaches, plus the padding of
 * run-time offsets. */
static long buf_elems(const G *g, const Buf *b)
{
    long n = (long)g->nprog * b->slots * b->size;
    if (b->tail_arg >= 0)
        n = n - b->size + (long)g->arg[b->tail_arg].v;
    return n + (b->padded ? 8 : 0);
}

char *gt_print_program(G *g, uint64_t seed)
{
    Str s = {0};
    put(&s, "// rk-diff seed 0x%016llx\n", (unsigned long long)seed);
    put(&s, "// grid %d %d 1\n", g->grid[0], g->grid[1]);
    for (int i = 0; i < g->nparams; i++) {
        int p = g->params[i];
        if (p < 0) {
            const Arg *a = &g->arg[-1 - p];
            put(&s, "// arg a%d %s %.17g\n", -1 - p, tn(a->dt), a->v);
            continue;
        }
        const Buf *b = &g->buf[p];
        put(&s, "// buf %c%d %s %ld ", b->out ? 'o' : 'x', p, tn(b->dt), buf_elems(g, b));
        if (b->out && g->opt->only_output >= 0 && g->opt->only_output != p)
            put(&s, "in bits 0 0 0\n"); /* not compared: what it holds before the stores does not matter */
        else if (b->out && b->tol <= 0)
            put(&s, "out exact\n");
        else if (b->out)
            put(&s, "out %.6g\n", b->tol * 2);
        else
            put(&s, "in %s %.17g %.17g %.17g\n", b->gen == 0 ? "uni" : b->gen == 1 ? "bits" : "special", b->lo, b->hi,
                b->q);
    }
    put(&s, "\n@options(num_warps = %d, num_stages = %d)\nkernel fz(", g->warps, g->stages);
    for (int i = 0; i < g->nparams; i++) {
        int p = g->params[i];
        if (p < 0)
            put(&s, "%sa%d: %s", i ? ", " : "", -1 - p, tn(g->arg[-1 - p].dt));
        else
            put(&s, "%s%c%d: *%s", i ? ", " : "", g->buf[p].out ? 'o' : 'x', p, tn(g->buf[p].dt));
    }
    put(&s, ")\n{\n    let pid = program_id(0) + program_id(1) * num_programs(0);\n");
    pb(g, &s, g->top, 1);
    put(&s, "}\n");
    return s.s;
}
