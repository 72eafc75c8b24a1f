/* Reading an AMDGPU code object for the ISA report: ELF header, processor, metadata note, symbols.
 *
 * The input is untrusted bytes (the compiler's own output, but also whatever a user or a fuzzer
 * passes), so every offset and size is checked against the file before it is used, arithmetic on
 * them cannot overflow, and each failure returns -1 with a message that says what was wrong.
 * Resources come from the NT_AMDGPU_METADATA note (code object v3+: a msgpack map whose
 * "amdhsa.kernels" array holds one map per kernel, LLVM's AMDGPUUsage "Code Object V3+ Metadata");
 * each kernel's code is found through the symbol table (the STT_FUNC symbol named like the kernel
 * descriptor .symbol without ".kd") and handed to report_isa.c. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "msgpack.h"
#include "report_int.h"

enum {
    EM_AMDGPU = 224,
    SHT_SYMTAB = 2,
    SHT_NOTE = 7,
    SHT_NOBITS = 8,
    SHT_DYNSYM = 11,
    SHF_EXECINSTR = 4,
    SHN_ABS = 0xfff1,
    STT_OBJECT = 1,
    STT_FUNC = 2,
    NT_AMDGPU_METADATA = 32,
    EF_AMDGPU_MACH = 0xff,
    KD_SIZE = 64,     /* kernel descriptor bytes (AMDGPUUsage "Kernel Descriptor") */
    KD_RSRC3 = 44,    /* COMPUTE_PGM_RSRC3; bits 5:0 on gfx90a+ are ACCUM_OFFSET/4 - 1 */
    KD_RSRC2 = 52,    /* COMPUTE_PGM_RSRC2; bits 12:11 are ENABLE_VGPR_WORKITEM_ID (0: x only) */
};

/* The processors, by the EF_AMDGPU_MACH field of e_flags (llvm/BinaryFormat/ELF.h). `llvm` is the
 * CPU handed to LLVM's disassembler, which must be one that LLVM 22 knows: an unknown CPU makes
 * LLVM print a warning and then abort ("disassembly not yet supported for subtarget"). gfx940 and
 * gfx941 were folded into gfx942 (same ISA) and their values are reserved in LLVM 22. `unified`:
 * VGPRs and AGPRs share one 512-entry file (gfx90a and later CDNA). */
static const struct {
    uint8_t mach;
    const char *name, *llvm;
    bool unified;
} cpus[] = {
    {0x20, "gfx600", "gfx600", false},   {0x21, "gfx601", "gfx601", false},
    {0x22, "gfx700", "gfx700", false},   {0x23, "gfx701", "gfx701", false},
    {0x24, "gfx702", "gfx702", false},   {0x25, "gfx703", "gfx703", false},
    {0x26, "gfx704", "gfx704", false},   {0x28, "gfx801", "gfx801", false},
    {0x29, "gfx802", "gfx802", false},   {0x2a, "gfx803", "gfx803", false},
    {0x2b, "gfx810", "gfx810", false},   {0x2c, "gfx900", "gfx900", false},
    {0x2d, "gfx902", "gfx902", false},   {0x2e, "gfx904", "gfx904", false},
    {0x2f, "gfx906", "gfx906", false},   {0x30, "gfx908", "gfx908", false},
    {0x31, "gfx909", "gfx909", false},   {0x32, "gfx90c", "gfx90c", false},
    {0x33, "gfx1010", "gfx1010", false}, {0x34, "gfx1011", "gfx1011", false},
    {0x35, "gfx1012", "gfx1012", false}, {0x36, "gfx1030", "gfx1030", false},
    {0x37, "gfx1031", "gfx1031", false}, {0x38, "gfx1032", "gfx1032", false},
    {0x39, "gfx1033", "gfx1033", false}, {0x3a, "gfx602", "gfx602", false},
    {0x3b, "gfx705", "gfx705", false},   {0x3c, "gfx805", "gfx805", false},
    {0x3d, "gfx1035", "gfx1035", false}, {0x3e, "gfx1034", "gfx1034", false},
    {0x3f, "gfx90a", "gfx90a", true},    {0x40, "gfx940", "gfx942", true},
    {0x41, "gfx1100", "gfx1100", false}, {0x42, "gfx1013", "gfx1013", false},
    {0x43, "gfx1150", "gfx1150", false}, {0x44, "gfx1103", "gfx1103", false},
    {0x45, "gfx1036", "gfx1036", false}, {0x46, "gfx1101", "gfx1101", false},
    {0x47, "gfx1102", "gfx1102", false}, {0x48, "gfx1200", "gfx1200", false},
    {0x49, "gfx1250", "gfx1250", false}, {0x4a, "gfx1151", "gfx1151", false},
    {0x4b, "gfx941", "gfx942", true},    {0x4c, "gfx942", "gfx942", true},
    {0x4e, "gfx1201", "gfx1201", false}, {0x4f, "gfx950", "gfx950", true},
    {0x51, "gfx9-generic", "gfx9-generic", false},
    {0x52, "gfx10-1-generic", "gfx10-1-generic", false},
    {0x53, "gfx10-3-generic", "gfx10-3-generic", false},
    {0x54, "gfx11-generic", "gfx11-generic", false},
    {0x55, "gfx1152", "gfx1152", false}, {0x58, "gfx1153", "gfx1153", false},
    {0x59, "gfx12-generic", "gfx12-generic", false},
    {0x5a, "gfx1251", "gfx1251", false},
    {0x5f, "gfx9-4-generic", "gfx9-4-generic", true},
};

