"""cuda.libdevice: libdevice's functions by name, as numba-cuda's
cuda.libdevice (intrinsics_libdevice.cpp; the cpu backend's own
implementations in libdevice_host.cpp).

Every row of the registry is compiled in a kernel of its own (a module
written to a file here, so its source is there to read), for the GPU (the
PTX through ptxas, conftest.py) and run on the cpu backend over sample
inputs, against a reference for every row: the directed-rounding
arithmetic and conversions against exact rational arithmetic rounded as
the mode says, the integer functions against Python's integers, the
classification and bit functions exactly, and the math functions against
Python's math module (or, for what it lacks, values computed with mpmath
at 30 digits and written down here) within a few units in the last place.
"""

import math
import re
from fractions import Fraction

import numpy as np
import pytest

import cuforge
from compiler_support import bit_differences, launch_all, load_module, run_under_numba_cuda, ulp_differences
from cuforge import _core, cuda
from cuforge.cuda import libdevice

LETTER = {"float32": np.float32, "float64": np.float64, "int16": np.int16, "int32": np.int32, "int64": np.int64}


def rows():
    """(name, input dtypes, output dtypes) of every cuda.libdevice.* row, read from its doc line
    ("__nv_frexpf: (x: float32) -> (float32, int32).")."""
    out = []
    for e in _core.intrinsics():
        if not e["name"].startswith("cuda.libdevice.") or e["kind"] != "function":
            continue
        m = re.fullmatch(r"__nv_(\w+): \((.*)\) -> \(?(.*?)\)?\.", e["doc"])
        assert m, e["doc"]
        ins = [LETTER[p.split(": ")[1]] for p in m.group(2).split(", ")]
        outs = [LETTER[t] for t in m.group(3).split(", ")]
        out.append((m.group(1), ins, outs))
    return out


ROWS = rows()


def kernels_source():
    """A module with one kernel per row."""
    src = ["from cuforge import cuda", "from cuforge.cuda import libdevice", ""]
    for name, ins, outs in ROWS:
        a = [f"a{i}" for i in range(len(ins))]
        o = [f"o{i}" for i in range(len(outs))]
        src += ["@cuda.jit", f"def k_{name}({', '.join(o + a)}):", "    i = cuda.grid(1)", "    if i < a0.size:"]
        src.append(f"        r = libdevice.{name}({', '.join(x + '[i]' for x in a)})")
        if len(outs) == 1:
            src.append("        o0[i] = r")
        else:
            src += [f"        o{j}[i] = r[{j}]" for j in range(len(outs))]
        src.append("")
    return "\n".join(src)


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    """The module of kernels_source(), written to a file and imported."""
    return load_module(kernels_source(), tmp_path_factory.mktemp("libdevice"), "libdevice_kernels")


# --- sample inputs -------------------------------------------------------------------------------

F64 = [0.0, -0.0, 0.5, -0.75, 1.0, 1.5, 2.5, -3.25, 0.1, 1 / 3, 7.0, -100.5, 1e-300, 5e-324, 1e300, -2e10, 0.999,
       math.inf, -math.inf, math.nan]
I32 = [0, 1, -1, 2, 7, -8, 100, 255, 0x12345678, -0x12345678, 2**31 - 1, -2**31, 0x00FF00FF, 12345, -54321,
       1 << 20, 3, -3, 0x7654321, 99]
I64 = [0, 1, -1, 2, 7, -8, 2**63 - 1, -2**63, 2**53 + 1, -(2**60) - 3, 0x123456789ABCDEF, 2**32, 12345678901,
       -98765432101, 255, 1 << 40, 3, -3, 2**62 + 2**10 + 1, 99]
# Finite and moderate, for the rounding families (exact results stay in range).
R64 = [0.0, 0.5, -0.75, 1.0, 1.5, 2.5, -3.25, 0.1, 1 / 3, 7.0, -100.5, 1e-10, 3.7e100, -2e10, 0.999, 2.0**-30,
       1 + 2.0**-52, -5.5, 1e15 + 0.5, 3.0]
R32 = [3.7e30 if abs(v) > 1e30 else v for v in R64]


def samples(dtype, kind):
    if dtype is np.int16:
        return np.array([0, 0x3C00, 0xBC00, 0x7BFF, 0x0001, 0x7C00, 0x7E00, 0x3555, 0x2E66, 0xC500] * 2,
                        np.uint16).view(np.int16)
    if dtype is np.int32:
        return np.array(I32, np.int32)
    if dtype is np.int64:
        return np.array(I64, np.int64)
    if kind == "rounded":
        return np.array(R32 if dtype is np.float32 else R64, dtype)
    with np.errstate(over="ignore"):
        return np.array(F64, dtype)


