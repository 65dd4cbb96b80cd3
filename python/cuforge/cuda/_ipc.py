"""Sharing device memory between processes: numba.cuda's IPC API.

``array.get_ipc_handle()`` gives an ``IpcArrayHandle`` that pickles and
travels to another process (multiprocessing, a queue, a socket), where
``with handle as array:`` maps the same memory. Underneath is the runtime's
``mem::ipc_export`` / ``ipc_open``: CUDA IPC (cuIpcGetMemHandle) on a GPU,
and on the cpu backend a shared-memory file the device block is moved into
when first exported, so the same program runs on both.

Device arrays themselves pickle through host memory (``__reduce__``): the
receiving process gets a copy on its own device.
"""

import contextlib

import numpy as np

from cuforge import _core

__all__ = ["IpcArrayHandle", "IpcHandle", "open_ipc_array"]


def _source_info(device):
    info = _core.device_info(device)
    return {"backend": _core.backend(), "pci_bus_id": info["pci_bus_id"], "uuid": info["uuid"]}


def _as_handle_bytes(handle):
    """Our handle's bytes from what users pass: an IpcHandle, our bytes, or
    the 64 raw bytes of a CUipcMemHandle made by another library."""
    if isinstance(handle, IpcHandle):
        return handle.handle
    if hasattr(handle, "reserved"):  # a cuda-python / numba CUipcMemHandle
        handle = bytes(handle.reserved)
    if isinstance(handle, (bytearray, memoryview)) or type(handle).__name__.startswith("c_"):
        handle = bytes(handle)
    if isinstance(handle, str):
        handle = handle.encode()
    if not isinstance(handle, bytes):
        raise TypeError(f"an IPC handle is an IpcHandle or bytes, not {type(handle).__name__}")
    if len(handle) == 64 and not handle.startswith(b"cuforge-"):
        handle = b"cuforge-cuda-ipc/1 " + handle.hex().encode()
    return handle


def _span(shape, strides, itemsize):
    """Bytes from the first element to the end of the last."""
    if any(n == 0 for n in shape):
        return 0
    return itemsize + sum((n - 1) * s for n, s in zip(shape, strides))


def _strides_for(shape, dtype, strides):
    if strides is None:
        strides = []
        step = dtype.itemsize
        for n in reversed(shape):
            strides.insert(0, step)
            step *= n
        return tuple(strides)
    if isinstance(strides, int):
        strides = (strides,)
    return tuple(int(s) for s in strides)


def _open(handle_bytes, offset, shape, strides, dtype):
    shape = (shape,) if isinstance(shape, int) else tuple(int(n) for n in shape)
    dtype = np.dtype(dtype)
    strides = _strides_for(shape, dtype, strides)
    if any(s < 0 for s in strides) or offset < 0:
        raise ValueError("an IPC array's offset and strides must not be negative")
    nbytes = offset + _span(shape, strides, dtype.itemsize)
    return _core.ipc_open_array(handle_bytes, max(nbytes, 1), offset, shape, strides, dtype, -1)