typedef struct Elf {
    Arena *a;
    const uint8_t *b;
    size_t n;
    const char **err;
    uint64_t shoff;
    unsigned shnum;
    int extra_lds; /* LDS the launch adds to each kernel's (dynamic shared memory) */
} Elf;

typedef struct Sec {
    uint32_t type, link;
    uint64_t flags, addr, off, size, entsize;
} Sec;

typedef struct Sym {
    uint8_t type;
    uint16_t shndx;
    uint64_t value, size;
} Sym;

/* One kernel's entry in "amdhsa.kernels". */
typedef struct KMeta {
    const char *name, *symbol;
    int64_t vgprs, agprs, sgprs, lds, scratch, vgpr_spills, sgpr_spills, wgsize, wave;
} KMeta;

static int failf(Elf *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int failf(Elf *e, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    *e->err = arena_strdup(e->a, buf);
    return -1;
}

/* ---- bounds-checked little-endian reads ------------------------------------------------------- */

static bool in_file(const Elf *e, uint64_t off, uint64_t len)
{
    return off <= e->n && len <= e->n - off;
}

static uint64_t rd(const Elf *e, uint64_t off, int bytes) /* caller checked in_file */
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | e->b[off + (uint64_t)i];
    return v;
}

/* ---- sections and symbols --------------------------------------------------------------------- */

static bool sec_get(const Elf *e, unsigned i, Sec *s)
{
    if (i >= e->shnum)
        return false;
    uint64_t o = e->shoff + 64 * (uint64_t)i; /* the whole table was checked to lie in the file */
    s->type = (uint32_t)rd(e, o + 4, 4);
    s->flags = rd(e, o + 8, 8);
    s->addr = rd(e, o + 16, 8);
    s->off = rd(e, o + 24, 8);
    s->size = rd(e, o + 32, 8);
    s->link = (uint32_t)rd(e, o + 40, 4);
    s->entsize = rd(e, o + 56, 8);
    return true;
}

static bool sec_in_file(const Elf *e, const Sec *s)
{
    return s->type != SHT_NOBITS && in_file(e, s->off, s->size);
}

/* Looks `name` up in the symbol table section `symsec` (STT_* `type`, or any type if type < 0). */
static bool sym_find(const Elf *e, const Sec *symsec, const char *name, int type, Sym *out)
{
    Sec str;
    if (!sec_in_file(e, symsec) || !sec_get(e, symsec->link, &str) || !sec_in_file(e, &str))
        return false;
    size_t len = strlen(name);
    for (uint64_t o = 0; o + 24 <= symsec->size; o += 24) {
        uint64_t p = symsec->off + o;
        uint64_t nameoff = rd(e, p, 4);
        if (nameoff >= str.size || str.size - nameoff < len + 1)
            continue;
        const uint8_t *s = e->b + str.off + nameoff;
        if (memcmp(s, name, len) != 0 || s[len] != 0)
            continue;
        uint8_t info = e->b[p + 4];
        if (type >= 0 && (info & 0xf) != type)
            continue;
        out->type = info & 0xf;
        out->shndx = (uint16_t)rd(e, p + 6, 2);
        out->value = rd(e, p + 8, 8);
        out->size = rd(e, p + 16, 8);
        return true;
    }
    return false;
}