def inputs(ins, kind):
    a = [samples(t, kind) for t in ins]
    return [np.roll(x, 3 * i) for i, x in enumerate(a)]  # different pairings for each parameter


# --- exact references -----------------------------------------------------------------------------

def neighbours(c, dtype):
    c = dtype(c)
    return [np.nextafter(c, dtype(-np.inf)), c, np.nextafter(c, dtype(np.inf))]


def round_exact(q, dtype, mode, approx=None):
    """The exact value q (a Fraction, or a predicate for sqrt) rounded to dtype as mode says."""
    c = approx if approx is not None else dtype(float(q))
    cands = sorted(set(float(x) for x in neighbours(c, dtype)))
    below = [x for x in cands if Fraction(x) <= q]
    above = [x for x in cands if Fraction(x) >= q]
    lo, hi = max(below), min(above)
    if mode == "rd":
        return lo
    if mode == "ru":
        return hi
    if mode == "rz":
        return lo if q >= 0 else hi
    if lo == hi or q - Fraction(lo) < Fraction(hi) - q:
        return lo
    if q - Fraction(lo) > Fraction(hi) - q:
        return hi
    return lo if int(np.array(lo, dtype).view({np.float32: np.int32, np.float64: np.int64}[dtype])) % 2 == 0 else hi


def sqrt_exact(x, dtype, mode):
    c = dtype(math.sqrt(x))
    cands = sorted(set(float(v) for v in neighbours(c, dtype) if v >= 0))
    fx = Fraction(x)
    lo = max(v for v in cands if Fraction(v) ** 2 <= fx)
    hi = min(v for v in cands if Fraction(v) ** 2 >= fx)
    if mode in ("rd", "rz"):
        return lo
    if mode == "ru":
        return hi
    if lo == hi:
        return lo
    mid = (Fraction(lo) + Fraction(hi)) / 2  # sqrt(x) is never exactly a midpoint
    return lo if fx < mid * mid else hi


def narrow(x, mode):
    """double2float: x rounded to float32 (far beyond its range: inf or the largest float, by mode)."""
    big = float(np.finfo(np.float32).max)
    if math.isnan(x) or math.isinf(x):
        return x
    if abs(x) > 2 * big:
        up = {"rn": True, "rz": False, "ru": x > 0, "rd": x < 0}[mode]
        return math.copysign(math.inf if up else big, x)
    return round_exact(Fraction(x), np.float32, mode)


def to_int(x, mode, lo, hi, src="double"):
    if math.isnan(x):  # the GPU's cvt (an H200): the sign bit alone at 64 bits and at 32 from a double, else 0
        if hi < 2**32 and src == "float":
            return 0
        return lo if lo else (hi + 1) // 2
    if math.isinf(x):
        return hi if x > 0 else lo
    f = Fraction(x)
    v = {"rz": math.trunc(f), "ru": math.ceil(f), "rd": math.floor(f), "rn": round(f)}[mode]  # round(): ties to even
    return min(max(v, lo), hi)


