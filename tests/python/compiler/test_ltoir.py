"""LTO-IR (docs/interop_c.md): our NVPTX module written as NVVM IR (LLVM 7's
dialect) and compiled by libNVVM with -gen-lto; cuda.compile(output='ltoir'),
compile_all, and jit(lto=True) kernels linked with C/C++ by nvJitLink -lto.
No GPU needed: libNVVM and nvJitLink run anywhere, and a link that completes
has been compiled to SASS (an unresolved intrinsic would be an undefined
symbol there)."""

import math
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from cuforge import _core, cuda, find_toolkit, types
from cuforge.cuda import _jit, bf16

HERE = os.path.dirname(os.path.abspath(__file__))
FUNCTIONS_CU = os.path.join(HERE, "data", "ffi", "functions.cu")

LTOIR_MAGIC = b"\xedCN\x7f"  # libNVVM's LTO-IR starts so


def _has(part):
    try:
        find_toolkit(part)
        return True
    except ValueError:
        return False


needs_nvvm = pytest.mark.skipif(not _has("nvvm"), reason="no libNVVM (the CUDA toolkit's nvvm/lib64)")
needs_nvjitlink = pytest.mark.skipif(not (_has("nvjitlink") and _has("nvrtc")), reason="no nvJitLink/NVRTC")
needs_readelf = pytest.mark.skipif(shutil.which("readelf") is None, reason="no readelf")
pytestmark = needs_nvvm


def _add(a, b):
    return a + b * math.sin(a)


def _function_symbols(cubin: bytes, tmp_path):
    path = tmp_path / "k.cubin"
    path.write_bytes(cubin)
    out = subprocess.run(["readelf", "-sW", str(path)], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if " FUNC " in line and " UND " not in line}


def _linked(kernel, specs, link=(), fastmath=False):
    """The kernel compiled with lto=True and linked by nvJitLink -lto (its LTO-IR, and `link`): the cubin."""
    config = _jit.CompileOptions(fastmath=fastmath).config("nvptx")
    cf = _jit._compile(kernel, list(specs), config, False, None, list(link), True)
    return cf, cf.linked_cubin()


# --- the API -------------------------------------------------------------------------------------------------------


def test_compile_gives_ltoir_bytes_for_device_functions_and_kernels():
    code, ret = cuda.compile(_add, "float64(float64, float64)", output="ltoir", abi_info={"abi_name": "add_f64"})
    assert ret == types.float64 and isinstance(code, bytes) and code.startswith(LTOIR_MAGIC)
    code, ret = cuda.compile(_add, (types.float32, types.float32), output="ltoir", forceinline=True)
    assert ret == types.float32 and code.startswith(LTOIR_MAGIC)

    def kernel(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = math.exp(x[i])

    code, ret = cuda.compile(kernel, "void(float32[:], float32[:])", device=False, abi="numba", output="ltoir")
    assert ret == types.none and code.startswith(LTOIR_MAGIC)
    codes, _ = cuda.compile_all(_add, "float64(float64, float64)")  # numba-cuda's default output: LTO-IR
    assert len(codes) == 1 and codes[0].startswith(LTOIR_MAGIC)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"output": "ptx", "forceinline": True}, ValueError, "forced inlining in LTO-IR"),
    ({"output": "ltoir", "forceinline": True, "device": False, "abi": "numba"}, ValueError,
     "Cannot force-inline kernels"),
    ({"output": "sass"}, NotImplementedError, "Unsupported output type: sass"),
])
def test_ltoir_refusals_are_numba_cudas(kwargs, error, match):
    with pytest.raises(error, match=match):
        cuda.compile(_add, "float32(float32, float32)", **kwargs)


