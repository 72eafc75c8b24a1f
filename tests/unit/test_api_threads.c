/* Contexts on several threads at once: each thread has its own context (interp, and emu when the
 * compiler can generate its code), compiles the vector add and launches it repeatedly on its own
 * buffers. The allocation registries and the HIP/CUDA probes are process-wide, so this is the test to
 * run under ThreadSanitizer. */
#include <pthread.h>

#include "tests/unit/test_api_util.h"

enum { THREADS = 4, ROUNDS = 4, N = 777 };

typedef struct Job {
    const char *device;
    int id, errors;
    char msg[256];
} Job;

static void *work(void *arg)
{
    Job *j = arg;
    rk_ctx_options o = {.device = j->device, .host_threads = 2};
    rk_ctx *ctx = NULL;
    rk_program *p = NULL;
    rk_kernel *k;
    rk_status st = rk_ctx_create(&o, &ctx);
    if (st == RK_OK)
        st = rk_compile(ctx, VADD_SRC, strlen(VADD_SRC), NULL, &p);
    if (st == RK_OK)
        st = rk_program_kernel(p, "vadd", &k);
    float hx[N], hy[N], ho[N];
    for (int r = 0; st == RK_OK && r < ROUNDS; r++) {
        for (int i = 0; i < N; i++) {
            hx[i] = (float)(i + j->id);
            hy[i] = (float)(r * 1000);
        }
        void *x, *y, *out;
        if ((st = rk_malloc(ctx, sizeof hx, &x)) || (st = rk_malloc(ctx, sizeof hy, &y)) ||
            (st = rk_malloc(ctx, sizeof ho, &out)))
            break;
        rk_arg args[] = {rk_arg_ptr(x), rk_arg_ptr(y), rk_arg_ptr(out), rk_arg_i32(N)};
        if ((st = rk_memcpy_htod(ctx, x, hx, sizeof hx)) || (st = rk_memcpy_htod(ctx, y, hy, sizeof hy)) ||
            (st = rk_launch(k, NULL, args, 4, NULL)) || (st = rk_memcpy_dtoh(ctx, ho, out, sizeof ho)))
            break;
        for (int i = 0; i < N; i++)
            j->errors += ho[i] != hx[i] + hy[i];
        rk_free(ctx, x);
        rk_free(ctx, y);
        rk_free(ctx, out);
    }
    if (st != RK_OK) {
        snprintf(j->msg, sizeof j->msg, "%s: %s", rk_status_name(st), rk_error(ctx));
        j->errors++;
    }
    rk_program_destroy(p);
    rk_ctx_destroy(ctx);
    return NULL;
}

int main(void)
{
    pthread_t t[2 * THREADS];
    Job jobs[2 * THREADS];
    for (int i = 0; i < 2 * THREADS; i++) {
        jobs[i] = (Job){i < THREADS ? "interp" : "emu", i, 0, ""};
        CHECK(pthread_create(&t[i], NULL, work, &jobs[i]) == 0);
    }
    for (int i = 0; i < 2 * THREADS; i++) {
        pthread_join(t[i], NULL);
        if (jobs[i].errors)
            fprintf(stderr, "thread %d (%s): %d errors %s\n", i, jobs[i].device, jobs[i].errors, jobs[i].msg);
        CHECK(jobs[i].errors == 0);
    }
    return api_finish("test_api_threads");
}
