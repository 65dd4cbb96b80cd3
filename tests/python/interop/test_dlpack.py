"""DLPack: our __dlpack__ / __dlpack_device__ and cuda.from_dlpack.

On the cpu backend our device memory is host memory and our capsules say
kDLCPU, so NumPy is a real consumer and producer: zero-copy is proven by
writing through one side and reading through the other, for every dtype
and layout. Capsule rules (names, consumption, read-only, copies, devices),
lifetimes and malformed tensors are checked on every backend where they can
be: hand-made capsules (dlpack_capsules.py) describe our own memory with our
own device, so the same test runs on the cpu and the cuda backend.

Deliberate differences from the letter of the array API standard, as the
design note (docs/interop.md) says:
- `stream=-1` ("no synchronisation") is accepted for kDLCPU as well as None;
  the standard says None only. It asks for nothing a host array could do.
- Consuming a capsule twice is a ValueError (the standard names no type).
"""

import gc
import re
import sys
import weakref

import numpy as np
import pytest

import cuforge
from cuforge import _core, cuda

from dlpack_capsules import (
    FLAG_IS_COPIED,
    FLAG_READ_ONLY,
    kDLBfloat,
    kDLBool,
    kDLCPU,
    kDLCUDA,
    kDLCUDAHost,
    kDLCUDAManaged,
    kDLFloat,
    kDLInt,
    kDLOpaqueHandle,
    kDLOpenCL,
    kDLROCM,
    kDLVulkan,
    Producer,
    Tensor,
    capsule_name,
    legacy_tensor,
    versioned_tensor,
)

cpu_only = pytest.mark.skipif(
    cuforge.backend() != "cpu",
    reason="NumPy exchanges only host memory: our arrays are host memory on the cpu backend alone",
)

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

# (id, base shape, base order, index giving the view)
LAYOUTS = [
    ("C", (6, 8), "C", ...),
    ("F", (6, 8), "F", ...),
    ("3-D", (2, 3, 4), "C", ...),
    ("strided", (6, 8), "C", (slice(None, None, 2), slice(1, None, 3))),
    ("offset", (6, 8), "C", (slice(2, 5), slice(3, None))),
    ("negative-strides", (6, 8), "C", (slice(None, None, -1), slice(None, None, -2))),
    ("F-strided", (6, 8), "F", (slice(1, None, 2), slice(None, None, -3))),
    ("0-d", (), "C", ...),
    ("empty", (4, 0, 3), "C", ...),
    ("empty-view", (6, 8), "C", (slice(3, 3),)),
]


def layout_ids(layout):
    return layout[0]


def settle():
    """Frees are deferred: collect, then let the queue flush."""
    gc.collect()
    cuda.synchronize()


@pytest.fixture
def stats():
    _core.enable_memory_statistics()
    settle()
    return lambda: _core.memory_statistics()["current_bytes"]


def host_base(sample, shape, order, dtype):
    return np.asarray(sample(shape, dtype), order=order)


def fresh(sample, like):
    """New values for `like`'s shape, differing from it wherever the dtype
    allows (so a write that goes nowhere is caught)."""
    new = sample(like.shape, like.dtype)
    if like.dtype == np.bool_:
        return ~like
    return np.where(new == like, new + np.ones((), like.dtype), new).astype(like.dtype)


def own_device(d):
    return tuple(d.__dlpack_device__())


# --- our arrays into NumPy (zero-copy) ---------------------------------------


@cpu_only
@pytest.mark.parametrize("layout", LAYOUTS, ids=layout_ids)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_numpy_shares_our_memory(dtype, layout, sample):
    _, shape, order, key = layout
    host = host_base(sample, shape, order, dtype)
    d = cuda.to_device(host)
    view, want = d[key], host[key]
    h = np.from_dlpack(view)
    assert h.dtype == want.dtype and h.shape == want.shape
    np.testing.assert_array_equal(h, want)
    if want.size:
        assert h.strides == view.strides
        assert h.ctypes.data == view._pointer
    assert h.flags.writeable
    # NumPy -> our memory: the whole base array changes where the view does.
    new = fresh(sample, want)
    h[...] = new
    want[...] = new
    np.testing.assert_array_equal(d.copy_to_host(), host)
    # Our memory -> NumPy.
    newer = fresh(sample, want)
    view.copy_to_device(newer)
    np.testing.assert_array_equal(h, newer)


@cpu_only
def test_dlpack_device_is_the_host_on_the_cpu_backend():
    assert own_device(cuda.device_array(3)) == (kDLCPU, 0)


