"""Device functions: hypot (the course's first example) and polar_to_cartesian
returning a tuple, called from kernels; and a nan_compact-style loop.

The kernels are importable (tests and benchmarks use these); running the
file runs the demonstration.
"""

import math

import numpy as np

from cuforge import cuda


@cuda.jit(device=True)
def hypot(x, y):
    x = abs(x)
    y = abs(y)
    t = min(x, y)
    x = max(x, y)
    t = t / x
    return x * math.sqrt(1 + t * t)


@cuda.jit(device=True)
def polar_to_cartesian(rho, theta):
    x = rho * math.cos(theta)
    y = rho * math.sin(theta)
    return x, y


@cuda.jit
def polar_distance(rho1, theta1, rho2, theta2, out):
    i = cuda.grid(1)
    if i < out.size:
        x1, y1 = polar_to_cartesian(rho1[i], theta1[i])
        x2, y2 = polar_to_cartesian(rho2[i], theta2[i])
        out[i] = hypot(x1 - x2, y1 - y2)


@cuda.jit
def nan_compact(x, out, count):
    # One thread walks the array (a loop-heavy kernel, as the seed's CPU
    # example): keep the values that are not NaN, in order.
    if cuda.grid(1) == 0:
        k = 0
        for element in x:
            if not math.isnan(element):
                out[k] = element
                k += 1
        count[0] = k


def main():
    n = 10_000
    rng = np.random.default_rng(2)
    rho1, rho2 = rng.uniform(0.5, 1.5, (2, n)).astype(np.float32)
    theta1, theta2 = rng.uniform(-np.pi, np.pi, (2, n)).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    polar_distance[(n + 255) // 256, 256](rho1, theta1, rho2, theta2, out)
    expected = np.hypot(rho1 * np.cos(theta1) - rho2 * np.cos(theta2), rho1 * np.sin(theta1) - rho2 * np.sin(theta2))
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)
    print("hypot and polar_to_cartesian device functions: ok")

    a = rng.uniform(size=1000)
    a[a < 0.2] = np.nan
    out = np.zeros_like(a)
    count = np.zeros(1, dtype=np.int64)
    nan_compact[1, 1](a, out, count)
    np.testing.assert_array_equal(out[: count[0]], a[~np.isnan(a)])
    print("nan_compact loop: ok,", count[0], "values kept")


if __name__ == "__main__":
    main()
