# cuforge.cuda: the numba.cuda-compatible API. The host API below is written
# by hand; the kernel-side names after it are generated from the intrinsic
# registry by scripts/gen_intrinsics.py (a test checks they are current).

import contextlib
from typing import Any, Callable, NamedTuple, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

from cuforge import types as types

_Shape = Union[int, Sequence[int]]
_DType = npt.DTypeLike
_StreamLike = Any  # a Stream, 0 or None (the default stream), or an object with __cuda_stream__

class DeviceNDArray:
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]
    dtype: np.dtype
    size: int
    nbytes: int
    ndim: int
    itemsize: int
    device_id: int
    flags: dict
    stream: Any
    device_ctypes_pointer: Any  # ctypes.c_void_p
    def copy_to_host(self, ary: Optional[np.ndarray] = None, stream: _StreamLike = 0) -> np.ndarray: ...
    def copy_to_device(self, ary: Any, stream: _StreamLike = 0) -> None: ...
    def is_c_contiguous(self) -> bool: ...
    def is_f_contiguous(self) -> bool: ...
    def reshape(self, *newshape: Any, order: str = "C") -> DeviceNDArray: ...
    def ravel(self, order: str = "C", stream: _StreamLike = 0) -> DeviceNDArray: ...
    def transpose(self, axes: Any = None) -> DeviceNDArray: ...
    @property
    def T(self) -> DeviceNDArray: ...
    def split(self, section: int, stream: _StreamLike = 0) -> list: ...
    def bind(self, stream: _StreamLike = 0) -> DeviceNDArray: ...
    def view(self, dtype: _DType) -> DeviceNDArray: ...
    def squeeze(self, axis: Any = None, stream: _StreamLike = 0) -> DeviceNDArray: ...
    def getitem(self, index: Any, stream: _StreamLike = 0) -> Any: ...
    def setitem(self, index: Any, value: Any, stream: _StreamLike = 0) -> None: ...
    def __getitem__(self, index: Any) -> Any: ...
    def __setitem__(self, index: Any, value: Any) -> None: ...
    def __len__(self) -> int: ...
    def __array__(self, dtype: Any = None) -> np.ndarray: ...
    @property
    def __cuda_array_interface__(self) -> dict: ...
    def __dlpack__(self, **kwargs: Any) -> Any: ...
    def __dlpack_device__(self) -> Tuple[int, int]: ...
    def get_ipc_handle(self) -> IpcArrayHandle: ...
    def __reduce__(self) -> Any: ...

class _ArgHint:
    value: Any
    def __init__(self, value: Any) -> None: ...
    def to_device(self, retr: list, stream: _StreamLike = 0) -> DeviceNDArray: ...

class In(_ArgHint): ...
class Out(_ArgHint): ...
class InOut(_ArgHint): ...

from cuforge.cuda import args as args, cudadrv as cudadrv
from cuforge.cuda.cudadrv import devicearray as devicearray, driver as driver

class Event:
    def record(self, stream: _StreamLike = 0) -> None: ...
    def synchronize(self) -> None: ...
    def query(self) -> bool: ...
    def wait(self, stream: _StreamLike = 0) -> None: ...
    def elapsed_time(self, evtend: Event) -> float: ...

class _CompiledFunction:
    ptx: str
    llvm: str
    types_dump: str
    symbol: str

class CudaAPIError(RuntimeError):
    code: int
    name: str
    call: str
    msg: str
    def __init__(self, code: int, msg: str) -> None: ...

class CudaOutOfMemoryError(CudaAPIError, MemoryError):
    bytes: int

class TypingError(TypeError):
    msg: str
    filename: Optional[str]
    lineno: Optional[int]
    col: Optional[int]
    source_line: Optional[str]

class CacheWarning(UserWarning): ...

class InternalCompilerError(RuntimeError):
    function: str
    detail: str

class Stream:
    handle_value: int
    external: bool
    is_default: bool
    device_id: int
    priority: int
    non_blocking: bool
    @property
    def handle(self) -> Any: ...
    def synchronize(self) -> None: ...
    def query(self) -> bool: ...
    def wait_event(self, event: Event) -> None: ...
    def add_callback(self, callback: Callable[[Stream, int, Any], None], arg: Any = None) -> None: ...
    def auto_synchronize(self) -> contextlib.AbstractContextManager[Stream]: ...
    def async_done(self) -> Any: ...
    def __cuda_stream__(self) -> Tuple[int, int]: ...
    def __int__(self) -> int: ...

class MappedNDArray(np.ndarray):
    def device_view(self) -> DeviceNDArray: ...

class ManagedNDArray(np.ndarray):
    def device_view(self) -> DeviceNDArray: ...

class Dispatcher:
    py_func: Callable[..., Any]
    device: bool
    targetoptions: dict
    def __getitem__(self, config: Tuple[Any, ...]) -> Callable[..., None]: ...
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...  # a device function, called from a kernel
    def configure(self, griddim: Any, blockdim: Any, stream: _StreamLike = 0, sharedmem: int = 0) -> Callable[..., None]: ...
    def forall(self, ntasks: int, tpb: int = 0, stream: _StreamLike = 0, sharedmem: int = 0) -> Callable[..., None]: ...
    def compile(self, sig: Any) -> _CompiledFunction: ...
    def specialize(self, *args: Any) -> Dispatcher: ...
    def disable_compile(self, val: bool = True) -> None: ...
    def inspect_types(self, file: Any = None, signature: Any = None) -> None: ...
    def inspect_llvm(self, signature: Any = None) -> Any: ...
    def inspect_asm(self, signature: Any = None) -> Any: ...
    def get_regs_per_thread(self, signature: Any = None) -> Any: ...
    def get_shared_mem_per_block(self, signature: Any = None) -> Any: ...
    def get_local_mem_per_thread(self, signature: Any = None) -> Any: ...
    def get_const_mem_size(self, signature: Any = None) -> Any: ...
    def get_max_threads_per_block(self, signature: Any = None) -> Any: ...
    @property
    def definitions(self) -> dict: ...
    @property
    def signatures(self) -> list: ...
    @property
    def stats(self) -> Any: ...

# --- memory and transfers ---
def to_device(obj: Any, stream: _StreamLike = 0, copy: bool = True, to: Optional[DeviceNDArray] = None) -> DeviceNDArray: ...
def device_array(shape: _Shape, dtype: _DType = ..., strides: Optional[Sequence[int]] = None, order: str = "C",
                 stream: _StreamLike = 0) -> DeviceNDArray: ...
def device_array_like(ary: Any, stream: _StreamLike = 0) -> DeviceNDArray: ...
def pinned_array(shape: _Shape, dtype: _DType = ..., strides: Optional[Sequence[int]] = None, order: str = "C") -> np.ndarray: ...
def pinned_array_like(ary: np.ndarray) -> np.ndarray: ...
def mapped_array(shape: _Shape, dtype: _DType = ..., strides: Optional[Sequence[int]] = None, order: str = "C",
                 stream: _StreamLike = 0, portable: bool = False, wc: bool = False) -> MappedNDArray: ...
def mapped_array_like(ary: np.ndarray, stream: _StreamLike = 0, portable: bool = False, wc: bool = False) -> MappedNDArray: ...
def managed_array(shape: _Shape, dtype: _DType = ..., strides: Optional[Sequence[int]] = None, order: str = "C",
                  stream: _StreamLike = 0, attach_global: bool = True) -> ManagedNDArray: ...
def pinned(*arylist: np.ndarray) -> contextlib.AbstractContextManager[None]: ...
def mapped(*arylist: np.ndarray, stream: _StreamLike = 0) -> contextlib.AbstractContextManager[Any]: ...
def defer_cleanup() -> contextlib.AbstractContextManager[None]: ...
def is_cuda_array(obj: Any) -> bool: ...
def as_cuda_array(obj: Any, sync: bool = True) -> DeviceNDArray: ...
def from_dlpack(obj: Any) -> DeviceNDArray: ...

# --- streams and events ---
def stream(priority: int = 0, non_blocking: bool = False) -> Stream: ...
def default_stream() -> Stream: ...
def legacy_default_stream() -> Stream: ...
def per_thread_default_stream() -> Stream: ...
def external_stream(ptr: Any) -> Stream: ...
def event(timing: bool = True) -> Event: ...
def event_elapsed_time(evtstart: Event, evtend: Event) -> float: ...

# --- devices and contexts ---
def backend() -> str: ...
def backend_reason() -> str: ...
def is_available() -> bool: ...
def is_bfloat16_supported() -> bool: ...
def is_float16_supported() -> bool: ...
def detect() -> bool: ...
def list_devices() -> list: ...
def select_device(device_id: int) -> Any: ...
def get_current_device() -> Any: ...
def current_context(devnum: Optional[int] = None) -> Any: ...
def synchronize() -> None: ...
def close() -> None: ...
def profile_start() -> None: ...
def profile_stop() -> None: ...
def profiling() -> contextlib.AbstractContextManager[None]: ...
gpus: Any

# --- the compiler ---
# @cuda.jit on a function is a Dispatcher; with a signature or options, a decorator that makes one.
@overload
def jit(func_or_sig: Callable[..., Any], device: bool = False, inline: bool = False, forceinline: bool = False,
        link: Any = (), debug: Optional[bool] = None, opt: Optional[bool] = None, lineinfo: bool = False,
        cache: bool = False, fastmath: bool = False, max_registers: Optional[int] = None, launch_bounds: Any = None,
        lto: Any = None, **kws: Any) -> Dispatcher: ...
@overload
def jit(func_or_sig: Any = None, device: bool = False, inline: bool = False, forceinline: bool = False, link: Any = (),
        debug: Optional[bool] = None, opt: Optional[bool] = None, lineinfo: bool = False, cache: bool = False,
        fastmath: bool = False, max_registers: Optional[int] = None, launch_bounds: Any = None, lto: Any = None,
        **kws: Any) -> Callable[[Callable[..., Any]], Dispatcher]: ...
def compile_ptx(pyfunc: Callable[..., Any], sig: Any, debug: bool = False, lineinfo: bool = False, device: bool = False,
                fastmath: bool = False, cc: Optional[Tuple[int, int]] = None, opt: bool = True, abi: str = "numba",
                abi_info: Any = None) -> Tuple[str, types.Type]: ...
def compile(pyfunc: Callable[..., Any], sig: Any, debug: Optional[bool] = None, lineinfo: bool = False,
            device: bool = True, fastmath: bool = False, cc: Optional[Tuple[int, int]] = None,
            opt: Optional[bool] = None, abi: str = "c", abi_info: Optional[dict] = None, output: str = "ptx",
            forceinline: bool = False, launch_bounds: Any = None) -> Tuple[Union[str, bytes], types.Type]: ...
def compile_for_current_device(pyfunc: Callable[..., Any], sig: Any, debug: Optional[bool] = None,
                               lineinfo: bool = False, device: bool = True, fastmath: bool = False,
                               opt: Optional[bool] = None, abi: str = "c", abi_info: Optional[dict] = None,
                               output: str = "ptx", forceinline: bool = False,
                               launch_bounds: Any = None) -> Tuple[Union[str, bytes], types.Type]: ...
def compile_all(pyfunc: Callable[..., Any], sig: Any, debug: Optional[bool] = None, lineinfo: bool = False,
                device: bool = True, fastmath: bool = False, cc: Optional[Tuple[int, int]] = None,
                opt: Optional[bool] = None, abi: str = "c", abi_info: Optional[dict] = None, output: str = "ltoir",
                forceinline: bool = False, launch_bounds: Any = None) -> Tuple[list, types.Type]: ...
def compile_ptx_for_current_device(pyfunc: Callable[..., Any], sig: Any, debug: bool = False, lineinfo: bool = False,
                                   device: bool = False, fastmath: bool = False, opt: bool = True, abi: str = "numba",
                                   abi_info: Any = None) -> Tuple[str, types.Type]: ...

HOST_NAMES: Tuple[str, ...]

# --- external memory managers (numba's EMM plugin interface) and IPC ---
class MemoryInfo(NamedTuple):
    free: int
    total: int
class MemoryPointer:
    context: Any
    device_pointer: int
    size: int
    handle: int
    def __init__(self, context: Any, pointer: Any, size: int, owner: Any = None,
                 finalizer: Optional[Callable[[], None]] = None) -> None: ...
    @property
    def owner(self) -> Any: ...
    def own(self) -> MemoryPointer: ...
    def free(self) -> None: ...
    def memset(self, byte: int, count: Optional[int] = None, stream: _StreamLike = 0) -> None: ...
    def view(self, start: int, stop: Optional[int] = None) -> MemoryPointer: ...
    @property
    def device_ctypes_pointer(self) -> Any: ...
    @property
    def device_pointer_value(self) -> Optional[int]: ...
class MappedMemory(MemoryPointer):
    host_pointer: int
class PinnedMemory:
    context: Any
    size: int
    host_pointer: int
    handle: int
    def __init__(self, context: Any, pointer: Any, size: int, owner: Any = None,
                 finalizer: Optional[Callable[[], None]] = None) -> None: ...
    def own(self) -> PinnedMemory: ...
class BaseCUDAMemoryManager:
    context: Any
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...
    def memalloc(self, size: int) -> MemoryPointer: ...
    def memhostalloc(self, size: int, mapped: bool, portable: bool, wc: bool) -> Any: ...
    def mempin(self, owner: Any, pointer: Any, size: int, mapped: bool) -> Any: ...
    def initialize(self) -> None: ...
    def get_ipc_handle(self, memory: MemoryPointer) -> IpcHandle: ...
    def get_memory_info(self) -> MemoryInfo: ...
    def reset(self) -> None: ...
    def defer_cleanup(self) -> contextlib.AbstractContextManager[None]: ...
    @property
    def interface_version(self) -> int: ...
