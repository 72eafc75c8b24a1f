"""Compares rk's loop cycle model with llvm-mca-22 on loops where llvm-mca is right: no global loads.

  python3 bench/loop_mca/compare.py LOOP_MODEL [ISA_DIR]

LOOP_MODEL: the loop_model tool (bench/loop_mca/loop_model.c, built by run.sh). ISA_DIR: the
disassembly of bench/vs_triton (its out/isa/, llvm-objdump-22 -d output of rk's and Triton's code
objects), optional. The loops: hand-written bodies (below), and the main loop of each vs_triton
kernel with its VMEM instructions (global_, buffer_, flat_, scratch_) and its vmcnt waits taken out,
since llvm-mca 22 charges FLAT-encoded loads (global_load) to lgkmcnt, which the hardware does not.
Each is measured by llvm-mca-22 -mtriple=amdgcn -mcpu=gfx942 -iterations=100 (total cycles / 100,
times 4: llvm-mca's AMDGPU models count one cycle per issue, 4 clocks of a wave64 on a 16-lane SIMD,
and MFMA passes, 4 clocks each), and by the model twice: with llvm-mca's latencies (LDS 20 cycles,
scalar loads 20, s_barrier 4, the LDS's bandwidth unlimited) and one wave alone on its SIMD, as
llvm-mca models it, and with its own defaults (an 8-wave workgroup's two waves sharing a SIMD). Prints one
line per loop (for the vs_triton loops also llvm-mca on the whole loop, VMEM included: "mca full",
where its lgkmcnt error shows) and, per vs_triton case, whether rk's loop and Triton's rank the same
way. Standard
library only; llvm-mca-22 from PATH or /usr/lib/llvm-22/bin.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

MCA = shutil.which("llvm-mca-22") or "/usr/lib/llvm-22/bin/llvm-mca"
MATCHED = ["--lds", "20", "--smem", "20", "--barrier", "4", "--lds-bw", "1000000", "--simd-waves", "1"]

M16 = "v_mfma_f32_16x16x16_bf16 v[{0}:{1}], v[64:65], v[66:67], v[{0}:{1}]"
M32 = "v_mfma_f32_32x32x8_bf16 a[{0}:{1}], v[64:65], v[66:67], a[{0}:{1}]"
V = "v_add_f32_e32 v{0}, v{1}, v{2}"
BR = "s_cbranch_scc1 65520"


def m16(i):
    return M16.format(4 * i, 4 * i + 3)


def m32(i):
    return M32.format(16 * (i % 4), 16 * (i % 4) + 15)


HAND = {
    "4 mfma 16x16x16": [m16(i) for i in range(4)] + [BR],
    "4 mfma 32x32x8 + 12 valu": sum(([m32(i)] + [V.format(100 + j, 110, 111) for j in range(3)] for i in range(4)), [])
    + [BR],
    "4 mfma 16x16x16 + 16 valu": sum(([m16(i)] + [V.format(100 + j, 110, 111) for j in range(4)] for i in range(4)), [])
    + [BR],
    "20 valu": [V.format(100 + j % 8, 110, 111) for j in range(20)] + [BR],
    "8 valu + 8 salu": [V.format(100 + j, 110, 111) for j in range(8)] + ["s_add_u32 s0, s1, s2"] * 8 + [BR],
    "lds read, wait, 8 mfma": ["ds_read_b128 v[{}:{}], v90".format(40 + 4 * j, 43 + 4 * j) for j in range(4)]
    + ["s_waitcnt lgkmcnt(0)"] + [m16(i) for i in range(8)] + [BR],
    "8 mfma, lds read, wait at end": [m16(i) for i in range(8)]
    + ["ds_read_b128 v[{}:{}], v90".format(40 + 4 * j, 43 + 4 * j) for j in range(4)] + ["s_waitcnt lgkmcnt(0)", BR],
    "mfma then its reader": [m16(0), "v_add_f32_e32 v100, v0, v1", BR],
    "lds write, barrier, read": ["ds_write_b128 v91, v[40:43]", "s_waitcnt lgkmcnt(0)", "s_barrier",
                                 "ds_read_b128 v[44:47], v90", "s_waitcnt lgkmcnt(0)", m16(0), BR],
}


def mca_cycles(lines):
    with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    try:
        out = subprocess.run([MCA, "-mtriple=amdgcn", "-mcpu=gfx942", "-iterations=100", path], capture_output=True,
                             text=True).stdout
    finally:
        os.unlink(path)
    m = re.search(r"Total Cycles:\s+(\d+)", out)
    return 4 * int(m.group(1)) / 100 if m else None


def model(tool, lines, extra):
    with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    try:
        out = subprocess.run([tool] + extra + [path], capture_output=True, text=True).stdout
    finally:
        os.unlink(path)
    return json.loads(out) if out.strip() else None


INSN = re.compile(r"^\s+(\S.*?)\s*//\s*([0-9A-Fa-f]+):")
SYM = re.compile(r"^([0-9A-Fa-f]+) <([^>]+)>:")
TARGET = re.compile(r"<([^>+]+)\+0x([0-9a-fA-F]+)>")


def main_loop(path):
    """The largest loop of the llvm-objdump listing: (lines, waves), or None."""
    insns, syms = [], {}
    for line in open(path):
        s = SYM.match(line)
        if s:
            syms[s.group(2)] = int(s.group(1), 16)
            continue
        m = INSN.match(line)
        if m:
            insns.append((int(m.group(2), 16), m.group(1).strip(), line))
    best = None
    for i, (addr, text, line) in enumerate(insns):
        if not re.match(r"s_(c)?branch", text):
            continue
        t = TARGET.search(line)
        if not t or t.group(1) not in syms:
            continue
        target = syms[t.group(1)] + int(t.group(2), 16)
        if target > addr:
            continue
        lo = next(j for j, x in enumerate(insns) if x[0] >= target)
        body = [x[1] for x in insns[lo:i + 1]]
        if any(b.startswith("s_endpgm") for b in body):
            continue
        if best is None or len(body) > len(best):
            best = body
    return best


def strip_vmem(lines):
    out = []
    for l in lines:
        if re.match(r"(global|buffer|flat|scratch)_", l):
            continue
        if l.startswith("s_waitcnt"):
            l = re.sub(r"\s*vmcnt\(\d+\)", "", l)
            if l.strip() == "s_waitcnt" or not re.search(r"cnt\(", l):
                continue
        out.append(l)
    return out


def row(name, lines, tool, waves, full=None):
    mca = mca_cycles(lines)
    mm = model(tool, lines, ["--waves", str(waves)] + MATCHED)
    md = model(tool, lines, ["--waves", str(waves)])
    return name, len(lines), mca, mm and mm["cycles"], md and md["cycles"], full and mca_cycles(full)


def fmt(r):
    name, n, mca, mm, md, full = r
    ratio = f"{mm / mca:.2f}" if mca and mm else "-"
    dash = lambda x: "-" if x is None else x
    return f"{name:<52} {n:>5} {dash(mca):>9} {dash(mm):>9} {ratio:>6} {dash(md):>9} {dash(full):>9}"


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    tool, isa = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None
    print(f"{'loop':<52} {'instr':>5} {'llvm-mca':>9} {'model=mca':>9} {'ratio':>6} {'model':>9} {'mca full':>9}")
    rows = [row(name, lines, tool, 4) for name, lines in HAND.items()]
    for r in rows:
        print(fmt(r))
    if not isa:
        return 0
    agree = total = 0
    cases = sorted({f[:-len(".rk.s")] for f in os.listdir(isa) if f.endswith(".rk.s")})
    for case in cases:
        got = {}
        for side in ("rk", "triton"):
            p = os.path.join(isa, f"{case}.{side}.s")
            body = main_loop(p) if os.path.exists(p) else None
            if not body:
                print(f"{case + ' ' + side:<52} no loop")
                continue
            waves = int(m.group(1)) if (m := re.search(r"_w(\d+)", case)) else 4
            r = row(f"{case} {side}", strip_vmem(body), tool, waves, body)
            got[side] = r
            print(fmt(r))
        if len(got) == 2 and all(got[s][2] and got[s][3] for s in got):
            total += 1
            same = (got["rk"][2] > got["triton"][2]) == (got["rk"][3] > got["triton"][3]) or \
                got["rk"][2] == got["triton"][2]
            agree += same
            if not same:
                print(f"  ^ ranks differ: llvm-mca {got['rk'][2]} vs {got['triton'][2]}, "
                      f"model {got['rk'][3]} vs {got['triton'][3]}")
    print(f"\nrk vs Triton ranked the same way by llvm-mca and the model (llvm-mca's latencies): {agree} of {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
