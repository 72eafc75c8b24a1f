/* rk.h: the public C API of rk, a compiler and runtime for a Triton-like tile language on AMD GPUs.
 *
 * This is the only header a program embedding rk includes. Everything behind it is reached through
 * opaque handles (rk_ctx, rk_program, rk_kernel, rk_event); every call returns an rk_status, and on
 * failure rk_error(ctx) says why in one line. The library never prints and never exits: compile
 * diagnostics are collected in the context (rk_diag_get), device print() output and IR dumps go to
 * callbacks the caller installs. All of the library's own memory comes from one allocator hook.
 *
 * A typical program (docs/api.md has the complete version):
 *
 *     rk_ctx *ctx;
 *     if (rk_ctx_create(NULL, &ctx) != RK_OK) { fprintf(stderr, "%s\n", rk_error(ctx)); ... }
 *     rk_program *prog;
 *     rk_compile_options co = {.filename = "vadd.tile"};
 *     if (rk_compile(ctx, src, strlen(src), &co, &prog) == RK_ECOMPILE)
 *         for (int i = 0; i < rk_diag_count(ctx); i++) { rk_diag d; rk_diag_get(ctx, i, &d); fputs(d.text, stderr); }
 *     rk_kernel *k;
 *     rk_program_kernel(prog, "vadd", &k);
 *     void *x, *y, *out;            // rk_malloc, rk_memcpy_htod ...
 *     rk_arg args[] = {rk_arg_ptr(x), rk_arg_ptr(y), rk_arg_ptr(out), rk_arg_i32(n)};
 *     rk_launch(k, NULL, args, 4, NULL);   // NULL grid: the kernel's @grid
 *     rk_memcpy_dtoh(ctx, host, out, n * sizeof(float));
 *     rk_program_destroy(prog);
 *     rk_ctx_destroy(ctx);
 *
 * Threads: a context, and the programs, kernels and events made from it, must be used by one thread
 * at a time. Different contexts may be used from different threads at once.
 *
 * Strings the library returns (rk_error, diagnostics, names) belong to the library; each entry says how
 * long it stays valid. Strings and arrays the caller passes in are copied when the library keeps them. */
#ifndef RK_H
#define RK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define RK_API __attribute__((visibility("default")))
#else
#define RK_API
#endif

/* ---- status codes ------------------------------------------------------------------------------- */

typedef enum rk_status {
    RK_OK = 0,
    RK_EINVAL = 1,       /* an invalid argument: a NULL handle or out pointer, a bad option value */
    RK_ENOMEM = 2,       /* the allocator hook, or the device, is out of memory */
    RK_ECOMPILE = 3,     /* the tile program has errors: see rk_diag_count / rk_diag_get */
    RK_ENODEVICE = 4,    /* no such device, or none present (message says which and why) */
    RK_EDEVICE = 5,      /* the device or its runtime failed (HIP error, code object refused, ...) */
    RK_ELAUNCH = 6,      /* launch arguments do not match the kernel's signature, or no grid */
    RK_EKERNEL = 7,      /* the kernel failed while running: out-of-bounds access, failed
                            device_assert, timeout (detected on emu and interp) */
    RK_EUNSUPPORTED = 8, /* not available yet, for this target, or on this device */
    RK_EIO = 9,          /* a file could not be read or written */
    RK_ENOTFOUND = 10,   /* no kernel (or other named thing) of that name */
    RK_EINTERNAL = 11,   /* a bug in rk; the message says "internal error" */
    RK_EBUSY = 12,       /* another thread is in a call on the same context at this moment: calls on
                            one context must not overlap (docs/api.md, "Threads"); nothing was done
                            and the context's error message is left as it was */
} rk_status;

/* The status's name ("RK_ENOMEM"); a static string. */
RK_API const char *rk_status_name(rk_status status);
/* The library's version ("0.1.0"); a static string. */
RK_API const char *rk_version(void);

/* ---- handles ------------------------------------------------------------------------------------ */

typedef struct rk_ctx rk_ctx;         /* a device, its memory, diagnostics and the last error */
typedef struct rk_program rk_program; /* the result of one compile: a code object and its kernels */
typedef struct rk_kernel rk_kernel;   /* one kernel of a program; owned by the program */
typedef struct rk_event rk_event;     /* a point in a stream's work, for timing */
typedef struct rk_stream rk_stream;   /* a queue of device work; only NULL (the default) exists yet */

/* ---- contexts ----------------------------------------------------------------------------------- */

/* The allocator hook, the same contract as Lua's lua_Alloc: allocate when ptr is NULL, free when
 * nsize is 0 (return NULL), otherwise reallocate from osize to nsize bytes. Return NULL on failure:
 * the call in progress then fails with RK_ENOMEM and leaks nothing. Memory must be aligned for any C
 * object (like malloc's). */
