"""The complex functions and inputs test_cmath.py checks against Numba
(shared with cmath_numba_side.py, which records Numba's side)."""

import math

# cmath's functions, and NumPy's that take complex numbers (their own
# formulas for sinh, cosh, tanh and arccosh; cmath's for the rest).
CMATH = ["exp", "log", "log10", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh",
         "asin", "acos", "atan", "asinh", "acosh", "atanh"]
NUMPY = ["exp", "log", "sqrt", "sin", "cos", "tan", "arcsin", "arccos", "arctan",
         "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh"]
# Each as the expression a kernel computes from its complex input z.
FUNCTIONS = [f"cmath.{n}(z)" for n in CMATH] + [f"np.{n}(z)" for n in NUMPY] + ["cmath.rect(z.real, z.imag)"]

# Signed zeros, ones, small and huge numbers, infinities and nan, near the
# branch points: every pair as (real, imag).
PARTS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 3.5, 1e-8, 1e-300, 1e38, -1e300, 710.0,
         math.inf, -math.inf, math.nan]
INPUTS = [(a, b) for a in PARTS for b in PARTS]
DTYPES = ["complex64", "complex128"]


def encode(x: float) -> str:
    """Exact, nan and -0.0 included."""
    return "nan" if math.isnan(x) else float(x).hex()


def decode(s: str) -> float:
    return math.nan if s == "nan" else float.fromhex(s)
