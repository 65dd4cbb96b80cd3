"""Warp-level programming (issue 13): cuda.syncwarp, the shuffles, the votes,
match_any_sync, match_all_sync, activemask and lanemask_lt, with numba-cuda's types, on every
backend (on the cpu backend a warp's lanes meet in the runtime, as fibers of
their block), and their PTX (shfl.sync, vote.sync, match.any.sync) through
ptxas with the rest of the suite's kernels."""

import numpy as np
import pytest

import cuforge
from cuforge import cuda

FULL = 0xFFFFFFFF


def run(kernel, threads, *arrays):
    kernel[1, threads](*arrays)
    return arrays


def test_syncwarp_makes_a_lanes_writes_visible_to_its_warp():
    # A lane reads its neighbour's slot after the warp barrier: each lane must have written first.
    @cuda.jit
    def neighbours(out):
        sm = cuda.shared.array(64, np.int32)
        tid = cuda.threadIdx.x
        sm[tid] = tid * 10
        cuda.syncwarp()
        out[tid] = sm[tid ^ 1]

    out = np.zeros(64, np.int32)
    neighbours[1, 64](out)
    assert out.tolist() == [(i ^ 1) * 10 for i in range(64)]


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_shuffles_read_the_lane_shfl_sync_names(dtype):
    @cuda.jit
    def shuffles(x, out):
        i = cuda.grid(1)
        v = x[i]
        out[i, 0] = cuda.shfl_sync(FULL, v, 7)
        out[i, 1] = cuda.shfl_sync(FULL, v, 39)  # the low five bits: lane 7
        out[i, 2] = cuda.shfl_up_sync(FULL, v, 3)
        out[i, 3] = cuda.shfl_down_sync(FULL, v, 5)
        out[i, 4] = cuda.shfl_xor_sync(FULL, v, 6)

    x = (np.arange(64) * 3 + 1).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x = x / 7  # bits beyond an integer's
    out = np.zeros((64, 5), dtype)
    shuffles[1, 64](x, out)
    lane = np.arange(64) % 32
    base = np.arange(64) - lane
    want = np.stack([x[base + 7], x[base + 7],
                     x[np.where(lane >= 3, np.arange(64) - 3, np.arange(64))],
                     x[np.where(lane + 5 <= 31, np.arange(64) + 5, np.arange(64))],
                     x[base + (lane ^ 6)]], axis=1)
    assert out.dtype == dtype and np.array_equal(out, want)