typedef void *(*rk_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);
/* Receives an IR dump: stage is "tir", a pass name, "lir", "llvm" or "asm"; text ends in a newline. */
typedef void (*rk_dump_fn)(void *ud, const char *stage, const char *kernel, const char *text);
/* Receives one line (without newline) printed by a kernel's print() on emu or interp. */
typedef void (*rk_print_fn)(void *ud, const char *line);

/* What the library tells its user besides errors: RK_LOG_AUTOTUNE lines are the autotuner's results
 * (with print_autotuning), RK_LOG_PROGRESS lines describe a tuning in progress (a tool may redraw them
 * in place), RK_LOG_NOTE lines are remarks such as "the cache folder is not writable". */
typedef enum rk_log_kind { RK_LOG_NOTE, RK_LOG_AUTOTUNE, RK_LOG_PROGRESS } rk_log_kind;
/* Receives one line (no newline). */
typedef void (*rk_log_fn)(void *ud, rk_log_kind kind, const char *line);

/* Options of a context. Zero-initialise and set what you need: every zero or NULL field means the
 * default. New fields are only ever appended. */
typedef struct rk_ctx_options {
    /* "hip", "cuda", "emu", "interp" or "none" (compile only, no device). NULL: $RK_DEVICE, else the
     * first HIP GPU, else the first CUDA GPU, else the host emulator `emu` -- and, while this build's
     * compiler cannot generate emu code yet, the interpreter `interp` in its place. */
    const char *device;
    int device_index;          /* which GPU of that kind, from 0 */
    rk_alloc_fn alloc;         /* NULL: malloc, realloc and free */
    void *alloc_ud;
    /* IR dumps: which stages (as RK_DUMP_IR: "1"/"all" or a list such as "tir,llvm"; NULL: $RK_DUMP_IR),
     * a folder to write them to (NULL: $RK_DUMP_DIR), else they go to `dump` (NULL: dropped). */
    const char *dump_ir;
    const char *dump_dir;
    rk_dump_fn dump;
    void *dump_ud;
    rk_print_fn print;         /* kernel print() lines (NULL: dropped) */
    void *print_ud;
    const char *cache_dir;     /* compile and autotune cache (NULL: $RK_CACHE_DIR, else $XDG_CACHE_HOME/rk,
                                  else ~/.cache/rk); docs/api.md describes what it holds */
    const char *stdlib_dir;    /* the tile stdlib (NULL: $RK_STDLIB_DIR, else the one rk was built with) */
    int host_threads;          /* emu and interp: host threads per launch (0: one per core) */
    /* Logging, the caches, the autotuner and the profiler (appended with them). */
    rk_log_fn log;             /* autotuning results, tuning progress and notes (NULL: dropped); called
                                  on the thread that called into the library, never on a worker */
    void *log_ud;
    int print_autotuning;      /* 1: send each config's time and the winner to `log`; -1: never;
                                  0: as $RK_PRINT_AUTOTUNING says ("1": yes) */
    int always_compile;        /* 1: never read the compile and autotune caches (fresh results are still
                                  written); -1: read them; 0: as $RK_ALWAYS_COMPILE says ("1": yes) */
    const char *profile;       /* write a Chrome/Perfetto trace of compiles, tuning runs and launches to
                                  this file (NULL: $RK_PROFILE; "": none) */
    int compile_threads;       /* threads compiling autotune configs (0: one per core) */
    int tune_warmup;           /* untimed runs of a config before timing it (0: 1) */
    int tune_runs;             /* timed runs per config, at least (0: 10) */
    int tune_ms;               /* ... and more, until this many milliseconds have been timed (0: 100;
                                  -1: no time floor) */
    /* emu and emu_sm90: 1 reports data races as kernel errors (two accesses to one byte of global
       memory or LDS, one a write, not both atomic, that no barrier or atomic synchronisation orders),
       running each launch on one host thread; -1: never; 0: as $RK_CHECK_RACES says ("1": yes) */
    int check_races;
    /* 1: launches never specialise kernels on their arguments (docs/api.md, "Specialisation"); -1:
       they do; 0: as $RK_NO_SPECIALIZE says ("1": never) */
    int no_specialize;
    /* 1: every compile of this context resolves imports only to files inside its include folders and
       the stdlib folder (after symlinks and ".."), never an absolute path elsewhere or the importing
       file's own folder: for a service compiling source it does not trust (docs/api.md). A compile's
       own confine_imports cannot turn it off. */
    int confine_imports;
} rk_ctx_options;

/* Creates a context on a device. options may be NULL (all defaults).
 * Like sqlite3_open, *ctx is set even when the device cannot be opened, so that rk_error(*ctx) can
 * say why: the status is then RK_ENODEVICE or RK_EDEVICE, and the context can still compile (with an
 * explicit target) but not allocate or launch. Call rk_ctx_destroy in every case where *ctx is not
 * NULL. *ctx is NULL only after RK_EINVAL (ctx itself NULL, or a bad option) or RK_ENOMEM. */
