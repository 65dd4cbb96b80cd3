"""The numba.cuda module surface real code imports: cuforge.types' classes,
domains and dtype conversions; cuda.cudadrv.devicearray and .driver;
cuda.In / Out / InOut with cuda.args.wrap_arg; and the error a kernel gets
for what allocates an array (np.zeros). The expected values are numba-cuda
0.30's (read from it: types' domains and classes, auto_device's and the
argument hints' behaviour)."""

import numpy as np
import pytest

from cuforge import cuda
from cuforge import types as t

# --- cuforge.types -------------------------------------------------------------------------------------


def test_domains_are_numbas():
    names = lambda d: sorted(str(x) for x in d)  # noqa: E731
    assert names(t.signed_domain) == ["int16", "int32", "int64", "int8"]
    assert names(t.unsigned_domain) == ["uint16", "uint32", "uint64", "uint8"]
    assert t.integer_domain == t.signed_domain | t.unsigned_domain
    assert names(t.real_domain) == ["float32", "float64"]  # float16 is not a real_domain member in Numba either
    assert names(t.complex_domain) == ["complex128", "complex64"]
    assert t.number_domain == t.real_domain | t.integer_domain | t.complex_domain
    assert t.float32 in t.real_domain and t.from_dtype(np.int16) in t.signed_domain


def test_scalar_classes():
    assert isinstance(t.int32, t.Integer) and isinstance(t.int32, t.Number) and isinstance(t.int32, t.Scalar)
    assert t.int32.signed and not t.uint64.signed and t.int32.bitwidth == 32
    assert isinstance(t.float16, t.Float) and isinstance(t.complex64, t.Complex)
    assert isinstance(t.bool_, t.Boolean) and not isinstance(t.bool_, t.Number)
    assert t.complex64.underlying_float == t.float32 and t.complex128.underlying_float == t.float64


def test_type_subclass_with_a_name():
    class Opaque(t.Type):
        def __init__(self):
            super().__init__(name="Opaque")

    a, b = Opaque(), Opaque()
    assert a == b and hash(a) == hash(b) and str(a) == "Opaque" and a.name == "Opaque"
    assert a != t.int32

    class Unnamed(t.Type):
        pass

    with pytest.raises(NotImplementedError, match="give Type.__init__ a name"):
        Unnamed().spec


def test_pointers_and_times():
    p = t.CPointer(t.float32)
    assert str(p) == "float32*" and p == t.CPointer(t.float32) and p != t.CPointer(t.int32)
    assert p.dtype == t.float32
    assert str(t.NPDatetime("ns")) == "datetime64[ns]" and str(t.NPTimedelta("s")) == "timedelta64[s]"
    assert t.from_dtype("M8[ms]") == t.NPDatetime("ms") and t.from_dtype("m8[us]") == t.NPTimedelta("us")
    assert t.as_dtype(t.NPDatetime("ns")) == np.dtype("M8[ns]")
    with pytest.raises(TypeError):
        t.NPDatetime("parsecs")


@pytest.mark.parametrize("aligned", [False, True])
def test_records_from_structured_dtypes(aligned):
    inner = np.dtype([("x", np.int8), ("y", np.float32)], align=aligned)
    dt = np.dtype([("a", np.int8), ("b", np.float64), ("c", inner), ("d", np.int16, (3,))], align=aligned)
    r = t.from_dtype(dt)
    assert isinstance(r, t.Record) and r.size == dt.itemsize and r.aligned == aligned
    assert [n for n, _ in r.members] == ["a", "b", "c", "d"]
    assert r.typeof("b") == t.float64 and r.offset("b") == dt.fields["b"][1]
    assert isinstance(r.typeof("c"), t.Record) and r.typeof("c").offset("y") == inner.fields["y"][1]
    assert r.typeof("d") == t.NestedArray(t.int16, (3,)) and r.typeof("d").nitems == 3
    assert t.as_dtype(r) == dt and t.from_dtype(dt) == r


def test_as_dtype_inverts_from_dtype():
    for name in ["bool", "int8", "uint64", "float16", "float32", "complex128"]:
        assert t.as_dtype(t.from_dtype(name)) == np.dtype(name)
    with pytest.raises(NotImplementedError):
        t.as_dtype(t.float32[:])


# --- cuda.cudadrv.devicearray ---------------------------------------------------------------------------


