"""What a kernel's global and closure names are, decided at compile time.

Each name the walker cannot find among the function's variables is looked
up (closure cells, then the function's globals, then builtins) and turned
into one ``global_value`` (frontend/ir.hpp) as the dict the builder's
``global_`` takes:

==================  ==================================================================
kind                made from
==================  ==================================================================
constant            bool, int, float, complex, None; NumPy scalars (with ``typestr``);
                    Enum members (their value; IntEnum members are ints)
tuple               tuples of constants (nested tuples allowed); a namedtuple's ``cls``
                    and ``fields`` with them
tuple_class         a namedtuple class (calling it in a kernel makes a named tuple)
device_array        objects with ``__cuda_array_interface__`` (DeviceNDArray, CuPy, PyTorch):
                    captured by address, shape and strides
const_array         NumPy arrays up to ``CONST_ARRAY_LIMIT`` bytes (C-contiguous bytes)
module              math, cmath, numpy, operator, cuforge.cuda (as "cuda")
function            supported builtins ("builtins.abs"), callables of math, cmath,
                    numpy and operator referenced directly ("math.sin")
dtype               NumPy scalar types and dtypes, Python's int/float/bool/complex,
                    cuforge.types scalar types
device_function     another @cuda.jit function: its untyped IR in ``callee``; or, for a
                    function calling itself (or one calling it), no IR but its ``file``
overloaded          a function with implementations registered by cuda.extending.overload: its
                    registry key (the typer asks the implementations for the argument types)
external_function   a function declared with cuda.declare_device: its symbol, parameter and
                    return type specs, ABI, and the files to ``link``
unsupported         anything else; ``name`` says what it was (an error where used)
==================  ==================================================================

Two things are not globals: the kernel-side names of ``cuforge.cuda``
(``grid``, ``threadIdx``...: the walker writes them as attributes of the
``cuda`` module), and attributes of opaque objects (a user's module, class
or namedtuple), which are read here, at compile time, like the names
themselves (``config.BLOCK`` is the constant it holds).
"""

from __future__ import annotations

import builtins
import cmath
import enum
import hashlib
import math
import operator
import random
import types as pytypes
import uuid
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

import cuforge.types as cftypes
from cuforge import _core
from cuforge.cuda import _ffi, _stubs, extending

__all__ = ["CONST_ARRAY_LIMIT", "Resolution", "foldable", "resolve"]

#: The largest NumPy array captured as a constant array (bytes): constant
#: memory is 64 KiB per module.
CONST_ARRAY_LIMIT = 64 * 1024

_FUNCTION_MODULES = (("math", math), ("cmath", cmath), ("numpy", np), ("operator", operator), ("random", random))

#: Builtins the kernel language knows (docs/compiler.md, "Builtins"); int,
#: float, bool and complex are dtypes.
SUPPORTED_BUILTINS = frozenset(
    {"abs", "min", "max", "round", "len", "range", "enumerate", "zip", "print", "pow", "divmod"}
)
# bool, int, float, complex as dtypes: the scalar-type table's python_type column.
_PYTHON_DTYPES = {
    getattr(builtins, row["python_type"]): row["typestr"] for row in _core.scalar_types() if row["python_type"]
}


@dataclass
class Resolution:
    """What one name resolved to.

    ``entry``: the dict for ``IRBuilder.global_`` (None for a cuda stub);
    ``cuda_path``: for a kernel-side name of cuforge.cuda, its path under the
    module; ``text``: what it resolved to, for the fingerprint."""

    entry: Optional[dict]
    text: str
    cuda_path: Optional[tuple] = None

    @property
    def kind(self):
        return None if self.entry is None else self.entry["kind"]


def _cuda_module():
    import cuforge.cuda

    return cuforge.cuda


def _is_dispatcher(value):
    from cuforge._host_jit import HostDispatcher
    from cuforge.cuda._jit import Dispatcher

    return isinstance(value, (Dispatcher, HostDispatcher))


def _numpy_scalar_typestr(dtype: np.dtype):
    """The type string of a dtype the compiler has, else None."""
    if dtype.kind not in "biufc":
        return None
    try:
        return cftypes.from_dtype(dtype).typestr
    except ValueError:
        return None


def _unsupported(name, what):
    return Resolution({"kind": "unsupported", "name": f"{name} ({what})"}, f"unsupported {what}")


