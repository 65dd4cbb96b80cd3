"""Private sums on the cpu backend (issue 16, docs/cpu_execution.md "Private
sums"): an array a kernel only adds into with atomics whose results it
ignores (a histogram) is given to each worker as a private zeroed copy,
added into the array when the worker is done, so the adds are plain adds
with no cache line moving between cores. The compiler decides which
arguments qualify (`private_sums`); the runtime decides per launch (size,
alignment, overlap with the other arrays). Either way the numbers must be
the ones the atomics give."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from cuforge import cuda

pytestmark = pytest.mark.skipif(cuda.backend() != "cpu", reason="the cpu backend's private sums")

HERE = os.path.dirname(os.path.abspath(__file__))


def compiled(kernel):
    (cf,) = kernel._definitions_by_spec().values()
    return cf


# --- which arguments are sums --------------------------------------------------------------------


@cuda.jit
def histogram(values, bins):
    start = cuda.grid(1)
    for i in range(start, values.size, cuda.gridsize(1)):
        cuda.atomic.add(bins, values[i], 1)


@cuda.jit
def weighted(keys, weights, sums):
    i = cuda.grid(1)
    if i < keys.size:
        cuda.atomic.add(sums, keys[i], weights[i])


@cuda.jit
def debit(keys, balance):
    i = cuda.grid(1)
    if i < keys.size:
        cuda.atomic.sub(balance, keys[i], 2)


@cuda.jit
def joint(a, b, counts):
    i = cuda.grid(1)
    if i < a.size:
        cuda.atomic.add(counts, (a[i] % counts.shape[0], b[i] % counts.shape[1]), 1)


@cuda.jit
def uses_the_old_value(values, bins, old):
    i = cuda.grid(1)
    if i < values.size:
        old[i] = cuda.atomic.add(bins, values[i], 1)


@cuda.jit
def reads_the_sum(values, bins, out):
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.add(bins, values[i], 1)
        out[i] = bins[0]


@cuda.jit
def takes_the_max(values, bins):
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.max(bins, 0, values[i])


@cuda.jit(device=True)
def add_one(bins, v):
    cuda.atomic.add(bins, v, 1)


@cuda.jit
def through_a_device_function(values, bins):
    i = cuda.grid(1)
    if i < values.size:
        add_one(bins, values[i])


@cuda.jit
def through_another_name(values, bins):
    i = cuda.grid(1)
    b = bins
    if i < values.size:
        cuda.atomic.add(b, values[i], 1)


@cuda.jit
def sums_and_reads_own_write(acc, seen):
    # The one thread reads back, through another argument, what it added: a copy would hide it.
    cuda.atomic.add(acc, 0, 1)
    seen[1] = seen[0]


def test_the_compiler_marks_arrays_only_added_into():
    keys = np.zeros(4, np.int64)
    histogram[1, 4](keys, np.zeros(4, np.int32))
    weighted[1, 4](keys, np.ones(4), np.zeros(4))
    debit[1, 4](keys, np.zeros(4, np.int64))
    joint[1, 4](keys, keys, np.zeros((2, 3), np.uint32))
    assert compiled(histogram).private_sums == [1]
    assert compiled(weighted).private_sums == [2]
    assert compiled(debit).private_sums == [1]
    assert compiled(joint).private_sums == [2], "a shape read is no element read"


@pytest.mark.parametrize("kernel, extra", [(uses_the_old_value, True), (reads_the_sum, True), (takes_the_max, False),
                                           (through_a_device_function, False), (through_another_name, False)])
def test_other_uses_keep_the_array_shared(kernel, extra):
    values = np.array([0, 1, 1, 3], np.int32)
    bins = np.zeros(4, np.int32)
    args = (values, bins, np.zeros(4, np.int32)) if extra else (values, bins)
    kernel[1, 4](*args)
    assert compiled(kernel).private_sums == []
    if kernel is takes_the_max:
        assert bins.tolist() == [3, 0, 0, 0]
    else:
        assert bins.tolist() == [1, 2, 0, 1]


def test_small_and_odd_dtypes_are_not_sums():
    @cuda.jit
    def count16(values, bins):
        i = cuda.grid(1)
        if i < values.size:
            cuda.atomic.add(bins, values[i], 1)

    values = np.array([0, 1, 1], np.int64)
    for dtype in (np.int32, np.uint64, np.float32, np.float64):
        count16[1, 4](values, np.zeros(2, dtype))
    specs = count16._definitions_by_spec()
    assert sorted(len(cf.private_sums) for cf in specs.values()) == [1, 1, 1, 1]


# --- the numbers ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint64, np.float32, np.float64])
@pytest.mark.parametrize("grid, block", [(4096, 256), (16, 128), (1, 1)])
def test_histogram_equals_bincount(dtype, grid, block):
    rng = np.random.default_rng(7)
    values = rng.integers(0, 256, 1 << 20, dtype=np.int32)
    bins = np.full(256, 5, dtype)  # adds land on what is there
    d = cuda.to_device(bins)
    histogram[grid, block](cuda.to_device(values), d)
    want = np.bincount(values, minlength=256).astype(dtype) + dtype(5)
    np.testing.assert_array_equal(d.copy_to_host(), want)


def test_float_weights_sum_as_the_atomics_do():
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 1000, 1 << 18, dtype=np.int64)
    w = rng.random(keys.size)
    sums = np.zeros(1000)
    weighted[(keys.size + 255) // 256, 256](keys, w, sums)
    want = np.zeros(1000)
    np.add.at(want, keys, w)
    np.testing.assert_allclose(sums, want, rtol=1e-12)


def test_subtraction_and_two_dimensions():
    rng = np.random.default_rng(5)
    keys = rng.integers(0, 64, 1 << 16, dtype=np.int32)
    balance = np.full(64, 1000, np.int64)
    debit[256, 256](keys, balance)
    np.testing.assert_array_equal(balance, 1000 - 2 * np.bincount(keys, minlength=64))

    a = rng.integers(0, 100, 1 << 16, dtype=np.int64)
    b = rng.integers(0, 100, 1 << 16, dtype=np.int64)
    counts = np.zeros((7, 9), np.uint32)
    joint[256, 256](a, b, counts)
    want = np.zeros((7, 9), np.uint32)
    np.add.at(want, (a % 7, b % 9), 1)
    np.testing.assert_array_equal(counts, want)


@pytest.mark.parametrize("view", ["every_other", "reversed", "column"])
def test_strided_views_of_the_sum(view):
    rng = np.random.default_rng(11)
    values = rng.integers(0, 50, 1 << 16, dtype=np.int32)
    if view == "column":
        whole = cuda.to_device(np.zeros((50, 3), np.int32))
        target = whole[:, 1]
    else:
        whole = cuda.to_device(np.zeros(100, np.int32))
        target = whole[::2] if view == "every_other" else whole[49::-1]
    histogram[64, 256](cuda.to_device(values), target)
    counts = np.bincount(values, minlength=50)
    got = whole.copy_to_host()
    if view == "column":
        want = np.zeros((50, 3), np.int32)
        want[:, 1] = counts
    else:
        want = np.zeros(100, np.int32)
        if view == "every_other":
            want[::2] = counts
        else:
            want[49::-1] = counts
    np.testing.assert_array_equal(got, want)


def test_a_sum_overlapping_another_argument_stays_shared():
    whole = cuda.to_device(np.array([10, 0], np.int64))
    sums_and_reads_own_write[1, 1](whole[0:1], whole)
    assert compiled(sums_and_reads_own_write).private_sums == [0]
    assert whole.copy_to_host().tolist() == [11, 11], "the thread must see its own add through the other view"


def test_with_barriers_and_shared_memory():
    @cuda.jit
    def block_histogram(values, bins):
        local = cuda.shared.array(16, dtype=np.int32)
        t = cuda.threadIdx.x
        if t < 16:
            local[t] = 0
        cuda.syncthreads()
        i = cuda.grid(1)
        if i < values.size:
            cuda.atomic.add(local, values[i], 1)
        cuda.syncthreads()
        if t < 16:
            cuda.atomic.add(bins, t, local[t])

    values = np.random.default_rng(2).integers(0, 16, 100_000, dtype=np.int32)
    bins = np.zeros(16, np.int64)
    block_histogram[(values.size + 127) // 128, 128](values, bins)
    assert compiled(block_histogram).private_sums == [1]
    np.testing.assert_array_equal(bins, np.bincount(values, minlength=16))


def test_turned_off_and_through_the_disk_cache(tmp_path):
    # The same numbers with CUFORGE_CPU_PRIVATE_SUMS=0, and the compiler's marks kept by the
    # disk cache (a second process loads the kernel from it and still sums privately).
    script = os.path.join(HERE, "private_sums_child.py")
    base = dict(os.environ, CUFORGE_CACHE_DIR=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1")
    runs = []
    for extra in ({}, {}, {"CUFORGE_CPU_PRIVATE_SUMS": "0"}):
        r = subprocess.run([sys.executable, script], capture_output=True, text=True, env=dict(base, **extra),
                           timeout=300)
        assert r.returncode == 0, r.stderr
        runs.append(json.loads(r.stdout.strip().splitlines()[-1]))
    first, cached, off = runs
    assert (first["hits"], cached["hits"]) == (0, 1)
    assert first["private_sums"] == cached["private_sums"] == [1]
    assert first["ok"] and cached["ok"] and off["ok"]
    assert first["bins"] == cached["bins"] == off["bins"]
