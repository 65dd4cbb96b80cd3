"""Host <-> device transfers: to_device, copy_to_host, copy_to_device.

Every dtype, every rank the suite checks (0-d to 3-D, empty), C and F
order, and host arrays of any layout. Numba refuses non-contiguous host
arrays ("Array contains non-contiguous buffer"); cuforge copies them, a
deliberate superset.
"""

import numpy as np
import pytest

from cuforge import cuda

DTYPES = [
    np.bool_,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
    np.complex64,
    np.complex128,
]

SHAPES = [(), (0,), (7,), (3, 5), (2, 3, 4), (4, 0, 3)]


def assert_same(got, want):
    """Same dtype, shape and values."""
    assert isinstance(got, np.ndarray)
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_round_trip_every_dtype_and_rank(sample, dtype, shape):
    host = sample(shape, dtype)
    d = cuda.to_device(host)
    assert d.dtype == np.dtype(dtype)
    assert d.shape == shape
    assert_same(d.copy_to_host(), host)


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float64, np.complex128], ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("shape", [(5, 6), (2, 3, 4), (1, 7), (7, 1)], ids=str)
def test_fortran_order_round_trip_keeps_the_layout(sample, dtype, shape):
    host = np.asfortranarray(sample(shape, dtype))
    d = cuda.to_device(host)
    assert d.is_f_contiguous()
    assert d.strides == host.strides
    out = d.copy_to_host()
    assert_same(out, host)
    assert out.flags.f_contiguous


NON_CONTIGUOUS = {
    "step": lambda a: a[::3],
    "negative-step": lambda a: a[::-1],
    "negative-step-2": lambda a: a[-2::-4],
    "2d-transpose": lambda a: a.reshape(6, 10).T,
    "2d-step-rows-cols": lambda a: a.reshape(6, 10)[1::2, ::3],
    "2d-negative-cols": lambda a: a.reshape(6, 10)[:, ::-2],
    "2d-sliced-transpose": lambda a: a.reshape(6, 10)[1:, 2:9].T,
    "3d-mixed": lambda a: a.reshape(3, 4, 5)[::2, ::-1, 1::2],
    "3d-transposed": lambda a: a.reshape(3, 4, 5).transpose(1, 2, 0),
    "3d-axis-swap-negative": lambda a: a.reshape(3, 4, 5)[:, ::-1].swapaxes(0, 2),
    "broadcast": lambda a: np.broadcast_to(a[:5], (4, 5)),
}


@pytest.mark.parametrize("make", NON_CONTIGUOUS.values(), ids=NON_CONTIGUOUS.keys())
@pytest.mark.parametrize("dtype", [np.int16, np.float64, np.complex64], ids=lambda t: np.dtype(t).name)
def test_non_contiguous_host_arrays_go_up_by_value(sample, dtype, make):
    """Numba raises ValueError for these; cuforge copies them (deliberate)."""
    host = make(sample(60, dtype))
    assert not (host.flags.c_contiguous and host.flags.f_contiguous)
    d = cuda.to_device(host)
    assert d.shape == host.shape
    assert_same(d.copy_to_host(), np.ascontiguousarray(host))


def test_large_strided_round_trip(rng):
    # Past one block of the strided copy kernel many times over.
    host = rng.standard_normal((700, 900)).astype(np.float32)[::3, ::-2].T
    d = cuda.to_device(host)
    assert_same(d.copy_to_host(), np.ascontiguousarray(host))
    assert_same(d[::-1, 5:].copy_to_host(), np.ascontiguousarray(host[::-1, 5:]))


def test_to_device_copy_false_allocates_without_copying_the_shape_of_the_source(sample):
    host = np.asfortranarray(sample((4, 6), np.int32))
    d = cuda.to_device(host, copy=False)
    assert (d.shape, d.strides, d.dtype) == (host.shape, host.strides, host.dtype)
    d.copy_to_device(host)
    assert_same(d.copy_to_host(), host)


def test_to_device_to_existing_array_copies_into_it_and_returns_it(sample):
    dst = cuda.device_array((3, 4), np.float32)
    host = sample((3, 4), np.float32)
    assert cuda.to_device(host, to=dst) is dst
    assert_same(dst.copy_to_host(), host)

    src = cuda.to_device(sample((3, 4), np.float32))
    assert cuda.to_device(src, to=dst) is dst
    assert_same(dst.copy_to_host(), src.copy_to_host())


def test_to_device_of_a_device_array_returns_it_uncopied():
    d = cuda.to_device(np.arange(5))
    assert cuda.to_device(d) is d
    s = cuda.stream()
    assert cuda.to_device(d, stream=s) is d


@pytest.mark.parametrize("order", ["C", "F"])
def test_copy_to_host_into_a_given_contiguous_array(sample, order):
    host = sample((5, 7), np.float64)
    d = cuda.to_device(host)
    out = np.zeros((5, 7), order=order)
    assert d.copy_to_host(out) is out
    assert_same(out, host)
    # And from an F device array into either layout.
    out2 = np.zeros((5, 7), order=order)
    cuda.to_device(np.asfortranarray(host)).copy_to_host(out2)
    assert_same(out2, host)


def test_copy_to_host_into_a_strided_view_writes_only_the_view(sample):
    host = sample((4, 6), np.int32)
    d = cuda.to_device(host)
    big = np.full((8, 18), -1, dtype=np.int32)
    view = big[::2, ::3]
    assert d.copy_to_host(view) is view
    assert_same(big[::2, ::3], host)
    mask = np.ones(big.shape, bool)
    mask[::2, ::3] = False
    assert (big[mask] == -1).all()


