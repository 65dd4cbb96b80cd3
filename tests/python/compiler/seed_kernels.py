"""The kernels of the seed documents (/work/shared/seeds), as users write
them: the walker's tests build their IR. Kept in a module of their own so
that their line numbers, globals and imports are the users'."""

import math
from math import exp

import numpy as np
from numpy import rint

from cuforge import cuda
from cuforge.types import float32, int32

try:  # the RNG utilities arrive with cuforge.cuda.random
    from cuforge.cuda.random import xoroshiro128p_uniform_float32
except ImportError:

    def xoroshiro128p_uniform_float32(states, index):
        """A stand-in until cuforge.cuda.random exists: not jitted."""
        return 0.5


TPB = 16
NBINS = 32


# 000: grid-strided vector add
@cuda.jit
def vector_add(r, x, y):
    start = cuda.grid(1)
    step = cuda.gridsize(1)
    stop = len(r)

    for i in range(start, stop, step):
        r[i] = x[i] + y[i]


# 001: the 2-D increment
@cuda.jit
def increment_a_2D_array(an_array):
    x, y = cuda.grid(2)
    if x < an_array.shape[0] and y < an_array.shape[1]:
        an_array[x, y] += 1


# 004: square matrix multiplication
@cuda.jit
def matmul(A, B, C):
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.0
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp


# matmul with shared-memory tiles (the CUDA-C equivalent's shape)
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
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


# 003: the hidden layer
@cuda.jit
def normalize(grayscales, out):
    i = cuda.grid(1)
    if i < grayscales.size:
        out[i] = grayscales[i] / 255.0


@cuda.jit
def weigh(values, weights, out):
    i = cuda.grid(1)
    if i < values.size:
        out[i] = values[i] * weights[i]


@cuda.jit
def activate(values, out):
    i = cuda.grid(1)
    if i < values.size:
        out[i] = (exp(values[i]) - exp(-values[i])) / (exp(values[i]) + exp(-values[i]))


# 003: device functions
@cuda.jit(device=True)
def hypot(x, y):
    x = abs(x)
    y = abs(y)
    t = min(x, y)
    x = max(x, y)
    t = t / x
    return x * math.sqrt(1 + t * t)


@cuda.jit(device=True)
def polar_to_cartesian(rho, theta):
    x = rho * math.cos(theta)
    y = rho * math.sin(theta)
    return x, y


@cuda.jit
def polar_distance(rho1, theta1, rho2, theta2, out):
    i = cuda.grid(1)
    if i < out.size:
        x1, y1 = polar_to_cartesian(rho1[i], theta1[i])
        x2, y2 = polar_to_cartesian(rho2[i], theta2[i])
        out[i] = hypot(x1 - x2, y1 - y2)


# A block-wide sum reduction in shared memory
@cuda.jit
def sum_reduce(a, partial):
    buf = cuda.shared.array(TPB, dtype=float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[tid] = a[i] if i < a.size else 0
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            buf[tid] += buf[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        partial[cuda.blockIdx.x] = buf[0]


# A histogram with atomics (global, then shared per block)
@cuda.jit
def histogram(x, xmin, xmax, histogram_out):
    nbins = histogram_out.shape[0]
    bin_width = (xmax - xmin) / nbins
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        bin_number = np.int32((x[i] - xmin) / bin_width)
        if bin_number >= 0 and bin_number < histogram_out.shape[0]:
            cuda.atomic.add(histogram_out, bin_number, 1)


@cuda.jit
def shared_histogram(x, hist):
    local = cuda.shared.array(NBINS, dtype=int32)
    t = cuda.threadIdx.x
    if t < NBINS:
        local[t] = 0
    cuda.syncthreads()
    for v in x[cuda.grid(1)::cuda.gridsize(1)]:
        cuda.atomic.add(local, int(v) % NBINS, 1)
    cuda.syncthreads()
    if t < NBINS:
        cuda.atomic.add(hist, t, local[t])


# 000: nan_compact's loop, as a one-thread kernel writing its count
@cuda.jit
def nan_compact(x, out, count):
    out_index = 0
    for element in x:
        if not np.isnan(element):
            out[out_index] = element
            out_index += 1
    count[0] = out_index


# 001: compute_pi with the xoroshiro128p generator
@cuda.jit
def compute_pi(rng_states, iterations, out):
    """Find the maximum value in values and store in result[0]"""
    tid = cuda.grid(1)

    # Compute pi by drawing random (x, y) points and finding what
    # fraction lie inside a unit circle
    inside = 0
    for i in range(iterations):
        x = xoroshiro128p_uniform_float32(rng_states, tid)
        y = xoroshiro128p_uniform_float32(rng_states, tid)
        if x**2 + y**2 <= 1.0:
            inside += 1

    out[tid] = 4.0 * inside / iterations


# 001: forall's example (cuDF)
@cuda.jit
def gpu_round(in_col, out_col, decimal):
    i = cuda.grid(1)
    f = 10**decimal

    if i < in_col.size:
        ret = in_col[i] * f
        ret = rint(ret)
        tmp = ret / f
        out_col[i] = tmp


# 000/001: debugging examples
@cuda.jit(debug=True, opt=False)
def add_1(x):
    i = cuda.grid(1)
    # Off-by-one - accesses beyond end of array
    if i > x.shape[0]:
        return
    x[i] += 1


@cuda.jit
def axpy(r, a, x, y):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = a * x[i] + y[i]
