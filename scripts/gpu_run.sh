#!/usr/bin/env bash
# One call on a lent GPU machine (see docs/gpu.md): set up what is needed
# there, then run the C++ tests, the benchmarks (on a quiet machine), and the
# Python suite with compute-sanitizer beside it, on the GPU. Every step has
# its own time limit inside GPU_RUN_BUDGET_S, so a stuck step costs only
# itself. The logs go to a folder that is packed after every step into
# $OUT/gpu-logs.tgz (the device returns at most 8 files), with
# $OUT/summary.txt beside it.
#
# With .carry/ (scripts/pack_for_gpu.sh, run where the core was built): the
# core library, and the binding already built for this machine's Python when
# the pack had that Python (.carry/_core.cpython-3XY-*.so), else the binding
# is built here against the carried core. Without .carry/, everything is
# built here (C++ suites only if GoogleTest is found; needs LLVM 19).
#
#   OUT=$OUT scripts/gpu_run.sh                  # on the GPU machine: everything
#   GPU_RUN_STEPS="cpp pytest" scripts/gpu_run.sh  # some steps: cpp bench pytest sanitizer examples ncu
#   GPU_RUN_PYTEST_ARGS="tests/python/x.py" ...  # what pytest runs (default: tests/python)
#   CUFORGE_BACKEND=cpu scripts/gpu_run.sh       # rehearsal without a GPU (in a copy of the tree)
#   GPU_RUN_QUICK=1 ...                          # fewer repeats in the benchmarks
#   GPU_RUN_PYTEST_LIMIT_S=300 ...               # the Python suite's own limit (default 400)
#   GPU_RUN_ONLY="bench-launch pytest" ...       # only the steps so named (see run below)
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$PWD/gpu-out}
LOGS=${GPU_RUN_LOGS:-/tmp/gpu-logs}
mkdir -p "$OUT" "$LOGS"
: > "$OUT/summary.txt"
export PYTHONUNBUFFERED=1 CUFORGE_BACKEND=${CUFORGE_BACKEND:-cuda}
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"  # the package is not installed here
PYTHON=${PYTHON:-python3}
QUICK=${GPU_RUN_QUICK:-0}
BUDGET=${GPU_RUN_BUDGET_S:-560}
STEPS=" ${GPU_RUN_STEPS:-cpp bench pytest sanitizer examples} "
status=0
want() { [[ "$STEPS" == *" $1 "* ]]; }
pack() { tar czf "$OUT/gpu-logs.tgz" -C "$LOGS" . 2>/dev/null; }
step() { echo; echo "=== $* (at ${SECONDS}s)"; }
run() {  # run NAME LIMIT_S CMD...: log to $LOGS/NAME.log, remember failures
  local name=$1 limit=$2; shift 2
  # GPU_RUN_ONLY="bench-launch pytest": only the steps so named (a short rerun of what changed).
  if [ -n "${GPU_RUN_ONLY:-}" ] && [[ " $GPU_RUN_ONLY " != *" $name "* ]]; then return; fi
  local t0=$SECONDS left=$((BUDGET - SECONDS - 5))
  if [ "$left" -lt 10 ]; then
    echo "--- $name: skipped (out of time)" | tee -a "$OUT/summary.txt"
    status=1
    return
  fi
  [ "$limit" -le "$left" ] || limit=$left
  timeout --kill-after=5 "$limit" "$@" > "$LOGS/$name.log" 2>&1
  local rc=$?
  local why=""
  { [ "$rc" = 124 ] || [ "$rc" = 137 ]; } && why=" (timed out after ${limit}s)"
  echo "--- $name: exit $rc$why, $((SECONDS - t0))s" | tee -a "$OUT/summary.txt"
  tail -n 4 "$LOGS/$name.log"
  [ "$rc" = 0 ] || status=1
  pack
}

step "machine"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nvcc --version | tail -1;
  "$PYTHON" --version; uname -rm; nproc; command -v compute-sanitizer; } 2>&1 | tee "$LOGS/machine.txt"

# libdevice: the build machine's path unless this toolkit lives elsewhere.
if [ -z "${CUFORGE_LIBDEVICE_PATH:-}" ] && [ ! -f /usr/local/cuda/nvvm/libdevice/libdevice.10.bc ]; then
  nvcc_path=$(command -v nvcc || true)
  if [ -n "$nvcc_path" ] && [ -f "$(dirname "$nvcc_path")/../nvvm/libdevice/libdevice.10.bc" ]; then
    CUFORGE_LIBDEVICE_PATH=$(realpath "$(dirname "$nvcc_path")/../nvvm/libdevice/libdevice.10.bc")
    export CUFORGE_LIBDEVICE_PATH
  fi
fi

