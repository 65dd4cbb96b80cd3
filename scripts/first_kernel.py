"""A user's first minutes with an installed cuforge: run from outside the source tree by
scripts/build_wheel.sh (the wheel in a fresh environment) and scripts/check_sdist.sh (the sdist
built without the toolkit). Fails unless the kernel's result is right and cuforge is the
environment's own copy, not the source tree's."""

import sys

import numpy as np

import cuforge
from cuforge import cuda


@cuda.jit
def axpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


x = np.arange(1000, dtype=np.float32)
y = np.ones(1000, dtype=np.float32)
out = cuda.device_array_like(x)
axpy[4, 256](out, np.float32(2), cuda.to_device(x), cuda.to_device(y))
assert np.array_equal(out.copy_to_host(), 2 * x + y)
assert cuforge.__file__.startswith(sys.prefix), cuforge.__file__
print("first kernel ok:", cuforge.__version__, cuforge.backend())
