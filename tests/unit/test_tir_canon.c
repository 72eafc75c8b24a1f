/* tir_canonicalize and the f16/bf16 conversions: folding of every foldable op per dtype (wrap-around,
 * division by zero, MIN / -1, 16-bit rounding, casts, bitcasts), what must not fold (float x + 0.0,
 * transcendental functions), exact identities, CSE across nested
 * regions, DCE, `if` with a constant condition, `for` that runs zero times, and the speed of a large
 * function. Cases are written in the text form and checked on the printed result. */
#include <math.h>
#include <time.h>

#include "support/fp16.h"
#include "test_tir_util.h"

/* Parses, verifies, canonicalises every function, verifies again; returns the printed module. */
static const char *canon(Ctx *c, const char *text)
{
    Module *m = parse_str(c, text);
    if (!m || !tir_verify(m, &c->diags)) {
        fprintf(stderr, "bad test input:\n%s%s", diag_text(c), text);
        failures++;
        return "";
    }
    for (int i = 0; i < m->nfuncs; i++)
        tir_canonicalize(m->funcs[i]);
    if (!tir_verify(m, &c->diags)) {
        fprintf(stderr, "canonicalize broke the IR:\n%s%s", diag_text(c), tir_print_module(&c->arena, m, 0));
        failures++;
    }
    return tir_print_module(&c->arena, m, 0);
}

/* ---- folding of one op on constants ---- */

typedef struct Row {
    const char *type, *op, *attrs, *x, *y, *z, *rtype;
    const char *want; /* the folded value as printed, or NULL: must not fold */
} Row;

static void check_row(const Row *r, int line)
{
    Ctx *c = ctx_new();
    const char *rt = r->rtype ? r->rtype : r->type;
    char text[1024];
    int n = snprintf(text, sizeof text, "kernel @k(%%p: *%s) {\n  %%x = const {value = %s} : %s\n", rt, r->x, r->type);
    if (r->y)
        n += snprintf(text + n, sizeof text - (size_t)n, "  %%y = const {value = %s} : %s\n", r->y, r->type);
    if (r->z)
        n += snprintf(text + n, sizeof text - (size_t)n, "  %%z = const {value = %s} : %s\n", r->z, r->type);
    snprintf(text + n, sizeof text - (size_t)n, "  %%r = %s %%x%s%s%s%s %s : %s\n  store %%p, %%r\n  return\n}\n", r->op,
             r->y ? ", %y" : "", r->z ? ", %z" : "", "", "", r->attrs ? r->attrs : "", rt);
    const char *out = canon(c, text);
    /* folded: the function is down to one constant and the store */
    const char *got = NULL;
    const char *v = strstr(out, "= const {value = ");
    int lines = 0;
    for (const char *q = out; *q; q++)
        lines += *q == '\n';
    if (v && lines == 5) {
        v += strlen("= const {value = ");
        got = arena_strndup(&c->arena, v, strcspn(v, "}"));
    }
    bool ok = r->want ? got && strcmp(got, r->want) == 0 : got == NULL;
    if (!ok) {
        fprintf(stderr, "%s:%d: %s %s %s %s %s -> %s: got %s, want %s\n%s", __FILE__, line, r->op, r->type, r->x,
                r->y ? r->y : "", r->z ? r->z : "", rt, got ? got : "no fold", r->want ? r->want : "no fold", out);
        failures++;
    }
    ctx_free(c);
}

