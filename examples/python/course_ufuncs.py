"""The course notebook's ufunc cells ("Introduction to CUDA Python with
Numba"), as written there with only the import changed: vectorize on the CPU
and for CUDA, device functions inside GPU ufuncs, device arrays kept on the
device between ufuncs, a generalised ufunc, the NumbaPro SAXPY on its three
targets, and the hidden layer written with GPU ufuncs.

On the cpu backend the 'cuda' ufuncs run as kernels there; the 'cpu' and
'parallel' ones are NumPy ufuncs over compiled host loops either way.
"""

import math
import sys
import time

import numpy as np

import cuforge
from cuforge import cuda, guvectorize, vectorize


@vectorize
def add_ten(num):
    return num + 10  # This scalar operation will be performed on each element


@vectorize(['int64(int64, int64)'], target='cuda')  # Type signature and target are required for the GPU
def add_ufunc(x, y):
    return x + y


SQRT_2PI = np.float32((2*math.pi)**0.5)  # Precompute this constant as a float32.  Numba will inline it at compile time.


@vectorize(['float32(float32, float32, float32)'], target='cuda')
def gaussian_pdf(x, mean, sigma):
    '''Compute the value of a Gaussian probability density function at x with given mean and sigma.'''
    return math.exp(-0.5 * ((x - mean) / sigma)**2) / (sigma * SQRT_2PI)


@vectorize
def cpu_gaussian_pdf(x, mean, sigma):
    '''Compute the value of a Gaussian probability density function at x with given mean and sigma.'''
    return math.exp(-0.5 * ((x - mean) / sigma)**2) / (sigma * SQRT_2PI)


@cuda.jit(device=True)
def polar_to_cartesian(rho, theta):
    x = rho * math.cos(theta)
    y = rho * math.sin(theta)
    return x, y


@vectorize(['float32(float32, float32, float32, float32)'], target='cuda')
def polar_distance(rho1, theta1, rho2, theta2):
    x1, y1 = polar_to_cartesian(rho1, theta1)  # We can use device functions inside our GPU ufuncs
    x2, y2 = polar_to_cartesian(rho2, theta2)

    return ((x1 - x2)**2 + (y1 - y2)**2)**0.5


@vectorize(['float32(float32, float32)'], target='cuda')
def zero_suppress(waveform_value, threshold):
    if waveform_value < threshold:
        result = 0
    else:
        result = waveform_value
    return result


@vectorize(['float32(float32, float32)'], target='cuda')
def add_ufunc_f32(x, y):
    return x + y


@vectorize(['float32(float32, float32, float32)'], target='cuda')
def make_pulses(i, period, amplitude):
    return max(math.sin(i / period) - 0.3, 0.0) * amplitude


@guvectorize(['(float32[:], float32[:])'],  # have to include the output array in the type signature
             '(i)->()',                 # map a 1D array to a scalar output
             target='cuda')
def l2_norm(vec, out):
    acc = 0.0
    for value in vec:
        acc += value**2
    out[0] = math.sqrt(acc)


def saxpy_on(target):
    """The NumbaPro SAXPY slide: one scalar function, three targets."""
    @vectorize(['float32(float32, float32, float32)'], target=target)
    def saxpy(a, x, y):
        return a * x + y
    return saxpy


# The hidden layer, its three steps as GPU ufuncs.
@vectorize(['float32(float32)'], target='cuda')
def normalize(grayscales):
    return grayscales / 255


@vectorize(['float32(float32, float32)'], target='cuda')
def weigh(values, weights):
    return values * weights


@vectorize(['float32(float32)'], target='cuda')
def activate(values):
    return (math.exp(values) - math.exp(-values)) / (math.exp(values) + math.exp(-values))


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    greyscales_device = cuda.to_device(greyscales)
    weights_device = cuda.to_device(weights)
    out_device = cuda.device_array(shape=(n,), dtype=np.float32)
    normalize(greyscales_device, out=out_device)
    weigh(out_device, weights_device, out=out_device)
    activate(out_device, out=out_device)
    return out_device.copy_to_host()


