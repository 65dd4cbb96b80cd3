"""Reads a pickled kernel from standard input, runs it on [0, 1, 2, 3],
prints the result. Arguments after the file are passed to the kernel
(as floats) after the array."""

import pickle
import sys

import numpy as np

from cuforge import cuda

kernel = pickle.loads(sys.stdin.buffer.read())
a = cuda.to_device(np.arange(4.0))
kernel[1, 4](a, *(float(x) for x in sys.argv[1:]))
print(a.copy_to_host().tolist())
