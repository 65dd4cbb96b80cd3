#!/usr/bin/env python3
"""bench/launch: the cost of launching a kernel from Python.

    python3 bench/launch/bench_launch.py [--launches 20000] [--repeats 5] [--raw PATH]

Kernels taking 0, 1, 3 and 8 device arrays (and doing nothing), launched
on one block of 32 threads in a Python loop (`launcher(*args)` with
`launcher = kernel[1, 32]` made once; the `kernel[1, 32](*args)` form is
shown too), against baselines measured in the same run:

- raw backend: the same kernel and parameters launched from a C++ loop
  straight through cuforge's backend, no Python (``_raw_launch_loop``);
- raw driver (GPU only): ``cuLaunchKernel`` in a C++ loop over the same
  PTX, with nothing of cuforge in the way (bench_raw_launch, built from
  bench/launch/raw_launch.cpp; --raw, else looked up under build/);
- numba-cuda (GPU only, when importable): the same 3-argument kernel with
  its own device arrays;
- foreign arrays: 3 CuPy arrays and 3 PyTorch tensors as the arguments (GPU
  only, when importable); on the cpu backend an emulated
  ``__cuda_array_interface__`` producer over our own arrays shows the cost
  of that import path.

Each figure is the median over --repeats of (one loop of --launches
launches + one synchronize) / launches, so it is a launch throughput: on a
GPU a queue of tiny kernels, on the cpu backend the stream's worker
running them. "overhead" is ours minus the raw backend's, the part Python
and the dispatcher add.

Goals on a GPU: 3 arguments at most 1.5x raw cuLaunchKernel; each extra
argument at most 0.2 us; at most 0.3x numba-cuda's time; a CuPy or PyTorch
argument at most 1.3x ours. On the cpu backend the same ratios are printed
against the backend's own launch (which wakes a worker thread per launch
when the loop is slower than the worker): read them as our overhead there,
not as the GPU goals.
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # no BLAS threads competing for the cores

import numpy as np  # noqa: E402

import cuforge  # noqa: E402
from cuforge import cuda  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import _examples  # noqa: E402


@cuda.jit
def k0():
    pass


@cuda.jit
def k1(a):
    if cuda.grid(1) == -1:
        a[0] = 0


@cuda.jit
def k3(a, b, c):
    if cuda.grid(1) == -1:
        a[0] = b[0] + c[0]


@cuda.jit
def k8(a, b, c, d, e, f, g, h):
    if cuda.grid(1) == -1:
        a[0] = b[0] + c[0] + d[0] + e[0] + f[0] + g[0] + h[0]


KERNELS = {0: k0, 1: k1, 3: k3, 8: k8}


def python_loop(launcher, args, synchronize=cuda.synchronize):
    def run(n):
        synchronize()
        t = time.perf_counter()
        for _ in range(n):
            launcher(*args)
        synchronize()
        return time.perf_counter() - t

    return run


def python_loop_configuring(kernel, args):
    """`kernel[1, 32](*args)` each time, as most code is written."""

    def run(n):
        cuda.synchronize()
        t = time.perf_counter()
        for _ in range(n):
            kernel[1, 32](*args)
        cuda.synchronize()
        return time.perf_counter() - t

    return run


def raw_backend_loop(kernel, args):
    native = kernel._native_dispatcher()
    return lambda n: native._raw_launch_loop(args, 1, 32, n)


def measure(loops, launches, repeats):
    """{name: median seconds per launch}; the loops take turns, so drift on a
    busy machine hits each alike."""
    for fn in loops.values():
        fn(max(10, launches // 10))  # warm-up (compiles, loads)
    times = {name: [] for name in loops}
    for _ in range(repeats):
        for name, fn in loops.items():
            times[name].append(fn(launches) / launches)
    return {name: statistics.median(t) for name, t in times.items()}


def slope(points):
    """Least-squares slope of (x, y) points."""
    xs, ys = zip(*points)
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x in xs)


def find_raw(given):
    if given:
        return given
    for p in [ROOT / ".carry/bench_raw_launch", ROOT / "build/gpu/bench/bench_raw_launch",
              ROOT / "build/dev/bench/bench_raw_launch", ROOT / "build/cuforge/bench/bench_raw_launch"]:
        if p.exists():
            return str(p)
    return None


def raw_driver(exe, kernel, arrays, launches):
    """Seconds per cuLaunchKernel of `kernel`'s PTX for `arrays` 1-D float32 arrays."""
    cf = next(iter(kernel._native_dispatcher().specializations.values()))
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(cf.ptx)
    try:
        out = subprocess.run([exe, f.name, cf.symbol, str(arrays), str(launches)], capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip() or f"exit {out.returncode}")
    return json.loads(out.stdout)["seconds_per_launch"]


class EmulatedInterface:
    """A __cuda_array_interface__ producer over one of our arrays (the cpu
    backend has no GPU libraries to bring foreign arrays)."""

    def __init__(self, a):
        self._a = a  # keeps the memory alive
        self.__cuda_array_interface__ = {"shape": a.shape, "strides": None, "data": (a._pointer, False),
                                         "typestr": a.dtype.str, "stream": None, "version": 3}


