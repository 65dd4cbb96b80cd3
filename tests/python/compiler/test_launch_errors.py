"""Errors at launch: arguments the launcher cannot pass, configurations the
device cannot run, and kernels the compiler refuses. Each is a clear
exception raised before the kernel runs: the outputs keep their sentinel
values (NumPy and device arrays alike), and a kernel that counts its runs
counts none.

test_unsupported.py covers the walker's refusals construct by construct
(build_ir); here they arrive through ``kernel[grid, block](...)``, with the
C++ typer's."""

import datetime
import inspect

import numpy as np
import pytest

from cuforge import cuda
from cuforge.types import float32

SENTINEL = -7.0


@cuda.jit
def fill(out, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] + 1


@cuda.jit
def count_runs(runs, out):
    cuda.atomic.add(runs, 0, 1)
    i = cuda.grid(1)
    if i < out.size:
        out[i] = 1


def _outputs():
    """A NumPy output, a device output and the run counter, all untouched."""
    host = np.full(64, SENTINEL)
    dev = cuda.to_device(np.full(64, SENTINEL))
    runs = cuda.to_device(np.zeros(1, np.int64))
    return host, dev, runs


def _untouched(host, dev, runs):
    assert (host == SENTINEL).all()
    assert (dev.copy_to_host() == SENTINEL).all()
    assert runs.copy_to_host()[0] == 0


def test_the_harness_sees_a_run():
    host, dev, runs = _outputs()
    count_runs[2, 32](runs, host)
    count_runs[2, 32](runs, dev)
    assert runs.copy_to_host()[0] == 128 and (host == 1).all() and (dev.copy_to_host() == 1).all()


# --- arguments ---------------------------------------------------------------------------------------------


class Opaque:
    pass


@pytest.mark.parametrize("bad, match", [
    ([1.0, 2.0], r"argument 1 \(list\) is not supported"),
    ({"a": 1}, r"argument 1 \(dict\) is not supported"),
    ({1, 2}, r"argument 1 \(set\) is not supported"),
    (None, r"argument 1 \(NoneType\) is not supported"),
    (Opaque(), r"argument 1 \(Opaque\) is not supported"),
    ("text", r"argument 1 \(str\) is not supported"),
    (b"bytes", r"argument 1 \(bytes\) is not supported"),
    (datetime.datetime(2020, 1, 1), r"argument 1 \(datetime\) is not supported"),
    (fill, r"argument 1 \(Dispatcher\) is not supported"),
    (np.array([1, "a"], dtype=object), "dtype '.O'.*Python objects"),
    (np.array(["a", "b"]), "dtype '<U1'.*strings"),
    (np.array([b"a"]), "dtype '.S1'"),
    (np.zeros(64, "datetime64[10ns]"), "dtype '<M8.10ns.'.*multiples"),
    (np.zeros(64, [("a", ">f4"), ("b", "i4")]), "big-endian"),  # a structured dtype with a field devices cannot hold
    (np.zeros(64, "V4"), "void dtypes"),
    (np.zeros(64, np.longdouble), "dtype '<f16'"),
    ((1.0, [2.0]), r"argument 1 \(list\) is not supported"),
])
def test_arguments_the_launcher_cannot_pass_are_type_errors(bad, match):
    host, dev, runs = _outputs()
    with pytest.raises(TypeError, match=match) as info:
        count_runs[1, 64](runs, bad)
    assert not isinstance(info.value, cuda.TypingError)  # refused by the launcher, not the compiler
    with pytest.raises(TypeError, match=match):
        fill[1, 64](host, bad)
    with pytest.raises(TypeError, match=match):
        fill[1, 64](dev, bad)
    _untouched(host, dev, runs)


def test_integers_beyond_64_bits_are_refused():
    host, dev, runs = _outputs()
    for big in (2**64, -(2**63) - 1, 10**30):
        with pytest.raises(ValueError, match="does not fit in 64 bits"):
            count_runs[1, 1](runs, big)
    _untouched(host, dev, runs)


