/* What the builtin handlers share (sema_builtin.c, the table and most handlers; sema_builtin_reduce.c,
 * reductions and scans): a call's arguments by parameter slot, and the helpers that check them and
 * report a bad one at its own location. */
#ifndef RK_SEMA_BUILTIN_H
#define RK_SEMA_BUILTIN_H

#include "compiler/sema/sema_internal.h"

enum { MAX_BARGS = 6 };

typedef struct BArgs {
    Node *n[MAX_BARGS]; /* argument nodes by parameter slot, NULL when not given */
    SVal v[MAX_BARGS];  /* evaluated (SV_VOID when not given) */
    Loc loc;            /* the call */
    const char *name;
    int code;           /* the table entry's code */
} BArgs;

/* The location of argument i, or the call's when it was not given. */
Loc barg_loc(BArgs *a, int i);
bool barg_given(BArgs *a, int i);
/* Argument i is a value (else an error naming `what`). */
bool barg_value(Sema *S, BArgs *a, int i, const char *what);
bool barg_int_const(Sema *S, BArgs *a, int i, const char *what, int64_t *out);
/* An axis in [-rank, rank), normalised; `of` names the operand in the message. */
bool barg_axis(Sema *S, BArgs *a, int i, int rank, const char *of, int *axis);
/* A compile-time bool argument i (false when not given) into *out. */
bool barg_flag(Sema *S, BArgs *a, int i, const char *what, bool *out);

/* sema_builtin_reduce.c */
SVal b_reduce(Sema *S, BArgs *a);
SVal b_scan(Sema *S, BArgs *a);

#endif
