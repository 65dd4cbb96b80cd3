"""Tuples as kernel arguments: the NumPy arrays inside go to the device and
come back like top-level ones (they once reached the kernel as null
pointers)."""

import numpy as np

from cuforge import cuda


@cuda.jit
def _sum_pair(t, out):
    a, b = t
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


@cuda.jit
def _fill_pair(t, src):
    a, b = t
    i = cuda.grid(1)
    if i < src.size:
        a[i] = src[i] * 2
        b[i] = src[i] + 1


def test_numpy_arrays_inside_a_tuple_are_read():
    a, b, out = np.arange(10.0), np.ones(10), np.zeros(10)
    _sum_pair[1, 32]((a, b), out)
    np.testing.assert_array_equal(out, a + 1)


def test_numpy_arrays_inside_a_tuple_are_written_back():
    a, b, src = np.zeros(10), np.zeros(10), np.arange(10.0)
    _fill_pair[1, 32]((a, b), src)
    np.testing.assert_array_equal(a, src * 2)
    np.testing.assert_array_equal(b, src + 1)


def test_a_tuple_may_mix_device_and_host_arrays():
    a = np.arange(5.0)
    d_b = cuda.to_device(np.full(5, 10.0))
    out = np.zeros(5)
    _sum_pair[1, 32]((a, d_b), out)
    np.testing.assert_array_equal(out, a + 10)