# --- NumPy arrays into ours (zero-copy) --------------------------------------


@cpu_only
@pytest.mark.parametrize("layout", LAYOUTS, ids=layout_ids)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_we_share_numpy_memory(dtype, layout, sample):
    _, shape, order, key = layout
    host = host_base(sample, shape, order, dtype)
    want = host[key]
    x = cuda.from_dlpack(want)
    assert isinstance(x, cuda.DeviceNDArray)
    assert x.dtype == want.dtype and x.shape == want.shape
    if want.size:
        assert x.strides == want.strides
        assert x._pointer == want.ctypes.data
    np.testing.assert_array_equal(x.copy_to_host(), want)
    new = fresh(sample, want)
    x.copy_to_device(new)  # our write lands in NumPy's memory
    np.testing.assert_array_equal(want, new)
    newer = fresh(sample, want)
    want[...] = newer  # NumPy's write is what we read
    np.testing.assert_array_equal(x.copy_to_host(), newer)


@cpu_only
def test_numpy_view_with_an_offset_keeps_its_place(sample):
    host = sample((10, 10), np.int32)
    view = host[3:7, 2:9:3]
    x = cuda.from_dlpack(view)
    x[1, 1] = 12345
    assert host[4, 5] == 12345
    assert (host != 12345).sum() == host.size - 1


# --- capsules: names, versions, consumption ----------------------------------


@pytest.mark.parametrize(
    "max_version, name",
    [
        (None, "dltensor"),
        ((0, 8), "dltensor"),
        ((1, 0), "dltensor_versioned"),
        ((1, 5), "dltensor_versioned"),
        ((2, 0), "dltensor_versioned"),
    ],
)
def test_max_version_picks_the_capsule(max_version, name):
    d = cuda.to_device(np.arange(4.0))
    c = d.__dlpack__(max_version=max_version)
    assert capsule_name(c) == name
    t = versioned_tensor(c).dl_tensor if name == "dltensor_versioned" else legacy_tensor(c).dl_tensor
    assert t.data == d._pointer
    assert (t.device.device_type, t.device.device_id) == own_device(d)
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (kDLFloat, 64, 1)
    if name == "dltensor_versioned":
        v = versioned_tensor(c).version
        assert v.major == 1  # never a major version the consumer did not ask for
        assert versioned_tensor(c).flags == 0


@pytest.mark.parametrize("max_version", [None, (1, 0)], ids=["legacy", "versioned"])
def test_consuming_renames_the_capsule_and_a_second_consumer_is_refused(max_version):
    d = cuda.to_device(np.arange(4.0))
    c = d.__dlpack__(max_version=max_version)
    name = capsule_name(c)
    x = cuda.from_dlpack(c)
    assert capsule_name(c) == "used_" + name
    assert x._pointer == d._pointer
    with pytest.raises(ValueError, match="already consumed"):
        cuda.from_dlpack(c)
    with pytest.raises(ValueError, match="already consumed"):
        cuda.from_dlpack(Producer(c, own_device(d)))


@cpu_only
@pytest.mark.parametrize("max_version", [None, (1, 0)], ids=["legacy", "versioned"])
def test_numpy_consumes_our_capsule(max_version):
    d = cuda.to_device(np.arange(4.0))
    c = d.__dlpack__(max_version=max_version)
    name = capsule_name(c)
    h = np.from_dlpack(Producer(c))
    assert capsule_name(c) == "used_" + name
    d[2] = -1
    assert h[2] == -1
    # NumPy makes arrays from legacy capsules read-only (they cannot say
    # whether writing is allowed); versioned ones say so, and ours allow it.
    assert h.flags.writeable == (max_version is not None)


def test_a_capsule_of_another_name_is_refused():
    import ctypes

    new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
        ("PyCapsule_New", ctypes.pythonapi)
    )
    buf = ctypes.c_int64(0)
    c = new(ctypes.addressof(buf), b"not_a_tensor", None)
    with pytest.raises(TypeError, match="dltensor"):
        cuda.from_dlpack(c)


def test_a_producer_from_before_max_version_gets_the_old_call():
    d = cuda.to_device(np.arange(5.0))

    class OldProducer:
        def __init__(self):
            self.streams = []

        def __dlpack__(self, stream=None):  # no max_version: DLPack 0.x era
            self.streams.append(stream)
            return d.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return d.__dlpack_device__()

    p = OldProducer()
    x = cuda.from_dlpack(p)
    assert x._pointer == d._pointer
    assert len(p.streams) == 1


