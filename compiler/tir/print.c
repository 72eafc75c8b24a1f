/* The text form of the tile IR: the printer (the grammar is in parse.c, next to the code that reads it).
 *
 * The printer is driven by the op table: names, result counts, regions and attribute slots come from
 * tir_op_info, so an op added to ops.def prints with no change here. What it prints parses back to
 * the same module and prints again byte for byte:
 *  - value names are unique per function, given in definition order: a value with a name prints as
 *    %name, a second "acc" as %acc.1 (suffixes already taken are skipped), a name that is not
 *    IDENT('.'DIGITS)* with its other characters replaced by '_'; unnamed values print as %0, %1, ...
 *    Names are assigned for the whole function before printing, so a use that comes before its
 *    definition (invalid IR, for the verifier to report) still prints the definition's name;
 *  - a float `value` prints as the shortest decimal that reads back to the same value of the element
 *    type (the parser rounds a literal to the element type), with ".0" when it would read as an
 *    integer; inf, -inf, nan. Integers print in their type's signedness; bools as 0 or 1;
 *  - enum attributes print by name, or as their number when out of range (so that even invalid IR
 *    round-trips and reaches the verifier);
 *  - with TIR_PRINT_LOCS, the files used by the printed functions are declared first, numbered
 *    densely in module order, and ops and functions carry loc(file:line:col), the file omitted when 0.
 * Printing is linear in the size of the IR: names live in hash tables sized from a first count. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/fp16.h"
#include "support/strbuf.h"
#include "compiler/tir/tir.h"
#include "compiler/tir/tir_impl.h"

/* A quoted string: \" \\ \n \t, and \xNN for every other byte outside printable ASCII. */
static void out_quoted(StrBuf *o, const char *s)
{
    strbuf_ch(o, '"');
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        if (*c == '"')
            strbuf_str(o, "\\\"");
        else if (*c == '\\')
            strbuf_str(o, "\\\\");
        else if (*c == '\n')
            strbuf_str(o, "\\n");
        else if (*c == '\t')
            strbuf_str(o, "\\t");
        else if (*c < 0x20 || *c >= 0x7F)
            strbuf_printf(o, "\\x%02X", *c);
        else
            strbuf_ch(o, (char)*c);
    }
    strbuf_ch(o, '"');
}

/* ---- value names ---- */

typedef struct NameSlot {
    const Value *v; /* NULL: empty */
    const char *name; /* NULL: printed as its number */
    int64_t num;
} NameSlot;

typedef struct TakenSlot {
    const char *s; /* NULL: empty */
    size_t len;
    int64_t next; /* for a base name: the next suffix to try */
} TakenSlot;

typedef struct Printer {
    StrBuf out;
    Arena *a;
    const Module *m;
    const TypeTab *types;
    unsigned flags;
    int32_t *filemap; /* module file index -> printed index, or -1 when not printed */
    NameSlot *names;
    TakenSlot *taken;
    size_t cap; /* of both tables: a power of two, at least twice the number of values */
    int64_t next_num;
} Printer;

