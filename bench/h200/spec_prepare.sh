#!/usr/bin/env bash
# bench/h200/spec_prepare.sh: run here (the machine with LLVM), before `bash bench/h200/run.sh spec` on
# the GPU machine. Makes the sm_90 bundles that bench/h200/spec_bench.c times (issue 21: the unhinted
# matmul, specialised at launch by the runtime alone, against the hand-hinted one):
#
#   unhinted.ptx  Triton's tutorial matmul ported word for word (tests/golden/run/spec_matmul.tile: no
#                 multiple_of, run-time strides, masks), every config compiled plainly and once more for
#                 the facts of a row-major call whose sizes are multiples of 16 (--specialize SPEC)
#   generic.ptx   the same kernel, plain configs only (what a call without facts runs)
#   hinted.ptx    examples/matmul.tile (multiple_of hints, unit strides written in), plain configs
#   hinted_notma.ptx  the same with RK_NO_TMA=1: operands through cp.async, as the port's are
#
# each with its manifest (NAME.ptx.json). All three get the same tile configs: the @autotune block below
# replaces examples/matmul.tile's (its AMD space) and is put in front of the port's @grid; neither
# kernel's body changes. The tile files made from them are kept beside the bundles.
#
#     bash bench/h200/spec_prepare.sh [--build DIR] [--out DIR] [--target T]
#
# --build: a CMake build folder with rkc (default build/; built with ninja if rkc is missing);
# --out: where the bundles go (default BUILD/spec_bundles, in the build folder: carry it to the GPU
# machine with the device tool's `carry`, as RK_SPEC_BUNDLES names it there). $PTXAS (default:
# on the PATH, else /usr/local/cuda/bin/ptxas) checks each bundle's PTX into OUT/ptxas.txt when present.
# --target: sm_90 (default), or emu_sm90 for a run of spec_bench on this machine's emulator (NAME.so;
# `RK_DEVICE=emu_sm90 RK_SPEC_BUNDLES=DIR RK_SPEC_ARGS=--small bash bench/h200/run.sh spec` then runs the
# whole path here).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$ROOT/build"
OUT=""
TARGET=sm_90
while [ $# -gt 0 ]; do
    case "$1" in
    --build) BUILD="$(cd "$2" && pwd)"; shift 2 ;;
    --out) mkdir -p "$2"; OUT="$(cd "$2" && pwd)"; shift 2 ;;
    --target) TARGET="$2"; shift 2 ;;
    *) echo "usage: spec_prepare.sh [--build DIR] [--out DIR] [--target T]" >&2; exit 2 ;;
    esac
done
OUT="${OUT:-$BUILD/spec_bundles}"
RKC="$BUILD/rkc"
[ -x "$RKC" ] || ninja -C "$BUILD" rkc
mkdir -p "$OUT"

# The configs of bench/h200/prepare.sh's matmul variants that won or came close on the H200
# (docs/performance.md): M x N x K tiles, warps, pipeline stages.
AUTOTUNE='@autotune(key = [M, N, K],
          configs = [{BLOCK_M: 128, BLOCK_N: 256, BLOCK_K: 64, num_warps: 8, num_stages: 4},
                     {BLOCK_M: 128, BLOCK_N: 256, BLOCK_K: 64, num_warps: 8, num_stages: 3},
                     {BLOCK_M: 256, BLOCK_N: 128, BLOCK_K: 64, num_warps: 8, num_stages: 3},
                     {BLOCK_M: 128, BLOCK_N: 256, BLOCK_K: 32, num_warps: 8, num_stages: 4},
                     {BLOCK_M: 256, BLOCK_N: 128, BLOCK_K: 32, num_warps: 8, num_stages: 4},
                     {BLOCK_M: 128, BLOCK_N: 128, BLOCK_K: 64, num_warps: 8, num_stages: 3},
                     {BLOCK_M: 128, BLOCK_N: 128, BLOCK_K: 64, num_warps: 4, num_stages: 4},
                     {BLOCK_M: 128, BLOCK_N: 128, BLOCK_K: 32, num_warps: 4, num_stages: 4}])'
