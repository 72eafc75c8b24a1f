/* Fibers: the x86-64 register swap, the first frame of a fresh fiber, and guarded stacks.
 *
 * The swap and the trampoline are a top-level asm block (no .S file, so the build needs no change).
 * Both follow the SysV ABI: the swap is called like any function, so it saves only what a callee must
 * preserve — rbx, rbp, r12-r15, MXCSR's control bits and the x87 control word — and `ret`s into
 * whatever the other stack was doing. A fresh fiber's stack is laid out exactly as if it had been
 * suspended by the swap just before entering emu_fiber_trampoline, which calls boot(ctx) with the
 * stack 16-byte aligned at the call, as the ABI requires. See emu_fiber.h for the invariants. */
#include "runtime/emu/emu_fiber.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#if EMU_ASAN
#include <sanitizer/asan_interface.h>
#endif

/* The saved frame, from the saved stack pointer upwards:
 *   [0] MXCSR (low 32 bits) and x87 control word (next 16 bits)
 *   [1] r15  [2] r14  [3] r13  [4] r12  [5] rbx  [6] rbp  [7] return address */
__asm__(".text\n"
        ".p2align 4\n"
        ".globl emu_fiber_swap\n"
        ".hidden emu_fiber_swap\n"
        ".type emu_fiber_swap,@function\n"
        "emu_fiber_swap:\n"
        "    pushq %rbp\n"
        "    pushq %rbx\n"
        "    pushq %r12\n"
        "    pushq %r13\n"
        "    pushq %r14\n"
        "    pushq %r15\n"
        "    subq $8, %rsp\n"
        "    stmxcsr (%rsp)\n"
        "    fnstcw 4(%rsp)\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    ldmxcsr (%rsp)\n"
        "    fldcw 4(%rsp)\n"
        "    addq $8, %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        ".size emu_fiber_swap, .-emu_fiber_swap\n"
        "\n"
        /* Entered by the swap's `ret` with rsp at the top of the stack (16-byte aligned), r12 = ctx,
         * r13 = boot. rbp is 0 and the return address is undefined, so frame-pointer and CFI unwinders
         * (gdb, ASan's reports) stop here. boot never returns; ud2 traps if it does. */
        ".p2align 4\n"
        ".globl emu_fiber_trampoline\n"
        ".hidden emu_fiber_trampoline\n"
        ".type emu_fiber_trampoline,@function\n"
        "emu_fiber_trampoline:\n"
        "    .cfi_startproc\n"
        "    .cfi_undefined rip\n"
        "    movq %r12, %rdi\n"
        "    callq *%r13\n"
        "    ud2\n"
        "    .cfi_endproc\n"
        ".size emu_fiber_trampoline, .-emu_fiber_trampoline\n");

void emu_fiber_trampoline(void); /* not a C function: only its address is used */

static void fiber_boot(EmuCtx *ctx)
{
#if EMU_ASAN
    /* Each context keeps one ASan fake stack (where instrumented frames live when ASan looks for
     * use-after-return) over all its starts: making and dropping one per start costs an mmap and a
     * munmap of megabytes. NULL the first time: ASan makes one when a frame needs it. A normal run frees
     * its frames as they return; frames of an abandoned run stay until ASan's GC (run after the
     * no-return call of a failing lane) reclaims them, or make ASan fall back to the real stack. */
    __sanitizer_finish_switch_fiber(ctx->asan_fake, NULL, NULL);
#endif
    EmuCtx *to = ctx->fn(ctx->arg);
#if EMU_ASAN
    __sanitizer_start_switch_fiber(&ctx->asan_fake, to->stack_lo, to->stack_size);
#endif
#if EMU_TSAN
    __tsan_switch_to_fiber(to->tsan_fiber, 0);
#endif
    emu_fiber_swap(&ctx->sp, to->sp);
    __builtin_trap(); /* nothing resumes a finished context */
}

void emu_ctx_thread(EmuCtx *ctx)
{
    memset(ctx, 0, sizeof *ctx);
#if EMU_ASAN || EMU_TSAN
    /* The sanitizers need the scheduler's stack bounds when a fiber switches back to it. */
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void *lo = NULL;
        size_t size = 0;
        if (pthread_attr_getstack(&attr, &lo, &size) == 0) {
            ctx->stack_lo = lo;
            ctx->stack_size = size;
        }
        pthread_attr_destroy(&attr);
    }
