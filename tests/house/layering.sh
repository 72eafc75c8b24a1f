#!/bin/bash
# layering.sh: the libraries use only the ones below them (docs/internals.md, "Layering"):
#   rk_support (support/) <- rk_ir (isa/, compiler/tir/, compiler/layout/) <- rk_runtime (runtime/)
#   <- rk_compiler (the rest of compiler/, and tools/).
# Checks the quoted #includes of each folder against that order (and that the emulator reads neither
# the IR nor the compiler's layouts), that the compiler reaches none of the runtime's private headers
# (the emulator, api_internal.h, devices, the interpreter) even through the runtime headers it may
# include, and that no library declares a weak symbol.
#
#   bash tests/house/layering.sh [ROOT]      (exit 0: clean; 1: the offending lines are printed)
set -u
ROOT=${1:-.}
cd "$ROOT" || exit 2
bad=0
fail() { echo "layering: $1"; printf '%s\n' "$2"; bad=1; }
incs() { grep -rnoE '^#include "[^"]+"' --include='*.c' --include='*.h' --include='*.def' "$@" 2>/dev/null; }

# folder, the include prefixes it may use besides its own files
check() {
    local dir=$1 allow=$2 hits
    hits=$(incs "$dir" | grep -vE "#include \"($allow)" | grep -vE '#include "[^/"]+"$')
    [ -z "$hits" ] || fail "$dir includes above its layer (allowed: $allow):" "$hits"
}
check support/ 'support/'
check isa/ 'isa/'
check compiler/tir/ 'compiler/tir/|compiler/layout/|isa/|support/'
check compiler/layout/ 'compiler/tir/|compiler/layout/|isa/|support/'
check runtime/ 'runtime/|compiler/tir/|compiler/layout/|isa/|support/|rk.h'
# the emulator checks the compiler: it derives its register layouts itself, never from compiler/layout
check runtime/emu/ 'runtime/|isa/|support/'

# Every header the compiler and rkc reach, through any chain of quoted includes.
declare -A seen
nseen=0
queue=()
for f in $(incs compiler tools | sed -E 's/.*#include "([^"]+)"/\1/' | sort -u); do queue+=("$f"); done
private=()
while [ ${#queue[@]} -gt 0 ]; do
    h=${queue[0]}
    queue=("${queue[@]:1}")
    [ -n "${seen[$h]:-}" ] && continue
    seen[$h]=1
    nseen=$((nseen + 1))
    case $h in
    runtime/emu/* | runtime/api/api_internal.h | runtime/device/* | runtime/interp/*) private+=("$h") ;;
    esac
    p=$h
    [ -f "$p" ] || p=include/$h
    [ -f "$p" ] || continue
    for g in $(grep -oE '^#include "[^"]+"' "$p" | sed -E 's/#include "([^"]+)"/\1/'); do
        case $g in */*) ;; *) [ -f "$(dirname "$h")/$g" ] && g=$(dirname "$h")/$g ;; esac
        queue+=("$g")
    done
done
if [ ${#private[@]} -gt 0 ]; then
    fail "the compiler reaches the runtime's private headers:" "$(printf '%s\n' "${private[@]}")"
    echo "give it what it needs through runtime/api/program_build.h, or isa/ for facts both sides share"
fi

hits=$(grep -rnE '__attribute__ *\(\(weak|#pragma weak' --include='*.c' --include='*.h' support isa runtime compiler)
[ -z "$hits" ] || fail "weak symbols (a registration instead: RtSpecSrc.compile is how the runtime calls back):" "$hits"

[ $bad = 0 ] && echo "layering: support <- ir <- runtime <- compiler, $nseen headers reached from the compiler, no weak symbols"
exit $bad
