"""CuPy arrays and PyTorch tensors as kernel arguments are read through
their attributes, not their interface (python/src/interop.cpp,
read_known_producer). test_foreign_gpu.py checks this with the real
libraries on a GPU; here stand-ins for their types check the readers on the
cpu backend, in a child process (fake_producers.py), since the stand-ins
take the libraries' names in sys.modules."""

import pathlib
import subprocess
import sys

import pytest

import cuforge

HERE = pathlib.Path(__file__).resolve().parent


@pytest.mark.skipif(cuforge.backend() != "cpu", reason="the stand-ins' memory is host memory: the cpu backend's")
def test_the_readers_of_cupy_and_torch_arguments():
    r = subprocess.run([sys.executable, str(HERE / "fake_producers.py")], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout + r.stderr
