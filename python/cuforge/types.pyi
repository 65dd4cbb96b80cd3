from typing import Any, Iterator, Optional, Sequence, Tuple as _Tuple, Union

import numpy as np

class Type:
    def __init__(self, name: Optional[str] = None) -> None: ...
    @property
    def spec(self) -> str: ...
    @property
    def name(self) -> str: ...
    def __call__(self, *args: Type) -> Signature: ...

class NoneType(Type):
    typestr: None

class Scalar(Type):
    def __init__(self, name: str) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def typestr(self) -> str: ...
    @property
    def dtype(self) -> np.dtype: ...
    @property
    def bitwidth(self) -> int: ...
    def __call__(self, *args: Any) -> Any: ...  # types: a Signature; one value: that value converted
    def __getitem__(self, index: Union[slice, _Tuple[slice, ...]]) -> Array: ...

class Boolean(Scalar): ...
class Number(Scalar): ...

class Integer(Number):
    @property
    def signed(self) -> bool: ...

class Float(Number): ...

class Complex(Number):
    @property
    def underlying_float(self) -> Float: ...

class CPointer(Type):
    dtype: Type
    addrspace: Optional[int]
    def __init__(self, dtype: Type, addrspace: Optional[int] = None) -> None: ...

class NPDatetime(Type):
    unit: str
    dtype: np.dtype
    def __init__(self, unit: str = "") -> None: ...

class NPTimedelta(Type):
    unit: str
    dtype: np.dtype
    def __init__(self, unit: str = "") -> None: ...

class Record(Type):
    dtype: np.dtype
    fields: dict
    size: int
    aligned: bool
    def __init__(self, dtype: Any) -> None: ...
    @property
    def members(self) -> list: ...
    def offset(self, name: str) -> int: ...
    def typeof(self, name: str) -> Type: ...

class Array(Type):
    def __init__(self, dtype: Scalar, ndim: int, layout: str = "A", readonly: bool = False) -> None: ...
    @property
    def dtype(self) -> Scalar: ...
    @property
    def ndim(self) -> int: ...
    @property
    def layout(self) -> str: ...
    @property
    def readonly(self) -> bool: ...
    @property
    def mutable(self) -> bool: ...
    @property
    def typestr(self) -> str: ...
    @property
    def is_c_contig(self) -> bool: ...
    @property
    def is_f_contig(self) -> bool: ...
    def copy(self, dtype: Optional[Scalar] = None, ndim: Optional[int] = None, layout: Optional[str] = None,
             readonly: Optional[bool] = None) -> Array: ...

class UniTuple(Type):
    def __init__(self, dtype: Type, count: int) -> None: ...
    @property
    def types(self) -> _Tuple[Type, ...]: ...
    @property
    def dtype(self) -> Type: ...
    @property
    def count(self) -> int: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Type]: ...
    def __getitem__(self, i: int) -> Type: ...

class Tuple(Type):
    def __new__(cls, types: Sequence[Type] = ...) -> Union[Tuple, UniTuple]: ...  # type: ignore[misc]
    @property
    def types(self) -> _Tuple[Type, ...]: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Type]: ...
    def __getitem__(self, i: int) -> Type: ...

class Signature:
    def __init__(self, return_type: Optional[Type], args: Sequence[Type]) -> None: ...
    @property
    def return_type(self) -> Optional[Type]: ...
    @property
    def args(self) -> _Tuple[Type, ...]: ...
    @property
    def arg_specs(self) -> list[str]: ...

def parse_signature(text: str) -> Union[Signature, _Tuple[Type, ...]]: ...
def is_signature(obj: Any) -> bool: ...
def normalize_signature(sig: Any) -> _Tuple[_Tuple[Type, ...], Optional[Type]]: ...
def from_spec(spec: str) -> Type: ...
def from_dtype(dtype: Any) -> Type: ...
def as_dtype(t: Type) -> np.dtype: ...
def typeof(value: Any) -> Type: ...

signed_domain: frozenset
unsigned_domain: frozenset
integer_domain: frozenset
real_domain: frozenset
complex_domain: frozenset
number_domain: frozenset

none: NoneType
void: NoneType
bool_: Scalar
boolean: Scalar
b1: Scalar
int8: Scalar
i1: Scalar
char: Scalar
int16: Scalar
i2: Scalar
short: Scalar
int32: Scalar
i4: Scalar
intc: Scalar
int64: Scalar
i8: Scalar
intp: Scalar
int_: Scalar
long_: Scalar
longlong: Scalar
ssize_t: Scalar
uint8: Scalar
u1: Scalar
byte: Scalar
uchar: Scalar
uint16: Scalar
u2: Scalar
ushort: Scalar
uint32: Scalar
u4: Scalar
uintc: Scalar
uint: Scalar
uint64: Scalar
u8: Scalar
uintp: Scalar
ulong: Scalar
ulonglong: Scalar
size_t: Scalar
float16: Scalar
f2: Scalar
half: Scalar
float32: Scalar
f4: Scalar
float_: Scalar
float64: Scalar
f8: Scalar
double: Scalar
complex64: Scalar
c8: Scalar
complex128: Scalar
c16: Scalar
