/* What a bundle variant's code was compiled for, carried by its symbol (issue 23): the compiler names
 * each variant of a bundle kernel__c<i>_<id> (compiler/api/variants.c), where <id> is 16 hex digits,
 * two hashes of 32 bits: of the configuration (config_text and facts), then of the launch shape and
 * calling convention (num_warps, block, lds_bytes, the sm_90 tensor maps, the parameters' names, kinds
 * and types, and the @grid function). The symbol is in the code object, so the bundle loader
 * (bundle.c) recomputes the id from the manifest's fields and refuses a variant whose fields are not
 * those of the code its symbol names (symbols exchanged; a config, lds_bytes, a parameter or the grid
 * edited). */
#ifndef RK_RUNTIME_BUNDLE_VARIANT_ID_H
#define RK_RUNTIME_BUNDLE_VARIANT_ID_H

#include "runtime/api/program_build.h"

#define VARIANT_ID_LEN 16

/* The id of d's configuration and launch shape: VARIANT_ID_LEN hex digits and a NUL into out. */
void variant_id(const RtKernelDesc *d, char out[VARIANT_ID_LEN + 1]);

/* Which part of the symbol's id differs from d's: 0 none (the symbol ends in "_" and d's id), 1 the
 * configuration, 2 the launch shape or calling convention, 3 the symbol carries no id (not made by
 * this compiler). */
int variant_id_check(const char *symbol, const RtKernelDesc *d);

#endif
