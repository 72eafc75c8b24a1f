#!/bin/bash
# isa_snapshot.sh: the ISA report and assembly of every kernel rk's compile-time work must not make
# worse, into a directory, so that two snapshots (before and after a change to codegen) can be
# compared with isa_diff.py.
#
#   bash bench/isa_snapshot.sh RKC OUTDIR [target]     (run from the source tree; target: gfx942)
#
# Cases: examples/*.tile, bench/kernels/*.tile, tests/golden/isa/*.tile with their defaults, every
# case of bench/vs_triton/cases.py, and the 32 configs of bench_autotune's matmul space.
set -u
RKC=$1 OUT=$2 TGT=${3:-gfx942}
mkdir -p "$OUT"
one() { # id file defines...
    local id=$1 f=$2; shift 2
    local d=()
    for kv in "$@"; do d+=(-D "$kv"); done
    "$RKC" --target="$TGT" --report=json "$f" "${d[@]}" -o "$OUT/$id.hsaco" >"$OUT/$id.json" 2>"$OUT/$id.err" || echo "FAIL $id" >&2
    "$RKC" --target="$TGT" --emit=asm "$f" "${d[@]}" -o "$OUT/$id.s" 2>>"$OUT/$id.err"
    rm -f "$OUT/$id.hsaco"
}
for f in examples/*.tile bench/kernels/*.tile tests/golden/isa/*.tile; do
    id=$(echo "$f" | tr / _); one "${id%.tile}" "$f"
done
python3 bench/vs_triton/cases.py list | while IFS=$'\t' read -r id tile defs; do
    one "vt_$id" "bench/vs_triton/kernels/$tile" $defs
done
for bm in 64 128; do for bn in 64 128; do for bk in 32 64; do for w in 4 8; do for s in 1 2; do
    one "at_${bm}x${bn}x${bk}_w${w}_s${s}" examples/matmul.tile BLOCK_M=$bm BLOCK_N=$bn BLOCK_K=$bk num_warps=$w num_stages=$s
done; done; done; done; done
