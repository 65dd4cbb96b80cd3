#!/usr/bin/env bash
# Prepares .carry/ (ignored by git) for a run on a lent GPU machine
# (docs/gpu.md): the core library, stripped and gzipped (a carry is at most
# 64 MiB; libcuforge links LLVM statically), the self-contained C++ test,
# example and benchmark programs, and pybind11's CMake package (in case the
# image lacks it), so the GPU machine only builds the thin Python binding for
# its own Python (its image may lack GoogleTest and LLVM). When an interpreter
# of the GPU image's Python version (GPU_PYTHON_VERSION, 3.12) is found here,
# the binding is built for it too and carried, so the GPU machine builds
# nothing.
#
#   scripts/pack_for_gpu.sh                       # builds through scripts/build.sh (build/cuforge)
#   BUILD_DIR=build/dev scripts/pack_for_gpu.sh   # an existing CMake build: ninja there first
#                                                 # (under /tmp/cuforge-build.lock), then pack it
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ -n "${BUILD_DIR:-}" ]; then
  b=$BUILD_DIR
  if command -v flock >/dev/null; then flock /tmp/cuforge-build.lock ninja -C "$b"; else ninja -C "$b"; fi
else
  ./scripts/build.sh
  b=build/cuforge
fi
rm -rf .carry && mkdir -p .carry
strip --strip-unneeded -o .carry/libcuforge.so "$b/libcuforge.so"
gzip -f .carry/libcuforge.so  # gpu_run.sh unpacks it
for t in test_runtime test_memory test_devicearray test_interop; do
  strip -o ".carry/$t" "$b/tests/$t"
done
for f in "$b/tests/mock_driver/test_cuda_mock" "$b/tests/mock_driver/libcuda_mock.so" \
         "$b/examples/cpp/example_saxpy"; do
  if [ -f "$f" ]; then cp "$f" .carry/; else echo "pack_for_gpu: $f not built (skipped)"; fi
done
cp "$b/bench/bench_raw_copy" "$b/bench/bench_raw_launch" .carry/
[ -x "$b/bench/bench_cub_reduce" ] && cp "$b/bench/bench_cub_reduce" .carry/  # CUB's baseline (nvcc-built)
# pybind11 is header-only: its pip package (headers + CMake config) works from any folder.
pb=$("$PYTHON" -c 'import os, pybind11; print(os.path.dirname(pybind11.__file__))')
mkdir -p .carry/pybind11
cp -r "$pb/include" "$pb/share" .carry/pybind11/
# The binding for the GPU image's Python, against the carried core.
ver=${GPU_PYTHON_VERSION:-3.12}
gpy=""
for c in "python$ver" "$HOME"/.pyenv/versions/"$ver".*/bin/"python$ver"; do
  if "$c" -c "import sys; assert sys.version_info[:2] == tuple(map(int, '$ver'.split('.')))" 2>/dev/null; then gpy=$c; break; fi
done
if [ -n "$gpy" ]; then
  gunzip -kf .carry/libcuforge.so.gz
  bb=build/gpu-binding-$ver
  cmake -S . -B "$bb" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUFORGE_PREBUILT_LIBRARY="$PWD/.carry/libcuforge.so" \
        -DPython_EXECUTABLE="$gpy" -DCUFORGE_COPY_TO_SOURCE=OFF -Dpybind11_DIR="$PWD/.carry/pybind11/share/cmake/pybind11" >/dev/null
  ninja -C "$bb" >/dev/null
  cp "$bb"/python/_core.cpython-*.so .carry/
  rm -f .carry/libcuforge.so  # only the gzipped copy travels
else
  echo "pack_for_gpu: no python$ver here: the GPU machine builds the binding"
fi
# Wheels the GPU image lacks (it has no registry): RMM for the memory manager
# tests (rmm_child.py, bench/memory), dask and distributed for the scaling test;
# GPU_CARRY_WHEELS=0 leaves them out. Packages the image has (numpy,
# cuda-bindings) are not fetched again there: gpu_run.sh installs with --no-deps
# what is missing.
if [ "${GPU_CARRY_WHEELS:-1}" != 0 ]; then
  mkdir -p .carry/wheels
  plat=(--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_24_x86_64
        --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64)
  if ! "$PYTHON" -m pip download -q --disable-pip-version-check --only-binary=:all: --no-deps -d .carry/wheels \
      --python-version "${GPU_PYTHON_VERSION:-3.12}" "${plat[@]}" \
      rmm-cu13 librmm-cu13 rapids-logger cuda-pathfinder "dask[array]" distributed toolz cloudpickle partd \
      locket msgpack sortedcontainers tblib zict tornado psutil fsspec; then
    echo "pack_for_gpu: the wheels could not be fetched (no network?): the GPU run skips what needs them"
  fi
fi
grep -qx '/.carry/' .git/info/exclude 2>/dev/null || echo '/.carry/' >> .git/info/exclude
du -sh .carry
