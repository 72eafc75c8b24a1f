/* The unit tests' check: CHECK(cond, fmt, ...) counts a failure in the including file's `failures`
 * (declared here, one per test program) and prints file:line, the condition and the formatted
 * message; the test's main returns non-zero when `failures` is. Include once, in the test's .c file. */
#ifndef RK_TESTS_UNIT_CHECK_H
#define RK_TESTS_UNIT_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                                                  \
    do {                                                                                                  \
        if (!(cond)) {                                                                                    \
            failures++;                                                                                   \
            fprintf(stderr, "%s:%d: FAIL: %s: ", __FILE__, __LINE__, #cond);                              \
            fprintf(stderr, __VA_ARGS__);                                                                 \
            fputc('\n', stderr);                                                                          \
        }                                                                                                 \
    } while (0)

#endif
