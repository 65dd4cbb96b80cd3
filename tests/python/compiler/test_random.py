"""cuforge.cuda.random: numba.cuda.random's xoroshiro128+ generators.

The states are made on the device, each thread jumping ahead on its own;
numba-cuda makes them on the host, one jump after the other. The test
compares both: the states and the numbers drawn from them against numba-cuda's
own host-side functions (random_numba_side.py, run under numba-cuda's
Python; no GPU needed), uniforms bit for bit, normals within an ulp or two
(the math library's log and cos differ between targets). Bad arguments are
clear errors. (The seed's compute_pi runs in test_seed_kernels.py.)
"""

import pathlib

import numpy as np
import pytest

from compiler_support import numba_side_table
from cuforge import cuda
from cuforge.cuda import random as rnd
from cuforge.cuda.random import (create_xoroshiro128p_states, init_xoroshiro128p_states, xoroshiro128p_dtype,
                                 xoroshiro128p_jump, xoroshiro128p_next, xoroshiro128p_normal_float32,
                                 xoroshiro128p_normal_float64, xoroshiro128p_uniform_float32,
                                 xoroshiro128p_uniform_float64)

SIDE = pathlib.Path(__file__).with_name("random_numba_side.py")
NUMBA_CUDA = "0.30.4"


@cuda.jit
def draw(states, out32, out64):
    """Per state, in order: three float32 uniforms, three float64 uniforms, two float32 normals,
    two float64 normals (random_numba_side.py's DRAWS)."""
    i = cuda.grid(1)
    if i < states.shape[0]:
        for k in range(3):
            out32[i, k] = xoroshiro128p_uniform_float32(states, i)
        for k in range(3):
            out64[i, 3 + k] = xoroshiro128p_uniform_float64(states, i)
        for k in range(2):
            out32[i, 6 + k] = xoroshiro128p_normal_float32(states, i)
        for k in range(2):
            out64[i, 8 + k] = xoroshiro128p_normal_float64(states, i)


@pytest.fixture(scope="module")
def numba_table(tmp_path_factory):
    return numba_side_table(NUMBA_CUDA, SIDE, SIDE, tmp_path_factory.mktemp("random"), "cuda.random's sequences")


def test_states_and_sequences_are_numba_cudas(numba_table):
    for case in numba_table:
        n, seed, start = case["case"]
        states = create_xoroshiro128p_states(n, seed=np.uint64(seed) if seed >= 2**63 else seed,
                                             subsequence_start=start)
        host = states.copy_to_host()
        got = [[int(s["s0"]), int(s["s1"])] for s in host]
        assert got == case["states"], f"states of {case['case']}"
        out32, out64 = np.zeros((n, 10), np.float32), np.zeros((n, 10))
        draw[(n + 63) // 64, 64](states, out32, out64)
        want = np.array(case["draws"])
        uniforms32, uniforms64 = out32[:, :3], out64[:, 3:6]
        assert np.array_equal(uniforms32, want[:, :3].astype(np.float32)), f"uniform_float32 of {case['case']}"
        assert np.array_equal(uniforms64, want[:, 3:6]), f"uniform_float64 of {case['case']}"
        np.testing.assert_allclose(out32[:, 6:8], want[:, 6:8].astype(np.float32), rtol=4e-7, atol=1e-7)
        np.testing.assert_allclose(out64[:, 8:10], want[:, 8:10], rtol=4e-7, atol=1e-7)


def test_the_jump_table_is_the_reference_jump_squared():
    # Row 0 is xoroshiro128plus.c's 2**64-step jump; checked when the table is made, and here against the device:
    # jumping a state once by the reference and once by row 0 agree.
    assert (int(rnd._jumps()[0, 0]), int(rnd._jumps()[0, 1])) == rnd._JUMP

    @cuda.jit
    def jump_twice(states):
        xoroshiro128p_jump(states, 0)
        xoroshiro128p_jump(states, 0)

    a = create_xoroshiro128p_states(1, seed=7)
    b = create_xoroshiro128p_states(1, seed=7, subsequence_start=2)
    jump_twice[1, 1](a)
    assert a.copy_to_host().tolist() == b.copy_to_host().tolist()


def test_threads_draw_from_disjoint_subsequences():
    # State i is state 0 jumped i times: a thread's draws do not repeat another's start.
    n = 1000
    states = create_xoroshiro128p_states(n, seed=3)

    @cuda.jit
    def firsts(states, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = xoroshiro128p_next(states, i)

    out = np.zeros(n, np.uint64)
    firsts[(n + 127) // 128, 128](states, out)
    assert np.unique(out).size == n
    later = create_xoroshiro128p_states(10, seed=3, subsequence_start=990)
    assert later.copy_to_host().tolist() == create_xoroshiro128p_states(n, seed=3).copy_to_host()[990:].tolist()


def test_uniforms_are_uniform_and_normals_normal():
    n = 4096
    states = create_xoroshiro128p_states(n, seed=11)
    out32, out64 = np.zeros((n, 10), np.float32), np.zeros((n, 10))
    draw[n // 128, 128](states, out32, out64)
    u = out64[:, 3:6].ravel()
    assert 0.0 <= u.min() and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.01
    z = out64[:, 8:10].ravel()
    assert abs(z.mean()) < 0.05 and abs(z.std() - 1.0) < 0.05


def test_states_live_on_the_stream_given():
    s = cuda.stream()
    states = create_xoroshiro128p_states(100, seed=5, stream=s)
    s.synchronize()
    again = cuda.device_array(100, dtype=xoroshiro128p_dtype)
    init_xoroshiro128p_states(again, 5)
    assert states.copy_to_host().tolist() == again.copy_to_host().tolist()
    assert create_xoroshiro128p_states(0, seed=1).shape == (0,)


@pytest.mark.parametrize(
    "call,error,match",
    [(lambda: create_xoroshiro128p_states(-1, 1), ValueError, "non-negative integer"),
     (lambda: create_xoroshiro128p_states(2.5, 1), ValueError, "non-negative integer"),
     (lambda: create_xoroshiro128p_states(4, 1.5), TypeError, "seed must be an integer"),
     (lambda: create_xoroshiro128p_states(4, 1, subsequence_start="x"), TypeError, "subsequence_start"),
     (lambda: init_xoroshiro128p_states(np.zeros(4, xoroshiro128p_dtype), 1), TypeError, "device array"),
     (lambda: init_xoroshiro128p_states(cuda.device_array(4, np.float64), 1), TypeError, "xoroshiro128p_dtype")],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


@cuda.jit
def draws_from_floats(states, out):
    out[0] = xoroshiro128p_uniform_float32(states, 0)


def test_wrong_states_are_refused_at_the_users_call():
    with pytest.raises(cuda.TypingError, match=r"cannot call xoroshiro128p_uniform_float32 with "
                                               r"\(array\(float64, 1d, C\), int64\).*random\.py, line") as info:
        draws_from_floats[1, 1](np.zeros(2), np.zeros(1))
    assert info.value.filename == __file__
    assert "out[0] = xoroshiro128p_uniform_float32(states, 0)" in info.value.source_line
