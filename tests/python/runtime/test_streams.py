"""Streams: made, default and external ones; ordering, synchronisation,
callbacks, asyncio; and what is accepted as a stream argument.

Several tests hold a stream back (the `held` fixture), which shows work
queued behind it has not run yet.
"""

import asyncio
import time

import numpy as np
import pytest

from cuforge import _core, cuda


def test_a_new_stream():
    s = cuda.stream()
    assert isinstance(s, cuda.Stream)
    handle = int(s)
    assert handle not in (0, 1, 2)
    assert s.__cuda_stream__() == (0, handle)
    assert repr(s).startswith(f"<CUDA stream {handle}")
    assert s.priority == 0 and s.non_blocking is False and s.external is False
    assert cuda.stream(non_blocking=True).non_blocking is True
    assert int(cuda.stream()) != handle


def test_priorities_are_clamped_to_the_device_range():
    least, greatest = _core.stream_priority_range()
    assert greatest <= least
    assert cuda.stream(priority=greatest).priority == greatest
    assert cuda.stream(priority=greatest - 100).priority == greatest
    assert cuda.stream(priority=least + 100).priority == least
    assert cuda.stream(priority=1 << 40).priority == least
    assert cuda.stream(priority=-(1 << 40)).priority == greatest


def test_default_streams():
    """The handles are the driver's: CU_STREAM_LEGACY (1) and
    CU_STREAM_PER_THREAD (2), as numba's. numba's default_stream() has handle
    0 (CU_STREAM_DEFAULT, which the driver reads as the legacy stream);
    cuforge's names the legacy stream outright, so int() gives 1."""
    legacy, per_thread, default = cuda.legacy_default_stream(), cuda.per_thread_default_stream(), cuda.default_stream()
    assert int(legacy) == 1 and legacy.__cuda_stream__() == (0, 1)
    assert int(per_thread) == 2 and per_thread.__cuda_stream__() == (0, 2)
    assert repr(legacy).startswith("<Legacy default CUDA stream")
    assert repr(per_thread).startswith("<Per-thread default CUDA stream")
    assert default == legacy and default != per_thread
    for s in (legacy, per_thread, default):
        assert s.is_default
        s.synchronize()
        assert s.query()


def test_the_default_stream_can_be_per_thread(run_python):
    run = run_python(
        """
        import numpy as np
        from cuforge import cuda
        s = cuda.default_stream()
        print(int(s), repr(s).startswith("<Per-thread"), s == cuda.per_thread_default_stream())
        print(cuda.to_device(np.arange(3)).copy_to_host().tolist())
        """,
        env={"CUFORGE_PER_THREAD_DEFAULT_STREAM": "1"},
    )
    assert run.rc == 0, run
    assert run.stdout.split("\n")[:2] == ["2 True True", "[0, 1, 2]"]


def test_external_stream_refers_to_the_same_stream(held):
    s = cuda.stream()
    ext = cuda.external_stream(int(s))
    assert ext == s and hash(ext) == hash(s) and int(ext) == int(s)
    assert ext.external and repr(ext).startswith("<External CUDA stream")
    assert cuda.external_stream(s) == s  # an object with __cuda_stream__ too
    order = []
    with held(s) as gate:
        ext.add_callback(lambda st, status, arg: order.append("ext"))
        time.sleep(0.05)
        assert not ext.query() and order == []  # held with `s`
        order.append("released")
        gate.set()
    ext.synchronize()
    assert order == ["released", "ext"]


def test_external_stream_argument_errors():
    for bad in ["5", 1.5, None, [1]]:
        with pytest.raises(TypeError, match="external_stream"):
            cuda.external_stream(bad)
    with pytest.raises(ValueError):
        cuda.external_stream(-1)
    with pytest.raises(ValueError):
        cuda.external_stream(0)  # use default_stream()


def test_synchronize_and_query(held):
    s = cuda.stream()
    assert s.query()
    with held(s):
        time.sleep(0.05)
        assert not s.query()
    s.synchronize()
    assert s.query()


def test_auto_synchronize_synchronizes_when_the_scope_ends():
    s = cuda.stream()
    done = []
    with s.auto_synchronize() as st:
        assert st is s
        s.add_callback(lambda st, status, arg: (time.sleep(0.2), done.append(arg)), "late")
    assert done == ["late"]
    assert s.query()


def test_auto_synchronize_on_exceptions():
    s = cuda.stream()
    done = []
    with pytest.raises(KeyError):
        with s.auto_synchronize():
            s.add_callback(lambda st, status, arg: (time.sleep(0.1), done.append(1)))
            raise KeyError("inside")
    assert done == [1]


