"""The math module (every function Numba supports on CUDA, and its
constants) for float32 and float64, and the builtins abs, min, max, round,
int, float, bool and complex, end to end. The reference is Python's math
run in float64 on each element; float32 arguments must give float32
results (the single-precision function), compared to float32 accuracy."""

import math

import numpy as np
import pytest

from compiler_support import needs_codegen
from cuforge import cuda
from language_support import INTS, assert_same, elementwise, result_types

pytestmark = needs_codegen


@cuda.jit(device=True)
def trig(x):
    return math.sin(x), math.cos(x), math.tan(x), math.sinh(x), math.cosh(x), math.tanh(x)


@cuda.jit(device=True)
def inverse_trig(x):
    return math.asin(x), math.acos(x), math.atan(x), math.asinh(x), math.atanh(x), math.atan2(x, 0.5)


@cuda.jit(device=True)
def exp_log(x):
    return math.exp(x), math.expm1(x), math.log(x), math.log2(x), math.log10(x), math.log1p(x)


@cuda.jit(device=True)
def special(x):
    return math.erf(x), math.erfc(x), math.gamma(x), math.lgamma(x), math.sqrt(x), math.acosh(x + 1)


@cuda.jit(device=True)
def rounding(x):
    return math.ceil(x), math.floor(x), math.trunc(x), math.fabs(x), math.degrees(x), math.radians(x)


@cuda.jit(device=True)
def binary(x, y):
    return math.pow(x, y), math.copysign(x, y), math.fmod(x, y), math.hypot(x, y), math.remainder(x, y), \
        math.log(x, y)


@cuda.jit(device=True)
def parts(x):
    f, i = math.modf(x)
    m, e = math.frexp(x)
    return f, i, m, e, math.ldexp(x, 3), math.ldexp(m, e)


@cuda.jit(device=True)
def classify(x):
    return math.isnan(x), math.isinf(x), math.isfinite(x), math.isnan(x - x), math.isinf(x * 1e30), \
        math.isfinite(x * 1e30)


@cuda.jit(device=True)
def constants(x):
    return math.pi * x, math.e * x, math.tau * x, math.inf * x, math.nan * x, -math.inf + x


def domain(name, rng, n=64):
    if name in ("inverse_trig",):
        return rng.random(n) * 1.98 - 0.99
    if name in ("exp_log", "special"):
        return rng.random(n) * 20 + 0.01
    if name == "binary":
        return rng.random(n) * 20 + 0.01
    v = rng.standard_normal(n) * 5
    v[:3] = [0.0, -0.5, 2.5]
    return v


def python_math(dev, *xs):
    """The device function's body in Python, element by element, in float64
    (NaN where Python raises for a value outside the domain)."""
    def one(*args):
        try:
            return dev.py_func(*args)
        except (ValueError, OverflowError):
            return (math.nan,) * 6

    rows = [one(*(float(x[i]) for x in xs)) for i in range(len(xs[0]))]
    return [np.array([r[k] for r in rows], dtype=np.float64) for k in range(6)]


FUNCTIONS = [trig, inverse_trig, exp_log, special, rounding, binary, parts, classify, constants]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dev", FUNCTIONS, ids=lambda d: d.__name__)
def test_math_functions(dev, dtype):
    rng = np.random.default_rng(FUNCTIONS.index(dev))
    nargs = 2 if dev is binary else 1
    xs = [domain(dev.__name__, rng).astype(dtype) for _ in range(nargs)]
    types = result_types(dev, *([dtype] * nargs))
    # float32 in, float32 out (ceil/floor/trunc too: numba-cuda's are
    # floats), bool for the predicates, int32 for frexp's exponent; a float64
    # literal or math constant makes the operation float64 (Numba's typing).
    want_types = {"classify": ["bool"] * 6, "parts": [dtype] * 3 + ["int32"] + [dtype] * 2,
                  "inverse_trig": [dtype] * 5 + ["float64"], "special": [dtype] * 5 + ["float64"],
                  "constants": ["float64"] * 6}.get(dev.__name__, [dtype] * 6)
    assert [t.name for t in types] == want_types
    outs = [np.zeros(64, t) for t in types]
    elementwise(dev, nargs)[2, 32](*xs, *outs)
    if dev is classify:
        wide = xs[0].astype(np.float64)
        big = xs[0] * np.array(1e30, dtype)  # in the argument's precision, as the kernel computes it
        want = [np.isnan(wide), np.isinf(wide), np.isfinite(wide), np.isnan(wide - wide), np.isinf(big),
                np.isfinite(big)]
    else:
        want = python_math(dev, *xs)
    rtol = 2e-6 if dtype == "float32" else 1e-14
    for k, (o, w) in enumerate(zip(outs, want)):
        if o.dtype.kind == "f":
            bad = ~np.isclose(o.astype(np.float64), w, rtol=rtol, atol=rtol, equal_nan=True)
            assert not bad.any(), f"{dev.__name__} result {k}: {xs[0][bad][:4]} -> {o[bad][:4]}, want {w[bad][:4]}"
        else:
            assert_same(o, w.astype(o.dtype), what=f"{dev.__name__} result {k}")


