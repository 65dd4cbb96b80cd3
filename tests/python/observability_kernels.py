"""A cache=True kernel run once with cuforge's DEBUG log on stderr, by
test_observability.py (twice: a miss that stores, then a hit)."""

import logging

import numpy as np

from cuforge import cuda

logging.basicConfig(level=logging.WARNING)
logging.getLogger("cuforge").setLevel(logging.DEBUG)


@cuda.jit(cache=True)
def cached_fill(a, v):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = v


a = np.zeros(4)
cached_fill[1, 4](a, 2.0)
assert (a == 2.0).all()
