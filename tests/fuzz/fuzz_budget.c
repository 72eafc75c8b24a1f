/* libFuzzer target for resource bounds (issue 23 item 6): any byte string, as a .tile source of up to
 * 1 MiB, goes through driver_compile (what rk_compile and rkc run) to a code object for gfx942 and,
 * when that succeeds, for emu, like fuzz_pipeline; but here the time and memory a compile takes are
 * what is checked. rk promises a service that a compile either finishes in bounded time and memory or
 * is refused with the line that asks for too much (docs/reliability.md, "Compiling source you do not
 * trust"), so a compile that takes longer than RK_FUZZ_COMPILE_SECONDS (default 20) traps, naming the
 * target and the seconds, and libFuzzer's own -timeout (the whole input) and -rss_limit_mb /
 * -malloc_limit_mb make a slow or greedy input a finding with its file, not a wait. Internal errors
 * and compiles that fail without a diagnostic trap as in fuzz_pipeline.
 *
 * The seed corpus, the .tile files of tests/fuzz/budget, holds kernels near the budgets (256 elements per lane in a
 * load, 4096 unrolled iterations, large 2-D tiles, dots, scans, nested run-time loops), so that the
 * mutations that change a size, a shape or num_warps start where compile time grows. scripts/fuzz.sh
 * runs it with -timeout=30 -rss_limit_mb=2048 (the sanitizer build, on shared cores); by hand, a release
 * build of the library with -timeout=10 holds it to the 10 s. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compiler/driver/driver.h"

#ifndef RK_FUZZ_STDLIB
#define RK_FUZZ_STDLIB NULL
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double budget_seconds(void)
{
    static double s = -1;
    if (s < 0) {
        const char *e = getenv("RK_FUZZ_COMPILE_SECONDS");
        s = e && atof(e) > 0 ? atof(e) : 20;
    }
    return s;
}

/* Compiles for one target; false when the program was rejected (with diagnostics). */
static bool compile(const uint8_t *data, size_t size, const char *target)
{
    Arena arena;
    arena_init(&arena, arena_default_allocator);
    SrcMgr src;
    src_init(&src, &arena);
    Diags diags;
    diags_init(&diags, &arena, &src);
    StrTab strs;
    strtab_init(&strs, &arena);
    DriverOptions o = {0};
    o.filename = "fuzz.tile";
    o.source = (const char *)data;
    o.len = size;
    o.target = target;
    o.stdlib_dir = RK_FUZZ_STDLIB;
    o.opt_level = 3;
    DriverResult r;
    double t0 = now();
    bool ok = driver_compile(&arena, &strs, &src, &diags, &o, STAGE_BIN, &r);
    double took = now() - t0;
    if (took > budget_seconds()) {
        fprintf(stderr, "fuzz_budget: %s: the compile took %.1f s, over the %.0f s budget (%s): rk must refuse "
                "what takes this long, at the line that asks for it\n", target, took, budget_seconds(),
                ok ? "accepted" : "refused");
        __builtin_trap();
    }
    for (int i = 0; i < diags.n; i++) {
        if (diags.items[i].msg && strncmp(diags.items[i].msg, "internal error", 14) == 0) {
            const char *text = diag_render(&arena, &diags.items[i]);
            fprintf(stderr, "fuzz_budget: %s: %s", target, text);
            __builtin_trap();
        }
    }
    if (!ok && diags.nerrors == 0) {
        fprintf(stderr, "fuzz_budget: %s: the compile failed without saying why\n", target);
        __builtin_trap();
    }
    arena_free(&arena);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 20)
        return 0;
    if (compile(data, size, "gfx942"))
        compile(data, size, "emu");
    return 0;
}
