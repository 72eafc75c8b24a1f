/* The runtime half of autotuning: timing candidate kernels on the device, the text of a tuning's key,
 * and the context's memory of tuned kernels. Nothing here compiles, so bundles (runtime/bundle) tune
 * with the runtime library alone; compiler/api/autotune.c adds the compiling around it.
 *
 * Timing a candidate (tune_time): tune_warmup untimed launches, then timed launches between two events
 * until there have been at least tune_runs of them and they add up to at least tune_ms (at most 1000
 * runs); the candidate's time is their median. Before every launch the `reset` buffers are zeroed from
 * the argument's address to the end of its allocation, and on a GPU a 256 MiB buffer is overwritten
 * to flush the L2 and the MI300's Infinity Cache (on emu and interp there is no cache to flush). A
 * candidate whose launch fails is left out with a note; only when every candidate fails is the
 * first failure returned. */
#ifndef RK_TUNE_H
#define RK_TUNE_H

#include <stdbool.h>

#include "runtime/api/program_build.h"
#include "runtime/cache/hash.h"

/* What to time: candidate kernels with the same parameters, and how to report them. */
typedef struct TuneJob {
    const char *kernel;          /* the kernel's name, for messages */
    const char *key_text;        /* its key values ("M=512 N=512"), for messages */
    rk_kernel *const *cands;
    const char *const *labels;   /* each candidate's config, for messages */
    int n;
    const uint32_t *grid;        /* NULL: each candidate's @grid */
    const rk_arg *args;
    int nargs;
    const int *reset;            /* parameter indices of the buffers to zero before each run */
    int nreset;
} TuneJob;

/* Times every candidate: ms[i] is its median, or a negative number when it failed. *best is the
 * fastest. RK_OK when at least one ran. Logs each time (print_autotuning) and progress. */
rk_status tune_time(rk_ctx *ctx, const TuneJob *job, double *ms, int *best);

/* Zeroes the reset buffers (before a launch of a freshly tuned kernel, as before each timed run). */
rk_status tune_reset(rk_ctx *ctx, const rk_arg *args, int nargs, const int *reset, int nreset);

/* The key values as text: "M=512 N=512 K=512" (scalars by value, pointers as "*dtype"), from the
 * arguments of a launch; RK_ELAUNCH (RK_EINVAL for NULL args) with the context's error when the
 * arguments do not fit the parameters. */
rk_status tune_key_text(rk_ctx *ctx, const char *kernel, const rk_param *params, int nparams, const int *key, int nkey,
                   const rk_arg *args, int nargs, char *out, size_t outlen);

/* Indices of the named parameters (names[i] must each be a parameter); false when one is not. */
bool tune_param_indices(const rk_param *params, int nparams, const char *const *names, int n, int *out);

/* ---- the context's memory ---- */

/* Values by byte-string key, for the lifetime of the context: exact (each entry keeps a copy of its
 * key and compares it) and found through hash_fast64, so that a lookup costs about what copying the
 * key does -- rk_run looks up its kernel this way on every call, with the source inside the key. */
void *tune_memo_get(rk_ctx *ctx, const void *key, size_t n);
/* Stores value under key (copied). `owner`, when not NULL, is an arena from arena_alloc_raw that the memory
 * takes over and frees with the context. False when out of memory (then the caller keeps owner) or
 * when the key is already there. */
bool tune_memo_set(rk_ctx *ctx, const void *key, size_t n, void *value, Arena *owner);

#endif