def foreign_arrays(gpu):
    """[(label, 3 arrays, note)] for the foreign-argument rows."""
    out = []
    if not gpu:
        ours = [cuda.device_array(32, dtype=np.float32) for _ in range(3)]
        out.append(("emulated CAI producer", [EmulatedInterface(a) for a in ours], ""))
        print("CuPy, PyTorch: GPU only (cpu backend)")
        return out
    try:
        import cupy

        arrays = [cupy.zeros(32, dtype=cupy.float32) for _ in range(3)]
        stream = arrays[0].__cuda_array_interface__.get("stream")
        note = (f"(its CAI names stream {stream}: "
                + ("ours too, nothing to wait for)" if stream in (1, cuda.default_stream().handle_value)
                   else "ordered before the launch on the device)")) if stream else ""
        out.append(("CuPy", arrays, note))
    except Exception as e:  # noqa: BLE001 - any failure means "not here"
        print(f"CuPy: not available ({type(e).__name__}: {e})")
    try:
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
        arrays = [torch.zeros(32, dtype=torch.float32, device="cuda") for _ in range(3)]
        out.append(("PyTorch", arrays, ""))
    except Exception as e:  # noqa: BLE001
        print(f"PyTorch: not available ({type(e).__name__}: {e})")
    return out


def numba_launch(launches, repeats):
    """Seconds per launch of numba-cuda's 3-argument kernel, or None."""
    try:
        ncuda = _examples.numba_cuda()
    except Exception as e:  # noqa: BLE001
        print(f"numba-cuda: not importable ({type(e).__name__}: {e})")
        return None

    @ncuda.jit
    def nk3(a, b, c):
        if ncuda.grid(1) == -1:
            a[0] = b[0] + c[0]

    args = tuple(ncuda.device_array(32, dtype=np.float32) for _ in range(3))
    n = max(1000, launches // 4)  # numba is slower: fewer launches, same statistics
    return measure({"numba": python_loop(nk3[1, 32], args, ncuda.synchronize)}, n, repeats)["numba"]


def verdict(ok):
    return "met" if ok else "NOT met"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--launches", type=int, default=20000, help="launches per timed loop")
    ap.add_argument("--repeats", type=int, default=5, help="timed loops per figure (median)")
    ap.add_argument("--raw", default=None, help="bench_raw_launch (GPU baseline; default: looked up under build/)")
    args = ap.parse_args()
    n, reps = args.launches, args.repeats
    gpu = cuforge.backend() == "cuda"
    print(f"bench/launch on the {cuforge.backend()} backend ({cuforge.backend_reason()}); "
          f"{n} launches per loop, median of {reps}")

    arrays = [cuda.device_array(32, dtype=np.float32) for _ in range(8)]
    raw_exe = find_raw(args.raw) if gpu else None
    rows = {}
    print(f"{'arrays':>6}{'ours us':>9}{'k[g,b]() us':>13}{'raw backend':>13}{'raw driver':>12}"
          f"{'overhead us':>13}{'ours/raw':>10}")
    for count, kernel in KERNELS.items():
        a = tuple(arrays[:count])
        m = measure({"ours": python_loop(kernel[1, 32], a), "configuring": python_loop_configuring(kernel, a),
                     "raw": raw_backend_loop(kernel, a)}, n, reps)
        if raw_exe:
            try:
                m["driver"] = raw_driver(raw_exe, kernel, count, n)
            except RuntimeError as e:
                print(f"bench_raw_launch failed: {e}")
                raw_exe = None
        rows[count] = m
        base = m.get("driver", m["raw"])
        driver = f"{m['driver'] * 1e6:12.2f}" if "driver" in m else f"{'-':>12}"
        print(f"{count:>6}{m['ours'] * 1e6:9.2f}{m['configuring'] * 1e6:13.2f}{m['raw'] * 1e6:13.2f}{driver}"
              f"{(m['ours'] - m['raw']) * 1e6:13.2f}{m['ours'] / base:10.2f}")
    if gpu and raw_exe is None:
        print("raw driver: bench_raw_launch not found (build bench/, or pass --raw): ratios are to the raw backend")

    per_arg = slope([(c, r["ours"]) for c, r in rows.items() if c >= 1])
    per_arg_over = slope([(c, r["ours"] - r["raw"]) for c, r in rows.items() if c >= 1])
    base3 = rows[3].get("driver", rows[3]["raw"])
    base_name = "raw cuLaunchKernel" if "driver" in rows[3] else "the raw backend launch"
    goal = "goal" if gpu else "GPU goal, for reference"
    print(f"each extra array argument: {per_arg * 1e6:.3f} us ({per_arg_over * 1e6:.3f} us of it ours) "
          f"({goal}: <= 0.2 us: {verdict(per_arg <= 0.2e-6)})")
    print(f"3 arguments: {rows[3]['ours'] / base3:.2f}x {base_name} ({goal}: <= 1.5x: "
          f"{verdict(rows[3]['ours'] <= 1.5 * base3)})")

    for label, fargs, note in foreign_arrays(gpu):
        try:
            t = measure({"f": python_loop(k3[1, 32], tuple(fargs))}, n, reps)["f"]
        except Exception as e:  # noqa: BLE001 - report, keep the other rows
            print(f"3 {label} arguments: failed ({type(e).__name__}: {e})")
            continue
        ratio = t / rows[3]["ours"]
        print(f"3 {label} arguments: {t * 1e6:.2f} us, {ratio:.2f}x ours with our arrays "
              f"({'goal' if gpu and 'emulated' not in label else 'GPU goal, for reference'}: <= 1.3x: "
              f"{verdict(ratio <= 1.3)}) {note}".rstrip())

    if gpu:
        t = numba_launch(n, reps)
        if t is not None:
            ratio = rows[3]["ours"] / t
            print(f"numba-cuda, 3 arguments: {t * 1e6:.2f} us; ours is {ratio:.3f}x numba's "
                  f"(goal: <= 0.3x: {verdict(ratio <= 0.3)})")
    else:
        print("numba-cuda: GPU only (its simulator is no launch baseline)")


if __name__ == "__main__":
    main()
