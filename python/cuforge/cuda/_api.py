"""The numba.cuda-compatible host API: arrays, transfers, streams, events and
devices, over cuforge._core."""

import atexit
import contextlib
import operator
import sys

import numpy as np

from cuforge import _core
from cuforge.cuda._device_attributes import ATTRIBUTES
from cuforge.cuda._hostarrays import ManagedNDArray, MappedNDArray
from cuforge.cuda._stream import Stream  # noqa: F401 - registers the class streams are made as

to_device = _core.to_device
device_array = _core.device_array
device_array_like = _core.device_array_like


def backend():
    """The active backend: ``"cuda"`` (a GPU) or ``"cpu"`` (the cpu backend)."""
    return _core.backend()


def backend_reason():
    """One line saying why the active backend was chosen."""
    return _core.backend_reason()


# --- host arrays ---------------------------------------------------------------


def _host_array(kind, shape, dtype, strides, order):
    return _core.host_array(kind, shape, np.dtype(dtype), strides, order)




def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    """An uninitialised NumPy array in page-locked (pinned) host memory."""
    return _host_array("pinned", shape, dtype, strides, order)


def pinned_array_like(ary):
    """pinned_array with the shape, dtype and layout of `ary`."""
    strides, order = _core.layout_like(ary)
    return pinned_array(ary.shape, ary.dtype, strides=strides, order=order)


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False, wc=False):
    """An uninitialised array in pinned host memory mapped into the device's
    address space: kernels read and write it in place."""
    del stream, portable, wc  # portable is always on; write-combining is not offered
    return _host_array("mapped", shape, dtype, strides, order).view(MappedNDArray)


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    """mapped_array with the shape, dtype and layout of `ary`."""
    strides, order = _core.layout_like(ary)
    return mapped_array(ary.shape, ary.dtype, strides=strides, order=order, stream=stream, portable=portable, wc=wc)


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0, attach_global=True):
    """An uninitialised array in managed (unified) memory, usable from the
    host and the device."""
    del stream
    if not attach_global:
        raise NotImplementedError("managed_array(attach_global=False) is not supported yet")
    return _host_array("managed", shape, dtype, strides, order).view(ManagedNDArray)


@contextlib.contextmanager
def pinned(*arylist):
    """Page-locks the memory of NumPy arrays in place for the scope."""
    registrations = []
    try:
        for ary in arylist:
            reg, _ = _core.register_host(_as_ndarray(ary), False)
            registrations.append(reg)
        yield
    finally:
        for reg in registrations:
            if reg is not None:
                reg.release()


@contextlib.contextmanager
def mapped(*arylist, stream=0):
    """Maps NumPy arrays into the device's address space for the scope,
    yielding the device array over each (one, or a list for several)."""
    del stream
    registrations, devarys = [], []
    try:
        for ary in arylist:
            reg, dev = _core.register_host(_as_ndarray(ary), True)
            registrations.append(reg)
            devarys.append(dev if dev is not None else _core.device_array(ary.shape, ary.dtype))
        yield devarys[0] if len(devarys) == 1 else devarys
    finally:
        for reg in registrations:
            if reg is not None:
                reg.release()


def _as_ndarray(ary):
    if not isinstance(ary, np.ndarray):
        raise TypeError(f"expected a NumPy array, got {type(ary).__name__}")
    return ary


# --- streams and events ----------------------------------------------------------


def stream(priority=0, non_blocking=False):
    """A new stream. Lower priority numbers run first; out-of-range values
    are clamped to the device's range, as the driver does."""
    priority = min(max(operator.index(priority), -(2**31)), 2**31 - 1)  # any int clamps
    return _core.new_stream(priority, non_blocking)


default_stream = _core.default_stream
legacy_default_stream = _core.legacy_default_stream
per_thread_default_stream = _core.per_thread_default_stream


def external_stream(ptr):
    """A Stream over a stream handle made elsewhere (CuPy, PyTorch, ...): an
    int, or an object with ``__cuda_stream__``."""
    if hasattr(ptr, "__cuda_stream__"):
        ptr = ptr.__cuda_stream__()[1]
    try:
        handle = operator.index(ptr)
    except TypeError:
        raise TypeError(f"external_stream needs a stream handle (an int), not {type(ptr).__name__}") from None
    if not 0 <= handle < 2**64:
        raise ValueError(f"external_stream: {handle} is not a stream handle (handles are 64-bit addresses)")
    return _core.external_stream(handle)


