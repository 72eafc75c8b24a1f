/* The in-process linker: one AMDGPU relocatable object (what LLVM's AMDGPU back end emits for an rk
 * module) into a loadable code object, laid out exactly as `ld.lld -shared` lays it out.
 *
 * Why: spawning ld.lld cost 20-30 ms of CPU per compile on the build machine (its process start and
 * the dynamic loading of libLLVM), a third to a half of a small kernel's whole compile; this takes
 * microseconds. ld.lld stays the oracle and the fallback: anything this file does not recognise
 * (a relocation type, a section, a symbol kind) makes cg_elf_link refuse, and codegen_link runs
 * ld.lld instead. tests/unit/test_elf_link.c compares both outputs for every example kernel.
 *
 * What the input holds (LLVM 22, code object v5): .text (the kernels, 256-byte aligned), .rodata
 * (a 64-byte kernel descriptor `name.kd` per kernel), .rela.rodata (one R_AMDGPU_REL64 per
 * descriptor: kernel_code_entry_byte_offset = entry - descriptor), .note (NT_AMDGPU_METADATA,
 * msgpack), .symtab/.strtab (local absolute symbols for the resource counts, the global kernel
 * symbols), .note.GNU-stack and .AMDGPU.gpr_maximums (empty); and when a kernel reads constant data
 * (the 16 zero bytes masked-off lanes load, lower_mem.c), .rodata.cst16 (one 16-byte constant) with
 * R_AMDGPU_REL32_LO/HI relocations in .rela.text (the s_getpc_b64 + s_add/s_addc pair that addresses
 * it), which ld.lld appends to the output .rodata and resolves. What the output holds, in ld.lld's
 * order (LLVM's AMDGPUUsage: the standard dynamic sections, the kernel descriptor symbols):
 *
 *   ELF header, 8 program headers (PHDR, LOAD r, LOAD rx, LOAD rw, DYNAMIC, GNU_RELRO, GNU_STACK, NOTE)
 *   .note .dynsym .gnu.hash .hash .dynstr .rodata     first PT_LOAD (read-only), from offset 0
 *   .text                                             PT_LOAD r-x, on a new page: va = align(end, 4K) + end % 4K
 *   .dynamic .relro_padding                           PT_LOAD rw-, PT_DYNAMIC, PT_GNU_RELRO, likewise
 *   the input's other non-allocated sections, .comment, .symtab, .shstrtab, .strtab, section headers
 *
 * .dynsym holds the global symbols in ld.lld's GNU-hash order (by bucket, then .dynstr offset), .hash
 * and .gnu.hash are built as ld.lld builds them (one SysV bucket per symbol; GNU: a bucket per four
 * symbols, a 2-bit bloom filter of 12 bits per symbol), .symtab is the input's locals, _DYNAMIC, then
 * the globals. Only .comment differs from ld.lld's ("Linker: rk"). Inputs are read with memcpy (no
 * alignment assumed) and every offset is checked against the buffer. */
#include <elf.h>
#include <stdint.h>
#include <string.h>

#include "compiler/codegen/codegen.h"

enum {
    R_AMDGPU_NONE_ = 0,
    R_AMDGPU_REL64_ = 5,
    R_AMDGPU_REL32_LO_ = 10,
    R_AMDGPU_REL32_HI_ = 11,
    PAGE = 0x1000, /* ld.lld's max and common page size for AMDGPU */
    NPHDR = 8,
    SHIFT2 = 26, /* ld.lld's second bloom filter shift for ELF64 */
};

static const char comment_text[] = "Linker: rk";

typedef struct InSym {
    const char *name;
    Elf64_Sym s;
} InSym;

/* An output symbol: name offset filled when the string tables are built. */
typedef struct OutSym {
    const char *name;
    uint32_t str;
    Elf64_Sym s;
} OutSym;

/* A string table with ld.lld's deduplication of equal strings (no tail merging). */
typedef struct Strs {
    char *buf;
    size_t n, cap;
    /* open addressing over offsets + 1 (0 = empty) */
    uint32_t *slots;
    size_t nslots;
} Strs;

typedef struct Link {
    Arena *a;
    const unsigned char *in;
    size_t size;
    const char *why;
} Link;

static bool refuse(Link *l, const char *why)
{
    if (!l->why)
        l->why = why;
    return false;
}

