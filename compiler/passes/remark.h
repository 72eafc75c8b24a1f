/* A performance remark (rkc --remarks, the JSON report's "remarks"): something that makes a kernel
 * slower than the target allows, where in the source, and the change that would help, in the
 * language's own terms. Made by compiler/passes/remarks.c (global accesses, before layouts) and by the
 * lowering (compiler/lower/lds_banks.c: LDS accesses, from the layouts). */
#ifndef RK_COMPILER_PASSES_REMARK_H
#define RK_COMPILER_PASSES_REMARK_H

typedef enum RemarkKind {
    REMARK_NARROW, /* an access narrower than the widest: bits < widest */
    REMARK_BANKS,  /* an LDS access whose lanes meet in a bank: ways > 1 */
    REMARK_SPILL,  /* a kernel that spills: bits = VGPRs spilled, widest = SGPRs (driver_spills.c) */
} RemarkKind;

typedef struct Remark {
    RemarkKind kind;
    const char *kernel, *file;
    int line, col;
    const char *what; /* "global load", "global store", "LDS write", "LDS read" */
    int bits, widest; /* per lane: this access, and the widest the target and the tile allow */
    int ways;         /* REMARK_BANKS: the most lanes' accesses one bank serves one after another */
    const char *why;  /* the fact or layout behind it, and what would help */
} Remark;

#endif
