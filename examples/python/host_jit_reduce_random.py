"""The course's CPU cells (cuforge.jit for the host), the seed talk's
nan_compact (an array made, filled and returned by a jitted function), the seed talk's
reduction generator (cuda.reduce) and its random-number sample (compute_pi
with xoroshiro128p), as written there with only the imports changed; and a
device-wide scan with a user-defined operation.

On the cpu backend, cuda.reduce and cuda.scan run as compiled host loops
over every core; on a GPU, as kernels that fill the device.
"""

import math
import random
import time

import numpy as np
from numpy import testing

import cuforge
from cuforge import cuda, jit
from cuforge.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32


# This is the function decorator syntax and is equivalent to `hypot = jit(hypot)`.
@jit
def hypot(x, y):
    # Implementation from https://en.wikipedia.org/wiki/Hypot
    x = abs(x);
    y = abs(y);
    t = min(x, y);
    x = max(x, y);
    t = t / x;
    return x * math.sqrt(1+t*t)


@jit
def monte_carlo_pi(nsamples):
    acc = 0
    for i in range(nsamples):
        x = random.random()
        y = random.random()
        if (x**2 + y**2) < 1.0:
            acc += 1
    return 4.0 * acc / nsamples


@jit
def nan_compact(x):
    out = np.empty_like(x)
    out_index = 0
    for element in x:
        if not np.isnan(element):
            out[out_index] = element
            out_index += 1
    return out[:out_index]


@jit(nopython=True)
def cannot_compile(x):
    return x['key']


@cuda.reduce
def sum_reduce(a, b):
    return a + b


@cuda.jit
def compute_pi(rng_states, iterations, out):
    """Find the maximum value in values and store in result[0]"""
    tid = cuda.grid(1)

    # Compute pi by drawing random (x, y) points and finding what
    # fraction lie inside a unit circle
    inside = 0
    for i in range(iterations):
        x = xoroshiro128p_uniform_float32(rng_states, tid)
        y = xoroshiro128p_uniform_float32(rng_states, tid)
        if x**2 + y**2 <= 1.0:
            inside += 1

    out[tid] = 4.0 * inside / iterations


def main():
    np.testing.assert_allclose([hypot(3.0, 4.0), hypot(-5, 12)], [math.hypot(3.0, 4.0), 13.0])
    print("hypot(3.0, 4.0) =", hypot(3.0, 4.0), "; py_func:", hypot.py_func(3.0, 4.0))
    nsamples = 1000000
    testing.assert_almost_equal(monte_carlo_pi(nsamples), monte_carlo_pi.py_func(nsamples), decimal=2)
    start = time.perf_counter()
    pi = monte_carlo_pi(nsamples)
    print(f"monte_carlo_pi({nsamples}) = {pi} in {(time.perf_counter() - start) * 1e3:.1f} ms (compiled for the host)")
    hypot.inspect_types()
    x = np.array([1.0, np.nan, 2.5, np.nan, np.nan, -3.0])
    np.testing.assert_array_equal(nan_compact(x), x[~np.isnan(x)])
    print("nan_compact:", nan_compact(x), "(made in the jitted function, returned to Python)")
    try:
        cannot_compile(dict(key='value'))
    except cuda.TypingError as e:
        print("cannot_compile, as in nopython mode:", str(e).splitlines()[0])

    A = (np.arange(1234, dtype=np.float64)) + 1
    # Transfers result to host
    total = sum_reduce(A)
    np.testing.assert_allclose(total, A.sum())
    # Keep result on device
    r = cuda.device_array(1, dtype=np.float64)
    sum_reduce(A, res=r)
    # Use device array, keep result on device
    A_d = cuda.to_device(A)
    sum_reduce(A_d, res=r)
    np.testing.assert_allclose(r.copy_to_host()[0], A.sum())
    print("sum_reduce(A) =", total)

    big = np.random.default_rng(0).random(1 << 24).astype(np.float32)
    start = time.perf_counter()
    s = sum_reduce(big)
    print(f"sum of 2**24 float32: {s:.2f} (NumPy {big.sum(dtype=np.float64):.2f}) in "
          f"{(time.perf_counter() - start) * 1e3:.1f} ms on the {cuforge.backend()} backend")

    running_max = cuda.Scan(lambda a, b: max(a, b))
    x = np.random.default_rng(1).standard_normal(1 << 20)
    np.testing.assert_array_equal(running_max(x), np.maximum.accumulate(x))
    print("running maximum of 2**20 values: equal to np.maximum.accumulate")

    nblocks, nthreads = 64, 128
    out = np.zeros(nblocks * nthreads, dtype=np.float32)
    state_size = nblocks * nthreads
    rng_states = create_xoroshiro128p_states(state_size, seed=1)
    compute_pi[nblocks, nthreads](rng_states, 10000, out)
    print(f"compute_pi: {out.mean():.4f} from {state_size} threads")
    np.testing.assert_allclose(out.mean(), math.pi, atol=0.01)


if __name__ == "__main__":
    main()
