"""``cuda.reduce`` / ``cuda.Reduce`` (numba-cuda's) and ``cuda.scan`` /
``cuda.Scan`` (ours): device-wide reductions and prefix scans with any binary
function the kernel language compiles (docs/high_level.md).

Two engines, chosen by the backend:

- On a GPU, generated kernels: a grid-stride pass that fills the device (one
  partial per block, a shared-memory tree inside each block), then one block
  over the partials. Scans: tile sums, their scan (recursively), then each
  tile scanned in shared memory with its carry.
- On the cpu backend (device memory is host memory), host code over chunks
  spread on every core (jit/host_call.hpp): each chunk reduced (or scanned)
  by a compiled loop, the chunks' partials combined serially.

Results follow numba-cuda's ``Reduce``: the result is ``op(reduction, init)``
with ``init`` 0 unless given (so give ``init=1`` for a product, as there);
an empty array gives ``init``.
"""

from __future__ import annotations

import threading

import numpy as np

from cuforge import _core
from cuforge import types as cftypes
from cuforge._generate import compile_host, generated

__all__ = ["Reduce", "reduce", "Scan", "scan"]

_BLOCK = 256
_HOST_BLOCK = 1024  # elements per block of the host engine's tree
_CHUNK = 1 << 16  # elements per host chunk at least
_lock = threading.RLock()


def _cuda():
    from cuforge import cuda

    return cuda


def _element_type(dtype, what):
    try:
        t = cftypes.from_dtype(np.dtype(dtype))
    except Exception:
        raise TypeError(f"{what}: cannot reduce arrays of {dtype}") from None
    if not isinstance(t, cftypes.Scalar):
        raise TypeError(f"{what}: cannot reduce arrays of {dtype} (numbers and booleans only)")
    return t


def _arr_slots(ptr, n, stride):
    return [ptr, n, stride & (2**64 - 1)]


# --- kernels (the GPU engine) ---------------------------------------------------------------

_GPU_REDUCE = """
def __reduce_{name}(arr, out, init, use_init):
    sm = __cuda__.shared.array({block}, __T__)
    tid = __cuda__.threadIdx.x
    blk = __cuda__.blockIdx.x
    n = arr.shape[0]
    i = blk * {block} + tid
    step = __cuda__.gridDim.x * {block}
    if i < n:
        acc = arr[i]
        j = i + step
        # Eight loads in flight per thread before they are combined (one at a time kept an
        # H200 at 0.43x CUB's DeviceReduce): the grid's bytes in flight cover the memory latency.
        while j + 7 * step < n:
            a0 = arr[j]
            a1 = arr[j + step]
            a2 = arr[j + 2 * step]
            a3 = arr[j + 3 * step]
            a4 = arr[j + 4 * step]
            a5 = arr[j + 5 * step]
            a6 = arr[j + 6 * step]
            a7 = arr[j + 7 * step]
            b0 = __T__(__op__(a0, a1))
            b1 = __T__(__op__(a2, a3))
            b2 = __T__(__op__(a4, a5))
            b3 = __T__(__op__(a6, a7))
            acc = __T__(__op__(acc, __T__(__op__(__T__(__op__(b0, b1)), __T__(__op__(b2, b3))))))
            j += 8 * step
        while j < n:
            acc = __T__(__op__(acc, arr[j]))
            j += step
        sm[tid] = acc
    __cuda__.syncthreads()
    valid = min(n - blk * {block}, {block})
    s = {half}
    while s > 0:
        if tid < s and tid + s < valid:
            sm[tid] = __T__(__op__(sm[tid], sm[tid + s]))
        __cuda__.syncthreads()
        s //= 2
    if tid == 0:
        if use_init:
            out[blk] = __T__(__op__(sm[0], init))
        else:
            out[blk] = sm[0]
"""

