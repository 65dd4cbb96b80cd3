"""A kernel that never ends, and three waits on it that Ctrl-C must
interrupt (run by test_interrupt.py, which sends SIGINT after each "waiting"
line): a stream's synchronize, an event's, and the device's. Prints one
"interrupted <what> <seconds>" line each; exits with os._exit, since the
kernel goes on running."""

import os
import signal
import sys
import time

import numpy as np

from cuforge import cuda


@cuda.jit
def forever(flag, count):
    while flag[0] == 0:
        count[0] += 1


# A process started from a background job inherits SIGINT ignored, and then
# Python leaves it so: Ctrl-C's handler, as in an interactive session.
signal.signal(signal.SIGINT, signal.default_int_handler)

flag = cuda.to_device(np.zeros(1, np.int64))
count = cuda.to_device(np.zeros(1, np.int64))
s = cuda.stream()
forever[1, 1, s](flag, count)
e = cuda.event()
e.record(s)

for what, wait in (("stream", s.synchronize), ("event", e.synchronize), ("device", cuda.synchronize)):
    print("waiting", what, flush=True)
    start = time.monotonic()
    try:
        wait()
        print("returned", what, flush=True)
    except KeyboardInterrupt:
        print("interrupted", what, f"{time.monotonic() - start:.2f}", flush=True)
sys.stdout.flush()
os._exit(0)
