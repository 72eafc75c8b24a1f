/* Tests of the ISA report (compiler/target/amdgpu): real code objects built at test time from the LLVM IR
 * in tests/data/report/ with llc and ld.lld, read by report_code_object, and checked against
 * independent sources: llvm-readobj --notes for the resources, llvm-objdump -d (parsed as text)
 * and llvm-readelf -s for the instruction mix and the loop, and figures verified by hand from
 * those listings where the test states exact widths. Then the occupancy rule against AMD's table,
 * the text layout against a golden file, the JSON against a validator, and malformed input:
 * empty, foreign ELF, every truncation, flipped bytes, random garbage, each returning -1 with a
 * message and never crashing. Skips (77) when the LLVM 22 tools are missing. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compiler/target/amdgpu/msgpack.h"
#include "compiler/target/amdgpu/report.h"


#include "tests/unit/check.h"

#define DATA "tests/data/report/"

static char *llc, *lld, *objdump, *readobj, *readelf;
static char tmpdir[] = "/tmp/rk_report_XXXXXX";

/* ---- helpers ---------------------------------------------------------------------------------- */

static char *find_tool(const char *name, const char *fallback)
{
    char cmd[256], path[512] = "";
    snprintf(cmd, sizeof cmd, "command -v %s 2>/dev/null", name);
    FILE *p = popen(cmd, "r");
    if (p) {
        if (!fgets(path, sizeof path, p))
            path[0] = 0;
        pclose(p);
    }
    path[strcspn(path, "\n")] = 0;
    if (!path[0] && access(fallback, X_OK) == 0)
        snprintf(path, sizeof path, "%s", fallback);
    return path[0] ? strdup(path) : NULL;
}

static char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap + 1);
    size_t got;
    while ((got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            b = realloc(b, (cap *= 2) + 1);
    }
    fclose(f);
    b[n] = 0;
    *size = n;
    return b;
}

/* Runs a shell command and returns its standard output (NUL-terminated, malloc'ed). */
static char *run(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    FILE *p = popen(cmd, "r");
    if (!p)
        return strdup("");
    size_t cap = 1 << 16, n = 0, got;
    char *b = malloc(cap + 1);
    while ((got = fread(b + n, 1, cap - n, p)) > 0) {
        n += got;
        if (n == cap)
            b = realloc(b, (cap *= 2) + 1);
    }
    pclose(p);
    b[n] = 0;
    return b;
}

/* Builds tests/data/report/<name>.ll for `cpu`; returns the .hsaco path (static storage per call). */
static const char *build(const char *name, const char *cpu, const char *ldflags)
{
    static char paths[16][512];
    static int next;
    char *out = paths[next++ % 16];
    snprintf(out, 512, "%s/%s-%s%s.hsaco", tmpdir, name, cpu, ldflags[0] ? "-s" : "");
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "%s -mtriple=amdgcn-amd-amdhsa -mcpu=%s -filetype=obj " DATA "%s.ll -o %s/%s-%s.o && "
             "%s -shared %s %s/%s-%s.o -o %s",
             llc, cpu, name, tmpdir, name, cpu, lld, ldflags, tmpdir, name, cpu, out);
    if (system(cmd) != 0) {
        fprintf(stderr, "FAIL: could not build %s for %s: %s\n", name, cpu, cmd);
        failures++;
        return NULL;
    }
    return out;
}

typedef struct Loaded {
    Arena arena;
    char *bytes;
    size_t size;
    CodeReport r;
    int rc;
    const char *err;
} Loaded;

static bool load(Loaded *l, const char *path)
{
    memset(l, 0, sizeof *l);
    arena_init(&l->arena, arena_default_allocator);
    l->bytes = path ? slurp(path, &l->size) : NULL;
    if (!l->bytes) {
        CHECK(false, "cannot read %s", path ? path : "(not built)");
        return false;
    }
    l->rc = report_code_object(&l->arena, l->bytes, l->size, &l->r, &l->err);
    CHECK(l->rc == 0, "%s: %s", path, l->err ? l->err : "?");
    return l->rc == 0;
}

static void unload(Loaded *l)
{
    arena_free(&l->arena);
    free(l->bytes);
}

static const KernelReport *kernel(const CodeReport *r, const char *name)
{
    for (int i = 0; i < r->nkernels; i++)
        if (strcmp(r->kernels[i].name, name) == 0)
            return &r->kernels[i];
    CHECK(false, "no kernel %s in the report", name);
    return NULL;
}

static int sum(const int *w)
{
    int s = 0;
    for (int i = 0; i < NWIDTHS; i++)
        s += w[i];
    return s;
}

static bool widths_are(const int *w, int w8, int w16, int w32, int w64, int w96, int w128)
{
    return w[W8] == w8 && w[W16] == w16 && w[W32] == w32 && w[W64] == w64 && w[W96] == w96 && w[W128] == w128;
}

#define WFMT "{%d %d %d %d %d %d}"
#define WARGS(w) (w)[0], (w)[1], (w)[2], (w)[3], (w)[4], (w)[5]

/* ---- independent source 1: llvm-readobj --notes (the metadata as YAML) -------------------------- */

typedef struct NoteKernel {
    char name[128];
    long vgpr, agpr, sgpr, lds, scratch, vspill, sspill, wg, wave;
} NoteKernel;

/* Kernel-level keys sit at indent 4 ("    .key:") or open a list item ("  - .key:"); argument keys
 * are indented deeper. */
static int parse_notes(const char *path, NoteKernel *ks, int max)
{
    char *out = run("%s --notes %s", readobj, path);
    int n = -1;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        const char *kv = NULL;
        if (strncmp(line, "  - .", 5) == 0) {
            if (++n >= max)
                break;
            memset(&ks[n], 0, sizeof ks[n]);
            kv = line + 4;
        } else if (strncmp(line, "    .", 5) == 0 && n >= 0) {
            kv = line + 4;
        }
        if (!kv)
            continue;
        char key[64], val[256];
        if (sscanf(kv, "%63[^:]: %255s", key, val) != 2)
            continue;
        long v = strtol(val, NULL, 10);
        if (!strcmp(key, ".name"))
            snprintf(ks[n].name, sizeof ks[n].name, "%.127s", val);
        else if (!strcmp(key, ".vgpr_count"))
            ks[n].vgpr = v;
        else if (!strcmp(key, ".agpr_count"))
            ks[n].agpr = v;
        else if (!strcmp(key, ".sgpr_count"))
            ks[n].sgpr = v;
        else if (!strcmp(key, ".group_segment_fixed_size"))
            ks[n].lds = v;
        else if (!strcmp(key, ".private_segment_fixed_size"))
            ks[n].scratch = v;
        else if (!strcmp(key, ".vgpr_spill_count"))
            ks[n].vspill = v;
        else if (!strcmp(key, ".sgpr_spill_count"))
            ks[n].sspill = v;
        else if (!strcmp(key, ".max_flat_workgroup_size"))
            ks[n].wg = v;
        else if (!strcmp(key, ".wavefront_size"))
            ks[n].wave = v;
    }
    free(out);
    return n + 1 > max ? max : n + 1;
}

