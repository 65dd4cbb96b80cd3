"""``cuforge.jit`` and ``cuforge.njit``: functions compiled for the host
by the same compiler (its host target), called from Python with NumPy
arrays and scalars (docs/high_level.md).

The function is compiled as a device function of the kernel language; a
generated entry calls it and stores what it returns into one-element arrays
(one per element of a returned tuple), and runs as host code on the calling
thread (jit/host_call.hpp), whatever the active backend. NumPy arrays are
passed as they are (no copy); scalars by value. Like numba's nopython mode, a
function the compiler cannot type fails with a TypingError at its first call
(or at decoration, with signatures).

A host-jitted function is also a device function: kernels (and other
jitted functions) may call it, as numba allows.
"""

from __future__ import annotations

import functools
import inspect
import struct
import threading

import numpy as np

from cuforge import _core
from cuforge import types as cftypes

__all__ = ["jit", "njit", "prange", "HostDispatcher"]

_MASK = (1 << 64) - 1


def prange(*args):
    """numba's ``prange``: in a jitted function, a ``range`` (run serially;
    ``parallel=True`` is accepted); in Python, ``range``."""
    return range(*args)


def _typeof(value, index, pyfunc=None):
    """numba's type of a host argument (cuforge.types.typeof: int is int64,
    or uint64 past it; arrays by dtype, rank, layout and writability); a
    TypingError (as nopython mode gives) for what it cannot type, and for
    device arrays (the host jit runs on host memory)."""
    try:
        t = None if _is_device_array(value) else cftypes.typeof(value)
    except (ValueError, TypeError, KeyError):
        t = None
    if t is None:
        what = f"arrays of {value.dtype}" if isinstance(value, np.ndarray) else type(value).__name__
        raise _typing_error(pyfunc, f"non-precise type pyobject: cannot type argument {index + 1} ({what}): "
                            f"cuforge.jit takes NumPy arrays, numbers and tuples of them, not {what}")
    return t


def _is_device_array(value):
    return not isinstance(value, (np.ndarray, np.generic, tuple)) and (
        hasattr(value, "__cuda_array_interface__") or _core.is_device_array(value))


_F64 = struct.Struct("<d")
_F32 = struct.Struct("<f")


def _scalar_packer(t):
    """A function appending a scalar of type ``t``'s slot(s), converting the
    value as numba converts an argument to a parameter type."""
    dt = np.dtype(cftypes.as_dtype(t))
    if dt == np.float64:
        return lambda v, out: out.append(int.from_bytes(_F64.pack(float(v)), "little"))
    if dt == np.float32:
        return lambda v, out: out.append(int.from_bytes(_F32.pack(float(np.float32(v))), "little"))
    if dt == np.bool_:
        return lambda v, out: out.append(1 if v else 0)
    if dt.kind in "iu" and dt.itemsize == 8:
        return lambda v, out: out.append(int(dt.type(v)) & _MASK)

    def generic(v, out):
        raw = np.asarray(v).astype(dt).tobytes()
        if dt.kind == "c" and dt.itemsize == 16:
            out.append(int.from_bytes(raw[:8], "little"))
            out.append(int.from_bytes(raw[8:], "little"))
        else:
            out.append(int.from_bytes(raw.ljust(8, b"\0"), "little"))
    return generic


def _array_pack(v, out):
    out.append(v.ctypes.data)
    out.extend(v.shape)
    out.extend(s & _MASK for s in v.strides)


def _packer(t):
    """How an argument of parameter type ``t`` becomes slots (frontend/abi.hpp)."""
    if isinstance(t, cftypes.Array):
        return _array_pack
    if isinstance(t, (cftypes.Tuple, cftypes.UniTuple)):
        parts = [_packer(et) for et in t]

        def tuple_pack(v, out):
            for p, x in zip(parts, v):
                p(x, out)
        return tuple_pack
    if t == cftypes.none:
        return lambda v, out: None
    return _scalar_packer(t)


_ENTRY = """
def __entry_{name}({params}):
{body}
"""


def _array_address(a):
    """The host jit entry's stand-in for the registry's cuforge.array_address(a): the address of a
    returned array's data, written for Python to read (host code only)."""
    raise TypeError("cuforge.array_address is the host jit's, for compiled code only")


_array_address.__cuforge_row__ = "cuforge.array_address"


