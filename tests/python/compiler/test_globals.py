"""Globals and closure cells, resolved at compile time into global_values of
every kind; attributes of opaque objects read at compile time; jitted
callees built once, recursion caught; the fingerprint."""

import cmath
import collections
import enum
import math
import operator
import types as pytypes

import numpy as np
import pytest

import cuforge
import cuforge.types as cft
from compiler_support import dump, expected
from cuforge import cuda
from cuforge.cuda import atomic, grid, shared, syncthreads, threadIdx
from cuforge.cuda._compiler import build_ir, build_ir_and_fingerprint
from cuforge.cuda._compiler.resolve import CONST_ARRAY_LIMIT, resolve


def _entry(value, name="g"):
    res = resolve(name, value, device_ir=lambda d: (build_ir(d), "fp"))
    return res.entry


# --- resolve(), kind by kind -----------------------------------------------------------


@pytest.mark.parametrize(
    "value, typestr",
    [
        (1, None),
        (-(2**63), None),
        (2**64 - 1, None),  # uint64 literals keep their bits
        (2.5, None),
        (1 + 2j, None),
        (True, None),
        (None, None),
        (np.float32(1.5), "<f4"),
        (np.float16(0.5), "<f2"),
        (np.int8(-3), "|i1"),
        (np.uint64(7), "<u8"),
        (np.complex64(1j), "<c8"),
        (np.bool_(True), "|b1"),
    ],
)
def test_constants(value, typestr):
    e = _entry(value)
    assert e["kind"] == "constant" and e["name"] == "g"
    assert e.get("typestr") == typestr
    assert e["value"] == value and type(e["value"]) in (int, float, complex, bool, type(None))


def test_int_subclasses_are_their_value():
    class Color(enum.IntEnum):
        RED = 3

    e = _entry(Color.RED)
    assert e == {"kind": "constant", "name": "g", "value": 3} and type(e["value"]) is int


@pytest.mark.parametrize(
    "value, what",
    [
        (2**64, "does not fit in 64 bits"),
        (-(2**63) - 1, "does not fit in 64 bits"),
        (np.datetime64("2020-01-01"), "NumPy datetime64"),
        pytest.param(np.longdouble(1), f"NumPy {np.dtype(np.longdouble)}",
                     marks=pytest.mark.skipif(np.dtype(np.longdouble).itemsize == 8,
                                              reason="long double is double here")),
    ],
)
def test_numbers_the_compiler_lacks(value, what):
    e = _entry(value)
    assert e["kind"] == "unsupported" and what in e["name"]


def test_tuples():
    e = _entry((1, 2.0, (np.int32(3), None)))
    assert e["kind"] == "tuple"
    a, b, c = e["elements"]
    assert a["value"] == 1 and b["value"] == 2.0
    assert c["kind"] == "tuple" and c["elements"][0]["typestr"] == "<i4" and c["elements"][1]["value"] is None
    e = _entry((1, "x"))
    assert e["kind"] == "unsupported" and "tuple" in e["name"]
    e = _entry((1, np.zeros(2)))
    assert e["kind"] == "unsupported"


def test_const_arrays():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    e = _entry(a)
    assert e["kind"] == "const_array" and e["typestr"] == "<f4" and e["shape"] == [3, 4]
    assert e["data"] == a.tobytes()
    # Data is C-contiguous whatever the layout; big-endian becomes native.
    e = _entry(np.asfortranarray(a))
    assert e["data"] == a.tobytes() and e["shape"] == [3, 4]
    e = _entry(a.T)
    assert e["shape"] == [4, 3] and e["data"] == np.ascontiguousarray(a.T).tobytes()
    big_endian = np.arange(3, dtype=">i4")
    e = _entry(big_endian)
    assert e["typestr"] == "<i4" and np.frombuffer(e["data"], "<i4").tolist() == [0, 1, 2]
    assert _entry(np.array([True, False]))["typestr"] == "|b1"


