"""Numba's side of test_cmath.py: run with a Python that has numba-cuda.

    python cmath_numba_side.py OUT.json

Records, for each function of cmath_cases.py, the type numba-cuda 0.30 gives
its result (compile_ptx, which needs no GPU) and the values Numba computes on
cmath_cases.INPUTS in complex64 and complex128. Values come from Numba's CPU
target: numba-cuda vendors the same cmath and npyfuncs algorithms and typing,
so only the last bits of the underlying libm/libdevice calls may differ."""

import cmath  # noqa: F401 (the generated functions use it)
import json
import pathlib
import sys
import types as pytypes

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import cmath_cases as C  # noqa: E402

from numba_compat import patch_numpy  # noqa: E402

patch_numpy()  # numba-cuda 0.30 on NumPy 2.5
import numba  # noqa: E402
import numba.cuda.dispatcher as dispatcher  # noqa: E402
import numpy as np  # noqa: E402
from numba import cuda, njit, types  # noqa: E402

# numba-cuda asks the current device for its compute capability when it
# compiles an overload's implementation; none is needed to type it.
dispatcher.get_current_device = lambda: pytypes.SimpleNamespace(compute_capability=(9, 0))


def function(expr):
    ns = {"cmath": cmath, "np": np}
    exec(f"def f(z):\n    return {expr}\n", ns)
    return ns["f"]


def main(out):
    from importlib.metadata import version

    table = {"numba_cuda": version("numba-cuda"), "types": {}, "values": {}}
    for name in C.FUNCTIONS:
        f = function(name)
        table["types"][name] = {}
        table["values"][name] = {}
        for dt in C.DTYPES:
            try:
                _, rt = cuda.compile_ptx(f, (getattr(types, dt),), device=True, cc=(9, 0))
                table["types"][name][dt] = str(rt)
            except KeyError:  # numba-cuda 0.30's ufunc table lacks np.exp, np.log, np.sqrt...
                table["types"][name][dt] = None
            g = njit(f)
            with np.errstate(over="ignore"):  # 1e300 is inf in complex64
                z = np.array([complex(a, b) for a, b in C.INPUTS], dtype=dt)
            vals = [complex(g(x)) for x in z]
            table["values"][name][dt] = [[C.encode(v.real), C.encode(v.imag)] for v in vals]
    pathlib.Path(out).write_text(json.dumps(table))


if __name__ == "__main__":
    main(sys.argv[1])
