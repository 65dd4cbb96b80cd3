"""The CUDA execution model end to end: thread and block coordinates,
cuda.grid and gridsize, warpsize and laneid, barriers, shared memory
(static and the launch's dynamic memory), local and constant arrays, and
every atomic operation on each dtype CUDA has it for, under contention
(many threads on few slots) against a sequential NumPy result."""

import os

import numpy as np
import pytest

from compiler_support import needs_codegen
from cuforge import cuda
from cuforge import types as cftypes
from cuforge import float32, float64, int32, int64, uint8
from language_support import result_types

pytestmark = needs_codegen


@cuda.jit
def coordinates(out):
    x, y, z = cuda.grid(3)
    gx, gy, gz = cuda.gridsize(3)
    i = x + gx * (y + gy * z)
    out[i, 0] = cuda.threadIdx.x
    out[i, 1] = cuda.threadIdx.y
    out[i, 2] = cuda.threadIdx.z
    out[i, 3] = cuda.blockIdx.x
    out[i, 4] = cuda.blockIdx.y
    out[i, 5] = cuda.blockIdx.z
    out[i, 6] = cuda.blockDim.x * 100 + cuda.blockDim.y * 10 + cuda.blockDim.z
    out[i, 7] = cuda.gridDim.x * 100 + cuda.gridDim.y * 10 + cuda.gridDim.z
    out[i, 8] = cuda.warpsize
    out[i, 9] = cuda.laneid
    a, b = cuda.grid(2)
    out[i, 10] = a * 1000 + b
    out[i, 11] = cuda.grid(1)
    p, q = cuda.gridsize(2)
    out[i, 12] = p * 1000 + q + cuda.gridsize(1) * 1000000


def test_thread_coordinates_grid_and_gridsize():
    g, b = (2, 3, 2), (4, 2, 3)
    G = tuple(gg * bb for gg, bb in zip(g, b))
    out = np.full((G[0] * G[1] * G[2], 13), -1, np.int64)
    coordinates[g, b](out)
    want = np.zeros_like(out)
    for bz, by, bx, tz, ty, tx in np.ndindex(g[2], g[1], g[0], b[2], b[1], b[0]):
        x, y, z = bx * b[0] + tx, by * b[1] + ty, bz * b[2] + tz
        lane = (tx + b[0] * (ty + b[1] * tz)) % 32
        want[x + G[0] * (y + G[1] * z)] = [tx, ty, tz, bx, by, bz, 423, 232, 32, lane, x * 1000 + y, x,
                                           G[0] * 1000 + G[1] + G[0] * 1000000]
    np.testing.assert_array_equal(out, want)
    assert {str(t) for t in coordinates.signatures[0]} == {"array(int64, 2d, C)"}


def test_coordinate_types():
    def coords(x):
        return cuda.threadIdx.x, cuda.blockDim.y, cuda.grid(1), cuda.gridsize(1), cuda.laneid, cuda.warpsize

    assert [t.name for t in result_types(cuda.jit(device=True)(coords), "int32")] == \
        ["int32", "int32", "int64", "int64", "int32", "int64"]  # warpsize: the constant 32


TPB = 64


@cuda.jit
def block_reverse(x, out):
    s = cuda.shared.array(TPB, float32)
    s2 = cuda.shared.array((2, TPB), dtype=int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i]
    s2[0, t] = t
    s2[1, t] = -t
    cuda.syncthreads()  # every thread's writes are seen after the barrier
    out[i] = s[TPB - 1 - t] + s2[1, (t + 1) % TPB]


def test_static_shared_arrays_and_syncthreads():
    x = np.arange(2 * TPB, dtype=np.float32)
    out = np.zeros_like(x)
    block_reverse[2, TPB](x, out)
    want = x.reshape(2, TPB)[:, ::-1].ravel() + np.tile(-((np.arange(TPB) + 1) % TPB), 2)
    np.testing.assert_array_equal(out, want)


@cuda.jit
def dynamic_reverse(x, out, sizes):
    d = cuda.shared.array(0, float64)  # the launch's dynamic shared memory
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    d[t] = x[i]
    cuda.syncthreads()
    out[i] = d[cuda.blockDim.x - 1 - t]
    if t == 0:
        sizes[cuda.blockIdx.x] = d.size


