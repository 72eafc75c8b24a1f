/* The ISA report: what a gfx9 code object really contains, read from the code object itself.
 *
 * Resources come from the AMDGPU metadata note (code object v5 msgpack: .vgpr_count, .agpr_count,
 * .sgpr_count, .group_segment_fixed_size, .private_segment_fixed_size, spill counts, ...); the
 * instruction mix from disassembling each kernel's code with LLVM's disassembler. Occupancy follows
 * AMD's documented procedure for CDNA3 (see ../shared/background/rocm-kernel-optimization.md),
 * with per-CPU limits (report_occupancy.c holds the table and its sources).
 *
 * What is counted, and how (report_isa.c):
 *   instructions  every instruction from the kernel symbol's st_value to st_value + st_size (the
 *                 alignment padding after s_endpgm is outside the symbol and not counted); an
 *                 undecodable word counts as one instruction.
 *   mfma          mnemonics v_mfma_* and v_smfmac_*, by mnemonic as LLVM prints it.
 *   memory        global_, buffer_, flat_ and scratch_ load and store (not atomics), and LDS reads
 *                 (ds_read*, ds_load*) and writes (ds_write*, ds_store*; not ds atomics, permutes or
 *                 swizzles), by the bits
 *                 each lane moves: byte/ubyte/sbyte/u8/i8/b8 = 8, short/ushort/sshort/u16/i16/b16/d16
 *                 = 16, dword/b32 = 32, dwordx2/b64 = 64, dwordx3/b96 = 96, dwordx4/b128 = 128,
 *                 format_x/xy/xyz/xyzw = 32 per component (16 with d16). The two-address LDS forms
 *                 (ds_read2*, ds_write2*, ds_load_2addr*, ds_store_2addr*) move two elements per lane:
 *                 ds_read2_b32 counts as 64, ds_read2_b64 as 128. Widths outside the six classes
 *                 (format_d16_xyz = 48) are not counted.
 *   s_waitcnt     every s_waitcnt* (s_waitcnt, s_waitcnt_vmcnt, s_waitcnt_lgkmcnt, ...) and the gfx12
 *                 s_wait_*cnt forms.
 *   main loop     the instructions from the target of the backward branch (s_branch, s_cbranch_*)
 *                 that spans the most instructions, to that branch, inclusive.
 *   loops         on gfx90a, gfx940/941/942, gfx9-4-generic and gfx950: every loop (a backward
 *                 branch, the farthest one to each target; not a range holding s_endpgm, which is
 *                 out-of-line code branching back, not a loop), up to REPORT_MAX_LOOPS, the largest
 *                 first, listed by position, each through the cycle model of report_loop.c. */
#ifndef RK_REPORT_H
#define RK_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/arena.h"

enum { REPORT_MAX_MFMA_SHAPES = 16, REPORT_MAX_LOOPS = 8 };

/* Memory operations are counted by access width: 8, 16, 32, 64, 96, 128 bits. */
enum { W8, W16, W32, W64, W96, W128, NWIDTHS };

typedef struct MfmaCount {
    char mnemonic[48]; /* e.g. v_mfma_f32_16x16x16_bf16 */
    int count;
} MfmaCount;

/* The loop cycle model's figures for one loop (report_loop.c says how they are estimated). Stalls:
 * the cycles of one steady-state iteration during which the matrix unit is idle, by what the SIMD's
 * wave that finishes last was doing then: waiting on vmcnt, on lgkmcnt (the LDS latency and the scalar loads), on the LDS's
 * bandwidth (the part of an lgkmcnt wait spent queueing behind other waves' LDS traffic), at
 * s_barrier, issuing VALU, issuing SALU (s_nop and s_waitcnt that do not wait included), or
 * anything else (issuing memory instructions, waiting on an MFMA's result). mfma_busy plus the
 * stalls is the iteration's cycles. */
enum { STALL_VMCNT, STALL_LGKMCNT, STALL_LDS, STALL_BARRIER, STALL_VALU, STALL_SALU, STALL_OTHER, NSTALLS };

typedef struct LoopReport {
    int first;           /* index of the loop's first instruction in the kernel */
    int instructions;    /* instructions in the body, the backward branch included */
    int mfma;            /* MFMA instructions in the body */
    int cycles;          /* estimated cycles per iteration, in steady state: with several waves on a
                            SIMD, per round of one iteration of each (report_loop.c) */
    int mfma_busy;       /* cycles of that iteration during which the matrix unit is busy */
    int mfma_free;       /* the longest run of instructions without an MFMA, across the back edge;
                            the whole body when it has none */
    int stalls[NSTALLS]; /* see above */
    /* LDS bank conflicts (report_lds.c): the body's LDS reads and writes whose every lane's address
     * the evaluator found, those of them with more than one way (lanes of a pass meeting in a bank at
     * different words), the worst ways, those whose addresses it could not find (not charged), and
     * the cycles per iteration the conflicts add to the LDS's occupancy (the workgroup's waves) */
    int lds_evaluated, lds_conflicted, lds_worst_ways, lds_unknown, lds_conflict_cycles;
} LoopReport;