class _Entry:
    """One compiled signature: the host code and how to read its result."""

    def __init__(self, key, compiled, rets, ret_kind):
        self.key = key
        self.types = [cftypes.from_spec(k) for k in key]
        self.packers = [_packer(t) for t in self.types]
        self.compiled = compiled
        self.rets = rets  # the returned values' types: a Scalar (read from a one-element array) or an Array
        # the result slots' arrays: one element of the scalar's dtype, or an array's address, shape and strides
        self.ret_types = [np.dtype(cftypes.as_dtype(t)) if isinstance(t, cftypes.Scalar) else None for t in rets]
        self.has_arrays = any(isinstance(t, cftypes.Array) for t in rets)
        self.ret_kind = ret_kind  # "none", "scalar" (one value), "tuple"


def _returnable(t):
    return isinstance(t, cftypes.Scalar) or (isinstance(t, cftypes.Array) and isinstance(t.dtype, cftypes.Scalar))


class _Returned:
    """What a returned array's NumPy array is made from: its interface, and the owner of its memory
    (the call's allocations, or the argument it is a view of) kept alive as the array's base."""

    def __init__(self, interface, owner):
        self.__array_interface__ = interface
        self.owner = owner


def _returned_array(t, desc, allocations, args):
    """The NumPy array for a returned array of type ``t`` whose address, shape and strides the
    entry wrote into ``desc``: a view of the memory the call allocated or of the argument it
    lies in; anything else (memory neither owns, such as a constant array) is copied."""
    nd = t.ndim
    dtype = np.dtype(cftypes.as_dtype(t.dtype))
    address = int(desc[0]) & _MASK
    shape = tuple(int(x) for x in desc[1:1 + nd])
    strides = tuple(int(x) for x in desc[1 + nd:1 + 2 * nd])
    lo, hi = _span(address, shape, strides, dtype.itemsize)
    interface = {"version": 3, "typestr": dtype.str, "shape": shape, "strides": strides,
                 "data": (address, bool(t.readonly))}
    if dtype.fields is not None:
        interface["descr"] = dtype.descr
    if allocations is not None and allocations.holds(lo, hi - lo):
        return np.asarray(_Returned(interface, allocations))
    for a in _arrays_in(args):
        a_lo, a_hi = _span(a.__array_interface__["data"][0], a.shape, a.strides, a.itemsize)
        if a_lo <= lo and hi <= a_hi and a_lo < a_hi:
            interface["data"] = (address, bool(t.readonly) or not a.flags.writeable)
            return np.asarray(_Returned(interface, a))
    return np.array(_Returned(interface, None), copy=True)


def _span(address, shape, strides, itemsize):
    """The bytes [lo, hi) an array's elements occupy (empty for an array of no elements)."""
    if not all(shape):
        return address, address
    lo = hi = address
    for n, s in zip(shape, strides):
        if s < 0:
            lo += (n - 1) * s
        else:
            hi += (n - 1) * s
    return lo, hi + itemsize


def _arrays_in(args):
    for a in args:
        if isinstance(a, np.ndarray):
            yield a
        elif isinstance(a, tuple):
            yield from _arrays_in(a)


