"""Scalars end to end: every operator on every scalar type (bool, int8 ...
uint64, float32, float64, complex64, complex128) with Numba's typing
(integers widen to int64, Python literals are int64/float64/complex128) and
Python's meaning of ``/``, ``//``, ``%`` and ``**``. Each device function
runs element by element over NumPy arrays with values across each type's
range on the active backend; the reference is the same Python body run by
NumPy on the arguments converted to the type Numba computes in
(language_support.numba_reference). The types themselves are checked
against numba-cuda by test_numba_typing.py, and spelled out below."""

import math
import re

import numpy as np
import pytest

from compiler_support import needs_codegen
from cuforge import cuda
from language_support import COMPLEXES, FLOATS, INTS, SCALARS, assert_same, elementwise, numba_reference, \
    result_types, run_elementwise, values

pytestmark = needs_codegen


# --- the device functions under test ------------------------------------------------------------


@cuda.jit(device=True)
def arith(a, b):
    return a + b, a - b, a * b, a / b, a // b, a % b


@cuda.jit(device=True)
def carith(a, b):
    return a + b, a - b, a * b, a / b, -(a * 1), a != b


@cuda.jit(device=True)
def bitwise(a, b):
    return a & b, a | b, a ^ b, a & 1, a << (b & 7), a >> (b & 7)


@cuda.jit(device=True)
def compare(a, b):
    return a < b, a <= b, a == b, a != b, a > b, a >= b


@cuda.jit(device=True)
def power(a, b):
    return a ** b, a ** 2, a ** 0, +a, abs(a), a - a


@cuda.jit(device=True)
def weak_int(a):
    return a + 1, a * 2, a - 3, a // 2, a % 3, a / 2


@cuda.jit(device=True)
def weak_float(a):
    return a + 1.5, a * 2.0, 1.0 - a, a / 4.0, a // 2.5, a % 1.5


@cuda.jit(device=True)
def weak_complex(a):
    return a + 1j, a * (2 + 1j), a - 1j, (1 + 0j) / (a + 1j), a * 0.5, 2 * a


# --- promotion and values --------------------------------------------------------------------------

SAME = [(t, t) for t in ["bool"] + INTS + FLOATS]
MIXED = [("int8", "uint8"), ("int32", "uint32"), ("uint64", "int64"), ("int8", "uint64"), ("uint16", "int32"),
         ("int32", "float32"), ("uint8", "float32"), ("int64", "float32"), ("bool", "int8"), ("float32", "float64")]


@pytest.mark.parametrize("ta, tb", [p for p in SAME + MIXED if p != ("bool", "bool")], ids=str)
def test_arithmetic_follows_numpy(rng, ta, tb):
    # Zero divisors are among the values: integers give 0 for // and %
    # (NumPy's), floats inf/nan; int_min // -1 wraps.
    run_elementwise(arith, values(rng, ta), values(rng, tb), rtol=0, reference=numba_reference(arith, ta, tb))


@pytest.mark.parametrize("ta, tb", [(c, c) for c in COMPLEXES] + [("complex64", "float64"), ("float32", "complex64"),
                                                                  ("int16", "complex64"), ("int32", "complex64"),
                                                                  ("complex64", "complex128")], ids=str)
def test_complex_arithmetic_follows_numpy(rng, ta, tb):
    x, y = values(rng, ta), values(rng, tb)
    run_elementwise(carith, x, y, rtol=1e-5 if "complex128" not in result_types(carith, ta, tb)[0].name else 1e-12,
                    reference=numba_reference(carith, ta, tb))


@pytest.mark.parametrize("ta, tb", [(t, t) for t in ["bool"] + INTS] + [("int8", "uint8"), ("uint64", "uint8"),
                                                                          ("int32", "int64")], ids=str)
def test_bitwise_and_shifts_follow_numpy(rng, ta, tb):
    run_elementwise(bitwise, values(rng, ta), values(rng, tb), reference=numba_reference(bitwise, ta, tb))


@pytest.mark.parametrize("ta, tb", SAME + [("uint64", "int64"), ("int8", "uint8"), ("int32", "float32"),
                                           ("bool", "float64")], ids=str)
def test_comparisons_follow_numpy(rng, ta, tb):
    x, y = values(rng, ta), values(rng, tb)
    y[::3] = x[::3].astype(y.dtype)  # equal pairs too
    if x.dtype.kind == "f":
        x[5], y[6] = np.nan, np.nan
    run_elementwise(compare, x, y)