/* .symtab first (it has the local .num_vgpr symbols), else .dynsym (a stripped code object). */
static bool sym_lookup(const Elf *e, const char *name, int type, Sym *out)
{
    for (int pass = 0; pass < 2; pass++) {
        for (unsigned i = 0; i < e->shnum; i++) {
            Sec s;
            sec_get(e, i, &s);
            if (s.type == (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM) && sym_find(e, &s, name, type, out))
                return true;
        }
    }
    return false;
}

/* The file bytes [*off, *off + size) of a symbol's contents, inside its section. */
static bool sym_bytes(const Elf *e, const Sym *sym, uint64_t size, bool exec, uint64_t *off)
{
    Sec s;
    if (!sec_get(e, sym->shndx, &s) || !sec_in_file(e, &s))
        return false;
    if (exec && !(s.flags & SHF_EXECINSTR))
        return false;
    if (sym->value < s.addr || sym->value - s.addr > s.size || size > s.size - (sym->value - s.addr))
        return false;
    *off = s.off + (sym->value - s.addr);
    return in_file(e, *off, size);
}

/* ---- the metadata note ------------------------------------------------------------------------ */

static const struct {
    const char *key;
    size_t field;
} int_keys[] = {
    {".vgpr_count", offsetof(KMeta, vgprs)},
    {".agpr_count", offsetof(KMeta, agprs)},
    {".sgpr_count", offsetof(KMeta, sgprs)},
    {".group_segment_fixed_size", offsetof(KMeta, lds)},
    {".private_segment_fixed_size", offsetof(KMeta, scratch)},
    {".vgpr_spill_count", offsetof(KMeta, vgpr_spills)},
    {".sgpr_spill_count", offsetof(KMeta, sgpr_spills)},
    {".max_flat_workgroup_size", offsetof(KMeta, wgsize)},
    {".wavefront_size", offsetof(KMeta, wave)},
};

static int bad_meta(Elf *e, Mp *m, const char *why)
{
    return failf(e, "bad AMDGPU metadata note: %s at byte %zu of the note", m->err ? m->err : why,
                 msgpack_offset(m));
}

static int read_kernel(Elf *e, Mp *m, KMeta *k)
{
    MpVal v;
    if (!msgpack_read(m, &v) || v.type != MP_MAP)
        return bad_meta(e, m, "a kernel is not a map");
    memset(k, 0, sizeof *k);
    k->wave = 64;
    for (uint32_t i = 0; i < v.n; i++) {
        MpVal key, val;
        if (!msgpack_read(m, &key))
            return bad_meta(e, m, "");
        const char **str = msgpack_str_eq(&key, ".name") ? &k->name : msgpack_str_eq(&key, ".symbol") ? &k->symbol : NULL;
        if (str) {
            if (!msgpack_read(m, &val) || val.type != MP_STR)
                return bad_meta(e, m, "a kernel's .name or .symbol is not a string");
            if (memchr(val.s, 0, val.n))
                return bad_meta(e, m, "a kernel's .name or .symbol holds a NUL byte");
            *str = arena_strndup(e->a, val.s, val.n);
            continue;
        }
        size_t j = 0;
        while (j < sizeof int_keys / sizeof int_keys[0] && !msgpack_str_eq(&key, int_keys[j].key))
            j++;
        if (j == sizeof int_keys / sizeof int_keys[0]) {
            if (!msgpack_skip(m))
                return bad_meta(e, m, "");
            continue;
        }
        if (!msgpack_read(m, &val))
            return bad_meta(e, m, "");
        if (val.type != MP_UINT || val.u > 0x7fffffff)
            return failf(e, "bad AMDGPU metadata note: %s is not an integer in [0, 2^31)", int_keys[j].key);
        *(int64_t *)((char *)k + int_keys[j].field) = (int64_t)val.u;
    }
    if (!k->name || !k->symbol)
        return failf(e, "bad AMDGPU metadata note: a kernel has no %s", k->name ? ".symbol" : ".name");
    if (k->wave != 32 && k->wave != 64)
        return failf(e, "bad AMDGPU metadata note: kernel '%s' has .wavefront_size %lld", k->name,
                     (long long)k->wave);
    return 0;
}

