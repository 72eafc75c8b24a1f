#!/usr/bin/env bash
# Installs what rk needs to build and test on Debian 12, with apt-get, only when something is missing
# (a second run takes well under a second). Needs root, or sudo, for the install itself.
set -euo pipefail

pkgs=(build-essential cmake ninja-build git python3
      llvm-22-dev lld-22 clang-22 llvm-22-tools libclang-rt-22-dev
      re2c lemon
      libamdhip64-5)  # HIP 5 runtime: the hip device's no-GPU test (tests/unit/test_api_hip.c)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
