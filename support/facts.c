/* The text form of parameter facts (facts.h). */
#include "support/facts.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* An integer at *p (decimal, or 0x hex, with an optional '-'); advances *p. */
static bool read_int(const char **p, int64_t *v)
{
    const char *s = *p;
    if (!(isdigit((unsigned char)*s) || (*s == '-' && isdigit((unsigned char)s[1]))))
        return false;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 0);
    if (errno || end == s)
        return false;
    *v = x;
    *p = end;
    return true;
}

int facts_parse(const char *text, Fact *out, int cap, char *why, size_t whylen)
{
    int n = 0;
    const char *p = text ? text : "";
    for (;;) {
        while (*p == ' ' || *p == ',' || *p == '\t')
            p++;
        if (!*p)
            return n;
        const char *start = p;
        if (!ident_start(*p)) {
            snprintf(why, whylen, "expected a parameter name at '%s' (facts are NAME%%N==0, NAME==V or NAME<2G)", p);
            return -1;
        }
        while (ident_char(*p))
            p++;
        Fact f = {start, (int)(p - start), FACT_EQ, 0};
        while (*p == ' ')
            p++;
        if (*p == '%') {
            p++;
            while (*p == ' ')
                p++;
            if (!read_int(&p, &f.n) || f.n <= 0) {
                snprintf(why, whylen, "fact '%.*s': expected a positive divisor after '%%'", f.namelen, f.name);
                return -1;
            }
            while (*p == ' ')
                p++;
            if (p[0] != '=' || p[1] != '=' || p[2] != '0' || ident_char(p[3])) {
                snprintf(why, whylen, "fact '%.*s%%%lld': expected '==0' after the divisor", f.namelen, f.name,
                         (long long)f.n);
                return -1;
            }
            p += 3;
            f.kind = FACT_DIV;
        } else if (p[0] == '=' && p[1] == '=') {
            p += 2;
            while (*p == ' ')
                p++;
            if (!read_int(&p, &f.n)) {
                snprintf(why, whylen, "fact '%.*s==': expected an integer value", f.namelen, f.name);
                return -1;
            }
        } else if (p[0] == '<') {
            p++;
            while (*p == ' ')
                p++;
            if (p[0] != '2' || p[1] != 'G' || ident_char(p[2])) {
                snprintf(why, whylen, "fact '%.*s<': expected '2G' (every access within 2^31 bytes of it)", f.namelen,
                         f.name);
                return -1;
            }
            p += 2;
            f.kind = FACT_RANGE32;
            f.n = (int64_t)1 << 31;
        } else {
            snprintf(why, whylen, "fact '%.*s': expected '%%N==0', '==V' or '<2G' after the name", f.namelen, f.name);
            return -1;
        }
        if (*p && *p != ' ' && *p != ',' && *p != '\t') {
            snprintf(why, whylen, "fact '%.*s': unexpected '%c'", f.namelen, f.name, *p);
            return -1;
        }
        if (out && n < cap)
            out[n] = f;
        n++;
    }
}

bool facts_is(const Fact *f, const char *name)
{
    return strncmp(f->name, name, (size_t)f->namelen) == 0 && name[f->namelen] == 0;
}

const char *facts_spell(char *buf, size_t n, const char *name, int namelen, FactKind kind, int64_t v)
{
    if (kind == FACT_DIV)
        snprintf(buf, n, "%.*s%%%lld==0", namelen, name, (long long)v);
    else if (kind == FACT_RANGE32)
        snprintf(buf, n, "%.*s<2G", namelen, name);
    else
        snprintf(buf, n, "%.*s==%lld", namelen, name, (long long)v);
    return buf;
}