RK_API rk_status rk_ctx_create(const rk_ctx_options *options, rk_ctx **ctx);
/* Destroys the context and everything made from it that is still alive: programs, device memory,
 * events. ctx may be NULL. */
RK_API void rk_ctx_destroy(rk_ctx *ctx);

/* The message of the last failed call on this context (or on a program, kernel or event made from
 * it), or "" after a success. Valid until the next call on the context. Never NULL; for a NULL ctx,
 * a fixed message. */
RK_API const char *rk_error(const rk_ctx *ctx);

typedef struct rk_device_info {
    const char *kind;   /* "hip", "cuda", "emu", "interp" or "none" */
    const char *name;   /* e.g. "AMD Instinct MI300X", "host emulator of a gfx942 workgroup" */
    const char *arch;   /* the device's processor, e.g. "gfx942:sramecc+:xnack-", "emu", "interp" */
    const char *target; /* the compile target it runs: "gfx942", "emu", "interp" (NULL for none) */
    int compute_units;  /* CUs (host cores for emu and interp) */
    int lds_bytes;      /* LDS (shared memory) per workgroup */
    int wave_size;      /* lanes per wave */
    uint64_t global_memory; /* bytes, 0 when unknown */
} rk_device_info;

/* The context's device. The strings live as long as the context. */
RK_API rk_status rk_device_get_info(rk_ctx *ctx, rk_device_info *info);

/* ---- diagnostics -------------------------------------------------------------------------------- */

typedef enum rk_severity { RK_SEVERITY_ERROR, RK_SEVERITY_WARNING, RK_SEVERITY_NOTE } rk_severity;

typedef struct rk_diag {
    rk_severity severity;
    const char *file;        /* NULL when the diagnostic has no location */
    int line, column;        /* 1-based; column counts UTF-8 code points */
    const char *message;     /* without location or severity */
    const char *source_line; /* the line of source (no newline), or NULL */
    int caret;               /* byte offset of the column in source_line */
    const char *text;        /* all of it rendered as rkc prints it: "file:line:col: error: message\n",
                                then the source line and a caret line */
} rk_diag;

/* The diagnostics of the last rk_compile on this context (errors, warnings and notes, in order).
 * They stay valid until the next rk_compile or rk_ctx_destroy. */
RK_API int rk_diag_count(const rk_ctx *ctx);
/* RK_EINVAL when i is out of range. */
RK_API rk_status rk_diag_get(const rk_ctx *ctx, int i, rk_diag *diag);

/* ---- compiling ---------------------------------------------------------------------------------- */

typedef struct rk_define {
    const char *name, *value; /* a const parameter or compile option, value as written: "128", "f16" */
} rk_define;

#define RK_OPT_O0 (-1) /* rk_compile_options.opt_level for -O0 (0 means the default, -O3) */

/* Options of one compile. Zero-initialise; every zero or NULL field means the default. */
typedef struct rk_compile_options {
    const char *filename;  /* shown in diagnostics and the base of relative imports (NULL: "<source>") */
    /* "gfx942", "gfx90a", "gfx950", "emu", "sm_90", "emu_sm90", "interp". NULL: the context device's
     * own target (a HIP GPU's processor, "sm_90" for CUDA, "emu", "emu_sm90", "interp"); "gfx942" when
     * the context has no device. */
    const char *target;
    const rk_define *defines;
    int ndefines;
    const char *const *include_dirs; /* import folders, searched in order before the stdlib */
    int ninclude_dirs;
    const char *kernel;    /* compile only this kernel (NULL: every kernel of the file) */
    int opt_level;         /* 1..3 for -O1..-O3, RK_OPT_O0, 0: default (-O3) */
    /* Facts about run-time parameters the code may rely on, e.g. "K%16==0 stride_n==1 a%16==0" (an
     * integer divisible by N or equal to V; a pointer aligned to N bytes), as `rkc --assume`. Kernels
     * compiled with facts are not specialised further at launch, and a launch whose arguments break
     * one is refused (RK_EINVAL, naming the parameter). NULL: none, and launches specialise
     * (docs/api.md, "Specialisation"). */
    const char *assume;
    /* 1: imports resolve only to files inside include_dirs and the stdlib folder (as
       rk_ctx_options.confine_imports, for this compile) */
    int confine_imports;
    /* rk_compile_bundle only: further sets of facts (each as `assume`, added to it). The bundle holds
     * every config compiled for each set beside the plain ones, and rk_bundle_run / rk_bundle_autotune
     * choose, for a call, among the variants of the most specialised set whose facts its arguments
     * satisfy (rkc --all-configs --specialize FACTS). */
    const char *const *specialize;
    int nspecialize;
} rk_compile_options;

