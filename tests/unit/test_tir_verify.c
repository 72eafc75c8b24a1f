/* The tile IR verifier: valid IR gives no diagnostic; for each rule, an IR that breaks it gives the
 * expected message (exactly). Most cases are written in the text form, which the parser accepts as
 * long as the op table's fixed counts hold; the rest (wrong fixed arity, missing operands, values
 * that the text cannot express) are built in memory. */
#include <math.h>

#include "test_tir_util.h"

/* A kernel with handy parameters around `body`, which must end the function (with return). */
static const char *HEAD = "kernel @k(%p: *f32, %q: *i32, %hp: *f16, %a: i32, %b: i32, %l: i64, %f: f32, %g: f32, "
                          "%c: bool, %u: u32) {\n"
                          "  %t = splat %a : i32[64]\n"
                          "  %tf = splat %f : f32[64]\n"
                          "  %tm = splat %c : bool[64]\n"
                          "  %tp = splat %p : *f32[64]\n";

static void expect_at(int line, const char *body, const char *want)
{
    Ctx *c = ctx_new();
    const char *text = arena_printf(&c->arena, "%s%s", HEAD, body);
    Module *m = parse_str(c, text);
    if (!m) {
        fprintf(stderr, "%s:%d: does not parse:\n%s%s", __FILE__, line, diag_text(c), text);
        failures++;
        ctx_free(c);
        return;
    }
    bool ok = tir_verify(m, &c->diags);
    const char *got = diag_text(c);
    if (ok != (want[0] == 0) || strcmp(got, want) != 0) {
        fprintf(stderr, "%s:%d: verify gave\n%s--- wanted\n%s---\n", __FILE__, line, got, want);
        failures++;
    }
    ctx_free(c);
}

#define EXPECT(body, want) expect_at(__LINE__, body, want)

static void test_valid(void)
{
    EXPECT("  %0 = program_id {axis = 2} : i32\n"
           "  %1 = arange {start = -4, end = 4} : i32[8]\n"
           "  %2 = add %t, %t : i32[64]\n"
           "  %3 = cmp %tp, %tp {pred = eq} : bool[64]\n"
           "  %4 = select %3, %tf, %tf : f32[64]\n"
           "  %5 = cast %c : f16\n"
           "  %6 = cast %p : *i8\n"
           "  %7 = bitcast %f : u32\n"
           "  %8 = addptr %p, %l : *f32\n"
           "  %9 = load %p : f32\n"
           "  %10 = load %tp, %tm, %tf : f32[64]\n"
           "  store %tp, %tf, %tm\n"
           "  %11 = atomic_rmw %q, %a {kind = and, sem = acquire, scope = gpu} : i32\n"
           "  %12 = atomic_cas %p, %f, %g, %c {sem = relaxed, scope = gpu} : f32\n"
           "  %13 = reshape %t : i32[2, 4, 8]\n"
           "  %14 = reduce %13 {axis = 1, kind = min} : i32[2, 8]\n"
           "  %15 = argreduce %13 {axis = 2, kind = argmax} : i32[2, 4]\n"
           "  %16 = scan %13 {axis = 0, kind = sum} : i32[2, 4, 8]\n"
           "  %17 = permute %13 {dims = [2, 0, 1]} : i32[8, 2, 4]\n"
           "  %18 = expand_dims %t {axis = 0} : i32[1, 64]\n"
           "  %19 = broadcast %18 : i32[16, 64]\n"
           "  %20 = const {value = 1.0} : bf16[16, 32]\n"
           "  %21 = const {value = 1.0} : f32[32, 16]\n"
           "  %22 = const {value = 0.0} : f32[16, 16]\n"
           "  %23 = const {value = 0.5} : f32[16, 32]\n"
           "  %24 = dot %23, %21, %22 {kind = tf32} : f32[16, 16]\n"
           "  %25 = const {value = 255} : u8\n"
           "  %26 = const {value = -128} : i8\n"
           "  %27 = const {value = 1} : bool\n"
           "  %28 = const {value = 65504.0} : f16\n"
           "  %29 = hint %tp {kind = max_contiguous, n = 64} : *f32[64]\n"
           "  assume %c\n"
           "  assert %tm {msg = \"m\"}\n"
           "  print {msg = \"hi\"}\n"
           "  %30, %31 = for %a, %b, %a, %f, %t : f32, i32[64] {\n"
           "  ^(%k: i32, %x: f32, %y: i32[64]):\n"
           "    %32 = if %c : f32 {\n      yield %x\n    } {\n      %33 = neg %x : f32\n      yield %33\n    }\n"
           "    yield %32, %y\n"
           "  }\n"
           "  %34 = while %l : f32 {\n"
           "  ^(%w: i64):\n"
           "    %35 = cmp %w, %l {pred = ne} : bool\n"
           "    %36 = cast %w : f32\n"
           "    condition %35, %36\n"
           "  } {\n"
           "  ^(%z: f32):\n"
           "    %37 = cast %z : i64\n"
           "    yield %37\n"
           "  }\n"
           "  return\n}\n",
           "");
}

