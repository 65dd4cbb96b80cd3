"""cuforge.types: type objects, array types by slicing, signatures (objects
and strings), specs both ways, and typeof of every kind of argument."""

import numpy as np
import pytest

from cuforge import _core, cuda
from cuforge import types as t
from cuforge.types import float32, int64, void  # the import users write


@pytest.mark.parametrize(
    "ty, spec, typestr",
    [
        (t.bool_, "bool", "|b1"),
        (t.int8, "int8", "|i1"),
        (t.int16, "int16", "<i2"),
        (t.int32, "int32", "<i4"),
        (t.int64, "int64", "<i8"),
        (t.uint8, "uint8", "|u1"),
        (t.uint16, "uint16", "<u2"),
        (t.uint32, "uint32", "<u4"),
        (t.uint64, "uint64", "<u8"),
        (t.float16, "float16", "<f2"),
        (t.float32, "float32", "<f4"),
        (t.float64, "float64", "<f8"),
        (t.complex64, "complex64", "<c8"),
        (t.complex128, "complex128", "<c16"),
    ],
)
def test_scalars(ty, spec, typestr):
    assert ty.spec == spec == str(ty) == repr(ty)
    assert ty.typestr == typestr
    assert ty.dtype == np.dtype(typestr)
    assert ty.bitwidth == np.dtype(typestr).itemsize * 8
    assert t.from_spec(spec) is ty


def test_aliases_are_numbas():
    assert t.boolean is t.bool_ is t.b1
    assert t.intp is t.int64 and t.uintp is t.uint64
    assert t.byte is t.uint8
    assert t.float_ is t.float32  # Numba's float_ is float32
    assert t.double is t.float64
    assert t.void is t.none and t.void.spec == "none" and t.void.typestr is None
    assert (t.f4, t.f8, t.i4, t.i8, t.u1, t.c8, t.c16) == (t.float32, t.float64, t.int32, t.int64, t.uint8,
                                                           t.complex64, t.complex128)


def test_types_compare_and_hash_by_spec():
    assert t.float32[:] == t.Array(t.float32, 1, "A")
    assert hash(t.float32[::1]) == hash(t.Array(t.float32, 1, "C"))
    assert t.float32[:] != t.float32[::1]
    assert t.float32 != t.float64
    assert len({t.float32[:, ::1], t.Array(t.float32, 2, "C"), t.float32[:, :]}) == 2


@pytest.mark.parametrize(
    "ty, spec",
    [
        (float32[:], "array(float32, 1d, A)"),
        (float32[::1], "array(float32, 1d, C)"),
        (float32[:, :], "array(float32, 2d, A)"),
        (float32[:, ::1], "array(float32, 2d, C)"),
        (float32[::1, :], "array(float32, 2d, F)"),
        (float32[:, :, ::1], "array(float32, 3d, C)"),
        (float32[::1, :, :], "array(float32, 3d, F)"),
        (t.int8[:, :, :, :], "array(int8, 4d, A)"),
        (t.Array(float32, 1, "F"), "array(float32, 1d, C)"),  # 1-d F is C
        (t.Array(t.uint16, 2, "C", readonly=True), "array(uint16, 2d, C, readonly)"),
        (float32[:, ::1].copy(readonly=True), "array(float32, 2d, C, readonly)"),
        (float32[:].copy(dtype=t.int32, ndim=3), "array(int32, 3d, A)"),
        (t.UniTuple(int64, 2), "UniTuple(int64 x 2)"),
        (t.Tuple((int64, float32)), "Tuple(int64, float32)"),
        (t.Tuple((int64, int64)), "UniTuple(int64 x 2)"),
        (t.Tuple(()), "Tuple()"),
        (t.Tuple((float32[:], t.UniTuple(t.bool_, 3))), "Tuple(array(float32, 1d, A), UniTuple(bool x 3))"),
    ],
)
def test_compound_types_and_their_specs(ty, spec):
    assert ty.spec == spec == str(ty)
    assert t.from_spec(spec) == ty
    assert t.parse_signature(repr(ty)) == (ty,)  # repr is Numba's spelling, which signatures read


def test_array_type_attributes():
    a = float32[:, ::1]
    assert (a.dtype, a.ndim, a.layout, a.readonly, a.mutable) == (float32, 2, "C", False, True)
    assert a.typestr == "<f4" and a.is_c_contig and not a.is_f_contig
    assert repr(a) == "Array(float32, 2, 'C')"