class HostOnlyCUDAMemoryManager(BaseCUDAMemoryManager):
    allocations: dict
class GetIpcHandleMixin:
    def get_ipc_handle(self, memory: MemoryPointer) -> IpcHandle: ...
def set_memory_manager(mm_plugin: Optional[type]) -> None: ...
def set_memory_resource(mr: Any, device: Optional[int] = None) -> None: ...
class IpcHandle:
    base: Any
    handle: bytes
    size: int
    offset: int
    source_info: Optional[dict]
    def __init__(self, base: Any, handle: Any, size: int, source_info: Optional[dict] = None,
                 offset: int = 0) -> None: ...
    def open(self, context: Any = None) -> MemoryPointer: ...
    def open_array(self, context: Any = None, shape: Any = None, dtype: _DType = ...,
                   strides: Any = None) -> DeviceNDArray: ...
    def close(self) -> None: ...
class IpcArrayHandle:
    @property
    def ipc_handle(self) -> IpcHandle: ...
    def open(self) -> DeviceNDArray: ...
    def close(self) -> None: ...
    def __enter__(self) -> DeviceNDArray: ...
    def __exit__(self, *exc: Any) -> None: ...
def open_ipc_array(handle: Any, shape: _Shape, dtype: _DType, strides: Any = None,
                   offset: int = 0) -> contextlib.AbstractContextManager[DeviceNDArray]: ...

# --- device-wide reductions and scans (a binary function compiled as a device function) ---
class Reduce:
    def __init__(self, functor: Callable[[Any, Any], Any]) -> None: ...
    def __call__(self, arr: Any, size: Optional[int] = None, res: Any = None, init: Any = 0,
                 stream: _StreamLike = 0) -> Any: ...
def reduce(functor: Callable[[Any, Any], Any]) -> Reduce: ...
class Scan:
    def __init__(self, functor: Callable[[Any, Any], Any]) -> None: ...
    def __call__(self, arr: Any, out: Any = None, init: Any = None, exclusive: bool = False,
                 stream: _StreamLike = 0) -> Any: ...
def scan(functor: Callable[[Any, Any], Any]) -> Scan: ...

# --- vectorize and guvectorize (the CUDA target by default, as numba.cuda's) ---
def vectorize(ftylist_or_function: Any = (), target: str = "cuda", **kws: Any) -> Any: ...
def guvectorize(*args: Any, target: str = "cuda", **kws: Any) -> Callable[[Callable[..., Any]], Any]: ...

# --- kernel-side names: generated by scripts/gen_intrinsics.py from _core.intrinsics(); do not edit ---

def activemask() -> Any:
    """The lanes of the warp executing this call, as bits (uint32)."""
def all_sync(mask: Any, predicate: Any) -> Any:
    """True when the predicate is true in every lane of mask (boolean)."""
def any_sync(mask: Any, predicate: Any) -> Any:
    """True when the predicate is true in any lane of mask (boolean)."""
class _atomic:
    """Atomic read-modify-write of an array element (global or shared memory); each returns the element's old value."""
    def add(self, ary: Any, idx: Any, val: Any) -> Any:
        """ary[idx] += val."""
    def and_(self, ary: Any, idx: Any, val: Any) -> Any:
        """ary[idx] &= val (integers)."""
    def cas(self, ary: Any, idx: Any, old: Any, val: Any) -> Any:
        """ary[idx] = val where ary[idx] == old (integers)."""
    def compare_and_swap(self, ary: Any, old: Any, val: Any) -> Any:
        """ary[0] = val where ary[0] == old (a 1-d array)."""
    def dec(self, ary: Any, idx: Any, val: Any) -> Any:
        """ary[idx] = val if ary[idx] == 0 or ary[idx] > val else ary[idx] - 1 (uint32, uint64)."""
    def exch(self, ary: Any, idx: Any, val: Any) -> Any:
        """ary[idx] = val."""
    def inc(self, ary: Any, idx: Any, val: Any) -> Any:
        """ary[idx] = 0 if ary[idx] >= val else ary[idx] + 1 (uint32, uint64)."""
    def max(self, ary: Any, idx: Any, val: Any) -> Any:
        """ary[idx] = max(ary[idx], val); a nan val is ignored, a nan element stays."""
    def min(self, ary: Any, idx: Any, val: Any) -> Any:
        """ary[idx] = min(ary[idx], val); a nan val is ignored, a nan element stays."""
    def nanmax(self, ary: Any, idx: Any, val: Any) -> Any:
        """ary[idx] = max(ary[idx], val), nan a missing value: a nan val is ignored, a nan element replaced."""
    def nanmin(self, ary: Any, idx: Any, val: Any) -> Any:
        """ary[idx] = min(ary[idx], val), nan a missing value: a nan val is ignored, a nan element replaced."""
    def or_(self, ary: Any, idx: Any, val: Any) -> Any:
        """ary[idx] |= val (integers)."""
    def sub(self, ary: Any, idx: Any, val: Any) -> Any:
        """ary[idx] -= val."""
    def xor(self, ary: Any, idx: Any, val: Any) -> Any:
        """ary[idx] ^= val (integers)."""
atomic: _atomic
def ballot_sync(mask: Any, predicate: Any) -> Any:
    """The lanes of mask whose predicate is true, as bits (int32)."""
