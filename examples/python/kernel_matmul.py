"""Matrix multiplication, naive and tiled with shared memory (the NumbaPro
slides and the course's third section).

The kernels are importable (tests and benchmarks use these); running the
file runs the demonstration.
"""

import numpy as np

from cuforge import cuda
from cuforge.types import float32

TPB = 16


@cuda.jit
def matmul(A, B, C):
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.0
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp


@cuda.jit
def fast_matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    tmp = float32(0.0)
    for i in range(bpg):
        sA[tx, ty] = 0
        sB[tx, ty] = 0
        if x < A.shape[0] and (ty + i * TPB) < A.shape[1]:
            sA[tx, ty] = A[x, ty + i * TPB]
        if y < B.shape[1] and (tx + i * TPB) < B.shape[0]:
            sB[tx, ty] = B[tx + i * TPB, y]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[tx, j] * sB[j, ty]
        cuda.syncthreads()
    if x < C.shape[0] and y < C.shape[1]:
        C[x, y] = tmp


def main():
    n = 96
    rng = np.random.default_rng(0)
    A = rng.random((n, n), dtype=np.float32)
    B = rng.random((n, n), dtype=np.float32)
    expected = A @ B
    blocks = ((n + TPB - 1) // TPB, (n + TPB - 1) // TPB)
    C = cuda.device_array((n, n), dtype=np.float32)
    matmul[blocks, (TPB, TPB)](cuda.to_device(A), cuda.to_device(B), C)
    np.testing.assert_allclose(C.copy_to_host(), expected, rtol=1e-4, atol=1e-4)
    print("naive matmul: ok")
    C2 = cuda.device_array((n, n), dtype=np.float32)
    fast_matmul[blocks, (TPB, TPB)](cuda.to_device(A), cuda.to_device(B), C2)
    np.testing.assert_allclose(C2.copy_to_host(), expected, rtol=1e-4, atol=1e-4)
    print("tiled matmul (shared memory, syncthreads): ok")


if __name__ == "__main__":
    main()
