#!/usr/bin/env python3
"""rkc --advise=json on the examples (issue 22): the top limiter is the one first principles name, and
the occupancy it reports is the one ROCm's MI300X workload guide's procedure gives from the same code
object's VGPRs and LDS (rkc --report=json), on a table of kernels and configs.

    check_advise.py RKC REPO_ROOT
Exits 1 with the differences when a case fails."""
import json
import subprocess
import sys

rkc, root = sys.argv[1], sys.argv[2]
E = root + "/examples/"
bad = []

def advise(*args):
    out = subprocess.run([rkc, "--advise=json", *args], capture_output=True, text=True)
    if out.returncode != 0:
        bad.append(f"rkc --advise {' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
        return None
    return json.loads(out.stdout)

M = 4096
# (what, arguments, expected top limiter)
cases = [
    ("vecadd", [E + "vecadd.tile", "-k", "vecadd", f"n={M*M}", f"x=f32[{M*M}]", f"y=f32[{M*M}]", f"out=f32[{M*M}]"],
     "memory bandwidth"),
    ("softmax", [E + "softmax.tile", "-k", "softmax", "rows=8192", "cols=1024", "stride_x=1024", "stride_y=1024",
                 f"x=f32[{8192*1024}]", f"y=f32[{8192*1024}]"], "memory bandwidth"),
    ("layernorm", [E + "layernorm.tile", "-k", "layernorm_fwd", "M=8192", "N=1024", "stride=1024", "eps=0.5",
                   f"x=f32[{8192*1024}]", f"y=f32[{8192*1024}]", "w=f32[1024]", "b=f32[1024]", "mean_out=f32[8192]",
                   "rstd_out=f32[8192]"], "memory bandwidth"),
    ("large matmul", [E + "matmul.tile", "-k", "matmul", f"M={M}", f"N={M}", f"K={M}", f"lda={M}", f"ldb={M}",
                      f"ldc={M}", f"a=bf16[{M*M}]", f"b=bf16[{M*M}]", f"c=bf16[{M*M}]"], "compute"),
    ("small-grid matmul", [E + "matmul.tile", "-k", "matmul", "M=512", "N=512", "K=8192", "lda=8192", "ldb=512",
                           "ldc=512", f"a=bf16[{512*8192}]", f"b=bf16[{512*8192}]", f"c=bf16[{512*512}]"],
     "workgroups"),
    ("attention", [E + "attention.tile", "-k", "attention", "sm_scale=0.125", "Z=4", "H=16", "N_CTX=4096",
                   *[f"{t}=f16[{4*16*4096*64}]" for t in "qkvo"]], "compute"),
    ("split-K, small M", [E + "split_k.tile", "-k", "matmul_split_k", "M=64", "N=64", "K=16384", "lda=16384",
                          "ldb=64", "ldc=64", f"a=bf16[{64*16384}]", f"b=bf16[{64*16384}]", f"c=f32[{64*64}]"],
     "workgroups"),
]
for what, args, want in cases:
    j = advise(*args)
    if j is None:
        continue
    top = j["limiters"][0]["name"] if j["limiters"] else None
    if top != want:
        bad.append(f"{what}: top limiter {top!r}, expected {want!r} ({[l['name'] for l in j['limiters']]})")
    if j["work"]["flops"] < 0 or j["work"]["bytes"] <= 0:
        bad.append(f"{what}: no work counted: {j['work']}")

# the matmul's FLOPs are exactly 2*M*N*K, its bytes written M*N*2
j = advise(*cases[3][1])
if j and (j["work"]["flops_dot"] != 2 * M**3 or j["work"]["bytes_written"] != M * M * 2):
    bad.append(f"matmul work: {j['work']}")

# occupancy by the guide: occ_vgpr from the VGPR table (512 per lane per SIMD, granule 8, 8 waves at
# most), occ_lds = floor(65536 / L) workgroups, occ = min(floor(occ_vgpr*4/nW), occ_lds) * nW / 4
def guide(vgprs, lds, wg, wave=64):
    g = (vgprs + 7) // 8 * 8
    occ_vgpr = 8 if vgprs < 8 else min(max(512 // g, 1), 8)
    nw = -(-wg // wave)
    occ_lds = 65536 // ((lds + 511) // 512 * 512) if lds else 10**9
    wgs = min(occ_vgpr * 4 // nw, occ_lds)
    return min(max(wgs * nw // 4, 1 if wgs else 0), 8)

occ_cases = [
    (cases[0][1], []),
    (cases[3][1], []),
    (cases[3][1], ["-D", "BLOCK_M=256", "-D", "BLOCK_N=256", "-D", "num_warps=8"]),
    (cases[3][1], ["-D", "BLOCK_M=64", "-D", "BLOCK_N=64", "-D", "waves_per_eu=2"]),
    (cases[3][1], ["-D", "BLOCK_K=32"]),
    (cases[5][1], []),
    (cases[5][1], ["-D", "BLOCK_M=128", "-D", "num_warps=8"]),
    (cases[1][1], ["-D", "num_warps=8"]),
]
for args, defs in occ_cases:
    j = advise(*args, *defs)
    rep = subprocess.run([rkc, args[0], "-k", args[2], *defs, "--report=json"], capture_output=True, text=True)
    if j is None or rep.returncode != 0:
        bad.append(f"occupancy {args[2]} {defs}: {rep.stderr.strip()}")
        continue
    k = json.loads(rep.stdout)["kernels"][0]
    want = guide(k["vgprs_total"], k["lds_bytes"], k["workgroup_size"])
    got = j["occupancy"]["waves_per_simd"]
    print(f"occupancy {args[2]} {' '.join(defs)}: {k['vgprs_total']} VGPRs, {k['lds_bytes']} B LDS, "
          f"{k['workgroup_size']} lanes: guide {want}, advise {got}")
    if got != want:
        bad.append(f"occupancy {args[2]} {defs}: advise says {got}, the guide's procedure {want}")

# a scalar the work depends on, left out: a usage error naming it
out = subprocess.run([rkc, "--advise", E + "vecadd.tile", "-k", "vecadd"], capture_output=True, text=True)
if out.returncode != 2 or "needs the value of parameter 'n' (n=...)" not in out.stderr:
    bad.append(f"--advise without n: exit {out.returncode}, {out.stderr.strip()!r}")

# RK_PROFILE: a launch's trace event carries its work (1000 f32 elements read twice and written once,
# a tail of 24 masked off in the last program) and, on interp, the achieved rates against the peaks
import os, tempfile
with tempfile.TemporaryDirectory() as tmp:
    trace = os.path.join(tmp, "t.json")
    env = dict(os.environ, RK_PROFILE=trace, RK_DEVICE="interp")
    out = subprocess.run([rkc, "run", E + "vecadd.tile", "-k", "vecadd", "-D", "BLOCK=256", "x=rand:f32[1000]",
                          "y=rand:f32[1000]", "out=zeros:f32[1000]", "n=1000", "--no-tune"], env=env,
                         capture_output=True, text=True)
    launches = [e for e in json.load(open(trace)) if e.get("cat") == "launch"] if out.returncode == 0 else []
    a = launches[0]["args"] if launches else {}
    if a.get("bytes") != 12000 or a.get("flops") != 1024 or "roofline_fraction" not in a or a.get("peaks") != "MI300X":
        bad.append(f"RK_PROFILE launch event: {a} ({out.stderr.strip()})")

for b in bad:
    print("FAIL:", b)
print(f"{len(cases)} limiter cases, {len(occ_cases)} occupancy cases: {'FAILED' if bad else 'ok'}")
sys.exit(1 if bad else 0)
