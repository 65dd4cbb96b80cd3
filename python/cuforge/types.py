"""Numba-style type objects: kernel signatures and argument types.

    from cuforge.types import float32, int64, void
    @cuda.jit(void(float32[:], float32[::1], int64))

Scalars (``bool_``, ``int8`` .. ``uint64``, ``float16/32/64``, ``complex64/128``)
name themselves in NumPy's spelling (``.typestr``, ``"<f4"``) and in the
compiler's (``.spec``, ``"float32"``: frontend/types.hpp ``parse_type``).
Slicing a scalar type makes an array type the way Numba does: ``float32[:]``
(1-d, any layout), ``float32[::1]`` (1-d, C), ``float32[:, ::1]`` (2-d, C),
``float32[::1, :]`` (2-d, F). Calling a type with types makes a
``Signature``; calling a scalar type with a value converts the value.
``typeof(value)`` is the type a kernel argument is compiled for.
"""

from __future__ import annotations

import ast
import builtins
import collections
import functools
import numbers

import numpy as np

from cuforge import _core

#: The scalar-type table, in its order: {"name", "kind", "bytes", "typestr", "numpy_aliases", "numba_aliases",
#: "python_type"} per type.
_TABLE = _core.scalar_types()
_ROWS = {row["name"]: row for row in _TABLE}  # by name

__all__ = [
    "Array",
    "Boolean",
    "CPointer",
    "Complex",
    "Float",
    "Integer",
    "NPDatetime",
    "NPTimedelta",
    "Number",
    "NamedTuple",
    "NamedUniTuple",
    "NestedArray",
    "Optional",
    "Record",
    "as_dtype",
    "complex_domain",
    "integer_domain",
    "number_domain",
    "real_domain",
    "signed_domain",
    "unsigned_domain",
    "NoneType",
    "Scalar",
    "Signature",
    "Tuple",
    "Type",
    "UniTuple",
    "VectorType",
    "from_dtype",
    "from_spec",
    "is_signature",
    "normalize_signature",
    "optional",
    "parse_signature",
    "typeof",
]


class Type:
    """A compiler type. Types compare and hash by their spec (the C++ spelling).

    Subclassing with a name makes a type of one's own, as with numba.types:
    ``class Opaque(Type): def __init__(self): super().__init__(name="Opaque")``
    (a type the compiler does not know: for signatures and extensions)."""

    __slots__ = ()

    def __init__(self, name: str | None = None):
        if name is not None:
            object.__setattr__(self, "_user_name", str(name))

    @property
    def spec(self) -> str:
        user = getattr(self, "_user_name", None)
        if user is None:
            raise NotImplementedError(f"{type(self).__name__} has no spec: give Type.__init__ a name")
        return user

    @property
    def name(self) -> str:
        return self.spec

    def __repr__(self):
        return self.spec

    def __eq__(self, other):
        return isinstance(other, Type) and other.spec == self.spec

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self.spec)

    def __str__(self):
        return self.spec

    def __call__(self, *args):
        # Numba's spelling of a signature: float32(float32, int64), void().
        if all(isinstance(a, Type) for a in args):
            return Signature(self, args)
        raise TypeError(f"{self} takes argument types to make a signature, not {args!r}")


class NoneType(Type):
    """None: what kernels return (``void`` is its other name)."""

    __slots__ = ()

    @property
    def spec(self):
        return "none"

    typestr = None

    def __repr__(self):
        return "none"


class Scalar(Type):
    """A number or a boolean: ``float32``, ``int64``, ``bool_``..."""

    __slots__ = ("_name", "_dtype")

    def __init__(self, name: str):
        row = _ROWS.get(name)
        if row is None:
            raise ValueError(f"unknown scalar type {name!r} (the scalar types are {', '.join(_ROWS)})")
        self._name = name
        self._dtype = np.dtype(row["typestr"])

    @property
    def name(self) -> str:
        return self._name

    @property
    def spec(self) -> str:
        return self._name

    @property
    def typestr(self) -> str:
        """NumPy's type string (``"<f4"``, ``"|b1"``)."""
        return self._dtype.str

    @property
    def dtype(self) -> np.dtype:
        return self._dtype

    @property
    def bitwidth(self) -> int:
        return self._dtype.itemsize * 8

    def __repr__(self):
        return self._name

    def __call__(self, *args):
        if len(args) == 1 and not isinstance(args[0], Type):
            return self._dtype.type(args[0])  # float32(1.5): a conversion, as in Numba
        return super().__call__(*args)

    def __getitem__(self, index):
        ndim, layout = _array_spec(self, index)
        return Array(self, ndim, layout)


