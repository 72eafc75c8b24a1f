#!/usr/bin/env bash
# Runs the `// RUN:` lines of one golden test, lit-style.
#   %s    the test file        %rkc   the rkc binary       FileCheck   LLVM's FileCheck
#   %S    the test's folder    %t     a scratch path        %root       the source tree
# A test passes when every RUN line exits 0 (use `not` for commands that must fail; `not` requires
# exit status 1, the status of an error in the tile program). Exit 77 from a RUN line skips the test.
set -u
file=$1 rkc=$2 filecheck=$3 root=$4 build=$5
dir=$(cd "$(dirname "$file")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
not() { "$@"; local rc=$?; [ "$rc" -eq 1 ]; }
export -f not
export PATH="$(dirname "$rkc"):$PATH"
n=0
while IFS= read -r line; do
  cmd=${line#*RUN:}
  cmd=${cmd//%rkc/$rkc}
  cmd=${cmd//FileCheck/$filecheck}
  cmd=${cmd//%root/$root}
  cmd=${cmd//%build/$build}
  cmd=${cmd//%S/$dir}
  cmd=${cmd//%s/$file}
  cmd=${cmd//%t/$tmp/t}
  n=$((n + 1))
  (cd "$dir" && bash -o pipefail -c "$cmd")
  rc=$?
  if [ $rc -eq 77 ]; then echo "skipped: RUN line $n"; exit 77; fi
  if [ $rc -ne 0 ]; then echo "FAILED (exit $rc): RUN line $n: $cmd"; exit 1; fi
done < <(grep -E '^\s*(//|#) RUN:' "$file")
[ $n -gt 0 ] || { echo "no RUN lines in $file"; exit 1; }
exit 0
