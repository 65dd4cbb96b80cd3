#!/usr/bin/env bash
# Prepares .carry/ (ignored by git) for a run on a lent GPU machine: the core
# library and the self-contained C++ test, example and benchmark programs
# built here, so the GPU machine only builds the thin Python binding for its
# own Python (its image may lack GoogleTest and, later, LLVM).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
b=build/cuforge
rm -rf .carry && mkdir -p .carry
cp $b/libcuforge.so .carry/
cp $b/tests/test_runtime $b/tests/test_memory $b/tests/test_devicearray $b/tests/test_interop .carry/
cp $b/tests/mock_driver/test_cuda_backend_mock $b/tests/mock_driver/libcuda_mock.so .carry/ 2>/dev/null || true
cp $b/examples/cpp/example_saxpy $b/bench/bench_raw_copy .carry/
grep -qx '/.carry/' .git/info/exclude 2>/dev/null || echo '/.carry/' >> .git/info/exclude
du -sh .carry
