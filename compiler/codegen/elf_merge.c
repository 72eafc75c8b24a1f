/* Merging AMDGPU relocatable objects into one, so that kernels compiled in separate LLVM modules (on
 * separate threads) make one code object.
 *
 * ld.lld cannot do this for us: each object carries an NT_AMDGPU_METADATA note listing its kernels,
 * ld.lld concatenates the notes, and the loader reads only the first. So the objects are merged here
 * into the relocatable object one LLVM module holding every kernel would have been, which the
 * in-process linker (elf_link.c) or ld.lld then links as usual:
 *
 *   .text           the objects' code, each at the next 256-byte boundary (as LLVM aligns kernels)
 *   .rodata         their kernel descriptors, each at its alignment (64)
 *   .rodata.cst16   one 16-byte constant (the zeros masked-off lanes load), when the objects have it:
 *                   the same bytes in each, so one copy (what ld.lld's merging would keep)
 *   .rela.text, .rela.rodata   the relocations, their offsets moved with their section and their
 *                   symbols renumbered (a section symbol becomes the merged section's, its addend moved)
 *   .note           one note whose msgpack map is the first object's with the `amdhsa.kernels` arrays
 *                   of all objects concatenated (the other keys, amdhsa.target and amdhsa.version,
 *                   must be the same bytes in every object)
 *   .symtab         the locals of every object (the resource counts, absolute), then the globals
 *   .AMDGPU.gpr_maximums, .note.GNU-stack   empty, as LLVM emits them
 *
 * Anything else in an input (another section kind, a non-empty section it does not know, a symbol
 * defined twice) makes cg_elf_merge refuse with a reason; the caller then compiles the kernels in
 * one module instead. Every read is bounds-checked; inputs are read with memcpy. */
#include <elf.h>
#include <stdint.h>
#include <string.h>

#include "compiler/codegen/codegen.h"
#include "compiler/target/amdgpu/msgpack.h"
#include "support/strbuf.h"

enum { NT_AMDGPU_METADATA_ = 32 };

/* the sections of one input */
typedef struct In {
    const unsigned char *p;
    size_t size;
    Elf64_Ehdr eh;
    Elf64_Shdr *sh;
    int text, rodata, cst, note, symtab, rela_text, rela_rodata, gpr, stack;
    uint64_t text_at, rodata_at; /* where its sections start in the merged ones */
    uint32_t *sym_map;           /* input symbol index -> output index */
    uint64_t *sym_addend;        /* added to the addend of a relocation against it (section symbols) */
    int nsym;
} In;

static void pad_to(StrBuf *b, size_t align)
{
    static const unsigned char zeros[256];
    while (!b->oom && align > 1 && b->n % align) {
        size_t k = align - b->n % align;
        strbuf_put(b, zeros, k < sizeof zeros ? k : sizeof zeros);
    }
}

static uint32_t add_str(StrBuf *b, const char *s)
{
    uint32_t at = (uint32_t)b->n;
    strbuf_put(b, s, strlen(s) + 1);
    return at;
}

static bool in_range(const In *x, uint64_t off, uint64_t n) { return off <= x->size && n <= x->size - off; }

static const char *str_at(const In *x, int strsec, uint64_t off)
{
    const Elf64_Shdr *s = &x->sh[strsec];
    if (s->sh_type != SHT_STRTAB || off >= s->sh_size)
        return NULL;
    const char *p = (const char *)x->p + s->sh_offset + off;
    return memchr(p, 0, s->sh_size - off) ? p : NULL;
}

static Elf64_Sym sym_at(const In *x, int i)
{
    Elf64_Sym s;
    memcpy(&s, x->p + x->sh[x->symtab].sh_offset + (size_t)i * sizeof s, sizeof s);
    return s;
}

/* The bytes of x's .text that a following object's code may not overwrite: up to the end of its last
 * function rounded to 256 bytes, when all after that is LLVM's end-of-code padding (s_nop 0 on gfx9,
 * s_code_end later: it keeps the instruction prefetcher inside the code object and belongs once,
 * after the last kernel);
 * else all of it. */
