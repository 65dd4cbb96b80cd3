"""Basic indexing and assignment, checked against NumPy on the same data.

Device arrays take integers, slices (any step), ``...`` and ``None``;
advanced indexing (integer or boolean arrays) raises IndexError.
"""

import warnings

import numpy as np
import pytest

from cuforge import cuda

SHAPES = [(0,), (1,), (9,), (4, 5), (1, 6), (3, 0, 2), (3, 4, 5), (2, 3, 1, 4)]


def random_slice(rng, n):
    def bound():
        return None if rng.random() < 0.45 else int(rng.integers(-n - 2, n + 3))

    step = [None, 1, 2, 3, -1, -2, -3, 7, -7][rng.integers(0, 9)]
    return slice(bound(), bound(), step)


def random_item(rng, n, allow_int=True):
    if allow_int and n > 0 and rng.random() < 0.45:
        return int(rng.integers(-n, n))
    return random_slice(rng, n)


def random_key(rng, shape, allow_int=True):
    """A random basic index valid for `shape`: items for some leading axes,
    maybe an Ellipsis and items for trailing axes, maybe new axes."""
    ndim = len(shape)
    k = int(rng.integers(0, ndim + 1))
    use_ellipsis = rng.random() < 0.3
    before = int(rng.integers(0, k + 1)) if use_ellipsis else k
    axes = list(range(before)) + list(range(ndim - (k - before), ndim))
    items = [random_item(rng, shape[a], allow_int) for a in axes]
    if use_ellipsis:
        items.insert(before, Ellipsis)
    for _ in range(int(rng.integers(0, 3)) if rng.random() < 0.3 else 0):
        items.insert(int(rng.integers(0, len(items) + 1)), None)
    if len(items) == 1 and rng.random() < 0.5:
        return items[0]
    return tuple(items)


def check_getitem(d, host, key):
    want = host[key]
    got = d[key]
    if isinstance(want, np.ndarray):
        assert isinstance(got, cuda.DeviceNDArray), key
        assert got.shape == want.shape, key
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.copy_to_host(), want, err_msg=repr(key))
    else:
        assert type(got) is type(want), key
        assert got == want, key


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_random_getitem_matches_numpy(rng, shape):
    host = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape) * 3 - 7
    d = cuda.to_device(host)
    for _ in range(60):
        check_getitem(d, host, random_key(rng, shape))


@pytest.mark.parametrize("shape", [(9,), (4, 5), (3, 4, 5)], ids=str)
def test_random_views_of_views_match_numpy(rng, shape):
    host = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    for _ in range(20):
        d, h = cuda.to_device(host), host
        for _ in range(3):
            key = random_key(rng, h.shape, allow_int=h.ndim > 1)
            d, h = d[key], h[key]
            if not isinstance(h, np.ndarray):
                break
        if isinstance(h, np.ndarray):
            assert d.shape == h.shape
            np.testing.assert_array_equal(d.copy_to_host(), h)
        else:
            assert d == h


def test_out_of_range_integers_raise_index_error_like_numpy(rng):
    host = np.zeros((4, 5))
    d = cuda.to_device(host)
    for key in [4, -5, (0, 5), (0, -6), (Ellipsis, 5), (None, 4), (1, 2, 3), (0, 0, 0)]:
        with pytest.raises(IndexError):
            host[key]
        with pytest.raises(IndexError):
            d[key]
        with pytest.raises(IndexError):
            d[key] = 1


def test_huge_slice_bounds_saturate_like_numpy():
    host = np.arange(10)
    d = cuda.to_device(host)
    big = 1 << 70
    for key in [slice(0, big), slice(-big, 3), slice(None, None, big), slice(None, None, -big),
                slice(big, -big, -1), slice(-big, big, 3), slice(2, None, 1 << 63)]:
        check_getitem(d, host, key)


def test_an_integer_index_past_64_bits_raises_index_error():
    """NumPy raises OverflowError ("Python int too large to convert to C
    long"); cuforge says IndexError, the error for an index out of range."""
    d = cuda.to_device(np.arange(10))
    for key in [1 << 63, -(1 << 63) - 1, (0, 1 << 80)]:
        with pytest.raises(IndexError):
            d[key]


