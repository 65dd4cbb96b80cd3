"""The course's hidden-layer assessment: normalize, weigh and activate on the
device with transfers kept to the minimum. n = 1M unless given as the first
argument (the course assesses 100M on a GPU: see bench/hidden_layer).

The kernels are importable (tests and benchmarks use these); running the
file runs the demonstration.
"""

import sys
import time
from math import exp

import numpy as np

import cuforge
from cuforge import cuda


@cuda.jit
def normalize(grayscales, out):
    i = cuda.grid(1)
    if i < grayscales.size:
        out[i] = grayscales[i] / 255.0


@cuda.jit
def weigh(values, weights, out):
    i = cuda.grid(1)
    if i < values.size:
        out[i] = values[i] * weights[i]


@cuda.jit
def activate(values, out):
    i = cuda.grid(1)
    if i < values.size:
        out[i] = (exp(values[i]) - exp(-values[i])) / (exp(values[i]) + exp(-values[i]))


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    greyscales_device = cuda.to_device(greyscales)
    weights_device = cuda.to_device(weights)
    normalized_device = cuda.device_array(greyscales.shape, dtype=np.float32)
    weighted_device = cuda.device_array(weights.shape, dtype=np.float32)
    activated_device = cuda.device_array(weights.shape, dtype=np.float32)
    threads_per_block = 512
    blocks_per_grid = (n + (threads_per_block - 1)) // threads_per_block
    normalize[blocks_per_grid, threads_per_block](greyscales_device, normalized_device)
    weigh[blocks_per_grid, threads_per_block](normalized_device, weights_device, weighted_device)
    activate[blocks_per_grid, threads_per_block](weighted_device, activated_device)
    return activated_device.copy_to_host()


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    greyscales = np.floor(np.random.uniform(0, 255, n).astype(np.float32))
    weights = np.random.normal(0.5, 0.1, n).astype(np.float32)
    create_hidden_layer(1024, greyscales[:1024], weights[:1024], exp, normalize, weigh, activate)  # compile
    t = time.perf_counter()
    a = create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate)
    elapsed = time.perf_counter() - t
    expected = np.tanh(greyscales / np.float32(255.0) * weights)
    np.testing.assert_allclose(a, expected, rtol=1e-5, atol=1e-6)
    print(f"hidden layer, n = {n}: correct, {elapsed:.3f} s on the {cuforge.backend()} backend")


if __name__ == "__main__":
    main()
