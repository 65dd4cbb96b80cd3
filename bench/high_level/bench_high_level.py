#!/usr/bin/env python3
"""The high-level APIs against numba, on the host: cuforge.njit against
numba's @njit (the course's monte_carlo_pi, a dot product, a prange sum with
parallel=True, the call of a tiny function, an array expression with
reductions, an array made and filled by a prange loop), vectorize on the 'cpu' and 'parallel' targets against numba's
(the course's gaussian_pdf over 10M float32), a guvectorize row sum, and
cuda.reduce against NumPy's sum on the cpu backend. The same driver source
runs under both (its import of cuforge made numba's); numba comes from
--numba-python, this Python, /tmp/numbaenv or numba-cuda's test venv.

Goal (the issue's): the host jit within 1.5x of numba's @njit on the same
work. Usage: bench_high_level.py [--numba-python PATH] [--n N]
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import _examples  # noqa: E402

DRIVER = r'''
import json, math, random, sys, time
import numpy as np
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack
MODE = sys.argv[1]
N = int(sys.argv[2])
if MODE == "numba":
    from numba import guvectorize, njit, prange, vectorize
    sys.modules["host_jit_reduce_random"] = __import__("host_jit_reduce_random_numba")
else:
    from cuforge import guvectorize, njit, prange, vectorize

from host_jit_reduce_random import hypot, monte_carlo_pi  # the course's cells, as the example holds them
# (under numba: the example with its imports of cuforge made numba's, bench/_examples.py)

@njit
def dot(a, b):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s

@njit(parallel=True)
def sum_of_squares(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i] * a[i]
    return s

@njit
def standardise(a):
    return (a - a.mean()) / (a.max() - a.min())

@njit(parallel=True)
def squares(a):
    out = np.empty_like(a)
    for i in prange(a.shape[0]):
        out[i] = a[i] * a[i]
    return out

SQRT_2PI = np.float32((2 * math.pi) ** 0.5)

def gaussian_pdf(x, mean, sigma):
    return math.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * SQRT_2PI)

cpu_pdf = vectorize(["float32(float32, float32, float32)"], target="cpu")(gaussian_pdf)
par_pdf = vectorize(["float32(float32, float32, float32)"], target="parallel")(gaussian_pdf)

@guvectorize(["void(float64[:], float64[:])"], "(n)->()")
def row_sum(x, out):
    s = 0.0
    for v in x:
        s += v
    out[0] = s

def best(f, n=5):
    f()
    times = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)

rng = np.random.default_rng(0)
xs, ys = rng.random(N), rng.random(N)
x32 = rng.uniform(-3, 3, N).astype(np.float32)
rows = rng.random((N // 100, 100))
out = {
    "monte_carlo_pi": best(lambda: monte_carlo_pi(N)),
    "dot": best(lambda: dot(xs, ys)),
    "prange_sum_of_squares": best(lambda: sum_of_squares(xs)),
    "hypot_call": best(lambda: [hypot(3.0, 4.0) for _ in range(10000)]) / 10000,
    "array_expression": best(lambda: standardise(xs)),
    "prange_new_array": best(lambda: squares(xs)),
    "vectorize_cpu": best(lambda: cpu_pdf(x32, np.float32(0), np.float32(1))),
    "vectorize_parallel": best(lambda: par_pdf(x32, np.float32(0), np.float32(1))),
    "guvectorize_row_sum": best(lambda: row_sum(rows)),
}
if MODE == "cuforge":
    from cuforge import cuda
    if cuda.backend() == "cpu":
        total = cuda.reduce(lambda a, b: a + b)
        out["reduce_f32"] = best(lambda: total(x32))
        out["numpy_sum_f32"] = best(lambda: x32.sum())
print(json.dumps(out))
'''


def find_numba_python(given):
    candidates = [given] if given else []
    candidates += [sys.executable, "/tmp/numbaenv/bin/python",
                   str(pathlib.Path.home() / ".cache" / "cuforge" / "numba-cuda-0.30.4" / "bin" / "python")]
    for py in candidates:
        if py and pathlib.Path(py).exists():
            r = subprocess.run([py, "-c", "import numba"], capture_output=True)
            if r.returncode == 0:
                return py
    return None


def run(python, mode, n, folder):
    env = dict(os.environ, PYTHONPATH=_examples.pythonpath()) if mode == "cuforge" else \
        dict(os.environ, PYTHONPATH=os.pathsep.join([str(folder), str(_examples.COMPAT)]))
    r = subprocess.run([python, "driver.py", mode, str(n)], cwd=folder, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"{mode}: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--numba-python")
    ap.add_argument("--n", type=int, default=10_000_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        (pathlib.Path(d) / "driver.py").write_text(DRIVER)
        _examples.stage_numba(d, ["host_jit_reduce_random"])
        ours = run(sys.executable, "cuforge", args.n, d)
        numba_py = find_numba_python(args.numba_python)
        theirs = run(numba_py, "numba", args.n, d) if numba_py else {}
    import cuforge

    print(f"high-level APIs on the host, n = {args.n:,} ({cuforge.backend()} backend for cuda.reduce)")
    print(f"{'work':24} {'cuforge':>12} {'numba':>12} {'ratio':>7}  goal")
    goals = {"monte_carlo_pi": 1.5, "dot": 1.5, "prange_sum_of_squares": 1.5, "hypot_call": 1.5,
             "array_expression": 1.5, "prange_new_array": 1.5, "vectorize_cpu": 1.5,
             "vectorize_parallel": 1.5, "guvectorize_row_sum": 1.5}
    for k, v in ours.items():
        if k in ("reduce_f32", "numpy_sum_f32"):
            continue
        unit = "us" if k == "hypot_call" else "ms"
        scale = 1e6 if unit == "us" else 1e3
        t = theirs.get(k)
        ratio = f"{v / t:6.2f}x" if t else "   n/a"
        goal = f"<= {goals[k]}x" if k in goals else "none"
        tt = f"{t * scale:9.3f} {unit}" if t else "   (no numba)"
        print(f"{k:24} {v * scale:9.3f} {unit} {tt}  {ratio}  {goal}")
    if "reduce_f32" in ours:
        r, s = ours["reduce_f32"], ours["numpy_sum_f32"]
        print(f"{'cuda.reduce f32 (cpu)':24} {r * 1e3:9.3f} ms {s * 1e3:9.3f} ms  {r / s:6.2f}x  "
              "(against NumPy's sum; none)")


if __name__ == "__main__":
    main()
