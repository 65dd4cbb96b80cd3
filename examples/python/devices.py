"""What is there: devices, their properties, memory, and the backend."""

import cuforge
from cuforge import cuda

print("backend:", cuforge.backend(), "-", cuforge.backend_reason())
cuda.detect()
dev = cuda.get_current_device()
print(dev, "compute capability", dev.compute_capability)
print("  multiprocessors:", dev.MULTIPROCESSOR_COUNT, " warp size:", dev.WARP_SIZE,
      " max threads/block:", dev.MAX_THREADS_PER_BLOCK)
free, total = cuda.current_context().get_memory_info()
print(f"  memory: {free / 2**30:.1f} GiB free of {total / 2**30:.1f} GiB")
for gpu in cuda.gpus:
    with gpu:
        print("  selected", cuda.get_current_device())
