"""Teaching the compiler new types and functions (docs/extending.md).

cuforge's extension API is written for its compiler: implementations are
kernel-language Python, chosen at typing time by the argument types, and
compiled like device functions. There is no LLVM builder to hold.

- ``struct_type(name, fields)``: a type that is a struct of typed fields (a
  named tuple whose fields have declared types). Call it in a kernel or on
  the host to make one; ``x.field`` reads a field.
- ``overload(func)``: implementations of a Python function (or of an
  operator: ``operator.add``...) for the argument types a typing function
  accepts, numba's way: the decorated function gets the argument types and
  returns an implementation, or None.
- ``overload_method(struct, name)`` and ``overload_attribute(struct, name)``:
  methods and computed attributes of a struct type.
- ``register_jitable(func)``: a function callable from Python and, compiled,
  from kernels.
- ``register_argument(cls, struct, to_struct)``: objects of a Python class
  passed to kernels as a struct (``typeof`` for a library's own objects).
- ``intrinsic(sig, ptx=... | llvm=..., host=...)``: the escape hatch, a
  function whose body is inline PTX or LLVM IR on the GPU, with a
  kernel-language implementation for the cpu backend.
"""

from __future__ import annotations

import collections
import hashlib
import operator
import threading
import types as pytypes

import numpy as np

import cuforge.types as cftypes
from cuforge import _core

__all__ = ["Intrinsic", "intrinsic", "is_struct", "overload", "overload_attribute", "overload_method", "register_argument",
           "register_jitable", "struct_type"]

_lock = threading.RLock()
_function_keys = {}  # id(func) -> (func, key): Python functions with overloads
_structs = {}  # name -> the struct class
_arguments = {}  # Python class -> (struct class, to_struct)

#: The operators an overload may implement: Python's operator module's functions.
_OPERATORS = {getattr(operator, n): n for n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lshift",
                                                "rshift", "and_", "or_", "xor", "matmul", "eq", "ne", "lt", "le",
                                                "gt", "ge", "neg", "pos", "invert")}


# --- struct types -------------------------------------------------------------------------------------------


def struct_type(name, fields):
    """A struct of typed fields: ``Masked = struct_type("Masked", [("value", float64), ("valid", boolean)])``.

    The result is a namedtuple class whose instances hold their fields as the
    declared types (``Masked(1, True).value`` is ``np.float64(1.0)``), so a
    kernel argument of it has exactly the struct's type; in a kernel,
    ``Masked(v, ok)`` converts its arguments to the fields' types. Its kernel
    type is ``Masked.kernel_type`` (what overloads are given)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"struct_type: the name must be an identifier, not {name!r}")
    fields = list(fields)
    if not fields:
        raise ValueError(f"struct_type({name!r}): a struct needs fields")
    names, kinds = [], []
    for f in fields:
        if not (isinstance(f, tuple) and len(f) == 2 and isinstance(f[0], str) and f[0].isidentifier()):
            raise TypeError(f"struct_type({name!r}): each field is a (name, type) pair, not {f!r}")
        ty = f[1]
        if isinstance(ty, str):
            ty = cftypes.from_spec(ty)
        if isinstance(ty, type) and getattr(ty, "_cuforge_field_types", None) is not None:
            ty = ty.kernel_type  # a struct field: the struct class stands for its type
        if not (isinstance(ty, (cftypes.Boolean, cftypes.Integer, cftypes.Float, cftypes.Complex, cftypes.Array))
                or _struct_of(ty) is not None):
            raise TypeError(f"struct_type({name!r}): field {f[0]!r} is {ty}; a struct's fields are scalars, arrays "
                            "(types.float32[:], ...) and struct types")
        names.append(f[0])
        kinds.append(ty)
    if len(set(names)) != len(names):
        raise ValueError(f"struct_type({name!r}): a field is named twice")
    with _lock:
        if name in _structs:
            raise ValueError(f"struct_type: a struct named {name!r} exists already (names are the compiler's keys)")
        base = collections.namedtuple(name, names)
        convert = tuple(_field_converter(name, n, t) for n, t in zip(names, kinds))

        def __new__(cls, *args, **kwargs):
            values = base.__new__(cls, *args, **kwargs)
            return base.__new__(cls, *(c(v) for c, v in zip(convert, values)))

        cls = type(name, (base,), {"__new__": __new__, "__slots__": (), "__module__": __name__,
                                   "_cuforge_field_types": tuple(kinds)})
        cls.kernel_type = cftypes.from_spec(f"{name}({', '.join(f'{n}: {t.spec}' for n, t in zip(names, kinds))})")
        _structs[name] = cls
    return cls


def _struct_of(ty):
    """The struct class whose kernel type ``ty`` is, or None. Its array fields may have another
    layout or read-only flag than declared (what was passed), so the class decides, by name (each
    name is made once) and fields."""
    if not isinstance(ty, cftypes._NamedTupleBase):
        return None
    cls = _structs.get(ty.cls.__name__)
    return cls if cls is not None and tuple(cls._fields) == ty.fields else None


def _field_converter(struct, field, ty):
    """What a struct's constructor does to the value given for a field of type ``ty`` on the host:
    a scalar becomes the declared NumPy scalar; an array is checked for its element type and
    dimensions (and contiguity, where the type says C) and kept as it is; a struct field takes the
    struct or a tuple of its fields."""
    if isinstance(ty, cftypes.Array):
        def array(value):
            try:
                got = cftypes.typeof(value)
            except ValueError:
                got = None
            if not (isinstance(got, cftypes.Array) and got.dtype == ty.dtype and got.ndim == ty.ndim
                    and (ty.layout == "A" or got.layout == ty.layout)):
                raise TypeError(f"{struct}.{field} is {ty}; got {got if got is not None else type(value).__name__}")
            return value
        return array
    nested = _struct_of(ty)
    if nested is not None:
        return lambda value: value if isinstance(value, nested) else nested(*value)
    return np.dtype(ty.typestr).type


def is_struct(ty, struct) -> bool:
    """Whether kernel type ``ty`` (what an overload is given) is struct class ``struct``'s."""
    _struct_name(struct)
    return _struct_of(ty) is struct


