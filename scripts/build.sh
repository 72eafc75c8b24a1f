#!/usr/bin/env bash
# Configures and builds rk in build/ (Release with debug info, warnings as errors).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DRK_WERROR=ON >/dev/null
ninja -C build
