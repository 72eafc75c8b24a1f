#!/bin/bash
# The install test: `cmake --install` into a temporary prefix, then a small C program (consumer/main.c)
# built against that prefix with CMake (find_package(rk): rk::rk and rk::rk_static) and with
# pkg-config (rk and rk-static), each run on emu; and the installed rkc compiles and runs a kernel.
# Exit 77 (skipped) when cmake, pkg-config or a C compiler is missing. The consumer is built with $CC
# (default cc) and $RK_CONSUMER_FLAGS: a sanitizer build's libraries need the sanitizers' runtime.
#   usage: run_install_test.sh BUILD_DIR SOURCE_DIR
set -u
build=$1
src=$2
CC=${CC:-cc}
flags=${RK_CONSUMER_FLAGS:-}
for tool in cmake pkg-config "$CC"; do
    command -v $tool >/dev/null 2>&1 || { echo "install test: $tool not found: skipped"; exit 77; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rk-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "install test: FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install"; }
for f in bin/rkc include/rk.h lib/librk.so lib/librk.a share/rk/stdlib/std/math.tile share/rk/stdlib/std/pid.tile \
         lib/cmake/rk/rkConfig.cmake lib/cmake/rk/rkConfigVersion.cmake lib/pkgconfig/rk.pc lib/pkgconfig/rk-static.pc; do
    [ -e "$prefix/$f" ] || fail "$f was not installed"
done

# The programs must not find the source tree's stdlib or a user's cache.
export RK_CACHE_DIR=$tmp/cache RK_DEVICE=emu
unset RK_STDLIB_DIR RK_ALWAYS_COMPILE

# CMake
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
cmake -S "$src/tests/install/consumer" -B "$tmp/cmake" "${gen[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$CC" -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
    >"$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log"; fail "configuring the consumer"; }
cmake --build "$tmp/cmake" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "building the consumer with CMake"; }
"$tmp/cmake/consumer_shared" || fail "the CMake consumer (rk::rk)"
ldd "$tmp/cmake/consumer_shared" | grep -q "$prefix/lib/librk.so" || fail "consumer_shared does not use the installed librk.so"
"$tmp/cmake/consumer_static" || fail "the CMake consumer (rk::rk_static)"

# pkg-config
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[ "$(pkg-config --modversion rk)" = "$(sed -n 's/^Version: //p' "$prefix/lib/pkgconfig/rk.pc")" ] || fail "pkg-config --modversion rk"
"$CC" $flags -O1 -o "$tmp/pc_shared" "$src/tests/install/consumer/main.c" $(pkg-config --cflags --libs rk) -lm \
    -Wl,-rpath,"$(pkg-config --variable=libdir rk)" || fail "building the consumer with pkg-config (rk)"
"$tmp/pc_shared" || fail "the pkg-config consumer (rk)"
"$CC" $flags -O1 -o "$tmp/pc_static" "$src/tests/install/consumer/main.c" $(pkg-config --cflags --libs rk-static) \
    || fail "building the consumer with pkg-config (rk-static)"
"$tmp/pc_static" || fail "the pkg-config consumer (rk-static)"

# the installed rkc: its version, and a kernel that imports the installed stdlib
"$prefix/bin/rkc" --version | grep -q '^rkc ' || fail "rkc --version"
cat >"$tmp/k.tile" <<'TILE'
import "std/math";
@grid(cdiv(n, 64))
kernel k(x: *f32, y: *f32, n: i32)
{
    let offs = program_id(0) * 64 + arange(64);
    store(y + offs, sigmoid(load(x + offs, mask = offs < n)), mask = offs < n);
}
TILE
"$prefix/bin/rkc" run "$tmp/k.tile" -k k x=zeros:f32[100] y=zeros:f32[100] n=100 --dump y="$tmp/y.bin" \
    || fail "the installed rkc run"
[ "$(od -An -tf4 -N4 "$tmp/y.bin" | tr -d ' ')" = "0.5" ] || fail "rkc run gave a wrong sigmoid(0)"
echo "install test: ok (prefix $prefix)"