#define NOFOLD NULL
static const Row rows[] = {
    /* integers wrap at their width */
    {"i8", "add", 0, "127", "1", 0, 0, "-128"},
    {"u8", "add", 0, "255", "1", 0, 0, "0"},
    {"i16", "sub", 0, "-32768", "1", 0, 0, "32767"},
    {"u32", "sub", 0, "0", "1", 0, 0, "4294967295"},
    {"i32", "mul", 0, "65536", "65536", 0, 0, "0"},
    {"i64", "mul", 0, "4294967296", "4294967297", 0, 0, "4294967296"},
    {"u64", "mul", 0, "18446744073709551615", "18446744073709551615", 0, 0, "1"},
    /* division: toward zero, x / 0 = all ones, x % 0 = x, MIN / -1 = MIN, MIN % -1 = 0 */
    {"i32", "div", 0, "7", "-2", 0, 0, "-3"},
    {"i32", "div", 0, "-7", "2", 0, 0, "-3"},
    {"i32", "div", 0, "7", "0", 0, 0, "-1"},
    {"u8", "div", 0, "7", "0", 0, 0, "255"},
    {"u8", "div", 0, "200", "3", 0, 0, "66"},
    {"u32", "div", 0, "4294967295", "2", 0, 0, "2147483647"},
    {"i8", "div", 0, "-128", "-1", 0, 0, "-128"},
    {"i32", "div", 0, "-2147483648", "-1", 0, 0, "-2147483648"},
    {"i64", "div", 0, "-9223372036854775808", "-1", 0, 0, "-9223372036854775808"},
    {"i32", "rem", 0, "-7", "2", 0, 0, "-1"},
    {"i32", "rem", 0, "7", "-2", 0, 0, "1"},
    {"i32", "rem", 0, "7", "0", 0, 0, "7"},
    {"i64", "rem", 0, "-9223372036854775808", "-1", 0, 0, "0"},
    {"u32", "rem", 0, "4294967295", "10", 0, 0, "5"},
    {"u16", "rem", 0, "65535", "0", 0, 0, "65535"},
    /* shifts: amount modulo the width; shr arithmetic on signed types */
    {"i32", "shl", 0, "1", "33", 0, 0, "2"},
    {"i32", "shl", 0, "-1", "31", 0, 0, "-2147483648"},
    {"i8", "shl", 0, "1", "7", 0, 0, "-128"},
    {"i8", "shr", 0, "-128", "1", 0, 0, "-64"},
    {"i8", "shr", 0, "-128", "9", 0, 0, "-64"},
    {"u8", "shr", 0, "128", "1", 0, 0, "64"},
    {"i32", "shr", 0, "-1", "-1", 0, 0, "-1"},
    {"u32", "shr", 0, "4294967295", "35", 0, 0, "536870911"},
    {"i32", "min", 0, "-1", "1", 0, 0, "-1"},
    {"u32", "min", 0, "4294967295", "1", 0, 0, "1"},
    {"i16", "max", 0, "-5", "-7", 0, 0, "-5"},
    {"u16", "max", 0, "65535", "7", 0, 0, "65535"},
    {"i32", "and", 0, "12", "10", 0, 0, "8"},
    {"i32", "or", 0, "12", "10", 0, 0, "14"},
    {"i32", "xor", 0, "12", "10", 0, 0, "6"},
    {"bool", "and", 0, "1", "0", 0, 0, "0"},
    {"bool", "or", 0, "1", "0", 0, 0, "1"},
    {"bool", "xor", 0, "1", "1", 0, 0, "0"},
    {"i32", "not", 0, "5", 0, 0, 0, "-6"},
    {"u8", "not", 0, "0", 0, 0, 0, "255"},
    {"bool", "not", 0, "1", 0, 0, 0, "0"},
    {"i8", "neg", 0, "-128", 0, 0, 0, "-128"},
    {"u16", "neg", 0, "1", 0, 0, 0, "65535"},
    {"i8", "abs", 0, "-128", 0, 0, 0, "-128"},
    {"i32", "abs", 0, "-5", 0, 0, 0, "5"},
    {"u8", "abs", 0, "200", 0, 0, 0, "200"},
    /* comparisons: signedness from the type; floats ordered except ne */
    {"i32", "cmp", "{pred = lt}", "-1", "1", 0, "bool", "1"},
    {"u32", "cmp", "{pred = lt}", "4294967295", "1", 0, "bool", "0"},
    {"i8", "cmp", "{pred = ge}", "-128", "127", 0, "bool", "0"},
    {"u8", "cmp", "{pred = ge}", "128", "127", 0, "bool", "1"},
    {"f32", "cmp", "{pred = eq}", "nan", "nan", 0, "bool", "0"},
    {"f32", "cmp", "{pred = ne}", "nan", "1.0", 0, "bool", "1"},
    {"f32", "cmp", "{pred = lt}", "nan", "1.0", 0, "bool", "0"},
    {"f32", "cmp", "{pred = ge}", "nan", "1.0", 0, "bool", "0"},
    {"f32", "cmp", "{pred = eq}", "-0.0", "0.0", 0, "bool", "1"},
    {"f64", "cmp", "{pred = le}", "1.0", "2.0", 0, "bool", "1"},
    {"bool", "cmp", "{pred = gt}", "1", "0", 0, "bool", "1"},
    /* floats: one rounding to the type */
    {"f16", "add", 0, "1.0", "0.0009765625", 0, 0, "1.001"},
    {"f16", "add", 0, "1.0", "0.00048828125", 0, 0, "1.0"},
    {"f16", "add", 0, "1.0", "0.00048828126", 0, 0, "1.0"},
    {"f16", "add", 0, "1.0", "0.0004883", 0, 0, "1.0"},
    {"f16", "add", 0, "1.0009765625", "0.00048828125", 0, 0, "1.002"},
    {"f16", "add", 0, "65504.0", "16.0", 0, 0, "inf"},
    {"f16", "add", 0, "65504.0", "15.0", 0, 0, "6.55e+04"},
    {"f16", "sub", 0, "0.00006103515625", "0.000030517578125", 0, 0, "3.05e-05"},
    {"bf16", "add", 0, "1.0", "0.00390625", 0, 0, "1.0"},
    {"bf16", "add", 0, "1.0", "0.01171875", 0, 0, "1.016"},
    {"f32", "add", 0, "0.1", "0.2", 0, 0, "0.3"},
    {"f32", "add", 0, "16777216.0", "1.0", 0, 0, "16777216.0"},
    {"f32", "add", 0, "16777216.0", "3.0", 0, 0, "1.677722e+07"},
    {"f32", "div", 0, "1.0", "3.0", 0, 0, "0.33333334"},
    {"f32", "div", 0, "1.0", "0.0", 0, 0, "inf"},
    {"f32", "div", 0, "-1.0", "0.0", 0, 0, "-inf"},
    {"f32", "div", 0, "0.0", "0.0", 0, 0, "nan"},
    {"f64", "div", 0, "1.0", "3.0", 0, 0, "0.3333333333333333"},
    {"f16", "mul", 0, "300.0", "300.0", 0, 0, "inf"},
    {"f64", "rem", 0, "5.5", "2.0", 0, 0, "1.5"},
    {"f32", "rem", 0, "-5.5", "2.0", 0, 0, "-1.5"},
    {"f32", "rem", 0, "1.0", "0.0", 0, 0, "nan"},
    {"f32", "min", 0, "nan", "1.0", 0, 0, "nan"},
    {"f32", "max", 0, "1.0", "nan", 0, 0, "nan"},
    {"f32", "max", 0, "-1.0", "2.0", 0, 0, "2.0"},
    {"f32", "min", 0, "0.0", "-0.0", 0, 0, "-0.0"},
    {"f32", "min", 0, "-0.0", "0.0", 0, 0, "-0.0"},
    {"f32", "max", 0, "-0.0", "0.0", 0, 0, "0.0"},
    {"f16", "max", 0, "0.0", "-0.0", 0, 0, "0.0"},
    {"f32", "sqrt", 0, "2.0", 0, 0, 0, "1.4142135"},
    {"f16", "sqrt", 0, "2.0", 0, 0, 0, "1.414"},
    {"f64", "sqrt", 0, "-1.0", 0, 0, 0, "nan"},
    {"f32", "neg", 0, "0.0", 0, 0, 0, "-0.0"},
    {"f32", "abs", 0, "-0.0", 0, 0, 0, "0.0"},
    {"f32", "floor", 0, "-1.5", 0, 0, 0, "-2.0"},
    {"f16", "ceil", 0, "1.5", 0, 0, 0, "2.0"},
    {"f32", "fma", 0, "0.1", "10.0", "-1.0", 0, "1.4901161e-08"},
    {"f64", "fma", 0, "0.1", "10.0", "-1.0", 0, "5.551115123125783e-17"},
    {"f16", "fma", 0, "1.0", "1.0", "1.0", 0, "2.0"},
    /* one rounding: 7 * 37 = 259 lies halfway between the bf16 neighbours 258 and 260; minus a tiny c
     * it must round down, where rounding the sum to double first would give the tie and 260 */
    {"bf16", "fma", 0, "7.0", "37.0", "-7.888609052210118e-31", 0, "258.0"},
    {"f16", "fma", 0, "3.0", "683.0", "-5.960464477539063e-08", 0, "2048.0"},
    {"f32", "exp", 0, "1.0", 0, 0, 0, NOFOLD},
    {"f32", "exp2", 0, "3.0", 0, 0, 0, NOFOLD},
    {"f32", "log", 0, "1.0", 0, 0, 0, NOFOLD},
    {"f32", "log2", 0, "8.0", 0, 0, 0, NOFOLD},
    {"f32", "rsqrt", 0, "4.0", 0, 0, 0, NOFOLD},
    {"f32", "sin", 0, "0.0", 0, 0, 0, NOFOLD},
    {"f32", "cos", 0, "0.0", 0, 0, 0, NOFOLD},
    /* casts */
    {"i32", "cast", 0, "300", 0, 0, "i8", "44"},
    {"i8", "cast", 0, "-1", 0, 0, "u16", "65535"},
    {"u8", "cast", 0, "255", 0, 0, "i32", "255"},
    {"u32", "cast", 0, "4294967295", 0, 0, "i64", "4294967295"},
    {"i32", "cast", 0, "-1", 0, 0, "bool", "1"},
    {"i32", "cast", 0, "0", 0, 0, "bool", "0"},
    {"u8", "cast", 0, "128", 0, 0, "bool", "1"},
    {"bool", "cast", 0, "1", 0, 0, "f32", "1.0"},
    {"bool", "cast", 0, "1", 0, 0, "i8", "1"},
    {"f32", "cast", 0, "3.9", 0, 0, "i32", "3"},
    {"f32", "cast", 0, "-3.9", 0, 0, "i32", "-3"},
    {"f32", "cast", 0, "1e10", 0, 0, "i32", "2147483647"},
    {"f32", "cast", 0, "-1e10", 0, 0, "i32", "-2147483648"},
    {"f32", "cast", 0, "nan", 0, 0, "i32", "0"},
    {"f32", "cast", 0, "-1.0", 0, 0, "u8", "0"},
    {"f32", "cast", 0, "300.0", 0, 0, "u8", "255"},
    {"f32", "cast", 0, "inf", 0, 0, "i64", "9223372036854775807"},
    {"f32", "cast", 0, "-inf", 0, 0, "u64", "0"},
    {"f64", "cast", 0, "1e20", 0, 0, "u64", "18446744073709551615"},
    {"f64", "cast", 0, "-9.3e18", 0, 0, "i64", "-9223372036854775808"},
    {"f32", "cast", 0, "0.5", 0, 0, "bool", "1"},
    {"f32", "cast", 0, "-0.0", 0, 0, "bool", "0"},
    {"f32", "cast", 0, "nan", 0, 0, "bool", "1"},
    {"i32", "cast", 0, "16777217", 0, 0, "f32", "16777216.0"},
    {"i64", "cast", 0, "9007199254740993", 0, 0, "f64", "9007199254740992.0"},
    {"u64", "cast", 0, "18446744073709551615", 0, 0, "f32", "1.8446744e+19"},
    {"i64", "cast", 0, "-9223372036854775808", 0, 0, "bf16", "-9.22e+18"},
    {"i32", "cast", 0, "65520", 0, 0, "f16", "inf"},
    {"i32", "cast", 0, "65519", 0, 0, "f16", "6.55e+04"},
    {"i32", "cast", 0, "-65536", 0, 0, "f16", "-inf"},
    {"i32", "cast", 0, "257", 0, 0, "bf16", "256.0"},
    {"i32", "cast", 0, "259", 0, 0, "bf16", "2.6e+02"},
    {"i32", "cast", 0, "2049", 0, 0, "f16", "2048.0"},
    {"i32", "cast", 0, "2051", 0, 0, "f16", "2052.0"},
    {"f32", "cast", 0, "0.1", 0, 0, "f16", "0.1"},
    {"f64", "cast", 0, "0.1", 0, 0, "f32", "0.1"},
    {"f32", "cast", 0, "1e-8", 0, 0, "f16", "0.0"},
    {"f32", "cast", 0, "3e-8", 0, 0, "f16", "6e-08"},
    {"f64", "cast", 0, "1e300", 0, 0, "f32", "inf"},
    {"f16", "cast", 0, "65504.0", 0, 0, "bf16", "6.55e+04"},
    {"f16", "cast", 0, "0.1", 0, 0, "f64", "0.0999755859375"},
    /* bitcasts, except to or from NaN */
    {"f32", "bitcast", 0, "1.0", 0, 0, "i32", "1065353216"},
    {"i32", "bitcast", 0, "1065353216", 0, 0, "f32", "1.0"},
    {"f16", "bitcast", 0, "1.0", 0, 0, "i16", "15360"},
    {"u16", "bitcast", 0, "16256", 0, 0, "bf16", "1.0"},
    {"f16", "bitcast", 0, "-0.0", 0, 0, "u16", "32768"},
    {"bf16", "bitcast", 0, "1.0", 0, 0, "f16", "1.875"},
    {"f64", "bitcast", 0, "1.0", 0, 0, "u64", "4607182418800017408"},
    {"i32", "bitcast", 0, "-1", 0, 0, "u32", "4294967295"},
    {"i32", "bitcast", 0, "2143289344", 0, 0, "f32", NOFOLD},
    {"f32", "bitcast", 0, "nan", 0, 0, "i32", NOFOLD},
};

