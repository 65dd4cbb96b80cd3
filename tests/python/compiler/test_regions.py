"""Barriers without fibers on the cpu backend (docs/cpu_execution.md,
"Regions"): a kernel whose barriers are syncthreads() statements of its own
body runs as its whole block in one call, each stretch between barriers a
loop over the threads; values that cross a barrier are kept per thread;
conditions and ranges guarding a barrier are read once for the block; a
thread that returns is skipped from then on. Kernels this does not fit keep
their fibers. Each kernel's results are checked against NumPy, and whether
it ran in regions is checked too (`block_entry`)."""

import numpy as np
import pytest

from cuforge import cuda
from cuforge.cuda import _jit

def in_regions(kernel, specs):
    """Whether `kernel`, compiled for the host with these argument specs, runs its block in one call."""
    cf = _jit._compile(kernel.py_func, list(specs), _jit.CompileOptions().config("host"), False)
    return cf.block_entry


F32 = "array(float32, 1d, C)"
F64 = "array(float64, 1d, C)"
I64 = "array(int64, 1d, C)"


@cuda.jit
def block_sum(x, out):
    s = cuda.shared.array(256, dtype=np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    step = cuda.blockDim.x // 2
    while step > 0:  # a barrier in a loop whose condition every thread shares
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]


def test_a_tree_reduction_with_a_barrier_in_a_while_loop():
    x = np.random.default_rng(1).random(256 * 37 - 11)
    out = np.zeros(37)
    block_sum[37, 256](x, out)
    np.testing.assert_allclose(out, np.add.reduceat(np.concatenate([x, np.zeros(11)]), np.arange(0, 256 * 37, 256)))
    assert in_regions(block_sum, [F64, F64])


TPB = 8


@cuda.jit
def tiled_matmul(A, B, C):
    sA = cuda.shared.array((TPB, TPB), dtype=np.float64)
    sB = cuda.shared.array((TPB, TPB), dtype=np.float64)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = 0.0  # crosses every barrier: kept per thread
    for i in range(cuda.gridDim.x):  # a barrier in a for loop over a range every thread shares
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and tx + i * TPB < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and ty + i * TPB < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = acc


def test_the_tiled_matmul_with_barriers_in_a_for_loop_and_a_2d_block():
    rng = np.random.default_rng(2)
    A, B = rng.random((37, 37)), rng.random((37, 37))
    C = np.zeros((37, 37))
    blocks = (37 + TPB - 1) // TPB
    tiled_matmul[(blocks, blocks), (TPB, TPB)](A, B, C)
    np.testing.assert_allclose(C, A @ B)
    assert in_regions(tiled_matmul, ["array(float64, 2d, C)"] * 3)


@cuda.jit
def early_return(x, out, n):
    s = cuda.shared.array(128, dtype=np.int64)
    t = cuda.threadIdx.x
    s[t] = -1
    if t >= n:
        return  # these threads are done: the barriers below wait only for the others
    s[t] = x[t] * 2
    cuda.syncthreads()
    total = 0
    for k in range(n):
        total += s[k]
    cuda.syncthreads()
    s[t] = total
    cuda.syncthreads()
    out[t] = s[(t + 1) % n] + t


def test_threads_that_return_before_a_barrier_are_skipped_by_the_rest():
    x = np.arange(128, dtype=np.int64)
    for n in (1, 5, 64, 128):
        out = np.full(128, -7, np.int64)
        early_return[1, 128](x, out, n)
        total = 2 * x[:n].sum()
        np.testing.assert_array_equal(out[:n], total + np.arange(n))
        assert (out[n:] == -7).all()
    assert in_regions(early_return, [I64, I64, "int64"])


@cuda.jit
def uniform_branches(x, out):
    s = cuda.shared.array(64, dtype=np.float64)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    if b % 2 == 0:  # the same in every thread of a block: its barrier is every thread's
        s[t] = x[b * 64 + t]
        cuda.syncthreads()
        out[b * 64 + t] = s[63 - t]
    else:
        s[t] = 2 * x[b * 64 + t]
        cuda.syncthreads()
        if t % 2 == 0:  # a per-thread branch without a barrier
            out[b * 64 + t] = s[t + 1]
        else:
            out[b * 64 + t] = -s[t - 1]


