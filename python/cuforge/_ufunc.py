"""``vectorize`` and ``guvectorize``: NumPy ufuncs from scalar (and core)
functions, compiled by our compiler (docs/high_level.md).

Every target compiles the user's function as a device function (the kernel
language, ``cuda.jit(sig, device=True)``) and a small generated function
around it that walks the loop:

- ``'cpu'`` and ``'parallel'``: the loop is compiled for the host target and
  becomes an inner loop of a real ``numpy.ufunc`` (``_core.make_ufunc``), so
  NumPy does broadcasting, ``out=``, casting, ``reduce``/``accumulate``;
  ``'parallel'`` splits each inner loop over the cores. This runs on the host
  whatever the active backend.
- ``'cuda'`` (``'gpu'``): the loop is a kernel, one thread per element (per
  loop iteration for a gufunc), launched on the active backend; arguments and
  results move as numba-cuda's GPU ufuncs move them.

The generated functions are Python source registered with ``linecache`` (so
the compiler reads them as it reads any function).
"""

from __future__ import annotations

import functools
import re
import threading
from collections import OrderedDict

import numpy as np

from cuforge import _core
from cuforge import types as cftypes
from cuforge._generate import compile_host, generated, return_type

__all__ = ["vectorize", "guvectorize", "DUFunc", "GUFunc", "CUDAUFunc", "CUDAGUFunc"]

_TARGETS = {"cpu": "cpu", "parallel": "parallel", "cuda": "cuda", "gpu": "cuda"}


# --- shared pieces ------------------------------------------------------------------


def _target_of(target):
    try:
        return _TARGETS[target]
    except (KeyError, TypeError):
        raise ValueError(f"Unsupported target: {target!r} (vectorize targets: 'cpu', 'parallel', 'cuda')") from None


def _identity(identity):
    """numba's identity values: None, 0, 1 and 'reorderable' (and, beyond
    numba, any number)."""
    if identity is None or identity == "reorderable":
        return identity
    if isinstance(identity, str):
        raise ValueError(f"Invalid identity value {identity!r}: use None, 0, 1, 'reorderable' or a number")
    if isinstance(identity, (bool, int, float, complex, np.number)):
        return identity
    raise ValueError(f"Invalid identity value {identity!r}: use None, 0, 1, 'reorderable' or a number")


def _signature_list(sigs):
    if sigs is None:
        return []
    if isinstance(sigs, (str, cftypes.Signature)):
        return [sigs]
    if isinstance(sigs, tuple) and sigs and all(isinstance(t, cftypes.Type) for t in sigs):
        return [sigs]  # one signature given as a tuple of types
    try:
        return list(sigs)
    except TypeError:
        raise TypeError(f"signatures must be a list of signatures, not {type(sigs).__name__}") from None


def _dtype_of_type(t, what):
    try:
        return cftypes.as_dtype(t)
    except Exception:
        raise TypeError(f"{what}: {t} is not a NumPy scalar type") from None