def test_the_wrong_number_of_arguments():
    host, dev, runs = _outputs()
    with pytest.raises(TypeError, match=r"takes 2 arguments but 1 type was given"):
        fill[1, 64](host)
    with pytest.raises(TypeError, match=r"takes 2 arguments but 3 types were given"):
        fill[1, 64](host, host, host)
    eager = cuda.jit("void(float64[::1], float64[::1])")(fill.py_func)
    with pytest.raises(TypeError, match="no matching definition"):
        eager[1, 64](host)
    _untouched(host, dev, runs)


def test_eager_signatures_refuse_other_types_before_running():
    eager = cuda.jit("void(int64[::1], float32[::1])")(count_runs.py_func)
    host, dev, runs = _outputs()
    with pytest.raises(TypeError, match=r"no matching definition of count_runs for argument types "
                                        r"\(array\(int64, 1d, C\), array\(float64, 1d, C\)\)"):
        eager[1, 64](runs, host)
    _untouched(host, dev, runs)


def store_value(out, v):
    out[0] = v


def test_an_eager_scalar_out_of_its_range_keeps_its_low_bits_as_numba_cuda():
    # numba-cuda passes scalars through ctypes: c_uint8(-1) is 255, c_uint8(256) is 0.
    eager = cuda.jit("void(int64[::1], uint8)")(store_value)
    runs = cuda.to_device(np.zeros(1, np.int64))
    for v, want in ((-1, 255), (256, 0), (255, 255), (np.int64(-2), 254), (True, 1)):
        eager[1, 1](runs, v)
        assert runs.copy_to_host()[0] == want, v
    with pytest.raises(TypeError, match=r"2.5 \(float\) cannot be passed as uint8: the signature's parameter is an integer"):
        eager[1, 1](runs, 2.5)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "uint16", "uint32", "uint64"])
def test_eager_integer_scalars_at_the_ends_of_their_range(dtype):
    info = np.iinfo(dtype)
    eager = cuda.jit(f"void(int64[::1], {dtype})")(store_value)
    runs = cuda.to_device(np.zeros(1, np.int64))
    for v in (int(info.min), int(info.max) if dtype != "uint64" else 2**63 - 1, 7):
        eager[1, 1](runs, v)
        assert runs.copy_to_host()[0] == v, (dtype, v)
    # Past uint64's end no integer type holds it: refused when the argument is classified.
    if dtype == "uint64":
        with pytest.raises(ValueError):
            eager[1, 1](runs, int(info.max) + 1)
        return
    # Past the others' ends the value wraps around, as ctypes (numba-cuda's launcher) wraps it.
    eager[1, 1](runs, int(info.max) + 1)
    assert runs.copy_to_host()[0] == info.min
    if info.min < 0:
        eager[1, 1](runs, int(info.min) - 1)
        assert runs.copy_to_host()[0] == info.max


# --- launch configurations ---------------------------------------------------------------------------------

DEVICE = cuda.get_current_device()
MAX_THREADS = DEVICE.MAX_THREADS_PER_BLOCK
MAX_BLOCK = (DEVICE.MAX_BLOCK_DIM_X, DEVICE.MAX_BLOCK_DIM_Y, DEVICE.MAX_BLOCK_DIM_Z)
MAX_GRID = (DEVICE.MAX_GRID_DIM_X, DEVICE.MAX_GRID_DIM_Y, DEVICE.MAX_GRID_DIM_Z)
MAX_SHARED = DEVICE.MAX_SHARED_MEMORY_PER_BLOCK
MAX_SHARED_OPTIN = max(DEVICE.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, MAX_SHARED)


