"""NumPy ufuncs on arrays inside kernels, with an out array, as numba-cuda
runs them (its documented ufunc example): each thread that calls one
computes every element of out, the inputs broadcast against out as NumPy
broadcasts them; the ufunc returns out. Kernels cannot allocate, so a
ufunc on arrays without out is a TypingError saying so."""

import numpy as np
import pytest

from cuforge import cuda
from cuforge import types as t


@cuda.jit
def documented_example(r, x):
    # Compute sin(x) with result written to r
    np.sin(x, r)


def test_numba_cuda_documented_example():
    x = np.arange(10, dtype=np.float32) - 5
    r = np.zeros_like(x)
    documented_example[1, 1](r, x)
    np.testing.assert_allclose(r, np.sin(x), rtol=1e-6)


@cuda.jit
def broadcast(r, x, y):
    np.arctan2(x, y, out=r)  # (3, 4) with (4,)
    np.maximum(r, 0.5, r)  # an array with a scalar, out the same array


def test_inputs_broadcast_against_out_and_scalars_take_part():
    rng = np.random.default_rng(1)
    x, y = rng.random((3, 4)), rng.random(4) - 0.5
    r = np.zeros((3, 4))
    broadcast[1, 1](r, x, y)
    np.testing.assert_allclose(r, np.maximum(np.arctan2(x, y), 0.5), rtol=1e-15)


@cuda.jit
def returns_out(r, x, col):
    np.floor(col, r)  # a (3, 1) input broadcasts along the last dimension


def test_ufunc_returns_out_and_size_one_extents_broadcast():
    x = np.arange(6.0).reshape(2, 3)
    r = np.zeros((2, 3))
    returns_out[1, 1](r, x, np.array([[1.5], [2.5]]))
    np.testing.assert_array_equal(r, [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]])
    r2 = np.zeros((2, 3))
    sqrt_then_mark[1, 1](r2, x)
    assert r2[0, 0] == -1.0 and r2[1, 2] == np.sqrt(5.0)


@cuda.jit
def sqrt_then_mark(r, x):
    y = np.sqrt(x, r)
    y[0, 0] = -1.0


@cuda.jit
def per_thread_rows(r, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        np.exp(x[i], r[i])  # each thread a row, through views


def test_views_per_thread_and_integer_inputs_into_float_out():
    x = np.arange(12, dtype=np.int32).reshape(4, 3)
    r = np.zeros((4, 3))
    per_thread_rows[1, 4](r, x)
    np.testing.assert_allclose(r, np.exp(x), rtol=1e-15)


@cuda.jit
def mismatched(r, x):
    np.sin(x, r)


def test_shapes_that_do_not_broadcast_raise_value_error():
    with pytest.raises(ValueError, match="could not be broadcast"):
        mismatched[1, 1](np.zeros(3), np.zeros(4))


def no_out(x):
    return np.sin(x)


def float_into_int(x, r):
    np.sin(x, r)


def too_many_dimensions(x, r):
    np.cos(x, r)


@pytest.mark.parametrize("fn,sig,match", [
    (no_out, (t.float64[:],), r"np.sin of an array needs an array to write into, as in np.sin\(x, out\)"),
    (float_into_int, (t.float64[:], t.int32[:]), "cannot write its float64 results into out's int32"),
    (too_many_dimensions, (t.float64[:, :], t.float64[:]), "has more dimensions than out"),
])
def test_what_numpy_would_refuse_is_a_typing_error(fn, sig, match):
    with pytest.raises(cuda.TypingError, match=match):
        cuda.compile_ptx(fn, sig, device=True)