def test_the_consumer_asks_for_a_versioned_capsule():
    d = cuda.to_device(np.arange(5.0))
    p = Producer(d.__dlpack__(max_version=(1, 0)), own_device(d))
    cuda.from_dlpack(p)
    (call,) = p.calls
    assert tuple(call["max_version"]) == (1, 1)
    if own_device(d)[0] == kDLCPU:
        assert call["stream"] is None  # host memory has no stream
    else:
        assert call["stream"] in (1, 2)  # our default stream, never the ambiguous 0


# --- lifetimes ---------------------------------------------------------------


@pytest.mark.parametrize("max_version", [None, (1, 0)], ids=["legacy", "versioned"])
def test_an_unconsumed_capsule_releases_the_memory(stats, max_version):
    before = stats()
    d = cuda.device_array(100_000)
    c = d.__dlpack__(max_version=max_version)
    del d
    settle()
    assert stats() >= before + 800_000  # the capsule holds the memory
    del c
    settle()
    assert stats() == before


@pytest.mark.parametrize("max_version", [None, (1, 0)], ids=["legacy", "versioned"])
def test_our_import_of_our_export_holds_the_memory(stats, max_version):
    before = stats()
    d = cuda.to_device(np.arange(100_000.0))
    x = cuda.from_dlpack(d.__dlpack__(max_version=max_version))
    view = x[10:20]
    del d, x
    settle()
    assert stats() >= before + 800_000
    np.testing.assert_array_equal(view.copy_to_host(), np.arange(10.0, 20.0))
    del view
    settle()
    assert stats() == before


@cpu_only
@pytest.mark.parametrize("max_version", [None, (1, 0)], ids=["legacy", "versioned"])
def test_numpy_holds_our_memory_until_it_lets_go(stats, max_version):
    before = stats()
    d = cuda.to_device(np.arange(100_000.0))
    h = np.from_dlpack(Producer(d.__dlpack__(max_version=max_version)))
    tail = h[-3:]
    del d, h
    settle()
    assert stats() >= before + 800_000
    np.testing.assert_array_equal(tail, [99_997.0, 99_998.0, 99_999.0])
    del tail
    settle()
    assert stats() == before


@cpu_only
def test_a_numpy_producer_lives_as_long_as_our_views():
    a = np.arange(50.0)
    alive = weakref.ref(a)
    x = cuda.from_dlpack(a)
    view = x[5:8]
    del a, x
    settle()
    assert alive() is not None
    np.testing.assert_array_equal(view.copy_to_host(), [5.0, 6.0, 7.0])
    del view
    gc.collect()
    cuda.synchronize()  # the release is a deferred free: it runs here at the latest
    assert alive() is None


@cpu_only
def test_the_producers_deleter_runs_exactly_once():
    """A producer handing out NumPy's capsule: NumPy's deleter drops one
    reference to the array. The reference count coming back to exactly
    where it was proves one call (two would drop a reference we own)."""
    a = np.arange(12.0)
    finalized = []
    weakref.finalize(a, finalized.append, True)

    class Wrapper:
        def __dlpack__(self, **kw):
            return a.__dlpack__(**kw)

        def __dlpack_device__(self):
            return a.__dlpack_device__()

    refs = sys.getrefcount(a)
    x = cuda.from_dlpack(Wrapper())
    assert sys.getrefcount(a) == refs + 1  # the capsule's manager holds the array
    views = [x[i:] for i in range(3)]
    del x
    settle()
    assert sys.getrefcount(a) == refs + 1
    del views
    settle()
    assert sys.getrefcount(a) == refs
    settle()
    assert sys.getrefcount(a) == refs
    assert not finalized
    del a
    gc.collect()
    assert finalized == [True]


@pytest.mark.parametrize("legacy", [False, True], ids=["versioned", "legacy"])
def test_a_handmade_tensors_deleter_runs_once_when_the_last_view_goes(legacy):
    d = cuda.to_device(np.arange(6.0))
    t = Tensor(d._pointer, (2, 3), device=own_device(d), legacy=legacy)
    c = t.capsule()
    x = cuda.from_dlpack(c)
    np.testing.assert_array_equal(x.copy_to_host(), np.arange(6.0).reshape(2, 3))
    views = [x[1], x.T, x.reshape(6)]
    del x
    settle()
    assert t.deleted == 0
    del views
    settle()
    assert t.deleted == 1
    del c
    gc.collect()
    assert t.deleted == 1  # the consumed capsule leaves the tensor alone