def event(timing=True):
    """A new event; `timing=False` makes it cheaper, without elapsed_time."""
    return _core.new_event(timing)


def event_elapsed_time(evtstart, evtend):
    """Milliseconds between two recorded events."""
    return evtstart.elapsed_time(evtend)


# --- devices ---------------------------------------------------------------------


class Device:
    """A device of the active backend (numba's Device): id, name,
    compute_capability, uuid, and every CUdevice_attribute by name
    (``device.MAX_THREADS_PER_BLOCK``)."""

    def __init__(self, ordinal):
        info = _core.device_info(ordinal)
        self.id = info["id"]
        self.name = info["name"]
        self.compute_capability = info["compute_capability"]
        self.uuid = info["uuid"]
        self.pci_bus_id = info["pci_bus_id"]

    def __getattr__(self, attr):
        try:
            code = ATTRIBUTES[attr]
        except KeyError:
            raise AttributeError(attr) from None
        value = _core.device_attribute(self.id, code)
        setattr(self, attr, value)
        return value

    def __repr__(self):
        return f"<CUDA device {self.id} '{self.name}'>"

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    @property
    def supports_float16(self):
        return self.compute_capability >= (5, 3)

    @property
    def supports_bfloat16(self):
        return self.compute_capability >= (8, 0)

    def get_primary_context(self):
        return Context(self)

    def reset(self):
        """Releases the device's contexts (as cuda.close() does)."""
        close()


class Context:
    """The primary context of a device (numba's Context). Its memory calls
    go to the memory manager (cuda.set_memory_manager's plugin, or
    cuforge's own)."""

    def __init__(self, device):
        self.device = device

    @property
    def memory_manager(self):
        from cuforge.cuda._memory_manager import memory_manager

        return memory_manager(self.device.id)

    def get_memory_info(self):
        """(free, total) device memory in bytes, as a MemoryInfo (the
        plugin's answer where one is set)."""
        from cuforge.cuda._memory_manager import MemoryInfo

        return MemoryInfo(*self.memory_manager.get_memory_info())

    def memalloc(self, bytesize):
        """`bytesize` bytes of device memory: a MemoryPointer."""
        return self.memory_manager.memalloc(bytesize)

    def memhostalloc(self, bytesize, mapped=False, portable=False, wc=False):
        """Pinned host memory: a PinnedMemory, or a MappedMemory if `mapped`."""
        return self.memory_manager.memhostalloc(bytesize, mapped, portable, wc)

    def mempin(self, owner, pointer, size, mapped=False):
        """Page-locks existing host memory while the returned object lives."""
        return self.memory_manager.mempin(owner, pointer, size, mapped)

    def get_ipc_handle(self, memory):
        """An IpcHandle for device memory (a MemoryPointer)."""
        return self.memory_manager.get_ipc_handle(memory)

    def open_ipc_handle(self, handle, size):
        """Maps `size` bytes a handle from another process names: a MemoryPointer."""
        from cuforge.cuda._ipc import IpcHandle

        return IpcHandle(None, handle, size).open(self)

    @contextlib.contextmanager
    def defer_cleanup(self):
        with self.memory_manager.defer_cleanup():
            with defer_cleanup():
                yield

    def synchronize(self):
        _core.device_synchronize(self.device.id)

    def reset(self):
        close()

    @property
    def deallocations(self):
        """(count, bytes) of deallocations waiting for the next flush."""
        return _core.pending_deallocations()

    def __repr__(self):
        return f"<CUDA context of {self.device!r}>"

    def __eq__(self, other):
        return isinstance(other, Context) and other.device == self.device

    def __hash__(self):
        return hash(self.device)


class _DeviceContextManager:
    """An entry of cuda.gpus: ``with cuda.gpus[1]:`` makes that device current
    for the scope."""

    def __init__(self, ordinal):
        self._ordinal = ordinal
        self._previous = []

    @property
    def _device(self):
        return Device(self._ordinal)

    def __getattr__(self, name):
        return getattr(self._device, name)

    def __enter__(self):
        self._previous.append(_core.current_device())
        _core.select_device(self._ordinal)
        return self._device

    def __exit__(self, *exc):
        _core.select_device(self._previous.pop())

    def __repr__(self):
        return repr(self._device)