static uint64_t hash_ptr(const void *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

static NameSlot *name_slot(Printer *p, const Value *v)
{
    size_t mask = p->cap - 1;
    for (size_t i = hash_ptr(v) & mask;; i = (i + 1) & mask)
        if (p->names[i].v == v || !p->names[i].v)
            return &p->names[i];
}

static TakenSlot *taken_slot(Printer *p, const char *s, size_t len)
{
    size_t mask = p->cap - 1;
    for (size_t i = hash_bytes(s, len, 0) & mask;; i = (i + 1) & mask) {
        TakenSlot *t = &p->taken[i];
        if (!t->s || (t->len == len && memcmp(t->s, s, len) == 0))
            return t;
    }
}

/* The first free name among base, base.1, base.2, ...; each base remembers where to resume. */
static const char *take_name(Printer *p, const char *base)
{
    TakenSlot *b = taken_slot(p, base, strlen(base));
    if (!b->s) {
        b->s = base;
        b->len = strlen(base);
        b->next = 1;
        return base;
    }
    for (int64_t k = b->next > 0 ? b->next : 1;; k++) {
        char *cand = arena_printf(p->a, "%s.%lld", base, (long long)k);
        TakenSlot *c = taken_slot(p, cand, strlen(cand));
        if (!c->s) {
            c->s = cand;
            c->len = strlen(cand);
            c->next = 1;
            b->next = k + 1;
            return cand;
        }
    }
}

static void assign_name(Printer *p, const Value *v)
{
    NameSlot *s = name_slot(p, v);
    s->v = v;
    s->name = NULL;
    if (!v->name) {
        s->num = p->next_num++;
        return;
    }
    const char *base = v->name;
    size_t n = strlen(base);
    if (!tir_name_is_plain(base, n)) {
        char *c = arena_alloc(p->a, n + 2);
        size_t k = 0;
        if (n == 0 || (base[0] >= '0' && base[0] <= '9'))
            c[k++] = '_';
        for (size_t i = 0; i < n; i++) {
            char ch = base[i];
            bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
            c[k++] = ok ? ch : '_';
        }
        base = c;
    }
    s->name = take_name(p, base);
}

static size_t count_block_values(const Block *b)
{
    if (!b)
        return 0;
    size_t n = (size_t)b->nargs;
    for (const Op *op = b->first; op; op = op->next) {
        n += (size_t)op->nres;
        for (int r = 0; r < op->nregions; r++)
            n += count_block_values(op->regions[r]);
    }
    return n;
}

/* Names are given in print order: arguments of a block, then per op its results, then its regions. */
static void name_block(Printer *p, const Block *b)
{
    if (!b)
        return;
    for (int i = 0; i < b->nargs; i++)
        assign_name(p, &b->args[i]);
    for (const Op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nres; i++)
            assign_name(p, &op->results[i]);
        for (int r = 0; r < op->nregions; r++)
            name_block(p, op->regions[r]);
    }
}

static void name_func(Printer *p, const Func *f)
{
    size_t n = count_block_values(f->body);
    size_t cap = 16;
    while (cap < 2 * n + 2)
        cap *= 2;
    p->cap = cap;
    p->names = ARENA_ARRAY(p->a, NameSlot, cap);
    p->taken = ARENA_ARRAY(p->a, TakenSlot, cap);
    p->next_num = 0;
    name_block(p, f->body);
}

static void put_value(Printer *p, const Value *v)
{
    if (!v) {
        strbuf_str(&p->out, "%<null>");
        return;
    }
    NameSlot *s = name_slot(p, v);
    if (!s->v)
        strbuf_str(&p->out, "%<undefined>");
    else if (s->name) {
        strbuf_ch(&p->out, '%');
        strbuf_str(&p->out, s->name);
    } else
        strbuf_printf(&p->out, "%%%lld", (long long)s->num);
}

/* ---- types and attributes ---- */

static void put_type(Printer *p, const Type *t)
{
    StrBuf *o = &p->out;
    if (!t) {
        strbuf_str(o, "<null>");
        return;
    }
    switch (t->kind) {
    case TY_SCALAR:
        strbuf_str(o, sk_name(t->sk));
        return;
    case TY_PTR:
        strbuf_ch(o, '*');
        put_type(p, t->pointee);
        return;
    case TY_TILE:
        put_type(p, t->elem);
        strbuf_ch(o, '[');
        for (int i = 0; i < t->rank && i < TIR_MAX_RANK; i++)
            strbuf_printf(o, "%s%lld", i ? ", " : "", (long long)t->shape[i]);
        strbuf_ch(o, ']');
        if (t->layout && p->types && p->types->print_layout) {
            strbuf_ch(o, '#');
            strbuf_str(o, p->types->print_layout(p->a, t->layout));
        }
        return;
    }
    strbuf_str(o, "<bad type>");
}

