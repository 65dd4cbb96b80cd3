#!/usr/bin/env python3
"""bench/compile: how compile time grows with a kernel's size.

    python3 bench/compile/bench_compile_size.py [--sizes 10,100,1000,3000] [--runs 3]

Generated kernels of N statements, compiled by ``cuda.compile_ptx`` for
sm_90 in a fresh process each (the median of --runs), in two shapes: "few
variables" (two accumulators updated N times, branches among them) and "many
variables" (each statement defines a new variable from the last ones, every
fourth in an if/else). Prints the time, the time per statement, and the
growth from each size to the next against the size's own growth: linear
growth has a ratio near 1. Goal (issue 16 item 5): linear.
"""

import argparse
import json
import statistics
import subprocess
import sys

CHILD = r'''
import json, linecache, sys, time
from cuforge import cuda

shape, n = sys.argv[1], int(sys.argv[2])
if shape == "few":
    lines = ["def big(out, x):", "    a = x[0]", "    b = x[1]"]
    for k in range(n):
        if k % 3 == 0:
            lines.append("    a = a * 1.0001 + b")
        elif k % 3 == 1:
            lines.append(f"    if a > {k}.0:\n        b = b - a * 0.5")
        else:
            lines.append(f"    b = b + {k % 7}.0")
    lines.append("    out[0] = a + b")
else:
    lines = ["def big(out, x):", "    v0 = x[0]", "    v1 = x[1]"]
    for k in range(2, n + 2):
        if k % 4 == 0:
            lines.append(f"    if v{k-1} > {k}.0:\n        v{k} = v{k-1} * 0.5\n    else:\n        v{k} = v{k-2} + 1.0")
        else:
            lines.append(f"    v{k} = v{k-1} * 1.0001 + {k % 7}.0")
    lines.append(f"    out[0] = v{n + 1}")
code = "\n".join(lines) + "\n"
name = f"<bench-size {shape} {n}>"
linecache.cache[name] = (len(code), None, code.splitlines(True), name)
ns = {"cuda": cuda}
exec(compile(code, name, "exec"), ns)


def warm(out, x):  # the process's first compile pays for setting the compiler up: not this bench's subject
    out[0] = x[0]


cuda.compile_ptx(warm, "void(float64[:], float64[:])", cc=(9, 0))
t = time.perf_counter()
cuda.compile_ptx(ns["big"], "void(float64[:], float64[:])", cc=(9, 0))
print(json.dumps({"ms": (time.perf_counter() - t) * 1e3}))
'''


def measure(shape, n):
    done = subprocess.run([sys.executable, "-c", CHILD, shape, str(n)], capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed")
    return json.loads(done.stdout.strip().splitlines()[-1])["ms"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10,100,1000,3000")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    for shape in ("few", "many"):
        print(f"{shape} variables:")
        last = None
        for n in sizes:
            ms = statistics.median(measure(shape, n) for _ in range(args.runs))
            growth = "" if last is None else f"   x{ms / last[1]:.2f} for x{n / last[0]:.0f} statements " \
                                             f"(ratio {ms / last[1] / (n / last[0]):.2f})"
            print(f"  {n:6d} statements  {ms:8.1f} ms  {ms / n * 1e3:7.1f} us/statement{growth}")
            last = (n, ms)


if __name__ == "__main__":
    main()
