"""The numba.cuda-compatible face of the compiler, end to end: lazy and eager
``@cuda.jit`` (signature strings, type objects, lists), device functions
calling device functions, every launch configuration form, compile_ptx and
its options checked on the PTX (and the PTX assembled by ptxas), specialize,
definitions, inspect_*(); and the dispatcher: one compile per argument
types, NumPy arguments copied back only when written, device arrays and
CUDA Array Interface / DLPack producers passed without copies, scalars by
value.

test_jit.py covers the decorator's forms and options without running
anything; test_launch_errors.py the errors at launch."""

import io
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from cuforge import _core, cuda
from cuforge import types as t
from cuforge.types import float32, float64, int32, int64, void

PTXAS = "/usr/local/cuda/bin/ptxas"


def assemble(ptx, cc=(9, 0), tmp_path=None, verbose=False):
    """Runs ptxas on ``ptx`` for sm_XY; returns its stderr (the -v report)."""
    if not os.path.exists(PTXAS):
        pytest.skip(f"{PTXAS} is not installed")
    path = tmp_path / f"k{abs(hash(ptx))}.ptx"
    path.write_text(ptx)
    arch = f"-arch=sm_{cc[0]}{cc[1]}"
    p = subprocess.run([PTXAS, arch, *(["-v"] if verbose else []), str(path), "-o", os.devnull],
                       capture_output=True, text=True)
    assert p.returncode == 0, f"ptxas {arch} refused the PTX:\n{p.stderr}\n{ptx}"
    return p.stderr


# --- kernels used throughout -------------------------------------------------------------------------------


def scale_into(out, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * 2


@cuda.jit(device=True)
def root(v):
    return v**0.5


def divide(out, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] / y[i] + root(x[i])


# --- lazy and eager -----------------------------------------------------------------------------------------


def test_lazy_kernels_compile_at_the_first_launch_for_its_types():
    k = cuda.jit(scale_into)
    assert k.definitions == {}
    x = np.arange(10, dtype=np.float32)
    out = np.zeros_like(x)
    k[1, 16](out, x)
    np.testing.assert_array_equal(out, 2 * x)
    assert list(k.definitions) == [(float32[::1], float32[::1])]


@pytest.mark.parametrize("sig", [
    "void(float32[:], float32[::1])",
    void(float32[:], float32[::1]),
    (float32[:], float32[::1]),
    "(float32[:], float32[::1])",
], ids=["string", "signature-object", "tuple-of-types", "string-without-return"])
def test_eager_signatures_compile_now_and_take_compatible_arguments(sig):
    k = cuda.jit(sig)(scale_into)
    assert list(k.definitions) == [(float32[:], float32[::1])] and k.specialized
    x = np.arange(10, dtype=np.float32)
    out = np.zeros(20, np.float32)[::2]  # any layout, as declared
    k[1, 16](out, x)
    np.testing.assert_array_equal(out, 2 * x)
    out2 = np.zeros_like(x)  # a C-contiguous array fits float32[:] too
    k[1, 16](out2, x)
    np.testing.assert_array_equal(out2, 2 * x)
    assert len(k.definitions) == 1  # nothing more was compiled
    with pytest.raises(TypeError, match="no matching definition"):
        k[1, 16](out2.astype(np.float64), x)


def test_a_list_of_signatures_compiles_each_and_dispatches_on_the_types():
    k = cuda.jit(["void(float32[::1], float32[::1])", void(float64[::1], float64[::1]), (int32[:], int32[:])])(
        scale_into)
    assert set(k.definitions) == {(float32[::1],) * 2, (float64[::1],) * 2, (int32[:],) * 2}
    assert not k.specialized
    for dtype in (np.float32, np.float64, np.int32):
        x = np.arange(7, dtype=dtype)
        out = np.zeros_like(x)
        k[1, 8](out, x)
        np.testing.assert_array_equal(out, 2 * x)
        assert out.dtype == dtype
    assert len(k.definitions) == 3
    with pytest.raises(TypeError, match="no matching definition"):
        k[1, 8](np.zeros(3, np.int64), np.zeros(3, np.int64))


# --- device functions ---------------------------------------------------------------------------------------


@cuda.jit(device=True)
def square(v):
    return v * v


@cuda.jit(device=True)
def norm2(x, y):
    return square(x) + square(y)  # a device function calling another


@cuda.jit("float64(float64, float64)", device=True)
def shifted_norm2(x, y):  # eager, calling a lazy one that calls another
    return norm2(x, y) + 1


@cuda.jit(device=True)
def polar(x, y):
    return norm2(x, y) ** 0.5, np.arctan2(y, x)


@cuda.jit
def device_chain(out, r, theta, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = shifted_norm2(x[i], y[i])
        r[i], theta[i] = polar(x[i], y[i])


def test_device_functions_call_device_functions_from_kernels():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 100))
    out, r, theta = np.zeros((3, 100))
    device_chain[4, 32](out, r, theta, x, y)
    np.testing.assert_allclose(out, x * x + y * y + 1)
    np.testing.assert_allclose(r, np.hypot(x, y))
    np.testing.assert_allclose(theta, np.arctan2(y, x))
    assert list(shifted_norm2.definitions) == [(float64, float64)]
    (cf,) = shifted_norm2.definitions.values()
    assert cf.return_spec == "float64"


