"""DeviceNDArray's surface (attributes, views, reshape, transpose, split,
bind, dtype views, squeeze) and the array-making functions (device_array,
device_array_like), each checked against NumPy on the same data."""

import time

import numpy as np
import pytest

from cuforge import cuda

LAYOUTS = {
    "1d": lambda: np.arange(7, dtype=np.float32),
    "2d-C": lambda: np.arange(12, dtype=np.int16).reshape(3, 4),
    "2d-F": lambda: np.asfortranarray(np.arange(12, dtype=np.int16).reshape(3, 4)),
    "3d": lambda: np.arange(24, dtype=np.complex128).reshape(2, 3, 4),
    "0d": lambda: np.array(5, dtype=np.uint32),
    "empty": lambda: np.zeros((3, 0), dtype=np.float64),
}


@pytest.mark.parametrize("make", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_attributes_match_numpy(make):
    host = make()
    d = cuda.to_device(host)
    assert d.shape == host.shape and isinstance(d.shape, tuple)
    assert isinstance(d.strides, tuple) and len(d.strides) == host.ndim
    if host.size:  # an empty array's strides are arbitrary (NumPy 2 makes them 0)
        assert d.strides == host.strides
    assert d.dtype == host.dtype and isinstance(d.dtype, np.dtype)
    assert (d.size, d.nbytes, d.ndim, d.itemsize) == (host.size, host.nbytes, host.ndim, host.itemsize)
    assert d.alloc_size == host.nbytes  # numba's: what the elements span
    if host.ndim:
        assert len(d) == len(host)
    else:
        with pytest.raises(TypeError):
            len(d)
    assert d.is_c_contiguous() == host.flags.c_contiguous
    assert d.is_f_contiguous() == host.flags.f_contiguous
    assert d.flags["C_CONTIGUOUS"] == host.flags.c_contiguous
    assert d.flags["F_CONTIGUOUS"] == host.flags.f_contiguous
    assert cuda.is_cuda_array(d) and not cuda.is_cuda_array(host)


def test_repr_names_shape_and_dtype():
    r = repr(cuda.device_array((2, 3), np.int16))
    assert "DeviceNDArray" in r and "(2, 3)" in r and "int16" in r


def test_alloc_size_of_views_is_the_span_of_their_elements():
    """numba computes alloc_size from the view's shape and strides."""
    d = cuda.to_device(np.arange(10.0))
    assert d[::2].alloc_size == (5 - 1) * 16 + 8
    assert d[3:5].alloc_size == 16
    assert d[5:5].alloc_size == 0
    assert cuda.device_array((2, 3), strides=(64, 8)).alloc_size == 64 + 3 * 8


@pytest.mark.parametrize("order", ["C", "F"])
def test_contiguity_of_views(order):
    host = np.zeros((4, 6), order=order)
    d = cuda.to_device(host)
    for key in [(slice(None), slice(None, 3)), (slice(1, 3),), (slice(None, None, 2),), (0,), (slice(None), 0),
                (None, slice(None)), (slice(None, None, -1),)]:
        v, h = d[key], host[key]
        assert (v.is_c_contiguous(), v.is_f_contiguous()) == (h.flags.c_contiguous, h.flags.f_contiguous), key
    assert d.T.is_c_contiguous() == host.T.flags.c_contiguous
    assert d.T.is_f_contiguous() == host.T.flags.f_contiguous


def test_reshape_matches_numpy_and_shares_memory_when_contiguous():
    host = np.arange(24, dtype=np.int32)
    d = cuda.to_device(host)
    for args, kw in [(((4, 6),), {}), ((4, 6), {}), ((-1, 4), {}), ((2, -1, 3), {}), (((24,),), {}),
                     ((4, 6), {"order": "F"}), ((2, 3, 4), {"order": "F"}), ((-1,), {"order": "A"})]:
        r, h = d.reshape(*args, **kw), host.reshape(*args, **kw)
        assert r.shape == h.shape
        np.testing.assert_array_equal(r.copy_to_host(), h)
    r = d.reshape(4, 6)
    r[1, 2] = -1
    assert d[8] == -1
    f = cuda.to_device(np.asfortranarray(np.arange(12).reshape(3, 4)))
    rf = f.reshape((4, 3), order="F")
    np.testing.assert_array_equal(rf.copy_to_host(), np.arange(12).reshape(3, 4).reshape((4, 3), order="F"))
    rf[0, 0] = 100
    assert f[0, 0] == 100


def test_reshape_of_a_non_contiguous_view_copies():
    """numba raises NotImplementedError("operation requires copying");
    cuforge copies, as NumPy does (deliberate superset)."""
    host = np.arange(24).reshape(4, 6)[:, ::2]
    d = cuda.to_device(np.arange(24).reshape(4, 6))[:, ::2]
    np.testing.assert_array_equal(d.reshape(12).copy_to_host(), host.reshape(12))
    np.testing.assert_array_equal(d.reshape(3, 4, order="F").copy_to_host(), host.reshape(3, 4, order="F"))


def test_reshape_errors():
    d = cuda.device_array(12)
    for args in [(5,), (5, -1), (-1, -1), (0, -1)]:
        with pytest.raises(ValueError):
            np.zeros(12).reshape(*args)
        with pytest.raises(ValueError):
            d.reshape(*args)


def test_ravel_matches_numpy():
    for host in [np.arange(12).reshape(3, 4), np.asfortranarray(np.arange(12).reshape(3, 4)),
                 np.arange(24).reshape(2, 3, 4)[:, ::2]]:
        d = cuda.to_device(host) if host.flags.c_contiguous or host.flags.f_contiguous else \
            cuda.to_device(np.arange(24).reshape(2, 3, 4))[:, ::2]
        for order in "CFA":
            np.testing.assert_array_equal(d.ravel(order).copy_to_host(), host.ravel(order))
    d = cuda.to_device(np.arange(6).reshape(2, 3))
    r = d.ravel()
    r[4] = 40  # a view: the parent sees it
    assert d[1, 1] == 40


@pytest.mark.parametrize("axes", [None, (1, 0, 2), (2, 0, 1), (0, 1, 2), (-1, 0, 1)], ids=str)
def test_transpose_matches_numpy_and_is_a_view(axes):
    """numba transposes only 2-D arrays; cuforge any (a superset)."""
    host = np.arange(24).reshape(2, 3, 4)
    d = cuda.to_device(host)
    t, h = d.transpose(axes), host.transpose(axes)
    assert t.shape == h.shape and t.strides == h.strides
    np.testing.assert_array_equal(t.copy_to_host(), h)
    t[(0,) * 3] = -5
    assert d[(0,) * 3] == -5


def test_T_of_2d_and_1d():
    host = np.arange(6.0).reshape(2, 3)
    d = cuda.to_device(host)
    np.testing.assert_array_equal(d.T.copy_to_host(), host.T)
    np.testing.assert_array_equal(d.T.T.copy_to_host(), host)
    assert d.T.shape == (3, 2)
    v = cuda.to_device(np.arange(3))
    assert v.T.shape == (3,)
    with pytest.raises(ValueError):
        d.transpose((0, 0))


def test_split_gives_views_of_section_size():
    d = cuda.to_device(np.arange(10))
    parts = list(d.split(3))
    assert [p.shape for p in parts] == [(3,), (3,), (3,), (1,)]
    for i, p in enumerate(parts):
        np.testing.assert_array_equal(p.copy_to_host(), np.arange(10)[3 * i:3 * i + 3])
    parts[1][0] = 99
    assert d[3] == 99
    assert [p.shape for p in d.split(10)] == [(10,)]
    with pytest.raises(ValueError):
        d.split(0)
    with pytest.raises(ValueError):
        cuda.device_array((2, 2)).split(1)


def test_unbound_arrays_report_stream_zero():
    """numba's convention: `stream` is 0 when no stream is bound."""
    assert cuda.device_array(3).stream == 0
    assert cuda.to_device(np.arange(3)).stream == 0


def test_bind_returns_a_view_bound_to_the_stream():
    s = cuda.stream()
    d = cuda.to_device(np.arange(6))
    b = d.bind(s)
    assert b is not d and b.stream is s
    assert d.stream == 0  # the original stays unbound
    assert b[1:].stream is s and b.reshape(2, 3).stream is s and b.T.stream is s
    b[0] = 42
    assert d[0] == 42  # same memory


def test_a_bound_array_queues_its_default_operations_on_its_stream(held):
    """With the stream held back, a copy to pinned memory through the bound
    array does not happen until the stream runs."""
    s = cuda.stream()
    d = cuda.to_device(np.arange(1000, dtype=np.int64)).bind(s)
    out = cuda.pinned_array(1000, np.int64)
    out[:] = -1
    with held(s):
        d.copy_to_host(out)  # no stream given: the bound one
        time.sleep(0.05)
        assert not s.query()
        assert (out == -1).all(), "the copy ran before the stream's earlier work"
    s.synchronize()
    np.testing.assert_array_equal(out, np.arange(1000))


@pytest.mark.parametrize("new", [np.int32, np.uint32, np.float32], ids=lambda t: np.dtype(t).name)
def test_view_as_a_dtype_of_the_same_size(sample, new):
    host = sample((3, 4), np.float32)
    d = cuda.to_device(host)
    v = d.view(new)
    assert v.dtype == np.dtype(new) and v.shape == host.shape
    np.testing.assert_array_equal(v.copy_to_host(), host.view(new))
    np.testing.assert_array_equal(d[:, ::2].view(new).copy_to_host(), host[:, ::2].view(new))


@pytest.mark.parametrize("src,new", [(np.float64, np.uint8), (np.float64, np.complex128), (np.int8, np.int16),
                                     (np.complex64, np.float32), (np.uint16, np.uint64)], ids=str)
def test_view_as_a_dtype_of_another_size(sample, src, new):
    host = sample((2, 8), src)
    d = cuda.to_device(host)
    v = d.view(new)
    want = host.view(new)
    assert v.shape == want.shape and v.strides == want.strides
    np.testing.assert_array_equal(v.copy_to_host(), want)


def test_view_errors():
    with pytest.raises(ValueError):
        cuda.device_array(3, np.int8).view(np.int16)  # 3 bytes do not make int16s
    with pytest.raises(ValueError):
        cuda.device_array((4, 4), np.int32)[:, ::2].view(np.int64)  # last axis not contiguous
    with pytest.raises(TypeError):
        cuda.device_array(4, np.int32).view("U1")


@pytest.mark.parametrize("shape,axis", [((1, 3, 1, 2), None), ((1, 3, 1, 2), 0), ((1, 3, 1, 2), (0, 2)),
                                        ((1, 3, 1, 2), -2), ((1,), None), ((3,), None), ((1, 1), 1)], ids=str)
def test_squeeze_matches_numpy_and_shares_memory(shape, axis):
    host = np.arange(int(np.prod(shape))).reshape(shape)
    d = cuda.to_device(host)
    sq, h = d.squeeze(axis), host.squeeze(axis)
    assert sq.shape == h.shape
    np.testing.assert_array_equal(sq.copy_to_host(), h)
    sq[(0,) * sq.ndim] = -1
    assert d[(0,) * d.ndim] == -1


def test_squeeze_errors():
    d = cuda.device_array((1, 3))
    with pytest.raises(ValueError):
        d.squeeze(1)
    with pytest.raises(IndexError):
        d.squeeze(2)


def test_copy_is_independent():
    d = cuda.to_device(np.arange(6).reshape(2, 3))
    c = d[:, ::-1].copy()
    assert c.is_c_contiguous()
    c[0, 0] = 100
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(c.copy_to_host(), [[100, 1, 0], [5, 4, 3]])


# --- making arrays -------------------------------------------------------------


@pytest.mark.parametrize("shape,want", [(5, (5,)), ((5,), (5,)), ((2, 3), (2, 3)), ([2, 3], (2, 3)), ((), ()),
                                        ((0, 4), (0, 4)), (np.int64(3), (3,)), ((np.int32(2), np.uint8(2)), (2, 2))],
                         ids=str)
def test_device_array_shapes(shape, want):
    d = cuda.device_array(shape)
    assert d.shape == want
    assert d.dtype == np.float64  # numba's default
    if d.size:
        assert d.strides == np.empty(want).strides


@pytest.mark.parametrize("dtype,want", [(np.float32, "float32"), ("float32", "float32"), ("f4", "float32"),
                                        (float, "float64"), (int, np.dtype(int).name), (complex, "complex128"),
                                        (bool, "bool"), (np.dtype("u2"), "uint16"), ("c8", "complex64"),
                                        (np.float16, "float16"), ("=i8", "int64"), ("<u4", "uint32")], ids=str)
def test_device_array_dtypes(dtype, want):
    assert cuda.device_array(4, dtype).dtype == np.dtype(want)
    assert cuda.device_array(4, dtype=dtype).dtype == np.dtype(want)


def test_device_array_order_and_strides():
    assert cuda.device_array((2, 3), order="F").strides == (8, 16)
    assert cuda.device_array((2, 3), np.int16, order="C").strides == (6, 2)
    d = cuda.device_array((2, 3), np.int32, strides=(16, 4))
    assert d.strides == (16, 4) and not d.is_c_contiguous()
    d[:] = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(6).reshape(2, 3))
    with pytest.raises(ValueError):
        cuda.device_array(3, order="K")
    with pytest.raises(ValueError):
        cuda.device_array((2, 3), strides=(8,))
    with pytest.raises(ValueError, match="itemsize"):
        cuda.device_array(3, np.int32, strides=(6,))  # the device moves aligned items


