/* The report as text (`rkc --report`) and as JSON (`rkc --report=json`).
 *
 * Text: one block per kernel, one line per topic, fixed labels in a 10-character column, so golden
 * tests and eyes can rely on the layout:
 *
 *   kernel matmul (gfx942)
 *     registers  vgpr 128  agpr 64  total 192  sgpr 48   spills vgpr 0 sgpr 0   scratch 0 B
 *     lds        32768 B
 *     occupancy  2 waves/SIMD (limited by vgprs)   workgroup 256 = 4 waves
 *     mfma       256   v_mfma_f32_16x16x16_bf16 x256
 *     global     load b32 x2 b128 x8   store b64 x16
 *     buffer     -
 *     flat       -
 *     scratch    -
 *     lds ops    read b128 x32   write b128 x8
 *     s_waitcnt  24   instructions 1234   in main loop 456
 *     loop       @95 x175: 1840 cycles/iter   mfma 64 busy 75%   mfma-free 50   stalls vmcnt 0 lgkmcnt 232 lds 40 barrier 64 valu 80 salu 24 other 24   banks known 38 conflicted 8 ways 16 unknown 0 cycles 480
 *
 * The loop lines (the cycle model's, report_loop.c) come one per loop, by position: the index of its
 * first instruction and its length, cycles per iteration, MFMAs in it and the share of the cycles the
 * matrix unit is busy, the longest MFMA-free run of instructions, the idle cycles by cause, and the
 * LDS bank conflicts (the DS reads and writes whose addresses are known, those conflicted, their worst
 * ways, those unknown, and the LDS cycles the conflicts add an iteration); none
 * for a kernel without loops or a CPU without a model. Widths print in increasing order and only when non-zero; "-" means none at all. Kernel names are
 * printed with control characters replaced by '?'. JSON: {"cpu": ..., "kernels": [...]} with every
 * field of KernelReport; width arrays as objects keyed "8" ... "128" (all six keys, zeros included);
 * mfma as an object mnemonic -> count; loops as an array of objects (first, instructions, mfma,
 * cycles, mfma_busy, mfma_utilisation = mfma_busy / cycles, mfma_free, stalls: an object cause ->
 * cycles, banks: {known, conflicted, worst_ways, unknown, conflict_cycles}), [] when there are none. Strings are escaped, and bytes that are not UTF-8 are written
 * as \u00XX, so the output is valid JSON whatever the names hold. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "support/strbuf.h"

static const int width_bits[NWIDTHS] = {8, 16, 32, 64, 96, 128};

/* ---- text ------------------------------------------------------------------------------------- */

static void text_name(StrBuf *b, const char *s)
{
    for (; *s; s++) {
        char c = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
        strbuf_put(b, &c, 1);
    }
}

static bool any(const int *w)
{
    for (int i = 0; i < NWIDTHS; i++)
        if (w[i])
            return true;
    return false;
}

static void text_widths(StrBuf *b, const char *what, const int *w)
{
    strbuf_printf(b, "%s", what);
    for (int i = 0; i < NWIDTHS; i++)
        if (w[i])
            strbuf_printf(b, " b%d x%d", width_bits[i], w[i]);
}

static void text_mem(StrBuf *b, const char *label, const char *in, const int *lo, const char *out, const int *st)
{
    strbuf_printf(b, "  %-10s ", label);
    if (!any(lo) && !any(st)) {
        strbuf_printf(b, "-\n");
        return;
    }
    if (any(lo))
        text_widths(b, in, lo);
    if (any(lo) && any(st))
        strbuf_printf(b, "   ");
    if (any(st))
        text_widths(b, out, st);
    strbuf_printf(b, "\n");
}

/* The global line: loads, stores, then atomics (which are neither) */
static void text_global(StrBuf *b, const KernelReport *k)
{
    if (!any(k->global_atomics)) {
        text_mem(b, "global", "load", k->global_loads, "store", k->global_stores);
        return;
    }
    strbuf_printf(b, "  %-10s ", "global");
    if (any(k->global_loads))
        text_widths(b, "load", k->global_loads), strbuf_printf(b, "   ");
    if (any(k->global_stores))
        text_widths(b, "store", k->global_stores), strbuf_printf(b, "   ");
    text_widths(b, "atomic", k->global_atomics);
    strbuf_printf(b, "\n");
}

static int percent(int part, int whole)
{
    return whole > 0 ? (int)((200LL * part + whole) / (2LL * whole)) : 0;
}

