"""numba-cuda's side of the differential tests on a GPU: runs kernels of a
module under numba-cuda on the GPU and writes what they left in their
arguments.

    python numba_gpu_side.py MODULE.py CALLS.json IN.npz OUT.npz

MODULE.py is written against numba (``from numba import cuda``); CALLS.json
lists the launches, ``[{"kernel": name, "grid": g, "block": b, "args": [npz
keys]}]``; each argument comes from IN.npz, and after the launch every one is
written to OUT.npz under its key (a kernel that fails to compile or run is
named in OUT.npz's ``__errors__``, a JSON text, and the others go on). Exit 77
when numba-cuda or a GPU is not usable here. compiler_support.run_under_numba_cuda
runs it and test files compare cuforge's values with its."""

import importlib.util
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from numba_compat import numba_cuda_on_a_gpu_or_exit  # noqa: E402

ncuda = numba_cuda_on_a_gpu_or_exit()

import numpy as np  # noqa: E402


def main(module_path, calls_path, in_path, out_path):
    spec = importlib.util.spec_from_file_location(pathlib.Path(module_path).stem, module_path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    arrays = dict(np.load(in_path))
    out, errors = {}, {}
    for call in json.loads(pathlib.Path(calls_path).read_text()):
        args = [np.array(arrays[k]) for k in call["args"]]
        try:
            getattr(mod, call["kernel"])[call["grid"], call["block"]](*args)
            ncuda.synchronize()
        except Exception as e:  # noqa: BLE001 - one kernel's failure is reported, the rest go on
            errors[call["kernel"]] = f"{type(e).__name__}: {str(e)[:300]}"
            continue
        for k, a in zip(call["args"], args):
            out[k] = a
    out["__errors__"] = np.array(json.dumps(errors))
    np.savez(out_path, **out)


if __name__ == "__main__":
    main(*sys.argv[1:5])
