"""cuda.jit: the decorator's forms and options, the dispatcher's face,
launch configurations, compile_ptx; and, once the C++ typer and code
generation exist, compiling and launching through them."""

import io
import warnings

import numpy as np
import pytest

from compiler_support import CODEGEN_READY, TYPER_READY, needs_codegen, needs_typer
import cuforge
from cuforge import _core, cuda
from cuforge import types as t
from cuforge.cuda import _jit
from cuforge.types import float32, float64, int64, void


def add_kernel(r, x, y):
    """Adds."""
    i = cuda.grid(1)
    if i < r.size:
        r[i] = x[i] + y[i]


def scale_device(x, s):
    return x * s


def kernel_with_typing_error(a):
    a[0] = a.no_such_attribute_xyz


# --- forms ------------------------------------------------------------------------------------


def test_bare_decorator_makes_a_lazy_kernel():
    k = cuda.jit(add_kernel)
    assert isinstance(k, cuda.Dispatcher)
    assert k.py_func is add_kernel and k.__wrapped__ is add_kernel
    assert k.__name__ == "add_kernel" and k.__doc__ == "Adds." and k.__module__ == __name__
    assert not k.device and not k.specialized
    assert k.definitions == {} and k.signatures == []
    assert repr(k) == f"<cuforge.cuda.jit kernel {__name__}.add_kernel>"


def test_decorator_with_parentheses_and_options():
    k = cuda.jit()(add_kernel)
    assert isinstance(k, cuda.Dispatcher) and not k.device
    k = cuda.jit(debug=True, lineinfo=True, fastmath=True, max_registers=32, cache=True)(add_kernel)
    o = k.targetoptions
    assert (o["debug"], o["opt"], o["lineinfo"], o["fastmath"], o["max_registers"], o["cache"]) == (
        True, False, True, True, 32, True)
    assert k._options.as_dict() == {"debug": True, "lineinfo": True, "fastmath": True, "opt": False,
                                    "max_registers": 32, "boundscheck": False}
    assert cuda.jit(add_kernel)._options.as_dict() == {"debug": False, "lineinfo": False, "fastmath": False,
                                                        "opt": True, "boundscheck": False}
    # The C++ configuration they make: the active backend's target, every option.
    config = k._options.config()
    assert (config.fastmath, config.debug_level, config.lineinfo, config.opt, config.max_registers) == (
        True, 1, True, False, 32)
    assert config.target == ("nvptx" if cuforge.backend() == "cuda" else "host")
    assert k._options.config("nvptx").key.startswith("nvptx sm_90 ")
    assert config == k._options.config() and hash(config) == hash(k._options.config())
    assert config != cuda.jit(add_kernel)._options.config()


def test_device_functions():
    d = cuda.jit(device=True)(scale_device)
    assert d.device and d.targetoptions["device"] is True
    assert repr(d).startswith("<cuforge.cuda.jit device function")
    assert d.function_ir.dump() == "def scale_device(x, s):\n    return (x * s)\n"


def test_inline_launch_bounds_and_lto_are_accepted():
    k = cuda.jit(inline=True, forceinline=True, launch_bounds=(128, 2), lto=False)(add_kernel)
    assert k.targetoptions["launch_bounds"] == (128, 2)


def test_launch_bounds_are_in_the_ptx_and_bound_the_launch(tmp_path):
    import os
    import re
    import subprocess

    sig = "void(float32[:], float32[:], float32[:])"
    ptx = cuda.compile_ptx(add_kernel, sig, launch_bounds=(128, 2))[0]
    assert re.search(r"^\.maxntid 128, 1, 1$", ptx, re.M) and re.search(r"^\.minnctapersm 2$", ptx, re.M)
    assert ".maxclusterrank" not in ptx
    clustered = cuda.compile_ptx(add_kernel, sig, launch_bounds=(256, 1, 4), cc=(9, 0))[0]
    assert re.search(r"^\.maxclusterrank 4$", clustered, re.M)
    plain = cuda.compile_ptx(add_kernel, sig)[0]
    assert ".maxntid" not in plain and ".minnctapersm" not in plain
    # ptxas takes them (the suite's fixture assembles every launched kernel; compile_ptx's are checked here)
    ptxas = "/usr/local/cuda/bin/ptxas"
    for i, p in enumerate((ptx, clustered) if os.path.exists(ptxas) else ()):
        path = tmp_path / f"k{i}.ptx"
        path.write_text(p)
        r = subprocess.run([ptxas, "-arch=sm_90", str(path), "-o", str(tmp_path / "k.cubin")], capture_output=True,
                           text=True)
        assert r.returncode == 0, r.stderr
    k = cuda.jit(launch_bounds=128)(add_kernel)
    x = np.arange(256, dtype=np.float32)
    r = np.zeros_like(x)
    k[2, 128](r, x, x)
    assert np.array_equal(r, 2 * x)
    with pytest.raises(Exception, match="launch_bounds allow at most 128"):
        k[1, 256](r, x, x)  # refused on every backend, as the driver refuses it on a GPU
    k.forall(256)(r, x, x)  # forall keeps inside the bound


