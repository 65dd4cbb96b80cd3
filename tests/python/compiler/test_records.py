"""Records (structured NumPy dtypes) in kernels and device arrays, as numba-cuda
0.30 has them: arrays of records and single records as kernel arguments,
fields read and written as ``r.f``, ``r['f']`` and ``r[k]``, nested records
and fixed-size array fields, records through device functions, local and
shared arrays of records, aligned and packed layouts; DeviceNDArray of a
structured dtype with DeviceRecord elements. The first part ports the
workflows of numba-cuda's own record tests (test_record_dtype.py) and checks
the same results; every kernel also goes through ptxas (conftest.py).
"""

import os
import subprocess
import sys

import numpy as np
import pytest

from cuforge import cuda
from cuforge import types as cftypes
from cuforge.cuda.cudadrv.devicearray import DeviceRecord

recordtype = np.dtype(
    [("a", np.float64), ("b", np.int32), ("c", np.complex64), ("d", (np.uint8, 5))],
    align=True,
)
recordwitharray = np.dtype([("g", np.int32), ("h", np.float32, 2)], align=True)
recordwith2darray = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])  # packed
nested_array1_dtype = np.dtype([("array1", np.int16, (3,))], align=True)
nested_array2_dtype = np.dtype([("array2", np.int16, (3, 2))], align=True)
packed = np.dtype([("x", np.int8), ("y", np.float64), ("z", np.int16)])
inner = np.dtype([("a", np.float64), ("b", np.int32)], align=True)
nested = np.dtype([("k", np.int16), ("r", inner), ("rs", inner, 2)], align=True)


def sample(struct):
    """numba's test data: three records, as a plain structured array or a recarray."""
    ary = np.zeros(3, dtype=recordtype)
    for i in range(3):
        x = i + 1
        ary[i]["a"] = x / 2
        ary[i]["b"] = x
        ary[i]["c"] = x * 1j
        ary[i]["d"] = [x, x + 1, x + 2, x + 3, x + 4]
    return ary if struct else ary.view(np.recarray)


# --- numba-cuda's record workflows ---------------------------------------------------------


@cuda.jit
def set_a(ary, i, v):
    ary[i].a = v


@cuda.jit
def set_b(ary, i, v):
    ary[i].b = v


@cuda.jit
def set_c(ary, i, v):
    ary[i].c = v


@cuda.jit
def set_record(ary, i, j):
    ary[i] = ary[j]


@cuda.jit
def record_set_a(r, v):
    r.a = v


@cuda.jit
def record_set_b(r, v):
    r.b = v


@cuda.jit
def record_set_c(r, v):
    r.c = v


@cuda.jit
def record_read_a(r, arr):
    arr[0] = r.a


@cuda.jit
def record_read_b(r, arr):
    arr[0] = r.b


@cuda.jit
def record_read_c(r, arr):
    arr[0] = r.c


@cuda.jit
def record_write_array(r):
    r.g = 2
    r.h[0] = 3.0
    r.h[1] = 4.0


@cuda.jit
def record_write_2d_array(r):
    r.i = 3
    r.j[0, 0] = 5.0
    r.j[0, 1] = 6.0
    r.j[1, 0] = 7.0
    r.j[1, 1] = 8.0
    r.j[2, 0] = 9.0
    r.j[2, 1] = 10.0


@cuda.jit
def record_read_array(r, a):
    a[0] = r.h[0]
    a[1] = r.h[1]


@cuda.jit
def record_read_2d_array(r, a):
    a[0, 0] = r.j[0, 0]
    a[0, 1] = r.j[0, 1]
    a[1, 0] = r.j[1, 0]
    a[1, 1] = r.j[1, 1]
    a[2, 0] = r.j[2, 0]
    a[2, 1] = r.j[2, 1]


def py_set(field):
    def f(ary, i, v):
        setattr(ary[i], field, v)

    return f


