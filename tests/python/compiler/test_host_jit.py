"""cuforge.jit / njit for the host (cuforge/_host_jit.py): the same results
as numba's njit, bit for bit (host_jit_numba_side.py under numba-cuda's
Python), the course's CPU cells, random.random, prange, signatures, calls
from kernels, and the errors nopython mode gives."""

import math
import pathlib
import random
import sys

import numpy as np
import pytest

import host_jit_cases as cases
from compiler_support import numba_side_table
from cuforge import cuda, jit, njit, prange

NUMBA_CUDA = "0.30.4"
SIDE = pathlib.Path(__file__).with_name("host_jit_numba_side.py")
CASES = pathlib.Path(__file__).with_name("host_jit_cases.py")


@pytest.fixture(scope="module")
def numba_table(tmp_path_factory):
    return numba_side_table(NUMBA_CUDA, SIDE, CASES, tmp_path_factory.mktemp("host_jit"), "njit's results")


def decode(e):
    return np.frombuffer(bytes.fromhex(e["bits"]), dtype=np.dtype(e["dtype"])).reshape(e["shape"])


@pytest.mark.parametrize("case", cases.CASES, ids=[c[0] for c in cases.CASES])
def test_njit_matches_numba(case, numba_table):
    name, fn, spec = case
    args = cases.arguments(spec)
    r = njit(fn)(*args)
    results = list(r) if isinstance(r, tuple) else [] if r is None else [r]
    want = numba_table[name]
    assert [type(x).__name__ for x in results] == want["types"], name
    for got, w in zip(results, want["results"]):
        assert np.asarray(got).tobytes() == decode(w).tobytes(), (name, got, decode(w))
        if isinstance(got, np.ndarray):  # a returned array: its dtype and shape too
            assert (got.dtype.str, list(got.shape)) == (w["dtype"], w["shape"]), name
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    for got, w in zip(arrays, want["args"]):  # what it wrote into its arguments
        assert got.tobytes() == decode(w).tobytes(), name


# --- the course's CPU cells: the example's (examples/python/host_jit_reduce_random.py) ---------------------

_EXAMPLES = pathlib.Path(__file__).resolve().parents[3] / "examples" / "python"
if str(_EXAMPLES) not in sys.path:
    sys.path.insert(0, str(_EXAMPLES))
from host_jit_reduce_random import cannot_compile, hypot, monte_carlo_pi  # noqa: E402


def test_course_cells():
    assert hypot(3.0, 4.0) == 5.0
    assert hypot.py_func(3.0, 4.0) == 5.0
    pi = monte_carlo_pi(1_000_000)
    assert abs(pi - math.pi) < 0.01
    with pytest.raises(cuda.TypingError):
        cannot_compile(dict(key="value"))


def test_the_dict_sample_fails_as_nopython_mode_does():
    @jit
    def make_dict(x):
        d = {}
        d["key"] = x
        return d["key"]

    with pytest.raises(cuda.TypingError, match="Unsupported: dicts") as info:
        make_dict(1)
    assert info.value.lineno == make_dict.py_func.__code__.co_firstlineno + 2


def test_random_is_cpythons_generator():
    @njit
    def draws(seed, n, out):
        random.seed(seed)
        for i in range(n):
            out[i] = random.random()

    out = np.empty(1000)
    for seed in (0, 1, 42, 2**40 + 3, -17):
        draws(seed, 1000, out)
        rng = random.Random(seed)
        assert out.tolist() == [rng.random() for _ in range(1000)], seed
    draws(7, 10, out)
    first = out[:10].copy()
    draws(7, 10, out)
    assert np.array_equal(out[:10], first)


def test_random_is_refused_in_gpu_code():
    def k(out):
        out[0] = random.random()

    with pytest.raises(cuda.TypingError, match="host code only"):
        cuda.compile_ptx(k, "void(float64[:])")


def test_prange_and_parallel():
    @njit(parallel=True)
    def total(a):
        s = 0.0
        for i in prange(a.shape[0]):
            s += a[i]
        return s

    x = np.arange(100001.0)
    assert total(x) == x.sum()
    assert total._plan is not None and total._plan._by_types  # split and run in chunks
    assert list(prange(3)) == [0, 1, 2]


