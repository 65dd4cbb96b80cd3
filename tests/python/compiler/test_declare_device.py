"""Calling CUDA C/C++ from kernels: cuda.declare_device, cuda.jit(link=...),
in-memory sources, extensions=[...] argument handlers (docs/interop_c.md).

On the cpu backend the portable sources of data/ffi are built by the host's
C++ compiler and the kernels run; the GPU path (NVRTC compiling the sources,
nvJitLink linking them with the kernel's PTX into a cubin) is exercised here
without a GPU: the linked cubin is checked for the kernel and the functions it
calls.
"""

import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from cuforge import _core, cuda, types
from cuforge.cuda import _jit

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "ffi")
FUNCTIONS_CU = os.path.join(DATA, "functions.cu")
SAXPY_CU = os.path.join(DATA, "saxpy.cu")
PORTABLE_C = os.path.join(DATA, "portable.c")
# The seed's cuRAND shim: the example's (examples/python/ffi).
CURAND_SHIM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples", "python", "ffi",
                           "curand_shim.cu")

HAVE_NVRTC = _core.nvrtc_version() > 0
needs_nvrtc = pytest.mark.skipif(not HAVE_NVRTC, reason="no NVRTC (CUDA toolkit) on this machine")
needs_host_compiler = pytest.mark.skipif(shutil.which(os.environ.get("CXX", "c++")) is None,
                                         reason="no host C++ compiler")
on_cpu_backend = pytest.mark.skipif(cuda.backend() != "cpu", reason="runs the cpu backend's path")

mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)", link=FUNCTIONS_CU)
sum_reduce = cuda.declare_device("sum_reduce", "float32(CPointer(float32), int32)", link=FUNCTIONS_CU)
scale_in_place = cuda.declare_device("scale_in_place", types.int32(types.CPointer(types.float64), types.int64,
                                                                   types.float64), link=FUNCTIONS_CU)
fma_c = cuda.declare_device("fma_c", "float64(float64, float64, float64)", link=FUNCTIONS_CU, abi="c")
is_odd_c = cuda.declare_device("is_odd_c", "boolean(uint64)", link=FUNCTIONS_CU, abi="c")
clamp_c = cuda.declare_device("clamp_c", "int32(int32, int32, int32)", link=PORTABLE_C, abi="c")
# Declared without its file: the kernel names it (cuda.jit(link=...)).
mul_unlinked = cuda.declare_device("mul_f32_f32", "float32(float32, float32)")


@cuda.jit
def multiply_vectors(r, x, y):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = mul(x[i], y[i])


@cuda.jit
def reduction_caller(result, array):
    result[()] = sum_reduce(array, len(array))


@cuda.jit
def scale_caller(counts, data, by):
    counts[0] = scale_in_place(data, data.size, by)


@cuda.jit
def c_abi_caller(out, a, odd, clamped):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = fma_c(a[i], 2, 1)  # the int constants convert to the declared float64
        odd[i] = is_odd_c(i)
        clamped[i] = clamp_c(i, 2, 5)


@cuda.jit(link=[FUNCTIONS_CU])
def linked_by_the_kernel(r, x, y):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = mul_unlinked(x[i], y[i])


@cuda.jit(device=True)
def through_a_device_function(x, y):
    return mul(x, y) + 1


@cuda.jit
def calls_a_device_function(r, x, y):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = through_a_device_function(x[i], y[i])


def _arrays(n=32, seed=1):
    rng = np.random.default_rng(seed)
    return rng.random(n).astype(np.float32), rng.random(n).astype(np.float32)


# --- the cpu backend runs them ------------------------------------------------------------------------------


@on_cpu_backend
@needs_host_compiler
def test_numba_docs_linking_example_runs():
    x, y = _arrays()
    r = np.zeros_like(x)
    multiply_vectors[1, 32](r, x, y)
    np.testing.assert_array_equal(r, x * y)
    assert multiply_vectors.overloads[multiply_vectors.signatures[0]].link == [FUNCTIONS_CU]


