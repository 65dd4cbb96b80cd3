# cuforge.cuda: the numba.cuda-compatible API. The host API below is written
# by hand; the kernel-side names after it are generated from the intrinsic
# registry by scripts/gen_intrinsics.py (a test checks they are current).

import contextlib
from typing import Any, Callable, Optional, Sequence, Tuple, Union

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
    def configure(self, griddim: Any, blockdim: Any, stream: _StreamLike = 0, sharedmem: int = 0) -> Callable[..., None]: ...
    def forall(self, ntasks: int, tpb: int = 0, stream: _StreamLike = 0, sharedmem: int = 0) -> Callable[..., None]: ...
    def compile(self, sig: Any) -> _CompiledFunction: ...
    def specialize(self, *args: Any) -> Dispatcher: ...
    def disable_compile(self, val: bool = True) -> None: ...
    def inspect_types(self, file: Any = None, signature: Any = None) -> None: ...
    def inspect_llvm(self, signature: Any = None) -> Any: ...
    def inspect_asm(self, signature: Any = None) -> Any: ...
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
def jit(func_or_sig: Any = None, device: bool = False, inline: bool = False, forceinline: bool = False, link: Any = (),
        debug: Optional[bool] = None, opt: Optional[bool] = None, lineinfo: bool = False, cache: bool = False,
        fastmath: bool = False, max_registers: Optional[int] = None, launch_bounds: Any = None, lto: Any = None,
        **kws: Any) -> Any: ...
def compile_ptx(pyfunc: Callable[..., Any], sig: Any, debug: bool = False, lineinfo: bool = False, device: bool = False,
                fastmath: bool = False, cc: Optional[Tuple[int, int]] = None, opt: bool = True, abi: str = "numba",
                abi_info: Any = None) -> Tuple[str, types.Type]: ...
def compile_ptx_for_current_device(pyfunc: Callable[..., Any], sig: Any, debug: bool = False, lineinfo: bool = False,
                                   device: bool = False, fastmath: bool = False, opt: bool = True, abi: str = "numba",
                                   abi_info: Any = None) -> Tuple[str, types.Type]: ...

HOST_NAMES: Tuple[str, ...]

# --- kernel-side names: generated by scripts/gen_intrinsics.py from _core.intrinsics(); do not edit ---

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
    def __habs(self, a: Any) -> Any:
        """|a|."""
    def __hadd(self, a: Any, b: Any) -> Any:
        """a + b in half precision (add.f16)."""
    def __hdiv(self, a: Any, b: Any) -> Any:
        """a / b in half precision (cuda_fp16.h's __hdiv)."""
    def __heq(self, a: Any, b: Any) -> Any:
        """a == b (a bool; false when either is nan)."""
    def __hfma(self, a: Any, b: Any, c: Any) -> Any:
        """a * b + c in half precision, rounded once."""
    def __hge(self, a: Any, b: Any) -> Any:
        """a >= b (a bool; false when either is nan)."""
    def __hgt(self, a: Any, b: Any) -> Any:
        """a > b (a bool; false when either is nan)."""
    def __hle(self, a: Any, b: Any) -> Any:
        """a <= b (a bool; false when either is nan)."""
    def __hlt(self, a: Any, b: Any) -> Any:
        """a < b (a bool; false when either is nan)."""
    def __hmax(self, a: Any, b: Any) -> Any:
        """The larger of a and b; a nan gives the other (max.f16)."""
    def __hmin(self, a: Any, b: Any) -> Any:
        """The smaller of a and b; a nan gives the other (min.f16)."""
    def __hmul(self, a: Any, b: Any) -> Any:
        """a * b in half precision."""
    def __hne(self, a: Any, b: Any) -> Any:
        """a != b (a bool; false when either is nan, unlike the operator)."""
    def __hneg(self, a: Any) -> Any:
        """-a."""
    def __hsub(self, a: Any, b: Any) -> Any:
        """a - b in half precision."""
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
def popc(x: Any) -> Any:
    """The number of bits set in the integer x (x's type)."""
class _shared:
    """Arrays in the block's shared memory."""
    def array(self, shape: Any, dtype: Any) -> Any:
        """An array in the block's shared memory; shape 0 is the launch's dynamic shared memory."""
shared: _shared
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
