/* The interpreter's ops with effects: loads, stores and atomics on global memory, device_assert,
 * assume and print.
 *
 * Every element access is checked against the allocation registry and for alignment to the element
 * size before it happens; stores and atomics check all their active lanes first, so a failing op has
 * no effect. Masked-off lanes never touch memory: a load gives `other` there (0 without it), an
 * atomic gives 0. Memory is accessed through __atomic builtins of the element's width (relaxed for
 * plain loads and stores, so that programs racing on a location are defined behaviour on the host;
 * sequentially consistent for atomics, which is at least as strong as any order the IR asks for).
 * Read-modify-write atomics are compare-and-swap loops computing the new value with the elementwise
 * semantics (f16/bf16/f32 adds rounded like any add; float max/min propagate NaN); atomic_cas compares
 * the memory images. Elements of a tile are accessed in row-major order. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/interp/interp_internal.h"
#include "runtime/memreg.h"

/* ---- memory of one element ---- */

static uint64_t mem_load(uint64_t addr, int bytes)
{
    void *p = (void *)(uintptr_t)addr;
    switch (bytes) {
    case 1: return __atomic_load_n((uint8_t *)p, __ATOMIC_RELAXED);
    case 2: return __atomic_load_n((uint16_t *)p, __ATOMIC_RELAXED);
    case 4: return __atomic_load_n((uint32_t *)p, __ATOMIC_RELAXED);
    default: return __atomic_load_n((uint64_t *)p, __ATOMIC_RELAXED);
    }
}

static void mem_store(uint64_t addr, int bytes, uint64_t v)
{
    void *p = (void *)(uintptr_t)addr;
    switch (bytes) {
    case 1: __atomic_store_n((uint8_t *)p, (uint8_t)v, __ATOMIC_RELAXED); break;
    case 2: __atomic_store_n((uint16_t *)p, (uint16_t)v, __ATOMIC_RELAXED); break;
    case 4: __atomic_store_n((uint32_t *)p, (uint32_t)v, __ATOMIC_RELAXED); break;
    default: __atomic_store_n((uint64_t *)p, v, __ATOMIC_RELAXED); break;
    }
}