static void test_fold_table(void)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        check_row(&rows[i], (int)i);
}

/* ---- identities, CSE, DCE, control flow ---- */

static void expect_canon(int line, const char *in, const char *want)
{
    Ctx *c = ctx_new();
    const char *got = canon(c, in);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "%s:%d: canonicalize gave\n%s--- wanted\n%s---\n", __FILE__, line, got, want);
        failures++;
    }
    ctx_free(c);
}

#define OPTS "{num_warps = 4, num_stages = 2, waves_per_eu = 0, matrix_instr_nonkdim = 16, kpack = 1}"

static void test_identities(void)
{
    expect_canon(__LINE__,
                 "kernel @k(%p: *i32, %x: i32, %y: i32) {\n"
                 "  %0 = const {value = 0} : i32\n"
                 "  %1 = const {value = 1} : i32\n"
                 "  %m = const {value = -1} : i32\n"
                 "  %s32 = const {value = 32} : i32\n"
                 "  %a = add %x, %0 : i32\n"
                 "  %b = add %0, %a : i32\n"
                 "  %c = mul %b, %1 : i32\n"
                 "  %d = sub %c, %0 : i32\n"
                 "  %e = or %d, %0 : i32\n"
                 "  %f = and %m, %e : i32\n"
                 "  %g = xor %f, %0 : i32\n"
                 "  %h = div %g, %1 : i32\n"
                 "  %i = shl %h, %s32 : i32\n"
                 "  %j = shr %i, %0 : i32\n"
                 "  %k = min %j, %j : i32\n"
                 "  %l = neg %k : i32\n"
                 "  %n = neg %l : i32\n"
                 "  %o = not %n : i32\n"
                 "  %q = not %o : i32\n"
                 "  %r = cast %q : i32\n"
                 "  store %p, %r\n"
                 "  %z1 = mul %y, %0 : i32\n"
                 "  %z2 = sub %y, %y : i32\n"
                 "  %z3 = and %y, %0 : i32\n"
                 "  %z4 = xor %y, %y : i32\n"
                 "  %z5 = rem %y, %1 : i32\n"
                 "  %z6 = rem %y, %m : i32\n"
                 "  %o1 = or %y, %m : i32\n"
                 "  %t1 = cmp %y, %y {pred = le} : bool\n"
                 "  %t2 = cmp %y, %y {pred = ne} : bool\n"
                 "  %t3 = cast %t1 : i32\n"
                 "  %t4 = cast %t2 : i32\n"
                 "  store %p, %z1\n  store %p, %z2\n  store %p, %z3\n  store %p, %z4\n  store %p, %z5\n"
                 "  store %p, %z6\n  store %p, %o1\n  store %p, %t3\n  store %p, %t4\n"
                 "  return\n}\n",
                 "kernel @k(%p: *i32, %x: i32, %y: i32) " OPTS " {\n"
                 "  %0 = const {value = 0} : i32\n"
                 "  %1 = const {value = 1} : i32\n"
                 "  %m = const {value = -1} : i32\n"
                 "  store %p, %x\n"
                 "  store %p, %0\n  store %p, %0\n  store %p, %0\n  store %p, %0\n  store %p, %0\n"
                 "  store %p, %0\n  store %p, %m\n  store %p, %1\n  store %p, %0\n"
                 "  return\n}\n");
    /* floats: only identities exact for every input, -0.0 and NaN included */
    expect_canon(__LINE__,
                 "kernel @k(%p: *f32, %x: f32) {\n"
                 "  %z = const {value = 0.0} : f32\n"
                 "  %nz = const {value = -0.0} : f32\n"
                 "  %one = const {value = 1.0} : f32\n"
                 "  %a = add %x, %z : f32\n"
                 "  %b = add %nz, %x : f32\n"
                 "  %c = sub %x, %z : f32\n"
                 "  %d = sub %x, %nz : f32\n"
                 "  %e = mul %one, %x : f32\n"
                 "  %f = div %x, %one : f32\n"
                 "  %g = mul %x, %z : f32\n"
                 "  %h = sub %x, %x : f32\n"
                 "  %i = cmp %x, %x {pred = eq} : bool\n"
                 "  %j = select %i, %x, %z : f32\n"
                 "  store %p, %a\n  store %p, %b\n  store %p, %c\n  store %p, %d\n  store %p, %e\n"
                 "  store %p, %f\n  store %p, %g\n  store %p, %h\n  store %p, %j\n"
                 "  return\n}\n",
                 "kernel @k(%p: *f32, %x: f32) " OPTS " {\n"
                 "  %z = const {value = 0.0} : f32\n"
                 "  %nz = const {value = -0.0} : f32\n"
                 "  %a = add %x, %z : f32\n"
                 "  %d = sub %x, %nz : f32\n"
                 "  %g = mul %x, %z : f32\n"
                 "  %h = sub %x, %x : f32\n"
                 "  %i = cmp %x, %x {pred = eq} : bool\n"
                 "  %j = select %i, %x, %z : f32\n"
                 "  store %p, %a\n  store %p, %x\n  store %p, %x\n  store %p, %d\n  store %p, %x\n"
                 "  store %p, %x\n  store %p, %g\n  store %p, %h\n  store %p, %j\n"
                 "  return\n}\n");
    /* select, bool identities, addptr, shape ops of splats and constants */
    expect_canon(__LINE__,
                 "kernel @k(%p: *f32, %x: f32, %c: bool, %i: i32) {\n"
                 "  %t = const {value = 1} : bool\n"
                 "  %f = const {value = 0} : bool\n"
                 "  %zero = const {value = 0} : i64\n"
                 "  %s1 = select %t, %x, %x : f32\n"
                 "  %s2 = select %c, %x, %x : f32\n"
                 "  %b1 = and %c, %t : bool\n"
                 "  %b2 = or %b1, %f : bool\n"
                 "  %s3 = select %b2, %s1, %s2 : f32\n"
                 "  %q = addptr %p, %zero : *f32\n"
                 "  store %q, %s3\n"
                 "  %v = splat %x : f32[64]\n"
                 "  %e = expand_dims %v {axis = 0} : f32[1, 64]\n"
                 "  %b = broadcast %e : f32[8, 64]\n"
                 "  %r = reshape %b : f32[512]\n"
                 "  %r2 = reshape %r : f32[16, 32]\n"
                 "  %id0 = permute %r2 {dims = [0, 1]} : f32[16, 32]\n"
                 "  %cl = convert_layout %id0 : f32[16, 32]\n"
                 "  %id = convert_layout %cl : f32[16, 32]\n"
                 "  %ti = splat %i : i32[16, 32]\n"
                 "  %tr = reshape %ti : i32[512]\n"
                 "  %tr2 = reshape %tr : i32[16, 32]\n"
                 "  %sv = splat %p : *f32[16, 32]\n"
                 "  %pp = addptr %sv, %tr2 : *f32[16, 32]\n"
                 "  store %pp, %id\n"
                 "  %three = const {value = 3.0} : f32\n"
                 "  %c3 = splat %three : f32[4]\n"
                 "  %c4 = expand_dims %c3 {axis = 1} : f32[4, 1]\n"
                 "  %c5 = broadcast %c4 : f32[4, 8]\n"
                 "  %c6 = permute %c5 {dims = [1, 0]} : f32[8, 4]\n"
                 "  %c7 = reshape %c6 : f32[32]\n"
                 "  %c8 = add %c7, %c7 : f32[32]\n"
                 "  %sp = splat %p : *f32[32]\n"
                 "  store %sp, %c8\n"
                 "  return\n}\n",
                 "kernel @k(%p: *f32, %x: f32, %c: bool, %i: i32) " OPTS " {\n"
                 "  store %p, %x\n"
                 "  %r2 = splat %x : f32[16, 32]\n"
                 "  %ti = splat %i : i32[16, 32]\n"
                 "  %sv = splat %p : *f32[16, 32]\n"
                 "  %pp = addptr %sv, %ti : *f32[16, 32]\n"
                 "  store %pp, %r2\n"
                 "  %c8 = const {value = 6.0} : f32[32]\n"
                 "  %sp = splat %p : *f32[32]\n"
                 "  store %sp, %c8\n"
                 "  return\n}\n");
}

