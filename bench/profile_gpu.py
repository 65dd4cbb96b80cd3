#!/usr/bin/env python3
"""bench/profile_gpu: where the fixed costs go, for the goals a GPU run did not
meet (small transfers, CuPy and PyTorch arrays as kernel arguments, DLPack
and CAI imports). Each row is the median per call of a tight loop; the rows
split one measured path into its parts, so that the difference between our
figure and the baseline's is accounted for. Driver calls are made through
ctypes, which adds its own ~0.1-0.3 us per call (its row measures that).

    python3 bench/profile_gpu.py [--calls 2000]

GPU only (the cuda backend); rows needing CuPy or PyTorch are left out
where those are missing."""

import argparse
import ctypes
import statistics
import time

import numpy as np

import cuforge
from cuforge import cuda


def per_call(fn, calls, repeats=7):
    fn()
    best = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        best.append((time.perf_counter() - t) / calls)
    return statistics.median(best) * 1e6


def row(name, us):
    print(f"  {name:62} {us:8.2f} us")


@cuda.jit
def k3(a, b, c):
    if cuda.grid(1) == -1:
        a[0] = b[0] + c[0]


class Producer:
    """A CAI producer whose dictionary is made once: the import's cost without the producer's."""

    def __init__(self, desc):
        self.__cuda_array_interface__ = desc


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=2000)
    n = ap.parse_args().calls
    if cuforge.backend() != "cuda":
        raise SystemExit("bench/profile_gpu: needs the cuda backend")
    drv = ctypes.CDLL("libcuda.so.1")
    print(f"# bench/profile_gpu on {cuda.get_current_device().name}, median per call of {n}")

    print("small transfers (8 bytes)")
    x = np.ones(2, np.float32)
    out = np.empty_like(x)
    d = cuda.to_device(x)
    dptr = ctypes.c_uint64(d.__cuda_array_interface__["data"][0])
    hptr = x.ctypes.data_as(ctypes.c_void_p)
    optr = out.ctypes.data_as(ctypes.c_void_p)
    drv.cuCtxSynchronize()
    row("ctypes: cuCtxSynchronize (ctypes' own cost + an idle sync)", per_call(lambda: drv.cuCtxSynchronize(), n))
    row("ctypes: cuMemcpyHtoD_v2", per_call(lambda: drv.cuMemcpyHtoD_v2(dptr, hptr, ctypes.c_size_t(8)), n))
    row("ctypes: cuMemcpyDtoH_v2", per_call(lambda: drv.cuMemcpyDtoH_v2(optr, dptr, ctypes.c_size_t(8)), n))
    row("ctypes: cuMemcpyAsync (unified) + cuStreamSynchronize(legacy)",
        per_call(lambda: (drv.cuMemcpyAsync(dptr, ctypes.c_uint64(x.ctypes.data), ctypes.c_size_t(8), None),
                          drv.cuStreamSynchronize(None)), n))
    row("ctypes: cuMemcpy (unified, synchronous)",
        per_call(lambda: drv.cuMemcpy(dptr, ctypes.c_uint64(x.ctypes.data), ctypes.c_size_t(8)), n))
    row("ours: d.copy_to_device(x) into an existing array", per_call(lambda: d.copy_to_device(x), n))
    row("ours: d.copy_to_host(out) into an existing array", per_call(lambda: d.copy_to_host(out), n))
    row("ours: d.copy_to_host() (allocates the result)", per_call(lambda: d.copy_to_host(), n))
    row("ours: cuda.device_array(2) (pool allocation and free)", per_call(lambda: cuda.device_array(2, np.float32), n))
    row("ours: cuda.to_device(x)", per_call(lambda: cuda.to_device(x), n))

    print("kernel arguments (k3[1, 32] with 3 arrays; launches queue, a sync every call)")
    ours3 = [cuda.device_array(32, np.float32) for _ in range(3)]
    launcher = k3[1, 32]
    row("ours: 3 of our arrays", per_call(lambda: launcher(*ours3), n))
    descs = [a.__cuda_array_interface__ for a in ours3]
    prods = [Producer(dict(desc)) for desc in descs]
    row("ours: 3 minimal CAI producers over our arrays", per_call(lambda: launcher(*prods), n))
    row("ours: cuda.as_cuda_array(minimal producer)", per_call(lambda: cuda.as_cuda_array(prods[0]), n))
    cuda.synchronize()
    try:
        import cupy

        cps = [cupy.zeros(32, cupy.float32) for _ in range(3)]
        row("CuPy: reading c.__cuda_array_interface__", per_call(lambda: cps[0].__cuda_array_interface__, n))
        row("ours: 3 CuPy arrays", per_call(lambda: launcher(*cps), n))
        cprods = [Producer(dict(c.__cuda_array_interface__)) for c in cps]
        row("ours: 3 minimal producers of CuPy's dictionaries (memory CuPy's)", per_call(lambda: launcher(*cprods), n))
        row("ours: cuda.as_cuda_array(CuPy array)", per_call(lambda: cuda.as_cuda_array(cps[0]), n))
        row("ours: cuda.from_dlpack(CuPy array)", per_call(lambda: cuda.from_dlpack(cps[0]), n))
        row("CuPy: c.__dlpack__() alone", per_call(lambda: cps[0].__dlpack__(), n))
    except ImportError as e:
        print(f"  CuPy: not available ({e})")
    cuda.synchronize()
    try:
        import torch

        ts = [torch.zeros(32, dtype=torch.float32, device="cuda") for _ in range(3)]
        row("PyTorch: reading t.__cuda_array_interface__", per_call(lambda: ts[0].__cuda_array_interface__, n))
        row("ours: 3 PyTorch tensors", per_call(lambda: launcher(*ts), n))
        tprods = [Producer(dict(t.__cuda_array_interface__)) for t in ts]
        row("ours: 3 minimal producers of PyTorch's dictionaries", per_call(lambda: launcher(*tprods), n))
        row("ours: cuda.as_cuda_array(tensor)", per_call(lambda: cuda.as_cuda_array(ts[0]), n))
        row("ours: cuda.from_dlpack(tensor)", per_call(lambda: cuda.from_dlpack(ts[0]), n))
        row("PyTorch: t.__dlpack__() alone", per_call(lambda: ts[0].__dlpack__(), n))
        row("PyTorch: t.__dlpack__(stream=1) alone", per_call(lambda: ts[0].__dlpack__(stream=1), n))
        row("PyTorch: t.__dlpack_device__() alone", per_call(lambda: ts[0].__dlpack_device__(), n))
    except ImportError as e:
        print(f"  PyTorch: not available ({e})")
    cuda.synchronize()


if __name__ == "__main__":
    main()