class _bf16:
    """numba-cuda's bfloat16 (cuda_bf16.h's functions on __nv_bfloat16)."""
    def bfloat16(self, x: Any) -> Any:
        """A bfloat16 from a number, rounded to the nearest (numba-cuda's bfloat16 type)."""
    def bfloat162char_rz(self, a: Any) -> Any:
        """A bfloat16 as an int8, toward zero (saturating; nan 0)."""
    def bfloat162float(self, a: Any) -> Any:
        """A bfloat16 as a float32 (exact)."""
    def bfloat162int_rd(self, a: Any) -> Any:
        """A bfloat16 as an int32 (saturating), rounded down."""
    def bfloat162int_rn(self, a: Any) -> Any:
        """A bfloat16 as an int32 (saturating), rounded to the nearest (ties to even)."""
    def bfloat162int_ru(self, a: Any) -> Any:
        """A bfloat16 as an int32 (saturating), rounded up."""
    def bfloat162int_rz(self, a: Any) -> Any:
        """A bfloat16 as an int32 (saturating), rounded toward zero."""
    def bfloat162ll_rd(self, a: Any) -> Any:
        """A bfloat16 as an int64 (saturating), rounded down."""
    def bfloat162ll_rn(self, a: Any) -> Any:
        """A bfloat16 as an int64 (saturating), rounded to the nearest (ties to even)."""
    def bfloat162ll_ru(self, a: Any) -> Any:
        """A bfloat16 as an int64 (saturating), rounded up."""
    def bfloat162ll_rz(self, a: Any) -> Any:
        """A bfloat16 as an int64 (saturating), rounded toward zero."""
    def bfloat162short_rd(self, a: Any) -> Any:
        """A bfloat16 as an int16 (saturating), rounded down."""
    def bfloat162short_rn(self, a: Any) -> Any:
        """A bfloat16 as an int16 (saturating), rounded to the nearest (ties to even)."""
    def bfloat162short_ru(self, a: Any) -> Any:
        """A bfloat16 as an int16 (saturating), rounded up."""
    def bfloat162short_rz(self, a: Any) -> Any:
        """A bfloat16 as an int16 (saturating), rounded toward zero."""
    def bfloat162uchar_rz(self, a: Any) -> Any:
        """A bfloat16 as a uint8, toward zero (saturating; nan 0)."""
    def bfloat162uint_rd(self, a: Any) -> Any:
        """A bfloat16 as a uint32 (saturating), rounded down."""
    def bfloat162uint_rn(self, a: Any) -> Any:
        """A bfloat16 as a uint32 (saturating), rounded to the nearest (ties to even)."""
    def bfloat162uint_ru(self, a: Any) -> Any:
        """A bfloat16 as a uint32 (saturating), rounded up."""
    def bfloat162uint_rz(self, a: Any) -> Any:
        """A bfloat16 as a uint32 (saturating), rounded toward zero."""
    def bfloat162ull_rd(self, a: Any) -> Any:
        """A bfloat16 as a uint64 (saturating), rounded down."""
    def bfloat162ull_rn(self, a: Any) -> Any:
        """A bfloat16 as a uint64 (saturating), rounded to the nearest (ties to even)."""
    def bfloat162ull_ru(self, a: Any) -> Any:
        """A bfloat16 as a uint64 (saturating), rounded up."""
    def bfloat162ull_rz(self, a: Any) -> Any:
        """A bfloat16 as a uint64 (saturating), rounded toward zero."""
    def bfloat162ushort_rd(self, a: Any) -> Any:
        """A bfloat16 as a uint16 (saturating), rounded down."""
    def bfloat162ushort_rn(self, a: Any) -> Any:
        """A bfloat16 as a uint16 (saturating), rounded to the nearest (ties to even)."""
    def bfloat162ushort_ru(self, a: Any) -> Any:
        """A bfloat16 as a uint16 (saturating), rounded up."""
    def bfloat162ushort_rz(self, a: Any) -> Any:
        """A bfloat16 as a uint16 (saturating), rounded toward zero."""
    def bfloat16_as_int16(self, a: Any) -> Any:
        """The bfloat16's bits as an int16."""
    def bfloat16_as_short(self, a: Any) -> Any:
        """The bfloat16's bits as an int16."""
    def bfloat16_as_uint16(self, a: Any) -> Any:
        """The bfloat16's bits as a uint16."""
    def bfloat16_as_ushort(self, a: Any) -> Any:
        """The bfloat16's bits as a uint16."""
    def bfloat16_to_float32(self, a: Any) -> Any:
        """A bfloat16 as a float32 (exact)."""
    def bfloat16_to_int16_rd(self, a: Any) -> Any:
        """A bfloat16 as an int16 (saturating), rounded down."""
    def bfloat16_to_int16_rn(self, a: Any) -> Any:
        """A bfloat16 as an int16 (saturating), rounded to the nearest (ties to even)."""
    def bfloat16_to_int16_ru(self, a: Any) -> Any:
        """A bfloat16 as an int16 (saturating), rounded up."""
    def bfloat16_to_int16_rz(self, a: Any) -> Any:
        """A bfloat16 as an int16 (saturating), rounded toward zero."""
    def bfloat16_to_int32_rd(self, a: Any) -> Any:
        """A bfloat16 as an int32 (saturating), rounded down."""
    def bfloat16_to_int32_rn(self, a: Any) -> Any:
        """A bfloat16 as an int32 (saturating), rounded to the nearest (ties to even)."""
    def bfloat16_to_int32_ru(self, a: Any) -> Any:
        """A bfloat16 as an int32 (saturating), rounded up."""
    def bfloat16_to_int32_rz(self, a: Any) -> Any:
        """A bfloat16 as an int32 (saturating), rounded toward zero."""
    def bfloat16_to_int64_rd(self, a: Any) -> Any:
        """A bfloat16 as an int64 (saturating), rounded down."""
    def bfloat16_to_int64_rn(self, a: Any) -> Any:
        """A bfloat16 as an int64 (saturating), rounded to the nearest (ties to even)."""
    def bfloat16_to_int64_ru(self, a: Any) -> Any:
        """A bfloat16 as an int64 (saturating), rounded up."""
    def bfloat16_to_int64_rz(self, a: Any) -> Any:
        """A bfloat16 as an int64 (saturating), rounded toward zero."""
    def bfloat16_to_int8_rz(self, a: Any) -> Any:
        """A bfloat16 as an int8, toward zero (saturating; nan 0)."""
    def bfloat16_to_uint16_rd(self, a: Any) -> Any:
        """A bfloat16 as a uint16 (saturating), rounded down."""
    def bfloat16_to_uint16_rn(self, a: Any) -> Any:
        """A bfloat16 as a uint16 (saturating), rounded to the nearest (ties to even)."""
    def bfloat16_to_uint16_ru(self, a: Any) -> Any:
        """A bfloat16 as a uint16 (saturating), rounded up."""
    def bfloat16_to_uint16_rz(self, a: Any) -> Any:
        """A bfloat16 as a uint16 (saturating), rounded toward zero."""
    def bfloat16_to_uint32_rd(self, a: Any) -> Any:
        """A bfloat16 as a uint32 (saturating), rounded down."""
    def bfloat16_to_uint32_rn(self, a: Any) -> Any:
        """A bfloat16 as a uint32 (saturating), rounded to the nearest (ties to even)."""
    def bfloat16_to_uint32_ru(self, a: Any) -> Any:
        """A bfloat16 as a uint32 (saturating), rounded up."""
    def bfloat16_to_uint32_rz(self, a: Any) -> Any:
        """A bfloat16 as a uint32 (saturating), rounded toward zero."""
    def bfloat16_to_uint64_rd(self, a: Any) -> Any:
        """A bfloat16 as a uint64 (saturating), rounded down."""
    def bfloat16_to_uint64_rn(self, a: Any) -> Any:
        """A bfloat16 as a uint64 (saturating), rounded to the nearest (ties to even)."""
    def bfloat16_to_uint64_ru(self, a: Any) -> Any:
        """A bfloat16 as a uint64 (saturating), rounded up."""
    def bfloat16_to_uint64_rz(self, a: Any) -> Any:
        """A bfloat16 as a uint64 (saturating), rounded toward zero."""
    def bfloat16_to_uint8_rz(self, a: Any) -> Any:
        """A bfloat16 as a uint8, toward zero (saturating; nan 0)."""
    def double2bfloat16(self, a: Any) -> Any:
        """A float64 as a bfloat16, to the nearest."""
    def float2bfloat16(self, a: Any) -> Any:
        """A float32 as a bfloat16, to the nearest."""
    def float2bfloat16_rd(self, a: Any) -> Any:
        """A float32 as a bfloat16, rounded down."""
    def float2bfloat16_rn(self, a: Any) -> Any:
        """A float32 as a bfloat16, rounded to the nearest (ties to even)."""
    def float2bfloat16_ru(self, a: Any) -> Any:
        """A float32 as a bfloat16, rounded up."""
    def float2bfloat16_rz(self, a: Any) -> Any:
        """A float32 as a bfloat16, rounded toward zero."""
    def float32_to_bfloat16(self, a: Any) -> Any:
        """A float32 as a bfloat16, to the nearest."""
    def float32_to_bfloat16_rd(self, a: Any) -> Any:
        """A float32 as a bfloat16, rounded down."""
    def float32_to_bfloat16_rn(self, a: Any) -> Any:
        """A float32 as a bfloat16, rounded to the nearest (ties to even)."""
    def float32_to_bfloat16_ru(self, a: Any) -> Any:
        """A float32 as a bfloat16, rounded up."""
    def float32_to_bfloat16_rz(self, a: Any) -> Any:
        """A float32 as a bfloat16, rounded toward zero."""
    def float64_to_bfloat16(self, a: Any) -> Any:
        """A float64 as a bfloat16, to the nearest."""
    def habs(self, a: Any) -> Any:
        """|a| (the sign bit cleared)."""
    def hadd(self, a: Any, b: Any) -> Any:
        """a + b in bfloat16."""
    def hadd_rn(self, a: Any, b: Any) -> Any:
        """a + b, never contracted into an fma."""
    def hadd_sat(self, a: Any, b: Any) -> Any:
        """a + b clamped to [0, 1] (nan gives 0)."""
    def hceil(self, a: Any) -> Any:
        """The smallest integer >= a, as a bfloat16."""
    def hcos(self, a: Any) -> Any:
        """The cosine (float32's, rounded)."""
    def hdiv(self, a: Any, b: Any) -> Any:
        """a / b in bfloat16, correctly rounded."""
    def heq(self, a: Any, b: Any) -> Any:
        """a == b (false when either is nan)."""
    def hequ(self, a: Any, b: Any) -> Any:
        """a == b, or either is nan."""
    def hexp(self, a: Any) -> Any:
        """e ** a."""
    def hexp10(self, a: Any) -> Any:
        """10 ** a."""
    def hexp2(self, a: Any) -> Any:
        """2 ** a."""
    def hfloor(self, a: Any) -> Any:
        """The largest integer <= a, as a bfloat16."""
    def hfma(self, a: Any, b: Any, c: Any) -> Any:
        """a * b + c, rounded once."""
    def hfma_relu(self, a: Any, b: Any, c: Any) -> Any:
        """a * b + c rounded once; negative gives 0, nan stays nan."""
    def hfma_sat(self, a: Any, b: Any, c: Any) -> Any:
        """a * b + c rounded once, clamped to [0, 1] (nan gives 0)."""
    def hge(self, a: Any, b: Any) -> Any:
        """a >= b (false when either is nan)."""
    def hgeu(self, a: Any, b: Any) -> Any:
        """a >= b, or either is nan."""
    def hgt(self, a: Any, b: Any) -> Any:
        """a > b (false when either is nan)."""
    def hgtu(self, a: Any, b: Any) -> Any:
        """a > b, or either is nan."""
    def hisinf(self, a: Any) -> Any:
        """-1 when a is -inf, 1 when it is inf, else 0 (an int32)."""
    def hisnan(self, a: Any) -> Any:
        """Whether a is nan."""
    def hle(self, a: Any, b: Any) -> Any:
        """a <= b (false when either is nan)."""
    def hleu(self, a: Any, b: Any) -> Any:
        """a <= b, or either is nan."""
    def hlog(self, a: Any) -> Any:
        """The natural logarithm."""
    def hlog10(self, a: Any) -> Any:
        """The base-10 logarithm."""
    def hlog2(self, a: Any) -> Any:
        """The base-2 logarithm."""
    def hlt(self, a: Any, b: Any) -> Any:
        """a < b (false when either is nan)."""
    def hltu(self, a: Any, b: Any) -> Any:
        """a < b, or either is nan."""
    def hmax(self, a: Any, b: Any) -> Any:
        """The larger of a and b; a nan gives the other."""
    def hmax_nan(self, a: Any, b: Any) -> Any:
        """The larger of a and b; a nan operand gives nan."""
    def hmin(self, a: Any, b: Any) -> Any:
        """The smaller of a and b; a nan gives the other."""
    def hmin_nan(self, a: Any, b: Any) -> Any:
        """The smaller of a and b; a nan operand gives nan."""
    def hmul(self, a: Any, b: Any) -> Any:
        """a * b in bfloat16."""
    def hmul_rn(self, a: Any, b: Any) -> Any:
        """a * b, never contracted into an fma."""
    def hmul_sat(self, a: Any, b: Any) -> Any:
        """a * b clamped to [0, 1] (nan gives 0)."""
    def hne(self, a: Any, b: Any) -> Any:
        """a != b (false when either is nan, unlike the operator)."""
    def hneg(self, a: Any) -> Any:
        """-a (the sign bit flipped)."""
    def hneu(self, a: Any, b: Any) -> Any:
        """a != b, or either is nan."""
    def hrcp(self, a: Any) -> Any:
        """1 / a."""
    def hrint(self, a: Any) -> Any:
        """a rounded to the nearest integer (halves to even)."""
    def hrsqrt(self, a: Any) -> Any:
        """1 / sqrt(a)."""
    def hsin(self, a: Any) -> Any:
        """The sine (float32's, rounded)."""
    def hsqrt(self, a: Any) -> Any:
        """The square root."""
    def hsub(self, a: Any, b: Any) -> Any:
        """a - b in bfloat16."""
    def hsub_rn(self, a: Any, b: Any) -> Any:
        """a - b, never contracted into an fma."""
    def hsub_sat(self, a: Any, b: Any) -> Any:
        """a - b clamped to [0, 1] (nan gives 0)."""
    def htanh(self, a: Any) -> Any:
        """The hyperbolic tangent (float32's, rounded)."""
    def htanh_approx(self, a: Any) -> Any:
        """The hyperbolic tangent by the GPU's approximate instruction (sm_90; elsewhere htanh's)."""
    def htrunc(self, a: Any) -> Any:
        """a rounded toward zero, as a bfloat16."""
    def int16_as_bfloat16(self, a: Any) -> Any:
        """The bfloat16 whose bits are the int16's."""
    def int16_to_bfloat16_rd(self, a: Any) -> Any:
        """An int16 as a bfloat16, rounded down."""
    def int16_to_bfloat16_rn(self, a: Any) -> Any:
        """An int16 as a bfloat16, rounded to the nearest (ties to even)."""
    def int16_to_bfloat16_ru(self, a: Any) -> Any:
        """An int16 as a bfloat16, rounded up."""
    def int16_to_bfloat16_rz(self, a: Any) -> Any:
        """An int16 as a bfloat16, rounded toward zero."""
    def int2bfloat16_rd(self, a: Any) -> Any:
        """An int32 as a bfloat16, rounded down."""
    def int2bfloat16_rn(self, a: Any) -> Any:
        """An int32 as a bfloat16, rounded to the nearest (ties to even)."""
    def int2bfloat16_ru(self, a: Any) -> Any:
        """An int32 as a bfloat16, rounded up."""
    def int2bfloat16_rz(self, a: Any) -> Any:
        """An int32 as a bfloat16, rounded toward zero."""
    def int32_to_bfloat16_rd(self, a: Any) -> Any:
        """An int32 as a bfloat16, rounded down."""
    def int32_to_bfloat16_rn(self, a: Any) -> Any:
        """An int32 as a bfloat16, rounded to the nearest (ties to even)."""
    def int32_to_bfloat16_ru(self, a: Any) -> Any:
        """An int32 as a bfloat16, rounded up."""
    def int32_to_bfloat16_rz(self, a: Any) -> Any:
        """An int32 as a bfloat16, rounded toward zero."""
    def int64_to_bfloat16_rd(self, a: Any) -> Any:
        """An int64 as a bfloat16, rounded down."""
    def int64_to_bfloat16_rn(self, a: Any) -> Any:
        """An int64 as a bfloat16, rounded to the nearest (ties to even)."""
    def int64_to_bfloat16_ru(self, a: Any) -> Any:
        """An int64 as a bfloat16, rounded up."""
    def int64_to_bfloat16_rz(self, a: Any) -> Any:
        """An int64 as a bfloat16, rounded toward zero."""
    def ll2bfloat16_rd(self, a: Any) -> Any:
        """An int64 as a bfloat16, rounded down."""
    def ll2bfloat16_rn(self, a: Any) -> Any:
        """An int64 as a bfloat16, rounded to the nearest (ties to even)."""
    def ll2bfloat16_ru(self, a: Any) -> Any:
        """An int64 as a bfloat16, rounded up."""
    def ll2bfloat16_rz(self, a: Any) -> Any:
        """An int64 as a bfloat16, rounded toward zero."""
    def short2bfloat16_rd(self, a: Any) -> Any:
        """An int16 as a bfloat16, rounded down."""
    def short2bfloat16_rn(self, a: Any) -> Any:
        """An int16 as a bfloat16, rounded to the nearest (ties to even)."""
    def short2bfloat16_ru(self, a: Any) -> Any:
        """An int16 as a bfloat16, rounded up."""
    def short2bfloat16_rz(self, a: Any) -> Any:
        """An int16 as a bfloat16, rounded toward zero."""
    def short_as_bfloat16(self, a: Any) -> Any:
        """The bfloat16 whose bits are the int16's."""
    def uint16_as_bfloat16(self, a: Any) -> Any:
        """The bfloat16 whose bits are the uint16's."""
    def uint16_to_bfloat16_rd(self, a: Any) -> Any:
        """A uint16 as a bfloat16, rounded down."""
    def uint16_to_bfloat16_rn(self, a: Any) -> Any:
        """A uint16 as a bfloat16, rounded to the nearest (ties to even)."""
    def uint16_to_bfloat16_ru(self, a: Any) -> Any:
        """A uint16 as a bfloat16, rounded up."""
    def uint16_to_bfloat16_rz(self, a: Any) -> Any:
        """A uint16 as a bfloat16, rounded toward zero."""
    def uint2bfloat16_rd(self, a: Any) -> Any:
        """A uint32 as a bfloat16, rounded down."""
    def uint2bfloat16_rn(self, a: Any) -> Any:
        """A uint32 as a bfloat16, rounded to the nearest (ties to even)."""
    def uint2bfloat16_ru(self, a: Any) -> Any:
        """A uint32 as a bfloat16, rounded up."""
    def uint2bfloat16_rz(self, a: Any) -> Any:
        """A uint32 as a bfloat16, rounded toward zero."""
    def uint32_to_bfloat16_rd(self, a: Any) -> Any:
        """A uint32 as a bfloat16, rounded down."""
    def uint32_to_bfloat16_rn(self, a: Any) -> Any:
        """A uint32 as a bfloat16, rounded to the nearest (ties to even)."""
    def uint32_to_bfloat16_ru(self, a: Any) -> Any:
        """A uint32 as a bfloat16, rounded up."""
    def uint32_to_bfloat16_rz(self, a: Any) -> Any:
        """A uint32 as a bfloat16, rounded toward zero."""
    def uint64_to_bfloat16_rd(self, a: Any) -> Any:
        """A uint64 as a bfloat16, rounded down."""
    def uint64_to_bfloat16_rn(self, a: Any) -> Any:
        """A uint64 as a bfloat16, rounded to the nearest (ties to even)."""
    def uint64_to_bfloat16_ru(self, a: Any) -> Any:
        """A uint64 as a bfloat16, rounded up."""
    def uint64_to_bfloat16_rz(self, a: Any) -> Any:
        """A uint64 as a bfloat16, rounded toward zero."""
    def ull2bfloat16_rd(self, a: Any) -> Any:
        """A uint64 as a bfloat16, rounded down."""
    def ull2bfloat16_rn(self, a: Any) -> Any:
        """A uint64 as a bfloat16, rounded to the nearest (ties to even)."""
    def ull2bfloat16_ru(self, a: Any) -> Any:
        """A uint64 as a bfloat16, rounded up."""
    def ull2bfloat16_rz(self, a: Any) -> Any:
        """A uint64 as a bfloat16, rounded toward zero."""
    def ushort2bfloat16_rd(self, a: Any) -> Any:
        """A uint16 as a bfloat16, rounded down."""
    def ushort2bfloat16_rn(self, a: Any) -> Any:
        """A uint16 as a bfloat16, rounded to the nearest (ties to even)."""
    def ushort2bfloat16_ru(self, a: Any) -> Any:
        """A uint16 as a bfloat16, rounded up."""
    def ushort2bfloat16_rz(self, a: Any) -> Any:
        """A uint16 as a bfloat16, rounded toward zero."""
    def ushort_as_bfloat16(self, a: Any) -> Any:
        """The bfloat16 whose bits are the uint16's."""
bf16: _bf16
class _blockDim:
    """The block's shape in threads, per dimension (int32)."""
    x: Any
    """Threads per block in x."""
    y: Any
    """Threads per block in y."""
    z: Any
    """Threads per block in z."""
blockDim: _blockDim
class _blockIdx:
    """The block's index in the grid, per dimension (int32)."""
    x: Any
    """The block's x index in the grid."""
    y: Any
    """The block's y index in the grid."""
    z: Any
    """The block's z index in the grid."""