@pytest.mark.parametrize("legacy", [False, True], ids=["versioned", "legacy"])
def test_an_unconsumed_handmade_capsule_runs_its_deleter(legacy):
    d = cuda.to_device(np.arange(6.0))
    t = Tensor(d._pointer, (6,), device=own_device(d), legacy=legacy)
    c = t.capsule()
    del c
    gc.collect()
    assert t.deleted == 1


# --- byte offsets, compact strides, 0-d ---------------------------------------


def test_byte_offset_and_element_strides_are_honoured():
    d = cuda.to_device(np.arange(24, dtype=np.int32))
    # Elements 5, 8, 11 then 17, 20, 23 (element strides, offset in bytes).
    t = Tensor(d._pointer, (2, 3), strides=(12, 3), dtype=(kDLInt, 32, 1), device=own_device(d), byte_offset=5 * 4)
    x = cuda.from_dlpack(t.capsule())
    assert x.strides == (48, 12)
    np.testing.assert_array_equal(x.copy_to_host(), [[5, 8, 11], [17, 20, 23]])
    x[1, 2] = -7
    assert d.copy_to_host()[23] == -7


def test_negative_element_strides_are_honoured():
    d = cuda.to_device(np.arange(10, dtype=np.int64))
    t = Tensor(d._pointer, (4,), strides=(-2,), dtype=(kDLInt, 64, 1), device=own_device(d), byte_offset=9 * 8)
    x = cuda.from_dlpack(t.capsule())
    np.testing.assert_array_equal(x.copy_to_host(), [9, 7, 5, 3])


def test_null_strides_mean_row_major_and_a_0d_tensor_needs_no_shape():
    d = cuda.to_device(np.arange(6, dtype=np.int16))
    x = cuda.from_dlpack(Tensor(d._pointer, (2, 3), dtype=(kDLInt, 16, 1), device=own_device(d)).capsule())
    assert x.strides == (6, 2)
    np.testing.assert_array_equal(x.copy_to_host(), np.arange(6).reshape(2, 3))
    z = cuda.from_dlpack(Tensor(d._pointer + 8, (), dtype=(kDLInt, 16, 1), device=own_device(d)).capsule())
    assert z.shape == ()
    assert z.copy_to_host() == 4


def test_an_empty_tensor_may_have_a_null_pointer():
    t = Tensor(None, (0, 5), device=own_device(cuda.device_array(1)))
    x = cuda.from_dlpack(t.capsule())
    assert x.shape == (0, 5)
    assert x.copy_to_host().shape == (0, 5)


def test_bool_tensors_are_8_bit():
    d = cuda.to_device(np.array([True, False, True]))
    x = cuda.from_dlpack(Tensor(d._pointer, (3,), dtype=(kDLBool, 8, 1), device=own_device(d)).capsule())
    assert x.dtype == np.bool_
    np.testing.assert_array_equal(x.copy_to_host(), [True, False, True])


def test_a_newer_minor_version_is_read():
    d = cuda.to_device(np.arange(3.0))
    t = Tensor(d._pointer, (3,), device=own_device(d), version=(1, 99))
    np.testing.assert_array_equal(cuda.from_dlpack(t.capsule()).copy_to_host(), [0.0, 1.0, 2.0])


# --- read-only ----------------------------------------------------------------


@cpu_only
def test_a_read_only_numpy_array_imports_read_only():
    a = np.arange(6.0)
    a.flags.writeable = False
    x = cuda.from_dlpack(a)
    assert x.flags["WRITEABLE"] is False
    assert x[2:].flags["WRITEABLE"] is False  # views inherit it
    with pytest.raises(ValueError, match="read-only"):
        x[0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        x[1:3] = np.zeros(2)
    with pytest.raises(ValueError, match="read-only"):
        x.copy_to_device(np.zeros(6))
    with pytest.raises(ValueError, match="read-only"):
        cuda.to_device(np.zeros(6), to=x)
    np.testing.assert_array_equal(a, np.arange(6.0))
    # Reading is fine, and it may be a source.
    d = cuda.device_array(6)
    d[:] = x
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(6.0))


