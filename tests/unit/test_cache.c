/* Tests of the compile cache (runtime/cache, rk_compile): SHA-256 against the FIPS 180-4 examples, the
 * entry format (a round trip; a flipped byte, a truncated file, an entry under another key's name and
 * a missing one), the record format (a kernel's tensor maps kept; an older record refused), rk_compile
 * through the cache (a miss writes, a hit compiles nothing and runs, warnings are replayed; another
 * option or code-changing environment variable is another entry), corrupt
 * and truncated entries rebuilt, a changed import making an entry stale, an unwritable folder
 * degrading to compiling without the cache (one note), RK_ALWAYS_COMPILE, and two processes filling
 * the same entries at the same moment, round after round.
 *
 * Every context here uses a private folder under $TMPDIR. */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/cache/cache.h"
#include "runtime/cache/hash.h"
#include "runtime/cache/record.h"
#include "tests/unit/test_api_util.h"

static char root[512];

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void rm_rf(const char *path)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", path);
}

/* ---- hashes and entries ---- */

static void hex(const unsigned char *b, char *out)
{
    for (int i = 0; i < 32; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

static void test_sha256(void)
{
    static const struct {
        const char *msg, *digest;
    } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        Sha256 s;
        hash_sha256_init(&s);
        /* fed in two pieces, to cross the block buffer */
        size_t n = strlen(v[i].msg), half = n / 3;
        hash_sha256_update(&s, v[i].msg, half);
        hash_sha256_update(&s, v[i].msg + half, n - half);
        unsigned char d[32];
        char h[65];
        hash_sha256_final(&s, d);
        hex(d, h);
        CHECK(strcmp(h, v[i].digest) == 0);
    }
    /* a million 'a's */
    Sha256 s;
    hash_sha256_init(&s);
    char a[1000];
    memset(a, 'a', sizeof a);
    for (int i = 0; i < 1000; i++)
        hash_sha256_update(&s, a, sizeof a);
    unsigned char d[32];
    char h[65];
    hash_sha256_final(&s, d);
    hex(d, h);
    CHECK(strcmp(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0);
    /* fields are length-prefixed */
    Sha256 x, y;
    hash_sha256_init(&x);
    hash_sha256_init(&y);
    hash_key_str(&x, "ab");
    hash_key_str(&x, "c");
    hash_key_str(&y, "a");
    hash_key_str(&y, "bc");
    HashKey kx = hash_key_final(&x), ky = hash_key_final(&y);
    CHECK(memcmp(kx.b, ky.b, 32) != 0);
    CHECK(hash_fast64("abc", 3, 3) != hash_fast64("abd", 3, 3));
}

static HashKey key_of(const char *s)
{
    Sha256 h;
    hash_sha256_init(&h);
    hash_key_str(&h, s);
    return hash_key_final(&h);
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void test_entries(void)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/entries", root);
    HashKey k = key_of("one"), k2 = key_of("two");
    char payload[3000];
    for (size_t i = 0; i < sizeof payload; i++)
        payload[i] = (char)(i * 7);
    char why[256];
    CHECK(cache_put(dir, "test", &k, payload, sizeof payload, why, sizeof why));
    void *got;
    size_t n;
    CHECK(cache_get(dir, "test", &k, &arena_default_allocator, &got, &n) == CACHE_HIT);
    CHECK(n == sizeof payload && memcmp(got, payload, n) == 0);
    arena_free_raw(&arena_default_allocator, got, n);
    CHECK(cache_get(dir, "test", &k2, &arena_default_allocator, &got, &n) == CACHE_MISS);
    char path[1024], path2[1024];
    cache_entry_path(dir, "test", &k, path, sizeof path);
    cache_entry_path(dir, "test", &k2, path2, sizeof path2);
    /* a flipped byte in the payload */
    int fd = open(path, O_RDWR);
    unsigned char c;
    CHECK(pread(fd, &c, 1, 2000) == 1);
    c ^= 0x40;
    CHECK(pwrite(fd, &c, 1, 2000) == 1);
    CHECK(cache_get(dir, "test", &k, &arena_default_allocator, &got, &n) == CACHE_CORRUPT);
    c ^= 0x40;
    CHECK(pwrite(fd, &c, 1, 2000) == 1);
    CHECK(cache_get(dir, "test", &k, &arena_default_allocator, &got, &n) == CACHE_HIT);
    arena_free_raw(&arena_default_allocator, got, n);
    /* truncated: in the payload, and in the header */
    long full = file_size(path);
    CHECK(ftruncate(fd, full - 1) == 0);
    CHECK(cache_get(dir, "test", &k, &arena_default_allocator, &got, &n) == CACHE_CORRUPT);
    CHECK(ftruncate(fd, 10) == 0);
    CHECK(cache_get(dir, "test", &k, &arena_default_allocator, &got, &n) == CACHE_CORRUPT);
    CHECK(ftruncate(fd, 0) == 0);
    CHECK(cache_get(dir, "test", &k, &arena_default_allocator, &got, &n) == CACHE_CORRUPT);
    close(fd);
    /* rewritten whole, then moved under another key's name */
    CHECK(cache_put(dir, "test", &k, payload, sizeof payload, why, sizeof why));
    CHECK(file_size(path) == full);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\" && cp '%s' '%s'", path2, path, path2);
    CHECK(system(cmd) == 0);
    CHECK(cache_get(dir, "test", &k2, &arena_default_allocator, &got, &n) == CACHE_CORRUPT);
    /* an empty payload */
    CHECK(cache_put(dir, "test", &k2, "", 0, why, sizeof why));
    CHECK(cache_get(dir, "test", &k2, &arena_default_allocator, &got, &n) == CACHE_HIT && n == 0);
    arena_free_raw(&arena_default_allocator, got, 1);
    /* a folder that cannot be made: a file is in the way */
    CHECK(!cache_put("/dev/null/rk", "test", &k, payload, 10, why, sizeof why));
    CHECK(strstr(why, "cannot create the cache folder") != NULL);
}

/* A record round trip keeps each kernel's tensor map spec, many lines or none; a record of the older
 * format (magic RRC1, without the specs) does not read. */
static void test_record(void)
{
    rk_param ps[] = {{"a", RK_PARAM_POINTER, RK_BF16}, {"n", RK_PARAM_SCALAR, RK_I32}};
    const char *tma = "tma 0 2 64 128 128 0+1*1 0+1*1 0+1*1\ntma 0 2 64 64 128 0+1*1 0+2*1 0+1*1\n";
    RtKernelDesc ks[2] = {{.name = "mm", .symbol = "mm", .params = ps, .nparams = 2, .num_warps = 4, .block = 128,
                           .tma = tma},
                          {.name = "plain", .symbol = "plain", .params = ps, .nparams = 2, .num_warps = 1, .block = 32}};
    ProgRecord in = {.target = "sm_90", .binary = "ptx", .size = 3, .kernels = ks, .nkernels = 2};
    Blob b;
    blob_init(&b, arena_default_allocator);
    record_write(&b, &in);
    CHECK(!b.oom);
    Arena a;
    arena_init(&a, arena_default_allocator);
    ProgRecord out;
    const unsigned char *bytes = (const unsigned char *)b.p;
    BlobReader rd = {bytes, bytes + b.n, &a, false};
    CHECK(record_read(&rd, &out) && out.nkernels == 2);
    if (out.nkernels == 2)
        CHECK(out.kernels[0].tma && strcmp(out.kernels[0].tma, tma) == 0 && !out.kernels[1].tma);
    memcpy(b.p, "RRC1", 4);
    rd = (BlobReader){bytes, bytes + b.n, &a, false};
    CHECK(!record_read(&rd, &out));
    arena_free(&a);
    blob_free(&b);
}

/* ---- rk_compile through the cache ---- */

typedef struct Log {
    int notes;
    char last[512];
} Log;

static void on_log(void *ud, rk_log_kind kind, const char *line)
{
    Log *l = ud;
    if (kind == RK_LOG_NOTE) {
        l->notes++;
        snprintf(l->last, sizeof l->last, "%s", line);
    }
}

/* A context on the cache folder dir. Launches run the kernel as compiled (no_specialize): the counts
 * below are of the compiles rk_compile makes (emu would add a variant for its pointers' x<2G facts,
 * which tests/unit/test_spec.c counts). */
static rk_ctx *ctx_in(const char *dir, const char *device, Log *log, int always)
{
    rk_ctx_options o = {.device = device, .cache_dir = dir, .log = on_log, .log_ud = log, .always_compile = always,
                        .host_threads = 2, .no_specialize = 1};
    rk_ctx *ctx = NULL;
    if (rk_ctx_create(&o, &ctx) != RK_OK) {
        fprintf(stderr, "cannot create a %s context: %s\n", device, rk_error(ctx));
        exit(1);
    }
    return ctx;
}

static rk_stats stats(rk_ctx *ctx)
{
    rk_stats s;
    rk_get_stats(ctx, &s);
    return s;
}

/* Compiles VADD_SRC (plus `extra`) and checks that its vadd adds. */
static rk_status compile_and_run(rk_ctx *ctx, const char *extra, const char *const *incdirs, int nincdirs)
{
    char src[4096];
    snprintf(src, sizeof src, "%s%s", extra, VADD_SRC);
    rk_compile_options co = {.filename = "vadd.tile", .include_dirs = incdirs, .ninclude_dirs = nincdirs};
    rk_program *p = NULL;
    rk_status st = rk_compile(ctx, src, strlen(src), &co, &p);
    if (st)
        return st;
    rk_kernel *k;
    enum { N = 300 };
    float hx[N], ho[N];
    for (int i = 0; i < N; i++)
        hx[i] = (float)i;
    void *x = NULL, *out = NULL;
    if (!(st = rk_program_kernel(p, "vadd", &k)) && !(st = rk_malloc(ctx, sizeof hx, &x)) &&
        !(st = rk_malloc(ctx, sizeof hx, &out)) && !(st = rk_memcpy_htod(ctx, x, hx, sizeof hx))) {
        rk_arg args[] = {rk_arg_ptr(x), rk_arg_ptr(x), rk_arg_ptr(out), rk_arg_i32(N)};
        if (!(st = rk_launch(k, NULL, args, 4, NULL)) && !(st = rk_memcpy_dtoh(ctx, ho, out, sizeof ho)))
            for (int i = 0; i < N; i++)
                if (ho[i] != 2.0f * hx[i])
                    st = RK_EINTERNAL;
    }
    rk_free(ctx, x);
    rk_free(ctx, out);
    rk_program_destroy(p);
    return st;
}

/* The one entry file of kind `kind` under dir (the first found). */
static bool find_entry(const char *dir, const char *kind, char *out, size_t n)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "find '%s/%s' -type f ! -name '*.tmp.*' 2>/dev/null | head -1", dir, kind);
    FILE *f = popen(cmd, "r");
    if (!f)
        return false;
    bool ok = fgets(out, (int)n, f) != NULL;
    pclose(f);
    if (ok)
        out[strcspn(out, "\n")] = 0;
    return ok && *out;
}

