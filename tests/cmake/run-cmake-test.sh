#!/bin/sh
# Builds tests/cmake/project with plain nvcc and with kbcc in the given forms
# (compiler, launcher, package-targets, package-global), checks that each
# configure and build succeeds, that kbcc handled the compiles, and that the
# device code of every object equals the nvcc build's (cuobjdump -sass when
# the toolkit has it, else the bytes of the embedded .nv_fatbin section).
#
# usage: run-cmake-test.sh <work-dir> <kbcc-build-dir> [form...]
set -eu
work=$1
obj=$(cd "$2" && pwd)
shift 2
forms=${*:-compiler launcher package-targets package-global}
src=$(cd "$(dirname "$0")" && pwd)/project
kbcc=$obj/bin/kbcc
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$nvcc" ] || { echo "no nvcc"; exit 1; }
PATH=$(dirname "$nvcc"):$PATH
export PATH
cuobjdump=$(command -v cuobjdump || true)
generator=$(command -v ninja >/dev/null && echo Ninja || echo "Unix Makefiles")
rm -rf "$work"
mkdir -p "$work"

fail() {
  echo "FAIL: $1"
  [ -f "${2:-}" ] && tail -n 60 "$2"
  exit 1
}

# build <name> <cmake args...>: configure and build one copy of the project.
build() {
  name=$1
  shift
  KBCC_DIR=$work/kbcc-dir-$name
  export KBCC_DIR
  cmake -S "$src" -B "$work/$name" -G "$generator" -DCMAKE_BUILD_TYPE=Release "$@" > "$work/$name.configure.log" 2>&1 ||
    fail "configure $name" "$work/$name.configure.log"
  echo "configure $name: ok"
  cmake --build "$work/$name" > "$work/$name.build.log" 2>&1 || fail "build $name" "$work/$name.build.log"
  echo "build $name: ok"
}

device_code() {
  if [ -n "$cuobjdump" ]; then
    "$cuobjdump" -sass "$1" | grep -v -e '^[[:space:]]*$' -e 'Fatbin elf code' -e '^arch = ' -e '^code version' -e '^host = ' -e '^compile_size' -e 'identifier = '
  else
    objcopy -O binary --only-section=.nv_fatbin "$1" /dev/stdout
  fi
}

# compare <name>: device code of every object of the nvcc build vs <name>'s.
compare() {
  count=0
  for ref in $(cd "$work/nvcc" && find . -name '*.o' | sort); do
    [ -f "$work/$1/$ref" ] || fail "$1 has no $ref"
    a=$(device_code "$work/nvcc/$ref" | cksum)
    b=$(device_code "$work/$1/$ref" | cksum)
    [ "$a" = "$b" ] || fail "device code of $ref differs between nvcc and $1"
    count=$((count + 1))
  done
  [ "$count" -ge 4 ] || fail "only $count objects in the nvcc build"
  KBCC_DIR="$work/kbcc-dir-$1" "$kbcc" stats | grep -Eq '^compilations +[1-9]' || fail "$1: kbcc handled no compilation"
  echo "device code $1: $count objects identical to nvcc"
}

build nvcc -DCMAKE_CUDA_COMPILER="$nvcc"
for form in $forms; do
  case $form in
  compiler)
    build compiler -DCMAKE_CUDA_COMPILER="$kbcc"
    grep -q "CMAKE_CUDA_COMPILER:.*=$kbcc" "$work/compiler/CMakeCache.txt" || fail "compiler form: CMake did not keep kbcc"
    ;;
  launcher)
    build launcher -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_COMPILER_LAUNCHER="$kbcc"
    ;;
  package-targets | package-global)
    if [ ! -d "$work/prefix" ]; then
      cmake --install "$obj" --prefix "$work/prefix" > "$work/install.log" 2>&1 || fail "cmake --install" "$work/install.log"
      [ -x "$work/prefix/bin/kbcc" ] || fail "install put no bin/kbcc under the prefix"
      [ -f "$(echo "$work"/prefix/lib*/cmake/kbcc/kbccConfigVersion.cmake)" ] || fail "install put no CMake package under the prefix"
      [ -f "$work/prefix/share/doc/kbcc/driver.md" ] || fail "install put no docs under the prefix"
      echo "install: ok"
    fi
    build "$form" -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_PREFIX_PATH="$work/prefix" -DKBCC_TEST_PACKAGE="${form#package-}"
    ;;
  *) fail "unknown form $form" ;;
  esac
  compare "$form"
done
echo "all forms passed"
