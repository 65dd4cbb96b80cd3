#!/usr/bin/env python3
"""bench/random: cuforge.cuda.random's xoroshiro128+ states and draws.

    python3 bench/random/bench_random.py [--n N] [--draws 64] [--repeats 5] [--no-numba]

- States: `create_xoroshiro128p_states(n, seed)` with a synchronize, after one
  call that compiles the init kernel (every thread jumps ahead on its own).
- Draws: a kernel in which each of n threads draws --draws float32 uniforms
  and stores them (n * draws * 4 bytes written, the states read and written
  once); the rate in GB/s of what is written.

Baselines in the same run, on a GPU with numba-cuda importable (--no-numba
leaves them out): numba-cuda's create_xoroshiro128p_states (states made on the
host, then copied) and the same draw kernel under numba-cuda. On the cpu
backend only our figures are printed (default n = 64K there, 1M on a GPU).
Goals (GPU): 1M states in <= 1 ms; the draws at >= 0.9 of DRAM bandwidth
(bench/stream's copy gives that figure on the same GPU).
"""

import argparse
import statistics
import sys
import time

import numpy as np

from cuforge import cuda
from cuforge.cuda import random as ours


def draw_kernel(jit, uniform):
    def k(states, out, draws):
        i = jit.grid(1)
        if i < states.shape[0]:
            for d in range(draws):
                out[d, i] = uniform(states, i)

    return jit.jit(k)


def median_time(fn, repeats, sync):
    times = []
    for _ in range(repeats):
        sync()
        t = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def measure(name, jit, rnd, n, draws, repeats):
    sync = jit.synchronize
    rnd.create_xoroshiro128p_states(256, seed=1)  # compiles (ours) / warms up
    states_s = median_time(lambda: rnd.create_xoroshiro128p_states(n, seed=1), repeats, sync)
    states = rnd.create_xoroshiro128p_states(n, seed=1)
    out = jit.device_array((draws, n), dtype=np.float32)
    k = draw_kernel(jit, rnd.xoroshiro128p_uniform_float32)
    blocks = (n + 255) // 256
    k[blocks, 256](states, out, draws)
    sync()
    draw_s = median_time(lambda: k[blocks, 256](states, out, draws), repeats, sync)
    gbps = n * draws * 4 / draw_s / 1e9
    print(f"{name:12s} states: {states_s * 1e3:9.3f} ms   draws: {draw_s * 1e3:9.3f} ms  ({gbps:7.1f} GB/s written)")
    return states_s, draw_s


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=None)
    p.add_argument("--draws", type=int, default=64)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--no-numba", action="store_true")
    a = p.parse_args()
    gpu = cuda.backend() == "cuda"
    n = a.n or (1 << 20 if gpu else 1 << 16)
    print(f"backend {cuda.backend()}: n = {n} states, {a.draws} float32 draws each")
    mine = measure("cuforge", cuda, ours, n, a.draws, a.repeats)
    if gpu and not a.no_numba:
        try:
            sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2] / "tests" / "python"
                                   / "compiler"))
            from numba_compat import numba_cuda

            ncuda = numba_cuda()
            from numba.cuda import random as theirs
        except Exception as e:  # noqa: BLE001 - the baseline is optional
            print(f"numba-cuda not measured: {type(e).__name__}: {e}")
            return 0
        base = measure("numba-cuda", ncuda, theirs, n, a.draws, a.repeats)
        print(f"ratio (ours / numba-cuda): states {mine[0] / base[0]:.3f}x, draws {mine[1] / base[1]:.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