@njit(parallel=True)
def _stats(a, scale):
    n = a.shape[0]
    lo = a[0]
    hi = a[0]
    count = 0
    prod = 1.0
    for i in prange(n):
        v = a[i] * scale  # a private variable
        lo = min(lo, v)
        hi = max(v, hi)
        if v > 0.5:
            count += 1
        prod = prod * (1.0 + v * 1e-6)
    return lo, hi, count, prod


def test_prange_reductions_equal_the_serial_loop():
    x = np.random.default_rng(4).random(200_003)
    lo, hi, count, prod = _stats(x, 1.0)
    assert (lo, hi, count) == (x.min(), x.max(), int((x > 0.5).sum()))
    assert math.isclose(prod, float(np.prod(1.0 + x * 1e-6)), rel_tol=1e-12)
    assert _stats(x[:1], 2.0) == _stats.py_func(x[:1], 2.0)
    assert _stats(x[:7], 0.5) == _stats.py_func(x[:7], 0.5)


def test_prange_with_steps_and_in_place_writes():
    @njit(parallel=True)
    def fill(out, k):
        for i in prange(1, out.shape[0], 2):
            out[i] = i * k

    o = np.zeros(100_001)
    fill(o, 3.0)
    want = np.zeros(100_001)
    want[1::2] = np.arange(1, 100_001, 2) * 3.0
    assert np.array_equal(o, want)

    @njit(parallel=True)
    def down(out):
        acc = 0
        for i in prange(out.shape[0] - 1, -1, -3):
            out[i] = 1
            acc -= i
        return acc

    o = np.zeros(10)
    assert down(o) == -sum(range(9, -1, -3)) and o.tolist() == [1, 0, 0, 1, 0, 0, 1, 0, 0, 1]


