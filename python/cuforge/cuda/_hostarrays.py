"""Host arrays the device can address: numba's MappedNDArray and ManagedNDArray."""

import numpy as np

from cuforge import _core


class _DeviceAddressable(np.ndarray):
    """A NumPy array over memory the device can address too.

    Views keep the property, since they share the memory; the device array
    over any of them comes from ``device_view()``."""

    def device_view(self):
        """The DeviceNDArray over this array's memory (no copy)."""
        d = _core.device_view_of_host(np.asarray(self))
        if d is None:
            raise TypeError("this array's memory is not addressable by the device")
        return d

    @property
    def __cuda_array_interface__(self):
        """The interface of ``device_view()``: the device pointer of this
        memory, as numba's mapped and managed arrays offer, so CuPy and
        PyTorch take them as device arrays. Absent (AttributeError) where
        DeviceNDArray's is (the cpu backend), and on arrays NumPy derived
        into new memory (``m + 1`` keeps the subclass, not the memory)."""
        d = _core.device_view_of_host(np.asarray(self))
        if d is None:
            raise AttributeError("__cuda_array_interface__: this array's memory is not addressable by the device")
        return d.__cuda_array_interface__


class MappedNDArray(_DeviceAddressable):
    """Page-locked host memory mapped into the device's address space
    (cuda.mapped_array)."""


class ManagedNDArray(_DeviceAddressable):
    """Unified (managed) memory (cuda.managed_array)."""