def main():
    nums = np.arange(10)
    print("add_ten:", add_ten(nums))
    a = np.array([1, 2, 3, 4])
    b = np.array([10, 20, 30, 40])
    print("add_ufunc:", add_ufunc(a, b))
    assert np.array_equal(add_ufunc(a, b), a + b)

    x = np.random.uniform(-3, 3, size=1000000).astype(np.float32)
    mean = np.float32(0.0)
    sigma = np.float32(1.0)
    print("gaussian_pdf(x[0], 0.0, 1.0):", gaussian_pdf(x[0], 0.0, 1.0))
    g = gaussian_pdf(x, mean, sigma)
    np.testing.assert_allclose(g, cpu_gaussian_pdf(x, mean, sigma), rtol=1e-6)

    n = 1000000
    rho1 = np.random.uniform(0.5, 1.5, size=n).astype(np.float32)
    theta1 = np.random.uniform(-np.pi, np.pi, size=n).astype(np.float32)
    rho2 = np.random.uniform(0.5, 1.5, size=n).astype(np.float32)
    theta2 = np.random.uniform(-np.pi, np.pi, size=n).astype(np.float32)
    d = polar_distance(rho1, theta1, rho2, theta2)
    want = np.hypot(rho1 * np.cos(theta1) - rho2 * np.cos(theta2), rho1 * np.sin(theta1) - rho2 * np.sin(theta2))
    np.testing.assert_allclose(d, want, rtol=1e-4, atol=1e-5)
    print("polar_distance:", d)

    n = 100000
    noise = (np.random.normal(size=n) * 3).astype(np.float32)
    t = np.arange(n, dtype=np.float32)
    period = n / 23
    waveform = add_ufunc_f32(make_pulses(t, period, 100.0), noise)
    print("zero_suppress:", zero_suppress(waveform, 15.0)[:8])

    # Device arrays between ufuncs: one copy in, one copy out.
    t_device = cuda.to_device(t)
    noise_device = cuda.to_device(noise)
    out_device = cuda.device_array(shape=(n,), dtype=np.float32)
    pulses = make_pulses(t_device, period, 100.0, out=out_device)
    waveform = add_ufunc_f32(pulses, noise_device, out=out_device)
    host = out_device.copy_to_host()
    np.testing.assert_allclose(host, np.maximum(np.sin(t / np.float32(period)) - 0.3, 0.0) * 100 + noise,
                               rtol=1e-4, atol=1e-3)

    angles = np.random.uniform(-np.pi, np.pi, 10)
    coords = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    print("l2_norm:", l2_norm(coords))
    assert np.allclose(l2_norm(coords), 1.0)

    xs = np.random.rand(1 << 20).astype(np.float32)
    ys = np.random.rand(1 << 20).astype(np.float32)
    results = {target: saxpy_on(target)(np.float32(2.0), xs, ys) for target in ("cpu", "parallel", "gpu")}
    for target, r in results.items():
        np.testing.assert_array_equal(r, np.float32(2.0) * xs + ys)
    print("saxpy on cpu, parallel and gpu: equal")

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
    greyscales = np.floor(np.random.uniform(0, 255, n).astype(np.float32))
    weights = np.random.normal(.5, .1, n).astype(np.float32)
    create_hidden_layer(1024, greyscales[:1024], weights[:1024], math.exp, normalize, weigh, activate)
    start = time.perf_counter()
    layer = create_hidden_layer(n, greyscales, weights, math.exp, normalize, weigh, activate)
    elapsed = time.perf_counter() - start
    np.testing.assert_allclose(layer, np.tanh(greyscales / np.float32(255) * weights), rtol=1e-5, atol=1e-6)
    print(f"hidden layer with GPU ufuncs, n = {n}: correct, {elapsed:.3f} s on the {cuforge.backend()} backend")


if __name__ == "__main__":
    main()
