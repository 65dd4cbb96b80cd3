"""``cuda.jit``: the decorator, the dispatcher's Python face, and compile_ptx.

A ``Dispatcher`` holds the Python function, its compile options and (for
kernels) the C++ launch path, ``_core.Dispatcher``: a launch classifies the
arguments in C++ and finds the specialisation for their types; only a new
combination of types comes back to Python (``_compile_specs``), which builds
the function's IR once (the walker) and calls ``_core.compile``.
"""

from __future__ import annotations

import collections
import functools
import inspect
import re
import sys
import threading
import types as pytypes
import warnings
import weakref
from dataclasses import dataclass, fields
from typing import Optional

from cuforge import _core, _log
from cuforge import types as cftypes
from cuforge.cuda import _cache, _ffi
from cuforge.cuda._compiler import build_ir
from cuforge.cuda._compiler import walker as _walker

__all__ = ["Dispatcher", "compile_ptx", "compile_ptx_for_current_device", "jit"]

_missing_launch_config = """
Kernel launch configuration was not specified. Use the syntax:

kernel_function[blockspergrid, threadsperblock](arg0, arg1, ..., argn)
"""

#: Threads per block of ``forall`` when none is given.
FORALL_THREADS_PER_BLOCK = 256


@dataclass(frozen=True)
class CompileOptions:
    """The user's compile options (``cuda.jit``'s and ``compile_ptx``'s);
    ``config()`` makes the C++ compile configuration from them."""

    debug: bool = False
    lineinfo: bool = False
    fastmath: bool = False
    opt: bool = True
    max_registers: Optional[int] = None
    cc: Optional[tuple] = None
    launch_bounds: Optional[tuple] = None  # (max threads per block, min blocks per SM, max blocks per cluster)
    boundscheck: bool = False
    abi: Optional[str] = None  # a device function's entry: "numba" (by default) or "c" (compile_ptx, compile)
    abi_name: Optional[str] = None  # its symbol (abi_info={"abi_name": ...})

    def as_dict(self):
        """The options that are set, by name (what the decorator was given)."""
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        return {k: v for k, v in d.items() if v is not None}

    def host_config(self, error_model="numpy"):
        """The configuration of host-only code (the host jit, vectorize's
        CPU loops): the host target, host-only functions allowed; Numba's
        ``error_model`` ("python": a zero divisor raises, the host jit's
        default; "numpy": inf, nan or 0, vectorize's)."""
        kw = dict(fastmath=self.fastmath, debug_level=1 if self.debug else 0, lineinfo=self.lineinfo, opt=self.opt,
                  boundscheck=self.boundscheck)
        return _core.CompileConfig(target="host", host_only=True, error_model=error_model, **kw)

    def config(self, target=None):
        """The ``_core.CompileConfig`` for these options: for the active
        backend's kernels (its target, and on a GPU the current device's
        compute capability) when ``target`` is None, else for ``target``
        ("nvptx", at ``cc``, sm_90 when not given)."""
        kw = dict(fastmath=self.fastmath, debug_level=1 if self.debug else 0, lineinfo=self.lineinfo, opt=self.opt,
                  max_registers=self.max_registers or 0, launch_bounds=self.launch_bounds or (0, 0, 0),
                  boundscheck=self.boundscheck)
        if target is None:
            _log.backend_chosen()
            return _core.CompileConfig(**kw).for_active_backend()
        return _core.CompileConfig(target=target, cc=self.cc, abi=self.abi or "numba", abi_name=self.abi_name or "",
                                   **kw)


def _compile(pyfunc, specs, config, device: bool, ret_spec=None, link=(), lto=False):
    """One specialisation through the C++ compiler; `ret_spec` fixes a
    device function's return type (an eager signature's); `link` names the
    files the kernel links (cuda.jit(link=...)), `lto` asks nvJitLink for
    link-time optimisation."""
    if link or lto:
        cf = _core.compile(build_ir(pyfunc), list(specs), config, device, ret_spec, list(link), bool(lto))
    else:
        cf = _core.compile(build_ir(pyfunc), list(specs), config, device, ret_spec)
    if _walker._frontend() == "compare":
        _compare_frontends(pyfunc, specs, config, device, ret_spec, cf)
    return cf


_MODULE_NAME = re.compile(r"cuforge_(\w+?)_[0-9a-f]{16}")
_TEMP = re.compile(r"\$t\d+")


class _Renumber:
    """re.sub's replacement numbering temporaries ($t7) in order of first appearance."""

    def __init__(self):
        self.names = {}

    def __call__(self, m):
        return self.names.setdefault(m.group(0), f"$t{len(self.names)}")


_LOCAL = re.compile(r"%[-a-zA-Z$._0-9]+|^[-a-zA-Z$._0-9]+(?=:)", re.M)


def _normal_llvm(text):
    """LLVM IR without what names the build (the module's name carries the fingerprint's hash),
    and with each function's local values and blocks renumbered in order of first appearance:
    their names are the optimiser's bookkeeping (SROA numbers the slices of what it has seen, dead
    code included), not the code."""
    lines = [ln for ln in text.splitlines() if not ln.startswith(("; ModuleID", "source_filename"))]
    out, names = [], {}
    for ln in lines:
        if ln.startswith("define "):
            names = {}
        if names is not None and not ln.startswith(("declare ", "attributes ", "!")):
            ln = _LOCAL.sub(lambda m: names.setdefault(m.group(0).lstrip("%"), f"%v{len(names)}")
                            if m.group(0).startswith("%") else names.setdefault(m.group(0), f"%v{len(names)}")[1:],
                            ln)
        out.append(ln)
    return _MODULE_NAME.sub(r"cuforge_\1_H", "\n".join(out))


