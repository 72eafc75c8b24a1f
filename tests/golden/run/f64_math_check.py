"""f64_math.tile's inputs and checker. `inputs FILE` writes the 2,048 f64 inputs (fixed: specials, the
edges of exp's and exp2's range, subnormals, both sides of sqrt(2), multiples of pi/2 and huge
arguments for sin and cos, random values from a seeded generator); `check X PREFIX...` reads
PREFIX.exp, .exp2, .log, .log2, .sin, .cos of each device and compares them
with Python's math (the host libm): NaN for NaN, infinities and zeros exactly, everything else within 2
ulps. For sin and cos of the emulators the reference reduces x exactly (pi to 3,000 bits, in
fractions), since the host libm itself is 8 ulps off at the hardest argument (cos(6381956970095103 *
2^797)); interp, which calls that libm, is held to it. Exit 1 naming the first element out of bounds."""
import math
import random
import struct
import sys
from fractions import Fraction


def inputs():
    rng = random.Random(7)
    v = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 5e-324, 2.2250738585072014e-308,
         1.7976931348623157e308, 709.78, 709.782712893384, 710.0, -745.13, -745.1332191019412, -746.0,
         -708.4, 1024.0, 1023.99, -1074.0, -1075.0, -1022.5, 1e-300, 1e300, math.sqrt(2), 1 / math.sqrt(2),
         1 + 2 ** -52, 1 - 2 ** -53, math.log(2), -0.34657359, 0.34657359, math.pi, math.pi / 2,
         -math.pi / 4, 1647099.0, 1647100.0, 6381956970095103.0 * 2 ** 797, 1e22, 2 ** 1023, -1e300]
    v += [k * math.pi / 2 for k in range(-40, 40)] + [k * math.pi / 2 * (1 + 2 ** -52) for k in range(1, 40)]
    while len(v) < 2048:
        r = rng.random()
        if r < 0.3:
            v.append(rng.uniform(-750, 750))
        elif r < 0.5:
            v.append(rng.uniform(-1, 1))
        elif r < 0.7:
            v.append(math.ldexp(rng.random() + 0.5, rng.randint(-1074, 1023)))
        elif r < 0.85:
            v.append(rng.uniform(0.5, 2))
        elif r < 0.93:
            v.append(rng.uniform(-1100, 1100))
        else:
            v.append(math.copysign(math.ldexp(rng.random() + 0.5, rng.randint(0, 1023)), rng.random() - 0.5))
    return v[:2048]


def read(path):
    with open(path, "rb") as f:
        b = f.read()
    return struct.unpack("<%dd" % (len(b) // 8), b)


def want(fn, a):
    try:
        return {"exp": math.exp, "exp2": lambda t: 2.0 ** t, "log": math.log, "log2": math.log2, "sin": math.sin,
                "cos": math.cos}[fn](a)
    except OverflowError:
        return math.inf
    except ValueError:
        return -math.inf if a == 0 and fn.startswith("log") else math.nan


def pi_fraction(bits):
    def atan_inv(n, one):  # atan(1/n) * one, by its series
        s, t, k, sign = 0, one // n, 1, 1
        while t:
            s += sign * (t // k)
            t //= n * n
            k += 2
            sign = -sign
        return s
    one = 1 << bits
    return Fraction(16 * atan_inv(5, one) - 4 * atan_inv(239, one), one)


PIO2 = pi_fraction(3000) / 2


def exact_trig(fn, a):
    """sin or cos of a through an exact reduction: a = k pi/2 + y, |y| <= pi/4"""
    if math.isnan(a) or math.isinf(a):
        return math.nan
    if a == 0:
        return a if fn == "sin" else 1.0
    k = round(Fraction(a) / PIO2)
    y = float(Fraction(a) - k * PIO2)
    q = (k + (1 if fn == "cos" else 0)) % 4
    return [math.sin(y), math.cos(y), -math.sin(y), -math.cos(y)][q]


def ulps(g, w):
    if math.isnan(w) or math.isnan(g):
        return 0 if math.isnan(w) and math.isnan(g) else math.inf
    if math.isinf(w) or math.isinf(g) or w == 0 or g == 0:
        return 0 if g == w and math.copysign(1, g) == math.copysign(1, w) else math.inf
    return abs(g - w) / math.ulp(w)


if sys.argv[1] == "inputs":
    v = inputs()
    with open(sys.argv[2], "wb") as f:
        f.write(struct.pack("<%dd" % len(v), *v))
    sys.exit(0)
x = read(sys.argv[2])
exact = {fn: [exact_trig(fn, a) for a in x] for fn in ("sin", "cos")}
for dev in sys.argv[3:]:
    libm = dev.endswith("interp")
    for fn in ("exp", "exp2", "log", "log2", "sin", "cos"):
        got = read(dev + "." + fn)
        worst = 0
        for i, (a, g) in enumerate(zip(x, got)):
            w = exact[fn][i] if fn in exact and not libm else want(fn, a)
            u = ulps(g, w)
            if u > 2:
                print("%s: %s(%r) is %r, want %r (%g ulps)" % (dev, fn, a, g, w, u))
                sys.exit(1)
            worst = max(worst, u)
        print("%s %s: worst %g ulps" % (dev.rsplit(".", 1)[-1], fn, worst))
