#!/usr/bin/env python3
"""bench/cpu_backend: six workloads on the cpu backend against numba's
prange and NumPy, in one run.

    CUFORGE_BACKEND=cpu python3 bench/cpu_backend/bench_workloads.py [--numba-python PATH]
        [--repeats 5] [--scale 1] [--launches 2000] [--transfer-mib 256] [--json PATH]

Measured: cuforge kernels run by the cpu backend (CUFORGE_BACKEND=cpu, the
default here; kernels compiled to host code): SAXPY (2^24 float32), a
5-point stencil (4096x4096 float32), the hidden layer's three kernels
(normalize, weigh, activate; examples/python/kernel_hidden_layer.py, 10M), the
tiled matmul with 16x16 shared tiles and syncthreads (kernel_matmul.py,
512x512 float32), the block reduction through shared memory with a
syncthreads per step (kernel_reduce_histogram.py, 2^24 int32, one partial a
block) and the histogram with global atomics (the same file, 2^24 values,
256 bins). --scale multiplies the element counts (a 2-D side by its square
root). One thread an element, 256 a block; 16x16 blocks for the stencil and
the matmul. Each figure is launch + cuda.synchronize() on device arrays made
beforehand, the median of --repeats after a first launch that compiles and
whose result is checked against NumPy.

Against: (a) numba's @njit(parallel=True) with prange doing the same work
(numba 0.68 from numba-cuda's venv, --numba-python, in a subprocess running a
driver staged in a temporary folder; numba's default threads, all cores);
(b) NumPy's natural expression (a*x + y, slices, x @ y, x.sum(),
np.bincount). Also: a STREAM-like copy (a kernel out[i] = x[i] over 2^24
float32, and np.copyto) whose better bandwidth is "the copy bandwidth"
(bytes counted as STREAM does: a read and a write an element); launch +
synchronize of a 1-thread kernel, median of --launches, in microseconds;
cuda.to_device of --transfer-mib MiB into fresh memory against np.copy. A
yardstick row, "stencil, float32", runs the stencil with np.float32(0.2), so
float32 arithmetic throughout (the workload's 0.2 is a Python float: numba
computes its product in float64, and so do we): the difference between the
two rows is what that conversion costs; it has no goal of its own.

The memory-bound workloads are also timed in turns with the copy kernel
(copy, workload, copy, workload, ...: the median over the pairs of the
workload's bandwidth over the copy's, "in turns"). On a VM whose memory
bandwidth drifts by 20-30% over seconds (this one's), a copy timed a minute
earlier measures another machine; both figures are printed, and the goal is
judged in turns.

Goals (the cpu backend's spec): SAXPY, the stencil and the hidden layer at
>= 0.8 of the copy bandwidth (in turns); every workload within 1.5x of numba's prange,
the block reduction and the tiled matmul within 3x; launch + synchronize
<= 10 us; to_device of 256 MiB <= 1.2x np.copy.
"""

import argparse
import json
import math
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("CUFORGE_BACKEND", "cpu")  # noqa: E402 - read when cuforge is imported

import numpy as np  # noqa: E402

import cuforge  # noqa: E402
from cuforge import cuda  # noqa: E402

# The hidden layer, tiled matmul, block reduction and histogram kernels are
# the examples' own (examples/python), imported, not copied.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import _examples  # noqa: E402

hidden_layer = _examples.load("kernel_hidden_layer")
matmul = _examples.load("kernel_matmul")
reduce_histogram = _examples.load("kernel_reduce_histogram")

TPB = 256  # threads a block for the one-dimensional kernels
TILE = matmul.TPB  # 16: the tiled matmul's shared tiles and its blocks' sides
BINS = 256


@cuda.jit
def copy(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i]


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def stencil(x, out):
    j, i = cuda.grid(2)  # x, the fastest index, along a row
    n, m = x.shape
    if i < n and j < m:
        if 0 < i < n - 1 and 0 < j < m - 1:
            out[i, j] = 0.2 * (x[i, j] + x[i - 1, j] + x[i + 1, j] + x[i, j - 1] + x[i, j + 1])
        else:
            out[i, j] = x[i, j]


