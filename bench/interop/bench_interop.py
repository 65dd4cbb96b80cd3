#!/usr/bin/env python3
"""bench/interop: the per-call cost of importing a foreign array and of
exporting ours, through DLPack and __cuda_array_interface__ (CAI), each as a
ratio to importing our own DeviceNDArray through the same protocol, measured
in the same run.

Goal: importing a foreign array costs at most 1.3x our own.

Baselines: cuda.from_dlpack(ours) for DLPack; for CAI cuda.as_cuda_array(w)
where w exposes our array's interface (on a GPU the array's own
__cuda_array_interface__, read at every call; on the cpu backend, which
offers none, the same dictionary built once from the array's pointer).
Foreign producers: NumPy (DLPack, kDLCPU: on the cpu backend only, where
host memory is device memory), a minimal pure-Python CAI producer, and CuPy
and PyTorch (CAI and DLPack) when importable and a GPU is active. Exports:
ours.__dlpack__(max_version=(1, 1)) alone, consumed by np.from_dlpack (cpu
backend) or torch/cupy.from_dlpack (GPU), and building
__cuda_array_interface__ (GPU).

Each row is the median over many batches of calls; the rows take turns
batch by batch so that drift in the machine's speed touches them alike.

    python3 bench/interop/bench_interop.py [--rounds N] [--batch-us US]
"""

import argparse
import gc
import statistics
import sys
import time

import numpy as np

import cuforge
from cuforge import cuda

GOAL = 1.3
N = 1024  # elements: the cost per call does not depend on the size


class Row:
    def __init__(self, protocol, label, op, kind, check=None):
        self.protocol = protocol  # "dlpack" or "cai"
        self.label = label
        self.op = op
        self.kind = kind  # "baseline", "import" or "export"
        self.check = check  # validates one result before timing
        self.inner = 1
        self.samples = []

    def seconds(self):
        return statistics.median(self.samples)


def batch_seconds(op, inner):
    t = time.perf_counter()
    for _ in range(inner):
        op()
    return (time.perf_counter() - t) / inner


def calibrate(row, batch_s):
    """The number of calls per batch that takes about batch_s."""
    row.op()  # warm-up: first-call costs stay out
    inner = 1
    while inner < (1 << 16):
        t = batch_seconds(row.op, inner) * inner
        if t >= batch_s:
            break
        inner *= 2
    row.inner = inner


def measure(rows, rounds, batch_s):
    for r in rows:
        calibrate(r, batch_s)
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        for _ in range(rounds):
            for r in rows:
                r.samples.append(batch_seconds(r.op, r.inner))
    finally:
        if gc_was_on:
            gc.enable()


def optional_module(name):
    try:
        return __import__(name), None
    except Exception as e:  # noqa: BLE001 - any failure to import means "not here"
        return None, f"{type(e).__name__}: {e}"


# --- producers ------------------------------------------------------------------


class OurInterface:
    """Our array seen through CAI, as a consumer sees it."""

    def __init__(self, a, gpu):
        self._a = a
        self._desc = None
        if not gpu:
            # The cpu backend offers no __cuda_array_interface__ (its device
            # memory is host memory): the dictionary the cuda backend would give.
            self._desc = {"shape": a.shape, "strides": None, "data": (a._pointer, False), "typestr": a.dtype.str,
                          "stream": None, "version": 3}

    @property
    def __cuda_array_interface__(self):
        return self._desc if self._desc is not None else self._a.__cuda_array_interface__


class MinimalProducer:
    """The least a CAI producer can be: a plain attribute holding the dict."""

    def __init__(self, pointer, n, owner):
        self.owner = owner  # keeps the memory alive
        self.__cuda_array_interface__ = {"shape": (n,), "strides": None, "data": (pointer, False), "typestr": "<f4",
                                         "stream": None, "version": 3}


def expect_shape(n):
    def check(result):
        assert tuple(result.shape) == (n,), f"expected shape ({n},), got {tuple(result.shape)}"
    return check


