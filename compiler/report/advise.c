/* Advice: ranks the likely limiters of a kernel and config (advise.h), the procedure of ROCm's MI300X
 * workload guide made mechanical (../shared/background/rocm-kernel-optimization.md):
 *   memory or compute  arithmetic intensity (the compiler's FLOPs / bytes) against the device's ridge
 *                      point (peak FLOP/s / peak bytes/s); the roofline bound says which roof applies
 *   workgroups         fewer than about 1024 workgroups cannot fill 304 CUs with several each; fewer
 *                      than the CUs leaves CUs idle outright
 *   last wave          the grid in waves of (CUs x workgroups per CU): a partly filled last wave idles
 *                      the rest of the GPU for its duration
 *   occupancy          waves per SIMD and what limits it (report_occupancy_for: the VGPR table, LDS per
 *                      CU, waves per EU), with the VGPR or LDS budget of one more wave
 *   spills             scratch traffic from VGPR or SGPR spills
 *   narrow accesses    global loads and stores narrower than 128 bits per lane, from the ISA
 *   MFMA utilisation   the largest loop's mfma_busy / cycles in the loop cycle model, and its top stall
 *   XCD locality       a dot kernel over many workgroups that does not call xcd_remap
 *   512-byte strides   an integer parameter named ld* or stride* whose value in bytes (the first
 *                      pointer's element size) is a multiple of 512: the MI300X channel hot spot
 *   launch overhead    a roofline bound under 10 us, of the order of a launch's own cost
 *   LDS bank conflicts the compiler's bank-conflict remarks, when the compile has them
 * Scores are heuristics in [0, 1] meant for ranking only; each says its evidence in figures. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compiler/report/advise.h"

static void add(Advice *o, const char *name, double score, const char *evidence, const char *try_)
{
    if (o->n < ADVISE_MAX && score > 0)
        o->items[o->n++] = (Limiter){name, score > 1 ? 1 : score, evidence, try_};
}

/* The largest VGPR count (AGPRs included) that still gives `waves` waves per SIMD on CDNA2/3/4. */
static int vgprs_for(int waves)
{
    static const int t[] = {512, 512, 256, 168, 128, 96, 80, 72, 64};
    return waves >= 1 && waves <= 8 ? t[waves] : 0;
}

static int is_pow2_stride(const char *name)
{
    return strncmp(name, "ld", 2) == 0 || strncmp(name, "stride", 6) == 0;
}