# Carried wheels (scripts/pack_for_gpu.sh): each package installed only where
# the image lacks it, without touching what it has.
if [ -d .carry/wheels ]; then
  for w in .carry/wheels/*.whl; do
    mod=$(basename "$w" | cut -d- -f1 | tr 'A-Z' 'a-z' | sed 's/_cu13$//')
    case $mod in librmm) mod=librmm ;; rapids_logger) mod=rapids_logger ;; cuda_pathfinder) mod=cuda.pathfinder ;; esac
    "$PYTHON" -c "import $mod" 2>/dev/null || "$PYTHON" -m pip install -q --no-deps --no-index "$w" \
      >> "$LOGS/wheels.log" 2>&1 || echo "wheel $w failed" >> "$LOGS/wheels.log"
  done
fi

step "build"
if [ -f .carry/libcuforge.so.gz ] && [ ! -f .carry/libcuforge.so ]; then gunzip -k .carry/libcuforge.so.gz; fi
abi=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
if [ -f .carry/libcuforge.so ] && [ -f ".carry/_core$abi" ]; then
  cp .carry/libcuforge.so ".carry/_core$abi" python/cuforge/  # $ORIGIN: the binding finds the core beside it
  export LD_LIBRARY_PATH="$PWD/python/cuforge${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"  # the C++ example's core
  echo "--- build: carried binding _core$abi" | tee -a "$OUT/summary.txt"
  bin=.carry
elif [ -f .carry/libcuforge.so ]; then
  export LD_LIBRARY_PATH="$PWD/.carry${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
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
    2>&1 | tee "$LOGS/backend.txt"; then
  echo "--- cuforge does not import: nothing more can run" | tee -a "$OUT/summary.txt"
  pack
  exit 1
fi

if want cpp; then
  step "C++ tests on the GPU"
  for t in test_runtime test_memory test_devicearray test_interop; do
    exe=$(ls $bin/$t build/gpu/tests/$t 2>/dev/null | head -1)
    if [ -n "$exe" ]; then run "cpp-$t" 90 "$exe" --gtest_brief=1; else echo "$t: not available" | tee -a "$OUT/summary.txt"; fi
  done
fi

if want bench; then
  step "benchmarks (before the tests, on a quiet machine)"
  if [ "$QUICK" = 1 ]; then runs=1; launches=5000; reps=10; else runs=3; launches=20000; reps=20; fi
  raw=$(ls .carry/bench_raw_copy build/gpu/bench/bench_raw_copy 2>/dev/null | head -1)
  rawl=$(ls .carry/bench_raw_launch build/gpu/bench/bench_raw_launch 2>/dev/null | head -1)
  run bench-launch 90 "$PYTHON" bench/launch/bench_launch.py --launches "$launches" ${rawl:+--raw "$rawl"}
  run bench-transfers 90 "$PYTHON" bench/transfers/bench_transfers.py ${raw:+--raw "$raw"}
  run bench-stream 45 "$PYTHON" bench/stream/bench_stream.py --repeats "$reps"
  # GPU_RUN_LLVM_VARIANTS="-disable-lsr,-unroll-runtime=false": the stream kernels again under
  # each set of LLVM options (CUFORGE_LLVM_OPTIONS, docs/compiler.md), to weigh a codegen change.
  IFS=, read -r -a variants <<< "${GPU_RUN_LLVM_VARIANTS:-}"
  for v in ${variants[@]+"${variants[@]}"}; do
    run "bench-stream$(echo "$v" | tr -c 'a-zA-Z0-9\n' _)" 45 env CUFORGE_LLVM_OPTIONS="$v" \
        "$PYTHON" bench/stream/bench_stream.py --repeats "$reps"
  done
  run bench-random 45 "$PYTHON" bench/random/bench_random.py --repeats "$reps"
  cub=$(ls .carry/bench_cub_reduce build/gpu/bench/bench_cub_reduce 2>/dev/null | head -1)
  run bench-reduce 60 "$PYTHON" bench/reduce/bench_reduce.py --repeats "$reps" ${cub:+--cub "$cub"}
  run bench-hidden-layer 75 "$PYTHON" bench/hidden_layer/bench_hidden_layer.py --repeats "$runs"
  # The same two with the driver staging pageable copies (ours off): what our staging gives.
  run bench-transfers-driver-staging 90 env CUFORGE_STAGED_COPIES=0 "$PYTHON" bench/transfers/bench_transfers.py ${raw:+--raw "$raw"}
  run bench-hidden-layer-driver-staging 75 env CUFORGE_STAGED_COPIES=0 "$PYTHON" bench/hidden_layer/bench_hidden_layer.py --repeats "$runs"
  run bench-interop 45 "$PYTHON" bench/interop/bench_interop.py
  run bench-compile 75 "$PYTHON" bench/compile/bench_compile.py --runs "$runs"
  run bench-cache-hit 45 "$PYTHON" bench/compile/bench_cache_hit.py --runs 7
  run profile 60 "$PYTHON" bench/profile_gpu.py
  run bench-memory 90 "$PYTHON" bench/memory/bench_memory_manager.py
fi

# The Python suite, spread over the cores when pytest-xdist is there, with
# compute-sanitizer running the examples' kernels beside it (its own
# processes: a sanitizer run is slow, the suite's processes are untouched).
sanitizer_pid=""
if want sanitizer && command -v compute-sanitizer >/dev/null; then
  step "compute-sanitizer (in the background)"
  left=$((BUDGET - SECONDS - 15))
  (
    cs() { timeout --kill-after=5 "$1" compute-sanitizer --tool "$2" --error-exitcode 99 \
             --target-processes all "${@:3}"; }
    # GPU_RUN_SANITIZE_EXAMPLES=0: the pytest part alone.
    [ "${GPU_RUN_SANITIZE_EXAMPLES:-1}" = 0 ] ||
    for ex in kernel_vector_add kernel_hidden_layer kernel_device_functions kernel_matmul kernel_reduce_histogram; do
      echo "## memcheck $ex"; cs 120 memcheck "$PYTHON" examples/python/$ex.py; echo "## exit $?"
    done
    [ "${GPU_RUN_SANITIZE_EXAMPLES:-1}" = 0 ] ||
    for ex in kernel_matmul kernel_reduce_histogram; do
      echo "## racecheck $ex"; cs 120 racecheck --racecheck-report all "$PYTHON" examples/python/$ex.py; echo "## exit $?"
    done
    # The seed's off-by-one add_1 (docs/debugging.md): memcheck should name the write,
    # in the default pool's memory and in plain device memory.
    echo "## memcheck add_1 off by one (expect an error)"; cs 60 memcheck "$PYTHON" tests/python/compiler/memcheck_add_1_child.py; echo "## exit $?"
    echo "## memcheck add_1 off by one, device resource (expect an error)"
    CUFORGE_MEMORY_RESOURCE=device cs 60 memcheck "$PYTHON" tests/python/compiler/memcheck_add_1_child.py; echo "## exit $?"
    echo "## memcheck pytest (launch path, language)"
    cs 150 memcheck "$PYTHON" -m pytest -q -x -p no:cacheprovider tests/python/compiler/test_launch_path.py \
      tests/python/compiler/test_language_arrays.py tests/python/compiler/test_language_cuda.py
    echo "## exit $?"
  ) > "$LOGS/sanitizer.log" 2>&1 &
  sanitizer_pid=$!
fi

if want pytest; then
  step "Python tests on the GPU"
  par=()
  if "$PYTHON" -c "import xdist" 2>/dev/null; then par=(-n "${GPU_RUN_WORKERS:-12}"); fi
  tmo=()
  if "$PYTHON" -c "import pytest_timeout" 2>/dev/null; then tmo=(--timeout 120); fi
  # -rA -v: each result is in the log as it happens, so a step cut off by its
  # limit still says what passed and what failed.
  # shellcheck disable=SC2086
  run pytest "${GPU_RUN_PYTEST_LIMIT_S:-400}" "$PYTHON" -m pytest ${GPU_RUN_PYTEST_ARGS:-tests/python} -v -rfEs --tb=short -p no:cacheprovider \
      ${par[@]+"${par[@]}"} ${tmo[@]+"${tmo[@]}"} --junitxml="$LOGS/pytest.xml"
  grep -E "^(FAILED|ERROR)|[0-9]+ (passed|failed)" "$LOGS/pytest.log" | tail -n 60
  # CUDA IPC cannot share the default pool's memory: the round trips run
  # over plain device memory (docs/memory_managers.md).
  run pytest-ipc 120 env CUFORGE_MEMORY_RESOURCE=device "$PYTHON" -m pytest tests/python/memory/test_ipc.py -v -rfEs \
      --tb=short -p no:cacheprovider
fi

if want examples; then
  step "examples"
  if [ -x .carry/example_saxpy ]; then mkdir -p build/cuforge/examples/cpp && cp .carry/example_saxpy build/cuforge/examples/cpp/; fi
  run examples 60 "$PYTHON" examples/run_all.py
fi

if want ncu && command -v ncu >/dev/null; then
  step "Nsight Compute: the stream kernels' DRAM throughput, occupancy and stalls"
  run ncu 90 ncu --target-processes all --kernel-name regex:"copy|triad" --launch-count 24 \
      --section SpeedOfLight --section Occupancy --section WarpStateStats \
      "$PYTHON" bench/stream/bench_stream.py --n 16777216 --repeats 1
fi

if [ -n "$sanitizer_pid" ]; then
  left=$((BUDGET - SECONDS - 3)); [ "$left" -gt 0 ] || left=1
  timeout "$left" tail --pid="$sanitizer_pid" -f /dev/null || kill -- "$sanitizer_pid" 2>/dev/null
  grep -E "^## |SUMMARY|Race reported|Error" "$LOGS/sanitizer.log" | head -n 60 | tee -a "$OUT/summary.txt"
fi

step "summary"
echo "total: ${SECONDS}s" | tee -a "$OUT/summary.txt"
pack
cat "$OUT/summary.txt"
exit $status
