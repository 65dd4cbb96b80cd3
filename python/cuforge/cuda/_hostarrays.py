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


class MappedNDArray(_DeviceAddressable):
    """Page-locked host memory mapped into the device's address space
    (cuda.mapped_array)."""


class ManagedNDArray(_DeviceAddressable):
    """Unified (managed) memory (cuda.managed_array)."""
