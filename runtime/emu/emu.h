/* The emulator of a gfx942 workgroup (or of an sm_90 thread block) on the host (devices `emu` and
 * `emu_sm90`).
 *
 * Runs a kernel compiled for --target=emu or emu_sm90 (see emu_abi.h) over a grid: each workgroup is
 * `block` lanes in waves of 64 (or 32), each lane a fiber with its own stack; lanes meet at barriers
 * and at wave operations, which
 * execute once all the lanes involved have arrived. Workgroups are spread over host threads. Global
 * accesses are checked against the allocations registered here; LDS is poison-filled and bounds
 * checked. Errors come back as a message, never as a crash or an exit. */
#ifndef RK_EMU_H
#define RK_EMU_H

#include <stddef.h>
#include <stdint.h>

#include "isa/emu_abi.h"

typedef struct EmuLaunch {
    const char *kernel_name;
    EmuKernelFn entry;
    const void *kernarg;
    uint32_t grid[3];   /* workgroups in x, y, z */
    uint32_t block;     /* work-items per workgroup: num_warps * wave, at most 1024 */
    uint32_t lds_bytes; /* LDS the kernel uses, at most 227 KiB */
    int wave;           /* lanes per wave: EMU_WAVE (64, also when 0) or EMU_WAVE_MIN (32: emu_sm90 code,
                           read from the code's "<kernel>" EMU_WAVE_SYMBOL_SUFFIX) */
    int threads;        /* host threads; 0 = one per core */
    double timeout_s;   /* 0 = RK_EMU_TIMEOUT from the environment, default 60 */
    /* Optional: receives the lines of fns->print, "pid (x, y, z) idx (i, j) msg: value", after the
     * launch ends (also when it failed), sorted by workgroup (x fastest), then lane, then call order,
     * on the calling thread. NULL: print does nothing. */
    void (*print_sink)(void *ud, const char *line);
    void *print_ud;
    /* Report data races (emu_race.c): two accesses to one byte, one a write, not both atomic, that no
     * barrier or atomic synchronisation orders. The launch then runs on one host thread. */
    int check_races;
} EmuLaunch;

typedef enum EmuStatus {
    EMU_OK = 0,
    EMU_ERR_ACCESS,  /* out-of-bounds or unallocated global/LDS access */
    EMU_ERR_ASSERT,  /* device_assert failed */
    EMU_ERR_WAVE,    /* a wave operation reached by only some lanes of a wave, or lanes disagreeing */
    EMU_ERR_TIMEOUT, /* ran past the timeout */
    EMU_ERR_INVALID, /* bad launch parameters, or an operand the emulator does not know (DPP control,
                        MFMA op) */
    EMU_ERR_NOMEM,
    EMU_ERR_RACE,    /* the race checker found two unordered accesses */
} EmuStatus;

/* Runs the launch to completion. On error, writes a one-line message (kernel, workgroup, lane,
 * address or site as relevant) into msg. */
EmuStatus emu_launch(const EmuLaunch *launch, char *msg, size_t msglen);

/* Global memory known to the emulator: accesses outside every registered range are errors.
 * Thread-safe. */
void emu_mem_register(const void *base, size_t bytes);
void emu_mem_unregister(const void *base);

#endif
