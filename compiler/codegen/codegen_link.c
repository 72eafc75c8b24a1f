/* The external tools of code generation: ld.lld (objects → .hsaco or .so) and ptxas (PTX → cubin).
 *
 * Each run gets a private directory (mkdtemp under $TMPDIR or /tmp) holding the inputs, the output
 * and the tool's stderr; the tool runs through posix_spawn with stdin and stdout on /dev/null, and
 * the directory is removed afterwards whatever happened. Files are opened O_CLOEXEC, so a tool
 * that another thread spawns at the same moment inherits none of them.
 *
 * Cost: the link is dominated by ld.lld's process start, mostly the dynamic loading of
 * libLLVM.so that Debian's lld links against (tests/unit/test_codegen.c measures it). lld cannot be
 * called as a library from C (its API is C++ only), so rk keeps the process and runs it once per
 * compile. ld.lld takes exactly one AMDGPU object: it concatenates the objects' NT_AMDGPU_METADATA
 * notes, and a code object with two of them lists only the first object's kernels to the loader
 * (and to the ISA report, compiler/target/amdgpu); so cg_link first merges several AMDGPU objects into one (elf_merge.c,
 * one note listing every kernel), or the kernels go into one LLVM module (LLVMLinkModules2). emu
 * takes several. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codegen.h"
#include "support/clock.h"
#include "support/files.h"

extern char **environ;

enum { MAX_OBJS = 256, PATH_LEN = 4096, STDERR_MAX = 4096 };

/* ---- finding tools ---------------------------------------------------------------------------- */

static bool executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* $env, else `name` on PATH, else `fallback`. */
static const char *find_tool(Arena *a, const char *env, const char *name, const char *fallback, const char *what,
                             const char **why)
{
    const char *v = getenv(env);
    if (v && *v) {
        if (executable(v))
            return arena_strdup(a, v);
        *why = arena_printf(a, "%s=%s is not an executable file", env, v);
        return NULL;
    }
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *colon = strchr(path, ':');
        size_t n = colon ? (size_t)(colon - path) : strlen(path);
        char buf[PATH_LEN];
        if (n > 0 && n + strlen(name) + 2 < sizeof buf) {
            snprintf(buf, sizeof buf, "%.*s/%s", (int)n, path, name);
            if (executable(buf))
                return arena_strdup(a, buf);
        }
        path = colon ? colon + 1 : NULL;
    }
    if (executable(fallback))
        return fallback;
    *why = arena_printf(a, "%s not found: set %s to its path (looked for %s on PATH and %s)", what, env, name,
                        fallback);
    return NULL;
}

const char *codegen_find_lld(Arena *a, const char **why)
{
    return find_tool(a, "RK_LLD", "ld.lld-22", "/usr/lib/llvm-22/bin/ld.lld", "ld.lld (LLVM 22)", why);
}

const char *codegen_find_ptxas(Arena *a, const char **why)
{
    return find_tool(a, "RK_PTXAS", "ptxas", "/usr/local/cuda/bin/ptxas", "ptxas (CUDA)", why);
}

/* ---- the private directory -------------------------------------------------------------------- */

typedef struct Workdir {
    Arena *a;
    char dir[PATH_LEN];
    const char **files; /* to remove */
    int nfiles, cap;
    jmp_buf oom; /* an allocation failure while the directory exists comes here first */
} Workdir;

static CgStatus link_in(Workdir *w, const Target *t, const char *lld, const void *const *objs, const size_t *sizes,
                        int n, Arena *a, void **bin, size_t *bin_size, const char **err, double *cpu_ms,
                        jmp_buf *outer);
static CgStatus ptxas_in(Workdir *w, const Target *t, const char *ptxas, const char *ptx, size_t len, Arena *a,
                         void **cubin, size_t *size, const char **err, jmp_buf *outer);