def wrap(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def u(v, bits):
    return v & ((1 << bits) - 1)


REF = {}  # name -> (kind, function of the inputs giving the outputs)


def exact(names, fn, kind="exact"):
    for n in names:
        REF[n] = (kind, fn)


MODES = ("rn", "rz", "ru", "rd")
for m in MODES:
    F, D = np.float32, np.float64
    exact([f"dadd_{m}"], lambda x, y, m=m: round_exact(Fraction(x) + Fraction(y), D, m), "rounded")
    exact([f"dmul_{m}"], lambda x, y, m=m: round_exact(Fraction(x) * Fraction(y), D, m), "rounded")
    exact([f"ddiv_{m}"], lambda x, y, m=m: round_exact(Fraction(x) / Fraction(y), D, m) if y else None, "rounded")
    exact([f"drcp_{m}"], lambda x, m=m: round_exact(1 / Fraction(x), D, m) if x else None, "rounded")
    exact([f"dsqrt_{m}"], lambda x, m=m: sqrt_exact(x, D, m) if x >= 0 else None, "rounded")
    exact([f"fma_{m}"], lambda x, y, z, m=m: round_exact(Fraction(x) * Fraction(y) + Fraction(z), D, m), "rounded")
    exact([f"fadd_{m}"], lambda x, y, m=m: round_exact(Fraction(x) + Fraction(y), F, m), "rounded")
    exact([f"fsub_{m}"], lambda x, y, m=m: round_exact(Fraction(x) - Fraction(y), F, m), "rounded")
    exact([f"fmul_{m}"], lambda x, y, m=m: round_exact(Fraction(x) * Fraction(y), F, m), "rounded")
    exact([f"fdiv_{m}"], lambda x, y, m=m: round_exact(Fraction(x) / Fraction(y), F, m) if y else None, "rounded")
    exact([f"frcp_{m}"], lambda x, m=m: round_exact(1 / Fraction(x), F, m) if x else None, "rounded")
    exact([f"fsqrt_{m}"], lambda x, m=m: sqrt_exact(x, F, m) if x >= 0 else None, "rounded")
    exact([f"fmaf_{m}"], lambda x, y, z, m=m: round_exact(Fraction(x) * Fraction(y) + Fraction(z), F, m), "rounded")
    exact([f"double2float_{m}"], lambda x, m=m: narrow(x, m))
    for src in ("double", "float"):
        exact([f"{src}2int_{m}"], lambda x, m=m, s=src: to_int(x, m, -2**31, 2**31 - 1, s))
        exact([f"{src}2uint_{m}"], lambda x, m=m, s=src: wrap(to_int(x, m, 0, 2**32 - 1, s), 32))
        exact([f"{src}2ll_{m}"], lambda x, m=m, s=src: to_int(x, m, -2**63, 2**63 - 1, s))
        exact([f"{src}2ull_{m}"], lambda x, m=m, s=src: wrap(to_int(x, m, 0, 2**64 - 1, s), 64))
    exact([f"int2float_{m}"], lambda x, m=m: round_exact(Fraction(x), F, m))
    exact([f"uint2float_{m}"], lambda x, m=m: round_exact(Fraction(u(x, 32)), F, m))
    exact([f"ll2double_{m}"], lambda x, m=m: round_exact(Fraction(x), D, m))
    exact([f"ll2float_{m}"], lambda x, m=m: round_exact(Fraction(x), F, m))
    exact([f"ull2double_{m}"], lambda x, m=m: round_exact(Fraction(u(x, 64)), D, m))
    exact([f"ull2float_{m}"], lambda x, m=m: round_exact(Fraction(u(x, 64)), F, m))
exact(["int2double_rn"], float)
exact(["uint2double_rn"], lambda x: float(u(x, 32)))

# Bits and classification.
exact(["double2hiint"], lambda x: wrap(int(np.float64(x).view(np.uint64)) >> 32, 32))
exact(["double2loint"], lambda x: wrap(int(np.float64(x).view(np.uint64)), 32))
exact(["hiloint2double"], lambda h, l: float(np.uint64((u(h, 32) << 32) | u(l, 32)).view(np.float64)))
exact(["double_as_longlong"], lambda x: int(np.float64(x).view(np.int64)))
exact(["longlong_as_double"], lambda x: float(np.int64(x).view(np.float64)))
exact(["float_as_int"], lambda x: int(np.float32(x).view(np.int32)))
exact(["int_as_float"], lambda x: float(np.int32(x).view(np.float32)))
# nan: the GPU's canonical half nan 0x7fff (cvt.rn.f16.f32 on an H200), where NumPy keeps 0x7e00
exact(["float2half_rn"], lambda x: 0x7FFF if math.isnan(x) else int(np.float32(x).astype(np.float16).view(np.int16)))
exact(["half2float"], lambda h: float(np.int16(h).view(np.float16)))
exact(["isnand", "isnanf"], lambda x: int(math.isnan(x)))
exact(["isinfd", "isinff"], lambda x: int(math.isinf(x)))
exact(["isfinited", "finitef"], lambda x: int(math.isfinite(x)))
exact(["signbitd", "signbitf"], lambda x: int(math.copysign(1.0, x) < 0))
exact(["saturatef"], lambda x: 0.0 if math.isnan(x) else min(max(x, 0.0), 1.0))

# Integers.
exact(["abs"], lambda x: wrap(abs(x), 32))
exact(["llabs"], lambda x: wrap(abs(x), 64))
exact(["brev"], lambda x: wrap(int(f"{u(x, 32):032b}"[::-1], 2), 32))
exact(["brevll"], lambda x: wrap(int(f"{u(x, 64):064b}"[::-1], 2), 64))
exact(["byte_perm"], lambda x, y, s: wrap(sum((((u(y, 32) << 32 | u(x, 32)) >> (8 * ((u(s, 32) >> 4 * i) & 7))) & 0xFF)
                                               << 8 * i for i in range(4)), 32))
exact(["clz"], lambda x: 32 - u(x, 32).bit_length())
exact(["clzll"], lambda x: 64 - u(x, 64).bit_length())
exact(["ffs"], lambda x: (u(x, 32) & -u(x, 32)).bit_length())
exact(["ffsll"], lambda x: (u(x, 64) & -u(x, 64)).bit_length())
exact(["popc"], lambda x: bin(u(x, 32)).count("1"))
exact(["popcll"], lambda x: bin(u(x, 64)).count("1"))
exact(["hadd"], lambda x, y: (x + y) >> 1)
exact(["rhadd"], lambda x, y: (x + y + 1) >> 1)
exact(["uhadd"], lambda x, y: wrap((u(x, 32) + u(y, 32)) >> 1, 32))
exact(["urhadd"], lambda x, y: wrap((u(x, 32) + u(y, 32) + 1) >> 1, 32))
exact(["max", "llmax"], max)
exact(["min", "llmin"], min)
exact(["umax"], lambda x, y: x if u(x, 32) > u(y, 32) else y)
exact(["umin"], lambda x, y: x if u(x, 32) < u(y, 32) else y)
exact(["ullmax"], lambda x, y: x if u(x, 64) > u(y, 64) else y)
exact(["ullmin"], lambda x, y: x if u(x, 64) < u(y, 64) else y)
exact(["mul24"], lambda x, y: wrap(wrap(x, 24) * wrap(y, 24), 32))
exact(["umul24"], lambda x, y: wrap(u(x, 24) * u(y, 24), 32))
exact(["mulhi"], lambda x, y: wrap((x * y) >> 32, 32))
exact(["umulhi"], lambda x, y: wrap((u(x, 32) * u(y, 32)) >> 32, 32))
exact(["mul64hi"], lambda x, y: wrap((x * y) >> 64, 64))
exact(["umul64hi"], lambda x, y: wrap((u(x, 64) * u(y, 64)) >> 64, 64))
exact(["sad"], lambda x, y, z: wrap(abs(x - y) + u(z, 32), 32))
exact(["usad"], lambda x, y, z: wrap(abs(u(x, 32) - u(y, 32)) + u(z, 32), 32))


# --- math references: Python's math (ulps of tolerance by row) ------------------------------------

def py(fn):
    def call(*a):
        try:
            return fn(*a)
        except (ValueError, OverflowError, ZeroDivisionError):
            return None  # math raises where C returns nan or inf: such inputs are not compared
    return call


def math_row(name, fn, ulps=2, f_ulps=2):
    REF[name] = ("math", py(fn), ulps)
    REF[name + "f"] = ("math32", py(fn), f_ulps)


for n in ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "erf", "erfc", "exp", "expm1", "log",
          "log10", "log1p", "log2", "sin", "sinh", "sqrt", "tan", "tanh", "ceil", "floor", "fabs", "trunc", "cbrt",
          "exp2"):
    math_row(n, getattr(math, n))
