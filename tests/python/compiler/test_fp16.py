"""float16 in kernels and cuda.fp16: numba-cuda 0.30's half-precision
functions, computed as its cuda_fp16.h computes them (codegen_half.cpp).

On the cpu backend every function is checked over all 65536 halves (or,
for the two-argument ones, every half against a spread of others) against
an independent NumPy reference: + - * / correctly rounded (NumPy's float16
arithmetic), fma against exact rational arithmetic, sin and cos against
cuda_fp16.h's algorithm written with NumPy (the same bits numba-cuda gets
on a GPU), the approximation-based functions against float64 rounded once
(what the cpu backend computes; on a GPU they are cuda_fp16.h's
approximations, compared with numba-cuda's by the GPU test at the end).
The PTX uses the native half instructions; every kernel here also goes
through ptxas (conftest.py).
"""

import math
import os
import re
from fractions import Fraction

import numpy as np
import pytest

from compiler_support import load_module, run_gpu_comparison
from cuforge import cuda
from cuforge import types as cftypes
from cuforge.cuda import fp16

ALL = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)  # every half, nans included
FINITE = ALL[np.isfinite(ALL)]


def bits(a):
    return np.asarray(a, np.float16).view(np.uint16)


def assert_same_halves(got, want, what):
    got, want = np.asarray(got, np.float16), np.asarray(want, np.float16)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan), f"{what}: nan at different places"
    bad = np.flatnonzero(bits(got)[~nan] != bits(want)[~nan])
    x = np.flatnonzero(~nan)[bad[:4]]
    assert bad.size == 0, f"{what}: {bad.size} differ, first at {x.tolist()}: got {got[x]}, want {want[x]}"


# --- one kernel per function ---------------------------------------------------------------------


def unary_kernel(fn):
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = fn(x[i])

    return k


def binary_kernel(fn):
    @cuda.jit
    def k(x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = fn(x[i], y[i])

    return k


def run(kernel, *args, dtype=np.float16):
    out = np.zeros(args[0].size, dtype)
    kernel[(args[0].size + 255) // 256, 256](*args, out)
    return out


@pytest.fixture(scope="module")
def pairs():
    """Every half against a random other half, and the special values
    against each other."""
    rng = np.random.default_rng(16)
    x = ALL
    y = rng.permutation(ALL)
    special = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 65504, -65504, 2**-24, 6.1e-5], np.float16)
    sx, sy = np.meshgrid(special, special)
    return np.concatenate([x, sx.ravel()]), np.concatenate([y, sy.ravel()])


# --- arithmetic --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,ref",
    [("hadd", np.add), ("hsub", np.subtract), ("hmul", np.multiply), ("hdiv", np.divide),
     ("__hadd", np.add), ("__hmul", np.multiply)],
)
def test_arithmetic_is_correctly_rounded(pairs, name, ref):
    x, y = pairs
    with np.errstate(all="ignore"):
        want = ref(x, y)
    assert_same_halves(run(binary_kernel(getattr(fp16, name)), x, y), want, name)


