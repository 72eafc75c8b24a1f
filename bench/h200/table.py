#!/usr/bin/env python3
"""The H200 benchmark's table: merges the TSV files of rk_bench (rk and the raw CUDA driver) and of
torch_triton.py (Triton and torch) into one markdown table, then the details of every measurement.

    python3 bench/h200/table.py RESULTS.tsv... [--out FILE.md]

Each TSV line: bench impl size config ms value unit err tol status ('#' lines carry notes such as the
device). Missing files are skipped, so a partial run still gives a table."""
import math
import sys

BENCHES = [
    ("matmul_4096", "matmul bf16"),
    ("matmul_8192", "matmul bf16"),
    ("attention", "attention fwd f16"),
    ("softmax", "softmax f32"),
    ("layernorm", "layernorm f32"),
    ("vecadd", "vecadd f32"),
    ("copy", "device-to-device copy"),
    ("launch_host", "launch, host time per call"),
    ("launch_gpu", "launch, GPU time per launch"),
    ("compile_matmul", "cold compile, matmul"),
    ("compile_attention", "cold compile, attention"),
    ("compile_softmax", "cold compile, softmax"),
    ("compile_layernorm", "cold compile, layernorm"),
    ("compile_vecadd", "cold compile, vecadd"),
]
LOWER_IS_BETTER = ("us", "ms")
IMPLS = [("rk", "rk"), ("triton", "Triton"), ("torch", "torch"), ("cuda", "CUDA driver")]


def read(paths):
    rows, notes = [], []
    for path in paths:
        try:
            with open(path) as f:
                for line in f:
                    line = line.rstrip("\n")
                    if not line:
                        continue
                    if line.startswith("#"):
                        notes.append(line.lstrip("# ").replace("\t", " "))
                        continue
                    p = line.split("\t")
                    if len(p) < 10:
                        continue
                    rows.append(dict(bench=p[0], impl=p[1], size=p[2], config=p[3], ms=float(p[4]),
                                     value=float(p[5]), unit=p[6], err=float(p[7]), tol=float(p[8]),
                                     status=p[9]))
        except OSError as e:
            notes.append(f"{path}: not read ({e.strerror})")
    return rows, notes


def fmt(v, unit):
    if v is None or v <= 0 or math.isnan(v):
        return "—"
    if unit == "us":
        return f"{v:.2f}"
    if unit == "ms":
        return f"{v:.0f}" if v >= 10 else f"{v:.1f}"
    return f"{v:.1f}" if v < 1000 else f"{v:.0f}"


def table(rows, notes):
    out = []
    triton = [n for n in notes if n.startswith("triton")]
    head = [h for _, h in IMPLS]
    head = [h + (" " + triton[0].split()[1].rstrip(",") if h == "Triton" and triton else "") for h in head]
    out.append("| benchmark | size | unit | " + " | ".join(head) + " | rk vs best other | rk config |")
    out.append("|---|---|---|" + "---|" * len(IMPLS) + "---|---|")
    known = [k for k, _ in BENCHES]
    extra = [(r["bench"], r["bench"]) for r in rows if r["bench"] not in known]
    for key, label in BENCHES + list(dict.fromkeys(extra)):
        mine = [r for r in rows if r["bench"] == key]
        if not mine:
            continue
        unit = mine[0]["unit"]
        size = next((r["size"] for r in mine if r["impl"] == "rk"), mine[0]["size"])
        best = {}
        for r in mine:
            if r["status"] != "ok" or r["value"] <= 0:
                continue
            old = best.get(r["impl"])
            if old is None or (r["value"] < old["value"] if unit in LOWER_IS_BETTER else r["value"] > old["value"]):
                best[r["impl"]] = r
        cells = [fmt(best[i]["value"], unit) if i in best else ("failed" if any(r["impl"] == i for r in mine) else "—")
                 for i, _ in IMPLS]
        others = [best[i]["value"] for i in ("triton", "torch", "cuda") if i in best]
        ratio = "—"
        if "rk" in best and others:
            lower = unit in LOWER_IS_BETTER
            o = min(others) if lower else max(others)
            ratio = f"{(o / best['rk']['value'] if lower else best['rk']['value'] / o):.2f}×"
        cfg = best["rk"]["config"] if "rk" in best else ""
        out.append(f"| {label} | {size} | {unit} | " + " | ".join(cells) + f" | {ratio} | {cfg} |")
    out.append("")
    out.append("Higher is better, except for the launch rows (microseconds) and the compile rows (milliseconds: "
               "source to PTX in process, the median over each side's variants or autotune configs; rk's on the "
               "build machine, ending at PTX, which the driver compiles at load; Triton's on the GPU machine's host, "
               "ending at a cubin, ptxas included). \"rk vs best other\" is rk's speed "
               "over the best of the other columns. Every output was checked against a float64 reference "
               "before its time counted (details below).")
    if notes:
        out.append("")
        out.extend(f"- {n}" for n in notes)
    out.append("")
    out.append("| benchmark | impl | size | config | median ms | value | max rel err (tol) | status |")
    out.append("|---|---|---|---|---|---|---|---|")
    order = {k: i for i, (k, _) in enumerate(BENCHES)}
    for r in sorted(rows, key=lambda r: (order.get(r["bench"], 99), r["impl"])):
        err = "—" if r["tol"] == 0 else f"{r['err']:.1e} ({r['tol']:.0e})"
        out.append(f"| {r['bench']} | {r['impl']} | {r['size']} | {r['config']} | {r['ms']:.4g} | "
                   f"{fmt(r['value'], r['unit'])} {r['unit']} | {err} | {r['status']} |")
    return "\n".join(out) + "\n"


def main(argv):
    paths, out = [], None
    i = 0
    while i < len(argv):
        if argv[i] == "--out" and i + 1 < len(argv):
            out = argv[i + 1]
            i += 2
        else:
            paths.append(argv[i])
            i += 1
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    text = table(*read(paths))
    sys.stdout.write(text)
    if out:
        with open(out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