def _struct_name(struct) -> str:
    if not (isinstance(struct, type) and getattr(struct, "_cuforge_field_types", None) is not None):
        raise TypeError(f"expected a struct type made by struct_type(), not {struct!r}")
    return struct.__name__


# --- overloads ----------------------------------------------------------------------------------------------


def bind_call(signature, positional, keywords):
    """A call with ``positional`` positional arguments and the keyword arguments named
    ``keywords`` (in the call's order) bound by ``signature`` as Python binds it: for each
    argument the implementation takes, in order, the call's argument index (positional ones
    first, then the keywords), or ``("default", value)`` for a default filled in. A ``*args``
    parameter's arguments come in its place one by one (the implementation's ``*args``
    gathers them again). Raises TypeError in Python's words when the call does not fit, and
    for what an implementation taking its arguments by position cannot be given: keyword-only
    parameters, keywords gathered by ``**kwargs``, defaults other than numbers, bools and None."""
    given = list(range(positional + len(keywords)))
    bound = signature.bind(*given[:positional], **dict(zip(keywords, given[positional:])))
    explicit = set(bound.arguments)
    bound.apply_defaults()
    out = []
    for p in signature.parameters.values():
        value = bound.arguments[p.name]
        if p.kind == p.VAR_POSITIONAL:
            out.extend(value)
        elif p.kind == p.VAR_KEYWORD:
            if value:
                raise TypeError(f"keyword arguments gathered by **{p.name} are not supported ({', '.join(value)})")
        elif p.kind == p.KEYWORD_ONLY:
            raise TypeError(f"keyword-only parameters ({p.name!r}) are not supported")
        elif p.name not in explicit:
            if not (value is None or isinstance(value, (bool, int, float, complex))):
                raise TypeError(f"the default value of {p.name!r} ({value!r}) is not a number, a bool or None")
            out.append(("default", value))
        else:
            out.append(value)
    return out


class _Resolver:
    """What the typer asks an overload: how it binds a call (``bind``, by its typing function's
    signature, as numba binds a call of an overloaded method), and the implementation's IR for
    argument type specs, or None (``__call__``)."""

    def __init__(self, typing_func, what):
        self.typing_func, self.what = typing_func, what
        self.cache = {}
        self.signature = None

    def bind(self, positional, keywords):
        import inspect

        if self.signature is None:
            self.signature = inspect.signature(self.typing_func)
        return bind_call(self.signature, positional, list(keywords))

    def __call__(self, specs):
        from cuforge.cuda._compiler import build_ir
        from cuforge.cuda._jit import Dispatcher

        key = tuple(specs)
        if key in self.cache:
            return self.cache[key]
        args = [cftypes.from_spec(s) for s in specs]
        impl = self.typing_func(*args)
        if impl is None:
            self.cache[key] = None
            return None
        if isinstance(impl, Dispatcher):
            impl = impl.py_func
        if not isinstance(impl, pytypes.FunctionType):
            raise TypeError(f"{self.what}: the overload returned {impl!r}, not an implementation function")
        self.cache[key] = ir = build_ir(impl)
        return ir


