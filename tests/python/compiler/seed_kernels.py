"""The kernels of the seed documents (/work/shared/seeds), as users write
them: the walker's tests build their IR. Kept in modules of their own so
that their line numbers, globals and imports are the users': those the
examples hold (examples/python) are imported from there, the rest are here.
"""

import math  # noqa: F401 - the fuzz (test_fuzz.py) runs mutated copies of the
from math import exp  # noqa: F401 - imported kernels in this module's globals
import pathlib
import sys

import numpy as np
from numpy import rint

from cuforge import cuda
from cuforge.types import float32, int32  # noqa: F401 - float32: as math above

_EXAMPLES = pathlib.Path(__file__).resolve().parents[3] / "examples" / "python"
if str(_EXAMPLES) not in sys.path:
    sys.path.insert(0, str(_EXAMPLES))

# 000: grid-strided vector add; 001: the 2-D increment
from kernel_vector_add import increment_a_2D_array, vector_add  # noqa: E402

# 004: square matrix multiplication, and with shared-memory tiles
from kernel_matmul import TPB, fast_matmul, matmul  # noqa: E402

# 003: the hidden layer
from kernel_hidden_layer import activate, normalize, weigh  # noqa: E402

# 003: device functions
from kernel_device_functions import hypot, polar_distance, polar_to_cartesian  # noqa: E402

# a block-wide sum reduction in shared memory (its TPB is the shared array's size)
from kernel_reduce_histogram import TPB as REDUCE_TPB, block_sum  # noqa: E402

# 001: the generator compute_pi draws from
from cuforge.cuda.random import xoroshiro128p_uniform_float32  # noqa: E402


NBINS = 32


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
from host_jit_reduce_random import compute_pi  # noqa: E402


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