def _constant(name, value):
    """A constant's entry, or None when ``value`` is not one."""
    if isinstance(value, (bool, np.bool_)):
        v = bool(value)
        typestr = "|b1" if isinstance(value, np.bool_) else None
    elif isinstance(value, np.generic):
        typestr = _numpy_scalar_typestr(value.dtype)
        if typestr is None:
            return None
        v = value.item()
    elif isinstance(value, int):  # int subclasses too (IntEnum members)
        v = int(value)
        typestr = None
        if not -(2**63) <= v < 2**64:
            return None
    elif isinstance(value, float):
        v, typestr = float(value), None
    elif isinstance(value, complex):
        v, typestr = complex(value), None
    elif value is None:
        v, typestr = None, None
    else:
        return None
    entry = {"kind": "constant", "name": name, "value": v}
    if typestr is not None:
        entry["typestr"] = typestr
    return entry


def _tuple(name, value):
    elements = []
    for i, e in enumerate(value):
        c = _constant(f"{name}[{i}]", e)
        if c is None and isinstance(e, tuple):
            c = _tuple(f"{name}[{i}]", e)
        if c is None:
            return None
        elements.append(c)
    entry = {"kind": "tuple", "name": name, "elements": elements}
    if is_namedtuple_class(type(value)):
        entry["cls"] = type(value).__name__
        entry["fields"] = list(type(value)._fields)
    return entry


def is_namedtuple_class(value) -> bool:
    """Whether ``value`` is a class collections.namedtuple (or typing.NamedTuple) made."""
    return isinstance(value, type) and issubclass(value, tuple) and isinstance(getattr(value, "_fields", None), tuple)


def _entry_text(entry):
    kind = entry["kind"]
    if kind == "constant":
        return f"constant {entry['value']!r} {entry.get('typestr', 'weak')}"
    if kind == "tuple":
        return "tuple (" + ", ".join(_entry_text(e) for e in entry["elements"]) + ")"
    if kind == "const_array":
        digest = hashlib.sha256(entry["data"]).hexdigest()[:16]
        return f"const_array {entry['typestr']} {tuple(entry['shape'])} sha256:{digest}"
    if kind == "dtype":
        return f"dtype {entry['typestr']}"
    return f"{kind} {entry['name']}"


def _done(entry):
    return Resolution(entry, _entry_text(entry))


def function_name(value, hint=None):
    """"math.sin" for math.sin (and numpy/cmath/operator callables), trying
    the name it was referenced by first (np.abs is np.absolute); None when
    the callable belongs to none of those modules."""
    for modname, mod in _FUNCTION_MODULES:
        if hint is not None and getattr(mod, hint, None) is value:
            return f"{modname}.{hint}"
    own = getattr(value, "__name__", None)
    if isinstance(own, str):
        for modname, mod in _FUNCTION_MODULES:
            if getattr(mod, own, None) is value:
                return f"{modname}.{own}"
    return None


def dtype_typestr(value):
    """The type string of a value naming a scalar type (np.float32,
    np.dtype('f4'), float, cuforge.types.float32), else None."""
    if isinstance(value, cftypes.Scalar):
        return value.typestr
    if isinstance(value, type) and value in _PYTHON_DTYPES:
        return _PYTHON_DTYPES[value]
    if isinstance(value, type) and issubclass(value, np.generic):
        return _numpy_scalar_typestr(np.dtype(value)) if value is not np.generic else None
    if isinstance(value, np.dtype):
        return _numpy_scalar_typestr(value)
    return None


def _record_spec(value):
    """The compiler's spec of a structured dtype (np.dtype or cuforge.types.Record), else None."""
    if isinstance(value, cftypes.Record):
        return value.spec
    if isinstance(value, np.dtype) and value.fields is not None:
        return cftypes.Record(value).spec
    return None


