"""datetime64 and timedelta64: device arrays of them, and kernels computing
with them as Numba does (numba-cuda's typing and lowering of NPDatetime and
NPTimedelta; NumPy's semantics, NaT included).

numba-cuda's own datetime tests run unchanged (the first two tests). The
arithmetic is checked element by element against NumPy on random values with
NaT among them, in mixed units (seconds with milliseconds, days with hours,
months and years with days through the calendar); where Numba's lowering
differs from NumPy (integer division truncates; // of two negative
timedeltas), the reference is Numba's formula, named in the test.
"""

import numpy as np
import pytest

from compiler_support import load_module
from cuforge import cuda
from cuforge import types as cftypes

NAT = np.iinfo(np.int64).min


# --- numba-cuda's tests, as they are written ---------------------------------------------------------------


def test_basic_datetime_kernel():
    @cuda.jit
    def foo(start, end, delta):
        for i in range(cuda.grid(1), delta.size, cuda.gridsize(1)):
            delta[i] = end[i] - start[i]

    arr1 = np.arange("2005-02", "2006-02", dtype="datetime64[D]")
    arr2 = arr1 + np.random.randint(0, 10000, arr1.size)
    delta = np.zeros_like(arr1, dtype="timedelta64[D]")
    foo[1, 32](arr1, arr2, delta)
    assert np.array_equal(delta, arr2 - arr1)


def test_scalar_datetime_kernel():
    @cuda.jit
    def foo(dates, target, delta, matches, outdelta):
        for i in range(cuda.grid(1), matches.size, cuda.gridsize(1)):
            matches[i] = dates[i] == target
            outdelta[i] = dates[i] - delta

    arr1 = np.arange("2005-02", "2006-02", dtype="datetime64[D]")
    target = arr1[5]  # datetime
    delta = arr1[6] - arr1[5]  # timedelta
    matches = np.zeros_like(arr1, dtype=np.bool_)
    outdelta = np.zeros_like(arr1, dtype="datetime64[D]")
    foo[1, 32](arr1, target, delta, matches, outdelta)
    assert list(matches.nonzero()[0]) == [5]
    assert np.array_equal(outdelta, arr1 - delta)


# --- device arrays --------------------------------------------------------------------------------------


def test_device_arrays_of_datetimes():
    arr = np.arange("2005-02", "2006-02", dtype="datetime64[D]")
    d = cuda.to_device(arr)
    assert d.dtype == arr.dtype and np.array_equal(d.copy_to_host(), arr)
    assert d[5] == arr[5] and isinstance(d[5], np.datetime64)
    viewed = d.view(np.int64)
    assert np.array_equal(viewed.copy_to_host(), arr.view(np.int64))
    td = arr - (arr - 1)
    assert cuda.to_device(td).copy_to_host().dtype == np.dtype("timedelta64[D]")
    assert cuda.device_array(4, dtype="m8[ms]").dtype == np.dtype("m8[ms]")
    assert cuda.device_array_like(arr).dtype == arr.dtype
    generic = cuda.to_device(np.array([1, 2], "m8"))
    assert generic.dtype == np.dtype("m8")
    with pytest.raises(BufferError, match=r"datetime64\[D\] array has no DLPack type"):
        d.__dlpack__()
    with pytest.raises(TypeError, match=r"multiples such as 10s are not supported"):
        cuda.to_device(np.zeros(2, "m8[10s]"))


# --- arithmetic against NumPy ----------------------------------------------------------------------------


def values(dtype, n=400, seed=0):
    rng = np.random.default_rng(seed)
    v = rng.integers(-10**6, 10**6, n)
    v[::17] = NAT  # NaT among them
    v[1::23] = 0
    return v.astype(np.int64).view(dtype)


def kernel_for(src):
    """A kernel computing out[i] = <src with x and y> (a module file: kernels compile from source)."""
    import tempfile

    folder = tempfile.mkdtemp()
    mod = load_module("import numpy as np\nfrom cuforge import cuda\n\n@cuda.jit\ndef k(x, y, out):\n    i = cuda.grid(1)\n"
                      "    if i < out.size:\n        out[i] = " + src + "\n", folder, "dt_kernel_" + str(abs(hash(src))))
    return mod.k