@on_cpu_backend
@needs_host_compiler
def test_pointer_parameters_take_an_array_and_see_its_writes():
    x = np.arange(10, dtype=np.float32)
    r = np.ndarray((), dtype=np.float32)
    reduction_caller[1, 1](r, x)
    assert r[()] == 45.0
    data = cuda.to_device(np.arange(5, dtype=np.float64))
    counts = cuda.to_device(np.zeros(1, np.int32))
    scale_caller[1, 1](counts, data, 2.5)
    np.testing.assert_array_equal(data.copy_to_host(), np.arange(5) * 2.5)
    assert counts.copy_to_host()[0] == 5


@on_cpu_backend
@needs_host_compiler
def test_c_abi_and_c_sources_and_argument_conversion():
    n = 8
    a = np.linspace(0, 1, n)
    out, odd, clamped = np.zeros(n), np.zeros(n, np.bool_), np.zeros(n, np.int32)
    c_abi_caller[1, n](out, a, odd, clamped)
    np.testing.assert_array_equal(out, a * 2 + 1)
    np.testing.assert_array_equal(odd, np.arange(n) % 2 == 1)
    np.testing.assert_array_equal(clamped, np.clip(np.arange(n), 2, 5))


@on_cpu_backend
@needs_host_compiler
def test_link_keyword_and_device_functions_and_in_memory_source():
    x, y = _arrays(16, seed=2)
    r = np.zeros_like(x)
    linked_by_the_kernel[1, 16](r, x, y)
    np.testing.assert_array_equal(r, x * y)
    r2 = np.zeros_like(x)
    calls_a_device_function[1, 16](r2, x, y)
    np.testing.assert_array_equal(r2, x * y + np.float32(1))

    source = cuda.CUSource('extern "C" __device__ int cube_i64(long long* r, long long x) { *r = x * x * x; '
                           'return 0; }', name="cube.cu")
    cube = cuda.declare_device("cube_i64", "int64(int64)", link=source)

    @cuda.jit
    def cubes(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = cube(i - 3)

    out = np.zeros(7, np.int64)
    cubes[1, 7](out)
    np.testing.assert_array_equal(out, (np.arange(7) - 3) ** 3)


@on_cpu_backend
@needs_host_compiler
def test_extra_include_paths(monkeypatch):
    monkeypatch.setenv("CUFORGE_CUDA_INCLUDE_PATH",
                       os.path.join(DATA, "include_a") + ":" + os.path.join(DATA, "include_b"))
    saxpy = cuda.declare_device("saxpy", "float32(float32, float32, float32)", link=SAXPY_CU)

    @cuda.jit
    def vector_saxpy(a, x, y, res):
        i = cuda.grid(1)
        if i < len(res):
            res[i] = saxpy(a, x[i], y[i])

    x, y = _arrays(100, seed=3)
    res = np.zeros_like(x)
    vector_saxpy[4, 32](np.float32(3.0), x, y, res)
    np.testing.assert_array_equal(res, np.float32(3.0) * x + y)


# --- the GPU path, without a GPU: NVRTC and nvJitLink ---------------------------------------------------------


def _gpu_compiled(kernel, specs, link=(), lto=False):
    config = _jit.CompileOptions().config("nvptx")
    return _jit._compile(kernel.py_func, specs, config, False, None, link, lto)


def _function_symbols(cubin: bytes, tmp_path):
    """The FUNC symbols an ELF cubin defines (readelf)."""
    path = tmp_path / "k.cubin"
    path.write_bytes(cubin)
    out = subprocess.run(["readelf", "-sW", str(path)], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if " FUNC " in line and " UND " not in line}


F32 = "array(float32, 1d, C)"
needs_readelf = pytest.mark.skipif(shutil.which("readelf") is None, reason="no readelf")


def test_ptx_calls_the_declared_function_as_an_extern():
    ptx, _ = cuda.compile_ptx(multiply_vectors.py_func, "void(float32[:], float32[:], float32[:])")
    assert re.search(r"\.extern \.func\s+\(\.param \.b32 func_retval0\) mul_f32_f32\s*\(", ptx)
    ptx, _ = cuda.compile_ptx(c_abi_caller.py_func, "void(float64[:], float64[:], boolean[:], int32[:])")
    assert re.search(r"\.extern \.func\s+\(\.param \.b64 func_retval0\) fma_c\s*\(", ptx)
    assert re.search(r"\.extern \.func\s+\(\.param \.b32 func_retval0\) clamp_c\s*\(", ptx)


@needs_nvrtc
@needs_readelf
@pytest.mark.parametrize("lto", [False, True])
def test_nvjitlink_links_the_kernel_with_nvrtc_compiled_sources(lto, tmp_path):
    # Without LTO the kernel calls the C functions; with it (the kernel's LTO-IR too) they are inlined.
    cf = _gpu_compiled(multiply_vectors, [F32] * 3, lto=lto)
    symbols = _function_symbols(cf.linked_cubin(), tmp_path)
    assert cf.symbol in symbols and ("mul_f32_f32" in symbols) == (not lto)
    cf = _gpu_compiled(c_abi_caller, ["array(float64, 1d, C)", "array(float64, 1d, C)", "array(bool, 1d, C)",
                                      "array(int32, 1d, C)"], lto=lto)
    assert cf.link == [FUNCTIONS_CU, PORTABLE_C]
    symbols = _function_symbols(cf.linked_cubin(), tmp_path)
    assert cf.symbol in symbols
    assert ({"fma_c", "is_odd_c", "clamp_c"} <= symbols) if not lto else not ({"fma_c", "is_odd_c", "clamp_c"} & symbols)


@needs_nvrtc
@needs_readelf
def test_nvjitlink_takes_ptx_ltoir_files_and_in_memory_code(tmp_path):
    source = open(FUNCTIONS_CU).read()
    ptx, _ = _core.compile_cuda_source(source, FUNCTIONS_CU, (9, 0), False)
    assert re.search(rb"\.visible \.func\s+\(\.param \.b32 func_retval0\) mul_f32_f32\s*\(", ptx)
    (tmp_path / "functions.ptx").write_bytes(ptx)
    cf = _gpu_compiled(linked_by_the_kernel, [F32] * 3, link=[str(tmp_path / "functions.ptx")])
    assert "mul_f32_f32" in _function_symbols(cf.linked_cubin(), tmp_path)

    ltoir, _ = _core.compile_cuda_source(source, FUNCTIONS_CU, (9, 0), True)
    (tmp_path / "functions.ltoir").write_bytes(ltoir)
    cf = _gpu_compiled(linked_by_the_kernel, [F32] * 3, link=[str(tmp_path / "functions.ltoir")], lto=True)
    symbols = _function_symbols(cf.linked_cubin(), tmp_path)
    assert cf.symbol in symbols and "mul_f32_f32" not in symbols  # optimised into the kernel

    in_memory = cuda.declare_device("mul_f32_f32", "float32(float32, float32)", link=cuda.PTXSource(ptx))

    def k(r, x, y):
        i = cuda.grid(1)
        if i < len(r):
            r[i] = in_memory(x[i], y[i])

    cf = _jit._compile(k, [F32] * 3, _jit.CompileOptions().config("nvptx"), False)
    assert cf.link[0].endswith(".ptx")
    assert "mul_f32_f32" in _function_symbols(cf.linked_cubin(), tmp_path)


@needs_nvrtc
@needs_readelf
def test_the_seeds_curand_shim_compiles_and_links_for_the_gpu(tmp_path):
    curand_init = cuda.declare_device("_numba_curand_init", "int32(voidptr, uint64, uint64, uint64, uint64)",
                                      link=CURAND_SHIM)
    curand = cuda.declare_device("_numba_curand", types.uint32(types.voidptr, types.uint64), link=CURAND_SHIM)

    def count_low_bits_native(states, sample_count, results):
        i = cuda.grid(1)
        curand_init(states, i, 1234, i, 0)
        count = 0
        for sample in range(sample_count):
            x = curand(states, i)
            if x & 1:
                count += 1
        results[i] += count

    config = _jit.CompileOptions().config("nvptx")
    cf = _jit._compile(count_low_bits_native, ["array(uint8, 1d, C)", "int64", "array(int64, 1d, C)"], config, False)
    symbols = _function_symbols(cf.linked_cubin(), tmp_path)
    assert {cf.symbol, "_numba_curand", "_numba_curand_init"} <= symbols


# --- bad input: clear errors naming the file or function -----------------------------------------------------


GRID_SYNC_CU = os.path.join(DATA, "grid_sync.cu")
rotate = cuda.declare_device("rotate_after_grid_sync", types.none(types.CPointer(types.int64), types.int64),
                             link=GRID_SYNC_CU, use_cooperative=True)
clamp_cooperative = cuda.declare_device("clamp_c", "int32(int32, int32, int32)", link=PORTABLE_C, abi="c",
                                        use_cooperative=True)


@cuda.jit
def rotate_caller(a):
    rotate(a, a.size)


@cuda.jit
def clamp_cooperative_caller(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = clamp_cooperative(i, 2, 5)


@needs_nvrtc
def test_use_cooperative_makes_the_kernel_a_cooperative_one_on_the_gpu(tmp_path):
    # The function synchronises the grid (cooperative groups, through NVRTC): the kernel calling it is
    # launched cooperatively, as one using cuda.cg.this_grid() is; the same kernel without the flag is not.
    cf = _gpu_compiled(rotate_caller, ["array(int64, 1d, C)"])
    assert cf.cooperative
    assert {cf.symbol, "rotate_after_grid_sync"} <= _function_symbols(cf.linked_cubin(), tmp_path)
    assert not _gpu_compiled(multiply_vectors, [F32] * 3).cooperative


@needs_host_compiler
def test_use_cooperative_reaches_the_launch_on_every_backend():
    out = np.zeros(8, np.int32)
    clamp_cooperative_caller[2, 4](out)
    np.testing.assert_array_equal(out, np.clip(np.arange(8), 2, 5))
    ((_, compiled),) = clamp_cooperative_caller.overloads.items()
    assert compiled.cooperative
    assert compiled.max_cooperative_grid_blocks(4) >= 2
    clamped = np.zeros(8, np.int32)
    c_abi_caller[1, 8](np.zeros(8), np.zeros(8), np.zeros(8, np.bool_), clamped)
    assert not next(iter(c_abi_caller.overloads.values())).cooperative


def test_declaration_errors():
    with pytest.raises(TypeError, match="Return type must be provided"):
        cuda.declare_device("f", "(float32,)")
    with pytest.raises(NotImplementedError, match="Unsupported ABI: fortran"):
        cuda.declare_device("f", "float32(float32)", abi="fortran")
    with pytest.raises(ValueError, match="C identifier"):
        cuda.declare_device("not a name", "float32(float32)")
    with pytest.raises(TypeError, match="parameter 1 is array"):
        cuda.declare_device("f", "float32(float32[:])")
    with pytest.raises(FileNotFoundError, match="no_such.cu"):
        cuda.declare_device("f", "float32(float32)", link="no_such.cu")
    with pytest.raises(TypeError, match="call it from a kernel or device function"):
        mul(1.0, 2.0)
    with pytest.raises(TypeError, match="use_cooperative is True or False, not 'yes'"):
        cuda.declare_device("f", "float32(float32)", use_cooperative="yes")


_DECLARED = (
    "from cuforge import cuda\n"
    f"mul = cuda.declare_device('mul_f32_f32', 'float32(float32, float32)', link={FUNCTIONS_CU!r})\n"
    f"red = cuda.declare_device('sum_reduce', 'float32(CPointer(float32), int32)', link={FUNCTIONS_CU!r})\n"
)


@pytest.mark.parametrize("name, body, message", [
    ("too_few", "r[0] = mul(1.0)", "mul_f32_f32() takes 2 arguments but 1 were given"),
    ("keywords", "r[0] = mul(x=1.0, y=2.0)", "mul_f32_f32() takes no keyword arguments"),
    ("scalar_for_pointer", "r[0] = red(1.0, 3)",
     "argument 1 of sum_reduce() is declared CPointer(float32): pass an array (its data pointer is passed), not"),
    ("wrong_dtype", "r[0] = red(r, 3)", "argument 1 of sum_reduce() is declared CPointer(float32): pass an array of "
                                        "float32, not array(float64"),
    ("array_for_scalar", "r[0] = mul(r, 2.0)", "argument 1 of mul_f32_f32() is declared float32: cannot pass array"),
])
def test_call_errors_name_the_function_and_argument(name, body, message, tmp_path):
    from compiler_support import typing_error_of

    e = typing_error_of(_DECLARED + f"def k(r):\n    {body}\n", tmp_path, name)
    assert message in str(e)


@on_cpu_backend
@needs_host_compiler
def test_a_signature_that_does_not_match_the_definition_is_refused():
    wrong = cuda.declare_device("mul_f32_f32", "float64(float32, float32)", link=FUNCTIONS_CU)

    @cuda.jit
    def k(r, x):
        r[0] = wrong(x[0], x[0])

    with pytest.raises(ValueError, match="the definition of mul_f32_f32 does not match its declaration"):
        k[1, 1](np.zeros(1), np.ones(1, np.float32))


@needs_nvrtc
def test_a_signature_that_does_not_match_is_refused_by_nvrtc_too():
    wrong = cuda.declare_device("fma_c", "float64(float64, float64, int32)", link=FUNCTIONS_CU, abi="c")

    def k(r):
        r[0] = wrong(1.0, 2.0, 3)

    cf = _jit._compile(k, ["array(float64, 1d, C)"], _jit.CompileOptions().config("nvptx"), False)
    with pytest.raises(ValueError, match=r"NVRTC failed to compile .*functions\.cu(.|\n)*the definition of fma_c "
                                         r"does not match"):
        cf.linked_cubin()


@on_cpu_backend
@needs_host_compiler
def test_an_undefined_symbol_is_named():
    nope = cuda.declare_device("no_such_function", "int32(int32)", link=FUNCTIONS_CU)

    @cuda.jit
    def k(r):
        r[0] = nope(1)

    with pytest.raises(ValueError, match=r"Symbols not found: \[ no_such_function \]"):
        k[1, 1](np.zeros(1, np.int32))


@needs_nvrtc
def test_nvjitlink_names_an_undefined_symbol_and_a_malformed_ptx_file(tmp_path):
    nope = cuda.declare_device("no_such_function", "int32(int32)", link=FUNCTIONS_CU)

    def k(r):
        r[0] = nope(1)

    config = _jit.CompileOptions().config("nvptx")
    cf = _jit._compile(k, ["array(int32, 1d, C)"], config, False)
    with pytest.raises(ValueError, match="Undefined reference to 'no_such_function'"):
        cf.linked_cubin()
    bad = tmp_path / "bad.ptx"
    bad.write_text(".version 8.0\n.target sm_90\n.address_size 64\nthis is not ptx\n")
    cf = _jit._compile(linked_by_the_kernel.py_func, [F32] * 3, config, False, None, [str(bad)])
    with pytest.raises(ValueError, match="nvJitLink failed(.|\n)*bad.ptx"):
        cf.linked_cubin()


@needs_nvrtc
def test_nvrtc_errors_carry_the_log_and_the_file():
    with pytest.raises(ValueError, match=r"NVRTC failed to compile oops\.cu(.|\n)*undefined_thing"):
        _core.compile_cuda_source('extern "C" __device__ int f(int* r) { *r = undefined_thing; return 0; }',
                                  "oops.cu", (9, 0), False)


@on_cpu_backend
def test_the_cpu_backend_refuses_gpu_only_inputs(tmp_path):
    ptx = tmp_path / "functions.ptx"
    ptx.write_text("// PTX\n")
    declared = cuda.declare_device("mul_f32_f32", "float32(float32, float32)", link=str(ptx))

    @cuda.jit
    def k(r):
        r[0] = declared(1.0, 2.0)

    with pytest.raises(ValueError, match=r"cannot link .*functions\.ptx on the cpu backend: it is PTX"):
        k[1, 1](np.zeros(1, np.float32))
    odd = tmp_path / "functions.xyz"
    odd.write_text("")
    with pytest.raises(ValueError, match=r"its extension \.xyz is none of"):
        cuda.jit(link=[str(odd)])(multiply_vectors.py_func)[1, 1](*[np.zeros(1, np.float32)] * 3)


@on_cpu_backend
@needs_host_compiler
def test_cuda_only_code_is_refused_on_the_cpu_backend_with_the_compilers_output():
    curand = cuda.declare_device("_numba_curand", "uint32(voidptr, uint64)", link=CURAND_SHIM)

    @cuda.jit
    def k(states, r):
        r[0] = curand(states, 0)

    with pytest.raises(ValueError, match=r"cannot compile .*curand_shim\.cu with the host's C\+\+ compiler(.|\n)*"
                                         r"only portable C/C\+\+ runs"):
        k[1, 1](np.zeros(48, np.uint8), np.zeros(1, np.uint32))


# --- extensions=[...]: argument handlers ------------------------------------------------------------------


class _Boxed:
    def __init__(self, array):
        self.array = array


class _Handler:
    """numba-cuda's argument-handler protocol: unwraps _Boxed into a device array and writes it back."""

    def __init__(self):
        self.seen = []
        self.written_back = 0

    def prepare_args(self, ty, val, stream=0, retr=None):
        self.seen.append(ty)
        if isinstance(val, _Boxed):
            dev = cuda.to_device(val.array, stream=stream)

            def write_back():
                dev.copy_to_host(val.array, stream=stream)
                self.written_back += 1

            retr.append(write_back)
            return ty, dev
        if isinstance(val, int):
            return types.uint8, val  # a scalar type: the value is passed as one (wrapped, as numba-cuda's ctypes)
        return ty, val


def test_extensions_prepare_each_launchs_arguments():
    handler = _Handler()

    @cuda.jit(extensions=[handler])
    def fill(a, n):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = n * 2

    a = np.zeros(4, np.int32)
    fill[1, 4](_Boxed(a), 300)  # 300 as uint8 is 44
    np.testing.assert_array_equal(a, 88)
    assert handler.written_back == 1
    assert handler.seen[0] is None and handler.seen[1] == types.int64  # _Boxed is no kernel type
    assert fill.signatures[0][1] == types.uint8
    fill.forall(4)(_Boxed(a), 1)  # forall goes through them too
    np.testing.assert_array_equal(a, 2)
    assert handler.written_back == 2


@on_cpu_backend
@needs_host_compiler
def test_ffi_from_buffer_passes_an_arrays_pointer():
    cffi = pytest.importorskip("cffi")
    ffi = cffi.FFI()

    @cuda.jit
    def reduction_caller_numba_style(result, array):  # numba-cuda's docs example, unchanged
        array_ptr = ffi.from_buffer(array)
        result[()] = sum_reduce(array_ptr, len(array))

    x = np.arange(10).astype(np.float32)
    r = np.ndarray((), dtype=np.float32)
    reduction_caller_numba_style[1, 1](r, x)
    np.testing.assert_allclose(r[()], np.sum(x))


# --- cuda.compile, compile_all: device functions with the C ABI, for C/C++ to call ---------------------------


def _add(x, y):
    return x + y


def test_compile_makes_a_c_abi_device_function_named_by_abi_info():
    ptx, ret = cuda.compile(_add, "float32(float32, float32)", abi_info={"abi_name": "my_add"})
    assert ret == types.float32
    assert re.search(r"\.visible \.func\s+\(\.param \.b32 func_retval0\) my_add\s*\(\s*\.param \.b32 my_add_param_0,"
                     r"\s*\.param \.b32 my_add_param_1\s*\)", ptx)
    ptx, ret = cuda.compile(_add, (types.int32, types.int32))  # the return type inferred
    assert ret == types.int64 and re.search(r"\.visible \.func\s+\(\.param \.b64 func_retval0\)", ptx)
    ptx, _ = cuda.compile_ptx(_add, "float64(float64, float64)", device=True, abi="c",
                              abi_info={"abi_name": "add_f64"})
    assert re.search(r"\.visible \.func\s+\(\.param \.b64 func_retval0\) add_f64\s*\(", ptx)
    ptx, _ = cuda.compile_ptx(_add, "float64(float64, float64)", device=True)  # Numba's ABI: the result by pointer
    assert re.search(r"\.visible \.func\s+\(\.param \.b32 func_retval0\) \w+\s*\(\s*\.param \.b64 \w+_param_0,", ptx)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"output": "cubin"}, NotImplementedError, "Unsupported output type: cubin"),
    ({"forceinline": True}, ValueError, "forced inlining in LTO-IR"),
    ({"abi": "fortran"}, NotImplementedError, "Unsupported ABI: fortran"),
    ({"abi_info": {"name": "f"}}, ValueError, "abi_info takes one key"),
    ({"abi_info": {"abi_name": "not a name"}}, ValueError, "is not a symbol name"),
    ({"device": False}, NotImplementedError, "The C ABI is not supported for kernels"),
])
def test_compile_refuses(kwargs, error, match):
    with pytest.raises(error, match=match):
        cuda.compile(_add, "float32(float32, float32)", **kwargs)


