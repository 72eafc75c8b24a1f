/* libFuzzer target over the whole compiler: any byte string, as a .tile source, goes through
 * driver_compile (what rk_compile and rkc run) to a code object for gfx942 and, when that succeeds,
 * for the emulator (a host shared object, linked by ld.lld as for the GPU). It must end in a code object
 * or in diagnostics, never in a crash, a leak, undefined behaviour or a hang. Every accepted program's
 * LLVM module is checked by the driver with LLVMVerifyModule before LLVM optimises it, and an invalid
 * one is reported as "internal error: rk produced invalid LLVM IR"; this target treats any internal
 * error (invalid tile IR, LIR or LLVM IR, an LLVM failure) as a finding and traps, printing it.
 * Run by scripts/fuzz.sh, seeded with every .tile in the tree, dictionary tests/fuzz/tile.dict.
 *
 * Built a second time as fuzz_lower (RK_FUZZ_STOP_AT_LLVM): the same checks, but each compile stops at
 * the verified LLVM module (every stage rk owns: front end, semantics, passes, layouts, lowering, the
 * verifier and the target's allow-lists), without LLVM's optimisation, code generation and the link,
 * which take nearly all of a compile; it runs about two orders of magnitude more inputs per second. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "compiler/driver/driver.h"

#ifndef RK_FUZZ_STDLIB
#define RK_FUZZ_STDLIB NULL
#endif

#ifdef RK_FUZZ_STOP_AT_LLVM
enum { STOP = STAGE_LLVM };
#else
enum { STOP = STAGE_BIN };
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
    bool ok = driver_compile(&arena, &strs, &src, &diags, &o, STOP, &r);
    for (int i = 0; i < diags.n; i++) {
        /* the message, not the rendered text: that quotes the source line, which may say anything
         * (the fuzzer wrote "internal error" into a parameter's name) */
        if (diags.items[i].msg && strncmp(diags.items[i].msg, "internal error", 14) == 0) {
            const char *text = diag_render(&arena, &diags.items[i]);
            fprintf(stderr, "fuzz_pipeline: %s: %s", target, text);
            __builtin_trap();
        }
    }
    if (!ok && diags.nerrors == 0) {
        fprintf(stderr, "fuzz_pipeline: %s: the compile failed without saying why\n", target);
        __builtin_trap();
    }
    if (ok && (STOP == STAGE_LLVM ? !r.text || !*r.text : !r.binary || r.size == 0)) {
        fprintf(stderr, "fuzz_pipeline: %s: accepted, but no %s\n", target,
                STOP == STAGE_LLVM ? "LLVM module" : "code object");
        __builtin_trap();
    }
    arena_free(&arena);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16) /* the front end's limits are fuzz_front's business */
        return 0;
    if (compile(data, size, "gfx942"))
        compile(data, size, "emu");
    return 0;
}
