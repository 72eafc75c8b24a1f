"""Checks maximum_num.tile's dumps: each device's maximum/minimum(propagate_nan = false) of the 64
pairs, and maximum(x, 0.5), against maximumNumber/minimumNumber written here (IEEE 754-2019: a NaN
operand gives the other, -0 below +0, two NaNs give NaN). Any NaN matches any NaN; zeros must match in
sign. Exit 1 naming the first wrong element."""
import math
import struct
import sys


def floats(path, n):
    with open(path, "rb") as f:
        return struct.unpack("<%df" % n, f.read(4 * n))


def ref(a, b, is_max):
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    if a == b:  # equal, or zeros of opposite signs: max takes the positive one
        return b if (math.copysign(1, a) < 0) == is_max else a
    return max(a, b) if is_max else min(a, b)


def same(u, v):
    if math.isnan(u) or math.isnan(v):
        return math.isnan(u) and math.isnan(v)
    return u == v and math.copysign(1, u) == math.copysign(1, v)


x, y = floats(sys.argv[1], 64), floats(sys.argv[2], 64)
want = [ref(a, b, True) for a, b in zip(x, y)] + [ref(a, b, False) for a, b in zip(x, y)]
want += [ref(a, 0.5, True) for a in x]
for path in sys.argv[3:]:
    got = floats(path, 192)
    for i, (g, w) in enumerate(zip(got, want)):
        if not same(g, w):
            print("%s: element %d is %r, want %r (x=%r y=%r)" % (path, i, g, w, x[i % 64], y[i % 64]))
            sys.exit(1)
print("ok: %d devices, 192 elements each" % (len(sys.argv) - 3))
