"""Random numbers in kernels: numba.cuda.random's xoroshiro128+ generators.

One generator state per thread, in a device array of ``xoroshiro128p_dtype``
records (two uint64s). ``create_xoroshiro128p_states(n, seed)`` makes them;
kernels draw with ``xoroshiro128p_uniform_float32(states, i)`` and its
siblings, each advancing ``states[i]``. The sequences are numba-cuda's, bit
for bit: the seed goes through SplitMix64 into the first state, and state
``i`` is the first one jumped ahead by ``(subsequence_start + i) * 2**64``
steps, so that threads draw from disjoint stretches of one sequence.

numba-cuda computes the states on the host, one jump after the other. Here
every thread of a kernel computes its own (on the device, or the cpu
backend's cores): a jump of ``k * 2**64`` steps is the product of the jumps
by ``2**(64 + b)`` for the bits ``b`` of ``k``, and each of those is a fixed
polynomial in the generator's step (its characteristic polynomial found by
Berlekamp-Massey, the jump polynomials by squaring ``x**(2**64)``), applied
as the reference jump is, in 128 steps. See docs/python.md, "cuda.random".
"""

import math

import numpy as np

from cuforge import types as _types
from cuforge.cuda import _api
from cuforge.cuda._jit import jit
from cuforge import cuda as _cuda
from cuforge.types import float32, float64, int64, uint32, uint64

__all__ = [
    "xoroshiro128p_dtype",
    "xoroshiro128p_type",
    "create_xoroshiro128p_states",
    "init_xoroshiro128p_states",
    "init_xoroshiro128p_state",
    "xoroshiro128p_next",
    "xoroshiro128p_jump",
    "xoroshiro128p_uniform_float32",
    "xoroshiro128p_uniform_float64",
    "xoroshiro128p_normal_float32",
    "xoroshiro128p_normal_float64",
]

xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)
xoroshiro128p_type = _types.from_dtype(xoroshiro128p_dtype)

_MASK = (1 << 64) - 1
# The reference jump: 2**64 steps, as xoroshiro128plus.c (and numba-cuda) write it.
_JUMP = (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922)


# --- device functions: the generator, as numba-cuda's -----------------------------------------


@jit(device=True)
def rotl(x, k):
    """x rotated left by k bits (as uint64)."""
    x = uint64(x)
    k = uint32(k)
    return (x << k) | (x >> uint32(64 - k))


@jit(device=True)
def init_xoroshiro128p_state(states, index, seed):
    """Seeds ``states[index]`` from a 64-bit seed through SplitMix64 (both words the same)."""
    index = int64(index)
    z = uint64(seed) + uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> uint32(30))) * uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> uint32(27))) * uint64(0x94D049BB133111EB)
    z = z ^ (z >> uint32(31))
    states[index]["s0"] = z
    states[index]["s1"] = z


@jit(device=True)
def xoroshiro128p_next(states, index):
    """The next uint64 of ``states[index]``, which advances one step."""
    index = int64(index)
    s0 = states[index]["s0"]
    s1 = states[index]["s1"]
    result = s0 + s1
    s1 ^= s0
    states[index]["s0"] = rotl(s0, uint32(55)) ^ s1 ^ (s1 << uint32(14))
    states[index]["s1"] = rotl(s1, uint32(36))
    return result


@jit(device=True)
def _jump_words(j0, j1, s0, s1):
    """The state (s0, s1) advanced by the jump polynomial j0 + j1 * x**64: the sum of the states
    at the steps whose coefficient is 1 (xoroshiro128plus.c's jump, with any polynomial)."""
    a0 = uint64(0)
    a1 = uint64(0)
    for w in range(2):
        j = j0 if w == 0 else j1
        for b in range(64):
            if (j >> uint32(b)) & uint64(1):
                a0 ^= s0
                a1 ^= s1
            t = s1 ^ s0
            s0 = rotl(s0, uint32(55)) ^ t ^ (t << uint32(14))
            s1 = rotl(t, uint32(36))
    return a0, a1


@jit(device=True)
def xoroshiro128p_jump(states, index):
    """Advances ``states[index]`` by 2**64 steps."""
    index = int64(index)
    s0, s1 = _jump_words(uint64(0xBEAC0467EBA5FACB), uint64(0xD86B048B86AA9922), states[index]["s0"],
                         states[index]["s1"])
    states[index]["s0"] = s0
    states[index]["s1"] = s1


@jit(device=True)
def uint64_to_unit_float64(x):
    """A uint64 as a float64 in [0, 1): its top 53 bits."""
    x = uint64(x)
    return (x >> uint32(11)) * (float64(1) / (uint64(1) << uint32(53)))


@jit(device=True)
def uint64_to_unit_float32(x):
    """A uint64 as a float32: the float64 in [0, 1) rounded (so 1.0 can come out, as in numba-cuda)."""
    return float32(uint64_to_unit_float64(x))


@jit(device=True)
def xoroshiro128p_uniform_float32(states, index):
    """A float32 uniform in [0, 1) from ``states[index]``, which advances one step."""
    return uint64_to_unit_float32(xoroshiro128p_next(states, int64(index)))


@jit(device=True)
def xoroshiro128p_uniform_float64(states, index):
    """A float64 uniform in [0, 1) from ``states[index]``, which advances one step."""
    return uint64_to_unit_float64(xoroshiro128p_next(states, int64(index)))