static void test_elementwise(void)
{
    EXPECT("  %0 = add %a, %f : i32\n  return\n}\n", "verify: @k: 'add': operand types i32 and f32 differ\n");
    EXPECT("  %0 = sub %a, %b : i64\n  return\n}\n",
           "verify: @k: 'sub': result type i64 differs from the operand type i32\n");
    EXPECT("  %0 = mul %c, %c : bool\n  return\n}\n", "verify: @k: 'mul': takes integers or floats, not bool\n");
    EXPECT("  %0 = max %p, %p : *f32\n  return\n}\n", "verify: @k: 'max': takes integers or floats, not *f32\n");
    EXPECT("  %0 = xor %f, %g : f32\n  return\n}\n", "verify: @k: 'xor': takes integers or bools, not f32\n");
    EXPECT("  %0 = shr %c, %c : bool\n  return\n}\n", "verify: @k: 'shr': takes integers, not bool\n");
    EXPECT("  %0 = exp %a : i32\n  return\n}\n", "verify: @k: 'exp': takes floats, not i32\n");
    EXPECT("  %0 = neg %c : bool\n  return\n}\n", "verify: @k: 'neg': takes integers or floats, not bool\n");
    EXPECT("  %0 = not %f : f32\n  return\n}\n", "verify: @k: 'not': takes integers or bools, not f32\n");
    EXPECT("  %0 = fma %f, %g, %a : f32\n  return\n}\n", "verify: @k: 'fma': operand types f32 and i32 differ\n");
    EXPECT("  %0 = add %t, %a : i32[64]\n  return\n}\n",
           "verify: @k: 'add': operand 1 (i32) and the result (i32[64]) differ in shape\n");
    EXPECT("  %0 = cmp %a, %f {pred = lt} : bool\n  return\n}\n", "verify: @k: 'cmp': operand types i32 and f32 differ\n");
    EXPECT("  %0 = cmp %a, %b {pred = lt} : i32\n  return\n}\n", "verify: @k: 'cmp': result must be bool, not i32\n");
    EXPECT("  %0 = cmp %a, %b {pred = 9} : bool\n  return\n}\n", "verify: @k: 'cmp': bad predicate 9\n");
    EXPECT("  %0 = select %a, %f, %g : f32\n  return\n}\n",
           "verify: @k: 'select': the condition must be a bool, not i32\n");
    EXPECT("  %0 = select %c, %f, %a : f32\n  return\n}\n", "verify: @k: 'select': operand types f32 and i32 differ\n");
    EXPECT("  %0 = select %c, %f, %g : f64\n  return\n}\n",
           "verify: @k: 'select': result type f64 differs from the operand type f32\n");
    EXPECT("  %0 = cast %p : i64\n  return\n}\n", "verify: @k: 'cast': cannot cast *f32 to i64\n");
    EXPECT("  %0 = cast %t : f32\n  return\n}\n",
           "verify: @k: 'cast': operand 0 (i32[64]) and the result (f32) differ in shape\n");
    EXPECT("  %0 = bitcast %a : f16\n  return\n}\n", "verify: @k: 'bitcast': cannot bitcast i32 to f16 of another width\n");
    EXPECT("  %0 = addptr %p, %f : *f32\n  return\n}\n", "verify: @k: 'addptr': the offset must be an integer, not f32\n");
    EXPECT("  %0 = addptr %a, %b : i32\n  return\n}\n",
           "verify: @k: 'addptr': the first operand must be a pointer, not i32\n");
    EXPECT("  %0 = addptr %p, %a : *i32\n  return\n}\n",
           "verify: @k: 'addptr': result type *i32 differs from the pointer type *f32\n");
}