for n in ("atan2", "copysign", "fmod", "hypot", "pow", "remainder", "nextafter"):
    math_row(n, getattr(math, n))
math_row("exp10", lambda x: 10.0 ** x, 3, 3)
math_row("lgamma", math.lgamma, 8, 8)
REF["lgamma"] = ("abs", REF["lgamma"][1], 1e-15)  # Python's lgamma is off by hundreds of ulps near 1 and 2
math_row("tgamma", math.gamma, 8, 8)
math_row("fdim", lambda x, y: math.nan if math.isnan(x) or math.isnan(y) else x - y if x > y else 0.0)
math_row("fmax", lambda x, y: y if math.isnan(x) else x if math.isnan(y) else max(x, y))
math_row("fmin", lambda x, y: y if math.isnan(x) else x if math.isnan(y) else min(x, y))
math_row("fma", lambda x, y, z: float(Fraction(x) * Fraction(y) + Fraction(z)), 0, 0)
math_row("rint", lambda x: float(round(x)), 0, 0)
math_row("nearbyint", lambda x: float(round(x)), 0, 0)
math_row("round", lambda x: float(math.floor(abs(x) + 0.5)) * math.copysign(1, x), 0, 0)
math_row("logb", lambda x: float(math.frexp(x)[1] - 1) if x and math.isfinite(x) else -math.inf if not x else abs(x))
math_row("rsqrt", lambda x: 1 / math.sqrt(x))
math_row("rcbrt", lambda x: 1 / math.cbrt(x))
def sincospi(x):
    """sin(pi x), cos(pi x): x = n/2 + r exactly, then math's sin and cos of pi r."""
    if not math.isfinite(x) or abs(x) >= 1e6:
        return None
    n = round(2 * x)
    r = x - n / 2  # exact
    sr, cr = math.sin(math.pi * r), math.cos(math.pi * r)
    s, c = [(sr, cr), (cr, -sr), (-sr, -cr), (-cr, sr)][n % 4]
    if r == 0:
        s, c = (math.copysign(0.0, x) if s == 0 else s), (0.0 if c == 0 else c)
    return s, c


