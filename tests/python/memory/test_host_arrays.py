"""Host memory the device can use: pinned_array, mapped_array,
managed_array and their _like forms, and the cuda.pinned / cuda.mapped
scopes over existing NumPy arrays."""

import numpy as np
import pytest

from cuforge import _core, cuda


def kind(ary):
    return _core.host_memory_kind(ary)


# Arrays registered by the scopes are 1 MiB or more, so that each has pages
# of its own: the driver page-locks whole pages, and a second registration
# of a page fails.
N = 1 << 17


@pytest.mark.parametrize("order", ["C", "F"])
def test_pinned_array_is_a_plain_ndarray_in_pinned_memory(order):
    p = cuda.pinned_array((3, 4), np.float32, order=order)
    assert type(p) is np.ndarray  # numba's pinned_array is a plain ndarray too
    assert (p.shape, p.dtype) == ((3, 4), np.float32)
    assert p.flags.f_contiguous if order == "F" else p.flags.c_contiguous
    assert p.flags.writeable
    assert kind(p) == "pinned host"
    assert kind(p[1:, ::2]) == "pinned host"  # views too
    assert kind(np.zeros(3)) is None
    p[:] = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(cuda.to_device(p).copy_to_host(), np.arange(12).reshape(3, 4))


def test_pinned_array_defaults_and_strides():
    p = cuda.pinned_array(5)
    assert p.dtype == np.float64 and p.shape == (5,)
    s = cuda.pinned_array((2, 3), np.int16, strides=(12, 2))
    assert s.strides == (12, 2)
    s[:] = 7
    assert (s == 7).all()
    e = cuda.pinned_array((0, 3))
    assert e.size == 0 and kind(e) == "pinned host"
    for make in [cuda.pinned_array, cuda.mapped_array, cuda.managed_array]:
        with pytest.raises(ValueError, match="itemsize"):
            make((2, 3), np.int32, strides=(12, 3))  # the device moves aligned items
        with pytest.raises(ValueError, match="negative"):
            make((2, 3), np.int32, strides=(-12, 4))


def test_pinned_array_like_keeps_shape_dtype_and_layout():
    for like in [np.zeros((2, 5), np.uint8), np.zeros((2, 5), np.complex64, order="F"), np.zeros(())]:
        p = cuda.pinned_array_like(like)
        assert (p.shape, p.dtype) == (like.shape, like.dtype)
        assert p.flags.f_contiguous == like.flags.f_contiguous
        assert kind(p) == "pinned host"


# A base array, a view of it, and the strides numba-cuda 0.30's *_array_like
# functions give a new array like the view (its
# _contiguous_strides_like_array, run to record them): contiguous views keep
# their order; others get dense strides in the order of their axes' signed
# strides.
LIKE_CASES = [
    (np.zeros((6, 5)).T, lambda a: a[:, ::2], (8, 40)),
    (np.zeros((4, 6)), lambda a: a[:, ::2], (24, 8)),
    (np.zeros((4, 3)).T, lambda a: a, (8, 24)),
    (np.zeros((2, 3, 4), np.int16), lambda a: a.transpose((1, 2, 0))[:, ::2], (4, 2, 12)),
    (np.zeros(7, np.float32), lambda a: a[::3], (4,)),
    (np.zeros((4, 5)), lambda a: a[::-1, ::2], (8, 32)),
]


@pytest.mark.parametrize("base,view,strides", LIKE_CASES)
@pytest.mark.parametrize("like", ["device_array_like", "pinned_array_like", "mapped_array_like"])
@pytest.mark.parametrize("source", ["numpy", "device"])
def test_array_like_layouts_match_numba(base, view, strides, like, source):
    host = view(base)
    ary = view(cuda.to_device(base)) if source == "device" else host
    assert ary.strides == host.strides
    out = getattr(cuda, like)(ary)
    assert (out.shape, out.dtype, out.strides) == (host.shape, host.dtype, strides)


