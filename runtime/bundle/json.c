/* The JSON reader of bundle manifests (json.h): a recursive-descent parser over a byte range. */
#include "runtime/bundle/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 64 };

typedef struct P {
    Arena *a;
    const char *s, *end;
    const char *start;
    char *err;
    size_t errlen;
    bool failed;
} P;

static void fail(P *p, const char *what)
{
    if (!p->failed)
        snprintf(p->err, p->errlen, "%s at byte %ld", what, (long)(p->s - p->start));
    p->failed = true;
}

static void ws(P *p)
{
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
        p->s++;
}

static bool lit(P *p, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n) != 0)
        return false;
    p->s += n;
    return true;
}

static int hex4(P *p)
{
    if (p->end - p->s < 4) {
        fail(p, "a \\u escape needs four hex digits");
        return -1;
    }
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p->s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) {
            fail(p, "a \\u escape needs four hex digits");
            return -1;
        }
        v = v * 16 + d;
    }
    p->s += 4;
    return v;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12);
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18);
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A string after its opening quote; the result is NUL-terminated. */
static const char *string(P *p, size_t *len)
{
    const char *q = p->s;
    size_t max = 0;
    while (q < p->end && *q != '"') {
        if (*q == '\\')
            q++;
        q++;
        max++;
    }
    char *o = arena_alloc(p->a, max * 4 + 1), *w = o;
    while (p->s < p->end && *p->s != '"') {
        unsigned char c = (unsigned char)*p->s++;
        if (c < 0x20) {
            fail(p, "a control character in a string");
            return NULL;
        }
        if (c != '\\') {
            *w++ = (char)c;
            continue;
        }
        if (p->s >= p->end)
            break;
        char e = *p->s++;
        switch (e) {
        case '"': *w++ = '"'; break;
        case '\\': *w++ = '\\'; break;
        case '/': *w++ = '/'; break;
        case 'b': *w++ = '\b'; break;
        case 'f': *w++ = '\f'; break;
        case 'n': *w++ = '\n'; break;
        case 'r': *w++ = '\r'; break;
        case 't': *w++ = '\t'; break;
        case 'u': {
            int cp = hex4(p);
            if (cp < 0)
                return NULL;
            if (cp >= 0xD800 && cp < 0xDC00) {
                int lo = lit(p, "\\u") ? hex4(p) : -1;
                if (lo < 0xDC00 || lo >= 0xE000) {
                    fail(p, "an unpaired surrogate in a \\u escape");
                    return NULL;
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                fail(p, "an unpaired surrogate in a \\u escape");
                return NULL;
            }
            w += put_utf8(w, (unsigned)cp);
            break;
        }
        default:
            fail(p, "an unknown escape in a string");
            return NULL;
        }
    }
    if (p->s >= p->end) {
        fail(p, "an unterminated string");
        return NULL;
    }
    p->s++;
    *w = 0;
    *len = (size_t)(w - o);
    return o;
}

static Json *value(P *p, int depth);

static Json *node(P *p, JsonKind k)
{
    Json *j = ARENA_NEW(p->a, Json);
    j->kind = k;
    return j;
}

/* Items of an array or object, after its opening bracket. */
static Json *aggregate(P *p, int depth, bool object)
{
    Json *j = node(p, object ? JSON_OBJECT : JSON_ARRAY);
    PtrVec items = {0}, keys = {0};
    ws(p);
    if (p->s < p->end && *p->s == (object ? '}' : ']')) {
        p->s++;
        return j;
    }
    for (;;) {
        ws(p);
        if (object) {
            size_t kl;
            if (p->s >= p->end || *p->s != '"') {
                fail(p, "expected a string key");
                return NULL;
            }
            p->s++;
            const char *k = string(p, &kl);
            if (!k)
                return NULL;
            ws(p);
            if (p->s >= p->end || *p->s != ':') {
                fail(p, "expected ':'");
                return NULL;
            }
            p->s++;
            ptrvec_push(p->a, &keys, (void *)k);
        }
        Json *v = value(p, depth + 1);
        if (!v)
            return NULL;
        ptrvec_push(p->a, &items, v);
        ws(p);
        if (p->s < p->end && *p->s == ',') {
            p->s++;
            continue;
        }
        if (p->s < p->end && *p->s == (object ? '}' : ']')) {
            p->s++;
            break;
        }
        fail(p, object ? "expected ',' or '}'" : "expected ',' or ']'");
        return NULL;
    }
    j->items = (Json **)items.items;
    j->keys = (const char **)keys.items;
    j->n = items.n;
    return j;
}

static Json *number(P *p)
{
    const char *q = p->s;
    if (q < p->end && *q == '-')
        q++;
    if (q >= p->end || !(*q >= '0' && *q <= '9')) {
        fail(p, "expected a value");
        return NULL;
    }
    while (q < p->end && ((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E' || *q == '+' || *q == '-'))
        q++;
    char buf[64];
    size_t n = (size_t)(q - p->s);
    if (n >= sizeof buf) {
        fail(p, "a number too long");
        return NULL;
    }
    memcpy(buf, p->s, n);
    buf[n] = 0;
    char *end;
    double d = strtod(buf, &end);
    if (*end) {
        fail(p, "a malformed number");
        return NULL;
    }
    p->s = q;
    Json *j = node(p, JSON_NUMBER);
    j->num = d;
    return j;
}

static Json *value(P *p, int depth)
{
    if (depth > MAX_DEPTH) {
        fail(p, "nesting too deep");
        return NULL;
    }
    ws(p);
    if (p->s >= p->end) {
        fail(p, "unexpected end");
        return NULL;
    }
    char c = *p->s;
    if (c == '{' || c == '[') {
        p->s++;
        return aggregate(p, depth, c == '{');
    }
    if (c == '"') {
        p->s++;
        size_t len;
        const char *s = string(p, &len);
        if (!s)
            return NULL;
        Json *j = node(p, JSON_STRING);
        j->str = s;
        j->len = len;
        return j;
    }
    if (lit(p, "true") || lit(p, "false")) {
        Json *j = node(p, JSON_BOOL);
        j->b = p->s[-1] == 'e' && p->s[-2] == 'u';
        return j;
    }
    if (lit(p, "null"))
        return node(p, JSON_NULL);
    return number(p);
}

Json *json_parse(Arena *a, const char *text, size_t len, char *err, size_t errlen)
{
    P p = {a, text, text + len, text, err, errlen, false};
    Json *j = value(&p, 0);
    ws(&p);
    if (j && p.s != p.end) {
        fail(&p, "trailing characters after the value");
        j = NULL;
    }
    return p.failed ? NULL : j;
}

const Json *json_get(const Json *obj, const char *key)
{
    if (!obj || obj->kind != JSON_OBJECT)
        return NULL;
    for (int i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return obj->items[i];
    return NULL;
}

const char *json_str(const Json *obj, const char *key, const char *def)
{
    const Json *v = json_get(obj, key);
    return v && v->kind == JSON_STRING ? v->str : def;
}

double json_num(const Json *obj, const char *key, double def)
{
    const Json *v = json_get(obj, key);
    return v && v->kind == JSON_NUMBER ? v->num : def;
}