class Boolean(Scalar):
    """The boolean type (``bool_``, ``boolean``, ``b1``)."""

    __slots__ = ()


class Number(Scalar):
    """The integers, floats and complex numbers."""

    __slots__ = ()


class Integer(Number):
    """int8 .. int64, uint8 .. uint64."""

    __slots__ = ()

    @property
    def signed(self) -> bool:
        return self._dtype.kind == "i"


class Float(Number):
    """float16, float32, float64."""

    __slots__ = ()


class Complex(Number):
    """complex64, complex128."""

    __slots__ = ()

    @property
    def underlying_float(self) -> "Float":
        """The type of each part: float32 for complex64."""
        return _SCALARS[f"float{self.bitwidth // 2}"]


class CPointer(Type):
    """A pointer to ``dtype`` (``CPointer(float32)``, spelled ``float32*``):
    for signatures of functions declared elsewhere."""

    __slots__ = ("dtype", "addrspace")

    def __init__(self, dtype: Type, addrspace: int | None = None):
        self.dtype = dtype
        self.addrspace = addrspace

    @property
    def spec(self):
        return f"CPointer({self.dtype.spec}{'' if self.addrspace is None else f', {self.addrspace}'})"

    def __str__(self):
        return "void*" if self.dtype is none else f"{self.dtype}*"

    __repr__ = __str__


class Optional(Type):
    """A value of ``type`` or None (Numba's OptionalType; ``optional`` is its
    other name): what a device function returns when some of its paths
    return None. ``OptionalType(int64)``."""

    __slots__ = ("type",)

    def __init__(self, type: Type):
        if isinstance(type, Optional):
            type = type.type
        if isinstance(type, NoneType):
            raise TypeError("an optional of none is none")
        self.type = type

    @property
    def spec(self):
        return f"OptionalType({self.type.spec})"


optional = Optional


class _NPTime(Type):
    __slots__ = ("unit",)
    _prefix = ""

    def __init__(self, unit: str = ""):
        np.dtype(f"{self._letter}8[{unit}]" if unit else f"{self._letter}8")  # refuses a unit NumPy lacks
        self.unit = unit

    @property
    def spec(self):
        return f"{self._prefix}[{self.unit}]" if self.unit else self._prefix

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(f"{self._letter}8[{self.unit}]" if self.unit else f"{self._letter}8")

    @property
    def typestr(self) -> str:
        return self.dtype.str

    def __getitem__(self, index):  # NPDatetime("D")[:] is an array type, as with the scalars
        ndim, layout = _array_spec(self, index)
        return Array(self, ndim, layout)


class NPDatetime(_NPTime):
    """numpy.datetime64 in a unit: ``NPDatetime("ns")`` is datetime64[ns]."""

    __slots__ = ()
    _prefix, _letter = "datetime64", "M"


class NPTimedelta(_NPTime):
    """numpy.timedelta64 in a unit: ``NPTimedelta("s")`` is timedelta64[s]."""

    __slots__ = ()
    _prefix, _letter = "timedelta64", "m"


def _field_type(dt):
    """A record field's type: its scalar or record type, a NestedArray for a
    fixed-size array field."""
    if dt.subdtype is not None:
        base, shape = dt.subdtype
        return NestedArray(from_dtype(base), shape)
    return from_dtype(dt)


class Record(Type):
    """A structured NumPy dtype's element (``from_dtype`` of one): its
    fields as ``{name: (type, offset)}``, ``size`` in bytes, ``aligned``
    (NumPy's ``align=True``). Kernels take records and arrays of them
    (``rec[:]``); the spec is Numba's spelling,
    ``Record(a[type=float64;offset=0],b[type=int32;offset=8];16;True)``."""

    __slots__ = ("dtype", "fields", "size", "aligned")

    def __init__(self, dtype):
        dt = np.dtype(dtype)
        if dt.fields is None:
            raise ValueError(f"{dt} is not a structured dtype")
        self.dtype = dt
        self.fields = {name: (_field_type(dt.fields[name][0]), dt.fields[name][1]) for name in dt.names}
        self.size = dt.itemsize
        self.aligned = dt.isalignedstruct

    @property
    def spec(self):
        parts = ",".join(f"{name}[type={t.spec};offset={offset}]" for name, (t, offset) in self.fields.items())
        return f"Record({parts};{self.size};{self.aligned})"

    @property
    def members(self):
        """``[(name, type)]`` in field order."""
        return [(name, t) for name, (t, _) in self.fields.items()]

    @property
    def alignment(self):
        return self.dtype.alignment

    def offset(self, name):
        return self.fields[name][1]

    def typeof(self, name):
        return self.fields[name][0]

    def __getitem__(self, index):
        ndim, layout = _array_spec(self, index)
        return Array(self, ndim, layout)


