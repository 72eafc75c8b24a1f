/* The reference interpreter of layout-free tile IR (device `interp`): the semantics oracle.
 *
 * Runs a kernel function of a TIR module over the whole grid on the host, program instances spread
 * over host threads. Every value is a whole tile; every builtin computes what the language contract
 * says, with the dtype semantics of a GPU: 16-bit floats rounded to their format after every
 * operation, cast and store; integers wrap around; division as in C (see compiler/tir/ops.def for the
 * corner cases rk defines). Global accesses are checked against the allocation registry
 * (runtime/memreg.h) and for alignment; errors come back as a message naming the kernel, the program
 * id, the address and the source position, never as a crash.
 *
 * The decisions the contract leaves open are listed where they are made: runtime/interp/interp_ops.c
 * (arithmetic, casts, reductions, dot), interp_mem.c (memory, atomics, print), interp.c (loops,
 * threads, errors). In short: reductions and dot accumulate in f32 in index order (dot: one fma per
 * k); argmax/argmin return the first NaN, else the first extreme; a false `assume` is an error like a
 * failed assert; masked-off atomic lanes return 0. The IR is only read (no scratch fields are used),
 * so one Func may be launched from several threads at once; malformed IR is refused with
 * INTERP_ERR_INVALID before anything runs. */
#ifndef RK_INTERP_H
#define RK_INTERP_H

#include <stddef.h>
#include <stdint.h>

#include "compiler/tir/tir.h"

typedef enum InterpStatus {
    INTERP_OK = 0,
    INTERP_ERR_ACCESS,  /* out of bounds, unallocated or misaligned */
    INTERP_ERR_ASSERT,  /* device_assert failed */
    INTERP_ERR_TIMEOUT, /* ran past the timeout */
    INTERP_ERR_INVALID, /* bad arguments or an op the interpreter cannot run */
    INTERP_ERR_NOMEM,
} InterpStatus;

typedef struct InterpLaunch {
    const Func *kernel; /* FUNC_KERNEL */
    /* args[i] points to the value of parameter i (body->args[i]), stored as the parameter's type
     * (i32 as int32_t, f16 as uint16_t bits, bool as one byte, pointers as void *), like CUDA's
     * kernelParams. */
    const void *const *args;
    uint32_t grid[3];
    int threads;      /* host threads; 0 = one per core */
    double timeout_s; /* 0 = RK_EMU_TIMEOUT from the environment, default 60 */
    /* Lines written by print(), "pid (x, y, z) idx (i, j) msg: value" ("idx ..." left out for scalars,
     * ": value" when print has no value; floats %.9g, f64 %.17g, bools true/false), in program-id
     * order (x fastest), then execution order, delivered on the calling thread after the launch, also
     * when it failed. NULL: print does nothing. */
    void (*print_sink)(void *ud, const char *line);
    void *print_ud;
} InterpLaunch;

/* Runs the launch; on error writes a one-line message to msg. When several programs fail, the error
 * is that of the lowest program id (x fastest), independent of thread timing; a timeout wins over
 * everything. */
InterpStatus interp_launch(const InterpLaunch *l, char *msg, size_t msglen);

/* Evaluates a grid function (FUNC_GRID) for the given arguments (same convention as above, the grid
 * function's parameters being the kernel's scalar parameters). */
InterpStatus interp_eval_grid(const Func *grid, const void *const *args, uint32_t out[3], char *msg, size_t msglen);

#endif