def run(src, x, y, out_dtype):
    out = np.zeros(x.size, out_dtype)
    kernel_for(src)[(x.size + 127) // 128, 128](x, y, out)
    return out


def same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype.kind in "mM":
        return np.array_equal(got.view(np.int64), want.astype(got.dtype).view(np.int64))
    return np.array_equal(got, want, equal_nan=got.dtype.kind == "f")


@pytest.mark.parametrize("xu,yu", [("s", "s"), ("s", "ms"), ("ms", "s"), ("D", "h"), ("W", "D"), ("Y", "M")])
@pytest.mark.parametrize("op", ["x[i] + y[i]", "x[i] - y[i]"])
def test_timedelta_plus_minus_timedelta_in_the_finer_unit(xu, yu, op):
    x, y = values(f"m8[{xu}]", seed=1), values(f"m8[{yu}]", seed=2)
    want = eval(op.replace("[i]", ""))  # NumPy: the finer unit, NaT propagates
    got = run(op, x, y, want.dtype)
    assert same(got, want)


def test_timedelta_unary_and_abs():
    x = values("m8[s]", seed=3)
    assert same(run("-x[i]", x, x, x.dtype), -x)
    assert same(run("+x[i]", x, x, x.dtype), x)
    assert same(run("abs(x[i])", x, x, x.dtype), np.abs(x))


def numba_trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


@pytest.mark.parametrize("op", ["*", "/", "//"])
def test_timedelta_with_integers(op):
    x = values("m8[ms]", seed=4)
    n = np.random.default_rng(5).integers(-7, 8, x.size)
    got = run(f"x[i] {op} y[i]", x, n, x.dtype).view(np.int64)
    xi = x.view(np.int64)
    for g, a, b in zip(got, xi, n):
        if a == NAT or (op != "*" and b == 0):
            assert g == NAT
        elif op == "*":
            assert g == a * b
        else:  # Numba's lowering: sdiv, truncating, for both / and //
            assert g == numba_trunc_div(int(a), int(b)), (a, b, g)
    # An integer times a timedelta too.
    assert same(run("y[i] * x[i]", x, n, x.dtype), run("x[i] * y[i]", x, n, x.dtype))


@pytest.mark.parametrize("op", ["*", "/"])
def test_timedelta_with_floats(op):
    x = values("m8[us]", seed=6)
    f = np.random.default_rng(7).standard_normal(x.size) * 3
    f[::11] = np.nan
    f[5::13] = 0.0
    got = run(f"x[i] {op} y[i]", x, f, x.dtype).view(np.int64)
    xi = x.view(np.int64)
    for g, a, b in zip(got, xi, f):
        r = a * b if op == "*" else (a / b if b != 0 else np.nan)
        bad = a == NAT or np.isnan(b) or (op == "/" and b == 0)
        assert g == (NAT if bad or np.isnan(r) else int(r)), (a, b, g)  # truncated, as fptosi


def test_timedelta_over_timedelta():
    x, y = values("m8[s]", seed=8), values("m8[ms]", seed=9)
    with np.errstate(all="ignore"):
        assert same(run("x[i] / y[i]", x, y, np.float64), x / y)
    got = run("x[i] // y[i]", x, y, np.int64)
    xs, ys = x.astype("m8[ms]").view(np.int64), y.view(np.int64)
    for g, a, b, a0, b0 in zip(got, xs, ys, x.view(np.int64), y.view(np.int64)):
        if a0 == NAT or b0 == NAT or b == 0:
            assert g == 0
        elif a < 0 or b < 0:  # Numba's: (a - 1) / b or (a + 1) / b, truncating
            assert g == numba_trunc_div(int(a) - 1 if a < 0 else int(a) + 1, int(b))
        else:
            assert g == a // b


@pytest.mark.parametrize("xu,yu", [("s", "s"), ("s", "ms"), ("h", "m")])
@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">="])
def test_timedelta_comparisons(xu, yu, op):
    x, y = values(f"m8[{xu}]", seed=10), values(f"m8[{yu}]", seed=10)  # the same counts: many equal
    y[::3] = values(f"m8[{yu}]", seed=11)[::3]
    with np.errstate(all="ignore"):
        want = eval(f"x {op} y")  # NaT: False, except !=
    assert np.array_equal(run(f"x[i] {op} y[i]", x, y, np.bool_), want)