class NestedArray(Type):
    """A record's fixed-size array field: element type and shape (what the
    field reads as in a kernel: a C-ordered array over the record's bytes)."""

    __slots__ = ("dtype", "shape")

    def __init__(self, dtype, shape):
        self.dtype = dtype
        self.shape = tuple(int(e) for e in (shape if isinstance(shape, tuple) else (shape,)))

    ndim = property(lambda self: len(self.shape))
    nitems = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))

    @property
    def spec(self):
        return f"nestedarray({self.dtype.spec}, {self.shape!r})"


class VectorType(Type):
    """A CUDA vector type (``cuda.float32x3``'s type in a kernel): its element
    type and members, as numba-cuda's VectorType."""

    __slots__ = ("base_type", "attr_names")

    def __init__(self, base_type, count):
        if not isinstance(base_type, (Integer, Float)) or base_type.name == "float16" or not 1 <= count <= 4:
            raise ValueError(f"a vector type has 1 to 4 elements of an integer or float32/float64 type")
        self.base_type = base_type
        self.attr_names = ("x", "y", "z", "w")[:count]

    num_elements = property(lambda self: len(self.attr_names))

    @property
    def spec(self):
        return f"{self.base_type.name}x{self.num_elements}"


def _array_spec(dtype, index):
    """(ndim, layout) of ``dtype[index]``: Numba's rules for slices without bounds."""

    def plain(s):
        return isinstance(s, slice) and s.start is None and s.stop is None and s.step in (None, 1)

    if isinstance(index, tuple) and index and all(plain(s) for s in index):
        ndim = len(index)
        if index[0].step == 1:
            layout = "F"
        elif index[-1].step == 1:
            layout = "C"
        else:
            layout = "A"
        return ndim, layout
    if plain(index):
        return 1, "C" if index.step == 1 else "A"
    raise KeyError(
        f"array types are made with slices without bounds ({dtype}[:], {dtype}[::1], {dtype}[:, ::1]...), "
        f"not {dtype}[{index!r}]"
    )


class Array(Type):
    """An array type: element type, dimensions, layout (C, F or A) and
    whether it is read-only."""

    __slots__ = ("_dtype", "_ndim", "_layout", "_readonly")

    def __init__(self, dtype: Scalar, ndim: int, layout: str = "A", readonly: bool = False):
        if not isinstance(dtype, (Scalar, Record)):
            raise TypeError(f"an array's element type must be a scalar type or a record, not {dtype!r}")
        if not isinstance(ndim, numbers.Integral) or ndim < 0:
            raise ValueError(f"ndim must be a non-negative integer, not {ndim!r}")
        if layout not in ("C", "F", "A"):
            raise ValueError(f"layout must be 'C', 'F' or 'A', not {layout!r}")
        # A 0-d or 1-d array contiguous one way is contiguous both ways: say C
        # (as the compiler does, so specs agree).
        if ndim <= 1 and layout == "F":
            layout = "C"
        self._dtype = dtype
        self._ndim = int(ndim)
        self._layout = layout
        self._readonly = bool(readonly)

    dtype = property(lambda self: self._dtype)
    ndim = property(lambda self: self._ndim)
    layout = property(lambda self: self._layout)
    readonly = property(lambda self: self._readonly)
    mutable = property(lambda self: not self._readonly)

    @property
    def typestr(self) -> str:
        """The element type's NumPy type string."""
        return self._dtype.dtype.str

    @property
    def spec(self):
        ro = ", readonly" if self._readonly else ""
        return f"array({self._dtype.spec}, {self._ndim}d, {self._layout}{ro})"

    @property
    def is_c_contig(self):
        return self._layout == "C"

    @property
    def is_f_contig(self):
        return self._layout == "F" or (self._ndim <= 1 and self._layout == "C")

    def copy(self, dtype=None, ndim=None, layout=None, readonly=None):
        """This type with some of its parts replaced (Numba's Array.copy)."""
        return Array(
            self._dtype if dtype is None else dtype,
            self._ndim if ndim is None else ndim,
            self._layout if layout is None else layout,
            self._readonly if readonly is None else readonly,
        )

    def __repr__(self):
        ro = ", readonly=True" if self._readonly else ""
        return f"Array({self._dtype!r}, {self._ndim}, {self._layout!r}{ro})"


