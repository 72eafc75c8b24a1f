#!/bin/bash
# icount.sh: instructions executed by one rkc process per file (valgrind's callgrind, "Collected"):
# a compile-time figure that does not move with the machine's load or clock, for before/after
# comparisons (docs/performance.md).
#
#   bash bench/icount.sh "RKC [options]" FILE.tile...     (run from the source tree)
rkc=$1; shift
for f in "$@"; do
  n=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null $rkc "$f" -o /tmp/icount.$$.hsaco 2>&1 | grep -o "Collected : [0-9]*" | grep -o "[0-9]*")
  rm -f /tmp/icount.$$.hsaco
  printf "%-28s %8.1f M\n" "$(basename "$f")" "$(echo "$n/1000000" | bc -l)"
done
