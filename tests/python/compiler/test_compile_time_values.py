"""Compile-time values and the constructs around them, as numba-cuda 0.30
has them (issue 11, item 5): dtypes, functions, math functions, atomics and
device functions passed to device functions (each value its own
specialisation) or held by variables; a local constant sizing a shared or
local array; ``*args`` calls and ``def f(*args)``; recursion (explicit
signatures, inferred from the returns that do not recurse, mutual); Enum
and IntEnum members; namedtuples (built, read by field, passed in and out,
kernel arguments); a global device array read and written by a kernel.
Every kernel also goes through ptxas (conftest.py). The expected numbers
are Python's own.
"""

import collections
import enum
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from cuforge import cuda
from cuforge import types as cftypes

# --- compile-time values as arguments ---------------------------------------------------


@cuda.jit(device=True)
def cast(x, ty):
    return ty(x)


@cuda.jit(device=True)
def apply(f, x):
    return f(x)


@cuda.jit(device=True)
def square(x):
    return x * x


@cuda.jit(device=True)
def cube(x):
    return x * x * x


@cuda.jit(device=True)
def accumulate(op, a, v):
    op(a, 0, v)


@cuda.jit
def passes_values(out, x, acc):
    out[0] = cast(x[0], np.float32)
    out[1] = apply(square, x[0])
    out[2] = apply(cube, x[0])
    out[3] = apply(math.sqrt, x[0])
    out[4] = cast(x[0], np.int16)
    accumulate(cuda.atomic.add, acc, 2.0)
    accumulate(cuda.atomic.max, acc, 7.0)


def test_dtypes_functions_and_atomics_pass_to_device_functions():
    out = np.zeros(5)
    x = np.array([2.3])
    acc = np.zeros(1)
    passes_values[1, 1](out, x, acc)
    assert out[0] == np.float64(np.float32(2.3))  # rounded through float32
    assert out[1] == pytest.approx(2.3**2) and out[2] == pytest.approx(2.3**3)  # one specialisation per function
    assert out[3] == pytest.approx(math.sqrt(2.3))
    assert out[4] == 2
    assert acc[0] == 7.0


@cuda.jit
def holds_values(out, x):
    f = math.exp
    t = np.float32
    g = square
    out[0] = t(f(x[0]))
    out[1] = g(x[0])


def test_variables_hold_compile_time_values():
    out = np.zeros(2)
    holds_values[1, 1](out, np.array([1.5]))
    assert out[0] == np.float64(np.float32(math.exp(1.5)))
    assert out[1] == 2.25


