"""The kernels and configs that bench/vs_triton compares, shared by both sides (no Triton import).

Each case names an rk kernel (kernels/*.tile and its -D defines) and the Triton kernel of
triton_side.py with its constexprs and compile options. Both sides get the same tile sizes,
num_warps, num_stages, matrix_instr_nonkdim and waves_per_eu.

  python3 cases.py list [SET]   one line per case of SET (main, the default, or sweep): ID (a file
                                name too)<TAB>RK_TILE<TAB>RK_DEFINES (space-separated NAME=VALUE)

The main set is the issue's cases (docs/performance.md's table). The sweep set is the matmul
tutorial over every tile that both compilers can run on MI300X: BLOCK_M, BLOCK_N and BLOCK_K of 32
to 256, 2, 4 or 8 warps, 16- and 32-wide MFMAs, bf16, two stages, where Triton's LDS for the tiles
((BLOCK_M + BLOCK_N) * BLOCK_K * 2 bytes: one buffer, the next tile held in registers) fits the CU's
64 KiB (Triton allocates it at launch, and a kernel asking more cannot run) and a program's output
tile is at most 256 elements a lane (rk's bound for a store, a clear error past it). run.sh with
VT_SET=sweep runs it and sweep.py sums it up.
"""
import sys

CASES = []


def _add(cid, rk_tile, rk_defs, tkernel, tconsts, topts, note=""):
    CASES.append(dict(id=cid, rk_tile=rk_tile, rk_defs=rk_defs, triton_kernel=tkernel,
                      triton_consts=tconsts, triton_opts=topts, note=note))


for dtype in ("bf16", "f16"):
    for bm, bn, warps in ((128, 128, 4), (256, 256, 8), (256, 128, 4)):
        for nk in (16, 32):
            opts = dict(num_warps=warps, num_stages=2, waves_per_eu=0, matrix_instr_nonkdim=nk)
            consts = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=64, GROUP_M=8)
            _add(f"matmul_{dtype}_{bm}x{bn}x64_w{warps}_s2_k{nk}", "matmul.tile",
                 dict(T=dtype, **consts, **opts), "matmul", dict(dtype=dtype, **consts), opts)

_add("softmax_f32_8192_w8", "softmax.tile", dict(BLOCK=8192, num_warps=8, num_stages=2, waves_per_eu=0),
     "softmax", dict(BLOCK=8192), dict(num_warps=8, num_stages=2, waves_per_eu=0))
_add("layernorm_f16_8192_w8", "layernorm.tile", dict(BLOCK=8192, num_warps=8, num_stages=2, waves_per_eu=0),
     "layernorm", dict(BLOCK=8192), dict(num_warps=8, num_stages=2, waves_per_eu=0))
_add("attention_f16_d64_128x64_w4_s1_k16", "attention.tile",
     dict(HEAD_DIM=64, BLOCK_M=128, BLOCK_N=64, num_warps=4, num_stages=1, waves_per_eu=0, matrix_instr_nonkdim=16),
     "attention", dict(HEAD_DIM=64, BLOCK_M=128, BLOCK_N=64),
     dict(num_warps=4, num_stages=1, waves_per_eu=0, matrix_instr_nonkdim=16))

# issue 25: scans and reductions. Liger-Kernel's cross-entropy and KL-divergence (written from their
# published algorithms) at one vocabulary block of 4096 f32 per iteration, 8 warps; cumsum over 8 x 64.
for k in ("cross_entropy", "kl_div"):
    _add(f"{k}_f32_4096_w8", f"{k}.tile", dict(BLOCK=4096, num_warps=8, num_stages=2, waves_per_eu=0),
         k, dict(BLOCK=4096), dict(num_warps=8, num_stages=2, waves_per_eu=0))
_add("cumsum_f32_8x64_w4", "cumsum.tile", dict(R=8, C=64, num_warps=4, num_stages=1, waves_per_eu=0),
     "cumsum", dict(R=8, C=64), dict(num_warps=4, num_stages=1, waves_per_eu=0))


SWEEP = []
for bm in (32, 64, 128, 256):
    for bn in (32, 64, 128, 256):
        for bk in (32, 64, 128, 256):
            for warps in (2, 4, 8):
                for nk in (16, 32):
                    if (bm + bn) * bk * 2 > 65536 or bm * bn // (64 * warps) > 256:
                        continue
                    opts = dict(num_warps=warps, num_stages=2, waves_per_eu=0, matrix_instr_nonkdim=nk)
                    consts = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8)
                    SWEEP.append(dict(id=f"sweep_bf16_{bm}x{bn}x{bk}_w{warps}_s2_k{nk}", rk_tile="matmul.tile",
                                      rk_defs=dict(T="bf16", **consts, **opts), triton_kernel="matmul",
                                      triton_consts=dict(dtype="bf16", **consts), triton_opts=opts, note=""))

SETS = {"main": CASES, "sweep": SWEEP}


def by_id(cid):
    for c in CASES + SWEEP:
        if c["id"] == cid:
            return c
    raise KeyError(cid)


if __name__ == "__main__":
    which = sys.argv[2] if len(sys.argv) == 3 else "main"
    if sys.argv[1:2] == ["list"] and len(sys.argv) <= 3 and which in SETS:
        for c in SETS[which]:
            print(c["id"] + "\t" + c["rk_tile"] + "\t" + " ".join(f"{k}={v}" for k, v in c["rk_defs"].items()))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
