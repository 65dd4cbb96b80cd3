"""Zero-copy exchange with other array libraries: DLPack with NumPy (and,
on a GPU, CuPy and PyTorch through both DLPack and the CUDA Array
Interface)."""

import numpy as np

import cuforge
from cuforge import cuda

d = cuda.to_device(np.arange(8, dtype=np.float32))
print("our array's DLPack device:", d.__dlpack_device__())

if cuforge.backend() == "cpu":
    # The cpu backend's device memory is host memory: NumPy sees it directly.
    h = np.from_dlpack(d)
    h[0] = 100.0
    assert d.copy_to_host()[0] == 100.0
    print("np.from_dlpack(device array) shares memory:", h[:4])
    a = np.zeros(4)
    da = cuda.from_dlpack(a)
    da[:] = 7
    assert (a == 7).all()
    print("cuda.from_dlpack(numpy array) shares memory:", a)
else:
    print("__cuda_array_interface__:", d.__cuda_array_interface__)

try:
    import cupy
except ImportError:
    cupy = None
if cupy is not None and cuforge.backend() == "cuda":
    c = cupy.asarray(d)                    # CuPy reads our interface: no copy
    c[1] = -1
    assert d.copy_to_host()[1] == -1
    back = cuda.as_cuda_array(cupy.arange(5))  # and we read CuPy's
    print("CuPy <-> cuforge, zero-copy:", c[:3], back.copy_to_host())

try:
    import torch
except ImportError:
    torch = None
if torch is not None and cuforge.backend() == "cuda" and torch.cuda.is_available():
    t = torch.from_dlpack(d)               # DLPack, with a stream handshake
    t[2] = 42
    assert d.copy_to_host()[2] == 42
    mine = cuda.from_dlpack(torch.arange(6, device="cuda"))
    print("PyTorch <-> cuforge, zero-copy:", t[:3].tolist(), mine.copy_to_host())

print("interop example done on the", cuforge.backend(), "backend")