static void test_values(void)
{
    EXPECT("  %0 = const {value = 300} : i8\n  return\n}\n", "verify: @k: 'const': value 300 is out of range for i8\n");
    EXPECT("  %0 = const {value = -1} : i16[4]\n  %1 = const {value = 32768} : i16\n  return\n}\n",
           "verify: @k: 'const': value 32768 is out of range for i16\n");
    EXPECT("  %0 = const {value = 2} : bool\n  return\n}\n", "verify: @k: 'const': value 2 is out of range for bool\n");
    EXPECT("  %0 = const {value = 0} : *f32\n  return\n}\n", "verify: @k: 'const': a constant cannot be a pointer\n");
    EXPECT("  %0 = program_id {axis = 3} : i32\n  return\n}\n", "verify: @k: 'program_id': axis 3 is not 0, 1 or 2\n");
    EXPECT("  %0 = num_programs {axis = 0} : i64\n  return\n}\n",
           "verify: @k: 'num_programs': result must be i32, not i64\n");
    EXPECT("  %0 = arange {start = 4, end = 4} : i32[1]\n  return\n}\n",
           "verify: @k: 'arange': end 4 is not greater than start 4\n");
    EXPECT("  %0 = arange {start = 0, end = 3} : i32[4]\n  return\n}\n",
           "verify: @k: 'arange': length 3 is not a power of two\n");
    EXPECT("  %0 = arange {start = 0, end = 4} : i32[8]\n  return\n}\n",
           "verify: @k: 'arange': result must be i32[4], not i32[8]\n");
    EXPECT("  %0 = arange {start = 2147483647, end = 2147483649} : i32[2]\n  return\n}\n",
           "verify: @k: 'arange': bounds 2147483647..2147483649 do not fit in i32\n");
}

static void test_shapes(void)
{
    EXPECT("  %0 = splat %t : i32[64]\n  return\n}\n",
           "verify: @k: 'splat': splats a scalar into a tile, not i32[64] into i32[64]\n");
    EXPECT("  %0 = splat %a : f32[64]\n  return\n}\n",
           "verify: @k: 'splat': result element type of f32[64] differs from the operand type i32\n");
    EXPECT("  %0 = broadcast %t : i32[128]\n  return\n}\n", "verify: @k: 'broadcast': cannot broadcast i32[64] to i32[128]\n");
    EXPECT("  %0 = broadcast %t : f32[64]\n  return\n}\n",
           "verify: @k: 'broadcast': element types of i32[64] and f32[64] differ\n");
    EXPECT("  %0 = broadcast %a : i32[64]\n  return\n}\n",
           "verify: @k: 'broadcast': operand and result must be tiles, not i32 and i32[64]\n");
    EXPECT("  %0 = expand_dims %t {axis = 2} : i32[64, 1]\n  return\n}\n",
           "verify: @k: 'expand_dims': cannot insert a dimension at axis 2 of i32[64]\n");
    EXPECT("  %0 = expand_dims %t {axis = 0} : i32[64, 1]\n  return\n}\n",
           "verify: @k: 'expand_dims': result i32[64, 1] is not i32[64] with a dimension of 1 at axis 0\n");
    EXPECT("  %0 = reshape %t : i32[4, 8]\n  return\n}\n", "verify: @k: 'reshape': cannot reshape i32[64] to i32[4, 8]\n");
    EXPECT("  %0 = reshape %t : i32[4, 16]\n  %1 = permute %0 {dims = [0, 0]} : i32[4, 16]\n  return\n}\n",
           "verify: @k: 'permute': dims are not a permutation of the 2 dimensions of i32[4, 16]\n");
    EXPECT("  %0 = reshape %t : i32[4, 16]\n  %1 = permute %0 {dims = [1, 0]} : i32[4, 16]\n  return\n}\n",
           "verify: @k: 'permute': result i32[4, 16] is not i32[4, 16] permuted\n");
    EXPECT("  %0 = reshape %t : i32[4, 16]\n  %1 = permute %0 {dims = [1]} : i32[16, 4]\n  return\n}\n",
           "verify: @k: 'permute': dims are not a permutation of the 2 dimensions of i32[4, 16]\n");
}