@pytest.mark.parametrize("struct", [False, True], ids=["recarray", "structured"])
@pytest.mark.parametrize(
    "kernel,field,value",
    [(set_a, "a", 3.1415), (set_a, "a", np.float32(3.0)), (set_b, "b", 123), (set_b, "b", 123.75),
     (set_c, "c", 43j), (set_c, "c", np.complex128(1.5 - 2j))],
)
def test_set_field_of_an_element(struct, kernel, field, value):
    for i in range(3):
        got = sample(struct)
        expect = sample(struct).view(np.recarray)
        kernel[1, 1](got, i, value)
        py_set(field)(expect, i, value)  # NumPy's own conversion (123.75 -> 123 into the int32 field)
        assert np.all(expect == got), (i, got)


@pytest.mark.parametrize("struct", [False, True], ids=["recarray", "structured"])
def test_set_whole_record(struct):
    for i, j in [(0, 1), (1, 2), (0, 2)]:
        got, expect = sample(struct), sample(struct)
        set_record[1, 1](got, i, j)
        expect[i] = expect[j]
        assert got[i] == got[j]
        assert np.all(expect == got)


@pytest.mark.parametrize(
    "kernel,field,value",
    [(record_set_a, "a", np.float64(1.5)), (record_set_b, "b", np.int32(2)),
     (record_set_c, "c", np.complex64(4.0 + 5.0j))],
)
def test_single_record_argument_is_written_back(kernel, field, value):
    rec = sample(True).copy()[0]  # an np.void viewing its array's bytes
    kernel[1, 1](rec, value)
    assert rec[field] == value


@pytest.mark.parametrize(
    "kernel,field,value",
    [(record_read_a, "a", np.float64(1.5)), (record_read_b, "b", np.int32(2)),
     (record_read_c, "c", np.complex64(4.0 + 5.0j))],
)
def test_single_record_argument_is_read(kernel, field, value):
    rec = sample(True).copy()[0]
    rec[field] = value
    arr = np.zeros(1, value.dtype)
    kernel[1, 1](rec, arr)
    assert arr[0] == value


@pytest.mark.parametrize("struct", [False, True], ids=["recarray", "structured"])
def test_array_fields_written_and_read(struct):
    mk = (lambda dt: np.zeros(1, dt)) if struct else (lambda dt: np.recarray(1, dtype=dt))
    rec = mk(recordwitharray)[0]
    rec["g"], rec["h"] = 0, [0, 0]
    record_write_array[1, 1](rec)
    assert rec["g"] == 2 and list(rec["h"]) == [3.0, 4.0]
    out = np.zeros(2, np.float32)
    record_read_array[1, 1](rec, out)
    assert list(out) == [3.0, 4.0]

    rec2 = mk(recordwith2darray)[0]
    rec2["i"], rec2["j"] = 0, np.zeros((3, 2))
    record_write_2d_array[1, 1](rec2)
    assert rec2["i"] == 3
    np.testing.assert_array_equal(rec2["j"], np.arange(5, 11, dtype=np.float32).reshape(3, 2))
    out2 = np.zeros((3, 2), np.float32)
    record_read_2d_array[1, 1](rec2, out2)
    np.testing.assert_array_equal(out2, rec2["j"])


# Device functions that return a record or a field (numba's TestNestedArrays).


@cuda.jit(device=True)
def getitem0(ary):
    return ary[0]


@cuda.jit(device=True)
def read_h1(ary):
    return ary.h[1]


@cuda.jit(device=True)
def read_j10(ary):
    return ary.j[1, 0]


@cuda.jit
def outer_getitem0(arg, res):
    res[0] = getitem0(arg)


@cuda.jit
def outer_h1(arg, res):
    res[0] = read_h1(arg)


@cuda.jit
def outer_j10(arg, res):
    res[0] = read_j10(arg)


