"""cuda.close(): what was made before is unusable (CudaAPIError,
CUDA_ERROR_CONTEXT_IS_DESTROYED), what is made after works. Each test runs
in a fresh interpreter, so closing cannot reach the other tests."""

import json

from cuforge import cuda

SETUP = """
import gc, json
import numpy as np
from cuforge import cuda

results = {}

def case(name, fn):
    try:
        value = fn()
        results[name] = {"ok": True, "value": repr(value)}
    except BaseException as e:
        results[name] = {"ok": False, "type": type(e).__name__, "name": getattr(e, "name", None), "msg": str(e)}
"""


def run_script(run_python, body):
    run = run_python(SETUP + body + "\nprint('RESULTS', json.dumps(results))\n")
    assert run.rc == 0, run
    line = [ln for ln in run.stdout.splitlines() if ln.startswith("RESULTS ")][-1]
    return json.loads(line[len("RESULTS "):])


def assert_destroyed(results, names):
    for name in names:
        r = results[name]
        assert not r["ok"], (name, r)
        assert r["type"] == "CudaAPIError" and r["name"] == "CUDA_ERROR_CONTEXT_IS_DESTROYED", (name, r)
        assert "close" in r["msg"], (name, r)


def test_arrays_streams_and_events_made_before_close_raise(run_python):
    r = run_script(
        run_python,
        """
d = cuda.to_device(np.arange(10))
view = d[2:8:2]
s = cuda.stream()
ds = cuda.to_device(np.arange(3), stream=s)
e1, e2 = cuda.event(), cuda.event()
e1.record(s); e2.record(s)
m = cuda.mapped_array(4, np.int32)
cuda.close()

case("copy_to_host", lambda: d.copy_to_host())
case("view copy_to_host", lambda: view.copy_to_host())
case("element", lambda: d[3])
case("slice", lambda: d[1:])
case("setitem", lambda: d.__setitem__(0, 1))
case("copy_to_device", lambda: d.copy_to_device(np.zeros(10, np.int64)))
case("copy", lambda: d.copy())
case("bound array", lambda: ds.copy_to_host())
case("stream synchronize", lambda: s.synchronize())
case("stream query", lambda: s.query())
case("stream as argument", lambda: cuda.to_device(np.arange(3), stream=s))
case("stream callback", lambda: s.add_callback(lambda *a: None))
case("event record", lambda: e1.record())
case("event synchronize", lambda: e1.synchronize())
case("event query", lambda: e1.query())
case("elapsed_time", lambda: e1.elapsed_time(e2))
case("mapped device view", lambda: m.device_view().copy_to_host())
case("new from old", lambda: cuda.device_array(10, np.int64).copy_to_device(d))
case("old as to=", lambda: cuda.to_device(np.arange(10), to=d))
case("setitem from old", lambda: cuda.device_array(10, np.int64).__setitem__(slice(None), d))
case("shape", lambda: (d.shape, d.dtype.name, view.strides))
case("repr", lambda: repr(d))
""",
    )
    assert_destroyed(r, ["copy_to_host", "view copy_to_host", "element", "slice", "setitem", "copy_to_device",
                         "copy", "bound array", "stream synchronize", "stream query", "stream as argument",
                         "stream callback", "event record", "event synchronize", "event query",
                         "elapsed_time", "mapped device view", "new from old", "old as to=",
                         "setitem from old"])
    # What needs no device stays readable.
    assert r["shape"] == {"ok": True, "value": "((10,), 'int64', (16,))"}
    assert r["repr"]["ok"] and "DeviceNDArray" in r["repr"]["value"]


def test_new_objects_work_after_close(run_python):
    r = run_script(
        run_python,
        """
old = cuda.to_device(np.arange(5))
cuda.close()
case("to_device", lambda: cuda.to_device(np.arange(5)).copy_to_host().tolist())
def with_stream():
    s = cuda.stream()
    d = cuda.to_device(np.arange(4), stream=s)
    out = d.copy_to_host(stream=s)
    s.synchronize()
    return out.tolist()
case("stream", with_stream)
def with_events():
    a, b = cuda.event(), cuda.event()
    a.record(); b.record(); b.synchronize()
    return a.elapsed_time(b) >= 0 and a.query()
case("events", with_events)
case("default stream", lambda: cuda.default_stream().synchronize())
def mapped():
    m = cuda.mapped_array(3, np.int64)
    m[:] = 4
    return m.device_view().copy_to_host().tolist()
case("mapped", mapped)
def scopes():
    a = np.arange(1 << 17, dtype=np.float64)
    with cuda.pinned(a):
        pass
    with cuda.mapped(a) as d:
        return float(d[5])
case("scopes", scopes)
case("memory info", lambda: cuda.current_context().get_memory_info().total > 0)
case("device", lambda: cuda.get_current_device().WARP_SIZE)
case("synchronize", lambda: cuda.synchronize())
case("close again", lambda: cuda.close())
case("after second close", lambda: cuda.to_device([1, 2]).copy_to_host().tolist())
""",
    )
    assert r["to_device"] == {"ok": True, "value": "[0, 1, 2, 3, 4]"}
    assert r["stream"] == {"ok": True, "value": "[0, 1, 2, 3]"}
    assert r["events"] == {"ok": True, "value": "True"}
    assert r["mapped"] == {"ok": True, "value": "[4, 4, 4]"}
    assert r["scopes"] == {"ok": True, "value": "5.0"}
    assert r["memory info"]["value"] == "True" and r["device"]["value"] == "32"
    for name in ["default stream", "synchronize", "close again"]:
        assert r[name]["ok"], (name, r[name])
    assert r["after second close"] == {"ok": True, "value": "[1, 2]"}


def test_close_with_queued_work_and_dropping_old_objects_is_safe(run_python):
    """The cpu backend finishes queued work before closing (a reset would
    wait, its comment says); what the driver's reset does with pending host
    callbacks is not checked here."""
    run = run_python(
        """
        import gc, time
        import numpy as np
        from cuforge import cuda
        s = cuda.stream()
        done = []
        s.add_callback(lambda st, status, arg: (time.sleep(0.2), done.append(1)))
        arrays = [cuda.to_device(np.arange(100)) for _ in range(30)]
        views = [a[::2] for a in arrays]
        events = [cuda.event() for _ in range(5)]
        cuda.close()
        print("done", done)
        del arrays, views, events, s
        gc.collect()
        cuda.synchronize()
        print("pending", cuda.current_context().deallocations)
        """
    )
    assert run.rc == 0, run
    if cuda.backend() == "cpu":
        assert "done [1]" in run.stdout
    assert "pending (0, 0)" in run.stdout


def test_device_and_context_reset_close_too(run_python):
    r = run_script(
        run_python,
        """
a = cuda.to_device(np.arange(3))
cuda.get_current_device().reset()
case("after device reset", lambda: a.copy_to_host())
b = cuda.to_device(np.arange(3))
cuda.current_context().reset()
case("after context reset", lambda: b.copy_to_host())
case("new", lambda: cuda.to_device(np.arange(3)).copy_to_host().tolist())
""",
    )
    assert_destroyed(r, ["after device reset", "after context reset"])
    assert r["new"] == {"ok": True, "value": "[0, 1, 2]"}