def test_device_array_like_copies_shape_dtype_and_layout():
    for like in [np.zeros((3, 4), np.int8), np.zeros((3, 4), np.int8, order="F"), np.zeros((8, 6))[::2, ::3],
                 cuda.device_array((3, 4), np.complex64, order="F"), cuda.device_array(5, np.uint16)]:
        d = cuda.device_array_like(like)
        assert (d.shape, d.dtype) == (like.shape, like.dtype)
        f = like.flags.f_contiguous and not like.flags.c_contiguous if isinstance(like, np.ndarray) else \
            like.is_f_contiguous() and not like.is_c_contiguous()
        assert d.is_f_contiguous() if f else d.is_c_contiguous()
    s = cuda.stream()
    assert cuda.device_array_like(np.zeros(3), stream=s).stream is s


def test_device_ndarray_constructor_takes_numbas_arguments():
    d = cuda.DeviceNDArray((2, 3), (24, 8), np.float64)
    assert (d.shape, d.strides, d.dtype) == ((2, 3), (24, 8), np.dtype(np.float64))
    d[:] = 1.5
    np.testing.assert_array_equal(d.copy_to_host(), np.full((2, 3), 1.5))


def test_device_ctypes_pointer_is_numbas():
    import ctypes

    a = cuda.to_device(np.arange(10.0))
    p = a.device_ctypes_pointer
    assert isinstance(p, ctypes.c_void_p) and p.value == a._pointer != 0
    assert a[3:].device_ctypes_pointer.value - p.value == 3 * 8  # a view's own address
    assert cuda.device_array(0).device_ctypes_pointer.value is None  # numba's c_void_p(0) for no data