@pytest.mark.parametrize("threads", [32, 48])
def test_dynamic_shared_memory_is_sized_by_the_launch(threads):
    x = np.arange(3 * threads, dtype=np.float64)
    out, sizes = np.zeros_like(x), np.zeros(3, np.int64)
    dynamic_reverse[3, threads, 0, threads * 8 + 16](x, out, sizes)
    np.testing.assert_array_equal(out, x.reshape(3, threads)[:, ::-1].ravel())
    assert sizes.tolist() == [threads + 2] * 3


@cuda.jit
def block_sum(x, out):
    s = cuda.shared.array(128, int64)
    t = cuda.threadIdx.x
    s[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    step = cuda.blockDim.x // 2
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]
    n = cuda.syncthreads_count(x[cuda.grid(1)] % 3 == 0)
    if t == 1:
        out[cuda.gridDim.x + cuda.blockIdx.x] = n


def test_barriers_in_a_loop_and_syncthreads_count():
    x = np.arange(4 * 128, dtype=np.int64) * 7
    out = np.zeros(8, np.int64)
    block_sum[4, 128](x, out)
    np.testing.assert_array_equal(out[:4], x.reshape(4, 128).sum(axis=1))
    np.testing.assert_array_equal(out[4:], (x.reshape(4, 128) % 3 == 0).sum(axis=1))


@cuda.jit
def local_arrays(out):
    i = cuda.grid(1)
    ll = cuda.local.array(8, int32)  # per thread
    m = cuda.local.array((2, 3), float64)
    for k in range(8):
        ll[k] = i * k
    for a in range(2):
        for b in range(3):
            m[a, b] = a * 10 + b + i
    s = 0
    for k in range(8):
        s += ll[k]
    out[i] = s + m[1, 2] + m[-1, -3]


def test_local_arrays_are_per_thread():
    out = np.zeros(64)
    local_arrays[2, 32](out)
    i = np.arange(64)
    np.testing.assert_array_equal(out, i * 28 + (12 + i) + (10 + i))


def test_local_arrays_beyond_a_threads_local_memory_are_refused():
    def huge(a):
        big = cuda.local.array(200000, float64)  # 1.6 MB: CUDA gives a thread 512 KiB
        big[a[0]] = 1.0
        a[1] = big[a[2]]

    with pytest.raises(cuda.TypingError, match="local arrays of 1600000 bytes per thread"):
        cuda.compile_ptx(huge, "void(int64[:])")


@cuda.jit
def big_local_with_barrier(out):
    scratch = cuda.local.array(40000, float64)  # 320 KB
    t = cuda.threadIdx.x
    scratch[t] = t
    cuda.syncthreads()
    out[t] = scratch[t]


@pytest.mark.skipif(cuda.backend() != "cpu" or bool(os.environ.get("CUFORGE_CPU_STACK_KB")),
                    reason="the cpu backend's default fiber stacks")
def test_local_arrays_beyond_a_cpu_fiber_stack_are_an_error_not_a_crash():
    # A GPU thread may have 320 KB of local memory; on the cpu backend the
    # threads of a kernel with barriers are fibers on 256 KiB stacks.
    with pytest.raises(ValueError, match="do not fit the cpu backend's 256 KiB fiber stacks"):
        big_local_with_barrier[1, 4](np.zeros(4))


COEFFS = np.array([[0.5, -1.0, 2.0], [4.0, 0.25, -8.0]], dtype=np.float32)
BYTES = np.arange(256, dtype=np.uint8)[::-1].copy()