/* Compiles a tile source (length bytes, need not be NUL-terminated) into a program for the target.
 * options may be NULL. Clears the context's diagnostics, then records this compile's. Goes through the
 * compile cache (cache_dir): a hit builds the program from the entry and replays the warnings; a
 * folder that cannot be written is a note in the log, never an error (docs/api.md).
 * Errors: RK_ECOMPILE (the program has errors: see the diagnostics; rk_error names the first),
 * RK_EUNSUPPORTED (code generation for the target is not built yet), RK_EINVAL (unknown target),
 * RK_ENOMEM, RK_EINTERNAL. On success *program must be freed with rk_program_destroy. */
RK_API rk_status rk_compile(rk_ctx *ctx, const char *source, size_t length, const rk_compile_options *options,
                            rk_program **program);
/* Frees the program and its kernels. NULL is allowed. */
RK_API void rk_program_destroy(rk_program *program);

/* The code object: an AMDGPU ELF (gfx*), a host shared object (emu) or TIR text (interp). Owned by the
 * program. */
RK_API rk_status rk_program_binary(const rk_program *program, const void **bytes, size_t *size);
/* The target the program was compiled for; owned by the program. */
RK_API const char *rk_program_target(const rk_program *program);
/* The kernels, by name (RK_ENOTFOUND when there is none) or by index. Owned by the program. */
RK_API rk_status rk_program_kernel(rk_program *program, const char *name, rk_kernel **kernel);
RK_API int rk_program_kernel_count(const rk_program *program);
RK_API rk_status rk_program_kernel_at(rk_program *program, int i, rk_kernel **kernel);

/* ---- kernels ------------------------------------------------------------------------------------ */

/* Scalar types of the tile language (same order as its spelling: bool i8 i16 i32 i64 u8 ... f64). */
typedef enum rk_dtype {
    RK_BOOL, RK_I8, RK_I16, RK_I32, RK_I64, RK_U8, RK_U16, RK_U32, RK_U64, RK_F16, RK_BF16, RK_F32, RK_F64,
} rk_dtype;

/* "f32" for RK_F32; NULL for a value out of range. */
RK_API const char *rk_dtype_name(rk_dtype dtype);
/* Bytes of one element (bool: 1); 0 for a value out of range. */
RK_API size_t rk_dtype_size(rk_dtype dtype);

/* 16-bit floats travel as their bits. Conversions round to nearest, ties to even; overflow gives
 * infinity, NaN stays NaN. Widening is exact. */
RK_API uint16_t rk_f16_from_double(double x);
RK_API uint16_t rk_bf16_from_double(double x);
RK_API double rk_f16_to_double(uint16_t bits);
RK_API double rk_bf16_to_double(uint16_t bits);

typedef enum rk_param_kind { RK_PARAM_SCALAR, RK_PARAM_POINTER } rk_param_kind;

/* A run-time parameter (const parameters are compiled in and not listed). */
typedef struct rk_param {
    const char *name;
    rk_param_kind kind;
    rk_dtype dtype; /* the scalar's type, or the pointer's element type */
} rk_param;

typedef struct rk_kernel_info {
    const char *name;
    int num_params;
    int num_warps;
    int block_size; /* work-items per workgroup: num_warps * wave size */
    int lds_bytes;  /* static LDS */
    bool has_grid;  /* an @grid attribute: rk_launch may take a NULL grid */
} rk_kernel_info;

/* Strings returned live as long as the program. */
RK_API rk_status rk_kernel_get_info(const rk_kernel *kernel, rk_kernel_info *info);
RK_API rk_status rk_kernel_get_param(const rk_kernel *kernel, int i, rk_param *param);

/* ---- arguments ---------------------------------------------------------------------------------- */

/* A launch argument: a tagged value. Build one with the constructors below. */
typedef struct rk_arg {
    rk_param_kind kind; /* RK_PARAM_SCALAR or RK_PARAM_POINTER */
    rk_dtype dtype;     /* a scalar's type (ignored for pointers) */
    union {
        bool b;
        int64_t i;     /* signed integers */
        uint64_t u;    /* unsigned integers */
        double f;      /* f32 (exactly, as a double) and f64 */
        uint16_t bits; /* f16 and bf16: the value's bits */
        void *ptr;     /* device memory from rk_malloc (or NULL) */
    } v;
} rk_arg;

