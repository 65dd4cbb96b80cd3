"""What a GPU cannot run is refused at compile time, at the user's line, on
every backend: static shared arrays over 48 KiB, local arrays over 512 KiB
per thread (test_language_cuda.py), kernel parameters over 4352 bytes
(test_api.py)."""

import numpy as np
import pytest

from cuforge import cuda
from cuforge.types import float32


def big_shared(a):
    buf = cuda.shared.array(20000, float32)
    buf[0] = 1
    a[0] = buf[0]


def huge_shared(a):
    buf = cuda.shared.array(2**40, float32)
    buf[0] = 1
    a[0] = buf[0]


def two_halves(a):
    x = cuda.shared.array(8192, float32)
    y = cuda.shared.array(4097, float32)
    x[0] = 1
    y[0] = 2
    a[0] = x[0] + y[0]


def at_limit(a):
    x = cuda.shared.array(12288, float32)
    x[0] = 1
    a[0] = x[0]


@pytest.mark.parametrize("fn, bytes_", [(big_shared, "80000"), (huge_shared, "4398046511104"),
                                        (two_halves, "49156")])
def test_static_shared_arrays_over_48_kib_are_refused_at_their_line(fn, bytes_):
    with pytest.raises(cuda.TypingError, match=f"static shared arrays of {bytes_} bytes") as info:
        cuda.compile_ptx(fn, "void(float32[:])")
    assert "cuda.shared.array" in info.value.source_line
    with pytest.raises(cuda.TypingError, match="at most 48 KiB"):
        cuda.jit(fn)[1, 1](np.zeros(1, np.float32))


def test_48_kib_of_static_shared_memory_compiles_and_runs():
    out = np.zeros(1, np.float32)
    cuda.jit(at_limit)[1, 1](out)
    assert out[0] == 1