@pytest.mark.parametrize("index", [slice(1, None), slice(None, 3), slice(None, None, 2), 0, (slice(None), 1), ()])
def test_array_types_need_plain_slices(index):
    with pytest.raises(KeyError, match="slices without bounds"):
        float32[index]


def test_bad_compound_types():
    with pytest.raises(TypeError):
        t.Array(float32[:], 1)
    with pytest.raises(ValueError):
        t.Array(float32, 1, "X")
    with pytest.raises(ValueError):
        t.Array(float32, -1)
    with pytest.raises(ValueError):
        t.UniTuple(float32, 0)
    with pytest.raises(TypeError):
        t.Tuple((1, 2))


def test_signatures():
    sig = void(float32[:], float32[::1])
    assert isinstance(sig, t.Signature)
    assert sig.return_type is t.none and sig.args == (float32[:], float32[::1])
    assert sig.arg_specs == ["array(float32, 1d, A)", "array(float32, 1d, C)"]
    assert str(sig) == "(array(float32, 1d, A), array(float32, 1d, C)) -> none"
    assert repr(sig) == "none(Array(float32, 1, 'A'), Array(float32, 1, 'C'))"
    assert float32(float32, int64) == t.Signature(float32, (float32, int64))
    assert void() == t.Signature(t.none, ())
    assert str(float32(int64)) == "(int64,) -> float32"


def test_calling_a_scalar_type_with_a_value_converts_it():
    x = float32(1.5)
    assert type(x) is np.float32 and x == 1.5
    assert type(t.int8(300 - 256)) is np.int8
    with pytest.raises(TypeError):
        void(1)
    with pytest.raises(TypeError):
        float32[:](1)  # an array type makes signatures only


@pytest.mark.parametrize(
    "text, args, ret",
    [
        ("void(float32[:], float32[::1])", (float32[:], float32[::1]), t.none),
        ("float32(float32, int64)", (float32, int64), float32),
        ("none()", (), t.none),
        ("void(float64[:, ::1], float64[::1, :], int32)", (t.float64[:, ::1], t.float64[::1, :], t.int32), t.none),
        ("(float32[:], int64)", (float32[:], int64), None),
        ("float32[:]", (float32[:],), None),
        ("  void( f4[:] , i8 ) ", (float32[:], int64), t.none),
        ("void(UniTuple(int64, 2), Tuple((int64, float32)))", (t.UniTuple(int64, 2), t.Tuple((int64, float32))),
         t.none),
        ("void(Array(float32, 2, 'C', readonly=True))", (t.Array(float32, 2, "C", readonly=True),), t.none),
        ("uint8(bool_, boolean, intp, double)", (t.bool_, t.bool_, int64, t.float64), t.uint8),
    ],
)
def test_signature_strings(text, args, ret):
    assert t.normalize_signature(text) == (args, ret)


@pytest.mark.parametrize(
    "text, why",
    [
        ("__import__('os').system('true')", "Attribute is not allowed"),
        ("float32.__class__", "Attribute is not allowed"),
        ("open('x')", "unknown type name 'open'"),
        ("void(float32[:]", "cannot read the signature"),
        ("void(float33)", "unknown type name 'float33'"),
        ("void(float32[1:])", "slices without bounds"),
        ("void(lambda: 0)", "Lambda is not allowed"),
        ("void([x for x in ()])", "is not allowed"),
        ("void(1.5)", "unexpected constant"),
        ("void(int32[:](float32))", "cannot read the signature"),
    ],
)
def test_signature_strings_are_read_safely(text, why):
    with pytest.raises(ValueError, match="cannot read the signature") as info:
        t.parse_signature(text)
    assert why in str(info.value)


def test_normalize_signature_forms():
    assert t.normalize_signature(void(float32)) == ((float32,), t.none)
    assert t.normalize_signature((float32, int64)) == ((float32, int64), None)
    assert t.normalize_signature([float32]) == ((float32,), None)
    for bad in (float32, 3, (float32, 3)):
        with pytest.raises(TypeError, match="invalid signature"):
            t.normalize_signature(bad)
    assert t.is_signature("void()") and t.is_signature(void()) and t.is_signature((float32,))
    assert not t.is_signature(float32) and not t.is_signature([float32]) and not t.is_signature(print)


