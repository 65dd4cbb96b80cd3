"""cuda.reduce / cuda.Reduce (numba-cuda's) and cuda.scan / cuda.Scan
(cuforge/cuda/_reduce.py): equal to NumPy for sum, min, max, product and a
user-defined operation over each dtype at sizes around powers of two, with
numba-cuda's conventions (init combined at the end, an empty array gives
init); both engines, the GPU kernels forced onto the cpu backend for small
sizes; lambdas as the binary function."""

import math

import numpy as np
import pytest

from cuforge import cuda

DTYPES = [np.float32, np.float64, np.int32, np.int64]
SIZES = [1, 2, 255, 256, 257, 1023, 1024, 1025, 65535, 65536, 65537, 1 << 20, 3_000_001]


def add(a, b):
    return a + b


def smaller(a, b):
    return min(a, b)


def larger(a, b):
    return max(a, b)


def times(a, b):
    return a * b


def sum_of_abs(a, b):  # user-defined: a "norm-like" fold
    return abs(a) + abs(b)


def data(dtype, n, seed=0):
    rng = np.random.default_rng(seed + n)
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-10, 10, n).astype(dtype)
    return rng.integers(-1000, 1000, n).astype(dtype)


def close(got, want, dtype):
    if np.dtype(dtype).kind == "f":
        tol = 1e-4 if dtype == np.float32 else 1e-10
        return math.isclose(float(got), float(want), rel_tol=tol, abs_tol=tol)
    return got == want


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_reductions_equal_numpys(dtype, n):
    a = data(dtype, n)
    wide = a.astype(np.float64 if np.dtype(dtype).kind == "f" else np.int64)
    assert close(cuda.reduce(add)(a), wide.sum(), dtype)
    assert cuda.Reduce(smaller)(a, init=a[0]) == a.min()
    assert cuda.Reduce(larger)(a, init=a[0]) == a.max()
    assert close(cuda.reduce(sum_of_abs)(a), np.abs(wide).sum(), dtype)
    ones = np.where(np.arange(n) % 7 == 0, -1, 1).astype(dtype)  # a product that neither over- nor underflows
    assert cuda.reduce(times)(ones, init=1) == np.prod(ones.astype(np.int64))


def test_numba_conventions():
    s = cuda.reduce(add)
    assert s(np.zeros(0)) == 0.0 and s(np.zeros(0), init=5) == 5.0  # an empty array gives init
    assert s(np.arange(10), init=100) == 145  # init is combined with the result
    assert cuda.Reduce(times)(np.full(5, 2.0)) == 0.0  # init 0 by default: numba-cuda's too
    assert cuda.Reduce(larger)(np.array([-3.0, -1.0])) == 0.0  # max(-1, init 0)
    assert s(np.arange(100), size=10) == 45
    assert type(s(np.arange(4, dtype=np.int32))) is np.int32


def test_device_arrays_res_and_streams():
    s = cuda.reduce(add)
    d = cuda.to_device(np.arange(100000, dtype=np.int64))
    assert s(d) == 100000 * 99999 // 2
    res = cuda.device_array(1, dtype=np.int64)
    assert s(d, res=res) is None and res.copy_to_host()[0] == 100000 * 99999 // 2
    st = cuda.stream()
    assert s(d, init=1, stream=st) == 100000 * 99999 // 2 + 1


def test_lambdas_as_the_binary_function():
    total = cuda.reduce(lambda a, b: a + b)
    low, high = cuda.Reduce(lambda a, b: min(a, b)), cuda.Reduce(lambda a, b: max(a, b))
    largest = cuda.reduce(
        lambda a, b: a if a > b else b)  # (a lambda whose statement spans lines)
    x = np.arange(1, 1001, dtype=np.float64)
    assert total(x) == x.sum()
    assert low(x, init=x[0]) == 1.0 and high(x, init=x[0]) == 1000.0
    assert largest(x, init=x[0]) == 1000.0


@pytest.mark.parametrize("n", [1, 2, 255, 256, 257, 70000, 1 << 20])
def test_scans(n):
    sc = cuda.scan(add)
    a = data(np.int64, n)
    assert np.array_equal(sc(a), np.cumsum(a))
    assert np.array_equal(sc(a, init=10), 10 + np.cumsum(a))
    ex = sc(a, exclusive=True, init=0)
    assert ex[0] == 0 and np.array_equal(ex[1:], np.cumsum(a)[:-1])
    m = cuda.Scan(larger)(a)
    assert np.array_equal(m, np.maximum.accumulate(a))
    d = cuda.to_device(a)
    out = sc(d)
    assert isinstance(out, cuda.DeviceNDArray) and np.array_equal(out.copy_to_host(), np.cumsum(a))
    sc(d, out=d, exclusive=True, init=0)  # in place, exclusive: the input is read before it is overwritten
    assert np.array_equal(d.copy_to_host()[1:], np.cumsum(a)[:-1])


@pytest.mark.parametrize("n", [1, 2, 255, 256, 257, 1000, 70000])
def test_gpu_kernels_on_the_cpu_backend(n, monkeypatch):
    # The GPU engine's kernels (grid-stride partials, block trees, tiled scans) run on any backend: forced
    # here, at sizes the fiber engine runs quickly.
    monkeypatch.setattr(cuda, "backend", lambda: "cuda")
    a = data(np.int64, n)
    assert cuda.reduce(add)(a, init=3) == a.sum() + 3
    assert cuda.Reduce(smaller)(a, init=a[0]) == a.min()
    sc = cuda.scan(add)
    assert np.array_equal(sc(a), np.cumsum(a))
    assert np.array_equal(sc(a, exclusive=True, init=7), np.concatenate([[7], 7 + np.cumsum(a)[:-1]]))
    f = data(np.float32, n)
    assert close(cuda.reduce(add)(f), f.astype(np.float64).sum(), np.float32)


def test_bad_input():
    s = cuda.reduce(add)
    with pytest.raises(TypeError, match="only support 1D"):
        s(np.zeros((2, 2)))
    with pytest.raises(TypeError, match="binary function"):
        cuda.Reduce(lambda a: a)
    with pytest.raises(TypeError, match="binary function"):
        cuda.Reduce(3)
    with pytest.raises(ValueError, match="size"):
        s(np.zeros(3), size=-1)
    with pytest.raises(TypeError, match="res must be a device array"):
        s(np.zeros(3), res=np.zeros(1))
    with pytest.raises(cuda.TypingError, match="dicts"):
        cuda.reduce(lambda a, b: {})(np.zeros(3))
    with pytest.raises(TypeError, match="cannot reduce arrays of"):
        s(np.array(["x", "y"]))
    with pytest.raises(ValueError, match="exclusive scan needs init"):
        cuda.scan(add)(np.zeros(3), exclusive=True)
