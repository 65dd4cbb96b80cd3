#!/usr/bin/env bash
# One call on a lent GPU machine (see docs/gpu.md): build what is needed
# there, then run the C++ tests, the Python tests (the compiler's first),
# the examples and the benchmarks on the GPU, keeping every log in $OUT (or
# ./gpu-out). Each step has its own time limit, so the whole call ends
# within the device's 10 minutes and a stuck step costs only itself.
#
# With .carry/ (scripts/pack_for_gpu.sh, run where the core was built), only
# the thin binding is built here, for this machine's Python, against the
# carried libcuforge; without it, everything is built here (C++ suites only
# if GoogleTest is found; needs LLVM 19's development files).
#
#   OUT=$OUT scripts/gpu_run.sh            # on the GPU machine
#   CUFORGE_BACKEND=cpu scripts/gpu_run.sh # rehearsal without a GPU (run it in a copy of the
#                                          # tree: the build copies the binding into python/cuforge/)
#   GPU_RUN_QUICK=1 ...                    # fewer repeats in the benchmarks
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
: > "$OUT/summary.txt"
export PYTHONUNBUFFERED=1 CUFORGE_BACKEND=${CUFORGE_BACKEND:-cuda}  # cpu: rehearse the script without a GPU
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"  # the package is not installed here
PYTHON=${PYTHON:-python3}
QUICK=${GPU_RUN_QUICK:-0}
BUDGET=${GPU_RUN_BUDGET_S:-570}  # the device allows 600 s a call: keep the summary inside it
status=0
step() { echo; echo "=== $* (at ${SECONDS}s)"; }
run() {  # run NAME LIMIT_S CMD...: log to $OUT/NAME.log, remember failures
  local name=$1 limit=$2; shift 2
  local t0=$SECONDS left=$((BUDGET - SECONDS - 10))
  if [ "$left" -lt 15 ]; then
    echo "--- $name: skipped (out of time)" | tee -a "$OUT/summary.txt"
    status=1
    return
  fi
  [ "$limit" -le "$left" ] || limit=$left
  timeout --kill-after=10 "$limit" "$@" 2>&1 | tee "$OUT/$name.log"
  local rc=${PIPESTATUS[0]}
  local why=""
  [ "$rc" = 124 ] || [ "$rc" = 137 ] && why=" (timed out after ${limit}s)"
  echo "--- $name: exit $rc$why, $((SECONDS - t0))s" | tee -a "$OUT/summary.txt"
  [ "$rc" = 0 ] || status=1
}

step "machine"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nvcc --version | tail -1;
  "$PYTHON" --version; uname -m; nproc; } 2>&1 | tee "$OUT/machine.txt"

# libdevice: the build machine's path unless this toolkit lives elsewhere.
if [ -z "${CUFORGE_LIBDEVICE_PATH:-}" ] && [ ! -f /usr/local/cuda/nvvm/libdevice/libdevice.10.bc ]; then
  nvcc_path=$(command -v nvcc || true)
  if [ -n "$nvcc_path" ] && [ -f "$(dirname "$nvcc_path")/../nvvm/libdevice/libdevice.10.bc" ]; then
    CUFORGE_LIBDEVICE_PATH=$(realpath "$(dirname "$nvcc_path")/../nvvm/libdevice/libdevice.10.bc")
    export CUFORGE_LIBDEVICE_PATH
  fi
fi

step "build"
if [ -f .carry/libcuforge.so.gz ] && [ ! -f .carry/libcuforge.so ]; then gunzip -k .carry/libcuforge.so.gz; fi
if [ -f .carry/libcuforge.so ]; then
  export LD_LIBRARY_PATH="$PWD/.carry:${LD_LIBRARY_PATH:-}"
  pybind=()
  if ! "$PYTHON" -m pybind11 --cmakedir >/dev/null 2>&1 && [ -d .carry/pybind11 ]; then
    pybind=(-Dpybind11_DIR="$PWD/.carry/pybind11/share/cmake/pybind11")
  fi
  run build 120 cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCUFORGE_PREBUILT_LIBRARY="$PWD/.carry/libcuforge.so" -DPython_EXECUTABLE="$(command -v "$PYTHON")" \
      ${pybind[@]+"${pybind[@]}"}
  run build-ninja 300 ninja -C build/gpu
  bin=.carry
else
  run build 120 cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$(command -v "$PYTHON")"
  run build-ninja 480 ninja -C build/gpu
  bin=build/gpu/tests
fi
if ! "$PYTHON" -c "import cuforge, sys; print('cuforge on the', cuforge.backend(), 'backend:', cuforge.backend_reason())" \
    2>&1 | tee "$OUT/backend.txt"; then
  echo "--- cuforge does not import: nothing more can run" | tee -a "$OUT/summary.txt"
  cat "$OUT/summary.txt"
  exit 1
fi

step "C++ tests on the GPU"
for t in test_runtime test_memory test_devicearray test_interop; do
  exe=$(ls $bin/$t build/gpu/tests/$t 2>/dev/null | head -1)
  if [ -n "$exe" ]; then run "cpp-$t" 120 "$exe" --gtest_brief=1; else echo "$t: not available" | tee -a "$OUT/summary.txt"; fi
done

step "Python tests on the GPU: the compiler's, then the rest"
run pytest-compiler 240 "$PYTHON" -m pytest tests/python/compiler -q -rs -p no:cacheprovider
run pytest 300 "$PYTHON" -m pytest tests/python -q -rs -p no:cacheprovider --ignore=tests/python/compiler

step "examples"
if [ -x .carry/example_saxpy ]; then mkdir -p build/cuforge/examples/cpp && cp .carry/example_saxpy build/cuforge/examples/cpp/; fi
run examples 180 "$PYTHON" examples/run_all.py

step "benchmarks"
if [ "$QUICK" = 1 ]; then runs=1; launches=5000; else runs=3; launches=20000; fi
raw=$(ls .carry/bench_raw_copy build/gpu/bench/bench_raw_copy 2>/dev/null | head -1)
rawl=$(ls .carry/bench_raw_launch build/gpu/bench/bench_raw_launch 2>/dev/null | head -1)
run bench-transfers 180 "$PYTHON" bench/transfers/bench_transfers.py --raw "$raw"
run bench-interop 120 "$PYTHON" bench/interop/bench_interop.py
run bench-compile 180 "$PYTHON" bench/compile/bench_compile.py --runs "$runs"
run bench-launch 180 "$PYTHON" bench/launch/bench_launch.py --launches "$launches" ${rawl:+--raw "$rawl"}
run bench-hidden-layer 180 "$PYTHON" bench/hidden_layer/bench_hidden_layer.py --repeats "$runs"

step "summary"
echo "total: ${SECONDS}s" | tee -a "$OUT/summary.txt"
cat "$OUT/summary.txt"
exit $status
