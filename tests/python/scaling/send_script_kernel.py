"""A kernel (calling a device function) defined in a script, sent by
cloudpickle, as Dask sends it, to a fresh process that cannot read this
file's source for it: it compiles there from the source the kernel carries.
Prints the result the other process computed."""

import pathlib
import subprocess
import sys

import cloudpickle

from cuforge import cuda


@cuda.jit(device=True)
def times_plus(x, i):
    return x * i + x


@cuda.jit
def kernel(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = times_plus(a[i], i)


if __name__ == "__main__":
    blob = cloudpickle.dumps(kernel)
    receiver = pathlib.Path(__file__).with_name("receive_kernel.py")
    done = subprocess.run([sys.executable, str(receiver)], input=blob, capture_output=True, timeout=300)
    sys.stdout.write(done.stdout.decode())
    sys.stderr.write(done.stderr.decode())
    sys.exit(done.returncode)
