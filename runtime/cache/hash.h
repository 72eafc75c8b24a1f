/* Hashes for the compile and autotune caches.
 *
 * Keys are SHA-256 digests (FIPS 180-4): a key names an entry by everything that decides its contents
 * (source, imports, options, target, device, rk's version), and a collision would silently hand back
 * the wrong code object, so the key hash must be a cryptographic one. Inputs are fed field by field
 * through hash_key_str/hash_key_u64, each prefixed by its length, so that ("ab", "c") and ("a", "bc") differ.
 *
 * Entry checksums are a fast 64-bit hash (hash_fast64, an xxHash64-style mix of four lanes) that only
 * has to catch truncation and corruption: SHA-256 of a 500 KB code object would take longer than the
 * 1 ms a cache hit may cost. */
#ifndef RK_HASH_H
#define RK_HASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct Sha256 {
    uint32_t h[8];
    uint64_t len;
    unsigned char buf[64];
    size_t nbuf;
} Sha256;

typedef struct HashKey {
    unsigned char b[32];
} HashKey;

void hash_sha256_init(Sha256 *s);
void hash_sha256_update(Sha256 *s, const void *data, size_t n);
void hash_sha256_final(Sha256 *s, unsigned char out[32]);

/* Length-prefixed fields (a NULL string hashes differently from ""). */
void hash_key_bytes(Sha256 *s, const void *data, size_t n);
void hash_key_str(Sha256 *s, const char *str);
void hash_key_u64(Sha256 *s, uint64_t v);
HashKey hash_key_final(Sha256 *s);
/* 64 lowercase hex digits and a NUL. */
void hash_key_hex(const HashKey *k, char out[65]);

uint64_t hash_fast64(const void *data, size_t n, uint64_t seed);

#endif
