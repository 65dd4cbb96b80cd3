"""The cpu backend runs a barrier-free kernel's block in one call of its block
entry, a loop over the block's threads compiled with the kernel (issue 16
item 2, cpu_execution.md "One call per block"), which LLVM vectorises across
threads, with the math module's functions from the vector math library.
Every thread must still see its own coordinates and do what it did when
called one at a time; kernels whose threads may end by unwinding, or that
synchronise, keep one call per thread."""

import math
import re

import numpy as np
import pytest

from cuforge import cuda

pytestmark = pytest.mark.skipif(cuda.backend() != "cpu", reason="the cpu backend's block entry")


def compiled(kernel):
    (cf,) = kernel._definitions_by_spec().values()
    return cf


def thread_loop(ir):
    """The IR of the function with the block's thread loop (the entries call it)."""
    start = ir.index("define internal fastcc void @") if ".threads(" in ir else -1
    assert start >= 0 and ".threads(" in ir[start:ir.index("\n", start)], ir[:2000]
    return ir[start:ir.index("\n}\n", start)]


@cuda.jit
def coordinates(out):
    # Every coordinate of every thread, at its own linear id in the grid.
    tx, ty, tz = cuda.threadIdx.x, cuda.threadIdx.y, cuda.threadIdx.z
    bx, by, bz = cuda.blockIdx.x, cuda.blockIdx.y, cuda.blockIdx.z
    nx, ny = cuda.blockDim.x, cuda.blockDim.y
    block = bx + cuda.gridDim.x * (by + cuda.gridDim.y * bz)
    t = tx + nx * (ty + ny * tz)
    g = block * (nx * ny * cuda.blockDim.z) + t
    out[g, 0] = tx
    out[g, 1] = ty
    out[g, 2] = tz
    out[g, 3] = bx
    out[g, 4] = by
    out[g, 5] = bz
    out[g, 6] = cuda.laneid


@pytest.mark.parametrize("grid, block", [((1, 1, 1), (1, 1, 1)), ((3, 1, 1), (37, 1, 1)), ((2, 3, 1), (4, 5, 3)),
                                         ((1, 2, 2), (8, 1, 4)), ((2, 1, 1), (1024, 1, 1))])
def test_every_thread_sees_its_own_coordinates(grid, block):
    nthreads = int(np.prod(block))
    total = int(np.prod(grid)) * nthreads
    out = np.full((total, 7), -1, np.int64)
    coordinates[grid, block](out)
    assert compiled(coordinates).block_entry
    want = []
    for bz in range(grid[2]):
        for by in range(grid[1]):
            for bx in range(grid[0]):
                for tz in range(block[2]):
                    for ty in range(block[1]):
                        for tx in range(block[0]):
                            lane = (tx + block[0] * (ty + block[1] * tz)) % 32
                            want.append((tx, ty, tz, bx, by, bz, lane))
    np.testing.assert_array_equal(out, np.array(want))


@cuda.jit
def saxpy(out, a, x, y):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def early_return(out, x):
    i = cuda.grid(1)
    if i >= x.size:
        return
    if x[i] < 0:
        return
    out[i] = x[i] * 2


@cuda.jit
def grid_stride(out, x):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, x.size, stride):
        out[i] = x[i] + 1


@cuda.jit
def two_d(out, x):
    i, j = cuda.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        out[i, j] = x[i, j] * 3 + i - j