def test_operators_on_float16_are_the_same_functions(pairs):
    x, y = pairs

    @cuda.jit
    def ops(x, y, add, sub, mul, div):
        i = cuda.grid(1)
        if i < x.size:
            add[i] = x[i] + y[i]
            sub[i] = x[i] - y[i]
            mul[i] = x[i] * y[i]
            div[i] = x[i] / y[i]

    outs = [np.zeros(x.size, np.float16) for _ in range(4)]
    ops[(x.size + 255) // 256, 256](x, y, *outs)
    with np.errstate(all="ignore"):
        for o, want, what in zip(outs, [x + y, x - y, x * y, x / y], "+-*/"):
            assert_same_halves(o, want, what)


def exact_fma_half(a, b, c):
    """a * b + c rounded once to the nearest half (ties to even), by exact
    rational arithmetic."""
    if not (np.isfinite(a) and np.isfinite(b) and np.isfinite(c)):
        with np.errstate(all="ignore"):
            return np.float16(np.float64(a) * np.float64(b) + np.float64(c))
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    if exact == 0:
        return np.float16(float(a) * float(b) + float(c))  # the sign of zero as IEEE's
    if abs(exact) >= Fraction(65520):  # beyond the largest half and half its ulp: infinite
        return np.float16(np.inf if exact > 0 else -np.inf)
    near = np.float16(float(exact))
    cands = [near, np.nextafter(near, np.float16(np.inf)), np.nextafter(near, np.float16(-np.inf))]
    best = None
    for h in cands:
        if not np.isfinite(h):
            continue
        d = abs(Fraction(float(h)) - exact)
        key = (d, int(bits(h)) & 1)  # nearer, then even
        if best is None or key < best[0]:
            best = (key, h)
    return best[1]


def test_hfma_rounds_once():
    rng = np.random.default_rng(3)
    a = rng.permutation(FINITE)[:3000]
    b = rng.permutation(FINITE)[:3000]
    c = rng.permutation(FINITE)[:3000]
    # Ties: a * b exactly halfway between two halves, with a tiny c that
    # must break the tie (rounding the product first would lose it).
    ties_a = np.array([1 + 2**-10, 1 + 2**-10, 3, 2049, -(1 + 2**-10)], np.float16)
    ties_b = np.array([1 + 2**-1, 1 + 2**-1, 683, 1, 1 + 2**-1], np.float16)
    ties_c = np.array([2**-24, -(2**-24), 2**-20, 0.5, 2**-24], np.float16)
    a, b, c = (np.concatenate([u, v]) for u, v in [(a, ties_a), (b, ties_b), (c, ties_c)])

    @cuda.jit
    def k(a, b, c, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = fp16.hfma(a[i], b[i], c[i])

    out = np.zeros(a.size, np.float16)
    k[(a.size + 255) // 256, 256](a, b, c, out)
    want = np.array([exact_fma_half(*t) for t in zip(a, b, c)], np.float16)
    assert_same_halves(out, want, "hfma")
    # The tie cases really are ties that a twice-rounded fma would get wrong.
    twice = (a[-5:].astype(np.float32) * b[-5:].astype(np.float32)).astype(np.float16).astype(np.float32) + c[-5:]
    assert not np.array_equal(bits(twice.astype(np.float16)), bits(want[-5:]))


def test_negation_and_absolute_value_only_touch_the_sign():
    assert_same_halves(run(unary_kernel(fp16.hneg), ALL), -ALL, "hneg")
    assert_same_halves(run(unary_kernel(fp16.habs), ALL), np.abs(ALL), "habs")
    assert_same_halves(run(unary_kernel(fp16.__habs), ALL), np.abs(ALL), "__habs")


@pytest.mark.parametrize("name,ref", [("hmax", np.fmax), ("hmin", np.fmin)])
def test_max_and_min_pass_over_a_nan(pairs, name, ref):
    x, y = pairs
    got = run(binary_kernel(getattr(fp16, name)), x, y)
    want = ref(x, y)
    zero = (x == 0) & (y == 0)  # max(+0, -0) may be either zero, as in PTX
    assert_same_halves(got[~zero], want[~zero], name)
    assert np.all(got[zero] == 0)


# --- comparisons -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,ref",
    [("heq", np.equal), ("hgt", np.greater), ("hge", np.greater_equal), ("hlt", np.less),
     ("hle", np.less_equal), ("__hlt", np.less),
     # __hne is ordered: a nan is unequal to nothing (the operator != is unordered).
     ("hne", lambda x, y: (x != y) & ~np.isnan(x) & ~np.isnan(y)),
     ("__hne", lambda x, y: (x != y) & ~np.isnan(x) & ~np.isnan(y))],
)
def test_comparisons(pairs, name, ref):
    x, y = pairs
    got = run(binary_kernel(getattr(fp16, name)), x, y, dtype=np.bool_)
    assert np.array_equal(got, ref(x, y)), name


def test_comparison_operators_on_float16(pairs):
    x, y = pairs

    @cuda.jit
    def cmp(x, y, eq, ne, lt):
        i = cuda.grid(1)
        if i < x.size:
            eq[i] = x[i] == y[i]
            ne[i] = x[i] != y[i]
            lt[i] = x[i] < y[i]

    outs = [np.zeros(x.size, np.bool_) for _ in range(3)]
    cmp[(x.size + 255) // 256, 256](x, y, *outs)
    for o, want in zip(outs, [x == y, x != y, x < y]):
        assert np.array_equal(o, want)


# --- rounding ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,ref", [("hceil", np.ceil), ("hfloor", np.floor), ("htrunc", np.trunc),
                                      ("hrint", np.rint)])
def test_rounding_to_integers(name, ref):
    with np.errstate(invalid="ignore"):
        want = ref(ALL)
    assert_same_halves(run(unary_kernel(getattr(fp16, name)), ALL), want, name)


# --- sin and cos: cuda_fp16.h's algorithm ----------------------------------------------------------


def fma32(a, b, c):
    """float32 a * b + c rounded once, with NumPy: the product is exact in
    float64; the sum is rounded to odd there, then to float32."""
    a, b, c = (np.asarray(v, np.float32).astype(np.float64) for v in (a, b, c))
    p = a * b
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    sb = s.view(np.int64)
    fix = (err != 0) & ((sb & 1) == 0)
    toward = np.where((sb < 0) == (err < 0), 1, -1)
    s = np.where(fix, (sb + toward).view(np.float64), s)
    return s.astype(np.float32)


def fp16_sin_cos(h, cos):
    """cuda_fp16.h's hsin / hcos, step by step with NumPy float32."""
    f32 = np.float32
    a = h.astype(f32)
    ar = fma32(a, f32(0.636619772), f32(12582912.0))
    q = ar.view(np.uint32)
    j = (ar - f32(12582912.0)).astype(f32)
    t = fma32(j, f32(-1.5707962512969971e+000), a)
    t = fma32(j, f32(-7.5497894158615964e-008), t)
    i = ((q & 3) + 1) if cos else q
    x2 = (t * t).astype(f32)
    odd = (i & 1) != 0
    z = fma32(np.where(odd, f32(2.44331571e-5), f32(-1.95152959e-4)), x2,
              np.where(odd, f32(-1.38873163e-3), f32(8.33216087e-3)))
    z = fma32(z, x2, np.where(odd, f32(4.16666457e-2), f32(-1.66666546e-1)))
    z = fma32(z, x2, np.where(odd, f32(-5.00000000e-1), f32(0.0)))
    z = fma32(z, np.where(odd, x2, t), np.where(odd, f32(1.0), t))
    z = np.where((i & 2) != 0, -z, z)
    r = z.astype(np.float16)

    def correct(inp, r, when, ulp):
        hit = bits(inp) == when
        return np.where(hit, (r.astype(np.float32) + np.uint16(ulp).view(np.float16).astype(np.float32)).astype(np.float16), r)

    mag = np.abs(h)
    if cos:
        return correct(mag, r, 0x2B7C, 0x1000)
    sign = bits(r) & 0x8000
    r = np.abs(r)
    r = correct(mag, r, 0x32B3, 0x0800)
    r = correct(mag, r, 0x5CB0, 0x9000)
    return (bits(r) | sign).view(np.float16)


@pytest.mark.parametrize("name,cos", [("hsin", False), ("hcos", True)])
def test_sin_and_cos_are_cuda_fp16s_bits(name, cos):
    got = run(unary_kernel(getattr(fp16, name)), ALL)
    with np.errstate(all="ignore"):
        want = fp16_sin_cos(ALL, cos)
    assert_same_halves(got, want, name)
    # And they are good sines: within one half ulp-step of float64's, rounded.
    exact = (np.cos if cos else np.sin)(FINITE.astype(np.float64)).astype(np.float16)
    mine = run(unary_kernel(getattr(fp16, name)), FINITE)
    steps = np.abs(bits(mine).astype(np.int32) - bits(exact).astype(np.int32))
    same_sign = np.signbit(mine) == np.signbit(exact)
    assert np.all(steps[same_sign] <= 1) and np.mean(steps == 0) > 0.99


def test_math_functions_on_float16_are_fp16s():
    @cuda.jit
    def k(x, s, c, e, q):
        i = cuda.grid(1)
        if i < x.size:
            s[i] = math.sin(x[i])
            c[i] = math.cos(x[i])
            e[i] = math.exp(x[i])
            q[i] = math.sqrt(x[i])

    outs = [np.zeros(ALL.size, np.float16) for _ in range(4)]
    k[256, 256](ALL, *outs)
    for o, fn in zip(outs, [fp16.hsin, fp16.hcos, fp16.hexp, fp16.hsqrt]):
        assert_same_halves(o, run(unary_kernel(fn), ALL), f"math vs {fn}")


# --- the approximation-based functions --------------------------------------------------------------


@pytest.mark.parametrize(
    "name,ref",
    [("hexp", np.exp), ("hexp2", np.exp2), ("hexp10", lambda x: 10.0**x), ("hlog", np.log),
     ("hlog2", np.log2), ("hlog10", np.log10), ("hsqrt", np.sqrt), ("hrsqrt", lambda x: 1 / np.sqrt(x)),
     ("hrcp", lambda x: 1 / x)],
)
def test_functions_round_correctly_on_the_cpu_backend(name, ref):
    got = run(unary_kernel(getattr(fp16, name)), ALL)
    if cuda.backend() != "cpu":
        pytest.skip("on a GPU these are cuda_fp16.h's approximations (test_matches_numba_cuda_on_a_gpu)")
    with np.errstate(all="ignore"):
        want = ref(ALL.astype(np.float64)).astype(np.float16)
    assert_same_halves(got, want, name)


# --- typing --------------------------------------------------------------------------------------------


def test_results_are_float16_and_arguments_convert_as_in_numba():
    def f(x, y):
        return fp16.hadd(x, y), fp16.heq(x, y), fp16.hsin(x), fp16.hfma(x, y, 2)

    for sig in [(cftypes.float16, cftypes.float16), (cftypes.float32, cftypes.int64), (cftypes.float64, cftypes.int8)]:
        _, ret = cuda.compile_ptx(f, sig, device=True, cc=(9, 0))
        assert [t.name for t in ret] == ["float16", "bool", "float16", "float16"]


def test_float16_arithmetic_keeps_float16_and_widens_as_numba():
    def f(x, y):
        return x + y, -x, x * 2, abs(x), x + y + 1.5

    _, ret = cuda.compile_ptx(f, (cftypes.float16, cftypes.float16), device=True, cc=(9, 0))
    # float16 with float16 (or int8/bool) stays float16; a float64 literal widens (numba-cuda's).
    assert [t.name for t in ret] == ["float16", "float16", "float64", "float16", "float64"]


def test_native_half_instructions_in_the_ptx():
    def f(x, y):
        return fp16.hadd(x, y) * y + fp16.hfma(x, y, x) + fp16.hexp(x) + x / y

    ptx, _ = cuda.compile_ptx(f, (cftypes.float16, cftypes.float16), device=True, cc=(9, 0))
    # add.f16 as cuda_fp16.h's __hadd writes it: without .rn, so that it may be contracted (NVVM's
    # default); the product `* y` is, into one of the fma.rn.f16
    for instr in [r"add(\.rn)?\.f16", r"fma\.rn\.f16", r"ex2\.approx\.ftz\.f32", r"rcp\.approx\.ftz\.f32"]:
        assert re.search(instr, ptx), instr


@pytest.mark.parametrize(
    "src,match",
    [("fp16.hadd(a, 1.0)", r"cuda\.fp16\.hadd.*array"),
     ("fp16.hadd(1.0)", r"cuda\.fp16\.hadd.*takes \(a, b\)"),
     ("fp16.hsin(1j)", r"cuda\.fp16\.hsin"),
     ("fp16.hadd(x=1.0, y=2.0)", r"keyword")],
)
def test_bad_arguments_are_typing_errors(tmp_path, src, match):
    m = load_module("from cuforge import cuda\nfrom cuforge.cuda import fp16\n\n@cuda.jit\ndef k(a):\n    a[0] = " + src + "\n",
                    tmp_path, "bad_fp16")
    with pytest.raises(cuda.TypingError, match=match):
        m.k[1, 1](np.zeros(1, np.float16))


def test_fp16_functions_are_kernel_side_only():
    with pytest.raises(TypeError, match=r"cuda\.fp16\.hadd\(\) can only be used inside"):
        fp16.hadd(1, 2)
    from cuforge.cuda.fp16 import hsin  # numba's module path imports too

    assert hsin is fp16.hsin


# --- the rest of cuda_fp16.h: conversions in a rounding mode, bits, _rn, _sat, relu, nan-aware ---
# --- max/min, unordered comparisons, classification, tanh --------------------------------------

MODES = ["rn", "rz", "rd", "ru"]
POSITIVE_HALVES = sorted({Fraction(float(h)) for h in FINITE if h >= 0})
MAX_HALF = Fraction(65504)


def round_to_half(v, mode, negative_zero=False):
    """The exact value v (a Fraction) rounded to a half in `mode`, from the list of every half."""
    import bisect

    neg = v < 0 or (v == 0 and negative_zero)
    mag = abs(v)
    toward_larger_magnitude = {"rn": None, "rz": False, "ru": not neg, "rd": neg}[mode]
    if mag > MAX_HALF:
        if mode == "rn":
            r = np.inf if mag >= 65520 else 65504.0
        else:
            r = np.inf if toward_larger_magnitude else 65504.0
    else:
        i = bisect.bisect_left(POSITIVE_HALVES, mag)
        if POSITIVE_HALVES[i] == mag:
            r = float(mag)
        else:
            lo, hi = POSITIVE_HALVES[i - 1], POSITIVE_HALVES[i]
            if mode == "rn":
                d_lo, d_hi = mag - lo, hi - mag
                if d_lo != d_hi:
                    r = float(lo if d_lo < d_hi else hi)
                else:  # a tie: the even one
                    r = float(lo if int(bits(np.float16(float(lo)))) % 2 == 0 else hi)
            else:
                r = float(hi if toward_larger_magnitude else lo)
    return np.float16(-r if neg else r)


INT_TYPES = {"short": np.int16, "ushort": np.uint16, "int": np.int32, "uint": np.uint32, "ll": np.int64,
             "ull": np.uint64}


def conversion_inputs(dtype):
    """Edges (the type's range, halves' ulps and ties near 2048 and 65504) and random values."""
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
    rng = np.random.default_rng(7)
    if info is not None:
        edge = [0, 1, 2047, 2048, 2049, 2050, 2051, 4095, 4097, 65504, 65519, 65520, 65521, 70000, info.max,
                info.max - 1, info.min, info.min + 1, 12345]
        edge += [-e for e in edge if info.min < 0 and -e >= info.min]
        lo, hi = int(info.min), int(info.max)
        rand = [int(x) for x in rng.integers(lo, hi, size=600, endpoint=True, dtype=dtype)]
        return np.array([e for e in edge if lo <= e <= hi] + rand, dtype)
    f = np.finfo(dtype)
    halves = FINITE.astype(dtype)
    edge = np.array([0.0, -0.0, np.inf, -np.inf, 65504, 65519.99, 65520, 65536, 2.0**-24, 2.0**-25, 3 * 2.0**-26,
                     2.0**-26, 1e-30, f.max, -f.max, f.tiny], dtype)
    between = (halves[:-1] / 2 + halves[1:] / 2).astype(dtype)  # the ties, exactly in a float32
    nudged = np.nextafter(between, np.array(np.inf, dtype))
    return np.concatenate([edge, halves[::7], between[::5], nudged[::5],
                           rng.standard_normal(600).astype(dtype) * 1000])


@pytest.mark.parametrize("source", ["float", "short", "ushort", "int", "uint", "ll", "ull"])
@pytest.mark.parametrize("mode", MODES)
def test_conversions_to_half_round_in_their_mode(source, mode):
    dtype = np.float32 if source == "float" else INT_TYPES[source]
    x = conversion_inputs(dtype)
    fn = getattr(fp16, f"__{source}2half_{mode}")
    got = run(unary_kernel(fn), x)
    want = np.array([v if dtype == np.float32 and np.isinf(v)  # an infinity stays one in every mode
                     else round_to_half(Fraction(float(v)) if dtype == np.float32 else Fraction(int(v)), mode,
                                        negative_zero=dtype == np.float32 and v == 0 and np.signbit(v)) for v in x],
                    np.float16)
    assert_same_halves(got, want, f"__{source}2half_{mode}")


def test_float_and_double_to_half_round_to_nearest_and_nan_is_the_gpus():
    x64 = np.array([1 + 2.0**-11, 1 + 3 * 2.0**-11, 65519.99, 65520, 1e300, -1e-300, 2.0**-25 * 1.0000001, np.nan],
                   np.float64)
    got = run(unary_kernel(fp16.__double2half), x64)
    want = [round_to_half(Fraction(float(v)), "rn", negative_zero=v < 0) for v in x64[:-1]]
    assert_same_halves(got[:-1], want, "__double2half")
    assert int(bits(got[-1])) == 0x7E00  # cvt.rn.f16.f64 keeps a float64 nan's sign and top payload, quieted
    nans = np.array([0x7FF8000000000000, 0xFFF8000000000000, 0xFFF80C0000000001, 0x7FFA000000000000],
                    np.uint64).view(np.float64)
    got = run(unary_kernel(fp16.__double2half), nans)
    assert [hex(int(bits(g))) for g in got] == [hex(h) for h in (0x7E00, 0xFE00, 0xFE03, 0x7E80)]
    x32 = conversion_inputs(np.float32)
    got = run(unary_kernel(fp16.__float2half), x32)
    assert_same_halves(got, run(unary_kernel(fp16.__float2half_rn), x32), "__float2half")
    for mode in MODES:  # nan in every mode
        assert int(bits(run(unary_kernel(getattr(fp16, f"__float2half_{mode}")), np.array([np.nan], np.float32))[0])) == 0x7FFF


def half_to_int_reference(h, mode, dtype):
    info = np.iinfo(dtype)
    bits_ = np.dtype(dtype).itemsize * 8
    if np.isnan(h):
        return (1 << 63) if bits_ == 64 else 0  # cvt at 64 bits: the sign bit alone (gpu_conversions.hpp)
    if np.isinf(h):
        return info.max if h > 0 else info.min
    v = Fraction(float(h))
    r = {"rn": round(v), "rz": math.trunc(v), "rd": math.floor(v), "ru": math.ceil(v)}[mode]
    return min(max(r, int(info.min)), int(info.max))


@pytest.mark.parametrize("target", ["short", "ushort", "int", "uint", "ll", "ull"])
@pytest.mark.parametrize("mode", MODES)
def test_conversions_from_half_round_in_their_mode_and_saturate(target, mode):
    dtype = INT_TYPES[target]
    got = run(unary_kernel(getattr(fp16, f"__half2{target}_{mode}")), ALL, dtype=dtype)
    want = np.array([half_to_int_reference(h, mode, dtype) % 2**64 for h in ALL], np.uint64).astype(dtype)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, f"__half2{target}_{mode}: {bad.size} differ, e.g. {ALL[bad[:3]]} -> {got[bad[:3]]}, want {want[bad[:3]]}"


@pytest.mark.parametrize("name,dtype", [("__half2char_rz", np.int8), ("__half2uchar_rz", np.uint8)])
def test_conversions_to_eight_bits_saturate_at_eight_bits(name, dtype):
    got = run(unary_kernel(getattr(fp16, name)), ALL, dtype=dtype)
    want = np.array([half_to_int_reference(h, "rz", dtype) for h in ALL], np.int64).astype(dtype)
    assert np.array_equal(got, want), name
    assert run(unary_kernel(getattr(fp16, name)), np.array([300, -300, np.nan], np.float16), dtype=dtype).tolist() == (
        [127, -128, 0] if dtype == np.int8 else [255, 0, 0])


def test_bit_reinterpretations_and_half2float():
    every = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    assert np.array_equal(run(unary_kernel(fp16.__ushort_as_half), every).view(np.uint16), every)
    assert np.array_equal(run(unary_kernel(fp16.__short_as_half), every.view(np.int16)).view(np.uint16), every)
    assert np.array_equal(run(unary_kernel(fp16.__half_as_ushort), ALL, dtype=np.uint16), every)
    assert np.array_equal(run(unary_kernel(fp16.__half_as_short), ALL, dtype=np.int16), every.view(np.int16))
    f = run(unary_kernel(fp16.__half2float), ALL, dtype=np.float32)
    assert np.array_equal(f[~np.isnan(f)], ALL.astype(np.float32)[~np.isnan(f)])
    assert np.array_equal(np.isnan(f), np.isnan(ALL))


def ternary_kernel(fn):
    @cuda.jit
    def k(x, y, z, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = fn(x[i], y[i], z[i])

    return k


SPECIAL = np.array([0, -0.0, 1, -1, 0.5, 0.75, 1.5, 2, -2, 65504, -65504, 2**-24, np.inf, -np.inf, np.nan], np.float16)


def saturate(h):
    h = np.asarray(h, np.float16).copy()
    h[np.isnan(h) | (h <= 0)] = 0  # nan and negatives (and -0) to +0
    h[h > 1] = 1
    return h


@pytest.mark.parametrize("name,ref", [("__hadd_sat", np.add), ("__hsub_sat", np.subtract), ("__hmul_sat", np.multiply),
                                      ("__hadd_rn", np.add), ("__hsub_rn", np.subtract), ("__hmul_rn", np.multiply)])
def test_saturating_and_non_contracting_arithmetic(pairs, name, ref):
    x, y = pairs
    with np.errstate(all="ignore"):
        want = ref(x, y)  # NumPy's float16 arithmetic: correctly rounded
    if name.endswith("_sat"):
        want = saturate(want)
    assert_same_halves(run(binary_kernel(getattr(fp16, name)), x, y), want, name)


def test_fma_sat_and_fma_relu():
    rng = np.random.default_rng(5)
    a = np.concatenate([rng.permutation(FINITE)[:1500], np.repeat(SPECIAL, SPECIAL.size)])
    b = np.concatenate([rng.permutation(FINITE)[:1500], np.tile(SPECIAL, SPECIAL.size)])
    c = np.concatenate([rng.permutation(FINITE)[:1500], np.tile(SPECIAL[::-1], SPECIAL.size)])
    exact = np.array([exact_fma_half(*t) for t in zip(a, b, c)], np.float16)
    assert_same_halves(run(ternary_kernel(fp16.__hfma_sat), a, b, c), saturate(exact), "__hfma_sat")
    relu = exact.copy()
    relu[(relu < 0) | (relu == 0)] = 0  # negatives and -0 to +0; nan stays
    got = run(ternary_kernel(fp16.__hfma_relu), a, b, c)
    assert_same_halves(got, relu, "__hfma_relu")
    assert set(bits(got[np.isnan(got)]).tolist()) <= {0x7FFF}


def test_max_and_min_that_propagate_nan(pairs):
    x, y = pairs
    for name, ref, zero_bits in [("__hmax_nan", np.maximum, 0x0000), ("__hmin_nan", np.minimum, 0x8000)]:
        got = run(binary_kernel(getattr(fp16, name)), x, y)
        want = ref(x, y)  # np.maximum propagates nan, but takes either zero of +0 and -0
        both_zero = (x == 0) & (y == 0)
        signs = bits(x[both_zero]) & bits(y[both_zero]) if zero_bits == 0 else bits(x[both_zero]) | bits(y[both_zero])
        want[both_zero] = signs.view(np.float16)
        assert_same_halves(got, want, name)
        assert set(bits(got[np.isnan(got)]).tolist()) <= {0x7FFF}, name
        zeros = run(binary_kernel(getattr(fp16, name)), np.array([0.0, -0.0], np.float16), np.array([-0.0, 0.0], np.float16))
        assert bits(zeros).tolist() == [zero_bits, zero_bits], name  # +0 above -0


@pytest.mark.parametrize("name,ref", [("__hequ", np.equal), ("__hneu", np.not_equal), ("__hgtu", np.greater),
                                      ("__hgeu", np.greater_equal), ("__hltu", np.less), ("__hleu", np.less_equal)])
def test_unordered_comparisons_are_true_at_nan(pairs, name, ref):
    x, y = pairs
    want = ref(x, y) | np.isnan(x) | np.isnan(y)
    assert np.array_equal(run(binary_kernel(getattr(fp16, name)), x, y, dtype=np.bool_), want), name


def test_classification():
    assert np.array_equal(run(unary_kernel(fp16.__hisnan), ALL, dtype=np.bool_), np.isnan(ALL))
    want = np.where(np.isinf(ALL), np.where(ALL > 0, 1, -1), 0)
    assert np.array_equal(run(unary_kernel(fp16.__hisinf), ALL, dtype=np.int32), want)


@pytest.mark.parametrize("name", ["htanh", "htanh_approx"])
def test_tanh_is_float32s_rounded_to_half(name):
    got = run(unary_kernel(getattr(fp16, name)), ALL)
    want = np.tanh(ALL.astype(np.float64)).astype(np.float32).astype(np.float16)  # on the cpu backend
    if name == "htanh_approx" and cuda.backend() == "cuda":
        # tanh.approx.f16 is the hardware's own approximation (on an H200 a fifth of the halves
        # are one step from float32's tanh rounded): within one step, the nans and signs the same.
        assert np.array_equal(np.isnan(got), np.isnan(want))
        ok = ~np.isnan(want)
        order = lambda h: np.where(bits(h) & 0x8000, -(bits(h) & 0x7FFF).astype(np.int32), bits(h).astype(np.int32))
        assert np.max(np.abs(order(got[ok]) - order(want[ok]))) <= 1, name
        return
    assert_same_halves(got, want, name)


def test_the_rest_is_typed_as_numba_cudas_bindings():
    # numba-cuda 0.30's signatures (its cuda_fp16 bindings): results as there, arguments converted.
    def f(h, x):
        return (fp16.__hisnan(h), fp16.__hisinf(h), fp16.__half2char_rz(h), fp16.__half2uchar_rz(h),
                fp16.__half_as_short(h), fp16.__hequ(h, x), fp16.__int2half_rn(x), fp16.__half2ull_rd(h),
                fp16.__double2half(x), fp16.htanh_approx(h), fp16.__hfma_relu(h, h, x), fp16.__half2float(h),
                fp16.__ushort_as_half(x))

    for sig in [(cftypes.float16, cftypes.float64), (cftypes.float32, cftypes.int64)]:
        _, ret = cuda.compile_ptx(f, sig, device=True, cc=(9, 0))
        assert [t.name for t in ret] == ["bool", "int32", "int8", "uint8", "int16", "bool", "float16", "uint64",
                                         "float16", "float16", "float16", "float32", "float16"]


def test_the_rest_is_one_instruction_each_on_the_gpu():
    def f(h, i, x):
        return (fp16.__float2half_rz(x), fp16.__ll2half_rd(i), fp16.__half2int_ru(h), fp16.__half2char_rz(h),
                fp16.__hadd_rn(h, h), fp16.__hmul_sat(h, h), fp16.__hfma_sat(h, h, h), fp16.__hfma_relu(h, h, h),
                fp16.__hmax_nan(h, h), fp16.__hmin_nan(h, h), fp16.htanh_approx(h))

    sig = (cftypes.float16, cftypes.int64, cftypes.float32)
    ptx, _ = cuda.compile_ptx(f, sig, device=True, cc=(9, 0))
    for instr in ["cvt.rz.f16.f32", "cvt.rm.f16.s64", "cvt.rpi.s32.f16", "cvt.rzi.s8.f16", "add.rn.f16",
                  "mul.sat.f16", "fma.rn.sat.f16", "fma.rn.relu.f16", "max.NaN.f16", "min.NaN.f16", "tanh.approx.f16"]:
        assert instr in ptx, instr
    # An older GPU computes what it has no instruction for another way; ptxas takes both.
    old, _ = cuda.compile_ptx(f, sig, device=True, cc=(7, 5))
    for instr in ["fma.rn.relu.f16", "max.NaN.f16", "min.NaN.f16", "tanh.approx.f16"]:  # sm_80's (PTX 7.0's)
        assert instr not in old, instr
    from conftest import ptxas_check

    ptxas_check(ptx, device=True)
    ptxas_check(old, device=True)


def test_the_rest_refuses_bad_arguments(tmp_path):
    m = load_module("from cuforge import cuda\nfrom cuforge.cuda import fp16\n\n"
                    "@cuda.jit\ndef k(a):\n    a[0] = fp16.__int2half_rn(1j)\n\n"
                    "@cuda.jit\ndef k2(a):\n    a[0] = fp16.__hadd_sat(a[0])\n", tmp_path, "bad_fp16_rest")
    with pytest.raises(cuda.TypingError, match=r"__int2half_rn.*complex128, not a real number for its int32"):
        m.k[1, 1](np.zeros(1, np.float16))
    with pytest.raises(cuda.TypingError, match=r"__hadd_sat.*takes \(a, b\), 2 arguments"):
        m.k2[1, 1](np.zeros(1, np.float16))


# --- on a GPU: the same bits as numba-cuda ---------------------------------------------------------

@pytest.mark.skipif(cuda.backend() != "cuda", reason="needs a GPU (and numba-cuda) to compare with numba-cuda")
def test_matches_numba_cuda_on_a_gpu():
    run_gpu_comparison(os.path.join(os.path.dirname(__file__), "fp16_numba_side.py"))
