/* Contexts on several threads at once: each thread has its own context (interp, and emu when the
 * compiler can generate its code), compiles the vector add and launches it repeatedly on its own
 * buffers, then tunes an @autotune kernel and runs the winner (rk_run), all threads sharing one cache
 * folder. The allocation registries, the target machine cache, the HIP/CUDA probes and the cache
 * folder are process-wide, so this is the test to run under ThreadSanitizer (scripts/test.sh builds it
 * with -fsanitize=thread). One context shared by threads works when they take turns (shared_context),
 * and a call that overlaps another thread's call on the same context is refused with RK_EBUSY
 * (overlapping_calls; docs/api.md, "Threads"). */
#include <pthread.h>
#include <stdatomic.h>

#include "tests/unit/test_api_util.h"

enum { THREADS = 4, ROUNDS = 4, N = 777 };

static char cache_dir[512]; /* fresh, so that the emu threads tune at once and race to fill it */

typedef struct Job {
    const char *device;
    int id, errors, tunings, hits;
    char msg[256];
} Job;

static void *work(void *arg)
{
    Job *j = arg;
    rk_ctx_options o = {.device = j->device, .host_threads = 2, .tune_runs = 2, .tune_ms = -1, .cache_dir = cache_dir};
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
    /* tune and run: every config compiled on this thread's context, timed, the winner launched */
    static const char TUNED[] = "@autotune(key = [n], space = {BLOCK: [64, 128, 256], num_warps: [1, 2]},\n"
                                "          where = BLOCK >= 64 * num_warps)\n"
                                "@grid(cdiv(n, BLOCK))\n"
                                "kernel twice(x: *f32, out: *f32, n: i32, const BLOCK: i32 = 64)\n"
                                "{\n"
                                "    let offs = program_id(0) * BLOCK + arange(BLOCK);\n"
                                "    store(out + offs, load(x + offs, mask = offs < n) * 2.0, mask = offs < n);\n"
                                "}\n";
    void *x = NULL, *out = NULL;
    if (st == RK_OK && (st = rk_malloc(ctx, sizeof hx, &x)) == RK_OK && (st = rk_malloc(ctx, sizeof ho, &out)) == RK_OK) {
        for (int i = 0; i < N; i++)
            hx[i] = (float)(i * (j->id + 1));
        rk_arg args[] = {rk_arg_ptr(x), rk_arg_ptr(out), rk_arg_i32(N)};
        if ((st = rk_memcpy_htod(ctx, x, hx, sizeof hx)) == RK_OK &&
            (st = rk_run(ctx, TUNED, strlen(TUNED), "twice", NULL, args, 3, NULL, NULL)) == RK_OK &&
            (st = rk_memcpy_dtoh(ctx, ho, out, sizeof ho)) == RK_OK)
            for (int i = 0; i < N; i++)
                j->errors += ho[i] != 2.0f * hx[i];
    }
    rk_stats stats;
    if (st == RK_OK && rk_get_stats(ctx, &stats) == RK_OK) {
        j->tunings = (int)stats.tunings;
        j->hits = (int)stats.cache_hits;
    }
    if (x)
        rk_free(ctx, x);
    if (out)
        rk_free(ctx, out);
    if (st != RK_OK) {
        snprintf(j->msg, sizeof j->msg, "%s: %s", rk_status_name(st), rk_error(ctx));
        j->errors++;
    }
    rk_program_destroy(p);
    rk_ctx_destroy(ctx);
    return NULL;
}

/* One context shared by threads that take turns (a mutex around each call sequence): works, since
 * nothing in a context is tied to the thread that made it (docs/api.md, "Threads"). */
typedef struct Shared {
    pthread_mutex_t lock;
    rk_ctx *ctx;
    rk_kernel *k;
    int errors;
} Shared;

static void *take_turns(void *arg)
{
    Shared *s = arg;
    float hx[N], ho[N];
    for (int r = 0; r < ROUNDS; r++) {
        pthread_mutex_lock(&s->lock);
        void *x = NULL, *out = NULL;
        rk_status st = rk_malloc(s->ctx, sizeof hx, &x);
        if (st == RK_OK)
            st = rk_malloc(s->ctx, sizeof ho, &out);
        for (int i = 0; i < N; i++)
            hx[i] = (float)(i + r);
        rk_arg args[] = {rk_arg_ptr(x), rk_arg_ptr(x), rk_arg_ptr(out), rk_arg_i32(N)};
        if (st == RK_OK && (st = rk_memcpy_htod(s->ctx, x, hx, sizeof hx)) == RK_OK &&
            (st = rk_launch(s->k, NULL, args, 4, NULL)) == RK_OK && (st = rk_memcpy_dtoh(s->ctx, ho, out, sizeof ho)) == RK_OK)
            for (int i = 0; i < N; i++)
                s->errors += ho[i] != 2.0f * hx[i];
        s->errors += st != RK_OK;
        if (x)
            rk_free(s->ctx, x);
        if (out)
            rk_free(s->ctx, out);
        pthread_mutex_unlock(&s->lock);
    }
    return NULL;
}

static void shared_context(void)
{
    Shared s = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0};
    rk_ctx_options o = {.device = "emu", .host_threads = 2, .cache_dir = cache_dir};
    rk_program *p = NULL;
    CHECK(rk_ctx_create(&o, &s.ctx) == RK_OK);
    CHECK_OK(s.ctx, rk_compile(s.ctx, VADD_SRC, strlen(VADD_SRC), NULL, &p));
    CHECK_OK(s.ctx, rk_program_kernel(p, "vadd", &s.k));
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, take_turns, &s) == 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    CHECK(s.errors == 0);
    rk_program_destroy(p);
    rk_ctx_destroy(s.ctx);
}

