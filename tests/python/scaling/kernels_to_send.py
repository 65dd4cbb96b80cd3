"""A kernel in an importable module: pickled by reference."""

from cuforge import cuda


@cuda.jit
def scale_by(a, factor):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= factor
