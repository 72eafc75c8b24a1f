/* Tile IR construction, traversal and editing; the op table's derived data. */
#include "compiler/tir/tir.h"

#include <string.h>

const OpInfo tir_op_info[OP_COUNT] = {
#define OP(id, name, nops, nres, nreg, flags, attrs) {name, nops, nres, nreg, flags, attrs},
#include "compiler/tir/ops.def"
#undef OP
};

OpCode tir_op_from_name(const char *name)
{
    for (int i = 0; i < OP_COUNT; i++)
        if (strcmp(tir_op_info[i].name, name) == 0)
            return (OpCode)i;
    return OP_COUNT;
}

static const char *const pred_names[PRED_COUNT] = {"eq", "ne", "lt", "le", "gt", "ge"};
static const char *const kind_names[KIND_COUNT] = {"sum", "max",  "min",  "argmax", "argmin",
                                                   "add", "and",  "or",   "xor",    "xchg",
                                                   "ieee", "tf32", "multiple_of", "max_contiguous", "prod",
                                                   "maxnum", "minnum"};
static const char *const sem_names[SEM_COUNT] = {"relaxed", "acquire", "release", "acq_rel"};
static const char *const scope_names[SCOPE_COUNT] = {"gpu", "cta", "sys"};

const char *tir_pred_name(CmpPred p) { return (unsigned)p < PRED_COUNT ? pred_names[p] : "?"; }
const char *tir_kind_name(OpKind k) { return (unsigned)k < KIND_COUNT ? kind_names[k] : "?"; }
const char *tir_sem_name(MemSem s) { return (unsigned)s < SEM_COUNT ? sem_names[s] : "?"; }
const char *tir_scope_name(MemScope s) { return (unsigned)s < SCOPE_COUNT ? scope_names[s] : "?"; }

Module *tir_module_new(Arena *a, TypeTab *types, StrTab *strs)
{
    Module *m = ARENA_NEW(a, Module);
    m->arena = a;
    m->types = types;
    m->strs = strs;
    return m;
}

uint32_t tir_module_file(Module *m, const char *path)
{
    for (int i = 0; i < m->nfiles; i++)
        if (strcmp(m->files[i], path) == 0)
            return (uint32_t)i;
    m->files = arena_realloc(m->arena, m->files, sizeof(char *) * (size_t)m->nfiles,
                             sizeof(char *) * (size_t)(m->nfiles + 1));
    m->files[m->nfiles] = arena_strdup(m->arena, path);
    return (uint32_t)m->nfiles++;
}

Block *tir_block_new(Func *f)
{
    Block *b = ARENA_NEW(f->module->arena, Block);
    b->func = f;
    return b;
}

Func *tir_func_new(Module *m, FuncKind kind, const char *name)
{
    Func *f = ARENA_NEW(m->arena, Func);
    f->kind = kind;
    f->name = name;
    f->module = m;
    f->body = tir_block_new(f);
    f->opts.num_warps = 4;
    f->opts.num_stages = 2;
    f->opts.matrix_instr_nonkdim = 16;
    f->opts.kpack = 1;
    m->funcs = arena_realloc(m->arena, m->funcs, sizeof(Func *) * (size_t)m->nfuncs,
                             sizeof(Func *) * (size_t)(m->nfuncs + 1));
    m->funcs[m->nfuncs++] = f;
    return f;
}

Func *tir_module_find(Module *m, FuncKind kind, const char *name)
{
    for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i]->kind == kind && strcmp(m->funcs[i]->name, name) == 0)
            return m->funcs[i];
    return NULL;
}

/* Block arguments live in one array; values are referred to by pointer, so the array may only grow
 * while nothing refers to its elements yet: arguments are added before the block is used. It grows
 * by doubling, so a kernel of n parameters costs O(n) memory (by one, 8,000 parameters took 3.4 GB). */
Value *tir_block_add_arg(Block *b, const Type *type, const char *name)
{
    if (b->nargs == b->capargs) {
        Arena *a = b->func->module->arena;
        int cap = b->capargs ? 2 * b->capargs : 4;
        b->args = arena_realloc(a, b->args, sizeof(Value) * (size_t)b->capargs, sizeof(Value) * (size_t)cap);
        b->capargs = cap;
    }
    Value *v = &b->args[b->nargs];
    v->type = type;
    v->owner = b;
    v->index = b->nargs++;
    v->name = name;
    return v;
}

Op *tir_op_new(Func *f, OpCode code, const Type *const *rtypes, int nres, Value *const *operands, int nopnds)
{
    Arena *a = f->module->arena;
    Op *op = ARENA_NEW(a, Op);
    op->code = code;
    op->nopnds = nopnds;
    if (nopnds) {
        op->operands = ARENA_ARRAY(a, Value *, nopnds);
        memcpy(op->operands, operands, sizeof(Value *) * (size_t)nopnds);
    }
    op->nres = nres;
    if (nres) {
        op->results = ARENA_ARRAY(a, Value, nres);
        for (int i = 0; i < nres; i++) {
            op->results[i].type = rtypes[i];
            op->results[i].def = op;
            op->results[i].index = i;
        }
    }
    return op;
}

void tir_op_set_operand(Op *op, int i, Value *v)
{
    op->operands[i] = v;
}

