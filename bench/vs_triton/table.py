"""Prints bench/vs_triton's table from run.sh's raw results, and writes it into docs/performance.md.

  python3 table.py --raw out/raw.jsonl --triton-version V --runs N [--docs docs/performance.md]

Four tables: compile times; the code each compiler made (one rk row and one Triton row per case,
read from the code objects by the same ruler, hsaco_report); the main loop of each by rk's loop
cycle model (cycles per iteration, MFMA utilisation, the longest MFMA-free run, the idle cycles by
cause; the same ruler); and the issue's targets per case, with
the note of notes.tsv for each case that misses one. The docs section "rk against Triton on gfx942
(build machine)" is replaced in place, or appended when the file has none. Exit 1 when a case failed
to compile on either side (the table still prints). Standard library only.
"""
import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cases  # noqa: E402

SECTION = "## rk against Triton on gfx942 (build machine)"
WIDTHS = ["8", "16", "32", "64", "96", "128"]
SPEEDUP_TARGET = 20.0


def load(raw):
    """run.sh's records, one JSON object each (rk's reports span several lines)."""
    res = {}
    text = open(raw).read()
    dec = json.JSONDecoder()
    i = 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return res
        r, i = dec.raw_decode(text, i)
        res.setdefault(r["case"], {})[r["side"]] = r


def kernel(side):
    return side["report"]["kernels"][0] if side and "report" in side else None


def widths(d):
    """{"8": 0, ..., "128": 8} -> "128x8 16x64" (widest first), "-" when empty."""
    parts = [f"{w}x{d[w]}" for w in reversed(WIDTHS) if d.get(w)]
    return " ".join(parts) or "-"


def mem(k, kinds):
    out = {w: 0 for w in WIDTHS}
    for kind in kinds:
        for w in WIDTHS:
            out[w] += k[kind][w]
    return out


def mfma(k):
    if not k["mfma"]:
        return "-"
    return " ".join(f"{re.sub(r'^v_(mfma|smfmac)_f32_', '', m)} x{n}" for m, n in sorted(k["mfma"].items()))


def mem128(k):
    return sum(k[kind]["128"] for kind in ("global_loads", "global_stores", "buffer_loads", "buffer_stores"))


def narrow(k):
    return sum(k[kind][w] for kind in ("global_loads", "global_stores", "buffer_loads", "buffer_stores")
               for w in WIDTHS if w != "128")


def fmt_ms(x):
    return "-" if x is None else (f"{x:.0f}" if x >= 10 else f"{x:.1f}")


def ran(res):
    return [c for c in cases.CASES if c["id"] in res]


def med(xs):
    xs = list(xs)
    return statistics.median(xs) if xs else None


def compile_times(rk, tr):
    """The medians: rk's rkc wall and CPU, in-process first and warm and LLVM share; Triton's cold call
    wall and CPU, init, LLVM stages, process, cached."""
    t = {}
    if rk and "rkc" in rk:
        t["rk_wall"], t["rk_cpu"] = med(rk["rkc"]["wall_ms"]), med(rk["rkc"]["cpu_ms"])
    if rk and rk.get("inproc"):
        t["rk_first"] = rk["inproc"]["first"]["total"]
        t["rk_warm"] = rk["inproc"].get("median", {}).get("total")
        t["rk_llvm"] = rk["inproc"].get("llvm_pct")
    if tr and "runs" in tr:
        runs = tr["runs"]
        t["tr_wall"] = med(x["compile_ms"] for x in runs)
        t["tr_cpu"] = med(x["compile_cpu_ms"] for x in runs if "compile_cpu_ms" in x)
        t["tr_init"] = med(x["stages_ms"].get("init", 0) for x in runs if "stages_ms" in x)
        t["tr_llvm"] = med(sum(x["stages_ms"].get(k, 0) for k in ("llir", "amdgcn", "hsaco"))
                           for x in runs if "stages_ms" in x)
        t["tr_proc"] = med(tr.get("process_ms", []))
        t["tr_cached"] = med(x["cached_ms"] for x in runs)
    if t.get("tr_cpu") and t.get("rk_cpu"):
        t["ratio_cpu"] = t["tr_cpu"] / t["rk_cpu"]
    if t.get("tr_wall") and t.get("rk_wall"):
        t["ratio_wall"] = t["tr_wall"] / t["rk_wall"]
    return t


def ran(res):
    return [c for c in cases.CASES if c["id"] in res]