class HostDispatcher(_core.HostFunction):
    """A ``@cuforge.jit`` / ``@njit`` function: compiled per argument types at
    call time (or for its signatures at decoration), called with NumPy arrays
    and scalars; also callable from kernels as a device function.

    A call goes through the native base class (``_core.HostFunction``): the
    arguments typed, the entry for exactly those types found, the slots
    packed and the result boxed in C++. What it cannot serve comes to
    ``_fallback`` here, which compiles and tells it the new entry."""

    def __init__(self, py_func, parallel=False, cache=False, fastmath=False, signatures=(), boundscheck=False,
                 error_model="python"):
        _core.HostFunction.__init__(self, self._fallback)
        if not inspect.isfunction(py_func):
            raise TypeError(f"cuforge.jit compiles Python functions, not {type(py_func).__name__}")
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self.parallel = bool(parallel)
        self.cache = bool(cache)
        self.fastmath = bool(fastmath)
        self.boundscheck = bool(boundscheck)
        self.error_model = error_model  # numba's: "python" (a zero divisor raises) or "numpy"
        self._sig = inspect.signature(py_func)
        self._entries = {}
        self._nparams = len(self._sig.parameters)
        self._lock = threading.RLock()
        self._core = None
        self._explicit = False
        self._plan = None  # parallel=True: the prange split (_prange.Plan), made on the first call
        self._plan_made = False
        for s in signatures:
            args, _ = cftypes.normalize_signature(s)
            self._compile(list(args))
        self._explicit = bool(signatures)

    def __repr__(self):
        return f"<cuforge.jit function {self.py_func.__module__}.{self.py_func.__qualname__}>"

    # a kernel calling it: the walker takes it as a device function (py_func)
    @property
    def device(self):
        return True

    @property
    def signatures(self):
        return list(self._entries)

    @property
    def nopython_signatures(self):
        return [tuple(cftypes.from_spec(s) for s in key) for key in self._entries]

    def _device_function(self):
        if self._core is None:
            from cuforge import cuda

            self._core = cuda.jit(device=True, fastmath=self.fastmath)(self.py_func)
        return self._core

    def _compile(self, arg_types):
        from cuforge._generate import compile_host, generated, host_config, return_type

        key = tuple(t.spec for t in arg_types)
        with self._lock:
            got = self._entries.get(key)
            if got is not None:
                return got
            core = self._device_function()
            config = host_config(self.fastmath, self.boundscheck, self.error_model)
            ret = return_type(self.py_func, key, config)
            n = len(arg_types)
            params = [f"a{i}" for i in range(n)]
            call = f"__core__({', '.join(params)})"
            if ret == cftypes.none:
                rets, kind, values = [], "none", []
            elif isinstance(ret, (cftypes.Tuple, cftypes.UniTuple)) and all(_returnable(t) for t in ret):
                rets, kind, values = list(ret), "tuple", [f"__r__[{i}]" for i in range(len(ret))]
            elif _returnable(ret):
                rets, kind, values = [ret], "scalar", ["__r__"]
            else:
                raise _typing_error(self.py_func, f"cuforge.jit: {self.py_func.__name__} returns {ret}; host-jitted "
                                    "functions return None, a number, an array of numbers or a tuple of those")
            lines = [f"    __r__ = {call}" if rets else f"    {call}"]
            for i, (t, v) in enumerate(zip(rets, values)):
                if isinstance(t, cftypes.Array):  # its address, extents and byte strides
                    lines.append(f"    __r{i}__[0] = __address__({v})")
                    lines += [f"    __r{i}__[{1 + d}] = {v}.shape[{d}]" for d in range(t.ndim)]
                    lines += [f"    __r{i}__[{1 + t.ndim + d}] = {v}.strides[{d}]" for d in range(t.ndim)]
                else:
                    lines.append(f"    __r{i}__[0] = {v}")
            body = "\n".join(lines)
            all_params = params + [f"__r{i}__" for i in range(len(rets))]
            name = self.py_func.__name__
            src = _ENTRY.format(name=name, params=", ".join(all_params), body=body)
            entry_fn = generated(src, f"__entry_{name}", {"__core__": core, "__address__": _array_address})
            specs = list(key) + [cftypes.Array(t if isinstance(t, cftypes.Scalar) else cftypes.int64, 1, "C").spec
                                 for t in rets]
            compiled = compile_host(entry_fn, specs, self.py_func if self.cache else None, config, owner=self.py_func)
            entry = _Entry(key, compiled, rets, kind)
            self._entries[key] = entry
            return entry

    def compile(self, sig):
        """Compiles for a signature now (numba's ``compile``)."""
        args, _ = cftypes.normalize_signature(sig)
        self._compile(list(args))

    def _fallback(self, args, kwargs):
        """(result, info) of a call the native path did not serve; info (the
        entry's compiled code, its result type numbers and kind) when the entry
        takes exactly these argument types, so the native path serves the next
        such call."""
        exact = not kwargs and len(args) == self._nparams
        if not exact:
            try:
                bound = self._sig.bind(*args, **(kwargs or {}))
            except TypeError as e:
                raise TypeError(f"{self.py_func.__name__}(): {e}") from None
            bound.apply_defaults()
            args = bound.args
        types = [_typeof(a, i, self.py_func) for i, a in enumerate(args)]
        if self.parallel:
            plan = self._parallel_plan()
            if plan is not None and not self._explicit:
                from cuforge._prange import NotParallel

                try:
                    return plan.run(args, types), None  # (each call comes here: the chunks are spread from Python)
                except NotParallel as e:
                    self._plan = None
                    import warnings

                    from cuforge._prange import NumbaPerformanceWarning

                    warnings.warn(f"{self.py_func.__qualname__}: parallel=True runs serially here: {e}",
                                  NumbaPerformanceWarning, stacklevel=2)
        entry = self._entry_for(args, types)
        result = self._run(entry, args)
        info = None
        if exact and entry.key == tuple(t.spec for t in types) and not entry.has_arrays:
            kind = {"none": 0, "scalar": 1, "tuple": 2}[entry.ret_kind]
            info = (entry.compiled, [dt.num for dt in entry.ret_types], kind)
        return result, info

    def _parallel_plan(self):
        if not self._plan_made:
            from cuforge._prange import plan_of

            self._plan = plan_of(self.py_func, self.error_model)
            self._plan_made = True
        return self._plan

    def _run(self, entry, args):
        slots = []
        for pack, a in zip(entry.packers, args):  # scalars converted to the signature's types
            pack(a, slots)
        results = [np.empty(1, dtype=dt) if dt is not None else np.empty(1 + 2 * t.ndim, np.int64)
                   for t, dt in zip(entry.rets, entry.ret_types)]
        for r in results:
            slots += (r.__array_interface__["data"][0], r.size, r.itemsize)
        if not entry.has_arrays:
            _core.call_on_host(entry.compiled, slots)
            if entry.ret_kind == "none":
                return None
            if entry.ret_kind == "scalar":
                return results[0][0].item()
            return tuple(r[0].item() for r in results)
        allocations = _core.call_on_host_keeping(entry.compiled, slots)
        values = [_returned_array(t, r, allocations, args) if isinstance(t, cftypes.Array) else r[0].item()
                  for t, r in zip(entry.rets, results)]
        return values[0] if entry.ret_kind == "scalar" else tuple(values)

    def _entry_for(self, args, types):
        key = tuple(t.spec for t in types)
        entry = self._entries.get(key)
        if entry is None:
            entry = self._match(types) if self._explicit else self._compile(types)
            if entry is None:
                raise TypeError(f"{self.py_func.__name__}: no matching definition for argument types "
                                f"({', '.join(str(t) for t in types)}); compiled for: "
                                f"{'; '.join(', '.join(k) for k in self._entries)}")
        return entry

    def _match(self, types):
        """With signatures: the first the arguments may be passed to (the rule
        of cuda.jit's eager signatures, jit::compatible: any number converts
        to a number, as numba's dispatcher allows)."""
        have = [t.spec for t in types]
        for key, entry in self._entries.items():
            if len(key) == len(have) and all(_core.compatible(h, w) for h, w in zip(have, key)):
                return entry
        return None

    def inspect_types(self, file=None):
        """Prints the typed IR of each compiled signature (as numba's does)."""
        import sys

        file = sys.stdout if file is None else file
        for key, e in self._entries.items():
            print(f"{self.py_func.__name__} ({', '.join(key)})", file=file)
            print("-" * 80, file=file)
            print(e.compiled.types_dump, file=file)
            print("=" * 80, file=file)

    def inspect_llvm(self):
        return {key: e.compiled.llvm for key, e in self._entries.items()}


