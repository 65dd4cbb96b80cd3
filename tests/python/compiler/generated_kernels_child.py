"""Kernels with no source Python can find, built the ways libraries and
users build them, run in a process of their own by test_bytecode_frontend.py
(also with ``-`` on standard input: see there). Prints one JSON line of
results.

Argument ``cache DIR`` runs only the cached kernel (cache=True, the disk
cache in DIR) and reports its hits and misses."""

import json
import sys

import numpy as np

from cuforge import cuda


def cached(folder):
    import os

    os.environ["CUFORGE_CACHE_DIR"] = folder
    ns = {"cuda": cuda}
    exec(compile("def scale(x, k):\n    i = cuda.grid(1)\n    if i < x.size:\n        x[i] = x[i] * k\n",
                 "<generated>", "exec"), ns)
    kern = cuda.jit(cache=True)(ns["scale"])
    x = np.arange(8, dtype=np.float64)
    kern[1, 8](x, 3.0)
    s = kern.stats
    return {"out": x.tolist(), "hits": sum(s.cache_hits.values()), "misses": sum(s.cache_misses.values())}


# numba-cuda's own tests make a kernel per dtype from a template like this one.
ATOMIC = """
def atomic_add_{name}(ary):
    tid = cuda.threadIdx.x
    cuda.atomic.add(ary, tid % 4, {one})
"""

# A cuDF-style UDF kernel: the user's function (here itself generated from
# an expression string) compiled as a device function, the loop around it
# generated from a template.
UDF_TEMPLATE = """
def udf_kernel(out, {params}, n):
    i = cuda.grid(1)
    if i < n:
        out[i] = udf({elements})
"""


def generated():
    results = {}
    for name, dtype, one in (("int32", np.int32, "1"), ("int64", np.int64, "1"), ("uint32", np.uint32, "1"),
                             ("float32", np.float32, "1.0"), ("float64", np.float64, "1.0")):
        ns = {"cuda": cuda}
        exec(ATOMIC.format(name=name, one=one), ns)
        kern = cuda.jit(ns[f"atomic_add_{name}"])
        ary = np.zeros(4, dtype=dtype)
        kern[1, 32](ary)
        results[f"atomic_{name}"] = ary.tolist()

    udf_ns = {}
    exec("def udf(x, y):\n    return x * 2 + y if x > 0 else y - x\n", udf_ns)
    udf = cuda.jit(device=True)(udf_ns["udf"])
    ns = {"cuda": cuda, "udf": udf}
    exec(UDF_TEMPLATE.format(params="a, b", elements="a[i], b[i]"), ns)
    kern = cuda.jit(ns["udf_kernel"])
    a = np.array([1.0, -2.0, 3.0, -4.0])
    b = np.array([10.0, 20.0, 30.0, 40.0])
    out = np.zeros(4)
    kern[1, 8](out, a, b, 4)
    results["udf"] = out.tolist()

    # Closures and globals of a generated function resolve as for any function.
    factory = {"cuda": cuda, "OFFSET": 100}
    exec("def make(k):\n"
         "    def kern(x):\n"
         "        i = cuda.grid(1)\n"
         "        if i < x.size:\n"
         "            x[i] = x[i] * k + OFFSET\n"
         "    return kern\n", factory)
    x = np.arange(4, dtype=np.int64)
    cuda.jit(factory["make"](3))[1, 4](x)
    results["closure"] = x.tolist()

    # A lambda given to cuda.reduce and a lambda device function.
    results["reduce"] = float(cuda.reduce(lambda p, q: p + q)(np.arange(100, dtype=np.float64)))
    results["reduce_max"] = float(cuda.reduce(lambda p, q: max(p, q))(np.array([3.0, 9.0, 1.0])))
    twice = cuda.jit(device=True)(lambda v: v * 2)
    ns = {"cuda": cuda, "twice": twice}
    exec("def use_twice(x):\n    i = cuda.grid(1)\n    if i < x.size:\n        x[i] = twice(x[i])\n", ns)
    y = np.arange(3, dtype=np.float32)
    cuda.jit(ns["use_twice"])[1, 4](y)
    results["lambda_device"] = y.tolist()
    return results


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "cache":
        print(json.dumps(cached(sys.argv[2])))
    else:
        print(json.dumps(generated()))