def test_copy_to_host_of_non_contiguous_views_into_given_arrays(sample):
    host = sample((6, 8), np.complex64)
    d = cuda.to_device(host)
    for key in [(slice(None, None, -1), slice(1, None, 2)), (slice(None), 3), (slice(1, 5), slice(None, None, -3))]:
        want = host[key]
        strided = np.empty(tuple(2 * n for n in want.shape), want.dtype)[(slice(None, None, 2),) * want.ndim]
        for out in [np.empty(want.shape, want.dtype), np.empty(want.shape, want.dtype, order="F"), strided[..., ::-1]]:
            d[key].copy_to_host(out)
            assert_same(out, want)


def test_copy_to_host_accepts_shapes_differing_in_extent_one_axes():
    """As numba (its check compares squeezed shapes): (5,) into (5, 1)."""
    d = cuda.to_device(np.arange(5.0))
    out = np.zeros((5, 1))
    d.copy_to_host(out)
    assert_same(out, np.arange(5.0).reshape(5, 1))
    out = np.zeros((1, 5, 1))
    d.copy_to_host(out)
    assert_same(out.ravel(), np.arange(5.0))


@pytest.mark.parametrize("dst_order", ["C", "F"])
def test_copy_to_device_from_host_arrays_of_any_layout(sample, dst_order):
    d = cuda.device_array((6, 10), np.int16, order=dst_order)
    base = sample((12, 20), np.int16)
    for src in [base[:6, :10], np.asfortranarray(base[:6, :10]), base[::2, ::-2], base[6:, 10:].T.T]:
        d.copy_to_device(src)
        assert_same(d.copy_to_host(), np.ascontiguousarray(src))


def test_copy_to_device_from_device_arrays_of_any_layout(sample):
    host = sample((6, 10), np.float32)
    d = cuda.device_array((6, 10), np.float32)
    for src in [cuda.to_device(host), cuda.to_device(np.asfortranarray(host)),
                cuda.to_device(sample((12, 20), np.float32))[::2, ::-2]]:
        d.copy_to_device(src)
        assert_same(d.copy_to_host(), src.copy_to_host())


def test_copy_to_device_into_a_view_leaves_the_rest(sample):
    host = sample((4, 4), np.int64)
    d = cuda.to_device(host)
    d[1:3, ::2].copy_to_device(np.array([[7, 8], [9, 10]]))
    want = host.copy()
    want[1:3, ::2] = [[7, 8], [9, 10]]
    assert_same(d.copy_to_host(), want)


def test_lists_and_scalars_go_through_np_asarray():
    for obj in [[[1, 2], [3, 4]], [1.5, 2.5], [True, False, True], 3.5, 7, True, 1 + 2j,
                np.float32(2.5), np.uint16(9), [], range(5)]:
        want = np.asarray(obj)
        assert_same(cuda.to_device(obj).copy_to_host(), want)


def test_copy_to_device_converts_lists_and_scalars_to_the_array_dtype():
    """Host arrays must match the dtype (TypeError, as numba); a list or a
    scalar has none of its own, so it takes the array's, by NumPy's rules."""
    d = cuda.device_array(4, np.float32)
    d.copy_to_device([1, 2, 3, 4])
    assert_same(d.copy_to_host(), np.array([1, 2, 3, 4], np.float32))
    cuda.to_device((5, 6, 7, 8), to=d)
    assert_same(d.copy_to_host(), np.array([5, 6, 7, 8], np.float32))
    z = cuda.device_array((), np.int8)
    z.copy_to_device(-3)
    assert z.copy_to_host() == -3
    with pytest.raises(OverflowError):
        z.copy_to_device(1000)  # NumPy: Python integer 1000 out of bounds for int8


def test_transfers_on_a_stream(sample):
    s = cuda.stream()
    host = sample((64, 33), np.float64)
    d = cuda.to_device(host, stream=s)
    assert d.stream is s
    out = np.empty_like(host)
    d.copy_to_host(out, stream=s)
    s.synchronize()
    assert_same(out, host)
    d2 = cuda.device_array_like(host, stream=s)
    d2.copy_to_device(d, stream=s)
    res = d2.copy_to_host(stream=s)
    s.synchronize()
    assert_same(res, host)


def test_a_temporary_host_source_may_go_away_after_an_async_copy():
    # A pageable source is done with when to_device returns, even on a
    # stream: the list's temporary array is freed right after.
    s = cuda.stream()
    arrays = [cuda.to_device(list(range(i, i + 1000)), stream=s) for i in range(20)]
    s.synchronize()
    for i, d in enumerate(arrays):
        assert_same(d.copy_to_host(), np.arange(i, i + 1000))


def test_device_to_device_copy_between_overlapping_views():
    d = cuda.to_device(np.arange(10))
    d[1:] = d[:-1]
    assert_same(d.copy_to_host(), np.array([0, 0, 1, 2, 3, 4, 5, 6, 7, 8]))
    d = cuda.to_device(np.arange(10))
    d[:-1] = d[1:]
    assert_same(d.copy_to_host(), np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 9]))
    d = cuda.to_device(np.arange(10))
    d[:] = d[::-1]
    assert_same(d.copy_to_host(), np.arange(10)[::-1])