@pytest.mark.parametrize(
    "spec", ["float33", "array(float32, 1d, X)", "array(float32, d, C)", "UniTuple(int64 y 2)", "Tuple(int64",
             "array(float32, 1d, C) x", "array(UniTuple(int64 x 2), 1d, C)", ""]
)
def test_from_spec_refuses_what_it_cannot_read(spec):
    with pytest.raises(ValueError, match="cannot read the type"):
        t.from_spec(spec)


# --- typeof ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, spec",
    [
        (True, "bool"),
        (np.bool_(False), "bool"),
        (1, "int64"),
        (-(2**63), "int64"),
        (2**63, "uint64"),
        (1.5, "float64"),
        (1j, "complex128"),
        (None, "none"),
        (np.float32(1), "float32"),
        (np.float16(1), "float16"),
        (np.int8(1), "int8"),
        (np.uint32(1), "uint32"),
        (np.complex64(1), "complex64"),
        ((1, 2), "UniTuple(int64 x 2)"),
        ((1, 2.0), "Tuple(int64, float64)"),
        ((np.float32(1), (True,)), "Tuple(float32, UniTuple(bool x 1))"),
        ((), "Tuple()"),
        (np.zeros(3, np.float32), "array(float32, 1d, C)"),
        (np.zeros((3, 4)), "array(float64, 2d, C)"),
        (np.zeros((3, 4)).T, "array(float64, 2d, F)"),
        (np.zeros((3, 4))[:, ::2], "array(float64, 2d, A)"),
        (np.zeros(6)[::2], "array(float64, 1d, A)"),
        (np.zeros((1, 4))[:, ::1], "array(float64, 2d, C)"),
        (np.zeros((0, 3)), "array(float64, 2d, C)"),
        (np.zeros(()), "array(float64, 0d, C)"),
        (np.zeros(3, np.complex64), "array(complex64, 1d, C)"),
        (np.zeros(3, bool), "array(bool, 1d, C)"),
    ],
)
def test_typeof(value, spec):
    assert t.typeof(value).spec == spec


def test_typeof_readonly_arrays():
    a = np.zeros(3)
    a.flags.writeable = False
    assert t.typeof(a) == t.Array(t.float64, 1, "C", readonly=True)


@pytest.mark.parametrize(
    "value",
    [np.zeros(3, np.float32), np.zeros((3, 4)).T, np.zeros((3, 4))[:, ::2], 1, 1.5, 1j, True, np.float16(2),
     np.uint8(3), (1, 2.0), (1, 2)],
)
def test_typeof_agrees_with_the_launcher(value):
    assert t.typeof(value).spec == _core.typeof(value)


def test_typeof_device_arrays():
    d = cuda.to_device(np.zeros((3, 4), np.float32))
    assert t.typeof(d).spec == "array(float32, 2d, C)" == _core.typeof(d)
    assert t.typeof(d.T).spec == "array(float32, 2d, F)" == _core.typeof(d.T)


class _Interface:
    """A producer of __cuda_array_interface__ (no memory is touched by typeof)."""

    def __init__(self, shape, typestr, strides=None, readonly=False):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "strides": strides,
                                         "data": (0, readonly), "version": 3}


@pytest.mark.parametrize(
    "producer, spec",
    [
        (_Interface((3, 4), "<f4"), "array(float32, 2d, C)"),
        (_Interface((3, 4), "<f4", strides=(16, 4)), "array(float32, 2d, C)"),
        (_Interface((3, 4), "<f8", strides=(8, 24)), "array(float64, 2d, F)"),
        (_Interface((3, 4), "<i4", strides=(32, 8)), "array(int32, 2d, A)"),
        (_Interface((5,), "|u1", readonly=True), "array(uint8, 1d, C, readonly)"),
        (_Interface((5,), "<c8", strides=(16,)), "array(complex64, 1d, A)"),
    ],
)
def test_typeof_cuda_array_interface(producer, spec):
    assert t.typeof(producer).spec == spec


class _DLPackOnly:
    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_typeof_dlpack_producers():
    d = cuda.to_device(np.zeros((2, 5), np.int16))
    assert t.typeof(_DLPackOnly(d)).spec == "array(int16, 2d, C)"
    assert t.typeof(_DLPackOnly(d.T)).spec == "array(int16, 2d, F)"


@pytest.mark.parametrize("value", [[1, 2], "x", object(), 2**64, np.zeros(2, dtype="U1"), float32])
def test_typeof_refuses_what_kernels_cannot_take(value):
    with pytest.raises(ValueError):
        t.typeof(value)


def test_cuda_types_is_this_module():
    assert cuda.types is t