class _BaseTuple(Type):
    __slots__ = ("_types",)

    @property
    def types(self) -> tuple:
        return self._types

    def __len__(self):
        return len(self._types)

    def __iter__(self):
        return iter(self._types)

    def __getitem__(self, i):
        return self._types[i]


class _Uniform:
    """What UniTuple and NamedUniTuple add to a tuple: the one element type and the count."""

    __slots__ = ()

    @property
    def dtype(self):
        return self._types[0]

    @property
    def count(self):
        return len(self._types)


def _one_type(types) -> bool:
    """Whether a tuple of these element types is homogeneous (a UniTuple, as Numba spells it)."""
    return bool(types) and all(t == types[0] for t in types)


class UniTuple(_Uniform, _BaseTuple):
    """A tuple of ``count`` values of one type."""

    __slots__ = ()

    def __init__(self, dtype: Type, count: int):
        if not isinstance(dtype, Type):
            raise TypeError(f"UniTuple needs a type, not {dtype!r}")
        if not isinstance(count, numbers.Integral) or count < 1:
            raise ValueError(f"UniTuple needs a positive count, not {count!r}")
        self._types = (dtype,) * int(count)

    @property
    def spec(self):
        return f"UniTuple({self._types[0].spec} x {len(self._types)})"

    def __repr__(self):
        return f"UniTuple({self._types[0]!r}, {len(self._types)})"


class Tuple(_BaseTuple):
    """A tuple of values of several types. ``Tuple((int64, int64))`` is a
    ``UniTuple`` (as in Numba: one spelling per type)."""

    __slots__ = ()

    def __new__(cls, types=()):
        types = tuple(types)
        if _one_type(types):
            return UniTuple(types[0], len(types))
        return super().__new__(cls)

    def __init__(self, types=()):
        types = tuple(types)
        for t in types:
            if not isinstance(t, Type):
                raise TypeError(f"Tuple needs types, not {t!r}")
        self._types = types

    @property
    def spec(self):
        return "Tuple(" + ", ".join(t.spec for t in self._types) + ")"

    def __repr__(self):
        inner = ", ".join(repr(t) for t in self._types)
        return f"Tuple(({inner}{',' if len(self._types) == 1 else ''}))"


class _NamedTupleBase(_BaseTuple):
    __slots__ = ("_cls",)

    @property
    def cls(self):
        """The namedtuple class."""
        return self._cls

    @property
    def fields(self) -> tuple:
        return tuple(self._cls._fields)

    @property
    def spec(self):
        inner = ", ".join(f"{f}: {t.spec}" for f, t in zip(self.fields, self._types))
        return f"{self._cls.__name__}({inner})"


def _check_namedtuple(cls, count):
    fields = getattr(cls, "_fields", None)
    if not (isinstance(cls, type) and issubclass(cls, tuple) and isinstance(fields, tuple)):
        raise TypeError(f"a named tuple type needs a namedtuple class, not {cls!r}")
    if len(fields) != count:
        raise ValueError(f"{cls.__name__} has {len(fields)} fields, not {count}")


class NamedUniTuple(_Uniform, _NamedTupleBase):
    """A namedtuple instance's type whose fields share one type (Numba's NamedUniTuple)."""

    __slots__ = ()

    def __init__(self, dtype: Type, count: int, cls):
        if not isinstance(dtype, Type):
            raise TypeError(f"NamedUniTuple needs a type, not {dtype!r}")
        _check_namedtuple(cls, count)
        self._types = (dtype,) * int(count)
        self._cls = cls

    def __repr__(self):
        return f"NamedUniTuple({self._types[0]!r}, {len(self._types)}, {self._cls.__name__})"