blockIdx: _blockIdx
def brev(x: Any) -> Any:
    """The integer x with its bits in reverse order (uint32, or uint64 for 64-bit x)."""
def cbrt(x: Any) -> Any:
    """The cube root of x."""
class _cg:
    """Cooperative groups: the grid and the block as groups that sync."""
    class _cg_GridGroup:
        """What cuda.cg.this_grid() returns."""
        size: Any
        """The number of threads in the grid (int64)."""
        def sync(self) -> Any:
            """Waits until every thread of the grid has reached it."""
        thread_rank: Any
        """The thread's rank in the grid, x fastest (int64)."""
    GridGroup: _cg_GridGroup
    class _cg_ThreadBlock:
        """What cuda.cg.this_thread_block() returns."""
        size: Any
        """The number of threads in the block (int64)."""
        def sync(self) -> Any:
            """Waits until every thread of the block has reached it (cuda.syncthreads())."""
        thread_rank: Any
        """The thread's rank in its block, x fastest (int64)."""
    ThreadBlock: _cg_ThreadBlock
    def this_grid(self) -> Any:
        """The grid as a group; a kernel that calls it is launched cooperatively (every block co-resident, the grid at most max_cooperative_grid_blocks)."""
    def this_thread_block(self) -> Any:
        """The thread's block as a group."""
cg: _cg
def char1(x: Any) -> Any:
    """CUDA C's char1: another name of cuda.int8x1."""
def char2(x: Any, y: Any) -> Any:
    """CUDA C's char2: another name of cuda.int8x2."""
def char3(x: Any, y: Any, z: Any) -> Any:
    """CUDA C's char3: another name of cuda.int8x3."""
def char4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """CUDA C's char4: another name of cuda.int8x4."""
def clz(x: Any) -> Any:
    """The number of leading zero bits of the integer x (x's type)."""
class _const:
    """Arrays in constant memory."""
    def array_like(self, ary: Any) -> Any:
        """A global NumPy array read from constant memory."""
const: _const
def double1(x: Any) -> Any:
    """CUDA C's double1: another name of cuda.float64x1."""
def double2(x: Any, y: Any) -> Any:
    """CUDA C's double2: another name of cuda.float64x2."""
def double3(x: Any, y: Any, z: Any) -> Any:
    """CUDA C's double3: another name of cuda.float64x3."""
def double4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """CUDA C's double4: another name of cuda.float64x4."""
def eq_sync(mask: Any, predicate: Any) -> Any:
    """True when the predicate is the same in every lane of mask (boolean)."""
def ffs(x: Any) -> Any:
    """The 1-based position of the lowest bit set in the integer x, 0 for 0 (uint32)."""
def float1(x: Any) -> Any:
    """CUDA C's float1: another name of cuda.float32x1."""
def float2(x: Any, y: Any) -> Any:
    """CUDA C's float2: another name of cuda.float32x2."""
def float3(x: Any, y: Any, z: Any) -> Any:
    """CUDA C's float3: another name of cuda.float32x3."""
def float32x1(x: Any) -> Any:
    """A float32 vector of 1 element (.x)."""
def float32x2(x: Any, y: Any) -> Any:
    """A float32 vector of 2 elements (.x .y)."""
def float32x3(x: Any, y: Any, z: Any) -> Any:
    """A float32 vector of 3 elements (.x .y .z)."""
def float32x4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """A float32 vector of 4 elements (.x .y .z .w)."""
def float4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """CUDA C's float4: another name of cuda.float32x4."""
def float64x1(x: Any) -> Any:
    """A float64 vector of 1 element (.x)."""
def float64x2(x: Any, y: Any) -> Any:
    """A float64 vector of 2 elements (.x .y)."""
def float64x3(x: Any, y: Any, z: Any) -> Any:
    """A float64 vector of 3 elements (.x .y .z)."""
def float64x4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """A float64 vector of 4 elements (.x .y .z .w)."""
def fma(a: Any, b: Any, c: Any) -> Any:
    """a * b + c rounded once (floats)."""
class _fp16:
    """numba-cuda's half-precision functions (cuda_fp16.h's): float16 in, float16 out."""
    def __double2half(self, a: Any) -> Any:
        """A float64 as a float16, rounded to the nearest."""
    def __float2half(self, a: Any) -> Any:
        """A float32 as a float16, rounded to the nearest."""
    def __float2half_rd(self, a: Any) -> Any:
        """A float32 as a float16, rounded down."""
    def __float2half_rn(self, a: Any) -> Any:
        """A float32 as a float16, rounded to the nearest (ties to even)."""
    def __float2half_ru(self, a: Any) -> Any:
        """A float32 as a float16, rounded up."""
    def __float2half_rz(self, a: Any) -> Any:
        """A float32 as a float16, rounded toward zero."""
    def __habs(self, a: Any) -> Any:
        """|a|."""
    def __hadd(self, a: Any, b: Any) -> Any:
        """a + b in half precision (add.f16)."""
    def __hadd_rn(self, a: Any, b: Any) -> Any:
        """a + b, never contracted into an fma."""
    def __hadd_sat(self, a: Any, b: Any) -> Any:
        """a + b clamped to [0, 1] (nan gives 0)."""
    def __half2char_rz(self, a: Any) -> Any:
        """A float16 as an int8, toward zero (saturating; nan 0)."""
    def __half2float(self, a: Any) -> Any:
        """A float16 as a float32 (exact)."""
    def __half2int_rd(self, a: Any) -> Any:
        """A float16 as an int32 (saturating), rounded down."""
    def __half2int_rn(self, a: Any) -> Any:
        """A float16 as an int32 (saturating), rounded to the nearest (ties to even)."""
    def __half2int_ru(self, a: Any) -> Any:
        """A float16 as an int32 (saturating), rounded up."""
    def __half2int_rz(self, a: Any) -> Any:
        """A float16 as an int32 (saturating), rounded toward zero."""
    def __half2ll_rd(self, a: Any) -> Any:
        """A float16 as an int64 (saturating), rounded down."""
    def __half2ll_rn(self, a: Any) -> Any:
        """A float16 as an int64 (saturating), rounded to the nearest (ties to even)."""
    def __half2ll_ru(self, a: Any) -> Any:
        """A float16 as an int64 (saturating), rounded up."""
    def __half2ll_rz(self, a: Any) -> Any:
        """A float16 as an int64 (saturating), rounded toward zero."""
    def __half2short_rd(self, a: Any) -> Any:
        """A float16 as an int16 (saturating), rounded down."""
    def __half2short_rn(self, a: Any) -> Any:
        """A float16 as an int16 (saturating), rounded to the nearest (ties to even)."""
    def __half2short_ru(self, a: Any) -> Any:
        """A float16 as an int16 (saturating), rounded up."""
    def __half2short_rz(self, a: Any) -> Any:
        """A float16 as an int16 (saturating), rounded toward zero."""
    def __half2uchar_rz(self, a: Any) -> Any:
        """A float16 as a uint8, toward zero (saturating; nan 0)."""
    def __half2uint_rd(self, a: Any) -> Any:
        """A float16 as a uint32 (saturating), rounded down."""
    def __half2uint_rn(self, a: Any) -> Any:
        """A float16 as a uint32 (saturating), rounded to the nearest (ties to even)."""
    def __half2uint_ru(self, a: Any) -> Any:
        """A float16 as a uint32 (saturating), rounded up."""
    def __half2uint_rz(self, a: Any) -> Any:
        """A float16 as a uint32 (saturating), rounded toward zero."""
    def __half2ull_rd(self, a: Any) -> Any:
        """A float16 as a uint64 (saturating), rounded down."""
    def __half2ull_rn(self, a: Any) -> Any:
        """A float16 as a uint64 (saturating), rounded to the nearest (ties to even)."""
    def __half2ull_ru(self, a: Any) -> Any:
        """A float16 as a uint64 (saturating), rounded up."""
    def __half2ull_rz(self, a: Any) -> Any:
        """A float16 as a uint64 (saturating), rounded toward zero."""
    def __half2ushort_rd(self, a: Any) -> Any:
        """A float16 as a uint16 (saturating), rounded down."""
    def __half2ushort_rn(self, a: Any) -> Any:
        """A float16 as a uint16 (saturating), rounded to the nearest (ties to even)."""
    def __half2ushort_ru(self, a: Any) -> Any:
        """A float16 as a uint16 (saturating), rounded up."""
    def __half2ushort_rz(self, a: Any) -> Any:
        """A float16 as a uint16 (saturating), rounded toward zero."""
    def __half_as_short(self, a: Any) -> Any:
        """The float16's bits as an int16."""
    def __half_as_ushort(self, a: Any) -> Any:
        """The float16's bits as a uint16."""
    def __hdiv(self, a: Any, b: Any) -> Any:
        """a / b in half precision (cuda_fp16.h's __hdiv)."""
    def __heq(self, a: Any, b: Any) -> Any:
        """a == b (a bool; false when either is nan)."""
    def __hequ(self, a: Any, b: Any) -> Any:
        """a == b, or either is nan."""
    def __hfma(self, a: Any, b: Any, c: Any) -> Any:
        """a * b + c in half precision, rounded once."""
    def __hfma_relu(self, a: Any, b: Any, c: Any) -> Any:
        """a * b + c rounded once; negative gives 0, nan stays nan."""
    def __hfma_sat(self, a: Any, b: Any, c: Any) -> Any:
        """a * b + c rounded once, clamped to [0, 1] (nan gives 0)."""
    def __hge(self, a: Any, b: Any) -> Any:
        """a >= b (a bool; false when either is nan)."""
    def __hgeu(self, a: Any, b: Any) -> Any:
        """a >= b, or either is nan."""
    def __hgt(self, a: Any, b: Any) -> Any:
        """a > b (a bool; false when either is nan)."""
    def __hgtu(self, a: Any, b: Any) -> Any:
        """a > b, or either is nan."""
    def __hisinf(self, a: Any) -> Any:
        """-1 when a is -inf, 1 when it is inf, else 0 (an int32)."""
    def __hisnan(self, a: Any) -> Any:
        """Whether a is nan."""
    def __hle(self, a: Any, b: Any) -> Any:
        """a <= b (a bool; false when either is nan)."""
    def __hleu(self, a: Any, b: Any) -> Any:
        """a <= b, or either is nan."""
    def __hlt(self, a: Any, b: Any) -> Any:
        """a < b (a bool; false when either is nan)."""
    def __hltu(self, a: Any, b: Any) -> Any:
        """a < b, or either is nan."""
    def __hmax(self, a: Any, b: Any) -> Any:
        """The larger of a and b; a nan gives the other (max.f16)."""
    def __hmax_nan(self, a: Any, b: Any) -> Any:
        """The larger of a and b; a nan operand gives nan."""
    def __hmin(self, a: Any, b: Any) -> Any:
        """The smaller of a and b; a nan gives the other (min.f16)."""
    def __hmin_nan(self, a: Any, b: Any) -> Any:
        """The smaller of a and b; a nan operand gives nan."""
    def __hmul(self, a: Any, b: Any) -> Any:
        """a * b in half precision."""
    def __hmul_rn(self, a: Any, b: Any) -> Any:
        """a * b, never contracted into an fma."""
    def __hmul_sat(self, a: Any, b: Any) -> Any:
        """a * b clamped to [0, 1] (nan gives 0)."""
    def __hne(self, a: Any, b: Any) -> Any:
        """a != b (a bool; false when either is nan, unlike the operator)."""
    def __hneg(self, a: Any) -> Any:
        """-a."""
    def __hneu(self, a: Any, b: Any) -> Any:
        """a != b, or either is nan."""
    def __hsub(self, a: Any, b: Any) -> Any:
        """a - b in half precision."""
    def __hsub_rn(self, a: Any, b: Any) -> Any:
        """a - b, never contracted into an fma."""
    def __hsub_sat(self, a: Any, b: Any) -> Any:
        """a - b clamped to [0, 1] (nan gives 0)."""
    def __int2half_rd(self, a: Any) -> Any:
        """An int32 as a float16, rounded down."""
    def __int2half_rn(self, a: Any) -> Any:
        """An int32 as a float16, rounded to the nearest (ties to even)."""
    def __int2half_ru(self, a: Any) -> Any:
        """An int32 as a float16, rounded up."""
    def __int2half_rz(self, a: Any) -> Any:
        """An int32 as a float16, rounded toward zero."""
    def __ll2half_rd(self, a: Any) -> Any:
        """An int64 as a float16, rounded down."""
    def __ll2half_rn(self, a: Any) -> Any:
        """An int64 as a float16, rounded to the nearest (ties to even)."""
    def __ll2half_ru(self, a: Any) -> Any:
        """An int64 as a float16, rounded up."""
    def __ll2half_rz(self, a: Any) -> Any:
        """An int64 as a float16, rounded toward zero."""
    def __short2half_rd(self, a: Any) -> Any:
        """An int16 as a float16, rounded down."""
    def __short2half_rn(self, a: Any) -> Any:
        """An int16 as a float16, rounded to the nearest (ties to even)."""
    def __short2half_ru(self, a: Any) -> Any:
        """An int16 as a float16, rounded up."""
    def __short2half_rz(self, a: Any) -> Any:
        """An int16 as a float16, rounded toward zero."""
    def __short_as_half(self, a: Any) -> Any:
        """The float16 whose bits are the int16's."""
    def __uint2half_rd(self, a: Any) -> Any:
        """A uint32 as a float16, rounded down."""
    def __uint2half_rn(self, a: Any) -> Any:
        """A uint32 as a float16, rounded to the nearest (ties to even)."""
    def __uint2half_ru(self, a: Any) -> Any:
        """A uint32 as a float16, rounded up."""
    def __uint2half_rz(self, a: Any) -> Any:
        """A uint32 as a float16, rounded toward zero."""
    def __ull2half_rd(self, a: Any) -> Any:
        """A uint64 as a float16, rounded down."""
    def __ull2half_rn(self, a: Any) -> Any:
        """A uint64 as a float16, rounded to the nearest (ties to even)."""
    def __ull2half_ru(self, a: Any) -> Any:
        """A uint64 as a float16, rounded up."""
    def __ull2half_rz(self, a: Any) -> Any:
        """A uint64 as a float16, rounded toward zero."""
    def __ushort2half_rd(self, a: Any) -> Any:
        """A uint16 as a float16, rounded down."""
    def __ushort2half_rn(self, a: Any) -> Any:
        """A uint16 as a float16, rounded to the nearest (ties to even)."""
    def __ushort2half_ru(self, a: Any) -> Any:
        """A uint16 as a float16, rounded up."""
    def __ushort2half_rz(self, a: Any) -> Any:
        """A uint16 as a float16, rounded toward zero."""
    def __ushort_as_half(self, a: Any) -> Any:
        """The float16 whose bits are the uint16's."""
    def habs(self, a: Any) -> Any:
        """|a|."""
    def hadd(self, a: Any, b: Any) -> Any:
        """a + b in half precision (add.f16)."""
    def hceil(self, a: Any) -> Any:
        """The smallest integer >= a, as a float16."""
    def hcos(self, a: Any) -> Any:
        """The cosine (cuda_fp16.h's, the same bits on every target)."""
    def hdiv(self, a: Any, b: Any) -> Any:
        """a / b in half precision (cuda_fp16.h's __hdiv)."""
    def heq(self, a: Any, b: Any) -> Any:
        """a == b (a bool; false when either is nan)."""
    def hexp(self, a: Any) -> Any:
        """e ** a."""
    def hexp10(self, a: Any) -> Any:
        """10 ** a."""
    def hexp2(self, a: Any) -> Any:
        """2 ** a."""
    def hfloor(self, a: Any) -> Any:
        """The largest integer <= a, as a float16."""
    def hfma(self, a: Any, b: Any, c: Any) -> Any:
        """a * b + c in half precision, rounded once."""
    def hge(self, a: Any, b: Any) -> Any:
        """a >= b (a bool; false when either is nan)."""
    def hgt(self, a: Any, b: Any) -> Any:
        """a > b (a bool; false when either is nan)."""
    def hle(self, a: Any, b: Any) -> Any:
        """a <= b (a bool; false when either is nan)."""
    def hlog(self, a: Any) -> Any:
        """The natural logarithm."""
    def hlog10(self, a: Any) -> Any:
        """The base-10 logarithm."""
    def hlog2(self, a: Any) -> Any:
        """The base-2 logarithm."""
    def hlt(self, a: Any, b: Any) -> Any:
        """a < b (a bool; false when either is nan)."""
    def hmax(self, a: Any, b: Any) -> Any:
        """The larger of a and b; a nan gives the other (max.f16)."""
    def hmin(self, a: Any, b: Any) -> Any:
        """The smaller of a and b; a nan gives the other (min.f16)."""
    def hmul(self, a: Any, b: Any) -> Any:
        """a * b in half precision."""
    def hne(self, a: Any, b: Any) -> Any:
        """a != b (a bool; false when either is nan, unlike the operator)."""
    def hneg(self, a: Any) -> Any:
        """-a."""
    def hrcp(self, a: Any) -> Any:
        """1 / a."""
    def hrint(self, a: Any) -> Any:
        """a rounded to the nearest integer (halves to even), as a float16."""
    def hrsqrt(self, a: Any) -> Any:
        """1 / sqrt(a)."""
    def hsin(self, a: Any) -> Any:
        """The sine (cuda_fp16.h's, the same bits on every target)."""
    def hsqrt(self, a: Any) -> Any:
        """The square root."""
    def hsub(self, a: Any, b: Any) -> Any:
        """a - b in half precision."""
    def htanh(self, a: Any) -> Any:
        """The hyperbolic tangent (float32's, rounded to float16)."""
    def htanh_approx(self, a: Any) -> Any:
        """The hyperbolic tangent by the GPU's approximate instruction (sm_80 and newer; elsewhere htanh's)."""
    def htrunc(self, a: Any) -> Any:
        """a rounded toward zero, as a float16."""