def _typing_error(pyfunc, message):
    from cuforge.cuda import TypingError

    if pyfunc is None:
        return TypingError(message)
    code = pyfunc.__code__
    return TypingError(message, code.co_filename, code.co_firstlineno, 0, None, pyfunc.__qualname__)


def jit(signature_or_function=None, nopython=True, nogil=False, cache=False, parallel=False, fastmath=False,
        forceobj=False, boundscheck=None, error_model=None, inline="never", locals=None, **options):
    """numba's ``jit`` for the host, in nopython mode (cuforge has no object
    mode: ``forceobj=True`` or ``nopython=False`` is refused)."""
    del nogil, inline, locals  # numba's knobs that change nothing here
    error_model = "python" if error_model is None else error_model
    if error_model not in ("python", "numpy"):
        raise ValueError(f"jit: error_model must be 'python' (a zero divisor raises ZeroDivisionError) or 'numpy' "
                         f"(inf, nan or 0, as NumPy gives), not {error_model!r}")
    if options:
        raise TypeError(f"jit: unsupported option(s): {', '.join(sorted(options))}")
    if forceobj or not nopython:
        raise TypeError("jit: cuforge compiles in nopython mode only (object mode has no compiler here)")

    def wrap(func, sigs=()):
        return HostDispatcher(func, parallel=parallel, cache=cache, fastmath=fastmath, signatures=sigs,
                              boundscheck=bool(boundscheck), error_model=error_model)

    if signature_or_function is None:
        return wrap
    if inspect.isfunction(signature_or_function):
        return wrap(signature_or_function)
    sigs = signature_or_function
    if isinstance(sigs, (str, cftypes.Signature)):
        sigs = [sigs]
    sigs = list(sigs)
    return lambda func: wrap(func, sigs)


def njit(*args, **kws):
    """numba's ``njit``: ``jit(nopython=True)``."""
    kws.pop("nopython", None)
    return jit(*args, **kws)
