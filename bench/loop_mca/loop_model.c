/* loop_model: rk's loop cycle model (compiler/target/amdgpu/report_loop.c) on a loop body given as text,
 * one instruction a line as llvm-objdump or LLVM's disassembler prints it (read by bench/isa_listing.h;
 * the last line should be the backward branch). For comparing the model with llvm-mca on the same
 * lines (bench/loop_mca/compare.py).
 *
 *   loop_model [--cpu gfx942] [--waves N] [--simd-waves N] [--global N] [--lds N] [--smem N]
 *              [--barrier N] [--lds-bw BYTES_PER_CLK] [--iterations N]
 *              [--workgroups N] [--trace] FILE
 *
 * --waves: the workgroup's; --simd-waves: those scheduled on one SIMD (LoopParams.simd_waves: 0, the
 * default, for the workgroup's share; 1 for one wave alone, as llvm-mca models it); --workgroups:
 * those resident on the CU at once (LoopParams.workgroups; the report passes the occupancy's);
 * --trace: one line a scheduled instruction on stderr (wave, iteration, cycle its issue ends, the gap
 * since the wave's previous one, the instruction), for reading where a loop's cycles go.
 *
 * prints one JSON object: the LoopReport's fields. Exit 0, 1 when the file cannot be read or the CPU
 * has no model, 2 for a bad command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/isa_listing.h"
#include "compiler/target/amdgpu/report.h"

typedef struct Trace {
    const char **lines;
    int64_t last[64];
} Trace;

/* LoopParams.trace: done < 0 marks a wave reaching an s_barrier, 0 one about to issue */
static void trace_line(void *ctx, int wave, int iteration, int index, int64_t done)
{
    Trace *t = ctx;
    if (done <= 0 || wave >= 64)
        return;
    fprintf(stderr, "w%d i%d %7lld +%-4lld %3d: %s\n", wave, iteration, (long long)done,
            (long long)(done - t->last[wave]), index, t->lines[index]);
    t->last[wave] = done;
}

int main(int argc, char **argv)
{
    const char *cpu = "gfx942", *path = NULL;
    int waves = 4, trace = 0;
    LoopParams p = report_loop_params;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int *dst = !strcmp(a, "--waves")     ? &waves
                   : !strcmp(a, "--global")  ? &p.global_latency
                   : !strcmp(a, "--lds")     ? &p.lds_latency
                   : !strcmp(a, "--smem")    ? &p.smem_latency
                   : !strcmp(a, "--barrier") ? &p.barrier_latency
                   : !strcmp(a, "--lds-bw")  ? &p.lds_bytes_per_clk
                   : !strcmp(a, "--simd-waves") ? &p.simd_waves
                   : !strcmp(a, "--iterations") ? &p.iterations
                   : !strcmp(a, "--workgroups") ? &p.workgroups
                                             : NULL;
        if (!strcmp(a, "--trace"))
            trace = 1;
        else if (!strcmp(a, "--cpu") && i + 1 < argc)
            cpu = argv[++i];
        else if (dst && i + 1 < argc)
            *dst = atoi(argv[++i]);
        else if (!path && a[0] != '-')
            path = a;
        else
            path = NULL, i = argc;
    }
    if (!path) {
        fprintf(stderr, "usage: loop_model [--cpu CPU] [--waves N] [--simd-waves N] [--global N] [--lds N] [--smem N] [--barrier N] "
                        "[--lds-bw N] [--iterations N] [--workgroups N] [--trace] FILE\n");
        return 2;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "loop_model: cannot read %s\n", path);
        return 1;
    }
    Arena a;
    arena_init(&a, arena_default_allocator);
    int n;
    const char **lines = isa_listing_read(f, &a, &n);
    fclose(f);
    Trace tr = {lines, {0}};
    if (trace) {
        p.trace = trace_line;
        p.trace_ctx = &tr;
    }
    LoopReport l;
    int rc = report_loop_model(&a, cpu, waves, lines, n, &p, &l);
    if (rc == 0) {
        printf("{\"instructions\": %d, \"mfma\": %d, \"cycles\": %d, \"mfma_busy\": %d, \"mfma_free\": %d, \"stalls\": {",
               l.instructions, l.mfma, l.cycles, l.mfma_busy, l.mfma_free);
        for (int c = 0; c < NSTALLS; c++)
            printf("%s\"%s\": %d", c ? ", " : "", report_stall_names[c], l.stalls[c]);
        printf("}}\n");
    } else {
        fprintf(stderr, "loop_model: no model for %s\n", cpu);
    }
    free(lines);
    arena_free(&a);
    return rc ? 1 : 0;
}