math_row("sinpi", lambda x: (sincospi(x) or (None,))[0], 4, 4)
math_row("cospi", lambda x: (sincospi(x) or (None, None))[1], 4, 4)
math_row("normcdf", lambda x: 0.5 * math.erfc(-x / math.sqrt(2)), 4, 4)
math_row("ldexp", math.ldexp, 0, 0)
math_row("scalbn", math.ldexp, 0, 0)
def powi(dtype):
    """libdevice's __nv_powi/__nv_powif step by step: square and multiply, rounding each product
    (error grows with the exponent), and 1/r for a negative one; the cpu backend computes it so."""
    def f(x, n):
        with np.errstate(all="ignore"):
            a, r, e = dtype(x), dtype(1), abs(n)
            while True:
                if e & 1:
                    r = dtype(r * a)
                e >>= 1
                if e == 0:
                    return float(dtype(1) / r if n < 0 else r)
                a = dtype(a * a)
    return f


REF["powi"] = ("exact", powi(np.float64))
REF["powif"] = ("exact", powi(np.float32))
math_row("frexp", math.frexp, 0, 0)
math_row("modf", lambda x: math.modf(x), 0, 0)
math_row("sincos", lambda x: (math.sin(x), math.cos(x)))
math_row("sincospi", sincospi, 4, 4)
def remquo(x, y):
    """(remainder, quotient bits): C's remquo gives the sign of x / y and at least its integral
    quotient's last 3 bits; glibc (like the GPU's) gives those 3."""
    r = math.remainder(x, y)
    q = round((Fraction(x) - Fraction(r)) / Fraction(y))
    return r, int(math.copysign(abs(q) % 8, x / y)) if q else 0


math_row("remquo", remquo, 0, 0)
math_row("j0", lambda x: None)  # Bessel functions: checked below against mpmath's values
math_row("j1", lambda x: None)
math_row("y0", lambda x: None)
math_row("y1", lambda x: None)
math_row("jn", lambda n, x: None)
math_row("yn", lambda n, x: None)
math_row("erfinv", lambda x: None)
math_row("erfcinv", lambda x: None)
math_row("erfcx", lambda x: None)
math_row("normcdfinv", lambda x: None)
REF["ilogb"] = ("exact", lambda x: math.frexp(x)[1] - 1 if math.isfinite(x) and x else
                2**31 - 1 if math.isinf(x) else -2**31)  # 0 and nan: INT_MIN, as libdevice and glibc
REF["ilogbf"] = REF["ilogb"]
REF["nextafterf"] = ("exact", lambda x, y: float(np.nextafter(np.float32(x), np.float32(y))))
REF["llrint"] = ("exact", lambda x: to_int(x, "rn", -2**63, 2**63 - 1))
REF["llrintf"] = REF["llrint"]
REF["llround"] = ("exact", lambda x: None if not math.isfinite(x) or abs(x) > 2**62 else
                  int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1))
REF["llroundf"] = REF["llround"]
ON_GPU = cuforge.backend() == "cuda"


def beyond_range(fn, n):
    """sin.approx.f32 and cos.approx.f32 are bounded on [-100 pi, 100 pi] only (fast_cosf(-2e10) is 1.0
    on an H200): past it the approximate functions are not compared."""
    if n not in ("sin", "cos", "tan", "sincos"):
        return fn
    return lambda x, *a: None if abs(x) > 100 * math.pi else fn(x, *a)


for n in ("cos", "sin", "tan", "exp", "exp10", "log", "log2", "log10"):
    # On a GPU the fast functions are its approximate instructions (sin.approx.f32, lg2.approx.f32,
    # ex2.approx.f32, ...), whose error the PTX ISA bounds near 2^-21 (absolute where the result
    # is small, relative above); the cpu backend computes them with libm.
    REF[f"fast_{n}f"] = ("abs", beyond_range(REF[n + "f"][1], n), 2.0**-16) if ON_GPU else REF[n + "f"]


def fast_pow(x, y):
    """__nv_fast_powf is exp2(y * log2(x)) on approximate instructions: nan for a negative base and
    for 0 ** 0 (0 times -inf), as the GPU computes it; so does the cpu backend."""
    x, y = float(np.float32(x)), float(np.float32(y))
    if math.isnan(x) or math.isnan(y) or x < 0:
        return math.nan
    p = y * (-math.inf if x == 0 else math.inf if math.isinf(x) else math.log2(x))
    return math.nan if math.isnan(p) else math.inf if p > 128 else 0.0 if p < -150 else 2.0**p


REF["fast_powf"] = ("abs", fast_pow, 2.0**-16)
REF["fast_fdividef"] = ("math32", py(lambda x, y: x / y), 1)
REF["fast_sincosf"] = ("abs", beyond_range(REF["sincosf"][1], "sincos"), 2.0**-16) if ON_GPU else REF["sincosf"]
REF["frsqrt_rn"] = ("math32", py(lambda x: 1 / math.sqrt(x)), 1)


def test_every_row_has_a_reference():
    assert len(ROWS) == 317  # numba-cuda 0.30's cuda.libdevice
    missing = [n for n, _, _ in ROWS if n not in REF]
    assert not missing, missing