Block *tir_op_add_region(Op *op, Func *f)
{
    Arena *a = f->module->arena;
    Block **regions = ARENA_ARRAY(a, Block *, op->nregions + 1);
    if (op->nregions)
        memcpy(regions, op->regions, sizeof(Block *) * (size_t)op->nregions);
    Block *b = tir_block_new(f);
    b->parent = op;
    regions[op->nregions++] = b;
    op->regions = regions;
    return b;
}

void tir_insert_end(Block *b, Op *op)
{
    op->parent = b;
    op->next = NULL;
    op->prev = b->last;
    if (b->last)
        b->last->next = op;
    else
        b->first = op;
    b->last = op;
}

void tir_insert_before(Op *pos, Op *op)
{
    Block *b = pos->parent;
    op->parent = b;
    op->next = pos;
    op->prev = pos->prev;
    if (pos->prev)
        pos->prev->next = op;
    else
        b->first = op;
    pos->prev = op;
}

void tir_insert_after(Op *pos, Op *op)
{
    if (pos->next)
        tir_insert_before(pos->next, op);
    else
        tir_insert_end(pos->parent, op);
}

void tir_unlink(Op *op)
{
    Block *b = op->parent;
    if (!b)
        return;
    if (op->prev)
        op->prev->next = op->next;
    else
        b->first = op->next;
    if (op->next)
        op->next->prev = op->prev;
    else
        b->last = op->prev;
    op->prev = op->next = NULL;
    op->parent = NULL;
}

/* ---- builder ---- */

void tir_builder_at_end(Builder *b, Block *block)
{
    b->func = block->func;
    b->block = block;
    b->before = NULL;
}

void tir_builder_before(Builder *b, Op *op)
{
    b->func = op->parent->func;
    b->block = op->parent;
    b->before = op;
}

Op *b_op(Builder *b, OpCode code, const Type *const *rtypes, int nres, Value *const *operands, int nopnds)
{
    Op *op = tir_op_new(b->func, code, rtypes, nres, operands, nopnds);
    op->pos = b->pos;
    if (b->before)
        tir_insert_before(b->before, op);
    else
        tir_insert_end(b->block, op);
    Arena *a = b->func->module->arena;
    int nreg = tir_op_info[code].nregions;
    if (nreg) {
        op->nregions = nreg;
        op->regions = ARENA_ARRAY(a, Block *, nreg);
        for (int i = 0; i < nreg; i++) {
            op->regions[i] = tir_block_new(b->func);
            op->regions[i]->parent = op;
        }
    }
    return op;
}

Value *b_op0(Builder *b, OpCode code, const Type *rtype)
{
    return op_result(b_op(b, code, &rtype, 1, NULL, 0), 0);
}

Value *b_op1(Builder *b, OpCode code, const Type *rtype, Value *x)
{
    return op_result(b_op(b, code, &rtype, 1, &x, 1), 0);
}

Value *b_op2(Builder *b, OpCode code, const Type *rtype, Value *x, Value *y)
{
    Value *ops[2] = {x, y};
    return op_result(b_op(b, code, &rtype, 1, ops, 2), 0);
}

Value *b_op3(Builder *b, OpCode code, const Type *rtype, Value *x, Value *y, Value *z)
{
    Value *ops[3] = {x, y, z};
    return op_result(b_op(b, code, &rtype, 1, ops, 3), 0);
}

Value *b_const_int(Builder *b, const Type *type, int64_t v)
{
    Op *op = b_op(b, OP_CONST, &type, 1, NULL, 0);
    op->at.value.i = v;
    return op_result(op, 0);
}

Value *b_const_float(Builder *b, const Type *type, double v)
{
    Op *op = b_op(b, OP_CONST, &type, 1, NULL, 0);
    op->at.value.f = v;
    return op_result(op, 0);
}

/* ---- traversal and edits ---- */

bool tir_walk_block(Block *b, OpVisitor fn, void *ud)
{
    for (Op *op = b->first; op;) {
        Op *next = op->next;
        if (!fn(op, ud))
            return false;
        for (int r = 0; r < op->nregions; r++)
            if (!tir_walk_block(op->regions[r], fn, ud))
                return false;
        op = next;
    }
    return true;
}

bool tir_walk_func(Func *f, OpVisitor fn, void *ud)
{
    return tir_walk_block(f->body, fn, ud);
}

typedef struct Replace {
    Value *from, *to;
} Replace;

static bool replace_in_op(Op *op, void *ud)
{
    Replace *r = ud;
    for (int i = 0; i < op->nopnds; i++)
        if (op->operands[i] == r->from)
            op->operands[i] = r->to;
    return true;
}

void tir_replace_uses(Func *f, Value *from, Value *to)
{
    Replace r = {from, to};
    tir_walk_func(f, replace_in_op, &r);
}

static void clear_block_scratch(Block *b)
{
    for (int i = 0; i < b->nargs; i++)
        b->args[i].scratch = 0;
    for (Op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nres; i++)
            op->results[i].scratch = 0;
        for (int r = 0; r < op->nregions; r++)
            clear_block_scratch(op->regions[r]);
    }
}

static bool count_in_op(Op *op, void *ud)
{
    (void)ud;
    for (int i = 0; i < op->nopnds; i++)
        op->operands[i]->scratch++;
    return true;
}

void tir_count_uses(Func *f)
{
    clear_block_scratch(f->body);
    tir_walk_func(f, count_in_op, NULL);
}

void tir_erase(Op *op)
{
    tir_unlink(op);
}
