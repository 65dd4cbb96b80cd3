"""External memory managers: numba.cuda's EMM plugin interface (NBEP 7).

A plugin is a class that numba-cuda users already write (RMM's
``RMMNumbaManager`` is one): ``cuda.set_memory_manager(cls)`` makes one
instance per device, and from then on every device allocation cuforge makes
(arrays, temporaries, reduction scratch, the copies made for NumPy kernel
arguments) is the plugin's ``memalloc``; a free drops cuforge's reference to
the object ``memalloc`` returned, which runs the plugin's finalizer as in
numba. The C++ side is ``memory::callback_memory_resource``: this module
only supplies its two functions (``_Bridge.allocate`` / ``free``).

``cuda.set_memory_resource(mr)`` is the same for any object with RMM's
``allocate(nbytes)`` / ``deallocate(ptr, nbytes)`` (an ``rmm.mr`` resource),
with no numba installed.
"""

import abc
import contextlib
import ctypes
import importlib
import os
from collections import namedtuple

from cuforge import _core

__all__ = [
    "BaseCUDAMemoryManager",
    "GetIpcHandleMixin",
    "HostOnlyCUDAMemoryManager",
    "MappedMemory",
    "MemoryInfo",
    "MemoryPointer",
    "PinnedMemory",
    "memory_manager",
    "set_memory_manager",
    "set_memory_resource",
]

#: The version of the plugin interface this module implements (numba's).
INTERFACE_VERSION = 1

MemoryInfo = namedtuple("MemoryInfo", ["free", "total"])
MemoryInfo.__doc__ = "Free and total device memory in bytes (what get_memory_info returns)."


def _address(pointer):
    """An int address from what numba code passes as a pointer: an int, a
    ctypes pointer or integer, or a cuda-python CUdeviceptr."""
    if pointer is None:
        return 0
    if isinstance(pointer, int):
        return pointer
    value = getattr(pointer, "value", None)  # ctypes.c_void_p / c_uint64
    if isinstance(value, int) or (value is None and isinstance(pointer, ctypes._SimpleCData)):
        return value or 0
    return int(pointer)  # CUdeviceptr and friends define __int__


# --- the pointer objects plugins return ------------------------------------------


class MemoryPointer:
    """Device memory that a memory manager hands out: ``device_pointer``
    (an int address), ``size`` in bytes, and an optional ``finalizer`` that
    runs once, when the object is garbage-collected or ``free()`` is called.
    Views (``view(start, stop)``) keep their owner alive."""

    __cuda_memory__ = True

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.context = context
        self.device_pointer = _address(pointer)
        self.size = int(size)
        self._cuda_memsize_ = self.size
        self.is_managed = finalizer is not None
        self.refct = 1
        self.handle = self.device_pointer
        self._owner = owner
        # Run once, by free() or when the object goes (__del__: what
        # weakref.finalize would do, at a fraction of the cost per allocation).
        self._finalizer = finalizer

    def __del__(self):
        finalizer, self._finalizer = self._finalizer, None
        if finalizer is not None:
            finalizer()

    @property
    def owner(self):
        return self if self._owner is None else self._owner

    def own(self):
        """The object that keeps the memory alive (this one: its lifetime is
        its references')."""
        return self

    def free(self):
        """Runs the finalizer now (the memory goes back to its manager)."""
        if self.is_managed:
            if self._finalizer is None:
                raise RuntimeError("this memory was already freed")
            self.__del__()

    def memset(self, byte, count=None, stream=0):
        """Sets `count` bytes (all of them by default) to `byte`."""
        count = self.size if count is None else count
        if not 0 <= count <= self.size:
            raise ValueError(f"memset of {count} bytes in an allocation of {self.size}")
        if count:
            _core.memset_address(self.device_pointer, byte, count, stream or None)

    def view(self, start, stop=None):
        """The bytes [start, stop) of this memory, as a MemoryPointer that
        keeps this one alive."""
        stop = self.size if stop is None else stop
        if not 0 <= start <= stop <= self.size:
            raise ValueError(f"view [{start}, {stop}) of an allocation of {self.size} bytes")
        if not self.device_pointer and stop != start:
            raise RuntimeError("a non-empty view of empty memory")
        return MemoryPointer(self.context, self.device_pointer + start if self.device_pointer else 0,
                             stop - start, owner=self.owner)

    @property
    def device_ctypes_pointer(self):
        return ctypes.c_void_p(self.device_pointer or None)

    @property
    def device_pointer_value(self):
        return self.device_pointer or None

    def __repr__(self):
        return f"<{type(self).__name__} 0x{self.device_pointer:x}, {self.size} bytes>"


