"""print() in kernels on the cpu backend, in a process of its own so that
test_print.py reads exactly what the kernels wrote to stdout. Each section
starts with a marker line written by Python (flushed first)."""

import ctypes
import sys

import numpy as np

import cuforge
from cuforge import cuda


_libc = ctypes.CDLL(None)


def marker(name):
    # Kernels write through C's stdout (the cpu backend at once, a GPU's printf buffer at
    # synchronize): flush it, then Python's, so that the sections come out in order.
    _libc.fflush(None)
    sys.stdout.flush()
    print(f"== {name}", flush=True)


@cuda.jit
def numbers(a, flags):
    i = cuda.grid(1)
    print("thread", i, a[i], flags[i], "100%", (i, 2.5), (i,), np.float32(1.5), np.uint8(200), np.int8(-3))


@cuda.jit
def coordinates():
    print(cuda.threadIdx, cuda.blockIdx, cuda.blockDim, cuda.gridDim)


@cuda.jit
def nothing():
    print()


@cuda.jit
def many(n):
    i = cuda.grid(1)
    if i < n:
        print("line", i, "of", n, "with", i * 1.5, "and", i % 2 == 0, "ending here")


@cuda.jit
def extremes(u, s):
    print(u[0], s[0], np.float64(1e300), np.float32(-0.0))


@cuforge.njit
def on_the_host(n, x):
    print("host", n, x, 0.1, 1e16, 123456.789, 2.0, -0.0, 1e-5, x > 1, (n, x), np.float32(0.1))


marker("numbers")
numbers[1, 3](np.arange(3.0), np.array([True, False, True]))
cuda.synchronize()
marker("coordinates")
coordinates[(2, 1), (1, 2)]()
cuda.synchronize()
marker("nothing")
nothing[1, 1]()
cuda.synchronize()
marker("many")
many[4, 64](200)
cuda.synchronize()
marker("extremes")
extremes[1, 1](np.array([2**64 - 1], np.uint64), np.array([-2**63], np.int64))
cuda.synchronize()
marker("host")
on_the_host(3, 2.5)
marker("end")
