"""Run by test_known_producers.py in a child process, on the cpu backend:
stand-ins for CuPy's ndarray and PyTorch's Tensor, put in sys.modules as
`cupy` and `torch`, over NumPy memory (device memory is host memory on the
cpu backend). A launch reads these exact types through their attributes
(python/src/interop.cpp, read_known_producer) and never their
__cuda_array_interface__, which here raises to prove it; a subclass, a
tensor that requires grad, and a type whose attributes are not the expected
ones go through the interface. Prints "ok" when every check holds."""

import sys
import types

import numpy as np

# --- the stand-ins ---------------------------------------------------------------

cupy = types.ModuleType("cupy")
cupy_util = types.ModuleType("cupy._util")
cupy_util.CUDA_ARRAY_INTERFACE_EXPORT_VERSION = 3
cupy_cuda = types.ModuleType("cupy.cuda")
cupy_stream = types.ModuleType("cupy.cuda.stream")
current_stream = [0]
cupy_stream.get_current_stream_ptr = lambda: current_stream[0]
cupy._util, cupy.cuda, cupy_cuda.stream = cupy_util, cupy_cuda, cupy_stream
interface_reads = []


def interface_of(host):
    return {"shape": host.shape, "strides": host.strides, "typestr": host.dtype.str,
            "data": (host.ctypes.data, False), "version": 3}


class MemoryPointer:
    def __init__(self, ptr):
        self.ptr, self.device_id = ptr, 0


class ndarray:  # CuPy's attributes: data.ptr, data.device_id, shape, strides, dtype
    def __init__(self, host):
        self._host = host
        self.data, self.shape, self.strides, self.dtype = MemoryPointer(host.ctypes.data), host.shape, host.strides, host.dtype

    @property
    def __cuda_array_interface__(self):
        raise AssertionError("a launch read a CuPy array's interface")


class cupy_subclass(ndarray):
    @property
    def __cuda_array_interface__(self):
        interface_reads.append(self)
        return interface_of(self._host)


cupy.ndarray = ndarray

torch = types.ModuleType("torch")
for name in ["float16", "float32", "float64", "int8", "uint8", "int16", "int32", "int64", "bool",
             "complex64", "complex128", "bfloat16"]:
    setattr(torch, name, types.SimpleNamespace(name=name))


class Size(tuple):
    pass


class Tensor:  # PyTorch's: is_cuda, requires_grad, is_sparse, dtype, shape, stride(), data_ptr(), get_device()
    def __init__(self, host, requires_grad=False, dtype=None):
        self._host, self.requires_grad = host, requires_grad
        self.is_cuda, self.is_sparse = True, False
        self.dtype = dtype or getattr(torch, host.dtype.name)
        self.shape = Size(host.shape)

    def stride(self):
        return tuple(s // self._host.itemsize for s in self._host.strides)

    def data_ptr(self):
        return self._host.ctypes.data

    def get_device(self):
        return 0

    @property
    def __cuda_array_interface__(self):
        if self.requires_grad:
            raise RuntimeError("Can't get __cuda_array_interface__ on Variable that requires grad.")
        if self.dtype is torch.bfloat16:
            return {**interface_of(self._host), "typestr": "<V2"}
        raise AssertionError("a launch read a tensor's interface")


torch.Tensor = Tensor
sys.modules.update({"cupy": cupy, "cupy._util": cupy_util, "cupy.cuda": cupy_cuda, "cupy.cuda.stream": cupy_stream,
                    "torch": torch})

from cuforge import cuda  # noqa: E402


@cuda.jit
def copy_2d(src, dst):
    i, j = cuda.grid(2)
    if i < src.shape[0] and j < src.shape[1]:
        dst[i, j] = src[i, j]


@cuda.jit
def twice(src, dst):
    i = cuda.grid(1)
    if i < src.size:
        dst[i] = 2 * src[i]


def copied(src, shape, dtype):
    out = np.zeros(shape, dtype)
    copy_2d[(1, 1), (16, 16)](src, out)
    return out


base = np.arange(7 * 9).reshape(7, 9)
for dtype in ["bool", "int8", "uint16", "int32", "float16", "float32", "float64", "complex128"]:
    host = base.astype(dtype)
    for view in (host, host.T, host[::-1, 1::3], host[2:5, :0]):
        for wrap in (ndarray, Tensor):
            if wrap is Tensor and dtype == "uint16":
                continue  # not among the stand-in's dtypes
            got = copied(wrap(view), view.shape, view.dtype)
            assert (got == view).all(), (dtype, wrap.__name__, view.strides)

# A CuPy subclass goes through its interface, as before; a CuPy stream is waited for.
src, out = np.arange(10.0), np.zeros(10)
twice[1, 32](cupy_subclass(src), out)
assert interface_reads and (out == 2 * src).all()
s = cuda.stream()
current_stream[0] = s.handle_value
twice[1, 32](ndarray(src), out)
current_stream[0] = 0
assert (out == 2 * src).all()

# The same specialisation as through the interface: one per layout.
assert len(twice.signatures) == 1, twice.signatures
twice[1, 32](ndarray(src[::2]), out)
twice[1, 32](cupy_subclass(src[::2]), out)
assert len(twice.signatures) == 2, twice.signatures

# What PyTorch's interface refuses is refused at the launch with its error.
try:
    twice[1, 32](Tensor(src, requires_grad=True), out)
    raise AssertionError("a tensor that requires grad was taken")
except RuntimeError as e:
    assert "requires grad" in str(e), e
try:
    twice[1, 32](Tensor(src.astype(np.uint16), dtype=torch.bfloat16), out)
    raise AssertionError("a bfloat16 tensor was taken")
except TypeError as e:
    assert "V2" in str(e) or "void" in str(e), e

# A release whose attributes differ (no data.device_id here): its arrays go through the interface.
class ndarray_elsewhere(cupy_subclass):
    def __init__(self, host):
        super().__init__(host)
        self.data = types.SimpleNamespace(ptr=host.ctypes.data)


cupy.ndarray = ndarray_elsewhere
interface_reads.clear()
twice[1, 32](ndarray_elsewhere(src), out)
twice[1, 32](ndarray_elsewhere(src), out)
assert len(interface_reads) == 2 and (out == 2 * src).all()
print("ok")