static void check_resources(const char *path, const CodeReport *r)
{
    NoteKernel ks[8];
    int n = parse_notes(path, ks, 8);
    CHECK(n == r->nkernels, "%s: readobj lists %d kernels, the report %d", path, n, r->nkernels);
    for (int i = 0; i < n; i++) {
        const KernelReport *k = kernel(r, ks[i].name);
        if (!k)
            continue;
        CHECK(k->vgprs_total == ks[i].vgpr, "%s: vgpr_count %d vs %ld", ks[i].name, k->vgprs_total, ks[i].vgpr);
        CHECK(k->agprs == ks[i].agpr, "%s: agpr_count %d vs %ld", ks[i].name, k->agprs, ks[i].agpr);
        CHECK(k->sgprs == ks[i].sgpr, "%s: sgpr_count %d vs %ld", ks[i].name, k->sgprs, ks[i].sgpr);
        CHECK(k->lds_bytes == ks[i].lds, "%s: lds %d vs %ld", ks[i].name, k->lds_bytes, ks[i].lds);
        CHECK(k->scratch_bytes == ks[i].scratch, "%s: scratch %d vs %ld", ks[i].name, k->scratch_bytes, ks[i].scratch);
        CHECK(k->vgpr_spills == ks[i].vspill, "%s: vgpr spills %d vs %ld", ks[i].name, k->vgpr_spills, ks[i].vspill);
        CHECK(k->sgpr_spills == ks[i].sspill, "%s: sgpr spills %d vs %ld", ks[i].name, k->sgpr_spills, ks[i].sspill);
        CHECK(k->workgroup_size == ks[i].wg, "%s: workgroup %d vs %ld", ks[i].name, k->workgroup_size, ks[i].wg);
        CHECK(k->wave_size == ks[i].wave, "%s: wave %d vs %ld", ks[i].name, k->wave_size, ks[i].wave);
    }
}

/* ---- independent source 2: llvm-readelf -s and llvm-objdump -d ---------------------------------- */

typedef struct Ins {
    uint64_t addr;
    char mn[64];
    int64_t target; /* branch target from objdump's <sym+0xoff> annotation, -1 if none */
} Ins;

typedef struct Listing {
    Ins *ins;
    int n;
    char fname[16][128];
    uint64_t faddr[16];
    int nf;
} Listing;

static bool func_symbol(const char *path, const char *name, uint64_t *value, uint64_t *size)
{
    char *out = run("%s -sW %s", readelf, path);
    bool found = false;
    for (char *line = strtok(out, "\n"); line && !found; line = strtok(NULL, "\n")) {
        unsigned long long v, s;
        char type[16], sym[128];
        if (sscanf(line, " %*d: %llx %llu %15s %*s %*s %*s %127s", &v, &s, type, sym) == 4 &&
            !strcmp(type, "FUNC") && !strcmp(sym, name)) {
            *value = v;
            *size = s;
            found = true;
        }
    }
    free(out);
    return found;
}

static bool symbol_value(const char *path, const char *name, uint64_t *value)
{
    char *out = run("%s -sW %s", readelf, path);
    bool found = false;
    for (char *line = strtok(out, "\n"); line && !found; line = strtok(NULL, "\n")) {
        unsigned long long v;
        char sym[128];
        if (sscanf(line, " %*d: %llx %*u %*s %*s %*s %*s %127s", &v, sym) == 2 && !strcmp(sym, name)) {
            *value = v;
            found = true;
        }
    }
    free(out);
    return found;
}

static void parse_listing(const char *path, const char *cpu, Listing *L)
{
    memset(L, 0, sizeof *L);
    char *out = run("%s -d --mcpu=%s %s", objdump, cpu, path);
    int cap = 1024;
    L->ins = malloc(sizeof(Ins) * (size_t)cap);
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        unsigned long long a;
        char name[128];
        if (sscanf(line, "%llx <%127[^>]>:", &a, name) == 2 && L->nf < 16) {
            snprintf(L->fname[L->nf], 128, "%s", name);
            L->faddr[L->nf++] = a;
            continue;
        }
        char *c = strstr(line, "// ");
        if (!c || sscanf(c + 3, "%llx:", &a) != 1)
            continue;
        if (L->n == cap)
            L->ins = realloc(L->ins, sizeof(Ins) * (size_t)(cap *= 2));
        Ins *in = &L->ins[L->n++];
        in->addr = a;
        const char *t = line + strspn(line, " \t");
        size_t len = strcspn(t, " \t/");
        snprintf(in->mn, sizeof in->mn, "%.*s", (int)len, t);
        in->target = -1;
        char *lt = strrchr(c, '<'), *gt = lt ? strchr(lt, '>') : NULL;
        if (lt && gt) {
            char sym[128] = "";
            unsigned long long off = 0;
            char *plus = strstr(lt, "+0x");
            if (plus && plus < gt) {
                snprintf(sym, sizeof sym, "%.*s", (int)(plus - lt - 1), lt + 1);
                off = strtoull(plus + 3, NULL, 16);
            } else {
                snprintf(sym, sizeof sym, "%.*s", (int)(gt - lt - 1), lt + 1);
            }
            for (int f = 0; f < L->nf; f++)
                if (!strcmp(L->fname[f], sym))
                    in->target = (int64_t)(L->faddr[f] + off);
        }
    }
    free(out);
}

