#!/usr/bin/env bash
# Builds everything once, through pip: libcuforge, the Python extension, the
# GoogleTest suites, the examples and the benchmarks, in build/cuforge, and
# installs the package editable (python/cuforge is what Python imports).
# Incremental: re-running rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
export CUDACXX=${CUDACXX:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
export PATH="${CUDA_HOME:-/usr/local/cuda}/bin:$PATH"
"$PYTHON" -m pip install -q --disable-pip-version-check --no-build-isolation \
  -Cbuild-dir=build/cuforge \
  -Ccmake.define.CUFORGE_BUILD_TESTS=ON \
  -Ccmake.define.CUFORGE_BUILD_BENCH=ON \
  -Ccmake.define.CUFORGE_BUILD_EXAMPLES=ON \
  -e .
echo "build: done (build/cuforge; cuforge installed editable)"