def test_a_warp_reduction_with_shfl_down():
    @cuda.jit
    def warp_sums(x, out):
        i = cuda.grid(1)
        v = x[i]
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(FULL, v, offset)
            offset //= 2
        if cuda.laneid == 0:
            out[i // 32] = v

    x = np.random.default_rng(3).standard_normal(256)
    out = np.zeros(8)
    warp_sums[2, 128](x, out)
    np.testing.assert_allclose(out, x.reshape(8, 32).sum(axis=1), rtol=1e-12)


def test_votes_ballots_and_masks():
    @cuda.jit
    def votes(x, ballot, flags, masks):
        i = cuda.grid(1)
        ballot[i] = cuda.ballot_sync(FULL, x[i] > 5)
        flags[i, 0] = cuda.all_sync(FULL, x[i] >= 0)
        flags[i, 1] = cuda.any_sync(FULL, x[i] > 60)
        flags[i, 2] = cuda.eq_sync(FULL, i < 32)
        lane = cuda.laneid
        if lane < 4:  # a lane must be in the mask it passes (undefined on a GPU otherwise)
            flags[i, 3] = cuda.all_sync(0x0000000F, x[i] < 4)
        masks[i, 0] = cuda.lanemask_lt()
        masks[i, 1] = cuda.activemask()
        masks[i, 2] = cuda.match_any_sync(FULL, i // 8)
        if 8 <= lane < 16:
            masks[i, 3] = cuda.ballot_sync(0x0000FF00, True)

    x = np.arange(64)
    ballot = np.zeros(64, np.int32)
    flags = np.zeros((64, 4), np.bool_)
    masks = np.zeros((64, 4), np.int64)
    votes[1, 64](x, ballot, flags, masks)
    assert ballot.view(np.uint32)[:32].tolist() == [0xFFFFFFC0] * 32 and ballot.view(np.uint32)[32:].tolist() == [FULL] * 32
    assert flags[:, 0].all() and not flags[:32, 1].any() and flags[32:, 1].all() and flags[:, 2].all()
    assert flags[:4, 3].all() and not flags[4:, 3].any()
    lane = np.arange(64) % 32
    assert masks[:, 0].tolist() == ((1 << lane) - 1).tolist()
    assert masks[:, 1].tolist() == [FULL] * 64
    assert (masks[:, 2] & FULL).tolist() == [0xFF << (8 * ((i // 8) % 4)) for i in range(64)]  # int32, as numba's
    assert masks[:, 3].tolist() == [0xFF00 if 8 <= k < 16 else 0 for k in lane]


def all_of(x):
    return cuda.all_sync(0xFFFFFFFF, x)


def ballot_of(x):
    return cuda.ballot_sync(0xFFFFFFFF, x)


def active(x):
    return cuda.activemask()


def lanes_below(x):
    return cuda.lanemask_lt()


def matching(x):
    return cuda.match_any_sync(0xFFFFFFFF, x)


def shuffled(x):
    return cuda.shfl_sync(0xFFFFFFFF, x, 0)


def all_matching(x):
    return cuda.match_all_sync(0xFFFFFFFF, x)


# (the types numba-cuda 0.30.4's compile_ptx gives for the same functions)
@pytest.mark.parametrize("fn, arg, want", [
    (all_of, "int32", "bool"), (all_of, "boolean", "bool"), (ballot_of, "boolean", "int32"),
    (active, "int32", "uint32"), (lanes_below, "int32", "uint32"), (matching, "float64", "int32"),
    (shuffled, "float32", "float32"), (shuffled, "int64", "int64"),
    (matching, "uint32", "int32"), (matching, "boolean", "int32"), (matching, "int16", "int32"),
    (matching, "float16", "int32"), (all_matching, "int32", "Tuple(int32, bool)"),
    (all_matching, "uint64", "Tuple(int32, bool)"), (all_matching, "boolean", "Tuple(int32, bool)"),
])
def test_result_types_are_numba_cudas(fn, arg, want):
    _, resty = cuda.compile_ptx(fn, f"({arg},)", device=True)
    assert str(resty) == want


def test_a_partial_warp_reads_only_its_own_lanes():
    # 40 threads: the second warp has 8 lanes, which a full mask's votes see alone.
    @cuda.jit
    def partial(out, ballot, beyond):
        i = cuda.threadIdx.x
        out[i] = cuda.shfl_sync(FULL, i, 5)
        ballot[i] = cuda.ballot_sync(FULL, True)
        beyond[i] = cuda.shfl_sync(FULL, i, 20)

    out = np.zeros(40, np.int64)
    ballot = np.zeros(40, np.int32)
    beyond = np.zeros(40, np.int64)
    partial[1, 40](out, ballot, beyond)
    assert out[:32].tolist() == [5] * 32 and out[32:].tolist() == [37] * 8
    assert ballot.view(np.uint32)[:32].tolist() == [FULL] * 32 and ballot.view(np.uint32)[32:].tolist() == [0xFF] * 8
    assert beyond[:32].tolist() == [20] * 32
    if cuforge.backend() == "cpu":
        # A source lane that does not exist: undefined on a GPU; the cpu backend gives the lane's own value.
        assert beyond[32:].tolist() == list(range(32, 40))


def test_match_all_says_whether_every_lane_of_the_mask_holds_the_value():
    # Warp 0: every lane holds 5. Warp 1: lane 8 differs. Lanes 0-15 of each warp also match among
    # themselves (a half-warp mask), where warp 1's odd one out spoils the first half only.
    @cuda.jit
    def matches(vals, lanes, alls, halves, anys):
        i = cuda.grid(1)
        m, ok = cuda.match_all_sync(FULL, vals[i])
        lanes[i] = m
        alls[i] = ok
        if cuda.laneid < 16:
            h, hok = cuda.match_all_sync(0x0000FFFF, vals[i])
            halves[i] = h if hok else -1
        anys[i] = cuda.match_any_sync(FULL, np.uint32(vals[i]))  # numba-cuda takes uint32 as well

    vals = np.full(64, 5, np.int64)
    vals[32:] = 7
    vals[40] = 6
    lanes = np.zeros(64, np.int32)
    alls = np.zeros(64, np.bool_)
    halves = np.zeros(64, np.int64)
    anys = np.zeros(64, np.int64)
    matches[1, 64](vals, lanes, alls, halves, anys)
    assert lanes.view(np.uint32).tolist() == [FULL] * 32 + [0] * 32
    assert alls.tolist() == [True] * 32 + [False] * 32
    assert halves.tolist() == [0xFFFF] * 16 + [0] * 16 + [-1] * 16 + [0] * 16
    assert (anys[32:] & FULL).tolist() == [0x100 if i == 8 else FULL & ~0x100 for i in range(32)]


def test_lanes_that_returned_do_not_hold_up_the_others():
    @cuda.jit
    def early(out):
        i = cuda.threadIdx.x
        if i % 2 == 1:
            return
        out[i] = cuda.ballot_sync(0x55555555, True)

    out = np.zeros(32, np.int32)
    early[1, 32](out)
    assert out[::2].view(np.uint32).tolist() == [0x55555555] * 16


@pytest.mark.parametrize("body, match", [
    ("cuda.shfl_sync(0xFFFFFFFF, np.int16(1), 0)", "only supports 32- and 64-bit ints and floats"),
    ("cuda.shfl_sync(0xFFFFFFFF, np.uint32(1), 0)", "only supports 32- and 64-bit ints and floats"),  # as numba's
    ("cuda.shfl_sync(0xFFFFFFFF, 1j, 0)", "only supports 32- and 64-bit ints and floats"),
    ("cuda.all_sync(0xFFFFFFFF, 1.5)", "predicate must be an integer or boolean"),
    ("cuda.match_any_sync(0xFFFFFFFF, 1j)", "takes an int, float or boolean"),
    ("cuda.match_all_sync(0xFFFFFFFF, 1j)", "takes an int, float or boolean"),
    ("cuda.shfl_down_sync(0xFFFFFFFF, 1)", "argument"),
])
def test_bad_arguments_are_typing_errors(body, match, tmp_path):
    import importlib.util

    src = tmp_path / "bad_warp.py"
    src.write_text("import numpy as np\nfrom cuforge import cuda\n\n\n@cuda.jit\ndef k(out):\n"
                   f"    out[0] = {body}\n")
    spec = importlib.util.spec_from_file_location("bad_warp", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(cuda.TypingError, match=match):
        mod.k[1, 1](np.zeros(1))


def test_ptx_is_the_gpus_warp_instructions():
    @cuda.jit
    def warp_ops(x, out):
        i = cuda.grid(1)
        out[i] = cuda.shfl_down_sync(FULL, x[i], 1) + cuda.shfl_xor_sync(FULL, x[i], 2)
        out[i] += cuda.ballot_sync(FULL, x[i] > 0) + cuda.match_any_sync(FULL, x[i]) + cuda.activemask()
        cuda.syncwarp()

    ptx = warp_ops.compile("void(float64[:], float64[:])").ptx
    for ins in ("shfl.sync.down.b32", "shfl.sync.bfly.b32", "vote.sync.ballot.b32", "match.any.sync.b64",
                "activemask.b32", "bar.warp.sync"):
        assert ins in ptx, ins
    assert ptx.count("shfl.sync.down.b32") == 2  # a float64 is shuffled as two halves