static int count_files(const char *dir, const char *pattern)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "find '%s' -type f -name '%s' 2>/dev/null | wc -l", dir, pattern);
    FILE *f = popen(cmd, "r");
    int n = -1;
    if (f && fscanf(f, "%d", &n) != 1)
        n = -1;
    if (f)
        pclose(f);
    return n;
}

static void test_compile_cache(const char *device)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/compile-%s", root, device);
    Log log = {0};
    rk_ctx *ctx = ctx_in(dir, device, &log, 0);
    CHECK_OK(ctx, compile_and_run(ctx, "", NULL, 0));
    rk_stats s = stats(ctx);
    CHECK(s.compiles == 1 && s.cache_misses == 1 && s.cache_writes == 1 && s.cache_hits == 0);
    /* a hit: nothing compiled, the program runs */
    CHECK_OK(ctx, compile_and_run(ctx, "", NULL, 0));
    s = stats(ctx);
    CHECK(s.compiles == 1 && s.cache_hits == 1);
    /* a hit in another context, and its time */
    rk_ctx *c2 = ctx_in(dir, device, &log, 0);
    double best = 1e9;
    for (int i = 0; i < 20; i++) {
        rk_program *p;
        double t0 = now_ms();
        CHECK_OK(c2, rk_compile(c2, VADD_SRC, strlen(VADD_SRC), &(rk_compile_options){.filename = "vadd.tile"}, &p));
        double t = now_ms() - t0;
        best = t < best ? t : best;
        rk_program_destroy(p);
    }
    CHECK(stats(c2).compiles == 0 && stats(c2).cache_hits == 20);
    printf("test_cache: %s: a cache hit takes %.3f ms (best of 20)\n", device, best);
    CHECK(best < 20); /* bench/bench_compile.c measures it; this only catches a gross regression */
    rk_ctx_destroy(c2);
    /* a different option is a different entry */
    rk_program *p;
    rk_compile_options co = {.filename = "vadd.tile", .opt_level = 2};
    CHECK_OK(ctx, rk_compile(ctx, VADD_SRC, strlen(VADD_SRC), &co, &p));
    rk_program_destroy(p);
    CHECK(stats(ctx).compiles == 2);
    /* so is a different setting of an environment variable that changes the code */
    setenv("RK_LLVM_CODEGEN_OPT", "1", 1);
    CHECK_OK(ctx, compile_and_run(ctx, "", NULL, 0));
    unsetenv("RK_LLVM_CODEGEN_OPT");
    CHECK(stats(ctx).compiles == 3);
    CHECK_OK(ctx, compile_and_run(ctx, "", NULL, 0));
    CHECK(stats(ctx).compiles == 3);
    /* truncated and corrupt entries are rebuilt */
    rk_ctx_destroy(ctx);
    rm_rf(dir);
    ctx = ctx_in(dir, device, &log, 0);
    CHECK_OK(ctx, compile_and_run(ctx, "", NULL, 0));
    char path[1024];
    CHECK(find_entry(dir, "compile", path, sizeof path));
    long full = file_size(path);
    CHECK(truncate(path, full / 2) == 0);
    CHECK_OK(ctx, compile_and_run(ctx, "", NULL, 0));
    s = stats(ctx);
    CHECK(s.compiles == 2 && s.cache_corrupt == 1 && s.cache_writes == 2);
    CHECK(file_size(path) == full);
    int fd = open(path, O_RDWR);
    unsigned char c = 0x5A;
    CHECK(pwrite(fd, &c, 1, full - 100) == 1);
    close(fd);
    CHECK_OK(ctx, compile_and_run(ctx, "", NULL, 0));
    CHECK_OK(ctx, compile_and_run(ctx, "", NULL, 0));
    s = stats(ctx);
    CHECK(s.compiles == 3 && s.cache_corrupt == 2 && s.cache_hits == 1);
    CHECK(log.notes == 0);
    rk_ctx_destroy(ctx);
    /* RK_ALWAYS_COMPILE (the option, and the variable) */
    ctx = ctx_in(dir, device, &log, 1);
    CHECK_OK(ctx, compile_and_run(ctx, "", NULL, 0));
    CHECK(stats(ctx).compiles == 1 && stats(ctx).cache_hits == 0);
    rk_ctx_destroy(ctx);
    setenv("RK_ALWAYS_COMPILE", "1", 1);
    ctx = ctx_in(dir, device, &log, 0);
    unsetenv("RK_ALWAYS_COMPILE");
    CHECK_OK(ctx, compile_and_run(ctx, "", NULL, 0));
    CHECK(stats(ctx).compiles == 1);
    rk_ctx_destroy(ctx);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f && fputs(text, f) >= 0);
    if (f)
        fclose(f);
}