fp16: _fp16
def grid(ndim: Any) -> Any:
    """The thread's absolute position in the grid: an int64, or a tuple of ndim of them."""
class _gridDim:
    """The grid's shape in blocks, per dimension (int32)."""
    x: Any
    """Blocks in the grid in x."""
    y: Any
    """Blocks in the grid in y."""
    z: Any
    """Blocks in the grid in z."""
gridDim: _gridDim
def gridsize(ndim: Any) -> Any:
    """The grid's size in threads: an int64, or a tuple of ndim of them."""
def int1(x: Any) -> Any:
    """CUDA C's int1: another name of cuda.int32x1."""
def int16x1(x: Any) -> Any:
    """A int16 vector of 1 element (.x)."""
def int16x2(x: Any, y: Any) -> Any:
    """A int16 vector of 2 elements (.x .y)."""
def int16x3(x: Any, y: Any, z: Any) -> Any:
    """A int16 vector of 3 elements (.x .y .z)."""
def int16x4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """A int16 vector of 4 elements (.x .y .z .w)."""
def int2(x: Any, y: Any) -> Any:
    """CUDA C's int2: another name of cuda.int32x2."""
def int3(x: Any, y: Any, z: Any) -> Any:
    """CUDA C's int3: another name of cuda.int32x3."""
def int32x1(x: Any) -> Any:
    """A int32 vector of 1 element (.x)."""
def int32x2(x: Any, y: Any) -> Any:
    """A int32 vector of 2 elements (.x .y)."""
def int32x3(x: Any, y: Any, z: Any) -> Any:
    """A int32 vector of 3 elements (.x .y .z)."""
def int32x4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """A int32 vector of 4 elements (.x .y .z .w)."""
def int4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """CUDA C's int4: another name of cuda.int32x4."""
def int64x1(x: Any) -> Any:
    """A int64 vector of 1 element (.x)."""
def int64x2(x: Any, y: Any) -> Any:
    """A int64 vector of 2 elements (.x .y)."""
def int64x3(x: Any, y: Any, z: Any) -> Any:
    """A int64 vector of 3 elements (.x .y .z)."""
def int64x4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """A int64 vector of 4 elements (.x .y .z .w)."""
def int8x1(x: Any) -> Any:
    """A int8 vector of 1 element (.x)."""
def int8x2(x: Any, y: Any) -> Any:
    """A int8 vector of 2 elements (.x .y)."""
def int8x3(x: Any, y: Any, z: Any) -> Any:
    """A int8 vector of 3 elements (.x .y .z)."""
def int8x4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """A int8 vector of 4 elements (.x .y .z .w)."""
laneid: Any
"""The thread's lane in its warp, 0 to 31 (int32)."""
def lanemask_lt() -> Any:
    """The bits of the lanes below this one (uint32)."""