static inline rk_arg rk_arg_bool(bool x) { rk_arg a = {RK_PARAM_SCALAR, RK_BOOL, {.b = x}}; return a; }
static inline rk_arg rk_arg_i8(int8_t x) { rk_arg a = {RK_PARAM_SCALAR, RK_I8, {.i = x}}; return a; }
static inline rk_arg rk_arg_i16(int16_t x) { rk_arg a = {RK_PARAM_SCALAR, RK_I16, {.i = x}}; return a; }
static inline rk_arg rk_arg_i32(int32_t x) { rk_arg a = {RK_PARAM_SCALAR, RK_I32, {.i = x}}; return a; }
static inline rk_arg rk_arg_i64(int64_t x) { rk_arg a = {RK_PARAM_SCALAR, RK_I64, {.i = x}}; return a; }
static inline rk_arg rk_arg_u8(uint8_t x) { rk_arg a = {RK_PARAM_SCALAR, RK_U8, {.u = x}}; return a; }
static inline rk_arg rk_arg_u16(uint16_t x) { rk_arg a = {RK_PARAM_SCALAR, RK_U16, {.u = x}}; return a; }
static inline rk_arg rk_arg_u32(uint32_t x) { rk_arg a = {RK_PARAM_SCALAR, RK_U32, {.u = x}}; return a; }
static inline rk_arg rk_arg_u64(uint64_t x) { rk_arg a = {RK_PARAM_SCALAR, RK_U64, {.u = x}}; return a; }
static inline rk_arg rk_arg_f16(uint16_t bits) { rk_arg a = {RK_PARAM_SCALAR, RK_F16, {.bits = bits}}; return a; }
static inline rk_arg rk_arg_bf16(uint16_t bits) { rk_arg a = {RK_PARAM_SCALAR, RK_BF16, {.bits = bits}}; return a; }
static inline rk_arg rk_arg_f32(float x) { rk_arg a = {RK_PARAM_SCALAR, RK_F32, {.f = x}}; return a; }
static inline rk_arg rk_arg_f64(double x) { rk_arg a = {RK_PARAM_SCALAR, RK_F64, {.f = x}}; return a; }
static inline rk_arg rk_arg_ptr(void *p) { rk_arg a = {RK_PARAM_POINTER, RK_U8, {.ptr = p}}; return a; }

/* ---- launching ---------------------------------------------------------------------------------- */

/* Launches the kernel over grid[0] x grid[1] x grid[2] program instances (workgroups), or, when grid is
 * NULL, over the grid its @grid attribute computes from the arguments.
 *
 * The arguments are checked against the kernel's parameters before anything runs; a mismatch is
 * RK_ELAUNCH with a message naming the parameter:
 *  - nargs must equal the number of run-time parameters, in order;
 *  - a pointer parameter takes rk_arg_ptr of NULL or of an address inside memory from rk_malloc on
 *    this context, aligned to 16 bytes (the compiler assumes it, to use 16-byte loads);
 *  - a scalar parameter takes an argument whose value converts to the parameter's type without loss:
 *    any integer that fits (rk_arg_i64(5) for an i32 is fine, rk_arg_i32(-1) for a u32 is not), any
 *    float that is exactly representable (rk_arg_f64(0.5) for an f16 is fine, 0.1 is not) or an
 *    integer exactly representable as that float; bool only from bool; nothing converts to a bool or
 *    from a float to an integer.
 * A grid with a zero dimension launches nothing and succeeds (as Triton does). No grid and no @grid
 * is RK_ELAUNCH. stream must be NULL for now (the default stream).
 *
 * On HIP the launch is asynchronous: errors of the kernel itself surface at rk_synchronize. On emu and
 * interp it runs to completion first and a failing kernel gives RK_EKERNEL with the kernel, program
 * id, address and source position in rk_error. */
RK_API rk_status rk_launch(rk_kernel *kernel, const uint32_t *grid, const rk_arg *args, int nargs,
                           rk_stream *stream);
/* Evaluates the kernel's @grid for these arguments (checked as for rk_launch) without launching.
 * RK_ELAUNCH when the kernel has no @grid. */
RK_API rk_status rk_kernel_grid(rk_kernel *kernel, const rk_arg *args, int nargs, uint32_t grid[3]);

/* ---- memory ------------------------------------------------------------------------------------- */

/* Device memory of `bytes` bytes, aligned to 256 bytes. Its contents are undefined (on emu and interp
 * every byte is 0xFF, which is NaN in every float type, so that reads of unset memory show).
 * bytes == 0 gives *ptr = NULL and RK_OK. Memory not freed is freed by rk_ctx_destroy. */
RK_API rk_status rk_malloc(rk_ctx *ctx, size_t bytes, void **ptr);
/* ptr must be NULL (nothing happens) or a pointer rk_malloc returned on this context (RK_EINVAL
 * otherwise). Waits for the device to finish with it. */
RK_API rk_status rk_free(rk_ctx *ctx, void *ptr);
/* Copies between host memory and device memory. The device range must lie inside one allocation
 * from rk_malloc on this context (RK_EINVAL otherwise). Each copy completes before it returns. */
RK_API rk_status rk_memcpy_htod(rk_ctx *ctx, void *dst, const void *src, size_t bytes);
RK_API rk_status rk_memcpy_dtoh(rk_ctx *ctx, void *dst, const void *src, size_t bytes);
RK_API rk_status rk_memcpy_dtod(rk_ctx *ctx, void *dst, const void *src, size_t bytes);
/* Sets `bytes` bytes of device memory to the byte `value`. */
RK_API rk_status rk_memset(rk_ctx *ctx, void *dst, int value, size_t bytes);
/* Waits until all work launched on the context's device has finished; reports a failure of that
 * work (RK_EDEVICE on HIP). */
