"""__cuda_array_interface__: import through cuda.as_cuda_array and through
every API that takes an array (the one import path, device_array_of), and
our export on the cuda backend.

The producer is a pure-Python object whose interface describes memory the
runtime knows: a DeviceNDArray's (on every backend) or, on the cpu backend,
a NumPy array's (there host memory is device memory). So zero-copy,
lifetimes, read-only, every malformed field and the stream rule are tested
on a machine with no GPU; the libraries that really produce the interface
(CuPy, PyTorch) are in test_foreign_gpu.py.

Deliberate differences from numba.cuda:
- On the cpu backend our arrays have no __cuda_array_interface__
  (AttributeError saying why), yet `cuda.is_cuda_array(device_array)` is
  True: they are this runtime's device arrays (numba's test is hasattr).
- A missing key is a ValueError naming it (numba lets the KeyError out).
- An error raised by the producer's property (other than AttributeError)
  propagates, as it does from numba's hasattr-based checks.
"""

import gc
import sys
import threading
import weakref

import numpy as np
import pytest

import cuforge
from cuforge import cuda

cpu_only = pytest.mark.skipif(
    cuforge.backend() != "cpu", reason="host memory is device memory on the cpu backend alone"
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
    ("strided", (6, 8), "C", (slice(None, None, 2), slice(1, None, 3))),
    ("offset", (6, 8), "C", (slice(2, 5), slice(3, None))),
    ("negative-strides", (6, 8), "C", (slice(None, None, -1), slice(None, None, -2))),
    ("0-d", (), "C", ...),
    ("empty", (4, 0, 3), "C", ...),
]

DROP = object()


class Producer:
    """A pure-Python producer: `desc` is returned as the interface, whatever
    it is; `owner` keeps the described memory alive."""

    def __init__(self, desc, owner=None):
        self.desc = desc
        self.owner = owner

    @property
    def __cuda_array_interface__(self):
        return self.desc


def interface(arr, **changes):
    """The interface of a DeviceNDArray or NumPy array, with `changes`
    (DROP removes a key)."""
    if isinstance(arr, np.ndarray):
        ptr, read_only, c_contiguous = arr.ctypes.data, not arr.flags.writeable, arr.flags.c_contiguous
    else:
        ptr, read_only, c_contiguous = arr._pointer, not arr.flags["WRITEABLE"], arr.is_c_contiguous()
    desc = dict(
        shape=tuple(arr.shape),
        typestr=arr.dtype.str,
        data=(ptr, read_only),
        strides=None if c_contiguous else tuple(arr.strides),
        version=3,
        stream=None,
    )
    desc.update(changes)
    return {k: v for k, v in desc.items() if v is not DROP}


def producer_of(arr, **changes):
    return Producer(interface(arr, **changes), owner=arr)


def settle():
    gc.collect()
    cuda.synchronize()


def fresh(sample, like):
    """New values for `like`'s shape, differing from it wherever possible."""
    if like.dtype == np.bool_:
        return ~like
    new = sample(like.shape, like.dtype)
    return np.where(new == like, new + np.ones((), like.dtype), new).astype(like.dtype)


# --- zero-copy -----------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda layout: layout[0])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_as_cuda_array_shares_device_memory(dtype, layout, sample):
    _, shape, order, key = layout
    host = np.asarray(sample(shape, dtype), order=order)
    d = cuda.to_device(host)
    view = d[key]
    want = host[key]
    x = cuda.as_cuda_array(producer_of(view))
    assert isinstance(x, cuda.DeviceNDArray)
    assert x.dtype == want.dtype and x.shape == want.shape
    if want.size:
        assert x._pointer == view._pointer
        assert x.strides == view.strides
    np.testing.assert_array_equal(x.copy_to_host(), want)
    new = fresh(sample, want)
    x.copy_to_device(new)  # through the import, into the producer's memory
    want[...] = new
    np.testing.assert_array_equal(d.copy_to_host(), host)
    newer = fresh(sample, want)
    view.copy_to_device(newer)  # through the producer, seen by the import
    np.testing.assert_array_equal(x.copy_to_host(), newer)