def _scalar_dtype(value):
    """The dtype numba types a scalar argument as (Python int: int64, float:
    float64, complex: complex128, bool: bool; NumPy scalars: their own)."""
    if isinstance(value, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(value, np.generic):
        return value.dtype
    if isinstance(value, int):
        return np.dtype(np.int64)
    if isinstance(value, float):
        return np.dtype(np.float64)
    if isinstance(value, complex):
        return np.dtype(np.complex128)
    return np.asarray(value).dtype


def _is_scalar(value):
    return isinstance(value, (int, float, complex, np.number, np.bool_, bool))


def _cuda():
    from cuforge import cuda

    return cuda


def _device_function(pyfunc, sig=None):
    cuda = _cuda()
    return cuda.jit(sig, device=True)(pyfunc) if sig is not None else cuda.jit(device=True)(pyfunc)


def _return_dtype(core, arg_specs, name):
    """The return type of device function ``core`` for these argument types."""
    ret = return_type(core.py_func, arg_specs)
    if not isinstance(ret, cftypes.Scalar):
        raise TypeError(f"vectorize: {name} returns {ret}; a ufunc's function returns one scalar")
    return np.dtype(cftypes.as_dtype(ret))


# --- vectorize ----------------------------------------------------------------------------


_CPU_LOOP = """
def __loop_{name}({args}, __out__):
    for __i__ in range(__out__.shape[0]):
        __out__[__i__] = __core__({items})
"""


class _CPUVectorize:
    """The loops of a CPU ufunc: one per signature, each a host-compiled loop."""

    def __init__(self, pyfunc, identity, parallel, cache=False):
        self.pyfunc = pyfunc
        self.identity = _identity(identity)
        self.parallel = parallel
        self.cache = bool(cache)
        self.loops = []  # (in dtypes, out dtype, CompiledFunction)
        self.nin = pyfunc.__code__.co_argcount
        if self.nin < 1:
            raise TypeError(f"vectorize: {pyfunc.__name__} takes no arguments; a ufunc needs at least one input")

    def add(self, sig):
        args, ret = cftypes.normalize_signature(sig)
        if len(args) != self.nin:
            raise TypeError(f"vectorize: the signature {sig} has {len(args)} arguments, "
                            f"{self.pyfunc.__name__} takes {self.nin}")
        in_dtypes = [_dtype_of_type(a, f"signature {sig}") for a in args]
        if ret is None:
            core = _device_function(self.pyfunc)
            out_dtype = _return_dtype(core, [a.spec for a in args], self.pyfunc.__name__)
        else:
            core = _device_function(self.pyfunc, sig)
            out_dtype = _dtype_of_type(ret, f"signature {sig}")
        self._add_loop(core, in_dtypes, out_dtype)

    def add_for_dtypes(self, in_dtypes):
        """Compiles the loop for these input dtypes (a lazy ufunc's call)."""
        specs = [cftypes.from_dtype(d).spec for d in in_dtypes]
        core = _device_function(self.pyfunc)
        out_dtype = _return_dtype(core, specs, self.pyfunc.__name__)
        self._add_loop(core, in_dtypes, out_dtype)

    def _add_loop(self, core, in_dtypes, out_dtype):
        name = self.pyfunc.__name__
        args = [f"a{i}" for i in range(self.nin)]
        src = _CPU_LOOP.format(name=name, args=", ".join(args), items=", ".join(f"{a}[__i__]" for a in args))
        loop = generated(src, f"__loop_{name}", {"__core__": core})
        specs = [cftypes.Array(cftypes.from_dtype(d), 1, "A").spec for d in (*in_dtypes, out_dtype)]
        compiled = compile_host(loop, specs, self.pyfunc if self.cache else None, owner=self.pyfunc)
        self.loops.append((tuple(np.dtype(d) for d in in_dtypes), np.dtype(out_dtype), compiled))

    def build(self):
        loops = [([d.num for d in ins] + [out.num], k) for ins, out, k in self.loops]
        doc = self.pyfunc.__doc__ or ""
        return _core.make_ufunc(self.pyfunc.__name__, doc, self.nin, 1, loops, self.identity, None, self.parallel)


def _is_no_loop(e):
    text = str(e)
    return (type(e).__name__ in ("_UFuncNoLoopError", "UFuncNoLoopError") or "did not contain a loop" in text
            or "not supported for the input types" in text)


class DUFunc:
    """A lazy (dynamic) CPU ufunc, as numba's ``DUFunc``: it compiles a loop
    for the argument types of a call that none of its loops takes, then
    calls the ``numpy.ufunc`` made of all its loops (``.ufunc``)."""

    def __init__(self, pyfunc, identity=None, parallel=False, cache=False):
        self._builder = _CPUVectorize(pyfunc, identity, parallel, cache)
        self._ufunc = None
        self._frozen = False
        self._lock = threading.RLock()
        functools.update_wrapper(self, pyfunc)
        self.py_func = pyfunc

    def __repr__(self):
        return f"<cuforge.DUFunc '{self.__name__}'>"

    @property
    def ufunc(self):
        """The numpy.ufunc of the loops compiled so far (None before the first)."""
        return self._ufunc

    @property
    def nin(self):
        return self._builder.nin

    @property
    def nout(self):
        return 1

    @property
    def nargs(self):
        return self.nin + 1

    @property
    def identity(self):
        return self._ufunc.identity if self._ufunc is not None else None

    @property
    def types(self):
        return self._ufunc.types if self._ufunc is not None else []

    @property
    def ntypes(self):
        return len(self.types)

    def disable_compile(self):
        self._frozen = True

    def add(self, sig):
        """Compiles a loop for ``sig`` now."""
        with self._lock:
            self._builder.add(sig)
            self._ufunc = self._builder.build()

    def _compile_for(self, args):
        if self._frozen:
            raise TypeError(f"{self.__name__}: no loop for these argument types and compiling is disabled")
        if len(args) < self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} arguments, got {len(args)}")
        dtypes = [_scalar_dtype(a) if _is_scalar(a) else np.asarray(a).dtype for a in args[: self.nin]]
        with self._lock:
            self._builder.add_for_dtypes(dtypes)
            self._ufunc = self._builder.build()

    def __call__(self, *args, **kws):
        if self._ufunc is not None:
            try:
                return self._ufunc(*args, **kws)
            except TypeError as e:
                if not _is_no_loop(e):
                    raise
        self._compile_for(args)
        return self._ufunc(*args, **kws)

    def _binary_method(self, method, array, args, kws):
        if self.nin != 2:
            raise ValueError(f"{method} only supported for binary functions")
        if self._ufunc is not None:
            try:
                return getattr(self._ufunc, method)(array, *args, **kws)
            except TypeError as e:
                if not _is_no_loop(e):
                    raise
        a = np.asarray(array)
        self._compile_for((a.dtype.type(0), a.dtype.type(0)))
        return getattr(self._ufunc, method)(array, *args, **kws)

    def reduce(self, array, *args, **kws):
        return self._binary_method("reduce", array, args, kws)

    def accumulate(self, array, *args, **kws):
        return self._binary_method("accumulate", array, args, kws)

    def reduceat(self, array, *args, **kws):
        return self._binary_method("reduceat", array, args, kws)

    def outer(self, a, b, **kws):
        if self._ufunc is None or not self._has_loop((a, b)):
            self._compile_for((a, b))
        return self._ufunc.outer(a, b, **kws)

    def at(self, a, indices, *b):
        if self._ufunc is None or not self._has_loop((a, *b) if b else (a,)):
            self._compile_for((a, *b))
        return self._ufunc.at(a, indices, *b)

    def _has_loop(self, args):
        try:
            self._ufunc.resolve_dtypes(tuple(np.asarray(x).dtype for x in args) + (None,))
            return True
        except Exception:
            return False