@pytest.mark.parametrize("n", [1, 7, 256, 1000, 4099])
def test_guarded_and_grid_stride_kernels_give_each_element_once(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    saxpy[(n + 127) // 128, 128](out, np.float32(2.5), x, y)
    np.testing.assert_array_equal(out, np.float32(2.5) * x + y)
    out = np.full(n, 7, np.float32)
    early_return[(n + 63) // 64, 64](out, x)
    np.testing.assert_array_equal(out, np.where(x < 0, 7, x * 2).astype(np.float32))
    out = np.zeros(n, np.float32)
    grid_stride[3, 32](out, x)
    np.testing.assert_array_equal(out, x + 1)
    for k in (saxpy, early_return, grid_stride):
        assert compiled(k).block_entry, k


def test_a_two_dimensional_grid():
    x = np.arange(37 * 53, dtype=np.int64).reshape(37, 53)
    out = np.zeros_like(x)
    two_d[(3, 4), (16, 16)](out, x)
    i, j = np.indices(x.shape)
    np.testing.assert_array_equal(out, x * 3 + i - j)


def test_the_range_check_leaves_the_vector_loop_unmasked():
    # IRCE splits the thread loop at `i < n`, so the vectorised part needs no masked loads or
    # stores (slow on AMD's cores): the block entry's IR has wide loads and no masked ones.
    x = np.ones(512, np.float32)
    saxpy[4, 128](np.empty_like(x), np.float32(1), x, x)
    block = thread_loop(compiled(saxpy).llvm)
    assert "load <" in block, block[:3000]
    assert "llvm.masked.store" not in block and "llvm.masked.load" not in block, block[:3000]


@cuda.jit
def stencil(x, out):
    j, i = cuda.grid(2)  # x, the fastest index, along a row
    n, m = x.shape
    if i < n and j < m:
        if 0 < i < n - 1 and 0 < j < m - 1:
            out[i, j] = 0.2 * (x[i, j] + x[i - 1, j] + x[i + 1, j] + x[i, j - 1] + x[i, j + 1])
        else:
            out[i, j] = x[i, j]


def stencil_reference(x):
    out = x.copy()
    # The sum in float32, then times the float64 constant, as the kernel types it.
    inner = 0.2 * (x[1:-1, 1:-1] + x[:-2, 1:-1] + x[2:, 1:-1] + x[1:-1, :-2] + x[1:-1, 2:]).astype(np.float64)
    out[1:-1, 1:-1] = inner.astype(x.dtype)
    return out


@pytest.mark.parametrize("shape, block", [((37, 53), (16, 16)), ((5, 300), (128, 1)), ((64, 64), (8, 4)),
                                          ((1, 9), (16, 16)), ((3, 3), (2, 2))])
def test_a_stencil_with_lower_and_upper_bounds_on_both_coordinates(shape, block):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    out = np.full_like(x, np.nan)
    grid = ((shape[1] + block[0] - 1) // block[0], (shape[0] + block[1] - 1) // block[1])
    stencil[grid, block](x, out)
    np.testing.assert_array_equal(out, stencil_reference(x))


def test_two_dimensional_range_checks_leave_the_vector_loop_unmasked():
    # `if i < n and j < m` is two branches (not one on a select), so IRCE splits the x loop at
    # `j < m`; the stencil's lower bounds (`0 < j`) are put in IRCE's form, so its main part
    # loads the neighbours without masks too.
    x = np.ones((40, 40), np.float32)
    two_d[(3, 3), (16, 16)](np.empty((40, 40), np.int64), x.astype(np.int64))
    stencil[(3, 3), (16, 16)](x, np.empty_like(x))
    for kernel in (two_d, stencil):
        block = thread_loop(compiled(kernel).llvm)
        assert "load <" in block, block[:3000]
        assert "llvm.masked.store" not in block and "llvm.masked.load" not in block, block[:3000]


@cuda.jit
def lower_bounds(out, shift):
    # Lower bounds against an index that goes negative, and one near the top of int64 whose sum
    # wraps (int64, as in Numba): every comparison keeps its meaning.
    i = cuda.grid(1) - shift
    k = cuda.grid(1)
    r = 0
    if 0 < i:
        r += 1
    if i >= 3:
        r += 10
    if 7 > i:
        r += 100
    if 2 <= i and not i > 20:
        r += 1000
    if k + 9223372036854775700 > 9223372036854775790:
        r += 10000
    while r < 0 or 5 < i < 8 and r % 2 == 0:
        r += 1
    out[k] = r


def test_lower_bounds_keep_their_meaning_for_every_index():
    n = 300
    out = np.zeros(n, np.int64)
    lower_bounds[3, 128](out, 17)
    i = np.arange(n) - 17
    k = np.arange(n)
    want = ((0 < i) * 1 + (i >= 3) * 10 + (7 > i) * 100 + ((2 <= i) & ~(i > 20)) * 1000
            + ((k + np.int64(9223372036854775700)) > 9223372036854775790) * 10000)  # wraps past 107
    want = want + ((5 < i) & (i < 8) & (want % 2 == 0))
    np.testing.assert_array_equal(out, want)
    assert compiled(lower_bounds).block_entry


@cuda.jit
def atomics(counts, x):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(counts, x[i], 1)


@cuda.jit
def local_and_shared(out):
    # Shared memory without a barrier: each thread its own slot; a local array per thread.
    s = cuda.shared.array(128, np.int32)
    t = cuda.threadIdx.x
    loc = cuda.local.array(4, np.int32)
    for k in range(4):
        loc[k] = t * 10 + k
    s[t] = loc[0] + loc[3]
    out[cuda.grid(1)] = s[t]


def test_atomics_local_arrays_and_private_shared_slots():
    x = np.random.default_rng(3).integers(0, 16, 5000).astype(np.int64)
    counts = np.zeros(16, np.int64)
    atomics[(x.size + 255) // 256, 256](counts, x)
    np.testing.assert_array_equal(counts, np.bincount(x, minlength=16))
    out = np.zeros(256, np.int32)
    local_and_shared[2, 128](out)
    t = np.arange(256) % 128
    np.testing.assert_array_equal(out, 20 * t + 3)
    assert compiled(atomics).block_entry and compiled(local_and_shared).block_entry


@cuda.jit
def stops_early(out):
    # Without debug=True a raise ends its thread; the other threads of the block go on.
    i = cuda.grid(1)
    if i % 3 == 0:
        raise ValueError("stop")
    out[i] = 1


@cuda.jit
def with_barrier(out):
    s = cuda.shared.array(64, np.int32)
    t = cuda.threadIdx.x
    s[t] = t
    cuda.syncthreads()
    out[t] = s[63 - t]


def test_threads_that_end_by_unwinding_keep_a_call_each_and_barriers_cut_the_block_into_regions():
    out = np.zeros(64, np.int32)
    stops_early[2, 32](out)
    np.testing.assert_array_equal(out, (np.arange(64) % 3 != 0).astype(np.int32))
    assert not compiled(stops_early).block_entry
    # A kernel whose barriers are syncthreads() statements of its body runs as its block in one
    # call, each stretch between barriers a loop over the threads (codegen_regions.cpp).
    out = np.zeros(64, np.int32)
    with_barrier[1, 64](out)
    np.testing.assert_array_equal(out, 63 - np.arange(64))
    assert compiled(with_barrier).block_entry


@cuda.jit(debug=True, opt=False)
def debugged(out):
    out[cuda.grid(1)] = 1


def test_kernels_with_debug_info_have_no_block_entry():
    out = np.zeros(64, np.int32)
    debugged[2, 32](out)
    assert (out == 1).all()
    assert not compiled(debugged).block_entry


@cuda.jit
def math32(out, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[0, i] = math.tanh(v)
        out[1, i] = math.exp(v)
        out[2, i] = math.sin(v)
        out[3, i] = math.log(abs(v) + 1)
        out[4, i] = math.atan2(v, 0.5)
        out[5, i] = math.pow(abs(v), 1.5)
        out[6, i] = math.expm1(v)


@pytest.mark.parametrize("dtype, ulps", [(np.float32, 4), (np.float64, 4)])
def test_vectorised_math_stays_within_the_vector_librarys_bounds(dtype, ulps):
    # libmvec documents at most 4 ulp for these; NumPy's results are the reference.
    x = np.linspace(-6, 6, 4099).astype(dtype)
    out = np.zeros((7, x.size), dtype)
    math32[(x.size + 255) // 256, 256](out, x)
    one = dtype(1)
    want = np.stack([np.tanh(x), np.exp(x), np.sin(x), np.log(np.abs(x) + one), np.arctan2(x, dtype(0.5)),
                     np.power(np.abs(x), dtype(1.5)), np.expm1(x)])
    spacing = np.maximum(np.spacing(np.abs(want)), np.finfo(dtype).tiny)
    err = np.abs(out.astype(np.float64) - want.astype(np.float64)) / spacing
    assert err.max() <= ulps, (err.max(axis=1), np.unravel_index(err.argmax(), err.shape))


def test_the_vector_library_is_called_where_the_host_has_one():
    import ctypes.util

    if ctypes.util.find_library("mvec") is None:
        pytest.skip("no libmvec on this host")
    x = np.linspace(-1, 1, 512).astype(np.float32)
    math32[2, 256](np.zeros((7, 512), np.float32), x)
    for cf in math32._definitions_by_spec().values():
        called = set(re.findall(r"@_ZGV[bd]N\d+v_(tanhf?)\(", thread_loop(cf.llvm)))
        assert called, "the vectorised loop calls libmvec's tanh (float32's or float64's)"


def test_vector_math_can_be_turned_off():
    # CUFORGE_CPU_VECTOR_MATH=0: the scalar libm in every loop (and objects of their own in the
    # disk cache: host_target_id names the variant).
    import ctypes.util
    import os
    import pathlib
    import subprocess
    import sys

    child = pathlib.Path(__file__).with_name("vector_math_child.py")

    def run(**env):
        r = subprocess.run([sys.executable, str(child)], capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, CUFORGE_BACKEND="cpu", **env))
        assert r.returncode == 0, r.stderr
        return r.stdout.split()

    off = run(CUFORGE_CPU_VECTOR_MATH="0")
    assert off[0] == "scalar", off
    if ctypes.util.find_library("mvec") is not None:
        on = run()
        assert on[0] == "vector", on


# A kernel that reads threadIdx.x and blockIdx.x only as cuda.grid's sum runs each row of blocks as
# one block of all their threads (target_host.cpp, cpu_execution.md "One call per block"): every
# element must still get its own index, whatever the block shape and however the grid ends.


@cuda.jit
def grid_indices_2d(out):
    j, i = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = i * 100000 + j


@cuda.jit
def grid_indices_1d(out):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x  # the sum written out, either order
    if i < out.size:
        out[i] = i


@pytest.mark.parametrize("shape, block", [((37, 1000), (16, 16)), ((5, 77), (7, 3)), ((3, 9), (1, 1)),
                                          ((64, 64), (33, 2))])
def test_rows_of_blocks_run_as_one_block_give_every_element_its_index(shape, block):
    out = np.full(shape, -1, np.int64)
    grid = ((shape[1] + block[0] - 1) // block[0], (shape[0] + block[1] - 1) // block[1])
    grid_indices_2d[grid, block](out)
    i, j = np.indices(shape)
    np.testing.assert_array_equal(out, i * 100000 + j)
    for n, threads in [(100_003, 256), (1000, 7), (5, 1)]:
        flat = np.full(n, -1, np.int64)
        grid_indices_1d[(n + threads - 1) // threads, threads](flat)
        np.testing.assert_array_equal(flat, np.arange(n))
    assert compiled(grid_indices_2d).block_entry