def test_add_callback_gets_stream_status_and_arg_after_prior_work():
    s = cuda.stream()
    host = cuda.pinned_array(100000, np.float64)
    host[:] = np.arange(100000)
    d = cuda.device_array_like(host)
    out = cuda.pinned_array_like(host)
    out[:] = -1
    seen = []
    d.copy_to_device(host, stream=s)
    d.copy_to_host(out, stream=s)
    # The copies queued before the callback have completed when it runs.
    s.add_callback(lambda stream, status, arg: seen.append((stream, status, arg, out[-1])), {"k": 1})
    s.add_callback(lambda stream, status, arg: seen.append((stream, status, arg, None)))  # arg defaults to None
    s.synchronize()
    assert len(seen) == 2
    stream, status, arg, last = seen[0]
    assert stream is s and status == 0 and arg == {"k": 1} and last == 99999.0
    assert seen[1][:3] == (s, 0, None)


def test_callbacks_run_in_order_and_later_work_waits_for_them():
    s = cuda.stream()
    order = []
    for i in range(5):
        s.add_callback(lambda st, status, arg: (time.sleep(0.01), order.append(arg)), i)
    d = cuda.device_array(1, np.int64)
    d.setitem(0, 7, stream=s)
    s.add_callback(lambda st, status, arg: order.append("after"))
    s.synchronize()
    assert order == [0, 1, 2, 3, 4, "after"]


def test_an_exception_in_a_callback_is_reported_and_the_stream_goes_on(monkeypatch):
    reported = []
    monkeypatch.setattr("sys.unraisablehook", lambda u: reported.append(u.exc_value))
    s = cuda.stream()
    s.add_callback(lambda st, status, arg: 1 / 0)
    ran = []
    s.add_callback(lambda st, status, arg: ran.append(True))
    s.synchronize()
    assert ran == [True]
    assert len(reported) == 1 and isinstance(reported[0], ZeroDivisionError)


def test_async_done_resolves_to_the_stream_once_its_work_is_done(held):
    # One stream held at a time: on a GPU the driver runs every host callback of a context on
    # one thread, so a callback blocked on one stream holds back the callbacks of all the others.
    async def main():
        s1, s2 = cuda.stream(), cuda.stream()
        result2 = await asyncio.wait_for(s2.async_done(), 10)
        assert result2 is s2
        with held(s1) as gate:
            done1 = s1.async_done()
            await asyncio.sleep(0.05)
            assert not done1.done()  # s1 is held
            gate.set()
        result1 = await asyncio.wait_for(done1, 10)
        assert result1 is s1
        d = cuda.to_device(np.arange(10), stream=s1)
        await s1.async_done()
        return d.copy_to_host(stream=s1)

    np.testing.assert_array_equal(asyncio.run(main()), np.arange(10))


def test_work_on_one_stream_runs_in_order():
    s = cuda.stream()
    d = cuda.device_array(1000, np.int32)
    for i in range(40):
        d.setitem(slice(None), i, stream=s)
    out = d.copy_to_host(stream=s)
    s.synchronize()
    assert (out == 39).all()


def test_the_legacy_default_stream_waits_for_blocking_streams(held):
    s = cuda.stream()  # blocking (non_blocking=False)
    order = []
    with held(s) as gate:
        cuda.legacy_default_stream().add_callback(lambda st, status, arg: order.append("default"))
        time.sleep(0.1)
        assert order == []
        order.append("released")
        gate.set()
    cuda.legacy_default_stream().synchronize()
    assert order == ["released", "default"]


class ForeignStream:
    """A stream from another library: only the CUDA stream protocol."""

    def __init__(self, stream):
        self._handle = int(stream)

    def __cuda_stream__(self):
        return (0, self._handle)


def test_objects_with_cuda_stream_are_accepted_as_streams(held):
    s = cuda.stream()
    foreign = ForeignStream(s)
    d = cuda.to_device(np.arange(6), stream=foreign)
    assert d.stream == s and d.stream.external
    out = d.copy_to_host(stream=foreign)
    cuda.event().record(foreign)
    d.bind(foreign)[0] = 5
    s.synchronize()
    np.testing.assert_array_equal(out, np.arange(6))
    assert d[0] == 5
    # Through the protocol, work lands on the same stream.
    order = []
    d2, src = cuda.device_array(3), cuda.pinned_array(3)
    src[:] = [1, 2, 3]
    with held(s) as gate:
        d2.copy_to_device(src, stream=foreign)
        cuda.external_stream(foreign).add_callback(lambda st, status, arg: order.append("after"))
        time.sleep(0.05)
        assert not s.query() and order == []
        order.append("released")
        gate.set()
    s.synchronize()
    np.testing.assert_array_equal(d2.copy_to_host(), [1, 2, 3])
    assert order == ["released", "after"]


