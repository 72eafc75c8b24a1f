#!/usr/bin/env bash
# bench/h200/run.sh: the cuda smoke test and the H200 benchmark, ON THE GPU MACHINE (NVIDIA driver, CUDA,
# PyTorch and Triton installed; no LLVM, no network), from the PTX that bench/h200/prepare.sh compiled
# on the build machine into build/h200/ptx/ ($RK_H200_PTX; an ignored path, carried with the device
# tool's `carry`).
#
#     bash bench/h200/run.sh [all|smoke|rk|py|cases|spec]      (default: all)
#
#   smoke  tests/device/cuda_smoke.c on the prebuilt cases of $RK_H200_PTX/smoke: vecadd, softmax,
#          layernorm, bf16 matmuls checked against float64 host references, and a JIT error reported with
#          its log
#   rk     bench/h200/rk_bench.c: rk's kernels through the cuda device          -> $WORK/rk.tsv
#   py     bench/h200/torch_triton.py: Triton and torch on the same sizes       -> $WORK/py.tsv
#   all    the three, then the markdown table (bench/h200/table.py) on stdout
#   cases  the run tests (tests/run) on the GPU against interp, from the programs that
#          `run_harness --save DIR` wrote on the build machine: $RK_CASES (a folder, or a .tar.gz of
#          one; default build/h200_cases.tar.gz, carried as an ignored path: the cases saved there run);
#          RK_RUN_SEED and RK_CASE_FILTERS (run_harness filters) narrow or replay them
#   spec   bench/h200/spec_bench.c: the unhinted matmul port specialised at launch by the runtime from
#          an AOT bundle, against the hinted examples/matmul.tile, from the bundles that
#          bench/h200/spec_prepare.sh made on the build machine: $RK_SPEC_BUNDLES (default
#          build/spec_bundles, carried as an ignored path); $RK_SPEC_ARGS adds spec_bench options
#
# With $OUT set, the table goes to $OUT/h200.md and the logs and TSV files to $OUT as well.
# The programs are built by the top-level CMakeLists.txt with -DRK_RUNTIME_ONLY=ON: the runtime alone
# (rk_support, rk_ir, rk_runtime) and bench/h200/CMakeLists.txt's programs, no LLVM, which this machine lacks
# (it has cmake and ninja; $CC picks the C compiler as CMake reads it). Work files, the build folder
# among them, go to $RK_H200_WORK (default /tmp/rk-h200). Each step has a time limit, so the whole stays
# under 8 minutes.
set -u -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
H="$ROOT/bench/h200"
PTX="${RK_H200_PTX:-$ROOT/build/h200/ptx}"
WORK="${RK_H200_WORK:-/tmp/rk-h200}"
BUILD="$WORK/build"
BIN="$BUILD/bench/h200"
MODE="${1:-all}"
case "$MODE" in all | smoke | rk | py | cases | spec) ;; *) echo "usage: run.sh [all|smoke|rk|py|cases|spec]" >&2; exit 2 ;; esac
mkdir -p "$WORK"
exec > >(tee "$WORK/run.log") 2>&1
START=$(date +%s)
say() { echo "run.sh [$(($(date +%s) - START)) s]: $*"; }
STATUS=0

finish() {
    if [ -n "${OUT:-}" ]; then
        mkdir -p "$OUT"
        for f in h200.md rk.tsv py.tsv smoke.log rk.log py.log build.log cases.log spec.log; do
            [ -f "$WORK/$f" ] && cp "$WORK/$f" "$OUT/"
        done
        sleep 1 # let tee write the last lines
        cp "$WORK/run.log" "$OUT/run.log"
    fi
    exit "$STATUS"
}

# ---- the machine ------------------------------------------------------------------------------------
say "$MODE on $(uname -srm), $(nproc) cores"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv 2>&1 | sed 's/^/  /'
PY="$(command -v python3 || command -v python || true)"
for t in cmake ninja "${CC:-cc}"; do
    printf '  %-8s %s\n' "$t" "$(command -v "$t" || echo 'not found')"
done
printf '  %-8s %s\n' python "${PY:-not found}"
if [ "$MODE" = all ] || [ "$MODE" = smoke ] || [ "$MODE" = rk ]; then
    if [ ! -f "$PTX/index.tsv" ]; then
        say "no $PTX/index.tsv: run bash bench/h200/prepare.sh on the build machine first, and carry its folder"
        STATUS=1
        finish
    fi
    say "PTX from $PTX"
    cat "$PTX/ptxas.txt" 2>/dev/null | head -1 | sed 's/^/  PTX checked by: /'
fi

# ---- the runtime, without the compiler --------------------------------------------------------------
build() {
    command -v cmake > /dev/null || { echo "no cmake"; return 1; }
    local gen=Ninja
    command -v ninja > /dev/null || gen="Unix Makefiles"
    rm -rf "$BUILD"
    cmake -S "$ROOT" -B "$BUILD" -G "$gen" -DRK_RUNTIME_ONLY=ON || return 1
    cmake --build "$BUILD" -j "$(nproc)" || return 1
    echo "built the runtime, cuda_smoke_rt, rk_bench, run_harness_rt and spec_bench in $BIN"
}

if [ "$MODE" != py ]; then
    say "building the runtime with cmake -DRK_RUNTIME_ONLY=ON (log: build.log)"
    if ! build > "$WORK/build.log" 2>&1; then
        tail -30 "$WORK/build.log"
        say "the build failed"
        STATUS=1
        finish
    fi
    tail -1 "$WORK/build.log"
