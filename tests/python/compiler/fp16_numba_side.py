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


def kernels(jit, mod, name, nargs):
    fn = getattr(mod, name)
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
    return out.view(np.uint8 if dtype == np.bool_ else np.uint16)


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
    print(f"{len(UNARY) + len(BINARY) + len(OPERATORS)} functions agree with numba-cuda on every input")
    return 0


if __name__ == "__main__":
    sys.exit(main())