def test_devicearray_module():
    from cuforge.cuda.cudadrv import devicearray as da

    assert cuda.devicearray is da and da.DeviceNDArray is cuda.DeviceNDArray
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    dev, converted = da.auto_device(host)
    assert converted and da.is_cuda_ndarray(dev) and np.array_equal(dev.copy_to_host(), host)
    same, converted = da.auto_device(dev)
    assert same is dev and not converted
    empty, converted = da.auto_device([1, 2, 3], copy=False)
    assert converted and empty.shape == (3,)
    assert not da.is_cuda_ndarray(host)
    da.verify_cuda_ndarray_interface(dev)
    da.require_cuda_ndarray(dev)
    with pytest.raises(ValueError):
        da.require_cuda_ndarray(host)
    with pytest.raises(AttributeError):
        da.verify_cuda_ndarray_interface(object())
    like = da.from_array_like(host)
    assert (like.shape, like.strides, like.dtype) == (host.shape, host.strides, host.dtype)
    da.check_array_compatibility(dev, host)
    with pytest.raises(ValueError, match="shape"):
        da.check_array_compatibility(dev, host.T)
    with pytest.raises(TypeError, match="dtype"):
        da.check_array_compatibility(dev, host.astype(np.float64))
    with pytest.raises(ValueError, match="non-contiguous"):
        da.auto_device(np.zeros((4, 4))[:, ::2])
    bcast = np.broadcast_to(np.arange(3.0), (5, 3))
    assert da.array_core(bcast).shape == (3,)
    rec = da.DeviceRecord(np.dtype([("a", np.float64), ("b", np.int32)]))
    assert rec.dtype.names == ("a", "b") and da.from_record_like(rec.copy_to_host()[()]).dtype == rec.dtype
    with pytest.raises(TypeError, match="structured dtype"):
        da.DeviceRecord(np.float32)
    assert isinstance(cuda.mapped_array(3), da.MappedNDArray)


# --- cuda.cudadrv.driver ----------------------------------------------------------------------------------


def test_driver_module():
    from cuforge.cuda.cudadrv import driver

    assert cuda.driver is driver
    dev = cuda.to_device(np.arange(10, dtype=np.int64))
    assert driver.is_device_memory(dev) and not driver.is_device_memory(np.zeros(3))
    assert driver.device_pointer(dev) == dev._pointer
    assert driver.device_pointer(dev[2:]) == dev._pointer + 16
    assert driver.device_memory_size(dev) == 80 and driver.device_memory_size(dev[::2]) == 72
    host = np.zeros(4)
    assert driver.host_pointer(host) == host.ctypes.data
    major, minor = driver.get_version()
    if cuda.backend() == "cpu":
        assert (major, minor) == (0, 0)  # no driver
    else:
        assert major >= 12 and 0 <= minor < 100
    assert driver.driver.get_device_count() >= 1
    assert issubclass(driver.CudaAPIError, Exception) and issubclass(driver.CudaSupportError, ImportError)
    with pytest.raises(TypeError, match="not device memory"):
        driver.device_pointer(host)


# --- cuda.In / cuda.Out / cuda.InOut ---------------------------------------------------------------------


@cuda.jit
def add_and_clear(a, b, c):
    i = cuda.grid(1)
    if i < a.size:
        c[i] = a[i] + b[i]
        b[i] = 0


def test_argument_hints_choose_the_transfers():
    a, b, c = np.arange(5.0), np.ones(5), np.full(5, 7.0)
    add_and_clear[1, 8](cuda.In(a), cuda.In(b), cuda.Out(c))
    assert np.array_equal(b, np.ones(5)), "In is not copied back"
    assert np.array_equal(c, np.arange(5.0) + 1), "Out is copied back"
    add_and_clear[1, 8](a, cuda.InOut(b), cuda.InOut(c))
    assert np.array_equal(b, np.zeros(5)) and np.array_equal(c, np.arange(5.0) + 1)
    d = cuda.to_device(np.ones(5))
    add_and_clear[1, 8](cuda.In(a), cuda.In(d), cuda.Out(c))  # a device array is used in place
    assert np.array_equal(d.copy_to_host(), np.zeros(5))
    assert cuda.args.wrap_arg(a).__class__ is cuda.InOut
    hint = cuda.In(a)
    assert cuda.args.wrap_arg(hint) is hint and cuda.args.wrap_arg(a, cuda.Out).__class__ is cuda.Out


def test_argument_hints_to_device_protocol():
    c = np.full(4, 3.0)
    retr = []
    dev = cuda.Out(c).to_device(retr)
    assert cuda.devicearray.is_cuda_ndarray(dev) and len(retr) == 1
    dev.copy_to_device(np.arange(4.0))
    retr[0]()
    assert np.array_equal(c, np.arange(4.0))
    retr = []
    cuda.In(c).to_device(retr)
    assert retr == []


# --- what kernels cannot do ---------------------------------------------------------------------------


def test_array_allocation_in_a_kernel_says_what_to_use(tmp_path):
    @cuda.jit
    def k(out):
        tmp = np.zeros(4)
        out[0] = tmp[0]

    with pytest.raises(cuda.TypingError, match=r"numpy\.zeros makes a new array.*cuda\.local\.array") as e:
        k[1, 1](np.zeros(1))
    assert e.value.lineno is not None and "np.zeros(4)" in e.value.source_line

    @cuda.jit
    def k2(out):
        out[0] = np.polyval(out, 1.0)

    with pytest.raises(cuda.TypingError, match=r"numpy\.polyval is not supported in kernels"):
        k2[1, 1](np.zeros(1))
