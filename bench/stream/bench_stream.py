#!/usr/bin/env python3
"""bench/stream: memory-bound kernels against the device's copy bandwidth.

    python3 bench/stream/bench_stream.py [--n N] [--repeats 20]

STREAM's four kernels (copy, scale, add, triad) and SAXPY, written as a
numba.cuda user writes them (one element per thread, float32), timed with
CUDA events on device arrays made beforehand. Each is reported as the bytes
it moves (read + written) per second and as a ratio to the device's own
copy bandwidth, measured in the same run: a device-to-device cuMemcpyDtoD
of the same size (``copy_to_device``), which moves 2 x N x 4 bytes.
Where CuPy is importable (GPU), its elementwise copy (``b[...] = a``) is a
second baseline, a kernel someone else compiled.

The same copy and triad also run as grid-stride loops on 8 blocks per SM,
and with four loads in flight per thread before its stores; where
numba-cuda is importable (GPU), its rows run the same source (this file
with its import made numba's), timed alike.

Goal on a GPU: memory-bound kernels >= 0.9x the copy bandwidth, judged on
the kernels with loads in flight. One element per thread keeps a single
4-byte load in flight per thread, which on an H200 cannot cover the memory
latency at full occupancy whatever compiled it (numba-cuda's rows show the
same). On the cpu backend the ratios show where the host engine stands
against memcpy (n defaults to 2^22 there, 2^28 on a GPU).
"""
import argparse
import statistics

import numpy as np

import cuforge
from cuforge import cuda


@cuda.jit
def stream_copy(a, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i]


@cuda.jit
def stream_scale(b, c, q):
    i = cuda.grid(1)
    if i < b.size:
        b[i] = q * c[i]


@cuda.jit
def stream_add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cuda.jit
def stream_triad(a, b, c, q):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = b[i] + q * c[i]


@cuda.jit
def saxpy(alpha, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = alpha * x[i] + y[i]


# The same work as grid-stride loops (the README's vector_add), launched on a few blocks per SM:
# each thread has several loads in flight once the loop is unrolled.
@cuda.jit
def copy_strided(a, c):
    for i in range(cuda.grid(1), c.size, cuda.gridsize(1)):
        c[i] = a[i]


@cuda.jit
def triad_strided(a, b, c, q):
    for i in range(cuda.grid(1), a.size, cuda.gridsize(1)):
        a[i] = b[i] + q * c[i]


# Four loads in flight per thread before the stores: the arrays may overlap (as far as either
# compiler knows), so a load cannot move above an earlier store and in the loops above each warp
# waits for one load at a time; written this way, four are in flight.
@cuda.jit
def copy_four(a, c):
    n, step = c.size, cuda.gridsize(1)
    i = cuda.grid(1)
    while i + 3 * step < n:
        x0, x1, x2, x3 = a[i], a[i + step], a[i + 2 * step], a[i + 3 * step]
        c[i], c[i + step], c[i + 2 * step], c[i + 3 * step] = x0, x1, x2, x3
        i += 4 * step
    while i < n:
        c[i] = a[i]
        i += step


@cuda.jit
def triad_four(a, b, c, q):
    n, step = a.size, cuda.gridsize(1)
    i = cuda.grid(1)
    while i + 3 * step < n:
        y0, y1, y2, y3 = b[i] + q * c[i], b[i + step] + q * c[i + step], b[i + 2 * step] + q * c[i + 2 * step], \
            b[i + 3 * step] + q * c[i + 3 * step]
        a[i], a[i + step], a[i + 2 * step], a[i + 3 * step] = y0, y1, y2, y3
        i += 4 * step
    while i < n:
        a[i] = b[i] + q * c[i]
        i += step


def timed(fn, repeats, cu=cuda):
    """Median milliseconds of fn() between two events of `cu` (cuforge's cuda or numba's), after a warm-up."""
    fn()
    cu.synchronize()
    start, end = cu.event(), cu.event()
    times = []
    for _ in range(repeats):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cu.event_elapsed_time(start, end))
    return statistics.median(times)


def numba_side(n, tpb, blocks, few, host, q, repeats):
    """numba-cuda's rows: the same kernels (this file's source with numba's imports), timed alike."""
    import pathlib
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    import _examples

    try:
        ncuda = _examples.numba_cuda()
        src = pathlib.Path(__file__).read_text().replace("from cuforge import cuda", "from numba import cuda")
        ns = {"__name__": "bench_stream_numba"}
        exec(compile(src, __file__, "exec"), ns)  # noqa: S102 - this file, its import made numba's
    except Exception as e:  # noqa: BLE001 - the rows are left out, saying why
        print(f"numba-cuda: not available ({type(e).__name__}: {e})")
        return []
    a, b, c = (ncuda.to_device(host) for _ in range(3))

    def t(fn):
        return timed(fn, repeats, ncuda)

    word = 4
    return [("numba copy", 2 * n * word, t(lambda: ns["stream_copy"][blocks, tpb](a, c))),
            ("numba triad", 3 * n * word, t(lambda: ns["stream_triad"][blocks, tpb](a, b, c, q))),
            ("numba copy (grid-stride)", 2 * n * word, t(lambda: ns["copy_strided"][few, tpb](a, c))),
            ("numba triad (grid-stride)", 3 * n * word, t(lambda: ns["triad_strided"][few, tpb](a, b, c, q))),
            ("numba copy (4 in flight)", 2 * n * word, t(lambda: ns["copy_four"][few, tpb](a, c))),
            ("numba triad (4 in flight)", 3 * n * word, t(lambda: ns["triad_four"][few, tpb](a, b, c, q)))]