def test_barriers_in_branches_every_thread_of_the_block_takes():
    x = np.arange(256, dtype=np.float64)
    out = np.zeros(256)
    uniform_branches[4, 64](x, out)
    want = np.empty(256)
    for b in range(4):
        blk = x[b * 64:(b + 1) * 64]
        if b % 2 == 0:
            want[b * 64:(b + 1) * 64] = blk[::-1]
        else:
            d = 2 * blk
            want[b * 64:(b + 1) * 64:2] = d[1::2]
            want[b * 64 + 1:(b + 1) * 64:2] = -d[0::2]
    np.testing.assert_array_equal(out, want)
    assert in_regions(uniform_branches, [F64, F64])


@cuda.jit
def values_across_barriers(out, n):
    s = cuda.shared.array((4, 4, 4), dtype=np.int64)
    tx, ty, tz = cuda.threadIdx.x, cuda.threadIdx.y, cuda.threadIdx.z
    mine = tx + 10 * ty + 100 * tz  # per thread, from the coordinates
    a, b = mine, -mine              # tuple-assigned: kept per thread
    if tx % 2 == 1:
        a += 1000                   # assigned in a per-thread branch
    s[tz, ty, tx] = mine
    cuda.syncthreads()
    n = n + tx                      # a parameter a thread reassigns
    got = s[3 - tz, 3 - ty, 3 - tx]
    cuda.syncthreads()
    s[tz, ty, tx] = got + a + b
    cuda.syncthreads()
    out[tz, ty, tx] = s[tz, ty, tx] + n


def test_values_that_cross_barriers_stay_each_threads_own_in_a_3d_block():
    out = np.zeros((4, 4, 4), np.int64)
    values_across_barriers[1, (4, 4, 4)](out, 5)
    z, y, x = np.meshgrid(np.arange(4), np.arange(4), np.arange(4), indexing="ij")
    mine = x + 10 * y + 100 * z
    other = (3 - x) + 10 * (3 - y) + 100 * (3 - z)
    want = other + mine + 1000 * (x % 2) - mine + 5 + x
    np.testing.assert_array_equal(out, want)
    assert in_regions(values_across_barriers, ["array(int64, 3d, C)", "int64"])


@cuda.jit(device=True)
def sync_inside():
    cuda.syncthreads()


@cuda.jit
def barrier_in_a_device_function(out):
    s = cuda.shared.array(32, np.int64)
    t = cuda.threadIdx.x
    s[t] = t
    sync_inside()
    out[t] = s[31 - t]


@cuda.jit
def counting_barrier(out):
    t = cuda.threadIdx.x
    out[t] = cuda.syncthreads_count(t % 3 == 0)


@cuda.jit
def break_out_of_a_barrier_loop(out):
    s = cuda.shared.array(32, np.int64)
    t = cuda.threadIdx.x
    s[t] = 0
    k = 0
    while True:
        cuda.syncthreads()
        s[t] += 1
        k += 1
        if k == 3:
            break  # leaves a loop with a barrier from inside a stretch: fibers
    cuda.syncthreads()
    out[t] = s[31 - t]


def test_kernels_regions_do_not_fit_keep_their_fibers():
    out = np.zeros(32, np.int64)
    barrier_in_a_device_function[1, 32](out)
    np.testing.assert_array_equal(out, 31 - np.arange(32))
    out = np.zeros(33, np.int64)
    counting_barrier[1, 33](out)
    assert (out == 11).all()
    out = np.zeros(32, np.int64)
    break_out_of_a_barrier_loop[1, 32](out)
    assert (out == 3).all()
    assert not in_regions(barrier_in_a_device_function, [I64])
    assert not in_regions(counting_barrier, [I64])
    assert not in_regions(break_out_of_a_barrier_loop, [I64])