@cpu_only
def test_a_jax_array_imports_read_only():
    # JAX's arrays are immutable, but its capsules are legacy ones, which cannot say so (issue 14 item 6:
    # writing through cuda.from_dlpack changed a JAX array). NumPy's from_dlpack makes them read-only too.
    jnp = pytest.importorskip("jax.numpy", reason="jax is not installed (pip install 'jax[cpu]')")
    a = jnp.arange(6.0, dtype=jnp.float32)
    assert np.from_dlpack(a).flags.writeable is False
    x = cuda.from_dlpack(a)
    assert x.flags["WRITEABLE"] is False
    with pytest.raises(ValueError, match="read-only"):
        x[0] = 5.0
    np.testing.assert_array_equal(np.asarray(a), np.arange(6.0))


def test_a_jax_array_is_a_read_only_kernel_argument():
    jnp = pytest.importorskip("jax.numpy", reason="jax is not installed (pip install 'jax[cpu]')")
    a = jnp.arange(6.0, dtype=jnp.float32)

    @cuda.jit
    def twice(out, v):
        i = cuda.grid(1)
        if i < v.size:
            out[i] = 2 * v[i]

    @cuda.jit
    def bump(v):
        i = cuda.grid(1)
        if i < v.size:
            v[i] += 1

    out = np.zeros(6, np.float32)
    twice[1, 8](out, a)  # reading is fine
    np.testing.assert_array_equal(out, 2 * np.arange(6.0))
    with pytest.raises(cuda.TypingError, match="read-only array"):
        bump[1, 8](a)
    np.testing.assert_array_equal(np.asarray(a), np.arange(6.0))


def read_only_view(d):
    t = Tensor(d._pointer, d.shape, device=own_device(d), flags=FLAG_READ_ONLY)
    return t, cuda.from_dlpack(t.capsule())


def test_the_read_only_flag_makes_a_read_only_array():
    d = cuda.to_device(np.arange(4.0))
    t, r = read_only_view(d)
    assert r.flags["WRITEABLE"] is False
    with pytest.raises(ValueError, match="read-only"):
        r[0] = 5.0
    with pytest.raises(ValueError, match="read-only"):
        r.copy_to_device(d)
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(4.0))


def test_a_read_only_array_refuses_the_legacy_export():
    d = cuda.to_device(np.arange(4.0))
    _, r = read_only_view(d)
    with pytest.raises(BufferError, match="read-only"):
        r.__dlpack__()
    with pytest.raises(BufferError, match="read-only"):
        r.__dlpack__(max_version=(0, 8))
    c = r.__dlpack__(max_version=(1, 0))
    assert versioned_tensor(c).flags & FLAG_READ_ONLY
    again = cuda.from_dlpack(c)
    assert again.flags["WRITEABLE"] is False


@cpu_only
def test_numpy_sees_our_read_only_array_as_read_only():
    d = cuda.to_device(np.arange(4.0))
    _, r = read_only_view(d)
    h = np.from_dlpack(r)
    assert not h.flags.writeable
    with pytest.raises(ValueError):
        h[0] = 1.0


def test_a_copy_of_a_read_only_array_is_writeable_even_legacy():
    d = cuda.to_device(np.arange(4.0))
    _, r = read_only_view(d)
    c = r.__dlpack__(copy=True)  # legacy is fine: the copy is the consumer's
    y = cuda.from_dlpack(c)
    assert y.flags["WRITEABLE"] is True
    y[0] = 100.0
    assert d.copy_to_host()[0] == 0.0


# --- copy ----------------------------------------------------------------------


@pytest.mark.parametrize("max_version", [None, (1, 0)], ids=["legacy", "versioned"])
def test_copy_true_gives_an_independent_copy(max_version):
    d = cuda.to_device(np.arange(6.0).reshape(2, 3))[:, ::2]
    c = d.__dlpack__(copy=True, max_version=max_version)
    if max_version:
        assert versioned_tensor(c).flags & FLAG_IS_COPIED
    y = cuda.from_dlpack(c)
    assert y._pointer != d._pointer
    np.testing.assert_array_equal(y.copy_to_host(), [[0.0, 2.0], [3.0, 5.0]])
    d[0, 0] = -1.0
    assert y.copy_to_host()[0, 0] == 0.0
    y[1, 1] = -2.0
    assert d.copy_to_host()[1, 1] == 5.0


@cpu_only
def test_numpys_copy_and_device_arguments_reach_us():
    """np.from_dlpack passes dl_device=(kDLCPU, 0) and its copy argument."""
    d = cuda.to_device(np.arange(4.0))
    shared = np.from_dlpack(d, copy=False, device="cpu")
    copied = np.from_dlpack(d, copy=True)
    d[0] = 9.0
    assert shared[0] == 9.0
    assert copied[0] == 0.0
    assert copied.ctypes.data != d._pointer