def test_numpy_integer_indices_and_zero_d_integer_arrays():
    host = np.arange(24).reshape(4, 6)
    d = cuda.to_device(host)
    for key in [np.int64(2), (np.int8(-1), np.uint16(3)), np.array(1), (np.array(-2), slice(None)),
                slice(np.int32(1), np.int64(5), np.int16(2))]:
        check_getitem(d, host, key)


DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
          np.float16, np.float32, np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_element_getitem_returns_a_numpy_scalar_of_the_dtype(sample, dtype):
    host = sample((3, 4), dtype)
    d = cuda.to_device(host)
    for key in [(0, 0), (2, -1), (-3, 2)]:
        got = d[key]
        assert type(got) is np.dtype(dtype).type
        assert got == host[key]
    z = cuda.to_device(host[1, 2].copy().reshape(()))
    assert type(z[()]) is np.dtype(dtype).type and z[()] == host[1, 2]
    assert isinstance(z[...], cuda.DeviceNDArray) and z[...].shape == ()


def test_getitem_and_setitem_on_a_stream():
    s = cuda.stream()
    d = cuda.to_device(np.arange(12).reshape(3, 4), stream=s)
    d.setitem((1, slice(None)), [9, 8, 7, 6], stream=s)
    assert d.getitem((1, 2), stream=s) == 7
    row = d.getitem(1, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(row.copy_to_host(stream=s), [9, 8, 7, 6])


TARGET_DTYPES = [np.float64, np.int32, np.uint8, np.bool_, np.complex64, np.float16]


def random_value(rng, shape, target_dtype):
    """A value to assign to a view of `shape`: a Python or NumPy scalar, a
    list, or a host or device array of a broadcastable shape, of the
    target's dtype or another."""
    choice = rng.integers(0, 6)
    if choice == 0:
        scalars = [int(rng.integers(0, 100)), float(rng.integers(0, 100)) / 4, bool(rng.random() < 0.5)]
        return scalars[rng.integers(0, 3)]
    if choice == 1:
        return np.dtype([np.int16, np.float32, np.uint8][rng.integers(0, 3)]).type(rng.integers(0, 100))
    # An array: the view's shape with some axes cut to 1, some leading ones
    # dropped (NumPy broadcasting), maybe extra leading 1s.
    vshape = [1 if rng.random() < 0.3 else n for n in shape]
    vshape = vshape[int(rng.integers(0, len(vshape) + 1)):]
    if rng.random() < 0.2:
        vshape = [1] + vshape
    dtype = target_dtype if rng.random() < 0.5 else [np.int64, np.float32, np.int8][rng.integers(0, 3)]
    arr = (rng.integers(0, 100, size=vshape)).astype(dtype)
    if choice == 2:
        return arr.tolist() if arr.ndim else arr
    if choice == 3 and arr.ndim >= 2:
        return np.asfortranarray(arr)
    if choice == 4:
        return cuda.to_device(arr)
    return arr


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("dtype", TARGET_DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("shape", [(7,), (4, 5), (3, 4, 2)], ids=str)
def test_random_setitem_matches_numpy(rng, shape, dtype):
    host = (np.arange(int(np.prod(shape))) % 50).astype(dtype).reshape(shape)
    d = cuda.to_device(host)
    for _ in range(40):
        key = random_key(rng, shape)
        target = host[key]
        tshape = np.shape(target)
        value = random_value(rng, tshape, dtype)
        host_value = value.copy_to_host() if isinstance(value, cuda.DeviceNDArray) else value
        if not isinstance(target, np.ndarray) and np.ndim(host_value) != 0:
            value = host_value = 5  # an element takes a scalar (the error has its own test)
        try:
            host[key] = host_value
        except (ValueError, OverflowError, TypeError) as e:
            with pytest.raises(type(e)):
                d[key] = value
        else:
            d[key] = value
        np.testing.assert_array_equal(d.copy_to_host(), host, err_msg=f"{key!r} = {value!r}")


def test_setitem_from_a_scalar_fills_any_view():
    host = np.zeros((5, 6), np.int16)
    d = cuda.to_device(host)
    for key, value in [((slice(None), 2), 7), ((slice(None, None, -2), slice(1, None, 3)), -4), (Ellipsis, 3),
                       ((1, None, slice(2, 4)), np.float64(9.9)), ((), 1), ((4, 5), 2)]:
        host[key] = value
        d[key] = value
        np.testing.assert_array_equal(d.copy_to_host(), host)


def test_setitem_converts_dtypes_as_numpy_does():
    d = cuda.to_device(np.zeros(4, np.int32))
    d[:] = np.array([1.9, -1.9, 2.5, 300.7])
    np.testing.assert_array_equal(d.copy_to_host(), [1, -1, 2, 300])
    d[:] = cuda.to_device(np.array([True, False, True, True]))
    np.testing.assert_array_equal(d.copy_to_host(), [1, 0, 1, 1])
    b = cuda.device_array(3, np.bool_)
    b[:] = [0, 2, -1]
    np.testing.assert_array_equal(b.copy_to_host(), [False, True, True])
    h = cuda.device_array(2, np.float16)
    h[0] = "1.5"  # NumPy parses strings assigned to numbers
    assert h[0] == np.float16(1.5)


def test_setitem_rejects_what_numpy_rejects():
    for target_dtype, value, exc in [(np.int8, 1000, OverflowError), (np.uint8, -1, OverflowError),
                                     (np.int8, [1, 2, 1000, 4], OverflowError), (np.int32, np.nan, ValueError),
                                     (np.float64, "abc", ValueError)]:
        host = np.zeros(4, target_dtype)
        with pytest.raises(exc):
            host[:] = value
        d = cuda.to_device(host)
        with pytest.raises(exc):
            d[:] = value
        np.testing.assert_array_equal(d.copy_to_host(), host)


def test_setitem_broadcast_failures_raise_value_error():
    d = cuda.to_device(np.zeros((3, 4)))
    for value in [np.zeros(3), np.zeros((2, 4)), np.zeros((2, 3, 4)), [1, 2], cuda.to_device(np.zeros(3)),
                  cuda.to_device(np.zeros((3, 4), np.int32))[:2]]:
        with pytest.raises(ValueError):
            np.zeros((3, 4))[:] = value.copy_to_host() if isinstance(value, cuda.DeviceNDArray) else value
        with pytest.raises(ValueError, match="broadcast"):
            d[:] = value
    with pytest.raises(ValueError, match="sequence"):
        d[1, 2] = np.array([1.0])  # NumPy: setting an array element with a sequence


def test_setitem_from_device_arrays_same_and_other_dtype(sample):
    host = sample((4, 6), np.float32)
    d = cuda.to_device(host)
    src = sample((4, 3), np.float32)
    d[:, ::2] = cuda.to_device(src)
    host[:, ::2] = src
    np.testing.assert_array_equal(d.copy_to_host(), host)
    col = np.arange(4, dtype=np.int64).reshape(4, 1)
    d[:, 1::2] = cuda.to_device(col)  # int64 -> float32, broadcast along the columns
    host[:, 1::2] = col
    np.testing.assert_array_equal(d.copy_to_host(), host)


def test_writes_through_a_view_reach_the_parent():
    d = cuda.to_device(np.zeros((4, 4), np.int64))
    v = d[1:3, ::-1]
    v[0] = [1, 2, 3, 4]
    t = d.T
    t[0, 3] = 9
    want = np.zeros((4, 4), np.int64)
    want[1, ::-1] = [1, 2, 3, 4]
    want[3, 0] = 9
    np.testing.assert_array_equal(d.copy_to_host(), want)


@pytest.mark.parametrize("key", [np.array([0, 2]), [0, 2], np.array([True, False, True, False]),
                                 (slice(None), np.array([1])), (0, [1, 2]), np.array([[0]]),
                                 True, np.True_, 1.0, "a", (slice(None), 1.5)],
                         ids=["int-array", "int-list", "bool-mask", "int-array-axis1", "list-axis1",
                              "2d-int-array", "True", "np.True_", "float", "str", "float-axis1"])
def test_advanced_and_invalid_indices_raise_index_error(key):
    d = cuda.to_device(np.zeros((4, 3)))
    with pytest.raises(IndexError):
        d[key]
    with pytest.raises(IndexError):
        d[key] = 1.0


def test_malformed_indices():
    d = cuda.to_device(np.zeros((4, 3)))
    with pytest.raises(IndexError, match="ellipsis"):
        d[..., 0, ...]
    with pytest.raises(IndexError, match="too many"):
        d[0, 0, 0]
    with pytest.raises(ValueError, match="step"):
        d[::0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert d[:, None, 1:].shape == (4, 1, 2)