/* An entry whose import changed is stale. */
static void test_imports(void)
{
    char dir[600], mod[700], path[800];
    snprintf(dir, sizeof dir, "%s/imports", root);
    snprintf(mod, sizeof mod, "%s/mods", root);
    mkdir(mod, 0777);
    snprintf(path, sizeof path, "%s/mymod.tile", mod);
    write_text(path, "const K: i32 = 1;\n");
    Log log = {0};
    rk_ctx *ctx = ctx_in(dir, "interp", &log, 0);
    const char *incs[] = {mod};
    CHECK_OK(ctx, compile_and_run(ctx, "import \"mymod\";\n", incs, 1));
    CHECK_OK(ctx, compile_and_run(ctx, "import \"mymod\";\n", incs, 1));
    CHECK(stats(ctx).compiles == 1 && stats(ctx).cache_hits == 1);
    write_text(path, "const K: i32 = 2;\n");
    CHECK_OK(ctx, compile_and_run(ctx, "import \"mymod\";\n", incs, 1));
    CHECK(stats(ctx).compiles == 2);
    CHECK_OK(ctx, compile_and_run(ctx, "import \"mymod\";\n", incs, 1));
    CHECK(stats(ctx).compiles == 2 && stats(ctx).cache_hits == 2);
    /* a module that is gone: a miss, and the compile's own error */
    unlink(path);
    CHECK_ST(ctx, compile_and_run(ctx, "import \"mymod\";\n", incs, 1), RK_ECOMPILE, "cannot find module");
    rk_ctx_destroy(ctx);
}