@pytest.mark.parametrize("copy", [None, False])
def test_without_copy_the_memory_is_shared(copy):
    d = cuda.to_device(np.arange(3.0))
    c = d.__dlpack__(copy=copy, max_version=(1, 0))
    assert not versioned_tensor(c).flags & FLAG_IS_COPIED
    assert cuda.from_dlpack(c)._pointer == d._pointer


# --- dl_device ----------------------------------------------------------------


def test_our_own_dl_device_is_accepted():
    d = cuda.to_device(np.arange(3.0))
    for copy in (None, False):
        c = d.__dlpack__(dl_device=own_device(d), copy=copy, max_version=(1, 0))
        assert versioned_tensor(c).dl_tensor.data == d._pointer


@pytest.mark.parametrize("copy", [None, True, False])
def test_another_kind_of_device_is_a_buffer_error(copy):
    d = cuda.to_device(np.arange(3.0))
    for target in [(kDLOpenCL, 0), (kDLROCM, 0), (kDLVulkan, 0)]:
        with pytest.raises(BufferError, match="device"):
            d.__dlpack__(dl_device=target, copy=copy)


def test_another_device_of_our_kind_is_a_buffer_error():
    """(kDLCPU, 1) on the cpu backend, (kDLCUDA, 1) on the cuda one: the
    capsule would not be on the device asked for."""
    d = cuda.to_device(np.arange(3.0))
    kind, ordinal = own_device(d)
    with pytest.raises(BufferError, match="device"):
        d.__dlpack__(dl_device=(kind, ordinal + 1), max_version=(1, 0))


@pytest.mark.parametrize("bad", ["cpu", (1,), (1, 0, 0), ("a", 0), 1])
def test_a_malformed_dl_device_is_a_type_error(bad):
    d = cuda.to_device(np.arange(3.0))
    with pytest.raises(TypeError, match="dl_device"):
        d.__dlpack__(dl_device=bad)


@pytest.mark.gpu
def test_the_host_as_dl_device_exports_a_host_copy():
    d = cuda.to_device(np.arange(4.0))
    c = d.__dlpack__(dl_device=(kDLCPU, 0), max_version=(1, 0))
    t = versioned_tensor(c)
    assert (t.dl_tensor.device.device_type, t.dl_tensor.device.device_id) == (kDLCPU, 0)
    assert t.flags & FLAG_IS_COPIED
    h = np.from_dlpack(Producer(c))
    np.testing.assert_array_equal(h, np.arange(4.0))
    with pytest.raises(BufferError, match="without a copy"):
        d.__dlpack__(dl_device=(kDLCPU, 0), copy=False)


# --- device types on the cuda backend ---------------------------------------------


def capsule_device(c):
    t = versioned_tensor(c).dl_tensor
    return (t.device.device_type, t.device.device_id)


@pytest.mark.gpu
def test_device_memory_is_kdlcuda():
    d = cuda.device_array(3)
    here = cuda.get_current_device().id
    assert own_device(d) == (kDLCUDA, here)
    assert capsule_device(d.__dlpack__(max_version=(1, 0))) == (kDLCUDA, here)


@pytest.mark.gpu
def test_mapped_memory_is_kdlcudahost():
    m = cuda.mapped_array(4)
    m[:] = np.arange(4.0)
    dv = m.device_view()
    assert own_device(dv) == (kDLCUDAHost, 0)
    assert capsule_device(dv.__dlpack__(max_version=(1, 0))) == (kDLCUDAHost, 0)
    x = cuda.from_dlpack(dv)  # and back: mapped memory is still mapped memory
    assert own_device(x) == (kDLCUDAHost, 0)
    np.testing.assert_array_equal(x.copy_to_host(), np.arange(4.0))
    a = np.arange(5.0)
    with cuda.mapped(a) as registered:
        assert own_device(registered) == (kDLCUDAHost, 0)


@pytest.mark.gpu
def test_managed_memory_is_kdlcudamanaged():
    g = cuda.managed_array(4)
    g[:] = np.arange(4.0)
    dv = g.device_view()
    assert own_device(dv) == (kDLCUDAManaged, cuda.get_current_device().id)
    c = dv.__dlpack__(max_version=(1, 0))
    assert capsule_device(c)[0] == kDLCUDAManaged
    x = cuda.from_dlpack(c)
    assert own_device(x)[0] == kDLCUDAManaged
    np.testing.assert_array_equal(x.copy_to_host(), np.arange(4.0))