static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The shortest %.Ng that reads back (rounded to sk) to the same value. */
static void put_float(StrBuf *o, double v, ScalarKind sk)
{
    v = fp_round(sk, v);
    if (isnan(v)) {
        strbuf_str(o, "nan");
        return;
    }
    if (isinf(v)) {
        strbuf_str(o, v < 0 ? "-inf" : "inf");
        return;
    }
    char buf[48];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf - 2, "%.*g", prec, v);
        if (same_bits(fp_round(sk, strtod(buf, NULL)), v))
            break;
    }
    if (!strpbrk(buf, ".eE"))
        strcat(buf, ".0");
    strbuf_str(o, buf);
}

static void put_value_attr(Printer *p, const Op *op)
{
    const Type *e = op->nres > 0 && op->results[0].type ? ty_elem(op->results[0].type) : NULL;
    int64_t i = op->at.value.i;
    if (e && e->kind == TY_SCALAR && sk_is_float(e->sk))
        put_float(&p->out, op->at.value.f, e->sk);
    else if (e && e->kind == TY_SCALAR && sk_is_int(e->sk) && !sk_is_signed(e->sk))
        strbuf_printf(&p->out, "%llu", (unsigned long long)((uint64_t)i & tir_int_mask(e->sk)));
    else
        strbuf_printf(&p->out, "%lld", (long long)i);
}

static void put_enum(StrBuf *o, int64_t v, int64_t count, const char *name)
{
    if (v >= 0 && v < count)
        strbuf_str(o, name);
    else
        strbuf_printf(o, "%lld", (long long)v);
}

static void put_lin(Printer *p, const PlanLin *l)
{
    strbuf_printf(&p->out, "%lld", (long long)l->k);
    for (int i = 0; i < l->n; i++) {
        int64_t c = l->t[i].c;
        strbuf_printf(&p->out, " %c %llu*", c < 0 ? '-' : '+', c < 0 ? 0ull - (unsigned long long)c : (unsigned long long)c);
        put_value(p, l->t[i].a);
        if (l->t[i].b) {
            strbuf_ch(&p->out, '*');
            put_value(p, l->t[i].b);
        }
    }
}

/* The plan's keys, after the op's attributes in the same braces. */
static void put_plan(Printer *p, const OpPlan *pl, bool first)
{
    StrBuf *o = &p->out;
    for (int k = 0; k < PK_COUNT; k++) {
        if (!(pl->set & (1u << k)))
            continue;
        strbuf_str(o, first ? "" : ", ");
        first = false;
        strbuf_str(o, tir_plan_names[k]);
        strbuf_str(o, " = ");
        if (k < PK_NINT) {
            strbuf_printf(o, "%lld", (long long)pl->v[k]);
        } else if (k == PK_FRONT) {
            put_value(p, pl->front);
        } else if (k == PK_LAYOUT) {
            strbuf_ch(o, '#');
            strbuf_str(o, pl->layout && p->types && p->types->print_layout ? p->types->print_layout(p->a, pl->layout)
                                                                          : "?");
        } else {
            int n = k == PK_TMA_COORD ? pl->ncoord : pl->npred;
            strbuf_ch(o, '[');
            for (int i = 0; i < n; i++) {
                strbuf_str(o, i ? ", " : "");
                if (k == PK_TMA_COORD)
                    put_lin(p, &pl->coord[i]);
                else
                    put_value(p, pl->pred[i]);
            }
            strbuf_ch(o, ']');
        }
    }
}