static bool starts(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* Everything the report says about one kernel's code, recomputed from objdump's text. */
static void check_mix(const char *path, const char *cpu, const KernelReport *k, const char *sym)
{
    uint64_t lo, size;
    if (!func_symbol(path, sym, &lo, &size)) {
        CHECK(false, "%s: no FUNC symbol %s in llvm-readelf -s", path, sym);
        return;
    }
    Listing L;
    parse_listing(path, cpu, &L);
    int n = 0, waits = 0, mfma = 0, loop = 0;
    int gl = 0, gs = 0, bl = 0, bs = 0, fl = 0, fs = 0, sl = 0, ss = 0, dr = 0, dw = 0;
    char shapes[32][64];
    int shape_n[32], nshapes = 0;
    for (int i = 0; i < L.n; i++) {
        const Ins *in = &L.ins[i];
        if (in->addr < lo || in->addr >= lo + size)
            continue;
        n++;
        waits += starts(in->mn, "s_waitcnt");
        gl += starts(in->mn, "global_load");
        gs += starts(in->mn, "global_store");
        bl += starts(in->mn, "buffer_load");
        bs += starts(in->mn, "buffer_store");
        fl += starts(in->mn, "flat_load");
        fs += starts(in->mn, "flat_store");
        sl += starts(in->mn, "scratch_load");
        ss += starts(in->mn, "scratch_store");
        dr += starts(in->mn, "ds_read") || starts(in->mn, "ds_load");
        dw += starts(in->mn, "ds_write") || starts(in->mn, "ds_store");
        if (starts(in->mn, "v_mfma") || starts(in->mn, "v_smfmac")) {
            mfma++;
            int s = 0;
            while (s < nshapes && strcmp(shapes[s], in->mn))
                s++;
            if (s == nshapes && nshapes < 32) {
                snprintf(shapes[nshapes], 64, "%s", in->mn);
                shape_n[nshapes++] = 0;
            }
            if (s < 32)
                shape_n[s]++;
        }
        if ((starts(in->mn, "s_cbranch") || !strcmp(in->mn, "s_branch")) && in->target >= (int64_t)lo &&
            in->target <= (int64_t)in->addr) {
            int span = 0;
            for (int j = 0; j < L.n; j++)
                span += L.ins[j].addr >= (uint64_t)in->target && L.ins[j].addr <= in->addr;
            if (span > loop)
                loop = span;
        }
    }
    free(L.ins);
    CHECK(k->instructions == n, "%s: %d instructions, objdump %d", sym, k->instructions, n);
    CHECK(k->waitcnt == waits, "%s: %d s_waitcnt, objdump %d", sym, k->waitcnt, waits);
    CHECK(k->loop_instructions == loop, "%s: loop %d, objdump %d", sym, k->loop_instructions, loop);
    CHECK(k->mfma_total == mfma, "%s: %d mfma, objdump %d", sym, k->mfma_total, mfma);
    CHECK(k->nmfma == nshapes, "%s: %d mfma shapes, objdump %d", sym, k->nmfma, nshapes);
    for (int s = 0; s < nshapes; s++) {
        int got = 0;
        for (int m = 0; m < k->nmfma; m++)
            if (!strcmp(k->mfma[m].mnemonic, shapes[s]))
                got = k->mfma[m].count;
        CHECK(got == shape_n[s], "%s: %s x%d, objdump x%d", sym, shapes[s], got, shape_n[s]);
    }
    CHECK(sum(k->global_loads) == gl && sum(k->global_stores) == gs, "%s: global %d/%d, objdump %d/%d", sym,
          sum(k->global_loads), sum(k->global_stores), gl, gs);
    CHECK(sum(k->buffer_loads) == bl && sum(k->buffer_stores) == bs, "%s: buffer %d/%d, objdump %d/%d", sym,
          sum(k->buffer_loads), sum(k->buffer_stores), bl, bs);
    CHECK(sum(k->flat_loads) == fl && sum(k->flat_stores) == fs, "%s: flat %d/%d, objdump %d/%d", sym,
          sum(k->flat_loads), sum(k->flat_stores), fl, fs);
    CHECK(sum(k->scratch_loads) == sl && sum(k->scratch_stores) == ss, "%s: scratch %d/%d, objdump %d/%d", sym,
          sum(k->scratch_loads), sum(k->scratch_stores), sl, ss);
    CHECK(sum(k->lds_reads) == dr && sum(k->lds_writes) == dw, "%s: lds %d/%d, objdump %d/%d", sym,
          sum(k->lds_reads), sum(k->lds_writes), dr, dw);
}

/* The report of one kernel against both tools. */
static void check_kernel_against_tools(const char *path, const char *cpu, const CodeReport *r, const char *name)
{
    const KernelReport *k = kernel(r, name);
    if (k)
        check_mix(path, cpu, k, name);
}

/* ---- a tiny JSON validator ------------------------------------------------------------------- */

static const char *json_ws(const char *s)
{
    while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
        s++;
    return s;
}

static const char *json_value(const char *s, int depth);

static const char *json_string(const char *s)
{
    if (*s++ != '"')
        return NULL;
    while (*s && *s != '"') {
        if ((unsigned char)*s < 0x20)
            return NULL;
        if (*s == '\\') {
            s++;
            if (*s == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
                        return NULL;
                s += 4;
            } else if (!*s || !strchr("\"\\/bfnrt", *s)) {
                return NULL;
            }
        }
        s++;
    }
    return *s == '"' ? s + 1 : NULL;
}

static const char *json_value(const char *s, int depth)
{
    if (depth > 64)
        return NULL;
    s = json_ws(s);
    if (*s == '{' || *s == '[') {
        char close = *s == '{' ? '}' : ']';
        bool obj = *s == '{';
        s = json_ws(s + 1);
        if (*s == close)
            return s + 1;
        for (;;) {
            if (obj) {
                s = json_string(json_ws(s));
                if (!s || *(s = json_ws(s)) != ':')
                    return NULL;
                s++;
            }
            s = json_value(s, depth + 1);
            if (!s)
                return NULL;
            s = json_ws(s);
            if (*s == close)
                return s + 1;
            if (*s != ',')
                return NULL;
            s++;
        }
    }
    if (*s == '"')
        return json_string(s);
    if (!strncmp(s, "true", 4) || !strncmp(s, "null", 4))
        return s + 4;
    if (!strncmp(s, "false", 5))
        return s + 5;
    char *end;
    strtod(s, &end);
    return end > s ? end : NULL;
}

static bool json_valid(const char *s)
{
    const char *e = json_value(s, 0);
    return e && *json_ws(e) == 0;
}

static void check_json(Arena *a, const CodeReport *r, const char *what)
{
    char *j = report_json(a, r);
    CHECK(json_valid(j), "%s: report_json is not valid JSON:\n%s", what, j);
    char *py = find_tool("python3", "/usr/bin/python3");
    if (!py)
        return;
    char path[600];
    snprintf(path, sizeof path, "%s/report.json", tmpdir);
    FILE *f = fopen(path, "w");
    fputs(j, f);
    fclose(f);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "%s -c 'import json,sys; json.load(sys.stdin)' < %s", py, path);
    CHECK(system(cmd) == 0, "%s: python3's json rejects report_json", what);
    free(py);
}

/* ---- tests on real code objects --------------------------------------------------------------- */

static void test_copy(void)
{
    const char *path = build("copy", "gfx942", "");
    Loaded l;
    if (!load(&l, path)) {
        if (l.bytes)
            unload(&l);
        return;
    }
    CHECK(!strcmp(l.r.cpu, "gfx942"), "cpu %s", l.r.cpu);
    CHECK(l.r.nkernels == 2, "%d kernels", l.r.nkernels);
    check_resources(path, &l.r);
    check_kernel_against_tools(path, "gfx942", &l.r, "copy4");
    check_kernel_against_tools(path, "gfx942", &l.r, "copy1");
    /* By hand from llvm-objdump: copy4 is s_load_dwordx4, v_and, v_lshlrev, s_waitcnt,
     * global_load_dwordx4, s_waitcnt, global_store_dwordx4, s_endpgm; copy1 the same with dword. */
    const KernelReport *k = kernel(&l.r, "copy4");
    if (k) {
        CHECK(widths_are(k->global_loads, 0, 0, 0, 0, 0, 1), "copy4 loads " WFMT, WARGS(k->global_loads));
        CHECK(widths_are(k->global_stores, 0, 0, 0, 0, 0, 1), "copy4 stores " WFMT, WARGS(k->global_stores));
        CHECK(k->instructions == 8 && k->waitcnt == 2 && k->loop_instructions == 0, "copy4 %d %d %d",
              k->instructions, k->waitcnt, k->loop_instructions);
        CHECK(k->waves_per_simd == 8 && !strcmp(k->limiter, "max waves"), "copy4 occupancy %d %s",
              k->waves_per_simd, k->limiter);
    }
    k = kernel(&l.r, "copy1");
    if (k) {
        CHECK(widths_are(k->global_loads, 0, 0, 1, 0, 0, 0), "copy1 loads " WFMT, WARGS(k->global_loads));
        CHECK(widths_are(k->global_stores, 0, 0, 1, 0, 0, 0), "copy1 stores " WFMT, WARGS(k->global_stores));
        CHECK(k->workgroup_size == 64, "copy1 workgroup %d", k->workgroup_size);
    }

    /* The golden text layout. */
    size_t gsize;
    char *golden = slurp(DATA "copy.txt", &gsize);
    char *text = report_text(&l.arena, &l.r);
    CHECK(golden && !strcmp(text, golden), "report_text differs from " DATA "copy.txt:\n%s", text);
    free(golden);
    check_json(&l.arena, &l.r, "copy");

    /* A stripped code object: only .dynsym is left, so the arch VGPRs come from the kernel descriptor. */
    unload(&l);
    path = build("copy", "gfx942", "-s");
    if (load(&l, path)) {
        CHECK(l.r.nkernels == 2 && l.r.kernels[0].instructions == 8, "stripped: %d kernels", l.r.nkernels);
        unload(&l);
    } else if (l.bytes) {
        unload(&l);
    }
}

