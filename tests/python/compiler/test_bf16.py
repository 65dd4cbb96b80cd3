"""bfloat16 in kernels: numba-cuda 0.30's ``numba.cuda.bf16`` (its bindings of
cuda_bf16.h), computed as cuda_bf16.h computes it (intrinsics_bf16.cpp).

On the cpu backend every function is checked against an independent
reference: conversions and arithmetic against exact rational arithmetic
rounded in the function's mode (every bfloat16 for the one-argument
functions, random and special pairs for the others), the math functions
against float64's value rounded once (the cpu backend's; on a GPU they are
cuda_bf16.h's approximate sequences, compared with numba-cuda's bits by the
GPU test at the end). Types are numba-cuda's: bfloat16 with bfloat16 (or an
8-bit integer) stays bfloat16, with anything else it is float32. Every
kernel here also goes through ptxas (conftest.py).
"""

import math
import os
from fractions import Fraction

import numpy as np
import pytest

from compiler_support import load_module, run_gpu_comparison
from cuforge import cuda
from cuforge import types as cftypes
from cuforge.cuda import bf16
from cuforge.cuda.bf16 import bfloat16, bfloat16_as_ushort, ushort_as_bfloat16

EVERY = np.arange(65536, dtype=np.uint32).astype(np.uint16)  # every bfloat16's bits


def as_f32(bits):
    """bfloat16 bits as the float32 each is (exactly)."""
    return (np.asarray(bits, np.uint32) << 16).view(np.float32)


FINITE = EVERY[np.isfinite(as_f32(EVERY))]
MODES = ["rn", "rz", "rd", "ru"]


def round_bf16(v, mode, negative_zero=False):
    """The bits of the exact value v (a Fraction) rounded to bfloat16 in `mode`."""
    if v == 0:
        return 0x8000 if negative_zero else 0
    neg, m = v < 0, abs(v)
    e = m.numerator.bit_length() - m.denominator.bit_length()
    while Fraction(2) ** e > m:
        e -= 1
    while Fraction(2) ** (e + 1) <= m:
        e += 1
    q = max(e, -126) - 7  # the last kept bit's weight
    scaled = m / Fraction(2) ** q
    lo = scaled.numerator // scaled.denominator
    rest = scaled - lo
    up = {"rn": rest > Fraction(1, 2) or (rest == Fraction(1, 2) and lo % 2 == 1),
          "rz": False, "ru": rest > 0 and not neg, "rd": rest > 0 and neg}[mode]
    value = (lo + up) * Fraction(2) ** q
    if value >= Fraction(2) ** 128:  # overflow: inf where the mode rounds away, else the largest
        away = mode == "rn" or (mode == "ru" and not neg) or (mode == "rd" and neg)
        bits = 0x7F80 if away else 0x7F7F
    else:
        bits = int(np.float32(float(value)).view(np.uint32)) >> 16
    return bits | (0x8000 if neg else 0)


def exact(bits):
    return Fraction(float(as_f32(bits)))


# --- kernels over arrays of bits --------------------------------------------------------------


def unary(fn, out_bits=True):
    if out_bits:
        @cuda.jit
        def k(x, out):
            i = cuda.grid(1)
            if i < x.size:
                out[i] = bfloat16_as_ushort(fn(ushort_as_bfloat16(x[i])))
    else:
        @cuda.jit
        def k(x, out):
            i = cuda.grid(1)
            if i < x.size:
                out[i] = fn(ushort_as_bfloat16(x[i]))
    return k


def binary(fn, out_bits=True):
    if out_bits:
        @cuda.jit
        def k(x, y, out):
            i = cuda.grid(1)
            if i < x.size:
                out[i] = bfloat16_as_ushort(fn(ushort_as_bfloat16(x[i]), ushort_as_bfloat16(y[i])))
    else:
        @cuda.jit
        def k(x, y, out):
            i = cuda.grid(1)
            if i < x.size:
                out[i] = fn(ushort_as_bfloat16(x[i]), ushort_as_bfloat16(y[i]))
    return k


@cuda.jit(device=True)
def same(a):
    return a


@cuda.jit(device=True)
def negate(a):
    return -a


@cuda.jit(device=True)
def plus(a, b):
    return a + b


@cuda.jit(device=True)
def minus(a, b):
    return a - b


@cuda.jit(device=True)
def times(a, b):
    return a * b


@cuda.jit(device=True)
def over(a, b):
    return a / b