@cpu_only
@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda layout: layout[0])
def test_as_cuda_array_shares_numpy_memory_on_the_cpu_backend(layout, sample):
    _, shape, order, key = layout
    host = np.asarray(sample(shape, np.float32), order=order)
    want = host[key]
    x = cuda.as_cuda_array(producer_of(want))
    if want.size:
        assert x._pointer == want.ctypes.data and x.strides == want.strides
    new = fresh(sample, want)
    x.copy_to_device(new)
    np.testing.assert_array_equal(want, new)
    newer = fresh(sample, want)
    want[...] = newer
    np.testing.assert_array_equal(x.copy_to_host(), newer)


def _unmapped_pages(n):
    """The address of n pages nothing is mapped at (mapped, then unmapped)."""
    import mmap
    m = mmap.mmap(-1, n * mmap.PAGESIZE)
    address = np.frombuffer(m, np.uint8).ctypes.data
    m.close()
    return address


@pytest.mark.parametrize("where", ["low", "unmapped", "runs_off_the_end"])
def test_a_pointer_to_no_memory_is_refused_before_any_kernel_reads_it(where):
    # On the cpu backend kernels read such a pointer directly; the import
    # refuses it instead of letting a launch crash the process.
    if where == "low":
        desc = dict(shape=(32,), typestr="<f4", data=(4096, False), strides=None, version=3)
        owner = None
    elif where == "unmapped":
        desc = dict(shape=(32,), typestr="<f4", data=(_unmapped_pages(1), False), strides=None, version=3)
        owner = None
    else:  # starts in NumPy's memory, ends far beyond any mapping
        owner = np.zeros(4, np.float64)
        desc = dict(shape=(2,), typestr="<f8", data=(owner.ctypes.data, False), strides=(1 << 44,), version=3)
    with pytest.raises(ValueError, match="not in memory this process has mapped|host pointer"):
        cuda.as_cuda_array(Producer(desc, owner))

    @cuda.jit
    def read(a, out):
        out[0] = a[0]
    with pytest.raises(ValueError, match="not in memory this process has mapped|host pointer"):
        read[1, 1](Producer(desc, owner), cuda.device_array(1, np.float32))


@pytest.mark.gpu
def test_a_host_pointer_is_refused_on_the_cuda_backend():
    a = np.arange(8.0)
    with pytest.raises(ValueError, match="host pointer"):
        cuda.as_cuda_array(producer_of(a))


def test_strides_none_and_older_versions_mean_c_contiguous():
    d = cuda.to_device(np.arange(12, dtype=np.int16).reshape(3, 4))
    for version in (0, 1, 2, 3):
        desc = interface(d, strides=None, version=version)
        if version < 3:
            del desc["stream"]  # 'stream' came with version 3
        x = cuda.as_cuda_array(Producer(desc, d))
        assert x.strides == (8, 2)
        np.testing.assert_array_equal(x.copy_to_host(), np.arange(12).reshape(3, 4))


def test_mask_none_is_no_mask():
    d = cuda.to_device(np.arange(3.0))
    x = cuda.as_cuda_array(producer_of(d, mask=None))
    np.testing.assert_array_equal(x.copy_to_host(), [0.0, 1.0, 2.0])


def test_an_empty_array_may_have_a_null_pointer():
    x = cuda.as_cuda_array(Producer(dict(shape=(0, 4), typestr="<f4", data=(0, False), version=3)))
    assert x.shape == (0, 4)
    assert x.copy_to_host().shape == (0, 4)


# --- every array-taking API ----------------------------------------------------


def test_to_device_of_a_producer_is_a_view():
    d = cuda.to_device(np.arange(10.0))
    v = cuda.to_device(producer_of(d[2:8:2]))
    assert isinstance(v, cuda.DeviceNDArray)
    assert v._pointer == d[2:]._pointer
    v[1] = -4.0
    assert d.copy_to_host()[4] == -4.0
    d[6] = -6.0
    assert v.copy_to_host()[2] == -6.0


def test_copy_to_device_copies_from_a_producer():
    src = cuda.to_device(np.arange(6.0).reshape(2, 3))
    dst = cuda.device_array((2, 3))
    dst.copy_to_device(producer_of(src))
    np.testing.assert_array_equal(dst.copy_to_host(), np.arange(6.0).reshape(2, 3))
    src[0, 0] = 100.0  # a copy, not a view
    assert dst.copy_to_host()[0, 0] == 0.0
    with pytest.raises(ValueError, match="shapes differ"):
        cuda.device_array(5).copy_to_device(producer_of(src))


