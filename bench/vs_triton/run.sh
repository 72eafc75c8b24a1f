#!/usr/bin/env bash
# rk against Triton on gfx942, on this machine, no GPU needed: compile time and the code each makes.
#
#   bench/vs_triton/run.sh [--no-docs]
#
# 1. Triton in a virtual environment of this benchmark only (bench/vs_triton/.venv; never a
#    dependency of rk, its build or its tests), installed from the package index when missing.
# 2. rk built in build-vt (cmake + ninja) when needed, and two small tools against its libraries:
#    hsaco_report (rk's ISA report for any code object) and rk_time (rk's in-process compile time).
# 3. Every case of cases.py compiled by both: rk with rkc (VT_RUNS cold runs, timed end to end by
#    timeit_cmd.py, wall-clock and CPU time, and rk_time), Triton with triton_side.py (VT_RUNS fresh processes, each with an empty
#    TRITON_CACHE_DIR; then one warm call). Both code objects are read by hsaco_report, the same
#    ruler, and disassembled into out/isa/ for reading.
# 4. table.py prints the table and (unless --no-docs) writes it into docs/performance.md; for the
#    sweep set (VT_SET=sweep: the matmul over every tile both can run, cases.py) sweep.py prints
#    each configuration's main loop by the cycle model on both sides and the sum of it, and the docs
#    are left alone.
#
# Exit: 0 when everything ran (whether or not rk met its targets), 1 when a compile or a tool failed
# (the table still prints, with the failures in it), 2 for a bad command line.
#
# Environment: VT_RUNS (5), VT_BUILD (build-vt), VT_SKIP_BUILD=1 (take rk as built there), VT_OUT (bench/vs_triton/out), VT_TRITON_VERSION
# (3.9.0), VT_SET (main or sweep: cases.py's sets), VT_CASES (a grep -E pattern over the case ids), VT_TRITON_POINTER_RANGE (see
# triton_side.py), TRITON_HIP_LLD_PATH (Debian's ld.lld-22).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${VT_BUILD:-$ROOT/build-vt}
OUT=${VT_OUT:-$HERE/out}
RUNS=${VT_RUNS:-5}
SET=${VT_SET:-main}
TRITON_VERSION=${VT_TRITON_VERSION:-3.9.0}
VENV=$HERE/.venv
LLVM_LIB=/usr/lib/llvm-22/lib
DOCS=1
case "${1:-}" in
    "") ;;
    --no-docs) DOCS=0 ;;
    *) echo "usage: bench/vs_triton/run.sh [--no-docs]" >&2; exit 2 ;;
esac

if [[ -z "${TRITON_HIP_LLD_PATH:-}" ]]; then
    for l in /usr/bin/ld.lld-22 /usr/lib/llvm-22/bin/ld.lld; do
        [[ -x $l ]] && { TRITON_HIP_LLD_PATH=$l; break; }
    done
fi
export TRITON_HIP_LLD_PATH TRITON_DEFAULT_FP_FUSION=1
# Triton reads AMDGCN_USE_BUFFER_OPS and the like; keep the user's own settings out of the run
unset AMDGCN_USE_BUFFER_OPS TRITON_ALWAYS_COMPILE TRITON_KERNEL_DUMP TRITON_DUMP_DIR TRITON_OVERRIDE_ARCH || true

say() { printf '%s\n' "$*" >&2; }
now_ms() { local t; t=$(date +%s%N); echo $((t / 1000000)); }
SECONDS=0

# ---- 1. Triton -----------------------------------------------------------------------------------
if ! "$VENV/bin/python" -c "import triton" 2>/dev/null; then
    say "== setting up Triton $TRITON_VERSION in $VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "triton==$TRITON_VERSION"
fi
TV=$("$VENV/bin/python" -c "import triton; print(triton.__version__)")
say "== Triton $TV ($VENV), ld.lld: ${TRITON_HIP_LLD_PATH:-none}"

# ---- 2. rk and the two tools ---------------------------------------------------------------------
mkdir -p "$OUT/bin" "$OUT/rk" "$OUT/triton" "$OUT/isa"
if [[ ${VT_SKIP_BUILD:-0} == 1 && -x $BUILD/rkc ]]; then
    say "== using rk as built in $BUILD (VT_SKIP_BUILD=1)"
else
    if [[ ! -f $BUILD/build.ninja ]]; then
        say "== configuring rk in $BUILD"
        cmake -S "$ROOT" -B "$BUILD" -G Ninja >/dev/null
    fi
    say "== building rkc in $BUILD"
    ninja -C "$BUILD" -j2 rkc >"$OUT/build.log" 2>&1 || { cat "$OUT/build.log" >&2; say "rk did not build"; exit 1; }
fi
LIBS=(-Wl,--start-group "$BUILD/librk_compiler.a" "$BUILD/librk_runtime.a" "$BUILD/librk_ir.a" "$BUILD/librk_support.a" -Wl,--end-group -L"$LLVM_LIB" -lLLVM
      -Wl,-rpath,"$LLVM_LIB" -lpthread -ldl -lm)
for tool in hsaco_report rk_time; do
    cc -O2 -std=c11 -Wall -I"$ROOT" -I"$ROOT/include" "$HERE/$tool.c" -o "$OUT/bin/$tool" "${LIBS[@]}"
done
RKC=$BUILD/rkc
OBJDUMP=$(command -v llvm-objdump-22 || echo "$LLVM_LIB/../bin/llvm-objdump")