@cuda.jit(device=True)
def eq(a, b):
    return a == b


@cuda.jit(device=True)
def ne(a, b):
    return a != b


@cuda.jit(device=True)
def lt(a, b):
    return a < b


@cuda.jit(device=True)
def le(a, b):
    return a <= b


@cuda.jit(device=True)
def gt(a, b):
    return a > b


@cuda.jit(device=True)
def ge(a, b):
    return a >= b


def ternary(fn):
    @cuda.jit
    def k(x, y, z, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = bfloat16_as_ushort(fn(ushort_as_bfloat16(x[i]), ushort_as_bfloat16(y[i]), ushort_as_bfloat16(z[i])))
    return k


def from_values(fn):
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = bfloat16_as_ushort(fn(x[i]))
    return k


def run(kernel, *args, dtype=np.uint16):
    out = np.zeros(args[0].size, dtype)
    kernel[(args[0].size + 255) // 256, 256](*args, out)
    return out


def assert_same_bits(got, want, what, inputs=None):
    got, want = np.asarray(got, np.uint16), np.asarray(want, np.uint16)
    nan = np.isnan(as_f32(want))
    assert np.array_equal(np.isnan(as_f32(got)), nan), f"{what}: nan at different places"
    bad = np.flatnonzero((got != want) & ~nan)
    shown = "" if inputs is None else f" inputs {[tuple(a[bad[:3]]) for a in inputs]}"
    assert bad.size == 0, f"{what}: {bad.size} differ, first {bad[:3]}:{shown} got {got[bad[:3]]}, want {want[bad[:3]]}"


@pytest.fixture(scope="module")
def pairs():
    rng = np.random.default_rng(8)
    x = rng.choice(EVERY, 6000)
    y = rng.choice(EVERY, 6000)
    special = np.array([0x0000, 0x8000, 0x3F80, 0xBF80, 0x3F00, 0x7F80, 0xFF80, 0x7FC0, 0x7F7F, 0xFF7F, 0x0001,
                        0x0080, 0x4000, 0x3FC0], np.uint16)
    sx, sy = np.meshgrid(special, special)
    return np.concatenate([x, sx.ravel()]), np.concatenate([y, sy.ravel()])


# --- the module -----------------------------------------------------------------------------

# numba-cuda 0.30's numba.cuda.bf16.__all__, less its typing and target registries.
NUMBA_BF16 = """bfloat16 habs hadd hsub hmul hadd_rn hsub_rn hmul_rn hdiv hadd_sat hsub_sat hmul_sat hfma hfma_sat
hneg hfma_relu heq hne hge hgt hle hlt hmax hmin hmax_nan hmin_nan hisinf hisnan hequ hneu hgeu hgtu hleu hltu
float32_to_bfloat16 float64_to_bfloat16 bfloat16_to_float32 float32_to_bfloat16_rn float32_to_bfloat16_rz
float32_to_bfloat16_rd float32_to_bfloat16_ru bfloat16_to_int8_rz bfloat16_to_uint8_rz int16_to_bfloat16_rn
int16_to_bfloat16_rz int16_to_bfloat16_rd int16_to_bfloat16_ru bfloat16_to_int16_rn bfloat16_to_int16_rz
bfloat16_to_int16_rd bfloat16_to_int16_ru uint16_to_bfloat16_rn uint16_to_bfloat16_rz uint16_to_bfloat16_rd
uint16_to_bfloat16_ru bfloat16_to_uint16_rn bfloat16_to_uint16_rz bfloat16_to_uint16_rd bfloat16_to_uint16_ru
int32_to_bfloat16_rn int32_to_bfloat16_rz int32_to_bfloat16_rd int32_to_bfloat16_ru bfloat16_to_int32_rn
bfloat16_to_int32_rz bfloat16_to_int32_rd bfloat16_to_int32_ru uint32_to_bfloat16_rn uint32_to_bfloat16_rz
uint32_to_bfloat16_rd uint32_to_bfloat16_ru bfloat16_to_uint32_rn bfloat16_to_uint32_rz bfloat16_to_uint32_rd
bfloat16_to_uint32_ru int64_to_bfloat16_rn int64_to_bfloat16_rz int64_to_bfloat16_rd int64_to_bfloat16_ru
bfloat16_to_int64_rn bfloat16_to_int64_rz bfloat16_to_int64_rd bfloat16_to_int64_ru uint64_to_bfloat16_rn
uint64_to_bfloat16_rz uint64_to_bfloat16_rd uint64_to_bfloat16_ru bfloat16_to_uint64_rn bfloat16_to_uint64_rz
bfloat16_to_uint64_rd bfloat16_to_uint64_ru bfloat16_as_int16 bfloat16_as_uint16 int16_as_bfloat16
uint16_as_bfloat16 htrunc hceil hfloor hrint hsqrt hrsqrt hrcp hlog hlog2 hlog10 hcos hsin htanh htanh_approx hexp
hexp2 hexp10""".split()
# ... and the cuda_bf16.h names it binds them from (numba.cuda.bf16 has both).
C_NAMES = ["bfloat162float", "float2bfloat16", "double2bfloat16", "float2bfloat16_rz", "bfloat162char_rz",
           "int2bfloat16_rd", "bfloat162ull_ru", "bfloat16_as_short", "ushort_as_bfloat16"]


def test_the_module_has_numba_cudas_names():
    missing = [n for n in NUMBA_BF16 + C_NAMES if not hasattr(bf16, n)]
    assert missing == []
    from cuforge.cuda.bf16 import hadd, int32_to_bfloat16_rn  # noqa: F401 - numba's module path imports

    assert cuda.bfloat16 is bf16.bfloat16
    assert cuda.is_bfloat16_supported() is True
    with pytest.raises(TypeError, match=r"can only be used inside"):
        bf16.hadd(1, 2)


# --- conversions -------------------------------------------------------------------------------

INTS = {"int16": np.int16, "uint16": np.uint16, "int32": np.int32, "uint32": np.uint32, "int64": np.int64,
        "uint64": np.uint64}


def int_inputs(dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(9)
    edge = [0, 1, 255, 256, 257, 383, 384, 385, 511, 513, 789, 65535, 2**24 + 1, 2**31 - 1, 2**53 + 1, 2**63 - 1,
            2**64 - 1, -1, -257, -385, -789, -(2**31), -(2**63)]
    edge = [e for e in edge if info.min <= e <= info.max]
    return np.concatenate([np.array(edge, dtype), rng.integers(info.min, info.max, 1500, dtype=dtype, endpoint=True)])


@pytest.mark.parametrize("source", list(INTS))
@pytest.mark.parametrize("mode", MODES)
def test_integers_to_bfloat16_round_once_in_their_mode(source, mode):
    x = int_inputs(INTS[source])
    got = run(from_values(getattr(bf16, f"{source}_to_bfloat16_{mode}")), x)
    want = np.array([round_bf16(Fraction(int(v)), mode) for v in x], np.uint16)
    assert_same_bits(got, want, f"{source}_to_bfloat16_{mode}", [x])


def float_inputs(dtype):
    rng = np.random.default_rng(10)
    finite = as_f32(FINITE).astype(dtype)
    ties = (finite[:-1] / 2 + finite[1:] / 2).astype(dtype)  # halfway between neighbours (exact in float32)
    vals = [finite[::5], ties[::5], np.nextafter(ties[::7], dtype(np.inf)), np.nextafter(ties[::7], dtype(-np.inf)),
            (rng.standard_normal(1500) * 10.0 ** rng.integers(-40, 38, 1500)).astype(dtype),
            np.array([0.0, -0.0, np.inf, -np.inf, 3.4e38, -3.4e38, 1e-45 if dtype == np.float32 else 1e-300], dtype)]
    if dtype == np.float64:
        vals.append(np.array([3.3961775292304957e38, 3.3961775292304958e38 * (1 + 2**-30), 1e300, 2.0**-133,
                              2.0**-134, 2.0**-134 * (1 + 2**-40)], dtype))
    return np.concatenate(vals)


@pytest.mark.parametrize("name,dtype,mode", [(f"float32_to_bfloat16_{m}", np.float32, m) for m in MODES]
                         + [("float32_to_bfloat16", np.float32, "rn"), ("float64_to_bfloat16", np.float64, "rn"),
                            ("bfloat16", np.float64, "rn"), ("bfloat16", np.float32, "rn")])
def test_floats_to_bfloat16_round_once_in_their_mode(name, dtype, mode):
    x = float_inputs(dtype)
    got = run(from_values(getattr(bf16, name)), x)
    want = np.array([(0x7F80 | (0x8000 if v < 0 else 0)) if np.isinf(v)
                     else round_bf16(Fraction(float(v)), mode, negative_zero=bool(np.signbit(v))) for v in x], np.uint16)
    assert_same_bits(got, want, name, [x])
    nan = run(from_values(getattr(bf16, name)), np.array([np.nan, -np.nan], dtype))
    if dtype == np.float32:
        assert nan.tolist() == [0x7FFF, 0x7FFF]  # cvt's canonical nan
    else:  # cvt.rn.bf16.f64 keeps a float64 nan's sign and the top of its payload, quieted
        assert [hex(v) for v in nan.tolist()] == ["0x7fc0", "0xffc0"]
        payload = np.array([0xFFF80C0000000001, 0x7FF9000000000000], np.uint64).view(np.float64)
        assert [hex(v) for v in run(from_values(getattr(bf16, name)), payload).tolist()] == ["0xffc0", "0x7fc8"]


def to_int_reference(bits, mode, dtype):
    info = np.iinfo(dtype)
    f = as_f32(bits)
    if np.isnan(f):
        return (1 << 63) if info.bits == 64 else 0  # cvt: the sign bit at 64 bits (gpu_conversions.hpp)
    if np.isinf(f):
        return int(info.max) if f > 0 else int(info.min)
    v = Fraction(float(f))
    r = {"rn": round(v), "rz": math.trunc(v), "rd": math.floor(v), "ru": math.ceil(v)}[mode]
    return min(max(r, int(info.min)), int(info.max))


@pytest.mark.parametrize("target", list(INTS))
@pytest.mark.parametrize("mode", MODES)
def test_bfloat16_to_integers_round_in_their_mode_and_saturate(target, mode):
    dtype = INTS[target]
    got = run(unary(getattr(bf16, f"bfloat16_to_{target}_{mode}"), out_bits=False), EVERY, dtype=dtype)
    want = np.array([to_int_reference(b, mode, dtype) % 2**64 for b in EVERY], np.uint64).astype(dtype)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, f"{target}_{mode}: {bad.size} differ, e.g. {as_f32(EVERY[bad[:3]])} -> {got[bad[:3]]}"


@pytest.mark.parametrize("name,dtype", [("bfloat16_to_int8_rz", np.int8), ("bfloat16_to_uint8_rz", np.uint8)])
def test_bfloat16_to_eight_bits_saturates_at_eight_bits(name, dtype):
    got = run(unary(getattr(bf16, name), out_bits=False), EVERY, dtype=dtype)
    want = np.array([to_int_reference(b, "rz", dtype) for b in EVERY], np.int64).astype(dtype)
    assert np.array_equal(got, want)


def test_bits_float32_and_casts():
    assert np.array_equal(run(unary(same), EVERY), EVERY)
    f = run(unary(bf16.bfloat16_to_float32, out_bits=False), EVERY, dtype=np.float32)
    assert np.array_equal(f.view(np.uint32), as_f32(EVERY).view(np.uint32))
    signed = run(unary(bf16.bfloat16_as_int16, out_bits=False), EVERY, dtype=np.int16)
    assert np.array_equal(signed, EVERY.view(np.int16))

    @cuda.jit
    def casts(x, f64, i32, u8, b):
        i = cuda.grid(1)
        if i < x.size:
            h = ushort_as_bfloat16(x[i])
            f64[i] = h  # stored: widened exactly
            i32[i] = cuda.int32(h)  # toward zero, saturating, as cuda_bf16.h's int conversion
            u8[i] = cuda.uint8(h)
            b[i] = bool(h)

    n = EVERY.size
    f64, i32, u8, b = np.zeros(n), np.zeros(n, np.int32), np.zeros(n, np.uint8), np.zeros(n, np.bool_)
    casts[(n + 255) // 256, 256](EVERY, f64, i32, u8, b)
    ref = as_f32(EVERY).astype(np.float64)
    assert np.array_equal(f64[~np.isnan(ref)], ref[~np.isnan(ref)])
    assert i32.tolist() == [to_int_reference(x, "rz", np.int32) for x in EVERY]
    assert u8.tolist() == [to_int_reference(x, "rz", np.uint8) for x in EVERY]
    assert np.array_equal(b, ref != 0)


# --- arithmetic -------------------------------------------------------------------------------


def exact_op(op, *bits):
    vals = [as_f32(b) for b in bits]
    if not all(np.isfinite(v) for v in vals):
        with np.errstate(all="ignore"):
            r = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
                 "div": lambda a, b: a / b, "fma": lambda a, b, c: a * b + c}[op](*[np.float64(v) for v in vals])
        return int(np.float32(r).view(np.uint32)) >> 16 if not np.isnan(r) else 0x7FFF
    fr = [Fraction(float(v)) for v in vals]
    if op == "div" and fr[1] == 0:
        with np.errstate(all="ignore"):
            r = np.float64(vals[0]) / np.float64(vals[1])
        return 0x7FFF if np.isnan(r) else (0x7F80 if r > 0 else 0xFF80)
    r = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
         "fma": lambda a, b, c: a * b + c}[op](*fr)
    if r == 0:  # the sign of an exact zero as IEEE's (float64 computes it the same way)
        with np.errstate(all="ignore"):
            z = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
                 "div": lambda a, b: a / b, "fma": lambda a, b, c: a * b + c}[op](*[np.float64(v) for v in vals])
        return 0x8000 if np.signbit(z) else 0
    return round_bf16(r, "rn")


def saturate(bits):
    f = as_f32(bits)
    return np.where(np.isnan(f) | (f <= 0), 0, np.where(f > 1, 0x3F80, bits)).astype(np.uint16)


@pytest.mark.parametrize("name,op", [("hadd", "add"), ("hsub", "sub"), ("hmul", "mul"), ("hdiv", "div"),
                                     ("hadd_rn", "add"), ("hsub_rn", "sub"), ("hmul_rn", "mul"),
                                     ("hadd_sat", "add"), ("hsub_sat", "sub"), ("hmul_sat", "mul")])
def test_arithmetic_rounds_once(pairs, name, op):
    x, y = pairs
    want = np.array([exact_op(op, a, b) for a, b in zip(x, y)], np.uint16)
    if name.endswith("_sat"):
        want = saturate(want)
    assert_same_bits(run(binary(getattr(bf16, name)), x, y), want, name, [x, y])


def test_operators_are_the_same_functions(pairs):
    x, y = pairs
    for name, fn in [("hadd", plus), ("hsub", minus), ("hmul", times), ("hdiv", over)]:
        assert_same_bits(run(binary(fn), x, y), run(binary(getattr(bf16, name)), x, y), name)
    assert_same_bits(run(unary(negate), EVERY), EVERY ^ 0x8000, "neg")
    for name, fn in [("heq", eq), ("hneu", ne), ("hlt", lt), ("hle", le), ("hgt", gt), ("hge", ge)]:
        got = run(binary(fn, out_bits=False), x, y, dtype=np.bool_)
        assert np.array_equal(got, run(binary(getattr(bf16, name), out_bits=False), x, y, dtype=np.bool_)), name


def test_fma_variants_round_once():
    rng = np.random.default_rng(11)
    a, b, c = (rng.choice(FINITE, 3000) for _ in range(3))
    # Ties the product alone would round wrong: a * b exactly halfway, a tiny c deciding it.
    a = np.concatenate([a, np.array([0x3F81, 0x3F81], np.uint16)])  # 1 + 2**-7
    b = np.concatenate([b, np.array([0x3FC0, 0x3FC0], np.uint16)])  # 1.5
    c = np.concatenate([c, np.array([0x0001, 0x8001], np.uint16)])  # +-the smallest subnormal
    # A product beyond float32's range is still finite: plus inf it is inf (1 saturated), not nan.
    a, b, c = (np.concatenate([v, np.array([w], np.uint16)]) for v, w in ((a, 0x4E78), (b, 0xF97C), (c, 0x7F80)))
    want = np.array([exact_op("fma", *t) for t in zip(a, b, c)], np.uint16)
    assert_same_bits(run(ternary(bf16.hfma), a, b, c), want, "hfma", [a, b, c])
    assert want[-3] != want[-2] and want[-1] == 0x7F80
    assert_same_bits(run(ternary(bf16.hfma_sat), a, b, c), saturate(want), "hfma_sat")
    f = as_f32(want)
    relu = np.where(np.isnan(f), 0x7FFF, np.where(f <= 0, 0, want)).astype(np.uint16)
    assert_same_bits(run(ternary(bf16.hfma_relu), a, b, c), relu, "hfma_relu")


def test_max_min_and_their_nan_forms(pairs):
    x, y = pairs
    fx, fy = as_f32(x), as_f32(y)
    zeros = (fx == 0) & (fy == 0)
    for name, ref, zero_op in [("hmax", np.fmax, np.bitwise_and), ("hmin", np.fmin, np.bitwise_or),
                               ("hmax_nan", np.maximum, np.bitwise_and), ("hmin_nan", np.minimum, np.bitwise_or)]:
        with np.errstate(invalid="ignore"):
            want = (ref(fx, fy).view(np.uint32) >> 16).astype(np.uint16)
        want[zeros] = zero_op(x[zeros], y[zeros])  # +0 above -0
        got = run(binary(getattr(bf16, name)), x, y)
        assert_same_bits(got, want, name, [x, y])
        assert set(got[np.isnan(as_f32(got))].tolist()) <= {0x7FFF}, name


@pytest.mark.parametrize("name,ref", [("heq", np.equal), ("hne", np.not_equal), ("hgt", np.greater),
                                      ("hge", np.greater_equal), ("hlt", np.less), ("hle", np.less_equal)])
def test_comparisons_ordered_and_unordered(pairs, name, ref):
    x, y = pairs
    fx, fy = as_f32(x), as_f32(y)
    nan = np.isnan(fx) | np.isnan(fy)
    ordered = ref(fx, fy) & ~nan
    assert np.array_equal(run(binary(getattr(bf16, name), out_bits=False), x, y, dtype=np.bool_), ordered), name
    assert np.array_equal(run(binary(getattr(bf16, name + "u"), out_bits=False), x, y, dtype=np.bool_),
                          ref(fx, fy) | nan), name + "u"


def test_classification_negation_absolute_value():
    f = as_f32(EVERY)
    assert np.array_equal(run(unary(bf16.hisnan, out_bits=False), EVERY, dtype=np.bool_), np.isnan(f))
    assert np.array_equal(run(unary(bf16.hisinf, out_bits=False), EVERY, dtype=np.int32),
                          np.where(np.isinf(f), np.where(f > 0, 1, -1), 0))
    assert np.array_equal(run(unary(bf16.hneg), EVERY), EVERY ^ 0x8000)
    assert np.array_equal(run(unary(bf16.habs), EVERY), EVERY & 0x7FFF)


@pytest.mark.parametrize("name,ref", [("htrunc", np.trunc), ("hceil", np.ceil), ("hfloor", np.floor),
                                      ("hrint", np.rint)])
def test_rounding_to_integers_is_exact(name, ref):
    want = (ref(as_f32(FINITE)).view(np.uint32) >> 16).astype(np.uint16)
    assert_same_bits(run(unary(getattr(bf16, name)), FINITE), want, name)


@pytest.mark.parametrize("name,ref", [("hsqrt", np.sqrt), ("hrsqrt", lambda v: 1 / np.sqrt(v)), ("hrcp", lambda v: 1 / v),
                                      ("hexp", np.exp), ("hexp2", np.exp2), ("hexp10", lambda v: 10.0**v),
                                      ("hlog", np.log), ("hlog2", np.log2), ("hlog10", np.log10)])
def test_math_functions_are_correctly_rounded_on_the_cpu_backend(name, ref):
    if cuda.backend() == "cuda":
        pytest.skip("on a GPU these are cuda_bf16.h's approximations: the GPU test compares them with numba-cuda's")
    x = FINITE
    with np.errstate(all="ignore"):
        r = ref(as_f32(x).astype(np.float64))
    want = np.array([0x7FFF if np.isnan(v) else (0x7F80 if v > 0 else 0xFF80) if np.isinf(v)
                     else round_bf16(Fraction(float(v)), "rn", negative_zero=bool(np.signbit(v))) for v in r], np.uint16)
    assert_same_bits(run(unary(getattr(bf16, name)), x), want, name, [x])


@pytest.mark.parametrize("name,ref", [("hsin", np.sin), ("hcos", np.cos), ("htanh", np.tanh), ("htanh_approx", np.tanh)])
def test_sin_cos_tanh_are_float32s_rounded(name, ref):
    # float32's function (libm's here, libdevice's on a GPU) rounded to bfloat16: within one
    # bfloat16 step of float64's value rounded, and equal wherever float32's error cannot matter.
    x = FINITE[np.abs(as_f32(FINITE)) < 1e4]
    got = run(unary(getattr(bf16, name)), x).astype(np.int32)
    f32 = ref(as_f32(x).astype(np.float64)).astype(np.float32)
    want = np.array([round_bf16(Fraction(float(v)), "rn", negative_zero=bool(np.signbit(v))) for v in f32], np.int32)
    assert np.max(np.abs(got - want)) <= 1
    # tanh.approx.bf16 is the hardware's own approximation: on an H200 6% of the values are one
    # step from float32's tanh rounded, where the cpu backend computes that rounding itself.
    assert np.mean(got == want) > (0.9 if name == "htanh_approx" and cuda.backend() == "cuda" else 0.99)


def test_math_module_functions_on_bfloat16_are_numba_cudas_overloads():
    def g(x):
        h = bfloat16(x)
        return (math.sin(h), math.sqrt(h), math.floor(h), math.exp2(h), math.atan(h), h + 1.5, h * bfloat16(2),
                h + cuda.int8(2), h + cuda.int32(2), h < 1.0, -h, h == h)

    _, ret = cuda.compile_ptx(g, (cftypes.float32,), device=True, cc=(9, 0))
    assert [t.name for t in ret] == ["bfloat16", "bfloat16", "bfloat16", "bfloat16", "float32", "float64", "bfloat16",
                                     "bfloat16", "float64", "bool", "bfloat16", "bool"]


def test_functions_are_typed_as_numba_cudas_bindings():
    def f(h, x):
        b = bfloat16(h)
        return (bf16.hisnan(b), bf16.hisinf(b), bf16.bfloat16_to_int8_rz(b), bf16.hne(b, b), bf16.hmax(b, b),
                bf16.float64_to_bfloat16(x), bf16.bfloat16_to_float32(b), bf16.bfloat16_as_int16(b),
                bf16.int32_to_bfloat16_rn(x), bf16.bfloat16_to_uint64_rd(b), bf16.hsqrt(b), bf16.hadd(b, x))

    for sig in [(cftypes.float32, cftypes.float64), (cftypes.float64, cftypes.int64)]:
        _, ret = cuda.compile_ptx(f, sig, device=True, cc=(9, 0))
        assert [t.name for t in ret] == ["bool", "int32", "int8", "bool", "bfloat16", "bfloat16", "float32", "int16",
                                         "bfloat16", "uint64", "bfloat16", "bfloat16"]


def test_native_bfloat16_instructions_where_the_gpu_has_them():
    def f(x, i, y):
        a, b = bfloat16(x), bf16.float32_to_bfloat16_rz(y)
        return (a + b, a * b, bf16.hfma(a, b, a), bf16.hmax(a, b), bf16.hmin_nan(a, b), bf16.hfma_relu(a, b, a),
                bf16.int64_to_bfloat16_rd(i), bf16.float32_to_bfloat16_ru(y), bf16.bfloat16_to_int32_rn(a),
                bf16.htanh_approx(a), bf16.hadd_rn(a, b), bf16.hexp2(a))

    sig = (cftypes.float64, cftypes.int64, cftypes.float32)
    ptx90, _ = cuda.compile_ptx(f, sig, device=True, cc=(9, 0))
    for ins in ["add.bf16", "mul.bf16", "fma.rn.bf16", "max.bf16", "min.NaN.bf16", "fma.rn.relu.bf16",
                "cvt.rn.bf16.f64", "cvt.rz.bf16.f32", "cvt.rm.bf16.s64", "cvt.rp.bf16.f32", "cvt.rni.s32.bf16",
                "tanh.approx.bf16", "add.rn.bf16", "ex2.approx.f32"]:
        assert ins in ptx90, ins
    # sm_80 has bfloat16's fma, max/min and float32's conversions to nearest and toward zero; the rest
    # is computed exactly another way (through float32 rounded to odd).
    ptx80, _ = cuda.compile_ptx(f, sig, device=True, cc=(8, 0))
    for ins in ["fma.rn.bf16", "max.bf16", "min.NaN.bf16", "cvt.rz.bf16.f32"]:
        assert ins in ptx80, ins
    for ins in ["add.bf16", "cvt.rm.bf16.s64", "cvt.rp.bf16.f32", "tanh.approx.bf16", "cvt.rni.s32.bf16"]:
        assert ins not in ptx80, ins
    from conftest import ptxas_check

    ptxas_check(ptx90, device=True)
    ptxas_check(ptx80, device=True)


def every_function(x, i, u, f, d):
    a, b = bfloat16(x), bfloat16(f)
    r = (bf16.habs(a), bf16.hadd(a, b), bf16.hsub(a, b), bf16.hmul(a, b), bf16.hdiv(a, b), bf16.hfma(a, b, a),
         bf16.hadd_rn(a, b), bf16.hsub_rn(a, b), bf16.hmul_rn(a, b), bf16.hadd_sat(a, b), bf16.hsub_sat(a, b),
         bf16.hmul_sat(a, b), bf16.hfma_sat(a, b, a), bf16.hfma_relu(a, b, a), bf16.hneg(a), bf16.hmax(a, b),
         bf16.hmin(a, b), bf16.hmax_nan(a, b), bf16.hmin_nan(a, b), bf16.heq(a, b), bf16.hne(a, b), bf16.hgt(a, b),
         bf16.hge(a, b), bf16.hlt(a, b), bf16.hle(a, b), bf16.hequ(a, b), bf16.hneu(a, b), bf16.hgtu(a, b),
         bf16.hgeu(a, b), bf16.hltu(a, b), bf16.hleu(a, b), bf16.hisnan(a), bf16.hisinf(a), bf16.htrunc(a),
         bf16.hceil(a), bf16.hfloor(a), bf16.hrint(a), bf16.hsqrt(a), bf16.hrsqrt(a), bf16.hrcp(a), bf16.hlog(a),
         bf16.hlog2(a), bf16.hlog10(a), bf16.hcos(a), bf16.hsin(a), bf16.htanh(a), bf16.htanh_approx(a),
         bf16.hexp(a), bf16.hexp2(a), bf16.hexp10(a), bf16.bfloat16_to_float32(a), bf16.float64_to_bfloat16(d),
         bf16.bfloat16_to_int8_rz(a), bf16.bfloat16_to_uint8_rz(a), bf16.bfloat16_as_int16(a),
         bf16.uint16_as_bfloat16(u))
    # Every source and target type of the conversions, every rounding mode among them; the operators.
    r2 = (bf16.float32_to_bfloat16_rn(f), bf16.float32_to_bfloat16_rz(f), bf16.float32_to_bfloat16_rd(f),
          bf16.float32_to_bfloat16_ru(f), bf16.int16_to_bfloat16_rd(i), bf16.uint16_to_bfloat16_ru(u),
          bf16.int32_to_bfloat16_rz(i), bf16.uint32_to_bfloat16_rn(u), bf16.int64_to_bfloat16_rd(i),
          bf16.uint64_to_bfloat16_ru(u), bf16.bfloat16_to_int16_rn(a), bf16.bfloat16_to_uint16_rz(a),
          bf16.bfloat16_to_int32_rd(a), bf16.bfloat16_to_uint32_ru(a), bf16.bfloat16_to_int64_rn(a),
          bf16.bfloat16_to_uint64_rd(a), math.sin(a), a + b, a < b, -a, a * i)
    return r, r2


@pytest.mark.parametrize("cc", [(8, 0), (8, 6), (9, 0), (10, 0)])
def test_every_function_assembles_for_every_gpu_with_bfloat16(cc):
    from conftest import ptxas_check

    sig = (cftypes.float32, cftypes.int64, cftypes.uint16, cftypes.float32, cftypes.float64)
    ptx, _ = cuda.compile_ptx(every_function, sig, device=True, cc=cc)
    ptxas_check(ptx, device=True)


@pytest.mark.parametrize(
    "src,match",
    [("bfloat16(1j)", r"cuda\.bf16\.bfloat16.*real number, not complex128"),
     ("bf16.hadd(1.0)", r"cuda\.bf16\.hadd.*takes \(a, b\), 2 arguments"),
     ("bf16.hsqrt(1j)", r"cuda\.bf16\.hsqrt.*complex128, not a real number for its bfloat16 parameter"),
     ("complex(bfloat16(1.0))", r"cannot convert a bfloat16 to complex128")],
)
def test_bad_arguments_are_typing_errors(tmp_path, src, match):
    m = load_module("from cuforge import cuda\nfrom cuforge.cuda import bf16\nfrom cuforge.cuda.bf16 import bfloat16\n\n"
                    "@cuda.jit\ndef k(a):\n    a[0] = " + src + "\n", tmp_path, "bad_bf16")
    with pytest.raises(cuda.TypingError, match=match):
        m.k[1, 1](np.zeros(1, np.complex128))


# --- on a GPU: the same bits as numba-cuda ---------------------------------------------------------

@pytest.mark.skipif(cuda.backend() != "cuda", reason="needs a GPU (and numba-cuda) to compare with numba-cuda")
def test_matches_numba_cuda_on_a_gpu():
    run_gpu_comparison(os.path.join(os.path.dirname(__file__), "bf16_numba_side.py"))
