"""One malformed DLPack tensor of test_dlpack.py's MALFORMED list, given to a
kernel as an argument (through a producer, or as a bare capsule) instead of
to cuda.from_dlpack: prints the outcome as JSON. In a child process, so a
crash fails one test: `python dlpack_kernel_arg_child.py CASE legacy|versioned`."""

import gc
import json
import sys

import numpy as np

from cuforge import cuda
from dlpack_capsules import Producer
from test_dlpack import MALFORMED, malformed_tensor


@cuda.jit
def bump(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def main(case, version):
    entry = next(c for c in MALFORMED if c[0] == case)
    name, _, error, fragment = entry
    d = cuda.to_device(np.arange(4.0))
    t, device = malformed_tensor(entry, version == "legacy", d)
    argument = Producer(t.capsule(), device)
    outcome = {"case": name}
    try:
        bump[1, 4](argument)
        cuda.synchronize()
        outcome["error"] = None
    except Exception as e:
        outcome["error"] = [type(e).__name__, str(e)]
    del argument
    gc.collect()
    outcome["deleted"] = t.deleted
    outcome["expected"] = [error.__name__, fragment]
    print(json.dumps(outcome))


if __name__ == "__main__":
    main(*sys.argv[1:3])