@cuda.jit
def local_constant_sizes(out):
    N = 64
    shape = (8, 8)  # one element per thread: m[i // 8, i % 8] stays inside
    s = cuda.shared.array(N, np.float32)
    m = cuda.shared.array(shape, np.int32)
    loc = cuda.local.array(N, np.int64)
    i = cuda.threadIdx.x
    s[i] = i
    m[i // 8, i % 8] = 2 * i
    loc[N - 1] = i
    cuda.syncthreads()
    out[i] = s[N - 1 - i] + m[(31 - i % 32) // 8, (31 - i % 32) % 8] + loc[N - 1]


def test_a_local_constant_sizes_shared_and_local_arrays():
    out = np.zeros(64)
    local_constant_sizes[1, 64](out)
    i = np.arange(64)
    j = 31 - i % 32
    np.testing.assert_array_equal(out, (63 - i) + 2 * j + i)


def test_a_variable_assigned_twice_does_not_size_an_array():
    path = os.path.join(os.path.dirname(__file__), "data", "ctv_bad_shape.py")
    r = subprocess.run([sys.executable, path], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "TypingError" in r.stdout and "ctv_bad_shape.py" in r.stdout, r.stdout


# --- star arguments -------------------------------------------------------------------------


@cuda.jit(device=True)
def digits(a, b, c):
    return a * 100 + b * 10 + c


@cuda.jit(device=True)
def total(first, *rest):
    t = first
    for r in rest:
        t += r
    return t


@cuda.jit(device=True)
def count(*args):
    return len(args)


@cuda.jit
def star_calls(out, x):
    t = (1, 2, 3)
    out[0] = digits(*t)
    out[1] = digits(4, *(5, 6))
    out[2] = total(1, 2, 3, 4)
    out[3] = total(x[0], 0.5)
    out[4] = total(*t, 10)
    out[5] = count()
    out[6] = math.atan2(*(x[0], 1.0)) * 1000
    out[7] = total(5)  # `rest` is empty: the loop over it never runs


def test_star_arguments():
    out = np.zeros(8)
    star_calls[1, 1](out, np.array([2.0]))
    assert out.tolist()[:6] == [123, 456, 10, 2.5, 16, 0]
    assert out[6] == pytest.approx(math.atan2(2.0, 1.0) * 1000)
    assert out[7] == 5


@cuda.jit
def loops_that_never_run(out):
    s = 0
    for a in ():  # no element, so no type for `a`: the body is not typed, the else runs
        s += a.no_such_attribute
    else:
        s += 7
    for i in range(5, 2):
        s += i
    for i in range(3, 3, -1):
        s += i
    out[0] = s


def test_loops_over_nothing_run_only_their_else():
    out = np.zeros(1, dtype=np.int64)
    loops_that_never_run[1, 1](out)
    assert out[0] == 7


@cuda.jit
def star_of_a_number(out, x):
    out[0] = digits(*x[0])


def test_a_star_argument_must_be_a_tuple():
    with pytest.raises(cuda.TypingError, match=r"a star argument \(\*x\) must be a tuple, not float64"):
        star_of_a_number[1, 1](np.zeros(1), np.zeros(1))


# --- recursion ------------------------------------------------------------------------------


@cuda.jit("i8(i8)", device=True)
def fib_declared(n):
    if n < 2:
        return n
    return fib_declared(n - 1) + fib_declared(n - 2)


def make_fib_in_closure():
    @cuda.jit("i8(i8)", device=True)
    def fib_closure(n):
        if n < 2:
            return n
        return fib_closure(n - 1) + fib_closure(n - 2)

    return fib_closure


fib_closure = make_fib_in_closure()


@cuda.jit(device=True)
def fib_inferred(n):
    if n < 2:
        return n
    return fib_inferred(n - 1) + fib_inferred(n - 2)


@cuda.jit(device=True)
def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


@cuda.jit(device=True)
def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


@cuda.jit(device=True)
def fill_down(a, i):
    if i < 0:
        return 0
    a[i] = i * i
    return fill_down(a, i - 1) + 1


@cuda.jit
def recursive(out, n, a):
    out[0] = fib_declared(n)
    out[1] = fib_closure(n)
    out[2] = fib_inferred(n)
    out[3] = is_even(n)
    out[4] = is_odd(n)
    out[5] = fill_down(a, a.size - 1)


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def test_recursion():
    out = np.zeros(6, np.int64)
    a = np.zeros(5, np.int64)
    recursive[1, 1](out, 11, a)
    assert out.tolist() == [fib(11), fib(11), fib(11), 0, 1, 5]
    assert a.tolist() == [0, 1, 4, 9, 16]  # written through the recursion: copied back


def test_recursion_through_compile_ptx():
    ptx, ret = cuda.compile_ptx(fib_declared.py_func, "int64(int64)", device=True)
    assert ret == cftypes.int64 and "call.uni" in ptx


@cuda.jit(device=True)
def runaway(x):
    return runaway(x)


@cuda.jit
def calls_runaway(out):
    out[0] = runaway(1)


def test_runaway_recursion_is_a_typing_error():
    with pytest.raises(cuda.TypingError, match="cannot infer the return type of recursive function runaway"):
        calls_runaway[1, 1](np.zeros(1))


# --- Enum and IntEnum -----------------------------------------------------------------------


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Shape(enum.IntEnum):
    CIRCLE = 3
    SQUARE = 4


@cuda.jit(device=True)
def is_red(c):
    return c == Color.RED


@cuda.jit
def enums(out, s):
    out[0] = is_red(Color.RED)
    out[1] = is_red(Color.GREEN)
    out[2] = Color.GREEN.value
    out[3] = s + 1
    out[4] = s == Shape.SQUARE
    out[5] = Shape.CIRCLE * 10


def test_enum_and_intenum_members():
    out = np.zeros(6, np.int64)
    enums[1, 1](out, Shape.SQUARE)
    assert out.tolist() == [1, 0, 2, 5, 1, 30]
    assert enums.signatures[0][1] == cftypes.int64  # an IntEnum argument is its integer


# --- namedtuples ----------------------------------------------------------------------------

Point = collections.namedtuple("Point", ["x", "y"])
Box = collections.namedtuple("Box", "lo hi")


@cuda.jit(device=True)
def norm2(p):
    return p.x * p.x + p.y * p.y


@cuda.jit(device=True)
def swapped(p):
    return Point(p.y, p.x)


@cuda.jit
def namedtuples(out, a, q):
    p = Point(a[0], a[1])
    out[0] = norm2(p)
    out[1] = p.y
    k = Point(y=2.5, x=1)
    out[2] = k.x + k.y
    s = swapped(p)
    out[3] = s.x
    out[4] = p[0]
    out[5] = q.x * 10 + q.y
    b = Box(Point(1, 2), Point(3, 4))
    out[6] = b.hi.y
    x, y = p
    out[7] = x - y


def test_namedtuples():
    out = np.zeros(8)
    namedtuples[1, 1](out, np.array([3.0, 4.0]), Point(7, 8.5))
    assert out.tolist() == [25.0, 4.0, 3.5, 4.0, 3.0, 78.5, 4.0, -1.0]
    arg = namedtuples.signatures[0][2]
    assert isinstance(arg, cftypes.NamedTuple) and arg.fields == ("x", "y")
    assert arg.spec == "Point(x: int64, y: float64)" and cftypes.from_spec(arg.spec) == arg


def test_named_tuple_types():
    t = cftypes.NamedTuple((cftypes.float32, cftypes.float32), Point)
    assert isinstance(t, cftypes.NamedUniTuple) and t.count == 2 and t.cls is Point
    assert cftypes.typeof(Point(1.0, 2.0)) == cftypes.NamedUniTuple(cftypes.float64, 2, Point)
    with pytest.raises(ValueError, match="Point has 2 fields, not 3"):
        cftypes.NamedTuple((cftypes.int8, cftypes.int16, cftypes.int32), Point)


@cuda.jit
def namedtuple_missing_field(out):
    p = Point(1)
    out[0] = p.x


def test_namedtuple_errors():
    with pytest.raises(cuda.TypingError, match="Point\\(\\) missing argument 'y'"):
        namedtuple_missing_field[1, 1](np.zeros(1))


# --- global device arrays -------------------------------------------------------------------

TABLE = cuda.to_device(np.arange(10.0))
GRID = cuda.to_device(np.arange(12, dtype=np.int32).reshape(3, 4))
SINK = cuda.device_array(4, np.float64)


@cuda.jit
def reads_globals(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = TABLE[i] * 2 + GRID.T[i % 4, i % 3]
    if i < SINK.size:
        SINK[i] = i + 0.5


def test_a_global_device_array_is_read_and_written_in_place():
    out = np.zeros(10)
    reads_globals[1, 16](out)
    g = np.arange(12).reshape(3, 4)
    i = np.arange(10)
    np.testing.assert_array_equal(out, i * 2.0 + g.T[i % 4, i % 3])
    np.testing.assert_array_equal(SINK.copy_to_host(), np.arange(4) + 0.5)


# --- reshape --------------------------------------------------------------------------------


@cuda.jit
def reshapes(out, a):
    b = a.reshape((2, 3))
    out[0] = b[1, 2]
    loc = cuda.local.array(6, np.float64)
    for i in range(6):
        loc[i] = i
    m = loc.reshape(3, 2)
    out[1] = m[2, 0]
    c = a.reshape(-1, 2)
    out[2] = c.shape[0] * 10 + c[2, 1]
    n = 3
    d = a.reshape(n, -1)
    d[0, 0] = 42  # a view: writes a
    out[3] = d.shape[1]


def test_reshape_of_contiguous_arrays():
    out = np.zeros(4)
    a = np.arange(6.0)
    reshapes[1, 1](out, a)
    assert out.tolist() == [5.0, 4.0, 35.0, 2.0]
    assert a[0] == 42


@cuda.jit
def reshape_mismatch(out, a):
    b = a.reshape(4, 2)
    out[0] = b[0, 0]


@cuda.jit
def reshape_strided(out, a):
    b = a[::2].reshape(3, 1)
    out[0] = b[0, 0]


def test_reshape_errors():
    with pytest.raises(NotImplementedError, match="incompatible shape for array"):
        reshape_mismatch[1, 1](np.zeros(1), np.arange(6.0))
    with pytest.raises(cuda.TypingError, match="reshape needs a C-contiguous array"):
        reshape_strided[1, 1](np.zeros(1), np.arange(6.0))
