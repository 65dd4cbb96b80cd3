"""vectorize and guvectorize (cuforge/_ufunc.py) on every target: the course
notebook's cells and more, against numba's own CPU vectorize run on the same
inputs (ufunc_numba_side.py under numba-cuda's Python: bit for bit on the CPU
targets), and the bad input each must refuse clearly."""

import math
import pathlib

import numpy as np
import pytest

import ufunc_cases as cases
from compiler_support import numba_side_table, ulp_differences
from cuforge import cuda, guvectorize, vectorize

NUMBA_CUDA = "0.30.4"
SIDE = pathlib.Path(__file__).with_name("ufunc_numba_side.py")
CASES = pathlib.Path(__file__).with_name("ufunc_cases.py")
TARGETS = ["cpu", "parallel", "cuda"]


@pytest.fixture(scope="module")
def numba_table(tmp_path_factory):
    return numba_side_table(NUMBA_CUDA, SIDE, CASES, tmp_path_factory.mktemp("ufunc"), "vectorize's results")


@pytest.fixture(scope="module")
def numba_gpu_table(tmp_path_factory):
    """numba-cuda's target='cuda' on this GPU (the CPU's bits are not a GPU's: it contracts a * b + c
    into an fma and has its own sin); on the cpu backend, numba's CPU results, which it computes."""
    if cuda.backend() != "cuda":
        return None
    return numba_side_table(NUMBA_CUDA, SIDE, CASES, tmp_path_factory.mktemp("ufunc_gpu"),
                            "vectorize's GPU results", args=("--cuda",))


def reference(name, target, numba_table, numba_gpu_table):
    if target != "cuda" or numba_gpu_table is None:
        return numba_table[name]
    want = numba_gpu_table["cuda:" + name]
    if isinstance(want, str):
        pytest.skip(f"numba-cuda's target='cuda' refuses {name}: {want}")
    return want


def decode(e):
    return np.frombuffer(bytes.fromhex(e["bits"]), dtype=np.dtype(e["dtype"])).reshape(e["shape"])


def exact(got, want, what, target=None):
    got = np.asarray(got)
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, numba's {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, numba's {want.shape}"
    if target == "cuda" and cuda.backend() == "cpu" and got.dtype.kind in "fc":
        # target='cuda' on the cpu backend is a kernel whose thread loop vectorises, its math
        # calling libmvec (cpu_execution.md, "Vector math"): within libmvec's 4 ulp of numba's libm,
        # or, where the formula cancels (sin(x) - 0.3), 4 ulp of the largest value.
        bad = ulp_differences(got, want, 4)
        finite = np.abs(want[np.isfinite(want)])
        scale = 4 * np.finfo(want.real.dtype).eps * (finite.max() if finite.size else 0)
        g, w = got.reshape(-1)[bad], want.reshape(-1)[bad]
        far = bad[~(np.isfinite(w) & (np.abs(g.astype(np.complex128) - w) <= scale))]
        assert far.size == 0, f"{what}: {far.size} elements differ from numba's by more than 4 ulp"
        return
    same = (got.view(np.uint8) == want.view(np.uint8)) | (np.isnan(got) & np.isnan(want)).repeat(
        got.itemsize).reshape(got.view(np.uint8).shape) if got.dtype.kind == "f" else got == want
    assert np.all(same), f"{what}: {np.count_nonzero(~np.asarray(same))} elements differ from numba's"


# ('parallel' needs signatures, as numba's does: the lazy cases run on the other two)
@pytest.mark.parametrize("case, target", [(c, t) for c in cases.VECTORIZE for t in TARGETS if c[2] or t != "parallel"],
                         ids=[f"{c[0]}-{t}" for c in cases.VECTORIZE for t in TARGETS if c[2] or t != "parallel"])
def test_vectorize_matches_numba(case, target, numba_table, numba_gpu_table):
    name, fn, sigs, keys = case
    uf = vectorize(sigs, target=target)(fn) if sigs else vectorize(target=target)(fn)
    got = uf(*cases.arguments(keys))
    exact(got, decode(reference(name, target, numba_table, numba_gpu_table)[0]), f"{name} on {target}", target)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", cases.GUVECTORIZE, ids=[c[0] for c in cases.GUVECTORIZE])
def test_guvectorize_matches_numba(case, target, numba_table, numba_gpu_table):
    name, fn, sigs, layout, keys = case
    uf = guvectorize(sigs, layout, target=target)(fn)
    got = uf(*cases.arguments(keys))
    got = got if isinstance(got, tuple) else (got,)
    want = reference(name, target, numba_table, numba_gpu_table)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        exact(g, decode(w), f"{name} output {i} on {target}", target)