def compile_rows(res):
    rows = []
    for c in ran(res):
        r = res.get(c["id"], {})
        t = compile_times(r.get("rk"), r.get("triton"))
        g = lambda k: fmt_ms(t.get(k))
        x = lambda k: "-" if t.get(k) is None else f"{t[k]:.1f}x"
        rows.append([c["id"], g("rk_wall"), g("rk_cpu"), g("rk_first"), g("rk_warm"),
                     "-" if t.get("rk_llvm") is None else f"{t['rk_llvm']:.0f}%",
                     g("tr_wall"), g("tr_cpu"), g("tr_init"), g("tr_llvm"), g("tr_proc"), g("tr_cached"),
                     "n/a (cache: issue 6)", x("ratio_cpu"), x("ratio_wall")])
    head = ["case", "rk rkc", "rk rkc CPU", "rk 1st", "rk warm", "rk LLVM", "Triton cold", "Triton CPU",
            "Triton init", "Triton LLVM", "Triton process", "Triton cached", "rk cached", "Triton/rk CPU",
            "Triton/rk wall"]
    return head, rows


def code_rows(res):
    """Two tables: resources, and the instruction mix."""
    rows, mix = [], []
    for c in ran(res):
        r = res.get(c["id"], {})
        for side in ("rk", "triton"):
            s = r.get(side)
            k = kernel(s)
            if k is None:
                err = s["error"] if s and "error" in s else "not run"
                rows.append([c["id"] if side == "rk" else "", side, "FAILED"] + [""] * 7)
                mix.append([c["id"] if side == "rk" else "", side, "FAILED"] + [""] * 8)
                continue
            gl, gs = widths(mem(k, ["global_loads"])), widths(mem(k, ["global_stores"]))
            bl, bs = widths(mem(k, ["buffer_loads"])), widths(mem(k, ["buffer_stores"]))
            name = c["id"] if side == "rk" else ""
            rows.append([name, side, str(k["vgprs"]), str(k["agprs"]), str(k["sgprs"]),
                         f"{k['vgpr_spills']}/{k['sgpr_spills']}", str(k["scratch_bytes"]), str(k["lds_bytes"]),
                         f"{k['waves_per_simd']} ({k['limiter']})", mfma(k)])
            mix.append([name, side, gl, gs, bl, bs, widths(k["lds_reads"]), widths(k["lds_writes"]),
                        str(k["waitcnt"]), str(k["loop_instructions"]), str(k["instructions"])])
    head = ["case", "side", "VGPR", "AGPR", "SGPR", "spill v/s", "scratch B", "LDS B", "waves/SIMD", "MFMA"]
    mhead = ["case", "side", "global ld", "global st", "buffer ld", "buffer st", "LDS rd", "LDS wr", "waitcnt",
             "loop instrs", "all instrs"]
    return (head, rows), (mhead, mix)


STALLS = ["vmcnt", "lgkmcnt", "lds", "barrier", "valu", "salu", "other"]


def main_loop(k):
    """The cycle model's figures for the kernel's largest loop (rk's report, report_loop.c), or None."""
    loops = k.get("loops") or []
    return max(loops, key=lambda l: l["instructions"]) if loops else None


def banks(lp):
    """The loop's LDS accesses by the bank evaluator (report_lds.c): known, conflicted with the worst
    ways and the LDS cycles they add an iteration, unknown."""
    b = lp.get("banks")
    if not b or not (b["known"] or b["unknown"]):
        return "-"
    text = f"{b['known']} known"
    if b["conflicted"]:
        text += f", {b['conflicted']} conflicted ({b['worst_ways']}-way, +{b['conflict_cycles']} cyc)"
    if b["unknown"]:
        text += f", {b['unknown']} unknown"
    return text