static uint64_t align_to(uint64_t v, uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

/* The smallest value >= v that is congruent to `skew` modulo `a` (ld.lld's alignTo with a skew). */
static uint64_t align_skew(uint64_t v, uint64_t a, uint64_t skew)
{
    skew %= a;
    return (v + a - 1 - skew) / a * a + skew;
}

/* llvm::NextPowerOf2: the smallest power of two strictly greater than v */
static uint64_t next_pow2(uint64_t v)
{
    uint64_t p = 1;
    while (p <= v)
        p <<= 1;
    return p;
}

static uint32_t hash_sysv(const char *s)
{
    uint32_t h = 0;
    for (; *s; s++) {
        h = (h << 4) + (unsigned char)*s;
        uint32_t g = h & 0xf0000000u;
        if (g)
            h ^= g >> 24;
        h &= ~g;
    }
    return h;
}

static uint32_t hash_gnu(const char *s)
{
    uint32_t h = 5381;
    for (; *s; s++)
        h = h * 33 + (unsigned char)*s;
    return h;
}

/* ---- string tables ---------------------------------------------------------------------------- */

static void strs_init(Strs *t, Arena *a, size_t nstrings, size_t bytes)
{
    t->cap = bytes + 1;
    t->buf = arena_alloc(a, t->cap);
    t->n = 1; /* offset 0: the empty string */
    t->nslots = next_pow2(nstrings * 2 + 2);
    t->slots = ARENA_ARRAY(a, uint32_t, t->nslots);
}

/* Offset of s, added unless an equal string is there already (`bytes` in strs_init covered it). */
static uint32_t strs_add(Strs *t, const char *s)
{
    if (!*s)
        return 0;
    size_t len = strlen(s);
    size_t i = hash_gnu(s) & (t->nslots - 1);
    for (; t->slots[i]; i = (i + 1) & (t->nslots - 1))
        if (strcmp(t->buf + t->slots[i] - 1, s) == 0)
            return t->slots[i] - 1;
    uint32_t off = (uint32_t)t->n;
    memcpy(t->buf + t->n, s, len + 1);
    t->n += len + 1;
    t->slots[i] = off + 1;
    return off;
}

/* ---- reading the input ------------------------------------------------------------------------ */

/* A NUL-terminated string at `off` of section `sh`, or NULL. */
static const char *in_str(Link *l, const Elf64_Shdr *sh, uint64_t off)
{
    if (sh->sh_type != SHT_STRTAB || off >= sh->sh_size)
        return NULL;
    const char *s = (const char *)l->in + sh->sh_offset + off;
    return memchr(s, 0, sh->sh_size - off) ? s : NULL;
}

static bool in_range(Link *l, uint64_t off, uint64_t n)
{
    return off <= l->size && n <= l->size - off;
}

/* entry i of a relocation section (its extent was checked with the section table) */
static Elf64_Rela rela_at(Link *l, const Elf64_Shdr *rs, int i)
{
    Elf64_Rela r;
    memcpy(&r, l->in + rs->sh_offset + (size_t)i * sizeof r, sizeof r);
    return r;
}

bool cg_elf_link(const void *obj, size_t size, Arena *a, void **bin, size_t *bin_size, const char **why)
{
    Link lk = {a, obj, size, NULL}, *l = &lk;
    *bin = NULL;
    *bin_size = 0;
    *why = NULL;
    Elf64_Ehdr eh;
    if (size < sizeof eh) {
        *why = "not an ELF object";
        return false;
    }
    memcpy(&eh, obj, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_type != ET_REL || eh.e_machine != EM_AMDGPU ||
        eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shstrndx >= eh.e_shnum ||
        !in_range(l, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr))) {
        *why = "not a 64-bit little-endian AMDGPU relocatable object";
        return false;
    }
    int nsec = eh.e_shnum;
    Elf64_Shdr *sh = ARENA_ARRAY(a, Elf64_Shdr, nsec);
    if (!sh) {
        *why = "out of memory";
        return false;
    }
    memcpy(sh, l->in + eh.e_shoff, sizeof(Elf64_Shdr) * (size_t)nsec);
    for (int i = 1; i < nsec; i++)
        if ((sh[i].sh_type != SHT_NOBITS && !in_range(l, sh[i].sh_offset, sh[i].sh_size)) ||
            (sh[i].sh_addralign & (sh[i].sh_addralign - 1)) || sh[i].sh_addralign > PAGE)
            refuse(l, "a section lies outside the object or has an odd alignment");

    if (l->why) {
        *why = l->why;
        return false;
    }

    /* sections: exactly the kinds LLVM's AMDGPU back end emits for rk */
    int text = 0, rodata = 0, note = 0, symtab = 0, rela = 0, rela_text = 0, cst = 0;
    int *extra = ARENA_ARRAY(a, int, nsec);
    int nextra = 0;
    for (int i = 1; i < nsec && !l->why; i++) {
        const char *name = in_str(l, &sh[eh.e_shstrndx], sh[i].sh_name);
        const Elf64_Shdr *s = &sh[i];
        if (!name)
            refuse(l, "a section name is not in the section name table");
        else if (s->sh_type == SHT_STRTAB)
            ; /* read through the headers that link to it */
        else if (s->sh_type == SHT_SYMTAB && !symtab)
            symtab = i;
        else if (s->sh_type == SHT_RELA && strcmp(name, ".rela.rodata") == 0 && !rela)
            rela = i;
        else if (s->sh_type == SHT_RELA && strcmp(name, ".rela.text") == 0 && !rela_text)
            rela_text = i;
        else if (s->sh_type == SHT_PROGBITS && !cst && strcmp(name, ".rodata.cst16") == 0 &&
                 s->sh_flags == (SHF_ALLOC | SHF_MERGE) && s->sh_entsize == 16 && s->sh_size == 16 &&
                 s->sh_addralign == 16)
            cst = i; /* one constant: nothing for ld.lld's merging to fold */
        else if (s->sh_type == SHT_NOTE && !note && strcmp(name, ".note") == 0 && s->sh_flags == SHF_ALLOC)
            note = i;
        else if (s->sh_type == SHT_PROGBITS && !text && strcmp(name, ".text") == 0 &&
                 s->sh_flags == (SHF_ALLOC | SHF_EXECINSTR))
            text = i;
        else if (s->sh_type == SHT_PROGBITS && !rodata && strcmp(name, ".rodata") == 0 && s->sh_flags == SHF_ALLOC)
            rodata = i;
        else if (s->sh_type == SHT_PROGBITS && strcmp(name, ".note.GNU-stack") == 0 && s->sh_size == 0 &&
                 s->sh_flags == 0)
            ; /* becomes PT_GNU_STACK (not executable) */
        else if (s->sh_type == SHT_PROGBITS && s->sh_flags == 0 && strcmp(name, ".comment") != 0 &&
                 strncmp(name, ".debug", 6) != 0)
            extra[nextra++] = i; /* copied as it is (.AMDGPU.gpr_maximums) */
        else
            refuse(l, "a section the in-process linker does not handle");
    }
    if (!l->why && (!text || !rodata || !note || !symtab))
        refuse(l, "no .text, .rodata, .note or .symtab");
    if (!l->why && rela &&
        (sh[rela].sh_info != (Elf64_Word)rodata || sh[rela].sh_link != (Elf64_Word)symtab ||
         sh[rela].sh_entsize != sizeof(Elf64_Rela) || sh[rela].sh_size % sizeof(Elf64_Rela)))
        refuse(l, "relocations for a section other than .rodata");
    if (!l->why && rela_text &&
        (sh[rela_text].sh_info != (Elf64_Word)text || sh[rela_text].sh_link != (Elf64_Word)symtab ||
         sh[rela_text].sh_entsize != sizeof(Elf64_Rela) || sh[rela_text].sh_size % sizeof(Elf64_Rela)))
        refuse(l, "a malformed .rela.text");
    if (!l->why && (sh[symtab].sh_entsize != sizeof(Elf64_Sym) || sh[symtab].sh_size % sizeof(Elf64_Sym) ||
                    sh[symtab].sh_link >= (Elf64_Word)nsec || sh[sh[symtab].sh_link].sh_type != SHT_STRTAB))
        refuse(l, "a malformed symbol table");
    if (l->why) {
        *why = l->why;
        return false;
    }

    /* symbols: local (absolute or in .text/.rodata), section symbols (for relocations only), global
     * definitions in .text (functions) or .rodata (objects) with default or protected visibility */
    const Elf64_Shdr *strtab = &sh[sh[symtab].sh_link];
    int nin = (int)(sh[symtab].sh_size / sizeof(Elf64_Sym));
    InSym *syms = ARENA_ARRAY(a, InSym, nin + 1);
    int nlocal = 0, nglobal = 0;
    size_t strbytes = 1;
    for (int i = 1; i < nin && !l->why; i++) {
        InSym *x = &syms[i];
        memcpy(&x->s, l->in + sh[symtab].sh_offset + (size_t)i * sizeof(Elf64_Sym), sizeof x->s);
        x->name = in_str(l, strtab, x->s.st_name);
        int bind = ELF64_ST_BIND(x->s.st_info), type = ELF64_ST_TYPE(x->s.st_info), vis = x->s.st_other & 3;
        uint16_t ndx = x->s.st_shndx;
        bool in_sec = ndx == text || ndx == rodata;
        if (!x->name)
            refuse(l, "a symbol name is not in the string table");
        else if ((x->s.st_other & ~3) || (bind == STB_LOCAL) != (i < (int)sh[symtab].sh_info))
            refuse(l, "a malformed symbol");
        else if (type == STT_SECTION)
            ; /* not in the output; relocations against it resolve to the section */
        else if (cst && ndx == cst && bind == STB_LOCAL && strncmp(x->name, ".L", 2) == 0)
            ; /* a private constant: ld.lld drops .L symbols of merged sections */
        else if (bind == STB_LOCAL && (type == STT_NOTYPE || type == STT_OBJECT || type == STT_FUNC) &&
                 (ndx == SHN_ABS || in_sec) && vis == STV_DEFAULT)
            nlocal++, strbytes += strlen(x->name) + 1;
        else if (bind == STB_GLOBAL && ((ndx == text && type == STT_FUNC) || (ndx == rodata && type == STT_OBJECT)) &&
                 (vis == STV_DEFAULT || vis == STV_PROTECTED) && x->name[0])
            nglobal++, strbytes += strlen(x->name) + 1;
        else
            refuse(l, ndx == SHN_UNDEF ? "an undefined symbol" : "a symbol the in-process linker does not handle");
    }
    if (!l->why && nglobal == 0)
        refuse(l, "no kernel symbols");
    if (l->why) {
        *why = l->why;
        return false;
    }

    /* ---- layout (ld.lld's) ---- */
    enum { S_NULL, S_NOTE, S_DYNSYM, S_GNUHASH, S_HASH, S_DYNSTR, S_RODATA, S_TEXT, S_DYNAMIC, S_RELRO, S_EXTRA };
    int nout = S_EXTRA + nextra + 4; /* + .comment .symtab .shstrtab .strtab */
    int s_comment = S_EXTRA + nextra, s_symtab = s_comment + 1, s_shstrtab = s_comment + 2, s_strtab = s_comment + 3;
    Elf64_Shdr *os = ARENA_ARRAY(a, Elf64_Shdr, nout);
    const char **oname = ARENA_ARRAY(a, const char *, nout);

    /* the dynamic symbols: the globals, sorted as ld.lld's .gnu.hash wants them */
    int ndyn = nglobal + 1;
    OutSym *dyn = ARENA_ARRAY(a, OutSym, ndyn);
    uint32_t *ghash = ARENA_ARRAY(a, uint32_t, ndyn);
    Strs dynstr;
    strs_init(&dynstr, a, (size_t)ndyn, strbytes);
    uint32_t nbuckets = nglobal / 4 > 1 ? (uint32_t)nglobal / 4 : 1;
    for (int i = 1, k = 1; i < nin; i++) {
        if (ELF64_ST_BIND(syms[i].s.st_info) != STB_GLOBAL)
            continue;
        dyn[k].name = syms[i].name;
        dyn[k].s = syms[i].s;
        dyn[k].str = strs_add(&dynstr, syms[i].name);
        ghash[k] = hash_gnu(syms[i].name);
        k++;
    }
    /* insertion sort by (bucket, .dynstr offset): stable, and the lists are short */
    for (int i = 2; i < ndyn; i++) {
        OutSym x = dyn[i];
        uint32_t h = ghash[i];
        int j = i - 1;
        while (j >= 1 && (ghash[j] % nbuckets > h % nbuckets ||
                          (ghash[j] % nbuckets == h % nbuckets && dyn[j].str > x.str))) {
            dyn[j + 1] = dyn[j];
            ghash[j + 1] = ghash[j];
            j--;
        }
        dyn[j + 1] = x;
        ghash[j + 1] = h;
    }
    uint64_t maskwords = next_pow2((uint64_t)nglobal * 12 / 64);
    uint64_t gnuhash_size = 16 + 8 * maskwords + 4 * (uint64_t)nbuckets + 4 * (uint64_t)nglobal;
    uint64_t hash_size = 4 * (2 + 2 * (uint64_t)ndyn);

    /* the output .rodata: the input's, then the constant at its alignment */
    uint64_t cst_off = cst ? align_to(sh[rodata].sh_size, sh[cst].sh_addralign) : sh[rodata].sh_size;
    uint64_t rodata_size = cst ? cst_off + sh[cst].sh_size : sh[rodata].sh_size;
    uint64_t rodata_align = cst && sh[cst].sh_addralign > sh[rodata].sh_addralign ? sh[cst].sh_addralign
                                                                                   : sh[rodata].sh_addralign;

    /* allocated sections, in order */
    uint64_t off = sizeof(Elf64_Ehdr) + NPHDR * sizeof(Elf64_Phdr);
    struct {
        int idx;
        uint32_t type;
        uint64_t flags, size, align, entsize;
        uint32_t link, info;
        const char *name;
    } alloc[] = {
        {S_NOTE, SHT_NOTE, sh[note].sh_flags, sh[note].sh_size, sh[note].sh_addralign, sh[note].sh_entsize, 0, 0,
         ".note"},
        {S_DYNSYM, SHT_DYNSYM, SHF_ALLOC, (uint64_t)ndyn * sizeof(Elf64_Sym), 8, sizeof(Elf64_Sym), S_DYNSTR, 1,
         ".dynsym"},
        {S_GNUHASH, SHT_GNU_HASH, SHF_ALLOC, gnuhash_size, 8, 0, S_DYNSYM, 0, ".gnu.hash"},
        {S_HASH, SHT_HASH, SHF_ALLOC, hash_size, 4, 4, S_DYNSYM, 0, ".hash"},
        {S_DYNSTR, SHT_STRTAB, SHF_ALLOC, dynstr.n, 1, 0, 0, 0, ".dynstr"},
        {S_RODATA, SHT_PROGBITS, sh[rodata].sh_flags | (cst ? sh[cst].sh_flags : 0), rodata_size, rodata_align,
         sh[rodata].sh_entsize, 0, 0, ".rodata"},
        {S_TEXT, SHT_PROGBITS, sh[text].sh_flags, sh[text].sh_size, sh[text].sh_addralign, sh[text].sh_entsize, 0, 0,
         ".text"},
        {S_DYNAMIC, SHT_DYNAMIC, SHF_ALLOC | SHF_WRITE, 7 * sizeof(Elf64_Dyn), 8, sizeof(Elf64_Dyn), S_DYNSTR, 0,
         ".dynamic"},
    };
    uint64_t va = off;
    for (size_t i = 0; i < sizeof alloc / sizeof alloc[0]; i++) {
        int idx = alloc[i].idx;
        if (idx == S_TEXT || idx == S_DYNAMIC) {
            /* the first section of a new PT_LOAD: the next page, at the same offset in it */
            va = align_to(va, PAGE) + va % PAGE;
            va = align_to(va, alloc[i].align);
            off = align_skew(off, PAGE, va);
        } else {
            va = align_to(va, alloc[i].align);
            off = va; /* the first PT_LOAD starts at offset 0, address 0 */
        }
        os[idx] = (Elf64_Shdr){0, alloc[i].type, alloc[i].flags, va, off, alloc[i].size, alloc[i].link,
                               alloc[i].info, alloc[i].align, alloc[i].entsize};
        oname[idx] = alloc[i].name;
        va += alloc[i].size;
        off += alloc[i].size;
    }
    uint64_t relro_pad = align_to(va, PAGE) - va;
    os[S_RELRO] = (Elf64_Shdr){0, SHT_NOBITS, SHF_ALLOC | SHF_WRITE, va, off, relro_pad, 0, 0, 1, 0};
    oname[S_RELRO] = ".relro_padding";

    /* .symtab: null, the input's locals, _DYNAMIC, the globals; .strtab in ld.lld's insertion order
     * (locals, globals, then _DYNAMIC, which ld.lld adds last and sorts among the locals) */
    int nsym = 1 + nlocal + 1 + nglobal;
    OutSym *sym = ARENA_ARRAY(a, OutSym, nsym);
    Strs strs;
    strs_init(&strs, a, (size_t)nsym, strbytes + sizeof "_DYNAMIC");
    int k = 1;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 1; i < nin; i++) {
            const Elf64_Sym *s = &syms[i].s;
            if (ELF64_ST_TYPE(s->st_info) == STT_SECTION || (ELF64_ST_BIND(s->st_info) == STB_GLOBAL) != pass ||
                (cst && s->st_shndx == cst))
                continue;
            int at = pass ? k + 1 : k; /* leave the slot of _DYNAMIC */
            sym[at].name = syms[i].name;
            sym[at].s = *s;
            sym[at].str = strs_add(&strs, syms[i].name);
            k++;
        }
    int s_dynamic_sym = 1 + nlocal;
    sym[s_dynamic_sym] = (OutSym){"_DYNAMIC", strs_add(&strs, "_DYNAMIC"),
                                  {0, ELF64_ST_INFO(STB_LOCAL, STT_NOTYPE), STV_HIDDEN, S_DYNAMIC,
                                   os[S_DYNAMIC].sh_addr, 0}};
    for (int i = 1; i < nsym; i++) {
        Elf64_Sym *s = &sym[i].s;
        if (i == s_dynamic_sym)
            continue;
        s->st_name = sym[i].str;
        if (s->st_shndx == text || s->st_shndx == rodata) {
            int o = s->st_shndx == text ? S_TEXT : S_RODATA;
            s->st_value += os[o].sh_addr;
            s->st_shndx = (uint16_t)o;
        }
    }
    sym[s_dynamic_sym].s.st_name = sym[s_dynamic_sym].str;
    for (int i = 1; i < ndyn; i++) {
        Elf64_Sym *s = &dyn[i].s;
        s->st_name = dyn[i].str;
        int o = s->st_shndx == text ? S_TEXT : S_RODATA;
        s->st_value += os[o].sh_addr;
        s->st_shndx = (uint16_t)o;
    }

    /* non-allocated sections */
    for (int i = 0; i < nextra; i++) {
        const Elf64_Shdr *s = &sh[extra[i]];
        off = align_to(off, s->sh_addralign);
        os[S_EXTRA + i] = (Elf64_Shdr){0, s->sh_type, 0, 0, off, s->sh_size, 0, 0, s->sh_addralign, s->sh_entsize};
        oname[S_EXTRA + i] = in_str(l, &sh[eh.e_shstrndx], s->sh_name);
        off += s->sh_size;
    }
    os[s_comment] = (Elf64_Shdr){0, SHT_PROGBITS, SHF_MERGE | SHF_STRINGS, 0, off, sizeof comment_text, 0, 0, 1, 1};
    oname[s_comment] = ".comment";
    off += sizeof comment_text;
    off = align_to(off, 8);
    os[s_symtab] = (Elf64_Shdr){0, SHT_SYMTAB, 0, 0, off, (uint64_t)nsym * sizeof(Elf64_Sym), (Elf64_Word)s_strtab,
                                (Elf64_Word)(nlocal + 2), 8, sizeof(Elf64_Sym)};
    oname[s_symtab] = ".symtab";
    off += os[s_symtab].sh_size;
    oname[s_shstrtab] = ".shstrtab";
    oname[s_strtab] = ".strtab";
    Strs shstr;
    size_t shbytes = 1;
    for (int i = 1; i < nout; i++)
        shbytes += strlen(oname[i]) + 1;
    strs_init(&shstr, a, (size_t)nout, shbytes);
    for (int i = 1; i < nout; i++)
        os[i].sh_name = strs_add(&shstr, oname[i]);
    os[s_shstrtab] = (Elf64_Shdr){os[s_shstrtab].sh_name, SHT_STRTAB, 0, 0, off, shstr.n, 0, 0, 1, 0};
    off += shstr.n;
    os[s_strtab] = (Elf64_Shdr){os[s_strtab].sh_name, SHT_STRTAB, 0, 0, off, strs.n, 0, 0, 1, 0};
    off += strs.n;
    uint64_t shoff = align_to(off, 8);
    uint64_t total = shoff + (uint64_t)nout * sizeof(Elf64_Shdr);

    /* ---- contents ---- */
    unsigned char *out = arena_alloc(a, total);
    if (!out) {
        *why = "out of memory";
        return false;
    }
    Elf64_Ehdr oh = eh;
    oh.e_type = ET_DYN;
    oh.e_entry = 0;
    oh.e_phoff = sizeof(Elf64_Ehdr);
    oh.e_shoff = shoff;
    oh.e_ehsize = sizeof(Elf64_Ehdr);
    oh.e_phentsize = sizeof(Elf64_Phdr);
    oh.e_phnum = NPHDR;
    oh.e_shentsize = sizeof(Elf64_Shdr);
    oh.e_shnum = (Elf64_Half)nout;
    oh.e_shstrndx = (Elf64_Half)s_shstrtab;
    memcpy(out, &oh, sizeof oh);
    const Elf64_Shdr *dy = &os[S_DYNAMIC], *tx = &os[S_TEXT], *nt = &os[S_NOTE];
    uint64_t rend = os[S_RODATA].sh_addr + os[S_RODATA].sh_size;
    Elf64_Phdr ph[NPHDR] = {
        {PT_PHDR, PF_R, sizeof(Elf64_Ehdr), sizeof(Elf64_Ehdr), sizeof(Elf64_Ehdr), NPHDR * sizeof(Elf64_Phdr),
         NPHDR * sizeof(Elf64_Phdr), 8},
        {PT_LOAD, PF_R, 0, 0, 0, rend, rend, PAGE},
        {PT_LOAD, PF_R | PF_X, tx->sh_offset, tx->sh_addr, tx->sh_addr, tx->sh_size, tx->sh_size, PAGE},
        {PT_LOAD, PF_R | PF_W, dy->sh_offset, dy->sh_addr, dy->sh_addr, dy->sh_size, dy->sh_size + relro_pad, PAGE},
        {PT_DYNAMIC, PF_R | PF_W, dy->sh_offset, dy->sh_addr, dy->sh_addr, dy->sh_size, dy->sh_size, 8},
        {PT_GNU_RELRO, PF_R, dy->sh_offset, dy->sh_addr, dy->sh_addr, dy->sh_size, dy->sh_size + relro_pad, 1},
        {PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 0, 0},
        {PT_NOTE, PF_R, nt->sh_offset, nt->sh_addr, nt->sh_addr, nt->sh_size, nt->sh_size, nt->sh_addralign},
    };
    memcpy(out + sizeof oh, ph, sizeof ph);
    memcpy(out + nt->sh_offset, l->in + sh[note].sh_offset, nt->sh_size);
    memcpy(out + tx->sh_offset, l->in + sh[text].sh_offset, tx->sh_size);
    memcpy(out + os[S_RODATA].sh_offset, l->in + sh[rodata].sh_offset, sh[rodata].sh_size);
    if (cst)
        memcpy(out + os[S_RODATA].sh_offset + cst_off, l->in + sh[cst].sh_offset, sh[cst].sh_size);
    for (int i = 0; i < nextra; i++)
        memcpy(out + os[S_EXTRA + i].sh_offset, l->in + sh[extra[i]].sh_offset, os[S_EXTRA + i].sh_size);
    memcpy(out + os[s_comment].sh_offset, comment_text, sizeof comment_text);
    for (int i = 1; i < ndyn; i++)
        memcpy(out + os[S_DYNSYM].sh_offset + (size_t)i * sizeof(Elf64_Sym), &dyn[i].s, sizeof(Elf64_Sym));
    for (int i = 1; i < nsym; i++)
        memcpy(out + os[s_symtab].sh_offset + (size_t)i * sizeof(Elf64_Sym), &sym[i].s, sizeof(Elf64_Sym));
    memcpy(out + os[S_DYNSTR].sh_offset, dynstr.buf, dynstr.n);
    memcpy(out + os[s_strtab].sh_offset, strs.buf, strs.n);
    memcpy(out + os[s_shstrtab].sh_offset, shstr.buf, shstr.n);
    memcpy(out + shoff, os, sizeof(Elf64_Shdr) * (size_t)nout);

    /* .gnu.hash: header, bloom filter, buckets, hash values (the last of each chain with bit 0 set) */
    unsigned char *g = out + os[S_GNUHASH].sh_offset;
    uint32_t head[4] = {nbuckets, 1, (uint32_t)maskwords, SHIFT2};
    memcpy(g, head, sizeof head);
    uint64_t *bloom = ARENA_ARRAY(a, uint64_t, maskwords);
    uint32_t *buckets = ARENA_ARRAY(a, uint32_t, nbuckets);
    uint32_t *values = ARENA_ARRAY(a, uint32_t, ndyn);
    for (int i = 1; i < ndyn; i++) {
        uint32_t h = ghash[i];
        bloom[(h / 64) & (maskwords - 1)] |= (uint64_t)1 << (h % 64) | (uint64_t)1 << ((h >> SHIFT2) % 64);
        bool last = i + 1 == ndyn || ghash[i + 1] % nbuckets != h % nbuckets;
        values[i - 1] = last ? h | 1 : h & ~1u;
        if (i == 1 || ghash[i - 1] % nbuckets != h % nbuckets)
            buckets[h % nbuckets] = (uint32_t)i;
    }
    memcpy(g + 16, bloom, 8 * maskwords);
    memcpy(g + 16 + 8 * maskwords, buckets, 4 * (size_t)nbuckets);
    memcpy(g + 16 + 8 * maskwords + 4 * nbuckets, values, 4 * (size_t)nglobal);

    /* .hash: as many buckets as symbols, chains through the dynamic symbol table */
    uint32_t *hs = ARENA_ARRAY(a, uint32_t, 2 + 2 * (size_t)ndyn);
    hs[0] = hs[1] = (uint32_t)ndyn;
    for (int i = 1; i < ndyn; i++) {
        uint32_t b = hash_sysv(dyn[i].name) % (uint32_t)ndyn;
        hs[2 + ndyn + i] = hs[2 + b];
        hs[2 + b] = (uint32_t)i;
    }
    memcpy(out + os[S_HASH].sh_offset, hs, hash_size);

    Elf64_Dyn dt[7] = {
        {DT_SYMTAB, {os[S_DYNSYM].sh_addr}}, {DT_SYMENT, {sizeof(Elf64_Sym)}},
        {DT_STRTAB, {os[S_DYNSTR].sh_addr}}, {DT_STRSZ, {dynstr.n}},
        {DT_GNU_HASH, {os[S_GNUHASH].sh_addr}}, {DT_HASH, {os[S_HASH].sh_addr}},
        {DT_NULL, {0}},
    };
    memcpy(out + dy->sh_offset, dt, sizeof dt);

    /* relocations: R_AMDGPU_REL64 in .rodata, resolved here (S + A - P); nothing is left to the loader */
    int nrel = rela ? (int)(sh[rela].sh_size / sizeof(Elf64_Rela)) : 0;
    for (int i = 0; i < nrel; i++) {
        Elf64_Rela r = rela_at(l, &sh[rela], i);
        uint32_t type = (uint32_t)ELF64_R_TYPE(r.r_info), si = (uint32_t)ELF64_R_SYM(r.r_info);
        if (type == R_AMDGPU_NONE_)
            continue;
        if (type != R_AMDGPU_REL64_ || si == 0 || si >= (uint32_t)nin || r.r_offset > sh[rodata].sh_size ||
            sh[rodata].sh_size - r.r_offset < 8) {
            *why = "a relocation the in-process linker does not handle";
            return false;
        }
        const Elf64_Sym *s = &syms[si].s;
        uint64_t target;
        if (s->st_shndx == text)
            target = os[S_TEXT].sh_addr;
        else if (s->st_shndx == rodata)
            target = os[S_RODATA].sh_addr;
        else {
            *why = "a relocation against a symbol outside .text and .rodata";
            return false;
        }
        target += (ELF64_ST_TYPE(s->st_info) == STT_SECTION ? 0 : s->st_value) + (uint64_t)r.r_addend;
        uint64_t v = target - (os[S_RODATA].sh_addr + r.r_offset);
        memcpy(out + os[S_RODATA].sh_offset + r.r_offset, &v, 8);
    }
    /* R_AMDGPU_REL32_LO/HI in .text against the constant: the halves of S + A - P */
    int ntrel = rela_text ? (int)(sh[rela_text].sh_size / sizeof(Elf64_Rela)) : 0;
    for (int i = 0; i < ntrel; i++) {
        Elf64_Rela r = rela_at(l, &sh[rela_text], i);
        uint32_t type = (uint32_t)ELF64_R_TYPE(r.r_info), si = (uint32_t)ELF64_R_SYM(r.r_info);
        if (type == R_AMDGPU_NONE_)
            continue;
        if ((type != R_AMDGPU_REL32_LO_ && type != R_AMDGPU_REL32_HI_) || si == 0 || si >= (uint32_t)nin ||
            r.r_offset > sh[text].sh_size || sh[text].sh_size - r.r_offset < 4 || !cst ||
            syms[si].s.st_shndx != cst) {
            *why = "a relocation in .text the in-process linker does not handle";
            return false;
        }
        const Elf64_Sym *s = &syms[si].s;
        uint64_t target = os[S_RODATA].sh_addr + cst_off + (ELF64_ST_TYPE(s->st_info) == STT_SECTION ? 0 : s->st_value) +
                          (uint64_t)r.r_addend;
        uint64_t v = target - (os[S_TEXT].sh_addr + r.r_offset);
        uint32_t half = type == R_AMDGPU_REL32_LO_ ? (uint32_t)v : (uint32_t)(v >> 32);
        memcpy(out + os[S_TEXT].sh_offset + r.r_offset, &half, 4);
    }
    *bin = out;
    *bin_size = total;
    return true;
}
