#!/usr/bin/env bash
# README command 2 (and CI): set up, then build and run every test twice — a gcc build with warnings
# as errors, and a clang-22 build with -fsanitize=address,undefined — then the thread test under
# ThreadSanitizer, then fuzz the front end, the tile IR, the whole pipeline and its resource bounds for 60 s each.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc)

echo "== build (gcc, -Werror)"
cmake -S . -B build -G Ninja -DRK_WERROR=ON >/dev/null
ninja -C build
echo "== tests"
(cd build && ctest --output-on-failure -j"$jobs")

echo "== build (clang-22, address and undefined sanitizers)"
CC=clang-22 cmake -S . -B build-asan -G Ninja -DRK_WERROR=ON -DRK_SANITIZE=ON -DRK_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=Debug >/dev/null
ninja -C build-asan
echo "== tests under sanitizers"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j"$jobs")

echo "== threads under ThreadSanitizer (clang-22): separate contexts compiling, tuning, launching"
CC=clang-22 cmake -S . -B build-tsan -G Ninja -DRK_WERROR=ON -DRK_TSAN=ON >/dev/null
ninja -C build-tsan test_api_threads
TSAN_OPTIONS=halt_on_error=1 RK_CACHE_DIR="$PWD/build-tsan/test-cache" build-tsan/tests/test_api_threads

echo "== fuzzing the front end, the tile IR, the pipeline, the pipeline to LLVM IR and the pipeline's resource bounds for ${RK_FUZZ_SECONDS:-60} s each"
scripts/fuzz.sh build-asan "${RK_FUZZ_SECONDS:-60}"
echo "== all tests passed"
