"""Sums up run.sh's sweep (VT_SET=sweep: cases.py's matmul over every tile both compilers can run).

  python3 sweep.py --raw out/raw.jsonl

One row per configuration: the main loop's cycles an iteration on each side by rk's loop cycle
model (report_loop.c, the same ruler for both code objects; Triton's LDS as it allocates it at
launch), rk's over Triton's, the matrix unit's utilisation, VGPR spills, waves per SIMD and the LDS
cycles that bank conflicts add an iteration, and the SIMD's bound: the cycles a SIMD spends an
iteration of one of its waves, at least one wave's iteration over the waves sharing the SIMD and at
least the matrix unit's busy cycles an iteration (optimistic: it takes the other waves to fill a
wave's stalls perfectly and counts no other shared unit; it is what more waves buy). Then the sum: in how many configurations rk's loop is
faster, the geometric mean of the ratios, the configurations where rk is slower (worst first) by the
first cause that fits (either side spills; rk holds fewer waves; rk's loop has more LDS bank conflict
cycles; other), the same by the SIMD's bound, and those where rk spills more or holds fewer waves. A configuration that either side failed to compile
is listed, not counted. Standard library only; exit 1 when a compile failed.
"""
import argparse
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cases  # noqa: E402
from table import kernel, load, main_loop  # noqa: E402


def side_figures(rec):
    """(cycles, utilisation, spills, waves/SIMD, conflict cycles, the SIMD's bound) of one side's main loop,
    or None."""
    k = kernel(rec)
    lp = main_loop(k) if k else None
    if not lp:
        return None
    banks = lp.get("banks") or {}
    waves = max(k["waves_per_simd"], 1)
    return (lp["cycles"], lp["mfma_utilisation"], k["vgpr_spills"] + k["sgpr_spills"], k["waves_per_simd"],
            banks.get("conflict_cycles", 0), max(lp["cycles"] / waves, lp["mfma_busy"]))


def slower_by(rows, col, what, causes):
    """The rows whose ratio in column `col` is above 1, worst first, each under the first cause that fits."""
    slower = sorted((r for r in rows if r[col] > 1.0), key=lambda r: -r[col])
    for name, fits in causes:
        mine = [r for r in slower if fits(r)]
        slower = [r for r in slower if not fits(r)]
        if mine:
            print(f"{what}, {name} ({len(mine)}): " + ", ".join(f"{r[0]} {r[col]:.2f}" for r in mine))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    args = ap.parse_args()
    res = load(args.raw)
    rows, failed = [], []
    for c in cases.SWEEP:
        r = res.get(c["id"])
        if r is None:
            continue
        f = {side: side_figures(r.get(side)) for side in ("rk", "triton")}
        if f["rk"] is None or f["triton"] is None:
            why = "; ".join(f"{side}: {(r.get(side) or {}).get('error', 'no main loop')[:160]}"
                            for side in ("rk", "triton") if f[side] is None)
            failed.append((c["id"], why))
            continue
        rows.append((c["id"], f["rk"], f["triton"], f["rk"][0] / f["triton"][0], f["rk"][5] / f["triton"][5]))
    print(f"{'configuration':34} {'rk cyc':>7} {'Triton':>7} {'rk/Tr':>6} {'busy rk/Tr':>11} "
          f"{'spills':>9} {'waves':>5} {'conflict cyc':>12} {'SIMD rk/Tr':>10}")
    for cid, rk, tr, ratio, simd in rows:
        print(f"{cid:34} {rk[0]:7d} {tr[0]:7d} {ratio:6.2f} {rk[1]:5.0%}/{tr[1]:<5.0%} {rk[2]:4d}/{tr[2]:<4d} "
              f"{rk[3]:2d}/{tr[3]:<2d} {rk[4]:6d}/{tr[4]:<5d} {simd:10.2f}")
    if rows:
        faster = sum(1 for r in rows if r[3] < 1.0)
        gmean = math.exp(sum(math.log(r[3]) for r in rows) / len(rows))
        print(f"\n{len(rows)} configurations: rk's main loop faster in {faster}, as fast in "
              f"{sum(1 for r in rows if r[3] == 1.0)}, slower in {sum(1 for r in rows if r[3] > 1.0)}; "
              f"geometric mean of rk/Triton {gmean:.2f}")
        causes = [("both sides spill", lambda r: r[1][2] > 0 or r[2][2] > 0),
                  ("fewer waves", lambda r: r[1][3] < r[2][3]),
                  ("more LDS bank conflict cycles", lambda r: r[1][4] > r[2][4]),
                  ("other", lambda r: True)]
        slower_by(rows, 3, "rk slower", causes)
        smean = math.exp(sum(math.log(r[4]) for r in rows) / len(rows))
        print(f"by the SIMD's bound: rk faster in {sum(1 for r in rows if r[4] < 1.0)}, as fast in "
              f"{sum(1 for r in rows if r[4] == 1.0)}, slower in {sum(1 for r in rows if r[4] > 1.0)}; "
              f"geometric mean {smean:.2f}")
        slower_by(rows, 4, "by the SIMD's bound rk slower", causes)
        more = [r for r in rows if r[1][2] > r[2][2]]
        if more:
            print("rk spills more: " + ", ".join(f"{r[0]} {r[1][2]}/{r[2][2]}" for r in more))
        fewer = [r for r in rows if r[1][3] < r[2][3]]
        if fewer:
            print("rk holds fewer waves: " + ", ".join(f"{r[0]} {r[1][3]}/{r[2][3]}" for r in fewer))
    for cid, why in failed:
        print(f"not compared: {cid}: {why}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