class NamedTuple(_NamedTupleBase):
    """A namedtuple instance's type (Numba's NamedTuple; one type for all
    fields makes a NamedUniTuple)."""

    __slots__ = ()

    def __new__(cls, types, klass):
        types = tuple(types)
        if _one_type(types):
            return NamedUniTuple(types[0], len(types), klass)
        return super().__new__(cls)

    def __init__(self, types, klass):
        types = tuple(types)
        for t in types:
            if not isinstance(t, Type):
                raise TypeError(f"NamedTuple needs types, not {t!r}")
        _check_namedtuple(klass, len(types))
        self._types = types
        self._cls = klass

    def __repr__(self):
        return f"NamedTuple({self._types!r}, {self._cls.__name__})"


class Signature:
    """A function's type: its argument types and return type (None when the
    compiler is to infer it). ``void(float32[:])`` makes one."""

    __slots__ = ("_return_type", "_args")

    def __init__(self, return_type, args):
        if return_type is not None and not isinstance(return_type, Type):
            raise TypeError(f"a return type must be a type, not {return_type!r}")
        args = tuple(args)
        for a in args:
            if not isinstance(a, Type):
                raise TypeError(f"argument types must be types, not {a!r}")
        self._return_type = return_type
        self._args = args

    return_type = property(lambda self: self._return_type)
    args = property(lambda self: self._args)

    @property
    def arg_specs(self) -> list:
        """The argument types in the compiler's spelling."""
        return [a.spec for a in self._args]

    def __eq__(self, other):
        return isinstance(other, Signature) and (other._return_type, other._args) == (self._return_type, self._args)

    def __hash__(self):
        return hash((self._return_type, self._args))

    def __repr__(self):
        ret = "" if self._return_type is None else repr(self._return_type)
        return f"{ret}({', '.join(repr(a) for a in self._args)})"

    def __str__(self):
        ret = "?" if self._return_type is None else str(self._return_type)
        return f"({', '.join(str(a) for a in self._args)}{',' if len(self._args) == 1 else ''}) -> {ret}"


class Bfloat16(Type):
    """numba-cuda's bfloat16 (``numba.cuda.types.bfloat16``, CUDA's ``__nv_bfloat16``): 16 bits, no
    Number in Numba's typing: its operators and math are ``cuda.bf16``'s, other uses widen it to
    float32. Made in kernels by ``cuda.bf16.bfloat16(x)``."""

    __slots__ = ()
    name = spec = "bfloat16"
    bitwidth = 16

    def __repr__(self):
        return "bfloat16"


# --- the types -------------------------------------------------------------------

none = NoneType()
void = none
#: Numba's ``voidptr``: a pointer to anything (``void*``), for declared functions' parameters.
voidptr = CPointer(none)
bfloat16 = Bfloat16()

# One Scalar per row of the scalar-type table (cuforge/runtime/scalar_types.hpp),
# bound under its name and Numba's other names for it (float32, f4, float_...).
# A name that is also a Python builtin ("bool") is only a signature word.
_KIND_CLASS = {"b": Boolean, "i": Integer, "u": Integer, "f": Float, "c": Complex}
_SCALARS = {row["name"]: _KIND_CLASS[row["kind"]](row["name"]) for row in _TABLE}
for _row in _TABLE:
    for _name in (_row["name"], *_row["numba_aliases"]):
        if not hasattr(builtins, _name):
            globals()[_name] = _SCALARS[_row["name"]]
del _row, _name
_BY_TYPESTR = {t.typestr[1:]: t for t in _SCALARS.values()}

# numba.types' domains: sets of the scalar types of a kind.
signed_domain = frozenset(t for t in _SCALARS.values() if isinstance(t, Integer) and t.signed)
unsigned_domain = frozenset(t for t in _SCALARS.values() if isinstance(t, Integer) and not t.signed)
integer_domain = signed_domain | unsigned_domain
real_domain = frozenset(_SCALARS[n] for n in ("float32", "float64"))  # float16 is not among them, as in Numba
complex_domain = frozenset(t for t in _SCALARS.values() if isinstance(t, Complex))
number_domain = real_domain | integer_domain | complex_domain

# Every name a signature string may use.
_NAMESPACE = {name: value for name, value in dict(globals()).items()
              if isinstance(value, Type) and not name.startswith("_")}
_NAMESPACE.update(Array=Array, UniTuple=UniTuple, Tuple=Tuple, CPointer=CPointer)
_NAMESPACE.update({name: t for name, t in _SCALARS.items() if name not in _NAMESPACE})  # "bool": the spec's name

__all__ += sorted(name for name in _NAMESPACE if name not in __all__ and name != "bool")