@needs_nvrtc
def test_compile_all_gives_the_ptx_and_what_it_links():
    codes, ret = cuda.compile_all(c_abi_caller, "void(float64[:], float64[:], boolean[:], int32[:])", device=False,
                                  abi="numba", output="ptx")
    assert ret == types.none and len(codes) == 3
    assert re.search(r"\.visible \.entry", codes[0])
    assert re.search(r"\.visible \.func\s+\(\.param \.b64 func_retval0\) fma_c\s*\(", codes[1])  # functions.cu
    assert re.search(r"\.visible \.func\s+\(\.param \.b32 func_retval0\) clamp_c\s*\(", codes[2])  # portable.c


@needs_nvrtc
@needs_readelf
def test_a_python_device_function_compiled_with_the_c_abi_links_into_another_kernel(tmp_path):
    ptx, _ = cuda.compile(_add, "float32(float32, float32)", abi_info={"abi_name": "py_add"})
    py_add = cuda.declare_device("py_add", "float32(float32, float32)", link=cuda.PTXSource(ptx, name="py_add.ptx"),
                                 abi="c")

    def k(r, x):
        r[0] = py_add(x[0], x[1])

    cf = _jit._compile(k, [F32] * 2, _jit.CompileOptions().config("nvptx"), False)
    assert {cf.symbol, "py_add"} <= _function_symbols(cf.linked_cubin(), tmp_path)