def _compare_frontends(pyfunc, specs, config, device, ret_spec, cf):
    """CUFORGE_FRONTEND=compare: the specialisation compiled again from
    the function's bytecode (bytecode.py) and compared with the one from its
    source: the typed IR, else the optimised LLVM IR, must be the same. One
    JSON line per compile goes to the file CUFORGE_FRONTEND_REPORT names
    (tests/python/compiler/test_bytecode_frontend.py reads it)."""
    import json
    import os

    from cuforge.cuda._compiler import build_ir_canonical, build_ir_from_bytecode
    from cuforge.cuda._errors import TypingError

    def typed(ir):
        return _TEMP.sub(_Renumber(), _core.compile(ir, list(specs), config, device, ret_spec).types_dump)

    record = {"function": pyfunc.__qualname__, "file": pyfunc.__code__.co_filename,
              "line": pyfunc.__code__.co_firstlineno, "specs": list(specs), "device": bool(device)}
    try:
        other = _core.compile(build_ir_from_bytecode(pyfunc), list(specs), config, device, ret_spec)
    except Exception as e:  # the source front compiled it: the bytecode front must too
        record.update(agree="refused", error=f"{type(e).__name__}: {e}")
        # unless CPython dropped code the source front typed (after a
        # return, under `while False:`): the source without it fails alike
        try:
            typed(build_ir_canonical(pyfunc))
        except TypingError:
            # (the messages may differ: the bytecode marks a local whose only
            # assignment CPython dropped; the canonical source has none)
            if isinstance(e, TypingError) and "could not read the bytecode" not in e.msg:
                record["agree"] = "canonical"
        except Exception:
            pass
    else:
        if other.types_dump == cf.types_dump:
            record["agree"] = "typed"
        elif _normal_llvm(other.llvm) == _normal_llvm(cf.llvm):
            record["agree"] = "llvm"
        else:
            # Where CPython's bytecode cannot keep the source's shape, both
            # trees in canonical.py's one spelling (temporaries renumbered).
            try:
                a, b = typed(build_ir_canonical(pyfunc)), typed(build_ir_from_bytecode(pyfunc, canonical=True))
            except Exception as e:
                a, b = None, f"{type(e).__name__}: {e}"
            if a is not None and a == b:
                record["agree"] = "canonical"
            else:
                record.update(agree="differ", source=cf.types_dump, bytecode=other.types_dump,
                              canonical_source=a, canonical_bytecode=b)
    path = os.environ.get("CUFORGE_FRONTEND_REPORT")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
    elif record["agree"] not in ("typed", "llvm", "canonical"):
        raise AssertionError(f"the two frontends disagree on {pyfunc.__qualname__}: {record}")


def _spec_key(signature) -> tuple:
    """A definition's key from what inspect_*() are given: a Signature, a
    tuple of types, or a tuple of specs."""
    if isinstance(signature, (str, cftypes.Signature)):
        args, _ = cftypes.normalize_signature(signature)
        return tuple(a.spec for a in args)
    return tuple(a.spec if isinstance(a, cftypes.Type) else str(a) for a in signature)


def _rebuild_dispatcher(py_func, device, options, targetoptions, source=None):
    if source is not None:
        try:
            inspect.getsourcelines(py_func)
        except (OSError, TypeError):
            py_func.__cuforge_source__ = source
    return Dispatcher(py_func, device=device, options=options, targetoptions=targetoptions)


