#!/usr/bin/env bash
# README command 1, the main job: set up and build rk, compile examples/matmul.tile to matmul.hsaco for
# MI300X and print its resource report, then run the matmul example on the best device present (an AMD
# GPU through HIP if there is one, else rk's emulator of a gfx942 workgroup): autotune (a progress
# line per config), a timed run, and the check against a double-precision reference.
#
#   scripts/demo.sh                  sizes for the device: 4096³ on a GPU, 256³ on the emulator
#   scripts/demo.sh M=512 N=512 K=512 dtype=f16      any arguments of build/examples/ex_matmul
#   RK_DEVICE=emu scripts/demo.sh    choose the device
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
echo "== building rk (build/, gcc, -Werror; a few minutes on 2 cores the first time)"
if ! log=$(scripts/build.sh 2>&1); then
  printf '%s\n' "$log" | tail -n 40
  echo "demo: the build failed (the last lines of its output are above)" >&2
  exit 1
fi

echo
echo "== build/rkc examples/matmul.tile -o matmul.hsaco --report   (gfx942: MI300X)"
build/rkc examples/matmul.tile -o matmul.hsaco --report
echo "(matmul.hsaco: $(wc -c < matmul.hsaco) bytes, an AMDGPU code object loadable with hipModuleLoad)"

echo
echo "== build/examples/ex_matmul $*   (autotune, time, check)"
export RK_PRINT_AUTOTUNING=${RK_PRINT_AUTOTUNING:-1}   # each config's time, as it is measured
build/examples/ex_matmul "$@"
