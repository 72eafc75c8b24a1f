/* common.h: what the example host programs share, so that each example's own file holds only its
 * kernel's arguments, its host reference and its figures.
 *
 * Every example does the same six things: open a context on the best device present (RK_DEVICE picks
 * one), fill its inputs with random values exactly representable in their dtype, tune its kernel with
 * rk_autotune over the .tile file's @autotune space (the file is read from the examples folder, so you
 * can edit a kernel and rerun without rebuilding), time the winner with rk events, compare the result
 * with a reference computed on the host in double precision, and print one line:
 *
 *     matmul bf16 M=256 N=256 K=256 (BLOCK_M=64 ...) | emu | 152 ms | 0.00022 TFLOP/s | max rel err 3.9e-03 (tol 2e-02) | ok
 *
 * Command lines are NAME=VALUE pairs (`./ex_matmul M=512 N=512 K=512 dtype=f16`); each example prints
 * its own with `help`. RK_EXAMPLES_FULL=1 (or full=1) gives the larger default sizes.
 *
 * Programs exit on the first error with the context's message: an example is not a library, and this
 * keeps every call checked without an error path per line. */
#ifndef RK_EXAMPLES_COMMON_H
#define RK_EXAMPLES_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rk.h"

#define EX_MAX_DEFINES 16
#define EX_MAX_RESETS 4

typedef struct ex {
    const char *name; /* the example, for messages: "matmul" */
    rk_ctx *ctx;
    rk_device_info dev;
    int argc;
    char **argv;
    bool full;  /* RK_EXAMPLES_FULL=1 or full=1: the large default sizes */
    int reps;   /* timed launches (reps=N); 0 picks by device: 3 on emu and interp, 20 on a GPU */
    bool tune;  /* tune=0 skips tuning: the kernel's defaults */
    rk_program *programs[16]; /* every program compiled, freed by ex_finish */
    int nprograms;
    bool progress_shown;      /* the terminal's line is a progress line, to be ended by a newline */
    bool tuned_now;           /* the tuning in progress has timed configs (not a cached result) */
} ex;

/* Opens the context on the default device and reads the common arguments (full, reps, tune, seed).
 * `usage` is printed for `help` and after an unknown argument. */
void ex_init(ex *e, const char *name, const char *usage, int argc, char **argv);
/* The device is the host emulator or the interpreter: timings say nothing about a GPU; the examples
 * pick small default sizes and time each tuning config once. */
bool ex_on_host(const ex *e);
/* Frees everything and returns the exit status for `ok`: 0 when the check passed, 1 otherwise. */
int ex_finish(ex *e, bool ok);
/* Prints "<name>: <what>: <rk_error>" and exits with status 1 when st is not RK_OK. */
void ex_check(ex *e, rk_status st, const char *what);
/* Prints "<name>: <message>" and exits with status 1. */
void ex_die(ex *e, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

/* NAME=VALUE from the command line, else def (full_def when full sizes are asked for). Every
 * argument must be read by one of these before ex_args_done, which rejects the unknown ones. */
long ex_int(ex *e, const char *key, long def, long full_def);
const char *ex_str(ex *e, const char *key, const char *def);
void ex_args_done(ex *e);

/* ---- data --------------------------------------------------------------------------------------- */

rk_dtype ex_dtype(ex *e, const char *name); /* "f32", "f16", "bf16" */
/* n values uniform in [lo, hi), each exactly representable in dtype (so the host reference sees the
 * very values the device does). Deterministic: seeded by seed=N (default 1) and a per-call counter. */
double *ex_random(ex *e, size_t n, rk_dtype dtype, double lo, double hi);
double *ex_zeros(size_t n);
/* Device memory holding v converted to dtype (16-bit floats rounded to nearest even). */
void *ex_upload(ex *e, const double *v, size_t n, rk_dtype dtype);
/* Device memory of n elements of dtype set to zero bytes. */
void *ex_alloc_zero(ex *e, size_t n, rk_dtype dtype);
/* n elements of dtype from device memory, widened to doubles (a new array). */
double *ex_download(ex *e, const void *dev, size_t n, rk_dtype dtype);
double ex_round(rk_dtype dtype, double x); /* x rounded to dtype and back */

/* ---- compiling and tuning ----------------------------------------------------------------------- */

/* Compile-time values: const parameters and compile options, NAME=VALUE (copied in; a config is a
 * plain value that may be copied with =). */
typedef struct ex_config {
    int n;
    char name[EX_MAX_DEFINES][32];
    char value[EX_MAX_DEFINES][32];
} ex_config;

/* Adds NAME=VALUE to a config (replacing an earlier value of NAME). */
void ex_def_int(ex_config *c, const char *name, long value);
void ex_def_str(ex_config *c, const char *name, const char *value);
/* The value of NAME in the config, or "default" (the kernel's own value, which rk does not report). */
const char *ex_config_get(const ex_config *c, const char *name);

/* Compiles examples/<file> (read from the source tree, or $RK_EXAMPLES_DIR) with the config's
 * defines and returns the kernel. Diagnostics go to stderr. */
rk_kernel *ex_compile(ex *e, const char *file, const char *kernel, const ex_config *config);

/* Buffers zeroed before every timed launch (outputs that kernels accumulate into with atomics). */
typedef struct ex_reset {
    void *ptr;
    size_t bytes;
} ex_reset;

typedef struct ex_launch {
    rk_kernel *kernel;
    const uint32_t *grid; /* NULL: the kernel's @grid */
    const rk_arg *args;
    int nargs;
    ex_reset resets[EX_MAX_RESETS];
    int nresets;
} ex_launch;

/* Launches once (resets first) and waits. */
void ex_run(ex *e, const ex_launch *l, const char *what);
/* Median milliseconds of e->reps launches after one warm-up, each timed with rk events; the resets
 * happen before each launch, outside the timed interval. */
double ex_time(ex *e, const ex_launch *l);

/* Tunes the kernel with rk_autotune over the @autotune space of its .tile file, with the base config's
 * defines (dtype, hints, ...) on top of the kernel's defaults, and sets l->kernel to the winner and
 * *chosen (may be NULL) to the base merged with the winner's config (rk_kernel_config). The winner is
 * cached on disk by rk (RK_CACHE_DIR): a second run with the same sizes tunes nothing. While configs
 * compile and run, a progress line shows on stderr. A kernel without @autotune, or tune=0 on the
 * command line, or the interp device, is compiled with the base config and the kernel's defaults,
 * untimed. On emu each config is timed once after one warm-up: the emulator's timings rank configs
 * by the host's speed, not a GPU's, and only show the tuner at work. */
void ex_tune(ex *e, const char *file, const char *kernel, const ex_config *base, ex_launch *l, ex_config *chosen);

/* ---- checking and reporting --------------------------------------------------------------------- */

/* Tolerance of ex_max_rel_err for a result of this dtype: f32 1e-4, f16 5e-3, bf16 2e-2. */
double ex_tol(rk_dtype dtype);
/* The largest |out - ref| / max(|ref|, rms(ref)) over n elements: relative error, where elements
 * smaller than the result's root mean square are measured against that instead of themselves (so
 * that a value near zero does not turn a rounding error into a huge ratio). NaN anywhere gives NaN. */
double ex_max_rel_err(const double *out, const double *ref, size_t n);
/* Prints the result line: "<what> | <device> | <ms> ms | <rate> | max rel err E (tol T) | ok|FAILED".
 * `flops` > 0 prints TFLOP/s, else `bytes` prints GB/s. Returns err <= tol (false for NaN). */
bool ex_report(ex *e, const char *what, double ms, double flops, double bytes, double err, double tol);

#endif
