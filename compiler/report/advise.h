/* Advice (rkc --advise, rk_kernel_advise): the likely limiters of one kernel and config, ranked, each
 * with its evidence and the change to try, from the ISA report of its gfx code object, its work counts
 * for a launch, the device's peaks and the launch's grid (compiler/report/advise.c). */
#ifndef RK_REPORT_ADVISE_H
#define RK_REPORT_ADVISE_H

#include <stdbool.h>

#include "compiler/target/amdgpu/report.h"
#include "rk.h"
#include "support/arena.h"

enum { ADVISE_MAX = 16 };

typedef struct Limiter {
    const char *name;     /* "memory bandwidth", "compute", "workgroups", "occupancy", ... */
    double score;         /* 0..1: how much it likely costs; the list is sorted by it, highest first */
    const char *evidence; /* the figures that show it */
    const char *try_;     /* the change to try */
} Limiter;

typedef struct AdviseInput {
    const char *kernel, *config, *target;
    const KernelReport *rep;  /* the kernel's ISA report; NULL where there is none (not a gfx target) */
    const char *cpu;          /* the report's processor */
    const rk_work *work;
    const rk_peaks *peaks;
    bool peaks_estimate;
    uint32_t grid[3];
    const rk_param *params;   /* the run-time parameters and the launch's scalar values */
    const double *values;
    int nparams;
    bool uses_xcd_remap;      /* the source calls xcd_remap */
    int num_xcds;             /* the target's (Target.num_xcds): dies with their own L2 */
    int lds_conflict_remarks; /* LDS bank-conflict remarks of the compile (-1: not available) */
    int lds_conflict_ways;    /* the worst of them: lanes one bank serves one after another */
} AdviseInput;

typedef struct Advice {
    Limiter items[ADVISE_MAX];
    int n;
    int waves_per_simd, workgroups_per_cu;
    const char *occ_limiter;
    double intensity, ridge, bound_ms;
    const char *limit; /* "memory" or "compute" */
} Advice;

void advise(Arena *a, const AdviseInput *in, Advice *out);
char *advise_json(Arena *a, const AdviseInput *in, const Advice *adv);
char *advise_text(Arena *a, const AdviseInput *in, const Advice *adv);

#endif