static int read_metadata(Elf *e, const uint8_t *desc, size_t size, KMeta **out, int *nout)
{
    Mp m;
    msgpack_init(&m, desc, size);
    MpVal v;
    if (!msgpack_read(&m, &v) || v.type != MP_MAP)
        return bad_meta(e, &m, "the top level is not a map");
    bool seen = false;
    for (uint32_t i = 0; i < v.n; i++) {
        MpVal key;
        if (!msgpack_read(&m, &key))
            return bad_meta(e, &m, "");
        if (!msgpack_str_eq(&key, "amdhsa.kernels")) {
            if (!msgpack_skip(&m))
                return bad_meta(e, &m, "");
            continue;
        }
        if (seen)
            return bad_meta(e, &m, "amdhsa.kernels appears twice");
        seen = true;
        MpVal arr;
        if (!msgpack_read(&m, &arr) || arr.type != MP_ARRAY)
            return bad_meta(e, &m, "amdhsa.kernels is not an array");
        if (arr.n > size - msgpack_offset(&m)) /* each kernel takes at least one byte */
            return bad_meta(e, &m, "truncated amdhsa.kernels");
        *out = ARENA_ARRAY(e->a, KMeta, arr.n ? arr.n : 1);
        *nout = (int)arr.n;
        for (uint32_t k = 0; k < arr.n; k++)
            if (read_kernel(e, &m, &(*out)[k]) < 0)
                return -1;
    }
    if (!seen)
        return failf(e, "bad AMDGPU metadata note: no amdhsa.kernels");
    return 0;
}

/* Finds the NT_AMDGPU_METADATA note (owner "AMDGPU") in the SHT_NOTE sections. */
static int find_note(Elf *e, const uint8_t **desc, size_t *size)
{
    for (unsigned i = 0; i < e->shnum; i++) {
        Sec s;
        sec_get(e, i, &s);
        if (s.type != SHT_NOTE)
            continue;
        if (!sec_in_file(e, &s))
            return failf(e, "truncated code object: note section %u lies outside the file", i);
        uint64_t o = 0;
        while (s.size - o >= 12) {
            uint64_t p = s.off + o;
            uint64_t namesz = rd(e, p, 4), descsz = rd(e, p + 4, 4), type = rd(e, p + 8, 4);
            uint64_t name_pad = (namesz + 3) & ~(uint64_t)3, desc_pad = (descsz + 3) & ~(uint64_t)3;
            if (name_pad > s.size - o - 12 || descsz > s.size - o - 12 - name_pad)
                return failf(e, "bad note in section %u: sizes run past the section", i);
            const uint8_t *name = e->b + p + 12;
            if (type == NT_AMDGPU_METADATA && namesz == 7 && memcmp(name, "AMDGPU", 7) == 0) {
                *desc = name + name_pad;
                *size = (size_t)descsz;
                return 0;
            }
            uint64_t next = 12 + name_pad + desc_pad;
            if (next > s.size - o)
                break;
            o += next;
        }
    }
    return failf(e, "no AMDGPU metadata note (NT_AMDGPU_METADATA): not a code object v3 or later");
}

/* ---- kernels ---------------------------------------------------------------------------------- */

/* Architectural VGPRs: the "<kernel>.num_vgpr" symbol LLVM 20+ writes into .symtab, else the
 * kernel descriptor's ACCUM_OFFSET (the first AGPR, a multiple of 4, so rounded up), else the
 * total less the AGPRs. On CPUs without a unified file .vgpr_count already is the VGPR count. */
