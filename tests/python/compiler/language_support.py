"""Helpers of the language tests (test_language_*.py): kernels launched with
NumPy arrays on the active backend, compared with what NumPy (or Python)
computes for the same code.

Every kernel and device function these tests compile also goes through
ptxas for sm_90 (conftest.py's automatic check); ``result_types`` compiles
device functions with ``cuda.compile_ptx(..., device=True, cc=(9, 0))``,
which both reads the inferred types and feeds that PTX to the same check.
"""

import functools

import numpy as np

from cuforge import cuda
from cuforge import types as cftypes

CC = (9, 0)

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float32", "float64"]
COMPLEXES = ["complex64", "complex128"]
SCALARS = ["bool"] + INTS + FLOATS + COMPLEXES

N = 64  # elements per elementwise launch: two blocks of 32


def values(rng, dtype, n=N):
    """``n`` values of ``dtype``: half over the whole range (integers), half
    small, with the extremes and zero among them (no NaN)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(n) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        wide = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        small = rng.integers(max(int(info.min), -20), 21, n).astype(dt)
        v = np.where(rng.random(n) < 0.5, wide, small)
        v[:4] = [info.min, info.max, 0, 1]
        return v
    v = rng.standard_normal(n) * 20
    if dt.kind == "c":
        v = v + 1j * rng.standard_normal(n) * 20
    v = v.astype(dt)
    v[0] = 0
    return v


def result_types(dev, *argtypes):
    """The types the compiler gives a device function's results, as NumPy
    dtypes (a tuple for a tuple return)."""
    sig = tuple(cftypes.from_dtype(np.dtype(t)) for t in argtypes)
    _, ret = cuda.compile_ptx(dev, sig, device=True, cc=CC)
    if isinstance(ret, (cftypes.Tuple, cftypes.UniTuple)):
        return tuple(np.dtype(t.name) for t in ret)
    return np.dtype(ret.name)


@functools.cache
def elementwise(dev, nargs):
    """A kernel applying device function ``dev`` (of ``nargs`` scalars,
    returning a 6-tuple) element by element: out_k[i] = dev(x[i], ...)[k]."""
    if nargs == 1:
        @cuda.jit
        def run1(x, o0, o1, o2, o3, o4, o5):
            i = cuda.grid(1)
            if i < x.size:
                r = dev(x[i])
                o0[i] = r[0]
                o1[i] = r[1]
                o2[i] = r[2]
                o3[i] = r[3]
                o4[i] = r[4]
                o5[i] = r[5]

        return run1

    @cuda.jit
    def run2(x, y, o0, o1, o2, o3, o4, o5):
        i = cuda.grid(1)
        if i < x.size:
            r = dev(x[i], y[i])
            o0[i] = r[0]
            o1[i] = r[1]
            o2[i] = r[2]
            o3[i] = r[3]
            o4[i] = r[4]
            o5[i] = r[5]

    return run2


def assert_same(got, want, rtol=0.0, what=""):
    """Element-wise equality (NaNs equal; floats within ``rtol``), naming the
    first elements that differ."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, want {want.dtype}"
    if got.dtype.kind in "fc":
        ok = np.isclose(got, want, rtol=rtol, atol=0, equal_nan=True) if rtol else (got == want) | (
            np.isnan(got) & np.isnan(want))
    else:
        ok = got == want
    bad = np.flatnonzero(~ok)
    assert bad.size == 0, f"{what}: {bad.size} differ, first at {bad[:4].tolist()}: got {got.ravel()[bad[:4]]}, " \
                          f"want {want.ravel()[bad[:4]]}"


def numba_reference(dev, *argtypes):
    """A reference for run_elementwise with Numba's arithmetic: result k is
    the device function's Python body run by NumPy on the arguments
    converted to result k's type (Numba's operator implementations convert
    their operands to the type they compute in); boolean results come from
    the arguments as they are. The types themselves are the compiler's: the
    differential test (test_numba_typing.py) checks them against
    numba-cuda's."""
    types = result_types(dev, *argtypes)

    def reference(*args):
        outs = []
        for k, t in enumerate(types):
            conv = args if t.kind == "b" else [a.astype(t) for a in args]
            outs.append(np.asarray(dev.py_func(*conv)[k]).astype(t))
        return outs

    return reference


def run_elementwise(dev, *args, rtol=0.0, reference=None):
    """Runs ``dev`` over the arrays ``args`` on the device and checks each of
    its six results, type and values, against ``reference(*args)`` (by
    default the device function's Python body run on the NumPy arrays: NumPy 2
    gives the same types to arrays as to scalars)."""
    with np.errstate(all="ignore"):
        want = (reference or dev.py_func)(*args)
    want = [np.broadcast_to(np.asarray(w), args[0].shape) for w in want]
    types = result_types(dev, *(a.dtype for a in args))
    assert types == tuple(w.dtype for w in want), f"{dev.__name__}{tuple(str(a.dtype) for a in args)}"
    outs = [np.zeros(args[0].shape, w.dtype) for w in want]
    elementwise(dev, len(args))[2, 32](*args, *outs)
    for k, (o, w) in enumerate(zip(outs, want)):
        assert_same(o, w, rtol, f"{dev.__name__}{tuple(str(a.dtype) for a in args)} result {k}")