class AutoFreePointer(MemoryPointer):
    """A MemoryPointer freed when the last reference goes (numba's)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.refct -= 1


class MappedMemory(AutoFreePointer):
    """Host memory mapped into the device's address space: ``host_pointer``
    for the host, ``device_pointer`` for kernels."""

    __cuda_memory__ = True

    def __init__(self, context, pointer, size, owner=None, finalizer=None, *, _device_pointer=None):
        self.owned = owner
        self.host_pointer = _address(pointer)
        device = _device_pointer if _device_pointer is not None else _core.mapped_device_pointer(self.host_pointer)
        super().__init__(context, device, size, finalizer=finalizer)
        self.handle = self.host_pointer
        self._bufptr_ = self.host_pointer
        self._buflen_ = self.size


class PinnedMemory:
    """Page-locked host memory: ``host_pointer``, ``size``; ``finalizer``
    runs when the object is garbage-collected."""

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.context = context
        self.owned = owner
        self.size = int(size)
        self.host_pointer = _address(pointer)
        self.handle = self.host_pointer
        self.is_managed = finalizer is not None
        self._bufptr_ = self.host_pointer
        self._buflen_ = self.size
        self._finalizer = finalizer

    def __del__(self):
        finalizer, self._finalizer = self._finalizer, None
        if finalizer is not None:
            finalizer()

    def own(self):
        return self

    def __repr__(self):
        return f"<PinnedMemory 0x{self.host_pointer:x}, {self.size} bytes>"


# --- the plugin interface --------------------------------------------------------


class BaseCUDAMemoryManager(abc.ABC):
    """The interface an external memory manager implements (numba's
    BaseCUDAMemoryManager). One instance serves one device's context
    (``self.context``)."""

    def __init__(self, *args, **kwargs):
        if "context" not in kwargs:
            raise RuntimeError("a memory manager is made with context=")
        self.context = kwargs.pop("context")

    @abc.abstractmethod
    def memalloc(self, size):
        """`size` bytes of device memory: a MemoryPointer that owns them."""

    @abc.abstractmethod
    def memhostalloc(self, size, mapped, portable, wc):
        """`size` bytes of pinned host memory: a MappedMemory when `mapped`,
        else a PinnedMemory."""

    @abc.abstractmethod
    def mempin(self, owner, pointer, size, mapped):
        """Page-locks existing host memory for as long as the returned
        object lives."""

    @abc.abstractmethod
    def initialize(self):
        """Called once before the instance serves its first request."""

    @abc.abstractmethod
    def get_ipc_handle(self, memory):
        """An IpcHandle for the device memory `memory` (a MemoryPointer)."""

    @abc.abstractmethod
    def get_memory_info(self):
        """(free, total) device memory in bytes, as a MemoryInfo; may raise
        NotImplementedError."""

    @abc.abstractmethod
    def reset(self):
        """Frees everything this manager allocated in its context."""

    @abc.abstractmethod
    def defer_cleanup(self):
        """A context manager inside which nothing is freed."""

    @property
    @abc.abstractmethod
    def interface_version(self):
        """The plugin interface version implemented: 1."""


class _HostDeallocations:
    """``HostOnlyCUDAMemoryManager.deallocations``: numba's pending-free list,
    here cuforge's deallocation queue."""

    memory_capacity = 0

    def clear(self):
        _core.flush_deallocations()

    @contextlib.contextmanager
    def disable(self):
        _core.defer_cleanup_enter()
        try:
            yield
        finally:
            _core.defer_cleanup_exit()


