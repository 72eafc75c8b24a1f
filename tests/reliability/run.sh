#!/usr/bin/env bash
# The hostile-input campaign (issue 23, docs/reliability.md section 6): runs every case of the
# tests/reliability/*.cases files and checks its expected outcome. ctest registers it once per file
# (reliability/NAME), in the gcc build and in the ASan/UBSan build alike.
#
#   run.sh CASES_FILE RKC BIN_DIR [NAME...]       NAME...: only these cases
#
# A case is a block of `key: value` lines; blocks are separated by blank lines, `#` lines are comments.
#   case: NAME         starts a case
#   why: TEXT          what it attacks and what it did before its fix (the finding's number)
#   setup: CMD         run first, in order; each must exit 0 (not timed)
#   run: CMD           the command under test (bash -o pipefail), run in the case's scratch folder
#   exit: N            its exit status (default 0); `exit: 0|3` either; `exit: !0` any failure (1 .. 127)
#   says: WORDS        stdout + stderr of `run` contain WORDS (fixed string; repeatable)
#   not-says: WORDS    ... never contain WORDS (repeatable)
#   time: S            `run` ends within S seconds (default 10; killed at S + 20)
#   max-output: BYTES  stdout + stderr of `run` together at most BYTES (default 1 MiB)
#   untouched: PATH    PATH's kind, device numbers, inode, size, mode, time and contents are the same
#                      after `run` as before (repeatable)
#   check: CMD         run last, in order; each must exit 0
#   see: PATH          a test elsewhere that checks the same finding more closely (must exist)
#   known: TEXT        an open finding: the case fails today (reported, not counted); when it passes,
#                      that is a failure until the line is removed
#   known-sanitized: TEXT   the same, in a sanitizer build only (REL_SANITIZED=1, set by CMake for
#                      RK_SANITIZE builds): a finding only a sanitizer sees; elsewhere the case must pass
# Substitutions: %rkc the rkc binary, %bin the drivers built by tests/reliability/CMakeLists.txt,
# %in tests/reliability/inputs, %root the source tree, %t the case's scratch folder (also its cwd),
# %T the folder of the whole file's run (shared by its cases: a cache they may share).
#
# Every case, whatever it says, must also: leave /dev/null, /dev/full and /dev/zero character devices
# with the same numbers; print no sanitizer report ("runtime error:", "ERROR: AddressSanitizer", a
# SUMMARY line; a case that asks for memory past the machine sets allocator_may_return_null); never say
# "internal error"; and not be killed by a signal. RK_CACHE_DIR is the case's own folder.
set -u
cases=$(realpath "$1") rkc=$(realpath "$2") bin=$(realpath -m "$3")
shift 3
only=" $* "
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export RK_EMU_TIMEOUT=${RK_EMU_TIMEOUT:-20}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

# kind, device numbers, inode, size, mode, modification time, contents (regular files)
fingerprint() {
  local p=$1
  if [ -e "$p" ] || [ -L "$p" ]; then
    stat -c '%F %t:%T %i %s %a %Y' -- "$p"
    if [ -f "$p" ] && [ -r "$p" ]; then cksum < "$p"; fi
    if [ -L "$p" ]; then readlink -- "$p"; fi
  else
    echo absent
  fi
}
devices() { stat -c '%n %F %t:%T' /dev/null /dev/full /dev/zero; }