# --- the CPU targets make real NumPy ufuncs ----------------------------------------------------------


@pytest.mark.parametrize("target", ["cpu", "parallel"])
def test_cpu_targets_are_numpy_ufuncs(target):
    @vectorize(["int64(int64, int64)", "float64(float64, float64)"], identity=0, target=target)
    def add(a, b):
        return a + b

    assert isinstance(add, np.ufunc) and add.types == ["ll->l", "dd->d"] and add.identity == 0
    a = np.arange(12).reshape(3, 4)
    assert np.array_equal(add(a, np.arange(4)), a + np.arange(4))  # broadcasting
    out = np.zeros(4)
    assert add(np.arange(4.0), 1.5, out=out) is out and np.array_equal(out, np.arange(4.0) + 1.5)
    assert add(np.arange(5, dtype=np.int32), 1).dtype == np.int64  # NumPy's safe casting picks the loop
    assert add.reduce(np.arange(100)) == 4950 and add.reduce(np.zeros(0)) == 0  # the identity
    assert np.array_equal(add.accumulate(np.arange(6)), np.cumsum(np.arange(6)))
    assert np.array_equal(add.reduce(a, axis=1), a.sum(axis=1))
    assert np.array_equal(add.outer(np.arange(3), np.arange(2)), np.add.outer(np.arange(3), np.arange(2)))
    s = np.arange(40.0)[::4]  # strided operands
    assert np.array_equal(add(s, s[::-1]), s + s[::-1])


def test_parallel_spreads_large_loops_and_keeps_every_element():
    @vectorize(["float64(float64, float64)"], target="parallel")
    def f(x, y):
        return math.sqrt(x * x + y * y)

    rng = np.random.default_rng(5)
    for n in (1, 2, 16383, 16385, 1_000_003):
        x, y = rng.random(n), rng.random(n)
        assert np.array_equal(f(x, y), np.sqrt(x * x + y * y)), n
    x = rng.random((1001, 1003))
    assert np.array_equal(f(x.T, 2.0), np.sqrt(x.T * x.T + 4.0))


def test_lazy_cpu_ufunc_compiles_per_types_and_reduces():
    @vectorize
    def mul(a, b):
        return a * b

    assert mul.ufunc is None
    assert mul(3, 4) == 12
    assert mul(np.arange(4.0), 2.0).dtype == np.float64
    assert sorted(mul.types) == ["dd->d", "ll->l"]
    assert mul(np.arange(3, dtype=np.int32), np.int32(2)).dtype == np.int64  # int32 fits the int64 loop
    assert mul.reduce(np.arange(1, 6)) == 120
    assert np.array_equal(mul.accumulate(np.arange(1.0, 5.0)), [1.0, 2.0, 6.0, 24.0])


def test_cpu_targets_run_whatever_the_backend(tmp_path):
    # vectorize's CPU loops are host code called by NumPy: no launch, no copy, no stream.
    @vectorize(["float32(float32)"])
    def half(x):
        return x / 2

    x = np.arange(10, dtype=np.float32)
    assert np.array_equal(half(x), x / 2)


# --- the CUDA target: numba-cuda's rules for where results go ---------------------------------


def test_cuda_ufunc_host_in_host_out_and_device_in_device_out():
    @vectorize(["float32(float32, float32)"], target="cuda")
    def add_ufunc(x, y):
        return x + y

    x = np.arange(100000, dtype=np.float32)
    y = 2 * x
    r = add_ufunc(x, y)
    assert isinstance(r, np.ndarray) and np.array_equal(r, 3 * x)
    dx, dy = cuda.to_device(x), cuda.to_device(y)
    d = add_ufunc(dx, dy)
    assert isinstance(d, cuda.DeviceNDArray) and np.array_equal(d.copy_to_host(), 3 * x)
    out = cuda.device_array_like(dx)
    assert add_ufunc(dx, y, out=out) is out and np.array_equal(out.copy_to_host(), 3 * x)
    host_out = np.empty_like(x)
    assert add_ufunc(x, y, out=host_out) is host_out and np.array_equal(host_out, 3 * x)
    s = cuda.stream()
    r = add_ufunc(dx, dy, stream=s)
    s.synchronize()
    assert np.array_equal(r.copy_to_host(), 3 * x)


