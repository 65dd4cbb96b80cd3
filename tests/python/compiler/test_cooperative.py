"""Cooperative groups (issue 13 item 5): cuda.cg.this_grid() and its sync(),
this_thread_block() and its sync(), the groups' thread_rank and size. A
kernel that uses the grid group is launched cooperatively (every block
co-resident; a grid too large for that is refused before it starts); on the
cpu backend a cooperative launch's blocks are all fibers with a real
grid-wide barrier, on a GPU the barrier is a word of the module that the
blocks' first threads arrive at. The seed's sumReduction runs unchanged."""

import numpy as np
import pytest

from compiler_support import typing_error_of
from cuforge import cuda
from seed_kernels import _EXAMPLES  # noqa: F401 - puts examples/python on sys.path

from kernel_debugging import sumReduction  # noqa: E402 - the seed's, as written there


@cuda.jit
def grid_sum(x, out):
    r = sumReduction(cuda.cg.this_grid(), x, cuda.grid(1) + 1)
    if r != -1:
        out[0] = r


@cuda.jit
def block_sums(x, out):
    r = sumReduction(cuda.cg.this_thread_block(), x[cuda.blockIdx.x], cuda.threadIdx.x + 1)
    if r != -1:
        out[cuda.blockIdx.x] = r


@pytest.mark.parametrize("blocks, threads", [(1, 32), (8, 32), (16, 64)])
def test_the_seed_sum_reduction_over_the_grid(blocks, threads):
    n = blocks * threads
    out = np.zeros(1, np.int64)
    grid_sum[blocks, threads](np.zeros(n, np.int64), out)
    assert out[0] == n * (n + 1) // 2


def test_the_seed_sum_reduction_over_each_block():
    out = np.zeros(4, np.int64)
    block_sums[4, 64](np.zeros((4, 64), np.int64), out)
    assert out.tolist() == [64 * 65 // 2] * 4


def test_only_a_kernel_using_the_grid_group_is_cooperative():
    out = np.zeros(4, np.int64)
    block_sums[4, 64](np.zeros((4, 64), np.int64), out)
    grid_sum[2, 32](np.zeros(64, np.int64), np.zeros(1, np.int64))
    (g,) = grid_sum.overloads.values()
    (b,) = block_sums.overloads.values()
    assert g.cooperative and not b.cooperative
    assert g.max_cooperative_grid_blocks(32) >= 1


@cuda.jit
def rounds(a, n_rounds):
    # Each round every thread reads its right neighbour's value of the round before: wrong
    # without a grid-wide barrier between the read and the write.
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    n = a.size
    for _ in range(n_rounds):
        v = a[(i + 1) % n]
        g.sync()
        a[i] = v + 1
        g.sync()


def test_grid_sync_separates_rounds_across_blocks():
    n, k = 8 * 32, 5
    a = np.arange(n, dtype=np.int64)
    rounds[8, 32](a, k)
    assert a.tolist() == [((i + k) % n) + k for i in range(n)]


@cuda.jit
def ranks(out_grid, out_block, sizes):
    g = cuda.cg.this_grid()
    b = cuda.cg.this_thread_block()
    x, y = cuda.grid(2)
    out_grid[y, x] = g.thread_rank
    out_block[y, x] = b.thread_rank
    if x == 0 and y == 0:
        sizes[0] = g.size
        sizes[1] = b.size


def test_thread_rank_and_size_count_x_fastest():
    grid, block = (2, 3), (4, 2)
    shape = (grid[1] * block[1], grid[0] * block[0])
    out_grid, out_block, sizes = np.zeros(shape, np.int64), np.zeros(shape, np.int64), np.zeros(2, np.int64)
    ranks[grid, block](out_grid, out_block, sizes)
    want_grid, want_block = np.zeros(shape, np.int64), np.zeros(shape, np.int64)
    for y in range(shape[0]):
        for x in range(shape[1]):
            bx, by, tx, ty = x // block[0], y // block[1], x % block[0], y % block[1]
            want_block[y, x] = tx + ty * block[0]
            want_grid[y, x] = (bx + by * grid[0]) * (block[0] * block[1]) + want_block[y, x]
    assert (out_grid == want_grid).all() and (out_block == want_block).all()
    assert sizes.tolist() == [2 * 3 * 4 * 2, 4 * 2]


def test_a_grid_too_large_to_be_co_resident_is_refused_before_it_starts():
    grid_sum[2, 32](np.zeros(64, np.int64), np.zeros(1, np.int64))
    (g,) = grid_sum.overloads.values()
    most = g.max_cooperative_grid_blocks(32)
    out = np.full(1, 7, np.int64)
    with pytest.raises(ValueError, match=f"a cooperative launch of {most + 1} blocks .* cannot be co-resident; "
                                         f"at most {most} blocks fit"):
        grid_sum[most + 1, 32](np.zeros((most + 1) * 32, np.int64), out)
    assert out[0] == 7  # nothing ran


def test_the_gpu_barrier_in_ptx():
    ptx, _ = cuda.compile_ptx(grid_sum.py_func, "void(int64[:], int64[:])", cc=(9, 0))  # ptxas-checked
    assert "cuforge_grid_barrier" in ptx
    assert "atom.global.add.u32" in ptx and "ld.volatile.global.u32" in ptx
    assert ptx.count("membar.gl") >= 2 and "bar.sync" in ptx


@pytest.mark.parametrize("body, message", [
    ("cuda.cg.this_grid(1)", "cuda.cg.this_grid"),
    ("cuda.cg.this_grid().sync(1)", "cuda.cg.GridGroup.sync"),
    ("cuda.cg.this_grid().rank", "rank"),
    ("cuda.cg.nosuch()", "nosuch"),
])
def test_misuse_of_the_groups_is_a_typing_error(tmp_path, body, message):
    e = typing_error_of(f"from cuforge import cuda\n\ndef k(a):\n    {body}\n", tmp_path, "bad_cg")
    assert message in str(e)


def test_the_groups_are_kernel_side_names_on_the_host():
    assert "this_grid" in dir(cuda.cg) and "this_thread_block" in dir(cuda.cg)
    with pytest.raises(TypeError, match="only be used inside a @cuda.jit kernel"):
        cuda.cg.this_grid()
