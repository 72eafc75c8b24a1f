#!/usr/bin/env bash
# bench/h200/prepare.sh: run on the machine that builds rk (it has LLVM), before bench/h200/run.sh on
# the GPU machine (which has none). Compiles, for sm_90, every kernel variant that the H200 benchmark
# and the cuda smoke test run, into the build folder's h200/ptx/ as prebuilt programs (NAME.ptx, the PTX
# that `rkc --target=sm_90` gives, and NAME.meta, what the runtime needs to launch it; see
# tests/device/prebuilt.h), lists them in index.tsv, and checks every PTX file with
# `ptxas -arch=sm_90a` (register and spill counts in ptxas.txt). The folder is generated, never tracked:
# the device tool's `carry` takes it to the GPU machine (bench/h200/README.md).
#
#     bash bench/h200/prepare.sh [--build DIR] [--out DIR] [--no-build] [--first]
#
# --build: the CMake build folder (default build/); --out: where to write (default BUILD/h200/ptx);
# --no-build: use the tools already built instead of running ninja; --first: only the first variant of
# each benchmark (the fake-driver test, which runs them all, under sanitizers too). $PTXAS names ptxas (default: on the
# PATH, else /usr/local/cuda/bin/ptxas); without one the PTX is not checked (a warning says so).
# Before writing, it removes from OUT only what it writes (smoke/, *.ptx, *.meta and its tables), and
# it refuses an OUT that holds files git tracks.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$ROOT/build"
OUT=""
DO_BUILD=1
FIRST=0
while [ $# -gt 0 ]; do
    case "$1" in
    --build) BUILD="$(cd "$2" && pwd)"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --no-build) DO_BUILD=0; shift ;;
    --first) FIRST=1; shift ;;
    *) echo "usage: prepare.sh [--build DIR] [--out DIR] [--no-build] [--first]" >&2; exit 2 ;;
    esac
done

mkdir -p "${OUT:=$BUILD/h200/ptx}"
OUT="$(cd "$OUT" && pwd)"
if [ -n "$(git -C "$ROOT" ls-files -- "$OUT" 2> /dev/null)" ]; then
    echo "prepare.sh: $OUT holds files that git tracks; write generated PTX elsewhere" >&2
    exit 1
fi

if [ "$DO_BUILD" = 1 ]; then
    [ -f "$BUILD/build.ninja" ] || cmake -S "$ROOT" -B "$BUILD" -G Ninja -DRK_WERROR=ON
    ninja -C "$BUILD" rkc cuda_smoke rk_prepare rk_bench
fi
PREP="$BUILD/tests/device/rk_prepare"
SMOKE="$BUILD/tests/device/cuda_smoke"
for t in "$PREP" "$SMOKE"; do
    [ -x "$t" ] || { echo "prepare.sh: $t is not built (run without --no-build)" >&2; exit 1; }
done

rm -rf "$OUT/smoke"
rm -f "$OUT"/*.ptx "$OUT"/*.meta "$OUT/index.tsv" "$OUT/compile.raw" "$OUT/compile.tsv" "$OUT/ptxas.txt"
mkdir -p "$OUT/smoke"
INDEX="$OUT/index.tsv"
printf '# bench\tbase\tconfig (the -D defines of each variant; written by bench/h200/prepare.sh)\n' > "$INDEX"

# ---- the cuda smoke test's cases (tests/device/cuda_smoke.c) ----
"$SMOKE" --save "$OUT/smoke" --root "$ROOT"

# ---- the benchmark's variants: bench, base name, .tile file, kernel, defines ----
variant() {
    local bench="$1" base="$2" file="$3" kernel="$4"
    shift 4
    if [ "$FIRST" = 1 ] && cut -f1 "$INDEX" | grep -qx "$bench"; then
        return
    fi
    local line
    line="$("$PREP" "$OUT/$base" "$ROOT/$file" "$kernel" "$@")"
    echo "$line"
    printf '%s\t%s\n' "$bench" "$(echo "$line" | sed -n 's/.*compiled in \([0-9.]*\) ms.*/\1/p')" >> "$OUT/compile.raw"
    printf '%s\t%s\t%s\n' "$bench" "$base" "$*" >> "$INDEX"
}