static void test_cse(void)
{
    expect_canon(__LINE__,
                 "kernel @k(%p: *i32, %x: i32, %y: i32, %c: bool) {\n"
                 "  %a = add %x, %y : i32\n"
                 "  %b = add %y, %x : i32\n"
                 "  %s = sub %x, %y : i32\n"
                 "  %t = sub %y, %x : i32\n"
                 "  %l1 = load %p : i32\n"
                 "  %l2 = load %p : i32\n"
                 "  %lt = cmp %x, %y {pred = lt} : bool\n"
                 "  %gt = cmp %x, %y {pred = gt} : bool\n"
                 "  %lt2 = cmp %x, %y {pred = lt} : bool\n"
                 "  %r = if %c : i32 {\n"
                 "    %a2 = add %x, %y : i32\n"
                 "    %u = mul %a2, %a2 : i32\n"
                 "    yield %u\n"
                 "  } {\n"
                 "    %u2 = mul %a, %a : i32\n"
                 "    %i2 = if %lt2 : i32 {\n"
                 "      %u3 = mul %b, %a : i32\n"
                 "      yield %u3\n"
                 "    } {\n"
                 "      yield %u2\n"
                 "    }\n"
                 "    yield %i2\n"
                 "  }\n"
                 "  %v = mul %a, %a : i32\n"
                 "  %w = for %x, %y, %x, %v : i32 {\n"
                 "  ^(%k: i32, %acc: i32):\n"
                 "    %inv = sub %y, %x : i32\n"
                 "    %n = add %acc, %inv : i32\n"
                 "    %n2 = add %inv, %acc : i32\n"
                 "    %n3 = mul %n, %n2 : i32\n"
                 "    yield %n3\n"
                 "  }\n"
                 "  %one = const {value = 1} : i32\n"
                 "  %one2 = const {value = 1} : i32\n"
                 "  %oneb = const {value = 1} : i64\n"
                 "  %c1 = cast %oneb : i32\n"
                 "  store %p, %a\n  store %p, %b\n  store %p, %s\n  store %p, %t\n  store %p, %l1\n  store %p, %l2\n"
                 "  %x1 = cast %lt : i32\n  %x2 = cast %gt : i32\n  %x3 = cast %lt2 : i32\n"
                 "  store %p, %x1\n  store %p, %x2\n  store %p, %x3\n  store %p, %r\n  store %p, %v\n  store %p, %w\n"
                 "  store %p, %one\n  store %p, %one2\n  store %p, %c1\n"
                 "  return\n}\n",
                 "kernel @k(%p: *i32, %x: i32, %y: i32, %c: bool) " OPTS " {\n"
                 "  %a = add %x, %y : i32\n"
                 "  %s = sub %x, %y : i32\n"
                 "  %t = sub %y, %x : i32\n"
                 "  %l1 = load %p : i32\n"
                 "  %l2 = load %p : i32\n"
                 "  %lt = cmp %x, %y {pred = lt} : bool\n"
                 "  %gt = cmp %x, %y {pred = gt} : bool\n"
                 "  %r = if %c : i32 {\n"
                 "    %u = mul %a, %a : i32\n"
                 "    yield %u\n"
                 "  } {\n"
                 "    %u2 = mul %a, %a : i32\n"
                 "    %i2 = if %lt : i32 {\n"
                 "      yield %u2\n"
                 "    } {\n"
                 "      yield %u2\n"
                 "    }\n"
                 "    yield %i2\n"
                 "  }\n"
                 "  %v = mul %a, %a : i32\n"
                 "  %w = for %x, %y, %x, %v : i32 {\n"
                 "  ^(%k: i32, %acc: i32):\n"
                 "    %n = add %acc, %t : i32\n"
                 "    %n3 = mul %n, %n : i32\n"
                 "    yield %n3\n"
                 "  }\n"
                 "  %one = const {value = 1} : i32\n"
                 "  store %p, %a\n  store %p, %a\n  store %p, %s\n  store %p, %t\n  store %p, %l1\n  store %p, %l2\n"
                 "  %x1 = cast %lt : i32\n  %x2 = cast %gt : i32\n"
                 "  store %p, %x1\n  store %p, %x2\n  store %p, %x1\n  store %p, %r\n  store %p, %v\n  store %p, %w\n"
                 "  store %p, %one\n  store %p, %one\n  store %p, %one\n"
                 "  return\n}\n");
}

