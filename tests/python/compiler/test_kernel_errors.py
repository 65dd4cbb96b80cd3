"""Numba's error model in kernels (issue 13 item 2): under debug=True a
``raise`` of a builtin or user exception class, a zero divisor and an index
outside its array are reported as that Python exception, raised from the
launch with Numba's text (function, file, line, tid, ctaid); without debug a
raise ends the thread unreported and a division follows NumPy, as
numba-cuda does. ``boundscheck=True`` (beyond numba-cuda, which refuses it)
checks indices without the rest of debug. Bad raise statements are
TypingErrors at the user's line."""

import math
import os

import numpy as np
import pytest

import cuforge
from compiler_support import typing_error_of
from cuforge import cuda


class KernelError(Exception):
    pass


class PairError(Exception):
    def __init__(self, code, detail):  # a constructor Numba's text cannot be passed through
        super().__init__(code, detail)


LIMIT = "over the limit"


def _line_of(text):
    with open(__file__) as f:
        return next(n for n, line in enumerate(f, 1) if text in line)


def _prefix(function, line, tid, ctaid=(0, 0, 0)):
    z = lambda v: f"[{v[2]}, {v[1]}, {v[0]}]"  # noqa: E731 - Numba lists z, y, x
    return f"In function '{function}', file {os.path.abspath(__file__)}, line {line}, tid={z(tid)} ctaid={z(ctaid)}"


# --- raise ------------------------------------------------------------------------------


@cuda.jit(debug=True, opt=False)
def raising(a, which):
    i = cuda.grid(1)
    if i == 3:
        if which == 0:
            raise ValueError("bad value")
        if which == 1:
            raise KernelError
        if which == 2:
            raise KernelError(42)
        if which == 3:
            raise RuntimeError(LIMIT)
        if which == 4:
            raise np.linalg.LinAlgError("dotted name")
    a[i] = i + 1


@pytest.mark.parametrize("which, cls, message, marker", [
    (0, ValueError, "bad value", 'raise ValueError("bad value")'),
    (1, KernelError, None, "raise KernelError\n"),
    (2, KernelError, "42", "raise KernelError(42)"),
    (3, RuntimeError, "over the limit", "raise RuntimeError(LIMIT)"),
    (4, np.linalg.LinAlgError, "dotted name", 'raise np.linalg.LinAlgError("dotted name")'),
])
def test_raise_under_debug_raises_that_exception_from_the_launch(which, cls, message, marker):
    a = np.zeros(8)
    with pytest.raises(cls) as info:
        raising[2, 4](a, which)
    e = info.value
    assert type(e) is cls
    want = _prefix("raising", _line_of(marker), (3, 0, 0))
    assert str(e) == (want if message is None else f"{want}: {message}")
    assert e.tid == (3, 0, 0) and e.ctaid == (0, 0, 0) and e.lineno == _line_of(marker)
    assert a[3] == 0 and a[2] == 3  # the raising thread ended there; the others ran


def test_a_class_defined_in_a_function_is_raised_as_itself():
    class Local(ArithmeticError):
        pass

    @cuda.jit(debug=True, opt=False)
    def k(a):
        if cuda.grid(1) == 1:
            raise Local("local class")
        a[0] = 1

    with pytest.raises(Local, match="tid=\\[0, 0, 1\\] ctaid=\\[0, 0, 0\\]: local class"):
        k[1, 2](np.zeros(1))


def test_a_class_whose_constructor_differs_is_reported_as_runtime_error_naming_it():
    @cuda.jit(debug=True, opt=False)
    def k(a):
        if cuda.grid(1) == 0:
            raise PairError

    with pytest.raises(RuntimeError, match="PairError: In function .*tid=\\[0, 0, 0\\]") as info:
        k[1, 1](np.zeros(1))
    assert type(info.value) is RuntimeError


@cuda.jit(debug=True, opt=False, device=True)
def checked_sqrt(x):
    if x < 0:
        raise ValueError("negative input")
    return math.sqrt(x)  # correctly rounded on both targets (x ** 0.5 is libdevice's pow on a GPU)


