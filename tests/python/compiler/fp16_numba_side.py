"""On a GPU: every cuda.fp16 function and the float16 operators, over every
half (against a permutation of them for two arguments), computed by
cuforge and by numba-cuda; the bits must be equal. Exit 0 when they are,
1 naming the functions that differ, 77 when numba-cuda or a GPU is missing.
Run by test_fp16.py::test_matches_numba_cuda_on_a_gpu."""

import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from numba_compat import numba_cuda_on_a_gpu_or_exit  # noqa: E402

ncuda = numba_cuda_on_a_gpu_or_exit()
from numba.cuda import fp16 as nfp16  # noqa: E402

from cuforge import cuda
from cuforge.cuda import fp16

UNARY = ["hneg", "habs", "hsin", "hcos", "hexp", "hexp2", "hexp10", "hlog", "hlog2", "hlog10", "hsqrt", "hrsqrt",
         "hrcp", "hceil", "hfloor", "htrunc", "hrint"]
BINARY = ["hadd", "hsub", "hmul", "hdiv", "hmax", "hmin", "heq", "hne", "hgt", "hge", "hlt", "hle"]


def operator_kernels(jit):
    """The float16 operators, one kernel each (neither compiler calls a Python lambda from a kernel)."""
    def add(x, y, out):
        i = jit.grid(1)
        if i < x.size:
            out[i] = x[i] + y[i]

    def sub(x, y, out):
        i = jit.grid(1)
        if i < x.size:
            out[i] = x[i] - y[i]

    def mul(x, y, out):
        i = jit.grid(1)
        if i < x.size:
            out[i] = x[i] * y[i]

    def div(x, y, out):
        i = jit.grid(1)
        if i < x.size:
            out[i] = x[i] / y[i]

    return {f.__name__: jit.jit(f) for f in (add, sub, mul, div)}


OPERATORS = ["add", "sub", "mul", "div"]


# The rest of cuda_fp16.h numba-cuda binds: (name, argument count, argument dtype, result dtype).
MODES = ("rn", "rz", "rd", "ru")
INTS = {"short": np.int16, "ushort": np.uint16, "int": np.int32, "uint": np.uint32, "ll": np.int64, "ull": np.uint64}
EXTRA = (
    [("__double2half", 1, np.float64, np.float16), ("__float2half", 1, np.float32, np.float16),
     ("__half2float", 1, np.float16, np.float32), ("__half2char_rz", 1, np.float16, np.int8),
     ("__half2uchar_rz", 1, np.float16, np.uint8), ("__short_as_half", 1, np.int16, np.float16),
     ("__ushort_as_half", 1, np.uint16, np.float16), ("__half_as_short", 1, np.float16, np.int16),
     ("__half_as_ushort", 1, np.float16, np.uint16), ("__hisnan", 1, np.float16, np.bool_),
     ("__hisinf", 1, np.float16, np.int32), ("htanh", 1, np.float16, np.float16),
     ("htanh_approx", 1, np.float16, np.float16), ("__hfma_sat", 3, np.float16, np.float16),
     ("__hfma_relu", 3, np.float16, np.float16)]
    + [(f"__{src}2half_{m}", 1, t, np.float16) for src, t in {**INTS, "float": np.float32}.items() for m in MODES]
    + [(f"__half2{dst}_{m}", 1, np.float16, t) for dst, t in INTS.items() for m in MODES]
    + [(f"__h{op}_{k}", 2, np.float16, np.float16) for op in ("add", "sub", "mul") for k in ("rn", "sat")]
    + [(n, 2, np.float16, np.float16) for n in ("__hmax_nan", "__hmin_nan")]
    + [(f"__h{c}u", 2, np.float16, np.bool_) for c in ("eq", "ne", "gt", "ge", "lt", "le")]
)


def inputs(dtype, halves):
    """Every half, or for another type its edges and random values (as many as there are halves)."""
    if dtype == np.float16:
        return halves
    rng = np.random.default_rng(32)
    if np.dtype(dtype).kind == "f":
        vals = np.concatenate([halves.astype(dtype), rng.standard_normal(halves.size).astype(dtype) * 3e4])
        return vals[: halves.size]
    info = np.iinfo(dtype)
    edge = np.array([0, 1, 2049, 2051, 4097, 65519, 65520, 65521, info.max, info.min], dtype=object)
    edge = np.array([e for e in edge if info.min <= e <= info.max], dtype)
    return np.concatenate([edge, rng.integers(info.min, info.max, halves.size - edge.size, dtype=dtype,
                                              endpoint=True)])


def kernels(jit, mod, name, nargs):
    fn = getattr(mod, name)
    if nargs == 3:
        def k3(x, y, z, out):
            i = jit.grid(1)
            if i < x.size:
                out[i] = fn(x[i], y[i], z[i])
        return jit.jit(k3)
    if nargs == 1:
        def k(x, out):
            i = jit.grid(1)
            if i < x.size:
                out[i] = fn(x[i])
    else:
        def k(x, y, out):
            i = jit.grid(1)
            if i < x.size:
                out[i] = fn(x[i], y[i])
    return jit.jit(k)


def run(k, args, dtype):
    out = np.zeros(args[0].size, dtype)
    k[(args[0].size + 255) // 256, 256](*args, out)
    return out.view(np.uint8 if dtype == np.bool_ else np.dtype(f"u{np.dtype(dtype).itemsize}"))


def main():
    x = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    y = np.random.default_rng(16).permutation(x)
    bad = []
    for name in UNARY + BINARY:
        nargs = 1 if name in UNARY else 2
        dtype = np.bool_ if name in ("heq", "hne", "hgt", "hge", "hlt", "hle") else np.float16
        args = (x,) if nargs == 1 else (x, y)
        mine = run(kernels(cuda, fp16, name, nargs), args, dtype)
        theirs = run(kernels(ncuda, nfp16, name, nargs), args, dtype)
        nan = np.isnan(theirs.view(np.float16)) if dtype == np.float16 else np.zeros(x.size, bool)
        differ = np.flatnonzero((mine != theirs) & ~nan)
        if differ.size:
            bad.append(f"{name}: {differ.size} differ, e.g. inputs {x[differ[:3]]}")
    z = np.random.default_rng(17).permutation(x)
    for name, nargs, arg_dtype, dtype in EXTRA:
        args = (inputs(arg_dtype, x), y, z)[:nargs]
        mine = run(kernels(cuda, fp16, name, nargs), args, dtype)
        theirs = run(kernels(ncuda, nfp16, name, nargs), args, dtype)
        nan = np.isnan(theirs.view(np.float16)) if dtype == np.float16 else np.zeros(x.size, bool)
        differ = np.flatnonzero((mine != theirs) & ~nan)
        if differ.size:
            bad.append(f"{name}: {differ.size} differ, e.g. inputs {args[0][differ[:3]]}")
    ours_ops, their_ops = operator_kernels(cuda), operator_kernels(ncuda)
    for name in OPERATORS:
        mine = run(ours_ops[name], (x, y), np.float16)
        theirs = run(their_ops[name], (x, y), np.float16)
        nan = np.isnan(theirs.view(np.float16))
        differ = np.flatnonzero((mine != theirs) & ~nan)
        if differ.size:
            bad.append(f"operator {name}: {differ.size} differ")
    if bad:
        print("\n".join(bad))
        return 1
    print(f"{len(UNARY) + len(BINARY) + len(OPERATORS) + len(EXTRA)} functions agree with numba-cuda on every input")
    return 0


if __name__ == "__main__":
    sys.exit(main())
