/* The instruction mix of one kernel: disassemble its code with LLVM's AMDGPU disassembler (through
 * the C API) and count instructions, MFMA by mnemonic, memory operations by width, waits, and the
 * size of the largest loop; then hand each loop's instructions to the cycle model (report_loop.c).
 * report.h says what each count means.
 *
 * Mnemonics come from LLVM's printer (what llvm-objdump shows), so a count matches what a user sees
 * when reading the ISA. Branch targets are decoded from the instruction word itself (SOPP: bits
 * 31:23 = 0x17f, target = pc + 4 + 4 * simm16), not parsed from the printed operand.
 * Thread safety: the target is registered once (codegen_init_llvm); each report_code_object call makes
 * its own disassembler context (0.1-0.3 ms, small next to the disassembly at about 1.5 us an
 * instruction, and to a compile), so nothing is cached and no lock is needed. */
#include <llvm-c/Disassembler.h>
#include <stdbool.h>
#include <string.h>

#include "compiler/codegen/codegen.h"
#include "report_int.h"

/* ---- memory operations ------------------------------------------------------------------------ */

static const struct {
    const char *prefix;
    int cls;
} mem_prefixes[] = {
    {"global_load_", MEM_GLOBAL_LOAD},   {"global_store_", MEM_GLOBAL_STORE},
    {"buffer_load_", MEM_BUFFER_LOAD},   {"buffer_store_", MEM_BUFFER_STORE},
    {"flat_load_", MEM_FLAT_LOAD},       {"flat_store_", MEM_FLAT_STORE},
    {"scratch_load_", MEM_SCRATCH_LOAD}, {"scratch_store_", MEM_SCRATCH_STORE},
    /* LDS: the next character must be '_' or '2' (ds_read2*), which keeps out ds_storexchg_* */
    {"ds_read", MEM_LDS_READ},           {"ds_load", MEM_LDS_READ},
    {"ds_write", MEM_LDS_WRITE},         {"ds_store", MEM_LDS_WRITE},
};

/* Element widths by the token that names them, GFX9 spelling first, then GFX10+ (b32, u8, ...). */
static const struct {
    const char *tok;
    int bits;
} width_tokens[] = {
    {"byte", 8},     {"ubyte", 8},   {"sbyte", 8},   {"u8", 8},     {"i8", 8},     {"b8", 8},
    {"short", 16},   {"ushort", 16}, {"sshort", 16}, {"u16", 16},   {"i16", 16},   {"b16", 16},
    {"dword", 32},   {"b32", 32},    {"dwordx2", 64}, {"b64", 64},  {"dwordx3", 96}, {"b96", 96},
    {"dwordx4", 128}, {"b128", 128},
};

static bool tok_eq(const char *t, size_t n, const char *s)
{
    return strlen(s) == n && memcmp(t, s, n) == 0;
}

/* Bits per lane named by the tokens of `rest` (the mnemonic after its class prefix, '_'-separated):
 * the first width token; format_<xyzw> = 32 bits per component, 16 with d16; d16 alone = 16; a
 * token starting with '2' (read2, read2st64, 2addr) doubles it. 0 when nothing names a width. */
static int parse_width(const char *rest)
{
    int bits = 0, mult = 1;
    bool d16 = false, format = false;
    int comps = 0;
    const char *t = rest;
    while (*t) {
        while (*t == '_')
            t++;
        size_t n = strcspn(t, "_");
        if (n == 0)
            break;
        if (t[0] == '2')
            mult = 2;
        else if (tok_eq(t, n, "d16"))
            d16 = true;
        else if (tok_eq(t, n, "format"))
            format = true;
        else if (format && n <= 4 && strspn(t, "xyzw") >= n)
            comps = (int)n;
        else if (!bits)
            for (size_t i = 0; i < sizeof width_tokens / sizeof width_tokens[0]; i++)
                if (tok_eq(t, n, width_tokens[i].tok)) {
                    bits = width_tokens[i].bits;
                    break;
                }
        t += n;
    }
    if (format)
        bits = comps * (d16 ? 16 : 32);
    else if (!bits && d16)
        bits = 16;
    return bits * mult;
}

int report_classify_memory(const char *mn, int *bits)
{
    *bits = 0;
    for (size_t i = 0; i < sizeof mem_prefixes / sizeof mem_prefixes[0]; i++) {
        size_t n = strlen(mem_prefixes[i].prefix);
        if (strncmp(mn, mem_prefixes[i].prefix, n) != 0)
            continue;
        if (mn[0] == 'd' && mn[n] != '_' && mn[n] != '2')
            continue;
        *bits = parse_width(mn + n);
        return mem_prefixes[i].cls;
    }
    return MEM_NONE;
}