RK_API rk_status rk_synchronize(rk_ctx *ctx);

/* ---- events and timing -------------------------------------------------------------------------- */

RK_API rk_status rk_event_create(rk_ctx *ctx, rk_event **event);
/* Records the point in the stream (NULL: default) after everything launched so far. */
RK_API rk_status rk_event_record(rk_event *event, rk_stream *stream);
/* Milliseconds between two recorded events; waits for `end`. On emu and interp, launches are
 * synchronous and events read the host's monotonic clock. */
RK_API rk_status rk_event_elapsed(rk_event *start, rk_event *end, float *ms);
/* NULL is allowed. Events still alive are destroyed with their context. */
RK_API void rk_event_destroy(rk_event *event);

/* ---- autotuning -------------------------------------------------------------------------------- */

/* Tunes a kernel over its @autotune space for these arguments and returns the fastest config as *best
 * (a kernel owned by the context, valid until rk_ctx_destroy; its rk_kernel_get_info name is the
 * kernel's own, rk_kernel_config names the config).
 *
 * The space is the product of `space` filtered by `where`, plus `configs`. Configs whose LDS exceeds the
 * device's are dropped before code generation; on AMDGPU targets, configs that spill registers are
 * dropped when a config without spills exists (read from each code object's metadata). The rest are
 * compiled in parallel (compile_threads), then each is timed on the context's device with events:
 * tune_warmup untimed runs, then the median of at least tune_runs runs that together take at least
 * tune_ms; the parameters named in `reset` are zeroed (from the pointer to the end of its allocation)
 * before every run, and on HIP the GPU's caches are flushed between runs. The arguments must be valid
 * launch arguments: the kernel really runs with them, and buffers it writes are overwritten.
 *
 * The result is remembered in memory and on disk (the cache folder) by (source with its imports,
 * kernel, target, device, values of the `key` parameters, compile options); a later call, in this
 * process or another, with the same key values compiles nothing. A kernel without @autotune is
 * compiled (through the compile cache) with its defaults. options->kernel is ignored (kernel_name
 * decides). Errors as rk_compile and rk_launch; a config that fails to compile or to run is skipped
 * (with a note) unless every config fails; RK_ENOTFOUND when the source has no kernel kernel_name. */
RK_API rk_status rk_autotune(rk_ctx *ctx, const char *source, size_t length, const char *kernel_name,
                             const rk_arg *args, int nargs, const rk_compile_options *options, rk_kernel **best);
/* Launches the kernel through the autotune cache: tunes on a miss (then zeroes the `reset` buffers
 * once more), then launches the best config with these arguments and grid (NULL: its @grid). */
RK_API rk_status rk_run(rk_ctx *ctx, const char *source, size_t length, const char *kernel_name,
                        const uint32_t *grid, const rk_arg *args, int nargs, const rk_compile_options *options,
                        rk_stream *stream);

/* The config a kernel was compiled with, as -D pairs ("BLOCK_M=128 BLOCK_N=64 num_warps=4"), for a
 * kernel from rk_autotune or a bundle; "" for other kernels. Lives as long as the kernel. */
RK_API const char *rk_kernel_config(const rk_kernel *kernel);

/* Specialisation (docs/api.md): the facts about its parameters a kernel's code was compiled with
 * ("K%16==0 stride_n==1"; "" for none). Lives as long as the kernel. */
RK_API const char *rk_kernel_facts(const rk_kernel *kernel);
/* The kernel that the last launch of `kernel` ran: `kernel` itself, or the variant compiled for that
 * launch's facts (owned by `kernel`; its facts, binary and program are readable). `kernel` when it was
 * never launched. */
RK_API rk_kernel *rk_kernel_last_run(rk_kernel *kernel);
/* The program a kernel belongs to. */
RK_API rk_program *rk_kernel_program(rk_kernel *kernel);

/* ---- ahead-of-time bundles ---------------------------------------------------------------------- */

/* A bundle is one code object holding every config ("variant") of every kernel of a source, plus a
 * manifest `PATH.json` naming each variant (kernel__c0, kernel__c1, ...), its config, parameters, block
 * size, LDS, @grid function and the kernel's key and reset parameters. It is made ahead of time
 * (`rkc --all-configs -o PATH FILE.tile`, or rk_compile_bundle) and loaded by the runtime library
 * alone, which autotunes over the variants without compiling anything. */
typedef struct rk_bundle rk_bundle;

/* Compiles every config of every kernel (options->kernel: of that one) for options->target and writes
 * the code object to `path` and the manifest to `path`.json, each written whole or not at all. Needs
 * the compiler (librk, not the runtime alone). Errors as rk_compile; RK_EIO when a file cannot be
 * written. */
RK_API rk_status rk_compile_bundle(rk_ctx *ctx, const char *source, size_t length, const rk_compile_options *options,
                                   const char *path);