void advise(Arena *a, const AdviseInput *in, Advice *o)
{
    memset(o, 0, sizeof *o);
    const rk_peaks *p = in->peaks;
    const rk_work *w = in->work;
    rk_roofline r;
    rk_roofline_of(p, w, 0, &r);
    o->intensity = r.intensity;
    o->ridge = r.ridge;
    o->bound_ms = r.bound_ms;
    o->limit = r.limit;
    double programs = (double)in->grid[0] * in->grid[1] * in->grid[2];
    const KernelReport *k = in->rep;
    int nw = k ? (k->workgroup_size + k->wave_size - 1) / k->wave_size : 0;
    o->waves_per_simd = -1;
    if (k) {
        o->waves_per_simd = report_occupancy_for(in->cpu, k->vgprs_total, k->sgprs, k->lds_bytes, k->workgroup_size,
                                                 &o->occ_limiter);
        o->workgroups_per_cu = nw > 0 && o->waves_per_simd > 0 ? o->waves_per_simd * 4 / nw : 0;
    }
    /* memory or compute */
    if (w->bytes > 0 || w->flops > 0) {
        bool mem = strcmp(r.limit, "memory") == 0;
        double ratio = r.ridge > 0 ? r.intensity / r.ridge : 0;
        const char *ev = arena_printf(a, "arithmetic intensity %.3g FLOP/B against the %s ridge point %.3g FLOP/B "
                                         "(%.4g TFLOP/s / %.4g GB/s)%s",
                                      r.intensity, p->name, r.ridge, r.peak_flops_per_s / 1e12, p->bytes_per_s / 1e9,
                                      w->estimate ? arena_printf(a, "; work is an estimate: %s", w->why) : "");
        if (mem)
            add(o, "memory bandwidth", 0.9 - 0.3 * ratio, ev,
                "move fewer bytes: fuse this kernel with its neighbours, keep data in a narrower type (bf16), "
                "reuse each loaded tile more (larger tiles along the reused dimension); then aim for 128-bit "
                "accesses and enough waves in flight to cover memory latency");
        else
            add(o, "compute", 0.9 - 0.3 * (ratio > 0 ? 1 / ratio : 0), ev,
                w->flops_dot > 0 ? "keep the matrix units busy: 16-bit or fp8 operands (bf16 and f16 run at the same "
                                   "matrix rate, fp8 at twice it), larger BLOCK_M x BLOCK_N per workgroup, "
                                   "num_stages=2, check the main loop's MFMA utilisation"
                                 : "less elementwise math per byte (exp2 with a folded log2(e), fewer conversions)");
    }
    /* workgroups */
    int cus = p->compute_units;
    if (programs < 1024) {
        double score = programs < cus ? 0.95 - 0.3 * programs / cus : 0.6 * (1 - programs / 1024);
        add(o, "workgroups", score,
            arena_printf(a, "%.0f workgroups for %d CUs (%s); fewer than about 1024 leave CUs idle or one "
                            "workgroup each with nothing to hide latency", programs, cus, p->name),
            w->flops_dot > 0 ? "smaller BLOCK_M / BLOCK_N, or split-K (examples/split_k.tile) to multiply the "
                               "workgroups of a small-grid matmul"
                             : "smaller blocks per program, so that more programs share the work");
    }
    /* tail of the last wave */
    if (k && o->workgroups_per_cu > 0 && programs >= cus) {
        double slots = (double)cus * o->workgroups_per_cu, waves = ceil(programs / slots);
        double idle = 1 - programs / (waves * slots);
        if (idle > 0.1 && waves <= 8)
            add(o, "last wave", idle * (waves <= 2 ? 0.8 : 0.4),
                arena_printf(a, "%.0f workgroups in %.0f waves of %.0f (%d CUs x %d per CU): the last wave is %.0f%% "
                                "full, %.0f%% of the GPU idles through it",
                             programs, waves, slots, cus, o->workgroups_per_cu,
                             100 * (programs - (waves - 1) * slots) / slots, 100 * idle),
                "a block size whose grid is a multiple of the wave (or many waves), or a persistent kernel");
    }
    /* occupancy */
    if (k && o->waves_per_simd >= 0 && o->waves_per_simd < 4) {
        const char *tr;
        int want = o->waves_per_simd + 1;
        if (o->occ_limiter && strcmp(o->occ_limiter, "vgprs") == 0)
            tr = arena_printf(a, "%d VGPRs -> %d or fewer gives %d waves per SIMD: waves_per_eu=%d, or smaller "
                                 "tiles (BLOCK_M, BLOCK_N)",
                              k->vgprs_total, vgprs_for(want), want, want);
        else if (o->occ_limiter && strcmp(o->occ_limiter, "lds") == 0)
            tr = arena_printf(a, "LDS %d -> %d bytes per workgroup gives %d workgroups per CU: a smaller BLOCK_K "
                                 "or num_stages=1",
                              k->lds_bytes, (p->lds_bytes_per_cu / (o->workgroups_per_cu + 1)) / 512 * 512,
                              o->workgroups_per_cu + 1);
        else
            tr = "fewer waves per workgroup (num_warps) so that more workgroups fit";
        double score = o->waves_per_simd <= 1 ? 0.5 : o->waves_per_simd == 2 ? 0.3 : 0.15;
        if (strcmp(r.limit, "memory") == 0)
            score += 0.1; /* latency hiding matters most to memory-bound kernels */
        add(o, "occupancy", score,
            arena_printf(a, "%d waves per SIMD (%d workgroups of %d waves per CU), limited by %s: %d VGPRs "
                            "(%d arch + %d AGPRs), %d bytes of LDS per workgroup",
                         o->waves_per_simd, o->workgroups_per_cu, nw, o->occ_limiter ? o->occ_limiter : "?",
                         k->vgprs_total, k->vgprs, k->agprs, k->lds_bytes),
            tr);
    }
    /* spills */
    if (k && (k->vgpr_spills || k->sgpr_spills || k->scratch_bytes))
        add(o, "spills", 0.85,
            arena_printf(a, "%d VGPRs and %d SGPRs spilled, %d bytes of scratch per lane", k->vgpr_spills,
                         k->sgpr_spills, k->scratch_bytes),
            "smaller tiles or fewer stages; waves_per_eu only when it does not force spills");
    /* narrow global accesses */
    if (k) {
        int narrow = 0, wide = 0;
        for (int i = 0; i < NWIDTHS; i++) {
            int n = k->global_loads[i] + k->global_stores[i] + k->buffer_loads[i] + k->buffer_stores[i];
            if (i == W128)
                wide += n;
            else
                narrow += n;
        }
        if (narrow)
            add(o, "narrow accesses", (strcmp(r.limit, "memory") == 0 ? 0.6 : 0.25) * narrow / (narrow + wide),
                arena_printf(a, "%d of %d global load/store instructions are narrower than 128 bits per lane", narrow,
                             narrow + wide),
                "rkc --remarks names each access and the fact that would widen it (a stride of 1, a size "
                "divisible by 16: --assume or multiple_of)");
    }
    /* MFMA utilisation of the main loop */
    if (k && k->nloops > 0) {
        const LoopReport *best = NULL;
        for (int i = 0; i < k->nloops; i++)
            if (k->loops[i].mfma > 0 && (!best || k->loops[i].instructions > best->instructions))
                best = &k->loops[i];
        if (best && best->cycles > 0) {
            double util = (double)best->mfma_busy / best->cycles;
            int top = 0;
            for (int s = 1; s < NSTALLS; s++)
                if (best->stalls[s] > best->stalls[top])
                    top = s;
            static const char *const fix[NSTALLS] = {
                "memory latency: num_stages=2 (software pipelining) or a larger BLOCK_K per iteration",
                "LDS latency: larger MFMA tiles (matrix_instr_nonkdim=32) or kpack=2, so fewer LDS reads per MFMA",
                "LDS bandwidth: 128-bit LDS reads (kpack) and fewer waves reading the same tile",
                "barriers: fewer waves per workgroup, or more work between barriers (BLOCK_K)",
                "VALU work in the loop: move address arithmetic out (pointer increments), fewer conversions",
                "scalar work in the loop",
                "instruction issue: larger MFMA shapes"};
            if (util < 0.8)
                add(o, "MFMA utilisation", (1 - util) * (strcmp(r.limit, "compute") == 0 ? 0.85 : 0.3),
                    arena_printf(a, "main loop: %d cycles per iteration, the matrix unit busy %d (%.0f%%); most "
                                    "idle cycles waiting on %s (%d)",
                                 best->cycles, best->mfma_busy, 100 * util, report_stall_names[top], best->stalls[top]),
                    fix[top]);
        }
    }
    /* XCD locality */
    if (w->flops_dot > 0 && programs >= 64 && !in->uses_xcd_remap && in->num_xcds > 1)
        add(o, "XCD locality", 0.3,
            arena_printf(a, "%.0f workgroups of a dot kernel, dealt round-robin over %d XCDs with their own L2, and "
                            "no xcd_remap", programs, in->num_xcds),
            "pid = xcd_remap(program_id(0), num_programs) (std/pid) so that neighbouring tiles share an XCD's L2");
    /* 512-byte strides */
    int esize = 0;
    for (int i = 0; i < in->nparams; i++)
        if (in->params[i].kind == RK_PARAM_POINTER) {
            esize = (int)rk_dtype_size(in->params[i].dtype);
            break;
        }
    const char *ev = NULL, *tr = NULL;
    bool hot = strncmp(p->arch, "gfx94", 5) == 0; /* names a target: the hot spot is MI300X's alone */
    for (int i = 0; esize && hot && i < in->nparams; i++) {
        const rk_param *q = &in->params[i];
        double v = in->values[i];
        if (q->kind != RK_PARAM_SCALAR || !is_pow2_stride(q->name) || v <= 0 || fmod(v * esize, 512) != 0)
            continue;
        const char *e = arena_printf(a, "%s = %.0f elements = %.0f bytes", q->name, v, v * esize);
        const char *t = arena_printf(a, "%s %.0f -> %.0f", q->name, v, v + 64 / esize);
        ev = ev ? arena_printf(a, "%s, %s", ev, e) : e;
        tr = tr ? arena_printf(a, "%s, %s", tr, t) : t;
    }
    if (ev)
        add(o, "512-byte stride", 0.25,
            arena_printf(a, "%s: multiples of 512 bytes, whose rows map to the same memory channels on MI300X", ev),
            arena_printf(a, "pad the leading dimensions by 64 bytes: %s", tr));
    /* launch overhead: against the bound of the CUs the grid can use */
    double used = programs < cus && programs > 0 ? programs / cus : 1, bound = r.bound_ms / used;
    if (bound > 0 && bound < 0.01)
        add(o, "launch overhead", 0.7 - 30 * bound,
            arena_printf(a, "the roofline allows %.2f us for this work on the %.0f of %d CUs its grid can use, less "
                            "than a launch costs (several us)",
                         bound * 1e3, used * cus, cus),
            "batch or fuse small launches (one kernel over many problems), or use a larger problem per launch");
    /* LDS bank conflicts, from the compiler's remarks when it has them */
    if (in->lds_conflict_remarks > 0)
        add(o, "LDS bank conflicts", in->lds_conflict_ways >= 8 ? 0.45 : 0.3,
            arena_printf(a, "%d LDS accesses whose lanes meet in a bank, up to %d-way (rkc --remarks lists them with "
                            "the layout behind each)",
                         in->lds_conflict_remarks, in->lds_conflict_ways),
            "a swizzled or padded LDS layout for the conflicting tile (kpack, BLOCK_K, or the operand's order)");
    /* rank */
    for (int i = 1; i < o->n; i++)
        for (int j = i; j > 0 && o->items[j].score > o->items[j - 1].score; j--) {
            Limiter t = o->items[j];
            o->items[j] = o->items[j - 1];
            o->items[j - 1] = t;
        }
}

