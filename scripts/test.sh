#!/usr/bin/env bash
# Every test: sets up what is missing, builds once, then runs the C++ suites
# (GoogleTest, ptxas checks) and the Python suite. On a machine without a GPU
# everything runs on the cpu backend and GPU-only tests are skipped and
# counted; with a GPU the same suites run on it.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
./scripts/setup.sh
./scripts/build.sh
echo "== backend: $("$PYTHON" -c 'import cuforge; print(cuforge.backend(), "-", cuforge.backend_reason())')"
echo "== C++ tests (ctest)"
ctest --test-dir build/cuforge --output-on-failure -j "$(nproc)" --timeout 300
echo "== Python tests (pytest)"
"$PYTHON" -m pytest tests/python -q -rs "$@"
# CI also packages the build as a wheel and checks it (manylinux tag, LLVM
# hidden, a kernel from a fresh environment) and the sdist (CUFORGE_WHEEL_TEST=1
# asks for it elsewhere; docs/install.md).
if [ "${CI:-}" = true ] || [ "${CUFORGE_WHEEL_TEST:-0}" = 1 ]; then
  echo "== the wheel and the sdist (scripts/build_wheel.sh)"
  ./scripts/build_wheel.sh --reuse build/cuforge --sdist
fi
# CI also runs the lower layers' C++ suites under AddressSanitizer and UBSan
# (CUFORGE_SANITIZE_TESTS=1 asks for it elsewhere; docs/reliability.md).
if [ "${CI:-}" = true ] || [ "${CUFORGE_SANITIZE_TESTS:-0}" = 1 ]; then
  echo "== C++ tests under AddressSanitizer and UBSan (scripts/sanitize.sh)"
  ./scripts/sanitize.sh
fi
