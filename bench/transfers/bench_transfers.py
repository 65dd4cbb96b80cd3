#!/usr/bin/env python3
"""bench/transfers: host<->device bandwidth and the fixed cost of small
transfers, through cuforge's Python API, each as a ratio to raw copies
measured in the same run by bench_raw_copy (the driver's cuMemcpyHtoD/DtoH
on a GPU, memcpy on the cpu backend).

Goals on a GPU: >= 0.9 of raw bandwidth for large copies, <= 1.5x raw fixed
cost for small ones. On the cpu backend the ratios show the overhead of our
layers over memcpy.

    python3 bench/transfers/bench_transfers.py [--raw PATH] [--max-size BYTES]
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

import cuforge
from cuforge import cuda

SIZES = [4 << 10, 64 << 10, 1 << 20, 16 << 20, 256 << 20, 1 << 30]
SMALL = 8  # bytes: the fixed cost of a transfer


def reps_for(nbytes):
    return max(5, min(2000, (512 << 20) // max(nbytes, 1)))


def median_seconds(reps, op):
    op()  # warm-up
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        op()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def find_raw(explicit):
    if explicit:
        return explicit
    root = pathlib.Path(__file__).resolve().parents[2]
    for candidate in [root / "build/cuforge/bench/bench_raw_copy", root / "build/dev/bench/bench_raw_copy"]:
        if candidate.exists():
            return str(candidate)
    sys.exit("bench_transfers: bench_raw_copy not built (run scripts/build.sh) or give --raw")


def raw_times(raw, sizes):
    out = subprocess.run([raw, cuforge.backend(), *map(str, sizes)], check=True, capture_output=True, text=True)
    return {r["size"]: r for r in map(json.loads, out.stdout.splitlines())}


def ours(nbytes):
    n = nbytes // 4
    reps = reps_for(nbytes)
    pageable = np.ones(n, np.float32)
    pageable_out = np.empty_like(pageable)
    pinned = cuda.pinned_array(n, np.float32)
    pinned[:] = 1
    d = cuda.device_array(n, np.float32)
    r = {
        "h2d_pageable": median_seconds(reps, lambda: d.copy_to_device(pageable)),
        "h2d_pinned": median_seconds(reps, lambda: d.copy_to_device(pinned)),
        "d2h_pageable": median_seconds(reps, lambda: d.copy_to_host(pageable_out)),
        "d2h_pinned": median_seconds(reps, lambda: d.copy_to_host(pinned)),
    }
    del d, pinned
    cuda.synchronize()
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--raw", help="path of bench_raw_copy")
    ap.add_argument("--max-size", type=int, default=SIZES[-1])
    args = ap.parse_args()
    sizes = [s for s in SIZES if s <= args.max_size]
    raw = raw_times(find_raw(args.raw), sizes + [SMALL])

    print(f"bench/transfers on the {cuforge.backend()} backend: {cuforge.backend_reason()}")
    print(f"device: {cuda.get_current_device().name}")
    print("bandwidth (GB/s), ours vs raw; ratio = ours/raw bandwidth (goal on a GPU: >= 0.9 for large copies)")
    print(f"{'size':>10}  {'direction':<14}{'ours':>10}{'raw':>10}{'ratio':>8}")
    for size in sizes:
        mine = ours(size)
        base = raw[size]
        for key in ["h2d_pageable", "h2d_pinned", "d2h_pageable", "d2h_pinned"]:
            bw_ours = size / mine[key] / 1e9
            bw_raw = size / base[key] / 1e9
            print(f"{size:>10}  {key:<14}{bw_ours:>10.2f}{bw_raw:>10.2f}{bw_ours / bw_raw:>8.2f}")

    # Fixed cost: a tiny to_device (allocation included) and copy_to_host
    # (host array included), against one raw copy of the same size.
    x = np.ones(SMALL // 4, np.float32)
    d = cuda.to_device(x)
    reps = 3000
    t_to = median_seconds(reps, lambda: cuda.to_device(x))
    t_back = median_seconds(reps, lambda: d.copy_to_host())
    base = raw[SMALL]
    print("fixed cost of a small transfer (microseconds); ratio = ours/raw (goal on a GPU: <= 1.5)")
    print(f"  to_device({SMALL} bytes)     ours {t_to * 1e6:8.2f}  raw {base['h2d_pageable'] * 1e6:8.2f}"
          f"  ratio {t_to / base['h2d_pageable']:6.2f}")
    print(f"  copy_to_host({SMALL} bytes)  ours {t_back * 1e6:8.2f}  raw {base['d2h_pageable'] * 1e6:8.2f}"
          f"  ratio {t_back / base['d2h_pageable']:6.2f}")


if __name__ == "__main__":
    main()
