"""numba's njit over host_jit_cases.py: each case's result (and the arrays it
was given, after the call), written as JSON to the path given; run under
numba-cuda's Python by test_host_jit.py."""

import json
import pathlib
import sys

import numpy as np


def encode(v):
    a = np.asarray(v)
    return {"dtype": a.dtype.str, "shape": list(a.shape), "bits": a.tobytes().hex()}


def main(out):
    if not hasattr(np, "row_stack"):  # numba-cuda 0.30 on NumPy 2.5 (numba_compat.py)
        np.row_stack = np.vstack
    from numba import njit

    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    import host_jit_cases as c

    table = {}
    for name, fn, spec in c.CASES:
        args = c.arguments(spec)
        r = njit(fn)(*args)
        results = list(r) if isinstance(r, tuple) else [] if r is None else [r]
        table[name] = {"results": [encode(x) for x in results], "types": [type(x).__name__ for x in results],
                       "args": [encode(a) for a in args if isinstance(a, np.ndarray)]}
    with open(out, "w") as f:
        json.dump(table, f)


if __name__ == "__main__":
    main(sys.argv[1])
