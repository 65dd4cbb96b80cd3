"""Run by test_toolkit.py in a child process (libdevice is looked for once
per process): prints where libdevice was found (and the other toolkit parts, a line
each), then compiles a kernel that
calls math.sin to PTX and prints "compiled" (or the error's type and text)."""

import math
import sys

import cuforge
from cuforge import cuda


def sine(out, x):
    out[0] = math.sin(x[0])


try:
    path, found_by = cuforge.find_libdevice()
    print(f"found {found_by} {path}")
except Exception as e:  # noqa: BLE001 - the test reads what was raised
    print(f"not found {type(e).__name__}: {e}")
for part in ("nvrtc", "nvjitlink", "ptxas"):
    try:
        path, found_by = cuforge.find_toolkit(part)
        print(f"{part} {found_by} {path}")
    except Exception as e:  # noqa: BLE001
        print(f"{part} not found {type(e).__name__}")
try:
    cuda.compile_ptx(sine, "void(float64[:], float64[:])", cc=(9, 0))
    print("compiled")
except Exception as e:  # noqa: BLE001
    print(f"failed {type(e).__name__}: {e}")
sys.exit(0)