@pytest.mark.gpu
def test_host_memory_is_refused_on_the_cuda_backend():
    with pytest.raises(ValueError, match="kDLCPU"):
        cuda.from_dlpack(np.arange(3.0))


# --- the stream argument -------------------------------------------------------


@cpu_only
@pytest.mark.parametrize("stream", [None, -1])
def test_host_memory_takes_no_stream(stream):
    d = cuda.to_device(np.arange(3.0))
    assert capsule_name(d.__dlpack__(stream=stream)) == "dltensor"


@cpu_only
@pytest.mark.parametrize("stream", [0, 1, 2, 12345, "stream", 1.0])
def test_host_memory_refuses_a_stream(stream):
    d = cuda.to_device(np.arange(3.0))
    with pytest.raises(BufferError, match="stream must be None"):
        d.__dlpack__(stream=stream)


@pytest.mark.gpu
def test_cuda_memory_refuses_stream_0():
    d = cuda.to_device(np.arange(3.0))
    with pytest.raises(ValueError, match="stream 0"):
        d.__dlpack__(stream=0)
    side = cuda.stream()
    for ok in (None, 1, 2, -1, side.handle_value):
        assert capsule_name(d.__dlpack__(stream=ok)) == "dltensor"


# --- malformed input -------------------------------------------------------------


@pytest.mark.parametrize("obj", [1, "x", object(), [1.0, 2.0], None], ids=lambda v: type(v).__name__ if type(v) is object else repr(v))
def test_objects_without_dlpack_are_a_type_error(obj):
    with pytest.raises(TypeError, match="__dlpack__"):
        cuda.from_dlpack(obj)


def test_half_a_protocol_is_a_type_error():
    class OnlyDlpack:
        def __dlpack__(self, **kw):
            raise AssertionError("must not be called")

    with pytest.raises(TypeError, match="__dlpack_device__"):
        cuda.from_dlpack(OnlyDlpack())


def other_backends_device():
    return (kDLCUDA, 0) if cuforge.backend() == "cpu" else (kDLCPU, 0)


# (id, Tensor keyword arguments over 4 float64s, error type, message fragment)
MALFORMED = [
    ("bfloat16", dict(dtype=(kDLBfloat, 16, 1)), TypeError, "bfloat16"),
    ("vector-lanes", dict(dtype=(kDLFloat, 32, 2)), TypeError, "vector"),
    ("opaque-handle", dict(dtype=(kDLOpaqueHandle, 64, 1)), TypeError, "opaque"),
    ("float8", dict(dtype=(10, 8, 1)), TypeError, "8-"),
    ("odd-int-width", dict(dtype=(kDLInt, 24, 1)), TypeError, "width"),
    ("wide-bool", dict(dtype=(kDLBool, 1, 1)), TypeError, "8 bits"),
    ("vulkan", dict(device=(kDLVulkan, 0)), ValueError, "kDLVulkan"),
    ("rocm", dict(device=(kDLROCM, 0)), ValueError, "kDLROCM"),
    ("other-backend", "other", ValueError, "memory"),
    ("negative-shape", dict(shape=(-4,)), ValueError, "negative"),
    ("null-data", dict(data=None), ValueError, "null"),
    ("too-many-dims", dict(shape=(1,) * 65), ValueError, "dimensions"),
    ("element-count-overflow", dict(shape=(2**40, 2**40)), ValueError, "overflows"),
    ("stride-overflow", dict(strides=(2**62,)), ValueError, "stride .* overflows"),
    ("extent-overflow", dict(shape=(4, 2), strides=(2**59, 1)), ValueError, "extent overflows"),
    ("negative-ndim", dict(ndim=-1), ValueError, "dimensions"),
    ("tiny-pointer", dict(data=0x10), ValueError, "not in memory this process has mapped"),
    ("huge-byte-offset", dict(byte_offset=2**63), ValueError, "not in memory this process has mapped"),
    # data + byte_offset wraps past 2**64: refused before it is made a pointer (UBSan's find).
    ("wrapping-byte-offset", dict(byte_offset=2**64 - 8), ValueError, "passes the end of the address space"),
    ("null-shape", dict(shape=(), ndim=1), ValueError, "no shape"),
]


def malformed_tensor(case, legacy, d):
    """(Tensor, its device) of a MALFORMED case over the 4 float64s of `d`."""
    _, kw, _, _ = case
    if kw == "other":
        kw = dict(device=other_backends_device())
    kw = dict(kw)
    data = kw.pop("data", d._pointer)
    shape = kw.pop("shape", (4,))
    device = kw.pop("device", own_device(d))
    return Tensor(data, shape, device=device, legacy=legacy, **kw), device


