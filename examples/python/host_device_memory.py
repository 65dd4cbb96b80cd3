"""Memory the device can reach from the host: mapped (zero-copy) arrays,
managed (unified) arrays, and pinning existing NumPy arrays in place."""

import numpy as np

from cuforge import cuda

m = cuda.mapped_array(8, dtype=np.int32)
m[:] = np.arange(8)
dm = m.device_view()                       # the same memory, as a device array
dm[::2] = -1                               # written through the device view...
assert (m == [-1, 1, -1, 3, -1, 5, -1, 7]).all()  # ...and seen on the host
print("mapped_array:", type(m).__name__, m)

u = cuda.managed_array((2, 3), dtype=np.float64)
u[:] = 1.5
assert u.device_view().copy_to_host().sum() == 9.0
print("managed_array:", type(u).__name__, u.tolist())

a = np.arange(100_000, dtype=np.float64)
with cuda.pinned(a):                       # page-locked in place for the scope
    d = cuda.to_device(a)
assert (d.copy_to_host() == a).all()
with cuda.mapped(a) as da:                 # mapped in place: no copy at all
    assert da.shape == a.shape
    da[:10] = 0
assert (a[:10] == 0).all()
print("pinned()/mapped() scopes over an existing array: ok")
