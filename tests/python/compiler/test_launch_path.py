"""The launch path's shortcuts (bench/launch) keep its behaviour: launchers
kept per (blocks, threads), argument types looked up from a cache, our
arrays read in place."""

import gc
import weakref

import numpy as np
import pytest

from cuforge import _core, cuda


def double(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * 2


def double_2d(a, out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = a[i, j] * 2


class ReadOnlyInterface:
    """A __cuda_array_interface__ producer marking our array read-only."""

    def __init__(self, a):
        self._a = a
        self.__cuda_array_interface__ = {"shape": a.shape, "strides": None, "data": (a._pointer, True),
                                         "typestr": a.dtype.str, "stream": None, "version": 3}


def test_plain_launch_configurations_are_made_once():
    k = cuda.jit(double)
    assert k[4, 32] is k[4, 32]
    assert k[4, 32] is not k[4, 64]
    assert k[4, 32, 0] is not k[4, 32]  # only (blocks, threads) pairs are kept
    assert k[(2, 2), (16, 16)] is k[(2, 2), (16, 16)]  # tuples of ints too (2-D and 3-D kernels)
    assert k[(2, 2), (16, 16)] is not k[(2, 2), (16, 8)]
    assert k[(2, 2.0), (16, 16)] is not k[(2, 2.0), (16, 16)]  # a float still meets the launcher's check
    s = cuda.stream()
    assert k[4, 32, s].stream is s


@pytest.mark.parametrize("grid", [1.0, True, np.int64(1)])
def test_a_kept_launcher_does_not_stand_in_for_an_equal_non_int(grid):
    k = cuda.jit(double)
    a = cuda.to_device(np.arange(32, dtype=np.float32))
    out = cuda.device_array(32, dtype=np.float32)
    k[1, 32](a, out)  # keeps the launcher for (1, 32)
    launcher = k[grid, 32]
    assert launcher is not k[1, 32]
    if isinstance(grid, (float, bool)):
        with pytest.raises((TypeError, ValueError), match="grid"):
            launcher(a, out)
    else:
        launcher(a, out)  # NumPy integers are integers
        np.testing.assert_array_equal(out.copy_to_host(), np.arange(32, dtype=np.float32) * 2)


def test_launch_configurations_are_read_only():
    launcher = cuda.jit(double)[1, 32]
    with pytest.raises(AttributeError):
        launcher.stream = cuda.stream()
    with pytest.raises(AttributeError):
        launcher.sharedmem = 1024
    assert (launcher.stream, launcher.sharedmem) == (0, 0)


def test_argument_types_from_the_cache_keep_dtype_layout_and_readonly_apart():
    a = cuda.device_array((4, 6), dtype=np.float32)
    seen = [_core.typeof(x) for x in (a, a, cuda.device_array((4, 6), dtype=np.float64, order="F"), a[:, ::2],
                                      cuda.device_array(3, dtype=np.int16), ReadOnlyInterface(a), a)]
    assert seen == ["array(float32, 2d, C)", "array(float32, 2d, C)", "array(float64, 2d, F)",
                    "array(float32, 2d, A)", "array(int16, 1d, C)", "array(float32, 2d, C, readonly)",
                    "array(float32, 2d, C)"]
    assert [_core.typeof(v) for v in (1, 2.5, True, 1j, 2**64 - 1)] == ["int64", "float64", "bool", "complex128",
                                                                        "uint64"]


def test_one_kernel_launched_with_arrays_of_every_kind():
    k = cuda.jit(double_2d)
    host = np.arange(24, dtype=np.float64).reshape(4, 6)
    cases = [
        cuda.to_device(host.astype(np.float32)),       # C
        cuda.to_device(np.asfortranarray(host)),       # F
        cuda.to_device(host.astype(np.int32)),         # another dtype
        ReadOnlyInterface(cuda.to_device(host.astype(np.float32))),  # readonly, through the interface
    ]
    for a in cases:
        out = cuda.device_array((4, 6), dtype=np.float64)
        k[(1, 1), (4, 6)](a, out)
        np.testing.assert_array_equal(out.copy_to_host(), host * 2)
    # A strided view (layout A) into a host output, copied back after the launch.
    wide = cuda.to_device(np.repeat(host, 2, axis=1))
    out = np.zeros((4, 6))
    k[(1, 1), (4, 6)](wide[:, ::2], out)
    np.testing.assert_array_equal(out, host * 2)
    assert len(k.signatures) == 5


def test_a_launch_keeps_its_arguments_alive_and_unchanged():
    k = cuda.jit(double)
    a = cuda.to_device(np.arange(1000, dtype=np.float32))
    out = cuda.device_array(1000, dtype=np.float32)
    for _ in range(50):
        k[4, 256](a, out)
    cuda.synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(1000, dtype=np.float32) * 2)
    np.testing.assert_array_equal(a.copy_to_host(), np.arange(1000, dtype=np.float32))


class Boom(Exception):
    pass


class MadeUpPointer:
    __cuda_array_interface__ = {"shape": (32,), "strides": None, "data": (4096, False), "typestr": "<f4",
                                "version": 3}


class FailingProducer:
    @property
    def __cuda_array_interface__(self):
        raise Boom("the producer failed")


def test_the_native_launcher_takes_positional_arguments_and_keeps_exception_types():
    k = cuda.jit(double)
    a = cuda.to_device(np.arange(32, dtype=np.float32))
    out = cuda.device_array(32, dtype=np.float32)
    with pytest.raises(TypeError, match="kernel arguments are positional"):
        k[1, 32](a, out=out)
    with pytest.raises(Boom, match="the producer failed"):  # a Python exception raised inside the launch
        k[1, 32](FailingProducer(), out)
    with pytest.raises(ValueError, match="not in memory this process has mapped|not memory the device can address"):
        k[1, 32](MadeUpPointer(), out)  # a C++ logic_error from the interop import, mapped as pybind11 would
    k[1, 32](a, out)
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(32, dtype=np.float32) * 2)