_SIGNATURE_NODES = (ast.Expression, ast.Call, ast.Name, ast.Load, ast.Subscript, ast.Slice, ast.Tuple,
                    ast.List, ast.Constant, ast.keyword)


# --- signatures --------------------------------------------------------------------


def parse_signature(text: str):
    """A signature string: ``'void(float32[:], float32[::1])'`` gives a
    Signature; ``'(float32[:], int64)'`` the argument types alone (a tuple).
    Only this module's type names may appear: the text is checked node by
    node before it is evaluated, and nothing else is reachable from it."""
    if not isinstance(text, str):
        raise TypeError(f"a signature string is a str, not {type(text).__name__}")
    return _parse_signature(text)


# Types and signatures are values that never change, so a string read once is answered from the
# cache after (parsing it again was about 0.07 ms of every compile_ptx and eager jit).
@functools.lru_cache(maxsize=4096)
def _parse_signature(text: str):
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        raise ValueError(f"cannot read the signature {text!r}: {e.msg}") from None
    for node in ast.walk(tree):
        if not isinstance(node, _SIGNATURE_NODES):
            raise ValueError(f"cannot read the signature {text!r}: {type(node).__name__} is not allowed in a signature")
        if isinstance(node, ast.Name) and node.id not in _NAMESPACE:
            raise ValueError(f"cannot read the signature {text!r}: unknown type name {node.id!r}")
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, str, type(None))):
            raise ValueError(f"cannot read the signature {text!r}: unexpected constant {node.value!r}")
    try:
        value = eval(compile(tree, "<signature>", "eval"), {"__builtins__": {}}, dict(_NAMESPACE))  # noqa: S307
    except (TypeError, ValueError, KeyError) as e:
        raise ValueError(f"cannot read the signature {text!r}: {e}") from None
    if isinstance(value, Type):
        value = (value,)
    if isinstance(value, (tuple, list)):
        value = tuple(value)
        if not all(isinstance(v, Type) for v in value):
            raise ValueError(f"cannot read the signature {text!r}: argument types expected")
        return value
    if isinstance(value, Signature):
        return value
    raise ValueError(f"cannot read the signature {text!r}")


def is_signature(obj) -> bool:
    """Whether ``obj`` is something a signature may be given as: a string,
    a Signature, or a tuple of argument types."""
    return isinstance(obj, (str, Signature)) or (
        isinstance(obj, tuple) and all(isinstance(t, Type) for t in obj)
    )


def normalize_signature(sig):
    """``(argument types, return type or None)`` of a signature given as a
    string, a Signature or a tuple of types."""
    if isinstance(sig, str):
        sig = parse_signature(sig)
    if isinstance(sig, Signature):
        return sig.args, sig.return_type
    if isinstance(sig, (tuple, list)) and all(isinstance(t, Type) for t in sig):
        return tuple(sig), None
    raise TypeError(
        f"invalid signature {sig!r}: expected a string ('void(float32[:])'), a Signature (void(float32[:])) "
        "or a tuple of argument types"
    )


# --- specs ---------------------------------------------------------------------------


def from_spec(spec: str) -> Type:
    """The type a spec names (the inverse of ``.spec``; the C++ parse_type's
    grammar): ``"float32"``, ``"array(float32, 2d, C)"``,
    ``"UniTuple(int64 x 2)"``, ``"Tuple(int64, float32)"``, ``"none"``,
    ``"OptionalType(int64)"``."""
    parser = _SpecParser(spec)
    t = parser.one()
    parser.skip()
    if parser.pos != len(spec):
        parser.fail("unexpected text")
    return t