def test_device_function_returns_a_record_or_a_field():
    nbarr = np.recarray(2, dtype=recordwitharray)
    nbarr[0] = np.array([(1, (2, 3))], dtype=recordwitharray)[0]
    res = np.zeros(1, dtype=recordwitharray)
    outer_getitem0[1, 1](nbarr, res)  # a record returned, stored into an array of records
    assert res[0] == nbarr[0]
    res = np.zeros(1, np.int32)
    outer_getitem0[1, 1](nbarr[0], res)  # r[0]: the first field
    assert res[0] == 1
    res = np.zeros(1, np.float32)
    outer_h1[1, 1](nbarr[0], res)
    assert res[0] == 3.0
    r2 = np.zeros(1, recordwith2darray)
    r2[0]["j"] = np.asarray([1.5, 2.5, 3.5, 4.5, 5.5, 6.5], np.float32).reshape(3, 2)
    outer_j10[1, 1](r2[0], res)
    assert res[0] == 3.5


@cuda.jit
def record_setitem_array(rec_source, rec_dest):
    rec_dest["j"] = rec_source["j"]


@cuda.jit
def recarray_set_record(ary, rec):
    ary[0] = rec


@cuda.jit
def assign_array_to_nested(dest, src):
    dest["array1"] = src


@cuda.jit
def assign_array_to_nested_2d(dest, src):
    dest["array2"] = src


@cuda.jit
def copy_7693(index, src, dest):
    dest["user1"] = src[index]["user"]
    dest["array1"] = src[index]["array"]


def test_nested_arrays_assigned_whole():
    def gen():
        a = np.recarray(1, dtype=recordwith2darray)
        a[0] = np.array([(1, ((1, 2), (4, 5), (2, 3)))], dtype=recordwith2darray)[0]
        b = np.recarray(1, dtype=recordwith2darray)
        b[0] = np.array([(10, ((10, 20), (40, 50), (20, 30)))], dtype=recordwith2darray)[0]
        return a[0], b[0]

    expect = gen()
    record_setitem_array.py_func(*expect)
    got = gen()
    record_setitem_array[1, 1](*got)
    np.testing.assert_equal(got, expect)

    src = (np.arange(3) + 1).astype(np.int16)
    got, expect = np.zeros(2, nested_array1_dtype), np.zeros(2, nested_array1_dtype)
    assign_array_to_nested[1, 1](got[0], src)
    assign_array_to_nested.py_func(expect[0], src)
    np.testing.assert_array_equal(got, expect)

    src = (np.arange(6) + 1).astype(np.int16).reshape((3, 2))
    got, expect = np.zeros(2, nested_array2_dtype), np.zeros(2, nested_array2_dtype)
    assign_array_to_nested_2d[1, 1](got[0], src)
    assign_array_to_nested_2d.py_func(expect[0], src)
    np.testing.assert_array_equal(got, expect)
    # A non-contiguous source is read through its strides.
    src_t = (np.arange(6) + 1).astype(np.int16).reshape((2, 3)).T
    got, expect = np.zeros(2, nested_array2_dtype), np.zeros(2, nested_array2_dtype)
    assign_array_to_nested_2d[1, 1](got[0], src_t)
    assign_array_to_nested_2d.py_func(expect[0], src_t)
    np.testing.assert_array_equal(got, expect)


def test_set_whole_record_from_an_argument():
    rec = np.ones(2, dtype=recordwith2darray).view(np.recarray)[0]
    got = np.zeros(2, dtype=recordwith2darray).view(np.recarray)
    expect = np.zeros(2, dtype=recordwith2darray).view(np.recarray)
    recarray_set_record.py_func(expect, rec)
    recarray_set_record[1, 1](got, rec)
    np.testing.assert_equal(got, expect)