class IpcHandle:
    """A handle to device memory of another process (numba's IpcHandle):
    pickle it to send it; in the receiving process ``open()`` maps the
    memory (once per handle object) and ``close()`` lets it go.

    `handle` is the runtime's handle to the whole allocation, `offset` where
    the shared memory starts in it and `size` its bytes."""

    def __init__(self, base, handle, size, source_info=None, offset=0):
        self.base = base  # the exported memory, kept alive (None where unpickled)
        self.handle = _as_handle_bytes(handle)
        self.size = int(size)
        self.source_info = source_info
        self.offset = int(offset)
        self._opened = None

    @classmethod
    def _export(cls, memory, address, size):
        handle, _, offset, device = _core.ipc_export(address)
        return cls(memory, handle, size, source_info=_source_info(device), offset=offset)

    def _check_openable(self):
        if self.base is not None:
            raise ValueError("opening an IpcHandle in the process that made it: use the memory itself")
        if self._opened is not None:
            raise ValueError("IpcHandle is already opened (close it first, or open another copy of it)")
        backend = (self.source_info or {}).get("backend")
        if backend is not None and backend != _core.backend():
            raise ValueError(f"the IpcHandle was made on the {backend} backend; this process runs on the "
                             f"{_core.backend()} backend")

    def open_array(self, context=None, shape=None, dtype=np.uint8, strides=None):
        """Maps the memory; returns a device array over it (bytes by
        default). The memory stays mapped while the array lives."""
        del context
        self._check_openable()
        dtype = np.dtype(dtype)
        if shape is None:
            shape = (self.size // dtype.itemsize,)
        array = _open(self.handle, self.offset, shape, strides, dtype)
        self._opened = array
        return array

    def open(self, context=None):
        """Maps the memory; returns a MemoryPointer to it (numba's)."""
        from cuforge.cuda._memory_manager import MemoryPointer

        array = self.open_array(context)
        pointer = MemoryPointer(context, array._pointer, self.size)
        pointer._array = array  # the mapping lives as long as the pointer
        return pointer

    def close(self):
        """Lets go of the mapping (unmapped once no array over it is left)."""
        if self._opened is None:
            raise ValueError("IpcHandle not opened")
        self._opened = None

    def __reduce__(self):
        return (_rebuild_handle, (self.handle, self.size, self.source_info, self.offset))

    def __repr__(self):
        return f"<IpcHandle of {self.size} bytes at offset {self.offset}>"


def _rebuild_handle(handle, size, source_info, offset):
    return IpcHandle(None, handle, size, source_info=source_info, offset=offset)


class IpcArrayHandle:
    """What ``DeviceNDArray.get_ipc_handle()`` returns: an IpcHandle and the
    array's shape, strides and dtype. ``open()`` gives the array in the
    receiving process; ``with handle as array:`` closes it afterwards."""

    def __init__(self, ipc_handle, array_desc):
        self._ipc_handle = ipc_handle
        self._array_desc = array_desc

    @property
    def ipc_handle(self):
        return self._ipc_handle

    def open(self):
        desc = self._array_desc
        return self._ipc_handle.open_array(None, desc["shape"], desc["dtype"], desc["strides"])

    def close(self):
        self._ipc_handle.close()

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        d = self._array_desc
        return f"<IpcArrayHandle shape={d['shape']} dtype={d['dtype']}>"


def get_ipc_handle(array):
    """DeviceNDArray.get_ipc_handle(): a picklable handle another process
    opens to use this array's memory (the array must be device memory)."""
    if any(s < 0 for s in array.strides):
        raise ValueError("get_ipc_handle of an array with negative strides: share the array it is a view of")
    handle = IpcHandle._export(array, array._pointer, array.alloc_size)
    desc = {"shape": tuple(array.shape), "strides": tuple(array.strides), "dtype": array.dtype}
    return IpcArrayHandle(handle, desc)


@contextlib.contextmanager
def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    """Maps the device memory `handle` names (an IpcHandle, our handle's
    bytes, or a CUipcMemHandle's 64 bytes from another library) as an array
    of `shape` and `dtype`, `offset` bytes in, for the scope of the
    ``with`` (numba.cuda.open_ipc_array)."""
    base = handle.offset if isinstance(handle, IpcHandle) else 0
    array = _open(_as_handle_bytes(handle), base + int(offset), shape, strides, dtype)
    try:
        yield array
    finally:
        del array


def _rebuild_device_array(host):
    from cuforge.cuda import to_device

    return to_device(host)


def _reduce_device_array(array):
    """Device arrays pickle through host memory: the receiver gets a copy
    on its current device."""
    return (_rebuild_device_array, (array.copy_to_host(),))


def install():
    _core.DeviceNDArray.get_ipc_handle = get_ipc_handle
    _core.DeviceNDArray.__reduce__ = _reduce_device_array