def test_math_on_integers_computes_in_float64():
    def ints(n):
        return math.sqrt(n), math.exp(n), math.floor(n), math.isnan(n), math.atan2(n, 2), math.hypot(n, n)

    for t in ["int32", "uint64", "bool"]:
        assert [x.name for x in result_types(cuda.jit(device=True)(ints), t)] == \
            ["float64", "float64", "float64", "bool", "float64", "float64"]


def test_remainder_rounds_the_quotient_half_to_even():
    x = np.array([5.0, 7.0, -5.0, 4.5, 1.0, 3.0, -3.0, 10.0, np.inf, 2.0])
    y = np.array([2.0, 2.0, 2.0, 1.0, np.inf, 2.0, 2.0, 3.0, 2.0, 0.0])
    for dt in ["float32", "float64"]:
        a, b = x.astype(dt), y.astype(dt)
        outs = [np.zeros(10, dt) for _ in range(6)]
        elementwise(binary, 2)[1, 32](a, b, *outs)
        want = [math.remainder(p, q) if math.isfinite(p) and q != 0 else math.nan for p, q in zip(x, y)]
        assert_same(outs[4], np.array(want, dt), what=dt)


# --- builtins ----------------------------------------------------------------------------------------


@cuda.jit(device=True)
def builtins_(x, y):
    return abs(x), min(x, y), max(x, y, 0.25), round(x), round(x, 1), int(x)


@cuda.jit(device=True)
def conversions(x, y):
    return float(x), bool(x), complex(x, y).imag, round(x * 10, -1), min((x, y, -x)), max(y, x)


def test_builtins_on_floats():
    x = np.array([2.5, -0.5, 1.5, -2.5, 0.0, 3.14159, -7.25, 1e10, 0.05, 0.15, 0.25, 0.35, -0.0, 0.5, 7.0, -1e-9])
    y = np.array([1.0, -1.0, 2.0, -3.0, 0.0, 5.0, -8.0, 1.0, 0.1, -0.2, 0.3, -0.4, 1.0, -0.5, 7.0, 2.0])
    for dev, ref in [
        (builtins_, lambda a, b: (abs(a), min(a, b), max(a, b, 0.25), round(a), np.round(a, 1), int(a))),
        (conversions, lambda a, b: (float(a), bool(a), b, np.round(a * 10, -1), min(a, b, -a), max(b, a))),
    ]:
        types = result_types(dev, "float64", "float64")
        outs = [np.zeros(16, t) for t in types]
        elementwise(dev, 2)[1, 32](x, y, *outs)
        for k in range(6):
            want = np.array([ref(float(p), float(q))[k] for p, q in zip(x, y)], dtype=types[k])
            assert_same(outs[k], want, what=f"{dev.__name__} result {k}")
    # round(x) is an int64, halves to even; round(x, n) keeps the float
    # type; max with a float64 literal is float64 (Numba's unification).
    assert [t.name for t in result_types(builtins_, "float32", "float32")] == \
        ["float32", "float32", "float64", "int64", "float32", "int64"]


@pytest.mark.parametrize("t", ["int8", "uint16", "int32", "uint64", "bool"])
def test_builtins_on_integers(t):
    rng = np.random.default_rng(INTS.index(t) if t in INTS else 9)
    info = np.iinfo(t) if t != "bool" else None
    if info is None:
        x, y = rng.random(64) < 0.5, rng.random(64) < 0.5
    else:
        x = rng.integers(max(info.min, -1000), min(info.max, 1000), 64).astype(t)
        y = rng.integers(max(info.min, -1000), min(info.max, 1000), 64).astype(t)
    types = result_types(builtins_, t, t)
    outs = [np.zeros(64, d) for d in types]
    elementwise(builtins_, 2)[2, 32](x, y, *outs)
    for k in range(6):
        with np.errstate(over="ignore"):  # abs(int8(-128)) wraps, as NumPy's
            pairs = zip(x.tolist(), y.tolist()) if t == "bool" else zip(x, y)  # NumPy's bool has no round()
            want = np.array([builtins_.py_func(p, q)[k] for p, q in pairs]).astype(types[k])
        assert_same(outs[k], want, what=f"{t} result {k}")


@cuda.jit(device=True)
def complex_builtins(z, w):
    return abs(z), complex(z), z * 1.0, complex(z.real, w.imag), bool(z), bool(z) + bool(w)


def test_builtins_on_complex():
    z = np.array([3 + 4j, 0j, -1 - 1j, 1e-20j] * 8, np.complex128)
    w = np.array([1j, 2 + 0j, 0j, -3 - 3j] * 8, np.complex128)
    types = result_types(complex_builtins, "complex128", "complex128")
    outs = [np.zeros(32, d) for d in types]
    elementwise(complex_builtins, 2)[1, 32](z, w, *outs)
    for k in range(6):
        want = np.array([complex_builtins.py_func(p, q)[k] for p, q in zip(z.tolist(), w.tolist())], dtype=types[k])
        assert_same(outs[k], want, what=f"result {k}")
