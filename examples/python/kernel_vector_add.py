"""The grid-stride vector_add of the seed talks, and increment_a_2D_array.

The kernels are importable (tests and benchmarks use these); running the
file runs the demonstration.
"""

import numpy as np

import cuforge
from cuforge import cuda


@cuda.jit
def vector_add(r, x, y):
    start = cuda.grid(1)
    step = cuda.gridsize(1)
    stop = len(r)
    for i in range(start, stop, step):
        r[i] = x[i] + y[i]


@cuda.jit
def increment_a_2D_array(an_array):
    x, y = cuda.grid(2)
    if x < an_array.shape[0] and y < an_array.shape[1]:
        an_array[x, y] += 1


def main():
    n = 100_000
    x = np.arange(n, dtype=np.float32)
    y = 2 * x
    r = np.zeros_like(x)
    vector_add[64, 256](r, x, y)  # NumPy arguments: copied in, and back since r is written
    np.testing.assert_array_equal(r, x + y)
    d_r = cuda.device_array_like(x)
    vector_add[64, 256](d_r, cuda.to_device(x), cuda.to_device(y))  # device arrays: no copies
    np.testing.assert_array_equal(d_r.copy_to_host(), x + y)
    print("vector_add: ok over", n, "elements")

    a = np.zeros((37, 53), dtype=np.int32)
    d_a = cuda.to_device(a)
    increment_a_2D_array[(3, 4), (16, 16)](d_a)
    np.testing.assert_array_equal(d_a.copy_to_host(), np.ones_like(a))
    print("increment_a_2D_array: ok on", a.shape, "on the", cuforge.backend(), "backend")


if __name__ == "__main__":
    main()
