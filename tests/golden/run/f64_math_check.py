"""f64_math.tile's inputs and checker. `inputs FILE` writes the 2,048 f64 inputs (fixed: specials, the
edges of exp's and exp2's range, subnormals, both sides of sqrt(2), random values from a seeded
generator); `check X PREFIX...` reads PREFIX.exp, .exp2, .log, .log2 of each device and compares them
with Python's math (the host libm): NaN for NaN, infinities and zeros exactly, everything else within 2
ulps. Exit 1 naming the first element out of bounds."""
import math
import random
import struct
import sys


def inputs():
    rng = random.Random(7)
    v = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 5e-324, 2.2250738585072014e-308,
         1.7976931348623157e308, 709.78, 709.782712893384, 710.0, -745.13, -745.1332191019412, -746.0,
         -708.4, 1024.0, 1023.99, -1074.0, -1075.0, -1022.5, 1e-300, 1e300, math.sqrt(2), 1 / math.sqrt(2),
         1 + 2 ** -52, 1 - 2 ** -53, math.log(2), -0.34657359, 0.34657359]
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
        else:
            v.append(rng.uniform(-1100, 1100))
    return v


def read(path):
    with open(path, "rb") as f:
        b = f.read()
    return struct.unpack("<%dd" % (len(b) // 8), b)


def want(fn, a):
    try:
        return {"exp": math.exp, "exp2": lambda t: 2.0 ** t, "log": math.log, "log2": math.log2}[fn](a)
    except OverflowError:
        return math.inf
    except ValueError:
        return -math.inf if a == 0 else math.nan


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
for dev in sys.argv[3:]:
    for fn in ("exp", "exp2", "log", "log2"):
        got = read(dev + "." + fn)
        worst = 0
        for i, (a, g) in enumerate(zip(x, got)):
            w = want(fn, a)
            u = ulps(g, w)
            if u > 2:
                print("%s: %s(%r) is %r, want %r (%g ulps)" % (dev, fn, a, g, w, u))
                sys.exit(1)
            worst = max(worst, u)
        print("%s %s: worst %g ulps" % (dev.rsplit(".", 1)[-1], fn, worst))
