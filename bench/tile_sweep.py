#!/usr/bin/env python3
"""tile_sweep: rk's AMD main loops over a sample of examples/matmul.tile's configurations, and what a
compiler change does to them.

A change to a lowering heuristic (an LDS map's measure, how far a dot reads ahead, what it carries)
moves some configurations and not others: bench/isa_snapshot.sh's 94 kernels and bench/vs_triton's
sweep (gfx942 only, two stages) see few of them. This compiles examples/matmul.tile with one rkc, or
two, at a deterministic sample of about one configuration in nine of gfx942/gfx90a/gfx950, tiles
BLOCK_M, BLOCK_N, BLOCK_K of 32 to 256, 2/4/8 warps, one to three stages, 16 and 32 wide MFMAs,
bf16 and f16, with and without `--assume 'a<2G b<2G c<2G'` (buffer addressing), and reads each
kernel's `--report=json`: the main loop's cycles by rk's loop model (the loop with the most
instructions), VGPRs, spills, waves a SIMD. With --unhinted, the same sample of
tests/run/kernels/dot.tile's `matmul` instead: a kernel written without hints (masked on M, N and K,
its strides run-time values, so 16-bit accesses), as ported kernels are.

    bench/tile_sweep.py [--unhinted] [--jobs N] [--every K] [--out FILE] RKC           # a results file
    bench/tile_sweep.py [--unhinted] [--jobs N] [--every K] [--out FILE] RKC_A RKC_B   # both, compared
    bench/tile_sweep.py --compare A.jsonl B.jsonl                                      # two results files

The comparison counts, per target, the configurations where both compile and neither spills: how
many B runs in fewer cycles, in more, and the geometric mean of B/A; then lists the slower (worst
first), and every configuration whose VGPR spills, waves or compile status changed, and how many spill
fewer or more SGPRs. Run it from any
directory; RKC paths are taken as given. Exit 0, 2 for a bad command line. The cycles are a model's
(no AMD GPU runs them): a change that the model calls faster is a prediction, not a measurement.
"""
import argparse
import concurrent.futures as cf
import hashlib
import itertools
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNEL = os.path.join(ROOT, "examples", "matmul.tile")
# --unhinted: the kernel, its name and the names of its tile sizes
UNHINTED = (os.path.join(ROOT, "tests", "run", "kernels", "dot.tile"), "matmul", ("BM", "BN", "BK"))
SWEPT = {"kernel": KERNEL, "name": None, "sizes": ("BLOCK_M", "BLOCK_N", "BLOCK_K")}
TARGETS = ["gfx942", "gfx90a", "gfx950"]
SIZES = [32, 64, 128, 256]


def configurations(every):
    """The sample: each configuration whose key hashes to 0 modulo `every` (stable across runs)."""
    out = []
    for tgt, bm, bn, bk, nw, ns, mi, t, assume in itertools.product(
            TARGETS, SIZES, SIZES, SIZES, (2, 4, 8), (1, 2, 3), (16, 32), ("bf16", "f16"), (0, 1)):
        key = f"{tgt} {bm}x{bn}x{bk} w{nw} s{ns} k{mi} {t}{' 2G' if assume else ''}"
        if int(hashlib.sha1(key.encode()).hexdigest()[:8], 16) % every == 0:
            out.append((key, tgt, bm, bn, bk, nw, ns, mi, t, assume))
    return out


def compile_one(rkc, cfg, tmp):
    key, tgt, bm, bn, bk, nw, ns, mi, t, assume = cfg
    out = os.path.join(tmp, hashlib.sha1((rkc + key).encode()).hexdigest()[:16] + ".hsaco")
    sm, sn, sk = SWEPT["sizes"]
    cmd = [rkc, SWEPT["kernel"], f"--target={tgt}", "-D", f"{sm}={bm}", "-D", f"{sn}={bn}", "-D", f"{sk}={bk}",
           "-D", f"num_warps={nw}", "-D", f"num_stages={ns}", "-D", f"matrix_instr_nonkdim={mi}", "-D", f"T={t}",
           "-o", out, "--report=json"]
    if assume:
        cmd += ["--assume", "a<2G b<2G c<2G"]
    if SWEPT["name"]:
        cmd += ["-k", SWEPT["name"]]
    r = {"key": key}
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        r["error"] = "timeout (300 s)"
        return r
    finally:
        if os.path.exists(out):
            os.unlink(out)
    if p.returncode != 0:
        lines = (p.stderr or "").strip().splitlines()
        r["error"] = lines[0][:200] if lines else f"exit {p.returncode}"
        return r
    try:
        k = json.loads(p.stdout)["kernels"][0]
    except (ValueError, KeyError, IndexError):
        r["error"] = "no report"
        return r
    loops = k.get("loops") or []
    main = max(loops, key=lambda l: l["instructions"]) if loops else None
    r.update(cycles=main["cycles"] if main else 0, vgprs=k["vgprs_total"], spills=k["vgpr_spills"],
             sgpr_spills=k["sgpr_spills"], waves=k["waves_per_simd"])
    return r


