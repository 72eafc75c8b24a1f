/* Bounds of a code object before a loader sees it.
 *
 * Neither loader rk hands code objects to checks that the bytes hold what the ELF headers promise:
 * dlopen (the emu device) maps each PT_LOAD segment from the file and then reads the dynamic section,
 * so a shared object cut short dies with SIGBUS inside the loader (seen with glibc 2.36 on a half
 * of a real emu code object); hipModuleLoadData takes no size at all. A code object comes from the
 * cache (checksummed), a bundle (hash-checked against its manifest) or rk_compile, but the runtime is
 * the last place that can turn a truncated or damaged one into an error instead of a crash, so every
 * load checks here first: a 64-bit little-endian ELF whose program header table, section header table,
 * every segment's file bytes and every section's file bytes (SHT_NOBITS aside) lie inside the buffer.
 * It is a check of extents only; what the segments hold is the loader's business. */
#include <stdio.h>
#include <string.h>

#include "runtime/device/device.h"

static uint64_t rd(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Whether [off, off + count * each) lies in [0, size), without overflow. */
static bool inside(uint64_t off, uint64_t count, uint64_t each, size_t size)
{
    if (off > size || (each && count > (size - off) / each))
        return false;
    return true;
}

bool rt_elf_extents_ok(const void *binary, size_t size, char *msg, size_t msglen)
{
    const unsigned char *b = binary;
    if (!b || size < 64 || memcmp(b, "\x7f" "ELF", 4) != 0 || b[4] != 2 || b[5] != 1) {
        snprintf(msg, msglen, "not a 64-bit little-endian ELF file");
        return false;
    }
    uint64_t phoff = rd(b + 32, 8), shoff = rd(b + 40, 8);
    uint64_t phentsize = rd(b + 54, 2), phnum = rd(b + 56, 2), shentsize = rd(b + 58, 2), shnum = rd(b + 60, 2);
    if (shoff && shnum == 0)
        shnum = 1; /* extended numbering: section 0 holds the count; its header must be there at least */
    if (phnum && (phentsize < 56 || !inside(phoff, phnum, phentsize, size))) {
        snprintf(msg, msglen, "truncated or corrupt code object: its program headers (%llu at offset %llu) lie "
                              "outside its %zu bytes", (unsigned long long)phnum, (unsigned long long)phoff, size);
        return false;
    }
    for (uint64_t i = 0; i < phnum; i++) {
        const unsigned char *ph = b + phoff + i * phentsize;
        uint64_t off = rd(ph + 8, 8), filesz = rd(ph + 32, 8);
        if (filesz && !inside(off, filesz, 1, size)) {
            snprintf(msg, msglen, "truncated or corrupt code object: segment %llu (bytes %llu to %llu) lies outside "
                                  "its %zu bytes", (unsigned long long)i, (unsigned long long)off,
                     (unsigned long long)(off + filesz), size);
            return false;
        }
    }
    if (shoff && (shentsize < 64 || !inside(shoff, shnum, shentsize, size))) {
        snprintf(msg, msglen, "truncated or corrupt code object: its section headers (%llu at offset %llu) lie "
                              "outside its %zu bytes", (unsigned long long)shnum, (unsigned long long)shoff, size);
        return false;
    }
    for (uint64_t i = 0; shoff && i < shnum; i++) {
        const unsigned char *sh = b + shoff + i * shentsize;
        uint64_t type = rd(sh + 4, 4), off = rd(sh + 24, 8), sz = rd(sh + 32, 8);
        if (type != 0 && type != 8 /* SHT_NOBITS */ && sz && !inside(off, sz, 1, size)) {
            snprintf(msg, msglen, "truncated or corrupt code object: section %llu (bytes %llu to %llu) lies outside "
                                  "its %zu bytes", (unsigned long long)i, (unsigned long long)off,
                     (unsigned long long)(off + sz), size);
            return false;
        }
    }
    return true;
}