@pytest.mark.parametrize("ta, tb", [(t, t) for t in INTS] + [("float32", "float32"), ("float64", "float64"),
                                                           ("float32", "int32"), ("float64", "int64"),
                                                           ("float32", "float64"), ("int32", "float32")],
                         ids=str)
def test_power_follows_numpy(rng, ta, tb):
    x, y = values(rng, ta), values(rng, tb)
    if y.dtype.kind in "iu":
        y = (np.abs(y.astype(np.int64)) % 9).astype(y.dtype)  # NumPy refuses negative integer powers
    if x.dtype.kind in "iu":
        x = (x.astype(np.int64) % 60).astype(x.dtype)
        y = np.abs(y)  # the reference computes a ** b in integers too (for a ** 2's int64)
    else:
        x = np.abs(x)  # a negative base to a fractional power is nan: compared too, but rarely
        x[1] = -2.0
    run_elementwise(power, x, y, rtol=1e-6 if "float32" in (ta, tb) else 1e-14, reference=numba_reference(power, ta, tb))


@pytest.mark.parametrize("t", SCALARS[:-2], ids=str)
def test_python_int_literals_are_int64(rng, t):
    run_elementwise(weak_int, values(rng, t), reference=numba_reference(weak_int, t))


@pytest.mark.parametrize("t", ["bool", "int8", "uint16", "int32", "uint64", "float32", "float64"], ids=str)
def test_python_float_literals_are_float64(rng, t):
    run_elementwise(weak_float, values(rng, t), rtol=1e-6, reference=numba_reference(weak_float, t))


@pytest.mark.parametrize("t", ["bool", "uint8", "int16", "int64", "float32", "float64"] + COMPLEXES, ids=str)
def test_python_complex_literals_are_complex128(rng, t):
    run_elementwise(weak_complex, values(rng, t), rtol=1e-6, reference=numba_reference(weak_complex, t))


def test_numbas_result_types():
    # What numba-cuda 0.30 gives, spelled out (the whole table is
    # test_numba_typing.py's).
    i8, u8, f4, f8, c8, c16 = (np.dtype(n) for n in ("int64", "uint64", "float32", "float64", "complex64",
                                                     "complex128"))
    assert result_types(weak_int, "int8") == (i8,) * 5 + (f8,)
    assert result_types(weak_int, "uint16")[:5] == (i8,) * 5  # a literal is a signed int64
    assert result_types(weak_float, "float32") == (f8,) * 6  # float32 * 2.0 computes in float64
    assert result_types(weak_float, "int32") == (f8,) * 6
    assert result_types(weak_complex, "float32")[:4] == (c16,) * 4
    assert result_types(arith, "int32", "int32")[:3] == (i8,) * 3  # widened, as Numba's
    assert result_types(arith, "uint8", "uint32")[:3] == (u8,) * 3
    assert result_types(arith, "uint64", "int64")[0] == i8
    assert result_types(arith, "int16", "float32")[0] == f4
    assert result_types(arith, "int32", "float32")[0] == f8
    assert result_types(carith, "complex64", "complex64")[0] == c8


def test_int32_products_widen_to_int64():
    # The reproducer: numba-cuda prints 10000000000.
    @cuda.jit
    def mul(x, y, out):
        out[0] = x[0] * y[0]

    out = np.zeros(1, np.int64)
    mul[1, 1](np.array([100000], np.int32), np.array([100000], np.int32), out)
    assert out[0] == 10000000000


def test_a_python_int_beyond_the_other_operands_range_widens():
    def add_1000(a):
        return a + 1000

    assert str(cuda.compile_ptx(add_1000, "int64(int8)", device=True)[1]) == "int64"
    assert result_types(cuda.jit(device=True)(add_1000), "int16") == np.dtype("int64")


# --- Python's semantics where NumPy's arrays differ, or have none ----------------------------------


@cuda.jit(device=True)
def bool_arith(a, b):
    return a + b, a - b, a * b, a // (b | True), -a, a / (b | True)


def test_arithmetic_on_bools_is_pythons():
    # NumPy's bool + bool is a logical or and bool - bool an error; Python's
    # (and Numba's) True + True is 2: booleans compute in int64.
    x = np.array([False, False, True, True] * 4)
    y = np.array([False, True, False, True] * 4)
    want = [[bool_arith.py_func(bool(p), bool(q))[k] for p, q in zip(x, y)] for k in range(6)]
    assert result_types(bool_arith, "bool", "bool") == (np.dtype("int64"),) * 5 + (np.dtype("float64"),)
    outs = [np.zeros(16, np.int64) for _ in range(5)] + [np.zeros(16)]
    elementwise(bool_arith, 2)[1, 32](x, y, *outs)
    for k in range(6):
        assert outs[k].tolist() == want[k], k