@cuda.jit(debug=True, opt=False)
def calls_checked(out, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = checked_sqrt(x[i])


def test_a_raise_in_a_device_function_names_its_line_and_thread():
    out = np.zeros(4)
    with pytest.raises(ValueError) as info:
        calls_checked[1, 4](out, np.array([4.0, 9.0, -1.0, 16.0]))
    assert str(info.value) == _prefix("checked_sqrt", _line_of('raise ValueError("negative input")'),
                                      (2, 0, 0)) + ": negative input"
    calls_checked[1, 4](out, np.array([4.0, 9.0, 1.0, 16.0]))  # the kernel goes on
    assert out.tolist() == [2.0, 3.0, 1.0, 4.0]


@cuda.jit
def raising_quietly(a):
    i = cuda.grid(1)
    if i == 3:
        raise ValueError("never reported without debug")
    a[i] = i + 1


def test_without_debug_a_raise_ends_the_thread_unreported():
    a = np.zeros(4)
    raising_quietly[1, 4](a)
    cuda.synchronize()
    assert a.tolist() == [1.0, 2.0, 3.0, 0.0]
    (compiled,) = raising_quietly.definitions.values()
    assert not compiled.may_raise  # no error record: the launch is not waited for


def test_raise_compiles_for_the_gpu_with_and_without_debug():
    # The conftest passes every compile_ptx result through ptxas.
    ptx, _ = cuda.compile_ptx(raising.py_func, "void(float64[:], int64)", debug=True, opt=False, cc=(9, 0))
    assert "atom.global.cas" in ptx or "atom.cas" in ptx  # the first thread claims the record
    assert "exit;" in ptx
    quiet, _ = cuda.compile_ptx(raising_quietly.py_func, "void(float64[:])", cc=(9, 0))
    assert "exit;" in quiet and "atom" not in quiet


@pytest.mark.parametrize("body, message", [
    ("raise", "a bare 'raise'"),
    ("raise ValueError('x') from None", "'raise ... from ...'"),
    ("raise len", "not an exception class"),
    ("raise ValueError(a[0])", "is not a constant"),
    ("raise ValueError('x', 2)", "at most one argument"),
    ("raise ValueError(msg='x')", "keyword arguments"),
    ("raise NoSuchError('x')", "name 'NoSuchError' is not defined"),
])
def test_bad_raise_statements_are_typing_errors_at_their_line(tmp_path, body, message):
    e = typing_error_of(f"def k(a):\n    if a[0] > 0:\n        {body}\n", tmp_path, "bad_raise", debug=True, opt=False)
    assert message in str(e)
    assert e.lineno == 3


# --- ZeroDivisionError ------------------------------------------------------------------


@cuda.jit(debug=True, opt=False)
def divide(out, x, y, op):
    i = cuda.grid(1)
    if i < out.size:
        if op == 0:
            out[i] = x[i] / y[i]
        elif op == 1:
            out[i] = x[i] // y[i]
        else:
            out[i] = x[i] % y[i]


@pytest.mark.parametrize("dtype, op, message", [
    (np.float64, 0, "division by zero"),
    (np.float32, 0, "division by zero"),
    (np.float64, 1, "division by zero"),
    (np.float64, 2, "modulo by zero"),
    (np.int64, 0, "division by zero"),
    (np.int64, 1, "integer division by zero"),
    (np.int32, 2, "integer modulo by zero"),
    (np.uint16, 1, "integer division by zero"),
])
def test_a_zero_divisor_under_debug_raises_zero_division_error(dtype, op, message):
    x = np.array([6, 7, 8, 9], dtype=dtype)
    y = np.array([3, 2, 0, 3], dtype=dtype)
    out = np.zeros(4)
    with pytest.raises(ZeroDivisionError) as info:
        divide[1, 4](out, x, y, op)
    marker = ["x[i] / y[i]", "x[i] // y[i]", "x[i] % y[i]"][op]
    assert str(info.value) == _prefix("divide", _line_of(marker), (2, 0, 0)) + ": " + message
    y[2] = 4
    divide[1, 4](out, x, y, op)  # nonzero divisors: Python's results
    want = [a / b if op == 0 else a // b if op == 1 else a % b for a, b in zip(x.tolist(), y.tolist())]
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_complex_division_by_zero_under_debug():
    @cuda.jit(debug=True, opt=False)
    def k(out, x, y):
        i = cuda.grid(1)
        out[i] = x[i] / y[i]

    with pytest.raises(ZeroDivisionError, match="complex division by zero"):
        k[1, 2](np.zeros(2, np.complex128), np.ones(2, np.complex128), np.array([1 + 1j, 0j]))


def test_a_constant_nonzero_divisor_is_not_checked():
    def halve(x):
        return x / 2.0 + x // 4.0 + x % 3.0

    def ratio(x, y):
        return x / y

    ptx, _ = cuda.compile_ptx(halve, "float64(float64)", device=True, debug=True, opt=False, cc=(9, 0))
    assert "exit;" not in ptx  # nothing may raise
    checked, _ = cuda.compile_ptx(ratio, "float64(float64, float64)", device=True, debug=True, opt=False, cc=(9, 0))
    assert "exit;" in checked


@cuda.jit
def divide_quietly(out, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] / y[i]


def test_without_debug_division_follows_numpy():
    out = np.zeros(3)
    divide_quietly[1, 3](out, np.array([1.0, -1.0, 0.0]), np.zeros(3))
    assert out[0] == np.inf and out[1] == -np.inf and np.isnan(out[2])


# --- bounds checks ----------------------------------------------------------------------


@cuda.jit(boundscheck=True)
def add_1(a):
    i = cuda.grid(1)
    a[i] += 1


def test_the_seed_off_by_one_raises_index_error_under_boundscheck():
    a = np.zeros(4)
    with pytest.raises(IndexError) as info:
        add_1[1, 5](a)
    assert str(info.value) == (_prefix("add_1", _line_of("    a[i] += 1"), (4, 0, 0)) +
                               ": index 4 is out of bounds for axis 0 with size 4 (array 'a')")
    assert a.tolist() == [1, 1, 1, 1]  # the other threads wrote
    add_1[1, 4](a)
    assert a.tolist() == [2, 2, 2, 2]


@cuda.jit(boundscheck=True)
def store_2d(a, i, j):
    a[i, j] = 1.0


@cuda.jit(boundscheck=True)
def load_2d(out, a, i, j):
    out[0] = a[i, j]


@pytest.mark.parametrize("i, j, axis, index, size", [
    (3, 0, 0, 3, 3), (0, 4, 1, 4, 4), (-4, 0, 0, -4, 3), (0, -5, 1, -5, 4), (2**40, 0, 0, 2**40, 3)])
def test_indices_outside_their_axis_are_index_errors(i, j, axis, index, size):
    a = np.zeros((3, 4))
    with pytest.raises(IndexError, match=f"index {index} is out of bounds for axis {axis} with size {size} "
                                         "\\(array 'a'\\)"):
        store_2d[1, 1](a, i, j)
    with pytest.raises(IndexError, match=f"index {index} is out of bounds for axis {axis} with size {size}"):
        load_2d[1, 1](np.zeros(1), a, i, j)
    assert not a.any()


def test_negative_indices_inside_their_axis_are_fine_under_boundscheck():
    a = np.zeros((3, 4))
    store_2d[1, 1](a, -1, -4)
    assert a[2, 0] == 1.0 and a.sum() == 1.0
    out = np.zeros(1)
    load_2d[1, 1](out, a, -1, 0)
    assert out[0] == 1.0


def test_debug_checks_bounds_too():
    @cuda.jit(debug=True, opt=False)
    def k(a):
        a[cuda.grid(1)] = 1

    with pytest.raises(IndexError, match="index 2 is out of bounds for axis 0 with size 2"):
        k[1, 3](np.zeros(2))


@cuda.jit(boundscheck=True)
def row_of(out, a, i):
    r = a[i]  # a view: its integer index is checked too
    out[0] = r[0]


@cuda.jit(boundscheck=True)
def column_of(out, a, j):
    c = a[:, j]
    out[0] = c[0]


@cuda.jit(boundscheck=True)
def bump_at(a, i):
    cuda.atomic.add(a, i, 1)


@cuda.jit(boundscheck=True)
def bump_at_2d(old, a, i, j):
    old[0] = cuda.atomic.max(a, (i, j), 7)


def test_views_check_their_integer_indices():
    a = np.arange(12.0).reshape(3, 4)
    out = np.zeros(1)
    row_of[1, 1](out, a, -1)  # negative indices inside the axis are fine
    column_of[1, 1](np.zeros(1), a, 3)
    assert out[0] == 8.0
    line = _line_of("    r = a[i]  # a view: its integer index is checked too")
    for i in (3, -4):
        with pytest.raises(IndexError) as info:
            row_of[1, 1](out, a, i)
        assert str(info.value) == (_prefix("row_of", line, (0, 0, 0)) +
                                   f": index {i} is out of bounds for axis 0 with size 3 (array 'a')")
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 1 with size 4 \\(array 'a'\\)"):
        column_of[1, 1](out, a, 4)


def test_atomics_check_their_indices():
    a = np.zeros(4, np.int32)
    bump_at[1, 8](a, -1)  # every thread on the last element
    assert a.tolist() == [0, 0, 0, 8]
    for i in (4, -5):
        with pytest.raises(IndexError) as info:
            bump_at[1, 1](a, i)
        assert str(info.value) == (_prefix("bump_at", _line_of("    cuda.atomic.add(a, i, 1)"), (0, 0, 0)) +
                                   f": index {i} is out of bounds for axis 0 with size 4 (array 'a')")
    assert a.tolist() == [0, 0, 0, 8]  # nothing written by the refused ones
    b = np.zeros((3, 4), np.int64)
    old = np.full(1, -1, np.int64)
    bump_at_2d[1, 1](old, b, 2, -1)
    assert b[2, 3] == 7 and old[0] == 0
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 1 with size 4"):
        bump_at_2d[1, 1](old, b, 0, 4)
    assert b.sum() == 7


def test_view_and_atomic_checks_reach_the_ptx():
    # debug=True checks bounds (numba-cuda's compile_ptx has no boundscheck); the conftest passes
    # every compile_ptx result through ptxas. Each checked site adds a way out of the kernel.
    def exits(f, sig, debug):
        ptx, _ = cuda.compile_ptx(f, sig, debug=debug, opt=not debug, cc=(9, 0))
        return ptx.count("exit;")

    def view_size(a, i, out):
        out[0] = a[i].size

    def shape_only(a, i, out):
        out[0] = a.shape[1]

    def atomic_only(a, i):
        cuda.atomic.add(a, i, 1)

    sig = "void(float64[:, :], int64, int64[:])"
    assert exits(view_size, sig, True) > exits(shape_only, sig, True)
    assert exits(atomic_only, "void(int32[:], int64)", True) > exits(atomic_only, "void(int32[:], int64)", False)


def test_boundscheck_reaches_the_compile_configuration_and_the_ptx():
    add_1[1, 4](np.zeros(4))  # compiled here too: pytest-xdist may have run the test that launched it elsewhere
    (compiled,) = add_1.definitions.values()
    assert compiled.may_raise
    assert add_1.targetoptions["boundscheck"] is True
    ptx, _ = cuda.compile_ptx(add_1.py_func, "void(float64[:])", cc=(9, 0))
    assert "exit;" not in ptx  # compile_ptx has no boundscheck: numba-cuda's signature
    plain = cuda.jit(add_1.py_func)
    plain[1, 4](np.zeros(4))
    (p,) = plain.definitions.values()
    assert not p.may_raise


# --- host code ---------------------------------------------------------------------------


@cuforge.njit
def host_raises(x):
    if x < 0:
        raise ValueError("negative")
    return x * 2


def test_host_jit_raises_with_the_message_alone():
    assert host_raises(3) == 6
    with pytest.raises(ValueError) as info:
        host_raises(-1)
    assert str(info.value) == "negative"