/* A directory for at most `nfiles` files. */
static bool workdir_open(Workdir *w, int nfiles, Arena *a, const char **err)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    w->a = a;
    w->files = arena_alloc(a, sizeof(char *) * (size_t)nfiles);
    w->nfiles = 0;
    w->cap = nfiles;
    if ((size_t)snprintf(w->dir, sizeof w->dir, "%s/rk-cg-XXXXXX", tmp) >= sizeof w->dir || !mkdtemp(w->dir)) {
        *err = arena_printf(a, "cannot make a temporary directory in %s: %s", tmp, strerror(errno));
        return false;
    }
    return true;
}

/* The path of `name` in the directory, remembered for removal. */
static const char *workdir_file(Workdir *w, const char *name)
{
    const char *p = arena_printf(w->a, "%s/%s", w->dir, name);
    if (w->nfiles < w->cap)
        w->files[w->nfiles++] = p;
    return p;
}

static void workdir_close(Workdir *w)
{
    for (int i = 0; i < w->nfiles; i++)
        unlink(w->files[i]);
    rmdir(w->dir);
}

static bool write_file(const char *path, const void *data, size_t size, Arena *a, const char **err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        *err = arena_printf(a, "cannot create %s: %s", path, strerror(errno));
        return false;
    }
    const char *p = data;
    while (size > 0) {
        ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            *err = arena_printf(a, "cannot write %s: %s", path, strerror(errno));
            close(fd);
            return false;
        }
        p += n;
        size -= (size_t)n;
    }
    if (close(fd) != 0) {
        *err = arena_printf(a, "cannot write %s: %s", path, strerror(errno));
        return false;
    }
    return true;
}

/* The arena as an allocator hook: its memory is freed all at once, so a free does nothing. */
static void *from_arena(void *ud, void *ptr, size_t osize, size_t nsize)
{
    return nsize ? arena_realloc(ud, ptr, osize, nsize) : NULL;
}

/* A file a tool wrote, NUL-terminated in the arena, through support's reader: the whole file (at most
 * `max` bytes, else NULL), or with `head` its first `max` bytes (the tool's messages); NULL if it
 * cannot be read. The arena's recovery point is held back while the reader has the file open, so an
 * allocation failure closes it first and then jumps there. */
static char *read_file(const char *path, size_t max, bool head, Arena *a, size_t *size)
{
    jmp_buf *oom = a->oom;
    a->oom = NULL;
    Allocator al = {from_arena, a};
    int err;
    char *text = head ? rt_read_file_head(&al, path, max, size, &err) : rt_read_file_with(&al, path, max, size, &err);
    a->oom = oom;
    if (!text && err == ENOMEM && oom)
        longjmp(*oom, 1);
    return text;
}

/* ---- running a tool --------------------------------------------------------------------------- */

/* Runs argv[0] with stderr into `errpath`; CG_OK when it exits 0. Adds the tool's CPU time (user +
 * system) to *cpu_ms when cpu_ms is not NULL. */
static CgStatus run_tool(const char *what, char *const argv[], const char *errpath, Arena *a, const char **err,
                         double *cpu_ms)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        *err = arena_printf(a, "cannot run %s (%s): %s", what, argv[0], strerror(rc));
        return CG_ERR_TOOL;
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) {
            *err = arena_printf(a, "lost track of %s (%s): %s", what, argv[0], strerror(errno));
            return CG_ERR_TOOL;
        }
    }
    if (cpu_ms)
        *cpu_ms += (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
                   (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return CG_OK;
    size_t n = 0;
    char *text = read_file(errpath, STDERR_MAX, true, a, &n);
    while (text && n && (text[n - 1] == '\n' || text[n - 1] == ' '))
        text[--n] = 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && n == 0)
        *err = arena_printf(a, "%s (%s) could not be started", what, argv[0]);
    else if (WIFEXITED(status))
        *err = arena_printf(a, "%s failed (exit status %d)%s%s", what, WEXITSTATUS(status), n ? ":\n" : "",
                            n ? text : "");
    else
        *err = arena_printf(a, "%s was killed by signal %d%s%s", what, WIFSIGNALED(status) ? WTERMSIG(status) : 0,
                            n ? ":\n" : "", n ? text : "");
    return CG_ERR_TOOL;
}

