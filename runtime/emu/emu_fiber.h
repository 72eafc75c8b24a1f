/* Fibers for the emulator: one stack and one saved stack pointer per lane, switched in user space.
 *
 * A switch saves the callee-saved registers of the SysV x86-64 ABI (rbx, rbp, r12-r15), the MXCSR and
 * the x87 control word on the current stack, stores the stack pointer in `from`, loads the one of `to`
 * and pops the same frame there: no system call, a few nanoseconds (ucontext's swapcontext makes a
 * sigprocmask call per switch). Caller-saved registers need no saving: the switch is an ordinary call.
 *
 * Invariants:
 * - A suspended context's `sp` points at its saved frame; a running context's `sp` is stale.
 * - A context is resumed at most once per suspension, by exactly one other context, on the same host
 *   thread that holds it at that moment (contexts may move between threads while suspended).
 * - A context whose function has finished or that is abandoned is never resumed again; its stack is
 *   reused only through emu_ctx_start, which builds a fresh frame (and, under ASan, unpoisons the whole
 *   stack, whose abandoned frames left their redzones poisoned).
 * - Stacks come from mmap with a PROT_NONE guard region below each one: an overflow faults (SIGSEGV)
 *   instead of running into the neighbouring lane's stack. The emulator does not catch that signal.
 *
 * Under AddressSanitizer and ThreadSanitizer every switch tells the sanitizer about the new stack
 * (__sanitizer_start/finish_switch_fiber, __tsan_switch_to_fiber); without them a switch is only the
 * register swap. x86-64 only. */
#ifndef RK_EMU_FIBER_H
#define RK_EMU_FIBER_H

#include <stddef.h>
#include <stdint.h>

#if !defined(__x86_64__)
#error "the emulator's fibers are written for x86-64 (SysV ABI)"
#endif

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMU_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define EMU_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(EMU_ASAN)
#define EMU_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__) && !defined(EMU_TSAN)
#define EMU_TSAN 1
#endif

#if EMU_ASAN
#include <sanitizer/common_interface_defs.h>
#endif
#if EMU_TSAN
#include <sanitizer/tsan_interface.h>
#endif

enum {
    EMU_STACK_BYTES = 256 * 1024, /* per lane */
    EMU_GUARD_BYTES = 64 * 1024,  /* below each stack; larger than one page so that a big frame
                                     that skips a single page still lands in the guard */
};

typedef struct EmuCtx {
    void *sp;          /* saved stack pointer while suspended */
    char *stack_lo;    /* lowest byte of the usable stack (NULL: not known, a thread's own stack) */
    size_t stack_size; /* bytes from stack_lo */
    struct EmuCtx *(*fn)(void *); /* returns the context to resume when it has finished */
    void *arg;
#if EMU_ASAN
    void *asan_fake; /* ASan's fake stack of this context while it is suspended */
#endif
#if EMU_TSAN
    void *tsan_fiber;
#endif
} EmuCtx;

/* The register swap, in fiber.c's assembly. */
void emu_fiber_swap(void **save_sp, void *to_sp);

/* Makes ctx describe the calling thread's own stack, the scheduler's context. */
void emu_ctx_thread(EmuCtx *ctx);

/* Prepares ctx (whose stack_lo/stack_size are set) to run fn(arg) from the top of its stack at the next
 * switch to it. When fn returns, ctx is finished and the context fn returned is resumed. (Ending by
 * returning rather than by a call to a _Noreturn function matters under ASan, which treats every
 * no-return call as a longjmp and then garbage-collects the whole fake stack at its next use.) */
void emu_ctx_start(EmuCtx *ctx, struct EmuCtx *(*fn)(void *), void *arg);

/* Releases what the sanitizers hold for a context started with emu_ctx_start (nothing without them).
 * Call it on a thread's own stack, with the context suspended or exited. */
void emu_ctx_destroy(EmuCtx *ctx);

/* Suspends `from` (the running context) and resumes `to`; returns when something resumes `from`. */
static inline void emu_ctx_switch(EmuCtx *from, EmuCtx *to)
{
#if EMU_ASAN
    __sanitizer_start_switch_fiber(&from->asan_fake, to->stack_lo, to->stack_size);
#endif
#if EMU_TSAN
    __tsan_switch_to_fiber(to->tsan_fiber, 0);
#endif
    emu_fiber_swap(&from->sp, to->sp);
#if EMU_ASAN
    __sanitizer_finish_switch_fiber(from->asan_fake, NULL, NULL);
#endif
}

/* Leaves `from` for good (its function is abandoned) and resumes `to`; `from` runs again only through
 * emu_ctx_start. For errors: the normal end of a context is the return of its function. */
_Noreturn void emu_ctx_exit(EmuCtx *from, EmuCtx *to);

/* Maps n stacks of EMU_STACK_BYTES, each above a guard region; returns the base or NULL. Stack i's
 * lowest usable byte is base + i * emu_stack_stride() + EMU_GUARD_BYTES. */
char *emu_stacks_map(int n);
void emu_stacks_unmap(char *base, int n);
size_t emu_stack_stride(void);

#endif
