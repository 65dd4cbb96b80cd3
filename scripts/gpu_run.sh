#!/usr/bin/env bash
# One call on a lent GPU machine (see docs/gpu.md): build what is needed
# there, then run the C++ tests, the Python tests, the examples and the
# benchmarks on the GPU, keeping every log in $OUT (or ./gpu-out).
#
# With .carry/ (scripts/pack_for_gpu.sh, run where the core was built), only
# the thin binding is built here, against the carried libcuforge; without it,
# everything is built here (C++ tests only if GoogleTest is found).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 CUFORGE_BACKEND=${CUFORGE_BACKEND:-cuda}  # cpu: rehearse the script without a GPU
PYTHON=${PYTHON:-python3}
status=0
step() { echo; echo "=== $*"; }
run() {  # run NAME CMD...: log to $OUT/NAME.log, remember failures
  local name=$1; shift
  "$@" 2>&1 | tee "$OUT/$name.log"
  local rc=${PIPESTATUS[0]}
  echo "--- $name: exit $rc" | tee -a "$OUT/summary.txt"
  [ "$rc" = 0 ] || status=1
}

step "machine"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nvcc --version | tail -1;
  "$PYTHON" --version; uname -m; } 2>&1 | tee "$OUT/machine.txt"

step "build"
if [ -f .carry/libcuforge.so ]; then
  export LD_LIBRARY_PATH="$PWD/.carry:${LD_LIBRARY_PATH:-}"
  run build cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCUFORGE_PREBUILT_LIBRARY="$PWD/.carry/libcuforge.so" -DPython_EXECUTABLE="$(command -v "$PYTHON")"
  run build-ninja ninja -C build/gpu
  bin=.carry
else
  run build cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$(command -v "$PYTHON")"
  run build-ninja ninja -C build/gpu
  bin=build/gpu/tests
fi

step "C++ tests on the GPU"
for t in test_runtime test_memory test_devicearray test_interop; do
  exe=$(ls $bin/$t build/gpu/tests/$t 2>/dev/null | head -1)
  if [ -n "$exe" ]; then run "cpp-$t" "$exe" --gtest_brief=1; else echo "$t: not available" | tee -a "$OUT/summary.txt"; fi
done

step "Python tests on the GPU"
run pytest "$PYTHON" -m pytest tests/python -q -rs

step "examples"
if [ -x .carry/example_saxpy ]; then mkdir -p build/cuforge/examples/cpp && cp .carry/example_saxpy build/cuforge/examples/cpp/; fi
run examples "$PYTHON" examples/run_all.py

step "benchmarks"
raw=$(ls .carry/bench_raw_copy build/gpu/bench/bench_raw_copy 2>/dev/null | head -1)
run bench-transfers "$PYTHON" bench/transfers/bench_transfers.py --raw "$raw"
run bench-interop "$PYTHON" bench/interop/bench_interop.py

step "summary"
cat "$OUT/summary.txt"
exit $status