/* ---- ld.lld ------------------------------------------------------------------------------------ */

CgStatus codegen_link_lld(const Target *t, const void *const *objs, const size_t *sizes, int n, Arena *a, void **bin,
                          size_t *bin_size, const char **err, double *cpu_ms)
{
    *bin = NULL;
    *bin_size = 0;
    if (!t || t->codegen->link == LINK_NONE) {
        *err = arena_printf(a, "%s code is not linked with ld.lld", t ? t->name : "(no target)");
        return CG_ERR_USAGE;
    }
    bool code_object = t->codegen->link == LINK_CODE_OBJECT;
    if (n < 1 || n > MAX_OBJS || (code_object && n > 1)) {
        *err = code_object && n > 1
                   ? "codegen_link: one object per code object for AMDGPU (each object has its own metadata note, "
                     "and the loader reads one): link the LLVM modules first"
                   : arena_printf(a, "codegen_link: %d objects (1 to %d)", n, MAX_OBJS);
        return CG_ERR_USAGE;
    }
    const char *why;
    const char *lld = codegen_find_lld(a, &why);
    if (!lld) {
        *err = why;
        return CG_ERR_TOOL;
    }
    Workdir *w = arena_alloc(a, sizeof *w);
    if (!workdir_open(w, n + 2, a, err))
        return CG_ERR_TOOL;
    jmp_buf *outer = a->oom;
    if (outer) {
        if (setjmp(w->oom)) { /* an allocation failed: the directory goes before the failure goes on */
            a->oom = outer;
            workdir_close(w);
            longjmp(*outer, 1);
        }
        a->oom = &w->oom;
    }
    return link_in(w, t, lld, objs, sizes, n, a, bin, bin_size, err, cpu_ms, outer);
}

/* codegen_link_lld's work in its directory; closes it. */
static CgStatus link_in(Workdir *w, const Target *t, const char *lld, const void *const *objs, const size_t *sizes,
                        int n, Arena *a, void **bin, size_t *bin_size, const char **err, double *cpu_ms,
                        jmp_buf *outer)
{
    CgStatus st = CG_OK;
    /* argv: ld.lld -shared [--no-undefined] -o OUT IN... NULL */
    char **argv = arena_alloc(a, sizeof(char *) * (size_t)(n + 8));
    int argc = 0;
    argv[argc++] = (char *)lld;
    argv[argc++] = "-shared";
    if (t->codegen->link == LINK_CODE_OBJECT)
        argv[argc++] = "--no-undefined";
    argv[argc++] = "-o";
    const char *outpath = workdir_file(w, t->codegen->link_output);
    argv[argc++] = (char *)outpath;
    for (int i = 0; i < n && st == CG_OK; i++) {
        char name[32];
        snprintf(name, sizeof name, "in%d.o", i);
        const char *p = workdir_file(w, name);
        argv[argc++] = (char *)p;
        if (!write_file(p, objs[i], sizes[i], a, err))
            st = CG_ERR_TOOL;
    }
    argv[argc] = NULL;
    const char *errpath = workdir_file(w, "stderr.txt");
    if (st == CG_OK)
        st = run_tool("ld.lld", argv, errpath, a, err, cpu_ms);
    if (st == CG_OK) {
        *bin = read_file(outpath, (size_t)1 << 30, false, a, bin_size);
        if (!*bin) {
            *err = arena_printf(a, "ld.lld succeeded but left no %s", outpath);
            st = CG_ERR_TOOL;
        }
    }
    workdir_close(w);
    a->oom = outer;
    return st;
}

/* ---- ptxas ------------------------------------------------------------------------------------- */

