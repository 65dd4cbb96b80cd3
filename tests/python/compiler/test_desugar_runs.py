"""The desugarings keep Python's meaning: single-thread kernels run through
the compiler give what the same function gives when Python runs it (once
the typer and code generation exist)."""

import numpy as np
import pytest

from compiler_support import needs_codegen
from cuforge import cuda

pytestmark = needs_codegen

LIMIT = 50
WEIGHTS = np.array([1.0, 2.0, 3.0])
PAIR = (3, 4)


def chains(a, out):
    n = len(a)
    for i in range(n):
        out[i] = 1 if 0 < a[i] < 5 else 0
        if i < n - 1 and a[i] < a[i + 1] < 10:
            out[i] += 10
        if 0 <= i < 3 <= n:
            out[i] += 100


def loops(a, b, out):
    for i, (x, y) in enumerate(zip(a, b)):
        out[i] = x * y + i
    for j, x in enumerate(a, 2):
        out[j - 2] += x
    total = 0.0
    for x in b:
        total += x
    out[0] += total
    for k in range(len(out) - 1, -1, -2):
        out[k] -= 1
    for k in range(3):
        k = k * 10  # the body's assignment does not change the iteration
        out[1] += k


def augmented(a, idx, out):
    for k in range(len(idx)):
        out[idx[k] % len(out)] += a[k]
    out[idx[0] % len(out)] -= 1
    m = 7
    m //= 2
    m **= 2
    m %= 5
    out[0] += m


def unpacking(a, out):
    x, y = a[0], a[1]
    x, y = y, x
    out[0] = x
    out[1] = y
    p = q = a[2] + 1
    out[2] = p + q
    u, v = PAIR
    out[3] = u * v


def while_loops(a, out):
    i = 0
    while i < len(a):
        if a[i] < 0:
            break
        i += 1
    else:
        out[0] = -1
    out[1] = i
    j = 0
    while 0 <= a[j] < LIMIT:
        j += 1
        if j == len(a):
            break
    else:
        out[3] = 1
    out[2] = j


def globals_and_branches(a, out):
    for i in range(len(a)):
        if a[i] < 0:
            out[i] = -1
        elif a[i] < 1:
            out[i] = WEIGHTS[0]
        elif a[i] < 10:
            out[i] = WEIGHTS[1] * a[i]
        else:
            out[i] = WEIGHTS[2] + (a[i] if a[i] < LIMIT else LIMIT)


def ranges_in_enumerate_and_zip(a, p, out):
    k = 0
    for i, r in enumerate(range(p[0], p[1], p[2])):  # run-time bounds, either sign of step
        out[k] = i * 100 + r
        k += 1
    for x, r, s in zip(a, range(len(a) - 1, -1, -1), range(p[3])):  # the shortest source ends it
        out[k] = x + r * 10 + s
        k += 1
    for t in zip(range(5, 1, -2)):  # 1-tuples
        out[k] = t[0]
        k += 1
    for i, r in enumerate(range(p[4], p[5], p[6]), 1):
        if r > 100:
            break
        out[k] = -r * i
        k += 1
    else:
        out[k] = 999  # runs when the range ends, empty or not
        k += 1
    out[len(out) - 1] = k


def unsigned_ranges(q, out):
    k = 0
    for r, s in zip(range(q[0], q[1]), range(q[1], q[0], -1)):  # -1 makes the second count in int64
        out[k] = r * 10 + s
        k += 1
    for i, r in enumerate(range(q[0], q[1], q[2])):  # uint32 throughout
        out[k] = r + i
        k += 1
    out[len(out) - 1] = k


CASES = [
    (chains, lambda: (np.array([1.0, 3.0, 7.0, 4.0, 0.5, 9.0]), np.zeros(6))),
    (loops, lambda: (np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0, 7.0]), np.zeros(4))),
    (augmented, lambda: (np.array([1.0, 2.0, 3.0, 4.0]), np.array([0, 5, 2, 3], dtype=np.int64), np.zeros(4))),
    (unpacking, lambda: (np.array([1.0, 2.0, 3.0]), np.zeros(4))),
    (while_loops, lambda: (np.array([3.0, 1.0, 70.0, -2.0]), np.zeros(4))),
    (while_loops, lambda: (np.array([3.0, 1.0, 7.0, 2.0]), np.zeros(4))),
    (globals_and_branches, lambda: (np.array([-3.0, 0.5, 4.0, 20.0, 80.0]), np.zeros(5))),
    (ranges_in_enumerate_and_zip, lambda: (np.array([1.0, 2.0, 3.0]), np.array([10, -3, -4, 2, 5, 5, 1]),
                                           np.zeros(20))),
    (ranges_in_enumerate_and_zip, lambda: (np.array([1.0, 2.0, 3.0]), np.array([0, 7, 3, 5, 2, 9, 3]),
                                           np.zeros(20))),
    (ranges_in_enumerate_and_zip, lambda: (np.array([1.0, 2.0, 3.0]), np.array([0, 7, 3, 0, 99, 200, 2]),
                                           np.zeros(20))),
    (unsigned_ranges, lambda: (np.array([2, 6, 2], dtype=np.uint32), np.zeros(12))),
    (unsigned_ranges, lambda: (np.array([6, 2, 1], dtype=np.uint32), np.zeros(12))),
]


@pytest.mark.parametrize("func, make_args", CASES, ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_kernels_compute_what_python_computes(func, make_args):
    want = make_args()
    func(*want)
    got = make_args()
    cuda.jit(func)[1, 1](*got)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)


def range_of_floats_in_zip(a, out):
    for x, r in zip(a, range(0, len(a), 0.5)):
        out[0] += x * r


def test_a_range_inside_zip_is_typed_like_a_range_loop():
    with pytest.raises(cuda.TypingError, match=r"range\(\) arguments must be integers, got float64") as info:
        cuda.jit(range_of_floats_in_zip)[1, 1](np.ones(3), np.zeros(1))
    assert "for x, r in zip(a, range(0, len(a), 0.5)):" in str(info.value)
