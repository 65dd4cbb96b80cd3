"""Kernel arguments from other libraries (__cuda_array_interface__) and the
stream they were made on: a launch orders itself after the producer's
stream on the device, never by waiting in the calling thread, and lets go
of a producer on its own stream as soon as it is done with it."""

import sys

import numpy as np
import pytest

from cuforge import _core, cuda

N = 4096


class Producer:
    """A third-party array: only ``__cuda_array_interface__``, over one of our
    device arrays, naming `stream` (a handle, or None)."""

    def __init__(self, d, stream):
        self._d = d  # keeps the memory alive
        self.__cuda_array_interface__ = {"shape": d.shape, "strides": None, "data": (d._pointer, False),
                                         "typestr": d.dtype.str, "stream": stream, "version": 3}


@cuda.jit
def slow_fill(a, rounds):
    """a[i] = i, after busy work long enough that an unordered reader would
    see the old values."""
    i = cuda.grid(1)
    if i < a.size:
        x = 0.0
        for r in range(rounds):
            x = x * 0.5 + r
        a[i] = i + x * 0.0


@cuda.jit
def double(out, a):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = 2 * a[i]


def test_a_producer_on_another_stream_is_ordered_before_the_launch():
    producer_stream, launch_stream = cuda.stream(), cuda.stream()
    d = cuda.to_device(np.full(N, -1.0))
    out = cuda.device_array(N)
    for _ in range(3):  # a race, if there were one, shows on some round
        d.copy_to_device(np.full(N, -1.0))
        cuda.synchronize()
        slow_fill[N // 128, 128, producer_stream](d, 20000)
        double[N // 128, 128, launch_stream](out, Producer(d, producer_stream.handle_value))
        launch_stream.synchronize()
        np.testing.assert_array_equal(out.copy_to_host(), 2 * np.arange(N, dtype=np.float64))


@pytest.mark.skipif(cuda.backend() != "cpu", reason="the host flips a flag in device memory: host memory on the cpu backend")
def test_the_launch_does_not_wait_for_the_producer_in_the_calling_thread():
    # A kernel on the producer's stream that finishes only once the host sets
    # a flag (or gives up after a bounded spin, so a regression fails rather
    # than hangs): if the launch waited for that stream in this thread, the
    # flag would be set only after the spin ran out.
    flag = np.zeros(1, dtype=np.int32)
    d_flag = cuda.from_dlpack(flag)  # the same memory, on the cpu backend
    seen = cuda.device_array(1, dtype=np.int32)

    @cuda.jit
    def wait_for_flag(flag, seen, spins):
        for _ in range(spins):
            if cuda.atomic.add(flag, 0, 0) != 0:
                seen[0] = 1
                return
        seen[0] = 0

    producer_stream, launch_stream = cuda.stream(), cuda.stream()
    wait_for_flag[1, 1](d_flag, seen, 1)  # compiled and loaded before timing matters
    cuda.synchronize()
    d = cuda.to_device(np.arange(N, dtype=np.float64))
    out = cuda.device_array(N)
    wait_for_flag[1, 1, producer_stream](d_flag, seen, 400_000_000)
    double[N // 128, 128, launch_stream](out, Producer(d, producer_stream.handle_value))
    flag[0] = 1  # reached only once the launch returned
    launch_stream.synchronize()
    producer_stream.synchronize()
    assert seen.copy_to_host()[0] == 1, "the launch waited in the calling thread for the producer's stream"
    np.testing.assert_array_equal(out.copy_to_host(), 2 * np.arange(N, dtype=np.float64))


@pytest.mark.parametrize("stream", ["none", "legacy"])
def test_a_producer_on_the_launch_stream_is_let_go_when_the_launch_returns(stream):
    d = cuda.to_device(np.arange(N, dtype=np.float64))
    out = cuda.device_array(N)
    p = Producer(d, None if stream == "none" else 1)
    double[N // 128, 128](out, p)  # compiled
    cuda.synchronize()
    _core.flush_deallocations()
    refs, pending = sys.getrefcount(p), _core.pending_deallocations()[0]
    double[N // 128, 128](out, p)
    assert sys.getrefcount(p) == refs, "the launch still holds the producer"
    assert _core.pending_deallocations()[0] == pending
    cuda.synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), 2 * np.arange(N, dtype=np.float64))


def test_a_producer_on_another_stream_is_held_until_the_work_queued_is_done():
    other = cuda.stream()
    d = cuda.to_device(np.arange(N, dtype=np.float64))
    out = cuda.device_array(N)
    p = Producer(d, other.handle_value)
    double[N // 128, 128](out, p)
    cuda.synchronize()
    _core.flush_deallocations()
    refs, pending = sys.getrefcount(p), _core.pending_deallocations()[0]
    double[N // 128, 128](out, p)
    # Its allocator may reuse the memory in its own stream's order, which
    # says nothing of ours: the reference waits in the deallocation queue.
    assert sys.getrefcount(p) == refs + 1
    assert _core.pending_deallocations()[0] == pending + 1
    _core.flush_deallocations()
    assert sys.getrefcount(p) == refs
    np.testing.assert_array_equal(out.copy_to_host(), 2 * np.arange(N, dtype=np.float64))

