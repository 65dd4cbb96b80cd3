"""NumPy's ufuncs on scalars that numba-cuda 0.30 types by their loops
(true_divide and divide, the comparisons, logical_*, bitwise_*, invert,
left_shift and right_shift): the first loop of the ufunc every argument
casts to safely gives the type computed in (float16 loops left out, as
numba-cuda leaves them). Types recorded from numba-cuda 0.30.4's
compile_ptx(..., device=True)."""

import numpy as np
import pytest

from cuforge import cuda
from cuforge import types as t


def true_divide(x, y):
    return np.true_divide(x, y)


def divide(x, y):
    return np.divide(x, y)


def equal(x, y):
    return np.equal(x, y)


def less(x, y):
    return np.less(x, y)


def logical_and(x, y):
    return np.logical_and(x, y)


def left_shift(x, y):
    return np.left_shift(x, y)


def bitwise_and(x, y):
    return np.bitwise_and(x, y)


def logical_not(x):
    return np.logical_not(x)


def invert(x):
    return np.invert(x)


@pytest.mark.parametrize("fn, args, want", [
    (true_divide, (t.int8, t.int8), "float32"),  # NumPy itself gives float64; numba-cuda's loops float32
    (true_divide, (t.int32, t.int32), "float64"),
    (divide, (t.int16, t.int16), "float32"),
    (equal, (t.int64, t.uint64), "bool"),
    (logical_and, (t.int32, t.float64), "bool"),
    (left_shift, (t.int32, t.uint8), "int32"),
    (bitwise_and, (t.boolean, t.int8), "int8"),
    (logical_not, (t.float32,), "bool"),
    (invert, (t.boolean,), "bool"),
])
def test_types_are_numba_cudas(fn, args, want):
    _, rt = cuda.compile_ptx(fn, args, device=True)
    assert str(rt) == want


def test_no_safe_loop_is_a_typing_error():
    with pytest.raises(cuda.TypingError, match=r"No implementation of numpy.bitwise_and.*no loop of the ufunc takes "
                                               r"these types safely"):
        cuda.compile_ptx(bitwise_and, (t.int64, t.uint64), device=True)
    with pytest.raises(cuda.TypingError, match="no loop"):
        cuda.compile_ptx(left_shift, (t.float32, t.int32), device=True)


@cuda.jit
def loops(i8, i64, u64, f, out_f, out_b, out_i):
    out_f[0] = np.true_divide(i8[0], i8[1])  # float32
    out_f[1] = np.divide(i64[0], i64[1])  # float64
    out_b[0] = np.equal(i64[2], u64[0])  # int64 -1 against uint64 2**64 - 1: exactly, not through float64
    out_b[1] = np.less(i64[2], u64[0])
    out_b[2] = np.greater_equal(u64[0], i64[2])
    out_b[3] = np.logical_xor(f[0], i64[1])
    out_b[4] = np.logical_not(f[1])
    out_i[0] = np.left_shift(i8[0], i8[1])  # in int8: wraps
    out_i[1] = np.invert(i8[1])
    out_i[2] = np.bitwise_xor(i64[0], i64[1])
    out_b[5] = np.not_equal(np.uint64(2**63), np.int64(-2**63))


def test_values():
    i8 = np.array([100, 3], dtype=np.int8)
    i64 = np.array([7, 2, -1], dtype=np.int64)
    u64 = np.array([2**64 - 1], dtype=np.uint64)
    f = np.array([0.0, np.nan])
    out_f = np.zeros(2)
    out_b = np.zeros(6, dtype=np.bool_)
    out_i = np.zeros(3, dtype=np.int64)
    loops[1, 1](i8, i64, u64, f, out_f, out_b, out_i)
    assert out_f[0] == np.float64(np.float32(100) / np.float32(3))
    assert out_f[1] == 3.5
    assert list(out_b) == [False, True, True, True, False, True]
    assert list(out_i) == [np.int8(100) << np.int8(3), ~np.int8(3), 7 ^ 2]


@cuda.jit
def on_arrays(x, y, out):
    np.less(x, y, out)


def test_loop_typed_ufuncs_run_on_arrays_with_out():
    x = np.array([1, 5, -3], dtype=np.int32)
    y = np.array([2.0, 5.0, -4.0])
    out = np.zeros(3, dtype=np.bool_)
    on_arrays[1, 1](x, y, out)
    assert list(out) == [True, False, False]
