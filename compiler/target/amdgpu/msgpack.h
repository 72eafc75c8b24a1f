/* A small bounds-checked MessagePack reader, for the AMDGPU metadata note.
 *
 * It reads one value header at a time from a byte range and never reads outside it: strings, binary
 * and extension payloads are returned as pointers into the input, arrays and maps as element counts
 * that the caller walks. msgpack_skip() skips a whole value without recursion, so nesting depth cannot
 * exhaust the stack. Every failure sets Mp.err and makes all later calls fail. */
#ifndef RK_MSGPACK_H
#define RK_MSGPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum MpType { MP_NIL, MP_BOOL, MP_UINT, MP_INT, MP_FLOAT, MP_STR, MP_BIN, MP_EXT, MP_ARRAY, MP_MAP } MpType;

typedef struct MpVal {
    MpType type;
    bool b;
    uint64_t u;      /* MP_UINT */
    int64_t i;       /* MP_INT (negative values only; non-negative ones come as MP_UINT) */
    double f;        /* MP_FLOAT */
    const char *s;   /* MP_STR, MP_BIN, MP_EXT: the payload (not NUL-terminated) */
    uint32_t n;      /* MP_STR, MP_BIN, MP_EXT: payload bytes; MP_ARRAY: elements; MP_MAP: pairs */
} MpVal;

typedef struct Mp {
    const uint8_t *start, *p, *end;
    const char *err; /* NULL while all is well */
} Mp;

void msgpack_init(Mp *m, const void *data, size_t size);
/* Reads the next value's header (and the payload of a string, binary or extension). */
bool msgpack_read(Mp *m, MpVal *v);
/* Skips the next value, with everything nested in it. */
bool msgpack_skip(Mp *m);
/* The byte offset of the reader, for messages. */
size_t msgpack_offset(const Mp *m);
/* True when v is the string s. */
bool msgpack_str_eq(const MpVal *v, const char *s);

#endif
