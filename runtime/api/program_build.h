/* What the compiler half of the API (compiler/api) uses of the runtime, and all it sees of it: how it
 * hands over a compiled program and the function that compiles its variants, the context's error, log
 * and diagnostics, and the parts of the context a compile reads or adds to, through functions. The
 * objects behind the handles (api_internal.h) stay the runtime's own. Not installed; nothing here is
 * exported from the shared library. */
#ifndef RK_PROGRAM_BUILD_H
#define RK_PROGRAM_BUILD_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>

#include "rk.h"
#include "support/arena.h"
#include "support/diag.h"

/* ---- programs ---- */

/* What the compiler half hands over about one compiled kernel. */
typedef struct RtKernelDesc {
    const char *name, *symbol;
    const rk_param *params;
    int nparams;
    int num_warps, block, lds_bytes;
    const char *grid_tir; /* the @grid function as TIR text, or NULL */
    const char *config;   /* the autotune config as -D pairs ("BLOCK=64 num_warps=4"), or NULL */
    const char *tma;      /* sm_90: the tensor maps after the parameters, one line each (tma.c), or NULL */
    const char *facts;    /* the facts it was compiled with (support/facts.h), or NULL / "" */
    const char *nospec;   /* the parameters named by @no_specialize, space-separated, or NULL / "" */
    const char *work;     /* its FLOPs and bytes as formulas (compiler/report/work.h), or NULL */
} RtKernelDesc;

/* A program from a code object and its kernels' descriptions (everything is copied). Sets the
 * context's error on failure. The bundle loader and the tests use it directly. */
rk_status rt_program_new(rk_ctx *ctx, const char *target, const void *binary, size_t size, const RtKernelDesc *kernels,
                         int nkernels, rk_program **out);

/* How a program's kernels were compiled, for compiling their specialised variants at launch (spec.c;
 * set by rk_compile and the autotuner, NULL for programs from bundles and for variants). */
typedef struct RtSpecSrc RtSpecSrc;
/* Compiles kernel `name` of the source of src with a config ("" or -D pairs) and facts, into a new
 * program: the compiler's function, which it hands over with the program (rt_spec_attach), so that
 * the runtime never names a compiler symbol. */
typedef rk_status (*RtCompileVariantFn)(rk_ctx *ctx, const RtSpecSrc *src, const char *name, const char *config,
                                        const char *facts, rk_program **out);
struct RtSpecSrc {
    const char *source;
    size_t length;
    rk_compile_options opts;    /* strings, defines and folders copied into the program's arena */
    RtCompileVariantFn compile; /* never NULL */
    bool range32;               /* the target addresses NAME<2G pointers by buffer instructions
                                   (Target.buffer_range32): launches specialise pointers on it */
};

/* Records how p was compiled (o after compile_setup: no facts) and the function that compiles a
 * variant, so that launches of its kernels may compile variants (spec.c); false when the hook fails
 * (the program still works, unspecialised). */
bool rt_spec_attach(rk_program *p, const char *source, size_t length, const rk_compile_options *o,
                    RtCompileVariantFn compile, bool range32);
/* Whether pointer p is the fact p<2G on ctx: the base of an rk_malloc allocation of at most 2^31 bytes
 * (support/facts.h); and whether `name` is in a space-separated list (@no_specialize's). */
bool rt_range32_holds(const rk_ctx *ctx, const void *p);
bool rt_spec_named(const char *list, const char *name);

/* ---- the context ---- */

/* Entry points that use a context claim it for the calling thread for the length of the call, so that
 * a call from another thread that overlaps it is refused (RK_EBUSY) instead of racing: RT_ENTER(ctx)
 * after the handle checks claims it (a nested call on the same thread passes), clears its error, and
 * gives it back when the function returns (the cleanup attribute, at every return); when another
 * thread holds it, it returns RK_EBUSY and touches nothing. The claim
 * is a compare-and-swap with acquire and release order, so that threads taking turns on one context
 * see each other's writes. */
typedef struct RtGuard {
    rk_ctx *ctx; /* NULL when refused */
} RtGuard;
RtGuard rt_enter(rk_ctx *ctx);
void rt_leave(RtGuard *g);
#define RT_ENTER(c)                                                                 \
    RtGuard rt_guard __attribute__((cleanup(rt_leave))) = rt_enter(c);              \
    if (!rt_guard.ctx)                                                              \
    return RK_EBUSY

/* Sets the context's error message and returns st. */
rk_status rt_fail(rk_ctx *ctx, rk_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Clears the error at the start of an entry point. */
void rt_clear(rk_ctx *ctx);
/* RK_OK when the context has a device, else its reason (RK_ENODEVICE ...) as the error. */
rk_status rt_need_device(rk_ctx *ctx);

/* Replaces the context's diagnostics by copies of these (rendered text included). Longjmps to the
 * point rt_diags_oom set when the hook fails. */
void rt_set_diags(rk_ctx *ctx, const Diag *items, int n);
/* Where rt_set_diags longjmps when the allocator hook fails (NULL: nowhere; the caller sets it around
 * its calls). */
void rt_diags_oom(rk_ctx *ctx, jmp_buf *oom);

/* Sends a line to the context's log sink (nothing without one). */
void rt_log(rk_ctx *ctx, rk_log_kind kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The context's settings that a compile follows (rk_ctx_options and the environment, resolved when
 * the context was made). */
typedef struct RtCompileSettings {
    const char *dump_ir, *dump_dir; /* RK_DUMP_IR and where the dumps go */
    rk_dump_fn dump;                /* or to this sink */
    void *dump_ud;
    const char *stdlib_dir;
    const char *cache_root;         /* the resolved cache folder, or NULL when there is none */
    int compile_threads;            /* 0: one per core */
    bool print_autotuning;
    bool no_specialize;             /* launches never specialise */
    bool confine_imports;           /* every compile's imports stay in its include folders and the stdlib */
} RtCompileSettings;
const RtCompileSettings *rt_compile_settings(const rk_ctx *ctx);
/* The context's allocator hook, through which everything of a compile is allocated. */
Allocator *rt_ctx_allocator(rk_ctx *ctx);
/* Its counters, which compiles add to. */
rk_stats *rt_ctx_stats(rk_ctx *ctx);
/* Its trace (runtime/profile/profile.h), NULL when not profiling. */
struct RtProfile *rt_ctx_profile(rk_ctx *ctx);
/* Its device, as rk_device_get_info gives it (kind "none" and target NULL without one). */
const rk_device_info *rt_ctx_device(const rk_ctx *ctx);

#endif