def resolve(name: str, value, device_ir: Callable) -> Resolution:
    """The global_value for ``value``, which the kernel calls ``name``.

    ``device_ir(dispatcher)`` gives a jitted function's untyped IR and the
    text of its fingerprint, or None when it is being built further up
    (recursion)."""
    path = _stubs.cuda_path(value)
    if path is None and value is cftypes.bfloat16:  # the type, called in a kernel, is cuda.bf16.bfloat16
        path = ("bf16", "bfloat16")
    if path is not None:
        return Resolution(None, "cuda." + ".".join(path), cuda_path=path)

    if isinstance(value, enum.Enum) and not isinstance(value, int):
        # An Enum member is its value in kernels (IntEnum members are ints already).
        entry = _constant(name, value.value)
        if entry is None:
            return _unsupported(name, f"the enum member {value!r}: only members with number values are supported")
        return Resolution(entry, f"enum {type(value).__qualname__}.{value.name} = {_entry_text(entry)}")

    entry = _constant(name, value)
    if entry is not None:
        return _done(entry)
    if isinstance(value, int):
        return _unsupported(name, f"the integer {value} does not fit in 64 bits")
    if isinstance(value, np.generic):
        return _unsupported(name, f"a NumPy {value.dtype} scalar")

    if isinstance(value, tuple):
        entry = _tuple(name, value)
        if entry is not None:
            return _done(entry)
        return _unsupported(name, "a tuple with values that are not numbers")

    record = _record_spec(value)
    if record is not None:  # a structured dtype: cuda.local.array(n, dtype=rec), ...
        return _done({"kind": "dtype", "name": name, "typestr": record})

    typestr = dtype_typestr(value)
    if typestr is not None:
        if value in (int, float, complex, bool):  # Python's own: typed as Numba types int(), float()...
            name = f"builtins.{value.__name__}"
        return _done({"kind": "dtype", "name": name, "typestr": typestr})

    if isinstance(value, np.ndarray):
        return _const_array(name, value)

    cai = _cuda_array_interface(value)
    if cai is not None:
        return _device_array(name, value, cai)

    if isinstance(value, pytypes.ModuleType):
        if value is _cuda_module():
            return _done({"kind": "module", "name": "cuda"})
        for modname, mod in _FUNCTION_MODULES:
            if value is mod:
                return _done({"kind": "module", "name": modname})
        if value.__name__ == "numba.cuda" or value.__name__.startswith("numba"):
            return _unsupported(name, f"module {value.__name__}: use cuforge.cuda")
        return _unsupported(name, f"module {value.__name__}")

    if isinstance(value, _ffi.ExternFunction):
        entry, text = value.resolution()
        return Resolution(entry, text)
    if isinstance(value, extending.Intrinsic):
        entry, text = value.resolution(device_ir)
        return Resolution(entry, text)

    if _is_dispatcher(value):
        built = device_ir(value)
        if built is None:  # recursion: the typer finds the function among those it is typing
            return recursive_reference(value.py_func)
        ir, fingerprint = built
        entry = {"kind": "device_function", "name": value.py_func.__qualname__, "callee": ir}
        return Resolution(entry, f"device_function {value.py_func.__qualname__} [{fingerprint}]")

    if is_namedtuple_class(value):  # Point(x, y) in a kernel makes a named tuple
        fields = list(value._fields)
        if not fields:
            return _unsupported(name, f"namedtuple class {value.__qualname__} without fields")
        if not value.__name__.isidentifier():
            return _unsupported(name, f"namedtuple class named {value.__name__!r}")
        entry = {"kind": "tuple_class", "name": name, "cls": value.__name__, "fields": fields}
        declared = getattr(value, "_cuforge_field_types", None)  # a struct type's (cuda.extending.struct_type)
        if declared is not None:
            entry["types"] = [t.spec for t in declared]
        return Resolution(entry, f"tuple_class {value.__module__}.{value.__qualname__}{tuple(fields)}"
                                 f"{'' if declared is None else entry['types']}")

    key = extending.overload_key(value)
    if key is not None:  # a function with implementations registered (cuda.extending.overload)
        return Resolution({"kind": "overloaded", "name": key, "display": getattr(value, "__name__", name)},
                          f"overloaded {key}")

    row = getattr(value, "__cuforge_row__", None)
    if isinstance(row, str):  # a Python stand-in for a registry function (the host jit's cuforge.array_address)
        return _done({"kind": "function", "name": row})

    if _is_cffi_from_buffer(value):  # ffi.from_buffer(array), for declared functions' pointer parameters
        return _done({"kind": "function", "name": "cffi.from_buffer"})

    if callable(value):
        if isinstance(value, pytypes.BuiltinFunctionType) and getattr(builtins, value.__name__, None) is value:
            if value.__name__ in SUPPORTED_BUILTINS:
                return _done({"kind": "function", "name": f"builtins.{value.__name__}"})
            return _unsupported(name, f"builtin {value.__name__}() is not supported in kernels")
        if value is range or value is enumerate or value is zip:
            return _done({"kind": "function", "name": f"builtins.{value.__name__}"})
        qualified = function_name(value, name.rsplit(".", 1)[-1])
        if qualified is not None and not isinstance(value, type):
            return _done({"kind": "function", "name": qualified})
        if isinstance(value, (pytypes.FunctionType, pytypes.MethodType)):
            return _unsupported(
                name, f"Python function {getattr(value, '__qualname__', name)} is not jitted: "
                "decorate it with @cuda.jit(device=True)"
            )
        if isinstance(value, type):
            return _unsupported(name, f"class {value.__qualname__}")
    if isinstance(value, str):
        return _unsupported(name, "a string: strings are not supported in kernels")
    if isinstance(value, cftypes.Type):
        return _unsupported(name, f"the type {value}: only scalar types are values in kernels")
    return _unsupported(name, f"{type(value).__name__} object")


