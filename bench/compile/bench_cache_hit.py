#!/usr/bin/env python3
"""bench/compile/bench_cache_hit: a disk-cache hit, from fresh processes.

    python3 bench/compile/bench_cache_hit.py [--runs 15]

Writes a small kernel module (a fresh salt, so no earlier run's entry
matches), stores it once (``cache=True``, a miss), then times in --runs
fresh processes: importing the module and the first launch, minus a warm
launch: a kernel loaded from disk and launched, ``import cuforge``
excluded. The same with ``cache=False`` gives the compile it replaces.
Also prints where a hit goes (key, read and check, link), from the cache's
own functions. Goal (docs/compiler.md, "Disk cache"): a hit under 2 ms.

Each figure is measured twice: with Python's cyclic collector settled
(``gc.collect()``) just before the timed region, and with the process as
it came. The imports before it (NumPy, cuforge) leave thousands of young
objects; whether a collection of them (about 1 ms here) lands inside the
timed region depends on allocation counts no cache controls, and it moves
between runs of the same script for unrelated edits. ``timeit`` turns the
collector off for the same reason; the goal is judged on the settled run,
and the other is printed beside it.
"""

import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import uuid

KERNEL = '''
import numpy as np
from math import tanh

from cuforge import cuda

SALT = {salt}


@cuda.jit(cache={cache})
def activate(values, out):
    i = cuda.grid(1)
    if i < values.size:
        out[i] = tanh(values[i]) + (SALT - SALT)
'''

DRIVER = '''
import gc, json, sys, time
import numpy as np
from cuforge import cuda
from cuforge.cuda import _cache

phases = {}


def timed(owner, name, label):
    real = getattr(owner, name)

    def wrapper(*args, **kwargs):
        t = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            phases[label] = phases.get(label, 0.0) + time.perf_counter() - t

    setattr(owner, name, wrapper)


timed(_cache.DiskCache, "key", "key")
timed(_cache.DiskCache, "_read", "read")
timed(_cache, "_decode", "MAC")
timed(_cache, "_manifest_holds", "globals")
timed(_cache.DiskCache, "load", "load")
a = cuda.to_device(np.linspace(-1, 1, 64, dtype=np.float32))
b = cuda.device_array(64, dtype=np.float32)
cuda.synchronize()
if "settled" in sys.argv:
    gc.collect()
t0 = time.perf_counter()
from kernel_mod import activate
activate[2, 32](a, b)
cuda.synchronize()
t1 = time.perf_counter()
warm = []
for _ in range(5):  # the fastest of a few: one slowed by the scheduler would skew the difference
    t = time.perf_counter()
    activate[2, 32](a, b)
    cuda.synchronize()
    warm.append(time.perf_counter() - t)
assert abs(float(b.copy_to_host()[0]) - float(np.tanh(np.float32(-1)))) < 1e-5
s = activate.stats
print(json.dumps({"first": t1 - t0, "warm": min(warm), "hits": sum(s.cache_hits.values()), "phases": phases}))
'''


def run(folder, env, mode="settled"):
    r = subprocess.run([sys.executable, "driver.py", mode], cwd=folder, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"the driver failed:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def measure(cache, runs):
    folder = pathlib.Path(tempfile.mkdtemp(prefix="bench_cache_hit_"))
    try:
        (folder / "kernel_mod.py").write_text(KERNEL.format(salt=int(uuid.uuid4().hex[:12], 16), cache=cache))
        (folder / "driver.py").write_text(DRIVER)
        env = dict(os.environ, CUFORGE_CACHE_DIR=str(folder / "cache"), PYTHONDONTWRITEBYTECODE="1")
        store = run(folder, env) if cache else None
        rows = [run(folder, env) for _ in range(runs)]
        as_came = [run(folder, env, "as-came") for _ in range(runs)]
        return store, rows, as_came
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15, help="fresh processes per measurement (median)")
    args = ap.parse_args()

    import cuforge

    store, hits, hits_as_came = measure(True, args.runs)
    _, colds, _ = measure(False, max(3, args.runs // 3))
    if store["hits"] != 0 or any(r["hits"] != 1 for r in hits + hits_as_came):
        raise SystemExit("expected one miss then hits: the cache did not serve the kernel")
    hit = statistics.median(r["first"] - r["warm"] for r in hits)
    best = min(r["first"] - r["warm"] for r in hits)
    hit_as_came = statistics.median(r["first"] - r["warm"] for r in hits_as_came)
    cold = statistics.median(r["first"] - r["warm"] for r in colds)
    print(f"bench/compile cache hit: first launch in a fresh process minus a warm launch, ms "
          f"(backend: {cuforge.backend()}, median of {args.runs}, best {best * 1e3:.2f})")
    print(f"  cache=True hit {hit * 1e3:8.2f}   cache=False compile {cold * 1e3:8.2f}   "
          f"storing {(store['first'] - store['warm']) * 1e3:8.2f}   (collector settled first)")
    print(f"  cache=True hit {hit_as_came * 1e3:8.2f}   with the process as it came (a collection of the "
          f"imports' objects may land inside)")
    phases = {k: statistics.median(r["phases"].get(k, 0.0) for r in hits) for k in hits[0]["phases"]}
    inner = " ".join(f"{k} {v * 1e3:.2f}" for k, v in phases.items() if k != "load")
    print(f"  the hit's load {phases.get('load', 0.0) * 1e3:.2f} ms: {inner} (the rest: linking the code)")
    print(f"  {cold / hit:.1f}x faster than compiling")
    print(f"goal: a disk-cache hit under 2 ms: {hit * 1e3:.2f} ms ({'met' if hit < 0.002 else 'NOT met'})")


if __name__ == "__main__":
    main()
