/* The reference interpreter's driver: compiling a Func into numbered nodes, structured control flow,
 * program instances on a pool of host threads, errors and timeouts, print delivery, grid functions.
 *
 * Threads take program ids (x fastest, then y, then z) from an atomic counter. When a program fails,
 * programs with higher ids stop (at their next loop back edge or before they start) while lower ones
 * run to completion, so the error reported is always that of the lowest failing program, whatever
 * the thread timing. A timeout stops everything. print() lines are kept per program and delivered
 * in program order once the launch is over, also when it failed.
 *
 * Loops: `for` computes its trip count before the first iteration from lb, ub and step in the
 * induction variable's type (step > 0: while iv < ub; step < 0: while iv > ub; step 0 is an error),
 * so no overflow of iv can make it loop forever. `while` runs `before`; its condition(c, vals...)
 * either continues into `after` with vals or ends the loop with vals as results. Loop-carried
 * values are copied in parallel (through a temporary when a yield permutes the block's arguments).
 * The clock is read every 64 back edges and before each program. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compiler/tir/provenance.h"
#include "runtime/interp/interp_internal.h"
#include "support/clock.h"

enum { CLOCK_EVERY = 64 };
/* A frame larger than this (in slots of 8 bytes) is refused rather than attempted. */
static const int64_t MAX_FRAME_SLOTS = (int64_t)1 << 30;

/* ---- compiling a function into nodes ---- */

typedef struct Comp {
    Prog *p;
    const Value **keys; /* open addressing: Value -> number */
    int32_t *ids;
    uint32_t cap;
    bool *dead; /* numbers of values whose region has ended */
    int nvmax;
    char *msg;
    size_t msglen;
    InterpStatus st;
} Comp;

static void elem_of(Elem *e, const Type *t)
{
    const Type *s = ty_elem(t);
    memset(e, 0, sizeof *e);
    if (s->kind == TY_PTR) {
        e->cls = EC_PTR;
        e->sk = SK_U64;
        e->bits = 64;
        e->psk = s->pointee->sk;
        e->psize = s->pointee->sk == SK_BOOL ? 1 : sk_bits(s->pointee->sk) / 8;
    } else {
        e->sk = s->sk;
        e->bits = sk_bits(s->sk);
        e->cls = s->sk == SK_BOOL ? EC_BOOL : sk_is_float(s->sk) ? EC_FLOAT : sk_is_signed(s->sk) ? EC_SINT : EC_UINT;
    }
    e->bytes = e->bits == 1 ? 1 : e->bits / 8;
    e->shift = 64 - e->bits;
    e->mask = e->bits == 64 ? ~0ull : (1ull << e->bits) - 1;
}

