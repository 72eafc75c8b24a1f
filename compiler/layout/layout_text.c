/* The text form of layouts, as they appear after '#' in LIR types:
 *   blocked<spt = [1, 4], tpw = [16, 4], wpc = [4, 1], order = [1, 0]>
 *   slice<dim = 1, parent = blocked<...>>
 *   mfma<instr = v_mfma_f32_16x16x16_bf16, wpc = [2, 2], transposed = false>
 *   dot_op<op = 0, k_width = 4, parent = mfma<...>>
 *   shared<vec = 8, per_phase = 1, max_phase = 8, pad = 0, order = [1, 0]>
 * lay_parse reads exactly what lay_str writes (spaces optional). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/layout/layout.h"
#include "isa/mfma.h"

static char *ints(Arena *a, const int *v, int n)
{
    char buf[64];
    int k = snprintf(buf, sizeof buf, "[");
    for (int i = 0; i < n; i++)
        k += snprintf(buf + k, sizeof buf - (size_t)k, "%s%d", i ? ", " : "", v[i]);
    snprintf(buf + k, sizeof buf - (size_t)k, "]");
    return arena_strdup(a, buf);
}

char *lay_str(Arena *a, const Layout *l)
{
    if (!l)
        return arena_strdup(a, "none");
    switch (l->kind) {
    case LAY_BLOCKED:
        return arena_printf(a, "blocked<spt = %s, tpw = %s, wpc = %s, order = %s>", ints(a, l->spt, l->rank),
                            ints(a, l->tpw, l->rank), ints(a, l->wpc, l->rank), ints(a, l->order, l->rank));
    case LAY_SLICE:
        return arena_printf(a, "slice<dim = %d, parent = %s>", l->dim, lay_str(a, l->parent));
    case LAY_MFMA: {
        const MfmaInfo *info = isa_mfma_info((MfmaOp)l->instr);
        return arena_printf(a, "mfma<instr = %s, wpc = %s, transposed = %s>", info ? info->name : "?",
                            ints(a, l->wpc, 2), l->transposed ? "true" : "false");
    }
    case LAY_MMA: {
        const char *name = nv_mma_name((NvMmaOp)l->instr);
        return arena_printf(a, "mma<instr = %s, wpc = %s>", name ? name : "?", ints(a, l->wpc, 2));
    }
    case LAY_DOT_OP:
        return arena_printf(a, "dot_op<op = %d, k_width = %d, parent = %s>", l->op_idx, l->k_width,
                            lay_str(a, l->parent));
    case LAY_SHARED:
        return arena_printf(a, "shared<vec = %d, per_phase = %d, max_phase = %d, pad = %d, order = %s>", l->vec,
                            l->per_phase, l->max_phase, l->pad, ints(a, l->order, l->rank));
    }
    return arena_strdup(a, "?");
}

/* ---- parsing ---- */

typedef struct P {
    const char *s;
    bool ok;
} P;

static void ws(P *p)
{
    while (isspace((unsigned char)*p->s))
        p->s++;
}

static bool lit(P *p, const char *t)
{
    ws(p);
    size_t n = strlen(t);
    if (strncmp(p->s, t, n) == 0) {
        p->s += n;
        return true;
    }
    p->ok = false;
    return false;
}

static bool word(P *p, char *out, size_t cap)
{
    ws(p);
    size_t n = 0;
    while ((isalnum((unsigned char)p->s[n]) || p->s[n] == '_') && n + 1 < cap) {
        out[n] = p->s[n];
        n++;
    }
    out[n] = 0;
    p->s += n;
    if (!n)
        p->ok = false;
    return n > 0;
}

static int num(P *p)
{
    ws(p);
    char *end;
    long v = strtol(p->s, &end, 10);
    if (end == p->s || v < 0 || v > (1 << 20))
        p->ok = false;
    p->s = end;
    return (int)v;
}

static int intlist(P *p, int *out)
{
    int n = 0;
    if (!lit(p, "["))
        return 0;
    ws(p);
    if (*p->s == ']') {
        p->s++;
        return 0;
    }
    do {
        if (n == LAY_MAX_RANK) {
            p->ok = false;
            return 0;
        }
        out[n++] = num(p);
        ws(p);
    } while (*p->s == ',' && p->s++);
    lit(p, "]");
    return n;
}

static bool key(P *p, const char *k)
{
    return lit(p, k) && lit(p, "=");
}

static const Layout *parse(LayoutTab *t, P *p, int depth);