def test_setitem_takes_a_producer_as_the_value():
    src = cuda.to_device(np.array([7, 8, 9], dtype=np.int32))
    dst = cuda.to_device(np.zeros(6, dtype=np.int32))
    dst[1:4] = producer_of(src)
    np.testing.assert_array_equal(dst.copy_to_host(), [0, 7, 8, 9, 0, 0])
    dst[::2] = producer_of(src[::-1])  # a negative-stride source
    np.testing.assert_array_equal(dst.copy_to_host(), [9, 7, 8, 9, 7, 0])
    dst.setitem(slice(3, 6), producer_of(src), stream=0)
    np.testing.assert_array_equal(dst.copy_to_host(), [9, 7, 8, 7, 8, 9])
    # Another dtype converts, as assignment of a device array does.
    dst[0:3] = producer_of(cuda.to_device(np.array([1.0, 2.0, 3.0])))
    np.testing.assert_array_equal(dst.copy_to_host()[:3], [1, 2, 3])


def test_device_array_like_takes_a_producer():
    d = cuda.to_device(np.asfortranarray(np.zeros((3, 5), dtype=np.complex64)))
    like = cuda.device_array_like(producer_of(d))
    assert like.shape == (3, 5) and like.dtype == np.complex64
    assert like.is_f_contiguous() and not like.is_c_contiguous()
    assert like._pointer != d._pointer


def test_to_device_into_a_producer():
    d = cuda.device_array(4, dtype=np.int64)
    p = producer_of(d)
    assert cuda.to_device(np.array([4, 3, 2, 1]), to=p) is p
    np.testing.assert_array_equal(d.copy_to_host(), [4, 3, 2, 1])


def test_assigning_a_producer_to_itself_through_a_view():
    d = cuda.to_device(np.arange(6, dtype=np.int32))
    d[::-1] = producer_of(d)  # overlapping: read out first, as NumPy does
    np.testing.assert_array_equal(d.copy_to_host(), [5, 4, 3, 2, 1, 0])


# --- lifetimes -----------------------------------------------------------------


@pytest.mark.parametrize("entry", ["as_cuda_array", "to_device"])
def test_the_producer_lives_as_long_as_the_view(entry):
    d = cuda.to_device(np.arange(20.0))
    p = producer_of(d)
    alive = weakref.ref(p)
    x = getattr(cuda, entry)(p)
    views = [x[3:6], x[::5]]
    del p, d, x
    settle()
    assert alive() is not None
    np.testing.assert_array_equal(views[0].copy_to_host(), [3.0, 4.0, 5.0])
    del views
    settle()
    assert alive() is None


def test_a_copy_does_not_hold_the_producer():
    d = cuda.to_device(np.arange(5.0))
    p = producer_of(d)
    alive = weakref.ref(p)
    dst = cuda.device_array(5)
    dst.copy_to_device(p)
    dst[:] = p
    like = cuda.device_array_like(p)
    del p, d
    settle()
    assert alive() is None
    assert like.shape == (5,)
    np.testing.assert_array_equal(dst.copy_to_host(), np.arange(5.0))


# --- read-only -----------------------------------------------------------------


def test_read_only_is_honoured():
    d = cuda.to_device(np.arange(4.0))
    p = producer_of(d, data=(d._pointer, True))
    for x in (cuda.as_cuda_array(p), cuda.to_device(p)):
        assert x.flags["WRITEABLE"] is False
        assert x[1:].flags["WRITEABLE"] is False
        with pytest.raises(ValueError, match="read-only"):
            x[0] = 9.0
        with pytest.raises(ValueError, match="read-only"):
            x.copy_to_device(np.zeros(4))
    with pytest.raises(ValueError, match="read-only"):
        cuda.to_device(np.zeros(4), to=p)
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(4.0))
    # A read-only array is still a source.
    dst = cuda.device_array(4)
    dst[:] = p
    np.testing.assert_array_equal(dst.copy_to_host(), np.arange(4.0))


@cpu_only
def test_a_read_only_numpy_buffer_stays_read_only():
    a = np.arange(4.0)
    a.flags.writeable = False
    x = cuda.as_cuda_array(producer_of(a))
    assert x.flags["WRITEABLE"] is False
    with pytest.raises(ValueError, match="read-only"):
        x[:] = 0.0


# --- malformed interfaces ------------------------------------------------------