def test_device_functions_compile_for_the_callers_types():
    """float32 arguments keep a lazy device function in float32 (no float64
    instruction in the kernel's PTX)."""

    @cuda.jit
    def k(out, x):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = norm2(x[i], x[i])

    ptx = k.compile("void(float32[::1], float32[::1])").ptx
    assert ".f32" in ptx and ".f64" not in ptx


# --- launch configurations ----------------------------------------------------------------------------------


@cuda.jit
def coverage(hits, dims):
    x, y, z = cuda.grid(3)
    if x < hits.shape[0] and y < hits.shape[1] and z < hits.shape[2]:
        cuda.atomic.add(hits, (x, y, z), 1)
    if x == 0 and y == 0 and z == 0:
        dims[0] = cuda.gridDim.x
        dims[1] = cuda.gridDim.y
        dims[2] = cuda.gridDim.z
        dims[3] = cuda.blockDim.x
        dims[4] = cuda.blockDim.y
        dims[5] = cuda.blockDim.z


def _dim3(d):
    d = list(d) if isinstance(d, (tuple, list)) else [d]
    return d + [1] * (3 - len(d))


@pytest.mark.parametrize("griddim, blockdim", [
    (3, 32), ((3,), (32,)), ((2, 3), (8, 4)), ((2, 2, 2), (4, 4, 2)), ([2, 1, 3], [1, 2, 8]),
    (np.int64(2), np.uint16(64)), (1, 1024), ((1, 1, 1), (1, 1, 64)),
])
def test_every_thread_of_the_configuration_runs_once(griddim, blockdim):
    g, b = _dim3(griddim), _dim3(blockdim)
    hits = np.zeros([g[i] * b[i] for i in range(3)], np.int32)
    dims = np.zeros(6, np.int64)
    coverage[griddim, blockdim](hits, dims)
    assert (hits == 1).all()
    assert dims.tolist() == g + b