static void test_memory(void)
{
    EXPECT("  %0 = load %p, %c : f32\n  return\n}\n", "verify: @k: 'load': takes 1 or 3 operands, not 2\n");
    EXPECT("  %0 = load %a : i32\n  return\n}\n", "verify: @k: 'load': the address must be a pointer, not i32\n");
    EXPECT("  %0 = load %p : i32\n  return\n}\n", "verify: @k: 'load': result type i32 does not match the address type *f32\n");
    EXPECT("  %0 = load %tp : f32\n  return\n}\n",
           "verify: @k: 'load': result type f32 does not match the address type *f32[64]\n");
    EXPECT("  %0 = load %tp, %c, %tf : f32[64]\n  return\n}\n",
           "verify: @k: 'load': mask bool must be bool shaped like the address *f32[64]\n");
    EXPECT("  %0 = load %tp, %tm, %f : f32[64]\n  return\n}\n",
           "verify: @k: 'load': other has type f32, the result f32[64]\n");
    EXPECT("  store %p\n  return\n}\n", "verify: @k: 'store': takes 2 or 3 operands, not 1\n");
    EXPECT("  store %p, %a\n  return\n}\n",
           "verify: @k: 'store': operand 1 has type i32, expected f32 values shaped like the address *f32\n");
    EXPECT("  store %tp, %tf, %t\n  return\n}\n",
           "verify: @k: 'store': mask i32[64] must be bool shaped like the address *f32[64]\n");
    EXPECT("  %0 = atomic_rmw %q, %a {kind = sum, sem = relaxed, scope = gpu} : i32\n  return\n}\n",
           "verify: @k: 'atomic_rmw': kind must be add, max, min, and, or, xor or xchg\n");
    EXPECT("  %0 = atomic_rmw %p, %f {kind = or, sem = relaxed, scope = gpu} : f32\n  return\n}\n",
           "verify: @k: 'atomic_rmw': the value must be an integer, not f32\n");
    EXPECT("  %0 = atomic_rmw %q, %a {kind = add, sem = 7, scope = 9} : i32\n  return\n}\n",
           "verify: @k: 'atomic_rmw': bad memory order 7\nverify: @k: 'atomic_rmw': bad scope 9\n");
    EXPECT("  %0 = atomic_rmw %q, %a {kind = max, sem = relaxed, scope = gpu} : i64\n  return\n}\n",
           "verify: @k: 'atomic_rmw': result type i64 differs from the value type i32\n");
    EXPECT("  %0 = atomic_cas %q, %a {sem = relaxed, scope = gpu} : i32\n  return\n}\n",
           "verify: @k: 'atomic_cas': takes 3 or 4 operands, not 2\n");
    EXPECT("  %0 = atomic_cas %q, %a, %f {sem = relaxed, scope = gpu} : i32\n  return\n}\n",
           "verify: @k: 'atomic_cas': operand 2 has type f32, expected i32 values shaped like the address *i32\n");
}

