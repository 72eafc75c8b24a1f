/* clock.h: the clocks that the compiler's stage timings and the runtime's deadlines, events and
 * profiles read, in milliseconds: wall time (CLOCK_MONOTONIC) and the calling thread's CPU time (LLVM
 * and rk's own linker run each call on the caller's thread; a tool it spawns, ld.lld, is counted by
 * the caller from its rusage). */
#ifndef RK_SUPPORT_CLOCK_H
#define RK_SUPPORT_CLOCK_H

#include <time.h>

static inline double clock_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline double clock_thread_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

#endif
