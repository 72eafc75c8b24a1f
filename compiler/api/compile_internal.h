/* What rk_compile (compile.c), rk_autotune (autotune.c, variants.c) and rk_compile_bundle
 * (bundle_write.c) share: checked compile options, cache keys, the kernels' descriptions for the
 * runtime, the imports a compile read, and its stages in the trace. Not installed. */
#ifndef RK_COMPILE_INTERNAL_H
#define RK_COMPILE_INTERNAL_H

#include "compiler/driver/driver.h"
#include "runtime/api/program_build.h"
#include "runtime/cache/record.h"

/* The options of one compile, checked and with defaults filled in. */
typedef struct CompileSetup {
    const char *filename;   /* "<source>" when none was given */
    const char *source;
    size_t length;
    const char *target;
    const rk_define *defines;
    int ndefines;
    const char *const *incdirs;
    int nincdirs;
    const char *kernel;     /* NULL: every kernel */
    int opt_level;          /* 0..3 */
    const char *stdlib_dir;
    const char *assume;     /* facts about run-time parameters, or NULL */
    bool confine_imports;   /* imports only inside incdirs and stdlib_dir */
    const char *const *specialize; /* rk_compile_bundle: further sets of facts */
    int nspecialize;
} CompileSetup;

/* Checks the options (RK_EINVAL, RK_EUNSUPPORTED with the context's error) and fills cs. */
rk_status compile_setup(rk_ctx *ctx, const char *source, size_t length, const rk_compile_options *o,
                        CompileSetup *cs);
/* Starts a cache key: kind, rk's version and build, and every input of cs (source, file name, target,
 * kernel, defines, import folders, stdlib, optimisation level). The caller may add more. */
void compile_key_begin(Sha256 *s, const char *kind, const CompileSetup *cs);
/* The same fields as bytes, appended to b: an exact key for the context's memory (tune.h). */
void compile_key_material(Blob *b, const char *kind, const CompileSetup *cs);

/* One compile in an arena: its sources, diagnostics and strings, the driver's options and its result.
 * rk_compile, rk_autotune (its description and every variant) and rk_compile_bundle each run one. */
typedef struct CompileSession {
    SrcMgr src;
    Diags diags;
    StrTab strs;
    DriverOptions opts;
    DriverResult r;
} CompileSession;

/* A session for cs in a, with the driver's options: cs's defines, then `extra` (an autotune config).
 * IR dumps go to the context's sink only when `dumps`. The caller may change s->opts before running. */
CompileSession *compile_session(Arena *a, rk_ctx *ctx, const CompileSetup *cs, const Define *extra, int nextra,
                                bool dumps);
/* Runs the driver up to `stop`; true when it got there. With a trace_name, the stages it timed go to
 * the context's trace under that name. */
bool compile_session_run(CompileSession *s, Arena *a, rk_ctx *ctx, Stage stop, const char *trace_name);
/* The imports a compile read (every file of src but the main one), for the cache record. */
CacheDep *compile_deps(Arena *a, const SrcMgr *src, int *n);
/* The kernels' descriptions for the runtime, from the driver's result. */
RtKernelDesc *compile_describe(Arena *a, const DriverResult *r);
/* The parameters @no_specialize names, space-separated ("" for none). */
const char *compile_nospec(Arena *a, const KernelMeta *m);
/* One kernel's run-time parameters as rk_params (names copied into a). */
rk_param *compile_params(Arena *a, const KernelMeta *m);
/* A config as -D pairs: "BLOCK_M=128 num_warps=4" (types by name, bools as true/false). */
const char *compile_config_text(Arena *a, const Config *c);
/* Turns a config into defines appended at defs[*n]. */
void compile_config_defines(Arena *a, const Config *c, Define *defs, int *n);
/* The status and context error of a failed compile, from its diagnostics. */
rk_status compile_failed(rk_ctx *ctx, const Diags *diags);
/* Lets launches of p's kernels compile specialised variants (runtime/api/spec.c), unless cs has
 * facts of its own or the target gains nothing from them (compile_specializes). */
void compile_spec_attach(rk_program *p, const CompileSetup *cs);
bool compile_specializes(const char *target);
/* Whether the context asks for IR dumps (which a cache hit would not produce). */
bool compile_dumps_wanted(const rk_ctx *ctx);

#endif
