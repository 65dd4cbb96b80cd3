"""The numba.cuda-compatible API: ``from cuforge import cuda``.

Memory, transfers, streams, events and device management live here, with
the kernel compiler: ``cuda.jit``, ``compile_ptx`` and the kernel-side names
(``cuda.grid``, ``cuda.threadIdx``, ``cuda.shared.array``, ...) that mean
something inside jitted functions only. Signature types are in
``cuforge.types`` (also reachable as ``cuda.types``).
"""

import sys as _sys

from cuforge._core import CudaAPIError, CudaOutOfMemoryError, DeviceNDArray, Event, InternalCompilerError
from cuforge.cuda import _display, _ipc

_display.install()  # DeviceNDArray._repr_html_, for Jupyter
_ipc.install()  # DeviceNDArray.get_ipc_handle, pickling
from cuforge.cuda._api import (
    as_cuda_array,
    backend,
    backend_reason,
    close,
    current_context,
    default_stream,
    defer_cleanup,
    detect,
    device_array,
    device_array_like,
    event,
    event_elapsed_time,
    external_stream,
    from_dlpack,
    get_current_device,
    gpus,
    is_available,
    is_bfloat16_supported,
    is_float16_supported,
    is_cuda_array,
    legacy_default_stream,
    list_devices,
    managed_array,
    mapped,
    mapped_array,
    mapped_array_like,
    per_thread_default_stream,
    pinned,
    pinned_array,
    pinned_array_like,
    profile_start,
    profile_stop,
    profiling,
    select_device,
    stream,
    synchronize,
    to_device,
)
from cuforge.cuda._cache import CacheWarning
from cuforge.cuda._errors import TypingError
from cuforge.cuda._hostarrays import ManagedNDArray, MappedNDArray
from cuforge.cuda._stream import Stream
from cuforge.cuda._jit import (
    Dispatcher,
    compile,
    compile_all,
    compile_for_current_device,
    compile_ptx,
    compile_ptx_for_current_device,
    jit,
)
from cuforge.cuda._ffi import (
    LTOIR,
    Archive,
    Cubin,
    CUSource,
    Fatbin,
    Object,
    PTXSource,
    declare_device,
)
from cuforge.cuda._ipc import IpcArrayHandle, IpcHandle, open_ipc_array
from cuforge.cuda._memory_manager import (
    BaseCUDAMemoryManager,
    GetIpcHandleMixin,
    HostOnlyCUDAMemoryManager,
    MappedMemory,
    MemoryInfo,
    MemoryPointer,
    PinnedMemory,
    set_memory_manager,
    set_memory_resource,
)
from cuforge.cuda._stubs import STUBS as _KERNEL_NAMES
from cuforge.cuda import args, cudadrv
from cuforge.cuda.args import In, InOut, Out
from cuforge.cuda.cudadrv import devicearray, driver
from cuforge import types
from cuforge._ufunc import cuda_guvectorize as guvectorize, cuda_vectorize as vectorize
from cuforge.cuda._reduce import Reduce, Scan, reduce, scan

# numba.cuda has numba.cuda.types' names too (`from numba.cuda import float32, void`).
globals().update({_n: getattr(types, _n) for _n in types.__all__ if _n not in globals()})
# The kernel-side names (cuda.grid, cuda.atomic...): one per cuda.* row of the
# intrinsic registry, made by _stubs from _core.intrinsics().
globals().update(_KERNEL_NAMES)
bfloat16 = _KERNEL_NAMES["bf16"].bfloat16  # numba.cuda.bfloat16 (and cuda.bf16.bfloat16)
# Those that are submodules of numba.cuda import as modules too:
# `from cuforge.cuda.fp16 import hadd`, as from numba.cuda.fp16.
_sys.modules.update({f"{__name__}.{n}": _KERNEL_NAMES[n] for n in ("fp16", "bf16", "libdevice")})

#: The host API: arrays, transfers, streams, events, devices, the compiler.
HOST_NAMES = (
    "BaseCUDAMemoryManager",
    "GetIpcHandleMixin",
    "HostOnlyCUDAMemoryManager",
    "IpcArrayHandle",
    "IpcHandle",
    "MappedMemory",
    "MemoryInfo",
    "MemoryPointer",
    "PinnedMemory",
    "open_ipc_array",
    "set_memory_manager",
    "set_memory_resource",
    "CacheWarning",
    "CudaAPIError",
    "CudaOutOfMemoryError",
    "DeviceNDArray",
    "Dispatcher",
    "Event",
    "In",
    "InOut",
    "InternalCompilerError",
    "ManagedNDArray",
    "MappedNDArray",
    "Out",
    "Reduce",
    "Scan",
    "Stream",
    "TypingError",
    "args",
    "as_cuda_array",
    "backend",
    "backend_reason",
    "close",
    "compile",
    "compile_all",
    "compile_for_current_device",
    "compile_ptx",
    "declare_device",
    "CUSource",
    "PTXSource",
    "Cubin",
    "Fatbin",
    "LTOIR",
    "Object",
    "Archive",
    "compile_ptx_for_current_device",
    "cudadrv",
    "current_context",
    "default_stream",
    "defer_cleanup",
    "detect",
    "device_array",
    "device_array_like",
    "devicearray",
    "driver",
    "event",
    "event_elapsed_time",
    "external_stream",
    "from_dlpack",
    "get_current_device",
    "guvectorize",
    "gpus",
    "is_available",
    "is_bfloat16_supported",
    "is_float16_supported",
    "is_cuda_array",
    "jit",
    "legacy_default_stream",
    "list_devices",
    "managed_array",
    "mapped",
    "mapped_array",
    "mapped_array_like",
    "per_thread_default_stream",
    "pinned",
    "pinned_array",
    "pinned_array_like",
    "profile_start",
    "profile_stop",
    "profiling",
    "reduce",
    "scan",
    "select_device",
    "stream",
    "synchronize",
    "to_device",
    "types",
    "vectorize",
)

__all__ = [*HOST_NAMES, *sorted(_KERNEL_NAMES)]

# A plugin named by CUFORGE_MEMORY_MANAGER (or numba's NUMBA_CUDA_MEMORY_MANAGER):
# set last, so that the plugin's module can import this one.
from cuforge.cuda import _memory_manager as _mm

_mm._from_environment()
del _mm