@cuda.jit
def constant_memory(out, codes):
    c = cuda.const.array_like(COEFFS)
    i = cuda.grid(1)
    if i < out.size:
        out[i] = c[i // 3, i % 3] * 2 + c.shape[1]
    b = cuda.const.array_like(BYTES)
    if i < codes.size:
        codes[i] = b[i * 7 % 256] + uint8(1)


def test_constant_arrays():
    out = np.zeros(6, np.float32)
    codes = np.zeros(64, np.uint8)
    constant_memory[1, 64](out, codes)
    np.testing.assert_array_equal(out, COEFFS.ravel() * 2 + 3)
    np.testing.assert_array_equal(codes, (BYTES[np.arange(64) * 7 % 256] + 1).astype(np.uint8))


# --- atomics ---------------------------------------------------------------------------------------

SLOTS = 7
N = 1000


@cuda.jit
def atomic_arith(vals, acc, olds):
    i = cuda.grid(1)
    if i < vals.size:
        slot = i % acc.shape[1]
        v = vals[i]
        olds[i] = cuda.atomic.add(acc, (0, slot), v)
        cuda.atomic.sub(acc, (1, slot), v)
        cuda.atomic.max(acc, (2, slot), v)
        cuda.atomic.min(acc, (3, slot), v)
        cuda.atomic.exch(acc, (4, slot), v)


@cuda.jit
def atomic_bits(vals, acc):
    i = cuda.grid(1)
    if i < vals.size:
        slot = i % acc.shape[1]
        v = vals[i]
        cuda.atomic.and_(acc[0], slot, v)
        cuda.atomic.or_(acc[1], slot, v)
        cuda.atomic.xor(acc[2], slot, v)


@cuda.jit
def atomic_cas(acc, winners):
    i = cuda.grid(1)
    if i < winners.size:
        slot = i % acc.size
        winners[i] = cuda.atomic.cas(acc, slot, 0, i + 1) == 0  # one thread per slot sees 0


@cuda.jit
def atomic_inc_dec(acc, limit, olds):
    i = cuda.grid(1)
    if i < olds.size:
        slot = i % acc.shape[1]
        olds[i] = cuda.atomic.inc(acc[0], slot, limit)
        cuda.atomic.dec(acc[1], slot, limit)


@cuda.jit
def atomic_shared(vals, out):
    s = cuda.shared.array(5, int64)
    t = cuda.threadIdx.x
    if t < 5:
        s[t] = 0
    cuda.syncthreads()
    cuda.atomic.add(s, vals[cuda.grid(1)] % 4, 1)
    cuda.atomic.max(s, 4, vals[cuda.grid(1)])
    cuda.syncthreads()
    if t < 5:
        cuda.atomic.add(out, t, s[t])


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64", "float32", "float64"])
def test_atomic_add_sub_max_min_exch(dtype):
    rng = np.random.default_rng(1)
    dt = np.dtype(dtype)
    lo = 0 if dt.kind == "u" else -50
    vals = rng.integers(lo, 50, N).astype(dt)
    if dt.kind == "f":
        vals = vals * dt.type(0.5)  # exact sums in any order
    acc = np.zeros((5, SLOTS), dt)
    acc[1] = 100000 if dt.kind == "u" else 7
    acc[2] = np.iinfo(dt).min if dt.kind != "f" else -np.inf
    acc[3] = np.iinfo(dt).max if dt.kind != "f" else np.inf
    start = acc.copy()
    olds = np.zeros(N, dt)
    atomic_arith[8, 128](vals, acc, olds)
    for s in range(SLOTS):
        v = vals[s::SLOTS]
        assert acc[0, s] == v.sum(dtype=dt)
        assert acc[1, s] == start[1, s] - v.sum(dtype=dt)
        assert acc[2, s] == v.max() and acc[3, s] == v.min()
        assert acc[4, s] in v
        # add returns the old values: the states before each add, which with
        # the final one are the states after each add with the initial one.
        o = olds[s::SLOTS]
        np.testing.assert_array_equal(np.sort(np.append(o, acc[0, s])), np.sort(np.append(o + v, 0)))


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64"])
def test_atomic_bitwise_and_cas(dtype):
    rng = np.random.default_rng(2)
    dt = np.dtype(dtype)
    vals = rng.integers(0, 2**31 - 1, N).astype(dt)
    acc = np.zeros((3, SLOTS), dt)
    acc[0] = np.array(-1).astype(dt)  # all ones
    atomic_bits[8, 128](vals, acc)
    for s in range(SLOTS):
        v = vals[s::SLOTS]
        assert acc[0, s] == np.bitwise_and.reduce(v)
        assert acc[1, s] == np.bitwise_or.reduce(v)
        assert acc[2, s] == np.bitwise_xor.reduce(v)
    cells = np.zeros(SLOTS, dt)
    winners = np.zeros(N, np.bool_)
    atomic_cas[8, 128](cells, winners)
    assert winners.sum() == SLOTS
    won = np.flatnonzero(winners)
    np.testing.assert_array_equal(np.sort(won % SLOTS), np.arange(SLOTS))
    np.testing.assert_array_equal(cells[won % SLOTS], won + 1)


@pytest.mark.parametrize("dtype", ["uint32", "uint64"])
def test_atomic_inc_and_dec_wrap_at_the_limit(dtype):
    acc = np.zeros((2, SLOTS), dtype)
    olds = np.zeros(N, dtype)
    atomic_inc_dec[8, 128](acc, 9, olds)
    count = np.array([len(range(s, N, SLOTS)) for s in range(SLOTS)])
    np.testing.assert_array_equal(acc[0], count % 10)  # 0 1 .. 9 0 1 ..
    np.testing.assert_array_equal(acc[1], (-count) % 10)  # 0 -> 9 (the limit) 8 ..
    for s in range(SLOTS):
        np.testing.assert_array_equal(np.sort(olds[s::SLOTS]), np.sort(np.arange(count[s]) % 10))


def test_atomics_on_shared_memory():
    vals = np.arange(256, dtype=np.int64) * 5
    out = np.zeros(5, np.int64)
    atomic_shared[4, 64](vals, out)
    want = np.append(np.bincount(vals % 4, minlength=4), vals.reshape(4, 64).max(axis=1).sum())
    np.testing.assert_array_equal(out, want)


def add_int8(a):
    cuda.atomic.add(a, 0, 1)


def and_float32(a):
    cuda.atomic.and_(a, 0, 1)


def inc_int32(a):
    cuda.atomic.inc(a, 0, 1)


def max_complex64(a):
    cuda.atomic.max(a, 0, 1)


def cas_float16(a):
    cuda.atomic.cas(a, 0, 1, 2)


UNSUPPORTED = [(add_int8, "add", "int8"), (and_float32, "and_", "float32"), (inc_int32, "inc", "int32"),
               (max_complex64, "max", "complex64"), (cas_float16, "cas", "float16")]


@pytest.mark.parametrize("fn, op, dtype", UNSUPPORTED, ids=[c[0].__name__ for c in UNSUPPORTED])
def test_atomics_on_unsupported_dtypes_are_typing_errors(fn, op, dtype):
    with pytest.raises(cuda.TypingError, match=f"cuda.atomic.{op} supports"):
        cuda.compile_ptx(fn, f"void({dtype}[:])")


@cuda.jit
def bit_functions(x, counts, reversed_bits):
    i = cuda.grid(1)
    if i < x.size:
        counts[i, 0] = cuda.popc(x[i])
        counts[i, 1] = cuda.clz(x[i])
        counts[i, 2] = cuda.ffs(x[i])
        reversed_bits[i] = cuda.brev(x[i])


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
def test_popc_clz_ffs_and_brev_against_python_integers(dtype):
    bits = np.dtype(dtype).itemsize * 8
    info = np.iinfo(dtype)
    x = np.array([0, 1, 2, 3, 0x80, 0x7F, info.max, info.min, 12345, -1 if info.min < 0 else info.max - 6,
                  1 << (bits - 2)], dtype=dtype)
    counts = np.full((x.size, 3), -1, np.int64)
    reversed_bits = np.zeros_like(x)
    bit_functions[1, 32](x, counts, reversed_bits)
    for k, v in enumerate(x.tolist()):
        u = v & ((1 << bits) - 1)  # the two's-complement bits
        assert counts[k, 0] == bin(u).count("1"), ("popc", v)
        assert counts[k, 1] == bits - u.bit_length(), ("clz", v)
        assert counts[k, 2] == (u & -u).bit_length(), ("ffs", v)
        # brev takes uint32 or uint64 (numba-cuda's candidates): only uint64
        # reverses 64 bits; int64 converts to uint32, as in Numba.
        rbits = 64 if dtype == np.uint64 else 32
        ru = u & ((1 << rbits) - 1)
        want = int(format(ru, f"0{rbits}b")[::-1], 2)
        assert int(reversed_bits[k]) & ((1 << bits) - 1) == want, ("brev", v)


# numba-cuda 0.30's result types (recorded with compile_ptx there): popc and
# clz keep the integer's type, ffs gives uint32, brev takes uint32 or uint64
# (int64 converts to uint32: the first of two unsafe candidates).
BIT_TYPES = {
    "int8": ("int8", "int8", "uint32", "uint32"),
    "int32": ("int32", "int32", "uint32", "uint32"),
    "uint16": ("uint16", "uint16", "uint32", "uint32"),
    "int64": ("int64", "int64", "uint32", "uint32"),
    "uint64": ("uint64", "uint64", "uint32", "uint64"),
    "bool": ("int8", "int8", "uint32", "uint32"),
}


@pytest.mark.parametrize("arg", sorted(BIT_TYPES))
def test_bit_functions_and_bit_count_type_as_numba(arg):
    def f(x):
        return cuda.popc(x), cuda.clz(x), cuda.ffs(x), cuda.brev(x)

    _, ret = cuda.compile_ptx(f, (getattr(cftypes, arg if arg != "bool" else "bool_"),), device=True, cc=(9, 0))
    assert tuple(t.name for t in ret) == BIT_TYPES[arg]


@cuda.jit
def bit_counts(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i].bit_count()


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64, np.uint64])
def test_int_bit_count_is_popc(dtype):
    info = np.iinfo(dtype)
    x = np.array([0, 1, 7, info.max, info.min, 12345 % int(info.max)], dtype=dtype)
    out = np.zeros(x.size, dtype)
    bit_counts[1, 32](x, out)
    bits = np.dtype(dtype).itemsize * 8
    assert out.tolist() == [bin(int(v) & ((1 << bits) - 1)).count("1") for v in x.tolist()]