class _SpecParser:
    def __init__(self, s):
        self.s, self.pos = s, 0

    def fail(self, why):
        raise ValueError(f"cannot read the type {self.s!r}: {why} at position {self.pos}")

    def skip(self):
        while self.pos < len(self.s) and self.s[self.pos] == " ":
            self.pos += 1

    def eat(self, c):
        self.skip()
        if self.s.startswith(c, self.pos):
            self.pos += len(c)
            return True
        return False

    def expect(self, c):
        if not self.eat(c):
            self.fail(f"expected {c!r}")

    def word(self):
        self.skip()
        start = self.pos
        while self.pos < len(self.s) and (self.s[self.pos].isalnum() or self.s[self.pos] == "_"):
            self.pos += 1
        if start == self.pos:
            self.fail("expected a name")
        return self.s[start:self.pos]

    def one(self):
        w = self.word()
        if w == "array":
            self.expect("(")
            dtype = self.one()
            self.expect(",")
            dims = self.word()
            if not (dims.endswith("d") and dims[:-1].isdigit()):
                self.fail("expected the dimension count (2d)")
            self.expect(",")
            layout = self.word()
            if layout not in ("C", "F", "A"):
                self.fail("layout must be C, F or A")
            readonly = False
            if self.eat(","):
                if self.word() != "readonly":
                    self.fail("expected 'readonly'")
                readonly = True
            self.expect(")")
            if not isinstance(dtype, (Scalar, Record, _NPTime)):
                self.fail("an array's dtype must be a scalar type or a record")
            return Array(dtype, int(dims[:-1]), layout, readonly)
        if w == "Record":
            return self.record()
        if w == "UniTuple":
            self.expect("(")
            t = self.one()
            if self.word() != "x":
                self.fail("expected 'x'")
            n = self.word()
            if not n.isdigit():
                self.fail("expected a count")
            self.expect(")")
            return UniTuple(t, int(n))
        if w == "Tuple":
            self.expect("(")
            elements = []
            if not self.eat(")"):
                elements.append(self.one())
                while self.eat(","):
                    elements.append(self.one())
                self.expect(")")
            return Tuple(elements)
        if w == "none":
            return none
        if w == "OptionalType":
            self.expect("(")
            t = self.one()
            self.expect(")")
            return Optional(t)
        if self.eat("("):  # a named tuple: Class(field: type, ...)
            fields, elements = [], []
            while True:
                fields.append(self.word())
                self.expect(":")
                elements.append(self.one())
                if not self.eat(","):
                    break
            self.expect(")")
            return NamedTuple(elements, collections.namedtuple(w, fields))
        if w in _SCALARS:
            return _SCALARS[w]
        if w == "bfloat16":
            return bfloat16
        if w in ("datetime64", "timedelta64"):  # "datetime64[D]", "timedelta64" (generic)
            unit = ""
            if self.eat("["):
                unit = self.word() if not self.eat("]") else None
                if unit is None:
                    unit = ""
                else:
                    self.expect("]")
            return (NPDatetime if w == "datetime64" else NPTimedelta)(unit)
        base, x, count = w.rpartition("x")
        if x and base in _SCALARS and count in ("1", "2", "3", "4"):
            return VectorType(_SCALARS[base], int(count))
        self.fail(f"unknown type name {w!r}")

    def number(self):
        n = self.word()
        if not n.isdigit():
            self.fail("expected a number")
        return int(n)

    def record(self):
        """Record(name[type=T;offset=N],...;size;True|False): the NumPy dtype it describes, as a Record."""
        self.expect("(")
        names, formats, offsets = [], [], []
        self.skip()
        if not self.s.startswith(";", self.pos):
            while True:
                end = self.s.find("[", self.pos)
                if end < 0:
                    self.fail("expected a field name and '['")
                names.append(self.s[self.pos:end].strip())
                self.pos = end + 1
                if self.word() != "type":
                    self.fail("expected 'type='")
                self.expect("=")
                mark = self.pos
                if self.word() == "nestedarray":
                    self.expect("(")
                    t = self.one()
                    self.expect(",")
                    self.expect("(")
                    shape = []
                    while not self.eat(")"):
                        shape.append(self.number())
                        self.eat(",")
                    self.expect(")")
                    formats.append((as_dtype(t), tuple(shape)))
                else:
                    self.pos = mark
                    formats.append(as_dtype(self.one()))
                self.expect(";")
                if self.word() != "offset":
                    self.fail("expected 'offset='")
                self.expect("=")
                offsets.append(self.number())
                self.expect("]")
                if not self.eat(","):
                    break
        self.expect(";")
        size = self.number()
        self.expect(";")
        aligned = self.word()
        if aligned not in ("True", "False"):
            self.fail("expected True or False")
        self.expect(")")
        spec = {"names": names, "formats": formats, "offsets": offsets, "itemsize": size}
        return Record(np.dtype(spec, align=aligned == "True"))


# --- typeof -----------------------------------------------------------------------------


