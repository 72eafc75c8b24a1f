/* MessagePack reading, bounds-checked (see msgpack.h). The format: https://github.com/msgpack/msgpack/blob/master/spec.md */
#include "msgpack.h"

#include <string.h>

void msgpack_init(Mp *m, const void *data, size_t size)
{
    m->start = m->p = data;
    m->end = m->p + size;
    m->err = NULL;
}

size_t msgpack_offset(const Mp *m)
{
    return (size_t)(m->p - m->start);
}

static bool fail(Mp *m, const char *why)
{
    if (!m->err)
        m->err = why;
    return false;
}

/* Big-endian unsigned integer of n bytes (1, 2, 4 or 8). */
static bool take_be(Mp *m, int n, uint64_t *out)
{
    if (m->end - m->p < n)
        return fail(m, "truncated value");
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | m->p[i];
    m->p += n;
    *out = v;
    return true;
}

static bool take_payload(Mp *m, MpVal *v, uint64_t n)
{
    if ((uint64_t)(m->end - m->p) < n)
        return fail(m, "truncated string");
    v->s = (const char *)m->p;
    v->n = (uint32_t)n;
    m->p += n;
    return true;
}

static int64_t sign_extend(uint64_t u, int bytes)
{
    int shift = 64 - 8 * bytes;
    return shift ? (int64_t)(u << shift) >> shift : (int64_t)u;
}

bool msgpack_read(Mp *m, MpVal *v)
{
    memset(v, 0, sizeof *v);
    if (m->err)
        return false;
    if (m->p >= m->end)
        return fail(m, "unexpected end of data");
    uint8_t c = *m->p++;
    uint64_t u;
    if (c <= 0x7f) {
        v->type = MP_UINT;
        v->u = c;
        return true;
    }
    if (c >= 0xe0) {
        v->type = MP_INT;
        v->i = (int8_t)c;
        return true;
    }
    if ((c & 0xf0) == 0x80) {
        v->type = MP_MAP;
        v->n = c & 0x0f;
        return true;
    }
    if ((c & 0xf0) == 0x90) {
        v->type = MP_ARRAY;
        v->n = c & 0x0f;
        return true;
    }
    if ((c & 0xe0) == 0xa0) {
        v->type = MP_STR;
        return take_payload(m, v, c & 0x1f);
    }
    switch (c) {
    case 0xc0:
        v->type = MP_NIL;
        return true;
    case 0xc2:
    case 0xc3:
        v->type = MP_BOOL;
        v->b = c == 0xc3;
        return true;
    case 0xc4:
    case 0xc5:
    case 0xc6: /* bin 8/16/32 */
        v->type = MP_BIN;
        return take_be(m, 1 << (c - 0xc4), &u) && take_payload(m, v, u);
    case 0xc7:
    case 0xc8:
    case 0xc9: /* ext 8/16/32: length, type byte, payload */
        v->type = MP_EXT;
        return take_be(m, 1 << (c - 0xc7), &u) && take_be(m, 1, &(uint64_t){0}) && take_payload(m, v, u);
    case 0xca: {
        v->type = MP_FLOAT;
        if (!take_be(m, 4, &u))
            return false;
        uint32_t w = (uint32_t)u;
        float f;
        memcpy(&f, &w, sizeof f);
        v->f = f;
        return true;
    }
    case 0xcb:
        v->type = MP_FLOAT;
        if (!take_be(m, 8, &u))
            return false;
        memcpy(&v->f, &u, sizeof v->f);
        return true;
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf: /* uint 8/16/32/64 */
        v->type = MP_UINT;
        return take_be(m, 1 << (c - 0xcc), &v->u);
    case 0xd0:
    case 0xd1:
    case 0xd2:
    case 0xd3: { /* int 8/16/32/64 */
        int bytes = 1 << (c - 0xd0);
        if (!take_be(m, bytes, &u))
            return false;
        int64_t i = sign_extend(u, bytes);
        if (i >= 0) {
            v->type = MP_UINT;
            v->u = (uint64_t)i;
        } else {
            v->type = MP_INT;
            v->i = i;
        }
        return true;
    }
    case 0xd4:
    case 0xd5:
    case 0xd6:
    case 0xd7:
    case 0xd8: /* fixext 1/2/4/8/16: type byte, payload */
        v->type = MP_EXT;
        return take_be(m, 1, &u) && take_payload(m, v, (uint64_t)1 << (c - 0xd4));
    case 0xd9:
    case 0xda:
    case 0xdb: /* str 8/16/32 */
        v->type = MP_STR;
        return take_be(m, 1 << (c - 0xd9), &u) && take_payload(m, v, u);
    case 0xdc:
    case 0xdd: /* array 16/32 */
        v->type = MP_ARRAY;
        if (!take_be(m, c == 0xdc ? 2 : 4, &u))
            return false;
        v->n = (uint32_t)u;
        return true;
    case 0xde:
    case 0xdf: /* map 16/32 */
        v->type = MP_MAP;
        if (!take_be(m, c == 0xde ? 2 : 4, &u))
            return false;
        v->n = (uint32_t)u;
        return true;
    default: /* 0xc1 is never used */
        m->p--;
        return fail(m, "invalid type byte");
    }
}

bool msgpack_skip(Mp *m)
{
    /* Values still to skip. Each header read consumes at least one byte, so the loop ends within
     * the input's length; the count stays far below 2^64 (at most 2^33 added per header). */
    uint64_t pending = 1;
    while (pending) {
        MpVal v;
        if (!msgpack_read(m, &v))
            return false;
        pending--;
        if (v.type == MP_ARRAY)
            pending += v.n;
        else if (v.type == MP_MAP)
            pending += 2 * (uint64_t)v.n;
    }
    return true;
}

bool msgpack_str_eq(const MpVal *v, const char *s)
{
    size_t n = strlen(s);
    return v->type == MP_STR && v->n == n && memcmp(v->s, s, n) == 0;
}