@cuda.jit
def dynamic_shared_prefix(x, out):
    s = cuda.shared.array(0, dtype=np.float32)
    t = cuda.threadIdx.x
    n = cuda.blockDim.x
    s[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    offset = 1
    while offset < n:  # Hillis-Steele scan: read, barrier, write, barrier
        v = s[t - offset] if t >= offset else 0.0
        cuda.syncthreads()
        s[t] += v
        cuda.syncthreads()
        offset *= 2
    out[cuda.grid(1)] = s[t]


@pytest.mark.parametrize("block", [1, 7, 64, 200])
def test_an_inclusive_scan_with_dynamic_shared_memory_at_several_block_sizes(block):
    x = np.random.default_rng(block).random(block * 3).astype(np.float32)
    out = np.zeros_like(x)
    dynamic_shared_prefix[3, block, 0, block * 4](x, out)
    want = np.concatenate([np.cumsum(x[i * block:(i + 1) * block], dtype=np.float64) for i in range(3)])
    np.testing.assert_allclose(out, want, rtol=1e-5)
    assert in_regions(dynamic_shared_prefix, [F32, F32])


@cuda.jit
def split_by_a_uniform_statement(x, out):
    s = cuda.shared.array(64, np.float64)
    t = cuda.threadIdx.x
    s[t] = x[t]
    cuda.syncthreads()
    v = s[63 - t] * 2             # each thread's own, used after the next line in the same stretch
    scale = cuda.blockDim.x + 1   # the same in every thread: run once for the block
    out[t] = v + scale


@cuda.jit
def recomputed_from_a_value_that_changes(out):
    s = cuda.shared.array(64, np.int64)
    t = cuda.threadIdx.x
    off = 1
    i = t + off                   # from the coordinates and `off` as it is here
    s[t] = i
    cuda.syncthreads()
    off = 5                       # later: `i` keeps the value it was given
    cuda.syncthreads()
    out[t] = i + s[63 - t] + off


def test_values_keep_what_they_were_given_when_a_stretch_is_split_or_a_uniform_value_changes():
    x = np.arange(64, dtype=np.float64)
    out = np.zeros(64)
    split_by_a_uniform_statement[1, 64](x, out)
    np.testing.assert_array_equal(out, 2 * x[::-1] + 65)
    out = np.zeros(64, np.int64)
    recomputed_from_a_value_that_changes[1, 64](out)
    t = np.arange(64)
    np.testing.assert_array_equal(out, (t + 1) + (63 - t + 1) + 5)
    assert in_regions(split_by_a_uniform_statement, [F64, F64])
    assert in_regions(recomputed_from_a_value_that_changes, [I64])


# A stretch that is one `if threadIdx.x < n:` with n the block's runs only the threads below n (the
# tree of a reduction visits 2 * blockDim threads in all instead of log2(blockDim) times blockDim).
# Every form of the comparison, bounds below zero and past the block, a 2-d block (x alone is
# limited) and a bound that differs between threads (no limit) must give each thread its own turn.


@cuda.jit
def guarded_by_the_thread(out, n):
    t = cuda.threadIdx.x
    u = cuda.threadIdx.y
    row = u * cuda.blockDim.x
    cuda.syncthreads()
    if t < n:
        out[0, row + t] += 1
    cuda.syncthreads()
    if t <= n:
        out[1, row + t] += 1
    cuda.syncthreads()
    if n > cuda.threadIdx.x:
        out[2, row + t] += 1
    cuda.syncthreads()
    if n >= t:
        out[3, row + t] += 1
    cuda.syncthreads()
    if t < n - u:  # differs between the rows of the block: each thread decides
        out[4, row + t] += 1


@pytest.mark.parametrize("n", [-3, 0, 1, 5, 8, 9, 100])
@pytest.mark.parametrize("block", [(8, 1), (8, 3)])
def test_a_stretch_guarded_by_the_thread_index_runs_only_the_threads_it_takes(n, block):
    bx, by = block
    out = np.zeros((5, bx * by), np.int64)
    guarded_by_the_thread[1, block](out, n)
    t = np.tile(np.arange(bx), by)
    u = np.repeat(np.arange(by), bx)
    want = np.stack([t < n, t <= n, t < n, t <= n, t < n - u]).astype(np.int64)
    np.testing.assert_array_equal(out, want)
    cf = _jit._compile(guarded_by_the_thread.py_func, ["array(int64, 2d, C)", "int64"],
                       _jit.CompileOptions().config("host"), False)
    assert cf.block_entry and "tx.limit" in cf.llvm, "the guarded stretches' thread loops stop at the bound"


# --- the thread loops' order -----------------------------------------------------------------


def thread_order(visit, block):
    """The order a one-block launch of `visit` (each thread takes a ticket from an atomic counter
    into order[ty, tx]) ran its block's threads in: "x" when threadIdx.x went fastest, "y" when y
    did (threads that meet at no barrier may run in any order; the cpu backend's is fixed)."""
    bx, by = block
    order = np.full((by, bx), -1, np.int64)
    visit[1, block](order, np.zeros(1, np.int64))
    if (order.ravel() == np.arange(bx * by)).all():
        return "x"
    if (order.T.ravel() == np.arange(bx * by)).all():
        return "y"
    return f"neither: {order.tolist()}"


def test_the_seed_tiled_matmul_runs_with_y_innermost():
    # The seed's tiled matmul (examples/python/kernel_matmul.py, numba's documented form):
    # threadIdx.x walks rows, so its arrays are contiguous along y.
    from seed_kernels import TPB as TILE_SEED, fast_matmul

    rng = np.random.default_rng(11)
    for n in (8, 29, 64):
        A = rng.random((n, n), dtype=np.float32)
        B = rng.random((n, n), dtype=np.float32)
        C = np.zeros((n, n), np.float32)
        blocks = (n + TILE_SEED - 1) // TILE_SEED
        fast_matmul[(blocks, blocks), (TILE_SEED, TILE_SEED)](A, B, C)
        np.testing.assert_allclose(C, A @ B, rtol=1e-5)
    assert in_regions(fast_matmul, ["array(float32, 2d, C)"] * 3)


@cuda.jit
def visit_y_contiguous(order, counter):
    s = cuda.shared.array((8, 8), dtype=np.int64)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    s[tx, ty] = tx  # contiguous along y
    cuda.syncthreads()
    order[ty, tx] = cuda.atomic.add(counter, 0, 1) + s[tx, ty] * 0


@cuda.jit
def visit_x_contiguous(order, counter):
    s = cuda.shared.array((8, 8), dtype=np.int64)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    s[ty, tx] = tx  # contiguous along x
    cuda.syncthreads()
    order[ty, tx] = cuda.atomic.add(counter, 0, 1) + s[ty, tx] * 0


def test_arrays_contiguous_along_y_put_the_y_loop_innermost():
    assert thread_order(visit_y_contiguous, (8, 8)) == "y"
    assert thread_order(visit_y_contiguous, (3, 5)) == "y"
    assert thread_order(visit_x_contiguous, (8, 8)) == "x"
    assert thread_order(visit_x_contiguous, (5, 3)) == "x"


@cuda.jit
def columns_then_rows(x, lim, out, dead):
    # A 2-D block whose arrays are walked along y; threads with ty < dead return before the
    # barriers; the while loop's condition is read once for the block, in its first live thread
    # (lim is the block's height in live threads' elements and 0 in the others', so a read in a
    # thread that returned would end the loop at once); `acc` crosses the barriers (kept per
    # thread, indexed in the loops' order).
    s = cuda.shared.array((8, 16), dtype=np.int64)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.x * cuda.blockDim.x + tx
    s[tx, ty] = -1
    if ty < dead:
        return
    acc = x[row, ty] * 10 + tx
    s[tx, ty] = acc
    cuda.syncthreads()
    step = 1
    while step < lim[row, ty]:
        acc += s[tx, dead + (ty - dead + step) % (cuda.blockDim.y - dead)]
        step *= 2
        cuda.syncthreads()
    out[row, ty] = acc


def test_y_innermost_with_returns_and_values_across_barriers():
    for by in (16, 5):
        for dead in (0, 2, by - 1):
            rows = 8 * 3
            x = np.arange(rows * by, dtype=np.int64).reshape(rows, by)
            lim = np.full((rows, by), by, np.int64)
            lim[:, :dead] = 0
            out = np.full((rows, by), -9, np.int64)
            columns_then_rows[3, (8, by)](x, lim, out, dead)
            want = np.full((rows, by), -9, np.int64)
            live = by - dead
            for r in range(rows):
                tx = r % 8
                s = [x[r, ty] * 10 + tx for ty in range(by)]
                acc = list(s)
                step = 1
                while step < by:
                    acc = [acc[ty] + s[dead + (ty - dead + step) % live] if ty >= dead else 0 for ty in range(by)]
                    step *= 2
                want[r, dead:] = acc[dead:]
            np.testing.assert_array_equal(out, want, err_msg=f"block (8, {by}), {dead} returned")
    assert in_regions(columns_then_rows, ["array(int64, 2d, C)"] * 3 + ["int64"])
