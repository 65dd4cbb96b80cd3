"""Host-jitted function cases, as plain functions: test_host_jit.py compiles
them with cuforge.njit, host_jit_numba_side.py with numba's, and the results
must be the same bits. (The course's own CPU cells are the example
host_jit_reduce_random.py's, which test_host_jit.py imports.)"""

import math

import numpy as np


def norm3(x, y, z):
    big = max(abs(x), abs(y), abs(z))
    if big == 0:
        return 0.0
    return big * math.sqrt((x / big) ** 2 + (y / big) ** 2 + (z / big) ** 2)


def int_division(a, b):
    return a // b, a % b, a / b


def float_division(a, b):
    return a // b, a % b


def dot(a, b):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


def mean_f32(a):
    s = np.float32(0)
    for v in a:
        s += v
    return s / a.shape[0]


def transcendental(x):
    return math.exp(x) + math.log1p(abs(x)) + math.sin(x) * math.cos(x) + math.atan2(x, 0.5) + x ** 1.5 if x > 0 \
        else math.exp(x) - math.tanh(x)


def wraps(a):
    return a * 3037000500 + 7


def scale_in_place(a, k):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] = a[i, j] * k + i - j


def collatz(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


# Arrays made in the function (numpy.empty... in host code) and returned.

def scaled_copy(a, k):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * k
    return out


def zeros_grid(n, m):
    z = np.zeros((n, m), np.int32)
    for i in range(n):
        z[i, i % m] = i + 1
    return z


def filled(n):
    return np.full(n, 7), np.full((2, n), 2.5), np.ones(n, np.float32), np.zeros(()), n


def like_forms(m):
    return np.zeros_like(m), np.ones_like(m, dtype=np.int16), np.full_like(m, 3), np.empty_like(m).shape[0]


def tail_view(a):
    return a[2:]


def scratch_sum(n):
    s = 0.0
    for i in range(n):
        t = np.full(4, i)
        s += t[0] + t[3]
    return s


def ufunc_calls(a):
    # numpy's ufuncs on arrays without out=: a new array of the element type numba's typing gives
    return np.sqrt(np.abs(a)), np.minimum(a, 0.5), np.less(a, 0), np.true_divide(a, 4)


def ufunc_ints(a):
    return np.sqrt(np.abs(a)), np.true_divide(a, 3), np.power(a, 2), np.bitwise_and(a, 6), np.greater_equal(a, 7)


def broadcast(m):
    return np.maximum(m, m[0]), np.minimum(m[2:4], 0.25)


def array_ops(a, i):
    # operators on arrays: numba's array expressions, typed as its ufuncs (a float32 array times a float
    # is float64, an int32 array plus an int int64, negation keeps int32)
    return a * 2.0, a + a, np.sqrt(a * a + 1.0) - a / 2, i + 1, i // 3, i % 3, -i, i ** 2, i < 1, 1 < i, \
        (i > 0) + (i < 2), a[:5] * i[:5]


def in_place(a, b):
    a += 1  # numba updates the array itself
    a *= b
    c = a
    c = c - 1  # a new array: a keeps its values
    return c


def _arrays_broadcast(m):
    return m + m[0], m * m[:, :1], m[1:3] - 0.5


def reductions(a):
    # numba's: one pass in index order (the same float sums), integers summed in int64, mean in float64
    return a.sum(), np.sum(a), a.prod(), a.min(), np.max(a), np.amin(a), a.mean(), np.mean(a * a)


def reductions_2d(m):
    t = m[1:6:2, ::3]
    return t.sum(), t.min(), t.max(), t.mean(), (m > 0).sum(), (m > 0).mean(), np.prod(m[0, :4])


def sums_by_axis(m, c):
    # numba's sum(axis=): an integer (a negative one counts from the end) or a tuple of them, a new C array of the
    # other dimensions (a number when none is left; axis=() copies); dtype= the accumulator's type. An F array is
    # summed in its memory order, as numba's iterator takes it.
    return (m.sum(axis=0), np.sum(m, axis=1), m.sum(axis=-1), np.sum(c, axis=(0, 2)), c.sum(axis=(2, 0)),
            np.sum(c, axis=1, dtype=np.float32), m[0].sum(axis=0), np.sum(c, axis=(0, 1, 2)), np.sum(m, axis=()),
            (m > 0).sum(axis=0), np.sum(m, dtype=np.float32), c.sum(axis=-2), np.sum(m, axis=1, dtype=np.complex128))


def more_reductions(a):
    # numba's var (float64, squares in the element's type), std (var ** 0.5), argmin/argmax (the flattened index,
    # the first nan's), all/any, cumsum/cumprod (1-d, in C order, typed as sum and prod)
    return (a.var(), np.std(a), a.argmin(), np.argmax(a), a.all(), np.any(a), a.cumsum(), np.cumprod(a),
            np.cumsum(a, dtype=np.float64), (a > 0).all(), (a > 100).any(), np.argmax(a > 0), np.cumsum(a > 0))


def complex_reductions(z, w):
    # (w: complex64, whose mean numba divides in complex128)
    return z.var(), np.std(z), z.all(), np.any(z), z.cumsum(), np.cumprod(z[:20]), z.mean(), w.mean(), w.var(), \
        w.cumsum()


def nan_reductions(a):
    # numba's nan-reductions: nans left out (nanmin/nanmax keep the last of equals; nanmean a float64 sum)
    return (np.nansum(a), np.nanprod(a[:30]), np.nanmin(a), np.nanmax(a), np.nanmean(a), np.nanvar(a),
            np.nanstd(a), np.nanvar(a, ddof=1), np.nanstd(a, ddof=2), np.nanmin(a[::-1]), np.nanmax(a[1::3]))


def edge_extremes(e):
    # signed zeros (the first of equals stays), infinities, nans first, last and apart (the first one is the
    # answer, its bits too)
    return (e[:2].min(), e[:2].max(), e[1::-1].min(), e[1::-1].max(), e[2:4].min(), e[2:4].max(), e.min(), e.max(),
            e[4:].min(), e[5:].max(), e[:4].argmin(), e[:4].argmax(), e.argmin(), e[::-1].argmax(), e[6:].max())


def arg_along(m, c):
    # numba's argmin/argmax along an axis: per slice, the first nan's index, else the first extreme's
    return (m.argmin(axis=0), np.argmax(m, axis=1), m.argmax(axis=-1), np.argmin(c, axis=1), c.argmax(axis=2),
            m[0].argmin(axis=0), (m > 0).argmax(axis=0))


def cumsum_along(m):
    return np.cumsum(m, axis=0), m.cumsum(axis=1), np.cumsum(m, axis=-1), np.cumsum(m[0], axis=0)


def complex_extremes(z):
    # numba's: the real parts compared, then the imaginary ones; a nan compares false
    return z.min(), z.max(), np.amin(z[::-1]), np.amax(z[1::2]), np.min(z[:1])


def linspaces(a, b, n, z):
    # numba's: float64 (complex128 with a complex bound), the step by np.divide, the last element stop itself
    return (np.linspace(a, b, n), np.linspace(a, b), np.linspace(n, 0, 7), np.linspace(a, b, 1), np.linspace(a, b, 0),
            np.linspace(z, b, n), np.linspace(0, z, 2), np.linspace(np.float32(a), b, n), np.linspace(-3, 11, n))


def arrays_of_sequences(n, x):
    # numba's np.array of a list written in the call or of a (nested) tuple: the elements' common type
    return (np.array([1, 2, n]), np.array((1.0, 2.0, x)), np.array([[1, 2], [3, n]]), np.array([n, x]),
            np.array(((True, False), (n > 2, x > 2))), np.array([1, 2], dtype=np.float32), np.array(x),
            np.array([np.float32(x), np.float32(1)]), np.array([[x]]), np.array([1j, n]), np.array(()))


def aranges(n, x):
    # numba's dtypes (int64; float64 with a float bound), its float length (1 to 2 by 0.1 has 11)
    return (np.arange(n), np.arange(2, n), np.arange(n, 0, -3), np.arange(0.5, x, 0.25), np.arange(n, dtype=np.float32),
            np.arange(1, 2, 0.1), np.arange(-n), np.arange(0, n, 2, np.int32), np.arange(x))


def copies(m):
    c = m.copy()
    c[0, 0] = 100.0  # the copy alone changes
    return c, np.copy(m[::2, 1:]), m[1:, ::-1].copy(), np.copy(m[3]), m[0, 0]


def nan_compact(x):  # the seed talk's (000), as written there
    out = np.empty_like(x)
    out_index = 0
    for element in x:
        if not np.isnan(element):
            out[out_index] = element
            out_index += 1
    return out[:out_index]


def _arrays():
    rng = np.random.default_rng(11)
    return {"x": rng.standard_normal(10001), "y": rng.standard_normal(10001),
            "f32": rng.standard_normal(1001).astype(np.float32), "m": rng.standard_normal((7, 9)),
            "i32": rng.integers(-50, 50, 257).astype(np.int32),
            "nans": np.where(rng.random(513) < 0.3, np.nan, rng.standard_normal(513)),
            "cube": rng.standard_normal((4, 5, 6)) * 10.0 ** rng.integers(-6, 6, (4, 5, 6)),
            "mf": np.asfortranarray(rng.standard_normal((7, 9)) * 10.0 ** rng.integers(-6, 6, (7, 9))),
            "cubef": np.asfortranarray(rng.standard_normal((4, 5, 6)) * 10.0 ** rng.integers(-6, 6, (4, 5, 6))),
            "zc": rng.integers(-2, 3, 101) + 1j * np.where(rng.random(101) < 0.1, np.nan, rng.standard_normal(101)),
            "edges": np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -np.nan, 2.0]),
            "nans2d": np.where(rng.random((9, 7)) < 0.2, np.nan, rng.integers(0, 3, (9, 7)).astype(np.float64)),
            "ints3d": rng.integers(-2, 3, (3, 4, 5)).astype(np.int16),
            "zc64": (rng.standard_normal(77) + 1j * rng.standard_normal(77)).astype(np.complex64),
            "zc_nan": np.concatenate([[complex(np.nan, 1.0)], rng.standard_normal(9) + 0j])}