static bool comp_fail(Comp *k, const Op *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool comp_fail(Comp *k, const Op *op, const char *fmt, ...)
{
    char why[512], pos[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (op) {
        bool has = interp_pos(k->p, op, pos, sizeof pos);
        snprintf(k->msg, k->msglen, "malformed IR in kernel %s: '%s'%s%s: %s", k->p->f->name, op_info(op)->name,
                 has ? " at " : "", has ? pos : "", why);
    } else {
        snprintf(k->msg, k->msglen, "malformed IR in %s: %s", k->p->f->name, why);
    }
    k->st = INTERP_ERR_INVALID;
    return false;
}

static uint32_t hash_ptr(const void *v)
{
    uint64_t h = (uint64_t)(uintptr_t)v * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32);
}

static int count_values(const Block *b)
{
    int n = b->nargs;
    for (const Op *op = b->first; op; op = op->next) {
        n += op->nres;
        for (int r = 0; r < op->nregions; r++)
            n += count_values(op->regions[r]);
    }
    return n;
}

static bool valid_type(const Type *t)
{
    if (!t)
        return false;
    const Type *e = ty_elem(t);
    if (e->kind == TY_PTR)
        return e->pointee && e->pointee->kind == TY_SCALAR && (unsigned)e->pointee->sk < SK_COUNT;
    if (e->kind != TY_SCALAR || (unsigned)e->sk >= SK_COUNT)
        return false;
    if (t->kind == TY_TILE) {
        if (t->rank < 1 || t->rank > TIR_MAX_RANK)
            return false;
        int64_t n = 1;
        for (int i = 0; i < t->rank; i++) {
            if (t->shape[i] < 1 || t->shape[i] > ((int64_t)1 << 28))
                return false;
            n *= t->shape[i];
            if (n > ((int64_t)1 << 28))
                return false; /* no tile has 2^28 elements; this keeps sizes far from overflow */
        }
    }
    return true;
}

static int32_t def_value(Comp *k, const Value *v, const Op *op)
{
    Prog *p = k->p;
    if (p->nv >= k->nvmax || !valid_type(v->type)) {
        comp_fail(k, op, "a value has a type the interpreter does not know");
        return -1;
    }
    uint32_t j = hash_ptr(v) & (k->cap - 1);
    while (k->keys[j]) {
        if (k->keys[j] == v) {
            comp_fail(k, op, "a value is defined twice");
            return -1;
        }
        j = (j + 1) & (k->cap - 1);
    }
    int32_t id = p->nv++;
    k->keys[j] = v;
    k->ids[j] = id;
    VInfo *vi = &p->v[id];
    vi->type = v->type;
    elem_of(&vi->el, v->type);
    vi->rank = v->type->kind == TY_TILE ? v->type->rank : 0;
    for (int i = 0; i < vi->rank; i++)
        vi->shape[i] = v->type->shape[i];
    vi->n = ty_numel(v->type);
    vi->off = p->frame_slots;
    p->frame_slots += vi->n;
    if (p->frame_slots > MAX_FRAME_SLOTS) {
        snprintf(k->msg, k->msglen, "kernel %s needs more than %lld bytes of interpreter memory per thread",
                 p->f->name, (long long)(MAX_FRAME_SLOTS * 8));
        k->st = INTERP_ERR_NOMEM;
        return -1;
    }
    return id;
}

static int32_t use_value(Comp *k, const Value *v)
{
    uint32_t j = hash_ptr(v) & (k->cap - 1);
    while (k->keys[j]) {
        if (k->keys[j] == v)
            return k->dead[k->ids[j]] ? -1 : k->ids[j];
        j = (j + 1) & (k->cap - 1);
    }
    return -1;
}

/* A value's number, dead or not (compute_provenance's ids): -1 for one never defined. */
static int32_t value_number(void *ud, const Value *v)
{
    const Comp *k = ud;
    uint32_t j = hash_ptr(v) & (k->cap - 1);
    while (k->keys[j]) {
        if (k->keys[j] == v)
            return k->ids[j];
        j = (j + 1) & (k->cap - 1);
    }
    return -1;
}

/* Does a parallel copy src -> dst read a destination it has already written? */
static bool copy_overlaps(const int32_t *src, const int32_t *dst, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j && src[i] == dst[j])
                return true;
    return false;
}

static int64_t copy_size(const Prog *p, const int32_t *dst, int n)
{
    int64_t s = 0;
    for (int i = 0; i < n; i++)
        s += p->v[dst[i]].n;
    return s;
}

static void mark_copy(Prog *p, Node *term, const int32_t *dst, int n)
{
    if (term && copy_overlaps(term->in, dst, n)) {
        term->copy_tmp = true;
        int64_t s = copy_size(p, dst, n);
        if (s > p->copy_slots)
            p->copy_slots = s;
    }
}

