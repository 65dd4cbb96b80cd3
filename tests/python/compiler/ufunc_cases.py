"""vectorize and guvectorize cases, as plain functions: test_vectorize.py
decorates them with cuforge's decorators (every target), ufunc_numba_side.py
with numba's (the CPU target), and the results must agree. (The course
notebook's own cells are examples/python/course_ufuncs.py.)"""

import math

import numpy as np

SQRT_2PI = np.float32((2 * math.pi) ** 0.5)


def add_ten(num):
    return num + 10


def rel_diff(x, y):
    return 2 * (x - y) / (x + y)


def gaussian_pdf(x, mean, sigma):
    return math.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * SQRT_2PI)


def suppress_below(value, floor):
    result = value
    if value < floor:
        result = 0
    return result


def make_pulses(i, period, amplitude):
    return max(math.sin(i / period) - 0.3, 0.0) * amplitude


def saxpy(a, x, y):
    return a * x + y


def int_mix(a, b):
    return a // b + a % b - (a ^ b)


def mixed(a, b):
    return a * b + 1


def add_scalar(x, y, res):
    for i in range(x.shape[0]):
        res[i] = x[i] + y


def matmul(a, b, c):
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


def l2_norm(vec, out):
    acc = 0.0
    for value in vec:
        acc += value ** 2
    out[0] = math.sqrt(acc)


def sum_and_max(x, total, biggest):
    t = 0.0
    m = x[0]
    for v in x:
        t += v
        m = max(m, v)
    total[0] = t
    biggest[0] = m


def _inputs():
    rng = np.random.default_rng(2024)
    f32 = lambda *s: rng.uniform(-3, 3, s).astype(np.float32)  # noqa: E731
    return {
        "arange10": np.arange(10),
        "a32": np.arange(1000, dtype=np.float32),
        "b32": np.arange(1000, dtype=np.float32) * 2 + 1,
        "x32": f32(100_003),
        "mean": np.float32(0.0),
        "sigma": np.float32(1.0),
        "wave": (rng.normal(size=4000) * 20).astype(np.float32),
        "t": np.arange(50_000, dtype=np.float32),
        "xs64": rng.uniform(-5, 5, 300_001),
        "ys64": rng.uniform(-5, 5, 300_001),
        "ints": rng.integers(-1000, 1000, 5000),
        "nonzero": rng.integers(1, 50, 5000) * rng.choice([-1, 1], 5000),
        "i32": rng.integers(-100, 100, 777).astype(np.int32),
        "f32": f32(777),
        "rows": rng.uniform(-1, 1, (40, 7)),
        "m1": rng.uniform(-1, 1, (6, 3, 4)),
        "m2": rng.uniform(-1, 1, (6, 4, 5)),
        "coords": np.stack([np.cos(a := rng.uniform(-np.pi, np.pi, 64)), np.sin(a)], axis=1).astype(np.float32),
    }


# (name, function, signatures or None (lazy), layout or None (vectorize), argument keys or scalars)
VECTORIZE = [
    ("add_ten", add_ten, None, ["arange10"]),
    ("add_ten_sig", add_ten, ["int64(int64)"], ["arange10"]),
    ("rel_diff", rel_diff, None, ["a32", "b32"]),
    ("rel_diff_sig", rel_diff, ["float32(float32, float32)"], ["a32", "b32"]),
    ("gaussian_pdf", gaussian_pdf, ["float32(float32, float32, float32)"], ["x32", "mean", "sigma"]),
    ("gaussian_pdf_lazy", gaussian_pdf, None, ["x32", "mean", "sigma"]),
    ("suppress_below", suppress_below, None, ["wave", 15.0]),
    ("suppress_below_sig", suppress_below, ["float32(float32, float32)"], ["wave", "mean"]),
    ("make_pulses", make_pulses, ["float32(float32, float32, float32)"], ["t", "sigma", "sigma"]),
    ("saxpy", saxpy, ["float32(float32, float32, float32)", "float64(float64, float64, float64)"],
     [2.5, "xs64", "ys64"]),
    ("int_mix", int_mix, ["int64(int64, int64)"], ["ints", "nonzero"]),
    ("mixed", mixed, None, ["i32", "f32"]),
]

GUVECTORIZE = [
    ("add_scalar", add_scalar, ["void(float64[:], float64, float64[:])"], "(n),()->(n)", ["rows", 0.5]),
    ("matmul", matmul, ["void(float64[:,:], float64[:,:], float64[:,:])"], "(m,n),(n,p)->(m,p)", ["m1", "m2"]),
    ("l2_norm", l2_norm, ["(float32[:], float32[:])"], "(i)->()", ["coords"]),
    ("sum_and_max", sum_and_max, ["void(float64[:], float64[:], float64[:])"], "(n)->(),()", ["rows"]),
]


def arguments(keys):
    data = _inputs()
    return [data[k] if isinstance(k, str) else k for k in keys]