static const Layout *parse(LayoutTab *t, P *p, int depth)
{
    char kind[32];
    if (depth > 8 || !word(p, kind, sizeof kind) || !lit(p, "<"))
        return NULL;
    const Layout *l = NULL;
    if (strcmp(kind, "blocked") == 0) {
        int spt[LAY_MAX_RANK], tpw[LAY_MAX_RANK], wpc[LAY_MAX_RANK], order[LAY_MAX_RANK];
        key(p, "spt");
        int r = intlist(p, spt);
        lit(p, ",");
        key(p, "tpw");
        int r2 = intlist(p, tpw);
        lit(p, ",");
        key(p, "wpc");
        int r3 = intlist(p, wpc);
        lit(p, ",");
        key(p, "order");
        int r4 = intlist(p, order);
        if (p->ok && r > 0 && r == r2 && r == r3 && r == r4)
            l = lay_blocked(t, r, spt, tpw, wpc, order);
    } else if (strcmp(kind, "slice") == 0) {
        key(p, "dim");
        int dim = num(p);
        lit(p, ",");
        key(p, "parent");
        const Layout *par = p->ok ? parse(t, p, depth + 1) : NULL;
        if (par && dim < par->rank && par->rank > 1)
            l = lay_slice(t, par, dim);
    } else if (strcmp(kind, "mfma") == 0) {
        char name[64], tr[8];
        int wpc[LAY_MAX_RANK];
        key(p, "instr");
        word(p, name, sizeof name);
        lit(p, ",");
        key(p, "wpc");
        int r = intlist(p, wpc);
        lit(p, ",");
        key(p, "transposed");
        word(p, tr, sizeof tr);
        for (int op = 0; p->ok && r == 2 && op < MFMA_COUNT; op++) {
            const MfmaInfo *info = isa_mfma_info((MfmaOp)op);
            if (info && strcmp(info->name, name) == 0)
                l = lay_mfma(t, op, info->m, info->n, info->k, wpc, strcmp(tr, "true") == 0);
        }
    } else if (strcmp(kind, "mma") == 0) {
        char name[64];
        int wpc[LAY_MAX_RANK];
        key(p, "instr");
        word(p, name, sizeof name);
        lit(p, ",");
        key(p, "wpc");
        int r = intlist(p, wpc);
        for (int op = 0; p->ok && r == 2 && op < NV_MMA_COUNT; op++)
            if (strcmp(nv_mma_name((NvMmaOp)op), name) == 0)
                l = lay_mma(t, op, wpc);
    } else if (strcmp(kind, "dot_op") == 0) {
        key(p, "op");
        int op = num(p);
        lit(p, ",");
        key(p, "k_width");
        int kw = num(p);
        lit(p, ",");
        key(p, "parent");
        const Layout *par = p->ok ? parse(t, p, depth + 1) : NULL;
        if (par && (op == 0 || op == 1) && kw > 0)
            l = lay_dot_op(t, op, par, kw);
    } else if (strcmp(kind, "shared") == 0) {
        int order[LAY_MAX_RANK];
        key(p, "vec");
        int vec = num(p);
        lit(p, ",");
        key(p, "per_phase");
        int pp = num(p);
        lit(p, ",");
        key(p, "max_phase");
        int mp = num(p);
        lit(p, ",");
        key(p, "pad");
        int pad = num(p);
        lit(p, ",");
        key(p, "order");
        int r = intlist(p, order);
        if (p->ok && r > 0)
            l = lay_shared(t, r, vec, pp, mp, pad, order);
    }
    if (!lit(p, ">"))
        return NULL;
    return p->ok ? l : NULL;
}

const Layout *lay_parse(LayoutTab *t, const char *s, const char **end)
{
    P p = {s, true};
    const Layout *l = parse(t, &p, 0);
    if (end)
        *end = p.s;
    return l;
}

/* The TypeTab hook: the whole text one layout of the tile's rank. */
static const Layout *parse_hook(void *ud, const char *s, int rank, const int64_t *shape, const char **why)
{
    (void)shape;
    const char *end;
    const Layout *l = lay_parse(ud, s, &end);
    while (l && isspace((unsigned char)*end))
        end++;
    if (!l || *end) {
        *why = "a malformed layout";
        return NULL;
    }
    if (l->rank != rank) {
        *why = "a layout of another rank than its tile";
        return NULL;
    }
    return l;
}

void lay_attach_text(TypeTab *tt, LayoutTab *t)
{
    tt->print_layout = lay_str;
    tt->parse_layout = parse_hook;
    tt->parse_layout_ud = t;
}