static bool compile_block(Comp *k, const Block *b, CBlock *cb)
{
    Prog *p = k->p;
    Arena *a = &p->arena;
    int32_t first = p->nv;
    cb->nargs = b->nargs;
    cb->args = ARENA_ARRAY(a, int32_t, b->nargs + 1);
    for (int i = 0; i < b->nargs; i++)
        if ((cb->args[i] = def_value(k, &b->args[i], b->parent)) < 0)
            return false;
    for (const Op *op = b->first; op; op = op->next)
        cb->n++;
    cb->nodes = ARENA_ARRAY(a, Node, cb->n + 1);
    int i = 0;
    for (const Op *op = b->first; op; op = op->next, i++) {
        Node *n = &cb->nodes[i];
        n->op = op;
        if ((unsigned)op->code >= OP_COUNT)
            return comp_fail(k, NULL, "an op with code %d", (int)op->code);
        if (cb->term)
            return comp_fail(k, op, "follows the block's terminator");
        n->in = ARENA_ARRAY(a, int32_t, op->nopnds + 1);
        for (int j = 0; j < op->nopnds; j++)
            if (!op->operands[j] || (n->in[j] = use_value(k, op->operands[j])) < 0)
                return comp_fail(k, op, "operand %d is not defined before it", j);
        n->reg = ARENA_ARRAY(a, CBlock, op->nregions + 1);
        for (int r = 0; r < op->nregions; r++)
            if (!op->regions[r] || !compile_block(k, op->regions[r], &n->reg[r]))
                return k->st != INTERP_OK ? false : comp_fail(k, op, "region %d is missing", r);
        n->out = ARENA_ARRAY(a, int32_t, op->nres + 1);
        for (int j = 0; j < op->nres; j++)
            if ((n->out[j] = def_value(k, &op->results[j], op)) < 0)
                return false;
        char why[400];
        if (!interp_check_node(p, n, why, sizeof why))
            return comp_fail(k, op, "%s", why);
        if (op->code == OP_FOR)
            mark_copy(p, n->reg[0].term, n->reg[0].args + 1, op->nres);
        else if (op->code == OP_WHILE)
            mark_copy(p, n->reg[1].term, n->reg[0].args, op->nopnds);
        else if (op->code == OP_PRINT)
            p->has_print = true;
        if (op_info(op)->flags & F_TERM)
            cb->term = n;
    }
    for (int32_t id = first; id < p->nv; id++)
        k->dead[id] = true;
    return true;
}

static InterpStatus compile_func(Prog *p, const Func *f, char *msg, size_t msglen)
{
    Comp k = {.p = p, .msg = msg, .msglen = msglen};
    if (!f->body) {
        comp_fail(&k, NULL, "function without a body");
        return k.st;
    }
    k.nvmax = count_values(f->body);
    k.cap = 16;
    while (k.cap < 2u * (uint32_t)k.nvmax + 2)
        k.cap *= 2;
    k.keys = ARENA_ARRAY(&p->arena, const Value *, k.cap);
    k.ids = ARENA_ARRAY(&p->arena, int32_t, k.cap);
    k.dead = ARENA_ARRAY(&p->arena, bool, k.nvmax + 1);
    p->v = ARENA_ARRAY(&p->arena, VInfo, k.nvmax + 1);
    if (!compile_block(&k, f->body, &p->body))
        return k.st;
    /* which parameter each pointer derives from, for the accesses' bounds checks (interp_mem.c) */
    p->prov = ARENA_ARRAY(&p->arena, int32_t, p->nv + 1);
    compute_provenance(f, p->prov, value_number, &k);
    return INTERP_OK;
}

static InterpStatus compile(Prog *p, const Func *f, char *msg, size_t msglen)
{
    jmp_buf oom;
    memset(p, 0, sizeof *p);
    p->f = f;
    arena_init(&p->arena, arena_default_allocator);
    if (setjmp(oom)) {
        p->arena.oom = NULL;
        snprintf(msg, msglen, "out of memory compiling kernel %s for the interpreter", f->name);
        return INTERP_ERR_NOMEM;
    }
    p->arena.oom = &oom;
    InterpStatus st = compile_func(p, f, msg, msglen);
    p->arena.oom = NULL;
    return st;
}