def model_rows(res):
    """One row per side: the main loop by the cycle model, and rk's cycles over Triton's."""
    rows = []
    for c in ran(res):
        r = res.get(c["id"], {})
        ks = {side: kernel(r.get(side)) for side in ("rk", "triton")}
        ls = {side: main_loop(k) if k else None for side, k in ks.items()}
        # the same number of loops on both sides (layernorm: mean, variance, output; each runs once per
        # block of the row): the kernel's figure is their sum, and each pair compared in order
        lists = {side: (k.get("loops") or []) if k else [] for side, k in ks.items()}
        paired = len(lists["rk"]) > 1 and len(lists["rk"]) == len(lists["triton"])
        total = {side: sum(l["cycles"] for l in lists[side]) for side in lists}
        for side in ("rk", "triton"):
            name = c["id"] if side == "rk" else ""
            k, lp = ks[side], ls[side]
            if k is None:
                rows.append([name, side, "FAILED"] + [""] * 7)
                continue
            if lp is None:
                rows.append([name, side, "no loop"] + [""] * 7)
                continue
            ratio, cycles, nloops = "", str(lp["cycles"]), str(len(lists[side]))
            if paired:
                cycles = f"{total[side]} (all {len(lists[side])})"
                if side == "rk" and total["triton"]:
                    ratio = f"{total['rk'] / total['triton']:.2f}"
                    nloops += " (" + " ".join(f"{a['cycles'] / b['cycles']:.2f}" if b["cycles"] else "-"
                                              for a, b in zip(lists["rk"], lists["triton"])) + ")"
            elif side == "rk" and ls["triton"] and ls["triton"]["cycles"]:
                ratio = f"{lp['cycles'] / ls['triton']['cycles']:.2f}"
            rows.append([name, side, str(lp["instructions"]), cycles, ratio,
                         f"{100 * lp['mfma_utilisation']:.0f}% ({lp['mfma']})", str(lp["mfma_free"]),
                         " ".join(f"{s} {lp['stalls'][s]}" for s in STALLS if lp["stalls"].get(s)) or "-",
                         banks(lp), nloops])
    head = ["case", "side", "loop instrs", "cycles/iter", "rk/Triton", "MFMA busy (MFMAs)", "MFMA-free",
            "idle cycles by cause", "LDS banks", "loops"]
    return head, rows


def load_notes():
    notes = []
    path = os.path.join(HERE, "notes.tsv")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    pat, target, text = line.rstrip("\n").split("\t", 2)
                    notes.append((re.compile(pat), target, text))
    return notes


def verdicts(res):
    """Per case: the targets missed, and the notes that explain them (notes.tsv: a case-id regex, a
    target -- compile, spills, scratch, mem128, occupancy, narrow, or remark for a note shown
    whether or not a target is missed -- and the text)."""
    notes = load_notes()
    out = []
    failed = False
    for c in ran(res):
        r = res.get(c["id"], {})
        rk, tr = r.get("rk"), r.get("triton")
        kr, kt = kernel(rk), kernel(tr)
        if kr is None or kt is None:
            failed = True
            who, s = ("rk", rk) if kr is None else ("Triton", tr)
            err = s.get("error", "not run") if s else "not run"
            out.append((c["id"], [f"{who} failed: {err.strip()}"], c["note"], []))
            continue
        miss = []
        t = compile_times(rk, tr)
        ratio = t.get("ratio_cpu") or t.get("ratio_wall")
        if ratio is None or ratio < SPEEDUP_TARGET:
            miss.append(("compile", "compile " + ("not timed" if ratio is None else f"{ratio:.1f}x faster (CPU time)")
                         + f", not {SPEEDUP_TARGET:.0f}x"))
        if kr["vgpr_spills"] + kr["sgpr_spills"] > kt["vgpr_spills"] + kt["sgpr_spills"]:
            miss.append(("spills", f"spills {kr['vgpr_spills'] + kr['sgpr_spills']} > "
                                   f"{kt['vgpr_spills'] + kt['sgpr_spills']}"))
        if kr["scratch_bytes"] > kt["scratch_bytes"]:
            miss.append(("scratch", f"scratch {kr['scratch_bytes']} B > {kt['scratch_bytes']} B"))
        if mem128(kr) < mem128(kt):
            miss.append(("mem128", f"128-bit global/buffer ops {mem128(kr)} < {mem128(kt)}"))
        if kr["waves_per_simd"] < kt["waves_per_simd"]:
            miss.append(("occupancy", f"occupancy {kr['waves_per_simd']} < {kt['waves_per_simd']} waves/SIMD"))
        extra = []
        if narrow(kr) > narrow(kt):
            extra.append(("narrow", f"also: {narrow(kr)} global/buffer ops narrower than 128 bits, Triton {narrow(kt)}"))
        whys = []
        for target, _ in miss + extra + [("remark", "")]:
            for pat, t, text in notes:
                if t == target and pat.search(c["id"]) and text not in whys:
                    whys.append(text)
        out.append((c["id"], [m for _, m in miss] + [m for _, m in extra], c["note"], whys))
    return out, failed


def number_notes(vs):
    """Each distinct note once, numbered in order of first use."""
    numbered = {}
    for _, _, _, whys in vs:
        for w in whys:
            numbered.setdefault(w, len(numbered) + 1)
    return numbered


