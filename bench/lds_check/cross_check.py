#!/usr/bin/env python3
"""Cross-check of the loop model's LDS bank evaluator (report_lds.c, which reads the ISA) against the
compiler's own bank model (rkc --remarks, compiler/lower/lds_banks.c, which reads the layouts).

    bench/lds_check/cross_check.py BUILD [FILE.tile[:-D A=1 -D B=2]] ...

For each kernel of each file (default: examples/*.tile), both sides' LDS reads and writes with more
than one way, grouped by (read/write, ways): the remarks count accesses of each layout move ("K of
the M LDS reads ... meet in a bank"), the evaluator each LDS instruction of the code object
(ds_read2/write2: two accesses), from the kernel's entry, all of them, not only loops'. A kernel
agrees when the two groupings are equal; accesses the evaluator cannot follow are listed apart.
Exit 0 when every kernel agrees, 1 otherwise."""
import collections, glob, json, os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REMARK = re.compile(r"remark: (\d+)-way bank conflicts in LDS (reads|writes) in kernel (\S+): (\d+) of the (\d+)")


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    build = os.path.abspath(sys.argv[1])
    files = sys.argv[2:] or sorted(glob.glob(os.path.join(ROOT, "examples", "*.tile")))
    tmp = tempfile.mkdtemp(prefix="lds_check.")
    tool = os.path.join(tmp, "lds_ways")
    libs = [os.path.join(build, l) for l in ("librk_compiler.a", "librk_runtime.a", "librk_ir.a", "librk_support.a")]
    subprocess.run(["cc", "-O2", "-std=c11", "-I" + ROOT, "-I" + os.path.join(ROOT, "include"),
                    os.path.join(ROOT, "bench", "lds_check", "lds_ways.c"), "-o", tool, "-Wl,--start-group", *libs,
                    "-Wl,--end-group", "-L/usr/lib/llvm-22/lib", "-lLLVM", "-Wl,-rpath,/usr/lib/llvm-22/lib",
                    "-lpthread", "-ldl", "-lm"], check=True)
    objdump = "llvm-objdump-22"
    bad = 0
    for spec in files:
        path, _, defs = spec.partition(":")
        hsaco = os.path.join(tmp, "k.hsaco")
        r = subprocess.run([os.path.join(build, "rkc"), path, "--remarks", "-o", hsaco, *defs.split()],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{spec}: rkc failed: {r.stderr.strip()[:200]}")
            bad += 1
            continue
        remarks = collections.defaultdict(collections.Counter)
        for m in REMARK.finditer(r.stderr):
            remarks[m.group(3).rstrip(":")][(m.group(2), int(m.group(1)))] += int(m.group(4))
        rep = json.loads(subprocess.run([os.path.join(build, "rkc"), path, "--report=json", "-o", hsaco, *defs.split()],
                                        capture_output=True, text=True, check=True).stdout)
        dis = subprocess.run([objdump, "-d", "--no-show-raw-insn", hsaco], capture_output=True, text=True,
                             check=True).stdout
        bodies = {m.group(1): m.group(2) for m in re.finditer(r"^[0-9a-f]+ <([^>]+)>:\n(.*?)(?=^[0-9a-f]+ <|\Z)", dis,
                                                              re.S | re.M)}
        for k in rep["kernels"]:
            name = k["name"]
            src = os.path.join(tmp, "k.s")
            with open(src, "w") as f:
                f.write(bodies.get(name, ""))
            out = subprocess.run([tool, "--waves", str(max(1, k["workgroup_size"] // 64)), src], capture_output=True,
                                 text=True, check=True).stdout
            isa, unknown, total = collections.Counter(), 0, 0
            for line in out.splitlines():
                f = line.split()
                if f[1] == "unknown":
                    unknown += int(f[2])
                    continue
                total += int(f[3])
                if int(f[2]) > 1:
                    isa[("reads" if f[4].startswith(("ds_read", "ds_load")) else "writes", int(f[2]))] += int(f[3])
            want = remarks.get(name, collections.Counter())
            ok = isa == want
            bad += not ok
            fmt = lambda c: ", ".join(f"{n} {rw} {w}-way" for (rw, w), n in sorted(c.items())) or "none"
            print(f"{'agree' if ok else 'DIFFER'}  {os.path.relpath(path, ROOT)}{' ' + defs if defs else ''} {name}: "
                  f"remarks {fmt(want)}; isa {fmt(isa)} ({total} accesses known, {unknown} unknown)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
