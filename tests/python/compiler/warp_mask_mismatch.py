"""Run by test_warp_masks.py in a child process: two lanes of a warp that
disagree on a vote's member mask (lane 0 passes 0x3, lane 1 passes 0x7; the
other lanes return). Each waits for the other at a meeting the other never
joins: undefined on a GPU, and on the cpu backend the launch must fail with
the barrier deadlock error, not hang or crash. Prints "finished" only if the
launch returned."""

import numpy as np

from cuforge import cuda


@cuda.jit
def mismatched(out):
    lane = cuda.laneid
    if lane == 0:
        out[0] = cuda.ballot_sync(0x3, True)
    elif lane == 1:
        out[1] = cuda.ballot_sync(0x7, True)


if __name__ == "__main__":
    out = np.zeros(2, np.int32)
    mismatched[1, 32](out)
    cuda.synchronize()
    print("finished", out.tolist(), flush=True)
