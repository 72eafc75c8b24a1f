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

void variant_id(const RtKernelDesc *d, char out[VARIANT_ID_LEN + 1])
{
    char shape[64];
    snprintf(shape, sizeof shape, "num_warps %d block %d lds_bytes %d", d->num_warps, d->block, d->lds_bytes);
    snprintf(out, VARIANT_ID_LEN + 1, "%08x%08x", (unsigned)hash2(d->config, d->facts), (unsigned)hash2(shape, d->tma));
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
