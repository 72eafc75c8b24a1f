/* The profiler: a Chrome/Perfetto trace (RK_PROFILE=trace.json) of compiles, tuning runs and launches.
 *
 * The file is the Trace Event Format's JSON array form: one complete event ("ph": "X") per span, with
 * "name", "cat" (compile, cache, tune, launch), "ts" and "dur" in microseconds, "pid", "tid" and "args".
 * chrome://tracing and ui.perfetto.dev open it as is.
 *
 * Spans are recorded in memory, from any thread (worker threads compiling autotune configs record
 * their own, so the trace shows them side by side), and written when the context is destroyed. Several
 * contexts of one process that name the same file add to it: the first write of a process replaces the
 * file, later ones append to the array. The file is written to a temporary name and renamed, so a
 * reader never sees half a trace. When profiling is off the context has no RtProfile and each
 * instrumented place costs one NULL test. Nothing here prints. */
#ifndef RK_PROFILE_H
#define RK_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "support/arena.h"

typedef struct RtProfile RtProfile;

/* A trace to be written to `path`; NULL when the allocator fails. */
RtProfile *prof_open(Allocator al, const char *path);
/* Microseconds on the monotonic clock (the trace's time base). */
double prof_now_us(void);
/* Records a span. `args` is the text of a JSON object ("{\"grid\": [4, 1, 1]}") or NULL for {}.
 * Thread-safe; drops the span silently when out of memory. */
void prof_span(RtProfile *p, const char *cat, const char *name, double ts_us, double dur_us, const char *args);
/* Writes the trace and frees it. False with a reason when the file could not be written. p may be NULL. */
bool prof_close(RtProfile *p, char *why, size_t whylen);
/* `s` as the inside of a JSON string (quotes and control characters escaped), truncated to fit. */
void prof_escape(char *dst, size_t dstlen, const char *s);

#endif