def test_nanosleep_sleeps_on_the_cpu_backend_and_is_the_ptx_instruction():
    import time

    @cuda.jit
    def nap(out, ns):
        i = cuda.grid(1)
        cuda.nanosleep(ns)
        if i < out.size:
            out[i] = i

    out = np.zeros(4)
    start = time.perf_counter()
    nap[1, 4](out, 2_000_000)  # 2 ms per thread
    cuda.synchronize()
    assert out.tolist() == [0.0, 1.0, 2.0, 3.0]
    if cuda.backend() == "cpu":
        assert time.perf_counter() - start >= 0.002
    ptx, _ = cuda.compile_ptx(nap.py_func, "void(float64[:], uint32)")
    assert "nanosleep.u32" in ptx
    with pytest.raises(cuda.TypingError, match="nanosleep for \\(float64,\\): it takes an integer"):
        cuda.compile_ptx(lambda: cuda.nanosleep(1.5), ())


def pick(p, a, b):
    return cuda.selp(p, a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "uint16", "int32", "uint32", "int64", "uint64"])
def test_selp_picks_by_the_predicate_with_numba_cudas_types(dtype):
    @cuda.jit
    def choose(flags, a, b, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = cuda.selp(flags[i], a[i], b[i])

    flags = np.array([True, False, True, False])
    a = np.arange(1, 5).astype(dtype)
    b = (np.arange(1, 5) * 10).astype(dtype)
    out = np.zeros(4, dtype)
    choose[1, 4](flags, a, b, out)
    assert out.tolist() == [1, 20, 3, 40]
    ptx, resty = cuda.compile_ptx(pick, f"(boolean, {dtype}, {dtype})", device=True)
    assert str(resty) == dtype and "selp." in ptx  # numba-cuda 0.30.4's result type, PTX's selp


@pytest.mark.parametrize("sig, match", [
    ("(boolean, int8, int8)", "two values of one type"),  # numba-cuda has no int8 case either
    ("(boolean, int32, int64)", "two values of one type"),
    ("(boolean, float16, float16)", "two values of one type"),
    ("(float64, int32, int32)", "predicate must be a boolean or an integer"),
])
def test_selp_refuses_what_numba_cuda_has_no_case_for(sig, match):
    with pytest.raises(cuda.TypingError, match=match):
        cuda.compile_ptx(pick, sig, device=True)