def test_numba_issue_7693():
    src_dtype = np.dtype([("user", np.float64), ("array", np.int16, (3,))], align=True)
    dest_dtype = np.dtype([("user1", np.float64), ("array1", np.int16, (3,))], align=True)
    source = np.zeros(2, dtype=src_dtype)
    source[0] = (1.2, [1, 2, 3])
    got, expect = np.zeros(2, dtype=dest_dtype), np.zeros(2, dtype=dest_dtype)
    copy_7693[1, 1](0, source, got[0])
    copy_7693.py_func(0, source, expect[0])
    np.testing.assert_array_equal(got, expect)


# --- layouts: packed, nested; constant indices; augmented assignment ---------------------------


@cuda.jit
def packed_fields(a, out):
    i = cuda.grid(1)
    if i < a.size:
        a[i].y = a[i].x * 2.5
        a[i].z += 7
        out[i] = a[i].y + a[i]["z"] + a[i][0]


def test_packed_record_fields():
    p = np.zeros(5, packed)
    p["x"] = np.arange(5) - 2
    p["z"] = 1
    out = np.zeros(5)
    packed_fields[1, 8](p, out)
    np.testing.assert_array_equal(p["y"], (np.arange(5) - 2) * 2.5)
    np.testing.assert_array_equal(p["z"], 8)
    np.testing.assert_array_equal(out, p["y"] + 8 + p["x"])


def test_packed_fields_load_bytewise_aligned_fields_whole():
    ptx, _ = cuda.compile_ptx(packed_fields.py_func, (cftypes.from_dtype(packed)[:], cftypes.float64[:]), cc=(9, 0))
    assert "ld.global.f64" not in ptx and "ld.global.u8" in ptx  # y at offset 1: no alignment to rely on

    def read_a(r):
        return r.a

    ptx, _ = cuda.compile_ptx(read_a, (cftypes.from_dtype(recordtype),), device=True, cc=(9, 0))
    assert "ld.f64" in ptx or "ld.global.f64" in ptx


@cuda.jit(device=True)
def bump(r, v):
    r.b += v
    return r


