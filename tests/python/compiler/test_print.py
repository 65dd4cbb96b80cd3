"""print() in kernels (issue 13 item 1): numbers, booleans, constant strings,
tuples and the thread coordinates, several to a line, formatted as
numba-cuda formats them (printimpl.py: %lld/%llu, %f of a double, True/False,
spaces between, a newline last): vprintf on the GPU, the process's stdout on
the cpu backend, each thread's line whole. The output is read from a child
process (print_child.py) on either backend (a GPU's printf buffer reaches
stdout at synchronize); the GPU's PTX also goes through ptxas."""

import pathlib
import subprocess
import sys

import numpy as np
import pytest

from compiler_support import typing_error_of
from cuforge import cuda


@pytest.fixture(scope="module")
def sections():
    script = pathlib.Path(__file__).with_name("print_child.py")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    out, name = {}, None
    for line in r.stdout.split("\n")[:-1]:
        if line.startswith("== "):
            name = line[3:]
            out[name] = []
        else:
            out[name].append(line)
    assert name == "end", r.stdout
    return out


def test_numbers_booleans_strings_and_tuples_as_numba_cuda_prints_them(sections):
    # numba-cuda 0.30.4's format for this kernel: "%s %lld %f %s %s (%lld, %f) (%lld,) %f %llu %lld\n".
    want = [f"thread {i} {float(i):f} {b} 100% ({i}, 2.500000) ({i},) 1.500000 200 -3"
            for i, b in enumerate(["True", "False", "True"])]
    assert sorted(sections["numbers"]) == want


def test_thread_coordinates_print_as_triples(sections):
    # A (2, 1) grid of (1, 2) blocks: numba-cuda's "(%d, %d, %d)" per dim3.
    want = sorted(f"(0, {ty}, 0) ({bx}, 0, 0) (1, 2, 1) (2, 1, 1)" for bx in range(2) for ty in range(2))
    assert sorted(sections["coordinates"]) == want


def test_an_empty_print_is_an_empty_line(sections):
    assert sections["nothing"] == [""]


def test_each_threads_line_is_whole(sections):
    lines = sections["many"]
    assert len(lines) == 200
    want = {f"line {i} of 200 with {i * 1.5:f} and {i % 2 == 0} ending here" for i in range(200)}
    assert set(lines) == want


def test_extremes_of_the_64_bit_formats(sections):
    assert sections["extremes"] == [f"{2**64 - 1} {-2**63} {1e300:f} -0.000000"]


def test_the_host_jit_prints_floats_as_python_does(sections):
    # Numba's CPU print: Python's str() of each value.
    want = " ".join(str(v) for v in ["host", 3, 2.5, 0.1, 1e16, 123456.789, 2.0, -0.0, 1e-5, True, (3, 2.5),
                                     float(np.float32(0.1))])
    assert sections["host"] == [want]


def test_print_compiles_to_vprintf_for_the_gpu():
    def kernel(a, flags):
        i = cuda.grid(1)
        print("thread", i, a[i], flags[i], "100%", (i, 2.5))

    ptx, _ = cuda.compile_ptx(kernel, "void(float64[:], boolean[:])", cc=(9, 0))  # ptxas-checked by conftest
    assert "call.uni" in ptx and "vprintf" in ptx
    # The format is a constant: the strings inside it, a '%' of the text doubled.
    assert "thread %lld %f %s 100%% (%lld, %f)\n" in _strings(ptx)
    assert {"True", "False"} <= _strings(ptx)


def _strings(ptx):
    """The byte-array constants of a PTX module, as text."""
    import re

    found = set()
    for body in re.findall(r"\.b8 [^\[]+\[\d+\] = \{([^}]*)\}", ptx):
        data = bytes(int(x) for x in body.split(","))
        found.add(data.rstrip(b"\0").decode())
    return found


@pytest.mark.parametrize("call, message", [
    ("print(a)", "print() cannot print array(float64, 1d, C)"),
    ("print(a[0], sep='')", "takes no keyword arguments ('sep' given)"),
    ("print(a[0] + 1j)", "print() cannot print complex128"),
    ("print(" + ", ".join(["a[0]"] * 33) + ")", "at most 32 values, not 33"),
])
def test_what_print_cannot_print_is_a_typing_error(tmp_path, call, message):
    e = typing_error_of(f"def k(a):\n    {call}\n", tmp_path, "bad_print")
    assert message in str(e)
    assert e.lineno == 2