# bf16 matmul, examples/matmul.tile: tiles BLOCK_M x BLOCK_N x BLOCK_K, warps, pipeline stages. Chosen
# among those ptxas fits in 255 registers with no or few spills (ptxas.txt).
while read -r bm bn bk w s; do
    variant matmul "matmul_${bm}x${bn}x${bk}_w${w}_s${s}" examples/matmul.tile matmul \
        T=bf16 BLOCK_M="$bm" BLOCK_N="$bn" BLOCK_K="$bk" num_warps="$w" num_stages="$s"
done <<'EOF'
128 128 32 4 2
128 128 32 4 4
128 128 64 8 3
128 128 32 8 4
128 256 32 8 4
128 256 64 8 3
128 256 64 8 4
256 128 64 8 3
256 128 32 8 4
64 128 64 4 4
128 128 64 4 3
128 128 64 4 4
128 128 32 4 3
128 256 32 8 3
256 128 32 8 3
EOF

# Row softmax and layer norm over 8192 columns: one row per program, BLOCK = 8192.
for w in 4 8 16; do
    variant softmax "softmax_w$w" bench/kernels/softmax.tile softmax_rows BLOCK=8192 ALIGN=16 num_warps="$w"
    variant layernorm "layernorm_w$w" bench/kernels/layernorm.tile layernorm BLOCK=8192 ALIGN=16 num_warps="$w"
done

# Vector add, f32, n a multiple of 16 (ALIGN=16: 128-bit accesses).
while read -r block w; do
    variant vecadd "vecadd_b${block}_w$w" examples/vecadd.tile vecadd T=f32 ALIGN=16 BLOCK="$block" num_warps="$w"
done <<'EOF'
1024 4
2048 4
4096 8
8192 8
EOF

# Flash attention forward, f16, head dim 64, not causal (num_stages 2: V through cp.async).
while read -r bm bn w st; do
    variant attention "attention_${bm}x${bn}_w${w}_s$st" examples/attention.tile attention \
        T=f16 HEAD_DIM=64 CAUSAL=false BLOCK_M="$bm" BLOCK_N="$bn" num_warps="$w" num_stages="$st"
done <<'EOF'
64 64 4 1
128 64 8 1
128 32 4 1
64 32 4 1
128 64 4 1
128 64 8 2
128 32 4 2
128 64 4 2
128 64 4 3
128 64 8 3
128 32 4 3
EOF

# An empty kernel, for launch overhead.
variant noop noop bench/h200/kernels/noop.tile noop num_warps=1

# ---- cold compile times: per benchmark, the median over its variants (rk_prepare's in-process figure),
# as TSV rows for bench/h200/table.py (bench impl size config ms value unit err tol status) ----
for b in $(cut -f1 "$OUT/compile.raw" | sort -u | grep -vx noop); do
    awk -F'\t' -v b="$b" '$1 == b && $2 != "" { print $2 }' "$OUT/compile.raw" | sort -n |
        awk -v b="$b" '{ v[NR] = $1 } END { if (NR) { m = v[int((NR + 1) / 2)];
            printf "compile_%s\trk\tsm_90, build machine, CPU time\tmedian of %d variants\t%s\t%s\tms\t0\t0\tok\n", b, NR, m, m } }'
done > "$OUT/compile.tsv"
rm -f "$OUT/compile.raw"

# ---- ptxas on every PTX file ----
PTXAS="${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}"
if [ -x "$PTXAS" ]; then
    "$PTXAS" --version | tail -1 > "$OUT/ptxas.txt"
    tmp="$(mktemp)"
    trap 'rm -f "$tmp"' EXIT
    for f in "$OUT"/*.ptx "$OUT"/smoke/*.ptx; do
        if ! "$PTXAS" -arch=sm_90a -v "$f" -o "$tmp" 2> "$tmp.log"; then
            cat "$tmp.log" >&2
            echo "prepare.sh: ptxas rejects $f" >&2
            rm -f "$tmp.log"
            exit 1
        fi
        printf '%s: %s\n' "${f#"$OUT"/}" "$(grep -hoE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' "$tmp.log" |
            tr '\n' ' ')" >> "$OUT/ptxas.txt"
        rm -f "$tmp.log"
    done
    echo "prepare.sh: ptxas -arch=sm_90a accepts all $(ls "$OUT"/*.ptx "$OUT"/smoke/*.ptx | wc -l) PTX files ($OUT/ptxas.txt)"
else
    echo "prepare.sh: warning: no ptxas ($PTXAS): the PTX is not checked" >&2
fi
echo "prepare.sh: $(grep -vc '^#' "$INDEX") benchmark variants in $OUT ($(du -sh "$OUT" | cut -f1))"