static void put_attrs(Printer *p, const Op *op, unsigned mask)
{
    StrBuf *o = &p->out;
    const Attrs *at = &op->at;
    bool first = true;
    strbuf_str(o, " {");
    for (int k = 0; k < TIR_NATTRS; k++) {
        unsigned bit = 1u << k;
        if (!(mask & bit) || ((bit & A_OPTIONAL) && !(bit == A_REVERSE ? at->reverse : at->exclusive)))
            continue;
        strbuf_str(o, first ? "" : ", ");
        first = false;
        strbuf_str(o, tir_attr_names[k]);
        strbuf_str(o, " = ");
        switch (bit) {
        case A_VALUE: put_value_attr(p, op); break;
        case A_AXIS: strbuf_printf(o, "%lld", (long long)at->axis); break;
        case A_PRED: put_enum(o, at->pred, PRED_COUNT, tir_pred_name((CmpPred)at->pred)); break;
        case A_KIND: put_enum(o, at->kind, KIND_COUNT, tir_kind_name((OpKind)at->kind)); break;
        case A_START: strbuf_printf(o, "%lld", (long long)at->start); break;
        case A_END: strbuf_printf(o, "%lld", (long long)at->end); break;
        case A_N: strbuf_printf(o, "%lld", (long long)at->n); break;
        case A_SEM: put_enum(o, at->sem, SEM_COUNT, tir_sem_name((MemSem)at->sem)); break;
        case A_SCOPE: put_enum(o, at->scope, SCOPE_COUNT, tir_scope_name((MemScope)at->scope)); break;
        case A_MSG: out_quoted(o, at->msg); break;
        case A_REVERSE: case A_EXCLUSIVE: strbuf_str(o, "true"); break;
        case A_DIMS:
            strbuf_ch(o, '[');
            for (int i = 0; i < at->ndims && i < TIR_MAX_RANK; i++)
                strbuf_printf(o, "%s%lld", i ? ", " : "", (long long)at->dims[i]);
            strbuf_ch(o, ']');
            break;
        default: break;
        }
    }
    if (op->plan)
        put_plan(p, op->plan, first);
    strbuf_ch(o, '}');
}

static void put_loc(Printer *p, SrcPos pos)
{
    if (!(p->flags & TIR_PRINT_LOCS) || pos.line == 0)
        return;
    int32_t file = pos.file < (uint32_t)p->m->nfiles ? p->filemap[pos.file] : 0;
    strbuf_str(&p->out, " loc(");
    if (file > 0)
        strbuf_printf(&p->out, "%d:", (int)file);
    strbuf_printf(&p->out, "%u:%u)", (unsigned)pos.line, (unsigned)pos.col);
}

/* ---- ops, blocks, functions ---- */

static void print_block(Printer *p, const Block *b, int indent);

static void print_op(Printer *p, const Op *op, int indent)
{
    StrBuf *o = &p->out;
    const OpInfo *info = (unsigned)op->code < OP_COUNT ? &tir_op_info[op->code] : NULL;
    strbuf_fill(o, ' ', (size_t)indent);
    for (int i = 0; i < op->nres; i++) {
        strbuf_str(o, i ? ", " : "");
        put_value(p, &op->results[i]);
    }
    if (op->nres)
        strbuf_str(o, " = ");
    strbuf_str(o, info ? info->name : "<bad op>");
    for (int i = 0; i < op->nopnds; i++) {
        strbuf_str(o, i ? ", " : " ");
        put_value(p, op->operands[i]);
    }
    if (info && (info->attrs || op->plan))
        put_attrs(p, op, info->attrs);
    for (int i = 0; i < op->nres; i++) {
        strbuf_str(o, i ? ", " : " : ");
        put_type(p, op->results[i].type);
    }
    for (int r = 0; r < op->nregions; r++) {
        const Block *b = op->regions[r];
        strbuf_str(o, " {\n");
        if (b && b->nargs) {
            strbuf_fill(o, ' ', (size_t)indent);
            strbuf_str(o, "^(");
            for (int i = 0; i < b->nargs; i++) {
                strbuf_str(o, i ? ", " : "");
                put_value(p, &b->args[i]);
                strbuf_str(o, ": ");
                put_type(p, b->args[i].type);
            }
            strbuf_str(o, "):\n");
        }
        print_block(p, b, indent + 2);
        strbuf_fill(o, ' ', (size_t)indent);
        strbuf_ch(o, '}');
    }
    put_loc(p, op->pos);
    strbuf_ch(o, '\n');
}

static void print_block(Printer *p, const Block *b, int indent)
{
    if (!b)
        return;
    for (const Op *op = b->first; op; op = op->next)
        print_op(p, op, indent);
}

