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
    """A single record (one element of a structured dtype) in device memory,
    as numba's: ``d_arr[i]`` of a device array of records is one (a view of
    the element), ``cuda.to_device(np_record)`` makes one. A kernel takes it
    as a record argument (its fields written in place).

    ``rec['f']`` reads a field: a scalar field is copied to the host, a
    nested record is a DeviceRecord and an array field a DeviceNDArray
    (views); ``rec['f'] = v`` writes one. ``copy_to_host()`` gives a 0-d
    NumPy array of the record dtype."""

    #: The kernel dispatcher's mark: pass ``_array`` (a 0-d device array of the record) as a record.
    _cuforge_record = True
    __cuda_ndarray__ = True
    __slots__ = ("_array",)

    def __init__(self, dtype, stream=0, gpu_data=None):
        if gpu_data is not None:
            raise NotImplementedError("DeviceRecord(gpu_data=...) is not supported: index a device array of records")
        dt = np.dtype(dtype)
        if dt.fields is None:
            raise TypeError(f"a DeviceRecord needs a structured dtype, not {dt}")
        self._array = _core.device_array((), dt, stream=stream)

    @classmethod
    def _wrap(cls, array):
        """The record a 0-d device array of a structured dtype holds (a view)."""
        rec = cls.__new__(cls)
        rec._array = array
        return rec

    dtype = property(lambda self: self._array.dtype)
    shape = property(lambda self: ())
    strides = property(lambda self: ())
    ndim = property(lambda self: 0)
    size = property(lambda self: 1)
    nbytes = property(lambda self: self._array.nbytes)
    alloc_size = property(lambda self: self._array.alloc_size)
    stream = property(lambda self: self._array.stream)
    device_id = property(lambda self: self._array.device_id)
    _pointer = property(lambda self: self._array._pointer)

    @property
    def flags(self):
        return dict(self._array.flags)

    @property
    def _numba_type_(self):
        from cuforge import types

        return types.from_dtype(self.dtype)

    def copy_to_host(self, ary=None, stream=0):
        """The record on the host: a 0-d NumPy array of its dtype (or into ``ary``)."""
        return self._array.copy_to_host(ary, stream=stream)

    def copy_to_device(self, ary, stream=0):
        """Copies a NumPy record (or a 0-d array or tuple of the fields) in."""
        self._array.copy_to_device(ary, stream=stream)

    def __getitem__(self, item):
        return self.getitem(item)

    def getitem(self, item, stream=0):
        """Field ``item``: a scalar (copied to the host), a DeviceRecord, or a DeviceNDArray (views)."""
        field = self._array._field(self._field_name(item))
        if field.ndim:
            return field
        if field.dtype.fields is not None:
            return DeviceRecord._wrap(field)
        return field.getitem((), stream=stream)

    def __setitem__(self, key, value):
        self.setitem(key, value)

    def setitem(self, key, value, stream=0):
        """Writes field ``key`` (a value converted to its dtype, a record, or an array of its shape)."""
        self._array._field(self._field_name(key)).setitem((), value, stream=stream)

    def _field_name(self, item):
        names = self.dtype.names
        if isinstance(item, str):
            return item
        if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            if not -len(names) <= item < len(names):
                raise IndexError(f"record index {item} is out of range: the record has {len(names)} fields")
            return names[item]
        raise TypeError(f"a record is indexed by a field name or an integer, not {type(item).__name__}")

    def __repr__(self):
        return f"<cuforge.cuda.DeviceRecord dtype={self.dtype}>"


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
    """A new, uninitialised DeviceRecord of ``rec``'s dtype."""
    return DeviceRecord(rec.dtype, stream=stream, gpu_data=gpu_data)


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
        rec = from_record_like(obj, stream=stream)
        if copy:
            rec.copy_to_device(obj, stream=stream)
        return rec, True
    if not isinstance(obj, np.ndarray):
        obj = np.asarray(obj)
    sentry_contiguous(obj)
    return _core.to_device(obj, stream=stream, copy=copy), True