#endif
#if EMU_TSAN
    ctx->tsan_fiber = __tsan_get_current_fiber();
#endif
}

void emu_ctx_start(EmuCtx *ctx, EmuCtx *(*fn)(void *), void *arg)
{
    uint32_t mxcsr;
    uint16_t fpucw;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(fpucw));

    char *top = ctx->stack_lo + ctx->stack_size; /* 16-byte aligned: stacks are page aligned */
    uint64_t *frame = (uint64_t *)(void *)(top - 8 * sizeof(uint64_t));
    frame[0] = (uint64_t)mxcsr | ((uint64_t)fpucw << 32);
    frame[1] = 0;                               /* r15 */
    frame[2] = 0;                               /* r14 */
    frame[3] = (uint64_t)(uintptr_t)fiber_boot; /* r13 */
    frame[4] = (uint64_t)(uintptr_t)ctx;        /* r12 */
    frame[5] = 0;                               /* rbx */
    frame[6] = 0;                               /* rbp: ends frame-pointer walks */
    frame[7] = (uint64_t)(uintptr_t)emu_fiber_trampoline;
    ctx->sp = frame;
    ctx->fn = fn;
    ctx->arg = arg;
#if EMU_ASAN
    /* Frames abandoned on this stack (a lane that failed, or the last frame of a finished one) never
     * unpoisoned their redzones. The frame just written sits in the region too. */
    __asan_unpoison_memory_region(ctx->stack_lo, ctx->stack_size);
#endif
#if EMU_TSAN
    /* A fresh TSan fiber per start: the old one's shadow call stack still holds the abandoned frames. */
    if (ctx->tsan_fiber)
        __tsan_destroy_fiber(ctx->tsan_fiber);
    ctx->tsan_fiber = __tsan_create_fiber(0);
#endif
}

#if EMU_ASAN
typedef struct DropFake {
    EmuCtx *self, *back;
} DropFake;

/* Runs once more on a context only to leave it with a NULL save slot: ASan then frees its fake stack. */
static EmuCtx *fiber_drop_fake(void *arg)
{
    DropFake *d = arg;
    __sanitizer_start_switch_fiber(NULL, d->back->stack_lo, d->back->stack_size);
    emu_fiber_swap(&d->self->sp, d->back->sp);
    __builtin_trap();
}
#endif

void emu_ctx_destroy(EmuCtx *ctx)
{
#if EMU_ASAN
    if (ctx->asan_fake) {
        EmuCtx here;
        emu_ctx_thread(&here);
        DropFake d = {ctx, &here};
        emu_ctx_start(ctx, fiber_drop_fake, &d);
        emu_ctx_switch(&here, ctx);
        ctx->asan_fake = NULL;
    }
#endif
#if EMU_TSAN
    if (ctx->tsan_fiber)
        __tsan_destroy_fiber(ctx->tsan_fiber);
    ctx->tsan_fiber = NULL;
#endif
    (void)ctx;
}

void emu_ctx_exit(EmuCtx *from, EmuCtx *to)
{
#if EMU_ASAN
    __sanitizer_start_switch_fiber(&from->asan_fake, to->stack_lo, to->stack_size); /* kept for the next start */
#endif
#if EMU_TSAN
    __tsan_switch_to_fiber(to->tsan_fiber, 0);
#endif
    emu_fiber_swap(&from->sp, to->sp);
    __builtin_trap(); /* nothing resumes an exited context */
}

size_t emu_stack_stride(void)
{
    return (size_t)EMU_STACK_BYTES + EMU_GUARD_BYTES;
}

char *emu_stacks_map(int n)
{
    size_t stride = emu_stack_stride();
    /* MAP_NORESERVE: only the pages a lane touches cost memory. */
    void *p = mmap(NULL, stride * (size_t)n, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    char *base = p;
    for (int i = 0; i < n; i++) {
        if (mprotect(base + (size_t)i * stride, EMU_GUARD_BYTES, PROT_NONE) != 0) {
            munmap(p, stride * (size_t)n);
            return NULL;
        }
    }
    return base;
}

void emu_stacks_unmap(char *base, int n)
{
    if (base)
        munmap(base, emu_stack_stride() * (size_t)n);
}