@pytest.mark.parametrize("du,tu", [("D", "D"), ("D", "h"), ("s", "ms"), ("M", "D"), ("Y", "D"), ("Y", "M"),
                                   ("W", "D"), ("M", "W")])
@pytest.mark.parametrize("op", ["x[i] + y[i]", "x[i] - y[i]", "y[i] + x[i]"])
def test_datetime_with_timedelta(du, tu, op):
    x = values(f"M8[{du}]", seed=12)
    x = (x.view(np.int64) % 5000).view(f"M8[{du}]")  # counts small enough for every unit's calendar
    x[::17] = np.datetime64("NaT")
    y = (values(f"m8[{tu}]", seed=13).view(np.int64) % 3000).view(f"m8[{tu}]")
    y[::19] = np.timedelta64("NaT")
    want = eval(op.replace("[i]", ""))
    assert same(run(op, x, y, want.dtype), want)


@pytest.mark.parametrize("xu,yu", [("D", "D"), ("D", "s"), ("M", "D"), ("Y", "h"), ("Y", "M")])
def test_datetime_minus_datetime_and_comparisons(xu, yu):
    x = (values(f"M8[{xu}]", seed=14).view(np.int64) % 4000).view(f"M8[{xu}]")
    y = (values(f"M8[{yu}]", seed=15).view(np.int64) % 4000).view(f"M8[{yu}]")
    x[::13], y[::7] = np.datetime64("NaT"), np.datetime64("NaT")
    want = x - y
    assert same(run("x[i] - y[i]", x, y, want.dtype), want)
    for op in ["==", "!=", "<", "<=", ">", ">="]:
        assert np.array_equal(run(f"x[i] {op} y[i]", x, y, np.bool_), eval(f"x {op} y")), op


def test_stores_convert_units():
    x = values("m8[s]", seed=16)
    got = run("x[i]", x, x, "m8[ms]")  # stored into a finer unit
    assert same(got, x.astype("m8[ms]"))
    with pytest.raises(cuda.TypingError, match=r"cannot store timedelta64\[s\] in an element of array\(int64"):
        run("x[i]", x, x, np.int64)
    d = (values("M8[M]", seed=17).view(np.int64) % 3000).view("M8[M]")
    assert same(run("x[i]", d, d, "M8[D]"), d.astype("M8[D]"))  # months to days by the calendar


def test_isnat():
    for dtype in ["M8[D]", "m8[s]"]:
        x = values(dtype, seed=18)
        assert np.array_equal(run("np.isnat(x[i])", x, x, np.bool_), np.isnat(x))
    with pytest.raises(cuda.TypingError, match=r"numpy\.isnat.*takes a datetime64 or timedelta64, not float64"):
        run("np.isnat(x[i])", np.zeros(2), np.zeros(2), np.bool_)


@pytest.mark.parametrize(
    "src,match",
    [("x[i] + y[i]", r"unsupported operand types for \+: datetime64\[D\] and datetime64\[D\]"),
     ("x[i] < 1.0", r"'<' is not supported between datetime64\[D\] and float64"),
     ("x[i] * 2", r"unsupported operand types for \*: datetime64\[D\] and int64")],
)
def test_bad_datetime_operations_are_typing_errors(src, match):
    x = np.arange("2005-02", "2005-03", dtype="datetime64[D]")
    with pytest.raises(cuda.TypingError, match=match):
        run(src, x, x, np.int64)


def test_months_do_not_mix_with_days_as_timedeltas():
    x, y = np.zeros(4, "m8[M]"), np.zeros(4, "m8[D]")
    with pytest.raises(cuda.TypingError, match=r"timedelta64\[M\] and timedelta64\[D\].*do not convert exactly"):
        run("x[i] + y[i]", x, y, "m8[D]")


def test_types_are_numbas():
    def f(d, t):
        return d - d, d + t, t * 2, t / t, t // t, t < t, -t

    sig = (cftypes.NPDatetime("D"), cftypes.NPTimedelta("h"))
    _, ret = cuda.compile_ptx(f, sig, device=True)
    assert [t.spec for t in ret] == ["timedelta64[D]", "datetime64[h]", "timedelta64[h]", "float64", "int64", "bool",
                                     "timedelta64[h]"]