@cuda.jit
def reverse_blocks(out, x):
    # Each block reverses its slice through dynamic shared memory.
    buf = cuda.shared.array(0, dtype=float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[tid] = x[i]
    cuda.syncthreads()
    out[i] = buf[cuda.blockDim.x - 1 - tid]


@pytest.mark.parametrize("stream", [0, None, "new", "default", "legacy", "per-thread"])
def test_launches_with_a_stream_and_dynamic_shared_memory(stream):
    s = {"new": cuda.stream, "default": cuda.default_stream, "legacy": cuda.legacy_default_stream,
         "per-thread": cuda.per_thread_default_stream}.get(stream, lambda: stream)()
    x = np.arange(4 * 64, dtype=np.float32)
    d_x = cuda.to_device(x)
    d_out = cuda.device_array_like(x)
    reverse_blocks[4, 64, s, 64 * 4](d_out, d_x)  # [griddim, blockdim, stream, dynamic shared bytes]
    (s or cuda.default_stream()).synchronize()
    np.testing.assert_array_equal(d_out.copy_to_host(), x.reshape(4, 64)[:, ::-1].ravel())
    out = np.zeros_like(x)
    reverse_blocks[(4,), (64,), s, 256](out, x)
    np.testing.assert_array_equal(out, x.reshape(4, 64)[:, ::-1].ravel())


def test_a_launch_on_a_stream_is_ordered_with_its_copies():
    s = cuda.stream()
    x = np.arange(1000, dtype=np.float32)
    d_x = cuda.to_device(x, stream=s)
    d_out = cuda.device_array_like(x, stream=s)
    scale = cuda.jit(scale_into)
    scale[8, 128, s](d_out, d_x)
    host = d_out.copy_to_host(stream=s)
    s.synchronize()
    np.testing.assert_array_equal(host, 2 * x)


# --- compile_ptx and the options ----------------------------------------------------------------------------


def test_compile_ptx_returns_the_ptx_and_the_return_type(tmp_path):
    ptx, ret = cuda.compile_ptx(scale_into, "void(float32[:], float32[::1])")
    assert ret == t.none and ".visible .entry" in ptx and ".target sm_" in ptx
    assemble(ptx, tmp_path=tmp_path)
    ptx, ret = cuda.compile_ptx(norm2.py_func, (float32, int32), device=True)
    assert ret == float64 and ".visible .func" in ptx  # float32 + int32 squares promote to float64
    assemble(ptx, tmp_path=tmp_path)
    ptx, ret = cuda.compile_ptx(square, "int64(int32)", device=True)  # a dispatcher is taken too
    assert ret == int64
    assemble(ptx, tmp_path=tmp_path)


def test_compile_ptx_for_current_device_targets_its_compute_capability(tmp_path):
    cc = cuda.get_current_device().compute_capability
    ptx, ret = cuda.compile_ptx_for_current_device(scale_into, "void(float32[:], float32[::1])")
    assert f".target sm_{cc[0]}{cc[1]}" in ptx and ret == t.none
    assemble(ptx, cc, tmp_path=tmp_path)


@pytest.mark.parametrize("cc", [(7, 5), (8, 0), (8, 6), (8, 9), (9, 0)])
def test_cc_picks_the_target(cc, tmp_path):
    ptx, _ = cuda.compile_ptx(divide, "void(float32[::1], float32[::1], float32[::1])", cc=cc)
    assert re.search(rf"^\.target sm_{cc[0]}{cc[1]}\b", ptx, re.M)
    assemble(ptx, cc, tmp_path=tmp_path)


def _instructions(ptx):
    return {line.split()[0] for line in ptx.splitlines() if line.strip() and not line.strip().startswith(("//", "."))}


def test_fastmath_uses_approximate_flush_to_zero_instructions(tmp_path):
    sig = "void(float32[::1], float32[::1], float32[::1])"
    exact, _ = cuda.compile_ptx(divide, sig)
    fast, _ = cuda.compile_ptx(divide, sig, fastmath=True)
    assert "div.rn.f32" in _instructions(exact) and not any(".ftz" in i for i in _instructions(exact) if "div" in i)
    assert "div.approx.ftz.f32" in _instructions(fast) and "div.rn.f32" not in _instructions(fast)
    assert any(i.endswith(".ftz.f32") and not i.startswith("div") for i in _instructions(fast))
    # The decorator's option does the same.
    k = cuda.jit(fastmath=True)(divide)
    assert "div.approx.ftz.f32" in _instructions(k.compile(sig).ptx)
    for ptx in (exact, fast):
        assemble(ptx, tmp_path=tmp_path)


def test_lineinfo_emits_line_directives_naming_this_file(tmp_path):
    sig = "void(float32[:], float32[::1])"
    plain, _ = cuda.compile_ptx(scale_into, sig)
    lined, _ = cuda.compile_ptx(scale_into, sig, lineinfo=True)
    assert ".loc" not in plain and ".file" not in plain
    assert re.search(r"^\s*\.file\s+\d+\s+\".*test_api\.py\"", lined, re.M)
    first = scale_into.__code__.co_firstlineno
    lines = {int(m) for m in re.findall(r"^\s*\.loc\s+\d+\s+(\d+)\s+\d+", lined, re.M)}
    assert {first + 2, first + 3} <= lines  # the if and the store
    assert ".section\t.debug_info" not in lined  # line tables only
    k = cuda.jit(lineinfo=True)(scale_into)
    assert ".loc" in k.compile(sig).ptx
    for ptx in (plain, lined):
        assemble(ptx, tmp_path=tmp_path)


def test_debug_emits_line_directives_and_debug_sections(tmp_path):
    ptx, _ = cuda.compile_ptx(scale_into, "void(float32[:], float32[::1])", debug=True, opt=False)
    assert ".loc" in ptx and ".file" in ptx and ".debug_info" in ptx
    assemble(ptx, tmp_path=tmp_path)


def _code(ptx):
    """PTX without its comments (LLVM numbers call sequences per process)."""
    return [line.split("//")[0] for line in ptx.splitlines()]


def test_opt_false_is_unoptimised_code(tmp_path):
    sig = "void(float32[::1], float32[::1], float32[::1])"
    optimised, _ = cuda.compile_ptx(divide, sig)
    plain, _ = cuda.compile_ptx(divide, sig, opt=False)
    assert plain != optimised
    assert len(plain.splitlines()) > len(optimised.splitlines())
    assert "__local_depot" in plain and "__local_depot" not in optimised  # allocas left in place
    assert _code(cuda.jit(opt=False)(divide).compile(sig).ptx) == _code(plain)
    for ptx in (plain, optimised):
        assemble(ptx, tmp_path=tmp_path)


def test_a_kept_code_generator_declares_each_kernels_own_shared_arrays(tmp_path):
    """NVPTX's code generator is kept per thread (emit.cpp), and its printer remembers the
    shared arrays it declares inside a function by the function's address, never forgetting
    them: each kernel's PTX declares exactly its own arrays, compiled first or after hundreds
    of others (more than the 32 modules the kept generator holds on to), with the same code
    each time. Without the modules kept alive this child crashes within three rounds."""
    child = os.path.join(os.path.dirname(__file__), "kept_codegen_child.py")
    r = subprocess.run([sys.executable, child, str(tmp_path), "6"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got == {"compiles": 270, "wrong": [], "same": True}


def register_hungry(out, x):
    i = cuda.grid(1)
    a0, a1, a2, a3, a4, a5, a6, a7 = x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]
    b0, b1, b2, b3, b4, b5, b6, b7 = x[8], x[9], x[10], x[11], x[12], x[13], x[14], x[15]
    for k in range(x.size):
        a0 = a0 * b1 + a1
        a1 = a1 * b2 + a2
        a2 = a2 * b3 + a3
        a3 = a3 * b4 + a4
        a4 = a4 * b5 + a5
        a5 = a5 * b6 + a6
        a6 = a6 * b7 + a7
        a7 = a7 * b0 + a0
        b0 = b0 * a1 + x[k]
        b1 = b1 * a2 + b0
        b2 = b2 * a3 + b1
        b3 = b3 * a4 + b2
        b4 = b4 * a5 + b3
        b5 = b5 * a6 + b4
        b6 = b6 * a7 + b5
        b7 = b7 * a0 + b6
    out[i] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + b0 + b1 + b2 + b3 + b4 + b5 + b6 + b7


def test_max_registers_limits_the_registers_ptxas_allocates(tmp_path):
    sig = "void(float64[::1], float64[::1])"
    free = cuda.jit(register_hungry).compile(sig).ptx
    capped = cuda.jit(max_registers=24)(register_hungry).compile(sig).ptx
    assert ".maxnreg" not in free
    assert re.search(r"^\.maxnreg 24$", capped, re.M)
    used = [int(re.search(r"Used (\d+) registers", assemble(p, tmp_path=tmp_path, verbose=True)).group(1))
            for p in (free, capped)]
    assert used[0] > 24 >= used[1], used


def grid_stride_copy(a, c):
    for i in range(cuda.grid(1), c.size, cuda.gridsize(1)):
        c[i] = a[i]


def test_grid_stride_loops_keep_few_registers(tmp_path):
    # LLVM's loop strength reduction gave each access of the unrolled loop its own pointer on NVPTX
    # (56 registers, half the occupancy, 0.51x the copy bandwidth on an H200); it is off for NVPTX
    # alone (numba-cuda's NVVM: 28). The host's code generation, which keeps it, still works after.
    ptx = cuda.jit(grid_stride_copy).compile("void(float32[::1], float32[::1])").ptx
    used = int(re.search(r"Used (\d+) registers", assemble(ptx, tmp_path=tmp_path, verbose=True)).group(1))
    assert used <= 32, used
    assert ptx.count("ld.global") >= 4  # still unrolled: several loads in flight
    a = np.arange(1000, dtype=np.float32)
    c = np.zeros_like(a)
    cuda.jit(grid_stride_copy)[4, 32](a, c)
    np.testing.assert_array_equal(c, a)


def test_max_registers_kernels_run():
    k = cuda.jit(max_registers=24)(register_hungry)
    x = np.full(16, 0.01)
    out = np.zeros(1)
    k[1, 1](out, x)
    ref = np.zeros(1)
    cuda.jit(register_hungry)[1, 1](ref, x)
    assert out[0] == ref[0] and np.isfinite(out[0])


@pytest.mark.no_ptxas  # the check is this test's own
def test_kernels_with_many_parameters_give_ptx_that_assembles_or_a_typing_error(tmp_path):
    params = ", ".join(f"p{i}" for i in range(80))
    namespace = {}
    path = tmp_path / "many.py"
    path.write_text(f"def many({params}):\n    p0[0, 0, 0] = p79[0, 0, 0]\n")
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # noqa: S102
    sig = "void(" + ", ".join(["float64[:, :, :]"] * 80) + ")"  # 80 x 7 slots x 8 bytes = 4480 bytes
    # PTX .version 7.8 allows 4352 bytes of kernel parameters: refused up front.
    with pytest.raises(cuda.TypingError, match="4480 bytes of parameters"):
        cuda.compile_ptx(namespace["many"], sig)
    # Exactly at the limit: 2 + 75 3-D arrays (7 slots), 2 complex128 (2 slots), 1 float64: 544 slots.
    at_limit = ["float64[:, :, :]"] + ["float64[:, :, :]"] * 75 + ["complex128"] * 2 + ["float64", "float64[:, :, :]"]
    ptx, _ = cuda.compile_ptx(namespace["many"], "void(" + ", ".join(at_limit) + ")")
    assemble(ptx, tmp_path=tmp_path)


# --- specialize, definitions, inspect_* ---------------------------------------------------------------------


def test_specialize_makes_a_dispatcher_for_exactly_those_types():
    k = cuda.jit(scale_into)
    x = np.arange(5, dtype=np.float32)
    out = np.zeros_like(x)
    s = k.specialize(out, x)
    assert s.specialized and not k.specialized
    assert list(s.definitions) == [(float32[::1], float32[::1])]
    assert k.specialize(out, x) is s
    s[1, 8](out, x)
    np.testing.assert_array_equal(out, 2 * x)
    with pytest.raises(TypeError, match="no matching definition"):
        s[1, 8](out.astype(np.float64), x)
    with pytest.raises(RuntimeError, match="already specialized"):
        s.specialize(out, x)
    assert len(s.definitions) == 1


def test_definitions_are_keyed_by_argument_types():
    k = cuda.jit(scale_into)
    a32 = np.arange(4, dtype=np.float32)
    a64 = np.arange(4, dtype=np.float64)
    k[1, 4](np.zeros_like(a32), a32)
    k[1, 4](np.zeros_like(a64), a64[::-1])
    assert set(k.definitions) == {(float32[::1], float32[::1]), (float64[::1], float64[:])}
    assert k.signatures == list(k.definitions) and k.overloads == k.definitions
    for args, cf in k.definitions.items():
        assert all(isinstance(a, t.Type) for a in args)
        assert cf.arg_specs == [a.spec for a in args]


def test_inspect_types_prints_each_typed_specialisation():
    k = cuda.jit(["void(float32[::1], float32[::1])", "void(int64[::1], int64[::1])"])(scale_into)
    out = io.StringIO()
    k.inspect_types(file=out)
    text = out.getvalue()
    assert "scale_into (array(float32, 1d, C), array(float32, 1d, C))" in text
    assert "scale_into (array(int64, 1d, C), array(int64, 1d, C))" in text
    assert "i :: int64" in text and "array_store" in text
    one = io.StringIO()
    k.inspect_types(file=one, signature="void(int64[::1], int64[::1])")
    assert "int64, 1d" in one.getvalue() and "float32" not in one.getvalue()
    with pytest.raises(KeyError, match="no definition"):
        k.inspect_types(file=io.StringIO(), signature="void(int8[::1], int8[::1])")


def test_inspect_llvm_and_inspect_asm(tmp_path):
    k = cuda.jit(["void(float32[::1], float32[::1])", "void(float64[::1], float64[::1])"])(scale_into)
    llvm = k.inspect_llvm()
    asm = k.inspect_asm()
    assert set(llvm) == set(asm) == set(k.definitions)
    for text in llvm.values():
        assert "define" in text and "target triple" in text
    one = k.inspect_llvm((float64[::1], float64[::1]))
    assert "double" in one and isinstance(one, str)
    for ptx in asm.values():
        assert ".visible .entry" in ptx
        assemble(ptx, tmp_path=tmp_path)
    assert "f64" in k.inspect_asm("void(float64[::1], float64[::1])")


# --- dispatch: one compile per argument types -----------------------------------------------------------------


@pytest.fixture
def compiles(monkeypatch):
    """The argument specs of every compile the dispatchers ask for."""
    seen = []
    real = _core.compile

    def counting(ir, specs, *args, **kwargs):
        seen.append(tuple(specs))
        return real(ir, specs, *args, **kwargs)

    monkeypatch.setattr(_core, "compile", counting)
    return seen


def test_each_combination_of_argument_types_compiles_once(compiles):
    k = cuda.jit(scale_into)
    a = np.arange(8, dtype=np.float32)
    k[1, 8](np.zeros_like(a), a)
    k[1, 8](np.zeros_like(a), a)  # same types
    k[1, 8](np.zeros(8, np.float32), np.ones(8, np.float32))  # same types, other arrays
    assert len(compiles) == 1 and len(k.definitions) == 1
    k[1, 8](np.zeros(8), a)  # float64 output
    k[1, 8](np.zeros_like(a), a[::2])  # a non-contiguous input
    k[1, 8](np.zeros_like(a), np.arange(8, dtype=np.float32).reshape(2, 4)[0])  # C-contiguous again
    assert len(compiles) == 3 and len(k.definitions) == 3
    d = cuda.to_device(a)
    k[1, 8](cuda.device_array_like(a), d)  # device arrays type like the NumPy arrays they mirror
    assert len(compiles) == 3


def test_scalars_type_by_their_python_or_numpy_type(compiles):
    @cuda.jit
    def store(out, v):
        out[0] = v
        v = v + 1  # a local copy: the caller's value is not affected
        out[1] = v

    out = np.zeros(2, np.complex128)
    for v, spec, first in [(3, "int64", 3), (2.5, "float64", 2.5), (1j, "complex128", 1j), (True, "bool", 1),
                           (np.float32(1.5), "float32", 1.5), (np.int8(-7), "int8", -7),
                           (np.uint64(2**63), "uint64", 2**63), (2**63, "uint64", 2**63)]:
        store[1, 1](out, v)
        assert compiles[-1][1] == spec
        assert out[0] == first and out[1] == first + 1
    assert len(compiles) == len(store.definitions) == 7  # 2**63 and np.uint64 share uint64


# --- dispatch: what is copied ---------------------------------------------------------------------------------


@cuda.jit
def double_first(out, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = 2 * x[i]


def test_a_read_only_numpy_input_is_read_and_not_written_back():
    x = np.arange(16, dtype=np.float64)
    x.flags.writeable = False
    out = np.zeros(16)
    double_first[1, 16](out, x)
    np.testing.assert_array_equal(out, 2 * x)
    (cf,) = [cf for args, cf in double_first.definitions.items() if args[1].readonly]
    assert cf.writes_arg == [True, False]


def test_an_input_the_kernel_does_not_write_is_not_copied_back():
    """The same NumPy array as the written output and the read input: each
    gets its own device copy; were the input's copy written back after the
    output's, the result would be lost."""
    a = np.arange(16, dtype=np.float64)
    double_first[1, 16](a, a)
    np.testing.assert_array_equal(a, 2 * np.arange(16))
    b = np.arange(16, dtype=np.float64)
    double_first[1, 16](b[::-1], b)  # a view: written back through its strides
    np.testing.assert_array_equal(b, 2 * np.arange(16)[::-1])


@cuda.jit(device=True)
def _put(arr, i, v):
    arr[i] = v


@cuda.jit
def write_through_callee(out, x):
    i = cuda.grid(1)
    if i < out.size:
        _put(out, i, x[i] + 1)


def test_writes_through_a_device_function_are_copied_back():
    x = np.arange(8, dtype=np.int64)
    out = np.zeros(8, np.int64)
    write_through_callee[1, 8](out, x)
    np.testing.assert_array_equal(out, x + 1)
    (cf,) = write_through_callee.definitions.values()
    assert cf.writes_arg == [True, False]


def test_a_read_only_array_cannot_be_written():
    out = np.zeros(4)
    out.flags.writeable = False
    with pytest.raises(cuda.TypingError, match="read-only"):
        double_first[1, 4](out, np.ones(4))
    assert (out == 0).all()


def test_device_arrays_are_used_in_place():
    x = np.arange(32, dtype=np.float32)
    d_x = cuda.to_device(x)
    d_out = cuda.device_array(64, np.float32)
    d_out[:] = 0
    view = d_out[16:48]  # a view: the kernel writes into the parent's memory
    double_first[1, 32](view, d_x)
    host = d_out.copy_to_host()
    np.testing.assert_array_equal(host[16:48], 2 * x)
    assert (host[:16] == 0).all() and (host[48:] == 0).all()
    np.testing.assert_array_equal(d_x.copy_to_host(), x)  # the input is untouched


class CudaArrayInterfaceProducer:
    """A third-party array: only ``__cuda_array_interface__``. On the cpu
    backend device memory is host memory, and docs/interop.md lets the
    interface describe it; on a GPU it describes a device allocation."""

    def __init__(self, desc, owner):
        self.__cuda_array_interface__ = desc
        self.owner = owner


def _producer_over(host):
    """(producer, read back): a CAI producer holding ``host``'s values."""
    if cuda.backend() == "cuda":
        d = cuda.to_device(host)
        return CudaArrayInterfaceProducer(d.__cuda_array_interface__, d), d.copy_to_host
    desc = dict(shape=host.shape, typestr=host.dtype.str, data=(host.ctypes.data, False), strides=None, version=3,
                stream=None)
    return CudaArrayInterfaceProducer(desc, host), lambda: (cuda.synchronize(), host)[1]  # launches are async


def test_cuda_array_interface_producers_are_kernel_arguments_without_copies():
    x = np.arange(32, dtype=np.float64)
    out = np.zeros(32)
    p_x, _ = _producer_over(x)
    p_out, read = _producer_over(out)
    double_first[1, 32](p_out, p_x)
    np.testing.assert_array_equal(read(), 2 * x)
    if cuda.backend() != "cuda":
        np.testing.assert_array_equal(out, 2 * x)  # zero-copy: written in the producer's own memory


class DLPackOnly:
    """A third-party array speaking only DLPack."""

    def __init__(self, arr):
        self._arr = arr

    def __dlpack__(self, **kwargs):
        return self._arr.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._arr.__dlpack_device__()


def test_dlpack_producers_are_kernel_arguments():
    x = np.arange(32, dtype=np.float64)
    out = np.zeros(32)
    double_first[1, 32](DLPackOnly(out), DLPackOnly(x))  # host producers: NumPy's view, copied in and back
    np.testing.assert_array_equal(out, 2 * x)
    d_out = cuda.from_dlpack(np.zeros(32)) if cuda.backend() != "cuda" else cuda.device_array(32)
    double_first[1, 32](d_out, cuda.from_dlpack(x) if cuda.backend() != "cuda" else cuda.to_device(x))
    np.testing.assert_array_equal(d_out.copy_to_host(), 2 * x)
    d_x = cuda.to_device(x)
    out[:] = 0
    double_first[1, 32](out, DLPackOnly(d_x))  # our device array through its own __dlpack__
    np.testing.assert_array_equal(out, 2 * x)


@pytest.mark.skipif(cuda.backend() == "cuda", reason="host memory is device memory on the cpu backend only")
def test_from_dlpack_of_numpy_shares_memory_with_the_kernel():
    host = np.zeros(32)
    double_first[1, 32](cuda.from_dlpack(host), np.arange(32.0))
    cuda.synchronize()  # the launch is asynchronous, as on a GPU
    np.testing.assert_array_equal(host, 2 * np.arange(32.0))


def test_tuples_of_scalars_are_arguments():
    @cuda.jit
    def spread(out, t):
        out[0] = t[0]
        out[1] = t[1]
        out[2] = t[2][0]

    out = np.zeros(3)
    spread[1, 1](out, (1.5, 2, (3.25,)))
    np.testing.assert_array_equal(out, [1.5, 2, 3.25])


# --- on a GPU -----------------------------------------------------------------------------------------------


@pytest.mark.gpu
def test_on_a_gpu_the_options_load_and_run():
    x = np.linspace(1, 2, 256).astype(np.float32)
    for options in (dict(fastmath=True), dict(lineinfo=True), dict(opt=False), dict(max_registers=32),
                    dict(debug=True, opt=False)):
        k = cuda.jit(**options)(divide)
        out = np.zeros_like(x)
        k[2, 128](out, x, x)
        np.testing.assert_allclose(out, 1 + np.sqrt(x), rtol=1e-5)


@pytest.mark.gpu
def test_on_a_gpu_the_current_device_ptx_loads():
    ptx, _ = cuda.compile_ptx_for_current_device(scale_into, "void(float32[:], float32[::1])")
    assert ".entry" in ptx
    k = cuda.jit(scale_into)
    x = np.arange(10, dtype=np.float32)
    d = cuda.device_array_like(x)
    k[1, 32](d, cuda.to_device(x))
    np.testing.assert_array_equal(d.copy_to_host(), 2 * x)
