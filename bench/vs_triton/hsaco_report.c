/* hsaco_report: rk's ISA report (compiler/target/amdgpu) for an existing code object, so that rk's and
 * Triton's .hsaco files are measured by the same ruler. rkc --report reads only what rkc has just
 * compiled; this reads any AMDGPU code object from a file.
 *
 *   hsaco_report [--json] [--dynamic-lds BYTES] FILE.hsaco
 *
 * prints the `rkc --report` text, or with --json the `--report=json` object. --dynamic-lds adds the
 * LDS that the launch allocates to what the code object declares, counted before the occupancy and
 * the loop model's resident workgroups (report_code_object_lds): Triton's AMD code objects declare no LDS (group_segment_fixed_size 0) and ask for
 * theirs at launch (the "shared" of Triton's metadata), so without it their LDS would read 0 and
 * their occupancy would ignore LDS.
 *
 * Exit: 0, 1 when the file cannot be read or is not a code object the report understands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/target/amdgpu/report.h"

static void *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        if (got == 0)
            break;
        n += got;
    }
    fclose(f);
    *size = n;
    return buf;
}

int main(int argc, char **argv)
{
    int json = 0;
    long dynamic_lds = 0;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--dynamic-lds") == 0 && i + 1 < argc)
            dynamic_lds = strtol(argv[++i], NULL, 10);
        else if (!path && argv[i][0] != '-')
            path = argv[i];
        else
            path = NULL, i = argc;
    }
    if (!path || dynamic_lds < 0 || dynamic_lds > (1 << 20)) {
        fprintf(stderr, "usage: hsaco_report [--json] [--dynamic-lds BYTES] FILE.hsaco\n");
        return 2;
    }
    size_t size = 0;
    void *bytes = read_all(path, &size);
    if (!bytes) {
        fprintf(stderr, "hsaco_report: cannot read %s\n", path);
        return 1;
    }
    Arena a;
    arena_init(&a, arena_default_allocator);
    CodeReport rep;
    const char *err = NULL;
    int rc = 0;
    if (report_code_object_lds(&a, bytes, size, (int)dynamic_lds, &rep, &err) != 0) {
        fprintf(stderr, "hsaco_report: %s: %s\n", path, err);
        rc = 1;
    } else {
        fputs(json ? report_json(&a, &rep) : report_text(&a, &rep), stdout);
    }
    arena_free(&a);
    free(bytes);
    return rc;
}