static int width_index(int bits)
{
    switch (bits) {
    case 8: return W8;
    case 16: return W16;
    case 32: return W32;
    case 64: return W64;
    case 96: return W96;
    case 128: return W128;
    default: return -1;
    }
}

static int *mem_counts(KernelReport *k, int cls)
{
    switch (cls) {
    case MEM_GLOBAL_LOAD: return k->global_loads;
    case MEM_GLOBAL_STORE: return k->global_stores;
    case MEM_BUFFER_LOAD: return k->buffer_loads;
    case MEM_BUFFER_STORE: return k->buffer_stores;
    case MEM_FLAT_LOAD: return k->flat_loads;
    case MEM_FLAT_STORE: return k->flat_stores;
    case MEM_SCRATCH_LOAD: return k->scratch_loads;
    case MEM_SCRATCH_STORE: return k->scratch_stores;
    case MEM_LDS_READ: return k->lds_reads;
    case MEM_LDS_WRITE: return k->lds_writes;
    default: return NULL;
    }
}

/* ---- counting --------------------------------------------------------------------------------- */

static bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void count_mfma(KernelReport *k, const char *mn)
{
    k->mfma_total++;
    for (int i = 0; i < k->nmfma; i++)
        if (strcmp(k->mfma[i].mnemonic, mn) == 0) {
            k->mfma[i].count++;
            return;
        }
    if (k->nmfma == REPORT_MAX_MFMA_SHAPES)
        return;
    MfmaCount *m = &k->mfma[k->nmfma++];
    size_t n = strnlen(mn, sizeof m->mnemonic - 1);
    memcpy(m->mnemonic, mn, n);
    m->mnemonic[n] = 0;
    m->count = 1;
}

static void sort_mfma(KernelReport *k)
{
    for (int i = 1; i < k->nmfma; i++)
        for (int j = i; j > 0 && strcmp(k->mfma[j - 1].mnemonic, k->mfma[j].mnemonic) > 0; j--) {
            MfmaCount t = k->mfma[j];
            k->mfma[j] = k->mfma[j - 1];
            k->mfma[j - 1] = t;
        }
}

typedef struct Branch {
    int index;      /* instruction index of the branch */
    int64_t target; /* byte offset of its target from the kernel's start */
} Branch;

struct IsaDisasm {
    LLVMDisasmContextRef dc;
};

IsaDisasm *report_isa_open(Arena *a, const char *llvm_cpu, const char **err)
{
    codegen_init_llvm(); /* one registration for the whole process: LLVM's registry has no lock */
    IsaDisasm *d = ARENA_NEW(a, IsaDisasm);
    d->dc = LLVMCreateDisasmCPU("amdgcn-amd-amdhsa", llvm_cpu, NULL, 0, NULL, NULL);
    if (!d->dc) {
        *err = arena_printf(a, "LLVM cannot disassemble for %s", llvm_cpu);
        return NULL;
    }
    return d;
}

void report_isa_close(IsaDisasm *d)
{
    if (d && d->dc) {
        LLVMDisasmDispose(d->dc);
        d->dc = NULL;
    }
}

/* The loops of the kernel through the cycle model: for each target of a backward branch the
 * farthest branch to it, unless the range holds s_endpgm (out-of-line code that branches back is
 * not a loop); the REPORT_MAX_LOOPS largest, by position. */
static void model_loops(Arena *a, const char *cpu, const char *const *text, const Branch *br, int nbr,
                        const int *first, KernelReport *k)
{
    LoopReport found[REPORT_MAX_LOOPS];
    int nfound = 0;
    int wave = k->wave_size > 0 ? k->wave_size : 64;
    int waves = k->workgroup_size > 0 ? (k->workgroup_size + wave - 1) / wave : 1;
    /* the workgroups resident on a CU at once (the occupancy's waves a SIMD over the workgroup's
     * share of one), which the model runs side by side */
    LoopParams params = report_loop_params;
    int share = (waves + 3) / 4;
    params.workgroups = k->waves_per_simd > share ? k->waves_per_simd / share : 1;
    for (int b = 0; b < nbr; b++) {
        int lo = first[b], hi = br[b].index;
        if (lo < 0)
            continue;
        bool farthest = true, endpgm = false;
        for (int o = 0; o < nbr; o++)
            if (o != b && first[o] == lo && (br[o].index > hi || (br[o].index == hi && o < b)))
                farthest = false;
        for (int i = lo; i <= hi && farthest && !endpgm; i++)
            endpgm = !strncmp(text[i], "s_endpgm", 8);
        if (!farthest || endpgm)
            continue;
        LoopReport l;
        if (report_loop_model_in(a, cpu, waves, k->v0_tid, text, lo, hi + 1, &params, &l) != 0)
            return;
        l.first = lo;
        if (nfound < REPORT_MAX_LOOPS) {
            found[nfound++] = l;
            continue;
        }
        int small = 0; /* full: replace the smallest, if this one is larger */
        for (int i = 1; i < nfound; i++)
            if (found[i].instructions < found[small].instructions)
                small = i;
        if (l.instructions > found[small].instructions)
            found[small] = l;
    }
    for (int i = 1; i < nfound; i++) /* by position */
        for (int j = i; j > 0 && found[j - 1].first > found[j].first; j--) {
            LoopReport t = found[j];
            found[j] = found[j - 1];
            found[j - 1] = t;
        }
    memcpy(k->loops, found, sizeof found[0] * (size_t)nfound);
    k->nloops = nfound;
}