static void test_dce(void)
{
    expect_canon(__LINE__,
                 "kernel @k(%p: *i32, %x: i32, %c: bool) {\n"
                 "  %a = add %x, %x : i32\n"
                 "  %b = mul %a, %a : i32\n"
                 "  %l = load %p : i32\n"
                 "  %o = atomic_rmw %p, %x {kind = add, sem = relaxed, scope = gpu} : i32\n"
                 "  %r = if %c : i32 {\n    %d = neg %b : i32\n    yield %d\n  } {\n    yield %x\n  }\n"
                 "  if %c {\n    %e = neg %x : i32\n    yield\n  } {\n    yield\n  }\n"
                 "  if %c {\n    store %p, %x\n    yield\n  } {\n    yield\n  }\n"
                 "  %w = for %x, %x, %x, %x : i32 {\n  ^(%k: i32, %acc: i32):\n    %f = neg %k : i32\n    yield %acc\n  }\n"
                 "  return\n}\n",
                 "kernel @k(%p: *i32, %x: i32, %c: bool) " OPTS " {\n"
                 "  %l = load %p : i32\n"
                 "  %o = atomic_rmw %p, %x {kind = add, sem = relaxed, scope = gpu} : i32\n"
                 "  if %c {\n    store %p, %x\n    yield\n  } {\n    yield\n  }\n"
                 "  %w = for %x, %x, %x, %x : i32 {\n  ^(%k: i32, %acc: i32):\n    yield %acc\n  }\n"
                 "  return\n}\n");
}

