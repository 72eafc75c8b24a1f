/* lower_choice.h: how a kernel is lowered where its first lowering's choices may have lost, to its
 * registers or to its loop's cycles. All zero is the first lowering; the driver's retries
 * (compiler/driver/driver_frugal.c) and autotuned variants' second compiles (compiler/api/variants.c)
 * ask for the others through LowerOptions.choice. No LLVM here: the driver's and the API's headers
 * hold it. */
#ifndef RK_LOWER_CHOICE_H
#define RK_LOWER_CHOICE_H

#include <stdbool.h>

/* How far a dot reads ahead for its drain, so that the next tiles' LDS writes drain under its MFMAs
 * (compiler/lower/lower_dot.c). */
typedef enum DrainReach {
    DRAIN_CAPPED, /* as far as its registers and loads allow, at most DRAIN_MAX_AHEAD steps */
    DRAIN_DEEP,   /* past DRAIN_MAX_AHEAD: the retry of a kernel whose first lowering stopped there
                     (LowerResult.drain_capped), kept where rk's loop model says it is faster */
    DRAIN_NONE,   /* no further than read_ahead's steps: the retry of a kernel that lost to its
                     registers where that read-ahead alone spent them (LowerResult.drain_raised) */
} DrainReach;

typedef struct LowerChoice {
    bool frugal;      /* registers before speed: every choice that spends VGPRs to save cycles (LDS
                         maps by their clocks, k steps in pairs, reading further ahead, rows carried
                         for the LDS queue) takes its frugal side, the drain's read-ahead too; the
                         retry of a kernel whose first code spilled or lost waves to its VGPRs */
    int min_waves;    /* > 0: lowered as if the kernel asked for this many waves a SIMD where it does
                         not say (waves_per_eu: the lowering's register caps, lower_waves_asked, and
                         LLVM's amdgpu-waves-per-eu): the retry of a kernel a few VGPRs short of its
                         next occupancy step */
    DrainReach drain; /* (frugal reads no further ahead whatever this says) */
} LowerChoice;

static inline bool lower_choice_same(const LowerChoice *x, const LowerChoice *y)
{
    return x->frugal == y->frugal && x->min_waves == y->min_waves && x->drain == y->drain;
}

#endif
