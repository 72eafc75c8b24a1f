/* driver_frugal.c: which kernels lost to their registers, or stopped reading ahead at a cap, and
 * whether their second compile did better (driver.c compiles them again as a LowerChoice says).
 *
 * The lowering spends VGPRs to save cycles where its estimate says they are there (the LDS maps'
 * address registers, k steps read in pairs, fragments read further ahead, rows carried for the LDS
 * queue); the estimate is made from the tile IR, before LLVM allocates, and can be wrong, and LLVM
 * allocates as many VGPRs as its schedule takes unless the kernel asks for an occupancy. The code
 * object says what the allocation came to: a kernel that spilled VGPRs, or that runs fewer waves a
 * SIMD than its LDS, workgroup and SGPRs allow (its VGPRs the limit), is compiled again in rounds
 * (driver_retry_plan): where a few VGPRs (at most a tenth) stand between it and its next occupancy
 * step, as if it asked for those waves (waves_per_eu: the lowering's register caps and LLVM's
 * amdgpu-waves-per-eu); where its lowering spent VGPRs and a dot read ahead for its drain, without
 * that read-ahead alone; where its lowering spent VGPRs, frugally; both at once. The second code is
 * kept where it spills less, or as much and runs more waves. A kernel with none of those retries whose
 * dot stopped reading ahead for its drain at DRAIN_MAX_AHEAD steps (compiler/lower/lower_dot.c), where
 * its registers allowed more, is compiled again with the cap lifted (DRAIN_DEEP): no
 * figure of the dot tells where that pays, so the second code is kept where it spills no more, runs
 * as many waves and its loops take at least DRIVER_RETRY_GAIN percent fewer cycles by rk's loop
 * model (report_loop.c; the same model bench/vs_triton and bench/tile_sweep.py judge by). The facts
 * come from the code object's metadata and, for the loop model, its disassembly
 * (compiler/target/amdgpu/report.h) or, for assembly without a retry for cycles, from the same
 * metadata in its text (`.amdgpu_metadata`). */
#include <stdlib.h>
#include <string.h>

#include "compiler/driver/driver_internal.h"
#include "compiler/target/amdgpu/report.h"
#include "compiler/target/target.h"

/* The value of `key` (".vgpr_count:") on a metadata line, or -1 where the line is not that key. */
static long key_value(const char *line, const char *key)
{
    size_t n = strlen(key);
    if (strncmp(line, key, n) != 0)
        return -1;
    return strtol(line + n, NULL, 10);
}

/* The kernels of the assembly's `amdhsa.kernels` list: entries start at "  - ." and their keys are
 * indented four spaces (an entry's `.args` list is indented further). Any text is safe: every read
 * stops at a NUL or a newline. A name the assembler quotes does not match the kernel's, which is then
 * not retried (rk's kernel names are identifiers, never quoted). */
static int facts_of_asm(Arena *a, const char *text, RegFacts **out)
{
    const char *list = text ? strstr(text, "\namdhsa.kernels:") : NULL;
    int n = 0, cap = 0;
    RegFacts *f = NULL;
    for (const char *p = list ? strchr(list + 1, '\n') : NULL; p && p[1] && (p[1] == ' ' || p[1] == '-');
         p = strchr(p + 1, '\n')) {
        const char *line = p + 1, *key;
        if (strncmp(line, "  - .", 5) == 0) {
            if (n == cap) {
                cap = cap ? 2 * cap : 4;
                RegFacts *g = ARENA_ARRAY(a, RegFacts, (size_t)cap);
                if (!g)
                    break;
                if (n)
                    memcpy(g, f, sizeof *g * (size_t)n);
                f = g;
            }
            f[n++] = (RegFacts){"", 0, 0, 0, 0, 0, 0, 0, 0};
            key = line + 4;
        } else if (strncmp(line, "    .", 5) == 0 && n) {
            key = line + 4;
        } else {
            continue;
        }
        RegFacts *k = &f[n - 1];
        long v;
        if (strncmp(key, ".name:", 6) == 0) {
            const char *s = key + 6, *e;
            while (*s == ' ')
                s++;
            for (e = s; *e && *e != '\n' && *e != ' '; e++)
                ;
            k->name = arena_strndup(a, s, (size_t)(e - s));
        } else if ((v = key_value(key, ".vgpr_count:")) >= 0) {
            k->vgprs = (int)v;
        } else if ((v = key_value(key, ".sgpr_count:")) >= 0) {
            k->sgprs = (int)v;
        } else if ((v = key_value(key, ".vgpr_spill_count:")) >= 0) {
            k->spills = (int)v;
        } else if ((v = key_value(key, ".sgpr_spill_count:")) >= 0) {
            k->sgpr_spills = (int)v;
        } else if ((v = key_value(key, ".private_segment_fixed_size:")) >= 0) {
            k->scratch = (int)v;
        } else if ((v = key_value(key, ".group_segment_fixed_size:")) >= 0) {
            k->lds = (int)v;
        } else if ((v = key_value(key, ".max_flat_workgroup_size:")) >= 0) {
            k->block = (int)v;
        }
    }
    *out = f;
    return n;
}