class _libdevice:
    """libdevice's functions by name (without their __nv_ prefix), as numba-cuda's cuda.libdevice; the arguments convert to the C parameters' types."""
    def abs(self, x: Any) -> Any:
        """__nv_abs: (x: int32) -> int32."""
    def acos(self, x: Any) -> Any:
        """__nv_acos: (x: float64) -> float64."""
    def acosf(self, x: Any) -> Any:
        """__nv_acosf: (x: float32) -> float32."""
    def acosh(self, x: Any) -> Any:
        """__nv_acosh: (x: float64) -> float64."""
    def acoshf(self, x: Any) -> Any:
        """__nv_acoshf: (x: float32) -> float32."""
    def asin(self, x: Any) -> Any:
        """__nv_asin: (x: float64) -> float64."""
    def asinf(self, x: Any) -> Any:
        """__nv_asinf: (x: float32) -> float32."""
    def asinh(self, x: Any) -> Any:
        """__nv_asinh: (x: float64) -> float64."""
    def asinhf(self, x: Any) -> Any:
        """__nv_asinhf: (x: float32) -> float32."""
    def atan(self, x: Any) -> Any:
        """__nv_atan: (x: float64) -> float64."""
    def atan2(self, x: Any, y: Any) -> Any:
        """__nv_atan2: (x: float64, y: float64) -> float64."""
    def atan2f(self, x: Any, y: Any) -> Any:
        """__nv_atan2f: (x: float32, y: float32) -> float32."""
    def atanf(self, x: Any) -> Any:
        """__nv_atanf: (x: float32) -> float32."""
    def atanh(self, x: Any) -> Any:
        """__nv_atanh: (x: float64) -> float64."""
    def atanhf(self, x: Any) -> Any:
        """__nv_atanhf: (x: float32) -> float32."""
    def brev(self, x: Any) -> Any:
        """__nv_brev: (x: int32) -> int32."""
    def brevll(self, x: Any) -> Any:
        """__nv_brevll: (x: int64) -> int64."""
    def byte_perm(self, x: Any, y: Any, z: Any) -> Any:
        """__nv_byte_perm: (x: int32, y: int32, z: int32) -> int32."""
    def cbrt(self, x: Any) -> Any:
        """__nv_cbrt: (x: float64) -> float64."""
    def cbrtf(self, x: Any) -> Any:
        """__nv_cbrtf: (x: float32) -> float32."""
    def ceil(self, x: Any) -> Any:
        """__nv_ceil: (x: float64) -> float64."""
    def ceilf(self, x: Any) -> Any:
        """__nv_ceilf: (x: float32) -> float32."""
    def clz(self, x: Any) -> Any:
        """__nv_clz: (x: int32) -> int32."""
    def clzll(self, x: Any) -> Any:
        """__nv_clzll: (x: int64) -> int32."""
    def copysign(self, x: Any, y: Any) -> Any:
        """__nv_copysign: (x: float64, y: float64) -> float64."""
    def copysignf(self, x: Any, y: Any) -> Any:
        """__nv_copysignf: (x: float32, y: float32) -> float32."""
    def cos(self, x: Any) -> Any:
        """__nv_cos: (x: float64) -> float64."""
    def cosf(self, x: Any) -> Any:
        """__nv_cosf: (x: float32) -> float32."""
    def cosh(self, x: Any) -> Any:
        """__nv_cosh: (x: float64) -> float64."""
    def coshf(self, x: Any) -> Any:
        """__nv_coshf: (x: float32) -> float32."""
    def cospi(self, x: Any) -> Any:
        """__nv_cospi: (x: float64) -> float64."""
    def cospif(self, x: Any) -> Any:
        """__nv_cospif: (x: float32) -> float32."""
    def dadd_rd(self, x: Any, y: Any) -> Any:
        """__nv_dadd_rd: (x: float64, y: float64) -> float64."""
    def dadd_rn(self, x: Any, y: Any) -> Any:
        """__nv_dadd_rn: (x: float64, y: float64) -> float64."""
    def dadd_ru(self, x: Any, y: Any) -> Any:
        """__nv_dadd_ru: (x: float64, y: float64) -> float64."""
    def dadd_rz(self, x: Any, y: Any) -> Any:
        """__nv_dadd_rz: (x: float64, y: float64) -> float64."""
    def ddiv_rd(self, x: Any, y: Any) -> Any:
        """__nv_ddiv_rd: (x: float64, y: float64) -> float64."""
    def ddiv_rn(self, x: Any, y: Any) -> Any:
        """__nv_ddiv_rn: (x: float64, y: float64) -> float64."""
    def ddiv_ru(self, x: Any, y: Any) -> Any:
        """__nv_ddiv_ru: (x: float64, y: float64) -> float64."""
    def ddiv_rz(self, x: Any, y: Any) -> Any:
        """__nv_ddiv_rz: (x: float64, y: float64) -> float64."""
    def dmul_rd(self, x: Any, y: Any) -> Any:
        """__nv_dmul_rd: (x: float64, y: float64) -> float64."""
    def dmul_rn(self, x: Any, y: Any) -> Any:
        """__nv_dmul_rn: (x: float64, y: float64) -> float64."""
    def dmul_ru(self, x: Any, y: Any) -> Any:
        """__nv_dmul_ru: (x: float64, y: float64) -> float64."""
    def dmul_rz(self, x: Any, y: Any) -> Any:
        """__nv_dmul_rz: (x: float64, y: float64) -> float64."""
    def double2float_rd(self, d: Any) -> Any:
        """__nv_double2float_rd: (d: float64) -> float32."""
    def double2float_rn(self, d: Any) -> Any:
        """__nv_double2float_rn: (d: float64) -> float32."""
    def double2float_ru(self, d: Any) -> Any:
        """__nv_double2float_ru: (d: float64) -> float32."""
    def double2float_rz(self, d: Any) -> Any:
        """__nv_double2float_rz: (d: float64) -> float32."""
    def double2hiint(self, d: Any) -> Any:
        """__nv_double2hiint: (d: float64) -> int32."""
    def double2int_rd(self, d: Any) -> Any:
        """__nv_double2int_rd: (d: float64) -> int32."""
    def double2int_rn(self, d: Any) -> Any:
        """__nv_double2int_rn: (d: float64) -> int32."""
    def double2int_ru(self, d: Any) -> Any:
        """__nv_double2int_ru: (d: float64) -> int32."""
    def double2int_rz(self, d: Any) -> Any:
        """__nv_double2int_rz: (d: float64) -> int32."""
    def double2ll_rd(self, f: Any) -> Any:
        """__nv_double2ll_rd: (f: float64) -> int64."""
    def double2ll_rn(self, f: Any) -> Any:
        """__nv_double2ll_rn: (f: float64) -> int64."""
    def double2ll_ru(self, f: Any) -> Any:
        """__nv_double2ll_ru: (f: float64) -> int64."""
    def double2ll_rz(self, f: Any) -> Any:
        """__nv_double2ll_rz: (f: float64) -> int64."""
    def double2loint(self, d: Any) -> Any:
        """__nv_double2loint: (d: float64) -> int32."""
    def double2uint_rd(self, d: Any) -> Any:
        """__nv_double2uint_rd: (d: float64) -> int32."""
    def double2uint_rn(self, d: Any) -> Any:
        """__nv_double2uint_rn: (d: float64) -> int32."""
    def double2uint_ru(self, d: Any) -> Any:
        """__nv_double2uint_ru: (d: float64) -> int32."""
    def double2uint_rz(self, d: Any) -> Any:
        """__nv_double2uint_rz: (d: float64) -> int32."""
    def double2ull_rd(self, f: Any) -> Any:
        """__nv_double2ull_rd: (f: float64) -> int64."""
    def double2ull_rn(self, f: Any) -> Any:
        """__nv_double2ull_rn: (f: float64) -> int64."""
    def double2ull_ru(self, f: Any) -> Any:
        """__nv_double2ull_ru: (f: float64) -> int64."""
    def double2ull_rz(self, f: Any) -> Any:
        """__nv_double2ull_rz: (f: float64) -> int64."""
    def double_as_longlong(self, x: Any) -> Any:
        """__nv_double_as_longlong: (x: float64) -> int64."""
    def drcp_rd(self, x: Any) -> Any:
        """__nv_drcp_rd: (x: float64) -> float64."""
    def drcp_rn(self, x: Any) -> Any:
        """__nv_drcp_rn: (x: float64) -> float64."""
    def drcp_ru(self, x: Any) -> Any:
        """__nv_drcp_ru: (x: float64) -> float64."""
    def drcp_rz(self, x: Any) -> Any:
        """__nv_drcp_rz: (x: float64) -> float64."""
    def dsqrt_rd(self, x: Any) -> Any:
        """__nv_dsqrt_rd: (x: float64) -> float64."""
    def dsqrt_rn(self, x: Any) -> Any:
        """__nv_dsqrt_rn: (x: float64) -> float64."""
    def dsqrt_ru(self, x: Any) -> Any:
        """__nv_dsqrt_ru: (x: float64) -> float64."""
    def dsqrt_rz(self, x: Any) -> Any:
        """__nv_dsqrt_rz: (x: float64) -> float64."""
    def erf(self, x: Any) -> Any:
        """__nv_erf: (x: float64) -> float64."""
    def erfc(self, x: Any) -> Any:
        """__nv_erfc: (x: float64) -> float64."""
    def erfcf(self, x: Any) -> Any:
        """__nv_erfcf: (x: float32) -> float32."""
    def erfcinv(self, x: Any) -> Any:
        """__nv_erfcinv: (x: float64) -> float64."""
    def erfcinvf(self, x: Any) -> Any:
        """__nv_erfcinvf: (x: float32) -> float32."""
    def erfcx(self, x: Any) -> Any:
        """__nv_erfcx: (x: float64) -> float64."""
    def erfcxf(self, x: Any) -> Any:
        """__nv_erfcxf: (x: float32) -> float32."""
    def erff(self, x: Any) -> Any:
        """__nv_erff: (x: float32) -> float32."""
    def erfinv(self, x: Any) -> Any:
        """__nv_erfinv: (x: float64) -> float64."""
    def erfinvf(self, x: Any) -> Any:
        """__nv_erfinvf: (x: float32) -> float32."""
    def exp(self, x: Any) -> Any:
        """__nv_exp: (x: float64) -> float64."""
    def exp10(self, x: Any) -> Any:
        """__nv_exp10: (x: float64) -> float64."""
    def exp10f(self, x: Any) -> Any:
        """__nv_exp10f: (x: float32) -> float32."""
    def exp2(self, x: Any) -> Any:
        """__nv_exp2: (x: float64) -> float64."""
    def exp2f(self, x: Any) -> Any:
        """__nv_exp2f: (x: float32) -> float32."""
    def expf(self, x: Any) -> Any:
        """__nv_expf: (x: float32) -> float32."""
    def expm1(self, x: Any) -> Any:
        """__nv_expm1: (x: float64) -> float64."""
    def expm1f(self, x: Any) -> Any:
        """__nv_expm1f: (x: float32) -> float32."""
    def fabs(self, f: Any) -> Any:
        """__nv_fabs: (f: float64) -> float64."""
    def fabsf(self, f: Any) -> Any:
        """__nv_fabsf: (f: float32) -> float32."""
    def fadd_rd(self, x: Any, y: Any) -> Any:
        """__nv_fadd_rd: (x: float32, y: float32) -> float32."""
    def fadd_rn(self, x: Any, y: Any) -> Any:
        """__nv_fadd_rn: (x: float32, y: float32) -> float32."""
    def fadd_ru(self, x: Any, y: Any) -> Any:
        """__nv_fadd_ru: (x: float32, y: float32) -> float32."""
    def fadd_rz(self, x: Any, y: Any) -> Any:
        """__nv_fadd_rz: (x: float32, y: float32) -> float32."""
    def fast_cosf(self, x: Any) -> Any:
        """__nv_fast_cosf: (x: float32) -> float32."""
    def fast_exp10f(self, x: Any) -> Any:
        """__nv_fast_exp10f: (x: float32) -> float32."""
    def fast_expf(self, x: Any) -> Any:
        """__nv_fast_expf: (x: float32) -> float32."""
    def fast_fdividef(self, x: Any, y: Any) -> Any:
        """__nv_fast_fdividef: (x: float32, y: float32) -> float32."""
    def fast_log10f(self, x: Any) -> Any:
        """__nv_fast_log10f: (x: float32) -> float32."""
    def fast_log2f(self, x: Any) -> Any:
        """__nv_fast_log2f: (x: float32) -> float32."""
    def fast_logf(self, x: Any) -> Any:
        """__nv_fast_logf: (x: float32) -> float32."""
    def fast_powf(self, x: Any, y: Any) -> Any:
        """__nv_fast_powf: (x: float32, y: float32) -> float32."""
    def fast_sincosf(self, x: Any) -> Any:
        """__nv_fast_sincosf: (x: float32) -> (float32, float32)."""
    def fast_sinf(self, x: Any) -> Any:
        """__nv_fast_sinf: (x: float32) -> float32."""
    def fast_tanf(self, x: Any) -> Any:
        """__nv_fast_tanf: (x: float32) -> float32."""
    def fdim(self, x: Any, y: Any) -> Any:
        """__nv_fdim: (x: float64, y: float64) -> float64."""
    def fdimf(self, x: Any, y: Any) -> Any:
        """__nv_fdimf: (x: float32, y: float32) -> float32."""
    def fdiv_rd(self, x: Any, y: Any) -> Any:
        """__nv_fdiv_rd: (x: float32, y: float32) -> float32."""
    def fdiv_rn(self, x: Any, y: Any) -> Any:
        """__nv_fdiv_rn: (x: float32, y: float32) -> float32."""
    def fdiv_ru(self, x: Any, y: Any) -> Any:
        """__nv_fdiv_ru: (x: float32, y: float32) -> float32."""
    def fdiv_rz(self, x: Any, y: Any) -> Any:
        """__nv_fdiv_rz: (x: float32, y: float32) -> float32."""
    def ffs(self, x: Any) -> Any:
        """__nv_ffs: (x: int32) -> int32."""
    def ffsll(self, x: Any) -> Any:
        """__nv_ffsll: (x: int64) -> int32."""
    def finitef(self, x: Any) -> Any:
        """__nv_finitef: (x: float32) -> int32."""
    def float2half_rn(self, f: Any) -> Any:
        """__nv_float2half_rn: (f: float32) -> int16."""
    def float2int_rd(self, x: Any) -> Any:
        """__nv_float2int_rd: (x: float32) -> int32."""
    def float2int_rn(self, x: Any) -> Any:
        """__nv_float2int_rn: (x: float32) -> int32."""
    def float2int_ru(self, x: Any) -> Any:
        """__nv_float2int_ru: (x: float32) -> int32."""
    def float2int_rz(self, x: Any) -> Any:
        """__nv_float2int_rz: (x: float32) -> int32."""
    def float2ll_rd(self, f: Any) -> Any:
        """__nv_float2ll_rd: (f: float32) -> int64."""
    def float2ll_rn(self, f: Any) -> Any:
        """__nv_float2ll_rn: (f: float32) -> int64."""
    def float2ll_ru(self, f: Any) -> Any:
        """__nv_float2ll_ru: (f: float32) -> int64."""
    def float2ll_rz(self, f: Any) -> Any:
        """__nv_float2ll_rz: (f: float32) -> int64."""
    def float2uint_rd(self, x: Any) -> Any:
        """__nv_float2uint_rd: (x: float32) -> int32."""
    def float2uint_rn(self, x: Any) -> Any:
        """__nv_float2uint_rn: (x: float32) -> int32."""
    def float2uint_ru(self, x: Any) -> Any:
        """__nv_float2uint_ru: (x: float32) -> int32."""
    def float2uint_rz(self, x: Any) -> Any:
        """__nv_float2uint_rz: (x: float32) -> int32."""
    def float2ull_rd(self, f: Any) -> Any:
        """__nv_float2ull_rd: (f: float32) -> int64."""
    def float2ull_rn(self, f: Any) -> Any:
        """__nv_float2ull_rn: (f: float32) -> int64."""
    def float2ull_ru(self, f: Any) -> Any:
        """__nv_float2ull_ru: (f: float32) -> int64."""
    def float2ull_rz(self, f: Any) -> Any:
        """__nv_float2ull_rz: (f: float32) -> int64."""
    def float_as_int(self, x: Any) -> Any:
        """__nv_float_as_int: (x: float32) -> int32."""
    def floor(self, f: Any) -> Any:
        """__nv_floor: (f: float64) -> float64."""
    def floorf(self, f: Any) -> Any:
        """__nv_floorf: (f: float32) -> float32."""
    def fma(self, x: Any, y: Any, z: Any) -> Any:
        """__nv_fma: (x: float64, y: float64, z: float64) -> float64."""
    def fma_rd(self, x: Any, y: Any, z: Any) -> Any:
        """__nv_fma_rd: (x: float64, y: float64, z: float64) -> float64."""
    def fma_rn(self, x: Any, y: Any, z: Any) -> Any:
        """__nv_fma_rn: (x: float64, y: float64, z: float64) -> float64."""
    def fma_ru(self, x: Any, y: Any, z: Any) -> Any:
        """__nv_fma_ru: (x: float64, y: float64, z: float64) -> float64."""
    def fma_rz(self, x: Any, y: Any, z: Any) -> Any:
        """__nv_fma_rz: (x: float64, y: float64, z: float64) -> float64."""
    def fmaf(self, x: Any, y: Any, z: Any) -> Any:
        """__nv_fmaf: (x: float32, y: float32, z: float32) -> float32."""
    def fmaf_rd(self, x: Any, y: Any, z: Any) -> Any:
        """__nv_fmaf_rd: (x: float32, y: float32, z: float32) -> float32."""
    def fmaf_rn(self, x: Any, y: Any, z: Any) -> Any:
        """__nv_fmaf_rn: (x: float32, y: float32, z: float32) -> float32."""
    def fmaf_ru(self, x: Any, y: Any, z: Any) -> Any:
        """__nv_fmaf_ru: (x: float32, y: float32, z: float32) -> float32."""
    def fmaf_rz(self, x: Any, y: Any, z: Any) -> Any:
        """__nv_fmaf_rz: (x: float32, y: float32, z: float32) -> float32."""
    def fmax(self, x: Any, y: Any) -> Any:
        """__nv_fmax: (x: float64, y: float64) -> float64."""
    def fmaxf(self, x: Any, y: Any) -> Any:
        """__nv_fmaxf: (x: float32, y: float32) -> float32."""
    def fmin(self, x: Any, y: Any) -> Any:
        """__nv_fmin: (x: float64, y: float64) -> float64."""
    def fminf(self, x: Any, y: Any) -> Any:
        """__nv_fminf: (x: float32, y: float32) -> float32."""
    def fmod(self, x: Any, y: Any) -> Any:
        """__nv_fmod: (x: float64, y: float64) -> float64."""
    def fmodf(self, x: Any, y: Any) -> Any:
        """__nv_fmodf: (x: float32, y: float32) -> float32."""
    def fmul_rd(self, x: Any, y: Any) -> Any:
        """__nv_fmul_rd: (x: float32, y: float32) -> float32."""
    def fmul_rn(self, x: Any, y: Any) -> Any:
        """__nv_fmul_rn: (x: float32, y: float32) -> float32."""
    def fmul_ru(self, x: Any, y: Any) -> Any:
        """__nv_fmul_ru: (x: float32, y: float32) -> float32."""
    def fmul_rz(self, x: Any, y: Any) -> Any:
        """__nv_fmul_rz: (x: float32, y: float32) -> float32."""
    def frcp_rd(self, x: Any) -> Any:
        """__nv_frcp_rd: (x: float32) -> float32."""
    def frcp_rn(self, x: Any) -> Any:
        """__nv_frcp_rn: (x: float32) -> float32."""
    def frcp_ru(self, x: Any) -> Any:
        """__nv_frcp_ru: (x: float32) -> float32."""
    def frcp_rz(self, x: Any) -> Any:
        """__nv_frcp_rz: (x: float32) -> float32."""
    def frexp(self, x: Any) -> Any:
        """__nv_frexp: (x: float64) -> (float64, int32)."""
    def frexpf(self, x: Any) -> Any:
        """__nv_frexpf: (x: float32) -> (float32, int32)."""
    def frsqrt_rn(self, x: Any) -> Any:
        """__nv_frsqrt_rn: (x: float32) -> float32."""
    def fsqrt_rd(self, x: Any) -> Any:
        """__nv_fsqrt_rd: (x: float32) -> float32."""
    def fsqrt_rn(self, x: Any) -> Any:
        """__nv_fsqrt_rn: (x: float32) -> float32."""
    def fsqrt_ru(self, x: Any) -> Any:
        """__nv_fsqrt_ru: (x: float32) -> float32."""
    def fsqrt_rz(self, x: Any) -> Any:
        """__nv_fsqrt_rz: (x: float32) -> float32."""
    def fsub_rd(self, x: Any, y: Any) -> Any:
        """__nv_fsub_rd: (x: float32, y: float32) -> float32."""
    def fsub_rn(self, x: Any, y: Any) -> Any:
        """__nv_fsub_rn: (x: float32, y: float32) -> float32."""
    def fsub_ru(self, x: Any, y: Any) -> Any:
        """__nv_fsub_ru: (x: float32, y: float32) -> float32."""
    def fsub_rz(self, x: Any, y: Any) -> Any:
        """__nv_fsub_rz: (x: float32, y: float32) -> float32."""
    def hadd(self, x: Any, y: Any) -> Any:
        """__nv_hadd: (x: int32, y: int32) -> int32."""
    def half2float(self, h: Any) -> Any:
        """__nv_half2float: (h: int16) -> float32."""
    def hiloint2double(self, x: Any, y: Any) -> Any:
        """__nv_hiloint2double: (x: int32, y: int32) -> float64."""
    def hypot(self, x: Any, y: Any) -> Any:
        """__nv_hypot: (x: float64, y: float64) -> float64."""
    def hypotf(self, x: Any, y: Any) -> Any:
        """__nv_hypotf: (x: float32, y: float32) -> float32."""
    def ilogb(self, x: Any) -> Any:
        """__nv_ilogb: (x: float64) -> int32."""
    def ilogbf(self, x: Any) -> Any:
        """__nv_ilogbf: (x: float32) -> int32."""
    def int2double_rn(self, i: Any) -> Any:
        """__nv_int2double_rn: (i: int32) -> float64."""
    def int2float_rd(self, x: Any) -> Any:
        """__nv_int2float_rd: (x: int32) -> float32."""
    def int2float_rn(self, x: Any) -> Any:
        """__nv_int2float_rn: (x: int32) -> float32."""
    def int2float_ru(self, x: Any) -> Any:
        """__nv_int2float_ru: (x: int32) -> float32."""
    def int2float_rz(self, x: Any) -> Any:
        """__nv_int2float_rz: (x: int32) -> float32."""
    def int_as_float(self, x: Any) -> Any:
        """__nv_int_as_float: (x: int32) -> float32."""
    def isfinited(self, x: Any) -> Any:
        """__nv_isfinited: (x: float64) -> int32."""
    def isinfd(self, x: Any) -> Any:
        """__nv_isinfd: (x: float64) -> int32."""
    def isinff(self, x: Any) -> Any:
        """__nv_isinff: (x: float32) -> int32."""
    def isnand(self, x: Any) -> Any:
        """__nv_isnand: (x: float64) -> int32."""
    def isnanf(self, x: Any) -> Any:
        """__nv_isnanf: (x: float32) -> int32."""
    def j0(self, x: Any) -> Any:
        """__nv_j0: (x: float64) -> float64."""
    def j0f(self, x: Any) -> Any:
        """__nv_j0f: (x: float32) -> float32."""
    def j1(self, x: Any) -> Any:
        """__nv_j1: (x: float64) -> float64."""
    def j1f(self, x: Any) -> Any:
        """__nv_j1f: (x: float32) -> float32."""
    def jn(self, n: Any, x: Any) -> Any:
        """__nv_jn: (n: int32, x: float64) -> float64."""
    def jnf(self, n: Any, x: Any) -> Any:
        """__nv_jnf: (n: int32, x: float32) -> float32."""
    def ldexp(self, x: Any, y: Any) -> Any:
        """__nv_ldexp: (x: float64, y: int32) -> float64."""
    def ldexpf(self, x: Any, y: Any) -> Any:
        """__nv_ldexpf: (x: float32, y: int32) -> float32."""
    def lgamma(self, x: Any) -> Any:
        """__nv_lgamma: (x: float64) -> float64."""
    def lgammaf(self, x: Any) -> Any:
        """__nv_lgammaf: (x: float32) -> float32."""
    def ll2double_rd(self, l: Any) -> Any:
        """__nv_ll2double_rd: (l: int64) -> float64."""
    def ll2double_rn(self, l: Any) -> Any:
        """__nv_ll2double_rn: (l: int64) -> float64."""
    def ll2double_ru(self, l: Any) -> Any:
        """__nv_ll2double_ru: (l: int64) -> float64."""
    def ll2double_rz(self, l: Any) -> Any:
        """__nv_ll2double_rz: (l: int64) -> float64."""
    def ll2float_rd(self, l: Any) -> Any:
        """__nv_ll2float_rd: (l: int64) -> float32."""
    def ll2float_rn(self, l: Any) -> Any:
        """__nv_ll2float_rn: (l: int64) -> float32."""
    def ll2float_ru(self, l: Any) -> Any:
        """__nv_ll2float_ru: (l: int64) -> float32."""
    def ll2float_rz(self, l: Any) -> Any:
        """__nv_ll2float_rz: (l: int64) -> float32."""
    def llabs(self, x: Any) -> Any:
        """__nv_llabs: (x: int64) -> int64."""
    def llmax(self, x: Any, y: Any) -> Any:
        """__nv_llmax: (x: int64, y: int64) -> int64."""
    def llmin(self, x: Any, y: Any) -> Any:
        """__nv_llmin: (x: int64, y: int64) -> int64."""
    def llrint(self, x: Any) -> Any:
        """__nv_llrint: (x: float64) -> int64."""
    def llrintf(self, x: Any) -> Any:
        """__nv_llrintf: (x: float32) -> int64."""
    def llround(self, x: Any) -> Any:
        """__nv_llround: (x: float64) -> int64."""
    def llroundf(self, x: Any) -> Any:
        """__nv_llroundf: (x: float32) -> int64."""
    def log(self, x: Any) -> Any:
        """__nv_log: (x: float64) -> float64."""
    def log10(self, x: Any) -> Any:
        """__nv_log10: (x: float64) -> float64."""
    def log10f(self, x: Any) -> Any:
        """__nv_log10f: (x: float32) -> float32."""
    def log1p(self, x: Any) -> Any:
        """__nv_log1p: (x: float64) -> float64."""
    def log1pf(self, x: Any) -> Any:
        """__nv_log1pf: (x: float32) -> float32."""
    def log2(self, x: Any) -> Any:
        """__nv_log2: (x: float64) -> float64."""
    def log2f(self, x: Any) -> Any:
        """__nv_log2f: (x: float32) -> float32."""
    def logb(self, x: Any) -> Any:
        """__nv_logb: (x: float64) -> float64."""
    def logbf(self, x: Any) -> Any:
        """__nv_logbf: (x: float32) -> float32."""
    def logf(self, x: Any) -> Any:
        """__nv_logf: (x: float32) -> float32."""
    def longlong_as_double(self, x: Any) -> Any:
        """__nv_longlong_as_double: (x: int64) -> float64."""
    def max(self, x: Any, y: Any) -> Any:
        """__nv_max: (x: int32, y: int32) -> int32."""
    def min(self, x: Any, y: Any) -> Any:
        """__nv_min: (x: int32, y: int32) -> int32."""
    def modf(self, x: Any) -> Any:
        """__nv_modf: (x: float64) -> (float64, float64)."""
    def modff(self, x: Any) -> Any:
        """__nv_modff: (x: float32) -> (float32, float32)."""
    def mul24(self, x: Any, y: Any) -> Any:
        """__nv_mul24: (x: int32, y: int32) -> int32."""
    def mul64hi(self, x: Any, y: Any) -> Any:
        """__nv_mul64hi: (x: int64, y: int64) -> int64."""
    def mulhi(self, x: Any, y: Any) -> Any:
        """__nv_mulhi: (x: int32, y: int32) -> int32."""
    def nearbyint(self, x: Any) -> Any:
        """__nv_nearbyint: (x: float64) -> float64."""
    def nearbyintf(self, x: Any) -> Any:
        """__nv_nearbyintf: (x: float32) -> float32."""
    def nextafter(self, x: Any, y: Any) -> Any:
        """__nv_nextafter: (x: float64, y: float64) -> float64."""
    def nextafterf(self, x: Any, y: Any) -> Any:
        """__nv_nextafterf: (x: float32, y: float32) -> float32."""
    def normcdf(self, x: Any) -> Any:
        """__nv_normcdf: (x: float64) -> float64."""
    def normcdff(self, x: Any) -> Any:
        """__nv_normcdff: (x: float32) -> float32."""
    def normcdfinv(self, x: Any) -> Any:
        """__nv_normcdfinv: (x: float64) -> float64."""
    def normcdfinvf(self, x: Any) -> Any:
        """__nv_normcdfinvf: (x: float32) -> float32."""
    def popc(self, x: Any) -> Any:
        """__nv_popc: (x: int32) -> int32."""
    def popcll(self, x: Any) -> Any:
        """__nv_popcll: (x: int64) -> int32."""
    def pow(self, x: Any, y: Any) -> Any:
        """__nv_pow: (x: float64, y: float64) -> float64."""
    def powf(self, x: Any, y: Any) -> Any:
        """__nv_powf: (x: float32, y: float32) -> float32."""
    def powi(self, x: Any, y: Any) -> Any:
        """__nv_powi: (x: float64, y: int32) -> float64."""
    def powif(self, x: Any, y: Any) -> Any:
        """__nv_powif: (x: float32, y: int32) -> float32."""
    def rcbrt(self, x: Any) -> Any:
        """__nv_rcbrt: (x: float64) -> float64."""
    def rcbrtf(self, x: Any) -> Any:
        """__nv_rcbrtf: (x: float32) -> float32."""
    def remainder(self, x: Any, y: Any) -> Any:
        """__nv_remainder: (x: float64, y: float64) -> float64."""
    def remainderf(self, x: Any, y: Any) -> Any:
        """__nv_remainderf: (x: float32, y: float32) -> float32."""
    def remquo(self, x: Any, y: Any) -> Any:
        """__nv_remquo: (x: float64, y: float64) -> (float64, int32)."""
    def remquof(self, x: Any, y: Any) -> Any:
        """__nv_remquof: (x: float32, y: float32) -> (float32, int32)."""
    def rhadd(self, x: Any, y: Any) -> Any:
        """__nv_rhadd: (x: int32, y: int32) -> int32."""
    def rint(self, x: Any) -> Any:
        """__nv_rint: (x: float64) -> float64."""
    def rintf(self, x: Any) -> Any:
        """__nv_rintf: (x: float32) -> float32."""
    def round(self, x: Any) -> Any:
        """__nv_round: (x: float64) -> float64."""
    def roundf(self, x: Any) -> Any:
        """__nv_roundf: (x: float32) -> float32."""
    def rsqrt(self, x: Any) -> Any:
        """__nv_rsqrt: (x: float64) -> float64."""
    def rsqrtf(self, x: Any) -> Any:
        """__nv_rsqrtf: (x: float32) -> float32."""
    def sad(self, x: Any, y: Any, z: Any) -> Any:
        """__nv_sad: (x: int32, y: int32, z: int32) -> int32."""
    def saturatef(self, x: Any) -> Any:
        """__nv_saturatef: (x: float32) -> float32."""
    def scalbn(self, x: Any, y: Any) -> Any:
        """__nv_scalbn: (x: float64, y: int32) -> float64."""
    def scalbnf(self, x: Any, y: Any) -> Any:
        """__nv_scalbnf: (x: float32, y: int32) -> float32."""
    def signbitd(self, x: Any) -> Any:
        """__nv_signbitd: (x: float64) -> int32."""
    def signbitf(self, x: Any) -> Any:
        """__nv_signbitf: (x: float32) -> int32."""
    def sin(self, x: Any) -> Any:
        """__nv_sin: (x: float64) -> float64."""
    def sincos(self, x: Any) -> Any:
        """__nv_sincos: (x: float64) -> (float64, float64)."""
    def sincosf(self, x: Any) -> Any:
        """__nv_sincosf: (x: float32) -> (float32, float32)."""
    def sincospi(self, x: Any) -> Any:
        """__nv_sincospi: (x: float64) -> (float64, float64)."""
    def sincospif(self, x: Any) -> Any:
        """__nv_sincospif: (x: float32) -> (float32, float32)."""
    def sinf(self, x: Any) -> Any:
        """__nv_sinf: (x: float32) -> float32."""
    def sinh(self, x: Any) -> Any:
        """__nv_sinh: (x: float64) -> float64."""
    def sinhf(self, x: Any) -> Any:
        """__nv_sinhf: (x: float32) -> float32."""
    def sinpi(self, x: Any) -> Any:
        """__nv_sinpi: (x: float64) -> float64."""
    def sinpif(self, x: Any) -> Any:
        """__nv_sinpif: (x: float32) -> float32."""
    def sqrt(self, x: Any) -> Any:
        """__nv_sqrt: (x: float64) -> float64."""
    def sqrtf(self, x: Any) -> Any:
        """__nv_sqrtf: (x: float32) -> float32."""
    def tan(self, x: Any) -> Any:
        """__nv_tan: (x: float64) -> float64."""
    def tanf(self, x: Any) -> Any:
        """__nv_tanf: (x: float32) -> float32."""
    def tanh(self, x: Any) -> Any:
        """__nv_tanh: (x: float64) -> float64."""
    def tanhf(self, x: Any) -> Any:
        """__nv_tanhf: (x: float32) -> float32."""
    def tgamma(self, x: Any) -> Any:
        """__nv_tgamma: (x: float64) -> float64."""
    def tgammaf(self, x: Any) -> Any:
        """__nv_tgammaf: (x: float32) -> float32."""
    def trunc(self, x: Any) -> Any:
        """__nv_trunc: (x: float64) -> float64."""
    def truncf(self, x: Any) -> Any:
        """__nv_truncf: (x: float32) -> float32."""
    def uhadd(self, x: Any, y: Any) -> Any:
        """__nv_uhadd: (x: int32, y: int32) -> int32."""
    def uint2double_rn(self, i: Any) -> Any:
        """__nv_uint2double_rn: (i: int32) -> float64."""
    def uint2float_rd(self, x: Any) -> Any:
        """__nv_uint2float_rd: (x: int32) -> float32."""
    def uint2float_rn(self, x: Any) -> Any:
        """__nv_uint2float_rn: (x: int32) -> float32."""
    def uint2float_ru(self, x: Any) -> Any:
        """__nv_uint2float_ru: (x: int32) -> float32."""
    def uint2float_rz(self, x: Any) -> Any:
        """__nv_uint2float_rz: (x: int32) -> float32."""
    def ull2double_rd(self, l: Any) -> Any:
        """__nv_ull2double_rd: (l: int64) -> float64."""
    def ull2double_rn(self, l: Any) -> Any:
        """__nv_ull2double_rn: (l: int64) -> float64."""
    def ull2double_ru(self, l: Any) -> Any:
        """__nv_ull2double_ru: (l: int64) -> float64."""
    def ull2double_rz(self, l: Any) -> Any:
        """__nv_ull2double_rz: (l: int64) -> float64."""
    def ull2float_rd(self, l: Any) -> Any:
        """__nv_ull2float_rd: (l: int64) -> float32."""
    def ull2float_rn(self, l: Any) -> Any:
        """__nv_ull2float_rn: (l: int64) -> float32."""
    def ull2float_ru(self, l: Any) -> Any:
        """__nv_ull2float_ru: (l: int64) -> float32."""
    def ull2float_rz(self, l: Any) -> Any:
        """__nv_ull2float_rz: (l: int64) -> float32."""
    def ullmax(self, x: Any, y: Any) -> Any:
        """__nv_ullmax: (x: int64, y: int64) -> int64."""
    def ullmin(self, x: Any, y: Any) -> Any:
        """__nv_ullmin: (x: int64, y: int64) -> int64."""
    def umax(self, x: Any, y: Any) -> Any:
        """__nv_umax: (x: int32, y: int32) -> int32."""
    def umin(self, x: Any, y: Any) -> Any:
        """__nv_umin: (x: int32, y: int32) -> int32."""
    def umul24(self, x: Any, y: Any) -> Any:
        """__nv_umul24: (x: int32, y: int32) -> int32."""
    def umul64hi(self, x: Any, y: Any) -> Any:
        """__nv_umul64hi: (x: int64, y: int64) -> int64."""
    def umulhi(self, x: Any, y: Any) -> Any:
        """__nv_umulhi: (x: int32, y: int32) -> int32."""
    def urhadd(self, x: Any, y: Any) -> Any:
        """__nv_urhadd: (x: int32, y: int32) -> int32."""
    def usad(self, x: Any, y: Any, z: Any) -> Any:
        """__nv_usad: (x: int32, y: int32, z: int32) -> int32."""
    def y0(self, x: Any) -> Any:
        """__nv_y0: (x: float64) -> float64."""
    def y0f(self, x: Any) -> Any:
        """__nv_y0f: (x: float32) -> float32."""
    def y1(self, x: Any) -> Any:
        """__nv_y1: (x: float64) -> float64."""
    def y1f(self, x: Any) -> Any:
        """__nv_y1f: (x: float32) -> float32."""
    def yn(self, n: Any, x: Any) -> Any:
        """__nv_yn: (n: int32, x: float64) -> float64."""
    def ynf(self, n: Any, x: Any) -> Any:
        """__nv_ynf: (n: int32, x: float32) -> float32."""