class _DeviceList:
    """cuda.gpus: the devices of the active backend."""

    def __len__(self):
        return _core.device_count()

    def __getitem__(self, i):
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"device {i} does not exist ({n} device(s))")
        return _DeviceContextManager(i % n)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    @property
    def current(self):
        return Device(_core.current_device())

    def __repr__(self):
        return "<Managed Device List " + ", ".join(repr(d) for d in self) + ">"


gpus = _DeviceList()


def list_devices():
    """The devices of the active backend (cuda.gpus)."""
    return gpus


def select_device(device_id):
    """Makes `device_id` current on this thread; returns it."""
    _core.select_device(device_id)
    return Device(device_id)


def get_current_device():
    """This thread's current device."""
    return Device(_core.current_device())


def current_context(devnum=None):
    """The context of the current device (or of `devnum`, made current)."""
    if devnum is not None:
        select_device(devnum)
    return Context(get_current_device())


def synchronize():
    """Waits for all work on the current device, then frees what is pending."""
    _core.synchronize()


def close():
    """Releases every context. Arrays, streams and events made before become
    unusable (using one raises CudaAPIError); new ones work as before. A
    memory manager plugin is reset (its allocations belonged to the contexts)."""
    _core.close()
    from cuforge.cuda import _memory_manager

    _memory_manager._on_close()


def is_available():
    """True when cuforge can run CUDA work here: on a GPU, or on the cpu
    backend, which is always there (``backend()`` tells which)."""
    try:
        return _core.device_count() > 0
    except Exception:  # a forced backend that cannot start
        return False


def is_float16_supported():
    """Whether the current device computes float16 (compute capability 5.3 or newer; the cpu
    backend always does)."""
    return get_current_device().supports_float16


def is_bfloat16_supported():
    """Whether the current device computes bfloat16 (cuda.bf16; compute capability 8.0 or newer,
    as numba-cuda requires; the cpu backend always does)."""
    return get_current_device().supports_bfloat16


def detect():
    """Prints the devices found and whether they are supported; returns
    True when there is at least one."""
    n = _core.device_count()
    print(f"Found {n} CUDA devices ({backend()} backend: {backend_reason()})")
    for i in range(n):
        d = Device(i)
        print(f"id {d.id:<4} {d.name!r:>40}{'[SUPPORTED]':>16}")
        print(f"{'Compute Capability:':>40} {d.compute_capability[0]}.{d.compute_capability[1]}")
        print(f"{'PCI Bus ID:':>40} {d.pci_bus_id}")
        print(f"{'UUID:':>40} {d.uuid}")
    print(f"Summary:\n\t{n}/{n} devices are supported")
    return n > 0


@contextlib.contextmanager
def defer_cleanup():
    """Nothing is freed inside this scope (memory in use by asynchronous
    work stays valid); frees resume after it."""
    _core.defer_cleanup_enter()
    try:
        yield
    finally:
        _core.defer_cleanup_exit()


def profile_start():
    """Starts the profiler (a no-op on the cpu backend)."""
    _core.profile_start()


def profile_stop():
    """Stops the profiler (a no-op on the cpu backend)."""
    _core.profile_stop()


@contextlib.contextmanager
def profiling():
    """Profiles the scope."""
    profile_start()
    try:
        yield
    finally:
        profile_stop()


def is_cuda_array(obj):
    """Whether `obj` is a device array: cuforge's own, or an object with
    ``__cuda_array_interface__``."""
    return _core.is_cuda_array(obj)


def as_cuda_array(obj, sync=True):
    """A DeviceNDArray over the memory of an object with
    ``__cuda_array_interface__`` (CuPy, PyTorch, ...), without a copy. The
    view keeps the object alive. With `sync`, the producer's stream is
    waited on first (set CUFORGE_CUDA_ARRAY_INTERFACE_SYNC=0, or Numba's
    NUMBA_CUDA_ARRAY_INTERFACE_SYNC=0, to skip it)."""
    return _core.as_cuda_array(obj, sync)


def from_dlpack(obj):
    """A DeviceNDArray over the memory of a DLPack producer (an object with
    ``__dlpack__``, or a capsule), without a copy."""
    return _core.from_dlpack(obj)


@atexit.register
def _drain_at_exit():
    # Stream callbacks call back into Python: let queued work finish while the
    # interpreter is still whole.
    if "cuforge._core" in sys.modules:
        try:
            for i in range(_core.device_count()):
                _core.device_synchronize(i)
        except Exception:
            pass