@pytest.mark.parametrize("bounds, error, match", [
    ((1, 2, 3, 4), ValueError, "A maximum of three"),
    (0, ValueError, "positive"),
    (2048, ValueError, "at most 1024"),
    ("128", TypeError, "an int or a tuple"),
    ((128, 1.5), TypeError, "an int or a tuple"),
])
def test_bad_launch_bounds(bounds, error, match):
    with pytest.raises(error, match=match):
        cuda.jit(launch_bounds=bounds)(add_kernel)


def test_a_cluster_bound_needs_sm_90():
    with pytest.raises(Exception, match="compute capability 9.0"):
        cuda.compile_ptx(add_kernel, "void(float32[:], float32[:], float32[:])", launch_bounds=(128, 1, 2), cc=(8, 0))


def test_jit_of_a_dispatcher_rejits_its_function():
    k = cuda.jit(debug=True, opt=False)(cuda.jit(add_kernel))
    assert k.py_func is add_kernel and k.targetoptions["debug"]


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"link": ["no_such_shim.cu"]}, FileNotFoundError, "the file to link 'no_such_shim.cu' does not exist"),
        ({"link": [3]}, TypeError, "cannot link 3"),
        ({"link": ["shim.cu"], "device": True}, ValueError, "link keyword invalid for device function"),
        ({"extensions": [object()]}, TypeError, "has no prepare_args"),
        ({"extensions": object()}, TypeError, "takes a list of argument handlers"),
        ({"argtypes": (float32,)}, TypeError, "argtypes"),
        ({"restype": float32}, TypeError, "restype"),
        ({"fast_math": True}, TypeError, "unexpected keyword argument 'fast_math'"),
        ({"max_registers": 0}, ValueError, "max_registers"),
        ({"max_registers": True}, ValueError, "max_registers"),
    ],
)
def test_options_refused(kwargs, error, match):
    with pytest.raises(error, match=match):
        cuda.jit(**kwargs)


