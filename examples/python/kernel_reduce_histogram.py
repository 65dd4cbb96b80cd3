"""A block sum reduction in shared memory with syncthreads, and a histogram
with cuda.atomic.add.

The kernels are importable (tests and benchmarks use these); running the
file runs the demonstration.
"""

import numpy as np

from cuforge import cuda
from cuforge.types import int32

TPB = 256


@cuda.jit
def block_sum(x, partial):
    s = cuda.shared.array(TPB, dtype=int32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    s[tid] = x[i] if i < x.size else 0
    cuda.syncthreads()
    stride = TPB // 2
    while stride > 0:
        if tid < stride:
            s[tid] += s[tid + stride]
        cuda.syncthreads()
        stride //= 2
    if tid == 0:
        partial[cuda.blockIdx.x] = s[0]


@cuda.jit
def histogram(values, bins):
    start = cuda.grid(1)
    for i in range(start, values.size, cuda.gridsize(1)):
        cuda.atomic.add(bins, values[i], 1)


def main():
    x = np.arange(10_000, dtype=np.int32)
    blocks = (x.size + TPB - 1) // TPB
    partial = np.zeros(blocks, dtype=np.int32)
    block_sum[blocks, TPB](x, partial)
    np.testing.assert_array_equal(partial, np.add.reduceat(x, np.arange(0, x.size, TPB)))  # each block's sum
    print("block sum reduction: ok,", partial.sum())

    values = np.random.default_rng(1).integers(0, 50, 100_000).astype(np.int64)
    bins = np.zeros(50, dtype=np.int32)
    histogram[32, 128](values, bins)
    np.testing.assert_array_equal(bins, np.bincount(values, minlength=50))
    print("histogram with atomics: ok")


if __name__ == "__main__":
    main()
