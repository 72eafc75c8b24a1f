/* Pointer provenance: which kernel parameter each pointer of a function derives from.
 *
 * A pointer value derives from parameter i when every way of computing it starts at parameter i and
 * goes through pointer arithmetic (addptr), shape ops (splat, broadcast, expand_dims, reshape,
 * permute, convert_layout, hint) and selects, if results and loop-carried values whose every source
 * derives from i. Anything else — a pointer loaded from memory, a select or loop value mixing two
 * parameters — has no known provenance. The host devices check an access whose provenance is known
 * against the allocation that parameter points into (an overrun that lands in a neighbouring buffer
 * is an error, not a silent read of it), and any other against every allocation (issue 23). */
#ifndef RK_TIR_PROVENANCE_H
#define RK_TIR_PROVENANCE_H

#include <stdint.h>

#include "compiler/tir/tir.h"

/* The caller's number of a value (0 .. n-1), or -1 for one it does not know. */
typedef int32_t (*ProvId)(void *ud, const Value *v);

/* prov[id(v)] = 1 + the index of the parameter v derives from, 0 when not known, for every value
 * of f (non-pointers: 0). prov has room for every id. */
void compute_provenance(const Func *f, int32_t *prov, ProvId id, void *ud);

#endif
