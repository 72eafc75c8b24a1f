/* The Chrome/Perfetto trace writer (profile.h). */
#include "runtime/profile/profile.h"
#include "support/clock.h"
#include "support/files.h"
#include "support/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct RtProfile {
    Allocator al;
    pthread_mutex_t lock;
    char *path;
    size_t pathlen;
    StrBuf events; /* each followed by ",\n", in the context's allocator's room (an event that finds
                    * none is dropped, and those after it) */
};

double prof_now_us(void)
{
    return clock_wall_ms() * 1e3;
}

RtProfile *prof_open(Allocator al, const char *path)
{
    RtProfile *p = arena_alloc_raw(&al, sizeof *p);
    if (!p)
        return NULL;
    memset(p, 0, sizeof *p);
    p->al = al;
    strbuf_init_with(&p->events, al);
    p->pathlen = strlen(path) + 1;
    p->path = arena_alloc_raw(&al, p->pathlen);
    if (!p->path) {
        arena_free_raw(&al, p, sizeof *p);
        return NULL;
    }
    memcpy(p->path, path, p->pathlen);
    pthread_mutex_init(&p->lock, NULL);
    return p;
}

void prof_escape(char *dst, size_t dstlen, const char *s)
{
    size_t n = 0;
    for (; s && *s && n + 7 < dstlen; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            dst[n++] = '\\';
            dst[n++] = (char)c;
        } else if (c < 0x20) {
            n += (size_t)snprintf(dst + n, dstlen - n, "\\u%04x", c);
        } else {
            dst[n++] = (char)c;
        }
    }
    if (dstlen)
        dst[n < dstlen ? n : dstlen - 1] = 0;
}

void prof_span(RtProfile *p, const char *cat, const char *name, double ts_us, double dur_us, const char *args)
{
    char ename[512], line[4096];
    prof_escape(ename, sizeof ename, name);
    int len = snprintf(line, sizeof line,
                       "{\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"X\", \"ts\": %.3f, \"dur\": %.3f, \"pid\": %ld, "
                       "\"tid\": %ld, \"args\": %s},\n",
                       ename, cat, ts_us, dur_us < 0 ? 0.0 : dur_us, (long)getpid(), (long)syscall(SYS_gettid),
                       args && *args ? args : "{}");
    if (len <= 0 || (size_t)len >= sizeof line)
        return; /* arguments too long for a span: not worth a trace that does not parse */
    pthread_mutex_lock(&p->lock);
    strbuf_put(&p->events, line, (size_t)len);
    pthread_mutex_unlock(&p->lock);
}

/* ---- writing ---- */

/* The files this process has written, so that a later context appends instead of replacing. */
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;
enum { MAX_FILES = 32 };
static char written[MAX_FILES][256];
static int nwritten;

static bool written_before(const char *path)
{
    for (int i = 0; i < nwritten; i++)
        if (strcmp(written[i], path) == 0)
            return true;
    if (nwritten < MAX_FILES && strlen(path) < sizeof written[0])
        snprintf(written[nwritten++], sizeof written[0], "%s", path);
    return false;
}

/* The events already in the file (between "[\n" and "\n]\n", without the brackets), or NULL. */
static char *old_events(RtProfile *p, size_t *len, size_t *cap)
{
    /* a regular file only (support's reader): a FIFO or device named by RK_PROFILE is not read back
     * (nor waited on) */
    size_t n;
    int err;
    char *b = rt_read_file_with(&p->al, p->path, SIZE_MAX - 1, &n, &err);
    if (!b)
        return NULL;
    *cap = n + 1;
    if (n < 4) {
        arena_free_raw(&p->al, b, *cap);
        return NULL;
    }
    /* The file is ours: "[\n" events "\n]\n"; take what is between. */
    char *end = strrchr(b, ']');
    if (strncmp(b, "[\n", 2) != 0 || !end) {
        arena_free_raw(&p->al, b, *cap);
        return NULL;
    }
    while (end > b + 2 && (end[-1] == '\n' || end[-1] == ' '))
        end--;
    *len = (size_t)(end - (b + 2));
    memmove(b, b + 2, *len);
    return b;
}

bool prof_close(RtProfile *p, char *why, size_t whylen)
{
    if (!p)
        return true;
    Allocator al = p->al;
    pthread_mutex_lock(&files_lock);
    size_t oldlen = 0, oldcap = 0;
    char *old = written_before(p->path) ? old_events(p, &oldlen, &oldcap) : NULL;
    /* rt_out: a node such as /dev/full is written in place, never replaced by the trace */
    RtOut out;
    bool ok = rt_out_open(&out, p->path);
    /* the events end in ",\n": drop the last separator */
    size_t n = p->events.n >= 2 ? p->events.n - 2 : 0;
    if (ok)
        ok = rt_out_write(&out, "[\n", 2) && (!old || rt_out_write(&out, old, oldlen)) &&
             (!old || !oldlen || !n || rt_out_write(&out, ",\n", 2)) && rt_out_write(&out, p->events.p ? p->events.p : "", n) &&
             rt_out_write(&out, "\n]\n", 3);
    int e = rt_out_close(&out);
    ok = e == 0;
    if (!ok)
        snprintf(why, whylen, "cannot write the profile %s: %s", p->path, strerror(e));
    pthread_mutex_unlock(&files_lock);
    if (old)
        arena_free_raw(&al, old, oldcap);
    strbuf_free(&p->events);
    pthread_mutex_destroy(&p->lock);
    arena_free_raw(&al, p->path, p->pathlen);
    arena_free_raw(&al, p, sizeof *p);
    return ok;
}
