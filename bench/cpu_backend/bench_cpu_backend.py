#!/usr/bin/env python3
"""bench/cpu_backend: the cpu backend against Numba's CUDA simulator.

    python3 bench/cpu_backend/bench_cpu_backend.py [--numba-python PATH] [--repeats 3] [--scale 1]

The same kernel source run by cuforge's cpu backend (CUFORGE_BACKEND=cpu,
kernels compiled to host code) and by numba-cuda's simulator
(NUMBA_ENABLE_CUDASIM=1, in a subprocess with the interpreter that has
numba-cuda: --numba-python, else /tmp/numbaenv/bin/python, else this one if
it imports numba.cuda). Kernels: a vector add, the hidden layer's activate
(math.exp), and a block reduction through shared memory with syncthreads,
the examples' own (examples/python);
sizes the simulator gets through in a few seconds (--scale multiplies
them). Each figure is one launch + synchronize on device arrays made
beforehand, median of --repeats; ours after a first launch that compiles
(shown apart).

Goal: the cpu backend at least 100x faster than the simulator.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

# The kernels are the examples' own (examples/python); the simulator runs the
# same source with its imports of cuforge changed (bench/_examples.py).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import _examples  # noqa: E402

EXAMPLES = ("kernel_vector_add", "kernel_hidden_layer", "kernel_reduce_histogram")

# argv: implementation, sizes as JSON ({kernel: n}), repeats. Prints
# {kernel: {"first": s, "median": s}}.
DRIVER = '''
import importlib, json, statistics, sys, time
import numpy as np
impl, sizes, repeats = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
suffix = "" if impl == "ours" else "_numba"
vector_add = importlib.import_module("kernel_vector_add" + suffix)
hidden_layer = importlib.import_module("kernel_hidden_layer" + suffix)
reduce = importlib.import_module("kernel_reduce_histogram" + suffix)
cuda = vector_add.cuda
rng = np.random.default_rng(0)
TPB = 128
out = {}
for name, n in sizes.items():
    x = rng.uniform(-2, 2, n).astype(np.float32)
    y = rng.uniform(-2, 2, n).astype(np.float32)
    dx, dy = cuda.to_device(x), cuda.to_device(y)
    blocks = (n + TPB - 1) // TPB
    if name == "vector_add":
        res = cuda.device_array(n, dtype=np.float32)
        launch = lambda: vector_add.vector_add[blocks, TPB](res, dx, dy)
        expect = lambda: np.allclose(res.copy_to_host(), x + y)
    elif name == "activate":
        res = cuda.device_array(n, dtype=np.float32)
        launch = lambda: hidden_layer.activate[blocks, TPB](dx, res)
        expect = lambda: np.allclose(res.copy_to_host(), np.tanh(x), rtol=1e-5, atol=1e-6)
    else:
        tpb = reduce.TPB  # the shared array's size
        blocks = (n + tpb - 1) // tpb
        xi = rng.integers(-100, 100, n, dtype=np.int32)
        dxi = cuda.to_device(xi)
        res = cuda.device_array(blocks, dtype=np.int32)
        launch = lambda: reduce.block_sum[blocks, tpb](dxi, res)
        padded = np.zeros(blocks * tpb, np.int32)
        padded[:n] = xi
        expect = lambda: np.array_equal(res.copy_to_host(), padded.reshape(blocks, tpb).sum(axis=1))
    times = []
    for _ in range(repeats + 1):
        cuda.synchronize()
        t = time.perf_counter()
        launch()
        cuda.synchronize()
        times.append(time.perf_counter() - t)
    assert expect(), f"{impl}: {name} gave wrong results"
    out[name] = {"first": times[0], "median": statistics.median(times[1:]) if repeats else times[0]}
print(json.dumps(out))
'''

SIZES = {"vector_add": 8192, "activate": 4096, "block_sum": 1024}


def find_numba_python(given):
    if given:
        return given
    default = pathlib.Path("/tmp/numbaenv/bin/python")
    if default.exists():
        return str(default)
    try:
        import numba.cuda  # noqa: F401

        return sys.executable
    except ImportError:
        return None


def run(python, impl, sizes, repeats, folder, env):
    out = subprocess.run([python, "driver.py", impl, json.dumps(sizes), str(repeats)], cwd=folder, env=env,
                         capture_output=True, text=True)
    if out.returncode != 0:
        tail = out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"
        raise RuntimeError(f"{impl}: {tail}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--numba-python", default=None, help="an interpreter with numba-cuda")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies the sizes (the simulator's time grows with them)")
    args = ap.parse_args()
    sizes = {k: max(1, int(v * args.scale)) for k, v in SIZES.items()}
    numba_python = find_numba_python(args.numba_python)

    with tempfile.TemporaryDirectory(prefix="bench_cpu_backend_") as folder:
        _examples.stage_numba(folder, EXAMPLES)
        pathlib.Path(folder, "driver.py").write_text(DRIVER)
        ours = run(sys.executable, "ours", sizes, args.repeats, folder,
                   dict(os.environ, CUFORGE_BACKEND="cpu", OPENBLAS_NUM_THREADS="1", PYTHONPATH=_examples.pythonpath()))
        sim, why = None, "numba-cuda not found (pass --numba-python)"
        if numba_python:
            try:
                sim = run(numba_python, "sim", sizes, max(1, args.repeats // 2), folder,
                          dict(os.environ, NUMBA_ENABLE_CUDASIM="1", OPENBLAS_NUM_THREADS="1"))
            except RuntimeError as e:
                why = f"the simulator failed: {e}"

    print("bench/cpu_backend: one launch + synchronize, seconds (ours: cpu backend, warm; numba: CUDA simulator)")
    print(f"{'kernel':12}{'n':>7}{'ours first':>12}{'ours':>11}{'simulator':>11}{'speed-up':>10}")
    worst = None
    for name, n in sizes.items():
        o = ours[name]
        line = f"{name:12}{n:>7}{o['first']:12.5f}{o['median']:11.6f}"
        if sim:
            s = sim[name]["median"]
            speedup = s / o["median"]
            worst = speedup if worst is None else min(worst, speedup)
            line += f"{s:11.3f}{speedup:9.0f}x"
        print(line)
    if sim:
        print(f"goal: at least 100x the simulator's speed: slowest kernel {worst:.0f}x "
              f"({'met' if worst >= 100 else 'NOT met'})")
    else:
        print(f"simulator: {why}")


if __name__ == "__main__":
    main()
