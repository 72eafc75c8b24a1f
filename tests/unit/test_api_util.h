/* Shared scaffolding of the C API tests (test_api*.c): a check macro that counts, a helper to assert
 * the context's error message, and the tile sources the tests compile. Everything here is static:
 * each test file includes it once. */
#ifndef RK_TEST_API_UTIL_H
#define RK_TEST_API_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk.h"
#include "support/files.h"

static int api_checks, api_fails;

#define CHECK(c)                                                                                                   \
    do {                                                                                                           \
        api_checks++;                                                                                              \
        if (!(c)) {                                                                                                \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);                                  \
            api_fails++;                                                                                           \
        }                                                                                                          \
    } while (0)

/* A status and a substring of the context's error. */
#define CHECK_ST(ctx, call, want, substr)                                                                          \
    do {                                                                                                           \
        api_checks++;                                                                                              \
        rk_status st_ = (call);                                                                                    \
        const char *e_ = rk_error(ctx);                                                                            \
        if (st_ != (want) || !strstr(e_, (substr))) {                                                              \
            fprintf(stderr, "%s:%d: %s\n  got:  %s \"%s\"\n  want: %s \"...%s...\"\n", __FILE__, __LINE__, #call,  \
                    rk_status_name(st_), e_, rk_status_name(want), (substr));                                      \
            api_fails++;                                                                                           \
        }                                                                                                          \
    } while (0)

#define CHECK_OK(ctx, call) CHECK_ST(ctx, call, RK_OK, "")

/* A whole file, NUL-terminated (free it); NULL where it cannot be read. */
static inline char *read_all(const char *path, size_t *len)
{
    int err;
    return rt_read_file(path, (size_t)1 << 30, len, &err);
}

static inline int api_finish(const char *name)
{
    printf("%s: %d checks, %d failures\n", name, api_checks, api_fails);
    return api_fails ? 1 : 0;
}

/* A vector add with @grid, and a kernel without one. */
static const char VADD_SRC[] = "@grid(cdiv(n, BLOCK))\n"
                               "kernel vadd(x: *f32, y: *f32, out: *f32, n: i32, const BLOCK: i32 = 64)\n"
                               "{\n"
                               "    let offs = program_id(0) * BLOCK + arange(BLOCK);\n"
                               "    let m = offs < n;\n"
                               "    store(out + offs, load(x + offs, mask = m) + load(y + offs, mask = m), mask = m);\n"
                               "}\n"
                               "\n"
                               "kernel fill(out: *i32, v: i32, scale: f32, flag: bool, big: u32)\n"
                               "{\n"
                               "    store(out + program_id(0), v);\n"
                               "}\n";

#endif