def from_dtype(dtype) -> Type:
    """The type of a NumPy dtype (or anything np.dtype() takes): a scalar
    type, a Record for a structured dtype, NPDatetime / NPTimedelta."""
    dt = np.dtype(dtype)
    if dt.fields is not None:
        return Record(dt)
    if dt.kind in "Mm":
        unit = np.datetime_data(dt)[0]
        return (NPDatetime if dt.kind == "M" else NPTimedelta)("" if unit == "generic" else unit)
    t = _BY_TYPESTR.get(dt.str[1:]) if dt.kind in "biufc" else None
    if t is None:
        raise ValueError(f"unsupported dtype {dt} (kernels take booleans, integers, floats and complex numbers)")
    return t


def as_dtype(t: Type) -> np.dtype:
    """The NumPy dtype of a type (from_dtype's inverse)."""
    dt = getattr(t, "dtype", None)
    if isinstance(t, (Scalar, Record, _NPTime)) and isinstance(dt, np.dtype):
        return dt
    raise NotImplementedError(f"{t!r} has no NumPy dtype")


def _layout_of_strides(shape, strides, itemsize) -> str:
    """'C', 'F' or 'A' for an array of this shape and byte strides (NumPy's
    contiguity rules: extents of 1 do not constrain; empty arrays are both)."""
    if strides is None:
        return "C"
    shape, strides = tuple(shape), tuple(strides)
    if any(n == 0 for n in shape):
        return "C"

    def contiguous(order):
        expect = itemsize
        for n, s in order:
            if n != 1 and s != expect:
                return False
            expect *= n
        return True

    if contiguous(reversed(list(zip(shape, strides)))):
        return "C"
    if contiguous(zip(shape, strides)):
        return "F"
    return "A"


def _layout_of_flags(flags) -> str:
    c = flags["C_CONTIGUOUS"]
    f = flags["F_CONTIGUOUS"]
    return "C" if c else ("F" if f else "A")


def _array_type_of_interface(cai) -> Array:
    dtype = from_dtype(np.dtype(cai["typestr"]))
    shape = tuple(cai["shape"])
    layout = _layout_of_strides(shape, cai.get("strides"), dtype.dtype.itemsize)
    readonly = bool(cai.get("data", (0, False))[1])
    return Array(dtype, len(shape), layout, readonly)


def typeof(value) -> Type:
    """The type a kernel compiles for when given ``value``:

    - NumPy arrays and device arrays (cuforge's DeviceNDArray, and anything
      with ``__cuda_array_interface__`` or DLPack): dtype, ndim, layout from
      their flags or strides, read-only when not writeable;
    - ``bool`` -> bool, ``int`` -> int64 (uint64 beyond int64's range),
      ``float`` -> float64, ``complex`` -> complex128, NumPy scalars -> their
      dtype, None -> none, tuples -> UniTuple/Tuple of their elements.

    Raises ValueError for anything else (as Numba's typeof does)."""
    if isinstance(value, Type):
        raise ValueError(f"{value!r} is a type, not a value")
    if isinstance(value, np.ndarray):
        return Array(from_dtype(value.dtype), value.ndim, _layout_of_flags(value.flags), not value.flags.writeable)
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, np.generic):
        return from_dtype(value.dtype)
    if isinstance(value, int):
        if -(2**63) <= value < 2**63:
            return int64
        if 0 <= value < 2**64:
            return uint64
        raise ValueError(f"the integer {value} does not fit in 64 bits")
    if isinstance(value, float):
        return float64
    if isinstance(value, complex):
        return complex128
    if value is None:
        return none
    if isinstance(value, tuple):
        elements = [typeof(v) for v in value]
        if elements and isinstance(getattr(type(value), "_fields", None), tuple):
            return NamedTuple(elements, type(value))
        return Tuple(elements)
    return _typeof_device_array(value)


def _typeof_device_array(value) -> Type:
    if getattr(type(value), "_cuforge_record", False):  # a DeviceRecord
        return from_dtype(value.dtype)
    if _core.is_device_array(value):
        flags = value.flags
        return Array(from_dtype(value.dtype), value.ndim, _layout_of_flags(flags), not flags["WRITEABLE"])
    cai = getattr(value, "__cuda_array_interface__", None)
    if isinstance(cai, dict):
        return _array_type_of_interface(cai)
    if hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__"):
        # A view without a copy; only its shape, strides and dtype are read.
        return _typeof_device_array(_core.from_dlpack(value))
    raise ValueError(
        f"cannot determine the type of a {type(value).__name__} argument: kernels take arrays (NumPy, device "
        "arrays, __cuda_array_interface__ or DLPack producers), numbers, booleans, None and tuples of them"
    )