class Dispatcher:
    """A ``@cuda.jit`` function: a kernel (launched with
    ``kernel[griddim, blockdim, stream, sharedmem](args)``) or a device
    function (called from kernels)."""

    def __init__(self, py_func, device=False, options=CompileOptions(), targetoptions=None):
        if not isinstance(py_func, pytypes.FunctionType):
            raise TypeError(f"cuda.jit compiles Python functions, not {type(py_func).__name__}")
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self.device = bool(device)
        self._options = options
        self.targetoptions = dict(targetoptions or {}, device=self.device)
        self._lock = threading.RLock()
        self._native = None
        self._device_definitions = {}  # device functions: spec tuple -> CompiledFunction
        self._can_compile = True
        self._specialized = False
        self.specializations = {}  # spec tuple -> specialised Dispatcher (numba's specialize())
        self._configs = {}  # (blocks, threads) -> its _LaunchConfiguration, made once
        # Files the kernel links (cuda.jit(link=...)), and nvJitLink's link-time optimisation.
        self._link = tuple(self.targetoptions.get("link") or ())
        self._lto = bool(self.targetoptions.get("lto"))
        # Argument handlers (cuda.jit(extensions=[...])): each launch's arguments go through them.
        self._extensions = tuple(self.targetoptions.get("extensions") or ())
        # The disk cache (cache=True): kernels only; a device function is
        # compiled into each kernel that calls it (and keys it).
        self._disk_cache = _cache.DiskCache(py_func) if self.targetoptions.get("cache") and not self.device else None

    def __repr__(self):
        kind = "device function" if self.device else "kernel"
        return f"<cuforge.cuda.jit {kind} {self.py_func.__module__}.{self.py_func.__qualname__}>"

    def __reduce__(self):
        # To another process (multiprocessing, Dask's workers): the Python
        # function, its source (cloudpickle rebuilds functions defined in a
        # script without one) and the options; it compiles there on first use.
        module = sys.modules.get(self.py_func.__module__)
        if module is not None and self.py_func.__module__ != "__main__":
            target = module
            for part in self.py_func.__qualname__.split("."):
                target = getattr(target, part, None)
            if target is self:
                return self.py_func.__qualname__  # importable by name: pickled by reference
        source = getattr(self.py_func, "__cuforge_source__", None)
        if source is None:
            try:
                lines, first = inspect.getsourcelines(self.py_func)
                source = (self.py_func.__code__.co_filename, first, tuple(lines))
            except (OSError, TypeError):
                source = None
        return (_rebuild_dispatcher, (self.py_func, self.device, self._options, self.targetoptions, source))

    def __get__(self, obj, objtype=None):
        return self if obj is None else pytypes.MethodType(self, obj)

    # --- the IR ---------------------------------------------------------------------

    @property
    def function_ir(self):
        """The untyped IR (``_core.FunctionIR``; ``.dump()`` prints it)."""
        return build_ir(self.py_func)

    # --- compiling --------------------------------------------------------------------

    def _native_dispatcher(self):
        with self._lock:
            if self._native is None:
                # The native dispatcher calls back through a weak reference:
                # a strong one would close a cycle through C++ that the
                # garbage collector cannot see, and no kernel would ever die.
                self._native = _core.Dispatcher(_weak_compile_specs(weakref.ref(self)), self.py_func.__qualname__)
                if not self._can_compile:
                    self._native.set_lazy(False)
            return self._native

    def _compile_specs(self, specs, ret_spec=None):
        """The C++ launcher's callback for argument types it has not seen
        (and compile()'s): from the disk cache when it has them, else compiled
        (and stored there with cache=True)."""
        started = _log.now()
        config = self._options.config()
        kind = "device function" if self.device else "kernel"
        cache = self._disk_cache
        link, lto = self._link, self._lto
        if cache is None or link:
            cf = _compile(self.py_func, specs, config, self.device, ret_spec, link, lto)
            _log.compiled(kind, self.py_func, specs, config, started, "off")
            return cf
        pyfunc, device = self.py_func, self.device
        cf = cache.load(specs, ret_spec, config, lambda: _compile(pyfunc, specs, config, device, ret_spec))
        if cf is not None:
            _log.compiled(kind, self.py_func, specs, config, started, "hit")
            return cf
        cf = _compile(pyfunc, specs, config, device, ret_spec)
        if cf.link or cf.uses_overloads:
            # Code linking C/C++ (docs/interop_c.md), or made in part by a library's overloads
            # (docs/extending.md), depends on more than the kernel's source: compiled in each process.
            _log.compiled(kind, self.py_func, specs, config, started, "off (links files or uses overloads)")
            return cf
        cache.save(specs, ret_spec, config, cf)
        _log.compiled(kind, self.py_func, specs, config, started, "miss, stored")
        return cf

    @property
    def stats(self):
        """Disk-cache counters, as numba's ``kernel.stats``: ``cache_path``,
        and ``cache_hits`` / ``cache_misses`` (Counters keyed by argument
        types); empty without ``cache=True``."""
        if self._disk_cache is None:
            return _cache.CacheStats(None, collections.Counter(), collections.Counter())
        return self._disk_cache.stats(lambda specs: tuple(cftypes.from_spec(s) for s in specs))

    def compile(self, sig):
        """Compiles the specialisation for ``sig`` (a signature string, a
        Signature or a tuple of argument types) unless it exists; returns it."""
        args, ret = cftypes.normalize_signature(sig)
        if not self.device and ret is not None and ret != cftypes.void:
            raise TypeError("CUDA kernel must have void return type.")
        specs = tuple(a.spec for a in args)
        with self._lock:
            existing = self._definitions_by_spec().get(specs)
            if existing is not None:
                return existing
            if not self._can_compile:
                raise RuntimeError("Compilation disabled")
            ret_spec = ret.spec if (self.device and ret is not None) else None
            cf = self._compile_specs(list(specs), ret_spec)
            if self.device:
                self._device_definitions[specs] = cf
            else:
                self._native_dispatcher().add(cf)
            return cf

    def compile_device(self, args, return_type=None):
        """Numba's name for compiling a device function for argument types."""
        return self.compile(cftypes.Signature(return_type, args) if return_type is not None else tuple(args))

    def disable_compile(self, val=True):
        """Stops (or resumes) compiling new specialisations at launch: with
        eager signatures, arguments must fit one of them."""
        with self._lock:
            self._can_compile = not val
            if self._native is not None:
                self._native.set_lazy(not val)

    def specialize(self, *args):
        """A dispatcher compiled for exactly the types of ``args``."""
        if self.device:
            raise TypeError(f"{self.py_func.__qualname__} is a device function: only kernels are specialised")
        if self._specialized:
            raise RuntimeError("Dispatcher already specialized")
        specs = tuple(_core.typeof(a) for a in args)  # the launcher's own classification: keys agree
        with self._lock:
            got = self.specializations.get(specs)
            if got is not None:
                return got
            d = Dispatcher(self.py_func, False, self._options, self.targetoptions)
            cf = self._definitions_by_spec().get(specs) or self._compile_specs(list(specs))
            d._native_dispatcher().add(cf)
            d.disable_compile()
            d._specialized = True
            self.specializations[specs] = d
            return d

    @property
    def specialized(self):
        """Whether this dispatcher was made by specialize() (one signature)."""
        return self._specialized

    # --- what was compiled ----------------------------------------------------------------

    def _definitions_by_spec(self):
        if self.device:
            return dict(self._device_definitions)
        if self._native is None:
            return {}
        return {tuple(k): v for k, v in self._native.specializations.items()}

    @property
    def definitions(self):
        """Every specialisation: argument types (a tuple of cuforge.types) ->
        the compiled function."""
        return {tuple(cftypes.from_spec(s) for s in k): v for k, v in self._definitions_by_spec().items()}

    overloads = definitions

    @property
    def signatures(self):
        """The argument types of every specialisation."""
        return list(self.definitions)

    def _select(self, signature, get):
        defs = self._definitions_by_spec()
        if signature is not None:
            key = _spec_key(signature)
            if key not in defs:
                raise KeyError(f"{self.py_func.__qualname__} has no definition for ({', '.join(key)})")
            return get(defs[key])
        return {tuple(cftypes.from_spec(s) for s in k): get(v) for k, v in defs.items()}

    def inspect_types(self, file=None, signature=None):
        """Prints the typed IR of each specialisation (or of ``signature``'s)."""
        file = sys.stdout if file is None else file
        dumps = self._select(signature, lambda cf: cf.types_dump)
        if signature is not None:
            dumps = {tuple(cftypes.from_spec(s) for s in _spec_key(signature)): dumps}
        for args, text in dumps.items():
            print(f"{self.py_func.__name__} ({', '.join(str(a) for a in args)})", file=file)
            print("-" * 80, file=file)
            print(text, file=file)
            print("=" * 80, file=file)

    # --- resources, as numba-cuda's dispatcher reports them (the kernel loaded on the current device) ---

    def _resource(self, signature, key):
        if self.device:
            raise TypeError(f"{self.py_func.__qualname__} is a device function: it has no kernel resources")
        if signature is None and self._specialized:
            (cf,) = self._definitions_by_spec().values()
            return cf.attributes()[key]
        return self._select(signature, lambda cf: cf.attributes()[key])

    def get_regs_per_thread(self, signature=None):
        """Registers per thread of ``signature``'s specialisation on the current device (a dict of
        every specialisation's without one, unless this dispatcher is specialised)."""
        return self._resource(signature, "num_registers")

    def get_shared_mem_per_block(self, signature=None):
        """Bytes of static shared memory per block (as get_regs_per_thread answers)."""
        return self._resource(signature, "static_shared_bytes")

    def get_local_mem_per_thread(self, signature=None):
        """Bytes of local memory per thread (as get_regs_per_thread answers)."""
        return self._resource(signature, "local_bytes")

    def get_const_mem_size(self, signature=None):
        """Bytes of constant memory (as get_regs_per_thread answers)."""
        return self._resource(signature, "const_bytes")

    def get_max_threads_per_block(self, signature=None):
        """The most threads a block of the kernel may have on the current device (as
        get_regs_per_thread answers)."""
        return self._resource(signature, "max_threads_per_block")

    def inspect_llvm(self, signature=None):
        """The LLVM IR of ``signature``'s specialisation, or a dict of all."""
        return self._select(signature, lambda cf: cf.llvm)

    def inspect_asm(self, signature=None):
        """The PTX of ``signature``'s specialisation, or a dict of all."""
        return self._select(signature, lambda cf: cf.ptx)

    # --- launching --------------------------------------------------------------------------

    def __call__(self, *args, **kwargs):
        if self.device:
            raise ValueError(
                f"{self.py_func.__qualname__} is a device function (@cuda.jit(device=True)): it can only be "
                "called from a kernel or another device function, not from the host"
            )
        raise ValueError(_missing_launch_config)

    def __getitem__(self, config):
        # `kernel[blocks, threads](...)` in a loop: the launcher for plain
        # dimensions (ints, or tuples of 1 to 3 ints) is made once. Only exact
        # ints are keys, so an equal float or bool still meets the launcher's
        # type check; streams are never kept.
        if type(config) is tuple and len(config) == 2:
            g, b = config
            if (type(g) is int or _plain_dims(g)) and (type(b) is int or _plain_dims(b)):
                got = self._configs.get(config)
                if got is None:
                    got = self.configure(g, b)
                    if len(self._configs) < 256:
                        self._configs[config] = got
                return got
        if not isinstance(config, tuple) or len(config) not in (2, 3, 4):
            raise ValueError("must specify at least the griddim and blockdim: kernel[griddim, blockdim]"
                             " (optionally then the stream and the dynamic shared memory bytes)")
        return self.configure(*config)

    def configure(self, griddim, blockdim, stream=0, sharedmem=0):
        """A launcher for this grid: ``configure(g, b)(args)`` is ``kernel[g, b](args)``."""
        if self.device:
            raise TypeError(f"{self.py_func.__qualname__} is a device function: it cannot be launched")
        if griddim is None or blockdim is None:
            raise ValueError(_missing_launch_config)
        if self._extensions:
            return _ExtendedLaunch(self, griddim, blockdim, stream, sharedmem)
        return _LaunchConfiguration(self, griddim, blockdim, stream, sharedmem)

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """A launcher over ``ntasks`` threads (the kernel maps cuda.grid(1) to
        a task and ignores threads past ``ntasks``); blocks of ``tpb``
        threads, FORALL_THREADS_PER_BLOCK when not given."""
        if self.device:
            raise TypeError(f"{self.py_func.__qualname__} is a device function: it cannot be launched")
        return _ForAll(self, ntasks, tpb, stream, sharedmem)

    def _launch(self, args, griddim, blockdim, stream, sharedmem):
        native = self._native or self._native_dispatcher()  # no lock once made: launches are the hot path
        if not self._extensions:
            native.launch(args, griddim, blockdim, stream, sharedmem)
            return
        retr = []
        args = _prepare_args(self._extensions, args, stream, retr)
        native.launch(args, griddim, blockdim, stream, sharedmem)
        for writeback in retr:
            writeback()


