/* Spill remarks (rkc --remarks, the JSON report's "remarks"): for each kernel of an AMDGPU code object
 * that spills registers (read from the code object itself, compiler/target/amdgpu/report.h), a remark
 * at its main loop naming the values live across that loop, largest first, with the registers each
 * takes in a lane (from its layout) and where it was made: what to shrink (a smaller tile, fewer
 * stages, a narrower accumulator) in the language's terms.
 *
 * The main loop is the loop with the most ops in its body, nested loops included. Live across it:
 * what compiler/tir/loop_live.c finds, the values it carries and the values made before it that its
 * body reads. A tile's registers per lane are its layout's registers
 * times its element's bits over 32; a scalar counts one (it may well sit in an SGPR); a constant none
 * (one value splat over a tile, an immediate or a register hoisted out of the loop), and is not named. */
#include <stdlib.h>
#include <string.h>

#include "compiler/driver/driver_internal.h"
#include "compiler/layout/layout.h"
#include "compiler/passes/remark.h"
#include "compiler/target/amdgpu/report.h"
#include "compiler/target/target.h"

enum { MAX_LIVE = 256, SHOW = 5 };

static int count_ops(const Block *b)
{
    int n = 0;
    for (const Op *op = b->first; op; op = op->next) {
        n++;
        for (int r = 0; r < op->nregions; r++)
            n += count_ops(op->regions[r]);
    }
    return n;
}

static void find_main_loop(const Block *b, const Op **best, int *best_n)
{
    for (const Op *op = b->first; op; op = op->next) {
        if (op->code == OP_FOR || op->code == OP_WHILE) {
            int n = 0;
            for (int r = 0; r < op->nregions; r++)
                n += count_ops(op->regions[r]);
            if (n > *best_n)
                *best = op, *best_n = n;
        }
        for (int r = 0; r < op->nregions; r++)
            find_main_loop(op->regions[r], best, best_n);
    }
}

static int regs_of(const Value *v, int wave, int nw)
{
    const Type *t = v->type;
    if (v->def && v->def->code == OP_CONST)
        return 0; /* one value splat over the tile: an immediate where it is used */
    if (t->kind != TY_TILE)
        return 1;
    int bits = ty_bits(ty_elem(t));
    LinLayout ll;
    if (!t->layout || !lay_linear(t->layout, t->rank, t->shape, wave, nw, &ll))
        return (int)((ty_numel(t) * bits / (wave * nw) + 31) / 32);
    return (lin_nregs(&ll) * bits + 31) / 32;
}

static const char *describe(Arena *a, const Module *m, const Value *v, int regs)
{
    const char *name = v->name ? v->name : NULL;
    const char *where = "";
    if (v->def && v->def->pos.line)
        where = arena_printf(a, ", made at line %u", v->def->pos.line);
    return arena_printf(a, "%s%s%s (%s, %d register%s a lane%s)", name ? "`" : "a value", name ? name : "",
                        name ? "`" : "", ty_str(a, m->types, v->type), regs, regs == 1 ? "" : "s", where);
}

void driver_spill_remarks(Arena *a, DriverResult *out, const Module *lir, const Target *t)
{
    if (!out->binary || !out->size || !t || !lir)
        return;
    CodeReport rep;
    const char *err = NULL;
    if (report_code_object(a, out->binary, out->size, &rep, &err) != 0)
        return;
    for (int k = 0; k < rep.nkernels; k++) {
        const KernelReport *kr = &rep.kernels[k];
        if (!kr->vgpr_spills && !kr->sgpr_spills)
            continue;
        const Func *f = NULL;
        for (int i = 0; i < lir->nfuncs && !f; i++)
            if (strcmp(lir->funcs[i]->name, kr->name) == 0)
                f = lir->funcs[i];
        if (!f)
            continue;
        const Op *loop = NULL;
        int nloop = 0;
        find_main_loop(f->body, &loop, &nloop);
        int wave = t->wave_size, nw = f->opts.num_warps;
        const Value *live[MAX_LIVE];
        int regs[MAX_LIVE], n = 0;
        const char *list = "";
        if (loop) {
            int found = tir_loop_live(loop, live, MAX_LIVE);
            for (int i = 0; i < found; i++)
                if ((regs[n] = regs_of(live[i], wave, nw)) > 0)
                    live[n++] = live[i];
            int total = 0;
            for (int i = 0; i < n; i++)
                total += regs[i];
            for (int shown = 0; shown < SHOW && shown < n; shown++) {
                int best = shown;
                for (int i = shown + 1; i < n; i++)
                    if (regs[i] > regs[best])
                        best = i;
                const Value *tv = live[shown];
                int tr = regs[shown];
                live[shown] = live[best], regs[shown] = regs[best];
                live[best] = tv, regs[best] = tr;
                list = arena_printf(a, "%s%s%s", list, shown ? "; " : "", describe(a, lir, live[shown], regs[shown]));
            }
            list = arena_printf(a, "live across this loop, about %d registers a lane in all: %s%s", total, list,
                                n > SHOW ? "; ..." : "");
        } else {
            list = "the kernel has no loop: its largest tiles are live at once";
        }
        const SrcPos *pos = loop ? &loop->pos : NULL;
        const char *file = pos && pos->file < (uint32_t)lir->nfiles ? lir->files[pos->file] : NULL;
        const char *why = arena_printf(a, "%d VGPRs and %d SGPRs spilled, %d bytes of scratch a lane (%d VGPRs, %d "
                                          "AGPRs, %d SGPRs used); %s",
                                       kr->vgpr_spills, kr->sgpr_spills, kr->scratch_bytes, kr->vgprs, kr->agprs,
                                       kr->sgprs, list);
        Remark *all = ARENA_ARRAY(a, Remark, out->nremarks + 1);
        if (out->nremarks)
            memcpy(all, out->remarks, sizeof *all * (size_t)out->nremarks);
        all[out->nremarks] = (Remark){REMARK_SPILL, f->name, file, pos ? (int)pos->line : 0, pos ? (int)pos->col : 0,
                                      "spill", kr->vgpr_spills, kr->sgpr_spills, 0, why};
        out->remarks = all;
        out->nremarks++;
    }
}
