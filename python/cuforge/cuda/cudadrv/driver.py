"""numba.cuda.cudadrv.driver's names that libraries import: the errors,
pointer helpers over any device array, and the driver's version."""

import numpy as np

from cuforge import _core

__all__ = [
    "CudaAPIError",
    "CudaDriverError",
    "CudaSupportError",
    "device_memory_size",
    "device_pointer",
    "driver",
    "get_version",
    "host_pointer",
    "is_device_memory",
]

CudaAPIError = _core.CudaAPIError


class CudaSupportError(ImportError):
    """CUDA cannot be used here (numba's: no driver, or no usable GPU)."""


class CudaDriverError(Exception):
    """The CUDA driver failed in a way with no error code of its own."""


def is_device_memory(obj):
    """Whether ``obj`` is device memory: a device array or any object with
    ``__cuda_array_interface__``."""
    return _core.is_device_array(obj) or hasattr(obj, "__cuda_array_interface__")


def _device_array(obj):
    """``obj`` as a cuforge device array (a view of another library's)."""
    if not is_device_memory(obj):
        raise TypeError(f"{type(obj).__name__} is not device memory")
    return obj if _core.is_device_array(obj) else _core.as_cuda_array(obj)


def device_pointer(obj):
    """The device address of ``obj``'s first element (an int)."""
    return _device_array(obj)._pointer


def device_memory_size(obj):
    """The bytes ``obj``'s elements span in device memory."""
    return _device_array(obj).alloc_size


def host_pointer(obj, readonly=False):
    """The address of a host buffer (a NumPy array or any object with the
    buffer protocol)."""
    del readonly
    return np.asarray(obj).__array_interface__["data"][0]


def get_version():
    """The CUDA driver's version as (major, minor); (0, 0) without one."""
    v = _core.driver_version()
    return (v // 1000, (v % 1000) // 10) if v else (0, 0)


class _Driver:
    """numba's ``driver.driver`` object: the parts libraries read, and the raw
    allocation calls memory manager plugins build on (``cuMemAlloc`` returns
    the address of plain device memory, cuMemAlloc's on a GPU, whatever
    plugin or pool is set; ``cuMemFree`` takes it back)."""

    def __init__(self):
        self._raw = {}

    def cuMemAlloc(self, size):
        address, _, owner = _core.own_allocation("raw", int(size))
        if not address:
            raise ValueError("cuMemAlloc of 0 bytes")
        self._raw[address] = owner
        return address

    def cuMemFree(self, pointer):
        from cuforge.cuda._memory_manager import _address

        address = _address(pointer)
        if self._raw.pop(address, None) is None:
            raise ValueError(f"cuMemFree of 0x{address:x}, which cuMemAlloc did not return (or was freed)")

    def cuMemGetInfo(self):
        return _core.device_memory_info(_core.current_device())

    def get_version(self):
        return get_version()

    def get_device_count(self):
        return _core.device_count()

    @property
    def is_available(self):
        return _core.backend() == "cuda"


driver = _Driver()
