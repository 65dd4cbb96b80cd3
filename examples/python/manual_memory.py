"""Manual memory management, as the seed talks teach it: allocate on the
device, copy in, work on device arrays, bring results back only when needed.
(Kernels join in once the compiler lands; the transfers are the same.)"""

import numpy as np

from cuforge import cuda

x = np.arange(10)
y = x * 2

d_x = cuda.to_device(x)
d_y = cuda.to_device(y)
d_r = cuda.device_array_like(x)

# No kernel yet: device-to-device assignment and views stand in for one.
d_r[:] = d_y
d_r[::2] = d_x[::2]
r = d_r.copy_to_host()
expected = y.copy()
expected[::2] = x[::2]
assert (r == expected).all(), (r, expected)
print("to_device / device_array_like / setitem / copy_to_host:", r)

# A 1024 x 2048 matrix of float32, and slicing views of it.
arr = cuda.device_array((1024, 2048), dtype=np.float32)
arr[:] = 0
arr[10:20, ::4] = np.float32(3.5)
host = arr.copy_to_host()
assert host.sum() == 10 * 512 * 3.5
print("device_array((1024, 2048), float32): strided fill ok; sum =", host.sum())

# Reuse memory instead of reallocating: copy into an existing array.
buf = cuda.device_array(1000, dtype=np.float64)
for k in range(3):
    cuda.to_device(np.full(1000, k, dtype=np.float64), to=buf)
    assert buf.copy_to_host().mean() == k
print("to_device(..., to=buf) reuses device memory")

# Transposes and reshapes are views or copies, as in NumPy.
m = cuda.to_device(np.arange(12.0).reshape(3, 4))
assert (m.T.copy_to_host() == np.arange(12.0).reshape(3, 4).T).all()
assert (m.reshape(4, 3).copy_to_host() == np.arange(12.0).reshape(4, 3)).all()
print("T / reshape / ravel ok:", m.ravel().copy_to_host()[:6], "...")
