"""Member masks of the warp functions: the lanes a mask names meet on their
own (lanes of disjoint masks independently, several meetings of one warp at
once), lanes that exited or that a partial warp lacks count as arrived, and
results are over the meeting's lanes only. The cpu backend's meetings are
its runtime's (docs/cpu_execution.md, "Warps"); most kernels here do a
different number of warp operations in each branch, so that lanes meeting
regardless of their masks would pair the wrong operations and fail them.
Expected values are worked out lane by lane in plain Python."""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import cuforge
from cuforge import cuda

FULL = 0xFFFFFFFF
ON_CPU = cuforge.backend() == "cpu"


def u32(a):
    return (np.asarray(a).astype(np.int64) & FULL).tolist()


def test_a_subset_vote_does_not_meet_the_warps_match():
    # The kernel: lanes 0-3 meet for all_sync, then all 32 for match_any_sync, then lanes 8-15 for
    # ballot_sync. Read as one meeting of the warp, lanes 0-3's vote took lanes 4-7's match (0xF / 0xF0).
    @cuda.jit
    def votes(x, flags, masks):
        i = cuda.grid(1)
        lane = cuda.laneid
        if lane < 4:
            flags[i] = cuda.all_sync(0x0000000F, x[i] < 4)
        masks[i, 0] = cuda.match_any_sync(0xFFFFFFFF, i // 8)
        if 8 <= lane < 16:
            masks[i, 1] = cuda.ballot_sync(0x0000FF00, True)

    x = np.arange(64)
    flags = np.zeros(64, np.bool_)
    masks = np.zeros((64, 2), np.int64)
    votes[1, 64](x, flags, masks)
    assert flags.tolist() == [i < 4 for i in range(64)]  # lanes 32-35 vote x = 32..35: not all below 4
    assert u32(masks[:, 0]) == [0xFF << (8 * ((i // 8) % 4)) for i in range(64)]
    assert u32(masks[:, 1]) == [0xFF00 if 8 <= i % 32 < 16 else 0 for i in range(64)]


def test_votes_count_only_the_lanes_of_their_mask():
    # The last vote reads every lane: met with lanes 0-7's eq_sync instead, lanes 8-31 would see False.
    @cuda.jit
    def subset_votes(flags):
        i = cuda.grid(1)
        lane = cuda.laneid
        if lane < 8:
            flags[i, 4] = cuda.eq_sync(0x000000FF, True)  # one exchange more than the other lanes
            flags[i, 0] = cuda.all_sync(0x000000FF, lane < 8)
            flags[i, 1] = cuda.any_sync(0x000000FF, lane >= 8)
            flags[i, 2] = cuda.eq_sync(0x000000FF, lane % 2 == 0)
        else:
            flags[i, 0] = cuda.all_sync(0xFFFFFF00, lane >= 8)
            flags[i, 1] = cuda.any_sync(0xFFFFFF00, lane == 31)
            flags[i, 2] = cuda.eq_sync(0xFFFFFF00, lane > 0)
        flags[i, 3] = cuda.all_sync(FULL, flags[i, 0])

    flags = np.zeros((64, 5), np.bool_)
    subset_votes[1, 64](flags)
    lanes = [i % 32 for i in range(64)]
    assert flags[:, 0].tolist() == [True] * 64
    assert flags[:, 1].tolist() == [lane >= 8 for lane in lanes]
    assert flags[:, 2].tolist() == [lane >= 8 for lane in lanes]  # lanes 0-7 disagree, 8-31 agree
    assert flags[:, 3].tolist() == [True] * 64
    assert flags[:, 4].tolist() == [lane < 8 for lane in lanes]


def low_then_swap(x, warps):
    """What test_two_disjoint_meetings_open_at_once's kernel gives, worked out
    lane by lane; None where a lane reads outside its meeting (undefined on a
    GPU, its own value on the cpu backend) unless `own_value_outside`."""
    low, high, swapped = {}, {}, {}
    for w in range(warps):
        base = 32 * w
        down = [x[base + lane + 1] if lane < 15 else x[base + 15] for lane in range(16)]
        v = {}
        for lane in range(16):
            v[lane] = down[lane] + down[lane ^ 8]
            low[base + lane] = v[lane]
        ballot = 0
        for lane in range(16, 32):
            v[lane] = x[base + lane]
            if x[base + lane] % 3 == 0:
                ballot |= 1 << lane
        for lane in range(16, 32):
            high[base + lane] = ballot
        for lane in range(32):
            swapped[base + lane] = v[lane ^ 16]
    return low, high, swapped


@pytest.mark.parametrize("blocks, threads", [(1, 32), (2, 64)])
def test_two_disjoint_meetings_open_at_once(blocks, threads):
    # Lanes 0-15 shuffle twice among themselves while lanes 16-31 vote once: both meetings are open together
    # on the cpu backend (its fibers run in lane order). Then the halves swap values with a full mask.
    @cuda.jit
    def halves(x, low, high, swapped):
        i = cuda.grid(1)
        lane = cuda.laneid
        v = x[i]
        if lane < 16:
            v = cuda.shfl_down_sync(0x0000FFFF, v, 1)
            v += cuda.shfl_xor_sync(0x0000FFFF, v, 8)
            low[i] = v
        else:
            high[i] = cuda.ballot_sync(0xFFFF0000, v % 3 == 0)
        swapped[i] = cuda.shfl_xor_sync(FULL, v, 16)

    n = blocks * threads
    x = (1000 + 7 * np.arange(n)).astype(np.int64)
    low = np.zeros(n, np.int64)
    high = np.zeros(n, np.int32)
    swapped = np.zeros(n, np.int64)
    halves[blocks, threads](x, low, high, swapped)
    want_low, want_high, want_swapped = low_then_swap(x.tolist(), n // 32)
    # Lane 15 reads lane 16 (outside its mask): its own value on the cpu backend, undefined on a GPU; lane 7
    # reads lane 15's result, and the other half reads both.
    undefined = set() if ON_CPU else {7, 15, 23, 31}
    for i in range(n):
        lane = i % 32
        if lane < 16 and lane not in undefined:
            assert low[i] == want_low[i], i
        if lane >= 16:
            assert high.view(np.uint32)[i] == want_high[i], i
        if lane not in undefined:
            assert swapped[i] == want_swapped[i], i


@pytest.mark.parametrize("blocks", [1, 2])
def test_a_reduction_with_shrinking_masks(blocks):
    # Each step's mask is the lanes still summing; a lane adds only a source inside it. The full-mask
    # broadcast after it meets only once every lane has left the loop.
    @cuda.jit
    def tree(x, out):
        i = cuda.grid(1)
        lane = cuda.laneid
        v = x[i]
        off = 16
        while off > 0:
            if lane < 2 * off:
                t = cuda.shfl_down_sync((1 << (2 * off)) - 1, v, off)
                if lane < off:
                    v += t
            off //= 2
        out[i] = cuda.shfl_sync(FULL, v, 0)

    n = 64 * blocks
    x = (np.arange(n) * 37 % 101).astype(np.int64)
    out = np.zeros(n, np.int64)
    tree[blocks, 64](x, out)
    xs = x.tolist()
    assert out.tolist() == [sum(xs[32 * (i // 32): 32 * (i // 32) + 32]) for i in range(n)]


def test_syncwarp_with_a_mask_in_a_divergent_branch():
    # Lanes 0-15 exchange through shared memory behind their own warp barriers, lanes 16-31 just write; after
    # the full-mask barrier each lane reads the other half. A barrier of the whole warp instead would let
    # lanes 16-31 through before lanes 0-15 wrote their second values.
    @cuda.jit
    def halves(out):
        sm = cuda.shared.array(64, np.int64)
        tid = cuda.threadIdx.x
        lane = cuda.laneid
        if lane < 16:
            sm[tid] = tid * 3
            cuda.syncwarp(0x0000FFFF)
            a = sm[tid ^ 1]
            cuda.syncwarp(0x0000FFFF)
            sm[tid] = a + 1
        else:
            sm[tid] = tid * 5
        cuda.syncwarp(FULL)
        out[tid] = sm[tid ^ 16]

    out = np.zeros(64, np.int64)
    halves[1, 64](out)
    final = [3 * (t ^ 1) + 1 if t % 32 < 16 else 5 * t for t in range(64)]
    assert out.tolist() == [final[t ^ 16] for t in range(64)]


def test_lanes_that_returned_count_as_arrived_at_a_full_mask():
    # Lanes 24-31 meet among themselves, then return: the full-mask votes of lanes 0-23 wait for no one else
    # and count only themselves.
    @cuda.jit
    def early(first, ballots, matches, alls):
        i = cuda.grid(1)
        lane = cuda.laneid
        if lane >= 24:
            first[i] = cuda.shfl_sync(0xFF000000, i, 24)
            return
        ballots[i] = cuda.ballot_sync(FULL, True)
        matches[i] = cuda.match_any_sync(FULL, lane % 2)
        alls[i] = cuda.all_sync(FULL, lane < 24)

    first = np.zeros(64, np.int64)
    ballots = np.zeros(64, np.int32)
    matches = np.zeros(64, np.int32)
    alls = np.zeros(64, np.bool_)
    early[1, 64](first, ballots, matches, alls)
    for i in range(64):
        lane = i % 32
        if lane >= 24:
            assert first[i] == i - lane + 24 and ballots[i] == 0, i
        else:
            assert first[i] == 0 and ballots.view(np.uint32)[i] == 0xFFFFFF, i
            assert matches.view(np.uint32)[i] == sum(1 << k for k in range(24) if k % 2 == lane % 2), i
            assert alls[i], i


def test_a_partial_warp_with_a_full_mask():
    # 40 threads: the second warp's 8 lanes. Lanes 0-3 shuffle twice among themselves while the others vote
    # once; then everyone shuffles with the full mask, which the 24 missing lanes do not hold up.
    @cuda.jit
    def partial(out, ballots):
        i = cuda.threadIdx.x
        lane = cuda.laneid
        if lane < 4:
            v = cuda.shfl_xor_sync(0x0000000F, i, 1)
            v = cuda.shfl_xor_sync(0x0000000F, v, 2)
        else:
            v = i
            ballots[i] = cuda.ballot_sync(0xFFFFFFF0, True)
        out[i] = cuda.shfl_sync(FULL, v, (lane + 4) % 8)

    out = np.zeros(40, np.int64)
    ballots = np.zeros(40, np.int32)
    partial[1, 40](out, ballots)
    v = [i ^ 3 if i % 32 < 4 else i for i in range(40)]
    assert out.tolist() == [v[i - i % 32 + (i % 32 + 4) % 8] for i in range(40)]
    assert u32(ballots) == [0] * 4 + [0xFFFFFFF0] * 28 + [0] * 4 + [0xF0] * 4


@pytest.mark.skipif(not ON_CPU, reason="a caller outside its own mask is undefined on a GPU")
def test_a_caller_outside_its_mask_meets_as_if_in_it():
    # Lane 1 passes 0x1, read as 0x3: it meets lane 0, which passes 0x3; its ballot is cut to its own mask.
    @cuda.jit
    def outside(out):
        lane = cuda.laneid
        if lane == 0:
            out[0] = cuda.ballot_sync(0x3, True)
        elif lane == 1:
            out[1] = cuda.ballot_sync(0x1, True)

    out = np.zeros(2, np.int32)
    outside[1, 32](out)
    assert out.tolist() == [0x3, 0x1]


def test_lanes_disagreeing_on_a_mask_end_in_an_error():
    # Lane 0 waits with 0x3 for lane 1, lane 1 with 0x7 for lane 0: no meeting can complete. In a child
    # process (on the cpu backend), so that a hang fails on the timeout and a crash shows as a signal.
    script = pathlib.Path(__file__).with_name("warp_mask_mismatch.py")
    env = dict(os.environ, CUFORGE_BACKEND="cpu")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode > 0, (run.returncode, run.stdout, run.stderr)
    assert "finished" not in run.stdout
    assert "barrier deadlock" in run.stderr and "member mask" in run.stderr, run.stderr
