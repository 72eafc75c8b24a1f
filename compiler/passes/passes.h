/* The passes from layout-free tile IR (TIR) to tile IR with layouts (LIR), in pipeline order:
 *
 *   pipeline_loads      prefetch the loads feeding dots            (pipeline.c)
 *   compute_axis_info   contiguity, divisibility, constancy        (axis_info.h)
 *   assign_layouts      TIR -> LIR: anchors and rematerialisation   (assign_layouts.c)
 *   remove_converts     cancels conversion chains                   (remove_converts.c)
 *   compute_remarks     accesses narrower than the widest, and why  (remarks.c, rkc --remarks)
 *
 * driver.c runs them; each can be dumped with RK_DUMP_IR=<name>. */
#ifndef RK_PASSES_H
#define RK_PASSES_H

#include "compiler/layout/layout.h"
#include "compiler/tir/tir.h"

typedef struct LirOptions {
    const char *target; /* gfx942, gfx90a, gfx950, emu */
    int wave;           /* lanes per wave */
    bool use_mfma;      /* matrix instructions for dot (else FMAs): MFMA, or mma.sync when wave is 32 */
} LirOptions;

/* Builds the LIR of one kernel function into module `dst` (sharing the type table). Returns NULL after
 * reporting an error (e.g. a tile too large for any layout). */
Func *assign_layouts(Arena *a, Func *tir, Module *dst, LayoutTab *lt, const LirOptions *o, Diags *diags);
void remove_converts(Func *f);
/* Software pipelining of the loads feeding a dot, num_stages - 1 iterations ahead (TIR, before
 * layouts). */
void pipeline_loads(Func *f);

/* The MFMA choice for a dot, exposed for tests and the report: instruction, shape and waves. */
typedef struct DotChoice {
    bool mfma; /* a matrix instruction (AMD MFMA, or NVIDIA mma.sync when nv) */
    bool nv;
    int instr, im, in, ik, k_width;
    int wpc[2];
} DotChoice;
DotChoice choose_dot(const LirOptions *o, const Func *f, const Op *dot);

/* A performance remark (remarks.c): an access narrower than the widest, and why. */
typedef struct Remark {
    const char *kernel, *file;
    int line, col;
    const char *what; /* "global load", "global store" */
    int bits, widest; /* per lane: this access, and the widest the target and the tile allow */
    const char *why;  /* the fact that would widen it, in the language's terms */
} Remark;
/* The remarks of one kernel's tile IR (before layouts), `lanes` = num_warps * wave size. */
Remark *compute_remarks(Arena *a, Func *f, int lanes, int *n);

#endif