def test_none_and_zero_mean_the_default_stream():
    d = cuda.to_device(np.arange(4), stream=None)
    assert d.stream == 0
    np.testing.assert_array_equal(d.copy_to_host(stream=None), np.arange(4))
    np.testing.assert_array_equal(d.copy_to_host(stream=0), np.arange(4))


BAD_STREAMS = ["abc", 5, 1, -1, [1], (0,), 1.0, True, False, object(), {}]


@pytest.mark.parametrize("bad", BAD_STREAMS, ids=lambda v: type(v).__name__ if type(v) is object else repr(v))
def test_invalid_stream_arguments_raise_type_error(bad):
    d = cuda.to_device(np.arange(4.0))
    calls = [
        lambda: cuda.to_device(np.arange(3), stream=bad),
        lambda: cuda.device_array(3, stream=bad),
        lambda: cuda.device_array_like(np.zeros(3), stream=bad),
        lambda: d.copy_to_host(stream=bad),
        lambda: d.copy_to_device(np.zeros(4), stream=bad),
        lambda: d.getitem(0, stream=bad),
        lambda: d.setitem(0, 1.0, stream=bad),
        lambda: d.bind(bad),
        lambda: d.split(2, stream=bad),
        lambda: cuda.event().record(bad),
        lambda: cuda.event().wait(bad),
    ]
    for call in calls:
        with pytest.raises(TypeError) as info:
            call()
        message = str(info.value)
        assert "stream" in message and type(bad).__name__ in message, message


def test_a_malformed_cuda_stream_protocol_raises_type_error():
    class Bad:
        def __cuda_stream__(self):
            return 7

    with pytest.raises(TypeError, match="__cuda_stream__"):
        cuda.to_device(np.arange(3), stream=Bad())


def test_a_handle_that_is_no_stream_is_refused():
    """The cpu backend knows every stream it made; the driver would take the
    handle on trust (no test on the cuda backend: it may crash)."""
    if cuda.backend() == "cuda":
        pytest.skip("the driver does not validate stream handles")
    with pytest.raises(cuda.CudaAPIError) as info:
        cuda.external_stream(12345)
    assert info.value.name == "CUDA_ERROR_INVALID_HANDLE"


def test_freeing_memory_while_a_python_callback_holds_a_stream_does_not_deadlock(run_python):
    """A free may flush the deferred frees, which waits for the device; the
    callback holding the stream needs the GIL to finish, so the wait must not
    hold it. Run in a subprocess, so a deadlock fails on the timeout."""
    run = run_python(
        """
        import threading
        import numpy as np
        from cuforge import cuda
        s = cuda.stream()
        gate = threading.Event()
        s.add_callback(lambda st, status, arg: gate.wait(20))
        threading.Timer(0.3, gate.set).start()  # a Python thread: needs the GIL
        arrays = [cuda.device_array(10) for _ in range(25)]
        pinned = [cuda.pinned_array(10) for _ in range(25)]
        del arrays, pinned  # past the batch size: a flush, which waits for `s`
        print("freed", flush=True)
        s.synchronize()
        """,
        timeout=60,
    )
    assert run.rc == 0 and "freed" in run.stdout, run


def test_streams_are_the_packages_subclass_and_the_binding_is_left_as_it_is():
    from cuforge import _core

    own = cuda.stream()
    made = [own, cuda.default_stream(), cuda.legacy_default_stream(), cuda.per_thread_default_stream(),
            cuda.external_stream(own.handle_value)]
    for s in made:
        assert type(s) is cuda.Stream and isinstance(s, _core.Stream)
    # What Python adds lives in the subclass: nothing is patched onto _core.Stream at import.
    for name in ("add_callback", "auto_synchronize", "async_done", "handle"):
        assert name in vars(cuda.Stream) and not hasattr(_core.Stream, name)
    # A copy made from a stream is the same stream.
    s = made[0]
    assert cuda.Stream(s) == s and hash(cuda.Stream(s)) == hash(s)
    with pytest.raises(TypeError, match="subclass of _core.Stream"):
        _core._set_stream_class(int)


def test_waiting_for_the_device_inside_a_callback_is_refused_not_a_deadlock():
    # Issue 15 item 3. In a child process, so that a regression hangs it (and times out), not the run.
    import pathlib
    import subprocess
    import sys

    script = pathlib.Path(__file__).with_name("callback_wait_child.py")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = dict(line.split(": ", 1) for line in r.stdout.splitlines())
    for name in ["device synchronize", "stream synchronize", "default stream synchronize", "event synchronize",
                 "copy_to_host", "to_device"]:
        assert lines[name].startswith("refused") and "CUDA_ERROR_NOT_PERMITTED" in lines[name], (name, lines)
        assert "inside a stream callback would wait for the callback itself" in lines[name], (name, lines)
    assert lines["later"] == "ran [0.0, 1.0, 2.0, 3.0]", lines