char *report_text(Arena *a, const CodeReport *r)
{
    StrBuf b;
    strbuf_init(&b, a);
    strbuf_put(&b, "", 0);
    for (int i = 0; i < r->nkernels; i++) {
        const KernelReport *k = &r->kernels[i];
        if (i)
            strbuf_printf(&b, "\n");
        strbuf_printf(&b, "kernel ");
        text_name(&b, k->name ? k->name : "?");
        strbuf_printf(&b, " (%s)\n", r->cpu ? r->cpu : "?");
        strbuf_printf(&b, "  registers  vgpr %d  agpr %d  total %d  sgpr %d   spills vgpr %d sgpr %d   scratch %d B\n",
                k->vgprs, k->agprs, k->vgprs_total, k->sgprs, k->vgpr_spills, k->sgpr_spills, k->scratch_bytes);
        strbuf_printf(&b, "  lds        %d B\n", k->lds_bytes);
        int wave = k->wave_size > 0 ? k->wave_size : 64;
        int nw = k->workgroup_size > 0 ? (k->workgroup_size + wave - 1) / wave : 0;
        if (k->waves_per_simd < 0)
            strbuf_printf(&b, "  occupancy  - (no model for %s)", r->cpu ? r->cpu : "?");
        else
            strbuf_printf(&b, "  occupancy  %d waves/SIMD (limited by %s)", k->waves_per_simd, k->limiter ? k->limiter : "?");
        strbuf_printf(&b, "   workgroup %d = %d wave%s\n", k->workgroup_size, nw, nw == 1 ? "" : "s");
        strbuf_printf(&b, "  mfma       %d", k->mfma_total);
        int listed = 0;
        for (int m = 0; m < k->nmfma; m++) {
            strbuf_printf(&b, "%s%s x%d", m ? "  " : "   ", k->mfma[m].mnemonic, k->mfma[m].count);
            listed += k->mfma[m].count;
        }
        if (listed < k->mfma_total)
            strbuf_printf(&b, "  other x%d", k->mfma_total - listed);
        strbuf_printf(&b, "\n");
        text_global(&b, k);
        text_mem(&b, "buffer", "load", k->buffer_loads, "store", k->buffer_stores);
        text_mem(&b, "flat", "load", k->flat_loads, "store", k->flat_stores);
        text_mem(&b, "scratch", "load", k->scratch_loads, "store", k->scratch_stores);
        text_mem(&b, "lds ops", "read", k->lds_reads, "write", k->lds_writes);
        strbuf_printf(&b, "  s_waitcnt  %d   instructions %d   in main loop %d\n", k->waitcnt, k->instructions,
                k->loop_instructions);
        for (int l = 0; l < k->nloops; l++) {
            const LoopReport *lp = &k->loops[l];
            strbuf_printf(&b, "  loop       @%d x%d: %d cycles/iter   mfma %d busy %d%%   mfma-free %d   stalls", lp->first,
                    lp->instructions, lp->cycles, lp->mfma, percent(lp->mfma_busy, lp->cycles), lp->mfma_free);
            for (int c = 0; c < NSTALLS; c++)
                strbuf_printf(&b, " %s %d", report_stall_names[c], lp->stalls[c]);
            strbuf_printf(&b, "   banks known %d conflicted %d ways %d unknown %d cycles %d\n", lp->lds_evaluated,
                          lp->lds_conflicted, lp->lds_worst_ways, lp->lds_unknown, lp->lds_conflict_cycles);
        }
    }
    return b.p;
}

/* ---- JSON ------------------------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (1-4), or 0. */
static int utf8_len(const unsigned char *s)
{
    int n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0)))
        return 0; /* overlong, surrogate */
    if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90)))
        return 0; /* overlong, beyond U+10FFFF */
    return n;
}

static void json_str(StrBuf *b, const char *str)
{
    const unsigned char *s = (const unsigned char *)(str ? str : "");
    strbuf_put(b, "\"", 1);
    while (*s) {
        if (*s == '"' || *s == '\\') {
            strbuf_printf(b, "\\%c", *s);
            s++;
        } else if (*s < 0x20 || *s == 0x7f) {
            strbuf_printf(b, "\\u%04x", *s);
            s++;
        } else if (*s < 0x80) {
            strbuf_put(b, (const char *)s, 1);
            s++;
        } else {
            int n = utf8_len(s);
            if (n) {
                strbuf_put(b, (const char *)s, (size_t)n);
                s += n;
            } else {
                strbuf_printf(b, "\\u%04x", *s); /* read the stray byte as Latin-1 */
                s++;
            }
        }
    }
    strbuf_put(b, "\"", 1);
}

