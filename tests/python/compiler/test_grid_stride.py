"""Grid-stride loops on the cpu backend (docs/cpu_execution.md, "Grid-stride
loops"): a top-level `for i in range(start, stop, step)` whose start depends on
the thread and whose stop and step are the block's runs interchanged, its
iterations outermost and the block's threads inside each, so one iteration of
all threads walks memory contiguously. Each kernel's results are checked
against NumPy (or a loop in Python doing what each thread does), and whether
it ran interchanged is checked from its host code."""

import numpy as np
import pytest

from cuforge import cuda

pytestmark = pytest.mark.skipif(cuda.backend() != "cpu", reason="the cpu backend's scheduling of grid-stride loops")


def interchanged(kernel):
    """Whether the kernel's (one) specialisation runs a grid-stride loop interchanged."""
    (cf,) = kernel._definitions_by_spec().values()
    return cf.block_entry and "stride.turn" in cf.llvm  # the tail's check of a thread's own count


@cuda.jit
def saxpy(a, x, y, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.size, stride):
        out[i] = a * x[i] + y[i]


@pytest.mark.parametrize("n, grid, block", [(0, 2, 32), (1, 1, 1), (1000, 3, 64), (4099, 7, 128), (100, 8, 32),
                                            (5000, 1, 1000), (20000, 40, 96)])
def test_every_element_once_whatever_the_grid(n, grid, block):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    saxpy[grid, block](np.float32(2.5), x, y, out)
    np.testing.assert_array_equal(out, np.float32(2.5) * x + y)
    assert interchanged(saxpy)


@cuda.jit
def partial_sums(x, partial):
    # A value carried from one iteration to the next, and read after the loop.
    acc = 0.0
    t = cuda.grid(1)
    for i in range(t, x.size, cuda.gridsize(1)):
        acc += x[i] * (i % 3)
    partial[t] = acc


def test_values_carried_across_iterations_stay_each_threads_own():
    x = np.random.default_rng(2).standard_normal(10007)
    partial = np.zeros(5 * 64)
    partial_sums[5, 64](x, partial)
    want = np.array([sum(x[i] * (i % 3) for i in range(t, x.size, 5 * 64)) for t in range(5 * 64)])
    np.testing.assert_allclose(partial, want, rtol=1e-12, atol=1e-12)
    assert interchanged(partial_sums)


@cuda.jit
def two_d(out, x):
    # A 2-D grid: rows by y, a grid-stride loop along each row by x; the loop variable is read
    # after the loop (the last value each thread's own loop gave it).
    row = cuda.grid(2)[1]
    last = -1
    if row < x.shape[0]:
        for j in range(cuda.grid(2)[0], x.shape[1], cuda.gridsize(2)[0]):
            out[row, j] = x[row, j] * 2 + j
            last = j
    if row < x.shape[0] and cuda.grid(2)[0] < x.shape[1]:
        out[row, x.shape[1]] = last


@cuda.jit
def two_d_loop_at_top(out, x):
    j0, row = cuda.grid(2)
    nrow = min(row, x.shape[0] - 1)
    for j in range(j0, x.shape[1], cuda.gridsize(2)[0]):
        if row < x.shape[0]:
            out[nrow, j] = x[nrow, j] * 2 + j


def test_a_two_dimensional_grid():
    x = np.arange(13 * 301, dtype=np.int64).reshape(13, 301)
    out = np.zeros((13, 302), np.int64)
    two_d[(3, 4), (16, 4)](out, x)
    want = np.zeros_like(out)
    want[:, :301] = x * 2 + np.arange(301)
    # Threads 0..47 along x: each one's last j is the largest j < 301 with j = t (mod 48).
    want[:, 301] = max(j for j in range(301) if j % 48 == 47)
    np.testing.assert_array_equal(out[:, :301], want[:, :301])
    assert set(out[:, 301]) <= {want[0, 301]} | set(range(301 - 48, 301))
    out2 = np.zeros((13, 301), np.int64)
    two_d_loop_at_top[(3, 4), (16, 4)](out2, x)
    np.testing.assert_array_equal(out2, x * 2 + np.arange(301))
    assert interchanged(two_d_loop_at_top)


@cuda.jit
def backwards(out, n):
    # A negative step, and a thread that returns inside the loop: it takes no further turns.
    t = cuda.grid(1)
    for i in range(n - 1 - t, -1, -cuda.gridsize(1)):
        if i == 50:
            return
        out[i] = t