# --- CUDA ufuncs ---------------------------------------------------------------------------


_CUDA_KERNEL_1D = """
def __vectorized_{name}({args}, __out__):
    __tid__ = __cuda__.grid(1)
    if __tid__ < __out__.shape[0]:
        __out__[__tid__] = __core__({items})
"""

_CUDA_KERNEL_ND = """
def __vectorized_{name}({args}, __out__):
    __tid__ = __cuda__.grid(1)
    if __tid__ < __out__.size:
        __r__ = __tid__
{unravel}
        __out__[{out_index}] = __core__({items})
"""


class CUDAUFunc:
    """A GPU ufunc (numba-cuda's ``CUDAUFuncDispatcher``): host arrays in,
    host array out; device arrays in (any of them), device array out; ``out=``
    a device or host array; ``stream=``. Arrays must have a signature's
    types exactly; scalars are converted (numba's rules)."""

    def __init__(self, pyfunc, identity=None):
        self.py_func = pyfunc
        self.__name__ = pyfunc.__name__
        self.__doc__ = pyfunc.__doc__
        self.identity = _identity(identity)
        self.nin = pyfunc.__code__.co_argcount
        self.kernelmap = OrderedDict()  # input dtypes -> (out dtype, device function)
        self._kernels = {}  # (input dtypes, ndim, pattern) -> kernel
        self._frozen = False
        self._lock = threading.RLock()

    def __repr__(self):
        return f"<cuforge CUDA ufunc '{self.__name__}'>"

    @property
    def nout(self):
        return 1

    @property
    def types(self):
        return ["".join(d.char for d in ins) + "->" + out.char for ins, (out, _) in self.kernelmap.items()]

    def disable_compile(self):
        self._frozen = True

    def add(self, sig):
        args, ret = cftypes.normalize_signature(sig)
        if len(args) != self.nin:
            raise TypeError(f"vectorize: the signature {sig} has {len(args)} arguments, "
                            f"{self.__name__} takes {self.nin}")
        in_dtypes = tuple(np.dtype(_dtype_of_type(a, f"signature {sig}")) for a in args)
        if ret is None:
            core = _device_function(self.py_func)
            out = _return_dtype(core, [a.spec for a in args], self.__name__)
        else:
            core = _device_function(self.py_func, sig)
            out = np.dtype(_dtype_of_type(ret, f"signature {sig}"))
        with self._lock:
            self.kernelmap[in_dtypes] = (out, core)

    def _add_lazy(self, in_dtypes):
        if self._frozen:
            raise TypeError("No matching version.  GPU ufunc requires array arguments to have the exact types.  "
                            "This behaves like regular ufunc with casting='no'.")
        core = _device_function(self.py_func)
        out = _return_dtype(core, [cftypes.from_dtype(d).spec for d in in_dtypes], self.__name__)
        with self._lock:
            self.kernelmap[tuple(in_dtypes)] = (out, core)

    # numba-cuda's resolution: exact dtypes for arrays; scalars exactly first, then converted.
    def _resolve(self, args):
        actual = [None if _is_scalar(a) else a.dtype for a in args]
        scalars = [i for i, a in enumerate(actual) if a is None]
        matches = []
        if scalars:
            for formal in self.kernelmap:
                if all(f == (a if a is not None else np.asarray(args[i]).dtype)
                       for i, (f, a) in enumerate(zip(formal, actual))):
                    matches.append(formal)
        if not matches:
            matches = [formal for formal in self.kernelmap
                       if all(a is None or f == a for f, a in zip(formal, actual))]
        if not matches and not self._frozen:
            self._add_lazy([a if a is not None else _scalar_dtype(args[i]) for i, a in enumerate(actual)])
            return self._resolve(args)
        if not matches:
            raise TypeError("No matching version.  GPU ufunc requires array arguments to have the exact types.  "
                            "This behaves like regular ufunc with casting='no'.")
        if len(matches) > 1:
            raise TypeError("Failed to resolve ufunc due to ambiguous signature. Too many untyped scalars. "
                            "Use numpy dtype object to type tag.")
        return matches[0]

    def _kernel(self, in_dtypes, ndim, pattern):
        key = (in_dtypes, ndim, pattern)
        k = self._kernels.get(key)
        if k is not None:
            return k
        cuda = _cuda()
        _, core = self.kernelmap[in_dtypes]
        args = [f"a{i}" for i in range(self.nin)]
        if ndim == 1 and all(p in ("s", "n") for p in pattern):
            items = [a if p == "s" else f"{a}[__tid__]" for a, p in zip(args, pattern)]
            src = _CUDA_KERNEL_1D.format(name=self.__name__, args=", ".join(args), items=", ".join(items))
        else:
            lines = []
            for d in range(ndim - 1, 0, -1):
                lines.append(f"        __i{d}__ = __r__ % __out__.shape[{d}]")
                lines.append(f"        __r__ //= __out__.shape[{d}]")
            lines.append("        __i0__ = __r__")
            items = []
            for a, p in zip(args, pattern):
                if p == "s":
                    items.append(a)
                else:
                    idx = ", ".join("0" if p[d] == "b" else f"__i{d}__" for d in range(ndim))
                    items.append(f"{a}[{idx}]")
            src = _CUDA_KERNEL_ND.format(name=self.__name__, args=", ".join(args), unravel="\n".join(lines),
                                         out_index=", ".join(f"__i{d}__" for d in range(ndim)),
                                         items=", ".join(items))
        fn = generated(src, f"__vectorized_{self.__name__}", {"__core__": core, "__cuda__": cuda})
        k = cuda.jit(fn)
        self._kernels[key] = k
        return k

    def __call__(self, *args, out=None, stream=0, **kws):
        if kws:
            raise TypeError(f"{self.__name__}() got unexpected keyword arguments: {', '.join(sorted(kws))}")
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} arguments ({len(args)} given)")
        cuda = _cuda()
        stream = stream if stream is not None else 0
        args = [a if _is_scalar(a) or cuda.is_cuda_array(a) else np.asarray(a) for a in args]
        args = [cuda.as_cuda_array(a) if (not _is_scalar(a) and not isinstance(a, np.ndarray)
                                          and not isinstance(a, cuda.DeviceNDArray)) else a for a in args]
        in_dtypes = self._resolve(args)
        out_dtype, _ = self.kernelmap[in_dtypes]
        any_device = any(isinstance(a, cuda.DeviceNDArray) for a in args)
        shapes = [a.shape for a in args if not _is_scalar(a)]
        try:
            shape = np.broadcast_shapes(*shapes) if shapes else (1,)
        except ValueError:
            raise ValueError(f"{self.__name__}: operands could not be broadcast together with shapes "
                             f"{' '.join(str(s) for s in shapes)}") from None
        if shape == ():
            shape = (1,)  # numba-cuda gives 0-d operands a 1-element result
        ndim = len(shape)
        # Each operand: a scalar by value ('s'), or an array of the result's rank, broadcast dims marked 'b'.
        operands, pattern = [], []
        for a, dt in zip(args, in_dtypes):
            if _is_scalar(a):
                operands.append(dt.type(a))
                pattern.append("s")
                continue
            if a.ndim == 0:
                a = a.reshape((1,))
            if a.ndim < ndim:
                a = a.reshape((1,) * (ndim - a.ndim) + tuple(a.shape))
            if not isinstance(a, cuda.DeviceNDArray):
                a = cuda.to_device(np.ascontiguousarray(a) if not a.flags.c_contiguous else a, stream=stream)
            marks = "".join("b" if a.shape[d] == 1 and shape[d] != 1 else "n" for d in range(ndim))
            pattern.append("n" if ndim == 1 and marks == "n" else marks)
            operands.append(a)
        # The common case, same-shaped contiguous operands of any rank: one flat index.
        if ndim > 1 and all(p == "s" or p == "n" * ndim for p in pattern) and all(
                p == "s" or o.is_c_contiguous() for o, p in zip(operands, pattern)):
            flat = True
            operands = [o if p == "s" else o.reshape((o.size,)) for o, p in zip(operands, pattern)]
            pattern = ["s" if p == "s" else "n" for p in pattern]
        else:
            flat = ndim == 1
        n = int(np.prod(shape))
        host_out = None
        if out is not None and cuda.is_cuda_array(out):
            devout = out if isinstance(out, cuda.DeviceNDArray) else cuda.as_cuda_array(out)
            if tuple(devout.shape) != tuple(shape):
                raise ValueError(f"{self.__name__}: out has shape {tuple(devout.shape)}, the result has {shape}")
            if devout.dtype != out_dtype:
                raise TypeError(f"{self.__name__}: out has dtype {devout.dtype}, the result is {out_dtype}")
        else:
            if out is not None:
                host_out = out
                if not isinstance(out, np.ndarray):
                    raise TypeError(f"{self.__name__}: out must be an array, not {type(out).__name__}")
                if tuple(out.shape) != tuple(shape):
                    raise ValueError(f"{self.__name__}: out has shape {out.shape}, the result has {shape}")
                if out.dtype != out_dtype:
                    raise TypeError(f"{self.__name__}: out has dtype {out.dtype}, the result is {out_dtype}")
            devout = cuda.device_array(shape, dtype=out_dtype, stream=stream)
        kout = devout.reshape((n,)) if flat and ndim > 1 else devout
        if n > 0:
            kernel = self._kernel(in_dtypes, 1 if flat else ndim, tuple(pattern))
            kernel.forall(n, stream=stream)(*operands, kout)
        if out is not None and host_out is None:
            return devout
        if host_out is not None:
            devout.copy_to_host(host_out, stream=stream)
            return host_out
        if any_device:
            return devout
        return devout.copy_to_host(stream=stream)

    def reduce(self, arg, stream=0):
        """numba-cuda's pairwise reduction of a 1-D array with a binary GPU
        ufunc."""
        if self.nin != 2:
            raise TypeError(f"{self.__name__}.reduce: must be a binary ufunc")
        if arg.ndim != 1:
            raise ValueError(f"{self.__name__}.reduce: must use a 1-D array")
        n = arg.shape[0]
        if n == 0:
            raise TypeError("Reduction on an empty array.")
        if n == 1:
            return arg[0]
        cuda = _cuda()
        stream = stream or cuda.stream()
        mem = arg if cuda.is_cuda_array(arg) else cuda.to_device(arg, stream=stream)
        keep = []
        res = self._reduce(mem, keep, stream)
        buf = np.empty((1,), dtype=arg.dtype)
        res.copy_to_host(buf, stream=stream)
        stream.synchronize()
        return buf[0]

    def _reduce(self, mem, keep, stream):
        n = mem.shape[0]
        if n % 2:
            fat, thin = mem.split(n - 1)
            keep += [fat, thin]
            part = self._reduce(fat, keep, stream)
            keep.append(part)
            return self(part, thin, out=part, stream=stream)
        left, right = mem.split(n // 2)
        keep += [left, right]
        self(left, right, out=left, stream=stream)
        return self._reduce(left, keep, stream) if n // 2 > 1 else left


# --- guvectorize ----------------------------------------------------------------------------

_DIMS = re.compile(r"\s*\(([^()]*)\)\s*")


def _parse_layout(layout):
    """'(m,n),(n,p)->(m,p)' as ([('m', 'n'), ('n', 'p')], [('m', 'p')])."""
    if not isinstance(layout, str):
        raise TypeError(f"guvectorize: the layout must be a string such as '(n),()->(n)', not {layout!r}")
    text = layout.replace(" ", "")
    if text.count("->") != 1:
        raise ValueError(f"guvectorize: invalid layout {layout!r}: it needs exactly one '->' "
                         "(inputs->outputs, e.g. '(n),()->(n)')")
    ins, outs = text.split("->")

    def side(s, what):
        if s == "":
            return []
        groups, pos = [], 0
        while pos < len(s):
            m = re.match(r"\(([A-Za-z0-9_,]*)\)", s[pos:])
            if m is None:
                raise ValueError(f"guvectorize: invalid layout {layout!r}: cannot read the {what} at "
                                 f"{s[pos:]!r}")
            dims = tuple(d for d in m.group(1).split(",") if d)
            for d in dims:
                if not re.fullmatch(r"[A-Za-z_]\w*|\d+", d):
                    raise ValueError(f"guvectorize: invalid layout {layout!r}: bad dimension name {d!r}")
            groups.append(dims)
            pos += m.end()
            if pos < len(s):
                if s[pos] != ",":
                    raise ValueError(f"guvectorize: invalid layout {layout!r}: expected ',' at {s[pos:]!r}")
                pos += 1
        return groups

    inputs, outputs = side(ins, "inputs"), side(outs, "outputs")
    if not inputs:
        raise ValueError(f"guvectorize: invalid layout {layout!r}: no inputs")
    if not outputs:
        raise ValueError(f"guvectorize: invalid layout {layout!r}: no outputs")
    return inputs, outputs


def _index_src(name, core_ndim, declared, tid):
    """How the generated loop hands argument ``name`` to the core function."""
    if core_ndim > 0:
        return f"{name}[{', '.join([tid] + [':'] * core_ndim)}]"
    if isinstance(declared, cftypes.Array):
        return f"{name}[{tid}:({tid} + 1)]"
    return f"{name}[{tid}]"


def _gufunc_arg_types(args, core_dims, sig):
    """The loop's parameter types: each argument with one more (leading) dimension."""
    out = []
    for i, (t, nd) in enumerate(zip(args, core_dims)):
        if isinstance(t, cftypes.Array):
            if t.ndim != max(nd, 1) and not (nd == 0 and t.ndim == 1):
                raise TypeError(f"guvectorize: argument {i + 1} of {sig} is {t}, an array of {t.ndim} "
                                f"dimension(s), but the layout gives it {nd}")
            out.append(cftypes.Array(t.dtype, nd + 1, "A"))
        elif isinstance(t, cftypes.Scalar):
            if nd > 0:
                raise TypeError(f"guvectorize: argument {i + 1} of {sig} is the scalar {t}, but the layout gives "
                                f"it {nd} dimension(s)")
            out.append(cftypes.Array(t, 1, "A"))
        else:
            raise TypeError(f"guvectorize: argument {i + 1} of {sig}: {t} is not an array or scalar type")
    return out


def _check_gufunc_sig(sig, nargs, name):
    args, ret = cftypes.normalize_signature(sig)
    if ret is not None and ret != cftypes.none:
        raise TypeError(f"guvectorized functions cannot return values: signature {sig} specifies {ret} "
                        "return type")
    if len(args) != nargs:
        raise TypeError(f"guvectorize: the signature {sig} has {len(args)} arguments, the layout has {nargs}")
    return args


_CPU_GULOOP = """
def __guloop_{name}({args}):
    for __tid__ in range({first}.shape[0]):
        __core__({items})
"""

_CUDA_GUKERNEL = """
def __gufunc_{name}({args}):
    __tid__ = __cuda__.grid(1)
    if __tid__ < {count}:
        __core__({items})
"""


class _CPUGUVectorize:
    def __init__(self, pyfunc, layout, identity, parallel, cache=False):
        self.pyfunc = pyfunc
        self.cache = bool(cache)
        self.layout = layout
        self.inputs, self.outputs = _parse_layout(layout)
        self.identity = _identity(identity)
        self.parallel = parallel
        self.loops = []
        self.nin, self.nout = len(self.inputs), len(self.outputs)
        nargs = self.nin + self.nout
        if pyfunc.__code__.co_argcount != nargs:
            raise TypeError(f"guvectorize: the layout {layout!r} has {nargs} arguments, {pyfunc.__name__} "
                            f"takes {pyfunc.__code__.co_argcount}")

    def add(self, sig):
        nargs = self.nin + self.nout
        args = _check_gufunc_sig(sig, nargs, self.pyfunc.__name__)
        core_dims = [len(d) for d in self.inputs + self.outputs]
        loop_types = _gufunc_arg_types(args, core_dims, sig)
        core = _device_function(self.pyfunc, cftypes.void(*args))
        names = [f"arg{i}" for i in range(nargs)]
        items = [_index_src(n, nd, t, "__tid__") for n, nd, t in zip(names, core_dims, args)]
        src = _CPU_GULOOP.format(name=self.pyfunc.__name__, args=", ".join(names), first=names[0],
                                 items=", ".join(items))
        loop = generated(src, f"__guloop_{self.pyfunc.__name__}", {"__core__": core})
        compiled = compile_host(loop, [t.spec for t in loop_types], self.pyfunc if self.cache else None,
                                owner=self.pyfunc)
        self.loops.append(([np.dtype(cftypes.as_dtype(t.dtype)).num for t in loop_types], compiled))

    def build(self):
        sig = ",".join(f"({','.join(d)})" for d in self.inputs) + "->" + ",".join(
            f"({','.join(d)})" for d in self.outputs)
        return _core.make_ufunc(self.pyfunc.__name__, self.pyfunc.__doc__ or "", self.nin, self.nout, self.loops,
                                self.identity, sig, self.parallel)


class GUFunc:
    """A lazy CPU generalised ufunc (guvectorize with a layout only): it
    compiles for the types of each call's arguments, which must include the
    outputs (their types cannot be inferred)."""

    def __init__(self, pyfunc, layout, identity=None, parallel=False, cache=False):
        self._builder = _CPUGUVectorize(pyfunc, layout, identity, parallel, cache)
        self._ufunc = None
        self._seen = set()
        self._lock = threading.RLock()
        functools.update_wrapper(self, pyfunc)
        self.py_func = pyfunc

    @property
    def ufunc(self):
        return self._ufunc

    @property
    def signature(self):
        return self._builder.layout

    def __call__(self, *args, **kws):
        b = self._builder
        outs = kws.get("out")
        given = list(args)
        if outs is not None:
            given += list(outs) if isinstance(outs, tuple) else [outs]
        if len(given) != b.nin + b.nout:
            raise TypeError(f"{self.__name__}: a guvectorize function compiled at call time must be given its "
                            f"output arrays too ({b.nin} inputs and {b.nout} outputs), since their types cannot "
                            "be inferred")
        core_dims = [len(d) for d in b.inputs + b.outputs]
        types = []
        for a, nd in zip(given, core_dims):
            if _is_scalar(a) and nd == 0:
                types.append(cftypes.from_dtype(_scalar_dtype(a)))
            else:
                dt = np.asarray(a).dtype
                types.append(cftypes.Array(cftypes.from_dtype(dt), max(nd, 1), "A"))
        key = tuple(t.spec for t in types)
        with self._lock:
            if key not in self._seen:
                b.add(tuple(types))
                self._seen.add(key)
                self._ufunc = b.build()
        return self._ufunc(*args, **kws)


class CUDAGUFunc:
    """A GPU generalised ufunc (numba-cuda's ``CUDAGeneralizedUFunc``)."""

    def __init__(self, pyfunc, layout):
        self.py_func = pyfunc
        self.__name__ = pyfunc.__name__
        self.__doc__ = pyfunc.__doc__
        self.layout = layout
        self.inputs, self.outputs = _parse_layout(layout)
        self.nin, self.nout = len(self.inputs), len(self.outputs)
        if pyfunc.__code__.co_argcount != self.nin + self.nout:
            raise TypeError(f"guvectorize: the layout {layout!r} has {self.nin + self.nout} arguments, "
                            f"{pyfunc.__name__} takes {pyfunc.__code__.co_argcount}")
        self.kernelmap = OrderedDict()  # input dtypes -> (output dtypes, signature args, core function)
        self._kernels = {}
        self._lock = threading.RLock()

    def __repr__(self):
        return f"<cuforge CUDA gufunc '{self.__name__}' {self.layout}>"

    def add(self, sig):
        nargs = self.nin + self.nout
        args = _check_gufunc_sig(sig, nargs, self.__name__)
        core_dims = [len(d) for d in self.inputs + self.outputs]
        loop_types = _gufunc_arg_types(args, core_dims, sig)
        core = _device_function(self.py_func, cftypes.void(*args))
        dtypes = [np.dtype(cftypes.as_dtype(t.dtype)) for t in loop_types]
        with self._lock:
            self.kernelmap[tuple(dtypes[: self.nin])] = (tuple(dtypes[self.nin:]), tuple(args), core)

    def _kernel(self, in_dtypes, pinned):
        key = (in_dtypes, pinned)
        k = self._kernels.get(key)
        if k is not None:
            return k
        cuda = _cuda()
        _, args, core = self.kernelmap[in_dtypes]
        core_dims = [len(d) for d in self.inputs + self.outputs]
        names = [f"arg{i}" for i in range(len(core_dims))]
        items = []
        for i, (n, nd, t) in enumerate(zip(names, core_dims, args)):
            if i < self.nin and pinned[i]:
                # the same operand for every iteration: its core array (a 1-element array for '()')
                items.append(n if nd > 0 else _index_src(n, 0, t, "0"))
            else:
                items.append(_index_src(n, nd, t, "__tid__"))
        count = f"{names[self.nin]}.shape[0]"
        src = _CUDA_GUKERNEL.format(name=self.__name__, args=", ".join(names), count=count, items=", ".join(items))
        fn = generated(src, f"__gufunc_{self.__name__}", {"__core__": core, "__cuda__": cuda})
        k = cuda.jit(fn)
        self._kernels[key] = k
        return k

    def _match(self, in_dtypes):
        if in_dtypes in self.kernelmap:
            return in_dtypes
        # numba-cuda's: the first signature whose types cast to the arguments'
        for sig in self.kernelmap:
            if all(np.can_cast(want, have) for want, have in zip(sig, in_dtypes)):
                return sig
        raise TypeError("no matching signature")

    def __call__(self, *args, out=None, stream=0):
        cuda = _cuda()
        nin, nout = self.nin, self.nout
        if out is None and len(args) not in (nin, nin + nout):
            def n_args(n):
                return f"{n} positional argument{'s' * (n != 1)}"
            raise TypeError(f"This gufunc accepts {n_args(nin)} (when providing input only) or "
                            f"{n_args(nin + nout)} (when providing input and output). Got {n_args(len(args))}.")
        if out is not None and len(args) > nin:
            raise ValueError("cannot specify argument 'out' as both positional and keyword")
        outputs = list(args[nin:]) if len(args) > nin else (
            list(out) if isinstance(out, tuple) else [out] * nout)
        if len(outputs) != nout:
            raise ValueError(f"{self.__name__}: expected {nout} output(s), got {len(outputs)}")
        outputs = [cuda.as_cuda_array(o) if (o is not None and cuda.is_cuda_array(o)
                                             and not isinstance(o, cuda.DeviceNDArray)) else o for o in outputs]
        user_outputs_host = all(o is None or not cuda.is_cuda_array(o) for o in outputs)
        inputs = [a if cuda.is_cuda_array(a) else np.asarray(a) for a in args[:nin]]
        inputs = [cuda.as_cuda_array(a) if (cuda.is_cuda_array(a) and not isinstance(a, cuda.DeviceNDArray))
                  else a for a in inputs]
        copy_back = user_outputs_host and not any(isinstance(a, cuda.DeviceNDArray) for a in inputs)
        # the schedule: core shapes by symbol, the loop dimensions, the operands pinned (the same every iteration)
        symbols, outer, inner = {}, [], []
        for i, (a, dims) in enumerate(zip(inputs, self.inputs)):
            shape = tuple(a.shape)
            if len(shape) < len(dims):
                raise ValueError(f"arg #{i + 1}: insufficient inner dimension")
            core = shape[len(shape) - len(dims):] if dims else ()
            for axis, (size, sym) in enumerate(zip(core, dims)):
                if sym.isdigit() and int(sym) != size:
                    raise ValueError(f"arg #{i + 1}: shape[{axis + len(shape) - len(dims)}] must be {sym}, is {size}")
                if symbols.setdefault(sym, size) != size:
                    raise ValueError(f"arg #{i + 1}: shape[{axis + len(shape) - len(dims)}] mismatch argument")
            outer.append(shape[: len(shape) - len(dims)])
            inner.append(core)
        try:
            oshapes = [tuple(int(s) if s.isdigit() else symbols[s] for s in dims) for dims in self.outputs]
        except KeyError as e:
            raise ValueError(f"{self.__name__}: the output dimension {e.args[0]!r} is not given by any input") from None
        sizes = [int(np.prod(s)) for s in outer]
        loopdims = outer[int(np.argmax(sizes))]
        pinned = []
        for i, d in enumerate(outer):
            if d == loopdims:
                pinned.append(False)
            elif d in ((1,), ()):
                pinned.append(True)
            else:
                raise ValueError(f"arg #{i + 1}: outer dimension mismatch")
        in_dtypes = self._match(tuple(np.dtype(a.dtype) for a in inputs))
        out_dtypes, _, _ = self.kernelmap[in_dtypes]
        out_shapes = [tuple(loopdims) + s for s in oshapes]
        for o, s in zip(outputs, out_shapes):
            if o is not None and tuple(o.shape) != s:
                raise ValueError("output shape mismatch")
        for i, dt in enumerate(in_dtypes):
            if inputs[i].dtype != dt:
                if isinstance(inputs[i], cuda.DeviceNDArray):
                    raise TypeError(f"arg #{i + 1} is a device array of {inputs[i].dtype}; the matching signature "
                                    f"takes {dt}")
                inputs[i] = inputs[i].astype(dt)
        loopn = int(np.prod(loopdims)) if loopdims else 1
        dev_outs = [cuda.device_array(s, dtype=dt, stream=stream) if (o is None or copy_back) else o
                    for o, s, dt in zip(outputs, out_shapes, out_dtypes)]
        operands = []
        for a, core, pin in zip(inputs, inner, pinned):
            if pin:
                a = a.reshape(core if core else (1,))
            else:
                a = a.reshape((loopn,) + core)
            if not isinstance(a, cuda.DeviceNDArray):
                a = cuda.to_device(np.ascontiguousarray(a), stream=stream)
            operands.append(a)
        kouts = [o.reshape((loopn,) + s) for o, s in zip(dev_outs, oshapes)]
        if loopn > 0:
            kernel = self._kernel(in_dtypes, tuple(pinned))
            kernel.forall(loopn, stream=stream)(*operands, *kouts)
        if copy_back:
            results = [o.copy_to_host(u, stream=stream) if u is not None else o.copy_to_host(stream=stream)
                       for o, u in zip(dev_outs, outputs)]
        elif outputs[0] is not None:
            results = outputs
        else:
            results = dev_outs
        return results[0] if len(results) == 1 else tuple(results)


# --- the decorators --------------------------------------------------------------------------


def _check_options(options, where):
    nopython = options.pop("nopython", True)
    options.pop("forceobj", None)
    options.pop("locals", None)
    options.pop("fastmath", None)
    options.pop("writable_args", None)
    if not nopython:
        raise TypeError(f"{where}: cuforge compiles in nopython mode only (object mode has no compiler here)")
    if options:
        raise TypeError(f"{where}: unsupported option(s): {', '.join(sorted(options))}")


def vectorize(ftylist_or_function=(), identity=None, target="cpu", cache=False, **options):
    """numba's ``vectorize``: a ufunc from a scalar function.

    With signatures (``['float32(float32, float32)', ...]``) the loops are
    compiled now; without, on the first call with new argument types. Targets:
    ``'cpu'`` and ``'parallel'`` give a ``numpy.ufunc`` (a lazy one gives a
    ``DUFunc`` around it), ``'cuda'`` a GPU ufunc."""
    kind = _target_of(target)
    _check_options(dict(options), "vectorize")
    if cache and kind == "cuda":
        raise TypeError("caching is not supported")  # numba-cuda's answer for GPU ufuncs

    def wrap(func, sigs):
        if kind == "cuda":
            uf = CUDAUFunc(func, identity)
            for s in sigs:
                uf.add(s)
            if sigs:
                uf.disable_compile()
            return uf
        if not sigs:
            return DUFunc(func, identity, kind == "parallel", cache)
        builder = _CPUVectorize(func, identity, kind == "parallel", cache)
        for s in sigs:
            builder.add(s)
        return builder.build()

    if callable(ftylist_or_function) and not isinstance(ftylist_or_function, (cftypes.Type, cftypes.Signature)):
        return wrap(ftylist_or_function, [])
    sigs = _signature_list(ftylist_or_function)
    if kind == "parallel" and not sigs:
        raise TypeError("vectorize(target='parallel') needs its signatures (as numba's does)")
    return lambda func: wrap(func, sigs)


def guvectorize(*args, identity=None, target="cpu", cache=False, **options):
    """numba's ``guvectorize(ftylist, layout, target=...)``: a generalised
    ufunc whose function writes its outputs (given as its last arguments).
    ``guvectorize(layout)`` alone compiles at call time (the outputs must then
    be passed)."""
    kind = _target_of(target)
    _check_options(dict(options), "guvectorize")
    if cache and kind == "cuda":
        raise TypeError("caching is not supported")  # numba-cuda's answer for GPU gufuncs
    if len(args) == 1:
        sigs, layout = [], args[0]
    elif len(args) == 2:
        sigs, layout = _signature_list(args[0]), args[1]
    else:
        raise TypeError("guvectorize() takes one or two positional arguments (the signatures and the layout)")
    _parse_layout(layout)  # a bad layout fails at decoration

    def wrap(func):
        if kind == "cuda":
            if not sigs:
                raise TypeError("guvectorize(target='cuda') needs its signatures")
            uf = CUDAGUFunc(func, layout)
            for s in sigs:
                uf.add(s)
            return uf
        if not sigs:
            return GUFunc(func, layout, identity, kind == "parallel", cache)
        builder = _CPUGUVectorize(func, layout, identity, kind == "parallel", cache)
        for s in sigs:
            builder.add(s)
        return builder.build()

    return wrap


def cuda_vectorize(ftylist_or_function=(), target="cuda", **kws):
    """``numba.cuda.vectorize``: vectorize with the CUDA target by default."""
    return vectorize(ftylist_or_function, target=target, **kws)


def cuda_guvectorize(*args, target="cuda", **kws):
    """``numba.cuda.guvectorize``: guvectorize with the CUDA target by default."""
    return guvectorize(*args, target=target, **kws)