static void test_widths(void)
{
    const char *path = build("widths", "gfx942", "");
    Loaded l;
    if (load(&l, path)) {
        check_resources(path, &l.r);
        check_kernel_against_tools(path, "gfx942", &l.r, "widths");
        /* By hand from llvm-objdump: global_load_{ubyte,ushort,dword,dwordx2,dwordx3,dwordx4} and
         * global_store_{byte,short,dword,dwordx2,dwordx3,dwordx4}, flat_load_{dwordx4,ushort},
         * flat_store_{dwordx4,short}. */
        const KernelReport *k = kernel(&l.r, "widths");
        if (k) {
            CHECK(widths_are(k->global_loads, 1, 1, 1, 1, 1, 1), "loads " WFMT, WARGS(k->global_loads));
            CHECK(widths_are(k->global_stores, 1, 1, 1, 1, 1, 1), "stores " WFMT, WARGS(k->global_stores));
            CHECK(widths_are(k->flat_loads, 0, 1, 0, 0, 0, 1), "flat loads " WFMT, WARGS(k->flat_loads));
            CHECK(widths_are(k->flat_stores, 0, 1, 0, 0, 0, 1), "flat stores " WFMT, WARGS(k->flat_stores));
        }
    }
    if (l.bytes)
        unload(&l);
}

static void test_lds(void)
{
    const char *path = build("lds", "gfx942", "");
    Loaded l;
    if (load(&l, path)) {
        check_resources(path, &l.r);
        check_kernel_against_tools(path, "gfx942", &l.r, "lds");
        /* By hand from llvm-objdump: ds_write_b128, ds_write_b32, ds_write_b8, ds_write_b16;
         * ds_read2_b32 (64 bits a lane), ds_read2_b64 (128), ds_read_b128, ds_read_u8. */
        const KernelReport *k = kernel(&l.r, "lds");
        if (k) {
            CHECK(widths_are(k->lds_writes, 1, 1, 1, 0, 0, 1), "writes " WFMT, WARGS(k->lds_writes));
            CHECK(widths_are(k->lds_reads, 1, 0, 0, 1, 0, 2), "reads " WFMT, WARGS(k->lds_reads));
            /* 8448 bytes -> floor(65536 / 8704) = 7 workgroups of 4 waves on 4 SIMDs: 7 waves */
            CHECK(k->lds_bytes == 8448, "lds %d", k->lds_bytes);
            CHECK(k->waves_per_simd == 7 && !strcmp(k->limiter, "lds"), "occupancy %d %s", k->waves_per_simd,
                  k->limiter);
        }
    }
    if (l.bytes)
        unload(&l);
}

static void test_buffer(void)
{
    const char *path = build("buffer", "gfx942", "");
    Loaded l;
    if (load(&l, path)) {
        check_resources(path, &l.r);
        check_kernel_against_tools(path, "gfx942", &l.r, "buffer");
        /* By hand from llvm-objdump: buffer_load_{ubyte,ushort,dwordx3,dwordx4,format_xyzw} and the
         * matching stores (the format store is buffer_store_dwordx4). */
        const KernelReport *k = kernel(&l.r, "buffer");
        if (k) {
            CHECK(widths_are(k->buffer_loads, 1, 1, 0, 0, 1, 2), "loads " WFMT, WARGS(k->buffer_loads));
            CHECK(widths_are(k->buffer_stores, 1, 1, 0, 0, 1, 2), "stores " WFMT, WARGS(k->buffer_stores));
        }
    }
    if (l.bytes)
        unload(&l);
}

/* The cycle model's invariant: the matrix unit's busy cycles and the stalls make up the iteration. */
static void check_loop_sum(const LoopReport *lp, const char *what)
{
    int sum = lp->mfma_busy;
    for (int c = 0; c < NSTALLS; c++)
        sum += lp->stalls[c];
    CHECK(lp->cycles > 0 && sum == lp->cycles && lp->mfma_free <= lp->instructions,
          "%s: loop at %d: %d cycles, busy + stalls %d, mfma-free %d of %d", what, lp->first, lp->cycles, sum,
          lp->mfma_free, lp->instructions);
}

static void test_loop(void)
{
    const char *path = build("loop", "gfx942", "");
    Loaded l;
    if (load(&l, path)) {
        check_kernel_against_tools(path, "gfx942", &l.r, "loop");
        /* By hand: the outer loop runs from loop+0x34 to the s_cbranch_scc1 at loop+0xfc, 40
         * instructions; the inner one (loop+0x38 to loop+0x64) is 11. */
        const KernelReport *k = kernel(&l.r, "loop");
        CHECK(k && k->loop_instructions == 40, "loop %d", k ? k->loop_instructions : -1);
        /* the cycle model sees both loops, by position: the outer one first, the inner one an
         * instruction later (0x38 to 0x64: 10 instructions, two of them 8 bytes long); the inner one
         * waits for its global load at once, so an iteration is at least a load's latency, shared by
         * the workgroups resident at once (one wave each: the occupancy's waves a SIMD) */
        int resident = k && k->waves_per_simd > 0 ? k->waves_per_simd : 1;
        CHECK(k && k->nloops == 2 && k->loops[1].cycles >= report_loop_params.global_latency / resident &&
                  k->loops[1].stalls[STALL_VMCNT] > 0,
              "inner loop: %d cycles", k && k->nloops == 2 ? k->loops[1].cycles : -1);
        CHECK(k && k->nloops == 2 && k->loops[0].instructions == 40 && k->loops[1].instructions == 10 &&
                  k->loops[1].first == k->loops[0].first + 1,
              "loops %d: %d at %d, %d at %d", k ? k->nloops : -1, k ? k->loops[0].instructions : -1,
              k ? k->loops[0].first : -1, k ? k->loops[1].instructions : -1, k ? k->loops[1].first : -1);
        for (int i = 0; k && i < k->nloops; i++)
            check_loop_sum(&k->loops[i], "loop");
        if (k) {
            char *t = report_text(&l.arena, &l.r);
            CHECK(strstr(t, "\n  loop       @") && strstr(t, " x40: "), "no loop line in the text:\n%s", t);
            check_json(&l.arena, &l.r, "loop");
        }
        /* 512 threads = 8 waves a workgroup, 8 VGPRs: 4 workgroups fill 8 waves per SIMD */
        CHECK(k && k->waves_per_simd == 8, "occupancy %d", k ? k->waves_per_simd : -1);
    }
    if (l.bytes)
        unload(&l);
}

