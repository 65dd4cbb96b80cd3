"""A shared array sized by a variable assigned twice: a TypingError at the
array's line (run as a child process by test_compile_time_values.py)."""
import numpy as np

from cuforge import cuda


@cuda.jit
def kernel(out, c):
    M = 16
    if c:
        M = 32
    s = cuda.shared.array(M, np.float32)
    s[0] = 1
    out[0] = s[0]


try:
    kernel[1, 1](np.zeros(1), True)
except cuda.TypingError as e:
    print("TypingError", e)