@jit(device=True)
def xoroshiro128p_normal_float32(states, index):
    """A float32 from the standard normal distribution (Box-Muller on two float32 uniforms; the
    second normal is dropped): ``states[index]`` advances two steps."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(-float32(2.0) * math.log(u1)) * math.cos(float32(6.2831855) * u2)


@jit(device=True)
def xoroshiro128p_normal_float64(states, index):
    """A float64 from the standard normal distribution, computed from two float32 uniforms as
    numba-cuda computes it: ``states[index]`` advances two steps."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(-float64(2.0) * math.log(u1)) * math.cos(float64(6.283185307179586) * u2)


# --- the jump polynomials, on the host ----------------------------------------------------------


def _step(s0, s1):
    t = s1 ^ s0
    return ((s0 << 55 | s0 >> 9) & _MASK) ^ t ^ ((t << 14) & _MASK), (t << 36 | t >> 28) & _MASK


def _characteristic_polynomial():
    """The step's characteristic polynomial over GF(2) (bit i: the coefficient of x**i), as the
    minimal polynomial of one output bit's sequence (Berlekamp-Massey); degree 128."""
    s0, s1, bits = 0x0123456789ABCDEF, 0xFEDCBA9876543210, []
    for _ in range(256):
        bits.append(s0 & 1)
        s0, s1 = _step(s0, s1)
    c, b, length, m = 1, 1, 0, 1  # connection polynomials as ints
    for n, bit in enumerate(bits):
        d = bit
        for i in range(1, length + 1):
            d ^= ((c >> i) & 1) & bits[n - i]
        if d == 0:
            m += 1
        elif 2 * length <= n:
            c, b, length, m = c ^ (b << m), c, n + 1 - length, 1
        else:
            c ^= b << m
            m += 1
    if length != 128:
        raise AssertionError(f"xoroshiro128+'s step has a minimal polynomial of degree {length}, not 128")
    return int(f"{c:0129b}"[::-1], 2)  # the reciprocal of the connection polynomial


def _mulmod(a, b, p):
    r = 0
    while b:
        if b & 1:
            r ^= a
        b >>= 1
        a <<= 1
        if a >> 128:
            a ^= p
    return r


def _jump_table():
    """Row b: the polynomial x**(2**(64 + b)) mod the characteristic polynomial as two words."""
    p = _characteristic_polynomial()
    x = 2
    for _ in range(64):  # x**(2**64)
        x = _mulmod(x, x, p)
    if (x & _MASK, x >> 64) != _JUMP:
        raise AssertionError("the computed 2**64-step jump is not xoroshiro128plus.c's")
    rows = []
    for _ in range(64):
        rows.append((x & _MASK, x >> 64))
        x = _mulmod(x, x, p)
    return np.array(rows, dtype=np.uint64)


# Compiled into the kernel below as a constant array; made on the first initialisation, not at import.
_JUMPS = None


def _jumps():
    global _JUMPS
    if _JUMPS is None:
        _JUMPS = _jump_table()
    return _JUMPS


# --- the states: made on the device, every thread its own ---------------------------------------


@jit
def _init_states(states, s0, s1, start):
    i = _cuda.grid(1)
    if i < states.shape[0]:
        a0 = uint64(s0)
        a1 = uint64(s1)
        k = uint64(start) + uint64(i)  # how many 2**64-step jumps from the seed's state
        b = 0
        while k != uint64(0):
            if k & uint64(1):
                a0, a1 = _jump_words(_JUMPS[b, 0], _JUMPS[b, 1], a0, a1)
            k >>= uint32(1)
            b += 1
        states[i]["s0"] = a0
        states[i]["s1"] = a1


def _splitmix64(seed):
    z = (seed + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _as_uint64(value, what):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}")
    return int(value) & _MASK  # as numba-cuda's uint64(seed): a negative seed wraps


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0):
    """Initialises the generator states of ``states`` (a 1-D device array of
    ``xoroshiro128p_dtype``) on its device, on ``stream``: state ``i`` is the
    seed's (through SplitMix64) advanced by ``(subsequence_start + i) * 2**64``
    steps, as numba-cuda's."""
    dtype = getattr(states, "dtype", None)
    if dtype != xoroshiro128p_dtype or getattr(states, "ndim", None) != 1 or not _cuda.is_cuda_array(states):
        raise TypeError("states must be a 1-D device array of xoroshiro128p_dtype, as create_xoroshiro128p_states "
                        f"makes (got {type(states).__name__} of dtype {dtype})")
    seed = _as_uint64(seed, "seed")
    start = _as_uint64(subsequence_start, "subsequence_start")
    n = states.shape[0]
    if n == 0:
        return
    z = _splitmix64(seed)
    _jumps()  # before the kernel's first compile reads it
    threads = 256
    _init_states[(n + threads - 1) // threads, threads, stream](states, np.uint64(z), np.uint64(z), np.uint64(start))


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """A new device array of ``n`` generator states, initialised on the
    device for ``seed`` (see init_xoroshiro128p_states), on ``stream``."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative integer number of states, not {n!r}")
    states = _api.device_array(int(n), dtype=xoroshiro128p_dtype, stream=stream)
    init_xoroshiro128p_states(states, seed, subsequence_start, stream)
    return states
