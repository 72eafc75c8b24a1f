/* A bundle variant's id from its description, and the check of a symbol against it (variant_id.h).
 * The hashes are hash_fast64's (runtime/cache/hash.h), stable across machines: the manifest's
 * binary_hash uses it too. */
#include "runtime/bundle/variant_id.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "runtime/cache/hash.h"

/* hash of the strings a and b, a NUL between them */
static uint32_t hash2(const char *a, const char *b)
{
    a = a ? a : "";
    b = b ? b : "";
    uint64_t h = hash_fast64(a, strlen(a) + 1, 0x726b7661);
    return (uint32_t)hash_fast64(b, strlen(b), h);
}

/* hash of the launch shape and the calling convention: num_warps, block, lds_bytes, the tensor maps,
 * each parameter's name, kind and type, and the @grid function */
static uint32_t shape_hash(const RtKernelDesc *d)
{
    char shape[64];
    snprintf(shape, sizeof shape, "num_warps %d block %d lds_bytes %d", d->num_warps, d->block, d->lds_bytes);
    uint64_t h = hash2(shape, d->tma);
    for (int i = 0; i < d->nparams; i++) {
        const rk_param *p = &d->params[i];
        char sig[32];
        snprintf(sig, sizeof sig, ":%d:%d;", (int)p->kind, (int)p->dtype);
        h = hash_fast64(p->name ? p->name : "", p->name ? strlen(p->name) : 0, h);
        h = hash_fast64(sig, strlen(sig), h);
    }
    const char *g = d->grid_tir ? d->grid_tir : "";
    return (uint32_t)hash_fast64(g, strlen(g), h);
}

void variant_id(const RtKernelDesc *d, char out[VARIANT_ID_LEN + 1])
{
    snprintf(out, VARIANT_ID_LEN + 1, "%08x%08x", (unsigned)hash2(d->config, d->facts), (unsigned)shape_hash(d));
}

int variant_id_check(const char *symbol, const RtKernelDesc *d)
{
    size_t n = symbol ? strlen(symbol) : 0;
    if (n < VARIANT_ID_LEN + 1 || symbol[n - VARIANT_ID_LEN - 1] != '_')
        return 3;
    const char *have = symbol + n - VARIANT_ID_LEN;
    for (int i = 0; i < VARIANT_ID_LEN; i++)
        if (!((have[i] >= '0' && have[i] <= '9') || (have[i] >= 'a' && have[i] <= 'f')))
            return 3;
    char want[VARIANT_ID_LEN + 1];
    variant_id(d, want);
    if (memcmp(have, want, VARIANT_ID_LEN / 2) != 0)
        return 1;
    return memcmp(have + VARIANT_ID_LEN / 2, want + VARIANT_ID_LEN / 2, VARIANT_ID_LEN / 2) != 0 ? 2 : 0;
}