CgStatus codegen_ptxas(const Target *t, const char *ptx, size_t len, Arena *a, void **cubin, size_t *size,
                       const char **err)
{
    *cubin = NULL;
    *size = 0;
    if (!t || t->codegen->link != LINK_NONE) {
        *err = arena_printf(a, "ptxas assembles PTX; %s makes none", t ? t->name : "(no target)");
        return CG_ERR_USAGE;
    }
    const char *why;
    const char *ptxas = codegen_find_ptxas(a, &why);
    if (!ptxas) {
        *err = why;
        return CG_ERR_TOOL;
    }
    Workdir *w = arena_alloc(a, sizeof *w);
    if (!workdir_open(w, 3, a, err))
        return CG_ERR_TOOL;
    jmp_buf *outer = a->oom;
    if (outer) {
        if (setjmp(w->oom)) {
            a->oom = outer;
            workdir_close(w);
            longjmp(*outer, 1);
        }
        a->oom = &w->oom;
    }
    return ptxas_in(w, t, ptxas, ptx, len, a, cubin, size, err, outer);
}

static CgStatus ptxas_in(Workdir *w, const Target *t, const char *ptxas, const char *ptx, size_t len, Arena *a,
                         void **cubin, size_t *size, const char **err, jmp_buf *outer)
{
    const char *in = workdir_file(w, "in.ptx"), *outpath = workdir_file(w, "out.cubin");
    const char *errpath = workdir_file(w, "stderr.txt");
    char *arch = arena_printf(a, "-arch=%s", t->cpu);
    char *argv[] = {(char *)ptxas, arch, "-o", (char *)outpath, (char *)in, NULL};
    CgStatus st = write_file(in, ptx, len, a, err) ? run_tool("ptxas", argv, errpath, a, err, NULL) : CG_ERR_TOOL;
    if (st == CG_OK && !(*cubin = read_file(outpath, (size_t)1 << 30, false, a, size))) {
        *err = arena_printf(a, "ptxas succeeded but left no %s", outpath);
        st = CG_ERR_TOOL;
    }
    workdir_close(w);
    a->oom = outer;
    return st;
}

CgStatus cg_link(const Target *t, const void *const *objs, const size_t *sizes, int n, Arena *a, void **bin,
                 size_t *bin_size, const char **err, double *tool_cpu_ms)
{
    const char *how = getenv("RK_LINK");
    if (how && *how && strcmp(how, "lld") != 0) { /* a typo is an error, not the default linker */
        *err = arena_printf(a, "RK_LINK=%s is not a linker rk knows (lld, or unset for rk's own)", how);
        return CG_ERR_USAGE;
    }
    if (t && t->codegen->link == LINK_CODE_OBJECT && n > 1) {
        /* several objects (kernels compiled in separate modules): merged into one first, whose
         * metadata note lists every kernel (elf_merge.c) */
        void *merged;
        size_t merged_size;
        const char *why;
        if (!cg_elf_merge(objs, sizes, n, a, &merged, &merged_size, &why)) {
            *err = arena_printf(a, "codegen_link: the objects could not be merged: %s", why);
            return CG_ERR_USAGE;
        }
        const void *one = merged;
        return cg_link(t, &one, &merged_size, 1, a, bin, bin_size, err, tool_cpu_ms);
    }
    if (t && t->codegen->link == LINK_CODE_OBJECT && n == 1 && !(how && strcmp(how, "lld") == 0)) {
        const char *why;
        if (cg_elf_link(objs[0], sizes[0], a, bin, bin_size, &why))
            return CG_OK;
    }
    return codegen_link_lld(t, objs, sizes, n, a, bin, bin_size, err, tool_cpu_ms);
}

CgStatus cg_link_timed(const Target *t, const void *const *objs, const size_t *sizes, int n, Arena *a, void **bin,
                       size_t *bin_size, const char **err, CgTimes *times)
{
    double t0 = clock_wall_ms(), c0 = clock_thread_cpu_ms(), tool = 0;
    CgStatus st = cg_link(t, objs, sizes, n, a, bin, bin_size, err, &tool);
    *times = (CgTimes){clock_wall_ms() - t0, clock_thread_cpu_ms() - c0 + tool};
    return st;
}

CgStatus codegen_link(const Target *t, const void *const *objs, const size_t *sizes, int n, Arena *a, void **bin,
                      size_t *bin_size, const char **err)
{
    return cg_link(t, objs, sizes, n, a, bin, bin_size, err, NULL);
}