#: Device arrays kernels captured by reference: kept alive as long as the
#: process, since compiled code holds their addresses.
_captured = []
#: Distinguishes this process's captured addresses from another's in the disk
#: cache's key (an address means nothing in another process).
_PROCESS_NONCE = uuid.uuid4().hex


def _cuda_array_interface(value):
    if isinstance(value, (type, pytypes.ModuleType)):
        return None
    if _core.is_device_array(value):  # ours: the cpu backend offers no CUDA interface, but has an address
        if value.dtype.fields is not None:
            return {"typestr": "|V", "shape": value.shape, "strides": value.strides, "data": (0, False)}
        return {"typestr": value.dtype.str, "shape": value.shape, "strides": value.strides,
                "data": (value._pointer, False)}
    try:
        cai = getattr(value, "__cuda_array_interface__", None)
    except Exception:  # a CPU tensor's property raises
        return None
    return cai if isinstance(cai, dict) else None


def _device_array(name, value, cai):
    """A global device array (DeviceNDArray, CuPy, PyTorch): captured by its
    address, as numba-cuda captures one."""
    typestr = cai.get("typestr")
    dtype = np.dtype(typestr) if isinstance(typestr, str) else None
    if dtype is None or _numpy_scalar_typestr(dtype) is None:
        return _unsupported(name, f"device array of dtype {typestr}")
    shape = [int(e) for e in cai["shape"]]
    strides = cai.get("strides")
    if strides is None:  # C-contiguous
        strides, acc = [0] * len(shape), dtype.itemsize
        for d in reversed(range(len(shape))):
            strides[d] = acc
            acc *= shape[d]
    strides = [int(e) for e in strides]
    address = int(cai["data"][0] or 0)
    if cai["data"][1]:
        return _unsupported(name, "a read-only device array (kernels may write a global device array)")
    _captured.append(value)
    entry = {"kind": "device_array", "name": name, "typestr": _numpy_scalar_typestr(dtype), "address": address,
             "shape": shape, "strides": strides}
    return Resolution(entry, f"device_array {entry['typestr']} {tuple(shape)} {tuple(strides)} @{address:#x} "
                             f"in process {_PROCESS_NONCE}")


def recursive_reference(pyfunc) -> Resolution:
    """A call of ``pyfunc`` from inside its own compilation (recursion): a
    device function without IR, named by qualname and file."""
    qualname = getattr(pyfunc, "__qualname__", pyfunc.__name__)
    entry = {"kind": "device_function", "name": qualname, "file": pyfunc.__code__.co_filename}
    return Resolution(entry, f"recursive device_function {qualname}")


def _const_array(name, value):
    typestr = _numpy_scalar_typestr(value.dtype)
    if typestr is None:
        return _unsupported(name, f"NumPy array of dtype {value.dtype}")
    if value.nbytes > CONST_ARRAY_LIMIT:
        return _unsupported(
            name, f"NumPy array of {value.nbytes} bytes: constant arrays are limited to {CONST_ARRAY_LIMIT} bytes; "
            "pass it as an argument"
        )
    data = np.ascontiguousarray(value, dtype=np.dtype(typestr)).tobytes()
    return _done({"kind": "const_array", "name": name, "typestr": typestr, "shape": list(value.shape), "data": data})


def _is_cffi_from_buffer(value) -> bool:
    """Whether ``value`` is a cffi FFI object's from_buffer method (cffi is not imported for this)."""
    owner = getattr(value, "__self__", None)
    return (isinstance(value, pytypes.MethodType) and value.__name__ == "from_buffer"
            and type(owner).__name__ == "FFI" and type(owner).__module__.startswith("cffi"))


def foldable(value) -> bool:
    """Whether the walker reads attributes of ``value`` at compile time
    (``config.N``): modules other than those the compiler knows, classes,
    namedtuples and plain objects. Values the compiler types itself
    (modules it knows, arrays, numbers, dtypes, functions) are not."""
    if _stubs.cuda_path(value) is not None or _is_dispatcher(value):
        return False
    if isinstance(value, pytypes.ModuleType):
        return value is not _cuda_module() and all(value is not m for _, m in _FUNCTION_MODULES)
    if isinstance(value, enum.Enum):
        return True  # Color.RED.value
    if isinstance(value, tuple):
        return hasattr(value, "_fields")
    if dtype_typestr(value) is not None or isinstance(value, (np.ndarray, np.generic, np.ufunc, cftypes.Type)):
        return False
    if isinstance(value, (bool, int, float, complex, str, bytes, type(None))):
        return False
    if isinstance(value, (pytypes.FunctionType, pytypes.BuiltinFunctionType, pytypes.MethodType)):
        return False
    return True