static void test_mfma(const char *cpu, const char *m16, const char *m32)
{
    const char *path = build("mfma", cpu, "");
    Loaded l;
    if (load(&l, path)) {
        CHECK(!strcmp(l.r.cpu, cpu), "cpu %s, expected %s", l.r.cpu, cpu);
        check_resources(path, &l.r);
        check_kernel_against_tools(path, cpu, &l.r, "mfma");
        const KernelReport *k = kernel(&l.r, "mfma");
        if (k) {
            CHECK(k->mfma_total == 2 && k->nmfma == 2, "%s: mfma %d in %d shapes", cpu, k->mfma_total, k->nmfma);
            CHECK(k->nmfma == 2 && !strcmp(k->mfma[0].mnemonic, m16) && !strcmp(k->mfma[1].mnemonic, m32),
                  "%s: shapes %s %s", cpu, k->mfma[0].mnemonic, k->mfma[1].mnemonic);
            CHECK(k->loop_instructions > 0, "%s: no loop", cpu);
            /* the loop's two MFMAs keep the matrix unit busy for part of each iteration */
            CHECK(k->nloops >= 1 && k->loops[k->nloops - 1].mfma == 2 && k->loops[k->nloops - 1].mfma_busy > 0,
                  "%s: %d loops, mfma %d busy %d", cpu, k->nloops, k->nloops ? k->loops[k->nloops - 1].mfma : -1,
                  k->nloops ? k->loops[k->nloops - 1].mfma_busy : -1);
            for (int i = 0; i < k->nloops; i++)
                check_loop_sum(&k->loops[i], cpu);
            /* arch VGPRs: the <kernel>.num_vgpr symbol; .vgpr_count = alignTo(arch, 4) + AGPRs */
            uint64_t nv = 0;
            CHECK(symbol_value(path, "mfma.num_vgpr", &nv) && (int)nv == k->vgprs, "%s: vgprs %d, symbol %llu", cpu,
                  k->vgprs, (unsigned long long)nv);
            CHECK(k->agprs > 0 && k->vgprs_total == (k->vgprs + 3) / 4 * 4 + k->agprs, "%s: %d + %d -> %d", cpu,
                  k->vgprs, k->agprs, k->vgprs_total);
        }
        check_json(&l.arena, &l.r, cpu);
    }
    if (l.bytes)
        unload(&l);

    /* Stripped: the kernel descriptor's ACCUM_OFFSET gives the arch VGPRs rounded up to 4. */
    path = build("mfma", cpu, "-s");
    if (load(&l, path) && l.r.nkernels == 1) {
        const KernelReport *k = &l.r.kernels[0];
        CHECK(k->vgprs_total - k->agprs == (k->vgprs + 3) / 4 * 4 && k->vgprs % 4 == 0,
              "%s stripped: vgprs %d agprs %d total %d", cpu, k->vgprs, k->agprs, k->vgprs_total);
    }
    if (l.bytes)
        unload(&l);
}