static uint64_t text_kept(const In *x)
{
    const Elf64_Shdr *t = &x->sh[x->text];
    uint64_t end = 0;
    for (int j = 1; j < x->nsym; j++) {
        Elf64_Sym s = sym_at(x, j);
        if (s.st_shndx == x->text && ELF64_ST_TYPE(s.st_info) == STT_FUNC && s.st_value + s.st_size > end)
            end = s.st_value + s.st_size;
    }
    end = (end + 255) & ~(uint64_t)255;
    if (end >= t->sh_size)
        return t->sh_size;
    for (uint64_t o = end; o + 4 <= t->sh_size; o += 4) {
        uint32_t w;
        memcpy(&w, x->p + t->sh_offset + o, 4);
        if (w != 0xbf800000u && w != 0xbf9f0000u) /* s_nop 0 (gfx9), s_code_end (gfx10+) */
            return t->sh_size;
    }
    return end;
}

/* Finds the sections of one input; NULL or the reason it is refused. */
static const char *scan(Arena *a, In *x)
{
    if (x->size < sizeof x->eh)
        return "not an ELF object";
    memcpy(&x->eh, x->p, sizeof x->eh);
    const Elf64_Ehdr *eh = &x->eh;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_type != ET_REL || eh->e_machine != EM_AMDGPU ||
        eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 || eh->e_shstrndx >= eh->e_shnum ||
        !in_range(x, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
        return "not a 64-bit little-endian AMDGPU relocatable object";
    x->sh = ARENA_ARRAY(a, Elf64_Shdr, eh->e_shnum);
    if (!x->sh)
        return "out of memory";
    memcpy(x->sh, x->p + eh->e_shoff, sizeof(Elf64_Shdr) * eh->e_shnum);
    for (int i = 1; i < eh->e_shnum; i++) {
        const Elf64_Shdr *s = &x->sh[i];
        if (s->sh_type != SHT_NOBITS && !in_range(x, s->sh_offset, s->sh_size))
            return "a section lies outside the object";
        const char *name = str_at(x, eh->e_shstrndx, s->sh_name);
        if (!name)
            return "a section name is not in the section name table";
        if (s->sh_type == SHT_STRTAB)
            continue;
        int *slot = NULL;
        if (s->sh_type == SHT_PROGBITS && strcmp(name, ".text") == 0 && s->sh_flags == (SHF_ALLOC | SHF_EXECINSTR))
            slot = &x->text;
        else if (s->sh_type == SHT_PROGBITS && strcmp(name, ".rodata") == 0 && s->sh_flags == SHF_ALLOC)
            slot = &x->rodata;
        else if (s->sh_type == SHT_PROGBITS && strcmp(name, ".rodata.cst16") == 0 &&
                 s->sh_flags == (SHF_ALLOC | SHF_MERGE) && s->sh_entsize == 16 && s->sh_size == 16 &&
                 s->sh_addralign == 16)
            slot = &x->cst;
        else if (s->sh_type == SHT_NOTE && strcmp(name, ".note") == 0 && s->sh_flags == SHF_ALLOC)
            slot = &x->note;
        else if (s->sh_type == SHT_SYMTAB)
            slot = &x->symtab;
        else if (s->sh_type == SHT_RELA && strcmp(name, ".rela.text") == 0)
            slot = &x->rela_text;
        else if (s->sh_type == SHT_RELA && strcmp(name, ".rela.rodata") == 0)
            slot = &x->rela_rodata;
        else if (s->sh_type == SHT_PROGBITS && strcmp(name, ".AMDGPU.gpr_maximums") == 0 && s->sh_size == 0 &&
                 s->sh_flags == 0)
            slot = &x->gpr;
        else if (s->sh_type == SHT_PROGBITS && strcmp(name, ".note.GNU-stack") == 0 && s->sh_size == 0 &&
                 s->sh_flags == 0)
            slot = &x->stack;
        if (!slot || *slot)
            return "a section the object merger does not handle";
        *slot = i;
    }
    if (!x->text || !x->rodata || !x->note || !x->symtab)
        return "no .text, .rodata, .note or .symtab";
    const Elf64_Shdr *st = &x->sh[x->symtab];
    if (st->sh_entsize != sizeof(Elf64_Sym) || st->sh_size % sizeof(Elf64_Sym) || st->sh_link >= eh->e_shnum ||
        st->sh_info > st->sh_size / sizeof(Elf64_Sym))
        return "a malformed symbol table";
    int rel[2] = {x->rela_text, x->rela_rodata}, target[2] = {x->text, x->rodata};
    for (int k = 0; k < 2; k++)
        if (rel[k] && (x->sh[rel[k]].sh_info != (Elf64_Word)target[k] ||
                       x->sh[rel[k]].sh_link != (Elf64_Word)x->symtab ||
                       x->sh[rel[k]].sh_entsize != sizeof(Elf64_Rela) || x->sh[rel[k]].sh_size % sizeof(Elf64_Rela)))
            return "malformed relocations";
    x->nsym = (int)(st->sh_size / sizeof(Elf64_Sym));
    x->sym_map = ARENA_ARRAY(a, uint32_t, x->nsym + 1);
    x->sym_addend = ARENA_ARRAY(a, uint64_t, x->nsym + 1);
    return x->sym_map && x->sym_addend ? NULL : "out of memory";
}

/* The note's msgpack map: the byte range of its `amdhsa.kernels` elements, and of everything else. */
typedef struct Meta {
    const unsigned char *desc;
    uint32_t desc_size;
    uint32_t npairs;
    size_t kernels_key, kernels_val, kernels_end; /* offsets: the key, the array header, past the array */
    const unsigned char *elems;
    size_t elems_size;
    uint32_t nelems;
} Meta;

static const char *read_meta(const In *x, Meta *m)
{
    const Elf64_Shdr *s = &x->sh[x->note];
    Elf64_Nhdr nh;
    if (s->sh_size < sizeof nh)
        return "an empty note";
    memcpy(&nh, x->p + s->sh_offset, sizeof nh);
    uint64_t name_at = sizeof nh, desc_at = name_at + ((nh.n_namesz + 3u) & ~3u);
    if (nh.n_type != NT_AMDGPU_METADATA_ || nh.n_namesz != 7 || desc_at + ((nh.n_descsz + 3u) & ~3u) != s->sh_size ||
        memcmp(x->p + s->sh_offset + name_at, "AMDGPU", 7) != 0)
        return "a note other than one AMDGPU metadata note";
    m->desc = x->p + s->sh_offset + desc_at;
    m->desc_size = nh.n_descsz;
    Mp mp;
    msgpack_init(&mp, m->desc, m->desc_size);
    MpVal v;
    if (!msgpack_read(&mp, &v) || v.type != MP_MAP)
        return "the metadata is not a map";
    m->npairs = v.n;
    bool found = false;
    for (uint32_t i = 0; i < m->npairs; i++) {
        size_t key_at = msgpack_offset(&mp);
        MpVal k;
        if (!msgpack_read(&mp, &k))
            return "malformed metadata";
        if (msgpack_str_eq(&k, "amdhsa.kernels")) {
            m->kernels_key = key_at;
            m->kernels_val = msgpack_offset(&mp);
            MpVal arr;
            if (!msgpack_read(&mp, &arr) || arr.type != MP_ARRAY)
                return "amdhsa.kernels is not an array";
            size_t first = msgpack_offset(&mp);
            for (uint32_t e = 0; e < arr.n; e++)
                if (!msgpack_skip(&mp))
                    return "malformed metadata";
            m->kernels_end = msgpack_offset(&mp);
            m->elems = m->desc + first;
            m->elems_size = m->kernels_end - first;
            m->nelems = arr.n;
            found = true;
        } else if (!msgpack_skip(&mp)) {
            return "malformed metadata";
        }
    }
    if (!found || msgpack_offset(&mp) != m->desc_size)
        return "no amdhsa.kernels in the metadata";
    return NULL;
}

static void put_be(StrBuf *b, uint64_t v, int bytes)
{
    unsigned char c[8];
    for (int i = 0; i < bytes; i++)
        c[i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
    strbuf_put(b, c, (size_t)bytes);
}

/* the merged note: the first map with every object's kernels in its array */
static const char *merge_notes(Arena *a, In *xs, int n, StrBuf *note)
{
    Meta *ms = ARENA_ARRAY(a, Meta, n);
    if (!ms)
        return "out of memory";
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        const char *why = read_meta(&xs[i], &ms[i]);
        if (why)
            return why;
        /* everything but the kernels must be the same bytes (target, version, key order) */
        if (i > 0 && (ms[i].kernels_val != ms[0].kernels_val ||
                      memcmp(ms[i].desc, ms[0].desc, ms[0].kernels_val) != 0 ||
                      ms[i].desc_size - ms[i].kernels_end != ms[0].desc_size - ms[0].kernels_end ||
                      memcmp(ms[i].desc + ms[i].kernels_end, ms[0].desc + ms[0].kernels_end,
                             ms[0].desc_size - ms[0].kernels_end) != 0))
            return "objects for different targets";
        total += ms[i].nelems;
    }
    StrBuf desc = {.a = a};
    strbuf_put(&desc, ms[0].desc, ms[0].kernels_val);
    if (total < 16) {
        unsigned char h = (unsigned char)(0x90 | total);
        strbuf_put(&desc, &h, 1);
    } else if (total <= 0xffff) {
        unsigned char h = 0xdc;
        strbuf_put(&desc, &h, 1);
        put_be(&desc, total, 2);
    } else {
        unsigned char h = 0xdd;
        strbuf_put(&desc, &h, 1);
        put_be(&desc, total, 4);
    }
    for (int i = 0; i < n; i++)
        strbuf_put(&desc, ms[i].elems, ms[i].elems_size);
    strbuf_put(&desc, ms[0].desc + ms[0].kernels_end, ms[0].desc_size - ms[0].kernels_end);
    if (desc.oom || desc.n > UINT32_MAX)
        return "out of memory";
    Elf64_Nhdr nh = {7, (Elf64_Word)desc.n, NT_AMDGPU_METADATA_};
    strbuf_put(note, &nh, sizeof nh);
    strbuf_put(note, "AMDGPU\0", 8);
    strbuf_put(note, desc.p, desc.n);
    pad_to(note, 4);
    return note->oom ? "out of memory" : NULL;
}

enum { O_NULL, O_TEXT, O_RELA_TEXT, O_RODATA, O_RELA_RODATA, O_GPR, O_CST, O_STACK, O_NOTE, O_SYMTAB, O_STRTAB, O_N };

bool cg_elf_merge(const void *const *objs, const size_t *sizes, int n, Arena *a, void **out, size_t *out_size,
                  const char **why)
{
    *out = NULL;
    *out_size = 0;
    *why = NULL;
    In *xs = ARENA_ARRAY(a, In, n > 0 ? n : 1);
    if (!xs) {
        *why = "out of memory";
        return false;
    }
    bool any_cst = false, any_gpr = false, any_stack = false;
    for (int i = 0; i < n && !*why; i++) {
        xs[i].p = objs[i];
        xs[i].size = sizes[i];
        *why = scan(a, &xs[i]);
        if (!*why && i > 0 && memcmp(xs[i].eh.e_ident, xs[0].eh.e_ident, EI_NIDENT) != 0)
            *why = "objects of different ELF kinds";
        if (!*why && i > 0 && xs[i].eh.e_flags != xs[0].eh.e_flags)
            *why = "objects for different processors";
        if (!*why && xs[i].cst) {
            if (any_cst) {
                int c0 = 0;
                while (!xs[c0].cst)
                    c0++;
                if (memcmp(xs[i].p + xs[i].sh[xs[i].cst].sh_offset, xs[c0].p + xs[c0].sh[xs[c0].cst].sh_offset, 16))
                    *why = "different 16-byte constants";
            }
            any_cst = true;
        }
        if (!*why) {
            any_gpr |= xs[i].gpr != 0;
            any_stack |= xs[i].stack != 0;
        }
    }
    if (!*why && n < 1)
        *why = "no objects";
    if (*why)
        return false;

    /* contents of the merged sections */
    StrBuf text = {.a = a}, rodata = {.a = a}, note = {.a = a};
    uint64_t text_align = 1, rodata_align = 1;
    for (int i = 0; i < n; i++) {
        In *x = &xs[i];
        const Elf64_Shdr *t = &x->sh[x->text], *r = &x->sh[x->rodata];
        uint64_t ta = t->sh_addralign > 256 ? t->sh_addralign : 256, ra = r->sh_addralign ? r->sh_addralign : 1;
        text_align = ta > text_align ? ta : text_align;
        rodata_align = ra > rodata_align ? ra : rodata_align;
        pad_to(&text, ta);
        x->text_at = text.n;
        strbuf_put(&text, x->p + t->sh_offset, i + 1 < n ? text_kept(x) : t->sh_size);
        pad_to(&rodata, ra);
        x->rodata_at = rodata.n;
        strbuf_put(&rodata, x->p + r->sh_offset, r->sh_size);
    }
    *why = merge_notes(a, xs, n, &note);
    if (*why)
        return false;

    /* symbols: null, the merged sections' own, every input's locals, then every input's globals */
    StrBuf syms = {.a = a}, strs = {.a = a};
    strbuf_put(&strs, "", 1);
    Elf64_Sym null_sym = {0};
    strbuf_put(&syms, &null_sym, sizeof null_sym);
    uint32_t nout = 1, nlocal = 1, sec_sym[O_N] = {0};
    uint32_t cst_sym = 0; /* the constant's .L symbol, kept once */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < n && !*why; i++) {
            In *x = &xs[i];
            int strsec = (int)x->sh[x->symtab].sh_link;
            for (int j = 1; j < x->nsym && !*why; j++) {
                Elf64_Sym s = sym_at(x, j);
                int bind = ELF64_ST_BIND(s.st_info), type = ELF64_ST_TYPE(s.st_info);
                if ((bind == STB_LOCAL) != (pass == 0))
                    continue;
                if (bind != STB_LOCAL && bind != STB_GLOBAL) {
                    *why = "a weak or unknown symbol binding";
                    break;
                }
                uint16_t ndx = s.st_shndx;
                uint64_t base = 0;
                int osec;
                if (ndx == SHN_ABS)
                    osec = SHN_ABS;
                else if (ndx == x->text)
                    osec = O_TEXT, base = x->text_at;
                else if (ndx == x->rodata)
                    osec = O_RODATA, base = x->rodata_at;
                else if (ndx == x->cst && x->cst)
                    osec = O_CST;
                else {
                    *why = ndx == SHN_UNDEF ? "an undefined symbol" : "a symbol in a section the merger does not handle";
                    break;
                }
                if (type == STT_SECTION) {
                    if (osec == SHN_ABS) {
                        *why = "an absolute section symbol";
                        break;
                    }
                    if (!sec_sym[osec]) { /* the merged section's own, made when first needed */
                        Elf64_Sym ss = {0, ELF64_ST_INFO(STB_LOCAL, STT_SECTION), STV_DEFAULT, (Elf64_Half)osec, 0, 0};
                        strbuf_put(&syms, &ss, sizeof ss);
                        sec_sym[osec] = nout++;
                    }
                    x->sym_map[j] = sec_sym[osec];
                    x->sym_addend[j] = base;
                    continue;
                }
                const char *name = str_at(x, strsec, s.st_name);
                if (!name) {
                    *why = "a symbol name is not in the string table";
                    break;
                }
                if (osec == O_CST && cst_sym) {
                    x->sym_map[j] = cst_sym; /* the same constant */
                    continue;
                }
                s.st_name = add_str(&strs, name);
                s.st_value += base;
                s.st_shndx = (Elf64_Half)osec;
                strbuf_put(&syms, &s, sizeof s);
                x->sym_map[j] = nout;
                if (osec == O_CST)
                    cst_sym = nout;
                nout++;
            }
        }
        if (pass == 0)
            nlocal = nout; /* the globals follow */
    }
    if (*why)
        return false;
    /* a global name defined twice would resolve to either */
    for (uint32_t i = nlocal; i < nout; i++)
        for (uint32_t j = i + 1; j < nout; j++) {
            Elf64_Sym si, sj;
            memcpy(&si, syms.p + (size_t)i * sizeof si, sizeof si);
            memcpy(&sj, syms.p + (size_t)j * sizeof sj, sizeof sj);
            if (strcmp((const char *)strs.p + si.st_name, (const char *)strs.p + sj.st_name) == 0) {
                *why = "a global symbol defined in two objects";
                return false;
            }
        }

    /* relocations */
    StrBuf rela[2] = {{.a = a}, {.a = a}};
    for (int i = 0; i < n && !*why; i++) {
        In *x = &xs[i];
        int secs_in[2] = {x->rela_text, x->rela_rodata};
        uint64_t at[2] = {x->text_at, x->rodata_at};
        for (int k = 0; k < 2; k++) {
            if (!secs_in[k])
                continue;
            const Elf64_Shdr *rs = &x->sh[secs_in[k]];
            for (uint64_t o = 0; o < rs->sh_size; o += sizeof(Elf64_Rela)) {
                Elf64_Rela r;
                memcpy(&r, x->p + rs->sh_offset + o, sizeof r);
                uint32_t si = (uint32_t)ELF64_R_SYM(r.r_info);
                if (si == 0 || si >= (uint32_t)x->nsym || !x->sym_map[si]) {
                    *why = "a relocation against an unknown symbol";
                    break;
                }
                r.r_offset += at[k];
                r.r_addend += (int64_t)x->sym_addend[si];
                r.r_info = ELF64_R_INFO(x->sym_map[si], ELF64_R_TYPE(r.r_info));
                strbuf_put(&rela[k], &r, sizeof r);
            }
        }
    }
    if (*why)
        return false;

    /* section names live in .strtab, as LLVM writes them */
    static const char *const names[O_N] = {"",         ".text",           ".rela.text", ".rodata",
                                           ".rela.rodata", ".AMDGPU.gpr_maximums", ".rodata.cst16",
                                           ".note.GNU-stack", ".note",     ".symtab",     ".strtab"};
    uint32_t name_at[O_N];
    for (int k = 1; k < O_N; k++)
        name_at[k] = add_str(&strs, names[k]);

    const void *cst_bytes = NULL;
    for (int i = 0; i < n && !cst_bytes; i++)
        if (xs[i].cst)
            cst_bytes = xs[i].p + xs[i].sh[xs[i].cst].sh_offset;
    Elf64_Shdr sh[O_N];
    memset(sh, 0, sizeof sh);
    StrBuf o = {.a = a};
    Elf64_Ehdr eh = xs[0].eh;
    strbuf_put(&o, &eh, sizeof eh);
    struct {
        int idx;
        uint32_t type;
        uint64_t flags, align, entsize;
        const void *data;
        size_t size;
        bool present;
    } secs_out[] = {
        {O_TEXT, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, text_align, 0, text.p, text.n, true},
        {O_RELA_TEXT, SHT_RELA, SHF_INFO_LINK, 8, sizeof(Elf64_Rela), rela[0].p, rela[0].n, rela[0].n > 0},
        {O_RODATA, SHT_PROGBITS, SHF_ALLOC, rodata_align, 0, rodata.p, rodata.n, true},
        {O_RELA_RODATA, SHT_RELA, SHF_INFO_LINK, 8, sizeof(Elf64_Rela), rela[1].p, rela[1].n, rela[1].n > 0},
        {O_GPR, SHT_PROGBITS, 0, 1, 0, NULL, 0, any_gpr},
        {O_CST, SHT_PROGBITS, SHF_ALLOC | SHF_MERGE, 16, 16, cst_bytes, 16, any_cst},
        {O_STACK, SHT_PROGBITS, 0, 1, 0, NULL, 0, any_stack},
        {O_NOTE, SHT_NOTE, SHF_ALLOC, 4, 0, note.p, note.n, true},
        {O_SYMTAB, SHT_SYMTAB, 0, 8, sizeof(Elf64_Sym), syms.p, syms.n, true},
        {O_STRTAB, SHT_STRTAB, 0, 1, 0, strs.p, strs.n, true},
    };
    /* the sections present, numbered in this order */
    int num[O_N] = {0}, nsec = 1;
    for (size_t k = 0; k < sizeof secs_out / sizeof secs_out[0]; k++)
        if (secs_out[k].present)
            num[secs_out[k].idx] = nsec++;
    for (uint32_t i = 1; i < nout && !syms.oom; i++) { /* symbols were written with O_* section numbers */
        Elf64_Sym sy;
        memcpy(&sy, syms.p + (size_t)i * sizeof sy, sizeof sy);
        if (sy.st_shndx != SHN_ABS && sy.st_shndx < O_N)
            sy.st_shndx = (Elf64_Half)num[sy.st_shndx];
        memcpy(syms.p + (size_t)i * sizeof sy, &sy, sizeof sy);
    }
    for (size_t k = 0; k < sizeof secs_out / sizeof secs_out[0]; k++) {
        int idx = secs_out[k].idx;
        if (!secs_out[k].present)
            continue;
        pad_to(&o, secs_out[k].align);
        sh[num[idx]] = (Elf64_Shdr){name_at[idx], secs_out[k].type, secs_out[k].flags, 0, o.n, secs_out[k].size, 0,
                                    0, secs_out[k].align, secs_out[k].entsize};
        strbuf_put(&o, secs_out[k].data, secs_out[k].size);
    }
    if (num[O_RELA_TEXT])
        sh[num[O_RELA_TEXT]].sh_link = (Elf64_Word)num[O_SYMTAB], sh[num[O_RELA_TEXT]].sh_info = (Elf64_Word)num[O_TEXT];
    if (num[O_RELA_RODATA])
        sh[num[O_RELA_RODATA]].sh_link = (Elf64_Word)num[O_SYMTAB],
        sh[num[O_RELA_RODATA]].sh_info = (Elf64_Word)num[O_RODATA];
    sh[num[O_SYMTAB]].sh_link = (Elf64_Word)num[O_STRTAB];
    sh[num[O_SYMTAB]].sh_info = nlocal;
    pad_to(&o, 8);
    uint64_t shoff = o.n;
    strbuf_put(&o, sh, sizeof(Elf64_Shdr) * (size_t)nsec);
    if (o.oom || text.oom || rodata.oom || syms.oom || strs.oom || rela[0].oom || rela[1].oom) {
        *why = "out of memory";
        return false;
    }
    memcpy(&eh, o.p, sizeof eh);
    eh.e_shoff = shoff;
    eh.e_shnum = (Elf64_Half)nsec;
    eh.e_shstrndx = (Elf64_Half)num[O_STRTAB];
    memcpy(o.p, &eh, sizeof eh);
    *out = o.p;
    *out_size = o.n;
    return true;
}