def build_rows(gpu, skipped):
    rows = []
    ours = cuda.to_device(np.arange(N, dtype=np.float32))
    ours_cai = OurInterface(ours, gpu)
    ok = expect_shape(N)

    # Baselines: our own array through each protocol.
    rows.append(Row("dlpack", "ours: cuda.from_dlpack(DeviceNDArray)", lambda: cuda.from_dlpack(ours), "baseline", ok))
    rows.append(Row("cai", "ours: cuda.as_cuda_array(our interface)", lambda: cuda.as_cuda_array(ours_cai),
                    "baseline", ok))

    # NumPy: DLPack producer of host memory.
    host = np.arange(N, dtype=np.float32)
    if gpu:
        skipped.append("NumPy DLPack import: host memory (kDLCPU) is refused on the cuda backend")
    else:
        rows.append(Row("dlpack", "NumPy: cuda.from_dlpack(ndarray)", lambda: cuda.from_dlpack(host), "import", ok))

    # A minimal pure-Python CAI producer, over memory that is device memory
    # where we run: NumPy's on the cpu backend, a device array's on a GPU.
    if gpu:
        owner = cuda.device_array(N, np.float32)
        minimal = MinimalProducer(owner._pointer, N, owner)
        where = "device array memory"
    else:
        minimal = MinimalProducer(host.ctypes.data, N, host)
        where = "NumPy memory"
    rows.append(Row("cai", f"minimal Python producer ({where}): cuda.as_cuda_array", lambda: cuda.as_cuda_array(minimal),
                    "import", ok))

    cupy, why = optional_module("cupy")
    if cupy is None:
        skipped.append(f"CuPy: not importable ({why})")
    elif not gpu:
        skipped.append("CuPy: importable, but no GPU is active (cpu backend)")
    else:
        try:
            cp_arr = cupy.arange(N, dtype=cupy.float32)
            cupy.cuda.runtime.deviceSynchronize()
            rows.append(Row("cai", "CuPy: cuda.as_cuda_array(cupy.ndarray)", lambda: cuda.as_cuda_array(cp_arr),
                            "import", ok))
            if cp_arr.__cuda_array_interface__.get("stream") is not None:
                rows.append(Row("cai", "CuPy: cuda.as_cuda_array(cupy.ndarray, sync=False)",
                                lambda: cuda.as_cuda_array(cp_arr, sync=False), "import", ok))
            rows.append(Row("dlpack", "CuPy: cuda.from_dlpack(cupy.ndarray)", lambda: cuda.from_dlpack(cp_arr),
                            "import", ok))
            rows.append(Row("dlpack", "export: cupy.from_dlpack(DeviceNDArray)", lambda: cupy.from_dlpack(ours),
                            "export", ok))
        except Exception as e:  # noqa: BLE001 - a broken install is reported, not fatal
            skipped.append(f"CuPy: {type(e).__name__}: {e}")

    torch, why = optional_module("torch")
    if torch is None:
        skipped.append(f"PyTorch: not importable ({why})")
    elif not gpu or not torch.cuda.is_available():
        skipped.append("PyTorch: importable, but no GPU is active" + ("" if gpu else " (cpu backend)"))
    else:
        try:
            t_arr = torch.arange(N, dtype=torch.float32, device="cuda")
            torch.cuda.synchronize()
            rows.append(Row("cai", "PyTorch: cuda.as_cuda_array(torch.Tensor)", lambda: cuda.as_cuda_array(t_arr),
                            "import", ok))
            if t_arr.__cuda_array_interface__.get("stream") is not None:
                rows.append(Row("cai", "PyTorch: cuda.as_cuda_array(torch.Tensor, sync=False)",
                                lambda: cuda.as_cuda_array(t_arr, sync=False), "import", ok))
            rows.append(Row("dlpack", "PyTorch: cuda.from_dlpack(torch.Tensor)", lambda: cuda.from_dlpack(t_arr),
                            "import", ok))
            rows.append(Row("dlpack", "export: torch.from_dlpack(DeviceNDArray)", lambda: torch.from_dlpack(ours),
                            "export", ok))
        except Exception as e:  # noqa: BLE001
            skipped.append(f"PyTorch: {type(e).__name__}: {e}")

    # Exports of ours.
    rows.append(Row("dlpack", "export: ours.__dlpack__(max_version=(1, 1))",
                    lambda: ours.__dlpack__(max_version=(1, 1)), "export"))
    if not gpu:
        # NumPy calls ours.__dlpack__ itself (asking for max_version=(1, 0):
        # the same versioned capsule) and consumes it.
        rows.append(Row("dlpack", "export: np.from_dlpack(DeviceNDArray)", lambda: np.from_dlpack(ours), "export",
                        ok))
    if gpu:
        rows.append(Row("cai", "export: ours.__cuda_array_interface__", lambda: ours.__cuda_array_interface__,
                        "export"))
    else:
        skipped.append("CAI export: the cpu backend offers no __cuda_array_interface__")
    return rows, (ours, host)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=301, help="batches per row (the median is taken)")
    ap.add_argument("--batch-us", type=float, default=1000.0, help="target duration of one batch, microseconds")
    args = ap.parse_args()

    gpu = cuforge.backend() == "cuda"
    skipped = []
    rows, keep = build_rows(gpu, skipped)
    for r in rows:
        if r.check:
            r.check(r.op())

    start = time.perf_counter()
    measure(rows, args.rounds, args.batch_us * 1e-6)
    cuda.synchronize()
    elapsed = time.perf_counter() - start

    base = {r.protocol: r.seconds() for r in rows if r.kind == "baseline"}
    print(f"bench/interop on the {cuforge.backend()} backend: {cuforge.backend_reason()}")
    print(f"device: {cuda.get_current_device().name}; numpy {np.__version__}; python {sys.version.split()[0]}")
    print(f"per-call cost, median of {args.rounds} batches of calls per row, rows interleaved; "
          f"ratio = row / importing our own DeviceNDArray through the same protocol")
    print(f"goal: importing a foreign array costs at most {GOAL}x our own")
    print()
    width = max(len(r.label) for r in rows)
    print(f"{'protocol':<9}{'row':<{width}}  {'us/call':>9}{'ratio':>8}  goal")
    misses = 0
    for r in rows:
        us = r.seconds() * 1e6
        ratio = r.seconds() / base[r.protocol]
        if r.kind == "baseline":
            verdict = "baseline"
        elif r.kind == "export":
            verdict = "n/a (export)"
        else:
            meets = ratio <= GOAL
            misses += not meets
            verdict = "meets" if meets else "MISSES"
        print(f"{r.protocol:<9}{r.label:<{width}}  {us:>9.2f}{ratio:>8.2f}  {verdict}")
    print()
    imports = [r for r in rows if r.kind == "import"]
    print(f"goal met by {len(imports) - misses} of {len(imports)} foreign imports "
          f"(importing a foreign array costs at most {GOAL}x our own)")
    for s in skipped:
        print(f"skipped: {s}")
    print(f"measured in {elapsed:.1f} s")
    del keep


if __name__ == "__main__":
    main()
