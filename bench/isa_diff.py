"""isa_diff.py: compares two snapshots of bench/isa_snapshot.sh, kernel by kernel.

    python3 bench/isa_diff.py BEFORE_DIR AFTER_DIR

Prints each kernel whose quality figures changed (VGPRs, AGPRs, SGPRs, spills, scratch, LDS,
occupancy, instruction count, MFMAs, global/LDS/scratch access widths, s_waitcnt count, and each
loop's figures from the cycle model: its cycles per iteration are worse when higher), with the
direction, and counts the kernels whose assembly text is identical. Exits 1 when any figure got worse."""
import json, os, re, sys

BETTER_LOW = ["vgprs", "agprs", "sgprs", "vgpr_spills", "sgpr_spills", "scratch_bytes", "instructions", "waitcnt",
              "lds_bytes", "cycles"]


def flat(d, pre=""):
    out = {}
    if isinstance(d, dict):
        for k, v in d.items():
            out.update(flat(v, f"{pre}{k}."))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            out.update(flat(v, f"{pre}{i}."))
    else:
        out[pre[:-1]] = d
    return out


def load(dirname, name):
    try:
        with open(os.path.join(dirname, name)) as f:
            return json.load(f)
    except Exception:
        return None


def asm_body(path):
    try:
        with open(path) as f:
            t = f.read()
    except OSError:
        return None
    return t


def main():
    a, b = sys.argv[1], sys.argv[2]
    worse = same_asm = total = 0
    for name in sorted(os.listdir(a)):
        if not name.endswith(".json"):
            continue
        total += 1
        ja, jb = load(a, name), load(b, name)
        if ja is None or jb is None:
            print(f"{name}: report missing ({'before' if ja is None else 'after'})")
            worse += jb is None
            continue
        fa, fb = flat(ja), flat(jb)
        diffs = []
        for k in sorted(set(fa) | set(fb)):
            if re.search(r"(time|_ms|ms$|seconds|path|file|hash)", k):
                continue
            va, vb = fa.get(k), fb.get(k)
            if va != vb:
                leaf = k.split(".")[-1]
                tag = ""
                if isinstance(va, (int, float)) and isinstance(vb, (int, float)):
                    if leaf in BETTER_LOW or any(leaf.startswith(x) for x in BETTER_LOW):
                        tag = " WORSE" if vb > va else " better"
                        worse += vb > va
                    elif "waves" in leaf or "occupancy" in leaf:
                        tag = " WORSE" if vb < va else " better"
                        worse += vb < va
                diffs.append(f"  {k}: {va} -> {vb}{tag}")
        sa, sb = asm_body(os.path.join(a, name[:-5] + ".s")), asm_body(os.path.join(b, name[:-5] + ".s"))
        same = sa is not None and sa == sb
        same_asm += same
        if diffs:
            print(f"{name[:-5]}:" + ("" if same else " (assembly differs)"))
            print("\n".join(diffs))
        elif not same:
            print(f"{name[:-5]}: same figures, assembly differs")
    print(f"{total} kernels, {same_asm} with identical assembly, {worse} figures worse")
    sys.exit(1 if worse else 0)


main()