def test_pinned_memory_as_async_transfer_buffers():
    s = cuda.stream()
    src = cuda.pinned_array(10000, np.int32)
    src[:] = np.arange(10000)
    d = cuda.to_device(src, stream=s)
    dst = cuda.pinned_array_like(src)
    d.copy_to_host(dst, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(dst, np.arange(10000))


def test_mapped_array_shares_memory_with_its_device_view():
    m = cuda.mapped_array((3, 4), np.int32)
    assert isinstance(m, cuda.MappedNDArray) and isinstance(m, np.ndarray)
    assert kind(m) == "mapped host"
    m[:] = 7
    dv = m.device_view()
    assert isinstance(dv, cuda.DeviceNDArray) and (dv.shape, dv.dtype) == (m.shape, m.dtype)
    np.testing.assert_array_equal(dv.copy_to_host(), np.full((3, 4), 7))  # host write, device read
    dv[1] = 3  # device write, host read
    cuda.synchronize()
    np.testing.assert_array_equal(m[1], [3, 3, 3, 3])
    assert (m[0] == 7).all()


def test_views_of_a_mapped_array_map_the_same_memory():
    m = cuda.mapped_array(10, np.float64)
    m[:] = np.arange(10)
    sub = m[2:8:2]
    assert isinstance(sub, cuda.MappedNDArray)
    dv = sub.device_view()
    np.testing.assert_array_equal(dv.copy_to_host(), [2, 4, 6])
    dv[:] = -1
    cuda.synchronize()
    np.testing.assert_array_equal(m, [0, 1, -1, 3, -1, 5, -1, 7, 8, 9])


def test_mapped_array_like_and_options():
    like = np.zeros((4, 2), np.uint16, order="F")
    m = cuda.mapped_array_like(like)
    assert isinstance(m, cuda.MappedNDArray)
    assert (m.shape, m.dtype, m.flags.f_contiguous) == (like.shape, like.dtype, True)
    m2 = cuda.mapped_array(3, np.int8, portable=True, wc=False)
    assert kind(m2) == "mapped host"


def test_managed_array_shares_memory_with_its_device_view():
    m = cuda.managed_array((2, 5), np.float32)
    assert isinstance(m, cuda.ManagedNDArray) and isinstance(m, np.ndarray)
    assert kind(m) == "managed"
    m[:] = 1.5
    dv = m.device_view()
    np.testing.assert_array_equal(dv.copy_to_host(), np.full((2, 5), 1.5, np.float32))
    dv[:, 2] = 9
    cuda.synchronize()
    np.testing.assert_array_equal(m[:, 2], [9, 9])
    assert m[0, 0] == 1.5


def test_managed_array_attached_to_one_stream_is_not_offered():
    with pytest.raises(NotImplementedError):
        cuda.managed_array(3, attach_global=False)


def test_device_view_needs_device_addressable_memory():
    with pytest.raises(TypeError, match="addressable"):
        np.zeros(3).view(cuda.MappedNDArray).device_view()
    with pytest.raises(TypeError, match="addressable"):
        cuda.pinned_array(3).view(cuda.MappedNDArray).device_view()  # pinned, not mapped


def test_host_memory_outlives_the_array_object_through_views():
    m = cuda.mapped_array(1000, np.int64)
    m[:] = np.arange(1000)
    tail = m[500:]
    dv = m.device_view()
    del m
    import gc

    gc.collect()
    np.testing.assert_array_equal(tail, np.arange(500, 1000))
    np.testing.assert_array_equal(dv.copy_to_host(), np.arange(1000))


# --- cuda.pinned / cuda.mapped over existing arrays -----------------------------


def test_pinned_scope_registers_the_arrays_until_it_ends():
    """Registering memory that is already registered fails, on the driver as
    on the cpu backend: that shows the scope's registration is live inside
    and released after."""
    a, b = np.arange(N, dtype=np.float64), np.zeros((N // 64, 64), np.int64)
    for _ in range(3):  # re-entered in a loop
        with cuda.pinned(a, b):
            with pytest.raises(cuda.CudaAPIError) as info:
                with cuda.pinned(a):
                    pass
            assert info.value.name == "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED"
            s = cuda.stream()
            d = cuda.to_device(a, stream=s)
            d.copy_to_host(b.reshape(-1).view(np.float64), stream=s)
            s.synchronize()
            np.testing.assert_array_equal(b.reshape(-1).view(np.float64), np.arange(N, dtype=np.float64))
            b[:] = 0
    with cuda.pinned(a):
        pass


def test_pinned_scope_releases_on_exceptions():
    a = np.arange(N)
    with pytest.raises(KeyError):
        with cuda.pinned(a):
            raise KeyError("inside")
    with cuda.pinned(a):  # would fail if the first registration were still live
        pass
    # A failure while registering the second array releases the first.
    with pytest.raises(cuda.CudaAPIError):
        with cuda.pinned(a, a):
            pass
    with cuda.pinned(a):
        pass


def test_pinned_scope_takes_only_numpy_arrays():
    with pytest.raises(TypeError):
        with cuda.pinned([1, 2, 3]):
            pass
    with cuda.pinned(np.zeros(0)):  # nothing to register
        pass


def test_mapped_scope_yields_device_arrays_aliasing_the_host_memory():
    a = np.arange(N, dtype=np.float64)
    for i in range(3):  # re-entered in a loop
        with cuda.mapped(a) as d:
            assert isinstance(d, cuda.DeviceNDArray) and (d.shape, d.dtype) == (a.shape, a.dtype)
            a[1] = 100 + i  # host write, device read
            assert d[1] == 100 + i
            d[0] = -i  # device write, host read
            cuda.synchronize()
            assert a[0] == -i
    np.testing.assert_array_equal(a[2:], np.arange(2.0, N))


def test_mapped_scope_with_several_arrays_yields_a_list():
    a, b = np.zeros(N, np.int32), np.ones((2, N), np.float32)
    with cuda.mapped(a, b) as (da, db):
        assert (da.shape, db.shape) == ((N,), (2, N))
        da[:] = 5
        db[1] = 2
        cuda.synchronize()
    assert (a == 5).all()
    assert (b[0] == 1).all() and (b[1] == 2).all()


@pytest.mark.parametrize("make", [lambda a: a[::2], lambda a: a[::-1], lambda a: a.reshape(256, -1).T,
                                  lambda a: a.reshape(256, -1)[1:, ::-2]],
                         ids=["step", "negative-step", "transpose", "mixed"])
def test_mapped_scope_over_non_contiguous_arrays(make):
    base = np.arange(N, dtype=np.int64)
    a = make(base)
    with cuda.mapped(a) as d:
        assert d.shape == a.shape and d.strides == a.strides
        np.testing.assert_array_equal(d.copy_to_host(), a)
        d[(0,) * d.ndim] = -7
        d[(-1,) * d.ndim] = -8
        cuda.synchronize()
    assert a[(0,) * a.ndim] == -7 and a[(-1,) * a.ndim] == -8
    assert (base < 0).sum() == 2


def test_mapped_scope_releases_on_exceptions():
    a = np.zeros(N)
    with pytest.raises(RuntimeError):
        with cuda.mapped(a):
            raise RuntimeError("inside")
    with cuda.mapped(a) as d:  # the memory is free to map again
        d[:] = 1
        cuda.synchronize()
    assert (a == 1).all()


def test_mapped_scope_over_an_empty_array():
    with cuda.mapped(np.zeros((0, 3))) as d:
        assert d.shape == (0, 3)
        assert d.copy_to_host().shape == (0, 3)


@pytest.mark.gpu
def test_mapped_array_device_pointer_under_unified_addressing():
    """CUDA's unified addressing: memory from cuMemHostAlloc is reached by
    kernels through the same address as on the host, so the device view's
    pointer is the host pointer; its memory is mapped host memory, not
    device memory."""
    dev = cuda.get_current_device()
    m = cuda.mapped_array(16, np.float64)
    dv = m.device_view()
    assert dv.memory_kind == "mapped host"
    assert cuda.device_array(16).memory_kind == "device"
    if dev.UNIFIED_ADDRESSING:
        assert dv._pointer == m.ctypes.data


@pytest.mark.gpu
def test_registered_memory_device_pointer():
    """Registered memory is reached through the host address only where the
    device says CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM."""
    a = np.arange(float(N))
    with cuda.mapped(a) as d:
        if cuda.get_current_device().CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM:
            assert d._pointer == a.ctypes.data
        else:
            assert d._pointer != 0
        np.testing.assert_array_equal(d.copy_to_host(), np.arange(float(N)))
