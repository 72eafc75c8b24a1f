#!/usr/bin/env python3
"""--roofline=FILE.svg (issue 22): the SVG is well-formed and self-contained (no script, no external
reference), and its point lies where the numbers of --advise=json say: the circle's centre, read back
through the axes' decade labels, gives the kernel's arithmetic intensity and the roofline's FLOP/s
within 1%. With --render, it is also drawn by headless Chromium into a PNG that must not be blank;
without Chromium that check exits 77 (skipped).

    check_svg.py RKC REPO_ROOT [--render]"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

rkc, root = sys.argv[1], sys.argv[2]
render = "--render" in sys.argv
NS = "{http://www.w3.org/2000/svg}"
tmp = tempfile.mkdtemp(prefix="rk-svg-")
svg = os.path.join(tmp, "mm.svg")
args = [root + "/examples/matmul.tile", "-k", "matmul", "M=2048", "N=2048", "K=2048", "lda=2048", "ldb=2048",
        "ldc=2048", "a=bf16[4194304]", "b=bf16[4194304]", "c=bf16[4194304]"]
j = json.loads(subprocess.run([rkc, "--advise=json", *args], check=True, capture_output=True, text=True).stdout)
subprocess.run([rkc, "--advise", *args, "--roofline=" + svg], check=True, capture_output=True)
text = open(svg).read()
bad = []
if "<script" in text or "href" in text or "@import" in text:
    bad.append("the SVG refers to something outside itself or holds a script")
tree = ET.fromstring(text)

def axis(anchor):
    """(pixel, exponent) pairs of the decade labels along one axis"""
    pts = []
    for t in tree.iter(NS + "text"):
        if t.get("text-anchor") == anchor and t.text and t.text.startswith("1e"):
            pts.append((float(t.get("x" if anchor == "middle" else "y")) - (0 if anchor == "middle" else 4),
                        float(t.text[2:])))
    return pts

def value(pts, px):
    (p0, e0), (p1, e1) = pts[0], pts[-1]
    return 10 ** (e0 + (px - p0) / (p1 - p0) * (e1 - e0))

xs, ys = axis("middle"), axis("end")
circles = list(tree.iter(NS + "circle"))
if len(xs) < 2 or len(ys) < 2 or len(circles) != 1:
    bad.append(f"axes or points missing: {len(xs)} x labels, {len(ys)} y labels, {len(circles)} points")
else:
    c = circles[0]
    intensity = value(xs, float(c.get("cx")))
    flops = value(ys, float(c.get("cy")))
    want_i = j["roofline"]["intensity"]
    want_f = j["work"]["flops"] / (j["roofline"]["bound_ms"] * 1e-3)
    print(f"point: intensity {intensity:.4g} (json {want_i:.4g}), {flops:.4g} FLOP/s (json {want_f:.4g})")
    if abs(math.log10(intensity / want_i)) > 0.005 or abs(math.log10(flops / want_f)) > 0.005:
        bad.append("the point is not where the numbers say")
if render:
    chrome = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not chrome:
        print("no chromium: the rendering check is skipped")
        sys.exit(77)
    png = os.path.join(tmp, "mm.png")
    subprocess.run([chrome, "--headless", "--no-sandbox", "--disable-gpu", "--screenshot=" + png,
                    "--window-size=740,500", "file://" + svg], capture_output=True, timeout=120)
    if not os.path.exists(png) or os.path.getsize(png) < 2000:
        bad.append("chromium drew no picture")
    else:
        print(f"rendered {png}: {os.path.getsize(png)} bytes")
for b in bad:
    print("FAIL:", b)
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if bad else 0)
