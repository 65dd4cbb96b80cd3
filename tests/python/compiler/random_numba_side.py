"""numba-cuda's xoroshiro128+ on the host (its functions are CPU-jitted too, so
this needs no GPU): the states init_xoroshiro128p_states_cpu makes for each
case of CASES, and the numbers each state then draws. Written as JSON to the
path given; run under numba-cuda's Python by test_random.py."""

import json
import sys

import numpy as np

# (n, seed, subsequence_start): small seeds, a negative one (wraps to uint64), subsequences ahead.
CASES = [(40, 1, 0), (33, 12345, 0), (9, -1, 0), (17, 2**63 + 5, 3), (5, 42, 300)]
# Per state, in order: three float32 uniforms, three float64 uniforms, two float32 normals, two float64 normals.
DRAWS = ["uniform_float32"] * 3 + ["uniform_float64"] * 3 + ["normal_float32"] * 2 + ["normal_float64"] * 2


def main(out):
    if not hasattr(np, "row_stack"):  # numba-cuda 0.30 on NumPy 2.5 (numba_compat.py)
        np.row_stack = np.vstack
    from numba.cuda import random as r

    table = []
    for n, seed, start in CASES:
        states = np.empty(n, dtype=r.xoroshiro128p_dtype)
        r.init_xoroshiro128p_states_cpu(states, np.uint64(seed) if seed >= 2**63 else seed, start)
        words = [[int(s["s0"]), int(s["s1"])] for s in states]
        draws = [[float(getattr(r, "xoroshiro128p_" + d)(states, i)) for d in DRAWS] for i in range(n)]
        table.append({"case": [n, seed, start], "states": words, "draws": draws})
    with open(out, "w") as f:
        json.dump(table, f)


if __name__ == "__main__":
    main(sys.argv[1])