@pytest.mark.parametrize("legacy", [False, True], ids=["versioned", "legacy"])
@pytest.mark.parametrize("case", MALFORMED, ids=lambda c: c[0])
def test_a_malformed_tensor_is_refused_and_its_deleter_runs_once(case, legacy):
    _, _, error, fragment = case
    d = cuda.to_device(np.arange(4.0))
    t, _ = malformed_tensor(case, legacy, d)
    c = t.capsule()
    with pytest.raises(error, match=fragment):
        cuda.from_dlpack(c)
    assert t.deleted == 1
    assert capsule_name(c).startswith("used_")
    del c
    settle()
    assert t.deleted == 1


@pytest.mark.parametrize("version", ["versioned", "legacy"])
@pytest.mark.parametrize("case", [c[0] for c in MALFORMED])
def test_a_malformed_tensor_as_a_kernel_argument_is_refused_as_from_dlpack_refuses_it(case, version):
    # The one validation path (issue 15 item 2): host-memory producers given
    # to a kernel used to go through NumPy's import, which took a null data
    # pointer and a stride of 2**62, and crashed on others. In a child
    # process: a crash fails this case only.
    import json
    import os
    import pathlib
    import subprocess

    here = pathlib.Path(__file__).resolve().parent
    done = subprocess.run([sys.executable, str(here / "dlpack_kernel_arg_child.py"), case, version],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(here),
                                                                              os.environ.get("PYTHONPATH")]))})
    assert done.returncode == 0, done.stderr[-3000:]
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    expected_type, fragment = outcome["expected"]
    assert outcome["error"] is not None, f"{case} was accepted as a kernel argument"
    got_type, message = outcome["error"]
    assert got_type == expected_type, outcome
    assert re.search(fragment, message), outcome
    assert outcome["deleted"] == 1, outcome


@pytest.mark.parametrize("major", [0, 2, 7])
def test_an_unknown_major_version_is_refused_and_its_deleter_runs_once(major):
    d = cuda.to_device(np.arange(4.0))
    t = Tensor(d._pointer, (4,), device=own_device(d), version=(major, 0))
    c = t.capsule()
    with pytest.raises(ValueError, match=f"major version {major}"):
        cuda.from_dlpack(c)
    assert t.deleted == 1
    del c
    gc.collect()
    assert t.deleted == 1


@pytest.mark.gpu
def test_a_cuda_ordinal_we_do_not_have_is_refused():
    d = cuda.to_device(np.arange(4.0))
    t = Tensor(d._pointer, (4,), device=(kDLCUDA, 99))
    with pytest.raises(ValueError, match="device 99"):
        cuda.from_dlpack(t.capsule())
    assert t.deleted == 1


def test_a_producer_returning_something_else_is_a_type_error():
    with pytest.raises(TypeError, match="DLPack capsule"):
        cuda.from_dlpack(Producer(42, own_device(cuda.device_array(1))))


class _OldProducer:
    """A producer from before max_version: __dlpack__ takes only `stream`."""

    def __init__(self, array):
        self.array = array
        self.calls = 0

    def __dlpack__(self, stream=None):
        self.calls += 1
        return self.array.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_an_old_producer_is_asked_once_per_import_after_the_first():
    """The first import tries max_version and falls back; later imports of the
    same producer type go straight to the old signature (no raise and retry)."""
    first = _OldProducer(cuda.to_device(np.arange(4.0)))  # device memory: imports on every backend
    d = cuda.from_dlpack(first)
    assert first.calls == 1  # the max_version try raised before reaching the body
    assert (d.copy_to_host() == np.arange(4.0)).all()
    second = _OldProducer(cuda.to_device(np.arange(3.0)))
    cuda.from_dlpack(second)
    cuda.from_dlpack(second)
    assert second.calls == 2


def test_a_dlpack_tensor_reaching_outside_a_known_allocation_is_refused():
    """The import checks the extent against the allocation the runtime knows
    (here one of ours), as the interface import does; the deleter still runs."""
    backing = cuda.device_array(1000, dtype=np.float64)  # allocations round up: overshoot by far
    t = Tensor(backing._pointer, (2000,), dtype=(kDLFloat, 64, 1), device=own_device(backing))
    with pytest.raises(ValueError, match="outside its allocation"):
        cuda.from_dlpack(t.capsule())
    assert t.deleted == 1