libdevice: _libdevice
class _local:
    """Arrays private to each thread."""
    def array(self, shape: Any, dtype: Any) -> Any:
        """An array private to the thread."""
local: _local
def long1(x: Any) -> Any:
    """CUDA C's long1: another name of cuda.int64x1."""
def long2(x: Any, y: Any) -> Any:
    """CUDA C's long2: another name of cuda.int64x2."""
def long3(x: Any, y: Any, z: Any) -> Any:
    """CUDA C's long3: another name of cuda.int64x3."""
def long4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """CUDA C's long4: another name of cuda.int64x4."""
def longlong1(x: Any) -> Any:
    """CUDA C's longlong1: another name of cuda.int64x1."""
def longlong2(x: Any, y: Any) -> Any:
    """CUDA C's longlong2: another name of cuda.int64x2."""
def longlong3(x: Any, y: Any, z: Any) -> Any:
    """CUDA C's longlong3: another name of cuda.int64x3."""
def longlong4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """CUDA C's longlong4: another name of cuda.int64x4."""
def match_all_sync(mask: Any, value: Any) -> Any:
    """(mask, True) when every lane of mask holds this lane's value, else (0, False) (int32, boolean; sm_70 and up)."""
def match_any_sync(mask: Any, value: Any) -> Any:
    """The lanes of mask whose value equals this lane's, as bits (int32; sm_70 and up)."""
