"""Child of test_private_sums.py: a histogram kernel with cache=True, run once;
prints the bins, whether they equal NumPy's bincount, the cache hits and the
arguments the compiler marked as private sums."""

import json

import numpy as np

from cuforge import cuda


@cuda.jit(cache=True)
def histogram(values, bins):
    start = cuda.grid(1)
    for i in range(start, values.size, cuda.gridsize(1)):
        cuda.atomic.add(bins, values[i], 1)


def main():
    values = np.random.default_rng(1).integers(0, 100, 1 << 18, dtype=np.int32)
    bins = np.zeros(100, np.int64)
    histogram[256, 256](values, bins)
    (cf,) = histogram._definitions_by_spec().values()
    print(json.dumps({"bins": bins.tolist(), "ok": bool((bins == np.bincount(values, minlength=100)).all()),
                      "hits": sum(histogram.stats.cache_hits.values()), "private_sums": cf.private_sums}))


if __name__ == "__main__":
    main()