static const char *esc(Arena *a, const char *s)
{
    const char *t = "";
    for (; s && *s; s++)
        t = *s == '"' || *s == '\\' ? arena_printf(a, "%s\\%c", t, *s)
            : (unsigned char)*s < 32 ? arena_printf(a, "%s ", t)
                                     : arena_printf(a, "%s%c", t, *s);
    return t;
}

char *advise_json(Arena *a, const AdviseInput *in, const Advice *v)
{
    const rk_work *w = in->work;
    const rk_peaks *p = in->peaks;
    char *t = arena_printf(a,
                           "{\"kernel\": \"%s\", \"config\": \"%s\", \"target\": \"%s\", \"grid\": [%u, %u, %u],\n"
                           " \"device\": {\"name\": \"%s\", \"estimate\": %s, \"compute_units\": %d, \"peak_flops\": %.6g, "
                           "\"peak_bytes_per_s\": %.6g, \"source\": \"%s\"},\n"
                           " \"work\": {\"flops\": %.17g, \"flops_dot\": %.17g, \"flops_elem\": %.17g, \"bytes\": %.17g, "
                           "\"bytes_read\": %.17g, \"bytes_written\": %.17g, \"bytes_min\": %.17g, \"dot_dtype\": \"%s\", \"estimate\": %s, "
                           "\"why\": \"%s\"},\n"
                           " \"roofline\": {\"intensity\": %.6g, \"ridge\": %.6g, \"bound_ms\": %.6g, \"limit\": \"%s\"},\n"
                           " \"occupancy\": {\"waves_per_simd\": %d, \"workgroups_per_cu\": %d, \"limiter\": \"%s\"},\n"
                           " \"limiters\": [",
                           esc(a, in->kernel), esc(a, in->config), in->target, in->grid[0], in->grid[1], in->grid[2],
                           p->name, in->peaks_estimate ? "true" : "false", p->compute_units, v->ridge * p->bytes_per_s,
                           p->bytes_per_s, esc(a, p->source), w->flops, w->flops_dot, w->flops_elem, w->bytes,
                           w->bytes_read, w->bytes_written, w->bytes_min, rk_dtype_name(w->dot_dtype), w->estimate ? "true" : "false",
                           esc(a, w->why), v->intensity, v->ridge, v->bound_ms, v->limit, v->waves_per_simd,
                           v->workgroups_per_cu, v->occ_limiter ? v->occ_limiter : "");
    for (int i = 0; i < v->n; i++)
        t = arena_printf(a, "%s%s\n  {\"rank\": %d, \"name\": \"%s\", \"score\": %.2f, \"evidence\": \"%s\", \"try\": \"%s\"}",
                         t, i ? "," : "", i + 1, v->items[i].name, v->items[i].score, esc(a, v->items[i].evidence),
                         esc(a, v->items[i].try_));
    return arena_printf(a, "%s]}\n", t);
}