def test_const_array_limits():
    fits = np.zeros(CONST_ARRAY_LIMIT // 8)
    assert _entry(fits)["kind"] == "const_array"
    e = _entry(np.zeros(CONST_ARRAY_LIMIT // 8 + 1))
    assert e["kind"] == "unsupported" and f"limited to {CONST_ARRAY_LIMIT} bytes" in e["name"]
    e = _entry(np.array(["a"]))
    assert e["kind"] == "unsupported" and "dtype" in e["name"]
    e = _entry(np.zeros(2, dtype=[("x", "f4")]))
    assert e["kind"] == "unsupported"


@pytest.mark.parametrize(
    "module, name", [(math, "math"), (cmath, "cmath"), (np, "numpy"), (operator, "operator"), (cuda, "cuda")]
)
def test_modules(module, name):
    assert _entry(module) == {"kind": "module", "name": name}


def test_other_modules_are_unsupported():
    e = _entry(pytypes)
    assert e["kind"] == "unsupported" and "module types" in e["name"]


@pytest.mark.parametrize(
    "value, hint, name",
    [
        (abs, "abs", "builtins.abs"),
        (min, "min", "builtins.min"),
        (max, "max", "builtins.max"),
        (round, "round", "builtins.round"),
        (len, "len", "builtins.len"),
        (range, "range", "builtins.range"),
        (enumerate, "enumerate", "builtins.enumerate"),
        (zip, "zip", "builtins.zip"),
        (print, "print", "builtins.print"),
        (math.sin, "sin", "math.sin"),
        (math.sqrt, "sqrt", "math.sqrt"),
        (cmath.exp, "exp", "cmath.exp"),
        (np.sqrt, "sqrt", "numpy.sqrt"),
        (np.isnan, "isnan", "numpy.isnan"),
        (np.abs, "abs", "numpy.abs"),  # np.abs is np.absolute: the name used wins
        (np.absolute, "absolute", "numpy.absolute"),
        (np.empty, "empty", "numpy.empty"),
        (operator.add, "add", "operator.add"),
        (math.sin, "my_sine", "math.sin"),  # from math import sin as my_sine
    ],
)
def test_functions(value, hint, name):
    assert _entry(value, hint) == {"kind": "function", "name": name}


def test_builtins_kernels_do_not_have():
    e = _entry(open, "open")
    assert e["kind"] == "unsupported" and "builtin open()" in e["name"]


@pytest.mark.parametrize(
    "value, typestr",
    [
        (np.float32, "<f4"),
        (np.int64, "<i8"),
        (np.bool_, "|b1"),
        (np.complex128, "<c16"),
        (np.float16, "<f2"),
        (np.dtype("u2"), "<u2"),
        (int, "<i8"),
        (float, "<f8"),
        (bool, "|b1"),
        (complex, "<c16"),
        (cft.float32, "<f4"),
        (cft.uint8, "|u1"),
        (cft.boolean, "|b1"),
    ],
)
def test_dtypes(value, typestr):
    # Python's own types keep their builtin name: int() and float() type as
    # Numba's builtins, NumPy's dtypes convert to themselves.
    name = f"builtins.{value.__name__}" if value in (int, float, bool, complex) else "g"
    assert _entry(value) == {"kind": "dtype", "name": name, "typestr": typestr}


def _python_helper(x):
    return x


class _Thing:
    pass


@pytest.mark.parametrize(
    "value, what",
    [
        (_python_helper, "Python function _python_helper is not jitted"),
        (_Thing, "class _Thing"),
        (_Thing(), "_Thing object"),
        ("text", "a string"),
        (cft.float32[:], "the type array(float32, 1d, A)"),
        ([1, 2], "list object"),
        (np.generic, "class generic"),
    ],
)
def test_unsupported(value, what):
    e = _entry(value)
    assert e["kind"] == "unsupported" and what in e["name"] and e["name"].startswith("g (")


def test_stubs_are_paths_under_cuda():
    res = resolve("x", cuda.threadIdx.x, device_ir=None)
    assert res.entry is None and res.cuda_path == ("threadIdx", "x")
    assert resolve("grid", grid, device_ir=None).cuda_path == ("grid",)


@cuda.jit(device=True)
def twice(x):
    return 2 * x


def test_device_functions_carry_their_ir():
    e = _entry(twice, "twice")
    assert e["kind"] == "device_function" and e["name"] == "twice"
    assert e["callee"] is build_ir(twice)  # built once per Python function


# --- through the walker --------------------------------------------------------------------

N = 4
SCALE = np.float32(0.5)
TABLE = np.arange(4, dtype=np.int16)
SHAPE = (2, 3)
Config = collections.namedtuple("Config", "block items")
CONFIG = Config(128, 4)


class Settings:
    TPB = 32

    class Inner:
        DEPTH = 2


def uses_globals(a):
    a[0] = N + N * SCALE + TABLE[1] + SHAPE[0] + N


def test_each_global_is_one_entry(record):
    rec = record(uses_globals)
    names = [g["name"] for (g,) in rec.of("global_")]
    assert names == ["N", "SCALE", "TABLE", "SHAPE"]
    assert len(rec.of("global_ref")) == 6
    assert rec.ir.dump() == expected("""
        def uses_globals(a):
            a[0] = ((((global(N) + (global(N) * global(SCALE))) + global(TABLE)[1]) + global(SHAPE)[0]) + global(N))
        """)


def uses_stubs(a):
    s = shared.array(N, np.float32)
    s[threadIdx.x] = a[grid(1)]
    syncthreads()
    atomic.add(a, 0, s[0])
    cuda.syncthreads()


def test_kernel_names_imported_from_cuda_are_its_attributes(record):
    rec = record(uses_stubs)
    assert rec.ir.dump() == expected("""
        def uses_stubs(a):
            s = global(cuda).shared.array(global(N), global(numpy).float32)
            s[global(cuda).threadIdx.x] = a[global(cuda).grid(1)]
            global(cuda).syncthreads()
            global(cuda).atomic.add(a, 0, s[0])
            global(cuda).syncthreads()
        """)
    kinds = [(g["kind"], g["name"]) for (g,) in rec.of("global_")]
    assert kinds == [("module", "cuda"), ("constant", "N"), ("module", "numpy")]


def uses_opaque(a):
    a[0] = CONFIG.block + Settings.TPB + Settings.Inner.DEPTH + cuforge.cuda.grid(1) + np.pi


def test_attributes_of_opaque_objects_are_read_at_compile_time(record):
    rec = record(uses_opaque)
    assert rec.ir.dump() == expected("""
        def uses_opaque(a):
            a[0] = ((((global(CONFIG.block) + global(Settings.TPB)) + global(Settings.Inner.DEPTH)) + global(cuda).grid(1)) + global(numpy).pi)
        """)  # noqa: E501
    entries = [g for (g,) in rec.of("global_")]
    assert [(g["kind"], g["name"]) for g in entries] == [
        ("constant", "CONFIG.block"),
        ("constant", "Settings.TPB"),
        ("constant", "Settings.Inner.DEPTH"),
        ("module", "cuda"),
        ("module", "numpy"),
    ]
    assert [g.get("value") for g in entries[:3]] == [128, 32, 2]


def make_closure_kernel():
    k = 3
    scale = np.float64(2.0)
    table = np.ones(2)

    def closure_kernel(a):
        a[0] = k * scale + table[0] + twice(k)

    return closure_kernel


def test_closure_cells_resolve_like_globals(record):
    rec = record(make_closure_kernel())
    kinds = [(g["kind"], g["name"]) for (g,) in rec.of("global_")]
    assert kinds == [("constant", "k"), ("constant", "scale"), ("const_array", "table"), ("device_function", "twice")]


def make_shadowing_kernel():
    N = 99  # noqa: N806 - shadows the module's N

    def shadowing(a):
        a[0] = N

    return shadowing


def test_closure_cells_come_before_globals(record):
    rec = record(make_shadowing_kernel())
    ((g,),) = rec.of("global_")
    assert g["value"] == 99


def make_empty_cell_kernel():
    def uses_later(a):
        a[0] = later

    later = None
    del later
    return uses_later


def test_an_empty_cell_is_an_undefined_name():
    with pytest.raises(cuda.TypingError, match="name 'later' is not defined"):
        build_ir(make_empty_cell_kernel())


len = len  # noqa: A001 - a global shadowing a builtin is still the builtin when it is one


def uses_len(a):
    a[0] = len(a)


def test_a_global_bound_to_a_builtin_is_that_builtin():
    assert "global(builtins.len)(a)" in dump(uses_len)


def uses_len_twice(a):
    for x in a:
        a[0] = len(a)


def test_the_desugaring_shares_entries_with_user_names(record):
    rec = record(uses_len_twice)
    assert [g["name"] for (g,) in rec.of("global_")] == ["builtins.len"]


def uses_locals_over_globals(a):
    N = 1  # noqa: N806
    a[0] = N


def test_locals_shadow_globals(record):
    rec = record(uses_locals_over_globals)
    assert rec.of("global_") == []
    assert dump(uses_locals_over_globals).endswith("a[0] = N\n")


@cuda.jit(device=True)
def ping(n):
    if n > 0:
        return pong(n - 1)
    return 0


@cuda.jit(device=True)
def pong(n):
    return ping(n)


@cuda.jit(device=True)
def self_recursive(n):
    return self_recursive(n - 1)


def calls_ping(a):
    a[0] = ping(3)


def test_recursion_is_a_reference_by_name_and_file(record):
    assert "global(ping)(3)" in dump(calls_ping)
    _, fp = build_ir_and_fingerprint(self_recursive)
    assert "self_recursive = recursive device_function self_recursive" in fp
    # Whichever of ping and pong was built first holds the other's IR; the other refers back by name.
    fps = build_ir_and_fingerprint(ping)[1] + build_ir_and_fingerprint(pong)[1]
    assert ("ping = recursive device_function ping" in fps) != ("pong = recursive device_function pong" in fps)
    from cuforge.cuda._compiler.resolve import recursive_reference

    e = recursive_reference(self_recursive.py_func).entry
    assert e == {"kind": "device_function", "name": "self_recursive", "file": __file__}


def test_enum_members_are_their_values():
    class Color(enum.Enum):
        RED = 1
        BLUE = 2.5
        NAME = "n"

    assert _entry(Color.RED)["value"] == 1 and _entry(Color.BLUE)["value"] == 2.5
    e = _entry(Color.NAME)
    assert e["kind"] == "unsupported" and "number values" in e["name"]


Point = collections.namedtuple("Point", ["x", "y"])


def test_namedtuples_keep_their_class_and_fields():
    assert _entry(Point) == {"kind": "tuple_class", "name": "g", "cls": "Point", "fields": ["x", "y"]}
    e = _entry(Point(1, 2.5))
    assert e["kind"] == "tuple" and e["cls"] == "Point" and e["fields"] == ["x", "y"]
    assert [x["value"] for x in e["elements"]] == [1, 2.5]


def test_device_arrays_are_captured_by_address():
    d = cuda.to_device(np.arange(12, dtype=np.float32).reshape(3, 4))
    e = _entry(d)
    assert e["kind"] == "device_array" and e["typestr"] == "<f4"
    assert e["shape"] == [3, 4] and e["strides"] == [16, 4] and e["address"] == d._pointer
    t = _entry(d.T)
    assert t["shape"] == [4, 3] and t["strides"] == [4, 16]
    text = resolve("g", d, device_ir=None).text
    assert f"@{d._pointer:#x}" in text and "in process" in text  # never a disk-cache hit in another process


def test_device_functions_are_built_once(record):
    rec = record(calls_twice_twice)
    (entry,) = [g for (g,) in rec.of("global_")]
    assert entry["callee"] is build_ir(twice) is build_ir(twice.py_func)


def calls_twice_twice(a):
    a[0] = twice(a[0]) + twice(1)


def calls_plain_function(a):
    a[0] = _python_helper(a[0])


def test_a_plain_python_function_is_unsupported_where_used(record):
    rec = record(calls_plain_function)
    ((g,),) = rec.of("global_")
    assert g["kind"] == "unsupported" and "decorate it with @cuda.jit(device=True)" in g["name"]


# --- fingerprints ------------------------------------------------------------------------


def test_the_fingerprint_is_the_source_and_what_globals_resolved_to():
    _, fp = build_ir_and_fingerprint(uses_globals)
    assert fp.startswith("source:\ndef uses_globals(a):\n")
    assert fp.endswith(
        "globals:\n"
        "N = constant 4 weak\n"
        "SCALE = constant 0.5 <f4\n"
        f"TABLE = const_array <i2 (4,) sha256:{__import__('hashlib').sha256(TABLE.tobytes()).hexdigest()[:16]}\n"
        "SHAPE = tuple (constant 2 weak, constant 3 weak)"
    )


def test_the_fingerprint_changes_with_a_globals_value(record, monkeypatch):
    before = record(uses_globals).fingerprint
    monkeypatch.setitem(globals(), "N", 5)
    after = record(uses_globals).fingerprint
    assert before != after and "N = constant 5 weak" in after


def test_a_callers_fingerprint_covers_its_callees(record):
    fp = record(calls_twice_twice).fingerprint
    _, callee_fp = build_ir_and_fingerprint(twice)
    digest = __import__("hashlib").sha256(callee_fp.encode()).hexdigest()
    assert f"twice = device_function twice [{digest}]" in fp


def test_the_ir_is_memoised_per_function():
    assert build_ir(uses_globals) is build_ir(uses_globals)