def overload(func, jit_options=None, strict=True, inline="never", prefer_literal=False, **kwargs):
    """Registers implementations of ``func`` (a Python function, or an
    operator of Python's operator module) for kernels::

        @overload(clip01)
        def clip01_impl(x):
            if isinstance(x, types.Float):
                return lambda x: min(max(x, 0.0), 1.0)

    The decorated function gets the argument types of a call and returns the
    implementation (kernel-language Python with the same parameters), or
    None when it does not apply; overloads of one function are asked in the
    order they were registered."""
    del jit_options, strict, inline, prefer_literal, kwargs  # numba's knobs: every implementation is compiled alike
    if func in _OPERATORS:
        key = f"operator.{_OPERATORS[func]}"
    elif isinstance(func, (pytypes.FunctionType, pytypes.BuiltinFunctionType)):
        with _lock:
            got = _function_keys.get(id(func))
            if got is None:
                got = _function_keys[id(func)] = (func, f"fn:{func.__module__}.{func.__qualname__}#{id(func):x}")
            key = got[1]
    else:
        raise TypeError(f"overload: cannot overload {func!r}: give a Python function or an operator")

    def register(typing_func):
        _core.register_overload(key, _Resolver(typing_func, f"overload({getattr(func, '__name__', func)})"))
        return typing_func

    return register


def overload_method(struct, name, **kwargs):
    """Registers a method ``name`` of a struct type: the decorated function
    gets the struct's type and the arguments' types and returns the
    implementation (its first parameter is the struct), or None."""
    del kwargs
    key = f"method:{_struct_name(struct)}.{name}"

    def register(typing_func):
        _core.register_overload(key, _Resolver(typing_func, f"overload_method({struct.__name__}, {name!r})"))
        return typing_func

    return register


def overload_attribute(struct, name, **kwargs):
    """Registers a computed attribute ``name`` of a struct type: the
    decorated function gets the struct's type and returns the
    implementation, a function of the struct, or None."""
    del kwargs
    key = f"attribute:{_struct_name(struct)}.{name}"
    if name in struct._fields:
        raise ValueError(f"overload_attribute: {struct.__name__}.{name} is a field")

    def register(typing_func):
        _core.register_overload(key, _Resolver(typing_func, f"overload_attribute({struct.__name__}, {name!r})"))
        return typing_func

    return register


def overload_key(value):
    """The registry key of a Python function with overloads, or None (resolve.py's)."""
    got = _function_keys.get(id(value))
    return got[1] if got is not None and got[0] is value else None


# --- register_jitable ---------------------------------------------------------------------------------------


def register_jitable(*args, **kwargs):
    """A function that runs as itself when called from Python and is compiled
    (as a device function) when a kernel calls it: ``@register_jitable`` or
    ``@register_jitable(**options)``."""
    from cuforge.cuda._jit import jit

    def wrap(fn):
        disp = jit(device=True, **kwargs)(fn)
        disp.__class__ = _jitable_class()
        return disp

    if len(args) == 1 and not kwargs and isinstance(args[0], pytypes.FunctionType):
        return wrap(args[0])
    if args:
        raise TypeError("register_jitable takes a function, or keyword options")
    return wrap


_jitable = None


def _jitable_class():
    """register_jitable's Dispatcher subclass (made once, on first use: _jit imports this module)."""
    global _jitable
    if _jitable is None:
        from cuforge.cuda._jit import Dispatcher

        class Jitable(Dispatcher):
            """A device function that Python may call too."""

            def __call__(self, *a, **kw):
                return self.py_func(*a, **kw)

        _jitable = Jitable
    return _jitable


# --- Python objects as kernel arguments ---------------------------------------------------------------------


def register_argument(cls, struct, to_struct=None):
    """Objects of Python class ``cls`` (and its subclasses) passed to a
    kernel become struct ``struct``: ``to_struct(obj)`` makes the struct
    (default: its fields read as attributes of the object)."""
    _struct_name(struct)
    if not isinstance(cls, type):
        raise TypeError(f"register_argument: expected a class, not {cls!r}")
    if to_struct is None:
        def to_struct(obj, _fields=struct._fields):
            return struct(*(getattr(obj, f) for f in _fields))
    with _lock:
        _arguments[cls] = (struct, to_struct)
        _core.set_argument_hook(_argument_hook)


