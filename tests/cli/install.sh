#!/usr/bin/env bash
# cmake --install puts tools, library, headers, man pages, a CMake package and a pkg-config
# file in place; the installed tools run, and a program built with find_package(tfm) works.
. "$(dirname "$0")/lib.sh"
prefix=$PWD/prefix
expect_status 0 "cmake --install" -- cmake --install "$TFM_BUILD" --prefix "$prefix"
libdir=$(cd "$prefix" && ls -d lib* | head -1)
for f in bin/tfm-posenc bin/tfm-attend bin/tfm-cat bin/tfm-bench "$libdir/libtfm.so" include/tfm/nn/attention.hpp \
         include/tfm/version.hpp share/man/man1/tfm-attend.1 share/man/man1/tfm-posenc.1 \
         "$libdir/cmake/tfm/tfmConfig.cmake" "$libdir/pkgconfig/tfm.pc"; do
    [ -e "$prefix/$f" ] && ok || fail "not installed: $f"
done
# The library's headers, in their tiers; the benchmarks and pictures stay with the tools.
for tier in base io nn model decode train; do
    [ -d "$prefix/include/tfm/$tier" ] && ok || fail "headers of tier $tier not installed"
done
extra=$(find "$prefix/include" -name 'bench*.hpp' -o -name 'plot.hpp' -o -name 'image.hpp' -o -name 'stack.hpp')
[ -z "$extra" ] && ok || fail "tool headers installed with the library: $extra"
expect_status 0 "installed tools run (relocatable)" -- env -u LD_LIBRARY_PATH "$prefix/bin/tfm-posenc" -n 2 -d 4 -t
[ "$(head -1 out)" = "0 1 0 1" ] && ok || fail "installed tfm-posenc output: $(cat out)"
# The shipped model is installed, and the installed tools find it without -m.
[ -s "$prefix/share/tfm/models/multi30k-de-en/model.safetensors" ] && ok || fail "model not installed"
expect_status 0 "installed tfm-translate --help" -- env -u TFM_MODEL "$prefix/bin/tfm-translate" --help
grep -q "$prefix/bin/../share/tfm/models/multi30k-de-en" out && ok || fail "default model: $(grep -A1 -- --model out)"
expect_status 0 "installed tfm-translate without -m" -- bash -c "echo 'Zwei Hunde spielen im Schnee.' | env -u TFM_MODEL '$prefix/bin/tfm-translate'"
grep -qi 'dogs' out && ok || fail "translation: $(cat out)"
expect_status 0 "installed tfm-translate -m by name" -- bash -c "cd / && echo 'Zwei Hunde spielen im Schnee.' | env -u TFM_MODEL '$prefix/bin/tfm-translate' -m multi30k-de-en"
grep -qi 'dogs' out && ok || fail "translation by name: $(cat out)"
expect_status 0 "installed tfm-train runs (its libraries found)" -- env -u LD_LIBRARY_PATH "$prefix/bin/tfm-train" --help
PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" pkg-config --cflags --libs tfm > pc.out 2>&1 \
    && grep -q -- "-ltfm" pc.out && ok || fail "pkg-config tfm: $(cat pc.out)"

mkdir -p consumer
cat > consumer/CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(consumer CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(tfm REQUIRED)
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE tfm::tfm)
CMAKE
cat > consumer/main.cpp <<'CPP'
#include <cstdio>
#include <tfm/nn/posenc.hpp>
int main() {
    auto pe = tfm::sinusoidal_encoding(2, 4, {});
    std::printf("%.6f %.6f\n", pe(1, 0), pe(1, 1));
}
CPP
flags=""
[ "${TFM_SANITIZE:-0}" = 1 ] && flags="-fsanitize=address,undefined"  # a sanitized libtfm needs a sanitized program
expect_status 0 "configure a find_package(tfm) consumer" -- cmake -S consumer -B consumer/build \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_FLAGS="$flags"
expect_status 0 "build the consumer" -- cmake --build consumer/build
expect_status 0 "run the consumer" -- consumer/build/consumer
[ "$(cat out)" = "0.841471 0.540302" ] && ok || fail "consumer output: $(cat out)"
finish