static bool plain_ident(const char *s)
{
    if (!s || !*s || (*s >= '0' && *s <= '9'))
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

static void print_func(Printer *p, const Func *f)
{
    StrBuf *o = &p->out;
    name_func(p, f);
    strbuf_str(o, f->kind == FUNC_GRID ? "grid @" : "kernel @");
    if (plain_ident(f->name))
        strbuf_str(o, f->name);
    else
        out_quoted(o, f->name);
    strbuf_ch(o, '(');
    const Block *body = f->body;
    for (int i = 0; body && i < body->nargs; i++) {
        strbuf_str(o, i ? ", " : "");
        put_value(p, &body->args[i]);
        strbuf_str(o, ": ");
        put_type(p, body->args[i].type);
    }
    strbuf_ch(o, ')');
    if (f->kind == FUNC_KERNEL) {
        const KernelOptions *k = &f->opts;
        strbuf_printf(o, " {num_warps = %d, num_stages = %d, ", k->num_warps, k->num_stages);
        strbuf_printf(o, "waves_per_eu = %d, matrix_instr_nonkdim = %d, ", k->waves_per_eu, k->matrix_instr_nonkdim);
        strbuf_printf(o, "kpack = %d", k->kpack);
        if (f->stage_lds > 0) {
            strbuf_printf(o, ", stage_lds = %d, tma_flag = %d, tma = [", f->stage_lds, f->tma_flag);
            for (int i = 0; i < f->ntma; i++) {
                strbuf_str(o, i ? ", " : "");
                out_quoted(o, f->tma[i]);
            }
            strbuf_ch(o, ']');
        }
        strbuf_ch(o, '}');
    }
    put_loc(p, f->pos);
    strbuf_str(o, " {\n");
    print_block(p, body, 2);
    strbuf_str(o, "}\n");
}

/* ---- files ---- */

static void mark_file(Printer *p, SrcPos pos)
{
    if (pos.line && pos.file < (uint32_t)p->m->nfiles)
        p->filemap[pos.file] = 1;
}

static void mark_block_files(Printer *p, const Block *b)
{
    if (!b)
        return;
    for (const Op *op = b->first; op; op = op->next) {
        mark_file(p, op->pos);
        for (int r = 0; r < op->nregions; r++)
            mark_block_files(p, op->regions[r]);
    }
}

/* Declares the files used by funcs[0..n), numbered densely in module order. */
static void print_files(Printer *p, const Func *const *funcs, int n)
{
    const Module *m = p->m;
    p->filemap = ARENA_ARRAY(p->a, int32_t, m->nfiles + 1);
    if (!(p->flags & TIR_PRINT_LOCS))
        return;
    for (int i = 0; i < n; i++) {
        mark_file(p, funcs[i]->pos);
        mark_block_files(p, funcs[i]->body);
    }
    int32_t next = 0;
    for (int i = 0; i < m->nfiles; i++) {
        if (!p->filemap[i]) {
            p->filemap[i] = -1;
            continue;
        }
        p->filemap[i] = next;
        strbuf_printf(&p->out, "file %d ", (int)next++);
        out_quoted(&p->out, m->files[i]);
        strbuf_ch(&p->out, '\n');
    }
    if (next)
        strbuf_ch(&p->out, '\n');
}

static char *print_funcs(Arena *a, const Module *m, const Func *const *funcs, int n, unsigned flags)
{
    Printer p = {0};
    strbuf_init(&p.out, a);
    p.a = a;
    p.m = m;
    p.types = m->types;
    p.flags = flags;
    strbuf_put(&p.out, "", 0);
    print_files(&p, funcs, n);
    for (int i = 0; i < n; i++) {
        if (i)
            strbuf_ch(&p.out, '\n');
        print_func(&p, funcs[i]);
    }
    return p.out.p;
}

char *tir_print_module(Arena *a, const Module *m, unsigned flags)
{
    return print_funcs(a, m, (const Func *const *)m->funcs, m->nfuncs, flags);
}

char *tir_print_func(Arena *a, const Func *f, unsigned flags)
{
    return print_funcs(a, f->module, &f, 1, flags);
}