def nanosleep(ns: Any) -> Any:
    """Suspends the thread for about ns nanoseconds (uint32; a GPU sleeps at most about a millisecond, sm_70 and up)."""
def popc(x: Any) -> Any:
    """The number of bits set in the integer x (x's type)."""
def selp(predicate: Any, a: Any, b: Any) -> Any:
    """a where the predicate is true, else b (one type: float32, float64 or a 16- to 64-bit int)."""
class _shared:
    """Arrays in the block's shared memory."""
    def array(self, shape: Any, dtype: Any) -> Any:
        """An array in the block's shared memory; shape 0 is the launch's dynamic shared memory."""
shared: _shared
def shfl_down_sync(mask: Any, value: Any, delta: Any) -> Any:
    """value from lane laneid + delta (its own past lane 31)."""
def shfl_sync(mask: Any, value: Any, src_lane: Any) -> Any:
    """value from lane src_lane of the warp (its own when src_lane is outside it); 32- and 64-bit ints and floats."""
def shfl_up_sync(mask: Any, value: Any, delta: Any) -> Any:
    """value from lane laneid - delta (its own below lane 0)."""
def shfl_xor_sync(mask: Any, value: Any, lane_mask: Any) -> Any:
    """value from lane laneid ^ lane_mask (a butterfly)."""
def short1(x: Any) -> Any:
    """CUDA C's short1: another name of cuda.int16x1."""
def short2(x: Any, y: Any) -> Any:
    """CUDA C's short2: another name of cuda.int16x2."""
def short3(x: Any, y: Any, z: Any) -> Any:
    """CUDA C's short3: another name of cuda.int16x3."""
def short4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """CUDA C's short4: another name of cuda.int16x4."""
def syncthreads() -> Any:
    """Waits until every thread of the block has reached it."""
def syncthreads_and(predicate: Any) -> Any:
    """syncthreads(), then 1 if the predicate was true in every thread, else 0 (int32)."""
def syncthreads_count(predicate: Any) -> Any:
    """syncthreads(), then the number of threads whose predicate was true (int32)."""
def syncthreads_or(predicate: Any) -> Any:
    """syncthreads(), then 1 if the predicate was true in any thread, else 0 (int32)."""
def syncwarp(mask: Any = ...) -> Any:
    """Waits until the warp's threads named in mask have reached it."""
class _threadIdx:
    """The thread's index in its block, per dimension (int32)."""
    x: Any
    """The thread's x index in its block."""
    y: Any
    """The thread's y index in its block."""
    z: Any
    """The thread's z index in its block."""
threadIdx: _threadIdx
def threadfence() -> Any:
    """Orders this thread's memory accesses as seen by the whole device."""
def threadfence_block() -> Any:
    """Orders this thread's memory accesses as seen by its block."""
def threadfence_system() -> Any:
    """Orders this thread's memory accesses as seen by the device and the host."""
def uchar1(x: Any) -> Any:
    """CUDA C's uchar1: another name of cuda.uint8x1."""
def uchar2(x: Any, y: Any) -> Any:
    """CUDA C's uchar2: another name of cuda.uint8x2."""
def uchar3(x: Any, y: Any, z: Any) -> Any:
    """CUDA C's uchar3: another name of cuda.uint8x3."""
def uchar4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """CUDA C's uchar4: another name of cuda.uint8x4."""
def uint1(x: Any) -> Any:
    """CUDA C's uint1: another name of cuda.uint32x1."""
def uint16x1(x: Any) -> Any:
    """A uint16 vector of 1 element (.x)."""
def uint16x2(x: Any, y: Any) -> Any:
    """A uint16 vector of 2 elements (.x .y)."""
def uint16x3(x: Any, y: Any, z: Any) -> Any:
    """A uint16 vector of 3 elements (.x .y .z)."""
def uint16x4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """A uint16 vector of 4 elements (.x .y .z .w)."""
def uint2(x: Any, y: Any) -> Any:
    """CUDA C's uint2: another name of cuda.uint32x2."""
def uint3(x: Any, y: Any, z: Any) -> Any:
    """CUDA C's uint3: another name of cuda.uint32x3."""
def uint32x1(x: Any) -> Any:
    """A uint32 vector of 1 element (.x)."""
def uint32x2(x: Any, y: Any) -> Any:
    """A uint32 vector of 2 elements (.x .y)."""
def uint32x3(x: Any, y: Any, z: Any) -> Any:
    """A uint32 vector of 3 elements (.x .y .z)."""
def uint32x4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """A uint32 vector of 4 elements (.x .y .z .w)."""
def uint4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """CUDA C's uint4: another name of cuda.uint32x4."""
def uint64x1(x: Any) -> Any:
    """A uint64 vector of 1 element (.x)."""
def uint64x2(x: Any, y: Any) -> Any:
    """A uint64 vector of 2 elements (.x .y)."""
def uint64x3(x: Any, y: Any, z: Any) -> Any:
    """A uint64 vector of 3 elements (.x .y .z)."""
def uint64x4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """A uint64 vector of 4 elements (.x .y .z .w)."""
def uint8x1(x: Any) -> Any:
    """A uint8 vector of 1 element (.x)."""
def uint8x2(x: Any, y: Any) -> Any:
    """A uint8 vector of 2 elements (.x .y)."""
def uint8x3(x: Any, y: Any, z: Any) -> Any:
    """A uint8 vector of 3 elements (.x .y .z)."""
def uint8x4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """A uint8 vector of 4 elements (.x .y .z .w)."""
def ulong1(x: Any) -> Any:
    """CUDA C's ulong1: another name of cuda.uint64x1."""
def ulong2(x: Any, y: Any) -> Any:
    """CUDA C's ulong2: another name of cuda.uint64x2."""
def ulong3(x: Any, y: Any, z: Any) -> Any:
    """CUDA C's ulong3: another name of cuda.uint64x3."""
def ulong4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """CUDA C's ulong4: another name of cuda.uint64x4."""
def ulonglong1(x: Any) -> Any:
    """CUDA C's ulonglong1: another name of cuda.uint64x1."""
def ulonglong2(x: Any, y: Any) -> Any:
    """CUDA C's ulonglong2: another name of cuda.uint64x2."""
def ulonglong3(x: Any, y: Any, z: Any) -> Any:
    """CUDA C's ulonglong3: another name of cuda.uint64x3."""
def ulonglong4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """CUDA C's ulonglong4: another name of cuda.uint64x4."""
def ushort1(x: Any) -> Any:
    """CUDA C's ushort1: another name of cuda.uint16x1."""
def ushort2(x: Any, y: Any) -> Any:
    """CUDA C's ushort2: another name of cuda.uint16x2."""
def ushort3(x: Any, y: Any, z: Any) -> Any:
    """CUDA C's ushort3: another name of cuda.uint16x3."""
def ushort4(x: Any, y: Any, z: Any, w: Any) -> Any:
    """CUDA C's ushort4: another name of cuda.uint16x4."""
warpsize: Any
"""Threads per warp: 32."""

# --- end of the generated names ---

# --- CUDA C/C++ interop (docs/interop_c.md) ---
class LinkableCode:
    kind: str
    data: bytes
    name: str
    def __init__(self, data: str | bytes, name: str | None = None, setup_callback: None = None,
                 teardown_callback: None = None) -> None: ...
class CUSource(LinkableCode): ...
class PTXSource(LinkableCode): ...
class Cubin(LinkableCode): ...
class Fatbin(LinkableCode): ...
class LTOIR(LinkableCode): ...
class Object(LinkableCode): ...
class Archive(LinkableCode): ...
class ExternFunction:
    name: str
    abi: str
    link: tuple[str, ...]
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...
def declare_device(name: str, sig: Any, link: Any = None, use_cooperative: bool = False,
                   abi: str = "numba") -> ExternFunction: ...
