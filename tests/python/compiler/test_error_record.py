"""The error record in the kernel ABI (frontend/abi.hpp, jit/error_record.hpp):
a debug kernel's failing assert writes it, the launch waits and raises the
Python exception it names, in Numba's words; the kernel and its context go
on working. And the one mapping of C++ exceptions to Python ones, for the
internal compiler error and the kernel's exception."""

import os

import numpy as np
import pytest

from cuforge import _core, cuda


@cuda.jit(debug=True, opt=False)
def checked(a):
    i = cuda.grid(1)
    if i < a.size:
        assert a[i] < 3, "value too large"


@cuda.jit(debug=True, opt=False, device=True)
def check_positive(x):
    assert x > 0
    return x


@cuda.jit(debug=True, opt=False)
def checked_deep(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = check_positive(a[i])


@cuda.jit
def unchecked(a):
    i = cuda.grid(1)
    if i < a.size:
        assert a[i] < 3, "never checked without debug"


def _line_of(text):
    with open(__file__) as f:
        return next(n for n, line in enumerate(f, 1) if text in line)


def test_a_failing_assert_raises_assertion_error_after_the_launch():
    a = np.array([0, 1, 2, 3, 1, 1, 1, 1], dtype=np.int64)
    with pytest.raises(AssertionError) as info:
        checked[2, 4](a)
    e = info.value
    line = _line_of('assert a[i] < 3, "value too large"')
    assert str(e) == (f"In function 'checked', file {os.path.abspath(__file__)}, line {line}, "
                      "tid=[0, 0, 3] ctaid=[0, 0, 0]: value too large")
    assert e.tid == (3, 0, 0) and e.ctaid == (0, 0, 0) and e.lineno == line
    (compiled,) = checked.definitions.values()
    assert compiled.may_raise
    # The kernel, its record and the context go on: a launch that passes raises nothing.
    ok = np.array([0, 1, 2, 2], dtype=np.int64)
    checked[1, 4](ok)
    d = cuda.to_device(np.array([0, 0, 0, 0, 0, 9], dtype=np.int64))
    with pytest.raises(AssertionError, match=r"tid=\[0, 0, 1\] ctaid=\[0, 0, 1\]"):
        checked[2, 4](d)
    cuda.synchronize()


def test_an_assert_without_a_message_and_in_a_device_function():
    a = np.array([1.0, 2.0, -1.0], dtype=np.float64)
    with pytest.raises(AssertionError) as info:
        checked_deep[1, 3](a)
    line = _line_of("assert x > 0")
    assert str(info.value).startswith(f"In function 'check_positive', file {os.path.abspath(__file__)}, line {line}, "
                                      "tid=[0, 0, 2] ctaid=[0, 0, 0]")
    assert not str(info.value).endswith(": ")


def test_without_debug_there_is_no_record_and_no_check():
    a = np.array([5, 6], dtype=np.int64)
    unchecked[1, 2](a)
    (compiled,) = unchecked.definitions.values()
    assert not compiled.may_raise


def test_the_ptx_of_a_raising_kernel_exits_the_thread_without_trapping():
    ptx, _ = cuda.compile_ptx(checked.py_func, "void(int64[::1])", debug=True, opt=False)
    assert "exit;" in ptx and "trap;" not in ptx
    assert "atom.global.cas.b32" in ptx or "atom.cas.b32" in ptx


def test_the_mapping_of_internal_compiler_errors():
    with pytest.raises(cuda.InternalCompilerError) as info:
        _core._raise_for_test("internal", "codegen: something inconsistent")
    e = info.value
    assert isinstance(e, RuntimeError)
    assert e.function == "kernel_fn" and e.detail == "codegen: something inconsistent"
    assert "bug in cuforge" in str(e) and "'kernel_fn'" in str(e)


def test_the_mapping_of_kernel_exceptions_and_the_rest():
    with pytest.raises(AssertionError) as info:
        _core._raise_for_test("kernel", "boom")
    assert info.value.tid == (5, 0, 0) and info.value.ctaid == (0, 2, 0)
    assert str(info.value).endswith("line 12, tid=[0, 0, 5] ctaid=[0, 2, 0]: boom")
    with pytest.raises(ValueError, match="a logic error"):
        _core._raise_for_test("logic", "a logic error")
    with pytest.raises(TypeError):
        _core._raise_for_test("type", "t")
    with pytest.raises(IndexError):
        _core._raise_for_test("index", "i")
