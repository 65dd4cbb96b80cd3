"""A cpu-backend kernel compiled with debug=True, run under gdb by
test_debug_info.py: gdb stops at a breakpoint on the kernel's Python file
and line (the JIT-loaded object announced through GDB's JIT interface) and
prints a variable there."""

import numpy as np

from cuforge import cuda


@cuda.jit(debug=True, opt=False)
def scaled(a, b):
    i = cuda.grid(1)
    x = a[i] * 2.0
    b[i] = x + 1.0  # gdb stops here


a = np.array([1.5, 2.5])
b = np.zeros(2)
scaled[1, 2](a, b)
print("result", b.tolist())