/* Reads `path` and `path`.json. RK_EIO when either cannot be read, RK_EINVAL when the manifest is not
 * one. The bundle, and the kernels it hands out, live until rk_bundle_destroy or rk_ctx_destroy. */
RK_API rk_status rk_bundle_load(rk_ctx *ctx, const char *path, rk_bundle **bundle);
RK_API void rk_bundle_destroy(rk_bundle *bundle);
/* The target the bundle was compiled for ("gfx942", "emu"). */
RK_API const char *rk_bundle_target(const rk_bundle *bundle);
/* The bundle's kernels (not variants) by index, and a kernel's variants. */
RK_API int rk_bundle_kernel_count(const rk_bundle *bundle);
RK_API const char *rk_bundle_kernel_name(const rk_bundle *bundle, int i);
RK_API int rk_bundle_variant_count(const rk_bundle *bundle, const char *kernel_name);
RK_API rk_status rk_bundle_variant(rk_bundle *bundle, const char *kernel_name, int i, rk_kernel **variant);
/* As rk_autotune, over the bundle's variants of the kernel: times each (pruning none: the bundle was
 * made for one target) and returns the fastest; remembered in memory and on disk by (bundle contents,
 * kernel, device, key values). */
RK_API rk_status rk_bundle_autotune(rk_bundle *bundle, const char *kernel_name, const rk_arg *args, int nargs,
                                    rk_kernel **best);
/* As rk_run, over the bundle's variants. */
RK_API rk_status rk_bundle_run(rk_bundle *bundle, const char *kernel_name, const uint32_t *grid, const rk_arg *args,
                               int nargs, rk_stream *stream);

/* ---- where a kernel stands: work, device peaks, the roofline -------------------------------------- */

/* What one launch does: FLOPs and bytes of global memory, counted by the compiler from the kernel's
 * tile IR (dot shapes, elementwise float ops, loads and stores per program, times loop trip counts
 * and the grid; docs/api.md, "Work and the roofline"). Where the work depends on the data (a trip
 * count read from memory, a mask), the compiler's figure is an estimate and says so; a caller who
 * knows better fills an rk_work itself and passes it to rk_roofline_of. */
typedef struct rk_work {
    double flops;            /* flops_dot + flops_elem */
    double flops_dot;        /* 2*M*N*K per dot */
    double flops_elem;       /* elementwise float arithmetic, reductions, scans */
    double bytes;            /* bytes_read + bytes_written */
    double bytes_read, bytes_written;
    /* The least traffic to memory: per pointer argument, the smaller of its bytes moved and its buffer
     * (from the pointer to the end of its rk_malloc allocation), as if caches served every reuse; equal
     * to `bytes` for NULL pointers. The memory roof is judged on it (a tiled matmul reads each tile of
     * A and B many times, mostly from L2). */
    double bytes_min;
    rk_dtype dot_dtype;      /* the dots' operand type (which matrix peak applies); RK_F32 without dots */
    bool estimate;           /* not exact: `why` says what was approximated */
    const char *why;         /* "" when exact; lives as long as the kernel */
} rk_work;

/* The work of launching `kernel` over `grid` (NULL: its @grid) with these arguments (checked as for
 * rk_launch; pointers may be NULL, nothing runs). RK_EUNSUPPORTED for a kernel without work formulas
 * (from a bundle made before them). */
RK_API rk_status rk_kernel_work(rk_kernel *kernel, const uint32_t *grid, const rk_arg *args, int nargs, rk_work *work);

/* A device's peak figures, from its vendor's public documents (`source` names them). FLOP/s are dense
 * (no structured sparsity) at the peak engine clock; 0 where the device has no such unit. */
typedef struct rk_peaks {
    const char *name;          /* "MI300X", "H200 SXM" */
    const char *arch;          /* the compile target it runs: "gfx942", "sm_90" */
    int compute_units;         /* CUs (AMD) or SMs (NVIDIA) */
    double clock_mhz;          /* peak engine clock */
    double f64, f64_matrix;    /* FLOP/s: vector and matrix (MFMA / tensor core) */
    double f32, f32_matrix;    /* NVIDIA's f32 matrix figure is TF32 */
    double f16_matrix, bf16_matrix, fp8_matrix;
    double bytes_per_s;        /* HBM bandwidth */
    int lds_bytes_per_cu;      /* LDS (shared memory) per CU or SM */
    int vgprs_per_simd;        /* AMD: VGPRs (AGPRs included) per lane of a SIMD; NVIDIA: 32-bit registers per SM */
    const char *source;
} rk_peaks;

/* The table: rk_peaks_count() entries, rk_peaks_get(i) each (static data). */
RK_API int rk_peaks_count(void);
RK_API const rk_peaks *rk_peaks_get(int i);
/* The entry whose name is `name` (case and spaces ignored: "mi300x", "H200"), else the first whose arch
 * is `name` ("gfx942": MI300X, "gfx90a": MI250X, "gfx950": MI355X, "sm_90": H100 SXM); NULL if none. */
