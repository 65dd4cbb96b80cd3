"""Run by test_shared_overrun.py in a child process (a regression would
crash it, not the test run): kernels that write past their block's shared
memory on the cpu backend. Prints one line per case: "ok <values>" or
"error <text>"."""

import numpy as np

from cuforge import cuda


@cuda.jit
def reverse(out):  # barriers: the block runs as fibers
    s = cuda.shared.array(0, dtype=np.float64)
    i = cuda.threadIdx.x
    s[i] = i
    cuda.syncthreads()
    out[i] = s[31 - i]


@cuda.jit
def fill(out):  # no barrier: the block runs as a loop
    s = cuda.shared.array(0, dtype=np.int32)
    i = cuda.threadIdx.x
    s[i] = i
    out[i] = s[i]


def case(name, kernel, blocks, dynamic):
    out = np.zeros(32, np.float64 if kernel is reverse else np.int32)
    try:
        kernel[blocks, 32, 0, dynamic](out)
        cuda.synchronize()
        print(name, "ok", int(out[0]), int(out[31]))
    except Exception as e:  # noqa: BLE001 - the test reads the message
        print(name, "error", str(e).replace("\n", " "))


case("fibers-enough", reverse, 1, 32 * 8)
case("fibers-short", reverse, 1, 8)
case("fibers-after", reverse, 2, 32 * 8)  # the launch after a failed one runs
case("loop-enough", fill, 3, 32 * 4)
case("loop-none", fill, 3, 0)
case("loop-after", fill, 3, 32 * 4)


@cuda.jit
def one_past(a, out):
    out[0] = a[a.size]  # one element past the end (no bounds check outside debug mode)


# Arrays whose end falls on a page boundary of their own mapping (1 MiB and more are mmap'd):
# the read gets whatever lies there, as on a GPU, and the process goes on.
for n in (262144, 524288):
    out = np.zeros(1, np.float32)
    one_past[1, 1](cuda.to_device(np.ones(n, np.float32)), out)
    one_past[1, 1](np.ones(n, np.float32), out)  # a host argument's device copy
    print(f"past-{n}", "ok")
