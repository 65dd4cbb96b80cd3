"""Events: record, query, synchronize, wait, elapsed time."""

import time

import numpy as np
import pytest

from cuforge import cuda


def test_an_event_never_recorded_is_complete():
    e = cuda.event()
    assert isinstance(e, cuda.Event)
    assert e.query()
    e.synchronize()
    assert "event" in repr(e).lower()


def test_record_query_synchronize(held):
    s = cuda.stream()
    e = cuda.event()
    with held(s):
        e.record(s)
        time.sleep(0.05)
        assert not e.query()
    e.synchronize()
    assert e.query()
    e.record()  # the default stream
    e.synchronize()
    assert e.query()


def test_wait_orders_one_stream_after_another(held):
    s1, s2 = cuda.stream(), cuda.stream()
    order = []
    e = cuda.event()
    with held(s1) as gate:
        e.record(s1)
        e.wait(s2)
        s2.add_callback(lambda st, status, arg: order.append("s2"))
        time.sleep(0.1)
        assert order == [] and not s2.query()
        order.append("released")
        gate.set()
    s2.synchronize()
    assert order == ["released", "s2"]


def test_wait_orders_copies_across_streams(held):
    s1, s2 = cuda.stream(), cuda.stream()
    n = 1 << 18
    src = cuda.pinned_array(n, np.int32)
    src[:] = np.arange(n)
    d = cuda.device_array(n, np.int32)
    out = cuda.pinned_array(n, np.int32)
    out[:] = -1
    e = cuda.event()
    with held(s1):
        d.copy_to_device(src, stream=s1)
        e.record(s1)
        e.wait(s2)
        d.copy_to_host(out, stream=s2)
        time.sleep(0.05)
        assert (out == -1).all()  # s2 waits for s1, which is held
    s2.synchronize()
    np.testing.assert_array_equal(out, np.arange(n))


def test_elapsed_time_measures_the_work_between_two_events():
    s = cuda.stream()
    start, end = cuda.event(), cuda.event()
    start.record(s)
    s.add_callback(lambda st, status, arg: time.sleep(0.1))
    end.record(s)
    end.synchronize()
    ms = start.elapsed_time(end)
    assert isinstance(ms, float)
    assert 90 <= ms < 10000
    assert cuda.event_elapsed_time(start, end) == pytest.approx(ms)
    assert end.elapsed_time(start) == pytest.approx(-ms)


def test_elapsed_time_needs_timing_events():
    """The driver refuses events made with timing disabled, with
    CUDA_ERROR_INVALID_HANDLE, as numba reports it."""
    for start, end in [(cuda.event(timing=False), cuda.event()), (cuda.event(), cuda.event(timing=False))]:
        start.record()
        end.record()
        end.synchronize()
        with pytest.raises(cuda.CudaAPIError) as info:
            start.elapsed_time(end)
        assert info.value.name == "CUDA_ERROR_INVALID_HANDLE"
        assert info.value.code == 400
        with pytest.raises(cuda.CudaAPIError):
            cuda.event_elapsed_time(start, end)


def test_elapsed_time_of_events_never_recorded():
    with pytest.raises(cuda.CudaAPIError) as info:
        cuda.event().elapsed_time(cuda.event())
    assert info.value.name == "CUDA_ERROR_INVALID_HANDLE"


def test_events_without_timing_still_order_work(held):
    s = cuda.stream()
    e = cuda.event(timing=False)
    with held(s):
        e.record(s)
        assert not e.query()
    e.synchronize()
    assert e.query()


def test_cuda_api_error_carries_the_driver_status():
    with pytest.raises(cuda.CudaAPIError) as info:
        cuda.event(timing=False).elapsed_time(cuda.event(timing=False))
    e = info.value
    assert isinstance(e, RuntimeError)
    assert e.name in str(e)
    assert e.call and e.msg
    # numba's constructor: CudaAPIError(code, msg).
    mine = cuda.CudaAPIError(2, "out of memory")
    assert mine.code == 2 and mine.msg == "out of memory" and str(mine) == "out of memory"


def test_elapsed_time_before_the_end_event_completes(held):
    """The driver says CUDA_ERROR_NOT_READY (600); so does the cpu backend."""
    s = cuda.stream()
    start, end = cuda.event(), cuda.event()
    start.record(s)
    with held(s):
        end.record(s)
        with pytest.raises(cuda.CudaAPIError) as info:
            start.elapsed_time(end)
        assert info.value.name == "CUDA_ERROR_NOT_READY" and info.value.code == 600
    end.synchronize()
    assert start.elapsed_time(end) >= 0


@pytest.mark.gpu
def test_driver_errors_name_the_driver_call():
    with pytest.raises(cuda.CudaOutOfMemoryError) as info:
        cuda.device_array(1 << 59)
    assert info.value.code == 2 and "cuMemAlloc" in str(info.value)
