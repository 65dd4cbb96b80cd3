"""Kernels that fault on the cpu backend (an index far outside the array: a
non-canonical address), run by test_kernel_faults.py in a process of its
own: each launch must fail with an error, and the next launch must work.
Prints one line per case: "<name> error <message>" or "<name> ok <values>"."""

import numpy as np

from cuforge import cuda

FAR = 1 << 60  # times 8 bytes: outside any address space


@cuda.jit
def wild_loop(a, far):
    i = cuda.grid(1)
    if i == 5:
        a[far] = 1.0  # no barrier: the threads run as plain loops
    elif i < a.size:
        a[i] = i


@cuda.jit
def wild_fiber(a, far):
    s = cuda.shared.array(64, np.float64)
    i = cuda.threadIdx.x
    s[i] = i
    # A reducing barrier keeps the block's threads fibers (plain syncthreads() statements would
    # run the block in regions, one loop per stretch between barriers).
    cuda.syncthreads_or(i == 0)
    if i == 7:
        a[far] = s[i]
    cuda.syncthreads()
    a[cuda.grid(1)] = s[63 - i]


@cuda.jit
def wild_later_block(a, far):
    # Blocks of a launch without shared memory run a row at a time in one call, and a kernel that
    # reads the coordinates only as cuda.grid's sum runs the row as one block of all its threads:
    # the fault names the row's blocks.
    i = cuda.grid(1)
    if i == 2 * 32 + 5:
        a[far] = 1.0
    elif i < a.size:
        a[i] = i


@cuda.jit
def wild_later_block_exact(a, far):
    # The same with threadIdx.x read on its own: blocks run one at a time within the row, and the
    # fault is named in its own block.
    i = cuda.blockIdx.x * 32 + cuda.threadIdx.x
    if i == 2 * 32 + 5:
        a[far] = 1.0
    elif i < a.size:
        a[i] = i


@cuda.jit
def wild_read(out, a, far):
    out[0] = a[far]


@cuda.jit
def wild_grid(a, far):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    a[i] = i
    g.sync()
    if i == 3:
        a[far] = 2.0
    g.sync()


@cuda.jit
def fine(a):
    s = cuda.shared.array(64, np.float64)
    i = cuda.threadIdx.x
    s[i] = i
    cuda.syncthreads()
    a[cuda.grid(1)] = s[63 - i]


def attempt(name, launch):
    try:
        launch()
        cuda.synchronize()
        print(name, "ok", flush=True)
    except Exception as e:  # noqa: BLE001 - the error itself is what is reported
        print(name, "error", type(e).__name__, str(e).replace("\n", " "), flush=True)
    a = np.zeros(128)
    fine[2, 64](a)
    cuda.synchronize()
    want = np.concatenate([63 - np.arange(64)] * 2)
    print(name + "-after", "ok" if (a == want).all() else "WRONG", flush=True)


attempt("loop", lambda: wild_loop[4, 32](np.zeros(128), FAR))
attempt("fiber", lambda: wild_fiber[4, 64](np.zeros(256), FAR))
attempt("read", lambda: wild_read[1, 1](np.zeros(1), np.zeros(4), -FAR))
attempt("grid", lambda: wild_grid[2, 32](np.zeros(64), FAR))
attempt("again", lambda: wild_fiber[4, 64](np.zeros(256), FAR))
attempt("later", lambda: wild_later_block[64, 32](np.zeros(64 * 32), FAR))  # claims of 4 blocks
attempt("later_exact", lambda: wild_later_block_exact[64, 32](np.zeros(64 * 32), FAR))
attempt("unmapped", lambda: wild_loop[4, 32](np.zeros(128), 1 << 40))

if __name__ == "__main__" and "--then-crash-outside" in __import__("sys").argv:
    import ctypes

    print("crashing outside a kernel", flush=True)
    ctypes.string_at(0)  # not a kernel's fault: the process must still die of it
    print("survived", flush=True)