def test_a_negative_step_and_a_return_inside():
    n = 1000
    out = np.full(n, -1, np.int64)
    backwards[3, 32](out, n)
    want = np.full(n, -1, np.int64)
    for t in range(96):
        for i in range(n - 1 - t, -1, -96):
            if i == 50:
                break
            want[i] = t
    np.testing.assert_array_equal(out, want)
    assert interchanged(backwards)


@cuda.jit
def extremes(out, start, stop, step):
    # Ranges near the ends of int64: the trip counts are Python's, nothing wraps.
    t = cuda.grid(1)
    k = 0
    for i in range(start + t, stop, step):
        k += 1
        out[t, 1] = i
    out[t, 0] = k


def test_ranges_near_the_ends_of_int64():
    big = np.iinfo(np.int64).max
    for start, stop, step in [(big - 10, big, 3), (-big - 1, -big + 20, 7), (0, 5, 2 ** 62)]:
        out = np.zeros((4, 2), np.int64)
        extremes[1, 4](out, start, stop, step)
        for t in range(4):
            r = range(start + t, stop, step)
            assert out[t, 0] == len(r), (start, stop, step, t)
            if len(r):
                assert out[t, 1] == r[-1]
    assert interchanged(extremes)


@cuda.jit
def uniform_start(out, n):
    # Every thread's loop starts in the same place: not a grid-stride loop, left as it is.
    t = cuda.grid(1)
    acc = 0
    for k in range(0, n, 1):
        acc += k * t
    out[t] = acc


@cuda.jit
def with_break(out, x):
    # A break ends one thread's loop alone: left as it is.
    t = cuda.grid(1)
    for i in range(t, x.size, cuda.gridsize(1)):
        if x[i] < 0:
            break
        out[i] = 1


def test_loops_that_are_not_grid_stride_loops_keep_each_threads_order():
    out = np.zeros(64, np.int64)
    uniform_start[2, 32](out, 10)
    np.testing.assert_array_equal(out, 45 * np.arange(64))
    assert not interchanged(uniform_start)
    x = np.ones(300)
    x[150] = -1
    out = np.zeros(300, np.int64)
    with_break[2, 32](out, x)
    want = np.zeros(300, np.int64)
    for t in range(64):
        for i in range(t, 300, 64):
            if x[i] < 0:
                break
            want[i] = 1
    np.testing.assert_array_equal(out, want)
    assert not interchanged(with_break)


@cuda.jit
def strided_then_barrier(x, out):
    # A grid-stride loop before a shared-memory reduction: the loop interchanged, the barriers
    # in regions.
    s = cuda.shared.array(64, np.float64)
    t = cuda.threadIdx.x
    acc = 0.0
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        acc += x[i]
    s[t] = acc
    cuda.syncthreads()
    if t == 0:
        total = 0.0
        for k in range(cuda.blockDim.x):
            total += s[k]
        out[cuda.blockIdx.x] = total


def test_a_grid_stride_loop_before_barriers():
    x = np.random.default_rng(5).standard_normal(9001)
    out = np.zeros(6)
    strided_then_barrier[6, 64](x, out)
    assert np.isclose(out.sum(), x.sum())
    for b in range(6):
        want = sum(x[i] for t in range(64) for i in range(b * 64 + t, x.size, 6 * 64))
        assert np.isclose(out[b], want)
    assert interchanged(strided_then_barrier)


@cuda.jit
def many_blocks(out, x):
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[i] = x[i] + cuda.blockIdx.x * 1000


def test_blocks_given_as_a_row_each_run_their_own_loop():
    # Enough blocks that the scheduler hands out rows of them in one call of the block entry.
    n = 256 * 32 * 3 + 17
    x = np.arange(n, dtype=np.int64)
    out = np.zeros(n, np.int64)
    many_blocks[256, 32](out, x)
    np.testing.assert_array_equal(out, x + (np.arange(n) % (256 * 32)) // 32 * 1000)


@cuda.jit
def block_base(out, x):
    # A value made of the block's coordinate before the loop: in a row of blocks it is each
    # block's own, not the first block's.
    base = cuda.blockIdx.x * cuda.blockDim.x
    stride = cuda.blockDim.x * cuda.gridDim.x
    tag = cuda.blockIdx.x
    for i in range(base + cuda.threadIdx.x, x.size, stride):
        out[i] = x[i] * 10 + tag


def test_block_coordinates_before_the_loop_are_each_blocks_own():
    n = 300 * 16 * 2 + 5
    x = np.arange(n, dtype=np.int64)
    out = np.full(n, -1, np.int64)
    block_base[300, 16](out, x)
    np.testing.assert_array_equal(out, x * 10 + (np.arange(n) % (300 * 16)) // 16)
    assert interchanged(block_base)