def test_the_nvvm_ir_is_llvm_7s_dialect():
    cf, _ = _jit._compile_to_ptx(_add, "float64(float64, float64)", False, False, True, False, None, True, "c",
                                 {"abi_name": "add_f64"}, None, "compile")
    ir = cf.nvvm_ir()
    assert not re.search(r"\bptr\b", ir)  # no opaque pointers
    assert re.search(r"^define double @add_f64\(double %\w+, double %\w+\)", ir, re.M)
    assert "declare double @__nv_sin(double)" in ir  # libdevice stays a declaration: libNVVM links it
    assert '!nvvmir.version = !{' in ir and "target triple = \"nvptx64-nvidia-cuda\"" in ir
    assert "alwaysinline" in cf.nvvm_ir(True) and "alwaysinline" not in ir

    def k(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = -x[i]

    cf = _jit._compile(k, ["array(float32, 1d, C)"] * 2, _jit.CompileOptions().config("nvptx"), False)
    ir = cf.nvvm_ir()
    assert re.search(r"!\{void \(i64(, i64)*\)\* @\w+, !\"kernel\", i32 1\}", ir)  # the kernel's annotation
    assert re.search(r"= bitcast i8 addrspace\(1\)\* %\w+ to float addrspace\(1\)\*", ir)  # typed at the use
    assert "fneg" not in ir and re.search(r"fsub float 0x8000000000000000, %\w+", ir)  # LLVM 7 has no fneg


# --- linked: the LTO-IR becomes SASS --------------------------------------------------------------------------------

F32 = "array(float32, 1d, C)"
F64 = "array(float64, 1d, C)"
I32 = "array(int32, 1d, C)"
U32 = "array(uint32, 1d, C)"


def k_math(r, x):
    i = cuda.grid(1)
    if i < r.size:
        v = x[i]
        r[i] = math.sin(v) + math.exp(v) * math.log1p(abs(v)) + math.sqrt(abs(v)) + math.tanh(v) + v ** 2.5 \
            + math.floor(v) + max(v, 0.5) + min(v, -0.5) + math.copysign(1.0, v) + math.fmod(v, 3.0)


def k_atomics(r, x, n):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(r, 0, x[i])
        cuda.atomic.sub(r, 1, x[i])
        cuda.atomic.max(r, 2, x[i])
        cuda.atomic.min(r, 3, x[i])
        cuda.atomic.nanmax(r, 4, x[i])
        cuda.atomic.exch(r, 5, x[i])
        cuda.atomic.cas(n, 0, 0, i)
        cuda.atomic.inc(n, 1, 7)
        cuda.atomic.dec(n, 2, 7)
        cuda.atomic.and_(n, 3, i)
        cuda.atomic.or_(n, 4, i)
        cuda.atomic.xor(n, 5, i)
        cuda.atomic.max(n, 6, i)


def k_atomics64(r, n):
    i = cuda.grid(1)
    if i < r.size:
        cuda.atomic.add(r, 0, 1.5)
        cuda.atomic.max(r, 1, float(i))
        cuda.atomic.add(n, 0, 1)
        cuda.atomic.inc(n, 1, 9)
        cuda.atomic.min(n, 2, i)


def k_shared(r, x):
    s = cuda.shared.array(128, dtype=np.float32)
    d = cuda.shared.array(0, dtype=np.float32)
    t = cuda.threadIdx.x
    s[t] = x[cuda.grid(1)]
    d[t] = 2 * s[t]
    cuda.syncthreads()
    step = cuda.blockDim.x // 2
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        r[cuda.blockIdx.x] = s[0] + d[1]
    if cuda.syncthreads_or(t == 3):
        r[0] += cuda.syncthreads_count(t > 2)


def k_warp(r, x):
    i = cuda.grid(1)
    lane = cuda.laneid
    v = x[i]
    v += cuda.shfl_down_sync(0xFFFFFFFF, v, 1)
    v += cuda.shfl_xor_sync(0xFFFFFFFF, v, 2)
    v += cuda.shfl_up_sync(0xFFFFFFFF, v, 1)
    v += cuda.shfl_sync(0xFFFFFFFF, v, 0)
    b = cuda.ballot_sync(0xFFFFFFFF, v > 0)
    if cuda.all_sync(0xFFFFFFFF, v > 0) and cuda.any_sync(0xFFFFFFFF, lane == 1):
        v += cuda.popc(b) + cuda.clz(b) + cuda.ffs(b) + cuda.brev(b)
    m = cuda.match_any_sync(0xFFFFFFFF, lane % 4)
    cuda.syncwarp()
    cuda.threadfence()
    cuda.nanosleep(10)
    r[i] = v + m + cuda.activemask() + cuda.lanemask_lt()


def k_conversions(r, x, n):
    i = cuda.grid(1)
    if i < r.size:
        h = np.float16(x[i])
        n[i] = np.int32(x[i] * 3.7) + np.uint8(x[i]) + int(h * h) + abs(n[i])
        r[i] = float(h) + complex(x[i], 1.0).imag + abs(complex(x[i], 2.0))


def k_raises(r, x):
    i = cuda.grid(1)
    if x[i] < 0:
        raise ValueError("negative")
    r[i] = x[i] / x[i + 1] + x[i] // 2.0


def k_tuples_and_loops(r, x):
    i = cuda.grid(1)
    acc = (0.0, 0)
    for j in range(x.size):
        if j == i:
            continue
        acc = (acc[0] + x[j], acc[1] + 1)
    lo, hi = (acc[0], acc[1]) if acc[1] > 2 else (0.0, 1)
    r[i] = lo / hi


def k_2d(r, x):
    i, j = cuda.grid(2)
    if i < r.shape[0] and j < r.shape[1]:
        r[i, j] = x[j, i] + x[i:, j:][0, 0] + r.shape[0]


LINKED = [
    (k_math, [F64, F64]),
    (k_math, [F32, F32]),
    (k_atomics, [F32, F32, U32]),
    (k_atomics, [F64, F64, U32]),
    (k_atomics64, [F64, "array(uint64, 1d, C)"]),
    (k_shared, [F32, F32]),
    (k_warp, [I32, I32]),
    (k_conversions, [F32, F32, I32]),
    (k_raises, [F64, F64]),
    (k_tuples_and_loops, [F32, F32]),
    (k_2d, ["array(float32, 2d, C)", "array(float32, 2d, C)"]),
]


@needs_nvjitlink
@needs_readelf
@pytest.mark.parametrize("fastmath", [False, True])
@pytest.mark.parametrize("kernel, specs", LINKED, ids=[f"{k.__name__}-{s[0]}" for k, s in LINKED])
def test_kernels_through_ltoir_link_to_sass(kernel, specs, fastmath, tmp_path):
    cf, cubin = _linked(kernel, specs, fastmath=fastmath)
    assert cf.symbol in _function_symbols(cubin, tmp_path)


def k_half(r, x):
    i = cuda.grid(1)
    if i < r.size:
        a = x[i]
        r[i] = cuda.fp16.hfma(a, a, a) + cuda.fp16.hmax(a, -a) + cuda.fp16.hsqrt(abs(a))


def k_bf16(r, x):
    i = cuda.grid(1)
    if i < r.size:
        a = bf16.float32_to_bfloat16(x[i])
        b = bf16.hfma(a, a, a)
        r[i] = bf16.bfloat16_to_float32(bf16.hmax(b, a)) + bf16.bfloat16_to_float32(bf16.float64_to_bfloat16(1.0))


@needs_nvjitlink
@needs_readelf
@pytest.mark.parametrize("kernel, specs", [(k_half, ["array(float16, 1d, C)"] * 2), (k_bf16, [F32, F32])])
def test_half_and_bfloat16_through_ltoir(kernel, specs, tmp_path):
    cf, cubin = _linked(kernel, specs)
    assert cf.symbol in _function_symbols(cubin, tmp_path)


# --- link-time optimisation with C/C++ ------------------------------------------------------------------------------

mul_f32_f32 = cuda.declare_device("mul_f32_f32", "float32(float32, float32)", link=FUNCTIONS_CU)


def k_calls_c(r, x, y):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = mul_f32_f32(x[i], y[i])


@needs_nvjitlink
@needs_readelf
def test_lto_inlines_the_c_function_into_the_kernel(tmp_path):
    """Without LTO the kernel calls mul_f32_f32 (a function of the cubin); with it, the function is
    optimised into the kernel and is gone."""
    config = _jit.CompileOptions().config("nvptx")
    plain = _jit._compile(k_calls_c, [F32] * 3, config, False)
    assert {plain.symbol, "mul_f32_f32"} <= _function_symbols(plain.linked_cubin(), tmp_path)
    lto = _jit._compile(k_calls_c, [F32] * 3, config, False, None, [], True)
    symbols = _function_symbols(lto.linked_cubin(), tmp_path)
    assert lto.symbol in symbols and "mul_f32_f32" not in symbols


@needs_nvjitlink
@needs_readelf
def test_a_python_device_functions_ltoir_links_into_another_kernel(tmp_path):
    """numba-cuda's way of sharing a Python device function with other code: its LTO-IR, declared and linked."""
    code, _ = cuda.compile(_add, "float32(float32, float32)", output="ltoir", abi_info={"abi_name": "py_add"})
    py_add = cuda.declare_device("py_add", "float32(float32, float32)", link=cuda.LTOIR(code, name="py_add.ltoir"),
                                 abi="c")

    def k(r, x):
        r[0] = py_add(x[0], x[1])

    config = _jit.CompileOptions().config("nvptx")
    cf = _jit._compile(k, [F32] * 2, config, False, None, [], True)
    symbols = _function_symbols(cf.linked_cubin(), tmp_path)
    assert cf.symbol in symbols and "py_add" not in symbols  # inlined


@needs_nvjitlink
def test_compile_all_ltoir_compiles_the_linked_sources_to_ltoir():
    def k(r, x, y):
        r[0] = mul_f32_f32(x[0], y[0])

    codes, _ = cuda.compile_all(k, "void(float32[:], float32[:], float32[:])", device=False, abi="numba")
    assert len(codes) == 2 and all(isinstance(c, bytes) for c in codes)
    assert codes[0].startswith(LTOIR_MAGIC)
    ptx_codes, _ = cuda.compile_all(k, "void(float32[:], float32[:], float32[:])", device=False, abi="numba",
                                    output="ptx")
    assert ".entry" in ptx_codes[0] and "mul_f32_f32" in ptx_codes[1]


def test_libnvvm_is_found_by_the_toolkit_search():
    path, found_by = find_toolkit("nvvm")
    assert os.path.basename(path) == "libnvvm.so.4" and found_by
    assert any(p == path for p, _ in _core.toolkit_candidates("nvvm"))
