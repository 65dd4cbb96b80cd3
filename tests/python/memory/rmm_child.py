"""RMM's numba plugin, unchanged, as cuforge's memory manager (on a GPU):
arrays and kernels work and RMM sees the allocations. Prints 'ok'."""

import gc

import numpy as np
import rmm
from rmm.allocators.numba import RMMNumbaManager

from cuforge import cuda

rmm.reinitialize(pool_allocator=True, initial_pool_size=1 << 26)
cuda.set_memory_manager(RMMNumbaManager)
stats = rmm.mr.StatisticsResourceAdaptor(rmm.mr.get_current_device_resource())
rmm.mr.set_current_device_resource(stats)


@cuda.jit
def twice(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = 2 * a[i]


def current_count():
    # A dict in older RMM, a Statistics object with the same names in newer ones.
    counts = stats.allocation_counts
    return counts["current_count"] if isinstance(counts, dict) else counts.current_count


a = np.arange(100_000, dtype=np.float32)
d = cuda.to_device(a)
out = cuda.device_array_like(d)
twice[400, 256](d, out)
assert np.array_equal(out.copy_to_host(), 2 * a)
assert current_count() >= 2, stats.allocation_counts
del d, out
gc.collect()
cuda.synchronize()
gc.collect()
assert current_count() == 0, stats.allocation_counts
print("ok")