static void test_tiles(void)
{
    EXPECT("  %0 = reduce %tf {axis = 0, kind = argmax} : f32\n  return\n}\n",
           "verify: @k: 'reduce': kind must be sum, max, min, maxnum or minnum\n");
    EXPECT("  %0 = reduce %tf {axis = 1, kind = sum} : f32\n  return\n}\n",
           "verify: @k: 'reduce': axis 1 is out of range for f32[64]\n");
    EXPECT("  %0 = reduce %f {axis = 0, kind = sum} : f32\n  return\n}\n",
           "verify: @k: 'reduce': operand must be a tile, not f32\n");
    EXPECT("  %0 = reshape %tf : f32[4, 16]\n  %1 = reduce %0 {axis = 0, kind = sum} : f32[4]\n  return\n}\n",
           "verify: @k: 'reduce': result f32[4] is not f32[4, 16] reduced along axis 0 into f32\n");
    EXPECT("  %0 = reduce %tm {axis = 0, kind = max} : bool\n  return\n}\n",
           "verify: @k: 'reduce': takes integers or floats, not bool[64]\n");
    EXPECT("  %0 = argreduce %tf {axis = 0, kind = argmin} : f32\n  return\n}\n",
           "verify: @k: 'argreduce': result f32 is not f32[64] reduced along axis 0 into i32\n");
    EXPECT("  %0 = scan %tf {axis = 0, kind = argmax} : f32[64]\n  return\n}\n",
           "verify: @k: 'scan': kind must be sum, prod, max or min\n");
    EXPECT("  %0 = scan %tf {axis = 0, kind = sum} : f64[64]\n  return\n}\n",
           "verify: @k: 'scan': result type f64[64] differs from the operand type f32[64]\n");
    const char *ab = "  %a1 = const {value = 1.0} : f16[16, 8]\n"
                     "  %b1 = const {value = 1.0} : f16[8, 16]\n"
                     "  %a2 = const {value = 1.0} : f16[16, 16]\n"
                     "  %b2 = const {value = 1.0} : bf16[16, 16]\n"
                     "  %c2 = const {value = 1.0} : f32[16, 16]\n"
                     "  %h2 = const {value = 1.0} : f16[16, 16]\n";
    char buf[1024];
#define DOT(line, want)                                                                                          \
    do {                                                                                                         \
        snprintf(buf, sizeof buf, "%s  %s\n  return\n}\n", ab, line);                                            \
        expect_at(__LINE__, buf, want);                                                                          \
    } while (0)
    DOT("%0 = dot %a1, %b1, %c2 {kind = ieee} : f32[16, 16]",
        "verify: @k: 'dot': M, N and K must be at least 16 (f16[16, 8] times f16[8, 16])\n");
    DOT("%0 = dot %a1, %a2, %c2 {kind = ieee} : f32[16, 16]",
        "verify: @k: 'dot': shapes f16[16, 8], f16[16, 16] and f32[16, 16] are not a[M, K], b[K, N], acc[M, N]\n");
    DOT("%0 = dot %a2, %b2, %c2 {kind = ieee} : f32[16, 16]",
        "verify: @k: 'dot': inputs f16[16, 16] and bf16[16, 16] differ in element type\n");
    DOT("%0 = dot %a2, %a2, %h2 {kind = ieee} : f16[16, 16]",
        "verify: @k: 'dot': no dot of f16 inputs into a f16 accumulator\n");
    DOT("%0 = dot %a2, %a2, %c2 {kind = tf32} : f32[16, 16]", "verify: @k: 'dot': tf32 needs f32 inputs, not f16\n");
    DOT("%0 = dot %a2, %a2, %c2 {kind = sum} : f32[16, 16]", "verify: @k: 'dot': kind must be ieee or tf32\n");
    DOT("%0 = dot %a2, %a2, %c2 {kind = ieee} : f32[16, 32]",
        "verify: @k: 'dot': result type f32[16, 32] differs from the accumulator type f32[16, 16]\n");
    DOT("%0 = dot %tf, %a2, %c2 {kind = ieee} : f32[16, 16]",
        "verify: @k: 'dot': operands must be 2-D tiles, not f32[64], f16[16, 16] and f32[16, 16]\n");
#undef DOT
}