# (name, function, arguments: scalars, or names of _arrays())
CASES = [
    ("norm3", norm3, [3.0, 4.0, 12.0]),
    ("norm3_int", norm3, [-2, 3, 6]),
    ("int_division", int_division, [-7, 2]),
    ("int_division2", int_division, [7, -3]),
    ("float_division", float_division, [-7.5, 2.0]),
    ("dot", dot, ["x", "y"]),
    ("mean_f32", mean_f32, ["f32"]),
    ("transcendental", transcendental, [0.7]),
    ("transcendental_neg", transcendental, [-1.3]),
    ("wraps", wraps, [3037000500]),
    ("scale_in_place", scale_in_place, ["m", 2.5]),
    ("collatz", collatz, [27]),
    ("scaled_copy", scaled_copy, ["x", 2.5]),
    ("zeros_grid", zeros_grid, [5, 3]),
    ("filled", filled, [3]),
    ("like_forms", like_forms, ["m"]),
    ("tail_view", tail_view, ["f32"]),
    ("scratch_sum", scratch_sum, [100]),
    ("ufunc_calls", ufunc_calls, ["f32"]),
    ("ufunc_ints", ufunc_ints, ["i32"]),
    ("broadcast", broadcast, ["m"]),
    ("nan_compact", nan_compact, ["nans"]),
    ("array_ops", array_ops, ["f32", "i32"]),
    ("in_place", in_place, ["x", "y"]),
    ("broadcast_ops", _arrays_broadcast, ["m"]),
    ("reductions_f64", reductions, ["x"]),
    ("reductions_f32", reductions, ["f32"]),
    ("reductions_i32", reductions, ["i32"]),
    ("reductions_nan", reductions, ["nans"]),
    ("reductions_2d", reductions_2d, ["m"]),
    ("reductions_f", reductions, ["mf"]),
    ("sums_by_axis", sums_by_axis, ["m", "cube"]),
    ("sums_by_axis_f", sums_by_axis, ["mf", "cubef"]),
    ("more_reductions_f64", more_reductions, ["x"]),
    ("more_reductions_f32", more_reductions, ["f32"]),
    ("more_reductions_i32", more_reductions, ["i32"]),
    ("more_reductions_nan", more_reductions, ["nans"]),
    ("more_reductions_2d", more_reductions, ["m"]),
    ("more_reductions_f", more_reductions, ["mf"]),
    ("complex_reductions", complex_reductions, ["zc", "zc64"]),
    ("edge_extremes", edge_extremes, ["edges"]),
    ("nan_reductions", nan_reductions, ["nans"]),
    ("nan_reductions_f32", nan_reductions, ["f32"]),
    ("nan_reductions_i32", nan_reductions, ["i32"]),
    ("nan_reductions_2d", nan_reductions, ["nans2d"]),
    ("nan_reductions_f", nan_reductions, ["mf"]),
    ("nan_reductions_edges", nan_reductions, ["edges"]),
    ("nan_reductions_complex", nan_reductions, ["zc"]),
    ("arg_along", arg_along, ["m", "cube"]),
    ("arg_along_f", arg_along, ["mf", "cubef"]),
    ("arg_along_nan", arg_along, ["nans2d", "ints3d"]),
    ("cumsum_along", cumsum_along, ["cube"]),
    ("cumsum_along_f", cumsum_along, ["mf"]),
    ("complex_extremes", complex_extremes, ["zc"]),
    ("complex_extremes_nan", complex_extremes, ["zc_nan"]),
    ("linspaces", linspaces, [0.25, 7.5, 13, 1.5 - 2j]),
    ("arrays_of_sequences", arrays_of_sequences, [7, 3.3]),
    ("aranges", aranges, [7, 3.3]),
    ("copies", copies, ["m"]),
]


def arguments(spec):
    data = _arrays()
    return [data[a] if isinstance(a, str) else a for a in spec]