static void json_widths(StrBuf *b, const char *key, const int *w)
{
    strbuf_printf(b, ", \"%s\": {", key);
    for (int i = 0; i < NWIDTHS; i++)
        strbuf_printf(b, "%s\"%d\": %d", i ? ", " : "", width_bits[i], w[i]);
    strbuf_printf(b, "}");
}

char *report_json(Arena *a, const CodeReport *r)
{
    StrBuf b;
    strbuf_init(&b, a);
    strbuf_printf(&b, "{\"cpu\": ");
    json_str(&b, r->cpu);
    strbuf_printf(&b, ", \"kernels\": [");
    for (int i = 0; i < r->nkernels; i++) {
        const KernelReport *k = &r->kernels[i];
        strbuf_printf(&b, "%s\n  {\"name\": ", i ? "," : "");
        json_str(&b, k->name);
        strbuf_printf(&b, ", \"vgprs\": %d, \"agprs\": %d, \"vgprs_total\": %d, \"sgprs\": %d", k->vgprs, k->agprs,
                k->vgprs_total, k->sgprs);
        strbuf_printf(&b, ", \"lds_bytes\": %d, \"scratch_bytes\": %d, \"vgpr_spills\": %d, \"sgpr_spills\": %d",
                k->lds_bytes, k->scratch_bytes, k->vgpr_spills, k->sgpr_spills);
        strbuf_printf(&b, ", \"workgroup_size\": %d, \"wave_size\": %d, \"waves_per_simd\": %d, \"limiter\": ",
                k->workgroup_size, k->wave_size, k->waves_per_simd);
        json_str(&b, k->limiter);
        strbuf_printf(&b, ",\n   \"instructions\": %d, \"mfma_total\": %d, \"mfma\": {", k->instructions, k->mfma_total);
        for (int m = 0; m < k->nmfma; m++) {
            if (m)
                strbuf_printf(&b, ", ");
            json_str(&b, k->mfma[m].mnemonic);
            strbuf_printf(&b, ": %d", k->mfma[m].count);
        }
        strbuf_printf(&b, "}");
        json_widths(&b, "global_loads", k->global_loads);
        json_widths(&b, "global_stores", k->global_stores);
        json_widths(&b, "global_atomics", k->global_atomics);
        json_widths(&b, "buffer_loads", k->buffer_loads);
        json_widths(&b, "buffer_stores", k->buffer_stores);
        json_widths(&b, "flat_loads", k->flat_loads);
        json_widths(&b, "flat_stores", k->flat_stores);
        json_widths(&b, "scratch_loads", k->scratch_loads);
        json_widths(&b, "scratch_stores", k->scratch_stores);
        json_widths(&b, "lds_reads", k->lds_reads);
        json_widths(&b, "lds_writes", k->lds_writes);
        strbuf_printf(&b, ",\n   \"waitcnt\": %d, \"loop_instructions\": %d, \"loops\": [", k->waitcnt, k->loop_instructions);
        for (int l = 0; l < k->nloops; l++) {
            const LoopReport *lp = &k->loops[l];
            strbuf_printf(&b, "%s\n    {\"first\": %d, \"instructions\": %d, \"mfma\": %d, \"cycles\": %d, \"mfma_busy\": %d, "
                        "\"mfma_utilisation\": %.3f, \"mfma_free\": %d, \"stalls\": {",
                    l ? "," : "", lp->first, lp->instructions, lp->mfma, lp->cycles, lp->mfma_busy,
                    lp->cycles > 0 ? (double)lp->mfma_busy / lp->cycles : 0.0, lp->mfma_free);
            for (int c = 0; c < NSTALLS; c++)
                strbuf_printf(&b, "%s\"%s\": %d", c ? ", " : "", report_stall_names[c], lp->stalls[c]);
            strbuf_printf(&b, "}, \"banks\": {\"known\": %d, \"conflicted\": %d, \"worst_ways\": %d, \"unknown\": %d, "
                              "\"conflict_cycles\": %d}}",
                          lp->lds_evaluated, lp->lds_conflicted, lp->lds_worst_ways, lp->lds_unknown,
                          lp->lds_conflict_cycles);
        }
        strbuf_printf(&b, "]}");
    }
    strbuf_printf(&b, "%s]}\n", r->nkernels ? "\n" : "");
    return b.p;
}
