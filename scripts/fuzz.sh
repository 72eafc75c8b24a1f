#!/usr/bin/env bash
# Runs the libFuzzer targets of a RK_FUZZ build for a given number of seconds each: the front end seeded
# with the examples, the stdlib and the golden tests, with a dictionary of the language's keywords and
# operators (tests/fuzz/tile.dict); the tile IR's text form seeded with the golden .tir files, with a
# dictionary of its op names and keywords (tests/fuzz/tir.dict); then the whole pipeline (source to
# gfx942 and emu code objects, tests/fuzz/fuzz_pipeline.c) seeded like the front end, and the same
# stopping at the verified LLVM module (fuzz_lower: every stage rk owns, far more inputs a second); and the
# pipeline held to resource bounds (fuzz_budget: a compile over 20 s, an input over 30 s or 2 GB is a
# finding), seeded with tests/fuzz/budget's kernels near the budgets. A crash, leak, hang or internal
# error fails the run. docs/reliability.md has the longer campaigns.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-asan}
secs=${2:-60}
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
# libFuzzer writes crash-, leak-, timeout- and slow-unit- files where it is told: the build folder,
# never the source tree (a slow unit once landed in a commit from the top folder).
artifacts="$build/fuzz-artifacts/"
mkdir -p "$artifacts"
find examples stdlib tests/golden -name '*.tile' -exec cp {} "$corpus"/ \; 2>/dev/null || true
"$build"/tests/fuzz_front -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts" \
  -dict=tests/fuzz/tile.dict "$corpus" 2>&1 | tail -n 12
tircorpus=$(mktemp -d)
trap 'rm -rf "$corpus" "$tircorpus"' EXIT
find tests/golden \( -name '*.tir' -o -name '*.tir.pending' \) -exec cp {} "$tircorpus"/ \; 2>/dev/null || true
"$build"/tests/fuzz_tir -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts" \
  -dict=tests/fuzz/tir.dict "$tircorpus" 2>&1 | tail -n 12
"$build"/tests/fuzz/fuzz_pipeline -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$artifacts" \
  -dict=tests/fuzz/tile.dict "$corpus" 2>&1 | tail -n 12
"$build"/tests/fuzz/fuzz_lower -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$artifacts" \
  -dict=tests/fuzz/tile.dict "$corpus" 2>&1 | tail -n 12
budgetcorpus=$(mktemp -d)
trap 'rm -rf "$corpus" "$tircorpus" "$budgetcorpus"' EXIT
cp tests/fuzz/budget/*.tile "$budgetcorpus"/
# ASan keeps 256 MB of freed memory in quarantine by default; with the budget seeds' LLVM compiles
# that made the process's peak RSS, which -rss_limit_mb bounds, vary from 1.4 to 2.06 GB between runs
# of the same seeds (the compiles themselves peak at 300 MB in a release build). With 64 MB it is
# 1.11-1.14 GB: the bound then measures the compiles, not the quarantine (docs/reliability.md).
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=64" \
"$build"/tests/fuzz/fuzz_budget -max_total_time="$secs" -timeout=30 -rss_limit_mb=2048 -len_control=0 -print_final_stats=1 \
  -artifact_prefix="$artifacts" -dict=tests/fuzz/tile.dict "$budgetcorpus" 2>&1 | tail -n 12