static void test_spill(void)
{
    const char *path = build("spill", "gfx942", "");
    Loaded l;
    if (load(&l, path)) {
        check_resources(path, &l.r);
        check_kernel_against_tools(path, "gfx942", &l.r, "spill");
        const KernelReport *k = kernel(&l.r, "spill");
        CHECK(k && k->scratch_bytes > 0 && k->vgpr_spills > 0, "no spill: scratch %d", k ? k->scratch_bytes : -1);
        CHECK(k && sum(k->scratch_stores) > 0 && sum(k->scratch_loads) > 0, "no scratch ops");
    }
    if (l.bytes)
        unload(&l);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void test_gemm_and_timing(void)
{
    const char *path = build("gemm", "gfx942", "");
    Loaded l;
    if (load(&l, path)) {
        check_resources(path, &l.r);
        check_kernel_against_tools(path, "gfx942", &l.r, "gemm");
        const KernelReport *k = kernel(&l.r, "gemm");
        if (k) {
            /* By hand from llvm-objdump: 16 x v_mfma_f32_16x16x16_bf16, 8 ds_read_b64, 2 ds_write_b128,
             * 2 global_load_dwordx4 in the loop, 16 global_store_dwordx4 after it. 148 unified
             * VGPRs -> 152 -> 3 waves; 32 KiB of LDS -> 2 workgroups -> 2 waves: LDS limits. */
            CHECK(k->mfma_total == 16 && k->nmfma == 1, "mfma %d", k->mfma_total);
            CHECK(widths_are(k->lds_reads, 0, 0, 0, 8, 0, 0), "reads " WFMT, WARGS(k->lds_reads));
            CHECK(widths_are(k->lds_writes, 0, 0, 0, 0, 0, 2), "writes " WFMT, WARGS(k->lds_writes));
            CHECK(k->waves_per_simd == 2 && !strcmp(k->limiter, "lds"), "occupancy %d %s", k->waves_per_simd,
                  k->limiter);
        }
        /* Timing: the whole report_code_object call, disassembler creation included. */
        int reps = 50;
        double t0 = now();
        for (int i = 0; i < reps; i++) {
            Arena a;
            arena_init(&a, arena_default_allocator);
            CodeReport r;
            const char *err;
            report_code_object(&a, l.bytes, l.size, &r, &err);
            arena_free(&a);
        }
        double per = (now() - t0) / reps;
        printf("timing: report_code_object on gemm (%d instructions, %zu bytes): %.3f ms a call\n",
               k ? k->instructions : 0, l.size, per * 1e3);
    }
    if (l.bytes)
        unload(&l);
}

/* Targets beyond gfx9 CDNA: gfx1100 (wave32, no occupancy model) and a code object v6 for the
 * generic target gfx9-4-generic. */
static void test_other_targets(void)
{
    const char *path = build("copy", "gfx1100", "");
    Loaded l;
    if (load(&l, path)) {
        CHECK(!strcmp(l.r.cpu, "gfx1100"), "cpu %s", l.r.cpu);
        check_resources(path, &l.r);
        check_kernel_against_tools(path, "gfx1100", &l.r, "copy4");
        const KernelReport *k = kernel(&l.r, "copy4");
        CHECK(k && k->wave_size == 32 && k->waves_per_simd == -1 && !strcmp(k->limiter, "unknown target"),
              "gfx1100 occupancy");
        char *t = report_text(&l.arena, &l.r);
        CHECK(strstr(t, "  occupancy  - (no model for gfx1100)   workgroup 256 = 8 waves\n"), "gfx1100 text:\n%s", t);
        check_json(&l.arena, &l.r, "gfx1100");
    }
    if (l.bytes)
        unload(&l);
    path = build("generic", "gfx9-4-generic", "");
    if (load(&l, path)) {
        CHECK(!strcmp(l.r.cpu, "gfx9-4-generic"), "cpu %s", l.r.cpu);
        check_resources(path, &l.r);
        check_kernel_against_tools(path, "gfx9-4-generic", &l.r, "mfma");
        const KernelReport *k = kernel(&l.r, "mfma");
        CHECK(k && k->mfma_total == 2 && k->waves_per_simd == 8, "generic: mfma %d", k ? k->mfma_total : -1);
    }
    if (l.bytes)
        unload(&l);
}

/* ---- the msgpack reader ----------------------------------------------------------------------- */

static void test_msgpack(void)
{
    /* {"a": [1, -1, -200, 300, 70000, 5000000000, 1.5f, 2.5, nil, true, false, "xyz", bin "\x00\x01",
     *  ext(1) "\x09", fixext1, {}], 0xcc 255, 0xd0 -1} ... one of each encoding */
    static const uint8_t doc[] = {
        0x81, 0xa1, 'a', 0xdc, 0x00, 0x10,                   /* map 1, "a", array16 of 16 */
        0x01, 0xff, 0xd1, 0xff, 0x38,                         /* 1, -1, int16 -200 */
        0xcd, 0x01, 0x2c, 0xce, 0x00, 0x01, 0x11, 0x70,       /* uint16 300, uint32 70000 */
        0xcf, 0x00, 0x00, 0x00, 0x01, 0x2a, 0x05, 0xf2, 0x00, /* uint64 5000000000 */
        0xca, 0x3f, 0xc0, 0x00, 0x00,                         /* float32 1.5 */
        0xcb, 0x40, 0x04, 0, 0, 0, 0, 0, 0,                   /* float64 2.5 */
        0xc0, 0xc3, 0xc2,                                     /* nil true false */
        0xd9, 0x03, 'x', 'y', 'z',                            /* str8 "xyz" */
        0xc4, 0x02, 0x00, 0x01,                               /* bin8 */
        0xc7, 0x01, 0x05, 0x09,                               /* ext8, type 5 */
        0xd4, 0x05, 0x07,                                     /* fixext1 */
        0x80,                                                 /* {} */
    };
    Mp m;
    MpVal v;
    msgpack_init(&m, doc, sizeof doc);
    CHECK(msgpack_read(&m, &v) && v.type == MP_MAP && v.n == 1, "map");
    CHECK(msgpack_read(&m, &v) && msgpack_str_eq(&v, "a"), "key");
    CHECK(msgpack_read(&m, &v) && v.type == MP_ARRAY && v.n == 16, "array16");
    CHECK(msgpack_read(&m, &v) && v.type == MP_UINT && v.u == 1, "fixint");
    CHECK(msgpack_read(&m, &v) && v.type == MP_INT && v.i == -1, "negative fixint");
    CHECK(msgpack_read(&m, &v) && v.type == MP_INT && v.i == -200, "int16 %lld", (long long)v.i);
    CHECK(msgpack_read(&m, &v) && v.type == MP_UINT && v.u == 300, "uint16");
    CHECK(msgpack_read(&m, &v) && v.type == MP_UINT && v.u == 70000, "uint32");
    CHECK(msgpack_read(&m, &v) && v.type == MP_UINT && v.u == 5000000000ull, "uint64");
    CHECK(msgpack_read(&m, &v) && v.type == MP_FLOAT && v.f == 1.5, "float32");
    CHECK(msgpack_read(&m, &v) && v.type == MP_FLOAT && v.f == 2.5, "float64");
    CHECK(msgpack_read(&m, &v) && v.type == MP_NIL, "nil");
    CHECK(msgpack_read(&m, &v) && v.type == MP_BOOL && v.b, "true");
    CHECK(msgpack_read(&m, &v) && v.type == MP_BOOL && !v.b, "false");
    CHECK(msgpack_read(&m, &v) && msgpack_str_eq(&v, "xyz"), "str8");
    CHECK(msgpack_read(&m, &v) && v.type == MP_BIN && v.n == 2, "bin8");
    CHECK(msgpack_read(&m, &v) && v.type == MP_EXT && v.n == 1 && v.s[0] == 9, "ext8");
    CHECK(msgpack_read(&m, &v) && v.type == MP_EXT && v.n == 1 && v.s[0] == 7, "fixext1");
    CHECK(msgpack_read(&m, &v) && v.type == MP_MAP && v.n == 0, "empty map");
    CHECK(!msgpack_read(&m, &v) && m.err, "end of data");
    /* skipping the whole document, and every truncation of it */
    msgpack_init(&m, doc, sizeof doc);
    CHECK(msgpack_skip(&m) && msgpack_offset(&m) == sizeof doc, "skip");
    for (size_t n = 0; n < sizeof doc; n++) {
        msgpack_init(&m, doc, n);
        CHECK(!msgpack_skip(&m) && m.err, "skip of %zu bytes succeeded", n);
    }
    /* 0xc1 is never used; a str32 longer than the data; deep nesting skips without recursion;
     * a map32 claiming 4 billion pairs fails at the end of the data */
    static const uint8_t bad[] = {0xc1};
    msgpack_init(&m, bad, 1);
    CHECK(!msgpack_read(&m, &v) && !strcmp(m.err, "invalid type byte"), "0xc1");
    static const uint8_t longstr[] = {0xdb, 0xff, 0xff, 0xff, 0xff, 'a'};
    msgpack_init(&m, longstr, sizeof longstr);
    CHECK(!msgpack_read(&m, &v) && !strcmp(m.err, "truncated string"), "str32");
    size_t deep = 1 << 20;
    uint8_t *nest = malloc(deep + 1);
    memset(nest, 0x91, deep);
    nest[deep] = 0xc0;
    msgpack_init(&m, nest, deep + 1);
    CHECK(msgpack_skip(&m) && msgpack_offset(&m) == deep + 1, "deep nesting");
    msgpack_init(&m, nest, deep);
    CHECK(!msgpack_skip(&m), "deep nesting, truncated");
    free(nest);
    static const uint8_t huge[] = {0xdf, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02};
    msgpack_init(&m, huge, sizeof huge);
    CHECK(!msgpack_skip(&m), "map32");
}

/* ---- occupancy -------------------------------------------------------------------------------- */

static void test_occupancy(void)
{
    /* AMD's CDNA3 VGPR table (rocm-kernel-optimization.md), granule 8, for every count 1..512,
     * with 4-wave workgroups and no LDS, so nothing else limits. */
    for (int v = 1; v <= 512; v++) {
        int want = v <= 64 ? 8 : v <= 72 ? 7 : v <= 80 ? 6 : v <= 96 ? 5 : v <= 128 ? 4 : v <= 168 ? 3 : v <= 256 ? 2 : 1;
        const char *lim;
        int got = report_occupancy(v, 0, 256, &lim);
        CHECK(got == want, "vgprs %d: %d waves, AMD's table %d", v, got, want);
        CHECK(!strcmp(lim, want == 8 ? "max waves" : "vgprs"), "vgprs %d: limiter %s", v, lim);
    }
    const char *lim;
    /* LDS: 32 KiB -> 2 workgroups of 4 waves -> 2 waves per SIMD */
    CHECK(report_occupancy(64, 32768, 256, &lim) == 2 && !strcmp(lim, "lds"), "32K lds: %s", lim);
    /* a non-multiple of the 512-byte LDS block rounds up: 21000 -> 21504 -> 3 workgroups */
    CHECK(report_occupancy(64, 21000, 256, &lim) == 3 && !strcmp(lim, "lds"), "21000 B lds: %s", lim);
    /* 8-wave workgroups: 128 VGPRs (4 waves) -> 2 workgroups -> 4 waves: VGPRs limit */
    CHECK(report_occupancy(128, 0, 512, &lim) == 4 && !strcmp(lim, "vgprs"), "128/512: %s", lim);
    /* 168 VGPRs (3 waves) with 8-wave workgroups: floor(12 / 8) = 1 workgroup -> 2 waves */
    CHECK(report_occupancy(168, 0, 512, &lim) == 2 && !strcmp(lim, "workgroup"), "168/512: %s", lim);
    /* 3-wave workgroups: floor(32 / 3) = 10 workgroups -> 30 waves / 4 = 7 */
    CHECK(report_occupancy(32, 0, 192, &lim) == 7 && !strcmp(lim, "workgroup"), "32/192: %s", lim);
    /* 1-wave workgroup that takes all LDS: one wave on one SIMD */
    CHECK(report_occupancy(32, 65536, 64, &lim) == 1 && !strcmp(lim, "lds"), "1 wave: %s", lim);
    /* more LDS than a CU has: nothing fits */
    CHECK(report_occupancy(32, 65537, 256, &lim) == 0 && !strcmp(lim, "lds"), "too much lds: %s", lim);
    /* a 16-wave workgroup with 256 VGPRs cannot be resident at all */
    CHECK(report_occupancy(256, 0, 1024, &lim) == 0 && !strcmp(lim, "workgroup"), "too big: %s", lim);
    /* gfx950: 160 KiB of LDS, 1280-byte blocks: 64 KiB -> 2 workgroups where gfx942 holds 1 */
    CHECK(report_occupancy_for("gfx950", 64, 0, 65536, 256, &lim) == 2 && !strcmp(lim, "lds"), "gfx950: %s", lim);
    CHECK(report_occupancy_for("gfx942", 64, 0, 65536, 256, &lim) == 1, "gfx942 64K");
    /* 100 VGPRs -> 104 -> floor(512 / 104) = 4 */
    CHECK(report_occupancy_for("gfx90a", 100, 0, 0, 256, &lim) == 4 && !strcmp(lim, "vgprs"), "gfx90a: %s", lim);
    /* SGPRs above 100 allow 7 waves (LLVM getOccupancyWithNumSGPRs, GFX9) */
    CHECK(report_occupancy_for("gfx942", 32, 102, 0, 256, &lim) == 7 && !strcmp(lim, "sgprs"), "sgprs: %s", lim);
    CHECK(report_occupancy_for("gfx1100", 32, 0, 0, 256, &lim) == -1 && !strcmp(lim, "unknown target"), "gfx1100");
    CHECK(report_occupancy_for(NULL, 32, 0, 0, 256, &lim) == -1, "NULL cpu");
}

static void test_classify(void)
{
    static const struct {
        const char *mn;
        int cls, bits;
    } cases[] = {
        {"global_load_dwordx4", MEM_GLOBAL_LOAD, 128},  {"global_load_b128", MEM_GLOBAL_LOAD, 128},
        {"global_load_short_d16_hi", MEM_GLOBAL_LOAD, 16}, {"global_load_ubyte_d16", MEM_GLOBAL_LOAD, 8},
        {"global_load_lds_dwordx4", MEM_GLOBAL_LOAD, 128}, {"global_load_d16_b16", MEM_GLOBAL_LOAD, 16},
        {"global_store_byte_d16_hi", MEM_GLOBAL_STORE, 8}, {"global_store_b96", MEM_GLOBAL_STORE, 96},
        {"buffer_load_format_xy", MEM_BUFFER_LOAD, 64},  {"buffer_load_format_d16_xyzw", MEM_BUFFER_LOAD, 64},
        {"buffer_load_format_d16_hi_x", MEM_BUFFER_LOAD, 16}, {"buffer_load_format_d16_xyz", MEM_BUFFER_LOAD, 48},
        {"buffer_store_dwordx2", MEM_BUFFER_STORE, 64}, {"scratch_store_dword", MEM_SCRATCH_STORE, 32},
        {"flat_load_sbyte", MEM_FLAT_LOAD, 8},          {"ds_read_b128", MEM_LDS_READ, 128},
        {"ds_read2_b32", MEM_LDS_READ, 64},             {"ds_read2st64_b64", MEM_LDS_READ, 128},
        {"ds_read_u16_d16_hi", MEM_LDS_READ, 16},       {"ds_read_b64_tr_b16", MEM_LDS_READ, 64},
        {"ds_read_addtid_b32", MEM_LDS_READ, 32},       {"ds_load_2addr_stride64_b32", MEM_LDS_READ, 64},
        {"ds_load_u8", MEM_LDS_READ, 8},                {"ds_write2_b64", MEM_LDS_WRITE, 128},
        {"ds_write_b8_d16_hi", MEM_LDS_WRITE, 8},       {"ds_store_b96", MEM_LDS_WRITE, 96},
        {"ds_storexchg_rtn_b32", MEM_NONE, 0},          {"ds_wrxchg_rtn_b32", MEM_NONE, 0},
        {"ds_bpermute_b32", MEM_NONE, 0},               {"ds_add_u32", MEM_NONE, 0},
        {"global_atomic_add_f32", MEM_NONE, 0},         {"buffer_atomic_add", MEM_NONE, 0},
        {"s_load_dwordx4", MEM_NONE, 0},                {"buffer_wbl2", MEM_NONE, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int bits, cls = report_classify_memory(cases[i].mn, &bits);
        CHECK(cls == cases[i].cls && (cls == MEM_NONE || bits == cases[i].bits), "%s: class %d bits %d", cases[i].mn,
              cls, bits);
    }
}

/* ---- malformed input ---------------------------------------------------------------------------- */

static int try_bytes(const void *b, size_t n, const char **msg)
{
    Arena a;
    arena_init(&a, arena_default_allocator);
    CodeReport r;
    const char *err = NULL;
    int rc = report_code_object(&a, b, n, &r, &err);
    static char last[600];
    snprintf(last, sizeof last, "%s", rc < 0 && err ? err : "");
    if (rc < 0)
        CHECK(err && err[0], "rc -1 without a message");
    else {
        CHECK(rc == 0, "rc %d", rc);
        char *t = report_text(&a, &r), *j = report_json(&a, &r);
        CHECK(t && j && json_valid(j), "output of a corrupted object that was accepted");
    }
    arena_free(&a);
    if (msg)
        *msg = last;
    return rc;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint64_t rdle(const uint8_t *b, uint64_t off, int w)
{
    uint64_t v = 0;
    for (int i = w - 1; i >= 0; i--)
        v = v << 8 | b[off + (uint64_t)i];
    return v;
}

static void wr16(char *b, size_t off, unsigned v)
{
    b[off] = (char)(v & 0xff);
    b[off + 1] = (char)(v >> 8);
}

/* Finds the symbol `name` of STT_FUNC in .symtab and .dynsym and returns the file offsets of their
 * entries (an independent little ELF walk, for the tests that damage a symbol). */
static int func_entries(const char *b, size_t n, const char *name, size_t *offs, int max)
{
#define U(off, w) rdle((const uint8_t *)b, (off), (w))
    int k = 0;
    uint64_t shoff = U(40, 8), shnum = U(60, 2);
    for (uint64_t i = 0; i < shnum; i++) {
        uint64_t sh = shoff + 64 * i;
        uint64_t type = U(sh + 4, 4), off = U(sh + 24, 8), size = U(sh + 32, 8), link = U(sh + 40, 4);
        if (type != 2 && type != 11)
            continue;
        uint64_t stroff = U(shoff + 64 * link + 24, 8);
        for (uint64_t e = off; e + 24 <= off + size && e + 24 <= n; e += 24)
            if (!strcmp(b + stroff + U(e, 4), name) && (b[e + 4] & 0xf) == 2 && k < max)
                offs[k++] = (size_t)e;
    }
    return k;
#undef U
}

static void test_malformed(void)
{
    const char *msg;
    CHECK(try_bytes(NULL, 0, &msg) == -1 && !strcmp(msg, "not a code object: empty input"), "empty: %s", msg);
    CHECK(try_bytes("", 0, &msg) == -1, "empty");
    CHECK(try_bytes("hello, world", 12, &msg) == -1 && !strcmp(msg, "not a code object: not an ELF file"), "%s", msg);

    size_t n;
    char *self = slurp("/proc/self/exe", &n);
    if (self) {
        CHECK(try_bytes(self, n, &msg) == -1 &&
                  !strcmp(msg, "not an AMDGPU code object: ELF machine 62 (x86-64), expected 224 (AMDGPU)"),
              "x86-64: %s", msg);
        free(self);
    }

    const char *path = build("copy", "gfx942", "");
    char *good = path ? slurp(path, &n) : NULL;
    if (!good)
        return;
    char *b = malloc(n);

    /* every truncation */
    for (size_t len = 0; len < n; len++) {
        memcpy(b, good, len);
        CHECK(try_bytes(b, len, &msg) == -1, "truncated to %zu bytes was accepted", len);
    }
    /* header fields */
    memcpy(b, good, n);
    b[4] = 1;
    CHECK(try_bytes(b, n, &msg) == -1 && strstr(msg, "ELF32"), "ELF32: %s", msg);
    memcpy(b, good, n);
    b[5] = 2;
    CHECK(try_bytes(b, n, &msg) == -1 && strstr(msg, "big-endian"), "big-endian: %s", msg);
    memcpy(b, good, n);
    wr16(b, 18, 62);
    CHECK(try_bytes(b, n, &msg) == -1 && strstr(msg, "ELF machine 62"), "machine: %s", msg);
    memcpy(b, good, n);
    b[48] = 0x27;
    CHECK(try_bytes(b, n, &msg) == -1 && !strcmp(msg, "unknown AMDGPU processor: EF_AMDGPU_MACH 0x27 in the ELF "
                                                      "header's e_flags"), "mach: %s", msg);
    memcpy(b, good, n);
    b[48] = 0x4b; /* gfx941: reserved in LLVM 22, disassembled as gfx942 */
    CHECK(try_bytes(b, n, &msg) == 0, "gfx941: %s", msg);
    /* the note: its type, then every byte of its msgpack flipped several ways */
    char *note = memmem(good, n, "AMDGPU\0\0", 8);
    CHECK(note != NULL, "no note name in the file");
    if (note) {
        size_t at = (size_t)(note - good); /* the header's type field is the 4 bytes before */
        memcpy(b, good, n);
        b[at - 4] = 33;
        CHECK(try_bytes(b, n, &msg) == -1 && strstr(msg, "no AMDGPU metadata note"), "note type: %s", msg);
        memcpy(b, good, n);
        b[at - 8] = (char)0xff; /* descsz far past the section */
        b[at - 7] = (char)0xff;
        CHECK(try_bytes(b, n, &msg) == -1 && strstr(msg, "bad note"), "descsz: %s", msg);
        uint32_t descsz = (uint8_t)good[at - 8] | (uint32_t)(uint8_t)good[at - 7] << 8;
        static const uint8_t xors[] = {0x01, 0x10, 0x80, 0xff, 0x3f};
        for (size_t i = at + 8; i < at + 8 + descsz && i < n; i++)
            for (size_t x = 0; x < sizeof xors; x++) {
                memcpy(b, good, n);
                b[i] ^= (char)xors[x];
                try_bytes(b, n, NULL);
            }
        /* the msgpack cut short, as if the note said so */
        for (uint32_t d = 0; d < descsz; d += 7) {
            memcpy(b, good, n);
            b[at - 8] = (char)(d & 0xff);
            b[at - 7] = (char)(d >> 8);
            CHECK(try_bytes(b, n, &msg) == -1, "msgpack cut to %u bytes was accepted", d);
        }
    }
    /* the kernel's code symbol: too big for its section, empty, or missing */
    size_t ents[4];
    int ne = func_entries(good, n, "copy4", ents, 4);
    CHECK(ne == 2, "copy4 in .symtab and .dynsym: %d entries", ne);
    memcpy(b, good, n);
    for (int i = 0; i < ne; i++)
        b[ents[i] + 19] = 0x10; /* st_size += 0x10000000 */
    CHECK(try_bytes(b, n, &msg) == -1 &&
              !strcmp(msg, "kernel 'copy4': code at 0x1f00 (268435504 bytes) lies outside its section or the file"),
          "size: %s", msg);
    memcpy(b, good, n);
    for (int i = 0; i < ne; i++)
        memset(b + ents[i] + 16, 0, 8);
    CHECK(try_bytes(b, n, &msg) == -1 && !strcmp(msg, "kernel 'copy4': symbol 'copy4' has size 0"), "size 0: %s", msg);
    memcpy(b, good, n);
    char *kd = note ? memmem(note, n - (size_t)(note - good), "copy4.kd", 8) : NULL;
    CHECK(kd != NULL, "no .symbol copy4.kd in the note");
    if (kd) {
        b[kd - good + 4] = '9';
        CHECK(try_bytes(b, n, &msg) == -1 &&
                  !strcmp(msg, "kernel 'copy4': no function symbol 'copy9' in the symbol table"),
              "symbol: %s", msg);
    }
    /* every byte flipped */
    for (size_t i = 0; i < n; i++) {
        memcpy(b, good, n);
        b[i] ^= (char)0xff;
        try_bytes(b, n, NULL);
    }
    /* random multi-byte damage, and random bytes behind a valid header */
    for (int it = 0; it < 2000; it++) {
        memcpy(b, good, n);
        int k = 1 + (int)(next_rand() % 8);
        for (int j = 0; j < k; j++)
            b[next_rand() % n] = (char)next_rand();
        try_bytes(b, n, NULL);
    }
    for (int it = 0; it < 200; it++) {
        memcpy(b, good, 64);
        for (size_t j = 64; j < n; j++)
            b[j] = (char)next_rand();
        try_bytes(b, n, NULL);
    }
    free(b);
    free(good);
}

int main(void)
{
    llc = find_tool("llc-22", "/usr/lib/llvm-22/bin/llc");
    lld = find_tool("ld.lld-22", "/usr/lib/llvm-22/bin/ld.lld");
    objdump = find_tool("llvm-objdump-22", "/usr/lib/llvm-22/bin/llvm-objdump");
    readobj = find_tool("llvm-readobj-22", "/usr/lib/llvm-22/bin/llvm-readobj");
    readelf = find_tool("llvm-readelf-22", "/usr/lib/llvm-22/bin/llvm-readelf");
    if (!llc || !lld || !objdump || !readobj || !readelf) {
        printf("skipped: needs llc, ld.lld, llvm-objdump, llvm-readobj and llvm-readelf from LLVM 22\n");
        return 77;
    }
    if (access(DATA "copy.ll", R_OK) != 0) {
        fprintf(stderr, "cannot read " DATA "copy.ll: run from the repository root\n");
        return 1;
    }
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_classify();
    test_occupancy();
    test_copy();
    test_widths();
    test_lds();
    test_buffer();
    test_loop();
    test_mfma("gfx942", "v_mfma_f32_16x16x16_bf16", "v_mfma_f32_32x32x8_bf16");
    test_mfma("gfx90a", "v_mfma_f32_16x16x16bf16_1k", "v_mfma_f32_32x32x8bf16_1k");
    test_mfma("gfx950", "v_mfma_f32_16x16x16_bf16", "v_mfma_f32_32x32x8_bf16");
    test_spill();
    test_other_targets();
    test_msgpack();
    test_gemm_and_timing();
    test_malformed();

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("all report tests passed\n");
    return 0;
}