extern const char *const report_stall_names[NSTALLS]; /* "vmcnt", "lgkmcnt", "lds", ... */

typedef struct KernelReport {
    const char *name;
    int vgprs, agprs;   /* architectural VGPRs and AGPRs (accumulation registers) */
    int vgprs_total;    /* .vgpr_count: the unified file on gfx90a+, alignTo(vgprs, 4) + agprs */
    int sgprs;          /* .sgpr_count: includes VCC, FLAT_SCRATCH and XNACK_MASK when reserved */
    int lds_bytes, scratch_bytes;
    int vgpr_spills, sgpr_spills;
    int workgroup_size;  /* .max_flat_workgroup_size */
    int wave_size;       /* .wavefront_size */
    bool v0_tid;         /* the descriptor asks for the x workitem id only: v0 = the flat id at entry */
    int waves_per_simd;  /* occupancy: waves per SIMD; -1 where there is no model for the CPU */
    const char *limiter; /* "vgprs", "sgprs", "lds", "workgroup" (whole workgroups), "max waves",
                            or "unknown target" */
    /* instruction mix */
    int instructions;
    int mfma_total;
    MfmaCount mfma[REPORT_MAX_MFMA_SHAPES]; /* sorted by mnemonic; shapes beyond the 16th count
                                               only in mfma_total */
    int nmfma;
    int global_loads[NWIDTHS], global_stores[NWIDTHS];
    int global_atomics[NWIDTHS]; /* global_atomic_*: 64 bits for _x2, else 32 (split-K's atomic_add) */
    int buffer_loads[NWIDTHS], buffer_stores[NWIDTHS];
    int flat_loads[NWIDTHS], flat_stores[NWIDTHS];
    int scratch_loads[NWIDTHS], scratch_stores[NWIDTHS];
    int lds_reads[NWIDTHS], lds_writes[NWIDTHS];
    int waitcnt;
    int loop_instructions; /* instructions inside the largest loop (backward branch), 0 if none */
    LoopReport loops[REPORT_MAX_LOOPS]; /* by position in the code */
    int nloops;
} KernelReport;

typedef struct CodeReport {
    const char *cpu; /* from the ELF header's e_flags, e.g. gfx942 */
    KernelReport *kernels;
    int nkernels;
} CodeReport;

/* Reads an AMDGPU code object (the linked .hsaco, ELF64). Returns 0, or -1 with a message in *err
 * (allocated in the arena) when the bytes are not a code object it can read. Any byte string is
 * safe to pass. Thread-safe: each call makes its own disassembler (0.1-0.3 ms), used for all of
 * its kernels; disassembly costs about 1.5 us an instruction. */
int report_code_object(Arena *a, const void *elf, size_t size, CodeReport *out, const char **err);
/* The same for a launch that adds extra_lds bytes of LDS to each kernel's (dynamic shared memory, as
 * Triton's launcher gives): counted in lds_bytes, the occupancy and the loops' resident workgroups. */
int report_code_object_lds(Arena *a, const void *elf, size_t size, int extra_lds, CodeReport *out, const char **err);
/* Only what the code object's metadata says of each kernel (name, .vgpr_count as vgprs_total, SGPRs,
 * LDS, scratch, spills, workgroup and wave size): no disassembly, no occupancy (the driver's check of
 * a compile, compiler/driver/driver_frugal.c). */
int report_code_object_meta(Arena *a, const void *elf, size_t size, CodeReport *out, const char **err);
/* The report as text (the `rkc --report` format) and as JSON (`--report=json`). */
char *report_text(Arena *a, const CodeReport *r);
char *report_json(Arena *a, const CodeReport *r);
/* Occupancy on `cpu`: waves per SIMD for a kernel, and what limits it (a static string). 0 when a
 * workgroup does not fit on a CU at all; -1, with limiter "unknown target", for a CPU without a
 * model (only gfx90a, gfx940/941/942, gfx950 and gfx9-4-generic have one). sgprs <= 0: not a limit. */
int report_occupancy_for(const char *cpu, int vgprs_total, int sgprs, int lds_bytes,
                         int workgroup_size, const char **limiter);