def test_cuda_ufunc_scalars_and_broadcasting():
    @vectorize(["float32(float32, float32, float32)"], target="cuda")
    def gaussian_pdf(x, mean, sigma):
        return math.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * cases.SQRT_2PI)

    x = np.float32(0.25)
    one = gaussian_pdf(x, 0.0, 1.0)  # the course's single-element call: a 1-element array
    assert one.shape == (1,) and one.dtype == np.float32
    assert one[0] == np.float32(math.exp(-0.5 * np.float32(0.25) ** 2) / cases.SQRT_2PI)

    @vectorize(["int64(int64, int64)"], target="cuda")
    def add(a, b):
        return a + b

    a = np.arange(12).reshape(3, 4)
    assert np.array_equal(add(a, np.arange(4)), a + np.arange(4))
    assert np.array_equal(add(a, np.arange(3)[:, None]), a + np.arange(3)[:, None])
    assert np.array_equal(add(a[:, ::2], 7), a[:, ::2] + 7)
    d = add(cuda.to_device(a), cuda.to_device(np.arange(4)))  # broadcast on the device, no copy
    assert np.array_equal(d.copy_to_host(), a + np.arange(4))
    assert np.array_equal(add(np.zeros(0, dtype=np.int64), 1), np.zeros(0))


def test_cuda_ufunc_needs_exact_array_types():
    @vectorize(["float64(float64, float64)"], target="cuda")
    def add(a, b):
        return a + b

    with pytest.raises(TypeError, match="exact types"):
        add(np.ones(3, np.float32), np.ones(3, np.float32))


def test_cuda_ufunc_calls_device_functions():
    @cuda.jit(device=True)
    def polar_to_cartesian(rho, theta):
        return rho * math.cos(theta), rho * math.sin(theta)

    @vectorize(["float32(float32, float32, float32, float32)"], target="cuda")
    def polar_distance(rho1, theta1, rho2, theta2):
        x1, y1 = polar_to_cartesian(rho1, theta1)
        x2, y2 = polar_to_cartesian(rho2, theta2)
        return ((x1 - x2) ** 2 + (y1 - y2) ** 2) ** 0.5

    rng = np.random.default_rng(3)
    n = 10000
    r1, t1, r2, t2 = (rng.uniform(0.5, 1.5, n).astype(np.float32), rng.uniform(-np.pi, np.pi, n).astype(np.float32),
                      rng.uniform(0.5, 1.5, n).astype(np.float32), rng.uniform(-np.pi, np.pi, n).astype(np.float32))
    want = np.hypot(r1 * np.cos(t1) - r2 * np.cos(t2), r1 * np.sin(t1) - r2 * np.sin(t2))
    np.testing.assert_allclose(polar_distance(r1, t1, r2, t2), want, rtol=2e-5, atol=1e-5)


def test_cuda_ufunc_reduce_pairwise():
    @vectorize(["float64(float64, float64)", "int64(int64, int64)"], target="cuda")
    def add(a, b):
        return a + b

    for n in (1, 2, 7, 64, 1000, 4097):
        assert add.reduce(np.arange(n, dtype=np.int64)) == n * (n - 1) // 2
    assert add.reduce(cuda.to_device(np.arange(10.0))) == 45.0
    with pytest.raises(TypeError, match="empty"):
        add.reduce(np.zeros(0))


def test_cuda_gufunc_casts_host_inputs_and_keeps_device_outputs():
    @guvectorize(["(float32[:], float32[:])"], "(i)->()", target="cuda")
    def l2_norm(vec, out):
        acc = 0.0
        for value in vec:
            acc += value ** 2
        out[0] = math.sqrt(acc)

    angles = np.random.default_rng(1).uniform(-np.pi, np.pi, 10)
    coords = np.stack([np.cos(angles), np.sin(angles)], axis=1)  # float64: cast to the float32 signature
    r = l2_norm(coords)
    assert r.dtype == np.float32 and np.allclose(r, 1.0)
    d = l2_norm(cuda.to_device(coords.astype(np.float32)))
    assert isinstance(d, cuda.DeviceNDArray) and np.allclose(d.copy_to_host(), 1.0)
    out = cuda.device_array(10, dtype=np.float32)
    assert l2_norm(coords.astype(np.float32), out=out) is out


def test_cuda_gufunc_pinned_operands():
    @guvectorize(["void(float64[:], float64, float64[:])"], "(n),()->(n)", target="cuda")
    def add_scalar(x, y, res):
        for i in range(x.shape[0]):
            res[i] = x[i] + y

    rows = np.arange(12.0).reshape(4, 3)
    assert np.array_equal(add_scalar(rows, 0.5), rows + 0.5)  # one scalar for every row
    assert np.array_equal(add_scalar(rows, np.arange(4.0)), rows + np.arange(4.0)[:, None])


