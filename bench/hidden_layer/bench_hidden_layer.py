#!/usr/bin/env python3
"""bench/hidden_layer: the course's hidden-layer assessment end to end.

    python3 bench/hidden_layer/bench_hidden_layer.py [--n N] [--repeats 3] [--no-numba]

`create_hidden_layer` exactly as the course's solution writes it (seeds/003:
two `cuda.to_device`, three `cuda.device_array`, the normalize, weigh and
activate kernels with 512 threads per block, `copy_to_host`), and the
kernels, from examples/python/kernel_hidden_layer.py, timed whole,
transfers and allocations included, after one call at a small n that
compiles the kernels. Median of --repeats calls; the result is checked
against NumPy's tanh.

Baselines, measured in the same run:
- on a GPU: the same source under numba-cuda (the example with its imports
  of cuforge made numba's, in this process when importable; --no-numba
  leaves it out). Default n = 100M, the assessment's.
  Goals: at most 0.25 s and faster than Numba (the course asks < 1 s).
- on the cpu backend: the course's CPU version in NumPy (its `exp` on whole
  arrays). Default n = 4M (the backend runs the kernels on the host's
  cores; --n sets it). No goal: the ratio shows where the backend stands.

A second table splits our time into allocations + host-to-device copies,
the three kernels, and the copy back (with a synchronize between them, so it
sums to a little more than the end-to-end time).
"""

import argparse
import pathlib
import statistics
import sys
import time

import numpy as np

import cuforge
from cuforge import cuda

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import _examples  # noqa: E402

ours = _examples.load("kernel_hidden_layer")  # the course's kernels and solution, as the example writes them


def create_hidden_layer_numpy(n, greyscales, weights, exp):
    """The course's CPU starting point: NumPy on whole arrays."""
    normalized = greyscales / 255
    weighted = normalized * weights
    return (exp(weighted) - exp(-weighted)) / (exp(weighted) + exp(-weighted))


def timed(fn, repeats):
    times, result = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def check(result, greyscales, weights, who):
    expected = np.tanh(greyscales / np.float32(255.0) * weights)
    if result.shape != expected.shape or not np.allclose(result, expected, rtol=1e-5, atol=1e-6):
        raise SystemExit(f"{who}: WRONG results (max abs error {np.max(np.abs(result - expected)):.3g})")


def stages(n, greyscales, weights):
    """Seconds of (allocations + copies in, kernels, copy back) for ours."""
    cuda.synchronize()
    t0 = time.perf_counter()
    g = cuda.to_device(greyscales)
    w = cuda.to_device(weights)
    normalized = cuda.device_array(greyscales.shape, dtype=np.float32)
    weighted = cuda.device_array(weights.shape, dtype=np.float32)
    activated = cuda.device_array(weights.shape, dtype=np.float32)
    cuda.synchronize()
    t1 = time.perf_counter()
    blocks = (n + 511) // 512
    ours.normalize[blocks, 512](g, normalized)
    ours.weigh[blocks, 512](normalized, w, weighted)
    ours.activate[blocks, 512](weighted, activated)
    cuda.synchronize()
    t2 = time.perf_counter()
    activated.copy_to_host()
    t3 = time.perf_counter()
    return t1 - t0, t2 - t1, t3 - t2


def numba_example():
    """The example under numba-cuda (its imports of cuforge made numba's), or
    None with the reason printed."""
    try:
        ncuda = _examples.numba_cuda()
        if not ncuda.is_available():
            raise RuntimeError("numba.cuda.is_available() is False")
        return _examples.load("kernel_hidden_layer", "numba")
    except Exception as e:  # noqa: BLE001 - any failure means "not here"
        print(f"numba-cuda: not available ({type(e).__name__}: {e})")
        return None


def main():
    gpu = cuforge.backend() == "cuda"
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000_000 if gpu else 4_000_000, help="neurons (default: 100M on a "
                    "GPU, 4M on the cpu backend)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-numba", action="store_true", help="leave out numba-cuda (GPU)")
    args = ap.parse_args()
    n = args.n
    print(f"bench/hidden_layer on the {cuforge.backend()} backend ({cuforge.backend_reason()}), n = {n:,}, "
          f"median of {args.repeats}")

    rng = np.random.default_rng(0)
    greyscales = np.floor(rng.uniform(0, 255, n).astype(np.float32))
    weights = rng.normal(0.5, 0.1, n).astype(np.float32)
    kernels = (ours.normalize, ours.weigh, ours.activate)
    ours.create_hidden_layer(1024, greyscales[:1024], weights[:1024], np.exp, *kernels)  # compiles
    t_ours, result = timed(lambda: ours.create_hidden_layer(n, greyscales, weights, np.exp, *kernels), args.repeats)
    check(result, greyscales, weights, "ours")
    del result
    print(f"ours (cuforge):      {t_ours:8.3f} s   correct")

    if gpu:
        nk = None if args.no_numba else numba_example()
        t_numba = None
        if nk is not None:
            nkernels = (nk.normalize, nk.weigh, nk.activate)
            nk.create_hidden_layer(1024, greyscales[:1024], weights[:1024], np.exp, *nkernels)
            t_numba, result = timed(lambda: nk.create_hidden_layer(n, greyscales, weights, np.exp, *nkernels),
                                    args.repeats)
            check(result, greyscales, weights, "numba-cuda")
            del result
            print(f"numba-cuda:          {t_numba:8.3f} s   correct;  ours is {t_ours / t_numba:.2f}x numba's")
        print(f"goal: at most 0.25 s: {'met' if t_ours <= 0.25 else 'NOT met'}; faster than Numba: "
              + ("not measured" if t_numba is None else ("met" if t_ours < t_numba else "NOT met"))
              + f"; the course's < 1 s: {'met' if t_ours < 1 else 'NOT met'}")
    else:
        t_np, result = timed(lambda: create_hidden_layer_numpy(n, greyscales, weights, np.exp), args.repeats)
        check(result.astype(np.float32), greyscales, weights, "NumPy")
        del result
        print(f"NumPy (the course's CPU code): {t_np:8.3f} s;  ours is {t_ours / t_np:.2f}x NumPy's time")
        print("numba-cuda: GPU only")

    parts = [stages(n, greyscales, weights) for _ in range(args.repeats)]
    alloc_in, kern, out = (statistics.median(p[i] for p in parts) for i in range(3))
    print(f"ours by stage: allocations + copies in {alloc_in:.3f} s, 3 kernels {kern:.3f} s, copy back {out:.3f} s")


if __name__ == "__main__":
    main()
