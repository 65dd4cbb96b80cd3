"""numba.cuda.cudadrv.devicearray's names over cuforge's DeviceNDArray:
the classes, the checks libraries make on arguments, and ``auto_device``,
numba's "device array for anything" step."""

import numpy as np

from cuforge import _core
from cuforge.cuda._hostarrays import ManagedNDArray, MappedNDArray

__all__ = [
    "DeviceNDArray",
    "DeviceNDArrayBase",
    "DeviceRecord",
    "ManagedNDArray",
    "MappedNDArray",
    "array_core",
    "auto_device",
    "check_array_compatibility",
    "errmsg_contiguous_buffer",
    "from_array_like",
    "from_record_like",
    "is_cuda_ndarray",
    "require_cuda_ndarray",
    "sentry_contiguous",
    "verify_cuda_ndarray_interface",
]

DeviceNDArray = _core.DeviceNDArray
#: numba's base class of its device arrays; cuforge has one class.
DeviceNDArrayBase = _core.DeviceNDArray

errmsg_contiguous_buffer = (
    "Array contains non-contiguous buffer and cannot be transferred as a single memory region. Please "
    "ensure contiguous buffer with numpy .ascontiguousarray()"
)


class DeviceRecord:
    """A single record (one element of a structured dtype) in device memory.

    Structured dtypes are not supported in device arrays yet (they come
    with the records work of issue 11); the class exists so that code
    importing it, and isinstance checks against it, work."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("device records (structured dtypes) are not supported yet")


def is_cuda_ndarray(obj):
    """Whether ``obj`` is a cuforge device array (numba: one of its own)."""
    return _core.is_device_array(obj)


def verify_cuda_ndarray_interface(obj):
    """Raises AttributeError unless ``obj`` has a device array's attributes."""
    for attr, kind in (("shape", tuple), ("strides", tuple), ("dtype", np.dtype), ("size", int)):
        if not hasattr(obj, attr):
            raise AttributeError(f"device array lacks attribute {attr!r}")
        if not isinstance(getattr(obj, attr), kind):
            raise AttributeError(f"device array attribute {attr!r} is not a {kind.__name__}")


def require_cuda_ndarray(obj):
    """Raises ValueError unless ``obj`` is a cuforge device array."""
    if not is_cuda_ndarray(obj):
        raise ValueError("require a cuda ndarray object")


def sentry_contiguous(ary):
    """Raises ValueError unless ``ary``'s elements are one contiguous region
    (C or F order, broadcast dimensions aside)."""
    core = array_core(ary)
    flags = core.flags
    if not (flags["C_CONTIGUOUS"] or flags["F_CONTIGUOUS"]):
        raise ValueError(errmsg_contiguous_buffer)


def array_core(ary):
    """``ary`` without its broadcast dimensions (stride 0), which take no
    memory: the part that has to be transferred."""
    if not getattr(ary, "strides", None) or not ary.size:
        return ary
    index = tuple(0 if stride == 0 else slice(None) for stride in ary.strides)
    return ary[index]


def check_array_compatibility(ary1, ary2):
    """Raises TypeError or ValueError unless the two arrays have the same
    dtype, shape and strides (their broadcast dimensions aside), as a copy
    between them needs."""
    a1, a2 = array_core(ary1), array_core(ary2)
    if ary1.dtype != ary2.dtype:
        raise TypeError(f"incompatible dtype: {ary1.dtype} vs. {ary2.dtype}")
    if a1.shape != a2.shape:
        raise ValueError(f"incompatible shape: {ary1.shape} vs. {ary2.shape}")
    if a1.size > 1 and a1.strides != a2.strides:
        raise ValueError(f"incompatible strides: {ary1.strides} vs. {ary2.strides}")


def from_array_like(ary, stream=0, gpu_data=None):
    """A new, uninitialised device array with ``ary``'s shape, strides and
    dtype."""
    if gpu_data is not None:
        raise NotImplementedError("from_array_like(gpu_data=...) is not supported: use cuda.as_cuda_array")
    return DeviceNDArray(ary.shape, ary.strides, ary.dtype, stream=stream)


def from_record_like(rec, stream=0, gpu_data=None):
    """numba's device record like ``rec``: not supported yet (records)."""
    raise NotImplementedError("device records (structured dtypes) are not supported yet")


def auto_device(obj, stream=0, copy=True, user_explicit=False):
    """``(device array, converted)`` for ``obj``: a device array or another
    library's (``__cuda_array_interface__``) as it is (converted False), else
    a new device array holding a copy of the host data (converted True; with
    ``copy=False`` allocated only)."""
    del user_explicit  # numba's: it only tunes a performance warning
    if _core.is_device_array(obj):
        return obj, False
    if hasattr(obj, "__cuda_array_interface__"):
        return _core.as_cuda_array(obj), False
    if isinstance(obj, np.void):
        raise NotImplementedError("device records (structured dtypes) are not supported yet")
    if not isinstance(obj, np.ndarray):
        obj = np.asarray(obj)
    sentry_contiguous(obj)
    return _core.to_device(obj, stream=stream, copy=copy), True