def _argument_hook(value):
    """The launcher's fallback for an argument it does not know: a registered object's struct, or None."""
    for klass in type(value).__mro__:
        got = _arguments.get(klass)
        if got is not None:
            struct, to_struct = got
            made = to_struct(value)
            if not isinstance(made, struct):
                raise TypeError(f"register_argument: to_struct gave {type(made).__name__}, not {struct.__name__}")
            return made
    return None


# --- intrinsics: inline PTX or LLVM IR --------------------------------------------------------------------


class Intrinsic:
    """A function of a kernel whose body is inline PTX or LLVM IR (see ``intrinsic``)."""

    def __init__(self, name, args, restype, body, kind, host, doc):
        self.name = name
        self.args = tuple(args)
        self.restype = restype
        self.body = body
        self.kind = kind
        self.host = host
        self.__doc__ = doc

    def __repr__(self):
        return f"<intrinsic {self.name} {self.restype}({', '.join(map(str, self.args))}), {self.kind}>"

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{self.name} is an intrinsic: call it from a kernel or device function")

    def resolution(self, device_ir):
        """The global the IR builder takes (an external function whose ABI is its body's kind), and its text for
        the fingerprint."""
        entry = {"kind": "external_function", "name": self.name, "args": [a.spec for a in self.args],
                 "ret": self.restype.spec, "abi": self.kind, "message": self.body}
        text = f"intrinsic {self.name} {self.restype.spec}({', '.join(a.spec for a in self.args)}) {self.kind} " \
               f"{hashlib.sha256(self.body.encode()).hexdigest()[:16]}"
        if self.host is not None:
            built = device_ir(self.host)
            if built is None:
                raise TypeError(f"intrinsic {self.name}: its host implementation calls the intrinsic itself")
            entry["callee"], fingerprint = built
            text += f" host [{fingerprint}]"
        return entry, text


def intrinsic(sig, *, ptx=None, llvm=None, host=None, name=None):
    """The escape hatch: a function whose body is written for the GPU's
    compiler rather than in the kernel language::

        @intrinsic("float32(float32)", ptx="ex2.approx.ftz.f32 $0, $1;", host=host_exp2)
        def fast_exp2(x):
            "2**x, approximately (the GPU's ex2.approx)."

    ``ptx``: one inline PTX statement (or several), ``$0`` the result when
    there is one, then ``$1``... the arguments (registers of the types the
    signature gives). ``llvm``: an LLVM IR module defining a function named
    after the intrinsic (``name``, else the decorated function's) with the
    signature's types (bool as i8), linked into the kernel and inlined; it
    may declare LLVM's NVPTX intrinsics. ``host``: a device function
    (``@cuda.jit(device=True)``) with the same signature that the cpu
    backend runs instead; without one, inline PTX is refused there and LLVM
    IR is used as it is. The decorated function gives the name and the
    docstring; its body is not used."""
    if (ptx is None) == (llvm is None):
        raise ValueError("intrinsic: give its body as ptx= or llvm=, one of them")
    body = ptx if ptx is not None else llvm
    if not isinstance(body, str) or not body.strip():
        raise TypeError("intrinsic: the body must be non-empty text")
    args, restype = cftypes.normalize_signature(sig)
    if restype is None:
        raise TypeError("intrinsic: the signature needs a return type (void for none)")
    for t in (*args, restype):
        if t != cftypes.none and not isinstance(t, (cftypes.Boolean, cftypes.Integer, cftypes.Float)):
            raise TypeError(f"intrinsic: {t} is not a type an intrinsic takes or returns (scalars: bool, ints, floats)")
    from cuforge.cuda._jit import Dispatcher

    if host is not None and not (isinstance(host, Dispatcher) and host.device):
        raise TypeError("intrinsic: host= is a device function, @cuda.jit(device=True)")

    def make(func):
        symbol = name or func.__name__
        if not symbol.isidentifier():
            raise ValueError(f"intrinsic: {symbol!r} is not a symbol name")
        if llvm is not None:  # checked here, where it is written
            _core.check_intrinsic_ir(llvm, symbol, [a.spec for a in args], restype.spec)
        return Intrinsic(symbol, args, restype, body, "ptx" if ptx is not None else "llvm", host, func.__doc__)

    return make