/* ---- errors and time ---- */

/* wall-clock seconds, for the run's deadline */
static double now(void)
{
    return clock_wall_ms() / 1e3;
}

bool interp_pos(const Prog *p, const Op *op, char *buf, size_t n)
{
    const Module *m = p->f->module;
    if (!op || op->pos.line == 0) {
        snprintf(buf, n, "?");
        return false;
    }
    const char *file = m && op->pos.file < (uint32_t)m->nfiles ? m->files[op->pos.file] : "?";
    snprintf(buf, n, "%s:%u:%u", file, (unsigned)op->pos.line, (unsigned)op->pos.col);
    return true;
}

/* Keeps the error of the lowest program and stops the programs above it. */
static void record(Shared *sh, int64_t pid, InterpStatus st, const char *msg)
{
    pthread_mutex_lock(&sh->lock);
    if (sh->st == INTERP_OK || pid < sh->err_pid) {
        sh->st = st;
        sh->err_pid = pid;
        snprintf(sh->msg, sizeof sh->msg, "%s", msg);
    }
    pthread_mutex_unlock(&sh->lock);
    int64_t cur = atomic_load(&sh->stop_pid);
    while (pid < cur && !atomic_compare_exchange_weak(&sh->stop_pid, &cur, pid)) {
    }
}

bool interp_fail_msg(Ctx *c, InterpStatus st, const char *msg)
{
    record(c->sh, c->lin, st, msg);
    return false;
}

