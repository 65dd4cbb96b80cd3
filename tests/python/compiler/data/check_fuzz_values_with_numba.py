"""Checks test_fuzz_values.py's expected values against numba itself: runs
the generated cases with numba's @njit (the same typing rules as its CUDA
target, on the CPU, no GPU needed) and prints every case where numba's
type or value differs from what the test expects. Run in an environment
with numba-cuda, from this folder:

    /path/to/numba-venv/bin/python check_fuzz_values_with_numba.py [N]

2026-11-27, numba-cuda 0.30.4: 1 of 2000 cases differs, and it is numba's
CPU code, not the rule: ((-9223372036854775807) - a) // (-5) with a =
uint8(162). The subtraction alone wraps in numba (to 9223372036854775647,
as the test expects and cuforge computes), but followed by the floor
division numba's optimised code gives 1844674407370955161, the quotient of
the unwrapped difference: LLVM rewrote the overflowing subtraction. (With
the literal -(2**63) numba gave -2**63 for the subtraction alone; the test
leaves that literal out.)
"""

import pathlib
import sys
import types

import numpy as np

np.row_stack = getattr(np, "row_stack", np.vstack)  # numba-cuda 0.30 with NumPy 2.x

from numba import njit  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
sys.modules.setdefault("pytest", types.ModuleType("pytest"))  # the test module's import; unused here
import test_fuzz_values as fuzz  # noqa: E402


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else fuzz.DEFAULT_N
    differ = 0
    for case in fuzz.make_cases(n):
        namespace = {}
        exec(f"def f(a, b, c):\n    return {case['expr']}\n", namespace)
        f = njit(namespace["f"])
        values = [fuzz.NUMPY[t](eval(v)) for t, v in zip(case["dtypes"], case["values"])]
        got = f(*values)
        got_type = str(f.nopython_signatures[0].return_type)
        value = repr(np.asarray(got).item())
        if got_type != case["expected_type"] or not fuzz.same_value(case["expected"], value, case["expected_type"]):
            differ += 1
            print(f"case {case['id']}: {case['expr']} {case['dtypes']} {case['values']}: numba {got_type} {value}, "
                  f"expected {case['expected_type']} {case['expected']}")
    print(f"{differ} of {n} differ")



if __name__ == "__main__":
    main()