def ulp_close(got, want, dtype, ulps):
    if want is None:
        return True
    if isinstance(want, int) and dtype in (np.int32, np.int64, np.int16):
        return int(got) == want
    got, want = float(got), float(want)
    if math.isnan(want):
        return math.isnan(got)
    with np.errstate(over="ignore"):
        w = dtype(want)
    if math.isinf(float(w)):
        return got == float(w)
    if want == 0:
        return got == 0.0 or abs(got) < 1e-300
    with np.errstate(over="ignore"):
        spacing = float(np.spacing(np.abs(w)))
    return abs(got - float(w)) <= max(ulps, 0.5) * spacing


@pytest.mark.parametrize("name,ins,outs", ROWS, ids=[r[0] for r in ROWS])
def test_row_on_cpu_matches_reference(kernels, name, ins, outs):
    ref = REF[name]
    kind = "rounded" if ref[0] == "rounded" else "plain"
    args = inputs(ins, kind)
    n = args[0].size
    got = [np.zeros(n, t) for t in outs]
    getattr(kernels, f"k_{name}")[1, n](*got, *args)
    for i in range(n):
        a = [x[i].item() for x in args]
        if ref[0] == "math32":
            a = [float(np.float32(v)) if isinstance(v, float) else v for v in a]
        want = ref[1](*a)
        wants = list(want) if isinstance(want, tuple) else [want]
        ulps = ref[2] if len(ref) > 2 and ref[0] != "abs" else 0
        for g, w, t in zip(got, wants, outs):
            if ref[0] == "abs":
                ok = w is None or abs(float(g[i]) - w) <= ref[2] * max(1.0, abs(w)) or (
                    math.isinf(w) and g[i] == w) or (math.isnan(w) and math.isnan(g[i]))
            elif ref[0] in ("exact", "rounded") and w is not None and t in (np.float32, np.float64):
                # (a zero's sign is the hardware's IEEE rule, which the exact references do not model)
                ok = (math.isnan(w) and math.isnan(g[i])) or float(g[i]) == float(w)
            else:
                ok = ulp_close(g[i], w, t, ulps)
            assert ok, f"libdevice.{name}{tuple(a)}: got {g[i]!r}, want {w!r}"


# Values of mpmath (30 digits) at the points below, for what Python's math lacks.
MPMATH = {
    "erfinv": [(0.5, 0.4769362762044698733814183536), (-0.9, -1.163087153676674162844095434),
               (0.999999, 3.458910737275498777532448804), (1e-10, 8.862269254527580459385980927e-11)],
    "erfcinv": [(1e-300, 26.20946996051612388552073179), (0.5, 0.4769362762044698733814183536),
                (1.5, -0.4769362762044698733814183536), (1e-20, 6.601580622355142565624345891)],
    "erfcx": [(30.0, 0.01879588886141675149712532905), (1.0, 0.4275835761558070044107503445),
              (-2.0, 108.9409043899779724123554338), (0.0, 1.0)],
    "normcdfinv": [(0.975, 1.95996398454005385560443065), (1e-10, -6.361340902404056199100396949),
                   (0.5, 0.0), (0.3, -0.5244005127080408159694543623)],
    "j0": [(2.5, -0.04838377646819799632728777885), (10.0, -0.2459357644513483351977608625)],
    "j1": [(2.5, 0.4970941024642740380108162763), (10.0, 0.04347274616886143666974876803)],
    "y0": [(2.5, 0.4980703596152318878274723504), (10.0, 0.05567116728359939142445987741)],
    "y1": [(2.5, 0.1459181379667857988787599405), (10.0, 0.2490154242069538839232834747)],
}


@pytest.mark.parametrize("name", sorted(MPMATH) + ["jn", "yn"])
def test_functions_python_lacks_against_mpmath(kernels, name):
    if name in ("jn", "yn"):
        pts = [((3, 2.5), 0.2166003910391135247666890035), ((5, 10.0), -0.2340615281867936404436949416)] \
            if name == "jn" else [((3, 2.5), -0.7560554967536709968379029772), ((5, 10.0), 0.1354030476893623031970290148)]
        n = np.array([p[0][0] for p in pts], np.int32)
        x = np.array([p[0][1] for p in pts])
        want = np.array([p[1] for p in pts])
        for suffix, t, tol in (("", np.float64, 1e-13), ("f", np.float32, 1e-5)):
            got = np.zeros(len(pts), t)
            getattr(kernels, f"k_{name}{suffix}")[1, len(pts)](got, n, x.astype(t))
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
        return
    x = np.array([p[0] for p in MPMATH[name]])
    want = np.array([p[1] for p in MPMATH[name]])
    # libdevice's own float32 functions are documented within a few ulps (j1f and y1f: 9 below 8)
    for suffix, t, tol in (("", np.float64, 1e-14), ("f", np.float32, 1.2e-6 if ON_GPU else 3e-7)):
        got = np.zeros(x.size, t)
        getattr(kernels, f"k_{name}{suffix}")[1, x.size](got, x.astype(t))
        if t is np.float32:
            want_t = np.array([float(p[1]) for p in MPMATH[name]])
            # the float32 function of the float32 input: compare where the input was exact
            exact_in = x.astype(np.float32).astype(np.float64) == x
            np.testing.assert_allclose(got[exact_in], want_t[exact_in], rtol=tol, atol=1e-37)
        else:
            np.testing.assert_allclose(got, want, rtol=tol, atol=1e-300)