@cuda.jit
def stencil_f32(x, out):
    # The same stencil in float32 throughout: the workload's `0.2 * (...)` is float64 arithmetic
    # (a Python float, as numba types it), a cost this one leaves out (not a goal: a yardstick).
    j, i = cuda.grid(2)
    n, m = x.shape
    if i < n and j < m:
        if 0 < i < n - 1 and 0 < j < m - 1:
            out[i, j] = np.float32(0.2) * (x[i, j] + x[i - 1, j] + x[i + 1, j] + x[i, j - 1] + x[i, j + 1])
        else:
            out[i, j] = x[i, j]


@cuda.jit
def tiny(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = 1.0


# numba's side: argv is sizes as JSON and repeats; prints {workload: {"ms": median, "first_ms": ...}}
# and the thread count. The same data as ours (the same seeds), checked against NumPy once.
DRIVER = r'''
import json, statistics, sys, time
import numpy as np
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack  # numba 0.68 reads it; NumPy 2.4 dropped it
import numba
from numba import njit, prange

sizes, repeats = json.loads(sys.argv[1]), int(sys.argv[2])

@njit(parallel=True)
def copy(x, out):
    for i in prange(x.size):
        out[i] = x[i]

@njit(parallel=True)
def saxpy(a, x, y, out):
    for i in prange(x.size):
        out[i] = a * x[i] + y[i]

def make_stencil(weight):  # weight: a closure constant, float64 or float32 as given
    @njit(parallel=True)
    def stencil(x, out):
        n, m = x.shape
        for i in prange(n):
            if i == 0 or i == n - 1:
                for j in range(m):
                    out[i, j] = x[i, j]
            else:
                out[i, 0] = x[i, 0]
                for j in range(1, m - 1):
                    out[i, j] = weight * (x[i, j] + x[i - 1, j] + x[i + 1, j] + x[i, j - 1] + x[i, j + 1])
                out[i, m - 1] = x[i, m - 1]
    return stencil

stencil = make_stencil(0.2)
stencil_f32 = make_stencil(np.float32(0.2))

@njit(parallel=True)
def normalize(grayscales, out):
    for i in prange(grayscales.size):
        out[i] = grayscales[i] / 255.0

@njit(parallel=True)
def weigh(values, weights, out):
    for i in prange(values.size):
        out[i] = values[i] * weights[i]

@njit(parallel=True)
def activate(values, out):
    for i in prange(values.size):
        out[i] = (np.exp(values[i]) - np.exp(-values[i])) / (np.exp(values[i]) + np.exp(-values[i]))

@njit(parallel=True)
def matmul(A, B, C):
    for i in prange(A.shape[0]):
        for j in range(C.shape[1]):
            C[i, j] = 0
        for k in range(A.shape[1]):
            a = A[i, k]
            for j in range(B.shape[1]):
                C[i, j] += a * B[k, j]

@njit(parallel=True)
def block_sum(x, partial, tpb):
    for b in prange(partial.size):
        s = 0
        for j in range(b * tpb, min((b + 1) * tpb, x.size)):
            s += x[j]
        partial[b] = s

@njit(parallel=True)
def histogram(values, bins):
    chunks = 4 * numba.get_num_threads()
    local = np.zeros((chunks, bins.size), dtype=np.int32)
    step = (values.size + chunks - 1) // chunks
    for c in prange(chunks):
        for i in range(c * step, min((c + 1) * step, values.size)):
            local[c, values[i]] += 1
    for c in range(chunks):
        for b in range(bins.size):
            bins[b] += local[c, b]

def check(name, ok):
    if not ok:
        sys.exit(f"numba: {name} gave wrong results")

out = {"threads": numba.get_num_threads(), "version": numba.__version__}
for name, n in sizes.items():
    rng = np.random.default_rng(0)
    reset = None
    if name in ("copy", "saxpy"):
        x = rng.uniform(-2, 2, n).astype(np.float32)
        y = rng.uniform(-2, 2, n).astype(np.float32)
        res = np.empty_like(x)
        if name == "copy":
            run = lambda: copy(x, res)
            ok = lambda: np.array_equal(res, x)
        else:
            a = np.float32(2.5)
            run = lambda: saxpy(a, x, y, res)
            ok = lambda: np.allclose(res, a * x + y, rtol=1e-6, atol=1e-6)
    elif name in ("stencil", "stencil_f32"):
        x = rng.uniform(-2, 2, (n, n)).astype(np.float32)
        res = np.empty_like(x)
        kernel = stencil if name == "stencil" else stencil_f32
        run = lambda: kernel(x, res)
        def ok():
            e = x.copy()
            e[1:-1, 1:-1] = 0.2 * (x[1:-1, 1:-1] + x[:-2, 1:-1] + x[2:, 1:-1] + x[1:-1, :-2] + x[1:-1, 2:])
            return np.allclose(res, e, rtol=1e-5, atol=1e-6)
    elif name == "hidden_layer":
        g = np.floor(rng.uniform(0, 255, n)).astype(np.float32)
        w = rng.normal(0.5, 0.1, n).astype(np.float32)
        t1, t2, res = np.empty_like(g), np.empty_like(g), np.empty_like(g)
        def run():
            normalize(g, t1)
            weigh(t1, w, t2)
            activate(t2, res)
        ok = lambda: np.allclose(res, np.tanh(g / np.float32(255.0) * w), rtol=1e-5, atol=1e-6)
    elif name == "matmul":
        A = rng.random((n, n), dtype=np.float32)
        B = rng.random((n, n), dtype=np.float32)
        res = np.empty((n, n), np.float32)
        run = lambda: matmul(A, B, res)
        ok = lambda: np.allclose(res, A @ B, rtol=1e-4, atol=1e-3)
    elif name == "block_reduce":
        tpb = 256
        x = rng.integers(-100, 100, n, dtype=np.int32)
        blocks = (n + tpb - 1) // tpb
        res = np.empty(blocks, np.int32)
        run = lambda: block_sum(x, res, tpb)
        def ok():
            padded = np.zeros(blocks * tpb, np.int32)
            padded[:n] = x
            return np.array_equal(res, padded.reshape(blocks, tpb).sum(axis=1))
    elif name == "histogram":
        v = rng.integers(0, 256, n, dtype=np.int32)
        res = np.zeros(256, np.int32)
        run = lambda: histogram(v, res)
        reset = lambda: res.fill(0)
        ok = lambda: np.array_equal(res, np.bincount(v, minlength=256))
    else:
        continue
    t = time.perf_counter()
    run()  # compiles
    first = time.perf_counter() - t
    check(name, ok())
    times = []
    for _ in range(repeats):
        if reset:
            reset()
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    out[name] = {"ms": statistics.median(times) * 1e3, "first_ms": first * 1e3}
print(json.dumps(out))
'''

# Default sizes: elements for 1-D workloads, a side for the 2-D ones.
SIZES = {"copy": 2**24, "saxpy": 2**24, "stencil": 4096, "stencil_f32": 4096, "hidden_layer": 10_000_000,
         "matmul": 512, "block_reduce": 2**24, "histogram": 2**24}
TWO_D = ("stencil", "stencil_f32", "matmul")
LABELS = {"copy": "copy (STREAM)", "saxpy": "SAXPY", "stencil": "stencil 5-point", "stencil_f32": "stencil, float32",
          "hidden_layer": "hidden layer",
          "matmul": "tiled matmul", "block_reduce": "block reduction", "histogram": "histogram (atomics)"}
# Bytes a launch moves at the least (each element read and written once): STREAM's count.
BYTES_PER_ELEMENT = {"copy": 8, "saxpy": 12, "stencil": 8, "stencil_f32": 8, "hidden_layer": 8 + 12 + 8}
MEMORY_BOUND = ("saxpy", "stencil", "hidden_layer")
YARDSTICKS = ("copy", "stencil_f32")  # rows measured beside the workloads, with no goal of their own
NUMBA_LIMIT = {"matmul": 3.0, "block_reduce": 3.0}  # the rest: 1.5


def scaled_sizes(scale):
    out = {}
    for name, n in SIZES.items():
        if name in TWO_D:
            out[name] = max(TILE, int(round(n * math.sqrt(scale) / TILE)) * TILE)
        else:
            out[name] = max(TPB, int(n * scale))
    return out


def size_label(name, n):
    if name in TWO_D:
        return f"{n}x{n}"
    if n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return f"{n / 1e6:g}M" if n % 100_000 == 0 else str(n)


def elements(name, n):
    return n * n if name in TWO_D else n


def blocks_for(n):
    return (n + TPB - 1) // TPB


def median_ms(launch, repeats, reset=None):
    """Median of launch + synchronize, in ms (the first launch, which compiles, made and checked before)."""
    times = []
    for _ in range(repeats):
        if reset:
            reset()
        cuda.synchronize()
        t = time.perf_counter()
        launch()
        cuda.synchronize()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def in_turns(launch, copy_launch, bytes_ratio, repeats, reset=None):
    """The workload's bandwidth over the copy kernel's, the two timed in turns: the median over
    `repeats` pairs (copy, then workload) of bytes_ratio * copy time / workload time."""
    def timed(f):
        cuda.synchronize()
        t = time.perf_counter()
        f()
        cuda.synchronize()
        return time.perf_counter() - t
    ratios = []
    for _ in range(repeats):
        c = timed(copy_launch)
        if reset:
            reset()
        ratios.append(bytes_ratio * c / timed(launch))
    return statistics.median(ratios)


def first_ms(launch):
    t = time.perf_counter()
    launch()
    cuda.synchronize()
    return (time.perf_counter() - t) * 1e3


def check(name, ok):
    if not ok:
        raise SystemExit(f"cuforge: {name} gave wrong results on the {cuda.backend()} backend")


def bench_cuforge(sizes, repeats):
    """{workload: {"ms", "first_ms"}} for our kernels, and NumPy's ms on the same data."""
    ours, numpy = {}, {}
    # The copy kernel's own arrays, kept for timing the memory-bound workloads in turns with it.
    n_copy = sizes.get("copy", 2**24)
    yard_x = cuda.to_device(np.random.default_rng(1).uniform(-2, 2, n_copy).astype(np.float32))
    yard_out = cuda.device_array(n_copy, dtype=np.float32)
    copy_launch = lambda: copy[blocks_for(n_copy), TPB](yard_x, yard_out)  # noqa: E731
    for name, n in sizes.items():
        rng = np.random.default_rng(0)  # the numba driver makes the same data
        reset = None
        if name in ("copy", "saxpy"):
            x = rng.uniform(-2, 2, n).astype(np.float32)
            y = rng.uniform(-2, 2, n).astype(np.float32)
            dx, dy = cuda.to_device(x), cuda.to_device(y)
            dres = cuda.device_array(n, dtype=np.float32)
            if name == "copy":
                launch = lambda: copy[blocks_for(n), TPB](dx, dres)  # noqa: E731
                expect = lambda r: np.array_equal(r, x)  # noqa: E731
                host = np.empty_like(x)
                numpy_op = lambda: np.copyto(host, x)  # noqa: E731
            else:
                a = np.float32(2.5)
                launch = lambda: saxpy[blocks_for(n), TPB](a, dx, dy, dres)  # noqa: E731
                expect = lambda r: np.allclose(r, a * x + y, rtol=1e-6, atol=1e-6)  # noqa: E731
                numpy_op = lambda: a * x + y  # noqa: E731
        elif name in ("stencil", "stencil_f32"):
            x = rng.uniform(-2, 2, (n, n)).astype(np.float32)
            dx = cuda.to_device(x)
            dres = cuda.device_array((n, n), dtype=np.float32)
            grid = ((n + 15) // 16, (n + 15) // 16)
            kernel = stencil if name == "stencil" else stencil_f32
            launch = lambda: kernel[grid, (16, 16)](dx, dres)  # noqa: E731

            def numpy_op():
                e = x.copy()
                e[1:-1, 1:-1] = 0.2 * (x[1:-1, 1:-1] + x[:-2, 1:-1] + x[2:, 1:-1] + x[1:-1, :-2] + x[1:-1, 2:])
                return e

            expect = lambda r: np.allclose(r, numpy_op(), rtol=1e-5, atol=1e-6)  # noqa: E731
        elif name == "hidden_layer":
            g = np.floor(rng.uniform(0, 255, n)).astype(np.float32)
            w = rng.normal(0.5, 0.1, n).astype(np.float32)
            dg, dw = cuda.to_device(g), cuda.to_device(w)
            d1, d2, dres = (cuda.device_array(n, dtype=np.float32) for _ in range(3))
            b = blocks_for(n)

            def launch():
                hidden_layer.normalize[b, TPB](dg, d1)
                hidden_layer.weigh[b, TPB](d1, dw, d2)
                hidden_layer.activate[b, TPB](d2, dres)

            numpy_op = lambda: np.tanh(g / np.float32(255.0) * w)  # noqa: E731
            expect = lambda r: np.allclose(r, numpy_op(), rtol=1e-5, atol=1e-6)  # noqa: E731
        elif name == "matmul":
            A = rng.random((n, n), dtype=np.float32)
            B = rng.random((n, n), dtype=np.float32)
            dA, dB = cuda.to_device(A), cuda.to_device(B)
            dres = cuda.device_array((n, n), dtype=np.float32)
            grid = ((n + TILE - 1) // TILE, (n + TILE - 1) // TILE)
            launch = lambda: matmul.fast_matmul[grid, (TILE, TILE)](dA, dB, dres)  # noqa: E731
            numpy_op = lambda: A @ B  # noqa: E731
            expect = lambda r: np.allclose(r, numpy_op(), rtol=1e-4, atol=1e-3)  # noqa: E731
        elif name == "block_reduce":
            tpb = reduce_histogram.TPB  # the shared array's size: 256
            x = rng.integers(-100, 100, n, dtype=np.int32)
            dx = cuda.to_device(x)
            blocks = (n + tpb - 1) // tpb
            dres = cuda.device_array(blocks, dtype=np.int32)
            launch = lambda: reduce_histogram.block_sum[blocks, tpb](dx, dres)  # noqa: E731
            numpy_op = lambda: x.sum()  # noqa: E731

            def expect(r):
                padded = np.zeros(blocks * tpb, np.int32)
                padded[:n] = x
                return np.array_equal(r, padded.reshape(blocks, tpb).sum(axis=1)) and r.sum() == numpy_op()
        elif name == "histogram":
            v = rng.integers(0, BINS, n, dtype=np.int32)
            dv = cuda.to_device(v)
            zeros = np.zeros(BINS, np.int32)
            dres = cuda.to_device(zeros)
            launch = lambda: reduce_histogram.histogram[blocks_for(n), TPB](dv, dres)  # noqa: E731
            reset = lambda: dres.copy_to_device(zeros)  # noqa: E731
            numpy_op = lambda: np.bincount(v, minlength=BINS)  # noqa: E731
            expect = lambda r: np.array_equal(r, numpy_op())  # noqa: E731
        first = first_ms(launch)
        check(name, expect(dres.copy_to_host()))
        ours[name] = {"ms": median_ms(launch, repeats, reset), "first_ms": first}
        if name in MEMORY_BOUND:
            ratio = BYTES_PER_ELEMENT[name] * elements(name, n) / (BYTES_PER_ELEMENT["copy"] * n_copy)
            ours[name]["of_copy_in_turns"] = in_turns(launch, copy_launch, ratio, repeats, reset)
        numpy_op()
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            numpy_op()
            times.append(time.perf_counter() - t)
        numpy[name] = statistics.median(times) * 1e3
    return ours, numpy


def bench_launch(launches):
    """Launch + synchronize of a 1-thread kernel, median in microseconds."""
    d = cuda.device_array(1, dtype=np.float32)
    tiny[1, 1](d)
    cuda.synchronize()
    check("tiny", d.copy_to_host()[0] == 1.0)
    times = []
    for _ in range(launches):
        t = time.perf_counter()
        tiny[1, 1](d)
        cuda.synchronize()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def bench_to_device(mib, repeats):
    """cuda.to_device of mib MiB into fresh memory, and np.copy of the same array: median ms each."""
    host = np.random.default_rng(0).random(mib * 2**20 // 4, dtype=np.float32)
    d = cuda.to_device(host)
    check("to_device", np.array_equal(d.copy_to_host()[:: 2**16], host[:: 2**16]))
    del d
    ours, theirs = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        d = cuda.to_device(host)
        cuda.synchronize()
        ours.append(time.perf_counter() - t)
        del d
        t = time.perf_counter()
        c = np.copy(host)
        theirs.append(time.perf_counter() - t)
        del c
    return statistics.median(ours) * 1e3, statistics.median(theirs) * 1e3


def find_numba_python(given):
    if given:
        return given
    default = pathlib.Path.home() / ".cache" / "cuforge" / "numba-cuda-0.30.4" / "bin" / "python"
    return str(default) if default.exists() else None


def bench_numba(python, sizes, repeats):
    """numba's figures from the staged driver, or (None, why)."""
    with tempfile.TemporaryDirectory(prefix="bench_workloads_") as folder:
        pathlib.Path(folder, "driver.py").write_text(DRIVER)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        out = subprocess.run([python, "driver.py", json.dumps(sizes), str(repeats)], cwd=folder, env=env,
                             capture_output=True, text=True)
    if out.returncode != 0:
        tail = out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"
        return None, f"numba failed: {tail}"
    return json.loads(out.stdout.strip().splitlines()[-1]), None


def verdict(ok):
    return "MET" if ok else "NOT MET"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--numba-python", default=None,
                    help="an interpreter with numba (default: numba-cuda 0.30.4's venv under ~/.cache/cuforge)")
    ap.add_argument("--repeats", type=int, default=5,
                    help="timed launches a workload (median), after one that compiles")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="multiplies the element counts (a 2-D workload's side by its square root)")
    ap.add_argument("--launches", type=int, default=2000, help="launches of the 1-thread kernel (median)")
    ap.add_argument("--transfer-mib", type=int, default=256, help="size of the to_device / np.copy comparison")
    ap.add_argument("--json", metavar="PATH", help="also write the figures here")
    args = ap.parse_args()
    repeats = max(1, args.repeats)
    sizes = scaled_sizes(args.scale)

    ours, numpy_ms = bench_cuforge(sizes, repeats)
    launch_us = bench_launch(args.launches)
    to_device_ms, np_copy_ms = bench_to_device(args.transfer_mib, repeats)

    numba_python = find_numba_python(args.numba_python)
    numba, why = (None, "numba not found (pass --numba-python)")
    if numba_python and pathlib.Path(numba_python).exists():
        numba, why = bench_numba(numba_python, sizes, repeats)
    elif numba_python:
        why = f"numba not found ({numba_python} does not exist)"

    def gbps(name, ms):
        return BYTES_PER_ELEMENT[name] * elements(name, sizes[name]) / (ms * 1e-3) / 1e9

    copy_gbps = {"kernel": gbps("copy", ours["copy"]["ms"]), "np.copyto": gbps("copy", numpy_ms["copy"])}
    copy_bw = max(copy_gbps.values())

    threads = os.environ.get("CUFORGE_CPU_THREADS", str(os.cpu_count()))
    print(f"bench/cpu_backend/bench_workloads: cuforge on the {cuda.backend()} backend ({threads} workers), "
          f"numba {numba['version'] + ' prange (' + str(numba['threads']) + ' threads)' if numba else '-'}, "
          f"NumPy {np.__version__}; {platform.machine()}, {os.cpu_count()} cores")
    print(f"launch + synchronize, median of {repeats}, ms; bandwidth counts each element read and written once")
    print(f"{'workload':20}{'size':>10}{'first':>9}{'cuforge':>10}{'numba':>10}{'NumPy':>10}"
          f"{'cf/numba':>10}{'GB/s':>8}{'of copy':>9}")
    rows = {}
    for name, n in sizes.items():
        o = ours[name]
        nb = numba[name]["ms"] if numba else None
        ratio = o["ms"] / nb if nb else None
        bw = gbps(name, o["ms"]) if name in BYTES_PER_ELEMENT else None
        frac = bw / copy_bw if bw is not None else None
        rows[name] = {"size": size_label(name, n), "elements": elements(name, n), "cuforge_first_ms": o["first_ms"],
                      "cuforge_ms": o["ms"], "numba_first_ms": numba[name]["first_ms"] if numba else None,
                      "numba_ms": nb, "numpy_ms": numpy_ms[name], "cuforge_over_numba": ratio,
                      "cuforge_gbps": bw, "of_copy_bandwidth": frac,
                      "of_copy_in_turns": o.get("of_copy_in_turns")}
        print(f"{LABELS[name]:20}{size_label(name, n):>10}{o['first_ms']:9.1f}{o['ms']:10.2f}"
              + (f"{nb:10.2f}" if nb else f"{'-':>10}") + f"{numpy_ms[name]:10.2f}"
              + (f"{ratio:9.2f}x" if ratio else f"{'-':>10}")
              + (f"{bw:8.1f}" if bw is not None else f"{'':8}")
              + (f"{frac:9.2f}" if frac is not None else f"{'':9}"))
    print(f"copy bandwidth: {copy_bw:.1f} GB/s (the better of the copy kernel's {copy_gbps['kernel']:.1f} "
          f"and np.copyto's {copy_gbps['np.copyto']:.1f})")
    print(f"memory-bound workloads timed in turns with the copy kernel (median of {repeats} pairs), of its "
          "bandwidth: " + ", ".join(f"{LABELS[k]} {rows[k]['of_copy_in_turns']:.2f}" for k in MEMORY_BOUND if k in rows))
    print(f"launch + synchronize, 1 block of 1 thread: {launch_us:.2f} us (median of {args.launches})")
    print(f"to_device {args.transfer_mib} MiB into fresh memory: {to_device_ms:.1f} ms, np.copy {np_copy_ms:.1f} ms")
    if not numba:
        print(why)

    goals = []
    for name in (k for k in MEMORY_BOUND if k in rows):
        frac, turns = rows[name]["of_copy_bandwidth"], rows[name]["of_copy_in_turns"]
        goals.append((f"{LABELS[name]} >= 0.8 of the copy bandwidth, in turns (the run's copy)",
                      f"{turns:.2f} ({frac:.2f})", turns >= 0.8))
    if numba:
        for name in (n for n in sizes if n not in YARDSTICKS):  # the copy is the bandwidth's reference
            limit = NUMBA_LIMIT.get(name, 1.5)
            r = rows[name]["cuforge_over_numba"]
            goals.append((f"{LABELS[name]} within {limit:g}x of numba's prange", f"{r:.2f}x", r <= limit))
    goals.append(("launch + synchronize <= 10 us", f"{launch_us:.2f} us", launch_us <= 10))
    ratio = to_device_ms / np_copy_ms
    goals.append((f"to_device {args.transfer_mib} MiB <= 1.2x np.copy", f"{ratio:.2f}x", ratio <= 1.2))
    print("goals:")
    width = max(len(g[0]) for g in goals)
    for goal, value, ok in goals:
        print(f"  {goal:{width}}  {value:>9}  {verdict(ok)}")

    if args.json:
        figures = {"backend": cuda.backend(), "cuforge_version": getattr(cuforge, "__version__", None),
                   "numpy_version": np.__version__, "numba": {k: numba[k] for k in ("version", "threads")} if numba
                   else None, "numba_skipped": why if not numba else None, "repeats": repeats, "scale": args.scale,
                   "workloads": rows, "copy_gbps": copy_gbps, "copy_bandwidth_gbps": copy_bw,
                   "launch_us": launch_us, "to_device": {"mib": args.transfer_mib, "to_device_ms": to_device_ms,
                                                         "np_copy_ms": np_copy_ms, "ratio": ratio},
                   "goals": [{"goal": g, "value": v, "met": ok} for g, v, ok in goals]}
        pathlib.Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
