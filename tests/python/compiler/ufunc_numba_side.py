"""numba's CPU vectorize and guvectorize over ufunc_cases.py (no GPU needed):
the outputs of every case, written as JSON to the path given; run under
numba-cuda's Python by test_vectorize.py. With --cuda (on a GPU), numba-cuda's
target='cuda' too, each case under "cuda:NAME" (its error's text where
numba-cuda refuses the case): a GPU contracts a * b + c into an fma and has its
own sin, so the CPU's bits are not the GPU's."""

import json
import pathlib
import sys

import numpy as np


def encode(a):
    a = np.asarray(a)
    return {"dtype": a.dtype.str, "shape": list(a.shape), "bits": a.view(np.uint8).tobytes().hex()}


def signature(loop):
    """A ufunc loop's type string ('dd->d') as a numba signature ('float64(float64, float64)')."""
    ins, outs = loop.split("->")
    name = lambda ch: str(np.dtype(ch))  # noqa: E731
    return f"{name(outs)}({', '.join(name(ch) for ch in ins)})"


def main(out, on_gpu=False):
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
    if on_gpu:
        for name, fn, sigs, keys in c.VECTORIZE:
            try:
                if not sigs:  # numba-cuda has no lazy GPU ufuncs: the signatures numba's CPU one compiled
                    cpu = vectorize(fn)
                    cpu(*c.arguments(keys))
                    sigs = [signature(t) for t in cpu.types]
                uf = vectorize(sigs, target="cuda")(fn)
                table["cuda:" + name] = [encode(uf(*c.arguments(keys)))]
            except Exception as e:  # noqa: BLE001 - recorded: the test says numba-cuda refused it
                table["cuda:" + name] = f"{type(e).__name__}: {e}"
        for name, fn, sigs, layout, keys in c.GUVECTORIZE:
            try:
                r = guvectorize(sigs, layout, target="cuda")(fn)(*c.arguments(keys))
                table["cuda:" + name] = [encode(x) for x in (r if isinstance(r, tuple) else (r,))]
            except Exception as e:  # noqa: BLE001
                table["cuda:" + name] = f"{type(e).__name__}: {e}"
    with open(out, "w") as f:
        json.dump(table, f)


if __name__ == "__main__":
    main(sys.argv[1], "--cuda" in sys.argv[2:])