def _pair(x, y):
    return x, y


@pytest.mark.no_ptxas  # (the refused specialisation has no C-ABI PTX to check)
def test_the_c_abi_returns_scalars_only():
    with pytest.raises(TypeError, match=r"the C ABI returns a scalar or nothing; _pair returns UniTuple"):
        cuda.compile(_pair, (types.float32, types.float32))
    ptx, ret = cuda.compile(_pair, (types.float32, types.float32), abi="numba")  # by pointer: fine
    assert ret == types.UniTuple(types.float32, 2) and ".visible .func" in ptx


NVCC = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")


@needs_nvrtc
@needs_readelf
@pytest.mark.skipif(not os.path.exists(NVCC), reason="no nvcc")
@pytest.mark.parametrize("kind, flags", [
    ("o", ["-dc"]),
    ("cubin", ["-cubin", "-rdc=true"]),
    ("fatbin", ["-fatbin", "-rdc=true"]),
    ("a", None),  # an archive of the .o (nvcc -lib)
])
@pytest.mark.no_asan("tools")
def test_nvjitlink_takes_what_nvcc_makes(kind, flags, tmp_path):
    obj = tmp_path / "functions.o"
    if kind == "a":
        subprocess.run([NVCC, "-dc", "-arch=sm_90", FUNCTIONS_CU, "-o", str(obj)], check=True, capture_output=True)
        out = tmp_path / "libfunctions.a"
        subprocess.run([NVCC, "-lib", str(obj), "-o", str(out)], check=True, capture_output=True)
    else:
        out = tmp_path / f"functions.{kind}"
        subprocess.run([NVCC, *flags, "-arch=sm_90", FUNCTIONS_CU, "-o", str(out)], check=True, capture_output=True)
    cf = _gpu_compiled(linked_by_the_kernel, [F32] * 3, link=[str(out)])
    assert {cf.symbol, "mul_f32_f32"} <= _function_symbols(cf.linked_cubin(), tmp_path)
