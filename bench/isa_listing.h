/* Reading a disassembly listing for the bench tools that run the loop model's parts on text
 * (bench/loop_mca/loop_model.c, bench/lds_check/lds_ways.c): one instruction a line as llvm-objdump
 * or LLVM's disassembler prints it. Comments after "//" or ";", leading blanks, blank lines and labels
 * ("name:" and objdump's "<sym>" lines) are dropped; the lines are copied into the arena. */
#ifndef RK_BENCH_ISA_LISTING_H
#define RK_BENCH_ISA_LISTING_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/arena.h"

/* The instructions of FILE as an array (free it with free; the strings live in `a`); *n their count. */
static const char **isa_listing_read(FILE *f, Arena *a, int *n)
{
    const char **lines = NULL;
    int cap = 0;
    char buf[1024];
    *n = 0;
    while (fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\n")] = 0;
        char *c = strstr(buf, "//");
        if (c)
            *c = 0;
        if ((c = strchr(buf, ';')))
            *c = 0;
        char *t = buf + strspn(buf, " \t");
        size_t len = strlen(t);
        while (len && (t[len - 1] == ' ' || t[len - 1] == '\t'))
            t[--len] = 0;
        if (!len || t[len - 1] == ':' || strchr(t, '>'))
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 256;
            lines = realloc(lines, sizeof *lines * (size_t)cap);
        }
        lines[(*n)++] = arena_strdup(a, t);
    }
    return lines;
}

#endif