bool interp_fail(Ctx *c, const Op *op, InterpStatus st, const char *fmt, ...)
{
    char text[512], pos[512], msg[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    /* worded as the emulator words it (runtime/emu/emu.c), less the lane: "kernel K, workgroup (x, y, z):
     * what (file:line:col)" */
    if (interp_pos(c->p, op, pos, sizeof pos))
        snprintf(msg, sizeof msg, "kernel %s, workgroup (%u, %u, %u): %s (%s)", c->p->f->name, c->pid[0], c->pid[1],
                 c->pid[2], text, pos);
    else
        snprintf(msg, sizeof msg, "kernel %s, workgroup (%u, %u, %u): %s", c->p->f->name, c->pid[0], c->pid[1],
                 c->pid[2], text);
    return interp_fail_msg(c, st, msg);
}

static bool check_time(Ctx *c)
{
    Shared *sh = c->sh;
    if (now() <= sh->deadline)
        return true;
    char msg[512];
    snprintf(msg, sizeof msg, "kernel %s ran past %g s (RK_EMU_TIMEOUT)", c->p->f->name, sh->timeout_s);
    record(sh, -1, INTERP_ERR_TIMEOUT, msg);
    return false;
}

/* At a loop back edge: false when the program must stop (cancelled or out of time). */
static bool back_edge(Ctx *c)
{
    if (atomic_load_explicit(&c->sh->stop_pid, memory_order_relaxed) < c->lin)
        return false;
    if (++c->ticks < CLOCK_EVERY)
        return true;
    c->ticks = 0;
    return check_time(c);
}

/* ---- execution ---- */

enum { EX_OK, EX_RET, EX_STOP };

static int exec_block(Ctx *c, const CBlock *b);

static void pcopy(Ctx *c, const int32_t *src, const int32_t *dst, int n, bool through_tmp)
{
    if (!through_tmp) {
        for (int i = 0; i < n; i++)
            if (src[i] != dst[i])
                memcpy(val(c, dst[i]), val(c, src[i]), (size_t)vinfo(c, dst[i])->n * sizeof(Slot));
        return;
    }
    Slot *t = c->copy_tmp;
    for (int i = 0; i < n; i++) {
        size_t len = (size_t)vinfo(c, dst[i])->n;
        memcpy(t, val(c, src[i]), len * sizeof(Slot));
        t += len;
    }
    t = c->copy_tmp;
    for (int i = 0; i < n; i++) {
        size_t len = (size_t)vinfo(c, dst[i])->n;
        memcpy(val(c, dst[i]), t, len * sizeof(Slot));
        t += len;
    }
}

static int exec_for(Ctx *c, const Node *n)
{
    const Op *op = n->op;
    const Elem *e = &vinfo(c, n->in[0])->el;
    Slot lb = *val(c, n->in[0]), ub = *val(c, n->in[1]), step = *val(c, n->in[2]);
    /* docs/language.md: the values of exact arithmetic, never wrapping (the loop ends where the next
     * value would leave the type); a step of 0 runs no iteration */
    uint64_t trips = 0;
    if (step.u == 0) {
        trips = 0;
    } else if (e->cls == EC_SINT && step.i < 0) {
        if (lb.i > ub.i) {
            uint64_t dist = lb.u - ub.u, s = 0 - step.u;
            trips = dist / s + (dist % s != 0);
        }
    } else if (e->cls == EC_SINT ? lb.i < ub.i : lb.u < ub.u) {
        uint64_t dist = ub.u - lb.u;
        trips = dist / step.u + (dist % step.u != 0);
    }
    const CBlock *body = &n->reg[0];
    int nres = op->nres;
    pcopy(c, n->in + 3, body->args + 1, nres, false);
    Slot *iv = val(c, body->args[0]);
    for (uint64_t k = 0; k < trips; k++) {
        iv->u = elem_norm(e, lb.u + k * step.u);
        int r = exec_block(c, body);
        if (r != EX_OK)
            return r;
        pcopy(c, body->term->in, body->args + 1, nres, body->term->copy_tmp);
        if (!back_edge(c))
            return EX_STOP;
    }
    pcopy(c, body->args + 1, n->out, nres, false);
    return EX_OK;
}

static int exec_if(Ctx *c, const Node *n)
{
    const CBlock *b = &n->reg[val(c, n->in[0])->u ? 0 : 1];
    int r = exec_block(c, b);
    if (r == EX_OK && n->op->nres)
        pcopy(c, b->term->in, n->out, n->op->nres, false);
    return r;
}

static int exec_while(Ctx *c, const Node *n)
{
    const CBlock *before = &n->reg[0], *after = &n->reg[1];
    int nres = n->op->nres, nin = n->op->nopnds;
    pcopy(c, n->in, before->args, nin, false);
    for (;;) {
        int r = exec_block(c, before);
        if (r != EX_OK)
            return r;
        const Node *cond = before->term;
        if (!val(c, cond->in[0])->u) {
            pcopy(c, cond->in + 1, n->out, nres, false);
            return EX_OK;
        }
        pcopy(c, cond->in + 1, after->args, nres, false);
        if ((r = exec_block(c, after)) != EX_OK)
            return r;
        pcopy(c, after->term->in, before->args, nin, after->term->copy_tmp);
        if (!back_edge(c))
            return EX_STOP;
    }
}

/* Runs a block up to its terminator, which the op owning the region then reads. */
static int exec_block(Ctx *c, const CBlock *b)
{
    for (int i = 0; i < b->n; i++) {
        const Node *n = &b->nodes[i];
        int r = EX_OK;
        switch (n->op->code) {
        case OP_YIELD:
        case OP_CONDITION:
            return EX_OK;
        case OP_RETURN:
            c->ret = n;
            return EX_RET;
        case OP_FOR:
            r = exec_for(c, n);
            break;
        case OP_IF:
            r = exec_if(c, n);
            break;
        case OP_WHILE:
            r = exec_while(c, n);
            break;
        case OP_LOAD: case OP_STORE: case OP_ATOMIC_RMW: case OP_ATOMIC_CAS: case OP_ASSERT: case OP_ASSUME:
        case OP_PRINT:
            r = interp_exec_mem(c, n) ? EX_OK : EX_STOP;
            break;
        case OP_BARRIER:
            break; /* a program instance runs in program order: its accesses before are done */
        default:
            r = interp_exec_pure(c, n) ? EX_OK : EX_STOP;
            break;
        }
        if (r != EX_OK)
            return r;
    }
    return EX_OK;
}

/* ---- program instances on threads ---- */

static void run_program(Ctx *c, int64_t lin)
{
    Shared *sh = c->sh;
    c->lin = lin;
    c->pid[0] = (uint32_t)(lin % sh->grid[0]);
    c->pid[1] = (uint32_t)(lin / sh->grid[0] % sh->grid[1]);
    c->pid[2] = (uint32_t)(lin / ((int64_t)sh->grid[0] * sh->grid[1]));
    c->cur.n = 0;
    c->ret = NULL;
    exec_block(c, &c->p->body);
    if (c->cur.n) {
        if (c->nrecs == c->caprecs) {
            int cap = c->caprecs ? 2 * c->caprecs : 16;
            PrintRec *r = realloc(c->recs, (size_t)cap * sizeof *r);
            if (!r) {
                interp_fail_msg(c, INTERP_ERR_NOMEM, "out of memory for print");
                return;
            }
            c->recs = r;
            c->caprecs = cap;
        }
        /* the record keeps the room, trimmed to its lines; the next program starts a new one */
        char *text = realloc(c->cur.p, c->cur.n + 1);
        c->recs[c->nrecs++] = (PrintRec){lin, text ? text : c->cur.p, c->cur.n};
        strbuf_init(&c->cur, NULL);
    }
}

static void *worker(void *arg)
{
    Ctx *c = arg;
    Shared *sh = c->sh;
    for (;;) {
        int64_t lin = atomic_fetch_add(&sh->next, 1);
        if (lin >= sh->nprog || lin > atomic_load(&sh->stop_pid))
            break;
        c->lin = lin;
        if (!check_time(c))
            break;
        run_program(c, lin);
    }
    return NULL;
}

/* A parameter's value from the argument array (CUDA's kernelParams convention). */
static bool read_args(const Prog *p, const void *const *args, Slot *frame, char *msg, size_t msglen)
{
    for (int i = 0; i < p->body.nargs; i++) {
        const VInfo *v = &p->v[p->body.args[i]];
        if (v->rank) {
            snprintf(msg, msglen, "parameter %d of %s is a tile", i, p->f->name);
            return false;
        }
        if (!args || !args[i]) {
            snprintf(msg, msglen, "argument %d of %s is missing", i, p->f->name);
            return false;
        }
        uint64_t bits = 0;
        switch (v->el.bytes) {
        case 1: { uint8_t x; memcpy(&x, args[i], 1); bits = x; break; }
        case 2: { uint16_t x; memcpy(&x, args[i], 2); bits = x; break; }
        case 4: { uint32_t x; memcpy(&x, args[i], 4); bits = x; break; }
        default: memcpy(&bits, args[i], 8); break;
        }
        frame[v->off] = interp_from_bits(&v->el, bits);
    }
    return true;
}

static double env_timeout(void)
{
    const char *s = getenv("RK_EMU_TIMEOUT");
    if (s && *s) {
        char *end;
        double t = strtod(s, &end);
        if (end != s && t > 0)
            return t;
    }
    return 60;
}

static void ctx_free(Ctx *c)
{
    free(c->frame);
    free(c->copy_tmp);
    free(c->ftmp);
    strbuf_free(&c->cur);
    for (int i = 0; i < c->nrecs; i++)
        free(c->recs[i].text);
    free(c->recs);
}

static InterpStatus ctx_init(Ctx *c, Shared *sh, const void *const *args, char *msg, size_t msglen)
{
    memset(c, 0, sizeof *c);
    strbuf_init(&c->cur, NULL);
    c->sh = sh;
    c->p = sh->p;
    c->frame = calloc((size_t)c->p->frame_slots + 1, sizeof(Slot));
    c->copy_tmp = malloc(((size_t)c->p->copy_slots + 1) * sizeof(Slot));
    if (!c->frame || !c->copy_tmp) {
        snprintf(msg, msglen, "out of memory for the interpreter's frame of kernel %s", c->p->f->name);
        return INTERP_ERR_NOMEM;
    }
    return read_args(c->p, args, c->frame, msg, msglen) ? INTERP_OK : INTERP_ERR_INVALID;
}

/* Hands every program's lines to the sink in program order: each thread's records are sorted. */
static void deliver_prints(Ctx *cs, int nt, void (*sink)(void *, const char *), void *ud)
{
    int *at = calloc((size_t)nt, sizeof *at);
    if (!at)
        return;
    for (;;) {
        int best = -1;
        for (int t = 0; t < nt; t++)
            if (at[t] < cs[t].nrecs && (best < 0 || cs[t].recs[at[t]].pid < cs[best].recs[at[best]].pid))
                best = t;
        if (best < 0)
            break;
        const PrintRec *r = &cs[best].recs[at[best]++];
        for (size_t off = 0; off < r->len; off += strlen(r->text + off) + 1)
            sink(ud, r->text + off);
    }
    free(at);
}

static void shared_init(Shared *sh, const Prog *p, const uint32_t grid[3], double timeout_s)
{
    memset(sh, 0, sizeof *sh);
    sh->p = p;
    for (int i = 0; i < 3; i++)
        sh->grid[i] = grid[i];
    sh->nprog = (int64_t)grid[0] * grid[1] * grid[2];
    atomic_init(&sh->next, 0);
    atomic_init(&sh->stop_pid, INT64_MAX);
    sh->timeout_s = timeout_s > 0 ? timeout_s : env_timeout();
    sh->deadline = now() + sh->timeout_s;
    pthread_mutex_init(&sh->lock, NULL);
}

static InterpStatus finish(Shared *sh, char *msg, size_t msglen)
{
    InterpStatus st = sh->st;
    if (st != INTERP_OK)
        snprintf(msg, msglen, "%s", sh->msg);
    pthread_mutex_destroy(&sh->lock);
    return st;
}

static InterpStatus run(Shared *sh, int nthreads, const void *const *args, const InterpLaunch *l, char *msg,
                        size_t msglen)
{
    Ctx *cs = calloc((size_t)nthreads, sizeof *cs);
    pthread_t *tids = calloc((size_t)nthreads, sizeof *tids);
    if (!cs || !tids) {
        free(cs);
        free(tids);
        snprintf(msg, msglen, "out of memory starting kernel %s", sh->p->f->name);
        return INTERP_ERR_NOMEM;
    }
    InterpStatus st = INTERP_OK;
    int ready = 0;
    while (ready < nthreads && st == INTERP_OK)
        st = ctx_init(&cs[ready++], sh, args, msg, msglen);
    if (st != INTERP_OK) {
        for (int t = 0; t < ready; t++)
            ctx_free(&cs[t]);
        free(cs);
        free(tids);
        return st;
    }
    int started = 1;
    for (; started < nthreads; started++)
        if (pthread_create(&tids[started], NULL, worker, &cs[started]) != 0)
            break; /* fewer threads do the same work */
    worker(&cs[0]);
    for (int t = 1; t < started; t++)
        pthread_join(tids[t], NULL);
    if (l && l->print_sink)
        deliver_prints(cs, nthreads, l->print_sink, l->print_ud);
    for (int t = 0; t < nthreads; t++)
        ctx_free(&cs[t]);
    free(cs);
    free(tids);
    return INTERP_OK;
}

InterpStatus interp_launch(const InterpLaunch *l, char *msg, size_t msglen)
{
    char dummy[8];
    if (!msg || !msglen) {
        msg = dummy;
        msglen = sizeof dummy;
    }
    msg[0] = 0;
    if (!l || !l->kernel || l->kernel->kind != FUNC_KERNEL) {
        snprintf(msg, msglen, "interp_launch: not a kernel");
        return INTERP_ERR_INVALID;
    }
    const char *tv = getenv("RK_EMU_TIMEOUT");
    char *tend;
    if (l->timeout_s <= 0 && tv && *tv && !(strtod(tv, &tend) > 0 && tend != tv && *tend == 0)) {
        snprintf(msg, msglen, "RK_EMU_TIMEOUT=%s is not a number of seconds above 0", tv);
        return INTERP_ERR_INVALID;
    }
    Prog p;
    InterpStatus st = compile(&p, l->kernel, msg, msglen);
    if (st != INTERP_OK) {
        arena_free(&p.arena);
        return st;
    }
    Shared sh;
    shared_init(&sh, &p, l->grid, l->timeout_s);
    sh.printing = l->print_sink != NULL;
    int64_t nt = l->threads > 0 ? l->threads : sysconf(_SC_NPROCESSORS_ONLN);
    if (nt < 1)
        nt = 1;
    if (nt > sh.nprog)
        nt = sh.nprog;
    if (nt > 1024)
        nt = 1024;
    if (sh.nprog > 0) {
        st = run(&sh, (int)nt, l->args, l, msg, msglen);
        if (st != INTERP_OK) {
            pthread_mutex_destroy(&sh.lock);
            arena_free(&p.arena);
            return st;
        }
    }
    st = finish(&sh, msg, msglen);
    arena_free(&p.arena);
    return st;
}

InterpStatus interp_eval_grid(const Func *grid, const void *const *args, uint32_t out[3], char *msg, size_t msglen)
{
    char dummy[8];
    if (!msg || !msglen) {
        msg = dummy;
        msglen = sizeof dummy;
    }
    msg[0] = 0;
    if (!grid || grid->kind != FUNC_GRID || !out) {
        snprintf(msg, msglen, "interp_eval_grid: not a grid function");
        return INTERP_ERR_INVALID;
    }
    Prog p;
    InterpStatus st = compile(&p, grid, msg, msglen);
    if (st != INTERP_OK) {
        arena_free(&p.arena);
        return st;
    }
    const uint32_t one[3] = {1, 1, 1};
    Shared sh;
    shared_init(&sh, &p, one, 0);
    Ctx c;
    if ((st = ctx_init(&c, &sh, args, msg, msglen)) != INTERP_OK) {
        ctx_free(&c);
        pthread_mutex_destroy(&sh.lock);
        arena_free(&p.arena);
        return st;
    }
    run_program(&c, 0);
    st = finish(&sh, msg, msglen);
    if (st == INTERP_OK) {
        const Node *ret = c.ret;
        if (!ret || ret->op->nopnds != 3) {
            snprintf(msg, msglen, "grid function %s does not return three sizes", grid->name);
            st = INTERP_ERR_INVALID;
        }
        for (int i = 0; st == INTERP_OK && i < 3; i++) {
            const VInfo *v = &p.v[ret->in[i]];
            Slot s = c.frame[v->off];
            if (v->rank || (v->el.cls != EC_SINT && v->el.cls != EC_UINT)) {
                snprintf(msg, msglen, "grid function %s returns a non-integer size", grid->name);
                st = INTERP_ERR_INVALID;
            } else if ((v->el.cls == EC_SINT && s.i < 0) || s.u > UINT32_MAX) {
                snprintf(msg, msglen,
                         "grid function %s returned size %lld for axis %d (a size is 1 .. 2^32 - 1; the grid is "
                         "computed in its parameters' types: a division by zero gives -1, an overflow wraps)",
                         grid->name,
                         v->el.cls == EC_SINT ? (long long)s.i : (long long)s.u, i);
                st = INTERP_ERR_INVALID;
            } else {
                out[i] = (uint32_t)s.u;
            }
        }
    }
    ctx_free(&c);
    arena_free(&p.arena);
    return st;
}