@cuda.jit
def divide_ints(a, b, q, r, t):
    i = cuda.grid(1)
    if i < a.size:
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
        t[i] = a[i] / b[i]


@pytest.mark.parametrize("t", INTS, ids=str)
def test_integer_division_by_zero_gives_numpys_zero_and_does_not_trap(t):
    # Python's floor and modulo (sign of the divisor); a zero divisor gives 0
    # for // and % (NumPy's result; a kernel cannot raise ZeroDivisionError),
    # and int_min // -1 wraps, without the trap x86 division would take.
    info = np.iinfo(t)
    pairs = [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (-6, 3), (5, 0), (0, 0), (-5, 0), (info.min, -1),
             (info.min, 1), (info.max, -1), (info.min, 0), (info.max, info.min), (-1, info.max)]
    if info.min == 0:
        pairs = [(p, q) for p, q in pairs if p >= 0 and q >= 0]
    a = np.array([p for p, _ in pairs], dtype=t)
    b = np.array([q for _, q in pairs], dtype=t)
    q, r, f = np.zeros_like(a), np.zeros_like(a), np.zeros(len(a))
    divide_ints[1, 32](a, b, q, r, f)
    with np.errstate(all="ignore"):
        assert_same(q, a // b, what="//")
        assert_same(r, a % b, what="%")
        assert_same(f, a / b, what="/")
    for p, d, qq, rr in zip(a.tolist(), b.tolist(), q.tolist(), r.tolist()):
        if d != 0 and not (p == info.min and d == -1):
            assert (qq, rr) == (p // d, p % d)  # Python's


def test_float_floor_division_and_modulo_are_pythons():
    a = np.array([7.5, -7.5, 7.5, -7.5, 0.0, -0.0, 1.0, np.inf, 3.0, -3.0, 5.0, 1e30])
    b = np.array([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, np.inf, 2.0, 0.0, 0.0, -np.inf, 1e-30])
    for dt in FLOATS:
        x, y = a.astype(dt), b.astype(dt)
        q, r, t = np.zeros_like(x), np.zeros_like(x), np.zeros_like(x)
        divide_ints[1, 32](x, y, q, r, t)
        with np.errstate(all="ignore"):
            assert_same(q, x // y, what=f"{dt} //")
            assert_same(r, x % y, what=f"{dt} %")
            assert_same(t, x / y, what=f"{dt} /")
        for p, d, qq, rr in zip(x.tolist()[:7], y.tolist()[:7], q.tolist(), r.tolist()):
            assert (qq, rr) == (p // d, p % d)  # Python's, where Python has a value


@cuda.jit
def int_powers(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] ** b[i]


def test_integer_to_a_negative_integer_power():
    # NumPy 2 refuses negative integer powers of integers (ValueError), and a
    # kernel cannot raise, so an int ** int stays an integer (NumPy's type)
    # that truncates the true power: 1 for 1, +-1 for -1, 0 for any other
    # base (0 ** -n too, where Numba raises ZeroDivisionError). Two Python
    # int literals are Python's: 2 ** -1 == 0.5.
    a = np.array([2, -2, 1, -1, -1, 0, 3, 5, -3, 2], np.int64)
    b = np.array([-1, -1, -5, -3, -4, -1, -2, 3, 3, 62], np.int64)
    out = np.zeros(10, np.int64)
    int_powers[1, 32](a, b, out)
    assert out.tolist() == [0, 0, 1, -1, 1, 0, 0, 125, -27, 2**62]

    def literals(x):
        return 2 ** -1 + x, (-8) // 3, -8 % 3, 7 / 2, 2 ** 0.5, 10 ** 18

    types = result_types(cuda.jit(device=True)(literals), "int32")
    assert types == (np.dtype("float64"), np.dtype("int64"), np.dtype("int64"), np.dtype("float64"),
                     np.dtype("float64"), np.dtype("int64"))


@cuda.jit
def literal_values(x, f, u):
    f[0] = 2 ** -1 + x[0]
    f[1] = (-8) // 3
    f[2] = -8 % 3
    f[3] = 2 ** 0.5
    f[4] = 10 ** 18
    f[5] = 18446744073709551615  # beyond int64: a uint64
    u[0] = x[0] & 0xFFFFFFFFFFFFFFFF
    u[1] = x[0] * 0x9E3779B97F4A7C15  # a 64-bit hash: wraps
    u[2] = UINT64_MAX ^ x[0]


UINT64_MAX = 2**64 - 1


def test_python_int_literals_keep_their_value():
    x = np.array([12345], np.uint64)
    f, u = np.zeros(6), np.zeros(3, np.uint64)
    literal_values[1, 1](x, f, u)
    assert f.tolist() == [12345.5, -3.0, 1.0, 2**0.5, 1e18, float(2**64 - 1)]
    assert u.tolist() == [12345, 12345 * 0x9E3779B97F4A7C15 % 2**64, (2**64 - 1) ^ 12345]


def _root_two(out):
    out[0] = 2 ** 0.5


def test_a_float64_power_of_constants_is_folded_as_numba_cuda_folds_it():
    """numba-cuda's float64 ** is llvm.pow, which NVVM folds for constants with the host's pow: the
    correctly rounded sqrt(2), where libdevice's pow (run on the GPU) is an ulp below."""
    ptx, _ = cuda.compile_ptx(_root_two, "void(float64[:])")
    assert "__nv_pow" not in ptx and "call" not in ptx
    assert "0d3FF6A09E667F3BCD" in ptx or str(0x3FF6A09E667F3BCD) in ptx, ptx


def _axpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * x[i] + y[i]


@pytest.mark.parametrize("fastmath", [False, True])
def test_a_multiply_and_an_add_contract_into_fma_on_the_gpu_as_nvvm_does(fastmath):
    """NVVM contracts by default (-fma=1): numba-cuda's PTX for a * x + y is one fma.rn, fastmath or not."""
    ptx, _ = cuda.compile_ptx(_axpy, "void(float32[:], float32[:], float32[:], float32[:])", fastmath=fastmath)
    assert re.search(r"fma\.rn(\.ftz)?\.f32", ptx) and not re.search(r"mul\.rn(\.ftz)?\.f32", ptx), ptx


BIG = 2**62


def test_python_int_expressions_beyond_64_bits_are_errors():
    # Expressions of literals are folded with Python's integers; beyond
    # 64 bits they cannot compile. What reaches the typer (a global in it
    # here) is checked there.
    def big(a):
        return a + 2**70

    def shifted(a):
        return a + (1 << 64)

    def below(a):
        return a + (-(2**63) - 1)

    def product(a):
        return a + BIG * 4

    for f, text in [(big, r"2 \*\* 70"), (shifted, "1 << 64"), (below, r"-2 \*\* 63 - 1"), (product, r"\d+ \* 4")]:
        with pytest.raises(cuda.TypingError, match=f"Python integer {text} does not fit in 64 bits"):
            cuda.compile_ptx(f, "int64(int64)", device=True)


@cuda.jit
def int_literal_values(x, y, i, u):
    i[0] = -2**63  # 2**63 alone leaves int64; Python's value does not
    i[1] = 2**62 + (2**62 - 1)
    i[2] = 1 ** 10**9 + (-1) ** (10**9 + 1)
    i[3] = x[0] * 3 ** 39
    u[0] = (1 << 64) - 1
    u[1] = y[0] & (2**64 - 1)  # a uint64 mask (with an int64, NumPy's error too)
    u[2] = 2**63 + 1


def test_python_int_expressions_compute_with_pythons_integers():
    x = np.array([2], np.int64)
    i, u = np.zeros(4, np.int64), np.zeros(3, np.uint64)
    int_literal_values[1, 1](x, x.astype(np.uint64), i, u)
    assert i.tolist() == [-2**63, 2**63 - 1, 0, 2 * 3**39]
    assert u.tolist() == [2**64 - 1, 2, 2**63 + 1]


# --- conversions --------------------------------------------------------------------------------------


@cuda.jit
def convert(x, i8, u16, i64, u64, f32, c64):
    i = cuda.grid(1)
    if i < x.size:
        i8[i] = np.int8(x[i])
        u16[i] = np.uint16(x[i])
        i64[i] = np.int64(x[i])
        u64[i] = np.uint64(x[i])
        f32[i] = np.float32(x[i])
        c64[i] = np.complex64(x[i])


@pytest.mark.parametrize("t", ["bool"] + INTS + FLOATS, ids=str)
def test_conversions_between_scalar_types_are_numpys(rng, t):
    x = values(rng, t)
    if x.dtype.kind == "f":
        x = np.clip(x, 0, 250)  # float to int out of range is undefined in NumPy
    outs = [np.zeros(x.size, d) for d in ["int8", "uint16", "int64", "uint64", "float32", "complex64"]]
    convert[2, 32](x, *outs)
    for o in outs:
        assert_same(o, x.astype(o.dtype), what=f"{t} -> {o.dtype}")


@cuda.jit(device=True)
def complex_parts(z):
    return z.real, z.imag, abs(z), z.conjugate(), bool(z), z == z.conjugate()


@pytest.mark.parametrize("t", COMPLEXES, ids=str)
def test_complex_attributes_and_truth(rng, t):
    z = values(rng, t)
    z[3] = 2.5  # real
    run_elementwise(complex_parts, z, rtol=1e-6,
                    reference=lambda z: (z.real, z.imag, np.abs(z), z.conjugate(), z != 0, z == z.conjugate()))


@pytest.mark.parametrize("src", ["float64", "float32"])
def test_stores_into_float16_round_as_numpy(rng, src):
    # On the cpu backend double -> half is a runtime-library call
    # (__truncdfhf2, ours); it rounds once, to nearest even, as NumPy does.
    @cuda.jit
    def store(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i]

    x = np.concatenate([rng.standard_normal(2000) * 1000, rng.standard_normal(500) * 1e-5,
                        [65519.0, 65520.0, 1e6, -1e6, 6e-8, 3e-8, 2.9e-8, 0.0, -0.0, np.inf, -np.inf, np.nan,
                         1 + 2**-11, 1 + 3 * 2**-11, 2**-24, 2**-25, 3 * 2**-26]]).astype(src)
    out = np.zeros(x.size, np.float16)
    store[(x.size + 127) // 128, 128](x, out)
    want = x.astype(np.float16)
    assert np.array_equal(np.isnan(out), np.isnan(want))
    ok = ~np.isnan(want)
    assert np.array_equal(out.view(np.uint16)[ok], want.view(np.uint16)[ok])


@cuda.jit
def _float_to_ints(o8, ou8, o32, ou32, o64, ou64, x):
    i = cuda.grid(1)
    if i < x.size:
        o8[i] = x[i]
        ou8[i] = x[i]
        o32[i] = x[i]
        ou32[i] = x[i]
        o64[i] = x[i]
        ou64[i] = x[i]


@pytest.mark.parametrize("source", ["float64", "float32"])
def test_out_of_range_float_to_int_conversions_are_the_gpus(source):
    """numba-cuda converts with fptosi/fptoui, which the GPU computes with cvt.rzi: toward zero,
    saturating at the register's width (16 bits for 8-bit types, then truncated), nan giving 0 at
    16 bits, the sign bit alone at 64 (signed or not), and at 32 the sign bit from a float64 but 0 from
    a float32, as an H200 computes them. Both targets compute that."""
    x = np.array([300.0, -1.0, 1e6, 1e20, -1e20, np.nan, 3.7, -3.7, 2.0**63, 70000.0]).astype(source)
    nan32 = -2**31 if source == "float64" else 0
    outs = [np.zeros(x.size, d) for d in (np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64)]
    _float_to_ints[1, 32](*outs, x)
    i64max, i64min = 2**63 - 1, -2**63
    assert [o.tolist() for o in outs] == [
        [44, -1, -1, -1, 0, 0, 3, -3, -1, -1],
        [44, 0, 255, 255, 0, 0, 3, 0, 255, 255],
        [300, -1, 1000000, 2**31 - 1, -2**31, nan32, 3, -3, 2**31 - 1, 70000],
        [300, 0, 1000000, 2**32 - 1, 0, nan32 % 2**32, 3, 0, 2**32 - 1, 70000],
        [300, -1, 1000000, i64max, i64min, i64min, 3, -3, i64max, 70000],
        [300, 0, 1000000, 2**64 - 1, 0, 2**63, 3, 0, 2**63, 70000],
    ]


@cuda.jit
def _constant_float_to_ints(o8, o32, ou32, o64):
    o8[0] = 300.0
    o32[0] = 1e20
    o32[1] = -1e20
    o32[2] = math.nan
    ou32[0] = -1.0
    ou32[1] = math.nan
    o64[0] = 1e300
    o64[1] = math.nan


def test_constant_out_of_range_conversions_are_the_gpus_too():
    """The same conversions of values the compiler knows: LLVM folds an out-of-range fptosi of a
    constant to poison (a store of it vanished on the GPU), so the GPU's conversion is emitted as
    the cvt instruction itself."""
    outs = [np.full(2, 7, d) for d in (np.int8, np.int32, np.uint32, np.int64)]
    o32 = np.full(3, 7, np.int32)
    _constant_float_to_ints[1, 1](outs[0], o32, outs[2], outs[3])
    assert outs[0].tolist() == [44, 7]
    assert o32.tolist() == [2**31 - 1, -2**31, -2**31]
    assert outs[2].tolist() == [0, 2**31]
    assert outs[3].tolist() == [2**63 - 1, -2**63]
