"""Checks the claims docs/tutorial.md makes about the examples' --report=json output.

    python3 tutorial_claims.py PREFIX    (reads PREFIX.mm1, PREFIX.mm2, ... written by tutorial.tile)
"""
import json
import sys

p = sys.argv[1]


def k(ext):
    with open(p + "." + ext) as f:
        return json.load(f)["kernels"][0]


def claim(ok, text):
    if not ok:
        print("FALSE: " + text)
        sys.exit(1)
    print(text)


v1, v16 = k("v1"), k("v16")
claim(v16["global_loads"]["128"] > 0 and v1["global_loads"]["16"] > 0 and v1["global_loads"]["128"] == 0,
      "vecadd: ALIGN=16 gives 128-bit loads, ALIGN=1 16-bit ones")
mm1, mm2, mm32 = k("mm1"), k("mm2"), k("mm32")
claim(mm2["global_loads"]["128"] == 2 * mm1["global_loads"]["128"] and mm2["waves_per_simd"] == mm1["waves_per_simd"],
      "matmul: num_stages=2 issues twice the global loads, same occupancy")
claim(list(mm2["mfma"]) == ["v_mfma_f32_16x16x16_bf16"] and list(mm32["mfma"]) == ["v_mfma_f32_32x32x8_bf16"],
      "matmul: 16x16 MFMA by default, 32x32 with matrix_instr_nonkdim=32")
at1, at2, atw = k("at1"), k("at2"), k("atw")
claim(at1["vgprs_total"] < at2["vgprs_total"] and at1["waves_per_simd"] > at2["waves_per_simd"],
      "attention: num_stages=1 needs fewer VGPRs and runs more waves than num_stages=2")
claim(atw["vgprs"] <= 80 and atw["waves_per_simd"] == 6 and atw["waves_per_simd"] > at1["waves_per_simd"],
      "attention: waves_per_eu=6 caps VGPRs at 80 and raises occupancy to 6")