/* Without a writable folder, compiles work and one note says why. */
static void test_unwritable(void)
{
    Log log = {0};
    rk_ctx *ctx = ctx_in("/dev/null/rk-cache", "interp", &log, 0);
    CHECK_OK(ctx, compile_and_run(ctx, "", NULL, 0));
    CHECK_OK(ctx, compile_and_run(ctx, "", NULL, 0));
    rk_stats s = stats(ctx);
    CHECK(s.compiles == 2 && s.cache_writes == 0 && s.cache_hits == 0);
    CHECK(log.notes == 1 && strstr(log.last, "cannot create the cache folder /dev/null/rk-cache") &&
          strstr(log.last, "compiling without the cache"));
    rk_ctx_destroy(ctx);
    /* a read-only folder (when this process cannot write it despite the mode: skipped as root) */
    char dir[600];
    snprintf(dir, sizeof dir, "%s/readonly", root);
    mkdir(dir, 0555);
    char probe[700];
    snprintf(probe, sizeof probe, "%s/probe", dir);
    int fd = open(probe, O_WRONLY | O_CREAT, 0644);
    if (fd >= 0) {
        close(fd);
        unlink(probe);
    } else {
        log = (Log){0};
        ctx = ctx_in(dir, "interp", &log, 0);
        CHECK_OK(ctx, compile_and_run(ctx, "", NULL, 0));
        CHECK(log.notes == 1 && stats(ctx).cache_writes == 0);
        rk_ctx_destroy(ctx);
    }
    chmod(dir, 0755);
}