def _prepare_args(extensions, args, stream, retr):
    """Each argument through each extension's ``prepare_args(ty, val, stream=, retr=)``, in order, as
    numba-cuda does: a handler returns ``(ty, val)``, the value to pass and its type (a scalar type
    converts the value to it); callbacks it appends to ``retr`` run after the launch."""
    import numpy as np

    prepared = []
    for val in args:
        try:
            ty = cftypes.from_spec(_core.typeof(val))
        except Exception:
            ty = None  # an object only a handler knows
        for ext in extensions:
            ty, val = ext.prepare_args(ty, val, stream=stream, retr=retr)
        if isinstance(ty, (cftypes.Integer, cftypes.Float, cftypes.Complex, cftypes.Boolean)) and not hasattr(
                val, "__cuda_array_interface__"):
            val = np.asarray(val).astype(np.dtype(ty.typestr))[()]  # wrapped, as numba-cuda's ctypes values are
        prepared.append(val)
    return tuple(prepared)


def _weak_compile_specs(ref):
    def compile_specs(specs, ret_spec=None):
        dispatcher = ref()
        if dispatcher is None:
            raise ReferenceError("the @cuda.jit function this launcher belonged to no longer exists")
        return dispatcher._compile_specs(specs, ret_spec)
    return compile_specs