@cuda.jit
def nested_records(a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        rr = a[i].r
        rr.a = i * 1.5
        q = bump(a[i].rs[1], i)
        q.a = -1.0
        a[i]["rs"][0].b = 42
        a[i][0] = a[i][-1][1].b * 10  # k = rs[1].b * 10, by position


def test_nested_records_and_arrays_of_records_in_a_record():
    n = np.zeros(3, nested)
    nested_records[1, 4](n)
    np.testing.assert_array_equal(n["r"]["a"], [0.0, 1.5, 3.0])
    np.testing.assert_array_equal(n["rs"][:, 1]["b"], [0, 1, 2])
    np.testing.assert_array_equal(n["rs"][:, 1]["a"], -1.0)
    np.testing.assert_array_equal(n["rs"][:, 0]["b"], 42)
    np.testing.assert_array_equal(n["k"], [0, 10, 20])


@cuda.jit
def local_and_shared(out):
    tmp = cuda.local.array(2, dtype=inner)
    tmp[0].a = 1.5
    tmp[1].b = 7
    sh = cuda.shared.array(4, inner)
    if cuda.threadIdx.x == 0:
        sh[1].a = 2.5
    cuda.syncthreads()
    out[0] = tmp[0]
    out[1].a = sh[1].a + tmp[1].b


def test_local_and_shared_arrays_of_records():
    o = np.zeros(2, inner)
    local_and_shared[1, 2](o)
    assert o[0]["a"] == 1.5 and o[0]["b"] == 0  # local arrays start zeroed
    assert o[1]["a"] == 9.5


# --- types: the same as numba-cuda's ----------------------------------------------------------

typed_record = np.dtype(
    [("a", np.float64), ("b", np.int32), ("c", np.complex64), ("d", (np.uint8, 5)), ("e", np.bool_),
     ("f", np.float16), ("g", np.uint16)],
    align=True,
)


def b_plus_i(rr, i):
    return rr.b + i


def c_times2(rr, i):
    return rr["c"] * 2


def idx1(rr, i):
    return rr[1]


def d_i(rr, i):
    return rr.d[i]


def e(rr, i):
    return rr.e


def f_plus(rr, i):
    return rr.f + rr.f


def g_min(rr, i):
    return min(rr.g, i)


def neg_idx(rr, i):
    return rr[-1]


def a_div(rr, i):
    return rr.a / rr.b


def d_sum(rr, i):
    return rr.d[0] + rr.d[1]


# Recorded from numba-cuda 0.30.4: compile_ptx(f, (from_dtype(typed_record), int32), device=True).
NUMBA_RESULT_TYPES = [
    (b_plus_i, "int64"), (c_times2, "complex128"), (idx1, "int32"), (d_i, "uint8"), (e, "bool"),
    (f_plus, "float16"), (g_min, "int32"), (neg_idx, "uint16"), (a_div, "float64"), (d_sum, "uint64"),
]


@pytest.mark.parametrize("fn,want", NUMBA_RESULT_TYPES, ids=[f.__name__ for f, _ in NUMBA_RESULT_TYPES])
def test_field_types_are_numba_cudas(fn, want):
    _, ret = cuda.compile_ptx(fn, (cftypes.from_dtype(typed_record), cftypes.int32), device=True, cc=(9, 0))
    assert str(ret) == want


def test_record_spec_is_numbas_spelling_and_reads_back():
    r = cftypes.from_dtype(recordtype)
    # numba-cuda 0.30.4's str(from_dtype(recordtype)):
    assert str(r) == (
        "Record(a[type=float64;offset=0],b[type=int32;offset=8],c[type=complex64;offset=12],"
        "d[type=nestedarray(uint8, (5,));offset=20];32;True)"
    )
    for dt in (recordtype, recordwith2darray, packed, nested):
        t = cftypes.from_dtype(dt)
        assert cftypes.from_spec(t.spec) == t
        assert cftypes.from_spec(t[:].spec) == t[:]

    def elem(a, i):
        return a[i]

    _, ret = cuda.compile_ptx(elem, (r[:], cftypes.int64), device=True, cc=(9, 0))
    assert ret == r
    assert cftypes.typeof(np.zeros(2, recordtype)) == r[::1]
    assert cftypes.typeof(np.zeros(2, recordtype)[0]) == r


def test_explicit_signature_with_records():
    rec = cftypes.from_dtype(recordtype)
    k = cuda.jit(cftypes.void(rec[:], cftypes.int64, cftypes.float64))(set_a.py_func)
    got = sample(True)
    k[1, 1](got, 2, 9.25)
    assert got[2]["a"] == 9.25 and got[1]["a"] == 1.0


# --- device arrays of records --------------------------------------------------------------


def test_device_arrays_of_records():
    s = sample(True)
    d = cuda.to_device(s)
    assert d.dtype == recordtype and d.shape == (3,) and d.itemsize == 32
    np.testing.assert_array_equal(d.copy_to_host(), s)
    e = cuda.device_array(4, dtype=recordtype)
    assert e.dtype == recordtype and e.shape == (4,)
    like = cuda.device_array_like(s)
    assert like.dtype == recordtype and like.shape == (3,)
    set_a[1, 1](d, 0, 9.0)  # a device array of records as a kernel argument
    assert d.copy_to_host()["a"][0] == 9.0

    rec = d[1]  # one element: a DeviceRecord viewing it
    assert isinstance(rec, DeviceRecord) and rec.dtype == recordtype
    assert rec["a"] == 1.0 and rec[1] == 2 and rec["c"] == 2j
    np.testing.assert_array_equal(rec["d"].copy_to_host(), [2, 3, 4, 5, 6])
    rec["b"] = 77
    assert d.copy_to_host()[1]["b"] == 77
    host = rec.copy_to_host()
    assert host.shape == () and host["b"] == 77

    d[2] = s[0]  # setitem: a NumPy record
    d[0] = (0.25, 5, 1 + 1j, [9, 8, 7, 6, 5])  # a tuple of the fields
    out = d.copy_to_host()
    assert out[2] == s[0]
    assert out[0]["a"] == 0.25 and out[0]["b"] == 5 and list(out[0]["d"]) == [9, 8, 7, 6, 5]
    d[:] = s[1]  # one record broadcast to every element (32 bytes: wider than a fill value)
    np.testing.assert_array_equal(d.copy_to_host(), np.array([s[1]] * 3, recordtype))


def test_device_records_as_kernel_arguments():
    host = np.zeros(1, inner)[0]
    drec = cuda.to_device(host)  # numba's to_device of a record: a DeviceRecord
    assert isinstance(drec, DeviceRecord)
    record_set_b[1, 1](drec, 5)
    assert drec.copy_to_host()["b"] == 5 and drec["b"] == 5
    n = cuda.to_device(np.zeros(2, nested))
    record_set_a[1, 1](n[1]["r"], 2.5)  # a nested record of a device array's element
    assert n.copy_to_host()[1]["r"]["a"] == 2.5
    assert cftypes.typeof(drec) == cftypes.from_dtype(inner)


def test_packed_device_copies_are_bytewise():
    # Elements of a packed 11-byte record, and a view at an odd offset, copy correctly.
    p = np.zeros(7, packed)
    p["x"], p["y"], p["z"] = np.arange(7), np.linspace(0, 1, 7), -np.arange(7)
    d = cuda.to_device(p)
    np.testing.assert_array_equal(d[::2].copy_to_host(), p[::2])
    d2 = cuda.to_device(np.zeros(4, packed))
    d2[1:4] = d[::3]
    np.testing.assert_array_equal(d2.copy_to_host()[1:], p[::3])


# --- bad input: clear errors ---------------------------------------------------------------


@cuda.jit
def unknown_field(a):
    a[0].nope = 1


@cuda.jit
def variable_index(a, i):
    a[0][i] = 1


@cuda.jit
def wrong_layout(a, b):
    a[0] = b[0]


@cuda.jit
def scalar_into_nested(a):
    a[0].d = 1


@cuda.jit
def make_record(out):
    out[0] = inner(1)


@cuda.jit
def index_out_of_range(a):
    a[0][9] = 1


@cuda.jit
def array_attribute(a):
    a.foo = 1


def test_bad_uses_are_typing_errors():
    s = sample(True)
    with pytest.raises(cuda.TypingError, match=r"no field 'nope' \(its fields: a, b, c, d\)"):
        unknown_field[1, 1](s)
    with pytest.raises(cuda.TypingError, match=r"field name or a constant integer"):
        variable_index[1, 1](s, 1)
    with pytest.raises(cuda.TypingError, match=r"layouts differ"):
        wrong_layout[1, 1](s, np.zeros(1, inner))
    with pytest.raises(cuda.TypingError, match=r"field 'd' is an array of uint8"):
        scalar_into_nested[1, 1](s)
    with pytest.raises(cuda.TypingError, match=r"record cannot be made in a kernel"):
        make_record[1, 1](np.zeros(1, inner))
    with pytest.raises(cuda.TypingError, match=r"record index 9 is out of range: the record has 4 fields"):
        index_out_of_range[1, 1](s)
    with pytest.raises(cuda.TypingError, match=r"assigning to an attribute \('\.foo'\) of array.*only a record's fields"):
        array_attribute[1, 1](np.zeros(2))


def test_bad_dtypes_are_clear_errors():
    with pytest.raises(TypeError, match=r"void dtypes"):
        cuda.to_device(np.zeros(2, "V8"))
    with pytest.raises(TypeError, match=r"big-endian"):
        cuda.to_device(np.zeros(2, np.dtype([("a", ">f8")])))
    with pytest.raises(TypeError, match=r"strings"):
        cuda.to_device(np.zeros(2, np.dtype([("a", "U3")])))
    with pytest.raises(TypeError, match=r"structured dtype"):
        DeviceRecord(np.float32)
