"""cuforge kernels on the chunks of a Dask array.

`dask.array.map_blocks` hands each chunk (a NumPy array) to a function that
moves it to the device, runs a cuforge kernel and brings the result back.
It runs on Dask's threaded scheduler (one process, the chunks in parallel
threads) and on a `distributed.LocalCluster` with two worker processes
(the function and its kernel travel to the workers by pickle and compile
there). Results are checked against NumPy's. On a machine with several
GPUs, give each worker its own (CUDA_VISIBLE_DEVICES per worker, as
dask-cuda does); docs/scaling.md.
"""

import math
import sys

import numpy as np

from cuforge import cuda

try:
    import dask
    import dask.array as da
except ImportError:
    print("dask is not installed (pip install 'dask[array]' distributed): skipped")
    sys.exit(0)


@cuda.jit
def smooth_step(x, out):
    i = cuda.grid(1)
    if i < x.size:
        t = min(max(x[i], 0.0), 1.0)
        out[i] = t * t * (3.0 - 2.0 * t) + math.sin(x[i])


def on_device(block):
    """One chunk: to the device, the kernel, back."""
    d = cuda.to_device(np.ascontiguousarray(block).ravel())
    out = cuda.device_array_like(d)
    threads = 256
    smooth_step[(d.size + threads - 1) // threads, threads](d, out)
    return out.copy_to_host().reshape(block.shape)


def expected(x):
    t = np.clip(x, 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t) + np.sin(x)


def main():
    rng = np.random.default_rng(7)
    host = rng.uniform(-1.0, 2.0, size=(2000, 500))
    x = da.from_array(host, chunks=(500, 250))  # 8 chunks
    y = x.map_blocks(on_device, dtype=x.dtype)

    with dask.config.set(scheduler="threads"):
        threaded = y.compute()
    assert np.allclose(threaded, expected(host), rtol=1e-12, atol=1e-12)
    print(f"threaded scheduler: {x.npartitions} chunks, equal to NumPy's")

    try:
        from distributed import Client, LocalCluster
    except ImportError:
        print("distributed is not installed: the LocalCluster part is skipped")
        return
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        distributed_result = client.compute(y).result()
        workers = len(client.scheduler_info()["workers"])
    assert np.allclose(distributed_result, expected(host), rtol=1e-12, atol=1e-12)
    assert np.array_equal(distributed_result, threaded)
    print(f"LocalCluster with {workers} worker processes: equal to NumPy's and to the threaded run")


if __name__ == "__main__":
    main()