# Each block scans its tile of {block} elements in shared memory (Hillis-Steele),
# adds the carry of the tiles before it (carries[blk - 1], an inclusive scan of
# the tile sums), and writes each result `shift` places on (1: exclusive).
_GPU_SCAN_TILES = """
def __scan_{name}(arr, out, carries, init, use_init, shift):
    sm = __cuda__.shared.array({block}, __T__)
    tid = __cuda__.threadIdx.x
    blk = __cuda__.blockIdx.x
    n = arr.shape[0]
    i = blk * {block} + tid
    valid = min(n - blk * {block}, {block})
    if tid < valid:
        sm[tid] = arr[i]
    __cuda__.syncthreads()
    off = 1
    while off < valid:
        v = sm[tid]
        if tid >= off and tid < valid:
            v = __T__(__op__(sm[tid - off], sm[tid]))
        __cuda__.syncthreads()
        sm[tid] = v
        __cuda__.syncthreads()
        off *= 2
    if tid < valid:
        x = sm[tid]
        if blk > 0:
            x = __T__(__op__(carries[blk - 1], x))
        if use_init:
            x = __T__(__op__(init, x))
        if i + shift < out.shape[0]:
            out[i + shift] = x
        if shift == 1 and i == 0:
            out[0] = init
"""

# --- host loops (the cpu backend's engine) ----------------------------------------------------

_HOST_REDUCE = """
def __reduce_chunk_{name}(arr, out, k):
    acc = arr[0]
    for i in range(1, arr.shape[0]):
        acc = __T__(__op__(acc, arr[i]))
    out[k] = acc
"""

# Each 1024-element block of `arr` reduced to out[k0 + its index], four interleaved accumulators
# per block (no one long chain of dependent operations; a tree of 1024-ary levels overall keeps
# float sums close to NumPy's pairwise ones).
_HOST_BLOCKS = """
def __reduce_blocks_{name}(arr, out, k0):
    n = arr.shape[0]
    k = k0
    for start in range(0, n, {host_block}):
        stop = min(start + {host_block}, n)
        if stop - start >= 8:
            a0 = arr[start]
            a1 = arr[start + 1]
            a2 = arr[start + 2]
            a3 = arr[start + 3]
            i = start + 4
            while i + 4 <= stop:
                a0 = __T__(__op__(a0, arr[i]))
                a1 = __T__(__op__(a1, arr[i + 1]))
                a2 = __T__(__op__(a2, arr[i + 2]))
                a3 = __T__(__op__(a3, arr[i + 3]))
                i += 4
            while i < stop:
                a0 = __T__(__op__(a0, arr[i]))
                i += 1
            acc = __T__(__op__(__T__(__op__(a0, a1)), __T__(__op__(a2, a3))))
        else:
            acc = arr[start]
            for i in range(start + 1, stop):
                acc = __T__(__op__(acc, arr[i]))
        out[k] = acc
        k += 1
"""

_HOST_FINISH = """
def __reduce_finish_{name}(parts, init, out):
    acc = parts[0]
    for i in range(1, parts.shape[0]):
        acc = __T__(__op__(acc, parts[i]))
    out[0] = __T__(__op__(acc, init[0]))
"""

_HOST_SCAN = """
def __scan_chunk_{name}(arr, out, carry, use_carry):
    acc = arr[0]
    if use_carry:
        acc = __T__(__op__(carry[0], acc))
    if out.shape[0] > 0:
        out[0] = acc
    for i in range(1, arr.shape[0]):
        acc = __T__(__op__(acc, arr[i]))
        if i < out.shape[0]:
            out[i] = acc
"""


