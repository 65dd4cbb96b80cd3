"""numba's CPU vectorize and guvectorize over ufunc_cases.py (no GPU needed):
the outputs of every case, written as JSON to the path given; run under
numba-cuda's Python by test_vectorize.py."""

import json
import pathlib
import sys

import numpy as np


def encode(a):
    a = np.asarray(a)
    return {"dtype": a.dtype.str, "shape": list(a.shape), "bits": a.view(np.uint8).tobytes().hex()}


def main(out):
    if not hasattr(np, "row_stack"):  # numba-cuda 0.30 on NumPy 2.5 (numba_compat.py)
        np.row_stack = np.vstack
    from numba import guvectorize, vectorize

    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    import ufunc_cases as c

    table = {}
    for name, fn, sigs, keys in c.VECTORIZE:
        uf = vectorize(sigs)(fn) if sigs else vectorize(fn)
        table[name] = [encode(uf(*c.arguments(keys)))]
    for name, fn, sigs, layout, keys in c.GUVECTORIZE:
        uf = guvectorize(sigs, layout)(fn)
        r = uf(*c.arguments(keys))
        table[name] = [encode(x) for x in (r if isinstance(r, tuple) else (r,))]
    with open(out, "w") as f:
        json.dump(table, f)


if __name__ == "__main__":
    main(sys.argv[1])