static void test_control_flow(void)
{
    /* if with a constant condition, including one that folding makes constant, nested */
    expect_canon(__LINE__,
                 "kernel @k(%p: *i32, %x: i32, %y: i32) {\n"
                 "  %t = const {value = 1} : bool\n"
                 "  %r = if %t : i32 {\n    %a = add %x, %y : i32\n    yield %a\n  } {\n    yield %x\n  }\n"
                 "  %f = cmp %x, %x {pred = ne} : bool\n"
                 "  %r2 = if %f : i32 {\n    yield %x\n  } {\n"
                 "    %m = mul %x, %y : i32\n"
                 "    %n = cmp %y, %y {pred = eq} : bool\n"
                 "    %r3 = if %n : i32 {\n      %s = sub %m, %x : i32\n      yield %s\n    } {\n      yield %m\n    }\n"
                 "    yield %r3\n  }\n"
                 "  %r4 = if %t : i32 {\n    yield %y\n  } {\n    yield %x\n  }\n"
                 "  store %p, %r\n  store %p, %r2\n  store %p, %r4\n"
                 "  return\n}\n",
                 "kernel @k(%p: *i32, %x: i32, %y: i32) " OPTS " {\n"
                 "  %a = add %x, %y : i32\n"
                 "  %m = mul %x, %y : i32\n"
                 "  %s = sub %m, %x : i32\n"
                 "  store %p, %a\n  store %p, %s\n  store %p, %y\n"
                 "  return\n}\n");
    /* for that runs zero times: lb >= ub in the bounds' signedness */
    expect_canon(__LINE__,
                 "kernel @k(%p: *i32, %x: i32) {\n"
                 "  %c10 = const {value = 10} : i32\n"
                 "  %c5 = const {value = 5} : i32\n"
                 "  %c1 = const {value = 1} : i32\n"
                 "  %r = for %c10, %c5, %c1, %x : i32 {\n  ^(%k: i32, %a: i32):\n    %b = add %a, %k : i32\n    yield %b\n  }\n"
                 "  %r2 = for %c5, %c5, %c1, %r : i32 {\n  ^(%k2: i32, %a2: i32):\n    %b2 = add %a2, %k2 : i32\n    yield %b2\n  }\n"
                 "  %big = const {value = 4294967295} : u32\n"
                 "  %zero = const {value = 0} : u32\n"
                 "  %one = const {value = 1} : u32\n"
                 "  %r3 = for %big, %zero, %one, %r2 : i32 {\n  ^(%k3: u32, %a3: i32):\n    yield %a3\n  }\n"
                 "  %m1 = const {value = -1} : i32\n"
                 "  %c0 = const {value = 0} : i32\n"
                 "  %r4 = for %m1, %c0, %c1, %r3 : i32 {\n  ^(%k4: i32, %a4: i32):\n    %b4 = add %a4, %k4 : i32\n    yield %b4\n  }\n"
                 "  store %p, %r4\n"
                 "  return\n}\n",
                 "kernel @k(%p: *i32, %x: i32) " OPTS " {\n"
                 "  %c1 = const {value = 1} : i32\n"
                 "  %m1 = const {value = -1} : i32\n"
                 "  %c0 = const {value = 0} : i32\n"
                 "  %r4 = for %m1, %c0, %c1, %x : i32 {\n  ^(%k4: i32, %a4: i32):\n    %b4 = add %a4, %k4 : i32\n    yield %b4\n  }\n"
                 "  store %p, %r4\n"
                 "  return\n}\n");
    /* grid functions fold to constants */
    expect_canon(__LINE__,
                 "grid @g(%n: i32) {\n"
                 "  %c = const {value = 1000} : i32\n"
                 "  %d = const {value = 64} : i32\n"
                 "  %e = const {value = 63} : i32\n"
                 "  %s = add %c, %e : i32\n"
                 "  %q = div %s, %d : i32\n"
                 "  %one = const {value = 1} : i32\n"
                 "  %m = mul %n, %one : i32\n"
                 "  return %q, %m, %one\n"
                 "}\n",
                 "grid @g(%n: i32) {\n"
                 "  %q = const {value = 16} : i32\n"
                 "  %one = const {value = 1} : i32\n"
                 "  return %q, %n, %one\n"
                 "}\n");
}