/* On failure *expected becomes the value found. */
static bool mem_cas(uint64_t addr, int bytes, uint64_t *expected, uint64_t desired)
{
    void *p = (void *)(uintptr_t)addr;
    bool ok;
    switch (bytes) {
    case 1: {
        uint8_t e = (uint8_t)*expected;
        ok = __atomic_compare_exchange_n((uint8_t *)p, &e, (uint8_t)desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        *expected = e;
        return ok;
    }
    case 2: {
        uint16_t e = (uint16_t)*expected;
        ok = __atomic_compare_exchange_n((uint16_t *)p, &e, (uint16_t)desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        *expected = e;
        return ok;
    }
    case 4: {
        uint32_t e = (uint32_t)*expected;
        ok = __atomic_compare_exchange_n((uint32_t *)p, &e, (uint32_t)desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        *expected = e;
        return ok;
    }
    default:
        return __atomic_compare_exchange_n((uint64_t *)p, expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }
}

static uint64_t mem_xchg(uint64_t addr, int bytes, uint64_t v)
{
    void *p = (void *)(uintptr_t)addr;
    switch (bytes) {
    case 1: return __atomic_exchange_n((uint8_t *)p, (uint8_t)v, __ATOMIC_SEQ_CST);
    case 2: return __atomic_exchange_n((uint16_t *)p, (uint16_t)v, __ATOMIC_SEQ_CST);
    case 4: return __atomic_exchange_n((uint32_t *)p, (uint32_t)v, __ATOMIC_SEQ_CST);
    default: return __atomic_exchange_n((uint64_t *)p, v, __ATOMIC_SEQ_CST);
    }
}

/* An access whose pointer derives from a parameter (Prog.prov) must lie in the allocation that
 * parameter points into: an overrun into a neighbouring buffer is an error, not a silent read of it.
 * Any other access, or one from a parameter that points into no allocation, must lie in some
 * allocation. */
static bool check_addr(Ctx *c, const Op *op, int32_t pv, uint64_t addr, int bytes, const char *what)
{
    if (!memreg_contains((const void *)(uintptr_t)addr, (size_t)bytes))
        return interp_fail(c, op, INTERP_ERR_ACCESS, "out-of-bounds %s of %d byte%s at 0x%" PRIx64, what, bytes,
                           bytes == 1 ? "" : "s", addr);
    int32_t from = c->p->prov ? c->p->prov[pv] : 0;
    uintptr_t lo, hi;
    if (from > 0) {
        uint64_t base = val(c, c->p->body.args[from - 1])->u;
        if (memreg_range((const void *)(uintptr_t)base, &lo, &hi) &&
            !(addr >= lo && addr < hi && (uint64_t)bytes <= hi - addr)) {
            const char *name = c->p->f->body->args[from - 1].name;
            return interp_fail(c, op, INTERP_ERR_ACCESS,
                               "out-of-bounds %s of %d byte%s at 0x%" PRIx64 ": offset %" PRId64
                               " of the %" PRIuPTR "-byte allocation of parameter %s, inside another",
                               what, bytes, bytes == 1 ? "" : "s", addr, (int64_t)(addr - lo), hi - lo,
                               name ? name : "?");
        }
    }
    if (addr % (uint64_t)bytes)
        return interp_fail(c, op, INTERP_ERR_ACCESS, "misaligned %s of %d bytes at 0x%" PRIx64, what, bytes, addr);
    return true;
}

/* Checks every active lane of a pointer operand. */
static bool check_all(Ctx *c, const Node *n, int nmask_at, const char *what)
{
    const Op *op = n->op;
    const Slot *p = val(c, n->in[0]);
    const Slot *mask = op->nopnds > nmask_at ? val(c, n->in[nmask_at]) : NULL;
    const VInfo *pv = vinfo(c, n->in[0]);
    int bytes = (int)pv->el.psize;
    for (int64_t i = 0; i < pv->n; i++)
        if ((!mask || mask[i].u) && !check_addr(c, op, n->in[0], p[i].u, bytes, what))
            return false;
    return true;
}

static bool exec_load(Ctx *c, const Node *n)
{
    const Op *op = n->op;
    const Slot *p = val(c, n->in[0]);
    const Slot *mask = op->nopnds > 1 ? val(c, n->in[1]) : NULL;
    const Slot *other = op->nopnds > 2 ? val(c, n->in[2]) : NULL;
    const VInfo *r = vinfo(c, n->out[0]);
    Slot *rs = val(c, n->out[0]);
    int bytes = r->el.bytes;
    for (int64_t i = 0; i < r->n; i++) {
        if (mask && !mask[i].u) {
            if (other)
                rs[i] = other[i];
            else
                rs[i].u = 0; /* 0, 0.0 and the null pointer alike */
            continue;
        }
        if (!check_addr(c, op, n->in[0], p[i].u, bytes, "load"))
            return false;
        rs[i] = interp_from_bits(&r->el, mem_load(p[i].u, bytes));
    }
    return true;
}

static bool exec_store(Ctx *c, const Node *n)
{
    const Op *op = n->op;
    if (!check_all(c, n, 2, "store"))
        return false;
    const Slot *p = val(c, n->in[0]), *v = val(c, n->in[1]);
    const Slot *mask = op->nopnds > 2 ? val(c, n->in[2]) : NULL;
    const VInfo *vi = vinfo(c, n->in[1]);
    for (int64_t i = 0; i < vi->n; i++)
        if (!mask || mask[i].u)
            mem_store(p[i].u, vi->el.bytes, interp_to_bits(&vi->el, v[i]));
    return true;
}

static bool exec_atomic(Ctx *c, const Node *n)
{
    const Op *op = n->op;
    bool cas = op->code == OP_ATOMIC_CAS;
    int nv = cas ? 3 : 2;
    if (!check_all(c, n, nv, "atomic"))
        return false;
    const Slot *p = val(c, n->in[0]);
    const Slot *v = val(c, n->in[nv - 1]), *cmpv = cas ? val(c, n->in[1]) : NULL;
    const Slot *mask = op->nopnds > nv ? val(c, n->in[nv]) : NULL;
    const VInfo *r = vinfo(c, n->out[0]);
    const Elem *e = &r->el;
    Slot *rs = val(c, n->out[0]);
    OpCode combine;
    switch (op->at.kind) {
    case KIND_ADD: combine = OP_ADD; break;
    case KIND_MAX: combine = OP_MAX; break;
    case KIND_MIN: combine = OP_MIN; break;
    case KIND_AND: combine = OP_AND; break;
    case KIND_OR: combine = OP_OR; break;
    case KIND_XOR: combine = OP_XOR; break;
    default: combine = OP_COUNT; break; /* xchg */
    }
    for (int64_t i = 0; i < r->n; i++) {
        if (mask && !mask[i].u) {
            rs[i].u = 0;
            continue;
        }
        uint64_t addr = p[i].u, old;
        if (cas) {
            old = interp_to_bits(e, cmpv[i]);
            mem_cas(addr, e->bytes, &old, interp_to_bits(e, v[i]));
        } else if (combine == OP_COUNT) {
            old = mem_xchg(addr, e->bytes, interp_to_bits(e, v[i]));
        } else {
            old = mem_load(addr, e->bytes);
            for (;;) {
                Slot nv2 = interp_binop(combine, e, interp_from_bits(e, old), v[i]);
                if (mem_cas(addr, e->bytes, &old, interp_to_bits(e, nv2)))
                    break;
            }
        }
        rs[i] = interp_from_bits(e, old);
    }
    return true;
}

/* ---- checks ---- */

static bool all_true(Ctx *c, const Node *n)
{
    const Slot *k = val(c, n->in[0]);
    int64_t cnt = vinfo(c, n->in[0])->n;
    for (int64_t i = 0; i < cnt; i++)
        if (!k[i].u)
            return false;
    return true;
}

static bool exec_assert(Ctx *c, const Node *n)
{
    if (all_true(c, n))
        return true;
    char pos[512], msg[1024];
    const char *text = n->op->at.msg ? n->op->at.msg : "";
    /* worded as the emulator words it (runtime/emu/emu.c), less the lane */
    if (interp_pos(c->p, n->op, pos, sizeof pos))
        snprintf(msg, sizeof msg, "kernel %s, workgroup (%u, %u, %u): assertion failed: %s (%s)", c->p->f->name,
                 c->pid[0], c->pid[1], c->pid[2], text, pos);
    else
        snprintf(msg, sizeof msg, "kernel %s, workgroup (%u, %u, %u): assertion failed: %s", c->p->f->name, c->pid[0],
                 c->pid[1], c->pid[2], text);
    return interp_fail_msg(c, INTERP_ERR_ASSERT, msg);
}

/* ---- print ---- */

static bool put(Ctx *c, const char *s, size_t len)
{
    strbuf_put(&c->cur, s, len);
    return !c->cur.oom;
}

static int format_elem(char *buf, size_t n, const Elem *e, Slot s)
{
    switch (e->cls) {
    case EC_BOOL: return snprintf(buf, n, "%s", s.u ? "true" : "false");
    case EC_SINT: return snprintf(buf, n, "%" PRId64, s.i);
    case EC_UINT: return snprintf(buf, n, "%" PRIu64, s.u);
    case EC_PTR: return snprintf(buf, n, "0x%" PRIx64, s.u);
    default: return snprintf(buf, n, e->sk == SK_F64 ? "%.17g" : "%.9g", s.f);
    }
}

/* One line per element: "pid (x, y, z) idx (i, j) msg: value" ("idx" left out for scalars, ": value"
 * when there is no value), each line NUL-terminated in the program's buffer. */
static bool exec_print(Ctx *c, const Node *n)
{
    if (!c->sh->printing)
        return true;
    const Op *op = n->op;
    const char *msg = op->at.msg ? op->at.msg : "";
    const VInfo *v = op->nopnds ? vinfo(c, n->in[0]) : NULL;
    const Slot *vs = v ? val(c, n->in[0]) : NULL;
    int64_t cnt = v ? v->n : 1;
    char head[64], line[256];
    int hl = snprintf(head, sizeof head, "pid (%u, %u, %u) ", c->pid[0], c->pid[1], c->pid[2]);
    for (int64_t i = 0; i < cnt; i++) {
        bool ok = put(c, head, (size_t)hl);
        if (v && v->rank) {
            int64_t idx[TIR_MAX_RANK], rest = i;
            for (int d = v->rank - 1; d >= 0; d--) {
                idx[d] = rest % v->shape[d];
                rest /= v->shape[d];
            }
            int k = snprintf(line, sizeof line, "idx (");
            for (int d = 0; d < v->rank; d++)
                k += snprintf(line + k, sizeof line - (size_t)k, "%s%" PRId64, d ? ", " : "", idx[d]);
            k += snprintf(line + k, sizeof line - (size_t)k, ") ");
            ok = ok && put(c, line, (size_t)k);
        }
        ok = ok && put(c, msg, strlen(msg));
        if (v) {
            int k = snprintf(line, sizeof line, ": ");
            k += format_elem(line + k, sizeof line - (size_t)k, &v->el, vs[i]);
            ok = ok && put(c, line, (size_t)k);
        }
        ok = ok && put(c, "", 1);
        if (!ok)
            return interp_fail(c, op, INTERP_ERR_NOMEM, "out of memory for print");
    }
    return true;
}

bool interp_exec_mem(Ctx *c, const Node *n)
{
    switch (n->op->code) {
    case OP_LOAD:
        return exec_load(c, n);
    case OP_STORE:
        return exec_store(c, n);
    case OP_ATOMIC_RMW:
    case OP_ATOMIC_CAS:
        return exec_atomic(c, n);
    case OP_ASSERT:
        return exec_assert(c, n);
    case OP_ASSUME:
        return all_true(c, n) || interp_fail(c, n->op, INTERP_ERR_ASSERT, "assume failed");
    case OP_PRINT:
        return exec_print(c, n);
    default:
        return interp_fail(c, n->op, INTERP_ERR_INVALID, "the interpreter cannot run op '%s'", op_info(n->op)->name);
    }
}
