/* `rkc run`: compile one kernel and launch it on the default device (tools/rkc/run.c). */
#ifndef RK_RKC_RUN_H
#define RK_RKC_RUN_H

#include <stddef.h>

/* argv[0] is "run". Returns the process exit status of the tools contract. */
int rkc_run(int argc, char **argv);

/* `rkc --advise ...` (tools/rkc/run.c): argv[0] is "rkc"; the same arguments as rkc run. */
int rkc_advise(int argc, char **argv);

/* The source file, or stdin for "-" (tools/rkc/main.c); malloc'd, NULL with errno set. */
char *rkc_read_source(const char *path, size_t *len);

/* The stdlib folder rkc and rkc run give the library (tools/rkc/main.c), or NULL. */
const char *rkc_stdlib_dir(void);

#endif
