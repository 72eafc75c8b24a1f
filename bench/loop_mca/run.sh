#!/usr/bin/env bash
# rk's loop cycle model against llvm-mca-22, on loops without global loads (where llvm-mca is right).
#
#   bench/loop_mca/run.sh [BUILD] [ISA_DIR]
#
# BUILD: an rk build folder with its libraries (default build); ISA_DIR: disassembly of rk's and
# Triton's code objects as bench/vs_triton writes it (default bench/vs_triton/out/isa, skipped when
# missing). Builds loop_model (loop_model.c) into /tmp and runs compare.py; see compare.py for what is
# compared and how. Takes a few seconds.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
ISA=${2:-$ROOT/bench/vs_triton/out/isa}
LLVM_LIB=/usr/lib/llvm-22/lib
TOOL=${TMPDIR:-/tmp}/rk_loop_model
cc -O2 -std=c11 -Wall -I"$ROOT" -I"$ROOT/include" "$HERE/loop_model.c" -o "$TOOL" "$BUILD/librk_compiler.a" \
    "$BUILD/librk_runtime.a" "$BUILD/librk_ir.a" "$BUILD/librk_support.a" -L"$LLVM_LIB" -lLLVM -Wl,-rpath,"$LLVM_LIB" -lpthread -ldl -lm
if [[ -d $ISA ]]; then
    python3 "$HERE/compare.py" "$TOOL" "$ISA"
else
    python3 "$HERE/compare.py" "$TOOL"
fi