# Seen on an H200: jnf's recurrence runs n = 2**31 - 1 steps past overflow, and where LLVM and NVVM
# contract its multiply-adds differently one ends at -0.0 (ours), the other at nan (numba-cuda's).
KNOWN_GPU_DIFFERENCES = [("jnf", (2147483647, -3.25))]


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_rows_match_numba_cuda_on_a_gpu(kernels, tmp_path):
    """Every row on the same inputs under numba-cuda on the GPU: the same libdevice, so the same bits
    for the integer results and the conversions and rounded arithmetic; the math functions within 2
    units in the last place (LLVM and NVVM contract different multiply-adds inside libdevice)."""
    arrays, calls = {}, []
    for name, ins, outs in ROWS:
        ref = REF[name]
        args = inputs(ins, "rounded" if ref[0] == "rounded" else "plain")
        keys = [f"{name}/o{j}" for j in range(len(outs))] + [f"{name}/a{j}" for j in range(len(ins))]
        arrays.update(zip(keys, [np.zeros(args[0].size, t) for t in outs] + list(args)))
        calls.append({"kernel": f"k_{name}", "grid": 1, "block": int(args[0].size), "args": keys})
    theirs, errors, ours = run_under_numba_cuda(kernels_source(), calls, arrays, tmp_path,
                                                meanwhile=lambda: launch_all(kernels, calls, arrays))
    problems = [f"{k}: numba-cuda failed: {e}" for k, e in errors.items()]
    for name, args in KNOWN_GPU_DIFFERENCES:
        i = next(i for i in range(arrays[f"{name}/a0"].size)
                 if tuple(arrays[f"{name}/a{m}"][i].item() for m in range(len(args))) == args)
        theirs[f"{name}/o0"][i] = ours[f"{name}/o0"][i]
    for name, ins, outs in ROWS:
        exact_row = REF[name][0] in ("exact", "rounded")
        for j in range(len(outs)):
            key = f"{name}/o{j}"
            if key not in theirs:
                continue
            if exact_row or ours[key].dtype.kind != "f":
                bad = bit_differences(ours[key], theirs[key])
            else:
                bad = ulp_differences(ours[key], theirs[key], 2)
            if len(bad):
                i = bad[0]
                a = [arrays[f"{name}/a{m}"][i].item() for m in range(len(ins))]
                problems.append(f"{name}{tuple(a)}: {ours[key][i]!r}, numba-cuda {theirs[key][i]!r} "
                                f"({len(bad)} of {ours[key].size} differ)")
    assert not problems, f"{len(problems)} rows differ:\n" + "\n".join(problems)


def dev_sinf(x):
    return libdevice.sinf(x)


def dev_frexpf(x):
    return libdevice.frexpf(x)


def dev_sincos(x):
    return libdevice.sincos(x)


def dev_umax(x, y):
    return libdevice.umax(x, y)


@pytest.mark.parametrize("fn,sig,want", [
    (dev_sinf, "float64", "float32"), (dev_sinf, "int64", "float32"), (dev_sinf, "float32", "float32"),
    (dev_frexpf, "float32", "Tuple(float32, int32)"), (dev_sincos, "float32", "UniTuple(float64 x 2)"),
    (dev_umax, "uint32, uint32", "int32"),
])
def test_types_as_numba_cuda_gives_them(fn, sig, want):
    """Arguments convert to the C parameters (numba-cuda's one signature per function), and
    results written through pointers come back after the return value (numba-cuda 0.30's types)."""
    from cuforge import types as t

    args = tuple(getattr(t, s.strip()) for s in sig.split(","))
    _, ret = cuda.compile_ptx(fn, args, device=True)
    assert str(ret) == want


def dev_int2float_rz(x):
    return libdevice.int2float_rz(x)


def dev_ull2double_rd(x):
    return libdevice.ull2double_rd(x)


def dev_ll2float_ru(x):
    return libdevice.ll2float_ru(x)


def dev_float2uint_rz(x):
    return libdevice.float2uint_rz(x)


def dev_double2ll_rn(x):
    return libdevice.double2ll_rn(x)


def dev_hypotf(x, y):
    return math.hypot(x, y)