def test_every_top_level_prange_loop_runs_in_parallel():
    import warnings

    @njit(parallel=True)
    def three(a, b):
        s = 0.0
        for i in prange(a.size):
            s += a[i]
        t = s * 2
        for j in prange(b.size):
            b[j] = t + j
        m = 0.0
        for k in prange(b.size):
            m = max(m, b[k])
        return s, m

    a, b = np.arange(10_000.0), np.zeros(5_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no loop falls back to a serial one
        assert three(a, b) == (a.sum(), 2 * a.sum() + 4_999)
    assert np.array_equal(b, 2 * a.sum() + np.arange(5_000))
    # The split chains: the suffix after the first loop is planned at its own first loop, and so on.
    plan, loops = three._plan, 0
    while plan is not None:
        loops += 1
        post = next(iter(plan._by_types.values()))[2]
        plan = post._plan if plan.post_parallel else None
    assert loops == 3


@njit(parallel=True)
def _heat(u, steps, k):
    n = u.shape[0]
    v = np.empty_like(u)
    middle = np.float32(0)
    for t in range(steps):  # a time loop around two parallel sweeps (both naming their variable i)
        for i in prange(1, n - 1):
            v[i] = u[i] + k * (u[i - 1] - 2 * u[i] + u[i + 1])
        for i in prange(1, n - 1):
            u[i] = v[i]
        middle += np.float32(u[n // 2])
    return middle, t


@njit(parallel=True)
def _branchy(a, flag):
    s = 0.0
    if flag > 0:
        for i in prange(a.shape[0]):
            s += a[i]
        scale = 2
    elif flag == 0:
        scale = 3
    else:
        for i in prange(a.shape[0]):
            a[i] = -a[i]
        scale = 4
    return s * scale


def test_prange_inside_a_time_loop_or_an_if_runs_in_parallel():
    import warnings

    from cuforge._prange import NestedPlan

    u = np.sin(np.linspace(0.0, 3.0, 20_001))
    want = u.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumbaPerformanceWarning: every sweep runs in parallel
        middle, t = _heat(u, 40, 0.1)
    w_middle, w_t = _heat.py_func(want, 40, 0.1)
    assert np.array_equal(u, want) and t == w_t == 39
    assert isinstance(middle, float) and middle == float(w_middle) and np.float32(middle) == middle  # float32 kept
    plan = _heat._plan
    assert isinstance(plan, NestedPlan) and plan._by_types
    step = plan._fns[1][0][0]  # one iteration's function: its prange loops split and run in chunks
    assert step._plan is not None and step._plan._by_types and step._plan.post_parallel
    a = np.arange(10_000.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _branchy(a, 1) == 2 * a.sum() and _branchy(a, 0) == 0.0
        assert _branchy(a, -1) == 0.0 and a[5] == -5.0


def test_prange_nested_deeper_in_loops_and_ifs():
    import warnings

    @njit(parallel=True)
    def sweeps(a, rounds, inner):
        acc = 0.0
        for t in range(rounds):
            for s in range(inner):
                if t % 2 == 0:
                    for i in prange(a.shape[0]):
                        a[i] += t * s + i
                acc += a[0] + a[-1]
        return acc

    a, b = np.zeros(1000), np.zeros(1000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sweeps(a, 5, 3) == sweeps.py_func(b, 5, 3)
    assert np.array_equal(a, b)


def test_a_reduced_parameter_and_a_reused_loop_variable_split():
    import warnings

    @njit(parallel=True)
    def add_to(a, s):
        for i in prange(a.shape[0]):
            s += a[i]
        for i in prange(a.shape[0]):
            a[i] = s
        return s

    a = np.arange(1000.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert add_to(a, 5.0) == 5.0 + 999 * 500 and np.all(a == 5.0 + 999 * 500)


def test_what_prange_cannot_split_runs_serially_with_a_warning():
    from cuforge._prange import NumbaPerformanceWarning

    @njit(parallel=True)
    def not_a_reduction(a):
        s = 0.0
        for i in prange(a.shape[0]):
            s = a[i] - s
        return s

    @njit(parallel=True)
    def breaks(a):
        s = 0.0
        for i in prange(a.shape[0]):
            if a[i] > 3:
                break
            s += a[i]
        return s

    @njit(parallel=True)
    def in_a_while(a):
        t = 0
        while t < 3:
            for i in prange(a.shape[0]):
                a[i] += 1
            t += 1
        return a[0]

    @njit(parallel=True)
    def made_in_one_branch(a, flag):
        if flag:
            for i in prange(a.shape[0]):
                a[i] = 0
            k = 1
        return 0

    @njit(parallel=True)
    def returns_in_the_loop(a):
        for t in range(3):
            for i in prange(a.shape[0]):
                a[i] += 1
            if a[0] > 1:
                return t
        return -1

    x = np.arange(10.0)
    with pytest.warns(NumbaPerformanceWarning, match="not a reduction"):
        assert not_a_reduction(x) == not_a_reduction.py_func(x)
    with pytest.warns(NumbaPerformanceWarning, match="inside a while statement"):
        assert in_a_while(np.zeros(5)) == 3.0
    with pytest.warns(NumbaPerformanceWarning, match="a return before the prange loop or in the statement around"):
        assert returns_in_the_loop(np.zeros(5)) == 1
    with pytest.warns(NumbaPerformanceWarning, match="break"):
        assert breaks(x) == breaks.py_func(x)


def test_arrays_are_shared_not_copied_and_any_layout_works():
    @njit
    def bump(a):
        for i in range(a.shape[0]):
            a[i] += 1

    x = np.zeros(10)
    bump(x[::2])
    assert x.tolist() == [1, 0] * 5
    ro = np.zeros(3)
    ro.setflags(write=False)

    @njit
    def first(a):
        return a[0]

    assert first(ro) == 0.0


def test_returns_none_scalars_and_tuples():
    @njit
    def several(a, b):
        return a + b, a * b, a > b

    assert several(2, 3) == (5, 6, False)
    assert type(several(2.0, 3)[0]) is float

    @njit
    def nothing(a):
        a[0] = 1

    assert nothing(np.zeros(1)) is None


def test_signatures_compile_eagerly_and_convert_arguments():
    @njit("float64(float64, float64)")
    def mul(a, b):
        return a * b

    assert mul.signatures == [("float64", "float64")]
    assert mul(2, 3) == 6.0
    with pytest.raises(TypeError, match="no matching definition"):
        mul(np.zeros(2), 1.0)


def test_keyword_arguments():
    @njit
    def f(a, b, c):
        return a * 100 + b * 10 + c

    assert f(1, 2, 3) == 123 and f(1, c=5, b=2) == 125 and f(a=9, b=0, c=3) == 903
    with pytest.raises(TypeError, match="f\\(\\)"):
        f(1, 2, 3, 4)


def test_default_argument_values():
    # As numba's njit: omitted arguments take their defaults, from Python and from other jitted code.
    @njit
    def scaled(x, k=2.0, off=-1):
        return x * k + off

    assert (scaled(3.0), scaled(3.0, 4.0), scaled(3.0, off=5), scaled(x=1.0)) == (5.0, 11.0, 11.0, 1.0)

    @njit
    def outer(x):
        return scaled(x) + scaled(x, off=0) + scaled(k=0.5, x=x)

    assert outer(2.0) == 3.0 + 4.0 + 0.0

    @cuda.jit(device=True)
    def flag(x, on=True, nothing=None):
        return x if on and nothing is None else -x

    @cuda.jit
    def k(out):
        out[0] = flag(3)
        out[1] = flag(3, False)
        out[2] = flag(nothing=None, x=4)

    out = np.zeros(3, dtype=np.int64)
    k[1, 1](out)
    assert out.tolist() == [3, -3, 4]
    with pytest.raises(TypeError, match="missing a required argument"):
        scaled()

    @njit
    def not_constant(x, y=np.float32(1)):
        return x + y

    with pytest.raises(cuda.TypingError, match="default argument value that is not a number"):
        not_constant(1.0)


def test_callable_from_kernels_and_other_jitted_functions():
    @njit
    def helper(x):
        return x * 2 + 1

    @njit
    def outer(x):
        return helper(x) + helper(x + 1)

    assert outer(3) == 7 + 9

    @cuda.jit
    def k(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = helper(i)

    out = np.zeros(8, dtype=np.int64)
    k[1, 8](out)
    assert out.tolist() == [2 * i + 1 for i in range(8)]


@pytest.mark.parametrize("args, error, match", [
    (([1, 2],), cuda.TypingError, "not list"),
    (("text",), cuda.TypingError, "not str"),
    ((np.array(["a"]),), cuda.TypingError, "arrays of <U1"),
])
def test_bad_arguments(args, error, match):
    @njit
    def f(x):
        return 1

    with pytest.raises(error, match=match):
        f(*args)


def test_bad_options():
    with pytest.raises(TypeError, match="nopython mode only"):
        jit(forceobj=True)(lambda x: x)
    with pytest.raises(TypeError, match="unsupported option"):
        jit(bogus=1)
    with pytest.raises(ValueError, match="error_model must be 'python' .* or 'numpy' .*, not 'bogus'"):
        njit(error_model="bogus")  # numba says KeyError: 'bogus'


# --- numba's error models -------------------------------------------------------------------


def divide(a, b):
    return a / b


def floor_divide(a, b):
    return a // b


def modulo(a, b):
    return a % b


# What numba 0.68.1's njit raises (checked with numba-cuda 0.30.4's numba): its "python" error model.
ZERO_DIVISORS = [
    (divide, (1.0, 0.0), "division by zero"),
    (divide, (1, 0), "division by zero"),
    (divide, (np.float32(1), np.float32(0)), "division by zero"),
    (floor_divide, (1, 0), "integer division by zero"),
    (floor_divide, (1.0, 0.0), "division by zero"),
    (modulo, (1, 0), "integer modulo by zero"),
    (modulo, (1.0, 0.0), "modulo by zero"),
]


@pytest.mark.parametrize("fn, args, message", ZERO_DIVISORS, ids=lambda v: getattr(v, "__name__", None))
def test_a_zero_divisor_raises_as_njit_does(fn, args, message):
    f = njit(fn)
    with pytest.raises(ZeroDivisionError) as info:
        f(*args)
    assert str(info.value) == message
    assert f(*[a + 1 for a in args]) == fn(*[a + 1 for a in args])  # nonzero divisors divide


def test_error_model_numpy_gives_numpys_values():
    # numba's njit(error_model="numpy"): 1/0 -> inf, 1 // 0 -> 0, -1.0 // 0.0 -> -inf, 1 % 0 -> 0, 1.0 % 0.0 -> nan.
    d, fd, m = (njit(error_model="numpy")(f) for f in (divide, floor_divide, modulo))
    assert d(1.0, 0.0) == np.inf and d(1, 0) == np.inf and math.isnan(d(0.0, 0.0))
    assert fd(1, 0) == 0 and fd(-1.0, 0.0) == -np.inf
    assert m(1, 0) == 0 and math.isnan(m(1.0, 0.0))


@njit(parallel=True)
def divide_in_prange(a, b):
    s = 0.0
    for i in prange(a.size):
        s += a[i] / b[i]
    return s


@njit(parallel=True)
def divide_before_prange(a, b):
    x = a[0] / b[0]
    s = 0.0
    for i in prange(a.size):
        s += a[i]
    return s + x


def test_inside_prange_loops_division_follows_numpy_and_outside_raises():
    # As numba's parallel=True: the loop body is compiled with the numpy model, the rest keeps the function's.
    assert divide_in_prange(np.ones(100), np.zeros(100)) == np.inf
    with pytest.raises(ZeroDivisionError, match="^division by zero$"):
        divide_before_prange(np.ones(100), np.zeros(100))
    assert divide_before_prange(np.ones(100), np.full(100, 2.0)) == 100.5


def test_vectorize_and_kernels_keep_numpys_model():
    from cuforge import vectorize

    ufunc = vectorize(["f8(f8, f8)"])(divide)
    with np.errstate(divide="ignore"):
        assert ufunc(np.array([1.0]), np.array([0.0]))[0] == np.inf
    out = np.zeros(1)
    host_divide = njit(divide)

    @cuda.jit
    def kernel(out, a, b):
        out[0] = host_divide(a, b)  # a host-jitted function called from a kernel: the kernel's model

    kernel[1, 1](out, 1.0, 0.0)
    assert out[0] == np.inf


# --- arrays made in host code and returned -----------------------------------------------------------------


def test_returned_arrays_own_their_memory_or_view_their_argument():
    from cuforge import _core

    @njit
    def fresh(n):
        scratch = np.ones(n)  # a temporary: kept with the result until the result dies
        out = np.empty(n)
        for i in range(n):
            out[i] = scratch[i] * i
        return out

    @njit
    def view(a):
        return a[::2]

    @njit
    def both(a):
        return a, np.zeros(2)

    base = _core.host_bytes_outstanding()
    r = fresh(1000)
    assert r.tolist() == [float(i) for i in range(1000)] and r.flags.writeable and r.flags.c_contiguous
    assert _core.host_bytes_outstanding() == base + 2 * 1000 * 8
    r[0] = 5.0  # the memory is the array's own
    del r
    import gc

    gc.collect()
    assert _core.host_bytes_outstanding() == base
    x = np.arange(10.0)
    v = view(x)
    assert np.shares_memory(v, x) and v.strides == (16,) and v.tolist() == x[::2].tolist()
    v[1] = -1.0
    assert x[2] == -1.0
    ro = np.arange(4.0)
    ro.setflags(write=False)
    got_ro, zeros = both(ro)
    assert np.shares_memory(got_ro, ro) and not got_ro.flags.writeable and zeros.tolist() == [0.0, 0.0]
    del got_ro, zeros, v
    gc.collect()
    assert _core.host_bytes_outstanding() == base


def test_temporaries_are_freed_when_the_call_returns():
    from cuforge import _core

    @njit
    def churn(n, k):
        s = 0.0
        for i in range(k):
            t = np.zeros(n)
            t[i % n] = i
            s += t.sum() if False else t[i % n]
        return s

    base = _core.host_bytes_outstanding()
    for _ in range(5):
        assert churn(1000, 50) == sum(range(50))
        assert _core.host_bytes_outstanding() == base
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        churn(-1, 1)
    assert _core.host_bytes_outstanding() == base


@pytest.mark.parametrize("body, error, match", [
    ("return np.empty(n)", ValueError, "negative dimensions are not allowed"),
    ("return np.zeros((n, 1 << 40, 1 << 30))", ValueError, "array is too big"),
    ("return np.ones(1 << 50)", MemoryError, "cannot allocate array memory"),
    ("return np.arange(0, n, 0)", ValueError, "Maximum allowed size exceeded"),
    ("return np.arange(0.0, n * np.inf)", ValueError, "Maximum allowed size exceeded"),
    ("return np.arange(np.inf * 0)", ValueError, "arange: cannot compute length"),
])
def test_allocation_errors_are_numpys(body, error, match, tmp_path):
    from compiler_support import load_module

    mod = load_module(f"import numpy as np\n\ndef f(n):\n    {body}\n", tmp_path, "alloc_errors")
    with pytest.raises(error, match=match):
        njit(mod.f)(-3 if "empty" in body else 4)


def test_allocating_in_gpu_code_is_refused_with_the_way_out(tmp_path):
    from compiler_support import typing_error_of

    src = "import numpy as np\n\ndef k(out):\n    t = np.zeros(4)\n    out[0] = t[0]\n"
    e = typing_error_of(src, tmp_path, "alloc_in_kernel")
    assert "numpy.zeros makes a new array, and kernels cannot allocate arrays: use cuda.local.array" in str(e)

    @njit
    def helper(x):
        return np.full(3, x)[1]

    assert helper(2.0) == 2.0

    @cuda.jit
    def kernel(out):
        out[0] = helper(1.0)

    with pytest.raises(cuda.TypingError, match="numpy.full makes a new array, and kernels cannot allocate arrays"):
        kernel[1, 1](np.zeros(1))


def test_reductions_refuse_what_numba_refuses(tmp_path):
    from compiler_support import typing_error_of

    @njit
    def smallest(a):
        return a.min()

    with pytest.raises(ValueError, match="zero-size array to reduction operation minimum which has no identity"):
        smallest(np.zeros(0))
    with pytest.raises(ValueError, match="zero-size array to reduction operation minimum which has no identity"):
        smallest(np.zeros(0, np.complex64))
    assert np.isnan(njit(lambda a: a.mean())(np.zeros(0)))  # nan, as numba gives (no error)
    e = typing_error_of("import numpy as np\n\ndef k(out):\n    out[0] = np.sum(out)\n", tmp_path, "sum_in_kernel")
    assert "numpy.sum runs in host code only" in str(e)
    e = typing_error_of("import numpy as np\n\ndef k(out):\n    out[0] = np.arange(4)[1]\n", tmp_path, "arange_k")
    assert "numpy.arange makes a new array, and kernels cannot allocate arrays" in str(e)
    e = typing_error_of("import numpy as np\n\ndef k(out):\n    out[0] = np.linspace(0, 1, 3)[1]\n", tmp_path,
                        "linspace_k")
    assert "numpy.linspace makes a new array, and kernels cannot allocate arrays" in str(e)
    with pytest.raises(cuda.TypingError, match="complex bounds are not supported"):
        njit(lambda z: np.arange(z))(1j)


def test_sum_along_an_axis_checks_the_axes_as_numba_does():
    by = njit(lambda a, ax: a.sum(axis=ax))
    m = np.arange(24.0).reshape(2, 3, 4)
    assert by(m, 1).tolist() == m.sum(axis=1).tolist() and by(m, -3).tolist() == m.sum(axis=0).tolist()
    for ax in (3, -4, 2**40):
        with pytest.raises(np.exceptions.AxisError, match=f"axis {ax} is out of bounds for array of dimension 3"):
            by(m, ax)
    with pytest.raises(np.exceptions.AxisError, match="axis 1 is out of bounds for array of dimension 1"):
        by(np.arange(5.0), 1)
    assert by(np.arange(5), 0) == 10 and isinstance(by(np.arange(5), 0), int)  # every axis: a number
    twice = njit(lambda a, i, j: np.sum(a, axis=(i, j)))
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        twice(m, 0, -3)
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        twice(m[0], 1, 1)  # (every axis reduced: a number, checked alike)
    assert twice(m, 2, 0).tolist() == m.sum(axis=(0, 2)).tolist()
    with pytest.raises(cuda.TypingError, match="NumPy sum only supports integer axis value or tuple of integers"):
        by(m, 1.0)
    with pytest.raises(cuda.TypingError, match="unexpected keyword argument 'axis'"):
        njit(lambda a: a.prod(axis=0))(m)  # numba's prod takes the array alone
    with pytest.raises(cuda.TypingError, match="the dtype is a scalar type"):
        njit(lambda a: a.sum(dtype=3))(m)


def test_more_reductions_refuse_what_numba_refuses():
    with pytest.raises(ValueError, match="attempt to get argmin of an empty sequence"):
        njit(lambda a: a.argmin())(np.zeros(0))
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        njit(lambda a: np.argmax(a))(np.zeros((0, 3)))
    with pytest.raises(cuda.TypingError, match="numba has no argmin of complex arrays"):
        njit(lambda a: a.argmin())(np.zeros(2, np.complex128))
    along = njit(lambda a, ax: a.argmax(axis=ax))
    with pytest.raises(ValueError, match="axis is out of bounds"):
        along(np.zeros((2, 2)), 2)
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        along(np.zeros((2, 0)), 1)
    assert along(np.zeros((0, 3)), 1).shape == (0,)  # no slices: nothing to answer
    assert along(np.arange(4.0), -1) == 3  # a 1-d array's axis: the index itself
    # var of nothing divides by a zero size: numba's python error model raises, its numpy one gives nan
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        njit(lambda a: a.var())(np.zeros(0))
    assert np.isnan(njit(error_model="numpy")(lambda a: a.std())(np.zeros(0)))
    along = njit(lambda a, ax: np.cumsum(a, axis=ax))
    with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 2") as e:
        along(np.zeros((2, 3)), 2)
    assert not isinstance(e.value, np.exceptions.AxisError)  # numba's cumsum says ValueError
    with pytest.raises(cuda.TypingError, match="NumPy cumsum only suppports integer axis value"):
        along(np.zeros((2, 3)), 1.0)
    with pytest.raises(cuda.TypingError, match="unexpected keyword argument 'axis'"):
        njit(lambda a: a.cumprod(axis=0))(np.zeros((2, 3)))
    assert njit(lambda a: (a.all(), a.any()))(np.zeros(0)) == (True, False)


def test_nan_reductions_refuse_what_numba_refuses():
    with pytest.raises(ValueError, match="zero-size array to reduction operation not possible"):
        njit(lambda a: np.nanmin(a))(np.zeros(0))
    assert np.isnan(njit(lambda a: np.nanmax(a))(np.full(3, np.nan)))  # all nan: nan
    assert np.isnan(njit(lambda a: np.nanmean(a))(np.full(3, np.nan)))  # no numbers: nan, no error
    assert np.isnan(njit(lambda a: np.nanvar(a, ddof=3))(np.ones(3)))  # count <= ddof: nan
    with pytest.raises(cuda.TypingError, match="Numba does not support nanvar with axis"):
        njit(lambda a: np.nanvar(a, axis=0))(np.ones((2, 2)))
    with pytest.raises(cuda.TypingError, match="Numba does not support nanstd with dtype"):
        njit(lambda a: np.nanstd(a, dtype=np.float32))(np.ones(2))


def test_array_of_a_sequence_refuses_what_numba_refuses(tmp_path):
    from compiler_support import typing_error_of

    assert njit(lambda a: np.array(a))(np.arange(3.0)[::-1]).tolist() == [2.0, 1.0, 0.0]  # an array: a copy
    with pytest.raises(cuda.TypingError, match="different lengths"):
        njit(lambda n: np.array([[1, 2], [n]]))(3)
    with pytest.raises(cuda.TypingError, match="nest alike"):
        njit(lambda n: np.array([[1, 2], n]))(3)
    with pytest.raises(cuda.TypingError, match="Unsupported: lists"):
        njit(lambda n: len([1, n]))(3)  # a list elsewhere is still refused
    e = typing_error_of("import numpy as np\n\ndef k(out):\n    out[0] = np.array((1.0, 2.0))[1]\n", tmp_path,
                        "array_k")
    assert "numpy.array makes a new array, and kernels cannot allocate arrays" in str(e)


def test_linspace_refuses_what_numba_refuses():
    lin = njit(lambda n: np.linspace(0.0, 1.0, n))
    with pytest.raises(ValueError, match="negative dimensions"):
        lin(-1)
    assert lin(0).shape == (0,) and lin(1).tolist() == [0.0] and lin(2).tolist() == [0.0, 1.0]
    with pytest.raises(cuda.TypingError, match='The argument "num" must be an integer'):
        lin(3.0)
    with pytest.raises(cuda.TypingError, match="its bounds are numbers"):
        njit(lambda a: np.linspace(a, 1.0))(np.zeros(2))


def test_an_array_expression_is_one_loop_making_one_array():
    @njit
    def expr(a, b):
        return np.sqrt(a * a + 1.0) - b / 2  # numba fuses it: one loop, one new array

    a, b = np.linspace(-3.0, 3.0, 1001), np.linspace(0.0, 1.0, 1001)
    assert np.array_equal(expr(a, b), np.sqrt(a * a + 1.0) - b / 2)
    llvm = "\n".join(expr.inspect_llvm().values())
    assert llvm.count("@cuforge_host_alloc(") - llvm.count("declare ptr @cuforge_host_alloc(") == 1

    @njit
    def mismatched(a, b, c):
        return (a + b) * c

    with pytest.raises(ValueError, match="operands could not be broadcast together"):
        mismatched(np.ones(3), np.ones(4), np.ones(4))
    assert mismatched(np.ones((2, 1)), np.ones(3), 2.0).tolist() == [[4.0] * 3] * 2

    @njit
    def reversed_in_place(a):
        a += a[::-1] * 2  # into an array it reads: the right side is made first (nothing fused into it)
        return a

    x = np.arange(5.0)
    assert reversed_in_place(x.copy()).tolist() == (x + x[::-1] * 2).tolist()

    @njit
    def layouts(x, f):
        return (x + x) + f  # numba's layout, operator by operator: (A + A) is C, C + F is C

    m = np.asfortranarray(np.ones((4, 6)))
    assert layouts(m[:, ::2], m[:, :3]).flags.c_contiguous
    assert njit(lambda f, g: f * 2 + g)(m, m).flags.f_contiguous


def test_prange_fills_an_array_made_before_the_loop():
    import warnings

    @njit(parallel=True)
    def twice(a):
        out = np.empty_like(a)
        total = 0.0
        for i in prange(a.shape[0]):
            out[i] = 2 * a[i]
            total += a[i]
        return out, total

    x = np.arange(10007.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumbaPerformanceWarning: it runs in parallel
        out, total = twice(x)
    assert out.tolist() == (2 * x).tolist() and total == x.sum()


CACHED_MODULE = '''
import math, sys
import numpy as np
from cuforge import guvectorize, njit, vectorize

@njit(cache=True)
def hyp(x, y):
    return math.sqrt(x * x + y * y) * SCALE

@vectorize(["float64(float64, float64)"], cache=True)
def vadd(a, b):
    return a + b * SCALE

@guvectorize(["void(float64[:], float64[:])"], "(n)->()", cache=True)
def gsum(x, out):
    s = 0.0
    for v in x:
        s += v
    out[0] = s * SCALE

if __name__ == "__main__":
    print(hyp(3.0, 4.0), vadd(np.ones(2), 2.0).tolist(), gsum(np.ones((2, 5))).tolist())
'''


def test_cache_true_stores_host_code_and_reuses_it(tmp_path):
    import os
    import subprocess
    import sys

    env = dict(os.environ, CUFORGE_CACHE_DIR=str(tmp_path / "cache"))

    def run(scale):
        (tmp_path / "cached_mod.py").write_text(CACHED_MODULE.replace("SCALE", scale))
        r = subprocess.run([sys.executable, str(tmp_path / "cached_mod.py")], env=env, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        entries = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "cache").iterdir()}
        return r.stdout.split("\n")[0], entries

    out, first = run("1")
    assert out == "5.0 [3.0, 3.0] [5.0, 5.0]"
    assert len(first) == 3  # the njit entry, the ufunc's loop, the gufunc's loop
    out, again = run("1")
    assert out == "5.0 [3.0, 3.0] [5.0, 5.0]" and again == first  # hits: nothing rewritten
    out, changed = run("2")  # the functions changed: misses (the manifests differ), entries replaced
    assert out == "10.0 [5.0, 5.0] [10.0, 10.0]"
    assert changed.keys() == first.keys() and all(changed[k] != first[k] for k in first)


def test_the_native_call_path_serves_repeated_calls_and_falls_back_for_the_rest():
    @njit
    def f(a, b):
        return a * b

    assert f._native_entries() == 0
    assert f(2.0, 3.0) == 6.0 and f._native_entries() == 1  # compiled in Python, then registered
    assert f(4.0, 0.5) == 2.0 and f._native_entries() == 1  # served natively
    assert f(2, 3) == 6 and type(f(2, 3)) is int and f._native_entries() == 2
    assert f(np.float32(1.5), np.float32(2)) == 3.0 and type(f(np.float32(1.5), np.float32(2))) is float
    assert f(True, 5) == 5
    assert f(1j, 2j) == -2 + 0j
    assert f(a=2.0, b=5.0) == 10.0  # keywords: the Python path
    assert f(2**63, 1) == -2**63  # past int64: uint64 (the Python path types it), uint64 * int64 as numba's njit
    x = np.arange(6.0).reshape(2, 3)

    @njit
    def total(a):
        s = 0.0
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                s += a[i, j]
        return s

    assert total(x) == 15.0 and total(x.T) == 15.0 and total(x[:, ::2]) == 10.0
    assert total._native_entries() == 3  # C, F and A layouts: one entry each