void report_isa_count(IsaDisasm *d, Arena *a, const uint8_t *code, size_t size, uint64_t addr, const char *cpu,
               KernelReport *k)
{
    LLVMDisasmContextRef dc = d->dc;
    size_t cap = size / 4 + 1; /* instructions are at least 4 bytes */
    size_t *offs = ARENA_ARRAY(a, size_t, cap);
    /* each instruction's text, for the cycle model, where the CPU has one */
    const char **text = report_loop_has_model(cpu) ? ARENA_ARRAY(a, const char *, cap) : NULL;
    Branch *br = ARENA_ARRAY(a, Branch, cap);
    int n = 0, nbr = 0;
    size_t pos = 0;
    while (pos < size && (size_t)n < cap) { /* n < cap always: no AMDGPU instruction is under 4 bytes */
        char text_buf[256];
        text_buf[0] = 0;
        /* The API takes a non-const pointer; it only reads the bytes. */
        size_t len = LLVMDisasmInstruction(dc, (uint8_t *)(uintptr_t)(code + pos), size - pos, addr + pos, text_buf,
                                           sizeof text_buf);
        offs[n++] = pos;
        if (text)
            text[n - 1] = arena_strdup(a, text_buf + strspn(text_buf, " \t"));
        if (len < 4 || len > size - pos) { /* not an instruction: count the word and go on */
            pos += size - pos < 4 ? size - pos : 4;
            continue;
        }
        char mn[sizeof k->mfma[0].mnemonic]; /* longer mnemonics are cut (none is this long) */
        const char *t = text_buf + strspn(text_buf, " \t");
        size_t mlen = strcspn(t, " \t");
        if (mlen >= sizeof mn)
            mlen = sizeof mn - 1;
        memcpy(mn, t, mlen);
        mn[mlen] = 0;

        int bits, cls = report_classify_memory(mn, &bits);
        if (cls != MEM_NONE) {
            int w = width_index(bits);
            if (w >= 0)
                mem_counts(k, cls)[w]++;
        } else if (starts(mn, "global_atomic_")) {
            k->global_atomics[width_index(strstr(mn, "_x2") ? 64 : 32)]++;
        } else if (starts(mn, "v_mfma_") || starts(mn, "v_smfmac_")) {
            count_mfma(k, mn);
        } else if (starts(mn, "s_waitcnt") || (starts(mn, "s_wait_") && strstr(mn, "cnt"))) {
            k->waitcnt++;
        } else if ((strcmp(mn, "s_branch") == 0 || starts(mn, "s_cbranch_")) && len == 4) {
            uint32_t w = (uint32_t)code[pos] | (uint32_t)code[pos + 1] << 8 | (uint32_t)code[pos + 2] << 16 |
                         (uint32_t)code[pos + 3] << 24;
            if (w >> 23 == 0x17f) /* SOPP */
                br[nbr++] = (Branch){n - 1, (int64_t)pos + 4 + 4 * (int64_t)(int16_t)(w & 0xffff)};
        }
        pos += len;
    }
    k->instructions = n;
    sort_mfma(k);

    /* The largest loop: a backward branch at index j to offset t spans the instructions from the
     * first one at or after t up to j. */
    int *first = ARENA_ARRAY(a, int, nbr ? nbr : 1);
    for (int b = 0; b < nbr; b++) {
        int64_t t = br[b].target;
        first[b] = -1;
        if (t < 0 || t > (int64_t)offs[br[b].index])
            continue;
        int lo = 0, hi = br[b].index; /* first index with offs >= t */
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if ((int64_t)offs[mid] < t)
                lo = mid + 1;
            else
                hi = mid;
        }
        first[b] = lo;
        int span = br[b].index - lo + 1;
        if (span > k->loop_instructions)
            k->loop_instructions = span;
    }
    if (text)
        model_loops(a, cpu, text, br, nbr, first, k);
}