def text_table(head, rows):
    w = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    line = lambda r: "  ".join(str(x).ljust(w[i]) for i, x in enumerate(r)).rstrip()
    return "\n".join([line(head), line(["-" * n for n in w])] + [line(r) for r in rows])


def md_table(head, rows):
    esc = lambda x: str(x).replace("|", "\\|")
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(" --- " for _ in head) + "|"]
    out += ["| " + " | ".join(esc(x) for x in r) + " |" for r in rows]
    return "\n".join(out)


def machine(tv):
    llvm = "22"
    try:
        llvm = subprocess.run(["/usr/lib/llvm-22/bin/llvm-config", "--version"], capture_output=True,
                              text=True).stdout.strip() or llvm
    except OSError:
        pass
    deb = ""
    try:
        deb = " " + open("/etc/debian_version").read().strip().split(".")[0]
    except OSError:
        pass
    return (f"build machine: {os.cpu_count()}-core {platform.machine().replace('_', '-')}, Debian{deb}, "
            f"LLVM {llvm}, Triton {tv}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--triton-version", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--docs")
    ap.add_argument("--command", default="bench/vs_triton/run.sh", help="the command line the docs record")
    a = ap.parse_args()
    res = load(a.raw)
    ch, cr = compile_rows(res)
    (qh, qr), (xh, xr) = code_rows(res)
    mh, mr = model_rows(res)
    vs, failed = verdicts(res)
    when = datetime.date.today().isoformat()
    mach = machine(a.triton_version)

    print(f"\nrk against Triton on gfx942 -- {when}, {mach}\n")
    print(f"Compile time, ms (median of {a.runs}; cold = fresh process and empty cache; Triton/rk: cold "
          "over rkc)\n")
    print(text_table(ch, cr))
    print("\nResources, read from each code object by rk's report (spills VGPR/SGPR; waves per SIMD and "
          "what limits it)\n")
    print(text_table(qh, qr))
    print("\nInstruction mix (memory operations as bits x count; instructions in the main loop and in all)\n")
    print(text_table(xh, xr))
    print("\nMain loop by rk's cycle model (report_loop.c; gfx942, the waves of one SIMD, estimated latencies): "
          "cycles per steady-state iteration (the same number of loops on both sides: all of them, summed), rk over "
          "Triton, the matrix unit's busy share, the longest MFMA-free run of "
          "instructions, the idle cycles by cause, loops in the kernel (and rk over Triton loop by loop)\n")
    print(text_table(mh, mr))
    print("\nTargets (compile >= 20x faster in CPU time; spills, scratch <= Triton's; 128-bit global/buffer ops >= "
          "Triton's; occupancy >= Triton's)\n")
    numbered = number_notes(vs)
    for cid, miss, note, whys in vs:
        refs = ", ".join(f"N{numbered[w]}" for w in whys)
        print(f"  {cid}: " + ("; ".join(miss) if miss else "all met") + (f"  [{note}]" if note else "")
              + (f"  (notes {refs})" if refs else ""))
    if numbered:
        print("\nNotes: why, and what in rk would fix it\n")
        for w, n in numbered.items():
            print(f"  N{n}. {w}\n")

    if a.docs:
        write_docs(a, when, mach, ch, cr, qh, qr, xh, xr, mh, mr, vs)
    return 1 if failed else 0


def write_docs(a, when, mach, ch, cr, qh, qr, xh, xr, mh, mr, vs):
    lines = [SECTION, "",
             f"**{when}**, {mach}. The machine is shared with other builds, so compile times move with "
             f"their load; the code columns do not.", "",
             "```", a.command, "```", "",
             "What is compared: the same kernels written for both (bench/vs_triton/kernels/*.tile and "
             "bench/vs_triton/triton_side.py: Triton's matmul, fused-softmax, layer-norm and "
             "fused-attention tutorials; softmax and layer norm one row per program, attention "
             "non-causal), with the same tile sizes, num_warps, num_stages, matrix_instr_nonkdim and "
             "waves_per_eu 0. Triton gets what its JIT derives for 16-byte-aligned tensors whose sizes "
             "and strides are multiples of 16 (tt.divisibility 16 on pointers and integers, unit "
             "strides as the constant 1, and tt.pointer_range 32 on pointers, which its JIT adds on AMD "
             "for tensors under 2 GiB); rk gets the same divisibility through multiple_of, and "
             "x<2G on every pointer through --assume (its buffer loads and stores). Both code "
             "objects are read by rk's own report (bench/vs_triton/hsaco_report.c); Triton's LDS is "
             "what it asks for at launch (its code objects declare none), and its occupancy is "
             "computed with it.", "",
             f"### Compile time, ms (median of {a.runs})", "",
             "rk rkc: `rkc` end to end (process start, loading libLLVM, compile, ld.lld), wall-clock and "
             "CPU time (user + system, ld.lld included). rk 1st / rk warm: the driver in one process "
             "(bench/vs_triton/rk_time.c), the first compile and the median of the next ones; rk LLVM: "
             "the share of LLVM's optimisation, code generation and link in that. Triton cold: the "
             "`triton.compile` call in a fresh process with an empty cache (`import triton` not "
             "included), wall-clock and CPU time (all threads); Triton init: its first part, from the "
             "Python AST to TTIR with the one-time set-up of the process (MLIR context, dialects, the "
             "code generator), as Triton's compilation listener times it; Triton LLVM: its llir, amdgcn "
             "and hsaco stages (MLIR to LLVM IR, LLVM's optimisation and code generation, assembling "
             "and linking); Triton process: the whole fresh process, Python start and import included; "
             "Triton cached: the same call again with the cache warm. Triton/rk: Triton cold over rk "
             "rkc, in CPU time (the target is judged on it: other builds share the machine, and "
             "wall-clock times moved by 2x between runs of this table) and in wall-clock time.", "",
             md_table(ch, cr), "",
             "### Code, read from each code object", "",
             "spill v/s: VGPR/SGPR spills; waves/SIMD with what limits it.", "",
             md_table(qh, qr), "",
             "Memory operations as bits x count; instructions in the main loop (the largest backward "
             "branch) and in the whole kernel.", "",
             md_table(xh, xr), "",
             "### Main loops by the cycle model", "",
             "rk's loop cycle model (`rkc --report`, compiler/target/amdgpu/report_loop.c, docs/internals.md \"The "
             "loop cycle model\") on each kernel's largest loop, the same ruler for both sides (a kernel with "
             "the same number of loops on both sides, each run once per block, as layernorm's mean, variance "
             "and output: the sum of its loops' cycles, compared as a whole and loop by loop in the last "
             "column): cycles per "
             "steady-state iteration of the waves of one SIMD, which share its VALU and matrix unit (2 of a "
             "workgroup of 8 waves, 1 of 4; estimated latencies: global 500 cycles, LDS 64, LDS 128 "
             "B/clk per CU shared by the workgroup's waves), rk's over Triton's, the share of those cycles "
             "the matrix unit is busy (and the loop's MFMAs), the longest run of instructions without an "
             "MFMA (across the back edge), the cycles the matrix unit is idle by what the wave finishing last was doing "
             "(waiting on vmcnt, lgkmcnt, LDS bandwidth, a barrier; issuing VALU, SALU, other), the loop's "
             "LDS reads and writes by the bank evaluator (addresses found from the ISA: known, conflicted with "
             "the worst ways and the LDS cycles the conflicts add, unknown and not charged), and how many "
             "loops the kernel has. Estimates for ranking code, not measurements: no AMD GPU ran them.", "",
             md_table(mh, mr), "",
             "### Targets and why rk misses them", "",
             "Targets (issue 10): rk's cold compile at least 20x faster than Triton's; no more spills "
             "or scratch; at least as many 128-bit global/buffer operations; at least Triton's "
             "occupancy. \"also\" lines are not targets but matter as much.", ""]
    numbered = number_notes(vs)
    for cid, miss, note, whys in vs:
        refs = ", ".join(f"N{numbered[w]}" for w in whys)
        lines.append(f"- **{cid}**: " + ("; ".join(miss) if miss else "all met") + (f" ({note})" if note else "")
                     + (f" — notes {refs}" if refs else ""))
    if numbered:
        lines += ["", "Notes, from reading both disassemblies (bench/vs_triton/notes.tsv):", ""]
        lines += [f"- **N{n}.** {w}" for w, n in numbered.items()]
    lines += ["", "### sm_90 (NVIDIA H100)", "",
              "rk's NVIDIA target is measured on the GPU itself, against Triton and torch: the next section "
              "(bench/h200).", ""]
    text = open(a.docs).read() if os.path.exists(a.docs) else "# Performance figures\n"
    section = "\n".join(lines)
    i = text.find(SECTION)
    if i >= 0:
        j = text.find("\n## ", i + len(SECTION))
        text = text[:i] + section + ("\n" + text[j + 1:] if j >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    with open(a.docs, "w") as f:
        f.write(text)


if __name__ == "__main__":
    sys.exit(main())