/* Two processes fill the same entries at the same moment, ROUNDS times: every compile succeeds and
 * runs, every entry left is whole, no temporary file is left. */
static void test_race(const char *device, int rounds)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/race-%s", root, device);
    int go[2][2], ready[2];
    for (int c = 0; c < 2; c++)
        CHECK(pipe(go[c]) == 0);
    CHECK(pipe(ready) == 0);
    pid_t kids[2];
    for (int c = 0; c < 2; c++) {
        kids[c] = fork();
        if (kids[c] == 0) {
            int bad = 0;
            for (int r = 0; r < rounds; r++) {
                char extra[64], b;
                snprintf(extra, sizeof extra, "// round %d\n", r);
                Log log = {0};
                rk_ctx *ctx = ctx_in(dir, device, &log, 0);
                /* a barrier: both say they are ready, then both are let go at once */
                if (write(ready[1], "r", 1) != 1 || read(go[c][0], &b, 1) != 1)
                    _exit(3);
                rk_status st = compile_and_run(ctx, extra, NULL, 0);
                bad += st != RK_OK || log.notes != 0;
                rk_ctx_destroy(ctx);
            }
            _exit(bad ? 1 : 0);
        }
    }
    for (int r = 0; r < rounds; r++) {
        char b[2];
        for (int got = 0; got < 2;) {
            ssize_t n = read(ready[0], b, (size_t)(2 - got));
            if (n <= 0)
                break;
            got += (int)n;
        }
        for (int c = 0; c < 2; c++)
            CHECK(write(go[c][1], "g", 1) == 1);
    }
    for (int c = 0; c < 2; c++) {
        int status = 0;
        waitpid(kids[c], &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        close(go[c][0]);
        close(go[c][1]);
    }
    close(ready[0]);
    close(ready[1]);
    CHECK(count_files(dir, "*.tmp.*") == 0);
    int n = count_files(dir, "*");
    CHECK(n == rounds);
    /* each entry is whole: a new context compiles nothing */
    Log log = {0};
    rk_ctx *ctx = ctx_in(dir, device, &log, 0);
    for (int r = 0; r < rounds; r++) {
        char extra[64];
        snprintf(extra, sizeof extra, "// round %d\n", r);
        CHECK_OK(ctx, compile_and_run(ctx, extra, NULL, 0));
    }
    CHECK(stats(ctx).compiles == 0 && stats(ctx).cache_hits == (uint64_t)rounds);
    rk_ctx_destroy(ctx);
    printf("test_cache: %s: two processes raced over %d entries, %d left whole\n", device, rounds, n);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/rk-test-cache-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    test_sha256();
    test_entries();
    test_record();
    test_compile_cache("interp");
    test_compile_cache("emu");
    test_imports();
    test_unwritable();
    test_race("interp", 20);
    test_race("emu", 3);
    rm_rf(root);
    return api_finish("test_cache");
}