static int arch_vgprs(Elf *e, const char *fn, const KMeta *k, bool unified)
{
    if (!unified || k->agprs == 0)
        return (int)k->vgprs;
    Sym s;
    if (sym_lookup(e, arena_printf(e->a, "%s.num_vgpr", fn), -1, &s) && s.shndx == SHN_ABS && s.value <= 512)
        return (int)s.value;
    uint64_t off;
    if (sym_lookup(e, k->symbol, STT_OBJECT, &s) && sym_bytes(e, &s, KD_SIZE, false, &off)) {
        int accum = (int)((rd(e, off + KD_RSRC3, 4) & 0x3f) + 1) * 4;
        if (accum <= k->vgprs)
            return accum;
    }
    return k->vgprs > k->agprs ? (int)(k->vgprs - k->agprs) : 0;
}

static int read_kernel_code(Elf *e, const char *cpu, IsaDisasm *dis, bool unified, const KMeta *k,
                            KernelReport *r)
{
    r->name = k->name;
    r->vgprs_total = (int)k->vgprs;
    r->agprs = (int)k->agprs;
    r->sgprs = (int)k->sgprs;
    r->lds_bytes = (int)k->lds + e->extra_lds;
    r->scratch_bytes = (int)k->scratch;
    r->vgpr_spills = (int)k->vgpr_spills;
    r->sgpr_spills = (int)k->sgpr_spills;
    r->workgroup_size = (int)k->wgsize;
    r->wave_size = (int)k->wave;

    /* The code symbol is the descriptor's name without ".kd" (for C++ kernels .name is the
     * unmangled name and differs). */
    size_t len = strlen(k->symbol);
    const char *fn = len > 3 && strcmp(k->symbol + len - 3, ".kd") == 0 ? arena_strndup(e->a, k->symbol, len - 3)
                                                                        : k->name;
    Sym sym;
    if (!sym_lookup(e, fn, STT_FUNC, &sym))
        return failf(e, "kernel '%s': no function symbol '%s' in the symbol table", k->name, fn);
    if (sym.size == 0)
        return failf(e, "kernel '%s': symbol '%s' has size 0", k->name, fn);
    uint64_t off;
    if (!sym_bytes(e, &sym, sym.size, true, &off))
        return failf(e, "kernel '%s': code at 0x%llx (%llu bytes) lies outside its section or the file",
                     k->name, (unsigned long long)sym.value, (unsigned long long)sym.size);
    r->vgprs = arch_vgprs(e, fn, k, unified);
    /* v0 at entry: the workitem ids, packed as x | y << 10 | z << 20 on gfx90a and later; where the
     * descriptor asks for x alone, v0 is the flat id of a 1-D workgroup (the LDS evaluator's start) */
    Sym kd;
    uint64_t kd_off;
    r->v0_tid = unified && sym_lookup(e, k->symbol, STT_OBJECT, &kd) && sym_bytes(e, &kd, KD_SIZE, false, &kd_off) &&
                ((rd(e, kd_off + KD_RSRC2, 4) >> 11) & 3) == 0;
    r->waves_per_simd = report_occupancy_for(cpu, r->vgprs_total, r->sgprs, r->lds_bytes, r->workgroup_size,
                                             &r->limiter);
    report_isa_count(dis, e->a, e->b + off, (size_t)sym.size, sym.value, cpu, r);
    return 0;
}

int report_code_object(Arena *a, const void *elf, size_t size, CodeReport *out, const char **err)
{
    return report_code_object_lds(a, elf, size, 0, out, err);
}

static int read_code_object(Arena *a, const void *elf, size_t size, int extra_lds, bool meta_only, CodeReport *out,
                            const char **err);

int report_code_object_lds(Arena *a, const void *elf, size_t size, int extra_lds, CodeReport *out, const char **err)
{
    return read_code_object(a, elf, size, extra_lds, false, out, err);
}

int report_code_object_meta(Arena *a, const void *elf, size_t size, CodeReport *out, const char **err)
{
    return read_code_object(a, elf, size, 0, true, out, err);
}

