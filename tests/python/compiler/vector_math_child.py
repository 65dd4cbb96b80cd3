"""Run by test_block_entry.py in a process of its own, with or without
CUFORGE_CPU_VECTOR_MATH=0: prints whether the thread loop of a tanh kernel
calls libmvec, and its results' bits."""

import math
import re

import numpy as np

from cuforge import cuda


@cuda.jit
def tanh_all(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.tanh(x[i])


x = np.linspace(-3, 3, 1024).astype(np.float32)
out = np.zeros_like(x)
tanh_all[4, 256](out, x)
(cf,) = tanh_all._definitions_by_spec().values()
print("vector" if re.search(r"@_ZGV\w+_tanhf\(", cf.llvm) else "scalar", out.view(np.uint32).sum())
