/* lds_ways: the LDS bank-conflict evaluator of the loop model (compiler/target/amdgpu/report_lds.c)
 * on a whole kernel, for comparing it with the compiler's own bank model (rkc --remarks) in
 * cross_check.py. Reads one kernel's disassembly as llvm-objdump prints it (from its first
 * instruction on; labels, comments after "//" and blank lines dropped) and prints one line per LDS
 * read or write: its index, "known WAYS ACCESSES" or "unknown ACCESSES" (ds_read2/write2 are two
 * accesses), and the instruction.
 *
 *   lds_ways [--waves N] [--banks N] FILE
 *
 * Exit 0, 1 when the file cannot be read, 2 for a bad command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/isa_listing.h"
#include "compiler/target/amdgpu/report.h"

int main(int argc, char **argv)
{
    int waves = 4, banks = 32;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--waves") && i + 1 < argc)
            waves = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--banks") && i + 1 < argc)
            banks = atoi(argv[++i]);
        else if (!path && argv[i][0] != '-')
            path = argv[i];
        else
            path = NULL, i = argc;
    }
    if (!path) {
        fprintf(stderr, "usage: lds_ways [--waves N] [--banks N] FILE\n");
        return 2;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "lds_ways: cannot read %s\n", path);
        return 1;
    }
    Arena a;
    arena_init(&a, arena_default_allocator);
    int n;
    const char **lines = isa_listing_read(f, &a, &n);
    fclose(f);
    LdsCost *costs = n ? malloc(sizeof *costs * (size_t)n) : NULL;
    if (n)
        report_lds_costs(&a, lines, 0, n, waves, banks, true, costs);
    for (int i = 0; i < n; i++) {
        if (costs[i].kind == LDS_NONE)
            continue;
        int accesses = strstr(lines[i], "2st64") || strstr(lines[i], "read2") || strstr(lines[i], "write2") ? 2 : 1;
        if (costs[i].kind == LDS_KNOWN)
            printf("%d known %d %d %s\n", i, costs[i].ways, accesses, lines[i]);
        else
            printf("%d unknown %d %s\n", i, accesses, lines[i]);
    }
    free(costs);
    free(lines);
    arena_free(&a);
    return 0;
}
