/* Internals shared by the report's files: the disassembly pass (report_isa.c). */
#ifndef RK_REPORT_INT_H
#define RK_REPORT_INT_H

#include "report.h"

typedef struct IsaDisasm IsaDisasm;

/* A disassembler for LLVM processor `llvm_cpu`, which must be one LLVM knows (LLVM aborts on an
 * unknown one); NULL with a message in *err when LLVM cannot make one. One thread at a time. */
IsaDisasm *report_isa_open(Arena *a, const char *llvm_cpu, const char **err);
void report_isa_close(IsaDisasm *d);
/* Disassembles `size` bytes of one kernel's code, loaded at address `addr`, and fills the
 * instruction mix of *k, and its loops through the cycle model where `cpu` (the report's name of the
 * processor) has one; k->workgroup_size and k->wave_size must be set. */
void report_isa_count(IsaDisasm *d, Arena *a, const uint8_t *code, size_t size, uint64_t addr, const char *cpu,
               KernelReport *k);

#endif
