#!/usr/bin/env python3
"""cuda.reduce against CUB's DeviceReduce and numba-cuda's Reduce, in one run.

On a GPU: a sum of 2^28 float32 already on the device (the result back on
the host, as cuda.reduce returns it), median of repeats, against
`bench_cub_reduce` (CUB's DeviceReduce::Sum, built by nvcc with the
benchmarks) and numba-cuda's Reduce on the same data (its own process).
Goal: >= 0.95x CUB's speed. On the cpu backend: 2^24 float32 against
NumPy's sum (no goal).

Usage: bench_reduce.py [--n N] [--repeats R] [--cub PATH] [--numba-python PATH]
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]

NUMBA_SIDE = r'''
import json, statistics, sys, time
import numpy as np
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack
from numba import cuda
n, repeats = int(sys.argv[1]), int(sys.argv[2])
x = cuda.to_device((np.arange(n, dtype=np.int64) % 1024).astype(np.float32) / np.float32(1024))
total = cuda.Reduce(lambda a, b: a + b)
total(x)
times = []
for _ in range(repeats):
    t = time.perf_counter()
    s = total(x)
    times.append(time.perf_counter() - t)
print(json.dumps({"seconds": statistics.median(times), "sum": float(s)}))
'''


def find_cub(given):
    if given:
        return given
    for p in (ROOT / "build" / "cuforge" / "bench" / "bench_cub_reduce", ROOT / "build" / "dev" / "bench" / "bench_cub_reduce",
              ROOT / ".carry" / "build" / "bench" / "bench_cub_reduce"):
        if p.exists():
            return str(p)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--cub")
    ap.add_argument("--numba-python")
    args = ap.parse_args()
    import cuforge
    from cuforge import cuda

    gpu = cuforge.backend() == "cuda"
    n = args.n or ((1 << 28) if gpu else (1 << 24))
    data = (np.arange(n, dtype=np.int64) % 1024).astype(np.float32) / np.float32(1024)
    x = cuda.to_device(data)
    total = cuda.reduce(lambda a, b: a + b)
    total(x)
    times = []
    for _ in range(args.repeats):
        t = time.perf_counter()
        ours = total(x)
        times.append(time.perf_counter() - t)
    mine = statistics.median(times)
    exact = float(data.sum(dtype=np.float64))
    name = cuda.get_current_device().name
    name = name.decode() if isinstance(name, bytes) else name
    print(f"cuda.reduce, sum of {n:,} float32 on the {cuforge.backend()} backend ({name})")
    print(f"  cuforge       {mine * 1e3:9.3f} ms  {n * 4 / mine / 1e9:7.1f} GB/s  sum {float(ours):.6g} (exact {exact:.6g})")
    if not gpu:
        t = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            data.sum()
            t.append(time.perf_counter() - t0)
        np_time = statistics.median(t)
        print(f"  NumPy's sum   {np_time * 1e3:9.3f} ms  ratio {mine / np_time:.2f}x (no goal; CUB and numba-cuda "
              "need a GPU)")
        return
    cub = find_cub(args.cub)
    if cub:
        r = subprocess.run([cub, str(n), str(args.repeats)], capture_output=True, text=True)
        if r.returncode == 0:
            c = json.loads(r.stdout.strip().splitlines()[-1])
            speed = c["seconds"] / mine
            print(f"  CUB           {c['seconds'] * 1e3:9.3f} ms  {c['gbps']:7.1f} GB/s  sum {c['sum']:.6g}")
            print(f"  cuforge / CUB speed: {speed:.2f}x  (goal >= 0.95x: {'met' if speed >= 0.95 else 'NOT met'})")
        else:
            print(f"  CUB: bench_cub_reduce failed ({r.returncode}): {r.stderr.strip()[-200:]}")
    else:
        print("  CUB: bench_cub_reduce not built (CUFORGE_BUILD_BENCH with nvcc)")
    py = args.numba_python or sys.executable
    env = dict(os.environ, PYTHONPATH=str(ROOT / "tests" / "python" / "compiler"))
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        side = pathlib.Path(d) / "numba_reduce.py"  # a file: numba reads the lambda's source
        side.write_text(NUMBA_SIDE)
        r = subprocess.run([py, str(side), str(n), str(args.repeats)], capture_output=True, text=True, env=env)
    if r.returncode == 0:
        nb = json.loads(r.stdout.strip().splitlines()[-1])
        print(f"  numba-cuda    {nb['seconds'] * 1e3:9.3f} ms  ({nb['seconds'] / mine:.1f}x cuforge's time)")
    else:
        print(f"  numba-cuda: not run ({r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode})")


if __name__ == "__main__":
    main()
