#!/usr/bin/env bash
# README command 1: set up, build, and run the main job on the furthest stage the pipeline reaches
# today: compile examples/matmul.tile and show the result.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
echo "== rkc --emit=ast examples/matmul.tile (first 40 lines)"
build/rkc --emit=ast examples/matmul.tile | head -n 40
