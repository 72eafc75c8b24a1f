/* Semantic analysis: from parsed modules to fully specialised tile IR.
 *
 * Sema evaluates a kernel the way a partial evaluator would: every compile-time value (literals,
 * const parameters, module consts, types, shapes, `static for` indices) is known while the body is
 * walked, generic `fn`s are inlined at each call with their actual arguments (which is what
 * instantiation per argument types and shapes means here), and only what depends on run-time values
 * becomes IR. Names, types, shapes, promotion and broadcasting are checked on the way, each error
 * located in the source. The result is one TIR kernel function per kernel (and a grid function when
 * the kernel has @grid), plus what the runtime needs to know about it (KernelMeta). */
#ifndef RK_SEMA_H
#define RK_SEMA_H

#include "compiler/front/ast.h"
#include "compiler/tir/tir.h"

typedef struct Define {
    const char *name, *value; /* -D NAME=VALUE, value as written */
} Define;

typedef struct SemaOptions {
    const char *const *incdirs; /* -I, in order */
    int nincdirs;
    const char *stdlib_dir; /* the installed stdlib (NULL: none) */
    const Define *defines;
    int ndefines;
    const char *only_kernel; /* -k NAME, or NULL for every kernel */
    const char *target;      /* the compile target (num_xcds()); NULL: gfx942 */
    const char *assume;      /* facts about run-time parameters (support/facts.h), or NULL */
    bool confine_imports;    /* imports only from inside incdirs and stdlib_dir (sema_decl.c) */
} SemaOptions;

/* The value of a const parameter or compile option in one configuration. */
typedef enum CValKind { CV_INT, CV_FLOAT, CV_BOOL, CV_TYPE } CValKind;
typedef struct CVal {
    CValKind kind;
    int64_t i;
    double f;
    const Type *type; /* CV_TYPE: the dtype; others: the value's type */
} CVal;

typedef struct ConfigEntry {
    const char *name; /* a const parameter or a compile option */
    CVal value;
} ConfigEntry;

typedef struct Config {
    ConfigEntry *entries;
    int n;
} Config;

typedef enum ParamKind { PARAM_SCALAR, PARAM_POINTER } ParamKind;

typedef struct ParamMeta {
    const char *name;
    ParamKind kind;
    const Type *type;
    bool no_specialize; /* named by @no_specialize: launches never specialise on it */
} ParamMeta;

typedef struct KernelMeta {
    const char *name;
    ParamMeta *params; /* run-time parameters, in order (const parameters are specialised away) */
    int nparams;
    Config consts;     /* the const parameters' values this kernel was compiled with */
    KernelOptions opts;
    const char *facts; /* the facts about its parameters it was compiled with, canonical ("" for none) */
    bool has_grid;
    /* @flops(e) and @bytes(e): the launch's work as the user states it, as formulas of the run-time
     * parameters (compiler/report/work.h's notation), or NULL */
    const char *user_flops, *user_bytes;
    /* @autotune: the configs to try (space × where, then configs), the key and reset arguments */
    bool has_autotune;
    Config *tune_configs;
    int ntune;
    const char **tune_key;
    int ntune_key;
    const char **tune_reset;
    int ntune_reset;
} KernelMeta;

typedef struct SemaResult {
    Module *module; /* kernel (and grid) functions */
    KernelMeta *kernels;
    int nkernels;
} SemaResult;

/* Compiles every kernel of the file (or only_kernel). Errors are diagnostics; returns false if any.
 * `config`, when not NULL, overrides const parameters and options for every kernel (autotuning). */
bool sema_compile(Arena *a, StrTab *strs, TypeTab *types, SrcMgr *src, Diags *diags, SrcFile *main_file,
                  const SemaOptions *opts, const Config *config, SemaResult *out);

/* The compile options a config may name, and their defaults. */
bool sema_is_option(const char *name);

#endif
