/* What the case families (cases_*.c) share besides the harness: references used by more than one
 * family and small setup helpers. */
#ifndef RK_TESTS_RUN_CASES_H
#define RK_TESTS_RUN_CASES_H

#include "tests/run/harness.h"

/* n in (0, 3 * block) that is not a multiple of block, from the run's random numbers. */
int pick_n(Run *r, int block);

/* cases_elem.c: the language's binary operators on one element (floats exact, then rounded to t;
 * integers wrapped, with rk's rules for division by zero and shifts). op: the B_* order of elem.tile. */
double ref_float_binop(int op, rk_dtype t, double x, double y);
int64_t ref_int_binop(int op, rk_dtype t, int64_t a, int64_t b);
double ref_fmin(double x, double y);
double ref_fmax(double x, double y);

/* cases_math.c: the float unary operators of elem.tile's unop (shared with the float `neg` case). */
void setup_math(Run *r);
void check_math(Run *r);

/* cases_cast.c: conversion of an element to another type, as `as` does. */
void ref_cast(HBuf *out, size_t i, rk_dtype from, const void *src, size_t j);

/* cases_reduce.c: the type sum() and cumsum() give for t. */
rk_dtype sum_type(rk_dtype t);

#endif
