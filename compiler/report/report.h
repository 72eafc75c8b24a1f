/* The ISA report: what a gfx9 code object really contains, read from the code object itself.
 *
 * Resources come from the AMDGPU metadata note (code object v5 msgpack: .vgpr_count, .agpr_count,
 * .sgpr_count, .group_segment_fixed_size, .private_segment_fixed_size, spill counts, ...); the
 * instruction mix from disassembling each kernel's code with LLVM's disassembler. Occupancy follows
 * AMD's documented procedure for CDNA3 (see ../shared/background/rocm-kernel-optimization.md). */
#ifndef RK_REPORT_H
#define RK_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/support/arena.h"

enum { REPORT_MAX_MFMA_SHAPES = 16 };

/* Memory operations are counted by access width: 8, 16, 32, 64, 96, 128 bits. */
enum { W8, W16, W32, W64, W96, W128, NWIDTHS };

typedef struct MfmaCount {
    char mnemonic[48]; /* e.g. v_mfma_f32_16x16x16_bf16 */
    int count;
} MfmaCount;

typedef struct KernelReport {
    const char *name;
    int vgprs, agprs, sgprs;
    int lds_bytes, scratch_bytes;
    int vgpr_spills, sgpr_spills;
    int workgroup_size;  /* .max_flat_workgroup_size */
    int waves_per_simd;  /* occupancy: waves per SIMD */
    const char *limiter; /* "vgprs", "lds", "workgroup" (waves per workgroup) or "max waves" */
    /* instruction mix */
    int instructions;
    int mfma_total;
    MfmaCount mfma[REPORT_MAX_MFMA_SHAPES];
    int nmfma;
    int global_loads[NWIDTHS], global_stores[NWIDTHS];
    int buffer_loads[NWIDTHS], buffer_stores[NWIDTHS];
    int lds_reads[NWIDTHS], lds_writes[NWIDTHS];
    int waitcnt;
    int loop_instructions; /* instructions inside the largest loop (backward branch), 0 if none */
} KernelReport;

typedef struct CodeReport {
    const char *cpu; /* from the ELF header's e_flags, e.g. gfx942 */
    KernelReport *kernels;
    int nkernels;
} CodeReport;

/* Reads an AMDGPU code object (the linked .hsaco, ELF64). Returns 0, or -1 with a message in *err
 * (allocated in the arena) when the bytes are not a code object it can read. */
int report_code_object(Arena *a, const void *elf, size_t size, CodeReport *out, const char **err);
/* The report as text (the `rkc --report` format) and as JSON (`--report=json`). */
char *report_text(Arena *a, const CodeReport *r);
char *report_json(Arena *a, const CodeReport *r);
/* CDNA3 occupancy: waves per SIMD for a kernel, and what limits it. */
int report_occupancy(int vgprs_total, int lds_bytes, int workgroup_size, const char **limiter);

#endif