def _normalize_dim(dim, what):
    if isinstance(dim, (tuple, list)):
        dims = list(dim)
    else:
        dims = [dim]
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"{what} must be a sequence of 1, 2 or 3 integers, got {dim!r}")
    for v in dims:
        if isinstance(v, bool) or not hasattr(v, "__index__"):
            raise TypeError(f"{what} must be a sequence of integers, got {dim!r}")
    return tuple(int(v) for v in dims) + (1,) * (3 - len(dims))


def _plain_dims(d) -> bool:
    """A tuple of 1 to 3 exact ints: launch dimensions a kept launcher may be found by."""
    return type(d) is tuple and 0 < len(d) <= 3 and all(type(v) is int for v in d)


class _LaunchConfiguration(_core.Launcher):
    """``kernel[griddim, blockdim, stream, sharedmem]``: call it with the
    arguments. Calling goes straight to the C++ launcher (``_core.Launcher``),
    which checks the dimensions and the stream."""

    __slots__ = ("dispatcher",)

    def __init__(self, dispatcher, griddim, blockdim, stream, sharedmem):
        native = dispatcher._native or dispatcher._native_dispatcher()  # (made once, under its lock)
        super().__init__(native, griddim, blockdim, stream, sharedmem)
        self.dispatcher = dispatcher

    # Read-only: a configuration may be shared (Dispatcher.__getitem__ keeps them).
    @property
    def stream(self):
        return self._stream

    @property
    def sharedmem(self):
        return self._sharedmem

    @property
    def griddim(self):
        return _normalize_dim(self._griddim, "griddim")

    @property
    def blockdim(self):
        return _normalize_dim(self._blockdim, "blockdim")

    def __repr__(self):
        stream = self._stream
        stream_text = "default" if stream is None or (type(stream) is int and stream == 0) else repr(stream)
        return (f"<launch of {self.dispatcher.py_func.__qualname__!r}: griddim={self.griddim}, "
                f"blockdim={self.blockdim}, stream={stream_text}, sharedmem={self._sharedmem}>")


class _ExtendedLaunch:
    """``kernel[griddim, blockdim, ...]`` of a kernel with argument handlers (cuda.jit(extensions=...)):
    the arguments go through them before the launch."""

    __slots__ = ("dispatcher", "griddim", "blockdim", "stream", "sharedmem")

    def __init__(self, dispatcher, griddim, blockdim, stream, sharedmem):
        self.dispatcher = dispatcher
        self.griddim = griddim
        self.blockdim = blockdim
        self.stream = stream
        self.sharedmem = sharedmem

    def __call__(self, *args):
        self.dispatcher._launch(args, self.griddim, self.blockdim, self.stream, self.sharedmem)