static void test_control(void)
{
    const char *body = "    yield %x\n  }\n  return\n}\n";
    char buf[1024];
#define FOR(head, rest, want)                                                                                    \
    do {                                                                                                         \
        snprintf(buf, sizeof buf, "%s%s", head, rest);                                                           \
        expect_at(__LINE__, buf, want);                                                                          \
    } while (0)
    FOR("  %r = for %a, %b, %l, %f : f32 {\n  ^(%k: i32, %x: f32):\n", body,
        "verify: @k: 'for': bounds and step must be integer scalars of one type, not i32, i32 and i64\n");
    FOR("  %r = for %f, %g, %f, %f : f32 {\n  ^(%k: f32, %x: f32):\n", body,
        "verify: @k: 'for': bounds and step must be integer scalars of one type, not f32, f32 and f32\n");
    FOR("  %r = for %a, %b, %a : f32 {\n  ^(%k: i32, %x: f32):\n", body, "verify: @k: 'for': has 1 result for 0 initial values\n");
    FOR("  %r = for %a, %b, %a, %f : f32 {\n  ^(%x: f32):\n", body,
        "verify: @k: 'for': region has 1 argument, expected 2 (the induction variable and the iter values)\n");
    FOR("  %r = for %a, %b, %a, %f : f32 {\n  ^(%k: i64, %x: f32):\n", body,
        "verify: @k: 'for': induction variable has type i64, the bounds i32\n");
    FOR("  %r = for %a, %b, %a, %f : i32 {\n  ^(%k: i32, %x: f32):\n", body,
        "verify: @k: 'for': iter value 0: initial value f32, region argument f32 and result i32 differ\n"
        "verify: @k: 'for': yield value 0 has type f32, expected i32\n");
    FOR("  %r = for %a, %b, %a, %f : f32 {\n  ^(%k: i32, %x: f32):\n", "    yield\n  }\n  return\n}\n",
        "verify: @k: 'for': yield carries 0 values, expected 1\n");
    FOR("  %r = for %a, %b, %a, %f : f32 {\n  ^(%k: i32, %x: f32):\n", "    %y = neg %x : f32\n  }\n  return\n}\n",
        "verify: @k: 'for': region 0 must end in 'yield'\n");
    FOR("  %r = for : f32 {\n  ^(%k: i32, %x: f32):\n", body,
        "verify: @k: 'for': takes a lower bound, an upper bound, a step and initial values, not 0 operands\n");
    FOR("  %r = for %t, %t, %t, %f : f32 {\n  ^(%k: i32[64], %x: f32):\n", body,
        "verify: @k: 'for': bounds and step must be integer scalars of one type, not i32[64], i32[64] and i32[64]\n");
    FOR("  for %a, %b, %a {\n  ^(%k: i32):\n", "    return\n  }\n  return\n}\n",
        "verify: @k: 'for': region 0 must end in 'yield'\n");
    FOR("  %r = if %tm : f32 {\n", "    yield %f\n  } {\n    yield %g\n  }\n  return\n}\n",
        "verify: @k: 'if': condition must be a bool scalar, not bool[64]\n");
    FOR("  %r = if %c : f32 {\n", "    yield %a\n  } {\n    yield\n  }\n  return\n}\n",
        "verify: @k: 'if': then yield value 0 has type i32, expected f32\n"
        "verify: @k: 'if': else yield carries 0 values, expected 1\n");
    FOR("  %r = if %c : f32 {\n  ^(%z: f32):\n", "    yield %z\n  } {\n    yield %g\n  }\n  return\n}\n",
        "verify: @k: 'if': region 0 takes no arguments\n");
    FOR("  %r = if %c : f32 {\n", "    yield %f\n  } {\n    condition %c, %g\n  }\n  return\n}\n",
        "verify: @k: 'if': region 1 must end in 'yield'\n");
    const char *after = "  } {\n  ^(%z: i32):\n    yield %z\n  }\n  return\n}\n";
    FOR("  %r = while %a : i32 {\n", "    condition %c, %a\n  } {\n  ^(%z: i32):\n    yield %z\n  }\n  return\n}\n",
        "verify: @k: 'while': before region has 0 arguments for 1 initial value\n");
    FOR("  %r = while %a : i32 {\n  ^(%w: i32):\n    condition %w, %w\n", after,
        "verify: @k: 'while': condition must be a bool scalar, not i32\n");
    FOR("  %r = while %a : i32 {\n  ^(%w: i32):\n    condition %c, %f\n", after,
        "verify: @k: 'while': condition value 0 has type f32, expected i32\n");
    FOR("  %r = while %a : i32 {\n  ^(%w: i32):\n    condition\n", after, "verify: @k: 'while': condition has no operands\n");
    FOR("  %r = while %a : i32 {\n  ^(%w: i32):\n    yield %w\n", after, "verify: @k: 'while': region 0 must end in 'condition'\n");
    FOR("  %r = while %a : i32 {\n  ^(%w: i32):\n    condition %c, %w\n",
        "  } {\n  ^(%z: f32):\n    yield %a\n  }\n  return\n}\n",
        "verify: @k: 'while': after region argument 0 has type f32, result i32\n");
    FOR("  %r = while %a : i32 {\n  ^(%w: i32):\n    condition %c, %w\n",
        "  } {\n  ^(%z: i32):\n    yield %f\n  }\n  return\n}\n",
        "verify: @k: 'while': after yield value 0 has type f32, expected i32\n");
    FOR("  %r = while %a : i32 {\n  ^(%w: i32):\n    condition %c, %w\n", "  } {\n    yield %a\n  }\n  return\n}\n",
        "verify: @k: 'while': after region has 0 arguments for 1 result\n");
#undef FOR
    EXPECT("  yield\n  return\n}\n", "verify: @k: 'yield': a terminator must end its block\n");
    EXPECT("  %0 = neg %a : i32\n}\n", "verify: @k: the body must end in 'return'\n");
    EXPECT("  yield\n}\n", "verify: @k: the body must end in 'return'\n");
    EXPECT("  return %a, %a, %a\n}\n", "verify: @k: 'return': a kernel returns nothing\n");
    EXPECT("  assert %a {msg = \"x\"}\n  return\n}\n", "verify: @k: 'assert': the condition must be a bool, not i32\n");
    EXPECT("  print %a, %b {msg = \"x\"}\n  return\n}\n", "verify: @k: 'print': prints at most one value, not 2\n");
    EXPECT("  %0 = hint %t {kind = sum, n = 2} : i32[64]\n  return\n}\n",
           "verify: @k: 'hint': kind must be multiple_of or max_contiguous\n");
    EXPECT("  %0 = hint %t {kind = multiple_of, n = 0} : i32[64]\n  return\n}\n",
           "verify: @k: 'hint': n must be positive, not 0\n");
    EXPECT("  %0 = hint %tf {kind = multiple_of, n = 2} : f32[64]\n  return\n}\n",
           "verify: @k: 'hint': the operand must be an integer or a pointer, not f32[64]\n");
    EXPECT("  %0 = hint %t {kind = multiple_of, n = 2} : i64[64]\n  return\n}\n",
           "verify: @k: 'hint': result type i64[64] differs from the operand type i32[64]\n");
    EXPECT("  %0 = convert_layout %t : f32[64]\n  return\n}\n",
           "verify: @k: 'convert_layout': converts i32[64] to f32[64]: only the layout may change\n");
    EXPECT("  assume %tm\n  return\n}\n", "verify: @k: 'assume': the condition must be a bool scalar, not bool[64]\n");
}