def test_lazy_cpu_gufunc_needs_its_outputs():
    @guvectorize("(n)->(n)")
    def double(x, out):
        for i in range(x.shape[0]):
            out[i] = 2 * x[i]

    x = np.arange(6.0).reshape(2, 3)
    out = np.empty_like(x)
    double(x, out)
    assert np.array_equal(out, 2 * x)
    with pytest.raises(TypeError, match="output arrays too"):
        double(x)


def test_the_decorators_are_reachable_where_numba_has_them():
    import cuforge

    assert cuforge.vectorize is vectorize and cuforge.guvectorize is guvectorize

    @cuda.vectorize(["float32(float32)"])  # numba.cuda.vectorize: the CUDA target by default
    def inc(x):
        return x + 1

    assert type(inc).__name__ == "CUDAUFunc"


# --- bad input --------------------------------------------------------------------------------


def one(x):
    return x + 1


def two(a, b):
    return a + b


def copy_out(x, out):
    out[0] = x[0]


def with_dict(x):
    d = {}
    return x


@pytest.mark.parametrize("make, error, match", [
    (lambda: vectorize(["float32(floaty)"])(one), ValueError, "unknown type name 'floaty'"),
    (lambda: vectorize(["float32(float32"])(one), ValueError, "never closed"),
    (lambda: vectorize(["float32(float32, float32)"])(one), TypeError, "has 2 arguments, one takes 1"),
    (lambda: vectorize(["float32(float32, float32)"], target="cuda")(one), TypeError, "has 2 arguments"),
    (lambda: vectorize(target="tpu")(one), ValueError, "Unsupported target: 'tpu'"),
    (lambda: vectorize(["f8(f8, f8)"], identity="x")(two), ValueError, "Invalid identity"),
    (lambda: vectorize(["f8(f8)"], nopython=False)(one), TypeError, "nopython mode only"),
    (lambda: vectorize(["f8(f8)"], bogus=1)(one), TypeError, "unsupported option"),
    (lambda: vectorize(["f8(f8)"])(with_dict), cuda.TypingError, "dicts"),
    (lambda: guvectorize(["void(f8[:], f8[:])"], "(n)->(")(copy_out), ValueError, "invalid layout"),
    (lambda: guvectorize(["void(f8[:], f8[:])"], "(n)(n)")(copy_out), ValueError, "exactly one '->'"),
    (lambda: guvectorize(["void(f8[:,:], f8[:])"], "(n)->()")(copy_out), TypeError, "layout gives it 1"),
    (lambda: guvectorize(["void(f8[:], f8[:])"], "(n),(n)->()")(copy_out), TypeError, "has 3 arguments, copy_out takes 2"),
    (lambda: guvectorize(["f8(f8[:], f8[:])"], "(n)->()")(copy_out), TypeError, "cannot return values"),
    (lambda: guvectorize(["void(f8[:], f8[:])"], "(n)->()", target="cuda")(one), TypeError, "takes 1"),
])
def test_bad_definitions(make, error, match):
    with pytest.raises(error, match=match):
        make()


@pytest.mark.parametrize("target", TARGETS)
def test_bad_calls(target):
    add = vectorize(["float64(float64, float64)"], target=target)(two)
    with pytest.raises(ValueError, match="could not be broadcast"):
        add(np.ones(3), np.ones(4))
    with pytest.raises(TypeError):
        add(np.ones(3))
    norm = guvectorize(["void(f8[:], f8[:])"], "(n)->()", target=target)(copy_out)
    with pytest.raises((ValueError, TypeError)):
        norm(np.ones((3, 4)), np.ones((2,)))
    if target != "cuda":
        with pytest.raises(ValueError, match="no identity"):
            add.reduce(np.ones(0))


@pytest.mark.parametrize("target", TARGETS)
def test_lambdas_and_every_kind_of_dtype(target):
    cases = [
        ("float16(float16, float16)", lambda a, b: a + b, np.ones(3, np.float16), np.full(3, 0.5, np.float16)),
        ("complex128(complex128, float64)", lambda a, b: a * b, np.array([1 + 2j, 3j]), np.array([2.0, 3.0])),
        ("boolean(float64, float64)", lambda a, b: a > b, np.array([1.0, 3.0]), np.array([2.0, 2.0])),
        ("uint8(uint8, uint8)", lambda a, b: a + b, np.array([250, 3], np.uint8), np.array([10, 3], np.uint8)),
    ]
    for sig, fn, a, b in cases:
        uf = vectorize([sig], target=target)(fn)
        got = uf(a, b)
        with np.errstate(over="ignore"):
            want = fn(a, b).astype(got.dtype)
        assert got.dtype == want.dtype and np.array_equal(got, want), (sig, got, want)