# The memory: 2 MiB of int32, a whole number of every allocation granule in
# use (the cpu backend's 256 bytes, the driver's pools' 2 MiB), so the end of
# the elements is the end of the allocation the runtime knows.
N = 1 << 19


@pytest.fixture
def mem():
    return cuda.to_device(np.arange(N, dtype=np.int32))


def bad_cases(ptr):
    """(id, interface changes, error, message fragment naming the fault)."""
    return [
        ("missing-shape", dict(shape=DROP), ValueError, "'shape'"),
        ("missing-typestr", dict(typestr=DROP), ValueError, "'typestr'"),
        ("missing-data", dict(data=DROP), ValueError, "'data'"),
        ("missing-version", dict(version=DROP), ValueError, "'version'"),
        ("version-4", dict(version=4), ValueError, "version 4"),
        ("version-negative", dict(version=-1), ValueError, "version -1"),
        ("version-str", dict(version="3"), TypeError, "'version'"),
        ("mask", dict(mask=np.zeros(N, bool)), ValueError, "mask"),
        ("typestr-garbage", dict(typestr="xx"), TypeError, "typestr"),
        ("typestr-width", dict(typestr="<f3"), TypeError, "typestr"),
        ("typestr-big-endian", dict(typestr=">i4"), TypeError, "typestr.*big-endian"),
        ("typestr-object", dict(typestr="|O8"), TypeError, "typestr.*objects"),
        ("typestr-not-str", dict(typestr=4), TypeError, "'typestr'"),
        ("shape-not-tuple", dict(shape=N), TypeError, "'shape'"),
        ("shape-float", dict(shape=(float(N),)), TypeError, "shape"),
        ("shape-negative", dict(shape=(-1,)), ValueError, "negative.*shape"),
        ("shape-too-many-dims", dict(shape=(1,) * 65), ValueError, "dimensions"),
        ("shape-overflow", dict(shape=(2**40, 2**40)), ValueError, "shape .* overflows"),
        ("strides-not-tuple", dict(strides=4), TypeError, "'strides'"),
        ("strides-too-many", dict(strides=(4, 4)), ValueError, "'strides' has 2 entries"),
        ("strides-too-few", dict(shape=(8, 8), strides=(32,)), ValueError, "'strides' has 1 entries"),
        ("strides-not-whole-items", dict(strides=(6,)), ValueError, "stride 6 is not a whole number"),
        ("strides-float", dict(strides=(4.0,)), TypeError, "strides"),
        ("strides-overflow", dict(strides=(2**62,)), ValueError, "extent overflows"),
        ("data-list", dict(data=[ptr, False]), TypeError, "'data'"),
        ("data-one-item", dict(data=(ptr,)), TypeError, "'data'"),
        ("data-pointer-str", dict(data=("0x10", False)), TypeError, "data pointer"),
        ("data-pointer-negative", dict(data=(-256, False)), ValueError, "data pointer is negative"),
        ("null-pointer-with-elements", dict(data=(0, False)), ValueError, "null"),
        ("past-the-end", dict(shape=(N + 1,)), ValueError, "outside its allocation"),
        ("past-the-end-strided", dict(shape=(N // 2 + 1,), strides=(8,)), ValueError, "outside its allocation"),
        ("negative-stride-before-start", dict(strides=(-4,)), ValueError, "outside its allocation"),
        (
            "negative-stride-one-too-far",
            dict(data=(ptr + 4 * (N - 2), False), strides=(-4,)),
            ValueError,
            "outside its allocation",
        ),
        ("stream-0", dict(stream=0), ValueError, "'stream' 0"),
        ("stream-negative", dict(stream=-3), ValueError, "'stream'"),
        ("stream-str", dict(stream="1"), TypeError, "'stream'"),
        ("stream-float", dict(stream=1.0), TypeError, "'stream'"),
    ]


CASE_IDS = [c[0] for c in bad_cases(0)]


@pytest.mark.parametrize("entry", ["as_cuda_array", "to_device", "copy_to_device", "setitem", "device_array_like"])
@pytest.mark.parametrize("case", CASE_IDS)
def test_a_malformed_field_is_named(mem, case, entry):
    _, changes, error, fragment = next(c for c in bad_cases(mem._pointer) if c[0] == case)
    p = Producer(interface(mem, **changes), mem)
    with pytest.raises(error, match=fragment):
        if entry == "copy_to_device":
            cuda.device_array(N, dtype=np.int32).copy_to_device(p)
        elif entry == "setitem":
            cuda.device_array(N, dtype=np.int32)[:] = p
        else:
            getattr(cuda, entry)(p)


def test_a_refused_producer_is_let_go(mem):
    """A failed import drops the reference it took to the producer, once."""
    for case in bad_cases(mem._pointer):
        p = Producer(interface(mem, **case[1]), mem)
        refs = sys.getrefcount(p)
        alive = weakref.ref(p)
        with pytest.raises(case[2]):
            cuda.as_cuda_array(p)
        assert sys.getrefcount(p) == refs, case[0]  # at once: nothing was adopted
        del p
        assert alive() is None, case[0]


def test_the_edges_of_the_allocation_are_accepted(mem):
    """The counterparts of the extent cases above: one item less is fine."""
    ok = [
        dict(shape=(N,)),
        dict(shape=(N // 2,), strides=(8,)),
        dict(data=(mem._pointer + 4 * (N - 1), False), strides=(-4,)),
    ]
    for changes in ok:
        x = cuda.as_cuda_array(Producer(interface(mem, **changes), mem))
        assert x.size in (N, N // 2)
    x = cuda.as_cuda_array(Producer(interface(mem, data=(mem._pointer + 4 * (N - 1), False), strides=(-4,)), mem))
    np.testing.assert_array_equal(x.copy_to_host(), np.arange(N)[::-1])


@pytest.mark.parametrize("desc", [[("shape", (1,))], None, "interface", 3], ids=repr)
def test_an_interface_that_is_not_a_dict_is_a_type_error(desc):
    with pytest.raises(TypeError, match="must be a dict"):
        cuda.as_cuda_array(Producer(desc))
    with pytest.raises(TypeError, match="must be a dict"):
        cuda.to_device(Producer(desc))


def test_as_cuda_array_of_what_has_no_interface_is_a_type_error():
    for obj in (np.zeros(3), [1, 2, 3], object(), 4.0):
        with pytest.raises(TypeError, match="CUDA Array Interface"):
            cuda.as_cuda_array(obj)


class Broken:
    @property
    def __cuda_array_interface__(self):
        raise RuntimeError("the producer failed")


def test_a_producers_own_error_propagates():
    with pytest.raises(RuntimeError, match="the producer failed"):
        cuda.as_cuda_array(Broken())
    with pytest.raises(RuntimeError, match="the producer failed"):
        cuda.to_device(Broken())
    with pytest.raises(RuntimeError, match="the producer failed"):
        cuda.device_array(3).copy_to_device(Broken())
    with pytest.raises(RuntimeError, match="the producer failed"):
        cuda.is_cuda_array(Broken())


# --- is_cuda_array / as_cuda_array of our arrays --------------------------------


def test_is_cuda_array():
    d = cuda.device_array(3)
    assert cuda.is_cuda_array(d)
    assert cuda.is_cuda_array(d[1:])
    assert cuda.is_cuda_array(producer_of(d))
    assert not cuda.is_cuda_array(np.zeros(3))
    assert not cuda.is_cuda_array(object())
    assert not cuda.is_cuda_array([1.0])
    assert not cuda.is_cuda_array(cuda.pinned_array(3))


@cpu_only
def test_mapped_and_managed_arrays_are_not_cuda_arrays_on_the_cpu_backend():
    for m in (cuda.mapped_array(3), cuda.managed_array(3)):
        assert not hasattr(m, "__cuda_array_interface__")
        assert not cuda.is_cuda_array(m)


def test_as_cuda_array_of_our_array_is_the_array():
    d = cuda.device_array(3)
    assert cuda.as_cuda_array(d) is d
    assert cuda.as_cuda_array(d, sync=False) is d


@cpu_only
def test_our_arrays_offer_no_interface_on_the_cpu_backend():
    d = cuda.device_array(3)
    with pytest.raises(AttributeError, match="cpu backend"):
        d.__cuda_array_interface__
    assert not hasattr(d, "__cuda_array_interface__")


# --- the stream rule -------------------------------------------------------------

M = 4096


def staged(stream):
    """Memory whose new contents (all 1.0) are written by work queued on
    `stream`: until that work runs, it reads all 0.0."""
    d = cuda.to_device(np.zeros(M))
    src = cuda.to_device(np.ones(M))
    d.copy_to_device(src, stream=stream)
    return d, src


def read_now(x, reader):
    """The contents, read without waiting for any other stream."""
    return x.copy_to_host(stream=reader)


@pytest.mark.parametrize("entry", ["as_cuda_array", "to_device", "copy_to_device", "setitem"])
def test_import_waits_for_the_producers_stream(held, entry):
    s = cuda.stream(non_blocking=True)
    reader = cuda.stream(non_blocking=True)
    dst = cuda.device_array(M)
    with held(s) as gate:
        d, src = staged(s)
        p = producer_of(d, stream=s.handle_value)
        assert not read_now(d, reader).any()  # held back
        timer = threading.Timer(0.2, gate.set)
        timer.start()
        if entry in ("as_cuda_array", "to_device"):
            x = getattr(cuda, entry)(p)
            assert gate.is_set()
            got = read_now(x, reader)
        else:
            if entry == "copy_to_device":
                dst.copy_to_device(p, stream=reader)
            else:
                dst.setitem(slice(None), p, stream=reader)
            assert gate.is_set()
            reader.synchronize()
            got = read_now(dst, reader)
        np.testing.assert_array_equal(got, np.ones(M))
    timer.join()


def test_as_cuda_array_without_sync_does_not_wait(held):
    s = cuda.stream(non_blocking=True)
    reader = cuda.stream(non_blocking=True)
    with held(s) as gate:
        d, src = staged(s)
        x = cuda.as_cuda_array(producer_of(d, stream=s.handle_value), sync=False)
        assert not gate.is_set()
        assert not read_now(x, reader).any()  # the producer's work has not run
        gate.set()
        s.synchronize()
        np.testing.assert_array_equal(read_now(x, reader), np.ones(M))


@pytest.mark.parametrize("stream", [1, 2])
def test_the_default_streams_are_accepted(stream):
    d = cuda.to_device(np.arange(4.0))
    x = cuda.as_cuda_array(producer_of(d, stream=stream))
    np.testing.assert_array_equal(x.copy_to_host(), np.arange(4.0))


ENV_SCRIPT = """
import threading
import numpy as np
from cuforge import cuda

class Producer:
    def __init__(self, desc):
        self.__cuda_array_interface__ = desc

M = 4096
s = cuda.stream(non_blocking=True)
reader = cuda.stream(non_blocking=True)
d = cuda.to_device(np.zeros(M))
src = cuda.to_device(np.ones(M))
gate = threading.Event()
s.add_callback(lambda *args: gate.wait(30))
d.copy_to_device(src, stream=s)
timer = threading.Timer(DELAY, gate.set)  # lets go of the stream if the import waits
timer.daemon = True
timer.start()
x = cuda.as_cuda_array(Producer(dict(shape=(M,), typestr="<f8", data=(d._pointer, False), version=3,
                                     stream=s.handle_value)))
waited = gate.is_set()
seen = float(x.copy_to_host(stream=reader).sum())
gate.set()
timer.cancel()
s.synchronize()
print("waited" if waited else "did-not-wait", seen)
"""


@pytest.mark.parametrize(
    "env, expect",
    [
        ({}, f"waited {float(M)}"),
        ({"CUFORGE_CUDA_ARRAY_INTERFACE_SYNC": "0"}, "did-not-wait 0.0"),
        ({"NUMBA_CUDA_ARRAY_INTERFACE_SYNC": "0"}, "did-not-wait 0.0"),
        ({"CUFORGE_CUDA_ARRAY_INTERFACE_SYNC": "1", "NUMBA_CUDA_ARRAY_INTERFACE_SYNC": "0"}, f"waited {float(M)}"),
    ],
    ids=["default", "cuforge-0", "numba-0", "cuforge-wins"],
)
def test_the_sync_environment_variable(run_python, env, expect):
    full = {"CUFORGE_CUDA_ARRAY_INTERFACE_SYNC": "", "NUMBA_CUDA_ARRAY_INTERFACE_SYNC": ""}
    full.update(env)
    # Where no wait is expected the timer stays out of the way: a wrong wait
    # shows as "waited" (after 20 s) instead of depending on timing.
    delay = 0.3 if expect.startswith("waited") else 20
    r = run_python(f"DELAY = {delay}\n" + ENV_SCRIPT, env=full, timeout=60)
    assert r.rc == 0, r
    assert r.stdout.strip() == expect, r


# --- our export (cuda backend) ---------------------------------------------------


@pytest.mark.gpu
def test_our_interface_on_the_cuda_backend():
    d = cuda.to_device(np.arange(12, dtype=np.float32).reshape(3, 4))
    ai = d.__cuda_array_interface__
    assert ai == {
        "shape": (3, 4),
        "strides": None,
        "data": (d._pointer, False),
        "typestr": "<f4",
        "stream": None,
        "version": 3,
    }
    v = d[::-1, 1::2]
    av = v.__cuda_array_interface__
    assert av["strides"] == (-16, 8)
    assert av["data"] == (v._pointer, False)
    assert av["shape"] == (3, 2)
    assert cuda.to_device(np.zeros((0, 3))).__cuda_array_interface__["shape"] == (0, 3)
    z = cuda.to_device(np.float64(2.0))
    assert z.__cuda_array_interface__["shape"] == () and z.__cuda_array_interface__["strides"] is None


@pytest.mark.gpu
def test_our_interface_names_the_bound_stream():
    s = cuda.stream()
    assert cuda.device_array(3).__cuda_array_interface__["stream"] is None
    assert cuda.device_array(3, stream=s).__cuda_array_interface__["stream"] == s.handle_value
    assert cuda.device_array(3).bind(s).__cuda_array_interface__["stream"] == s.handle_value
    assert cuda.device_array(3, stream=cuda.legacy_default_stream()).__cuda_array_interface__["stream"] == 1
    assert cuda.device_array(3, stream=cuda.per_thread_default_stream()).__cuda_array_interface__["stream"] == 2


@pytest.mark.gpu
def test_our_interface_of_a_read_only_array_says_so():
    d = cuda.to_device(np.arange(3.0))
    r = cuda.as_cuda_array(producer_of(d, data=(d._pointer, True)))
    assert r.__cuda_array_interface__["data"] == (d._pointer, True)


@pytest.mark.gpu
def test_our_interface_round_trips():
    d = cuda.to_device(np.arange(10.0))[::3]
    x = cuda.as_cuda_array(Producer(d.__cuda_array_interface__, d))
    assert x._pointer == d._pointer and x.strides == d.strides
    x[0] = 50.0
    assert d.copy_to_host()[0] == 50.0


@pytest.mark.gpu
@pytest.mark.parametrize("kind", ["mapped", "managed"])
def test_mapped_and_managed_arrays_export_their_device_pointer(kind):
    m = getattr(cuda, f"{kind}_array")((4, 6), dtype=np.int32)
    m[...] = np.arange(24, dtype=np.int32).reshape(4, 6)
    dev = m.device_view()
    assert dev.__cuda_array_interface__["data"] == (dev._pointer, False)
    ai = m.__cuda_array_interface__  # numba's mapped and managed arrays offer it too
    assert ai["data"][0] == dev._pointer
    assert ai["shape"] == (4, 6) and ai["typestr"] == "<i4"
    view = m[1:, ::2]
    assert view.__cuda_array_interface__["data"][0] == view.device_view()._pointer
    assert view.__cuda_array_interface__["strides"] == (24, 8)
    assert cuda.is_cuda_array(m)
    assert not hasattr(m + 1, "__cuda_array_interface__")  # NumPy's result: new, pageable memory
    x = cuda.as_cuda_array(m)
    np.testing.assert_array_equal(x.copy_to_host(), m)


class _JaxLike(Producer):
    """Stands in for a JAX array on a GPU: its type comes from jaxlib, and its interface says
    writable, as JAX's does, though JAX arrays are immutable."""

    __module__ = "jaxlib._jax"


def test_a_jax_array_imports_read_only_through_the_interface_too():
    d = cuda.to_device(np.arange(4.0))
    x = cuda.as_cuda_array(_JaxLike(interface(d), owner=d))
    assert x.flags["WRITEABLE"] is False
    with pytest.raises(ValueError, match="read-only"):
        x[0] = 1.0

    @cuda.jit
    def bump(v):
        v[cuda.grid(1)] += 1

    with pytest.raises(cuda.TypingError, match="read-only array"):
        bump[1, 4](_JaxLike(interface(d), owner=d))
    assert cuda.as_cuda_array(producer_of(d)).flags["WRITEABLE"] is True  # any other producer: as it says
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(4.0))
