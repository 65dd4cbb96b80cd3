"""Calling CUDA C/C++ from Python kernels: cuda.declare_device and link=.

The numba-cuda docs' linking example (mul_f32_f32 from functions.cu), a
reduction over an array passed by pointer, and on a GPU the seed talk's
cuRAND device-API shim with an argument handler (extensions=[...]) that
turns a States object into the array the C code takes. On the cpu backend the
portable functions are compiled by the host's C++ compiler; the cuRAND part
needs a GPU and is skipped there (docs/interop_c.md).
"""

import os

import numpy as np

from cuforge import cuda, types

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ffi")

mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)", link=os.path.join(HERE, "functions.cu"))
sum_reduce = cuda.declare_device("sum_reduce", "float32(CPointer(float32), int32)",
                                 link=os.path.join(HERE, "functions.cu"))


@cuda.jit
def multiply_vectors(r, x, y):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = mul(x[i], y[i])


@cuda.jit
def reduction_caller(result, array):
    result[()] = sum_reduce(array, len(array))  # an array passes its data pointer


# --- the cuRAND shim (GPU only) ----------------------------------------------------------------

CURAND_SHIM = os.path.join(HERE, "curand_shim.cu")
CURAND_STATE_BYTES = 48  # sizeof(curandState)
curand_init = cuda.declare_device("_numba_curand_init", "int32(voidptr, uint64, uint64, uint64, uint64)",
                                  link=CURAND_SHIM)
curand = cuda.declare_device("_numba_curand", types.uint32(types.voidptr, types.uint64), link=CURAND_SHIM)


class CurandStates:
    """n cuRAND generator states in device memory."""

    def __init__(self, n):
        self.n = n
        self.data = cuda.device_array(n * CURAND_STATE_BYTES, dtype=np.uint8)


class CurandStateArgHandler:
    """An argument handler (numba-cuda's extensions protocol): a CurandStates argument is passed as its array."""

    def prepare_args(self, ty, val, stream=0, retr=None):
        if isinstance(val, CurandStates):
            return types.uint8[::1], val.data
        return ty, val


curand_state_arg_handler = CurandStateArgHandler()


@cuda.jit(extensions=[curand_state_arg_handler])
def init_states(states, seed):
    i = cuda.grid(1)
    curand_init(states, i, seed, i, 0)


@cuda.jit(extensions=[curand_state_arg_handler])
def count_low_bits_native(states, sample_count, results):
    i = cuda.grid(1)
    count = 0
    for sample in range(sample_count):
        x = curand(states, i)
        if x & 1:  # the low bit set
            count += 1
    results[i] += count


def main():
    np.random.seed(1)
    x = np.random.rand(32).astype(np.float32)
    y = np.random.rand(32).astype(np.float32)
    r = np.zeros_like(x)
    multiply_vectors[1, 32](r, x, y)
    np.testing.assert_array_equal(r, x * y)
    print("mul_f32_f32 from functions.cu: r == x * y for all", len(r), "elements")

    a = np.arange(10, dtype=np.float32)
    total = np.ndarray((), dtype=np.float32)
    reduction_caller[1, 1](total, a)
    print(f"sum_reduce(array, 10) = {total[()]} (NumPy: {a.sum()})")
    assert total[()] == a.sum()

    if cuda.backend() != "cuda":
        print("cuRAND device API shim: skipped (CUDA-only code: it runs on a GPU)")
        return
    threads, samples = 64 * 256, 1000
    states = CurandStates(threads)
    init_states[64, 256](states, 1234)
    results = cuda.to_device(np.zeros(threads, np.int64))
    count_low_bits_native[64, 256](states, samples, results)
    fraction = results.copy_to_host().sum() / (threads * samples)
    print(f"cuRAND: fraction of draws with the low bit set = {fraction:.4f} (expected about 0.5)")
    assert abs(fraction - 0.5) < 0.01


if __name__ == "__main__":
    main()
