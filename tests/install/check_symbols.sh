#!/bin/bash
# The symbol test (issue 18): what the installed libraries define for the programs that link them.
# Both export the public API of rk.h and nothing else (rk_): a bare internal name such as bind or lookup
# would collide with POSIX or with the program's own functions when it links rk statically. (Inside
# the libraries, globals also carry their module's prefix: STYLE.md.) The test installs BUILD_DIR into
# a temporary prefix, runs nm on both libraries and lists every defined global that breaks the rule.
# Exit 77 (skipped) when nm or cmake is missing.
#   usage: check_symbols.sh BUILD_DIR
set -u
build=$1
for tool in cmake nm; do
    command -v $tool >/dev/null 2>&1 || { echo "symbol test: $tool not found: skipped"; exit 77; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rk-symbols-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; echo "symbol test: FAIL: cmake --install"; exit 1; }
lib=$(dirname "$(find "$tmp" -name librk.a | head -1)")
[ -f "$lib/librk.a" ] && [ -f "$lib/librk.so" ] || { echo "symbol test: FAIL: librk.a or librk.so was not installed"; exit 1; }

# Both libraries define the public API and nothing else: librk.a is one object whose internal (hidden)
# symbols are local (CMakeLists.txt, rk_static), librk.so exports only what RK_API marks.
report() { # library, its defined global symbols
    local what=$1 list
    # names with two leading underscores belong to the implementation: the sanitizers' instrumentation
    # defines some (___asan_globals_registered, __start_asan_globals) in ASan builds
    list=$(grep -v '^rk_' | grep -v '^__' | sort -u)
    if [ -n "$list" ]; then
        echo "symbol test: FAIL: $what defines globals outside the public API (rk_):"
        echo "$list" | sed 's/^/  /'
        bad=1
    fi
}
bad=0
report librk.a < <(nm -g --defined-only "$lib/librk.a" 2>/dev/null | awk 'NF >= 3 { print $NF }')
report librk.so < <(nm -D --defined-only "$lib/librk.so" | awk 'NF >= 3 { print $NF }')
for s in bind lookup; do # the two that started it: POSIX's bind(2), and a name every program has
    nm -g --defined-only "$lib/librk.a" "$lib/librk.so" 2>/dev/null | awk '{ print $NF }' | grep -qx "$s" &&
        { echo "symbol test: FAIL: '$s' is defined"; bad=1; }
done
[ $bad = 0 ] || exit 1
echo "symbol test: ok ($(nm -g --defined-only "$lib/librk.a" 2>/dev/null | awk 'NF >= 3' | wc -l) globals in librk.a," \
     "$(nm -D --defined-only "$lib/librk.so" | awk 'NF >= 3' | wc -l) exported by librk.so, all rk_)"