static void test_scopes(void)
{
    EXPECT("  %0 = neg %1 : i32\n  %1 = neg %a : i32\n  return\n}\n",
           "verify: @k: 'neg': operand 0 is used outside the scope of its definition\n");
    EXPECT("  %0 = neg %0 : i32\n  return\n}\n", "verify: @k: 'neg': operand 0 is used outside the scope of its definition\n");
    EXPECT("  %r = if %c : i32 {\n    %x = neg %a : i32\n    yield %x\n  } {\n    yield %x\n  }\n  return\n}\n",
           "verify: @k: 'yield': operand 0 is used outside the scope of its definition\n");
    EXPECT("  for %a, %b, %a {\n  ^(%i: i32):\n    yield\n  }\n  %0 = neg %i : i32\n  return\n}\n",
           "verify: @k: 'neg': operand 0 is used outside the scope of its definition\n");
    EXPECT("  %r = for %a, %b, %a, %f : f32 {\n  ^(%i: i32, %x: f32):\n    yield %r\n  }\n  return\n}\n",
           "verify: @k: 'yield': operand 0 is used outside the scope of its definition\n");
    /* values of an enclosing block, block arguments included, are in scope */
    EXPECT("  for %a, %b, %a {\n  ^(%i: i32):\n    %r = if %c : i32 {\n      %x = add %i, %a : i32\n      yield %x\n"
           "    } {\n      yield %i\n    }\n    yield\n  }\n  return\n}\n",
           "");
}

static void expect_module(int line, const char *text, const char *want)
{
    Ctx *c = ctx_new();
    Module *m = parse_str(c, text);
    if (!m) {
        fprintf(stderr, "%s:%d: does not parse: %s", __FILE__, line, diag_text(c));
        failures++;
    } else {
        bool ok = tir_verify(m, &c->diags);
        if (ok != (want[0] == 0) || strcmp(diag_text(c), want) != 0) {
            fprintf(stderr, "%s:%d: verify gave\n%s--- wanted\n%s---\n", __FILE__, line, diag_text(c), want);
            failures++;
        }
    }
    ctx_free(c);
}