@pytest.mark.parametrize("griddim, blockdim, error, match", [
    (0, 32, ValueError, "the grid must be a positive int"),
    (-1, 32, ValueError, "the grid must be a positive int"),
    ((2, 0), 32, ValueError, "the grid must be a positive int"),
    (1, 0, ValueError, "the block must be a positive int"),
    (1, -32, ValueError, "the block must be a positive int"),
    (1, (32, 0, 1), ValueError, "the block must be a positive int"),
    (1, MAX_THREADS + 1, ValueError, rf"has {MAX_THREADS + 1} threads; the device allows at most {MAX_THREADS}"),
    (1, (32, MAX_THREADS // 32 + 1), ValueError, "threads; the device allows at most"),
    (1, (2, 2, MAX_BLOCK[2] + 1), ValueError, "exceeds the device's limits"),
    (1, (MAX_BLOCK[0] * 2,), ValueError, "threads; the device allows at most"),
    ((1, MAX_GRID[1] + 1), 1, ValueError, "grid .* exceeds the device's limits"),
    ((1, 1, MAX_GRID[2] + 1), 1, ValueError, "grid .* exceeds the device's limits"),
    (MAX_GRID[0] + 1, 1, ValueError, "exceeds the device's limits|must be a positive int"),
    (2**32, 1, ValueError, r"below 2\*\*32"),
    (1.0, 32, ValueError, "the grid must be a positive int"),
    (True, 32, ValueError, "the grid must be a positive int"),
    ("2", 32, ValueError, "the grid must be a positive int"),
    ((), 32, ValueError, "tuple of 1 to 3"),
    ((1, 1, 1, 1), 32, ValueError, "tuple of 1 to 3"),
])
def test_bad_configurations_are_refused_before_running(griddim, blockdim, error, match):
    host, dev, runs = _outputs()
    for out in (host, dev):
        with pytest.raises(error, match=match) as info:
            count_runs[griddim, blockdim](runs, out)
    if "device" in match or "threads" in match:
        assert "'count_runs'" in str(info.value)  # the kernel's Python name, not its symbol
    _untouched(host, dev, runs)


def test_the_limits_themselves_are_accepted():
    runs = cuda.to_device(np.zeros(1, np.int64))
    out = cuda.device_array(1)
    count_runs[1, MAX_THREADS](runs, out)
    count_runs[1, (1, 1, MAX_BLOCK[2])](runs, out)
    count_runs[(1, MAX_GRID[1]), 1](runs, out)
    assert runs.copy_to_host()[0] == MAX_THREADS + MAX_BLOCK[2] + MAX_GRID[1]


@cuda.jit
def with_dynamic_shared(runs, out):
    buf = cuda.shared.array(0, dtype=float32)
    buf[cuda.threadIdx.x] = 1
    cuda.syncthreads()
    cuda.atomic.add(runs, 0, 1)
    out[cuda.threadIdx.x] = buf[cuda.threadIdx.x]


@cuda.jit
def with_static_shared(runs, out):
    buf = cuda.shared.array(4096, dtype=float32)  # 16 KiB
    buf[cuda.threadIdx.x] = 1
    cuda.syncthreads()
    cuda.atomic.add(runs, 0, 1)
    out[cuda.threadIdx.x] = buf[cuda.threadIdx.x]


@cuda.jit
def with_too_much_static_shared(runs, out):
    buf = cuda.shared.array(MAX_SHARED // 4 + 1, dtype=float32)
    buf[cuda.threadIdx.x] = 1
    cuda.syncthreads()
    cuda.atomic.add(runs, 0, 1)
    out[cuda.threadIdx.x] = buf[cuda.threadIdx.x]


@pytest.mark.parametrize("shared, error, match", [
    (-1, ValueError, "must be a non-negative number of bytes"),
    (1.5, TypeError, r"must be an int \(bytes\)"),
    (True, TypeError, r"must be an int \(bytes\)"),
    (None, TypeError, r"must be an int \(bytes\)"),
    ("64", TypeError, r"must be an int \(bytes\)"),
    (MAX_SHARED_OPTIN + 1, ValueError, rf"{MAX_SHARED_OPTIN + 1} bytes of dynamic shared memory requested .*at most "
                                       rf"{MAX_SHARED_OPTIN} per block"),
    (2**40, ValueError, "bytes of dynamic shared memory requested"),
])
def test_bad_dynamic_shared_memory_is_refused_before_running(shared, error, match):
    host, dev, runs = _outputs()
    for out in (host, dev):
        with pytest.raises(error, match=match):
            with_dynamic_shared[1, 32, 0, shared](runs, out)
    _untouched(host, dev, runs)


def test_static_and_dynamic_shared_memory_count_together():
    host, dev, runs = _outputs()
    static = 4096 * 4
    with pytest.raises(ValueError, match=rf"with {static} static\); the device has at most {MAX_SHARED_OPTIN}"):
        with_static_shared[1, 32, 0, MAX_SHARED_OPTIN - static + 1](runs, dev)
    _untouched(host, dev, runs)
    with_static_shared[1, 32, 0, MAX_SHARED_OPTIN - static](runs, dev)  # exactly the limit (opted in)
    assert runs.copy_to_host()[0] == 32


def test_more_dynamic_shared_memory_than_the_default_is_opted_into():
    runs = cuda.to_device(np.zeros(1, np.int64))
    out = np.zeros(32)
    with_dynamic_shared[1, 32, 0, MAX_SHARED + 1024](runs, out)
    assert runs.copy_to_host()[0] == 32 and (out == 1).all()


@pytest.mark.no_ptxas  # ptxas refuses this kernel: the point of the test
def test_too_much_static_shared_memory_is_refused_on_every_backend():
    # The typer refuses it (ptxas would on a GPU), before anything is copied or run.
    host, dev, runs = _outputs()
    with pytest.raises(cuda.TypingError, match=rf"static shared arrays of {MAX_SHARED + 4} bytes .*at most 48 KiB"):
        with_too_much_static_shared[1, 32](runs, dev)
    _untouched(host, dev, runs)


def test_bad_streams_are_refused_before_running():
    host, dev, runs = _outputs()
    for bad in ("stream", 1.5, object()):
        with pytest.raises(TypeError, match="expected a stream"):
            count_runs[1, 32, bad](runs, dev)
    _untouched(host, dev, runs)


def test_launching_a_device_function_or_calling_a_kernel():
    @cuda.jit(device=True)
    def helper(x):
        return x

    with pytest.raises(TypeError, match="device function: it cannot be launched"):
        helper[1, 1]
    with pytest.raises(ValueError, match="only be called from a kernel or another device function"):
        helper(1)
    host, dev, runs = _outputs()
    with pytest.raises(ValueError, match="launch configuration was not specified"):
        count_runs(runs, dev)
    _untouched(host, dev, runs)


# --- kernels the compiler refuses, at launch ------------------------------------------------------------------


def plain_python(x):
    return x


class Callable:
    def __call__(self, x):
        return x

    def method(self, x):
        return x


CALLABLE = Callable()


def k_calls_python(out, x):
    out[0] = plain_python(x[0])


def k_calls_an_object(out, x):
    out[0] = CALLABLE(x[0])


def k_calls_a_method(out, x):
    out[0] = CALLABLE.method(x[0])


def k_calls_a_class(out, x):
    out[0] = Callable()


def k_prints(out, x):
    print(x)


def k_generator(out, x):
    yield x[0]


def k_list(out, x):
    values = [x[0], x[1]]


def k_dict(out, x):
    values = {"a": x[0]}


def k_string(out, x):
    out[0] = len("abc")


def k_comprehension(out, x):
    out[0] = sum([v for v in x])


def k_lambda(out, x):
    f = lambda v: v + 1  # noqa: E731
    out[0] = f(x[0])


def k_with(out, x):
    with cuda:
        out[0] = x[0]


def k_try(out, x):
    try:
        out[0] = x[0]
    except IndexError:
        pass


def k_class(out, x):
    class Inner:
        pass


def k_adds_a_tuple(out, x):
    out[0] = x + (1, 2)


def k_wrong_math(out, x):
    out[0] = np.sin(x)


def k_float_index(out, x):
    out[0] = x[0.5]


def k_unknown_attribute(out, x):
    out[0] = x.mean()


def k_returns(out, x):
    return x[0]


def k_mixed_types(out, x):
    v = 1
    v = (1, 2)


def k_readonly_store(out, x):
    c = cuda.const.array_like(TABLE)
    c[0] = 1


TABLE = np.arange(4.0)

ERRORS = [
    (k_calls_python, "plain_python(x[0])", "Python function plain_python is not jitted"),
    (k_calls_an_object, "CALLABLE(x[0])", "Unsupported global: CALLABLE"),
    (k_calls_a_method, "CALLABLE.method(x[0])", "Callable.method is not jitted"),
    (k_calls_a_class, "Callable()", "Unsupported global: Callable"),
    (k_prints, "print(x)", "cannot print array"),
    (k_generator, "yield x[0]", "yield"),
    (k_list, "[x[0], x[1]]", "lists"),
    (k_dict, '{"a": x[0]}', "dicts"),
    (k_string, '"abc"', "strings"),
    (k_comprehension, "[v for v in x]", "list comprehensions"),
    (k_lambda, "lambda v", "lambda"),
    (k_with, "with cuda", "with statements"),
    (k_try, "try:", "try/except/finally"),
    (k_class, "class Inner", "class definitions"),
    (k_adds_a_tuple, "x + (1, 2)", "unsupported operand types for +"),
    (k_wrong_math, "np.sin(x)", "np.sin of an array needs an array to write into"),
    (k_float_index, "x[0.5]", "array indices must be integers"),
    (k_unknown_attribute, "x.mean()", "Unknown attribute 'mean'"),
    (k_returns, "return x[0]", "kernels cannot return a value"),
    (k_mixed_types, "v = (1, 2)", "no common type"),
    (k_readonly_store, "c[0] = 1", "constant array"),
]


@pytest.mark.parametrize("kernel, marker, message", ERRORS, ids=[e[0].__name__ for e in ERRORS])
def test_refused_kernels_raise_typing_errors_at_launch_with_the_place(kernel, marker, message):
    host, dev, runs = _outputs()
    with pytest.raises(cuda.TypingError, match=message) as info:
        cuda.jit(kernel)[1, 1](host, np.arange(4.0))
    e = info.value
    assert isinstance(e, TypeError)
    lines, first = inspect.getsourcelines(kernel)
    (line,) = [first + i for i, text in enumerate(lines) if marker in text][:1]
    text = lines[line - first].rstrip("\n")
    assert (e.filename, e.lineno, e.source_line) == (__file__, line, text)
    assert text.index(marker) <= e.col < len(text)  # the caret is on the construct (or within it)
    rendered = str(e).splitlines()
    assert f'File "{__file__}", line {line}, in {kernel.__qualname__}:' in rendered
    assert rendered[-2:] == ["    " + text, "    " + " " * e.col + "^"]
    _untouched(host, dev, runs)
    # The error is not cached as a definition: the next launch raises it again.
    with pytest.raises(cuda.TypingError):
        cuda.jit(kernel)[1, 1](host, np.arange(4.0))


def test_an_expression_nested_beyond_the_recursion_limit_is_a_typing_error(tmp_path):
    """A sum of 2000 terms nests 2000 deep: Python compiles it, the walker's
    recursion cannot follow; the error names the statement, not a bare
    RecursionError."""
    path = tmp_path / "deep.py"
    path.write_text("def deep(out, a):\n    out[0] = 1\n    out[1] = " + " + ".join(["a[0]"] * 2000) + "\n")
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # noqa: S102
    host, dev, runs = _outputs()
    with pytest.raises(cuda.TypingError, match="nested .* levels deep") as info:
        cuda.jit(namespace["deep"])[1, 1](host, np.ones(1))
    assert (info.value.filename, info.value.lineno) == (str(path), 3)
    _untouched(host, dev, runs)