subst() {
  local c=$1
  c=${c//%rkc/$rkc}
  c=${c//%bin/$bin}
  c=${c//%in/$here/inputs}
  c=${c//%root/$root}
  c=${c//%T/$scratch}
  c=${c//%t/$t}
  printf '%s' "$c"
}

failures=0 total=0
name="" setups=() run="" want_exit=0 says=() notsays=() limit=10 maxout=1048576 untouched=() checks=() sees=() known=""
known_failures=0

fail() { if [ -n "$known" ]; then echo "KNOWN $name: $*"; else echo "FAIL $name: $*"; fi; bad=1; }

run_case() {
  [ -n "$name" ] || return 0
  if [ "$only" != "  " ] && [[ "$only" != *" $name "* ]]; then return 0; fi
  total=$((total + 1))
  bad=0
  t=$scratch/$name
  mkdir -p "$t"
  local out=$t.out dev_before s c p i
  dev_before=$(devices)
  for s in "${sees[@]}"; do [ -e "$root/$s" ] || fail "see: $s does not exist"; done
  for s in "${setups[@]}"; do
    c=$(subst "$s")
    (cd "$t" && RK_CACHE_DIR=$t/cache bash -o pipefail -c "$c") > "$t.setup" 2>&1 || { fail "setup failed: $c"; sed 's/^/    /' "$t.setup" | tail -n 20; }
  done
  local before=()
  for p in "${untouched[@]}"; do before+=("$(fingerprint "$(subst "$p")")"); done
  local cmd
  cmd=$(subst "$run")
  c=$cmd
  local start end rc ms
  start=$(date +%s%N)
  (cd "$t" && RK_CACHE_DIR=$t/cache timeout -s KILL $((limit + 20)) bash -o pipefail -c "$c") > "$out" 2>&1
  rc=$?
  end=$(date +%s%N)
  ms=$(((end - start) / 1000000))
  if [ "$want_exit" = "!0" ]; then
    { [ $rc -ne 0 ] && [ $rc -lt 128 ]; } || fail "exit status $rc, expected a failure (1 .. 127)"
  elif [[ "|$want_exit|" != *"|$rc|"* ]]; then
    fail "exit status $rc, expected $want_exit"
  fi
  [ $ms -le $((limit * 1000)) ] || fail "took ${ms} ms, limit ${limit} s"
  local size
  size=$(stat -c %s "$out")
  [ "$size" -le "$maxout" ] || fail "printed $size bytes, limit $maxout"
  for s in "${says[@]}"; do grep -qF -- "$(subst "$s")" "$out" || fail "does not say: $s"; done
  for s in "${notsays[@]}"; do ! grep -qF -- "$(subst "$s")" "$out" || fail "says: $s"; done
  grep -qE 'runtime error:|ERROR: [A-Za-z]+Sanitizer|SUMMARY: [A-Za-z]+Sanitizer' "$out" && fail "a sanitizer report"
  grep -q 'internal error' "$out" && fail "an internal error"
  [ "$(devices)" = "$dev_before" ] || fail "a device node changed: $(devices | tr '\n' ' ')"
  i=0
  for p in "${untouched[@]}"; do
    [ "$(fingerprint "$(subst "$p")")" = "${before[$i]}" ] || fail "touched: $p"
    i=$((i + 1))
  done
  for s in "${checks[@]}"; do
    c=$(subst "$s")
    (cd "$t" && RK_CACHE_DIR=$t/cache bash -o pipefail -c "$c") > "$t.check" 2>&1 || { fail "check failed: $c"; sed 's/^/    /' "$t.check" | tail -n 20; }
  done
  if [ -n "$known" ] && [ $bad -ne 0 ]; then
    known_failures=$((known_failures + 1))
    echo "     (known: $known)"
  elif [ -n "$known" ]; then
    failures=$((failures + 1))
    echo "FAIL $name: passes now: remove its known: line ($known)"
  elif [ $bad -ne 0 ]; then
    failures=$((failures + 1))
    echo "    run: $cmd"
    echo "    exit $rc after ${ms} ms; output (last 30 lines):"
    tail -c 4000 "$out" | tail -n 30 | sed 's/^/    | /'
  else
    printf 'ok   %-40s %6d ms\n' "$name" "$ms"
  fi
  rm -rf "$t" "$t.out" "$t.setup" "$t.check"
}

reset_case() {
  name=$1 setups=() run="" want_exit=0 says=() notsays=() limit=10 maxout=1048576 untouched=() checks=() sees=() known=""
}

lineno=0
while IFS= read -r line || [ -n "$line" ]; do
  lineno=$((lineno + 1))
  case "$line" in
    '#'* | '') continue ;;
  esac
  key=${line%%:*}
  val=${line#*:}
  val=${val# }
  case "$key" in
    case) run_case; reset_case "$val" ;;
    why) ;;
    setup) setups+=("$val") ;;
    run) run=$val ;;
    exit) want_exit=$val ;;
    says) says+=("$val") ;;
    not-says) notsays+=("$val") ;;
    time) limit=$val ;;
    max-output) maxout=$val ;;
    untouched) untouched+=("$val") ;;
    check) checks+=("$val") ;;
    see) sees+=("$val") ;;
    known) known=$val ;;
    known-sanitized) [ "${REL_SANITIZED:-0}" = 1 ] && known=$val ;;
    *) echo "$cases:$lineno: unknown key '$key'"; exit 2 ;;
  esac
done < "$cases"
run_case

echo "$(basename "$cases"): $total cases, $failures failed, $known_failures known failures (open findings)"
[ $total -gt 0 ] || exit 1
[ $failures -eq 0 ]