class HostOnlyCUDAMemoryManager(BaseCUDAMemoryManager):
    """A base for plugins that manage device memory only: host allocations
    (``memhostalloc``, ``mempin``) come from cuforge, and ``reset`` and
    ``defer_cleanup`` look after them (a subclass overriding those calls
    ``super()``'s). ``self.allocations`` is a dict plugins may keep their
    device allocations in (RMM's does); ``reset`` clears it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.allocations = {}
        self.deallocations = _HostDeallocations()

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        del portable, wc  # every pinned allocation is portable; write-combining is a hint
        address, host, owner = _core.own_allocation("mapped" if mapped else "pinned", size)
        if mapped:
            mem = MappedMemory(self.context, host, size, _device_pointer=address)
        else:
            mem = PinnedMemory(self.context, host, size)
        mem._allocation = owner  # the memory lives as long as the object
        return mem

    def mempin(self, owner, pointer, size, mapped=False):
        registration, device = _core.register_range(_address(pointer), size, mapped)
        if mapped:
            mem = MappedMemory(self.context, pointer, size, owner=owner, finalizer=registration.release,
                               _device_pointer=device)
        else:
            mem = PinnedMemory(self.context, pointer, size, owner=owner, finalizer=registration.release)
        return mem

    def reset(self):
        self.allocations.clear()
        self.deallocations.clear()

    @contextlib.contextmanager
    def defer_cleanup(self):
        with self.deallocations.disable():
            yield


class GetIpcHandleMixin:
    """``get_ipc_handle`` for any device memory cuforge's runtime can export
    (numba's mixin; the handle names the whole allocation and the offset)."""

    def get_ipc_handle(self, memory):
        from cuforge.cuda._ipc import IpcHandle

        address = _address(getattr(memory, "device_pointer_value", None) or memory.handle)
        return IpcHandle._export(memory, address, memory.size)


class _CuforgeMemoryManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
    """What ``current_context()`` answers with when no plugin is set:
    cuforge's own resources."""

    def initialize(self):
        pass

    def memalloc(self, size):
        address, _, owner = _core.own_allocation("device", size, self.context.device.id)
        mem = AutoFreePointer(self.context, address, size)
        mem._allocation = owner
        return mem

    def get_memory_info(self):
        return MemoryInfo(*_core.device_memory_info(self.context.device.id))

    @property
    def interface_version(self):
        return INTERFACE_VERSION


# --- plugging one in -------------------------------------------------------------

_REQUIRED = ("memalloc", "memhostalloc", "mempin", "initialize", "get_ipc_handle", "get_memory_info", "reset",
             "defer_cleanup", "interface_version")


def _note(exc, text):
    if hasattr(exc, "add_note"):
        exc.add_note(text)
    return exc


def _pointer_of(mem):
    """The device address of what memalloc returned (ours or numba's
    MemoryPointer, an OwnedPointer forwarding to one)."""
    value = getattr(mem, "device_pointer_value", None)
    if value is not None:
        return _address(value)
    for attr in ("device_pointer", "handle"):
        if getattr(mem, attr, None) is not None:
            return _address(getattr(mem, attr))
    return 0


_OUR_POINTERS = (MemoryPointer, AutoFreePointer, MappedMemory)


class _Bridge:
    """One device's plugin instance as the two functions the C++ resource
    calls. ``live`` holds what memalloc returned, by address, until cuforge
    frees it: dropping it is the free."""

    def __init__(self, plugin, device, name):
        self.plugin = plugin
        self.device = device
        self.name = name
        self.live = {}
        self.host_live = {}

    def allocate(self, size, stream):
        del stream  # a plugin's memalloc is not stream-ordered: frees wait for the device
        try:
            mem = self.plugin.memalloc(size)
        except MemoryError:
            # Memory waiting in cuforge's deferred frees may be what is missing.
            _core.flush_deallocations()
            mem = self._call(self.plugin.memalloc, "memalloc", size)
        except Exception as e:
            raise _note(e, f"(raised by the memory manager {self.name}.memalloc({size}))")
        if type(mem) in _OUR_POINTERS:  # the common case, without the look-ups below
            got, address = mem.size, mem.device_pointer
            live = self.live
            if got >= size and address and address not in live:  # all is well: _admit's checks passed
                live[address] = mem
                return address
        else:
            got, address = getattr(mem, "size", None), _pointer_of(mem)
        return self._admit(mem, size, got, address, self.live, "memalloc")

    def _call(self, method, name, size, *args):
        try:
            return method(size, *args)
        except Exception as e:
            raise _note(e, f"(raised by the memory manager {self.name}.{name}({size}))")

    def _admit(self, mem, size, got, address, live, method):
        if not isinstance(got, int) or got < size:
            raise RuntimeError(f"the memory manager {self.name}.{method}({size}) returned "
                               f"{type(mem).__name__} of {got!r} bytes, fewer than asked for")
        if not address:
            raise RuntimeError(f"the memory manager {self.name}.{method}({size}) returned a null pointer")
        if address in live:
            raise RuntimeError(f"the memory manager {self.name}.{method}({size}) returned 0x{address:x}, "
                               "which it had already handed out and was not freed")
        live[address] = mem
        return address

    def free(self, address, size, stream):
        del size, stream
        self.live.pop(address, None)  # the plugin's finalizer runs when the last reference goes

    def host_allocate(self, mapped):
        def allocate(size, stream):
            del stream
            mem = self._call(self.plugin.memhostalloc, "memhostalloc", size, mapped, False, False)
            address = _address(getattr(mem, "host_pointer", None) or mem.handle)
            return self._admit(mem, size, getattr(mem, "size", None), address, self.host_live, "memhostalloc")

        return allocate

    def host_free(self, address, size, stream):
        del size, stream
        self.host_live.pop(address, None)


_plugin_class = None
_bridges = {}  # device ordinal -> _Bridge
_default_managers = {}


def _check_class(mm_plugin):
    if not isinstance(mm_plugin, type):
        raise TypeError(f"set_memory_manager takes a memory manager class, not {type(mm_plugin).__name__} "
                        "(for an RMM memory resource object, use set_memory_resource)")
    missing = [name for name in _REQUIRED if not hasattr(mm_plugin, name)]
    if missing:
        raise TypeError(f"{mm_plugin.__name__} is not a memory manager: it lacks {', '.join(missing)} "
                        "(subclass cuda.HostOnlyCUDAMemoryManager and implement memalloc, initialize, "
                        "get_memory_info, get_ipc_handle and interface_version)")
    abstract = sorted(getattr(mm_plugin, "__abstractmethods__", ()))
    if abstract:
        raise TypeError(f"{mm_plugin.__name__} does not implement {', '.join(abstract)} of the memory "
                        "manager interface")


def _refuse_if_allocated():
    # Device memory only: cuforge keeps host allocations of its own (a kernel's
    # error record is mapped memory), and each allocation goes back to the
    # resource it came from whatever is set later.
    live = _core.live_allocations("device")
    if live:
        raise RuntimeError(f"the memory manager must be set before memory is allocated: {live} device allocation(s) "
                           "made by the current one are alive (set it first thing, or free them and call "
                           "cuda.close())")


def _overrides(cls, name):
    for base in cls.__mro__:
        if name in vars(base):
            # numba's own bases (a plugin written for numba) count as not overriding
            return base.__name__ not in ("HostOnlyCUDAMemoryManager", "BaseCUDAMemoryManager")
    return False


def set_memory_manager(mm_plugin):
    """Makes `mm_plugin` (a class implementing the EMM plugin interface,
    such as ``rmm.allocators.numba.RMMNumbaManager``) serve every device
    allocation from now on, one instance per device; ``None`` restores
    cuforge's own. Set it before allocating: with allocations alive it
    raises RuntimeError. A plugin whose ``interface_version`` is not 1 is
    refused, as numba-cuda refuses it."""
    global _plugin_class
    if mm_plugin is None:
        _uninstall()
        return
    _check_class(mm_plugin)
    try:
        probe = mm_plugin(context=None)
    except Exception as e:
        raise _note(e, f"(raised making {mm_plugin.__name__}(context=None) to read its interface_version)")
    version = probe.interface_version
    if version != INTERFACE_VERSION:
        raise RuntimeError(f"EMM Plugin interface has version {version} - version {INTERFACE_VERSION} required "
                           f"({mm_plugin.__name__})")
    _refuse_if_allocated()
    _uninstall()
    from cuforge.cuda._api import Context, Device

    name = mm_plugin.__name__
    bridges = {}
    for ordinal in range(_core.device_count()):
        instance = mm_plugin(context=Context(Device(ordinal)))
        instance.initialize()
        bridges[ordinal] = _Bridge(instance, ordinal, name)
    try:
        for ordinal, bridge in bridges.items():
            _core.set_memory_callbacks("device", ordinal, bridge.allocate, bridge.free, f"plugin({name})")
        if bridges and _overrides(mm_plugin, "memhostalloc"):
            host = bridges[_core.current_device()]
            _core.set_memory_callbacks("pinned", 0, host.host_allocate(False), host.host_free, f"plugin({name})")
            _core.set_memory_callbacks("mapped", 0, host.host_allocate(True), host.host_free, f"plugin({name})")
    except BaseException:
        _bridges.update(bridges)
        _uninstall()
        raise
    _bridges.update(bridges)
    _plugin_class = mm_plugin


def _uninstall():
    global _plugin_class
    for ordinal in list(_bridges):
        _core.set_memory_callbacks("device", ordinal, None, None)
    _core.set_memory_callbacks("pinned", 0, None, None)
    _core.set_memory_callbacks("mapped", 0, None, None)
    _bridges.clear()
    _plugin_class = None


class _ResourceManager:
    """An RMM-style memory resource (``allocate(nbytes)`` returning an
    address, ``deallocate(ptr, nbytes)``) as the device allocator."""

    def __init__(self, mr, device):
        self.mr = mr
        self.device = device
        self.name = type(mr).__name__

    def allocate(self, size, stream):
        del stream
        try:
            address = _address(self.mr.allocate(size))
        except Exception as e:
            raise _note(e, f"(raised by the memory resource {self.name}.allocate({size}))")
        if not address:
            raise RuntimeError(f"the memory resource {self.name}.allocate({size}) returned a null pointer")
        return address

    def free(self, address, size, stream):
        del stream
        self.mr.deallocate(address, size)


def set_memory_resource(mr, device=None):
    """Makes `mr`, any object with ``allocate(nbytes) -> address`` and
    ``deallocate(address, nbytes)`` (an ``rmm.mr`` memory resource: no
    numba needed), serve device allocations of `device` (default: every
    device); ``None`` restores cuforge's own. Set it before allocating."""
    if mr is None:
        _uninstall()
        return
    for method in ("allocate", "deallocate"):
        if not callable(getattr(mr, method, None)):
            raise TypeError(f"{type(mr).__name__} is not a memory resource: it has no {method}() method")
    _refuse_if_allocated()
    ordinals = range(_core.device_count()) if device is None else [device]
    for ordinal in ordinals:
        adaptor = _ResourceManager(mr, ordinal)
        _core.set_memory_callbacks("device", ordinal, adaptor.allocate, adaptor.free,
                                   f"resource({adaptor.name})")
        _bridges[ordinal] = adaptor


def memory_manager(device=None):
    """The memory manager instance serving `device` (default: the current
    one): the plugin's, or cuforge's own."""
    ordinal = _core.current_device() if device is None else device
    bridge = _bridges.get(ordinal)
    if isinstance(bridge, _Deferred):
        bridge = bridge._target()
    if isinstance(bridge, _Bridge):
        return bridge.plugin
    manager = _default_managers.get(ordinal)
    if manager is None:
        from cuforge.cuda._api import Context, Device

        manager = _default_managers[ordinal] = _CuforgeMemoryManager(context=Context(Device(ordinal)))
    return manager


def _on_close():
    """cuda.close(): the contexts' memory is gone; plugins forget theirs."""
    for bridge in list(_bridges.values()):
        if isinstance(bridge, _Bridge):
            bridge.live.clear()
            bridge.host_live.clear()
            bridge.plugin.reset()


class _Deferred:
    """The plugin an environment variable names, imported at the first
    allocation (as numba does at the first context), not at import: the
    plugin's module may itself import cuforge.cuda."""

    def __init__(self, module_name, variable, device):
        self.module_name = module_name
        self.variable = variable
        self.device = device

    def _target(self):
        if not isinstance(_bridges.get(self.device), _Deferred):
            return _bridges[self.device]
        try:
            module = importlib.import_module(self.module_name)
            cls = getattr(module, "_cuforge_memory_manager", None) or getattr(module, "_numba_memory_manager")
            set_memory_manager(cls)
        except Exception as e:  # raised again at every allocation, as numba raises at every context
            raise RuntimeError(f"Failed to use memory manager from {self.module_name} ({self.variable}): "
                               f"{type(e).__name__}: {e}") from e
        return _bridges[self.device]

    def allocate(self, size, stream):
        return self._target().allocate(size, stream)

    def free(self, address, size, stream):
        bridge = _bridges.get(self.device)
        if bridge is not None and not isinstance(bridge, _Deferred):
            bridge.free(address, size, stream)


def _from_environment():
    """CUFORGE_MEMORY_MANAGER (or numba's NUMBA_CUDA_MEMORY_MANAGER): a
    module whose ``_cuforge_memory_manager`` (or ``_numba_memory_manager``)
    is the plugin class; 'default' or unset: cuforge's own. The module is
    imported at the first device allocation."""
    for var in ("CUFORGE_MEMORY_MANAGER", "NUMBA_CUDA_MEMORY_MANAGER"):
        name = os.environ.get(var, "").strip()
        if name and name != "default":
            break
    else:
        return
    for ordinal in range(_core.device_count()):
        deferred = _Deferred(name, var, ordinal)
        _core.set_memory_callbacks("device", ordinal, deferred.allocate, deferred.free, f"plugin({name})")
        _bridges[ordinal] = deferred
