#!/usr/bin/env bash
# bench/h200/mma_sync.sh: matmul with mma.sync on both sides, ON THE GPU MACHINE. Issue 8 asks rk's
# mma.sync matmul for 0.75x Triton; Triton itself uses wgmma on sm_90, so this measures, in one session,
# rk with mma.sync (RK_NO_WGMMA=1), Triton with mma.sync (DISABLE_MMA_V3=1: its MMA v2, Ampere's
# instruction), and both with wgmma, to tell what the instruction allows from what rk leaves.
#
#   here:  bash bench/h200/prepare.sh; RK_NO_WGMMA=1 bash bench/h200/prepare.sh --out build/ptx_mma
#   there: bash bench/h200/mma_sync.sh        (with the device tool, carrying build/h200/ptx and build/ptx_mma)
#
# Two rounds, the four alternating; every output checked against float64 as in run.sh. Each Triton run
# compiles into a fresh cache, whose PTX is then searched for wgmma and mma.sync (the proof of which
# instruction it used). Results to $OUT (or $RK_H200_WORK): rk_{mma,wgmma}N.tsv, py_{mma,wgmma}N.tsv.
set -u -o pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="${RK_H200_WORK:-/tmp/rk-h200}"
DEST="${OUT:-$WORK}"
MMA_PTX="${RK_MMA_PTX:-$ROOT/build/ptx_mma}"
PTX="${RK_H200_PTX:-$ROOT/build/h200/ptx}"
PY="$(command -v python3 || command -v python)"
[ -f "$MMA_PTX/index.tsv" ] || { echo "mma_sync.sh: no $MMA_PTX/index.tsv (prepare.sh with RK_NO_WGMMA=1)" >&2; exit 1; }
if grep -q wgmma "$MMA_PTX"/matmul_*.ptx; then echo "mma_sync.sh: $MMA_PTX has wgmma" >&2; exit 1; fi
# builds the runtime and rk_bench into $WORK/build (the launch benchmark alone: seconds)
RK_BENCH_ARGS="--only launch" bash "$ROOT/bench/h200/run.sh" rk > "$DEST/build_run.log" 2>&1 || { tail -20 "$DEST/build_run.log"; exit 1; }
triton_run() { # name, extra env
    local name="$1" cache
    cache="$(mktemp -d /tmp/rk-mma-triton-XXXX)"
    (cd "$ROOT" && env TRITON_CACHE_DIR="$cache" $2 timeout 200 "$PY" bench/h200/torch_triton.py --only matmul \
        --tsv "$DEST/$name.tsv") > "$DEST/$name.log" 2>&1
    echo "$name: exit $?, PTX files with wgmma: $(grep -l 'wgmma' -r "$cache" --include='*.ptx' | wc -l)," \
         "with mma.sync: $(grep -l 'mma.sync' -r "$cache" --include='*.ptx' | wc -l)"
    grep -h "triton\|torch" "$DEST/$name.tsv"
}
rk_run() { # name, PTX folder
    (cd "$ROOT" && timeout 200 "$WORK/build/bench/h200/rk_bench" --ptx "$2" --only matmul --tsv "$DEST/$1.tsv") > "$DEST/$1.log" 2>&1
    echo "$1: exit $?"
    grep -v "^#" "$DEST/$1.tsv"
}
for round in 1 2; do
    rk_run rk_mma$round "$MMA_PTX"
    triton_run py_mma$round DISABLE_MMA_V3=1
    rk_run rk_wgmma$round "$PTX"
    triton_run py_wgmma$round ""
done
