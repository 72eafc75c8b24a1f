/* The passes from layout-free tile IR (TIR) to tile IR with layouts (LIR). pass_table.c lists them in
 * pipeline order, one entry each (name, function, the RK_DUMP_IR stages shown after it); the driver
 * runs the list through one loop (driver.c, run_passes) and `rkc -x tir --passes=NAME,...` runs
 * entries one by one on IR text:
 *
 *   pipeline_loads      prefetch the loads feeding dots            (pipeline.c)
 *   canonicalize        fold, CSE, dead code                       (compiler/tir/canonicalize.c)
 *   compute_axis_info   contiguity, divisibility, constancy        (axis_info.c)
 *   compute_remarks     accesses narrower than the widest, and why (remarks.c, rkc --remarks)
 *   choose_dots         each dot's matrix instruction and waves,   (dot_choice.c)
 *                       as its accumulator layout (plan attributes)
 *   coalesce            each memory access's layout (a plan        (coalesce.c, layout_anchors.c)
 *                       attribute)
 *   assign_layouts      TIR -> LIR: anchors and rematerialisation  (assign_layouts.c, layout_anchors.c,
 *                                                                   layout_remat.c, target/nvptx/layout_async.c)
 *   canonicalize
 *   remove_converts     cancels conversion chains                  (remove_converts.c)
 *   plan_async          sm_90's stage buffers, cp.async or TMA,    (target/nvptx: plan_async.c, tma_match.c)
 *                       wgmma or mma.sync
 *   allocate_lds        LDS offsets, deferred dot operands         (allocate_lds.c)
 */
#ifndef RK_PASSES_H
#define RK_PASSES_H

#include "compiler/layout/layout.h"
#include "compiler/passes/remark.h"
#include "compiler/target/target.h"
#include "compiler/tir/tir.h"

typedef struct AxisTab AxisTab;

typedef struct LirOptions {
    const Target *target; /* whose layouts and matrix instructions (never NULL) */
    int wave;             /* lanes per wave: the target's wave size */
    bool use_mfma;        /* matrix instructions for dot (else FMAs): MFMA, or mma.sync when wave is 32 */
} LirOptions;

/* Builds the LIR of one kernel function into module `dst` (sharing the type table). `ax` is the axis
 * analysis of `tir` (compute_axis_info), or NULL to compute it here. Returns NULL after reporting an
 * error (e.g. a tile too large for any layout). */
Func *assign_layouts(Arena *a, Func *tir, AxisTab *ax, Module *dst, LayoutTab *lt, const LirOptions *o,
                     Diags *diags);
void remove_converts(Func *f);
/* sm_90's stage buffers (their shared memory) and how they are filled (cp.async, TMA), and each wgmma
 * layout's dot (wgmma, or mma.sync), as plan attributes on the loads, the dots and the kernel
 * (plan_async.c). */
void plan_async(Arena *a, Func *f, const Target *t);
/* A dot operand left in LDS for its dot to read k step by k step (allocate_lds's `defer`, the
 * lowering's deferred operands) is a convert_layout for which dot_operand_candidate holds (a dot_op
 * layout of a matrix instruction, `uses` 1), that does not only rename registers (lin_renames), for
 * which dot_operand_next_dot holds (the next dot of its block reads it), and that fits; plan_async
 * asks the same but for the fit. */
bool dot_operand_candidate(const Op *convert, int uses);
/* LDS scratch offsets and deferred dot operands, as plan attributes (allocate_lds.c); on AMD a dot
 * operand that finds the LDS taken by waiting operands moves those into registers. */
void allocate_lds(Arena *a, Func *f, const Target *t);
bool dot_operand_next_dot(const Op *convert);
/* Software pipelining of the loads feeding a dot, num_stages - 1 iterations ahead (TIR, before
 * layouts). */
void pipeline_loads(Func *f);

/* Each dot's choice (choose_dot) as plan attributes: `layout`, its accumulator's layout, and `k_width`,
 * its operands' (dot_choice.c). */
void choose_dots(Arena *a, Func *f, LayoutTab *lt, const LirOptions *o);
/* A dot's accumulator layout and its operands' k_width: its plan's (choose_dots), else chosen now (a
 * pass run alone on IR text without choose_dots). */
const Layout *dot_layout_of(LayoutTab *lt, const LirOptions *o, const Func *f, const Op *dot, int *k_width);

/* Each tile load's, store's and atomic's layout as the plan attribute `layout` (coalesce.c); `ax` is
 * the axis analysis of f, or NULL to compute it here. */
void coalesce(Arena *a, Func *f, AxisTab *ax, LayoutTab *lt, const LirOptions *o);

/* The MFMA choice for a dot, exposed for tests and the report: instruction, shape and waves. */
typedef struct DotChoice {
    bool mfma; /* a matrix instruction (AMD MFMA, or NVIDIA mma.sync when nv) */
    bool nv;
    int instr, im, in, ik, k_width;
    int wpc[2];
} DotChoice;
DotChoice choose_dot(const LirOptions *o, const Func *f, const Op *dot);

/* The remarks of one kernel's tile IR (before layouts), `lanes` = num_warps * wave size; `ax` is its
 * axis analysis, or NULL to compute it here. */
Remark *compute_remarks(Arena *a, Func *f, const AxisTab *ax, int lanes, int *n);

/* ---- the pass table (pass_table.c) ---------------------------------------------------------------- */

/* What the passes of one compile share: the target's options, the LIR module assign_layouts builds
 * into, the latest analysis, the remarks collected. */
typedef struct PassState {
    Arena *a;
    Diags *diags;
    LirOptions lo;
    LayoutTab *lt;
    Module *lir;        /* where assign_layouts puts each kernel's LIR */
    AxisTab *ax;        /* compute_axis_info's result for the function the next pass sees, or NULL */
    bool remarks;       /* run compute_remarks (rkc --remarks) */
    Remark *rems;       /* the remarks so far */
    int nrems;
} PassState;

enum {
    PASS_ANALYSIS = 1, /* changes no op or value (an analysis, or plan attributes only): PassState.ax
                        * stays valid across it */
    PASS_TIR = 2,      /* takes layout-free TIR */
    PASS_LIR = 4,      /* takes LIR */
    PASS_REMARKS = 8,  /* runs only when remarks are asked for */
    PASS_KERNEL = 16,  /* kernels only (rkc --passes leaves grid functions alone) */
};

/* One pass: `run` transforms *f in place or replaces it (assign_layouts: the TIR kernel by its LIR);
 * false after reporting an error. `dumps` are the RK_DUMP_IR stage names shown after it, in order,
 * comma-separated ("remove_converts,lir"), or NULL. */
typedef struct Pass {
    const char *name;
    bool (*run)(PassState *s, Func **f);
    const char *dumps;
    unsigned flags;
} Pass;

/* The pipeline from TIR to LIR, in order: *n entries. */
const Pass *pass_pipeline(int *n);
/* The first entry named `name`, or NULL. */
const Pass *pass_find(const char *name);
/* "pipeline_loads, canonicalize, ...": every pass name once, for "unknown pass" messages. */
const char *pass_names(Arena *a);

#endif
