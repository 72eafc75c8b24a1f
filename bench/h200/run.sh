#!/usr/bin/env bash
# bench/h200/run.sh: the cuda smoke test and the H200 benchmark, ON THE GPU MACHINE (NVIDIA driver, CUDA,
# PyTorch and Triton installed; no LLVM, no network), from the PTX that bench/h200/prepare.sh compiled
# on the build machine into bench/h200/ptx/ (carried with the working tree).
#
#     bash bench/h200/run.sh [all|smoke|rk|py|cases|spec]      (default: all)
#
#   smoke  tests/device/cuda_smoke.c on the prebuilt cases of ptx/smoke: vecadd, softmax, layernorm,
#          bf16 matmuls checked against float64 host references, and a JIT error reported with its log
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
# The top-level CMakeLists.txt needs LLVM, which this machine lacks, so the runtime (rk_support and
# rk_runtime: the same source folders, no compiler half) is built with the C compiler directly ($CC,
# else cc, gcc or clang), a file per process; cmake and ninja are not needed. Work files go to
# $RK_H200_WORK (default /tmp/rk-h200). Each step has a time limit, so the whole stays under 8 minutes.
set -u -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
H="$ROOT/bench/h200"
PTX="$H/ptx"
WORK="${RK_H200_WORK:-/tmp/rk-h200}"
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
CC="${CC:-$(command -v cc || command -v gcc || command -v clang || true)}"
PY="$(command -v python3 || command -v python || true)"
for t in cmake ninja nvcc ptxas; do
    printf '  %-8s %s\n' "$t" "$(command -v "$t" || echo 'not found (not needed)')"
done
printf '  %-8s %s\n' cc "${CC:-not found}" python "${PY:-not found}"
if [ ! -f "$PTX/index.tsv" ]; then
    say "no $PTX/index.tsv: run bash bench/h200/prepare.sh on the build machine first"
    STATUS=1
    finish
fi
cat "$PTX/ptxas.txt" 2>/dev/null | head -1 | sed 's/^/  PTX checked by: /'

# ---- the runtime, without the compiler --------------------------------------------------------------
build() {
    [ -n "$CC" ] || { echo "no C compiler (cc, gcc or clang)"; return 1; }
    cd "$ROOT" || return 1
    local obj="$WORK/obj"
    rm -rf "$obj"
    mkdir -p "$obj"
    local srcs=(support/*.c runtime/*.c runtime/interp/*.c compiler/tir/*.c compiler/layout/*.c
        runtime/api/*.c runtime/device/*.c runtime/cache/*.c runtime/tune/*.c runtime/profile/*.c runtime/bundle/*.c)
    if [ "$(uname -m)" = x86_64 ]; then
        srcs+=(runtime/emu/*.c)
    else
        # The emulator's fibers are x86-64 assembly: leave the emu device out.
        local stub="$WORK/emu_stub.c"
        srcs=("${srcs[@]/runtime\/device\/emu_dev.c/}")
        cat > "$stub" <<'EOF'
#include <stdio.h>
#include "runtime/device/device.h"
#include "runtime/emu/emu.h"
rk_status rt_emu_open(Allocator al, RtDevice **out, char *msg, size_t msglen)
{
    (void)al;
    *out = NULL;
    snprintf(msg, msglen, "no emu device: this runtime was built without the emulator (x86-64 only)");
    return RK_ENODEVICE;
}
void emu_mem_register(const void *base, size_t bytes) { (void)base; (void)bytes; }
void emu_mem_unregister(const void *base) { (void)base; }
EOF
        srcs+=("$stub")
    fi
    export RK_CC="$CC" RK_OBJ="$obj"
    export RK_CFLAGS="-std=c11 -O2 -g -D_GNU_SOURCE -fvisibility=hidden -Wall -Wno-unused-parameter -I. -Iinclude"
    # One compiler per source file, all cores; an object per file, named after its path.
    printf '%s\n' "${srcs[@]}" | grep . | xargs -P "$(nproc)" -I{} sh -c \
        'o="$RK_OBJ/$(echo "{}" | tr / _ | sed "s/\.c$/.o/")"; $RK_CC $RK_CFLAGS -c "{}" -o "$o" || { echo "FAILED: {}"; exit 255; }' ||
        return 1
    ar rcs "$WORK/librk_rt.a" "$obj"/*.o || return 1
    $CC $RK_CFLAGS -DRK_SMOKE_NO_COMPILER tests/device/cuda_smoke.c tests/device/prebuilt.c "$WORK/librk_rt.a" \
        -lpthread -ldl -lm -o "$WORK/cuda_smoke" || return 1
    $CC $RK_CFLAGS bench/h200/rk_bench.c tests/device/prebuilt.c "$WORK/librk_rt.a" -lpthread -ldl -lm \
        -o "$WORK/rk_bench" || return 1
    $CC $RK_CFLAGS -DRK_RUN_NO_COMPILER -DRK_RUN_KERNELS=\"tests/run/kernels\" tests/run/*.c tests/device/prebuilt.c \
        "$WORK/librk_rt.a" -lpthread -ldl -lm -o "$WORK/run_harness" || return 1
    $CC $RK_CFLAGS bench/h200/spec_bench.c "$WORK/librk_rt.a" -lpthread -ldl -lm -o "$WORK/spec_bench" || return 1
    echo "built $(ls "$obj" | wc -l) runtime objects, cuda_smoke, rk_bench, run_harness and spec_bench"
}

if [ "$MODE" != py ]; then
    say "building the runtime with $CC (log: build.log)"
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
    (cd "$ROOT" && timeout 120 "$WORK/cuda_smoke" --load "$PTX/smoke") 2>&1 | tee "$WORK/smoke.log"
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
    (cd "$ROOT" && "$WORK/run_harness" --device=cuda --load "$CASES" --list ${RK_CASE_FILTERS:-}) |
        awk '{print $1}' > "$WORK/case_names"
    (cd "$ROOT" && xargs -P "$(nproc)" -I{} sh -c 'timeout 120 "$0" --load "$1" --device=cuda "={}" > "$2/$(echo "{}" | tr / _)" 2>&1 || echo "{}"' \
        "$WORK/run_harness" "$CASES" "$WORK/case_logs" < "$WORK/case_names") > "$WORK/case_failed"
    n=$(wc -l < "$WORK/case_names"); nf=$(wc -l < "$WORK/case_failed")
    { for c in $(cat "$WORK/case_failed"); do grep -v "^run_harness" "$WORK/case_logs/$(echo "$c" | tr / _)" | head -6; done
      echo "run tests on cuda: $n cases, $nf failed (seed $RK_RUN_SEED)"; } | tee "$WORK/cases.log" | tail -80
    say "run tests: $nf of $n failed"
    [ "$nf" = 0 ] || STATUS=1
fi

# ---- rk ---------------------------------------------------------------------------------------------
if [ "$MODE" = all ] || [ "$MODE" = rk ]; then
    say "rk benchmark"
    (cd "$ROOT" && timeout 200 "$WORK/rk_bench" --ptx "$PTX" --tsv "$WORK/rk.tsv" ${RK_BENCH_ARGS:-}) 2>&1 | tee "$WORK/rk.log"
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
    (cd "$ROOT" && RK_CACHE_DIR="$WORK/spec_cache" timeout 420 "$WORK/spec_bench" --bundles "$BUNDLES" ${RK_SPEC_ARGS:-}) 2>&1 |
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