char *advise_text(Arena *a, const AdviseInput *in, const Advice *v)
{
    const rk_work *w = in->work;
    const rk_peaks *p = in->peaks;
    char *t = arena_printf(a,
                           "advice for %s%s%s on %s (%s%s), grid %u x %u x %u\n"
                           "  work: %.4g FLOP (%.4g dot in %s, %.4g elementwise), %.4g bytes (%.4g read, %.4g "
                           "written; at least %.4g to memory)%s%s\n"
                           "  roofline: intensity %.3g FLOP/B, ridge %.3g FLOP/B: %s-bound, at best %.4g ms\n",
                           in->kernel, *in->config ? " " : "", in->config, p->name, in->target,
                           in->peaks_estimate ? ", peaks of the device the target stands for" : "", in->grid[0],
                           in->grid[1], in->grid[2], w->flops, w->flops_dot, rk_dtype_name(w->dot_dtype), w->flops_elem,
                           w->bytes, w->bytes_read, w->bytes_written, w->bytes_min, w->estimate ? "; an estimate: " : "",
                           w->estimate ? w->why : "", v->intensity, v->ridge, v->limit, v->bound_ms);
    if (v->waves_per_simd >= 0)
        t = arena_printf(a, "%s  occupancy: %d waves per SIMD, %d workgroups per CU, limited by %s\n", t,
                         v->waves_per_simd, v->workgroups_per_cu, v->occ_limiter ? v->occ_limiter : "?");
    for (int i = 0; i < v->n; i++)
        t = arena_printf(a, "%s%d. %s (%.2f): %s\n   try: %s\n", t, i + 1, v->items[i].name, v->items[i].score,
                         v->items[i].evidence, v->items[i].try_);
    if (!v->n)
        t = arena_printf(a, "%s(no limiter found)\n", t);
    return t;
}
