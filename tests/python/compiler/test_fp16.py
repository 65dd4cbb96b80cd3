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
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

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
    mod = tmp_path / "bad_fp16.py"
    mod.write_text(
        "from cuforge import cuda\nfrom cuforge.cuda import fp16\n\n"
        "@cuda.jit\ndef k(a):\n    a[0] = " + src + "\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        import importlib

        m = importlib.import_module("bad_fp16")
        with pytest.raises(cuda.TypingError, match=match):
            m.k[1, 1](np.zeros(1, np.float16))
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("bad_fp16", None)


def test_fp16_functions_are_kernel_side_only():
    with pytest.raises(TypeError, match=r"cuda\.fp16\.hadd\(\) can only be used inside"):
        fp16.hadd(1, 2)
    from cuforge.cuda.fp16 import hsin  # numba's module path imports too

    assert hsin is fp16.hsin


# --- on a GPU: the same bits as numba-cuda ---------------------------------------------------------

GPU_CHECK = os.path.join(os.path.dirname(__file__), "fp16_numba_side.py")


@pytest.mark.skipif(cuda.backend() != "cuda", reason="needs a GPU (and numba-cuda) to compare with numba-cuda")
def test_matches_numba_cuda_on_a_gpu():
    r = subprocess.run([sys.executable, GPU_CHECK], capture_output=True, text=True, timeout=600)
    if r.returncode == 77:
        pytest.skip(r.stdout.strip())
    assert r.returncode == 0, r.stdout + r.stderr