# The facts of C = A B at M = N = K = 4096 (or 8192), all row-major: every size and row stride a
# multiple of 16, every column stride 1 (what the runtime's own specialisation derives from such a call).
SPEC='M%16==0 N%16==0 K%16==0 stride_am%16==0 stride_ak==1 stride_bk%16==0 stride_bn==1 stride_cm%16==0 stride_cn==1'

# The port: its lines less the RUN/check lines, the @autotune (in its names, BLOCK_SIZE_M ...) in
# front of @grid.
grep -v '^// [A-Z0-9-]*:' "$ROOT/tests/golden/run/spec_matmul.tile" |
    awk -v at="$(echo "$AUTOTUNE" | sed 's/BLOCK_\([MNK]\)/BLOCK_SIZE_\1/g')" '/^@grid/ { print at } { print }' \
    > "$OUT/unhinted.tile"
# The hinted kernel: examples/matmul.tile with its @autotune block (up to @grid) replaced.
awk -v at="$AUTOTUNE" '/^@autotune/ { skip = 1; print at } /^@grid/ { skip = 0 } !skip { print }' \
    "$ROOT/examples/matmul.tile" > "$OUT/hinted.tile"
grep -q '^@autotune' "$OUT/unhinted.tile" && grep -q 'multiple_of' "$OUT/hinted.tile" ||
    { echo "spec_prepare.sh: could not make the tile files" >&2; exit 1; }

cd "$ROOT" # the stdlib import of examples/matmul.tile resolves from rkc's own stdlib folder
EXT=ptx
case "$TARGET" in emu*) EXT=so ;; esac
"$RKC" --target="$TARGET" --all-configs --specialize "$SPEC" -k matmul "$OUT/unhinted.tile" -o "$OUT/unhinted.$EXT"
"$RKC" --target="$TARGET" --all-configs -k matmul "$OUT/unhinted.tile" -o "$OUT/generic.$EXT"
"$RKC" --target="$TARGET" --all-configs -k matmul "$OUT/hinted.tile" -o "$OUT/hinted.$EXT" -D T=bf16
# The hinted kernel with its dot operands through cp.async instead of TMA (the port's loads cannot use
# TMA: its rows wrap at M), to tell that apart from the hints.
[ "$EXT" = ptx ] && RK_NO_TMA=1 "$RKC" --target="$TARGET" --all-configs -k matmul "$OUT/hinted.tile" \
    -o "$OUT/hinted_notma.$EXT" -D T=bf16

# What each bundle holds: variants, their facts, LDS, TMA.
for b in unhinted generic hinted hinted_notma; do
    [ -f "$OUT/$b.$EXT.json" ] || continue
    python3 - "$OUT/$b.$EXT.json" <<'EOF' || true
import json, sys
m = json.load(open(sys.argv[1]))
for k in m["kernels"]:
    print(f"{sys.argv[1].rsplit('/', 1)[-1]}: kernel {k['name']}, {len(k['variants'])} variants, {m['binary_size']} bytes of PTX")
    for v in k["variants"]:
        print(f"  {v['symbol']:16} {v['config_text']:60} lds {v['lds_bytes']:6} tma {'yes' if v.get('tma') else 'no ':3} facts: {v.get('facts') or '-'}")
EOF
done

# ptxas on each bundle: registers and spills per variant.
PTXAS="${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}"
if [ "$EXT" = ptx ] && [ -x "$PTXAS" ]; then
    : > "$OUT/ptxas.txt"
    for b in unhinted generic hinted hinted_notma; do
        [ -f "$OUT/$b.ptx" ] || continue
        echo "== $b.ptx" >> "$OUT/ptxas.txt"
        "$PTXAS" -arch=sm_90a -v "$OUT/$b.ptx" -o /dev/null 2>&1 |
            grep -E "Compiling entry|registers|spill" | paste - - - >> "$OUT/ptxas.txt" || true
    done
    echo "ptxas: $OUT/ptxas.txt"
elif [ "$EXT" = ptx ]; then
    echo "spec_prepare.sh: no ptxas, the PTX is not checked" >&2
fi
ls -l "$OUT"