/* ---- the 16-bit conversions ---- */

static uint32_t fbits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static void test_fp16(void)
{
    CHECK(f32_to_f16(1.0f) == 0x3C00);
    CHECK(f32_to_f16(-2.0f) == 0xC000);
    CHECK(f32_to_f16(65504.0f) == 0x7BFF);
    CHECK(f32_to_f16(65519.99f) == 0x7BFF);
    CHECK(f32_to_f16(65520.0f) == 0x7C00);
    CHECK(f32_to_f16(INFINITY) == 0x7C00);
    CHECK(f32_to_f16(-0.0f) == 0x8000);
    CHECK(f32_to_f16(5.9604645e-08f) == 0x0001);  /* the smallest subnormal */
    CHECK(f32_to_f16(2.9802322e-08f) == 0x0000);  /* half of it: a tie, to even (zero) */
    CHECK(f32_to_f16(2.9802326e-08f) == 0x0001);  /* just above half */
    CHECK(f32_to_f16(8.940697e-08f) == 0x0002);   /* 1.5 ulp: a tie, to even (2) */
    CHECK(f32_to_f16(6.1035156e-05f) == 0x0400);  /* the smallest normal */
    CHECK(f32_to_f16(6.097555e-05f) == 0x03FF);   /* the largest subnormal */
    CHECK(f32_to_f16(1.00048828125f) == 0x3C00);  /* 1 + half an ulp: tie to even */
    CHECK(f32_to_f16(1.00146484375f) == 0x3C02);  /* 1 + 1.5 ulp: tie to even */
    CHECK((f32_to_f16(NAN) & 0x7C00) == 0x7C00 && (f32_to_f16(NAN) & 0x3FF));
    CHECK(f32_to_bf16(1.0f) == 0x3F80);
    CHECK(f32_to_bf16(1.00390625f) == 0x3F80);    /* tie to even */
    CHECK(f32_to_bf16(1.01171875f) == 0x3F82);    /* tie to even (up) */
    CHECK(f32_to_bf16(3.3961776e38f) == 0x7F80);  /* rounds up past the largest: inf */
    CHECK(f32_to_bf16(3.38953139e38f) == 0x7F7F); /* the largest */
    CHECK(f32_to_bf16(-ldexpf(1, -133)) == 0x8001); /* the smallest bf16 subnormal */
    CHECK(f32_to_bf16(ldexpf(1, -134)) == 0x0000);  /* half of it: a tie, to even (zero) */
    CHECK(f32_to_bf16(ldexpf(3, -135)) == 0x0001);  /* three quarters of it */
    CHECK((f32_to_bf16(NAN) & 0x7FC0) == 0x7FC0);
    /* every 16-bit value widens exactly and narrows back to itself (NaNs stay NaNs) */
    for (uint32_t h = 0; h < 0x10000; h++) {
        float f = f16_to_f32((uint16_t)h), g = bf16_to_f32((uint16_t)h);
        if (isnan(f))
            CHECK(isnan(f16_to_f32(f32_to_f16(f))));
        else
            CHECK(f32_to_f16(f) == h);
        if (isnan(g))
            CHECK(isnan(bf16_to_f32(f32_to_bf16(g))));
        else
            CHECK(f32_to_bf16(g) == h);
        CHECK(fbits(g) == h << 16);
    }
    /* midpoints between neighbouring f16 values round to the even one; points just off them round to
     * the nearer one (all such values are exact in double) */
    for (uint32_t h = 0; h < 0x7BFF; h++) {
        double lo = f16_to_f32((uint16_t)h), hi = f16_to_f32((uint16_t)(h + 1)), mid = (lo + hi) / 2;
        uint16_t even = (h & 1) ? (uint16_t)(h + 1) : (uint16_t)h;
        CHECK(f64_to_f16(mid) == even);
        CHECK(f64_to_f16(nextafter(mid, 0)) == h);
        CHECK(f64_to_f16(nextafter(mid, 1e9)) == h + 1);
    }
    /* fma rounds once (a double sum would round to the tie 259, then to even: 260) */
    CHECK(fp_fma(7, 37, -ldexp(1, -100), SK_BF16) == 258);
    CHECK(fp_round(SK_BF16, 7.0 * 37.0 - ldexp(1, -100)) == 260);
    CHECK(fp_fma(0.1f, 10, -1, SK_F32) == (double)fmaf(0.1f, 10, -1));
    /* random floats: bf16 against the bit-trick reference, f16 against the compiler's _Float16 */
    uint64_t s = 88172645463325252ull;
    for (int i = 0; i < 2000000; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        uint32_t b = (uint32_t)s;
        float f;
        memcpy(&f, &b, sizeof f);
        if (isnan(f))
            continue;
        CHECK(f32_to_bf16(f) == (uint16_t)((b + 0x7FFF + ((b >> 16) & 1)) >> 16));
#ifdef __FLT16_MANT_DIG__
        _Float16 h = (_Float16)f;
        uint16_t hb;
        memcpy(&hb, &h, sizeof hb);
        CHECK(f32_to_f16(f) == hb);
        /* and in f16's range, where the interesting cases are */
        float g = ldexpf(1.0f + (float)(s >> 40) / (float)(1 << 24), (int)(s % 44) - 27) * ((s >> 20) & 1 ? -1 : 1);
        h = (_Float16)g;
        memcpy(&hb, &h, sizeof hb);
        CHECK(f32_to_f16(g) == hb);
#endif
    }
}