fi

# ---- the smoke test ---------------------------------------------------------------------------------
if [ "$MODE" = all ] || [ "$MODE" = smoke ]; then
    say "cuda smoke test"
    (cd "$ROOT" && timeout 120 "$BIN/cuda_smoke_rt" --load "$PTX/smoke") 2>&1 | tee "$WORK/smoke.log"
    rc=${PIPESTATUS[0]}
    say "cuda smoke test: exit $rc$([ "$rc" = 77 ] && echo ' (skipped: no CUDA device)')"
    [ "$rc" = 0 ] || STATUS=1
fi

# ---- the run tests ----------------------------------------------------------------------------------
# Each case in a process of its own, $(nproc) at a time: a kernel that faults leaves CUDA's context
# unusable (a sticky error), which would fail every later case of the same process.
if [ "$MODE" = cases ]; then
    CASES="${RK_CASES:-$ROOT/build/h200_cases.tar.gz}"
    if [ -f "$CASES" ]; then
        rm -rf "$WORK/cases" && mkdir -p "$WORK/cases" && tar -C "$WORK/cases" -xzf "$CASES" || STATUS=1
        CASES="$(find "$WORK/cases" -mindepth 1 -maxdepth 1 -type d | head -1)"
    fi
    say "run tests on cuda against interp, programs from $CASES, seed ${RK_RUN_SEED:=0x5eed}"
    export RK_RUN_SEED
    rm -rf "$WORK/case_logs" && mkdir -p "$WORK/case_logs"
    # the names the device runs (it leaves out what it cannot run), then one process each
    (cd "$ROOT" && "$BIN/run_harness_rt" --device=cuda --load "$CASES" --list ${RK_CASE_FILTERS:-}) |
        awk '{print $1}' > "$WORK/case_names"
    (cd "$ROOT" && xargs -P "$(nproc)" -I{} sh -c 'timeout 120 "$0" --load "$1" --device=cuda "={}" > "$2/$(echo "{}" | tr / _)" 2>&1 || echo "{}"' \
        "$BIN/run_harness_rt" "$CASES" "$WORK/case_logs" < "$WORK/case_names") > "$WORK/case_failed"
    n=$(wc -l < "$WORK/case_names"); nf=$(wc -l < "$WORK/case_failed")
    { for c in $(cat "$WORK/case_failed"); do grep -v "^run_harness" "$WORK/case_logs/$(echo "$c" | tr / _)" | head -6; done
      echo "run tests on cuda: $n cases, $nf failed (seed $RK_RUN_SEED)"; } | tee "$WORK/cases.log" | tail -80
    say "run tests: $nf of $n failed"
    [ "$nf" = 0 ] || STATUS=1
fi

# ---- rk ---------------------------------------------------------------------------------------------
if [ "$MODE" = all ] || [ "$MODE" = rk ]; then
    say "rk benchmark"
    (cd "$ROOT" && timeout 200 "$BIN/rk_bench" --ptx "$PTX" --tsv "$WORK/rk.tsv" ${RK_BENCH_ARGS:-}) 2>&1 | tee "$WORK/rk.log"
    rc=${PIPESTATUS[0]}
    say "rk benchmark: exit $rc$([ "$rc" = 124 ] && echo ' (timed out)')"
    [ "$rc" = 0 ] || STATUS=1
fi

# ---- specialisation from a bundle ---------------------------------------------------------------------
# A fresh cache folder, so that the runtime tunes each bundle here rather than reading a winner.
if [ "$MODE" = spec ]; then
    BUNDLES="${RK_SPEC_BUNDLES:-$ROOT/build/spec_bundles}"
    say "spec benchmark, bundles from $BUNDLES"
    rm -rf "$WORK/spec_cache"
    (cd "$ROOT" && RK_CACHE_DIR="$WORK/spec_cache" timeout 420 "$BIN/spec_bench" --bundles "$BUNDLES" ${RK_SPEC_ARGS:-}) 2>&1 |
        tee "$WORK/spec.log"
    rc=${PIPESTATUS[0]}
    say "spec benchmark: exit $rc$([ "$rc" = 124 ] && echo ' (timed out)')"
    [ "$rc" = 0 ] || STATUS=1
fi

# ---- Triton and torch -------------------------------------------------------------------------------
if [ "$MODE" = all ] || [ "$MODE" = py ]; then
    say "Triton and torch"
    if [ -z "$PY" ]; then
        say "no python3"
        STATUS=1
    else
        (cd "$ROOT" && timeout 240 "$PY" "$H/torch_triton.py" --tsv "$WORK/py.tsv") 2>&1 | tee "$WORK/py.log"
        rc=${PIPESTATUS[0]}
        say "Triton and torch: exit $rc$([ "$rc" = 124 ] && echo ' (timed out)')"
        [ "$rc" = 0 ] || STATUS=1
    fi
fi

# ---- the table --------------------------------------------------------------------------------------
if [ "$MODE" = all ] && [ -n "$PY" ]; then
    say "results"
    echo
    "$PY" "$H/table.py" "$WORK/rk.tsv" "$WORK/py.tsv" "$PTX/compile.tsv" --out "$WORK/h200.md"
fi
say "done, exit $STATUS"
finish