static void test_functions(void)
{
    expect_module(__LINE__, "grid @g(%n: i32) {\n  return %n, %n, %n\n}\n", "");
    expect_module(__LINE__, "grid @g(%n: i32) {\n  return %n, %n\n}\n",
                  "verify: @g: 'return': a grid function returns three i32 scalars\n");
    expect_module(__LINE__, "grid @g(%n: i64) {\n  return %n, %n, %n\n}\n",
                  "verify: @g: 'return': a grid function returns three i32 scalars\n");
    expect_module(__LINE__, "grid @g(%n: i32) {\n  barrier\n  return %n, %n, %n\n}\n",
                  "verify: @g: 'barrier': a barrier belongs in a kernel\n");
    expect_module(__LINE__, "kernel @k(%n: i32) {\n  barrier\n  return\n}\n", "");
    /* a grid function takes the kernel's parameters, pointers included */
    expect_module(__LINE__, "grid @g(%p: *f32, %n: i32) {\n  return %n, %n, %n\n}\n", "");
    expect_module(__LINE__, "kernel @k(%x: f32[4]) {\n  return\n}\n", "verify: @k: parameter 0 has a tile type f32[4]\n");
    expect_module(__LINE__,
                  "kernel @k() {num_warps = 3, num_stages = -1, waves_per_eu = 0, matrix_instr_nonkdim = 8, kpack = 4} "
                  "{\n  return\n}\n",
                  "verify: @k: num_warps 3 is not a power of two from 1 to 16\n"
                  "verify: @k: num_stages and waves_per_eu must not be negative\n"
                  "verify: @k: matrix_instr_nonkdim 8 is not 0, 16 or 32\n"
                  "verify: @k: kpack 4 is not 1 or 2\n");
    /* positions appear in the messages */
    expect_module(__LINE__, "file 0 \"a.tile\"\nkernel @k(%a: i32) {\n  %0 = add %a, %a : i64 loc(12:3)\n  return\n}\n",
                  "verify: @k: 'add' at 12:3: result type i64 differs from the operand type i32\n");
}

/* ---- IR the text cannot express ---- */

static void test_built(void)
{
    Ctx *c = ctx_new();
    TT = &c->types;
    Module *m = tir_module_new(&c->arena, &c->types, &c->strs);
    Func *f = tir_func_new(m, FUNC_KERNEL, "k");
    tir_block_add_arg(f->body, S(SK_I32), "a");
    Value *a = &f->body->args[0];
    Builder b;
    tir_builder_at_end(&b, f->body);
    const Type *i32 = S(SK_I32);
    Value *three[3] = {a, a, a};
    b_op(&b, OP_ADD, &i32, 1, three, 3);                /* fixed arity */
    b_op(&b, OP_NEG, &i32, 1, (Value *[]){NULL}, 1);     /* missing operand */
    b_const_float(&b, S(SK_F16), 0.1);                   /* not representable */
    b_const_float(&b, S(SK_BF16), NAN);                  /* NaN is fine */
    b_const_int(&b, S(SK_U8), 255);                      /* not sign-extended */
    const Type *bad = ty_tile(&c->types, i32, 0, NULL, NULL);
    b_op1(&b, OP_NEG, bad, a);                           /* rank 0 */
    const Type *big = ty_tile(&c->types, i32, 2, (int64_t[]){1 << 20, 1 << 20}, NULL);
    b_op1(&b, OP_SPLAT, big, a);                         /* too many elements */
    Func *g = tir_func_new(m, FUNC_GRID, "g");           /* a value of another function */
    tir_block_add_arg(g->body, i32, "n");
    b_op1(&b, OP_NEG, i32, &g->body->args[0]);
    Op *r = b_op(&b, OP_RETURN, NULL, 0, NULL, 0);
    Op *stray = tir_op_new(f, OP_NEG, &i32, 1, &a, 1);   /* in no block's list, but linked from one */
    r->next = stray;
    stray->prev = r;
    stray->parent = f->body;
    tir_builder_at_end(&b, g->body);
    b_op(&b, OP_RETURN, NULL, 0, (Value *[]){&g->body->args[0], &g->body->args[0], &g->body->args[0]}, 3);
    CHECK(!tir_verify(m, &c->diags));
    CHECK_STR(diag_text(c), "verify: @k: 'add': has 3 operands, expected 2\n"
                            "verify: @k: 'neg': operand 0 is missing\n"
                            "verify: @k: 'const': value 0.10000000000000001 is not representable in f16\n"
                            "verify: @k: 'const': value 255 is out of range for u8\n"
                            "verify: @k: 'neg': result 0: a tile has 1 to 4 dimensions\n"
                            "verify: @k: 'splat': result 0: a tile has more than 2^30 elements\n"
                            "verify: @k: 'neg': operand 0 is used outside the scope of its definition\n"
                            "verify: @k: 'return': a terminator must end its block\n"
                            "verify: @k: a block's last op is not the end of its list\n"
                            "verify: @k: the body must end in 'return'\n");
    ctx_free(c);
}

int main(void)
{
    test_valid();
    test_elementwise();
    test_values();
    test_shapes();
    test_memory();
    test_tiles();
    test_control();
    test_scopes();
    test_functions();
    test_built();
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