def test_debug_with_opt_warns():
    with pytest.warns(UserWarning, match="debug=True with opt=True"):
        cuda.jit(debug=True, opt=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cuda.jit(debug=True)  # opt defaults to False with debug


@pytest.mark.parametrize("bad", [3, "not a signature(", float32, [void(float32), 3]])
def test_bad_first_arguments(bad):
    with pytest.raises((TypeError, ValueError)):
        cuda.jit(bad)


@pytest.mark.parametrize("sig", ["float32(float32[:])", float32(float32[:]), ["void(float32)", "int64(int64)"]])
def test_kernels_must_return_void(sig):
    with pytest.raises(TypeError, match="CUDA kernel must have void return type."):
        cuda.jit(sig)


def test_kernel_signatures_may_omit_the_return_type():
    # (args only) and void are both fine: the error, if any, is the compiler's.
    for sig in [(float32[:],), "void(float32[:])", void(float32[:]), [(float32[:],), "(float64[:],)"]]:
        decorate = cuda.jit(sig)
        assert callable(decorate)


# --- eager compilation (needs the typer) ---------------------------------------------------------


def test_eager_signatures_compile_now_or_fail_clearly():
    decorate = cuda.jit("void(float32[::1], float32[::1], float32[::1])")
    if TYPER_READY:
        k = decorate(add_kernel)
        assert list(k.definitions) == [(float32[::1],) * 3]
        assert k.specialized
    else:
        with pytest.raises(cuda.TypingError, match="not built yet"):
            decorate(add_kernel)


@needs_typer
def test_eager_signature_lists():
    k = cuda.jit(["void(float32[::1], float32[::1], float32[::1])", (float64[:], float64[:], float64[:])])(
        add_kernel)
    assert set(k.definitions) == {(float32[::1],) * 3, (float64[:],) * 3}
    assert not k.specialized
    assert set(k.inspect_asm()) == set(k.definitions) if CODEGEN_READY else True
    with pytest.raises(RuntimeError, match="Compilation disabled"):
        k.compile("void(int64[:], int64[:], int64[:])")


@needs_typer
def test_eager_device_functions():
    d = cuda.jit("float64(float64, float64)", device=True)(scale_device)
    (cf,) = d.definitions.values()
    assert cf.return_spec == "float64"
    out = io.StringIO()
    d.inspect_types(file=out)
    assert out.getvalue().startswith("scale_device (float64, float64)\n" + "-" * 80)


@needs_typer
def test_compile_returns_the_existing_definition():
    k = cuda.jit(add_kernel)
    a = k.compile((float32[::1],) * 3)
    assert k.compile("void(float32[::1], float32[::1], float32[::1])") is a
    assert k.definitions[(float32[::1],) * 3] is a


# --- the typer's errors are the walker's class ----------------------------------------------------


def test_cpp_typing_errors_are_cuda_typing_errors():
    ir = _jit.build_ir(kernel_with_typing_error)
    with pytest.raises(cuda.TypingError) as info:
        _core.compile(ir, ["array(float32, 1d, C)"], _core.CompileConfig(), False)
    e = info.value
    assert isinstance(e, TypeError)
    assert e.filename == __file__ and isinstance(e.lineno, int) and e.msg
    assert f'File "{__file__}", line {e.lineno}, in kernel_with_typing_error:' in str(e)


# --- launching -----------------------------------------------------------------------------------


def test_calling_a_kernel_without_a_configuration():
    with pytest.raises(ValueError, match="Kernel launch configuration was not specified"):
        cuda.jit(add_kernel)(1, 2, 3)


def test_calling_a_device_function_from_the_host():
    d = cuda.jit(device=True)(scale_device)
    with pytest.raises(ValueError, match="device function .* only be called from a kernel"):
        d(1.0, 2.0)
    with pytest.raises(TypeError, match="cannot be launched"):
        d[1, 1]
    with pytest.raises(TypeError, match="cannot be launched"):
        d.forall(10)
    with pytest.raises(TypeError, match="only kernels are specialised"):
        d.specialize(1.0, 2.0)


@pytest.mark.parametrize(
    "config, griddim, blockdim, stream, shared",
    [
        ((1, 32), (1, 1, 1), (32, 1, 1), 0, 0),
        (((2, 3), (4, 5, 6)), (2, 3, 1), (4, 5, 6), 0, 0),
        (([7], [8, 9]), (7, 1, 1), (8, 9, 1), 0, 0),
        ((np.int64(3), np.uint32(64), None), (3, 1, 1), (64, 1, 1), None, 0),
        ((1, 32, 0, 1024), (1, 1, 1), (32, 1, 1), 0, 1024),
    ],
)
def test_launch_configurations(config, griddim, blockdim, stream, shared):
    launcher = cuda.jit(add_kernel)[config]
    assert (launcher.griddim, launcher.blockdim, launcher.stream, launcher.sharedmem) == (
        griddim, blockdim, stream, shared)


def test_launch_configuration_with_a_stream_object():
    s = cuda.stream()
    launcher = cuda.jit(add_kernel)[2, 64, s, 16]
    assert launcher.stream is s and launcher.sharedmem == 16


@pytest.mark.parametrize("config", [1, (1,), (1, 2, 0, 0, 5)])
def test_launch_configurations_need_two_to_four_items(config):
    with pytest.raises(ValueError, match="griddim and blockdim"):
        cuda.jit(add_kernel)[config]


@pytest.mark.parametrize("dim, error", [((1, 2, 3, 4), ValueError), (1.5, TypeError), ((2, "x"), TypeError),
                                        (True, TypeError), ((), ValueError)])
def test_bad_dimensions_are_named(dim, error):
    launcher = cuda.jit(add_kernel)[dim, 32]
    with pytest.raises(error, match="griddim"):
        launcher.griddim
    with pytest.raises(ValueError, match="Kernel launch configuration"):
        cuda.jit(add_kernel)[None, 32]


def test_forall_configurations():
    k = cuda.jit(add_kernel)
    f = k.forall(1000)
    assert (f.griddim, f.blockdim) == (4, 256)
    f = k.forall(1000, tpb=128)
    assert (f.griddim, f.blockdim) == (8, 128)
    assert k.forall(1).griddim == 1
    with pytest.raises(ValueError, match="negative task count"):
        k.forall(-1)
    assert k.forall(0)(None, None, None) is None  # nothing to launch, nothing compiled
    assert k.definitions == {}


def test_launches_compile_through_the_callback(monkeypatch):
    """The launcher calls back with argument specs; the callback compiles
    the IR with the dispatcher's options (checked with a stand-in compiler)."""
    seen = []

    def fake_compile(ir, specs, options, device, ret_spec=None):
        seen.append((ir.name, list(specs), options, device))
        raise RuntimeError("stop here")

    monkeypatch.setattr(_core, "compile", fake_compile)
    k = cuda.jit(fastmath=True)(add_kernel)
    a = np.zeros(4, np.float32)
    with pytest.raises(RuntimeError, match="stop here"):
        k[1, 4](a, a, np.zeros(4))
    ((name, specs, options, device),) = seen
    assert name == "add_kernel" and device is False
    assert specs == ["array(float32, 1d, C)", "array(float32, 1d, C)", "array(float64, 1d, C)"]
    assert options.fastmath is True and options.opt is True
    # The active backend's target: PTX for the current GPU, or this CPU's code.
    assert options.target == ("nvptx" if cuda.backend() == "cuda" else "host")


def test_specialize_compiles_for_the_arguments_types(monkeypatch):
    made = []

    class FakeCompiled:
        def __init__(self, specs):
            self.specs = specs

    def fake_compile(ir, specs, options, device, ret_spec=None):
        made.append(list(specs))
        raise RuntimeError("compiled " + ", ".join(specs))

    monkeypatch.setattr(_core, "compile", fake_compile)
    k = cuda.jit(add_kernel)
    with pytest.raises(RuntimeError, match=r"compiled array\(float64, 2d, F\), int64, float64"):
        k.specialize(np.zeros((2, 2)).T, 1, 2.0)
    assert made == [["array(float64, 2d, F)", "int64", "float64"]]


def test_compile_ptx_checks_before_compiling(monkeypatch):
    with pytest.raises(TypeError, match="CUDA kernel must have void return type."):
        cuda.compile_ptx(add_kernel, "float32(float32[:], float32[:], float32[:])")
    with pytest.raises(NotImplementedError, match="The C ABI is not supported for kernels"):
        cuda.compile_ptx(add_kernel, "void(float32[:], float32[:], float32[:])", abi="c")
    seen = []
    monkeypatch.setattr(_core, "compile", lambda ir, specs, options, device, ret_spec=None: seen.append((specs, options, device)))
    with pytest.raises(AttributeError):  # None has no .ptx: the stand-in returns nothing
        cuda.compile_ptx(scale_device, "float32(float32, int64)", device=True, cc=(8, 0), fastmath=True,
                         lineinfo=True)
    assert seen == [(["float32", "int64"], _core.CompileConfig(target="nvptx", cc=(8, 0), lineinfo=True, fastmath=True),
                     True)]


@needs_codegen
def test_compile_ptx():
    ptx, resty = cuda.compile_ptx(add_kernel, "void(float32[::1], float32[::1], float32[::1])")
    assert ".entry" in ptx and resty == t.none
    ptx, resty = cuda.compile_ptx(scale_device, "float32(float32, float32)", device=True)
    assert ".func" in ptx and resty == float32
    ptx, _ = cuda.compile_ptx_for_current_device(add_kernel, (float32[::1],) * 3)
    assert ".entry" in ptx


@needs_codegen
def test_vector_add_runs():
    k = cuda.jit(add_kernel)
    x = np.arange(100, dtype=np.float32)
    y = 2 * x
    r = np.zeros_like(x)
    k[4, 32](r, x, y)
    np.testing.assert_array_equal(r, x + y)
    assert list(k.definitions) == [(float32[::1],) * 3]
    assert isinstance(k.inspect_llvm()[(float32[::1],) * 3], str)
    out = io.StringIO()
    k.inspect_types(file=out)
    assert "add_kernel (array(float32, 1d, C)" in out.getvalue()


@needs_codegen
def test_forall_and_specialize_run():
    k = cuda.jit(add_kernel)
    x = np.arange(1000, dtype=np.float64)
    r = np.zeros_like(x)
    k.forall(len(x))(r, x, x)
    np.testing.assert_array_equal(r, 2 * x)
    s = k.specialize(r, x, x)
    assert s.specialized and k.specialize(r, x, x) is s
    with pytest.raises(RuntimeError, match="already specialized"):
        s.specialize(r, x, x)
    r[:] = 0
    s[8, 128](r, x, x)
    np.testing.assert_array_equal(r, 2 * x)


@needs_codegen
def test_device_functions_called_from_kernels_run():
    scale = cuda.jit(device=True)(scale_device)

    @cuda.jit
    def kernel(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = scale(a[i], 3)

    a = np.arange(10, dtype=np.int64)
    kernel[1, 32](a)
    np.testing.assert_array_equal(a, 3 * np.arange(10))


@needs_codegen
def test_eager_signatures_refuse_other_arguments():
    k = cuda.jit("void(float32[::1], float32[::1], float32[::1])")(add_kernel)
    a = np.zeros(3, np.int8)
    with pytest.raises(TypeError, match="no matching definition"):
        k[1, 3](a, a, a)


def test_stub_calls_on_the_host_raise():
    with pytest.raises(TypeError, match=r"cuda.grid\(\) can only be used inside"):
        cuda.grid(1)
    with pytest.raises(TypeError, match=r"cuda.atomic.add\(\) can only be used inside"):
        cuda.atomic.add(np.zeros(1), 0, 1)
    with pytest.raises(AttributeError):
        cuda.threadIdx.w
    assert {"x", "y", "z"} <= set(dir(cuda.threadIdx))


# --- resources, as numba-cuda's dispatcher reports them ----------------------------------------------


@cuda.jit
def uses_shared(a):
    s = cuda.shared.array(64, np.float32)
    s[cuda.threadIdx.x % 64] = 1.0
    cuda.syncthreads()
    a[cuda.grid(1)] = s[0]


@cuda.jit(device=True)
def a_device_function(x):
    return x + 1


def test_resource_queries_answer_per_signature_as_numba_cuda():
    uses_shared[1, 64](np.zeros(64, np.float32))
    sig = "void(float32[::1])"
    assert uses_shared.get_shared_mem_per_block(sig) == 256  # the 64 float32s
    per_sig = uses_shared.get_shared_mem_per_block()
    assert list(per_sig.values()) == [256] and list(per_sig) == list(uses_shared.overloads)
    assert 0 < uses_shared.get_max_threads_per_block(sig) <= 1024
    for query in (uses_shared.get_regs_per_thread, uses_shared.get_local_mem_per_thread, uses_shared.get_const_mem_size):
        assert isinstance(query(sig), int) and query(sig) >= 0
    one = uses_shared.specialize(np.zeros(64, np.float32))
    assert one.get_shared_mem_per_block() == 256  # a specialised dispatcher answers with the value itself
    (cf,) = uses_shared.overloads.values()
    assert cf.max_cooperative_grid_blocks(64) >= 1
    assert cf.max_cooperative_grid_blocks((8, 8)) == cf.max_cooperative_grid_blocks(64)
    with pytest.raises(KeyError, match="no definition for"):
        uses_shared.get_regs_per_thread("void(float64[::1])")
    with pytest.raises(TypeError, match="device function"):
        a_device_function.get_regs_per_thread()


def test_forall_sizes_blocks_by_occupancy_on_a_gpu(monkeypatch):
    # On a GPU, forall without tpb asks the specialisation's best block size (cuOccupancyMaxPotentialBlockSize's
    # answer, once per specialisation); the cpu backend answers the same query (its limit), run here.
    from cuforge import _core
    from cuforge.cuda import _jit as jitmod

    @cuda.jit
    def bump(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    a = np.zeros(3000)
    bump.forall(3000)(a)  # the cpu backend's choice: FORALL_THREADS_PER_BLOCK
    assert a.sum() == 3000 and bump.forall(3000).blockdim == jitmod.FORALL_THREADS_PER_BLOCK
    monkeypatch.setattr(_core, "backend", lambda: "cuda")
    f = bump.forall(3000)
    f(a)
    assert a.sum() == 6000
    (size,) = bump._forall_block_sizes.values()
    compiled = bump._native.find((a,))
    assert size == compiled.max_potential_block_size(0) and size % 32 == 0 and 32 <= size <= 1024
    assert bump.forall(3000, tpb=64)._block_size((a,)) == 64