class _ForAll:
    """``kernel.forall(ntasks, tpb=0, stream=0, sharedmem=0)``: enough blocks
    of ``tpb`` threads for ``ntasks``. Without ``tpb``, on a GPU the block
    size that gives the specialisation the most resident threads
    (cuOccupancyMaxPotentialBlockSize's answer, computed once per
    specialisation and shared memory size); on the cpu backend
    FORALL_THREADS_PER_BLOCK, so that blocks spread over the cores."""

    def __init__(self, dispatcher, ntasks, tpb, stream, sharedmem):
        if ntasks < 0:
            raise ValueError(f"Can't create ForAll with negative task count: {ntasks}")
        self.dispatcher = dispatcher
        self.ntasks = int(ntasks)
        self.thread_per_block = int(tpb)
        self.stream = stream
        self.sharedmem = sharedmem

    @property
    def blockdim(self):
        """The block size when it does not depend on the arguments: ``tpb``, or the cpu backend's choice."""
        return self.thread_per_block or FORALL_THREADS_PER_BLOCK

    @property
    def griddim(self):
        return (self.ntasks + self.blockdim - 1) // self.blockdim

    def __repr__(self):
        tpb = self.thread_per_block or ("by occupancy" if _core.backend() == "cuda" else FORALL_THREADS_PER_BLOCK)
        return (f"<forall of {self.dispatcher.py_func.__qualname__!r}: {self.ntasks} tasks, threads per block "
                f"{tpb}, sharedmem={self.sharedmem}>")

    def _block_size(self, args):
        if self.thread_per_block:
            return self.thread_per_block
        if _core.backend() != "cuda":
            bound = (self.dispatcher._options.launch_bounds or (0,))[0]
            return min(FORALL_THREADS_PER_BLOCK, bound) if bound else FORALL_THREADS_PER_BLOCK
        d = self.dispatcher
        native = d._native or d._native_dispatcher()
        compiled = native.find(tuple(args))
        key = (compiled.symbol, int(self.sharedmem or 0))
        sizes = d.__dict__.setdefault("_forall_block_sizes", {})
        tpb = sizes.get(key)
        if tpb is None:
            tpb = sizes[key] = compiled.max_potential_block_size(int(self.sharedmem or 0))
        return tpb

    def __call__(self, *args):
        if self.ntasks == 0:
            return
        d = self.dispatcher
        if not d._extensions:
            tpb = self._block_size(args)
            d._launch(args, (self.ntasks + tpb - 1) // tpb, tpb, self.stream, self.sharedmem)
            return
        # Argument handlers first: the block size is the compiled kernel's, for the prepared arguments.
        retr = []
        args = _prepare_args(d._extensions, args, self.stream, retr)
        tpb = self._block_size(args)
        native = d._native or d._native_dispatcher()
        native.launch(args, (self.ntasks + tpb - 1) // tpb, tpb, self.stream, self.sharedmem)
        for writeback in retr:
            writeback()


# --- the decorator ---------------------------------------------------------------------------


def _launch_bounds(value):
    """numba-cuda's launch_bounds (an int, or a tuple of one to three: max threads per block, min
    blocks per multiprocessor, max blocks per cluster) as the three, 0 for those not given."""
    if value is None:
        return None
    bounds = (value,) if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(bounds, tuple) or not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds):
        raise TypeError(f"launch_bounds must be an int or a tuple of ints, not {value!r}")
    if len(bounds) > 3:
        raise ValueError(f"Got {len(bounds)} launch bounds: {bounds}. A maximum of three are supported: "
                         "(max_threads_per_block, min_blocks_per_sm, max_blocks_per_cluster)")
    if not bounds or any(b <= 0 for b in bounds) or bounds[0] > 1024:
        raise ValueError(f"launch_bounds {value!r}: each bound must be positive, and at most 1024 threads per block")
    return tuple(bounds) + (0,) * (3 - len(bounds))


def jit(func_or_sig=None, device=False, inline=False, forceinline=False, link=(), debug=None, opt=None,
        lineinfo=False, cache=False, fastmath=False, max_registers=None, launch_bounds=None, lto=None,
        boundscheck=None, **kws):
    """Compiles a Python function for the GPU (and the cpu backend), as
    numba.cuda.jit does.

    Forms: ``@cuda.jit``, ``@cuda.jit()``, ``@cuda.jit(sig)``,
    ``@cuda.jit([sig1, sig2])``, ``@cuda.jit('void(float32[:])')``,
    ``@cuda.jit(device=True)``. With signatures the function is compiled now,
    for them only; without, at each launch with new argument types.

    Options: ``device``, ``debug`` (assertions checked, ``raise`` reported,
    ZeroDivisionError for a zero divisor, array indices checked, debug info;
    implies ``opt=False`` unless given), ``boundscheck`` (array indices
    checked: an IndexError naming the index, axis, array and thread; beyond
    numba-cuda, which refuses it), ``lineinfo``, ``fastmath``, ``opt``,
    ``max_registers``, ``cache`` (kernels are stored on disk and loaded by
    later processes: docs/compiler.md, "Disk cache"; ``kernel.stats``
    counts hits and misses), ``launch_bounds`` (an int or a tuple of up to
    three: max threads per block, min blocks per multiprocessor, max blocks
    per cluster; ``.maxntid``/``.minnctapersm``/``.maxclusterrank`` in the PTX,
    and a launch of a larger block is refused on every backend), ``link``
    (files of CUDA C/C++, PTX, cubin, fatbin, LTO-IR, objects or archives,
    or in-memory ``cuda.CUSource``... the kernel is linked with: on a GPU by
    nvJitLink, ``.cu`` compiled by NVRTC; on the cpu backend, C/C++ sources
    by the host's compiler: docs/interop_c.md), ``lto`` (nvJitLink's
    link-time optimisation of the linked sources), ``extensions`` (argument
    handlers: objects whose ``prepare_args(ty, val, stream=, retr=)`` each
    launch's arguments go through, as in numba-cuda). ``inline`` and
    ``forceinline`` are accepted and have no effect."""
    for name in ("argtypes", "restype", "bind"):
        if kws.pop(name, None) is not None:
            raise TypeError(f"cuda.jit: the {name!r} keyword was removed from Numba; pass the signature as the first "
                            "argument")
    extensions = kws.pop("extensions", None) or ()
    if not isinstance(extensions, (list, tuple)):
        raise TypeError(f"cuda.jit(extensions=...) takes a list of argument handlers, not {type(extensions).__name__}")
    for ext in extensions:
        if not callable(getattr(ext, "prepare_args", None)):
            raise TypeError(f"cuda.jit(extensions=...): {ext!r} has no prepare_args(ty, val, stream=, retr=) method")
    if kws:
        raise TypeError(f"cuda.jit() got an unexpected keyword argument {next(iter(kws))!r}")
    if link:
        if device:
            raise ValueError("link keyword invalid for device function")
        link = _ffi.link_paths(link, "cuda.jit")
    debug = bool(debug)
    if debug and opt:
        warnings.warn("debug=True with opt=True: the debug information may be inaccurate; set opt=False",
                      stacklevel=2)
    opt = (not debug) if opt is None else bool(opt)
    if max_registers is not None and (isinstance(max_registers, bool) or not isinstance(max_registers, int)
                                      or max_registers <= 0):
        raise ValueError(f"max_registers must be a positive int, not {max_registers!r}")
    bounds = _launch_bounds(launch_bounds)
    options = CompileOptions(debug=debug, lineinfo=bool(lineinfo), fastmath=bool(fastmath), opt=opt,
                             max_registers=max_registers, launch_bounds=None if device else bounds,
                             boundscheck=bool(boundscheck))
    targetoptions = dict(debug=debug, lineinfo=bool(lineinfo), fastmath=bool(fastmath), opt=opt,
                         boundscheck=bool(boundscheck),
                         max_registers=max_registers, cache=bool(cache), inline=inline, forceinline=forceinline,
                         launch_bounds=launch_bounds, lto=lto, link=tuple(link or ()),
                         extensions=tuple(extensions))

    def lazily(func):
        if isinstance(func, Dispatcher):
            func = func.py_func
        return Dispatcher(func, device, options, targetoptions)

    if isinstance(func_or_sig, (pytypes.FunctionType, Dispatcher)):
        return lazily(func_or_sig)
    if func_or_sig is None:
        return lazily

    if cftypes.is_signature(func_or_sig):
        signatures = [func_or_sig]
    elif isinstance(func_or_sig, list):
        signatures = list(func_or_sig)
    else:
        raise TypeError(f"cuda.jit takes a function, a signature or a list of signatures, not {func_or_sig!r}")
    normalized = [cftypes.normalize_signature(s) for s in signatures]
    if not device:
        for _, ret in normalized:
            if ret is not None and ret != cftypes.void:
                raise TypeError("CUDA kernel must have void return type.")

    def compile_eagerly(func):
        if isinstance(func, Dispatcher):
            func = func.py_func
        disp = Dispatcher(func, device, options, targetoptions)
        for args, ret in normalized:
            disp.compile(cftypes.Signature(ret, args) if ret is not None else args)
        disp.disable_compile()
        disp._specialized = len(normalized) == 1 and not isinstance(func_or_sig, list)
        return disp

    return compile_eagerly


# --- compile_ptx ---------------------------------------------------------------------------------


def _compile_to_ptx(pyfunc, sig, debug, lineinfo, device, fastmath, cc, opt, abi, abi_info, launch_bounds, what):
    """(CompiledFunction, return type) of ``pyfunc`` for ``sig`` as GPU code: compile_ptx's and compile's."""
    if abi not in ("numba", "c"):
        raise NotImplementedError(f"Unsupported ABI: {abi}")
    abi_name = ""
    if abi_info:
        if not isinstance(abi_info, dict) or set(abi_info) - {"abi_name"}:
            raise ValueError(f"{what}: abi_info takes one key, 'abi_name', not {abi_info!r}")
        abi_name = abi_info.get("abi_name") or ""
        if not isinstance(abi_name, str):
            raise TypeError(f"{what}: abi_info['abi_name'] must be a str, not {type(abi_name).__name__}")
    if isinstance(pyfunc, Dispatcher):
        link, lto = pyfunc._link, pyfunc._lto
        pyfunc = pyfunc.py_func
    else:
        link, lto = (), False
    if not device and abi == "c":
        raise NotImplementedError("The C ABI is not supported for kernels")
    args, ret = cftypes.normalize_signature(sig)
    if not device and ret is not None and ret != cftypes.void:
        raise TypeError("CUDA kernel must have void return type.")
    options = CompileOptions(debug=bool(debug), lineinfo=bool(lineinfo), fastmath=bool(fastmath), opt=bool(opt),
                             cc=None if cc is None else tuple(cc),
                             launch_bounds=None if device else _launch_bounds(launch_bounds),
                             abi=abi if device else None, abi_name=abi_name if device else None)
    ret_spec = ret.spec if (device and ret is not None) else None
    started = _log.now()
    config = options.config("nvptx")
    specs = [a.spec for a in args]
    cf = _compile(pyfunc, specs, config, bool(device), ret_spec, link, lto)
    ret_type = cftypes.from_spec(cf.return_spec)
    if device and abi == "c" and ret_type != cftypes.none and not isinstance(
            ret_type, (cftypes.Boolean, cftypes.Integer, cftypes.Float, cftypes.Complex)):
        raise TypeError(f"{what}: the C ABI returns a scalar or nothing; {pyfunc.__qualname__} returns {ret_type} "
                        "(compile it with abi='numba')")
    _ = cf.ptx  # codegen now, so that its errors are this call's
    _log.compiled("PTX of a device function" if device else "PTX of a kernel", pyfunc, specs, config, started, "off")
    return cf, ret_type


def compile_ptx(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False, cc=None, opt=True,
                abi="numba", abi_info=None, launch_bounds=None):
    """PTX for ``pyfunc`` compiled for ``sig``, and its return type:
    ``(ptx, return_type)``. A kernel by default; ``device=True`` makes a
    device function with Numba's ABI (``int f(T* ret, args...)``), or C's
    with ``abi="c"`` (``T f(args...)``); ``abi_info={"abi_name": name}``
    names it."""
    cf, ret = _compile_to_ptx(pyfunc, sig, debug, lineinfo, device, fastmath, cc, opt, abi, abi_info, launch_bounds,
                              "compile_ptx")
    return cf.ptx, ret


def _check_output(output, forceinline, device):
    if output not in ("ptx", "ltoir"):
        raise NotImplementedError(f"Unsupported output type: {output}")
    if forceinline and output != "ltoir":
        raise ValueError("Can only designate forced inlining in LTO-IR")
    if forceinline and not device:
        raise ValueError("Cannot force-inline kernels")


def _code(cf, output, forceinline, pyfunc):
    """The compiled function's code: PTX (str), or LTO-IR (bytes) from libNVVM (docs/interop_c.md)."""
    if output == "ptx":
        return cf.ptx
    started = _log.now()
    code = cf.ltoir(bool(forceinline))
    _log.compiled("LTO-IR", pyfunc, list(cf.arg_specs), cf.config, started, "off")
    return code


def compile(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, cc=None, opt=None, abi="c",
            abi_info=None, output="ptx", forceinline=False, launch_bounds=None):
    """numba-cuda's ``cuda.compile``: ``(code, return_type)`` of ``pyfunc``
    compiled for ``sig``; a device function with the C ABI by default
    (``T f(args...)``, named by ``abi_info={"abi_name": ...}``), or a kernel
    with ``device=False``. ``output="ptx"`` gives PTX text; ``"ltoir"``
    gives LTO-IR bytes for nvJitLink's link-time optimisation (made by
    libNVVM; ``forceinline=True`` marks a device function always-inline
    there)."""
    _check_output(output, forceinline, device)
    debug = bool(debug)
    opt = (not debug) if opt is None else bool(opt)
    cf, ret = _compile_to_ptx(pyfunc, sig, debug, lineinfo, device, fastmath, cc, opt, abi, abi_info, launch_bounds,
                              "compile")
    return _code(cf, output, forceinline, pyfunc), ret


def compile_for_current_device(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, opt=None,
                               abi="c", abi_info=None, output="ptx", forceinline=False, launch_bounds=None):
    """``compile`` for the current device's compute capability."""
    from cuforge.cuda._api import get_current_device

    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                   cc=get_current_device().compute_capability, opt=opt, abi=abi, abi_info=abi_info, output=output,
                   forceinline=forceinline, launch_bounds=launch_bounds)


