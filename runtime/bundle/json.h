/* A small JSON reader for bundle manifests (RFC 8259): objects, arrays, strings (all escapes, \u with
 * surrogate pairs, to UTF-8), numbers, true, false, null. Values go into an arena; the input need not
 * be NUL-terminated; nesting is limited to 64 levels and anything malformed is an error with its byte
 * offset, never a crash (the manifest is a file a user may have edited). */
#ifndef RK_JSON_H
#define RK_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "support/arena.h"

typedef enum JsonKind { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } JsonKind;

typedef struct Json {
    JsonKind kind;
    bool b;
    double num;
    const char *str;       /* JSON_STRING: NUL-terminated (an embedded \u0000 ends it early) */
    size_t len;
    struct Json **items;   /* JSON_ARRAY and JSON_OBJECT: the values */
    const char **keys;     /* JSON_OBJECT: their keys */
    int n;
} Json;

/* NULL on a syntax error, with a message in err. Longjmps through the arena's recovery point when
 * out of memory. */
Json *json_parse(Arena *a, const char *text, size_t len, char *err, size_t errlen);
/* An object's member, or NULL (also when obj is not an object). */
const Json *json_get(const Json *obj, const char *key);
/* Typed access with a default: the member's string/number when it is one. */
const char *json_str(const Json *obj, const char *key, const char *def);
double json_num(const Json *obj, const char *key, double def);

#endif