RegFacts driver_reg_facts_of(const KernelReport *kr)
{
    int cycles = 0;
    for (int l = 0; l < kr->nloops; l++)
        cycles += kr->loops[l].cycles;
    return (RegFacts){kr->name,         kr->vgprs_total, kr->sgprs,       kr->lds_bytes,   kr->vgpr_spills,
                      kr->workgroup_size, cycles,        kr->sgpr_spills, kr->scratch_bytes};
}

int driver_reg_facts(Arena *a, const void *binary, size_t size, const char *asm_text, bool cycles, RegFacts **out)
{
    *out = NULL;
    if (!binary)
        return facts_of_asm(a, asm_text, out);
    CodeReport rep;
    const char *err = NULL;
    if ((cycles ? report_code_object(a, binary, size, &rep, &err) : report_code_object_meta(a, binary, size, &rep, &err)) != 0)
        return 0;
    RegFacts *f = ARENA_ARRAY(a, RegFacts, (size_t)rep.nkernels + 1);
    if (!f)
        return 0;
    for (int k = 0; k < rep.nkernels; k++)
        f[k] = driver_reg_facts_of(&rep.kernels[k]);
    *out = f;
    return rep.nkernels;
}

static int waves(const Target *t, const RegFacts *f, int vgprs)
{
    return report_occupancy_for(t->cpu, vgprs, f->sgprs, f->lds, f->block, NULL);
}

bool driver_register_bound(const Target *t, const RegFacts *f)
{
    return f->spills > 0 || waves(t, f, f->vgprs) < waves(t, f, 0);
}

int driver_next_waves(const Target *t, const RegFacts *f)
{
    int now = waves(t, f, f->vgprs);
    if (f->spills > 0 || now <= 0 || now >= waves(t, f, 0))
        return 0;
    for (int v = f->vgprs - 1; v * 10 >= f->vgprs * 9; v--)
        if (waves(t, f, v) > now)
            return waves(t, f, v);
    return 0;
}

RetryBasis driver_retry_basis(const Target *t, const RegFacts *first, const DriverKernel *dk, bool asks_waves)
{
    return (RetryBasis){asks_waves ? 0 : driver_next_waves(t, first), dk->spends_regs && driver_register_bound(t, first),
                        dk->drain_capped && first->cycles > 0 /* (no model, no judgement) */, dk->drain_raised};
}

bool driver_retry_plan(int round, const RetryBasis *b, LowerChoice *choice)
{
    LowerChoice plans[DRIVER_RETRY_ROUNDS];
    int n = 0;
    if (b->waves > 0)
        plans[n++] = (LowerChoice){false, b->waves, DRAIN_CAPPED};
    if (b->spends)
        plans[n++] = (LowerChoice){true, 0, DRAIN_CAPPED};
    if (b->spends && b->waves > 0)
        plans[n++] = (LowerChoice){true, b->waves, DRAIN_CAPPED};
    /* the frugal lowering turns every spending choice off at once, and one of those can spill on its
     * own (an LDS map): the drain's read-ahead alone, where the dot read ahead so, for a kernel that
     * still spills after the rounds before */
    if (b->spends && b->raised)
        plans[n++] = (LowerChoice){false, 0, DRAIN_NONE};
    if (b->capped && n == 0) /* (reading further ahead spends registers: not where they are short) */
        plans[n++] = (LowerChoice){false, 0, DRAIN_DEEP};
    if (round < 1 || round > n)
        return false;
    *choice = plans[round - 1];
    return true;
}

bool driver_retry_better(const Target *t, const RegFacts *first, const RegFacts *second,
                         const LowerChoice *second_choice)
{
    int w1 = waves(t, first, first->vgprs), w2 = waves(t, second, second->vgprs);
    if (second_choice->drain != DRAIN_DEEP)
        return second->spills != first->spills ? second->spills < first->spills : w2 > w1;
    return second->spills <= first->spills && second->sgpr_spills <= first->sgpr_spills &&
           second->scratch <= first->scratch && w2 >= w1 && first->cycles > 0 && second->cycles > 0 &&
           (int64_t)second->cycles * 100 <= (int64_t)first->cycles * (100 - DRIVER_RETRY_GAIN);
}