def compile_all(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, cc=None, opt=None, abi="c",
                abi_info=None, output="ltoir", forceinline=False, launch_bounds=None):
    """numba-cuda's ``cuda.compile_all``: ``([code, ...], return_type)``:
    the function's code, then what it links (declared functions' files and
    ``link=``): ``.cu`` sources compiled by NVRTC to the same kind of code,
    other files as in-memory code (``cuda.PTXSource``, ``cuda.Cubin``, ...).
    ``output="ltoir"`` (the default, as numba-cuda's) gives LTO-IR bytes,
    ``"ptx"`` PTX text."""
    _check_output(output, forceinline, device)
    debug = bool(debug)
    opt = (not debug) if opt is None else bool(opt)
    cf, ret = _compile_to_ptx(pyfunc, sig, debug, lineinfo, device, fastmath, cc, opt, abi, abi_info, launch_bounds,
                              "compile_all")
    codes = [_code(cf, output, forceinline, pyfunc)]
    cc_pair = tuple(cf.config.cc)
    for path in cf.link:
        codes.append(_ffi.compiled_for_gpu(path, cc_pair, lto=output == "ltoir"))
    return codes, ret


def compile_ptx_for_current_device(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False,
                                   opt=True, abi="numba", abi_info=None):
    """compile_ptx for the current device's compute capability."""
    from cuforge.cuda._api import get_current_device

    cc = get_current_device().compute_capability
    return compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=cc,
                       opt=opt, abi=abi, abi_info=abi_info)
