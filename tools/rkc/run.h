/* `rkc run`: compile one kernel and launch it on the default device (tools/rkc/run.c). */
#ifndef RK_RKC_RUN_H
#define RK_RKC_RUN_H

/* argv[0] is "run". Returns the process exit status of the tools contract. */
int rkc_run(int argc, char **argv);

#endif