def run(rkc, jobs, every, path):
    cfgs = configurations(every)
    with tempfile.TemporaryDirectory(prefix="tile_sweep.") as tmp, cf.ThreadPoolExecutor(jobs) as ex:
        results = list(ex.map(lambda c: compile_one(rkc, c, tmp), cfgs))
    with open(path, "w") as f:
        for r in results:
            f.write(json.dumps(r) + "\n")
    print(f"{len(results)} configurations by {rkc}: {path}")
    return path


def load(path):
    with open(path) as f:
        return {r["key"]: r for r in map(json.loads, f)}


def compare(pa, pb, show):
    a, b = load(pa), load(pb)
    for tgt in TARGETS:
        keys = [k for k in a if k.startswith(tgt + " ") and k in b]
        same = [k for k in keys if "error" not in a[k] and "error" not in b[k] and a[k]["cycles"] > 0 and
                b[k]["cycles"] > 0 and a[k]["spills"] == 0 and b[k]["spills"] == 0]
        faster = [k for k in same if b[k]["cycles"] < a[k]["cycles"]]
        slower = sorted((k for k in same if b[k]["cycles"] > a[k]["cycles"]),
                        key=lambda k: -b[k]["cycles"] / a[k]["cycles"])
        gm = math.exp(sum(math.log(b[k]["cycles"] / a[k]["cycles"]) for k in same) / len(same)) if same else 1
        print(f"{tgt}: {len(same)} of {len(keys)} compile without spills on both sides: B faster in {len(faster)}, "
              f"slower in {len(slower)}, geomean B/A {gm:.4f}")
        for k in slower[:show]:
            print(f"    slower {b[k]['cycles'] / a[k]['cycles']:5.2f}  {a[k]['cycles']:>6} -> {b[k]['cycles']:<6} "
                  f"vgprs {a[k]['vgprs']} -> {b[k]['vgprs']}  {k}")
        for k in sorted(faster, key=lambda k: b[k]["cycles"] / a[k]["cycles"])[:show]:
            print(f"    faster {b[k]['cycles'] / a[k]['cycles']:5.2f}  {a[k]['cycles']:>6} -> {b[k]['cycles']:<6} "
                  f"vgprs {a[k]['vgprs']} -> {b[k]['vgprs']}  {k}")
        for k in keys:
            x, y = a[k], b[k]
            if ("error" in x) != ("error" in y):
                print(f"    compiles {'no' if 'error' in x else 'yes'} -> {'no' if 'error' in y else 'yes'}  {k}: "
                      f"{y.get('error') or x.get('error')}")
            elif "error" not in x and (x["spills"], x["waves"]) != (y["spills"], y["waves"]):
                print(f"    spills {x['spills']} -> {y['spills']}, waves {x['waves']} -> {y['waves']}, cycles "
                      f"{x['cycles']} -> {y['cycles']}  {k}")
        # SGPRs spill to VGPR lanes: cheaper than VGPRs, but each costs a v_writelane and v_readlane
        sg = [k for k in keys if "error" not in a[k] and "error" not in b[k] and "sgpr_spills" in a[k] and
              "sgpr_spills" in b[k] and a[k]["sgpr_spills"] != b[k]["sgpr_spills"]]
        if sg:
            print(f"    SGPRs spilled: fewer in {sum(b[k]['sgpr_spills'] < a[k]['sgpr_spills'] for k in sg)}, more in "
                  f"{sum(b[k]['sgpr_spills'] > a[k]['sgpr_spills'] for k in sg)}, in all "
                  f"{sum(a[k]['sgpr_spills'] for k in keys if 'error' not in a[k] and 'sgpr_spills' in a[k])} -> "
                  f"{sum(b[k]['sgpr_spills'] for k in keys if 'error' not in b[k] and 'sgpr_spills' in b[k])}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rkc", nargs="*", help="one or two rkc binaries")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"), help="compare two results files")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--every", type=int, default=9, help="sample one configuration in EVERY (default 9)")
    ap.add_argument("--out", default="tile_sweep", help="results file stem (default ./tile_sweep)")
    ap.add_argument("--show", type=int, default=10, help="slower and faster configurations listed per target")
    ap.add_argument("--unhinted", action="store_true", help="tests/run/kernels/dot.tile's matmul, written without hints")
    args = ap.parse_args()
    if args.unhinted:
        SWEPT.update(kernel=UNHINTED[0], name=UNHINTED[1], sizes=UNHINTED[2])
    if args.compare:
        if args.rkc:
            ap.error("--compare takes no rkc")
        compare(*args.compare, args.show)
        return 0
    if len(args.rkc) not in (1, 2) or args.every < 1 or args.jobs < 1:
        ap.error("give one or two rkc binaries (or --compare A B)")
    paths = [run(r, args.jobs, args.every, f"{args.out}.{'ab'[i]}.jsonl") for i, r in enumerate(args.rkc)]
    if len(paths) == 2:
        compare(*paths, args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