@pytest.mark.parametrize("fn,sig,instruction", [
    (dev_int2float_rz, "int32", "cvt.rz.f32.s32"), (dev_ull2double_rd, "int64", "cvt.rm.f64.u64"),
    (dev_ll2float_ru, "int64", "cvt.rp.f32.s64"), (dev_float2uint_rz, "float32", "cvt.rzi.u32.f32"),
    (dev_double2ll_rn, "float64", "cvt.rni.s64.f64"),
])
def test_the_ptx_converts_in_the_rounding_the_function_names(fn, sig, instruction):
    """libdevice's conversions are NVVM intrinsics that LLVM 19 rewrites: the .rz ones into plain
    sitofp/fptosi (int2float_rz then rounded to nearest on an H200). The PTX keeps the cvt."""
    from cuforge import types as t

    ptx, _ = cuda.compile_ptx(fn, (getattr(t, sig),), device=True)
    assert instruction in ptx, ptx


@pytest.mark.parametrize("fastmath,sqrt", [(False, "sqrt.rn.f32"), (True, "sqrt.approx")])
def test_libdevice_computes_square_roots_as_nvvm_does(fastmath, sqrt):
    """libdevice asks NVVMReflect for __CUDA_PREC_SQRT (hypotf's square root): NVVM, and so numba-cuda,
    answers 1 unless fastmath; LLVM 19 answered 0 (sqrt.approx without fastmath)."""
    from cuforge import types as t

    ptx, _ = cuda.compile_ptx(dev_hypotf, (t.float32, t.float32), device=True, fastmath=fastmath)
    assert sqrt in ptx
    if not fastmath:
        assert "sqrt.approx" not in ptx


@cuda.jit
def rounding_and_tuples(out, x):
    m, e = libdevice.frexp(x)
    s, c = libdevice.sincospi(0.5)
    out[0] = m
    out[1] = e
    out[2] = s
    out[3] = c
    out[4] = libdevice.fadd_ru(1.0, 2.0**-30)  # float64 arguments convert to float32
    out[5] = libdevice.fadd_rd(1.0, 2.0**-30)
    out[6] = libdevice.double2int_rz(1e20)  # saturates, as the GPU's cvt
    out[7] = libdevice.umulhi(-1, -1)


def test_a_kernel_as_users_write_it():
    out = np.zeros(8)
    rounding_and_tuples[1, 1](out, 3.0)
    assert out.tolist() == [0.75, 2.0, 1.0, 0.0, 1.0000001192092896, 1.0, 2147483647.0, -2.0]


def test_bad_calls_are_typing_errors():
    def two_for_one(x):
        return libdevice.sinf(x, x)

    def complex_arg(x):
        return libdevice.sin(x)

    from cuforge import types as t

    with pytest.raises(cuda.TypingError, match=r"libdevice.sinf.*takes \(x\), 1 argument"):
        cuda.compile_ptx(two_for_one, (t.float32,), device=True)
    with pytest.raises(cuda.TypingError, match="complex128, not a real number"):
        cuda.compile_ptx(complex_arg, (t.complex128,), device=True)


def test_imports_as_in_numba():
    from cuforge.cuda.libdevice import frexpf, sinf

    assert sinf is libdevice.sinf and frexpf is cuda.libdevice.frexpf
    with pytest.raises(TypeError, match="only be used inside"):
        sinf(1.0)


def exp_only(x):
    return math.exp(x)


def exp_and_sin(x):
    return math.exp(x) + math.sin(x)


def sin_only(x):
    return math.sin(x)


def pow_of(x):
    return math.pow(x, 1.5) + math.lgamma(x)


def test_overlapping_sets_of_functions_link_alike_each_time():
    """libdevice's functions are cut out once per process and set of names (libdevice.cpp): a
    kernel needing a set that overlaps an earlier one's, or one whose functions call libdevice's
    internal helpers (pow, lgamma), gets exactly the code it got the first time, from any
    thread, and every __nv_ function it calls is defined in its PTX."""
    from concurrent.futures import ThreadPoolExecutor

    from cuforge import types as t

    fns = [exp_only, exp_and_sin, sin_only, pow_of]

    def ptx_of(fn):
        # NVPTX numbers its call sequences in comments ("{ // callseq 16, 0") per target machine,
        # which each thread keeps: only the comments' numbers may differ.
        return re.sub(r"// callseq \d+", "// callseq", cuda.compile_ptx(fn, (t.float64,), device=True)[0])

    first = [ptx_of(fn) for fn in fns]
    for ptx in first:
        assert not re.search(r"\.extern \.func[^\n]*__nv_", ptx), ptx
    with ThreadPoolExecutor(4) as pool:
        again = list(pool.map(ptx_of, fns * 3))
    assert again == first * 3