RK_API const rk_peaks *rk_peaks_find(const char *name);
/* The peaks that a kernel compiled for `target` (NULL: the context device's) is judged against: the
 * GPU itself (by its name, else its processor), and for emu, emu_sm90 and interp the device of the
 * target they stand for (gfx942's MI300X, sm_90's H100 SXM), with *estimate set, since their times are
 * the host's. $RK_PEAKS=NAME chooses an entry instead (RK_PEAKS=H200 on an emu_sm90 run). RK_ENOTFOUND
 * when no entry fits. */
RK_API rk_status rk_device_peaks(rk_ctx *ctx, const char *target, const rk_peaks **peaks, bool *estimate);

/* Where a measured launch stands on the device's roofline. */
typedef struct rk_roofline {
    double flops_per_s, bytes_per_s; /* achieved: work / time */
    double intensity;                /* FLOPs per byte */
    double ridge;                    /* the intensity at which the device's compute and bandwidth meet */
    double peak_flops_per_s;         /* the compute roof for this work's mix of dot and elementwise FLOPs */
    double bound_ms;                 /* the least time the roofline allows this work */
    double fraction;                 /* bound_ms / ms: 1 is at the roof */
    const char *limit;               /* "memory" or "compute": which roof bounds it */
} rk_roofline;

/* ms: the measured time of the launch (0: only the bound and the ridge). */
RK_API rk_status rk_roofline_of(const rk_peaks *peaks, const rk_work *work, double ms, rk_roofline *out);

/* A point of a roofline plot: its label, arithmetic intensity (FLOP/B) and FLOP/s; bound: the point is
 * the roofline's bound for some work, not a measurement (drawn in another colour). */
typedef struct rk_roofline_point {
    const char *label;
    double intensity, flops_per_s;
    int bound;
} rk_roofline_point;

/* Writes the device's roofline with the points as a self-contained SVG file (log-log axes in whole
 * decades, the bandwidth slope to the ridge point, the compute roof at roof FLOP/s -- rk_roofline's
 * peak_flops_per_s for the work's mix; 0: the device's bf16 matrix peak --, each point labelled; no script,
 * font or image from elsewhere). The file is written whole or not at all (RK_EIO). The autotuner
 * writes one of its whole search to $RK_ROOFLINE when that is set. */
RK_API rk_status rk_roofline_svg(rk_ctx *ctx, const char *path, const rk_peaks *peaks, double roof,
                                 const rk_roofline_point *points, int npoints);

/* What limits a kernel (rkc --advise): its likely limiters ranked, each with its evidence and the change
 * to try (docs/api.md, "Advice"), from the kernel's code object (on gfx targets its ISA report:
 * occupancy, spills, access widths, the main loop's MFMA utilisation), its work for this launch
 * (rk_kernel_work) and the peaks of the device (rk_device_peaks for the kernel's target). source (length
 * bytes) and options, when source is not NULL, are what the kernel was compiled with: the source is read
 * for calls of xcd_remap, and compiled once more, to the lowering, for the compiler's LDS bank-conflict
 * remarks (rkc --remarks); NULL leaves those two out. Writes the advice as text (json 0) or
 * JSON (json 1) into buf, NUL-terminated, and its length without the NUL to *needed; when it does not
 * fit in size bytes, buf holds a truncated prefix and the status is still RK_OK: compare *needed with
 * size. Needs the compiler (librk, not the runtime alone). */
RK_API rk_status rk_kernel_advise(rk_ctx *ctx, rk_kernel *kernel, const uint32_t *grid, const rk_arg *args, int nargs,
                                  const char *source, size_t length, const rk_compile_options *options, int json,
                                  char *buf, size_t size, size_t *needed);

/* ---- statistics --------------------------------------------------------------------------------- */

/* Counters of a context since its creation, for tests and tools. */
typedef struct rk_stats {
    uint64_t compiles;     /* runs of the compiler over a source: one per rk_compile that missed the
                              cache, one per autotune config compiled (and one per retry round
                              of an AMDGPU config that lost to its registers), one per kernel
                              description */
    uint64_t cache_hits;   /* compile and autotune cache entries used */
    uint64_t cache_misses; /* lookups that found no usable entry (absent, stale, corrupt) */
    uint64_t cache_corrupt; /* of those, entries found corrupt or truncated (then rebuilt) */
    uint64_t cache_writes; /* entries written */
    uint64_t tunings;      /* autotunings that timed configs (not answered from a cache) */
    uint64_t tune_runs;    /* timed and warm-up launches of autotuning */
    uint64_t launches;     /* rk_launch calls that reached the device */
    double last_tune_compile_ms; /* the last tuning: wall time compiling its configs ... */
    double last_tune_bench_ms;   /* ... and timing them */
    int last_tune_configs, last_tune_pruned; /* its space, and the configs dropped before timing */
} rk_stats;

RK_API rk_status rk_get_stats(const rk_ctx *ctx, rk_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
