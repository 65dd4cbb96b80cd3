"""On a GPU: every cuda.bf16 function and the bfloat16 operators, over
every bfloat16 (against a permutation of them for two and three arguments;
the conversions from other types over edges and random values), computed by
cuforge and by numba-cuda; the bits must be equal. Exit 0 when they are, 1
naming the functions that differ, 77 when numba-cuda, a GPU with bfloat16
(compute capability 8.0) or ml_dtypes (numba-cuda's bf16 imports it) is
missing. Run by test_bf16.py::test_matches_numba_cuda_on_a_gpu."""

import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from numba_compat import numba_cuda_on_a_gpu_or_exit  # noqa: E402

ncuda = numba_cuda_on_a_gpu_or_exit()
try:
    from numba.cuda import bf16 as nbf16  # noqa: E402
except Exception as e:  # noqa: BLE001 - its bindings need ml_dtypes and the CUDA headers
    print(f"numba-cuda's bf16 is not usable here: {type(e).__name__}: {e}")
    sys.exit(77)
if not ncuda.is_bfloat16_supported():
    print("this GPU has no bfloat16 (compute capability 8.0 or newer)")
    sys.exit(77)

from cuforge import cuda  # noqa: E402
from cuforge.cuda import bf16  # noqa: E402

MODES = ("rn", "rz", "rd", "ru")
INTS = {"int16": np.int16, "uint16": np.uint16, "int32": np.int32, "uint32": np.uint32, "int64": np.int64,
        "uint64": np.uint64}
B, U16 = "bits", np.uint16  # a bfloat16 argument or result travels as its bits

# (name, argument kinds, result dtype or B)
FUNCTIONS = (
    [(n, [B], B) for n in ("habs", "hneg", "htrunc", "hceil", "hfloor", "hrint", "hsqrt", "hrsqrt", "hrcp", "hlog",
                           "hlog2", "hlog10", "hcos", "hsin", "htanh", "htanh_approx", "hexp", "hexp2", "hexp10")]
    + [(n, [B, B], B) for n in ("hadd", "hsub", "hmul", "hdiv", "hadd_rn", "hsub_rn", "hmul_rn", "hadd_sat",
                                "hsub_sat", "hmul_sat", "hmax", "hmin", "hmax_nan", "hmin_nan")]
    + [(n, [B, B, B], B) for n in ("hfma", "hfma_sat", "hfma_relu")]
    + [(n, [B, B], np.bool_) for n in ("heq", "hne", "hge", "hgt", "hle", "hlt", "hequ", "hneu", "hgeu", "hgtu",
                                       "hleu", "hltu")]
    + [("hisnan", [B], np.bool_), ("hisinf", [B], np.int32), ("bfloat16_to_float32", [B], np.float32),
       ("float32_to_bfloat16", [np.float32], B), ("float64_to_bfloat16", [np.float64], B),
       ("bfloat16_to_int8_rz", [B], np.int8), ("bfloat16_to_uint8_rz", [B], np.uint8),
       ("bfloat16", [np.float64], B), ("bfloat16", [np.float32], B), ("bfloat16", [np.int32], B)]
    + [(f"float32_to_bfloat16_{m}", [np.float32], B) for m in MODES]
    + [(f"{t}_to_bfloat16_{m}", [dt], B) for t, dt in INTS.items() for m in MODES]
    + [(f"bfloat16_to_{t}_{m}", [B], dt) for t, dt in INTS.items() for m in MODES]
)


def kernel(jit, fn, kinds, result):
    """A kernel applying fn elementwise; bfloat16s in and out as their bits."""
    as_bf = jit.bf16.ushort_as_bfloat16 if jit is cuda else nbf16.ushort_as_bfloat16
    as_bits = jit.bf16.bfloat16_as_ushort if jit is cuda else nbf16.bfloat16_as_ushort
    wrap = [k == B for k in kinds]
    out_bits = result == B
    if len(kinds) == 1:
        w0 = wrap[0]

        def k(x, out):
            i = jit.grid(1)
            if i < x.size:
                a = as_bf(x[i]) if w0 else x[i]
                r = fn(a)
                if out_bits:
                    out[i] = as_bits(r)
                else:
                    out[i] = r
    elif len(kinds) == 2:
        def k(x, y, out):
            i = jit.grid(1)
            if i < x.size:
                r = fn(as_bf(x[i]), as_bf(y[i]))
                if out_bits:
                    out[i] = as_bits(r)
                else:
                    out[i] = r
    else:
        def k(x, y, z, out):
            i = jit.grid(1)
            if i < x.size:
                out[i] = as_bits(fn(as_bf(x[i]), as_bf(y[i]), as_bf(z[i])))
    return jit.jit(k)


def inputs(kind, n):
    if kind == B:
        return np.arange(n, dtype=np.uint32).astype(np.uint16)
    rng = np.random.default_rng(33)
    if np.dtype(kind).kind == "f":
        with np.errstate(invalid="ignore"):
            every = (np.arange(65536, dtype=np.uint32) << 16).view(np.float32).astype(kind)
        return np.concatenate([every, rng.standard_normal(n).astype(kind) * 1e3])[:n]
    info = np.iinfo(kind)
    return rng.integers(info.min, info.max, n, dtype=kind, endpoint=True)


def run(k, args, result):
    dtype = U16 if result == B else result
    out = np.zeros(args[0].size, dtype)
    k[(args[0].size + 255) // 256, 256](*args, out)
    return out.view(np.uint8 if dtype == np.bool_ else np.dtype(f"u{np.dtype(dtype).itemsize}"))


def main():
    n = 65536
    rng = np.random.default_rng(34)
    bad = []
    for name, kinds, result in FUNCTIONS:
        args = [inputs(kinds[0], n)] + [rng.permutation(inputs(B, n)) for _ in kinds[1:]]
        mine = run(kernel(cuda, getattr(bf16, name), kinds, result), args, result)
        theirs = run(kernel(ncuda, getattr(nbf16, name), kinds, result), args, result)
        nan = np.isnan((theirs.astype(np.uint32) << 16).view(np.float32)) if result == B else np.zeros(n, bool)
        differ = np.flatnonzero((mine != theirs) & ~nan)
        if differ.size:
            bad.append(f"{name}{kinds}: {differ.size} differ, e.g. inputs {args[0][differ[:3]]}")
    if bad:
        print("\n".join(bad))
        return 1
    print(f"{len(FUNCTIONS)} functions agree with numba-cuda on every input")
    return 0


if __name__ == "__main__":
    sys.exit(main())
