"""Optionals, as Numba types them: a device function that returns a value on
some paths and None on others returns OptionalType(T); `is None` tests it;
where a value is needed the optional gives it, and None there raises
TypeError("expected int64, got None"). Found running numba-examples-style
code (a search that returns the index or None)."""

import numpy as np
import pytest

from cuforge import cuda
from cuforge import types as t


@cuda.jit(device=True)
def find(a, v):
    for i in range(a.shape[0]):
        if a[i] == v:
            return i
    return None


@cuda.jit(device=True)
def positive(x):
    if x > 0:
        return x  # runs off its end otherwise: None


@cuda.jit
def search(a, values, out):
    i = cuda.grid(1)
    if i < values.shape[0]:
        r = find(a, values[i])
        if r is None:
            out[i] = -1
        else:
            out[i] = r


def test_a_search_returning_none_is_tested_with_is_none():
    a = np.array([5, 7, 9, 7], dtype=np.int64)
    values = np.array([7, 4, 9, 5], dtype=np.int64)
    out = np.zeros(4, dtype=np.int64)
    search[1, 4](a, values, out)
    np.testing.assert_array_equal(out, [1, -1, 2, 0])


@cuda.jit
def guarded(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        r = positive(a[i])
        out[i] = 100 if r is None else r * 2
        y = None
        if a[i] > 2:
            y = a[i]
        if y is not None and y > 3:  # the right operand's value is read only when present
            out[i] += 1000
        if y != None:  # noqa: E711 (Numba code writes it so)
            out[i] += 10
        if not y:  # Python's truth: None is false
            out[i] += 10000


def test_guards_short_circuit_and_truth_are_pythons():
    a = np.array([-1, 0, 1, 2, 3, 4], dtype=np.int64)
    out = np.zeros(6, dtype=np.int64)
    guarded[1, 6](a, out)
    np.testing.assert_array_equal(out, [10100, 10100, 10002, 10004, 16, 1018])


@cuda.jit
def plus_one(a, out):
    out[0] = positive(a[0]) + 1


def test_none_where_a_value_is_needed_raises_numbas_type_error():
    out = np.zeros(1, dtype=np.int64)
    plus_one[1, 1](np.array([41]), out)
    assert out[0] == 42
    line = plus_one.py_func.__code__.co_firstlineno + 2
    with pytest.raises(TypeError, match=rf"In function 'plus_one', file .*test_optional.py, line {line}, .*"
                                        r"expected int64, got None"):
        plus_one[1, 1](np.array([-3]), out)


def test_return_types_are_numba_cudas():
    # Recorded from numba-cuda 0.30.4's compile_ptx(..., device=True).
    def widened(x):
        if x > 0:
            return x
        if x < -5:
            return None
        return 2.5

    def variable(x):
        y = None
        if x > 0:
            y = x
        return y

    def pair(x):
        y = None
        if x > 0:
            y = x
        return (y, 1)

    def tested(x):
        y = None
        if x > 0:
            y = x
        if y is None:
            return 0
        return y * 2

    cases = [
        (positive.py_func, (t.int32,), "OptionalType(int32)"),
        (positive.py_func, (t.float32,), "OptionalType(float32)"),
        (widened, (t.int32,), "OptionalType(float64)"),
        (variable, (t.int16,), "OptionalType(int16)"),
        (pair, (t.int32,), "Tuple(OptionalType(int32), int64)"),
        (tested, (t.int32,), "int64"),
    ]
    for fn, sig, want in cases:
        _, rt = cuda.compile_ptx(fn, sig, device=True)
        assert str(rt) == want, fn.__name__
        assert rt == t.from_spec(want)


@cuda.jit(device=True)
def head(a, n):
    if n > 0:
        return a[:n], n
    return None


@cuda.jit
def unpacks(a, out):
    r = head(a, 3)
    if r is not None:
        v, n = r  # unpacking takes the value
        for i in range(n):
            out[i] = v[i] * 2
    out[3] = head(a, 0) is None


def test_optionals_of_tuples_and_arrays():
    a = np.arange(1.0, 6.0)
    out = np.zeros(4)
    unpacks[1, 1](a, out)
    np.testing.assert_array_equal(out, [2.0, 4.0, 6.0, 1.0])


@cuda.jit(device=True)
def describe(r):
    # Given the optional as it is: a specialisation for OptionalType(int64).
    return -1 if r is None else r


@cuda.jit
def passes_on(a, out):
    for i in range(a.shape[0]):
        out[i] = describe(positive(a[i]))


def test_device_functions_take_an_optional_as_it_is():
    a = np.array([3, -2, 0, 8])
    out = np.zeros(4, dtype=np.int64)
    passes_on[1, 1](a, out)
    np.testing.assert_array_equal(out, [3, -1, -1, 8])
    # numba-cuda 0.30.4 types both forms so: the optional parameter joins the returns.
    def early(r):
        if r is None:
            return -1
        return r

    for fn in (describe.py_func, early):
        _, rt = cuda.compile_ptx(fn, (t.optional(t.int64),), device=True)
        assert rt == t.optional(t.int64), fn.__name__


def test_optional_type_objects():
    o = t.Optional(t.float32)
    assert str(o) == "OptionalType(float32)" and o.type == t.float32
    assert t.optional(o) == o  # an optional of an optional is itself
    assert t.from_spec("OptionalType(UniTuple(int64 x 2))") == t.Optional(t.UniTuple(t.int64, 2))
    with pytest.raises(TypeError, match="optional of none"):
        t.Optional(t.none)


def test_a_value_with_no_common_type_is_still_an_error():
    def mixed(a, x):
        if x > 0:
            return a
        return x

    with pytest.raises(cuda.TypingError, match=r"mixed returns int32 here and array\(float32, 1d, A\) at line \d+, "
                                               r"which have no common type"):
        cuda.compile_ptx(mixed, (t.float32[:], t.int32), device=True)
