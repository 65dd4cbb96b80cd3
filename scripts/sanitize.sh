#!/usr/bin/env bash
# The C++ suites of the lower layers and the cpu backend (runtime, memory,
# devicearray, interop) built with AddressSanitizer and UBSan in
# build/sanitize, then run: any report fails the run. CI runs this
# (scripts/test.sh with CI=true); locally: scripts/sanitize.sh.
#
#   scripts/sanitize.sh            # the four suites (about 6 minutes on 2 cores, the build included)
#   SANITIZE=address scripts/sanitize.sh   # another -fsanitize list
#   scripts/sanitize.sh --python   # also the whole library and the Python suite against it
#                                  # (LLVM inside: a long build; see docs/reliability.md); every
#                                  # test runs, failures listed at the end (PYTEST_ARGS, e.g.
#                                  # "-x tests/python/compiler", replaces the suite's path)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
SANITIZE=${SANITIZE:-address,undefined}
B=build/sanitize
export CUDACXX=${CUDACXX:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
python_too=0
[ "${1:-}" = --python ] && python_too=1
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUFORGE_SANITIZE="$SANITIZE" \
  -DCUFORGE_BUILD_BENCH=OFF -DCUFORGE_BUILD_EXAMPLES=OFF -DCUFORGE_BUILD_PYTHON=$([ $python_too = 1 ] && echo ON || echo OFF) \
  -DCUFORGE_COPY_TO_SOURCE=OFF -DPython_EXECUTABLE="$(command -v "$PYTHON")" >/dev/null
suites=(test_runtime test_memory test_devicearray test_interop)
ninja -C "$B" "${suites[@]}"
# Leaks: the process-wide singletons are leaked on purpose (they outlive static owners).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:strict_string_checks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for s in "${suites[@]}"; do
  echo "== $s under $SANITIZE"
  if ! "$B/tests/$s" --gtest_brief=1; then status=1; fi
done
if [ $python_too = 1 ]; then
  ninja -C "$B"
  pkg="$B/python-package"
  rm -rf "$pkg" && mkdir -p "$pkg" && cp -r python/cuforge "$pkg/"
  cp "$B"/python/_core.cpython-*.so "$B"/libcuforge.so "$pkg/cuforge/"
  echo "== the Python suite against the sanitized library"
  # The interpreter is not sanitized: the ASan runtime is preloaded, with libstdc++ (ASan's
  # interceptor of __cxa_throw finds the real one only in a library loaded before it; without it the
  # first C++ exception aborts). A sitecustomize puts the sanitized package ahead of an editable
  # install's finder, in the suite's own process and in the child processes its tests start.
  site="$B/python-site"
  mkdir -p "$site"
  printf '%s\n' "import sys" \
    "sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in type(f).__module__.lower()]" \
    > "$site/sitecustomize.py"
  asan=$(gcc -print-file-name=libasan.so)
  cxx=$(gcc -print-file-name=libstdc++.so.6)
  # shellcheck disable=SC2086  # PYTEST_ARGS: options and paths, split as the shell splits them
  LD_PRELOAD="$asan $cxx" PYTHONPATH="$PWD/$pkg:$PWD/$site" \
    "$PYTHON" -m pytest -q -rf -p no:cacheprovider ${PYTEST_ARGS:-tests/python} || status=1
fi
exit $status