/* ---- scale ---- */

static void test_large(void)
{
    Ctx *c = ctx_new();
    char *text = malloc(32 << 20);
    size_t n = (size_t)sprintf(text, "kernel @k(%%p: *i32, %%x: i32) {\n  %%c0 = const {value = 0} : i32\n");
    for (int i = 0; i < 50000; i++) {
        /* each value twice (CSE), plus zero (fold), plus a dead op (DCE) */
        n += (size_t)sprintf(text + n, "  %%a%d = add %%x, %%c%d : i32\n  %%b%d = add %%c%d, %%x : i32\n", i, i, i, i);
        n += (size_t)sprintf(text + n, "  %%d%d = mul %%a%d, %%b%d : i32\n  %%e%d = sub %%d%d, %%c0 : i32\n", i, i, i, i, i);
        n += (size_t)sprintf(text + n, "  %%c%d = add %%e%d, %%x : i32\n  %%dead%d = neg %%e%d : i32\n", i + 1, i, i, i);
    }
    sprintf(text + n, "  store %%p, %%c50000\n  return\n}\n");
    clock_t t0 = clock();
    const char *out = canon(c, text);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(secs < 30);
    CHECK(strstr(out, "%dead") == NULL && strstr(out, "%b1 ") == NULL && strstr(out, "%e1 ") == NULL);
    CHECK(strstr(out, "%d49999 = mul %a49999, %a49999 : i32\n") != NULL);
    free(text);
    ctx_free(c);
}

int main(void)
{
    test_fp16();
    test_fold_table();
    test_identities();
    test_cse();
    test_dce();
    test_control_flow();
    test_large();
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