def main():
    on_gpu = cuforge.backend() == "cuda"
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=(1 << 28) if on_gpu else (1 << 22))
    ap.add_argument("--repeats", type=int, default=20 if on_gpu else 5)
    args = ap.parse_args()
    n, tpb = args.n, 256
    blocks = (n + tpb - 1) // tpb
    rng = np.random.default_rng(0)
    host = rng.random(n, dtype=np.float32)
    a, b, c, out = (cuda.to_device(host) for _ in range(4))
    q = np.float32(3.0)
    word = 4

    rows = []  # (name, bytes moved, ms)
    copy_ms = timed(lambda: c.copy_to_device(a), args.repeats)
    rows.append(("cuMemcpyDtoD (baseline)", 2 * n * word, copy_ms))
    try:
        import cupy  # noqa: PLC0415 - optional baseline

        if on_gpu:
            ca, cc = cupy.asarray(host), cupy.empty(n, dtype=cupy.float32)
            rows.append(("cupy b[...] = a", 2 * n * word, timed(lambda: cc.__setitem__(Ellipsis, ca), args.repeats)))
    except ImportError:
        pass
    rows.append(("copy   c = a", 2 * n * word, timed(lambda: stream_copy[blocks, tpb](a, c), args.repeats)))
    rows.append(("scale  b = q*c", 2 * n * word, timed(lambda: stream_scale[blocks, tpb](b, c, q), args.repeats)))
    rows.append(("add    c = a+b", 3 * n * word, timed(lambda: stream_add[blocks, tpb](a, b, c), args.repeats)))
    rows.append(("triad  a = b+q*c", 3 * n * word, timed(lambda: stream_triad[blocks, tpb](a, b, c, q), args.repeats)))
    rows.append(("saxpy  o = s*x+y", 3 * n * word, timed(lambda: saxpy[blocks, tpb](q, b, c, out), args.repeats)))
    # The kernels computed what they say (the last saxpy).
    got = out.copy_to_host()
    want = q * b.copy_to_host() + c.copy_to_host()
    if not np.allclose(got, want, rtol=1e-6):
        raise SystemExit("bench_stream: saxpy gave wrong results")
    few = 8 * cuda.get_current_device().MULTIPROCESSOR_COUNT
    rows.append(("copy   (grid-stride)", 2 * n * word, timed(lambda: copy_strided[few, tpb](a, c), args.repeats)))
    rows.append(("triad  (grid-stride)", 3 * n * word,
                 timed(lambda: triad_strided[few, tpb](a, b, c, q), args.repeats)))
    rows.append(("copy   (4 loads in flight)", 2 * n * word, timed(lambda: copy_four[few, tpb](a, c), args.repeats)))
    rows.append(("triad  (4 loads in flight)", 3 * n * word,
                 timed(lambda: triad_four[few, tpb](a, b, c, q), args.repeats)))
    numba_rows = numba_side(n, tpb, blocks, few, host, q, args.repeats) if on_gpu else []

    rows += numba_rows
    base = rows[0][1] / rows[0][2]
    print(f"# bench/stream on the {cuforge.backend()} backend ({cuda.get_current_device().name}), "
          f"n = {n} float32, median of {args.repeats}")
    print(f"{'kernel':30} {'ms':>9} {'GB/s':>9} {'x copy bw':>10}")
    ratio_of = {}
    for name, nbytes, ms in rows:
        ratio_of[name] = (nbytes / ms) / base
        print(f"{name:30} {ms:9.3f} {nbytes / ms / 1e6:9.1f} {ratio_of[name]:10.2f}")
    four = min(ratio_of["copy   (4 loads in flight)"], ratio_of["triad  (4 loads in flight)"])
    naive = min(ratio_of[k] for k in ratio_of if k.startswith(("copy   c", "scale", "add", "triad  a", "saxpy")))
    judged = "met" if four >= 0.9 else "NOT met"
    print(f"goal (GPU): memory-bound kernels >= 0.9x the copy bandwidth: {four:.2f} with four loads in flight per "
          f"thread -> {judged if on_gpu else 'not judged on the cpu backend'}; one element per thread: {naive:.2f}"
          + (f" (numba-cuda's same kernels: {ratio_of['numba copy']:.2f} copy, {ratio_of['numba triad']:.2f} triad)"
             if "numba copy" in ratio_of else ""))


if __name__ == "__main__":
    main()