class _Compiled:
    """The kernels and host loops of one binary function for one dtype, made
    on first use."""

    def __init__(self, functor, dtype):
        cuda = _cuda()
        self.dtype = np.dtype(dtype)
        self.T = _element_type(self.dtype, getattr(functor, "__name__", "reduce"))
        self.op = cuda.jit(device=True)(functor) if not getattr(functor, "device", False) else functor
        self.name = getattr(getattr(self.op, "py_func", functor), "__name__", "op").replace("<", "_").replace(">", "_")
        self.ns = {"__op__": self.op, "__cuda__": cuda, "__T__": self.T}
        self._made = {}

    def _make(self, key, src, name, specs=None):
        with _lock:
            got = self._made.get(key)
            if got is None:
                fn = generated(src.format(name=self.name, block=_BLOCK, half=_BLOCK // 2, host_block=_HOST_BLOCK),
                          name.format(self.name),
                          dict(self.ns))
                got = _cuda().jit(fn) if specs is None else compile_host(fn, specs)
                self._made[key] = got
            return got

    def gpu_reduce(self):
        return self._make("gpu_reduce", _GPU_REDUCE, "__reduce_{}")

    def gpu_scan(self):
        return self._make("gpu_scan", _GPU_SCAN_TILES, "__scan_{}")

    def _arr(self, nd=1):
        return cftypes.Array(self.T, nd, "A").spec

    def host_reduce(self):
        return self._make("host_reduce", _HOST_REDUCE, "__reduce_chunk_{}", [self._arr(), self._arr(), "int64"])

    def host_blocks(self):
        return self._make("host_blocks", _HOST_BLOCKS, "__reduce_blocks_{}", [self._arr(), self._arr(), "int64"])

    def host_finish(self):
        return self._make("host_finish", _HOST_FINISH, "__reduce_finish_{}", [self._arr()] * 3)

    def host_scan(self):
        return self._make("host_scan", _HOST_SCAN, "__scan_chunk_{}", [self._arr(), self._arr(), self._arr(), "bool"])


def _as_1d(arr, what):
    cuda = _cuda()
    if not (isinstance(arr, (np.ndarray, cuda.DeviceNDArray)) or cuda.is_cuda_array(arr)):
        arr = np.asarray(arr)
    if not isinstance(arr, (np.ndarray, cuda.DeviceNDArray)):
        arr = cuda.as_cuda_array(arr)
    if arr.ndim != 1:
        raise TypeError(f"{what}: only support 1D array (got {arr.ndim} dimensions)")
    return arr


def _host_pointer(arr):
    """(address, byte stride) of a 1-d array the host can read: NumPy's, or
    device memory on the cpu backend."""
    if isinstance(arr, np.ndarray):
        return arr.ctypes.data, arr.strides[0]
    return arr._pointer, arr.strides[0]


def _chunks(n):
    pieces = max(1, min(4 * _core.host_workers(), n // _CHUNK))
    per = -(-n // pieces)
    return [(s, min(per, n - s)) for s in range(0, n, per)]


def _device_wait(arr, stream):
    """Before the host reads device memory (cpu backend): the work queued on it is done."""
    cuda = _cuda()
    if isinstance(arr, np.ndarray):
        return
    if stream:
        stream.synchronize()
    cuda.synchronize()


class Reduce:
    """numba-cuda's ``Reduce``: ``Reduce(binop)(arr, size=None, res=None,
    init=0, stream=0)`` reduces a 1-d host or device array with ``binop``
    (compiled as a device function; any binary function the kernel language
    compiles). Returns the result, or writes it to ``res[0]`` (a device
    array) and returns None."""

    def __init__(self, functor):
        if not callable(functor):
            raise TypeError(f"Reduce needs a binary function, not {type(functor).__name__}")
        self._functor = functor
        self._compiled = {}
        code = getattr(getattr(functor, "py_func", functor), "__code__", None)
        if code is not None and code.co_argcount != 2:
            raise TypeError(f"Reduce needs a binary function: {getattr(functor, '__name__', functor)} takes "
                            f"{code.co_argcount} argument(s)")

    def _for(self, dtype):
        with _lock:
            c = self._compiled.get(dtype)
            if c is None:
                c = self._compiled[dtype] = _Compiled(self._functor, dtype)
            return c

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        cuda = _cuda()
        arr = _as_1d(arr, "reduce")
        if size is not None:
            if not isinstance(size, (int, np.integer)) or size < 0:
                raise ValueError(f"reduce: size must be a non-negative integer, not {size!r}")
            arr = arr[:size]
        dtype = np.dtype(arr.dtype)
        c = self._for(dtype)
        try:
            init = dtype.type(init)
        except (TypeError, ValueError, OverflowError) as e:
            raise TypeError(f"reduce: init {init!r} does not convert to the array's {dtype}: {e}") from None
        if res is not None and not cuda.is_cuda_array(res):
            raise TypeError("reduce: res must be a device array (the result is written to res[0])")
        n = arr.shape[0]
        if n < 1:
            if res is not None:
                res[:1].copy_to_device(np.array([init], dtype=dtype), stream=stream)
                return None
            return init
        if cuda.backend() == "cpu":
            value = self._on_host(c, arr, init, stream)
            if res is not None:
                res[:1].copy_to_device(np.array([value], dtype=dtype), stream=stream)
                return None
            return value
        return self._on_device(c, arr, init, res, stream)

    def _on_host(self, c, arr, init, stream):
        _device_wait(arr, stream)
        ptr, stride = _host_pointer(arr)
        n = arr.shape[0]
        size = c.dtype.itemsize
        keep = []
        # levels of a 1024-ary tree: each level's blocks spread over the cores
        while n > _HOST_BLOCK:
            blocks = -(-n // _HOST_BLOCK)
            parts = np.empty(blocks, dtype=c.dtype)
            keep.append(parts)
            pieces = max(1, min(4 * _core.host_workers(), blocks // 16))
            per = -(-blocks // pieces)
            calls = []
            for b0 in range(0, blocks, per):
                first, count = b0 * _HOST_BLOCK, min(per * _HOST_BLOCK, n - b0 * _HOST_BLOCK)
                calls.append(_arr_slots(ptr + first * stride, count, stride)
                             + _arr_slots(parts.ctypes.data, blocks, size) + [b0])
            _core.call_on_host_parallel(c.host_blocks(), calls)
            ptr, stride, n = parts.ctypes.data, size, blocks
        init_a = np.array([init], dtype=c.dtype)
        out = np.empty(1, dtype=c.dtype)
        _core.call_on_host(c.host_finish(), _arr_slots(ptr, n, stride) + _arr_slots(init_a.ctypes.data, 1, size)
                           + _arr_slots(out.ctypes.data, 1, size))
        return out[0]

    def _on_device(self, c, arr, init, res, stream):
        cuda = _cuda()
        if not isinstance(arr, cuda.DeviceNDArray):
            arr = cuda.to_device(np.ascontiguousarray(arr), stream=stream)
        n = arr.shape[0]
        kernel = c.gpu_reduce()
        dev = cuda.get_current_device()
        blocks = min(-(-n // _BLOCK), dev.MULTIPROCESSOR_COUNT * 8)
        out = res if res is not None else cuda.device_array(1, dtype=c.dtype, stream=stream)
        if blocks == 1:
            kernel[1, _BLOCK, stream](arr, out, init, True)
        else:
            partials = cuda.device_array(blocks, dtype=c.dtype, stream=stream)
            kernel[blocks, _BLOCK, stream](arr, partials, init, False)
            kernel[1, _BLOCK, stream](partials, out, init, True)
        if res is not None:
            return None
        host = out.copy_to_host(stream=stream)
        if stream:
            stream.synchronize()
        return host[0]


def reduce(functor):
    """``@cuda.reduce``: a ``Reduce`` of the decorated binary function."""
    return Reduce(functor)


class Scan:
    """A device-wide prefix scan with a binary function: ``Scan(binop)(arr,
    out=None, init=None, exclusive=False, stream=0)``. Inclusive:
    ``out[i] = init ⊕ arr[0] ⊕ ... ⊕ arr[i]`` (without ``init`` when none is
    given); exclusive: ``out[0] = init`` and ``out[i] = init ⊕ arr[0] ⊕ ... ⊕
    arr[i-1]`` (``init`` required). ``binop`` must be associative. The result
    has the array's dtype; host arrays in give a host array out, device
    arrays a device array; ``out`` may be ``arr`` itself."""

    def __init__(self, functor):
        if not callable(functor):
            raise TypeError(f"Scan needs a binary function, not {type(functor).__name__}")
        self._reduce = Reduce(functor)

    def __call__(self, arr, out=None, init=None, exclusive=False, stream=0):
        cuda = _cuda()
        arr = _as_1d(arr, "scan")
        dtype = np.dtype(arr.dtype)
        c = self._reduce._for(dtype)
        if exclusive and init is None:
            raise ValueError("scan: an exclusive scan needs init (the value out[0] takes)")
        use_init = init is not None
        init_v = dtype.type(init if use_init else 0)
        n = arr.shape[0]
        host_in = isinstance(arr, np.ndarray)
        if out is None:
            out = np.empty(n, dtype=dtype) if host_in else cuda.device_array(n, dtype=dtype, stream=stream)
        if tuple(out.shape) != (n,) or np.dtype(out.dtype) != dtype:
            raise ValueError(f"scan: out must be a 1-d array of {n} {dtype}, not {tuple(out.shape)} {out.dtype}")
        if n == 0:
            return out
        if exclusive and (out is arr or _shares_memory(out, arr)):
            arr = arr.copy() if isinstance(arr, np.ndarray) else arr.copy_to_host(stream=stream)
        if cuda.backend() == "cpu":
            self._on_host(c, arr, out, init_v, use_init, exclusive, stream)
            return out
        return self._on_device(c, arr, out, init_v, use_init, exclusive, stream)

    def _on_host(self, c, arr, out, init, use_init, exclusive, stream):
        _device_wait(arr, stream)
        _device_wait(out, stream)
        ptr, stride = _host_pointer(arr)
        optr, ostride = _host_pointer(out)
        n = arr.shape[0]
        size = c.dtype.itemsize
        chunks = _chunks(n)
        parts = np.empty(len(chunks), dtype=c.dtype)
        if len(chunks) > 1:
            calls = [_arr_slots(ptr + s * stride, m, stride) + _arr_slots(parts.ctypes.data, len(chunks), size) + [i]
                     for i, (s, m) in enumerate(chunks)]
            _core.call_on_host_parallel(c.host_reduce(), calls)
        # the carry into each chunk: init ⊕ the chunks before it
        carries = np.empty(len(chunks), dtype=c.dtype)
        carries[0] = init
        if len(chunks) > 1:
            scanned = np.empty(len(chunks) - 1, dtype=c.dtype)
            init_a = np.array([init], dtype=c.dtype)
            _core.call_on_host(c.host_scan(), _arr_slots(parts.ctypes.data, len(chunks) - 1, size)
                               + _arr_slots(scanned.ctypes.data, len(chunks) - 1, size)
                               + _arr_slots(init_a.ctypes.data, 1, size) + [int(use_init)])
            carries[1:] = scanned
        shift = 1 if exclusive else 0
        calls = []
        for i, (s, m) in enumerate(chunks):
            has_carry = use_init or i > 0
            first = s + shift
            length = max(0, min(m, n - first))
            calls.append(_arr_slots(ptr + s * stride, m, stride) + _arr_slots(optr + first * ostride, length, ostride)
                         + _arr_slots(carries.ctypes.data + i * size, 1, size) + [int(has_carry)])
        _core.call_on_host_parallel(c.host_scan(), calls)
        if exclusive:
            if isinstance(out, np.ndarray):
                out[0] = init
            else:
                out[:1].copy_to_device(np.array([init], dtype=c.dtype), stream=stream)

    def _on_device(self, c, arr, out, init, use_init, exclusive, stream):
        cuda = _cuda()
        host_out = out if isinstance(out, np.ndarray) else None
        if not isinstance(arr, cuda.DeviceNDArray):
            arr = cuda.to_device(np.ascontiguousarray(arr), stream=stream)
        dout = cuda.device_array(out.shape[0], dtype=c.dtype, stream=stream) if host_out is not None else out
        self._scan_device(c, arr, dout, init, use_init, 1 if exclusive else 0, stream)
        if host_out is not None:
            dout.copy_to_host(host_out, stream=stream)
            if stream:
                stream.synchronize()
            return host_out
        return out

    def _scan_device(self, c, arr, out, init, use_init, shift, stream):
        cuda = _cuda()
        n = arr.shape[0]
        tiles = -(-n // _BLOCK)
        if tiles > 1:
            sums = cuda.device_array(tiles, dtype=c.dtype, stream=stream)
            reduce_k = c.gpu_reduce()
            # one tile per block: a grid as large as the tiles (no grid stride)
            reduce_k[tiles, _BLOCK, stream](arr, sums, init, False)
            carries = cuda.device_array(tiles, dtype=c.dtype, stream=stream)
            self._scan_device(c, sums, carries, init, False, 0, stream)
        else:
            carries = cuda.device_array(1, dtype=c.dtype, stream=stream)
        c.gpu_scan()[tiles, _BLOCK, stream](arr, out, carries, init, use_init, shift)


def _shares_memory(a, b):
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return np.shares_memory(a, b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return False
    pa, pb = a._pointer, b._pointer
    return pa < pb + b.nbytes and pb < pa + a.nbytes


def scan(functor):
    """``@cuda.scan``: a ``Scan`` of the decorated binary function."""
    return Scan(functor)
