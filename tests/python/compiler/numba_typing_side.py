"""numba-cuda's side of the differential typing test: run with a Python that
has numba-cuda (no GPU needed), writes what numba-cuda infers and computes
for every case of numba_typing_cases.py as JSON.

    python numba_typing_side.py OUT.json
    python numba_typing_side.py --numba-version   # prints numba's version only

Types come from ``numba.cuda.compile_ptx(f, sig, device=True)``; values from
``numba.njit`` of the same function, kept only where the CPU target infers
the same type as the CUDA one (its typing and arithmetic are Numba's too;
float16 it mostly refuses).
"""

import importlib.util
import json
import os
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numba_typing_cases as cases_mod  # noqa: E402

from numba_compat import patch_numpy  # noqa: E402

patch_numpy()  # numba-cuda 0.30 on NumPy 2.5
import numba  # noqa: E402
import numpy as np  # noqa: E402
from numba import cuda, types  # noqa: E402


def _load(path):
    spec = importlib.util.spec_from_file_location("numba_typing_generated", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _ntype(name):
    return types.boolean if name == "bool" else getattr(types, name)


def _npvalue(tname, v):
    return np.bool_(v) if tname == "bool" else np.dtype(tname).type(v)


def _cuda_type(fn, sig):
    try:
        return str(cuda.compile_ptx(fn, sig, device=True, cc=(9, 0))[1])
    except Exception as e:  # a typing error: the operation is refused
        return "error: " + type(e).__name__


def main(out_path):
    warnings.simplefilter("ignore")
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "numba_typing_generated.py")
    cases_mod.write_module(path)
    mod = _load(path)
    jitted = {}
    result = {"numba": numba.__version__, "numba_cuda": _numba_cuda_version(), "cases": {}}
    for case_id, fname, arg_types, fallbacks, inputs in cases_mod.cases():
        sig = tuple(_ntype(t) for t in arg_types)
        whole = _cuda_type(getattr(mod, fname), sig)
        if whole.startswith("error"):
            ts = [_cuda_type(getattr(mod, f), sig) for f in fallbacks]
        else:
            ts = cases_mod.elements(whole) if len(fallbacks) > 1 else [whole]
        entry = {"types": ts, "values": {}}
        if not whole.startswith("error"):
            fn = jitted.get(fname) or jitted.setdefault(fname, numba.njit(getattr(mod, fname)))
            for set_name, vals in inputs.items():
                args = [_npvalue(t, v) for t, v in zip(arg_types, vals)]
                try:
                    got = fn(*args)
                    cpu_ret = str(fn.nopython_signatures[-1].return_type)
                    if cpu_ret != whole:
                        # Find the CPU signature of these arguments.
                        cpu_ret = next(str(s.return_type) for s in fn.nopython_signatures
                                       if tuple(str(a) for a in s.args) == tuple(str(a) for a in sig))
                except Exception:
                    continue
                if cpu_ret != whole:
                    continue
                got = got if isinstance(got, tuple) else (got,)
                entry["values"][set_name] = [cases_mod.encode(v) for v in got]
        result["cases"][case_id] = entry
    with open(out_path, "w") as f:
        json.dump(result, f, indent=0, sort_keys=True)


def _numba_cuda_version():
    from importlib.metadata import version

    return version("numba-cuda")


if __name__ == "__main__":
    if sys.argv[1] == "--numba-version":
        print(numba.__version__)
    else:
        main(sys.argv[1])