def test_the_native_launcher_refuses_what_is_not_a_dispatcher():
    with pytest.raises(TypeError, match="must be a native Dispatcher"):
        _core.Launcher("double", 1, 32)
    with pytest.raises(TypeError):
        _core.Launcher()
    launcher = _core.Launcher(cuda.jit(double)._native_dispatcher(), 2, (32, 1))
    assert (launcher._griddim, launcher._blockdim, launcher._stream, launcher._sharedmem) == (2, (32, 1), None, 0)
    with pytest.raises(AttributeError):
        launcher._griddim = 3


def _make_kernel():
    def scale(a, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a[i] * 3
    return cuda.jit(scale)


@pytest.mark.parametrize("eager", [False, True])
def test_kernels_launched_and_dropped_are_collected(eager):
    a = cuda.to_device(np.arange(32, dtype=np.float32))
    out = cuda.device_array(32, dtype=np.float32)
    refs = []
    for _ in range(3):
        k = _make_kernel()
        if eager:
            k.compile("void(float32[::1], float32[::1])")
        k[1, 32](a, out)  # makes the native dispatcher and keeps a launcher for (1, 32)
        launcher = k[1, 32]
        refs.append(weakref.ref(k))
        del k, launcher
    gc.collect()
    assert all(r() is None for r in refs)  # no cycle through C++ keeps a kernel alive
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(32, dtype=np.float32) * 3)


@cuda.jit("void(float16[::1], float16)")
def _store_half(out, x):
    out[0] = x


def test_python_floats_reach_float16_parameters_rounded_as_numpy_rounds_them():
    """The jit packs a float16 scalar from the Python float with its own
    rounding (kernel_abi.cpp, half_bits): it must be NumPy's, bit for bit."""
    rng = np.random.default_rng(7)
    values = np.concatenate([
        rng.standard_normal(200) * 10.0 ** rng.integers(-9, 6, 200),
        [0.0, -0.0, 1.0, 65504.0, 65519.99, 65520.0, 1e300, 2.0 ** -24, 2.0 ** -25, 3 * 2.0 ** -25,
         1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, float("inf"), -float("inf")],
    ])
    out = np.zeros(1, dtype=np.float16)
    for v in values:
        _store_half[1, 1](out, float(v))
        with np.errstate(over="ignore"):
            want = np.float16(v)
        assert out.view(np.uint16)[0] == want.view(np.uint16), v


CLOSE_AND_RELAUNCH = '''
import sys
import numpy as np
from cuforge import cuda


@cuda.jit
def add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


a = cuda.to_device(np.zeros(40, np.int64))
add_one[2, 32](a)
first = a.copy_to_host().tolist()
cuda.close()
b = cuda.to_device(np.full(40, 5, np.int64))
add_one[2, 32](b)  # loaded again in the new context
add_one[2, 32](b)
print(first == [1] * 40, b.copy_to_host().tolist() == [7] * 40, len(add_one.overloads))
'''


def test_a_kernel_launched_before_close_loads_again_after_it(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "relaunch.py"
    script.write_text(CLOSE_AND_RELAUNCH)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "True", "1"], r.stdout + r.stderr
