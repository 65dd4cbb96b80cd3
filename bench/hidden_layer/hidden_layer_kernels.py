"""The course's three hidden-layer kernels (seeds/003), shared by ours and
numba-cuda's runs of bench_hidden_layer.py: a loader may set `cuda` in the
module before running it (numba's); otherwise it is cuforge's."""

from math import exp

try:
    cuda  # noqa: B018 - set by the loader for numba-cuda
except NameError:
    from cuforge import cuda


@cuda.jit
def normalize(grayscales, out):
    i = cuda.grid(1)
    if i < grayscales.size:
        out[i] = grayscales[i] / 255.0  # Normalize to range [0, 1]


@cuda.jit
def weigh(values, weights, out):
    i = cuda.grid(1)
    if i < values.size:
        out[i] = values[i] * weights[i]  # Element-wise multiplication


@cuda.jit
def activate(values, out):
    i = cuda.grid(1)
    if i < values.size:
        out[i] = (exp(values[i]) - exp(-values[i])) / (exp(values[i]) + exp(-values[i]))  # tanh
