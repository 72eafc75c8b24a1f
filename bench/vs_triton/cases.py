"""The kernels and configs that bench/vs_triton compares, shared by both sides (no Triton import).

Each case names an rk kernel (kernels/*.tile and its -D defines) and the Triton kernel of
triton_side.py with its constexprs and compile options. Both sides get the same tile sizes,
num_warps, num_stages, matrix_instr_nonkdim and waves_per_eu.

  python3 cases.py list     one line per case: ID (a file name too)<TAB>RK_TILE<TAB>RK_DEFINES (space-separated NAME=VALUE)
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


def by_id(cid):
    for c in CASES:
        if c["id"] == cid:
            return c
    raise KeyError(cid)


if __name__ == "__main__":
    if sys.argv[1:] == ["list"]:
        for c in CASES:
            print(c["id"] + "\t" + c["rk_tile"] + "\t" + " ".join(f"{k}={v}" for k, v in c["rk_defs"].items()))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