static int read_code_object(Arena *a, const void *elf, size_t size, int extra_lds, bool meta_only, CodeReport *out,
                            const char **err)
{
    static const char *dummy;
    Elf e = {.a = a, .b = elf, .n = elf ? size : 0, .err = err ? err : &dummy, .extra_lds = extra_lds > 0 ? extra_lds : 0};
    memset(out, 0, sizeof *out);
    if (e.n < 64 || memcmp(e.b, "\x7f" "ELF", 4) != 0)
        return failf(&e, e.n == 0 ? "not a code object: empty input" : "not a code object: not an ELF file");
    if (e.b[4] != 2 || e.b[5] != 1)
        return failf(&e, "not an AMDGPU code object: ELF%s %s-endian, expected ELF64 little-endian",
                     e.b[4] == 1 ? "32" : e.b[4] == 2 ? "64" : "??", e.b[5] == 2 ? "big" : "little");
    unsigned machine = (unsigned)rd(&e, 18, 2);
    if (machine != EM_AMDGPU)
        return failf(&e, "not an AMDGPU code object: ELF machine %u%s, expected %u (AMDGPU)", machine,
                     machine == 62 ? " (x86-64)" : machine == 183 ? " (AArch64)" : "", EM_AMDGPU);
    unsigned mach = (unsigned)rd(&e, 48, 4) & EF_AMDGPU_MACH;
    size_t c = 0;
    while (c < sizeof cpus / sizeof cpus[0] && cpus[c].mach != mach)
        c++;
    if (c == sizeof cpus / sizeof cpus[0])
        return failf(&e, "unknown AMDGPU processor: EF_AMDGPU_MACH 0x%02x in the ELF header's e_flags", mach);
    out->cpu = cpus[c].name;

    e.shoff = rd(&e, 40, 8);
    unsigned shentsize = (unsigned)rd(&e, 58, 2);
    e.shnum = (unsigned)rd(&e, 60, 2);
    if (e.shnum == 0)
        return failf(&e, "bad code object: no section headers");
    if (shentsize != 64)
        return failf(&e, "bad code object: section header size %u, expected 64", shentsize);
    if (!in_file(&e, e.shoff, 64 * (uint64_t)e.shnum))
        return failf(&e, "truncated code object: %u section headers at offset %llu run past the end (%zu bytes)",
                     e.shnum, (unsigned long long)e.shoff, e.n);

    const uint8_t *desc = NULL;
    size_t descsz = 0;
    if (find_note(&e, &desc, &descsz) < 0)
        return -1;
    KMeta *meta = NULL;
    int nk = 0;
    if (read_metadata(&e, desc, descsz, &meta, &nk) < 0)
        return -1;
    if (meta_only) {
        out->kernels = ARENA_ARRAY(a, KernelReport, nk ? nk : 1);
        if (!out->kernels)
            return failf(&e, "out of memory");
        for (int i = 0; i < nk; i++) {
            KernelReport *k = &out->kernels[i];
            k->name = meta[i].name;
            k->vgprs_total = (int)meta[i].vgprs;
            k->sgprs = (int)meta[i].sgprs;
            k->lds_bytes = (int)meta[i].lds;
            k->scratch_bytes = (int)meta[i].scratch;
            k->vgpr_spills = (int)meta[i].vgpr_spills;
            k->sgpr_spills = (int)meta[i].sgpr_spills;
            k->workgroup_size = (int)meta[i].wgsize;
            k->wave_size = (int)meta[i].wave;
        }
        out->nkernels = nk;
        return 0;
    }
    /* (Should the arena's allocator fail and jump to Arena.oom in between, the disassembler
     * context, which LLVM allocates, would leak: a few KiB once, in a process out of memory.) */
    const char *why = NULL;
    IsaDisasm *dis = report_isa_open(a, cpus[c].llvm, &why);
    if (!dis)
        return failf(&e, "%s", why);
    out->kernels = ARENA_ARRAY(a, KernelReport, nk ? nk : 1);
    int rc = 0;
    for (int i = 0; i < nk && rc == 0; i++)
        rc = read_kernel_code(&e, cpus[c].name, dis, cpus[c].unified, &meta[i], &out->kernels[i]);
    report_isa_close(dis);
    if (rc < 0) {
        out->kernels = NULL;
        return -1;
    }
    out->nkernels = nk;
    return 0;
}
