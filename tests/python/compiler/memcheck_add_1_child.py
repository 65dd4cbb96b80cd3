"""The seed's off-by-one add_1 without boundscheck, for compute-sanitizer's
memcheck on a GPU (scripts/gpu_run.sh, docs/debugging.md): five threads
write a four-element array, so thread 4 writes 8 bytes past its end. Run it
only under memcheck on a GPU: on the cpu backend the write lands past the
allocation."""

import numpy as np

from cuforge import cuda


@cuda.jit(lineinfo=True)
def add_1(a):
    i = cuda.threadIdx.x
    a[i] += 1


d = cuda.to_device(np.zeros(4))
add_1[1, 5](d)
cuda.synchronize()
print("add_1 ran:", d.copy_to_host())