# ---- 3. the cases --------------------------------------------------------------------------------
RAW=$OUT/raw.jsonl
: >"$RAW"
FAILED=0
python3 "$HERE/cases.py" list "$SET" >/dev/null 2>&1 || { say "no case set VT_SET=$SET (main or sweep)"; exit 2; }
mapfile -t CASES < <(python3 "$HERE/cases.py" list "$SET" | grep -E "^(${VT_CASES:-.*})"$'\t' || true)
[[ ${#CASES[@]} -gt 0 ]] || { say "no case matches VT_CASES=${VT_CASES:-}"; exit 2; }
emit() { printf '%s\n' "$1" >>"$RAW"; }
n=0
for line in "${CASES[@]}"; do
    n=$((n + 1))
    IFS=$'\t' read -r id tile defs <<<"$line"
    say "[$n/${#CASES[@]}] $id"
    dargs=()
    for d in $defs; do dargs+=(-D "$d"); done
    # Triton's launcher marks a tensor under 2 GiB `tt.pointer_range = 32` (buffer loads and stores):
    # rk gets the same fact, x<2G, on every pointer parameter of the file's kernels
    ptrs=$(grep -o '[A-Za-z_][A-Za-z0-9_]*: *\*' "$HERE/kernels/$tile" | sed 's/: *\*$/<2G/' | sort -u | tr '\n' ' ')
    [[ -n $ptrs ]] && dargs+=(--assume "$ptrs")
    # rk: the first compile with --report=json (the report rkc prints), then timed plain compiles
    rkhs=$OUT/rk/$id.hsaco
    if "$RKC" --report=json "$HERE/kernels/$tile" "${dargs[@]}" -o "$rkhs" >"$OUT/rk/$id.rkc.json" 2>"$OUT/rk/$id.err"; then
        times=$(python3 "$HERE/timeit_cmd.py" "$RUNS" "$OUT/rk/$id.err" -- "$RKC" "$HERE/kernels/$tile" "${dargs[@]}" -o "$rkhs") \
            || { times='{"wall_ms": [], "cpu_ms": []}'; FAILED=1; }
        inproc=$("$OUT/bin/rk_time" $((RUNS + 1)) "$ROOT/stdlib" "$HERE/kernels/$tile" $defs) || { inproc=null; FAILED=1; }
        report=$("$OUT/bin/hsaco_report" --json "$rkhs")
        "$OBJDUMP" -d --mcpu=gfx942 "$rkhs" >"$OUT/isa/$id.rk.s"
        emit "{\"case\": \"$id\", \"side\": \"rk\", \"tile\": \"$tile\", \"rkc\": $times, \"inproc\": $inproc, \"report\": $report}"
        say "    rk      rkc $times; in one process $inproc"
    else
        FAILED=1
        err=$(head -c 400 "$OUT/rk/$id.err" | tr '\n"\\' "   ")
        emit "{\"case\": \"$id\", \"side\": \"rk\", \"tile\": \"$tile\", \"error\": \"$err\"}"
        say "    rk      FAILED: $err"
    fi
    # Triton: fresh processes with fresh caches
    ok=1
    runs=()
    walls=()
    for ((i = 0; i < RUNS; i++)); do
        cache=$(mktemp -d "${TMPDIR:-/tmp}/vt-triton-cache-XXXXXX")
        t0=$(now_ms)
        if r=$(TRITON_CACHE_DIR=$cache "$VENV/bin/python" "$HERE/triton_side.py" compile "$id" "$OUT/triton" 2>"$OUT/triton/$id.err"); then
            walls+=($(($(now_ms) - t0)))
            runs+=("$r")
        else
            ok=0
        fi
        rm -rf "$cache"
        [[ $ok == 1 ]] || break
    done
    if [[ $ok == 1 ]]; then
        tths=$OUT/triton/$id.hsaco
        shared=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["shared"])' "${runs[0]}")
        report=$("$OUT/bin/hsaco_report" --json --dynamic-lds "$shared" "$tths")
        "$OBJDUMP" -d --mcpu=gfx942 "$tths" >"$OUT/isa/$id.triton.s"
        emit "{\"case\": \"$id\", \"side\": \"triton\", \"runs\": [$(IFS=,; echo "${runs[*]}")], \"process_ms\": [$(IFS=,; echo "${walls[*]}")], \"report\": $report}"
        say "    triton  $(python3 -c 'import json,sys; print(" ".join(str(round(json.loads(a)["compile_ms"])) for a in sys.argv[1:]))' "${runs[@]}") ms (compile call), processes ${walls[*]} ms"
    else
        FAILED=1
        err=$(tail -c 400 "$OUT/triton/$id.err" | tr '\n"\\' "   ")
        emit "{\"case\": \"$id\", \"side\": \"triton\", \"error\": \"$err\"}"
        say "    triton  FAILED: $err"
    fi
done

# ---- 4. the table --------------------------------------------------------------------------------
CMDLINE="bench/vs_triton/run.sh"
for v in VT_SET VT_CASES VT_SKIP_BUILD VT_BUILD VT_RUNS; do
    [[ -n ${!v:-} ]] && CMDLINE="$v=${!v} $CMDLINE"
done
if [[ $SET == sweep ]]; then
    python3 "$HERE/sweep.py" --raw "$RAW" || FAILED=1
else
    targs=(--raw "$RAW" --triton-version "$TV" --runs "$RUNS" --command "$CMDLINE")
    [[ $DOCS == 1 ]] && targs+=(--docs "$ROOT/docs/performance.md")
    python3 "$HERE/table.py" "${targs[@]}" || FAILED=1
fi
say "== done in ${SECONDS} s; raw results in $RAW, disassembly in $OUT/isa/"
exit $FAILED