/* CDNA3 (gfx942) occupancy: report_occupancy_for("gfx942", vgprs_total, 0, ...). */
int report_occupancy(int vgprs_total, int lds_bytes, int workgroup_size, const char **limiter);
/* The bits per lane that a load/store mnemonic moves, and its class; for tests and tools. */
enum { MEM_NONE, MEM_GLOBAL_LOAD, MEM_GLOBAL_STORE, MEM_BUFFER_LOAD, MEM_BUFFER_STORE,
       MEM_FLAT_LOAD, MEM_FLAT_STORE, MEM_SCRATCH_LOAD, MEM_SCRATCH_STORE, MEM_LDS_READ,
       MEM_LDS_WRITE };
int report_classify_memory(const char *mnemonic, int *bits);


/* The loop cycle model (report_loop.c). Memory latencies and bandwidths are parameters; the
 * defaults, with their sources, are report_loop_params. */
typedef struct LoopParams {
    int global_latency;    /* cycles from issue to completion of a VMEM load or store */
    int lds_latency;       /* cycles from issue to completion of one DS instruction, LDS idle */
    int smem_latency;      /* cycles from issue to completion of a scalar memory load */
    int barrier_latency;   /* cycles of an s_barrier that every wave reaches together */
    int lds_bytes_per_clk; /* the LDS's bandwidth per CU, shared by the workgroup's waves */
    int iterations;        /* iterations simulated back to back; the last one is reported */
    int simd_waves;        /* the waves scheduled on one SIMD: 0 for the workgroup's share (1 for up to
                              4 waves, 2 for 5 to 8, ...) times `workgroups`; 1 for one wave with a
                              SIMD of its own, as llvm-mca models it (bench/loop_mca) */
    int workgroups;        /* workgroups resident on the CU at once, running the same loop (the
                              kernel's occupancy): 0 or 1 for the workgroup alone; each has its own
                              barriers, and a figure is per iteration of one workgroup */
    /* NULL, or called for each instruction a wave issues, in schedule order: the wave, its iteration,
     * the instruction's index in the body and the cycle its issue ends (bench/loop_mca's --trace) */
    void (*trace)(void *ctx, int wave, int iteration, int index, int64_t done);
    void *trace_ctx;
} LoopParams;
extern const LoopParams report_loop_params;
/* Models a loop whose body is `lines` (one instruction each, as LLVM's disassembler prints it:
 * mnemonic then operands), its last line the backward branch, for CPU `cpu` (a name of the report's
 * table: gfx90a, gfx940/941/942, gfx9-4-generic or gfx950) and a workgroup of `waves` waves. p: NULL
 * for report_loop_params. Fills *out except out->first. Returns 0, or -1 (out zeroed) when there is
 * no model for `cpu`. Temporaries go to the arena. */
int report_loop_model(Arena *a, const char *cpu, int waves, const char *const *lines, int n, const LoopParams *p,
                      LoopReport *out);
/* The same for a loop inside a kernel: `lines` are the kernel's instructions from its entry, the loop
 * is lines[entry..n), and the LDS bank conflicts of its DS reads and writes are charged where
 * report_lds_costs finds their addresses (v0_tid: v0 holds the flat workitem id at entry).
 * report_loop_model(lines, n) is report_loop_model_in(lines, 0, n) with v0 unknown. */
int report_loop_model_in(Arena *a, const char *cpu, int waves, bool v0_tid, const char *const *lines, int entry,
                         int n, const LoopParams *p, LoopReport *out);
/* Whether report_loop_model has a model for `cpu`. */
int report_loop_has_model(const char *cpu);

/* LDS bank conflicts of one DS instruction of a loop over a workgroup's waves (report_lds.c). */
enum { LDS_NONE, LDS_KNOWN, LDS_UNKNOWN };
typedef struct LdsCost {
    int kind;          /* LDS_NONE: not an LDS read or write; LDS_UNKNOWN: some lane's address unknown */
    int ways;          /* LDS_KNOWN: the most words one bank serves in a pass, over passes and waves */
    int64_t pass_ways; /* the sum over waves and passes of each pass's ways */
    int64_t passes;    /* the passes over waves: pass_ways / passes is the conflicts' factor on time */
} LdsCost;
/* Fills out[0..n - entry) for the instructions lines[entry..n) by evaluating every lane's address
 * from the kernel's entry (lines[0]) for each of `waves` waves, with `banks` 4-byte banks. */
void report_lds_costs(Arena *a, const char *const *lines, int entry, int n, int waves, int banks, bool v0_tid,
                      LdsCost *out);

#endif