/* Two threads on one context at the same moment: thread A is held inside rk_compile (in the context's
 * allocator hook, which the call uses), and meanwhile thread B's calls on that context are refused with
 * RK_EBUSY and do nothing; after A's call returns, the context works for whoever takes it next. */
typedef struct Overlap {
    pthread_mutex_t m;
    pthread_cond_t cv;
    int stage;          /* 1: A is held inside its call; 2: B is done, A may go on */
    atomic_bool hold;   /* the next allocation holds its thread */
    rk_ctx *ctx;
    rk_program *prog;
    rk_status a, b_malloc, b_compile, b_launch;
} Overlap;

static void *holding_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    Overlap *o = ud;
    (void)osize;
    if (nsize && atomic_exchange(&o->hold, false)) {
        pthread_mutex_lock(&o->m);
        o->stage = 1;
        pthread_cond_broadcast(&o->cv);
        while (o->stage != 2)
            pthread_cond_wait(&o->cv, &o->m);
        pthread_mutex_unlock(&o->m);
    }
    if (!nsize) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, nsize);
}

static void *overlap_a(void *arg)
{
    Overlap *o = arg;
    rk_program *p = NULL;
    atomic_store(&o->hold, true);
    o->a = rk_compile(o->ctx, VADD_SRC, strlen(VADD_SRC), NULL, &p);
    if (p)
        rk_program_destroy(p);
    return NULL;
}

static void *overlap_b(void *arg)
{
    Overlap *o = arg;
    pthread_mutex_lock(&o->m);
    while (o->stage != 1)
        pthread_cond_wait(&o->cv, &o->m);
    pthread_mutex_unlock(&o->m);
    void *x = NULL;
    rk_program *p = NULL;
    rk_kernel *k = NULL;
    o->b_malloc = rk_malloc(o->ctx, 64, &x);
    o->b_compile = rk_compile(o->ctx, VADD_SRC, strlen(VADD_SRC), NULL, &p);
    rk_program_kernel(o->prog, "vadd", &k); /* refused too: k stays NULL */
    o->b_launch = k ? RK_OK : RK_EBUSY;
    CHECK(x == NULL && p == NULL);
    pthread_mutex_lock(&o->m);
    o->stage = 2;
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->m);
    return NULL;
}

static void overlapping_calls(void)
{
    Overlap o = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, false, NULL, NULL, RK_OK, RK_OK, RK_OK, RK_OK};
    rk_ctx_options opt = {.device = "interp", .alloc = holding_alloc, .alloc_ud = &o};
    CHECK(rk_ctx_create(&opt, &o.ctx) == RK_OK);
    CHECK_OK(o.ctx, rk_compile(o.ctx, VADD_SRC, strlen(VADD_SRC), NULL, &o.prog));
    pthread_t a, b;
    CHECK(pthread_create(&b, NULL, overlap_b, &o) == 0);
    CHECK(pthread_create(&a, NULL, overlap_a, &o) == 0);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    CHECK(o.a == RK_OK);
    CHECK(o.b_malloc == RK_EBUSY && o.b_compile == RK_EBUSY && o.b_launch == RK_EBUSY);
    CHECK(strcmp(rk_status_name(RK_EBUSY), "RK_EBUSY") == 0);
    /* the calls are over: the context is anyone's again */
    void *x = NULL;
    rk_kernel *k = NULL;
    CHECK_OK(o.ctx, rk_malloc(o.ctx, 64, &x));
    CHECK_OK(o.ctx, rk_program_kernel(o.prog, "vadd", &k));
    CHECK_OK(o.ctx, rk_free(o.ctx, x));
    rk_program_destroy(o.prog);
    rk_ctx_destroy(o.ctx);
}

int main(void)
{
    pthread_t t[2 * THREADS];
    Job jobs[2 * THREADS];
    int tunings = 0;
    const char *tmp = getenv("TMPDIR");
    snprintf(cache_dir, sizeof cache_dir, "%s/rk-test-threads-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK(mkdtemp(cache_dir) != NULL);
    for (int i = 0; i < 2 * THREADS; i++) {
        jobs[i] = (Job){i < THREADS ? "interp" : "emu", i, 0, 0, 0, ""};
        CHECK(pthread_create(&t[i], NULL, work, &jobs[i]) == 0);
    }
    for (int i = 0; i < 2 * THREADS; i++) {
        pthread_join(t[i], NULL);
        if (jobs[i].errors)
            fprintf(stderr, "thread %d (%s): %d errors %s\n", i, jobs[i].device, jobs[i].errors, jobs[i].msg);
        CHECK(jobs[i].errors == 0);
        /* the threads share the cache folder: each emu thread tuned, or found another's winner (on
         * interp, autotuning runs the defaults and times nothing) */
        CHECK(strcmp(jobs[i].device, "emu") != 0 || jobs[i].tunings + jobs[i].hits >= 1);
        tunings += jobs[i].tunings;
    }
    printf("test_api_threads: %d threads, %d tunings (the rest from the shared cache)\n", 2 * THREADS, tunings);
    CHECK(tunings >= 1);
    shared_context();
    overlapping_calls();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "note: could not remove %s\n", cache_dir);
    return api_finish("test_api_threads");
}
