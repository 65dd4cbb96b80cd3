"""Debugging kernels, the seed talks' workflows (docs/debugging.md):
print() from a kernel; debug=True's error model (a zero divisor is a
ZeroDivisionError naming the thread, `raise` reaches the host); the
off-by-one add_1 caught by boundscheck=True; and the talk's sumReduction
over a cooperative grid group.

The kernels are importable; running the file runs the demonstration.
"""

import sys

import numpy as np

from cuforge import cuda


@cuda.jit
def report(a):
    i = cuda.grid(1)
    if i < a.size:
        print("thread", i, "sees", a[i], a[i] > 1.0)


@cuda.jit(debug=True, opt=False)
def reciprocal(r, x):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = 1.0 / x[i]


class NegativeInput(ValueError):
    pass


@cuda.jit(debug=True, opt=False)
def checked_sqrt(r, x):
    i = cuda.grid(1)
    if i < r.size:
        if x[i] < 0:
            raise NegativeInput("sqrt of a negative number")
        r[i] = x[i] ** 0.5


@cuda.jit(boundscheck=True)
def add_1(a):
    i = cuda.grid(1)
    a[i] += 1  # the bug: no `if i < a.size`


# The seed's device function (Numba's talk, "CUDA Python vs. CUDA C++"), as written there.
@cuda.jit(device=True)
def sumReduction(g, x, val):
    """
    Calculates the sum of val across the group g. The workspace array, x,
    must be large enough to contain `g.size` integers.
    """

    # Rank of this thread in the group
    lane = g.thread_rank

    # For each iteration of this loop, the number of threads active in the
    # reduction, i, is halved, and each active thread (with index [lane])
    # performs a single summation of it's own value with that
    # of a "partner" (with index [lane+i]).
    i = g.size // 2
    while i > 0:
        # Store value for this thread in temporary array
        x[lane] = val

        # Synchronize all threads in group
        g.sync()

        if lane < i:
            # Active threads perform summation of their value with
            # their partner's value
            val += x[lane + i]

        # synchronize all threads in group
        g.sync()

        i //= 2

    # Master thread in group returns result, and others return -1.
    if g.thread_rank == 0:
        return val
    else:
        return -1


@cuda.jit
def grid_sum(x, out):
    r = sumReduction(cuda.cg.this_grid(), x, cuda.grid(1) + 1)
    if r != -1:
        out[0] = r


def main():
    print("print() from a kernel:", flush=True)
    report[1, 3](np.array([0.5, 1.5, 2.5]))
    cuda.synchronize()
    sys.stdout.flush()

    # Each kernel first does its job (checked against NumPy), then shows its error.
    x = np.array([1.0, 2.0, 4.0, 8.0])
    r = np.zeros(4)
    reciprocal[1, 4](r, x)
    np.testing.assert_allclose(r, 1.0 / x)
    try:
        reciprocal[1, 4](r, np.array([1.0, 2.0, 0.0, 4.0]))
        raise AssertionError("expected a ZeroDivisionError")
    except ZeroDivisionError as e:
        assert e.tid == (2, 0, 0), e.tid
        print("debug=True:", type(e).__name__, "-", e)

    checked_sqrt[1, 4](r, x)
    np.testing.assert_allclose(r, np.sqrt(x))
    try:
        checked_sqrt[1, 4](r, np.array([4.0, -1.0, 9.0, 16.0]))
        raise AssertionError("expected NegativeInput")
    except NegativeInput as e:
        print("raise in a kernel:", type(e).__name__, "-", e)

    a = np.zeros(4)
    add_1[1, 4](a)
    np.testing.assert_array_equal(a, np.ones(4))
    try:
        add_1[1, 5](a)
        raise AssertionError("expected an IndexError")
    except IndexError as e:
        assert "index 4 is out of bounds for axis 0 with size 4" in str(e)
        print("boundscheck=True:", type(e).__name__, "-", e)

    n = 4 * 64
    out = np.zeros(1, np.int64)
    grid_sum[4, 64](np.zeros(n, np.int64), out)
    np.testing.assert_array_equal(out, [n * (n + 1) // 2])
    print(f"sumReduction over a grid group of {n} threads: {out[0]}")


if __name__ == "__main__":
    main()
